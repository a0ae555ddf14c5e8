//! Remote tmux over ssh (`--host`), against a throwaway sshd on 127.0.0.1
//! ([`crate::support::sshd`]): the tmux server is started as the ssh login
//! user, tools reach it through tmuxwire's own ssh master and channels, and
//! every answer is checked against tmux itself (asked directly, on this
//! machine). Without sshd these tests skip loudly, and fail under
//! `TMUXWIRE_REQUIRE_SSHD=1` (CI).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tmuxwire::mirror::MirrorOptions;
use tmuxwire::tmux::{Caller, Server, Servers};
use tmuxwire::wire::ssh::{HostConfig, Keepalive, RemoteSocket};

use crate::support::sshd::Sshd;
use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, TmuxBin, tmux_bin, tmux_bins, wait_until_async};
use tmuxwire::mcp::args::{
    CapturePaneArgs, CaptureSinceArgs, ListHostsArgs, ListPanesArgs, ListSessionsArgs,
    RunCommandArgs, SearchPanesArgs, SendKeysArgs, ServerArgs, SessionArgs, WaitForTextArgs,
};

/// The host name the tests configure.
const HOST: &str = "loop";

/// A tmux server the ssh user owns, on `bin`.
fn remote_server(sshd: &Sshd, bin: &TmuxBin) -> TestServer {
    TestServer::builder(bin)
        .owner(sshd.owner_for_servers())
        .start()
}

/// How the tests' hosts are set up: the loopback alias, `tmux` = the test's
/// binary, keepalive `alive` s × 2.
fn host_config(sshd: &Sshd, dest: &str, tmux: &str, alive: u32) -> HostConfig {
    HostConfig {
        ssh_config: Some(sshd.ssh_config().to_path_buf()),
        tmux: Some(tmux.to_string()),
        keepalive: Keepalive {
            interval: alive,
            count: 2,
        },
        ..HostConfig::new(HOST, dest)
    }
}

/// [`pool`] for `server` on the loopback host, with the test's binary and keepalive `alive`
/// s × 2.
fn loop_pool(sshd: &Sshd, bin: &TmuxBin, server: &TestServer, alive: u32) -> Arc<Servers> {
    pool(
        server,
        host_config(sshd, sshd.alias(), &bin.path.to_string_lossy(), alive),
    )
}

/// A pool as `tmuxwire mcp --host loop=… -S <server's socket>` holds it: the
/// local default server is a socket nobody serves (in the server's private
/// directory), the host's default server is `server`.
fn pool(server: &TestServer, config: HostConfig) -> Arc<Servers> {
    crate::support::test_logging();
    let mirror = MirrorOptions {
        enabled: true,
        ..MirrorOptions::default()
    };
    let nobody = server.socket.with_file_name("nobody.sock");
    let local = Arc::new(Server::new(nobody, None, Caller::default()).with_mirror(mirror));
    let socket = RemoteSocket::Path(server.socket.to_string_lossy().into_owned());
    Arc::new(
        Servers::new(local, Caller::default())
            .with_hosts(vec![config], false, socket)
            .expect("control dir"),
    )
}

/// A host on the system tmux, as most fault tests need it.
struct Setup {
    sshd: Sshd,
    server: TestServer,
    /// The server's first pane.
    pane: String,
    s: Arc<Servers>,
}

/// [`Setup`] with keepalive `alive` s × 2; `None` when no sshd can run
/// (the test is skipped, or fails under `TMUXWIRE_REQUIRE_SSHD`).
fn on_system_tmux(alive: u32) -> Option<Setup> {
    let sshd = Sshd::start()?;
    let bin = crate::support::system_tmux();
    let server = remote_server(&sshd, &bin);
    let pane = first_pane(&server);
    let s = pool(
        &server,
        host_config(&sshd, sshd.alias(), &bin.path.to_string_lossy(), alive),
    );
    Some(Setup {
        sshd,
        server,
        pane,
        s,
    })
}

/// The CLI with `args`, on `server` of the loopback host: `--host`, `--ssh-config`,
/// `--host-tmux` (`bin`) and `--socket-path` as a user would give them.
fn cli_on_host(
    sshd: &Sshd,
    bin: &TmuxBin,
    server: &TestServer,
    args: &[&str],
) -> tokio::process::Command {
    let mut c = crate::support::tmuxwire_command();
    c.arg("--host")
        .arg(sshd.alias())
        .arg("--ssh-config")
        .arg(sshd.ssh_config())
        .arg("--host-tmux")
        .arg(format!("{}={}", sshd.alias(), bin.path.display()))
        .arg("--socket-path")
        .arg(&server.socket)
        .args(args);
    c
}

/// `capture_pane` on the host equals tmux's own capture of `pane`, and
/// names the host. The two are taken one after the other, so a pane still
/// printing (a prompt drawn after the text a test waited for) is looked at
/// again until they agree, up to the deadline.
async fn capture_is_tmuxs(s: &Servers, server: &TestServer, pane: &str, ctx: &str) {
    let deadline = Instant::now() + DEADLINE;
    let mut pause = Duration::from_millis(5);
    loop {
        let cap = ok_typed(s, CapturePaneArgs::on(pane).on_host()).await;
        assert_eq!(cap["host"], HOST, "{ctx}");
        let ours = lines_of(cap["result"].as_str().unwrap_or(""));
        let theirs = tmux_lines(server, pane, &[]);
        if ours == theirs {
            return;
        }
        if Instant::now() >= deadline {
            assert_eq!(
                ours, theirs,
                "{ctx}: capture_pane over ssh equals tmux's capture"
            );
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// A `wait_for_text` on the host for `pattern` in `pane`, running.
fn spawn_wait(
    s: &Arc<Servers>,
    pane: &str,
    pattern: &str,
    timeout: u64,
) -> tokio::task::JoinHandle<rmcp::model::CallToolResult> {
    let (s, args) = (s.clone(), waiting_for(pane, pattern, timeout as f64));
    tokio::spawn(async move { call_typed(&s, args).await })
}

/// Waits until a wait follows `pane` on the host.
async fn wait_begun(s: &Servers, pane: &str) {
    crate::support::wait_subscribed(s.hosts()[0].default_server(), pane).await;
}

/// `wait_for_text` on the host for `pattern` in `pane`.
fn waiting_for(pane: &str, pattern: &str, timeout: f64) -> WaitForTextArgs {
    WaitForTextArgs {
        patterns: Some(vec![pattern.to_string()]),
        timeout,
        ..WaitForTextArgs::on(pane)
    }
    .on_host()
}

/// A typed call's arguments with `host` set to the tests' host.
trait OnHost {
    /// The same arguments, on [`HOST`].
    fn on_host(self) -> Self;
}

/// `impl OnHost for` each argument struct listed.
macro_rules! on_host {
    ($($args:ident),* $(,)?) => {
        $(impl OnHost for $args {
            fn on_host(self) -> Self {
                $args {
                    host: Some(HOST.to_string()),
                    ..self
                }
            }
        })*
    };
}

on_host!(
    CapturePaneArgs,
    CaptureSinceArgs,
    ListPanesArgs,
    ListSessionsArgs,
    RunCommandArgs,
    SearchPanesArgs,
    SendKeysArgs,
    ServerArgs,
    SessionArgs,
    WaitForTextArgs,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_follow_and_typing_tools_work_over_ssh_on_every_version() {
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = remote_server(&sshd, &bin);
        let pane = first_pane(&server);
        let s = loop_pool(&sshd, &bin, &server, 15);
        // Read tools: the host's server, named in the result.
        let sessions = ok_typed(&s, ListSessionsArgs::default().on_host()).await;
        assert_eq!(sessions["host"], HOST, "{ctx}: {sessions}");
        assert_eq!(
            sessions["result"][0]["session_name"], server.session,
            "{ctx}"
        );
        let info = ok_typed(&s, ServerArgs::default().on_host()).await;
        assert_eq!(info["version"], bin.label.as_str(), "{ctx}: {info}");
        // Output typed by someone else, then read, searched and followed.
        type_line(
            &server,
            &pane,
            "printf 'r%s\\n' 1 2 3; echo 'wrapped-é-'$(printf 'x%.0s' $(seq 1 150))",
        );
        // The last line printed (the search below is fenced to what tmux
        // holds when it runs, so the line must be there first).
        let wrapped = format!("wrapped-é-{}\n", "x".repeat(150));
        server.wait_for_text(&pane, &wrapped, DEADLINE);
        capture_is_tmuxs(&s, &server, &pane, &ctx).await;
        let found = ok_typed(&s, search_for("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx").on_host())
        .await;
        assert_eq!(found["matches"][0]["pane_id"], pane, "{ctx}: {found}");
        assert_eq!(found["matches"][0]["source"], "mirror", "{ctx}: {found}");
        // Unfenced: the copy as it is, said so.
        let quick = ok_typed(
            &s,
            SearchPanesArgs {
                fenced: Some(false),
                ..search_for("r3")
            }
            .on_host(),
        )
        .await;
        assert_eq!(quick["fenced"], false, "{ctx}: {quick}");
        assert_eq!(quick["matches"][0]["source"], "mirror", "{ctx}: {quick}");
        // The cursor names its host: the next call needs no host.
        let first = ok_typed(&s, CaptureSinceArgs::on(&pane).on_host()).await;
        let cursor = first["cursor"].as_str().expect("cursor").to_string();
        assert!(cursor.starts_with("loop/"), "{ctx}: {cursor}");
        type_line(&server, &pane, "echo after-$((40+2))");
        server.wait_for_text(&pane, "after-42\n", DEADLINE);
        let after = CaptureSinceArgs {
            cursor: Some(cursor.clone()),
            ..CaptureSinceArgs::on(&pane)
        };
        let next = ok_typed(&s, after.clone()).await;
        let lines: Vec<String> = serde_json::from_value(next["lines"].clone()).unwrap_or_default();
        assert!(lines.iter().any(|l| l == "after-42"), "{ctx}: {next}");
        let wrong = err_typed(
            &s,
            CaptureSinceArgs {
                host: Some("local".into()),
                ..after
            },
        )
        .await;
        assert_eq!(wrong.kind, "InvalidArgument", "{ctx}: {wrong:?}");
        // A wait woken by output tmuxwire typed itself, through send_keys.
        let waiting = spawn_wait(&s, &pane, "woken-7", 20);
        let keys = SendKeysArgs {
            keys: "sleep 0.3; echo woken-$((3+4))".into(),
            ..SendKeysArgs::on(&pane)
        };
        ok_typed(&s, keys.on_host()).await;
        let w = crate::support::within("wait", waiting).await.expect("task");
        let w = w
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("wait result: {w:?}"));
        assert_eq!(w["found"], true, "{ctx}: {w}");
        assert_eq!(w["host"], HOST, "{ctx}");
        // run_command: its exit status and only its own output.
        let run = RunCommandArgs {
            command: "echo out-1; echo 'é 日本'; false".into(),
            timeout: 20.0,
            ..RunCommandArgs::on(&pane)
        };
        let r = ok_typed(&s, run.on_host()).await;
        assert_eq!(r["exit_status"], 1, "{ctx}: {r}");
        assert_eq!(r["output"], json!(["out-1", "é 日本"]), "{ctx}: {r}");
        // list_hosts tells what runs there.
        let hosts = ok_typed(&s, ListHostsArgs::default()).await;
        let h = &hosts["result"][1];
        assert_eq!(h["name"], HOST, "{ctx}: {hosts}");
        assert_eq!(h["state"], "connected", "{ctx}: {hosts}");
        assert_eq!(h["tmux_version"], bin.label.as_str(), "{ctx}: {hosts}");
        assert!(h["sessions_watched"].as_u64() >= Some(1), "{ctx}: {hosts}");
        // tmuxwire's clients on the host are its own, not a person's.
        let sessions = ok_typed(&s, ListSessionsArgs::default().on_host()).await;
        assert_eq!(
            sessions["result"][0]["session_attached"], "0",
            "{ctx}: {sessions}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_read_history_over_the_channel_not_an_ssh_process_per_pane() {
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = remote_server(&sshd, &bin);
        let first = first_pane(&server);
        // Three panes with history (more lines than the screen) holding bytes a vis(3)-escaped
        // show-buffer (before 3.4) must give back as they are, and lines a program prints to
        // look like the control stream's guards (`%end`, `%begin`, `%exit`): the history is
        // read by its length, so they are text like any other.
        let mut panes = vec![first.clone()];
        for _ in 0..2 {
            let p = server.tmux_ok(&["split-window", "-d", "-P", "-F", "#{pane_id}"]);
            panes.push(p.trim().to_string());
        }
        for (i, p) in panes.iter().enumerate() {
            type_line(
                &server,
                p,
                &format!(
                    "seq -f 'h{i}-%g' 1 150; printf '%%end 1 2 1\\n%%begin 1 3 1\\n%%exit\\n'; \
                     seq -f 'h{i}-%g' 151 300; printf 'tab\\there\\\\é %s\\n' end-{i}"
                ),
            );
        }
        for (i, p) in panes.iter().enumerate() {
            server.wait_for_text(p, &format!("end-{i}\n"), DEADLINE);
        }
        let s = loop_pool(&sshd, &bin, &server, 15);
        ok_typed(&s, ListPanesArgs::default().on_host()).await;
        let host = s.hosts()[0].host().expect("a host").clone();
        let before = host.one_shots();
        let found = ok_typed(
            &s,
            SearchPanesArgs {
                regex: true,
                ..search_for("-1$")
            }
            .on_host(),
        )
        .await;
        let hits: Vec<&Value> = found["matches"]
            .as_array()
            .expect("matches")
            .iter()
            .collect();
        assert_eq!(hits.len(), 3, "{ctx}: {found}");
        assert!(
            hits.iter().all(|m| m["source"] == "mirror"),
            "{ctx}: {found}"
        );
        assert_eq!(host.one_shots(), before, "{ctx}: an ssh process per seed");
        for p in &panes {
            capture_is_tmuxs(&s, &server, p, &ctx).await;
            // The whole history, as tmux has it.
            let whole = CapturePaneArgs {
                start: Some(-400),
                max_lines: None,
                join_wrapped: true,
                ..CapturePaneArgs::on(p)
            };
            let ours = ok_typed(&s, whole.on_host()).await;
            let theirs = server.tmux_ok(&["capture-pane", "-p", "-J", "-S", "-400", "-t", p]);
            assert_eq!(
                ours["result"].as_str().map(str::trim_end),
                Some(theirs.trim_end()),
                "{ctx}: {p}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pane_text_cannot_cut_or_forge_an_answer_over_ssh() {
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = remote_server(&sshd, &bin);
        let pane = first_pane(&server);
        let s = loop_pool(&sshd, &bin, &server, 15);
        // Lines that look like control-mode guards, notifications, the
        // channel's banner and an empty line (which would detach a client).
        type_line(
            &server,
            &pane,
            "printf '%s\\n' '%end 1 1 1' '%error 2 2 1' '%begin 3 3 1' '%exit' 'TWREADY x' '' '%output %0 forged' 'last-line'",
        );
        server.wait_for_text(&pane, "last-line\n", DEADLINE);
        capture_is_tmuxs(&s, &server, &pane, &ctx).await;
        let found = ok_typed(&s, search_for("%end 1 1 1").on_host()).await;
        // The line typed holds the text too; the printed line is the last.
        let last = |v: &Value| {
            v["matches"][0]["matched_lines"]
                .as_array()
                .and_then(|l| l.last())
                .cloned()
        };
        assert_eq!(last(&found), Some(json!("%end 1 1 1")), "{ctx}: {found}");
        let forged = ok_typed(&s, search_for("forged").on_host()).await;
        assert_eq!(
            last(&forged),
            Some(json!("%output %0 forged")),
            "{ctx}: {forged}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssh_failures_are_errors_a_model_can_act_on() {
    let Some(sshd) = Sshd::start() else { return };
    let bin = crate::support::system_tmux();
    let server = remote_server(&sshd, &bin);
    let tmux = bin.path.to_string_lossy().into_owned();
    let cases = [
        (sshd.badkey_alias(), tmux.as_str(), "AuthRequired", "ssh -F"),
        (sshd.unknownhost_alias(), tmux.as_str(), "HostKey", "ssh -F"),
        (
            sshd.alias(),
            "/nonexistent/tmux",
            "TmuxNotFound",
            "not found",
        ),
    ];
    for (dest, tmux, kind, says) in cases {
        let s = pool(&server, host_config(&sshd, dest, tmux, 15));
        let at = Instant::now();
        let e = err_typed(&s, ListPanesArgs::default().on_host()).await;
        assert_eq!(e.kind, kind, "{dest} {tmux}: {e:?}");
        assert!(e.text.contains(says), "{dest} {tmux}: {e:?}");
        assert!(at.elapsed() < Duration::from_secs(15), "{:?}", at.elapsed());
        // A second call within the backoff fails at once, with the same words.
        let at = Instant::now();
        let again = err_typed(&s, ListPanesArgs::default().on_host()).await;
        assert_eq!(again.kind, kind, "{again:?}");
        if kind != "TmuxNotFound" {
            assert!(
                at.elapsed() < Duration::from_millis(500),
                "{:?}",
                at.elapsed()
            );
            let hosts = ok_typed(&s, ListHostsArgs::default()).await;
            assert_eq!(hosts["result"][1]["state"], "down", "{hosts}");
            assert_eq!(hosts["result"][1]["error_type"], kind, "{hosts}");
        }
    }
    // No server on the socket: said so, and none is started there.
    let s = pool(&server, host_config(&sshd, sshd.alias(), &tmux, 15));
    let missing = server.socket.with_file_name("missing.sock");
    let at_missing = ListSessionsArgs {
        socket_path: Some(missing.to_string_lossy().into_owned()),
        ..Default::default()
    };
    let e = err_typed(&s, at_missing.on_host()).await;
    assert_eq!(e.kind, "NoServer", "{e:?}");
    assert!(e.text.contains("loop:"), "{e:?}");
    assert!(
        !missing.exists(),
        "a tmux server was started on {missing:?}"
    );
    // An unknown host name.
    let nope = ListSessionsArgs {
        host: Some("nope".into()),
        ..Default::default()
    };
    let e = err_typed(&s, nope).await;
    assert_eq!(e.kind, "InvalidArgument", "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_link_is_survived_and_output_written_meanwhile_is_found() {
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = remote_server(&sshd, &bin);
        let pane = first_pane(&server);
        let s = loop_pool(&sshd, &bin, &server, 1);
        type_line(&server, &pane, "echo before-1");
        server.wait_for_text(&pane, "before-1\n", DEADLINE);
        ok_typed(&s, search_for("before-1").on_host()).await;
        // A wait in progress when every connection drops goes on over a new
        // link (attach only), and sees what the pane printed meanwhile.
        let waiting = spawn_wait(&s, &pane, "during-42", 30);
        wait_begun(&s, &pane).await;
        let at = Instant::now();
        sshd.kill_sessions();
        type_line(&server, &pane, "echo during-$((2*21))");
        server.wait_for_text(&pane, "during-42\n", DEADLINE);
        let w = crate::support::within("wait", waiting).await.expect("task");
        assert!(
            at.elapsed() < Duration::from_secs(10),
            "{ctx}: {:?}",
            at.elapsed()
        );
        let w = w
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("wait result: {w:?}"));
        assert_eq!(w["found"], true, "{ctx}: {w}");
        // Searches find it too, from the copy seeded again.
        let found = ok_typed(&s, search_for("during-42").on_host()).await;
        assert!(
            found["matches"][0]["matched_lines"]
                .as_array()
                .is_some_and(|l| l.contains(&json!("during-42"))),
            "{ctx}: {found}"
        );
        let hosts = ok_typed(&s, ListHostsArgs::default()).await;
        assert_eq!(hosts["result"][1]["state"], "connected", "{ctx}: {hosts}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_master_is_started_again() {
    let Some(Setup {
        sshd: _sshd,
        server,
        pane,
        s,
    }) = on_system_tmux(15)
    else {
        return;
    };
    ok_typed(&s, search_for("x").on_host()).await;
    let host = s.hosts()[0].host().expect("a host").clone();
    let pid = host.master_pid().expect("the master runs");
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    type_line(&server, &pane, "echo while-down");
    server.wait_for_text(&pane, "while-down\n", DEADLINE);
    let found = wait_until_async("a new master", || {
        let s = s.clone();
        async move {
            let r = call_typed(&s, search_for("while-down").on_host()).await;
            (r.is_error != Some(true)).then_some(r.structured_content?)
        }
    })
    .await;
    assert!(
        found["matches"][0]["matched_lines"]
            .as_array()
            .is_some_and(|l| l.contains(&json!("while-down"))),
        "{found}"
    );
    assert_ne!(host.master_pid(), Some(pid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_command_whose_link_drops_keeps_its_output() {
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = remote_server(&sshd, &bin);
        let pane = first_pane(&server);
        let s = loop_pool(&sshd, &bin, &server, 15);
        ok_typed(&s, ListPanesArgs::default().on_host()).await;
        let running = {
            let (s, pane) = (s.clone(), pane.clone());
            tokio::spawn(async move {
                let run = RunCommandArgs {
                    command: "echo before-drop; sleep 1.5; echo after-drop; (exit 7)".into(),
                    timeout: 30.0,
                    ..RunCommandArgs::on(&pane)
                };
                call_typed(&s, run.on_host()).await
            })
        };
        server.wait_for_text(&pane, "before-drop\n", DEADLINE);
        sshd.kill_sessions();
        let r = crate::support::within("run_command", running)
            .await
            .expect("task");
        let r = r.structured_content.expect("a result");
        assert_eq!(r["exit_status"], 7, "{ctx}: {r}");
        assert_eq!(
            r["output"],
            json!(["before-drop", "after-drop"]),
            "{ctx}: {r}"
        );
        // Complete: output_complete (true) is left out.
        assert!(r.get("output_complete").is_none(), "{ctx}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_link_is_noticed_within_the_keepalive_and_stale_clients_are_detached() {
    let Some(Setup {
        sshd,
        server,
        pane,
        s,
    }) = on_system_tmux(1)
    else {
        return;
    };
    ok_typed(&s, search_for("x").on_host()).await;
    let terms = |server: &TestServer| -> Vec<String> {
        server
            .tmux_ok(&["list-clients", "-F", "#{client_termname}"])
            .lines()
            .map(str::to_string)
            .collect()
    };
    let before = terms(&server);
    assert!(
        !before.is_empty() && before.iter().all(|t| t.starts_with("tmuxwire-")),
        "{before:?}"
    );
    let waiting = spawn_wait(&s, &pane, "after-stall", 30);
    wait_begun(&s, &pane).await;
    // Silence: only the keepalive (1 s × 2) can tell. The pane prints
    // meanwhile; the wait sees it over the new link.
    let stall = sshd.stall();
    let at = Instant::now();
    type_line(&server, &pane, "echo after-stall");
    let w = crate::support::within("wait", waiting).await.expect("task");
    assert!(at.elapsed() < Duration::from_secs(10), "{:?}", at.elapsed());
    let w = w
        .structured_content
        .clone()
        .unwrap_or_else(|| panic!("wait result: {w:?}"));
    assert_eq!(w["found"], true, "{w}");
    // The old clients are still attached on the server (the stopped sshd
    // holds their pipes); the new link detached them, and only them.
    crate::support::wait_until_true("stale clients detached", DEADLINE, || {
        let now = terms(&server);
        !now.is_empty() && now.iter().all(|t| !before.contains(t))
    });
    drop(stall);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_gone_silent_is_noticed_by_the_watchdog() {
    let Some(Setup {
        sshd: _sshd,
        server,
        pane,
        s,
    }) = on_system_tmux(1)
    else {
        return;
    };
    ok_typed(&s, search_for("x").on_host()).await;
    let (mark, print) = marker();
    let waiting = spawn_wait(&s, &pane, &mark, 6);
    let began = Instant::now();
    wait_begun(&s, &pane).await;
    // The remote tmux server stops answering while the link and its
    // keepalives are fine (tmux's control clients hand their pipes to the
    // server, so the server is what goes quiet): only the channels'
    // watchdog (1 s of silence, then 3 s for an answer) can tell. A call
    // fails then, not after the 20 s request deadline.
    let stopped = crate::support::sshd::Stall::stop(vec![server.server_pid()]);
    let at = Instant::now();
    let e = err_typed(&s, ListPanesArgs::default().on_host()).await;
    assert!(
        at.elapsed() < Duration::from_secs(8),
        "{:?} {e:?}",
        at.elapsed()
    );
    assert_eq!(e.kind, "Timeout", "{e:?}");
    assert!(e.text.contains("sent nothing"), "{e:?}");
    // The wait that began before holds its timeout, as on a local server
    // that stops: it ends then, saying tmux stopped answering when a
    // question to it was still open, never later.
    let w = crate::support::within("wait", waiting).await.expect("task");
    assert!(
        began.elapsed() < Duration::from_millis(6000 + 1250),
        "{:?}",
        began.elapsed()
    );
    match w.structured_content.clone() {
        Some(v) if w.is_error != Some(true) => {
            assert_eq!(v["outcome"], "timeout", "{v}");
        }
        _ => {
            let text = format!("{:?}", w.content);
            assert!(
                text.contains("stopped answering") || text.contains("sent nothing"),
                "{text}"
            );
        }
    }
    // Running again, the server is followed again.
    drop(stopped);
    let waiting = spawn_wait(&s, &pane, &mark, 30);
    wait_begun(&s, &pane).await;
    type_line(&server, &pane, &print);
    let w = crate::support::within("wait", waiting).await.expect("task");
    let w = w
        .structured_content
        .clone()
        .unwrap_or_else(|| panic!("wait result: {w:?}"));
    assert_eq!(w["found"], true, "{w}");
    ok_typed(&s, ListPanesArgs::default().on_host()).await;
    let h = ok_typed(&s, ListHostsArgs::default()).await;
    assert_eq!(h["result"][1]["state"], "connected", "{h}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_during_a_partition_fail_fast_and_work_after_it() {
    let Some(sshd) = Sshd::start() else { return };
    let bin = crate::support::system_tmux();
    let server = remote_server(&sshd, &bin);
    let s = loop_pool(&sshd, &bin, &server, 1);
    ok_typed(&s, ListPanesArgs::default().on_host()).await;
    let stall = sshd.partition();
    // The first call notices (keepalive, then the login timeout) ...
    let at = Instant::now();
    let r = wait_until_async("a call in the partition to fail", || {
        let s = s.clone();
        async move {
            let r = call_typed(&s, ListPanesArgs::default().on_host()).await;
            (r.is_error == Some(true)).then_some(r)
        }
    })
    .await;
    assert!(at.elapsed() < Duration::from_secs(15), "{:?}", at.elapsed());
    let e = text_of(&r);
    assert!(e.contains("loop"), "{e}");
    // ... the next ones fail at once while the backoff runs.
    let at = Instant::now();
    let again = err_typed(&s, ListPanesArgs::default().on_host()).await;
    assert!(
        at.elapsed() < Duration::from_secs(1),
        "{:?} {again:?}",
        at.elapsed()
    );
    drop(stall);
    wait_until_async("the host answers again", || {
        let s = s.clone();
        async move {
            let r = call_typed(&s, ListPanesArgs::default().on_host()).await;
            (r.is_error != Some(true)).then_some(())
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remote_server_killed_or_its_session_gone_during_an_outage() {
    let Some(sshd) = Sshd::start() else { return };
    let bin = crate::support::system_tmux();
    let mut server = remote_server(&sshd, &bin);
    let pane = first_pane(&server);
    let other = server.tmux_ok(&[
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{session_id}",
        "-s",
        "other",
        crate::support::SH,
    ]);
    let s = loop_pool(&sshd, &bin, &server, 1);
    ok_typed(&s, search_for("x").on_host()).await;
    // The watched session is killed while the link is down: afterwards it
    // is gone (never made again), and the rest is answered.
    sshd.kill_sessions();
    server.tmux_ok(&["kill-session", "-t", other.trim()]);
    let sessions = wait_until_async("reconnected", || {
        let s = s.clone();
        async move {
            let r = call_typed(&s, ListSessionsArgs::default().on_host()).await;
            (r.is_error != Some(true)).then_some(r.structured_content?)
        }
    })
    .await;
    assert_eq!(
        sessions["result"].as_array().map(Vec::len),
        Some(1),
        "{sessions}"
    );
    let e = err_typed(&s, SessionArgs::in_session("other").on_host()).await;
    assert_eq!(e.kind, "NotFound", "{e:?}");
    // The server killed during a wait: the wait ends, saying so.
    let waiting = spawn_wait(&s, &pane, "never", 30);
    wait_begun(&s, &pane).await;
    server.kill();
    let at = Instant::now();
    let w = crate::support::within("wait", waiting).await.expect("task");
    assert_eq!(w.is_error, Some(true), "{w:?}");
    // Said as the server's exit, not as a failed link (a link that fails
    // while the server lives is asked again: `wait::vigil::liveness`).
    let said = format!("{:?}", w.content);
    assert!(said.contains("tmux server exited"), "{said}");
    // The channel's end, then one probe over the link (a busy CI machine
    // has taken 4 s for both).
    assert!(at.elapsed() < Duration::from_secs(10), "{:?}", at.elapsed());
    eprintln!(
        "the wait ended {:?} after the server was gone",
        at.elapsed()
    );
    let e = err_typed(&s, ListSessionsArgs::default().on_host()).await;
    assert_eq!(e.kind, "NoServer", "{e:?}");
    assert!(!server.socket_accepts(), "a server was started again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sessions_of_one_connection_are_capped_by_max_sessions() {
    let Some(sshd) = Sshd::builder().max_sessions(1).start() else {
        return;
    };
    let bin = crate::support::system_tmux();
    let server = remote_server(&sshd, &bin);
    let pane = first_pane(&server);
    type_line(&server, &pane, "echo limited-1");
    server.wait_for_text(&pane, "limited-1\n", DEADLINE);
    let s = loop_pool(&sshd, &bin, &server, 15);
    // The command channel takes the only session; the mirror's watch is
    // refused, and the answer still comes right (from tmux).
    let found = ok_typed(&s, search_for("limited-1").on_host()).await;
    assert!(
        found["matches"][0]["matched_lines"]
            .as_array()
            .is_some_and(|l| l.contains(&json!("limited-1"))),
        "{found}"
    );
    // A wait needs the mirror's watch: refused, and said so.
    let e = err_typed(&s, waiting_for(&pane, "never", 5.0)).await;
    assert_eq!(e.kind, "HostSessionLimit", "{e:?}");
    // A second server on the host needs a second channel: refused, and said
    // so (never as a session or server gone).
    let second = remote_server(&sshd, &bin);
    let at_second = ListSessionsArgs {
        socket_path: Some(second.socket.to_string_lossy().into_owned()),
        ..Default::default()
    };
    let e = err_typed(&s, at_second.on_host()).await;
    assert_eq!(e.kind, "HostSessionLimit", "{e:?}");
    assert!(e.text.contains("MaxSessions"), "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_newer_than_its_running_server_still_attaches() {
    let Some(sshd) = Sshd::start() else { return };
    let (Some(old), Some(new)) = (tmux_bin("3.5a"), tmux_bin("3.8")) else {
        eprintln!(
            "SKIPPED: version skew needs tmux 3.5a and 3.8 ({})",
            crate::support::FETCH_HINT
        );
        return;
    };
    // The server runs 3.5a; `tmux` on the host is 3.8 (as after an upgrade).
    let server = remote_server(&sshd, &old);
    let pane = first_pane(&server);
    type_line(&server, &pane, "echo skew-ok");
    server.wait_for_text(&pane, "skew-ok\n", DEADLINE);
    let s = pool(
        &server,
        host_config(&sshd, sshd.alias(), &new.path.to_string_lossy(), 15),
    );
    let info =
        crate::support::within("server info", ok_typed(&s, ServerArgs::default().on_host())).await;
    assert_eq!(info["version"], "3.5a", "{info}");
    let found =
        crate::support::within("search", ok_typed(&s, search_for("skew-ok").on_host())).await;
    assert_eq!(found["matches"][0]["source"], "mirror", "{found}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tmuxwire_killed_with_sigkill_leaves_no_ssh_process_login_or_client() {
    use crate::support::sshd::{descendant_pids, is_running};
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let server = remote_server(&sshd, &bin);
        let pane = first_pane(&server);
        // A CLI wait that follows the pane over its own master.
        let mut c = cli_on_host(
            &sshd,
            &bin,
            &server,
            &["wait", "-t", &pane, "--timeout", "120"],
        );
        c.arg("never-printed-here")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        let mut child = c.spawn().expect("spawn tmuxwire");
        let pid = child.id().expect("pid");
        let ours = |server: &TestServer| {
            server
                .tmux_ok(&["list-clients", "-F", "#{client_termname}"])
                .lines()
                .filter(|t| t.starts_with("tmuxwire-"))
                .count()
        };
        // Both of its control clients (commands, and the session's watch) are attached before
        // the kill: a tmux older than 3.7 crashes when a control client (here the remote
        // `tmux -C` ssh runs) goes away before its identify is done (tmux PR #5004; docs/GUIDE.md,
        // remote hosts): a fault of tmux's, not what this test is about.
        crate::support::wait_until_true("the wait follows the pane", DEADLINE, || {
            ours(&server) >= 2
        });
        let procs = descendant_pids(pid);
        let is_master = |&(p, _): &(u32, Option<u64>)| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|a| a == b"-M"))
        };
        assert!(procs.iter().any(is_master), "no ssh master under {pid}");
        // SIGKILL: tmuxwire runs no code of its own after it.
        child.start_kill().expect("SIGKILL tmuxwire");
        child.wait().await.expect("reap tmuxwire");
        // Its master ends (the kernel's parent-death signal), and so do its channels.
        crate::support::wait_until_true("every ssh process of tmuxwire ends", DEADLINE, || {
            !procs.iter().any(is_running)
        });
        // Its login on the host ends with them (no sshd connection process is left).
        crate::support::wait_until_true("the host's sshd drops the connection", DEADLINE, || {
            sshd.session_pids().is_empty()
        });
        // The remote tmux clients they ran leave the server, also one tmux still had an answer
        // queued for (it keeps such a client until its process ends: the channel's relay ends it).
        crate::support::wait_until_true("tmuxwire's clients leave the server", DEADLINE, || {
            ours(&server) == 0
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_reads_and_types_on_a_host() {
    let Some(sshd) = Sshd::start() else { return };
    let bin = crate::support::system_tmux();
    let server = remote_server(&sshd, &bin);
    let pane = first_pane(&server);
    type_line(&server, &pane, "echo cli-remote-1");
    server.wait_for_text(&pane, "cli-remote-1\n", DEADLINE);
    let run = |args: &[&str]| cli_on_host(&sshd, &bin, &server, args);
    let out = run(&["search", "cli-remote-1"])
        .output()
        .await
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(":cli-remote-1"), "{text}");
    let out = run(&["panes"]).output().await.expect("run");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(&pane),
        "{out:?}"
    );
    let out = run(&[
        "wait",
        "-t",
        &pane,
        "--send",
        "echo cli-$((5*5))",
        "--timeout",
        "20",
        "cli-25",
    ])
    .output()
    .await
    .expect("run");
    assert!(out.status.success(), "{out:?}");
    let out = run(&["capture", "-t", &pane]).output().await.expect("run");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("cli-25"),
        "{out:?}"
    );
    // The same through the environment and a configured name.
    let mut c = crate::support::tmuxwire_command();
    c.env("TMUXWIRE_HOSTS", format!("box={}", sshd.alias()))
        .env("TMUXWIRE_SSH_CONFIG", sshd.ssh_config())
        .env("TMUXWIRE_HOST_TMUX", format!("box={}", bin.path.display()))
        .args(["--host", "box", "--socket-path"])
        .arg(&server.socket)
        .args(["search", "-c", "cli-remote-1"]);
    let out = c.output().await.expect("run");
    assert!(out.status.success(), "{out:?}");
}
