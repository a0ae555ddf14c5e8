//! One object: `get_server_info`, `get_session_info`,
//! `get_window_info`, `get_pane_info`.
//!
//! Each is one round trip when its target is given by id: a `list-*`
//! command filtered to exactly that object (see
//! [`pane_lookup`](crate::tmux::target::pane_lookup) for why not
//! `display-message -t`).

use super::Server;
use super::list::with_attached;
use crate::control::{Target, TargetKind};
use crate::tmux::target::{one_record, template_cmd, window_lookup};
pub(super) use crate::tmux::target::{pane_info, server_info};
use crate::tmux::{Error, PaneInfo, Selector, ServerInfo, SessionInfo, WindowInfo};

crate::fits_whole!(ServerInfo, SessionInfo, WindowInfo, PaneInfo);

/// `get_server_info`: whether a server runs on the socket, and its facts.
#[derive(Default)]
pub struct ServerInfoRequest;

op!(ServerInfoRequest, ServerInfo, async |_, server, _| {
    server_info(server).await
});

/// Writes a request for one object, selected by its one field: its
/// [`Op`](super::Op) resolves the selector with `server.$resolve` and
/// reads the object with `$read`. A row:
///
/// `$(#[doc])* Request { $(#[doc])* field } => Answer by resolve, read;`
macro_rules! one_object {
    ($(
        $(#[$m:meta])* $req:ident { $(#[$fm:meta])* $field:ident }
            => $answer:ident by $resolve:ident, $read:ident;
    )*) => {$(
        $(#[$m])*
        #[derive(Default)]
        pub struct $req {
            $(#[$fm])*
            pub $field: Selector,
        }

        op!($req, $answer, async |req, server, _| {
            let target = server.$resolve(&req.$field).await?;
            $read(server, &target).await
        });
    )*};
}

one_object! {
    /// `get_session_info`: one session (by id or exact name; the default
    /// session when none is named).
    SessionInfoRequest {
        /// The session.
        session
    } => SessionInfo by resolve_session, session_info;

    /// `get_window_info`: one window (by id, or by index in the selected
    /// session; the session's current window when none is named).
    WindowInfoRequest {
        /// The window.
        window
    } => WindowInfo by resolve_window, window_info;

    /// `get_pane_info`: one pane (by id; else the active pane of the window
    /// or session named; else the caller's own pane or the default one).
    PaneInfoRequest {
        /// The pane.
        pane
    } => PaneInfo by resolve_pane, pane_info;
}

/// One session.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] when it does not exist.
pub(super) async fn session_info(server: &Server, target: &Target) -> Result<SessionInfo, Error> {
    // The session's fields, read through its current window.
    let (cmd, q) = template_cmd("list-windows", SessionInfo::FIELDS);
    let cmd = cmd
        .target(target, TargetKind::Session)
        .opt("-f", "#{window_active}");
    let (body, attached) = with_attached(server, cmd).await?;
    Ok(SessionInfo::from_record(
        &one_record(&q, &body, target)?,
        &attached,
    ))
}

/// One window (for a session target: its current window).
///
/// # Errors
///
/// [`ErrorKind::NotFound`] when it does not exist.
pub(super) async fn window_info(server: &Server, target: &Target) -> Result<WindowInfo, Error> {
    let (cmd, q) = window_lookup(target, WindowInfo::FIELDS);
    let body = server.run(&cmd).await?.into_result()?;
    Ok(WindowInfo::from_record(&one_record(&q, &body, target)?))
}

/// A window corner.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Corner {
    /// Top left.
    TopLeft,
    /// Top right.
    TopRight,
    /// Bottom left.
    BottomLeft,
    /// Bottom right.
    BottomRight,
}

impl Corner {
    /// The corner's name as tools take it (`top-left`, …).
    pub fn name(self) -> &'static str {
        match self {
            Corner::TopLeft => "top-left",
            Corner::TopRight => "top-right",
            Corner::BottomLeft => "bottom-left",
            Corner::BottomRight => "bottom-right",
        }
    }

    /// Whether a pane of `g` touches both of the corner's edges.
    fn touches(self, g: &crate::tmux::Geometry) -> bool {
        match self {
            Corner::TopLeft => g.pane_at_top && g.pane_at_left,
            Corner::TopRight => g.pane_at_top && g.pane_at_right,
            Corner::BottomLeft => g.pane_at_bottom && g.pane_at_left,
            Corner::BottomRight => g.pane_at_bottom && g.pane_at_right,
        }
    }
}

/// `find_pane_by_position`: the pane at a corner of a window (by id, or
/// by index in the selected session; the session's current window when
/// none is named).
pub struct FindPaneRequest {
    /// The window.
    pub window: Selector,
    /// The corner.
    pub corner: Corner,
}

op!(FindPaneRequest, PaneInfo, async |req, server, _| {
    let window = server.window_target(&req.window).await?;
    let scope = crate::tmux::PaneScope::Window(window.clone());
    let panes = super::list::panes(server, &scope).await?;
    let w = panes
        .first()
        .map_or_else(|| window.to_string(), |p| p.window_id.clone());
    corner_pane(panes, req.corner).ok_or_else(|| {
        Error::not_found(format!(
            "No pane found at corner '{}' in window {w}.",
            req.corner.name()
        ))
    })
});

/// The pane at `corner`: of those touching both edges, the one with the
/// largest `pane_left + pane_top` (libtmux-mcp's tie rule; the last of
/// equals, as `max_by_key` picks).
fn corner_pane(panes: Vec<PaneInfo>, corner: Corner) -> Option<PaneInfo> {
    panes
        .into_iter()
        .filter(|p| corner.touches(&p.geometry))
        .max_by_key(|p| p.geometry.pane_left + p.geometry.pane_top)
}
