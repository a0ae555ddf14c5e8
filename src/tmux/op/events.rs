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
//! * `exited` (tmux kept the pane: its status) and `pane_gone`: the copy's
//!   status as the watches' listings set it;
//! * `pane_new`: a copy of a followed pane appeared (taken up when a
//!   watch's listing, made on tmux's `%window-add`, `%layout-change`,
//!   `%sessions-changed`… notifications, shows it, or when its seed
//!   lands); `session_new` / `session_closed`: the sessions the watches'
//!   listings show;
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
use futures::stream::FuturesUnordered;
use tokio::time::Instant;

use crate::control::{PaneId, SessionId, WindowId};
use crate::events::text::{cleaned, duration, quoted};
use crate::events::{Event, EventLog, Fields, Kind};
use crate::mirror::{Mirror, PaneMirror, Status};
use crate::search::Pattern;
use crate::sys::input::Input;
use crate::term::{CommandEnd, LineIndex};
use crate::tmux::wait::{INPUT_LASTS, ProcessRef};

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

    /// Widens what is followed to `scope` too; returns whether it grew
    /// (the caller then tells which panes were there:
    /// [`Attention::were_there`]).
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

/// The pane's process as its tty tells it, for a pane of a tmux server on
/// this machine whose pid is `server_pid`: the session of the tty
/// (`tcgetsid`) is the pane's first process, which tmux made a session
/// leader on it (`#{pane_pid}`); the probe checks that its parent is the
/// server. `None` when the tty is not a pseudo-terminal under `/dev/pts`
/// or has no session.
fn process_by_tty(tty: &str, server_pid: u32) -> Option<ProcessRef> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    if !tty.starts_with("/dev/pts/") || tty.contains("/..") {
        return None;
    }
    // Look before opening: opening some devices has effects.
    if !std::fs::metadata(tty).ok()?.file_type().is_char_device() {
        return None;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(tty)
        .ok()?;
    let sid = nix::sys::termios::tcgetsid(&file).ok()?;
    Some(ProcessRef {
        tty: tty.to_string(),
        pane_pid: u32::try_from(sid.as_raw()).ok().filter(|p| *p > 0)?,
        server_pid: Some(server_pid),
    })
}

/// The follower's record of one pane.
#[derive(Debug)]
struct Track {
    pane: PaneId,
    session: Option<SessionId>,
    window: Option<WindowId>,
    epoch: u64,
    /// Commands numbered below this were there when following began (or a
    /// seed replaced the copy): no events for them.
    floor: u64,
    /// `(started told, finished told)` of newer records.
    told: HashMap<u64, (bool, bool)>,
    title: Option<String>,
    /// The copy's bell count last seen.
    bells: u64,
    gone: bool,
    exited: bool,
    last_output: Option<u64>,
    /// The screen's hash when `idle` was last told (or following began).
    idle_hash: Option<u64>,
    idle_due: Option<Instant>,
    input_due: Option<Instant>,
    input_backoff: Duration,
    input_seen: Option<(Input, Instant)>,
    input_told: Option<Input>,
    /// The next line to read for patterns, in `epoch`.
    next_line: Option<LineIndex>,
}

/// What a look at a copy found, taken under its read lock.
struct Look {
    epoch: u64,
    status: Status,
    exit_status: Option<i32>,
    session: Option<SessionId>,
    window: Option<WindowId>,
    title: Option<String>,
    bells: u64,
    last_output: Option<u64>,
    /// The newest records (newest first): index, started, end, status,
    /// command, started and ended times.
    records: Vec<Record>,
    next_record: u64,
}

struct Record {
    index: u64,
    started_at: Option<u64>,
    ended: Option<CommandEnd>,
    ended_at: Option<u64>,
    exit_status: Option<u8>,
    command: Option<String>,
}

/// Records looked at per change (the newest).
const RECORDS_LOOKED: usize = 8;

fn look(p: &PaneMirror) -> Option<Look> {
    let st = p.view();
    let t = st.term()?;
    let cmds = t.commands();
    let records = cmds
        .records()
        .rev()
        .take(RECORDS_LOOKED)
        .map(|r| Record {
            index: r.index,
            started_at: r.started_at,
            ended: r.ended,
            ended_at: r.ended_at,
            exit_status: r.exit_status,
            command: r.command.clone(),
        })
        .collect();
    Some(Look {
        epoch: st.epoch(),
        status: st.status(),
        exit_status: st.exit_status(),
        session: st.owner().or_else(|| st.meta().session()),
        window: st.meta().window_id.parse().ok(),
        title: t.title().map(str::to_string),
        bells: t.bells(),
        last_output: t.screen_state().last_output_at,
        next_record: cmds.last().map_or(0, |r| r.index + 1),
        records,
    })
}

impl Look {
    /// The first record whose events are still to come: the oldest that
    /// has not ended (a command running, or the prompt where the next one
    /// will run), else the next record's number.
    fn floor(&self) -> u64 {
        self.records
            .iter()
            .filter(|r| r.ended.is_none())
            .map(|r| r.index)
            .min()
            .unwrap_or(self.next_record)
    }

    /// What was already true of the records when following began: a
    /// command running then is not told as started again.
    fn told(&self) -> HashMap<u64, (bool, bool)> {
        self.records
            .iter()
            .filter(|r| r.started_at.is_some() && r.ended.is_none())
            .map(|r| (r.index, (true, false)))
            .collect()
    }
}

impl Track {
    fn new(pane: PaneId, l: &Look) -> Track {
        Track {
            pane,
            session: l.session,
            window: l.window,
            epoch: l.epoch,
            floor: l.floor(),
            told: l.told(),
            title: l.title.clone(),
            bells: l.bells,
            gone: l.status == Status::Dead,
            exited: l.exit_status.is_some(),
            last_output: l.last_output,
            idle_hash: None,
            idle_due: None,
            input_due: None,
            input_backoff: INPUT_QUIET,
            input_seen: None,
            input_told: None,
            next_line: None,
        }
    }

    fn event(&self, kind: Kind, at_us: u64, what: String) -> Event {
        let mut e = Event::new(
            kind,
            Some(self.pane),
            at_us,
            format!("{} {kind}{what}", self.pane),
        );
        e.session = self.session;
        e.window = self.window;
        e
    }

    /// The events `l` shows since the last look.
    fn diff(&mut self, l: &Look, out: &mut Vec<Event>) {
        let now_us = crate::mirror::clock_us();
        self.session = l.session.or(self.session);
        self.window = l.window.or(self.window);
        if l.epoch != self.epoch {
            // A seed replaced the copy: its records are not new commands.
            self.epoch = l.epoch;
            self.floor = l.floor();
            self.told = l.told();
            self.next_line = None;
        }
        for r in l.records.iter().rev().filter(|r| r.index >= self.floor) {
            let mut told = self.told.get(&r.index).copied().unwrap_or_default();
            if r.started_at.is_some() && !told.0 {
                told.0 = true;
                self.told.insert(r.index, told);
                let what = r
                    .command
                    .as_deref()
                    .map_or_else(String::new, |c| format!(": {}", quoted(c)));
                let mut e = self.event(Kind::CommandStarted, r.started_at.unwrap_or(now_us), what);
                e.fields.command = r.command.as_deref().map(cleaned);
                out.push(e);
            }
            if let Some(end) = r.ended
                && !told.1
            {
                told.1 = true;
                self.told.insert(r.index, told);
                if !told.0 && end == CommandEnd::Abandoned {
                    // A prompt left with nothing run: no command.
                    continue;
                }
                out.push(self.finished(r, end, now_us));
            }
        }
        let oldest = l.records.last().map_or(self.floor, |r| r.index);
        self.told.retain(|i, _| *i >= oldest);
        if l.title != self.title {
            self.title.clone_from(&l.title);
            let t = l.title.as_deref().unwrap_or("");
            let mut e = self.event(Kind::Title, now_us, format!(": {}", quoted(t)));
            e.fields.title = Some(cleaned(t));
            out.push(e);
        }
        let rang = l.bells.wrapping_sub(self.bells);
        if rang > 0 {
            self.bells = l.bells;
            let times = if rang == 1 {
                String::new()
            } else {
                format!(": {rang} times")
            };
            out.push(self.event(Kind::Bell, now_us, times));
        }
        if l.exit_status.is_some() && !self.exited {
            self.exited = true;
            let s = l.exit_status.unwrap_or_default();
            let mut e = self.event(Kind::Exited, now_us, format!(": status {s}"));
            e.fields.exit_status = Some(s);
            out.push(e);
        }
        // A dead pane tmux keeps (remain-on-exit: it has an exit status)
        // is `exited`, not gone.
        if l.status == Status::Dead && l.exit_status.is_none() && !self.gone {
            self.gone = true;
            out.push(self.event(Kind::PaneGone, now_us, String::new()));
        }
        if l.last_output != self.last_output {
            self.last_output = l.last_output;
            let at = l.last_output.map_or_else(Instant::now, |us| {
                Instant::from_std(crate::mirror::instant_of(us))
            });
            self.idle_due = Some(at + IDLE_STILL);
            self.input_due = Some(at + INPUT_QUIET);
            self.input_backoff = INPUT_QUIET;
            self.input_seen = None;
            self.input_told = None;
        }
    }

    fn finished(&self, r: &Record, end: CommandEnd, now_us: u64) -> Event {
        let mut what = r
            .command
            .as_deref()
            .map_or_else(String::new, |c| format!(": {}", quoted(c)));
        what.push_str(match (end, r.exit_status) {
            (CommandEnd::Abandoned, _) => " ended, how is unknown (a new prompt came first)",
            (CommandEnd::Finished, None) => " ended, no exit status in its mark",
            (CommandEnd::Finished, Some(_)) => "",
        });
        if let (CommandEnd::Finished, Some(s)) = (end, r.exit_status) {
            what.push_str(&format!(" exit {s}"));
        }
        let ran = r
            .started_at
            .zip(r.ended_at)
            .map(|(a, b)| b.saturating_sub(a));
        if let Some(us) = ran {
            what.push_str(&format!(" after {}", duration(us)));
        }
        let mut e = self.event(Kind::CommandFinished, r.ended_at.unwrap_or(now_us), what);
        e.fields = Fields {
            exit_status: r.exit_status.map(i32::from),
            command: r.command.as_deref().map(cleaned),
            duration_us: ran,
            ..Fields::default()
        };
        e
    }

    /// `idle`, when it is due: the screen changed since the last `idle`
    /// and has been still for [`IDLE_STILL`] with nothing known to run.
    fn check_idle(&mut self, p: &PaneMirror, out: &mut Vec<Event>) {
        let Some(due) = self.idle_due else { return };
        let now = Instant::now();
        if now < due {
            return;
        }
        let Some(ss) = p.settle_screen() else {
            self.idle_due = None;
            return;
        };
        let busy = p.view().term().and_then(super::stable::busy);
        let now_us = crate::mirror::clock_us();
        let changed = ss.last_change_at.or(ss.last_output_at).unwrap_or(0);
        let still = Duration::from_micros(now_us.saturating_sub(changed));
        if ss.hash.is_none() || (ss.sync_open && ss.dirty) {
            // Inside a synchronized frame: looked at again when it ends
            // (its output wakes the follower) or tmux shows it anyway.
            self.idle_due = Some(now + Duration::from_micros(crate::term::SYNC_TIMEOUT_US));
            return;
        }
        if still < IDLE_STILL {
            self.idle_due = Some(now + (IDLE_STILL - still));
            return;
        }
        self.idle_due = None;
        if busy.is_some() || ss.hash == self.idle_hash || self.gone {
            self.idle_hash = ss.hash;
            return;
        }
        self.idle_hash = ss.hash;
        let mut e = self.event(
            Kind::Idle,
            now_us,
            format!(": screen still for {}", duration(still.as_micros() as u64)),
        );
        e.fields.duration_us = Some(still.as_micros() as u64);
        out.push(e);
    }

    /// `password_prompt` / `awaiting_input`, when the program has read for
    /// [`INPUT_LASTS`] with the pane quiet (looked at within
    /// [`INPUT_WINDOW`] of its last output).
    fn check_input(
        &mut self,
        p: &PaneMirror,
        proc: Option<&ProcessRef>,
        out: &mut Vec<Event>,
    ) -> Option<(Input, String)> {
        let due = self.input_due?;
        let now = Instant::now();
        if now < due || self.gone {
            return None;
        }
        let since = self
            .last_output
            .map_or(Duration::ZERO, |us| crate::mirror::instant_of(us).elapsed());
        let Some(proc) = proc.filter(|_| since <= INPUT_WINDOW) else {
            self.input_due = None;
            return None;
        };
        let (input, _evidence) = proc.read(p);
        if !matches!(input, Input::Password | Input::LineRead | Input::KeyRead) {
            self.input_seen = None;
            self.input_due = Some(now + self.input_backoff);
            self.input_backoff = (self.input_backoff * 2).min(INPUT_EVERY_AT_MOST);
            return None;
        }
        match self.input_seen {
            Some((i, at)) if i == input && now >= at + INPUT_LASTS => {}
            Some((i, at)) if i == input => {
                self.input_due = Some(at + INPUT_LASTS);
                return None;
            }
            _ => {
                self.input_seen = Some((input, now));
                self.input_due = Some(now + INPUT_LASTS);
                return None;
            }
        }
        self.input_due = None;
        if self.input_told == Some(input) {
            return None;
        }
        self.input_told = Some(input);
        let (kind, what) = reading_words(input, p)?;
        out.push(self.event(kind, crate::mirror::clock_us(), format!(": {what}")));
        Some((input, what))
    }

    /// `matched` for new complete lines that match `patterns`.
    fn check_lines(
        &mut self,
        p: &PaneMirror,
        patterns: &[(String, Pattern)],
        out: &mut Vec<Event>,
    ) {
        let st = p.view();
        let Some(t) = st.term() else { return };
        let from = match self.next_line {
            Some(l) => l,
            None => {
                self.next_line = Some(crate::mirror::lines::cursor_spot(t).line);
                return;
            }
        };
        let since = crate::mirror::lines::lines_since(
            t,
            from,
            LINES_PER_CHANGE,
            crate::mirror::lines::Keep::Newest,
        );
        drop(st);
        self.next_line = Some(since.next());
        let now_us = crate::mirror::clock_us();
        for line in &since.lines {
            for (text, pat) in patterns {
                if pat.is_match_line(line) {
                    let l = String::from_utf8_lossy(line);
                    let mut e = self.event(
                        Kind::Matched,
                        now_us,
                        format!(" {}: {}", quoted(text), quoted(&l)),
                    );
                    e.fields.pattern = Some(cleaned(text));
                    e.fields.line = Some(cleaned(&l));
                    out.push(e);
                }
            }
        }
    }

    fn due(&self) -> Option<Instant> {
        match (self.idle_due, self.input_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
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
    mut rx: tokio::sync::watch::Receiver<u64>,
    not_before: Option<Instant>,
) -> (PaneId, Option<tokio::sync::watch::Receiver<u64>>) {
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
            r = sessions_rx.changed() => {
                // Each listing of a watch (tmux's %window-add,
                // %layout-change, %sessions-changed... make one) lands here.
                if r.is_err() {
                    return;
                }
                let now: HashSet<SessionId> = sessions_rx.borrow_and_update().iter().copied().collect();
                out.extend(session_events(&shared, &sessions, &now));
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
                        waits.push(changed(id, p.observe(), None));
                    }
                    continue;
                };
                if l.status == Status::Dead || !scope.covers(id, l.session) {
                    continue;
                }
                let mut t = Track::new(id, &l);
                // The screen as following begins: `idle` is told for a
                // screen that changed after it.
                t.idle_hash = p.settle_screen().and_then(|ss| ss.hash);
                // A prompt printed before it was taken up is looked at too.
                if l.last_output
                    .is_some_and(|us| crate::mirror::instant_of(us).elapsed() <= INPUT_WINDOW)
                {
                    t.input_due = Some(Instant::now());
                }
                if !lock(&shared.known).remove(&id) {
                    out.push(t.event(Kind::PaneNew, crate::mirror::clock_us(), pane_new_what(&p)));
                }
                if let Some(server) = server
                    && !lock(&shared.procs).contains_key(&id)
                {
                    let tty = p.view().meta().pane_tty.clone();
                    if let Some(proc) = process_by_tty(&tty, server) {
                        lock(&shared.procs).insert(id, proc);
                    }
                }
                waits.push(changed(id, p.observe(), None));
                tracks.insert(id, (t, p));
            }
        }
        let patterns = live_patterns(&shared);
        let procs = lock(&shared.procs).clone();
        let mut now_states = Vec::new();
        for (id, (t, p)) in tracks.iter_mut() {
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
    mut rx: tokio::sync::watch::Receiver<u64>,
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
