//! Typed sessions, windows and panes, with the field names and types of
//! libtmux-mcp's models (its `SessionInfo`, `WindowInfo`, `PaneInfo`,
//! `ServerInfo`, `PaneSnapshot`), so tmuxwire's tool results are drop-in
//! compatible. Several numeric fields are strings there, and stay strings
//! here.
//!
//! Each type knows the tmux format variables it is built from
//! ([`SessionInfo::FIELDS`] …), so one `list-*` or `display-message`
//! round trip fills it.

use schemars::JsonSchema;
use serde::Serialize;

use crate::control::format::Record;

/// A session (libtmux-mcp `SessionInfo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SessionInfo {
    /// Session id, `$N`.
    pub session_id: String,
    /// Session name.
    pub session_name: String,
    /// Number of windows.
    pub window_count: i64,
    /// Number of clients attached (tmuxwire's own control clients are not
    /// counted), as a string.
    pub session_attached: String,
    /// Creation time, seconds since the Unix epoch, as a string.
    pub session_created: String,
    /// The active pane of the session's current window.
    pub active_pane_id: Option<String>,
}

impl SessionInfo {
    /// The format variables, in record order.
    pub const FIELDS: &'static [&'static str] = &[
        "session_id",
        "session_name",
        "session_windows",
        "session_attached",
        "session_created",
        "pane_id",
    ];

    /// Builds one from a record of [`SessionInfo::FIELDS`]. `ours` counts
    /// tmuxwire's control clients per session id, which are subtracted
    /// from `session_attached`.
    pub fn from_record(r: &Record, ours: &std::collections::HashMap<String, i64>) -> SessionInfo {
        let mine = ours.get(r.str(0)).copied().unwrap_or(0);
        let attached = (r.int(3).unwrap_or(0) - mine).max(0);
        SessionInfo {
            session_id: r.string(0),
            session_name: r.string(1),
            window_count: r.int(2).unwrap_or(0),
            session_attached: attached.to_string(),
            session_created: r.string(4),
            active_pane_id: non_empty(r.str(5)),
        }
    }
}

/// A window (libtmux-mcp `WindowInfo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WindowInfo {
    /// Window id, `@N`.
    pub window_id: String,
    /// Window name.
    pub window_name: String,
    /// Index in its session, as a string.
    pub window_index: String,
    /// The session this listing saw the window in.
    pub session_id: String,
    /// That session's name.
    pub session_name: String,
    /// Number of panes.
    pub pane_count: i64,
    /// Layout string (`select-layout` syntax).
    pub window_layout: String,
    /// `"1"` if this is its session's current window, else `"0"`.
    pub window_active: String,
    /// Width in cells, as a string.
    pub window_width: String,
    /// Height in cells, as a string.
    pub window_height: String,
    /// The window's active pane.
    pub active_pane_id: Option<String>,
}

impl WindowInfo {
    /// The format variables, in record order.
    pub const FIELDS: &'static [&'static str] = &[
        "window_id",
        "window_name",
        "window_index",
        "session_id",
        "session_name",
        "window_panes",
        "window_layout",
        "window_active",
        "window_width",
        "window_height",
        "pane_id",
    ];

    /// Builds one from a record of [`WindowInfo::FIELDS`].
    pub fn from_record(r: &Record) -> WindowInfo {
        WindowInfo {
            window_id: r.string(0),
            window_name: r.string(1),
            window_index: r.string(2),
            session_id: r.string(3),
            session_name: r.string(4),
            pane_count: r.int(5).unwrap_or(0),
            window_layout: r.string(6),
            window_active: r.string(7),
            window_width: r.string(8),
            window_height: r.string(9),
            active_pane_id: non_empty(r.str(10)),
        }
    }
}

/// Where a pane sits in its window: cells, window-relative, 0-based;
/// right and bottom are inclusive.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Geometry {
    /// Leftmost column.
    pub pane_left: i64,
    /// Top row.
    pub pane_top: i64,
    /// Rightmost column (inclusive).
    pub pane_right: i64,
    /// Bottom row (inclusive).
    pub pane_bottom: i64,
    /// Touches the window's left edge.
    pub pane_at_left: bool,
    /// Touches the window's right edge.
    pub pane_at_right: bool,
    /// Touches the window's top edge.
    pub pane_at_top: bool,
    /// Touches the window's bottom edge.
    pub pane_at_bottom: bool,
}

impl Geometry {
    /// The format variables, in record order.
    pub const FIELDS: &'static [&'static str] = &[
        "pane_left",
        "pane_top",
        "pane_right",
        "pane_bottom",
        "pane_at_left",
        "pane_at_right",
        "pane_at_top",
        "pane_at_bottom",
    ];

    /// From a record whose fields `at..at+8` are [`Geometry::FIELDS`].
    pub fn from_record(r: &Record, at: usize) -> Geometry {
        Geometry {
            pane_left: r.int(at).unwrap_or(0),
            pane_top: r.int(at + 1).unwrap_or(0),
            pane_right: r.int(at + 2).unwrap_or(0),
            pane_bottom: r.int(at + 3).unwrap_or(0),
            pane_at_left: r.flag(at + 4),
            pane_at_right: r.flag(at + 5),
            pane_at_top: r.flag(at + 6),
            pane_at_bottom: r.flag(at + 7),
        }
    }
}

/// A pane (libtmux-mcp `PaneInfo`), plus where it lives by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PaneInfo {
    /// Pane id, `%N`.
    pub pane_id: String,
    /// Index in its window, as a string.
    pub pane_index: String,
    /// Width in cells, as a string.
    pub pane_width: String,
    /// Height in cells, as a string.
    pub pane_height: String,
    /// Position in the window.
    #[serde(flatten)]
    pub geometry: Geometry,
    /// The pane's tty device.
    pub pane_tty: String,
    /// Name of the foreground process.
    pub pane_current_command: String,
    /// Working directory of the foreground process.
    pub pane_current_path: String,
    /// Pid of the pane's first process, as a string.
    pub pane_pid: String,
    /// Pane title.
    pub pane_title: String,
    /// `"1"` if this is its window's active pane.
    pub pane_active: String,
    /// The pane's window.
    pub window_id: String,
    /// The session this listing saw the pane in.
    pub session_id: String,
    /// That session's name.
    pub session_name: String,
    /// The window's index in that session.
    pub window_index: String,
    /// The window's name.
    pub window_name: String,
    /// True when this pane runs the MCP client that called (from `TMUX`
    /// and `TMUX_PANE`, socket-aware); null when tmuxwire does not run
    /// inside tmux.
    pub is_caller: Option<bool>,
    /// Lines of scrollback (history) above the visible screen.
    pub history_size: i64,
    /// The most history lines tmux keeps for this pane; older lines are
    /// dropped. Before tmux 3.7 it is fixed when the pane is made, so
    /// setting `history-limit` later changes only new panes (tmux issue
    /// 4705); 3.7 and later apply a new limit to existing panes too
    /// (`session_update_history()`).
    pub history_limit: i64,
}

impl PaneInfo {
    /// The format variables, in record order.
    pub const FIELDS: &'static [&'static str] = &[
        "pane_id",
        "pane_index",
        "pane_width",
        "pane_height",
        "pane_left",
        "pane_top",
        "pane_right",
        "pane_bottom",
        "pane_at_left",
        "pane_at_right",
        "pane_at_top",
        "pane_at_bottom",
        "pane_tty",
        "pane_current_command",
        "pane_pid",
        "pane_title",
        "pane_active",
        "window_id",
        "session_id",
        "session_name",
        "window_index",
        "window_name",
        "pane_current_path",
        "history_size",
        "history_limit",
    ];

    /// Builds one from a record of [`PaneInfo::FIELDS`].
    pub fn from_record(r: &Record, is_caller: Option<bool>) -> PaneInfo {
        PaneInfo {
            pane_id: r.string(0),
            pane_index: r.string(1),
            pane_width: r.string(2),
            pane_height: r.string(3),
            geometry: Geometry::from_record(r, 4),
            pane_tty: r.string(12),
            pane_current_command: r.string(13),
            pane_pid: r.string(14),
            pane_title: r.string(15),
            pane_active: r.string(16),
            window_id: r.string(17),
            session_id: r.string(18),
            session_name: r.string(19),
            window_index: r.string(20),
            window_name: r.string(21),
            pane_current_path: r.string(22),
            is_caller,
            history_size: r.int(23).unwrap_or(0),
            history_limit: r.int(24).unwrap_or(0),
        }
    }
}

/// What `get_server_info` reports (libtmux-mcp `ServerInfo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ServerInfo {
    /// True when a server answered on the socket.
    pub is_alive: bool,
    /// The `-L` socket name, when the server was named that way.
    pub socket_name: Option<String>,
    /// The socket path that was used.
    pub socket_path: Option<String>,
    /// Number of sessions.
    pub session_count: i64,
    /// `#{version}`, e.g. `3.3a`.
    pub version: Option<String>,
    /// The server's pid.
    pub pid: Option<i64>,
    /// The imsg header layout in use: `old` (≤ 3.5) or `new` (≥ 3.6).
    pub imsg_framing: Option<String>,
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// A pane's visible content and state (libtmux-mcp `PaneSnapshot`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PaneSnapshot {
    /// Pane id, `%N`.
    pub pane_id: String,
    /// The visible screen, one line per row (spaces at line ends kept as
    /// tmux prints them). Empty rows below both the last text and the
    /// cursor row are dropped; rows down to the cursor row are kept, so
    /// `content` has at least `cursor_y + 1` lines and blank lines a
    /// program printed above its prompt are not lost.
    pub content: String,
    /// Cursor column, 0-based cells.
    pub cursor_x: i64,
    /// Cursor row, 0-based from the top of the visible screen.
    pub cursor_y: i64,
    /// Width in cells. (The `snapshot_pane` tool sends it as a string, as
    /// every other tool sends `pane_width`.)
    pub pane_width: i64,
    /// Height in rows (a string in `snapshot_pane`, as `pane_width`).
    pub pane_height: i64,
    /// Position in the window.
    #[serde(flatten)]
    pub geometry: Geometry,
    /// The pane's tty device.
    pub pane_tty: String,
    /// Pid of the pane's first process, as a string.
    pub pane_pid: String,
    /// True when the pane's process exited (with `remain-on-exit`).
    pub pane_dead: Option<bool>,
    /// True when the alternate screen (full-screen programs) is shown.
    pub alternate_on: Option<bool>,
    /// True when the pane is in a mode (copy mode, view mode, …).
    pub pane_in_mode: bool,
    /// The mode's name (`copy-mode`, `view-mode`, …), if any.
    pub pane_mode: Option<String>,
    /// In copy mode: how many lines the view is scrolled up from the live
    /// bottom.
    pub scroll_position: Option<i64>,
    /// Lines of scrollback (history) above the visible screen.
    pub history_size: i64,
    /// The pane's history limit in lines (fixed when the pane was made).
    pub history_limit: i64,
    /// Pane title.
    pub title: String,
    /// Name of the foreground process.
    pub pane_current_command: String,
    /// Working directory of the foreground process.
    pub pane_current_path: String,
    /// See [`PaneInfo::is_caller`].
    pub is_caller: Option<bool>,
    /// True when `content` was cut to `max_lines` (the newest lines kept).
    pub content_truncated: bool,
    /// How many lines were cut.
    pub content_truncated_lines: i64,
    /// Which screen `content` shows: always `live` (the pane's current
    /// screen). In copy mode the user may be looking at older lines; see
    /// `scroll_position`.
    pub content_view: String,
}

impl PaneSnapshot {
    /// The format variables, in record order.
    pub const FIELDS: &'static [&'static str] = &[
        "pane_id",
        "cursor_x",
        "cursor_y",
        "pane_width",
        "pane_height",
        "pane_left",
        "pane_top",
        "pane_right",
        "pane_bottom",
        "pane_at_left",
        "pane_at_right",
        "pane_at_top",
        "pane_at_bottom",
        "pane_tty",
        "pane_pid",
        "pane_dead",
        "alternate_on",
        "pane_in_mode",
        "pane_mode",
        "scroll_position",
        "history_size",
        "history_limit",
        "pane_title",
        "pane_current_command",
        "pane_current_path",
    ];

    /// Builds one from a record of [`PaneSnapshot::FIELDS`]; the content
    /// fields are filled by the caller.
    pub fn from_record(r: &Record, is_caller: Option<bool>) -> PaneSnapshot {
        PaneSnapshot {
            pane_id: r.string(0),
            content: String::new(),
            cursor_x: r.int(1).unwrap_or(0),
            cursor_y: r.int(2).unwrap_or(0),
            pane_width: r.int(3).unwrap_or(0),
            pane_height: r.int(4).unwrap_or(0),
            geometry: Geometry::from_record(r, 5),
            pane_tty: r.string(13),
            pane_pid: r.string(14),
            pane_dead: r.opt_flag(15),
            alternate_on: r.opt_flag(16),
            pane_in_mode: r.flag(17),
            pane_mode: non_empty(r.str(18)),
            scroll_position: r.int(19),
            history_size: r.int(20).unwrap_or(0),
            history_limit: r.int(21).unwrap_or(0),
            title: r.string(22),
            pane_current_command: r.string(23),
            pane_current_path: r.string(24),
            is_caller,
            content_truncated: false,
            content_truncated_lines: 0,
            content_view: "live".into(),
        }
    }
}

/// One command set on a hook (libtmux-mcp `HookEntry`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HookEntry {
    /// The hook (`after-new-window`).
    pub hook_name: String,
    /// Its index in the hook's array, when tmux printed one.
    pub index: Option<i64>,
    /// The command, as tmux prints it.
    pub command: String,
}
