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

// ---------------------------------------------------------------------------
// The generated output.

/// One pane's output: the file its program `cat`s, and the file's text,
/// which ends with [`end_marker`].
struct Feed {
    file: &'static str,
    text: String,
}

/// The last line of a generated file: once a pane's screen shows it, tmux
/// has taken in everything before it.
fn end_marker(file: &str) -> String {
    format!("== end of {file} ==")
}

/// The line that step 2 finds: [`WRAPPED`] starts [`WRAPPED_SPLIT`] cells
/// before the pane's right edge, so the wrap splits it. The colour codes
/// take no cells.
fn wrapped_line() -> String {
    let head = "\x1b[1;31merror\x1b[0m: test billing::invoice::totals_match_receipt failed at \
                src/billing/invoice.rs:412:17: the ";
    format!("{head}{WRAPPED} (expected 1299.00, got 1290.00)")
}

/// A build log: compiler lines with colours, notes long enough to wrap,
/// and, near its end (on the screen), the [`wrapped_line`].
fn build_log(rng: &mut Rng, lines: usize) -> Feed {
    const CRATES: [&str; 6] = [
        "serde",
        "tokio",
        "memchr",
        "regex-automata",
        "billing",
        "vte",
    ];
    let mut s = String::with_capacity(lines * 70);
    for i in 0..lines {
        let krate = CRATES[rng.usize(..CRATES.len())];
        let _ = match rng.u32(..40) {
            0 => writeln!(
                s,
                "    = note: the field `f{i}` of struct `Ledger` is never read, and neither is \
                 `g{}`; `#[warn(dead_code)]` is on by default in {krate}",
                rng.u32(..1000)
            ),
            1..=4 => writeln!(
                s,
                "\x1b[1;33mwarning\x1b[0m: unused variable `x{i}` in {krate}"
            ),
            5..=14 => writeln!(
                s,
                "\x1b[1;32m   Compiling\x1b[0m {krate} v0.{}.{}",
                rng.u32(..20),
                rng.u32(..9)
            ),
            _ => writeln!(
                s,
                "    \x1b[34m-->\x1b[0m src/{krate}/lib.rs:{}:{} (step {i})",
                rng.u32(..900),
                rng.u32(..80)
            ),
        };
    }
    s.push_str("running 212 tests\n");
    let _ = writeln!(s, "{}", wrapped_line());
    s.push_str("test result: FAILED. 211 passed; 1 failed\n");
    s.push_str("error: test failed, to rerun pass `-p billing --lib`\n");
    let _ = writeln!(s, "{}", end_marker("build.log"));
    Feed {
        file: "build.log",
        text: s,
    }
}

/// A test log: coloured results, and JSON events that wrap over three
/// rows.
fn test_log(rng: &mut Rng, lines: usize) -> Feed {
    let mut s = String::with_capacity(lines * 50);
    for i in 0..lines {
        if i % 50 == 0 {
            let fields: String = (0..24)
                .map(|k| format!("\"k{k}\":{},", rng.u32(..1000)))
                .collect();
            let _ = writeln!(s, "{{\"event\":\"batch\",\"id\":{i},{fields}\"ok\":true}}");
        } else if rng.u32(..60) == 0 {
            let _ = writeln!(s, "test ledger::case_{i} ... \x1b[31mFAILED\x1b[0m");
        } else {
            let _ = writeln!(s, "test ledger::case_{i} ... \x1b[32mok\x1b[0m");
        }
    }
    let _ = writeln!(s, "{}", end_marker("tests.log"));
    Feed {
        file: "tests.log",
        text: s,
    }
}

/// A service log with Japanese lines, and [`NEEDLE`] once, two fifths in.
fn service_log(rng: &mut Rng, lines: usize) -> Feed {
    let mut s = String::with_capacity(lines * 70);
    for i in 0..lines {
        let stamp = format!(
            "2026-12-02T{:02}:{:02}:{:02}Z",
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60
        );
        if i == lines * 2 / 5 {
            let _ = writeln!(
                s,
                "{stamp} \x1b[33mWARN\x1b[0m {NEEDLE}: card declined twice"
            );
            continue;
        }
        let _ = match rng.u32(..30) {
            0 => writeln!(
                s,
                "{stamp} \x1b[31mERROR\x1b[0m connection refused by 10.0.0.{} (timeout 30 s)",
                rng.u32(..255)
            ),
            1..=5 => writeln!(
                s,
                "{stamp} INFO 作業 {i} 完了 (処理時間 {} ms、再試行 {} 回)",
                rng.u32(..500),
                rng.u32(..3)
            ),
            6..=9 => writeln!(s, "{stamp} INFO order {} paid", rng.u32(..100_000)),
            _ => writeln!(
                s,
                "{stamp} INFO GET /api/v1/items/{} 200 {} µs",
                rng.u32(..100_000),
                rng.u32(..900)
            ),
        };
    }
    let _ = writeln!(s, "{}", end_marker("service.log"));
    Feed {
        file: "service.log",
        text: s,
    }
}

/// An access log: short lines, and long user agents that wrap.
fn access_log(rng: &mut Rng, lines: usize) -> Feed {
    let mut s = String::with_capacity(lines * 90);
    for i in 0..lines {
        let ua = if i % 10 == 0 {
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/131.0.0.0 Safari/537.36"
        } else {
            "curl/8.5.0"
        };
        let status = if rng.u32(..25) == 0 {
            "\x1b[31m500\x1b[0m"
        } else {
            "\x1b[32m200\x1b[0m"
        };
        let _ = writeln!(
            s,
            "10.0.{}.{} \"GET /検索?q=item{} HTTP/1.1\" {status} {} B {} ms \"{ua}\"",
            rng.u32(..8),
            rng.u32(..255),
            rng.u32(..100_000),
            rng.u32(..40_000),
            rng.u32(..90)
        );
    }
    let _ = writeln!(s, "{}", end_marker("access.log"));
    Feed {
        file: "access.log",
        text: s,
    }
}

// ---------------------------------------------------------------------------
// The private server.

/// Runs the tmux binary on the private server; its stdout, or what it
/// said on stderr when it failed.
fn tmux_out(tmux: &str, sock: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = tmux_run(tmux, sock, args)?;
    if !out.status.success() {
        return Err(format!(
            "{tmux} {}: {}",
            args.first().copied().unwrap_or(""),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// Runs the tmux binary on the private server, with `-f /dev/null` (the
/// user's configuration stays out of the demo) and the demo's own home
/// ([`private_home`]): the server that the first call starts passes it to
/// every pane.
fn tmux_run(tmux: &str, sock: &Path, args: &[&str]) -> Result<std::process::Output, String> {
    let mut cmd = Proc::new(tmux);
    cmd.arg("-S")
        .arg(sock)
        .arg("-f")
        .arg("/dev/null")
        .args(args)
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null());
    crate::sys::home::isolate(&mut cmd, &home_of(sock));
    cmd.output()
        .map_err(|e| format!("cannot run {tmux}: {e} (set --tmux or TMUXWIRE_TMUX)"))
}

/// The demo's home: `home` beside the private server's socket, in the
/// demo's directory (made with it, removed with it).
fn home_of(sock: &Path) -> PathBuf {
    sock.with_file_name("home")
}

/// `tmux capture-pane -p -J -S - -t PANE | grep -c -F -e NEEDLE`, as a
/// shell would run it (without one: the two processes joined by a pipe);
/// the count grep prints.
fn tmux_grep(tmux: &str, sock: &Path, pane: &str, needle: &str) -> Result<u64, String> {
    let mut capture = Proc::new(tmux)
        .arg("-S")
        .arg(sock)
        .args(["capture-pane", "-p", "-J", "-S", "-", "-t", pane])
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {tmux}: {e}"))?;
    let Some(pipe) = capture.stdout.take() else {
        let _ = capture.wait();
        return Err("tmux capture-pane: no output pipe".into());
    };
    let grep = Proc::new("grep")
        .args(["-c", "-F", "-e", needle])
        .stdin(pipe)
        .output();
    let captured = capture.wait();
    let grep = grep.map_err(|e| format!("cannot run grep: {e}"))?;
    if !captured.is_ok_and(|s| s.success()) {
        return Err(format!("tmux capture-pane -t {pane} failed"));
    }
    // grep -c prints the count, and exits 1 when it is 0.
    String::from_utf8_lossy(&grep.stdout)
        .trim()
        .parse()
        .map_err(|_| {
            format!(
                "grep -c printed no count: {}",
                String::from_utf8_lossy(&grep.stderr).trim()
            )
        })
}

/// Removes the private server and its directory, even when the demo
/// fails or panics half-way (then from `Drop`, on a thread of its own).
struct Cleanup {
    sock: PathBuf,
    dir: PathBuf,
    armed: bool,
}

impl Cleanup {
    async fn run(&mut self) {
        if std::mem::take(&mut self.armed) {
            let _ = crate::wire::run_command(&self.sock, &["kill-server"], Duration::from_secs(5))
                .await;
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (sock, dir) = (self.sock.clone(), self.dir.clone());
        let _ = std::thread::spawn(move || {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                let _ = rt.block_on(crate::wire::run_command(
                    &sock,
                    &["kill-server"],
                    Duration::from_secs(5),
                ));
            }
            let _ = std::fs::remove_dir_all(&dir);
        })
        .join();
    }
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
    let index: std::collections::HashMap<String, String> = w["result"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|w| (text(&w["window_id"]), text(&w["window_index"])))
        .collect();
    let (v, _) = call(servers, "list_panes", json!({})).await?;
    let list: Vec<(String, String)> = v["result"]
        .as_array()
        .into_iter()
        .flatten()
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

    step_search(opts, sock, look, &servers, &p).await?;
    step_wrapped(opts, sock, look, &servers, &p).await?;
    step_wait(look, &servers, &p, &trigger).await?;
    step_run(look, &servers, &p).await?;
    step_gone(opts, sock, look, &servers, &p).await?;
    Ok(())
}

/// Checks that a `search_panes` result holds one line, in `pane`, answered
/// from tmuxwire's copy; returns that pane's match.
fn one_match<'a>(v: &'a Value, pane: &str, step: &str) -> Result<&'a Value, Failure> {
    let m = &v["matches"][0];
    check(v["total_panes_matched"].as_u64() == Some(1), || {
        format!(
            "{step}: {} panes matched, expected 1 ({pane})",
            text(&v["total_panes_matched"])
        )
    })?;
    check(m["pane_id"].as_str() == Some(pane), || {
        format!("{step}: found in {}, expected {pane}", text(&m["pane_id"]))
    })?;
    check(m["matched_line_count"].as_u64() == Some(1), || {
        format!(
            "{step}: {} lines matched in {pane}, expected 1",
            text(&m["matched_line_count"])
        )
    })?;
    check(m["source"].as_str() == Some("mirror"), || {
        format!(
            "{step}: answered from {}, not from tmuxwire's copy",
            text(&m["source"])
        )
    })?;
    Ok(m)
}

/// Step 1: every pane's whole scrollback, searched by tmux's own
/// `capture-pane | grep` and by tmuxwire, in this run.
async fn step_search(
    opts: &Options,
    sock: &Path,
    look: &Look,
    servers: &Servers,
    p: &Panes,
) -> Result<(), Failure> {
    const STEP: &str = "step 1 (search)";
    const LATER: usize = 5;
    look.step(1, "Search every pane's whole scrollback");
    look.explain(&format!(
        "\"{NEEDLE}\" is on one line of logs:0.0, somewhere among {} lines in {} panes.",
        thousands(4 * opts.lines),
        p.all.len()
    ));

    // tmux's way, as a script would do it: list the panes, then capture
    // each one's history and grep it.
    let (tmux, sock_owned) = (opts.tmux.clone(), sock.to_path_buf());
    let t = Instant::now();
    let counts = tokio::task::spawn_blocking(move || -> Result<Vec<(String, u64)>, String> {
        let list = tmux_out(
            &tmux,
            &sock_owned,
            &["list-panes", "-a", "-F", "#{pane_id}"],
        )?;
        String::from_utf8_lossy(&list)
            .lines()
            .map(|pane| {
                Ok((
                    pane.to_string(),
                    tmux_grep(&tmux, &sock_owned, pane, NEEDLE)?,
                ))
            })
            .collect()
    })
    .await
    .map_err(|e| format!("the tmux comparison stopped: {e}"))??;
    let tmux_took = t.elapsed();
    let found: Vec<&(String, u64)> = counts.iter().filter(|(_, n)| *n > 0).collect();
    check(
        found.len() == 1 && found[0].0 == p.service && found[0].1 == 1,
        || {
            format!(
                "{STEP}: tmux's own search found {found:?}, expected 1 line in {}",
                p.service
            )
        },
    )?;

    let args = json!({"pattern": NEEDLE, "match_case": true});
    let (v, first) = call(servers, "search_panes", args.clone()).await?;
    let m = one_match(&v, &p.service, STEP)?;
    let line = line_number(&m["matched_line_numbers"][0]);
    let mut later = Vec::with_capacity(LATER);
    for _ in 0..LATER {
        let (v, took) = call(servers, "search_panes", args.clone()).await?;
        one_match(&v, &p.service, STEP)?;
        later.push(took);
    }
    later.sort();
    let median = later[LATER / 2];

    let rows = [
        (
            "tmux: capture-pane -p -J -S - | grep -F, pane by pane".to_string(),
            tmux_took,
            String::new(),
        ),
        (
            "tmuxwire, first search (copies each pane from tmux)".to_string(),
            first,
            ratio(first, tmux_took),
        ),
        (
            format!("tmuxwire, later searches (median of {LATER})"),
            median,
            ratio(median, tmux_took),
        ),
    ];
    for (what, took, vs) in rows {
        let row = format!("     {what:<55} {:>10}   {vs}", ms(took));
        say!("{}", row.trim_end());
    }
    look.good(&format!(
        "both found it once, in logs:0.0 ({}), line {line}",
        p.service
    ));
    Ok(())
}

/// Step 2: a line split over two rows by the pane's edge, found whole.
async fn step_wrapped(
    opts: &Options,
    sock: &Path,
    look: &Look,
    servers: &Servers,
    p: &Panes,
) -> Result<(), Failure> {
    const STEP: &str = "step 2 (wrapped line)";
    look.step(2, "Find a line that the pane's edge split in two");
    look.explain("tmuxwire searches lines as they were printed, not screen rows.");
    let (v, took) = call(
        servers,
        "search_panes",
        json!({"pattern": WRAPPED, "match_case": true}),
    )
    .await?;
    let m = one_match(&v, &p.build, STEP)?;
    check(m["matched_line_rows"][0].as_u64() == Some(2), || {
        format!(
            "{STEP}: the line spans {} rows, expected 2",
            text(&m["matched_line_rows"][0])
        )
    })?;
    let line = text(&m["matched_lines"][0]);
    let first_row = m["matched_line_numbers"][0].as_i64().unwrap_or(0);
    // The demo's line is ASCII: one character per cell.
    let (row1, row2): (String, String) = {
        let chars: Vec<char> = line.chars().collect();
        let cut = WIDTH.min(chars.len());
        (
            chars[cut.saturating_sub(24)..cut].iter().collect(),
            chars[cut..].iter().collect(),
        )
    };
    check(row1.ends_with(&WRAPPED[..WRAPPED_SPLIT]), || {
        format!("{STEP}: the first row ends {row1:?}, not inside {WRAPPED:?}")
    })?;
    say!(
        "     build:0.0 row {first_row:>4} ends    \"…{}\"",
        escape_text(&row1)
    );
    say!(
        "               row {:>4} starts  \"{}\"",
        first_row + 1,
        escape_text(&row2)
    );
    // tmux's find-window (and its #{C:} format) looks at the screen one row
    // at a time (window_pane_search() in window.c). A text on one row of
    // the same screen shows that the question itself works.
    let format = format!("#{{C:{WRAPPED}}} #{{C:{UNWRAPPED}}}");
    let (tmux, sock_owned, build) = (opts.tmux.clone(), sock.to_path_buf(), p.build.clone());
    let tmux_row = tokio::task::spawn_blocking(move || {
        tmux_out(
            &tmux,
            &sock_owned,
            &["display-message", "-p", "-t", &build, &format],
        )
    })
    .await
    .map_err(|e| format!("the tmux comparison stopped: {e}"))??;
    let tmux_row = String::from_utf8_lossy(&tmux_row);
    let mut rows = tmux_row.split_whitespace();
    let tmux_says = match (rows.next(), rows.next()) {
        (Some("0"), Some(r)) if r != "0" => "tmux's find-window reads row by row and misses it",
        (Some(r), _) if r != "0" => "tmux's find-window finds it too",
        _ => "tmux's find-window could not be asked",
    };
    look.good(&format!("found \"{WRAPPED}\" in {}; {tmux_says}", ms(took)));
    Ok(())
}

/// Step 3: `wait_for_text` woken by a line a command prints 0.5 s later.
async fn step_wait(
    look: &Look,
    servers: &Servers,
    p: &Panes,
    trigger: &Path,
) -> Result<(), Failure> {
    const STEP: &str = "step 3 (wait)";
    look.step(3, "Wait for a line, woken by the output itself");
    look.explain("wait_for_text sleeps until the pane prints a matching line: no polling.");
    // `cat` prints what the demo writes into the pipe, when it writes it.
    call(
        servers,
        "send_keys",
        json!({"keys": "cat trigger", "pane_id": p.shell}),
    )
    .await?;
    let cpu_before = cpu_time();
    let began = Instant::now();
    let wait = async {
        let r = call(
            servers,
            "wait_for_text",
            json!({"patterns": ["deploy finished"], "match_case": true, "timeout": 10,
                   "pane_id": p.shell}),
        )
        .await;
        (r, Instant::now())
    };
    let ((result, woke), printed) = tokio::join!(wait, print_later(trigger, TRIGGER_DELAY));
    let cpu = cpu_before.zip(cpu_time()).map(|(a, b)| b.saturating_sub(a));
    let (v, _) = result?;
    let printed = printed?;
    check(v["outcome"].as_str() == Some("matched"), || {
        format!(
            "{STEP}: the wait ended with {}, not matched",
            text(&v["outcome"])
        )
    })?;
    let matched: Vec<String> = v["matched_lines"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    check(matched == [TRIGGERED], || {
        format!("{STEP}: the wait matched {matched:?}, expected [{TRIGGERED:?}]")
    })?;
    check(woke >= printed, || {
        format!("{STEP}: the wait returned before the line was printed")
    })?;
    // A wake-up a second late is no wake-up; anything closer is left to
    // the figure (a busy machine adds milliseconds).
    check(woke - printed < Duration::from_secs(1), || {
        format!(
            "{STEP}: the wait returned {} after the line was printed",
            ms(woke - printed)
        )
    })?;
    say!(
        "     {}   prints \"{TRIGGERED}\" when the demo sends it, {} in",
        look.cmd("$ cat trigger"),
        secs(printed - began)
    );
    let cpu = cpu.map_or(String::new(), |c| {
        format!("; {} of CPU in the {} wait", ms(c), secs(woke - began))
    });
    look.good(&format!(
        "woke {} after the line was printed{cpu}",
        ms(woke - printed)
    ));
    Ok(())
}

/// Writes [`TRIGGERED`] into the pipe at `path`, `delay` after the pipe's
/// reader (the pane's `cat`) has opened it; when it wrote.
async fn print_later(path: &Path, delay: Duration) -> Result<Instant, String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    // Opening a pipe to write fails at once (ENXIO) until a reader has it
    // open, and O_NONBLOCK keeps the open from blocking the runtime.
    let mut pipe = loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Err(e) => {
                return Err(format!(
                    "step 3: the pane's `cat trigger` did not start: {e}"
                ));
            }
        }
    };
    tokio::time::sleep(delay).await;
    let at = Instant::now();
    // One short line fits an empty pipe: the write never blocks.
    pipe.write_all(format!("{TRIGGERED}\n").as_bytes())
        .map_err(|e| format!("step 3: cannot write to the pipe: {e}"))?;
    Ok(at)
}

/// Step 4: `run_command` with a command that fails.
async fn step_run(look: &Look, servers: &Servers, p: &Panes) -> Result<(), Failure> {
    const STEP: &str = "step 4 (run_command)";
    look.step(4, "Run a command: its exit status and only its own output");
    look.explain("run_command types it at the shell's prompt and waits until it ends.");
    let (v, took) = call(
        servers,
        "run_command",
        json!({"command": CHECK_COMMAND, "pane_id": p.shell, "timeout": 10}),
    )
    .await?;
    let output: Vec<String> = v["output"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    say!(
        "     {}   exit status {}, {} lines, {}",
        look.cmd(&format!("$ {CHECK_COMMAND}")),
        text(&v["exit_status"]),
        output.len(),
        ms(took)
    );
    for l in &output {
        say!("       │ {}", escape_text(l));
    }
    check(v["exit_status"].as_i64() == Some(CHECK_STATUS), || {
        format!(
            "{STEP}: exit status {}, expected {CHECK_STATUS}",
            text(&v["exit_status"])
        )
    })?;
    check(output == CHECK_OUTPUT, || {
        format!("{STEP}: the output was {output:?}, expected {CHECK_OUTPUT:?}")
    })?;
    look.good(&format!(
        "status {CHECK_STATUS} and exactly its {} lines: not the prompt, the echo or earlier text",
        CHECK_OUTPUT.len()
    ));
    Ok(())
}

/// Step 5: a pane whose program exited, and which tmux removed, searched.
async fn step_gone(
    opts: &Options,
    sock: &Path,
    look: &Look,
    servers: &Servers,
    p: &Panes,
) -> Result<(), Failure> {
    const STEP: &str = "step 5 (gone pane)";
    look.step(5, "Search a pane that is gone");
    look.explain("tmuxwire keeps the copy of a pane whose program exited and which tmux removed.");
    // The deploy pane's program waits for Enter, then exits with status 3.
    call(
        servers,
        "send_keys",
        json!({"keys": "Enter", "pane_id": p.deploy, "enter": false}),
    )
    .await?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (v, _) = call(servers, "list_panes", json!({})).await?;
        let listed = v["result"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|pane| pane["pane_id"].as_str() == Some(p.deploy.as_str()));
        if !listed {
            break;
        }
        if Instant::now() > deadline {
            return Err(Failure::Check(format!(
                "{STEP}: tmux still lists {} 10 s after its program was told to exit",
                p.deploy
            )));
        }
        tokio::time::sleep(POLL).await;
    }
    // tmux itself has nothing left to search.
    let (tmux, sock_owned, deploy) = (opts.tmux.clone(), sock.to_path_buf(), p.deploy.clone());
    let tmux_says = tokio::task::spawn_blocking(move || {
        tmux_run(&tmux, &sock_owned, &["capture-pane", "-p", "-t", &deploy])
    })
    .await
    .map_err(|e| format!("the tmux comparison stopped: {e}"))??;
    check(!tmux_says.status.success(), || {
        format!("{STEP}: tmux still captures {}", p.deploy)
    })?;
    let tmux_error = String::from_utf8_lossy(&tmux_says.stderr)
        .trim()
        .to_string();
    say!(
        "     shell:1.0 ({}) printed a deploy log, then its program exited; tmux removed the pane",
        p.deploy
    );
    say!(
        "     tmux capture-pane -t {} now says: {}",
        p.deploy,
        escape_text(&tmux_error)
    );
    let (v, took) = call(
        servers,
        "search_panes",
        json!({"pattern": DEPLOY_NEEDLE, "match_case": true}),
    )
    .await?;
    let m = one_match(&v, &p.deploy, STEP)?;
    check(m["pane_dead"].as_bool() == Some(true), || {
        format!("{STEP}: the match does not say its pane is gone")
    })?;
    say!(
        "     tmuxwire's copy, line {}: {}",
        line_number(&m["matched_line_numbers"][0]),
        escape_text(text(&m["matched_lines"][0]).trim_start())
    );
    let status = match m["exit_status"].as_i64() {
        Some(s) => format!(", which exited with status {s}"),
        None => String::new(),
    };
    look.good(&format!(
        "found \"{DEPLOY_NEEDLE}\" in {}, in the gone pane{status}",
        ms(took)
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
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
