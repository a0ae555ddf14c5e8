//! The teardown tools: kill servers, sessions, windows and panes; clear a
//! pane; delete a buffer. The kill tools (and `respawn_pane`) refuse the
//! server, session, window or pane that runs this MCP server (from
//! `$TMUX` and `$TMUX_PANE`, the socket compared by its real path), and
//! need exact targets: ids, or a session name matched exactly, never by
//! tmux's prefix (public case C15: `kill_session("build")` must not kill
//! `build-x`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{DESTRUCTIVE, Def, IDEMPOTENT, Sentence, tool_args};
use crate::mcp::targeting::{args, pane_id, required_id, targeting};
use crate::tmux::op::kill::{
    ClearPaneRequest, KillPaneRequest, KillServerRequest, KillSessionRequest, KillWindowRequest,
};

use crate::tmux::op::buffers::DeleteBufferRequest;

args! {
    /// `kill_server`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct KillServerArgs {
        @socket,
    }
}

args! {
    /// `kill_session`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct KillSessionArgs {
        @session,
        @socket,
    }
}

args! {
    /// `kill_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct KillWindowArgs {
        /// @N.
        pub window_id: String,
        @socket,
    }
}

args! {
    /// `kill_pane`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct KillPaneArgs {
        /// %N.
        pub pane_id: String,
        @socket,
    }
}

args! {
    /// `clear_pane`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ClearPaneArgs {
        @pane,
        @socket,
    }
}

args! {
    /// `delete_buffer`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct DeleteBufferArgs {
        @buffer_name,
        @socket,
    }
}

tool_args!(DeleteBufferArgs => DeleteBufferRequest, |a| {
    DeleteBufferRequest::new(a.buffer_name)
});

/// The teardown tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        super::row_as::<KillServerArgs, Sentence>(
            "kill_server",
            DESTRUCTIVE,
            "Kill the tmux server (not the one running this MCP server).",
        ),
        super::row_as::<KillSessionArgs, Sentence>(
            "kill_session",
            DESTRUCTIVE,
            "Kill a session by exact name or id (not this MCP server's own).",
        ),
        super::row_as::<KillWindowArgs, Sentence>(
            "kill_window",
            DESTRUCTIVE,
            "Kill a window by id (not this MCP server's own).",
        ),
        super::row_as::<KillPaneArgs, Sentence>(
            "kill_pane",
            DESTRUCTIVE,
            "Kill a pane by id (not this MCP server's own).",
        ),
        super::row_as::<ClearPaneArgs, Sentence>(
            "clear_pane",
            DESTRUCTIVE,
            "Reset a pane's screen and delete its scrollback.",
        ),
        super::row_as::<DeleteBufferArgs, Sentence>(
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
    window: required_id("window_id", &a.window_id, "a window id like @2")?,
}));

tool_args!(KillPaneArgs => KillPaneRequest, |a| Ok(KillPaneRequest {
    pane: pane_id("pane_id", &a.pane_id)?,
}));

tool_args!(ClearPaneArgs => ClearPaneRequest, |a| Ok(ClearPaneRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
}));
