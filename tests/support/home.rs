//! A home of the test run's own: every shell, program and tmux server the tests start writes
//! its history and state there, never into the files of the user who runs `cargo test`.
//!
//! The suite types thousands of commands into bash, zsh, fish, dash, Python, `less` and `vi`,
//! and starts tmux servers whose panes run the user's login shell. Each of those programs
//! writes into the home it is given (`~/.bash_history`, `~/.python_history`, `~/.lesshst`,
//! `~/.viminfo`, `~/.zsh_history`, fish's history under `$XDG_DATA_HOME`), or into a file an
//! exported variable names (`HISTFILE`, `PYTHONSTARTUP`, …); a run once cut a user's
//! `~/.bash_history` of 2,000 lines to 500. So no program is given the user's:
//!
//! * before `main`, while the process has one thread (the only time its environment can be
//!   changed safely), [`isolate_process`] makes a scratch directory of this run's own
//!   ([`scratch`]: `home/`, and `tmux/` for `TMUX_TMPDIR`) and applies [`isolated_env`] and
//!   `TMUX_TMPDIR` to this process itself, so everything the tests start inherits them: the
//!   tmux servers (and so their panes), tmuxwire run in process or as a binary, a server that
//!   tmuxwire starts with the tmux binary, `script`, `ssh`;
//! * [`super::test_env`] applies [`isolated_env`] to each command again;
//! * a server run as another user gets a home of that user's own ([`home_for_owner`]), and
//!   the sessions of the throwaway sshd get one through sshd's `SetEnv` ([`super::sshd`]).
//!
//! The scratch directory is removed when the process exits (libtest ends with `exit()`,
//! whether the tests passed or not); a process killed by a signal leaves it behind.
//!
//! Programs that take the home from the password database rather than `$HOME` are not
//! redirected: ssh's `~/.ssh` (the tests' ssh configs name every file ssh reads or writes)
//! and the directory sshd starts a session in (the session's `HOME` is still the private
//! one). `home::a_planted_home_is_left_alone` proves the rest.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Variables removed from every program's environment because they make a shell or program
/// read or write a file of the user's wherever `HOME` points: start-up files (`ENV`,
/// `BASH_ENV`, `PYTHONSTARTUP`, vim's `VIMINIT`/`EXINIT`/`MYVIMRC`, readline's `INPUTRC`),
/// commands run at each prompt (`PROMPT_COMMAND`), gpg's `GNUPGHOME`. Every variable whose
/// name holds `HIST` is removed too (see [`isolated_env`]).
pub const REMOVED: &[&str] = &[
    "ENV",
    "BASH_ENV",
    "PROMPT_COMMAND",
    "PYTHONSTARTUP",
    "VIMINIT",
    "EXINIT",
    "MYVIMRC",
    "GVIMINIT",
    "INPUTRC",
    "GNUPGHOME",
];

/// The environment that keeps a program out of the user's files, for the private home
/// `home`: `(name, Some(value))` to set, `(name, None)` to remove, in that order of need.
///
/// Set: `HOME`; `ZDOTDIR` (zsh's start-up files and history); the XDG base directories
/// under `home` (`.config`, `.local/share`, `.local/state`, `.cache`: fish's history and
/// configuration, less ≥ 600's history) and `XDG_RUNTIME_DIR` (`home/.run`, which
/// [`make_home`] creates 0700); `LESSHISTFILE=-` (less keeps no history) and
/// `PYTHON_HISTORY` (Python ≥ 3.13's history file) in `home`. Removed: [`REMOVED`], and every
/// variable of this process's environment whose name holds `HIST` but is not set here
/// (`HISTFILE`, `HISTSIZE`, `SAVEHIST`, `NODE_REPL_HISTORY`, `PSQL_HISTORY`, `MYSQL_HISTFILE`
/// …): bash then keeps its history in `home/.bash_history`.
pub fn isolated_env(home: &Path) -> Vec<(OsString, Option<OsString>)> {
    let at = |rel: &str| Some(home.join(rel).into_os_string());
    let set: Vec<(OsString, Option<OsString>)> = vec![
        ("HOME".into(), Some(home.as_os_str().to_owned())),
        ("ZDOTDIR".into(), Some(home.as_os_str().to_owned())),
        ("XDG_CONFIG_HOME".into(), at(".config")),
        ("XDG_DATA_HOME".into(), at(".local/share")),
        ("XDG_STATE_HOME".into(), at(".local/state")),
        ("XDG_CACHE_HOME".into(), at(".cache")),
        ("XDG_RUNTIME_DIR".into(), at(RUNTIME_DIR)),
        ("LESSHISTFILE".into(), Some("-".into())),
        ("PYTHON_HISTORY".into(), at(".python_history")),
    ];
    let is_set = |k: &OsStr| set.iter().any(|(s, _)| s == k);
    let mut removed: Vec<(OsString, Option<OsString>)> =
        REMOVED.iter().map(|k| (OsString::from(k), None)).collect();
    for (k, _) in std::env::vars_os() {
        let hist = k.as_encoded_bytes().windows(4).any(|w| w == b"HIST");
        if hist && !is_set(&k) && !removed.iter().any(|(r, _)| *r == k) {
            removed.push((k, None));
        }
    }
    set.into_iter().chain(removed).collect()
}

/// `XDG_RUNTIME_DIR` under a private home.
const RUNTIME_DIR: &str = ".run";

/// Applies [`isolated_env`] for `home` to `cmd`.
pub fn isolate<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    for (k, v) in isolated_env(home) {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd
}

/// Makes `home` (and its `XDG_RUNTIME_DIR`), mode 0700; fine if they exist.
pub fn make_home(home: &Path) -> std::io::Result<()> {
    let run = home.join(RUNTIME_DIR);
    std::fs::create_dir_all(&run)?;
    for d in [home, run.as_path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The private home of a server run as another user (`uid`, `gid`): `dir/home`, made and
/// handed to that user (with its `XDG_RUNTIME_DIR`). `dir` is the server's socket directory,
/// removed with the server.
///
/// # Panics
///
/// When the directory cannot be made or handed over.
pub fn home_for_owner(dir: &Path, uid: u32, gid: u32) -> PathBuf {
    let home = dir.join("home");
    make_home(&home).unwrap_or_else(|e| panic!("cannot make {}: {e}", home.display()));
    for d in [home.clone(), home.join(RUNTIME_DIR)] {
        std::os::unix::fs::chown(&d, Some(uid), Some(gid))
            .unwrap_or_else(|e| panic!("cannot chown {}: {e}", d.display()));
    }
    home
}

/// This run's scratch directory: `home/` (the private home) and `tmux/` (`TMUX_TMPDIR`).
static SCRATCH: OnceLock<PathBuf> = OnceLock::new();

/// `HOME` as this process found it (the user's), before [`isolate_process`] replaced it.
static USERS_HOME: OnceLock<Option<OsString>> = OnceLock::new();

/// This run's scratch directory (made by [`isolate_process`] before `main`; made here if that
/// did not run), under the system temp directory, or `/tmp` when that path is long (the
/// sockets of `tmux/` must fit `sun_path`'s 108 bytes).
///
/// # Panics
///
/// When the directory cannot be made.
pub fn scratch() -> &'static Path {
    SCRATCH.get_or_init(|| {
        let base = std::env::temp_dir();
        let base = if base.as_os_str().len() > 60 {
            PathBuf::from("/tmp")
        } else {
            base
        };
        let dir = tempfile::Builder::new()
            .prefix("tmuxwire-test-run-")
            .tempdir_in(&base)
            .unwrap_or_else(|e| panic!("cannot make a scratch dir in {}: {e}", base.display()))
            .keep();
        let made =
            make_home(&dir.join("home")).and_then(|()| std::fs::create_dir(dir.join("tmux")));
        if let Err(e) = made {
            panic!("cannot fill the scratch dir {}: {e}", dir.display());
        }
        // SAFETY: `atexit` only records a function pointer; the handler takes no arguments,
        // touches only a `OnceLock` that is set by then, and never unwinds (see below).
        let registered = unsafe { libc::atexit(remove_scratch) } == 0;
        assert!(registered, "atexit refused the scratch dir's clean-up");
        dir
    })
}

/// The private home of this run: `scratch()/home`.
pub fn private_home() -> PathBuf {
    scratch().join("home")
}

/// `TMUX_TMPDIR` of this run: `scratch()/tmux`, empty until a tmux makes its `tmux-UID`.
pub fn private_tmux_tmpdir() -> PathBuf {
    scratch().join("tmux")
}

/// `HOME` as the process was started with (the user's), or `None` when it had none.
pub fn users_home() -> Option<&'static OsStr> {
    USERS_HOME
        .get_or_init(|| std::env::var_os("HOME"))
        .as_deref()
}

/// Removes [`SCRATCH`] at process exit. A panic must not cross into C, so it is caught
/// (there is none to expect: errors are ignored, the directory may be gone already).
extern "C" fn remove_scratch() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(dir) = SCRATCH.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    });
}

/// Runs [`isolate_process`] before `main` (an `.init_array` entry, as the C runtime runs
/// constructors), while the process has a single thread.
#[used]
#[unsafe(link_section = ".init_array")]
static ISOLATE_BEFORE_MAIN: extern "C" fn() = isolate_process;

/// Points this process's own `HOME`, XDG directories and `TMUX_TMPDIR` into [`scratch`] and
/// removes the variables [`isolated_env`] removes, so every program the tests start inherits
/// a private home even when a test builds its command by hand. Runs before `main`; a
/// failure (no temp directory) stops the process before any test runs: running them with
/// the user's home is what this prevents.
extern "C" fn isolate_process() {
    let done = std::panic::catch_unwind(|| {
        users_home();
        let home = private_home();
        let tmux = private_tmux_tmpdir();
        for (k, v) in isolated_env(&home) {
            // SAFETY: before `main` the process runs one thread, so nothing reads the
            // environment while it changes.
            unsafe {
                match v {
                    Some(v) => std::env::set_var(k, v),
                    None => std::env::remove_var(k),
                }
            }
        }
        // SAFETY: as above.
        unsafe { std::env::set_var("TMUX_TMPDIR", tmux) };
    });
    if done.is_err() {
        let _ = writeln!(
            std::io::stderr(),
            "tests/support/home.rs: cannot give the tests a home of their own; not running \
             them with yours"
        );
        std::process::abort();
    }
}
