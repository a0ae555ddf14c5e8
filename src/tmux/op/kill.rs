//! Killing servers, sessions, windows and panes, and clearing a pane:
//! `kill_server`, `kill_session`, `kill_window`, `kill_pane`,
//! `clear_pane`.
//!
//! The kills (and `respawn_pane`, [`super::create`]) refuse the server,
//! session, window or pane that runs tmuxwire (the caller, from `$TMUX`
//! and `$TMUX_PANE`, the socket compared by its real path:
//! [`Caller`](crate::tmux::Caller)), and take exact targets: ids, or a
//! session name matched exactly, never by tmux's prefix (public case C15:
//! killing session `build` must not kill `build-x`).

use super::Server;
use crate::control::{Command, PaneId, Target, TargetKind, WindowId};
use crate::tmux::act::{PaneIdRow, pane_id_read};
use crate::tmux::target::{one_record, template_cmd};
use crate::tmux::{Error, ErrorKind, Selector};

/// Refuses `what` (a verb: `kill`, `respawn`) on the caller's own pane.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`] for that pane.
pub(super) fn guard_pane(server: &Server, pane: PaneId, what: &str) -> Result<(), Error> {
    if server.caller().guarded_pane(server.canonical_socket()) == Some(pane) {
        return Err(Error::self_target(format!(
            "Refusing to {what} the pane running this MCP server ({pane})."
        )));
    }
    Ok(())
}

/// Refuses to kill the session or window (`scope`, a `what`) that holds
/// the caller's pane: a round trip, only when tmuxwire runs in a pane of
/// this server.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`] for that scope; tmux's errors reading it.
async fn guard_scope(server: &Server, scope: &Target, what: &str) -> Result<(), Error> {
    let Some(own) = server.caller().guarded_pane(server.canonical_socket()) else {
        return Ok(());
    };
    let (cmd, q) = template_cmd("list-panes", PaneIdRow::FIELDS);
    let cmd = match scope {
        Target::Session(_) | Target::SessionName(_) => {
            cmd.arg("-s").target(scope, TargetKind::Window)
        }
        _ => cmd.target(scope, TargetKind::Window),
    };
    let out = server.act(vec![cmd]).await?;
    let holds_own = q
        .parse(&out[0])
        .iter()
        .map(PaneIdRow::from_record)
        .any(|p| p.pane_id.parse::<PaneId>().ok() == Some(own));
    if holds_own {
        return Err(Error::self_target(format!(
            "Refusing to kill the {what} containing this MCP server's pane ({own})."
        )));
    }
    Ok(())
}

/// What a kill removed; the caller says it in its own words (MCP:
/// libtmux-mcp's `Pane killed: %3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Killed {
    /// The server.
    Server,
    /// A session: its name, or its id when the name is not known.
    Session(String),
    /// A window.
    Window(WindowId),
    /// A pane.
    Pane(PaneId),
}

/// The pane `clear_pane` reset and cleared (`%N`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cleared {
    /// The pane's id.
    pub pane_id: String,
}

crate::fits_whole!(Killed, Cleared);

/// `kill_server`: kills the server. Its connection ends with it; that is
/// the expected answer. Refused when tmuxwire may run inside it.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`]; [`ErrorKind::NoServer`] when none runs;
/// [`ErrorKind::Tmux`] when it still runs afterwards.
#[derive(Default)]
pub struct KillServerRequest;

op!(KillServerRequest, Killed, async |_, server, _| {
    if server
        .caller()
        .may_run_on(server.canonical_socket(), server.socket_name())
    {
        return Err(Error::self_target(
            "Refusing to kill the tmux server while this MCP server is running inside it. \
             Use a manual tmux command if intended.",
        ));
    }
    match server.act(vec![Command::new("kill-server")]).await {
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::Connection | ErrorKind::NoServer | ErrorKind::SocketGone
            ) =>
        {
            // Gone, as asked, unless it still answers.
            if let Ok(i) = super::info::server_info(server).await
                && i.is_alive
            {
                return Err(Error::tmux("the tmux server still runs after kill-server"));
            }
        }
        Err(e) => return Err(e),
    }
    Ok(Killed::Server)
});

crate::record! {
    /// What names a session.
    struct SessionRow {
        session_id: String = "session_id",
        session_name: String = "session_name",
    }
}

/// `kill_session`: kills a session named by id or exact name (never the
/// default session: the request needs a session). Refused for the
/// session holding the caller's pane.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`]; [`ErrorKind::NotFound`] (an exact name
/// only: never tmux's prefix match).
pub struct KillSessionRequest {
    session: Selector,
}

impl KillSessionRequest {
    /// A kill of the session `session` names.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] when it names no session
    /// (`session_id` and `session_name` both unset).
    pub fn new(session: Selector) -> Result<KillSessionRequest, Error> {
        if session.session_id.is_none() && session.session_name.is_none() {
            return Err(Error::invalid(
                "session_name",
                "Refusing to kill without an explicit target. Provide session_name or \
                 session_id.",
                "session_name (exact) or session_id",
            ));
        }
        Ok(KillSessionRequest { session })
    }
}

op!(KillSessionRequest, Killed, async |req, server, _| {
    let session = server.session_target(&req.session).await?;
    guard_scope(server, &session, "session").await?;
    let (read, q) = template_cmd("list-windows", SessionRow::FIELDS);
    let read = read
        .target(&session, TargetKind::Session)
        .opt("-f", "#{window_active}");
    let kill = Command::new("kill-session").target(&session, TargetKind::Session);
    let (id, name) = match server.act(vec![read.clone(), kill]).await {
        Ok(out) => {
            let r = SessionRow::from_record(&one_record(&q, &out[0], &session)?);
            (r.session_id, r.session_name)
        }
        // Killing the session tmuxwire's control client is attached to
        // can end that connection before the answer arrives: gone is
        // success.
        Err(e) if e.is(ErrorKind::Connection) => match server.act(vec![read]).await {
            Err(gone) if gone.is(ErrorKind::NotFound) => match &session {
                Target::SessionName(n) => (String::new(), n.clone()),
                other => (other.to_string(), String::new()),
            },
            Ok(_) => return Err(e),
            Err(other) => return Err(other),
        },
        Err(e) => return Err(e),
    };
    let shown = if name.is_empty() { id } else { name };
    Ok(Killed::Session(shown))
});

/// `kill_window`: kills a window. Refused for the window holding the
/// caller's pane.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`]; [`ErrorKind::NotFound`].
pub struct KillWindowRequest {
    /// The window.
    pub window: WindowId,
}

op!(KillWindowRequest, Killed, async |req, server, _| {
    let t = Target::Window(req.window);
    guard_scope(server, &t, "window").await?;
    let kill = Command::new("kill-window").target(&t, TargetKind::Window);
    kill_checked(server, kill, &t).await?;
    Ok(Killed::Window(req.window))
});

/// `kill_pane`: kills a pane. Refused for the caller's own pane.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`]; [`ErrorKind::NotFound`].
pub struct KillPaneRequest {
    /// The pane.
    pub pane: PaneId,
}

op!(KillPaneRequest, Killed, async |req, server, _| {
    guard_pane(server, req.pane, "kill")?;
    let t = Target::Pane(req.pane);
    let kill = Command::new("kill-pane").target(&t, TargetKind::Pane);
    kill_checked(server, kill, &t).await?;
    Ok(Killed::Pane(req.pane))
});

/// Runs a kill of `target`; a connection that ended meanwhile (the last
/// window of tmuxwire's own session) counts as success once the target
/// is gone.
async fn kill_checked(server: &Server, kill: Command, target: &Target) -> Result<(), Error> {
    match server.act(vec![kill]).await {
        Ok(_) => Ok(()),
        Err(e) if e.is(ErrorKind::Connection) => {
            let exists = Command::new("list-panes").target(target, TargetKind::Window);
            match server.act(vec![exists]).await {
                Err(gone) if matches!(gone.kind(), ErrorKind::NotFound | ErrorKind::NoServer) => {
                    Ok(())
                }
                _ => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// `clear_pane`: resets a pane's terminal and clears its history, in one
/// line (no output can land between the two).
///
/// # Errors
///
/// [`ErrorKind::NotFound`].
#[derive(Default)]
pub struct ClearPaneRequest {
    /// The pane.
    pub pane: Selector,
}

op!(ClearPaneRequest, Cleared, async |req, server, _| {
    let pane = server.pane_target(&req.pane).await?;
    let (id_cmd, q) = pane_id_read(&pane);
    let reset = Command::new("send-keys")
        .target(&pane, TargetKind::Pane)
        .arg("-R");
    let clear = Command::new("clear-history").target(&pane, TargetKind::Pane);
    let out = server.act(vec![id_cmd, reset, clear]).await?;
    let id = PaneIdRow::from_record(&one_record(&q, &out[0], &pane)?).pane_id;
    Ok(Cleared { pane_id: id })
});
