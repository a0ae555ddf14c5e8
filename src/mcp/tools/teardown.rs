//! The teardown tools: kill servers, sessions, windows and panes; clear a
//! pane; delete a buffer. The kill tools (and `respawn_pane`) refuse the
//! server, session, window or pane that runs this MCP server (from
//! `$TMUX` and `$TMUX_PANE`, the socket compared by its real path), and
//! need exact targets: ids, or a session name matched exactly, never by
//! tmux's prefix (public case C15: `kill_session("build")` must not kill
//! `build-x`).

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::tool_args;
use super::{
    Ctx, DESTRUCTIVE, Def, IDEMPOTENT, Message, PaneMessage, bare_output, def, message,
    pane_message, parse, targeting, unknown_tool,
};
use crate::control::{PaneId, Target};
use crate::tmux::op::typing::{BufferDeleted, DeleteBufferRequest};
use crate::tmux::{Error, Tmux};

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
        bare_output(def::<KillServerArgs, Message>(
            "kill_server",
            "Kill tmux Server",
            DESTRUCTIVE,
            "Kill the tmux server (not the one running this MCP server).",
        )),
        bare_output(def::<KillSessionArgs, Message>(
            "kill_session",
            "Kill tmux Session",
            DESTRUCTIVE,
            "Kill a session by exact name or id (not this MCP server's own).",
        )),
        bare_output(def::<KillWindowArgs, Message>(
            "kill_window",
            "Kill tmux Window",
            DESTRUCTIVE,
            "Kill a window by id (not this MCP server's own).",
        )),
        bare_output(def::<KillPaneArgs, Message>(
            "kill_pane",
            "Kill tmux Pane",
            DESTRUCTIVE,
            "Kill a pane by id (not this MCP server's own).",
        )),
        bare_output(def::<ClearPaneArgs, PaneMessage>(
            "clear_pane",
            "Clear tmux Pane",
            DESTRUCTIVE,
            "Reset a pane's screen and delete its scrollback.",
        )),
        bare_output(super::row_as::<DeleteBufferArgs, Message>(
            "delete_buffer",
            "Delete tmux Buffer",
            IDEMPOTENT,
            "Delete a buffer load_buffer made.",
        )),
    ]
}

/// Refuses `what` on the caller's own pane.
pub(super) fn guard_pane(t: &Tmux, pane: PaneId, what: &str) -> Result<(), Error> {
    if t.caller().guarded_pane(t.canonical_socket()) == Some(pane) {
        return Err(Error::self_target(format!(
            "Refusing to {what} the pane running this MCP server ({pane})."
        )));
    }
    Ok(())
}

/// Refuses to kill the session or window (`scope`) that holds the
/// caller's pane.
async fn guard_scope(t: &Tmux, scope: &Target, what: &str) -> Result<(), Error> {
    let Some(own) = t.caller().guarded_pane(t.canonical_socket()) else {
        return Ok(());
    };
    if t.pane_ids_in(scope).await?.contains(&own) {
        return Err(Error::self_target(format!(
            "Refusing to kill the {what} containing this MCP server's pane ({own})."
        )));
    }
    Ok(())
}

/// Runs one teardown tool.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let servers = ctx.servers;
    match name {
        "kill_server" => {
            let a: KillServerArgs = parse(args)?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            if t.caller().may_run_on(t.canonical_socket(), t.socket_name()) {
                return Err(Error::self_target(
                    "Refusing to kill the tmux server while this MCP server is running inside it. \
                     Use a manual tmux command if intended.",
                ));
            }
            t.kill_server().await?;
            Ok(message("Server killed successfully".into()))
        }
        "kill_session" => {
            let a: KillSessionArgs = parse(args)?;
            if a.session_name.is_none() && a.session_id.is_none() {
                return Err(Error::invalid(
                    "session_name",
                    "Refusing to kill without an explicit target. Provide session_name or \
                     session_id.",
                    "session_name (exact) or session_id",
                ));
            }
            let (t, s) = targeting!(a).session_target(servers).await?;
            guard_scope(&t, &s, "session").await?;
            let k = t.kill_session(&s).await?;
            let shown = k.name.unwrap_or(k.id);
            Ok(message(format!("Session killed: {shown}")))
        }
        "kill_window" => {
            let a: KillWindowArgs = parse(args)?;
            let w = a.window_id.parse().map_err(|e| {
                Error::invalid(
                    "window_id",
                    format!("window_id: {e}"),
                    "a window id like @2",
                )
            })?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            guard_scope(&t, &Target::Window(w), "window").await?;
            let k = t.kill_window(w).await?;
            Ok(message(format!("Window killed: {}", k.id)))
        }
        "kill_pane" => {
            let a: KillPaneArgs = parse(args)?;
            let p = a.pane_id.parse().map_err(|e| {
                Error::invalid("pane_id", format!("pane_id: {e}"), "a pane id like %3")
            })?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            guard_pane(&t, p, "kill")?;
            let k = t.kill_pane(p).await?;
            Ok(message(format!("Pane killed: {}", k.id)))
        }
        "clear_pane" => {
            let a: ClearPaneArgs = parse(args)?;
            let (t, p) = targeting!(a, pane_id, window_id)
                .pane_target(servers)
                .await?;
            let id = t.clear_pane(&p).await?;
            Ok(pane_message(format!("Pane cleared: {id}"), id))
        }
        other => Ok(unknown_tool(other)),
    }
}
