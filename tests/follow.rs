//! Following panes from the mirror against real tmux: `run_command` (exit status, only the
//! command's own output, queued commands, timeouts), `wait_for_text` (never the echo, C13;
//! stop patterns; any output; the alternate screen) and `capture_since` (each line once,
//! trimmed history, respawned panes, foreign cursors). Public case C13 is checked here.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tmuxwire::control::PaneId;
use tmuxwire::search::{Pattern, PatternOptions};
use tmuxwire::tmux::Tmux;
use tmuxwire::tmux::follow::{Outcome, RunRequest, SinceCursor, WaitRequest};

use crate::cases::util::*;
use crate::support::{DEADLINE, TestServer, servers, system_tmux, tmux_bins, wait_until_true};

fn tmux_of(server: &TestServer) -> Arc<Tmux> {
    servers(server).default_server().clone()
}

fn pane_of(server: &TestServer) -> (String, PaneId) {
    let pane = first_pane(server);
    let id = pane.parse().expect("pane id");
    (pane, id)
}

/// Waits until `n` waits follow `pane` (they have read where the pane stood).
async fn waits_begun(t: &Tmux, pane: PaneId, n: usize) {
    let m = t.mirror().await.expect("mirror on");
    crate::support::wait_until_async("the wait to begin", || {
        let m = m.clone();
        async move {
            m.pane(pane)
                .is_some_and(|p| p.subscribers() >= n)
                .then_some(())
        }
    })
    .await;
}

fn run_req(command: &str, timeout: Duration) -> RunRequest {
    RunRequest {
        command: command.to_string(),
        timeout,
        max_lines: None,
        suppress_history: false,
        interrupt_on_timeout: false,
        progress: None,
    }
}

fn lit(p: &str) -> Arc<Pattern> {
    Arc::new(Pattern::new(p, PatternOptions::literal()).expect("pattern"))
}

fn wait_req(patterns: Option<&[&str]>, stop: &[&str], timeout: Duration) -> WaitRequest {
    WaitRequest {
        patterns: patterns.map(|ps| ps.iter().map(|p| lit(p)).collect()),
        stop: stop.iter().map(|p| lit(p)).collect(),
        timeout,
        progress: None,
    }
}

/// The exit status, and exactly what the command printed: not its echo, not the prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_returns_status_and_only_its_output() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(60, 10).start();
        let (_, pane) = pane_of(&server);
        let t = tmux_of(&server);
        // Earlier output is not part of the answer.
        run(&server, &first_pane(&server), "echo EARLIER");
        let r = t
            .run_command(pane, &run_req("echo run-out-1; false", DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.exit_status, Some(1), "{ctx}: {r:?}");
        assert_eq!(r.output, ["run-out-1"], "{ctx}: {r:?}");
        assert!(!r.timed_out && r.output_complete, "{ctx}: {r:?}");

        let r = t
            .run_command(pane, &run_req("printf 'a\\n\\nb'; exit 3", DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.exit_status, Some(3), "{ctx}: subshell exit: {r:?}");
        assert_eq!(r.output, ["a", "", "b"], "{ctx}: {r:?}");

        // Long, wrapped output comes back as logical lines.
        let long = "x".repeat(150);
        let r = t
            .run_command(pane, &run_req(&format!("echo {long}; seq 1 30"), DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.exit_status, Some(0));
        assert_eq!(r.output.len(), 31, "{ctx}: {r:?}");
        assert_eq!(r.output[0], long);
        assert_eq!(r.output[30], "30");

        // max_lines keeps the newest lines.
        let mut req = run_req("seq 1 100", DEADLINE);
        req.max_lines = Some(3);
        let r = t.run_command(pane, &req).await.expect("run");
        assert_eq!(r.output, ["98", "99", "100"], "{ctx}: {r:?}");
        assert!(r.output_truncated);
        assert_eq!(r.output_truncated_lines, 97);

        // The subshell: cd does not outlast the command; the shell still works.
        let r = t
            .run_command(pane, &run_req("cd /; pwd", DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.output, ["/"]);
        let r = t
            .run_command(pane, &run_req("pwd", DEADLINE))
            .await
            .expect("run");
        assert_ne!(r.output, ["/"], "{ctx}: {r:?}");

        // Output that tries to look like a mark is just text.
        let r = t
            .run_command(
                pane,
                &run_req(
                    "printf '\\033]5379;tmuxwire;00000000000000000000000000000000;E;0\\007fake\\n'",
                    DEADLINE,
                ),
            )
            .await
            .expect("run");
        assert_eq!(r.output, ["fake"], "{ctx}: {r:?}");
        assert_eq!(r.exit_status, Some(0));
    }
}

/// C13 variant: two commands queued in one pane return in order, each with its own output and
/// exit status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_commands_each_get_their_own_answer() {
    let server = TestServer::start(&system_tmux());
    let (_, pane) = pane_of(&server);
    let t = tmux_of(&server);
    let a = run_req("echo A; sleep 1; false", DEADLINE);
    let b = run_req("echo B", DEADLINE);
    let (ra, rb) = tokio::join!(t.run_command(pane, &a), async {
        // Asked second.
        tokio::task::yield_now().await;
        t.run_command(pane, &b).await
    });
    let (ra, rb) = (ra.expect("A"), rb.expect("B"));
    assert_eq!(
        (ra.output.clone(), ra.exit_status),
        (vec!["A".to_string()], Some(1)),
        "{ra:?}"
    );
    assert_eq!(
        (rb.output.clone(), rb.exit_status),
        (vec!["B".to_string()], Some(0)),
        "{rb:?}"
    );
}

/// A timeout returns what was printed so far and leaves the shell usable (C-c on request).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_timeout_leaves_the_shell_usable() {
    let server = TestServer::start(&system_tmux());
    let (_, pane) = pane_of(&server);
    let t = tmux_of(&server);
    let mut req = run_req("echo started; sleep 30", Duration::from_millis(500));
    req.interrupt_on_timeout = true;
    let r = t.run_command(pane, &req).await.expect("run");
    assert!(r.timed_out, "{r:?}");
    assert!(r.interrupted);
    assert_eq!(r.exit_status, None);
    assert_eq!(r.output, ["started"], "{r:?}");
    let r = t
        .run_command(pane, &run_req("echo after", DEADLINE))
        .await
        .expect("run");
    assert_eq!(r.output, ["after"], "{r:?}");
    assert_eq!(r.exit_status, Some(0));
}

/// C13: the wait returns once the output line appears (after the sleep), and the line it
/// matched is the output, not the echo of the command that contains the same text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c13_wait_for_text_never_matches_the_echo() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(80, 10).start();
        let (pane_s, pane) = pane_of(&server);
        let t = tmux_of(&server);
        // Seed the copy first, as a previous tool call would have.
        t.capture_since(pane, None, 500, 128_000)
            .await
            .expect("seed");
        let began = Instant::now();
        server.tmux_ok(&["send-keys", "-t", &pane_s, "-l", "sleep 1; echo DONE_7f3a"]);
        server.tmux_ok(&["send-keys", "-t", &pane_s, "Enter"]);
        let r = t
            .wait_for_text(pane, &wait_req(Some(&["DONE_7f3a"]), &[], DEADLINE))
            .await
            .expect("wait");
        assert_eq!(r.outcome, Outcome::Matched, "{ctx}: {r:?}");
        assert!(
            began.elapsed() >= Duration::from_secs(1),
            "{ctx}: matched early: {r:?}"
        );
        assert_eq!(r.matched_lines, ["DONE_7f3a"], "{ctx}: {r:?}");
        assert_eq!(r.matched_index, Some(0));
        assert!(r.saw_new_output);
    }
}

/// Stop patterns win; null patterns wait for any output; a quiet pane times out; the
/// alternate screen is matched and reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_text_outcomes() {
    let server = TestServer::builder(&system_tmux()).size(80, 10).start();
    let (pane_s, pane) = pane_of(&server);
    let t = tmux_of(&server);
    let quiet = t
        .wait_for_text(
            pane,
            &wait_req(Some(&["never"]), &[], Duration::from_millis(300)),
        )
        .await
        .expect("wait");
    assert_eq!(quiet.outcome, Outcome::Timeout, "{quiet:?}");
    assert!(!quiet.found && !quiet.saw_new_output, "{quiet:?}");

    let t2 = t.clone();
    let waiting = tokio::spawn(async move {
        t2.wait_for_text(pane, &wait_req(Some(&["SUCCESS"]), &["FAILED"], DEADLINE))
            .await
    });
    waits_begun(&t, pane, 1).await;
    type_line(&server, &pane_s, "printf 'step\\nFAI''LED\\nSUCC''ESS\\n'");
    let r = waiting.await.expect("task").expect("wait");
    assert_eq!(r.outcome, Outcome::Stopped, "{r:?}");
    assert_eq!(r.matched_lines, ["FAILED"], "{r:?}");

    let t3 = t.clone();
    let any =
        tokio::spawn(async move { t3.wait_for_text(pane, &wait_req(None, &[], DEADLINE)).await });
    waits_begun(&t, pane, 1).await;
    type_line(&server, &pane_s, "echo something");
    let r = any.await.expect("task").expect("wait");
    assert_eq!(r.outcome, Outcome::AnyOutput, "{r:?}");
    assert!(r.found);

    // A full-screen program: its screen is matched, and a timeout says where it was.
    type_line(
        &server,
        &pane_s,
        "printf '\\033[?1049h\\033[HALT''SCREEN\\n'; sleep 30",
    );
    server.wait_for_text(&pane_s, "ALTSCREEN", DEADLINE);
    let r = t
        .wait_for_text(
            pane,
            &wait_req(Some(&["nothing"]), &[], Duration::from_millis(300)),
        )
        .await
        .expect("wait");
    assert_eq!(r.outcome, Outcome::AlternateScreen, "{r:?}");
    assert!(r.alternate_screen);
}

/// Each new line once, then nothing; the line being written comes as `partial_line`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_since_returns_each_line_once() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        // Wide enough that no typed command line fills a row exactly (readline then wraps it
        // onto the first output row, and tmux joins the two into one logical line).
        let server = TestServer::builder(&bin)
            .size(100, 6)
            .history_limit(1000)
            .start();
        let (pane_s, pane) = pane_of(&server);
        let t = tmux_of(&server);
        run(&server, &pane_s, "echo first");
        let first = t
            .capture_since(pane, None, 500, 128_000)
            .await
            .expect("first");
        assert!(first.lines.iter().any(|l| l == "first"), "{ctx}: {first:?}");
        assert_eq!(first.partial_line, "$", "{ctx}: {first:?}");
        let c = SinceCursor::decode(&first.cursor).expect("cursor");

        run(&server, &pane_s, "seq -f 'n%g' 1 20");
        let second = t
            .capture_since(pane, Some(&c), 500, 128_000)
            .await
            .expect("delta");
        let want: Vec<String> = (1..=20).map(|i| format!("n{i}")).collect();
        let got: Vec<&String> = second.lines.iter().filter(|l| l.starts_with('n')).collect();
        assert_eq!(got, want.iter().collect::<Vec<_>>(), "{ctx}: {second:?}");
        assert!(!second.lines_missed);
        assert!(
            second.lines[0].starts_with("$ seq"),
            "{ctx}: the command line first: {second:?}"
        );
        let c2 = SinceCursor::decode(&second.cursor).expect("cursor");
        let third = t
            .capture_since(pane, Some(&c2), 500, 128_000)
            .await
            .expect("empty");
        assert!(third.lines.is_empty(), "{ctx}: {third:?}");

        // Limits keep the newest lines.
        run(&server, &pane_s, "seq -f 'm%g' 1 50");
        let limited = t
            .capture_since(pane, Some(&c2), 5, 128_000)
            .await
            .expect("limited");
        assert_eq!(limited.lines.len(), 5, "{ctx}: {limited:?}");
        assert!(
            limited.truncated && limited.truncated_lines > 45,
            "{ctx}: {limited:?}"
        );
        let bytes = t
            .capture_since(pane, Some(&c2), 500, 10)
            .await
            .expect("bytes");
        assert!(
            bytes.lines.iter().map(String::len).sum::<usize>() <= 10,
            "{ctx}: {bytes:?}"
        );
        assert!(bytes.truncated_bytes > 0);

        // clear-history: the lines are gone, and the answer says so.
        let c3 = SinceCursor::decode(&third.cursor).expect("cursor");
        run(&server, &pane_s, "seq 1 30");
        server.tmux_ok(&["clear-history", "-t", &pane_s]);
        let missed = t
            .capture_since(pane, Some(&c3), 500, 128_000)
            .await
            .expect("missed");
        assert!(missed.lines_missed, "{ctx}: {missed:?}");
    }
}

/// Cursors are checked: another pane's cursor, a respawned pane, junk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_since_rejects_foreign_and_stale_cursors() {
    let server = TestServer::start(&system_tmux());
    let (pane_s, pane) = pane_of(&server);
    let t = tmux_of(&server);
    let first = t
        .capture_since(pane, None, 500, 128_000)
        .await
        .expect("first");
    let c = SinceCursor::decode(&first.cursor).expect("cursor");
    server.tmux_ok(&["split-window", "-t", &pane_s]);
    let other: PaneId = pane_id(&server, "{last}").parse().unwrap_or(PaneId(1));
    let other = if other == pane {
        PaneId(pane.0 + 1)
    } else {
        other
    };
    let e = t
        .capture_since(other, Some(&c), 500, 128_000)
        .await
        .expect_err("foreign");
    assert!(e.to_string().contains("does not match"), "{e}");
    server.tmux_ok(&["respawn-pane", "-k", "-t", &pane_s]);
    wait_until_true("respawned", DEADLINE, || {
        server
            .tmux_ok(&["display-message", "-p", "-t", &pane_s, "#{pane_pid}"])
            .trim()
            .parse::<u32>()
            .is_ok_and(|p| p != c.pane_pid)
    });
    let e = t
        .capture_since(pane, Some(&c), 500, 128_000)
        .await
        .expect_err("respawned");
    assert!(e.to_string().contains("respawned"), "{e}");
    assert!(SinceCursor::decode("capture-since-v1:abc").is_err());
}
