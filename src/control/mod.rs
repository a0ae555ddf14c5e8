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
pub mod error;
pub mod escape;
pub mod format;
pub mod id;
pub mod notify;
pub mod parse;

pub use client::{Client, ClientOptions, Fenced};
pub use command::{Command, Line, Target, TargetKind, quote};
pub use error::Error;
pub use id::{PaneId, SessionId, WindowId};
pub use notify::Notification;
pub use parse::{Block, BlockStart, Encoding, Event, Frame, Parser};
