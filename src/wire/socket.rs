//! Which Unix socket a tmux server listens on, resolved exactly as the
//! `tmux` binary resolves it (tmux.c: `main()`, `make_label()`,
//! `expand_paths()`).
//!
//! 1. `-S path` is used as given.
//! 2. If neither `-S` nor `-L` is given and `$TMUX` is set, non-empty and
//!    does not start with `,`, the socket is `$TMUX` up to its first comma.
//! 3. Otherwise `<dir>/tmux-<uid>/<label>`, where label is `-L`'s value or
//!    `default`, and `<dir>` is the first of `$TMUX_TMPDIR` and `/tmp/`
//!    that `realpath()` resolves (an unset or empty `$TMUX_TMPDIR` is
//!    skipped). The `tmux-<uid>` directory must be owned by the uid with no
//!    permission bits for others, or tmux refuses it ("unsafe permissions").

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How the user named the server: the `-S`/`-L` choice of the tmux binary.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum SocketSpec {
    /// `-S path`: a socket path, used exactly.
    Path(PathBuf),
    /// `-L name`: a socket name inside the per-user directory.
    Name(String),
    /// Neither: `$TMUX`, else the `default` socket.
    #[default]
    Default,
}

/// Why a socket could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SocketError {
    /// A socket name that cannot be a file name (empty, `/`, NUL, `.`/`..`).
    #[error(
        "invalid tmux socket name {0:?}: a socket name is a file name inside the per-user \
         tmux directory (no '/', not empty, not '.' or '..')"
    )]
    BadName(String),
    /// Neither `$TMUX_TMPDIR` nor `/tmp/` resolves.
    #[error("no suitable socket directory: neither $TMUX_TMPDIR nor /tmp/ exists")]
    NoDirectory,
    /// The per-user directory exists but is not private, as tmux requires.
    #[error("directory {0} has unsafe permissions (tmux refuses it too)")]
    UnsafeDirectory(PathBuf),
    /// The per-user directory path exists but is not a directory.
    #[error("{0} is not a directory")]
    NotADirectory(PathBuf),
}

/// The environment variables that select a socket, in the order they are
/// consulted below the command line.
///
/// tmuxwire's own variables come first; libtmux-mcp's are honoured as a
/// fallback so tmuxwire is a drop-in replacement for it.
pub const SOCKET_PATH_VARS: [&str; 2] = ["TMUXWIRE_SOCKET_PATH", "LIBTMUX_SOCKET_PATH"];
/// See [`SOCKET_PATH_VARS`].
pub const SOCKET_NAME_VARS: [&str; 2] = ["TMUXWIRE_SOCKET_NAME", "LIBTMUX_SOCKET"];

impl SocketSpec {
    /// The spec from command-line flags and, where they say nothing, the
    /// environment.
    ///
    /// Precedence, highest first (within one level a path beats a name,
    /// as `-S` beats `-L` in tmux): the flags; `TMUXWIRE_SOCKET_PATH` /
    /// `TMUXWIRE_SOCKET_NAME`; `LIBTMUX_SOCKET_PATH` / `LIBTMUX_SOCKET`;
    /// then [`SocketSpec::Default`]. Empty values count as unset.
    pub fn from_args_and_env(
        path: Option<PathBuf>,
        name: Option<String>,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> SocketSpec {
        if let Some(p) = path.filter(|p| !p.as_os_str().is_empty()) {
            return SocketSpec::Path(p);
        }
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            return SocketSpec::Name(n);
        }
        for (path_var, name_var) in SOCKET_PATH_VARS.iter().zip(SOCKET_NAME_VARS) {
            if let Some(p) = env(path_var).filter(|v| !v.is_empty()) {
                return SocketSpec::Path(PathBuf::from(p));
            }
            if let Some(n) = env(name_var).filter(|v| !v.is_empty()) {
                return SocketSpec::Name(n.to_string_lossy().into_owned());
            }
        }
        SocketSpec::Default
    }

    /// The spec from the process environment only (see
    /// [`SocketSpec::from_args_and_env`]).
    pub fn from_env() -> SocketSpec {
        SocketSpec::from_args_and_env(None, None, |k| std::env::var_os(k))
    }

    /// The socket path, resolved with the real environment and uid.
    ///
    /// # Errors
    ///
    /// See [`SocketError`]. A path that resolves but has no server behind
    /// it is not an error here; connecting reports that.
    pub fn resolve(&self) -> Result<PathBuf, SocketError> {
        self.resolve_with(
            |k| std::env::var_os(k),
            nix::unistd::getuid().as_raw(),
            Path::new("/tmp/"),
        )
    }

    /// [`SocketSpec::resolve`] with the environment, uid and the fallback
    /// temporary directory (`_PATH_TMP`) supplied, for tests.
    pub fn resolve_with(
        &self,
        env: impl Fn(&str) -> Option<OsString>,
        uid: u32,
        path_tmp: &Path,
    ) -> Result<PathBuf, SocketError> {
        let label = match self {
            SocketSpec::Path(p) => return Ok(p.clone()),
            SocketSpec::Name(n) => {
                if n.is_empty() || n.contains('/') || n.contains('\0') || n == "." || n == ".." {
                    return Err(SocketError::BadName(n.clone()));
                }
                n.as_str()
            }
            SocketSpec::Default => {
                if let Some(t) = env("TMUX") {
                    let t = t.to_string_lossy();
                    if !t.is_empty() && !t.starts_with(',') {
                        let end = t.find(',').unwrap_or(t.len());
                        return Ok(PathBuf::from(&t[..end]));
                    }
                }
                "default"
            }
        };
        let mut dir = None;
        let candidates = [
            env("TMUX_TMPDIR").map(PathBuf::from),
            Some(path_tmp.to_path_buf()),
        ];
        for cand in candidates.into_iter().flatten() {
            if cand.as_os_str().is_empty() {
                continue;
            }
            if let Ok(real) = std::fs::canonicalize(&cand) {
                dir = Some(real);
                break;
            }
        }
        let base = dir
            .ok_or(SocketError::NoDirectory)?
            .join(format!("tmux-{uid}"));
        // tmux creates the directory; a client only checks it when present.
        if let Ok(meta) = std::fs::symlink_metadata(&base) {
            if !meta.is_dir() {
                return Err(SocketError::NotADirectory(base));
            }
            if meta.uid() != uid || meta.mode() & 0o007 != 0 {
                return Err(SocketError::UnsafeDirectory(base));
            }
        }
        Ok(base.join(label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + use<> {
        let m: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| m.get(k).cloned()
    }

    fn uid() -> u32 {
        nix::unistd::getuid().as_raw()
    }

    /// Where `spec` resolves for user `uid` with the environment `vars`
    /// (`/tmp` the default directory).
    fn at(spec: &SocketSpec, vars: &[(&str, &str)], uid: u32) -> PathBuf {
        spec.resolve_with(env(vars), uid, Path::new("/tmp"))
            .unwrap()
    }

    #[test]
    fn path_is_used_exactly() {
        let s = SocketSpec::Path("/x/y.sock".into());
        assert_eq!(at(&s, &[("TMUX", "/a,1,2")], 0), PathBuf::from("/x/y.sock"));
    }

    #[test]
    fn tmux_env_only_without_flags() {
        let tmux = [("TMUX", "/run/s/sock,123,4")];
        assert_eq!(
            at(&SocketSpec::Default, &tmux, 0),
            PathBuf::from("/run/s/sock")
        );
        // -L ignores $TMUX.
        let got = at(&SocketSpec::Name("x".into()), &tmux, 4242);
        assert_eq!(got, PathBuf::from("/tmp/tmux-4242/x"));
        // An empty $TMUX or one starting with ',' is ignored.
        for t in ["", ",1,2"] {
            let got = at(&SocketSpec::Default, &[("TMUX", t)], 4242);
            assert_eq!(got, PathBuf::from("/tmp/tmux-4242/default"));
        }
    }

    #[test]
    fn tmux_tmpdir_first_that_resolves() {
        let d = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(d.path()).unwrap();
        let n = SocketSpec::Name("n".into());
        let got = at(&n, &[("TMUX_TMPDIR", d.path().to_str().unwrap())], 4242);
        assert_eq!(got, real.join("tmux-4242/n"));
        // A missing or empty TMUX_TMPDIR falls back to /tmp.
        for t in ["", "/nonexistent/tmuxwire"] {
            let got = at(&n, &[("TMUX_TMPDIR", t)], 4242);
            assert_eq!(got, PathBuf::from("/tmp/tmux-4242/n"));
        }
    }

    #[test]
    fn unsafe_directory_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let base = d.path().join(format!("tmux-{}", uid()));
        std::fs::create_dir(&base).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = env(&[("TMUX_TMPDIR", d.path().to_str().unwrap())]);
        let err = SocketSpec::Default
            .resolve_with(&e, uid(), Path::new("/tmp"))
            .unwrap_err();
        assert!(matches!(err, SocketError::UnsafeDirectory(_)), "{err}");
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(
            SocketSpec::Default
                .resolve_with(&e, uid(), Path::new("/tmp"))
                .is_ok()
        );
    }

    #[test]
    fn bad_names() {
        for n in ["", "a/b", "..", ".", "a\0b"] {
            assert!(
                SocketSpec::Name(n.into())
                    .resolve_with(env(&[]), 0, Path::new("/tmp"))
                    .is_err(),
                "{n:?}"
            );
        }
    }

    #[test]
    fn precedence() {
        let e = env(&[
            ("TMUXWIRE_SOCKET_NAME", "tw"),
            ("LIBTMUX_SOCKET_PATH", "/lib/path"),
            ("LIBTMUX_SOCKET", "libname"),
        ]);
        assert_eq!(
            SocketSpec::from_args_and_env(None, None, &e),
            SocketSpec::Name("tw".into())
        );
        assert_eq!(
            SocketSpec::from_args_and_env(Some("/cli".into()), Some("n".into()), &e),
            SocketSpec::Path("/cli".into())
        );
        assert_eq!(
            SocketSpec::from_args_and_env(None, Some("n".into()), &e),
            SocketSpec::Name("n".into())
        );
        let e = env(&[
            ("LIBTMUX_SOCKET_PATH", "/lib/path"),
            ("LIBTMUX_SOCKET", "libname"),
        ]);
        assert_eq!(
            SocketSpec::from_args_and_env(None, None, &e),
            SocketSpec::Path("/lib/path".into())
        );
        let e = env(&[("LIBTMUX_SOCKET", "libname"), ("TMUXWIRE_SOCKET_PATH", "")]);
        assert_eq!(
            SocketSpec::from_args_and_env(None, None, &e),
            SocketSpec::Name("libname".into())
        );
        assert_eq!(
            SocketSpec::from_args_and_env(None, None, env(&[])),
            SocketSpec::Default
        );
    }
}
