//! `list_commands` and `get_command_output` on real bash with OSC 133
//! shell integration (the snippet of tmux issue 5417), a shell without
//! it, and a program that forges marks.

use std::sync::Arc;

use serde_json::{Value, json};
use tmuxwire::tmux::Servers;

use crate::support::tool::*;
use crate::support::{TestServer, mirrored_servers, tmux_bins};
use tmuxwire::mcp::args::{
    CapturePaneArgs, CommandArg, CommandOutputArgs, ListCommandsArgs, ListPanesArgs,
    ListSessionsArgs, PaneArgs, PaneStateArgs, RunCommandArgs, SearchPanesArgs, WaitForCommandArgs,
    WaitForStableArgs,
};

/// Bash with OSC 133 prompts (`A`/`B` around PS1, `C` from PS0, `D;$?`
/// from PROMPT_COMMAND), in a clean environment.
///
/// The mirror sees marks from when it starts following a pane, so the
/// returned servers have followed it (a `list_commands` call) before the
/// snippet is typed.
async fn bash_with_marks(
    bin: &crate::support::TmuxBin,
) -> (TestServer, Arc<Servers>, tempfile::TempDir, String) {
    let (server, home, pane) = bash(bin);
    let s = mirrored_servers(&server);
    let v = ok_typed(&s, ListCommandsArgs::on(&pane)).await;
    assert_eq!(v["marks"], json!("absent"), "{v}");
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", MARKS]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    (server, s, home, pane)
}

/// Bash with no rc file in a clean environment, and its pane.
fn bash(bin: &crate::support::TmuxBin) -> (TestServer, tempfile::TempDir, String) {
    let home = tempfile::tempdir().expect("temp home");
    let cmd = crate::support::clean_bash(home.path());
    let server = TestServer::builder(bin).size(80, 20).command(&cmd).start();
    let pane = first_pane(&server);
    (server, home, pane)
}

/// The OSC 133 snippet for bash (tmux issue 5417): `A`/`B` around PS1 (`$ `), `C` from PS0,
/// `D;$?` from PROMPT_COMMAND.
const MARKS: &str = r#"PS1='\[\e]133;A\a\]$ \[\e]133;B\a\]'; PS0='\[\e]133;C\a\]'; PROMPT_COMMAND=('printf "\033]133;D;%d\a" $?')"#;

/// Waits until `pane` shows the prompt of [`MARKS`] on its last line, as a person would
/// before typing.
fn prompt_shown(server: &TestServer, pane: &str) {
    crate::support::wait_until_true("the prompt", crate::support::DEADLINE, || {
        let text = server.capture(pane, &[]);
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::trim_end)
            == Some("$")
    });
}

/// A pane is followed from the first call that names or lists it, whatever the tool: the
/// commands a person types after it are in `list_commands` with their exit statuses (a
/// `capture_pane` first used to leave the pane unfollowed: `marks: "absent"`, no commands).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pane_is_followed_from_the_first_call_that_names_or_lists_it() {
    for bin in tmux_bins() {
        for (tool, names_it) in [
            ("capture_pane", true),
            ("get_pane_info", true),
            ("list_panes", false),
            ("list_sessions", false),
        ] {
            let ctx = format!("tmux {}, {tool} first", bin.label);
            let (server, _home, pane) = bash(&bin);
            // The shell marks its commands before tmuxwire is asked anything.
            server.tmux_ok(&["send-keys", "-t", &pane, "-l", MARKS]);
            server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
            prompt_shown(&server, &pane);
            let s = mirrored_servers(&server);
            let (named_tool, args) = match tool {
                "capture_pane" => named(CapturePaneArgs::on(&pane)),
                "get_pane_info" => named(PaneArgs::on(&pane)),
                "list_panes" => named(ListPanesArgs::default()),
                _ => named(ListSessionsArgs::default()),
            };
            assert_eq!(
                (named_tool, args.get("pane_id").is_some()),
                (tool, names_it)
            );
            ok(&s, tool, args).await;
            let typed = [
                ("printf 'st%s\\n' ep-1", 0),
                ("printf 'st%s\\n' ep-2; false", 1),
                ("printf 'st%s\\n' ep-3; (exit 3)", 3),
                ("printf 'st%s\\n' ep-4", 0),
            ];
            for (keys, _) in typed {
                // By tmux, as a person types, one at a time.
                server.tmux_ok(&["send-keys", "-t", &pane, "-l", keys]);
                server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
                prompt_shown(&server, &pane);
            }
            let v = listed_until(&s, &pane, typed[3].0).await;
            assert_eq!(v["marks"], json!("present"), "{ctx}: {v}");
            let done: Vec<(Value, Value)> = v["commands"]
                .as_array()
                .expect("commands")
                .iter()
                .filter(|c| c["state"] == json!("finished"))
                .map(|c| (c["command"].clone(), c["exit_status"].clone()))
                .collect();
            let statuses: Vec<&Value> = done.iter().map(|(_, s)| s).collect();
            assert_eq!(
                statuses,
                [&json!(0), &json!(1), &json!(3), &json!(0)],
                "{ctx}: {v}"
            );
            // The first command's prompt was on the screen before the copy: where its text
            // begins is known only from tmux's prompt flags (3.7+).
            assert!(
                done[0].0.is_null() || done[0].0 == json!(typed[0].0),
                "{ctx}: {v}"
            );
            for ((command, _), (keys, _)) in done.iter().zip(typed).skip(1) {
                assert_eq!(command, &json!(keys), "{ctx}: {v}");
            }
        }
    }
}

/// Waits until `list_commands` shows a finished command `command`;
/// returns the listing.
pub(crate) async fn listed_until(servers: &Servers, pane: &str, command: &str) -> Value {
    let deadline = std::time::Instant::now() + crate::support::DEADLINE;
    let mut pause = std::time::Duration::from_millis(2);
    loop {
        let v = ok_typed(servers, ListCommandsArgs::on(pane)).await;
        let done = v["commands"].as_array().is_some_and(|a| {
            a.iter()
                .any(|c| c["command"] == json!(command) && c["state"] == json!("finished"))
        });
        if done {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{command} was never listed as finished; last: {v}"
        );
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(std::time::Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marked_commands_are_listed_with_their_output() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let (server, s, _home, pane) = bash_with_marks(&bin).await;
        for keys in [
            "seq 1 5",
            "(exit 7)",
            "printf 'a\\nneedle one\\nb\\nc\\nneedle two\\n'",
            "true",
        ] {
            // One at a time: keys typed while a command runs are echoed by the
            // terminal into its output, as a person would see them.
            server.tmux_ok(&["send-keys", "-t", &pane, "-l", keys]);
            server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
            listed_until(&s, &pane, keys).await;
        }
        let v = listed_until(&s, &pane, "true").await;
        assert_eq!(v["pane_id"], json!(pane), "{ctx}: {v}");
        assert_eq!(v["marks"], json!("present"), "{ctx}: {v}");
        let done: Vec<(Value, Value)> = v["commands"]
            .as_array()
            .expect("commands")
            .iter()
            .filter(|c| c["state"] == json!("finished") && !c["command"].is_null())
            .map(|c| (c["command"].clone(), c["exit_status"].clone()))
            .collect();
        let tail = &done[done.len().saturating_sub(4)..];
        assert_eq!(
            tail,
            [
                (json!("seq 1 5"), json!(0)),
                (json!("(exit 7)"), json!(7)),
                (
                    json!("printf 'a\\nneedle one\\nb\\nc\\nneedle two\\n'"),
                    json!(0)
                ),
                (json!("true"), json!(0)),
            ],
            "{ctx}: {v}"
        );
        for c in v["commands"].as_array().expect("commands") {
            assert_eq!(c["trusted"], json!(false), "{ctx}: {c}");
            assert_eq!(c["source"], json!("osc133"), "{ctx}: {c}");
        }
        let index_of = |cmd: &str| {
            v["commands"]
                .as_array()
                .and_then(|a| a.iter().find(|c| c["command"] == json!(cmd)))
                .and_then(|c| c["index"].as_i64())
                .unwrap_or_else(|| panic!("{ctx}: {cmd} in {v}"))
        };

        // seq's output, line by line, with tmux line numbers capture_pane reads back.
        let out = ok_typed(
            &s,
            CommandOutputArgs {
                index: Some(index_of("seq 1 5")),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        let texts: Vec<&str> = out["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .filter_map(|l| l["text"].as_str())
            .collect();
        assert_eq!(texts, ["1", "2", "3", "4", "5"], "{ctx}: {out}");
        assert_eq!(out["command"]["output_lines"], json!(5), "{ctx}: {out}");
        let first = out["lines"][0]["line"].as_i64().expect("line");
        let cap = ok_typed(
            &s,
            CapturePaneArgs {
                start: Some(first),
                end: Some(first + 4),
                ..CapturePaneArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(
            cap["result"]
                .as_str()
                .map(|t| t.lines().collect::<Vec<_>>()),
            Some(vec!["1", "2", "3", "4", "5"]),
            "{ctx}: {cap}"
        );
        // The text block is the object.
        let r = call_typed(
            &s,
            CommandOutputArgs {
                index: Some(index_of("seq 1 5")),
                tail: Some(2),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        let text: Value = serde_json::from_str(&text_of(&r)).expect("JSON text");
        assert_eq!(text["lines"][0]["text"], json!("4"), "{ctx}: {text}");
        assert_eq!(text["lines_omitted"], json!(3), "{ctx}: {text}");

        // grep with context; head/tail at once.
        let printf = index_of("printf 'a\\nneedle one\\nb\\nc\\nneedle two\\n'");
        let g = ok_typed(
            &s,
            CommandOutputArgs {
                index: Some(printf),
                grep: Some("needle".into()),
                context: Some(1),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        let texts: Vec<&str> = g["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .filter_map(|l| l["text"].as_str())
            .collect();
        assert_eq!(
            texts,
            ["a", "needle one", "b", "c", "needle two"],
            "{ctx}: {g}"
        );
        let g = ok_typed(
            &s,
            CommandOutputArgs {
                index: Some(printf),
                grep: Some("needle".into()),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(g["lines"].as_array().map(Vec::len), Some(2), "{ctx}: {g}");
        assert_eq!(g["lines_omitted"], json!(3), "{ctx}: {g}");
        // search_panes scoped to that command: its output lines, never the command line
        // that holds the same text.
        let all = ok_typed(&s, search_for("needle")).await;
        let scoped = ok_typed(
            &s,
            SearchPanesArgs {
                command: Some(CommandArg::Index(printf)),
                ..search_for("needle")
            },
        )
        .await;
        assert_eq!(
            scoped["matches"][0]["matched_lines"],
            json!(["needle one", "needle two"]),
            "{ctx}: {scoped}"
        );
        assert!(
            all["matches"][0]["matched_line_count"].as_u64() > Some(2),
            "{ctx}: the unscoped search also finds the command line: {all}"
        );
        // As a string too; "last" is `true`, which printed nothing.
        let as_text = ok_typed(
            &s,
            SearchPanesArgs {
                command: Some(CommandArg::Name(printf.to_string())),
                ..search_for("needle")
            },
        )
        .await;
        assert_eq!(
            as_text["matches"][0]["matched_lines"], scoped["matches"][0]["matched_lines"],
            "{ctx}: {as_text}"
        );
        let last = ok_typed(
            &s,
            SearchPanesArgs {
                command: Some(CommandArg::Name("last".into())),
                ..search_for("needle")
            },
        )
        .await;
        assert_eq!(last["matches"], json!([]), "{ctx}: {last}");
        let e = err_typed(
            &s,
            SearchPanesArgs {
                command: Some(CommandArg::Name("first".into())),
                ..search_for("needle")
            },
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument", "{ctx}: {e:?}");
        // `-1` is the newest: `true`, with no output.
        let newest = ok_typed(&s, CommandOutputArgs::on(&pane)).await;
        assert_eq!(
            newest["command"]["command"],
            json!("true"),
            "{ctx}: {newest}"
        );
        assert_eq!(newest["lines"], json!([]), "{ctx}: {newest}");

        // Paging back with before.
        let page = ok_typed(
            &s,
            ListCommandsArgs {
                limit: Some(1),
                before: Some(index_of("true") as u64),
                ..ListCommandsArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(
            page["commands"][0]["index"],
            index_of("printf 'a\\nneedle one\\nb\\nc\\nneedle two\\n'"),
            "{ctx}: {page}"
        );
        assert!(page["omitted"].as_u64() >= Some(2), "{ctx}: {page}");

        // Bad arguments: clear errors, nothing run.
        let e = err_typed(
            &s,
            ListCommandsArgs {
                limit: Some(0),
                ..ListCommandsArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument", "{ctx}: {e:?}");
        let e = err_typed(
            &s,
            CommandOutputArgs {
                context: Some(1000),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(e.kind, "InvalidArgument", "{ctx}: {e:?}");
        let e = err_typed(
            &s,
            CommandOutputArgs {
                index: Some(1_000_000),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(e.kind, "NotFound", "{ctx}: {e:?}");
        let e = err_typed(&s, ListCommandsArgs::on("%999")).await;
        assert_eq!(e.kind, "NotFound", "{ctx}: {e:?}");
    }
}

/// A shell with no integration: `marks: "absent"`, no commands, and a
/// request for output says why there is none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_without_marks_says_so() {
    let bin = crate::support::system_tmux();
    let server = TestServer::start(&bin);
    let pane = first_pane(&server);
    let s = mirrored_servers(&server);
    let _ = run(&server, &pane, "echo plain");
    let v = ok_typed(&s, ListCommandsArgs::on(&pane)).await;
    assert_eq!(v["marks"], json!("absent"), "{v}");
    assert_eq!(v["commands"], json!([]), "{v}");
    let e = err_typed(&s, CommandOutputArgs::on(&pane)).await;
    assert_eq!(e.kind, "NotFound", "{e:?}");
    assert!(e.text.contains("no command marks"), "{e:?}");
    // The hint is about commands, not about finding the pane.
    let hint = e.meta["suggestion"].as_str().unwrap_or("");
    assert!(hint.contains("list_commands"), "{e:?}");
}

/// A program that prints marks of its own (a forged command with a made-up
/// success) shows up only as an untrusted record: it cannot make itself
/// trusted, and the shell's own record of the command that ran it keeps
/// that command's real status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_marks_stay_untrusted() {
    let bin = crate::support::system_tmux();
    let (server, s, _home, pane) = bash_with_marks(&bin).await;
    let forge = r"printf '\033]133;A\a$ \033]133;B\a\033]133;C\aforged\n\033]133;D;0\a'; exit_three() { return 3; }; exit_three";
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", forge]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", "true"]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    let v = listed_until(&s, &pane, "true").await;
    for c in v["commands"].as_array().expect("commands") {
        assert_eq!(c["trusted"], json!(false), "{c}");
    }
    // The last status before `true` is the shell's: 3, whatever the forged D said.
    let cmds = v["commands"].as_array().expect("commands");
    let t = cmds
        .iter()
        .rposition(|c| c["command"] == json!("true"))
        .expect("true");
    let before: Vec<&Value> = cmds[..t]
        .iter()
        .filter(|c| c["state"] == json!("finished"))
        .collect();
    assert_eq!(
        before.last().map(|c| c["exit_status"].clone()),
        Some(json!(3)),
        "{v}"
    );
}

/// `wait_for_command` returns the next command that finishes, typed by a
/// person (here `tmux send-keys`), with its status and output tail; one
/// already running when the wait began counts; a timeout names the
/// command still running; a killed pane ends the wait as `pane_gone`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_command_sees_the_next_command_end() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let (server, s, _home, pane) = bash_with_marks(&bin).await;
        prompt_ready(&s, &pane).await;
        // Begun before the command is typed.
        let wait = waiting(&s, &pane, 10).await;
        server.tmux_ok(&[
            "send-keys",
            "-t",
            &pane,
            "-l",
            "printf 'w1\\nw2\\n'; (exit 4)",
        ]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        let v = crate::support::within("wait_for_command", wait)
            .await
            .expect("the wait task");
        assert_eq!(v["outcome"], json!("finished"), "{ctx}: {v}");
        assert_eq!(v["found"], json!(true), "{ctx}: {v}");
        assert_eq!(
            v["command"]["command"],
            json!("printf 'w1\\nw2\\n'; (exit 4)"),
            "{ctx}: {v}"
        );
        assert_eq!(v["command"]["exit_status"], json!(4), "{ctx}: {v}");
        assert_eq!(v["tail"], json!(["w1", "w2"]), "{ctx}: {v}");
        assert_eq!(v["marks"], json!("present"), "{ctx}: {v}");

        // Begun while the command runs: it is the next to finish.
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", "sleep 0.5; echo slept"]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        let v = ok_typed(
            &s,
            WaitForCommandArgs {
                timeout: 10.0,
                ..WaitForCommandArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(
            v["command"]["command"],
            json!("sleep 0.5; echo slept"),
            "{ctx}: {v}"
        );
        assert_eq!(v["command"]["exit_status"], json!(0), "{ctx}: {v}");
        assert_eq!(v["tail"], json!(["slept"]), "{ctx}: {v}");

        // A timeout says what still runs.
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", "sleep 30"]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        let v = crate::support::wait_until_async("sleep 30 runs", || {
            let s = s.clone();
            let pane = pane.clone();
            async move {
                let v = ok_typed(
                    &s,
                    WaitForCommandArgs {
                        timeout: 0.2,
                        ..WaitForCommandArgs::on(&pane)
                    },
                )
                .await;
                (v["running"]["command"] == json!("sleep 30")).then_some(v)
            }
        })
        .await;
        assert_eq!(v["outcome"], json!("timeout"), "{ctx}: {v}");
        assert_eq!(v["command"], Value::Null, "{ctx}: {v}");
        assert_eq!(v["running"]["state"], json!("running"), "{ctx}: {v}");

        // The pane killed during the wait: pane_gone, soon, never timeout.
        let wait = waiting(&s, &pane, 20).await;
        // A second window keeps the server alive.
        server.tmux_ok(&["new-window", "-d"]);
        server.tmux_ok(&["kill-pane", "-t", &pane]);
        let v = crate::support::within("wait_for_command on a killed pane", wait)
            .await
            .expect("the wait task");
        assert_eq!(v["outcome"], json!("pane_gone"), "{ctx}: {v}");
        assert!(v["elapsed_seconds"].as_f64() < Some(5.0), "{ctx}: {v}");
        assert!(v["pane_exit_unknown"].is_string(), "{ctx}: {v}");

        // The pane's program exits, its pane kept (remain-on-exit): exited, with the status
        // (issue 28: never without it when tmux can tell).
        server.tmux_ok(&["set", "-g", "remain-on-exit", "on"]);
        let dir = tempfile::tempdir().expect("temp dir");
        let go = dir.path().join("go");
        let gated = format!(
            "sh -c 'while [ ! -e {} ]; do sleep 0.05; done; exit 5'",
            go.display()
        );
        let exiting = server.new_window_pane(&[&gated]);
        let wait = waiting(&s, &exiting, 20).await;
        std::fs::write(&go, b"").expect("go");
        let v = crate::support::within("wait_for_command on an exiting pane", wait)
            .await
            .expect("the wait task");
        assert_eq!(v["outcome"], json!("exited"), "{ctx}: {v}");
        assert_eq!(v["pane_exit_status"], json!(5), "{ctx}: {v}");
        assert!(v["elapsed_seconds"].as_f64() < Some(5.0), "{ctx}: {v}");
    }
}

/// Starts `wait_for_command` on `pane` and returns once it has subscribed
/// to the copy (so output typed next comes after the wait's entry).
pub(crate) async fn waiting(
    s: &Arc<Servers>,
    pane: &str,
    timeout: u64,
) -> tokio::task::JoinHandle<Value> {
    let wait = {
        let (s, pane) = (s.clone(), pane.to_string());
        tokio::spawn(async move {
            let args = WaitForCommandArgs {
                timeout: timeout as f64,
                ..WaitForCommandArgs::on(&pane)
            };
            ok_typed(&s, args).await
        })
    };
    crate::support::wait_subscribed(s.default_server(), pane).await;
    wait
}

/// Waits until the pane's shell shows a marked prompt.
pub(crate) async fn prompt_ready(s: &Servers, pane: &str) {
    crate::support::wait_until_async("a marked prompt", || async {
        let v = ok_typed(s, ListCommandsArgs::on(pane)).await;
        let last = v["commands"].as_array()?.last()?.clone();
        (last["state"] == json!("prompt")).then_some(())
    })
    .await;
}

/// A pane without shell integration: the wait ends at its timeout with
/// `marks: "absent"`, so an agent knows why nothing finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_command_without_marks_says_so() {
    let server = TestServer::start(&crate::support::system_tmux());
    let pane = first_pane(&server);
    let s = mirrored_servers(&server);
    let v = ok_typed(
        &s,
        WaitForCommandArgs {
            timeout: 0.2,
            ..WaitForCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("timeout"), "{v}");
    assert_eq!(v["marks"], json!("absent"), "{v}");
    assert_eq!(v["effective_timeout"], json!(0.2), "{v}");
    let e = err_typed(
        &s,
        WaitForCommandArgs {
            timeout: -1.0,
            ..WaitForCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(e.kind, "InvalidArgument", "{e:?}");
}

/// A command that stops to read a line (`read`) or a password (`read -s`)
/// ends `wait_for_command` early, as `awaiting_input` or
/// `password_prompt` with its evidence, instead of at the timeout; once
/// answered, the command finishes and the next wait sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_command_ends_on_a_program_reading_input() {
    let bin = crate::support::system_tmux();
    let (server, s, _home, pane) = bash_with_marks(&bin).await;
    prompt_ready(&s, &pane).await;
    for (keys, outcome) in [
        ("read -r x; echo got-$x", "awaiting_input"),
        ("read -rs y; echo got-$y", "password_prompt"),
    ] {
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", keys]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        let v = ok_typed(
            &s,
            WaitForCommandArgs {
                timeout: 20.0,
                ..WaitForCommandArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(v["outcome"], json!(outcome), "{v}");
        assert!(v["elapsed_seconds"].as_f64() < Some(5.0), "{v}");
        assert!(
            v["evidence"].as_array().is_some_and(|e| !e.is_empty()),
            "{v}"
        );
        assert_eq!(v["running"]["command"], json!(keys), "{v}");
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", "abc"]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        listed_until(&s, &pane, keys).await;
    }
}

/// `wait_for_stable` never takes silence for idle while a marked command
/// runs (OSC 133 `C` without `D`): a quiet `sleep` times out with the
/// command named in `evidence`; once it ends, the screen is stable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_stable_is_never_idle_while_a_command_runs() {
    let bin = crate::support::system_tmux();
    let (server, s, _home, pane) = bash_with_marks(&bin).await;
    prompt_ready(&s, &pane).await;
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", "sleep 3"]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    crate::support::wait_until_async("sleep running", || async {
        let v = ok_typed(&s, ListCommandsArgs::on(&pane)).await;
        let last = v["commands"].as_array()?.last()?.clone();
        (last["state"] == json!("running")).then_some(())
    })
    .await;
    let v = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 200.0,
            timeout: 1.0,
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("timeout"), "{v}");
    assert!(
        v["evidence"].to_string().contains("'sleep 3' is running"),
        "{v}"
    );
    let v = ok_typed(
        &s,
        WaitForStableArgs {
            stable_ms: 200.0,
            timeout: 15.0,
            ..WaitForStableArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("stable"), "{v}");
    assert!(v["elapsed_seconds"].as_f64() > Some(0.5), "{v}");
}

/// `run_command(mode: "marks")` types the command as it is, so `cd` and
/// `export` persist, and reads its status and output from the shell's
/// marks (the note says they are advisory); a pane without marks is
/// refused at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_in_marks_mode_keeps_the_shell_state() {
    let bin = crate::support::system_tmux();
    let (_server, s, _home, pane) = bash_with_marks(&bin).await;
    prompt_ready(&s, &pane).await;
    let v = ok_typed(
        &s,
        RunCommandArgs {
            mode: Some("marks".into()),
            timeout: 15.0,
            command: "cd /tmp && export FOO=bar; echo foo-$FOO; (exit 3)".into(),
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["outcome"], json!("completed"), "{v}");
    assert_eq!(v["exit_status"], json!(3), "{v}");
    assert_eq!(v["output"], json!(["foo-bar"]), "{v}");
    assert!(v["note"].to_string().contains("trusted false"), "{v}");
    let v = ok_typed(
        &s,
        RunCommandArgs {
            mode: Some("marks".into()),
            timeout: 15.0,
            command: "echo $PWD $FOO".into(),
            ..RunCommandArgs::on(&pane)
        },
    )
    .await;
    assert_eq!(v["exit_status"], json!(0), "{v}");
    assert_eq!(v["output"], json!(["/tmp bar"]), "{v}");
    // No marks: refused at once.
    let plain = TestServer::start(&bin);
    let ps = mirrored_servers(&plain);
    let p = first_pane(&plain);
    let e = err_typed(
        &ps,
        RunCommandArgs {
            mode: Some("marks".into()),
            command: "true".into(),
            ..RunCommandArgs::on(&p)
        },
    )
    .await;
    assert!(e.text.contains("no command marks"), "{e:?}");
    let e = err_typed(
        &ps,
        RunCommandArgs {
            mode: Some("bogus".into()),
            command: "true".into(),
            ..RunCommandArgs::on(&p)
        },
    )
    .await;
    assert!(e.text.contains("mode"), "{e:?}");
}

/// On tmux 3.7+, commands marked before tmuxwire watched the pane are
/// recovered when its copy is seeded, from tmux's own prompt and output
/// flags (`capture-pane -F`): source `tmux-flags`, finished with an
/// unknown status, their output readable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeding_recovers_commands_from_tmux_flags() {
    let Some(bin) = crate::support::tmux_bin("3.8") else {
        return;
    };
    let home = tempfile::tempdir().expect("temp home");
    let cmd = crate::support::clean_bash(home.path());
    let server = TestServer::builder(&bin).size(80, 20).command(&cmd).start();
    let pane = first_pane(&server);
    let snippet = r#"PS1='\[\e]133;A\a\]$ \[\e]133;B\a\]'; PS0='\[\e]133;C\a\]'; PROMPT_COMMAND=('printf "\033]133;D;%d\a" $?')"#;
    // Typed and run before tmuxwire watches the pane.
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", snippet]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    server.wait_for_text(&pane, "$ ", crate::support::DEADLINE);
    server.tmux_ok(&[
        "send-keys",
        "-t",
        &pane,
        "-l",
        "echo one-$((1+1)); echo two",
    ]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    crate::support::wait_until_true("the second prompt", crate::support::DEADLINE, || {
        server.capture(&pane, &[]).matches("$ ").count() >= 2
    });
    let s = mirrored_servers(&server);
    let v = ok_typed(&s, ListCommandsArgs::on(&pane)).await;
    assert_eq!(v["marks"], json!("present"), "{v}");
    let cmds = v["commands"].as_array().expect("commands");
    let first = &cmds[0];
    assert_eq!(first["source"], json!("tmux-flags"), "{v}");
    assert_eq!(first["state"], json!("finished"), "{v}");
    assert_eq!(first["exit_status"], Value::Null, "{v}");
    assert_eq!(first["started_at"], Value::Null, "{v}");
    assert_eq!(first["output_lines"], json!(2), "{v}");
    let out = ok_typed(
        &s,
        CommandOutputArgs {
            index: first["index"].as_i64(),
            ..CommandOutputArgs::on(&pane)
        },
    )
    .await;
    let texts: Vec<&str> = out["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(|l| l["text"].as_str())
        .collect();
    assert_eq!(texts, ["one-2", "two"], "{out}");
    // The lines are tmux's: capture_pane reads the same one back.
    let line = out["lines"][0]["line"].as_i64().expect("line");
    let cap = ok_typed(
        &s,
        CapturePaneArgs {
            start: Some(line),
            end: Some(line),
            ..CapturePaneArgs::on(&pane)
        },
    )
    .await;
    assert!(cap["result"].to_string().contains("one-2"), "{cap}");
    // Marks that come later complete the table as usual (the command line of a
    // prompt drawn before the copy is unknown: its `B` mark came before).
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", "(exit 5)"]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    crate::support::wait_until_async("exit status 5 listed", || async {
        let v = ok_typed(&s, ListCommandsArgs::on(&pane)).await;
        let c = v["commands"].as_array()?.clone();
        c.iter()
            .any(|c| c["exit_status"] == json!(5) && c["state"] == json!("finished"))
            .then_some(())
    })
    .await;
    server.tmux_ok(&["send-keys", "-t", &pane, "-l", "echo three"]);
    server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    listed_until(&s, &pane, "echo three").await;
}

/// Real programs around the marks: a nested bash that marks its own
/// commands (depth 1 inside the outer `bash` command), `clear`, and a
/// full-screen program on the alternate screen (no marks there; the
/// outer command still ends with its status).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_shell_clear_and_alternate_screen() {
    let bin = crate::support::system_tmux();
    let (server, s, home, pane) = bash_with_marks(&bin).await;
    prompt_ready(&s, &pane).await;
    // Nesting follows `aid=` (without it a nested shell cannot be told from the same
    // shell's next prompt): each shell names itself. The inner one marks from its first
    // prompt and sends `D` only after a command, as shell integrations do.
    let typed = |keys: &str| {
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", keys]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
    };
    typed(
        r#"PS1='\[\e]133;A;aid=outer\a\]$ \[\e]133;B\a\]'; PROMPT_COMMAND=('printf "\033]133;D;%d;aid=outer\a" $?')"#,
    );
    server.wait_for_text(&pane, "aid=outer", crate::support::DEADLINE);
    let rc = r#"PS1='\[\e]133;A;aid=inner\a\]in$ \[\e]133;B\a\]'; PS0='\[\e]133;C\a\]'
PROMPT_COMMAND=('s=$?; [ -n "$m" ] && printf "\033]133;D;%d;aid=inner\a" $s; m=1')
"#;
    std::fs::write(home.path().join("inner.rc"), rc).expect("write rc");
    typed("bash --rcfile ~/inner.rc -i");
    server.wait_for_text(&pane, "in$ ", crate::support::DEADLINE);
    typed("echo inner-$((2+3))");
    let v = listed_until(&s, &pane, "echo inner-$((2+3))").await;
    let inner = v["commands"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|c| c["command"] == json!("echo inner-$((2+3))"))
        })
        .cloned()
        .expect("inner command");
    assert_eq!(inner["depth"], json!(1), "{v}");
    assert_eq!(inner["exit_status"], json!(0), "{v}");
    typed("clear");
    listed_until(&s, &pane, "clear").await;
    if crate::support::test_shell("bash").is_some()
        && std::process::Command::new("sh")
            .args(["-c", "command -v vi >/dev/null"])
            .status()
            .is_ok_and(|st| st.success())
    {
        typed("vi -u NONE");
        crate::support::wait_until_async("vi on the alternate screen", || async {
            let v = ok_typed(&s, PaneStateArgs::on(&pane)).await;
            (v["alternate_on"] == json!(true)).then_some(())
        })
        .await;
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", ":q!"]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        listed_until(&s, &pane, "vi -u NONE").await;
    }
    typed("exit 4");
    // The outer `bash` command ends with the inner shell's status.
    let v = listed_until(&s, &pane, "bash --rcfile ~/inner.rc -i").await;
    let outer = v["commands"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|c| c["command"] == json!("bash --rcfile ~/inner.rc -i"))
        })
        .cloned()
        .expect("outer command");
    // The outermost shell: depth 0 is left out.
    assert!(outer.get("depth").is_none(), "{v}");
    assert_eq!(outer["exit_status"], json!(4), "{v}");
    for c in v["commands"].as_array().expect("commands") {
        assert_eq!(c["trusted"], json!(false), "{c}");
    }
}

/// What fish ≥ 4.0 prints by default, written as fish 3.6 event handlers
/// (Debian 12 ships fish 3.6.0, which emits no marks): `133;A;click_events=1`
/// before the prompt, `133;B` after it (fish ≥ 4.3), `133;C;cmdline_url=`
/// with the command line percent-encoded (≥ 4.0.1) and `133;D;$status`, all
/// terminated by ST as fish writes them (fish's `src/terminal.rs`).
const FISH4_MARKS: &str = r#"function fish_prompt; printf '> \e]133;B\e\\'; end
function fish_greeting; end
function __tw_a --on-event fish_prompt; printf '\e]133;A;click_events=1\e\\'; end
function __tw_c --on-event fish_preexec; printf '\e]133;C;cmdline_url=%s\e\\' (string escape --style=url -- $argv[1]); end
function __tw_d --on-event fish_postexec; printf '\e]133;D;%d\e\\' $status; end
"#;

/// fish with fish 4's marks: commands are listed with the command line
/// from `cmdline_url`, their status and output, and `run_command` in marks
/// mode keeps fish's own state (`cd`, `set -gx`) across calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fish_marks_are_read_and_marks_mode_runs_in_fish() {
    let Some(sh) = crate::support::test_shell("fish") else {
        return;
    };
    let home = tempfile::tempdir().expect("temp home");
    let script = home.path().join("marks.fish");
    std::fs::write(&script, FISH4_MARKS).expect("marks.fish");
    for bin in tmux_bins() {
        let ctx = format!("fish on tmux {}", bin.label);
        let cmd = format!(
            "{} -C 'source {}'",
            sh.command.replacen(
                "env ",
                &format!(
                    "env TMUX_TMPDIR={} ",
                    crate::support::private_tmux_tmpdir().display()
                ),
                1
            ),
            script.display()
        );
        let server = TestServer::builder(&bin).size(80, 20).command(&cmd).start();
        let pane = first_pane(&server);
        let s = mirrored_servers(&server);
        // The mirror follows from its first call; a fresh prompt after it.
        ok_typed(&s, ListCommandsArgs::on(&pane)).await;
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", "true"]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        listed_until(&s, &pane, "true").await;
        let line = "echo hi; echo 'a%b c'; false";
        server.tmux_ok(&["send-keys", "-t", &pane, "-l", line]);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        let v = listed_until(&s, &pane, line).await;
        let c = v["commands"]
            .as_array()
            .and_then(|a| a.iter().find(|c| c["command"] == json!(line)))
            .unwrap_or_else(|| panic!("{ctx}: {v}"))
            .clone();
        assert_eq!(c["exit_status"], json!(1), "{ctx}: {c}");
        assert_eq!(c["source"], json!("osc133"), "{ctx}: {c}");
        assert_eq!(c["trusted"], json!(false), "{ctx}: {c}");
        let out = ok_typed(
            &s,
            CommandOutputArgs {
                index: c["index"].as_i64(),
                ..CommandOutputArgs::on(&pane)
            },
        )
        .await;
        let text: Vec<&Value> = out["lines"]
            .as_array()
            .map(|a| a.iter().map(|l| &l["text"]).collect())
            .unwrap_or_default();
        assert_eq!(text, [&json!("hi"), &json!("a%b c")], "{ctx}: {out}");

        prompt_ready(&s, &pane).await;
        let v = ok_typed(
            &s,
            RunCommandArgs {
                mode: Some("marks".into()),
                timeout: 15.0,
                command: "cd /tmp; set -gx FOO bar; echo foo-$FOO; false".into(),
                ..RunCommandArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(v["outcome"], json!("completed"), "{ctx}: {v}");
        assert_eq!(v["exit_status"], json!(1), "{ctx}: {v}");
        assert_eq!(v["output"], json!(["foo-bar"]), "{ctx}: {v}");
        let v = ok_typed(
            &s,
            RunCommandArgs {
                mode: Some("marks".into()),
                timeout: 15.0,
                command: "echo $PWD $FOO".into(),
                ..RunCommandArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(v["exit_status"], json!(0), "{ctx}: {v}");
        assert_eq!(v["output"], json!(["/tmp bar"]), "{ctx}: {v}");
    }
}
