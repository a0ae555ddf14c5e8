//! The public bug cases C1–C38, one test per case (its doc comment states the case and links the
//! public reports it comes from), each against a private tmux server and, where the case is
//! version-sensitive, against every tmux in
//! [`tmux_bins`]. Every expectation is checked against what tmux itself says where possible
//! (`capture-pane`, `display-message`).
//!
//! Shared helpers for `cases`, `hostile` and `cli` live in `support::tool`. Tests run on a
//! multi-threaded runtime: the harness's waits block a thread, and the control connection's
//! reader task must keep running meanwhile.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, servers, tmux_bins, wait_until_true, within};
use tmuxwire::mcp::args::{
    CapturePaneArgs, DisplayMessageArgs, ListPanesArgs, ListSessionsArgs, ListWindowsArgs,
    PaneArgs, ResizePaneArgs, SearchPanesArgs, SelectLayoutArgs, ServerArgs, SessionArgs,
    SnapshotPaneArgs, WindowArgs,
};

/// C1: a word split by a soft wrap is found, once, with its joined logical line.
///
/// Sources: https://github.com/tmux/tmux/issues/1935 · https://github.com/tmux/tmux/issues/966 ·
/// https://github.com/kovidgoyal/kitty/issues/5626 ·
/// https://github.com/ghostty-org/ghostty/issues/9752 ·
/// https://github.com/tmux-python/libtmux-mcp (`search_panes` default literal path).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c1_wrap_split_needle_found_once_as_logical_line() {
    const LINE: &str = "0123456789abcdefNEEDLEXYZ-tail";
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("w").size(20, 10).start();
        let pane = first_pane(&server);
        let s = servers(&server);
        // The command line itself must not contain the needle (its echo would match too).
        run(
            &server,
            &pane,
            "clear; printf '%s%s\\n' 0123456789abcdefNE EDLEXYZ-tail",
        );

        // Where tmux put the two rows: row i of `capture-pane -S - -E -` is line i - hsize.
        let rows = tmux_lines(&server, &pane, &["-S", "-", "-E", "-"]);
        let hsize = history_size(&server, &pane);
        let first = rows
            .iter()
            .position(|r| r == "0123456789abcdefNEED")
            .unwrap_or_else(|| panic!("tmux {}: no wrapped row in {rows:?}", bin.label));
        assert_eq!(rows[first + 1], "LEXYZ-tail", "tmux {}", bin.label);
        let want_number = first as i64 - hsize;
        // tmux's own literal format search misses it (the bug this case is about)...
        let c = server.tmux_ok(&["display-message", "-p", "-t", &pane, "#{C:NEEDLE}"]);
        assert_eq!(
            c.trim(),
            "0",
            "tmux {}: #{{C:}} unexpectedly found it",
            bin.label
        );

        // ... we find it, literal and regex, once.
        for (pattern, regex) in [("NEEDLE", false), ("NEED.?LE", true), ("needle", false)] {
            let v = ok_typed(
                &s,
                SearchPanesArgs {
                    regex,
                    ..search_for(pattern)
                },
            )
            .await;
            assert_eq!(
                hits(&v),
                vec![(pane.clone(), LINE.to_string(), want_number, 2)],
                "tmux {}: {pattern} (regex {regex}): {v}",
                bin.label
            );
            assert_eq!(v["total_panes_matched"], 1);
            let m = &v["matches"][0];
            assert_eq!(m["session_name"], "w");
            assert_eq!(m["matched_line_count"], 1);
        }
        // The regex sees no line break at the wrap.
        for pattern in [r"NEED\sLE", r"(?s)NEED.LE", r"NEED$", r"^LEXYZ"] {
            let v = ok_typed(
                &s,
                SearchPanesArgs {
                    regex: true,
                    ..search_for(pattern)
                },
            )
            .await;
            assert_eq!(
                v["total_panes_matched"], 0,
                "tmux {}: {pattern}: {v}",
                bin.label
            );
        }
        // A pattern that names a line break is refused, not silently unmatched.
        let e = err_typed(
            &s,
            SearchPanesArgs {
                regex: true,
                ..search_for(r"NEED\nLE")
            },
        )
        .await;
        assert_eq!(e.kind, "InvalidPattern", "{e:?}");
        // The line number is usable as capture_pane start/end and gives the same line.
        let cap = ok_typed(
            &s,
            CapturePaneArgs {
                start: Some(want_number),
                end: Some(want_number + 1),
                join_wrapped: true,
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(cap["result"], LINE, "tmux {}", bin.label);
    }
}

/// C3: a progress line overwritten with blanks: no trailing spaces in a joined capture, and
/// `done$` matches.
///
/// Sources: https://github.com/tmux/tmux/issues/3279 · https://github.com/tmux/tmux/issues/422
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c3_progress_overwrite_has_no_trailing_blanks() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("p").size(20, 24).start();
        let pane = first_pane(&server);
        let s = servers(&server);
        run(&server, &pane, r#"printf "50%%\r          \rdone\n""#);

        // tmux's own -J capture may carry the blanks; ours must not.
        let raw = server.capture(&pane, &["-J"]);
        assert!(
            raw.lines().any(|l| l.trim_end() == "done"),
            "tmux {}: {raw:?}",
            bin.label
        );
        for join in [true, false] {
            let cap = ok_typed(
                &s,
                CapturePaneArgs {
                    join_wrapped: join,
                    ..CapturePaneArgs::on(&pane)
                },
            )
            .await;
            let text = cap["result"].as_str().unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert!(
                lines.contains(&"done"),
                "tmux {} join {join}: {text:?}",
                bin.label
            );
            if join {
                for l in &lines {
                    assert_eq!(
                        l.trim_end(),
                        *l,
                        "tmux {}: trailing blanks in {l:?}",
                        bin.label
                    );
                }
            }
        }
        let v = ok_typed(
            &s,
            SearchPanesArgs {
                regex: true,
                ..search_for("done$")
            },
        )
        .await;
        let h = hits(&v);
        assert_eq!(h.len(), 1, "tmux {}: {v}", bin.label);
        assert_eq!(h[0].1, "done");
        assert_eq!(h[0].3, 1);
    }
}

/// C4: bytes that are not UTF-8 do not break the stream; capture equals tmux's; later text is
/// not lost.
///
/// Source: https://github.com/tmux/tmux/issues/1286
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c4_invalid_utf8_is_survived() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("u").start();
        let pane = first_pane(&server);
        let s = servers(&server);
        // Connect first, so the bytes also flow through our control connection as %output.
        ok_typed(&s, ListSessionsArgs::default()).await;
        run(
            &server,
            &pane,
            r"printf 'CAF\xe9 LAT''TE\n'; printf 'x\xff\xfe\xc3(\xed\xa0\x80y\n'; printf '\xe4\xb8'",
        );
        run(&server, &pane, "echo AFTER-C''4");

        let want = tmux_lines(&server, &pane, &[]);
        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        let got = lines_of(cap["result"].as_str().unwrap());
        assert_eq!(got, want, "tmux {}: capture differs from tmux's", bin.label);
        let caf = want
            .iter()
            .find(|l| l.starts_with("CAF"))
            .unwrap_or_else(|| panic!("tmux {}: no CAF line in {want:?}", bin.label))
            .clone();

        let v = ok_typed(&s, search_for("LATTE")).await;
        assert_eq!(hits(&v).len(), 1, "tmux {}: {v}", bin.label);
        assert_eq!(hits(&v)[0].1, caf, "tmux {}", bin.label);
        let v = ok_typed(&s, search_for("AFTER-C4")).await;
        assert_eq!(hits(&v).len(), 1, "tmux {}: {v}", bin.label);
        // The connection still answers.
        ok_typed(&s, ServerArgs::default()).await;
    }
}

/// C5: heavy output while our control client is detached or the server is killed: no hang,
/// no control text in pane content, other servers unaffected; and the parser drops a last
/// `%output` line that was cut off.
///
/// Source: https://github.com/tmux/tmux/issues/2217 (comment from 2020-05-29, `%exit` glued to
/// an `%output` payload).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c5_flood_then_detach_or_kill_server() {
    for bin in tmux_bins() {
        // (a) Detach our control client while the pane floods; the next call reconnects.
        let server = TestServer::builder(&bin).session("flood").start();
        let pane = first_pane(&server);
        let s = servers(&server);
        ok_typed(&s, ListSessionsArgs::default()).await;
        type_line(&server, &pane, "yes C5-FLOOD-LINE");
        server.wait_for_text(&pane, "C5-FLOOD-LINE\nC5-FLOOD-LINE", DEADLINE);
        // A few calls during the flood.
        for _ in 0..3 {
            let v = within("search during flood", ok_typed(&s, search_for("%exit"))).await;
            assert_eq!(v["total_panes_matched"], 0, "tmux {}: {v}", bin.label);
        }
        server.tmux_ok(&["detach-client", "-s", "=flood"]);
        let v = within(
            "search after detach",
            ok_typed(
                &s,
                SearchPanesArgs {
                    regex: false,
                    ..search_for("C5-FLOOD-LINE")
                },
            ),
        )
        .await;
        assert_eq!(v["total_panes_matched"], 1, "tmux {}", bin.label);
        for needle in ["%exit", "%begin", "%end", "%output", "%client-detached"] {
            let v = within("search for control text", ok_typed(&s, search_for(needle))).await;
            assert_eq!(
                v["total_panes_matched"], 0,
                "tmux {}: {needle} in pane content: {v}",
                bin.label
            );
        }
        let cap = within(
            "capture after detach",
            ok_typed(&s, CapturePaneArgs::on(&pane)),
        )
        .await;
        assert!(!cap["result"].as_str().unwrap().contains('%'), "{cap}");

        // (b) kill-server while the pane floods and our client reads it.
        server.tmux_ok(&["kill-server"]);
        let r = within("call after kill-server", call_typed(&s, search_for("x"))).await;
        assert_eq!(r.is_error, Some(true), "tmux {}", bin.label);
        let e = within("second call after kill-server", err_of(&s)).await;
        assert_eq!(e.kind, "NoServer", "tmux {}: {e:?}", bin.label);
        drop(server);

        // (c) Another server still works, in the same process.
        let other = TestServer::builder(&bin).session("other").start();
        let opane = first_pane(&other);
        run(&other, &opane, "echo OTHER-AL''IVE");
        let v = within(
            "search in another server",
            ok_typed(&servers(&other), search_for("OTHER-ALIVE")),
        )
        .await;
        assert_eq!(hits(&v).len(), 1, "tmux {}: {v}", bin.label);
    }
}

async fn err_of(s: &tmuxwire::tmux::Servers) -> ToolError {
    err_typed(s, ListSessionsArgs::default()).await
}

/// C5, parser side: a control stream recorded from a real `tmux -C` client, cut in the
/// middle of an `%output` line's octal escape: everything before is decoded, the cut line is
/// dropped, and `%exit` is only ever a notification at the start of a line.
#[test]
fn c5_recorded_stream_cut_mid_output_line() {
    for bin in tmux_bins() {
        c5_recorded_stream(&bin);
    }
}

fn c5_recorded_stream(bin: &crate::support::TmuxBin) {
    use tmuxwire::control::parse::{Event, parse_all};
    use tmuxwire::control::{Notification, PaneId};

    let server = TestServer::builder(bin).session("rec").start();
    let pane = first_pane(&server);
    let pane_num: u32 = pane[1..].parse().unwrap();
    let stream = record_control_stream(&server, &pane, "printf 'REC-MARK\\tx\\\\y\\r\\n'");

    // The whole recording parses into notifications and blocks; the pane bytes arrive intact.
    let events = parse_all(&stream);
    let outputs: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::Notification(Notification::Output { pane: p, data })
                if *p == PaneId(pane_num) =>
            {
                Some(data.clone())
            }
            _ => None,
        })
        .flatten()
        .collect();
    assert!(
        outputs.windows(13).any(|w| w == b"REC-MARK\tx\\y\r"),
        "decoded output: {:?}",
        String::from_utf8_lossy(&outputs)
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Notification(Notification::Exit(_)))),
        "the recording ends with %exit"
    );
    for e in &events {
        if let Event::Notification(Notification::Output { data, .. }) = e {
            assert!(
                !data.windows(5).any(|w| w == b"%exit"),
                "%exit inside pane data"
            );
        }
    }

    // Cut the recording inside the escape `\011` (the tab) of the `%output` line that carries
    // the marker.
    let esc = find_first(&stream, b"REC-MARK\\011").expect("the marker") + 8;
    let start = find_last(&stream[..esc], b"\n").map_or(0, |i| i + 1);
    assert!(stream[start..].starts_with(b"%output "), "{start}");
    let cut = &stream[..esc + 2]; // "...REC-MARK\01"
    let before = parse_all(&stream[..start]);
    let events = parse_all(cut);
    assert_eq!(
        events, before,
        "the cut line must be dropped, nothing else changes"
    );

    // A complete line after the cut one would still be parsed; a cut line glued to `%exit`
    // (the bug in the issue) is pane data, never an exit notification.
    let glued = [cut, b"%exit\n".as_slice()].concat();
    let events = parse_all(&glued);
    assert_eq!(events.len(), before.len() + 1);
    match events.last().unwrap() {
        Event::Notification(Notification::Output { data, .. }) => {
            assert!(
                data.ends_with(b"%exit"),
                "{:?}",
                String::from_utf8_lossy(data)
            );
        }
        other => panic!("expected the glued line as %output, got {other:?}"),
    }
    // Every chunking gives the same events.
    for split in 1..8 {
        let mut p = tmuxwire::control::Parser::new();
        let mut got = Vec::new();
        for chunk in cut.chunks(split) {
            p.feed(chunk, &mut |e| got.push(e));
        }
        p.finish();
        assert_eq!(got, before, "chunks of {split}");
    }
}

fn find_first(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Records what a real `tmux -C attach` client receives while `cmd` runs in `pane`: from the
/// attach until the command's output has arrived, then stdin is closed (tmux prints `%exit`).
fn record_control_stream(server: &TestServer, pane: &str, cmd: &str) -> Vec<u8> {
    use std::io::Read;
    use std::process::Stdio;
    use std::sync::mpsc;

    let target = format!("={}", server.session);
    let mut child = server
        .command()
        .args(["-C", "attach-session", "-t", &target])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tmux -C");
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut got = Vec::new();
    let wait_for = |got: &mut Vec<u8>, needle: &[u8]| {
        let deadline = Instant::now() + DEADLINE;
        while find_first(got, needle).is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(chunk) => got.extend_from_slice(&chunk),
                Err(_) => panic!(
                    "no {:?} in the control stream: {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(got)
                ),
            }
        }
    };
    // The attach command's own %end.
    wait_for(&mut got, b"%end ");
    type_line(server, pane, cmd);
    wait_for(&mut got, b"REC-MARK\\011x\\134y\\015");
    drop(child.stdin.take());
    let _ = child.wait();
    for chunk in rx.iter() {
        got.extend_from_slice(&chunk);
    }
    reader.join().unwrap();
    got
}

/// C8: output in a session our control client is not attached to is found by default.
///
/// Source: https://github.com/tmux/tmux/issues/2598
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c8_other_session_output_is_searched() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("A").start();
        let s = servers(&server);
        // Attach our control client (to A, the only session).
        ok_typed(&s, ListSessionsArgs::default()).await;
        server.tmux_ok(&["new-session", "-d", "-s", "B", "-x", "80", "-y", "24"]);
        let pane_b = pane_id(&server, "=B:");
        server.wait_for_text(&pane_b, "$", DEADLINE);
        let clients = server.tmux_ok(&[
            "list-clients",
            "-F",
            "#{client_control_mode} #{session_name}",
        ]);
        assert!(
            clients.lines().any(|l| l == "1 A"),
            "tmux {}: our control client should be on A: {clients:?}",
            bin.label
        );
        run(&server, &pane_b, "echo OTHER-SESSION-OUT''PUT");
        let v = ok_typed(&s, search_for("OTHER-SESSION-OUTPUT")).await;
        let h = hits(&v);
        assert_eq!(h.len(), 1, "tmux {}: {v}", bin.label);
        assert_eq!(h[0].0, pane_b);
        assert_eq!(h[0].1, "OTHER-SESSION-OUTPUT");
        assert_eq!(v["matches"][0]["session_name"], "B");
        assert_eq!(v["panes_searched"], 2);
        // And a capture of B's pane equals tmux's.
        let cap = ok_typed(&s, CapturePaneArgs::in_session("B")).await;
        assert_eq!(
            lines_of(cap["result"].as_str().unwrap()),
            tmux_lines(&server, &pane_b, &[]),
            "tmux {}",
            bin.label
        );
    }
}

/// C15: `session_name: "build"` never matches `build-x` by prefix or pattern: the listing,
/// search and capture tools answer NotFound, and the exact name works.
///
/// Sources: https://github.com/tmux/tmux/issues/1143 · https://github.com/tmux/tmux/issues/1295 ·
/// https://github.com/sleep2agi/agent-network/pull/570 · https://github.com/andyrewlee/amux/pull/156
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c15_session_name_is_exact_never_a_prefix() {
    c15_check(
        &[
            "build",
            "buil",
            "build*",
            "b*",
            "build-?",
            "=build-x",
            "[b]uild-x",
        ],
        &[
            |n| named(ListWindowsArgs::in_session(n)),
            |n| named(ListPanesArgs::in_session(n)),
            |n| named(content_search(n)),
            |n| named(CapturePaneArgs::in_session(n)),
            |n| named(SnapshotPaneArgs::in_session(n)),
        ],
    )
    .await;
}

/// C15 for the `get_*_info` tools: a missing session is NotFound, not an empty object.
///
/// tmux's `display-message -t` may fail to find its target and then expands the format with no
/// session at all (every field empty), with success.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn c15_info_tools_missing_session_is_not_found() {
    c15_check(
        &["build", "buil", "build*", "=build-x"],
        &[
            |n| named(SessionArgs::in_session(n)),
            |n| named(WindowArgs::in_session(n)),
            |n| named(PaneArgs::in_session(n)),
        ],
    )
    .await;
}

/// C15 with a `:` in the name: tmux session names never contain `:` (tmux replaces it), so
/// `build-x:` and `build-x:0` name no session; they must not reach `build-x` through the
/// `session:window` target syntax.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn c15_session_name_with_colon_is_not_a_target() {
    c15_check(
        &["build-x:", "build-x:0", "build-x:0.0"],
        &[
            |n| named(ListWindowsArgs::in_session(n)),
            |n| named(ListPanesArgs::in_session(n)),
            |n| named(content_search(n)),
            |n| named(CapturePaneArgs::in_session(n)),
            |n| named(SessionArgs::in_session(n)),
        ],
    )
    .await;
}

/// C15's search for build-x's content in the session named `name`.
fn content_search(name: &str) -> SearchPanesArgs {
    SearchPanesArgs {
        session_name: Some(name.into()),
        ..search_for("BUILD-X-CONTENT")
    }
}

/// A typed call aimed at the session named by its argument, as `(tool, arguments)`.
type InNamedSession = fn(&str) -> (&'static str, serde_json::Value);

/// Only `build-x` exists; every call of `tools` aimed at a session in `names` must answer
/// NotFound and never show build-x's content; the exact name `build-x` must work.
async fn c15_check(names: &[&str], tools: &[InNamedSession]) {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("build-x").start();
        let pane = first_pane(&server);
        let s = servers(&server);
        run(&server, &pane, "echo BUILD-X-CONT''ENT");
        // tmux itself matches the prefix (the trap).
        assert!(
            server
                .tmux(&["has-session", "-t", "build"])
                .status
                .success(),
            "tmux {}",
            bin.label
        );
        let mut wrong = Vec::new();
        for name in names {
            for aimed in tools {
                let (tool, args) = aimed(name);
                let r = call(&s, tool, args).await;
                let kind = serde_json::to_value(&r).unwrap()["_meta"]["error_type"].clone();
                if r.is_error != Some(true) || kind != "NotFound" {
                    wrong.push(format!(
                        "tmux {}: {tool} session_name {name:?}: is_error {:?}, kind {kind}, \
                         result {:?}",
                        bin.label, r.is_error, r.structured_content
                    ));
                }
                assert!(!text_of(&r).contains("BUILD-X-CONTENT"), "{}", text_of(&r));
            }
        }
        assert!(wrong.is_empty(), "not NotFound:\n{}", wrong.join("\n"));

        // The exact name works.
        let info = ok_typed(&s, SessionArgs::in_session("build-x")).await;
        assert_eq!(info["session_name"], "build-x");
        let w = ok_typed(&s, ListWindowsArgs::in_session("build-x")).await;
        assert_eq!(w["result"].as_array().unwrap().len(), 1);
        assert_eq!(w["result"][0]["session_name"], "build-x");
        let v = ok_typed(&s, content_search("build-x")).await;
        assert_eq!(hits(&v).len(), 1, "tmux {}: {v}", bin.label);
        let cap = ok_typed(&s, CapturePaneArgs::in_session("build-x")).await;
        assert_eq!(cap["pane_id"], pane);
        assert!(
            cap["result"]
                .as_str()
                .unwrap()
                .lines()
                .any(|l| l == "BUILD-X-CONTENT")
        );
        // build-x is untouched.
        assert_eq!(
            server
                .tmux_ok(&["list-sessions", "-F", "#{session_name}"])
                .trim(),
            "build-x"
        );
    }
}

/// C19 (scaled down for CI): a big history. Full search equals tmux's `capture-pane -J -S -`;
/// a full capture is capped by default and complete with `max_lines: null`; a small call is not
/// stuck behind a huge capture.
///
/// Sources: https://github.com/tmux/tmux/issues/4814 · https://github.com/tmux/tmux/issues/849 ·
/// https://github.com/kovidgoyal/kitty/issues/8526 · https://github.com/tmux/tmux/issues/2653 ·
/// https://github.com/tmux-python/libtmux/issues/251
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c19_big_history_search_and_capture() {
    const LINES: usize = 40_000;
    const NEEDLE: &str = "C19NEEDLE";
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("big")
            .size(80, 24)
            .history_limit(100_000)
            .start();
        let pane = first_pane(&server);
        let s = servers(&server);

        // 40k lines of 150 characters (2 rows each at width 80); every 997th carries the
        // needle, placed across the wrap (columns 76..85).
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.txt");
        let mut text = String::with_capacity(LINES * 151);
        for i in 0..LINES {
            let mut line = format!("{i:06}-{}", "x".repeat(143));
            if i % 997 == 0 {
                line.replace_range(76..76 + NEEDLE.len(), NEEDLE);
            }
            debug_assert_eq!(line.len(), 150);
            text.push_str(&line);
            text.push('\n');
        }
        std::fs::write(&file, &text).unwrap();
        let want_count = (0..LINES).filter(|i| i % 997 == 0).count();
        run(&server, &pane, &format!("cat '{}'", file.display()));

        // tmux's view.
        let joined = tmux_lines(&server, &pane, &["-J", "-S", "-", "-E", "-"]);
        let want: Vec<&String> = joined.iter().filter(|l| l.contains(NEEDLE)).collect();
        assert_eq!(want.len(), want_count, "tmux {}: needle lines", bin.label);
        let rows = tmux_lines(&server, &pane, &["-S", "-", "-E", "-"]);
        assert!(
            rows.len() > 2 * LINES,
            "tmux {}: {} rows",
            bin.label,
            rows.len()
        );

        let v = within(
            "full search",
            ok_typed(
                &s,
                SearchPanesArgs {
                    match_case: true,
                    max_matched_lines_per_pane: 100_000,
                    ..search_for(NEEDLE)
                },
            ),
        )
        .await;
        let h = hits(&v);
        assert_eq!(v["matches"][0]["matched_line_count"], want_count);
        let got: Vec<&String> = h.iter().map(|x| &x.1).collect();
        assert_eq!(got, want, "tmux {}: matched lines", bin.label);
        assert!(h.iter().all(|x| x.3 == 2), "every needle line spans 2 rows");
        // The line numbers point at those lines in tmux's numbering.
        for (_, line, n, r) in [&h[0], &h[h.len() / 2], &h[h.len() - 1]] {
            let a = n.to_string();
            let b = (n + *r as i64 - 1).to_string();
            let back = tmux_lines(&server, &pane, &["-J", "-S", &a, "-E", &b]);
            assert_eq!(back, vec![line.clone()], "tmux {}: line {n}", bin.label);
        }
        // A regex over everything agrees too.
        let v = within(
            "full regex search",
            ok_typed(
                &s,
                SearchPanesArgs {
                    regex: true,
                    max_matched_lines_per_pane: 100_000,
                    ..search_for(r"^0\d{4}0-x+C19NEEDLEx+$")
                },
            ),
        )
        .await;
        let rx_want = want
            .iter()
            .filter(|l| l.starts_with('0') && l.as_bytes()[5] == b'0')
            .count();
        assert_eq!(
            v["matches"][0]["matched_line_count"], rx_want,
            "tmux {}",
            bin.label
        );

        // Full history, default max_lines: capped at 500 with the header.
        let total = rows.len();
        let cap = within(
            "capped capture",
            ok_typed(
                &s,
                CapturePaneArgs {
                    start: Some(-1_000_000),
                    ..CapturePaneArgs::on(&pane)
                },
            ),
        )
        .await;
        assert_eq!(cap["lines"], 500, "tmux {}", bin.label);
        assert_eq!(cap["truncated_lines"], total - 500, "tmux {}", bin.label);
        let text = cap["result"].as_str().unwrap();
        let header = format!("[... truncated {} lines ...]\n", total - 500);
        assert!(
            text.starts_with(&header),
            "tmux {}: {}",
            bin.label,
            &text[..80]
        );
        assert_eq!(lines_of(&text[header.len()..]), rows[total - 500..]);

        // max_lines: null: every row. A small call issued right after the big capture (on the
        // same connection, so it is answered after it) still gets through: `join!` polls the
        // capture first, so its command is sent first.
        let t = Instant::now();
        let (cap, (info, small)) = tokio::join!(
            within(
                "big capture",
                ok_typed(
                    &s,
                    CapturePaneArgs {
                        start: Some(-1_000_000),
                        max_lines: None,
                        ..CapturePaneArgs::on(&pane)
                    }
                ),
            ),
            async {
                let v = within(
                    "small call during big capture",
                    ok_typed(&s, ServerArgs::default()),
                )
                .await;
                (v, t.elapsed())
            }
        );
        assert_eq!(info["is_alive"], true);
        // Generous bound (2-core CI, parallel tests): the point is "no deadlock", not speed.
        assert!(
            small < Duration::from_secs(10),
            "tmux {}: get_server_info took {small:?} during a big capture",
            bin.label
        );
        // Nothing cut: truncated_lines (0) is left out.
        assert!(cap.get("truncated_lines").is_none(), "{cap}");
        assert_eq!(cap["lines"], total, "tmux {}", bin.label);
        assert_eq!(
            lines_of(cap["result"].as_str().unwrap()),
            rows,
            "tmux {}: full capture differs from tmux's",
            bin.label
        );
    }
}

/// C20: copy mode scrolled up: snapshot reports the mode and tmux's scroll position; capture
/// says it returned the live view; search results do not change.
///
/// Sources: https://github.com/tmux/tmux/issues/4358 · https://github.com/tmux/tmux/issues/1226
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c20_copy_mode_scroll_is_reported() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("cm").size(80, 6).start();
        let pane = first_pane(&server);
        let s = servers(&server);
        run(&server, &pane, "seq 1 60");
        let search = SearchPanesArgs {
            regex: true,
            max_matched_lines_per_pane: 100,
            ..search_for(r"^\d+$")
        };
        let before = ok_typed(&s, search.clone()).await;
        assert_eq!(hits(&before).len(), 60, "tmux {}", bin.label);
        let snap = ok_typed(&s, SnapshotPaneArgs::on(&pane)).await;
        assert_eq!(snap["pane_in_mode"], false);
        let cap_live = ok_typed(&s, CapturePaneArgs::on(&pane)).await;

        server.tmux_ok(&["copy-mode", "-t", &pane]);
        server.tmux_ok(&["send-keys", "-t", &pane, "-X", "-N", "20", "scroll-up"]);
        let want: i64 = server
            .tmux_ok(&["display-message", "-p", "-t", &pane, "#{scroll_position}"])
            .trim()
            .parse()
            .expect("scroll_position");
        assert_eq!(want, 20, "tmux {}", bin.label);

        let snap = ok_typed(&s, SnapshotPaneArgs::on(&pane)).await;
        assert_eq!(snap["pane_in_mode"], true, "tmux {}: {snap}", bin.label);
        assert_eq!(snap["pane_mode"], "copy-mode", "tmux {}: {snap}", bin.label);
        assert_eq!(snap["scroll_position"], want, "tmux {}: {snap}", bin.label);

        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        // The live view, the only one (left out).
        assert!(cap.get("view").is_none(), "tmux {}: {cap}", bin.label);
        assert_eq!(cap["pane_in_mode"], true);
        assert_eq!(cap["pane_mode"], "copy-mode");
        assert_eq!(cap["scroll_position"], want);
        // "live" means the live screen: the same text as before copy mode, and as tmux's.
        assert_eq!(cap["result"], cap_live["result"], "tmux {}", bin.label);
        assert_eq!(
            lines_of(cap["result"].as_str().unwrap()),
            tmux_lines(&server, &pane, &[]),
        );

        let after = ok_typed(&s, search).await;
        // The matches are the same (the window name may change meanwhile: automatic-rename).
        assert_eq!(
            hits(&after),
            hits(&before),
            "tmux {}: copy mode changed search results",
            bin.label
        );
        for k in ["total_panes_matched", "truncated", "panes_searched"] {
            assert_eq!(after[k], before[k], "tmux {}: {k}", bin.label);
        }
    }
}

/// C17: `history-limit` set after a pane exists does not change that pane. Pane info shows the
/// pane's own limit, and a search that cannot find text tmux has trimmed says the pane's history
/// is at its limit instead of an unexplained "not found".
///
/// Source: https://github.com/tmux/tmux/issues/4705
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c17_history_limit_is_per_pane_and_trimming_is_reported() {
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).session("h").start();
    server.tmux_ok(&["set-option", "-t", "h", "history-limit", "100000"]);
    let pane = first_pane(&server);
    run(&server, &pane, "seq 1 10000");
    let s = servers(&server);
    let info = ok_typed(&s, PaneArgs::on(&pane)).await;
    // tmux's default limit (2000) is left out.
    assert!(info.get("history_limit").is_none(), "{info}");
    assert_eq!(
        info["history_size"].as_i64().unwrap_or(0),
        history_size(&server, &pane),
        "{info}"
    );

    let found = ok_typed(
        &s,
        SearchPanesArgs {
            regex: true,
            ..search_for("^1$")
        },
    )
    .await;
    assert_eq!(found["total_panes_matched"], 0, "{found}");
    assert_eq!(found["panes_history_at_limit"], json!([pane]), "{found}");
    // The newest lines are still there, and the pane is still reported.
    let found = ok_typed(
        &s,
        SearchPanesArgs {
            regex: true,
            ..search_for("^10000$")
        },
    )
    .await;
    assert_eq!(hits(&found).len(), 1, "{found}");
    assert_eq!(found["panes_history_at_limit"], json!([pane]), "{found}");

    // A pane made after the `set` has the new limit and room to spare.
    server.tmux_ok(&["new-window", "-t", "h"]);
    let newer = pane_id(&server, "h:1");
    let info = ok_typed(&s, PaneArgs::on(&newer)).await;
    assert_eq!(info["history_limit"], 100000, "{info}");
    let found = ok_typed(
        &s,
        SearchPanesArgs {
            regex: true,
            ..search_for("^10000$")
        },
    )
    .await;
    assert_eq!(found["panes_history_at_limit"], json!([pane]), "{found}");
}

/// C18: a full-screen program's alternate screen is searched (tagged `alternate`) and so is the
/// normal screen it hides (tagged `hidden_main`); once the program leaves it, the alternate
/// screen's text is gone and the normal screen and history are as before.
///
/// Source: https://github.com/herdrdev/herdr/issues/1304
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c18_alternate_screen_and_hidden_main_screen_are_searched() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("alt")
            .size(60, 8)
            .command(
                r"seq 1 20; echo MAINSCREEN-MARK; printf '\033[?1049h\033[2J\033[HALTSCREEN-MARK\n'; \
                  read -r x; printf '\033[?1049l'; exec cat",
            )
            .start();
        let pane = first_pane(&server);
        server.wait_for_text(&pane, "ALTSCREEN-MARK", DEADLINE);
        let s = servers(&server);
        let search = search_for("SCREEN-MARK");
        let r = ok_typed(&s, search.clone()).await;
        let m = &r["matches"][0];
        assert_eq!(m["source"], "mirror", "tmux {}: {r}", bin.label);
        assert_eq!(
            m["matched_lines"],
            json!(["MAINSCREEN-MARK", "ALTSCREEN-MARK"]),
            "tmux {}: {r}",
            bin.label
        );
        assert_eq!(
            m["matched_screens"],
            json!(["hidden_main", "alternate"]),
            "tmux {}: {r}",
            bin.label
        );
        // History lines are the normal screen's: found, and not tagged alternate.
        let r = ok_typed(
            &s,
            SearchPanesArgs {
                regex: true,
                ..search_for("^1$")
            },
        )
        .await;
        assert_eq!(hits(&r).len(), 1, "tmux {}: {r}", bin.label);
        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        assert_eq!(
            lines_of(cap["result"].as_str().unwrap_or_default()),
            tmux_lines(&server, &pane, &[]),
            "tmux {}: the visible (alternate) screen",
            bin.label
        );

        type_line(&server, &pane, "");
        wait_until_true(
            &format!("tmux {}: alternate screen closed", bin.label),
            DEADLINE,
            || {
                server
                    .tmux_ok(&["display-message", "-p", "-t", &pane, "#{alternate_on}"])
                    .trim()
                    == "0"
            },
        );
        let r = ok_typed(&s, search).await;
        let m = &r["matches"][0];
        assert_eq!(
            m["matched_lines"],
            json!(["MAINSCREEN-MARK"]),
            "tmux {}: {r}",
            bin.label
        );
        assert!(
            m.get("matched_screens").is_none(),
            "tmux {}: {r}",
            bin.label
        );
        let full = CapturePaneArgs {
            start: Some(-100),
            join_wrapped: true,
            ..CapturePaneArgs::on(&pane)
        };
        let cap = ok_typed(&s, full).await;
        assert_eq!(
            lines_of(cap["result"].as_str().unwrap_or_default()),
            tmux_lines(&server, &pane, &["-J", "-S", "-100"]),
            "tmux {}: history and screen as before",
            bin.label
        );
    }
}

/// C21: DEC line-drawing cells (`ESC ( 0`), which tmux stores as the letters `lqkxmj` and plain
/// `capture-pane -p` prints as such, read as the box-drawing characters they show; a real `x`
/// stays an `x`.
///
/// Source: https://github.com/tmux/tmux/issues/4065
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c21_line_drawing_reads_as_box_characters() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("a").size(40, 10).start();
        let pane = first_pane(&server);
        let s = servers(&server);
        // Mirror the pane first, so the box arrives as output.
        ok_typed(&s, search_for("nothing-here")).await;
        run(
            &server,
            &pane,
            // Octal escapes: the command line itself must not hold `lqqk`.
            r"printf '\033(0\154\161\161\153\033(B\nx  x\n\033(0\155\161\161\152\033(B\n'",
        );
        let r = ok_typed(&s, search_for("┌──┐")).await;
        assert_eq!(hits(&r).len(), 1, "tmux {}: {r}", bin.label);
        assert_eq!(r["matches"][0]["pane_id"], pane);
        let r = ok_typed(&s, search_for("lqqk")).await;
        assert_eq!(r["total_panes_matched"], 0, "tmux {}: {r}", bin.label);
        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        let text = cap["result"].as_str().unwrap_or_default().to_string();
        assert!(
            text.contains("┌──┐\nx  x\n└──┘"),
            "tmux {}: {text}",
            bin.label
        );
        // A fresh copy (seeded from tmux's captures) reads the same.
        let fresh = servers(&server);
        let cap = ok_typed(&fresh, CapturePaneArgs::on(&pane)).await;
        assert_eq!(
            cap["result"].as_str().unwrap_or_default(),
            text,
            "tmux {}",
            bin.label
        );
    }
}

/// C22: tmux 3.6 and later keep a TAB as one cell that captures print as `\t`, so a query with
/// a TAB finds the line; earlier versions store blanks, and the search says why it cannot match.
///
/// Source: https://github.com/tmux/tmux/issues/2619
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c22_tab_queries_match_or_say_why_not() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("tab")
            .size(80, 10)
            .start();
        let pane = first_pane(&server);
        run(&server, &pane, r"printf 'col1\tcol2\tTABMARK\n'");
        let keeps_tabs = server.capture(&pane, &[]).contains("col1\tcol2");
        let s = servers(&server);
        for args in [
            search_for("col1\tcol2"),
            SearchPanesArgs {
                regex: true,
                ..search_for(r"col1\tcol2")
            },
        ] {
            let r = ok_typed(&s, args.clone()).await;
            let args = arguments(&args);
            if keeps_tabs {
                assert_eq!(hits(&r).len(), 1, "tmux {} {args}: {r}", bin.label);
                assert_eq!(r["matches"][0]["matched_lines"][0], "col1\tcol2\tTABMARK");
                assert!(r.get("note").is_none(), "tmux {}: {r}", bin.label);
            } else {
                assert_eq!(
                    r["total_panes_matched"], 0,
                    "tmux {} {args}: {r}",
                    bin.label
                );
                let note = r["note"].as_str().unwrap_or_default();
                assert!(note.contains("keeps no TABs"), "tmux {}: {r}", bin.label);
            }
        }
        let r = ok_typed(
            &s,
            SearchPanesArgs {
                regex: true,
                ..search_for(r"col1\s+col2")
            },
        )
        .await;
        assert_eq!(hits(&r).len(), 1, "tmux {}: {r}", bin.label);
        assert!(r.get("note").is_none(), "tmux {}: {r}", bin.label);
        // The copy agrees with tmux's capture either way.
        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        assert_eq!(
            lines_of(cap["result"].as_str().unwrap_or_default()),
            tmux_lines(&server, &pane, &[]),
            "tmux {}",
            bin.label
        );
    }
}

/// C29: blank lines in the middle of a screen are kept, padding rows below the text are not,
/// and a snapshot covers the rows down to the cursor (the two blank lines a program printed
/// above its prompt are part of the screen it left).
///
/// Source: https://github.com/wezterm/wezterm/pull/7985
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c29_interior_blanks_kept_and_snapshot_reaches_the_cursor() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("blank")
            .size(40, 12)
            .command(r"printf 'top\n\n\n   \nbottom\n\n\n'; read -r x")
            .start();
        let pane = first_pane(&server);
        let cursor_row = || {
            server
                .tmux_ok(&["display-message", "-p", "-t", &pane, "#{cursor_y}"])
                .trim()
                .to_string()
        };
        wait_until_true(
            &format!("tmux {}: cursor on row 7", bin.label),
            DEADLINE,
            || cursor_row() == "7",
        );
        let s = servers(&server);
        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        assert_eq!(cap["result"], "top\n\n\n\nbottom", "tmux {}", bin.label);
        let snap = ok_typed(&s, SnapshotPaneArgs::on(&pane)).await;
        assert_eq!(snap["cursor_y"], 7, "tmux {}", bin.label);
        assert_eq!(
            snap["content"], "top\n\n\n\nbottom\n\n\n",
            "tmux {}: rows 0..=7, the cursor's row last",
            bin.label
        );
        // max_lines counts those rows too.
        let snap = ok_typed(
            &s,
            SnapshotPaneArgs {
                max_lines: Some(4),
                ..SnapshotPaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(snap["content"], "bottom\n\n\n", "tmux {}", bin.label);
        assert_eq!(snap["content_truncated_lines"], 4, "tmux {}", bin.label);
    }
}

/// C35: tmux's `#{session_attached}` counts control-mode clients, tmuxwire's own included.
/// Every tool leaves tmuxwire's out, so `display_message`, `list_sessions` and
/// `get_session_info` give one answer (0 here: nobody is attached).
///
/// Source: https://github.com/jrmoulton/tmux-sessionizer/pull/195
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c35_session_attached_is_one_answer_everywhere() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("A").start();
        server.tmux_ok(&["new-session", "-d", "-s", "B"]);
        let s = servers(&server);
        let list = ok_typed(&s, ListSessionsArgs::default()).await;
        for name in ["A", "B"] {
            let format = "#{session_attached}|#{session_many_attached}|#{session_name} \
                          #{session_attached}#{session_attached} 100%";
            let d = ok_typed(
                &s,
                DisplayMessageArgs {
                    session_name: Some(name.to_string()),
                    format_string: format.to_string(),
                    ..Default::default()
                },
            )
            .await;
            assert_eq!(
                d["result"],
                json!(format!("0|0|{name} 00 100%")),
                "tmux {}: {name}",
                bin.label
            );
            let info = ok_typed(&s, SessionArgs::in_session(name)).await;
            assert_eq!(info["session_attached"], "0", "tmux {}: {name}", bin.label);
        }
        let rows = list["result"].as_array().expect("a list");
        assert_eq!(rows.len(), 2);
        for row in rows {
            assert_eq!(row["session_attached"], "0", "tmux {}: {row}", bin.label);
        }
        // tmux itself counts tmuxwire's control client in one of them: the subtraction matters.
        let tmux_count: i64 = ["=A:", "=B:"]
            .iter()
            .map(|t| {
                let out =
                    server.tmux_ok(&["display-message", "-p", "-t", t, "#{session_attached}"]);
                out.trim().parse::<i64>().expect("a count")
            })
            .sum();
        assert!(tmux_count >= 1, "tmux {}: {tmux_count}", bin.label);
    }
}

/// C37: `resize-pane -Z` toggles the window's zoom whichever pane is zoomed, so "zoom pane X"
/// must leave X zoomed (and active) also when another pane of the window is the zoomed one;
/// zooming the zoomed pane again keeps it zoomed; unzooming twice leaves the window unzoomed.
/// The state is read with tmux after each call, and each answer is the pane's state after it.
///
/// Source: https://github.com/tmux-python/tmuxp/issues/454
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c37_zoom_names_the_pane_even_when_another_is_zoomed() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).size(80, 24).start();
        let p0 = first_pane(&server);
        let p1 = server
            .tmux_ok(&["split-window", "-h", "-P", "-F", "#{pane_id}", "-t", &p0])
            .trim()
            .to_string();
        let s = servers(&server);
        // (pane, zoom) → expected (window zoomed, active pane, width of that pane).
        let steps = [
            (&p1, true, "1", &p1, "80"),
            (&p1, true, "1", &p1, "80"),
            (&p0, true, "1", &p0, "80"),
            (&p0, false, "0", &p0, "40"),
            (&p0, false, "0", &p0, "40"),
        ];
        for (i, (pane, zoom, zoomed, active, width)) in steps.into_iter().enumerate() {
            let ctx = format!("tmux {} step {i}: zoom={zoom} on {pane}", bin.label);
            let r = ok_typed(
                &s,
                ResizePaneArgs {
                    zoom: Some(zoom),
                    ..ResizePaneArgs::on(pane)
                },
            )
            .await;
            let state = server.tmux_ok(&[
                "display-message",
                "-p",
                "-t",
                pane,
                "#{window_zoomed_flag} #{pane_active} #{pane_width}",
            ]);
            let active_now = server
                .tmux_ok(&[
                    "list-panes",
                    "-t",
                    &p0,
                    "-f",
                    "#{pane_active}",
                    "-F",
                    "#{pane_id}",
                ])
                .trim()
                .to_string();
            let want_active = if active == pane { "1" } else { "0" };
            assert_eq!(
                state.trim(),
                format!("{zoomed} {want_active} {width}"),
                "{ctx}"
            );
            assert_eq!(&active_now, active, "{ctx}");
            // The answer is the pane's state right after the change.
            assert_eq!(r["pane_id"], json!(pane), "{ctx}: {r}");
            assert_eq!(r["pane_active"], json!(want_active), "{ctx}: {r}");
            assert_eq!(r["pane_width"], json!(width), "{ctx}: {r}");
        }
    }
}

/// Makes the window of C38 in a fresh server: 120×40, split in three (`%0` on top, `%1` and
/// `%2` side by side below), `%0` resized to 12 rows. Returns tmux's own `#{window_layout}`.
fn c38_window(server: &TestServer) -> String {
    let p0 = first_pane(server);
    server.tmux_ok(&["split-window", "-v", "-t", &p0]);
    let p1 = server
        .tmux_ok(&["list-panes", "-t", &p0, "-F", "#{pane_id}"])
        .lines()
        .nth(1)
        .expect("a second pane")
        .to_string();
    server.tmux_ok(&["split-window", "-h", "-t", &p1]);
    server.tmux_ok(&["resize-pane", "-t", &p0, "-y", "12"]);
    server
        .tmux_ok(&["display-message", "-p", "-t", &p0, "#{window_layout}"])
        .trim()
        .to_string()
}

/// C38: every `window_layout` tmux reports goes back to `select_layout` unchanged and restores
/// the layout: the legacy string on 3.3a and 3.5a, tmux 3.8's JSON form on 3.8 (a window with
/// floating panes included). A 3.8 JSON layout given to an older tmux is written in the legacy
/// form it reads, and restores the same cells there. Text tmux's layout reader would crash on
/// (no checksum; a one-cell split, which kills 3.3a and 3.5a) never reaches it.
///
/// Sources: https://github.com/tmux/tmux/issues/5577 · https://github.com/tmux/tmux/issues/5211
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c38_window_layout_goes_back_to_select_layout() {
    let bins = tmux_bins();
    let json_form =
        |b: &crate::support::TmuxBin| tmuxwire::wire::TmuxVersion::parse(&b.label).at_least(3, 8);
    // tmux 3.8's JSON layout of the same window, when 3.8 is here, for the older versions.
    let json = bins.iter().find(|b| json_form(b)).map(|b| {
        let server = TestServer::builder(b).size(120, 40).start();
        c38_window(&server)
    });
    for bin in &bins {
        let server = TestServer::builder(bin).size(120, 40).start();
        let own = c38_window(&server);
        let s = servers(&server);
        let info = ok_typed(&s, WindowArgs::in_session(&server.session)).await;
        let layout = info["window_layout"]
            .as_str()
            .expect("a layout")
            .to_string();
        assert_eq!(layout, own, "tmux {}: window_layout is tmux's", bin.label);
        assert_eq!(
            layout.starts_with('{'),
            json_form(bin),
            "tmux {}: {layout}",
            bin.label
        );
        let window = info["window_id"].as_str().expect("a window id").to_string();
        let layout_of = |layout: &str| SelectLayoutArgs {
            window_id: Some(window.clone()),
            layout: layout.to_string(),
            ..Default::default()
        };
        let mut given = vec![layout.clone()];
        if let Some(j) = json.as_ref().filter(|_| !json_form(bin)) {
            given.push(j.clone());
        }
        for l in given {
            let ctx = format!("tmux {}: select_layout {l}", bin.label);
            let tiled = ok_typed(&s, layout_of("tiled")).await;
            assert_ne!(
                tiled["window_layout"],
                json!(layout),
                "{ctx}: tiled changed nothing"
            );
            let r = ok_typed(&s, layout_of(&l)).await;
            let now = server
                .tmux_ok(&["display-message", "-p", "-t", "@0", "#{window_layout}"])
                .trim()
                .to_string();
            assert_eq!(now, layout, "{ctx}: restored");
            assert_eq!(r["window_layout"], json!(layout), "{ctx}: the answer");
        }
        // What tmux's reader trusts is checked first.
        for bad in [
            "a694,",
            "0073,80x24,0,0[80x12,0,0,0,80x11,0,13{80x11,0,13,1}]",
            r#"{"V":2,"L":{"t":"v","w":120,"h":40,"x":0,"y":0,"c":[{"t":"p","w":120,"h":40,"x":0,"y":0,"i":0}]}}"#,
            r#"{"V":2,"L":{"t":"p","w":120,"h":40,"x":0,"y":0,"i":0,"I":"%0\u0000"}}"#,
        ] {
            let e = err_typed(&s, layout_of(bad)).await;
            assert_eq!(
                e.kind, "InvalidArgument",
                "tmux {}: {bad}: {}",
                bin.label, e.text
            );
        }
        assert!(server.is_alive(), "tmux {}", bin.label);
        // Floating panes (tmux 3.8): their z-indexes and negative offsets go back too.
        if json_form(bin) {
            let p0 = first_pane(&server);
            server.tmux_ok(&[
                "new-pane", "-t", &p0, "-x", "20", "-y", "8", "-X", "5", "-Y", "3",
            ]);
            server.tmux_ok(&[
                "new-pane", "-t", &p0, "-x", "10", "-y", "5", "-X", "-3", "-Y", "-2",
            ]);
            let info = ok_typed(
                &s,
                WindowArgs {
                    window_id: Some(window.clone()),
                    ..Default::default()
                },
            )
            .await;
            let layout = info["window_layout"]
                .as_str()
                .expect("a layout")
                .to_string();
            assert!(layout.contains("\"z\":"), "{layout}");
            ok_typed(&s, layout_of("tiled")).await;
            let r = ok_typed(&s, layout_of(&layout)).await;
            assert_eq!(r["window_layout"], json!(layout), "tmux 3.8 floating panes");
        }
    }
}

/// C38, the whole promise: every field the listing and info tools return goes back unchanged
/// where a tool takes it, on every tmux version (3.8 formats only `window_layout` differently
/// from 3.3a and 3.5a; ids, indexes, sizes and paths are the same text on all three).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c38_returned_fields_go_back_as_arguments() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).size(120, 40).start();
        c38_window(&server);
        server.tmux_ok(&["new-window", "-d", "-t", &format!("={}:", server.session)]);
        let s = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let sessions = ok_typed(&s, ListSessionsArgs::default()).await;
        // The returned values go back as JSON, as they are: what C38 promises a client.
        for sess in sessions["result"].as_array().expect("a list") {
            for args in [
                json!({"session_id": sess["session_id"]}),
                json!({"session_name": sess["session_name"]}),
            ] {
                let r = ok(&s, "get_session_info", args.clone()).await;
                assert_eq!(r, *sess, "{ctx}: {args}");
            }
        }
        let windows = ok_typed(&s, ListWindowsArgs::in_session(&server.session)).await;
        let windows = windows["result"].as_array().expect("a list").clone();
        assert_eq!(windows.len(), 2, "{ctx}");
        for w in &windows {
            for args in [
                json!({"window_id": w["window_id"]}),
                json!({"session_id": w["session_id"], "window_index": w["window_index"]}),
                json!({"session_name": w["session_name"], "window_index": w["window_index"]}),
            ] {
                let r = ok(&s, "get_window_info", args.clone()).await;
                assert_eq!(r["window_id"], w["window_id"], "{ctx}: {args}");
            }
            let r = ok(
                &s,
                "select_layout",
                json!({"window_id": w["window_id"], "layout": w["window_layout"]}),
            )
            .await;
            assert_eq!(r["window_layout"], w["window_layout"], "{ctx}");
            let r = ok(
                &s,
                "resize_window",
                json!({"window_id": w["window_id"], "width": w["window_width"],
                       "height": w["window_height"]}),
            )
            .await;
            assert_eq!(
                (&r["window_width"], &r["window_height"]),
                (&w["window_width"], &w["window_height"]),
                "{ctx}"
            );
            let panes = ok(&s, "list_panes", json!({"window_id": w["window_id"]})).await;
            for p in panes["result"].as_array().expect("a list") {
                let args = json!({"pane_id": p["pane_id"], "window_id": p["window_id"],
                                  "session_id": p["session_id"]});
                let r = ok(&s, "get_pane_info", args).await;
                assert_eq!(r["pane_id"], p["pane_id"], "{ctx}");
                let r = ok(
                    &s,
                    "resize_pane",
                    json!({"pane_id": p["pane_id"], "height": p["pane_height"]}),
                )
                .await;
                assert_eq!(r["pane_height"], p["pane_height"], "{ctx}: {p}");
                let d = ok(
                    &s,
                    "display_message",
                    json!({"pane_id": p["pane_id"], "format_string": "#{window_layout}"}),
                )
                .await;
                assert_eq!(d["result"], w["window_layout"], "{ctx}");
            }
        }
        // A pane's directory starts a new pane; the window with it still restores its layout.
        let p0 = first_pane(&server);
        let info = ok_typed(&s, PaneArgs::on(&p0)).await;
        let split = ok(
            &s,
            "split_window",
            json!({"pane_id": p0, "start_directory": info["pane_current_path"]}),
        )
        .await;
        // The new pane's program may not have started when the answer is read: ask tmux.
        let new_pane = split["pane_id"].as_str().expect("a pane id").to_string();
        let want = info["pane_current_path"]
            .as_str()
            .expect("a path")
            .to_string();
        wait_until_true(
            &format!("{ctx}: the new pane's directory"),
            DEADLINE,
            || {
                server
                    .tmux_ok(&[
                        "display-message",
                        "-p",
                        "-t",
                        &new_pane,
                        "#{pane_current_path}",
                    ])
                    .trim()
                    == want
            },
        );
        let server_info = ok_typed(&s, ServerArgs::default()).await;
        let again = ok(
            &s,
            "get_server_info",
            json!({"socket_path": server_info["socket_path"]}),
        )
        .await;
        assert_eq!(again["pid"], server_info["pid"], "{ctx}");
    }
}
