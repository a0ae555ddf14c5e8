//! The wire layer: how tmuxwire reaches a tmux server without the `tmux`
//! binary.
//!
//! * [`socket`]: which socket (`-S`, `-L`, `$TMUX`, `TMUX_TMPDIR`, uid dir).
//! * [`protocol`]: message types and client flags (`tmux-protocol.h`).
//! * [`imsg`]: the frame codec, old (≤ 3.5a) and new (≥ 3.6) header layouts.
//! * [`version`]: `#{version}` parsing, the 3.2 floor, framing choice.
//! * [`identify`]: the crash-safe identify sequence and `MSG_COMMAND`.
//! * [`stream`]: reading frames from a socket, sending fds.
//! * [`command`]: the one-shot command client (fd-less; output arrives as
//!   `MSG_WRITE`, status as `MSG_EXIT`), used for the version probe and for
//!   servers without sessions.
//! * [`connect`]: opening a control-mode connection: probe, socket pair,
//!   identify, attaching `MSG_COMMAND`, then the imsg-side handler.
//!
//! Pure modules (`imsg`, `version`, `identify`, `socket` resolution) do no
//! I/O and are unit-tested with exact bytes.

pub mod command;
pub mod connect;
pub mod identify;
pub mod imsg;
pub mod protocol;
pub mod socket;
pub mod stream;
pub mod version;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

pub use command::{CommandOutput, run_command, run_command_list};
pub use connect::{
    ControlOptions, ControlTransport, EndReason, connect_control, open_control, probe_version,
};
pub use imsg::Framing;
pub use socket::SocketSpec;
pub use version::TmuxVersion;

/// The terminal name tmuxwire's control clients identify with
/// (`#{client_termname}`), so tmuxwire can tell its own clients from a
/// person's (for example to leave them out of `session_attached`).
pub const CLIENT_TERM: &str = "tmuxwire";

/// Errors of the wire layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Nothing listens on the socket (`ENOENT`/`ECONNREFUSED`). The path
    /// tried is included.
    #[error("no tmux server running on {}", path.display())]
    NoServer {
        /// The socket path that was tried.
        path: PathBuf,
    },
    /// The socket exists but could not be connected to for another reason.
    #[error("cannot connect to the tmux server at {}: {source}", path.display())]
    Connect {
        /// The socket path that was tried.
        path: PathBuf,
        /// The `connect()` error.
        source: io::Error,
    },
    /// The socket could not be resolved.
    #[error(transparent)]
    Socket(#[from] socket::SocketError),
    /// The server is older than 3.2.
    #[error(transparent)]
    Version(#[from] version::VersionError),
    /// The server speaks another protocol version (`MSG_VERSION`).
    #[error("tmux server protocol version {server} is not the expected 8; is this the same tmux?")]
    ProtocolVersion {
        /// The server's protocol version.
        server: u32,
    },
    /// The server is tmux ≤ 3.0 (it answered with `MSG_STDOUT`).
    #[error("unsupported tmux version (≤ 3.0) (need ≥ 3.2)")]
    TooOld,
    /// A message could not be encoded.
    #[error(transparent)]
    Encode(#[from] identify::IdentifyError),
    /// The server sent bytes that are not valid imsg frames.
    #[error("tmux protocol error: {0}")]
    Protocol(String),
    /// The server ended the connection before the exchange finished. The
    /// reason is what tmux said (`MSG_EXIT` message, shutdown, EOF).
    #[error("the tmux server at {} ended the connection: {reason}", path.display())]
    Closed {
        /// The socket path.
        path: PathBuf,
        /// Why, as far as the server said.
        reason: String,
    },
    /// The server did not answer in time.
    #[error("the tmux server at {} did not answer within {timeout:?} ({what})", path.display())]
    Timeout {
        /// The socket path.
        path: PathBuf,
        /// The deadline that passed.
        timeout: Duration,
        /// What was being waited for.
        what: &'static str,
    },
    /// Attaching the control client failed; tmux's message is included
    /// (for example `no sessions`).
    #[error("tmux refused to attach a control client: {0}")]
    Attach(String),
    /// Another I/O error on an established connection.
    #[error("i/o error talking to tmux: {0}")]
    Io(#[from] io::Error),
}

impl Error {
    /// True when no server is running on the socket (as opposed to a
    /// server that misbehaved).
    pub fn is_no_server(&self) -> bool {
        matches!(self, Error::NoServer { .. })
    }
}

/// Connects a Unix stream socket to `path`, mapping "nobody listens" to
/// [`Error::NoServer`].
pub(crate) async fn connect_socket(
    path: &std::path::Path,
) -> Result<tokio::net::UnixStream, Error> {
    match tokio::net::UnixStream::connect(path).await {
        Ok(s) => Ok(s),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOENT) | Some(libc::ECONNREFUSED) | Some(libc::ENOTDIR)
            ) =>
        {
            Err(Error::NoServer {
                path: path.to_path_buf(),
            })
        }
        Err(e) => Err(Error::Connect {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}
