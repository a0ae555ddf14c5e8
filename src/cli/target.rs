//! `-t TARGET`: tmux's target syntax, resolved against what `list_panes`
//! lists.
//!
//! # Format
//!
//! ```text
//! %N                      a pane, by id
//! @N  @N.P                a window by id (its pane with index P)
//! $N  NAME  =NAME         a session, by id or exact name
//! S:  S:W  S:W.P          session S (a form above, empty = current),
//!                         window W (index, @N, NAME or =NAME; empty = the
//!                         session's active window), pane P (index or %N)
//! W.P  :W  :W.P  .P       the same in the current session
//! ```
//!
//! This is tmux's syntax (`cmd-find.c`) with one rule changed: session and
//! window names match exactly, never as tmux's prefix or pattern match, so
//! `-t bet` never picks session `beta`. A bare word is a session name, as
//! for tmux commands that take a session (`switch-client -t`). The
//! current session is the one a tool call without a target uses: the
//! caller's inside tmux, else the one a person used last. tmux's relative
//! tokens (`!`, `^`, `$`, `+`, `-`, `{last}`, …) are refused.
//!
//! [`TargetSpec::parse`] and [`resolve`] are pure; [`World::fetch`] makes
//! the operations they need.

use std::collections::HashMap;

use super::errors::{CliError, PANES_HINT};
use super::output::escape_field;
use crate::control::{PaneId, SessionId, WindowId};
use crate::tmux::op::info::SessionInfoRequest;
use crate::tmux::op::list::{ListPanesRequest, ListWindowsRequest};
use crate::tmux::op::{self, Limit};
use crate::tmux::{PaneInfo, Servers};

/// The session part of a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionPart {
    /// Not given (`:1`, `.1`, `1.0`): the current session.
    Current,
    /// `$N`.
    Id(SessionId),
    /// `NAME` or `=NAME`, matched exactly.
    Name(String),
}

/// The window part of a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WindowPart {
    /// `@N`.
    Id(WindowId),
    /// An index in the session.
    Index(u32),
    /// `NAME` or `=NAME`, matched exactly.
    Name(String),
}

/// The pane part of a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PanePart {
    /// `%N`.
    Id(PaneId),
    /// An index in the window.
    Index(u32),
}

/// A parsed `-t` value. A pane id alone (`%N`) or a window id (`@N`)
/// ignores the session part, which is then [`SessionPart::Current`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetSpec {
    /// The session (or the current one).
    pub session: SessionPart,
    /// The window; `None`: the whole session (or, for a pane part, its
    /// active window).
    pub window: Option<WindowPart>,
    /// The pane; `None`: the whole window or session.
    pub pane: Option<PanePart>,
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn session_part(s: &str) -> SessionPart {
    if let Ok(id) = s.parse::<SessionId>() {
        return SessionPart::Id(id);
    }
    SessionPart::Name(s.strip_prefix('=').unwrap_or(s).to_string())
}

fn window_part(s: &str) -> Result<WindowPart, String> {
    if let Ok(id) = s.parse::<WindowId>() {
        return Ok(WindowPart::Id(id));
    }
    if let Some(i) = digits(s) {
        return Ok(WindowPart::Index(i));
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        // Digits are an index, never a name, even past tmux's range.
        return Err(format!("window index {s} is out of range"));
    }
    if let Some(name) = s.strip_prefix('=') {
        return Ok(WindowPart::Name(name.to_string()));
    }
    let relative = matches!(s, "!" | "^" | "$")
        || s.starts_with('{')
        || ((s.starts_with('+') || s.starts_with('-'))
            && s[1..].bytes().all(|b| b.is_ascii_digit()));
    if relative {
        return Err(format!(
            "relative windows such as '{s}' are not supported; give a window index, @N or a name"
        ));
    }
    Ok(WindowPart::Name(s.to_string()))
}

fn pane_part(s: &str) -> Result<PanePart, String> {
    if let Ok(id) = s.parse::<PaneId>() {
        return Ok(PanePart::Id(id));
    }
    digits(s)
        .map(PanePart::Index)
        .ok_or_else(|| format!("'{s}' is not a pane: give a pane index or %N"))
}

impl TargetSpec {
    /// Parses a `-t` value (see the module docs).
    ///
    /// # Errors
    ///
    /// Why the value is not a target, in a phrase (`-t VALUE: ` goes before
    /// it).
    pub fn parse(s: &str) -> Result<TargetSpec, String> {
        if s.is_empty() {
            return Err("empty target".into());
        }
        let whole = |session| TargetSpec {
            session,
            window: None,
            pane: None,
        };
        if let Some((session, rest)) = s.split_once(':') {
            let session = if session.is_empty() {
                SessionPart::Current
            } else {
                session_part(session)
            };
            let (window, pane) = match rest.split_once('.') {
                Some((w, p)) => (w, Some(p)),
                None => (rest, None),
            };
            let window = (!window.is_empty())
                .then(|| window_part(window))
                .transpose()?;
            let pane = pane.filter(|p| !p.is_empty()).map(pane_part).transpose()?;
            return Ok(TargetSpec {
                session,
                window,
                pane,
            });
        }
        if let Some((window, pane)) = s.split_once('.') {
            let window = (!window.is_empty())
                .then(|| window_part(window))
                .transpose()?;
            return Ok(TargetSpec {
                session: SessionPart::Current,
                window,
                pane: Some(pane_part(pane)?),
            });
        }
        if let Ok(id) = s.parse::<PaneId>() {
            return Ok(TargetSpec {
                session: SessionPart::Current,
                window: None,
                pane: Some(PanePart::Id(id)),
            });
        }
        if let Ok(id) = s.parse::<WindowId>() {
            return Ok(TargetSpec {
                session: SessionPart::Current,
                window: Some(WindowPart::Id(id)),
                pane: None,
            });
        }
        Ok(whole(session_part(s)))
    }

    /// Whether resolving needs the current session.
    fn needs_current(&self) -> bool {
        self.session == SessionPart::Current
            && !matches!(self.pane, Some(PanePart::Id(_)))
            && !matches!(self.window, Some(WindowPart::Id(_)))
    }

    /// Whether resolving needs each session's active window.
    fn needs_active_window(&self) -> bool {
        self.window.is_none() && matches!(self.pane, Some(PanePart::Index(_)))
    }
}

impl TargetSpec {
    /// The target written in its long form, `SESSION:WINDOW.PANE` with
    /// each name after `=` (`:` for the current session, the window and
    /// pane parts left out when `None`): what [`TargetSpec::parse`] reads
    /// back as `self`.
    pub fn long_form(&self) -> String {
        let mut s = match &self.session {
            SessionPart::Current => String::new(),
            SessionPart::Id(id) => id.to_string(),
            SessionPart::Name(n) => format!("={n}"),
        };
        s.push(':');
        match &self.window {
            None => {}
            Some(WindowPart::Id(id)) => s.push_str(&id.to_string()),
            Some(WindowPart::Index(i)) => s.push_str(&i.to_string()),
            Some(WindowPart::Name(n)) => {
                s.push('=');
                s.push_str(n);
            }
        }
        match &self.pane {
            None => {}
            Some(PanePart::Id(id)) => s.push_str(&format!(".{id}")),
            Some(PanePart::Index(i)) => s.push_str(&format!(".{i}")),
        }
        s
    }
}

/// Fuzz entry: [`TargetSpec::parse`] on any text (read as UTF-8 with
/// U+FFFD) never panics; an error is a phrase; what it accepts reads back
/// the same from its [`TargetSpec::long_form`]; a window part of digits
/// is an index, never a name; tmux's relative windows are refused; a text
/// without `:` and `.` names a session, a window by id or a pane by id.
///
/// # Panics
///
/// When a property fails.
#[doc(hidden)]
pub fn fuzz_parse(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let spec = match TargetSpec::parse(&s) {
        Ok(spec) => spec,
        Err(e) => {
            assert!(!e.is_empty());
            return;
        }
    };
    let long = spec.long_form();
    assert_eq!(
        TargetSpec::parse(&long).as_ref(),
        Ok(&spec),
        "{s:?} read back from {long:?}"
    );
    if let Some(WindowPart::Name(n)) = &spec.window {
        let raw = s.split_once(':').map_or(&*s, |(_, w)| w);
        let raw = raw.split_once('.').map_or(raw, |(w, _)| w);
        if raw == n.as_str() {
            // Written without `=`: no index, id or relative token.
            assert!(
                !n.is_empty() && !n.bytes().all(|b| b.is_ascii_digit()),
                "{s:?}"
            );
            assert!(
                !matches!(n.as_str(), "!" | "^" | "$") && !n.starts_with('{'),
                "{s:?}"
            );
        }
    }
    if !s.contains([':', '.']) {
        let by_id = spec.window.is_some() || spec.pane.is_some();
        assert!(by_id || spec.session != SessionPart::Current, "{s:?}");
        assert!(spec.window.is_none() || spec.pane.is_none(), "{s:?}");
    }
}

/// One pane as a target resolves it: [`PaneInfo`] (where it lives, by
/// id, index and name).
pub type PaneRow = PaneInfo;

/// What a target resolves against: the panes in `list_panes` order, and,
/// when the target needs them, the current session and each session's
/// active window.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Every pane (a pane in a linked window once per session), in
    /// `list_panes` order.
    pub rows: Vec<PaneInfo>,
    /// The current session's id.
    pub current_session: Option<String>,
    /// Session id → its active window's id.
    pub active_windows: HashMap<String, String>,
}

/// How much a target names, with the id of what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Level {
    /// A whole session (its id is the scope's `session_id`).
    Session,
    /// A whole window: its id, `@N`.
    Window(String),
    /// One pane: its id, `%N`.
    Pane(String),
}

/// A resolved target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// What the target names.
    pub level: Level,
    /// The session (`$N`): the one named, or the first that holds the
    /// window or pane named.
    pub session_id: String,
    /// The rows of [`World::rows`] in scope, in order.
    pub rows: Vec<usize>,
}

impl Scope {
    /// The object this scope names, as an operation's request takes it
    /// (the ids it holds; one that does not parse is left out).
    pub fn selector(&self) -> crate::tmux::Selector {
        let mut sel = crate::tmux::Selector::default();
        match &self.level {
            Level::Pane(p) => sel.pane_id = p.parse().ok(),
            Level::Window(w) => sel.window_id = w.parse().ok(),
            Level::Session => sel.session_id = self.session_id.parse().ok(),
        }
        sel
    }

    /// The id of what the scope names: `%N`, `@N` or `$N`.
    pub fn id(&self) -> &str {
        match &self.level {
            Level::Pane(id) | Level::Window(id) => id,
            Level::Session => &self.session_id,
        }
    }
}

/// Resolves `spec` in `world`.
///
/// # Errors
///
/// What is missing (`no such session`, `no such window`, `no such pane`),
/// or an ambiguous window name, as a phrase.
pub fn resolve(spec: &TargetSpec, world: &World) -> Result<Scope, String> {
    resolve_inner(spec, world).map_err(|missing| {
        let named = if spec.pane.is_some() {
            "pane"
        } else if spec.window.is_some() {
            "window"
        } else {
            "session"
        };
        match missing {
            Missing::Ambiguous => {
                "more than one window has that name; give its index or @N".to_string()
            }
            Missing::Current => "there is no current session".to_string(),
            Missing::What(what) if what == named => format!("no such {what}"),
            Missing::What(what) => format!("no such {named} (no such {what})"),
        }
    })
}

/// Why a target did not resolve.
enum Missing {
    /// No such session, window or pane.
    What(&'static str),
    /// No current session.
    Current,
    /// A window name that several windows have.
    Ambiguous,
}

fn resolve_inner(spec: &TargetSpec, world: &World) -> Result<Scope, Missing> {
    let rows = &world.rows;
    let all = || 0..rows.len();
    if let Some(PanePart::Id(p)) = &spec.pane
        && spec.window.is_none()
        && spec.session == SessionPart::Current
    {
        let id = p.to_string();
        let i = all()
            .find(|&i| rows[i].pane_id == id)
            .ok_or(Missing::What("pane"))?;
        return Ok(Scope {
            level: Level::Pane(id),
            session_id: rows[i].session_id.clone(),
            rows: vec![i],
        });
    }
    // The session: named, or the one holding the window id, or current.
    let session_id = match (&spec.session, &spec.window) {
        (SessionPart::Id(id), _) => {
            let id = id.to_string();
            all()
                .find(|&i| rows[i].session_id == id)
                .map(|i| rows[i].session_id.clone())
                .ok_or(Missing::What("session"))?
        }
        (SessionPart::Name(name), _) => all()
            .find(|&i| rows[i].session_name == *name)
            .map(|i| rows[i].session_id.clone())
            .ok_or(Missing::What("session"))?,
        (SessionPart::Current, Some(WindowPart::Id(w))) => {
            let w = w.to_string();
            all()
                .find(|&i| rows[i].window_id == w)
                .map(|i| rows[i].session_id.clone())
                .ok_or(Missing::What("window"))?
        }
        (SessionPart::Current, _) => world.current_session.clone().ok_or(Missing::Current)?,
    };
    let in_session: Vec<usize> = all()
        .filter(|&i| rows[i].session_id == session_id)
        .collect();
    let Some(window) = &spec.window else {
        let Some(pane) = &spec.pane else {
            return Ok(Scope {
                level: Level::Session,
                session_id,
                rows: in_session,
            });
        };
        let window_id = world
            .active_windows
            .get(&session_id)
            .cloned()
            .ok_or(Missing::What("window"))?;
        return pane_in(session_id, window_id, pane, rows, &in_session);
    };
    let window_ids: Vec<&str> = {
        let mut ids: Vec<&str> = Vec::new();
        for &i in &in_session {
            let r = &rows[i];
            let hit = match window {
                WindowPart::Id(w) => r.window_id == w.to_string(),
                WindowPart::Index(x) => r.window_index == x.to_string(),
                WindowPart::Name(n) => r.window_name == *n,
            };
            if hit && !ids.contains(&r.window_id.as_str()) {
                ids.push(&r.window_id);
            }
        }
        ids
    };
    let window_id = match window_ids[..] {
        [] => return Err(Missing::What("window")),
        [one] => one.to_string(),
        _ => return Err(Missing::Ambiguous),
    };
    match &spec.pane {
        None => Ok(Scope {
            rows: in_session
                .into_iter()
                .filter(|&i| rows[i].window_id == window_id)
                .collect(),
            level: Level::Window(window_id),
            session_id,
        }),
        Some(pane) => pane_in(session_id, window_id, pane, rows, &in_session),
    }
}

/// The pane `pane` of window `window_id` in a session's rows.
fn pane_in(
    session_id: String,
    window_id: String,
    pane: &PanePart,
    rows: &[PaneRow],
    in_session: &[usize],
) -> Result<Scope, Missing> {
    let i = in_session
        .iter()
        .copied()
        .find(|&i| {
            let r = &rows[i];
            r.window_id == window_id
                && match pane {
                    PanePart::Id(p) => r.pane_id == p.to_string(),
                    PanePart::Index(x) => r.pane_index == x.to_string(),
                }
        })
        .ok_or(Missing::What("pane"))?;
    Ok(Scope {
        level: Level::Pane(rows[i].pane_id.clone()),
        session_id,
        rows: vec![i],
    })
}

impl World {
    /// Lists every pane and, when `spec` needs them, the current session
    /// and the sessions' active windows.
    ///
    /// # Errors
    ///
    /// The operations' errors, in CLI words.
    pub async fn fetch(servers: &Servers, spec: Option<&TargetSpec>) -> Result<World, CliError> {
        let server = servers.default_server();
        let panes = op::run(server, ListPanesRequest::default(), Limit::NONE).await?;
        let mut world = World {
            rows: panes.result,
            ..World::default()
        };
        let Some(spec) = spec else {
            return Ok(world);
        };
        if spec.needs_current() {
            match op::run(server, SessionInfoRequest::default(), Limit::NONE).await {
                Ok(s) => world.current_session = Some(s.session_id),
                // No sessions: resolving says so.
                Err(_) if world.rows.is_empty() => {}
                Err(e) => return Err(e.into()),
            }
        }
        if spec.needs_active_window() {
            let windows = op::run(server, ListWindowsRequest::default(), Limit::NONE).await?;
            for w in windows.result {
                if w.window_active == "1" {
                    world.active_windows.insert(w.session_id, w.window_id);
                }
            }
        }
        Ok(world)
    }
}

/// The error for `-t VALUE` and a reason.
pub fn target_error(value: &str, reason: &str) -> CliError {
    let message = if value.is_empty() {
        format!("-t: {reason}")
    } else {
        format!("-t {}: {reason}", escape_field(value))
    };
    CliError::new(message).hint(PANES_HINT)
}

/// The panes `-t VALUE` names (every pane without one): the world
/// they were read from and their rows in it, in `tmuxwire panes` order.
///
/// # Errors
///
/// As [`resolve_arg`].
pub async fn panes_in(
    servers: &Servers,
    value: Option<&str>,
) -> Result<(World, Vec<usize>), CliError> {
    Ok(match value {
        Some(t) => {
            let (world, scope) = resolve_arg(servers, t).await?;
            (world, scope.rows)
        }
        None => {
            let world = World::fetch(servers, None).await?;
            let all = (0..world.rows.len()).collect();
            (world, all)
        }
    })
}

/// Parses and resolves `-t VALUE`: the world it was resolved in and the
/// scope.
///
/// # Errors
///
/// `-t VALUE: no such pane` and the like, or a tool's error.
pub async fn resolve_arg(servers: &Servers, value: &str) -> Result<(World, Scope), CliError> {
    let spec = TargetSpec::parse(value).map_err(|r| target_error(value, &r))?;
    let world = World::fetch(servers, Some(&spec)).await?;
    let scope = resolve(&spec, &world).map_err(|r| target_error(value, &r))?;
    Ok((world, scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> TargetSpec {
        TargetSpec::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn spec(
        session: SessionPart,
        window: Option<WindowPart>,
        pane: Option<PanePart>,
    ) -> TargetSpec {
        TargetSpec {
            session,
            window,
            pane,
        }
    }

    fn name(s: &str) -> SessionPart {
        SessionPart::Name(s.into())
    }

    use PanePart as P;
    use SessionPart as S;
    use WindowPart as W;

    #[test]
    fn parse_forms() {
        assert_eq!(p("%3"), spec(S::Current, None, Some(P::Id(PaneId(3)))));
        assert_eq!(p("@2"), spec(S::Current, Some(W::Id(WindowId(2))), None));
        assert_eq!(p("$1"), spec(S::Id(SessionId(1)), None, None));
        assert_eq!(p("work"), spec(name("work"), None, None));
        assert_eq!(p("=work"), spec(name("work"), None, None));
        assert_eq!(
            p("0"),
            spec(name("0"), None, None),
            "a bare number is a session"
        );
        assert_eq!(p("work:"), spec(name("work"), None, None));
        assert_eq!(p("=work:"), spec(name("work"), None, None));
        assert_eq!(p("work:1"), spec(name("work"), Some(W::Index(1)), None));
        assert_eq!(
            p("work:1.2"),
            spec(name("work"), Some(W::Index(1)), Some(P::Index(2)))
        );
        assert_eq!(
            p("$4:@5.%6"),
            spec(
                S::Id(SessionId(4)),
                Some(W::Id(WindowId(5))),
                Some(P::Id(PaneId(6)))
            )
        );
        assert_eq!(
            p("work:logs"),
            spec(name("work"), Some(W::Name("logs".into())), None)
        );
        assert_eq!(
            p("work:=2"),
            spec(name("work"), Some(W::Name("2".into())), None)
        );
        assert_eq!(p(":1"), spec(S::Current, Some(W::Index(1)), None));
        assert_eq!(
            p(":1.0"),
            spec(S::Current, Some(W::Index(1)), Some(P::Index(0)))
        );
        assert_eq!(
            p("1.0"),
            spec(S::Current, Some(W::Index(1)), Some(P::Index(0)))
        );
        assert_eq!(p(".1"), spec(S::Current, None, Some(P::Index(1))));
        assert_eq!(p(":.1"), spec(S::Current, None, Some(P::Index(1))));
        assert_eq!(
            p("@7.1"),
            spec(S::Current, Some(W::Id(WindowId(7))), Some(P::Index(1)))
        );
        assert_eq!(p("work:1."), spec(name("work"), Some(W::Index(1)), None));
        // Sigils without digits are names.
        assert_eq!(p("%x"), spec(name("%x"), None, None));
        assert_eq!(p("$x"), spec(name("$x"), None, None));
    }

    #[test]
    fn parse_errors() {
        for bad in [
            "",
            "work:+",
            "work:-1",
            "work:!",
            "work:{last}",
            "work:$",
            "work:1.x",
            ".x",
            "work:99999999999",
        ] {
            assert!(TargetSpec::parse(bad).is_err(), "{bad:?}");
        }
    }

    fn row(pane: u32, pi: u32, win: u32, wi: u32, wname: &str, sess: u32, sname: &str) -> PaneRow {
        PaneRow {
            pane_id: format!("%{pane}"),
            pane_index: pi.to_string(),
            window_id: format!("@{win}"),
            window_index: wi.to_string(),
            window_name: wname.into(),
            session_id: format!("${sess}"),
            session_name: sname.into(),
            ..PaneRow::default()
        }
    }

    /// work ($0): window 0 @0 (editor) %0; window 1 @1 (logs) %1 %2;
    /// window 2 @2 (logs) %3. beta ($1): window 0 @3 %4, and @1 linked as
    /// window 5.
    fn world() -> World {
        World {
            rows: vec![
                row(0, 0, 0, 0, "editor", 0, "work"),
                row(1, 0, 1, 1, "logs", 0, "work"),
                row(2, 1, 1, 1, "logs", 0, "work"),
                row(3, 0, 2, 2, "logs", 0, "work"),
                row(4, 0, 3, 0, "sh", 1, "beta"),
                row(1, 0, 1, 5, "logs", 1, "beta"),
                row(2, 1, 1, 5, "logs", 1, "beta"),
            ],
            current_session: Some("$1".into()),
            active_windows: [("$0".into(), "@1".into()), ("$1".into(), "@3".into())].into(),
        }
    }

    fn r(s: &str) -> Result<(Level, String, Vec<usize>), String> {
        resolve(&p(s), &world()).map(|sc| (sc.level, sc.session_id, sc.rows))
    }

    #[test]
    fn resolving() {
        use Level::*;
        let pane = |id: &str| Pane(id.into());
        let window = |id: &str| Window(id.into());
        assert_eq!(r("%2"), Ok((pane("%2"), "$0".into(), vec![2])));
        assert_eq!(r("%4"), Ok((pane("%4"), "$1".into(), vec![4])));
        assert_eq!(r("@1"), Ok((window("@1"), "$0".into(), vec![1, 2])));
        assert_eq!(r("@1.1"), Ok((pane("%2"), "$0".into(), vec![2])));
        assert_eq!(r("$1"), Ok((Session, "$1".into(), vec![4, 5, 6])));
        assert_eq!(r("work"), Ok((Session, "$0".into(), vec![0, 1, 2, 3])));
        assert_eq!(r("=beta:"), Ok((Session, "$1".into(), vec![4, 5, 6])));
        assert_eq!(r("work:1"), Ok((window("@1"), "$0".into(), vec![1, 2])));
        assert_eq!(r("work:1.1"), Ok((pane("%2"), "$0".into(), vec![2])));
        assert_eq!(r("work:editor"), Ok((window("@0"), "$0".into(), vec![0])));
        assert_eq!(r("beta:5.0"), Ok((pane("%1"), "$1".into(), vec![5])));
        assert_eq!(r("beta:@1"), Ok((window("@1"), "$1".into(), vec![5, 6])));
        // Current session (beta) and its active window (@3).
        assert_eq!(r(":0"), Ok((window("@3"), "$1".into(), vec![4])));
        assert_eq!(r("5.1"), Ok((pane("%2"), "$1".into(), vec![6])));
        assert_eq!(r(".0"), Ok((pane("%4"), "$1".into(), vec![4])));
        assert_eq!(r("work:.1"), Ok((pane("%2"), "$0".into(), vec![2])));
        let sc = resolve(&p("work:1"), &world()).unwrap();
        let w = world();
        let ids: Vec<&str> = sc
            .rows
            .iter()
            .map(|&i| w.rows[i].pane_id.as_str())
            .collect();
        assert_eq!(ids, ["%1", "%2"]);
        assert_eq!(sc.level, Level::Window("@1".into()));
    }

    #[test]
    fn misses() {
        for (t, want, why) in [
            ("%9", "no such pane", ""),
            ("@9", "no such window", ""),
            ("$9", "no such session", ""),
            ("wor", "no such session", "never a prefix match"),
            ("work:9", "no such window", ""),
            ("work:9.9", "no such pane (no such window)", ""),
            ("nope:1.0", "no such pane (no such session)", ""),
            ("nope:1", "no such window (no such session)", ""),
            ("work:1.9", "no such pane", ""),
            ("beta:@2", "no such window", "@2 is not in beta"),
        ] {
            assert_eq!(r(t).unwrap_err(), want, "{t} {why}");
        }
        assert!(r("work:logs").unwrap_err().contains("more than one window"));
        assert!(r("work:edit").is_err(), "never a prefix match");
        let mut empty = world();
        empty.current_session = None;
        assert!(resolve(&p(":1"), &empty).is_err());
    }

    #[test]
    fn error_wording() {
        let e = target_error("work:9.9", "no such window");
        assert_eq!(e.message, "-t work:9.9: no such window");
        assert!(e.hint.unwrap().contains("tmuxwire panes"));
        let e = target_error("a\nb", "no such session");
        assert_eq!(e.message, "-t a\\nb: no such session");
    }
}
