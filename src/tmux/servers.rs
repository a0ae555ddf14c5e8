//! [`Servers`]: the handles for every tmux server a process talks to.
//!
//! A tool call may name any server (`socket_name`, `socket_path`), so the
//! pool is bounded: besides the default server it keeps at most
//! [`MAX_OTHER_SERVERS`] handles, the least recently used one evicted (and
//! its connections closed) to make room. Handles are keyed by the socket's
//! canonical path, so two spellings of one socket share a handle.

use std::path::PathBuf;
use std::sync::Arc;

use super::caller::Caller;
use super::error::Error;
use super::server::Tmux;
use crate::mirror::MirrorOptions;
use crate::wire;

/// How many servers besides the default the pool keeps handles for.
pub const MAX_OTHER_SERVERS: usize = 16;

/// Handles for every server a process talks to, keyed by canonical socket
/// path; at most [`MAX_OTHER_SERVERS`] besides the default.
#[derive(Debug)]
pub struct Servers {
    default: Arc<Tmux>,
    caller: Caller,
    /// Least recently used first.
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
        if path == self.default.path {
            return Ok(self.default.clone());
        }
        // A path asked for before is found without touching the file
        // system: only a new spelling costs a `canonicalize` (a few
        // `lstat`/`readlink` calls on a short local path).
        if let Some(t) = self.find(|t| t.path == path) {
            return Ok(t);
        }
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if canonical == self.default.canonical {
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
        let mut others = self.others();
        if let Some(i) = others.iter().position(|t| t.canonical == canonical) {
            let t = others.remove(i);
            others.push(t.clone());
            return Ok(t);
        }
        let t = Arc::new(
            Tmux::with_canonical(path, canonical, name, self.caller.clone())
                .with_mirror(self.mirror.clone()),
        );
        others.push(t.clone());
        if others.len() > MAX_OTHER_SERVERS {
            // The least recently used handle no call holds; if every one
            // is in use, the least recently used all the same (its calls
            // then see a closed connection, as when a server goes away).
            let i = others
                .iter()
                .position(|t| Arc::strong_count(t) == 1)
                .unwrap_or(0);
            let evicted = others.remove(i);
            drop(others);
            tracing::debug!(path = %evicted.path.display(), "closing the least recently used tmux server handle");
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move { evicted.close().await });
            }
        }
        Ok(t)
    }

    /// The handle `is` picks, moved to the most recently used end.
    fn find(&self, is: impl Fn(&Tmux) -> bool) -> Option<Arc<Tmux>> {
        let mut others = self.others();
        let i = others.iter().position(|t| is(t))?;
        let t = others.remove(i);
        others.push(t.clone());
        Some(t)
    }

    fn others(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Tmux>>> {
        self.others.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many servers besides the default the pool holds handles for
    /// (at most [`MAX_OTHER_SERVERS`]).
    pub fn others_len(&self) -> usize {
        self.others().len()
    }

    /// Whether the pool serves only its default server (`--pin-socket`).
    pub fn is_pinned(&self) -> bool {
        self.pinned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(dir: &std::path::Path) -> Servers {
        // The pool's own server: a socket of the test's temp dir, never
        // tmux's default socket.
        let main = Tmux::new(dir.join("pool-main.sock"), None, Caller::default());
        Servers::new(Arc::new(main), Caller::default())
    }

    #[test]
    fn the_pool_keeps_at_most_sixteen_other_servers() {
        let dir = tempfile::tempdir().unwrap();
        let s = pool(dir.path());
        let path = |i: usize| dir.path().join(format!("s{i}"));
        let first = s.get_socket(None, path(0).to_str()).unwrap();
        for i in 1..40 {
            s.get_socket(None, path(i).to_str()).unwrap();
            assert!(s.others_len() <= MAX_OTHER_SERVERS);
        }
        assert_eq!(s.others_len(), MAX_OTHER_SERVERS);
        // The first handle is still held here, so it was kept: the handles
        // evicted were those nobody used.
        let again = s.get_socket(None, path(0).to_str()).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        // A recent one is found again, not made twice.
        let a = s.get_socket(None, path(39).to_str()).unwrap();
        let b = s.get_socket(None, path(39).to_str()).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn two_spellings_of_one_socket_share_a_handle() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("sock"), b"").unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let s = pool(dir.path());
        let a = s.get_socket(None, real.join("sock").to_str()).unwrap();
        let b = s
            .get_socket(None, dir.path().join("link/sock").to_str())
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(s.others_len(), 1);
        // The pool's own server under another spelling is that server.
        std::fs::write(dir.path().join("pool-main.sock"), b"").unwrap();
        let s = pool(dir.path());
        let d = s
            .get_socket(None, dir.path().join("link/../pool-main.sock").to_str())
            .unwrap();
        assert!(Arc::ptr_eq(&d, s.default_server()));
    }
}
