//! Target resolution: which tmux object a call names ([`Selector`],
//! [`PaneScope`]) and the lookups every family builds on (`list-*`
//! filtered to one object, `-F` templates, the one record an answer must
//! hold).

use super::error::{Error, ErrorKind, Subject};
use super::server::Server;
use crate::control::format::{Query, Record};
use crate::control::said::Said;
use crate::control::{Command, PaneId, SessionId, Target, TargetKind, WindowId};

/// Which object a tool call names: the union of libtmux-mcp's targeting
/// arguments. The most specific one given wins (pane, then window, then
/// session); with none, the active pane of the active window of the
/// default session (see [`Server::default_session`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    /// `%N`.
    pub pane_id: Option<PaneId>,
    /// `@N`.
    pub window_id: Option<WindowId>,
    /// A window index within the selected session.
    pub window_index: Option<u32>,
    /// `$N`.
    pub session_id: Option<SessionId>,
    /// An exact session name.
    pub session_name: Option<String>,
}

/// Which panes a listing covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaneScope {
    /// Every pane of every session.
    All,
    /// The panes of one session.
    Session(Target),
    /// The panes of one window.
    Window(Target),
}

/// `name -F <template>` for `fields`, and the query that parses its answer.
pub(crate) fn template_cmd(name: &str, fields: &[&str]) -> (Command, Query) {
    let q = Query::new(fields);
    (
        Command::new(name).opt("-F", q.template()).frame(q.frame()),
        q,
    )
}

/// The `list-panes` command that prints `format` for exactly one pane:
/// the pane itself for a pane id, else the active pane of the window (or
/// of the session's current window).
///
/// Not `display-message -t`: that command lets a missing target pass
/// silently (`CMD_FIND_CANFAIL`) and prints an empty expansion; it also
/// runs its template through `strftime()`. `list-panes -t` fails with
/// "can't find pane" and prints `%` literally.
pub(crate) fn pane_lookup(target: &Target, q: &Query) -> Command {
    let filter = match target {
        // Ids are validated digits: safe inside a format.
        Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
        _ => "#{pane_active}".to_string(),
    };
    Command::new("list-panes")
        .target(target, TargetKind::Window)
        .opt("-f", filter)
        .opt("-F", q.template())
        .frame(q.frame())
}

/// The `list-windows` command that prints `fields` for exactly one window:
/// a window by id or index, else the session's current window.
pub(crate) fn window_lookup(target: &Target, fields: &[&str]) -> (Command, Query) {
    let (session, filter) = match target {
        Target::Window(w) => (target.clone(), format!("#{{==:#{{window_id}},{w}}}")),
        Target::WindowIndex { session, index } => (
            session.as_ref().clone(),
            format!("#{{==:#{{window_index}},{index}}}"),
        ),
        _ => (target.clone(), "#{window_active}".to_string()),
    };
    let (cmd, q) = template_cmd("list-windows", fields);
    (
        cmd.target(&session, TargetKind::Session).opt("-f", filter),
        q,
    )
}

/// The one record `body` must hold, or [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
pub(crate) fn one_record(q: &Query, body: &[u8], target: &Target) -> Result<Record, Error> {
    q.parse(body).into_iter().next().ok_or_else(|| {
        Error::not_found(format!("can't find {target}")).about(Subject::of_target(target))
    })
}

/// Errors that mean "there is nothing to list" on a server without
/// sessions (`list-panes -a` there says "no current target").
pub(crate) fn is_empty_server(e: &Error) -> bool {
    e.is(ErrorKind::NotFound)
        && matches!(
            crate::control::said::said(e.detail()),
            Said::NoCurrent | Said::NoSessions
        )
}

/// How a session given by name goes into a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SessionNaming {
    /// As the id of the session with that exact name, looked up
    /// ([`Server::session_id_by_name`], a round trip): the reads'
    /// `resolve_*`.
    Id,
    /// As `=name` where tmux matches exactly that session
    /// ([`exact_name_target`](super::act::exact_name_target); no round
    /// trip), else looked up as [`SessionNaming::Id`]: the actions'
    /// `*_target` ([`super::act`]).
    ExactName,
}

/// Writes `Server` methods that name a target for a [`Selector`], one row
/// each (its doc, its name, the level's `*_named` and the
/// [`SessionNaming`]): `resolve_pane` … here, `pane_target` … in
/// [`super::act`].
macro_rules! targets {
    ($( $(#[$doc:meta])* $name:ident = $named:ident($naming:ident); )*) => {
        $(
            $(#[$doc])*
            pub(crate) async fn $name(&self, sel: &Selector) -> Result<Target, Error> {
                self.$named(sel, SessionNaming::$naming).await
            }
        )*
    };
}
pub(super) use targets;

impl Server {
    targets! {
        /// The target a pane-level command should use for `sel`.
        ///
        /// # Errors
        ///
        /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when nothing is named and the server has no
        /// sessions.
        resolve_pane = pane_named(Id);
        /// The target a window-level command should use for `sel`.
        ///
        /// # Errors
        ///
        /// As [`Server::resolve_pane`].
        resolve_window = window_named(Id);
        /// The session `sel` names, or the default session.
        ///
        /// # Errors
        ///
        /// As [`Server::resolve_pane`].
        resolve_session = session_named(Id);
    }

    /// The pane `sel` names: its id; else, with no target, the caller's
    /// own pane inside tmux; else the window `sel` names
    /// ([`Server::window_named`]), whose active pane a command takes.
    ///
    /// # Errors
    ///
    /// As [`Server::session_named`].
    pub(super) async fn pane_named(
        &self,
        sel: &Selector,
        naming: SessionNaming,
    ) -> Result<Target, Error> {
        if let Some(p) = sel.pane_id {
            return Ok(Target::Pane(p));
        }
        if *sel == Selector::default()
            && let Some(p) = self.caller_pane()
        {
            // Run from inside tmux: the caller's own pane, as tmux does.
            return Ok(Target::Pane(p));
        }
        self.window_named(sel, naming).await
    }

    /// The window `sel` names: its id; else its index in the session
    /// named ([`Server::session_named`]); else that session, whose current
    /// window a command takes.
    ///
    /// # Errors
    ///
    /// As [`Server::session_named`].
    pub(super) async fn window_named(
        &self,
        sel: &Selector,
        naming: SessionNaming,
    ) -> Result<Target, Error> {
        if let Some(w) = sel.window_id {
            return Ok(Target::Window(w));
        }
        let session = self.session_named(sel, naming).await?;
        Ok(match sel.window_index {
            Some(index) => Target::WindowIndex {
                session: Box::new(session),
                index,
            },
            None => session,
        })
    }

    /// The session `sel` names (its id, or its name as `naming` says), or
    /// the default session.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing session (looked up names) or no
    /// sessions at all.
    pub(super) async fn session_named(
        &self,
        sel: &Selector,
        naming: SessionNaming,
    ) -> Result<Target, Error> {
        if let Some(s) = sel.session_id {
            return Ok(Target::Session(s));
        }
        if let Some(n) = &sel.session_name {
            if naming == SessionNaming::ExactName && super::act::exact_name_target(n) {
                return Ok(Target::SessionName(n.clone()));
            }
            return Ok(Target::Session(self.session_id_by_name(n).await?));
        }
        Ok(Target::Session(self.default_session().await?))
    }

    /// The id of the session named exactly `name`.
    ///
    /// Matched here rather than with tmux's `-t =name`, because a name can
    /// contain what tmux's target syntax gives meaning to (`:`, `.`, a
    /// leading `$`, `@` or `%`) on versions that allow it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when no session has that name.
    pub(crate) async fn session_id_by_name(&self, name: &str) -> Result<SessionId, Error> {
        crate::record! {
            struct SessionName {
                id: String = "session_id",
                name: String = "session_name",
            }
        }
        let (cmd, q) = template_cmd("list-sessions", SessionName::FIELDS);
        let recs = match self.records(&cmd, &q).await {
            Err(e) if is_empty_server(&e) => Vec::new(),
            other => other?,
        };
        recs.iter()
            .map(SessionName::from_record)
            .filter(|s| s.name == name)
            .find_map(|s| s.id.parse().ok())
            .ok_or_else(|| {
                let name = super::error::shorten(name, super::error::MAX_MESSAGE_CHARS);
                Error::not_found(format!("can't find session: {name}"))
                    .about(Subject::Session(name.to_string()))
            })
    }
}

/// Server facts. A socket with no server behind it is reported as
/// `is_alive: false`, not as an error, and no server is started.
///
/// # Errors
///
/// Other connection errors.
pub async fn server_info(server: &Server) -> Result<crate::tmux::ServerInfo, Error> {
    // A remote server's path is the host's (what socket_path takes on that
    // host); the result names the host apart.
    let path = match server.endpoint().remote().map(|r| r.socket()) {
        Some(crate::wire::ssh::RemoteSocket::Path(p)) => Some(p.clone()),
        Some(_) => None,
        None => Some(server.socket_path().display().to_string()),
    };
    let name = server.socket_name().map(str::to_string);
    let dead = || crate::tmux::ServerInfo {
        is_alive: false,
        socket_name: name.clone(),
        socket_path: path.clone(),
        session_count: 0,
        version: None,
        pid: None,
        imsg_framing: None,
    };
    let cmds = [
        Command::new("list-sessions").opt("-F", "#{session_id}"),
        Command::new("display-message").arg("-p").arg("#{pid}"),
    ];
    let [sessions, pid] = match server.run_each(&cmds).await {
        Ok(o) => o,
        Err(e) if e.is(ErrorKind::NoServer) => return Ok(dead()),
        Err(e) => return Err(e),
    };
    let sessions = sessions.into_result()?;
    let count = crate::term::split_lines(&sessions)
        .filter(|l| !l.is_empty())
        .count() as i64;
    let pid = pid.text().trim().parse().ok();
    let version = server.version().await?;
    // A remote tmux binary does the handshake: no framing of tmuxwire's.
    let framing = match server.endpoint().remote() {
        Some(_) => None,
        None => server.framing().await,
    };
    let framing = framing.map(|f| match f {
        crate::wire::Framing::Old => "old".to_string(),
        crate::wire::Framing::New => "new".to_string(),
    });
    Ok(crate::tmux::ServerInfo {
        is_alive: true,
        socket_name: name,
        socket_path: path,
        session_count: count,
        version: Some(version.to_string()),
        pid,
        imsg_framing: framing,
    })
}

/// A `list-panes` command narrowed to the panes in `scope`: `-a`, `-s -t
/// <session>` or `-t <window>`.
pub(crate) fn panes_in(list_panes: Command, scope: &PaneScope) -> Command {
    match scope {
        PaneScope::All => list_panes.arg("-a"),
        // list-panes -t takes a window even with -s: a session name needs "=name:".
        PaneScope::Session(t) => list_panes.arg("-s").target(t, TargetKind::Window),
        PaneScope::Window(t) => list_panes.target(t, TargetKind::Window),
    }
}

/// Raw records of `fields` for the panes in `scope`.
///
/// # Errors
///
/// Connection errors; [`ErrorKind::NotFound`] for a missing target.
pub(crate) async fn pane_records(
    server: &Server,
    scope: &PaneScope,
    fields: &[&str],
) -> Result<Vec<Record>, Error> {
    let (cmd, q) = template_cmd("list-panes", fields);
    match server.records(&panes_in(cmd, scope), &q).await {
        Err(e) if *scope == PaneScope::All && is_empty_server(&e) => Ok(Vec::new()),
        other => other,
    }
}

/// One pane (for a session or window target: the active pane).
///
/// # Errors
///
/// [`ErrorKind::NotFound`] when it does not exist.
pub async fn pane_info(server: &Server, target: &Target) -> Result<crate::tmux::PaneInfo, Error> {
    let q = Query::new(crate::tmux::PaneInfo::FIELDS);
    let body = server.run(&pane_lookup(target, &q)).await?.into_result()?;
    let r = one_record(&q, &body, target)?;
    Ok(crate::tmux::PaneInfo::from_record(&r, |id| {
        server.is_caller(id)
    }))
}
