//! The manage, execute and teardown tools and the inspect tools added with them, called
//! through the MCP tool layer (`tmuxwire::mcp::tools::call`) and checked against what tmux
//! itself reports for the same server, on every tmux of `tmux_bins()`: the reference's pinned
//! cases (`reference-tools.md` §4.3) where they are right, the opposite where the reference is
//! wrong (§5.3: `select_layout` returns the new layout; targets default to the active window;
//! `kill_session("build")` never kills `build-x`), public cases C14, C15 and C30, the
//! self-kill guards, the toolset choice as the binary applies it, resources, prompts, and one
//! round trip per tool.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tmuxwire::tmux::{Caller, Server, Servers};

use crate::support::Socket;
use crate::support::tool::{err, first_pane, ok, pane_id, run};
use crate::support::*;

/// `tmux display-message -p -t target fmt`, trimmed of its line break.
fn show(server: &TestServer, target: &str, fmt: &str) -> String {
    let out = server.tmux_ok(&["display-message", "-p", "-t", target, fmt]);
    out.strip_suffix('\n').unwrap_or(&out).to_string()
}

/// The id of a new window made by tmux in `server`'s first session.
fn new_window(server: &TestServer) -> String {
    server
        .tmux_ok(&[
            "new-window",
            "-d",
            "-P",
            "-F",
            "#{window_id}",
            "-t",
            &format!("={}:", server.session),
        ])
        .trim()
        .to_string()
}

/// Tools given ids are one round trip each on the open connection (the action and the read of
/// its result on one command line); a session name tmux can match exactly costs nothing
/// extra; `send_keys` and `paste_text` typing text make one more to read the pane's terminal
/// facts (the password guard; two with a session name) unless `allow_password_input`;
/// `paste_buffer` before tmux 3.7 one more to read the buffer; `wait_for_channel` waits on a
/// connection of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_round_trip_per_tool() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = capture_servers(&server);
        let t = s.default_server().clone();
        let p0 = first_pane(&server);
        let w0 = show(&server, &p0, "#{window_id}");
        let s0 = show(&server, &p0, "#{session_id}");
        ok(&s, "get_server_info", json!({})).await; // connect
        let p1 = ok(&s, "split_window", json!({"pane_id": p0})).await["pane_id"]
            .as_str()
            .unwrap()
            .to_string();
        let buf = ok(&s, "load_buffer", json!({"content": "x"})).await["buffer_name"]
            .as_str()
            .unwrap()
            .to_string();
        let w1 = new_window(&server);
        let calls: Vec<(&str, Value)> = vec![
            (
                "rename_session",
                json!({"session_id": s0, "new_name": "main"}),
            ),
            (
                "rename_session",
                json!({"session_name": "main", "new_name": "main"}),
            ),
            ("rename_window", json!({"window_id": w0, "new_name": "w"})),
            ("select_window", json!({"window_id": w0})),
            (
                "select_window",
                json!({"session_id": s0, "direction": "next"}),
            ),
            ("select_pane", json!({"pane_id": p0})),
            ("select_pane", json!({"window_id": w0, "direction": "next"})),
            ("select_layout", json!({"window_id": w0, "layout": "tiled"})),
            (
                "resize_window",
                json!({"window_id": w0, "width": 70, "height": 20}),
            ),
            ("resize_pane", json!({"pane_id": p0, "height": 5})),
            ("resize_pane", json!({"pane_id": p0, "zoom": true})),
            ("resize_pane", json!({"pane_id": p0, "zoom": false})),
            (
                "move_window",
                json!({"window_id": w1, "destination_session": s0, "destination_index": "7"}),
            ),
            (
                "swap_pane",
                json!({"source_pane_id": p0, "target_pane_id": p1}),
            ),
            ("set_pane_title", json!({"pane_id": p0, "title": "t"})),
            ("enter_copy_mode", json!({"pane_id": p0, "scroll_up": 1})),
            ("exit_copy_mode", json!({"pane_id": p0})),
            ("load_buffer", json!({"content": "y"})),
            ("show_buffer", json!({"buffer_name": buf})),
            ("paste_buffer", json!({"buffer_name": buf, "pane_id": p1})),
            ("signal_channel", json!({"channel": "rt"})),
            (
                "show_option",
                json!({"option": "history-limit", "global_": true}),
            ),
            (
                "set_option",
                json!({"option": "@x", "value": "1", "scope": "pane", "target": p0}),
            ),
            ("show_environment", json!({"session_id": s0})),
            ("set_environment", json!({"name": "X", "value": "1"})),
            ("show_hooks", json!({"scope": "server"})),
            (
                "show_hook",
                json!({"hook_name": "after-new-window", "global_": true}),
            ),
            (
                "find_pane_by_position",
                json!({"window_id": w0, "corner": "top-left"}),
            ),
            ("create_window", json!({"session_id": s0})),
            ("create_window", json!({"session_name": "main"})),
            ("split_window", json!({"pane_id": p1})),
            ("send_keys", json!({"pane_id": p1, "keys": "true"})),
            ("send_keys", json!({"session_name": "main", "keys": "true"})),
            (
                "send_keys_batch",
                json!({"operations": [{"keys": "a", "pane_id": p1}, {"keys": "C-u", "pane_id": p1, "enter": false}]}),
            ),
            ("paste_text", json!({"pane_id": p1, "text": "x"})),
            (
                "send_keys",
                json!({"pane_id": p1, "keys": "true", "allow_password_input": true}),
            ),
            (
                "paste_text",
                json!({"pane_id": p1, "text": "x", "allow_password_input": true}),
            ),
            ("respawn_pane", json!({"pane_id": p1})),
            ("pipe_pane", json!({"pane_id": p1})),
            ("clear_pane", json!({"pane_id": p1})),
            ("delete_buffer", json!({"buffer_name": buf})),
            ("create_session", json!({"session_name": "rt"})),
            ("kill_session", json!({"session_name": "rt"})),
            ("kill_window", json!({"window_id": w1})),
            ("kill_pane", json!({"pane_id": p1})),
        ];
        for (tool, args) in calls {
            let before = t.round_trips();
            ok(&s, tool, args.clone()).await;
            // Typing first reads the pane's terminal facts, to refuse a password prompt; with
            // allow_password_input it does not, except for text with Enter, whose submit delay
            // the facts choose (0 for a shell's line editor); a batch reads them once per pane
            // it types text into
            // (two when a session_name names the pane: it is found first).
            let guarded = (tool == "send_keys" && args.get("enter").is_none())
                || (matches!(tool, "send_keys" | "paste_text" | "send_keys_batch")
                    && args.get("allow_password_input").is_none());
            let mut extra = match (guarded, args.get("session_name").is_some()) {
                (false, _) => 0,
                (true, false) => 1,
                (true, true) => 2,
            };
            // Before 3.7 (whose paste writes a buffer's bytes as they are) paste_buffer reads
            // the buffer first, to paste what 3.7 would.
            let version = t.version().await.expect("version");
            if tool == "paste_buffer" && version.release().is_none_or(|r| r < (3, 7)) {
                extra += 1;
            }
            assert_eq!(
                t.round_trips() - before,
                1 + extra,
                "tmux {}: {tool} {args}: round trips",
                bin.label
            );
        }
        // Waiting uses a connection of its own: none on the shared one.
        ok(&s, "signal_channel", json!({"channel": "own"})).await;
        let before = t.round_trips();
        ok(
            &s,
            "wait_for_channel",
            json!({"channel": "own", "timeout": 5}),
        )
        .await;
        assert_eq!(t.round_trips() - before, 0, "tmux {}", bin.label);
    }
}

/// C30 and literal names: names, titles and directories holding tmux format syntax are
/// stored exactly (tmux expands formats in `rename-window`, `new-session -s/-n`,
/// `select-pane -T`, `-c`); `#(...)` never runs.
///
/// See: https://github.com/csheaff/tmux-control/pull/75 ·
/// https://github.com/csheaff/tmux-control/pull/90 · https://github.com/charmbracelet/gum/pull/745
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c30_names_titles_and_paths_are_stored_literally() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("pwned");
    let job = format!("#(touch {})", flag.display());
    let hostile = [
        format!("build #2 {job} #{{pane_id}} #S ##[x] #[fg=red] %H ;x"),
        "it's \"q\" ;x ##{pane_id} end".to_string(),
        "-leading dash".to_string(),
        "日本 #".to_string(),
    ];
    let cwd = dir.path().join("dir #{pane_id} #(id) 100%");
    std::fs::create_dir(&cwd).unwrap();
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let p0 = first_pane(&server);
        let w0 = show(&server, &p0, "#{window_id}");
        for name in &hostile {
            // tmux itself turns ':' and '.' in session names into '_'.
            let session_name = name.replace([':', '.'], "_");
            let r = ok(
                &s,
                "rename_window",
                json!({"window_id": w0, "new_name": name}),
            )
            .await;
            assert_eq!(r["window_name"], json!(name), "tmux {}", bin.label);
            assert_eq!(&show(&server, &w0, "#{window_name}"), name);
            let r = ok(&s, "set_pane_title", json!({"pane_id": p0, "title": name})).await;
            assert_eq!(r["pane_title"], json!(name));
            assert_eq!(&show(&server, &p0, "#{pane_title}"), name);
            let r = ok(
                &s,
                "rename_session",
                json!({"session_id": "$0", "new_name": name}),
            )
            .await;
            // tmux may turn ':' and '.' into '_' (new-session does; rename-session does
            // only on newer versions): what it stored is what we report, and nothing else
            // changed.
            let stored = show(&server, "$0", "#{session_name}");
            assert_eq!(r["session_name"], json!(stored), "tmux {}", bin.label);
            assert!(stored == *name || stored == session_name, "{stored:?}");
            let session_name = stored;
            // The session is found by that exact name again.
            let r = ok(
                &s,
                "get_session_info",
                json!({"session_name": session_name}),
            )
            .await;
            assert_eq!(r["session_id"], json!("$0"));
            let r = ok(
                &s,
                "create_window",
                json!({"session_name": session_name, "window_name": name,
                       "start_directory": cwd.to_str().unwrap()}),
            )
            .await;
            let w = r["window_id"].as_str().unwrap().to_string();
            assert_eq!(&show(&server, &w, "#{window_name}"), name);
            let p = r["active_pane_id"].as_str().unwrap().to_string();
            let path = wait_until("the new pane's directory", DEADLINE, || {
                let p = show(&server, &p, "#{pane_current_path}");
                (p == cwd.to_str().unwrap()).then_some(p)
            });
            assert_eq!(path, cwd.to_str().unwrap());
            server.tmux_ok(&["kill-window", "-t", &w]);
        }
        let r = ok(
            &s,
            "create_session",
            json!({"session_name": hostile[0], "window_name": hostile[1]}),
        )
        .await;
        let sid = r["session_id"].as_str().unwrap().to_string();
        let stored = show(&server, &sid, "#{session_name}");
        assert!(
            stored == hostile[0] || stored == hostile[0].replace([':', '.'], "_"),
            "tmux {}: {stored:?}",
            bin.label
        );
        assert_eq!(r["session_name"], json!(stored));
        assert_eq!(show(&server, &sid, "#{window_name}"), hostile[1]);
        assert!(!flag.exists(), "tmux {}: a #(...) job ran", bin.label);
        // A directory that does not exist is an error, not tmux's silent fallback.
        let e = err(
            &s,
            "create_window",
            json!({"session_id": "$0", "start_directory": "/no/such/dir"}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
        assert!(
            e.text
                .contains("start_directory is not an existing directory")
        );
    }
}

/// `select_layout` returns the layout it made (the reference returns the stale one, §5.3.5);
/// `select_window` and `select_pane` by id, index and direction leave tmux with the window
/// and pane they report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_tools_report_what_tmux_shows() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let p0 = first_pane(&server);
        let w0 = show(&server, &p0, "#{window_id}");
        for _ in 0..2 {
            ok(
                &s,
                "split_window",
                json!({"pane_id": p0, "direction": "right"}),
            )
            .await;
        }
        let before = show(&server, &w0, "#{window_layout}");
        for layout in ["tiled", "even-vertical", "main-horizontal"] {
            let r = ok(
                &s,
                "select_layout",
                json!({"window_id": w0, "layout": layout}),
            )
            .await;
            let now = show(&server, &w0, "#{window_layout}");
            assert_eq!(
                r["window_layout"],
                json!(now),
                "tmux {}: {layout}",
                bin.label
            );
        }
        assert_ne!(before, show(&server, &w0, "#{window_layout}"));
        // Text that is neither a layout name nor a layout string never reaches tmux: tmux
        // 3.2–3.3 crash on it (layout_parse() frees an unset pointer), and 3.3a–3.5a on a
        // checksummed layout with a one-cell split; a wrong checksum is said here too.
        for bad in [
            "nonsense",
            "",
            "t",
            "1,",
            "main-vertical-mirrored!",
            "abcd,80x24,0,0,0",
            "0073,80x24,0,0[80x12,0,0,0,80x11,0,13{80x11,0,13,1}]",
        ] {
            let e = err(&s, "select_layout", json!({"window_id": w0, "layout": bad})).await;
            assert_eq!(e.kind, "InvalidArgument", "{bad:?}: {}", e.text);
        }
        // A well-formed layout tmux cannot apply (one cell, three panes) is tmux's error.
        let e = err(
            &s,
            "select_layout",
            json!({"window_id": w0, "layout": "b25d,80x24,0,0,0"}),
        )
        .await;
        assert_eq!(e.kind, "TmuxError", "{}", e.text);
        assert!(server.is_alive(), "tmux {}", bin.label);
        // Panes by direction: tmux agrees on the active pane.
        for d in ["next", "previous", "last", "up", "down", "left", "right"] {
            let r = ok(&s, "select_pane", json!({"window_id": w0, "direction": d})).await;
            assert_eq!(
                r["pane_id"],
                json!(show(&server, &w0, "#{pane_id}")),
                "tmux {}: {d}",
                bin.label
            );
            assert_eq!(r["pane_active"], json!("1"));
        }
        let r = ok(&s, "select_pane", json!({"pane_id": p0})).await;
        assert_eq!(r["pane_id"], json!(p0));
        assert_eq!(show(&server, &w0, "#{pane_id}"), p0);
        let e = err(&s, "select_pane", json!({})).await;
        assert!(
            e.text.contains("Provide either pane_id or direction"),
            "{}",
            e.text
        );
        // Windows by id, index and direction.
        let w1 = new_window(&server);
        let w2 = new_window(&server);
        let r = ok(&s, "select_window", json!({"window_id": w2})).await;
        assert_eq!(r["window_id"], json!(w2));
        assert_eq!(show(&server, "$0", "#{window_id}"), w2);
        let r = ok(
            &s,
            "select_window",
            json!({"session_id": "$0", "direction": "previous"}),
        )
        .await;
        assert_eq!(r["window_id"], json!(w1));
        let r = ok(
            &s,
            "select_window",
            json!({"session_name": "main", "direction": "last"}),
        )
        .await;
        assert_eq!(r["window_id"], json!(w2));
        let r = ok(
            &s,
            "select_window",
            json!({"session_name": "main", "window_index": 0}),
        )
        .await;
        assert_eq!(r["window_id"], json!(w0));
        assert_eq!(r["window_active"], json!("1"));
        let e = err(&s, "select_window", json!({"session_name": "main"})).await;
        assert!(
            e.text
                .contains("Provide window_id, window_index, or direction")
        );
        let e = err(
            &s,
            "select_window",
            json!({"window_index": 9, "session_id": "$0"}),
        )
        .await;
        assert_eq!(e.kind, "NotFound", "{}", e.text);
    }
}

/// Sizes, zoom (idempotent both ways), moves and swaps, checked with tmux.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resize_zoom_move_swap() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let p0 = first_pane(&server);
        let w0 = show(&server, &p0, "#{window_id}");
        let r = ok(
            &s,
            "resize_window",
            json!({"window_id": w0, "width": 100, "height": 30}),
        )
        .await;
        assert_eq!(
            (r["window_width"].clone(), r["window_height"].clone()),
            (json!("100"), json!("30"))
        );
        assert_eq!(
            show(&server, &w0, "#{window_width}x#{window_height}"),
            "100x30"
        );
        let p1 = ok(
            &s,
            "split_window",
            json!({"pane_id": p0, "direction": "below", "size": "30%"}),
        )
        .await["pane_id"]
            .as_str()
            .unwrap()
            .to_string();
        let h1: i64 = show(&server, &p1, "#{pane_height}").parse().unwrap();
        assert!((8..=10).contains(&h1), "30% of 30 rows: {h1}");
        let r = ok(&s, "resize_pane", json!({"pane_id": p1, "height": 12})).await;
        assert_eq!(r["pane_height"], json!("12"));
        assert_eq!(show(&server, &p1, "#{pane_height}"), "12");
        for (zoom, flag) in [(true, "1"), (true, "1"), (false, "0"), (false, "0")] {
            let r = ok(&s, "resize_pane", json!({"pane_id": p1, "zoom": zoom})).await;
            assert_eq!(
                show(&server, &p1, "#{window_zoomed_flag}"),
                flag,
                "tmux {}",
                bin.label
            );
            let full = zoom.then_some("30");
            if let Some(h) = full {
                assert_eq!(r["pane_height"], json!(h));
            }
        }
        let e = err(
            &s,
            "resize_pane",
            json!({"pane_id": p1, "zoom": true, "width": 3}),
        )
        .await;
        assert!(e.text.contains("Cannot combine zoom with height/width"));
        // Swap: the source pane now sits where the target was.
        let top_before = show(&server, &p0, "#{pane_top}");
        let r = ok(
            &s,
            "swap_pane",
            json!({"source_pane_id": p0, "target_pane_id": p1}),
        )
        .await;
        assert_eq!(r["pane_id"], json!(p0));
        assert_ne!(show(&server, &p0, "#{pane_top}"), top_before);
        assert_eq!(r["pane_top"].to_string(), show(&server, &p0, "#{pane_top}"));
        // Move: to an index, to another session, to the next free index.
        server.tmux_ok(&["new-session", "-d", "-s", "other", SH]);
        let w1 = new_window(&server);
        let r = ok(
            &s,
            "move_window",
            json!({"window_id": w1, "destination_index": "5"}),
        )
        .await;
        assert_eq!(r["window_index"], json!("5"));
        assert_eq!(show(&server, &w1, "#{window_index}"), "5");
        let r = ok(
            &s,
            "move_window",
            json!({"window_id": w1, "destination_session": "other"}),
        )
        .await;
        assert_eq!(r["session_name"], json!("other"));
        assert_eq!(show(&server, &w1, "#{session_name}"), "other");
        assert_eq!(
            r["window_index"],
            json!(show(&server, &w1, "#{window_index}"))
        );
        let e = err(
            &s,
            "move_window",
            json!({"window_id": w1, "destination_index": "x"}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
    }
}

/// Copy mode: entered (scrolled), left, and leaving twice is fine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_mode_in_and_out() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).size(80, 10).start();
        let s = servers(&server);
        let p = first_pane(&server);
        run(&server, &p, "seq 1 60");
        let r = ok(
            &s,
            "enter_copy_mode",
            json!({"pane_id": p, "scroll_up": 20}),
        )
        .await;
        assert_eq!(r["pane_id"], json!(p));
        assert_eq!(
            show(&server, &p, "#{pane_in_mode} #{scroll_position}"),
            "1 20"
        );
        ok(&s, "exit_copy_mode", json!({"pane_id": p})).await;
        assert_eq!(
            show(&server, &p, "#{pane_in_mode}"),
            "0",
            "tmux {}",
            bin.label
        );
        ok(&s, "exit_copy_mode", json!({"pane_id": p})).await;
        let e = err(&s, "exit_copy_mode", json!({"pane_id": "%77"})).await;
        assert_eq!(e.kind, "NotFound");
    }
}

/// Buffers whose size fills a libevent chain (2^k - 48 bytes with 64-bit libevent 2.1): tmux
/// 3.4+ prints them to a control client with `%s` past their end (server-client.c
/// `server_client_print()`), and `show_buffer` still gives exactly their bytes, and so does a
/// capture of a screen of that size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buffers_that_fill_a_chain_come_back_exactly() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        for size in [464_usize, 976, 2000, 4048, 8144] {
            let mut content = String::new();
            let mut i = 0;
            while content.len() < size {
                content.push_str(&format!("{i:06} {}\n", "y".repeat(40)));
                i += 1;
            }
            content.truncate(size);
            for _ in 0..3 {
                let r = ok(&s, "load_buffer", json!({"content": content})).await;
                let name = r["buffer_name"].as_str().unwrap().to_string();
                let r = ok(
                    &s,
                    "show_buffer",
                    json!({"buffer_name": name, "max_lines": null}),
                )
                .await;
                assert_eq!(r["content"], json!(content), "tmux {}: {size}", bin.label);
                ok(&s, "delete_buffer", json!({"buffer_name": name})).await;
            }
        }
    }
}

/// Buffers: byte-exact round trip (show_buffer and tmux's own show-buffer agree), paste into a
/// pane, delete, the namespace (a user's buffer is never read, pasted or deleted), and
/// `max_lines` truncation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buffers_round_trip_in_their_own_namespace() {
    let content = format!(
        "line1\n%end 1 2 1\r\n\ttab 'q' \"d\" \\ ;\n日本語 👍🏽\n{}\nlast no newline",
        "x".repeat(200_000)
    );
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        server.tmux_ok(&["set-buffer", "-b", "mine", "USER-SECRET"]);
        let r = ok(
            &s,
            "load_buffer",
            json!({"content": content, "logical_name": "notes.1"}),
        )
        .await;
        let name = r["buffer_name"].as_str().unwrap().to_string();
        assert_eq!(r["logical_name"], json!("notes.1"));
        assert!(
            name.starts_with("tmuxwire_") && name.ends_with("_notes.1"),
            "{name}"
        );
        let r = ok(
            &s,
            "show_buffer",
            json!({"buffer_name": name, "max_lines": null}),
        )
        .await;
        assert_eq!(r["content"], json!(content), "tmux {}", bin.label);
        assert_eq!(r["content_truncated"], json!(false));
        let theirs = server.tmux(&["show-buffer", "-b", &name]).stdout;
        assert_eq!(
            theirs,
            content.as_bytes(),
            "tmux {}: tmux's view",
            bin.label
        );
        let r = ok(
            &s,
            "show_buffer",
            json!({"buffer_name": name, "max_lines": 2}),
        )
        .await;
        assert_eq!(
            r["content"],
            json!("x".repeat(200_000) + "\nlast no newline")
        );
        assert_eq!(r["content_truncated_lines"], json!(4));
        // Paste into a raw reader.
        let out = tempfile::NamedTempFile::new().unwrap();
        let small = ok(&s, "load_buffer", json!({"content": "a\tb"})).await["buffer_name"]
            .as_str()
            .unwrap()
            .to_string();
        let (p, marker) = crate::input::raw_reader(&server, 3, out.path());
        let r = ok(
            &s,
            "paste_buffer",
            json!({"buffer_name": small, "pane_id": p}),
        )
        .await;
        assert_eq!(r["pane_id"], json!(p));
        server.wait_for_text(&p, &marker, DEADLINE);
        assert_eq!(std::fs::read(out.path()).unwrap(), b"a\tb");
        // The buffer stays after paste_buffer; delete_buffer removes it, once.
        ok(&s, "delete_buffer", json!({"buffer_name": small})).await;
        let e = err(&s, "delete_buffer", json!({"buffer_name": small})).await;
        assert_eq!(e.kind, "NotFound", "{}", e.text);
        let e = err(&s, "show_buffer", json!({"buffer_name": small})).await;
        assert_eq!(e.kind, "NotFound", "{}", e.text);
        // The user's buffers are out of reach.
        for tool in ["show_buffer", "delete_buffer"] {
            let e = err(&s, tool, json!({"buffer_name": "mine"})).await;
            assert_eq!(e.kind, "InvalidArgument");
            assert!(e.text.contains("Invalid buffer name: 'mine'"));
        }
        let e = err(
            &s,
            "paste_buffer",
            json!({"buffer_name": "mine", "pane_id": p}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
        assert_eq!(
            server.tmux_ok(&["show-buffer", "-b", "mine"]),
            "USER-SECRET",
            "the user's buffer is untouched"
        );
        let e = err(
            &s,
            "load_buffer",
            json!({"content": "x", "logical_name": "a/b"}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
    }
}

/// Options and environment: values stored verbatim (formats stay formats), numbers typed,
/// unset user options null, scope rules, removed variables as `-NAME: true`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_and_environment() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let p = first_pane(&server);
        let w = show(&server, &p, "#{window_id}");
        let r = ok(
            &s,
            "show_option",
            json!({"option": "history-limit", "global_": true}),
        )
        .await;
        assert_eq!(r["value"], json!(2000), "a number is a number");
        let v = "#{pane_id} #(id) ;x";
        let r = ok(
            &s,
            "set_option",
            json!({"option": "@mine", "value": v, "scope": "pane", "target": p}),
        )
        .await;
        assert_eq!(r, json!({"option": "@mine", "value": v, "status": "set"}));
        assert_eq!(
            server
                .tmux_ok(&["show-options", "-p", "-t", &p, "-v", "@mine"])
                .trim_end(),
            v
        );
        let r = ok(
            &s,
            "show_option",
            json!({"option": "@mine", "scope": "pane", "target": p}),
        )
        .await;
        assert_eq!(r["value"], json!(v));
        let r = ok(
            &s,
            "show_option",
            json!({"option": "@unset", "scope": "pane", "target": p}),
        )
        .await;
        assert_eq!(r["value"], Value::Null);
        ok(
            &s,
            "set_option",
            json!({"option": "mode-keys", "value": "vi", "scope": "window", "target": w}),
        )
        .await;
        assert_eq!(
            server
                .tmux_ok(&["show-options", "-w", "-t", &w, "-v", "mode-keys"])
                .trim(),
            "vi"
        );
        ok(
            &s,
            "set_option",
            json!({"option": "status-left", "value": "[#S]", "scope": "session", "target": "main"}),
        )
        .await;
        assert_eq!(
            server
                .tmux_ok(&["show-options", "-t", "main", "-v", "status-left"])
                .trim(),
            "[#S]"
        );
        let e = err(
            &s,
            "show_option",
            json!({"option": "no-such-option", "global_": true}),
        )
        .await;
        assert!(e.text.contains("invalid option"), "{}", e.text);
        let e = err(
            &s,
            "show_option",
            json!({"option": "history-limit", "target": "main"}),
        )
        .await;
        assert!(
            e.text
                .contains("scope is required when target is specified")
        );
        let e = err(&s, "show_option", json!({"option": "x", "scope": "nope"})).await;
        assert_eq!(e.kind, "InvalidArgument");
        // Environment.
        let r = ok(
            &s,
            "set_environment",
            json!({"name": "TW_A", "value": "a b $X #{pane_id}"}),
        )
        .await;
        assert_eq!(r["status"], json!("set"));
        assert_eq!(
            server.tmux_ok(&["show-environment", "-g", "TW_A"]).trim(),
            "TW_A=a b $X #{pane_id}"
        );
        ok(
            &s,
            "set_environment",
            json!({"name": "TW_S", "value": "1", "session_name": "main"}),
        )
        .await;
        server.tmux_ok(&["set-environment", "-t", "main", "-r", "TW_GONE"]);
        let r = ok(&s, "show_environment", json!({"session_name": "main"})).await;
        assert_eq!(r["variables"]["TW_S"], json!("1"));
        assert_eq!(r["variables"]["-TW_GONE"], json!(true));
        let r = ok(&s, "show_environment", json!({})).await;
        assert_eq!(r["variables"]["TW_A"], json!("a b $X #{pane_id}"));
        let e = err(&s, "set_environment", json!({"name": "A=B", "value": "1"})).await;
        assert_eq!(e.kind, "InvalidArgument");
    }
}

/// Hooks, read only: the server scope merges the global session and window tables; one hook's
/// entries; an unset hook is `[]`; an unknown hook is tmux's error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_are_read() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        server.tmux_ok(&["set-hook", "-g", "after-new-window", "display-message hi"]);
        server.tmux_ok(&["set-hook", "-ga", "after-new-window", "refresh-client"]);
        server.tmux_ok(&["set-hook", "-gw", "pane-focus-in", "display-message x"]);
        let r = ok(&s, "show_hooks", json!({"scope": "server"})).await;
        let names: Vec<(String, Value)> = r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["hook_name"].as_str().unwrap().to_string(),
                    e["index"].clone(),
                )
            })
            .collect();
        assert!(
            names.contains(&("after-new-window".into(), json!(0))),
            "{r}"
        );
        assert!(
            names.contains(&("after-new-window".into(), json!(1))),
            "{r}"
        );
        assert!(
            names.contains(&("pane-focus-in".into(), json!(0))),
            "tmux {}: {r}",
            bin.label
        );
        let r = ok(
            &s,
            "show_hook",
            json!({"hook_name": "after-new-window", "global_": true}),
        )
        .await;
        assert_eq!(r["entries"].as_array().map(Vec::len), Some(2), "{r}");
        assert!(
            r["entries"][0]["command"]
                .as_str()
                .unwrap()
                .contains("display-message")
        );
        let r = ok(
            &s,
            "show_hook",
            json!({"hook_name": "after-kill-pane", "global_": true}),
        )
        .await;
        assert_eq!(r["entries"], json!([]));
        let e = err(
            &s,
            "show_hook",
            json!({"hook_name": "no-such-hook", "global_": true}),
        )
        .await;
        assert!(e.text.contains("invalid option"), "{}", e.text);
    }
}

/// `find_pane_by_position`: each corner is the pane tmux says touches those edges.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panes_by_corner() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let p0 = first_pane(&server);
        let w = show(&server, &p0, "#{window_id}");
        let r = ok(
            &s,
            "find_pane_by_position",
            json!({"window_id": w, "corner": "bottom-right"}),
        )
        .await;
        assert_eq!(r["pane_id"], json!(p0), "a single pane is every corner");
        for _ in 0..3 {
            ok(&s, "split_window", json!({"pane_id": p0})).await;
        }
        ok(
            &s,
            "select_layout",
            json!({"window_id": w, "layout": "tiled"}),
        )
        .await;
        for (corner, v, h) in [
            ("top-left", "top", "left"),
            ("top-right", "top", "right"),
            ("bottom-left", "bottom", "left"),
            ("bottom-right", "bottom", "right"),
        ] {
            let r = ok(
                &s,
                "find_pane_by_position",
                json!({"window_id": w, "corner": corner}),
            )
            .await;
            let id = r["pane_id"].as_str().unwrap();
            assert_eq!(
                show(&server, id, &format!("#{{pane_at_{v}}}#{{pane_at_{h}}}")),
                "11",
                "tmux {}: {corner}",
                bin.label
            );
        }
        let e = err(
            &s,
            "find_pane_by_position",
            json!({"window_id": w, "corner": "middle"}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
    }
}

/// Creating: sessions (size, environment, history suppression), windows before/after the
/// current one and made current only when asked, splits in each direction with sizes and
/// commands, respawn (same id, new pid; a live pane without kill is an error).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_split_respawn() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let r = ok(
            &s,
            "create_session",
            json!({"session_name": "made", "x": 90, "y": 20, "environment": {"TW_E": "v 1 #{pane_id} #(id)"},
                   "suppress_persistent_history": true}),
        )
        .await;
        let pane = r["active_pane_id"].as_str().unwrap().to_string();
        assert_eq!(r["session_name"], json!("made"));
        assert_eq!(r["window_count"], json!(1));
        assert_eq!(r["session_attached"], json!("0"));
        assert_eq!(
            show(&server, &pane, "#{window_width}x#{window_height}"),
            "90x20"
        );
        run(
            &server,
            &pane,
            "echo \"E=$TW_E H=[$HISTFILE] C=$HISTCONTROL\"",
        );
        server.wait_for_text(&pane, "E=v 1 #{pane_id} #(id) H=[] C=ignorespace", DEADLINE);
        let e = err(&s, "create_session", json!({"session_name": "made"})).await;
        assert!(e.text.contains("duplicate session"), "{}", e.text);
        let e = err(
            &s,
            "create_session",
            json!({"environment": {"HISTFILE": "x"}, "suppress_persistent_history": true}),
        )
        .await;
        assert!(e.text.contains("HISTFILE"), "{}", e.text);
        let e = err(&s, "create_session", json!({"environment": "[1]"})).await;
        assert!(e.text.contains("must be a JSON object"), "{}", e.text);
        // Windows.
        let cur = show(&server, "=made:", "#{window_index}");
        let r = ok(
            &s,
            "create_window",
            json!({"session_name": "made", "direction": "after"}),
        )
        .await;
        assert_eq!(r["window_active"], json!("0"), "not current unless attach");
        assert_eq!(show(&server, "=made:", "#{window_index}"), cur);
        let r = ok(
            &s,
            "create_window",
            json!({"session_name": "made", "attach": true, "window_name": "front"}),
        )
        .await;
        assert_eq!(r["window_active"], json!("1"));
        assert_eq!(show(&server, "=made:", "#{window_name}"), "front");
        let r = ok(
            &s,
            "create_window",
            json!({"session_name": "made", "direction": "before"}),
        )
        .await;
        let idx: i64 = r["window_index"].as_str().unwrap().parse().unwrap();
        let front: i64 = show(&server, "=made:front", "#{window_index}")
            .parse()
            .unwrap();
        assert_eq!(
            idx + 1,
            front,
            "tmux {}: before the current window",
            bin.label
        );
        // Splits.
        for (dir, test) in [
            ("right", "#{pane_at_right}"),
            ("left", "#{pane_at_left}"),
            ("above", "#{pane_at_top}"),
            ("below", "#{pane_at_bottom}"),
        ] {
            let r = ok(
                &s,
                "split_window",
                json!({"pane_id": pane, "direction": dir}),
            )
            .await;
            let id = r["pane_id"].as_str().unwrap();
            assert_eq!(show(&server, id, test), "1", "tmux {}: {dir}", bin.label);
            assert_eq!(r["pane_width"], json!(show(&server, id, "#{pane_width}")));
        }
        let r = ok(
            &s,
            "split_window",
            json!({"pane_id": pane, "shell": "sleep 300", "size": 5}),
        )
        .await;
        let sp = r["pane_id"].as_str().unwrap().to_string();
        wait_until_true("the split runs sleep", DEADLINE, || {
            show(&server, &sp, "#{pane_current_command}") == "sleep"
        });
        let e = err(&s, "split_window", json!({"pane_id": pane, "size": "lots"})).await;
        assert_eq!(e.kind, "InvalidArgument");
        // Respawn.
        let pid = show(&server, &sp, "#{pane_pid}");
        let e = err(&s, "respawn_pane", json!({"pane_id": sp, "kill": false})).await;
        assert!(e.text.contains("still active"), "{}", e.text);
        let r = ok(
            &s,
            "respawn_pane",
            json!({"pane_id": sp, "shell": "sleep 301"}),
        )
        .await;
        assert_eq!(r["pane_id"], json!(sp));
        assert_ne!(r["pane_pid"], json!(pid));
        assert_eq!(r["pane_pid"], json!(show(&server, &sp, "#{pane_pid}")));
    }
}

/// `pipe_pane` copies output to the exact file named (`%`, `#` and spaces included), and
/// stops; `clear_pane` empties the history in one step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipe_and_clear() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pipe 100% #{pane_id} #1 'q'.log");
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = servers(&server);
        let p = first_pane(&server);
        let _ = std::fs::remove_file(&file);
        let r = ok(
            &s,
            "pipe_pane",
            json!({"pane_id": p, "output_path": file.to_str().unwrap()}),
        )
        .await;
        assert_eq!(
            r["result"],
            json!(format!("Piping pane {p} to {}", file.display()))
        );
        assert_eq!(show(&server, &p, "#{pane_pipe}"), "1");
        run(&server, &p, "echo PIPED-OUT");
        wait_until_true("the pipe file holds the output", DEADLINE, || {
            std::fs::read_to_string(&file).is_ok_and(|t| t.contains("PIPED-OUT"))
        });
        let r = ok(&s, "pipe_pane", json!({"pane_id": p})).await;
        assert_eq!(r["result"], json!(format!("Piping stopped for pane {p}")));
        assert_eq!(show(&server, &p, "#{pane_pipe}"), "0", "tmux {}", bin.label);
        let e = err(&s, "pipe_pane", json!({"pane_id": p, "output_path": "  "})).await;
        assert_eq!(e.kind, "InvalidArgument");
        // clear_pane.
        run(&server, &p, "seq 1 200");
        assert!(show(&server, &p, "#{history_size}").parse::<i64>().unwrap() > 0);
        let r = ok(&s, "clear_pane", json!({"pane_id": p})).await;
        assert_eq!(r["result"], json!(format!("Pane cleared: {p}")));
        assert_eq!(show(&server, &p, "#{history_size}"), "0");
    }
}

/// The kill tools: exact targets only (C15), the results, and the server itself.
///
/// See: https://github.com/tmux/tmux/issues/1143 · https://github.com/tmux/tmux/issues/1295
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c15_kills_hit_only_what_they_name() {
    for bin in tmux_bins() {
        let mut server = TestServer::start(&bin);
        let s = servers(&server);
        server.tmux_ok(&["new-session", "-d", "-s", "build-x", SH]);
        let e = err(&s, "kill_session", json!({"session_name": "build"})).await;
        assert_eq!(e.kind, "NotFound", "{}", e.text);
        assert!(
            server
                .tmux(&["has-session", "-t", "=build-x"])
                .status
                .success()
        );
        let e = err(&s, "kill_session", json!({})).await;
        assert!(
            e.text
                .contains("Refusing to kill without an explicit target")
        );
        let r = ok(&s, "kill_session", json!({"session_name": "build-x"})).await;
        assert_eq!(r["result"], json!("Session killed: build-x"));
        assert!(
            !server
                .tmux(&["has-session", "-t", "=build-x"])
                .status
                .success()
        );
        let p0 = first_pane(&server);
        let p1 = ok(&s, "split_window", json!({"pane_id": p0})).await["pane_id"]
            .as_str()
            .unwrap()
            .to_string();
        let r = ok(&s, "kill_pane", json!({"pane_id": p1})).await;
        assert_eq!(r["result"], json!(format!("Pane killed: {p1}")));
        let e = err(&s, "kill_pane", json!({"pane_id": p1})).await;
        assert_eq!(e.kind, "NotFound");
        let w1 = new_window(&server);
        let r = ok(&s, "kill_window", json!({"window_id": w1})).await;
        assert_eq!(r["result"], json!(format!("Window killed: {w1}")));
        let e = err(&s, "kill_window", json!({"window_id": "main"})).await;
        assert_eq!(e.kind, "InvalidArgument", "ids only");
        // The session tmuxwire's own control client is attached to: gone is success.
        server.tmux_ok(&["new-session", "-d", "-s", "second", SH]);
        ok(&s, "list_sessions", json!({})).await;
        let mine = server
            .tmux_ok(&["list-clients", "-F", "#{client_termname} #{session_name}"])
            .lines()
            .find_map(|l| l.strip_prefix("tmuxwire ").map(str::to_string))
            .expect("tmuxwire's control client");
        let r = ok(&s, "kill_session", json!({"session_name": mine})).await;
        assert_eq!(r["result"], json!(format!("Session killed: {mine}")));
        let left = ok(&s, "list_sessions", json!({})).await;
        assert_eq!(left["result"].as_array().map(Vec::len), Some(1), "{left}");
        // The server.
        let r = ok(&s, "kill_server", json!({})).await;
        assert_eq!(r["result"], json!("Server killed successfully"));
        wait_until_true("the server exits", DEADLINE, || !server.is_alive());
        server.kill();
    }
}

/// A pool whose caller (as `$TMUX` / `$TMUX_PANE` say) runs in `pane` of `server`, or of
/// another socket.
fn caller_servers(server: &TestServer, tmux: Option<&str>, pane: Option<&str>) -> Arc<Servers> {
    let caller = Caller::new(tmux, pane);
    Arc::new(Servers::new(
        Arc::new(Server::new(server.socket.clone(), None, caller.clone())),
        caller,
    ))
}

/// Self-kill guards: the pane, window, session and server that run the MCP server are refused
/// (also for `respawn_pane`); others are not; a caller on another socket is not this server's;
/// `TMUX_PANE` without `TMUX` guards the server conservatively.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn self_kill_guards() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let p0 = first_pane(&server);
    let w0 = show(&server, &p0, "#{window_id}");
    let tmux_env = format!("{},{},0", server.socket.display(), server.server_pid());
    let s = caller_servers(&server, Some(&tmux_env), Some(&p0));
    let p1 = ok(&s, "split_window", json!({"pane_id": p0})).await;
    assert_eq!(p1["is_caller"], json!(false));
    let p1 = p1["pane_id"].as_str().unwrap().to_string();
    assert_eq!(
        ok(&s, "get_pane_info", json!({"pane_id": p0})).await["is_caller"],
        json!(true)
    );
    for (tool, args) in [
        ("kill_pane", json!({"pane_id": p0})),
        ("respawn_pane", json!({"pane_id": p0})),
        ("kill_window", json!({"window_id": w0})),
        ("kill_session", json!({"session_name": "main"})),
        ("kill_session", json!({"session_id": "$0"})),
        ("kill_server", json!({})),
    ] {
        let e = err(&s, tool, args.clone()).await;
        assert_eq!(e.kind, "SelfTarget", "{tool} {args}: {}", e.text);
        assert!(e.text.starts_with("Refusing to"), "{}", e.text);
    }
    assert!(server.is_alive());
    assert_eq!(show(&server, &p0, "#{pane_id}"), p0);
    // Other objects are fine.
    ok(&s, "kill_pane", json!({"pane_id": p1})).await;
    let w1 = new_window(&server);
    ok(&s, "kill_window", json!({"window_id": w1})).await;
    server.tmux_ok(&["new-session", "-d", "-s", "spare", SH]);
    ok(&s, "kill_session", json!({"session_name": "spare"})).await;
    // A caller on another server's socket: this server is not its own.
    let elsewhere = format!("/tmp/not-this-{}.sock,1,0", unique_name("x"));
    let s = caller_servers(&server, Some(&elsewhere), Some(&p0));
    let spare = ok(&s, "split_window", json!({"pane_id": p0})).await["pane_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        ok(&s, "get_pane_info", json!({"pane_id": p0})).await["is_caller"],
        json!(false)
    );
    ok(&s, "kill_pane", json!({"pane_id": spare})).await;
    // TMUX_PANE without TMUX: the server cannot be told, so it is guarded.
    let s = caller_servers(&server, None, Some("%42"));
    let e = err(&s, "kill_server", json!({})).await;
    assert_eq!(e.kind, "SelfTarget");
    // Outside tmux: is_caller is null.
    let s = caller_servers(&server, None, None);
    assert_eq!(
        ok(&s, "get_pane_info", json!({"pane_id": p0})).await["is_caller"],
        Value::Null
    );
}

/// Channels: a signal before the wait is kept for it (once); a wait times out as
/// `WaitTimeout`; the wait does not hold up other calls; C14: a server that dies during a
/// wait is `ServerGone`, never success.
///
/// See: https://github.com/imbue-ai/mngr/issues/2478
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c14_channels_and_server_death() {
    for bin in tmux_bins() {
        let mut server = TestServer::start(&bin);
        let s = servers(&server);
        ok(&s, "signal_channel", json!({"channel": "early"})).await;
        let r = ok(
            &s,
            "wait_for_channel",
            json!({"channel": "early", "timeout": 5}),
        )
        .await;
        assert_eq!(
            r["result"],
            json!("Channel 'early' was signalled (timeout 5.0s)")
        );
        let t0 = Instant::now();
        let e = err(
            &s,
            "wait_for_channel",
            json!({"channel": "early", "timeout": 0.3}),
        )
        .await;
        assert_eq!(e.kind, "WaitTimeout", "{}", e.text);
        assert!(t0.elapsed() >= Duration::from_millis(250));
        // The wait ceiling (30 s unless TMUXWIRE_WAIT_MAX_SECONDS says otherwise) clamps.
        ok(&s, "signal_channel", json!({"channel": "clamp"})).await;
        let r = ok(
            &s,
            "wait_for_channel",
            json!({"channel": "clamp", "timeout": 999}),
        )
        .await;
        assert_eq!(r["effective_timeout"], json!(30.0));
        let e = err(&s, "wait_for_channel", json!({"channel": "bad name"})).await;
        assert!(e.text.contains("Invalid channel name"), "{}", e.text);
        let e = err(
            &s,
            "wait_for_channel",
            json!({"channel": "x", "timeout": 0}),
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument");
        // A waiter, signalled by a shell command in a pane; meanwhile other calls answer.
        let p = first_pane(&server);
        let s2 = s.clone();
        let wait = tokio::spawn(async move {
            crate::support::tool::call(
                &s2,
                "wait_for_channel",
                json!({"channel": "done", "timeout": 20}),
            )
            .await
        });
        let t1 = Instant::now();
        ok(&s, "list_panes", json!({})).await;
        assert!(
            t1.elapsed() < Duration::from_secs(2),
            "a wait holds nothing up"
        );
        ok(
            &s,
            "send_keys",
            json!({"pane_id": p, "keys": format!(
                "'{}' -S '{}' wait-for -S done",
                bin.path.display(),
                server.socket.display()
            )}),
        )
        .await;
        let r = within("the wait", wait).await.unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
        // C14. Kill the server once the waiter is connected. Until it ends, the wait opens
        // one connection, its own (which first asks the server's pid), so the waiter is
        // connected when the server holds a socket it did not hold before the wait started;
        // sockets of earlier clients (the pane's `wait-for -S` above) may still be closing.
        let sockets = |pid: u32| -> std::collections::HashSet<String> {
            std::fs::read_dir(format!("/proc/{pid}/fd"))
                .into_iter()
                .flatten()
                .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                .map(|l| l.to_string_lossy().into_owned())
                .filter(|l| l.starts_with("socket:"))
                .collect()
        };
        let pid = server.server_pid();
        let before = sockets(pid);
        let s3 = s.clone();
        let wait = tokio::spawn(async move {
            crate::support::tool::call(
                &s3,
                "wait_for_channel",
                json!({"channel": "never", "timeout": 20}),
            )
            .await
        });
        wait_until_true("the waiter is connected", DEADLINE, || {
            sockets(pid).difference(&before).next().is_some()
        });
        server.tmux_ok(&["kill-server"]);
        let r = within("the wait after kill-server", wait).await.unwrap();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(r.is_error, Some(true), "tmux {}: {v}", bin.label);
        assert_eq!(v["_meta"]["error_type"], json!("ServerGone"), "{v}");
        server.kill();
    }
}

/// `list_servers`: the live servers of a private `TMUX_TMPDIR` (a dead socket there is
/// skipped) and the sockets given, each with its facts, found with one-shot clients (nothing
/// attached); a pinned tmuxwire lists only its own server. The scan never leaves the test's
/// own directory: the binary runs with `TMUX_TMPDIR` set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_servers_probes_without_attaching() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let tmpdir = tempfile::tempdir().unwrap();
    let uid = nix::unistd::getuid().as_raw();
    let dir = tmpdir.path().join(format!("tmux-{uid}"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    drop(std::os::unix::net::UnixListener::bind(dir.join("dead")).unwrap());
    // A second live server in the scanned directory, started by tmux itself.
    let scanned = dir.join("alive");
    let start = |args: &[&str]| {
        bin.command(Socket::Path(&scanned))
            .args(["-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    };
    assert!(
        start(&["new-session", "-d", "-s", "scanned"])
            .status
            .success()
    );
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "list_servers", "arguments": {"extra_socket_paths": [server.socket, "/no/such"]}}});
    let got = stdio_session(
        &server.socket,
        &[("TMUX_TMPDIR", tmpdir.path().to_str().unwrap())],
        &[call],
    )
    .await;
    // No client was left attached to the server the scan found (probes are
    // one-shot clients; tmux drops each once it sees its socket close).
    wait_until_true("the scanned server has no clients", DEADLINE, || {
        start(&["list-clients"]).stdout.is_empty()
    });
    start(&["kill-server"]);
    let r = &got[1]["result"]["structuredContent"];
    let servers = r["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", got[1]));
    let paths: Vec<&str> = servers
        .iter()
        .map(|i| i["socket_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [scanned.to_str().unwrap(), server.socket.to_str().unwrap()],
        "the scan, then the paths given; the dead socket and the missing path left out"
    );
    assert_eq!(servers[0]["socket_name"], json!("alive"));
    assert_eq!(servers[1]["is_alive"], json!(true));
    assert_eq!(servers[1]["version"], json!(bin.label));
    assert_eq!(servers[1]["session_count"], json!(1));
    assert_eq!(servers[1]["pid"], json!(server.server_pid()));
    // The process's own server keeps no client of it once it has gone
    // (its first call follows that server's panes; tmux drops the
    // connections when it sees them close, which may be after the exit).
    wait_until_true("the default server has no clients", DEADLINE, || {
        server.tmux_ok(&["list-clients"]).trim().is_empty()
    });
    let pinned = Arc::new(
        Servers::new(
            Arc::new(Server::new(server.socket.clone(), None, Caller::default())),
            Caller::default(),
        )
        .pinned(true),
    );
    let r = ok(&pinned, "list_servers", json!({})).await;
    assert_eq!(r["result"].as_array().map(Vec::len), Some(1), "{r}");
    let e = err(
        &pinned,
        "get_server_info",
        json!({"socket_path": "/tmp/other.sock"}),
    )
    .await;
    assert_eq!(e.kind, "InvalidArgument");
}

/// `socket_path` selects a server as tmux -S does, and beats `socket_name`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn socket_path_argument() {
    let bin = system_tmux();
    let a = TestServer::builder(&bin).session("alpha").start();
    let b = TestServer::builder(&bin).session("beta").start();
    let s = servers(&a);
    let r = ok(&s, "list_sessions", json!({"socket_path": b.socket})).await;
    assert_eq!(r["result"][0]["session_name"], json!("beta"));
    let r = ok(
        &s,
        "rename_session",
        json!({"socket_path": b.socket, "socket_name": "nope", "session_name": "beta", "new_name": "b2"}),
    )
    .await;
    assert_eq!(r["session_name"], json!("b2"));
    assert_eq!(show(&b, "$0", "#{session_name}"), "b2");
    assert_eq!(show(&a, "$0", "#{session_name}"), "alpha");
}

/// `call_read_tools_batch`: inspect tools only, in order, stop/continue, limits, refusals
/// worded as the reference's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_batch() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let s = servers(&server);
    let p = first_pane(&server);
    let ops = json!([
        {"tool": "get_pane_info", "arguments": {"pane_id": p}},
        {"tool": "send_keys", "arguments": {"keys": "x"}},
        {"tool": "call_read_tools_batch", "arguments": {}},
        {"tool": "wait_for_channel", "arguments": {"channel": "x"}},
        {"tool": "nope"},
        {"tool": "list_sessions"},
    ]);
    let r = ok(
        &s,
        "call_read_tools_batch",
        json!({"operations": ops, "on_error": "continue"}),
    )
    .await;
    let res = r["results"].as_array().unwrap();
    assert_eq!(res.len(), 6);
    assert_eq!(r["succeeded"], json!(2));
    assert_eq!(r["failed"], json!(4));
    assert_eq!(res[0]["structured_content"]["pane_id"], json!(p));
    assert!(
        res[1]["error"]
            .as_str()
            .unwrap()
            .contains("is not an 'inspect' tool")
    );
    assert!(
        res[2]["error"]
            .as_str()
            .unwrap()
            .contains("cannot call batch tools recursively")
    );
    assert!(
        res[3]["error"]
            .as_str()
            .unwrap()
            .contains("enforces its own wait ceiling")
    );
    assert!(
        res[4]["error"]
            .as_str()
            .unwrap()
            .contains("Unknown tool: 'nope'")
    );
    assert_eq!(
        res[5]["structured_content"]["result"][0]["session_name"],
        json!("main")
    );
    let r = ok(&s, "call_read_tools_batch", json!({"operations": ops})).await;
    assert_eq!(r["stopped_at"], json!(1));
    assert_eq!(r["results"].as_array().map(Vec::len), Some(2));
    let e = err(&s, "call_read_tools_batch", json!({"operations": []})).await;
    assert_eq!(e.kind, "InvalidArgument");
    let many: Vec<Value> = (0..1001)
        .map(|_| json!({"tool": "list_sessions"}))
        .collect();
    let e = err(&s, "call_read_tools_batch", json!({"operations": many})).await;
    assert!(e.text.contains("1 to 1000"), "{}", e.text);
    // Over the response budget: nested answers are cut, from the last, and counted.
    let big: Vec<Value> = (0..40)
        .map(|_| json!({"tool": "capture_pane", "arguments": {"pane_id": p, "max_lines": null}}))
        .collect();
    run(
        &server,
        &p,
        "seq 1 300 | sed 's/$/ xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/'",
    );
    let policy = tmuxwire::mcp::toolsets::Policy::all();
    let budget = tmuxwire::mcp::budget::Budget::new(16 << 10);
    let r = tmuxwire::mcp::tools::call_within(
        &s,
        budget,
        "call_read_tools_batch",
        json!({"operations": big}).as_object().unwrap().clone(),
        None,
        &policy,
        tmuxwire::mcp::text::TextMode::Reference,
        false,
    )
    .await;
    assert_ne!(r.is_error, Some(true));
    let v = r.structured_content.unwrap();
    assert_eq!(
        v["response_truncated"],
        json!(true),
        "{}",
        v.to_string().len()
    );
    assert!(v["response_truncated_bytes"].as_u64().unwrap() > 0);
    assert!(v.to_string().len() <= 16 << 10);
}

/// Without a target, the manage tools act on the active window and pane, never the first
/// listed one (the reference's §5.3.6 defect).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn defaults_are_the_active_window_and_pane() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let s = servers(&server);
    let p0 = first_pane(&server);
    let w1 = new_window(&server);
    server.tmux_ok(&["select-window", "-t", &w1]);
    let r = ok(
        &s,
        "rename_window",
        json!({"session_name": "main", "new_name": "active"}),
    )
    .await;
    assert_eq!(r["window_id"], json!(w1));
    assert_eq!(show(&server, &w1, "#{window_name}"), "active");
    assert_ne!(show(&server, &p0, "#{window_name}"), "active");
    let r = ok(
        &s,
        "set_pane_title",
        json!({"session_name": "main", "title": "here"}),
    )
    .await;
    assert_eq!(r["window_id"], json!(w1));
    let _ = pane_id;
}

/// `tmuxwire -S socket mcp` with a clean environment plus `env`: the handshake, then `calls`
/// (JSON-RPC requests with ids 1…); the answers sorted by id, the initialize answer first.
async fn stdio_session(
    socket: &std::path::Path,
    env: &[(&str, &str)],
    calls: &[Value],
) -> Vec<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut cmd = tmuxwire_command();
    cmd.envs(env.iter().copied());
    cmd.arg("-S").arg(socket).arg("mcp");
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut msgs = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    msgs.extend(calls.iter().cloned());
    for m in &msgs {
        stdin.write_all(format!("{m}\n").as_bytes()).await.unwrap();
    }
    let want = calls.len() + 1;
    let mut got = Vec::new();
    while got.len() < want {
        let line = within("an answer", out.next_line()).await.unwrap().unwrap();
        got.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    // The end of its input ends the server: it is gone when this returns.
    drop(stdin);
    within("the server exits at the end of its input", child.wait())
        .await
        .unwrap();
    got.sort_by_key(|v| v["id"].as_i64());
    got
}

/// The toolset choice as the binary applies it: teardown is off by default, hidden tools are
/// unknown on the wire, `TMUXWIRE_TOOLS` / `LIBTMUX_EXCLUDE_TOOLS` adjust it, and an unknown
/// name stops the server at start-up with exit status 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolsets_choose_what_is_offered() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let kill = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "kill_pane", "arguments": {"pane_id": "%0"}}});
    let names = |v: &Value| -> Vec<String> {
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let got = stdio_session(&server.socket, &[], &[list.clone(), kill.clone()]).await;
    assert!(!names(&got[1]).contains(&"kill_pane".to_string()));
    assert!(names(&got[1]).contains(&"send_keys".to_string()));
    assert!(
        got[0]["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("Toolsets: inspect,manage,execute")
    );
    assert_eq!(got[2]["result"]["isError"], json!(true));
    assert!(
        got[2]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Unknown tool: 'kill_pane'")
    );
    assert_eq!(show(&server, "%0", "#{pane_id}"), "%0", "the pane lives");
    let got = stdio_session(
        &server.socket,
        &[("LIBTMUX_TOOLSETS", "inspect")],
        std::slice::from_ref(&list),
    )
    .await;
    assert!(
        names(&got[1])
            .iter()
            .all(|n| tmuxwire::mcp::tools::toolset_of(n)
                == Some(tmuxwire::mcp::toolsets::Toolset::Inspect))
    );
    let got = stdio_session(
        &server.socket,
        &[
            ("TMUXWIRE_TOOLSETS", "inspect"),
            ("TMUXWIRE_TOOLS", "kill_pane,send_keys"),
            ("LIBTMUX_EXCLUDE_TOOLS", "send_keys,list_panes"),
        ],
        std::slice::from_ref(&list),
    )
    .await;
    let n = names(&got[1]);
    assert!(n.contains(&"kill_pane".to_string()));
    assert!(!n.contains(&"send_keys".to_string()) && !n.contains(&"list_panes".to_string()));
    // Unknown names: exit 2 before serving, naming them.
    for (k, v) in [
        ("TMUXWIRE_TOOLSETS", "inspect,everything"),
        ("LIBTMUX_TOOLS", "kill_everything"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tmuxwire"))
            .env_remove("TMUX")
            .env(k, v)
            .arg("-S")
            .arg(&server.socket)
            .arg("mcp")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{k}={v}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(
            e.contains(k) && e.contains(v.split(',').next_back().unwrap()),
            "{e}"
        );
    }
}

/// Resources (six templates, read, completion) and prompts (four, rendered), over stdio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_prompts() {
    use rmcp::ServiceExt;
    use rmcp::model::{
        ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
        Reference,
    };
    use rmcp::transport::TokioChildProcess;
    let bin = system_tmux();
    let server = TestServer::builder(&bin).session("a_1").start();
    server.tmux_ok(&["new-session", "-d", "-s", "alpha", SH]);
    let p = first_pane(&server);
    run(&server, &p, "echo RESOURCE-MARK");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
    test_env(cmd.as_std_mut());
    // The default log filter is what is checked below.
    cmd.env_remove("TMUXWIRE_LOG");
    cmd.arg("-S").arg(&server.socket).arg("mcp");
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The server's log, read to its end (when the server exits) meanwhile.
    let log = tokio::spawn(async move {
        let mut text = String::new();
        if let Some(mut e) = stderr {
            let _ = tokio::io::AsyncReadExt::read_to_string(&mut e, &mut text).await;
        }
        text
    });
    let client = ().serve(transport).await.unwrap();
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.resources.is_some() && info.capabilities.prompts.is_some());
    assert!(info.capabilities.completions.is_some());
    let t = client.list_all_resource_templates().await.unwrap();
    assert_eq!(t.len(), 6);
    assert!(client.list_all_resources().await.unwrap().is_empty());
    let read = |uri: String| {
        let client = &client;
        async move {
            client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
        }
    };
    let body = |r: rmcp::model::ReadResourceResult| -> String {
        match &r.contents[0] {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("{other:?}"),
        }
    };
    let v: Value =
        serde_json::from_str(&body(read("tmux://sessions".into()).await.unwrap())).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(2));
    let v: Value =
        serde_json::from_str(&body(read("tmux://sessions/a_1".into()).await.unwrap())).unwrap();
    assert_eq!(v["session_name"], json!("a_1"));
    assert!(v["windows"].is_array());
    let v: Value = serde_json::from_str(&body(
        read("tmux://sessions/a_1/windows/0".into()).await.unwrap(),
    ))
    .unwrap();
    assert_eq!(v["panes"][0]["pane_id"], json!(p));
    let enc = p.replace('%', "%25");
    let v: Value =
        serde_json::from_str(&body(read(format!("tmux://panes/{enc}")).await.unwrap())).unwrap();
    assert_eq!(v["pane_id"], json!(p));
    let text = body(read(format!("tmux://panes/{p}/content")).await.unwrap());
    assert!(text.contains("RESOURCE-MARK"), "{text}");
    let e = read("tmux://sessions/nope".into()).await.unwrap_err();
    assert!(e.to_string().contains("Session not found: nope"), "{e}");
    // What is missing comes from the error's kind and subject, not its text.
    for (uri, want) in [
        ("tmux://sessions/nope/windows", "Session not found: nope"),
        ("tmux://sessions/nope/windows/0", "Session not found: nope"),
        (
            "tmux://sessions/a_1/windows/77",
            "Window not found: index 77",
        ),
        ("tmux://panes/%25999/content", "Pane not found: %999"),
        ("tmux://panes/%25999", "Pane not found: %999"),
    ] {
        let e = read(uri.into()).await.unwrap_err();
        assert!(e.to_string().contains(want), "{uri}: {e}");
    }
    // A server that is not there is not a missing session.
    // A socket name of its own that no server listens on (in the test's TMUX_TMPDIR).
    let absent = crate::support::unique_name("tmuxwire-test-absent");
    let e = read(format!("tmux://sessions/a_1?socket_name={absent}"))
        .await
        .unwrap_err();
    assert!(
        !e.to_string().contains("not found") && e.to_string().contains("no tmux server"),
        "{e}"
    );
    let e = read("tmux://nothing".into()).await.unwrap_err();
    assert!(
        e.to_string().contains("-32002") || e.to_string().contains("Unknown resource"),
        "{e}"
    );
    let e = read("tmux://sessions?socket_name=..".into())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("socket_name"), "{e}");
    // Completion.
    let c = client
        .complete(CompleteRequestParams::new(
            Reference::for_resource("tmux://sessions/{session_name}{?socket_name}"),
            ArgumentInfo::new("session_name", "al"),
        ))
        .await
        .unwrap();
    assert_eq!(c.completion.values, vec!["alpha".to_string()]);
    let c = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("interrupt_gracefully"),
            ArgumentInfo::new("pane_id", "%"),
        ))
        .await
        .unwrap();
    assert!(c.completion.values.contains(&p));
    // Prompts.
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "run_and_wait",
            "diagnose_failing_pane",
            "build_dev_workspace",
            "interrupt_gracefully"
        ]
    );
    let mut args = serde_json::Map::new();
    args.insert("pane_id".into(), json!(p));
    let r = client
        .get_prompt(GetPromptRequestParams::new("interrupt_gracefully").with_arguments(args))
        .await
        .unwrap();
    let t = serde_json::to_value(&r.messages[0].content).unwrap();
    assert!(t["text"].as_str().unwrap().contains("C-c"), "{t}");
    assert!(
        client
            .get_prompt(GetPromptRequestParams::new("run_and_wait"))
            .await
            .is_err()
    );
    client.cancel().await.unwrap();
    // Error answers are answers, not warnings in the server's log (rmcp warns for each one;
    // tmuxwire's default log filter leaves them out).
    let log = within("the server's stderr", log).await.unwrap();
    assert!(!log.contains("WARN"), "{log}");
}

/// A server without sessions (its control clients cannot attach): the tools run as one-shot
/// clients, and creating a session works; with no server at all, `create_session` starts
/// one with the tmux binary (`$TMUXWIRE_TMUX`), as `tmux new-session` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessionless_and_absent_servers() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        server.tmux_ok(&["set", "-g", "exit-empty", "off"]);
        server.tmux_ok(&["kill-session", "-t", "=main"]);
        assert!(server.is_alive());
        let s = capture_servers(&server);
        let b = ok(&s, "load_buffer", json!({"content": "no sessions; 日本"})).await;
        let name = b["buffer_name"].as_str().unwrap().to_string();
        let r = ok(&s, "show_buffer", json!({"buffer_name": name})).await;
        assert_eq!(
            r["content"],
            json!("no sessions; 日本"),
            "tmux {}",
            bin.label
        );
        ok(
            &s,
            "set_option",
            json!({"option": "@k", "value": "v", "global_": true}),
        )
        .await;
        let r = ok(&s, "show_option", json!({"option": "@k", "global_": true})).await;
        assert_eq!(r["value"], json!("v"));
        let r = ok(&s, "create_session", json!({"session_name": "fresh #1"})).await;
        assert_eq!(r["session_name"], json!("fresh #1"), "tmux {}", bin.label);
        assert_eq!(show(&server, "=fresh #1:", "#{session_name}"), "fresh #1");
        ok(&s, "delete_buffer", json!({"buffer_name": name})).await;
    }
    // No server: the binary starts one (with -f /dev/null, through a wrapper).
    let bin = system_tmux();
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("fresh.sock");
    let wrapper = dir.path().join("tmux-wrapper");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' -f /dev/null \"$@\"\n",
            bin.path.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
    test_env(cmd.as_std_mut());
    cmd.env("TMUXWIRE_TMUX", &wrapper)
        .arg("-S")
        .arg(&sock)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    for m in [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "create_session", "arguments": {"session_name": "started;", "x": 70, "y": 20}}}),
    ] {
        stdin.write_all(format!("{m}\n").as_bytes()).await.unwrap();
    }
    let answer = loop {
        let line = within("the answer", out.next_line())
            .await
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == json!(1) {
            break v;
        }
    };
    let kill = || {
        let _ = bin.command(Socket::Path(&sock)).arg("kill-server").output();
    };
    if answer["result"]["isError"] == json!(true) {
        kill();
        panic!("create_session without a server: {answer}");
    }
    let r = &answer["result"]["structuredContent"];
    let check = bin
        .command(Socket::Path(&sock))
        .args([
            "display-message",
            "-p",
            "-t",
            "=started;:",
            "#{session_name} #{window_width}",
        ])
        .output()
        .unwrap();
    kill();
    assert_eq!(r["session_name"], json!("started;"), "{answer}");
    assert_eq!(String::from_utf8_lossy(&check.stdout).trim(), "started; 70");
}
