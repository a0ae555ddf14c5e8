//! The tmux layer: typed sessions, windows and panes, target resolution,
//! and the operations tools are built from, over one control connection
//! per server.
//!
//! * [`handle`]: [`Tmux`], a lazily connected, self-healing handle on one
//!   server (control mode; one-shot commands while the server has no
//!   sessions), and [`Servers`], the pool keyed by socket.
//! * [`target`]: which object a call names ([`Selector`], [`PaneScope`])
//!   and the one-object lookups every operation builds on.
//! * [`op`]: the operations, one typed request each (listings, single
//!   objects, captures, searches, …).
//! * [`manage`]: rename, select, resize, move, swap, copy mode, create,
//!   split, respawn, kill, clear, pipe: each one line (one round trip).
//! * [`settings`]: options, environment, hooks.
//! * [`typing`]: `send_keys`, `paste_text` and tmuxwire's paste buffers,
//!   from the commands [`input`] builds (pure, fuzzed).
//! * [`layout`]: layout strings (legacy and tmux 3.8 JSON) parsed, checked
//!   and written out for the running version (pure, fuzzed).
//! * [`channel`]: `wait-for` channels (waits on a connection of their own).
//! * [`discover`]: the live servers in the user's tmux directory.
//! * [`model`]: result types with libtmux-mcp's field names.
//! * [`error`]: [`Error`], with a kind, "expected" flag and suggestion.

pub mod channel;
pub mod discover;
pub mod error;
pub mod follow;
pub mod handle;
pub mod input;
pub mod layout;
pub mod manage;
pub mod model;
pub mod op;
pub mod record;
pub mod settings;
pub mod target;
pub mod typing;

pub use error::{Error, ErrorKind, Subject};
pub use handle::{Caller, Output, Retry, Servers, Tmux};
pub use model::{
    Geometry, HookEntry, PaneInfo, PaneSnapshot, ServerInfo, SessionInfo, Source, WindowInfo,
};
pub use op::capture::Capture;
pub use op::search::{PaneContentMatch, SearchPanesRequest, SearchPanesResult};
pub use target::{PaneScope, Selector};
