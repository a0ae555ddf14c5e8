//! Remote tmux servers through OpenSSH: one `ssh` master per host, owned by
//! tmuxwire, and multiplexed channels over it (`ControlMaster`), each
//! running the host's own `tmux` binary as a control client (`tmux -C` over
//! plain pipes: `-CC` needs a terminal) or as a one-shot client.
//!
//! tmuxwire's own imsg client cannot attach across ssh (control mode needs
//! the client's two fds passed with `SCM_RIGHTS`, which no socket forwarding
//! carries), so the remote binary does the handshake and tmuxwire reads the
//! same control-mode text as locally ([`crate::control`] is unchanged).
//! Facts and sources: `../shared/docs/remote-ssh.md`.
//!
//! * [`script`]: what the host runs and how its answers are read (pure).
//! * [`Host`]: the master (single-flight, capped backoff), channels and
//!   one-shots over it, the host's state for `list_hosts`.
//! * [`Remote`]: one tmux server on a host (socket and binary), with the
//!   same operations as a local socket ([`super::Endpoint`]).
//!
//! tmuxwire never prompts (`BatchMode=yes`) and never overrides the user's
//! host-key policy; the master's `ServerAliveInterval` detects a dead link;
//! channels never open a connection of their own (`ProxyCommand=false`), so
//! a dead master never turns into a burst of new logins.

// `pre_exec` is unsafe: the module's one block says why it is sound.
#[allow(unsafe_code)]
mod owned;
pub mod script;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub use script::{Failure, RemoteSocket};

use super::command::CommandOutput;
use super::connect::{ControlOptions, ControlTransport, EndReason, Watchdog};
use super::error::Error;
use super::imsg::Framing;
use super::version::TmuxVersion;
use crate::control::said::{Said, said};

/// One configured host: `--host NAME=DEST`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostConfig {
    /// The name tools take as `host` (letters, digits, `._-`).
    pub name: String,
    /// Anything `ssh` accepts as a destination: a `Host` alias of the
    /// user's `~/.ssh/config`, `user@host`, `ssh://user@host:port`.
    pub dest: String,
    /// `ssh -F FILE` (`--ssh-config`); `None`: ssh's own default.
    pub ssh_config: Option<PathBuf>,
    /// The tmux binary on the host (`--host-tmux NAME=PATH`); `None`:
    /// `tmux` on the host's `PATH`.
    pub tmux: Option<String>,
    /// The master's keepalive (`--ssh-keepalive` sets its interval).
    pub keepalive: Keepalive,
}

/// An ssh master's keepalive: a dead link is noticed after about
/// `interval × count` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keepalive {
    /// `ServerAliveInterval`, in seconds.
    pub interval: u32,
    /// `ServerAliveCountMax`.
    pub count: u32,
}

impl HostConfig {
    /// A host with the default keepalive (15 s × 3).
    pub fn new(name: impl Into<String>, dest: impl Into<String>) -> HostConfig {
        HostConfig {
            name: name.into(),
            dest: dest.into(),
            ssh_config: None,
            tmux: None,
            keepalive: Keepalive {
                interval: 15,
                count: 3,
            },
        }
    }
}

/// Checks a host name (`--host NAME=…`): 1–64 of `[A-Za-z0-9._-]`, not
/// `local` (this machine's name).
///
/// # Errors
///
/// What is wrong with it.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!("host name {name:?} must be 1 to 64 characters"));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(format!(
            "host name {name:?} may hold only letters, digits, '.', '_' and '-'"
        ));
    }
    if name == "local" {
        return Err("\"local\" names this machine; choose another host name".into());
    }
    Ok(())
}

/// Checks a destination: non-empty, no white space or control character,
/// not starting with `-` (it would be read as an option).
///
/// # Errors
///
/// What is wrong with it.
pub fn check_dest(dest: &str) -> Result<(), String> {
    if dest.is_empty() || dest.starts_with('-') {
        return Err(format!(
            "ssh destination {dest:?} must be a host, user@host or a Host alias"
        ));
    }
    if dest.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "ssh destination {dest:?} may not hold spaces or control characters"
        ));
    }
    Ok(())
}

/// The state of a host's master connection, for `list_hosts`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// Nothing was asked of the host yet.
    Idle,
    /// A master is being opened.
    Connecting,
    /// The master is up (since this long).
    Connected {
        /// Seconds since it came up.
        for_secs: u64,
    },
    /// The last attempt failed or the master ended.
    Down {
        /// Why, as a sentence.
        reason: String,
        /// The kind of failure.
        failure: Failure,
    },
}

enum Master {
    Idle,
    Up {
        since: Instant,
        /// The `ssh -M` process.
        pid: Option<u32>,
        /// Tells the task that owns the process to end it.
        stop: Option<tokio::sync::oneshot::Sender<()>>,
    },
    Down {
        error: Arc<Error>,
        at: Instant,
        failures: u32,
    },
}

/// How long calls are refused after `failures` failed attempts in a row
/// before a new attempt is made: 1 s, 2 s, 4 s, … capped at 30 s.
pub fn backoff(failures: u32) -> Duration {
    let exp = failures.saturating_sub(1).min(5);
    Duration::from_secs((1u64 << exp).min(30))
}

/// A configured host and its ssh master.
pub struct Host {
    config: HostConfig,
    /// The master's control socket.
    control_path: PathBuf,
    master: Mutex<Master>,
    /// Held while a master is opened: one attempt at a time.
    opening: tokio::sync::Mutex<()>,
    /// Channels open now (each a session on the master's connection).
    channels: std::sync::atomic::AtomicUsize,
    /// One-shot commands run so far ([`Host::one_shots`]).
    one_shots: std::sync::atomic::AtomicU64,
    /// The remote server version last seen (for `list_hosts`).
    version: Mutex<Option<String>>,
    /// Masters started so far: the current one's number is in the `TERM`
    /// of every client opened over it ([`Remote::client_term`]).
    generation: std::sync::atomic::AtomicU64,
}

/// This process's tag in its remote clients' `TERM` (`tmuxwire-TAG-GEN`).
fn instance() -> &'static str {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TAG.get_or_init(|| crate::nonce::hex()[..8].to_string())
}

/// True for the `#{client_termname}` of a client of tmuxwire's: `tmuxwire`
/// (local) or `tmuxwire-TAG-GEN` (remote, [`Remote::client_term`]).
pub fn is_own_term(termname: &str) -> bool {
    termname == super::CLIENT_TERM || termname.starts_with("tmuxwire-")
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("name", &self.config.name)
            .field("dest", &self.config.dest)
            .finish_non_exhaustive()
    }
}

/// What a one-shot command printed on the host.
#[derive(Debug)]
struct Exec {
    status: Option<i32>,
    /// After the banner.
    stdout: Vec<u8>,
    stderr: String,
}

/// Bytes of stderr kept per process (the end is what says why).
const STDERR_KEEP: usize = 8 * 1024;

/// Reads all of `r` keeping the last [`STDERR_KEEP`] bytes.
async fn read_tail(mut r: impl AsyncRead + Unpin) -> String {
    let mut keep = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                keep.extend_from_slice(&buf[..n]);
                if keep.len() > 2 * STDERR_KEEP {
                    keep.drain(..keep.len() - STDERR_KEEP);
                }
            }
        }
    }
    String::from_utf8_lossy(&keep).into_owned()
}

impl Host {
    /// A host whose master's control socket goes in `dir` (a private
    /// directory of this process). Nothing is started yet.
    pub fn new(config: HostConfig, dir: &Path) -> Arc<Host> {
        // A short name of its own (no `%`, which ssh expands): ssh adds
        // 17 bytes while it makes the socket, and a Unix socket's path is
        // at most 107 bytes.
        static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let control_path = dir.join(format!("m{n}"));
        Arc::new(Host {
            config,
            control_path,
            master: Mutex::new(Master::Idle),
            opening: tokio::sync::Mutex::new(()),
            channels: std::sync::atomic::AtomicUsize::new(0),
            one_shots: std::sync::atomic::AtomicU64::new(0),
            version: Mutex::new(None),
            generation: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The host's configuration.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// The configured name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    fn master_state(&self) -> std::sync::MutexGuard<'_, Master> {
        self.master.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The master's state now.
    pub fn state(&self) -> LinkState {
        match &*self.master_state() {
            Master::Idle if self.opening.try_lock().is_err() => LinkState::Connecting,
            Master::Idle => LinkState::Idle,
            Master::Up { since, .. } => LinkState::Connected {
                for_secs: since.elapsed().as_secs(),
            },
            Master::Down { .. } if self.opening.try_lock().is_err() => LinkState::Connecting,
            Master::Down { error, .. } => LinkState::Down {
                reason: error.to_string(),
                failure: match &**error {
                    Error::Ssh { failure, .. } => failure.clone(),
                    _ => Failure::Other,
                },
            },
        }
    }

    /// The pid of the `ssh -M` process while the master is up.
    pub fn master_pid(&self) -> Option<u32> {
        match &*self.master_state() {
            Master::Up { pid, .. } => *pid,
            _ => None,
        }
    }

    /// Channels open on the master now (watched sessions and the command
    /// connection).
    pub fn channels(&self) -> usize {
        self.channels.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// One-shot commands run on the host so far (each an `ssh` process on
    /// the master: version probes, `create_session`, `wait_for_channel`);
    /// a seed reads its history over the watch's channel instead.
    pub fn one_shots(&self) -> u64 {
        self.one_shots.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The liveness checks of this host's control channels: the master's
    /// keepalive (`ServerAliveInterval`), with one interval more of
    /// patience than its `ServerAliveCountMax`, so a dead link is the
    /// master's to notice (and the host is then down, calls failing at
    /// once) and a channel is found silent only when the link is up and
    /// tmux there does not answer.
    pub fn watchdog(&self) -> Watchdog {
        Watchdog {
            interval: Duration::from_secs(u64::from(self.config.keepalive.interval.max(1))),
            count: self.config.keepalive.count.max(1) + 1,
        }
    }

    /// The tmux version last probed on the host.
    pub fn last_version(&self) -> Option<String> {
        self.version
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// `ssh` with the options every invocation shares.
    fn ssh(&self) -> Command {
        let mut c = Command::new("ssh");
        if let Some(f) = &self.config.ssh_config {
            c.arg("-F").arg(f);
        }
        c.arg("-S")
            .arg(&self.control_path)
            .args(["-o", "BatchMode=yes", "-o", "RequestTTY=no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    /// The error for a failed `ssh` run: the kind and a sentence that says
    /// what the user can do.
    fn failure(&self, status: Option<i32>, stderr: &str) -> Error {
        let failure = script::classify(status, stderr);
        let detail = script::last_line(stderr);
        let name = &self.config.name;
        let dest = &self.config.dest;
        let by_hand = match &self.config.ssh_config {
            Some(f) => format!("ssh -F {} {dest} true", f.display()),
            None => format!("ssh {dest} true"),
        };
        let message = match failure {
            Failure::AuthRequired => format!(
                "ssh could not log in to host {name} ({dest}) without asking ({detail}): run \
                 `{by_hand}` once in a terminal (or add the key to your ssh agent), then call \
                 again; tmuxwire never prompts"
            ),
            Failure::HostKeyUnknown => format!(
                "the host key of {name} ({dest}) is not known ({detail}): run `{by_hand}` once in \
                 a terminal to check and accept it, then call again"
            ),
            Failure::HostKeyChanged => format!(
                "the host key of {name} ({dest}) changed since it was accepted ({detail}): check \
                 with the host's owner before you replace it in known_hosts"
            ),
            Failure::Unreachable => {
                format!("host {name} ({dest}) could not be reached: {detail}")
            }
            Failure::SessionLimit => format!(
                "the ssh connection to host {name} refused another session ({detail}): sshd's \
                 MaxSessions (10 by default) caps the sessions of one connection, and tmuxwire \
                 uses one per watched tmux session plus one for commands; raise MaxSessions on \
                 the host or work with fewer sessions"
            ),
            Failure::TmuxNotFound => format!(
                "tmux could not be run on host {name} ({detail}): install it there, or give its \
                 path with --host-tmux {name}=PATH"
            ),
            Failure::Other => format!(
                "ssh to host {name} ({dest}) failed{}: {}",
                status.map(|s| format!(" (exit {s})")).unwrap_or_default(),
                if detail.is_empty() {
                    "no reason given"
                } else {
                    detail
                }
            ),
        };
        Error::Ssh {
            host: name.clone(),
            failure,
            message,
        }
    }

    /// The error for an `ssh` that could not be started at all.
    fn cannot_run(&self, e: &std::io::Error) -> Error {
        Error::Ssh {
            host: self.config.name.clone(),
            failure: Failure::Other,
            message: format!("could not run ssh for host {}: {e}", self.config.name),
        }
    }

    /// The error for a host that `did` nothing within `timeout`.
    fn no_answer(&self, did: &str, timeout: Duration) -> Error {
        Error::Ssh {
            host: self.config.name.clone(),
            failure: Failure::Unreachable,
            message: format!(
                "host {} {did} within {}s",
                self.config.name,
                timeout.as_secs_f64()
            ),
        }
    }

    /// Makes sure the master runs: returns at once when it does; within
    /// the backoff after a failure, that failure again (calls during an
    /// outage fail fast); otherwise opens one (one attempt at a time).
    ///
    /// # Errors
    ///
    /// [`Error::Ssh`] with the failure's kind.
    pub async fn ensure_master(self: &Arc<Self>) -> Result<(), Error> {
        if let Some(r) = self.master_ready() {
            return r;
        }
        let _opening = self.opening.lock().await;
        if let Some(r) = self.master_ready() {
            return r;
        }
        match self.open_master().await {
            Ok((stop, pid)) => {
                self.generation
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                *self.master_state() = Master::Up {
                    since: Instant::now(),
                    pid,
                    stop: Some(stop),
                };
                Ok(())
            }
            Err(e) => {
                let mut st = self.master_state();
                let failures = match &*st {
                    Master::Down { failures, .. } => failures + 1,
                    _ => 1,
                };
                let e = Arc::new(e);
                *st = Master::Down {
                    error: e.clone(),
                    at: Instant::now(),
                    failures,
                };
                Err(clone_error(&e))
            }
        }
    }

    /// `Some` when no attempt is needed now: the master is up, or failed
    /// within its backoff.
    fn master_ready(&self) -> Option<Result<(), Error>> {
        match &*self.master_state() {
            Master::Up { .. } => Some(Ok(())),
            Master::Down {
                error,
                at,
                failures,
            } if *failures > 0 && at.elapsed() < backoff(*failures) => {
                Some(Err(clone_error(error)))
            }
            _ => None,
        }
    }

    /// Starts `ssh -M -N` as a child and waits until its control socket
    /// exists (it is made after the login) or the process ends. A task
    /// owns the process from then on; its end marks the master down.
    async fn open_master(
        self: &Arc<Self>,
    ) -> Result<(tokio::sync::oneshot::Sender<()>, Option<u32>), Error> {
        let socket = self.control_path.clone();
        let _ = std::fs::remove_file(&socket);
        let mut c = self.ssh();
        c.args([
            "-M",
            "-N",
            "-o",
            "ControlPersist=no",
            "-o",
            "ConnectTimeout=10",
        ])
        .arg("-o")
        .arg(format!(
            "ServerAliveInterval={}",
            self.config.keepalive.interval
        ))
        .arg("-o")
        .arg(format!(
            "ServerAliveCountMax={}",
            self.config.keepalive.count
        ))
        .args([
            "-o",
            "ClearAllForwardings=yes",
            "-o",
            "RemoteCommand=none",
            "--",
        ])
        .arg(&self.config.dest);
        // A tmuxwire killed with SIGKILL takes its master with it.
        owned::end_with_this_process(&mut c);
        tracing::debug!(host = %self.config.name, "starting the ssh master");
        let mut child = c.spawn().map_err(|e| self.cannot_run(&e))?;
        let stderr = child.stderr.take();
        let stderr = tokio::spawn(async move {
            match stderr {
                Some(s) => read_tail(s).await,
                None => String::new(),
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                let text = stderr.await.unwrap_or_default();
                return Err(self.failure(status.code(), &text));
            }
            if socket.exists() {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill().await;
                return Err(self.failure(None, "Connection timed out while logging in"));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let pid = child.id();
        let host = Arc::downgrade(self);
        tokio::spawn(async move {
            let status = tokio::select! {
                s = child.wait() => s.ok().and_then(|s| s.code()),
                _ = stop_rx => {
                    let _ = child.kill().await;
                    None
                }
            };
            let text = stderr.await.unwrap_or_default();
            if let Some(h) = host.upgrade() {
                let text = if text.trim().is_empty() {
                    "the ssh connection ended (keepalive unanswered, or the master was killed)"
                        .to_string()
                } else {
                    text
                };
                tracing::debug!(host = %h.config.name, ?status, "the ssh master ended");
                let e = h.failure(status, &text);
                let mut st = h.master_state();
                if matches!(*st, Master::Up { .. }) {
                    *st = Master::Down {
                        error: Arc::new(e),
                        at: Instant::now(),
                        // A master that was up gets a new attempt at once.
                        failures: 0,
                    };
                }
            }
        });
        Ok((stop_tx, pid))
    }

    /// `ssh` for a channel on the master: never a connection of its own.
    fn channel_cmd(&self) -> Command {
        let mut c = self.ssh();
        c.args([
            "-T",
            "-o",
            "ControlMaster=no",
            "-o",
            "ProxyCommand=false",
            "--",
        ])
        .arg(&self.config.dest)
        .arg(script::BOOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
        c
    }

    /// Runs `line` (from [`script`]) on the host as a one-shot and waits
    /// for it to end, at most `timeout`. A timeout after the line's banner
    /// came is tmux's ([`Error::Timeout`] naming `server`, the label
    /// `HOST:PATH`, and `what` was asked); before it, the host's
    /// ([`Failure::Unreachable`]).
    async fn exec(
        self: &Arc<Self>,
        nonce: &str,
        line: &str,
        timeout: Duration,
        (server, what): (&Path, &'static str),
    ) -> Result<Exec, Error> {
        self.ensure_master().await?;
        self.one_shots
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut child = self
            .channel_cmd()
            .spawn()
            .map_err(|e| self.cannot_run(&e))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(line.as_bytes()).await;
        }
        let (Some(mut stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(Error::Protocol("ssh's pipes were not made".into()));
        };
        let stderr = tokio::spawn(read_tail(stderr));
        // Read here, not in the timed future, so a timeout can tell a host
        // that never ran the line from a tmux that did not answer.
        let mut got = Vec::new();
        let work = async {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match stdout.read(&mut buf).await {
                    Ok(0) => break,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) => return Err(Error::Io(e)),
                }
            }
            Ok(child.wait().await?.code())
        };
        let status = match tokio::time::timeout(timeout, work).await {
            Ok(r) => r?,
            Err(_) if script::after_banner(&got, nonce).is_some() => {
                // The host ran the line: tmux is what did not answer.
                return Err(Error::Timeout {
                    path: server.to_path_buf(),
                    timeout,
                    what,
                });
            }
            Err(_) => return Err(self.no_answer("did not answer", timeout)),
        };
        let stderr = stderr.await.unwrap_or_default();
        match script::after_banner(&got, nonce) {
            Some(rest) => Ok(Exec {
                status,
                stdout: rest.to_vec(),
                stderr,
            }),
            None => Err(self.failure(status, &stderr)),
        }
    }

    /// Opens a channel running `line`, and returns it once the banner came
    /// (what the host printed before it is dropped; what came after it is
    /// the first bytes of the returned reader).
    async fn channel(
        self: &Arc<Self>,
        nonce: &str,
        line: &str,
        timeout: Duration,
    ) -> Result<Channel, Error> {
        self.ensure_master().await?;
        let mut child = self
            .channel_cmd()
            .spawn()
            .map_err(|e| self.cannot_run(&e))?;
        let (Some(mut stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Error::Protocol("ssh's pipes were not made".into()));
        };
        let stderr = tokio::spawn(read_tail(stderr));
        stdin.write_all(line.as_bytes()).await?;
        let ready = async {
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                if let Some(rest) = script::after_banner(&got, nonce) {
                    return Ok(rest.to_vec());
                }
                match stdout.read(&mut buf).await {
                    Ok(0) | Err(_) => return Err(()),
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
                if got.len() > 1 << 20 {
                    return Err(());
                }
            }
        };
        match tokio::time::timeout(timeout, ready).await {
            Ok(Ok(rest)) => Ok(Channel {
                child,
                stdin,
                stdout,
                first: rest,
                stderr,
            }),
            Ok(Err(())) => {
                let status = child.wait().await.ok().and_then(|s| s.code());
                let text = stderr.await.unwrap_or_default();
                Err(self.failure(status, &text))
            }
            Err(_) => Err(self.no_answer("did not start a channel", timeout)),
        }
    }

    /// Ends the master (and so every channel on it). The host stays
    /// usable: the next call opens a new one.
    pub fn close(&self) {
        if let Master::Up { stop, .. } = &mut *self.master_state()
            && let Some(s) = stop.take()
        {
            let _ = s.send(());
        }
    }
}

/// `Error` is not `Clone` (it holds `io::Error`); a stored master failure
/// is handed out again as the same kind and text.
fn clone_error(e: &Error) -> Error {
    match e {
        Error::Ssh {
            host,
            failure,
            message,
        } => Error::Ssh {
            host: host.clone(),
            failure: failure.clone(),
            message: message.clone(),
        },
        other => Error::Protocol(other.to_string()),
    }
}

/// An open channel after its banner.
struct Channel {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Bytes read past the banner.
    first: Vec<u8>,
    stderr: tokio::task::JoinHandle<String>,
}

/// One tmux server on a host: the host, the socket, and the binary that
/// talks to it (the configured one, or the server's own `/proc/PID/exe`
/// when the binary on `PATH` was upgraded under a running server).
#[derive(Clone, Debug)]
pub struct Remote {
    host: Arc<Host>,
    socket: RemoteSocket,
    tmux: Arc<Mutex<Option<String>>>,
}

impl Remote {
    /// The server on `host` at `socket`.
    pub fn new(host: Arc<Host>, socket: RemoteSocket) -> Remote {
        Remote {
            host,
            socket,
            tmux: Arc::new(Mutex::new(None)),
        }
    }

    /// The host.
    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    /// The socket on the host.
    pub fn socket(&self) -> &RemoteSocket {
        &self.socket
    }

    /// How errors and results name this server: `HOST:PATH`,
    /// `HOST:-L NAME` or `HOST:default`.
    pub fn label(&self) -> PathBuf {
        PathBuf::from(match &self.socket {
            RemoteSocket::Default => format!("{}:default", self.host.name()),
            RemoteSocket::Name(n) => format!("{}:-L {n}", self.host.name()),
            RemoteSocket::Path(p) => format!("{}:{p}", self.host.name()),
        })
    }

    /// The `TERM` of clients opened now: `tmuxwire-TAG-GEN`, this
    /// process's tag and the master's generation.
    pub fn client_term(&self) -> String {
        format!(
            "tmuxwire-{}-{}",
            instance(),
            self.host
                .generation
                .load(std::sync::atomic::Ordering::Relaxed)
        )
    }

    /// True once the host had a master before the current one: only then
    /// can clients of this process be left on a server ([`Remote::is_stale_term`]).
    pub fn had_earlier_link(&self) -> bool {
        self.host
            .generation
            .load(std::sync::atomic::Ordering::Relaxed)
            > 1
    }

    /// True for the `TERM` of a client this process opened over an
    /// earlier master of this host: one a partition left behind on the
    /// server (sshd had not noticed the link die), detached on reconnect.
    /// Never true for another process's clients, nor a person's.
    pub fn is_stale_term(&self, termname: &str) -> bool {
        let Some(rest) = termname
            .strip_prefix("tmuxwire-")
            .and_then(|r| r.strip_prefix(instance()))
            .and_then(|r| r.strip_prefix('-'))
        else {
            return false;
        };
        let now = self
            .host
            .generation
            .load(std::sync::atomic::Ordering::Relaxed);
        rest.parse::<u64>().is_ok_and(|g| g < now)
    }

    /// The client a script line starts now: a fresh nonce, the `TERM`
    /// of clients opened now ([`Remote::client_term`]), the binary and
    /// the socket.
    fn script_client(&self) -> script::Client {
        script::Client {
            nonce: crate::nonce::hex(),
            term: self.client_term(),
            tmux: self.tmux(),
            socket: self.socket.clone(),
        }
    }

    fn tmux(&self) -> String {
        self.tmux
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .or_else(|| self.host.config.tmux.clone())
            .unwrap_or_else(|| "tmux".into())
    }

    /// Asks the host which tmux runs there (one one-shot over the master):
    /// the server's version, and the binary to use with it.
    ///
    /// # Errors
    ///
    /// [`Error::Ssh`] (ssh failed, tmux not found), [`Error::NoServer`],
    /// [`Error::Version`] for a server older than 3.2, [`Error::Protocol`]
    /// when the binary cannot talk to the server.
    pub async fn probe_version(&self, timeout: Duration) -> Result<TmuxVersion, Error> {
        let bin = self
            .host
            .config
            .tmux
            .clone()
            .unwrap_or_else(|| "tmux".into());
        let nonce = crate::nonce::hex();
        let line = script::probe_line(&nonce, &bin, &self.socket);
        let out = self
            .host
            .exec(
                &nonce,
                &line,
                timeout.max(Duration::from_secs(10)),
                (&self.label(), "the version probe"),
            )
            .await?;
        let text = String::from_utf8_lossy(&out.stdout);
        let probe = script::parse_probe(&text).map_err(Error::Protocol)?;
        let binary = match probe.binary {
            Ok(v) => v,
            Err(why) => {
                let why = if why.is_empty() {
                    format!("{bin} printed no version")
                } else {
                    why
                };
                return Err(self.host.failure(Some(127), &format!("{bin}: {why}")));
            }
        };
        let (version, pid) = match probe.server {
            Ok(s) => s,
            Err(why) if is_no_server(&why) => {
                return Err(Error::NoServer { path: self.label() });
            }
            Err(why) if said(&why) == Said::Denied => {
                return Err(Error::Refused {
                    path: self.label(),
                    message: why,
                });
            }
            Err(why) => {
                return Err(Error::Protocol(format!(
                    "tmux {binary} on host {} cannot talk to the server at {}: {why} (a server \
                     started before tmux was upgraded? restart it, or give the binary that \
                     started it with --host-tmux {}=PATH)",
                    self.host.name(),
                    self.socket,
                    self.host.name()
                )));
            }
        };
        // A binary of another version than the server (upgraded under it)
        // may not attach at all (3.8 to 3.5a hangs): use the server's own.
        let use_exe = version != binary && probe.os == "Linux";
        *self.tmux.lock().unwrap_or_else(|p| p.into_inner()) = if use_exe {
            tracing::debug!(host = %self.host.name(), %binary, %version, pid, "tmux binary differs from its server; using /proc/PID/exe");
            Some(format!("/proc/{pid}/exe"))
        } else {
            None
        };
        *self.host.version.lock().unwrap_or_else(|p| p.into_inner()) = Some(version.clone());
        let v = TmuxVersion::parse(&version);
        v.check_supported()?;
        Ok(v)
    }

    /// A control client on the host attached to `opts.attach_target`
    /// (tmux's choice when `None`), as a transport [`crate::control::Client`]
    /// runs like a local one.
    ///
    /// # Errors
    ///
    /// [`Error::Ssh`] when the channel could not be opened.
    pub async fn open_control(
        &self,
        version: TmuxVersion,
        opts: &ControlOptions,
    ) -> Result<ControlTransport, Error> {
        let mut flags = String::from("ignore-size");
        if opts.no_output {
            flags.push_str(",no-output");
        }
        if version.release().is_some_and(|v| v >= (3, 8)) {
            flags.push_str(",new-layouts");
        }
        let client = self.script_client();
        let line = script::control_line(&client, opts.attach_target.as_deref(), &flags);
        let ch = self
            .host
            .channel(
                &client.nonce,
                &line,
                opts.timeout.max(Duration::from_secs(10)),
            )
            .await?;
        let Channel {
            mut child,
            stdin,
            stdout,
            first,
            stderr,
        } = ch;
        let host = self.host.clone();
        host.channels
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let end = Box::pin(async move {
            let status = child.wait().await.ok().and_then(|s| s.code());
            let text = stderr.await.unwrap_or_default();
            host.channels
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            let detail = match script::last_line(&text) {
                "" => String::new(),
                line => format!(": {line}"),
            };
            match status {
                Some(255) => EndReason::Remote(format!(
                    "the ssh channel to host {} ended{detail}",
                    host.name(),
                )),
                _ => EndReason::Remote(format!(
                    "the tmux client on host {} exited{}{detail}",
                    host.name(),
                    status.map(|s| format!(" (status {s})")).unwrap_or_default(),
                )),
            }
        });
        let read: Box<dyn AsyncRead + Send + Unpin> =
            Box::new(std::io::Cursor::new(first).chain(stdout));
        Ok(ControlTransport {
            path: self.label(),
            version,
            framing: Framing::New,
            read,
            write: Box::new(stdin),
            end,
            // The master's keepalive notices a dead link, not a channel
            // whose far end went quiet with the link up.
            watchdog: Some(self.host.watchdog()),
        })
    }

    /// Runs `cmds` as one one-shot tmux client on the host (`-N`: never
    /// starts a server, unless `start`).
    ///
    /// # Errors
    ///
    /// [`Error::Ssh`], [`Error::NoServer`], [`Error::Timeout`].
    pub async fn run_command_list<S: AsRef<str>>(
        &self,
        cmds: &[&[S]],
        timeout: Duration,
        start: bool,
    ) -> Result<CommandOutput, Error> {
        let client = self.script_client();
        let line = script::exec_line(&client, cmds, start);
        let out = self
            .host
            .exec(
                &client.nonce,
                &line,
                timeout,
                (&self.label(), "a one-shot command"),
            )
            .await?;
        if out.status == Some(127)
            && script::classify(out.status, &out.stderr) == Failure::TmuxNotFound
        {
            return Err(self.host.failure(out.status, &out.stderr));
        }
        let status = out.status.unwrap_or(1);
        if status != 0 && is_no_server(&out.stderr) {
            return Err(Error::NoServer { path: self.label() });
        }
        Ok(CommandOutput {
            status,
            stdout: out.stdout,
            stderr: out.stderr.into_bytes(),
            exit_message: None,
            ending: super::command::Ending::Exit,
        })
    }
}

/// tmux's words for "no server on this socket" ([`Said::NoServer`]).
fn is_no_server(text: &str) -> bool {
    said(text) == Said::NoServer
}

/// A private directory for the masters' control sockets: under
/// `$XDG_RUNTIME_DIR` when set, else the temp directory; mode 0700.
///
/// # Errors
///
/// When it cannot be made.
pub fn control_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!(
        "tmuxwire-ssh-{}-{}",
        std::process::id(),
        &crate::nonce::hex()[..8]
    ));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_destinations_are_checked() {
        assert!(check_name("devbox").is_ok());
        assert!(check_name("build-1.eu_w").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("local").is_err());
        assert!(check_name("a b").is_err());
        assert!(check_name("a;b").is_err());
        assert!(check_dest("user@host").is_ok());
        assert!(check_dest("ssh://u@h:2222").is_ok());
        assert!(check_dest("-oProxyCommand=x").is_err());
        assert!(check_dest("a b").is_err());
        assert!(check_dest("").is_err());
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        assert_eq!(backoff(0), Duration::from_secs(1));
        assert_eq!(backoff(1), Duration::from_secs(1));
        assert_eq!(backoff(2), Duration::from_secs(2));
        assert_eq!(backoff(4), Duration::from_secs(8));
        assert_eq!(backoff(40), Duration::from_secs(30));
    }
}
