//! What the operations that change tmux objects share: one line that
//! acts (`Server::act`), and targets for it that need no round trip of
//! their own ([`Server::session_target`], [`Server::window_target`],
//! [`Server::pane_target`]). The operations themselves are in
//! [`super::op::manage`], [`super::op::create`] and [`super::op::kill`].
//!
//! An action and the read of its result go out as one control-mode line,
//! which tmux runs back to back and stops at the first failure, so the
//! result describes the moment right after the action and a failed action
//! reads nothing.

use super::error::Error;
use super::server::{Output, Retry, Server};
use super::target::{Selector, SessionNaming, template_cmd};
use crate::control::format::Query;
use crate::control::{Command, SessionId, Target, TargetKind};

/// Whether tmux can be given `=name` for a session named `name` and
/// match exactly that session: tmux reads `:` and `.` as target
/// separators, `$` as an id, and falls back to a client's name or tty
/// when no session has the name (cmd-find.c: `cmd_find_get_session()`),
/// so names with those are matched by tmuxwire instead (one more round
/// trip).
pub fn exact_name_target(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('$')
        && !name.contains([':', '.', '/', '\0'])
        && !name.starts_with("client-")
        && !name.starts_with("pts")
        && !name.starts_with("tty")
}

/// Checks an answer of one line: the error of the command that failed,
/// or every body.
pub(crate) fn bodies(out: Vec<Output>, expected: usize) -> Result<Vec<Vec<u8>>, Error> {
    if let Some(bad) = out.iter().find(|o| !o.ok) {
        return Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body)));
    }
    if out.len() < expected {
        return Err(Error::connection(format!(
            "tmux answered {} of {expected} commands",
            out.len()
        )));
    }
    Ok(out.into_iter().map(|o| o.body).collect())
}

impl Server {
    /// Runs one line that changes something and returns every command's
    /// output, or the error of the first command that failed.
    pub(crate) async fn act(&self, cmds: Vec<Command>) -> Result<Vec<Vec<u8>>, Error> {
        let n = cmds.len();
        let out = self
            .run_lines(&[cmds], Retry::Never)
            .await?
            .pop()
            .unwrap_or_default();
        bodies(out, n)
    }

    super::target::targets! {
        /// The session `sel` names, as a target for a command line: `$N`,
        /// `=name` when tmux can match the name exactly
        /// ([`exact_name_target`]; no round trip), else the id of the session
        /// with that exact name, or the default session (a round trip each).
        ///
        /// # Errors
        ///
        /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing session (looked up names) or no
        /// sessions at all.
        session_target = session_named(ExactName);
        /// The window `sel` names (id; index in a session; else the session's
        /// current window), as a target: see [`Server::session_target`].
        ///
        /// # Errors
        ///
        /// As [`Server::session_target`].
        window_target = window_named(ExactName);
        /// The pane `sel` names (id; else the active pane of the window or
        /// session named; with no target, the caller's own pane inside tmux,
        /// else the default session's), as a target: see
        /// [`Server::session_target`].
        ///
        /// # Errors
        ///
        /// As [`Server::session_target`].
        pane_target = pane_named(ExactName);
    }
}

/// Parses a `$N`-or-name destination session.
pub fn session_ref(s: &str) -> Selector {
    match s.parse::<SessionId>() {
        Ok(id) => Selector {
            session_id: Some(id),
            ..Selector::default()
        },
        Err(_) => Selector {
            session_name: Some(s.to_string()),
            ..Selector::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names() {
        for ok in ["work", "build-x", "a b", "日本", "=x", "#{pane_id}"] {
            assert!(exact_name_target(ok), "{ok}");
        }
        for bad in [
            "",
            "$1",
            "a:b",
            "a.b",
            "/dev/pts/1",
            "pts/1",
            "client-12",
            "tty1",
        ] {
            assert!(!exact_name_target(bad), "{bad}");
        }
    }
}

crate::record! {
    /// A pane's id.
    pub(crate) struct PaneIdRow {
        pub(crate) pane_id: String = "pane_id",
    }
}

/// The command that reads the id of the pane `pane` names (for a window
/// or session: its active pane), for the start of an action's line.
pub(crate) fn pane_id_read(pane: &Target) -> (Command, Query) {
    let (cmd, q) = template_cmd("list-panes", PaneIdRow::FIELDS);
    let filter = match pane {
        Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
        _ => "#{pane_active}".into(),
    };
    (cmd.target(pane, TargetKind::Window).opt("-f", filter), q)
}
