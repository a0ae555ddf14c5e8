//! The teardown tools: kill servers, sessions, windows and panes; clear a
//! pane; delete a buffer. The kill tools (and `respawn_pane`) refuse the
//! server, session, window or pane that runs this MCP server (from
//! `$TMUX` and `$TMUX_PANE`, the socket compared by its real path), and
//! need exact targets: ids, or a session name matched exactly, never by
//! tmux's prefix (public case C15: `kill_session("build")` must not kill
//! `build-x`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{DESTRUCTIVE, Def, IDEMPOTENT, Message, targeting, tool_args};
use crate::tmux::Error;
use crate::tmux::op::kill::{
    ClearPaneRequest, KillPaneRequest, KillServerRequest, KillSessionRequest, KillWindowRequest,
};

/// An action's sentence is its text block, as libtmux-mcp's `str` result.
impl crate::mcp::text::Rendered for crate::tmux::op::manage::Done {
    const TEXT: crate::mcp::text::TextShape = crate::mcp::text::TextShape::String;
}

/// As [`crate::tmux::op::manage::Done`]; the pane id is structured content
/// only.
impl crate::mcp::text::Rendered for crate::tmux::op::manage::PaneDone {
    const TEXT: crate::mcp::text::TextShape = crate::mcp::text::TextShape::String;
    const QUIET: &'static [&'static str] = &["pane_id"];
}
use crate::tmux::op::buffers::{BufferDeleted, DeleteBufferRequest};

/// `kill_server`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KillServerArgs {
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `kill_session`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KillSessionArgs {
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `kill_window`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KillWindowArgs {
    /// @N.
    window_id: String,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `kill_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KillPaneArgs {
    /// %N.
    pane_id: String,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `clear_pane`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ClearPaneArgs {
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `delete_buffer`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeleteBufferArgs {
    /// A name load_buffer returned.
    buffer_name: String,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

tool_args!(DeleteBufferArgs => DeleteBufferRequest, |a| {
    DeleteBufferRequest::new(a.buffer_name)
});

impl crate::mcp::text::Rendered for BufferDeleted {
    const TEXT: crate::mcp::text::TextShape = crate::mcp::text::TextShape::String;
}

impl From<BufferDeleted> for Message {
    fn from(d: BufferDeleted) -> Message {
        Message {
            result: format!("Buffer '{}' deleted", d.buffer_name),
        }
    }
}

/// The teardown tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        super::row::<KillServerArgs>(
            "kill_server",
            DESTRUCTIVE,
            "Kill the tmux server (not the one running this MCP server).",
        ),
        super::row::<KillSessionArgs>(
            "kill_session",
            DESTRUCTIVE,
            "Kill a session by exact name or id (not this MCP server's own).",
        ),
        super::row::<KillWindowArgs>(
            "kill_window",
            DESTRUCTIVE,
            "Kill a window by id (not this MCP server's own).",
        ),
        super::row::<KillPaneArgs>(
            "kill_pane",
            DESTRUCTIVE,
            "Kill a pane by id (not this MCP server's own).",
        ),
        super::row::<ClearPaneArgs>(
            "clear_pane",
            DESTRUCTIVE,
            "Reset a pane's screen and delete its scrollback.",
        ),
        super::row_as::<DeleteBufferArgs, Message>(
            "delete_buffer",
            IDEMPOTENT,
            "Delete a buffer load_buffer made.",
        ),
    ]
}

tool_args!(KillServerArgs => KillServerRequest, |_a| Ok(KillServerRequest));

tool_args!(KillSessionArgs => KillSessionRequest, |a| KillSessionRequest::new(
    targeting!(a).selector()?
));

tool_args!(KillWindowArgs => KillWindowRequest, |a| Ok(KillWindowRequest {
    window: a.window_id.parse().map_err(|e| {
        Error::invalid(
            "window_id",
            format!("window_id: {e}"),
            "a window id like @2",
        )
    })?,
}));

tool_args!(KillPaneArgs => KillPaneRequest, |a| Ok(KillPaneRequest {
    pane: a
        .pane_id
        .parse()
        .map_err(|e| Error::invalid("pane_id", format!("pane_id: {e}"), "a pane id like %3"))?,
}));

tool_args!(ClearPaneArgs => ClearPaneRequest, |a| Ok(ClearPaneRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
}));
