//! Changing sessions, windows and panes without running anything in a
//! pane: `rename_session`, `rename_window`, `select_window`,
//! `select_pane`, `move_window`, `swap_pane`, `set_pane_title`,
//! `enter_copy_mode`, `exit_copy_mode`. Layouts and sizes are
//! [`super::resize`], creating things [`super::create`], killing and
//! clearing [`super::kill`].
//!
//! Each is one round trip when its target is given by id (or by a session
//! name tmux can match exactly, see
//! [`exact_name_target`](crate::tmux::act::exact_name_target)): the
//! action and the read of its result go out as one control-mode line,
//! which tmux runs back to back and stops at the first failure, so the
//! result describes the moment right after the action and a failed action
//! reads nothing. Each answers the object's new state.
//!
//! Names and titles pass through [`escape_format`] where tmux expands
//! formats in that argument, so `#{…}`, `#S` and `#(…)` are stored as
//! text and never run.

use std::future::Future;

use schemars::JsonSchema;
use serde::Deserialize;

use super::fit::Limit;
use super::{Op, Server};
use crate::control::format::{Query, Record, escape_format};
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::tmux::act::bodies;
use crate::tmux::model::Attached;
use crate::tmux::target::{one_record, pane_lookup, template_cmd, window_lookup};
use crate::tmux::{Error, PaneInfo, Retry, Selector, SessionInfo, WindowInfo};

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

/// Where `select_window` moves in a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
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

/// An object whose state an action answers, read on the action's own
/// command line: the action (targeted already), then the read, which
/// tmux runs back to back, stopping at the first failure.
pub(super) trait Acted: Sized + Send {
    /// The read of the object `target` names: the command, and the query
    /// its record answers.
    fn lookup(target: &Target) -> (Command, Query);

    /// The object, from the read's record.
    fn from_read(server: &Server, r: &Record) -> Self;

    /// The state of the object `target` names, read right after `action`
    /// on the same line.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when
    /// the object is gone; tmux's errors for the action.
    fn act_then(
        server: &Server,
        action: Vec<Command>,
        target: &Target,
    ) -> impl Future<Output = Result<Self, Error>> + Send {
        async move {
            let (read, q) = Self::lookup(target);
            let mut line = action;
            line.push(read);
            let mut out = server.act(line).await?;
            let body = out.pop().unwrap_or_default();
            Ok(Self::from_read(server, &one_record(&q, &body, target)?))
        }
    }
}

impl Acted for PaneInfo {
    fn lookup(target: &Target) -> (Command, Query) {
        let q = Query::new(PaneInfo::FIELDS);
        (pane_lookup(target, &q), q)
    }

    fn from_read(server: &Server, r: &Record) -> Self {
        PaneInfo::from_record(r, |id| server.is_caller(id))
    }
}

impl Acted for WindowInfo {
    fn lookup(target: &Target) -> (Command, Query) {
        window_lookup(target, WindowInfo::FIELDS)
    }

    fn from_read(_: &Server, r: &Record) -> Self {
        WindowInfo::from_record(r)
    }
}

/// Writes the [`Op`] impls of requests that act on one pane or window
/// and answer its state right after the action ([`Acted::act_then`],
/// one round trip), one row each:
///
/// `Request => Answer at resolve(field): |request, target, server| commands;`
///
/// `resolve` is the [`Server`] method that turns the request's selector
/// `field` into the target (`pane_target`, `window_target`), and
/// `commands` the action's commands at it, evaluated in the request's
/// `run` (so it may `.await` and use `?`).
macro_rules! acts {
    ($($req:ident => $answer:ident at $resolve:ident($field:ident):
        |$r:ident, $t:ident, $server:ident| $commands:expr;)+) => {$(
        impl Op for $req {
            type Response = $answer;

            #[allow(unused_variables)]
            async fn run(self, $server: &Server, _: Limit) -> Result<$answer, Error> {
                let $t = $server.$resolve(&self.$field).await?;
                let $r = self;
                let action = $commands;
                <$answer as Acted>::act_then($server, action, &$t).await
            }
        }
    )+};
}
pub(super) use acts;

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

op!(RenameSessionRequest, SessionInfo, async |req, server, _| {
    let target = server.session_target(&req.session).await?;
    // The id first (the name changes), then the rename, then every
    // session's state: picked by id.
    let (id_cmd, idq) = template_cmd("list-windows", SessionIdRow::FIELDS);
    let id_cmd = id_cmd
        .target(&target, TargetKind::Session)
        .opt("-f", "#{window_active}");
    let rename = Command::new("rename-session")
        .target(&target, TargetKind::Session)
        .arg("--")
        .arg(escape_format(req.new_name.as_str()));
    let (all, q) = template_cmd("list-windows", SessionInfo::FIELDS);
    let all = all.arg("-a").opt("-f", "#{window_active}");
    let (clients, cq) = template_cmd("list-clients", Attached::FIELDS);
    let out = server.act(vec![id_cmd, rename, all, clients]).await?;
    let id = SessionIdRow::from_record(&one_record(&idq, &out[0], &target)?).session_id;
    let attached = Attached::from_records(&cq.parse(&out[3]));
    q.parse(&out[2])
        .iter()
        .map(|r| SessionInfo::from_record(r, &attached))
        .find(|s| s.session_id == id)
        .ok_or_else(|| Error::not_found(format!("session {id} is gone after the rename")))
});

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

op!(SelectWindowRequest, WindowInfo, async |req, server, _| {
    match req {
        SelectWindowRequest::Window(sel) => {
            let target = server.window_target(&sel).await?;
            let select = Command::new("select-window").target(&target, TargetKind::Window);
            WindowInfo::act_then(server, vec![select], &target).await
        }
        SelectWindowRequest::Step { session, direction } => {
            let target = server.session_target(&session).await?;
            let name = match direction {
                WindowDirection::Next => "next-window",
                WindowDirection::Previous => "previous-window",
                WindowDirection::Last => "last-window",
            };
            let step = Command::new(name).target(&target, TargetKind::Session);
            WindowInfo::act_then(server, vec![step], &target).await
        }
    }
});

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

op!(SelectPaneRequest, PaneInfo, async |req, server, _| {
    match req {
        SelectPaneRequest::Pane(sel) => {
            let pane = server.pane_target(&sel).await?;
            let select = Command::new("select-pane").target(&pane, TargetKind::Pane);
            PaneInfo::act_then(server, vec![select], &pane).await
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
            PaneInfo::act_then(server, vec![step], &window).await
        }
    }
});

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

op!(MoveWindowRequest, WindowInfo, async |req, server, _| {
    let window = server.window_target(&req.window).await?;
    let destination = match &req.destination {
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
    let dest = match req.index {
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
        .ok_or_else(|| Error::not_found(format!("window {id} is not in {session} after the move")))
});

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

op!(SwapPaneRequest, PaneInfo, async |req, server, _| {
    let swap = Command::new("swap-pane")
        .opt("-s", req.target.to_string())
        .opt("-t", req.source.to_string());
    PaneInfo::act_then(server, vec![swap], &Target::Pane(req.source)).await
});

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

op!(ExitCopyModeRequest, PaneInfo, async |req, server, _| {
    let pane = server.pane_target(&req.pane).await?;
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
});

acts! {
    RenameWindowRequest => WindowInfo at window_target(window): |r, target, server| vec![
        Command::new("rename-window").target(&target, TargetKind::Window).arg("--")
            .arg(escape_format(r.new_name.as_str())),
    ];
    SetPaneTitleRequest => PaneInfo at pane_target(pane): |r, pane, server| vec![
        Command::new("select-pane").target(&pane, TargetKind::Pane).opt("-T", escape_format(&r.title.0)),
    ];
    EnterCopyModeRequest => PaneInfo at pane_target(pane): |r, pane, server| {
        let mut line = vec![Command::new("copy-mode").target(&pane, TargetKind::Pane)];
        if let Some(n) = r.scroll_up.filter(|n| *n > 0) {
            let scroll = Command::new("send-keys").target(&pane, TargetKind::Pane).arg("-X");
            line.push(scroll.opt("-N", n.to_string()).arg("scroll-up"));
        }
        line
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{SessionId, WindowId};
    use crate::tmux::op::resize::Size;

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
