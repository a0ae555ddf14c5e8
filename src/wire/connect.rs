//! Opening a control-mode connection to a tmux server.
//!
//! The steps (`tmux-wire-protocol.md` §8):
//!
//! 1. **Probe** the version with a fd-less one-shot client
//!    (`display-message -p '#{version}'`); refuse < 3.2; choose the imsg
//!    layout from it.
//! 2. Make a `socketpair()`. One end is handed to the server as *both*
//!    the client's stdin and stdout (`MSG_IDENTIFY_STDIN`/`STDOUT`, each
//!    fd in its own `sendmsg()`), then our copy of it is closed so the
//!    server holds the only references.
//! 3. Identify crash-safely (see [`super::identify`]) and send an
//!    *attaching* `MSG_COMMAND` (`attach-session -E`): tmux ≥ 3.4 reads
//!    control input only after the initial command finished and left the
//!    client attached.
//! 4. Control-mode text now flows over our end of the pair; the server
//!    socket carries only imsg traffic, which [`ImsgSide::run`] handles:
//!    file requests are refused so nothing hangs, `MSG_DETACH` is answered
//!    with `MSG_EXITING`, `MSG_SUSPEND` is never answered with `MSG_WAKEUP`
//!    (that crashes the server), and `MSG_EXIT`/`MSG_SHUTDOWN`/EOF end it.

use std::fmt;
use std::future::Future;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

use nix::sys::socket::{AddressFamily, SockFlag, SockType, socketpair};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixStream;

use super::command::run_command;
use super::dial::connect_socket;
use super::error::Error;
use super::identify::{self, Chunk, Identity};
use super::imsg::{self, Framing};
use super::protocol::{
    CLIENT_CONTROL, CLIENT_CONTROL_NOOUTPUT, CLIENT_IGNORESIZE, CLIENT_UTF8, EBADF, MsgType,
};
use super::stream::{FrameReader, Message, check_peer_version, send_with_fd};
use super::version::TmuxVersion;

/// How to open a control connection.
#[derive(Clone, Debug)]
pub struct ControlOptions {
    /// Turn off `%output` notifications (`CLIENT_CONTROL_NOOUTPUT`), for
    /// connections that only send commands.
    pub no_output: bool,
    /// The session to attach to (`-t`, an id like `$3` or `=name`), or
    /// `None` for tmux's choice (the most recently used session).
    pub attach_target: Option<String>,
    /// Bound for the probe and the handshake.
    pub timeout: Duration,
    /// Use this imsg layout instead of the one the version implies.
    pub framing: Option<Framing>,
}

impl Default for ControlOptions {
    fn default() -> Self {
        ControlOptions {
            no_output: true,
            attach_target: None,
            timeout: Duration::from_secs(5),
            framing: None,
        }
    }
}

/// An attaching control-mode connection, before any control text was
/// read: a local socket pair with the server's imsg socket beside it, or a
/// remote `tmux -C` client's pipes ([`super::ssh`]).
pub struct ControlTransport {
    /// The server's socket path (for a remote server, `HOST:PATH`).
    pub path: PathBuf,
    /// The server's version, from the probe.
    pub version: TmuxVersion,
    /// The imsg layout in use (locally; meaningless for a remote server).
    pub framing: Framing,
    /// Control-mode output. The first block on it (flags 0) is the attach
    /// command's answer.
    pub read: Box<dyn AsyncRead + Send + Unpin>,
    /// Where `\n`-terminated command lines go.
    pub write: Box<dyn AsyncWrite + Send + Unpin>,
    /// Resolves when the client has ended, saying why: the imsg side
    /// ([`ImsgSide::run`]) locally, the `ssh` process remotely.
    pub end: Pin<Box<dyn Future<Output = EndReason> + Send>>,
    /// How the client checks that a quiet stream's far end is still there
    /// (`None`: it need not, as locally, where the imsg socket says when
    /// the server goes).
    pub watchdog: Option<Watchdog>,
}

/// Liveness checks on a control stream whose far end can go silent without
/// closing it (a remote `tmux -C` client stopped, or a multiplexed ssh
/// channel stuck while its master still answers keepalives).
///
/// After `interval` with nothing read, the client sends a command that
/// always answers (`display-message -p ''`); when nothing at all is read
/// in the `interval × count` after it, the connection is declared dead and
/// every open request fails, so the link is noticed in about
/// `interval × (count + 1)`, as ssh's `ServerAliveInterval` and
/// `ServerAliveCountMax` notice a dead connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchdog {
    /// Silence before a check is sent.
    pub interval: Duration,
    /// Intervals a check may go unanswered, with nothing else read.
    pub count: u32,
}

impl Watchdog {
    /// How long a check may go unanswered.
    pub fn patience(&self) -> Duration {
        self.interval.saturating_mul(self.count.max(1))
    }
}

impl fmt::Debug for ControlTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ControlTransport")
            .field("path", &self.path)
            .field("version", &self.version)
            .field("framing", &self.framing)
            .finish_non_exhaustive()
    }
}

/// Asks the server for its version with a one-shot, fd-less client.
///
/// # Errors
///
/// [`Error::NoServer`] if nothing listens; [`Error::Version`] for
/// servers older than 3.2; [`Error::Protocol`] if the answer is unusable.
pub async fn probe_version(path: &Path, timeout: Duration) -> Result<TmuxVersion, Error> {
    let out = run_command(path, &["display-message", "-p", "#{version}"], timeout).await?;
    if out.stdout.is_empty()
        && let Some(m) = &out.exit_message
    {
        // Refused before the command ran (server.c: `server_accept()`
        // exits clients the access list does not admit).
        return Err(Error::Refused {
            path: path.to_path_buf(),
            message: m.clone(),
        });
    }
    if !out.success() {
        return Err(Error::Protocol(format!(
            "version probe failed: {}",
            out.error_text()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let version = TmuxVersion::parse(text.lines().next().unwrap_or(""));
    if version.as_str().is_empty() {
        return Err(Error::Protocol(
            "the server did not report a version".into(),
        ));
    }
    version.check_supported()?;
    Ok(version)
}

/// Opens a control-mode connection to the server at `path`.
///
/// The returned transport has sent its attaching command; whether the
/// attach worked shows on the control stream (a flags-0 `%end` or
/// `%error`) and, on failure, as `MSG_EXIT` on the imsg side.
///
/// # Errors
///
/// Probe errors (see [`probe_version`]), [`Error::Timeout`], and I/O
/// errors while sending the handshake.
pub async fn connect_control(
    path: &Path,
    opts: &ControlOptions,
) -> Result<ControlTransport, Error> {
    let version = probe_version(path, opts.timeout).await?;
    open_control(path, version, opts).await
}

/// [`connect_control`] for a server whose version is already known (from
/// [`probe_version`]).
///
/// # Errors
///
/// [`Error::Timeout`] and I/O errors while sending the handshake.
pub async fn open_control(
    path: &Path,
    version: TmuxVersion,
    opts: &ControlOptions,
) -> Result<ControlTransport, Error> {
    let framing = opts.framing.or(version.framing()).unwrap_or(Framing::Old);
    let fut = handshake(path, version, framing, opts);
    match tokio::time::timeout(opts.timeout, fut).await {
        Ok(r) => r,
        Err(_) => Err(Error::Timeout {
            path: path.to_path_buf(),
            timeout: opts.timeout,
            what: "the control-mode handshake",
        }),
    }
}

/// A connected pair of Unix stream sockets, both close-on-exec (so no
/// program tmuxwire starts inherits the end it keeps): atomically with
/// `SOCK_CLOEXEC` (Linux), else set right after (Apple's systems have no
/// `SOCK_CLOEXEC`).
fn cloexec_socketpair() -> Result<(OwnedFd, OwnedFd), Error> {
    #[cfg(not(target_vendor = "apple"))]
    let flags = SockFlag::SOCK_CLOEXEC;
    #[cfg(target_vendor = "apple")]
    let flags = SockFlag::empty();
    let (a, b): (OwnedFd, OwnedFd) = socketpair(AddressFamily::Unix, SockType::Stream, None, flags)
        .map_err(std::io::Error::from)?;
    if flags.is_empty() {
        for fd in [&a, &b] {
            nix::fcntl::fcntl(
                fd,
                nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
            )
            .map_err(std::io::Error::from)?;
        }
    }
    Ok((a, b))
}

async fn handshake(
    path: &Path,
    version: TmuxVersion,
    framing: Framing,
    opts: &ControlOptions,
) -> Result<ControlTransport, Error> {
    let mut server = connect_socket(path).await?;
    let (ours, theirs) = cloexec_socketpair()?;

    let mut flags = CLIENT_CONTROL | CLIENT_UTF8 | CLIENT_IGNORESIZE;
    if opts.no_output {
        flags |= CLIENT_CONTROL_NOOUTPUT;
    }
    let id = Identity::for_this_process(flags, super::identify::CLIENT_TERM);
    let mut argv = vec!["attach-session".to_string(), "-E".to_string()];
    // tmux 3.8 prints JSON layouts, but sends control clients the old
    // format unless they ask; ask, so `#{window_layout}` matches the CLI.
    if version.release().is_some_and(|v| v >= (3, 8)) {
        argv.push("-f".into());
        argv.push("new-layouts".into());
    }
    if let Some(t) = &opts.attach_target {
        argv.push("-t".into());
        argv.push(t.clone());
    }
    let payload = identify::command_payload(&argv)?;
    for chunk in identify::handshake(framing, &id, true, &payload)? {
        match chunk {
            Chunk::Plain(b) => server.write_all(&b).await?,
            Chunk::WithFd(f) => send_with_fd(&mut server, &f, theirs.as_fd()).await?,
        }
    }
    // The server now holds the only copies of its end.
    drop(theirs);

    let std_stream = std::os::unix::net::UnixStream::from(ours);
    std_stream.set_nonblocking(true)?;
    let control = UnixStream::from_std(std_stream)?;
    let (read, write) = control.into_split();
    let imsg = ImsgSide {
        stream: server,
        reader: FrameReader::new(framing),
        framing,
    };
    Ok(ControlTransport {
        path: path.to_path_buf(),
        version,
        framing,
        read: Box::new(read),
        write: Box::new(write),
        end: Box::pin(imsg.run()),
        watchdog: None,
    })
}

/// How a control connection ended, as the server's imsg messages told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// `MSG_EXIT`: the server exited the client. `message` is tmux's reason
    /// when given (e.g. "too far behind", "access not allowed").
    Exit {
        /// The exit status.
        status: i32,
        /// tmux's message, if any.
        message: Option<String>,
    },
    /// `MSG_DETACH`/`MSG_DETACHKILL`: detached from the named session.
    Detached(String),
    /// `MSG_SHUTDOWN`: the server is exiting (e.g. `kill-server`).
    Shutdown,
    /// The server closed the socket without saying why (it was killed or
    /// crashed).
    Eof,
    /// The server sent something unusable.
    Error(String),
    /// A remote client ended (its `ssh` process exited): why, as a
    /// sentence naming the host.
    Remote(String),
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Exit {
                status,
                message: Some(m),
            } => {
                write!(f, "tmux exited the client ({m}, status {status})")
            }
            EndReason::Exit {
                status,
                message: None,
            } => {
                write!(f, "tmux exited the client (status {status})")
            }
            EndReason::Detached(s) => write!(f, "tmux detached the client from session {s:?}"),
            EndReason::Shutdown => f.write_str("the tmux server shut down"),
            EndReason::Eof => {
                f.write_str("the tmux server closed the connection (killed or crashed?)")
            }
            EndReason::Error(e) => write!(f, "tmux protocol error: {e}"),
            EndReason::Remote(why) => f.write_str(why),
        }
    }
}

/// The server-socket side of a control connection.
pub struct ImsgSide {
    stream: UnixStream,
    reader: FrameReader,
    framing: Framing,
}

impl ImsgSide {
    /// Handles server messages until the connection ends, and says why.
    pub async fn run(mut self) -> EndReason {
        let mut detached: Option<String> = None;
        loop {
            let m = match self.reader.read(&mut self.stream).await {
                Ok(Some(m)) => m,
                Ok(None) => return detached.map(EndReason::Detached).unwrap_or(EndReason::Eof),
                Err(e) => {
                    return match detached {
                        Some(s) => EndReason::Detached(s),
                        None => EndReason::Error(e.to_string()),
                    };
                }
            };
            if m.kind == MsgType::Version as u32 {
                return EndReason::Error(format!(
                    "protocol version mismatch (server speaks {})",
                    m.peerid & 0xff
                ));
            }
            if let Err(e) = check_peer_version(&m) {
                return EndReason::Error(e.to_string());
            }
            match self.handle(&m).await {
                Step::Continue => {}
                Step::Detached(s) => detached = Some(s),
                // After MSG_DETACH the server's MSG_EXITED is the
                // expected answer; the detach is the reason to report.
                Step::End(r) => {
                    return match (detached, r) {
                        (Some(s), EndReason::Exit { .. }) => EndReason::Detached(s),
                        (_, r) => r,
                    };
                }
            }
        }
    }

    async fn handle(&mut self, m: &Message) -> Step {
        let reply = |kind: MsgType, stream: i32| -> Vec<u8> {
            let mut p = stream.to_ne_bytes().to_vec();
            p.extend_from_slice(&EBADF.to_ne_bytes());
            imsg::encode_vec(self.framing, kind as u32, &p, false).unwrap_or_default()
        };
        let stream_id = m
            .data
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(i32::from_ne_bytes);
        match MsgType::from_u32(m.kind) {
            Some(MsgType::Exit) => {
                let status = stream_id.unwrap_or(0);
                let message = m
                    .data
                    .get(4..)
                    .map(|b| b.strip_suffix(b"\0").unwrap_or(b))
                    .filter(|b| !b.is_empty())
                    .map(|b| String::from_utf8_lossy(b).into_owned());
                Step::End(EndReason::Exit { status, message })
            }
            Some(MsgType::Exited) => Step::End(EndReason::Exit {
                status: 0,
                message: None,
            }),
            Some(MsgType::Shutdown) => Step::End(EndReason::Shutdown),
            Some(MsgType::Detach) | Some(MsgType::DetachKill) | Some(MsgType::Exec) => {
                let name = m.data.strip_suffix(b"\0").unwrap_or(&m.data);
                let name = String::from_utf8_lossy(name).into_owned();
                let bytes = imsg::encode_vec(self.framing, MsgType::Exiting as u32, &[], false)
                    .unwrap_or_default();
                if self.stream.write_all(&bytes).await.is_err() {
                    return Step::End(EndReason::Detached(name));
                }
                Step::Detached(name)
            }
            // File requests reach only unattached clients, but must be
            // answered or the command waits forever.
            Some(MsgType::ReadOpen) => {
                if let Some(s) = stream_id {
                    let _ = self.stream.write_all(&reply(MsgType::ReadDone, s)).await;
                }
                Step::Continue
            }
            Some(MsgType::WriteOpen) => {
                if let Some(s) = stream_id {
                    let _ = self.stream.write_all(&reply(MsgType::WriteReady, s)).await;
                }
                Step::Continue
            }
            Some(MsgType::Suspend) => {
                // Never MSG_WAKEUP: it crashes the server for control
                // clients. Commands keep working; %output stops.
                tracing::warn!(
                    "tmux suspended this control client; ignoring (never answer MSG_WAKEUP)"
                );
                Step::Continue
            }
            _ => Step::Continue,
        }
    }
}

enum Step {
    Continue,
    Detached(String),
    End(EndReason),
}
