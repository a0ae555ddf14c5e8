//! One mirrored pane: its [`Term`], where it stands, and what tmux last
//! said about it.
//!
//! The state sits behind a lock that the session's watch task takes to
//! apply the pane's output. Readers outside the mirror never touch it
//! directly: [`PaneMirror::view`] reads it in place (for short reads, the
//! writer waits meanwhile) and [`PaneMirror::snapshot`] copies it (for
//! scans and captures: the copy shares the history's sealed chunks, see
//! [`crate::term::History`], so taking it costs a copy of the screen and
//! the newest chunk, and the writer never waits behind a whole scan). The
//! few changes a reader makes go through [`PaneMirror`] methods that wake
//! the pane's waiters ([`PaneMirror::mark_dead`]).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Instant;

use tokio::sync::watch;

use super::echo::Origin;
use super::lines::Spot;
use super::marks::MarkKind;
use super::scan::ScreenLines;
use crate::control::format::Record;
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

crate::record! {
    /// Facts about a pane as of the last time tmux listed it, kept so a
    /// dead pane can still be reported. Read from any pane listing that
    /// asks for [`PaneMeta::FIELDS`] ([`PaneMeta::of`]).
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct PaneMeta {
        /// `$N` of a session showing the pane.
        pub session_id: String = "session_id",
        /// That session's name.
        pub session_name: String = "session_name",
        /// `@N` of its window.
        pub window_id: String = "window_id",
        /// The window's name.
        pub window_name: String = "window_name",
        /// The window's index in that session.
        pub window_index: String = "window_index",
        /// The pane's index in its window.
        pub pane_index: String = "pane_index",
        /// The foreground process.
        pub pane_current_command: String = "pane_current_command",
        /// Its working directory.
        pub pane_current_path: String = "pane_current_path",
        /// The pane's tty.
        pub pane_tty: String = "pane_tty",
    }
}

impl PaneMeta {
    /// The meta of `r`, a record of a query asking for `fields` (which
    /// hold [`PaneMeta::FIELDS`] in any order, among others): each field
    /// is found by its variable's name; one the query lacks reads empty.
    pub fn of(r: &Record, fields: &[&str]) -> PaneMeta {
        PaneMeta::from_record(&by_name(r, fields, PaneMeta::FIELDS))
    }

    /// The session of [`PaneMeta::session_id`], if it is one.
    pub fn session(&self) -> Option<SessionId> {
        self.session_id.parse().ok()
    }
}

/// The values of `want` in `r`, a record of a query asking for `have`,
/// in `want`'s order (a name `have` lacks gives an empty value): so a
/// record type declared once reads its fields from any query holding
/// them.
pub(crate) fn by_name(r: &Record, have: &[&str], want: &[&str]) -> Record {
    Record(
        want.iter()
            .map(|w| {
                have.iter()
                    .position(|h| h == w)
                    .map_or_else(String::new, |i| r.string(i))
            })
            .collect(),
    )
}

crate::record! {
    /// What a user sees of a pane besides its text: its mode (copy mode,
    /// …) and where copy mode is scrolled. Read with every check
    /// ([`super::probe::check_line`]), after the pane's state; the dearest
    /// fields of that record for tmux to format (a text fence leaves them
    /// out: [`super::probe::fence_line`]).
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct PaneMode {
        /// The pane is in a mode.
        pub in_mode: bool = "pane_in_mode",
        /// The mode's name.
        pub mode: Option<String> = "pane_mode",
        /// In copy mode: lines the view is scrolled up.
        pub scroll_position: Option<i64> = "scroll_position",
    }
}

/// The state of a mirrored pane. Its fields are the mirror's own; a
/// reader outside the mirror sees it through [`PaneMirror::view`] or
/// [`PaneMirror::snapshot`] and reads it with the methods below.
#[derive(Clone, Debug)]
pub struct PaneState {
    /// The copy (absent until seeded).
    pub(super) term: Option<Term>,
    /// Where it stands.
    pub(super) status: Status,
    /// The session whose control connection feeds the copy (a pane shown
    /// in several sessions, through grouped sessions or linked windows,
    /// is fed by one of them only).
    pub(super) owner: Option<SessionId>,
    /// The last listing.
    pub(super) meta: PaneMeta,
    /// The exit status tmux reported (`#{pane_dead_status}`), for a dead
    /// pane.
    pub(super) exit_status: Option<i32>,
    /// tmux keeps the pane with its program dead (`remain-on-exit`:
    /// `#{pane_dead}` in the last listing or seed); cleared when the pane
    /// goes from the server.
    pub(super) kept: bool,
    /// When the copy was last seeded.
    pub(super) seeded_at: Option<Instant>,
    /// Bytes of `%output` applied since the seed.
    pub(super) bytes_applied: u64,
    /// The pane's mode and copy-mode scroll, from the last check.
    pub(super) mode: PaneMode,
    /// History rows the copy dropped to stay within the mirror's memory
    /// cap (tmux may still have them).
    pub(super) capped_rows: u64,
    /// Bumped each time a seed replaces the copy: line indices and spots
    /// of one copy mean nothing in another.
    pub(super) epoch: u64,
    /// `run_command`'s marks seen in the pane's output, oldest first (at
    /// most [`MAX_MARKS`]).
    pub(super) marks: VecDeque<Mark>,
    /// A request read (or is about to read) the pane's history: its seeds
    /// read it too from then on ([`super::seed::Depth::Full`]); until then
    /// a copy holds what scrolled off the screen since it was seeded.
    pub(super) history_wanted: bool,
}

impl PaneState {
    /// The copy (absent until seeded).
    pub fn term(&self) -> Option<&Term> {
        self.term.as_ref()
    }

    /// Where it stands.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether the pane is gone and the copy holds its last text.
    pub fn is_dead(&self) -> bool {
        self.status == Status::Dead
    }

    /// The session whose control connection feeds the copy.
    pub fn owner(&self) -> Option<SessionId> {
        self.owner
    }

    /// What tmux said about the pane when it last listed it.
    pub fn meta(&self) -> &PaneMeta {
        &self.meta
    }

    /// The exit status tmux reported, for a dead pane.
    pub fn exit_status(&self) -> Option<i32> {
        self.exit_status
    }

    /// Whether tmux keeps the pane with its program dead
    /// (`remain-on-exit`; `#{pane_dead}` in the last listing or seed): a
    /// pane that exited, not one that is gone, until it is killed.
    pub fn is_kept(&self) -> bool {
        self.kept
    }

    /// When the copy was last seeded.
    pub fn seeded_at(&self) -> Option<Instant> {
        self.seeded_at
    }

    /// Bytes of `%output` applied since the seed.
    pub fn bytes_applied(&self) -> u64 {
        self.bytes_applied
    }

    /// The pane's mode and copy-mode scroll, as of the last check.
    pub fn mode(&self) -> &PaneMode {
        &self.mode
    }

    /// History rows the copy dropped to stay within the mirror's memory
    /// cap (tmux may still have them).
    pub fn capped_rows(&self) -> u64 {
        self.capped_rows
    }

    /// History rows tmux held when the copy was seeded that the copy never
    /// read (a copy of the screen only: [`crate::term::History::absent`],
    /// less what tmux trimmed since); 0 once the history was read.
    pub fn absent_rows(&self) -> u64 {
        self.term.as_ref().map_or(0, |t| t.history_absent() as u64)
    }

    /// The copy's epoch: bumped each time a seed replaces the copy, so
    /// line indices and spots of one copy are not used in another.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// `run_command`'s marks seen in the pane's output, oldest first (at
    /// most [`MAX_MARKS`]).
    pub fn marks(&self) -> impl DoubleEndedIterator<Item = &Mark> + '_ {
        self.marks.iter()
    }

    /// The copy's command table (shell-integration marks; see
    /// [`crate::term::Commands`]), absent until seeded. Marks are
    /// advisory: any program can print them.
    pub fn commands(&self) -> Option<&crate::term::Commands> {
        self.term.as_ref().map(Term::commands)
    }

    /// The private modes the copy tracks (each unknown until seen or
    /// seeded), absent until seeded.
    pub fn private_modes(&self) -> Option<crate::term::PrivateModes> {
        self.term.as_ref().map(Term::private_modes)
    }

    /// Output and screen-change times ([`super::clock_us`]) and the
    /// screen hash as of the copy's last settle; `dirty` says output came
    /// since ([`PaneMirror::settle_screen`] brings it up to date).
    pub fn screen_state(&self) -> Option<crate::term::ScreenState> {
        self.term.as_ref().map(Term::screen_state)
    }

    /// Bytes the copy holds (history text and screen, roughly).
    pub fn bytes(&self) -> usize {
        self.term.as_ref().map_or(0, |t| {
            let (w, h) = t.size();
            t.history().bytes() + (w as usize) * (h as usize)
        })
    }
}

/// A read of a pane's state in place ([`PaneMirror::view`]). The pane's
/// output waits while a view is held: keep it for short reads (a few
/// lines, the status), and take a [`PaneMirror::snapshot`] for anything
/// that walks the history.
#[derive(Debug)]
pub struct PaneView<'a>(RwLockReadGuard<'a, PaneState>);

impl std::ops::Deref for PaneView<'_> {
    type Target = PaneState;

    fn deref(&self) -> &PaneState {
        &self.0
    }
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
    /// Bumped with `changes`, for observers that are not waits (the event
    /// log's follower, [`PaneMirror::observe`]): its receivers are not
    /// counted by [`PaneMirror::subscribers`].
    observed: watch::Sender<u64>,
    /// A bump of `observed` that no observer has woken for yet: while it
    /// is set, later changes bump nothing more (an observer looks at the
    /// copy after it wakes, so it sees them). Cleared by
    /// [`Observer::changed`]. A flooding pane then costs its observers one
    /// send per look instead of one per `%output` piece.
    observed_unseen: Arc<AtomicBool>,
    /// Where the cursor was when tmuxwire last began typing into the
    /// pane ([`PaneMirror::begin_typing`]).
    typed_from: std::sync::Mutex<Option<TypedFrom>>,
    /// Held by a `run_command` while its command runs: one at a time per
    /// pane.
    run_lock: Arc<tokio::sync::Mutex<()>>,
    /// Bumped on every write access, under the write lock: a state read
    /// at the same generation is the same state.
    generation: AtomicU64,
    /// The last [`PaneMirror::shared_snapshot`] and the generation it
    /// was taken at.
    shared: std::sync::Mutex<Option<(u64, Arc<Snapshot>)>>,
}

/// A copy's state as [`PaneMirror::shared_snapshot`] took it (read as a
/// [`PaneState`]), with what scans make of it once: it never changes, so
/// neither does that.
#[derive(Debug)]
pub struct Snapshot {
    state: PaneState,
    screen: std::sync::OnceLock<Option<ScreenLines>>,
}

impl Snapshot {
    fn of(state: PaneState) -> Snapshot {
        Snapshot {
            state,
            screen: std::sync::OnceLock::new(),
        }
    }

    /// The copy's [`screen_lines`](super::scan::screen_lines), made by
    /// the first scan of this snapshot and kept for the next ones (a
    /// search of idle panes lays out no screen again); `None` before the
    /// copy exists.
    pub fn screen_lines(&self) -> Option<&ScreenLines> {
        self.screen
            .get_or_init(|| self.state.term().map(ScreenLines::of))
            .as_ref()
    }
}

impl std::ops::Deref for Snapshot {
    type Target = PaneState;

    fn deref(&self) -> &PaneState {
        &self.state
    }
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
                kept: false,
                seeded_at: None,
                bytes_applied: 0,
                mode: PaneMode::default(),
                capped_rows: 0,
                epoch: 0,
                marks: VecDeque::new(),
                history_wanted: false,
            }),
            changes: watch::Sender::new(0),
            observed: watch::Sender::new(0),
            observed_unseen: Arc::new(AtomicBool::new(false)),
            typed_from: std::sync::Mutex::new(None),
            run_lock: Arc::new(tokio::sync::Mutex::new(())),
            generation: AtomicU64::new(0),
            shared: std::sync::Mutex::new(None),
        })
    }

    /// Where the cursor is now, as the origin of text about to be typed
    /// ([`super::echo::Origin`]); `None` before the copy exists.
    pub fn cursor_origin(&self) -> Option<Origin> {
        let st = self.view();
        let t = st.term.as_ref()?;
        Some(Origin {
            epoch: st.epoch,
            line: super::lines::cursor_spot(t).line,
        })
    }

    /// Notes where the cursor is as tmuxwire begins typing into the pane
    /// (call before the keys are sent): what the pane prints from that
    /// line on answers the input, even when it arrives before a wait
    /// for it begins. Returns that place (`None` before the copy exists).
    pub fn begin_typing(&self) -> Option<Origin> {
        let st = self.view();
        let t = st.term.as_ref()?;
        let spot = super::lines::cursor_spot(t);
        let had_text = !super::lines::lines_since(t, spot.line, 0, super::lines::Keep::Newest)
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

    /// A receiver that sees every later change of the copy (output
    /// applied, a seed, a status change).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// A receiver of the copy's later changes for an observer that is not
    /// a wait ([`Observer`]: one wake per look, however many changes came
    /// meanwhile): it is not counted by [`PaneMirror::subscribers`], so the
    /// copy is treated as nobody waits on it (its screen is hashed only when
    /// asked, and a flood of its output may be paused). The observer looks
    /// at the copy after taking it: changes before are in what it sees.
    pub fn observe(&self) -> Observer {
        self.observed_unseen.store(false, Ordering::SeqCst);
        let mut rx = self.observed.subscribe();
        // A bump sent before this receiver existed holds back the next
        // ones until someone wakes: this receiver wakes once for it.
        if self.observed_unseen.load(Ordering::SeqCst) {
            rx.mark_changed();
        }
        Observer {
            rx,
            unseen: self.observed_unseen.clone(),
        }
    }

    /// How many receivers from [`PaneMirror::subscribe`] exist (waits in
    /// progress, for one).
    pub fn subscribers(&self) -> usize {
        self.changes.receiver_count()
    }

    /// Tells waiters the pane changed (call after releasing the write
    /// lock).
    pub(super) fn changed(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
        if self.observed.receiver_count() > 0 && !self.observed_unseen.swap(true, Ordering::AcqRel)
        {
            self.observed.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Reads the state in place (see [`PaneView`]: hold it briefly).
    pub fn view(&self) -> PaneView<'_> {
        PaneView(self.state.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// A copy of the state as it is now, to read at leisure: scans and
    /// captures run over it while the pane's output goes on being applied
    /// to the original. Costs a copy of the screen and of the newest
    /// history chunk (at most about 66 KiB) while the lock is held; the
    /// sealed history chunks are shared ([`crate::term::History`]).
    pub fn snapshot(&self) -> PaneState {
        self.view().clone()
    }

    /// [`PaneMirror::snapshot`], shared: the copy made for the last call
    /// while the state has not been written since, else a new one (kept
    /// for the next call). A search of many idle panes then copies no
    /// screen at all. Holds at most one copy per pane beside the state
    /// (its screen, newest history chunk and the sealed chunks it
    /// shares), until the next call after a change replaces it.
    pub fn shared_snapshot(&self) -> Arc<Snapshot> {
        let st = self.view();
        // Bumped only under the write lock, which the view excludes.
        let now = self.generation.load(Ordering::Relaxed);
        let mut shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((taken, snap)) = &*shared
            && *taken == now
        {
            return Arc::clone(snap);
        }
        let snap = Arc::new(Snapshot::of(st.clone()));
        *shared = Some((now, Arc::clone(&snap)));
        snap
    }

    /// Brings the copy's screen hash and change time up to date
    /// ([`crate::term::Term::settle_screen`]; one pass over the visible
    /// rows when output came since the last one) and returns them;
    /// `None` before the copy exists. Takes the write lock briefly.
    pub fn settle_screen(&self) -> Option<crate::term::ScreenState> {
        let mut st = self.write();
        let t = st.term.as_mut()?;
        t.set_now(super::clock_us());
        Some(t.settle_screen())
    }

    /// Marks the copy dead (tmux says the pane is gone) and wakes its
    /// waiters. Returns whether it changed: a pane with no copy, or
    /// already dead, is left as it is.
    pub fn mark_dead(&self) -> bool {
        self.mark_dead_if_seeded_before(None)
    }

    /// [`PaneMirror::mark_dead`] for a listing of the server's panes that
    /// was asked at `listed` and does not show this pane: only a copy
    /// seeded before then is marked. A copy seeded after may be of a pane
    /// made after the listing ran (another session's watch seeded it
    /// meanwhile), which the listing cannot show; a pane that is really
    /// gone is marked by the next listing (each one a pane's going
    /// causes). Pane ids are never reused, so a copy seeded before the
    /// listing is of a pane that existed when it ran.
    /// A dead copy of a pane tmux kept ([`PaneState::is_kept`]) is marked
    /// gone the same way.
    pub fn mark_dead_if_seeded_before(&self, listed: Option<Instant>) -> bool {
        let mut st = self.write();
        if st.term.is_none() || (st.status == Status::Dead && !st.kept) {
            return false;
        }
        if let Some(at) = listed
            && st.seeded_at.is_none_or(|s| s > at)
        {
            return false;
        }
        st.status = Status::Dead;
        st.kept = false;
        drop(st);
        self.changed();
        true
    }

    /// A live copy of pane `id` holding `term`, fed by
    /// [`PaneMirror::bench_feed`] alone: for benches of the ingest (the
    /// event log's cost), never a copy of a real pane.
    #[doc(hidden)]
    pub fn bench_live(id: PaneId, term: crate::term::Term) -> Arc<PaneMirror> {
        let p = PaneMirror::new(id);
        let mut st = p.write();
        st.term = Some(term);
        st.status = Status::Live;
        drop(st);
        p
    }

    /// Applies `data` as the feeding connection applies `%output` (the
    /// parse, the screen hash when a wait watches, then the wake of
    /// waiters and observers), without marks: benches only.
    #[doc(hidden)]
    pub fn bench_feed(&self, data: &[u8]) {
        let waited_on = self.subscribers() > 0;
        let mut st = self.write();
        if let Some(t) = st.term.as_mut() {
            t.set_now(super::clock_us());
            t.advance(data);
            t.end_read();
            if waited_on {
                t.settle_screen();
            }
        }
        st.bytes_applied += data.len() as u64;
        drop(st);
        self.changed();
    }

    /// Write access (the feeding connection; call [`PaneMirror::changed`]
    /// after releasing it).
    pub(super) fn write(&self) -> RwLockWriteGuard<'_, PaneState> {
        let st = self.state.write().unwrap_or_else(|p| p.into_inner());
        self.generation.fetch_add(1, Ordering::Relaxed);
        st
    }
}

/// A receiver of a copy's changes for an observer that is not a wait
/// ([`PaneMirror::observe`]): it wakes after a change, and the copy sends
/// no more wakes until an observer has woken, so the observer must look at
/// the copy after each wake (what changed meanwhile is in the copy).
#[derive(Debug)]
pub struct Observer {
    rx: watch::Receiver<u64>,
    unseen: Arc<AtomicBool>,
}

impl Observer {
    /// Waits for a change after the last wake.
    ///
    /// # Errors
    ///
    /// The copy is gone (its sender dropped).
    pub async fn changed(&mut self) -> Result<(), watch::error::RecvError> {
        self.rx.changed().await?;
        // Cleared before the caller looks: a change applied after this
        // sends a wake again; one applied before is in what it sees.
        self.unseen.swap(false, Ordering::AcqRel);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `o` has a wake waiting (without waiting for one).
    fn woken(o: &mut Observer) -> bool {
        futures::FutureExt::now_or_never(o.changed()).is_some_and(|r| r.is_ok())
    }

    #[tokio::test]
    async fn an_observer_is_woken_once_per_look_and_never_misses_a_change() {
        let p = PaneMirror::new(PaneId(1));
        let mut o = p.observe();
        assert!(!woken(&mut o), "no change yet");
        // A flood: one wake for all of it.
        for _ in 0..3 {
            p.changed();
        }
        assert!(woken(&mut o));
        assert!(!woken(&mut o), "the flood woke it once");
        // After a wake (the observer looks), the next change wakes it again.
        p.changed();
        assert!(woken(&mut o));
        // A change sent while no observer woke for it (the flag is left
        // set): an observer made later starts from the copy as it is, and
        // the next change wakes it.
        p.changed();
        drop(o);
        let mut later = p.observe();
        assert!(!woken(&mut later));
        p.changed();
        assert!(woken(&mut later));
        // Two observers: both are woken by a change after their looks.
        let mut other = p.observe();
        p.changed();
        assert!(woken(&mut later));
        assert!(woken(&mut other));
    }
}
