//! Layouts and sizes: `select_layout`, `resize_window`, `resize_pane`
//! (zoom included), with the sizes in cells and the layout choices they
//! take, each one round trip as [`super::manage`] describes.

use super::fit::Limit;
use super::manage::{act_then_pane, act_then_window};
use super::{Op, Server};
use crate::control::format::Query;
use crate::control::{Command, Line, Target, TargetKind};
use crate::tmux::act::bodies;
use crate::tmux::error::shorten;
use crate::tmux::layout::Layout;
use crate::tmux::target::{one_record, pane_lookup};
use crate::tmux::{Error, PaneInfo, Retry, Selector, WindowInfo};
use crate::wire::TmuxVersion;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tmux::ErrorKind;

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
        for bad in crate::tmux::layout::MALFORMED.into_iter().chain([
            "main-vertical-mirrored",
            "0073,80x24,0,0[80x12,0,0,0,80x11,0,13{80x11,0,13,1}]",
        ]) {
            let e = arg(bad, &v33).unwrap_err();
            assert!(e.is(ErrorKind::InvalidArgument), "{bad:?}: {e:?}");
        }
    }
}
