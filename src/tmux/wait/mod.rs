//! The one wait engine: how every wait on a pane waits.
//!
//! A wait follows one pane on its mirrored copy ([`crate::mirror`]) and
//! is woken by the pane's `%output` (the copy's change counter), never
//! by polling the copy. This module owns what every wait shares:
//!
//! * following the pane ([`synced`], [`follow`]: the copy seeded on first use and
//!   confirmed by tmux before the wait begins);
//! * the deadline, progress notifications (once a second when the caller
//!   gave a sink) and the bound on a tmux that stopped answering
//!   ([`within`]);
//! * whether the pane's program reads input ([`reading`]: a password, a
//!   line, a key, for [`INPUT_LASTS`] with nothing printed), and whether
//!   the pane and its server are still there ([`vigil`]);
//! * the one loop ([`run`]), and a short watch without those checks for
//!   delivery's confirmations ([`watch`]).
//!
//! What a wait waits *for* is a [`Condition`]: given the copy as it is
//! now ([`Seen`]: the terminal, its epoch and status, the mirror's clock),
//! it says "not yet" or what it found. Conditions are plain state
//! machines over a [`crate::term::Term`]: tests feed bytes to a terminal
//! and call [`Condition::look`], with no tmux and no clock. How the wait
//! ended is an [`End`], which each operation turns into its own outcome
//! enum (`op::text`, `op::run`, `op::commands`, `op::stable`,
//! `op::deliver`).
//!
//! One pass of the loop, in this order (the order decides which outcome
//! wins when two are true at the same wake):
//!
//! 1. [`Condition::look`] at the copy (under its read lock);
//! 2. the input watch ([`InputWatch::check`]): a program found reading
//!    ends the wait as [`End::Reading`];
//! 3. [`Condition::check`], a look that yields to a reading program
//!    (`wait_for_stable`'s stillness);
//! 4. the vigil ([`Vigil::check`]): a pane that ended ends the wait as
//!    [`End::Pane`], after one more look at its last output when the
//!    condition asks for it ([`Condition::LOOK_AT_END`]);
//! 5. progress, then sleep until the copy changes, the deadline, the
//!    next progress tick, the vigil's or the input watch's next question,
//!    or the condition's own timer ([`Condition::wake_in`]).

mod reading;
mod synced;
mod vigil;

use std::time::{Duration, Instant};

use tokio::sync::watch::Receiver;

pub use reading::INPUT_LASTS;
pub(crate) use reading::{InputWatch, ProcessRef, ProcessRow, marks_running, prompt_row_of};
pub use synced::pane_id;
pub(crate) use synced::{Followed, copy_of, follow, follow_with, followed_copy};
pub(crate) use vigil::{Ended, Vigil, exit_of};
pub use vigil::{Exit, LIVENESS_EVERY};

use crate::mirror::pane::Mark;
use crate::mirror::{PaneMirror, PaneState, Progress, Status};
use crate::sys::input::Input;
use crate::term::Term;
use crate::tmux::{Error, Server};

/// Runs wait `f` on the pane `sel` names, bounded by `timeout` as
/// [`within`] says: the pane is found ([`pane_id`]) inside that time,
/// then waited on. The shape of every wait's [`Op::run`](crate::tmux::op::Op::run).
///
/// # Errors
///
/// As [`pane_id`], `f`'s, and [`within`]'s timeout.
pub async fn on_pane<T, F, Fut>(
    server: &Server,
    sel: &crate::tmux::Selector,
    timeout: Duration,
    f: F,
) -> Result<T, Error>
where
    F: FnOnce(crate::control::PaneId) -> Fut,
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    // Boxed: a wait's future is large, and debug builds copy it on the
    // stack at each layer (run_command's overflowed a test thread's).
    within(
        timeout,
        Box::pin(async { f(pane_id(server, sel).await?).await }),
    )
    .await
}

/// How long after its timeout a wait whose tmux stopped answering ends
/// anyway: the wait's own loop ends at the timeout, so this only runs out
/// while a question to tmux is still open.
pub const STOPPED_GRACE: Duration = Duration::from_millis(750);

/// Runs `wait`, a call with a timeout, bounded by it: when tmux stops
/// answering (stopped with SIGSTOP, or too busy), the call ends
/// [`STOPPED_GRACE`] after `timeout` with a
/// [`Timeout`](crate::tmux::ErrorKind::Timeout) error that says so,
/// instead of waiting out the connection's own timeout.
///
/// # Errors
///
/// `wait`'s, and the timeout above.
pub async fn within<T>(
    timeout: Duration,
    wait: impl std::future::Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    match tokio::time::timeout(timeout + STOPPED_GRACE, wait).await {
        Ok(r) => r,
        Err(_) => Err(Error::timeout(format!(
            "tmux stopped answering: a question to it was still open at the wait's timeout \
             ({:.1} s)",
            timeout.as_secs_f64()
        ))),
    }
}

/// The copy of a pane as a [`Condition`] sees it at one look.
pub struct Seen<'a> {
    /// The terminal (absent until the copy is seeded).
    pub term: Option<&'a Term>,
    /// Where the copy stands.
    pub status: Status,
    /// The copy's epoch ([`PaneState::epoch`]): line indices of one
    /// epoch mean nothing in another.
    pub epoch: u64,
    /// The mirror's clock at the look, µs ([`crate::mirror::clock_us`]).
    pub now_us: u64,
    marks: Marks<'a>,
}

/// Where [`Seen::newest_mark`] finds `run_command`'s marks.
enum Marks<'a> {
    State(&'a PaneState),
    List(&'a [Mark]),
}

impl<'a> Seen<'a> {
    /// The copy `st` at the mirror's time `now_us`.
    pub fn of(st: &'a PaneState, now_us: u64) -> Seen<'a> {
        Seen {
            term: st.term(),
            status: st.status(),
            epoch: st.epoch(),
            now_us,
            marks: Marks::State(st),
        }
    }

    /// A live copy made of `term` alone (epoch 0, no marks): what tests
    /// feed conditions.
    pub fn of_term(term: &'a Term, now_us: u64) -> Seen<'a> {
        Seen {
            term: Some(term),
            status: Status::Live,
            epoch: 0,
            now_us,
            marks: Marks::List(&[]),
        }
    }

    /// The same look with `marks` as the copy's `run_command` marks
    /// (oldest first).
    #[must_use]
    pub fn with_marks(self, marks: &'a [Mark]) -> Seen<'a> {
        Seen {
            marks: Marks::List(marks),
            ..self
        }
    }

    /// The newest of the copy's `run_command` marks that `want` accepts.
    pub fn newest_mark(&self, want: impl Fn(&Mark) -> bool) -> Option<Mark> {
        match self.marks {
            Marks::State(st) => st.marks().rev().find(|m| want(m)).copied(),
            Marks::List(l) => l.iter().rev().find(|m| want(m)).copied(),
        }
    }
}

/// What a wait waits for: a state machine over the pane's copy, looked at
/// on every wake of the wait ([`run`], [`watch`]).
pub trait Condition {
    /// What the condition found when it is met.
    type Found;

    /// Whether the copy is looked at once more after the vigil found the
    /// pane ended, so its last output still counts (every wait but
    /// `wait_for_stable`, whose screen settles by time).
    const LOOK_AT_END: bool = true;

    /// Looks at the copy: `Some` when the condition is met. Called under
    /// the copy's read lock: no I/O, nothing slow.
    fn look(&mut self, seen: &Seen<'_>) -> Option<Self::Found>;

    /// A second decision, outside the copy's lock, after the input watch
    /// found no program reading (a timer run out, the terminal's
    /// settings read): `Some` when the condition is met.
    fn check(&mut self) -> Option<Self::Found> {
        None
    }

    /// How soon the wait must wake for the condition to decide again
    /// with no new output (its timer), as of the last look; `None`: only
    /// on output.
    fn wake_in(&self) -> Option<Duration> {
        None
    }
}

/// How a wait ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum End<F> {
    /// The condition was met.
    Met(F),
    /// The pane's program has been reading input ([`Input::Password`],
    /// [`Input::LineRead`] or [`Input::KeyRead`]) for [`INPUT_LASTS`]
    /// with nothing printed, with the evidence.
    Reading(Input, Vec<String>),
    /// The pane ended (its program exited and tmux keeps it, or it is
    /// gone); `Some` when the last look at its copy met the condition.
    Pane(Ended, Option<F>),
    /// The time ran out (or the copy went away: the mirror stopped).
    Timeout,
}

/// The time a wait has and where it reports progress.
pub struct Limits<'a> {
    /// When the operation began (progress counts from it).
    pub started: Instant,
    /// When the time runs out.
    pub deadline: tokio::time::Instant,
    /// The timeout asked for (progress reports it as the total).
    pub timeout: Duration,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<&'a Progress>,
    /// What the progress message says the wait does.
    pub doing: &'static str,
}

impl<'a> Limits<'a> {
    /// A wait for `timeout` from now, reporting to `progress` that it is
    /// `doing` this (set `started` for an operation begun earlier).
    pub fn new(
        timeout: Duration,
        progress: Option<&'a Progress>,
        doing: &'static str,
    ) -> Limits<'a> {
        Limits {
            started: Instant::now(),
            deadline: tokio::time::Instant::now() + timeout,
            timeout,
            progress,
            doing,
        }
    }
}

/// How often a wait with a progress sink reports while nothing happens.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// When a wait that is not on the pane's copy (the event log's long
/// poll) next wakes by itself: at `deadline`, or sooner to report
/// progress (once a second) when there is a sink.
pub(crate) fn wake_at(
    deadline: tokio::time::Instant,
    progress: Option<&Progress>,
) -> tokio::time::Instant {
    match progress {
        Some(_) => deadline.min(tokio::time::Instant::now() + PROGRESS_EVERY),
        None => deadline,
    }
}

/// Looks at `pane`'s copy once with `cond`.
fn look<C: Condition>(pane: &PaneMirror, cond: &mut C) -> Option<C::Found> {
    let st = pane.view();
    cond.look(&Seen::of(&st, crate::mirror::clock_us()))
}

/// Runs the one wait loop (see the module docs) on the followed pane `f`
/// until `cond` is met, the pane's program reads input, the pane ends or
/// the time runs out. `rx`: the copy's change counter, subscribed by the
/// caller before the state it compares against was read (a change in
/// between is seen by the first look).
///
/// # Errors
///
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when the
/// server exits (or is restarted) during the wait; the vigil's
/// connection errors.
pub(crate) async fn run<C: Condition>(
    server: &Server,
    f: &Followed,
    rx: &mut Receiver<u64>,
    cond: &mut C,
    limits: &Limits<'_>,
) -> Result<End<C::Found>, Error> {
    let mut vigil = Vigil::new(server, f.pane.id).await;
    let mut input = InputWatch::new(f.pane.id);
    loop {
        if let Some(found) = look(&f.pane, cond) {
            return Ok(End::Met(found));
        }
        if let Some((i, evidence)) = input.check(server, f).await? {
            return Ok(End::Reading(i, evidence));
        }
        if let Some(found) = cond.check() {
            return Ok(End::Met(found));
        }
        if let Some(e) = vigil.check(server, f).await? {
            let last = if C::LOOK_AT_END {
                look(&f.pane, cond)
            } else {
                None
            };
            return Ok(End::Pane(e, last));
        }
        let now = tokio::time::Instant::now();
        let mut wake = limits.deadline.min(vigil.wake_at()).min(input.wake_at());
        if let Some(p) = limits.progress {
            p(
                limits.started.elapsed().as_secs(),
                limits.timeout.as_secs().max(1),
                limits.doing,
            );
            wake = wake.min(now + PROGRESS_EVERY);
        }
        if let Some(d) = cond.wake_in() {
            wake = wake.min(now + d);
        }
        match tokio::time::timeout_at(wake, rx.changed()).await {
            Ok(Ok(())) => {}
            // The copy is gone (the mirror stopped).
            Ok(Err(_)) => return Ok(End::Timeout),
            Err(_) if tokio::time::Instant::now() >= limits.deadline => return Ok(End::Timeout),
            // A progress tick, a question to tmux, a look at the
            // terminal's settings or the condition's timer is due.
            Err(_) => {}
        }
    }
}

/// Watches `pane`'s copy with `cond` for at most `within`, without the
/// input watch and the vigil (delivery's short confirmations): woken by
/// each change of the copy, and every `every` when given (for a
/// condition whose [`Condition::check`] reads what no output announces).
/// `None` when the time ran out first.
pub(crate) async fn watch<C: Condition>(
    pane: &PaneMirror,
    within: Duration,
    every: Option<Duration>,
    cond: &mut C,
) -> Option<C::Found> {
    let deadline = tokio::time::Instant::now() + within;
    let mut rx = pane.subscribe();
    loop {
        if let Some(found) = look(pane, cond).or_else(|| cond.check()) {
            return Some(found);
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return None;
        }
        let wake = every.map_or(deadline, |e| (now + e).min(deadline));
        if let Ok(Err(_)) = tokio::time::timeout_at(wake, rx.changed()).await {
            // The copy is gone: what it held last decides.
            return look(pane, cond).or_else(|| cond.check());
        }
    }
}

/// A [`Condition`] made of a function of the copy's terminal (delivery's
/// looks): met when it returns `Some`.
pub struct OnTerm<F>(pub F);

impl<T, F: FnMut(&Term) -> Option<T>> Condition for OnTerm<F> {
    type Found = T;

    fn look(&mut self, seen: &Seen<'_>) -> Option<T> {
        seen.term.and_then(&mut self.0)
    }
}

/// Whether a program found reading `input` ([`End::Reading`]) reads a
/// password (echo off): the waits answer `password_prompt` then, and
/// `awaiting_input` for a line or a key.
pub fn reads_password(input: Input) -> bool {
    input == Input::Password
}
