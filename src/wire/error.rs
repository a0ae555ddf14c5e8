//! [`Error`]: what can go wrong reaching or talking to a tmux server.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use super::{identify, protocol, socket, version};

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
    /// The server rejected our messages as another protocol version
    /// (`MSG_VERSION`, carrying the server's own version).
    #[error("{}", protocol_version_message(*server))]
    ProtocolVersion {
        /// The server's protocol version.
        server: u32,
    },
    /// The server refused this client (tmux ≥ 3.3 lets only its owner and
    /// users added with `server-access -a` connect: server-acl.c). The
    /// message is tmux's.
    #[error(
        "the tmux server at {} refused tmuxwire: {message} (tmux 3.3+ admits only the user \
         who started it and users added with `tmux server-access -a USER`)",
        path.display()
    )]
    Refused {
        /// The socket path.
        path: PathBuf,
        /// tmux's message, e.g. `access not allowed`.
        message: String,
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
    /// Reaching a remote host through `ssh` failed; `message` says what the
    /// user can do (run one `ssh` by hand, accept a host key, …).
    #[error("{message}")]
    Ssh {
        /// The configured host name.
        host: String,
        /// What kind of failure.
        failure: super::ssh::Failure,
        /// A sentence for the user.
        message: String,
    },
    /// Another I/O error on an established connection.
    #[error("i/o error talking to tmux: {0}")]
    Io(#[from] io::Error),
}

/// The text of [`Error::ProtocolVersion`].
fn protocol_version_message(server: u32) -> String {
    use protocol::PROTOCOL_VERSION;
    if server == PROTOCOL_VERSION {
        format!(
            "the tmux server rejected tmuxwire's handshake although both speak protocol version \
             {server}: the message framing did not match this tmux build"
        )
    } else {
        format!(
            "the tmux server speaks protocol version {server} and tmuxwire speaks \
             {PROTOCOL_VERSION}: a tmux build tmuxwire cannot talk to"
        )
    }
}

impl Error {
    /// True when no server is running on the socket (as opposed to a
    /// server that misbehaved).
    pub fn is_no_server(&self) -> bool {
        matches!(self, Error::NoServer { .. })
    }
}
