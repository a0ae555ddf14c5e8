//! `get_pane_state` on real programs: the input states of
//! `terminal-state.md` §3.2 (`read -s`, `getpass()`, `cat`, `sleep`,
//! `vi`, bash at its prompt), the screen modes by tmux version, and
//! process names a hostile program chose.

use serde_json::{Value, json};

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, capture_servers, system_tmux, tmux_bins};
use tmuxwire::mcp::args::{
    CapturePaneArgs, PaneStateArgs, PasteTextArgs, SendKeysArgs, SendKeysBatchArgs,
    SendKeysOperation, WaitForTextArgs,
};

/// Waits (with the deadline) until the pane's `input` is `want`; returns
/// the state. The program needs a moment to set its terminal.
async fn state_until(servers: &tmuxwire::tmux::Servers, pane: &str, want: &str) -> Value {
    let deadline = std::time::Instant::now() + DEADLINE;
    let mut pause = std::time::Duration::from_millis(2);
    loop {
        let v = ok_typed(servers, PaneStateArgs::on(pane)).await;
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
        let r = call_typed(&servers, PaneStateArgs::on(&pane)).await;
        let text: Value = serde_json::from_str(&text_of(&r)).expect("JSON text");
        assert_eq!(text["pane_id"], json!(pane));
    }
    // The shell after `read -s` returned: at its prompt again.
    let e = err_typed(&servers, PaneStateArgs::on("%999")).await;
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
    let e = err_typed(
        &servers,
        SendKeysArgs {
            keys: "oops".into(),
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(e.kind, "PasswordPrompt", "{e:?}");
    assert!(e.text.contains("password"), "{e:?}");
    let hint = e.meta["suggestion"].as_str().unwrap_or("");
    assert!(hint.contains("allow_password_input"), "{e:?}");
    let e = err_typed(
        &servers,
        PasteTextArgs {
            text: "oops".into(),
            ..PasteTextArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(e.kind, "PasswordPrompt", "{e:?}");
    // A batch typing text into it is refused whole (nothing typed).
    let batch = SendKeysBatchArgs {
        operations: vec![
            SendKeysOperation {
                keys: "BSpace".into(),
                pane_id: Some(pane.clone()),
                enter: false,
                ..Default::default()
            },
            SendKeysOperation {
                keys: "oops".into(),
                pane_id: Some(pane.clone()),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let e = err_typed(&servers, batch).await;
    assert_eq!(e.kind, "PasswordPrompt", "{e:?}");
    // Still reading, nothing typed.
    state_until(&servers, &pane, "password").await;
    // A key is pressed whatever the program reads (how a prompt is left): here a
    // Backspace, which changes nothing.
    ok_typed(&servers, keys_only(&pane, "BSpace")).await;
    ok_typed(
        &servers,
        SendKeysArgs {
            keys: "s3cret".into(),
            allow_password_input: true,
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    crate::support::wait_until_async("the secret reached the program", || async {
        let v = ok_typed(&servers, CapturePaneArgs::on(&pane)).await;
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
        let v = ok_typed(&mirrored, PaneStateArgs::on(&pane)).await;
        assert_eq!(v["command_state"], json!("none"), "{ctx}: {v}");
        std::fs::write(dir.path().join("go"), b"").expect("go");
        let v = crate::support::wait_until_async("the prompt mark", || async {
            let v = ok_typed(&mirrored, PaneStateArgs::on(&pane)).await;
            (v["command_state"] == json!("prompt")).then_some(v)
        })
        .await;
        assert_eq!(v["bracketed_paste"], json!(true), "{ctx}: {v}");
        assert!(v["last_output_at"].is_number(), "{ctx}: {v}");
        assert!(v["last_change_at"].is_number(), "{ctx}: {v}");
        let plain = capture_servers(&server);
        let v = ok_typed(&plain, PaneStateArgs::on(&pane)).await;
        assert_eq!(v["command_state"], Value::Null, "{ctx}: {v}");
        assert_eq!(v["last_output_at"], Value::Null, "{ctx}: {v}");
    }
}

/// A password reader that shows a `*` per key, as sudo's `pwfeedback` and sudo-rs do: it sets
/// the terminal as `argv[1]` says (`cbreak`: ECHO, ECHONL, ICANON and IEXTEN off, ISIG on, as
/// `sudo_term_cbreak()`; `echonl`: ECHO and ICANON off, ECHONL on, as sudo-rs), names itself
/// `argv[2]` when given, prints the prompt `argv[3]`, reads keys one by one up to Enter, then
/// says what it got.
const FEEDBACK_READER: &str = r#"import os, sys, termios, time
mode, name, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
if name:
    open('/proc/self/comm', 'w').write(name)
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
new = termios.tcgetattr(fd)
if mode == 'cbreak':
    new[3] &= ~(termios.ECHO | termios.ECHONL | termios.ICANON | termios.IEXTEN)
    new[3] |= termios.ISIG
else:
    new[3] &= ~(termios.ECHO | termios.ICANON)
    new[3] |= termios.ECHONL
new[6][termios.VMIN] = 1
new[6][termios.VTIME] = 0
sys.stdout.write(prompt)
sys.stdout.flush()
termios.tcsetattr(fd, termios.TCSAFLUSH, new)
got = b''
while True:
    c = os.read(fd, 1)
    if c in (b'\r', b'\n'):
        break
    got += c
    os.write(1, b'*')
termios.tcsetattr(fd, termios.TCSAFLUSH, old)
print('\ngot-' + got.decode(), flush=True)
time.sleep(600)
"#;

/// Checks C41's expectations on a pane whose program reads a password: `input: password`, a
/// wait for text never printed ends `password_prompt` at once, `send_keys` and `paste_text`
/// are refused with nothing typed (the screen, the program's `*` feedback included, stays as
/// it was), and with `allow_password_input` the secret reaches it (when it says what it got).
async fn reads_a_password(
    s: &tmuxwire::tmux::Servers,
    server: &TestServer,
    pane: &str,
    says_got: bool,
    ctx: &str,
) {
    let v = state_until(s, pane, "password").await;
    let before = server.capture(pane, &[]);
    assert!(
        v["evidence"].to_string().contains("password read"),
        "{ctx}: {v}"
    );
    let v = ok_typed(
        s,
        WaitForTextArgs {
            patterns: Some(vec!["never printed".into()]),
            timeout: 6.0,
            ..WaitForTextArgs::on(pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("password_prompt"), "{ctx}: {v}");
    assert!(
        v["elapsed_seconds"].as_f64().is_some_and(|e| e < 5.0),
        "{ctx}: {v}"
    );
    let e = err_typed(s, keys_only(pane, "hunter2")).await;
    assert_eq!(e.kind, "PasswordPrompt", "{ctx}: {e:?}");
    let e = err_typed(
        s,
        PasteTextArgs {
            text: "hunter2".into(),
            ..PasteTextArgs::on(pane)
        },
    )
    .await;
    assert_eq!(e.kind, "PasswordPrompt", "{ctx}: {e:?}");
    let batch = SendKeysBatchArgs {
        operations: vec![SendKeysOperation {
            keys: "hunter2".into(),
            pane_id: Some(pane.to_string()),
            enter: false,
            ..Default::default()
        }],
        ..Default::default()
    };
    let e = err_typed(s, batch).await;
    assert_eq!(e.kind, "PasswordPrompt", "{ctx}: {e:?}");
    // Nothing was typed: still reading, no new feedback.
    state_until(s, pane, "password").await;
    assert_eq!(server.capture(pane, &[]), before, "{ctx}");
    if says_got {
        ok_typed(
            s,
            SendKeysArgs {
                keys: "s3cret".into(),
                allow_password_input: true,
                ..SendKeysArgs::on(pane)
            },
        )
        .await;
        // What a person typed before, and the secret (never echoed).
        server.wait_for_text(pane, "s3cret", DEADLINE);
    }
}

/// C41: password readers whatever the terminal flags they set, with real programs where they
/// are installed, on every tmux version: sudo's `pwfeedback` (cbreak: a prompt left of the
/// cursor, or the program's name), sudo-rs (ECHONL on with ECHO off), `read -s` and
/// `getpass()` (canonical mode), `ssh-keygen` asking for a key's passphrase, pinentry-curses
/// (gpg's passphrase dialog, cbreak on the alternate screen). Programs in cbreak or raw mode
/// that read no password (python3's prompt, `less`, `vi`) stay `raw`, and typing into them
/// goes.
///
/// See: https://github.com/trifectatechfoundation/sudo-rs/pull/1303
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c41_password_reads_whatever_the_termios_flags() {
    if !crate::support::has_python() {
        return; // recorded as a skip by has_python (a failure in CI)
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let reader = dir.path().join("feedback.py");
    std::fs::write(&reader, FEEDBACK_READER).expect("write the reader");
    let py = |mode: &str, name: &str, prompt: &str| {
        format!("python3 {} {mode} '{name}' '{prompt}'", reader.display())
    };
    // A key that asks for a passphrase.
    let key = dir.path().join("key");
    let keygen = has_program("ssh-keygen")
        && std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "pass phrase", "-f"])
            .arg(&key)
            .status()
            .is_ok_and(|s| s.success());
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = crate::support::mirrored_servers(&server);
        let ctx = |what: &str| format!("tmux {}: {what}", bin.label);
        // sudo's pwfeedback, seen by its prompt; two keys typed by a person first.
        let pane = server.new_window_pane(&[&py("cbreak", "", "[sudo] password for tester: ")]);
        server.wait_for_text(&pane, "password for tester:", DEADLINE);
        state_until(&s, &pane, "password").await;
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", "ab"]);
        server.wait_for_text(&pane, "tester: **", DEADLINE);
        reads_a_password(&s, &server, &pane, true, &ctx("pwfeedback")).await;
        // ... by its name, with a prompt of its own words.
        let pane = server.new_window_pane(&[&py("cbreak", "sudo", "Kennung? ")]);
        server.wait_for_text(&pane, "Kennung?", DEADLINE);
        reads_a_password(&s, &server, &pane, true, &ctx("sudo by name")).await;
        // sudo-rs: ECHONL on, whatever it prints.
        let pane = server.new_window_pane(&[&py("echonl", "", "[sudo: authenticate] Password: ")]);
        server.wait_for_text(&pane, "Password:", DEADLINE);
        reads_a_password(&s, &server, &pane, true, &ctx("sudo-rs")).await;
        // Canonical-mode readers.
        let pane = server.new_window_pane(&[
            "bash --norc --noprofile -c 'read -s -p Password: x; echo got-$x; sleep 600'",
        ]);
        server.wait_for_text(&pane, "Password:", DEADLINE);
        reads_a_password(&s, &server, &pane, true, &ctx("read -s")).await;
        let pane = server.new_window_pane(&[
            "python3 -c 'import getpass; print(\"got-\" + getpass.getpass()); import time; time.sleep(600)'",
        ]);
        server.wait_for_text(&pane, "Password:", DEADLINE);
        reads_a_password(&s, &server, &pane, true, &ctx("getpass")).await;
        if keygen {
            let pane = server
                .new_window_pane(&[&format!("ssh-keygen -y -f {}; sleep 600", key.display())]);
            server.wait_for_text(&pane, "passphrase", DEADLINE);
            reads_a_password(&s, &server, &pane, false, &ctx("ssh-keygen")).await;
        } else {
            eprintln!("ssh-keygen case skipped: no ssh-keygen");
        }
        if has_program("pinentry-curses") {
            let script = dir.path().join("pinentry.sh");
            std::fs::write(
                &script,
                "t=$(tty)\nprintf 'SETPROMPT Passphrase:\\nGETPIN\\n' | \
                 pinentry-curses --ttyname \"$t\" --ttytype screen --lc-ctype C.UTF-8\nsleep 600\n",
            )
            .expect("write the pinentry script");
            let pane = server.new_window_pane(&[&format!("sh {}", script.display())]);
            server.wait_for_text(&pane, "Passphrase:", DEADLINE);
            reads_a_password(&s, &server, &pane, false, &ctx("pinentry-curses")).await;
        } else {
            eprintln!("pinentry-curses case skipped: not installed");
        }
        // Not password reads: readline in python3 (cbreak), less (cbreak), vi (raw), each with
        // a HOME of the test's, so no history file of the user's is written.
        let home = format!("env HOME='{}' LESSHISTFILE=-", dir.path().display());
        let repl = server.new_window_pane(&[&format!("{home} python3 -q")]);
        server.wait_for_text(&repl, ">>>", DEADLINE);
        state_until(&s, &repl, "raw").await;
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "print('R' + 'AN')".into(),
                wait_ready: Some(false),
                ..SendKeysArgs::on(&repl)
            },
        )
        .await;
        server.wait_for_text(&repl, "\nRAN\n", DEADLINE);
        if has_program("less") {
            let pane = server.new_window_pane(&[&format!("printf 'Password:\\n' | {home} less")]);
            state_until(&s, &pane, "raw").await;
        }
        if has_program("vi") {
            // No swap file (`-n`): the text typed makes the buffer modified.
            let pane = server.new_window_pane(&[&format!("{home} vi -u NONE -n")]);
            state_until(&s, &pane, "raw").await;
            ok_typed(&s, keys_only(&pane, "iPassword: ")).await;
            server.wait_for_text(&pane, "Password:", DEADLINE);
            let v = state_until(&s, &pane, "raw").await;
            assert!(v["evidence"].to_string().contains("isig off"), "{v}");
        }
    }
}
