//! `get_pane_state` on real programs: the input states of
//! `terminal-state.md` §3.2 (`read -s`, `getpass()`, `cat`, `sleep`,
//! `vi`, bash at its prompt), the screen modes by tmux version, and
//! process names a hostile program chose.

use serde_json::{Value, json};

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, capture_servers, system_tmux, tmux_bins};

/// Waits (with the deadline) until the pane's `input` is `want`; returns
/// the state. The program needs a moment to set its terminal.
async fn state_until(servers: &tmuxwire::tmux::Servers, pane: &str, want: &str) -> Value {
    let deadline = std::time::Instant::now() + DEADLINE;
    let mut pause = std::time::Duration::from_millis(2);
    loop {
        let v = ok(servers, "get_pane_state", json!({"pane_id": pane})).await;
        if v["input"] == json!(want) {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{pane}: input never became {want}; last: {v}"
        );
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(std::time::Duration::from_millis(20));
    }
}

/// Whether `name` is on `PATH`; when it is not, the skip of its rows is recorded.
fn has_program(name: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {name} >/dev/null")])
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        crate::support::skipped(&format!("{name} is not installed: its rows are not tested"));
    }
    found
}

/// The measured table, one pane per row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_states_of_real_programs() {
    let server = TestServer::start(&system_tmux());
    let servers = capture_servers(&server);
    let shell = first_pane(&server);
    let mut rows = vec![
        (shell.clone(), "line-editor", "bash", true),
        (
            server.new_window_pane(&["bash --norc --noprofile -c 'read -s x'"]),
            "password",
            "bash",
            true,
        ),
        (server.new_window_pane(&["cat"]), "line-read", "cat", true),
        (
            server.new_window_pane(&["sleep 100"]),
            "busy",
            "sleep",
            true,
        ),
    ];
    if crate::support::has_python() {
        rows.push((
            server.new_window_pane(&["python3 -c 'import getpass; getpass.getpass()'"]),
            "password",
            "python3",
            false,
        ));
    }
    if has_program("vi") {
        rows.push((server.new_window_pane(&["vi -u NONE"]), "raw", "", true));
    }
    for (pane, want, name, own) in rows {
        let v = state_until(&servers, &pane, want).await;
        assert_eq!(v["pane_id"], json!(pane), "{v}");
        let fg = &v["foreground"];
        assert!(fg["pid"].as_u64().is_some_and(|p| p > 0), "{v}");
        if !name.is_empty() {
            assert!(
                fg["name"].as_str().is_some_and(|n| n.starts_with(name)),
                "{v}"
            );
        }
        if own {
            // The pane's own process (tmux's `sh -c` execs a lone command).
            assert_eq!(v["shell_in_foreground"], json!(true), "{v}");
        }
        let t = &v["termios"];
        match want {
            "password" => assert_eq!(*t, json!({"echo": false, "icanon": true}), "{v}"),
            "line-read" | "busy" => assert_eq!(*t, json!({"echo": true, "icanon": true}), "{v}"),
            _ => assert_eq!(t["icanon"], json!(false), "{v}"),
        }
        let ev = v["evidence"].as_array().expect("evidence");
        assert!(
            ev.iter()
                .any(|e| e.as_str().is_some_and(|e| e.starts_with("termios: "))),
            "{v}"
        );
        if want == "raw" {
            assert_eq!(v["alternate_on"], json!(true), "{v}");
        }
        if want == "busy" {
            assert_eq!(v["wchan"], json!("hrtimer_nanosleep"), "{v}");
        }
        // The text block is the object.
        let r = call(&servers, "get_pane_state", json!({"pane_id": pane})).await;
        let text: Value = serde_json::from_str(&text_of(&r)).expect("JSON text");
        assert_eq!(text["pane_id"], json!(pane));
    }
    // The shell after `read -s` returned: at its prompt again.
    let e = err(&servers, "get_pane_state", json!({"pane_id": "%999"})).await;
    assert_eq!(e.kind, "NotFound", "{e:?}");
}

/// Names a program chose (a copied binary's file name, a write to
/// `/proc/self/comm`) with `)`, `(`, spaces, a line feed and escape
/// bytes: the fields after the name are still read right, and the name
/// comes back with its control characters escaped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_process_names() {
    let server = TestServer::start(&system_tmux());
    let servers = capture_servers(&server);
    let dir = tempfile::tempdir().unwrap();
    let name = "c) (d\n\x1b[2Jz";
    let bin = dir.path().join(name);
    std::fs::copy("/bin/cat", &bin).unwrap();
    let script = dir.path().join("run.sh");
    std::fs::write(&script, format!("exec '{}'\n", bin.display())).unwrap();
    let pane = server.new_window_pane(&[&format!("sh {}", script.display())]);
    let v = state_until(&servers, &pane, "line-read").await;
    assert_eq!(v["foreground"]["name"], json!("c) (d\\n\\x1b[2Jz"), "{v}");
    assert_eq!(v["shell_in_foreground"], json!(true), "{v}");
    let all = v.to_string();
    assert!(!all.contains('\u{1b}'), "{all}");
    for e in v["evidence"].as_array().unwrap() {
        assert!(!e.as_str().unwrap().chars().any(char::is_control), "{e}");
    }
    if crate::support::has_python() {
        let code = "open('/proc/self/comm','w').write(') R 1 (\\x1b]0;t\\x07'); import sys; sys.stdin.readline()";
        let pane = server.new_window_pane(&[&format!("python3 -c \"{code}\"")]);
        let v = state_until(&servers, &pane, "line-read").await;
        let shown = v["foreground"]["name"].as_str().unwrap().to_string();
        assert!(shown.starts_with(") R 1 (\\x1b]0;t"), "{v}");
        assert!(!v.to_string().contains('\u{7}'), "{v}");
    }
}

/// Cursor visibility and bracketed paste come from tmux where the
/// version reports them (`#{bracket_paste_flag}` from 3.7), else null.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screen_modes_by_version() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let servers = capture_servers(&server);
        let pane = first_pane(&server);
        let v = state_until(&servers, &pane, "line-editor").await;
        assert_eq!(v["cursor_visible"], json!(true), "{}: {v}", bin.label);
        assert_eq!(v["alternate_on"], json!(false), "{}: {v}", bin.label);
        let version = server.tmux_ok(&["display-message", "-p", "#{version}"]);
        let new = version.trim().split('.').collect::<Vec<_>>();
        let at_least_3_7 = match (new.first(), new.get(1)) {
            (Some(a), Some(b)) => {
                let major: u32 = a.parse().unwrap_or(0);
                let minor: u32 = b
                    .trim_end_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .unwrap_or(0);
                (major, minor) >= (3, 7)
            }
            _ => false,
        };
        if at_least_3_7 {
            // bash's readline asks for bracketed paste at its prompt.
            assert!(v["bracketed_paste"].is_boolean(), "{}: {v}", bin.label);
        } else {
            assert_eq!(v["bracketed_paste"], Value::Null, "{}: {v}", bin.label);
        }
    }
}

/// `send_keys` and `paste_text` refuse to type into a pane whose program
/// reads a password (`read -s`) unless `allow_password_input` is true;
/// nothing reaches the program before that, and then the secret does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_into_a_password_prompt_is_refused_unless_allowed() {
    let server = TestServer::start(&system_tmux());
    let servers = capture_servers(&server);
    let pane =
        server.new_window_pane(&["bash --norc --noprofile -c 'read -s x; echo got-$x; sleep 100'"]);
    state_until(&servers, &pane, "password").await;
    let e = err(
        &servers,
        "send_keys",
        json!({"pane_id": pane, "keys": "oops"}),
    )
    .await;
    assert_eq!(e.kind, "PasswordPrompt", "{e:?}");
    assert!(e.text.contains("password"), "{e:?}");
    let hint = e.meta["suggestion"].as_str().unwrap_or("");
    assert!(hint.contains("allow_password_input"), "{e:?}");
    let e = err(
        &servers,
        "paste_text",
        json!({"pane_id": pane, "text": "oops"}),
    )
    .await;
    assert_eq!(e.kind, "PasswordPrompt", "{e:?}");
    // A batch typing text into it is refused whole (nothing typed).
    let e = err(
        &servers,
        "send_keys_batch",
        json!({"operations": [{"keys": "BSpace", "pane_id": pane, "enter": false},
                              {"keys": "oops", "pane_id": pane}]}),
    )
    .await;
    assert_eq!(e.kind, "PasswordPrompt", "{e:?}");
    // Still reading, nothing typed.
    state_until(&servers, &pane, "password").await;
    // A key is pressed whatever the program reads (how a prompt is left): here a
    // Backspace, which changes nothing.
    ok(
        &servers,
        "send_keys",
        json!({"pane_id": pane, "keys": "BSpace", "enter": false}),
    )
    .await;
    ok(
        &servers,
        "send_keys",
        json!({"pane_id": pane, "keys": "s3cret", "allow_password_input": true}),
    )
    .await;
    crate::support::wait_until_async("the secret reached the program", || async {
        let v = ok(&servers, "capture_pane", json!({"pane_id": pane})).await;
        let text = v["result"].as_str().unwrap_or("").to_string();
        assert!(!text.contains("oops"), "{text}");
        text.contains("got-s3cret").then_some(())
    })
    .await;
}

/// With the mirror on, get_pane_state adds what tmuxwire's copy saw: the
/// newest shell-integration mark (`command_state`), the last output and
/// screen-change times, and bracketed paste where tmux does not report
/// it (before 3.7); with the mirror off those are null.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_copy_adds_marks_times_and_modes() {
    if !crate::support::has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("prompt.py");
    std::fs::write(
        &script,
        format!(
            "import os, sys, time\nprint('waiting', flush=True)\n\
             while not os.path.exists({:?}):\n    time.sleep(0.01)\n\
             sys.stdout.write('\\x1b[?2004h\\x1b]133;A\\x07$ \\x1b]133;B\\x07')\n\
             sys.stdout.flush()\ntime.sleep(600)\n",
            dir.path().join("go")
        ),
    )
    .expect("write script");
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let _ = std::fs::remove_file(dir.path().join("go"));
        let server = TestServer::start(&bin);
        let pane = server.new_window_pane(&[&format!("python3 {}", script.display())]);
        server.wait_for_text(&pane, "waiting", DEADLINE);
        let mirrored = crate::support::mirrored_servers(&server);
        // The first call makes the copy: no marks seen yet.
        let v = ok(&mirrored, "get_pane_state", json!({"pane_id": pane})).await;
        assert_eq!(v["command_state"], json!("none"), "{ctx}: {v}");
        std::fs::write(dir.path().join("go"), b"").expect("go");
        let v = crate::support::wait_until_async("the prompt mark", || async {
            let v = ok(&mirrored, "get_pane_state", json!({"pane_id": pane})).await;
            (v["command_state"] == json!("prompt")).then_some(v)
        })
        .await;
        assert_eq!(v["bracketed_paste"], json!(true), "{ctx}: {v}");
        assert!(v["last_output_at"].is_number(), "{ctx}: {v}");
        assert!(v["last_change_at"].is_number(), "{ctx}: {v}");
        let plain = capture_servers(&server);
        let v = ok(&plain, "get_pane_state", json!({"pane_id": pane})).await;
        assert_eq!(v["command_state"], Value::Null, "{ctx}: {v}");
        assert_eq!(v["last_output_at"], Value::Null, "{ctx}: {v}");
    }
}
