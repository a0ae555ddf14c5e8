//! Confirmed input (`send_keys` / `paste_text` with Enter) against fake
//! TUIs: one that takes an Enter within 120 ms of fast typing as a
//! newline (Codex's paste-burst rule), one that collapses a multi-line
//! bracketed paste into `[Pasted text #1]` and submits only on an Enter
//! outside the bracket, and a program that flushes its input a moment
//! after it starts (as zsh and sudo do), for the readiness gate.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::has_python;
use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, mirrored_servers, system_tmux};
use tmuxwire::mcp::args::{PasteTextArgs, SendKeysArgs};

/// A Python program in raw mode that prints `ready` and runs `body`.
fn raw_program(dir: &std::path::Path, name: &str, body: &str) -> String {
    let script = dir.join(format!("{name}.py"));
    let text = format!(
        "import os, sys, time, tty\nfd = 0\ntty.setraw(fd)\n\
         def w(s):\n    os.write(1, s.encode())\n{body}\n"
    );
    std::fs::write(&script, text).expect("write script");
    format!("python3 {}", script.display())
}

/// Codex's rule, simplified: an Enter within 120 ms of the last typed
/// character is a newline in the composer (shown as `⏎` on the same
/// row); a later one submits.
const BURST: &str = "buf = ''\nlast = 0.0\nw('burst ready\\r\\n> ')\nwhile True:\n    \
    data = os.read(fd, 1024).decode('utf-8', 'replace')\n    now = time.time()\n    \
    for ch in data:\n        if ch == '\\r':\n            if now - last < 0.12:\n                \
    buf += '\u{23ce}'; w('\u{23ce}')\n            else:\n                \
    w('\\r\\nSUBMITTED: ' + buf + '\\r\\n> '); buf = ''\n        else:\n            \
    buf += ch; w(ch); last = now";

/// Bracketed paste: a multi-line paste shows as `[Pasted text #1]`; an
/// Enter outside the bracket submits.
const PASTE: &str = "w('\\x1b[?2004hpaste ready\\r\\n> ')\nbuf = b''\nlines = 0\n\
    while True:\n    buf += os.read(fd, 4096)\n    while True:\n        \
    if buf.startswith(b'\\x1b[200~'):\n            end = buf.find(b'\\x1b[201~')\n            \
    if end < 0:\n                break\n            pasted = buf[6:end]\n            \
    buf = buf[end + 6:]\n            n = pasted.count(b'\\r') + 1\n            \
    lines += n\n            w('[Pasted text #1]' if n > 1 else pasted.decode())\n        \
    elif buf.startswith(b'\\r'):\n            buf = buf[1:]\n            \
    w('\\r\\nSUBMITTED: %d lines\\r\\n> ' % lines); lines = 0\n        \
    elif buf:\n            w(buf[:1].decode('latin-1')); buf = buf[1:]\n        else:\n            break";

fn delivery(v: &Value) -> &Value {
    &v["delivery"]
}

/// The default submit delay gets a word past the paste-burst rule; with
/// no delay the Enter becomes a newline, the text stays on the input
/// row, and Enter is pressed again (once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_reaches_a_tui_that_takes_fast_enter_as_a_newline() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let pane = server.new_window_pane(&[&raw_program(dir.path(), "burst", BURST)]);
    server.wait_for_text(&pane, "burst ready", DEADLINE);
    let v = ok_typed(
        &s,
        SendKeysArgs {
            keys: "hello".into(),
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(
        v["result"],
        json!(format!("Keys sent to pane {pane}")),
        "{v}"
    );
    let d = delivery(&v);
    assert_eq!(d["submitted"], json!("confirmed"), "{v}");
    assert_eq!(d["typed"], json!("confirmed"), "{v}");
    assert_eq!(d["submit_delay_ms"], json!(150), "{v}");
    // No retry: enter_retries (0) is left out.
    assert_eq!(d.get("enter_retries"), None, "{v}");
    server.wait_for_text(&pane, "SUBMITTED: hello", DEADLINE);
    // Enter with the text: a newline there; pressed again, it submits.
    let v = ok_typed(
        &s,
        SendKeysArgs {
            keys: "again".into(),
            submit_delay_ms: Some(0.0),
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    let d = delivery(&v);
    assert_eq!(d["submitted"], json!("confirmed"), "{v}");
    assert_eq!(d["enter_retries"], json!(1), "{v}");
    server.wait_for_text(&pane, "SUBMITTED: again\u{23ce}", DEADLINE);
    let e = err_typed(
        &s,
        SendKeysArgs {
            keys: "x".into(),
            submit_delay_ms: Some(-1.0),
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    assert!(e.text.contains("submit_delay_ms"), "{e:?}");
}

/// A multi-line paste collapses into a placeholder (typed is confirmed
/// by it), and the Enter pressed apart from the paste submits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collapsed_paste_is_typed_and_submitted() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let pane = server.new_window_pane(&[&raw_program(dir.path(), "paste", PASTE)]);
    server.wait_for_text(&pane, "paste ready", DEADLINE);
    let v = ok_typed(
        &s,
        PasteTextArgs {
            text: "line one\nline two".into(),
            enter: true,
            ..PasteTextArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(
        v["result"],
        json!(format!("Text pasted to pane {pane}")),
        "{v}"
    );
    let d = delivery(&v);
    assert_eq!(d["typed"], json!("confirmed"), "{v}");
    assert!(d["evidence"].to_string().contains("Pasted text"), "{v}");
    assert_eq!(d["submitted"], json!("confirmed"), "{v}");
    server.wait_for_text(&pane, "SUBMITTED: 2 lines", DEADLINE);
    // Without enter, paste_text answers as the reference does.
    let v = ok_typed(
        &s,
        PasteTextArgs {
            text: "x".into(),
            ..PasteTextArgs::on(&pane)
        },
    )
    .await;
    assert!(v.get("delivery").is_none(), "{v}");
}

/// A shell: the text and Enter go together (delay 0), and the command
/// line leaving the input line confirms the submission.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_line_is_submitted_at_once() {
    for bin in crate::support::tmux_bins() {
        let server = TestServer::start(&bin);
        let s = mirrored_servers(&server);
        let pane = first_pane(&server);
        server.wait_for_text(&pane, "$", DEADLINE);
        let started = std::time::Instant::now();
        let v = ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo delivered-$((6*7))".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        let d = delivery(&v);
        // No delay: submit_delay_ms (0) is left out.
        assert_eq!(d.get("submit_delay_ms"), None, "{v}");
        assert_eq!(d["typed"], json!("confirmed"), "{v}");
        assert_eq!(d["submitted"], json!("confirmed"), "{v}");
        assert!(started.elapsed() < Duration::from_secs(5), "{v}");
        server.wait_for_text(&pane, "delivered-42", DEADLINE);
        // Keys and text without Enter carry no delivery.
        let v = ok_typed(
            &s,
            SendKeysArgs {
                keys: "C-l".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        assert!(v.get("delivery").is_none(), "{v}");
    }
}

/// A program that flushes its input 600 ms after it starts: with
/// `wait_ready` the text waits until it reads, and arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_ready_outlasts_a_start_up_flush() {
    if !has_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("flush.py");
    std::fs::write(
        &script,
        "import sys, termios, time\ntime.sleep(0.6)\ntermios.tcflush(0, termios.TCIFLUSH)\n\
         x = input('name: ')\nprint('GOT ' + x)\ntime.sleep(600)\n",
    )
    .expect("write script");
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    // Asked for, and by default: the pane was created moments ago and
    // its first program is still its terminal's foreground.
    for (name, wait_ready) in [("bob", Some(true)), ("eve", None)] {
        let pane = server.new_window_pane(&[&format!("python3 {}", script.display())]);
        let v = ok_typed(
            &s,
            SendKeysArgs {
                keys: name.to_string(),
                wait_ready,
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        let d = delivery(&v);
        assert_eq!(d["ready"], json!(true), "{v}");
        let evidence = d["evidence"].to_string();
        assert!(evidence.contains("line-read"), "{v}");
        assert_eq!(
            evidence.contains("the pane started"),
            wait_ready.is_none(),
            "{v}"
        );
        server.wait_for_text(&pane, &format!("GOT {name}"), DEADLINE);
    }
}

/// The default gate gives up after 3 s on a new pane whose program does
/// not read (typed anyway: `ready` false, said in the evidence); a pane
/// whose shell runs a command it launched is never held by default; a
/// final line break before Enter is not typed too (it would submit the
/// line twice).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_gate_gives_up_and_one_line_is_submitted_once() {
    if !has_python() {
        return;
    }
    let server = TestServer::start(&system_tmux());
    let s = mirrored_servers(&server);
    let sleeper = server.new_window_pane(&["python3 -c 'import time; time.sleep(600)'"]);
    let at = std::time::Instant::now();
    let v = ok_typed(
        &s,
        SendKeysArgs {
            keys: "x".into(),
            ..SendKeysArgs::on(&sleeper)
        },
    )
    .await;
    let took = at.elapsed();
    let d = delivery(&v);
    assert_eq!(d["ready"], json!(false), "{v}");
    assert!(
        d["evidence"]
            .to_string()
            .contains("not ready within 3000 ms"),
        "{v}"
    );
    assert!(
        (Duration::from_millis(2900)..Duration::from_secs(10)).contains(&took),
        "{took:?} {v}"
    );
    // A program that numbers each line it reads: "a\n" with Enter must
    // be line 1 only, so the next line is 2.
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("count.py");
    std::fs::write(
        &script,
        "import sys\nfor i, l in enumerate(sys.stdin, 1):\n    \
         print('LINE%d=%s.' % (i, l.strip()), flush=True)\n",
    )
    .expect("write script");
    let counter = server.new_window_pane(&[&format!("python3 {}", script.display())]);
    for (keys, n) in [("a\n", 1), ("b", 2)] {
        let v = ok_typed(
            &s,
            SendKeysArgs {
                keys: keys.to_string(),
                ..SendKeysArgs::on(&counter)
            },
        )
        .await;
        assert_eq!(delivery(&v)["submitted"], json!("confirmed"), "{v}");
        server.wait_for_text(&counter, &format!("LINE{n}={}.", keys.trim_end()), DEADLINE);
    }
    let lines = server.tmux_ok(&["capture-pane", "-p", "-t", &counter]);
    assert!(!lines.contains("LINE3"), "{lines}");
    assert!(!lines.contains("LINE2=."), "{lines}");
}
