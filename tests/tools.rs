//! Every read tool, called in process through `tmuxwire::mcp::tools::call`, compared with
//! what the tmux CLI reports for the same objects on the same private server (differential),
//! against every binary from `tmux_bins()`. Also pins the reference contracts
//! (`reference-tools.md` §1.5–§2.6) and tmuxwire's deliberate fixes: targets default to the
//! ACTIVE window/pane, session names match exactly, `max_lines` ≤ 0 is refused,
//! `search_panes` covers the whole scrollback and reports real tmux line numbers.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tmuxwire::mcp::tools;
use tmuxwire::tmux::{Caller, Server, Servers};

use crate::support::tool::{
    Aim, InSession, OnPane, Target, arguments, json_arg, named, search_for,
};
use crate::support::tool_json::*;
use crate::support::*;
use tmuxwire::mcp::args::{
    CapturePaneArgs, CaptureSinceArgs, DisplayMessageArgs, ListPanesArgs, ListSessionsArgs,
    ListWindowsArgs, PaneArgs, RespawnPaneArgs, SearchPanesArgs, ServerArgs, SessionArgs,
    SnapshotPaneArgs, SplitWindowArgs, WindowArgs,
};

/// Field separator for CLI formats (no `%`: display-message runs strftime).
const SEP: &str = "|~|";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A JSON value as tmux prints the same format variable.
fn tmux_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

type Row = BTreeMap<String, String>;

fn format_of(vars: &[&str]) -> String {
    vars.iter()
        .map(|v| format!("#{{{v}}}"))
        .collect::<Vec<_>>()
        .join(SEP)
}

fn parse_rows(out: &str, vars: &[&str]) -> Vec<Row> {
    out.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(SEP).collect();
            assert_eq!(f.len(), vars.len(), "bad CLI row {l:?}");
            vars.iter()
                .zip(f)
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// `tmux <args> -F <vars>` rows.
fn cli_list(server: &TestServer, args: &[&str], vars: &[&str]) -> Vec<Row> {
    let fmt = format_of(vars);
    let mut a = args.to_vec();
    a.extend(["-F", fmt.as_str()]);
    parse_rows(&server.tmux_ok(&a), vars)
}

/// `tmux display-message -p -t <target> <vars>` as one row.
fn cli_display(server: &TestServer, target: &str, vars: &[&str]) -> Row {
    let fmt = format_of(vars);
    let out = server.tmux_ok(&["display-message", "-p", "-t", target, &fmt]);
    parse_rows(&out, vars).pop().expect("one row")
}

/// tmuxwire's own fields that an answer leaves out when they hold a default (docs/RESULTS.md,
/// "noise out"), with the value tmux prints for that default: an absent one is checked
/// against tmux's value as if it were sent.
const OMITTED_DEFAULTS: &[(&str, &str)] = &[("history_size", "0"), ("history_limit", "2000")];

/// Extra fields (not read from tmux) that are left out when they hold a default: a snapshot's
/// `content_truncated_bytes` (0), `content_view` (`live`) and `next` (nothing cut), a match's
/// `matched_line_rows` (every line one row; [`assert_line_numbers_real`] reads it so).
const OMITTED_EXTRA: &[&str] = &[
    "content_truncated_bytes",
    "content_view",
    "next",
    "matched_line_rows",
];

/// Checks `obj` (a tool's JSON object) against a CLI row: for each `(json field, tmux var)`,
/// the JSON value printed as tmux would equals the CLI's value (a field left out for its
/// default, [`OMITTED_DEFAULTS`], must be that default in tmux); and the object has exactly
/// the keys `mapping` names plus `extra`, but those left out for their default.
fn assert_same(obj: &Value, row: &Row, mapping: &[(&str, &str)], extra: &[&str], ctx: &str) {
    let o = obj
        .as_object()
        .unwrap_or_else(|| panic!("{ctx}: not an object: {obj}"));
    for (field, var) in mapping {
        let got = match o.get(*field) {
            Some(v) => tmux_text(v),
            None => OMITTED_DEFAULTS
                .iter()
                .find(|(f, _)| f == field)
                .map(|(_, d)| (*d).to_string())
                .unwrap_or_else(|| panic!("{ctx}: field {field} missing in {obj}")),
        };
        assert_eq!(
            got, row[*var],
            "{ctx}: {field} (tmux #{{{var}}}) differs; object {obj}"
        );
    }
    let want: BTreeSet<&str> = mapping
        .iter()
        .map(|(f, _)| *f)
        .chain(extra.iter().copied())
        .collect();
    let have: BTreeSet<&str> = o.keys().map(String::as_str).collect();
    let left_out: BTreeSet<&str> = OMITTED_DEFAULTS
        .iter()
        .map(|(f, _)| *f)
        .chain(OMITTED_EXTRA.iter().copied())
        .collect();
    assert!(
        have.is_subset(&want) && want.difference(&have).all(|f| left_out.contains(f)),
        "{ctx}: the object's fields: {have:?}, expected {want:?} (but those left out for \
         their default)"
    );
}

fn vars<'a>(mapping: &[(&'a str, &'a str)]) -> Vec<&'a str> {
    mapping.iter().map(|(_, v)| *v).collect()
}

const SESSION_MAP: &[(&str, &str)] = &[
    ("session_id", "session_id"),
    ("session_name", "session_name"),
    ("window_count", "session_windows"),
    ("session_created", "session_created"),
    ("active_pane_id", "pane_id"),
];

const WINDOW_MAP: &[(&str, &str)] = &[
    ("window_id", "window_id"),
    ("window_name", "window_name"),
    ("window_index", "window_index"),
    ("session_id", "session_id"),
    ("session_name", "session_name"),
    ("pane_count", "window_panes"),
    ("window_layout", "window_layout"),
    ("window_active", "window_active"),
    ("window_width", "window_width"),
    ("window_height", "window_height"),
    ("active_pane_id", "pane_id"),
];

const GEOMETRY_MAP: &[(&str, &str)] = &[
    ("pane_left", "pane_left"),
    ("pane_top", "pane_top"),
    ("pane_right", "pane_right"),
    ("pane_bottom", "pane_bottom"),
    ("pane_at_left", "pane_at_left"),
    ("pane_at_right", "pane_at_right"),
    ("pane_at_top", "pane_at_top"),
    ("pane_at_bottom", "pane_at_bottom"),
];

fn pane_map() -> Vec<(&'static str, &'static str)> {
    let mut m = vec![
        ("pane_id", "pane_id"),
        ("pane_index", "pane_index"),
        ("pane_width", "pane_width"),
        ("pane_height", "pane_height"),
        ("pane_tty", "pane_tty"),
        ("pane_current_command", "pane_current_command"),
        ("pane_current_path", "pane_current_path"),
        ("pane_pid", "pane_pid"),
        ("pane_title", "pane_title"),
        ("pane_active", "pane_active"),
        ("window_id", "window_id"),
        ("session_id", "session_id"),
        ("session_name", "session_name"),
        // Not window_index and window_name: a pane listing leaves them to list_windows and
        // get_window_info (WINDOW_MAP checks them there, by window_id).
        ("history_size", "history_size"),
        ("history_limit", "history_limit"),
    ];
    m.extend_from_slice(GEOMETRY_MAP);
    m
}

fn snapshot_map() -> Vec<(&'static str, &'static str)> {
    let mut m = vec![
        ("pane_id", "pane_id"),
        ("cursor_x", "cursor_x"),
        ("cursor_y", "cursor_y"),
        ("pane_width", "pane_width"),
        ("pane_height", "pane_height"),
        ("pane_tty", "pane_tty"),
        ("pane_pid", "pane_pid"),
        ("pane_dead", "pane_dead"),
        ("alternate_on", "alternate_on"),
        ("pane_in_mode", "pane_in_mode"),
        ("pane_mode", "pane_mode"),
        ("scroll_position", "scroll_position"),
        ("history_size", "history_size"),
        ("history_limit", "history_limit"),
        ("title", "pane_title"),
        ("pane_current_command", "pane_current_command"),
        ("pane_current_path", "pane_current_path"),
    ];
    m.extend_from_slice(GEOMETRY_MAP);
    m
}

const SNAPSHOT_EXTRA: &[&str] = &[
    "content",
    "is_caller",
    "content_truncated",
    "content_truncated_lines",
    "content_truncated_bytes",
    "content_view",
    "next",
];

const MATCH_MAP: &[(&str, &str)] = &[
    ("pane_id", "pane_id"),
    ("pane_current_command", "pane_current_command"),
    ("pane_current_path", "pane_current_path"),
    ("window_id", "window_id"),
    ("window_name", "window_name"),
    ("session_id", "session_id"),
    ("session_name", "session_name"),
    ("window_index", "window_index"),
    ("pane_index", "pane_index"),
];

const MATCH_EXTRA: &[&str] = &[
    "matched_lines",
    "matched_line_numbers",
    "matched_line_rows",
    "matched_at",
    "matched_line_count",
    "source",
    "is_caller",
];

/// Every pane id on the server, in tmux's `list-panes -a` order.
fn all_panes(server: &TestServer) -> Vec<String> {
    server
        .tmux_ok(&["list-panes", "-a", "-F", "#{pane_id}"])
        .lines()
        .map(str::to_string)
        .collect()
}

/// Waits until every pane shows its shell prompt.
fn wait_for_prompts(server: &TestServer) {
    for p in all_panes(server) {
        server.wait_for_text(&p, "$", DEADLINE);
    }
}

/// CLI capture rows (`capture-pane -p extra…`), trailing empty rows dropped.
fn cli_rows(server: &TestServer, pane: &str, extra: &[&str]) -> Vec<String> {
    let out = server.capture(pane, extra);
    let mut rows: Vec<String> = out.lines().map(str::to_string).collect();
    while rows.last().is_some_and(|l| l.is_empty()) {
        rows.pop();
    }
    rows
}

fn str_list(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| {
            x.as_str()
                .unwrap_or_else(|| panic!("not a string: {x}"))
                .to_string()
        })
        .collect()
}

/// The fixture: session `alpha` (100x30, history 5000) with windows 0 (2 panes) and 1
/// `logs` (3 panes); session `beta` (90x25) with windows 0 (1 pane), 1 `two` (2 panes) and 2
/// `three` (3 panes). 11 panes, ids %0..%10. Every pane shows its prompt.
fn fixture(bin: &TmuxBin) -> TestServer {
    let server = TestServer::builder(bin)
        .session("alpha")
        .size(100, 30)
        .history_limit(5000)
        .start();
    freeze_window_names(&server);
    for args in [
        &["split-window", "-d", "-h", "-t", "=alpha:0"][..],
        &["new-window", "-d", "-n", "logs", "-t", "=alpha:1"],
        &["split-window", "-d", "-v", "-t", "=alpha:1"],
        &["split-window", "-d", "-h", "-t", "=alpha:1"],
        &["new-session", "-d", "-s", "beta", "-x", "90", "-y", "25"],
        &["new-window", "-d", "-n", "two", "-t", "=beta:1"],
        &["split-window", "-d", "-v", "-t", "=beta:1"],
        &["new-window", "-d", "-n", "three", "-t", "=beta:2"],
        &["split-window", "-d", "-h", "-t", "=beta:2"],
        &["split-window", "-d", "-v", "-t", "=beta:2"],
    ] {
        server.tmux_ok(args);
    }
    assert_eq!(all_panes(&server).len(), 11);
    wait_for_prompts(&server);
    server
}

/// Turns off automatic-rename, so window names do not change between tmux's answer and
/// tmuxwire's (the first window is renamed from `env` to `bash` at some point otherwise).
fn freeze_window_names(server: &TestServer) {
    server.tmux_ok(&["set", "-g", "automatic-rename", "off"]);
}

/// The number of control clients attached to each session (tmuxwire's own connections).
fn control_clients_per_session(server: &TestServer) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    for r in cli_list(
        server,
        &["list-clients"],
        &["client_control_mode", "session_id"],
    ) {
        if r["client_control_mode"] == "1" {
            *m.entry(r["session_id"].clone()).or_insert(0) += 1;
        }
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Listings and single objects
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_and_info_tools_match_tmux() {
    for bin in tmux_bins() {
        let server = fixture(&bin);
        let servers = servers(&server);
        let ctx = |what: &str| format!("tmux {}: {what}", bin.label);

        // list_sessions (first call: connects)
        let sessions = ok_typed(&servers, ListSessionsArgs::default()).await;
        let sessions = sessions["result"].as_array().unwrap().clone();
        let mut svars = vars(SESSION_MAP);
        svars.push("session_attached");
        let cli = cli_list(&server, &["list-sessions"], &svars);
        assert_eq!(sessions.len(), cli.len(), "{}", ctx("session count"));
        assert_eq!(cli.len(), 2);
        let own = control_clients_per_session(&server);
        // The connection calls run on, and the mirror's watch of each session: the first
        // call follows every pane.
        assert_eq!(
            own.values().sum::<i64>(),
            1 + 2,
            "{}",
            ctx("tmuxwire's control clients")
        );
        for (s, row) in sessions.iter().zip(&cli) {
            assert_same(
                s,
                row,
                SESSION_MAP,
                &["session_attached"],
                &ctx("list_sessions"),
            );
            let attached: i64 = row["session_attached"].parse().unwrap();
            let want = attached - own.get(&row["session_id"]).copied().unwrap_or(0);
            assert_eq!(
                s["session_attached"],
                json!(want.to_string()),
                "{}",
                ctx("session_attached excludes tmuxwire's own client")
            );
        }
        // get_session_info by id and by name
        for row in &cli {
            for args in [
                SessionArgs {
                    session_id: Some(row["session_id"].clone()),
                    ..Default::default()
                },
                SessionArgs::in_session(&row["session_name"]),
            ] {
                let s = ok_typed(&servers, args.clone()).await;
                assert_same(
                    &s,
                    row,
                    SESSION_MAP,
                    &["session_attached"],
                    &ctx(&format!("get_session_info {}", arguments(&args))),
                );
                assert_eq!(s["session_attached"], json!("0"));
            }
        }

        // list_windows: all, and per session (by name and id)
        let wv = vars(WINDOW_MAP);
        let all = ok_typed(&servers, ListWindowsArgs::default()).await;
        let all = all["result"].as_array().unwrap().clone();
        let cli_all = cli_list(&server, &["list-windows", "-a"], &wv);
        assert_eq!(all.len(), 5, "{}", ctx("window count"));
        assert_eq!(all.len(), cli_all.len());
        for (w, row) in all.iter().zip(&cli_all) {
            assert_same(w, row, WINDOW_MAP, &[], &ctx("list_windows"));
        }
        for srow in &cli {
            let name = srow["session_name"].as_str();
            let cli_s = cli_list(&server, &["list-windows", "-t", &format!("={name}")], &wv);
            for args in [
                ListWindowsArgs::in_session(name),
                ListWindowsArgs {
                    session_id: Some(srow["session_id"].clone()),
                    ..Default::default()
                },
            ] {
                let ws = ok_typed(&servers, args.clone()).await;
                let args = arguments(&args);
                let ws = ws["result"].as_array().unwrap().clone();
                assert_eq!(ws.len(), cli_s.len(), "{}", ctx(&format!("{args}")));
                for (w, row) in ws.iter().zip(&cli_s) {
                    assert_same(
                        w,
                        row,
                        WINDOW_MAP,
                        &[],
                        &ctx(&format!("list_windows {args}")),
                    );
                }
            }
        }
        // get_window_info by id, by session + index, by session only (its current window)
        for row in &cli_all {
            let w = ok_typed(
                &servers,
                WindowArgs {
                    window_id: Some(row["window_id"].clone()),
                    ..Default::default()
                },
            )
            .await;
            assert_same(&w, row, WINDOW_MAP, &[], &ctx("get_window_info by id"));
            let idx: i64 = row["window_index"].parse().unwrap();
            let w = ok_typed(
                &servers,
                WindowArgs {
                    session_name: Some(row["session_name"].clone()),
                    window_index: Some(idx),
                    ..Default::default()
                },
            )
            .await;
            assert_same(&w, row, WINDOW_MAP, &[], &ctx("get_window_info by index"));
        }
        for srow in &cli {
            let name = srow["session_name"].as_str();
            let w = ok_typed(&servers, WindowArgs::in_session(name)).await;
            let row = cli_display(&server, &format!("={name}:"), &wv);
            assert_eq!(row["window_active"], "1");
            assert_same(
                &w,
                &row,
                WINDOW_MAP,
                &[],
                &ctx("get_window_info by session"),
            );
        }

        // list_panes: all, per session, per window (id and index)
        let pm = pane_map();
        let pv = vars(&pm);
        let panes = ok_typed(&servers, ListPanesArgs::default()).await;
        let panes = panes["result"].as_array().unwrap().clone();
        let cli_panes = cli_list(&server, &["list-panes", "-a"], &pv);
        assert_eq!(panes.len(), 11, "{}", ctx("pane count"));
        assert_eq!(panes.len(), cli_panes.len());
        for (p, row) in panes.iter().zip(&cli_panes) {
            assert_same(p, row, &pm, &["is_caller"], &ctx("list_panes"));
            assert_eq!(
                p["is_caller"],
                Value::Null,
                "not inside tmux: is_caller null"
            );
        }
        for srow in &cli {
            let name = srow["session_name"].as_str();
            let cli_s = cli_list(
                &server,
                &["list-panes", "-s", "-t", &format!("={name}:")],
                &pv,
            );
            for args in [
                ListPanesArgs::in_session(name),
                ListPanesArgs {
                    session_id: Some(srow["session_id"].clone()),
                    ..Default::default()
                },
            ] {
                let ps = ok_typed(&servers, args.clone()).await;
                let args = arguments(&args);
                let ps = ps["result"].as_array().unwrap().clone();
                assert_eq!(ps.len(), cli_s.len(), "{}", ctx(&format!("{args}")));
                for (p, row) in ps.iter().zip(&cli_s) {
                    assert_same(
                        p,
                        row,
                        &pm,
                        &["is_caller"],
                        &ctx(&format!("list_panes {args}")),
                    );
                }
            }
        }
        for wrow in &cli_all {
            let cli_w = cli_list(&server, &["list-panes", "-t", &wrow["window_id"]], &pv);
            let idx: i64 = wrow["window_index"].parse().unwrap();
            for args in [
                ListPanesArgs {
                    window_id: Some(wrow["window_id"].clone()),
                    ..Default::default()
                },
                ListPanesArgs {
                    session_name: Some(wrow["session_name"].clone()),
                    window_index: Some(idx),
                    ..Default::default()
                },
                ListPanesArgs {
                    session_id: Some(wrow["session_id"].clone()),
                    window_index: Some(idx),
                    ..Default::default()
                },
            ] {
                let ps = ok_typed(&servers, args.clone()).await;
                let args = arguments(&args);
                let ps = ps["result"].as_array().unwrap().clone();
                assert_eq!(ps.len(), cli_w.len(), "{}", ctx(&format!("{args}")));
                for (p, row) in ps.iter().zip(&cli_w) {
                    assert_same(
                        p,
                        row,
                        &pm,
                        &["is_caller"],
                        &ctx(&format!("list_panes {args}")),
                    );
                }
            }
        }
        // get_pane_info for every pane
        for row in &cli_panes {
            let p = ok_typed(
                &servers,
                PaneArgs {
                    pane_id: Some(row["pane_id"].clone()),
                    ..Default::default()
                },
            )
            .await;
            assert_same(&p, row, &pm, &["is_caller"], &ctx("get_pane_info"));
        }

        // get_server_info
        let info = ok_typed(&servers, ServerArgs::default()).await;
        let want = json!({
            "is_alive": true,
            "socket_name": null,
            "socket_path": server.socket.display().to_string(),
            "session_count": 2,
            "version": bin.label,
            "pid": server.server_pid(),
            "imsg_framing": if bin.label == "3.3a" || bin.label == "3.5a" { "old" } else { "new" },
        });
        assert_eq!(info, want, "{}", ctx("get_server_info"));
        assert_eq!(
            server.format("=alpha:", "pid"),
            server.server_pid().to_string()
        );

        // Filters (Django style) on the list tools.
        let f = ok_typed(
            &servers,
            ListPanesArgs {
                filters: Some(json_arg(
                    json!({"session_name": "beta", "window_name__startswith": "th"}),
                )),
                ..Default::default()
            },
        )
        .await;
        let f = f["result"].as_array().unwrap().clone();
        assert_eq!(f.len(), 3, "{}", ctx("filtered panes"));
        // A pane listing leaves the window's name out; the filter still reads it.
        let three = server.format("=beta:three", "window_id");
        assert!(f.iter().all(|p| p["window_id"] == json!(three)), "{f:?}");
        // So a filter on a field left out for its default: history_size 0.
        let empty: Vec<String> =
            cli_list(&server, &["list-panes", "-a"], &["pane_id", "history_size"])
                .into_iter()
                .filter(|r| r["history_size"] == "0")
                .map(|r| r["pane_id"].clone())
                .collect();
        let f = ok_typed(
            &servers,
            ListPanesArgs {
                filters: Some(json_arg(json!({"history_size": 0}))),
                ..Default::default()
            },
        )
        .await;
        let got: Vec<String> = f["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["pane_id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, empty, "{}", ctx("history_size filter"));
        let f = ok_typed(
            &servers,
            ListSessionsArgs {
                filters: Some(json_arg(json!("{\"session_name__in\": [\"beta\"]}"))),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(f["result"].as_array().unwrap().len(), 1);
        let (t, k) = err_typed(
            &servers,
            ListWindowsArgs {
                filters: Some(json_arg(json!({"window_name__bogus": "x"}))),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(k, "InvalidArgument");
        assert!(t.contains("Invalid filter operator 'bogus'"), "{t}");
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_attached_excludes_own_client_from_the_first_call() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("only").start();
        // A fresh handle whose very first call is list_sessions.
        let servers = servers(&server);
        let s = ok_typed(&servers, ListSessionsArgs::default()).await;
        assert_eq!(
            s["result"][0]["session_attached"],
            json!("0"),
            "tmux {}: {s}",
            bin.label
        );
        // tmux itself counts our control clients: the one calls run on, and the mirror's
        // watch of the session (the first call follows every pane).
        assert_eq!(server.format("=only:", "session_attached"), "2");
        let s = ok_typed(&servers, SessionArgs::in_session("only")).await;
        assert_eq!(s["session_attached"], json!("0"));
        // A fresh handle whose first call is get_session_info.
        let servers2 = crate::support::servers(&server);
        let s = ok_typed(&servers2, SessionArgs::in_session("only")).await;
        assert_eq!(
            s["session_attached"],
            json!("0"),
            "tmux {}: no tmuxwire control client counts, the other one's neither",
            bin.label
        );
        assert!(server.is_alive());
    }
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn targets_default_to_the_active_window_and_pane() {
    for bin in tmux_bins() {
        // One session, so "no target" has exactly one meaning.
        let server = TestServer::builder(&bin)
            .session("solo")
            .size(100, 30)
            .start();
        server.tmux_ok(&["new-window", "-d", "-t", "=solo:1"]);
        server.tmux_ok(&["split-window", "-d", "-h", "-t", "=solo:1"]);
        server.tmux_ok(&["split-window", "-d", "-v", "-t", "=solo:1"]);
        wait_for_prompts(&server);
        let w1 = server.format("=solo:1", "window_id");
        let panes1: Vec<String> = server
            .tmux_ok(&["list-panes", "-t", &w1, "-F", "#{pane_id}"])
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(panes1.len(), 3);
        // Make window 1 current and its second pane active (neither is the first).
        server.tmux_ok(&["select-window", "-t", &w1]);
        server.tmux_ok(&["select-pane", "-t", &panes1[1]]);
        let active = server.format("=solo:", "pane_id");
        assert_eq!(active, panes1[1]);
        let first = server.format("=solo:0.0", "pane_id");
        assert_ne!(active, first);

        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let solo = Target {
            session_name: Some("solo".into()),
            ..Default::default()
        };
        for t in [
            Target::default(),
            solo.clone(),
            Target {
                session_id: Some(server.format("=solo:", "session_id")),
                ..Default::default()
            },
            Target {
                window_id: Some(w1.clone()),
                ..Default::default()
            },
        ] {
            let p = ok_typed(&servers, PaneArgs::at(&t)).await;
            assert_eq!(p["pane_id"], json!(active), "{ctx}: get_pane_info {t:?}");
            assert_eq!(p["pane_active"], json!("1"));
            let c = ok_typed(&servers, CapturePaneArgs::at(&t)).await;
            assert_eq!(c["pane_id"], json!(active), "{ctx}: capture_pane {t:?}");
            let s = ok_typed(&servers, SnapshotPaneArgs::at(&t)).await;
            assert_eq!(s["pane_id"], json!(active), "{ctx}: snapshot_pane {t:?}");
            let dargs = DisplayMessageArgs {
                format_string: "#{pane_id}".into(),
                ..DisplayMessageArgs::at(&t)
            };
            let d = ok_typed(&servers, dargs).await;
            assert_eq!(d["result"], json!(active), "{ctx}: display_message {t:?}");
        }
        for t in [Target::default(), solo] {
            let w = ok_typed(&servers, WindowArgs::at(&t)).await;
            assert_eq!(w["window_id"], json!(w1), "{ctx}: get_window_info {t:?}");
            assert_eq!(w["active_pane_id"], json!(active));
        }
        let s = ok_typed(&servers, SessionArgs::default()).await;
        assert_eq!(s["session_name"], json!("solo"));
        assert_eq!(s["active_pane_id"], json!(active));

        // A window that is not current: its own active pane.
        let w0 = server.format("=solo:0", "window_id");
        let p = ok_typed(
            &servers,
            PaneArgs {
                window_id: Some(w0.to_string()),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(p["pane_id"], json!(first), "{ctx}");

        // Change the active pane again: the default follows.
        server.tmux_ok(&["select-pane", "-t", &panes1[2]]);
        let p = ok_typed(&servers, PaneArgs::default()).await;
        assert_eq!(p["pane_id"], json!(panes1[2]), "{ctx}: after select-pane");
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_name_targets_match_exactly() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("build-x").start();
        server.tmux_ok(&["new-session", "-d", "-s", "other", "-x", "80", "-y", "24"]);
        wait_for_prompts(&server);
        // tmux's own -t build would pick build-x (prefix match): the trap we avoid.
        assert_eq!(
            server.format("build", "session_name"),
            "build-x",
            "tmux {}: -t build is a prefix match",
            bin.label
        );
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        // The tools whose target is checked by the command itself (see
        // missing_targets_are_not_found_in_info_tools_and_display_message for the others).
        let calls = [
            named(ListWindowsArgs::in_session("build")),
            named(ListPanesArgs::in_session("build")),
            named(ListPanesArgs {
                session_name: Some("build".into()),
                window_index: Some(0),
                ..Default::default()
            }),
            named(CapturePaneArgs::in_session("build")),
            named(SnapshotPaneArgs::in_session("build")),
            named(SearchPanesArgs {
                session_name: Some("build".into()),
                pattern: "$".into(),
                ..Default::default()
            }),
        ];
        for (tool, args) in &calls {
            let (t, k) = err(&servers, tool, args.clone()).await;
            assert_eq!(k, "NotFound", "{ctx}: {tool} {args}: {t}");
            assert!(!t.contains("build-x"), "{ctx}: {tool}: {t}");
        }
        // The exact name works, and an exact "build" (added now) is not confused with it.
        let s = ok_typed(&servers, SessionArgs::in_session("build-x")).await;
        assert_eq!(s["session_name"], json!("build-x"));
        server.tmux_ok(&["new-session", "-d", "-s", "build", "-x", "80", "-y", "24"]);
        let s = ok_typed(&servers, SessionArgs::in_session("build")).await;
        assert_eq!(s["session_name"], json!("build"), "{ctx}");
        let p = ok_typed(&servers, PaneArgs::in_session("build")).await;
        assert_eq!(p["session_name"], json!("build"), "{ctx}");
        let w = ok_typed(&servers, ListWindowsArgs::in_session("build")).await;
        assert!(
            w["result"]
                .as_array()
                .unwrap()
                .iter()
                .all(|w| w["session_name"] == "build"),
            "{ctx}: {w}"
        );
        assert!(server.is_alive());
    }
}

// ---------------------------------------------------------------------------------------------
// capture_pane / snapshot_pane
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_pane_matches_capture_pane_p() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("cap")
            .size(60, 20)
            .history_limit(5000)
            .start();
        let pane = server.format("=cap:", "pane_id");
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);

        // A few lines, screen mostly empty: trailing empty rows are dropped.
        server.run_in_pane(&pane, "echo first; echo 'é ü 日本'; echo last");
        let want = cli_rows(&server, &pane, &[]);
        assert!(want.len() < 20, "{ctx}: the screen is not full yet");
        let r = call_typed(&servers, CapturePaneArgs::on(&pane)).await;
        let c = r["structuredContent"].clone();
        assert_eq!(result_text(&r), want.join("\n"), "{ctx}: visible screen");
        assert_eq!(c["result"], json!(want.join("\n")));
        assert_eq!(c["pane_id"], json!(pane));
        assert_eq!(c["lines"], json!(want.len()));
        // Defaults are left out: nothing cut, no mode, the normal screen.
        for k in ["truncated_lines", "pane_in_mode", "alternate_on", "next"] {
            assert!(c.get(k).is_none(), "{k}: {c}");
        }
        assert!(!result_text(&r).ends_with('\n'));

        // Much more output: history, start/end, max_lines.
        server.run_in_pane(&pane, "seq 1 800");
        let want = cli_rows(&server, &pane, &[]);
        assert_eq!(want.len(), 20, "{ctx}: a full screen");
        let c = ok_typed(&servers, CapturePaneArgs::on(&pane)).await;
        assert_eq!(c["result"], json!(want.join("\n")), "{ctx}");

        for (start, end) in [(-30, 5), (-1, -1), (0, 0), (-5000, 19), (3, 10), (-10, -20)] {
            let want = cli_rows(
                &server,
                &pane,
                &["-S", &start.to_string(), "-E", &end.to_string()],
            );
            let c = ok_typed(
                &servers,
                CapturePaneArgs {
                    start: Some(start),
                    end: Some(end),
                    max_lines: None,
                    ..CapturePaneArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(
                c["result"],
                json!(want.join("\n")),
                "{ctx}: start {start} end {end}"
            );
        }
        // start only / end only.
        let want = cli_rows(&server, &pane, &["-S", "-100"]);
        let c = ok_typed(
            &servers,
            CapturePaneArgs {
                start: Some(-100),
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(c["result"], json!(want.join("\n")), "{ctx}: start only");
        let want = cli_rows(&server, &pane, &["-E", "4"]);
        let c = ok_typed(
            &servers,
            CapturePaneArgs {
                end: Some(4),
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(c["result"], json!(want.join("\n")), "{ctx}: end only");

        // max_lines: default 500 keeps the newest 500 with the header.
        let all = cli_rows(&server, &pane, &["-S", "-5000"]);
        assert!(all.len() > 800, "{ctx}: {} rows", all.len());
        let r = call_typed(
            &servers,
            CapturePaneArgs {
                start: Some(-5000),
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        let k = all.len() - 500;
        let want = format!("[... truncated {k} lines ...]\n{}", all[k..].join("\n"));
        assert_eq!(result_text(&r), want, "{ctx}: default max_lines 500");
        assert_eq!(r["structuredContent"]["lines"], json!(500));
        assert_eq!(r["structuredContent"]["truncated_lines"], json!(k));
        // next: the arguments that return the lines cut, the previous 500.
        let next = r["structuredContent"]["next"].clone();
        assert_eq!(next["pane_id"], json!(pane), "{ctx}: {next}");
        assert_eq!(next["max_lines"], json!(500), "{ctx}: {next}");
        let c = ok(&servers, "capture_pane", next.clone()).await;
        let older = &all[k.saturating_sub(500)..k];
        assert_eq!(
            c["result"]
                .as_str()
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with("[... truncated"))
                .collect::<Vec<_>>(),
            older,
            "{ctx}: next {next}"
        );
        for n in [1usize, 7, 499] {
            let r = call_typed(
                &servers,
                CapturePaneArgs {
                    start: Some(-5000),
                    max_lines: Some(n as i64),
                    ..CapturePaneArgs::on(&pane)
                },
            )
            .await;
            let k = all.len() - n;
            let want = format!("[... truncated {k} lines ...]\n{}", all[k..].join("\n"));
            assert_eq!(result_text(&r), want, "{ctx}: max_lines {n}");
        }
        // max_lines ≥ the line count: no header.
        let r = call_typed(
            &servers,
            CapturePaneArgs {
                start: Some(-5000),
                max_lines: Some(all.len() as i64),
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(result_text(&r), all.join("\n"), "{ctx}: max_lines = count");
        assert_eq!(
            r["structuredContent"]["next"],
            json!(null),
            "{ctx}: nothing cut"
        );
        // null: everything.
        let r = call_typed(
            &servers,
            CapturePaneArgs {
                start: Some(-5000),
                max_lines: None,
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(result_text(&r), all.join("\n"), "{ctx}: max_lines null");
        // Nothing cut: truncated_lines (0) is left out.
        assert_eq!(r["structuredContent"].get("truncated_lines"), None, "{ctx}");
        // 0 and negative: refused (the reference returned everything plus a wrong header).
        for bad in [0, -1, -3] {
            let (t, k) = err_typed(
                &servers,
                CapturePaneArgs {
                    max_lines: Some(bad),
                    ..CapturePaneArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(k, "InvalidArgument", "{ctx}: max_lines {bad}: {t}");
            assert!(t.contains("max_lines"), "{t}");
        }

        // join_wrapped: equals capture-pane -J with trailing blanks trimmed.
        server.run_in_pane(
            &pane,
            "printf 'WR%sAP%s\\n' '' \"$(printf 'z%.0s' $(seq 1 130))\"",
        );
        let joined: Vec<String> = cli_rows(&server, &pane, &["-J"])
            .iter()
            .map(|l| l.trim_end().to_string())
            .collect();
        let c = ok_typed(
            &servers,
            CapturePaneArgs {
                join_wrapped: true,
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(c["result"], json!(joined.join("\n")), "{ctx}: join_wrapped");
        assert!(
            joined
                .iter()
                .any(|l| l.starts_with("WRAPzzz") && l.len() == 134),
            "{ctx}: {joined:?}"
        );
        let c = ok_typed(&servers, CapturePaneArgs::on(&pane)).await;
        let rows = cli_rows(&server, &pane, &[]);
        assert_eq!(c["result"], json!(rows.join("\n")), "{ctx}: unjoined");

        // copy mode shows in the metadata; the text is still the live screen.
        server.tmux_ok(&["copy-mode", "-t", &pane]);
        server.tmux_ok(&["send-keys", "-t", &pane, "-X", "-N", "3", "scroll-up"]);
        let c = ok_typed(&servers, CapturePaneArgs::on(&pane)).await;
        assert_eq!(c["pane_in_mode"], json!(true), "{ctx}");
        assert_eq!(c["pane_mode"], json!("copy-mode"));
        assert_eq!(
            tmux_text(&c["scroll_position"]),
            server.format(&pane, "scroll_position"),
            "{ctx}"
        );
        // Always the live screen: view is left out.
        assert_eq!(c.get("view"), None, "{ctx}: {c}");
        assert!(server.is_alive());
    }
}

/// grep (with context), head and tail as `get_command_output` keeps lines: the reference for
/// the tests of shaped captures.
fn shaped(
    rows: &[String],
    grep: Option<&str>,
    context: usize,
    head: Option<usize>,
    tail: Option<usize>,
) -> Vec<String> {
    let mut keep = vec![grep.is_none(); rows.len()];
    if let Some(g) = grep {
        for (i, r) in rows.iter().enumerate() {
            if r.contains(g) {
                for k in keep
                    .iter_mut()
                    .take((i + context + 1).min(rows.len()))
                    .skip(i.saturating_sub(context))
                {
                    *k = true;
                }
            }
        }
    }
    let mut out: Vec<String> = rows
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(r, _)| r.clone())
        .collect();
    if let Some(h) = head {
        if let Some(t) = tail {
            if h + t < out.len() {
                out.drain(h..out.len() - t);
            }
        } else {
            out.truncate(h);
        }
    } else if let Some(t) = tail {
        let n = out.len().saturating_sub(t);
        out.drain(..n);
    }
    out
}

/// capture_pane's grep (with context), head and tail keep the lines of the range that
/// get_command_output's would, tmux's own rows as the text, before max_lines and the budget;
/// lines_omitted counts the rest; a cut says how to get the lines cut (`next`, grep kept), and
/// capture_since's returns the new lines shaped the same way, its cursor past them all. From
/// the mirror's copy and from tmux alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_pane_and_capture_since_shape_lines() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("shape")
            .size(80, 20)
            .history_limit(5000)
            .start();
        let pane = server.format("=shape:", "pane_id");
        let ctx = format!("tmux {}", bin.label);
        let since = ok_typed(&servers(&server), CaptureSinceArgs::on(&pane)).await;
        server.run_in_pane(
            &pane,
            "i=0; while [ $i -lt 400 ]; do i=$((i+1)); \
             if [ $((i % 50)) = 0 ]; then echo E\"\"RR-$i; else echo ok-$i; fi; done",
        );
        let rows = cli_rows(&server, &pane, &["-S", "-5000"]);
        for servers in [servers(&server), capture_servers(&server)] {
            let all = CapturePaneArgs {
                start: Some(-5000),
                max_lines: None,
                ..CapturePaneArgs::on(&pane)
            };
            for (grep, context, head, tail) in [
                (Some("ERR-"), 0, None, None),
                (Some("ERR-"), 2, None, None),
                (Some("ERR-"), 1, Some(4), None),
                (None, 0, None, Some(3)),
                (None, 0, Some(2), Some(2)),
                (Some("no such text"), 3, None, None),
            ] {
                let want = shaped(&rows, grep, context, head, tail);
                let r = ok_typed(
                    &servers,
                    CapturePaneArgs {
                        grep: grep.map(String::from),
                        context: Some(context as i64),
                        head: head.map(|n| n as i64),
                        tail: tail.map(|n| n as i64),
                        ..all.clone()
                    },
                )
                .await;
                assert_eq!(
                    r["result"],
                    json!(want.join("\n")),
                    "{ctx}: {grep:?} {context} {head:?} {tail:?}"
                );
                assert_eq!(
                    r.get("lines_omitted").and_then(Value::as_u64).unwrap_or(0) as usize,
                    rows.len() - want.len(),
                    "{ctx}: {r}"
                );
                assert_eq!(r.get("truncated_lines"), None, "{ctx}: {r}");
            }
            // max_lines cuts the shaped lines; next returns those cut (and at most `context`
            // of those returned again).
            let want = shaped(&rows, Some("ERR-"), 1, None, None);
            let r = ok_typed(
                &servers,
                CapturePaneArgs {
                    grep: Some("ERR-".into()),
                    context: Some(1),
                    max_lines: Some(5),
                    ..all.clone()
                },
            )
            .await;
            let k = want.len() - 5;
            assert_eq!(
                r["result"],
                json!(format!(
                    "[... truncated {k} lines ...]\n{}",
                    want[k..].join("\n")
                )),
                "{ctx}: {r}"
            );
            assert_eq!(r["truncated_lines"], json!(k), "{ctx}");
            let next = r["next"].clone();
            assert_eq!(next["grep"], json!("ERR-"), "{ctx}: {next}");
            assert_eq!(next["context"], json!(1), "{ctx}: {next}");
            let mut next_all = next.clone();
            next_all["max_lines"] = Value::Null;
            let older = ok(&servers, "capture_pane", next_all).await;
            let got: Vec<&str> = older["result"].as_str().unwrap().lines().collect();
            assert!(
                got.len() >= k && got.len() <= k + 1 && got[..k] == want[..k],
                "{ctx}: {got:?} vs {:?}",
                &want[..k]
            );
            // Bad shapes are refused naming the argument.
            for (bad, arg) in [
                (
                    CapturePaneArgs {
                        context: Some(101),
                        ..all.clone()
                    },
                    "context",
                ),
                (
                    CapturePaneArgs {
                        head: Some(-1),
                        ..all.clone()
                    },
                    "head",
                ),
            ] {
                let (t, kind) = err_typed(&servers, bad).await;
                assert!(kind == "InvalidArgument" && t.contains(arg), "{ctx}: {t}");
            }
        }
        // capture_since: the new lines (the typed line, 400 lines, the prompt's line once
        // complete) shaped; the cursor moves past them all.
        let s = servers(&server);
        let r = ok_typed(
            &s,
            CaptureSinceArgs {
                cursor: since["cursor"].as_str().map(String::from),
                grep: Some("ERR-".into()),
                max_lines: None,
                max_bytes: None,
                ..Default::default()
            },
        )
        .await;
        let got: Vec<String> = r["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        let errs: Vec<String> = (1..=8).map(|i| format!("ERR-{}", i * 50)).collect();
        assert_eq!(got, errs, "{ctx}: {r}");
        assert!(r["lines_omitted"].as_u64().unwrap() >= 392, "{ctx}: {r}");
        let again = ok_typed(
            &s,
            CaptureSinceArgs {
                cursor: r["cursor"].as_str().map(String::from),
                grep: Some("ERR-".into()),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(again["lines"], json!([]), "{ctx}: nothing twice: {again}");
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_pane_fields_match_tmux() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("snap")
            .size(70, 15)
            .history_limit(3000)
            .start();
        server.tmux_ok(&["split-window", "-d", "-v", "-t", "=snap:0"]);
        wait_for_prompts(&server);
        let pane = server.format("=snap:0.0", "pane_id");
        server.run_in_pane(&pane, "seq 1 60; printf 'no newline at end'");
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let sm = snapshot_map();
        let sv = vars(&sm);

        let s = ok_typed(&servers, SnapshotPaneArgs::on(&pane)).await;
        let row = cli_display(&server, &pane, &sv);
        assert_same(&s, &row, &sm, SNAPSHOT_EXTRA, &format!("{ctx}: snapshot"));
        let rows = cli_rows(&server, &pane, &[]);
        assert_eq!(s["content"], json!(rows.join("\n")), "{ctx}: content");
        assert_eq!(s["pane_in_mode"], json!(false));
        assert_eq!(s["pane_mode"], Value::Null);
        assert_eq!(s["scroll_position"], Value::Null);
        assert!(s["history_size"].as_i64().unwrap() > 0, "{ctx}: {s}");
        assert_eq!(s["history_limit"], json!(3000));
        assert_eq!(s["pane_dead"], json!(false));
        assert_eq!(s["alternate_on"], json!(false));
        assert_eq!(s["content_truncated"], json!(false));
        assert_eq!(s["content_truncated_lines"], json!(0));
        // Always the live screen: content_view is left out.
        assert_eq!(s.get("content_view"), None, "{ctx}");
        assert_eq!(s["is_caller"], Value::Null);
        // The cursor sits on the prompt line, after "$ ".
        let cy = s["cursor_y"].as_u64().unwrap() as usize;
        assert!(
            rows[cy].starts_with('$'),
            "{ctx}: cursor row {cy}: {rows:?}"
        );

        // max_lines keeps the newest lines; truncation only in the fields.
        let s = ok_typed(
            &servers,
            SnapshotPaneArgs {
                max_lines: Some(4),
                ..SnapshotPaneArgs::on(&pane)
            },
        )
        .await;
        let k = rows.len() - 4;
        assert_eq!(s["content"], json!(rows[k..].join("\n")), "{ctx}");
        assert_eq!(s["content_truncated"], json!(true));
        assert_eq!(s["content_truncated_lines"], json!(k));
        // next: the capture_pane arguments that return the rows cut.
        let next = s["next"].clone();
        assert_eq!(
            next,
            json!({"pane_id": pane, "start": 0, "end": k - 1, "max_lines": k}),
            "{ctx}"
        );
        // `next` goes back as the tool sent it (JSON: a client's round trip).
        let c = ok(&servers, "capture_pane", next).await;
        assert_eq!(c["result"], json!(rows[..k].join("\n")), "{ctx}: next");
        for bad in [0, -2] {
            let (t, k) = err_typed(
                &servers,
                SnapshotPaneArgs {
                    max_lines: Some(bad),
                    ..SnapshotPaneArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(k, "InvalidArgument", "{ctx}: {t}");
        }

        // Copy mode, scrolled up: pane_in_mode, pane_mode, scroll_position as tmux says.
        server.tmux_ok(&["copy-mode", "-t", &pane]);
        server.tmux_ok(&["send-keys", "-t", &pane, "-X", "-N", "5", "scroll-up"]);
        wait_until_true("scroll_position 5", DEADLINE, || {
            server.format(&pane, "scroll_position") == "5"
        });
        let s = ok_typed(&servers, SnapshotPaneArgs::on(&pane)).await;
        let row = cli_display(&server, &pane, &sv);
        assert_same(&s, &row, &sm, SNAPSHOT_EXTRA, &format!("{ctx}: copy mode"));
        assert_eq!(s["pane_in_mode"], json!(true));
        assert_eq!(s["pane_mode"], json!("copy-mode"));
        assert_eq!(s["scroll_position"], json!(5));
        // The content is the live screen, not the scrolled view.
        assert_eq!(s["content"], json!(rows.join("\n")), "{ctx}: live content");
        server.tmux_ok(&["send-keys", "-t", &pane, "-X", "cancel"]);

        // The other pane (no history yet), and the alternate screen.
        let other = server.format("=snap:0.1", "pane_id");
        let s = ok_typed(&servers, SnapshotPaneArgs::on(&other)).await;
        let row = cli_display(&server, &other, &sv);
        assert_same(&s, &row, &sm, SNAPSHOT_EXTRA, &format!("{ctx}: other pane"));
        server.tmux_ok(&[
            "send-keys",
            "-t",
            &other,
            "-l",
            "printf '\\033[?1049h'; printf ALT%sSCREEN X",
        ]);
        server.tmux_ok(&["send-keys", "-t", &other, "Enter"]);
        wait_until_true("alternate screen", DEADLINE, || {
            server.format(&other, "alternate_on") == "1"
                && server.capture(&other, &[]).contains("ALTXSCREEN")
        });
        let s = ok_typed(&servers, SnapshotPaneArgs::on(&other)).await;
        let row = cli_display(&server, &other, &sv);
        assert_same(&s, &row, &sm, SNAPSHOT_EXTRA, &format!("{ctx}: alternate"));
        assert_eq!(s["alternate_on"], json!(true));
        assert_eq!(
            s["content"],
            json!(cli_rows(&server, &other, &[]).join("\n")),
            "{ctx}"
        );
        assert!(server.is_alive());
    }
}

// ---------------------------------------------------------------------------------------------
// display_message
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn display_message_expands_variables_and_keeps_other_text_literal() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("disp").start();
        server.tmux_ok(&["new-window", "-d", "-n", "second", "-t", "=disp:1"]);
        wait_for_prompts(&server);
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let pane = server.format("=disp:1", "pane_id");

        let d = |fs: &str| DisplayMessageArgs {
            format_string: fs.into(),
            ..DisplayMessageArgs::on(&pane)
        };
        let got = ok_typed(&servers, d("#{pane_id} #{session_name}")).await;
        let cli = server.tmux_ok(&[
            "display-message",
            "-p",
            "-t",
            &pane,
            "#{pane_id} #{session_name}",
        ]);
        assert_eq!(got["result"], json!(cli.trim_end()), "{ctx}");
        assert_eq!(got["result"], json!(format!("{pane} disp")));
        let r = call_typed(&servers, d("#{window_name}:#{window_index}")).await;
        assert_eq!(result_text(&r), "second:1", "{ctx}: text content");

        // Literal text stays literal: % (tmux would strftime it), quotes, UTF-8, ; and $.
        for (fs, want) in [
            ("100%", "100%".to_string()),
            ("100% #{pane_id}", format!("100% {pane}")),
            ("%H:%M %% %s", "%H:%M %% %s".to_string()),
            (
                "it's \"q\" ; $HOME ~ {x}",
                "it's \"q\" ; $HOME ~ {x}".to_string(),
            ),
            ("é ü 日本 #{session_name}", "é ü 日本 disp".to_string()),
            ("a#{no_such_variable_x}b", "ab".to_string()),
            ("", String::new()),
        ] {
            let got = ok_typed(&servers, d(fs)).await;
            assert_eq!(got["result"], json!(want), "{ctx}: {fs:?}");
        }

        // Any other '#' is literal text: jobs never run.
        for fs in [
            "#(id)",
            "##",
            "x#",
            "issue #42",
            "#(touch /tmp/tmuxwire-never)",
        ] {
            let got = ok_typed(&servers, d(fs)).await;
            assert_eq!(got["result"], json!(fs), "{ctx}: {fs:?}");
        }
        assert!(!std::path::Path::new("/tmp/tmuxwire-never").exists());
        // Other #{...} syntax is refused before tmux sees it.
        for fs in [
            "#{E:pane_id}",
            "#{?pane_active,a,b}",
            "#{s/a/b/:pane_id}",
            "#{pane_id",
        ] {
            let (t, k) = err_typed(&servers, d(fs)).await;
            assert_eq!(k, "InvalidArgument", "{ctx}: {fs:?}: {t}");
            assert!(t.contains("format_string"), "{t}");
        }
        // Missing format_string (JSON: no struct leaves it out).
        let (_, k) = err(&servers, "display_message", json!({"pane_id": pane})).await;
        assert_eq!(k, "InvalidArgument");
        assert!(server.is_alive());
    }
}

// ---------------------------------------------------------------------------------------------
// search_panes
// ---------------------------------------------------------------------------------------------

/// Checks that a match's line numbers are real tmux line numbers: capturing `-J -S n -E
/// n+rows-1` gives back the matched line.
fn assert_line_numbers_real(server: &TestServer, m: &Value, ctx: &str) {
    let pane = m["pane_id"].as_str().unwrap();
    let lines = str_list(&m["matched_lines"]);
    let nums: Vec<i64> = m["matched_line_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    // Left out when every line spans one row.
    let rows: Vec<i64> = match m.get("matched_line_rows") {
        None => vec![1; lines.len()],
        Some(r) => r
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect(),
    };
    assert_eq!(lines.len(), nums.len(), "{ctx}: {m}");
    assert_eq!(lines.len(), rows.len(), "{ctx}: {m}");
    for ((line, n), r) in lines.iter().zip(&nums).zip(&rows) {
        assert!(*r >= 1);
        let first = server.capture(pane, &["-J", "-S", &n.to_string(), "-E", &n.to_string()]);
        assert!(
            line.starts_with(first.trim_end_matches('\n').trim_end()),
            "{ctx}: line {n} of {pane} is {first:?}, matched {line:?}"
        );
        let all = server.capture(
            pane,
            &["-J", "-S", &n.to_string(), "-E", &(n + r - 1).to_string()],
        );
        assert_eq!(
            all.trim_end_matches('\n').trim_end(),
            line,
            "{ctx}: rows {n}..{} of {pane}",
            n + r - 1
        );
        if *r == 1 {
            assert!(
                first.starts_with(line.as_str()),
                "{ctx}: {first:?} vs {line:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_panes_covers_scrollback_with_real_line_numbers() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("srch")
            .size(100, 30)
            .history_limit(10000)
            .start();
        freeze_window_names(&server);
        server.tmux_ok(&["split-window", "-d", "-h", "-t", "=srch:0"]);
        wait_for_prompts(&server);
        let p0 = server.format("=srch:0.0", "pane_id");
        let p1 = server.format("=srch:0.1", "pane_id");
        let width: usize = server.format(&p1, "pane_width").parse().unwrap();
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);

        // A needle scrolled far into history (the typed text does not contain it).
        server.run_in_pane(&p0, "printf 'NEE%sDLE-far\\n' ''; seq 1 3000");
        // A line in p1 that wraps once, and one that fits.
        let long = width + 10;
        server.run_in_pane(
            &p1,
            &format!(
                "printf 'WRAP%sNEE%sDLE-%s\\n' '' '' \"$(printf 'w%.0s' $(seq 1 {}))\"; \
                 printf 'NEE%sDLE-short\\n' ''",
                long - 11
            ),
        );

        let r = ok_typed(&servers, search_for("needle-")).await;
        assert_eq!(r["total_panes_matched"], json!(2), "{ctx}: {r}");
        assert_eq!(r["truncated"], json!(false));
        assert_eq!(r["truncated_panes"], json!([]));
        assert_eq!(r["offset"], json!(0));
        assert_eq!(r["limit"], json!(500));
        let m = r["matches"].as_array().unwrap();
        assert_eq!(m[0]["pane_id"], json!(p0), "{ctx}: tmux's pane order");
        assert_eq!(m[1]["pane_id"], json!(p1));
        assert_eq!(str_list(&m[0]["matched_lines"]), ["NEEDLE-far"], "{ctx}");
        let far = m[0]["matched_line_numbers"][0].as_i64().unwrap();
        assert!(far < -2900, "{ctx}: far into history: {far}");
        // One row each: matched_line_rows is left out.
        assert_eq!(m[0].get("matched_line_rows"), None, "{ctx}");
        assert_eq!(m[0]["matched_line_count"], json!(1));
        assert_line_numbers_real(&server, &m[0], &ctx);
        let l1 = str_list(&m[1]["matched_lines"]);
        assert_eq!(l1.len(), 2, "{ctx}: {l1:?}");
        assert!(
            l1[0].starts_with("WRAPNEEDLE-www") && l1[0].len() == long,
            "{ctx}: {l1:?}"
        );
        assert_eq!(l1[1], "NEEDLE-short");
        assert_eq!(
            m[1]["matched_line_rows"],
            json!([2, 1]),
            "{ctx}: wrapped once"
        );
        assert_line_numbers_real(&server, &m[1], &ctx);
        // PaneContentMatch fields equal tmux's.
        let mv = vars(MATCH_MAP);
        for mm in m {
            let row = cli_display(&server, mm["pane_id"].as_str().unwrap(), &mv);
            assert_same(
                mm,
                &row,
                MATCH_MAP,
                MATCH_EXTRA,
                &format!("{ctx}: match fields"),
            );
        }

        // content_start / content_end narrow the range.
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                content_start: Some(-10),
                ..search_for("NEEDLE-far")
            },
        )
        .await;
        assert_eq!(r["total_panes_matched"], json!(0), "{ctx}: {r}");
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                content_start: Some(far),
                content_end: Some(far),
                ..search_for("NEEDLE-far")
            },
        )
        .await;
        assert_eq!(r["total_panes_matched"], json!(1), "{ctx}: {r}");
        assert_eq!(r["matches"][0]["matched_line_numbers"], json!([far]));
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                content_end: Some(far - 1),
                ..search_for("NEEDLE-far")
            },
        )
        .await;
        assert_eq!(
            r["total_panes_matched"],
            json!(0),
            "{ctx}: end before the line"
        );
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                content_start: Some(far - 5),
                content_end: Some(far + 5),
                ..search_for("NEEDLE-far")
            },
        )
        .await;
        assert_eq!(
            r["matches"][0]["matched_line_numbers"],
            json!([far]),
            "{ctx}"
        );
        assert_line_numbers_real(&server, &r["matches"][0], &ctx);
        // Only the screen: the wrapped needle (near the bottom) is found, the far one not.
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                content_start: Some(0),
                ..search_for("NEEDLE")
            },
        )
        .await;
        assert_eq!(r["total_panes_matched"], json!(1), "{ctx}: {r}");
        assert_eq!(r["matches"][0]["pane_id"], json!(p1));
        assert_line_numbers_real(&server, &r["matches"][0], &ctx);

        // Out-of-range bounds are clamped as tmux clamps them; below INT_MIN is refused.
        let whole = ok_typed(&servers, search_for("NEEDLE-")).await;
        let clamped = ok_typed(
            &servers,
            SearchPanesArgs {
                content_start: Some(-1_000_000),
                content_end: Some(500),
                ..search_for("NEEDLE-")
            },
        )
        .await;
        assert_eq!(clamped, whole, "{ctx}: clamped bounds = the whole range");
        let (t, k) = err_typed(
            &servers,
            SearchPanesArgs {
                content_start: Some(-2_147_483_649_i64),
                ..search_for("x")
            },
        )
        .await;
        assert_eq!(k, "InvalidArgument", "{ctx}: {t}");

        // Case, regex, literal metacharacters.
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                match_case: true,
                ..search_for("needle-far")
            },
        )
        .await;
        assert_eq!(r["total_panes_matched"], json!(0), "{ctx}: match_case");
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                regex: true,
                ..search_for("^NEEDLE-(far|short)$")
            },
        )
        .await;
        assert_eq!(r["total_panes_matched"], json!(2), "{ctx}: regex {r}");
        let r = ok_typed(&servers, search_for("NEEDLE-f.r")).await;
        assert_eq!(
            r["total_panes_matched"],
            json!(0),
            "{ctx}: literal by default"
        );
        let (t, k) = err_typed(
            &servers,
            SearchPanesArgs {
                regex: true,
                ..search_for("(unclosed")
            },
        )
        .await;
        assert_eq!(k, "InvalidPattern", "{ctx}: {t}");

        // Scope by session.
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                session_name: Some("srch".into()),
                ..search_for("NEEDLE-far")
            },
        )
        .await;
        assert_eq!(r["total_panes_matched"], json!(1));
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_panes_pagination_and_per_pane_cap() {
    for bin in tmux_bins() {
        let server = fixture(&bin);
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let panes = all_panes(&server);
        // The token in every pane; 7 numbered lines in one pane.
        for p in &panes {
            server.run_in_pane(p, "printf 'PAGE%sTOK\\n' ''");
        }
        let capped = panes[4].clone();
        server.run_in_pane(
            &capped,
            "for i in 1 2 3 4 5 6 7; do printf 'CAP%sTOK-%s\\n' '' $i; done",
        );
        // Results come in tmux's order, the order list_panes gives.
        assert!(panes.contains(&"%2".to_string()) && panes.contains(&"%10".to_string()));
        let ids = |r: &Value| -> Vec<String> {
            r["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["pane_id"].as_str().unwrap().to_string())
                .collect()
        };

        // Everything on one page (limit null and the default 500): tmux's order.
        for args in [
            SearchPanesArgs {
                limit: None,
                ..search_for("pagetok")
            },
            search_for("pagetok"),
        ] {
            let r = ok_typed(&servers, args).await;
            assert_eq!(ids(&r), panes, "{ctx}: list_panes order");
            assert_eq!(r["total_panes_matched"], json!(11));
            assert_eq!(r["truncated"], json!(false));
            assert_eq!(r["truncated_panes"], json!([]));
        }
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                limit: None,
                ..search_for("pagetok")
            },
        )
        .await;
        assert_eq!(r["limit"], Value::Null);
        for m in r["matches"].as_array().unwrap() {
            assert_line_numbers_real(&server, m, &ctx);
            // Each matched pane's process and directory, read for the
            // page in one listing filtered to its panes, are tmux's.
            assert_process_is_tmuxs(&server, m, &ctx);
        }

        // Pages of 3.
        let mut seen = Vec::new();
        for offset in [0usize, 3, 6, 9, 12, 100] {
            let r = ok_typed(
                &servers,
                SearchPanesArgs {
                    limit: Some(3),
                    offset: offset as i64,
                    ..search_for("PAGETOK")
                },
            )
            .await;
            let page: Vec<String> = panes.iter().skip(offset).take(3).cloned().collect();
            let after: Vec<String> = panes.iter().skip(offset + 3).cloned().collect();
            assert_eq!(ids(&r), page, "{ctx}: page at {offset}");
            // A page's panes have their processes read after the scan.
            for m in r["matches"].as_array().unwrap() {
                assert_process_is_tmuxs(&server, m, &ctx);
            }
            assert_eq!(
                str_list(&r["truncated_panes"]),
                after,
                "{ctx}: truncated_panes are the panes after the page (offset {offset})"
            );
            assert_eq!(r["truncated"], json!(!after.is_empty()), "{ctx}: {offset}");
            assert_eq!(r["total_panes_matched"], json!(11));
            assert_eq!(r["offset"], json!(offset));
            assert_eq!(r["limit"], json!(3));
            seen.extend(page);
        }
        assert_eq!(seen, panes, "{ctx}: the pages cover every pane once");

        // Per-pane cap keeps the newest lines; the count is before the cap.
        let r = ok_typed(
            &servers,
            SearchPanesArgs {
                max_matched_lines_per_pane: 3,
                ..search_for("CAPTOK-")
            },
        )
        .await;
        assert_eq!(ids(&r), std::slice::from_ref(&capped), "{ctx}");
        let m = &r["matches"][0];
        assert_eq!(
            str_list(&m["matched_lines"]),
            ["CAPTOK-5", "CAPTOK-6", "CAPTOK-7"],
            "{ctx}: the newest lines"
        );
        assert_eq!(m["matched_line_count"], json!(7));
        assert_eq!(r["truncated"], json!(true), "{ctx}: the cap sets truncated");
        assert_eq!(r["truncated_panes"], json!([]));
        assert_line_numbers_real(&server, m, &ctx);
        let r = ok_typed(&servers, search_for("CAPTOK-")).await;
        assert_eq!(r["matches"][0]["matched_line_count"], json!(7));
        assert_eq!(str_list(&r["matches"][0]["matched_lines"]).len(), 7);
        assert_eq!(r["truncated"], json!(false));

        // Bad paging arguments are refused (the reference misbehaved on each).
        let x = || search_for("x");
        for args in [
            SearchPanesArgs {
                limit: Some(0),
                ..x()
            },
            SearchPanesArgs {
                limit: Some(-1),
                ..x()
            },
            SearchPanesArgs { offset: -1, ..x() },
            SearchPanesArgs {
                max_matched_lines_per_pane: 0,
                ..x()
            },
            SearchPanesArgs {
                max_matched_lines_per_pane: -5,
                ..x()
            },
        ] {
            let (t, k) = err_typed(&servers, args.clone()).await;
            assert_eq!(k, "InvalidArgument", "{ctx}: {}: {t}", arguments(&args));
        }
        // Strings that are not numbers (JSON: no argument struct holds them).
        for args in [
            json!({"pattern": "x", "limit": "3.5"}),
            json!({"pattern": "x", "limit": "three"}),
        ] {
            let (t, k) = err(&servers, "search_panes", args.clone()).await;
            assert_eq!(k, "InvalidArgument", "{ctx}: {args}: {t}");
        }
        // Numbers given as decimal strings or exact floats are read as numbers (JSON: the
        // types are the point).
        let r = ok(
            &servers,
            "search_panes",
            json!({"pattern": "CAPTOK-", "limit": "3", "offset": 0.0, "regex": "false"}),
        )
        .await;
        assert_eq!(r["limit"], json!(3), "{ctx}");
        assert!(server.is_alive());
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_for_bad_arguments_and_missing_targets() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("errs").start();
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let required = |tool: &str| -> Map<String, Value> {
            let mut m = Map::new();
            match tool {
                "search_panes" => {
                    m.insert("pattern".into(), json!("x"));
                }
                "display_message" => {
                    m.insert("format_string".into(), json!("#{pane_id}"));
                }
                _ => {}
            }
            m
        };
        // Unknown arguments: InvalidArgument, with the wait_for_previous hint.
        for tool in tools::catalog() {
            let tool = tool.name.as_ref();
            let mut a = required(tool);
            a.insert("bogus_argument".into(), json!(1));
            let r = call(&servers, tool, Value::Object(a)).await;
            let (t, k) = assert_error_shape(&r, &format!("{ctx}: {tool}"));
            assert_eq!(k, "InvalidArgument", "{ctx}: {tool}: {t}");
            assert!(t.contains("bogus_argument"), "{ctx}: {tool}: {t}");
            assert_eq!(r["_meta"]["expected"], json!(true));
            let mut a = required(tool);
            a.insert("wait_for_previous".into(), json!(true));
            let r = call(&servers, tool, Value::Object(a)).await;
            let (t, k) = assert_error_shape(&r, &format!("{ctx}: {tool}"));
            assert_eq!(k, "InvalidArgument");
            assert!(t.contains("wait_for_previous"), "{t}");
            assert!(suggestion_of(&r).contains("retry without it"), "{r}");
        }
        // Missing objects: NotFound with a suggestion.
        for (tool, a) in [
            named(CapturePaneArgs::on("%999")),
            named(SnapshotPaneArgs::on("%999")),
        ] {
            let r = call(&servers, tool, a).await;
            let (t, k) = assert_error_shape(&r, &format!("{ctx}: {tool}"));
            assert_eq!(k, "NotFound", "{ctx}: {tool}: {t}");
            assert!(t.contains("%999"), "{ctx}: {tool}: {t}");
            assert!(suggestion_of(&r).contains("list_panes"), "{ctx}: {r}");
            assert_eq!(r["_meta"]["expected"], json!(true));
        }
        for (tool, args) in [
            named(ListPanesArgs {
                window_id: Some("@999".into()),
                ..Default::default()
            }),
            named(ListWindowsArgs {
                session_id: Some("$999".into()),
                ..Default::default()
            }),
            named(ListPanesArgs {
                session_name: Some("errs".into()),
                window_index: Some(77),
                ..Default::default()
            }),
            named(SearchPanesArgs {
                session_id: Some("$999".into()),
                ..search_for("x")
            }),
            named(CapturePaneArgs {
                window_id: Some("@999".into()),
                ..Default::default()
            }),
            named(SnapshotPaneArgs {
                session_id: Some("$999".into()),
                ..Default::default()
            }),
        ] {
            let (t, k) = err(&servers, tool, args.clone()).await;
            assert_eq!(k, "NotFound", "{ctx}: {tool} {args}: {t}");
        }
        // Malformed ids and wrong types: InvalidArgument, nothing sent to tmux.
        for (tool, args) in [
            named(PaneArgs::on("3")),
            named(PaneArgs::on("@3")),
            named(WindowArgs {
                window_id: Some("%1".into()),
                ..Default::default()
            }),
            named(SessionArgs {
                session_id: Some("main".into()),
                ..Default::default()
            }),
            named(SessionArgs::in_session("")),
            named(ListPanesArgs {
                session_name: Some("errs".into()),
                window_index: Some(-1),
                ..Default::default()
            }),
            // Wrong types and missing required arguments: JSON.
            ("capture_pane", json!({"max_lines": "ten"})),
            ("capture_pane", json!({"start": "-"})),
            ("search_panes", json!({})),
            ("display_message", json!({})),
        ] {
            let (t, k) = err(&servers, tool, args.clone()).await;
            assert_eq!(k, "InvalidArgument", "{ctx}: {tool} {args}: {t}");
        }
        // Unknown tool name: an error result, not a panic or a protocol error.
        let r = call(&servers, "no_such_tool", json!({})).await;
        let (t, _) = assert_error_shape(&r, "no_such_tool");
        assert!(t.contains("no_such_tool"), "{t}");
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_on_a_server_without_sessions_and_without_a_server() {
    for bin in tmux_bins() {
        let mut server = TestServer::builder(&bin).session("gone").start();
        server.tmux_ok(&["set", "-g", "exit-empty", "off"]);
        server.tmux_ok(&["kill-session", "-t", "=gone"]);
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let info = ok_typed(&servers, ServerArgs::default()).await;
        assert_eq!(info["is_alive"], json!(true), "{ctx}: {info}");
        assert_eq!(info["session_count"], json!(0));
        assert_eq!(info["version"], json!(bin.label));
        let s = ok_typed(&servers, ListSessionsArgs::default()).await;
        assert_eq!(s["result"], json!([]), "{ctx}");
        let (t, k) = err_typed(&servers, PaneArgs::default()).await;
        assert_eq!(k, "NotFound", "{ctx}: {t}");
        assert!(server.is_alive());

        server.kill();
        let want = format!("no tmux server running on {}", server.socket.display());
        let info = ok_typed(&servers, ServerArgs::default()).await;
        assert_eq!(info["is_alive"], json!(false), "{ctx}: {info}");
        for (tool, a) in [
            named(ListSessionsArgs::default()),
            named(ListPanesArgs::default()),
            named(CapturePaneArgs::default()),
        ] {
            let r = call(&servers, tool, a).await;
            let (t, k) = assert_error_shape(&r, &format!("{ctx}: {tool}"));
            assert_eq!(k, "NoServer", "{ctx}: {tool}: {t}");
            assert!(t.starts_with(&want), "{ctx}: {tool}: {t}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Quoting, odd names, concurrency
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_names_and_paths_round_trip() {
    let session = "it's a #1 \"s\" ;x $HOME ~";
    let window = "w|in \"q\" #{pane_id} 'x' ; é";
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        freeze_window_names(&server);
        // Arguments reach tmux unparsed from the CLI; tmuxwire must quote them itself.
        let out = server.tmux(&["new-session", "-d", "-s", session, "-x", "80", "-y", "24"]);
        if !out.status.success() {
            panic!("new-session: {}", String::from_utf8_lossy(&out.stderr));
        }
        server.tmux_ok(&["kill-session", "-t", "=main"]);
        server.tmux_ok(&["set", "-g", "automatic-rename", "off"]);
        let sid = server
            .tmux_ok(&["list-sessions", "-F", "#{session_id}"])
            .trim()
            .to_string();
        // The name as tmux stored it (3.3a stores `$` as `\$`).
        let stored = server
            .tmux_ok(&["list-sessions", "-F", "#{session_name}"])
            .trim_end()
            .to_string();
        let session = stored.as_str();
        assert!(session.starts_with("it's a #1 \"s\" ;x "), "{session:?}");
        server.tmux_ok(&["rename-window", "-t", &format!("{sid}:"), window]);
        let pane = server.format(&format!("{sid}:"), "pane_id");
        server.wait_for_text(&pane, "$", DEADLINE);
        // rename-window expands formats (#{pane_id}); compare with what tmux stored.
        let stored_window = server.format(&pane, "window_name");
        let window = stored_window.as_str();
        assert!(window.starts_with("w|in \"q\" %"), "{window:?}");
        // A working directory with a space, a line break, the record/field separators
        // tmuxwire uses internally (U+241E, U+241F) and UTF-8.
        let base = tempfile::Builder::new()
            .prefix("tmuxwire-odd-")
            .tempdir_in("/tmp")
            .expect("temp dir");
        let dir = base.path().join("a b\n\u{241f}x\u{241e}y é");
        std::fs::create_dir(&dir).expect("mkdir");
        let quoted = format!("'{}'", dir.display().to_string().replace('\'', "'\\''"));
        server.run_in_pane(
            &pane,
            &format!("cd {quoted}; printf 'lit %s\\n' '#{{pane_id}} }} [x] *?'"),
        );
        wait_until_true("pane_current_path follows cd", DEADLINE, || {
            server.format(&pane, "pane_current_path") == dir.display().to_string()
        });
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);

        let s = ok_typed(&servers, SessionArgs::in_session(session)).await;
        assert_eq!(s["session_name"], json!(session), "{ctx}: {s}");
        assert_eq!(s["session_id"], json!(sid));
        let w = ok_typed(&servers, ListWindowsArgs::in_session(session)).await;
        assert_eq!(w["result"][0]["window_name"], json!(window), "{ctx}: {w}");
        assert_eq!(
            w["result"][0]["window_name"],
            json!(server.format(&pane, "window_name"))
        );
        for p in [
            ok_typed(&servers, PaneArgs::in_session(session)).await,
            ok_typed(&servers, ListPanesArgs::default()).await["result"][0].clone(),
        ] {
            assert_eq!(p["pane_id"], json!(pane), "{ctx}: {p}");
            // tmuxwire's record separators and the line break come back
            // exactly (public case C23), and no other field moves.
            let want = dir.display().to_string();
            assert_eq!(
                p["pane_current_path"],
                json!(want),
                "{ctx}: path with separators and a line break"
            );
            assert_eq!(p["session_name"], json!(session));
            // The window's name is list_windows' (above), not a pane listing's.
            assert_eq!(p.get("window_name"), None, "{ctx}: {p}");
        }
        let sn = ok_typed(&servers, SnapshotPaneArgs::in_session(session)).await;
        let want = dir.display().to_string();
        assert_eq!(sn["pane_current_path"], json!(want), "{ctx}");

        // display_message with a line break: same as the CLI.
        let fs = "a\nb #{pane_current_path}";
        let d = ok_typed(
            &servers,
            DisplayMessageArgs {
                format_string: fs.to_string(),
                ..DisplayMessageArgs::on(&pane)
            },
        )
        .await;
        let cli = server.tmux_ok(&["display-message", "-p", "-t", &pane, fs]);
        assert_eq!(d["result"], json!(cli.strip_suffix('\n').unwrap()), "{ctx}");

        // A literal pattern with tmux format and glob characters.
        let r = ok_typed(&servers, search_for("lit #{pane_id} } [x] *?")).await;
        let lines = str_list(&r["matches"][0]["matched_lines"]);
        assert!(
            lines.contains(&"lit #{pane_id} } [x] *?".to_string()),
            "{ctx}: {lines:?}"
        );
        assert_line_numbers_real(&server, &r["matches"][0], &ctx);
        // A match names its window as tmux stored it.
        assert_eq!(r["matches"][0]["window_name"], json!(window), "{ctx}");
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_tool_calls_get_their_own_answers() {
    for bin in tmux_bins() {
        let server = fixture(&bin);
        let servers = servers(&server);
        let panes = all_panes(&server);
        for p in &panes {
            server.run_in_pane(p, &format!("printf 'ID%s-%s\\n' '' '{p}'"));
        }
        let ctx = format!("tmux {}", bin.label);
        let futs = (0..120).map(|i| {
            let servers = servers.clone();
            let p = panes[i % panes.len()].clone();
            async move {
                let r = match i % 4 {
                    0 => {
                        call_typed(
                            &servers,
                            DisplayMessageArgs {
                                format_string: "#{pane_id}".into(),
                                ..DisplayMessageArgs::on(&p)
                            },
                        )
                        .await
                    }
                    1 => call_typed(&servers, PaneArgs::on(&p)).await,
                    2 => call_typed(&servers, CapturePaneArgs::on(&p)).await,
                    _ => call_typed(&servers, search_for(&format!("ID-{p}"))).await,
                };
                (i, p, r)
            }
        });
        let results = within("120 concurrent tool calls", futures::future::join_all(futs)).await;
        for (i, p, r) in results {
            assert_ne!(
                r["isError"],
                json!(true),
                "{ctx}: call {i}: {}",
                text_of(&r)
            );
            let sc = &r["structuredContent"];
            match i % 4 {
                0 => assert_eq!(sc["result"], json!(p), "{ctx}: call {i}"),
                1 => assert_eq!(sc["pane_id"], json!(p), "{ctx}: call {i}"),
                2 => {
                    assert_eq!(sc["pane_id"], json!(p), "{ctx}: call {i}");
                    assert!(
                        sc["result"].as_str().unwrap().contains(&format!("ID-{p}")),
                        "{ctx}: call {i}: {sc}"
                    );
                }
                _ => {
                    // "ID-%1" is also a prefix of "ID-%10": compare exact lines.
                    let hits: Vec<String> = sc["matches"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|m| str_list(&m["matched_lines"]).contains(&format!("ID-{p}")))
                        .map(|m| m["pane_id"].as_str().unwrap().to_string())
                        .collect();
                    assert_eq!(hits, std::slice::from_ref(&p), "{ctx}: call {i}: {sc}");
                }
            }
        }
        assert!(server.is_alive());
    }
}

// ---------------------------------------------------------------------------------------------
// Bugs found by these tests (ignored until fixed; each must fail while its bug exists)
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn missing_targets_are_not_found_in_info_tools_and_display_message() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("build-x").start();
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        let mut failures = Vec::new();
        for (tool, args) in [
            named(PaneArgs::on("%999")),
            named(PaneArgs {
                window_id: Some("@999".into()),
                ..Default::default()
            }),
            named(PaneArgs {
                session_id: Some("$999".into()),
                ..Default::default()
            }),
            named(PaneArgs::in_session("build")),
            named(WindowArgs {
                window_id: Some("@999".into()),
                ..Default::default()
            }),
            named(WindowArgs::in_session("build")),
            named(WindowArgs {
                session_name: Some("build".into()),
                window_index: Some(0),
                ..Default::default()
            }),
            named(SessionArgs {
                session_id: Some("$999".into()),
                ..Default::default()
            }),
            named(SessionArgs::in_session("build")),
            named(DisplayMessageArgs {
                format_string: "#{pane_id}".into(),
                ..DisplayMessageArgs::on("%999")
            }),
            named(DisplayMessageArgs {
                session_name: Some("build".into()),
                format_string: "#{session_name}".into(),
                ..Default::default()
            }),
        ] {
            let r = call(&servers, tool, args.clone()).await;
            if r["isError"] != json!(true) || r["_meta"]["error_type"] != json!("NotFound") {
                failures.push(format!("{tool} {args} -> {}", text_of(&r)));
            } else {
                assert!(!text_of(&r).contains("build-x"));
                assert!(suggestion_of(&r).contains("list_"), "{r}");
            }
        }
        assert!(
            failures.is_empty(),
            "{ctx}: missing targets must be NotFound errors, got:\n{}",
            failures.join("\n")
        );
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn window_index_out_of_range_is_not_found() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("idx").start();
        let servers = servers(&server);
        let current = server.format("=idx:", "window_id");
        let r = call_typed(
            &servers,
            WindowArgs {
                session_name: Some("idx".into()),
                window_index: Some(77),
                ..Default::default()
            },
        )
        .await;
        assert_eq!(
            r["isError"],
            json!(true),
            "tmux {}: window 77 does not exist, but got window {} (the current one is {current})",
            bin.label,
            r["structuredContent"]["window_id"]
        );
        assert_eq!(r["_meta"]["error_type"], json!("NotFound"));
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn listings_on_a_server_without_sessions_are_empty() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("gone").start();
        server.tmux_ok(&["set", "-g", "exit-empty", "off"]);
        server.tmux_ok(&["kill-session", "-t", "=gone"]);
        let servers = servers(&server);
        let ctx = format!("tmux {}", bin.label);
        // list_sessions already answers [] here; the other listings should agree.
        let s = ok_typed(&servers, ListSessionsArgs::default()).await;
        assert_eq!(s["result"], json!([]), "{ctx}");
        let w = ok_typed(&servers, ListWindowsArgs::default()).await;
        assert_eq!(w["result"], json!([]), "{ctx}");
        let p = ok_typed(&servers, ListPanesArgs::default()).await;
        assert_eq!(p["result"], json!([]), "{ctx}");
        let r = ok_typed(&servers, search_for("x")).await;
        assert_eq!(r["total_panes_matched"], json!(0), "{ctx}");
        assert_eq!(r["matches"], json!([]), "{ctx}");
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn window_layout_matches_the_cli_on_every_version() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("lay")
            .size(100, 30)
            .start();
        server.tmux_ok(&["split-window", "-d", "-h", "-t", "=lay:0"]);
        let servers = servers(&server);
        let w = ok_typed(&servers, WindowArgs::in_session("lay")).await;
        let cli = server.format("=lay:", "window_layout");
        assert_eq!(
            w["window_layout"],
            json!(cli),
            "tmux {}: window_layout differs from `tmux display -p '#{{window_layout}}'`",
            bin.label
        );
        let l = ok_typed(&servers, ListWindowsArgs::default()).await;
        assert_eq!(
            l["result"][0]["window_layout"],
            json!(cli),
            "tmux {}",
            bin.label
        );
        assert!(server.is_alive());
    }
}

/// tmux 3.2–3.5 never free the text of a `capture-pane -p` run by a control
/// client (cmd-capture-pane.c; fixed in 3.6 by 94bafa5aa, tmux issue 4590),
/// so capturing over the control connection would grow the user's tmux
/// server by every byte captured. tmuxwire captures through a one-shot
/// client on those versions: repeated full-history captures and searches
/// must leave the server's memory where it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_captures_do_not_grow_the_tmux_server() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        // About 2 MB of scrollback.
        let server = TestServer::builder(&bin)
            .size(120, 40)
            .history_limit(50_000)
            .command("seq -f 'line %06g ........................................................................................' 1 20000; echo CAPTURE-END; exec sleep 86400")
            .start();
        server.wait_for_text("main:", "CAPTURE-END", DEADLINE);
        let servers = servers(&server);
        // The tmux server's resident memory (KiB).
        let rss = || crate::support::held(server.server_pid()).rss_kib as i64;
        let args = CapturePaneArgs {
            start: Some(-100000),
            max_lines: None,
            ..Default::default()
        };
        // Warm up (allocator high-water marks), then measure.
        for _ in 0..3 {
            ok_typed(&servers, args.clone()).await;
        }
        let before = rss();
        let mut captured = 0i64;
        for _ in 0..25 {
            let cap = ok_typed(&servers, args.clone()).await;
            assert!(
                cap["lines"].as_u64().unwrap_or(0) > 20_000,
                "{ctx}: {}",
                cap["lines"]
            );
            // The search captures the same text once more.
            captured += 2 * cap["result"].as_str().map_or(0, str::len) as i64;
            ok_typed(&servers, search_for("no-such-text")).await;
        }
        let grown_kb = rss() - before;
        let captured_kb = captured / 1024;
        // A leak keeps every captured byte (~100 MB here); allocators may
        // keep some freed memory resident (jemalloc in 3.5a: ~20 MB), far
        // less than half of what went through.
        assert!(
            grown_kb < captured_kb / 2,
            "{ctx}: the tmux server grew by {grown_kb} kB over 50 captures of {captured_kb} kB in all"
        );
    }
}

/// Line numbers above lines of emoji (which tmux widens from 3.4 on), and
/// Asserts that match `m`'s `pane_current_command` and `pane_current_path` are tmux's.
fn assert_process_is_tmuxs(server: &TestServer, m: &Value, ctx: &str) {
    let id = m["pane_id"].as_str().unwrap();
    let fs = "#{pane_current_command}|#{pane_current_path}";
    let want = server.tmux_ok(&["display-message", "-p", "-t", id, fs]);
    let got = format!(
        "{}|{}",
        m["pane_current_command"].as_str().unwrap(),
        m["pane_current_path"].as_str().unwrap()
    );
    assert_eq!(got, want.trim_end(), "{ctx}: pane {id}'s process and path");
}

/// when tmux's widths differ from tmuxwire's model (3.6+ with
/// `variation-selector-always-wide off`): every number returned must be a
/// real tmux line number (numbers are checked with tmux, and rows are
/// recounted exactly when a check fails).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_numbers_stay_exact_around_emoji_and_width_surprises() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .size(80, 20)
            .history_limit(5000)
            .start();
        let pane = all_panes(&server).remove(0);
        let servers = servers(&server);
        let emoji = [
            "\\u2764\\ufe0f",                                  // ❤️: VS16
            "\\U0001f44d\\U0001f3fd",                          // 👍🏽: skin tone
            "\\U0001f468\\u200d\\U0001f469\\u200d\\U0001f467", // 👨‍👩‍👧: ZWJ
            "\\U0001f1eb\\U0001f1f7",                          // 🇫🇷: regional indicators
            "\\u4e2d",                                         // 中
        ];
        let mut script = String::from("echo WIDTH-MARK-0");
        for (k, e) in emoji.iter().enumerate() {
            script.push_str(&format!(
                "; printf '{e}%.0s' $(seq 60); echo; echo WIDTH-MARK-{}",
                k + 1
            ));
        }
        server.run_in_pane(&pane, &script);
        let mut variants = vec!["default"];
        if bin.label.as_str() >= "3.6" {
            variants.push("vs16-narrow");
        }
        for variant in variants {
            if variant == "vs16-narrow" {
                server.tmux_ok(&["set", "-g", "variation-selector-always-wide", "off"]);
                server.run_in_pane(&pane, "clear; tmux -V >/dev/null 2>&1; true");
                server.run_in_pane(&pane, &script);
            }
            let ctx = format!("tmux {} ({variant})", bin.label);
            let r = ok_typed(
                &servers,
                SearchPanesArgs {
                    max_matched_lines_per_pane: 1000,
                    ..search_for("WIDTH-MARK-")
                },
            )
            .await;
            let m = &r["matches"][0];
            assert!(
                str_list(&m["matched_lines"]).len() > emoji.len(),
                "{ctx}: {r}"
            );
            assert_line_numbers_real(&server, m, &ctx);
            // The emoji lines themselves: their row counts are real too.
            let r = ok_typed(
                &servers,
                SearchPanesArgs {
                    regex: true,
                    max_matched_lines_per_pane: 1000,
                    ..search_for("\u{2764}|\u{1f44d}|\u{1f468}|\u{1f1eb}|\u{4e2d}")
                },
            )
            .await;
            assert_line_numbers_real(&server, &r["matches"][0], &ctx);
        }
    }
}

/// `--pin-socket`: a tool call may not reach another tmux server through
/// `socket_name`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pinned_servers_refuse_other_sockets() {
    let bin = system_tmux();
    let server = TestServer::start(&bin);
    let servers = Servers::new(
        Arc::new(Server::new(server.socket.clone(), None, Caller::default())),
        Caller::default(),
    )
    .pinned(true);
    let other = unique_name("tmuxwire-test-other");
    let (text, kind) = err_typed(
        &servers,
        ListSessionsArgs {
            socket_name: Some(other.to_string()),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(kind, "InvalidArgument");
    assert!(text.contains("--pin-socket"), "{text}");
    ok_typed(&servers, ListSessionsArgs::default()).await;
}

/// A split or respawned pane is read once its program runs: tmux forks, and until the child
/// execs it is a copy of the server, which `pane_current_command` would name (and whose
/// working directory tmux may not see yet); a command given as one string runs as
/// `SHELL -c 'command'` first. The answer names what tmux names once it runs. (A program
/// that execs yet another one at once, such as `env`, is read before that.) Every version,
/// many times over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spawned_panes_are_read_once_their_program_runs() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).command("exec /bin/sh").start();
        // Splits start the default shell itself, as a login shell.
        server.tmux_ok(&["set", "-g", "default-command", ""]);
        let s = servers(&server);
        let pane = all_panes(&server)[0].clone();
        let check = |r: &Value, what: &str| {
            let id = r["pane_id"].as_str().unwrap_or_default().to_string();
            let tmux = server.format(&id, "pane_current_command");
            assert_eq!(r["pane_current_command"], json!(tmux), "{what}");
            assert_ne!(r["pane_current_path"], json!(""), "{what}");
            id
        };
        for i in 0..15 {
            let r = ok_typed(
                &s,
                RespawnPaneArgs {
                    pane_id: pane.to_string(),
                    kill: true,
                    ..Default::default()
                },
            )
            .await;
            check(&r, &format!("tmux {} respawn {i}: {r}", bin.label));
        }
        for i in 0..6 {
            let r = ok_typed(&s, SplitWindowArgs::on(&pane)).await;
            let new = check(&r, &format!("tmux {} split {i}: {r}", bin.label));
            server.tmux_ok(&["kill-pane", "-t", &new]);
        }
    }
}
