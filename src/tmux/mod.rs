//! The tmux layer: typed sessions, windows and panes, target resolution,
//! and the operations tools are built from, over one control connection
//! per server.
//!
//! * [`handle`]: [`Tmux`], a lazily connected, self-healing handle on one
//!   server (control mode; one-shot commands while the server has no
//!   sessions), and [`Servers`], the pool keyed by socket.
//! * [`ops`]: listings, single objects, captures, format evaluation.
//! * [`search`]: `search_panes` over scrollback and screen.
//! * [`model`]: result types with libtmux-mcp's field names.
//! * [`error`]: [`Error`], with a kind, "expected" flag and suggestion.

pub mod error;
pub mod follow;
pub mod handle;
pub mod model;
pub mod ops;
pub mod search;

pub use error::Error;
pub use handle::{Caller, Output, Servers, Tmux};
pub use model::{Geometry, PaneInfo, PaneSnapshot, ServerInfo, SessionInfo, WindowInfo};
pub use ops::{Capture, CaptureOptions, PaneScope, Selector};
pub use search::{PaneContentMatch, SearchPanesResult, SearchRequest};
