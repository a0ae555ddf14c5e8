//! [`Error`]: what can go wrong on a control-mode connection.

use std::time::Duration;

use super::command;

/// Errors of the control layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection ended; the reason is what tmux or the OS said.
    #[error("the tmux control connection ended: {reason}")]
    Closed {
        /// Why.
        reason: String,
    },
    /// No answer before the deadline. The connection stays usable.
    #[error("tmux did not answer {what} within {after:?}")]
    Timeout {
        /// The deadline.
        after: Duration,
        /// The command waited for.
        what: String,
    },
    /// The connection's [`Watchdog`](crate::wire::Watchdog) ended it: tmux
    /// (or the link to it) sent nothing, not even the answer to a liveness
    /// check, for longer than its patience. Like [`Error::Timeout`], tmux did
    /// not answer; unlike it, the connection is gone (a new one would most
    /// likely wait as long).
    #[error("{reason}")]
    Silent {
        /// What the watchdog saw, with the server's path.
        reason: String,
    },
    /// tmux refused to attach the control client (e.g. `no sessions`).
    #[error("tmux refused to attach a control client: {0}")]
    Attach(String),
    /// A command that cannot be encoded.
    #[error(transparent)]
    Command(#[from] command::CommandError),
    /// Opening the connection failed.
    #[error(transparent)]
    Wire(#[from] crate::wire::Error),
}

impl Error {
    /// The error of a request on a connection that ended for `reason`:
    /// [`Error::Silent`] when its watchdog ended it, else [`Error::Closed`].
    pub fn ended(reason: String, silent: bool) -> Error {
        if silent {
            Error::Silent { reason }
        } else {
            Error::Closed { reason }
        }
    }
}
