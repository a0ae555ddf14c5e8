//! Errors of the tmux layer, with what a caller (a model, a person) can do
//! about them.

use std::path::PathBuf;

use crate::{control, search, wire};

/// Errors of the tmux layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The target does not exist (tmux: `can't find pane: %9`, …).
    #[error("{0}")]
    NotFound(String),
    /// An argument is out of range or malformed; nothing was sent to tmux.
    #[error("{message}")]
    InvalidArgument {
        /// The argument's name.
        argument: &'static str,
        /// What is wrong.
        message: String,
        /// What would be accepted.
        expected: String,
    },
    /// tmux ran the command and reported an error.
    #[error("tmux error: {0}")]
    Tmux(String),
    /// No server listens on the socket.
    #[error("no tmux server running on {}", .0.display())]
    NoServer(PathBuf),
    /// The socket file tmuxwire connected through before is gone (removed
    /// or renamed); the server may still run.
    #[error(
        "the tmux socket file {} is gone (removed or renamed); the tmux server that used it may \
         still run",
        .0.display()
    )]
    SocketGone(PathBuf),
    /// The server refused tmuxwire (tmux's access list).
    #[error("{0}")]
    AccessDenied(String),
    /// The server is too old, or speaks another protocol.
    #[error("{0}")]
    Unsupported(String),
    /// The connection broke.
    #[error("{0}")]
    Connection(String),
    /// tmux did not answer in time; the connection is still open.
    #[error("{0}")]
    Timeout(String),
    /// A search pattern that cannot be used.
    #[error(transparent)]
    Pattern(#[from] search::PatternError),
    /// A wait the caller asked for ended at its deadline (the server is
    /// fine; what was waited for did not happen).
    #[error("{0}")]
    WaitTimeout(String),
    /// The tmux server went away while a call waited on it.
    #[error("{0}")]
    ServerGone(String),
    /// A tool refused to act on the process running this MCP server.
    #[error("{0}")]
    SelfTarget(String),
    /// A paste buffer that does not exist.
    #[error("{0}")]
    NoBuffer(String),
}

impl Error {
    /// A short machine-readable name for the kind of error (MCP
    /// `_meta.error_type`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Error::NotFound(_) => "NotFound",
            Error::InvalidArgument { .. } => "InvalidArgument",
            Error::Tmux(_) => "TmuxError",
            Error::NoServer(_) => "NoServer",
            Error::SocketGone(_) => "SocketGone",
            Error::AccessDenied(_) => "AccessDenied",
            Error::Unsupported(_) => "Unsupported",
            Error::Connection(_) => "ConnectionError",
            Error::Timeout(_) => "Timeout",
            Error::Pattern(_) => "InvalidPattern",
            Error::WaitTimeout(_) => "WaitTimeout",
            Error::ServerGone(_) => "ServerGone",
            Error::SelfTarget(_) => "SelfTarget",
            Error::NoBuffer(_) => "NotFound",
        }
    }

    /// True for errors that follow from the request or the server's state
    /// (as opposed to a fault in tmuxwire or the connection).
    pub fn expected(&self) -> bool {
        !matches!(self, Error::Connection(_) | Error::Timeout(_))
    }

    /// What to do next, when there is a useful hint.
    pub fn suggestion(&self) -> Option<String> {
        match self {
            Error::NotFound(_) => Some(
                "Call list_sessions / list_windows / list_panes to discover valid ids, and target \
                 by id ($N session, @N window, %N pane)."
                    .into(),
            ),
            Error::InvalidArgument { expected, .. } => Some(format!("Expected {expected}.")),
            Error::NoServer(p) => Some(format!(
                "Start tmux on that socket, or point tmuxwire at the right one with socket_name, \
                 -L/--socket-name, -S/--socket-path, or TMUXWIRE_SOCKET_NAME/TMUXWIRE_SOCKET_PATH \
                 (tried {}).",
                p.display()
            )),
            Error::SocketGone(_) => Some(
                "tmux recreates its socket when its server process gets SIGUSR1 (`kill -USR1 \
                 <server pid>`), or point tmuxwire at the socket's new path."
                    .into(),
            ),
            Error::AccessDenied(_) => Some(
                "Run tmuxwire as the user who started the tmux server, or have that user run \
                 `tmux server-access -a <your user>`."
                    .into(),
            ),
            Error::Unsupported(_) => Some("tmuxwire needs tmux 3.2 or newer.".into()),
            Error::Connection(_) => {
                Some("Retry the call; tmuxwire opens a new connection to tmux.".into())
            }
            Error::Timeout(_) => Some(
                "The tmux server may be stopped, blocked or busy with a very large capture; retry \
                 later or check the server."
                    .into(),
            ),
            Error::Pattern(_) => Some(
                "Pass regex=false to search for the text literally, or fix the pattern.".into(),
            ),
            Error::Tmux(_) => None,
            Error::WaitTimeout(_) => Some(
                "Call again to keep waiting, or check that something signals it (signal_channel, \
                 or `tmux wait-for -S` in the command you ran)."
                    .into(),
            ),
            Error::ServerGone(_) => Some(
                "The tmux server exited; nothing was signalled. Start it again or choose another \
                 server."
                    .into(),
            ),
            Error::NoBuffer(_) => Some(
                "The buffer may have been deleted (delete_buffer, or by tmux when it keeps no more \
                 than buffer-limit buffers); make a new one with load_buffer."
                    .into(),
            ),
            Error::SelfTarget(_) => Some(
                "This MCP server runs inside that tmux object; use a manual tmux command if that \
                 is really intended."
                    .into(),
            ),
        }
    }

    /// An invalid-argument error.
    pub fn invalid(
        argument: &'static str,
        message: impl Into<String>,
        expected: impl Into<String>,
    ) -> Error {
        Error::InvalidArgument {
            argument,
            message: message.into(),
            expected: expected.into(),
        }
    }

    /// Classifies a tmux error message (shortened to
    /// [`MAX_MESSAGE_CHARS`]: tmux echoes arguments, which may be long).
    pub fn from_tmux(message: &str) -> Error {
        let m = shorten(message.trim(), MAX_MESSAGE_CHARS);
        let lower = m.to_ascii_lowercase();
        if lower.starts_with("can't find")
            || lower.starts_with("no such")
            || lower.contains("not found")
            || lower.starts_with("no current")
            || lower.starts_with("no sessions")
        {
            Error::NotFound(m)
        } else {
            Error::Tmux(m)
        }
    }
}

/// The longest text from tmux or from a caller's argument that an error
/// message repeats, in characters.
pub const MAX_MESSAGE_CHARS: usize = 200;

/// `s`, cut to `max` characters with `…` and the number of characters
/// left out when it is longer.
pub fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}… ({} more characters)", n - max)
}

impl From<wire::Error> for Error {
    fn from(e: wire::Error) -> Error {
        match e {
            wire::Error::NoServer { path } => Error::NoServer(path),
            wire::Error::Version(v) => Error::Unsupported(v.to_string()),
            wire::Error::TooOld | wire::Error::ProtocolVersion { .. } => {
                Error::Unsupported(e.to_string())
            }
            wire::Error::Refused { .. } => Error::AccessDenied(e.to_string()),
            wire::Error::Socket(s) => {
                Error::invalid("socket", s.to_string(), "a usable tmux socket")
            }
            wire::Error::Timeout { .. } => Error::Timeout(e.to_string()),
            wire::Error::Encode(ref i) => match i {
                wire::identify::IdentifyError::CommandTooLong(_)
                | wire::identify::IdentifyError::Nul => Error::invalid(
                    "arguments",
                    e.to_string(),
                    "shorter arguments without NUL bytes",
                ),
                wire::identify::IdentifyError::EmptyCommand => Error::Tmux(e.to_string()),
            },
            other => Error::Connection(other.to_string()),
        }
    }
}

impl From<control::Error> for Error {
    fn from(e: control::Error) -> Error {
        match e {
            control::Error::Wire(w) => w.into(),
            control::Error::Command(c) => {
                Error::invalid("arguments", c.to_string(), "text without NUL bytes")
            }
            control::Error::Attach(m) => Error::from_tmux(&m),
            control::Error::Timeout { after, what } => {
                tracing::debug!(%what, ?after, "tmux did not answer in time");
                Error::Timeout(format!("tmux did not answer within {after:?}"))
            }
            other => Error::Connection(other.to_string()),
        }
    }
}
