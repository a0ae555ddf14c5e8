//! One mirrored pane: its [`Term`], where it stands, and what tmux last
//! said about it.

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

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
}

/// A mirrored pane, shared between its feeding connection and readers.
#[derive(Debug)]
pub struct PaneMirror {
    /// The pane.
    pub id: PaneId,
    state: RwLock<PaneState>,
}

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
            }),
        })
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
