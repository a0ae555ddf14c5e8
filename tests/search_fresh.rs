//! `search_panes` answered from the mirror after panes change between two searches (history
//! cleared, a pane narrowed by a split, windows and sessions renamed, a new window): every
//! answer's lines, names, processes and directories compared with tmux's own.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::tool::*;
use crate::support::{
    DEADLINE, TestServer, TmuxBin, mirrored_servers, tmux_bins, wait_until_async,
};
use tmuxwire::mcp::args::{ClearPaneArgs, SearchPanesArgs};

/// The fields of a match that must be tmux's `#{…}` of its pane.
const NAMED: &[&str] = &[
    "session_id",
    "session_name",
    "window_id",
    "window_name",
    "window_index",
    "pane_index",
    "pane_current_command",
    "pane_current_path",
];

/// tmux's logical lines holding `needle`, by pane (`capture-pane -p -J -S - -E -`, trailing
/// blanks trimmed), for the panes that have any.
fn tmux_found(server: &TestServer, needle: &str) -> BTreeMap<String, Vec<String>> {
    let panes = server.tmux_ok(&["list-panes", "-a", "-F", "#{pane_id}"]);
    panes
        .lines()
        .map(|pane| {
            let lines = tmux_lines(server, pane, &["-J", "-S", "-", "-E", "-"]);
            let found: Vec<String> = lines.into_iter().filter(|l| l.contains(needle)).collect();
            (pane.to_string(), found)
        })
        .filter(|(_, found)| !found.is_empty())
        .collect()
}

/// Searches for `needle`; checks each match's names, process and directory against tmux's
/// and returns its lines by pane.
async fn searched(
    s: &tmuxwire::tmux::Servers,
    server: &TestServer,
    needle: &str,
    ctx: &str,
) -> BTreeMap<String, Vec<String>> {
    let v = ok_typed(
        s,
        SearchPanesArgs {
            max_matched_lines_per_pane: 100_000,
            ..search_for(needle)
        },
    )
    .await;
    let mut found = BTreeMap::new();
    for m in v["matches"].as_array().cloned().unwrap_or_default() {
        let pane = m["pane_id"].as_str().unwrap_or_default().to_string();
        assert_eq!(m["source"], "mirror", "{ctx}: {m}");
        for field in NAMED {
            assert_eq!(
                m[*field],
                Value::from(server.format(&pane, field)),
                "{ctx}: {pane}'s {field}"
            );
        }
        let lines = m["matched_lines"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        found.insert(pane, lines);
    }
    found
}

/// A server of 60×12 panes with 5,000 lines of history each.
fn narrow_server(bin: &TmuxBin) -> TestServer {
    TestServer::builder(bin)
        .size(60, 12)
        .history_limit(5000)
        .start()
}

/// A pane changed between two searches (its history cleared and then narrowed by a split,
/// its window and session renamed, a new window printing the pattern): the second answer is
/// tmux's. Panes run a shell, `sleep` in a directory of their own (having claimed another with
/// OSC 7), and a program whose name tmux cleans (`-odd name`, which tmux shows as `odd`):
/// their process and directory are tmux's too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_after_panes_change_is_tmuxs() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = narrow_server(&bin);
        let dir = tempfile::tempdir().unwrap();
        let dir_arg = dir.path().to_string_lossy().into_owned();
        // Window names that follow the running program change on tmux's timer, not between
        // the two reads compared here.
        server.tmux_ok(&["set-option", "-g", "automatic-rename", "off"]);
        let p0 = first_pane(&server);
        run(&server, &p0, "seq -f 'FRESH-a%g' 1 300");
        // An OSC 7 path is the pane's word, not its directory: tmux's #{pane_current_path}
        // is /proc's, and so must the answer's be.
        let p1 = server.new_window_pane(&[
            "-c",
            &dir_arg,
            "printf '\\033]7;file://localhost/etc\\007'; seq -f FRESH-b%g 1 40; exec sleep 300",
        ]);
        let p2 = server
            .new_window_pane(&["bash -c 'seq -f FRESH-c%g 1 40; exec -a \"-odd name\" sleep 300'"]);
        server.wait_for_text(&p1, "FRESH-b40", DEADLINE);
        server.wait_for_text(&p2, "FRESH-c40", DEADLINE);
        let s = mirrored_servers(&server);
        let first = searched(&s, &server, "FRESH", &ctx).await;
        assert_eq!(first, tmux_found(&server, "FRESH"), "{ctx}: first search");
        assert_eq!(server.format(&p2, "pane_current_command"), "odd", "{ctx}");

        server.tmux_ok(&["clear-history", "-t", &p0]);
        let second = searched(&s, &server, "FRESH", &ctx).await;
        assert_eq!(
            second,
            tmux_found(&server, "FRESH"),
            "{ctx}: history cleared"
        );

        server.tmux_ok(&["split-window", "-h", "-d", "-t", &p0]);
        server.tmux_ok(&["rename-window", "-t", &p1, "renamed-window"]);
        server.tmux_ok(&["rename-session", "-t", &p1, "renamed-session"]);
        let p3 = server.new_window_pane(&["seq -f FRESH-d%g 1 30; exec sleep 300"]);
        server.wait_for_text(&p3, "FRESH-d30", DEADLINE);
        let third = searched(&s, &server, "FRESH", &ctx).await;
        assert_eq!(
            third,
            tmux_found(&server, "FRESH"),
            "{ctx}: after the changes"
        );
        assert!(third.contains_key(&p3), "{ctx}: the new window's pane");
        assert_ne!(server.format(&p0, "pane_width"), "60", "{ctx}: narrowed");
    }
}

/// A program in a pane names its own window (`ESC k … ESC \`, `allow-rename` on) with the
/// separators tmuxwire's records use (␞, ␟), a backslash and text that reads like the end of
/// tmux's answer, and the session is named with them too. Names are now listed once per window
/// and session, not per pane: a search still finds every pane's lines, and each match's names
/// are tmux's, not shifted or cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_a_pane_chose_cannot_cut_or_shift_a_search() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(60, 12).start();
        server.tmux_ok(&["set-option", "-g", "automatic-rename", "off"]);
        server.tmux_ok(&["set-option", "-g", "allow-rename", "on"]);
        let p0 = first_pane(&server);
        run(&server, &p0, "seq -f 'NAMED-a%g' 1 30");
        let p1 = server.new_window_pane(&[
            "printf '\\033kev\\342\\220\\237il\\342\\220\\236 \\\\ %%end 1 2 0 \\342\\220\\237\\033\\\\'; \
             seq -f NAMED-b%g 1 20; exec sleep 300",
        ]);
        server.wait_for_text(&p1, "NAMED-b20", DEADLINE);
        server.tmux_ok(&[
            "rename-session",
            "-t",
            &p1,
            "se\u{241f}ss\u{241e}ion \\ %end 1 2 0",
        ]);
        let window = server.format(&p1, "window_name");
        assert!(
            window.contains('\u{241f}') && window.contains("%end"),
            "{ctx}: the pane named its window {window:?}"
        );
        let s = mirrored_servers(&server);
        for round in ["first", "second"] {
            let found = searched(&s, &server, "NAMED", &ctx).await;
            assert_eq!(found, tmux_found(&server, "NAMED"), "{ctx}: {round} search");
            assert!(
                found.contains_key(&p0) && found.contains_key(&p1),
                "{ctx}: {round}"
            );
        }
    }
}

/// The `(pane, window_index, matched lines)` of a search for `needle`, sorted by pane.
async fn indexed(s: &tmuxwire::tmux::Servers, needle: &str) -> Vec<(String, String, Value)> {
    let v = ok_typed(s, search_for(needle)).await;
    let mut got: Vec<(String, String, Value)> = v["matches"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            let pane = m["pane_id"].as_str().unwrap_or_default().to_string();
            let index = m["window_index"].as_str().unwrap_or_default().to_string();
            (pane, index, m["matched_lines"].clone())
        })
        .collect();
    got.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    got
}

/// Searches that follow each other closely take one constant fence per session and keep the
/// last listing of the panes (docs/PERFORMANCE.md): what tmux tells (a split, renames, a new
/// window) is in the very next answer, as is what a call of ours did (`clear_pane`); what
/// another client does without telling (its `clear-history`, a `move-window -r` renumbering
/// the windows) is in the answers within a second, the time a search takes constant fences
/// before it compares every copy with tmux again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_close_together_see_what_tmux_tells_at_once_and_the_rest_within_a_second() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = narrow_server(&bin);
        server.tmux_ok(&["set-option", "-g", "automatic-rename", "off"]);
        server.tmux_ok(&["set-option", "-g", "allow-rename", "on"]);
        let p0 = first_pane(&server);
        run(&server, &p0, "seq -f 'CLOSE-a%g' 1 100");
        let p1 = server.new_window_pane(&["seq -f CLOSE-b%g 1 20; exec sleep 300"]);
        server.wait_for_text(&p1, "CLOSE-b20", DEADLINE);
        let s = mirrored_servers(&server);
        // The first seeds the copies, the second compares them, the next ones are close.
        for _ in 0..3 {
            let found = searched(&s, &server, "CLOSE", &ctx).await;
            assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: searches");
        }
        // Told by tmux (%layout-change, %window-renamed, %session-renamed, %window-add).
        server.tmux_ok(&["split-window", "-h", "-d", "-t", &p0]);
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: split");
        server.tmux_ok(&["rename-window", "-t", &p1, "close-renamed"]);
        server.tmux_ok(&["rename-session", "-t", &p1, "close-session"]);
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: renamed");
        // A program names its own window (`ESC k`) with the separators tmuxwire's records use
        // and text that reads like the end of tmux's answer: tmux tells it
        // (%window-renamed), so the very next answer has tmux's name, not the kept one.
        run(
            &server,
            &p0,
            "printf '\\033kcl\\342\\220\\237ose\\342\\220\\236 \\\\ %%end 1 2 0\\033\\\\'",
        );
        let window = server.format(&p0, "window_name");
        assert!(
            window.contains('\u{241f}') && window.contains("%end"),
            "{ctx}: {window:?}"
        );
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(
            found,
            tmux_found(&server, "CLOSE"),
            "{ctx}: named by its program"
        );
        let p2 = server.new_window_pane(&["seq -f CLOSE-c%g 1 5; exec sleep 300"]);
        server.wait_for_text(&p2, "CLOSE-c5", DEADLINE);
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: new window");
        assert!(found.contains_key(&p2), "{ctx}: the new window's pane");

        // A call of ours that changes a pane without output: the next answer has it.
        let _ = searched(&s, &server, "CLOSE", &ctx).await;
        ok_typed(&s, ClearPaneArgs::on(&p1)).await;
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: clear_pane");
        assert!(!found.contains_key(&p1), "{ctx}: {p1} cleared");

        // Another client's, untold: within a second (and a search's time). The windows are
        // first moved apart (told), then renumbered (untold).
        let window = server.format(&p0, "window_id");
        server.tmux_ok(&["move-window", "-s", &window, "-t", ":7"]);
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: moved");
        server.tmux_ok(&["clear-history", "-t", &p0]);
        server.tmux_ok(&["move-window", "-r"]);
        let want: Vec<(String, String, Value)> = tmux_found(&server, "CLOSE")
            .into_iter()
            .map(|(p, lines)| {
                let index = server.format(&p, "window_index");
                (p, index, Value::from(lines))
            })
            .collect();
        wait_until_async(&format!("{ctx}: the answer becomes {want:?}"), || async {
            (indexed(&s, "CLOSE").await == want).then_some(())
        })
        .await;
        let found = searched(&s, &server, "CLOSE", &ctx).await;
        assert_eq!(found, tmux_found(&server, "CLOSE"), "{ctx}: untold");
    }
}
