//! Waits never take the echo of input tmuxwire typed for output, tested the way it failed:
//! text typed while the shell is still busy is echoed twice (the tty echoes the typeahead, then
//! the line editor draws prompt + text again when it reads it), on lines the wait looks at.
//! `wait_for_text` after `send_keys`, after `run_command` (and on the echo of `run_command`'s
//! own typed wrapper), and `tmuxwire wait --send`, on bash, zsh, dash and fish, on every tmux
//! version: each must return only once the command itself printed, and the matched line is
//! the output line. The shell-side `sleep`s are the workload; every wait here has a deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tmuxwire::tmux::Servers;

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, servers, test_shell, tmux_bins, wait_until_true};
use tmuxwire::mcp::args::{CaptureSinceArgs, RunCommandArgs, SendKeysArgs, WaitForTextArgs};

/// The parent pid and command name of process `pid` (from `/proc/<pid>/stat`).
fn parent_and_name(pid: u32) -> Option<(u32, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let ppid = stat
        .get(close + 2..)?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((ppid, name))
}

/// Waits until a `sleep` runs under `pane`'s shell (directly, or in a subshell): the shell is
/// busy, so what is typed now is typeahead.
fn until_busy(server: &TestServer, pane: &str) {
    let shell: u32 = server
        .tmux_ok(&["display-message", "-p", "-t", pane, "#{pane_pid}"])
        .trim()
        .parse()
        .expect("pane pid");
    wait_until_true("sleep to run in the pane", DEADLINE, || {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return false;
        };
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|&pid| parent_and_name(pid).is_some_and(|(_, n)| n == "sleep"))
            .any(|pid| {
                // An ancestor within a few steps is the pane's shell.
                let mut at = pid;
                (0..8).any(|_| match parent_and_name(at) {
                    Some((ppid, _)) if ppid == shell => true,
                    Some((ppid, _)) if ppid > 1 => {
                        at = ppid;
                        false
                    }
                    _ => false,
                })
            })
    });
}

/// Types `keys` with tmuxwire's `send_keys` (then Enter).
async fn send(s: &Servers, pane: &str, keys: &str) {
    let args = SendKeysArgs {
        keys: keys.to_string(),
        ..SendKeysArgs::on(pane)
    };
    ok_typed(s, args).await;
}

async fn wait_for(s: &Servers, pane: &str, pattern: &str) -> Value {
    let args = WaitForTextArgs {
        patterns: Some(vec![pattern.to_string()]),
        timeout: 20.0,
        ..WaitForTextArgs::on(pane)
    };
    ok_typed(s, args).await
}

/// Whether `line` is the output line `want`: alone, or after prompts only (dash prints it
/// after its `$ ` and a `> ` for each line it read: it draws no echo of typeahead). Never a
/// line holding the command.
fn is_output(line: &str, want: &str) -> bool {
    line.strip_suffix(want)
        .is_some_and(|before| before.chars().all(|c| "$#%> ".contains(c)))
}

/// The wait matched the output line `want` alone, and no sooner than `at_least` after the
/// input was typed (before that, the command could not have printed it).
fn check(ctx: &str, r: &Value, want: &str, typed: Instant, at_least: Duration) {
    assert_eq!(r["outcome"], json!("matched"), "{ctx}: {r}");
    let lines = r["matched_lines"].as_array().cloned().unwrap_or_default();
    let line = lines.first().and_then(Value::as_str).unwrap_or("");
    assert!(
        lines.len() == 1 && is_output(line, want),
        "{ctx}: matched an echo: {r}"
    );
    let waited = typed.elapsed();
    assert!(
        waited >= at_least,
        "{ctx}: matched after {waited:?}, before the command printed {want}: {r}"
    );
}

const SECOND: Duration = Duration::from_secs(1);

async fn typeahead(shell: &'static str) {
    let Some(sh) = test_shell(shell) else { return };
    for bin in tmux_bins() {
        let ctx = format!("{shell} on tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(60, 20)
            .command(&sh.command)
            .start();
        let pane = first_pane(&server);
        run(&server, &pane, "true"); // the shell is up
        let s: Arc<Servers> = servers(&server);
        ok_typed(&s, CaptureSinceArgs::on(&pane)).await; // the copy exists

        // send_keys while `sleep 2` runs, then wait for the command's own output.
        send(&s, &pane, "sleep 2").await;
        until_busy(&server, &pane);
        let typed = Instant::now();
        send(&s, &pane, "sleep 1; echo LATE1").await;
        let r = wait_for(&s, &pane, "LATE1").await;
        check(&format!("{ctx}, send_keys"), &r, "LATE1", typed, SECOND);
        run(&server, &pane, "true");

        // Multi-line input, one line longer than the pane is wide (zsh breaks it over rows
        // itself; the others wrap it).
        send(&s, &pane, "sleep 2").await;
        until_busy(&server, &pane);
        let long = "sleep 1; echo LONG-OUTPUT and a few more words to wrap MARK9";
        let typed = Instant::now();
        send(&s, &pane, &format!("{long}\necho MULTI-LINE-B")).await;
        let r = wait_for(&s, &pane, "MARK9").await;
        let out = "LONG-OUTPUT and a few more words to wrap MARK9";
        check(&format!("{ctx}, a long line"), &r, out, typed, SECOND);
        let r = wait_for(&s, &pane, "MULTI-LINE-B").await;
        check(
            &format!("{ctx}, multi-line"),
            &r,
            "MULTI-LINE-B",
            typed,
            SECOND,
        );
        run(&server, &pane, "true");

        // any_output does not end on the echo (the tty's, at once), only on the prompt the
        // shell draws when `sleep 2` is over; a stop pattern in the echo does not stop a wait.
        send(&s, &pane, "sleep 2").await;
        until_busy(&server, &pane);
        let typed = Instant::now();
        send(&s, &pane, "sleep 1; echo STOPWORD-1").await;
        let any = WaitForTextArgs {
            timeout: 20.0,
            ..WaitForTextArgs::on(&pane)
        };
        let r = ok_typed(&s, any).await;
        assert_eq!(r["outcome"], json!("any_output"), "{ctx}: {r}");
        assert!(
            typed.elapsed() >= SECOND,
            "{ctx}: any_output on the echo: {r}"
        );
        let r = ok_typed(
            &s,
            WaitForTextArgs {
                patterns: Some(vec!["never".into()]),
                stop: Some(vec!["STOPWORD".into()]),
                timeout: 20.0,
                ..WaitForTextArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(r["outcome"], json!("stopped"), "{ctx}: {r}");
        let line = r["matched_lines"][0].as_str().unwrap_or("");
        assert!(
            is_output(line, "STOPWORD-1"),
            "{ctx}: stopped by an echo: {r}"
        );
        assert!(typed.elapsed() >= 2 * SECOND, "{ctx}: stopped early: {r}");
        run(&server, &pane, "true");

        if sh.posix {
            // Input typed while run_command's command runs is echoed between its marks: not
            // part of its output.
            let s2 = s.clone();
            let p2 = pane.clone();
            let running = tokio::spawn(async move {
                let args = RunCommandArgs {
                    command: "sleep 2; echo RC-OUT".into(),
                    ..RunCommandArgs::on(&p2)
                };
                ok_typed(&s2, args).await
            });
            until_busy(&server, &pane);
            send(&s, &pane, "echo TYPED-DURING").await;
            let r = running.await.expect("run_command task");
            assert_eq!(r["output"], json!(["RC-OUT"]), "{ctx}: {r}");
            run(&server, &pane, "true");

            // Right after a run_command that is still running...
            let r = ok_typed(
                &s,
                RunCommandArgs {
                    command: "sleep 2".into(),
                    timeout: 0.3,
                    ..RunCommandArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(r["timed_out"], json!(true), "{ctx}: {r}");
            let typed = Instant::now();
            send(&s, &pane, "sleep 1; echo LATE2").await;
            let r = wait_for(&s, &pane, "LATE2").await;
            check(
                &format!("{ctx}, after a running run_command"),
                &r,
                "LATE2",
                typed,
                SECOND,
            );
            run(&server, &pane, "true");
            // ...and right after one that ended (the shell still draws its prompt).
            let r = ok_typed(
                &s,
                RunCommandArgs {
                    command: "true".into(),
                    ..RunCommandArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(r["exit_status"], json!(0), "{ctx}: {r}");
            let typed = Instant::now();
            send(&s, &pane, "sleep 1; echo LATE3").await;
            let r = wait_for(&s, &pane, "LATE3").await;
            check(
                &format!("{ctx}, after run_command"),
                &r,
                "LATE3",
                typed,
                SECOND,
            );
            run(&server, &pane, "true");
            // The echo of run_command's own typed wrapper, typed while the shell is busy.
            send(&s, &pane, "sleep 2").await;
            until_busy(&server, &pane);
            let typed = Instant::now();
            let r = ok_typed(
                &s,
                RunCommandArgs {
                    command: "sleep 1; echo WRAP4".into(),
                    timeout: 0.3,
                    ..RunCommandArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(r["timed_out"], json!(true), "{ctx}: {r}");
            let r = wait_for(&s, &pane, "WRAP4").await;
            check(
                &format!("{ctx}, run_command's wrapper"),
                &r,
                "WRAP4",
                typed,
                SECOND,
            );
            run(&server, &pane, "true");
        }

        // tmuxwire wait --send, through the binary, while `sleep 2` runs.
        type_line(&server, &pane, "sleep 2");
        until_busy(&server, &pane);
        let typed = Instant::now();
        let o = crate::support::run_tmuxwire(
            &server.socket,
            &[
                "wait",
                "-t",
                &pane,
                "--timeout",
                "20",
                "--send",
                "sleep 1; echo LATE5",
                "LATE5",
            ],
        );
        let waited = typed.elapsed();
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{ctx}: wait --send: {out} {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            is_output(out.trim_end(), "LATE5"),
            "{ctx}: wait --send matched an echo: {out}"
        );
        assert!(
            waited >= SECOND,
            "{ctx}: wait --send returned after {waited:?}"
        );
        // The output really is there, as tmux shows it.
        wait_until_true("LATE5 in tmux's capture", DEADLINE, || {
            tmux_lines(&server, &pane, &[])
                .iter()
                .any(|l| is_output(l, "LATE5"))
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typeahead_echo_bash() {
    typeahead("bash").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typeahead_echo_zsh() {
    typeahead("zsh").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typeahead_echo_dash() {
    typeahead("dash").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typeahead_echo_fish() {
    typeahead("fish").await;
}
