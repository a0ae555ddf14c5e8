//! One session's control connection: it receives `%output` for the panes
//! of that session (tmux sends output only for the attached session:
//! control.c `control_write_output()`), feeds the copies it owns, seeds
//! new copies and checks live ones against tmux.
//!
//! # Ordering
//!
//! tmux queues a pane's output to a control client when it reads it from
//! the pane, just before parsing it into the pane's grid (window.c
//! `window_pane_read_callback()`), and a command's output lines wait until
//! every output block queued before them is written
//! (`control_flush_all_blocks()`). So all output parsed before a command
//! runs arrives before that command's answer: a seed taken by a command is
//! followed, in the stream, only by output it does not contain.
//!
//! One exception: while a line waits behind another pane's output, tmux
//! may write *later* output of the same pane first
//! (`control_write_pending()` writes each pane's blocks in order, whatever
//! lines wait in between). Output of a pane can then reach us before the
//! answer of a command that ran before it. That needs output of at least
//! two panes in flight, so a seed (or check) during which both the pane
//! and another pane produced output is *ambiguous*. A check that is
//! ambiguous is asked again (up to [`MAX_ATTEMPTS`] times) and otherwise
//! not trusted. An ambiguous seed is taken again *hushed*: the pane is
//! first paused (`refresh-client -A '%N:pause'`, which drops the output
//! tmux queued for it: control.c `control_pause_pane()`), and once that
//! answer is in, no output of the pane is in flight, so every byte of it
//! that arrives after is output the seed (which resumes the pane in the
//! same line as its capture) does not contain: it is held and applied on
//! top of the copy. A hushed seed is exact however many panes print.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::flood::{Action, Floods};
use super::follow;
use super::marks::MarkScanner;
use super::pane::{MAX_MARKS, Mark, PaneMeta, Status};
use super::seed;
use super::{MirrorShared, probe};
use crate::control::client::{StreamEvent, Ticket};
use crate::control::{Client, Command, Line, Notification, PaneId, SessionId};

/// Times a check is asked before an ambiguous one is left unconfirmed.
pub const MAX_ATTEMPTS: u8 = 4;

/// Seed lines one watch has out at once.
pub const SEEDS_OUT: usize = 1;

/// Seed lines all watches of a mirror have out at once (one session's
/// seeds wait for another's): the memory a seed holds while its copy is
/// built is then counted once, not once per session.
pub const SEEDS_AT_ONCE: usize = 1;

/// What a watch is asked to do.
pub(crate) enum WatchCmd {
    /// Bring these panes (shown in this watch's session) up to date: seed
    /// those without a copy, check the others, then reply.
    Sync {
        panes: Vec<(PaneId, PaneMeta)>,
        reply: oneshot::Sender<()>,
        /// Told once per pane: whether tmux just confirmed its copy (seeded,
        /// or checked and found equal).
        outcomes: mpsc::Sender<(PaneId, bool)>,
    },
}

/// Output counters when a line was sent, to tell whether the pane and
/// others produced output before its answer.
#[derive(Clone, Copy, Debug)]
struct Window {
    all: u64,
    mine: u64,
}

enum Job {
    Seed {
        pane: PaneId,
        at: Window,
        attempt: u8,
        continued: bool,
        /// The key waiters know this seed by (it may wait in the queue
        /// before it has a request id).
        key: u64,
        /// The buffer the line left the history in ([`seed::SeedLine`]).
        history_buffer: Option<String>,
        /// Whether the line was [exact](seed::Recipe::exact).
        exact: bool,
    },
    Check {
        pane: PaneId,
        at: Window,
        /// 1 for the first; an ambiguous answer is asked again up to
        /// [`MAX_ATTEMPTS`].
        attempt: u8,
    },
    /// A check of a copy's history rows against tmux's
    /// ([`seed::verify_line`]), sent when requests pause.
    Verify {
        pane: PaneId,
        at: Window,
        /// Ambiguous checks of this copy before this one.
        tries: u8,
        name: String,
        /// A share of [`MirrorShared::seed_slots`]: seeds wait behind it.
        permit: tokio::sync::OwnedSemaphorePermit,
    },
    /// The server's panes, asked at `sent` (a copy seeded after may be of
    /// a pane newer than the answer: it is not taken for gone).
    List { sent: std::time::Instant },
    /// The pause before a hushed seed (see the module docs): once it is
    /// answered, the seed with this key is queued.
    Hush { pane: PaneId, key: u64, attempt: u8 },
    /// A pause (`pause`) or a probe's resume of a flooding pane
    /// ([`super::flood`]). tmux writes the `%pause` of a pause inside the
    /// command's own answer, so the answer is what says the pane's output
    /// stops from there on.
    Flow { pane: PaneId, pause: bool },
}

/// A seed whose line was answered and whose history a one-shot client is
/// reading ([`seed::fetch_history`]): the pane's output that arrives
/// meanwhile comes after the seed, so it is held and applied once the copy
/// is built.
struct Fetching {
    key: u64,
    reply: crate::control::client::Reply,
    continued: bool,
    attempt: u8,
    exact: bool,
    /// The pane's output since the answer (and, for a hushed seed, since
    /// the pause was answered), in order.
    held: Held,
}

/// A pane's output kept aside until its copy is built, in order.
#[derive(Debug, Default)]
struct Held {
    chunks: Vec<Vec<u8>>,
    bytes: usize,
    /// More came than [`MAX_HELD`]: the copy is seeded again instead.
    overflowed: bool,
}

impl Held {
    fn push(&mut self, data: &[u8]) {
        if self.overflowed {
            return;
        }
        self.bytes += data.len();
        if self.bytes > MAX_HELD {
            self.overflowed = true;
            self.chunks = Vec::new();
        } else {
            self.chunks.push(data.to_vec());
        }
    }
}

/// Output held for one pane while its history is read, in bytes; past it
/// the seed is taken again (a pane printing that fast while a one-shot
/// client reads its history).
const MAX_HELD: usize = 64 << 20;

/// History reads one watch has out at once while its next seed line is
/// sent: one pane's history in flight, the next being captured.
const FETCHES_OUT: usize = 1;

/// What a buffer read was for.
enum FetchFor {
    /// The history of the seed with this key.
    Seed(u64),
    /// A check of the copy's history rows, whose digests when the rows
    /// were captured are these ([`crate::term::history_row_digests`]).
    Verify {
        digests: Vec<u64>,
        size: usize,
        permit: tokio::sync::OwnedSemaphorePermit,
    },
}

/// What a buffer read brought back: the pane, what for, the bytes.
type Fetched = (PaneId, FetchFor, Result<Vec<u8>, String>);

/// How many times [`MirrorOptions::verify_after`](super::MirrorOptions) a
/// copy waits at most to be checked while requests keep coming (the
/// check's capture makes them wait, so it waits for a pause).
const VERIFY_AT_LATEST: u32 = 20;

/// A sync request waiting for its lines' answers.
struct Waiter {
    ids: HashSet<u64>,
    reply: oneshot::Sender<()>,
    outcomes: mpsc::Sender<(PaneId, bool)>,
}

/// The task that owns one session's connection.
pub(crate) struct Watch {
    session: SessionId,
    client: Client,
    shared: Arc<MirrorShared>,
    /// `%output` notifications seen, in all and per pane.
    outputs_all: u64,
    outputs: HashMap<PaneId, u64>,
    jobs: HashMap<u64, (Ticket, Job)>,
    /// Panes with a seed queued or on its way, and that seed's key.
    seeding: HashMap<PaneId, u64>,
    /// Seeds waiting their turn: (key, pane, attempt).
    seed_queue: std::collections::VecDeque<(u64, PaneId, u8)>,
    /// Seeds sent and not yet answered.
    seeds_out: usize,
    /// This watch's share of [`MirrorShared::seed_slots`] while a seed of
    /// it is out.
    seed_permit: Option<tokio::sync::OwnedSemaphorePermit>,
    /// The next seed key (keys have the top bit set, request ids not).
    next_key: u64,
    /// Panes tmux paused (`%pause`) while a seed was on its way: seeded
    /// again when it lands, to resume them.
    paused: HashSet<PaneId>,
    /// Panes paused for a hushed seed, from the pause's answer until the
    /// seed's, with their output since (all of it after the seed's
    /// capture).
    hushed: HashMap<PaneId, Held>,
    /// Panes whose `%pause` is our own hush's: tmux may write that
    /// notification after the pause's answer (it defers notifications
    /// while a command's block is open), where it must not count as a
    /// pause of the seed.
    hush_notices: HashSet<PaneId>,
    listing: bool,
    relist: bool,
    waiters: Vec<Waiter>,
    /// Mark scanners of the panes this connection feeds (see
    /// [`super::marks`]); dropped when a pane's output stops being
    /// applied, so a mark is never pieced together across a gap.
    scanners: HashMap<PaneId, MarkScanner>,
    /// Seeds whose history is being read, by pane.
    fetching: HashMap<PaneId, Fetching>,
    /// Where history reads report back.
    fetched_tx: mpsc::Sender<Fetched>,
    fetched_rx: Option<mpsc::Receiver<Fetched>>,
    /// Panes whose history did not lay out as tmux's rows: seeded with the
    /// [exact](seed::Recipe::exact) line from then on.
    exact: HashSet<PaneId>,
    /// Copies whose history was seeded as lines, to check against tmux's
    /// rows, and since when they wait.
    /// The third field counts the checks already taken that were ambiguous.
    verify_queue: std::collections::VecDeque<(PaneId, std::time::Instant, u8)>,
    /// A check is out (one at a time).
    verifying: bool,
    /// No check starts before this (a seed slot was busy).
    verify_not_before: Option<tokio::time::Instant>,
    /// Panes paused for a flood, and the meters of the others.
    floods: Floods,
}

impl Watch {
    pub(crate) fn new(session: SessionId, client: Client, shared: Arc<MirrorShared>) -> Watch {
        let (fetched_tx, fetched_rx) = mpsc::channel(SEEDS_OUT + 1);
        Watch {
            session,
            client,
            shared,
            outputs_all: 0,
            outputs: HashMap::new(),
            jobs: HashMap::new(),
            seeding: HashMap::new(),
            seed_queue: std::collections::VecDeque::new(),
            seeds_out: 0,
            seed_permit: None,
            next_key: 1 << 63,
            paused: HashSet::new(),
            hushed: HashMap::new(),
            hush_notices: HashSet::new(),
            listing: false,
            relist: false,
            waiters: Vec::new(),
            scanners: HashMap::new(),
            fetching: HashMap::new(),
            fetched_tx,
            fetched_rx: Some(fetched_rx),
            exact: HashSet::new(),
            verify_queue: std::collections::VecDeque::new(),
            verifying: false,
            verify_not_before: None,
            floods: Floods::default(),
        }
    }

    /// Runs until the connection ends (or every handle to the mirror is
    /// gone).
    pub(crate) async fn run(
        mut self,
        mut events: mpsc::Receiver<StreamEvent>,
        mut cmds: mpsc::Receiver<WatchCmd>,
    ) {
        // Adopt the session's panes at once, so output is followed from
        // the start (a pane that prints and exits before any call is still
        // kept).
        self.list();
        let Some(mut fetched) = self.fetched_rx.take() else {
            return;
        };
        loop {
            let wants_slot = self.seed_permit.is_none() && !self.seed_queue.is_empty();
            let slots = self.shared.seed_slots.clone();
            let verify_at = self.verify_due();
            let flood_at = self.floods.next_tick().map(tokio::time::Instant::from_std);
            tokio::select! {
                _ = tokio::time::sleep_until(flood_at.unwrap_or_else(tokio::time::Instant::now)),
                    if flood_at.is_some() => self.flood_tick(),
                Some((pane, what, bytes)) = fetched.recv() => match what {
                    FetchFor::Seed(key) => self.fetched(pane, key, bytes),
                    FetchFor::Verify { digests, size, permit } => {
                        self.verified(pane, &digests, size, bytes);
                        drop(permit);
                    }
                },
                _ = tokio::time::sleep_until(verify_at.unwrap_or_else(tokio::time::Instant::now)),
                    if verify_at.is_some() => self.start_verify(),
                permit = slots.acquire_owned(), if wants_slot => {
                    if let Ok(p) = permit {
                        self.seed_permit = Some(p);
                        self.pump();
                    }
                }
                ev = events.recv() => match ev {
                    Some(ev) => self.event(ev),
                    None => break,
                },
                cmd = cmds.recv() => match cmd {
                    Some(WatchCmd::Sync { panes, reply, outcomes }) => {
                        self.sync(panes, reply, outcomes)
                    }
                    None => break,
                },
            }
        }
        let why = self.client.end_reason();
        self.client.close().await;
        self.release();
        tracing::debug!(session = %self.session, why = why.as_deref().unwrap_or("closed here"), "session watch ended");
    }

    fn window(&self, pane: PaneId) -> Window {
        Window {
            all: self.outputs_all,
            mine: self.outputs.get(&pane).copied().unwrap_or(0),
        }
    }

    /// Whether output for `pane` and for another pane both arrived since
    /// `at`.
    fn ambiguous(&self, pane: PaneId, at: Window) -> bool {
        let mine = self.outputs.get(&pane).copied().unwrap_or(0) - at.mine;
        let all = self.outputs_all - at.all;
        mine > 0 && all > mine
    }

    fn send(&mut self, line: Line, job: Job) -> Option<u64> {
        if matches!(job, Job::Seed { .. }) {
            tracing::debug!("seed sent");
        }
        match self.client.submit(std::slice::from_ref(&line)) {
            Ok(mut t) => {
                let ticket = t.pop()?;
                let id = ticket.id();
                self.jobs.insert(id, (ticket, job));
                Some(id)
            }
            Err(e) => {
                tracing::debug!(%e, "session watch: could not send");
                None
            }
        }
    }

    /// Asks for the server's panes (to adopt new ones and notice gone
    /// ones); a request made while one is out is merged into the next.
    fn list(&mut self) {
        if self.listing {
            self.relist = true;
            return;
        }
        let line = probe::list_line(&self.shared.query);
        let sent = std::time::Instant::now();
        if self.send(line, Job::List { sent }).is_some() {
            self.listing = true;
        }
    }

    /// Queues a seed of `pane`; returns the key waiters know it by.
    fn seed(&mut self, pane: PaneId, attempt: u8) -> Option<u64> {
        if let Some(&key) = self.seeding.get(&pane) {
            return Some(key);
        }
        let key = self.next_key;
        self.next_key += 1;
        self.seeding.insert(pane, key);
        self.seed_queue.push_back((key, pane, attempt));
        self.pump();
        Some(key)
    }

    /// Sends queued seeds while fewer than [`SEEDS_OUT`] are out: a seed of
    /// a long history is tens of megabytes of answer, so a few at a time
    /// bound memory (and tmux renders one capture at a time anyway).
    fn pump(&mut self) {
        if self.seed_queue.is_empty() {
            if self.seeds_out == 0 {
                self.seed_permit = None;
            }
            return;
        }
        if self.seed_permit.is_none() {
            match self.shared.seed_slots.clone().try_acquire_owned() {
                Ok(p) => self.seed_permit = Some(p),
                // The watch loop takes a slot when one frees.
                Err(_) => return,
            }
        }
        while self.seeds_out < SEEDS_OUT && self.fetching.len() < FETCHES_OUT {
            let Some((key, pane, attempt)) = self.seed_queue.pop_front() else {
                return;
            };
            // Every seed resumes the pane's output first: a no-op unless
            // tmux paused it (control.c `control_continue_pane()`), and safe
            // even if a `%pause` was missed.
            let continued = true;
            let exact = self.exact.contains(&pane);
            let recipe = if exact {
                self.shared.recipe.exact()
            } else {
                self.shared.recipe
            };
            let seed::SeedLine {
                line,
                history_buffer,
            } = seed::line(pane, &recipe, continued);
            let at = self.window(pane);
            let job = Job::Seed {
                pane,
                at,
                attempt,
                continued,
                key,
                history_buffer,
                exact,
            };
            if self.send(line, job).is_some() {
                self.seeds_out += 1;
            } else {
                self.seeding.remove(&pane);
                self.hushed.remove(&pane);
                self.hush_notices.remove(&pane);
                self.finish(key, None, Some((pane, false)));
            }
        }
    }

    /// `refresh-client -A '%N:<state>'` (`pause` or `continue`) for a
    /// flooding pane.
    fn flow(&mut self, pane: PaneId, state: &str) {
        let cmd = Command::new("refresh-client").opt("-A", format!("{pane}:{state}"));
        let pause = state == "pause";
        self.send(Line::list(vec![cmd]), Job::Flow { pane, pause });
    }

    /// tmux stopped sending `pane`'s output (paused): its copy is stale
    /// until seeded again.
    fn stopped(&mut self, pane: PaneId) {
        if let Some(p) = self.shared.pane(pane) {
            let mut st = p.write();
            if st.owner == Some(self.session) && st.status == Status::Live {
                st.status = Status::Stale;
            }
            drop(st);
            p.changed();
        }
        self.scanners.remove(&pane);
    }

    /// Probes paused floods and seeds the ones that settled.
    fn flood_tick(&mut self) {
        for (pane, action) in self.floods.tick(std::time::Instant::now()) {
            match action {
                // A pane being seeded is resumed by its seed (a probe's
                // resume would break a hushed seed's pause).
                Action::Continue if self.seeding.contains_key(&pane) => {}
                Action::Continue => self.flow(pane, "continue"),
                // `tick` asks for no pause; a settled pane is seeded.
                Action::Seed | Action::Pause => {
                    tracing::debug!(%pane, "flood settled: seeding");
                    if self.owns(pane) && !self.seeding.contains_key(&pane) {
                        self.seed(pane, 1);
                    }
                }
            }
        }
    }

    /// Pauses `pane` for a hushed seed (see the module docs); returns the
    /// key waiters know the seed by.
    fn hush(&mut self, pane: PaneId, attempt: u8) -> Option<u64> {
        if let Some(&key) = self.seeding.get(&pane) {
            return Some(key);
        }
        let key = self.next_key;
        self.next_key += 1;
        let cmd = Command::new("refresh-client").opt("-A", format!("{pane}:pause"));
        let job = Job::Hush { pane, key, attempt };
        self.send(Line::list(vec![cmd]), job)?;
        self.seeding.insert(pane, key);
        Some(key)
    }

    fn check(&mut self, pane: PaneId, attempt: u8) -> Option<u64> {
        let line = probe::check_line(pane, &self.shared.query, self.shared.encoding);
        let at = self.window(pane);
        self.send(line, Job::Check { pane, at, attempt })
    }

    fn sync(
        &mut self,
        panes: Vec<(PaneId, PaneMeta)>,
        reply: oneshot::Sender<()>,
        outcomes: mpsc::Sender<(PaneId, bool)>,
    ) {
        let mut ids = HashSet::new();
        let now = std::time::Instant::now();
        for (id, meta) in panes {
            // A copy asked for is not paused for a while (a seed of a
            // paused one resumes it).
            self.floods.asked(id, now);
            let p = self.shared.pane_or_new(id);
            let status = {
                let mut st = p.write();
                st.meta = meta;
                if st.owner.is_none() {
                    st.owner = Some(self.session);
                }
                if st.owner != Some(self.session) {
                    continue;
                }
                st.status
            };
            let sent = match status {
                // Wait for the seed already queued or on its way.
                _ if self.seeding.contains_key(&id) => self.seeding.get(&id).copied(),
                Status::Live => self.check(id, 1),
                Status::Unseeded | Status::Stale => self.seed(id, 1),
                Status::Dead => None,
            };
            if let Some(k) = sent {
                ids.insert(k);
            }
        }
        if ids.is_empty() {
            let _ = reply.send(());
        } else {
            self.waiters.push(Waiter {
                ids,
                reply,
                outcomes,
            });
        }
    }

    fn event(&mut self, ev: StreamEvent) {
        match ev {
            StreamEvent::Notification(n) => self.notification(n),
            StreamEvent::Answered(id) => self.answered(id),
        }
    }

    fn notification(&mut self, n: Notification) {
        match n {
            Notification::Output { pane, data }
            | Notification::ExtendedOutput { pane, data, .. } => self.output(pane, &data),
            Notification::Pause(pane) => {
                if self.hush_notices.remove(&pane) {
                    // Our own hush's (already taken into account).
                    return;
                }
                if self.seeding.contains_key(&pane) {
                    self.paused.insert(pane);
                }
                self.stopped(pane);
                // Output is dropped until we continue: seed again now
                // (a pane paused for a flood waits until it settles).
                if !self.seeding.contains_key(&pane) && self.owns(pane) && !self.floods.holds(pane)
                {
                    // None of its output is in flight after `%pause`: the
                    // seed is hushed already.
                    self.hushed.insert(pane, Held::default());
                    self.seed(pane, 1);
                }
            }
            Notification::LayoutChange { .. }
            | Notification::WindowAdd(_)
            | Notification::WindowClose(_)
            | Notification::SessionsChanged
            | Notification::SessionWindowChanged { .. } => self.list(),
            Notification::SessionChanged { session, .. } if session != self.session => {
                // Our session is gone and tmux moved us: this connection
                // now shows another session, which has a watch of its own.
                tracing::debug!(from = %self.session, to = %session, "watch moved; closing");
                self.client_close();
            }
            _ => {}
        }
    }

    fn owns(&self, pane: PaneId) -> bool {
        self.shared
            .pane(pane)
            .is_some_and(|p| p.view().owner == Some(self.session))
    }

    fn output(&mut self, pane: PaneId, data: &[u8]) {
        self.outputs_all += 1;
        *self.outputs.entry(pane).or_insert(0) += 1;
        // Asked only of a pane over the rate: not a lookup per `%output`.
        let busy = self.seeding.contains_key(&pane) || self.fetching.contains_key(&pane);
        let (shared, session) = (&self.shared, self.session);
        let may_pause = || {
            !busy
                && shared
                    .pane(pane)
                    .is_some_and(|p| p.subscribers() == 0 && p.view().owner == Some(session))
        };
        if self
            .floods
            .output(pane, data.len(), std::time::Instant::now(), may_pause)
            == Some(Action::Pause)
        {
            tracing::debug!(%pane, "flooding: paused until it settles");
            self.flow(pane, "pause");
        }
        if let Some(h) = self.hushed.get_mut(&pane) {
            h.push(data);
            return;
        }
        if let Some(f) = self.fetching.get_mut(&pane) {
            f.held.push(data);
            return;
        }
        self.apply_output(pane, data);
    }

    /// Feeds output held while the pane was seeded to its new copy, in
    /// order.
    fn apply_held(&mut self, pane: PaneId, held: &Held) {
        for data in &held.chunks {
            self.apply_output(pane, data);
        }
    }

    /// Feeds `data`, the pane's output, to its copy (when it is live and
    /// this watch's).
    fn apply_output(&mut self, pane: PaneId, data: &[u8]) {
        let Some(p) = self.shared.pane(pane) else {
            // A pane we have not adopted yet: its seed will hold this.
            return;
        };
        let mut st = p.write();
        if st.owner != Some(self.session) || st.status != Status::Live {
            tracing::debug!(%pane, status = ?st.status, owner = ?st.owner, bytes = data.len(), "output not applied");
            self.scanners.remove(&pane);
            return;
        }
        let found = self.scanners.entry(pane).or_default().scan(data);
        let state = &mut *st;
        let waited_on = p.subscribers() > 0;
        if let Some(t) = state.term.as_mut() {
            t.set_now(super::clock_us());
            // Each mark is placed where the cursor is just after it.
            let mut at = 0;
            for f in found {
                t.advance(&data[at..f.end]);
                at = f.end;
                if state.marks.len() == MAX_MARKS {
                    state.marks.pop_front();
                }
                state.marks.push_back(Mark {
                    nonce: f.nonce,
                    kind: f.kind,
                    at: follow::cursor_spot(t),
                    epoch: state.epoch,
                });
            }
            t.advance(&data[at..]);
            t.end_read();
            // The screen hash costs a pass over the screen: taken when a
            // wait is watching, else when asked
            // ([`PaneMirror::settle_screen`]).
            if waited_on {
                t.settle_screen();
            }
        }
        state.bytes_applied += data.len() as u64;
        // Waiters are woken once the lock is released: a woken reader
        // takes the read lock at once.
        drop(st);
        p.changed();
        self.shared.note_bytes(data.len());
    }

    fn answered(&mut self, id: u64) {
        let Some((mut ticket, job)) = self.jobs.remove(&id) else {
            return;
        };
        let reply = ticket.try_take();
        let mut follow_up = None;
        // What waiters know this job by, and whether it confirmed a copy.
        let mut key = id;
        let mut outcome = None;
        match job {
            Job::Flow { pane, pause } => {
                if pause && matches!(reply, Some(Ok(_))) {
                    self.stopped(pane);
                }
                return;
            }
            Job::Hush {
                pane,
                key: seed_key,
                attempt,
            } => {
                if matches!(reply, Some(Ok(_))) && self.seeding.get(&pane) == Some(&seed_key) {
                    // From here on tmux sends none of the pane's output
                    // until the seed resumes it.
                    self.stopped(pane);
                    self.hushed.insert(pane, Held::default());
                    self.hush_notices.insert(pane);
                    self.seed_queue.push_back((seed_key, pane, attempt));
                    self.pump();
                    return;
                }
                if self.seeding.get(&pane) == Some(&seed_key) {
                    self.seeding.remove(&pane);
                }
                key = seed_key;
                outcome = Some((pane, false));
            }
            Job::List { sent } => {
                self.listing = false;
                if let Some(Ok(r)) = reply {
                    self.adopt(&r, sent);
                }
                if std::mem::take(&mut self.relist) {
                    self.list();
                }
            }
            Job::Seed {
                pane,
                at,
                attempt,
                continued,
                key: seed_key,
                history_buffer,
                exact,
            } => {
                key = seed_key;
                // Its own `%pause`, if tmux wrote one after the pause's
                // answer, came before this answer.
                self.hush_notices.remove(&pane);
                let hushed = self.hushed.remove(&pane);
                let ambiguous = hushed.is_none() && self.ambiguous(pane, at);
                let usable = matches!(reply, Some(Ok(_)))
                    && !self.paused.contains(&pane)
                    && !ambiguous
                    && hushed.as_ref().is_none_or(|h| !h.overflowed);
                let held = hushed.unwrap_or_default();
                let reply = match (history_buffer, reply) {
                    (Some(name), Some(Ok(r))) if usable => {
                        // The copy is built once the history is read; the
                        // pane stays being seeded (and its output is held)
                        // until then, while the next seed's line goes, so
                        // tmux captures the next pane while this one's
                        // history is read and built.
                        self.free_slot();
                        let f = Fetching {
                            key: seed_key,
                            reply: r,
                            continued,
                            attempt,
                            exact,
                            held,
                        };
                        self.fetch(pane, name, f);
                        self.pump();
                        return;
                    }
                    (Some(name), reply) => {
                        self.drop_buffer(name);
                        reply
                    }
                    (None, reply) => reply,
                };
                self.seed_done(pane);
                match reply {
                    Some(Ok(_)) if self.paused.remove(&pane) => {
                        // Paused while the seed was out: seed (and resume)
                        // again.
                        follow_up = self.seed(pane, attempt);
                    }
                    Some(Ok(r)) if usable => {
                        let (ok, redo) = self.apply_seed(pane, r, continued, exact, None);
                        if redo {
                            follow_up = self.seed(pane, 1);
                        } else {
                            self.apply_held(pane, &held);
                        }
                        outcome = Some((pane, ok));
                    }
                    Some(Ok(_)) if ambiguous => {
                        tracing::debug!(%pane, attempt, "seed was ambiguous; taking it again, hushed");
                        follow_up = self.hush(pane, attempt + 1);
                    }
                    Some(Ok(_)) => {
                        // Too much output came while a hushed seed was out.
                        follow_up = self.seed(pane, attempt + 1);
                    }
                    Some(Err(e)) => {
                        tracing::debug!(%pane, %e, "seed failed");
                        outcome = Some((pane, false));
                    }
                    None => outcome = Some((pane, false)),
                }
            }
            Job::Verify {
                pane,
                at,
                tries,
                name,
                permit,
            } => {
                self.verifying = false;
                if self.ambiguous(pane, at) {
                    // The rows may predate output already applied (as for
                    // a check): asked again later, up to MAX_ATTEMPTS in
                    // all, then left unchecked (each one captures the
                    // whole history).
                    self.drop_buffer(name);
                    drop(permit);
                    if tries + 1 < MAX_ATTEMPTS {
                        self.verify_queue
                            .push_back((pane, std::time::Instant::now(), tries + 1));
                    } else {
                        tracing::debug!(%pane, "history rows left unchecked: every check was ambiguous");
                    }
                    return;
                }
                let size = reply
                    .as_ref()
                    .and_then(|r| r.as_ref().ok())
                    .and_then(seed::verify_size);
                // The copy as it is at this point in the stream is what
                // the captured rows must match.
                let digests = self.shared.pane(pane).and_then(|p| {
                    let st = p.view();
                    (st.status == Status::Live && st.owner == Some(self.session))
                        .then(|| st.term.as_ref().map(crate::term::history_row_digests))
                        .flatten()
                });
                match (size, digests) {
                    (Some(size), Some(digests)) => {
                        self.verifying = true;
                        let tx = self.fetched_tx.clone();
                        let (shared, client) = (self.shared.clone(), self.client.clone());
                        tokio::spawn(async move {
                            let bytes = shared.fetch_history(&client, &name).await;
                            let what = FetchFor::Verify {
                                digests,
                                size,
                                permit,
                            };
                            let _ = tx.send((pane, what, bytes)).await;
                        });
                    }
                    _ => {
                        self.drop_buffer(name);
                        drop(permit);
                    }
                }
                return;
            }
            Job::Check { pane, at, attempt } => {
                if let (Some(Ok(r)), Some(p)) = (&reply, self.shared.pane(pane))
                    && let Some(v) = probe::mode(r, &self.shared.query)
                {
                    p.write().mode = v;
                }
                // Output of this pane and another during the check: the
                // answer may predate output already applied, so it proves
                // nothing either way (the copy stays as it is).
                outcome = Some((pane, false));
                let ambiguous = self.ambiguous(pane, at);
                if matches!(reply, Some(Ok(_))) && ambiguous && attempt < MAX_ATTEMPTS {
                    // Asked again: a quiet moment of either pane confirms.
                    follow_up = self.check(pane, attempt + 1);
                } else if let Some(Ok(r)) = reply
                    && !ambiguous
                {
                    // At this point in the stream the copy holds exactly
                    // the output tmux had parsed when it answered.
                    let agrees = self.shared.pane(pane).is_some_and(|p| {
                        let verdict = p
                            .view()
                            .term
                            .as_ref()
                            .map(|t| probe::verdict(t, &r, &self.shared.query));
                        match verdict {
                            Some(probe::Verdict::Agrees) => true,
                            Some(probe::Verdict::Trimmed { rows, limit }) => {
                                // Only this task feeds the copy: it is as
                                // it was judged.
                                let mut st = p.write();
                                if let Some(t) = st.term.as_mut() {
                                    tracing::debug!(%pane, held = t.history_size(), rows, limit, "tmux dropped history rows; trimming the copy to match");
                                    t.match_history(limit, rows);
                                }
                                true
                            }
                            Some(probe::Verdict::Differs) | None => false,
                        }
                    });
                    if agrees {
                        outcome = Some((pane, true));
                    } else {
                        tracing::debug!(%pane, "copy disagrees with tmux; seeding again");
                        if let Some(p) = self.shared.pane(pane) {
                            p.write().status = Status::Stale;
                            p.changed();
                        }
                        follow_up = self.seed(pane, 1);
                    }
                }
            }
        }
        self.finish(key, follow_up, outcome);
        self.pump();
    }

    /// Job `key` is done; `follow_up`, if any, continues it (waiters then
    /// wait for that instead), else `outcome` tells waiters what came of
    /// the pane.
    fn finish(&mut self, key: u64, follow_up: Option<u64>, outcome: Option<(PaneId, bool)>) {
        for w in &mut self.waiters {
            if w.ids.remove(&key) {
                match (follow_up, outcome) {
                    (Some(next), _) => {
                        w.ids.insert(next);
                    }
                    (None, Some(o)) => {
                        // Never full (room for one per pane), and never
                        // waited on: a request that gave up is no reason
                        // to stall the watch.
                        let _ = w.outcomes.try_send(o);
                    }
                    (None, None) => {}
                }
            }
        }
        let (done, open): (Vec<Waiter>, Vec<Waiter>) = std::mem::take(&mut self.waiters)
            .into_iter()
            .partition(|w| w.ids.is_empty());
        self.waiters = open;
        for w in done {
            let _ = w.reply.send(());
        }
    }

    /// A seed's line is answered: its slot frees and the pane is no longer
    /// being seeded.
    fn seed_done(&mut self, pane: PaneId) {
        self.free_slot();
        self.seeding.remove(&pane);
    }

    /// A seed's line is answered: another may go.
    fn free_slot(&mut self) {
        self.seeds_out -= 1;
        if self.seeds_out == 0 {
            // Another session's seeds may go now (this one queues again
            // behind them).
            self.seed_permit = None;
        }
    }

    /// Starts reading the history a seed line left in buffer `name`.
    fn fetch(&mut self, pane: PaneId, name: String, f: Fetching) {
        let key = f.key;
        self.fetching.insert(pane, f);
        let tx = self.fetched_tx.clone();
        let (shared, client) = (self.shared.clone(), self.client.clone());
        tokio::spawn(async move {
            let bytes = shared.fetch_history(&client, &name).await;
            let _ = tx.send((pane, FetchFor::Seed(key), bytes)).await;
        });
    }

    /// When the next check of a copy's rows may start, if one waits and
    /// nothing else is out.
    fn verify_due(&self) -> Option<tokio::time::Instant> {
        let &(_, queued, _) = self.verify_queue.front()?;
        if self.verifying
            || self.seeds_out > 0
            || !self.fetching.is_empty()
            || !self.seed_queue.is_empty()
        {
            return None;
        }
        let after = self.shared.verify_after;
        let idle = self.shared.last_used() + after;
        let at = tokio::time::Instant::from_std(idle.min(queued + after * VERIFY_AT_LATEST));
        Some(self.verify_not_before.map_or(at, |n| at.max(n)))
    }

    /// Sends the check of the next copy whose history was laid out, when
    /// requests have paused (or it waited long enough) and no seed is out.
    fn start_verify(&mut self) {
        let Some(&(pane, queued, tries)) = self.verify_queue.front() else {
            return;
        };
        let after = self.shared.verify_after;
        if self.shared.last_used().elapsed() < after && queued.elapsed() < after * VERIFY_AT_LATEST
        {
            return;
        }
        let Ok(permit) = self.shared.seed_slots.clone().try_acquire_owned() else {
            // Another session seeds or checks: look again shortly.
            self.verify_not_before =
                Some(tokio::time::Instant::now() + std::time::Duration::from_millis(100));
            return;
        };
        self.verify_not_before = None;
        self.verify_queue.pop_front();
        let live = self.shared.pane(pane).is_some_and(|p| {
            let st = p.view();
            st.status == Status::Live && st.owner == Some(self.session)
        });
        if !live {
            return;
        }
        let name = format!("tmuxwire-{}", crate::control::format::nonce());
        let line = seed::verify_line(pane, &name);
        if self
            .send(
                line,
                Job::Verify {
                    pane,
                    at: self.window(pane),
                    tries,
                    name,
                    permit,
                },
            )
            .is_some()
        {
            self.verifying = true;
        }
    }

    /// A check of a copy's history rows came back: a copy whose rows
    /// differ from tmux's is seeded again, with its rows captured.
    fn verified(
        &mut self,
        pane: PaneId,
        digests: &[u64],
        size: usize,
        bytes: Result<Vec<u8>, String>,
    ) {
        self.verifying = false;
        let rows = match bytes {
            Ok(b) if b.len() == size => b,
            Ok(b) => {
                tracing::debug!(%pane, got = b.len(), size, "history rows buffer of the wrong size");
                return;
            }
            Err(e) => {
                tracing::debug!(%pane, %e, "could not read the history rows");
                return;
            }
        };
        let rows = if rows == crate::control::buffer::EMPTY.as_bytes() {
            Vec::new()
        } else {
            rows
        };
        if crate::term::history_rows_match(digests, &rows) {
            tracing::debug!(%pane, rows = digests.len(), "history rows match tmux's");
            return;
        }
        tracing::debug!(%pane, "history rows differ from tmux's; seeding with the rows captured");
        self.exact.insert(pane);
        if let Some(p) = self.shared.pane(pane) {
            {
                let mut st = p.write();
                if st.owner == Some(self.session) && st.status == Status::Live {
                    st.status = Status::Stale;
                }
            }
            p.changed();
        }
        self.scanners.remove(&pane);
        self.seed(pane, 1);
    }

    /// Deletes a history buffer no copy will be built from.
    fn drop_buffer(&self, name: String) {
        let endpoint = self.shared.endpoint.clone();
        let timeout = self.shared.fetch_timeout;
        tokio::spawn(async move {
            let delete: [&str; 3] = ["delete-buffer", "-b", &name];
            let _ = endpoint.run_command(&delete, timeout).await;
        });
    }

    /// A history read came back: builds the copy, then applies the output
    /// held meanwhile.
    fn fetched(&mut self, pane: PaneId, key: u64, bytes: Result<Vec<u8>, String>) {
        if self.fetching.get(&pane).is_none_or(|f| f.key != key) {
            return;
        }
        let Some(f) = self.fetching.remove(&pane) else {
            return;
        };
        self.seeding.remove(&pane);
        let mut follow_up = None;
        let mut outcome = None;
        if self.paused.remove(&pane) || f.held.overflowed {
            // tmux dropped output (or too much came meanwhile): seed (and
            // resume) again.
            follow_up = self.seed(pane, f.attempt);
        } else {
            let history = match bytes {
                Ok(b) => Some(b),
                Err(e) => {
                    tracing::debug!(%pane, %e, "could not read the history buffer");
                    None
                }
            };
            let (ok, redo) = self.apply_seed(pane, f.reply, f.continued, f.exact, history);
            if redo {
                follow_up = self.seed(pane, 1);
            } else {
                self.apply_held(pane, &f.held);
                outcome = Some((pane, ok));
            }
        }
        self.finish(key, follow_up, outcome);
        self.pump();
    }

    /// Builds `pane`'s copy from a seed's answer (and history); returns
    /// whether the copy is usable (live or dead), and whether the pane
    /// must be seeded again with the exact line (its history did not lay
    /// out as tmux's rows).
    fn apply_seed(
        &mut self,
        pane: PaneId,
        reply: crate::control::client::Reply,
        continued: bool,
        exact: bool,
        history: Option<Vec<u8>>,
    ) -> (bool, bool) {
        let Some(p) = self.shared.pane(pane) else {
            return (false, false);
        };
        let first = p
            .view()
            .term
            .as_ref()
            .map_or(crate::term::LineIndex(0), |t| t.history().first_index());
        let opts = seed::SeedOptions {
            rules: self.shared.rules,
            first,
        };
        let started = std::time::Instant::now();
        let bytes: usize = reply.blocks.iter().map(|b| b.body.len()).sum::<usize>()
            + history.as_ref().map_or(0, Vec::len);
        let recipe = if exact {
            self.shared.recipe.exact()
        } else {
            self.shared.recipe
        };
        let built = seed::build(reply, &recipe, continued, &opts, history);
        if let Ok(b) = &built {
            // Before the copy is shared: the first search then reads
            // summaries instead of making them.
            b.term.history().summarize_sealed();
        }
        tracing::debug!(%pane, bytes, took = ?started.elapsed(), "seed answer built");
        let mut redo = false;
        let mut built = built;
        if let Ok(b) = built.as_mut() {
            // The lines the new copy shares with the old one keep their
            // indexes.
            let old = p.view();
            if let Some(old) = old.term.as_ref() {
                let first = follow::continued_first(old, &b.term);
                b.term.renumber_lines(first);
            }
        }
        match built {
            Ok(built) => {
                let mut st = p.write();
                if st.owner != Some(self.session) {
                    return (false, false);
                }
                tracing::debug!(%pane, dead = built.dead, "seeded");
                let mut term = built.term;
                term.seeded_now(super::clock_us());
                // The numbering continues (`opts.first`): the command
                // table, cwd and title carry over, and the modes the seed
                // could not read.
                if let Some(old) = st.term.as_ref() {
                    term.adopt_state(old);
                }
                st.term = Some(term);
                st.epoch += 1;
                self.scanners.remove(&pane);
                st.status = if built.dead {
                    Status::Dead
                } else {
                    Status::Live
                };
                st.exit_status = built.exit_status;
                st.seeded_at = Some(std::time::Instant::now());
                st.bytes_applied = 0;
                let laid_out = !exact
                    && seed::needs_verify(&recipe)
                    && st.term.as_ref().is_some_and(|t| t.history_size() > 0);
                if laid_out && !self.verify_queue.iter().any(|(q, ..)| *q == pane) {
                    self.verify_queue
                        .push_back((pane, std::time::Instant::now(), 0));
                }
            }
            Err(seed::SeedFailure::Gone) => {
                let mut st = p.write();
                if st.term.is_some() {
                    st.status = Status::Dead;
                } else {
                    drop(st);
                    self.shared.forget(pane);
                }
            }
            Err(seed::SeedFailure::Layout(why)) if !exact => {
                tracing::debug!(%pane, %why, "history did not lay out as tmux's rows; seeding exactly");
                self.exact.insert(pane);
                redo = true;
            }
            Err(e) => {
                tracing::debug!(%pane, ?e, "could not build a copy from the seed");
                let mut st = p.write();
                st.status = if st.term.is_some() {
                    Status::Stale
                } else {
                    Status::Unseeded
                };
            }
        }
        p.changed();
        let ok = matches!(p.view().status, Status::Live | Status::Dead);
        (ok && !redo, redo)
    }

    /// Takes the server's pane list, asked at `sent`: adopts and seeds new
    /// panes of this session, releases panes no longer shown here, and
    /// marks panes that no longer exist anywhere as dead (only copies
    /// seeded before `sent`: [`super::PaneMirror::mark_dead_if_seeded_before`]).
    fn adopt(&mut self, reply: &crate::control::client::Reply, sent: std::time::Instant) {
        let Some(listing) = probe::parse_list(reply, &self.shared.query) else {
            return;
        };
        let mut to_seed = Vec::new();
        let all: HashSet<PaneId> = listing.iter().map(|e| e.pane).collect();
        let sessions: HashSet<SessionId> = listing.iter().map(|e| e.session).collect();
        self.shared
            .sessions_seen
            .send_replace(sessions.into_iter().collect());
        let ours: HashSet<PaneId> = listing
            .iter()
            .filter(|e| e.session == self.session)
            .map(|e| e.pane)
            .collect();
        for e in listing.iter().filter(|e| e.session == self.session) {
            let p = self.shared.pane_or_new(e.pane);
            let mut st = p.write();
            if st.owner.is_none() {
                st.owner = Some(self.session);
            }
            if st.owner == Some(self.session) {
                st.meta = e.meta.clone();
                if e.dead {
                    st.exit_status = e.exit_status;
                }
                // A resize makes tmux reflow the pane: its copy must be
                // seeded again (and is not followed meanwhile).
                let resized = st.term.as_ref().is_some_and(|t| t.size() != e.size);
                if resized && st.status == Status::Live {
                    st.status = Status::Stale;
                }
                // Listed with its program running, so not gone (ids are never
                // reused): a copy taken for dead (its program since
                // respawned, or marked by a listing older than the pane) is
                // seeded again.
                if !e.dead && st.status == Status::Dead {
                    st.status = Status::Stale;
                }
                if matches!(st.status, Status::Unseeded | Status::Stale)
                    && !self.seeding.contains_key(&e.pane)
                {
                    to_seed.push(e.pane);
                }
            }
            drop(st);
            p.changed();
        }
        for (id, p) in self.shared.panes() {
            if !all.contains(&id) {
                // Gone from the server: keep the copy as the pane's last
                // words.
                p.mark_dead_if_seeded_before(Some(sent));
                continue;
            }
            let mut st = p.write();
            if st.owner == Some(self.session) && !ours.contains(&id) {
                // Shown elsewhere only: another watch takes it over.
                st.owner = None;
                if st.status == Status::Live {
                    st.status = Status::Stale;
                }
                drop(st);
                p.changed();
            }
        }
        for pane in to_seed {
            self.seed(pane, 1);
        }
    }

    /// Gives up ownership of every pane (the connection is gone).
    fn release(&self) {
        for (_, p) in self.shared.panes() {
            let mut st = p.write();
            if st.owner == Some(self.session) {
                st.owner = None;
                if st.status == Status::Live {
                    st.status = Status::Stale;
                }
                drop(st);
                p.changed();
            }
        }
    }

    fn client_close(&self) {
        let c = self.client.clone();
        tokio::spawn(async move { c.close().await });
    }
}
