//! No call fails because something else changed (issue 28): while sessions, windows and
//! panes are created, exit at once, are respawned, killed, renamed, moved, swapped and
//! resized, every tool that reads more than one object answers, and a call that names a
//! churned object itself answers or says that object is not found.
//!
//! The churn runs in a thread of its own (one-shot tmux clients, as a person or an
//! orchestrator would), the calls in the test's runtime, on every tmux version the run has.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tmuxwire::tmux::Servers;

use crate::support::Socket;
use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, TmuxBin, held, mirrored_servers, tmux_bins};
use tmuxwire::mcp::args::{
    BatchArgs, CapturePaneArgs, CaptureSinceArgs, DisplayMessageArgs, FindPaneArgs,
    ListCommandsArgs, ListPanesArgs, ListSessionsArgs, ListWindowsArgs, OnError, PaneArgs,
    PaneStateArgs, SearchPanesArgs, SendKeysArgs, ServerArgs, SessionArgs, SnapshotPaneArgs,
    WaitForStableArgs, WaitForTextArgs,
};

/// How many sessions one churn creates (`TMUXWIRE_RELIABILITY_SCALE` multiplies it).
fn churned_sessions() -> usize {
    let scale = std::env::var("TMUXWIRE_RELIABILITY_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(1);
    120 * scale
}

/// A one-shot client of the test's server, for the churn thread.
#[derive(Clone)]
struct OneShot {
    bin: TmuxBin,
    socket: std::path::PathBuf,
}

impl OneShot {
    /// Runs `args`; stdout when tmux succeeded (a churned target may be gone: not a failure).
    fn run(&self, args: &[&str]) -> Option<String> {
        let out = self
            .bin
            .command(Socket::Path(&self.socket))
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The panes tmux has now.
    fn panes(&self) -> Option<std::collections::HashSet<String>> {
        let out = self.run(&["list-panes", "-a", "-F", "#{pane_id}"])?;
        Some(out.lines().map(str::to_string).collect())
    }

    /// Whether tmux has no session named `name` now.
    fn has_no_session(&self, name: &str) -> bool {
        self.run(&["list-sessions", "-F", "#{session_name}"])
            .is_some_and(|out| !out.lines().any(|l| l == name))
    }

    /// Whether tmux has no object `id` (`%N` or `$N`) now. Asked of the listings
    /// (`display-message -t %N` answers nothing, with success, for a pane that is gone).
    fn is_gone(&self, id: &str) -> bool {
        let (list, field) = if id.starts_with('$') {
            ("list-sessions", "#{session_id}")
        } else {
            ("list-panes", "#{pane_id}")
        };
        let mut args = vec![list, "-F", field];
        if list == "list-panes" {
            args.push("-a");
        }
        self.run(&args)
            .is_some_and(|out| !out.lines().any(|l| l == id))
    }
}

/// A churned session: its id, its first name and its first pane.
#[derive(Clone, Debug)]
struct Churned {
    session: String,
    name: String,
    pane: String,
}

/// What the churn thread did, and the panes it made that calls may name.
#[derive(Default)]
struct ChurnLog {
    created: usize,
    recent: VecDeque<Churned>,
}

/// Creates `n` sessions, one every ~20 ms, and changes the older ones under the calls: a
/// third exit at once, a third print and are resized, renamed and have their windows moved
/// away, a third are respawned and have a pane swapped with another session's; the session
/// four behind is killed, and the stable window is resized now and then.
fn churn(tmux: &OneShot, n: usize, log: &Mutex<ChurnLog>, stable_window: &str) {
    let mut made: VecDeque<(usize, Churned)> = VecDeque::new();
    for i in 0..n {
        let name = format!("churn{i}");
        let cmd = match i % 3 {
            0 => format!("echo churn-{i}-gone"),
            1 => format!(
                "sh -c 'n=0; while [ $n -lt 2000 ]; do n=$((n+1)); echo churn-{i}-$n; sleep 0.02; done'"
            ),
            _ => format!("sh -c 'echo churn-{i}-sleeping; exec sleep 60'"),
        };
        let created = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            &name,
            "-x",
            "60",
            "-y",
            "12",
            "-P",
            "-F",
            "#{session_id} #{pane_id}",
            &cmd,
        ]);
        if let Some((session, pane)) = created.as_deref().and_then(|s| s.trim().split_once(' ')) {
            let c = Churned {
                session: session.to_string(),
                name: name.clone(),
                pane: pane.to_string(),
            };
            if i % 3 == 1 {
                // A second pane, to swap and to move.
                tmux.run(&[
                    "split-window",
                    "-d",
                    "-t",
                    &c.pane,
                    &format!("sh -c 'echo churn-{i}-split; exec sleep 60'"),
                ]);
            }
            let mut l = log.lock().unwrap_or_else(|p| p.into_inner());
            l.created += 1;
            l.recent.push_back(c.clone());
            if l.recent.len() > 4 {
                l.recent.pop_front();
            }
            drop(l);
            made.push_back((i, c));
        }
        // The one made before: respawned, or resized and renamed.
        if let Some((j, c)) = made.iter().rev().nth(1).cloned() {
            match j % 3 {
                2 => {
                    tmux.run(&[
                        "respawn-pane",
                        "-k",
                        "-t",
                        &c.pane,
                        &format!("sh -c 'echo churn-{j}-respawned; exec sleep 60'"),
                    ]);
                }
                1 => {
                    tmux.run(&["resize-window", "-t", &c.pane, "-x", "50", "-y", "10"]);
                    tmux.run(&[
                        "rename-session",
                        "-t",
                        &c.session,
                        &format!("churn{j}-renamed"),
                    ]);
                }
                _ => {}
            }
        }
        // Two before: a pane swapped with the one made three before, or a window moved
        // into it (its session then has none left and goes).
        if let (Some((j, a)), Some((_, b))) = (
            made.iter().rev().nth(2).cloned(),
            made.iter().rev().nth(3).cloned(),
        ) {
            if j % 2 == 0 {
                tmux.run(&["swap-pane", "-d", "-s", &a.pane, "-t", &b.pane]);
            } else {
                tmux.run(&[
                    "move-window",
                    "-d",
                    "-s",
                    &a.pane,
                    "-t",
                    &format!("{}:", b.session),
                ]);
            }
        }
        // Four behind: killed.
        while made.len() > 4 {
            if let Some((_, c)) = made.pop_front() {
                tmux.run(&["kill-session", "-t", &c.session]);
            }
        }
        if i % 10 == 5 {
            let width = if i % 20 == 5 { "70" } else { "80" };
            tmux.run(&[
                "resize-window",
                "-t",
                stable_window,
                "-x",
                width,
                "-y",
                "24",
            ]);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for (_, c) in made {
        tmux.run(&["kill-session", "-t", &c.session]);
    }
}

/// What a call must give.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// An answer: it reads more than one object, or only stable ones.
    Answer,
    /// An answer, or `NotFound` for the churned object it names (`%N` or `$N`), which tmux
    /// must then not have either (ids are never reused: one tmux still has was there
    /// during the call).
    AnswerOrGone(String),
    /// A batch's answer, in which only the first operation, on this churned pane, may say
    /// `NotFound` (as [`Expect::AnswerOrGone`]).
    BatchFirstMayBeGone(String),
}

/// The calls of one round: every multi-object tool, the single-object tools on the stable
/// pane and with default targets, and the same on `churned`, a session the churn made (it
/// may be gone, renamed, moved, respawned or resized by now).
fn round(
    stable: &str,
    churned: Option<&Churned>,
    cursor: &Option<String>,
) -> Vec<((&'static str, Value), Expect)> {
    use Expect::Answer;
    let churn = || SearchPanesArgs {
        max_matched_lines_per_pane: 1,
        ..search_for("churn-")
    };
    let main = Target {
        session_name: Some("main".into()),
        ..Default::default()
    };
    let on = Target {
        pane_id: Some(stable.to_string()),
        ..Default::default()
    };
    let mut calls = vec![
        (named(churn()), Answer),
        (
            named(SearchPanesArgs {
                session_name: Some("main".into()),
                max_matched_lines_per_pane: 1,
                ..search_for("stay-")
            }),
            Answer,
        ),
        (named(ListSessionsArgs::default()), Answer),
        (named(ListWindowsArgs::default()), Answer),
        (named(ListPanesArgs::default()), Answer),
        (named(ListPanesArgs::at(&main)), Answer),
        (named(ServerArgs::default()), Answer),
        (
            named(BatchArgs {
                on_error: OnError::Continue,
                operations: vec![
                    operation(ListPanesArgs::default()),
                    operation(churn()),
                    operation(CapturePaneArgs::at(&on)),
                    operation(SnapshotPaneArgs::at(&on)),
                    operation(ListWindowsArgs::at(&main)),
                    operation(ListSessionsArgs::default()),
                ],
            }),
            Answer,
        ),
        (named(CapturePaneArgs::at(&on)), Answer),
        (
            named(CapturePaneArgs {
                start: Some(-50),
                join_wrapped: true,
                ..CapturePaneArgs::at(&on)
            }),
            Answer,
        ),
        (named(SnapshotPaneArgs::at(&on)), Answer),
        (named(PaneStateArgs::at(&on)), Answer),
        (named(PaneArgs::at(&on)), Answer),
        (named(SessionArgs::at(&main)), Answer),
        (named(ListCommandsArgs::at(&on)), Answer),
        (
            named(DisplayMessageArgs {
                format_string: "#{pane_id}".into(),
                ..DisplayMessageArgs::at(&on)
            }),
            Answer,
        ),
        (named(FindPaneArgs::at(&main)), Answer),
        (
            named(CaptureSinceArgs {
                cursor: cursor.clone(),
                ..CaptureSinceArgs::at(&on)
            }),
            Answer,
        ),
        (
            named(WaitForTextArgs {
                patterns: Some(vec!["stay-".into()]),
                timeout: 2.0,
                ..WaitForTextArgs::at(&on)
            }),
            Answer,
        ),
        (
            named(WaitForStableArgs {
                stable_ms: 50.0,
                timeout: 0.3,
                ..WaitForStableArgs::at(&on)
            }),
            Answer,
        ),
        // Default targets: tmux's choice of session, which may be a churned one.
        (named(SessionArgs::default()), Answer),
        (named(PaneArgs::default()), Answer),
        (named(CapturePaneArgs::default()), Answer),
        (named(SnapshotPaneArgs::default()), Answer),
    ];
    if let Some(c) = churned {
        let (p, sid) = (c.pane.as_str(), c.session.as_str());
        let pane_or_gone = Expect::AnswerOrGone(p.to_string());
        let session_or_gone = Expect::AnswerOrGone(sid.to_string());
        let on = Target {
            pane_id: Some(p.to_string()),
            ..Default::default()
        };
        let session = Target {
            session_id: Some(sid.to_string()),
            ..Default::default()
        };
        calls.extend([
            (named(CapturePaneArgs::at(&on)), pane_or_gone.clone()),
            (
                named(CapturePaneArgs {
                    start: Some(-50),
                    ..CapturePaneArgs::at(&on)
                }),
                pane_or_gone.clone(),
            ),
            (named(SnapshotPaneArgs::at(&on)), pane_or_gone.clone()),
            (named(PaneStateArgs::at(&on)), pane_or_gone.clone()),
            (named(PaneArgs::at(&on)), pane_or_gone.clone()),
            (named(ListCommandsArgs::at(&on)), pane_or_gone.clone()),
            (
                named(DisplayMessageArgs {
                    format_string: "#{pane_id}".into(),
                    ..DisplayMessageArgs::at(&on)
                }),
                pane_or_gone.clone(),
            ),
            (named(CaptureSinceArgs::at(&on)), pane_or_gone.clone()),
            (
                named(WaitForTextArgs {
                    patterns: Some(vec!["never-printed".into()]),
                    timeout: 0.2,
                    ..WaitForTextArgs::at(&on)
                }),
                pane_or_gone.clone(),
            ),
            (
                named(WaitForStableArgs {
                    stable_ms: 50.0,
                    timeout: 0.3,
                    ..WaitForStableArgs::at(&on)
                }),
                pane_or_gone.clone(),
            ),
            (named(ListPanesArgs::at(&session)), session_or_gone.clone()),
            (
                named(ListWindowsArgs::at(&session)),
                session_or_gone.clone(),
            ),
            (named(SessionArgs::at(&session)), session_or_gone.clone()),
            (
                named(SearchPanesArgs {
                    session_id: Some(sid.to_string()),
                    ..churn()
                }),
                session_or_gone.clone(),
            ),
            (named(FindPaneArgs::at(&session)), session_or_gone.clone()),
            (
                named(BatchArgs {
                    on_error: OnError::Continue,
                    operations: vec![
                        operation(CapturePaneArgs::at(&on)),
                        operation(ListPanesArgs::default()),
                    ],
                }),
                Expect::BatchFirstMayBeGone(p.to_string()),
            ),
        ]);
    }
    calls
}

/// Whether a failed call's error is the not-found answer about a churned object.
fn is_gone(r: &rmcp::model::CallToolResult) -> bool {
    let v = serde_json::to_value(r).unwrap_or_default();
    v["_meta"]["error_type"] == json!("NotFound")
}

/// The failures inside a successful batch answer: an operation that failed, except the
/// first one saying `NotFound` about `first_may_be_gone` when tmux has no such object.
fn batch_failures(tmux: &OneShot, v: &Value, first_may_be_gone: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, r) in v["results"].as_array().into_iter().flatten().enumerate() {
        if r["success"] == json!(true) {
            continue;
        }
        let gone = r["meta"]["error_type"] == json!("NotFound")
            && i == 0
            && first_may_be_gone.is_some_and(|o| tmux.is_gone(o));
        if !gone {
            out.push(format!("{}: {}", r["tool"], r["error"]));
        }
    }
    out
}

/// The panes an answer says are gone that tmux still has (pane ids are never reused: one
/// tmux has after the answer was there when it was made): a search's `pane_dead` matches,
/// a capture's `pane_dead`, a wait's `pane_gone`.
fn forged_deaths(tmux: &OneShot, name: &str, v: &Value) -> Vec<String> {
    let dead: Vec<&str> = match name {
        "search_panes" => v["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["pane_dead"] == json!(true))
            .filter_map(|m| m["pane_id"].as_str())
            .collect(),
        "capture_pane" | "capture_since" | "snapshot_pane" if v["pane_dead"] == json!(true) => {
            v["pane_id"].as_str().into_iter().collect()
        }
        "wait_for_text" | "wait_for_stable" if v["outcome"] == json!("pane_gone") => {
            v["pane_id"].as_str().into_iter().collect()
        }
        _ => Vec::new(),
    };
    if dead.is_empty() {
        return Vec::new();
    }
    let Some(alive) = tmux.panes() else {
        return Vec::new();
    };
    dead.into_iter()
        .filter(|p| alive.contains(*p))
        .map(|p| format!("{p} is reported gone, and tmux still has it"))
        .collect()
}

/// Reads every resource of the stable session and pane, and the pane resources of
/// `churned`; returns the failures (a churned pane may be not found).
async fn read_resources(
    s: &Servers,
    tmux: &OneShot,
    stable: &str,
    churned: Option<&Churned>,
) -> (usize, Vec<String>) {
    let mut uris: Vec<(String, bool)> = [
        "tmux://sessions".to_string(),
        "tmux://sessions/main".to_string(),
        "tmux://sessions/main/windows".to_string(),
        "tmux://sessions/main/windows/0".to_string(),
        format!("tmux://panes/%25{}", &stable[1..]),
        format!("tmux://panes/%25{}/content", &stable[1..]),
    ]
    .into_iter()
    .map(|u| (u, false))
    .collect();
    if let Some(c) = churned {
        uris.push((format!("tmux://sessions/{}", c.name), true));
        uris.push((format!("tmux://sessions/{}/windows", c.name), true));
        uris.push((format!("tmux://panes/%25{}", &c.pane[1..]), true));
        uris.push((format!("tmux://panes/%25{}/content", &c.pane[1..]), true));
    }
    let mut failures = Vec::new();
    for (uri, may_be_gone) in &uris {
        if let Err(e) = tmuxwire::mcp::resources::read(s, uri, false).await {
            let gone = *may_be_gone
                && churned.is_some_and(|c| {
                    (e.message.contains("Pane not found") && tmux.is_gone(&c.pane))
                        || (e.message.contains("Session not found") && tmux.has_no_session(&c.name))
                });
            if !gone {
                failures.push(format!("{uri}: {}", e.message));
            }
        }
    }
    (uris.len(), failures)
}

/// Churn against every multi-object tool, on every tmux version: no call fails (see the
/// module docs). Each version's churn takes a few seconds; the calls go on until it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn churn_never_fails_a_call() {
    let n = churned_sessions();
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(80, 24).start();
        let stable = first_pane(&server);
        let window = server
            .tmux_ok(&["display-message", "-p", "-t", &stable, "#{window_id}"])
            .trim()
            .to_string();
        type_line(
            &server,
            &stable,
            "i=0; while :; do i=$((i+1)); echo stay-$i; sleep 0.1; done",
        );
        server.wait_for_text(&stable, "stay-2", DEADLINE);
        let s = mirrored_servers(&server);
        let first = ok_typed(&s, CaptureSinceArgs::on(&stable)).await;
        let mut cursor = first["cursor"].as_str().map(str::to_string);

        let log = Arc::new(Mutex::new(ChurnLog::default()));
        let done = Arc::new(AtomicBool::new(false));
        let tmux = OneShot {
            bin: bin.clone(),
            socket: server.socket.clone(),
        };
        let churner = {
            let tmux = tmux.clone();
            let (log, done, window) = (log.clone(), done.clone(), window.clone());
            std::thread::spawn(move || {
                churn(&tmux, n, &log, &window);
                done.store(true, Ordering::Relaxed);
            })
        };
        // Beside the rounds: a wait on the newest churned pane, which the churn kills or
        // respawns under it, and a search of every pane, over and over.
        let background = {
            let (s, log, done, tmux) = (s.clone(), log.clone(), done.clone(), tmux.clone());
            tokio::spawn(async move {
                let (mut calls, mut failures) = (0usize, Vec::new());
                while !done.load(Ordering::Relaxed) {
                    let newest = {
                        let l = log.lock().unwrap_or_else(|p| p.into_inner());
                        l.recent.back().cloned()
                    };
                    let mut pairs = vec![(
                        named(SearchPanesArgs {
                            max_matched_lines_per_pane: 1,
                            ..search_for("churn-")
                        }),
                        None,
                    )];
                    if let Some(c) = newest {
                        pairs.push((
                            named(WaitForTextArgs {
                                patterns: Some(vec!["never-printed".into()]),
                                timeout: 3.0,
                                ..WaitForTextArgs::on(&c.pane)
                            }),
                            Some(c.pane.clone()),
                        ));
                    }
                    let runs = pairs.into_iter().map(|((name, a), churned)| {
                        let s = s.clone();
                        async move { (name, a.clone(), churned, call(&s, name, a).await) }
                    });
                    for (name, a, churned, r) in futures::future::join_all(runs).await {
                        calls += 1;
                        if r.is_error == Some(true)
                            && !(churned.is_some_and(|p| tmux.is_gone(&p)) && is_gone(&r))
                        {
                            failures.push(format!("{name} {a}: {}", text_of(&r)));
                        }
                        let v = r.structured_content.unwrap_or_default();
                        for f in forged_deaths(&tmux, name, &v) {
                            failures.push(format!("{name} {a}: {f}"));
                        }
                    }
                }
                (calls, failures)
            })
        };
        let began = Instant::now();
        let (mut calls, mut failures) = (0usize, Vec::new());
        let mut gone_answers = 0usize;
        let mut per_tool: std::collections::BTreeMap<&str, (usize, Duration)> = Default::default();
        let mut rounds = 0usize;
        // At least two rounds after the churn ends (its last kills included).
        let mut after = 0;
        while after < 2 {
            if done.load(Ordering::Relaxed) {
                after += 1;
            }
            assert!(
                began.elapsed() < Duration::from_secs(120),
                "{ctx}: the churn of {n} sessions did not end within 120 s"
            );
            rounds += 1;
            let churned = {
                let l = log.lock().unwrap_or_else(|p| p.into_inner());
                l.recent.front().cloned()
            };
            for ((name, a), expect) in round(&stable, churned.as_ref(), &cursor) {
                let t0 = Instant::now();
                let r = crate::support::within(name, call(&s, name, a.clone())).await;
                let e = per_tool.entry(name).or_default();
                e.0 += 1;
                e.1 += t0.elapsed();
                calls += 1;
                if r.is_error == Some(true) {
                    match &expect {
                        Expect::AnswerOrGone(o) if is_gone(&r) && tmux.is_gone(o) => {
                            gone_answers += 1
                        }
                        _ => failures.push(format!("{name} {a}: {}", text_of(&r))),
                    }
                    continue;
                }
                let v = r.structured_content.unwrap_or_default();
                for f in forged_deaths(&tmux, name, &v) {
                    failures.push(format!("{name} {a}: {f}"));
                }
                if name == "call_read_tools_batch" {
                    let first = match &expect {
                        Expect::BatchFirstMayBeGone(p) => Some(p.as_str()),
                        _ => None,
                    };
                    for f in batch_failures(&tmux, &v, first) {
                        failures.push(format!("{name} {a}: {f}"));
                    }
                }
                if name == "capture_since" && a["pane_id"] == json!(stable) {
                    cursor = v["cursor"].as_str().map(str::to_string);
                }
            }
            let (n_read, bad) = read_resources(&s, &tmux, &stable, churned.as_ref()).await;
            calls += n_read;
            failures.extend(bad);
        }
        churner.join().expect("the churn thread");
        let (more, bad) = crate::support::within("the background calls", background)
            .await
            .expect("the background calls");
        calls += more;
        failures.extend(bad);
        let created = log.lock().unwrap_or_else(|p| p.into_inner()).created;
        eprintln!(
            "{ctx}: {created} sessions churned in {:?}; {rounds} rounds, {calls} calls, {} failed, \
             {gone_answers} named a churned pane that was gone; per tool (calls, time): {per_tool:?}",
            began.elapsed(),
            failures.len()
        );
        // What the mirror keeps per pane is bounded too: once the housekeeping ran, a copy
        // for each pane tmux has and for at most 64 gone ones, nothing for the others.
        let live = tmux.panes().map_or(0, |p| p.len());
        let m = s
            .default_server()
            .running_mirror()
            .expect("the mirror runs");
        let breakdown = || {
            let mut by: std::collections::BTreeMap<String, usize> = Default::default();
            for (_, p) in m.panes() {
                let v = p.view();
                *by.entry(format!(
                    "{:?} term={} owner={}",
                    v.status(),
                    v.term().is_some(),
                    v.owner().is_some()
                ))
                .or_default() += 1;
            }
            by
        };
        let deadline = Instant::now() + DEADLINE;
        let kept = loop {
            let kept = m.panes().len();
            if kept <= live + 64 {
                break kept;
            }
            assert!(
                Instant::now() < deadline,
                "{ctx}: the mirror keeps {:?} for {live} panes",
                breakdown()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        eprintln!("{ctx}: the mirror keeps {kept} copies for {live} panes");
        assert!(
            created >= n * 9 / 10,
            "{ctx}: only {created} of {n} sessions were made"
        );
        assert!(
            failures.is_empty(),
            "{ctx}: {} of {calls} calls failed: {failures:#?}",
            failures.len()
        );
    }
}

/// The control clients of `server` and their sessions, as `created session` lines (tmuxwire's
/// own control connections are its only control clients here).
fn control_clients(server: &TestServer) -> Vec<String> {
    server
        .tmux_ok(&[
            "list-clients",
            "-F",
            "#{client_control_mode} #{client_created} #{session_name}",
        ])
        .lines()
        .filter_map(|l| l.strip_prefix("1 ").map(str::to_string))
        .collect()
}

/// tmuxwire's command connection attaches to the oldest session, not to tmux's choice (the
/// newest unattached one, which an orchestrator is about to kill): killing a newer session
/// never ends it, so an action in flight (`send_keys`, not sent twice) never fails for it.
/// On tmux 3.6 and later, killing its own session moves it to another one
/// (`no-detach-on-destroy`) instead of ending it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_connection_outlives_other_sessions() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::start(&bin);
        let stable = first_pane(&server);
        server.tmux_ok(&["new-session", "-d", "-s", "keeper", "sleep 60"]);
        // Without the mirror: the command connection is the only control client.
        let s = Arc::new(Servers::new(
            Arc::new(
                tmuxwire::tmux::Server::new(
                    server.socket.clone(),
                    None,
                    tmuxwire::tmux::Caller::default(),
                )
                .with_idle_close(Duration::from_millis(100)),
            ),
            tmuxwire::tmux::Caller::default(),
        ));
        let tmux = OneShot {
            bin: bin.clone(),
            socket: server.socket.clone(),
        };
        let mut failures = Vec::new();
        for i in 0..10 {
            // A fresh unattached session, tmux's choice for a new client; the idle
            // connection closed, so the next call opens one.
            let name = format!("doomed{i}");
            server.tmux_ok(&["new-session", "-d", "-s", &name, "sleep 60"]);
            crate::support::wait_until_true(&format!("{ctx}: idle close"), DEADLINE, || {
                control_clients(&server).is_empty()
            });
            let killer = {
                let tmux = tmux.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(5));
                    tmux.run(&["kill-session", "-t", &name]);
                })
            };
            for _ in 0..10 {
                let r = call_typed(
                    &s,
                    SendKeysArgs {
                        keys: "true".into(),
                        enter: true,
                        ..SendKeysArgs::on(&stable)
                    },
                )
                .await;
                if r.is_error == Some(true) {
                    failures.push(text_of(&r));
                }
            }
            killer.join().expect("the kill");
            let clients = control_clients(&server);
            assert!(
                clients.iter().all(|c| c.ends_with(" main")),
                "{ctx}: the command connection is on {clients:?}, not on the oldest session"
            );
        }
        assert!(failures.is_empty(), "{ctx}: {failures:#?}");
        if tmuxwire::wire::TmuxVersion::parse(&bin.label).at_least(3, 6) {
            // Its own session killed: moved, not ended (the same client).
            ok_typed(&s, ListSessionsArgs::default()).await;
            let before = control_clients(&server);
            server.tmux_ok(&["kill-session", "-t", "main"]);
            ok_typed(&s, ListSessionsArgs::default()).await;
            let after = control_clients(&server);
            let created = |v: &[String]| -> Vec<String> {
                v.iter()
                    .map(|c| c.split(' ').next().unwrap_or("").to_string())
                    .collect()
            };
            assert_eq!(
                created(&after),
                created(&before),
                "{ctx}: {before:?} -> {after:?}"
            );
            assert!(
                after.iter().all(|c| c.ends_with(" keeper")),
                "{ctx}: {after:?}"
            );
        }
    }
}

/// A pane made while a search seeds a long history (its copy made and live before the
/// search ends) is not taken for gone by that search, whose listing predates it: its copy
/// stays live, later searches do not mark it `pane_dead`, and its new output reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pane_made_during_a_search_is_not_taken_for_gone() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).history_limit(400_000).start();
        let long = first_pane(&server);
        run(
            &server,
            &long,
            "seq -f 'long %g' 1 100000 >/dev/tty; clear -x 2>/dev/null; true",
        );
        let s = mirrored_servers(&server);
        let mut forged = Vec::new();
        for round in 0..3 {
            // A fresh long pane each round: the search seeds it (long).
            let long = if round == 0 {
                long.clone()
            } else {
                let p = server.new_window_pane(&[]);
                run(&server, &p, "seq -f 'long %g' 1 100000");
                p
            };
            let search = {
                let s = s.clone();
                tokio::spawn(async move {
                    call_typed(
                        &s,
                        SearchPanesArgs {
                            max_matched_lines_per_pane: 1,
                            ..search_for("fresh-")
                        },
                    )
                    .await
                })
            };
            // Once the search asked for the long pane's copy, a new session.
            crate::support::wait_until_async(
                &format!("{ctx}: the search seeds {long}"),
                || async {
                    let m = s.default_server().running_mirror()?;
                    let id: tmuxwire::control::PaneId = long.parse().ok()?;
                    m.pane(id).map(|_| ())
                },
            )
            .await;
            let fresh = server
                .tmux_ok(&[
                    "new-session",
                    "-d",
                    "-P",
                    "-F",
                    "#{pane_id}",
                    &format!("sh -c 'echo fresh-{round}; exec sleep 60'"),
                ])
                .trim()
                .to_string();
            let r = crate::support::within("the search", search)
                .await
                .expect("task");
            assert_ne!(r.is_error, Some(true), "{ctx}: {}", text_of(&r));
            let v = ok_typed(
                &s,
                SearchPanesArgs {
                    max_matched_lines_per_pane: 1,
                    ..search_for("fresh-")
                },
            )
            .await;
            let tmux = OneShot {
                bin: bin.clone(),
                socket: server.socket.clone(),
            };
            forged.extend(forged_deaths(&tmux, "search_panes", &v));
            let c = ok_typed(&s, CapturePaneArgs::on(&fresh)).await;
            if c["pane_dead"] == json!(true) {
                forged.push(format!("capture_pane {fresh}: pane_dead"));
            }
        }
        assert!(forged.is_empty(), "{ctx}: {forged:#?}");
    }
}

/// How many sessions each half of the memory churn makes (`TMUXWIRE_RELIABILITY_SCALE`
/// multiplies it).
fn memory_churn_sessions() -> usize {
    churned_sessions() / 120 * 300
}

/// The copies of gone panes the MCP server answers from: the panes a search of what every
/// churned pane printed says are gone.
async fn dead_copies(client: &crate::mcp_e2e::Client) -> usize {
    let v = crate::support::mcp::call_typed(
        client,
        SearchPanesArgs {
            max_matched_lines_per_pane: 1,
            ..search_for("churn-")
        },
    )
    .await;
    let m = &v["structuredContent"];
    // Every matching pane is on the page (lines per pane are capped, not panes).
    assert_eq!(m["truncated_panes"], json!([]), "{}", m["truncated_panes"]);
    m["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["pane_dead"] == json!(true))
        .count()
}

/// Memory stays bounded under churn (issue 28): `tmuxwire mcp` (its defaults: 64 copies of
/// gone panes at most, kept 600 s) watches 300 churned sessions, as [`churn`] makes and
/// changes them, while a client calls `search_panes`, `list_panes` and reads a pane that
/// stays; then 300 more. After the first 300 it keeps at most 64 dead copies and less than
/// 16 MiB more resident memory than after the warm-up; after the next 300, the same copies
/// at most and about the memory of the first 300 (no growth per session), and as many fds and
/// threads as before. No call fails. System tmux only (the memory is tmuxwire's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_bounded_under_churn() {
    let n = memory_churn_sessions();
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).size(80, 24).start();
    let stable = first_pane(&server);
    type_line(
        &server,
        &stable,
        "i=0; while :; do i=$((i+1)); echo stay-$i; sleep 0.2; done",
    );
    server.wait_for_text(&stable, "stay-2", DEADLINE);
    let window = server
        .tmux_ok(&["display-message", "-p", "-t", &stable, "#{window_id}"])
        .trim()
        .to_string();
    let cmd = crate::mcp_e2e::mcp_command(Some(&server.socket), &[]);
    let (client, pid) = crate::support::mcp::start_mcp(cmd).await;
    let tmux = OneShot {
        bin: bin.clone(),
        socket: server.socket.clone(),
    };
    // One half: the churn in a thread, calls until it ends; (calls, failures).
    let half = |count: usize| {
        let (tmux, window, client, stable) = (tmux.clone(), window.clone(), &client, &stable);
        async move {
            let log = Arc::new(Mutex::new(ChurnLog::default()));
            let done = Arc::new(AtomicBool::new(false));
            let churner = {
                let (log, done) = (log.clone(), done.clone());
                std::thread::spawn(move || {
                    churn(&tmux, count, &log, &window);
                    done.store(true, Ordering::Relaxed);
                })
            };
            let mut cursor: Option<String> = None;
            let (mut calls, mut failures) = (0usize, Vec::new());
            while !done.load(Ordering::Relaxed) {
                let round = [
                    named(SearchPanesArgs {
                        max_matched_lines_per_pane: 1,
                        ..search_for("churn-")
                    }),
                    named(ListPanesArgs::default()),
                    named(CapturePaneArgs::on(stable)),
                    named(SnapshotPaneArgs::on(stable)),
                    named(PaneStateArgs::on(stable)),
                    named(CaptureSinceArgs {
                        cursor: cursor.clone(),
                        ..CaptureSinceArgs::on(stable)
                    }),
                ];
                for (name, a) in round {
                    let r = crate::mcp_e2e::call(client, name, a.clone()).await;
                    calls += 1;
                    if r["isError"] == json!(true) {
                        failures.push(format!("{name} {a}: {}", r["content"]));
                    } else if name == "capture_since" {
                        cursor = r["structuredContent"]["cursor"]
                            .as_str()
                            .map(str::to_string);
                    }
                }
            }
            churner.join().expect("the churn thread");
            (calls, failures)
        }
    };
    // The copies just after a churn (the housekeeping drops those beyond the limit once a
    // second), and once it ran; then what the process holds (the blocking pool's idle threads
    // end after 2 s).
    let settled = |what: &'static str| {
        let client = &client;
        async move {
            let just_after = dead_copies(client).await;
            let dead = crate::support::wait_until_async(what, || async {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let n = dead_copies(client).await;
                (n <= 64).then_some(n)
            })
            .await;
            tokio::time::sleep(Duration::from_secs(3)).await;
            (just_after, dead, held(pid))
        }
    };
    let (warm_calls, warm_failures) = half(40).await;
    let (_, _, base) = settled("the warm-up's copies to be dropped").await;
    let (calls1, failures1) = half(n).await;
    let (peak1, dead1, after1) = settled("the first half's copies to be dropped").await;
    let (calls2, failures2) = half(n).await;
    let (peak2, dead2, after2) = settled("the second half's copies to be dropped").await;
    let mib = |k: u64| k as f64 / 1024.0;
    eprintln!(
        "memory under churn ({n} + {n} sessions, tmux {}): calls {} / {} / {}, failed {} / {} / \
         {}; dead copies {dead1} / {dead2} (just after the churn: {peak1} / {peak2}); RSS {:.1} MiB after the warm-up, {:.1} MiB after \
         {n} ({:+.1}), {:.1} MiB after {} ({:+.1}); fds {} / {} / {}, threads {} / {} / {}",
        bin.label,
        warm_calls,
        calls1,
        calls2,
        warm_failures.len(),
        failures1.len(),
        failures2.len(),
        mib(base.rss_kib),
        mib(after1.rss_kib),
        mib(after1.rss_kib) - mib(base.rss_kib),
        mib(after2.rss_kib),
        2 * n,
        mib(after2.rss_kib) - mib(after1.rss_kib),
        base.fds,
        after1.fds,
        after2.fds,
        base.threads,
        after1.threads,
        after2.threads,
    );
    let failures: Vec<String> = [warm_failures, failures1, failures2].concat();
    assert!(
        failures.is_empty(),
        "{} calls failed: {failures:#?}",
        failures.len()
    );
    assert!(dead1 <= 64 && dead2 <= 64, "dead copies: {dead1}, {dead2}");
    assert!(
        after1.rss_kib < base.rss_kib + 16 * 1024,
        "{n} sessions: RSS {} KiB -> {} KiB",
        base.rss_kib,
        after1.rss_kib
    );
    assert!(
        after2.rss_kib < after1.rss_kib + 4 * 1024,
        "{} sessions: RSS {} KiB after {n} -> {} KiB",
        2 * n,
        after1.rss_kib,
        after2.rss_kib
    );
    assert!(
        after2.fds <= base.fds + 2 && after2.threads <= base.threads + 2,
        "fds {} -> {}, threads {} -> {}",
        base.fds,
        after2.fds,
        base.threads,
        after2.threads
    );
    let _ = crate::support::within("shutting down", client.cancel()).await;
}
