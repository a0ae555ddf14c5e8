//! Waits on output: `wait_for_text`, `capture_since`, `run_command`.
//!
//! Each follows one pane on its mirrored copy ([`crate::mirror`]) and
//! wakes on the pane's `%output`, never by polling. The pane is seeded on
//! first use (one command line) and checked with tmux before the answer
//! ([`follow`]). The requests are checked when they are built: patterns
//! compiled once, a cursor decoded, a command checked
//! ([`check_command`]); the wait ceiling of the MCP tools is the caller's
//! business (the CLI waits as long as it is told).
//!
//! The answers and the pure parts (cursors, masks of typed input, the
//! caps of a wait's lines) are [`crate::tmux::follow`]'s.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::fit::{Fit, Limit, json_len};
use super::shape::Shape;
use super::{Op, Server};
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::mirror::echo::{Echoes, Line, has_unmasked_text};
use crate::mirror::follow::{Keep, Since, Spot, cursor_spot, lines_since, text_between};
use crate::mirror::marks::{self, MarkKind};
use crate::mirror::pane::{Mark, TypedFrom};
use crate::mirror::{PaneMeta, PaneMirror, PaneState, Progress, Status, Want};
use crate::search::Pattern;
use crate::term::{LineIndex, Term, fingerprint};
use crate::tmux::follow::{
    CaptureSinceResult, Entry, Outcome, RunCommandResult, RunOutcome, SinceCursor, Typing,
    WaitForTextResult, cap_lines, check_command, cursor_among, drop_typeahead, find_line,
    first_match, line_text, lossy, matches_outside, merge_ranges, wake_at,
};
use crate::tmux::{Error, PaneScope, Selector};

crate::record! {
    /// What following a pane lists of it besides its [`PaneMeta`], which
    /// comes first in the record ([`FOLLOWED_FIELDS`]).
    struct FollowedRow {
        pane_id: String = "pane_id",
        pane_pid: Option<i64> = "pane_pid",
    }
}

/// The variables a followed pane is listed with.
const FOLLOWED_FIELDS: &[&str] = &crate::concat_fields!(PaneMeta, FollowedRow);

/// A pane the mirror follows, as tmux listed it just now.
pub(super) struct Followed {
    pub(super) pane: Arc<PaneMirror>,
    pid: u32,
    /// Its foreground process (`#{pane_current_command}`).
    command: String,
}

/// `wait_for_text`: wait until new output of a pane matches (see
/// [`wait_for_text`]).
#[derive(Clone)]
pub struct WaitForTextRequest {
    /// The pane (a window or session: its active pane).
    pub pane: Selector,
    /// Patterns to wait for; `None`: any new output.
    pub patterns: Option<Vec<Arc<Pattern>>>,
    /// Patterns that end the wait early (checked before `patterns`).
    pub stop: Vec<Arc<Pattern>>,
    /// How long to wait.
    pub timeout: Duration,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<Progress>,
    /// Redaction is on: a match that overlaps a secret of the line (read
    /// with the lines around it, so a key's body is one) does not count.
    pub redact: bool,
}

crate::fits_whole!(WaitForTextResult);

impl Op for WaitForTextRequest {
    type Response = WaitForTextResult;

    async fn run(self, server: &Server, _: Limit) -> Result<WaitForTextResult, Error> {
        within(self.timeout, async {
            let pane = pane_id(server, &self.pane).await?;
            wait_for_text(server, pane, &self).await
        })
        .await
    }

    fn redacting(self, on: bool) -> WaitForTextRequest {
        WaitForTextRequest { redact: on, ..self }
    }
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
pub(super) async fn within<T>(
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

/// `capture_since`: the lines of a pane that are new since a cursor (see
/// [`capture_since`]).
#[derive(Clone, Debug)]
pub struct CaptureSinceRequest {
    /// The pane.
    pub pane: Selector,
    /// Where the previous answer stopped; `None`: the visible screen.
    pub cursor: Option<SinceCursor>,
    /// Lines an answer holds at most.
    pub max_lines: usize,
    /// Bytes of text an answer holds at most (whole lines; a single longer
    /// line is cut).
    pub max_bytes: usize,
    /// Which lines an answer keeps when more are new: the oldest (the
    /// default: the cursor stops after them, nothing is lost) or the
    /// newest (libtmux-mcp: older ones are skipped).
    pub keep: Keep,
    /// Which of the lines an answer takes it returns ([`Shape`]); the
    /// cursor moves past them all.
    pub shape: Shape,
}

impl CaptureSinceRequest {
    /// A request for `pane` after `cursor` (decoded from the text a
    /// previous answer gave, [`SinceCursor::decode`]). Without a pane,
    /// session or window named, the cursor's pane.
    pub fn new(
        mut pane: Selector,
        cursor: Option<SinceCursor>,
        max_lines: usize,
        max_bytes: usize,
    ) -> CaptureSinceRequest {
        if let Some(c) = &cursor
            && pane == Selector::default()
        {
            pane.pane_id = Some(c.pane);
        }
        CaptureSinceRequest {
            pane,
            cursor,
            max_lines,
            max_bytes,
            keep: Keep::Oldest,
            shape: Shape::default(),
        }
    }
}

impl Op for CaptureSinceRequest {
    type Response = CaptureSinceResult;

    async fn run(self, server: &Server, limit: Limit) -> Result<CaptureSinceResult, Error> {
        let pane = pane_id(server, &self.pane).await?;
        // The byte limit also keeps the answer within the response limit
        // (escaping can make a line's JSON longer than its text; the fit
        // makes sure).
        let cap = limit
            .get()
            .map_or(usize::MAX, |b| b.saturating_sub(4096) / 2);
        let mut r = capture_since(
            server,
            pane,
            self.cursor.as_ref(),
            self.max_lines,
            self.max_bytes.min(cap),
            self.keep,
        )
        .await?;
        if self.shape.is_active() {
            // Cut first, so the cursor stays where the lines taken end;
            // the shape then picks which of them are returned, and the
            // answer only shrinks (the fit after this one keeps it).
            r.fit(limit);
            r.lines_omitted = self.shape.apply(&mut r.lines, String::as_str);
        }
        Ok(r)
    }

    fn redacting(self, on: bool) -> CaptureSinceRequest {
        let shape = Shape {
            redact: on,
            ..self.shape
        };
        CaptureSinceRequest { shape, ..self }
    }
}

impl Fit for CaptureSinceResult {
    /// Leaves out lines (an eighth at a time) until the answer fits: the
    /// newest with `keep: "oldest"` (the cursor moves back before them, so
    /// the next call returns them: `lines_remaining`), the oldest with
    /// `keep: "newest"` (counted in `truncated_lines` and
    /// `truncated_bytes`). A single line left is cut in half until it fits.
    fn fit(&mut self, limit: Limit) {
        let Some(b) = limit.get() else { return };
        while json_len(self) > b && !self.lines.is_empty() {
            self.truncated = true;
            if self.lines.len() == 1 {
                let l = &mut self.lines[0];
                let mut at = l.len() / 2;
                while !l.is_char_boundary(at) {
                    at -= 1;
                }
                self.truncated_bytes += l.len() - at;
                l.truncate(at);
                if at == 0 {
                    break;
                }
                continue;
            }
            let n = self.lines.len().div_ceil(8).min(self.lines.len() - 1);
            if self.resume.keep == Keep::Oldest && self.resume.moves {
                let keep = self.lines.len() - n;
                self.lines.truncate(keep);
                self.resume.hashes.truncate(keep);
                self.lines_remaining += n as u64;
                self.truncated_lines += n;
                let mut c = self.resume.cursor;
                c.next = c.next + keep as u64;
                c.hash = self.resume.hashes.last().copied().unwrap_or(c.hash);
                self.cursor = c.encode();
            } else {
                for l in self.lines.drain(..n) {
                    self.truncated_bytes += l.len();
                    self.truncated_lines += 1;
                }
                self.resume.hashes.drain(..n);
            }
        }
    }
}

/// `run_command`: type a command at a pane's shell prompt and wait for it
/// (see [`run_command`]).
#[derive(Clone)]
pub struct RunCommandRequest {
    /// The pane.
    pub pane: Selector,
    /// The shell command (may span lines).
    pub command: String,
    /// How long to wait for it.
    pub timeout: Duration,
    /// Lines of output kept (the newest); `None`: all, within the
    /// response limit.
    pub max_lines: Option<usize>,
    /// Type a leading space, so shells with `ignorespace` keep the
    /// command out of their history.
    pub suppress_history: bool,
    /// Send C-c when the time runs out.
    pub interrupt_on_timeout: bool,
    /// Type the command as it is and read its end from the shell's own
    /// marks ([`super::commands::run_marked`]) instead of wrapping it.
    pub marks: bool,
    /// Where to report progress.
    pub progress: Option<Progress>,
}

impl RunCommandRequest {
    /// A run of `command` in `pane` for at most `timeout`; the other
    /// fields at their defaults (all output, in history, no C-c).
    ///
    /// # Errors
    ///
    /// As [`check_command`] (with `suppress_history` false).
    pub fn new(pane: Selector, command: String, timeout: Duration) -> Result<Self, Error> {
        check_command(&command, false)?;
        Ok(RunCommandRequest {
            pane,
            command,
            timeout,
            max_lines: None,
            suppress_history: false,
            interrupt_on_timeout: false,
            marks: false,
            progress: None,
        })
    }
}

impl Op for RunCommandRequest {
    type Response = RunCommandResult;

    async fn run(self, server: &Server, _: Limit) -> Result<RunCommandResult, Error> {
        check_command(&self.command, self.suppress_history)?;
        within(self.timeout, async {
            let pane = pane_id(server, &self.pane).await?;
            if self.marks {
                return super::commands::run_marked(server, pane, &self).await;
            }
            run_command(server, pane, &self).await
        })
        .await
    }
}

impl Fit for RunCommandResult {
    /// Leaves out the oldest output lines (an eighth at a time) until the
    /// answer fits, counting them in `output_truncated_lines`.
    fn fit(&mut self, limit: Limit) {
        let Some(b) = limit.get() else { return };
        while json_len(self) > b && !self.output.is_empty() {
            let n = self.output.len().div_ceil(8);
            self.output.drain(..n);
            self.output_truncated_lines += n;
            self.output_truncated = true;
        }
    }
}

/// The id of the pane `sel` names (a window or session: its active pane;
/// one round trip then).
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); connection
/// errors.
pub async fn pane_id(server: &Server, sel: &Selector) -> Result<PaneId, Error> {
    let target = server.resolve_pane(sel).await?;
    if let Target::Pane(p) = target {
        return Ok(p);
    }
    let info = super::info::pane_info(server, &target).await?;
    info.pane_id
        .parse()
        .map_err(|_| Error::not_found(format!("can't find pane: {target}")))
}

/// The mirror's copy of `pane`, followed and just confirmed by tmux (see
/// [`follow`]).
///
/// # Errors
///
/// As [`follow`]: `NotFound`, `Unsupported` (mirror off), connection
/// errors.
pub(super) async fn followed_copy(server: &Server, pane: PaneId) -> Result<Arc<PaneMirror>, Error> {
    Ok(follow(server, pane, None, None).await?.pane)
}

/// Makes sure the mirror follows `pane` and tmux has just confirmed
/// its copy ([`Want::Current`]).
///
/// Something else may change the pane meanwhile: its session killed (the
/// watch of the session it was listed in cannot open, or ends with the
/// seed out), its window moved to another session, the pane respawned or
/// resized. A sync that gave up before its time is then asked again from
/// a fresh listing ([`SYNC_TRIES`] times in all), and a pane that is gone
/// by then is `NotFound`, as a pane that was never there: never a timeout
/// the caller is told to retry.
pub(super) async fn follow(
    server: &Server,
    pane: PaneId,
    progress: Option<&Progress>,
    within: Option<Duration>,
) -> Result<Followed, Error> {
    follow_with(server, pane, Want::Current, progress, within).await
}

/// [`follow`], the copy as `want` says (its history read, for one).
pub(super) async fn follow_with(
    server: &Server,
    pane: PaneId,
    want: Want,
    progress: Option<&Progress>,
    within: Option<Duration>,
) -> Result<Followed, Error> {
    let Some(m) = server.mirror().await else {
        // Distinguish a server that is gone from a mirror turned off.
        server.connect().await?;
        return Err(Error::unsupported(
            "this tool follows the pane's output and needs the pane mirror, which is off",
        ));
    };
    let limit = within.map_or(m.options().sync_timeout, |w| {
        w.min(m.options().sync_timeout)
    });
    let began = std::time::Instant::now();
    let limited = || {
        m.session_limit()
            .map(|why| Error::new(crate::tmux::ErrorKind::HostSessionLimit, why))
    };
    let mut tries = 0;
    loop {
        tries += 1;
        // Fails NotFound for a pane that is gone (and says so for a
        // server that went away).
        let (row, meta) = followed_row(server, pane).await?;
        let session = meta
            .session_id
            .parse()
            .map_err(|_| Error::connection("tmux listed a pane without a session"))?;
        let pid = row
            .pane_pid
            .and_then(|p| u32::try_from(p).ok())
            .unwrap_or(0);
        let command = meta.pane_current_command.clone();
        let left = limit.saturating_sub(began.elapsed());
        let synced = std::time::Instant::now();
        let confirmed = m
            .sync_within(&[(pane, session, meta)], want, progress, Some(left))
            .await;
        let copy = m.pane(pane);
        // A live copy that tmux did not confirm is still fed in the order
        // tmux sent its output: its check was taken while this pane and
        // another printed, which proves nothing either way (the copy is
        // checked again at the next call). One not live after the sync was
        // still being seeded when the time ran out, or its session went.
        if let Some(p) = copy.filter(|p| {
            let st = p.view();
            (confirmed.contains(&pane) || matches!(st.status(), Status::Dead | Status::Live))
                && st.term().is_some()
        }) {
            return Ok(Followed {
                pane: p,
                pid,
                command,
            });
        }
        if let Some(e) = limited() {
            return Err(e);
        }
        // The sync gave up before its time: the session it was asked of
        // went (or the pane left it). Asked again from a fresh listing,
        // which also tells a pane that is gone.
        let early = synced.elapsed() + SYNC_EARLY < left;
        if early && tries < SYNC_TRIES {
            continue;
        }
        // Gone by now (or the server went away): said so.
        followed_row(server, pane).await?;
        let waited = began.elapsed();
        let waited = if waited < Duration::from_secs(1) {
            format!("{} ms", waited.as_millis())
        } else {
            format!("{:.0} s", waited.as_secs_f64())
        };
        return Err(Error::timeout(format!(
            "tmux did not send the copy of pane {pane} (its capture-pane) within {waited}: \
             tmux answers only after the output it has not sent yet, which a pane printing \
             as fast as it can (or a stopped server) holds up"
        )));
    }
}

/// Times [`follow`] syncs a pane whose sync gave up early (its session
/// went while it was asked).
const SYNC_TRIES: u32 = 3;

/// A sync that ends more than this before its time gave up: it did not
/// run out of time.
const SYNC_EARLY: Duration = Duration::from_millis(100);

/// `pane`'s listing, as [`follow`] reads it.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when tmux
/// no longer has the pane; connection errors.
async fn followed_row(server: &Server, pane: PaneId) -> Result<(FollowedRow, PaneMeta), Error> {
    let target = Target::Pane(pane);
    let recs =
        super::list::pane_records(server, &PaneScope::Window(target), FOLLOWED_FIELDS).await?;
    let pane_str = pane.to_string();
    recs.iter()
        .map(|r| {
            let row = FollowedRow::from_record_at(r, PaneMeta::FIELDS.len());
            (row, PaneMeta::from_record(r))
        })
        .find(|(row, _)| row.pane_id == pane_str)
        .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))
}

/// How often a wait asks tmux whether its pane still runs. tmux tells
/// control clients when a pane is destroyed (`%layout-change`,
/// `%window-close`, `%sessions-changed`: the watch lists the panes again
/// and marks the copy dead) and a watch's connection ends when the server
/// exits, and both wake a wait at once; but a `remain-on-exit` pane whose
/// program exits changes nothing tmux notifies (server.c
/// `server_destroy_pane()` writes its "Pane is dead" line to the pane's
/// screen, not as `%output`). tmux's own answer for that would be a
/// `refresh-client -B` subscription, which tmux before 3.7 can crash on
/// when the client's session goes away (tmux issue 4916), so a wait asks
/// instead: one `display-message` per this interval while it waits.
const LIVENESS_EVERY: Duration = Duration::from_millis(500);

/// What tmux says of a followed pane when asked directly.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Liveness {
    /// Its program runs.
    Alive,
    /// Its program exited and tmux keeps the pane (`remain-on-exit`),
    /// with what tmux knows of how it ended.
    Exited(Exit),
    /// tmux has no such pane.
    Gone,
}

/// How a dead pane's program ended, as tmux says: its exit status or the
/// signal that ended it, once tmux has reaped it (server.c
/// `server_child_exited()` sets `PANE_STATUSREADY`; format.c prints
/// `#{pane_dead_status}` for an exit and `#{pane_dead_signal}` for a
/// signal, and nothing before).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Exit {
    /// The exit status (`#{pane_dead_status}`).
    pub(super) status: Option<i32>,
    /// The signal (`#{pane_dead_signal}`: its name, `KILL`, or its number
    /// where tmux's C library names none, compat `sig2name()`).
    pub(super) signal: Option<String>,
    /// Why neither is known, when they are not.
    pub(super) unknown: Option<String>,
}

impl Exit {
    /// Whether tmux has reaped the program (a status or a signal).
    fn known(&self) -> bool {
        self.status.is_some() || self.signal.is_some()
    }
}

/// The format [`liveness`] asks: the server's pid, the pane it answers
/// for, its dead flag, and its status and signal, each after a letter
/// (either may be empty).
const LIVENESS_FORMAT: &str =
    "#{pid} #{pane_id} #{pane_dead} s#{pane_dead_status} g#{pane_dead_signal}";

/// Asks tmux whether `pane` still runs (one round trip:
/// `display-message -p` [`LIVENESS_FORMAT`], which a program in the pane
/// cannot forge). `display-message` finds its target with
/// `CMD_FIND_CANFAIL` (cmd-display-message.c): for a pane that is gone
/// it answers for another one, so the answer names the pane it is about.
/// `server_pid`: the server the wait began on (another pid on the socket
/// is another server). An answer that says nothing certain is
/// [`Liveness::Alive`]: the wait goes on.
///
/// `reap`: `run-shell true` first, in the same round trip. tmux reaps its
/// children only on `SIGCHLD` (server.c `server_child_signal()`, which
/// waits for every child that exited), and tmux misses some: seen on
/// Debian's 3.3a, in about one exit in 20 to 40, the pane's program a
/// zombie for over 10 s with `#{pane_dead}` 1 and `#{pane_dead_status}`
/// empty, until another child of tmux exited. That build links
/// libutempter, and `server_destroy_pane()` calls
/// `utempter_remove_record()` when the pane's terminal closes, whose own
/// `SIGCHLD` handler takes the signal of a program that exits meanwhile
/// (tmux issue 311; spawn.c raises `SIGCHLD` again after adding the
/// record, but nothing does after removing it). `run-shell` answers once
/// its job has exited and been reaped, by the same loop of `waitpid()`
/// that reaps the pane's program: after it, neither a status nor a
/// signal means the program has not exited.
///
/// # Errors
///
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when no
/// server answers on the socket any more (or another one does).
async fn liveness(
    server: &Server,
    pane: PaneId,
    server_pid: Option<u32>,
    reap: bool,
) -> Result<Liveness, Error> {
    use crate::tmux::ErrorKind;
    let gone = |why: &str| {
        Error::server_gone(format!(
            "the tmux server exited while tmuxwire waited on pane {pane} ({why})"
        ))
    };
    let cmd = Command::new("display-message")
        .target(&Target::Pane(pane), TargetKind::Pane)
        .arg("-p")
        .arg(LIVENESS_FORMAT);
    let answer = if reap {
        let cmds = [Command::new("run-shell").arg("true"), cmd];
        // run-shell's own answer does not matter (a shell that cannot
        // run `true` still exits).
        server.run_all(&cmds).await.map(|mut outs| outs.pop())
    } else {
        server.run(&cmd).await.map(Some)
    };
    let out = match answer {
        Ok(Some(o)) => o,
        Ok(None) => return Ok(Liveness::Alive),
        Err(e) => {
            return match e.kind() {
                ErrorKind::NoServer
                | ErrorKind::SocketGone
                | ErrorKind::Connection
                | ErrorKind::ServerGone => Err(gone(&e.to_string())),
                _ => {
                    tracing::debug!(%pane, %e, "liveness: no answer");
                    Ok(Liveness::Alive)
                }
            };
        }
    };
    let text = match out.into_result() {
        Ok(body) => String::from_utf8_lossy(&body).into_owned(),
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Liveness::Gone),
        Err(e) => {
            tracing::debug!(%pane, %e, "liveness: tmux refused");
            return Ok(Liveness::Alive);
        }
    };
    Ok(match parse_liveness(&text, server_pid, pane) {
        Some(l) => l,
        None => return Err(gone("another server answers on its socket")),
    })
}

/// Reads the answer of [`liveness`]'s command about `pane`: `None` when
/// the server's pid is not `server_pid` (when known); [`Liveness::Gone`]
/// when it is about another pane. A signal name is taken only as tmux
/// writes one (letters and digits, `sig2name()`).
fn parse_liveness(text: &str, server_pid: Option<u32>, pane: PaneId) -> Option<Liveness> {
    let mut words = text.split_whitespace();
    let pid = words.next().and_then(|w| w.parse::<u32>().ok());
    if let (Some(want), Some(got)) = (server_pid, pid)
        && want != got
    {
        return None;
    }
    if words.next() != Some(pane.to_string().as_str()) {
        return Some(Liveness::Gone);
    }
    if words.next() != Some("1") {
        return Some(Liveness::Alive);
    }
    let status = words
        .next()
        .and_then(|w| w.strip_prefix('s'))
        .and_then(|w| w.parse().ok());
    let signal = words
        .next()
        .and_then(|w| w.strip_prefix('g'))
        .filter(|w| !w.is_empty() && w.len() <= 16 && w.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(str::to_string);
    Some(Liveness::Exited(Exit {
        status,
        signal,
        unknown: None,
    }))
}

/// How a followed pane ended during a wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ended {
    /// Its program exited; tmux keeps the pane.
    Exited(Exit),
    /// The pane is gone.
    Gone,
}

/// Why a wait whose pane is gone has no exit status
/// ([`Ended::exit`]).
const GONE_UNKNOWN: &str = "tmux destroyed the pane (kill-pane, or its program ended with \
     remain-on-exit off) and keeps no exit status; with remain-on-exit on, a wait says it";

impl Ended {
    /// What the answer says of the program's end: its status, its
    /// signal, or why neither is known.
    pub(super) fn exit(&self) -> Exit {
        match self {
            Ended::Exited(e) => e.clone(),
            Ended::Gone => Exit {
                unknown: Some(GONE_UNKNOWN.into()),
                ..Exit::default()
            },
        }
    }
}

/// [`Ended::exit`] of a wait that may not have ended so.
pub(super) fn exit_of(ended: Option<&Ended>) -> Exit {
    ended.map(Ended::exit).unwrap_or_default()
}

/// Watches, during a wait, whether the pane and its server are still
/// there: on every wake the wait asks [`Vigil::check`], which asks tmux
/// when the copy says the pane died or lost its feed, and every
/// [`LIVENESS_EVERY`] otherwise.
pub(super) struct Vigil {
    pane: PaneId,
    server_pid: Option<u32>,
    next: tokio::time::Instant,
    /// The copy was found dead or unfed and tmux asked: not asked again
    /// for that before the next interval.
    asked_early: bool,
    /// When tmux first said the pane is dead without saying how its
    /// program ended: tmux has not reaped it (see [`liveness`]), so it is
    /// asked again, each time after making tmux reap, for up to
    /// [`STATUS_GRACE`].
    exited_at: Option<tokio::time::Instant>,
}

/// How long a wait asks again how the program of a pane tmux says is
/// dead ended, when tmux has not reaped it even after `run-shell` made it
/// wait for its children (see [`liveness`]): the program closed its
/// terminal but still runs (it may never exit). The wait then ends
/// `exited`, saying why the status is unknown (`pane_exit_unknown`).
const STATUS_GRACE: Duration = Duration::from_millis(1500);

/// How soon it asks again meanwhile (each time forking `true` in tmux).
const STATUS_AGAIN: Duration = Duration::from_millis(250);

/// Why a dead pane's exit status is unknown after [`STATUS_GRACE`].
fn not_reaped(grace: Duration) -> String {
    format!(
        "the pane's program closed its terminal but had not exited {:.1} s later (tmux \
         reaps it when it exits; its status is then #{{pane_dead_status}})",
        grace.as_secs_f64()
    )
}

impl Vigil {
    pub(super) async fn new(server: &Server, pane: PaneId) -> Vigil {
        Vigil {
            pane,
            server_pid: server.mirrored_server_pid().await,
            next: tokio::time::Instant::now() + LIVENESS_EVERY,
            asked_early: false,
            exited_at: None,
        }
    }

    /// When the wait must wake to ask tmux next.
    pub(super) fn wake_at(&self) -> tokio::time::Instant {
        self.next
    }

    /// Whether the pane ended (`Some`), after looking at its copy `f` and,
    /// when that says the pane died or no connection feeds it, or the
    /// interval is up, asking tmux. A copy that lost its feed while the
    /// pane runs (its session's connection closed) is followed again.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone).
    pub(super) async fn check(
        &mut self,
        server: &Server,
        f: &Followed,
    ) -> Result<Option<Ended>, Error> {
        let (dead, unfed) = {
            let st = f.pane.view();
            (
                st.status() == Status::Dead,
                st.status() != Status::Live && st.owner().is_none(),
            )
        };
        let now = tokio::time::Instant::now();
        let due = now >= self.next;
        if !due && (!(dead || unfed) || self.asked_early) {
            return Ok(None);
        }
        self.asked_early = !due;
        if due {
            self.next = now + LIVENESS_EVERY;
        }
        // Once tmux said the pane is dead without how its program ended,
        // every question makes tmux reap first (see [`liveness`]).
        let reap = self.exited_at.is_some();
        let mut answer = liveness(server, self.pane, self.server_pid, reap).await?;
        if !reap && matches!(&answer, Liveness::Exited(e) if !e.known()) {
            self.exited_at = Some(now);
            answer = liveness(server, self.pane, self.server_pid, true).await?;
            tracing::debug!(pane = %self.pane, ?answer, "dead without a status: asked again after making tmux reap");
        }
        match answer {
            Liveness::Gone => Ok(Some(Ended::Gone)),
            // The copy is left as it is: the watch seeds a dead pane
            // as dead, and a respawned one anew.
            Liveness::Exited(e) if e.known() => Ok(Some(Ended::Exited(e))),
            Liveness::Exited(mut e) => {
                let at = *self.exited_at.get_or_insert(now);
                if now < at + STATUS_GRACE {
                    self.next = now + STATUS_AGAIN;
                    return Ok(None);
                }
                e.unknown = Some(not_reaped(STATUS_GRACE));
                Ok(Some(Ended::Exited(e)))
            }
            Liveness::Alive if dead => {
                // The copy says dead but tmux says it runs (respawned):
                // nothing more comes to this copy.
                let status = f.pane.view().exit_status();
                Ok(Some(Ended::Exited(Exit {
                    status,
                    signal: None,
                    unknown: status.is_none().then(|| {
                        "the pane was respawned before tmux was asked how its program ended".into()
                    }),
                })))
            }
            Liveness::Alive => {
                if unfed {
                    // Followed again, on a connection of its own; a copy
                    // that cannot be is asked about again next interval.
                    match follow(server, self.pane, None, None).await {
                        Ok(again) if Arc::ptr_eq(&again.pane, &f.pane) => {}
                        Ok(_) => {
                            return Err(Error::server_gone(format!(
                                "the tmux server was restarted while tmuxwire waited on pane {}",
                                self.pane
                            )));
                        }
                        Err(e) if e.kind() == crate::tmux::ErrorKind::NotFound => {
                            return Ok(Some(Ended::Gone));
                        }
                        Err(e) => tracing::debug!(pane = %self.pane, %e, "could not follow again"),
                    }
                }
                Ok(None)
            }
        }
    }
}

/// Waits until new output of `pane` matches (see the module docs and
/// [`WaitForTextResult`]).
///
/// Lines count as new when they come after the line the cursor was on
/// when the wait began. Of that line itself, only what was written after
/// the wait began counts, appended or written over what it held (from
/// the first byte that differs: a spinner's frame replaced by the final
/// status after `\r`, or `\r` + `CSI K`, is new text): a line holding a
/// prompt is where a command typed just before echoes, and the echo is
/// not output (public case C13). Every echo
/// of text tmuxwire typed into the pane (typeahead the tty echoed
/// while the program was busy, a line editor's later redraws, at any
/// column, over several rows, or still being drawn) is masked out of
/// the lines looked at ([`crate::mirror::echo`]), and patterns match
/// only in what is left, each part on its own. Each change of the copy
/// wakes the wait; only the lines that changed (and the line before
/// the cursor's, which an echo may carry over into it) are matched
/// again.
///
/// The wait also ends when the pane's program exits and tmux keeps the
/// pane (`exited`, with `pane_exit_status`) or the pane is gone
/// (`pane_gone`), within about [`LIVENESS_EVERY`] (at once when tmux
/// notifies it), after the pane's last output was matched.
///
/// # Errors
///
/// A missing pane; the mirror being off;
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when the
/// server exits during the wait; connection errors.
pub async fn wait_for_text(
    server: &Server,
    pane: PaneId,
    req: &WaitForTextRequest,
) -> Result<WaitForTextResult, Error> {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + req.timeout;
    let f = follow(server, pane, None, Some(req.timeout / 2)).await?;
    let mut typing = Typing::new(pane);
    typing.refresh(&server.typed);

    // The state at entry.
    let typed = f.pane.typed_from();
    let (entry_line, entry, matched_at_entry) = {
        let st = f.pane.view();
        let Some(t) = st.term() else {
            return Err(Error::not_found(format!("can't find pane: {pane}")));
        };
        entry_state(
            t,
            st.epoch(),
            &typing.echoes,
            req.patterns.as_deref(),
            typed,
            req.redact,
        )
    };
    // Subscribed after the entry state was read: a change in between
    // is seen by the first look below; later ones wake the wait.
    let mut rx = f.pane.subscribe();
    let mut w = Wait::new(req, entry_line, entry);
    let mut vigil = Vigil::new(server, pane).await;
    let mut input = super::reading::InputWatch::new(pane);
    let mut ended = None;
    let mut reading = None;
    loop {
        typing.refresh(&server.typed);
        w.look_at(&f.pane, &typing.echoes);
        if w.outcome.is_some() {
            break;
        }
        reading = input.check(server, &f).await?;
        if reading.is_some() {
            break;
        }
        ended = vigil.check(server, &f).await?;
        if ended.is_some() {
            // What the pane printed meanwhile is still matched.
            typing.refresh(&server.typed);
            w.look_at(&f.pane, &typing.echoes);
            break;
        }
        if let Some(p) = &req.progress {
            let waited = started.elapsed().as_secs();
            p(waited, req.timeout.as_secs().max(1), "waiting for output");
        }
        let wake = wake_at(deadline, req.progress.as_ref())
            .min(vigil.wake_at())
            .min(input.wake_at());
        match tokio::time::timeout_at(wake, rx.changed()).await {
            Ok(Ok(())) => {}
            // The copy is gone (mirror stopped).
            Ok(Err(_)) => break,
            // The time is up, or a progress tick, a liveness check or a
            // look at the terminal's settings is due.
            Err(_) if tokio::time::Instant::now() >= deadline => break,
            Err(_) => {}
        }
    }
    let dead = ended.is_some() || f.pane.view().status() == Status::Dead;
    if let Some((i, evidence)) = reading {
        w.outcome = Some(Outcome::of_reading(i));
        w.evidence = evidence;
    }
    let mut r = w.finish(pane, matched_at_entry, dead, ended);
    r.elapsed_seconds = started.elapsed().as_secs_f64();
    Ok(r)
}

/// Where a wait begins on `t` (the copy at `epoch`): the entry line, how
/// it is treated, and whether one of `patterns` already matches the
/// visible screen (outside its secrets with `redact`). `typed`: where
/// tmuxwire last began typing into the pane.
fn entry_state(
    t: &Term,
    epoch: u64,
    echoes: &Echoes,
    patterns: Option<&[Arc<Pattern>]>,
    typed: Option<TypedFrom>,
    redact: bool,
) -> (LineIndex, Entry, bool) {
    let spot = cursor_spot(t);
    let since = lines_since(t, spot.line, 0, Keep::Newest);
    let screen: Vec<_> = t.screen_logical_lines().collect();
    let window: Vec<Line<'_>> = screen
        .iter()
        .map(|l| Line {
            index: l.index,
            text: &l.text,
        })
        .collect();
    let mut masks = echoes.mask(
        &window,
        cursor_among(t, &window, spot, echoes),
        (!t.alternate_on()).then_some(epoch),
    );
    if redact {
        mask_secrets(window.iter().map(|l| l.text), &mut masks);
    }
    let at_entry = patterns.is_some_and(|ps| {
        window
            .iter()
            .zip(&masks)
            .any(|(l, m)| ps.iter().any(|p| matches_outside(p, l.text, m)))
    });
    // Input tmuxwire typed in the last seconds: what the pane printed
    // from that line on answers it, even if it came before this wait (a
    // fast command typed by send_keys just before).
    match typed {
        Some(from) if from.epoch == epoch && from.line < spot.line => {
            let entry = if from.had_text {
                Entry::Echo
            } else {
                Entry::Whole
            };
            (from.line, entry, at_entry)
        }
        _ if since.partial.is_empty() => (spot.line, Entry::Whole, at_entry),
        _ => (spot.line, Entry::After(since.partial), at_entry),
    }
}

/// Lines to match, each with its masked ranges.
type Candidates = Vec<(Vec<u8>, Vec<Range<usize>>)>;

/// Adds the secrets of `lines` (consecutive lines: a key's body spans
/// them) to their `masks`, so no match overlapping one counts.
fn mask_secrets<'a>(lines: impl Iterator<Item = &'a [u8]>, masks: &mut [Vec<Range<usize>>]) {
    let lines: Vec<&[u8]> = lines.collect();
    for (m, spans) in masks.iter_mut().zip(crate::redact::find_in_lines(&lines)) {
        if !spans.is_empty() {
            m.extend(spans.into_iter().map(|s| s.range));
            merge_ranges(m);
        }
    }
}

/// A wait in progress: what it has looked at and found.
struct Wait<'r> {
    req: &'r WaitForTextRequest,
    entry_line: LineIndex,
    entry: Entry,
    /// Lines before `checked` (other than the entry line and the
    /// cursor's) have been looked at already; the last of them is looked
    /// at again while the cursor's line follows it, as an echo carried
    /// over a line break is told by the line after it.
    checked: LineIndex,
    entry_done: bool,
    /// The last complete line looked at, and whether it was output.
    last_seen: Option<(LineIndex, bool)>,
    tail: VecDeque<String>,
    partial_now: String,
    matched: VecDeque<String>,
    saw_new_output: bool,
    outcome: Option<Outcome>,
    matched_index: Option<usize>,
    alternate: bool,
    /// Why the pane's program is found reading (see [`Outcome::of_reading`]).
    evidence: Vec<String>,
}

impl<'r> Wait<'r> {
    fn new(req: &'r WaitForTextRequest, entry_line: LineIndex, entry: Entry) -> Wait<'r> {
        Wait {
            req,
            entry_line,
            entry,
            checked: entry_line + 1,
            entry_done: false,
            last_seen: None,
            tail: VecDeque::new(),
            partial_now: String::new(),
            matched: VecDeque::new(),
            saw_new_output: false,
            outcome: None,
            matched_index: None,
            alternate: false,
            evidence: Vec::new(),
        }
    }

    /// Looks at `pane`'s copy once, when it is live or dead (a copy being
    /// seeded again is looked at once it is).
    fn look_at(&mut self, pane: &PaneMirror, echoes: &Echoes) {
        let st = pane.view();
        if let Some(t) = st.term()
            && matches!(st.status(), Status::Live | Status::Dead)
        {
            self.look(t, st.epoch(), echoes);
        }
    }

    /// Looks at the copy `t` (at `epoch`) once: the lines new since the
    /// last look, matched outside the echoes of typed input.
    fn look(&mut self, t: &Term, epoch: u64, echoes: &Echoes) {
        self.alternate = t.alternate_on();
        let candidates = if self.alternate {
            self.partial_now.clear();
            screen_candidates(t, echoes)
        } else {
            self.new_lines(t, epoch, echoes)
        };
        self.match_candidates(&candidates);
        if self.alternate {
            self.tail = candidates.iter().map(|(c, _)| lossy(c)).collect();
            while self.tail.back().is_some_and(String::is_empty) {
                self.tail.pop_back();
            }
            cap_lines(&mut self.tail);
        }
    }

    /// The lines of the main screen not looked at yet (and the cursor's),
    /// noted in `tail` and `partial_now`: the output among them, masked.
    fn new_lines(&mut self, t: &Term, epoch: u64, echoes: &Echoes) -> Candidates {
        let spot = cursor_spot(t);
        let mut candidates = Candidates::new();
        let from = if self.entry_done {
            LineIndex(self.checked.0.saturating_sub(1)).max(self.entry_line)
        } else {
            self.entry_line
        };
        let since = lines_since(t, from, usize::MAX, Keep::Newest);
        let mut all: Vec<(LineIndex, Vec<u8>, bool)> = since
            .lines
            .into_iter()
            .enumerate()
            .map(|(k, l)| (since.first + k as u64, l, true))
            .collect();
        all.push((since.cursor_line, since.partial, false));
        let masks = {
            let window: Vec<Line<'_>> = all
                .iter()
                .map(|(i, text, _)| Line { index: *i, text })
                .collect();
            let cursor = cursor_among(t, &window, spot, echoes);
            echoes.mask(&window, cursor, Some(epoch))
        };
        let mut seen = None;
        for ((i, text, complete), mut mask) in all.into_iter().zip(masks) {
            // The entry line is new output the first time it is
            // complete; other complete lines, the first time they are
            // past `checked`.
            let mut again = complete && i < self.checked;
            if i == self.entry_line {
                again = complete && self.entry_done;
                self.entry_done |= complete;
                match &self.entry {
                    // The prompt line where tmuxwire typed: its echo, not
                    // output.
                    Entry::Echo => continue,
                    // A line that held text when the wait began (a
                    // prompt, or output still being written): only what
                    // was written since, appended or over it (a spinner's
                    // frame replaced by the final status, after `\r` or
                    // `\r` + `CSI K`), from the first byte that differs.
                    Entry::After(before) => {
                        let kept = common_prefix(before, &text);
                        if kept == text.len() {
                            continue;
                        }
                        mask.insert(0, 0..kept);
                        merge_ranges(&mut mask);
                    }
                    Entry::Whole => {}
                }
            }
            let output = has_unmasked_text(&text, &mask);
            if complete {
                seen = Some((i, output));
                // Looked at before: new output only if it was all echo
                // then (its next line has shown it is not).
                let fresh = !again || self.last_seen.is_some_and(|(l, was)| l == i && !was);
                if output && fresh {
                    self.saw_new_output = true;
                    self.tail.push_back(lossy(&text));
                }
            } else if output {
                self.saw_new_output = true;
                self.partial_now = lossy(&text);
            } else {
                self.partial_now.clear();
            }
            if output {
                candidates.push((text, mask));
            }
        }
        if seen.is_some() {
            self.last_seen = seen;
        }
        self.checked = self.checked.max(since.cursor_line);
        cap_lines(&mut self.tail);
        candidates
    }

    /// Matches `candidates`: stop patterns first, then the patterns (or
    /// any output), setting the outcome when one is reached.
    fn match_candidates(&mut self, candidates: &Candidates) {
        let req = self.req;
        let masked;
        let candidates = if req.redact {
            let mut c = candidates.clone();
            let mut masks: Vec<Vec<Range<usize>>> = c.iter().map(|(_, m)| m.clone()).collect();
            mask_secrets(c.iter().map(|(l, _)| l.as_slice()), &mut masks);
            for ((_, m), new) in c.iter_mut().zip(masks) {
                *m = new;
            }
            masked = c;
            &masked
        } else {
            candidates
        };
        if let Some((i, line)) = first_match(&req.stop, candidates) {
            self.outcome = Some(Outcome::Stopped);
            self.matched_index = Some(i);
            self.matched.push_back(lossy(line));
        } else if let Some(ps) = &req.patterns {
            for (c, m) in candidates {
                if let Some(i) = ps.iter().position(|p| matches_outside(p, c, m)) {
                    self.matched_index.get_or_insert(i);
                    self.matched.push_back(lossy(c));
                }
            }
            if !self.matched.is_empty() {
                self.outcome = Some(Outcome::Matched);
            }
        } else if self.saw_new_output && !self.alternate {
            self.outcome = Some(Outcome::AnyOutput);
        }
    }

    /// The answer once the wait ends (`elapsed_seconds` left at 0 for the
    /// caller).
    fn finish(
        mut self,
        pane: PaneId,
        matched_at_entry: bool,
        dead: bool,
        ended: Option<Ended>,
    ) -> WaitForTextResult {
        if !self.partial_now.is_empty() {
            self.tail.push_back(std::mem::take(&mut self.partial_now));
            cap_lines(&mut self.tail);
        }
        cap_lines(&mut self.matched);
        let exit = exit_of(ended.as_ref());
        let outcome = self.outcome.unwrap_or(match ended {
            Some(Ended::Exited(_)) => Outcome::Exited,
            Some(Ended::Gone) => Outcome::PaneGone,
            None if self.alternate => Outcome::AlternateScreen,
            None => Outcome::Timeout,
        });
        WaitForTextResult {
            found: matches!(outcome, Outcome::Matched | Outcome::AnyOutput),
            outcome,
            matched_index: self.matched_index,
            matched_lines: self.matched.into(),
            tail: self.tail.into(),
            saw_new_output: self.saw_new_output,
            matched_at_entry,
            alternate_screen: self.alternate,
            pane_id: pane.to_string(),
            elapsed_seconds: 0.0,
            effective_timeout: self.req.timeout.as_secs_f64(),
            pane_dead: dead,
            pane_exit_status: exit.status,
            pane_exit_signal: exit.signal,
            pane_exit_unknown: exit.unknown,
            evidence: self.evidence,
        }
    }
}

/// How many leading bytes `now` shares with `before`, backed off to the
/// start of a UTF-8 character of `now` (a character written over another
/// that shares its first bytes is new as a whole).
fn common_prefix(before: &[u8], now: &[u8]) -> usize {
    let mut k = before.iter().zip(now).take_while(|(a, b)| a == b).count();
    if k < now.len() {
        while k > 0 && now[k] & 0xc0 == 0x80 {
            k -= 1;
        }
    }
    k
}

/// The alternate screen's lines, masked: redrawn, not appended to, so
/// looked at afresh each time.
fn screen_candidates(t: &Term, echoes: &Echoes) -> Candidates {
    let spot = cursor_spot(t);
    let screen: Vec<_> = t.screen_logical_lines().collect();
    let window: Vec<Line<'_>> = screen
        .iter()
        .map(|l| Line {
            index: l.index,
            text: &l.text,
        })
        .collect();
    let masks = echoes.mask(&window, cursor_among(t, &window, spot, echoes), None);
    window
        .iter()
        .zip(masks)
        .map(|(l, m)| (l.text.to_vec(), m))
        .collect()
}

/// The lines of `pane` that are new since `cursor` (see
/// [`CaptureSinceResult`]); without a cursor, the visible screen's
/// complete lines.
///
/// At most `max_lines` lines and `max_bytes` bytes of text are returned;
/// `keep` says which when more are new: [`Keep::Oldest`] returns the
/// oldest and a cursor just after them (`lines_remaining` counts the
/// rest, which the next call returns), [`Keep::Newest`] skips the older
/// ones (libtmux-mcp). A single line longer than `max_bytes` is cut to
/// its first `max_bytes` bytes (the rest is counted in
/// `truncated_bytes`), so a follower always moves on.
///
/// A pane that is gone answers from its last copy until every line was
/// returned (`pane_dead`, `lines_remaining` 0 on the last answer).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a cursor of another pane or server,
/// or of a pane that was respawned; [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a pane
/// that is gone and whose lines have all been returned (or whose copy
/// was dropped).
pub async fn capture_since(
    server: &Server,
    pane: PaneId,
    cursor: Option<&SinceCursor>,
    max_lines: usize,
    max_bytes: usize,
    keep: Keep,
) -> Result<CaptureSinceResult, Error> {
    let started = Instant::now();
    let f = follow_or_last(server, pane).await?;
    let server_pid = server.mirrored_server_pid().await.unwrap_or(0);
    if let Some(c) = cursor {
        check_cursor(c, server_pid, pane, f.pid)?;
    }
    // A snapshot: finding the cursor's line may walk the history.
    let st = f.pane.snapshot();
    let dead = st.status() == Status::Dead;
    let Some(t) = st.term() else {
        return Err(Error::not_found(format!("can't find pane: {pane}")));
    };
    let alternate = t.alternate_on();
    let (from, mut missed) = resume_from(t, cursor, alternate);
    let since = if alternate && cursor.is_some() {
        Since {
            first: from,
            lines: Vec::new(),
            cursor_line: from,
            partial: Vec::new(),
        }
    } else {
        lines_since(t, from, max_lines, keep)
    };
    if since.first > from {
        let trimmed = from < t.history().first_index();
        missed |= trimmed;
    }
    if dead && since.lines.is_empty() && cursor.is_some() {
        return Err(Error::not_found(format!(
            "pane {pane} is dead and all of its output has been returned"
        )));
    }
    // Lines between the cursor and the first line returned, trimmed by
    // tmux or skipped for the newest (libtmux-mcp counts both).
    let skipped = (since.cursor_line.0.saturating_sub(from.0) as usize)
        .saturating_sub(since.lines.len() + since.remaining() as usize);
    let cut = keep_bytes(since.lines, max_bytes, keep);
    let first = since.first + cut.dropped_front as u64;
    let next = if alternate && cursor.is_some() {
        from
    } else if keep == Keep::Newest {
        since.cursor_line
    } else {
        first + cut.lines.len() as u64
    };
    let lines_remaining = since.cursor_line.0.saturating_sub(next.0);
    let truncated_lines = if keep == Keep::Newest {
        skipped + cut.dropped_front
    } else {
        lines_remaining as usize
    };
    let hash_before = if first.0 == 0 {
        0
    } else {
        line_text(t, LineIndex(first.0 - 1)).map_or(0, |l| fingerprint(&l))
    };
    let hash = if next == first {
        hash_before
    } else {
        cut.hashes.last().copied().unwrap_or(0)
    };
    let new_cursor = SinceCursor {
        server_pid,
        pane,
        pane_pid: f.pid,
        next,
        hash,
    };
    Ok(CaptureSinceResult {
        pane_id: pane.to_string(),
        cursor: new_cursor.encode(),
        lines: cut.lines,
        partial_line: lossy(&since.partial),
        elapsed_seconds: started.elapsed().as_secs_f64(),
        lines_missed: missed,
        truncated: truncated_lines > 0 || cut.bytes > 0,
        truncated_lines,
        truncated_bytes: cut.bytes,
        lines_omitted: 0,
        lines_remaining,
        alternate_screen: alternate,
        pane_dead: dead,
        resume: crate::tmux::follow::Resume {
            cursor: SinceCursor {
                next: first,
                hash: hash_before,
                ..new_cursor
            },
            hashes: cut.hashes,
            keep,
            moves: !(alternate && cursor.is_some()),
        },
    })
}

/// [`follow`], or for a pane tmux no longer has, its last copy (marked
/// dead) once the watch that fed it has answered a question asked after
/// the pane went: tmux sends a pane's output before any later answer on
/// the same connection, so the copy then holds every byte the pane
/// printed. The pid of a gone pane is not known (0: not checked).
async fn follow_or_last(server: &Server, pane: PaneId) -> Result<Followed, Error> {
    // With the history: lines a follower has not read may have scrolled
    // into it while the copy was seeded again.
    let gone = match follow_with(server, pane, Want::History, None, None).await {
        Err(e) if e.kind() == crate::tmux::ErrorKind::NotFound => e,
        r => return r,
    };
    let Some(m) = server.mirror().await else {
        return Err(gone);
    };
    let Some(p) = m.pane(pane).filter(|p| p.view().term().is_some()) else {
        return Err(match m.dropped(pane) {
            Some(why) => Error::not_found(format!("pane {pane} is gone: {why}")),
            None => gone,
        });
    };
    if p.view().status() != Status::Dead {
        m.refresh(&[pane], Want::Current).await;
        p.mark_dead();
    }
    Ok(Followed {
        pane: p,
        pid: 0,
        command: String::new(),
    })
}

/// Checks that cursor `c` continues this copy: the same server, the pane
/// asked for, the same program (`pane_pid`; 0 when unknown).
fn check_cursor(
    c: &SinceCursor,
    server_pid: u32,
    pane: PaneId,
    pane_pid: u32,
) -> Result<(), Error> {
    if c.server_pid != server_pid {
        return Err(Error::invalid(
            "cursor",
            "the cursor is from another tmux server (or the server was restarted)",
            "a cursor returned by capture_since on this server, or null to start over",
        ));
    }
    if c.pane != pane {
        return Err(Error::invalid(
            "cursor",
            format!(
                "cursor pane {} does not match requested pane {pane}",
                c.pane
            ),
            "the pane the cursor came from, or no target (the cursor's pane is used)",
        ));
    }
    if pane_pid != 0 && c.pane_pid != pane_pid {
        return Err(Error::invalid(
            "cursor",
            format!(
                "pane {pane} was respawned (pid {} -> {}); its earlier output is gone",
                c.pane_pid, pane_pid
            ),
            "null, to start over from the visible screen",
        ));
    }
    Ok(())
}

/// The first line of `t` a `capture_since` after `cursor` returns, and
/// whether lines the follower had not read are gone.
///
/// Line indexes survive what tmux drops (trims, `clear-history`) and a
/// copy seeded again ([`crate::mirror::follow::continued_first`]), so the
/// cursor's `next` is trusted: lines before the oldest one held that the
/// follower had not read were dropped (`lines_missed`). The hash of the
/// last line returned confirms the numbering while that line is held; a
/// line held with another text is looked for by its hash (the newest one
/// before the cursor), and when none has it (it was written over in
/// place), the numbering stands. A cursor past the cursor's line (a copy
/// numbered anew) starts at the cursor's line, saying lines may be lost.
fn resume_from(t: &Term, cursor: Option<&SinceCursor>, alternate: bool) -> (LineIndex, bool) {
    let Some(c) = cursor else {
        return (t.history().end_index(), false);
    };
    if alternate {
        return (cursor_spot(t).line, false);
    }
    let first = t.history().first_index();
    if c.next.0 == 0 || LineIndex(c.next.0 - 1) < first {
        // The last line returned is no longer held.
        return (c.next, c.next < first);
    }
    let last = LineIndex(c.next.0 - 1);
    if line_text(t, last).map(|l| fingerprint(&l)) == Some(c.hash) {
        return (c.next, false);
    }
    if let Some(i) = find_line(t, c.hash, c.next) {
        return (i + 1, false);
    }
    let at = cursor_spot(t).line;
    if c.next > at {
        return (at, true);
    }
    (c.next, false)
}

/// What [`keep_bytes`] kept of some lines.
struct Kept {
    /// The lines, as text.
    lines: Vec<String>,
    /// Each line's [`fingerprint`] (of its bytes, before any cut).
    hashes: Vec<u64>,
    /// Lines left out before the first kept one ([`Keep::Newest`]).
    dropped_front: usize,
    /// Bytes left out (line breaks not counted), of left-out lines and of
    /// a line cut to fit.
    bytes: usize,
}

/// `lines`, at most `max_bytes` of text (line breaks not counted): whole
/// lines, the oldest ([`Keep::Oldest`], the rest left for the next
/// answer, not counted in `bytes`) or the newest ([`Keep::Newest`], the
/// older counted as left out). When not even one line fits, its first
/// `max_bytes` bytes (on a character boundary) are kept, so an answer
/// always moves on.
fn keep_bytes(lines: Vec<Vec<u8>>, max_bytes: usize, keep: Keep) -> Kept {
    let total: usize = lines.iter().map(Vec::len).sum();
    let mut out = Kept {
        lines: Vec::new(),
        hashes: Vec::new(),
        dropped_front: 0,
        bytes: 0,
    };
    let n = lines.len();
    let (mut take, mut size) = (0usize, 0usize);
    match keep {
        Keep::Oldest => {
            while take < n && size + lines[take].len() <= max_bytes {
                size += lines[take].len();
                take += 1;
            }
            let mut lines = lines;
            lines.truncate(take.max(1).min(n));
            for l in lines {
                out.hashes.push(fingerprint(&l));
                let mut text = lossy(&l);
                if take == 0 && text.len() > max_bytes {
                    let mut at = max_bytes;
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    out.bytes += text.len() - at;
                    text.truncate(at);
                }
                out.lines.push(text);
            }
        }
        Keep::Newest => {
            let mut rest = total;
            let mut from = 0;
            while rest > max_bytes && from < n {
                rest -= lines[from].len();
                out.bytes += lines[from].len();
                from += 1;
            }
            out.dropped_front = from;
            for l in lines.into_iter().skip(from) {
                out.hashes.push(fingerprint(&l));
                out.lines.push(lossy(&l));
            }
        }
    }
    out
}

/// Types `req.command` into the shell in `pane`, waits for it to end,
/// and returns its exit status and its own output (see
/// [`RunCommandResult`]).
///
/// A POSIX shell is given
/// `printf <start mark>; (⏎<command>⏎); printf <end mark> "$?"` and
/// Enter ([`crate::mirror::marks`]): the output is exactly the text
/// between the two marks, so neither the echo of what was typed nor
/// the prompt is part of it. The command runs in a subshell: `cd` and
/// `export` do not outlast it. fish (which has no subshell, and whose
/// `( … )` is a command substitution and `$?` an error, public case C36)
/// is given `printf <start mark>; begin⏎<command>⏎end; printf <end mark>
/// "$status"`: the command runs in the shell itself, so `cd` and `set -g`
/// do outlast it. A shell that is neither ([`Shell::of`]: nushell,
/// xonsh, elvish, PowerShell, csh, …) is refused before anything is
/// typed. Commands for one pane run one at a time, in the order they
/// were asked for.
///
/// The wait ends when the end mark arrives, when the time runs out, when
/// the pane's program exits or the pane is gone (`outcome` `exited` or
/// `pane_gone`, within about [`LIVENESS_EVERY`] when tmux does not notify
/// it), or when the server exits (an error).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for an empty command, or a multi-line
/// one with `suppress_history`;
/// [`ErrorKind::Unsupported`](crate::tmux::ErrorKind::Unsupported) for a
/// pane whose foreground program is a shell tmuxwire cannot wrap;
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when the
/// server exits meanwhile; a missing pane; connection errors.
pub async fn run_command(
    server: &Server,
    pane: PaneId,
    req: &RunCommandRequest,
) -> Result<RunCommandResult, Error> {
    let started = Instant::now();
    check_command(&req.command, req.suppress_history)?;
    let f = follow(server, pane, req.progress.as_ref(), Some(req.timeout / 2)).await?;
    if f.pane.view().status() == Status::Dead {
        return Err(Error::not_found(format!(
            "pane {pane} is dead: there is no shell to run the command in"
        )));
    }
    let lock = f.pane.run_lock();
    let _turn = lock.lock().await;
    // The foreground program as tmux listed it just now (a command queued
    // behind another one is typed into whatever runs once its turn comes).
    let shell = match Shell::of(&f.command) {
        Shell::Other(name) => return Err(unsupported_shell(pane, &name)),
        s => s,
    };
    let nonce = crate::nonce::u128();
    let mut rx = f.pane.subscribe();
    let typed = typed_line(req, nonce, &shell);
    let target = Target::Pane(pane);
    // Noted before it is sent: what is typed into the pane from now on
    // (numbered after `typed_upto`) can only be typeahead echoed while
    // the command runs.
    let typed_upto = server.note_typed(
        &pane.to_string(),
        typed.as_bytes(),
        true,
        f.pane.cursor_origin(),
    );
    type_and_enter(server, &target, &typed).await?;
    let end_of = wait_for_end(server, &f, &mut rx, nonce, req, started).await?;
    let timed_out = end_of == RunEnd::Timeout;
    let limit = req.max_lines.unwrap_or(usize::MAX);
    let (end, output, omitted, complete, began) = {
        // A snapshot: the command's output may be long.
        let st = f.pane.snapshot();
        read_output(&st, nonce, limit)
    };
    // What it printed so far is read before C-c, whose echo is not output.
    let interrupted = interrupt_if(server, &target, timed_out && req.interrupt_on_timeout).await?;
    let exit_status = match end.map(|e| e.kind) {
        Some(MarkKind::End(s)) => Some(s),
        _ => None,
    };
    let output = drop_typeahead(&server.typed.since(pane, typed_upto), output, end.is_none());
    let mut output: Vec<String> = output.iter().map(|l| lossy(l)).collect();
    if exit_status.is_none() {
        while output.last().is_some_and(String::is_empty) {
            output.pop();
        }
    }
    let ended = match &end_of {
        RunEnd::Pane(e) if exit_status.is_none() => Some(e.clone()),
        _ => None,
    };
    let exit = exit_of(ended.as_ref());
    let (reading, evidence) = match end_of {
        RunEnd::Reading(i, evidence) if exit_status.is_none() => (Some(i), evidence),
        _ => (None, Vec::new()),
    };
    let outcome = match (exit_status, &ended, reading) {
        (Some(_), _, _) => RunOutcome::Completed,
        (None, Some(Ended::Exited(_)), _) => RunOutcome::Exited,
        (None, Some(Ended::Gone), _) => RunOutcome::PaneGone,
        (None, None, Some(crate::sys::input::Input::Password)) => RunOutcome::PasswordPrompt,
        (None, None, Some(_)) => RunOutcome::AwaitingInput,
        (None, None, None) => RunOutcome::Timeout,
    };
    Ok(RunCommandResult {
        pane_id: pane.to_string(),
        exit_status,
        timed_out: outcome == RunOutcome::Timeout,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        output,
        output_truncated: omitted > 0,
        output_truncated_lines: omitted,
        effective_timeout: req.timeout.as_secs_f64(),
        interrupted,
        output_complete: complete && (exit_status.is_some() || timed_out || ended.is_some()),
        note: note(outcome, began, interrupted),
        outcome,
        pane_dead: ended.is_some(),
        pane_exit_status: exit.status,
        pane_exit_signal: exit.signal,
        pane_exit_unknown: exit.unknown,
        evidence,
    })
}

/// Types `line` into `target` exactly (`send-keys -l`) and presses Enter,
/// in one round trip, the pane's modes left first
/// ([`crate::tmux::input::leave_modes`]): what `run_command` types.
///
/// # Errors
///
/// tmux's error for either command; connection errors.
pub(super) async fn type_and_enter(
    server: &Server,
    target: &Target,
    line: &str,
) -> Result<(), Error> {
    let cmds = [
        crate::tmux::input::leave_modes(&target.to_arg(TargetKind::Pane)),
        Command::new("send-keys")
            .target(target, TargetKind::Pane)
            .arg("-l")
            .arg("--")
            .arg(line),
        Command::new("send-keys")
            .target(target, TargetKind::Pane)
            .arg("Enter"),
    ];
    for out in server.run_all(&cmds).await? {
        out.into_result()?;
    }
    Ok(())
}

/// Presses C-c in `target` when `yes` (`interrupt_on_timeout` after a
/// run's time ran out), its modes left first; whether it did.
///
/// # Errors
///
/// tmux's error; connection errors.
pub(super) async fn interrupt_if(
    server: &Server,
    target: &Target,
    yes: bool,
) -> Result<bool, Error> {
    if yes {
        let leave = crate::tmux::input::leave_modes(&target.to_arg(TargetKind::Pane));
        let c_c = Command::new("send-keys")
            .target(target, TargetKind::Pane)
            .arg("C-c");
        for out in server.run_all(&[leave, c_c]).await? {
            out.into_result()?;
        }
    }
    Ok(yes)
}

/// How the wait for a run's end mark ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum RunEnd {
    /// The end mark arrived.
    Mark,
    /// The time ran out.
    Timeout,
    /// The pane ended first.
    Pane(Ended),
    /// The command reads input (a password, or an echoed line), with the
    /// evidence.
    Reading(crate::sys::input::Input, Vec<String>),
}

/// Waits until the run `nonce` in `f` shows its end mark, the pane ends
/// (its program exits or it is gone), or the time runs out; woken by `rx`
/// and every [`LIVENESS_EVERY`] to ask tmux about the pane.
///
/// # Errors
///
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone).
async fn wait_for_end(
    server: &Server,
    f: &Followed,
    rx: &mut tokio::sync::watch::Receiver<u64>,
    nonce: u128,
    req: &RunCommandRequest,
    started: Instant,
) -> Result<RunEnd, Error> {
    let deadline = tokio::time::Instant::now() + req.timeout;
    let mut vigil = Vigil::new(server, f.pane.id).await;
    let mut input = super::reading::InputWatch::new(f.pane.id);
    let has_end = || find_mark(&f.pane.view(), nonce, is_end).is_some();
    loop {
        if has_end() {
            return Ok(RunEnd::Mark);
        }
        if let Some((i, evidence)) = input.check(server, f).await? {
            return Ok(RunEnd::Reading(i, evidence));
        }
        if let Some(e) = vigil.check(server, f).await? {
            // The end mark may have come just before the pane went.
            return Ok(if has_end() {
                RunEnd::Mark
            } else {
                RunEnd::Pane(e)
            });
        }
        if let Some(p) = &req.progress {
            p(
                started.elapsed().as_secs(),
                req.timeout.as_secs().max(1),
                "waiting for the command",
            );
        }
        let wake = wake_at(deadline, req.progress.as_ref())
            .min(vigil.wake_at())
            .min(input.wake_at());
        match tokio::time::timeout_at(wake, rx.changed()).await {
            Ok(Ok(())) => {}
            Err(_) if tokio::time::Instant::now() < deadline => {}
            Ok(Err(_)) | Err(_) => return Ok(RunEnd::Timeout),
        }
    }
}

/// The shell a pane runs, as `run_command` wraps commands for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shell {
    /// A POSIX shell (sh, bash, dash, zsh, ksh, …), or a program tmuxwire
    /// does not know as a shell (`ssh`, a wrapper, …): the POSIX wrapper.
    Posix,
    /// fish.
    Fish,
    /// A shell whose syntax neither wrapper parses (its name as tmux
    /// reports it).
    Other(String),
}

impl Shell {
    /// The shell of a pane whose foreground process tmux names `command`
    /// (`#{pane_current_command}`: the process's name, which the kernel
    /// cuts to 15 bytes; a login shell's leading `-` is dropped here).
    pub(crate) fn of(command: &str) -> Shell {
        let name = command.trim().trim_start_matches('-');
        let name = name.rsplit('/').next().unwrap_or(name);
        match name {
            "fish" => Shell::Fish,
            "nu" | "nushell" | "xonsh" | "elvish" | "pwsh" | "powershell" | "pwsh-preview"
            | "csh" | "tcsh" | "rc" | "es" | "ion" | "murex" | "ngs" | "oh" | "cmd" | "cmd.exe"
            | "powershell.exe" | "pwsh.exe" => Shell::Other(name.to_string()),
            _ if name.starts_with("xonsh") => Shell::Other(name.to_string()),
            _ => Shell::Posix,
        }
    }
}

/// The error for a pane whose shell `run_command` cannot wrap.
fn unsupported_shell(pane: PaneId, name: &str) -> Error {
    Error::unsupported(format!(
        "run_command needs a POSIX shell or fish at the prompt of pane {pane}, but it runs          {name:?} (pane_current_command), whose syntax the wrapper that marks the command's          start, end and exit status is not written in; nothing was typed. Use send_keys and          wait_for_text there instead"
    ))
}

/// What the shell is given for `req.command` (see [`run_command`]).
fn typed_line(req: &RunCommandRequest, nonce: u128, shell: &Shell) -> String {
    let space = if req.suppress_history { " " } else { "" };
    let (start, end) = (marks::start_printf(nonce), marks::end_printf(nonce));
    match shell {
        Shell::Fish => format!(
            "{space}printf '{start}'; begin\n{}\nend; printf '{end}' \"$status\"",
            req.command,
        ),
        Shell::Posix | Shell::Other(_) => format!(
            "{space}printf '{start}'; (\n{}\n); printf '{end}' \"$?\"",
            req.command,
        ),
    }
}

fn is_start(k: MarkKind) -> bool {
    k == MarkKind::Start
}

fn is_end(k: MarkKind) -> bool {
    matches!(k, MarkKind::End(_))
}

/// The newest mark of the run `nonce` of a kind `kind` accepts.
fn find_mark(st: &PaneState, nonce: u128, kind: fn(MarkKind) -> bool) -> Option<Mark> {
    st.marks()
        .rev()
        .find(|m| m.nonce == nonce && kind(m.kind))
        .copied()
}

/// What the run `nonce` printed so far, as the copy `st` holds it: its
/// end mark, its newest `limit` lines, the lines left out, whether all of
/// it could be read, and whether it began at all.
fn read_output(
    st: &PaneState,
    nonce: u128,
    limit: usize,
) -> (Option<Mark>, Vec<Vec<u8>>, usize, bool, bool) {
    let start = find_mark(st, nonce, is_start);
    let end = find_mark(st, nonce, is_end);
    let began = start.is_some();
    let (output, omitted, complete) = match (st.term(), start) {
        (Some(t), Some(s)) if s.epoch == st.epoch() => {
            let to = match end {
                Some(e) if e.epoch == st.epoch() => e.at,
                _ => cursor_spot(t),
            };
            let complete = end.is_none_or(|e| e.epoch == st.epoch());
            let first = t.history().first_index();
            if s.at.line < first {
                // The command printed more than the pane's history
                // holds: its newest lines, the lost ones counted.
                let lost = usize::try_from(first.0 - s.at.line.0).unwrap_or(usize::MAX);
                let from = Spot {
                    line: first,
                    row: 0,
                    column: 0,
                };
                match text_between(t, from, to, limit) {
                    Some((lines, omitted)) => (lines, omitted.saturating_add(lost), false),
                    None => (Vec::new(), lost, false),
                }
            } else {
                match text_between(t, s.at, to, limit) {
                    Some((lines, omitted)) => (lines, omitted, complete),
                    None => (Vec::new(), 0, false),
                }
            }
        }
        (Some(t), Some(s)) if s.epoch != st.epoch() => match end {
            Some(e) if e.epoch == st.epoch() => output_after_echo(t, e, nonce, limit),
            _ => (Vec::new(), 0, false),
        },
        _ => (Vec::new(), 0, false),
    };
    (end, output, omitted, complete, began)
}

/// The output of the run `nonce` when the copy was seeded again while it
/// ran (a remote host's link dropped, a `%pause`): the start mark's place
/// is gone with the old copy, but the shell echoed the typed line that
/// prints the end mark, and its text holds the nonce, which no output can
/// know. The output is what comes after that echo, up to the end mark
/// `end` (the newest `limit` lines; the rest counted). Incomplete (and
/// empty) when the echo is not in the copy any more.
fn output_after_echo(
    t: &Term,
    end: Mark,
    nonce: u128,
    limit: usize,
) -> (Vec<Vec<u8>>, usize, bool) {
    let from = Spot {
        line: t.history().first_index(),
        row: 0,
        column: 0,
    };
    let Some((lines, _)) = text_between(t, from, end.at, usize::MAX) else {
        return (Vec::new(), 0, false);
    };
    let needle = format!(";{nonce:032x};E;");
    let Some(echo) = lines
        .iter()
        .rposition(|l| memchr::memmem::find(l, needle.as_bytes()).is_some())
    else {
        return (Vec::new(), 0, false);
    };
    let mut out = lines[echo + 1..].to_vec();
    let omitted = out.len().saturating_sub(limit);
    out.drain(..omitted);
    (out, omitted, true)
}

/// What to do next when the command did not finish (see
/// [`RunCommandResult::note`]).
fn note(outcome: RunOutcome, began: bool, interrupted: bool) -> Option<String> {
    match (outcome, began, interrupted) {
        (RunOutcome::Timeout, false, _) => Some(
            "the shell never started the command: it is still running an earlier one, or \
             waits for more input (an unclosed quote?); send_keys with keys C-c brings \
             the prompt back"
                .into(),
        ),
        (RunOutcome::Timeout, true, false) => Some(
            "the command is still running; a later run_command in this pane types behind \
             it: interrupt it with send_keys keys C-c, or pass interrupt_on_timeout"
                .into(),
        ),
        (RunOutcome::Exited, _, _) => Some(
            "the pane's program exited before the command ended; tmux keeps the dead pane \
             (remain-on-exit): respawn_pane starts it again"
                .into(),
        ),
        (RunOutcome::PasswordPrompt, _, _) => Some(
            "the command is reading a password (echo off) and waits: type it with \
             send_keys (allow_password_input), or interrupt it with keys C-c"
                .into(),
        ),
        (RunOutcome::AwaitingInput, _, _) => Some(
            "the command is reading a line of input or a key and waits: answer it with \
             send_keys, or interrupt it with keys C-c"
                .into(),
        ),
        (RunOutcome::PaneGone, _, _) => Some(
            "the pane is gone: its shell exited or the pane was killed before the command ended"
                .into(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefix_stops_at_characters() {
        assert_eq!(common_prefix(b"working |", b"working /"), 8);
        assert_eq!(common_prefix(b"working |", b"DONE"), 0);
        assert_eq!(common_prefix(b"$ ", b"$ make"), 2);
        assert_eq!(common_prefix(b"$ make", b"$ ma"), 4);
        // Braille spinner frames share their first two bytes.
        let (a, b) = ("\u{280b} x".as_bytes(), "\u{2819} x".as_bytes());
        assert_eq!(common_prefix(a, b), 0);
    }

    #[test]
    fn liveness_answers() {
        let p = PaneId(4);
        let exited = |status, signal: Option<&str>| {
            Some(Liveness::Exited(Exit {
                status,
                signal: signal.map(str::to_string),
                unknown: None,
            }))
        };
        assert_eq!(
            parse_liveness("42 %4 0 s g", Some(42), p),
            Some(Liveness::Alive)
        );
        assert_eq!(
            parse_liveness("42 %4 1 s3 g", Some(42), p),
            exited(Some(3), None)
        );
        assert_eq!(
            parse_liveness("42 %4 1 s gKILL", Some(42), p),
            exited(None, Some("KILL"))
        );
        // Not reaped yet: neither.
        assert_eq!(parse_liveness("42 %4 1 s g", None, p), exited(None, None));
        assert_eq!(parse_liveness("42 %4 1", None, p), exited(None, None));
        assert_eq!(
            parse_liveness("42 %4 1 s g;rm", None, p),
            exited(None, None)
        );
        assert_eq!(parse_liveness("43 %4 0 s g", Some(42), p), None);
        // display-message answered for another pane: this one is gone.
        assert_eq!(
            parse_liveness("42 %0 0 s g", Some(42), p),
            Some(Liveness::Gone)
        );
        assert_eq!(parse_liveness("", Some(42), p), Some(Liveness::Gone));
        let gone = Ended::Gone.exit();
        assert!(gone.status.is_none() && gone.unknown.is_some());
        assert_eq!(exit_of(None), Exit::default());
    }

    #[test]
    fn shells_by_name() {
        for posix in [
            "bash", "-bash", "sh", "dash", "zsh", "ksh", "ssh", "sleep", "",
        ] {
            assert_eq!(Shell::of(posix), Shell::Posix, "{posix}");
        }
        assert_eq!(Shell::of("fish"), Shell::Fish);
        assert_eq!(Shell::of("-fish"), Shell::Fish);
        for other in ["nu", "nushell", "xonsh", "elvish", "pwsh", "tcsh", "csh"] {
            assert_eq!(Shell::of(other), Shell::Other(other.to_string()), "{other}");
        }
    }

    #[test]
    fn wrappers_per_shell() {
        let req = RunCommandRequest::new(
            Selector::default(),
            "echo hello; false".into(),
            Duration::from_secs(1),
        )
        .expect("request");
        let posix = typed_line(&req, 1, &Shell::Posix);
        assert!(
            posix.contains("; (\necho hello; false\n); printf"),
            "{posix}"
        );
        assert!(posix.ends_with("\"$?\""), "{posix}");
        let fish = typed_line(&req, 1, &Shell::Fish);
        assert!(
            fish.contains("; begin\necho hello; false\nend; printf"),
            "{fish}"
        );
        assert!(fish.ends_with("\"$status\""), "{fish}");
        assert!(!fish.contains("$?") && !fish.contains("; ("), "{fish}");
    }
}
