//! `--redact` on real tmux (issue 29 point 6): a pane prints the redaction corpus
//! (`tests/data/redact`: real-looking secrets, a private key, near misses). With redaction on,
//! no tool that returns pane text returns a secret, a search or a wait for a secret's text
//! finds nothing, and the near misses come back untouched; with it off, every secret comes
//! back as the pane shows it. Differential: a capture with redaction on is tmuxwire's
//! capture with redaction off, masked by `tmuxwire::redact`. On every binary from
//! `tmux_bins()`; the CLI (`capture`, `search`, `wait`) and `tmuxwire mcp` with
//! `TMUXWIRE_REDACT=1` too.

use std::process::Stdio;
use std::sync::Arc;

use rmcp::model::ReadResourceRequestParams;
use serde_json::{Map, Value, json};
use tmuxwire::mcp::TmuxwireServer;
use tmuxwire::mcp::args::ToolCall;
use tmuxwire::tmux::Servers;

use crate::support::tool::{
    OnPane, argument_map, first_pane, named, operation, run, search_for, type_line,
};
use crate::support::*;
use tmuxwire::mcp::args::{
    BatchArgs, CapturePaneArgs, CaptureSinceArgs, CommandOutputArgs, ListPanesArgs, LoadBufferArgs,
    PaneArgs, RunCommandArgs, SearchPanesArgs, ShowBufferArgs, SnapshotPaneArgs, WaitForTextArgs,
};

const SECRETS: &str = include_str!("data/redact/secrets.txt");
const NEAR_MISSES: &str = include_str!("data/redact/near-misses.txt");
const BLOCKS: &str = include_str!("data/redact/blocks.txt");

/// bash's shell integration (OSC 133 marks), as `tests/commands.rs` sets it up.
const INTEGRATION: &str = r#"PS1='\[\e]133;A\a\]$ \[\e]133;B\a\]'; PS0='\[\e]133;C\a\]'; PROMPT_COMMAND=('printf "\033]133;D;%d\a" $?')"#;

/// The last line the corpus file holds.
const END: &str = "CORPUS-END";

/// What the pane prints, and what must (not) come back.
struct Corpus {
    /// The file's text.
    text: String,
    /// The secrets of 8 characters or more (shorter ones could be found by chance elsewhere).
    secrets: Vec<String>,
    /// The near misses, each a line that must come back as it is.
    near: Vec<String>,
}

/// `marked` without its `⟦…⟧` marks, and the marked parts.
fn unmark(marked: &str) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut parts = Vec::new();
    let mut rest = marked;
    while let Some(open) = rest.find('⟦') {
        let close = open + rest[open..].find('⟧').expect("a closing mark");
        text.push_str(&rest[..open]);
        let part = &rest[open + '⟦'.len_utf8()..close];
        text.push_str(part);
        parts.push(part.to_string());
        rest = &rest[close + '⟧'.len_utf8()..];
    }
    text.push_str(rest);
    (text, parts)
}

fn corpus() -> Corpus {
    let near: Vec<String> = NEAR_MISSES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    // Near misses first: the screen (the last 50 rows) shows secrets.
    let mut lines = near.clone();
    let mut secrets = Vec::new();
    for l in SECRETS.lines().filter(|l| !l.starts_with('#')) {
        let (_, marked) = l.split_once('\t').expect("KINDS<TAB>TEXT");
        let (text, parts) = unmark(marked);
        lines.push(text);
        secrets.extend(parts);
    }
    // The whole RSA key of the block cases.
    let key = BLOCKS
        .split("=== ")
        .find(|c| c.starts_with("rsa whole"))
        .expect("the rsa case");
    for l in key.lines().skip(1) {
        let (text, parts) = unmark(l);
        lines.push(text);
        secrets.extend(parts);
    }
    lines.push(END.to_string());
    secrets.retain(|s| s.chars().count() >= 8);
    Corpus {
        text: lines.join("\n") + "\n",
        secrets,
        near,
    }
}

/// The secrets of `c` that `text` holds.
fn leaked<'a>(c: &'a Corpus, text: &str) -> Vec<&'a str> {
    c.secrets
        .iter()
        .filter(|s| text.contains(s.as_str()))
        .map(String::as_str)
        .collect()
}

/// Every string of a result (its structured content and its text blocks, as a model reads
/// them), unescaped, one per line.
fn seen(r: &rmcp::model::CallToolResult) -> String {
    strings(&serde_json::to_value(r).expect("encode result"))
}

/// Every string in `v`, one per line.
fn strings(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

/// Calls `tool` on `server`; it must succeed.
async fn ok(
    server: &TmuxwireServer,
    tool: &str,
    a: Map<String, Value>,
) -> rmcp::model::CallToolResult {
    let r = within(tool, server.call(tool, a.clone())).await;
    assert_ne!(
        r.is_error,
        Some(true),
        "{tool} {}: {}",
        Value::Object(a),
        seen(&r)
    );
    r
}

/// Calls tool `A::NAME` on `server` with typed arguments; it must succeed.
async fn ok_typed<A: ToolCall>(server: &TmuxwireServer, a: A) -> rmcp::model::CallToolResult {
    ok(server, A::NAME, argument_map(&a)).await
}

/// A JSON string's unescaped text is what a model reads: escape-free comparisons need the
/// structured value.
fn structured(r: &rmcp::model::CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structured content")
}

/// Writes the corpus to a file and cats it in `pane`, waiting for its end.
fn print_corpus(server: &TestServer, pane: &str, c: &Corpus) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("corpus.txt");
    std::fs::write(&path, &c.text).expect("write the corpus");
    run(server, pane, &format!("cat {}", path.display()));
    dir
}

/// Every tool that returns pane text, with redaction on and off, on one pane that printed
/// the corpus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_masks_the_corpus_and_only_with_redaction_on() {
    let c = corpus();
    assert!(c.secrets.len() >= 90, "{} secrets", c.secrets.len());
    for bin in tmux_bins() {
        let v = &bin.label;
        let server = TestServer::builder(&bin).size(250, 50).start();
        let pane = first_pane(&server);
        // Shell integration, so the commands have marks (get_command_output).
        run(&server, &pane, INTEGRATION);
        let dir = print_corpus(&server, &pane, &c);
        let corpus_path = dir.path().join("corpus.txt");
        // A pane title is text a pane controls too.
        server.tmux_ok(&[
            "select-pane",
            "-t",
            &pane,
            "-T",
            &format!("t {}", c.secrets[0]),
        ]);
        let servers: Arc<Servers> = servers(&server);
        let on = TmuxwireServer::new(servers.clone()).with_redact(true);
        let off = TmuxwireServer::new(servers.clone());

        // capture_pane: the differential, and both halves of the result.
        let whole = CapturePaneArgs {
            start: Some(-1000),
            max_lines: None,
            ..CapturePaneArgs::on(&pane)
        };
        let plain = ok_typed(&off, whole.clone()).await;
        let text = structured(&plain)["result"]
            .as_str()
            .expect("text")
            .to_string();
        assert!(
            leaked(&c, &text).len() == c.secrets.len(),
            "{v}: off shows every secret"
        );
        let masked = ok_typed(&on, whole.clone()).await;
        let (expected, counts) = tmuxwire::redact::redact_rows(&text, 250);
        assert_eq!(
            structured(&masked)["result"],
            json!(expected),
            "{v}: differential"
        );
        assert_eq!(
            structured(&masked)["redacted"],
            json!(counts.total()),
            "{v}: counted"
        );
        // Every marked secret of the corpus, and the key once.
        let marked: usize = SECRETS
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.matches('⟦').count())
            .sum();
        assert_eq!(counts.total(), marked as u64 + 1, "{v}: {counts:?}");
        assert_eq!(
            leaked(&c, &seen(&masked)),
            Vec::<&str>::new(),
            "{v}: capture_pane"
        );
        let shown = structured(&masked)["result"].as_str().unwrap_or("");
        for n in &c.near {
            // tmux trims a row's trailing spaces.
            assert!(
                shown.lines().any(|l| l == n.trim_end()),
                "{v}: near miss {n:?} changed"
            );
        }
        assert!(structured(&plain).get("redacted").is_none());

        // The same with joined lines, the screen only, and a snapshot.
        for (tool, a) in [
            named(CapturePaneArgs {
                join_wrapped: true,
                ..whole.clone()
            }),
            named(CapturePaneArgs::on(&pane)),
            named(SnapshotPaneArgs::on(&pane)),
            named(CaptureSinceArgs::on(&pane)),
            named(ListPanesArgs::default()),
            named(PaneArgs::on(&pane)),
            named(BatchArgs {
                operations: vec![operation(whole.clone())],
                ..Default::default()
            }),
        ] {
            let r = ok(&on, tool, a.as_object().cloned().unwrap_or_default()).await;
            assert_eq!(leaked(&c, &seen(&r)), Vec::<&str>::new(), "{v}: {tool} {a}");
        }
        let title = ok_typed(&off, PaneArgs::on(&pane)).await;
        assert!(
            seen(&title).contains(&c.secrets[0]),
            "{v}: the title as it is"
        );

        // search_panes: a secret's text is found only with redaction off; text outside the
        // secrets is found, and its lines come back masked.
        for s in &c.secrets {
            let needle: String = s.chars().take(16).collect();
            let a = SearchPanesArgs {
                match_case: true,
                ..search_for(&needle)
            };
            let r = ok_typed(&on, a).await;
            assert_eq!(
                structured(&r)["total_panes_matched"],
                json!(0),
                "{v}: search for {needle:?}: {}",
                seen(&r)
            );
        }
        let some = &c.secrets[..5];
        for s in some {
            let needle: String = s.chars().take(16).collect();
            let r = ok_typed(
                &off,
                SearchPanesArgs {
                    match_case: true,
                    ..search_for(&needle)
                },
            )
            .await;
            assert_eq!(
                structured(&r)["total_panes_matched"],
                json!(1),
                "{v}: {needle:?}"
            );
        }
        for pattern in ["export", "password", "token", "-----", "="] {
            let a = SearchPanesArgs {
                max_matched_lines_per_pane: 500,
                ..search_for(pattern)
            };
            let r = ok_typed(&on, a).await;
            let lines = structured(&r)["matches"][0]["matched_lines"].clone();
            assert!(
                lines.as_array().is_some_and(|l| !l.is_empty()),
                "{v}: {pattern}"
            );
            assert_eq!(
                leaked(&c, &seen(&r)),
                Vec::<&str>::new(),
                "{v}: search {pattern}"
            );
        }
        let every = SearchPanesArgs {
            regex: true,
            max_matched_lines_per_pane: 1000,
            ..search_for(".")
        };
        let r = ok_typed(&on, every).await;
        assert_eq!(leaked(&c, &seen(&r)), Vec::<&str>::new(), "{v}: search .");

        // run_command: the output, masked; the command as typed.
        let cat = format!("cat {}", corpus_path.display());
        let r = ok_typed(
            &on,
            RunCommandArgs {
                command: cat.to_string(),
                timeout: 20.0,
                ..RunCommandArgs::on(&pane)
            },
        )
        .await;
        assert_eq!(
            leaked(&c, &seen(&r)),
            Vec::<&str>::new(),
            "{v}: run_command"
        );
        let r = ok_typed(
            &off,
            RunCommandArgs {
                command: cat.to_string(),
                timeout: 20.0,
                ..RunCommandArgs::on(&pane)
            },
        )
        .await;
        assert!(!leaked(&c, &seen(&r)).is_empty(), "{v}: run_command off");

        // get_command_output (run_command's marks make a command of it): the lines, and a
        // grep for a secret's text finds nothing.
        let a = CommandOutputArgs {
            index: Some(-1),
            ..CommandOutputArgs::on(&pane)
        };
        let r = ok_typed(&on, a.clone()).await;
        assert_eq!(
            leaked(&c, &seen(&r)),
            Vec::<&str>::new(),
            "{v}: get_command_output"
        );
        let r = ok_typed(&off, a).await;
        assert!(
            !leaked(&c, &seen(&r)).is_empty(),
            "{v}: get_command_output off"
        );
        let needle: String = c.secrets[0].chars().take(16).collect();
        let a = CommandOutputArgs {
            index: Some(-1),
            grep: Some(needle.clone()),
            ..CommandOutputArgs::on(&pane)
        };
        let r = ok_typed(&on, a.clone()).await;
        assert_eq!(structured(&r)["lines"], json!([]), "{v}: grep {needle}");
        let r = ok_typed(&off, a).await;
        assert_ne!(structured(&r)["lines"], json!([]), "{v}: grep {needle} off");
        // capture_pane's and capture_since's grep: nothing kept for a secret's text.
        let a = CapturePaneArgs {
            start: Some(-100000),
            grep: Some(needle.clone()),
            ..CapturePaneArgs::on(&pane)
        };
        let r = ok_typed(&on, a.clone()).await;
        let kept = structured(&r)["result"].as_str().unwrap_or("").to_string();
        assert!(
            !kept.contains("REDACTED"),
            "{v}: capture_pane grep {needle}: {kept}"
        );
        let r = ok_typed(&off, a).await;
        assert!(
            !leaked(&c, &seen(&r)).is_empty(),
            "{v}: capture_pane grep off"
        );
        let a = CaptureSinceArgs {
            grep: Some(needle.clone()),
            ..CaptureSinceArgs::on(&pane)
        };
        let r = ok_typed(&on, a).await;
        let lines = structured(&r)["lines"].clone();
        assert!(
            !lines.to_string().contains("REDACTED"),
            "{v}: capture_since grep: {lines}"
        );

        // wait_for_text: a wait for a secret's text never matches it; the lines a wait
        // returns are masked.
        let wait = |server: &TmuxwireServer, pattern: &str, timeout: f64| {
            let server = server.clone();
            let a = WaitForTextArgs {
                patterns: Some(vec![pattern.to_string()]),
                timeout,
                match_case: true,
                ..WaitForTextArgs::on(&pane)
            };
            tokio::spawn(async move { server.call(WaitForTextArgs::NAME, argument_map(&a)).await })
        };
        let token = c.secrets[0].clone();
        let secret_wait = wait(&on, &token[..16], 3.0);
        let end_wait = wait(&on, END, 20.0);
        wait_subscribed(servers.default_server(), &pane).await;
        type_line(&server, &pane, &cat);
        let end = end_wait.await.expect("wait task");
        assert_eq!(
            structured(&end)["found"],
            json!(true),
            "{v}: {}",
            seen(&end)
        );
        assert_eq!(
            leaked(&c, &seen(&end)),
            Vec::<&str>::new(),
            "{v}: wait lines"
        );
        let secret = secret_wait.await.expect("wait task");
        assert_eq!(
            structured(&secret)["found"],
            json!(false),
            "{v}: a wait for a secret: {}",
            seen(&secret)
        );

        // show_buffer: what load_buffer stored (unmasked: redaction never changes what goes
        // in), shown masked.
        let loaded = ok_typed(
            &on,
            LoadBufferArgs {
                content: c.text.to_string(),
                ..Default::default()
            },
        )
        .await;
        let name = structured(&loaded)["buffer_name"]
            .as_str()
            .expect("a name")
            .to_string();
        let a = ShowBufferArgs {
            buffer_name: name,
            max_lines: None,
            ..Default::default()
        };
        let r = ok_typed(&on, a.clone()).await;
        assert_eq!(
            leaked(&c, &seen(&r)),
            Vec::<&str>::new(),
            "{v}: show_buffer"
        );
        let r = ok_typed(&off, a).await;
        assert_eq!(
            leaked(&c, &seen(&r)).len(),
            c.secrets.len(),
            "{v}: stored as given"
        );

        // Resources.
        let uri = format!("tmux://panes/{pane}/content");
        let read = |redact: bool| tmuxwire::mcp::resources::read(&servers, &uri, redact);
        let r = within("resource", read(true)).await.expect("read");
        assert_eq!(
            leaked(&c, &strings(&serde_json::to_value(&r).unwrap_or_default())),
            Vec::<&str>::new()
        );
        let r = within("resource", read(false)).await.expect("read");
        assert!(!leaked(&c, &strings(&serde_json::to_value(&r).unwrap_or_default())).is_empty());

        // The pane itself is unchanged.
        let tmux_text = server.capture(&pane, &["-J", "-S", "-"]);
        assert!(
            !leaked(&c, &tmux_text).is_empty(),
            "{v}: the pane keeps its text"
        );
    }
}

/// A secret a soft wrap splits over rows is masked in each row (a capture without joining).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_split_by_soft_wraps_are_masked() {
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.\
               SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let token = "ghp_0123456789abcdefghijABCDEFGHIJklmnopqr";
    for bin in tmux_bins() {
        let v = &bin.label;
        let server = TestServer::builder(&bin).size(40, 20).start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            &format!("echo 'id_token={jwt}'; echo 'x {token}'"),
        );
        let on = TmuxwireServer::new(servers(&server)).with_redact(true);
        let r = ok_typed(&on, CapturePaneArgs::on(&pane)).await;
        let text = structured(&r)["result"].as_str().unwrap_or("").to_string();
        assert!(text.lines().count() > 5, "{v}: rows: {text}");
        for s in [jwt, token] {
            let chars: Vec<char> = s.chars().collect();
            for w in chars.windows(10) {
                let piece: String = w.iter().collect();
                assert!(
                    !text.contains(&piece),
                    "{v}: {piece:?} of a secret in {text}"
                );
            }
        }
    }
}

/// The CLI: `capture --redact`, `search --redact` (a secret's text is not found; a line
/// found by other text is printed masked), `wait --redact`, and `TMUXWIRE_REDACT=1`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_masks_with_redact() {
    let c = corpus();
    for bin in tmux_bins() {
        let v = &bin.label;
        let server = TestServer::builder(&bin).size(250, 50).start();
        let pane = first_pane(&server);
        let _dir = print_corpus(&server, &pane, &c);
        let cli = |a: &[&str], env: &[(&str, &str)]| {
            let mut cmd = tmuxwire_command();
            cmd.arg("-S").arg(&server.socket).args(a);
            for (k, val) in env {
                cmd.env(k, val);
            }
            cmd.stdin(Stdio::null()).output()
        };
        for join in [&[][..], &["-J"][..]] {
            let mut a = vec!["capture", "-t", pane.as_str(), "-S", "-"];
            a.extend_from_slice(join);
            let out = within("capture", cli(&a, &[])).await.expect("run");
            let plain = String::from_utf8_lossy(&out.stdout).into_owned();
            assert_eq!(
                leaked(&c, &plain).len(),
                c.secrets.len(),
                "{v}: capture {join:?}"
            );
            a.push("--redact");
            let out = within("capture", cli(&a, &[])).await.expect("run");
            let masked = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(out.status.success(), "{v}: {out:?}");
            assert_eq!(
                leaked(&c, &masked),
                Vec::<&str>::new(),
                "{v}: capture {join:?}"
            );
            assert_eq!(
                masked.lines().count(),
                plain.lines().count(),
                "{v}: every row"
            );
            assert_eq!(
                masked,
                tmuxwire::redact::redact(&plain).0,
                "{v}: differential"
            );
        }
        let needle: String = c.secrets[0].chars().take(16).collect();
        let search = ["search", "-t", pane.as_str(), needle.as_str()];
        let out = within("search", cli(&search, &[("TMUXWIRE_REDACT", "1")]))
            .await
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{v}: {out:?}");
        let out = within("search", cli(&search, &[])).await.expect("run");
        assert_eq!(out.status.code(), Some(0), "{v}: {out:?}");
        let out = within(
            "search",
            cli(&["search", "--redact", "-t", &pane, "export"], &[]),
        )
        .await
        .expect("run");
        let found = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(found.contains("[REDACTED:"), "{v}: {found}");
        assert_eq!(leaked(&c, &found), Vec::<&str>::new(), "{v}: search");
        // wait: the lines a wait prints.
        let path = _dir.path().join("corpus.txt");
        let send = format!("cat {}", path.display());
        let a = [
            "wait",
            "--redact",
            "-t",
            pane.as_str(),
            "--tail",
            "--send",
            &send,
            END,
        ];
        let out = within("wait", cli(&a, &[])).await.expect("run");
        let printed = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{v}: {out:?}");
        assert_eq!(leaked(&c, &printed), Vec::<&str>::new(), "{v}: wait");
    }
}

/// `tmuxwire mcp` with `TMUXWIRE_REDACT=1`, as a client sees it: a tool's answer and a
/// resource.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_server_masks_with_the_environment_variable() {
    let c = corpus();
    let bin = system_tmux();
    let server = TestServer::builder(&bin).size(250, 50).start();
    let pane = first_pane(&server);
    let _dir = print_corpus(&server, &pane, &c);
    for redact in ["1", "0"] {
        let cmd = crate::mcp_e2e::mcp_command(Some(&server.socket), &[("TMUXWIRE_REDACT", redact)]);
        let (client, _) = crate::support::mcp::start_mcp(cmd).await;
        let a = CapturePaneArgs {
            start: Some(-1000),
            max_lines: None,
            ..CapturePaneArgs::on(&pane)
        };
        let r = crate::support::mcp::call_typed(&client, a).await;
        let text = strings(&r);
        let uri = format!("tmux://panes/{pane}/content");
        let res = within(
            "read",
            client.read_resource(ReadResourceRequestParams::new(uri)),
        )
        .await
        .expect("resources/read");
        let res = strings(&serde_json::to_value(&res).unwrap_or_default());
        if redact == "1" {
            assert_eq!(leaked(&c, &text), Vec::<&str>::new());
            assert!(
                r["structuredContent"]["redacted"].as_u64() > Some(50),
                "{r}"
            );
            assert_eq!(leaked(&c, &res), Vec::<&str>::new());
        } else {
            assert!(!leaked(&c, &text).is_empty());
            assert!(!leaked(&c, &res).is_empty());
        }
        let _ = within("stop", client.cancel()).await;
    }
}

/// A program in a pane controls its text and title, not another pane's answer: a begin
/// marker in one pane's title masks nothing of another's, a marker a pane prints is text
/// (not counted), and a key block a pane prints masks only its own lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pane_cannot_make_another_panes_text_masked() {
    for bin in tmux_bins() {
        let v = &bin.label;
        let server = TestServer::builder(&bin).size(120, 30).start();
        let a = first_pane(&server);
        let b = server.new_window_pane(&[]);
        server.tmux_ok(&[
            "select-pane",
            "-t",
            &a,
            "-T",
            "-----BEGIN RSA PRIVATE KEY-----",
        ]);
        server.tmux_ok(&["select-pane", "-t", &b, "-T", "deploy"]);
        run(
            &server,
            &a,
            "printf '%s\\n' '-----BEGIN OPENSSH PRIVATE KEY-----' '[REDACTED:github-token]'",
        );
        run(&server, &b, "echo ok; echo done");
        let on = TmuxwireServer::new(servers(&server)).with_redact(true);
        let r = ok_typed(&on, ListPanesArgs::default()).await;
        let titles: Vec<&Value> = structured(&r)["result"]
            .as_array()
            .expect("panes")
            .iter()
            .map(|p| &p["pane_title"])
            .collect();
        assert!(titles.contains(&&json!("deploy")), "{v}: {titles:?}");
        let r = ok_typed(&on, CapturePaneArgs::on(&b)).await;
        let text = structured(&r)["result"].as_str().unwrap_or("");
        assert!(
            text.lines().any(|l| l == "ok") && text.lines().any(|l| l == "done"),
            "{v}"
        );
        assert!(structured(&r).get("redacted").is_none(), "{v}: {r:?}");
        let r = ok_typed(&on, CapturePaneArgs::on(&a)).await;
        let text = structured(&r)["result"].as_str().unwrap_or("");
        assert!(text.contains("[REDACTED:github-token]"), "{v}: {text}");
        assert!(
            structured(&r).get("redacted").is_none(),
            "{v}: a printed marker is text"
        );
        let r = ok_typed(&on, search_for("done")).await;
        assert_eq!(structured(&r)["total_panes_matched"], json!(1), "{v}");
    }
}
