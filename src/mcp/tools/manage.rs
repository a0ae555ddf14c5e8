//! The manage tools: changing tmux objects without running anything in a
//! pane. Each is one round trip when given ids (the action and the read
//! of its result on one command line); each returns the object's new
//! state, read after the change.

use std::time::Duration;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    ADDITIVE, Ctx, Def, IDEMPOTENT, Message, OPEN, bare_output, def, message, object, parse,
};
use super::{targeting, unknown_tool};
use super::{tool_args, wait_ceiling};
use crate::control::PaneId;
use crate::mcp::text::{self, Rendered, TextShape};
use crate::tmux::manage::{PaneMove, WindowMove, session_ref};
use crate::tmux::op::typing::{BufferRef, LoadBufferRequest};
use crate::tmux::{Error, PaneInfo, SessionInfo, WindowInfo};

/// `rename_session`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameSessionArgs {
    /// Stored exactly (#, #{}, #() included).
    new_name: String,
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `rename_window`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RenameWindowArgs {
    /// Stored exactly; automatic renaming stops.
    new_name: String,
    window_id: Option<String>,
    window_index: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `select_window`'s directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum WindowDirection {
    /// The next window.
    Next,
    /// The previous window.
    Previous,
    /// The window selected before.
    Last,
}

/// `select_window`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SelectWindowArgs {
    window_id: Option<String>,
    window_index: Option<i64>,
    direction: Option<WindowDirection>,
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `select_pane`'s directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PaneDirection {
    /// Above.
    Up,
    /// Below.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
    /// The pane active before.
    Last,
    /// The next by index.
    Next,
    /// The previous by index.
    Previous,
}

/// `select_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SelectPaneArgs {
    pane_id: Option<String>,
    direction: Option<PaneDirection>,
    window_id: Option<String>,
    window_index: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `select_layout`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SelectLayoutArgs {
    /// tiled, even-horizontal, main-vertical, …, or a layout string.
    layout: String,
    window_id: Option<String>,
    window_index: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `resize_window`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResizeWindowArgs {
    window_id: Option<String>,
    window_index: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    /// Rows.
    height: Option<i64>,
    /// Columns.
    width: Option<i64>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `resize_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResizePaneArgs {
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    /// Rows.
    height: Option<i64>,
    /// Columns.
    width: Option<i64>,
    /// true: zoom (fill the window); false: unzoom.
    zoom: Option<bool>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `move_window`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveWindowArgs {
    window_id: Option<String>,
    window_index: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    /// Index to move to; "" = the next free one.
    #[serde(default)]
    destination_index: String,
    /// Session (name or $N) to move to; default: its own.
    destination_session: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `swap_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SwapPaneArgs {
    /// %N.
    source_pane_id: String,
    /// %N.
    target_pane_id: String,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `set_pane_title`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetPaneTitleArgs {
    /// Stored exactly.
    title: String,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `enter_copy_mode`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EnterCopyModeArgs {
    pane_id: Option<String>,
    /// Lines to scroll up.
    scroll_up: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `exit_copy_mode`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExitCopyModeArgs {
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `load_buffer`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LoadBufferArgs {
    /// The text, stored exactly.
    content: String,
    /// Up to 64 of A-Z a-z 0-9 _ . - (default buf).
    logical_name: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

impl Rendered for BufferRef {
    const TEXT: TextShape = TextShape::Object(&text::BUFFER_REF);
}

tool_args!(LoadBufferArgs => LoadBufferRequest, |a| {
    LoadBufferRequest::new(a.content, a.logical_name)
});

/// `wait_for_channel`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitForChannelArgs {
    /// 1-128 of A-Z a-z 0-9 _ . : -
    channel: String,
    /// Seconds (clamped to the wait ceiling, 30 by default).
    #[serde(default = "default_wait")]
    timeout: f64,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

fn default_wait() -> f64 {
    30.0
}

/// `wait_for_channel`'s result.
#[derive(Serialize, JsonSchema)]
struct Waited {
    result: String,
    channel: String,
    elapsed_seconds: f64,
    effective_timeout: f64,
}

impl Rendered for Waited {
    const TEXT: TextShape = TextShape::String;
}

/// `signal_channel`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SignalChannelArgs {
    /// 1-128 of A-Z a-z 0-9 _ . : -
    channel: String,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// The manage tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        bare_output(def::<RenameSessionArgs, SessionInfo>(
            "rename_session",
            "Rename tmux Session",
            IDEMPOTENT,
            "Rename a session; its new state.",
        )),
        bare_output(def::<RenameWindowArgs, WindowInfo>(
            "rename_window",
            "Rename tmux Window",
            IDEMPOTENT,
            "Rename a window; its new state.",
        )),
        bare_output(def::<SelectWindowArgs, WindowInfo>(
            "select_window",
            "Select tmux Window",
            IDEMPOTENT,
            "Make a window current (window_id, window_index, or direction in the session).",
        )),
        bare_output(def::<SelectPaneArgs, PaneInfo>(
            "select_pane",
            "Select tmux Pane",
            IDEMPOTENT,
            "Make a pane active (pane_id, or direction in the window); the pane now active.",
        )),
        bare_output(def::<SelectLayoutArgs, WindowInfo>(
            "select_layout",
            "Select tmux Layout",
            IDEMPOTENT,
            "Arrange a window's panes; the window with its new window_layout.",
        )),
        bare_output(def::<ResizeWindowArgs, WindowInfo>(
            "resize_window",
            "Resize tmux Window",
            IDEMPOTENT,
            "Set a window's size in cells (window-size becomes manual).",
        )),
        bare_output(def::<ResizePaneArgs, PaneInfo>(
            "resize_pane",
            "Resize tmux Pane",
            IDEMPOTENT,
            "Set a pane's size in cells, or zoom/unzoom it.",
        )),
        bare_output(def::<MoveWindowArgs, WindowInfo>(
            "move_window",
            "Move tmux Window",
            IDEMPOTENT,
            "Move a window to another index or session; its state there.",
        )),
        bare_output(def::<SwapPaneArgs, PaneInfo>(
            "swap_pane",
            "Swap tmux Panes",
            ADDITIVE,
            "Swap two panes' places; the source pane's new state.",
        )),
        bare_output(def::<SetPaneTitleArgs, PaneInfo>(
            "set_pane_title",
            "Set tmux Pane Title",
            IDEMPOTENT,
            "Set a pane's title; its new state.",
        )),
        bare_output(def::<EnterCopyModeArgs, PaneInfo>(
            "enter_copy_mode",
            "Enter Copy Mode",
            ADDITIVE,
            "Put a pane in copy mode, optionally scrolled up; its state.",
        )),
        bare_output(def::<ExitCopyModeArgs, PaneInfo>(
            "exit_copy_mode",
            "Exit Copy Mode",
            IDEMPOTENT,
            "Leave copy mode (nothing to do when not in it); the pane's state.",
        )),
        super::row::<LoadBufferArgs>(
            "load_buffer",
            "Load tmux Buffer",
            OPEN,
            "Put text in a new tmuxwire paste buffer; use its buffer_name with paste_buffer, show_buffer, delete_buffer.",
        ),
        def::<WaitForChannelArgs, Waited>(
            "wait_for_channel",
            "Wait for tmux Channel",
            IDEMPOTENT,
            "Wait until a channel is signalled (signal_channel, or tmux wait-for -S in a pane) or timeout; a server exiting is an error, not success.",
        ),
        bare_output(def::<SignalChannelArgs, Message>(
            "signal_channel",
            "Signal tmux Channel",
            IDEMPOTENT,
            "Wake wait_for_channel waiters (or the next waiter, if none waits yet).",
        )),
    ]
}

/// A size argument: 1 … 10000 cells.
fn cells(arg: &'static str, v: Option<i64>) -> Result<Option<u32>, Error> {
    match v {
        None => Ok(None),
        Some(n) if (1..=10_000).contains(&n) => Ok(Some(n as u32)),
        Some(n) => Err(Error::invalid(
            arg,
            format!("{arg} must be between 1 and 10000 (received {n})"),
            "a number of cells",
        )),
    }
}

fn pane_id(arg: &'static str, s: &str) -> Result<PaneId, Error> {
    s.parse()
        .map_err(|e| Error::invalid(arg, format!("{arg}: {e}"), "a pane id like %3"))
}

/// Runs one manage tool.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let servers = ctx.servers;
    match name {
        "rename_session" => {
            let a: RenameSessionArgs = parse(args)?;
            let (t, s) = targeting!(a).session_target(servers).await?;
            Ok(object(&t.rename_session(&s, &a.new_name).await?))
        }
        "rename_window" => {
            let a: RenameWindowArgs = parse(args)?;
            let (t, w) = targeting!(a, window_id, window_index)
                .window_target(servers)
                .await?;
            Ok(object(&t.rename_window(&w, &a.new_name).await?))
        }
        "select_window" => {
            let a: SelectWindowArgs = parse(args)?;
            let targeting = targeting!(a, window_id, window_index);
            if let Some(d) = a.direction {
                if a.window_id.is_some() || a.window_index.is_some() {
                    return Err(Error::invalid(
                        "direction",
                        "give direction or a window (window_id, window_index), not both",
                        "one of window_id, window_index, direction",
                    ));
                }
                let how = match d {
                    WindowDirection::Next => WindowMove::Next,
                    WindowDirection::Previous => WindowMove::Previous,
                    WindowDirection::Last => WindowMove::Last,
                };
                let (t, s) = targeting.session_target(servers).await?;
                return Ok(object(&t.step_window(&s, how).await?));
            }
            if a.window_id.is_none() && a.window_index.is_none() {
                return Err(Error::invalid(
                    "window_id",
                    "Provide window_id, window_index, or direction.",
                    "one of window_id, window_index, direction",
                ));
            }
            let (t, w) = targeting.window_target(servers).await?;
            Ok(object(&t.select_window(&w).await?))
        }
        "select_pane" => {
            let a: SelectPaneArgs = parse(args)?;
            match (&a.pane_id, a.direction) {
                (Some(_), Some(_)) => Err(Error::invalid(
                    "direction",
                    "give pane_id or direction, not both",
                    "pane_id, or direction with an optional window",
                )),
                (None, None) => Err(Error::invalid(
                    "pane_id",
                    "Provide either pane_id or direction.",
                    "pane_id, or direction with an optional window",
                )),
                (Some(_), None) => {
                    let (t, p) = targeting!(a, pane_id).pane_target(servers).await?;
                    Ok(object(&t.select_pane(&p).await?))
                }
                (None, Some(d)) => {
                    let how = match d {
                        PaneDirection::Up => PaneMove::Up,
                        PaneDirection::Down => PaneMove::Down,
                        PaneDirection::Left => PaneMove::Left,
                        PaneDirection::Right => PaneMove::Right,
                        PaneDirection::Last => PaneMove::Last,
                        PaneDirection::Next => PaneMove::Next,
                        PaneDirection::Previous => PaneMove::Previous,
                    };
                    let (t, w) = targeting!(a, window_id, window_index)
                        .window_target(servers)
                        .await?;
                    Ok(object(&t.step_pane(&w, how).await?))
                }
            }
        }
        "select_layout" => {
            let a: SelectLayoutArgs = parse(args)?;
            if a.layout.is_empty() {
                return Err(Error::invalid(
                    "layout",
                    "layout must not be empty",
                    "a layout name such as tiled, or a layout string",
                ));
            }
            let (t, w) = targeting!(a, window_id, window_index)
                .window_target(servers)
                .await?;
            Ok(object(&t.select_layout(&w, &a.layout).await?))
        }
        "resize_window" => {
            let a: ResizeWindowArgs = parse(args)?;
            let (width, height) = (cells("width", a.width)?, cells("height", a.height)?);
            if width.is_none() && height.is_none() {
                return Err(Error::invalid(
                    "width",
                    "Provide width, height, or both.",
                    "width and/or height in cells",
                ));
            }
            let (t, w) = targeting!(a, window_id, window_index)
                .window_target(servers)
                .await?;
            Ok(object(&t.resize_window(&w, width, height).await?))
        }
        "resize_pane" => {
            let a: ResizePaneArgs = parse(args)?;
            let (width, height) = (cells("width", a.width)?, cells("height", a.height)?);
            match a.zoom {
                Some(_) if width.is_some() || height.is_some() => Err(Error::invalid(
                    "zoom",
                    "Cannot combine zoom with height/width",
                    "zoom alone, or height/width",
                )),
                Some(z) => {
                    let (t, p) = targeting!(a, pane_id, window_id)
                        .pane_target(servers)
                        .await?;
                    Ok(object(&t.zoom_pane(&p, z).await?))
                }
                None if width.is_none() && height.is_none() => Err(Error::invalid(
                    "width",
                    "Provide width, height or zoom.",
                    "width and/or height in cells, or zoom",
                )),
                None => {
                    let (t, p) = targeting!(a, pane_id, window_id)
                        .pane_target(servers)
                        .await?;
                    Ok(object(&t.resize_pane(&p, width, height).await?))
                }
            }
        }
        "move_window" => {
            let a: MoveWindowArgs = parse(args)?;
            let index = match a.destination_index.trim() {
                "" => None,
                s => Some(s.parse::<u32>().map_err(|_| {
                    Error::invalid(
                        "destination_index",
                        format!(
                            "destination_index must be a window index or \"\" (received {:?})",
                            crate::tmux::error::shorten(s, 20)
                        ),
                        "a window index such as \"3\", or \"\" for the next free one",
                    )
                })?),
            };
            let (t, w) = targeting!(a, window_id, window_index)
                .window_target(servers)
                .await?;
            let dest = match a.destination_session.as_deref().filter(|s| !s.is_empty()) {
                Some(s) => Some(t.session_target(&session_ref(s)).await?),
                None => None,
            };
            Ok(object(&t.move_window(&w, dest.as_ref(), index).await?))
        }
        "swap_pane" => {
            let a: SwapPaneArgs = parse(args)?;
            let src = pane_id("source_pane_id", &a.source_pane_id)?;
            let dst = pane_id("target_pane_id", &a.target_pane_id)?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            Ok(object(&t.swap_pane(src, dst).await?))
        }
        "set_pane_title" => {
            let a: SetPaneTitleArgs = parse(args)?;
            let (t, p) = targeting!(a, pane_id, window_id)
                .pane_target(servers)
                .await?;
            Ok(object(&t.set_pane_title(&p, &a.title).await?))
        }
        "enter_copy_mode" => {
            let a: EnterCopyModeArgs = parse(args)?;
            let scroll = match a.scroll_up {
                None => None,
                Some(n) if (0..=1_000_000).contains(&n) => Some(n as u32),
                Some(n) => {
                    return Err(Error::invalid(
                        "scroll_up",
                        format!("scroll_up must be between 0 and 1000000 (received {n})"),
                        "a number of lines",
                    ));
                }
            };
            let (t, p) = targeting!(a, pane_id, window_id)
                .pane_target(servers)
                .await?;
            Ok(object(&t.enter_copy_mode(&p, scroll).await?))
        }
        "exit_copy_mode" => {
            let a: ExitCopyModeArgs = parse(args)?;
            let (t, p) = targeting!(a, pane_id, window_id)
                .pane_target(servers)
                .await?;
            Ok(object(&t.exit_copy_mode(&p).await?))
        }
        "wait_for_channel" => {
            let a: WaitForChannelArgs = parse(args)?;
            if a.timeout.is_nan() || a.timeout <= 0.0 || !a.timeout.is_finite() {
                return Err(Error::invalid(
                    "timeout",
                    format!("timeout must be positive (received {})", a.timeout),
                    "seconds > 0",
                ));
            }
            let effective = a.timeout.min(wait_ceiling());
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            let start = std::time::Instant::now();
            t.wait_for_channel(&a.channel, Duration::from_secs_f64(effective))
                .await?;
            Ok(object(&Waited {
                result: format!(
                    "Channel '{}' was signalled (timeout {effective:.1}s)",
                    a.channel
                ),
                channel: a.channel,
                elapsed_seconds: start.elapsed().as_secs_f64(),
                effective_timeout: effective,
            }))
        }
        "signal_channel" => {
            let a: SignalChannelArgs = parse(args)?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            t.signal_channel(&a.channel).await?;
            Ok(message(format!("Channel '{}' signalled", a.channel)))
        }
        other => Ok(unknown_tool(other)),
    }
}
