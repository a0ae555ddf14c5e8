//! The log itself: a bounded ring of events, its cursors and the
//! per-pane rate cap (pure: no I/O, no clock of its own).

use std::collections::{HashMap, VecDeque};

use crate::control::{PaneId, SessionId, WindowId};

/// Events the ring holds at most.
pub const RING_EVENTS: usize = 4096;

/// Bytes of event text (summaries and fields, plus [`EVENT_OVERHEAD`]
/// each) the ring holds at most: 1 MiB.
pub const RING_BYTES: usize = 1 << 20;

/// Bytes counted for an event besides its text.
const EVENT_OVERHEAD: usize = 96;

/// Events whose text or timing a pane controls that one pane may add in a
/// burst ([`Kind::pane_controlled`]).
pub const PANE_BURST: u64 = 32;

/// The rate such events of one pane are let through at once the burst is
/// spent, per second.
pub const PANE_PER_SECOND: u64 = 10;

/// Panes whose rate is tracked at most; beyond it the panes whose burst is
/// whole are forgotten (they lose nothing).
const RATE_PANES: usize = 4096;

macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident = $text:literal,)*) => {
        /// What happened.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Kind {
            $($(#[$doc])* $name,)*
        }

        impl Kind {
            /// Every kind.
            pub const ALL: &[Kind] = &[$(Kind::$name,)*];

            /// Its name in answers and filters (`command_finished`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$name => $text,)*
                }
            }

            /// The kind named `s` ([`Kind::as_str`]).
            pub fn parse(s: &str) -> Option<Kind> {
                match s {
                    $($text => Some(Kind::$name),)*
                    _ => None,
                }
            }
        }
    };
}

kinds! {
    /// A marked command began (OSC 133/633 `C`).
    CommandStarted = "command_started",
    /// A marked command ended (`D`, with its exit status when the mark
    /// carried one).
    CommandFinished = "command_finished",
    /// The pane's program reads a line without echo (a password).
    PasswordPrompt = "password_prompt",
    /// The pane's program reads a line with echo, or waits for a key.
    AwaitingInput = "awaiting_input",
    /// The screen changed, then stayed still for the set time while
    /// nothing was known to run (`wait_for_stable`'s rules).
    Idle = "idle",
    /// The pane's program exited and tmux kept the pane.
    Exited = "exited",
    /// The pane is gone from tmux.
    PaneGone = "pane_gone",
    /// The pane rang the bell.
    Bell = "bell",
    /// The pane's program set its title (OSC 0/2).
    Title = "title",
    /// A pane tmuxwire did not follow before appeared.
    PaneNew = "pane_new",
    /// A session appeared.
    SessionNew = "session_new",
    /// A session is gone.
    SessionClosed = "session_closed",
    /// A line of a pane's output matched a pattern a caller watches.
    Matched = "matched",
    /// Where the pane stands now (a first read's snapshot of a followed
    /// pane: running, at a prompt, waiting), not a change.
    State = "state",
}

impl Kind {
    /// Whether a pane's program decides when (and with what text) such
    /// events come: they count against the pane's rate cap. The others
    /// come from tmux's own state (panes and sessions made and gone).
    pub fn pane_controlled(self) -> bool {
        !matches!(
            self,
            Kind::PaneNew | Kind::PaneGone | Kind::Exited | Kind::SessionNew | Kind::SessionClosed
        )
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Kind-specific facts of an event: one variant per kind that has any
/// (the others, and a first read's `state`, carry [`Facts::None`]). Text in
/// them a pane controls is cleaned ([`super::text::cleaned`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Facts {
    /// No facts beyond the summary.
    #[default]
    None,
    /// `command_started`.
    Started {
        /// The command line, as the marks gave it.
        command: Option<String>,
    },
    /// `command_finished`.
    Finished {
        /// The status the end mark carried.
        exit_status: Option<i32>,
        /// The command line, as the marks gave it.
        command: Option<String>,
        /// How long the command ran, µs.
        duration_us: Option<u64>,
    },
    /// `exited`.
    Exited {
        /// `#{pane_dead_status}`.
        exit_status: Option<i32>,
    },
    /// `idle`.
    Idle {
        /// How long the screen was still, µs.
        still_us: u64,
    },
    /// `title`.
    Title {
        /// The new title.
        title: String,
    },
    /// `matched`.
    Matched {
        /// The pattern, as the caller gave it.
        pattern: String,
        /// The line.
        line: String,
    },
}

impl Facts {
    fn bytes(&self) -> usize {
        match self {
            Facts::Started { command } | Facts::Finished { command, .. } => {
                command.as_ref().map_or(0, String::len)
            }
            Facts::Title { title } => title.len(),
            Facts::Matched { pattern, line } => pattern.len() + line.len(),
            Facts::None | Facts::Exited { .. } | Facts::Idle { .. } => 0,
        }
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Its number in the log, from 0 (set by [`Ring::push`]).
    pub seq: u64,
    /// When it happened, on the mirror's clock ([`crate::mirror::clock_us`]).
    pub at_us: u64,
    /// What happened.
    pub kind: Kind,
    /// The pane, as tmux numbers it (`None` for a session's event).
    pub pane: Option<PaneId>,
    /// Its window, when known.
    pub window: Option<WindowId>,
    /// A session showing it (or the session the event is about).
    pub session: Option<SessionId>,
    /// One line a model reads as it is: `%3 command_finished: "make" exit 2
    /// after 41 s` (at most [`super::text::SUMMARY_MAX`] bytes, no
    /// controls).
    pub summary: String,
    /// Kind-specific facts.
    pub facts: Facts,
    /// Events of this pane the rate cap dropped just before this one (set
    /// by [`Ring::push`]).
    pub dropped_before: Option<u64>,
}

impl Event {
    /// An event of `kind` about `pane` (in `session`, `window` when known)
    /// at `at_us`; `summary` is capped ([`super::text::capped`]).
    pub fn new(kind: Kind, pane: Option<PaneId>, at_us: u64, summary: String) -> Event {
        Event {
            seq: 0,
            at_us,
            kind,
            pane,
            window: None,
            session: None,
            summary: super::text::capped(summary),
            facts: Facts::None,
            dropped_before: None,
        }
    }

    fn bytes(&self) -> usize {
        EVENT_OVERHEAD + self.summary.len() + self.facts.bytes()
    }
}

/// Where a reader stands in one log: the sequence number of the next event
/// it has not read. Its text (`ev-<log id, 16 hex>-<seq>`) is opaque to
/// callers, means something only to the log (of this process) that wrote
/// it, and is checked when read back ([`Cursor::decode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The log's id ([`Ring::new`]).
    pub log: u64,
    /// The next sequence number to read.
    pub next: u64,
}

/// A cursor's text that is not one, or is not of this log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not a cursor's text.
    #[error("not an event cursor (pass back the `cursor` of an answer as it is)")]
    Malformed,
    /// A cursor of another log: another tmux server's, or of an earlier
    /// tmuxwire process.
    #[error(
        "the cursor is from another event log (tmuxwire restarted, or it is another server's): \
         call without a cursor to start over"
    )]
    OtherLog,
    /// A cursor past the newest event (never written by this log).
    #[error("the cursor is past the newest event: it was not written by this log")]
    Ahead,
}

impl Cursor {
    /// The cursor's text.
    pub fn encode(&self) -> String {
        format!("ev-{:016x}-{}", self.log, self.next)
    }

    /// Reads back the text [`Cursor::encode`] wrote (only that text: one
    /// text per cursor).
    ///
    /// # Errors
    ///
    /// [`CursorError::Malformed`] for any other text.
    pub fn decode(s: &str) -> Result<Cursor, CursorError> {
        let bad = || CursorError::Malformed;
        let rest = s.strip_prefix("ev-").ok_or_else(bad)?;
        let (log, next) = rest.split_once('-').ok_or_else(bad)?;
        if log.len() != 16
            || !log.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            || next.is_empty()
            || next.len() > 20
            || !next.bytes().all(|b| b.is_ascii_digit())
            || (next.len() > 1 && next.starts_with('0'))
        {
            return Err(bad());
        }
        Ok(Cursor {
            log: u64::from_str_radix(log, 16).map_err(|_| bad())?,
            next: next.parse().map_err(|_| bad())?,
        })
    }
}

/// What a read found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// The events, oldest first.
    pub events: Vec<Event>,
    /// Where the next read starts: past the last event returned when
    /// `more`, else past the newest event.
    pub cursor: Cursor,
    /// Events after the reader's cursor that fell out of the ring before
    /// this read (0 without a cursor).
    pub missed: u64,
    /// More events that the filter accepts wait past `max`.
    pub more: bool,
}

/// Per-pane rate state: a token bucket in thousandths of an event.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    milli: u64,
    at_ms: u64,
    dropped: u64,
}

/// The log of one server: the newest events within [`RING_EVENTS`] and
/// [`RING_BYTES`], numbered from 0.
#[derive(Debug)]
pub struct Ring {
    id: u64,
    events: VecDeque<Event>,
    bytes: usize,
    /// The number the next event takes.
    next: u64,
    rate: HashMap<PaneId, Bucket>,
    rate_dropped: u64,
    max_events: usize,
    max_bytes: usize,
}

impl Ring {
    /// An empty ring whose cursors carry `id`.
    pub fn new(id: u64) -> Ring {
        Ring::with_bounds(id, RING_EVENTS, RING_BYTES)
    }

    /// [`Ring::new`] holding at most `events` events and `bytes` bytes (at
    /// least one event is always held).
    pub fn with_bounds(id: u64, events: usize, bytes: usize) -> Ring {
        Ring {
            id,
            events: VecDeque::new(),
            bytes: 0,
            next: 0,
            rate: HashMap::new(),
            rate_dropped: 0,
            max_events: events.max(1),
            max_bytes: bytes,
        }
    }

    /// Holds at most `events` events (at least one) and `bytes` bytes from
    /// now on, dropping the oldest beyond them at once.
    pub fn set_bounds(&mut self, events: usize, bytes: usize) {
        self.max_events = events.max(1);
        self.max_bytes = bytes;
        while self.events.len() > self.max_events
            || (self.bytes > self.max_bytes && self.events.len() > 1)
        {
            if let Some(old) = self.events.pop_front() {
                self.bytes -= old.bytes();
            }
        }
    }

    /// The number the next event takes.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// The cursor past the newest event.
    pub fn head(&self) -> Cursor {
        Cursor {
            log: self.id,
            next: self.next,
        }
    }

    /// Events the per-pane rate cap dropped so far.
    pub fn rate_dropped(&self) -> u64 {
        self.rate_dropped
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Adds `event` at `now_ms` (a monotonic clock, ms): numbers it, and
    /// drops the oldest events beyond the bounds. An event a pane controls
    /// ([`Kind::pane_controlled`]) over its pane's rate is dropped instead
    /// (counted, and told in the pane's next event kept:
    /// [`Event::dropped_before`]). A pane's `pane_gone` forgets its rate.
    /// Returns the number given, `None` when dropped.
    pub fn push(&mut self, mut event: Event, now_ms: u64) -> Option<u64> {
        if let Some(pane) = event.pane {
            if event.kind.pane_controlled() {
                if !self.take_token(pane, now_ms) {
                    self.rate_dropped += 1;
                    return None;
                }
                if let Some(b) = self.rate.get_mut(&pane)
                    && b.dropped > 0
                {
                    event.dropped_before = Some(std::mem::take(&mut b.dropped));
                }
            } else if event.kind == Kind::PaneGone
                && let Some(b) = self.rate.remove(&pane)
                && b.dropped > 0
            {
                event.dropped_before = Some(b.dropped);
            }
        }
        event.seq = self.next;
        self.next += 1;
        self.bytes += event.bytes();
        self.events.push_back(event);
        self.set_bounds(self.max_events, self.max_bytes);
        Some(self.next - 1)
    }

    /// Takes one event's token from `pane`'s bucket; false (and counted in
    /// the bucket) when it is empty.
    fn take_token(&mut self, pane: PaneId, now_ms: u64) -> bool {
        const FULL: u64 = PANE_BURST * 1000;
        if self.rate.len() >= RATE_PANES && !self.rate.contains_key(&pane) {
            self.rate.retain(|_, b| {
                b.dropped > 0 || b.milli + now_ms.saturating_sub(b.at_ms) * PANE_PER_SECOND < FULL
            });
        }
        let b = self.rate.entry(pane).or_insert(Bucket {
            milli: FULL,
            at_ms: now_ms,
            dropped: 0,
        });
        let gained = now_ms
            .saturating_sub(b.at_ms)
            .saturating_mul(PANE_PER_SECOND);
        b.milli = b.milli.saturating_add(gained).min(FULL);
        b.at_ms = b.at_ms.max(now_ms);
        if b.milli >= 1000 {
            b.milli -= 1000;
            true
        } else {
            b.dropped += 1;
            false
        }
    }

    /// The events after `cursor` (every event held, without one) that
    /// `keep` accepts, at most `max` (at least 1), oldest first; `missed`
    /// counts those after the cursor that fell out of the ring.
    ///
    /// # Errors
    ///
    /// [`CursorError::OtherLog`] for another log's cursor,
    /// [`CursorError::Ahead`] for one past the newest event.
    pub fn read(
        &self,
        cursor: Option<&Cursor>,
        max: usize,
        mut keep: impl FnMut(&Event) -> bool,
    ) -> Result<Read, CursorError> {
        let oldest = self.events.front().map_or(self.next, |e| e.seq);
        let from = match cursor {
            None => oldest,
            Some(c) if c.log != self.id => return Err(CursorError::OtherLog),
            Some(c) if c.next > self.next => return Err(CursorError::Ahead),
            Some(c) => c.next,
        };
        let missed = oldest.saturating_sub(from);
        let skip = usize::try_from(from.saturating_sub(oldest)).unwrap_or(usize::MAX);
        let max = max.max(1);
        let mut events = Vec::new();
        let mut next = self.next;
        let mut more = false;
        for e in self.events.iter().skip(skip) {
            if !keep(e) {
                continue;
            }
            if events.len() == max {
                more = true;
                next = e.seq;
                break;
            }
            events.push(e.clone());
        }
        Ok(Read {
            events,
            cursor: Cursor { log: self.id, next },
            missed: if cursor.is_some() { missed } else { 0 },
            more,
        })
    }
}

/// What [`Ring::newest`] found: the newest events a filter accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Newest {
    /// The events, oldest first.
    pub events: Vec<Event>,
    /// Older events the filter accepts that were left out to keep `max`.
    pub left_out: u64,
    /// The cursor past the newest event (whatever the filter said).
    pub cursor: Cursor,
}

impl Ring {
    /// The newest `max` events `keep` accepts, oldest first, and the
    /// cursor past the newest event held, read at once (a first read: what
    /// already happened, then whatever comes after the cursor).
    pub fn newest(&self, max: usize, mut keep: impl FnMut(&Event) -> bool) -> Newest {
        let mut events: Vec<Event> = Vec::new();
        let mut left_out = 0;
        for e in self.events.iter().rev() {
            if !keep(e) {
                continue;
            }
            if events.len() == max {
                left_out += 1;
            } else {
                events.push(e.clone());
            }
        }
        events.reverse();
        Newest {
            events,
            left_out,
            cursor: self.head(),
        }
    }
}

/// The fuzz target's property (`fuzz/fuzz_targets/event_cursor.rs`): any
/// text decodes without panicking, and only as the text its cursor
/// encodes to; a read with a decoded cursor never panics, and answers
/// events after it in order, or a clear refusal.
pub fn fuzz_cursor(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut ring = Ring::with_bounds(7, 8, 4096);
    for i in 0..12u32 {
        let pane = PaneId(i % 3);
        ring.push(
            Event::new(Kind::Title, Some(pane), u64::from(i), format!("{pane} t")),
            0,
        );
    }
    if let Ok(c) = Cursor::decode(&text) {
        assert_eq!(c.encode(), text);
        match ring.read(Some(&c), 4, |_| true) {
            Ok(r) => {
                assert!(r.events.windows(2).all(|w| w[0].seq < w[1].seq));
                assert!(r.events.iter().all(|e| e.seq >= c.next));
                assert!(r.cursor.next >= c.next);
            }
            Err(e) => assert!(c.log != 7 || c.next > ring.next_seq(), "{e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: Kind, pane: u32, summary: &str) -> Event {
        Event::new(kind, Some(PaneId(pane)), 0, summary.to_string())
    }

    #[test]
    fn cursors_read_back_and_refuse_anything_else() {
        let c = Cursor {
            log: 0xabc,
            next: 42,
        };
        assert_eq!(c.encode(), "ev-0000000000000abc-42");
        assert_eq!(Cursor::decode(&c.encode()), Ok(c));
        for bad in [
            "",
            "ev-",
            "ev-0000000000000abc-",
            "ev-0000000000000abc-042",
            "ev-0000000000000ABC-42",
            "ev-abc-42",
            "ev-0000000000000abc-42 ",
            "ev-0000000000000abc-+42",
            "ev-0000000000000abc-99999999999999999999",
        ] {
            assert_eq!(Cursor::decode(bad), Err(CursorError::Malformed), "{bad:?}");
        }
    }

    #[test]
    fn newest_keeps_the_last_accepted_and_counts_the_rest() {
        let mut r = Ring::with_bounds(3, 8, RING_BYTES);
        for i in 0..12 {
            r.push(ev(Kind::SessionNew, i % 2, "s"), 0);
        }
        let n = r.newest(2, |e| e.pane == Some(PaneId(0)));
        let seqs: Vec<u64> = n.events.iter().map(|e| e.seq).collect();
        assert_eq!(
            seqs,
            [8, 10],
            "the ring holds 4..12; pane 0's are 4, 6, 8, 10"
        );
        assert_eq!(n.left_out, 2);
        assert_eq!(n.cursor, r.head());
        let none = r.newest(5, |_| false);
        assert!(none.events.is_empty() && none.left_out == 0);
    }

    #[test]
    fn a_stale_cursor_says_how_many_events_it_missed() {
        let mut r = Ring::with_bounds(1, 4, RING_BYTES);
        for i in 0..10 {
            r.push(ev(Kind::SessionNew, i, "s"), 0);
        }
        let stale = Cursor { log: 1, next: 2 };
        let read = r.read(Some(&stale), 100, |_| true).expect("read");
        assert_eq!(read.missed, 4, "events 2..6 fell out");
        let seqs: Vec<u64> = read.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [6, 7, 8, 9]);
        assert_eq!(read.cursor, Cursor { log: 1, next: 10 });
        let again = r.read(Some(&read.cursor), 100, |_| true).expect("read");
        assert!(again.events.is_empty() && again.missed == 0);
        assert_eq!(
            r.read(Some(&Cursor { log: 2, next: 0 }), 1, |_| true),
            Err(CursorError::OtherLog)
        );
        assert_eq!(
            r.read(Some(&Cursor { log: 1, next: 11 }), 1, |_| true),
            Err(CursorError::Ahead)
        );
    }

    #[test]
    fn a_read_past_max_resumes_where_it_stopped() {
        let mut r = Ring::new(3);
        for i in 0..6 {
            r.push(ev(Kind::PaneGone, i % 2, "g"), 0);
        }
        let odd = |e: &Event| e.pane == Some(PaneId(1));
        let first = r.read(None, 2, odd).expect("read");
        assert_eq!(
            first.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [1, 3]
        );
        assert!(first.more);
        let rest = r.read(Some(&first.cursor), 2, odd).expect("read");
        assert_eq!(rest.events.iter().map(|e| e.seq).collect::<Vec<_>>(), [5]);
        assert!(!rest.more);
        assert_eq!(rest.cursor.next, 6);
    }

    #[test]
    fn the_byte_cap_drops_the_oldest() {
        let mut r = Ring::with_bounds(1, 1000, 3 * (EVENT_OVERHEAD + 10));
        for i in 0..5 {
            r.push(ev(Kind::PaneNew, i, "0123456789"), 0);
        }
        assert_eq!(r.len(), 3);
        assert_eq!(r.read(None, 10, |_| true).expect("read").events[0].seq, 2);
    }

    #[test]
    fn a_flooding_pane_loses_only_its_own_events() {
        let mut r = Ring::new(1);
        let mut kept = 0;
        for _ in 0..1000 {
            kept += usize::from(r.push(ev(Kind::Title, 1, "flood"), 0).is_some());
        }
        assert_eq!(kept, PANE_BURST as usize);
        assert_eq!(r.rate_dropped(), 1000 - PANE_BURST);
        // Another pane, and tmux's own events of the flooding one, pass.
        assert!(r.push(ev(Kind::Title, 2, "quiet"), 0).is_some());
        assert!(r.push(ev(Kind::Exited, 1, "exit"), 0).is_some());
        // A second later the pane has 10 events again; the first says
        // how many were dropped.
        let seq = r
            .push(ev(Kind::CommandFinished, 1, "done"), 1000)
            .expect("refilled");
        let read = r
            .read(Some(&Cursor { log: 1, next: seq }), 1, |_| true)
            .expect("read");
        assert_eq!(read.events[0].dropped_before, Some(1000 - PANE_BURST));
        for _ in 0..9 {
            assert!(r.push(ev(Kind::Title, 1, "t"), 1000).is_some());
        }
        assert!(r.push(ev(Kind::Title, 1, "t"), 1000).is_none());
    }

    #[test]
    fn kinds_read_back_by_name() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(*k));
        }
        assert_eq!(Kind::parse("nope"), None);
    }

    #[test]
    fn fuzz_property_holds_for_hand_picked_cursors() {
        for s in [
            "ev-0000000000000007-0",
            "ev-0000000000000007-9",
            "ev-0000000000000007-13",
            "x",
        ] {
            fuzz_cursor(s.as_bytes());
        }
    }
}
