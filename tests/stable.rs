//! `wait_for_stable` on fake TUIs (a spinner with a timer, masked and
//! unmasked; a program drawing inside `?2026` frames; one that ends with
//! a status line), and the early `password_prompt` / `awaiting_input`
//! outcomes of every wait (`wait_for_stable`, `wait_for_text`,
//! `run_command`) on programs reading a line.

use std::sync::Arc;

use serde_json::{Value, json};
use tmuxwire::tmux::Servers;

use crate::support::tool::*;
use crate::support::{TestServer, mirrored_servers, system_tmux};
use crate::support::{gated, go, has_python};
use tmuxwire::mcp::args::{RunCommandArgs, WaitForCommandArgs, WaitForStableArgs, WaitForTextArgs};

/// Starts `wait_for_stable` with `args` on `pane` in a task, once the
/// pane shows `ready`; returns when the wait follows the pane.
async fn stable_wait(
    server: &TestServer,
    s: &Arc<Servers>,
    pane: &str,
    args: WaitForStableArgs,
) -> tokio::task::JoinHandle<Value> {
    server.wait_for_text(pane, "ready", crate::support::DEADLINE);
    let args = WaitForStableArgs {
        pane_id: Some(pane.to_string()),
        ..args
    };
    let wait = {
        let s = s.clone();
        tokio::spawn(async move { ok_typed(&s, args).await })
    };
    crate::support::wait_subscribed(s.default_server(), pane).await;
    wait
}

const SPIN: &str = "glyphs = '\u{280b}\u{2819}\u{2839}\u{2838}\u{283c}\u{2834}'\n\
    w('Task: build\\n')\nt0 = time.time()\ni = 0\nwhile True:\n    \
    w('\\r%s Working (%ds)  ' % (glyphs[i % 6], int(time.time() - t0))); sys.stdout.flush()\n    \
    i += 1; time.sleep(0.05)";

/// A spinner and a timer keep an unmasked screen changing (the wait
/// times out, with the changes counted); masked by patterns or by its
/// row, the screen is stable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spinner_is_stable_only_when_masked() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let pane = server.new_window_pane(&[&gated(dir.path(), "spin", SPIN)]);
    let wait = stable_wait(
        &server,
        &s,
        &pane,
        WaitForStableArgs {
            stable_ms: 400.0,
            timeout: 1.5,
            ..Default::default()
        },
    )
    .await;
    go(dir.path(), "spin");
    let v = wait.await.expect("wait");
    assert_eq!(v["outcome"], json!("timeout"), "{v}");
    assert_eq!(v["found"], json!(false), "{v}");
    assert!(v["changes"].as_u64().is_some_and(|c| c >= 5), "{v}");
    assert!(
        v["screen"].to_string().contains("Working"),
        "the screen at the end: {v}"
    );
    // Masked: the glyph and the timer cut out of the rows.
    let masked = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 400.0,
            timeout: 5.0,
            mask_patterns: Some(vec![
                "[\u{280b}\u{2819}\u{2839}\u{2838}\u{283c}\u{2834}]".into(),
                "\\(\\d+s\\)".into(),
            ]),
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(masked["outcome"], json!("stable"), "{masked}");
    assert!(
        masked["stable_for_ms"]
            .as_f64()
            .is_some_and(|ms| ms >= 400.0)
    );
    assert!(
        masked["screen_hash"]
            .as_str()
            .is_some_and(|h| h.len() == 16)
    );
    // Masked by its row (row 2: `ready` and `Task: build` above it).
    let by_row = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 400.0,
            timeout: 5.0,
            mask_rows: Some(vec![2, -30]),
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(by_row["outcome"], json!("stable"), "{by_row}");
    // The same masked screen, the same hash.
    let again = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 100.0,
            timeout: 5.0,
            mask_rows: Some(vec![2]),
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(again["screen_hash"], by_row["screen_hash"], "{again}");
}

/// A repaint inside a synchronized-output frame is never the screen: a
/// frame that shows `partial` for 700 ms (longer than stable_ms) and
/// then `frame done` is stable only after its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_in_progress_is_not_stable() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let body = "w('\\x1b[?2026h\\x1b[2J\\x1b[Hpartial'); sys.stdout.flush()\n\
                time.sleep(0.7)\n\
                w('\\r\\x1b[Kframe done\\x1b[?2026l'); sys.stdout.flush()";
    let pane = server.new_window_pane(&[&gated(dir.path(), "sync", body)]);
    let wait = stable_wait(
        &server,
        &s,
        &pane,
        WaitForStableArgs {
            stable_ms: 400.0,
            timeout: 10.0,
            require_change: true,
            ..Default::default()
        },
    )
    .await;
    go(dir.path(), "sync");
    let v = wait.await.expect("wait");
    assert_eq!(v["outcome"], json!("stable"), "{v}");
    let screen = v["screen"].to_string();
    assert!(screen.contains("frame done"), "{v}");
    assert!(!screen.contains("partial"), "{v}");
    assert!(
        v["elapsed_seconds"].as_f64().is_some_and(|e| e >= 1.0),
        "{v}"
    );
}

/// `until_pattern` ends the wait as `matched` when the status appears;
/// `absent_pattern` once the spinner's "Working" is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn until_and_absent_patterns_match() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let body = "for i in range(12):\n    w('\\r%d Working' % i); sys.stdout.flush(); time.sleep(0.05)\n\
                w('\\r\\x1b[KDone: 3 files'); sys.stdout.flush()";
    for (name, args) in [
        (
            "until",
            WaitForStableArgs {
                until_pattern: Some("Done: \\d+ files".into()),
                ..Default::default()
            },
        ),
        (
            "absent",
            WaitForStableArgs {
                absent_pattern: Some("Working".into()),
                ..Default::default()
            },
        ),
    ] {
        let pane = server.new_window_pane(&[&gated(dir.path(), name, body)]);
        let args = WaitForStableArgs {
            stable_ms: 60000.0,
            timeout: 10.0,
            ..args
        };
        let wait = stable_wait(&server, &s, &pane, args).await;
        go(dir.path(), name);
        let v = wait.await.expect("wait");
        assert_eq!(v["outcome"], json!("matched"), "{name}: {v}");
        assert_eq!(v["found"], json!(true), "{v}");
        assert!(v["screen"].to_string().contains("Done: 3 files"), "{v}");
        assert!(
            v["elapsed_seconds"].as_f64().is_some_and(|e| e < 8.0),
            "{v}"
        );
    }
}

/// An idle shell is stable at once (its screen has not changed for
/// longer than stable_ms); with `require_change` it is not, and the
/// timeout says why. Bad arguments are clear errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_require_change_and_bad_arguments() {
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let pane = first_pane(&server);
    server.wait_for_text(&pane, "$", crate::support::DEADLINE);
    let v = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 200.0,
            timeout: 10.0,
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("stable"), "{v}");
    let v = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 100.0,
            timeout: 0.6,
            require_change: true,
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("timeout"), "{v}");
    assert!(v["evidence"].to_string().contains("require_change"), "{v}");
    assert_eq!(v["changes"], json!(0), "{v}");
    let on = || WaitForStableArgs::on(&pane);
    for (args, arg) in [
        (
            WaitForStableArgs {
                stable_ms: 0.0,
                ..on()
            },
            "stable_ms",
        ),
        (
            WaitForStableArgs {
                stable_ms: -5.0,
                ..on()
            },
            "stable_ms",
        ),
        (
            WaitForStableArgs {
                mask_patterns: Some(vec!["(".into()]),
                ..on()
            },
            "mask_patterns",
        ),
        (
            WaitForStableArgs {
                until_pattern: Some(String::new()),
                ..on()
            },
            "until_pattern",
        ),
        (
            WaitForStableArgs {
                timeout: 0.0,
                ..on()
            },
            "timeout",
        ),
    ] {
        let e = err_typed(&s, args.clone()).await;
        assert!(
            e.text.contains(arg) || e.meta.to_string().contains(arg),
            "{}: {e:?}",
            arguments(&args)
        );
    }
}

/// A program reading a password or a line ends every wait early, with
/// evidence, instead of waiting out the timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_end_when_the_program_reads_input() {
    for bin in crate::support::tmux_bins() {
        let server = TestServer::start(&bin);
        let s = mirrored_servers(&server);
        let password = server
            .new_window_pane(&["bash --norc --noprofile -c 'read -s -p Password: x; sleep 600'"]);
        let line = server.new_window_pane(&["cat"]);
        server.wait_for_text(&password, "Password:", crate::support::DEADLINE);
        for (pane, want) in [(&password, "password_prompt"), (&line, "awaiting_input")] {
            let v = ok_typed(
                &s,
                WaitForStableArgs {
                    stable_ms: 60000.0,
                    timeout: 20.0,
                    ..WaitForStableArgs::on(pane)
                },
            )
            .await;
            assert_eq!(v["outcome"], json!(want), "{v}");
            assert!(
                v["elapsed_seconds"].as_f64().is_some_and(|e| e < 10.0),
                "{v}"
            );
            assert!(v["evidence"].to_string().contains("termios"), "{v}");
            let v = ok_typed(
                &s,
                WaitForTextArgs {
                    patterns: Some(vec!["never printed".into()]),
                    timeout: 20.0,
                    ..WaitForTextArgs::on(pane)
                },
            )
            .await;
            assert_eq!(v["outcome"], json!(want), "{v}");
            assert_eq!(v["found"], json!(false), "{v}");
            assert!(
                v["elapsed_seconds"].as_f64().is_some_and(|e| e < 10.0),
                "{v}"
            );
            assert!(v["evidence"].to_string().contains("icanon"), "{v}");
        }
        // run_command of a command that asks a question.
        let shell = first_pane(&server);
        let v = ok_typed(
            &s,
            RunCommandArgs {
                command: "read -r -p 'Name? ' who; echo hi $who".into(),
                timeout: 20.0,
                ..RunCommandArgs::on(&shell)
            },
        )
        .await;
        assert_eq!(v["outcome"], json!("awaiting_input"), "{v}");
        assert_eq!(v["timed_out"], json!(false), "{v}");
        assert_eq!(v["exit_status"], Value::Null, "{v}");
        assert!(v["note"].to_string().contains("send_keys"), "{v}");
        assert!(
            v["elapsed_seconds"].as_f64().is_some_and(|e| e < 10.0),
            "{v}"
        );
        // Answered, the shell comes back to its prompt: a later wait is not
        // taken for a read (bash's readline is a line editor).
        server.tmux_ok(&["send-keys", "-t", &shell, "-l", "bob"]);
        server.tmux_ok(&["send-keys", "-t", &shell, "Enter"]);
        server.wait_for_text(&shell, "hi bob", crate::support::DEADLINE);
        let v = ok_typed(
            &s,
            WaitForTextArgs {
                patterns: Some(vec!["never printed".into()]),
                timeout: 1.0,
                ..WaitForTextArgs::on(&shell)
            },
        )
        .await;
        assert_eq!(v["outcome"], json!("timeout"), "{v}");
    }
}

/// A hostile program: it marks a "command" that never ends, whose command
/// line (OSC 633 `E`) carries escapes, a line break and 5000 bytes, and
/// prints a forged paste placeholder. `wait_for_stable` does not call the
/// screen idle (it says why, with the command line cleaned and capped, as
/// advisory); the program cannot end the wait early or break the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_cannot_forge_idle_or_break_the_answer() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    for bin in crate::support::tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::start(&bin);
        let s = mirrored_servers(&server);
        let body = "w('\\x1b]133;A\\x07$ \\x1b]133;B\\x07')\n\
                    w('\\x1b]633;E;evil\\x1b[2J\\nline two' + 'x' * 5000 + '\\x07')\n\
                    w('\\x1b]133;C\\x07[Pasted text #1] done\\n'); sys.stdout.flush()";
        let pane =
            server.new_window_pane(&[&gated(dir.path(), &format!("evil{}", bin.label), body)]);
        let wait = stable_wait(
            &server,
            &s,
            &pane,
            WaitForStableArgs {
                stable_ms: 200.0,
                timeout: 1.5,
                until_pattern: Some("never shown".into()),
                ..Default::default()
            },
        )
        .await;
        go(dir.path(), &format!("evil{}", bin.label));
        let v = wait.await.expect("wait");
        assert_eq!(v["outcome"], json!("timeout"), "{ctx}: {v}");
        let ev = v["evidence"].to_string();
        assert!(
            ev.contains("is running") && ev.contains("advisory"),
            "{ctx}: {v}"
        );
        // Decoded, no item holds an escape or a line break, and the command line is capped.
        for e in v["evidence"].as_array().expect("evidence") {
            let e = e.as_str().expect("text");
            assert!(!e.contains(['\u{1b}', '\n', '\x07']), "{ctx}: {e:?}");
            assert!(e.len() < 4096 + 200, "{ctx}: {} bytes", e.len());
        }
        assert!(v["screen"].to_string().contains("done"), "{ctx}: {v}");
    }
}

/// `wait_for_stable` ends with `exited` and the exit status when the
/// pane's program exits (remain-on-exit on), and `wait_for_stable` and
/// `wait_for_command` both end with `ServerGone` when the server exits:
/// within seconds, never at their 30 s timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screen_and_mark_waits_end_with_the_pane_and_the_server() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    for bin in crate::support::tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::start(&bin);
        server.tmux_ok(&["set", "-g", "remain-on-exit", "on"]);
        let s = mirrored_servers(&server);
        let name = format!("exit-{}", bin.label);
        let pane = server.new_window_pane(&[&gated(dir.path(), &name, "sys.exit(3)")]);
        let wait = stable_wait(
            &server,
            &s,
            &pane,
            WaitForStableArgs {
                require_change: true,
                timeout: 30.0,
                ..Default::default()
            },
        )
        .await;
        let at = std::time::Instant::now();
        go(dir.path(), &name);
        let v = wait.await.expect("task");
        assert_eq!(v["outcome"], json!("exited"), "{ctx}: {v}");
        assert_eq!(v["pane_exit_status"], json!(3), "{ctx}: {v}");
        assert!(
            at.elapsed() < std::time::Duration::from_secs(8),
            "{ctx}: {v}"
        );

        let sleeper = server.new_window_pane(&["sleep 600"]);
        let stable = {
            let s = s.clone();
            let args = WaitForStableArgs {
                require_change: true,
                timeout: 30.0,
                ..WaitForStableArgs::on(&sleeper)
            };
            tokio::spawn(async move { err_typed(&s, args).await })
        };
        let command = {
            let s = s.clone();
            let args = WaitForCommandArgs {
                timeout: 30.0,
                ..WaitForCommandArgs::on(&sleeper)
            };
            tokio::spawn(async move { err_typed(&s, args).await })
        };
        let id = sleeper.parse().expect("pane id");
        crate::support::waits_begun(s.default_server(), id, 2).await;
        let at = std::time::Instant::now();
        let _ = server.tmux(&["kill-server"]);
        for (tool, e) in [
            ("wait_for_stable", stable.await.expect("task")),
            ("wait_for_command", command.await.expect("task")),
        ] {
            assert_eq!(e.kind, "ServerGone", "{ctx}: {tool}: {e:?}");
        }
        assert!(at.elapsed() < std::time::Duration::from_secs(10), "{ctx}");
    }
}

/// A program reporting busy progress (OSC 9;4;3) is never called stable
/// while it does, however still its screen; once it clears the progress
/// (9;4;0) the same screen is stable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_progress_is_never_stable() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let done = dir.path().join("done");
    let body = format!(
        "w('\\x1b]9;4;3\\x07working\\n'); sys.stdout.flush()\n\
         while not os.path.exists({done:?}):\n    time.sleep(0.01)\n\
         w('\\x1b]9;4;0\\x07'); sys.stdout.flush()"
    );
    let pane = server.new_window_pane(&[&gated(dir.path(), "progress", &body)]);
    let args = WaitForStableArgs {
        stable_ms: 300.0,
        timeout: 2.0,
        ..Default::default()
    };
    let wait = stable_wait(&server, &s, &pane, args).await;
    go(dir.path(), "progress");
    let v = wait.await.expect("task");
    assert_eq!(v["outcome"], json!("timeout"), "{v}");
    assert!(v["evidence"].to_string().contains("progress busy"), "{v}");
    std::fs::write(&done, b"").expect("done");
    let v = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 300.0,
            timeout: 10.0,
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("stable"), "{v}");
    assert!(v["screen"].to_string().contains("working"), "{v}");
}
