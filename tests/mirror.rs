//! The pane mirror against real tmux: seeded copies, output applied after the seed, checks,
//! dead panes, other sessions, pauses; every answer compared with tmux's own.

use serde_json::{Value, json};

use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, mirrored_servers, tmux_bins, wait_until};
use tmuxwire::mcp::args::{CapturePaneArgs, SearchPanesArgs};

/// tmux's logical lines of a pane (`capture-pane -p -J -S - -E -`, trailing blanks trimmed,
/// trailing empty lines dropped).
fn tmux_joined(server: &TestServer, pane: &str) -> Vec<String> {
    tmux_lines(server, pane, &["-J", "-S", "-", "-E", "-"])
}

/// The whole pane from the tool, as logical lines.
async fn tool_joined(s: &tmuxwire::tmux::Servers, pane: &str) -> (Vec<String>, Value) {
    let v = ok_typed(
        s,
        CapturePaneArgs {
            start: Some(-1_000_000),
            join_wrapped: true,
            max_lines: None,
            ..CapturePaneArgs::on(pane)
        },
    )
    .await;
    (lines_of(v["result"].as_str().unwrap_or("")), v)
}

/// Content printed before tmuxwire looked (C7) is found, later output is added once, and the
/// copy equals tmux's capture; both answers come from the mirror.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeded_then_followed() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(40, 10)
            .history_limit(5000)
            .start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            "printf 'SEED-MARK\\n'; seq -f 'before %g' 1 200; printf '%s\\n' 0123456789abcdefghijklmnopqrstuvwxyzWRAPPED-NEEDLE-tail",
        );
        let s = mirrored_servers(&server);
        let v = ok_typed(&s, search_for("SEED-MARK")).await;
        assert_eq!(v["total_panes_matched"], json!(1), "{ctx}: {v}");
        assert_eq!(v["matches"][0]["source"], json!("mirror"), "{ctx}: {v}");
        run(&server, &pane, "seq -f 'after %g' 1 300; echo AFTER-MARK");
        let v = ok_typed(&s, search_for("AFTER-MARK")).await;
        let m = &v["matches"][0];
        assert_eq!(m["source"], json!("mirror"), "{ctx}: {v}");
        // The echo of the typed command line holds the marker too.
        assert_eq!(m["matched_line_count"], json!(2), "{ctx}: {v}");
        let v = ok_typed(&s, search_for("WRAPPED-NEEDLE-tail")).await;
        // The typed command line matches too; the printed line is the last.
        let rows = v["matches"][0]["matched_line_rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(rows.last(), Some(&json!(2)), "{ctx}: {v}");
        let (got, cap) = tool_joined(&s, &pane).await;
        assert_eq!(cap["source"], json!("mirror"), "{ctx}");
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}: copy vs tmux");
        let rows = ok_typed(
            &s,
            CapturePaneArgs {
                start: Some(-1_000_000),
                max_lines: None,
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(
            lines_of(rows["result"].as_str().unwrap_or("")),
            tmux_lines(&server, &pane, &["-S", "-", "-E", "-"]),
            "{ctx}: rows vs tmux"
        );
        assert_line_numbers(&server, &pane, &s, "before 150", &ctx).await;
    }
}

/// The line number a search reports is the row tmux shows the line on.
async fn assert_line_numbers(
    server: &TestServer,
    pane: &str,
    s: &tmuxwire::tmux::Servers,
    needle: &str,
    ctx: &str,
) {
    let v = ok_typed(s, search_for(needle)).await;
    let m = &v["matches"][0];
    let n = m["matched_line_numbers"][0].as_i64().unwrap();
    let at = tmux_lines(server, pane, &["-S", &n.to_string(), "-E", &n.to_string()]);
    assert_eq!(at, vec![needle.to_string()], "{ctx}: line {n}: {v}");
}

/// A pane whose program printed and exited, and whose window vanished, stays searchable and
/// capturable from its copy (C16).
///
/// The program waits for a second line before it exits: tmux drops output it has not yet
/// written to control clients when a pane dies (control.c `control_write_pending()` frees a
/// dead pane's queued blocks), so only what reached tmuxwire before the exit can be kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dead_panes_keep_their_text() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(60, 10).start();
        let s = mirrored_servers(&server);
        // The mirror is running before the job starts.
        ok_typed(&s, search_for("nothing-yet")).await;
        let job = server.new_window_pane(&["sh -c 'read x; echo RESULT-42; read y; exit 3'"]);
        // Let the mirror adopt the pane before the job runs.
        wait_until("the new pane is followed", DEADLINE, || {
            let out = server.tmux_ok(&["list-clients", "-F", "#{client_termname}"]);
            out.contains("tmuxwire").then_some(())
        });
        ok_typed(&s, search_for("nothing-yet")).await;
        server.tmux_ok(&["send-keys", "-t", &job, "go", "Enter"]);
        crate::support::wait_until_async("the copy holds the result", || {
            let s = &s;
            async move {
                let v = ok_typed(s, search_for("RESULT-42")).await;
                (v["total_panes_matched"] == json!(1)).then_some(())
            }
        })
        .await;
        server.tmux_ok(&["send-keys", "-t", &job, "Enter"]);
        wait_until("the job's window is gone", DEADLINE, || {
            let out = server.tmux_ok(&["list-panes", "-a", "-F", "#{pane_id}"]);
            (!out.lines().any(|l| l == job)).then_some(())
        });
        let v = ok_typed(&s, search_for("RESULT-42")).await;
        let m = v["matches"]
            .as_array()
            .and_then(|a| a.iter().find(|m| m["pane_id"] == json!(job)))
            .cloned()
            .unwrap_or_else(|| panic!("{ctx}: the dead pane's text was not found: {v}"));
        assert_eq!(m["pane_dead"], json!(true), "{ctx}: {m}");
        assert_eq!(m["source"], json!("mirror"), "{ctx}");
        let cap = ok_typed(&s, CapturePaneArgs::on(&job)).await;
        assert!(
            cap["result"].as_str().unwrap_or("").contains("RESULT-42"),
            "{ctx}: {cap}"
        );
        assert_eq!(cap["pane_dead"], json!(true), "{ctx}");
    }
}

/// Output in another session is followed by that session's own connection (C8).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_sessions_are_followed() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).session("A").start();
        server.tmux_ok(&["new-session", "-d", "-s", "B"]);
        let b = server
            .tmux_ok(&["display-message", "-p", "-t", "=B:", "#{pane_id}"])
            .trim()
            .to_string();
        let s = mirrored_servers(&server);
        ok_typed(&s, search_for("warm-up")).await;
        run(&server, &b, "echo OTHER-SESSION-OUTPUT");
        let v = ok_typed(&s, search_for("OTHER-SESSION-OUTPUT")).await;
        let m = &v["matches"][0];
        assert_eq!(m["pane_id"], json!(b), "{ctx}: {v}");
        assert_eq!(m["source"], json!("mirror"), "{ctx}: {v}");
    }
}

/// tmux drops output for a paused pane (`%pause`): the copy is seeded again and follows on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_pane_is_seeded_again() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(60, 10)
            .history_limit(5000)
            .start();
        let pane = first_pane(&server);
        let s = mirrored_servers(&server);
        ok_typed(&s, search_for("warm-up")).await;
        // Pause the pane's output to tmuxwire's watch client, as pause-after would.
        let clients = server.tmux_ok(&["list-clients", "-F", "#{client_name} #{client_termname}"]);
        let watch = clients
            .lines()
            .filter(|l| l.ends_with(" tmuxwire"))
            .filter_map(|l| l.split(' ').next())
            .map(str::to_string)
            .collect::<Vec<_>>();
        assert!(!watch.is_empty(), "{ctx}: {clients}");
        for c in &watch {
            server.tmux_ok(&["refresh-client", "-t", c, "-A", &format!("{pane}:pause")]);
        }
        run(
            &server,
            &pane,
            "seq -f 'during %g' 1 100; echo DURING-PAUSE",
        );
        let v = ok_typed(&s, search_for("DURING-PAUSE")).await;
        assert_eq!(
            v["matches"][0]["matched_line_count"],
            json!(2),
            "{ctx}: {v}"
        );
        let (got, _) = tool_joined(&s, &pane).await;
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}");
        run(&server, &pane, "echo AFTER-PAUSE");
        let (got, _) = tool_joined(&s, &pane).await;
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}");
    }
}

/// The mirror of a test's default server.
async fn mirror_of(s: &tmuxwire::tmux::Servers) -> std::sync::Arc<tmuxwire::mirror::Mirror> {
    s.default_server().mirror().await.expect("mirror on")
}

/// A session created after the mirror started is watched from its start, without any
/// request: a pane that prints and exits there is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_sessions_are_watched_without_a_request() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).session("A").start();
        let s = mirrored_servers(&server);
        ok_typed(&s, search_for("warm-up")).await;
        let m = mirror_of(&s).await;
        let job = server
            .tmux_ok(&[
                "new-session",
                "-d",
                "-s",
                "B",
                "-P",
                "-F",
                "#{pane_id}",
                "sh -c 'read x; echo NEW-SESSION-RESULT; read y'",
            ])
            .trim()
            .to_string();
        let id: tmuxwire::control::PaneId = job.parse().unwrap();
        crate::support::wait_until_async("the new session's pane is followed", || {
            let m = m.clone();
            async move {
                let p = m.pane(id)?;
                (p.view().status() == tmuxwire::mirror::Status::Live).then_some(())
            }
        })
        .await;
        server.tmux_ok(&["send-keys", "-t", &job, "go", "Enter"]);
        crate::support::wait_until_async("the copy holds the result", || {
            let m = m.clone();
            async move {
                let p = m.pane(id)?;
                let st = p.view();
                let t = st.term()?;
                let text = t.capture(tmuxwire::term::LineNo(0), tmuxwire::term::LineNo(5));
                String::from_utf8_lossy(&text)
                    .contains("NEW-SESSION-RESULT")
                    .then_some(())
            }
        })
        .await;
        server.tmux_ok(&["send-keys", "-t", &job, "Enter"]);
        wait_until("session B is gone", DEADLINE, || {
            let out = server.tmux_ok(&["list-sessions", "-F", "#{session_name}"]);
            (!out.lines().any(|l| l == "B")).then_some(())
        });
        let v = ok_typed(&s, search_for("NEW-SESSION-RESULT")).await;
        assert_eq!(v["total_panes_matched"], json!(1), "{ctx}: {v}");
        assert_eq!(v["matches"][0]["pane_dead"], json!(true), "{ctx}: {v}");
    }
}

/// A resized pane is seeded again and its copy keeps equal to tmux's text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resized_panes_are_seeded_again() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(80, 20)
            .history_limit(5000)
            .start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            "seq -f 'before-resize %g................................................' 1 100",
        );
        let s = mirrored_servers(&server);
        ok_typed(&s, search_for("warm-up")).await;
        server.tmux_ok(&["resize-window", "-t", &pane, "-x", "50", "-y", "15"]);
        run(&server, &pane, "seq -f 'after-resize %g' 1 50");
        let (got, cap) = tool_joined(&s, &pane).await;
        assert_eq!(cap["source"], json!("mirror"), "{ctx}");
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}");
        let rows = ok_typed(
            &s,
            CapturePaneArgs {
                start: Some(-1000),
                max_lines: None,
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(
            lines_of(rows["result"].as_str().unwrap_or("")),
            tmux_lines(&server, &pane, &["-S", "-1000", "-E", "-"]),
            "{ctx}: rows after the reflow"
        );
    }
}

/// Copies stay within the memory cap: the oldest history goes first and the answers say how
/// much; a capture reaching into it is answered by tmux.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_cap_drops_the_oldest_history() {
    let server = TestServer::builder(&crate::support::system_tmux())
        .size(80, 20)
        .history_limit(50_000)
        .start();
    let pane = first_pane(&server);
    run(
        &server,
        &pane,
        "seq -f 'capped line %g ..............................' 1 20000",
    );
    let tmux = tmuxwire::tmux::Server::new(server.socket.clone(), None, Default::default())
        .with_mirror(tmuxwire::mirror::MirrorOptions {
            enabled: true,
            memory_cap: 200_000,
            ..Default::default()
        });
    let s = tmuxwire::tmux::Servers::new(std::sync::Arc::new(tmux), Default::default());
    ok_typed(&s, search_for("warm-up")).await;
    let m = mirror_of(&s).await;
    crate::support::wait_until_async("the cap is enforced", || {
        let m = m.clone();
        async move { (m.bytes() <= 200_000).then_some(()) }
    })
    .await;
    let v = ok_typed(&s, search_for("capped line 19999 ")).await;
    let rows = v["matches"][0]["capped_history_rows"].as_u64().unwrap_or(0);
    assert!(rows > 10_000, "{v}");
    // The oldest lines are gone from the copy but not from tmux.
    let cap = ok_typed(
        &s,
        CapturePaneArgs {
            start: Some(-1_000_000),
            end: Some(-19950),
            ..CapturePaneArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(cap["source"], json!("capture"), "{cap}");
    assert_eq!(
        lines_of(cap["result"].as_str().unwrap_or("")),
        tmux_lines(&server, &pane, &["-S", "-1000000", "-E", "-19950"]),
    );
    assert!(
        cap["result"]
            .as_str()
            .unwrap_or("")
            .contains("capped line 1 "),
        "{cap}"
    );
}

/// After the idle time the mirror stops watching: no tmuxwire client stays attached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_mirror_stops_watching() {
    let server = TestServer::start(&crate::support::system_tmux());
    let tmux = tmuxwire::tmux::Server::new(server.socket.clone(), None, Default::default())
        .with_idle_close(std::time::Duration::from_millis(300))
        .with_mirror(tmuxwire::mirror::MirrorOptions {
            enabled: true,
            idle_stop: Some(std::time::Duration::from_millis(500)),
            ..Default::default()
        });
    let s = tmuxwire::tmux::Servers::new(std::sync::Arc::new(tmux), Default::default());
    ok_typed(&s, search_for("warm-up")).await;
    let ours = || {
        server
            .tmux_ok(&["list-clients", "-F", "#{client_termname}"])
            .lines()
            .filter(|l| *l == "tmuxwire")
            .count()
    };
    assert!(ours() >= 1);
    wait_until("tmuxwire's clients detach", DEADLINE, || {
        (ours() == 0).then_some(())
    });
    // The next request starts again.
    let v = ok_typed(&s, search_for("warm-up")).await;
    assert_eq!(v["panes_searched"], json!(1));
}

/// A history seeded from its lines (tmux < 3.7 has no row flags) is checked against tmux's
/// rows once requests pause, and seeded again with the rows captured when a line splits
/// elsewhere: here a TAB skips cells at the end of a wrapped row before a wide character
/// that does not fit, which the joined text does not show (on 3.6+ the TAB is a cell; 3.7+
/// captures rows with flags).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn laid_out_history_is_checked_against_tmux_rows() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(10, 5)
            .history_limit(1000)
            .start();
        let pane = first_pane(&server);
        // `abcdefgh`, a TAB to the last column, `中` wraps: the row ends in a skipped cell and
        // the next is full, so laid out again the line still takes two rows.
        run(
            &server,
            &pane,
            "printf 'abcdefgh\\t\\344\\270\\255xxxxxxxx\\n'; seq 1 12",
        );
        let verify_after = std::time::Duration::from_millis(50);
        crate::support::test_logging();
        let tmux = tmuxwire::tmux::Server::new(server.socket.clone(), None, Default::default())
            .with_mirror(tmuxwire::mirror::MirrorOptions {
                enabled: true,
                verify_after,
                ..Default::default()
            });
        let s = tmuxwire::tmux::Servers::new(std::sync::Arc::new(tmux), Default::default());
        let want = tmux_lines(&server, &pane, &["-S", "-", "-E", "-"]);
        assert!(want.iter().any(|l| l == "abcdefgh"), "{ctx}: {want:?}");
        // The search seeds the copy.
        ok_typed(&s, search_for("warm-up")).await;
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            let rows = ok_typed(
                &s,
                CapturePaneArgs {
                    start: Some(-1000),
                    max_lines: None,
                    ..CapturePaneArgs::on(&pane)
                },
            )
            .await;
            // (3.6+ keeps the TAB as a cell, which the trimmed lines of tmux's capture drop.)
            let got: Vec<String> = lines_of(rows["result"].as_str().unwrap_or(""))
                .iter()
                .map(|l| l.trim_end().to_string())
                .collect();
            if rows["source"] == json!("mirror") && got == want {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{ctx}: the copy's rows never became tmux's: {rows} want {want:?}"
            );
            // A pause in requests lets the check run.
            tokio::time::sleep(verify_after * 3).await;
        }
        let (got, _) = tool_joined(&s, &pane).await;
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}: lines");
    }
}

/// The newest `TICK-N` the mirror's copy of `pane` shows on its screen (0 before any).
fn last_tick(p: &tmuxwire::mirror::PaneMirror) -> u64 {
    let st = p.view();
    let Some(t) = st.term() else { return 0 };
    let (_, height) = t.size();
    let text = t.capture(
        tmuxwire::term::LineNo(0),
        tmuxwire::term::LineNo(i64::from(height) - 1),
    );
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("TICK-")?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// A search whose scan of one pane takes over a second does not hold up that pane's output:
/// while the scan runs, what the pane prints keeps reaching the mirror's copy (the scan reads a
/// snapshot; before, it held the pane's lock, and the session's watch task waited for it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_scan_does_not_stall_output() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(200, 50)
            .history_limit(1_000_000)
            .start();
        let pane = first_pane(&server);
        let id: tmuxwire::control::PaneId = pane.parse().unwrap();
        let s = mirrored_servers(&server);
        // A regex with no literal to skip by: every byte of the history goes through it.
        let slow = SearchPanesArgs {
            regex: true,
            ..search_for("[A-Z]{3}[0-9]{4}[a-z]{2}")
        };
        // History until one scan takes well over a second (on this machine, in this build).
        let mut lines = 0u64;
        let mut took = std::time::Duration::ZERO;
        for round in 0..6 {
            if took >= std::time::Duration::from_millis(1200) {
                break;
            }
            let n = 100_000u64 << round.min(2);
            // Printed at the pace of tmux and the mirror together: the deadline grows with the
            // lines (a loaded machine takes over 15 s for 400,000 of them).
            let (mark, echo) = marker();
            type_line(
                &server,
                &pane,
                &format!(
                    "seq -f 'history line %09g: the quick brown fox jumps over the lazy dog 0123456789' {} {}; {echo}",
                    lines + 1,
                    lines + n
                ),
            );
            server.wait_for_text(&pane, &mark, DEADLINE * (n / 50_000) as u32);
            lines += n;
            // Timed once the copy holds the lines: the first search also seeds the copy, and a
            // seed can take longer than the scan it is there for. The shorter of two timed
            // scans counts: one slowed by a busy machine must not stop the history short.
            ok_typed(&s, slow.clone()).await;
            took = std::time::Duration::MAX;
            for _ in 0..2 {
                let t0 = std::time::Instant::now();
                let v = ok_typed(&s, slow.clone()).await;
                took = took.min(t0.elapsed());
                assert_eq!(v["panes_searched"], json!(1), "{ctx}: {v}");
            }
            eprintln!("{ctx}: {lines} lines of history: a search took {took:?}");
        }
        assert!(
            took >= std::time::Duration::from_secs(1),
            "{ctx}: could not make a scan last a second ({took:?} over {lines} lines)"
        );
        // The pane now prints a tick every 50 ms (the program's pace, not the test's).
        type_line(
            &server,
            &pane,
            "i=0; while :; do i=$((i+1)); echo TICK-$i; sleep 0.05; done",
        );
        server.wait_for_text(&pane, "TICK-3", DEADLINE);
        let m = s.default_server().mirror().await.expect("mirror on");
        let p = m.pane(id).expect("the pane's copy");
        crate::support::wait_until_async("the copy follows the ticks", || {
            let p = p.clone();
            async move { (last_tick(&p) >= 3).then_some(()) }
        })
        .await;

        let started = std::time::Instant::now();
        let search = {
            let s = s.clone();
            let slow = slow.clone();
            tokio::spawn(async move {
                let v = ok_typed(&s, slow).await;
                (v, std::time::Instant::now())
            })
        };
        // Each tick the copy shows, and when it showed it, until the search ends.
        let mut seen: Vec<(std::time::Instant, u64)> = Vec::new();
        let mut rx = p.subscribe();
        while !search.is_finished() {
            // Woken by the copy's changes; the bound only lets the loop notice the search's end.
            let _ = tokio::time::timeout(std::time::Duration::from_millis(100), rx.changed()).await;
            let p = p.clone();
            // Read off the runtime's workers: a reader blocked behind a stalled writer must not
            // stall the runtime too.
            let tick = tokio::task::spawn_blocking(move || last_tick(&p))
                .await
                .expect("reading the copy");
            seen.push((std::time::Instant::now(), tick));
        }
        let (v, ended) = search.await.expect("the search task");
        let took = ended - started;
        assert_eq!(v["matches"].as_array().map(Vec::len), Some(0), "{ctx}: {v}");
        assert!(
            took >= std::time::Duration::from_millis(600),
            "{ctx}: the scan was too short to tell ({took:?})"
        );
        // Ticks that reached the copy in the middle half of the search: a stalled copy shows none
        // (the scan is all but the whole search), a copy fed while the scan runs shows about one
        // per 50 ms.
        let (from, to) = (started + took / 4, ended - took / 4);
        let mid: Vec<u64> = seen
            .iter()
            .filter(|(at, _)| *at >= from && *at <= to)
            .map(|(_, t)| *t)
            .collect();
        let advances = mid.windows(2).filter(|w| w[1] > w[0]).count();
        assert!(
            advances >= 2,
            "{ctx}: the copy stalled during a {took:?} search: ticks seen {seen:?} (from {from:?} to {to:?})",
            seen = seen
                .iter()
                .map(|(at, t)| (at.duration_since(started), *t))
                .collect::<Vec<_>>(),
            from = from - started,
            to = to - started,
        );
    }
}

/// OSC 133 marks from real bash (the minimal snippet of tmux issue 5417) reach the mirror's
/// copy through `%output`: each command becomes a record with its text and exit status, an
/// empty Enter none with a made-up status, and the modes bash sets (bracketed paste) are
/// tracked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_osc_133_commands_reach_the_copy() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let home = tempfile::tempdir().expect("temp home");
        let cmd = crate::support::clean_bash(home.path());
        let server = TestServer::builder(&bin).size(80, 20).command(&cmd).start();
        let pane = first_pane(&server);
        let s = mirrored_servers(&server);
        ok_typed(&s, search_for("warm-up")).await;
        let m = mirror_of(&s).await;
        let id: tmuxwire::control::PaneId = pane.parse().unwrap();
        let snippet = r#"PS1='\[\e]133;A\a\]'"$PS1"'\[\e]133;B\a\]'; PS0='\[\e]133;C\a\]'; PROMPT_COMMAND=('printf "\033]133;D;%d\a" $?')"#;
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", snippet]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        for keys in ["true", "echo out-$((6*7))", "(exit 7)", "", "false"] {
            if !keys.is_empty() {
                server.tmux_ok(&["send-keys", "-t", &pane, "-l", keys]);
            }
            server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        }
        let records = crate::support::wait_until_async("the copy has the commands", || {
            let m = m.clone();
            async move {
                let p = m.pane(id)?;
                let st = p.view();
                let c = st.commands()?;
                let done: Vec<(Option<String>, Option<u8>)> = c
                    .records()
                    .filter(|r| r.ended.is_some())
                    .map(|r| (r.command.clone(), r.exit_status))
                    .collect();
                // bash's readline turns bracketed paste on at each prompt, after
                // PROMPT_COMMAND has printed the `D` mark: the two can reach the copy in
                // separate `%output` blocks, so wait for both.
                let paste = st.private_modes().and_then(|m| m.bracketed_paste);
                (paste == Some(true) && done.iter().any(|(c, _)| c.as_deref() == Some("false")))
                    .then_some(done)
            }
        })
        .await;
        let ran: Vec<_> = records
            .iter()
            .filter(|(c, _)| c.is_some())
            .cloned()
            .collect();
        assert_eq!(
            ran,
            vec![
                (Some("true".to_string()), Some(0)),
                (Some("echo out-$((6*7))".to_string()), Some(0)),
                (Some("(exit 7)".to_string()), Some(7)),
                (Some("false".to_string()), Some(1)),
            ],
            "{ctx}: {records:?}"
        );
        let p = m.pane(id).expect("pane");
        let st = p.view();
        let c = st.commands().expect("copy");
        let last = c
            .records()
            .rev()
            .find(|r| r.command.as_deref() == Some("false"));
        let last = last.expect("false's record");
        assert!(
            last.started_at.is_some() && last.ended_at >= last.started_at,
            "{ctx}"
        );
        assert!(
            last.output_start.is_some() && last.output_end.is_some(),
            "{ctx}"
        );
        // Still on: nothing turned it off since.
        assert_eq!(
            st.private_modes().and_then(|m| m.bracketed_paste),
            Some(true),
            "{ctx}"
        );
        drop(st);
        let screen = p.settle_screen().expect("copy");
        assert!(
            screen.hash.is_some() && screen.last_change_at.is_some(),
            "{ctx}"
        );
        // The copy's text is still tmux's.
        let (got, _) = tool_joined(&s, &pane).await;
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}");
    }
}

/// The first call follows a pane without reading its history: its copy holds the screen and
/// counts tmux's history rows as absent. A search then fills it: the copy holds tmux's whole
/// history after, its line numbers are tmux's, and it kept its epoch (what was followed before
/// the fill is numbered as after).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_of_the_screen_is_filled_when_the_history_is_read() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(40, 10)
            .history_limit(50_000)
            .start();
        let pane = first_pane(&server);
        run(&server, &pane, "seq -f 'old %g' 1 3000");
        let s = mirrored_servers(&server);
        let v = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        assert_eq!(v["source"], json!("mirror"), "{ctx}: {v}");
        let m = s
            .default_server()
            .running_mirror()
            .expect("the mirror runs");
        let id: tmuxwire::control::PaneId = pane.parse().expect("pane id");
        let p = m.pane(id).expect("the pane is followed");
        let (absent, held, epoch) = {
            let st = p.view();
            let held = st.term().map_or(0, |t| t.history_size() as u64);
            (st.absent_rows(), held, st.epoch())
        };
        let hsize = crate::support::tool::history_size(&server, &pane);
        // (The prompt after the last command may have scrolled a row in since.)
        assert!(absent > 2000, "{ctx}: the history was not read: {absent}");
        assert_eq!(absent + held, hsize as u64, "{ctx}: tmux's history size");
        // Followed: these rows scroll into the copy's own history.
        run(&server, &pane, "seq -f 'new %g' 1 30");
        let v = ok_typed(&s, search_for("old 1500")).await;
        let m0 = &v["matches"][0];
        assert_eq!(m0["source"], json!("mirror"), "{ctx}: {v}");
        assert_eq!(m0["matched_lines"], json!(["old 1500"]), "{ctx}: {v}");
        let line = m0["matched_line_numbers"][0]
            .as_i64()
            .expect("a line number");
        let at = line.to_string();
        assert_eq!(
            tmux_lines(&server, &pane, &["-S", &at, "-E", &at]),
            ["old 1500"],
            "{ctx}: line {line}"
        );
        {
            let st = p.view();
            assert_eq!(st.absent_rows(), 0, "{ctx}: filled");
            assert_eq!(st.epoch(), epoch, "{ctx}: a fill keeps the numbering");
        }
        let (got, _) = tool_joined(&s, &pane).await;
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}: lines");
    }
}

/// What tmux changes without output reaches the answers all the same: the fence a search
/// waits for lists every pane's history size, so a `clear-history` between two searches
/// makes the copy seeded again, and the second search no longer finds what tmux dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fence_sees_a_cleared_history() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(40, 10)
            .history_limit(5000)
            .start();
        let pane = first_pane(&server);
        run(&server, &pane, "printf 'CLEARED-%s\\n' MARK; seq 1 40");
        let s = mirrored_servers(&server);
        let v = ok_typed(&s, search_for("CLEARED-MARK")).await;
        assert_eq!(v["total_panes_matched"], json!(1), "{ctx}: {v}");
        server.tmux_ok(&["clear-history", "-t", &pane]);
        let v = ok_typed(&s, search_for("CLEARED-MARK")).await;
        assert_eq!(v["total_panes_matched"], json!(0), "{ctx}: {v}");
        let (got, _) = tool_joined(&s, &pane).await;
        assert_eq!(got, tmux_joined(&server, &pane), "{ctx}: lines");
    }
}
