//! [`Server`]: one handle per tmux server, holding one control connection
//! that is opened lazily and reopened when it breaks.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::caller::Caller;
use super::error::{Error, ErrorKind};
use super::typing::TypedPanes;
use crate::control::buffer::{buffer_encoding, capture_line, captured};
use crate::control::client::Reply;
use crate::control::format;
use crate::control::{self, Client, ClientOptions, Command, Line, PaneId, SessionId, Target};
use crate::mirror::echo::Origin;
use crate::mirror::{Mirror, MirrorOptions};
use crate::wire::{self, ControlOptions, Framing, TmuxVersion};

/// A command's answer: tmux's output, or its error text when `ok` is
/// false. `body` holds lines each followed by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// False when tmux reported an error.
    pub ok: bool,
    /// Output lines (or the error message), each followed by `\n`.
    pub body: Vec<u8>,
}

impl Output {
    /// The output, or the tmux error classified (see
    /// [`Error::from_tmux`]).
    ///
    /// # Errors
    ///
    /// The tmux error when `ok` is false.
    pub fn into_result(self) -> Result<Vec<u8>, Error> {
        if self.ok {
            Ok(self.body)
        } else {
            Err(Error::from_tmux(&String::from_utf8_lossy(&self.body)))
        }
    }

    /// The output as text, without the final line break.
    pub fn text(&self) -> String {
        let b = self.body.strip_suffix(b"\n").unwrap_or(&self.body);
        String::from_utf8_lossy(b).into_owned()
    }
}

/// Whether [`Server::run_lines`] may send its lines again after the
/// connection broke before the answers came back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// The lines only read: send them again on a fresh connection.
    Safe,
    /// The lines change something: never send them twice.
    Never,
}

/// How the handle currently talks to the server.
#[derive(Clone)]
enum Link {
    /// A control-mode connection (the normal case).
    Control(Client),
    /// The server has no sessions, so a control client cannot attach;
    /// each command runs as a one-shot client until sessions exist.
    OneShot {
        version: TmuxVersion,
        since: Instant,
    },
}

/// The state behind [`Server::link`].
#[derive(Default)]
struct LinkSlot {
    /// The link in use, if one was opened.
    link: Option<Link>,
    /// Set while a caller opens a link: the others wait for its sender to
    /// be dropped (when the attempt ends, however it ends), then look
    /// again. Never sent on.
    opening: Option<watch::Receiver<()>>,
}

/// A handle on one tmux server.
pub struct Server {
    /// Where the server is: a local socket or a remote host's.
    endpoint: wire::Endpoint,
    /// The socket path (remote: the label `HOST:PATH`, see
    /// [`wire::ssh::Remote::label`]).
    pub(super) path: PathBuf,
    pub(super) canonical: PathBuf,
    socket_name: Option<String>,
    caller: Caller,
    /// The current link, and whether a caller is opening one. A std mutex,
    /// held only to read or swap the state, never across a connect: the
    /// caller that opens a link does so with the lock released
    /// ([`Server::link`]).
    link: std::sync::Mutex<LinkSlot>,
    timeout: Duration,
    /// When the handle was last used, for closing idle connections.
    activity: Arc<Activity>,
    idle_close: Duration,
    /// A connection succeeded once: a missing socket file later means it
    /// was removed, not that no server was ever started.
    had_server: std::sync::atomic::AtomicBool,
    /// How the pane mirror behaves ([`Server::with_mirror`]).
    pub(super) mirror_opts: MirrorOptions,
    /// The mirror, once a request needed it, with the pid of the server it
    /// mirrors (a new server on the same socket gets a new mirror).
    /// A std mutex, held only to read or swap the slot (never across a
    /// connect or a close).
    mirror: std::sync::Mutex<Option<(u32, Arc<Mirror>)>>,
    /// The connection the mirror's server pid was last confirmed on
    /// ([`Client::connection_id`]; 0: none): while it stays open, the
    /// server is the same.
    mirror_link: std::sync::atomic::AtomicU64,
    /// Round trips made so far ([`Server::round_trips`]).
    round_trips: std::sync::atomic::AtomicU64,
    /// What tmuxwire typed into each pane, to tell its echo from output
    /// ([`crate::mirror::echo`]); kept whether or not the mirror runs.
    pub(super) typed: TypedPanes,
    /// The event log of the server the mirror follows, and its follower
    /// ([`super::op::events`]), once a call asked for events.
    pub(super) attention: std::sync::Mutex<Option<Arc<super::op::events::Attention>>>,
}

/// Time of the last use, as milliseconds since `base`.
#[derive(Debug)]
struct Activity {
    base: Instant,
    last_ms: std::sync::atomic::AtomicU64,
}

impl Activity {
    fn touch(&self) {
        let ms = self.base.elapsed().as_millis() as u64;
        self.last_ms.store(ms, std::sync::atomic::Ordering::Relaxed);
    }

    fn idle(&self) -> Duration {
        let last = self.last_ms.load(std::sync::atomic::Ordering::Relaxed);
        self.base
            .elapsed()
            .saturating_sub(Duration::from_millis(last))
    }
}

/// A control connection unused this long is closed (it is reopened on
/// the next call), so an idle tmuxwire leaves no client attached to the
/// user's sessions.
pub const IDLE_CLOSE: Duration = Duration::from_secs(60);

/// How long a request may go without a byte from tmux on its control
/// connection before tmux is asked, on a connection of its own, whether it
/// answers other clients ([`Server::lines_unstuck`]).
pub const STALL: Duration = Duration::from_millis(1500);

/// After tmux answered that question, how long the stalled connection's
/// bytes may still take to come (tmux wrote them before it answered).
const STALL_GRACE: Duration = Duration::from_millis(300);

/// Closes `client` once the handle has been idle for `after`.
fn close_when_idle(client: Client, activity: Arc<Activity>, after: Duration) {
    tokio::spawn(async move {
        loop {
            let idle = activity.idle();
            if client.is_closed() {
                return;
            }
            if idle >= after {
                tracing::debug!("closing the idle tmux control connection");
                client.close().await;
                return;
            }
            tokio::time::sleep(after - idle + Duration::from_millis(10)).await;
        }
    });
}

/// The oldest session of a `list-sessions -F '#{session_created}
/// #{session_id}'` answer (ties: the lowest id); `None` when it lists none.
fn oldest_session(listing: &str) -> Option<SessionId> {
    listing
        .lines()
        .filter_map(|l| {
            let (created, id) = l.trim().split_once(' ')?;
            Some((created.parse::<u64>().ok()?, id.parse::<SessionId>().ok()?))
        })
        .min_by_key(|&(created, id)| (created, id.0))
        .map(|(_, id)| id)
}

/// Asks tmux 3.6 and later to move the command connection to another
/// session when its own is destroyed, instead of exiting it
/// (`refresh-client -f no-detach-on-destroy`: server-client.c
/// `server_client_set_flags()`, server-fn.c `server_destroy_session()`),
/// so a session killed by someone else never ends the connection calls
/// are in flight on. Older versions have no such flag (the connection
/// then attaches to the oldest session: [`Server::steady_session`]). A
/// refusal is only logged.
async fn stay_on_destroy(client: &Client, version: &TmuxVersion) {
    if !version.at_least(3, 6) {
        return;
    }
    let flag = Command::new("refresh-client").opt("-f", "no-detach-on-destroy");
    match client.command(&flag).await {
        Ok(b) if b.ok => {}
        Ok(b) => tracing::debug!(error = %b.text(), "no-detach-on-destroy refused"),
        Err(e) => tracing::debug!(%e, "no-detach-on-destroy not set"),
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// `name -F <template>` for `fields`, and the query that parses it.
fn query_cmd(name: &str, fields: &[&str]) -> (Command, format::Query) {
    let q = format::Query::new(fields);
    (
        Command::new(name).opt("-F", q.template()).frame(q.frame()),
        q,
    )
}

/// Bytes of arguments one one-shot client carries, well inside tmux's
/// 16368-byte message limit.
const ONE_SHOT_BUDGET: usize = 12 * 1024;

/// Bytes a fence (`; display-message -p <token>`) adds to a command list.
const FENCE_BYTES: usize = 64;

/// True for `capture-pane -p` (text printed to the client).
fn is_print_capture(cmd: &Command) -> bool {
    cmd.name() == "capture-pane" && cmd.argv().iter().any(|a| a == "-p")
}

/// The answer of a [`capture_line`], as `capture-pane -p` would give it.
fn capture_output(reply: Reply) -> Output {
    match captured(reply.blocks) {
        Ok(body) => Output { ok: true, body },
        Err(body) => Output { ok: false, body },
    }
}

/// A reply as one [`Output`]: its only block, or all blocks merged.
fn merged_output(reply: Reply) -> Output {
    let mut out = Output {
        ok: true,
        body: Vec::new(),
    };
    for b in reply.blocks {
        out.ok &= b.ok;
        out.body.extend_from_slice(&b.body);
    }
    for s in reply.stray {
        out.body.extend_from_slice(&s);
        out.body.push(b'\n');
    }
    out
}

/// Splits `out` at each whole line equal to `line` (which ends in `\n`).
/// `k` separators give `k + 1` parts.
fn split_on_line(out: &[u8], line: &[u8]) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&out[from..], line) {
        let at = from + i;
        if at == 0 || out[at - 1] == b'\n' {
            parts.push(out[start..at].to_vec());
            start = at + line.len();
            from = start;
        } else {
            from = at + 1;
        }
    }
    parts.push(out[start..].to_vec());
    parts
}

/// Detaches the clients this process left on a remote server over an
/// earlier ssh master ([`wire::ssh::Remote::is_stale_term`]): after a
/// partition, the server keeps them until sshd notices the dead link.
/// Only those: never another process's clients, nor a person's.
async fn detach_stale(c: Client, remote: wire::ssh::Remote) {
    let list = Command::new("list-clients").opt("-F", "#{client_name}\t#{client_termname}");
    let Ok(b) = c.command(&list).await else {
        return;
    };
    if !b.ok {
        return;
    }
    let body = String::from_utf8_lossy(&b.body).into_owned();
    let stale: Vec<Command> = body
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(_, term)| remote.is_stale_term(term))
        .map(|(name, _)| Command::new("detach-client").opt("-t", name.to_string()))
        .collect();
    if !stale.is_empty() {
        tracing::debug!(
            n = stale.len(),
            "detaching tmuxwire's clients left by an earlier ssh link"
        );
        let _ = c.batch(&stale).await;
    }
}

/// How long a handle in one-shot mode waits before trying to attach a
/// control client again.
const ONESHOT_RETRY: Duration = Duration::from_millis(500);

impl Server {
    /// A handle for the server at `path` (no connection is made yet).
    /// `socket_name` is reported back by `get_server_info` when the socket
    /// was named with `-L`.
    pub fn new(path: PathBuf, socket_name: Option<String>, caller: Caller) -> Server {
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        Server::with_canonical(path, canonical, socket_name, caller)
    }

    /// [`Server::new`] with the socket path's canonical form already known
    /// (as [`Servers`](super::Servers) has it), so no file system call is
    /// made here.
    pub(super) fn with_canonical(
        path: PathBuf,
        canonical: PathBuf,
        socket_name: Option<String>,
        caller: Caller,
    ) -> Server {
        Server {
            endpoint: wire::Endpoint::Local(path.clone()),
            path,
            canonical,
            socket_name,
            caller,
            link: std::sync::Mutex::new(LinkSlot::default()),
            timeout: Duration::from_secs(20),
            activity: Arc::new(Activity {
                base: Instant::now(),
                last_ms: std::sync::atomic::AtomicU64::new(0),
            }),
            idle_close: IDLE_CLOSE,
            had_server: std::sync::atomic::AtomicBool::new(false),
            mirror_opts: MirrorOptions {
                enabled: false,
                ..MirrorOptions::default()
            },
            mirror: std::sync::Mutex::new(None),
            mirror_link: std::sync::atomic::AtomicU64::new(0),
            round_trips: std::sync::atomic::AtomicU64::new(0),
            typed: TypedPanes::default(),
            attention: std::sync::Mutex::new(None),
        }
    }

    /// A handle for a server on another host (no connection is made yet).
    /// Its socket path is the label `HOST:PATH`, which never equals a
    /// local path, so the caller's own pane is never taken to be on it.
    pub fn remote(
        remote: wire::ssh::Remote,
        socket_name: Option<String>,
        caller: Caller,
    ) -> Server {
        let label = remote.label();
        let mut t = Server::with_canonical(label.clone(), label, socket_name, caller);
        t.endpoint = wire::Endpoint::Remote(remote);
        t
    }

    /// Where the server is.
    pub fn endpoint(&self) -> &wire::Endpoint {
        &self.endpoint
    }

    /// The configured host's name, for a remote server.
    pub fn host_name(&self) -> Option<&str> {
        self.endpoint.host_name()
    }

    /// The same handle, mirroring panes as `opts` says (off by default:
    /// the CLI's one-shot commands gain nothing from it; the MCP server
    /// turns it on).
    pub fn with_mirror(mut self, opts: MirrorOptions) -> Server {
        self.mirror_opts = opts;
        self
    }

    /// The pane mirror, started on first use; `None` when mirroring is off
    /// or the server cannot be reached. A server restarted on the same
    /// socket (a new pid) gets a fresh mirror: pane ids start over.
    pub async fn mirror(&self) -> Option<Arc<Mirror>> {
        if !self.mirror_opts.enabled {
            return None;
        }
        // While the connection the mirror was made on stays open, the
        // server is the same: no need to ask for its pid again.
        let link = self.link().await.ok()?;
        if let Link::Control(c) = &link
            && self.mirror_link.load(std::sync::atomic::Ordering::Relaxed) == c.connection_id()
            && let Some((_, m)) = self.mirror_slot().as_ref()
        {
            return Some(m.clone());
        }
        let pid = self.server_pid().await.ok()?;
        let version = match &link {
            Link::Control(c) => c.version().clone(),
            Link::OneShot { version, .. } => version.clone(),
        };
        let remember_link = || {
            if let Link::Control(c) = &link {
                self.mirror_link
                    .store(c.connection_id(), std::sync::atomic::Ordering::Relaxed);
            }
        };
        // The slot is swapped under the lock; the old mirror is closed
        // after it is released, so no caller waits behind its connections.
        let (m, old) = {
            let mut slot = self.mirror_slot();
            if let Some((p, m)) = slot.as_ref()
                && *p == pid
            {
                let m = m.clone();
                drop(slot);
                remember_link();
                return Some(m);
            }
            let m = Mirror::new(self.endpoint.clone(), version, self.mirror_opts.clone());
            let old = slot.replace((pid, m.clone()));
            (m, old)
        };
        if let Some((_, old)) = old {
            // A new server: its pane ids name other panes.
            self.typed.clear();
            old.close().await;
        }
        remember_link();
        Some(m)
    }

    /// The event log of the server, with its follower started, for the
    /// mirror `m` (a new mirror, of a new server, gets a new log).
    pub(crate) fn attention(&self, m: &Arc<Mirror>) -> Arc<super::op::events::Attention> {
        let mut slot = self.attention.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            Some(a) if a.is_of(m) => a.clone(),
            _ => {
                let a = Arc::new(super::op::events::Attention::start(m));
                *slot = Some(a.clone());
                a
            }
        }
    }

    /// The event log, if a call started one (never starts one; no I/O).
    pub fn running_attention(&self) -> Option<Arc<super::op::events::Attention>> {
        self.attention
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The mirror if it runs now (never starts one; no I/O).
    pub fn running_mirror(&self) -> Option<Arc<Mirror>> {
        self.mirror_slot().as_ref().map(|(_, m)| m.clone())
    }

    fn mirror_slot(&self) -> std::sync::MutexGuard<'_, Option<(u32, Arc<Mirror>)>> {
        self.mirror.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tells the mirror's copy of the pane `target` names (when it is a
    /// pane id and the pane has a copy) that tmuxwire is about to type
    /// into it: what the pane prints from the cursor's line on answers
    /// that input ([`crate::mirror::PaneMirror::begin_typing`]). Returns
    /// where the cursor is, the origin of the text's echo.
    pub(crate) async fn begin_typing(&self, target: &Target) -> Option<Origin> {
        let Target::Pane(id) = target else {
            return None;
        };
        self.mirrored_pane(*id).await?.begin_typing()
    }

    /// Notes that tmuxwire typed `text` into `pane_id` (then Enter when
    /// `ended`), the cursor then at `origin`, so waits do not take its
    /// echo for output ([`crate::mirror::echo`]). Returns the number of
    /// the last line noted ([`TypedPanes::since`]).
    pub(crate) fn note_typed(
        &self,
        pane_id: &str,
        text: &[u8],
        ended: bool,
        origin: Option<Origin>,
    ) -> u64 {
        match pane_id.parse() {
            Ok(id) => self.typed.note(id, text, ended, origin),
            Err(_) => 0,
        }
    }

    /// Notes that tmuxwire pressed a key (not Enter alone) in `pane_id`.
    pub(crate) fn note_key(&self, pane_id: &str) {
        if let Ok(id) = pane_id.parse() {
            self.typed.note_key(id);
        }
    }

    /// The mirror's copy of pane `id`, if the mirror is on and has one
    /// (no I/O).
    pub(super) async fn mirrored_pane(&self, id: PaneId) -> Option<Arc<crate::mirror::PaneMirror>> {
        let mirror = self.mirror_slot().as_ref().map(|(_, m)| Arc::clone(m));
        mirror.and_then(|m| m.pane(id))
    }

    /// The pid of the server the mirror follows (known once
    /// [`Server::mirror`] has answered).
    pub(crate) async fn mirrored_server_pid(&self) -> Option<u32> {
        self.mirror_slot().as_ref().map(|(pid, _)| *pid)
    }

    /// The server's pid (`#{pid}`).
    pub(crate) async fn server_pid(&self) -> Result<u32, Error> {
        let out = self
            .run(&Command::new("display-message").arg("-p").arg("#{pid}"))
            .await?;
        out.text()
            .trim()
            .parse()
            .map_err(|_| Error::connection("tmux did not report its pid"))
    }

    /// The same handle, closing its connection after `after` without use
    /// instead of [`IDLE_CLOSE`].
    pub fn with_idle_close(mut self, after: Duration) -> Server {
        self.idle_close = after;
        self
    }

    /// The same handle, waiting `timeout` for each answer instead of 20 s.
    pub fn with_timeout(mut self, timeout: Duration) -> Server {
        self.timeout = timeout;
        self
    }

    /// How long each answer may take (20 s unless [`Server::with_timeout`]).
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How many round trips this handle has made to its server: one per
    /// write of commands whose answers it then waits for (one
    /// [`Server::run_all`] or [`Server::run_lines`], whatever the number of
    /// commands), and one per one-shot client. Opening the connection is
    /// not counted; nor is the pane mirror, which has its own
    /// connections. Tests use it to check that a tool is one round trip.
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn count_round_trip(&self) {
        self.round_trips
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The socket path.
    pub fn socket_path(&self) -> &Path {
        &self.path
    }

    /// The `-L` name, if the socket was chosen by name.
    pub(crate) fn socket_name(&self) -> Option<&str> {
        self.socket_name.as_deref()
    }

    /// Who called: the MCP client's own pane, when it runs inside tmux.
    pub(crate) fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The socket path with symbolic links resolved (as the caller's
    /// `$TMUX` is compared).
    pub(crate) fn canonical_socket(&self) -> &Path {
        &self.canonical
    }

    /// See [`Caller::is_caller`].
    pub(crate) fn is_caller(&self, pane_id: &str) -> Option<bool> {
        self.caller.is_caller(pane_id, &self.canonical)
    }

    /// Closes the control connection and the mirror's connections, if
    /// open. The handle stays usable: the next call opens a new
    /// connection. [`Servers`](super::Servers) calls this for a handle it
    /// evicts.
    pub async fn close(&self) {
        let link = self.link_slot().link.take();
        let mirror = self.mirror_slot().take();
        if let Some(Link::Control(c)) = link {
            c.close().await;
        }
        if let Some((_, m)) = mirror {
            m.close().await;
        }
    }

    /// Opens the connection now (it is otherwise opened on first use).
    ///
    /// # Errors
    ///
    /// As for any command: no server, unsupported version, …
    pub async fn connect(&self) -> Result<(), Error> {
        self.link().await.map(|_| ())
    }

    /// The server's version.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub async fn version(&self) -> Result<TmuxVersion, Error> {
        Ok(match self.link().await? {
            Link::Control(c) => c.version().clone(),
            Link::OneShot { version, .. } => version,
        })
    }

    /// The imsg framing in use, when connected in control mode.
    pub async fn framing(&self) -> Option<Framing> {
        match self.link().await.ok()? {
            Link::Control(c) => Some(c.framing()),
            Link::OneShot { version, .. } => version.framing(),
        }
    }

    /// The link to use, opened when there is none (or the last one closed).
    /// Callers that arrive while another opens one wait for that attempt
    /// and then look again, so one connection is opened at a time; no
    /// lock is held while connecting.
    async fn link(&self) -> Result<Link, Error> {
        let _opening = loop {
            let mut wait = {
                let mut slot = self.link_slot();
                match slot.link.as_ref() {
                    Some(Link::Control(c)) if !c.is_closed() => {
                        return Ok(Link::Control(c.clone()));
                    }
                    Some(l @ Link::OneShot { since, .. }) if since.elapsed() < ONESHOT_RETRY => {
                        return Ok(l.clone());
                    }
                    _ => {}
                }
                match &slot.opening {
                    // `has_changed` fails once the opener dropped its
                    // sender: that attempt is over.
                    Some(rx) if rx.has_changed().is_ok() => rx.clone(),
                    _ => {
                        let (tx, rx) = watch::channel(());
                        slot.opening = Some(rx);
                        break tx;
                    }
                }
            };
            // Resolves (with an error) when the opener drops its sender.
            let _ = wait.changed().await;
        };
        // `_opening` (the sender) is dropped on every way out of this
        // function, cancellation included, which wakes the waiters.
        let link = match self.open().await {
            Ok(l) => l,
            Err(e) => {
                self.link_slot().opening = None;
                return Err(self.explain(e).await);
            }
        };
        self.had_server
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut slot = self.link_slot();
        slot.link = Some(link.clone());
        slot.opening = None;
        Ok(link)
    }

    fn link_slot(&self) -> std::sync::MutexGuard<'_, LinkSlot> {
        self.link.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One answer for a server that went away, whatever the connection
    /// last saw (a shutdown message, EOF, a failed write): "no tmux server
    /// running", or, when the socket file tmuxwire used before is gone,
    /// [`ErrorKind::SocketGone`](crate::tmux::ErrorKind::SocketGone).
    async fn explain(&self, e: Error) -> Error {
        let gone = || {
            if self.had_server.load(std::sync::atomic::Ordering::Relaxed)
                && self
                    .endpoint
                    .local_path()
                    .is_some_and(|p| std::fs::symlink_metadata(p).is_err())
            {
                Error::socket_gone(self.path.clone())
            } else {
                Error::no_server(self.path.clone())
            }
        };
        match e.kind() {
            ErrorKind::NoServer => gone(),
            ErrorKind::Connection => match self.endpoint.connect_probe().await {
                Err(wire::Error::NoServer { .. }) => gone(),
                _ => e,
            },
            _ => e,
        }
    }

    async fn open(&self) -> Result<Link, Error> {
        let opts = ControlOptions::default();
        let version = match self.endpoint.probe_version(opts.timeout).await {
            Ok(v) => v,
            // A server that is shutting down accepts and then resets the
            // connection; a moment later its socket refuses, which says
            // what happened (no server) instead of a bare reset.
            Err(wire::Error::Io(_) | wire::Error::Closed { .. } | wire::Error::Protocol(_)) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                self.endpoint.probe_version(opts.timeout).await?
            }
            Err(e) => return Err(e.into()),
        };
        let framings: &[Framing] = match version.framing() {
            // A remote binary does the handshake: one attempt.
            _ if self.endpoint.remote().is_some() => &[Framing::New],
            Some(Framing::Old) => &[Framing::Old],
            Some(Framing::New) => &[Framing::New],
            // Unknown: old first; the other order can hang an old server's client.
            None => &[Framing::Old, Framing::New],
        };
        let mut last = None;
        let steady = self.steady_session(opts.timeout).await;
        for &framing in framings {
            let mut opts = ControlOptions {
                framing: Some(framing),
                attach_target: steady.clone(),
                ..opts.clone()
            };
            let started = loop {
                let transport = self.endpoint.open_control(version.clone(), &opts).await?;
                let client_opts = ClientOptions {
                    request_timeout: self.timeout,
                    ..ClientOptions::default()
                };
                match Client::start(transport, client_opts).await {
                    // The session chosen went meanwhile: tmux's choice.
                    Err(control::Error::Attach(msg)) if opts.attach_target.is_some() => {
                        tracing::debug!(%msg, "could not attach to the oldest session");
                        opts.attach_target = None;
                    }
                    other => break other,
                }
            };
            match started {
                Ok(c) => {
                    if let Some(r) = self.endpoint.remote()
                        && r.had_earlier_link()
                    {
                        tokio::spawn(detach_stale(c.clone(), r.clone()));
                    }
                    stay_on_destroy(&c, &version).await;
                    tracing::debug!(path = %self.path.display(), %version, ?framing, "control connection open");
                    self.activity.touch();
                    close_when_idle(c.clone(), self.activity.clone(), self.idle_close);
                    return Ok(Link::Control(c));
                }
                Err(control::Error::Attach(msg)) => {
                    // Typically "no sessions": fall back to one-shot commands.
                    tracing::debug!(%msg, "control client could not attach; using one-shot commands");
                    return Ok(Link::OneShot {
                        version,
                        since: Instant::now(),
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last
            .map(Error::from)
            .unwrap_or_else(|| Error::connection("could not connect")))
    }

    /// The session the command connection attaches to: the oldest one
    /// (`#{session_created}`, then the lowest id), for a local server;
    /// `None` (tmux's choice) for a remote one, where asking first would
    /// cost an ssh session, or when the server does not answer.
    ///
    /// A control client's session is not a choice without consequence:
    /// when it is destroyed, tmux exits the client (server-fn.c
    /// `server_destroy_session()`, with `detach-on-destroy` on, the
    /// default), and every call in flight on it fails, about a session it
    /// never named. tmux's own choice is the most recently used unattached
    /// session (cmd-find.c `cmd_find_best_session()`), which is the one an
    /// orchestrator has just made and is most likely to kill; the oldest is
    /// the one most likely to stay. tmux 3.6 and later also move the client
    /// to another session instead ([`stay_on_destroy`]).
    async fn steady_session(&self, timeout: Duration) -> Option<String> {
        if self.endpoint.remote().is_some() {
            return None;
        }
        let list = ["list-sessions", "-F", "#{session_created} #{session_id}"];
        let out = self.endpoint.run_command(&list, timeout).await.ok()?;
        if !out.success() {
            return None;
        }
        oldest_session(&String::from_utf8_lossy(&out.stdout)).map(|id| id.to_string())
    }
    async fn forget(&self, failed: &Client) {
        let mut slot = self.link_slot();
        if let Some(Link::Control(c)) = slot.link.as_ref()
            && c.socket_path() == failed.socket_path()
            && c.is_closed()
        {
            slot.link = None;
        }
    }

    /// Runs one command (reconnecting once if the connection had broken).
    ///
    /// Only for commands that are safe to send twice: a command whose
    /// connection broke mid-flight may or may not have run.
    ///
    /// # Errors
    ///
    /// Connection errors. A tmux error is an [`Output`] with `ok: false`.
    pub async fn run(&self, cmd: &Command) -> Result<Output, Error> {
        let [out] = self.run_each(std::array::from_ref(cmd)).await?;
        Ok(out)
    }

    /// [`Server::run_all`] for a fixed number of commands: their answers as
    /// an array, in the commands' order.
    ///
    /// # Errors
    ///
    /// As [`Server::run_all`]; [`ErrorKind::Connection`](crate::tmux::ErrorKind::Connection) if the answers do not
    /// pair up with the commands (which would be a broken connection).
    pub(crate) async fn run_each<const N: usize>(
        &self,
        cmds: &[Command; N],
    ) -> Result<[Output; N], Error> {
        let out = self.run_all(cmds).await?;
        let got = out.len();
        out.try_into()
            .map_err(|_| Error::connection(format!("tmux gave {got} answers to {N} commands")))
    }

    /// Runs several commands in one write (one round trip), so tmux runs
    /// them back to back: answers that describe the same moment, one per
    /// command, in order. Same retry rule as [`Server::run`].
    ///
    /// A `capture-pane -p` is sent as a paste-buffer read instead (see
    /// [`capture_line`]): its text arrives framed by its length, so no
    /// line in it can end the answer early, and tmux 3.2–3.5 do not leak
    /// it. The answer is the same text `-p` prints, plus its final line
    /// break.
    ///
    /// # Errors
    ///
    /// The first connection error.
    pub(crate) async fn run_all(&self, cmds: &[Command]) -> Result<Vec<Output>, Error> {
        let lines = |c: &Client| {
            let encoding = buffer_encoding(c.version());
            cmds.iter()
                .map(|cmd| {
                    if is_print_capture(cmd) {
                        capture_line(cmd, encoding)
                    } else {
                        Line::from(cmd.clone())
                    }
                })
                .collect::<Vec<Line>>()
        };
        let Some(replies) = self.replies(lines, Retry::Safe).await? else {
            return self.run_one_shot(cmds).await;
        };
        Ok(replies
            .into_iter()
            .zip(cmds)
            .map(|(reply, cmd)| {
                if is_print_capture(cmd) {
                    capture_output(reply)
                } else {
                    merged_output(reply)
                }
            })
            .collect())
    }

    /// Runs prepared control-mode lines in one write (one round trip) and
    /// gives each line's answer as tmux sent it, every block kept apart:
    /// for callers that read a line's blocks themselves (a pane's copy made
    /// once, [`super::copy`]). The lines must only read (they are sent again
    /// on a fresh connection when the first one broke).
    ///
    /// # Errors
    ///
    /// As [`Server::run_all`]; a server without sessions (no control client
    /// can attach) is [`ErrorKind::NotFound`]: it has no panes.
    pub(crate) async fn run_replies(&self, lines: &[Line]) -> Result<Vec<Reply>, Error> {
        self.replies(|_| lines.to_vec(), Retry::Safe)
            .await?
            .ok_or_else(|| Error::not_found("the server has no sessions, so no panes"))
    }

    /// Sends the lines `make` builds for the control connection in one write
    /// and gives each line's reply, in order; `None` while the server has
    /// no sessions (no control client can attach: the caller runs one-shot
    /// clients). A connection that broke before every reply came back is
    /// forgotten, and with [`Retry::Safe`] the lines go once more on a new
    /// one.
    ///
    /// # Errors
    ///
    /// The first connection error, explained ([`Server::explain`]: no server,
    /// or its socket file gone).
    async fn replies(
        &self,
        make: impl Fn(&Client) -> Vec<Line>,
        retry: Retry,
    ) -> Result<Option<Vec<Reply>>, Error> {
        self.activity.touch();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let c = match self.link().await? {
                Link::Control(c) => c,
                Link::OneShot { .. } => return Ok(None),
            };
            self.count_round_trip();
            let answers = self.lines_unstuck(&c, &make(&c)).await;
            let closed = answers
                .iter()
                .any(|a| matches!(a, Err(control::Error::Closed { .. })));
            // Found silent by its watchdog, the connection is gone too, but
            // tmux is not answering: the lines are not sent again.
            let silent = answers
                .iter()
                .any(|a| matches!(a, Err(control::Error::Silent { .. })));
            if closed || silent {
                self.forget(&c).await;
            }
            if closed && attempt == 1 && retry == Retry::Safe && !c.is_poisoned() {
                tracing::debug!("control connection lost; reconnecting");
                continue;
            }
            let mut out = Vec::with_capacity(answers.len());
            for a in answers {
                match a {
                    Ok(r) => out.push(r),
                    Err(e) => return Err(self.explain(Error::from(e)).await),
                }
            }
            return Ok(Some(out));
        }
    }

    /// [`Client::lines`], watched: when nothing at all comes from tmux on
    /// `c` for [`STALL`] while the lines wait, tmux is asked on a connection
    /// of its own (a one-shot `display-message -p`); if it answers that
    /// while `c` still gets nothing for [`STALL_GRACE`] more, tmux serves
    /// other clients but not this one (a command on it waits, such as a
    /// prompt opened on this client: public case C39), so `c` is ended
    /// ([`Client::abort`]): these lines and every other request on it fail
    /// with [`control::Error::Closed`] (read-only lines are sent again on a
    /// new connection, [`Retry::Safe`]), and later calls open a new one.
    /// A tmux that answers nobody (stopped, or busy with a long command of
    /// this connection's) does not answer the question either, and the
    /// lines wait for their deadline as before. Local servers only: a
    /// remote one's connection has its watchdog
    /// ([`crate::wire::Watchdog`]), and a question there would be one more
    /// ssh process on a link that may be the thing stalled.
    async fn lines_unstuck(
        &self,
        c: &Client,
        lines: &[Line],
    ) -> Vec<Result<Reply, control::Error>> {
        if self.endpoint.remote().is_some() {
            return c.lines(lines).await;
        }
        let start = tokio::time::Instant::now();
        let answers = c.lines(lines);
        tokio::pin!(answers);
        // No question before this (one at a time, [`STALL`] apart).
        let mut not_before = start;
        loop {
            let quiet_from = c.last_read().max(start);
            tokio::select! {
                a = &mut answers => return a,
                () = tokio::time::sleep_until((quiet_from + STALL).max(not_before)) => {}
            }
            if c.last_read() > quiet_from {
                continue;
            }
            let check = self
                .endpoint
                .run_command_list(&[&["display-message", "-p", ""]], self.timeout);
            let answered = tokio::select! {
                a = &mut answers => return a,
                // Any answer, an error included, shows tmux serving others.
                out = check => out.is_ok_and(|o| !o.server_exited),
            };
            not_before = tokio::time::Instant::now() + STALL;
            if !answered {
                // tmux answers nobody: nothing to replace; the lines wait
                // for their deadline.
                continue;
            }
            tokio::select! {
                a = &mut answers => return a,
                () = tokio::time::sleep(STALL_GRACE) => {}
            }
            if c.last_read() > quiet_from {
                continue;
            }
            let quiet = tokio::time::Instant::now().duration_since(quiet_from);
            tracing::warn!(
                path = %self.path.display(),
                quiet_ms = quiet.as_millis() as u64,
                "tmux answers other clients but not this control connection; replacing it"
            );
            c.abort(format!(
                "tmux answered another client, but sent nothing on tmuxwire's control \
                 connection for {:.1} s while it waited for an answer (a command on that \
                 connection waits, such as a prompt opened on its client); tmuxwire closed \
                 that connection, and the next call opens a new one (what this call sent may \
                 or may not have run)",
                quiet.as_secs_f64()
            ));
            return answers.await;
        }
    }

    /// Runs command lines in one write (one round trip): each inner list
    /// is one control-mode line (`a ; b ; c`), which tmux runs back to back
    /// with nothing of anyone else's in between, skipping the rest of the
    /// line after a command fails. The answer per line holds one
    /// [`Output`] per command that ran, so it is shorter than the line when
    /// a command failed (its `Output` is the last, with `ok: false`). A
    /// line of one command that may answer with several blocks
    /// (`if-shell`, `wait-for`) gets one merged `Output`.
    ///
    /// `retry`: whether the lines may be sent again when the connection
    /// broke before every answer came back; [`Retry::Never`] for lines
    /// that change something (keys typed twice, a window made twice).
    /// Paste-buffer captures (`capture-pane -p`) are not rewritten here:
    /// use [`Server::run_all`] for those.
    ///
    /// # Errors
    ///
    /// The first connection error; with [`Retry::Never`], a connection
    /// that broke mid-flight is [`ErrorKind::Connection`](crate::tmux::ErrorKind::Connection) (the lines may or
    /// may not have run).
    pub(crate) async fn run_lines(
        &self,
        lines: &[Vec<Command>],
        retry: Retry,
    ) -> Result<Vec<Vec<Output>>, Error> {
        let make = |_: &Client| lines.iter().map(|l| Line::list(l.clone())).collect();
        let Some(replies) = self.replies(make, retry).await? else {
            return self.run_lines_one_shot(lines).await;
        };
        Ok(replies
            .into_iter()
            .zip(lines)
            .map(|(reply, line)| {
                if line.len() == 1 && line[0].blocks() == control::command::Blocks::Variable {
                    return vec![merged_output(reply)];
                }
                reply
                    .blocks
                    .into_iter()
                    .map(|b| Output {
                        ok: b.ok,
                        body: b.body,
                    })
                    .collect()
            })
            .collect())
    }

    /// [`Server::run_lines`] as one-shot clients (a server without sessions):
    /// the commands run in order and stop at the first failure, which ends
    /// every later line too.
    async fn run_lines_one_shot(&self, lines: &[Vec<Command>]) -> Result<Vec<Vec<Output>>, Error> {
        let flat: Vec<Command> = lines.iter().flatten().cloned().collect();
        let mut answers = self.run_one_shot(&flat).await?.into_iter();
        let mut out = Vec::with_capacity(lines.len());
        for line in lines {
            let mut got = Vec::with_capacity(line.len());
            for _ in line {
                let Some(a) = answers.next() else { break };
                let failed = !a.ok;
                got.push(a);
                if failed {
                    break;
                }
            }
            // Skip the answers of commands after a failure in this line.
            let seen = got.len();
            for _ in seen..line.len() {
                let _ = answers.next();
            }
            out.push(got);
        }
        Ok(out)
    }

    /// Runs `cmds` in order as one one-shot client (`a ; b ; …`), with a
    /// fence line printed after each command to split the output. tmux
    /// stops at the first failing command: that one gets the error, the
    /// ones after it an error saying they did not run.
    async fn run_one_shot(&self, cmds: &[Command]) -> Result<Vec<Output>, Error> {
        // One message holds at most 16 KiB of arguments: run long lists as
        // several clients, each a run of whole commands.
        let mut answers = Vec::with_capacity(cmds.len());
        let mut start = 0;
        while start < cmds.len() {
            let mut end = start + 1;
            let mut size: usize = cmds[start].argv().iter().map(|a| a.len() + 2).sum();
            while end < cmds.len() {
                let more: usize =
                    cmds[end].argv().iter().map(|a| a.len() + 2).sum::<usize>() + FENCE_BYTES;
                if size + more > ONE_SHOT_BUDGET {
                    break;
                }
                size += more;
                end += 1;
            }
            answers.extend(self.run_one_shot_group(&cmds[start..end]).await?);
            start = end;
        }
        Ok(answers)
    }

    async fn run_one_shot_group(&self, cmds: &[Command]) -> Result<Vec<Output>, Error> {
        self.count_round_trip();
        // A token a pane cannot guess, so printed text cannot split output.
        let token = format!("__tmuxwire_split_{}__", crate::nonce::hex());
        let fence = Command::new("display-message").arg("-p").arg(token.clone());
        let mut argvs: Vec<&[String]> = Vec::with_capacity(cmds.len() * 2);
        for (i, c) in cmds.iter().enumerate() {
            argvs.push(c.argv());
            if i + 1 < cmds.len() {
                argvs.push(fence.argv());
            }
        }
        let out = self.endpoint.run_command_list(&argvs, self.timeout).await?;
        let mut line = token.into_bytes();
        line.push(b'\n');
        let mut parts = split_on_line(&out.stdout, &line);
        let mut answers = Vec::with_capacity(cmds.len());
        let failed_at = if out.success() {
            cmds.len()
        } else {
            parts.len() - 1
        };
        for i in 0..cmds.len() {
            if i < failed_at {
                let body = if i < parts.len() {
                    std::mem::take(&mut parts[i])
                } else {
                    Vec::new()
                };
                answers.push(Output { ok: true, body });
            } else if i == failed_at {
                let mut t = out.error_text().into_bytes();
                t.push(b'\n');
                answers.push(Output { ok: false, body: t });
            } else {
                answers.push(Output {
                    ok: false,
                    body: b"not run: an earlier command failed\n".to_vec(),
                });
            }
        }
        Ok(answers)
    }

    /// The session a command without a target should act on: the session
    /// of the most recently active client that is not a control client (the
    /// one a person is looking at), else tmux's own choice (the most
    /// recently active session).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when the server has no sessions.
    pub(crate) async fn default_session(&self) -> Result<SessionId, Error> {
        crate::record! {
            struct ClientRow {
                control: bool = "client_control_mode",
                activity: Option<i64> = "client_activity",
                session_id: String = "session_id",
            }
        }
        crate::record! {
            struct SessionRow {
                activity: Option<i64> = "session_activity",
                session_id: String = "session_id",
            }
        }
        crate::record! {
            struct PaneSessionRow {
                session_id: String = "session_id",
            }
        }
        let (clients, cq) = query_cmd("list-clients", ClientRow::FIELDS);
        let (sessions, sq) = query_cmd("list-sessions", SessionRow::FIELDS);
        let mut cmds = vec![clients, sessions];
        let caller = self.caller_pane();
        let mut pq = None;
        if let Some(p) = caller {
            // Inside tmux on this server: the caller's own session, as tmux
            // itself would choose for a command run from that pane.
            let (c, q) = query_cmd("list-panes", PaneSessionRow::FIELDS);
            cmds.push(
                c.opt("-t", p.to_string())
                    .opt("-f", format!("#{{==:#{{pane_id}},{p}}}")),
            );
            pq = Some(q);
        }
        let out = self.run_all(&cmds).await?;
        if let (Some(q), Some(o)) = (pq, out.get(2))
            && o.ok
            && let Some(id) = q
                .parse(&o.body)
                .first()
                .and_then(|r| PaneSessionRow::from_record(r).session_id.parse().ok())
        {
            return Ok(id);
        }
        // The most recently active (ties: the lowest id).
        let newest = |rows: Vec<(Option<i64>, String)>| -> Option<SessionId> {
            rows.into_iter()
                .filter_map(|(act, id)| Some((act?, id.parse::<SessionId>().ok()?)))
                .max_by_key(|(act, id)| (*act, std::cmp::Reverse(id.0)))
                .map(|(_, id)| id)
        };
        let clients = match &out[0] {
            o if o.ok => cq
                .parse(&o.body)
                .iter()
                .map(ClientRow::from_record)
                .filter(|c| !c.control)
                .map(|c| (c.activity, c.session_id))
                .collect(),
            _ => Vec::new(),
        };
        let sessions = match &out[1] {
            o if o.ok => sq
                .parse(&o.body)
                .iter()
                .map(SessionRow::from_record)
                .map(|s| (s.activity, s.session_id))
                .collect(),
            _ => Vec::new(),
        };
        newest(clients)
            .or_else(|| newest(sessions))
            .ok_or_else(|| Error::not_found("no sessions: the tmux server has no sessions"))
    }

    /// The caller's pane, when tmuxwire runs inside a pane of this server.
    pub(crate) fn caller_pane(&self) -> Option<PaneId> {
        self.caller.pane_on(&self.canonical)
    }

    /// The records a command printed for `query` (its `-F` template).
    ///
    /// # Errors
    ///
    /// Connection errors and tmux errors (classified).
    pub(crate) async fn records(
        &self,
        cmd: &Command,
        query: &format::Query,
    ) -> Result<Vec<format::Record>, Error> {
        let body = self.run(cmd).await?.into_result()?;
        Ok(query.parse(&body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_session_first_created_then_lowest_id() {
        let listing = "1700000300 $7\n1700000100 $9\n1700000100 $4\nnot a line\n";
        assert_eq!(oldest_session(listing), Some(SessionId(4)));
        assert_eq!(oldest_session(""), None);
        assert_eq!(oldest_session("x $1\n"), None);
    }

    #[test]
    fn split_output_on_fence_lines() {
        let t = b"F\n";
        assert_eq!(
            split_on_line(b"a\nb\nF\nc\n", t),
            vec![b"a\nb\n".to_vec(), b"c\n".to_vec()]
        );
        assert_eq!(split_on_line(b"F\nF\n", t), vec![Vec::<u8>::new(); 3]);
        // Only whole lines count.
        assert_eq!(
            split_on_line(b"xF\nF\n", t),
            vec![b"xF\n".to_vec(), Vec::new()]
        );
        assert_eq!(split_on_line(b"", t), vec![Vec::<u8>::new()]);
    }

    #[test]
    fn print_captures() {
        assert!(is_print_capture(
            &Command::new("capture-pane").arg("-p").arg("-J")
        ));
        assert!(!is_print_capture(
            &Command::new("capture-pane").arg("-b").arg("x")
        ));
        assert!(!is_print_capture(&Command::new("list-panes").arg("-p")));
    }
}
