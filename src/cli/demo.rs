//! `tmuxwire demo`: a private tmux server, filled with generated output
//! and searched through the MCP tool code path.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command as Proc, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastrand::Rng;
use serde_json::{Value, json};

use super::say;
use crate::tmux::{Caller, Servers, Tmux};

/// Pane width of the demo panes, in cells.
const WIDTH: usize = 100;

/// The needle planted so that the pane's soft wrap splits it.
const WRAPPED_NEEDLE: &str = "DEMO-NEEDLE-42";

struct Pane {
    session: &'static str,
    file: &'static str,
    text: String,
}

fn build_log(rng: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..4000 {
        let krate =
            ["serde", "tokio", "memchr", "regex-automata", "rmcp", "vte"][rng.u64(..6) as usize];
        match rng.u64(..10) {
            0 => writeln!(
                s,
                "\x1b[1;33mwarning\x1b[0m: unused variable `x{i}` in {krate}"
            )
            .ok(),
            1 => writeln!(
                s,
                "\x1b[1;32m   Compiling\x1b[0m {krate} v0.{}.{}",
                rng.u64(..20),
                rng.u64(..9)
            )
            .ok(),
            _ => writeln!(
                s,
                "    \x1b[34m-->\x1b[0m src/lib.rs:{}:{} note: step {i}",
                rng.u64(..900),
                rng.u64(..80)
            )
            .ok(),
        };
        if i == 1234 {
            // The needle straddles the wrap: "DEMO-N" ends row 1, "EEDLE-42" starts row 2.
            let pad = "=".repeat(WIDTH - 6);
            writeln!(s, "{pad}{WRAPPED_NEEDLE} found in build step {i}").ok();
        }
    }
    s.push_str("== END build.0 ==\n");
    s
}

fn test_log(rng: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..3000 {
        if i % 97 == 0 {
            // A long JSON line that wraps over three rows.
            let payload: String = (0..30)
                .map(|k| format!("\"k{k}\":{},", rng.u64(..1000)))
                .collect();
            writeln!(s, "{{\"event\":\"batch\",\"id\":{i},{payload}\"ok\":true}}").ok();
        } else {
            let ok = rng.u64(..50) != 0;
            let status = if ok {
                "\x1b[32mok\x1b[0m"
            } else {
                "\x1b[31mFAILED\x1b[0m"
            };
            writeln!(s, "test suite::case_{i} ... {status}").ok();
        }
    }
    s.push_str("test result: FAILED. 2940 passed; 60 failed\n== END build.1 ==\n");
    s
}

fn service_log(rng: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..5000 {
        let (lvl, msg) = match rng.u64(..40) {
            0 => (
                "\x1b[31mERROR\x1b[0m",
                format!(
                    "connection refused by 10.0.0.{} (timeout 30s)",
                    rng.u64(..255)
                ),
            ),
            1 => ("\x1b[33mWARN\x1b[0m", "slow request: 1203 ms".to_string()),
            2 => (
                "INFO",
                format!("作業 {i} 完了 (処理時間 {} ms)", rng.u64(..500)),
            ),
            _ => (
                "INFO",
                format!(
                    "GET /api/v1/items/{} 200 {}µs",
                    rng.u64(..100000),
                    rng.u64(..900)
                ),
            ),
        };
        writeln!(
            s,
            "2026-11-29T12:{:02}:{:02}Z {lvl} {msg}",
            (i / 60) % 60,
            i % 60
        )
        .ok();
    }
    s.push_str("== END logs.0 ==\n");
    s
}

fn tricky_log() -> String {
    let mut s = String::new();
    for i in 0..500 {
        writeln!(s, "copy C:\\build\\out{i}.log -> backup").ok();
    }
    s.push_str("copy C:\\path\\[x]*?.log -> backup   (a literal with \\ [ ] * ?)\n");
    s.push_str("template #{session_name} and job #(rm -rf /) are just text here\n");
    s.push_str("== END logs.1 ==\n");
    s
}

fn tmux_cmd(tmux: &str, sock: &Path, args: &[&str]) -> Result<(), String> {
    let out = Proc::new(tmux)
        .arg("-S")
        .arg(sock)
        .arg("-f")
        .arg("/dev/null")
        .args(args)
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {tmux}: {e} (set --tmux or TMUXWIRE_TMUX)"))?;
    if !out.status.success() {
        return Err(format!(
            "{tmux} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

async fn call(servers: &Servers, name: &str, args: Value) -> Result<(Value, Duration), String> {
    let Value::Object(map) = args else {
        return Err("bad demo arguments".into());
    };
    let t = Instant::now();
    let v = super::tool::call_tool(servers, name, map)
        .await
        .map_err(|e| e.into_cli().to_string())?;
    Ok((v, t.elapsed()))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
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

/// Runs the demo.
pub async fn run(tmux: &str, keep: bool) -> ExitCode {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("tmuxwire-demo-{}-{nanos}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("tmuxwire demo: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let sock = dir.join("tmux.sock");
    let mut cleanup = Cleanup {
        sock: sock.clone(),
        dir: dir.clone(),
        armed: true,
    };
    let result = demo(tmux, &dir, &sock).await;
    if keep && result.is_ok() {
        cleanup.armed = false;
        say!(
            "\nThe server is still running: tmux -S {} attach",
            sock.display()
        );
    } else {
        cleanup.run().await;
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tmuxwire demo: {e}");
            ExitCode::from(2)
        }
    }
}

async fn demo(tmux: &str, dir: &Path, sock: &Path) -> Result<(), String> {
    let mut rng = Rng::with_seed(0x2545_f491_4f6c_dd1d);
    let panes = [
        Pane {
            session: "build",
            file: "build0.txt",
            text: build_log(&mut rng),
        },
        Pane {
            session: "build",
            file: "build1.txt",
            text: test_log(&mut rng),
        },
        Pane {
            session: "logs",
            file: "logs0.txt",
            text: service_log(&mut rng),
        },
        Pane {
            session: "logs",
            file: "logs1.txt",
            text: tricky_log(),
        },
    ];
    let mut total = 0;
    for p in &panes {
        std::fs::write(dir.join(p.file), &p.text).map_err(|e| e.to_string())?;
        total += p.text.len();
    }
    say!("tmuxwire demo: a private tmux server on {}", sock.display());
    say!(
        "  4 panes in 2 sessions, {} of generated output (colours, wrapped lines, CJK)",
        human(total)
    );

    // Start the server: the only use of the tmux binary.
    let started = Instant::now();
    let w = WIDTH.to_string();
    let pane_cmd = |p: &Pane| -> String {
        let path: PathBuf = dir.join(p.file);
        format!("cat '{}'; exec sleep 86400", path.display())
    };
    tmux_cmd(
        tmux,
        sock,
        &[
            "start-server",
            ";",
            "set",
            "-g",
            "history-limit",
            "20000",
            ";",
            "new-session",
            "-d",
            "-s",
            panes[0].session,
            "-x",
            &w,
            "-y",
            "30",
            &pane_cmd(&panes[0]),
            ";",
            "split-window",
            "-v",
            "-t",
            "build:",
            &pane_cmd(&panes[1]),
            ";",
            "new-session",
            "-d",
            "-s",
            panes[2].session,
            "-x",
            &w,
            "-y",
            "30",
            &pane_cmd(&panes[2]),
            ";",
            "split-window",
            "-v",
            "-t",
            "logs:",
            &pane_cmd(&panes[3]),
        ],
    )?;

    let caller = Caller::default();
    let default = Arc::new(Tmux::new(sock.to_path_buf(), None, caller.clone()));
    let servers = Servers::new(default, caller);

    // Wait (with a deadline) until every pane printed its END line.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (v, _) = call(
            &servers,
            "search_panes",
            json!({"pattern": "== END ", "limit": null}),
        )
        .await?;
        if v["total_panes_matched"].as_u64() == Some(4) {
            break;
        }
        if Instant::now() > deadline {
            return Err("the demo panes did not finish printing within 20 s".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    say!("  server started and filled in {}", ms(started.elapsed()));

    let (info, took) = call(&servers, "get_server_info", json!({})).await?;
    say!(
        "\nget_server_info: tmux {} (imsg framing '{}'), {} sessions — {}",
        info["version"].as_str().unwrap_or("?"),
        info["imsg_framing"].as_str().unwrap_or("?"),
        info["session_count"],
        ms(took)
    );

    let n = 200;
    let t = Instant::now();
    for _ in 0..n {
        call(&servers, "list_panes", json!({})).await?;
    }
    say!(
        "list_panes: {} per call (mean of {n}; one round trip each, no tmux process)",
        ms(t.elapsed() / n)
    );

    let searches: [(&str, Value, &str); 5] = [
        (
            "a literal split by a soft wrap",
            json!({"pattern": WRAPPED_NEEDLE}),
            "tmux's own #{C:} search and libtmux-mcp's default path miss this",
        ),
        (
            "a regex over all scrollback",
            json!({"pattern": r"error\s+connection refused by 10\.0\.0\.1\d\b", "regex": true, "max_matched_lines_per_pane": 3}),
            "",
        ),
        (
            "a literal full of glob and format characters",
            json!({"pattern": r"C:\path\[x]*?.log"}),
            "",
        ),
        (
            "CJK text in one session",
            json!({"pattern": "完了 (処理時間 42", "session_name": "logs"}),
            "",
        ),
        (
            "text that is nowhere (a full scan)",
            json!({"pattern": "no-such-text-anywhere"}),
            "",
        ),
    ];
    for (what, args, note) in searches {
        let (v, took) = call(&servers, "search_panes", args.clone()).await?;
        say!("\nsearch_panes {}: {what} — {}", args, ms(took));
        if !note.is_empty() {
            say!("  ({note})");
        }
        let lines = print_matches_indented(&v);
        say!(
            "  {} line(s) shown; {} pane(s) matched of {} searched",
            lines,
            v["total_panes_matched"],
            v["panes_searched"]
        );
    }

    let (cap, took) = call(
        &servers,
        "capture_pane",
        json!({"session_name": "logs", "start": -3, "end": 2, "max_lines": null}),
    )
    .await?;
    say!("\ncapture_pane (logs, lines -3..2) — {}:", ms(took));
    for l in cap["result"].as_str().unwrap_or("").lines() {
        say!("  | {l}");
    }
    say!(
        "\nDone. tmuxwire spoke tmux's protocol directly; the tmux binary only started the server."
    );
    Ok(())
}

/// Prints a `search_panes` result's matched lines, indented, with the pane
/// and the rows each line spans; returns how many lines.
fn print_matches_indented(v: &Value) -> usize {
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut n = 0;
    for m in v["matches"].as_array().into_iter().flatten() {
        let place = format!(
            "{}:{}.{}",
            s(&m["session_name"]),
            s(&m["window_index"]),
            s(&m["pane_index"])
        );
        let lines = m["matched_lines"].as_array().cloned().unwrap_or_default();
        for (i, line) in lines.iter().enumerate() {
            let text = s(line);
            let short: String = text.chars().take(110).collect();
            let ell = if short.len() < text.len() { "…" } else { "" };
            let rows = m["matched_line_rows"][i].as_u64().unwrap_or(1);
            let plural = if rows == 1 { "" } else { "s" };
            say!(
                "  {place} {} line {} ({rows} row{plural}): {short}{ell}",
                s(&m["pane_id"]),
                s(&m["matched_line_numbers"][i]),
            );
            n += 1;
        }
    }
    n
}

fn human(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.0} KiB", bytes as f64 / 1024.0)
    }
}
