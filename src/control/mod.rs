//! The control-mode layer: tmux's text protocol on top of a wire
//! connection.
//!
//! * [`parse`]: the byte-level stream parser (`%begin`/`%end`/`%error`
//!   blocks matched by number, notifications, stray lines). Pure.
//! * [`notify`]: notification lines, including `%output` unescaping. Pure.
//! * [`command`]: command lines with every argument quoted and targets by
//!   id or exact name. Pure.
//! * [`id`]: `$N`/`@N`/`%N` ids.
//! * [`client`]: the async client: request/response correlation, fences,
//!   a notification broadcast, clean shutdown.

pub mod buffer;
pub mod client;
pub mod command;
pub mod correlate;
pub mod escape;
pub mod format;
pub mod id;
pub mod notify;
pub mod parse;

use std::time::Duration;

pub use client::{Client, ClientOptions, Fenced};
pub use command::{Command, Line, Target, TargetKind, quote};
pub use id::{PaneId, SessionId, WindowId};
pub use notify::Notification;
pub use parse::{Block, BlockStart, Encoding, Event, Frame, Parser};

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
