//! Input that arrives exactly as given: `send_keys`, `send_keys_batch`, `paste_text` and
//! `tmuxwire send`, checked byte for byte against what a program in the pane read, on every
//! tmux of `tmux_bins()`. Public bug cases C9–C12 and C34.
//!
//! The byte-exact tests run `head -c N > FILE` in a pane whose terminal is in raw mode
//! (`stty raw -echo`: no line editing, no signals, no CR/LF translation, no 4,096-byte line
//! limit), so the file holds exactly the bytes the pane received.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::tool::{
    OnPane, call_typed, err, err_typed, first_pane, keys_only, ok_typed, pane_id, run, text_of,
};
use crate::support::*;
use tmuxwire::mcp::args::{
    ListPanesArgs, ListSessionsArgs, LoadBufferArgs, OnError, PasteBufferArgs, PasteTextArgs,
    SendKeysArgs, SendKeysBatchArgs, SendKeysOperation, ShowBufferArgs,
};

/// A pane that copies the next `n` bytes it receives to `out`, then prints a marker; the
/// pane's id and the marker.
pub(crate) fn raw_reader(server: &TestServer, n: usize, out: &Path) -> (String, String) {
    let marker = format!("READ-DONE-{}", unique_name(""));
    let cmd = format!(
        "stty raw -echo; head -c {n} > '{}'; stty sane; printf '%s\\n' {marker}; sleep 600",
        out.display()
    );
    let p = server.new_window_pane(&["-t", &format!("={}:", server.session), "sh", "-c", &cmd]);
    // Raw mode is on once stty ran: wait for the terminal to say so.
    wait_until_true("raw mode in the reader pane", DEADLINE, || {
        let tty = server
            .tmux_ok(&["display-message", "-p", "-t", &p, "#{pane_tty}"])
            .trim()
            .to_string();
        std::process::Command::new("stty")
            .arg("-a")
            .stdin(std::fs::File::open(&tty).expect("open the pane's tty"))
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("-icanon"))
    });
    (p, marker)
}

/// Sends `text` to a raw reader with `send_keys` (literal, no Enter) and returns the bytes
/// the program read.
async fn delivered(server: &TestServer, text: &str, dir: &Path, name: &str) -> Vec<u8> {
    let out = dir.join(name);
    let (pane, marker) = raw_reader(server, text.len(), &out);
    let s = capture_servers(server);
    let r = call_typed(
        &s,
        SendKeysArgs {
            keys: text.to_string(),
            literal: true,
            enter: false,
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{name}: {}", text_of(&r));
    let r = r.structured_content.expect("a result");
    assert_eq!(r["pane_id"], json!(pane));
    server.wait_for_text(&pane, &marker, Duration::from_secs(60));
    let bytes = std::fs::read(&out).expect("the reader's file");
    server.tmux_ok(&["kill-pane", "-t", &pane]);
    bytes
}

/// Every kind of text reaches the pane byte for byte: command separators, flags, quotes,
/// variables, formats, jobs, line breaks, tabs, carriage returns, other control characters,
/// DEL, NUL, non-Latin scripts, emoji (with joiners and variation selectors), combining
/// marks and unassigned code points.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_keys_delivers_text_byte_for_byte() {
    let texts: &[(&str, &str)] = &[
        ("separators", "echo one; echo two;"),
        ("flags", "-t d2 -l -- -H 41 hello"),
        ("quotes", "it's \"q\" `b` \\ \\; \\n"),
        ("shell", "$HOME ${X:-y} $(id) ~ * ?"),
        ("formats", "#{pane_id} #(touch /tmp/x) ##[fg=red] #S %H %%"),
        ("controls", "a\nb\r\nc\td\u{1b}[1me\u{7f}f\u{3}\u{4}\u{0}g"),
        ("scripts", "日本語 Ελληνικά العربية עברית हिन्दी 한국어"),
        ("emoji", "👍🏽 👨‍👩‍👧‍👦 ❤️ 🏳️‍🌈 e\u{301} \u{10ffff} \u{e000}"),
        ("tmux-like", "%end 1 2 1\n%begin 1 2 1\n%exit\n"),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        for (name, text) in texts {
            let got = delivered(&server, text, dir.path(), name).await;
            assert_eq!(
                String::from_utf8_lossy(&got),
                *text,
                "tmux {}: {name}",
                bin.label
            );
            assert_eq!(got, text.as_bytes(), "tmux {}: {name}", bin.label);
        }
    }
}

/// C34 and "1 MB of it": long input is cut into commands tmux's parser takes (a command of
/// about 10,000 arguments fails as a whole), so every byte arrives: 12,000 bytes that each
/// go as a hex argument, then a mebibyte of mixed text.
///
/// See: https://github.com/a9a4k/vscode-deck/issues/57
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c34_long_input_arrives_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hex_heavy: String = "é".repeat(6000);
    let mut big = String::with_capacity(1 << 20);
    let mut i = 0u32;
    while big.len() < (1 << 20) - 64 {
        big.push_str(&format!("line {i}: plain ascii; 日本語 \t#{{x}} 'q'\n"));
        i += 1;
    }
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let got = delivered(&server, &hex_heavy, dir.path(), "hex").await;
        assert_eq!(got, hex_heavy.as_bytes(), "tmux {}", bin.label);
        let start = std::time::Instant::now();
        let got = delivered(&server, &big, dir.path(), "big").await;
        assert_eq!(got.len(), big.len(), "tmux {}", bin.label);
        assert!(got == big.as_bytes(), "tmux {}: 1 MiB differs", bin.label);
        eprintln!("tmux {}: 1 MiB typed in {:?}", bin.label, start.elapsed());
    }
}

/// C9: non-Latin text and C-Space reach a pane as the right bytes (`od` in the pane shows
/// them).
///
/// See: https://github.com/tmux/tmux/issues/426 · https://github.com/tmux/tmux/issues/2757
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c9_non_latin_text_and_c_space_arrive_as_bytes() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = servers(&server);
        run(&server, &pane, "clear");
        crate::support::tool::type_line(&server, &pane, "od -An -c");
        // od runs when the shell has handed it the terminal.
        wait_until_true("od runs", DEADLINE, || {
            server
                .tmux_ok(&[
                    "display-message",
                    "-p",
                    "-t",
                    &pane,
                    "#{pane_current_command}",
                ])
                .trim()
                == "od"
        });
        ok_typed(&s, keys_only(&pane, "日本語")).await;
        for key in ["C-Space", "Enter", "C-d"] {
            ok_typed(&s, keys_only(&pane, key)).await;
        }
        server.wait_for_text(&pane, "\\0", DEADLINE);
        let screen = server.capture(&pane, &[]);
        assert!(
            screen.contains("346 227 245 346 234 254 350 252 236  \\0"),
            "tmux {}: {screen}",
            bin.label
        );
    }
}

/// C10: a `;` at the end of the text is text: `echo one;` prints `one`.
///
/// See: https://github.com/tmux/tmux/issues/1849 · https://github.com/tmux/tmux/issues/4350
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c10_trailing_semicolon_is_typed() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = servers(&server);
        run(&server, &pane, "clear");
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo one;".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo two;".into(),
                literal: true,
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        server.wait_for_text(&pane, "\ntwo\n", DEADLINE);
        let lines = crate::support::tool::tmux_lines(&server, &pane, &[]);
        assert!(lines.contains(&"$ echo one;".to_string()), "{lines:?}");
        assert!(lines.contains(&"one".to_string()), "{lines:?}");
        assert!(lines.contains(&"$ echo two;".to_string()), "{lines:?}");
    }
}

/// C11: text that starts with `-` is typed into the pane named, never read as flags (`-t d2`
/// must not reach pane d2).
///
/// See: https://github.com/tmux-python/libtmux/issues/533 ·
/// https://github.com/tmux-python/tmuxp/issues/915
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c11_leading_dash_is_text_for_the_named_pane() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("d1").start();
        server.tmux_ok(&["new-session", "-d", "-s", "d2", SH]);
        server.wait_for_text("=d2:", "$", DEADLINE);
        let d1 = pane_id(&server, "=d1:");
        let d2 = pane_id(&server, "=d2:");
        let s = servers(&server);
        ok_typed(&s, keys_only(&d1, "-t d2 hello")).await;
        ok_typed(&s, keys_only(&d1, "-tsomething")).await;
        server.wait_for_text(&d1, "-t d2 hello-tsomething", DEADLINE);
        let other = server.capture(&d2, &[]);
        assert!(
            !other.contains("hello"),
            "tmux {}: d2 got {other:?}",
            bin.label
        );
    }
}

/// C12: keys are keys only as an explicit key name: `C-c` interrupts (a), and `echo Up`
/// types the word Up (b).
///
/// See: https://github.com/tmux-python/libtmux/issues/88 ·
/// https://github.com/tmux-python/libtmux/issues/310 ·
/// https://github.com/nickgnd/tmux-mcp/issues/31 · https://github.com/nickgnd/tmux-mcp/issues/16
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c12_key_names_and_text_stay_apart() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = servers(&server);
        // (a) C-c interrupts sleep: the shell is in front again.
        run(&server, &pane, "clear");
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "sleep 999".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        wait_until_true("sleep runs", DEADLINE, || {
            server
                .tmux_ok(&[
                    "display-message",
                    "-p",
                    "-t",
                    &pane,
                    "#{pane_current_command}",
                ])
                .trim()
                == "sleep"
        });
        ok_typed(&s, keys_only(&pane, "C-c")).await;
        wait_until_true("C-c interrupts sleep", DEADLINE, || {
            server
                .tmux_ok(&[
                    "display-message",
                    "-p",
                    "-t",
                    &pane,
                    "#{pane_current_command}",
                ])
                .trim()
                == "bash"
        });
        // (b) "echo Up" is text; Up alone as a key re-runs the last command.
        run(&server, &pane, "clear; echo MARK-ONE");
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo Up".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        server.wait_for_text(&pane, "\nUp\n", DEADLINE);
        let lines = crate::support::tool::tmux_lines(&server, &pane, &[]);
        assert_eq!(
            lines.iter().filter(|l| l.as_str() == "MARK-ONE").count(),
            1,
            "tmux {}: Up re-ran a command: {lines:?}",
            bin.label
        );
        // The key Up recalls "echo Up"; literal=true types the word.
        ok_typed(&s, keys_only(&pane, "Up")).await;
        server.wait_for_text(&pane, "$ echo Up\nUp\n$ echo Up", DEADLINE);
        ok_typed(&s, keys_only(&pane, "C-u")).await;
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "Up".into(),
                literal: true,
                enter: false,
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        server.wait_for_text(&pane, "\n$ Up", DEADLINE);
    }
}

/// `suppress_history` puts a space first (text only), `enter` adds Enter, and a missing pane
/// types nothing anywhere and is `NotFound`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_keys_options_and_missing_panes() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let pane = first_pane(&server);
    let s = servers(&server);
    run(&server, &pane, "clear");
    ok_typed(
        &s,
        SendKeysArgs {
            keys: "echo hidden".into(),
            suppress_history: true,
            enter: false,
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    server.wait_for_text(&pane, "$  echo hidden", DEADLINE);
    ok_typed(&s, keys_only(&pane, "C-u")).await;
    let e = err_typed(
        &s,
        SendKeysArgs {
            keys: "x".into(),
            ..SendKeysArgs::on("%99")
        },
    )
    .await;
    assert_eq!(e.kind, "NotFound", "{}", e.text);
    // A session name: its active pane; an exact name only.
    let r = ok_typed(
        &s,
        SendKeysArgs {
            session_name: Some("main".into()),
            keys: "echo BY-NAME".into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(r["pane_id"], json!(pane));
    server.wait_for_text(&pane, "\nBY-NAME\n", DEADLINE);
    let e = err_typed(
        &s,
        SendKeysArgs {
            session_name: Some("mai".into()),
            keys: "x".into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(e.kind, "NotFound", "{}", e.text);
}

/// `send_keys_batch`: in order in one round trip; `stop` runs nothing after a failure,
/// `continue` runs the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_keys_batch_order_stop_and_continue() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = capture_servers(&server);
        run(&server, &pane, "clear");
        let t = s.default_server().clone();
        let op = |keys: &str, pane: &str| SendKeysOperation {
            keys: keys.into(),
            pane_id: Some(pane.into()),
            ..Default::default()
        };
        let ops = vec![op("echo B1", &pane), op("x", "%99"), op("echo B3", &pane)];
        let before = t.round_trips();
        let batch = SendKeysBatchArgs {
            operations: ops,
            ..Default::default()
        };
        let r = ok_typed(&s, batch.clone()).await;
        // The batch, and the terminal facts of every pane it types text into (the
        // password guard): two round trips, whatever the number of operations.
        assert_eq!(
            t.round_trips() - before,
            2,
            "tmux {}: two round trips",
            bin.label
        );
        assert_eq!(r["succeeded"], json!(1), "{r}");
        assert_eq!(r["failed"], json!(1), "{r}");
        assert_eq!(r["stopped_at"], json!(1), "{r}");
        assert_eq!(r["results"].as_array().map(Vec::len), Some(2), "{r}");
        assert!(r["results"][1]["error"].as_str().unwrap().contains("%99"));
        server.wait_for_text(&pane, "\nB1\n", DEADLINE);
        let r = ok_typed(
            &s,
            SendKeysBatchArgs {
                on_error: OnError::Continue,
                ..batch
            },
        )
        .await;
        assert_eq!(
            (r["succeeded"].clone(), r["stopped_at"].clone()),
            (json!(2), Value::Null)
        );
        server.wait_for_text(&pane, "\nB3\n", DEADLINE);
        let lines = crate::support::tool::tmux_lines(&server, &pane, &[]);
        assert!(
            !lines.contains(&"B3".to_string())
                || lines.iter().position(|l| l == "B1") < lines.iter().position(|l| l == "B3"),
            "{lines:?}"
        );
        let e = err_typed(&s, SendKeysBatchArgs::default()).await;
        assert_eq!(e.kind, "InvalidArgument");
        // An unknown argument in an operation: JSON.
        let e = err(
            &s,
            "send_keys_batch",
            json!({"operations": [{"keys": "x", "bogus": 1}]}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
    }
}

/// `paste_text` wraps the text in bracketed-paste markers only when the program asked for
/// them (mode 2004), and leaves no buffer behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paste_text_brackets_when_asked_and_leaves_no_buffer() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = servers(&server);
        // A program that asked for bracketed paste and shows what it reads.
        run(&server, &pane, "clear");
        crate::support::tool::type_line(
            &server,
            &pane,
            "printf '\\033[?2004h'; stty -echo; od -An -c",
        );
        wait_until_true("od runs", DEADLINE, || {
            server
                .tmux_ok(&[
                    "display-message",
                    "-p",
                    "-t",
                    &pane,
                    "#{pane_current_command}",
                ])
                .trim()
                == "od"
        });
        // od reads with echo off (`stty -echo`), which is what a password read looks like:
        // text goes only with allow_password_input; keys (C-d) always.
        let e = err_typed(
            &s,
            PasteTextArgs {
                text: "AB".into(),
                ..PasteTextArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(e.kind, "PasswordPrompt", "tmux {}: {e:?}", bin.label);
        ok_typed(
            &s,
            PasteTextArgs {
                text: "AB".into(),
                allow_password_input: true,
                ..PasteTextArgs::on(&pane)
            },
        )
        .await;
        ok_typed(&s, keys_only(&pane, "C-d")).await;
        ok_typed(&s, keys_only(&pane, "C-d")).await;
        server.wait_for_text(&pane, "033   [   2   0   1   ~", DEADLINE);
        let screen = server.capture(&pane, &[]);
        assert!(
            screen.contains("033   [   2   0   0   ~   A   B 033   [   2   0   1   ~"),
            "tmux {}: {screen}",
            bin.label
        );
        // Without the mode: the bare text, line breaks as carriage returns.
        let out = tempfile::NamedTempFile::new().unwrap();
        let (reader, marker) = raw_reader(&server, 7, out.path());
        ok_typed(
            &s,
            PasteTextArgs {
                text: "a;b\nc #".into(),
                ..PasteTextArgs::on(&reader)
            },
        )
        .await;
        server.wait_for_text(&reader, &marker, DEADLINE);
        assert_eq!(std::fs::read(out.path()).unwrap(), b"a;b\rc #");
        let buffers = server.tmux_ok(&["list-buffers", "-F", "#{buffer_name}"]);
        assert!(
            !buffers.contains("tmuxwire"),
            "tmux {}: {buffers}",
            bin.label
        );
        let e = err_typed(
            &s,
            PasteTextArgs {
                text: "".into(),
                ..PasteTextArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
    }
}

/// `tmuxwire send`: text typed exactly (a word like Up too), keys only by -k, Enter unless
/// -n, `-` reads stdin, `-t` as the other commands; bad keys and missing targets exit 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_send() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let pane = first_pane(&server);
    run(&server, &pane, "clear");
    let send = |args: &[&str], stdin: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
        test_env(&mut cmd);
        cmd.arg("-S").arg(&server.socket).arg("send").args(args);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("spawn tmuxwire send");
        {
            use std::io::Write as _;
            let mut i = child.stdin.take().unwrap();
            if let Some(t) = stdin {
                i.write_all(t.as_bytes()).unwrap();
            }
        }
        child.wait_with_output().expect("tmuxwire send output")
    };
    let o = send(&["-t", "main:0.0", "echo Up;"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty());
    server.wait_for_text(&pane, "\nUp\n", DEADLINE);
    let o = send(&["-t", &pane, "-n", "--", "-v"], None);
    assert!(o.status.success());
    server.wait_for_text(&pane, "$ -v", DEADLINE);
    let o = send(&["-t", &pane, "-k", "C-u", "-k", "Enter"], None);
    assert!(o.status.success());
    let o = send(&["-t", "main", "-"], Some("echo FROM-STDIN"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    server.wait_for_text(&pane, "\nFROM-STDIN\n", DEADLINE);
    let o = send(&["-t", &pane, "-k", "NotAKey"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a key name"));
    let o = send(&["-t", "nosuch", "x"], None);
    assert_eq!(o.status.code(), Some(2));
    let o = send(&["-t", &pane], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing to send"));
}

/// The pane's mode (`copy-mode`, …; empty in none), as tmux says.
fn pane_mode(server: &TestServer, pane: &str) -> String {
    server
        .tmux_ok(&["display-message", "-p", "-t", pane, "#{pane_mode}"])
        .trim()
        .to_string()
}

/// Puts `pane` in copy mode, scrolled back 5 lines, as a person does with prefix-[.
fn scroll_back(server: &TestServer, pane: &str) {
    server.tmux_ok(&["copy-mode", "-t", pane]);
    server.tmux_ok(&["send-keys", "-t", pane, "-X", "-N", "5", "scroll-up"]);
    assert_eq!(pane_mode(server, pane), "copy-mode");
}

/// Another call answers at once: the control connection typing used is not stuck (C39 saw
/// every later call fail after 20 s).
async fn answers_at_once(s: &tmuxwire::tmux::Servers, what: &str) {
    let start = std::time::Instant::now();
    ok_typed(s, ListSessionsArgs::default()).await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{what}: the next call took {:?}",
        start.elapsed()
    );
}

/// C39: typing into a pane a person scrolled back (copy mode, both key tables) or left in
/// another mode leaves the mode first, so the text reaches the program and runs: `send_keys`
/// of text that starts with each key that opens a copy-mode prompt (`t`, `f`, `/`, `?`, `:`,
/// a digit), `paste_text` with Enter, text without Enter and a key after it, a pane in clock
/// mode (which eats the first key); the answer says which mode was left, the pane is in none
/// after, and the next call answers at once (the prompt used to open on tmuxwire's own
/// control client, which then answered nothing).
///
/// See: https://github.com/awslabs/cli-agent-orchestrator/issues/654
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c39_typing_leaves_copy_mode_first() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).size(80, 10).start();
        let pane = first_pane(&server);
        let s = servers(&server);
        run(&server, &pane, "seq 1 30");
        let mut n = 0;
        for keys in ["emacs", "vi"] {
            server.tmux_ok(&["set-option", "-g", "mode-keys", keys]);
            for first in ["t", "f", "/", "?", ":", "5"] {
                n += 1;
                let what = format!("tmux {} {keys} '{first}'", bin.label);
                scroll_back(&server, &pane);
                let r = call_typed(
                    &s,
                    SendKeysArgs {
                        keys: format!("{first} ; echo C39-\"\"{n}"),
                        ..SendKeysArgs::on(&pane)
                    },
                )
                .await;
                assert_ne!(r.is_error, Some(true), "{what}: {}", text_of(&r));
                assert!(
                    text_of(&r).contains("(left copy-mode first)"),
                    "{what}: {}",
                    text_of(&r)
                );
                server.wait_for_text(&pane, &format!("\nC39-{n}\n"), DEADLINE);
                assert_eq!(pane_mode(&server, &pane), "", "{what}");
                answers_at_once(&s, &what).await;
            }
        }
        let what = format!("tmux {}", bin.label);
        // A paste with Enter: the Enter goes to the shell too.
        scroll_back(&server, &pane);
        let v = ok_typed(
            &s,
            PasteTextArgs {
                text: "echo C39-\"\"pasted".into(),
                enter: true,
                ..PasteTextArgs::on(&pane)
            },
        )
        .await;
        assert!(
            v["result"].as_str().unwrap().contains("left copy-mode"),
            "{what}: {v}"
        );
        server.wait_for_text(&pane, "\nC39-pasted\n", DEADLINE);
        answers_at_once(&s, &what).await;
        // Text without Enter, then the key, each into a pane scrolled back.
        scroll_back(&server, &pane);
        ok_typed(&s, keys_only(&pane, "echo C39-\"\"typed-text")).await;
        scroll_back(&server, &pane);
        ok_typed(&s, keys_only(&pane, "Enter")).await;
        server.wait_for_text(&pane, "\nC39-typed-text\n", DEADLINE);
        // Clock mode takes any key as its end: the whole text still arrives.
        server.tmux_ok(&["clock-mode", "-t", &pane]);
        assert_eq!(pane_mode(&server, &pane), "clock-mode");
        let v = ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo C39-\"\"clock".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        assert!(
            v["result"]
                .as_str()
                .unwrap()
                .contains("(left clock-mode first)"),
            "{what}: {v}"
        );
        server.wait_for_text(&pane, "\nC39-clock\n", DEADLINE);
        // A batch leaves modes too.
        scroll_back(&server, &pane);
        let batch = SendKeysBatchArgs {
            operations: vec![SendKeysOperation {
                keys: "echo C39-\"\"batch".into(),
                pane_id: Some(pane.clone()),
                ..Default::default()
            }],
            ..Default::default()
        };
        ok_typed(&s, batch).await;
        server.wait_for_text(&pane, "\nC39-batch\n", DEADLINE);
        assert_eq!(pane_mode(&server, &pane), "", "{what}");
        answers_at_once(&s, &what).await;
    }
}

/// The pid of a process whose command line is exactly `argv`, and its parent's.
fn process_running(argv: &[&str]) -> Option<(u32, u32)> {
    let want: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        if std::fs::read(e.path().join("cmdline")).ok()? != want {
            return None;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        let ppid: u32 = stat
            .rsplit(')')
            .next()?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        Some((pid, ppid))
    })
}

/// A control connection tmux stops serving while it serves other clients is found within the
/// call and replaced. A user's hook that runs a shell command synchronously (`run-shell`
/// without `-b` waits, on the client whose command fired the hook: here tmuxwire's
/// `copy-mode -q` before typing) holds the connection's queue: the typing call fails within a
/// few seconds saying so (its keys may or may not have gone), a call queued behind it answers
/// on a new connection, and so does every call after (C39 saw each wait out its 20 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_control_connection_tmux_stops_serving_is_replaced() {
    for (i, bin) in tmux_bins().into_iter().enumerate() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = servers(&server);
        let what = format!("tmux {}", bin.label);
        ok_typed(&s, ListSessionsArgs::default()).await;
        // A command line no other process has.
        let secs = format!("60.{}{i}", std::process::id());
        let hook = ["sleep", secs.as_str()];
        server.tmux_ok(&[
            "set-hook",
            "-g",
            "after-copy-mode",
            &format!("run-shell '{}'", hook.join(" ")),
        ]);
        let start = std::time::Instant::now();
        let (stuck, behind) = tokio::join!(call_typed(&s, keys_only(&pane, "echo x")), async {
            // Queued once the hook holds the connection.
            let sleep = wait_until_async("the hook's shell command", || async {
                process_running(&hook)
            })
            .await;
            let r = call_typed(&s, ListPanesArgs::default()).await;
            (sleep, r, start.elapsed())
        });
        let took = start.elapsed();
        let (sleep, behind, behind_took) = behind;
        assert_eq!(stuck.is_error, Some(true), "{what}: {}", text_of(&stuck));
        assert!(
            text_of(&stuck).contains("sent nothing on tmuxwire's control connection"),
            "{what}: {}",
            text_of(&stuck)
        );
        assert!(
            took < Duration::from_secs(8),
            "{what}: the stuck call took {took:?}"
        );
        assert_ne!(behind.is_error, Some(true), "{what}: {}", text_of(&behind));
        assert!(
            behind_took < Duration::from_secs(8),
            "{what}: the call behind took {behind_took:?}"
        );
        eprintln!(
            "{what}: the stuck call failed after {took:?}, the one behind answered after {behind_took:?}"
        );
        server.tmux_ok(&["set-hook", "-gu", "after-copy-mode"]);
        // The hook's shell and its sleep are this test's: ended by their pids.
        let _ = std::process::Command::new("kill")
            .args([sleep.0.to_string(), sleep.1.to_string()])
            .status();
        for _ in 0..3 {
            answers_at_once(&s, &what).await;
        }
        ok_typed(&s, keys_only(&pane, "C-u")).await;
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo AFTER-\"\"STUCK".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        server.wait_for_text(&pane, "\nAFTER-STUCK\n", DEADLINE);
    }
}

/// What a raw reader got from `paste_text` of `text` (the program did not ask for bracketed
/// paste, so no markers): `n` bytes.
async fn pasted(
    server: &TestServer,
    s: &tmuxwire::tmux::Servers,
    text: &str,
    n: usize,
    dir: &Path,
    name: &str,
) -> Vec<u8> {
    let out = dir.join(name);
    let (pane, marker) = raw_reader(server, n, &out);
    ok_typed(
        s,
        PasteTextArgs {
            text: text.to_string(),
            ..PasteTextArgs::on(&pane)
        },
    )
    .await;
    server.wait_for_text(&pane, &marker, DEADLINE);
    let bytes = std::fs::read(&out).expect("the reader's file");
    server.tmux_ok(&["kill-pane", "-t", &pane]);
    bytes
}

/// C40: `paste_text` gives the program what tmux 3.7+ pastes, on every version: control
/// characters other than tab, line breaks, backspace and bell arrive as `^X` (so ESC is the
/// two characters `^[`), UTF-8 as it is, line feeds as carriage returns; tmux 3.8's own
/// `paste-buffer` of the same text gives the same bytes (the oracle). The bracketed-paste
/// markers are inert wherever they fall: at a 64 KiB `set-buffer` piece's edge too.
/// `send_keys` is typing, not a paste: its bytes arrive as they are.
///
/// See: https://github.com/tmux/tmux/issues/2256
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c40_paste_text_sends_what_tmux_3_7_pastes() {
    let text = "a\tb\x1b[201~\x15echo X\x1b[200~\x7f\x03\x08\x07 日本 e\u{301} \u{9b}\nc";
    let want = tmuxwire::tmux::input::paste_safe(text.as_bytes()).replace('\n', "\r");
    assert!(!want.contains('\x1b'));
    // ESC as the last byte of the first 64 KiB piece, `[201~` the first of the next.
    let edge = format!("{}\x1b[201~tail", "x".repeat(64 * 1024 - 1));
    let edge_want = tmuxwire::tmux::input::paste_safe(edge.as_bytes());
    let dir = tempfile::tempdir().expect("temp dir");
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let what = format!("tmux {}", bin.label);
        let got = pasted(&server, &s, text, want.len(), dir.path(), "controls").await;
        assert_eq!(String::from_utf8_lossy(&got), want, "{what}");
        let got = pasted(&server, &s, &edge, edge_want.len(), dir.path(), "edge").await;
        assert!(got == edge_want.as_bytes(), "{what}: the piece edge");
        if bin.label == "3.8" {
            // The oracle: tmux's own paste of the raw text.
            let out = dir.path().join("oracle");
            let (pane, marker) = raw_reader(&server, want.len(), &out);
            server.tmux_ok(&["set-buffer", "-b", "oracle", "--", text]);
            server.tmux_ok(&["paste-buffer", "-d", "-b", "oracle", "-t", &pane]);
            server.wait_for_text(&pane, &marker, DEADLINE);
            assert_eq!(
                String::from_utf8_lossy(&std::fs::read(&out).unwrap()),
                want,
                "{what}: tmux's own paste"
            );
        }
        // Typing is not a paste: the markers arrive as typed.
        let typed = "x\x1b[200~y\x1b[201~z";
        let got = delivered(&server, typed, dir.path(), "typed").await;
        assert_eq!(got, typed.as_bytes(), "{what}");
    }
}

/// C40: a paste into bash (which asks for bracketed paste at its prompt) of text holding the
/// end marker, a C-u and a carriage return never runs what follows it, on any version: in one
/// paste, with the start marker too, split over two pastes (ESC at the end of the first), and
/// through `load_buffer` and `paste_buffer`. The text stays on the input line.
///
/// See: https://github.com/tmux/tmux/issues/686
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c40_a_paste_never_runs_what_follows_an_end_marker() {
    let injected = "INJECTED-42";
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        let s = servers(&server);
        let what = format!("tmux {}", bin.label);
        run(&server, &pane, "clear");
        let pastes: &[&[&str]] = &[
            &["just text \x1b[201~\x15echo INJECTED-$((6*7))\r"],
            &["\x1b[200~\x1b[201~\x15echo INJECTED-$((6*7))\r"],
            &["split \x1b", "[201~\x15echo INJECTED-$((6*7))\r"],
        ];
        for (i, parts) in pastes.iter().enumerate() {
            for p in *parts {
                ok_typed(
                    &s,
                    PasteTextArgs {
                        text: p.to_string(),
                        enter: false,
                        ..PasteTextArgs::on(&pane)
                    },
                )
                .await;
            }
            // The text shows on the input line, unrun.
            server.wait_for_text(&pane, "^Uecho INJECTED-$((6*7))", DEADLINE);
            ok_typed(&s, keys_only(&pane, "C-u")).await;
            run(&server, &pane, &format!("clear; echo PASTE-{i}-DONE"));
            let screen = server.capture(&pane, &["-S", "-"]);
            assert!(
                !screen.lines().any(|l| l.trim() == injected),
                "{what}: paste {i} ran: {screen}"
            );
        }
        let buf = ok_typed(
            &s,
            LoadBufferArgs {
                content: "buffered \x1b[201~\x15echo INJECTED-$((6*7))\r".into(),
                ..Default::default()
            },
        )
        .await;
        ok_typed(
            &s,
            PasteBufferArgs {
                buffer_name: buf["buffer_name"].as_str().unwrap_or_default().to_string(),
                ..PasteBufferArgs::on(&pane)
            },
        )
        .await;
        server.wait_for_text(&pane, "buffered ^[[201~^Uecho INJECTED-$((6*7))", DEADLINE);
        ok_typed(&s, keys_only(&pane, "C-u")).await;
        run(&server, &pane, "echo BUFFER-DONE");
        let screen = server.capture(&pane, &["-S", "-"]);
        assert!(
            !screen.lines().any(|l| l.trim() == injected),
            "{what}: paste_buffer ran: {screen}"
        );
        // The buffer itself is as it was loaded.
        let shown = ok_typed(
            &s,
            ShowBufferArgs {
                buffer_name: buf["buffer_name"].as_str().unwrap_or_default().to_string(),
                ..Default::default()
            },
        )
        .await;
        assert!(
            shown["content"].as_str().unwrap().contains('\x1b'),
            "{what}: {shown}"
        );
    }
}
