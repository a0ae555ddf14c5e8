//! The pane mirror: tmuxwire's own copy of every watched pane, built by a
//! [`Term`](crate::term::Term) from the output tmux sends control clients,
//! so search and capture are answered from memory.
//!
//! # Brief overview
//!
//! tmux sends `%output` only for the panes of the session a control
//! client is attached to, so the mirror keeps one control connection per
//! session ([`watch`]), attached without resizing anything and with
//! `pause-after` set, and one [`PaneMirror`] per pane (a pane shown in
//! several sessions has one copy, fed by one connection). A pane is
//! *seeded* from what tmux reports about it, read in one command line on
//! the connection that then feeds it ([`seed`]); only output that arrives
//! after that answer is applied. Following a pane takes a seed of its
//! screen only ([`seed::Depth::Screen`], cheap whatever its history); its
//! history is read when a request first needs it (a search, a capture of
//! the history, `capture_since`), and from then on ([`Want`]).
//!
//! Before a request is answered, each copy it reads is *fenced*: one
//! command per session, whose answer comes after every byte of output
//! tmux parsed before it ran, and whose records (size, history size,
//! cursor, screen) must agree with the copy, or the copy is seeded again
//! ([`probe::fence_line`]); `%pause` (tmux dropped output) seeds again too.
//! Checks of what a fence does not compare (the visible rows, the rows of
//! a history laid out from its lines) run in the background, while no
//! request is in flight, a small piece at a time ([`watch`]).
//!
//! A pane whose program exits and whose pane, window or session vanishes
//! keeps its copy, marked dead, so it can still be searched and captured.
//!
//! # Lifetime and cost
//!
//! The mirror starts on the first request to a server (the MCP server's
//! [`crate::tmux::op::run`]), follows every pane from then on
//! ([`Mirror::follow_all`]; new panes and sessions included) while
//! tmuxwire runs, or until it has been idle for
//! [`MirrorOptions::idle_stop`]. Each watched session has one more
//! control client attached: see the README for what that means for the
//! user's server. A followed pane costs a copy of its screen and of what
//! it prints from then on; a pane whose history a request read costs a
//! copy of that history too.
//!
//! # Layout
//!
//! * [`pane`]: a copy and its state, and how readers see it (a view in
//!   place for short reads, a snapshot for scans and captures).
//! * [`watch`]: one session's connection and its event loop.
//! * [`seed`]: the seed command line and building a copy from its answer.
//! * [`probe`]: listing panes, fencing and checking copies.
//! * [`flood`]: pausing a flooding pane nobody waits on, and seeding it
//!   again once it settles.
//! * [`scan`]: searching a copy (its history chunks, then its screen).
//! * [`marks`]: finding `run_command`'s marks in a pane's output.
//! * [`echo`]: telling the echo of typed input from output.
//! * [`lines`]: a copy read by logical line: where the cursor is, new lines since an index, text between two places.
//!
//! # Who waits for whom
//!
//! Each copy sits behind a `std` read-write lock that its session's
//! watch task takes to apply output. Readers hold it only for short
//! reads ([`PaneMirror::view`]) or for as long as a snapshot takes to
//! copy the screen and the newest history chunk
//! ([`PaneMirror::snapshot`]); scans and captures run over the snapshot,
//! so output is never held up behind them. Waiters are woken after the
//! lock is released. The map of watches (a tokio mutex) is held to look
//! up or insert a watch, never across a connect or a close.

pub mod echo;
pub mod flood;
pub mod lines;
pub mod marks;
pub mod pane;
pub mod probe;
pub mod scan;
pub mod seed;
mod watch;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

pub use pane::{Mark, PaneMeta, PaneMirror, PaneMode, PaneState, PaneView, Status};
pub use watch::FULL_CHECK_EVERY;

/// The mirror's clock: µs since its first use in this process
/// (monotonic). Each copy is told it before output is applied
/// ([`crate::term::Term::set_now`]), so command records, output and
/// screen-change times ([`crate::term::ScreenState`]) are on it;
/// [`instant_of`] turns one back into an [`std::time::Instant`].
pub fn clock_us() -> u64 {
    clock_us_at(std::time::Instant::now())
}

/// [`clock_us`] at `at` (0 before the clock's first use).
pub fn clock_us_at(at: std::time::Instant) -> u64 {
    let origin = *CLOCK_ORIGIN.get_or_init(std::time::Instant::now);
    u64::try_from(at.saturating_duration_since(origin).as_micros()).unwrap_or(u64::MAX)
}

/// The [`std::time::Instant`] of a [`clock_us`] reading.
pub fn instant_of(us: u64) -> std::time::Instant {
    let origin = *CLOCK_ORIGIN.get_or_init(std::time::Instant::now);
    origin + std::time::Duration::from_micros(us)
}

static CLOCK_ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

use crate::control::buffer::buffer_encoding;
use crate::control::{Client, ClientOptions, Command, Encoding, PaneId, SessionId};
use crate::term::Rules;
use crate::wire::{self, ControlOptions, TmuxVersion};
use watch::{Driver, WatchCmd};

/// How long a sync waits for fences of copies that are already live.
pub const CHECK_DEADLINE: Duration = Duration::from_secs(2);

/// What a request needs of the copies it syncs ([`Mirror::sync_within`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// The pane is followed: its copy exists and is fed its output (a
    /// copy of its screen at least: [`seed::Depth::Screen`]). No round
    /// trip for a copy already followed.
    Followed,
    /// [`Want::Followed`], and fenced: the copy holds everything its pane
    /// printed before the request (one round trip per session, whatever
    /// the number of panes; see [`watch`]).
    Current,
    /// [`Want::Current`], with the pane's whole history: a copy of the
    /// screen only is filled first, and the pane is seeded in full from
    /// then on.
    History,
    /// [`Want::History`] for a request that reads only the copies' text
    /// (a search). Its fence leaves out each pane's mode and copy-mode
    /// scroll, the dearest fields for tmux to format
    /// ([`probe::fence_line`]), and the copy keeps the mode it knew.
    /// Within [`FULL_CHECK_EVERY`] of the last such fence of a watch, and
    /// with no call since that may have changed a pane
    /// ([`Mirror::note_change`]), the fence is one line of constant cost
    /// instead ([`probe::barrier_line`]): the copies hold all their panes
    /// printed before the request, and what tmux changes without output or
    /// notification is seen by the next full fence.
    Text,
    /// [`Want::Current`] for a copy no live watch feeds; a copy a live
    /// watch feeds is taken as it is, without the round trip that proves
    /// it current (a call's `fenced: false`), so it may lag the pane by
    /// what is still on its way (a remote host's link).
    AsIs,
}

impl Want {
    /// [`Want::AsIs`] for a call that takes copies as they are (`as_is`:
    /// `fenced: false`), else [`Want::Current`].
    pub fn current(as_is: bool) -> Want {
        if as_is { Want::AsIs } else { Want::Current }
    }

    /// Whether the pane's whole history is wanted ([`Want::History`],
    /// [`Want::Text`]).
    pub fn history(self) -> bool {
        matches!(self, Want::History | Want::Text)
    }
}

/// Where long operations report how far they got: `(done, total, what)`
/// (MCP progress notifications, when the client asked for them).
pub type Progress = Arc<dyn Fn(u64, u64, &str) + Send + Sync>;

/// How the mirror behaves.
#[derive(Clone, Debug)]
pub struct MirrorOptions {
    /// Whether to mirror at all (the CLI's one-shot commands do not).
    pub enabled: bool,
    /// Stop watching (and drop every copy) after this long without a
    /// request; `None`: watch while tmuxwire runs.
    pub idle_stop: Option<Duration>,
    /// Bytes all copies may hold together; beyond it the oldest history
    /// of the largest copies is dropped (and reported).
    pub memory_cap: usize,
    /// tmux's `pause-after` for the watch connections, in seconds: output
    /// that waits longer in tmux is dropped and the pane seeded again.
    pub pause_after: u32,
    /// How long a sync may take before requests answer without it.
    pub sync_timeout: Duration,
    /// How long requests must pause before checks nobody waits for run:
    /// of a copy whose history was laid out from its lines (tmux < 3.7)
    /// against tmux's rows (such a copy waits at most 20 times this while
    /// requests keep coming), and of copies' visible rows. Each check is
    /// a piece small enough to hold no output up by more than a
    /// millisecond or two.
    pub verify_after: Duration,
    /// How long the copy of a pane that is gone is kept (it still answers
    /// `capture_since`, `capture_pane` and `search_panes` meanwhile).
    pub dead_ttl: Duration,
    /// Copies of gone panes kept at most: beyond it, the longest dead go
    /// first.
    pub dead_keep: usize,
    /// Bytes the copies of gone panes may hold together: beyond it, the
    /// longest dead go first.
    pub dead_bytes: usize,
}

impl Default for MirrorOptions {
    fn default() -> Self {
        MirrorOptions {
            enabled: true,
            idle_stop: None,
            memory_cap: 1 << 30,
            pause_after: 5,
            sync_timeout: Duration::from_secs(20),
            verify_after: Duration::from_millis(500),
            dead_ttl: Duration::from_secs(600),
            dead_keep: 64,
            dead_bytes: 64 << 20,
        }
    }
}

/// Copies of gone panes dropped, remembered so an answer about one can
/// say why it has no copy (the newest [`DROPPED_KEPT`]).
const DROPPED_KEPT: usize = 4096;

/// Why a gone pane's copy was dropped ([`Mirror::dropped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// It was dead for [`MirrorOptions::dead_ttl`].
    Aged(Duration),
    /// Newer dead copies filled [`MirrorOptions::dead_keep`].
    Count(usize),
    /// Newer dead copies filled [`MirrorOptions::dead_bytes`].
    Bytes(usize),
}

/// The copies of gone panes to drop, and why: `copies` are `(first seen
/// dead, pane, bytes of text)`, newest dead first. The newest are kept:
/// a copy is dropped once it has been dead for `dead_ttl`, when
/// `dead_keep` newer ones are kept, or when it does not fit in
/// `dead_bytes` with the newer ones kept, and then every older one is
/// dropped too (a smaller older copy is never kept over a newer one).
fn choose_dropped(
    copies: &[(Instant, PaneId, usize)],
    opts: &MirrorOptions,
    now: Instant,
) -> Vec<(PaneId, Dropped)> {
    let (mut kept, mut kept_bytes, mut over_bytes) = (0usize, 0usize, false);
    let mut gone = Vec::new();
    for &(since, id, bytes) in copies {
        let why = if now.duration_since(since) >= opts.dead_ttl {
            Some(Dropped::Aged(opts.dead_ttl))
        } else if kept >= opts.dead_keep {
            Some(Dropped::Count(opts.dead_keep))
        } else if over_bytes || kept_bytes + bytes > opts.dead_bytes {
            over_bytes = true;
            Some(Dropped::Bytes(opts.dead_bytes))
        } else {
            kept += 1;
            kept_bytes += bytes;
            None
        };
        if let Some(why) = why {
            gone.push((id, why));
        }
    }
    gone
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dropped::Aged(d) => write!(
                f,
                "tmuxwire dropped its last copy {} s after the pane went (dead-pane TTL)",
                d.as_secs()
            ),
            Dropped::Count(n) => write!(
                f,
                "tmuxwire dropped its last copy to keep {n} copies of gone panes at most"
            ),
            Dropped::Bytes(b) => write!(
                f,
                "tmuxwire dropped its last copy to keep copies of gone panes within {} MiB",
                b >> 20
            ),
        }
    }
}

/// The mirror's record of copies of gone panes: since when each is dead
/// (as first seen by the housekeeping), and which were dropped.
#[derive(Debug, Default)]
struct DeadCopies {
    since: HashMap<PaneId, Instant>,
    dropped: std::collections::VecDeque<(PaneId, Dropped)>,
    dropped_total: u64,
    /// Entries with no copy that no watch feeds, seen at the last
    /// housekeeping ([`Mirror::forget_orphans`]).
    orphans: HashSet<PaneId>,
}

/// Which panes [`Mirror::dead_in`] looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every pane of the server.
    Server,
    /// The panes a session showed.
    Session(SessionId),
}

/// What every watch shares: the copies, and how to read tmux.
#[derive(Debug)]
pub(crate) struct MirrorShared {
    panes: Mutex<HashMap<PaneId, Arc<PaneMirror>>>,
    pub(crate) encoding: Encoding,
    pub(crate) rules: Rules,
    pub(crate) recipe: seed::Recipe,
    pub(crate) query: probe::Queries,
    /// The server, for the one-shot clients that read seeds' history
    /// buffers locally ([`MirrorShared::fetch_history`]).
    pub(crate) endpoint: wire::Endpoint,
    /// How long reading one history buffer may take.
    pub(crate) fetch_timeout: Duration,
    /// When a request last used the mirror: work that can wait (checking
    /// copies against tmux) waits until requests pause.
    pub(crate) last_use: Mutex<Instant>,
    /// Requests in flight ([`Mirror::busy`]): nothing waits for a pause
    /// while one runs.
    active: std::sync::atomic::AtomicUsize,
    /// [`MirrorOptions::verify_after`].
    pub(crate) verify_after: Duration,
    bytes_fed: AtomicU64,
    /// Lines of checks nobody waited for sent so far
    /// ([`Mirror::background_lines`]).
    background_lines: AtomicU64,
    /// [`Mirror::layout_generation`]: bumped by each notification that
    /// may change which panes exist or how tmux names and numbers them,
    /// and by each watch that starts or ends.
    layout_gen: AtomicU64,
    /// [`Mirror::note_change`]: bumped by each call that may have changed
    /// a pane without output.
    changes: AtomicU64,
    /// The sessions the last listing showed (every listing is of the
    /// whole server), for the manager to watch. Only the newest matters,
    /// so it is one value, replaced by each listing: a manager busy
    /// connecting never has reports piling up behind it.
    pub(crate) sessions_seen: tokio::sync::watch::Sender<Vec<SessionId>>,
    /// Seeds out at once over all watches ([`watch::SEEDS_AT_ONCE`]): a
    /// seed of a long history holds tens of megabytes of answer while its
    /// copy is built, and tmux renders one capture at a time anyway.
    pub(crate) seed_slots: Arc<tokio::sync::Semaphore>,
    /// Copies read and built at once over all watches
    /// ([`watch::BUILDS_AT_ONCE`]), each from its seed's answer to its
    /// copy.
    pub(crate) build_slots: tokio::sync::Semaphore,
    dead: Mutex<DeadCopies>,
}

impl MirrorShared {
    /// What the watches of a mirror of `endpoint` (a server of
    /// `version`) share, with no copies yet, and the receiver of its
    /// [`MirrorShared::sessions_seen`].
    fn new(
        endpoint: wire::Endpoint,
        version: &TmuxVersion,
        opts: &MirrorOptions,
    ) -> (MirrorShared, tokio::sync::watch::Receiver<Vec<SessionId>>) {
        let (sessions_seen, seen) = tokio::sync::watch::channel(Vec::new());
        let shared = MirrorShared {
            panes: Mutex::new(HashMap::new()),
            encoding: buffer_encoding(version),
            rules: Rules::for_version(version),
            recipe: seed::Recipe::for_version(version, buffer_encoding(version)),
            query: probe::Queries::new(),
            endpoint,
            fetch_timeout: opts.sync_timeout,
            last_use: Mutex::new(Instant::now()),
            active: std::sync::atomic::AtomicUsize::new(0),
            verify_after: opts.verify_after,
            bytes_fed: AtomicU64::new(0),
            background_lines: AtomicU64::new(0),
            layout_gen: AtomicU64::new(0),
            changes: AtomicU64::new(0),
            sessions_seen,
            seed_slots: Arc::new(tokio::sync::Semaphore::new(watch::SEEDS_AT_ONCE)),
            build_slots: tokio::sync::Semaphore::new(watch::BUILDS_AT_ONCE),
            dead: Mutex::new(DeadCopies::default()),
        };
        (shared, seen)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PaneId, Arc<PaneMirror>>> {
        self.panes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads and deletes a seed's history buffer: with a one-shot client
    /// locally, over the watch's own connection `client` for a server on
    /// another host ([`seed::fetch_history_for`]).
    pub(crate) async fn fetch_history(
        &self,
        client: &Client,
        name: &str,
    ) -> Result<Vec<u8>, String> {
        seed::fetch_history_for(&self.endpoint, name, self.fetch_timeout, async || {
            let line = seed::fetch_line(name, self.encoding);
            match client.lines(std::slice::from_ref(&line)).await.pop() {
                Some(answer) => answer.map_err(|e| e.to_string()),
                None => Err("tmux gave no answer to show-buffer".into()),
            }
        })
        .await
    }

    pub(crate) fn pane(&self, id: PaneId) -> Option<Arc<PaneMirror>> {
        self.lock().get(&id).cloned()
    }

    pub(crate) fn pane_or_new(&self, id: PaneId) -> Arc<PaneMirror> {
        self.lock()
            .entry(id)
            .or_insert_with(|| PaneMirror::new(id))
            .clone()
    }

    pub(crate) fn panes(&self) -> Vec<(PaneId, Arc<PaneMirror>)> {
        self.lock().iter().map(|(k, v)| (*k, v.clone())).collect()
    }

    pub(crate) fn forget(&self, id: PaneId) {
        self.lock().remove(&id);
    }

    /// When a request last used the mirror.
    pub(crate) fn last_used(&self) -> Instant {
        *self.last_use.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes that a request used the mirror now.
    fn touch(&self) {
        *self.last_use.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// Whether no request is in flight and none used the mirror for
    /// `after`, at `now`.
    pub(crate) fn idle_for(&self, after: Duration, now: Instant) -> bool {
        self.active.load(Ordering::Relaxed) == 0
            && now.saturating_duration_since(self.last_used()) >= after
    }

    /// When the mirror will have been idle for `after` if no request
    /// comes (while one is in flight: `after` from `now`, to look again).
    pub(crate) fn idle_at(&self, after: Duration, now: Instant) -> Instant {
        if self.active.load(Ordering::Relaxed) > 0 {
            now + after
        } else {
            self.last_used() + after
        }
    }

    pub(crate) fn note_bytes(&self, n: usize) {
        self.bytes_fed.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub(crate) fn note_background_line(&self) {
        self.background_lines.fetch_add(1, Ordering::Relaxed);
    }

    /// A watch saw (or may have missed) a change of the panes' layout or
    /// names ([`Mirror::layout_generation`]).
    pub(crate) fn note_layout(&self) {
        self.layout_gen.fetch_add(1, Ordering::AcqRel);
    }

    /// [`Mirror::note_change`].
    pub(crate) fn note_change(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    /// [`Mirror::layout_generation`].
    pub(crate) fn layout_generation(&self) -> u64 {
        self.layout_gen.load(Ordering::Acquire)
    }

    /// [`Mirror::changes`].
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }
}

/// The mirror's housekeeping: watch sessions the watches report, keep
/// memory under the cap, stop after the idle time.
async fn manage(
    mirror: std::sync::Weak<Mirror>,
    mut seen: tokio::sync::watch::Receiver<Vec<SessionId>>,
) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            changed = seen.changed() => {
                if changed.is_err() {
                    return;
                }
                let sessions = seen.borrow_and_update().clone();
                let Some(m) = mirror.upgrade() else { return };
                for s in sessions {
                    if let Err(e) = m.watch(s).await {
                        tracing::debug!(%e, "cannot watch a new session");
                    }
                }
            }
            _ = tick.tick() => {
                let Some(m) = mirror.upgrade() else { return };
                if m.idle() {
                    if !m.shared.panes().is_empty() {
                        tracing::debug!("mirror idle: stopping");
                        m.stop().await;
                    }
                    continue;
                }
                m.enforce_cap();
                m.enforce_dead();
                m.forget_orphans();
                m.forget_closed_watches().await;
            }
        }
    }
}

/// Commands queued for one watch at most. Each is a request's sync
/// (one per request and session), and the watch takes each at once (it
/// only queues the lines the sync needs), so the queue is short; a
/// request that finds it full waits for room ([`Mirror::sync_with`]).
const WATCH_COMMANDS: usize = 64;

struct WatchHandle {
    cmds: mpsc::Sender<WatchCmd>,
    client: Client,
}

/// The mirror of one tmux server.
pub struct Mirror {
    path: PathBuf,
    endpoint: wire::Endpoint,
    /// When a watch was last refused by the ssh connection's session limit
    /// (`MaxSessions`), and ssh's words ([`Mirror::session_limit`]).
    refused: Mutex<Option<(Instant, String)>>,
    version: TmuxVersion,
    opts: MirrorOptions,
    shared: Arc<MirrorShared>,
    watches: tokio::sync::Mutex<HashMap<SessionId, WatchHandle>>,
    /// Set once every pane of the server was followed
    /// ([`Mirror::follow_all`]); the watches follow new ones from then on.
    following_all: std::sync::atomic::AtomicBool,
    /// Held by the request that follows every pane, so others wait for it
    /// rather than do it again.
    following: tokio::sync::Mutex<()>,
}

/// A request in flight ([`Mirror::busy`]), until dropped.
#[derive(Debug)]
pub struct Busy(Arc<MirrorShared>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Why a watch could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("could not watch session {session}: {why}")]
pub struct WatchError {
    session: SessionId,
    why: String,
}

impl Mirror {
    /// A mirror of the server at `path` (nothing is watched yet), and its
    /// manager task: it watches every session the watches see in their
    /// listings (so a new session is followed from its start), enforces
    /// [`MirrorOptions::memory_cap`], and stops everything after
    /// [`MirrorOptions::idle_stop`]. The task ends with the mirror.
    pub fn new(endpoint: wire::Endpoint, version: TmuxVersion, opts: MirrorOptions) -> Arc<Mirror> {
        let path = endpoint.path();
        let (shared, seen) = MirrorShared::new(endpoint.clone(), &version, &opts);
        let m = Arc::new(Mirror {
            shared: Arc::new(shared),
            path,
            endpoint,
            refused: Mutex::new(None),
            version,
            opts,
            watches: tokio::sync::Mutex::new(HashMap::new()),
            following_all: std::sync::atomic::AtomicBool::new(false),
            following: tokio::sync::Mutex::new(()),
        });
        tokio::spawn(manage(Arc::downgrade(&m), seen));
        m
    }

    /// Bytes all copies hold together.
    pub fn bytes(&self) -> usize {
        self.shared
            .panes()
            .iter()
            .map(|(_, p)| p.view().bytes())
            .sum()
    }

    /// Drops the oldest history of the largest copies until all of them
    /// together fit in [`MirrorOptions::memory_cap`]; what a copy lost is
    /// counted in its `capped` rows.
    fn enforce_cap(&self) {
        let cap = self.opts.memory_cap;
        let mut total = self.bytes();
        if total <= cap {
            return;
        }
        let mut panes = self.shared.panes();
        panes.sort_by_key(|(_, p)| std::cmp::Reverse(p.view().bytes()));
        for (_, p) in panes {
            if total <= cap {
                break;
            }
            let mut st = p.write();
            let before = st.bytes();
            let Some(t) = st.term.as_mut() else { continue };
            let rows = t.history_size();
            // Drop a quarter of this copy's history at a time.
            let n = (rows / 4).max(1).min(rows);
            t.drop_oldest_history(n);
            st.capped_rows += n as u64;
            total -= before.saturating_sub(st.bytes());
        }
    }

    /// Drops copies of gone panes beyond [`MirrorOptions::dead_ttl`],
    /// [`MirrorOptions::dead_keep`] and [`MirrorOptions::dead_bytes`],
    /// the longest dead first, and remembers why ([`Mirror::dropped`]).
    /// A dead pane's time starts when this first sees it dead (each
    /// second).
    fn enforce_dead(&self) {
        let now = Instant::now();
        let panes = self.shared.panes();
        let mut dead = self.shared.dead.lock().unwrap_or_else(|p| p.into_inner());
        let mut copies: Vec<(Instant, PaneId, usize)> = Vec::new();
        let mut seen = HashSet::new();
        for (id, p) in &panes {
            let st = p.view();
            if st.status() == Status::Dead && st.term().is_some() {
                let since = *dead.since.entry(*id).or_insert(now);
                copies.push((since, *id, st.bytes()));
                seen.insert(*id);
            }
        }
        dead.since.retain(|id, _| seen.contains(id));
        // Newest dead first: they are the ones kept (of those first seen
        // dead at once, the newest panes: tmux numbers them in order).
        copies.sort_by_key(|c| std::cmp::Reverse((c.0, c.1.0)));
        let gone = choose_dropped(&copies, &self.opts, now);
        if gone.is_empty() {
            return;
        }
        for &(id, why) in &gone {
            self.shared.forget(id);
            dead.since.remove(&id);
            if dead.dropped.len() == DROPPED_KEPT {
                dead.dropped.pop_front();
            }
            dead.dropped.push_back((id, why));
            dead.dropped_total += 1;
        }
        let by = |f: fn(&Dropped) -> bool| gone.iter().filter(|(_, w)| f(w)).count();
        tracing::info!(
            dropped = gone.len(),
            aged = by(|w| matches!(w, Dropped::Aged(_))),
            over_count = by(|w| matches!(w, Dropped::Count(_))),
            over_memory = by(|w| matches!(w, Dropped::Bytes(_))),
            total = dead.dropped_total,
            "dropped copies of gone panes"
        );
    }

    /// Forgets the entries that hold no copy, that no watch feeds and that
    /// no wait follows, once two housekeeping rounds in a row found them
    /// so: a pane listed or asked for whose session went before its seed
    /// was taken (the watch then let it go), which would otherwise stay in
    /// the map for ever, one per churned pane. The second look leaves alone
    /// an entry just made, which its watch owns a moment later; a pane
    /// asked for again gets a new entry.
    fn forget_orphans(&self) {
        let orphans: HashSet<PaneId> = self
            .shared
            .panes()
            .into_iter()
            .filter(|(_, p)| {
                let st = p.view();
                st.term.is_none() && st.owner.is_none() && p.subscribers() == 0
            })
            .map(|(id, _)| id)
            .collect();
        let mut dead = self.shared.dead.lock().unwrap_or_else(|p| p.into_inner());
        let mut forgotten = 0;
        for id in orphans.intersection(&dead.orphans) {
            // Looked at again under the map's lock: still no copy, no
            // owner, no waiter.
            let mut panes = self.shared.lock();
            if let Some(p) = panes.get(id) {
                let st = p.view();
                if st.term.is_none() && st.owner.is_none() && p.subscribers() == 0 {
                    drop(st);
                    panes.remove(id);
                    forgotten += 1;
                }
            }
        }
        if forgotten > 0 {
            tracing::debug!(forgotten, "forgot panes that never got a copy");
        }
        dead.orphans = orphans;
    }

    /// Why the copy of gone pane `pane` was dropped, if it was (and is
    /// among the newest 4,096 dropped).
    pub fn dropped(&self, pane: PaneId) -> Option<Dropped> {
        let dead = self.shared.dead.lock().unwrap_or_else(|p| p.into_inner());
        dead.dropped
            .iter()
            .rev()
            .find(|(id, _)| *id == pane)
            .map(|(_, why)| *why)
    }

    /// How many copies of gone panes were dropped since the mirror began.
    pub fn dropped_total(&self) -> u64 {
        let dead = self.shared.dead.lock().unwrap_or_else(|p| p.into_inner());
        dead.dropped_total
    }

    /// Forgets the watches whose connection ended (their session is
    /// gone): a long-lived server with short-lived sessions keeps none.
    async fn forget_closed_watches(&self) {
        let mut watches = self.watches.lock().await;
        watches.retain(|_, w| !w.client.is_closed() && !w.cmds.is_closed());
    }

    /// Whether nothing asked the mirror anything for
    /// [`MirrorOptions::idle_stop`].
    fn idle(&self) -> bool {
        let last = self.shared.last_used();
        self.opts.idle_stop.is_some_and(|d| last.elapsed() >= d)
    }

    /// The options.
    pub fn options(&self) -> &MirrorOptions {
        &self.opts
    }

    /// A receiver of the sessions the newest listing of the server showed
    /// (each watch lists the whole server when tmux reports a change of
    /// its panes, windows or sessions).
    pub fn sessions_seen(&self) -> tokio::sync::watch::Receiver<Vec<SessionId>> {
        self.shared.sessions_seen.subscribe()
    }

    /// The copy of `pane`, if there is one.
    pub fn pane(&self, pane: PaneId) -> Option<Arc<PaneMirror>> {
        self.shared.pane(pane)
    }

    /// Every copy (live, stale and dead).
    pub fn panes(&self) -> Vec<(PaneId, Arc<PaneMirror>)> {
        self.shared.panes()
    }

    /// Opens (or reuses) the watch of `session`.
    ///
    /// The map of watches is locked only to look and to insert, never
    /// across the connect (a handshake and two round trips, which take as
    /// long as the server takes): a sync for another session, or a stop,
    /// does not wait behind it. Two callers that open the same session at
    /// once both connect; the second to insert closes its connection and
    /// uses the first one's.
    async fn watch(&self, session: SessionId) -> Result<(), WatchError> {
        if self.watching(session).await {
            return Ok(());
        }
        let (client, events) = self.open_watch(session).await?;
        let mut watches = self.watches.lock().await;
        if let Some(w) = watches.get(&session)
            && !w.client.is_closed()
            && !w.cmds.is_closed()
        {
            drop(watches);
            client.close().await;
            return Ok(());
        }
        let (tx, rx) = mpsc::channel(WATCH_COMMANDS);
        let watch = Driver::new(session, client.clone(), self.shared.clone());
        tokio::spawn(watch.run(events, rx));
        watches.insert(session, WatchHandle { cmds: tx, client });
        Ok(())
    }

    /// Why a watch could not be opened in the last 10 s, when the ssh
    /// connection to a remote host refused another session (sshd's
    /// `MaxSessions`): a copy that could not be made for that reason says
    /// so, not that tmux was slow.
    pub fn session_limit(&self) -> Option<String> {
        let r = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        r.as_ref()
            .filter(|(at, _)| at.elapsed() < Duration::from_secs(10))
            .map(|(_, m)| m.clone())
    }

    /// How many lines of checks nobody waited for (a chunk of a laid-out
    /// history's rows, a copy's visible rows) the watches sent so far.
    pub fn background_lines(&self) -> u64 {
        self.shared.background_lines.load(Ordering::Relaxed)
    }

    /// A number that changes whenever a watch reads a notification that
    /// may change which panes exist or how tmux names and numbers them
    /// (every one but `%output`, `%extended-output`, `%pause`,
    /// `%continue`, `%pane-mode-changed`, `%window-pane-changed`,
    /// `%client-*`, `%paste-buffer-*`, `%message` and `%config-error`),
    /// and whenever a watch starts or ends (it may have missed one).
    ///
    /// A listing of the panes taken while it read `g` is still what tmux
    /// would say after a [`Want::Text`] sync that started later and after
    /// which it still reads `g`: tmux writes each notification before the
    /// answer of any command that runs after the change (see [`watch`]),
    /// and a sync waits for an answer on every watch it used. Changes tmux
    /// makes without a notification (`move-window -r`, the shuffle of
    /// `new-window -a`, `respawn-pane`'s new pid, `history-limit`) are not
    /// seen; a caller bounds how old a listing it keeps may be.
    pub fn layout_generation(&self) -> u64 {
        self.shared.layout_generation()
    }

    /// Notes that a call may have changed a pane without output (cleared
    /// its history, reset or respawned it, changed an option): the next
    /// [`Want::Text`] sync of every watch compares each copy with tmux
    /// again ([`probe::fence_line`]) instead of taking a constant fence,
    /// and a listing a caller kept is stale ([`Mirror::changes`]).
    /// [`crate::tmux::op::run`] calls it for every call that is not
    /// read-only.
    pub fn note_change(&self) {
        self.shared.note_change();
    }

    /// How many [`Mirror::note_change`]s there were.
    pub fn changes(&self) -> u64 {
        self.shared.changes()
    }

    /// Checks the history rows of `pane`'s copy against tmux's again, in
    /// the background, as after the seed that laid them out from their
    /// lines (tmux < 3.7): a chunk of [`seed::VERIFY_ROWS`] rows at a
    /// time, while no request is in flight (or once it waited
    /// [`MirrorOptions::verify_after`] twenty times). Returns whether the
    /// check was queued: not for a copy that is not live, whose history
    /// was captured as rows, or that is queued already.
    pub async fn check_history_rows(&self, pane: PaneId) -> bool {
        let Some(cmds) = self.feeder(pane).await else {
            return false;
        };
        let (reply, rx) = oneshot::channel();
        if cmds
            .send(WatchCmd::CheckHistory { pane, reply })
            .await
            .is_err()
        {
            return false;
        }
        rx.await.unwrap_or(false)
    }

    /// Has the watch that feeds `pane`'s copy list the server's panes
    /// again, as tmux's notifications make it do: the listing's
    /// `#{pane_dead}` and `#{pane_dead_status}` mark a pane tmux keeps
    /// after its program died (`remain-on-exit`, which no notification
    /// tells), and a pane no longer listed dead. Its answer comes after
    /// every byte the pane printed before. With `reap`, tmux first runs
    /// `run-shell true` as a one-shot client: it answers once that job
    /// was reaped, by the loop of `waitpid()` that reaps a pane's program
    /// too, which a tmux linked with libutempter can leave unreaped (dead,
    /// with no `#{pane_dead_status}`) until another child of tmux exits
    /// (see [`crate::tmux::wait`]'s vigil). Returns whether it was asked
    /// (not without a copy fed by an open watch).
    pub async fn list_again(&self, pane: PaneId, reap: bool) -> bool {
        if reap {
            let reaped = self
                .endpoint
                .run_command(&["run-shell", "true"], self.shared.fetch_timeout)
                .await;
            if let Err(e) = reaped {
                tracing::debug!(%pane, %e, "run-shell true (to reap) failed");
            }
        }
        match self.feeder(pane).await {
            Some(cmds) => cmds.send(WatchCmd::List).await.is_ok(),
            None => false,
        }
    }

    /// Where to send commands for the watch that feeds `pane`'s copy (its
    /// owner's), if it has one.
    async fn feeder(&self, pane: PaneId) -> Option<mpsc::Sender<WatchCmd>> {
        let session = self.shared.pane(pane).and_then(|p| p.view().owner)?;
        let watches = self.watches.lock().await;
        watches.get(&session).map(|w| w.cmds.clone())
    }

    /// Follows the panes of `session` from now on: opens its watch, which
    /// lists and seeds them at once, and follows new ones (what a request
    /// naming the session does, without waiting for the copies). Returns
    /// whether the watch is open.
    pub async fn follow_session(&self, session: SessionId) -> bool {
        match self.watch(session).await {
            Ok(()) => true,
            Err(e) => {
                tracing::debug!(%e, "cannot watch");
                false
            }
        }
    }

    /// How many sessions are watched now (each one control client).
    pub async fn watched_sessions(&self) -> usize {
        let watches = self.watches.lock().await;
        watches
            .values()
            .filter(|w| !w.client.is_closed() && !w.cmds.is_closed())
            .count()
    }

    /// Whether `session` has a watch whose connection is open.
    async fn watching(&self, session: SessionId) -> bool {
        let watches = self.watches.lock().await;
        watches
            .get(&session)
            .is_some_and(|w| !w.client.is_closed() && !w.cmds.is_closed())
    }

    /// Connects a control client attached to `session` with
    /// `pause-after` set, and takes its event stream.
    async fn open_watch(
        &self,
        session: SessionId,
    ) -> Result<(Client, mpsc::Receiver<crate::control::client::StreamEvent>), WatchError> {
        let err = |why: String| WatchError { session, why };
        let opts = ControlOptions {
            no_output: false,
            attach_target: Some(session.to_string()),
            ..ControlOptions::default()
        };
        let transport = match self
            .endpoint
            .open_control(self.version.clone(), &opts)
            .await
        {
            Ok(t) => t,
            Err(e) => {
                if let wire::Error::Ssh {
                    failure: wire::ssh::Failure::SessionLimit,
                    message,
                    ..
                } = &e
                {
                    *self.refused.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((Instant::now(), message.clone()));
                }
                return Err(err(e.to_string()));
            }
        };
        let client = Client::start(
            transport,
            ClientOptions {
                events: Some(4096),
                ..ClientOptions::default()
            },
        )
        .await
        .map_err(|e| err(e.to_string()))?;
        let events = client
            .take_events()
            .ok_or_else(|| err("no event stream".into()))?;
        // Output that waits in tmux longer than this is dropped and the
        // pane paused (we then seed it again) instead of the client being
        // disconnected as "too far behind" after five minutes.
        let pause = Command::new("refresh-client")
            .opt("-f", format!("pause-after={}", self.opts.pause_after));
        match client.command(&pause).await {
            Ok(b) if b.ok => {}
            Ok(b) => tracing::debug!(error = %b.text(), "pause-after refused"),
            Err(e) => {
                client.close().await;
                return Err(err(e.to_string()));
            }
        }
        Ok((client, events))
    }

    /// Brings the copies of `panes` (each with a session that shows it and
    /// its listing) up to what `want` says: watches their sessions, seeds
    /// what has no copy, fences (or fills) the rest and seeds again what
    /// disagrees with tmux. Returns the panes whose copies are as `want`
    /// asks (seeded, or fenced and found to agree); a caller answers the
    /// others another way.
    pub async fn sync(
        &self,
        panes: &[(PaneId, SessionId, PaneMeta)],
        want: Want,
    ) -> HashSet<PaneId> {
        self.sync_within(panes, want, None, None).await
    }

    /// [`Mirror::sync`], reporting each pane seeded or fenced to
    /// `progress` (done, total, what), and giving up after `within` at the
    /// latest (a wait with a short timeout): panes not confirmed by then
    /// are left out of the answer. Fences wait at most
    /// [`CHECK_DEADLINE`], seeds [`MirrorOptions::sync_timeout`]: a pane
    /// whose output floods the connection delays every answer on it, and
    /// its answer then comes from a capture instead.
    pub async fn sync_within(
        &self,
        panes: &[(PaneId, SessionId, PaneMeta)],
        want: Want,
        progress: Option<&Progress>,
        within: Option<Duration>,
    ) -> HashSet<PaneId> {
        self.touch();
        // A caller that takes the copies as they are: those a live watch
        // feeds answer without a round trip; the rest are synced.
        let (mut confirmed, panes, want) = if want == Want::AsIs {
            let (fed, rest): (Vec<_>, Vec<_>) = panes.iter().cloned().partition(|(pane, _, _)| {
                self.shared.pane(*pane).is_some_and(|p| {
                    let st = p.view();
                    st.status == Status::Live && st.owner.is_some()
                })
            });
            let fed = fed.iter().map(|(p, _, _)| *p).collect();
            (fed, std::borrow::Cow::Owned(rest), Want::Current)
        } else {
            (HashSet::new(), std::borrow::Cow::Borrowed(panes), want)
        };
        if panes.is_empty() {
            return confirmed;
        }
        // Group by the session whose connection feeds (or will feed) each
        // pane: its current owner, else the session it was listed in.
        let mut by_session: HashMap<SessionId, Vec<(PaneId, PaneMeta)>> = HashMap::new();
        let mut seeding = false;
        for (pane, session, meta) in panes.iter() {
            let (owner, status, partial) = self
                .shared
                .pane(*pane)
                .map(|p| {
                    let st = p.view();
                    let partial = st.term.as_ref().is_some_and(|t| t.history_absent() > 0);
                    (st.owner, st.status, partial)
                })
                .unwrap_or((None, Status::Unseeded, false));
            seeding |=
                matches!(status, Status::Unseeded | Status::Stale) || (want.history() && partial);
            by_session
                .entry(owner.unwrap_or(*session))
                .or_default()
                .push((*pane, meta.clone()));
        }
        let total = panes.len() as u64;
        let limit = if seeding {
            self.opts.sync_timeout
        } else {
            CHECK_DEADLINE
        };
        let limit = within.map_or(limit, |w| w.min(limit));
        // Every session's watch is opened at once (a connect is a
        // handshake and two round trips).
        let opened = futures::future::join_all(by_session.keys().map(|&s| async move {
            match self.watch(s).await {
                Ok(()) => Some(s),
                Err(e) => {
                    tracing::debug!(%e, "cannot watch");
                    None
                }
            }
        }))
        .await;
        let opened: HashSet<SessionId> = opened.into_iter().flatten().collect();
        // A watch tells each pane's outcome once, and never waits to do
        // so (`try_send`): room for one per pane is all it takes.
        let (tx, mut outcomes) = mpsc::channel(panes.len().max(1));
        let mut replies = Vec::new();
        for (session, list) in by_session {
            if !opened.contains(&session) {
                continue;
            }
            let cmds = {
                let watches = self.watches.lock().await;
                let Some(w) = watches.get(&session) else {
                    continue;
                };
                w.cmds.clone()
            };
            let (reply, rx) = oneshot::channel();
            let sync = WatchCmd::Sync {
                panes: list,
                want,
                reply,
                outcomes: tx.clone(),
            };
            // Sent outside the map's lock: a full queue makes this request
            // wait for its watch, no other.
            if let Ok(Ok(())) = tokio::time::timeout(limit, cmds.send(sync)).await {
                replies.push(rx);
            }
        }
        drop(tx);
        let collect = async {
            let mut done = 0;
            while let Some((pane, ok)) = outcomes.recv().await {
                done += 1;
                if ok {
                    confirmed.insert(pane);
                }
                if let Some(p) = progress {
                    p(
                        done.min(total),
                        total,
                        "bringing tmuxwire's copies of the panes up to date",
                    );
                }
            }
        };
        let all = async { futures::join!(futures::future::join_all(replies), collect) };
        if tokio::time::timeout(limit, all).await.is_err() {
            tracing::debug!("mirror sync timed out; unconfirmed panes are answered another way");
        }
        confirmed
    }

    /// [`Mirror::sync`] for panes the mirror already follows (by their
    /// owner and last listing). Returns whether every one is as `want`
    /// asks after.
    pub async fn refresh(&self, panes: &[PaneId], want: Want) -> bool {
        let known: Vec<(PaneId, SessionId, PaneMeta)> = panes
            .iter()
            .filter_map(|id| {
                let p = self.shared.pane(*id)?;
                let st = p.view();
                let session = st.owner.or_else(|| st.meta.session_id.parse().ok())?;
                Some((*id, session, st.meta.clone()))
            })
            .collect();
        if known.len() < panes.len() {
            return false;
        }
        let confirmed = self.sync(&known, want).await;
        panes.iter().all(|id| confirmed.contains(id))
    }

    fn touch(&self) {
        self.shared.touch();
    }

    /// Marks a request in flight until the guard is dropped: checks
    /// nobody waits for wait until requests pause
    /// ([`MirrorOptions::verify_after`]), and a request's own work (a
    /// long search, a capture) is not a pause.
    pub fn busy(&self) -> Busy {
        self.shared.active.fetch_add(1, Ordering::Relaxed);
        self.touch();
        Busy(self.shared.clone())
    }

    /// Whether every pane of the server was followed
    /// ([`Mirror::follow_all`]) and the watches that follow new ones are
    /// still open.
    pub async fn following_all(&self) -> bool {
        self.following_all.load(Ordering::Relaxed) && self.watched_sessions().await > 0
    }

    /// Follows every pane in `list` (each with a session showing it and
    /// its listing: every pane of the server), waiting at most `within`
    /// for their copies: the first request to reach a server calls it, so
    /// a pane is followed from the first call that names or lists it, and
    /// commands typed into it afterwards, by anyone, are in its copy. Each
    /// copy is of the screen only ([`Want::Followed`]); the watches it
    /// opens follow new panes and sessions from then on. `list` is called
    /// at most once at a time: a request that comes meanwhile waits for
    /// the first.
    pub async fn follow_all<F, Fut>(&self, list: F, within: Duration)
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Vec<(PaneId, SessionId, PaneMeta)>>,
    {
        if self.following_all().await {
            return;
        }
        let _one = self.following.lock().await;
        if self.following_all().await {
            return;
        }
        let panes = list().await;
        if panes.is_empty() {
            return;
        }
        self.sync_within(&panes, Want::Followed, None, Some(within))
            .await;
        self.following_all.store(true, Ordering::Relaxed);
    }

    /// Marks copies of panes that tmux no longer has as dead (a pane that
    /// vanished between two requests, before its watch noticed): `alive`
    /// is every pane of a listing of the whole server asked at `listed`.
    /// A copy seeded after `listed` is left as it is: its pane may be newer
    /// than the listing ([`PaneMirror::mark_dead_if_seeded_before`]).
    pub fn mark_gone(&self, alive: &std::collections::HashSet<PaneId>, listed: Instant) {
        for (id, p) in self.shared.panes() {
            if alive.contains(&id) {
                continue;
            }
            p.mark_dead_if_seeded_before(Some(listed));
        }
    }

    /// The dead copies in `scope`: panes gone from tmux whose copies hold
    /// their last text (a pane is in a session's scope when that session
    /// showed it in its last listing).
    pub fn dead_in(&self, scope: Scope) -> Vec<Arc<PaneMirror>> {
        self.shared
            .panes()
            .into_iter()
            .filter(|(_, p)| {
                let st = p.view();
                let in_scope = match scope {
                    Scope::Server => true,
                    Scope::Session(s) => st.meta.session() == Some(s),
                };
                in_scope && st.status == Status::Dead && st.term.is_some()
            })
            .map(|(_, p)| p)
            .collect()
    }

    /// Closes every watch and drops every copy (after an idle stop: the
    /// next request starts over).
    pub async fn stop(&self) {
        self.close().await;
        self.shared.lock().clear();
        self.following_all.store(false, Ordering::Relaxed);
    }

    /// Closes every watch (the copies are kept until the mirror is
    /// dropped).
    pub async fn close(&self) {
        // Taken out of the map first: closing waits for each connection
        // to end, and the map is not held across that.
        let closing: Vec<WatchHandle> = {
            let mut watches = self.watches.lock().await;
            watches.drain().map(|(_, w)| w).collect()
        };
        for w in closing {
            w.client.close().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_copies_are_dropped_oldest_first() {
        let now = Instant::now();
        let opts = MirrorOptions {
            dead_ttl: Duration::from_secs(60),
            dead_keep: 3,
            dead_bytes: 100,
            ..MirrorOptions::default()
        };
        let ago = |s| now.checked_sub(Duration::from_secs(s)).unwrap_or(now);
        let drops = |copies: &[(Instant, PaneId, usize)], want: &[(PaneId, Dropped)]| {
            assert_eq!(choose_dropped(copies, &opts, now), want);
        };
        // Newest dead first.
        drops(
            &[
                (ago(1), PaneId(9), 40),
                (ago(2), PaneId(8), 70), // does not fit with %9: it and every older one go
                (ago(3), PaneId(7), 10),
                (ago(4), PaneId(6), 10),
            ],
            &[
                (PaneId(8), Dropped::Bytes(100)),
                (PaneId(7), Dropped::Bytes(100)),
                (PaneId(6), Dropped::Bytes(100)),
            ],
        );
        // By count: the three newest stay; by age: the one dead too long goes.
        drops(
            &[
                (ago(1), PaneId(4), 1),
                (ago(2), PaneId(3), 1),
                (ago(3), PaneId(2), 1),
                (ago(4), PaneId(1), 1),
                (ago(61), PaneId(0), 1),
            ],
            &[
                (PaneId(1), Dropped::Count(3)),
                (PaneId(0), Dropped::Aged(Duration::from_secs(60))),
            ],
        );
    }
}
