//! [`Servers`]: the handles for every tmux server a process talks to.

use std::path::PathBuf;
use std::sync::Arc;

use super::caller::Caller;
use super::error::Error;
use super::server::Tmux;
use crate::mirror::MirrorOptions;
use crate::wire;

/// Handles for every server a process talks to, keyed by socket path.
#[derive(Debug)]
pub struct Servers {
    default: Arc<Tmux>,
    caller: Caller,
    others: std::sync::Mutex<Vec<Arc<Tmux>>>,
    pinned: bool,
    mirror: MirrorOptions,
}

impl Servers {
    /// A pool whose default server is `default`.
    pub fn new(default: Arc<Tmux>, caller: Caller) -> Servers {
        let mirror = default.mirror_opts.clone();
        Servers {
            default,
            caller,
            others: std::sync::Mutex::new(Vec::new()),
            pinned: false,
            mirror,
        }
    }

    /// The same pool, refusing (when `pinned`) any server but the default:
    /// a tool call's `socket_name` may then only name the default server.
    pub fn pinned(mut self, pinned: bool) -> Servers {
        self.pinned = pinned;
        self
    }

    /// The default server.
    pub fn default_server(&self) -> &Arc<Tmux> {
        &self.default
    }

    /// The server named `socket_name` (`-L` semantics), or the default.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a name that cannot be a socket name.
    pub fn get(&self, socket_name: Option<&str>) -> Result<Arc<Tmux>, Error> {
        self.get_socket(socket_name, None)
    }

    /// The server at `socket_path` (`-S` semantics) when given, else the
    /// one named `socket_name` (`-L`), else the default; a path beats a
    /// name, as `-S` beats `-L` in tmux.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a name that cannot be a socket name,
    /// an empty path, or (pinned) another server than the default.
    pub fn get_socket(
        &self,
        socket_name: Option<&str>,
        socket_path: Option<&str>,
    ) -> Result<Arc<Tmux>, Error> {
        let (path, name, arg) = match (socket_path, socket_name) {
            (Some(p), _) => {
                if p.is_empty() || p.contains('\0') {
                    return Err(Error::invalid(
                        "socket_path",
                        "socket_path must be a non-empty path without NUL bytes",
                        "the path of a tmux socket, as tmux -S takes it",
                    ));
                }
                (PathBuf::from(p), None, "socket_path")
            }
            (None, Some(name)) => {
                let path = wire::SocketSpec::Name(name.to_string())
                    .resolve()
                    .map_err(|e| {
                        Error::invalid(
                            "socket_name",
                            e.to_string(),
                            "a tmux socket name such as \"default\" or \"work\"",
                        )
                    })?;
                (path, Some(name.to_string()), "socket_name")
            }
            (None, None) => return Ok(self.default.clone()),
        };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if path == self.default.path || canonical == self.default.canonical {
            return Ok(self.default.clone());
        }
        if self.pinned {
            return Err(Error::invalid(
                arg,
                format!(
                    "this tmuxwire serves only the tmux server at {} (started with --pin-socket)",
                    self.default.path.display()
                ),
                format!(
                    "no {arg}, or the {} of that server",
                    if arg == "socket_path" { "path" } else { "name" }
                ),
            ));
        }
        let mut others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = others.iter().find(|t| t.path == path) {
            return Ok(t.clone());
        }
        let t =
            Arc::new(Tmux::new(path, name, self.caller.clone()).with_mirror(self.mirror.clone()));
        others.push(t.clone());
        Ok(t)
    }

    /// Whether the pool serves only its default server (`--pin-socket`).
    pub fn is_pinned(&self) -> bool {
        self.pinned
    }
}
