//! How fast `wait_for_text` wakes, and what a wait costs while nothing
//! happens, against a private tmux server.
//!
//! * `wait/send-to-wake`: a pane runs `cat`; each iteration starts a wait
//!   for a fresh word, types the word into the pane (`send-keys`, one
//!   round trip on the open connection), and ends when the wait returns.
//!   This is everything between asking tmux to type and the answer: tmux,
//!   the pty echo, `%output`, the mirror, the wake.
//! * `wait/round-trip`: one `display-message` on the same connection, the
//!   floor the send-to-wake figure includes.
//!
//! * `wait/stable-wake`: `wait_for_stable` with `stable_ms` 20 and
//!   `require_change` on the `cat` pane; each iteration types a word and
//!   ends when the wait answers `stable`; the figure is the time after
//!   the 20 ms of stillness (the 20 ms are taken off), so it is how late
//!   the timer and the wake are on top of the round trip and the echo.
//! * `wait/command-wake`: `wait_for_command` on a bash pane that marks
//!   its commands (OSC 133); each iteration types `true` and ends when
//!   the wait has the finished command: round trip, bash, the `D` mark,
//!   the wake.
//!
//! * `wait/event-wake`: `poll_events` with a cursor on the same bash
//!   pane, `kinds` command_finished; each iteration types `true` and ends
//!   when the poll answers the event (beside `command-wake`: the event
//!   log's path instead of the wait's). Iterations are paced 250 ms apart
//!   (untimed): the log lets one pane add 10 events a second once its
//!   burst of 32 is spent (`tmuxwire::events::PANE_PER_SECOND`), and each
//!   command adds two.
//! * `wait/push-to-wake`: in-process, from an event added to the log to
//!   the `poll_events` long poll that waits on it answering (the wake
//!   itself, no tmux).
//! * `wait/wake-during-check`: `wait/send-to-wake` while the mirror checks
//!   a 200,000-line history against tmux's rows in the background, as it
//!   does after a search seeds a pane's history on tmux < 3.7 (the check
//!   is queued again whenever it ends, and runs during the waits: its
//!   pause before starting is set to 1 ms). Each piece of the check holds
//!   tmux, and so the wait's output, for as long as it takes tmux to
//!   render it; the figure is the wake with those pieces going on. On
//!   tmux 3.7 and later histories are captured as rows and not checked:
//!   it then measures the visible-row checks only.
//!
//! After the timed groups it prints the CPU time tmuxwire used during a
//! 5-second wait on a quiet pane and during a 5-second `poll_events` that
//! follows every pane of the server (20: sixteen more quiet panes), taken
//! alternately twice each (`getrusage`), with the mirror watching, and
//! their ratio: a wait or a follower that polls would show here.
//!
//! Needs `tmux` on PATH (or `TMUXWIRE_BENCH_TMUX`). Run:
//! `cargo bench --bench wait` (about half a minute).

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tmuxwire::control::{Command as TmuxCommand, PaneId, Target, TargetKind};
use tmuxwire::events::{Cursor, Event, Kind};
use tmuxwire::mirror::MirrorOptions;
use tmuxwire::search::{Pattern, PatternOptions};
use tmuxwire::tmux::Selector;
use tmuxwire::tmux::op::commands::{CommandOutcome, ListCommandsRequest, WaitForCommandRequest};
use tmuxwire::tmux::op::poll::PollEventsRequest;
use tmuxwire::tmux::op::search::{LineRange, SearchPanesRequest};
use tmuxwire::tmux::op::stable::{ScreenMask, StableOutcome, WaitForStableRequest};
use tmuxwire::tmux::op::text::WaitForTextRequest;
use tmuxwire::tmux::op::{self, Limit};
use tmuxwire::tmux::pane_text::Outcome;
use tmuxwire::tmux::{Caller, Server};

/// Panes of the bench's server (each followed by the idle `poll_events`).
const PANES: usize = 20;

/// Rounds of the idle figures (a wait, then a poll, each [`IDLE_FOR`]).
const IDLE_ROUNDS: usize = 2;

/// How long each idle wait and poll lasts.
const IDLE_FOR: Duration = Duration::from_secs(5);

/// The stillness `wait/stable-wake` waits for.
const STILL: Duration = Duration::from_millis(20);

/// A private tmux server, killed on drop.
struct Spawned {
    tmux: String,
    dir: tempfile::TempDir,
}

impl Spawned {
    fn start() -> Spawned {
        let tmux = std::env::var("TMUXWIRE_BENCH_TMUX").unwrap_or_else(|_| "tmux".into());
        let dir = tempfile::tempdir().expect("temp dir");
        let s = Spawned { tmux, dir };
        let ok = s
            .cmd()
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "80",
                "-y",
                "24",
                "cat",
            ])
            .status()
            .expect("run tmux");
        assert!(ok.success(), "tmux new-session failed");
        // Window 1: a quiet pane for the idle wait (`cat` reads a line,
        // which ends a wait as awaiting_input); window 2: bash, given its
        // OSC 133 marks once the mirror follows it.
        // `TMUX_TMPDIR` stays the bench's own directory: a tmux run in
        // that shell cannot reach the default socket.
        let home = s.dir.path().display().to_string();
        let bash = format!(
            "env -i HOME={home} TMUX_TMPDIR={home} TERM=screen PATH=/usr/bin:/bin bash --norc -i"
        );
        // Window 3: a long history, for `wait/wake-during-check`.
        let ok = s
            .cmd()
            .args(["set-option", "-g", "history-limit", "250000"])
            .status()
            .expect("run tmux");
        assert!(ok.success(), "tmux set-option failed");
        let long = "seq -f 'a history line %g, long enough to be a row' 1 200000; exec cat";
        // Windows 4 to 19: quiet panes, so the idle figures are taken
        // with 20 panes followed.
        let quiet = std::iter::repeat_n("sleep 100000", PANES - 4);
        for cmd in ["sleep 100000", bash.as_str(), long]
            .into_iter()
            .chain(quiet)
        {
            let ok = s
                .cmd()
                .args(["new-window", "-d", cmd])
                .status()
                .expect("run tmux");
            assert!(ok.success(), "tmux new-window failed");
        }
        s
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("tmux.sock")
    }

    /// The tmux binary on this server, with a home of the bench's own
    /// (`home` in the temp dir; see `tmuxwire::sys::home::isolate`).
    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.tmux);
        c.arg("-S").arg(self.socket());
        c.env_remove("TMUX");
        tmuxwire::sys::home::isolate(&mut c, &self.dir.path().join("home"));
        c
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").status();
    }
}

fn cpu_time() -> Duration {
    // SAFETY: `usage` is a valid out-pointer for getrusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// A `wait_for_text` on `pane` for the literal `w`.
fn wait_for_word(pane: PaneId, w: &str) -> WaitForTextRequest {
    WaitForTextRequest {
        pane: Selector {
            pane_id: Some(pane),
            ..Selector::default()
        },
        patterns: Some(vec![Arc::new(
            Pattern::new(w, PatternOptions::literal()).expect("pattern"),
        )]),
        stop: Vec::new(),
        timeout: Duration::from_secs(10),
        progress: None,
        redact: false,
    }
}

/// Starts a wait for `w` on `pane`, types `w` into it once the wait
/// listens, and gives the time from `send-keys` to the wait's answer.
async fn send_to_wake(t: &Arc<Server>, pane: PaneId, w: &str) -> Duration {
    let m = t.mirror().await.expect("mirror");
    let p = m.pane(pane).expect("pane copy");
    let tt = t.clone();
    let req = wait_for_word(pane, w);
    let waiting = tokio::spawn(async move { op::run(&tt, req, Limit::NONE).await });
    while p.subscribers() == 0 {
        tokio::task::yield_now().await;
    }
    let began = Instant::now();
    let send = TmuxCommand::new("send-keys")
        .target(&Target::Pane(pane), TargetKind::Pane)
        .arg("-l")
        .arg(format!("{w}\r"));
    t.run(&send).await.expect("send-keys");
    let r = waiting.await.expect("task").expect("wait");
    let took = began.elapsed();
    assert_eq!(r.outcome, Outcome::Matched);
    took
}

fn bench(c: &mut Criterion) {
    let server = Spawned::start();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let t = Arc::new(
        Server::new(server.socket(), None, Caller::default()).with_mirror(MirrorOptions::default()),
    );
    let pane = PaneId(0);
    let target = Target::Pane(pane);
    let word = AtomicU64::new(0);
    let wait_for = |w: &str| wait_for_word(pane, w);
    // Seed the copy.
    rt.block_on(async {
        let r = op::run(&t, wait_for("never"), Limit::NONE).await;
        let _ = r;
    });

    let mut group = c.benchmark_group("wait");
    group.bench_function("send-to-wake", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let w = format!("W{}", word.fetch_add(1, Ordering::Relaxed));
                    total += send_to_wake(&t, pane, &w).await;
                }
                total
            })
        })
    });
    let stable = WaitForStableRequest {
        pane: Selector {
            pane_id: Some(pane),
            ..Selector::default()
        },
        stable: STILL,
        timeout: Duration::from_secs(10),
        mask: ScreenMask::default(),
        require_change: true,
        until: None,
        absent: None,
        progress: None,
    };
    group.bench_function("stable-wake", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let w = format!("S{}", word.fetch_add(1, Ordering::Relaxed));
                    let m = t.mirror().await.expect("mirror");
                    let p = m.pane(pane).expect("pane copy");
                    let (tt, req) = (t.clone(), stable.clone());
                    let waiting = tokio::spawn(async move { op::run(&tt, req, Limit::NONE).await });
                    while p.subscribers() == 0 {
                        tokio::task::yield_now().await;
                    }
                    let began = Instant::now();
                    let send = TmuxCommand::new("send-keys")
                        .target(&target, TargetKind::Pane)
                        .arg("-l")
                        .arg(format!("{w}\r"));
                    t.run(&send).await.expect("send-keys");
                    let r = waiting.await.expect("task").expect("wait");
                    total += began.elapsed().saturating_sub(STILL);
                    assert_eq!(r.outcome, StableOutcome::Stable, "{r:?}");
                }
                total
            })
        })
    });
    let shell = PaneId(2);
    let marked = WaitForCommandRequest {
        pane: Selector {
            pane_id: Some(shell),
            ..Selector::default()
        },
        timeout: Duration::from_secs(10),
        progress: None,
    };
    // The shell's prompt is marked before the first iteration: the copy
    // exists first (marks printed before it are not seen on tmux < 3.7),
    // then the shell is given its marks.
    rt.block_on(async {
        let list = ListCommandsRequest {
            pane: marked.pane.clone(),
            limit: 5,
            before: None,
        };
        op::run(&t, list, Limit::NONE).await.expect("list_commands");
        let snippet = r#"PS1='\[\e]133;A\a\]$ \[\e]133;B\a\]'; PS0='\[\e]133;C\a\]'; PROMPT_COMMAND=('printf "\033]133;D;%d\a" $?')"#;
        let target = Target::Pane(PaneId(2));
        for cmd in [
            TmuxCommand::new("send-keys")
                .target(&target, TargetKind::Pane)
                .arg("-l")
                .arg(snippet),
            TmuxCommand::new("send-keys")
                .target(&target, TargetKind::Pane)
                .arg("Enter"),
        ] {
            t.run(&cmd).await.expect("send-keys");
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let r = op::run(
                &t,
                ListCommandsRequest {
                    pane: marked.pane.clone(),
                    limit: 5,
                    before: None,
                },
                Limit::NONE,
            )
            .await
            .expect("list_commands");
            if r.marks == "present" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the bench shell never marked a prompt"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let shell_target = Target::Pane(shell);
    group.bench_function("command-wake", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let m = t.mirror().await.expect("mirror");
                    let p = m.pane(shell).expect("shell copy");
                    let (tt, req) = (t.clone(), marked.clone());
                    let waiting = tokio::spawn(async move { op::run(&tt, req, Limit::NONE).await });
                    while p.subscribers() == 0 {
                        tokio::task::yield_now().await;
                    }
                    let began = Instant::now();
                    let send = TmuxCommand::new("send-keys")
                        .target(&shell_target, TargetKind::Pane)
                        .arg("-l")
                        .arg("true\r");
                    t.run(&send).await.expect("send-keys");
                    let r = waiting.await.expect("task").expect("wait");
                    total += began.elapsed();
                    assert_eq!(r.outcome, CommandOutcome::Finished, "{r:?}");
                }
                total
            })
        })
    });
    let finished = |cursor: Option<Cursor>| PollEventsRequest {
        cursor,
        panes: vec![shell],
        kinds: Some([Kind::CommandFinished].into_iter().collect()),
        timeout: Duration::from_secs(10),
        ..PollEventsRequest::default()
    };
    let first = rt
        .block_on(op::run(&t, finished(None), Limit::NONE))
        .expect("poll_events");
    let cursor = std::sync::Mutex::new(Cursor::decode(&first.cursor).ok());
    // Few iterations: each is paced (see the module docs).
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(300));
    group.bench_function("event-wake", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    tokio::time::sleep(Duration::from_millis(250)).await;
                    let req = finished(*cursor.lock().expect("cursor"));
                    let tt = t.clone();
                    let waiting = tokio::spawn(async move { op::run(&tt, req, Limit::NONE).await });
                    let began = Instant::now();
                    let send = TmuxCommand::new("send-keys")
                        .target(&shell_target, TargetKind::Pane)
                        .arg("-l")
                        .arg("true\r");
                    t.run(&send).await.expect("send-keys");
                    let r = waiting.await.expect("task").expect("poll_events");
                    total += began.elapsed();
                    assert_eq!(r.outcome, "events", "{r:?}");
                    *cursor.lock().expect("cursor") = Cursor::decode(&r.cursor).ok();
                }
                total
            })
        })
    });
    group.bench_function("push-to-wake", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let log = t.running_attention().expect("the event log").log.clone();
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let req = PollEventsRequest {
                        cursor: Some(log.head()),
                        kinds: Some([Kind::SessionNew].into_iter().collect()),
                        timeout: Duration::from_secs(10),
                        ..PollEventsRequest::default()
                    };
                    let tt = t.clone();
                    let waiting = tokio::spawn(async move { op::run(&tt, req, Limit::NONE).await });
                    while log.waiters() == 0 {
                        tokio::task::yield_now().await;
                    }
                    let mut e = Event::new(
                        Kind::SessionNew,
                        None,
                        tmuxwire::mirror::clock_us(),
                        "$99 session_new".into(),
                    );
                    e.session = Some(tmuxwire::control::SessionId(99));
                    let began = Instant::now();
                    log.push(e, 0);
                    let r = waiting.await.expect("task").expect("poll_events");
                    total += began.elapsed();
                    assert_eq!(r.outcome, "events", "{r:?}");
                }
                total
            })
        })
    });
    group.bench_function("round-trip", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    let cmd = TmuxCommand::new("display-message").arg("-p").arg("x");
                    t.run(&cmd).await.expect("display-message");
                }
                began.elapsed()
            })
        })
    });
    wake_during_check(&mut group, &server, &rt, &word);
    group.finish();

    idle(&rt, &t);
}

/// The CPU a quiet server costs: a `wait_for_text` on a quiet pane, then
/// a `poll_events` following every pane ([`PANES`]), alternately,
/// [`IDLE_ROUNDS`] times each, [`IDLE_FOR`] each (`getrusage`: all of
/// tmuxwire's threads).
fn idle(rt: &tokio::runtime::Runtime, t: &Arc<Server>) {
    let wait = WaitForTextRequest {
        timeout: IDLE_FOR,
        pane: Selector {
            pane_id: Some(PaneId(1)),
            ..Selector::default()
        },
        ..wait_for_word(PaneId(1), "never-printed")
    };
    let measured = |what: &str, run: &dyn Fn()| {
        let before = cpu_time();
        let began = Instant::now();
        run();
        let (used, wall) = (cpu_time() - before, began.elapsed());
        let share = used.as_secs_f64() / wall.as_secs_f64();
        eprintln!(
            "{what}: {:.1} ms of CPU in {:.1} s ({:.3}% of one core)",
            used.as_secs_f64() * 1000.0,
            wall.as_secs_f64(),
            share * 100.0
        );
        share
    };
    let (mut waits, mut polls) = (0.0, 0.0);
    for _ in 0..IDLE_ROUNDS {
        waits += measured("idle wait", &|| {
            let r = rt
                .block_on(op::run(t, wait.clone(), Limit::NONE))
                .expect("idle wait");
            assert_eq!(r.outcome, Outcome::Timeout);
        });
        polls += measured(
            &format!("idle poll_events, {PANES} panes followed"),
            &|| {
                let quiet = PollEventsRequest {
                    cursor: t.running_attention().map(|a| a.log.head()),
                    follow_all: true,
                    kinds: Some([Kind::SessionClosed].into_iter().collect()),
                    timeout: IDLE_FOR,
                    ..PollEventsRequest::default()
                };
                let r = rt
                    .block_on(op::run(t, quiet, Limit::NONE))
                    .expect("idle poll_events");
                assert_eq!(r.outcome, "timeout", "{r:?}");
            },
        );
    }
    eprintln!(
        "idle, {IDLE_ROUNDS} rounds alternated: poll_events over {PANES} panes / wait = {:.2}",
        polls / waits
    );
}

/// `wait/wake-during-check` (see the module docs).
fn wake_during_check(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    server: &Spawned,
    rt: &tokio::runtime::Runtime,
    word: &AtomicU64,
) {
    let t = Arc::new(
        Server::new(server.socket(), None, Caller::default()).with_mirror(MirrorOptions {
            verify_after: Duration::from_millis(1),
            ..MirrorOptions::default()
        }),
    );
    let (pane, long) = (PaneId(0), PaneId(3));
    // The long pane has printed all of it, then a search reads (and lays
    // out) its history: the check is queued.
    rt.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let cmd = TmuxCommand::new("display-message")
                .target(&Target::Pane(long), TargetKind::Pane)
                .arg("-p")
                .arg("#{history_size}");
            let rows: usize = t
                .run(&cmd)
                .await
                .ok()
                .and_then(|b| b.into_result().ok())
                .and_then(|b| String::from_utf8_lossy(&b).trim().parse().ok())
                .unwrap_or(0);
            if rows >= 199_000 {
                break;
            }
            assert!(Instant::now() < deadline, "the long pane never filled");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let search = SearchPanesRequest {
            pattern: Arc::new(
                Pattern::new("nowhere-at-all", PatternOptions::literal()).expect("pattern"),
            ),
            session: None,
            pane: None,
            lines: LineRange::default(),
            command: None,
            max_matched_lines_per_pane: 1,
            limit: None,
            offset: 0,
            progress: None,
            redact: false,
            as_is: false,
        };
        op::run(&t, search, Limit::NONE).await.expect("search");
    });
    let m = rt.block_on(t.mirror()).expect("mirror");
    let before = m.background_lines();
    group.bench_function("wake-during-check", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    // Queued again once it ends (a no-op while it runs).
                    m.check_history_rows(long).await;
                    let w = format!("C{}", word.fetch_add(1, Ordering::Relaxed));
                    total += send_to_wake(&t, pane, &w).await;
                }
                total
            })
        })
    });
    eprintln!(
        "wake-during-check: {} background check lines (each at most {} history rows) went during the group",
        m.background_lines() - before,
        tmuxwire::mirror::seed::VERIFY_ROWS
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
