//! Following panes from the mirror against real tmux: `run_command` (exit status, only the
//! command's own output, queued commands, timeouts), `wait_for_text` (never the echo, C13;
//! stop patterns; any output; the alternate screen) and `capture_since` (each line once,
//! trimmed history, respawned panes, foreign cursors). Public case C13 is checked here.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tmuxwire::control::PaneId;
use tmuxwire::mirror::lines::Keep;
use tmuxwire::search::{Pattern, PatternOptions};
use tmuxwire::tmux::op::run::RunCommandRequest;
use tmuxwire::tmux::op::since::CaptureSinceRequest;
use tmuxwire::tmux::op::text::WaitForTextRequest;
use tmuxwire::tmux::op::{self, Limit};
use tmuxwire::tmux::pane_text::{
    CaptureSinceResult, Outcome, RunCommandResult, RunOutcome, SinceCursor, WaitForTextResult,
};
use tmuxwire::tmux::{Error, Selector, Server};

use crate::support::tool::*;
use crate::support::{
    DEADLINE, SH, TestServer, servers, system_tmux, tmux_bins, wait_until_true, waits_begun,
};
use tmuxwire::mcp::args::{CaptureSinceArgs, RunCommandArgs, SendKeysArgs, WaitForTextArgs};

fn tmux_of(server: &TestServer) -> Arc<Server> {
    servers(server).default_server().clone()
}

fn pane_of(server: &TestServer) -> (String, PaneId) {
    let pane = first_pane(server);
    let id = pane.parse().expect("pane id");
    (pane, id)
}

/// The selector of pane `pane`.
fn sel(pane: PaneId) -> Selector {
    Selector {
        pane_id: Some(pane),
        ..Selector::default()
    }
}

/// `req` for `pane`, run as the MCP tool and the CLI run it.
async fn run_command(
    t: &Server,
    pane: PaneId,
    req: &RunCommandRequest,
) -> Result<RunCommandResult, Error> {
    let req = RunCommandRequest {
        pane: sel(pane),
        ..req.clone()
    };
    op::run(t, req, Limit::NONE).await
}

/// `req` for `pane`, run as the MCP tool and the CLI run it.
async fn wait_for_text(
    t: &Server,
    pane: PaneId,
    req: &WaitForTextRequest,
) -> Result<WaitForTextResult, Error> {
    let req = WaitForTextRequest {
        pane: sel(pane),
        ..req.clone()
    };
    op::run(t, req, Limit::NONE).await
}

/// `capture_since` of `pane` after `cursor`.
async fn capture_since(
    t: &Server,
    pane: PaneId,
    cursor: Option<&SinceCursor>,
    max_lines: usize,
    max_bytes: usize,
) -> Result<CaptureSinceResult, Error> {
    capture_since_keeping(t, pane, cursor, max_lines, max_bytes, Keep::Oldest).await
}

/// [`capture_since`] keeping the oldest or the newest lines over a limit.
async fn capture_since_keeping(
    t: &Server,
    pane: PaneId,
    cursor: Option<&SinceCursor>,
    max_lines: usize,
    max_bytes: usize,
    keep: Keep,
) -> Result<CaptureSinceResult, Error> {
    let mut req = CaptureSinceRequest::new(sel(pane), cursor.copied(), max_lines, max_bytes);
    req.keep = keep;
    op::run(t, req, Limit::NONE).await
}

fn run_req(command: &str, timeout: Duration) -> RunCommandRequest {
    RunCommandRequest {
        pane: Selector::default(),
        command: command.to_string(),
        timeout,
        max_lines: None,
        suppress_history: false,
        interrupt_on_timeout: false,
        marks: false,
        progress: None,
    }
}

fn lit(p: &str) -> Arc<Pattern> {
    Arc::new(Pattern::new(p, PatternOptions::literal()).expect("pattern"))
}

fn wait_req(patterns: Option<&[&str]>, stop: &[&str], timeout: Duration) -> WaitForTextRequest {
    WaitForTextRequest {
        pane: Selector::default(),
        patterns: patterns.map(|ps| ps.iter().map(|p| lit(p)).collect()),
        stop: stop.iter().map(|p| lit(p)).collect(),
        timeout,
        progress: None,
        redact: false,
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
        let r = run_command(&t, pane, &run_req("echo run-out-1; false", DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.exit_status, Some(1), "{ctx}: {r:?}");
        assert_eq!(r.output, ["run-out-1"], "{ctx}: {r:?}");
        assert!(!r.timed_out && r.output_complete, "{ctx}: {r:?}");

        let r = run_command(&t, pane, &run_req("printf 'a\\n\\nb'; exit 3", DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.exit_status, Some(3), "{ctx}: subshell exit: {r:?}");
        assert_eq!(r.output, ["a", "", "b"], "{ctx}: {r:?}");

        // Long, wrapped output comes back as logical lines.
        let long = "x".repeat(150);
        let r = run_command(
            &t,
            pane,
            &run_req(&format!("echo {long}; seq 1 30"), DEADLINE),
        )
        .await
        .expect("run");
        assert_eq!(r.exit_status, Some(0));
        assert_eq!(r.output.len(), 31, "{ctx}: {r:?}");
        assert_eq!(r.output[0], long);
        assert_eq!(r.output[30], "30");

        // max_lines keeps the newest lines.
        let mut req = run_req("seq 1 100", DEADLINE);
        req.max_lines = Some(3);
        let r = run_command(&t, pane, &req).await.expect("run");
        assert_eq!(r.output, ["98", "99", "100"], "{ctx}: {r:?}");
        assert!(r.output_truncated);
        assert_eq!(r.output_truncated_lines, 97);

        // The subshell: cd does not outlast the command; the shell still works.
        let r = run_command(&t, pane, &run_req("cd /; pwd", DEADLINE))
            .await
            .expect("run");
        assert_eq!(r.output, ["/"]);
        let r = run_command(&t, pane, &run_req("pwd", DEADLINE))
            .await
            .expect("run");
        assert_ne!(r.output, ["/"], "{ctx}: {r:?}");

        // Output that tries to look like a mark is just text.
        let r = run_command(
            &t,
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
    let (ra, rb) = tokio::join!(run_command(&t, pane, &a), async {
        // Asked second.
        tokio::task::yield_now().await;
        run_command(&t, pane, &b).await
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
    let r = run_command(&t, pane, &req).await.expect("run");
    assert!(r.timed_out, "{r:?}");
    assert!(r.interrupted);
    assert_eq!(r.exit_status, None);
    assert_eq!(r.output, ["started"], "{r:?}");
    let r = run_command(&t, pane, &run_req("echo after", DEADLINE))
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
        capture_since(&t, pane, None, 500, 128_000)
            .await
            .expect("seed");
        let began = Instant::now();
        server.tmux_ok(&["send-keys", "-t", &pane_s, "-l", "sleep 1; echo DONE_7f3a"]);
        server.tmux_ok(&["send-keys", "-t", &pane_s, "Enter"]);
        // The echo of a line someone else typed is on the screen when the wait begins
        // (what a wait can tell from output: an echo that arrives after it began, typed by
        // another client, reads as any other text on the prompt line).
        wait_until_true("the echo on the screen", DEADLINE, || {
            server
                .tmux_ok(&["capture-pane", "-p", "-t", &pane_s])
                .contains("echo DONE_7f3a")
        });
        let r = wait_for_text(&t, pane, &wait_req(Some(&["DONE_7f3a"]), &[], DEADLINE))
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

/// A line printed, line break included, on the empty line the cursor was on when the wait
/// began is new output: matched, and counted in `saw_new_output` and `tail`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_on_the_entry_line_is_new_output() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(80, 10).start();
        let (pane_s, pane) = pane_of(&server);
        let t = tmux_of(&server);
        capture_since(&t, pane, None, 500, 128_000)
            .await
            .expect("seed");
        type_line(&server, &pane_s, "sleep 1; echo ENTRY-\"\"LINE");
        // The command runs: the cursor waits on the empty line below it.
        wait_until_true("sleep to run", DEADLINE, || {
            server
                .tmux_ok(&[
                    "display-message",
                    "-p",
                    "-t",
                    &pane_s,
                    "#{pane_current_command}",
                ])
                .trim()
                == "sleep"
        });
        let r = wait_for_text(&t, pane, &wait_req(Some(&["ENTRY-LINE"]), &[], DEADLINE))
            .await
            .expect("wait");
        assert_eq!(r.outcome, Outcome::Matched, "{ctx}: {r:?}");
        assert_eq!(r.matched_lines, ["ENTRY-LINE"], "{ctx}: {r:?}");
        assert!(r.saw_new_output, "{ctx}: {r:?}");
        assert!(r.tail.iter().any(|l| l == "ENTRY-LINE"), "{ctx}: {r:?}");
    }
}

/// Stop patterns win; null patterns wait for any output; a quiet pane times out; the
/// alternate screen is matched and reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_text_outcomes() {
    let server = TestServer::builder(&system_tmux()).size(80, 10).start();
    let (pane_s, pane) = pane_of(&server);
    let t = tmux_of(&server);
    let quiet = wait_for_text(
        &t,
        pane,
        &wait_req(Some(&["never"]), &[], Duration::from_millis(300)),
    )
    .await
    .expect("wait");
    assert_eq!(quiet.outcome, Outcome::Timeout, "{quiet:?}");
    assert!(!quiet.found && !quiet.saw_new_output, "{quiet:?}");

    let t2 = t.clone();
    let waiting = tokio::spawn(async move {
        wait_for_text(
            &t2,
            pane,
            &wait_req(Some(&["SUCCESS"]), &["FAILED"], DEADLINE),
        )
        .await
    });
    waits_begun(&t, pane, 1).await;
    type_line(&server, &pane_s, "printf 'step\\nFAI''LED\\nSUCC''ESS\\n'");
    let r = waiting.await.expect("task").expect("wait");
    assert_eq!(r.outcome, Outcome::Stopped, "{r:?}");
    assert_eq!(r.matched_lines, ["FAILED"], "{r:?}");

    let t3 = t.clone();
    let any =
        tokio::spawn(async move { wait_for_text(&t3, pane, &wait_req(None, &[], DEADLINE)).await });
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
    let r = wait_for_text(
        &t,
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
        let first = capture_since(&t, pane, None, 500, 128_000)
            .await
            .expect("first");
        assert!(first.lines.iter().any(|l| l == "first"), "{ctx}: {first:?}");
        assert_eq!(first.partial_line, "$", "{ctx}: {first:?}");
        let c = SinceCursor::decode(&first.cursor).expect("cursor");

        run(&server, &pane_s, "seq -f 'n%g' 1 20");
        let second = capture_since(&t, pane, Some(&c), 500, 128_000)
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
        let third = capture_since(&t, pane, Some(&c2), 500, 128_000)
            .await
            .expect("empty");
        assert!(third.lines.is_empty(), "{ctx}: {third:?}");

        // keep newest (libtmux-mcp): limits keep the newest lines, the older are skipped.
        run(&server, &pane_s, "seq -f 'm%g' 1 50");
        let limited = capture_since_keeping(&t, pane, Some(&c2), 5, 128_000, Keep::Newest)
            .await
            .expect("limited");
        assert_eq!(limited.lines.len(), 5, "{ctx}: {limited:?}");
        assert_eq!(limited.lines_remaining, 0, "{ctx}: {limited:?}");
        assert!(
            limited.truncated && limited.truncated_lines > 45,
            "{ctx}: {limited:?}"
        );
        let bytes = capture_since_keeping(&t, pane, Some(&c2), 500, 10, Keep::Newest)
            .await
            .expect("bytes");
        assert!(
            bytes.lines.iter().map(String::len).sum::<usize>() <= 10,
            "{ctx}: {bytes:?}"
        );
        assert!(bytes.truncated_bytes > 0);
        // keep oldest (the default): the oldest, and the cursor just after them; calls go
        // on until every line came, once, in order.
        let mut got = Vec::new();
        let mut c = c2;
        for (max_lines, max_bytes) in [(500, 3), (5, 128_000), (500, 12), (500, 128_000)] {
            let part = capture_since(&t, pane, Some(&c), max_lines, max_bytes)
                .await
                .expect("oldest");
            assert!(part.lines.len() <= max_lines, "{ctx}: {part:?}");
            assert!(!part.lines_missed, "{ctx}: {part:?}");
            assert_eq!(
                part.truncated,
                part.lines_remaining > 0 || part.truncated_bytes > 0,
                "{ctx}: {part:?}"
            );
            if max_bytes == 3 {
                // The command line is longer than max_bytes: cut, and passed.
                assert_eq!(part.lines, ["$ s"], "{ctx}: {part:?}");
                assert!(part.truncated_bytes > 0, "{ctx}: {part:?}");
            }
            got.extend(part.lines.iter().cloned());
            c = SinceCursor::decode(&part.cursor).expect("cursor");
        }
        let m: Vec<&String> = got.iter().filter(|l| l.starts_with('m')).collect();
        let want: Vec<String> = (1..=50).map(|i| format!("m{i}")).collect();
        assert_eq!(m, want.iter().collect::<Vec<_>>(), "{ctx}: {got:?}");

        // clear-history: the lines are gone, and the answer says so.
        let c3 = SinceCursor::decode(&third.cursor).expect("cursor");
        run(&server, &pane_s, "seq 1 30");
        server.tmux_ok(&["clear-history", "-t", &pane_s]);
        let missed = capture_since(&t, pane, Some(&c3), 500, 128_000)
            .await
            .expect("missed");
        assert!(missed.lines_missed, "{ctx}: {missed:?}");
    }
}

/// The lines of `pane` tmux holds now (its own `capture-pane -p -J -S -`, history and
/// screen) that read `tag-N`: the oracle of what a follower can still be given.
fn held(server: &TestServer, pane: &str, tag: &str) -> Vec<String> {
    let prefix = format!("{tag}-");
    tmux_lines(server, pane, &["-J", "-S", "-"])
        .into_iter()
        .filter(|l| {
            l.strip_prefix(&prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect()
}

/// `tag-from` … `tag-to`.
fn tagged(tag: &str, from: u32, to: u32) -> Vec<String> {
    (from..=to).map(|i| format!("{tag}-{i}")).collect()
}

/// A `capture_since` follower of one pane: its cursor and every line it was given.
struct Follower {
    pane: PaneId,
    cursor: Option<SinceCursor>,
    got: Vec<String>,
}

impl Follower {
    fn new(pane: PaneId) -> Follower {
        Follower {
            pane,
            cursor: None,
            got: Vec::new(),
        }
    }

    /// One `capture_since` (no limit reached): the lines it gave that read `tag-N` for one
    /// of `tags`, and its `lines_missed`.
    async fn read(&mut self, t: &Server, tags: &[&str], ctx: &str) -> (Vec<String>, bool) {
        let r = capture_since(t, self.pane, self.cursor.as_ref(), 100_000, 10_000_000)
            .await
            .unwrap_or_else(|e| panic!("{ctx}: capture_since: {e}"));
        assert_eq!(r.lines_remaining, 0, "{ctx}: {r:?}");
        self.cursor = Some(SinceCursor::decode(&r.cursor).expect("cursor"));
        self.got.extend(r.lines.iter().cloned());
        let lines = r
            .lines
            .iter()
            .filter(|l| {
                tags.iter().any(|tag| {
                    l.strip_prefix(&format!("{tag}-"))
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                })
            })
            .cloned()
            .collect();
        (lines, r.lines_missed)
    }
}

/// C42 (issue 28 point 5): `clear-history`, bursts past `history-limit` and a limit lowered
/// at run time drop lines with no output a control client sees. A follower is given every
/// line tmux still holds (tmux's own `capture-pane -J -S -` is the oracle), once, and
/// `lines_missed` says whether lines it had not read were dropped: after a second
/// `clear-history` the lines that were on the screen and scrolled into the new history
/// (`c-22`…`c-30`) come with `lines_missed`; a fresh follower whose unread lines were
/// cleared is told so; tmux ≥ 3.7 trims every pane at once when `history-limit` is lowered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c42_a_follower_knows_what_it_lost() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin)
            .size(60, 10)
            .history_limit(1000)
            .start();
        let (f_s, f_id) = pane_of(&server);
        let t = tmux_of(&server);
        let mut f = Follower::new(f_id);
        f.read(&t, &[], &ctx).await;

        run(&server, &f_s, "seq -f a-%g 1 50");
        let (lines, missed) = f.read(&t, &["a"], &ctx).await;
        assert_eq!(lines, tagged("a", 1, 50), "{ctx}: a");
        assert!(!missed, "{ctx}: a");

        // Every line cleared was read: nothing missed.
        server.tmux_ok(&["clear-history", "-t", &f_s]);
        run(&server, &f_s, "seq -f b-%g 1 5");
        let (lines, missed) = f.read(&t, &["a", "b"], &ctx).await;
        assert_eq!(lines, tagged("b", 1, 5), "{ctx}: b");
        assert!(!missed, "{ctx}: b");

        // A second clear drops c-1… unread; the rest of c was on the screen and is held.
        run(&server, &f_s, "seq -f c-%g 1 30");
        server.tmux_ok(&["clear-history", "-t", &f_s]);
        run(&server, &f_s, "seq -f d-%g 1 3");
        let (lines, missed) = f.read(&t, &["b", "c", "d"], &ctx).await;
        let want = [held(&server, &f_s, "c"), held(&server, &f_s, "d")].concat();
        // c-22… in C42; one row fewer here (the end marker `run` prints).
        assert!(
            want[0].starts_with("c-") && want[0] != "c-1",
            "{ctx}: tmux holds {want:?}"
        );
        assert_eq!(lines, want, "{ctx}: c, d");
        assert!(missed, "{ctx}: c, d");

        // A burst past history-limit.
        run(&server, &f_s, "seq -f e-%g 1 5000");
        let (lines, missed) = f.read(&t, &["d", "e"], &ctx).await;
        let want = held(&server, &f_s, "e");
        assert!(
            want.len() < 1000 && want[0] != "e-1",
            "{ctx}: tmux holds {want:?}"
        );
        assert_eq!(lines, want, "{ctx}: e");
        assert!(missed, "{ctx}: e");

        // history-limit lowered at run time: tmux ≥ 3.7 trims the pane at once (and keeps
        // to the new limit), older versions keep the pane's limit.
        run(&server, &f_s, "seq -f h-%g 1 300");
        server.tmux_ok(&["set", "-g", "history-limit", "100"]);
        let (lines, missed) = f.read(&t, &["e", "h"], &ctx).await;
        let want = held(&server, &f_s, "h");
        assert_eq!(lines, want, "{ctx}: h");
        assert_eq!(missed, want != tagged("h", 1, 300), "{ctx}: h");
        run(&server, &f_s, "seq -f i-%g 1 300");
        let (lines, missed) = f.read(&t, &["h", "i"], &ctx).await;
        let want = held(&server, &f_s, "i");
        assert_eq!(lines, want, "{ctx}: i");
        assert_eq!(missed, want != tagged("i", 1, 300), "{ctx}: i");
        let trims_at_once = bin.label != "3.3a" && bin.label != "3.5a";
        assert_eq!(
            want.len() < 150,
            trims_at_once,
            "{ctx}: tmux holds {want:?}"
        );

        // Seeded again (a resize makes tmux lay the pane out again): the lines the new copy
        // shares with the old keep their numbers, cleared ones are still missed.
        run(&server, &f_s, "seq -f k-%g 1 30");
        server.tmux_ok(&["clear-history", "-t", &f_s]);
        server.tmux_ok(&["resize-window", "-t", &f_s, "-x", "50", "-y", "10"]);
        let (lines, missed) = f.read(&t, &["i", "k"], &ctx).await;
        let want = held(&server, &f_s, "k");
        assert!(want[0] != "k-1", "{ctx}: tmux holds {want:?}");
        assert_eq!(lines, want, "{ctx}: k");
        assert!(missed, "{ctx}: k");
        run(&server, &f_s, "seq -f l-%g 1 5");
        server.tmux_ok(&["resize-window", "-t", &f_s, "-x", "60", "-y", "10"]);
        let (lines, missed) = f.read(&t, &["k", "l"], &ctx).await;
        assert_eq!(lines, tagged("l", 1, 5), "{ctx}: l");
        assert!(!missed, "{ctx}: l");

        // Each line once.
        let mut seen = std::collections::HashSet::new();
        for l in f.got.iter().filter(|l| l.contains('-') && !l.contains(' ')) {
            assert!(seen.insert(l.clone()), "{ctx}: {l} twice in {:?}", f.got);
        }

        // A fresh follower: one read, then its unread lines are cleared.
        let g_s = server.new_window_pane(&[]);
        server.wait_for_text(&g_s, "$", DEADLINE);
        let mut g = Follower::new(g_s.parse().expect("pane id"));
        g.read(&t, &[], &ctx).await;
        run(&server, &g_s, "seq -f c-%g 1 30");
        server.tmux_ok(&["clear-history", "-t", &g_s]);
        run(&server, &g_s, "seq -f d-%g 1 3");
        let (lines, missed) = g.read(&t, &["c", "d"], &ctx).await;
        let want = [held(&server, &g_s, "c"), held(&server, &g_s, "d")].concat();
        assert!(want[0] != "c-1", "{ctx}: tmux holds {want:?}");
        assert_eq!(lines, want, "{ctx}: fresh follower");
        assert!(missed, "{ctx}: fresh follower");
    }
}

/// Cursors are checked: another pane's cursor, a respawned pane, junk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_since_rejects_foreign_and_stale_cursors() {
    let server = TestServer::start(&system_tmux());
    let (pane_s, pane) = pane_of(&server);
    let t = tmux_of(&server);
    let first = capture_since(&t, pane, None, 500, 128_000)
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
    let e = capture_since(&t, other, Some(&c), 500, 128_000)
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
    let e = capture_since(&t, pane, Some(&c), 500, 128_000)
        .await
        .expect_err("respawned");
    assert!(e.to_string().contains("respawned"), "{e}");
    assert!(SinceCursor::decode("capture-since-v1:abc").is_err());
}

/// The three tools through the MCP tool layer: libtmux-mcp's argument names, defaults and
/// result fields, its errors for bad arguments, the wait ceiling, the cursor's pane as the
/// default target, and `send_keys` telling the mirror what it typed (C13 through the tools).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_tools_through_mcp() {
    use serde_json::json;
    let bin = system_tmux();
    let server = TestServer::builder(&bin).size(100, 12).start();
    let s = Arc::new(servers(&server));
    let pane = first_pane(&server);
    run(&server, &pane, "true");

    // Bad arguments change nothing and say what is wanted.
    let patterns = |p: &[&str]| WaitForTextArgs {
        patterns: Some(p.iter().map(|p| p.to_string()).collect()),
        ..Default::default()
    };
    for (args, needle) in [
        (patterns(&[]), "non-empty list"),
        (patterns(&[""]), "non-empty string"),
        (
            WaitForTextArgs {
                interval: Some(0.001),
                ..patterns(&["x"])
            },
            "at least 0.01",
        ),
        (
            WaitForTextArgs {
                timeout: 0.0,
                ..patterns(&["x"])
            },
            "timeout must be positive",
        ),
        (
            WaitForTextArgs {
                regex: true,
                ..patterns(&["(x"])
            },
            "regex",
        ),
    ] {
        let e = err_typed(&s, args.clone()).await;
        assert!(e.text.contains(needle), "{}: {}", arguments(&args), e.text);
    }
    let e = err_typed(
        &s,
        CaptureSinceArgs {
            cursor: Some("capture-since-v1:abc".into()),
            ..Default::default()
        },
    )
    .await;
    assert!(
        e.text.contains("invalid capture_since cursor"),
        "{}",
        e.text
    );
    let e = err_typed(
        &s,
        CaptureSinceArgs {
            max_lines: Some(0),
            ..Default::default()
        },
    )
    .await;
    assert!(e.text.contains("max_lines"), "{}", e.text);
    let e = err_typed(
        &s,
        RunCommandArgs {
            command: "  ".into(),
            ..Default::default()
        },
    )
    .await;
    assert!(e.text.contains("must not be empty"), "{}", e.text);
    let e = err_typed(
        &s,
        RunCommandArgs {
            command: "a\nb".into(),
            ..Default::default()
        },
    )
    .await;
    assert!(e.text.contains("single line"), "{}", e.text);

    // The ceiling clamps; a silent pane times out; interval is accepted.
    ceiling_and_timeout(&s, &pane).await;

    // capture_since: a first call, then exactly the new lines, then nothing.
    let first = ok_typed(&s, CaptureSinceArgs::on(&pane)).await;
    let cursor = first["cursor"].as_str().expect("cursor").to_string();
    assert_eq!(first["lines_missed"], json!(false));
    run(&server, &pane, "printf 'since-1\\nsince-2\\n'");
    let next = ok_typed(
        &s,
        CaptureSinceArgs {
            cursor: Some(cursor.to_string()),
            ..Default::default()
        },
    )
    .await;
    let lines: Vec<&str> = next["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let i = lines.iter().position(|l| *l == "since-1").expect("since-1");
    assert_eq!(lines[i + 1], "since-2", "{next}");
    assert_eq!(
        next["pane_id"],
        json!(pane),
        "the cursor's pane is the default"
    );
    let cursor = next["cursor"].as_str().unwrap().to_string();
    let again = ok_typed(
        &s,
        CaptureSinceArgs {
            cursor: Some(cursor.clone().to_string()),
            ..CaptureSinceArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(again["lines"], json!([]), "{again}");
    let other = server.tmux_ok(&["split-window", "-d", "-P", "-F", "#{pane_id}"]);
    let e = err_typed(
        &s,
        CaptureSinceArgs {
            cursor: Some(cursor.to_string()),
            pane_id: Some(other.trim().to_string()),
            ..Default::default()
        },
    )
    .await;
    assert!(e.text.contains("cursor"), "{}", e.text);

    // run_command: status and only its own output.
    let r = ok_typed(
        &s,
        RunCommandArgs {
            command: "echo tool-out; (exit 3)".into(),
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(r["exit_status"], json!(3), "{r}");
    assert_eq!(r["output"], json!(["tool-out"]), "{r}");
    assert_eq!(r["timed_out"], json!(false));
    // Numbers as strings, as some clients send them (JSON: the types are the point).
    let r = ok(
        &s,
        "run_command",
        json!({"pane_id": pane, "command": "sleep 30", "timeout": "0.3",
               "interrupt_on_timeout": true}),
    )
    .await;
    assert_eq!(r["timed_out"], json!(true), "{r}");
    assert_eq!(r["exit_status"], json!(null), "{r}");
    let r = ok(
        &s,
        "run_command",
        json!({"pane_id": pane, "command": "echo usable", "max_lines": "5"}),
    )
    .await;
    assert_eq!(
        r["output"],
        json!(["usable"]),
        "the shell is usable after a timeout: {r}"
    );

    // wait_for_text never matches the echo of a command typed with send_keys (C13).
    let waiter = {
        let s = s.clone();
        let pane = pane.clone();
        tokio::spawn(async move {
            ok_typed(
                &s,
                WaitForTextArgs {
                    patterns: Some(vec!["TOOL-DONE-7".into()]),
                    timeout: 20.0,
                    ..WaitForTextArgs::on(&pane)
                },
            )
            .await
        })
    };
    let id: PaneId = pane.parse().unwrap();
    waits_begun(&tmux_of_servers(&s), id, 1).await;
    ok_typed(
        &s,
        SendKeysArgs {
            keys: "sleep 0.2; echo TOOL-DONE-$((3+4))".into(),
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    let r = within_deadline(waiter).await;
    assert_eq!(r["outcome"], json!("matched"), "{r}");
    assert_eq!(r["matched_lines"], json!(["TOOL-DONE-7"]), "{r}");
}

fn tmux_of_servers(s: &tmuxwire::tmux::Servers) -> Arc<Server> {
    s.default_server().clone()
}

async fn within_deadline(h: tokio::task::JoinHandle<serde_json::Value>) -> serde_json::Value {
    tokio::time::timeout(DEADLINE, h)
        .await
        .expect("the wait to end")
        .expect("the wait task")
}

/// `timeout: 999` is clamped to the ceiling (30 s without configuration) and a pane that
/// prints nothing times out after the short timeout given, with `interval` accepted.
async fn ceiling_and_timeout(s: &Arc<tmuxwire::tmux::Servers>, pane: &str) {
    use serde_json::json;
    let started = Instant::now();
    let r = ok_typed(
        s,
        WaitForTextArgs {
            patterns: Some(vec!["never-printed".into()]),
            timeout: 0.3,
            interval: Some(0.5),
            ..WaitForTextArgs::on(pane)
        },
    )
    .await;
    assert_eq!(r["outcome"], json!("timeout"), "{r}");
    assert_eq!(r["found"], json!(false));
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(
        (r["effective_timeout"].as_f64().unwrap() - 0.3).abs() < 1e-9,
        "{r}"
    );
    // The clamp, checked without waiting 30 s: a stop pattern ends the wait.
    let w = {
        let s = s.clone();
        let pane = pane.to_string();
        tokio::spawn(async move {
            ok_typed(
                &s,
                WaitForTextArgs {
                    patterns: Some(vec!["x-never".into()]),
                    stop: Some(vec!["CLAMP-STOP".into()]),
                    timeout: 999.0,
                    ..WaitForTextArgs::on(&pane)
                },
            )
            .await
        })
    };
    let id: PaneId = pane.parse().unwrap();
    waits_begun(&tmux_of_servers(s), id, 1).await;
    ok_typed(
        s,
        SendKeysArgs {
            keys: "echo CLAMP\"\"-STOP".into(),
            ..SendKeysArgs::on(pane)
        },
    )
    .await;
    let r = within_deadline(w).await;
    assert_eq!(r["outcome"], json!("stopped"), "{r}");
    assert_eq!(r["matched_index"], json!(0), "{r}");
    assert_eq!(r["effective_timeout"], json!(30.0), "{r}");
}

/// The send-then-wait flow: a command typed with `send_keys` whose output arrives before
/// `wait_for_text` begins is still its answer (the wait starts from where tmuxwire typed);
/// the echo never matches; `matched_at_entry` ignores the echo.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_printed_before_the_wait_began_answers_the_input() {
    use serde_json::json;
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).size(100, 12).start();
        let s = servers(&server);
        let pane = first_pane(&server);
        run(&server, &pane, "true");
        ok_typed(&s, CaptureSinceArgs::on(&pane)).await; // the copy exists
        let names = server.tmux_ok(&[
            "display-message",
            "-p",
            "-t",
            &pane,
            "#{session_name} #{window_id}",
        ]);
        let (session, window) = names.trim().split_once(' ').unwrap();
        // The pane named by id, by session and by window: typing is recorded either way.
        let targets = [
            Target {
                pane_id: Some(pane.clone()),
                ..Default::default()
            },
            Target {
                session_name: Some(session.into()),
                ..Default::default()
            },
            Target {
                window_id: Some(window.into()),
                ..Default::default()
            },
        ];
        for (i, target) in targets.iter().enumerate() {
            let id: PaneId = pane.parse().unwrap();
            let args = SendKeysArgs {
                keys: format!("echo FAST-$((40+{i}))"),
                ..SendKeysArgs::at(target)
            };
            ok_typed(&s, args).await;
            // Let the output arrive first, as it does for a fast command.
            let m = tmux_of_servers(&s).mirror().await.expect("mirror");
            let want = format!("FAST-{}", 40 + i);
            crate::support::wait_until_async("the output in the copy", || {
                let p = m.pane(id);
                let want = want.clone();
                async move {
                    p.and_then(|p| {
                        let st = p.view();
                        let t = st.term()?;
                        let text = t.capture_joined(
                            tmuxwire::term::LineNo(-20),
                            tmuxwire::term::LineNo(11),
                        );
                        String::from_utf8_lossy(&text)
                            .lines()
                            .any(|l| l == want)
                            .then_some(())
                    })
                }
            })
            .await;
            let r = ok_typed(
                &s,
                WaitForTextArgs {
                    patterns: Some(vec![want.to_string()]),
                    timeout: 5.0,
                    ..WaitForTextArgs::on(&pane)
                },
            )
            .await;
            assert_eq!(r["outcome"], json!("matched"), "{r}");
            assert_eq!(r["matched_lines"], json!([want]), "{r}");
            assert_eq!(
                r["matched_at_entry"],
                json!(true),
                "the output was on the screen: {r}"
            );
        }
        // Only the echo holds the pattern: not matched at entry, and not matched later.
        ok_typed(
            &s,
            SendKeysArgs {
                keys: "echo ONLY-$((1))-ECHO >/dev/null".into(),
                ..SendKeysArgs::on(&pane)
            },
        )
        .await;
        let r = ok_typed(
            &s,
            WaitForTextArgs {
                patterns: Some(vec!["ONLY-$((1))-ECHO".into()]),
                timeout: 0.5,
                ..WaitForTextArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(r["outcome"], json!("timeout"), "{r}");
        assert_eq!(r["matched_at_entry"], json!(false), "{r}");
    }
}

/// A command that prints more than the pane's history holds: `run_command` returns its newest
/// lines and counts the lost ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_output_beyond_history() {
    use serde_json::json;
    let bin = system_tmux();
    let server = TestServer::builder(&bin)
        .size(80, 10)
        .history_limit(500)
        .start();
    let s = servers(&server);
    let pane = first_pane(&server);
    run(&server, &pane, "true");
    let r = ok_typed(
        &s,
        RunCommandArgs {
            command: "seq 1 3000".into(),
            max_lines: Some(3),
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(r["exit_status"], json!(0), "{r}");
    assert_eq!(r["output"], json!(["2998", "2999", "3000"]), "{r}");
    assert_eq!(r["output_truncated"], json!(true), "{r}");
    let r = ok_typed(
        &s,
        RunCommandArgs {
            command: "seq 1 3000".into(),
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    let out = r["output"].as_array().unwrap();
    assert!(out.len() > 400 && out.len() < 3000, "{}", out.len());
    assert_eq!(out.last().unwrap(), "3000");
    assert_eq!(
        r["output_truncated_lines"].as_u64().unwrap() as usize + out.len(),
        3000,
        "{r}"
    );
}

/// A command the shell cannot start (an unclosed quote leaves it waiting for more input) times
/// out with a note saying so; C-c brings the prompt back and the next command runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_says_why_a_command_never_started() {
    use serde_json::json;
    let bin = system_tmux();
    let server = TestServer::builder(&bin).size(80, 10).start();
    let s = servers(&server);
    let pane = first_pane(&server);
    run(&server, &pane, "true");
    let r = ok_typed(
        &s,
        RunCommandArgs {
            command: "echo 'oops".into(),
            timeout: 0.5,
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(r["timed_out"], json!(true), "{r}");
    assert!(
        r["note"].as_str().unwrap_or("").contains("never started"),
        "{r}"
    );
    ok_typed(
        &s,
        SendKeysArgs {
            keys: "C-c".into(),
            ..SendKeysArgs::on(&pane)
        },
    )
    .await;
    let r = ok_typed(
        &s,
        RunCommandArgs {
            command: "echo fine".into(),
            timeout: 10.0,
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(r["output"], json!(["fine"]), "{r}");
    assert!(r.get("note").is_none(), "{r}");
}

/// Issue 14 item 1: a spinner's frame on the line the cursor is on when the wait begins,
/// overwritten by the final status (after `\r`, or `\r` + `CSI K`), is new text on that line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spinner_overwritten_on_the_entry_line_is_new_text() {
    for bin in tmux_bins() {
        for (k, erase) in ["", "\\033[K"].iter().enumerate() {
            let ctx = format!("tmux {}, erase {erase:?}", bin.label);
            let server = TestServer::builder(&bin).size(80, 10).start();
            let (pane_s, pane) = pane_of(&server);
            let t = tmux_of(&server);
            capture_since(&t, pane, None, 500, 128_000)
                .await
                .expect("seed");
            // The final status is shorter than the frame with `CSI K`, longer without.
            let status = if k == 0 { "BUILD-OK finished" } else { "OK" };
            let (a, b) = status.split_at(1);
            type_line(
                &server,
                &pane_s,
                &format!("printf 'spin%s |' ning; read x; printf '\\r{erase}{a}''{b}\\n'"),
            );
            server.wait_for_text(&pane_s, "spinning |", DEADLINE);
            let t2 = t.clone();
            let want = status.to_string();
            let waiting = tokio::spawn(async move {
                wait_for_text(&t2, pane, &wait_req(Some(&[want.as_str()]), &[], DEADLINE)).await
            });
            waits_begun(&t, pane, 1).await;
            server.tmux_ok(&["send-keys", "-t", &pane_s, "Enter"]);
            let r = waiting.await.expect("task").expect("wait");
            assert_eq!(r.outcome, Outcome::Matched, "{ctx}: {r:?}");
            assert_eq!(r.matched_lines, [status], "{ctx}: {r:?}");
        }
    }
}

/// How long after `since` a result came: within about a second of the event, with room
/// for a loaded machine.
fn prompt(since: Instant, ctx: &str) {
    let took = since.elapsed();
    assert!(took < Duration::from_millis(2500), "{ctx}: took {took:?}");
}

/// A second pane in the first window, running `cmd`; its id.
fn split(server: &TestServer, cmd: &str) -> (String, PaneId) {
    let p = server.tmux_ok(&["split-window", "-d", "-P", "-F", "#{pane_id}", cmd]);
    let p = p.trim().to_string();
    let id = p.parse().expect("pane id");
    (p, id)
}

/// Waits on pane `id` for text that never comes, runs `end` once the wait has begun, and
/// gives the wait's answer, checked to come within about a second of `end` ([`prompt`]).
async fn wait_ended_by(
    t: &Arc<Server>,
    id: PaneId,
    ctx: &str,
    end: impl FnOnce(),
) -> WaitForTextResult {
    let t2 = t.clone();
    let never = wait_req(Some(&["never-printed"]), &[], DEADLINE);
    let waiting = tokio::spawn(async move { wait_for_text(&t2, id, &never).await });
    waits_begun(t, id, 1).await;
    end();
    let at = Instant::now();
    let r = waiting.await.expect("task").expect("wait");
    prompt(at, ctx);
    r
}

/// Issue 14 item 1: a pane whose program exits (kept dead by `remain-on-exit`, or
/// destroyed) and a pane that is killed end a wait and a `run_command` at once, saying so:
/// `exited` with the status, or `pane_gone`; never `timeout`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_end_when_the_pane_ends() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(80, 20).start();
        let t = tmux_of(&server);

        // remain-on-exit: the program exits with 3, tmux keeps the pane dead.
        server.tmux_ok(&["set", "-g", "remain-on-exit", "on"]);
        let (p, id) = split(&server, "sh -c 'read x; exit 3'");
        let r = wait_ended_by(&t, id, &ctx, || {
            server.tmux_ok(&["send-keys", "-t", &p, "Enter"]);
        })
        .await;
        assert_eq!(r.outcome, Outcome::Exited, "{ctx}: {r:?}");
        // Always the status (issue 28: tmux 3.3a with libutempter can leave the program
        // unreaped; the wait makes tmux reap it).
        assert_eq!(r.end.exit.status, Some(3), "{ctx}: {r:?}");
        assert_eq!(
            (r.end.exit.signal.as_deref(), r.end.exit.unknown.as_deref()),
            (None, None),
            "{ctx}: {r:?}"
        );
        assert!(r.end.pane_dead && !r.found, "{ctx}: {r:?}");
        server.tmux_ok(&["kill-pane", "-t", &p]);
        server.tmux_ok(&["set", "-g", "remain-on-exit", "off"]);

        // The program exits and tmux destroys the pane.
        let (p, id) = split(&server, "sh -c 'read x'");
        let r = wait_ended_by(&t, id, &ctx, || {
            server.tmux_ok(&["send-keys", "-t", &p, "Enter"]);
        })
        .await;
        assert_eq!(r.outcome, Outcome::PaneGone, "{ctx}: {r:?}");
        assert!(
            r.end.exit.status.is_none() && r.end.exit.unknown.is_some(),
            "{ctx}: {r:?}"
        );

        // kill-pane during a wait.
        let (p, id) = split(&server, SH);
        server.wait_for_text(&p, "$", DEADLINE);
        let r = wait_ended_by(&t, id, &ctx, || {
            server.tmux_ok(&["kill-pane", "-t", &p]);
        })
        .await;
        assert_eq!(r.outcome, Outcome::PaneGone, "{ctx}: {r:?}");
        assert!(r.end.pane_dead, "{ctx}: {r:?}");

        // kill-pane during run_command.
        let (p, id) = split(&server, SH);
        server.wait_for_text(&p, "$", DEADLINE);
        let t2 = t.clone();
        let running = tokio::spawn(async move {
            run_command(&t2, id, &run_req("echo started-''run; sleep 30", DEADLINE)).await
        });
        server.wait_for_text(&p, "started-run", DEADLINE);
        server.tmux_ok(&["kill-pane", "-t", &p]);
        let at = Instant::now();
        let r = running.await.expect("task").expect("run");
        prompt(at, &ctx);
        assert_eq!(r.outcome, RunOutcome::PaneGone, "{ctx}: {r:?}");
        assert!(
            !r.timed_out && r.exit_status.is_none() && r.end.pane_dead,
            "{ctx}: {r:?}"
        );
        assert_eq!(r.output, ["started-run"], "{ctx}: {r:?}");
        assert!(r.note.is_some(), "{ctx}: {r:?}");

        // The shell itself exits inside run_command, its pane kept dead.
        server.tmux_ok(&["set", "-g", "remain-on-exit", "on"]);
        let (p, id) = split(&server, SH);
        server.wait_for_text(&p, "$", DEADLINE);
        let at = Instant::now();
        let r = run_command(&t, id, &run_req("kill -9 $$", DEADLINE))
            .await
            .expect("run");
        prompt(at, &ctx);
        assert_eq!(r.outcome, RunOutcome::Exited, "{ctx}: {r:?}");
        assert!(r.end.pane_dead && !r.timed_out, "{ctx}: {r:?}");
        assert!(
            matches!(r.end.exit.signal.as_deref(), Some("KILL" | "9")),
            "{ctx}: {r:?}"
        );
        assert_eq!(r.end.exit.status, None, "{ctx}: {r:?}");
        server.tmux_ok(&["kill-pane", "-t", &p]);

        // The program closes its terminal and goes on (ignoring the SIGHUP of its closing):
        // tmux < 3.7 calls the pane dead (its terminal closed) but has no status until the
        // program exits; the wait says why
        // after its grace. tmux ≥ 3.7 calls a pane dead only once it has the status.
        if crate::support::has_python() {
            let (p, id) = split(
                &server,
                "python3 -c 'import os, signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); \
                 time.sleep(0.5); [os.close(i) for i in (0, 1, 2)]; time.sleep(8)'",
            );
            let at = Instant::now();
            let r = wait_for_text(
                &t,
                id,
                &wait_req(Some(&["never-printed"]), &[], Duration::from_secs(5)),
            )
            .await
            .expect("wait");
            if bin.label == "3.3a" || bin.label == "3.5a" {
                assert_eq!(r.outcome, Outcome::Exited, "{ctx}: {r:?}");
                assert!(r.end.exit.status.is_none(), "{ctx}: {r:?}");
                assert!(
                    r.end
                        .exit
                        .unknown
                        .as_deref()
                        .is_some_and(|u| u.contains("had not exited")),
                    "{ctx}: {r:?}"
                );
                assert!(at.elapsed() < Duration::from_secs(4), "{ctx}: {r:?}");
            } else {
                assert_eq!(r.outcome, Outcome::Timeout, "{ctx}: {r:?}");
            }
            server.tmux_ok(&["kill-pane", "-t", &p]);
        }
        server.tmux_ok(&["set", "-g", "remain-on-exit", "off"]);
    }
}

/// Issue 14 item 1: a server that exits during a wait or a `run_command` ends it at once
/// with ServerGone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_end_when_the_server_exits() {
    for bin in tmux_bins() {
        for during_run in [false, true] {
            let ctx = format!("tmux {}, during run_command {during_run}", bin.label);
            let server = TestServer::builder(&bin).size(80, 10).start();
            let (pane_s, pane) = pane_of(&server);
            let t = tmux_of(&server);
            capture_since(&t, pane, None, 500, 128_000)
                .await
                .expect("seed");
            let t2 = t.clone();
            let waiting = tokio::spawn(async move {
                if during_run {
                    run_command(&t2, pane, &run_req("echo in-''run; sleep 30", DEADLINE))
                        .await
                        .map(|r| format!("{r:?}"))
                } else {
                    wait_for_text(&t2, pane, &wait_req(Some(&["never"]), &[], DEADLINE))
                        .await
                        .map(|r| format!("{r:?}"))
                }
            });
            if during_run {
                server.wait_for_text(&pane_s, "in-run", DEADLINE);
            } else {
                waits_begun(&t, pane, 1).await;
            }
            let _ = server.tmux(&["kill-server"]);
            let at = Instant::now();
            let r = waiting.await.expect("task");
            prompt(at, &ctx);
            let e = r.expect_err(&ctx);
            assert_eq!(
                e.kind(),
                tmuxwire::tmux::ErrorKind::ServerGone,
                "{ctx}: {e}"
            );
        }
    }
}

/// C36: `run_command` in fish runs the command and reports `$status`; a shell neither
/// wrapper parses is refused at once, naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c36_run_command_in_fish_and_other_shells() {
    if let Some(sh) = crate::support::test_shell("fish") {
        for bin in tmux_bins() {
            let ctx = format!("fish on tmux {}", bin.label);
            let server = TestServer::builder(&bin)
                .size(80, 20)
                .command(&sh.command)
                .start();
            let (pane_s, pane) = pane_of(&server);
            run(&server, &pane_s, "true"); // the shell is up
            let t = tmux_of(&server);
            let at = Instant::now();
            let r = run_command(
                &t,
                pane,
                &run_req("echo hello; false", Duration::from_secs(8)),
            )
            .await
            .expect("run");
            assert_eq!(r.exit_status, Some(1), "{ctx}: {r:?}");
            assert_eq!(r.output, ["hello"], "{ctx}: {r:?}");
            assert_eq!(r.outcome, RunOutcome::Completed, "{ctx}: {r:?}");
            assert!(at.elapsed() < Duration::from_secs(5), "{ctx}: {r:?}");
            let r = run_command(&t, pane, &run_req("printf 'a\\nb\\n'\ntrue", DEADLINE))
                .await
                .expect("multi-line run");
            assert_eq!(
                (r.exit_status, r.output.clone()),
                (Some(0), vec!["a".into(), "b".into()]),
                "{ctx}: {r:?}"
            );
        }
    }
    // A pane whose program is named `nu` (a link to sh: the kernel names the process after
    // the file it ran, as tmux's #{pane_current_command} shows).
    let dir = tempfile::tempdir().expect("dir");
    let nu = dir.path().join("nu");
    std::os::unix::fs::symlink("/bin/sh", &nu).expect("link");
    let server = TestServer::builder(&system_tmux())
        .size(80, 10)
        .command(&format!("env PS1='$ ' {}", nu.display()))
        .start();
    let (pane_s, pane) = pane_of(&server);
    wait_until_true("nu to run", DEADLINE, || {
        server
            .tmux_ok(&[
                "display-message",
                "-p",
                "-t",
                &pane_s,
                "#{pane_current_command}",
            ])
            .trim()
            == "nu"
    });
    let t = tmux_of(&server);
    let at = Instant::now();
    let e = run_command(&t, pane, &run_req("echo hi", DEADLINE))
        .await
        .expect_err("refused");
    assert!(at.elapsed() < Duration::from_secs(3), "{e}");
    assert_eq!(e.kind(), tmuxwire::tmux::ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("\"nu\""), "{e}");
    assert!(
        !server
            .tmux_ok(&["capture-pane", "-p", "-t", &pane_s])
            .contains("echo hi")
    );
}
