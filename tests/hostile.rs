//! Hostile input: names, patterns, pane text and arguments that would be misread if anything
//! on the way to tmux (quoting, target syntax, format expansion, the control-mode framing)
//! were sloppy; and a server that dies under a call. Each test runs its own private tmux
//! server(s).

use std::path::Path;

use serde_json::{Value, json};

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, servers, tmux_bins, wait_until, within};
use tmuxwire::mcp::args::{
    CapturePaneArgs, DisplayMessageArgs, ListPanesArgs, ListSessionsArgs, ListWindowsArgs,
    PaneArgs, SearchPanesArgs, ServerArgs, SessionArgs, SnapshotPaneArgs, WindowArgs,
};

/// Writes `content` to a file in `dir` and `cat`s it in `pane` (the command line's echo holds
/// only the path), waiting until it has been printed.
fn plant(server: &TestServer, pane: &str, dir: &Path, content: &str) {
    let file = dir.join(format!("plant-{}.txt", std::process::id()));
    std::fs::write(&file, content).unwrap();
    assert!(
        !file.display().to_string().contains(['\'', '"', ' ', '\\']),
        "temp path must be shell-plain: {}",
        file.display()
    );
    run(server, pane, &format!("cat {}", file.display()));
}

/// Writes `name` for a tmux command-line argument that tmux format-expands (`new-session
/// -s`, `new-window -n`): `#` doubled so the name is taken literally and nothing runs.
fn literal_for_format(name: &str) -> String {
    name.replace('#', "##")
}

/// Asserts that `canary` does not exist, after a positive control: the tmux server runs a
/// shell job of our own (`run-shell`, which tmux forks like a `#(...)` job) and we wait until
/// its file appears, so a job started earlier by mistake would have had time to run too.
fn assert_nothing_ran(server: &TestServer, canary: &Path) {
    let control = canary.with_file_name("positive-control");
    server.tmux_ok(&["run-shell", &format!("touch {}", control.display())]);
    wait_until("the positive-control job ran", DEADLINE, || {
        control.exists().then_some(())
    });
    assert!(
        !canary.exists(),
        "tmux {}: a #(...) from our input ran",
        server.bin.label
    );
}

/// `(session_id, pane_id)` of a new detached session created with the tmux CLI.
fn new_session(server: &TestServer, name: &str) -> (String, String) {
    let out = server.tmux_ok(&[
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{session_id} #{pane_id}",
        "-s",
        &literal_for_format(name),
    ]);
    let (s, p) = out.trim().split_once(' ').expect("ids");
    (s.to_string(), p.to_string())
}

/// Session ids and names as tmux lists them (names may hold spaces, never a tab... but may
/// hold anything else, so the id comes first and the name is the rest).
fn tmux_sessions(server: &TestServer) -> Vec<(String, String)> {
    server
        .tmux_ok(&["list-sessions", "-F", "#{session_id} #{session_name}"])
        .lines()
        .map(|l| {
            let (id, name) = l.split_once(' ').unwrap();
            (id.to_string(), name.to_string())
        })
        .collect()
}

/// The hostile session and window names. `{tmp}` is replaced with a file that must never be
/// created.
const NAMES: &[&str] = &[
    "with space",
    "single'quote",
    "double\"quote",
    "semi;colon",
    "x ; kill-server",
    "#{session_id}",
    "#(touch {tmp})",
    "$HOME",
    "x$HOME",
    "~",
    "~root",
    "emoji 😀 日本",
    "-leading-dash",
    "%leading-percent",
    "{brace}",
    "back\\slash",
    "trailing;",
];

/// Session and window names full of tmux syntax are listed exactly as tmux lists them, can be
/// used as `session_name` by every tool, and never execute anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_session_and_window_names() {
    for bin in tmux_bins() {
        // No '.' or ':' in the canary path: tmux 3.8 keeps them in session names, and such
        // names are covered by hostile_session_names_tmux_cannot_target.
        let tmp = tempfile::Builder::new()
            .prefix("tmuxwire-canary")
            .tempdir()
            .unwrap();
        let canary = tmp.path().join("canary-names");
        assert!(!canary.display().to_string().contains(['.', ':']));
        let server = TestServer::builder(&bin).session("main").start();
        let s = servers(&server);
        // Connect before the hostile sessions exist, then create them (notifications with
        // hostile names flow through our connection).
        ok_typed(&s, ListSessionsArgs::default()).await;

        let names: Vec<String> = NAMES
            .iter()
            .map(|n| n.replace("{tmp}", &canary.display().to_string()))
            .collect();
        // A fixed name for main's first window (automatic-rename would change it meanwhile).
        server.tmux_ok(&["rename-window", "-t", "=main:0", "first"]);
        let mut created = Vec::new();
        for name in &names {
            let (sid, pid) = new_session(&server, name);
            created.push((name.clone(), sid, pid));
            server.tmux_ok(&[
                "new-window",
                "-d",
                "-t",
                "=main:",
                "-n",
                &literal_for_format(name),
            ]);
        }

        // list_sessions: exactly tmux's names (some versions rewrite some characters; tmux's
        // own listing is the reference).
        let want = tmux_sessions(&server);
        let got = ok_typed(&s, ListSessionsArgs::default()).await;
        let got: Vec<(String, String)> = got["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["session_id"].as_str().unwrap().to_string(),
                    x["session_name"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(got, want, "tmux {}: list_sessions", bin.label);

        // list_windows of main: exactly tmux's window names.
        let want_w: Vec<String> = server
            .tmux_ok(&["list-windows", "-t", "=main", "-F", "#{window_name}"])
            .lines()
            .map(str::to_string)
            .collect();
        let got_w = ok_typed(&s, ListWindowsArgs::in_session("main")).await;
        let got_w: Vec<String> = got_w["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["window_name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got_w, want_w, "tmux {}: list_windows", bin.label);

        // Plant a marker in each hostile session's pane.
        for (i, (_, _, pane)) in created.iter().enumerate() {
            server.wait_for_text(pane, "$", DEADLINE);
            run(&server, pane, &format!("echo HOSTILE-MA''RK-{i}-"));
        }

        for (i, (asked, sid, pane)) in created.iter().enumerate() {
            // The name as tmux stores it.
            let name = &want.iter().find(|(id, _)| id == sid).unwrap().1;
            if name.starts_with('$') {
                // tmux reads a target "=$…" as a session id: such names are covered by
                // hostile_session_names_tmux_cannot_target.
                continue;
            }
            let ctx = format!("tmux {}: session {asked:?} (stored as {name:?})", bin.label);
            let info = ok_typed(&s, SessionArgs::in_session(name)).await;
            assert_eq!(info["session_id"], json!(sid), "{ctx}");
            assert_eq!(info["session_name"], json!(name), "{ctx}");
            let w = ok_typed(&s, ListWindowsArgs::in_session(name)).await;
            let w = w["result"].as_array().unwrap();
            assert_eq!(w.len(), 1, "{ctx}");
            assert_eq!(w[0]["session_id"], json!(sid), "{ctx}");
            let cap = ok_typed(&s, CapturePaneArgs::in_session(name)).await;
            assert_eq!(cap["pane_id"], json!(pane), "{ctx}");
            let marker = format!("HOSTILE-MARK-{i}-");
            assert!(
                cap["result"].as_str().unwrap().lines().any(|l| l == marker),
                "{ctx}: {cap}"
            );
            let v = ok_typed(
                &s,
                SearchPanesArgs {
                    session_name: Some(name.to_string()),
                    ..search_for(&marker)
                },
            )
            .await;
            assert_eq!(
                hits(&v),
                vec![(pane.clone(), marker.clone(), hit_line(&v), 1)],
                "{ctx}"
            );
            assert_eq!(v["panes_searched"], 1, "{ctx}");
            assert_eq!(v["matches"][0]["session_name"], json!(name), "{ctx}");
            // And a search of every pane finds it in that pane only.
            let v = ok_typed(&s, search_for(&marker)).await;
            assert_eq!(hits(&v).len(), 1, "{ctx}: {v}");
            assert_eq!(hits(&v)[0].0, *pane, "{ctx}");
            let snap = ok_typed(&s, SnapshotPaneArgs::in_session(name)).await;
            assert_eq!(snap["pane_id"], json!(pane), "{ctx}");
        }
        // Nothing was executed, and the server is still fine.
        assert_nothing_ran(&server, &canary);
        assert!(server.is_alive());
        assert_eq!(tmux_sessions(&server), want);
    }
}

/// The line number of the only hit (for building the expected tuple).
fn hit_line(v: &Value) -> i64 {
    v["matches"][0]["matched_line_numbers"][0]
        .as_i64()
        .unwrap_or(i64::MIN)
}

/// Session names that tmux itself cannot name in a target: tmux 3.8 keeps `:` and `.` in
/// session names (`=a:b.c:` then means session `a`, window `b`, pane `c`), and since 3.5 a name
/// starting with `$` is stored as is but `=$HOME` is read as a session *id* (3.3a stores
/// `\$HOME`). A `session_name` must still select exactly the session with that name (e.g. by
/// matching `list-sessions` and targeting its id), never another one and never an empty object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn hostile_session_names_tmux_cannot_target() {
    let mut wrong = Vec::new();
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("a").start();
        let s = servers(&server);
        for asked in ["a:b.c", "$HOME", "$0"] {
            let (sid, pane) = new_session(&server, asked);
            server.wait_for_text(&pane, "$", DEADLINE);
            let name = tmux_sessions(&server)
                .into_iter()
                .find(|(id, _)| *id == sid)
                .unwrap()
                .1;
            let ctx = format!(
                "tmux {}: {asked:?} stored as {name:?} ({sid} {pane})",
                bin.label
            );
            let info = call_typed(&s, SessionArgs::in_session(&name)).await;
            let got = info.structured_content.unwrap_or_default();
            if got["session_id"] != json!(sid) {
                wrong.push(format!("{ctx}: get_session_info gave {got}"));
            }
            let w = call_typed(&s, ListWindowsArgs::in_session(&name)).await;
            let got = w.structured_content.clone().unwrap_or_default();
            if got["result"][0]["session_id"] != json!(sid) {
                wrong.push(format!("{ctx}: list_windows gave {got} {}", text_of(&w)));
            }
            let cap = call_typed(&s, CapturePaneArgs::in_session(&name)).await;
            let got = cap.structured_content.clone().unwrap_or_default();
            if got["pane_id"] != json!(pane) {
                wrong.push(format!(
                    "{ctx}: capture_pane gave {} {}",
                    got["pane_id"],
                    text_of(&cap)
                ));
            }
            let v = call_typed(
                &s,
                SearchPanesArgs {
                    session_name: Some(name.to_string()),
                    ..search_for("$")
                },
            )
            .await;
            let got = v.structured_content.clone().unwrap_or_default();
            if got["matches"][0]["pane_id"] != json!(pane) || got["panes_searched"] != 1 {
                wrong.push(format!(
                    "{ctx}: search_panes gave {} {}",
                    got["matches"][0]["pane_id"],
                    text_of(&v)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "wrong session:\n{}", wrong.join("\n"));
}

/// Literal patterns full of glob, regex, format and quoting syntax are found exactly where
/// they were planted, and nothing runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_literal_patterns() {
    for bin in tmux_bins() {
        let tmp = tempfile::tempdir().unwrap();
        let canary = tmp.path().join("canary-pattern");
        let touch = format!("#(touch {})", canary.display());
        let server = TestServer::builder(&bin).session("lit").start();
        let pane = first_pane(&server);
        let s = servers(&server);
        let content = [
            r"P01 path a\b-marker here",
            "P02 decoy a-marker and ab-marker (regex or glob readings of the a-b marker)",
            "P03 the br[x]acket word",
            "P04 decoy brxacket and bracket",
            "P05 a *star* between stars",
            "P06 decoy star and sXstarX",
            "P07 q?mark asked",
            "P08 decoy qXmark and qmark",
            "P09 format #{pane_id} stays text",
            "P10 decoy %0 and pane_id",
            &format!("P11 job {touch} stays text"),
            "P12 job #(touch x) too",
            "P13 closing } brace",
            "P14 it's a single quote",
            "P15 a \"double\" quote",
            "P16 #{session_name} #{E:pane_id} #{?a,b,c} ## #[fg=red]",
        ]
        .join("\n")
            + "\n";
        plant(&server, &pane, tmp.path(), &content);

        let joined = tmux_lines(&server, &pane, &["-J", "-S", "-", "-E", "-"]);
        for pattern in [
            r"a\b-marker",
            "br[x]acket",
            "*star*",
            "q?mark",
            "#{pane_id}",
            "#(touch x)",
            touch.as_str(),
            "}",
            "'",
            "\"",
            "#{session_name} #{E:pane_id} #{?a,b,c} ## #[fg=red]",
            "##",
        ] {
            // The oracle: tmux's own joined capture, filtered by plain substring.
            let lower = pattern.to_lowercase();
            let want: Vec<&String> = joined
                .iter()
                .filter(|l| l.to_lowercase().contains(&lower))
                .collect();
            assert!(
                want.iter().any(|l| l.starts_with('P')),
                "{pattern:?} was planted: {joined:?}"
            );
            let v = ok_typed(&s, search_for(pattern)).await;
            let got: Vec<String> = hits(&v).into_iter().map(|h| h.1).collect();
            let got: Vec<&String> = got.iter().collect();
            assert_eq!(got, want, "tmux {}: pattern {pattern:?}", bin.label);
            // The same with match_case and with a session scope.
            let v = ok_typed(
                &s,
                SearchPanesArgs {
                    match_case: true,
                    session_name: Some("lit".into()),
                    ..search_for(pattern)
                },
            )
            .await;
            let got_cs: Vec<String> = hits(&v).into_iter().map(|h| h.1).collect();
            let want_cs: Vec<&String> = joined.iter().filter(|l| l.contains(pattern)).collect();
            assert_eq!(
                got_cs.iter().collect::<Vec<_>>(),
                want_cs,
                "tmux {}: {pattern:?} match_case",
                bin.label
            );
        }
        // Exactly one line each for the planted ones (decoys do not match).
        for (pattern, line) in [
            (r"a\b-marker", "P01"),
            ("br[x]acket", "P03"),
            ("*star*", "P05"),
            ("q?mark", "P07"),
            ("#{pane_id}", "P09"),
            ("#(touch x)", "P12"),
        ] {
            let v = ok_typed(&s, search_for(pattern)).await;
            let h = hits(&v);
            assert_eq!(h.len(), 1, "tmux {}: {pattern:?}: {v}", bin.label);
            assert!(h[0].1.starts_with(line), "{pattern:?}: {h:?}");
        }
        assert_nothing_ran(&server, &canary);
        assert!(server.is_alive());
    }
}

/// Pane text that looks like control-mode framing is returned verbatim and does not
/// desynchronise the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pane_text_looks_like_control_protocol() {
    const LINES: &[&str] = &[
        "%end 1 2 1",
        "%begin 3 4 1",
        "%error 5 6 1",
        "%output %0 x",
        "%exit",
        "%begin 1 2",
        "%end 1 2",
        "%session-changed $0 main",
    ];
    for bin in tmux_bins() {
        let tmp = tempfile::tempdir().unwrap();
        let server = TestServer::builder(&bin)
            .session("proto")
            .size(80, 30)
            .start();
        let pane = first_pane(&server);
        let s = servers(&server);
        ok_typed(&s, ListSessionsArgs::default()).await; // attached: the text flows as %output too
        let content = LINES.join("\n") + "\n";
        plant(&server, &pane, tmp.path(), &content);
        // Print the same again with a guard-like line carrying the real current time, so a
        // parser matching on "%end <time>" prefixes would be fooled.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let guard_like = format!("%end {now} 1 1\n%error {now} 2 1\n");
        std::fs::write(tmp.path().join("g.txt"), &guard_like).unwrap();
        run(
            &server,
            &pane,
            &format!("cat {}/g.txt", tmp.path().display()),
        );

        for round in 0..3 {
            let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
            let got = lines_of(cap["result"].as_str().unwrap());
            assert_eq!(
                got,
                tmux_lines(&server, &pane, &[]),
                "tmux {} round {round}",
                bin.label
            );
            for l in LINES {
                assert!(
                    got.iter().any(|g| g == l),
                    "tmux {}: {l:?} missing",
                    bin.label
                );
            }
            for l in LINES {
                let v = ok_typed(
                    &s,
                    SearchPanesArgs {
                        match_case: true,
                        ..search_for(l)
                    },
                )
                .await;
                let h = hits(&v);
                assert!(
                    h.iter().any(|x| x.1 == *l),
                    "tmux {}: search {l:?}: {v}",
                    bin.label
                );
            }
            let v = ok_typed(&s, search_for(&format!("%end {now}"))).await;
            assert_eq!(hits(&v).len(), 1, "tmux {}: {v}", bin.label);
            // Other calls on the same connection still get their own answers.
            let info = ok_typed(&s, ServerArgs::default()).await;
            assert_eq!(info["is_alive"], true);
            let l = ok_typed(&s, ListSessionsArgs::default()).await;
            assert_eq!(l["result"][0]["session_name"], "proto");
            let snap = ok_typed(&s, SnapshotPaneArgs::on(&pane)).await;
            assert_eq!(snap["pane_id"], json!(pane));
        }
    }
}

/// Regex hostility: catastrophic-backtracking shapes return; oversized or empty patterns are
/// refused with clear errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_regex_patterns() {
    let bin = crate::support::system_tmux();
    let tmp = tempfile::tempdir().unwrap();
    let server = TestServer::builder(&bin).session("rx").start();
    let pane = first_pane(&server);
    let s = servers(&server);
    let long = format!("{}b\n{}\n", "a".repeat(5000), "a".repeat(3000));
    plant(&server, &pane, tmp.path(), &long);

    for pattern in [r"(a+)+$", r"(a|aa)+$", r"(a*)*b", r"^(a+)+b$", r"(.*a){20}"] {
        let v = within(
            pattern,
            ok_typed(
                &s,
                SearchPanesArgs {
                    regex: true,
                    ..search_for(pattern)
                },
            ),
        )
        .await;
        assert!(v["total_panes_matched"].as_u64().is_some(), "{v}");
    }
    let v = ok_typed(
        &s,
        SearchPanesArgs {
            regex: true,
            ..search_for("(a+)+$")
        },
    )
    .await;
    let want: Vec<String> = tmux_lines(&server, &pane, &["-J", "-S", "-", "-E", "-"])
        .into_iter()
        .filter(|l| !l.is_empty() && l.bytes().all(|b| b == b'a'))
        .collect();
    let got: Vec<String> = hits(&v).into_iter().map(|h| h.1).collect();
    assert_eq!(got, want);

    for (pattern, regex) in [
        ("(?:a{1000}){1000}".to_string(), true),
        ("a".repeat(1001), false),
        ("a".repeat(1001), true),
        (String::new(), false),
        (String::new(), true),
        ("(unclosed".to_string(), true),
        ("[z-a]".to_string(), true),
        (format!("{}a", "(".repeat(500) + &")".repeat(500)), true),
    ] {
        let e = err_typed(
            &s,
            SearchPanesArgs {
                regex,
                ..search_for(&pattern)
            },
        )
        .await;
        assert_eq!(
            e.kind,
            "InvalidPattern",
            "pattern {:?}: {e:?}",
            &pattern[..pattern.len().min(40)]
        );
        assert_eq!(e.meta["expected"], true, "{e:?}");
        assert!(!e.text.is_empty());
        if pattern.len() == 1001 {
            assert!(e.text.contains("1000"), "{}", e.text);
        }
    }
    // Exactly 1000 characters is accepted.
    ok_typed(&s, search_for(&"a".repeat(1000))).await;
    assert!(server.is_alive());
}

/// Argument hostility: ids with command syntax, bad numbers, NUL bytes: clear errors before
/// anything reaches tmux, and the server survives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_arguments() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("args").start();
        let pane = first_pane(&server);
        let s = servers(&server);
        let sessions_before = tmux_sessions(&server);
        let invalid: Vec<(&str, Value)> = vec![
            named(CapturePaneArgs::on("%0; kill-server")),
            named(CapturePaneArgs::on("%0 ; kill-server")),
            named(CapturePaneArgs::on("%abc")),
            named(CapturePaneArgs::on("%")),
            named(CapturePaneArgs::on("0")),
            named(CapturePaneArgs::on("%-1")),
            named(CapturePaneArgs::on("%99999999999999999999")),
            // JSON: a wrong type, or an argument unknown or missing.
            ("capture_pane", json!({"pane_id": 0})),
            named(CapturePaneArgs::on("%0\u{0}")),
            named(CapturePaneArgs {
                max_lines: Some(0),
                ..Default::default()
            }),
            named(CapturePaneArgs {
                max_lines: Some(-5),
                ..Default::default()
            }),
            named(CapturePaneArgs {
                start: Some(i64::MIN),
                ..Default::default()
            }),
            // JSON: a wrong type, or an argument unknown or missing.
            ("capture_pane", json!({"start": "zero"})),
            ("capture_pane", json!({"start": "1.5"})),
            ("capture_pane", json!({"start": 1.5})),
            ("capture_pane", json!({"join_wrapped": "maybe"})),
            ("capture_pane", json!({"bogus": 1})),
            named(PaneArgs::on("%0;kill-server")),
            named(PaneArgs {
                window_id: Some("%0".into()),
                ..Default::default()
            }),
            named(WindowArgs {
                window_id: Some("@x".into()),
                ..Default::default()
            }),
            named(SessionArgs {
                session_id: Some("$1 ; kill-server".into()),
                ..Default::default()
            }),
            named(SessionArgs {
                session_id: Some("1".into()),
                ..Default::default()
            }),
            named(SessionArgs::in_session("")),
            named(SessionArgs::in_session("args\u{0}")),
            named(SessionArgs::in_session("\u{0}; kill-server")),
            named(ListWindowsArgs::in_session("a\u{0}b")),
            named(SearchPanesArgs {
                session_name: Some("\u{0}".into()),
                ..search_for("x")
            }),
            named(SearchPanesArgs {
                session_id: Some("$0;kill-server".into()),
                ..search_for("x")
            }),
            named(ListPanesArgs {
                window_index: Some(-1),
                session_name: Some("args".into()),
                ..Default::default()
            }),
            named(ListPanesArgs {
                window_index: Some(1_i64 << 40),
                session_name: Some("args".into()),
                ..Default::default()
            }),
            named(WindowArgs {
                window_index: Some(-1),
                ..Default::default()
            }),
            named(WindowArgs {
                window_index: Some(i64::MAX),
                ..Default::default()
            }),
            named(SearchPanesArgs {
                offset: -1,
                ..search_for("x")
            }),
            named(SearchPanesArgs {
                limit: Some(0),
                ..search_for("x")
            }),
            named(SearchPanesArgs {
                max_matched_lines_per_pane: 0,
                ..search_for("x")
            }),
            named(SearchPanesArgs {
                content_start: Some(i64::MIN),
                ..search_for("x")
            }),
            // JSON: a wrong type, or an argument unknown or missing.
            ("search_panes", json!({"pattern": [5]})),
            ("search_panes", json!({})),
            named(DisplayMessageArgs {
                format_string: "#{E:pane_id}".into(),
                ..Default::default()
            }),
            named(DisplayMessageArgs {
                format_string: "#{?pane_active,#(touch /tmp/x),}".into(),
                ..Default::default()
            }),
            named(ListSessionsArgs {
                socket_name: Some("../../etc/passwd".into()),
                ..Default::default()
            }),
            named(ListSessionsArgs {
                socket_name: Some("".into()),
                ..Default::default()
            }),
            named(ListSessionsArgs {
                socket_name: Some("..".into()),
                ..Default::default()
            }),
        ];
        for (tool, args) in &invalid {
            let e = within(tool, err(&s, tool, args.clone())).await;
            assert_eq!(
                e.kind, "InvalidArgument",
                "tmux {}: {tool} {args}: {e:?}",
                bin.label
            );
            assert!(
                e.meta["suggestion"].as_str().is_some_and(|x| !x.is_empty()),
                "{tool} {args}: {e:?}"
            );
        }
        let not_found: Vec<(&str, Value)> = vec![
            named(CapturePaneArgs::on("%4294967295")),
            named(CapturePaneArgs::on("%999")),
            named(SnapshotPaneArgs::on("%999")),
            named(CapturePaneArgs {
                window_id: Some("@999".into()),
                ..Default::default()
            }),
            named(CapturePaneArgs {
                session_id: Some("$999".into()),
                ..Default::default()
            }),
            named(CapturePaneArgs::in_session("nope")),
            named(ListWindowsArgs {
                session_id: Some("$999".into()),
                ..Default::default()
            }),
            named(ListPanesArgs {
                window_id: Some("@999".into()),
                ..Default::default()
            }),
            named(ListPanesArgs {
                window_index: Some(4_294_967_295_i64),
                session_name: Some("args".into()),
                ..Default::default()
            }),
            named(ListPanesArgs {
                window_index: Some(7),
                session_name: Some("args".into()),
                ..Default::default()
            }),
            named(SearchPanesArgs {
                session_id: Some("$999".into()),
                ..search_for("x")
            }),
        ];
        for (tool, args) in &not_found {
            let e = within(tool, err(&s, tool, args.clone())).await;
            assert_eq!(
                e.kind, "NotFound",
                "tmux {}: {tool} {args}: {e:?}",
                bin.label
            );
        }
        // Huge but valid numbers are fine.
        ok_typed(
            &s,
            CapturePaneArgs {
                start: Some(-2_147_483_648_i64),
                end: Some(i64::MAX),
                max_lines: Some(i64::MAX),
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        ok_typed(
            &s,
            SearchPanesArgs {
                content_start: Some(-2_147_483_648_i64),
                content_end: Some(i64::MAX),
                limit: Some(i64::MAX),
                offset: i64::MAX,
                max_matched_lines_per_pane: i64::MAX,
                ..search_for("x")
            },
        )
        .await;
        // Still alive, nothing changed.
        assert!(server.is_alive(), "tmux {}", bin.label);
        assert_eq!(tmux_sessions(&server), sessions_before);
        let l = ok_typed(&s, ListPanesArgs::default()).await;
        assert_eq!(l["result"][0]["pane_id"], json!(pane));
    }
}

/// The `get_*_info` tools and `display_message` name a missing object NotFound instead of
/// returning an empty one (`display-message -t` tolerates a missing target and expands the
/// format with nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn hostile_info_tools_missing_ids_are_not_found() {
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).session("ids").start();
    let s = servers(&server);
    let mut wrong = Vec::new();
    for (tool, args) in [
        named(PaneArgs::on("%999")),
        named(WindowArgs {
            window_id: Some("@999".into()),
            ..Default::default()
        }),
        named(SessionArgs {
            session_id: Some("$999".into()),
            ..Default::default()
        }),
        named(WindowArgs {
            window_index: Some(7),
            session_name: Some("ids".into()),
            ..Default::default()
        }),
        named(PaneArgs {
            window_id: Some("@999".into()),
            ..Default::default()
        }),
        named(SessionArgs::in_session("nope")),
        named(DisplayMessageArgs {
            format_string: "#{pane_id}".into(),
            ..DisplayMessageArgs::on("%999")
        }),
        named(DisplayMessageArgs {
            format_string: "x".into(),
            session_name: Some("nope".into()),
            ..Default::default()
        }),
    ] {
        let r = call(&s, tool, args.clone()).await;
        let kind = serde_json::to_value(&r).unwrap()["_meta"]["error_type"].clone();
        if r.is_error != Some(true) || kind != "NotFound" {
            wrong.push(format!("{tool} {args}: {:?}", r.structured_content));
        }
    }
    assert!(wrong.is_empty(), "not NotFound:\n{}", wrong.join("\n"));
}

/// Fills `n` panes of `server` with a big scrollback, for searches that take a while.
fn fill_big(server: &TestServer, dir: &Path, panes: usize) -> Vec<String> {
    let file = dir.join("big.txt");
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!("{i:06} {}\n", "y".repeat(140)));
    }
    std::fs::write(&file, text).unwrap();
    let mut ids = vec![first_pane(server)];
    for _ in 1..panes {
        let id = server.tmux_ok(&[
            "split-window",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            &ids[0],
        ]);
        server.tmux_ok(&["select-layout", "-t", &ids[0], "tiled"]);
        ids.push(id.trim().to_string());
    }
    for id in &ids {
        server.wait_for_text(id, "$", DEADLINE);
        run(server, id, &format!("cat {}", file.display()));
    }
    ids
}

/// A server killed during (or right before) a call: an error result quickly, never a hang,
/// and the next call says "no tmux server running on <path>".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_server_killed_mid_call() {
    for bin in tmux_bins() {
        for how in ["kill-server", "SIGKILL", "before"] {
            let tmp = tempfile::tempdir().unwrap();
            let mut server = TestServer::builder(&bin)
                .session("doomed")
                .size(200, 60)
                .history_limit(50_000)
                .start();
            let s = servers(&server);
            fill_big(&server, tmp.path(), 4);
            ok_typed(&s, ListPanesArgs::default()).await;
            let socket = server.socket.clone();

            let search = {
                let s = s.clone();
                tokio::spawn(async move {
                    call_typed(
                        &s,
                        SearchPanesArgs {
                            regex: true,
                            ..search_for(r"(y+)\d?y{10}$")
                        },
                    )
                    .await
                })
            };
            match how {
                "kill-server" => {
                    tokio::task::yield_now().await;
                    let _ = server.tmux(&["kill-server"]);
                }
                "SIGKILL" => {
                    tokio::task::yield_now().await;
                    let pid = server.server_pid().to_string();
                    let st = std::process::Command::new("kill")
                        .args(["-KILL", &pid])
                        .status()
                        .unwrap();
                    assert!(st.success());
                }
                _ => {
                    // Let the search finish, then kill, then call.
                    let r = within("search", search).await.unwrap();
                    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
                    server.kill();
                    let e =
                        within("call after kill", err_typed(&s, CapturePaneArgs::default())).await;
                    assert!(
                        e.text
                            .contains(&format!("no tmux server running on {}", socket.display())),
                        "tmux {} ({how}): {e:?}",
                        bin.label
                    );
                    assert_eq!(e.kind, "NoServer");
                    continue;
                }
            }
            // The in-flight search ends, with a result or an error, but ends.
            let r = within("search when the server died", search).await.unwrap();
            if r.is_error == Some(true) {
                assert!(!text_of(&r).is_empty());
            }
            wait_until("server gone", DEADLINE, || {
                (!server.is_alive()).then_some(())
            });
            let e = within("call after the server died", err_typed(&s, search_for("y"))).await;
            assert!(
                e.text
                    .contains(&format!("no tmux server running on {}", socket.display())),
                "tmux {} ({how}): {e:?}",
                bin.label
            );
            assert_eq!(e.kind, "NoServer", "tmux {} ({how})", bin.label);
            let info = within("server info", ok_typed(&s, ServerArgs::default())).await;
            assert_eq!(info["is_alive"], false, "tmux {} ({how})", bin.label);
            server.kill();
        }
    }
}

/// Programs in a pane choose its title (OSC 2), its process name and its
/// working directory. Values holding tmuxwire's record separators or a
/// line break come back exactly, and never spoof other fields or invent
/// panes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pane_metadata_cannot_spoof_records() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(100, 20).start();
        let pane = first_pane(&server);
        let servers = servers(&server);
        let real = ok_typed(&servers, PaneArgs::on(&pane)).await;

        // A title full of separators (tmux accepts any valid UTF-8 title).
        run(
            &server,
            &pane,
            "printf '\\033]2;x␟1␟@999␟$999␟spoofed\\033\\\\'",
        );
        // A working directory whose name holds a line break and a fake record.
        let tmp = tempfile::tempdir().unwrap();
        let evil = tmp.path().join("a\n␞%77␟9␟x");
        std::fs::create_dir(&evil).unwrap();
        run(
            &server,
            &pane,
            &format!("cd {}", shell_quote(&evil.display().to_string())),
        );

        let info = ok_typed(&servers, PaneArgs::on(&pane)).await;
        for field in [
            "pane_id",
            "session_id",
            "session_name",
            "window_id",
            "window_index",
            "pane_index",
        ] {
            assert_eq!(info[field], real[field], "{ctx}: {field} spoofed: {info}");
        }
        // The separators come back exactly (public case C23), without
        // moving any other field.
        assert_eq!(
            info["pane_title"],
            json!("x␟1␟@999␟$999␟spoofed"),
            "{ctx}: {info}"
        );
        assert_eq!(
            info["pane_current_path"],
            json!(evil.display().to_string()),
            "{ctx}: {info}"
        );

        let panes = ok_typed(&servers, ListPanesArgs::default()).await;
        let ids: Vec<&str> = panes["result"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["pane_id"].as_str())
            .collect();
        assert_eq!(
            ids,
            [pane.as_str()],
            "{ctx}: a phantom pane appeared: {panes}"
        );
        let snap = ok_typed(&servers, SnapshotPaneArgs::on(&pane)).await;
        assert_eq!(snap["pane_id"], json!(pane), "{ctx}");
        let found = ok_typed(&servers, search_for("END-MARK")).await;
        assert_eq!(
            found["matches"][0]["session_id"], real["session_id"],
            "{ctx}: {found}"
        );
        assert!(server.is_alive());
    }
}

/// `s` single-quoted for the shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
