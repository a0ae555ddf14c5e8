//! Shared harness for the integration tests: real tmux servers, each on its own private socket.
//!
//! Rules this module enforces for every test server:
//! * the server runs on `-S <private temp dir>/tmux.sock` with `-f /dev/null`; the default
//!   socket is never used, and [`TestServer::kill`] only ever kills *this* server;
//! * `TMUX`/`TMUX_PANE` are removed from the environment, `LANG=C.UTF-8`, `PS1='$ '`;
//! * every shell, program and tmux server gets a home of this run's own, never the user's
//!   ([`home`]: this process's own `HOME` is replaced before `main`, and [`test_env`] sets it
//!   again on each command);
//! * no fixed sleeps: everything waits for a condition with a deadline ([`wait_until`],
//!   [`wait_until_async`], [`within`]).
//!
//! Helpers live here and nowhere else: this module (servers, binaries, environments, waits,
//! [`tmuxwire_command`]), [`home`] (the private home and `TMUX_TMPDIR`), [`tool`] (tool calls in process and pane helpers, rmcp's types),
//! [`tool_json`] (the same calls with results as JSON) and [`sshd`] (a throwaway sshd on
//! 127.0.0.1 for the ssh tests).
//!
//! Which tmux binaries are tested is decided by [`tmux_bins`]: the system `tmux` plus the extra
//! versions that `bash .ci/fetch-tmux.sh target/tmux-versions` unpacks.
//!
//! Environment variables:
//! * `TMUXWIRE_TEST_TMUX_DIR`: directory with `tmux-<version>` wrappers
//!   (default `<CARGO_MANIFEST_DIR>/target/tmux-versions`);
//! * `TMUXWIRE_REQUIRE_TMUX_VERSIONS`: comma-separated versions (e.g. `3.5a,3.8`) that must be
//!   available; if one is missing, [`tmux_bins`] panics.
//! * `TMUXWIRE_REQUIRE_SHELLS`: comma-separated shells (e.g. `bash,zsh,dash,fish`) that must be
//!   installed; if one is missing, [`test_shell`] panics (else it skips, loudly).
//! * `TMUXWIRE_REQUIRE_PYTHON`: `1` makes a missing `python3` a failure ([`has_python`]).
//! * `TMUXWIRE_TEST_SSH_USER`, `TMUXWIRE_REQUIRE_SSHD`: who the throwaway sshd of [`sshd`]
//!   logs in as when the tests run as root, and whether an unavailable sshd is a failure.
//!
//! A skip is never silent: each is printed when it happens and counted, with the tests'
//! names, after libtest's summary ([`skip`]).
#![allow(dead_code)]

pub mod home;
pub mod mcp;
pub mod skip;
pub mod sshd;
pub mod tool;
pub mod tool_json;

pub use home::{private_home, private_tmux_tmpdir};
pub use skip::skipped;

use std::ffi::OsStr;
use std::future::Future;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tmuxwire::tmux::{Caller, Server, Servers};

/// The shell to run in panes: a bash without startup files and with the prompt `$ `.
///
/// It is the first pane's command of [`TestServer::start`] and the server's
/// `default-command`, so new windows and splits run it too.
pub const SH: &str = "env PS1='$ ' LANG=C.UTF-8 bash --norc --noprofile";

/// Env var: directory holding extra `tmux-<version>` wrappers.
pub const TMUX_DIR_ENV: &str = "TMUXWIRE_TEST_TMUX_DIR";
/// Env var: comma-separated tmux versions that must be available (missing ones panic).
pub const REQUIRE_VERSIONS_ENV: &str = "TMUXWIRE_REQUIRE_TMUX_VERSIONS";
/// Extra versions that `.ci/fetch-tmux.sh` provides; a missing one is reported loudly.
pub const EXTRA_VERSIONS: &[&str] = &["3.5a", "3.8"];
/// How to get the extra versions.
pub const FETCH_HINT: &str = "bash .ci/fetch-tmux.sh target/tmux-versions";

/// Default deadline for the harness's own waits (server start, shell prompt, shutdown).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);

/// One tmux binary to test against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmuxBin {
    /// The version as printed by `tmux -V` without the `tmux ` prefix, e.g. `3.3a`.
    pub label: String,
    /// The binary (or wrapper script) to run; behaves exactly like `tmux`.
    pub path: PathBuf,
}

/// The socket a test's tmux runs on: always one the test named, never the default one.
#[derive(Clone, Copy, Debug)]
pub enum Socket<'a> {
    /// `-S PATH`.
    Path(&'a Path),
    /// `-L NAME` (in the private `TMUX_TMPDIR` of [`test_env`]); the name must be one
    /// [`unique_name`] made with a `tmuxwire-test-` prefix, so no two tests share a server and
    /// none names the default one.
    Name(&'a str),
}

impl TmuxBin {
    /// A `Command` for `bin -S PATH` or `bin -L NAME` with the test environment (see
    /// [`test_env`]); add arguments. A test cannot start or reach tmux without naming its
    /// socket.
    pub fn command(&self, socket: Socket<'_>) -> Command {
        let mut cmd = Command::new(&self.path);
        test_env(&mut cmd);
        match socket {
            Socket::Path(p) => cmd.arg("-S").arg(p),
            Socket::Name(n) => {
                assert!(
                    n.starts_with("tmuxwire-test-") && n != "tmuxwire-test-",
                    "a test's -L name must come from unique_name(\"tmuxwire-test-…\"), not {n:?}"
                );
                cmd.arg("-L").arg(n)
            }
        };
        cmd
    }
}

/// Applies the test environment to a command: removes `TMUX`, `TMUX_PANE`, `LC_ALL` and
/// `LC_CTYPE` (so that `LANG` decides), sets `LANG=C.UTF-8`, `PS1='$ '` and `TMUX_TMPDIR` to
/// [`private_tmux_tmpdir`], so a tmux or tmuxwire run without `-S` (or a `list_servers` scan)
/// can never reach the user's own servers (`/tmp/tmux-UID/default`), and gives it this run's
/// [`private_home`] ([`home::isolate`]: `HOME`, the XDG directories, no `HISTFILE`), so no
/// shell or program it starts (a tmux server's panes included) writes the user's files.
/// `TMUXWIRE_JSON_TEXT` and `TMUXWIRE_PLAIN_TEXT` are removed too: a test asks for its text
/// blocks itself.
pub fn test_env(cmd: &mut Command) -> &mut Command {
    home::isolate(cmd, &private_home())
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("TMUXWIRE_JSON_TEXT")
        .env_remove("TMUXWIRE_PLAIN_TEXT")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env("LANG", "C.UTF-8")
        .env("PS1", "$ ")
        .env("TMUX_TMPDIR", private_tmux_tmpdir())
}

/// Variables a spawned tmuxwire reads that would let the developer's environment choose its
/// server (a socket, "inside tmux"), its tools, its budget or its logging; [`tmuxwire_command`]
/// removes them all, so only what a test sets counts.
pub const TMUXWIRE_ENV: &[&str] = &[
    "TMUX",
    "TMUX_PANE",
    "TMUXWIRE_SOCKET_PATH",
    "TMUXWIRE_SOCKET_NAME",
    "LIBTMUX_SOCKET_PATH",
    "LIBTMUX_SOCKET",
    "TMUXWIRE_RESPONSE_BUDGET",
    "TMUXWIRE_LOG",
    "TMUXWIRE_DEAD_PANE_TTL",
    "TMUXWIRE_DEAD_PANES",
    "TMUXWIRE_DEAD_PANE_MEMORY",
    "TMUXWIRE_HOSTS",
    "TMUXWIRE_HOST_TMUX",
    "TMUXWIRE_SSH_CONFIG",
    "TMUXWIRE_SSH_KEEPALIVE",
    "TMUXWIRE_PIN_HOST",
    "TMUXWIRE_TOOLSETS",
    "LIBTMUX_TOOLSETS",
    "TMUXWIRE_TOOLS",
    "LIBTMUX_TOOLS",
    "TMUXWIRE_EXCLUDE_TOOLS",
    "LIBTMUX_EXCLUDE_TOOLS",
    "TMUXWIRE_TMUX",
];

/// The `tmuxwire` binary under test, with every [`TMUXWIRE_ENV`] variable removed and then
/// [`test_env`] applied (a private `TMUX_TMPDIR`); the caller adds arguments and variables.
pub fn tmuxwire_cli() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
    for k in TMUXWIRE_ENV {
        cmd.env_remove(k);
    }
    test_env(&mut cmd);
    cmd
}

/// [`tmuxwire_cli`] for tokio (a child the test awaits or kills on drop).
pub fn tmuxwire_command() -> tokio::process::Command {
    tmuxwire_cli().into()
}

/// Runs `tmuxwire -S <socket> args...` to its end.
pub fn run_tmuxwire(socket: &Path, args: &[&str]) -> Output {
    tmuxwire_cli()
        .arg("-S")
        .arg(socket)
        .args(args)
        .output()
        .expect("run tmuxwire")
}

/// Runs `path -V` and returns the version (`3.3a`), or an error text. `-V` reaches no
/// server; the socket named is a private one all the same, as for every tmux a test runs.
fn version_of(path: &Path) -> Result<String, String> {
    let mut cmd = Command::new(path);
    let socket = private_tmux_tmpdir().join("version-probe");
    test_env(&mut cmd).arg("-S").arg(socket).arg("-V");
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    match stdout.trim().strip_prefix("tmux ") {
        Some(v) if out.status.success() && !v.is_empty() => Ok(v.to_string()),
        _ => Err(format!(
            "{} -V failed ({}): {}{}",
            path.display(),
            out.status,
            stdout.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// Finds `name` on `$PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The system `tmux` (first on `$PATH`), labelled with its `-V` version.
///
/// Panics if there is none (install it: `apt-get install tmux`).
pub fn system_tmux() -> TmuxBin {
    static SYSTEM: OnceLock<TmuxBin> = OnceLock::new();
    SYSTEM
        .get_or_init(|| {
            let path = which("tmux").unwrap_or_else(|| {
                panic!(
                    "tmux is not installed (not on $PATH); install it, e.g. `apt-get install tmux`"
                )
            });
            let label = version_of(&path).unwrap_or_else(|e| panic!("system tmux: {e}"));
            TmuxBin { label, path }
        })
        .clone()
}

/// The directory with extra tmux wrappers: `$TMUXWIRE_TEST_TMUX_DIR`, default
/// `<CARGO_MANIFEST_DIR>/target/tmux-versions`.
pub fn tmux_dir() -> PathBuf {
    match std::env::var_os(TMUX_DIR_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmux-versions"),
    }
}

/// The tmux binaries to test against: the system `tmux` (label from `tmux -V`), plus every
/// `tmux-*` wrapper in `$TMUXWIRE_TEST_TMUX_DIR` (default:
/// `<CARGO_MANIFEST_DIR>/target/tmux-versions`), labelled by what its `-V` prints. The system
/// binary comes first; a wrapper with the same version as an earlier entry is skipped.
///
/// Versions named in `$TMUXWIRE_REQUIRE_TMUX_VERSIONS` (comma list) that are missing: panic
/// with a clear message. Missing optional versions (3.5a, 3.8): a loud warning on stderr (once
/// per process, not hidden by libtest's capture) naming the version and how to fetch it (`bash .ci/fetch-tmux.sh target/tmux-versions`).
pub fn tmux_bins() -> Vec<TmuxBin> {
    static BINS: OnceLock<(Vec<TmuxBin>, Vec<String>)> = OnceLock::new();
    static WARN: Once = Once::new();
    let (bins, problems) = BINS.get_or_init(discover_bins);
    let dir = tmux_dir();

    let have = |v: &str| bins.iter().any(|b| b.label == v);
    let required = required_versions();
    let missing_required: Vec<&String> = required.iter().filter(|v| !have(v)).collect();
    if !missing_required.is_empty() {
        panic!(
            "required tmux version(s) {missing_required:?} (from ${REQUIRE_VERSIONS_ENV}) are not \
             available in {} (found: {:?}; problems: {problems:?}). Fetch them with `{FETCH_HINT}`, \
             or set {TMUX_DIR_ENV} to the directory holding the tmux-<version> wrappers.",
            dir.display(),
            labels(bins),
        );
    }

    WARN.call_once(|| {
        let missing: Vec<&str> = EXTRA_VERSIONS.iter().copied().filter(|v| !have(v)).collect();
        if !missing.is_empty() || !problems.is_empty() {
            // Written to the stderr handle directly (not eprintln!) so that libtest's output
            // capture does not hide it when the tests pass.
            let _ = writeln!(
                std::io::stderr(),
                "\n{bar}\nWARNING: tmux version(s) {missing:?} are NOT tested: not found in {dir}.\n\
                 Tests run only against {found:?}.\n\
                 Fetch the missing versions with: {FETCH_HINT}\n\
                 (or set {TMUX_DIR_ENV}; set {REQUIRE_VERSIONS_ENV}=3.5a,3.8 to make this fatal)\
                 {problems}\n{bar}\n",
                bar = "#".repeat(79),
                dir = dir.display(),
                found = labels(bins),
                problems = if problems.is_empty() {
                    String::new()
                } else {
                    format!("\nProblems: {problems:?}")
                },
            );
        }
    });
    bins.clone()
}

/// The versions `$TMUXWIRE_REQUIRE_TMUX_VERSIONS` names (`3.5a,3.8`; a `tmux-` prefix is
/// allowed).
pub fn required_versions() -> Vec<String> {
    std::env::var(REQUIRE_VERSIONS_ENV)
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().trim_start_matches("tmux-").to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The tmux binary whose version is `label` (`3.8`), for a test written for that version.
///
/// When there is none: a panic if `$TMUXWIRE_REQUIRE_TMUX_VERSIONS` names it (as `.ci/run`
/// does for every version it fetched), so CI cannot pass by skipping it; otherwise `None`,
/// and the skip is recorded ([`skipped`]: printed at once and counted at the end of the run).
pub fn tmux_bin(label: &str) -> Option<TmuxBin> {
    if let Some(bin) = tmux_bins().into_iter().find(|b| b.label == label) {
        return Some(bin);
    }
    if required_versions().iter().any(|v| v == label) {
        panic!(
            "tmux {label} is required (${REQUIRE_VERSIONS_ENV}) but not available in {}; \
             fetch it with `{FETCH_HINT}`",
            tmux_dir().display()
        );
    }
    skipped(&format!(
        "tmux {label} is not available (fetch it with `{FETCH_HINT}`; \
         {REQUIRE_VERSIONS_ENV}={label} makes this a failure)"
    ));
    None
}

fn labels(bins: &[TmuxBin]) -> Vec<&str> {
    bins.iter().map(|b| b.label.as_str()).collect()
}

/// Returns the usable binaries and the problems met on the way (broken wrappers).
fn discover_bins() -> (Vec<TmuxBin>, Vec<String>) {
    let mut bins = vec![system_tmux()];
    let mut problems = Vec::new();
    let mut wrappers: Vec<PathBuf> = std::fs::read_dir(tmux_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(OsStr::to_str)
                        .is_some_and(|n| n.starts_with("tmux-"))
                        && is_executable(p)
                })
                .collect()
        })
        .unwrap_or_default();
    wrappers.sort();
    for path in wrappers {
        match version_of(&path) {
            Ok(label) if bins.iter().any(|b| b.label == label) => {}
            Ok(label) => bins.push(TmuxBin { label, path }),
            Err(e) => problems.push(e),
        }
    }
    (bins, problems)
}

/// Env var: comma-separated shells that must be installed (missing ones panic).
pub const REQUIRE_SHELLS_ENV: &str = "TMUXWIRE_REQUIRE_SHELLS";

/// A shell to run in a test pane, with no startup files of the user's.
#[derive(Debug)]
pub struct TestShell {
    /// `bash`, `zsh`, `dash` or `fish`.
    pub name: &'static str,
    /// The pane's command (for [`TestServerBuilder::command`]).
    pub command: String,
    /// Whether it is a POSIX shell (`run_command` types POSIX syntax).
    pub posix: bool,
    /// The scratch `HOME` (and XDG directories) of fish, removed on drop.
    _home: Option<tempfile::TempDir>,
}

/// The shell `name` (`bash --norc --noprofile`, `zsh -f`, `dash -i`, or `fish --no-config`
/// with `HOME` and the XDG directories in a scratch directory), or `None` when it is not
/// installed: then the skip is recorded ([`skipped`]: printed at once and counted at the end
/// of the run), unless `$TMUXWIRE_REQUIRE_SHELLS` names it (as CI does), which makes it a
/// failure.
pub fn test_shell(name: &'static str) -> Option<TestShell> {
    let required = std::env::var(REQUIRE_SHELLS_ENV)
        .unwrap_or_default()
        .split(',')
        .any(|s| s.trim() == name);
    if which(name).is_none() {
        if required {
            panic!(
                "shell {name} is required (${REQUIRE_SHELLS_ENV}) but not installed: \
                 apt-get install -y {name}"
            );
        }
        skipped(&format!(
            "shell {name} is not installed (apt-get install -y {name}; \
             {REQUIRE_SHELLS_ENV}={name} makes this a failure)"
        ));
        return None;
    }
    let env = "env LANG=C.UTF-8";
    let (command, posix, home) = match name {
        "bash" => (
            format!("{env} PS1='$ ' bash --norc --noprofile"),
            true,
            None,
        ),
        "zsh" => (format!("{env} PS1='%% ' zsh -f"), true, None),
        "dash" => (format!("{env} PS1='$ ' dash -i"), true, None),
        "fish" => {
            let home = tempfile::Builder::new()
                .prefix("tmuxwire-test-fish-")
                .tempdir()
                .expect("a scratch HOME for fish");
            let h = home.path().display().to_string();
            (
                format!(
                    "{env} HOME={h} XDG_CONFIG_HOME={h}/config XDG_DATA_HOME={h}/data \
                     XDG_CACHE_HOME={h}/cache fish --no-config"
                ),
                false,
                Some(home),
            )
        }
        other => panic!("unknown test shell {other}"),
    };
    Some(TestShell {
        name,
        command,
        posix,
        _home: home,
    })
}

/// Env var: `1` makes a missing `python3` a test failure instead of a skip.
pub const REQUIRE_PYTHON_ENV: &str = "TMUXWIRE_REQUIRE_PYTHON";

/// Whether `python3` runs here (the fake TUIs of the tests are Python). When it does not,
/// the caller returns at once (or leaves out its Python part): that is recorded as a skip
/// ([`skipped`], counted at the end of the run), or a panic when `$TMUXWIRE_REQUIRE_PYTHON`
/// is `1` (as `.ci/run` sets it), so CI cannot pass by skipping.
pub fn has_python() -> bool {
    let runs = Command::new("python3")
        .args(["-c", "pass"])
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        if std::env::var(REQUIRE_PYTHON_ENV).is_ok_and(|v| v.trim() == "1") {
            panic!(
                "python3 is required (${REQUIRE_PYTHON_ENV}=1) but does not run here: \
                 apt-get install -y python3"
            );
        }
        skipped(&format!(
            "python3 does not run here (apt-get install -y python3; \
             {REQUIRE_PYTHON_ENV}=1 makes this a failure)"
        ));
    }
    runs
}

/// A unique name: `prefix` + pid + per-process counter + nanoseconds. Only `[A-Za-z0-9_-]`
/// are added, so it is safe for `-L` socket names and session names if `prefix` is.
pub fn unique_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}{}-{n}-{nanos}", std::process::id())
}

/// How long a test waits for anything (pane output, a tool call, a server to go away) before
/// it fails. Generous: 2-core machines run many tests in parallel.
pub const DEADLINE: Duration = Duration::from_secs(15);

/// Polls `cond` (every 1 ms at first, backing off to 20 ms) until it returns `Some`, and returns
/// that value. Panics with `what` if `timeout` elapses first.
pub fn wait_until<T>(what: &str, timeout: Duration, cond: impl FnMut() -> Option<T>) -> T {
    poll(timeout, cond).unwrap_or_else(|| panic!("timed out after {timeout:?} waiting for: {what}"))
}

/// Like [`wait_until`] for a condition that returns `bool`.
pub fn wait_until_true(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    wait_until(what, timeout, || cond().then_some(()))
}

/// Like [`wait_until`], but returns `None` on timeout instead of panicking.
pub fn poll<T>(timeout: Duration, mut cond: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(v) = cond() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The async counterpart of [`wait_until`]: polls an async condition until it yields `Some`,
/// panicking with `what` after [`DEADLINE`]. Sleeps on the runtime, not the thread.
pub async fn wait_until_async<T, F, Fut>(what: &str, mut cond: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + DEADLINE;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(v) = cond().await {
            return v;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {DEADLINE:?} waiting for: {what}");
        }
        tokio::time::sleep(pause.min(deadline.saturating_duration_since(Instant::now()))).await;
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Awaits `fut`, failing the test if it takes longer than [`DEADLINE`] (a hang).
pub async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {DEADLINE:?} (hang?)"),
    }
}

/// A tool-call pool (as the MCP server holds) whose default server is `server`, with the
/// pane mirror on (as `tmuxwire mcp` runs it), so every tool test checks the mirror's answers
/// against tmux.
pub fn servers(server: &TestServer) -> Arc<Servers> {
    mirrored_servers(server)
}

/// A tool-call pool without the pane mirror (as the CLI runs), for tests of the capture path.
pub fn capture_servers(server: &TestServer) -> Arc<Servers> {
    Arc::new(Servers::new(
        Arc::new(Server::new(server.socket.clone(), None, Caller::default())),
        Caller::default(),
    ))
}

/// Sends tmuxwire's logs to stderr when `TMUXWIRE_TEST_LOG` is set (e.g.
/// `tmuxwire=debug`), for debugging a test with `--nocapture`.
pub fn test_logging() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        if let Ok(filter) = std::env::var("TMUXWIRE_TEST_LOG") {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
                .with_writer(std::io::stderr)
                .try_init();
        }
    });
}

/// Waits until a wait (or anything else) follows `pane` on `server`'s mirror: its copy has a
/// subscriber, so what a test does next happens during the wait.
pub async fn wait_subscribed(server: &tmuxwire::tmux::Server, pane: &str) {
    waits_begun(server, pane.parse().expect("a pane id"), 1).await;
}

/// Waits until `n` waits (or anything else) follow `pane` on `server`'s mirror (its copy's
/// subscribers), whichever call started the mirror.
pub async fn waits_begun(
    server: &tmuxwire::tmux::Server,
    pane: tmuxwire::control::PaneId,
    n: usize,
) {
    wait_until_async("the waits to begin", || async {
        let m = server.running_mirror()?;
        (m.pane(pane)?.subscribers() >= n).then_some(())
    })
    .await;
}

/// A program that prints `ready`, then waits for `go` to exist before it
/// runs `body` (Python): the test starts the wait first, so nothing the
/// program draws comes before the wait looks.
pub fn gated(dir: &std::path::Path, name: &str, body: &str) -> String {
    let go = dir.join(format!("{name}.go"));
    let script = dir.join(format!("{name}.py"));
    let text = format!(
        "import os, sys, time\nw = sys.stdout.write\nw('ready\\n'); sys.stdout.flush()\n\
         while not os.path.exists({go:?}):\n    time.sleep(0.01)\n{body}\ntime.sleep(600)\n"
    );
    std::fs::write(&script, text).expect("write script");
    format!("python3 {}", script.display())
}

/// Lets the program [`gated`] started as `name` in `dir` go on.
pub fn go(dir: &std::path::Path, name: &str) {
    std::fs::write(dir.join(format!("{name}.go")), b"").expect("go");
}

/// Like [`servers`], with the pane mirror on (as `tmuxwire mcp` runs).
pub fn mirrored_servers(server: &TestServer) -> Arc<Servers> {
    test_logging();
    Arc::new(Servers::new(
        Arc::new(
            Server::new(server.socket.clone(), None, Caller::default()).with_mirror(
                tmuxwire::mirror::MirrorOptions {
                    enabled: true,
                    ..tmuxwire::mirror::MirrorOptions::default()
                },
            ),
        ),
        Caller::default(),
    ))
}

/// What the kernel says a process holds: open fds, threads, resident memory (KiB).
#[derive(Clone, Copy, Debug)]
pub struct Held {
    pub fds: usize,
    pub threads: usize,
    pub rss_kib: u64,
}

/// What the kernel says process `pid` holds now (`/proc/PID/fd`, `/proc/PID/status`); zeros
/// for what cannot be read.
pub fn held(pid: u32) -> Held {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Held {
        fds,
        threads: field("Threads:") as usize,
        rss_kib: field("VmRSS:"),
    }
}

/// A pane command: `bash --norc -i` in an empty environment but for `home` (its own), the
/// private `TMUX_TMPDIR` (a tmux run in the pane can reach only the tests' servers, never
/// the default socket), `TERM=screen` and a plain `PATH`.
pub fn clean_bash(home: &Path) -> String {
    format!(
        "env -i HOME={} TMUX_TMPDIR={} TERM=screen PATH=/usr/bin:/bin bash --norc -i",
        home.display(),
        private_tmux_tmpdir().display()
    )
}

/// A socket path in a fresh temp dir that nobody listens on (the dir goes with the guard).
pub fn missing_socket() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("tmuxwire-nosrv-")
        .tempdir_in("/tmp")
        .expect("temp dir");
    let path = dir.path().join("nothing.sock");
    (dir, path)
}

/// Builder for a [`TestServer`]; see [`TestServer::builder`].
#[derive(Clone, Debug)]
pub struct TestServerBuilder {
    bin: TmuxBin,
    session: String,
    width: u32,
    height: u32,
    command: Option<String>,
    history_limit: Option<u32>,
    owner: Option<String>,
}

impl TestServerBuilder {
    /// Name of the first session (default `main`).
    pub fn session(mut self, name: &str) -> Self {
        self.session = name.to_string();
        self
    }

    /// Size of the first window (default 80x24).
    pub fn size(mut self, width: u32, height: u32) -> Self {
        self.width = width;
        self.height = height;
        self
    }

    /// Shell command for the first pane (default [`SH`]). With a custom command, `start()`
    /// does not wait for anything in the pane; when it exits, the pane (and, if it is the last
    /// one, the server) goes away.
    pub fn command(mut self, cmd: &str) -> Self {
        self.command = Some(cmd.to_string());
        self
    }

    /// Sets the global `history-limit` before the first pane is created.
    pub fn history_limit(mut self, lines: u32) -> Self {
        self.history_limit = Some(lines);
        self
    }

    /// Runs the server as `user` (`None`, or the current user: as this process), e.g.
    /// `.owner(sshd.owner_for_servers())` so that the ssh login user reaches it. The server
    /// is then started through `setpriv` with that user's uid, gid and groups (and `USER`,
    /// `LOGNAME`), the test environment otherwise, `TMUX_TMPDIR` set to the socket's
    /// directory, which is chowned to the user (mode 0700), and `HOME` a private one of the
    /// user's in it (not the user's own home: its panes' shells keep history there). The test process keeps
    /// talking to it directly ([`TestServer::tmux`], `kill`, …): tmux lets root in. Starting
    /// panics when the user does not exist or when not running as root.
    pub fn owner(mut self, user: Option<&str>) -> Self {
        self.owner = user.map(str::to_string);
        self
    }

    /// Starts the server (in one tmux invocation):
    /// `bin -S <tmpdir>/tmux.sock -f /dev/null start-server ; set -g default-command SH
    /// [; set -g history-limit N] ; new-session -d -s <session> -x <w> -y <h> [command]`.
    ///
    /// Returns once the session exists with the requested size and, with the default command,
    /// once the shell prompt is visible.
    pub fn start(self) -> TestServer {
        let dir = tempdir();
        let socket = dir.path().join("tmux.sock");
        let owner = self.owner.as_deref().and_then(ServerOwner::other_than_me);
        if let Some(owner) = &owner {
            owner.give(dir.path());
        }
        let mut server = TestServer {
            bin: self.bin.clone(),
            socket,
            session: self.session.clone(),
            pid: 0,
            start_time: None,
            killed: false,
            _dir: dir,
        };

        let (w, h) = (self.width.to_string(), self.height.to_string());
        let limit = self.history_limit.map(|n| n.to_string());
        let mut args: Vec<&str> = vec!["start-server", ";", "set", "-g", "default-command", SH];
        if let Some(limit) = &limit {
            args.extend([";", "set", "-g", "history-limit", limit]);
        }
        args.extend([
            ";",
            "new-session",
            "-d",
            "-s",
            &self.session,
            "-x",
            &w,
            "-y",
            &h,
        ]);
        args.push(self.command.as_deref().unwrap_or(SH));
        let out = match &owner {
            None => server.tmux(&args),
            Some(owner) => owner
                .command(&server, server._dir.path())
                .args(&args)
                .output()
                .unwrap_or_else(|e| panic!("cannot run setpriv: {e}")),
        };
        if !out.status.success() {
            panic!(
                "tmux {} failed to start a server ({}): {}",
                server.bin.label,
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }

        // `#{pid}` is the server's pid; remember it (with its start time, against pid reuse)
        // so that kill() still works after the server has lost its last session.
        let target = format!("={}:", self.session);
        let info = server.tmux_ok(&[
            "display-message",
            "-p",
            "-t",
            &target,
            "#{pid} #{window_width}x#{window_height}",
        ]);
        let (pid, size) = info
            .trim()
            .split_once(' ')
            .unwrap_or_else(|| panic!("unexpected display-message output {info:?}"));
        server.pid = pid.parse().expect("server pid");
        server.start_time = proc_start_time(server.pid);
        let want = format!("{w}x{h}");
        assert_eq!(
            size, want,
            "tmux {}: window size did not stick",
            server.bin.label
        );

        if self.command.is_none() {
            server.wait_for_text(&target, "$", DEFAULT_TIMEOUT);
        }
        server
    }
}

/// Another user a [`TestServer`] runs as; see [`TestServerBuilder::owner`].
#[derive(Debug)]
struct ServerOwner {
    name: String,
    uid: u32,
    gid: u32,
}

impl ServerOwner {
    /// `name`'s account, or `None` when that is the user running the tests. Panics when there
    /// is no such user, or when switching to it needs root and this is not root.
    fn other_than_me(name: &str) -> Option<ServerOwner> {
        let user = nix::unistd::User::from_name(name)
            .unwrap_or_else(|e| panic!("cannot look up user {name}: {e}"))
            .unwrap_or_else(|| panic!("TestServer owner {name}: no such user"));
        let me = nix::unistd::geteuid();
        if user.uid == me {
            return None;
        }
        assert!(
            me.is_root(),
            "TestServer owner {name}: starting a server as another user needs root"
        );
        Some(ServerOwner {
            name: user.name,
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
        })
    }

    /// Hands the socket's directory to the owner (chown, mode 0700).
    fn give(&self, dir: &Path) {
        std::os::unix::fs::chown(dir, Some(self.uid), Some(self.gid))
            .unwrap_or_else(|e| panic!("cannot chown {} to {}: {e}", dir.display(), self.name));
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .unwrap_or_else(|e| panic!("cannot chmod 700 {}: {e}", dir.display()));
    }

    /// `setpriv … -- bin -S socket -f /dev/null` as this user, with the test environment,
    /// `TMUX_TMPDIR=tmpdir` and a private home of the user's own in `tmpdir`
    /// ([`home::home_for_owner`]; never the user's own home, where its shells would keep
    /// their history); add the tmux arguments.
    fn command(&self, server: &TestServer, tmpdir: &Path) -> Command {
        let home = home::home_for_owner(tmpdir, self.uid, self.gid);
        let mut cmd = Command::new("setpriv");
        test_env(&mut cmd);
        home::isolate(&mut cmd, &home)
            .env("TMUX_TMPDIR", tmpdir)
            .env("USER", &self.name)
            .env("LOGNAME", &self.name)
            .arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--init-groups")
            .arg("--")
            .arg(&server.bin.path)
            .arg("-S")
            .arg(&server.socket)
            .arg("-f")
            .arg("/dev/null");
        cmd
    }
}

/// Creates the private directory for a server's socket. `sun_path` holds at most 108 bytes,
/// so a long `$TMPDIR` falls back to `/tmp`.
fn tempdir() -> tempfile::TempDir {
    let base = std::env::temp_dir();
    let base = if base.as_os_str().len() > 70 {
        PathBuf::from("/tmp")
    } else {
        base
    };
    tempfile::Builder::new()
        .prefix("tmuxwire-test-")
        .tempdir_in(base)
        .expect("create temp dir for the tmux socket")
}

/// A private tmux server for one test, on `-S <tempdir>/tmux.sock`.
///
/// Dropping it kills the server (see [`TestServer::kill`]) and removes the temp dir.
#[derive(Debug)]
pub struct TestServer {
    /// The tmux binary this server runs.
    pub bin: TmuxBin,
    /// The server's socket, `<tempdir>/tmux.sock`.
    pub socket: PathBuf,
    /// Name of the first session.
    pub session: String,
    pid: u32,
    start_time: Option<u64>,
    killed: bool,
    _dir: tempfile::TempDir,
}

impl TestServer {
    /// Starts a server with session `main`, 80x24, running [`SH`]; waits for the prompt.
    pub fn start(bin: &TmuxBin) -> TestServer {
        Self::builder(bin).start()
    }

    /// A builder: `.session(name).size(w, h).command(cmd).history_limit(n).owner(user)
    /// .start()`.
    pub fn builder(bin: &TmuxBin) -> TestServerBuilder {
        TestServerBuilder {
            bin: bin.clone(),
            session: "main".to_string(),
            width: 80,
            height: 24,
            command: None,
            history_limit: None,
            owner: None,
        }
    }

    /// A `Command` for `bin -S socket -f /dev/null` with the test environment; add arguments.
    pub fn command(&self) -> Command {
        let mut cmd = self.bin.command(Socket::Path(&self.socket));
        cmd.arg("-f").arg("/dev/null");
        cmd
    }

    /// Runs `bin -S socket -f /dev/null args...` (test environment) and returns its output.
    pub fn tmux(&self, args: &[&str]) -> Output {
        self.command()
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.bin.path.display()))
    }

    /// The id (`%N`) of the pane of a new detached window: `new-window -d -P -F '#{pane_id}'`
    /// followed by `rest` (a `-t`, a command, …); panics when tmux fails.
    pub fn new_window_pane(&self, rest: &[&str]) -> String {
        let mut args = vec!["new-window", "-d", "-P", "-F", "#{pane_id}"];
        args.extend_from_slice(rest);
        self.tmux_ok(&args).trim().to_string()
    }

    /// Like [`TestServer::tmux`], but panics (showing stderr) on failure; returns stdout.
    pub fn tmux_ok(&self, args: &[&str]) -> String {
        let out = self.tmux(args);
        if !out.status.success() {
            panic!(
                "tmux {} {:?} failed ({}): {}",
                self.bin.label,
                args,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `capture-pane -p -t target extra...`; returns stdout (panics on failure).
    pub fn capture(&self, target: &str, extra: &[&str]) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", target];
        args.extend_from_slice(extra);
        self.tmux_ok(&args)
    }

    /// Polls `capture-pane -p -J -S - -t target` until it contains `needle`; panics with the
    /// last capture on timeout.
    pub fn wait_for_text(&self, target: &str, needle: &str, timeout: Duration) {
        let mut last = String::new();
        let found = poll(timeout, || {
            let out = self.tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", target]);
            last = if out.status.success() {
                String::from_utf8_lossy(&out.stdout).into_owned()
            } else {
                format!(
                    "<capture-pane failed: {}>",
                    String::from_utf8_lossy(&out.stderr).trim()
                )
            };
            last.contains(needle).then_some(())
        });
        if found.is_none() {
            panic!(
                "tmux {}: timed out after {timeout:?} waiting for {needle:?} in pane {target:?}; \
                 last capture:\n{last}",
                self.bin.label
            );
        }
    }

    /// One format variable of `target` (`display-message -p -t target '#{var}'`), the final
    /// line break removed (not parsed into rows: the value may hold a line break).
    pub fn format(&self, target: &str, var: &str) -> String {
        let out = self.tmux_ok(&[
            "display-message",
            "-p",
            "-t",
            target,
            &format!("#{{{var}}}"),
        ]);
        out.strip_suffix('\n').unwrap_or(&out).to_string()
    }

    /// Types `cmd` into `pane`, then a marker command, and waits until the marker's output and
    /// the next prompt are on the screen (the pane is idle afterwards). The marker's output
    /// (`DONE-<n>`) is not in the typed text (`printf` joins it).
    pub fn run_in_pane(&self, pane: &str, cmd: &str) {
        let marker = unique_name("");
        let line = format!("{cmd}; printf '%s-%s\\n' DONE {marker}");
        self.tmux_ok(&["send-keys", "-t", pane, "-l", &line]);
        self.tmux_ok(&["send-keys", "-t", pane, "Enter"]);
        self.wait_for_text(pane, &format!("DONE-{marker}\n$"), DEADLINE);
    }

    /// The server's pid (read when it started).
    pub fn server_pid(&self) -> u32 {
        self.pid
    }

    /// Whether the server process still runs (not exited, not a zombie, not a reused pid).
    pub fn is_alive(&self) -> bool {
        self.pid != 0 && self.start_time.is_some() && proc_start_time(self.pid) == self.start_time
    }

    /// Whether the socket still accepts connections.
    pub fn socket_accepts(&self) -> bool {
        UnixStream::connect(&self.socket).is_ok()
    }

    /// Kills this server: `kill-server` on its socket, then SIGKILL the pid if it is still
    /// alive, then waits until the socket stops accepting. Idempotent; fine if the server is
    /// already gone (e.g. its last session ended). Panics if the server cannot be stopped.
    pub fn kill(&mut self) {
        if let Err(e) = self.shutdown() {
            if std::thread::panicking() {
                eprintln!("{e}");
            } else {
                panic!("{e}");
            }
        }
    }

    fn shutdown(&mut self) -> Result<(), String> {
        if self.killed {
            return Ok(());
        }
        self.killed = true;
        if self.socket_accepts() {
            let _ = self.tmux(&["kill-server"]);
        }
        if poll(Duration::from_secs(5), || (!self.is_alive()).then_some(())).is_none() {
            // Still running: SIGKILL the exact process we started (pid + start time checked).
            let _ = Command::new("kill")
                .args(["-KILL", &self.pid.to_string()])
                .output();
        }
        if poll(DEFAULT_TIMEOUT, || (!self.is_alive()).then_some(())).is_none() {
            return Err(format!(
                "tmux {} server pid {} did not exit",
                self.bin.label, self.pid
            ));
        }
        if poll(DEFAULT_TIMEOUT, || (!self.socket_accepts()).then_some(())).is_none() {
            return Err(format!(
                "tmux {} socket {} still accepts connections",
                self.bin.label,
                self.socket.display()
            ));
        }
        Ok(())
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            eprintln!("TestServer drop: {e}");
        }
    }
}

/// Start time (clock ticks since boot) of a live, non-zombie process, from `/proc/<pid>/stat`.
fn proc_start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the `(comm)`: state is field 3, starttime field 22.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    match fields.first() {
        Some(&"Z") | Some(&"X") | None => None,
        _ => fields.get(19)?.parse().ok(),
    }
}

/// Checks that the text blocks of a successful `tools/call` result `r` (as JSON) of tool `tool`
/// carry the facts of its `structuredContent` in libtmux-mcp's form (`tmuxwire::mcp::text`):
/// the `result` string for a string tool, the bare `result` list for a list tool, the object
/// for the others (with the reference's numbers for `snapshot_pane`'s sizes), written as
/// compact JSON in `structuredContent`'s own order (the result type's); for a string or a list,
/// a second block holds the other fields that are not quiet, and is there only then.
pub fn assert_reference_text(r: &serde_json::Value, tool: &str) {
    use serde_json::Value;
    use tmuxwire::mcp::text::TextShape;
    let blocks = r["content"].as_array().map_or(0, Vec::len);
    assert!(
        (1..=2).contains(&blocks),
        "{tool}: one or two text blocks: {r}"
    );
    let text = r["content"][0]["text"].as_str().expect("a text block");
    let structured = &r["structuredContent"];
    let spec = tmuxwire::mcp::tools::text_of(tool).expect("a tool of the catalog");
    let first = match spec.shape {
        TextShape::String => {
            assert_eq!(
                Some(text),
                structured["result"].as_str(),
                "{tool}: text = result"
            );
            return assert_note(r, tool, &spec);
        }
        TextShape::List => structured["result"].clone(),
        TextShape::Object => {
            let mut v = structured.clone();
            for k in spec.numbers {
                if let Some(n) = v[*k].as_str().and_then(|s| s.parse::<i64>().ok()) {
                    v[*k] = Value::from(n);
                }
            }
            v
        }
    };
    // Compact, as FastMCP writes JSON, in the structured result's order.
    assert_eq!(text, first.to_string(), "{tool}: the text block");
    assert_note(r, tool, &spec);
}

/// The second text block of `r`: the fields of `structuredContent` the first block does not
/// show and the result type does not call quiet, as one compact JSON object; absent when there
/// are none.
fn assert_note(r: &serde_json::Value, tool: &str, spec: &tmuxwire::mcp::text::Text) {
    let mut want = tmuxwire::mcp::text::note(spec, &r["structuredContent"]);
    // A confirmed delivery is what the sentence says: not repeated.
    if let Some(serde_json::Value::Object(n)) = &mut want {
        let d = &r["structuredContent"]["delivery"];
        if d["typed"] == "confirmed" && d["submitted"] == "confirmed" && d.get("evidence").is_none()
        {
            n.shift_remove("delivery");
        }
    }
    let want = want
        .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
        .map(|v| v.to_string());
    let got = r["content"][1]["text"].as_str().map(str::to_string);
    assert_eq!(got, want, "{tool}: the second text block");
}
