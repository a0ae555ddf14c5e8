//! The control-mode layer: tmux's text protocol on top of a wire
//! connection.
//!
//! * [`parse`]: the byte-level stream parser (`%begin`/`%end`/`%error`
//!   blocks matched by number, notifications, stray lines). Pure.
//! * [`notify`]: notification lines, including `%output` unescaping. Pure.
//! * [`command`]: command lines with every argument quoted and targets by
//!   id or exact name. Pure.
//! * [`id`]: `$N`/`@N`/`%N` ids.
//! * [`correlate`]: pairs each block with the request it answers and
//!   frames it (fences, nonce-ended records, paste-buffer lengths);
//!   reports a stream that breaks a framing rule. Pure.
//! * [`format`](mod@format): `-F` queries whose records a program in a pane cannot cut
//!   or forge. Pure.
//! * [`record`]: [`crate::record!`], a query's record declared once by
//!   field name (the struct, its format variables and its parser).
//! * [`escape`]: undoes vis(3) and tmuxwire's field escape. Pure.
//! * [`buffer`]: captures read as paste buffers (framed by their length).
//!   Pure.
//! * [`client`]: the async client: one task owns the connection (requests
//!   in, correlated answers out, fences, an ordered event stream), clean
//!   shutdown.
//! * [`said`]: tmux's error messages (its words: "can't find", "no such",
//!   "no server running", …) classified, for every caller. Pure.
//! * [`error`]: [`Error`], the control layer's errors.

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
pub mod record;
pub mod said;

pub use client::{Client, ClientOptions, Fenced};
pub use command::{Command, Line, Target, TargetKind, quote};
pub use error::Error;
pub use id::{PaneId, SessionId, WindowId};
pub use notify::Notification;
pub use parse::{Block, BlockStart, Encoding, Event, Frame, Parser};
