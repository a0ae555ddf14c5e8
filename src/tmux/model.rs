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

crate::record! {
    /// A session (libtmux-mcp `SessionInfo`).
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
    pub struct SessionInfo {
        /// Session id, `$N`.
        pub session_id: String = "session_id",
        /// Session name.
        pub session_name: String = "session_name",
        /// Number of windows.
        pub window_count: i64 = "session_windows",
        /// Number of clients attached (tmuxwire's own control clients are not
        /// counted), as a string.
        pub session_attached: String,
        /// Creation time, seconds since the Unix epoch, as a string.
        pub session_created: String = "session_created",
        /// The active pane of the session's current window.
        pub active_pane_id: Option<String> = "pane_id",
    }
    read_as read_fields;
}

impl SessionInfo {
    /// Builds one from a record of [`SessionInfo::FIELDS`];
    /// `session_attached` is the session's count in `attached`.
    pub fn from_record(r: &Record, attached: &Attached) -> SessionInfo {
        let mut s = SessionInfo::read_fields(r);
        s.session_attached = attached.count(&s.session_id).to_string();
        s
    }
}

crate::record! {
    /// A client as [`Attached`] reads it from `list-clients`.
    struct ClientRow {
        termname: String = "client_termname",
        session_id: String = "session_id",
        flags: String = "client_flags",
    }
}

/// How many clients are attached to each session, tmuxwire's own control
/// clients left out: the `session_attached` every tool reports.
///
/// Counted from `list-clients` ([`Attached::FIELDS`]), not taken from
/// tmux's `#{session_attached}`: tmux updates that count only when it
/// recalculates window sizes (`recalculate_sizes` in resize.c), so it
/// still counts a client that is exiting, while tmux 3.8's `list-clients`
/// already leaves that client out (`sort_get_clients` skips
/// `CLIENT_UNATTACHEDFLAGS`). A count and a listing taken in one round
/// trip can then disagree by one of tmuxwire's own clients. A client
/// counts when its `#{client_flags}` say `attached` and not `suspended`,
/// as tmux counts it; its terminal name says whether it is tmuxwire's
/// ([`crate::wire::ssh::is_own_term`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attached(std::collections::HashMap<String, i64>);

impl Attached {
    /// The format variables of one `list-clients` record.
    pub const FIELDS: &'static [&'static str] = ClientRow::FIELDS;

    /// Counts the records of a `list-clients` listing of [`Attached::FIELDS`].
    pub fn from_records(records: &[Record]) -> Attached {
        let mut counts = std::collections::HashMap::new();
        for c in records.iter().map(ClientRow::from_record) {
            let flags = || c.flags.split(',');
            let counted = flags().any(|f| f == "attached") && !flags().any(|f| f == "suspended");
            if counted && !crate::wire::ssh::is_own_term(&c.termname) {
                *counts.entry(c.session_id).or_insert(0) += 1;
            }
        }
        Attached(counts)
    }

    /// The clients attached to the session with id `session_id` (`$N`).
    pub fn count(&self, session_id: &str) -> i64 {
        self.0.get(session_id).copied().unwrap_or(0)
    }
}

crate::record! {
    /// A window (libtmux-mcp `WindowInfo`).
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
    pub struct WindowInfo {
        /// Window id, `@N`.
        pub window_id: String = "window_id",
        /// Window name.
        pub window_name: String = "window_name",
        /// Index in its session, as a string.
        pub window_index: String = "window_index",
        /// The session this listing saw the window in.
        pub session_id: String = "session_id",
        /// That session's name.
        pub session_name: String = "session_name",
        /// Number of panes.
        pub pane_count: i64 = "window_panes",
        /// Layout string (`select-layout` syntax).
        pub window_layout: String = "window_layout",
        /// `"1"` if this is its session's current window, else `"0"`.
        pub window_active: String = "window_active",
        /// Width in cells, as a string.
        pub window_width: String = "window_width",
        /// Height in cells, as a string.
        pub window_height: String = "window_height",
        /// The window's active pane.
        pub active_pane_id: Option<String> = "pane_id",
    }
}

crate::record! {
    /// Where a pane sits in its window: cells, window-relative, 0-based;
    /// right and bottom are inclusive.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
    pub struct Geometry {
        /// Leftmost column.
        pub pane_left: i64 = "pane_left",
        /// Top row.
        pub pane_top: i64 = "pane_top",
        /// Rightmost column (inclusive).
        pub pane_right: i64 = "pane_right",
        /// Bottom row (inclusive).
        pub pane_bottom: i64 = "pane_bottom",
        /// Touches the window's left edge.
        pub pane_at_left: bool = "pane_at_left",
        /// Touches the window's right edge.
        pub pane_at_right: bool = "pane_at_right",
        /// Touches the window's top edge.
        pub pane_at_top: bool = "pane_at_top",
        /// Touches the window's bottom edge.
        pub pane_at_bottom: bool = "pane_at_bottom",
    }
}

crate::record! {
    /// A pane (libtmux-mcp `PaneInfo`), plus where it lives by name.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
    pub struct PaneInfo {
        /// Pane id, `%N`.
        pub pane_id: String = "pane_id",
        /// Index in its window, as a string.
        pub pane_index: String = "pane_index",
        /// Width in cells, as a string.
        pub pane_width: String = "pane_width",
        /// Height in cells, as a string.
        pub pane_height: String = "pane_height",
        /// Position in the window.
        #[serde(flatten)]
        pub geometry: Geometry = ..,
        /// The pane's tty device.
        pub pane_tty: String = "pane_tty",
        /// Name of the foreground process.
        pub pane_current_command: String = "pane_current_command",
        /// Working directory of the foreground process.
        pub pane_current_path: String = "pane_current_path",
        /// Pid of the pane's first process, as a string.
        pub pane_pid: String = "pane_pid",
        /// Pane title.
        pub pane_title: String = "pane_title",
        /// `"1"` if this is its window's active pane.
        pub pane_active: String = "pane_active",
        /// The pane's window.
        pub window_id: String = "window_id",
        /// The session this listing saw the pane in.
        pub session_id: String = "session_id",
        /// True when this pane runs the MCP client that called (from `TMUX`
        /// and `TMUX_PANE`, socket-aware); null when tmuxwire does not run
        /// inside tmux.
        pub is_caller: Option<bool>,
        /// That session's name.
        pub session_name: String = "session_name",
        /// The window's index in that session (not sent: `list_windows` and
        /// `get_window_info` tell it, by `window_id`).
        #[serde(skip)]
        pub window_index: String = "window_index",
        /// The window's name (not sent, as `window_index`).
        #[serde(skip)]
        pub window_name: String = "window_name",
        /// Lines of scrollback (history) above the visible screen; left out
        /// when 0.
        #[serde(skip_serializing_if = "is_zero")]
        pub history_size: i64 = "history_size",
        /// The most history lines tmux keeps for this pane; older lines are
        /// dropped. Before tmux 3.7 it is fixed when the pane is made, so
        /// setting `history-limit` later changes only new panes (tmux issue
        /// 4705); 3.7 and later apply a new limit to existing panes too
        /// (`session_update_history()`). Left out when it is tmux's default,
        /// 2000 lines (`history-limit` in options-table.c).
        #[serde(skip_serializing_if = "is_default_history_limit")]
        pub history_limit: i64 = "history_limit",
    }
    read_as read_fields;
}

impl crate::tmux::op::filter::Filtered for SessionInfo {}

impl crate::tmux::op::filter::Filtered for WindowInfo {}

/// A pane is filtered by every field it is read from, those its answer
/// leaves out too (`window_index`, `window_name`, a `history_size` of 0, the
/// default `history_limit`).
impl crate::tmux::op::filter::Filtered for PaneInfo {
    fn fields(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.insert("window_index".into(), self.window_index.clone().into());
            o.insert("window_name".into(), self.window_name.clone().into());
            o.insert("history_size".into(), self.history_size.into());
            o.insert("history_limit".into(), self.history_limit.into());
        }
        v
    }
}

/// tmux's default `history-limit` (options-table.c), which a pane's
/// listing leaves out.
pub const DEFAULT_HISTORY_LIMIT: i64 = 2000;

fn is_default_history_limit(n: &i64) -> bool {
    *n == DEFAULT_HISTORY_LIMIT
}

impl PaneInfo {
    /// Builds one from a record of [`PaneInfo::FIELDS`]; `is_caller` says
    /// whether a pane id is the caller's own pane.
    pub fn from_record(r: &Record, is_caller: impl Fn(&str) -> Option<bool>) -> PaneInfo {
        let mut p = PaneInfo::read_fields(r);
        p.is_caller = is_caller(&p.pane_id);
        p
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

crate::record! {
    /// A pane's visible content and state (libtmux-mcp `PaneSnapshot`).
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
    pub struct PaneSnapshot {
        /// Pane id, `%N`.
        pub pane_id: String = "pane_id",
        /// The visible screen, one line per row (spaces at line ends kept as
        /// tmux prints them). Empty rows below both the last text and the
        /// cursor row are dropped; rows down to the cursor row are kept, so
        /// `content` has at least `cursor_y + 1` lines and blank lines a
        /// program printed above its prompt are not lost.
        pub content: String,
        /// Cursor column, 0-based cells.
        pub cursor_x: i64 = "cursor_x",
        /// Cursor row, 0-based from the top of the visible screen.
        pub cursor_y: i64 = "cursor_y",
        /// Width in cells, sent as a string, as every other tool sends
        /// `pane_width`.
        #[serde(serialize_with = "as_string")]
        #[schemars(with = "String")]
        pub pane_width: i64 = "pane_width",
        /// Height in rows (a string, as `pane_width`).
        #[serde(serialize_with = "as_string")]
        #[schemars(with = "String")]
        pub pane_height: i64 = "pane_height",
        /// Position in the window.
        #[serde(flatten)]
        pub geometry: Geometry = ..,
        /// The pane's tty device.
        pub pane_tty: String = "pane_tty",
        /// Pid of the pane's first process, as a string.
        pub pane_pid: String = "pane_pid",
        /// True when the pane's process exited (with `remain-on-exit`).
        pub pane_dead: Option<bool> = "pane_dead",
        /// True when the alternate screen (full-screen programs) is shown.
        pub alternate_on: Option<bool> = "alternate_on",
        /// True when the pane is in a mode (copy mode, view mode, …).
        pub pane_in_mode: bool = "pane_in_mode",
        /// The mode's name (`copy-mode`, `view-mode`, …), if any.
        pub pane_mode: Option<String> = "pane_mode",
        /// In copy mode: how many lines the view is scrolled up from the live
        /// bottom.
        pub scroll_position: Option<i64> = "scroll_position",
        /// Lines of scrollback (history) above the visible screen.
        pub history_size: i64 = "history_size",
        /// Pane title.
        pub title: String = "pane_title",
        /// Name of the foreground process.
        pub pane_current_command: String = "pane_current_command",
        /// Working directory of the foreground process.
        pub pane_current_path: String = "pane_current_path",
        /// See [`PaneInfo::is_caller`].
        pub is_caller: Option<bool>,
        /// True when `content` was cut to `max_lines` (the newest lines kept).
        pub content_truncated: bool,
        /// How many lines were cut.
        pub content_truncated_lines: i64,
        /// Which screen `content` shows: always `live` (the pane's current
        /// screen), left out. In copy mode the user may be looking at older
        /// lines; see `scroll_position`.
        #[serde(skip_serializing_if = "crate::tmux::op::capture::is_live")]
        pub content_view: String,
        /// The pane's history limit in lines (fixed when the pane was made);
        /// left out when it is tmux's default (2000).
        #[serde(skip_serializing_if = "is_default_history_limit")]
        pub history_limit: i64 = "history_limit",
    }
    read_as read_fields;
}

/// Whether a number is 0: for `skip_serializing_if` on the counts and
/// sizes an answer leaves out when 0.
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

/// A number serialized as its decimal text.
fn as_string<S: serde::Serializer>(n: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(n)
}

impl PaneSnapshot {
    /// Builds one from a record of [`PaneSnapshot::FIELDS`]; the content
    /// fields are filled by the caller.
    pub fn from_record(r: &Record, is_caller: impl Fn(&str) -> Option<bool>) -> PaneSnapshot {
        let mut snap = PaneSnapshot::read_fields(r);
        snap.is_caller = is_caller(&snap.pane_id);
        snap.content_view = "live".into();
        snap
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

/// Which source answered for a pane's text (`source` in `capture_pane`
/// and `search_panes` results).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// tmuxwire's copy of the pane, fed by its output and checked with
    /// tmux just before.
    Mirror,
    /// A capture from tmux (the pane is not mirrored).
    Capture,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(term: &str, session: &str, flags: &str) -> Record {
        Record(vec![term.into(), session.into(), flags.into()])
    }

    /// Only attached, unsuspended clients that are not tmuxwire's count,
    /// per session.
    #[test]
    fn attached_counts_other_clients_as_tmux_does() {
        let a = Attached::from_records(&[
            client("xterm-256color", "$0", "attached,focused,UTF-8"),
            client("screen", "$0", "attached,suspended,UTF-8"),
            client("tmuxwire", "$0", "attached,control-mode,ignore-size,UTF-8"),
            client("tmuxwire-h1-2", "$1", "attached,control-mode,UTF-8"),
            client("xterm", "$1", "attached,control-mode"),
            client("xterm", "$1", "focused"),
            client("tmuxwire-like", "$1", "attached"),
        ]);
        assert_eq!(a.count("$0"), 1);
        assert_eq!(
            a.count("$1"),
            1,
            "a client named tmuxwire-* is taken for ours"
        );
        assert_eq!(a.count("$2"), 0);
        assert_eq!(Attached::default().count("$0"), 0);
    }
}
