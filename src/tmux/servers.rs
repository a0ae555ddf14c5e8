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
use super::server::Server;
use crate::mirror::MirrorOptions;
use crate::wire;

/// How many servers besides the default the pool keeps handles for.
pub const MAX_OTHER_SERVERS: usize = 16;

/// Handles for every server a process talks to, keyed by canonical socket
/// path; at most [`MAX_OTHER_SERVERS`] besides the default.
#[derive(Debug)]
pub struct Servers {
    default: Arc<Server>,
    caller: Caller,
    /// Least recently used first.
    others: std::sync::Mutex<Vec<Arc<Server>>>,
    pinned: bool,
    mirror: MirrorOptions,
    /// The host of a remote pool (`None`: this machine's).
    host: Option<Arc<wire::ssh::Host>>,
    /// The configured hosts' pools (on this machine's pool only).
    hosts: Vec<Arc<Servers>>,
    /// Calls may name only the configured hosts (`--pin-host`).
    pin_host: bool,
    /// The masters' control sockets' directory, removed with the pool.
    control_dir: Option<ControlDir>,
}

/// A private directory removed when dropped.
#[derive(Debug)]
struct ControlDir(PathBuf);

impl Drop for ControlDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The name that means this machine in a tool's `host` argument.
pub const LOCAL_HOST: &str = "local";

impl Servers {
    /// A pool whose default server is `default`.
    pub fn new(default: Arc<Server>, caller: Caller) -> Servers {
        let mirror = default.mirror_opts.clone();
        Servers {
            default,
            caller,
            others: std::sync::Mutex::new(Vec::new()),
            pinned: false,
            mirror,
            host: None,
            hosts: Vec::new(),
            pin_host: false,
            control_dir: None,
        }
    }

    /// The same pool with a pool per configured host (`--host NAME=DEST`),
    /// each with `socket` on that host as its default server (the socket
    /// `-L`/`-S` or their variables chose, if any) and the same mirror
    /// options;
    /// with `pin`, a call may name only those hosts (`--pin-host`; with one
    /// host, a call without `host` goes to it).
    ///
    /// # Errors
    ///
    /// When the private directory for the ssh masters' sockets cannot be
    /// made.
    pub fn with_hosts(
        mut self,
        hosts: Vec<wire::ssh::HostConfig>,
        pin: bool,
        socket: wire::ssh::RemoteSocket,
    ) -> std::io::Result<Servers> {
        self.pin_host = pin && !hosts.is_empty();
        if hosts.is_empty() {
            return Ok(self);
        }
        let dir = wire::ssh::control_dir()?;
        for config in hosts {
            let host = wire::ssh::Host::new(config, &dir);
            let remote = wire::ssh::Remote::new(host.clone(), socket.clone());
            let default = Arc::new(
                Server::remote(remote, None, Caller::default()).with_mirror(self.mirror.clone()),
            );
            let mut pool = Servers::new(default, Caller::default()).pinned(self.pinned);
            pool.host = Some(host);
            self.hosts.push(Arc::new(pool));
        }
        self.control_dir = Some(ControlDir(dir));
        Ok(self)
    }

    /// The pool for a call's `host`: this machine's for `None` or
    /// [`LOCAL_HOST`], else the configured host's.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
    /// for a name no host has, or `local` under `--pin-host`.
    pub fn for_host(&self, name: Option<&str>) -> Result<&Servers, Error> {
        // A host's own pool (an operation of a batch on that host).
        if let Some(own) = self.host_name()
            && name.is_none_or(|n| n == own)
        {
            return Ok(self);
        }
        let names = || {
            let mut v: Vec<&str> = self.hosts.iter().filter_map(|h| h.host_name()).collect();
            if !self.pin_host {
                v.insert(0, LOCAL_HOST);
            }
            v.iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match name {
            None | Some(LOCAL_HOST) if !self.pin_host => Ok(self),
            None if self.hosts.len() == 1 => Ok(&self.hosts[0]),
            Some(n) if n != LOCAL_HOST => self
                .hosts
                .iter()
                .find(|h| h.host_name() == Some(n))
                .map(|h| &**h)
                .ok_or_else(|| {
                    Error::invalid(
                        "host",
                        format!("no host is configured with the name {n:?}"),
                        format!("one of {}", names()),
                    )
                }),
            _ => Err(Error::invalid(
                "host",
                "this tmuxwire serves only its configured hosts (started with --pin-host)",
                format!("one of {}", names()),
            )),
        }
    }

    /// The configured hosts' pools, in configuration order.
    pub fn hosts(&self) -> &[Arc<Servers>] {
        &self.hosts
    }

    /// The host of a remote pool.
    pub fn host(&self) -> Option<&Arc<wire::ssh::Host>> {
        self.host.as_ref()
    }

    /// The host's name, for a remote pool.
    pub fn host_name(&self) -> Option<&str> {
        self.host.as_deref().map(wire::ssh::Host::name)
    }

    /// Whether calls may name only the configured hosts.
    pub fn is_host_pinned(&self) -> bool {
        self.pin_host
    }

    /// Every server handle of this pool (the default first).
    pub fn handles(&self) -> Vec<Arc<Server>> {
        let mut v = vec![self.default.clone()];
        v.extend(self.others().iter().cloned());
        v
    }

    /// The same pool, refusing (when `pinned`) any server but the default:
    /// a tool call's `socket_name` may then only name the default server.
    pub fn pinned(mut self, pinned: bool) -> Servers {
        self.pinned = pinned;
        self
    }

    /// The default server.
    pub fn default_server(&self) -> &Arc<Server> {
        &self.default
    }

    /// The server named `socket_name` (`-L` semantics), or the default.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a name that cannot be a socket name.
    pub fn get(&self, socket_name: Option<&str>) -> Result<Arc<Server>, Error> {
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
    ) -> Result<Arc<Server>, Error> {
        if let Some(host) = &self.host {
            return self.get_remote(host, socket_name, socket_path);
        }
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
            return Err(pinned_refusal(
                arg,
                &format!("the tmux server at {}", self.default.path.display()),
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
            Server::with_canonical(path, canonical, name, self.caller.clone())
                .with_mirror(self.mirror.clone()),
        );
        others.push(t.clone());
        evict(others);
        Ok(t)
    }

    /// [`Servers::get_socket`] on a host: the names and paths are the
    /// host's, resolved there by its tmux.
    fn get_remote(
        &self,
        host: &Arc<wire::ssh::Host>,
        socket_name: Option<&str>,
        socket_path: Option<&str>,
    ) -> Result<Arc<Server>, Error> {
        use wire::ssh::RemoteSocket;
        let (socket, arg) = match (socket_path, socket_name) {
            (Some(p), _) => (RemoteSocket::Path(p.to_string()), "socket_path"),
            (None, Some(n)) => (RemoteSocket::Name(n.to_string()), "socket_name"),
            (None, None) => return Ok(self.default.clone()),
        };
        let value = socket_path.or(socket_name).unwrap_or_default();
        if value.is_empty() || value.contains('\0') {
            return Err(Error::invalid(
                arg,
                format!("{arg} must be non-empty and without NUL bytes"),
                "a tmux socket name or path on the host",
            ));
        }
        let remote = wire::ssh::Remote::new(host.clone(), socket);
        let label = remote.label();
        if label == self.default.path {
            return Ok(self.default.clone());
        }
        if self.pinned {
            return Err(pinned_refusal(
                arg,
                &format!("the default tmux server of host {}", host.name()),
                format!("no {arg}"),
            ));
        }
        if let Some(t) = self.find(|t| t.path == label) {
            return Ok(t);
        }
        let name = socket_name
            .filter(|_| socket_path.is_none())
            .map(str::to_string);
        let t = Arc::new(
            Server::remote(remote, name, Caller::default()).with_mirror(self.mirror.clone()),
        );
        let mut others = self.others();
        others.push(t.clone());
        evict(others);
        Ok(t)
    }

    /// The handle `is` picks, moved to the most recently used end.
    fn find(&self, is: impl Fn(&Server) -> bool) -> Option<Arc<Server>> {
        let mut others = self.others();
        let i = others.iter().position(|t| is(t))?;
        let t = others.remove(i);
        others.push(t.clone());
        Some(t)
    }

    fn others(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Server>>> {
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

/// The refusal of a pinned tmuxwire (`--pin-socket`) to reach another
/// server than `serves` through argument `arg`; `accepted` says what `arg`
/// may be.
fn pinned_refusal(arg: &'static str, serves: &str, accepted: String) -> Error {
    Error::invalid(
        arg,
        format!("this tmuxwire serves only {serves} (started with --pin-socket)"),
        accepted,
    )
}

/// Closes one handle when `others` holds more than [`MAX_OTHER_SERVERS`]:
/// the least recently used handle no call holds; if every one is in use,
/// the least recently used all the same (its calls then see a closed
/// connection, as when a server goes away).
fn evict(mut others: std::sync::MutexGuard<'_, Vec<Arc<Server>>>) {
    if others.len() <= MAX_OTHER_SERVERS {
        return;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(dir: &std::path::Path) -> Servers {
        // The pool's own server: a socket of the test's temp dir, never
        // tmux's default socket.
        let main = Server::new(dir.join("pool-main.sock"), None, Caller::default());
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
