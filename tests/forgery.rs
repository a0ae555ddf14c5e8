//! Answers that programs in panes cannot cut or forge, tried as an attacker would.
//!
//! Any program in a pane can learn the current second and the server's next command number
//! (`tmux -C attach` prints `%begin T N 1` for its own command), and so write lines that equal
//! the guard (`%end T N 1`) tmux will print after one of tmuxwire's later commands. A client
//! that ends a block at the first such line returns a shorter answer (or desynchronises). The
//! tests plant such guesses in pane text and in a working directory (tmux prints
//! `pane_current_path` raw, line breaks included) and compare every affected tool and the CLI
//! with tmux's own answers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, servers, tmux_bins, wait_until};
use tmuxwire::mcp::args::{CapturePaneArgs, ListPanesArgs, PaneArgs, SnapshotPaneArgs};

/// `(time, number)` of a command run now, learned the way a program in a pane could: through
/// a control client of its own.
fn next_guard(server: &TestServer) -> (i64, u64) {
    let mut child = server
        .command()
        .args(["-C", "attach"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tmux -C attach");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(b"display-message -p LEARN\n\n")
            .expect("write");
    }
    let out = child.wait_with_output().expect("tmux -C output");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "LEARN")
        .unwrap_or_else(|| panic!("no LEARN in {text:?}"));
    let begin = lines[..at]
        .iter()
        .rev()
        .find(|l| l.starts_with("%begin "))
        .expect("%begin before LEARN");
    let f: Vec<&str> = begin.split(' ').collect();
    (f[1].parse().expect("time"), f[2].parse().expect("number"))
}

/// Guard lines for the next `count` command numbers after `n`, at the seconds `t..t+secs`.
fn guesses(t: i64, n: u64, count: u64, secs: i64) -> Vec<String> {
    let mut v = Vec::new();
    for dt in 0..secs {
        for k in 1..=count {
            v.push(format!("%end {} {} 1", t + dt, n + k));
            v.push(format!("%error {} {} 1", t + dt, n + k));
        }
    }
    v
}

/// Runs the `tmuxwire` binary against `socket`.
fn tw(socket: &Path, args: &[&str]) -> String {
    let out = crate::support::run_tmuxwire(socket, args);
    assert!(
        out.status.success(),
        "tmuxwire {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The current working directory of process `pid`, read from /proc (no tmux command runs).
fn cwd_of(pid: &str) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// A pane's text holds guard lines for every command tmuxwire is about to send: captures,
/// snapshots and searches still return all of it, equal to tmux's own capture.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_guards_in_pane_text_cut_nothing() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(100, 20)
            .history_limit(60_000)
            .start();
        let pane = first_pane(&server);
        let servers = servers(&server);
        // Connected before the attack, as a long-running MCP server is.
        ok_typed(&servers, ListPanesArgs::default()).await;

        let (t, n) = next_guard(&server);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("forged.txt");
        let mut text = guesses(t, n, 3000, 3).join("\n");
        text.push_str("\nAFTER-FORGED-MARK\n");
        std::fs::write(&file, text).unwrap();
        run(&server, &pane, &format!("cat {}", file.display()));

        let want = tmux_lines(&server, &pane, &["-S", "-", "-E", "-"]);
        assert!(want.len() > 18_000, "{ctx}: {} lines planted", want.len());
        let cap = ok_typed(
            &servers,
            CapturePaneArgs {
                start: Some(-100_000),
                max_lines: None,
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        let got = lines_of(cap["result"].as_str().unwrap_or(""));
        assert_eq!(got.len(), want.len(), "{ctx}: capture_pane was cut");
        assert!(got == want, "{ctx}: capture_pane differs from tmux's");

        let found = ok_typed(&servers, search_for("AFTER-FORGED-MARK")).await;
        assert_eq!(
            found["total_panes_matched"],
            json!(1),
            "{ctx}: search missed the line after the forged guards: {found}"
        );
        let forged = ok_typed(&servers, search_for(&format!("%end {t} {} 1", n + 2999))).await;
        assert_eq!(forged["total_panes_matched"], json!(1), "{ctx}: {forged}");

        let snap = ok_typed(
            &servers,
            SnapshotPaneArgs {
                max_lines: None,
                ..SnapshotPaneArgs::on(&pane)
            },
        )
        .await;
        let screen = tmux_lines(&server, &pane, &[]);
        assert_eq!(
            lines_of(snap["content"].as_str().unwrap_or("")),
            screen,
            "{ctx}: snapshot_pane"
        );
        let cli = tw(
            &server.socket,
            &["capture", "-t", &pane, "--start", "-100000"],
        );
        assert_eq!(lines_of(&cli), want, "{ctx}: tmuxwire capture");

        // Copies made once (`tmuxwire search`, search_panes without the mirror) read the same
        // lines: each forged guard is one line of text, and the line after them is found.
        let plain = crate::support::capture_servers(&server);
        let found = ok_typed(&plain, search_for("AFTER-FORGED-MARK")).await;
        assert_eq!(found["total_panes_matched"], json!(1), "{ctx}: {found}");
        assert_eq!(found["matches"][0]["source"], json!("capture"), "{ctx}");
        let forged_lines = want.iter().filter(|l| l.contains("%end")).count();
        assert!(
            forged_lines >= 3000,
            "{ctx}: {forged_lines} forged %end lines"
        );
        let counted = tw(&server.socket, &["search", "-c", "-h", "-t", &pane, "%end"]);
        assert_eq!(
            counted.trim(),
            forged_lines.to_string(),
            "{ctx}: tmuxwire search -c"
        );
        let after = tw(
            &server.socket,
            &["search", "-h", "-N", "-t", &pane, "AFTER-FORGED-MARK"],
        );
        assert_eq!(
            lines_of(&after),
            ["AFTER-FORGED-MARK"],
            "{ctx}: tmuxwire search"
        );
        assert!(server.is_alive());
    }
}

/// A working directory whose name holds guard lines for the next commands: every pane is still
/// listed and searched, and the path comes back exactly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_guards_in_a_working_directory_cut_nothing() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(100, 20).start();
        let first = first_pane(&server);
        let evil_pane = server.new_window_pane(&[]);
        let last = server.new_window_pane(&[]);
        let pid = server
            .tmux_ok(&["display-message", "-p", "-t", &evil_pane, "#{pane_pid}"])
            .trim()
            .to_string();
        run(&server, &last, "echo LAST-PANE-MARK");
        let servers = servers(&server);
        ok_typed(&servers, ListPanesArgs::default()).await;

        // Nested directories whose names hold the guards, under 4 KiB in all (tmux reads
        // the path with readlink(2) into PATH_MAX bytes).
        let (t, n) = next_guard(&server);
        let base = tempfile::tempdir().unwrap();
        let mut path = base.path().to_path_buf();
        let lines = guesses(t, n, 35, 2);
        for chunk in lines.chunks(8) {
            let name: String = chunk.iter().map(|l| format!("\n{l}")).collect();
            path.push(name);
        }
        path.push("end");
        assert!(path.as_os_str().len() < 4000, "{}", path.as_os_str().len());
        std::fs::create_dir_all(&path).unwrap();
        let quoted = format!("'{}'", path.display().to_string().replace('\'', "'\\''"));
        type_line(&server, &evil_pane, &format!("cd {quoted}"));
        // Wait without tmux commands (they would use up the guessed numbers).
        wait_until("the shell changed directory", DEADLINE, || {
            (cwd_of(&pid).as_deref() == Some(path.as_path())).then_some(())
        });

        let panes = ok_typed(&servers, ListPanesArgs::default()).await;
        let rows = panes["result"].as_array().cloned().unwrap_or_default();
        let ids: Vec<&str> = rows.iter().filter_map(|p| p["pane_id"].as_str()).collect();
        assert_eq!(
            ids,
            [first.as_str(), evil_pane.as_str(), last.as_str()],
            "{ctx}: list_panes"
        );
        let evil: Vec<&Value> = rows
            .iter()
            .filter(|p| p["pane_id"] == json!(evil_pane))
            .collect();
        assert_eq!(
            evil[0]["pane_current_path"],
            json!(path.display().to_string()),
            "{ctx}: the path came back changed"
        );
        let info = ok_typed(&servers, PaneArgs::on(&evil_pane)).await;
        assert_eq!(
            info["pane_current_path"],
            json!(path.display().to_string()),
            "{ctx}"
        );
        let found = ok_typed(&servers, search_for("LAST-PANE-MARK")).await;
        assert_eq!(found["panes_searched"], json!(3), "{ctx}: {found}");
        assert_eq!(found["total_panes_matched"], json!(1), "{ctx}: {found}");
        let cli = tw(&server.socket, &["panes"]);
        for p in [&first, &evil_pane, &last] {
            assert!(
                cli.contains(p.as_str()),
                "{ctx}: `tmuxwire panes` lost {p}:\n{cli}"
            );
        }
        assert!(server.is_alive());
    }
}
