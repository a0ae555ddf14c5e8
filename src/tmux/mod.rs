//! The tmux layer: typed sessions, windows and panes, target resolution,
//! and the operations tools are built from, over one control connection
//! per server.
//!
//! * [`server`]: [`Server`], a lazily connected, self-healing handle on one
//!   server (control mode; one-shot commands while the server has no
//!   sessions).
//! * [`servers`]: [`Servers`], the pool of handles keyed by socket.
//! * [`caller`]: [`Caller`], the MCP client's own pane inside tmux.
//! * [`capture`]: the capture engine: which `capture-pane` commands a
//!   capture tmux renders runs and how their answers become rows (the
//!   `capture_pane` tool's and `tmuxwire capture`'s; pure).
//! * [`copy`]: a pane's copy made once from tmux's captures, for readers
//!   that keep none (a pane the mirror does not hold, the one-shot CLI).
//! * [`target`]: which object a call names ([`Selector`], [`PaneScope`])
//!   and the one-object lookups every operation builds on.
//! * [`op`]: the operations, one typed request each (listings, single
//!   objects, captures, searches, waits, typing, management, settings,
//!   channels), and where each answer is cut to the response limit.
//! * [`wait`]: the one wait engine: following a pane, the deadline,
//!   progress, the input and liveness checks and the loop every wait
//!   runs, each wait a condition over the pane's mirrored copy.
//! * [`pane_text`]: the answers of `wait_for_text`, `capture_since` and
//!   `run_command`, and their pure parts (cursors, echo masks, caps).
//! * [`act`]: what the operations that change objects share (one line
//!   that acts, targets without a round trip); the operations are
//!   [`op::manage`], [`op::create`] and [`op::kill`].
//! * [`keys`]: what input is: the keys one `send_keys` sends, what was
//!   typed into each pane, the checks on paste text (the commands are
//!   [`input`]'s, pure and fuzzed; the operations [`op::typing`] and
//!   [`op::buffers`]).
//! * [`layout`]: layout strings (legacy and tmux 3.8 JSON) parsed, checked
//!   and written out for the running version (pure, fuzzed).
//! * [`discover`]: the live servers in the user's tmux directory.
//! * [`model`]: result types with libtmux-mcp's field names, read by
//!   field name ([`crate::record!`]).
//! * [`error`]: [`Error`]: a kind, the subject and argument, tmux's words.

pub mod act;
pub mod caller;
pub mod capture;
pub mod copy;
pub mod discover;
pub mod error;
pub mod input;
pub mod keys;
pub mod layout;
pub mod model;
pub mod op;
pub mod pane_text;
pub mod server;
pub mod servers;
pub mod target;
pub mod wait;

pub use caller::Caller;
pub use error::{Error, ErrorKind, Subject};
pub use model::{
    Geometry, HookEntry, PaneInfo, PaneSnapshot, ServerInfo, SessionInfo, Source, WindowInfo,
};
pub use op::capture::Capture;
pub use op::search::{PaneContentMatch, SearchPanesRequest, SearchPanesResult};
pub use server::{Output, Retry, Server};
pub use servers::{LOCAL_HOST, Servers};
pub use target::{PaneScope, Selector};
