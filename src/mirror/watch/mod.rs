//! One session's control connection: it receives `%output` for the panes
//! of that session (tmux sends output only for the attached session:
//! control.c `control_write_output()`), feeds the copies it owns, seeds
//! new copies, fences them for requests and checks them against tmux.
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
//!
//! # Fences
//!
//! The exception only ever brings output *early*. So the answer of any
//! command is a fence for every pane the connection feeds: once it is in,
//! each copy holds at least everything its pane printed before the
//! command ran. A request waits for one such answer per session
//! ([`probe::fence_line`], a `list-panes` of the session's panes with no
//! capture), whatever the number of panes; the records it carries say
//! whether each copy's size, history size and cursor are still tmux's (a
//! `clear-history`, a copy-mode scroll or a reset change them without
//! output). A copy whose pane printed during an ambiguous fence is fenced
//! all the same; its record is not compared.
//!
//! A search ([`Want::Text`]) asks that much only now and then: within
//! [`FULL_CHECK_EVERY`] of the watch's last such fence, and with no call
//! since that may have changed a pane ([`super::Mirror::note_change`]), it
//! waits for one line of constant cost ([`probe::barrier_line`]) whose
//! answer fences the copies and says only the layout options of the
//! session's active pane, so a search costs tmux the same whatever the
//! number of panes. A notification read before that answer (a resize, a
//! pane gone; the watch lists the panes) or an option a copy does not
//! follow (a `set -g` no output tells) makes the copies compared after
//! all. What tmux changes without output
//! or notification (another client's `clear-history`) is seen by the next
//! full fence, at most [`FULL_CHECK_EVERY`] later. Each notification that
//! may change which panes exist or how tmux names and numbers them also
//! moves [`super::Mirror::layout_generation`], which tells a search
//! whether the listing of the panes it kept is still tmux's.
//!
//! # Seeds, fills and work in the background
//!
//! A pane is first seeded at [`Depth::Screen`] (its state and screen, a
//! few kilobytes whatever its history's length): that is all following it
//! needs. Its history is read once a request needs it
//! ([`PaneState::history_wanted`](super::pane::PaneState)): the copy is
//! *filled*, seeded again at [`Depth::Full`] while it stays live, and
//! numbered so its lines end where the copy's did (a follower's cursor, a
//! mark, the command table name the same lines in both). From then on the
//! pane is always seeded in full.
//!
//! A seed's answer marks its moment; the copy is built on a blocking
//! thread while the watch goes on reading the stream (the pane's output
//! is held until the copy is in, and during a fill also applied to the
//! copy being replaced, so its waits go on waking), and the next seed
//! line goes at once, so tmux captures one pane while the last is built.
//!
//! Checks nobody waits for run only while no request is in flight and
//! none came for [`MirrorOptions::verify_after`](super::MirrorOptions), a
//! small piece at a time, so none holds up a wait's output or an answer
//! by more than a millisecond or two: the check of a history laid out
//! from its lines ([`seed::verify_chunk_line`], [`seed::VERIFY_ROWS`]
//! rows a line) and, now and then, a copy's visible rows
//! ([`probe::check_line`]) after output came.
//!
//! # State machine and driver
//!
//! [`Watch`] is all of the above as a state machine: it is handed each
//! input with its time ([`Watch::at`]) — a notification, a line's answer
//! by job id, a request, a built copy, a seed slot, a timer's tick — and
//! says what to do as [`Effect`]s (send this line as this job, build this
//! copy, delete this buffer, close). It reads no clock and does no I/O,
//! so the orderings above are unit-tested by feeding it answers and
//! output in the order tmux may write them. [`Driver`] owns the
//! connection, the timers and the tasks, and feeds it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::flood::{Action, Floods};
use super::lines;
use super::marks::MarkScanner;
use super::pane::{MAX_MARKS, Mark, PaneMeta, Status};
use super::seed::{self, Depth};
use super::{MirrorShared, Want, probe};
use crate::control::client::Reply;
use crate::control::{Command, Line, Notification, PaneId, SessionId};
use crate::term::Term;

mod driver;
#[cfg(test)]
mod tests;

pub(crate) use driver::Driver;

/// Times a check is asked before an ambiguous one is left unconfirmed.
pub const MAX_ATTEMPTS: u8 = 4;

/// Seed lines one watch has out at once.
pub const SEEDS_OUT: usize = 1;

/// Seed lines all watches of a mirror have out at once (one session's
/// seeds wait for another's): tmux renders one capture at a time anyway.
pub const SEEDS_AT_ONCE: usize = 1;

/// Seeds of one watch answered and not yet built (their history waiting
/// in its buffer, being read or being laid out) while its next seed line
/// is out. The next seed line goes while these wait, so tmux captures the
/// next pane while the last ones are read and built: with two, a watch's
/// seeds stopped until its builds were done, and tmux stood idle for most
/// of a first search on a busy machine. An answer whose history is in a
/// buffer is a few kilobytes; the history is read only when the copy is
/// built, [`BUILDS_AT_ONCE`] at a time.
const BUILDS_OUT: usize = 4;

/// Copies all watches of a mirror read and lay out at once (from a seed's
/// answered line to its copy): a seed of a long history holds tens of
/// megabytes (the history read from its buffer, the copy being built)
/// until its copy is built, so a few at a time bound memory, and two keep
/// both of a small machine's cores busy beside tmux.
pub const BUILDS_AT_ONCE: usize = 2;

/// What a watch is asked to do.
pub(crate) enum WatchCmd {
    /// Bring these panes (shown in this watch's session) up to what
    /// `want` says: seed those without a copy, fence or fill the others,
    /// then reply.
    Sync {
        panes: Vec<(PaneId, PaneMeta)>,
        want: Want,
        reply: oneshot::Sender<()>,
        /// Told once per pane: whether the copy is followed and, as `want`
        /// asks, fenced (seeded, or fenced and found to agree).
        outcomes: mpsc::Sender<(PaneId, bool)>,
    },
    /// List the server's panes again (as tmux's notifications make the
    /// watch do): a listing reads each pane's `#{pane_dead}` and status,
    /// which no notification tells ([`Mirror::list_again`]).
    ///
    /// [`Mirror::list_again`]: super::Mirror::list_again
    List,
    /// Check the history rows of this pane's copy against tmux's again,
    /// in the background (as after its seed); replies whether it was
    /// queued (a live copy of this watch whose history was laid out).
    CheckHistory {
        pane: PaneId,
        reply: oneshot::Sender<bool>,
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
        /// What the line was sent with.
        seed: SeedAnswer,
    },
    /// A check of a copy's visible rows and state ([`probe::check_line`]):
    /// taken in the background, or of a copy a fence found doubtful.
    Check { pane: PaneId, at: Window },
    /// A request's fence of these panes ([`probe::fence_line`]; `text`:
    /// without their modes).
    Fence {
        panes: Vec<(PaneId, Window)>,
        text: bool,
    },
    /// A request's constant fence of these panes ([`probe::barrier_line`]),
    /// for a [`Want::Text`] sync whose copies were compared with tmux
    /// recently ([`Watch::full_check_due`]).
    Barrier { panes: Vec<PaneId> },
    /// A check of some of a copy's history rows against tmux's
    /// ([`seed::verify_chunk_line`]), sent while no request is in flight.
    Verify {
        pane: PaneId,
        at: Window,
        /// The tmux line numbers the line captured.
        start: i64,
        end: i64,
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

/// A seed whose line was answered and whose copy is being built (its
/// history read by a one-shot client, then laid out on a blocking
/// thread): the pane's output that arrives meanwhile comes after the
/// seed, so it is held and applied once the copy is in.
struct Building {
    key: u64,
    attempt: u8,
    exact: bool,
    depth: Depth,
    /// The pane's output since the answer (and, for a hushed seed, since
    /// the pause was answered), in order.
    held: Held,
    /// For a fill (a seed of a live copy): the copy as it was at the
    /// answer. The new copy is numbered to end where it ends and takes
    /// over its state; the output held is applied to the live copy too,
    /// so its waits go on waking while this one is built.
    live: Option<Box<Term>>,
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

/// Output held for one pane while its copy is built, in bytes; past it
/// the seed is taken again (a pane printing that fast while a one-shot
/// client reads its history).
const MAX_HELD: usize = 64 << 20;

/// A line's answer as a ticket gives it (`None`: the connection ended
/// first).
type Answer = Option<Result<Reply, crate::control::Error>>;

/// What a build task brought back: the pane, the seed's key, the copy.
type Built = (PaneId, u64, Result<seed::Built, seed::SeedFailure>);

/// How many times [`MirrorOptions::verify_after`](super::MirrorOptions) a
/// copy waits at most to be checked while requests keep coming.
const VERIFY_AT_LATEST: u32 = 20;

/// How long a live copy that received output waits before its visible
/// rows are checked again in the background.
const SCREEN_CHECK_EVERY: Duration = Duration::from_secs(5);

/// How long a [`Want::Text`] sync takes a constant fence
/// ([`probe::barrier_line`]) after the last one that compared every copy
/// with tmux ([`probe::fence_line`]): a change tmux makes to a pane without
/// output and without a call of ours (another client's `clear-history`,
/// `respawn-pane`, `send-keys -R`) is seen by the first search this long
/// after the last comparison. A search that comes later compares again, so
/// a search after a pause is exact, and one that follows others closely
/// costs tmux one line per session instead of a record per pane.
pub const FULL_CHECK_EVERY: Duration = Duration::from_secs(1);

/// How often a watch looks for copies whose visible rows are due a check
/// (each look starts one check at most).
const SWEEP_EVERY: Duration = Duration::from_millis(250);

/// The pause between two chunks of a history's check
/// ([`seed::VERIFY_ROWS`] rows each): tmux spends at most about a tenth
/// of its time on them, and a wait's output meets one in flight rarely.
const VERIFY_PACE: Duration = Duration::from_millis(10);

/// A copy whose history rows are checked against tmux's, a chunk at a
/// time ([`seed::verify_chunk_line`]).
#[derive(Clone, Copy, Debug)]
struct Verifying {
    pane: PaneId,
    /// Since when it waits (it goes even while requests keep coming
    /// [`VERIFY_AT_LATEST`] times `verify_after` after this).
    queued: Instant,
    /// Ambiguous chunks so far (the whole check is given up after
    /// [`MAX_ATTEMPTS`]).
    tries: u8,
    /// The next row to check, counted from the oldest held.
    next_row: usize,
}

/// A sync request waiting for its lines' answers.
struct Waiter {
    ids: HashSet<u64>,
    reply: oneshot::Sender<()>,
    outcomes: mpsc::Sender<(PaneId, bool)>,
}

/// What the watch asks its driver to do, in order.
pub(crate) enum Effect {
    /// Send `line`; its answer comes back to [`Watch::answered`] with
    /// `job` (a line the connection refuses is answered with the error).
    Send { job: u64, line: Line },
    /// Build a copy from a seed's answer; the result comes back to
    /// [`Watch::built`].
    Build(Build),
    /// Delete this history buffer (no copy will be built from it).
    DropBuffer(String),
    /// Close the connection (the session it shows is not this watch's).
    Close,
}

/// A copy to build from a seed line's answer ([`seed::build`]), after
/// reading the history the line left in `history_buffer`, if any.
pub(crate) struct Build {
    pub(crate) pane: PaneId,
    /// The seed's key, given back with the copy.
    pub(crate) key: u64,
    pub(crate) reply: Reply,
    /// Whether the line resumed the pane first ([`seed::line`]).
    pub(crate) continued: bool,
    pub(crate) history_buffer: Option<String>,
    pub(crate) recipe: seed::Recipe,
    pub(crate) depth: Depth,
}

/// One session's watch as a state machine: it is given the stream's
/// notifications, its lines' answers (by job id), requests, built copies
/// and seed slots, each at a time the caller names ([`Watch::at`]), and
/// says what to do about them as [`Effect`]s ([`Watch::effects`]). It
/// reads no clock and does no I/O: [`driver::Driver`] does, for one
/// connection. The copies it feeds are shared memory
/// ([`MirrorShared`]).
pub(crate) struct Watch {
    session: SessionId,
    shared: Arc<MirrorShared>,
    /// The time of the input being handled ([`Watch::at`]).
    now: Instant,
    /// The next job id (request ids are the driver's).
    next_job: u64,
    /// What the driver has to do, in order.
    effects: Vec<Effect>,
    /// `%output` notifications seen, in all and per pane.
    outputs_all: u64,
    outputs: HashMap<PaneId, u64>,
    jobs: HashMap<u64, Job>,
    /// Panes with a seed queued or on its way, and that seed's key.
    seeding: HashMap<PaneId, u64>,
    /// Seeds waiting their turn: (key, pane, attempt).
    seed_queue: VecDeque<(u64, PaneId, u8)>,
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
    /// Copies being built, by pane.
    building: HashMap<PaneId, Building>,
    /// Panes whose history did not lay out as tmux's rows: seeded with the
    /// [exact](seed::Recipe::exact) line from then on.
    exact: HashSet<PaneId>,
    /// Copies whose history was seeded as lines, to check against tmux's
    /// rows.
    verify_queue: VecDeque<Verifying>,
    /// A check nobody waits for is out (one at a time).
    background_out: bool,
    /// The next chunk of a history's check goes no sooner ([`VERIFY_PACE`]).
    verify_not_before: Instant,
    /// When each copy's visible rows were last checked in the background,
    /// and the output it had applied then.
    screen_checked: HashMap<PaneId, (Instant, u64)>,
    /// Bytes of output applied to the copies this watch feeds.
    fed: u64,
    /// When the last look for copies due a check was, and [`Watch::fed`]
    /// when a look last found none.
    swept_at: Instant,
    swept_fed: u64,
    /// Panes paused for a flood, and the meters of the others.
    floods: Floods,
    /// When a [`Want::Text`] sync last compared every copy with tmux
    /// ([`probe::fence_line`]), and [`MirrorShared::changes`] then.
    full_checked: Option<(Instant, u64)>,
}

/// Whether a copy a check or a fence judged `verdict` agrees with tmux. A
/// copy tmux dropped history rows from ([`probe::Verdict::Trimmed`]:
/// `clear-history`, a lowered `history-limit`, which no output tells) is
/// trimmed to match first (`term`: the copy, written; only the watch task
/// feeds it, so it is as it was judged), and agrees (C42: a follower then
/// knows what it lost, where a copy seeded again would renumber it).
fn settle(pane: PaneId, term: Option<&mut Term>, verdict: Option<probe::Verdict>) -> bool {
    match verdict {
        Some(probe::Verdict::Agrees) => true,
        Some(probe::Verdict::Trimmed { rows, limit }) => {
            if let Some(t) = term {
                tracing::debug!(%pane, held = t.history_size(), absent = t.history_absent(), rows, limit, "tmux dropped history rows; trimming the copy to match");
                t.match_history(limit, rows);
            }
            true
        }
        Some(probe::Verdict::Differs) | None => false,
    }
}

impl Watch {
    /// A watch of `session`'s panes, made at `now`.
    pub(crate) fn new(session: SessionId, shared: Arc<MirrorShared>, now: Instant) -> Watch {
        // What happened before this watch was told no one.
        shared.note_layout();
        Watch {
            session,
            shared,
            now,
            next_job: 1,
            effects: Vec::new(),
            outputs_all: 0,
            outputs: HashMap::new(),
            jobs: HashMap::new(),
            seeding: HashMap::new(),
            seed_queue: VecDeque::new(),
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
            building: HashMap::new(),
            exact: HashSet::new(),
            verify_queue: VecDeque::new(),
            background_out: false,
            verify_not_before: now,
            screen_checked: HashMap::new(),
            fed: 0,
            swept_at: now,
            swept_fed: 0,
            floods: Floods::default(),
            full_checked: None,
        }
    }

    /// The watch at `now`: the input handled next happens then.
    pub(crate) fn at(&mut self, now: Instant) -> &mut Watch {
        self.now = now;
        self
    }

    /// What to do, in the order it was decided; empties the list.
    pub(crate) fn effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The session this watch follows.
    pub(crate) fn session(&self) -> SessionId {
        self.session
    }

    /// Whether seeds wait for one of [`MirrorShared::seed_slots`]: the
    /// driver hands one to [`Watch::slot`] when it frees.
    pub(crate) fn wants_slot(&self) -> bool {
        self.seed_permit.is_none() && !self.seed_queue.is_empty()
    }

    /// A seed slot for this watch: its queued seeds may go.
    pub(crate) fn slot(&mut self, permit: tokio::sync::OwnedSemaphorePermit) {
        self.seed_permit = Some(permit);
        self.pump();
    }

    /// When [`Watch::flood_tick`] is next due.
    pub(crate) fn flood_due(&self) -> Option<Instant> {
        self.floods.next_tick()
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
        let id = self.next_job;
        self.next_job += 1;
        self.jobs.insert(id, job);
        self.effects.push(Effect::Send { job: id, line });
        Some(id)
    }

    /// Asks for the server's panes (to adopt new ones and notice gone
    /// ones); a request made while one is out is merged into the next.
    fn list(&mut self) {
        if self.listing {
            self.relist = true;
            return;
        }
        let line = probe::list_line(&self.shared.query);
        let sent = self.now;
        if self.send(line, Job::List { sent }).is_some() {
            self.listing = true;
        }
    }

    /// Queues a seed of `pane`; returns the key waiters know it by. Of a
    /// live copy, the seed is a fill (see the module docs).
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

    /// Sends queued seeds while fewer than [`SEEDS_OUT`] are out and fewer
    /// than [`BUILDS_OUT`] answered seeds wait for their copies (tmux
    /// renders one capture at a time anyway; the copies are read and
    /// built [`BUILDS_AT_ONCE`] at a time, which bounds memory).
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
        while self.seeds_out < SEEDS_OUT && self.building.len() < BUILDS_OUT {
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
            let depth = if self.history_wanted(pane) {
                Depth::Full
            } else {
                Depth::Screen
            };
            let seed::SeedLine {
                line,
                history_buffer,
            } = seed::line(pane, &recipe, continued, depth);
            let at = self.window(pane);
            let job = Job::Seed {
                pane,
                seed: SeedAnswer {
                    at,
                    attempt,
                    continued,
                    key,
                    history_buffer,
                    exact,
                    depth,
                },
            };
            if self.send(line, job).is_some() {
                self.seeds_out += 1;
            } else {
                self.seeding.remove(&pane);
                self.hushed.remove(&pane);
                self.hush_notices.remove(&pane);
                self.finish(key, &[], &[(pane, false)]);
            }
        }
    }

    /// Whether a request has read (or is about to read) `pane`'s history:
    /// its seeds then read it.
    fn history_wanted(&self, pane: PaneId) -> bool {
        self.shared
            .pane(pane)
            .is_some_and(|p| p.view().history_wanted)
    }

    /// `refresh-client -A '%N:<state>'` (`pause` or `continue`) for a
    /// flooding pane.
    fn flow(&mut self, pane: PaneId, state: &str) {
        let cmd = Command::new("refresh-client").opt("-A", format!("{pane}:{state}"));
        let pause = state == "pause";
        self.send(Line::list(vec![cmd]), Job::Flow { pane, pause });
    }

    /// tmux stopped sending `pane`'s output (paused), or its copy no longer
    /// follows the pane: the copy is stale until seeded again.
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
        for (pane, action) in self.floods.tick(self.now) {
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

    /// Checks a copy's visible rows and state ([`probe::check_line`]).
    fn check(&mut self, pane: PaneId) -> Option<u64> {
        let line = probe::check_line(pane, &self.shared.query, self.shared.encoding);
        let at = self.window(pane);
        self.send(line, Job::Check { pane, at })
    }

    /// Fences `panes` (live copies this watch feeds) for a request: one
    /// line for all of them ([`probe::fence_line`]; `text`: without their
    /// modes, for [`Want::Text`]).
    fn fence(&mut self, panes: &[PaneId], text: bool) -> Option<u64> {
        if text {
            self.full_checked = Some((self.now, self.shared.changes()));
        }
        let line = probe::fence_line(self.session, &self.shared.query, text);
        let panes = panes.iter().map(|&p| (p, self.window(p))).collect();
        self.send(line, Job::Fence { panes, text })
    }

    /// Whether a [`Want::Text`] sync compares every copy with tmux
    /// ([`Watch::fence`]) rather than taking a constant fence
    /// ([`Watch::barrier`]): none did yet, or the last did
    /// [`FULL_CHECK_EVERY`] ago or longer, or a call may have changed a
    /// pane since ([`super::Mirror::note_change`]), or a listing is out
    /// (a notification said the panes changed: their sizes are compared).
    fn full_check_due(&self) -> bool {
        self.listing
            || self.full_checked.is_none_or(|(at, changes)| {
                self.now.saturating_duration_since(at) >= FULL_CHECK_EVERY
                    || changes != self.shared.changes()
            })
    }

    /// Fences `panes` for a [`Want::Text`] request with one line of
    /// constant cost ([`probe::barrier_line`]).
    fn barrier(&mut self, panes: Vec<PaneId>) -> Option<u64> {
        let line = probe::barrier_line(self.session, &self.shared.query);
        self.send(line, Job::Barrier { panes })
    }

    fn sync(
        &mut self,
        panes: Vec<(PaneId, PaneMeta)>,
        want: Want,
        reply: oneshot::Sender<()>,
        outcomes: mpsc::Sender<(PaneId, bool)>,
    ) {
        let mut ids = HashSet::new();
        let mut fence = Vec::new();
        let now = self.now;
        for (id, meta) in panes {
            // A copy asked for is not paused for a while (a seed of a
            // paused one resumes it).
            self.floods.asked(id, now);
            let p = self.shared.pane_or_new(id);
            // A listing that did not ask for the foreground process and
            // its directory (a search's: tmux reads each from /proc)
            // keeps the ones the copy knows. A copy whose listing, owner
            // and history wish are already these is not written (its
            // shared snapshot stays good: [`PaneMirror::shared_snapshot`]).
            let mut meta = meta;
            let settled = {
                let st = p.view();
                if meta.pane_current_command.is_empty() {
                    meta.pane_current_command
                        .clone_from(&st.meta.pane_current_command);
                }
                if meta.pane_current_path.is_empty() {
                    meta.pane_current_path
                        .clone_from(&st.meta.pane_current_path);
                }
                (st.meta == meta
                    && st.owner.is_some()
                    && (st.owner != Some(self.session) || !want.history() || st.history_wanted))
                    .then_some(st.owner)
            };
            let owner = match settled {
                Some(owner) => owner,
                None => {
                    let mut st = p.write();
                    st.meta = meta;
                    let owner = *st.owner.get_or_insert(self.session);
                    if owner == self.session && want.history() {
                        st.history_wanted = true;
                    }
                    Some(owner)
                }
            };
            if owner != Some(self.session) {
                continue;
            }
            let (status, partial) = {
                let st = p.view();
                let partial = st.term.as_ref().is_some_and(|t| t.history_absent() > 0);
                (st.status, partial)
            };
            let sent = match status {
                // Wait for the seed already queued or on its way (a copy
                // that lacks the history wanted now is filled after it).
                _ if self.seeding.contains_key(&id) => self.seeding.get(&id).copied(),
                Status::Live if want.history() && partial => self.seed(id, 1),
                Status::Live if want == Want::Followed => {
                    // Never full (room for one per pane).
                    let _ = outcomes.try_send((id, true));
                    None
                }
                Status::Live => {
                    fence.push(id);
                    None
                }
                Status::Unseeded | Status::Stale => self.seed(id, 1),
                Status::Dead => None,
            };
            if let Some(k) = sent {
                ids.insert(k);
            }
        }
        if !fence.is_empty() {
            let text = want == Want::Text;
            let sent = if text && !self.full_check_due() {
                self.barrier(fence.clone())
            } else {
                self.fence(&fence, text)
            };
            match sent {
                Some(k) => {
                    ids.insert(k);
                }
                None => {
                    for id in fence {
                        let _ = outcomes.try_send((id, false));
                    }
                }
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
            | Notification::SessionWindowChanged { .. } => {
                self.shared.note_layout();
                self.list();
            }
            Notification::WindowRenamed { .. }
            | Notification::SessionRenamed { .. }
            | Notification::Other(_) => self.shared.note_layout(),
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
        let busy = self.seeding.contains_key(&pane) || self.building.contains_key(&pane);
        let (shared, session) = (&self.shared, self.session);
        let may_pause = || {
            !busy
                && shared
                    .pane(pane)
                    .is_some_and(|p| p.subscribers() == 0 && p.view().owner == Some(session))
        };
        if self.floods.output(pane, data.len(), self.now, may_pause) == Some(Action::Pause) {
            tracing::debug!(%pane, "flooding: paused until it settles");
            self.flow(pane, "pause");
        }
        if let Some(h) = self.hushed.get_mut(&pane) {
            h.push(data);
            return;
        }
        if let Some(b) = self.building.get_mut(&pane) {
            b.held.push(data);
            if b.live.is_none() {
                return;
            }
            // A fill: the live copy goes on following meanwhile.
        }
        self.apply_output(pane, data, false);
    }

    /// Feeds output held while the pane was seeded to its new copy, in
    /// order; `replay`: the copy being replaced was fed it too (a fill),
    /// so its marks are known already and its bytes counted.
    fn apply_held(&mut self, pane: PaneId, held: &Held, replay: bool) {
        for data in &held.chunks {
            self.apply_output(pane, data, replay);
        }
    }

    /// Feeds `data`, the pane's output, to its copy (when it is live and
    /// this watch's); `replay`: see [`Watch::apply_held`].
    fn apply_output(&mut self, pane: PaneId, data: &[u8], replay: bool) {
        let Some(p) = self.shared.pane(pane) else {
            // A pane we have not adopted yet: its seed will hold this.
            return;
        };
        let mut st = p.write();
        if st.owner != Some(self.session) || st.status != Status::Live {
            tracing::debug!(%pane, status = ?st.status, owner = ?st.owner, bytes = data.len(), "output not applied");
            if !replay {
                self.scanners.remove(&pane);
            }
            return;
        }
        let found = if replay {
            Vec::new()
        } else {
            self.scanners.entry(pane).or_default().scan(data)
        };
        let state = &mut *st;
        let waited_on = p.subscribers() > 0;
        let mut off = false;
        if let Some(t) = state.term.as_mut() {
            t.set_now(super::clock_us_at(self.now));
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
                    at: lines::cursor_spot(t),
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
            // The copy's own word that it no longer follows tmux (a
            // reflow it cannot model).
            off = t.needs_reseed();
        }
        if !replay {
            state.bytes_applied += data.len() as u64;
        }
        // Waiters are woken once the lock is released: a woken reader
        // takes the read lock at once.
        drop(st);
        p.changed();
        if !replay {
            self.fed += data.len() as u64;
            self.shared.note_bytes(data.len());
        }
        if off {
            tracing::debug!(%pane, "copy says it no longer follows tmux; seeding again");
            self.stopped(pane);
            self.seed(pane, 1);
        }
    }

    fn answered(&mut self, id: u64, reply: Answer) {
        let Some(job) = self.jobs.remove(&id) else {
            return;
        };
        match job {
            Job::Flow { pane, pause } => {
                if pause && matches!(reply, Some(Ok(_))) {
                    self.stopped(pane);
                }
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
                self.finish(seed_key, &[], &[(pane, false)]);
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
            Job::Seed { pane, seed } => self.seed_answered(pane, reply, seed),
            Job::Fence { panes, text } => self.fenced(id, reply, panes, text),
            Job::Barrier { panes } => self.barrier_answered(id, reply, panes),
            Job::Check { pane, at } => {
                self.background_out = false;
                self.checked(pane, at, reply);
            }
            Job::Verify {
                pane,
                at,
                start,
                end,
            } => {
                self.background_out = false;
                self.verify_not_before = self.now + VERIFY_PACE;
                self.verified(pane, at, (start, end), reply);
            }
        }
        self.pump();
    }

    /// A seed line was answered: its copy is built (see
    /// [`Watch::start_build`]), or the seed is taken again.
    fn seed_answered(&mut self, pane: PaneId, reply: Answer, a: SeedAnswer) {
        // Its own `%pause`, if tmux wrote one after the pause's answer,
        // came before this answer.
        self.hush_notices.remove(&pane);
        let hushed = self.hushed.remove(&pane);
        let ambiguous = hushed.is_none() && self.ambiguous(pane, a.at);
        let usable = matches!(reply, Some(Ok(_)))
            && !self.paused.contains(&pane)
            && !ambiguous
            && hushed.as_ref().is_none_or(|h| !h.overflowed);
        let held = hushed.unwrap_or_default();
        // Another seed line may go (this one is built meanwhile).
        self.free_slot();
        let reply = match reply {
            Some(Ok(r)) if usable => {
                // A live copy is filled: the new copy takes over from it as
                // it is at this point in the stream.
                let live = self.shared.pane(pane).and_then(|p| {
                    let st = p.view();
                    (st.status == Status::Live && st.owner == Some(self.session))
                        .then(|| st.term.clone().map(Box::new))
                        .flatten()
                });
                let b = Building {
                    key: a.key,
                    attempt: a.attempt,
                    exact: a.exact,
                    depth: a.depth,
                    held,
                    live,
                };
                self.start_build(pane, r, a.continued, a.history_buffer, b);
                return;
            }
            other => other,
        };
        if let Some(name) = a.history_buffer {
            self.drop_buffer(name);
        }
        self.seeding.remove(&pane);
        let mut follow_up = None;
        let mut outcome = None;
        match reply {
            Some(Ok(_)) if self.paused.remove(&pane) => {
                // Paused while the seed was out: seed (and resume) again.
                follow_up = self.seed(pane, a.attempt);
            }
            Some(Ok(_)) if ambiguous => {
                tracing::debug!(%pane, attempt = a.attempt, "seed was ambiguous; taking it again, hushed");
                follow_up = self.hush(pane, a.attempt + 1);
            }
            Some(Ok(_)) => {
                // Too much output came while a hushed seed was out.
                follow_up = self.seed(pane, a.attempt + 1);
            }
            Some(Err(e)) => {
                tracing::debug!(%pane, %e, "seed failed");
                outcome = Some((pane, false));
            }
            None => outcome = Some((pane, false)),
        }
        self.finish(a.key, follow_up.as_slice(), outcome.as_slice());
    }

    /// A request's fence came back: every copy it named holds what its
    /// pane printed before the request; those whose records disagree with
    /// tmux are seeded again.
    fn fenced(&mut self, id: u64, reply: Answer, panes: Vec<(PaneId, Window)>, text: bool) {
        let rows = match &reply {
            Some(Ok(r)) => probe::parse_fence(r, &self.shared.query, text),
            _ => None,
        };
        let mut follow_ups = Vec::new();
        let mut outcomes = Vec::new();
        for (pane, at) in panes {
            if let Some(&k) = self.seeding.get(&pane) {
                // Paused, or found off, since: its seed answers instead.
                follow_ups.push(k);
                continue;
            }
            let (Some(p), Some(row)) = (
                self.shared.pane(pane),
                rows.as_ref().and_then(|r| r.get(&pane)),
            ) else {
                // Not in the session any more (moved, or gone): the
                // request answers it another way.
                outcomes.push((pane, false));
                continue;
            };
            // Output of this pane and another during the fence: the
            // record may predate output already applied, so it is not
            // compared (the fence holds all the same).
            let ambiguous = self.ambiguous(pane, at);
            // Judged under the read lock; the write lock only takes a new
            // mode or trims history tmux dropped, so a copy that agrees
            // is not written (its shared snapshot stays good:
            // [`PaneMirror::shared_snapshot`]).
            let (ours, verdict, mode) = {
                let st = p.view();
                let ours = st.status == Status::Live && st.owner == Some(self.session);
                let verdict = (ours && !ambiguous)
                    .then(|| st.term.as_ref().map(|t| row.verdict(t)))
                    .flatten();
                (ours, verdict, row.mode().filter(|m| *m != st.mode))
            };
            if let Some(mode) = mode {
                p.write().mode = mode;
            }
            let agrees = ours
                && (ambiguous
                    || match verdict {
                        Some(probe::Verdict::Trimmed { .. }) => {
                            settle(pane, p.write().term.as_mut(), verdict)
                        }
                        v => settle(pane, None, v),
                    });
            if agrees {
                outcomes.push((pane, true));
                continue;
            }
            if p.view().status != Status::Live {
                outcomes.push((pane, false));
                continue;
            }
            tracing::debug!(%pane, "copy disagrees with tmux; seeding again");
            self.stopped(pane);
            match self.seed(pane, 1) {
                Some(k) => follow_ups.push(k),
                None => outcomes.push((pane, false)),
            }
        }
        self.finish(id, &follow_ups, &outcomes);
    }

    /// A constant fence came back: each copy this watch still feeds live
    /// holds what its pane printed before the request, and is confirmed
    /// (a copy being seeded answers with its seed). The copies are
    /// compared with tmux first ([`Watch::fence`]) when a listing is out
    /// (a notification came in between: a resize, a pane gone; the fence
    /// is answered after the listing) or a copy's layout options are not
    /// the ones the answer says (a `set -g` no output told).
    fn barrier_answered(&mut self, id: u64, reply: Answer, panes: Vec<PaneId>) {
        let row = match &reply {
            Some(Ok(r)) if r.blocks.first().is_some_and(|b| b.ok) => {
                probe::parse_barrier(r, &self.shared.query)
                    .filter(|row| row.session() == Some(self.session))
            }
            _ => {
                let outcomes: Vec<_> = panes.iter().map(|&p| (p, false)).collect();
                self.finish(id, &[], &outcomes);
                return;
            }
        };
        let options_differ = |p: &PaneId| {
            self.shared.pane(*p).is_some_and(|c| {
                let st = c.view();
                st.term
                    .as_ref()
                    .is_some_and(|t| row.as_ref().is_none_or(|r| !r.options_agree(t)))
            })
        };
        if self.listing || panes.iter().any(options_differ) {
            let follow_ups: Vec<u64> = self.fence(&panes, true).into_iter().collect();
            let outcomes: Vec<_> = if follow_ups.is_empty() {
                panes.iter().map(|&p| (p, false)).collect()
            } else {
                Vec::new()
            };
            self.finish(id, &follow_ups, &outcomes);
            return;
        }
        let mut follow_ups = Vec::new();
        let mut outcomes = Vec::new();
        for pane in panes {
            if let Some(&k) = self.seeding.get(&pane) {
                follow_ups.push(k);
                continue;
            }
            let live = self.shared.pane(pane).is_some_and(|p| {
                let st = p.view();
                st.status == Status::Live && st.owner == Some(self.session)
            });
            outcomes.push((pane, live));
        }
        self.finish(id, &follow_ups, &outcomes);
    }

    /// A check of a copy's visible rows came back (taken in the
    /// background): a copy that disagrees is seeded again.
    fn checked(&mut self, pane: PaneId, at: Window, reply: Answer) {
        let Some(Ok(r)) = reply else {
            return;
        };
        let Some(p) = self.shared.pane(pane) else {
            return;
        };
        if let Some(v) = probe::mode(&r, &self.shared.query) {
            p.write().mode = v;
        }
        // Output of this pane and another during the check: the answer
        // may predate output already applied, so it proves nothing.
        if self.ambiguous(pane, at) || self.seeding.contains_key(&pane) {
            return;
        }
        // Judged under the read lock; the write lock only trims history
        // tmux dropped.
        let verdict = {
            let st = p.view();
            if st.status != Status::Live || st.owner != Some(self.session) {
                return;
            }
            st.term
                .as_ref()
                .map(|t| probe::verdict(t, &r, &self.shared.query))
        };
        let agrees = match verdict {
            Some(probe::Verdict::Trimmed { .. }) => settle(pane, p.write().term.as_mut(), verdict),
            v => settle(pane, None, v),
        };
        if !agrees {
            tracing::debug!(%pane, "copy's visible rows disagree with tmux; seeding again");
            self.stopped(pane);
            self.seed(pane, 1);
        }
    }

    /// Job `key` is done: waiters that wait for it wait for `follow_ups`
    /// instead (seeds that continue it), and are told `outcomes`.
    fn finish(&mut self, key: u64, follow_ups: &[u64], outcomes: &[(PaneId, bool)]) {
        for w in &mut self.waiters {
            if w.ids.remove(&key) {
                w.ids.extend(follow_ups.iter().copied());
                for &o in outcomes {
                    // Never full (room for one per pane), and never
                    // waited on: a request that gave up is no reason
                    // to stall the watch.
                    let _ = w.outcomes.try_send(o);
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

    /// A seed's line is answered: another may go.
    fn free_slot(&mut self) {
        self.seeds_out -= 1;
        if self.seeds_out == 0 {
            // Another session's seeds may go now (this one queues again
            // behind them).
            self.seed_permit = None;
        }
    }

    /// Has `pane`'s copy built from a seed's answer ([`Effect::Build`]):
    /// the driver reads the history the line left in a buffer, if any, and
    /// lays the copy out on a blocking thread; [`Watch::built`] takes it.
    /// The watch goes on reading the stream meanwhile (the pane's output
    /// is held), and the next seed line goes at once, so tmux captures the
    /// next pane while this one is built.
    fn start_build(
        &mut self,
        pane: PaneId,
        reply: Reply,
        continued: bool,
        history_buffer: Option<String>,
        b: Building,
    ) {
        let (key, depth) = (b.key, b.depth);
        let recipe = if b.exact {
            self.shared.recipe.exact()
        } else {
            self.shared.recipe
        };
        self.building.insert(pane, b);
        self.effects.push(Effect::Build(Build {
            pane,
            key,
            reply,
            continued,
            history_buffer,
            recipe,
            depth,
        }));
    }

    /// A copy was built ([`Watch::start_build`]): it replaces the pane's
    /// copy and the output held meanwhile is applied to it.
    fn built(&mut self, pane: PaneId, key: u64, copy: Result<seed::Built, seed::SeedFailure>) {
        if self.building.get(&pane).is_none_or(|b| b.key != key) {
            return;
        }
        let Some(b) = self.building.remove(&pane) else {
            return;
        };
        self.seeding.remove(&pane);
        let mut follow_up = None;
        let mut outcome = None;
        if self.paused.remove(&pane) || b.held.overflowed {
            // tmux dropped output (or too much came meanwhile): seed (and
            // resume) again.
            follow_up = self.seed(pane, b.attempt);
        } else {
            let (ok, redo) = self.install(pane, &b, copy);
            if redo {
                follow_up = self.seed(pane, 1);
            } else {
                self.apply_held(pane, &b.held, b.live.is_some());
                if ok && self.lacks_wanted_history(pane) {
                    // A request wanted the history while this copy of the
                    // screen was on its way: fill it.
                    follow_up = self.seed(pane, 1);
                } else {
                    outcome = Some((pane, ok));
                }
            }
        }
        self.finish(key, follow_up.as_slice(), outcome.as_slice());
        self.pump();
    }

    /// Whether `pane`'s copy is live and lacks history a request wants.
    fn lacks_wanted_history(&self, pane: PaneId) -> bool {
        self.shared.pane(pane).is_some_and(|p| {
            let st = p.view();
            st.history_wanted
                && st.status == Status::Live
                && st.term.as_ref().is_some_and(|t| t.history_absent() > 0)
        })
    }

    /// Makes `copy` the pane's copy; returns whether the pane's copy is
    /// usable after (live or dead), and whether the pane must be seeded
    /// again with the exact line (its history did not lay out as tmux's
    /// rows).
    ///
    /// Numbering: a fill ([`Building::live`]) is numbered so its lines end
    /// where the live copy's ended at the seed's answer, and keeps the
    /// copy's epoch (every index and spot given out still names the same
    /// place); any other seed of a pane with a copy continues the old
    /// copy's numbering, the lines they share keeping their indexes
    /// ([`lines::continued_first`]), and starts a new epoch; the first
    /// copy of a pane numbers the lines it did not read first, from 0.
    fn install(
        &mut self,
        pane: PaneId,
        b: &Building,
        copy: Result<seed::Built, seed::SeedFailure>,
    ) -> (bool, bool) {
        let Some(p) = self.shared.pane(pane) else {
            return (false, false);
        };
        let recipe = if b.exact {
            self.shared.recipe.exact()
        } else {
            self.shared.recipe
        };
        let mut redo = false;
        let mut filled = true;
        // A copy seeded again (not a fill): the lines it shares with the
        // one it replaces keep their indexes (C42: found by their text,
        // before the write lock is taken).
        let continued = match (&copy, &b.live) {
            (Ok(built), None) => p
                .view()
                .term
                .as_ref()
                .map(|old| lines::continued_first(old, &built.term)),
            _ => None,
        };
        match copy {
            Ok(built) => {
                let mut st = p.write();
                if st.owner != Some(self.session) {
                    return (false, false);
                }
                tracing::debug!(%pane, dead = built.dead, depth = ?b.depth, "seeded");
                let mut term = built.term;
                term.seeded_now(super::clock_us_at(self.now));
                let absent = term.history_absent() as u64;
                let same_numbering = match (&b.live, st.term.as_ref()) {
                    (Some(live), _) => {
                        let end = live.history().end_index().0;
                        let shift = end.checked_sub(term.history().end_index().0);
                        term.renumber_history(shift.unwrap_or(live.history().first_index().0));
                        // The command table, cwd and title carry over, and
                        // the modes the seed could not read; the output
                        // held is applied on top.
                        term.adopt_state(live);
                        shift.is_some()
                    }
                    (None, Some(old)) => {
                        match continued {
                            Some(first) => term.renumber_lines(first),
                            // The old copy came after the text was compared
                            // (never: only this task installs copies).
                            None => term.renumber_history(old.history().end_index().0 + absent),
                        }
                        term.adopt_state(old);
                        false
                    }
                    (None, None) => {
                        term.renumber_history(absent);
                        false
                    }
                };
                st.term = Some(term);
                if !same_numbering {
                    st.epoch += 1;
                    self.scanners.remove(&pane);
                }
                st.status = if built.dead {
                    Status::Dead
                } else {
                    Status::Live
                };
                st.exit_status = built.exit_status;
                st.kept = built.dead;
                st.seeded_at = Some(self.now);
                st.bytes_applied = 0;
                let laid_out = b.depth == Depth::Full
                    && !b.exact
                    && seed::needs_verify(&recipe)
                    && st.term.as_ref().is_some_and(|t| t.history_size() > 0);
                self.verify_queue.retain(|v| v.pane != pane);
                if laid_out {
                    self.verify_queue.push_back(Verifying {
                        pane,
                        queued: self.now,
                        tries: 0,
                        next_row: 0,
                    });
                }
                self.screen_checked.remove(&pane);
            }
            Err(seed::SeedFailure::Gone) => {
                let mut st = p.write();
                if st.term.is_some() {
                    st.status = Status::Dead;
                    st.kept = false;
                } else {
                    drop(st);
                    self.shared.forget(pane);
                }
            }
            Err(seed::SeedFailure::Layout(why)) if !b.exact => {
                tracing::debug!(%pane, %why, "history did not lay out as tmux's rows; seeding exactly");
                self.exact.insert(pane);
                redo = true;
            }
            Err(e) => {
                tracing::debug!(%pane, ?e, "could not build a copy from the seed");
                let mut st = p.write();
                if b.live.is_some() && st.status == Status::Live {
                    // A fill that failed: the copy goes on following, but
                    // without the history asked for.
                    filled = false;
                } else {
                    st.status = if st.term.is_some() {
                        Status::Stale
                    } else {
                        Status::Unseeded
                    };
                }
            }
        }
        p.changed();
        let ok = filled && matches!(p.view().status, Status::Live | Status::Dead);
        (ok && !redo, redo)
    }

    /// Has a history buffer no copy will be built from deleted.
    fn drop_buffer(&mut self, name: String) {
        self.effects.push(Effect::DropBuffer(name));
    }

    /// When the next check nobody waits for may go: none is out, no seed
    /// is out or being built, and requests have paused for
    /// `verify_after` (a history check waits at most
    /// [`VERIFY_AT_LATEST`] times that). Read on every turn of the loop,
    /// so it only looks at the watch's own fields and the mirror's clock.
    fn background_due(&self, now: Instant) -> Option<Instant> {
        if self.background_out
            || self.seeds_out > 0
            || !self.building.is_empty()
            || !self.seed_queue.is_empty()
        {
            return None;
        }
        let after = self.shared.verify_after;
        let idle = self.shared.idle_at(after, now);
        let at = match (self.verify_queue.front(), self.screens_due()) {
            (Some(v), _) => idle
                .min(v.queued + after * VERIFY_AT_LATEST)
                .max(self.verify_not_before),
            (None, Some(sweep)) => idle.max(sweep),
            (None, None) => return None,
        };
        Some(at)
    }

    /// When to look for copies whose visible rows are due a check: some
    /// output was applied since the last look found none.
    fn screens_due(&self) -> Option<Instant> {
        (self.fed != self.swept_fed).then_some(self.swept_at + SWEEP_EVERY)
    }

    /// Starts the next check nobody waits for, if requests have paused
    /// (see [`Watch::background_due`]): a chunk of a copy's history rows,
    /// else the visible rows of a copy that had output since its last
    /// check.
    fn background_tick(&mut self) {
        let after = self.shared.verify_after;
        let overdue = self
            .verify_queue
            .front()
            .is_some_and(|v| self.now.duration_since(v.queued) >= after * VERIFY_AT_LATEST);
        if !self.shared.idle_for(after, self.now) && !overdue {
            return;
        }
        if !self.verify_queue.is_empty() {
            if self.now >= self.verify_not_before {
                self.start_verify();
            }
            return;
        }
        self.start_screen_check();
    }

    /// Queues the check of `pane`'s history rows (see
    /// [`WatchCmd::CheckHistory`]).
    fn check_history_again(&mut self, pane: PaneId) -> bool {
        let laid_out = !self.exact.contains(&pane)
            && seed::needs_verify(&self.shared.recipe)
            && self.shared.pane(pane).is_some_and(|p| {
                let st = p.view();
                st.status == Status::Live
                    && st.owner == Some(self.session)
                    && st
                        .term
                        .as_ref()
                        .is_some_and(|t| t.history_size() > 0 && t.history_absent() == 0)
            });
        if !laid_out || self.verify_queue.iter().any(|v| v.pane == pane) {
            return false;
        }
        self.verify_queue.push_back(Verifying {
            pane,
            queued: self.now,
            tries: 0,
            next_row: 0,
        });
        true
    }

    /// Sends the check of the next chunk of history rows of the copy at
    /// the front of the queue ([`seed::verify_chunk_line`]).
    fn start_verify(&mut self) {
        while let Some(&v) = self.verify_queue.front() {
            let size = self.shared.pane(v.pane).and_then(|p| {
                let st = p.view();
                (st.status == Status::Live && st.owner == Some(self.session))
                    .then(|| st.term.as_ref().map(Term::history_size))
                    .flatten()
            });
            let Some(size) = size.filter(|&s| v.next_row < s) else {
                if size.is_some() {
                    tracing::debug!(pane = %v.pane, "history rows match tmux's");
                }
                self.verify_queue.pop_front();
                continue;
            };
            let rows = seed::VERIFY_ROWS.min(size - v.next_row);
            let start = v.next_row as i64 - size as i64;
            let end = start + rows as i64 - 1;
            let line = seed::verify_chunk_line(v.pane, start, end, self.shared.encoding);
            let at = self.window(v.pane);
            let job = Job::Verify {
                pane: v.pane,
                at,
                start,
                end,
            };
            if self.send(line, job).is_some() {
                self.background_out = true;
                self.shared.note_background_line();
            } else {
                self.verify_queue.pop_front();
            }
            return;
        }
    }

    /// A chunk of a copy's history rows came back: on to the next chunk,
    /// or, when the rows differ from tmux's, the copy is seeded again with
    /// its rows captured.
    fn verified(&mut self, pane: PaneId, at: Window, (start, end): (i64, i64), reply: Answer) {
        if self.verify_queue.front().is_none_or(|v| v.pane != pane) {
            return;
        }
        let answer = match reply {
            Some(Ok(r)) => seed::verify_chunk(r),
            _ => None,
        };
        let Some((size, rows)) = answer else {
            tracing::debug!(%pane, "history rows could not be captured");
            self.verify_queue.pop_front();
            return;
        };
        // The rows the line captured, counted from the oldest, and the
        // copy's at this point in the stream.
        let top = usize::try_from(size as i64 + start).unwrap_or(0);
        let bottom = usize::try_from(size as i64 + end + 1).unwrap_or(0);
        let digests = self.shared.pane(pane).and_then(|p| {
            let st = p.view();
            let t = st.term.as_ref()?;
            (st.status == Status::Live
                && st.owner == Some(self.session)
                && t.history_size() + t.history_absent() == size)
                .then(|| crate::term::history_row_digests_in(t, top..bottom))
        });
        let ambiguous = self.ambiguous(pane, at);
        let Some(digests) = digests.filter(|_| !ambiguous) else {
            // The rows may predate output already applied, or the copy's
            // history moved: asked again later, up to MAX_ATTEMPTS in all
            // (a copy whose size is off is the next fence's to find).
            let Some(v) = self.verify_queue.front_mut() else {
                return;
            };
            v.tries += 1;
            if v.tries >= MAX_ATTEMPTS {
                tracing::debug!(%pane, "history rows left unchecked: every check was ambiguous");
                self.verify_queue.pop_front();
            }
            return;
        };
        if crate::term::history_rows_match(&digests, &rows) {
            if let Some(v) = self.verify_queue.front_mut() {
                v.next_row = bottom;
            }
            return;
        }
        tracing::debug!(%pane, "history rows differ from tmux's; seeding with the rows captured");
        self.verify_queue.pop_front();
        self.exact.insert(pane);
        self.stopped(pane);
        self.seed(pane, 1);
    }

    /// Sends the check of the visible rows of one copy that had output
    /// since its last check and was not checked for
    /// [`SCREEN_CHECK_EVERY`].
    fn start_screen_check(&mut self) {
        let now = self.now;
        let mut due = None;
        for (id, p) in self.shared.panes() {
            let st = p.view();
            if st.status != Status::Live
                || st.owner != Some(self.session)
                || st.bytes_applied == 0
                || self.seeding.contains_key(&id)
            {
                continue;
            }
            let fed = st.bytes_applied;
            drop(st);
            match self.screen_checked.get(&id) {
                Some(&(_, b)) if b == fed => continue,
                Some(&(when, _)) if now.duration_since(when) < SCREEN_CHECK_EVERY => continue,
                _ => {}
            }
            due = Some((id, fed));
            break;
        }
        self.swept_at = now;
        let Some((pane, fed)) = due else {
            // None due: the next look waits for more output.
            self.swept_fed = self.fed;
            return;
        };
        self.screen_checked.insert(pane, (now, fed));
        if self.check(pane).is_some() {
            self.background_out = true;
            self.shared.note_background_line();
        }
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
                st.kept = e.dead;
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
        // Told once the copies of new panes exist: the event log's
        // follower takes them up on this signal.
        self.shared
            .sessions_seen
            .send_replace(sessions.into_iter().collect());
        for pane in to_seed {
            self.seed(pane, 1);
        }
    }

    /// Gives up ownership of every pane (the connection is gone).
    fn release(&self) {
        // What happens from now on is told no one.
        self.shared.note_layout();
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

    fn client_close(&mut self) {
        self.effects.push(Effect::Close);
    }
}

/// What a seed line's job says besides the pane, for
/// [`Watch::seed_answered`].
struct SeedAnswer {
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
    /// How much of the pane it reads.
    depth: Depth,
}
