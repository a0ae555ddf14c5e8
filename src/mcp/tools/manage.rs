//! The manage tools: changing tmux objects without running anything in a
//! pane. Each is one round trip when given ids (the action and the read
//! of its result on one command line); each returns the object's new
//! state, read after the change.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{ADDITIVE, Def, IDEMPOTENT, OPEN};
use super::{tool_args, wait_ceiling};
use crate::mcp::targeting::{args, pane_id, targeting};
use crate::tmux::Error;
use crate::tmux::act::session_ref;
use crate::tmux::op::buffers::{BufferRef, LoadBufferRequest};
use crate::tmux::op::channel::{
    Channel, SignalChannelRequest, Signalled, WaitForChannelRequest, Waited,
};
use crate::tmux::op::manage::{
    EnterCopyModeRequest, ExitCopyModeRequest, MoveWindowRequest, Name, PaneDirection,
    RenameSessionRequest, RenameWindowRequest, SelectPaneRequest, SelectWindowRequest,
    SetPaneTitleRequest, SwapPaneRequest, Title, WindowDirection,
};
use crate::tmux::op::resize::{
    LayoutChoice, ResizePaneRequest, ResizeWindowRequest, SelectLayoutRequest, Size,
};

args! {
    /// `rename_session`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct RenameSessionArgs {
        /// Stored exactly (#, #{}, #() included).
        pub new_name: String,
        @session,
        @socket,
    }
}

args! {
    /// `rename_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct RenameWindowArgs {
        /// Stored exactly; automatic renaming stops.
        pub new_name: String,
        @window,
        @socket,
    }
}

args! {
    /// `select_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SelectWindowArgs {
        @window_id,
        @window_index,
        pub direction: Option<WindowDirection>,
        @session,
        @socket,
    }
}

args! {
    /// `select_pane`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SelectPaneArgs {
        @pane_id,
        pub direction: Option<PaneDirection>,
        @window,
        @socket,
    }
}

args! {
    /// `select_layout`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SelectLayoutArgs {
        /// tiled, even-horizontal, main-vertical, …, or a layout string.
        pub layout: String,
        @window,
        @socket,
    }
}

args! {
    /// `resize_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ResizeWindowArgs {
        @window,
        @size,
        @socket,
    }
}

args! {
    /// `resize_pane`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ResizePaneArgs {
        @pane,
        @size,
        /// true: zoom (fill the window); false: unzoom.
        pub zoom: Option<bool>,
        @socket,
    }
}

args! {
    /// `move_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct MoveWindowArgs {
        @window,
        /// Index to move to; "" = the next free one.
        #[serde(default)]
        pub destination_index: String,
        /// Session (name or $N) to move to; default: its own.
        pub destination_session: Option<String>,
        @socket,
    }
}

args! {
    /// `swap_pane`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SwapPaneArgs {
        /// %N.
        pub source_pane_id: String,
        /// %N.
        pub target_pane_id: String,
        @socket,
    }
}

args! {
    /// `set_pane_title`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SetPaneTitleArgs {
        /// Stored exactly.
        pub title: String,
        @pane,
        @socket,
    }
}

args! {
    /// `enter_copy_mode`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct EnterCopyModeArgs {
        @pane_id,
        /// Lines to scroll up.
        pub scroll_up: Option<i64>,
        @session,
        @window_id,
        @socket,
    }
}

args! {
    /// `exit_copy_mode`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ExitCopyModeArgs {
        @pane,
        @socket,
    }
}

args! {
    /// `load_buffer`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct LoadBufferArgs {
        /// The text, stored exactly.
        pub content: String,
        /// Up to 64 of A-Z a-z 0-9 _ . - (default buf).
        pub logical_name: Option<String>,
        @socket,
    }
}

crate::mcp::text::rendered!(Object: BufferRef);

tool_args!(LoadBufferArgs => LoadBufferRequest, |a| {
    LoadBufferRequest::new(a.content, a.logical_name)
});

args! {
    /// `wait_for_channel`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct WaitForChannelArgs {
        @channel,
        @timeout = "default_wait",
        @socket,
    }
}

fn default_wait() -> f64 {
    30.0
}

args! {
    /// `signal_channel`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SignalChannelArgs {
        @channel,
        @socket,
    }
}

tool_args!(WaitForChannelArgs => WaitForChannelRequest, |a| {
    if a.timeout.is_nan() || a.timeout <= 0.0 || !a.timeout.is_finite() {
        return Err(Error::invalid(
            "timeout",
            format!("timeout must be positive (received {})", a.timeout),
            "seconds > 0",
        ));
    }
    let effective = a.timeout.min(wait_ceiling());
    Ok(WaitForChannelRequest {
        channel: Channel::new(&a.channel)?,
        timeout: Duration::from_secs_f64(effective),
    })
});

tool_args!(SignalChannelArgs => SignalChannelRequest, |a| Ok(SignalChannelRequest {
    channel: Channel::new(&a.channel)?,
}));

crate::mcp::text::rendered!(String: Waited, Signalled);

/// The manage tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        super::row::<RenameSessionArgs>(
            "rename_session",
            IDEMPOTENT,
            "Rename a session; its new state.",
        ),
        super::row::<RenameWindowArgs>(
            "rename_window",
            IDEMPOTENT,
            "Rename a window; its new state.",
        ),
        super::row::<SelectWindowArgs>(
            "select_window",
            IDEMPOTENT,
            "Make a window current (window_id, window_index, or direction in the session).",
        ),
        super::row::<SelectPaneArgs>(
            "select_pane",
            IDEMPOTENT,
            "Make a pane active (pane_id, or direction in the window); the pane now active.",
        ),
        super::row::<SelectLayoutArgs>(
            "select_layout",
            IDEMPOTENT,
            "Arrange a window's panes; the window with its new window_layout.",
        ),
        super::row::<ResizeWindowArgs>(
            "resize_window",
            IDEMPOTENT,
            "Set a window's size in cells (window-size becomes manual).",
        ),
        super::row::<ResizePaneArgs>(
            "resize_pane",
            IDEMPOTENT,
            "Set a pane's size in cells, or zoom/unzoom it.",
        ),
        super::row::<MoveWindowArgs>(
            "move_window",
            IDEMPOTENT,
            "Move a window to another index or session; its state there.",
        ),
        super::row::<SwapPaneArgs>(
            "swap_pane",
            ADDITIVE,
            "Swap two panes' places; the source pane's new state.",
        ),
        super::row::<SetPaneTitleArgs>(
            "set_pane_title",
            IDEMPOTENT,
            "Set a pane's title; its new state.",
        ),
        super::row::<EnterCopyModeArgs>(
            "enter_copy_mode",
            ADDITIVE,
            "Put a pane in copy mode, optionally scrolled up; its state.",
        ),
        super::row::<ExitCopyModeArgs>(
            "exit_copy_mode",
            IDEMPOTENT,
            "Leave copy mode (nothing to do when not in it); the pane's state.",
        ),
        super::row::<LoadBufferArgs>(
            "load_buffer",
            OPEN,
            "Put text in a new tmuxwire paste buffer; use its buffer_name with paste_buffer, show_buffer, delete_buffer.",
        ),
        super::row::<WaitForChannelArgs>(
            "wait_for_channel",
            IDEMPOTENT,
            "Wait until a channel is signalled (signal_channel, or tmux wait-for -S in a pane) or timeout; a server exiting is an error, not success.",
        )
        .mark_self_bounded(),
        super::row::<SignalChannelArgs>(
            "signal_channel",
            IDEMPOTENT,
            "Wake wait_for_channel waiters (or the next waiter, if none waits yet).",
        ),
    ]
}

tool_args!(RenameSessionArgs => RenameSessionRequest, |a| Ok(RenameSessionRequest {
    session: targeting!(a).selector()?,
    new_name: Name::new("new_name", &a.new_name)?,
}));

tool_args!(RenameWindowArgs => RenameWindowRequest, |a| Ok(RenameWindowRequest {
    window: targeting!(a, window_id, window_index).selector()?,
    new_name: Name::new("new_name", &a.new_name)?,
}));

tool_args!(SelectWindowArgs => SelectWindowRequest, |a| {
    let window_named = a.window_id.is_some() || a.window_index.is_some();
    let sel = || targeting!(a, window_id, window_index).selector();
    match a.direction {
        Some(_) if window_named => Err(Error::invalid(
            "direction",
            "give direction or a window (window_id, window_index), not both",
            "one of window_id, window_index, direction",
        )),
        Some(direction) => Ok(SelectWindowRequest::Step {
            session: sel()?,
            direction,
        }),
        None if !window_named => Err(Error::invalid(
            "window_id",
            "Provide window_id, window_index, or direction.",
            "one of window_id, window_index, direction",
        )),
        None => Ok(SelectWindowRequest::Window(sel()?)),
    }
});

tool_args!(SelectPaneArgs => SelectPaneRequest, |a| {
    let expected = "pane_id, or direction with an optional window";
    match (&a.pane_id, a.direction) {
        (Some(_), Some(_)) => Err(Error::invalid(
            "direction",
            "give pane_id or direction, not both",
            expected,
        )),
        (None, None) => Err(Error::invalid(
            "pane_id",
            "Provide either pane_id or direction.",
            expected,
        )),
        (Some(_), None) => Ok(SelectPaneRequest::Pane(
            targeting!(a, pane_id).selector()?,
        )),
        (None, Some(direction)) => Ok(SelectPaneRequest::Step {
            window: targeting!(a, window_id, window_index).selector()?,
            direction,
        }),
    }
});

tool_args!(SelectLayoutArgs => SelectLayoutRequest, |a| {
    let layout = LayoutChoice::parse(&a.layout)?;
    Ok(SelectLayoutRequest {
        window: targeting!(a, window_id, window_index).selector()?,
        layout,
    })
});

tool_args!(ResizeWindowArgs => ResizeWindowRequest, |a| {
    let size = Size::new(a.width, a.height)?.ok_or_else(|| {
        Error::invalid(
            "width",
            "Provide width, height, or both.",
            "width and/or height in cells",
        )
    })?;
    Ok(ResizeWindowRequest {
        window: targeting!(a, window_id, window_index).selector()?,
        size,
    })
});

tool_args!(ResizePaneArgs => ResizePaneRequest, |a| {
    let size = Size::new(a.width, a.height)?;
    let pane = || targeting!(a, pane_id, window_id).selector();
    match (a.zoom, size) {
        (Some(_), Some(_)) => Err(Error::invalid(
            "zoom",
            "Cannot combine zoom with height/width",
            "zoom alone, or height/width",
        )),
        (Some(zoom), None) => Ok(ResizePaneRequest::Zoom {
            pane: pane()?,
            zoom,
        }),
        (None, None) => Err(Error::invalid(
            "width",
            "Provide width, height or zoom.",
            "width and/or height in cells, or zoom",
        )),
        (None, Some(size)) => Ok(ResizePaneRequest::Size {
            pane: pane()?,
            size,
        }),
    }
});

tool_args!(MoveWindowArgs => MoveWindowRequest, |a| {
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
    Ok(MoveWindowRequest {
        window: targeting!(a, window_id, window_index).selector()?,
        destination: a
            .destination_session
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(session_ref),
        index,
    })
});

tool_args!(SwapPaneArgs => SwapPaneRequest, |a| Ok(SwapPaneRequest {
    source: pane_id("source_pane_id", &a.source_pane_id)?,
    target: pane_id("target_pane_id", &a.target_pane_id)?,
}));

tool_args!(SetPaneTitleArgs => SetPaneTitleRequest, |a| Ok(SetPaneTitleRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
    title: Title::new(&a.title)?,
}));

tool_args!(EnterCopyModeArgs => EnterCopyModeRequest, |a| {
    let scroll_up = EnterCopyModeRequest::scroll(a.scroll_up)?;
    Ok(EnterCopyModeRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        scroll_up,
    })
});

tool_args!(ExitCopyModeArgs => ExitCopyModeRequest, |a| Ok(ExitCopyModeRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
}));
