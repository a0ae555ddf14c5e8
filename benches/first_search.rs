//! What a fresh `tmuxwire mcp` costs: startup to the `initialize` answer,
//! and its first `search_panes`, which builds the pane mirror, against
//! what tmux itself takes to `capture-pane -p -J -S -` the same panes
//! once (the tmux binary, one pane after the other, as a script would).
//!
//! A private tmux server (`-S` in a temp dir, `-f` a config of its own,
//! a home of its own in that dir) gets `FIRST_PANES` panes (default 10) of 120×40 cells over two
//! sessions, each showing `FIRST_LINES` logical lines (default 100,000)
//! of the benches' corpus (log lines, cargo output, long JSON lines that
//! wrap, CJK). Then, in one run:
//!
//! * `startup`: spawn → `initialize` answer, median of 11 starts;
//! * `first capture`: `capture_pane` of one pane's screen as the first call
//!   of a fresh server: it follows every pane (a copy of each screen, no
//!   history read);
//! * `FIRST_ROUNDS` rounds (default 3), each `capture-once`, `tmux
//!   capture-pane -p -J -S - -t P` for every pane, pane by pane, then
//!   `first search`: a fresh server made as mcpbench's client makes it
//!   (`initialize`, `tools/list`), its first `search_panes` for a needle
//!   that is nowhere over the whole scrollback (the copies' histories are
//!   read), then the same call again (answered from the copies). Each
//!   round's ratio is of two figures taken one right after the other (on
//!   a shared machine the load moves within seconds); the median of the
//!   rounds is printed last. mcpbench's `--tmux-capture` gives the same
//!   ratio for its own first call and text.
//!
//! Needs `tmux` on PATH (or `TMUXWIRE_BENCH_TMUX`). Run (release build):
//! `cargo bench --bench first_search` (about a minute at the defaults).

#[path = "common/corpus.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A private tmux server, killed on drop.
struct Server {
    tmux: String,
    dir: tempfile::TempDir,
}

impl Server {
    fn socket(&self) -> PathBuf {
        self.dir.path().join("tmux.sock")
    }

    /// The tmux binary on this server, with the bench's own `TMUX_TMPDIR`
    /// and home (`home` in the temp dir; see `tmuxwire::sys::home::isolate`).
    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.tmux);
        c.arg("-S").arg(self.socket());
        c.env("TMUX_TMPDIR", self.dir.path());
        c.env_remove("TMUX");
        tmuxwire::sys::home::isolate(&mut c, &self.dir.path().join("home"));
        c
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}

/// Exactly `lines` lines of the corpus.
fn content(lines: usize, seed: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let corpus = common::corpus(lines * 80 + 4096);
    // Each pane starts elsewhere in the corpus.
    let skip = seed * 97;
    for l in corpus.split(|&b| b == b'\n').skip(skip).cycle().take(lines) {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

fn fill(panes: usize, lines: usize) -> (Server, Vec<String>) {
    let tmux = std::env::var("TMUXWIRE_BENCH_TMUX").unwrap_or_else(|_| "tmux".into());
    let dir = tempfile::tempdir().expect("temp dir");
    let conf = dir.path().join("tmux.conf");
    std::fs::write(
        &conf,
        format!("set -g history-limit {}\n", lines * 4 + 1000),
    )
    .expect("write config");
    let s = Server { tmux, dir };
    let mut ids = Vec::new();
    for i in 0..panes {
        let file = s.dir.path().join(format!("pane{i}.txt"));
        let mut text = content(lines, i);
        text.extend_from_slice(format!("FIRST-SEARCH-END-{i}\n").as_bytes());
        std::fs::write(&file, text).expect("write content");
        let shell = format!("cat {}; exec sleep 86400", file.display());
        let session = format!("first{}", i % 2);
        let id = if i < 2 {
            let conf = conf.to_string_lossy().into_owned();
            s.run(&[
                "-f",
                &conf,
                "new-session",
                "-d",
                "-P",
                "-F",
                "#{pane_id}",
                "-s",
                &session,
                "-x",
                "120",
                "-y",
                "40",
                &shell,
            ])
        } else {
            s.run(&[
                "new-window",
                "-d",
                "-P",
                "-F",
                "#{pane_id}",
                "-t",
                &session,
                &shell,
            ])
        };
        ids.push(id.trim().to_string());
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    for (i, id) in ids.iter().enumerate() {
        let end = format!("FIRST-SEARCH-END-{i}");
        while !s.run(&["capture-pane", "-p", "-t", id]).contains(&end) {
            assert!(Instant::now() < deadline, "pane {id} never finished");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    (s, ids)
}

/// A `tmuxwire mcp` on stdio.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Mcp {
    fn spawn(socket: &Path) -> (Mcp, Instant) {
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_tmuxwire"))
            .arg("mcp")
            .env("TMUXWIRE_SOCKET_PATH", socket)
            .env_remove("TMUX")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn tmuxwire");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        (
            Mcp {
                child,
                stdin,
                stdout,
                next: 1,
            },
            started,
        )
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").expect("write request");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read answer");
            assert!(n > 0, "tmuxwire closed its stdout");
            let v: Value = serde_json::from_str(&line).expect("an answer");
            if v.get("id") == Some(&json!(id)) {
                return v;
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let v = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "first_search bench", "version": "1"}
            }),
        );
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .expect("write notification");
        v
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    // `cargo bench` passes `--bench`; anything else is criterion's and
    // not ours.
    let panes = env_usize("FIRST_PANES", 10);
    let lines = env_usize("FIRST_LINES", 100_000);
    eprintln!("first_search: filling {panes} panes x {lines} lines ...");
    let t = Instant::now();
    let (server, ids) = fill(panes, lines);
    eprintln!("  filled in {:.1} s", t.elapsed().as_secs_f64());
    let rows: usize = ids
        .iter()
        .map(|id| {
            server
                .run(&["display-message", "-p", "-t", id, "#{history_size}"])
                .trim()
                .parse::<usize>()
                .unwrap_or(0)
                + 40
        })
        .sum();

    // tmux's own capture of every pane, once, pane by pane.
    let capture_all = || {
        let t = Instant::now();
        let mut bytes = 0;
        for id in &ids {
            let out = server
                .cmd()
                .args(["capture-pane", "-p", "-J", "-S", "-", "-t", id])
                .output()
                .expect("capture");
            bytes += out.stdout.len();
        }
        (t.elapsed(), bytes)
    };

    // Startup: spawn to the `initialize` answer.
    let mut starts: Vec<Duration> = (0..11)
        .map(|_| {
            let (mut m, started) = Mcp::spawn(&server.socket());
            m.initialize();
            started.elapsed()
        })
        .collect();
    starts.sort();
    let startup = starts[starts.len() / 2];

    // The first call of a fresh server that reads no history: a capture
    // of one pane's screen. It follows every pane (a copy of each screen).
    let first_capture = {
        let (mut m, _) = Mcp::spawn(&server.socket());
        m.initialize();
        let args = json!({"name": "capture_pane", "arguments": {"pane_id": ids[0]}});
        let t = Instant::now();
        let v = m.request("tools/call", args);
        let took = t.elapsed();
        assert!(v["result"]["isError"] != json!(true), "capture failed: {v}");
        took
    };

    // Rounds of tmux's capture of every pane, then the first search of a
    // fresh server, as mcpbench's client makes it (`initialize`,
    // `tools/list`, the call), then the same search again: on a shared
    // machine the load moves within seconds, so each round's ratio is of
    // two figures taken one right after the other, and the rounds
    // alternate the two.
    let args = json!({
        "name": "search_panes",
        "arguments": {
            "pattern": "first-search-needle-that-is-nowhere",
            "content_start": -((lines * 4) as i64),
        }
    });
    let rounds = env_usize("FIRST_ROUNDS", 3).max(1);
    let mut bytes = 0;
    let mut measured = Vec::new();
    for _ in 0..rounds {
        let (capture, b) = capture_all();
        bytes = b;
        let (mut m, _) = Mcp::spawn(&server.socket());
        m.initialize();
        m.request("tools/list", json!({}));
        let t = Instant::now();
        let first = m.request("tools/call", args.clone());
        let first_search = t.elapsed();
        let t = Instant::now();
        let again = m.request("tools/call", args.clone());
        let second_search = t.elapsed();
        for (what, v) in [("first", &first), ("second", &again)] {
            let r = &v["result"];
            assert!(
                r["isError"] != json!(true)
                    && r["structuredContent"]["total_panes_matched"] == json!(0),
                "{what} search failed: {v}"
            );
        }
        measured.push((capture, first_search, second_search));
    }
    println!(
        "first_search: {panes} panes, {rows} rows, {:.1} MiB of joined text (tmux {})",
        bytes as f64 / (1 << 20) as f64,
        server.run(&["-V"]).trim()
    );
    for (k, (capture, first, second)) in measured.iter().enumerate() {
        println!(
            "  round {}: tmux capture-pane -p -J -S - of every pane {:>7.1} ms; \
             tmuxwire first search_panes {:>7.1} ms ({:.2}x); second {:.1} ms",
            k + 1,
            ms(*capture),
            ms(*first),
            first.as_secs_f64() / capture.as_secs_f64(),
            ms(*second)
        );
    }
    let mut ratios: Vec<f64> = measured
        .iter()
        .map(|(c, f, _)| f.as_secs_f64() / c.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "  first search / tmux capture, median of {rounds} rounds: {:.2}x",
        ratios[ratios.len() / 2]
    );
    println!(
        "  tmuxwire first capture_pane of a screen (follows every pane, reads no history): {:.1} ms",
        ms(first_capture)
    );
    println!(
        "  tmuxwire startup to initialize (median of 11):   {:>7.2} ms",
        ms(startup)
    );
}
