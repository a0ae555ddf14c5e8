//! [`Caller`]: the MCP client's own pane, when tmuxwire runs inside tmux.

use std::path::{Path, PathBuf};

use crate::control::PaneId;

/// Identifies the MCP client's own pane when tmuxwire runs inside tmux
/// (from `$TMUX` and `$TMUX_PANE`). Built once, where the process reads
/// its configuration ([`Caller::from_env`] in the CLI, [`Caller::new`] for
/// tests and embedders), and handed down: nothing below reads those
/// variables itself.
#[derive(Clone, Debug, Default)]
pub struct Caller {
    pane: Option<String>,
    socket: Option<PathBuf>,
    inside_tmux: bool,
}

impl Caller {
    /// Reads `$TMUX` (`socket,pid,session`) and `$TMUX_PANE` (`%N`).
    pub fn from_env() -> Caller {
        Caller::new(
            std::env::var("TMUX").ok().as_deref(),
            std::env::var("TMUX_PANE").ok().as_deref(),
        )
    }

    /// The caller that values of `$TMUX` and `$TMUX_PANE` describe (empty
    /// values count as unset); for tests and embedders.
    pub fn new(tmux: Option<&str>, tmux_pane: Option<&str>) -> Caller {
        let tmux = tmux.filter(|s| !s.is_empty());
        let pane = tmux_pane.filter(|s| !s.is_empty()).map(str::to_string);
        let socket = tmux
            .and_then(|t| t.split(',').next())
            .filter(|s| !s.is_empty())
            .map(|s| std::fs::canonicalize(s).unwrap_or_else(|_| PathBuf::from(s)));
        Caller {
            inside_tmux: tmux.is_some() || pane.is_some(),
            pane,
            socket,
        }
    }

    /// The caller's pane id as `$TMUX_PANE` gave it (unchecked), on
    /// whichever server.
    pub fn pane(&self) -> Option<&str> {
        self.pane.as_deref()
    }

    /// The caller's pane, if the caller runs inside a pane of the server
    /// at `server_socket` (canonical).
    pub fn pane_on(&self, server_socket: &Path) -> Option<PaneId> {
        if self.socket.as_deref() != Some(server_socket) {
            return None;
        }
        self.pane.as_deref()?.parse().ok()
    }

    /// The caller's pane for the self-kill guards: [`Caller::pane_on`],
    /// and also the pane of `$TMUX_PANE` when `$TMUX` is unset (the
    /// server cannot be told, so it is assumed to be this one).
    pub fn guarded_pane(&self, server_socket: &Path) -> Option<PaneId> {
        let pane = self.pane.as_deref()?.parse().ok()?;
        match &self.socket {
            Some(s) if s == server_socket => Some(pane),
            Some(_) => None,
            None => Some(pane),
        }
    }

    /// Whether killing the server at `server_socket` (canonical), named
    /// `socket_name` if it was chosen by name, could kill the caller's own
    /// server. Conservative, as libtmux-mcp's guard: true when `$TMUX`
    /// names that socket, when `$TMUX_PANE` is set without `$TMUX`, and
    /// when the file name of `$TMUX`'s socket equals `socket_name`.
    pub fn may_run_on(&self, server_socket: &Path, socket_name: Option<&str>) -> bool {
        if !self.inside_tmux {
            return false;
        }
        let Some(own) = &self.socket else {
            return self.pane.is_some();
        };
        if own == server_socket {
            return true;
        }
        let base = own.file_name().and_then(|n| n.to_str());
        base.is_some() && base == socket_name
    }

    /// Whether `pane_id` on the server at `server_socket` (canonical) is
    /// the caller's pane: `None` outside tmux; `true` only when the pane id
    /// *and* the socket match.
    pub fn is_caller(&self, pane_id: &str, server_socket: &Path) -> Option<bool> {
        if !self.inside_tmux {
            return None;
        }
        Some(self.pane.as_deref() == Some(pane_id) && self.socket.as_deref() == Some(server_socket))
    }
}
