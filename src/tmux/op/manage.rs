//! Changing sessions, windows and panes without running anything in a
//! pane: `rename_session`, `rename_window`, `select_window`,
//! `select_pane`, `select_layout`, `resize_window`, `resize_pane`,
//! `move_window`, `swap_pane`, `set_pane_title`, `enter_copy_mode`,
//! `exit_copy_mode`. Creating things is [`super::create`], killing and
//! clearing [`super::kill`].
//!
//! Each is one round trip when its target is given by id (or by a session
//! name tmux can match exactly, see
//! [`exact_name_target`](crate::tmux::manage::exact_name_target)): the
//! action and the read of its result go out as one control-mode line,
//! which tmux runs back to back and stops at the first failure, so the
//! result describes the moment right after the action and a failed action
//! reads nothing. Each answers the object's new state.
//!
//! Names and titles pass through [`escape_format`] where tmux expands
//! formats in that argument, so `#{…}`, `#S` and `#(…)` are stored as
//! text and never run.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::fit::Limit;
use super::{Op, Server};
use crate::control::format::{Query, escape_format};
use crate::control::{Command, Line, PaneId, Target, TargetKind};
use crate::tmux::error::shorten;
use crate::tmux::layout::Layout;
use crate::tmux::manage::bodies;
use crate::tmux::target::{one_record, pane_lookup, template_cmd, window_lookup};
use crate::tmux::{Error, PaneInfo, Retry, Selector, SessionInfo, WindowInfo};
use crate::wire::TmuxVersion;

/// A name a caller gives a session or window: not empty, no NUL byte;
/// stored by tmux exactly as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name(String);

impl Name {
    /// `name`, checked, for the argument `arg`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) naming `arg` for an empty name or
    /// one with a NUL byte.
    pub fn new(arg: &'static str, name: &str) -> Result<Name, Error> {
        if name.is_empty() || name.contains('\0') {
            return Err(Error::invalid(
                arg,
                format!("{arg} must be a non-empty name without NUL bytes"),
                "a name (stored exactly as given)",
            ));
        }
        Ok(Name(name.to_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A pane title a caller gives: any text without a NUL byte (empty
/// clears it); stored exactly as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Title(String);

impl Title {
    /// `title`, checked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a NUL byte.
    pub fn new(title: &str) -> Result<Title, Error> {
        if title.contains('\0') {
            return Err(Error::invalid(
                "title",
                "title must not contain NUL bytes",
                "a title",
            ));
        }
        Ok(Title(title.to_string()))
    }
}

/// A size in cells for one dimension: 1 … 10000.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) naming `arg` when `v` is out of range.
pub fn cells(arg: &'static str, v: Option<i64>) -> Result<Option<u32>, Error> {
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

/// A new size: a width, a height, or both, in cells (see [`cells`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    width: Option<u32>,
    height: Option<u32>,
}

impl Size {
    /// The size of `width` × `height` cells; `None` when both are left
    /// out.
    ///
    /// # Errors
    ///
    /// [`cells`]'s, for `width` first.
    pub fn new(width: Option<i64>, height: Option<i64>) -> Result<Option<Size>, Error> {
        let (width, height) = (cells("width", width)?, cells("height", height)?);
        Ok((width.is_some() || height.is_some()).then_some(Size { width, height }))
    }

    /// `-x` and `-y` added to `cmd`.
    fn flags(self, cmd: Command) -> Command {
        cmd.opt_if("-x", self.width.map(|w| w.to_string()))
            .opt_if("-y", self.height.map(|h| h.to_string()))
    }
}

/// Where `select_window` moves in a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WindowDirection {
    /// The next window.
    Next,
    /// The previous window.
    Previous,
    /// The window selected before.
    Last,
}

/// Where `select_pane` moves in a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PaneDirection {
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

/// The state of the pane `target` names, read with the action on one
/// line: `action` (targeted already) then the read.
pub(super) async fn act_then_pane(
    server: &Server,
    action: Vec<Command>,
    target: &Target,
) -> Result<PaneInfo, Error> {
    let q = Query::new(PaneInfo::FIELDS);
    let mut line = action;
    line.push(pane_lookup(target, &q));
    let mut out = server.act(line).await?;
    let body = out.pop().unwrap_or_default();
    let r = one_record(&q, &body, target)?;
    Ok(PaneInfo::from_record(&r, |id| server.is_caller(id)))
}

/// The state of the window `target` names, read with the action on one
/// line.
async fn act_then_window(
    server: &Server,
    action: Vec<Command>,
    target: &Target,
) -> Result<WindowInfo, Error> {
    let (read, q) = window_lookup(target, WindowInfo::FIELDS);
    let mut line = action;
    line.push(read);
    let mut out = server.act(line).await?;
    let body = out.pop().unwrap_or_default();
    Ok(WindowInfo::from_record(&one_record(&q, &body, target)?))
}

crate::record! {
    /// A session's id (what a rename does not change; the session a
    /// window is in).
    struct SessionIdRow {
        session_id: String = "session_id",
    }
}

crate::record! {
    /// A window's id.
    struct WindowIdRow {
        window_id: String = "window_id",
    }
}

crate::record! {
    /// A client, for counting tmuxwire's own control clients.
    struct ClientRow {
        termname: String = "client_termname",
        session_id: String = "session_id",
    }
}

/// `rename_session`: renames a session (stored literally); its new state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`duplicate session: …`).
pub struct RenameSessionRequest {
    /// The session (the default session when none is named).
    pub session: Selector,
    /// Its new name.
    pub new_name: Name,
}

impl Op for RenameSessionRequest {
    type Response = SessionInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<SessionInfo, Error> {
        let target = server.session_target(&self.session).await?;
        // The id first (the name changes), then the rename, then every
        // session's state: picked by id.
        let (id_cmd, idq) = template_cmd("list-windows", SessionIdRow::FIELDS);
        let id_cmd = id_cmd
            .target(&target, TargetKind::Session)
            .opt("-f", "#{window_active}");
        let rename = Command::new("rename-session")
            .target(&target, TargetKind::Session)
            .arg("--")
            .arg(escape_format(self.new_name.as_str()));
        let (all, q) = template_cmd("list-windows", SessionInfo::FIELDS);
        let all = all.arg("-a").opt("-f", "#{window_active}");
        let (clients, cq) = template_cmd("list-clients", ClientRow::FIELDS);
        let out = server.act(vec![id_cmd, rename, all, clients]).await?;
        let id = SessionIdRow::from_record(&one_record(&idq, &out[0], &target)?).session_id;
        let mut ours = HashMap::new();
        for c in cq.parse(&out[3]).iter().map(ClientRow::from_record) {
            if crate::wire::ssh::is_own_term(&c.termname) {
                *ours.entry(c.session_id).or_insert(0) += 1;
            }
        }
        q.parse(&out[2])
            .iter()
            .map(|r| SessionInfo::from_record(r, &ours))
            .find(|s| s.session_id == id)
            .ok_or_else(|| Error::not_found(format!("session {id} is gone after the rename")))
    }
}

/// `rename_window`: renames a window (stored literally; automatic
/// renaming stops); its new state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
pub struct RenameWindowRequest {
    /// The window (by id, or index in the selected session; else the
    /// session's current window).
    pub window: Selector,
    /// Its new name.
    pub new_name: Name,
}

impl Op for RenameWindowRequest {
    type Response = WindowInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<WindowInfo, Error> {
        let target = server.window_target(&self.window).await?;
        let rename = Command::new("rename-window")
            .target(&target, TargetKind::Window)
            .arg("--")
            .arg(escape_format(self.new_name.as_str()));
        act_then_window(server, vec![rename], &target).await
    }
}

/// `select_window`: makes a window its session's current window; its
/// state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`no last window`).
pub enum SelectWindowRequest {
    /// This window (by id, or index in the selected session).
    Window(Selector),
    /// The next, previous or last window of a session.
    Step {
        /// The session (the default one when none is named).
        session: Selector,
        /// Where to move.
        direction: WindowDirection,
    },
}

impl Op for SelectWindowRequest {
    type Response = WindowInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<WindowInfo, Error> {
        match self {
            SelectWindowRequest::Window(sel) => {
                let target = server.window_target(&sel).await?;
                let select = Command::new("select-window").target(&target, TargetKind::Window);
                act_then_window(server, vec![select], &target).await
            }
            SelectWindowRequest::Step { session, direction } => {
                let target = server.session_target(&session).await?;
                let name = match direction {
                    WindowDirection::Next => "next-window",
                    WindowDirection::Previous => "previous-window",
                    WindowDirection::Last => "last-window",
                };
                let step = Command::new(name).target(&target, TargetKind::Session);
                act_then_window(server, vec![step], &target).await
            }
        }
    }
}

/// `select_pane`: makes a pane its window's active pane; the pane now
/// active.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
pub enum SelectPaneRequest {
    /// This pane.
    Pane(Selector),
    /// A move of a window's active pane.
    Step {
        /// The window (or a session, for its current window).
        window: Selector,
        /// Where to move.
        direction: PaneDirection,
    },
}

impl Op for SelectPaneRequest {
    type Response = PaneInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<PaneInfo, Error> {
        match self {
            SelectPaneRequest::Pane(sel) => {
                let pane = server.pane_target(&sel).await?;
                let select = Command::new("select-pane").target(&pane, TargetKind::Pane);
                act_then_pane(server, vec![select], &pane).await
            }
            SelectPaneRequest::Step { window, direction } => {
                let window = server.window_target(&window).await?;
                let base = Command::new("select-pane");
                let at = |c: Command| c.target(&window, TargetKind::Pane);
                let step = match direction {
                    PaneDirection::Up => at(base).arg("-U"),
                    PaneDirection::Down => at(base).arg("-D"),
                    PaneDirection::Left => at(base).arg("-L"),
                    PaneDirection::Right => at(base).arg("-R"),
                    PaneDirection::Last => at(base).arg("-l"),
                    PaneDirection::Next => base.opt("-t", relative_pane(&window, "+")),
                    PaneDirection::Previous => base.opt("-t", relative_pane(&window, "-")),
                };
                act_then_pane(server, vec![step], &window).await
            }
        }
    }
}

/// A `-t` value for the pane `window`'s target names plus a relative
/// pane part (`+`/`-`): `@3.+`, `$1:.+`, `=name:2.-`.
fn relative_pane(window: &Target, rel: &str) -> String {
    match window {
        Target::Window(w) => format!("{w}.{rel}"),
        Target::Pane(p) => format!("{p}"),
        Target::Session(_) | Target::SessionName(_) => {
            format!("{}:.{rel}", window.to_arg(TargetKind::Session))
        }
        Target::WindowIndex { .. } => format!("{}.{rel}", window.to_arg(TargetKind::Window)),
    }
}

/// The layouts tmux knows by name (layout-set.c), and the version that
/// added each.
const LAYOUTS: &[(&str, (u32, u32))] = &[
    ("even-horizontal", (1, 0)),
    ("even-vertical", (1, 0)),
    ("main-horizontal", (1, 0)),
    ("main-vertical", (1, 0)),
    ("tiled", (1, 0)),
    ("main-horizontal-mirrored", (3, 5)),
    ("main-vertical-mirrored", (3, 5)),
];

/// What tmux accepts, said in a refusal.
const LAYOUTS_EXPECTED: &str = "even-horizontal, even-vertical, main-horizontal, main-vertical, \
                                tiled (3.5+: main-horizontal-mirrored, main-vertical-mirrored), \
                                or a layout string exactly as window_layout gives it";

/// A layout for `select_layout`, parsed when the request is built: a
/// layout name (exactly; tmux would also take a prefix), or a layout
/// string in either of tmux's forms, parsed ([`Layout::parse`]) and
/// written out again in a form the running tmux reads
/// ([`Layout::for_version`]: tmux 3.8's JSON form goes to 3.8 as JSON and
/// to earlier versions in the legacy form when it can be said there).
///
/// Nothing else reaches tmux's layout reader, which trusts its input: on
/// 3.2 and 3.3 it frees an unset pointer for text without a checksum
/// (layout-custom.c: `layout_parse()` returns without its cause; fixed in
/// 3.4) and reads past the end of a string shorter than its 5-byte
/// header, and on 3.3a and 3.5a a checksummed layout with a one-cell
/// split kills the server when the window has fewer panes than the layout
/// cells.
#[derive(Clone, Debug)]
pub enum LayoutChoice {
    /// A layout by name, with the tmux version that added it.
    Named(&'static str, (u32, u32)),
    /// A layout string, parsed; `text` as given (for error messages).
    Custom {
        /// The parsed layout.
        layout: Layout,
        /// The text it was parsed from.
        text: String,
    },
}

impl LayoutChoice {
    /// Parses `text`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for `layout`, saying what is wrong
    /// with the text.
    pub fn parse(text: &str) -> Result<LayoutChoice, Error> {
        if text.is_empty() {
            return Err(Error::invalid(
                "layout",
                "layout must not be empty",
                "a layout name such as tiled, or a layout string",
            ));
        }
        if let Some((name, since)) = LAYOUTS.iter().find(|(n, _)| *n == text) {
            return Ok(LayoutChoice::Named(name, *since));
        }
        let looks_like_layout = text
            .bytes()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| b == b'{' || b.is_ascii_hexdigit())
            && (text.contains(',') || text.trim_start().starts_with('{'));
        if !looks_like_layout {
            return Err(Error::invalid(
                "layout",
                format!(
                    "layout must be a layout name or a layout string (received {:?})",
                    shorten(text, 40)
                ),
                LAYOUTS_EXPECTED,
            ));
        }
        match Layout::parse(text) {
            Ok(layout) => Ok(LayoutChoice::Custom {
                layout,
                text: text.to_string(),
            }),
            Err(e) => Err(not_a_layout(&e, text)),
        }
    }

    /// What `select-layout` is given on `version`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a name `version` does not know,
    /// or a layout it cannot be told.
    pub fn argument(&self, version: &TmuxVersion) -> Result<String, Error> {
        match self {
            LayoutChoice::Named(name, (major, minor)) => {
                if version.at_least(*major, *minor) {
                    return Ok(name.to_string());
                }
                Err(Error::invalid(
                    "layout",
                    format!(
                        "layout {name} needs tmux {major}.{minor} or newer (this is {version})"
                    ),
                    "even-horizontal, even-vertical, main-horizontal, main-vertical or tiled",
                ))
            }
            LayoutChoice::Custom { layout, text } => layout
                .for_version(version)
                .map_err(|e| not_a_layout(&e, text)),
        }
    }
}

/// The refusal of a layout string tmux cannot be given.
fn not_a_layout(e: &dyn std::fmt::Display, text: &str) -> Error {
    Error::invalid(
        "layout",
        format!(
            "layout is not a layout tmux can be given: {e} (received {:?})",
            shorten(text, 40)
        ),
        LAYOUTS_EXPECTED,
    )
}

/// `select_layout`: arranges a window's panes; the window's state
/// afterwards, with its new `window_layout`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a layout this tmux cannot be given
/// ([`LayoutChoice::argument`]); [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors
/// (`invalid layout`).
pub struct SelectLayoutRequest {
    /// The window.
    pub window: Selector,
    /// The layout.
    pub layout: LayoutChoice,
}

impl Op for SelectLayoutRequest {
    type Response = WindowInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<WindowInfo, Error> {
        let target = server.window_target(&self.window).await?;
        let layout = self.layout.argument(&server.version().await?)?;
        let select = Command::new("select-layout")
            .target(&target, TargetKind::Pane)
            .arg("--")
            .arg(layout);
        act_then_window(server, vec![select], &target).await
    }
}

/// `resize_window`: resizes a window (its `window-size` becomes manual,
/// as tmux does); its new state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
pub struct ResizeWindowRequest {
    /// The window.
    pub window: Selector,
    /// Its new size.
    pub size: Size,
}

impl Op for ResizeWindowRequest {
    type Response = WindowInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<WindowInfo, Error> {
        let target = server.window_target(&self.window).await?;
        let resize = self
            .size
            .flags(Command::new("resize-window").target(&target, TargetKind::Window));
        act_then_window(server, vec![resize], &target).await
    }
}

/// `resize_pane`: resizes a pane, or zooms or unzooms it; its state
/// afterwards.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
pub enum ResizePaneRequest {
    /// To a size in cells.
    Size {
        /// The pane.
        pane: Selector,
        /// Its new size.
        size: Size,
    },
    /// Zoomed (`true`: it fills its window and is the window's active
    /// pane) or its window unzoomed (`false`).
    Zoom {
        /// The pane.
        pane: Selector,
        /// Zoom or unzoom.
        zoom: bool,
    },
}

impl Op for ResizePaneRequest {
    type Response = PaneInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<PaneInfo, Error> {
        match self {
            ResizePaneRequest::Size { pane, size } => {
                let pane = server.pane_target(&pane).await?;
                let resize =
                    size.flags(Command::new("resize-pane").target(&pane, TargetKind::Pane));
                act_then_pane(server, vec![resize], &pane).await
            }
            ResizePaneRequest::Zoom { pane, zoom } => {
                let pane = server.pane_target(&pane).await?;
                zoom_pane(server, &pane, zoom).await
            }
        }
    }
}

/// Zooms the pane or unzooms its window, in one round trip.
///
/// tmux's `resize-pane -Z` toggles the *window's* zoom, whichever pane is
/// zoomed (cmd-resize-pane.c: unzoom when `WINDOW_ZOOMED`, else
/// `window_zoom(wp)`), so zooming is decided by tmux on the line itself
/// (`if-shell -F`, no shell): nothing when the pane is the zoomed one
/// already (the zoomed pane is always the window's active pane,
/// `window_zoom()` makes it so), else an unzoom (`resize-pane` without a
/// size only unzooms) then a zoom of this pane. Unzooming needs no check:
/// a plain `resize-pane` unzooms and is a no-op on an unzoomed window, so
/// it is one command line with the read.
async fn zoom_pane(server: &Server, pane: &Target, zoom: bool) -> Result<PaneInfo, Error> {
    let unzoom = Command::new("resize-pane").target(pane, TargetKind::Pane);
    if !zoom {
        return act_then_pane(server, vec![unzoom], pane).await;
    }
    let toggle = Command::new("resize-pane")
        .arg("-Z")
        .target(pane, TargetKind::Pane);
    let inner = Line::list(vec![unzoom, toggle])
        .to_line()
        .map_err(|e| Error::invalid("pane_id", e.to_string(), "a pane id"))?;
    // Non-empty and not "0" runs the command: unless the window is
    // zoomed on this very pane.
    let check = Command::new("if-shell")
        .arg("-F")
        .target(pane, TargetKind::Pane)
        .arg("#{?window_zoomed_flag,#{?pane_active,0,1},1}")
        .arg(inner);
    // The read has a line of its own (the if-shell line is fenced, as
    // its block count varies), so its records keep their framing.
    let q = Query::new(PaneInfo::FIELDS);
    let lines = [vec![check], vec![pane_lookup(pane, &q)]];
    let mut out = server.run_lines(&lines, Retry::Never).await?;
    let read = bodies(out.pop().unwrap_or_default(), 1)?;
    bodies(out.pop().unwrap_or_default(), 1)?;
    let r = one_record(&q, &read[0], pane)?;
    Ok(PaneInfo::from_record(&r, |id| server.is_caller(id)))
}

/// `move_window`: moves a window to an index of a session; its state
/// there.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`index in use`).
pub struct MoveWindowRequest {
    /// The window.
    pub window: Selector,
    /// The session to move it to (by id or exact name); `None`: its own.
    pub destination: Option<Selector>,
    /// The index there; `None`: the next free one.
    pub index: Option<u32>,
}

impl Op for MoveWindowRequest {
    type Response = WindowInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<WindowInfo, Error> {
        let window = server.window_target(&self.window).await?;
        let destination = match &self.destination {
            Some(d) => Some(server.session_target(d).await?),
            None => None,
        };
        let own_session = match &window {
            Target::WindowIndex { session, .. } => Some(session.as_ref().clone()),
            Target::Session(_) | Target::SessionName(_) => Some(window.clone()),
            _ => None,
        };
        let session = match (destination, own_session) {
            (Some(d), _) => d,
            (None, Some(s)) => s,
            (None, None) => {
                // The window's session: one more round trip.
                let (cmd, q) = window_lookup(&window, SessionIdRow::FIELDS);
                let out = server.act(vec![cmd]).await?;
                let id = SessionIdRow::from_record(&one_record(&q, &out[0], &window)?)
                    .session_id
                    .parse()
                    .map_err(|_| Error::not_found(format!("can't find {window}")))?;
                Target::Session(id)
            }
        };
        let dest = match self.index {
            Some(i) => format!("{}:{i}", session.to_arg(TargetKind::Session)),
            None => format!("{}:", session.to_arg(TargetKind::Session)),
        };
        let (id_cmd, idq) = window_lookup(&window, WindowIdRow::FIELDS);
        let mv = Command::new("move-window")
            .opt("-s", window.to_arg(TargetKind::Window))
            .opt("-t", dest);
        let (after, q) = template_cmd("list-windows", WindowInfo::FIELDS);
        let after = after.target(&session, TargetKind::Session);
        let out = server.act(vec![id_cmd, mv, after]).await?;
        let id = WindowIdRow::from_record(&one_record(&idq, &out[0], &window)?).window_id;
        q.parse(&out[2])
            .iter()
            .map(WindowInfo::from_record)
            .find(|w| w.window_id == id)
            .ok_or_else(|| {
                Error::not_found(format!("window {id} is not in {session} after the move"))
            })
    }
}

/// `swap_pane`: swaps two panes; the source pane's state (in its new
/// place).
///
/// tmux makes the pane named by `-t` the active one after a swap
/// (cmd-swap-pane.c), so the source goes as `-t`, as libtmux-mcp sends
/// it: the pane the caller names first keeps (or takes) the focus.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
pub struct SwapPaneRequest {
    /// The pane whose state is answered.
    pub source: PaneId,
    /// The pane it changes places with.
    pub target: PaneId,
}

impl Op for SwapPaneRequest {
    type Response = PaneInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<PaneInfo, Error> {
        let swap = Command::new("swap-pane")
            .opt("-s", self.target.to_string())
            .opt("-t", self.source.to_string());
        act_then_pane(server, vec![swap], &Target::Pane(self.source)).await
    }
}

/// `set_pane_title`: sets a pane's title (stored literally); its state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
pub struct SetPaneTitleRequest {
    /// The pane.
    pub pane: Selector,
    /// Its title.
    pub title: Title,
}

impl Op for SetPaneTitleRequest {
    type Response = PaneInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<PaneInfo, Error> {
        let pane = server.pane_target(&self.pane).await?;
        let set = Command::new("select-pane")
            .target(&pane, TargetKind::Pane)
            .opt("-T", escape_format(&self.title.0));
        act_then_pane(server, vec![set], &pane).await
    }
}

/// `enter_copy_mode`: puts a pane in copy mode, scrolled up `scroll_up`
/// lines; its state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
pub struct EnterCopyModeRequest {
    /// The pane.
    pub pane: Selector,
    /// Lines to scroll up (0 or `None`: none).
    pub scroll_up: Option<u32>,
}

impl EnterCopyModeRequest {
    /// The most lines `scroll_up` may ask for.
    pub const MAX_SCROLL: u32 = 1_000_000;

    /// A `scroll_up` argument, checked (0 … [`Self::MAX_SCROLL`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) out of range.
    pub fn scroll(v: Option<i64>) -> Result<Option<u32>, Error> {
        match v {
            None => Ok(None),
            Some(n) if (0..=i64::from(Self::MAX_SCROLL)).contains(&n) => Ok(Some(n as u32)),
            Some(n) => Err(Error::invalid(
                "scroll_up",
                format!("scroll_up must be between 0 and 1000000 (received {n})"),
                "a number of lines",
            )),
        }
    }
}

impl Op for EnterCopyModeRequest {
    type Response = PaneInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<PaneInfo, Error> {
        let pane = server.pane_target(&self.pane).await?;
        let mut line = vec![Command::new("copy-mode").target(&pane, TargetKind::Pane)];
        if let Some(n) = self.scroll_up.filter(|n| *n > 0) {
            line.push(
                Command::new("send-keys")
                    .target(&pane, TargetKind::Pane)
                    .arg("-X")
                    .opt("-N", n.to_string())
                    .arg("scroll-up"),
            );
        }
        act_then_pane(server, line, &pane).await
    }
}

/// `exit_copy_mode`: leaves copy mode (or any mode with commands); a pane
/// in no mode is left as it is. Its state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
pub struct ExitCopyModeRequest {
    /// The pane.
    pub pane: Selector,
}

impl Op for ExitCopyModeRequest {
    type Response = PaneInfo;

    async fn run(self, server: &Server, _: Limit) -> Result<PaneInfo, Error> {
        let pane = server.pane_target(&self.pane).await?;
        let cancel = Command::new("send-keys")
            .target(&pane, TargetKind::Pane)
            .arg("-X")
            .arg("cancel");
        let q = Query::new(PaneInfo::FIELDS);
        let line = vec![cancel, pane_lookup(&pane, &q)];
        let out = server
            .run_lines(&[line], Retry::Never)
            .await?
            .pop()
            .unwrap_or_default();
        // The cancel is the one command here that can fail for a reason
        // that is not an error: tmux's "not in a mode" (cmd-send-keys.c,
        // for a pane in no mode or in a mode without commands) means
        // there is nothing to leave. The read, then, has not run.
        let body = match out.first() {
            Some(c) if !c.ok && String::from_utf8_lossy(&c.body).contains("not in a mode") => {
                let mut read = server.act(vec![pane_lookup(&pane, &q)]).await?;
                read.pop().unwrap_or_default()
            }
            _ => bodies(out, 2)?.pop().unwrap_or_default(),
        };
        let r = one_record(&q, &body, &pane)?;
        Ok(PaneInfo::from_record(&r, |id| server.is_caller(id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{SessionId, WindowId};
    use crate::tmux::ErrorKind;

    #[test]
    fn relative_panes() {
        assert_eq!(relative_pane(&Target::Window(WindowId(3)), "+"), "@3.+");
        assert_eq!(relative_pane(&Target::Session(SessionId(1)), "-"), "$1:.-");
        assert_eq!(
            relative_pane(&Target::SessionName("w".into()), "+"),
            "=w:.+"
        );
        let wi = Target::WindowIndex {
            session: Box::new(Target::Session(SessionId(1))),
            index: 2,
        };
        assert_eq!(relative_pane(&wi, "+"), "$1:2.+");
    }

    #[test]
    fn layouts() {
        let v33 = TmuxVersion::parse("3.3a");
        let v35 = TmuxVersion::parse("3.5a");
        let v38 = TmuxVersion::parse("3.8");
        let arg = |text: &str, v: &TmuxVersion| LayoutChoice::parse(text)?.argument(v);
        for ok in ["tiled", "main-vertical", "b25d,80x24,0,0,0"] {
            assert_eq!(arg(ok, &v33).ok().as_deref(), Some(ok), "{ok}");
        }
        assert!(arg("main-vertical-mirrored", &v35).is_ok());
        let json = r#"{"V":2,"L":{"t":"p","w":80,"h":24,"x":0,"y":0,"a":true,"i":0,"I":"%0"}}"#;
        assert_eq!(arg(json, &v38).ok().as_deref(), Some(json));
        assert_eq!(arg(json, &v33).ok().as_deref(), Some("b25d,80x24,0,0,0"));
        // Each of these crashes a tmux 3.3 server (the last one 3.5a's too).
        for bad in [
            "",
            "nonsense",
            "t",
            "1,",
            "abcd,",
            "main-vertical-mirrored",
            "zzzz,1",
            "0073,80x24,0,0[80x12,0,0,0,80x11,0,13{80x11,0,13,1}]",
        ] {
            let e = arg(bad, &v33).unwrap_err();
            assert!(e.is(ErrorKind::InvalidArgument), "{bad:?}: {e:?}");
        }
    }

    #[test]
    fn sizes_and_names() {
        assert_eq!(Size::new(None, None).ok(), Some(None));
        assert!(Size::new(Some(0), None).is_err());
        assert!(Size::new(None, Some(10_001)).is_err());
        assert!(Size::new(Some(80), None).is_ok_and(|s| s.is_some()));
        assert!(Name::new("new_name", "").is_err());
        assert!(Name::new("new_name", "a\0b").is_err());
        assert!(Name::new("new_name", "#{pane_id}").is_ok());
        assert!(Title::new("").is_ok() && Title::new("\0").is_err());
        assert!(EnterCopyModeRequest::scroll(Some(-1)).is_err());
        assert_eq!(EnterCopyModeRequest::scroll(Some(0)).ok(), Some(Some(0)));
    }
}
