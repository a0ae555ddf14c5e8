//! [`Server`]: one handle per tmux server, holding one control connection
//! that is opened lazily and reopened when it breaks.
//!
//! * [`connect`]: opening, keeping and reopening the connection;
//! * [`exec`]: sending commands over it (or one-shot clients) and their
//!   answers ([`Output`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::caller::Caller;
use super::error::Error;
use super::keys::TypedPanes;
use crate::control::{Client, Command, PaneId, SessionId, Target};
use crate::mirror::echo::Origin;
use crate::mirror::{Mirror, MirrorOptions};
use crate::wire::{self, Framing, TmuxVersion};

mod connect;
mod exec;

use exec::query_cmd;

pub use exec::{Output, Retry};

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
    /// The last search's listing of the panes, kept while the mirror says
    /// it is still tmux's ([`super::op::search::KeptListing`]).
    pub(super) kept_listing: std::sync::Mutex<Option<Arc<super::op::search::KeptListing>>>,
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

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

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
            kept_listing: std::sync::Mutex::new(None),
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

    /// The listing of the panes the last search kept, if any
    /// ([`super::op::search::KeptListing`]).
    pub(super) fn kept_listing(&self) -> Option<Arc<super::op::search::KeptListing>> {
        self.kept_listing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Keeps `listing` for the searches that follow (replacing the last).
    pub(super) fn keep_listing(&self, listing: Arc<super::op::search::KeptListing>) {
        *self.kept_listing.lock().unwrap_or_else(|p| p.into_inner()) = Some(listing);
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
}
