//! `tmuxwire demo`: what tmuxwire is, shown on a private tmux server.
//!
//! The demo starts a tmux server of its own (`-S` in a new temporary
//! directory, `-f /dev/null`), fills four panes with generated output
//! (colours, CJK, lines that wrap) and then shows five things, each through
//! the tool code the MCP server runs ([`crate::mcp::tools::call`]) with the
//! pane mirror on, as `tmuxwire mcp` has it:
//!
//! 1. a search of every pane's whole scrollback, timed next to tmux's own
//!    `capture-pane -p -J -S - | grep -F` in the same run (the first search,
//!    which builds the copies, timed apart from later ones);
//! 2. a line that a soft wrap split over two rows, found;
//! 3. `wait_for_text` woken by a line a command prints after a delay;
//! 4. `run_command`: a failing command's exit status and only its output;
//! 5. a pane whose program exited and which tmux removed, still searched.
//!
//! Every step checks what it claims (the needle found once, in the right
//! pane; the wait matched the line the command printed; …): the exit status
//! is 0 when all five hold, 1 when a check fails, 2 when the demo cannot
//! run, 130 when interrupted. Results are read from the tools' structured
//! values, never from their text blocks. The server and the directory are
//! removed at the end (after a failure and on Ctrl-C too), unless `--keep`.
//!
//! The server and its panes get a home of the demo's own (`home` in that
//! directory, with the XDG directories and no `HISTFILE`), so no shell the
//! demo runs keeps history in the user's files.
//!
//! Only the setup (starting the server, waiting for the panes to print
//! their files) and the comparisons with tmux's own commands use anything
//! but the tools: the tmux binary, and tmuxwire's one-shot client, which
//! makes no copies (step 1 times making them).

// The demo's parts sit beside this file (a `src/cli/demo/` folder would
// be a folder of its own in the README's reading list).
#[path = "demo_feeds.rs"]
mod feeds;
#[path = "demo_server.rs"]
mod server;
#[path = "demo_steps.rs"]
mod steps;

use feeds::{Feed, access_log, build_log, end_marker, service_log, test_log};
use server::{Cleanup, home_of, tmux_grep, tmux_out, tmux_run, with_tmux};
use steps::{Stage, step_gone, step_run, step_search, step_wait, step_wrapped};

use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command as Proc, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastrand::Rng;
use serde_json::{Value, json};

use super::output::{escape_text, thousands};
use super::say;
use crate::mirror::MirrorOptions;
use crate::tmux::{Caller, Server, Servers};

/// What `tmuxwire demo` was asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// The tmux binary that starts the private server (and runs the
    /// comparison with tmux's own search).
    pub tmux: String,
    /// Leave the server running at the end.
    pub keep: bool,
    /// Lines printed in each of the four large panes.
    pub lines: usize,
}

/// Width of the demo's windows, in cells.
const WIDTH: usize = 100;

/// Height of the demo's windows, in cells.
const HEIGHT: usize = 30;

/// The text step 1 looks for: on one line of the service log, nowhere
/// else.
const NEEDLE: &str = "order 58213 refunded";

/// The text step 2 looks for; [`wrapped_line`] puts it across the wrap.
const WRAPPED: &str = "totals do not match the receipt";

/// A text on one row of the same screen as [`WRAPPED`].
const UNWRAPPED: &str = "to rerun pass";

/// Cells of [`WRAPPED`] that stay on the first row.
const WRAPPED_SPLIT: usize = 4;

/// The line step 3's command prints.
const TRIGGERED: &str = "deploy finished: 3 services up";

/// How long after the wait begins the demo makes that line appear.
const TRIGGER_DELAY: Duration = Duration::from_millis(500);

/// Step 4's command, and what it prints.
const CHECK_COMMAND: &str = "sh healthcheck.sh";
const CHECK_SCRIPT: &str = "echo 'checking 3 services'\necho 'api: ok'\necho 'database: ok'\n\
                            echo 'billing: not responding'\nexit 3\n";
const CHECK_OUTPUT: [&str; 4] = [
    "checking 3 services",
    "api: ok",
    "database: ok",
    "billing: not responding",
];
const CHECK_STATUS: i64 = 3;

/// Step 5's pane prints this log, waits for Enter, and exits with 3.
const DEPLOY_LOG: &str = "deploy v4.18.0 to production\n  building image: ok\n  migrating \
    database: 0041 ok\n  migrating database: 0042 failed: column \"amount\" is used by view \
    \"totals\"\nrolling back to v4.17.2\n";
const DEPLOY_NEEDLE: &str = "0042 failed";

/// The shell of steps 3 and 4: a POSIX shell whatever the user's is, not
/// a login shell and with no `$ENV` file, so no profile changes it.
const SHELL: &str = "ENV= PS1='$ ' exec /bin/sh";

/// How often a step that waits for tmux to finish something looks again.
const POLL: Duration = Duration::from_millis(20);

/// How the demo failed.
#[derive(Debug)]
enum Failure {
    /// It could not run (no tmux, no temporary directory, …): exit 2.
    Setup(String),
    /// A step did not show what it claims: exit 1.
    Check(String),
    /// Ctrl-C, or the terminal went away: exit 130, as a shell reports
    /// SIGINT.
    Interrupted,
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::Setup(s)
    }
}

/// A step's check: `Ok` or the step's failure.
fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::Check(what()))
    }
}

/// Colours on a terminal, plain text in a pipe or with `NO_COLOR`.
struct Look {
    color: bool,
}

impl Look {
    fn paint(&self, sgr: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{sgr}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// A step's heading.
    fn step(&self, n: u32, title: &str) {
        say!("\n{}", self.paint("1", &format!("{n}. {title}")));
    }

    /// A step's one line of explanation.
    fn explain(&self, s: &str) {
        say!("   {}", self.paint("2", s));
    }

    /// A step's verified claim.
    fn good(&self, s: &str) {
        say!("   {} {s}", self.paint("32", "✓"));
    }

    /// A command line, as typed.
    fn cmd(&self, s: &str) -> String {
        self.paint("36", s)
    }
}

/// `d` in milliseconds, with as many decimals as make sense.
fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 100.0 {
        format!("{ms:.1} ms")
    } else {
        // Rounded to whole milliseconds first, so the cast cannot overflow.
        format!("{} ms", thousands(ms.round() as usize))
    }
}

/// `d` in seconds, one decimal.
fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// How `fast` compares with `slow`: "12× faster" (or "slower").
fn ratio(fast: Duration, slow: Duration) -> String {
    let (f, s) = (fast.as_secs_f64(), slow.as_secs_f64());
    if f <= 0.0 || s <= 0.0 {
        return String::new();
    }
    let r = s / f;
    if r >= 10.0 {
        format!("{r:.0}× faster")
    } else if (0.95..1.05).contains(&r) {
        "about as fast".to_string()
    } else if r >= 1.0 {
        format!("{r:.1}× faster")
    } else {
        format!("{:.1}× slower", 1.0 / r)
    }
}

/// A tmux line number with thousands separators (`-59,987`).
fn line_number(v: &Value) -> String {
    match v.as_i64() {
        Some(n) if n < 0 => format!("-{}", thousands(n.unsigned_abs() as usize)),
        Some(n) => thousands(n.unsigned_abs() as usize),
        None => text(v),
    }
}

fn human(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.0} KiB", bytes as f64 / 1024.0)
    }
}

/// CPU time this process has used so far (user + system, every thread).
fn cpu_time() -> Option<Duration> {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_SELF).ok()?;
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).ok()?)
            .checked_add(Duration::from_micros(u64::try_from(t.tv_usec()).ok()?))
    };
    tv(u.user_time())?.checked_add(tv(u.system_time())?)
}

/// Runs the demo; see the module docs for what it shows and its exit
/// status.
pub async fn run(opts: Options) -> ExitCode {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("tmuxwire-demo-{}-{nanos}", std::process::id()));
    if let Err(e) = std::fs::create_dir(&dir) {
        eprintln!("tmuxwire demo: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let sock = dir.join("tmux.sock");
    let mut cleanup = Cleanup {
        sock: sock.clone(),
        dir: dir.clone(),
        armed: true,
    };
    let look = Look {
        color: super::ColorChoice::Auto.enabled_here(),
    };
    let started = Instant::now();
    // The private server goes away on Ctrl-C too (a `sleep` in each pane
    // would otherwise keep it for a day).
    let result = tokio::select! {
        r = demo(&opts, &dir, &sock, &look) => r,
        () = interrupted() => Err(Failure::Interrupted),
    };
    let ok = result.is_ok();
    if ok {
        say!("\nAll 5 steps checked out in {}.", secs(started.elapsed()));
    }
    if opts.keep && ok {
        cleanup.armed = false;
        say!(
            "The server is still running: tmux -S {} attach",
            sock.display()
        );
    } else {
        cleanup.run().await;
        if ok {
            say!("The private server and its files are gone.");
        }
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Check(e)) => {
            eprintln!("tmuxwire demo: FAILED: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Setup(e)) => {
            eprintln!("tmuxwire demo: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Interrupted) => {
            eprintln!("tmuxwire demo: interrupted; the private server and its files are removed");
            ExitCode::from(130)
        }
    }
}

/// Returns when SIGINT, SIGTERM or SIGHUP arrives; never, if none can be
/// watched.
pub(super) async fn interrupted() {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    async fn next(s: Option<&mut Signal>) {
        match s {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    let mut int = signal(SignalKind::interrupt()).ok();
    let mut term = signal(SignalKind::terminate()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    tokio::select! {
        () = next(int.as_mut()) => {}
        () = next(term.as_mut()) => {}
        () = next(hup.as_mut()) => {}
    }
}

/// A tool call through the MCP tool code: its structured result and how
/// long it took.
async fn call(servers: &Servers, name: &str, args: Value) -> Result<(Value, Duration), String> {
    let Value::Object(map) = args else {
        return Err(format!("{name}: the demo's arguments are not an object"));
    };
    let t = Instant::now();
    let r = crate::mcp::tools::call(servers, name, map).await;
    let took = t.elapsed();
    if r.is_error == Some(true) {
        // The message is the text block's first line (a suggestion for a
        // model may follow it).
        let text = r
            .content
            .iter()
            .find_map(|c| c.as_text().map(|t| t.text.clone()))
            .unwrap_or_default();
        let message = text.lines().next().unwrap_or("").to_string();
        return Err(format!("{name}: {message}"));
    }
    Ok((r.structured_content.unwrap_or(Value::Null), took))
}

/// The items of a JSON array (none for anything else).
fn items(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

/// The items of a JSON array as [`text`].
fn texts(v: &Value) -> Vec<String> {
    items(v).map(text).collect()
}

/// A JSON value as text (strings without quotes).
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The panes of the private server, by `session:window.pane`.
struct Panes {
    build: String,
    tests: String,
    service: String,
    access: String,
    shell: String,
    deploy: String,
    all: Vec<String>,
}

/// The panes by place: a pane listing names its window by id, which the
/// window listing gives the index of.
async fn panes(servers: &Servers) -> Result<Panes, String> {
    let (w, _) = call(servers, "list_windows", json!({})).await?;
    let index: std::collections::HashMap<String, String> = items(&w["result"])
        .map(|w| (text(&w["window_id"]), text(&w["window_index"])))
        .collect();
    let (v, _) = call(servers, "list_panes", json!({})).await?;
    let list: Vec<(String, String)> = items(&v["result"])
        .map(|p| {
            let window = text(&p["window_id"]);
            let place = format!(
                "{}:{}.{}",
                text(&p["session_name"]),
                index.get(&window).map_or("?", String::as_str),
                text(&p["pane_index"])
            );
            (place, text(&p["pane_id"]))
        })
        .collect();
    let find = |place: &str| {
        list.iter()
            .find(|(p, _)| p == place)
            .map(|(_, id)| id.clone())
            .ok_or_else(|| format!("the private server has no pane {place}"))
    };
    Ok(Panes {
        build: find("build:0.0")?,
        tests: find("build:0.1")?,
        service: find("logs:0.0")?,
        access: find("logs:0.1")?,
        shell: find("shell:0.0")?,
        deploy: find("shell:1.0")?,
        all: list.into_iter().map(|(_, id)| id).collect(),
    })
}

/// Waits until each pane's screen ends with its file's end marker, that is
/// until tmux has taken in all it printed. Asks through a one-shot client
/// (no copies are made yet: step 1 times making them).
async fn wait_filled(
    sock: &Path,
    panes: &[(&str, String)],
    deadline: Instant,
) -> Result<(), String> {
    for (pane, marker) in panes {
        loop {
            let out = crate::wire::run_command(
                sock,
                &["capture-pane", "-p", "-t", pane],
                Duration::from_secs(10),
            )
            .await
            .map_err(|e| format!("capture-pane -t {pane}: {e}"))?;
            let screen = String::from_utf8_lossy(&out.stdout);
            if screen.lines().rev().find(|l| !l.trim().is_empty()) == Some(marker.as_str()) {
                break;
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "pane {pane} did not finish printing its file in time"
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }
    Ok(())
}

/// `tmux new-session -c`/`split-window -c` expand formats: `#` is `##`.
fn format_literal(s: &str) -> String {
    s.replace('#', "##")
}

async fn demo(opts: &Options, dir: &Path, sock: &Path, look: &Look) -> Result<(), Failure> {
    let lines = opts.lines;
    let mut rng = Rng::with_seed(0x2545_f491_4f6c_dd1d);
    let feeds = [
        build_log(&mut rng, lines),
        test_log(&mut rng, lines),
        service_log(&mut rng, lines),
        access_log(&mut rng, lines),
    ];
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text)
            .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
    };
    let mut bytes = 0;
    for f in &feeds {
        write(f.file, &f.text)?;
        bytes += f.text.len();
    }
    let deploy_text = format!("{DEPLOY_LOG}{}\n", end_marker("deploy.log"));
    write("deploy.log", &deploy_text)?;
    write("healthcheck.sh", CHECK_SCRIPT)?;
    let trigger = dir.join("trigger");
    nix::unistd::mkfifo(&trigger, nix::sys::stat::Mode::S_IRWXU)
        .map_err(|e| format!("cannot make {}: {e}", trigger.display()))?;
    let home = home_of(sock);
    std::fs::create_dir(&home).map_err(|e| format!("cannot make {}: {e}", home.display()))?;

    say!("tmuxwire demo: a private tmux server on {}", sock.display());

    // The tmux binary starts the server; everything after goes through
    // tmuxwire's tools (the comparisons with tmux's own commands aside).
    let Some(cwd) = dir.to_str().map(format_literal) else {
        return Err(Failure::Setup(format!("{} is not UTF-8", dir.display())));
    };
    let (w, h) = (WIDTH.to_string(), HEIGHT.to_string());
    let history = (lines * 3 + 1000).to_string();
    let cat = |f: &Feed| format!("cat {}; exec sleep 86400", f.file);
    let (c0, c1, c2, c3) = (
        cat(&feeds[0]),
        cat(&feeds[1]),
        cat(&feeds[2]),
        cat(&feeds[3]),
    );
    let fill = Instant::now();
    #[rustfmt::skip]
    tmux_out(&opts.tmux, sock, &[
        "start-server", ";",
        "set", "-g", "history-limit", &history, ";",
        "set", "-g", "default-shell", "/bin/sh", ";",
        "new-session", "-d", "-s", "build", "-x", &w, "-y", &h, "-c", &cwd, &c0, ";",
        "split-window", "-d", "-v", "-t", "=build:0.0", "-c", &cwd, &c1, ";",
        "new-session", "-d", "-s", "logs", "-x", &w, "-y", &h, "-c", &cwd, &c2, ";",
        "split-window", "-d", "-v", "-t", "=logs:0.0", "-c", &cwd, &c3, ";",
        "new-session", "-d", "-s", "shell", "-x", &w, "-y", &h, "-c", &cwd, SHELL, ";",
        "new-window", "-d", "-t", "=shell:1", "-n", "deploy", "-c", &cwd,
            "cat deploy.log; read answer; exit 3",
    ])?;
    let caller = Caller::default();
    let mirror = MirrorOptions {
        enabled: true,
        ..MirrorOptions::default()
    };
    let handle = Server::new(sock.to_path_buf(), None, caller.clone()).with_mirror(mirror);
    let servers = Servers::new(Arc::new(handle), caller);
    let (info, _) = call(&servers, "get_server_info", json!({})).await?;
    let p = panes(&servers).await?;
    let deadline = Instant::now() + Duration::from_secs(120);
    wait_filled(
        sock,
        &[
            (p.build.as_str(), end_marker(feeds[0].file)),
            (p.tests.as_str(), end_marker(feeds[1].file)),
            (p.service.as_str(), end_marker(feeds[2].file)),
            (p.access.as_str(), end_marker(feeds[3].file)),
            (p.deploy.as_str(), end_marker("deploy.log")),
        ],
        deadline,
    )
    .await?;
    say!(
        "tmux {}; 4 panes printed {} lines each in {} ({}: colours, Japanese, long lines).",
        text(&info["version"]),
        thousands(lines),
        secs(fill.elapsed()),
        human(bytes)
    );
    say!(
        "tmuxwire keeps a copy of every pane in memory, updated as the pane prints, and answers \
         from it."
    );

    let stage = Stage {
        opts,
        sock,
        look,
        servers: &servers,
        p: &p,
    };
    step_search(&stage).await?;
    step_wrapped(&stage).await?;
    step_wait(&stage, &trigger).await?;
    step_run(&stage).await?;
    step_gone(&stage).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::feeds::*;
    use super::*;

    /// The visible cells of a line (ASCII and colour codes only).
    fn cells(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn wrap_splits_the_needle() {
        let line = cells(&wrapped_line());
        assert!(line.is_ascii());
        let at = line.find(WRAPPED).unwrap();
        assert_eq!(at + WRAPPED_SPLIT, WIDTH, "{line}");
        assert!(line.len() < 2 * WIDTH);
    }

    #[test]
    fn needles_are_once() {
        let mut rng = Rng::with_seed(1);
        let feeds = [
            build_log(&mut rng, 3000),
            test_log(&mut rng, 3000),
            service_log(&mut rng, 3000),
            access_log(&mut rng, 3000),
        ];
        let count = |n: &str| -> Vec<usize> {
            feeds
                .iter()
                .map(|f| cells(&f.text).matches(n).count())
                .collect()
        };
        assert_eq!(count(NEEDLE), [0, 0, 1, 0]);
        assert_eq!(count(WRAPPED), [1, 0, 0, 0]);
        assert_eq!(count(UNWRAPPED), [1, 0, 0, 0]);
        assert_eq!(count(DEPLOY_NEEDLE), [0, 0, 0, 0]);
        assert_eq!(count(TRIGGERED), [0, 0, 0, 0]);
        for f in &feeds {
            assert!(f.text.ends_with(&format!("{}\n", end_marker(f.file))));
        }
        // The wrapped line is on the build pane's screen (half a window).
        let tail: Vec<&str> = feeds[0].text.lines().rev().take(6).collect();
        assert!(tail.iter().any(|l| l.contains(WRAPPED)));
    }

    #[test]
    fn figures() {
        assert_eq!(ms(Duration::from_micros(1234)), "1.23 ms");
        assert_eq!(ms(Duration::from_micros(12_345)), "12.3 ms");
        assert_eq!(ms(Duration::from_millis(1234)), "1,234 ms");
        assert_eq!(
            ratio(Duration::from_millis(5), Duration::from_millis(1000)),
            "200× faster"
        );
        assert_eq!(
            ratio(Duration::from_millis(500), Duration::from_millis(1000)),
            "2.0× faster"
        );
        assert_eq!(
            ratio(Duration::from_millis(1500), Duration::from_millis(1000)),
            "1.5× slower"
        );
    }
}
