//! Smaller hardening points: literal `#[`, a socket file removed while connected, an empty
//! `-L`, a server that refuses tmuxwire, one message for a dead server, errors that name the
//! call rather than internal commands, and long inputs shortened in messages.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::support::Socket;
use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, system_tmux, test_env, tmux_bins, wait_until};
use tmuxwire::mcp::args::{
    CapturePaneArgs, DisplayMessageArgs, ListPanesArgs, SessionArgs, SnapshotPaneArgs,
};
use tmuxwire::tmux::{Caller, Server, Servers};

/// `display_message` prints `#[`, `##[` and other literal text exactly as `tmux display -p`
/// does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn display_message_keeps_style_brackets_literal() {
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        let s = crate::support::servers(&server);
        for fs in [
            "#[fg=red]x",
            "##[",
            "a ##[b] #[c",
            "#[x]#{window_index}#[y]",
        ] {
            let got = ok_typed(
                &s,
                DisplayMessageArgs {
                    format_string: fs.to_string(),
                    ..Default::default()
                },
            )
            .await;
            let want = server.tmux_ok(&["display-message", "-p", fs]);
            assert_eq!(
                got["result"],
                json!(want.trim_end_matches('\n')),
                "tmux {}: {fs:?}",
                bin.label
            );
        }
    }
}

/// With the socket file renamed while connected, every tool still answers over the open
/// connection; once that closes, the error says the socket file is gone; renamed back, calls
/// work again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn socket_file_removed_while_connected() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::start(&bin);
        let pane = first_pane(&server);
        run(&server, &pane, "echo SOCKET-GONE-MARK");
        let tmux = Arc::new(
            Server::new(server.socket.clone(), None, Caller::default())
                .with_idle_close(Duration::from_millis(300)),
        );
        let s = Servers::new(tmux.clone(), Caller::default());
        ok_typed(&s, ListPanesArgs::default()).await;
        let moved = server.socket.with_extension("moved");
        std::fs::rename(&server.socket, &moved).unwrap();
        ok_typed(&s, ListPanesArgs::default()).await;
        let cap = ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        assert!(
            cap["result"]
                .as_str()
                .unwrap_or("")
                .contains("SOCKET-GONE-MARK"),
            "{ctx}"
        );
        let found = ok_typed(&s, search_for("SOCKET-GONE-MARK")).await;
        assert_eq!(found["total_panes_matched"], json!(1), "{ctx}: {found}");
        ok_typed(&s, SnapshotPaneArgs::on(&pane)).await;
        // After the idle close (seen through the moved socket), a new connection cannot
        // find the socket.
        wait_until("the idle connection closes", DEADLINE, || {
            let out = bin
                .command(Socket::Path(&moved))
                .args(["list-clients", "-F", "#{client_termname}"])
                .output()
                .ok()?;
            (!String::from_utf8_lossy(&out.stdout).contains("tmuxwire")).then_some(())
        });
        let e = err_typed(&s, CapturePaneArgs::on(&pane)).await.text;
        assert!(e.contains("is gone"), "{ctx}: {e}");
        assert!(
            e.contains(&server.socket.display().to_string()),
            "{ctx}: {e}"
        );
        std::fs::rename(&moved, &server.socket).unwrap();
        ok_typed(&s, CapturePaneArgs::on(&pane)).await;
        // The search's copy, made while the socket was away, left no paste buffer behind.
        let out = bin
            .command(Socket::Path(&server.socket))
            .args(["list-buffers", "-F", "#{buffer_name}"])
            .output()
            .unwrap();
        let left = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(!left.contains("tmuxwire"), "{ctx}: buffers left: {left}");
    }
}

/// A dead server gets one message from every tool, with no advice to retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_has_one_message() {
    let mut server = TestServer::start(&system_tmux());
    let s = crate::support::servers(&server);
    ok_typed(&s, ListPanesArgs::default()).await;
    server.kill();
    let want = format!("no tmux server running on {}", server.socket.display());
    for (tool, args) in [
        named(ListPanesArgs::default()),
        named(CapturePaneArgs::default()),
        named(search_for("x")),
        named(SnapshotPaneArgs::default()),
        named(DisplayMessageArgs {
            format_string: "#{pane_id}".into(),
            ..Default::default()
        }),
        named(SessionArgs::default()),
    ] {
        let e = err(&s, tool, args).await;
        assert!(e.text.starts_with(&want), "{tool}: {e:?}");
        assert_eq!(e.kind, "NoServer", "{tool}");
        assert!(!e.text.contains("Retry"), "{tool}: {e:?}");
    }
}

/// A server that does not answer: the timeout names the tool call, not the tmux command
/// tmuxwire used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_name_the_call() {
    let server = TestServer::start(&system_tmux());
    let tmux = Arc::new(
        Server::new(server.socket.clone(), None, Caller::default())
            .with_timeout(Duration::from_millis(500)),
    );
    let s = Servers::new(tmux, Caller::default());
    ok_typed(&s, ListPanesArgs::default()).await;
    let pid = server.server_pid().to_string();
    let signal = |sig: &str| {
        assert!(
            Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        );
    };
    signal("-STOP");
    let e = err_typed(
        &s,
        DisplayMessageArgs {
            format_string: "#{pane_id}".into(),
            ..Default::default()
        },
    )
    .await;
    signal("-CONT");
    assert_eq!(e.kind, "Timeout", "{e:?}");
    assert!(
        e.text.starts_with("display_message: tmux did not answer"),
        "{e:?}"
    );
    for internal in [
        "list-panes",
        "list-clients",
        "list-sessions",
        "capture-pane",
    ] {
        assert!(!e.text.contains(internal), "{e:?}");
    }
}

/// Long arguments are shortened where an error repeats them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_inputs_are_shortened_in_errors() {
    let server = TestServer::start(&system_tmux());
    let s = crate::support::servers(&server);
    let name = "n".repeat(100_000);
    let e = err_typed(&s, SessionArgs::in_session(&name)).await;
    assert_eq!(e.kind, "NotFound");
    assert!(e.text.len() < 2_000, "{} bytes", e.text.len());
    assert!(e.text.contains("more characters"), "{}", &e.text[..200]);
    let e = err_typed(&s, CapturePaneArgs::on(&format!("%{}", "9".repeat(50_000)))).await;
    assert!(e.text.len() < 2_000, "{} bytes", e.text.len());
}

/// `-L ''` and `-S ''` are errors, not the default server.
#[test]
fn empty_socket_flags_are_errors() {
    for (flag, says) in [("-L", "-L/--socket-name is empty"), ("-S", "--socket-path")] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
        test_env(&mut cmd);
        let out = cmd.args([flag, "", "panes"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let msg = String::from_utf8_lossy(&out.stderr);
        assert!(msg.contains(says), "{flag}: {msg}");
    }
}

/// A server that refuses tmuxwire (tmux ≥ 3.3 admits only its owner and the users its access
/// list names) is reported with tmux's reason, not as a missing version. Needs root (to run
/// tmuxwire as another user); skipped otherwise.
#[test]
fn a_refusing_server_says_access_not_allowed() {
    if nix::unistd::getuid().as_raw() != 0 {
        crate::support::skipped("needs root (to run tmuxwire as another user)");
        return;
    }
    for bin in tmux_bins() {
        let server = TestServer::start(&bin);
        // Let another user reach the socket; tmux's access list still says no.
        let dir = server.socket.parent().unwrap();
        std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        std::fs::set_permissions(
            &server.socket,
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
        test_env(&mut cmd);
        let out = cmd
            .arg("-S")
            .arg(&server.socket)
            .arg("panes")
            .uid(65534)
            .gid(65534)
            .env("HOME", "/")
            .output()
            .unwrap();
        let msg = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "tmux {}: {msg}", bin.label);
        assert!(
            msg.contains("access not allowed"),
            "tmux {}: {msg}",
            bin.label
        );
        assert!(!msg.contains("Retry"), "tmux {}: {msg}", bin.label);
    }
}
