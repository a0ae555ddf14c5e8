//! The producers of the event log ([`crate::events`]) and `poll_events`.
//!
//! One follower task per tmux server (per mirror: a new server on the same
//! socket gets a new log) watches the copies of the followed panes through
//! their change signals ([`crate::mirror::PaneMirror::observe`], which do
//! not count as waits) and writes an event where their state changes:
//!
//! * `command_started` / `command_finished`: the copy's command table
//!   (OSC 133/633 marks; advisory: any program can print them);
//! * `title`: the title the program set (OSC 0/2);
//! * `bell`: the copy's bell count grew (C0 BEL, as tmux's alerts); the
//!   BELs of one change are one event, and the rate cap holds a flood;
//! * `idle`: the visible screen changed, then stayed still for
//!   [`IDLE_STILL`] while no marked command runs and no progress report
//!   says busy (`wait_for_stable`'s rules, with no mask); woken by one
//!   timer per pane, the screen hashed once then;
//! * `password_prompt` / `awaiting_input`: the pane's terminal settings and
//!   `/proc` (`get_pane_state`'s facts), looked at only while the pane is
//!   quiet within [`INPUT_WINDOW`] of its last output, with the waits'
//!   schedule and [`INPUT_LASTS`](super::reading::INPUT_LASTS);
//! * `exited` (tmux kept the pane, `remain-on-exit`: its status) and
//!   `pane_gone`: the copy's state as the watches' listings set it. tmux
//!   sends no notification when a pane it keeps dies, so on a server of
//!   this machine the follower watches each pane's first process
//!   (`#{pane_pid}`) with a pidfd ([`crate::sys::pidfd`]) and, when it
//!   ends, has the watch list the panes again (`#{pane_dead}`,
//!   `#{pane_dead_status}`; [`Mirror::list_again`]), a few times while
//!   tmux has not reaped it yet ([`DEATH_FIRST`], [`DEATH_ASKS`]).
//!   Elsewhere (a remote server, no pidfd) a `poll_events` call's listing
//!   tells it. A kept pane killed later is `pane_gone`;
//! * `pane_new`: a copy of a followed pane appeared (taken up when a
//!   watch's listing, made on tmux's `%window-add`, `%layout-change`,
//!   `%sessions-changed`… notifications, shows it, or when its seed
//!   lands); `session_new` / `session_closed`: the sessions the watches'
//!   listings show. A new session the scope covers (every pane, or named)
//!   is followed at once: the follower opens its watch
//!   ([`Mirror::follow_session`]), which seeds its panes;
//! * `matched`: a new complete line of a followed pane matches a pattern
//!   a caller watches (only read while patterns are watched).
//!
//! # Which panes, and the cost
//!
//! Nothing is followed until a `poll_events` call says what to follow
//! (every pane, sessions, or panes; later calls widen it). Following a
//! pane costs one check of its copy's state per change of the copy (a
//! few comparisons, under its read lock; during a flood at most one per
//! [`LOOK_EVERY`]), one screen hash per quiet spell
//! (for `idle`), and, within [`INPUT_WINDOW`] after its output, up to a
//! few reads of its terminal's settings and `/proc` a second. A pane that
//! prints nothing costs nothing; new panes are found by the watches'
//! listings (no timer). The followed set shrinks as panes and sessions
//! go; watched patterns last [`PATTERN_LIFETIME`] after the last call
//! that named them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use tokio::time::Instant;

use crate::control::{PaneId, SessionId};
use crate::events::text::quoted;
use crate::events::{Event, EventLog, Kind};
use crate::mirror::{Mirror, PaneMirror, Status};
use crate::search::Pattern;
use crate::sys::input::Input;
use crate::sys::pidfd::Watch;
use crate::tmux::wait::ProcessRef;

mod track;

use track::{Track, look};

/// How long a changed screen must stay still for `idle` (as
/// `wait_for_stable`'s default `stable_ms`).
pub const IDLE_STILL: Duration = Duration::from_millis(1500);

/// How long after a pane's last output its input state is looked at: a
/// program that asks for a line or a password prints its prompt, then
/// reads.
pub const INPUT_WINDOW: Duration = Duration::from_secs(10);

/// The first look at the input state, after the pane's last output.
const INPUT_QUIET: Duration = Duration::from_millis(100);

/// The longest interval between looks at the input state.
const INPUT_EVERY_AT_MOST: Duration = Duration::from_millis(1000);

/// The shortest time between two looks at one copy: the first change
/// after a quiet spell is looked at at once, the changes of a flood once
/// per this (the copy's change signal keeps that one came meanwhile).
/// Bounds the follower's share of a flooding pane's ingest (each look
/// takes the copy's read lock).
pub const LOOK_EVERY: Duration = Duration::from_millis(5);

/// How long after a pane's first process ended tmux is first asked
/// whether the pane is dead (tmux reaps it and closes the pane within
/// milliseconds); each later ask waits twice as long.
pub const DEATH_FIRST: Duration = Duration::from_millis(10);

/// How long after a pane's process was not found from its tty it is
/// looked for again (then twice as long each time, within
/// [`INPUT_WINDOW`] of following the pane).
const PROC_FIRST: Duration = Duration::from_millis(20);

/// How many times tmux is asked whether a pane died (over about 2.5 s
/// from [`DEATH_FIRST`]); a pane tmux keeps that still has no exit status
/// then is told `exited` without one.
pub const DEATH_ASKS: u32 = 8;

/// Patterns watched at most per server (the oldest goes first).
pub const MAX_PATTERNS: usize = 16;

/// New lines read per change of a copy for patterns at most (the newest
/// kept: a flood is not read line by line).
const LINES_PER_CHANGE: usize = 256;

/// How long a watched pattern lasts after the last `poll_events` call
/// that named it (a caller that still wants it names it in each call, as
/// its filter needs anyway).
pub const PATTERN_LIFETIME: Duration = Duration::from_secs(600);

/// Which panes are followed for events: every pane, or those of some
/// sessions and some panes (a union; calls only widen it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Every pane of the server.
    pub all: bool,
    /// Every pane these sessions show.
    pub sessions: HashSet<SessionId>,
    /// These panes.
    pub panes: HashSet<PaneId>,
}

impl Scope {
    /// Whether a pane shown in `session` is followed.
    pub fn covers(&self, pane: PaneId, session: Option<SessionId>) -> bool {
        self.all
            || self.panes.contains(&pane)
            || session.is_some_and(|s| self.sessions.contains(&s))
    }

    fn widen(&mut self, other: &Scope) -> bool {
        let before = self.clone();
        self.all |= other.all;
        self.sessions.extend(other.sessions.iter().copied());
        self.panes.extend(other.panes.iter().copied());
        *self != before
    }
}

/// What the follower and the callers share.
#[derive(Debug, Default)]
struct Shared {
    scope: Mutex<Scope>,
    /// Each followed pane's tty and pid, asked of tmux by calls (the
    /// follower has no connection of its own).
    procs: Mutex<HashMap<PaneId, ProcessRef>>,
    /// `(as the caller gave it, compiled, when a call last named it)`,
    /// oldest first.
    patterns: Mutex<Vec<(String, Pattern, Instant)>>,
    /// The tmux server's pid when it runs on this machine (its panes'
    /// processes can be read from `/proc`), as the calls found it.
    local_server: Mutex<Option<u32>>,
    /// What the follower knows of each followed pane now, for a first
    /// call's snapshot.
    now: Mutex<HashMap<PaneId, Now>>,
    /// Panes that were there when following them began (no `pane_new`
    /// for them), until the follower takes them up.
    known: Mutex<HashSet<PaneId>>,
    /// Sessions that were there when following began (no `session_new`
    /// for them when a watch's listing first shows them).
    known_sessions: Mutex<HashSet<SessionId>>,
    /// The scope or the patterns changed.
    poke: tokio::sync::Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The follower's view of a pane now.
#[derive(Clone, Debug, Default)]
pub struct Now {
    /// The input state it last found lasting (password, line, key read).
    pub input: Option<(Input, String)>,
    /// An `idle` event was the pane's last word.
    pub idle: bool,
}

/// The event log of one server and its follower.
#[derive(Debug)]
pub struct Attention {
    /// The log.
    pub log: Arc<EventLog>,
    shared: Arc<Shared>,
    mirror: Weak<Mirror>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Attention {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Attention {
    /// A log for the server `mirror` follows, and its follower task (it
    /// ends when this is dropped or the mirror is).
    pub fn start(mirror: &Arc<Mirror>) -> Attention {
        let log = Arc::new(EventLog::new());
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn(follow(Arc::downgrade(mirror), log.clone(), shared.clone()));
        Attention {
            log,
            shared,
            mirror: Arc::downgrade(mirror),
            task,
        }
    }

    /// Whether this follows `mirror` (a new server gets a new log).
    pub fn is_of(&self, mirror: &Arc<Mirror>) -> bool {
        std::ptr::eq(self.mirror.as_ptr(), Arc::as_ptr(mirror)) && !self.task.is_finished()
    }

    /// What would be followed with `scope` added (nothing changes yet):
    /// the scope a caller lists before it tells which panes were there
    /// ([`Attention::were_there`]) and then widens it ([`Attention::follow`]),
    /// so that the follower never takes a pane that was already there for
    /// a new one.
    pub fn widened(&self, scope: &Scope) -> Scope {
        let mut wider = lock(&self.shared.scope).clone();
        wider.widen(scope);
        wider
    }

    /// Widens what is followed to `scope` too; returns whether it grew.
    /// The panes already there are told first ([`Attention::were_there`],
    /// listed in [`Attention::widened`]'s scope): the follower wakes now.
    pub fn follow(&self, scope: &Scope) -> bool {
        let grew = lock(&self.shared.scope).widen(scope);
        if grew {
            self.shared.poke.notify_one();
        }
        grew
    }

    /// Notes that `panes` and `sessions` were there when following them
    /// began: they are taken up without a `pane_new` or `session_new`.
    pub fn were_there(
        &self,
        panes: impl IntoIterator<Item = PaneId>,
        sessions: impl IntoIterator<Item = SessionId>,
    ) {
        lock(&self.shared.known_sessions).extend(sessions);
        lock(&self.shared.known).extend(panes);
        self.shared.poke.notify_one();
    }

    /// What is followed now.
    pub fn scope(&self) -> Scope {
        lock(&self.shared.scope).clone()
    }

    /// Watches `patterns` (each `(text, compiled)`) too, for
    /// [`PATTERN_LIFETIME`] from now (a pattern already watched lasts
    /// that long again); beyond [`MAX_PATTERNS`] the oldest goes.
    pub fn watch_patterns(&self, patterns: &[(String, Pattern)]) {
        let mut p = lock(&self.shared.patterns);
        let mut added = false;
        let now = Instant::now();
        for (text, pat) in patterns {
            if let Some(w) = p.iter_mut().find(|(t, _, _)| t == text) {
                w.2 = now;
                continue;
            }
            if p.len() == MAX_PATTERNS {
                p.remove(0);
            }
            p.push((text.clone(), pat.clone(), now));
            added = true;
        }
        drop(p);
        if added {
            self.shared.poke.notify_one();
        }
    }

    /// The patterns watched now (those past [`PATTERN_LIFETIME`] are
    /// dropped).
    pub fn patterns(&self) -> Vec<String> {
        live_patterns(&self.shared)
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    /// Notes the tmux server's pid when it runs on this machine: the
    /// follower then reads the input state of a pane that appears from
    /// its tty and `/proc`, with no call made after it appeared.
    pub fn note_local_server(&self, pid: u32) {
        *lock(&self.shared.local_server) = Some(pid);
    }

    /// Whether `pane`'s tty and pid are known.
    pub fn knows_process(&self, pane: PaneId) -> bool {
        lock(&self.shared.procs).contains_key(&pane)
    }

    /// Notes `pane`'s tty and pid, for its input state.
    pub(super) fn note_process(&self, pane: PaneId, p: ProcessRef) {
        lock(&self.shared.procs).insert(pane, p);
    }

    /// `pane`'s tty and pid, if known.
    pub(super) fn process_of(&self, pane: PaneId) -> Option<ProcessRef> {
        lock(&self.shared.procs).get(&pane).cloned()
    }

    /// What the follower knows of `pane` now.
    pub fn now_of(&self, pane: PaneId) -> Now {
        lock(&self.shared.now)
            .get(&pane)
            .cloned()
            .unwrap_or_default()
    }
}

/// The watched patterns within their lifetime, `(text, compiled)`;
/// expired ones are dropped.
fn live_patterns(shared: &Shared) -> Vec<(String, Pattern)> {
    let mut p = lock(&shared.patterns);
    p.retain(|(_, _, at)| at.elapsed() < PATTERN_LIFETIME);
    p.iter().map(|(t, c, _)| (t.clone(), c.clone())).collect()
}

/// The pane's process found from its tty, for a pane of a tmux server on
/// this machine whose pid is `server_pid`: the server's child whose
/// terminal is the pane's ([`crate::sys::probe::child_on_tty`]; tmux forks
/// each pane's first process, `#{pane_pid}`, on its pty). `None` when the
/// tty is not a pseudo-terminal under `/dev/pts` or no child has it.
fn process_by_tty(tty: &str, server_pid: u32) -> Option<ProcessRef> {
    Some(ProcessRef {
        tty: tty.to_string(),
        pane_pid: crate::sys::probe::child_on_tty(server_pid, tty)?,
        server_pid: Some(server_pid),
    })
}

/// The kind and words of an event for a program found reading `input` in
/// `p` (`reads a password at "Password: "`); `None` when it does not read.
pub(super) fn reading_words(input: Input, p: &PaneMirror) -> Option<(Kind, String)> {
    let (kind, what) = match input {
        Input::Password => (Kind::PasswordPrompt, "reads a password"),
        Input::LineRead => (Kind::AwaitingInput, "reads a line"),
        Input::KeyRead => (Kind::AwaitingInput, "waits for a key"),
        _ => return None,
    };
    let prompt = crate::tmux::wait::prompt_row_of(p).unwrap_or_default();
    let at = match prompt.trim() {
        "" => String::new(),
        t => format!(" at {}", quoted(t)),
    };
    Some((kind, format!("{what}{at}")))
}

/// Waits for a change of one copy, not before `not_before`; answers it
/// with its receiver (to wait again).
async fn changed(
    pane: PaneId,
    mut rx: crate::mirror::pane::Observer,
    not_before: Option<Instant>,
) -> (PaneId, Option<crate::mirror::pane::Observer>) {
    if let Some(at) = not_before
        && at > Instant::now()
    {
        tokio::time::sleep_until(at).await;
    }
    match rx.changed().await {
        Ok(()) => (pane, Some(rx)),
        Err(_) => (pane, None),
    }
}

/// The follower: see the module docs.
async fn follow(mirror: Weak<Mirror>, log: Arc<EventLog>, shared: Arc<Shared>) {
    let mut tracks: HashMap<PaneId, (Track, Arc<PaneMirror>)> = HashMap::new();
    // Copies in scope not seeded yet: their first change (the seed) makes
    // the follower look again.
    let mut pending: HashSet<PaneId> = HashSet::new();
    let mut waits = FuturesUnordered::new();
    // The ends of the followed panes' first processes (pidfds).
    let mut ends: FuturesUnordered<BoxFuture<'static, PaneId>> = FuturesUnordered::new();
    let Some(mut sessions_rx) = mirror.upgrade().map(|m| m.sessions_seen()) else {
        return;
    };
    let mut sessions: HashSet<SessionId> =
        sessions_rx.borrow_and_update().iter().copied().collect();
    let start = Instant::now();
    let now_ms = || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    loop {
        let due = tracks.values().filter_map(|(t, _)| t.due()).min();
        let sleep = async {
            match due {
                Some(at) => tokio::time::sleep_until(at).await,
                None => futures::future::pending().await,
            }
        };
        let mut dirty: Vec<PaneId> = Vec::new();
        let mut out = Vec::new();
        let mut find = false;
        tokio::select! {
            Some(first) = waits.next(), if !waits.is_empty() => {
                let mut ready = vec![first];
                // Others that are ready too, in the same round.
                while let Some(Some(more)) = futures::FutureExt::now_or_never(waits.next()) {
                    ready.push(more);
                }
                for (pane, rx) in ready {
                    if pending.remove(&pane) {
                        // Seeded (or gone): looked at by `find` below.
                        find = true;
                        continue;
                    }
                    dirty.push(pane);
                    match rx {
                        Some(rx) if tracks.contains_key(&pane) => {
                            waits.push(changed(pane, rx, Some(Instant::now() + LOOK_EVERY)));
                        }
                        _ => {
                            tracks.remove(&pane);
                        }
                    }
                }
            }
            () = sleep => {}
            Some(pane) = ends.next(), if !ends.is_empty() => {
                if let Some((t, _)) = tracks.get_mut(&pane) {
                    t.process_ended();
                }
            }
            r = sessions_rx.changed() => {
                // Each listing of a watch (tmux's %window-add,
                // %layout-change, %sessions-changed... make one) lands here.
                if r.is_err() {
                    return;
                }
                let now: HashSet<SessionId> = sessions_rx.borrow_and_update().iter().copied().collect();
                out.extend(session_events(&shared, &sessions, &now));
                follow_new_sessions(&mirror, &shared, &sessions, &now);
                sessions = now;
                find = true;
            }
            () = shared.poke.notified() => { find = true; }
        }
        if find {
            let Some(m) = mirror.upgrade() else { return };
            let scope = lock(&shared.scope).clone();
            let server = *lock(&shared.local_server);
            for (id, p) in m.panes() {
                if tracks.contains_key(&id) || pending.contains(&id) {
                    continue;
                }
                // Observed before the look: a change in between wakes it
                // (one after the look would otherwise be missed).
                let observer = p.observe();
                let Some(l) = look(&p) else {
                    // Not seeded yet: wait for its seed.
                    let (dead, session) = {
                        let st = p.view();
                        (
                            st.status() == Status::Dead,
                            st.owner().or_else(|| st.meta().session()),
                        )
                    };
                    if !dead && scope.covers(id, session) {
                        pending.insert(id);
                        waits.push(changed(id, observer, None));
                    }
                    continue;
                };
                if (l.status == Status::Dead && !l.kept) || !scope.covers(id, l.session) {
                    continue;
                }
                let mut t = Track::new(id, &l);
                // The screen as following begins: `idle` is told for a
                // screen that changed after it.
                t.idle_hash = p.settle_screen().and_then(|ss| ss.hash);
                // A prompt printed before it was taken up is looked at too
                // (before its seed, when the copy knows no output time).
                if l.last_output
                    .is_none_or(|us| crate::mirror::instant_of(us).elapsed() <= INPUT_WINDOW)
                {
                    t.input_due = Some(Instant::now());
                }
                if !lock(&shared.known).remove(&id) {
                    out.push(t.event(Kind::PaneNew, crate::mirror::clock_us(), pane_new_what(&p)));
                    // A new pane whose program already died (tmux kept
                    // it): `exited` too.
                    t.exited = false;
                    t.diff(&l, &mut out);
                }
                if let Some(server) = server
                    && !lock(&shared.procs).contains_key(&id)
                {
                    let tty = p.view().meta().pane_tty.clone();
                    let found = process_by_tty(&tty, server);
                    tracing::debug!(pane = %id, %tty, ?found, "the pane's process, from its tty");
                    match found {
                        Some(proc) => {
                            lock(&shared.procs).insert(id, proc);
                        }
                        None => t.proc_due = Some(Instant::now() + PROC_FIRST),
                    }
                }
                waits.push(changed(id, observer, None));
                tracks.insert(id, (t, p));
            }
        }
        let patterns = live_patterns(&shared);
        let mut procs = lock(&shared.procs).clone();
        let server = *lock(&shared.local_server);
        let mut now_states = Vec::new();
        let mut ask = Vec::new();
        let round = Instant::now();
        for (id, (t, p)) in tracks.iter_mut() {
            if let Some(server) = server
                && !procs.contains_key(id)
                && t.look_for_process(round)
            {
                // Not found when it was taken up: tmux may not have made
                // the pty its process's terminal yet.
                let tty = p.view().meta().pane_tty.clone();
                let found = process_by_tty(&tty, server);
                tracing::debug!(pane = %id, %tty, ?found, "the pane's process, from its tty");
                if let Some(proc) = found {
                    t.proc_due = None;
                    lock(&shared.procs).insert(*id, proc.clone());
                    procs.insert(*id, proc);
                }
            }
            if !t.end_watched
                && let (Some(server), Some(proc)) = (server, procs.get(id))
            {
                t.end_watched = true;
                watch_end(*id, proc.pane_pid, server, t, &ends);
            }
            if dirty.contains(id) {
                if let Some(l) = look(p) {
                    t.diff(&l, &mut out);
                }
                if !patterns.is_empty() {
                    t.check_lines(p, &patterns, &mut out);
                }
            }
            let before = out.len();
            t.check_idle(p, &mut out);
            if out.len() > before {
                now_states.push((*id, None, true));
            }
            if let Some(found) = t.check_input(p, procs.get(id), &mut out) {
                now_states.push((*id, Some(found), false));
            } else if dirty.contains(id) {
                now_states.push((*id, None, false));
            }
            if t.ask_death(round, &mut out) {
                tracing::debug!(pane = %id, asked = t.death_asked, "asking tmux whether the pane died");
                // From the second ask on, tmux reaps first (a build with
                // libutempter can leave the program unreaped).
                ask.push((*id, t.death_asked > 1));
            }
        }
        if !ask.is_empty()
            && let Some(m) = mirror.upgrade()
        {
            // Sent by a task: the watch's queue may be full, and the
            // follower never waits on a watch.
            tokio::spawn(async move {
                for (pane, reap) in ask {
                    m.list_again(pane, reap).await;
                }
            });
        }
        {
            let mut now = lock(&shared.now);
            for (id, input, idle) in now_states {
                let n = now.entry(id).or_default();
                if input.is_some() || !idle {
                    n.input = input;
                }
                n.idle = idle;
            }
            now.retain(|id, _| tracks.contains_key(id));
        }
        let before = tracks.len();
        tracks.retain(|_, (t, _)| !t.gone || t.due().is_some());
        if tracks.len() < before || find {
            forget_gone(&shared, &tracks, &pending, &sessions);
        }
        out.sort_by_key(|e| e.at_us);
        for e in out {
            log.push(e, now_ms());
        }
    }
}

/// Watches the end of `pane`'s first process `pid`, a child of the tmux
/// server `server` on this machine: its end goes to `ends`. A process
/// already gone has tmux asked at once; where no pidfd can be had, the
/// pane's death is learnt from listings as before.
fn watch_end(
    pane: PaneId,
    pid: u32,
    server: u32,
    t: &mut Track,
    ends: &FuturesUnordered<BoxFuture<'static, PaneId>>,
) {
    match crate::sys::pidfd::watch(pid, server) {
        Watch::Running(end) => ends.push(Box::pin(async move {
            end.ended().await;
            tracing::debug!(%pane, pid, "the pane's first process ended");
            pane
        })),
        Watch::Gone => {
            tracing::debug!(%pane, pid, "the pane's first process is gone already");
            t.process_ended();
        }
        Watch::Unsupported(why) => {
            tracing::debug!(%pane, %why, "a pane's death is learnt from listings only");
        }
    }
}

/// Opens the watches of the sessions that appeared between the listings
/// `before` and `now` and that the scope covers (every pane, or the
/// session named), so their panes are followed with no call made: each
/// watch lists and seeds its session's panes, and the follower takes them
/// up as their seeds land.
fn follow_new_sessions(
    mirror: &Weak<Mirror>,
    shared: &Shared,
    before: &HashSet<SessionId>,
    now: &HashSet<SessionId>,
) {
    let scope = lock(&shared.scope).clone();
    let new: Vec<SessionId> = now
        .difference(before)
        .filter(|s| scope.all || scope.sessions.contains(s))
        .copied()
        .collect();
    if new.is_empty() {
        return;
    }
    let Some(m) = mirror.upgrade() else { return };
    tokio::spawn(async move {
        for s in new {
            m.follow_session(s).await;
        }
    });
}

/// `session_new` / `session_closed` for the followed sessions that came
/// and went between the listings `before` and `now`.
fn session_events(
    shared: &Shared,
    before: &HashSet<SessionId>,
    now: &HashSet<SessionId>,
) -> Vec<Event> {
    let scope = lock(&shared.scope).clone();
    let mut known = lock(&shared.known_sessions);
    let mut told = |s: &SessionId, kind: Kind| {
        let there = kind == Kind::SessionNew && known.remove(s);
        (!there && (scope.all || scope.sessions.contains(s))).then(|| {
            let mut e = Event::new(kind, None, crate::mirror::clock_us(), format!("{s} {kind}"));
            e.session = Some(*s);
            e
        })
    };
    let mut out: Vec<Event> = now
        .difference(before)
        .filter_map(|s| told(s, Kind::SessionNew))
        .collect();
    out.extend(
        before
            .difference(now)
            .filter_map(|s| told(s, Kind::SessionClosed)),
    );
    out
}

/// Shrinks what is followed to what still exists: panes named in the
/// scope that are neither followed nor waiting for their seed (gone),
/// sessions no longer listed, and what was noted of gone panes.
fn forget_gone(
    shared: &Shared,
    tracks: &HashMap<PaneId, (Track, Arc<PaneMirror>)>,
    pending: &HashSet<PaneId>,
    sessions: &HashSet<SessionId>,
) {
    let alive = |p: &PaneId| tracks.contains_key(p) || pending.contains(p);
    {
        let mut scope = lock(&shared.scope);
        // A pane named before its copy exists stays until it is gone:
        // only panes that were followed leave.
        let known = lock(&shared.procs);
        scope.panes.retain(|p| alive(p) || !known.contains_key(p));
        scope.sessions.retain(|s| sessions.contains(s));
    }
    lock(&shared.procs).retain(|p, _| alive(p));
}

/// Follows one copy as the follower follows a pane (woken by its change
/// signal: the look, the diff and the input and `idle` checks, with no
/// process known), writing to `log`, until the copy is dropped or the
/// task is: for benches of the ingest with a pane followed. The copy is
/// observed from the call on (before the future first runs).
#[doc(hidden)]
pub fn bench_follow_one(
    p: Arc<PaneMirror>,
    log: Arc<EventLog>,
) -> impl std::future::Future<Output = ()> + Send {
    let rx = p.observe();
    bench_follow(p, rx, log)
}

async fn bench_follow(
    p: Arc<PaneMirror>,
    mut rx: crate::mirror::pane::Observer,
    log: Arc<EventLog>,
) {
    let Some(l) = look(&p) else { return };
    let mut t = Track::new(p.id, &l);
    let mut not_before = None;
    loop {
        let (_, next) = changed(p.id, rx, not_before).await;
        let Some(next) = next else { return };
        rx = next;
        not_before = Some(Instant::now() + LOOK_EVERY);
        let mut out = Vec::new();
        if let Some(l) = look(&p) {
            t.diff(&l, &mut out);
        }
        t.check_idle(&p, &mut out);
        t.check_input(&p, None, &mut out);
        for e in out {
            log.push(e, 0);
        }
    }
}

/// `pane_new`'s words: where the pane is (ids from tmux; the window's
/// name quoted, a program can set it).
fn pane_new_what(p: &PaneMirror) -> String {
    let st = p.view();
    let m = st.meta();
    format!(
        " in {} window {} {}",
        m.session_id,
        m.window_id,
        quoted(&m.window_name)
    )
}
