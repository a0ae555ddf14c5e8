//! Errors of the tmux layer: what went wrong ([`ErrorKind`]), about what
//! ([`Subject`]) and which argument, with tmux's or tmuxwire's own words
//! for the detail. What a reader can do about an error is said where the
//! reader is: `mcp::errors` for a model (tool and argument names),
//! `cli::errors` for a person at a shell (commands and flags).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::control::said::{Object, Said, said};
use crate::{control, search, wire};

/// What went wrong, in the kinds a caller acts on differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The target does not exist (tmux: `can't find pane: %9`, …).
    NotFound,
    /// An argument is out of range or malformed; nothing was sent to tmux.
    InvalidArgument,
    /// tmux ran the command and reported an error no kind fits.
    Tmux,
    /// No server listens on the socket.
    NoServer,
    /// The socket file tmuxwire connected through before is gone (removed
    /// or renamed); the server may still run.
    SocketGone,
    /// The server refused tmuxwire (tmux's access list).
    AccessDenied,
    /// The server is too old, or speaks another protocol, or tmuxwire
    /// cannot do this here.
    Unsupported,
    /// The connection broke.
    Connection,
    /// tmux did not answer in time; the connection is still open.
    Timeout,
    /// A search pattern that cannot be used.
    Pattern,
    /// A wait the caller asked for ended at its deadline (the server is
    /// fine; what was waited for did not happen).
    WaitTimeout,
    /// The tmux server went away while a call waited on it.
    ServerGone,
    /// A tool refused to act on the process running tmuxwire.
    SelfTarget,
    /// A paste buffer that does not exist.
    NoBuffer,
    /// Keys refused because the pane's program reads a password (its
    /// terminal has ECHO off and ICANON on) and the caller did not allow
    /// typing into one.
    PasswordInput,
    /// A fault in tmuxwire itself (a scan that panicked): not the
    /// request's doing, and not something tmux said.
    Internal,
    /// ssh could not log in to a remote host without asking (`BatchMode`):
    /// the user must run `ssh` once by hand.
    AuthRequired,
    /// A remote host's key is not known, or changed.
    HostKey,
    /// A remote host could not be reached (or its link died).
    HostUnreachable,
    /// tmux is not installed on a remote host (or not on its `PATH`).
    TmuxNotFound,
    /// sshd's `MaxSessions` refused one more session on the connection.
    HostSessionLimit,
}

impl ErrorKind {
    /// A short machine-readable name (MCP `_meta.error_type`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::NotFound | ErrorKind::NoBuffer => "NotFound",
            ErrorKind::InvalidArgument => "InvalidArgument",
            ErrorKind::Tmux => "TmuxError",
            ErrorKind::NoServer => "NoServer",
            ErrorKind::SocketGone => "SocketGone",
            ErrorKind::AccessDenied => "AccessDenied",
            ErrorKind::Unsupported => "Unsupported",
            ErrorKind::Connection => "ConnectionError",
            ErrorKind::Timeout => "Timeout",
            ErrorKind::Pattern => "InvalidPattern",
            ErrorKind::WaitTimeout => "WaitTimeout",
            ErrorKind::ServerGone => "ServerGone",
            ErrorKind::SelfTarget => "SelfTarget",
            ErrorKind::PasswordInput => "PasswordPrompt",
            ErrorKind::Internal => "InternalError",
            ErrorKind::AuthRequired => "AuthRequired",
            ErrorKind::HostKey => "HostKey",
            ErrorKind::HostUnreachable => "HostUnreachable",
            ErrorKind::TmuxNotFound => "TmuxNotFound",
            ErrorKind::HostSessionLimit => "HostSessionLimit",
        }
    }

    /// True for kinds that follow from the request or the server's state,
    /// false for a fault in tmuxwire or the connection.
    pub fn is_expected(self) -> bool {
        !matches!(
            self,
            ErrorKind::Connection | ErrorKind::Timeout | ErrorKind::Internal
        )
    }
}

/// What an error is about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Subject {
    /// The server on this socket.
    Server(PathBuf),
    /// A session, by id or name.
    Session(String),
    /// A window, by id or target.
    Window(String),
    /// A pane, by id or target.
    Pane(String),
    /// A paste buffer, by name.
    Buffer(String),
    /// A `wait-for` channel, by name.
    Channel(String),
}

/// An error of the tmux layer (see the module docs).
#[derive(Clone, Debug)]
pub struct Error {
    kind: ErrorKind,
    subject: Option<Subject>,
    argument: Option<&'static str>,
    detail: String,
    accepted: Option<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, &self.subject) {
            (ErrorKind::Tmux, _) => write!(f, "tmux error: {}", self.detail),
            (ErrorKind::NoServer, Some(Subject::Server(p))) => {
                write!(f, "no tmux server running on {}", p.display())
            }
            (ErrorKind::SocketGone, Some(Subject::Server(p))) => write!(
                f,
                "the tmux socket file {} is gone (removed or renamed); the tmux server that used \
                 it may still run",
                p.display()
            ),
            _ => f.write_str(&self.detail),
        }
    }
}

impl std::error::Error for Error {}

/// Constructors, one per kind; the detail is a sentence about the domain
/// (tmux's own message, or what tmuxwire found), never advice.
impl Error {
    /// An error of `kind` with `detail`.
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            kind,
            subject: None,
            argument: None,
            detail: detail.into(),
            accepted: None,
        }
    }

    /// [`ErrorKind::NoServer`] for the socket at `path`.
    pub fn no_server(path: impl Into<PathBuf>) -> Error {
        let path = path.into();
        Error::new(ErrorKind::NoServer, path.display().to_string()).about(Subject::Server(path))
    }

    /// [`ErrorKind::SocketGone`] for the socket at `path`.
    pub fn socket_gone(path: impl Into<PathBuf>) -> Error {
        let path = path.into();
        Error::new(ErrorKind::SocketGone, path.display().to_string()).about(Subject::Server(path))
    }

    /// [`ErrorKind::InvalidArgument`] for `argument`: `message` says what
    /// is wrong, `accepted` what would be accepted.
    pub fn invalid(
        argument: &'static str,
        message: impl Into<String>,
        accepted: impl Into<String>,
    ) -> Error {
        Error {
            argument: Some(argument),
            accepted: Some(accepted.into()),
            ..Error::new(ErrorKind::InvalidArgument, message)
        }
    }

    /// The same error, about `subject`.
    #[must_use]
    pub fn about(mut self, subject: Subject) -> Error {
        self.subject = Some(subject);
        self
    }

    /// The same error, naming `argument` as its cause.
    #[must_use]
    pub fn for_argument(mut self, argument: &'static str) -> Error {
        self.argument = Some(argument);
        self
    }

    /// Classifies a tmux error message (shortened to
    /// [`MAX_MESSAGE_CHARS`]: tmux echoes arguments, which may be long) by
    /// [`crate::control::said`]: an object that does not exist or nothing
    /// to default to ("can't find …", "no such …", "no current …", "no
    /// sessions") is [`ErrorKind::NotFound`], about the object tmux named;
    /// the rest [`ErrorKind::Tmux`]. An operation that knows what it asked
    /// gives a finer kind itself.
    pub fn from_tmux(message: &str) -> Error {
        let m = shorten(message.trim(), MAX_MESSAGE_CHARS);
        let said = said(&m);
        if !said.is_missing() {
            return Error::tmux(m);
        }
        let subject = match said {
            Said::NotFound(Some((what, name))) if m.starts_with("can't find ") => {
                let name = name.to_string();
                Some(match what {
                    Object::Session => Subject::Session(name),
                    Object::Window => Subject::Window(name),
                    Object::Pane => Subject::Pane(name),
                })
            }
            _ => None,
        };
        let e = Error::not_found(m);
        match subject {
            Some(s) => e.about(s),
            None => e,
        }
    }
}

/// The constructors that only set a kind: `name => Kind`, each with its
/// doc comment, make `Error::name(detail)` for
/// [`Error::new`]`(ErrorKind::Kind, detail)`.
macro_rules! kind_constructors {
    ($($(#[$doc:meta])* $name:ident => $kind:ident,)*) => {
        impl Error {
            $(
                $(#[$doc])*
                pub fn $name(detail: impl Into<String>) -> Error {
                    Error::new(ErrorKind::$kind, detail)
                }
            )*
        }
    };
}

kind_constructors! {
    /// [`ErrorKind::NotFound`].
    not_found => NotFound,
    /// [`ErrorKind::Tmux`]: tmux's message, unclassified.
    tmux => Tmux,
    /// [`ErrorKind::AccessDenied`].
    access_denied => AccessDenied,
    /// [`ErrorKind::Unsupported`].
    unsupported => Unsupported,
    /// [`ErrorKind::Connection`].
    connection => Connection,
    /// [`ErrorKind::Timeout`].
    timeout => Timeout,
    /// [`ErrorKind::WaitTimeout`].
    wait_timeout => WaitTimeout,
    /// [`ErrorKind::ServerGone`].
    server_gone => ServerGone,
    /// [`ErrorKind::PasswordInput`].
    password_input => PasswordInput,
    /// [`ErrorKind::SelfTarget`].
    self_target => SelfTarget,
    /// [`ErrorKind::NoBuffer`].
    no_buffer => NoBuffer,
    /// [`ErrorKind::Internal`]: a fault in tmuxwire, said as such.
    internal => Internal,
}

impl Subject {
    /// The object `target` names (a window by index is the window).
    pub fn of_target(target: &crate::control::Target) -> Subject {
        use crate::control::Target;
        match target {
            Target::Session(_) | Target::SessionName(_) => Subject::Session(target.to_string()),
            Target::Window(_) | Target::WindowIndex { .. } => Subject::Window(target.to_string()),
            Target::Pane(_) => Subject::Pane(target.to_string()),
        }
    }
}

/// What an error holds.
impl Error {
    /// Its kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What it is about, when known.
    pub fn subject(&self) -> Option<&Subject> {
        self.subject.as_ref()
    }

    /// The argument that caused it, when one did.
    pub fn argument(&self) -> Option<&'static str> {
        self.argument
    }

    /// The detail: tmux's message or tmuxwire's finding (the socket path
    /// for [`ErrorKind::NoServer`] and [`ErrorKind::SocketGone`]).
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// For [`ErrorKind::InvalidArgument`]: what would be accepted.
    pub fn accepted(&self) -> Option<&str> {
        self.accepted.as_deref()
    }

    /// The socket, for [`ErrorKind::NoServer`] and
    /// [`ErrorKind::SocketGone`].
    pub fn socket(&self) -> Option<&Path> {
        match &self.subject {
            Some(Subject::Server(p)) => Some(p),
            _ => None,
        }
    }

    /// Whether it is of `kind`.
    pub fn is(&self, kind: ErrorKind) -> bool {
        self.kind == kind
    }
}

impl From<search::PatternError> for Error {
    fn from(e: search::PatternError) -> Error {
        Error::new(ErrorKind::Pattern, e.to_string()).for_argument("pattern")
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
            wire::Error::NoServer { path } => Error::no_server(path),
            wire::Error::Version(v) => Error::unsupported(v.to_string()),
            wire::Error::TooOld | wire::Error::ProtocolVersion { .. } => {
                Error::unsupported(e.to_string())
            }
            wire::Error::Refused { .. } => Error::access_denied(e.to_string()),
            wire::Error::Ssh {
                failure, message, ..
            } => {
                use wire::ssh::Failure;
                let kind = match failure {
                    Failure::AuthRequired => ErrorKind::AuthRequired,
                    Failure::HostKeyUnknown | Failure::HostKeyChanged => ErrorKind::HostKey,
                    Failure::Unreachable => ErrorKind::HostUnreachable,
                    Failure::SessionLimit => ErrorKind::HostSessionLimit,
                    Failure::TmuxNotFound => ErrorKind::TmuxNotFound,
                    Failure::Other => ErrorKind::Connection,
                };
                Error::new(kind, message)
            }
            wire::Error::Socket(s) => {
                Error::invalid("socket", s.to_string(), "a usable tmux socket")
            }
            wire::Error::Timeout { .. } => Error::timeout(e.to_string()),
            wire::Error::Encode(ref i) => match i {
                wire::identify::IdentifyError::CommandTooLong(_)
                | wire::identify::IdentifyError::Nul => Error::invalid(
                    "arguments",
                    e.to_string(),
                    "shorter arguments without NUL bytes",
                ),
                wire::identify::IdentifyError::EmptyCommand => Error::tmux(e.to_string()),
            },
            other => Error::connection(other.to_string()),
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
                Error::timeout(format!(
                    "tmux did not answer within {after:?}: it stopped answering (stopped, or too busy)"
                ))
            }
            // tmux did not answer; the connection that found it is gone.
            control::Error::Silent { reason } => Error::timeout(reason),
            other => Error::connection(other.to_string()),
        }
    }
}
