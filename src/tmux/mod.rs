//! The tmux layer: typed sessions, windows and panes, target resolution,
//! and the operations tools are built from, over one control connection
//! per server.
//!
//! * [`handle`]: [`Tmux`], a lazily connected, self-healing handle on one
//!   server (control mode; one-shot commands while the server has no
//!   sessions), and [`Servers`], the pool keyed by socket.
//! * [`ops`]: listings, single objects, captures, format evaluation.
//! * [`search`]: `search_panes` over scrollback and screen.
//! * [`manage`]: rename, select, resize, move, swap, copy mode, create,
//!   split, respawn, kill, clear, pipe: each one line (one round trip).
//! * [`typing`]: `send_keys`, `paste_text` and tmuxwire's paste buffers,
//!   from the commands [`input`] builds (pure, fuzzed).
//! * [`layout`]: layout strings (legacy and tmux 3.8 JSON) parsed, checked
//!   and written out for the running version (pure, fuzzed).
//! * [`discover`]: the live servers in the user's tmux directory.
//! * [`model`]: result types with libtmux-mcp's field names.
//! * [`error`]: [`Error`], with a kind, "expected" flag and suggestion.

pub mod discover;
pub mod error;
pub mod follow;
pub mod handle;
pub mod input;
pub mod layout;
pub mod manage;
pub mod model;
pub mod op;
pub mod ops;
pub mod record;
pub mod search;
pub mod typing;

pub use error::{Error, ErrorKind, Subject};
pub use handle::{Caller, Output, Retry, Servers, Tmux};
pub use model::{Geometry, HookEntry, PaneInfo, PaneSnapshot, ServerInfo, SessionInfo, WindowInfo};
pub use ops::{Capture, CaptureOptions, PaneScope, Selector};
pub use search::{PaneContentMatch, SearchPanesResult, SearchRequest};
