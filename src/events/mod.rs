//! The event log: what happened in the panes tmuxwire follows, one
//! bounded log per tmux server, read with an opaque cursor
//! (`poll_events`, `tmuxwire events`).
//!
//! # Brief overview
//!
//! An [`Event`] says that something happened in one pane (a marked
//! command started or finished, the program waits for a password or a
//! line, the screen went still, the title changed, the pane exited or is
//! gone) or in the server (a session came or went). Each has a sequence
//! number, a time, the pane/window/session identity as tmux numbers them,
//! a [`Kind`], a one-line `summary` a model reads as it is, and a few
//! kind-specific [`Facts`].
//!
//! Events are written where tmuxwire's own state changes (the copies, their
//! marks and modes, tmux's listings), never by polling screens: see
//! [`crate::tmux::op::events`] for the producers.
//!
//! # Bounds
//!
//! The log ([`Ring`]) keeps the newest [`RING_EVENTS`] events and at most
//! [`RING_BYTES`] bytes of their text; an older event falls out, and a
//! [`Cursor`] from before it reads how many were missed. Events whose text
//! a pane controls are rate-capped per pane ([`PANE_BURST`],
//! [`PANE_PER_SECOND`]): a flooding pane loses its own events (counted and
//! said in its next one), never another pane's.
//!
//! # Trust
//!
//! A pane's program controls its output, title and marks, never its pane
//! id: each event names its pane from tmux's ids, and text from the pane
//! is cleaned ([`text::quoted`]: controls escaped, capped) and quoted in
//! the summary, so it cannot end the line or pose as another event.

pub mod ring;
pub mod text;

use std::sync::Mutex;

pub use ring::{
    Cursor, CursorError, Event, Facts, Kind, Newest, PANE_BURST, PANE_PER_SECOND, RING_BYTES,
    RING_EVENTS, Read, Ring,
};

/// A [`Ring`] shared by the producers and the readers of one tmux server,
/// with a signal that wakes readers waiting for the next event.
#[derive(Debug)]
pub struct EventLog {
    ring: Mutex<Ring>,
    /// The sequence number the next event will take: bumped after each
    /// event is in the ring, so a waiter woken by it finds the event.
    next: tokio::sync::watch::Sender<u64>,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog::new()
    }
}

impl EventLog {
    /// An empty log with a fresh log id (cursors of another log are
    /// refused).
    pub fn new() -> EventLog {
        let ring = Ring::new(crate::nonce::u64());
        EventLog {
            next: tokio::sync::watch::Sender::new(ring.next_seq()),
            ring: Mutex::new(ring),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds `event` (its `seq` is set here) at `now_ms` (a monotonic
    /// clock, ms, for the per-pane rate cap) and wakes waiting readers.
    /// Returns the sequence number given, or `None` when the pane's rate
    /// cap dropped it.
    pub fn push(&self, event: Event, now_ms: u64) -> Option<u64> {
        let (seq, next) = {
            let mut r = self.lock();
            let seq = r.push(event, now_ms);
            (seq, r.next_seq())
        };
        if seq.is_some() {
            self.next.send_replace(next);
        }
        seq
    }

    /// The events after `cursor` (all held, without one) that `keep`
    /// accepts, at most `max` of them, oldest first.
    ///
    /// # Errors
    ///
    /// As [`Ring::read`].
    pub fn read(
        &self,
        cursor: Option<&Cursor>,
        max: usize,
        keep: impl FnMut(&Event) -> bool,
    ) -> Result<Read, CursorError> {
        self.lock().read(cursor, max, keep)
    }

    /// The newest `max` events `keep` accepts and the cursor past the
    /// newest event, read at once ([`Ring::newest`]).
    pub fn newest(&self, max: usize, keep: impl FnMut(&Event) -> bool) -> Newest {
        self.lock().newest(max, keep)
    }

    /// Bounds the log to `events` events and `bytes` bytes (at most
    /// [`RING_EVENTS`] and [`RING_BYTES`]), the oldest beyond them dropped
    /// at once: for a server that should hold less, and for tests of a
    /// reader that falls behind.
    pub fn set_bounds(&self, events: usize, bytes: usize) {
        self.lock()
            .set_bounds(events.min(RING_EVENTS), bytes.min(RING_BYTES));
    }

    /// The cursor just past the newest event.
    pub fn head(&self) -> Cursor {
        self.lock().head()
    }

    /// A receiver woken after each event added (its value is the next
    /// sequence number).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.next.subscribe()
    }

    /// Receivers from [`EventLog::subscribe`] that exist (readers waiting,
    /// for one).
    pub fn waiters(&self) -> usize {
        self.next.receiver_count()
    }

    /// Events dropped by the per-pane rate cap since the log began.
    pub fn rate_dropped(&self) -> u64 {
        self.lock().rate_dropped()
    }
}
