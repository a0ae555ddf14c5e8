//! One mirrored pane: its [`Term`], where it stands, and what tmux last
//! said about it.

use std::collections::VecDeque;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

use tokio::sync::watch;

use super::echo::Origin;
use super::follow::Spot;
use super::marks::MarkKind;
use crate::control::{PaneId, SessionId};
use crate::term::Term;

/// Where a mirrored pane stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// No copy yet (its seed is on its way, or failed).
    Unseeded,
    /// The copy follows the pane's output.
    Live,
    /// tmux dropped output for the pane (`%pause`) or the copy disagreed
    /// with tmux: it must be seeded again before it answers.
    Stale,
    /// The pane is gone (its program exited and tmux destroyed it, or its
    /// session or window was killed): the copy holds its last text.
    Dead,
}

/// Facts about a pane as of the last time tmux listed it, kept so a dead
/// pane can still be reported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaneMeta {
    /// `$N` of a session showing the pane.
    pub session_id: String,
    /// That session's name.
    pub session_name: String,
    /// `@N` of its window.
    pub window_id: String,
    /// The window's name.
    pub window_name: String,
    /// The window's index in that session.
    pub window_index: String,
    /// The pane's index in its window.
    pub pane_index: String,
    /// The foreground process.
    pub pane_current_command: String,
    /// Its working directory.
    pub pane_current_path: String,
    /// The pane's tty.
    pub pane_tty: String,
}

/// The mutable state of a mirrored pane.
#[derive(Debug)]
pub struct PaneState {
    /// The copy (absent until seeded).
    pub term: Option<Term>,
    /// Where it stands.
    pub status: Status,
    /// The session whose control connection feeds the copy (a pane shown
    /// in several sessions, through grouped sessions or linked windows,
    /// is fed by one of them only).
    pub owner: Option<SessionId>,
    /// The last listing.
    pub meta: PaneMeta,
    /// The exit status tmux reported (`#{pane_dead_status}`), for a dead
    /// pane.
    pub exit_status: Option<i32>,
    /// When the copy was last seeded.
    pub seeded_at: Option<Instant>,
    /// Bytes of `%output` applied since the seed.
    pub bytes_applied: u64,
    /// The pane's mode and copy-mode scroll, from the last check.
    pub view: super::probe::View,
    /// History rows the copy dropped to stay within the mirror's memory
    /// cap (tmux may still have them).
    pub capped_rows: u64,
    /// Bumped each time a seed replaces the copy: line indices and spots
    /// of one copy mean nothing in another.
    pub epoch: u64,
    /// `run_command`'s marks seen in the pane's output, oldest first (at
    /// most [`MAX_MARKS`]).
    pub marks: VecDeque<Mark>,
}

/// Marks kept per pane.
pub const MAX_MARKS: usize = 256;

/// A mark (see [`super::marks`]) and where the cursor was just after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The nonce it carried.
    pub nonce: u128,
    /// Start or end (with the exit status).
    pub kind: MarkKind,
    /// The cursor just after it.
    pub at: Spot,
    /// The copy it was seen in ([`PaneState::epoch`]).
    pub epoch: u64,
}

/// A mirrored pane, shared between its feeding connection and readers.
#[derive(Debug)]
pub struct PaneMirror {
    /// The pane.
    pub id: PaneId,
    state: RwLock<PaneState>,
    /// Bumped after every change a reader could see (output applied, a
    /// seed, a status change), so waits wake without polling.
    changes: watch::Sender<u64>,
    /// Where the cursor was when tmuxwire last began typing into the
    /// pane ([`PaneMirror::begin_typing`]).
    typed_from: std::sync::Mutex<Option<TypedFrom>>,
    /// Held by a `run_command` while its command runs: one at a time per
    /// pane.
    run_lock: Arc<tokio::sync::Mutex<()>>,
}

/// Where the cursor was when tmuxwire began typing into a pane.
#[derive(Clone, Copy, Debug)]
pub struct TypedFrom {
    /// When.
    pub at: Instant,
    /// The copy's epoch then (a re-seed renumbers nothing, but starts a
    /// new epoch whose positions are not comparable).
    pub epoch: u64,
    /// The logical line the cursor was on.
    pub line: crate::term::LineIndex,
    /// Whether that line held text (a prompt) then.
    pub had_text: bool,
}

/// How long after typing a wait still counts the pane's output from the
/// line where the typing began (a fast command's output may come before
/// the wait does). The echo of the input is told apart without a clock
/// ([`super::echo`]).
const TYPED_FOR: std::time::Duration = std::time::Duration::from_secs(10);

impl PaneMirror {
    /// A pane with no copy yet.
    pub fn new(id: PaneId) -> Arc<PaneMirror> {
        Arc::new(PaneMirror {
            id,
            state: RwLock::new(PaneState {
                term: None,
                status: Status::Unseeded,
                owner: None,
                meta: PaneMeta::default(),
                exit_status: None,
                seeded_at: None,
                bytes_applied: 0,
                view: super::probe::View::default(),
                capped_rows: 0,
                epoch: 0,
                marks: VecDeque::new(),
            }),
            changes: watch::Sender::new(0),
            typed_from: std::sync::Mutex::new(None),
            run_lock: Arc::new(tokio::sync::Mutex::new(())),
        })
    }

    /// Where the cursor is now, as the origin of text about to be typed
    /// ([`super::echo::Origin`]); `None` before the copy exists.
    pub fn cursor_origin(&self) -> Option<Origin> {
        let st = self.read();
        let t = st.term.as_ref()?;
        Some(Origin {
            epoch: st.epoch,
            line: super::follow::cursor_spot(t).line,
        })
    }

    /// Notes where the cursor is as tmuxwire begins typing into the pane
    /// (call before the keys are sent): what the pane prints from that
    /// line on answers the input, even when it arrives before a wait
    /// for it begins. Returns that place (`None` before the copy exists).
    pub fn begin_typing(&self) -> Option<Origin> {
        let st = self.read();
        let t = st.term.as_ref()?;
        let spot = super::follow::cursor_spot(t);
        let had_text = !super::follow::lines_since(t, spot.line, 0)
            .partial
            .is_empty();
        let from = TypedFrom {
            at: Instant::now(),
            epoch: st.epoch,
            line: spot.line,
            had_text,
        };
        drop(st);
        *self.typed_from.lock().unwrap_or_else(|p| p.into_inner()) = Some(from);
        Some(Origin {
            epoch: from.epoch,
            line: from.line,
        })
    }

    /// Where tmuxwire last began typing into the pane, if that was in
    /// the last few seconds.
    pub fn typed_from(&self) -> Option<TypedFrom> {
        let t = *self.typed_from.lock().unwrap_or_else(|p| p.into_inner());
        t.filter(|f| f.at.elapsed() <= TYPED_FOR)
    }

    /// The lock `run_command` holds while its command runs.
    pub fn run_lock(&self) -> Arc<tokio::sync::Mutex<()>> {
        self.run_lock.clone()
    }

    /// A receiver that sees every later [`PaneMirror::changed`].
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// How many receivers from [`PaneMirror::subscribe`] exist (waits in
    /// progress, for one).
    pub fn subscribers(&self) -> usize {
        self.changes.receiver_count()
    }

    /// Tells waiters the pane changed (call after releasing the write
    /// lock).
    pub fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Read access (searches and captures hold it while they scan).
    pub fn read(&self) -> RwLockReadGuard<'_, PaneState> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Write access (the feeding connection).
    pub fn write(&self) -> RwLockWriteGuard<'_, PaneState> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl PaneState {
    /// Bytes the copy holds (history text and screen, roughly).
    pub fn bytes(&self) -> usize {
        self.term.as_ref().map_or(0, |t| {
            let (w, h) = t.size();
            t.history().bytes() + (w as usize) * (h as usize)
        })
    }
}
