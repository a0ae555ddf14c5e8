//! The `tmuxwire mcp` binary as a real MCP client sees it: spawned as a child process and
//! driven with rmcp's client over stdio (plus one raw JSON-RPC exchange that checks stdout
//! carries nothing but JSON-RPC). Every test talks to its own private tmux server, against
//! every binary from `tmux_bins()` (at least the system tmux and 3.8).

use std::path::Path;
use std::process::Stdio;

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::tool_json::text_of;
use crate::support::*;

/// The tool names the library's catalog lists for the default toolsets (inspect, manage,
/// execute), in order (its unit test pins the list itself); what a client sees over the wire
/// must be exactly these.
fn tool_names() -> Vec<String> {
    let policy = tmuxwire::mcp::toolsets::Policy::default();
    tmuxwire::mcp::tools::catalog_for(&policy)
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// The read tools (toolset inspect).
fn is_read_tool(name: &str) -> bool {
    tmuxwire::mcp::tools::toolset_of(name) == Some(tmuxwire::mcp::toolsets::Toolset::Inspect)
}

pub(crate) use crate::support::mcp::{Client, call, mcp_command};

/// Spawns the server and completes the MCP handshake.
async fn start(socket: Option<&Path>, env: &[(&str, &str)]) -> Client {
    crate::support::mcp::start_mcp(mcp_command(socket, env))
        .await
        .0
}

async fn stop(client: Client) {
    let _ = within("shutting the MCP client down", client.cancel()).await;
}

async fn ok(client: &Client, tool: &str, args: Value) -> Value {
    let r = call(client, tool, args.clone()).await;
    assert_ne!(
        r["isError"],
        json!(true),
        "{tool}({args}) failed: {}",
        text_of(&r)
    );
    same_facts(&r, tool);
    r["structuredContent"].clone()
}

/// Checks that a result's only text block is libtmux-mcp's text for its structured content,
/// so a client that reads either sees the same facts.
fn same_facts(r: &Value, tool: &str) {
    crate::support::assert_reference_text(r, tool);
}

/// An error result: `(text, _meta.error_type)`.
async fn err(client: &Client, tool: &str, args: Value) -> (String, String) {
    let r = call(client, tool, args.clone()).await;
    assert_eq!(r["isError"], json!(true), "{tool}({args}) should fail: {r}");
    assert!(
        r.get("structuredContent").is_none_or(Value::is_null),
        "{tool}: no structuredContent on errors: {r}"
    );
    let meta = &r["_meta"];
    assert!(meta["expected"].is_boolean(), "{tool}: _meta {r}");
    (
        text_of(&r),
        meta["error_type"].as_str().unwrap_or("").to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_and_tools_list() {
    let server = TestServer::start(&system_tmux());
    let client = start(Some(&server.socket), &[]).await;

    let info = client.peer_info().expect("server info after initialize");
    let imp = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(imp.name, "tmuxwire");
    assert_eq!(imp.version, env!("CARGO_PKG_VERSION"));
    assert!(info.capabilities.tools.is_some(), "tools capability");
    assert!(
        info.instructions
            .as_deref()
            .is_some_and(|i| i.contains("search_panes")),
        "instructions: {:?}",
        info.instructions
    );

    let tools = within("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        tool_names(),
        "tools/list: exactly the default toolsets' tools, in order"
    );
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n, "no name twice");
    assert!(
        !names.contains(&"kill_server"),
        "teardown is off by default"
    );
    for t in &tools {
        let input = Value::Object(t.input_schema.as_ref().clone());
        assert_eq!(input["type"], json!("object"), "{}: input schema", t.name);
        // Not listed: the server refuses an argument a tool does not take (below), and the
        // arguments the instructions say once (socket_name, …) must pass a client's check.
        assert_eq!(
            input.get("additionalProperties"),
            None,
            "{}: additionalProperties",
            t.name
        );
        assert!(input["properties"].is_object(), "{}: {input}", t.name);
        // An output schema only for the four objects other results are made of.
        if let Some(o) = &t.output_schema {
            let output = Value::Object(o.as_ref().clone());
            assert_eq!(output["type"], json!("object"), "{}: output schema", t.name);
        }
        assert_eq!(
            t.output_schema.is_some(),
            t.name.starts_with("get_") && t.name.ends_with("_info"),
            "{}: output schema",
            t.name
        );
        assert!(
            t.description.as_deref().is_some_and(|d| !d.is_empty()),
            "{}: description",
            t.name
        );
        let a = t.annotations.as_ref().expect("annotations");
        if is_read_tool(&t.name) {
            assert_eq!(a.read_only_hint, Some(true), "{}: read-only", t.name);
            // destructiveHint and idempotentHint mean something only when readOnlyHint is false.
            assert_eq!(a.destructive_hint, None, "{}", t.name);
        } else {
            assert_eq!(a.read_only_hint, None, "{}: not read-only", t.name);
        }
        // socket_name and socket_path: taken by every tool but the batch/listing of servers
        // (reference §1.5), said once in the instructions, not listed (a call with them
        // below).
        assert!(
            input["properties"].get("socket_name").is_none(),
            "{}",
            t.name
        );
    }
    let instructions = info.instructions.as_deref().unwrap_or("");
    for said in [
        "socket_name",
        "socket_path",
        "max_bytes",
        "verbose",
        "grep",
        "head",
    ] {
        assert!(instructions.contains(said), "instructions: {said}");
    }
    let schema = |name: &str| -> Value {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        Value::Object(t.input_schema.as_ref().clone())
    };
    // Required arguments and the reference's argument names.
    assert_eq!(schema("search_panes")["required"], json!(["pattern"]));
    assert_eq!(
        schema("display_message")["required"],
        json!(["format_string"])
    );
    for (tool, args) in [
        (
            "capture_pane",
            &[
                "pane_id",
                "session_name",
                "session_id",
                "window_id",
                "start",
                "end",
                "max_lines",
            ][..],
        ),
        (
            "search_panes",
            &[
                "pattern",
                "regex",
                "match_case",
                "session_name",
                "session_id",
                "content_start",
                "content_end",
                "max_matched_lines_per_pane",
                "limit",
                "offset",
            ],
        ),
        (
            "list_panes",
            &[
                "session_name",
                "session_id",
                "window_id",
                "window_index",
                "filters",
            ],
        ),
        (
            "get_window_info",
            &["window_id", "window_index", "session_name", "session_id"],
        ),
    ] {
        // Listed, or (a pane tool's fallback targets) said once in the instructions; taken
        // either way: a call with each unlisted one is not refused as unknown.
        let props = schema(tool)["properties"].clone();
        for a in args {
            if props[*a].is_object() {
                continue;
            }
            assert!(
                props["pane_id"].is_object()
                    && ["session_name", "session_id", "window_id"].contains(a),
                "{tool}: argument {a} in {props}"
            );
            let r = client
                .call_tool(
                    CallToolRequestParams::new(tool.to_string()).with_arguments(
                        serde_json::from_value(json!({*a: "no-such-target", "socket_name": "x"}))
                            .unwrap(),
                    ),
                )
                .await
                .expect("call");
            let text = format!("{:?}", r.content);
            assert!(!text.contains("unknown argument"), "{tool} {a}: {text}");
        }
    }
    stop(client).await;
    assert!(server.is_alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_tool_answers_over_stdio() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("e2e")
            .size(90, 20)
            .history_limit(4000)
            .start();
        server.tmux_ok(&["set", "-g", "automatic-rename", "off"]);
        server.tmux_ok(&["new-window", "-d", "-n", "second", "-t", "=e2e:1"]);
        server.tmux_ok(&["split-window", "-d", "-h", "-t", "=e2e:1"]);
        let pane = server.format("=e2e:0", "pane_id");
        server.run_in_pane(&pane, "printf 'MARK%sER-e2e\\n' ''; seq 1 300");
        let client = start(Some(&server.socket), &[]).await;
        let ctx = format!("tmux {}", bin.label);

        let s = ok(&client, "list_sessions", json!({})).await;
        assert_eq!(s["result"][0]["session_name"], json!("e2e"), "{ctx}: {s}");
        assert_eq!(s["result"][0]["window_count"], json!(2));
        assert_eq!(s["result"][0]["session_attached"], json!("0"), "{ctx}");

        let w = ok(&client, "list_windows", json!({"session_name": "e2e"})).await;
        let w = w["result"].as_array().unwrap();
        assert_eq!(w.len(), 2, "{ctx}");
        assert_eq!(w[1]["window_name"], json!("second"));
        assert_eq!(w[1]["pane_count"], json!(2));

        let p = ok(&client, "list_panes", json!({})).await;
        let p = p["result"].as_array().unwrap();
        assert_eq!(p.len(), 3, "{ctx}");
        assert_eq!(
            p.iter().map(|p| p["pane_id"].clone()).collect::<Vec<_>>(),
            server
                .tmux_ok(&["list-panes", "-a", "-F", "#{pane_id}"])
                .lines()
                .map(|l| json!(l))
                .collect::<Vec<_>>()
        );

        let i = ok(&client, "get_server_info", json!({})).await;
        assert_eq!(i["is_alive"], json!(true), "{ctx}: {i}");
        assert_eq!(i["version"], json!(bin.label));
        assert_eq!(i["session_count"], json!(1));
        assert_eq!(i["pid"], json!(server.server_pid()));
        assert_eq!(i["socket_path"], json!(server.socket.display().to_string()));

        let s = ok(&client, "get_session_info", json!({"session_name": "e2e"})).await;
        assert_eq!(s["session_id"], json!(server.format("=e2e:", "session_id")));

        let w = ok(
            &client,
            "get_window_info",
            json!({"session_name": "e2e", "window_index": 1}),
        )
        .await;
        assert_eq!(w["window_name"], json!("second"), "{ctx}");
        assert_eq!(w["window_id"], json!(server.format("=e2e:1", "window_id")));

        let pi = ok(&client, "get_pane_info", json!({"pane_id": pane})).await;
        assert_eq!(pi["pane_id"], json!(pane));
        assert_eq!(pi["pane_pid"], json!(server.format(&pane, "pane_pid")));
        assert_eq!(pi["pane_current_command"], json!("bash"), "{ctx}");

        let r = ok(&client, "capture_pane", json!({"pane_id": pane})).await;
        let want = server.capture(&pane, &[]);
        assert_eq!(
            r["result"],
            json!(want.trim_end_matches('\n')),
            "{ctx}: capture text = capture-pane -p"
        );
        assert_eq!(r["pane_id"], json!(pane));
        // Arguments as strings, as the MCP Inspector sends them.
        let r = ok(
            &client,
            "capture_pane",
            json!({"pane_id": pane, "start": "-400", "max_lines": "3", "join_wrapped": "false"}),
        )
        .await;
        assert!(
            r["result"].as_str().unwrap().starts_with("[... truncated "),
            "{ctx}: {r}"
        );
        assert_eq!(r["next"]["max_lines"], json!(3), "{ctx}: {r}");

        let sn = ok(&client, "snapshot_pane", json!({"pane_id": pane})).await;
        assert_eq!(sn["pane_id"], json!(pane));
        // Sizes are strings in every tool (list_panes, get_pane_info and this one).
        assert_eq!(sn["pane_width"], json!("90"), "{ctx}");
        assert_eq!(
            sn["cursor_y"],
            json!(server.format(&pane, "cursor_y").parse::<i64>().unwrap())
        );
        assert!(sn["history_size"].as_i64().unwrap() > 200, "{ctx}: {sn}");

        let d = ok(
            &client,
            "display_message",
            json!({"pane_id": pane, "format_string": "#{session_name}:#{pane_id} 100%"}),
        )
        .await;
        assert_eq!(d["result"], json!(format!("e2e:{pane} 100%")), "{ctx}");

        let f = ok(&client, "search_panes", json!({"pattern": "marker-E2E"})).await;
        assert_eq!(f["total_panes_matched"], json!(1), "{ctx}: {f}");
        let m = &f["matches"][0];
        assert_eq!(m["pane_id"], json!(pane));
        assert_eq!(m["matched_lines"], json!(["MARKER-e2e"]));
        let n = m["matched_line_numbers"][0].as_i64().unwrap();
        assert!(n < 0, "{ctx}: in the scrollback: {n}");
        let line = server.capture(&pane, &["-J", "-S", &n.to_string(), "-E", &n.to_string()]);
        assert!(
            line.starts_with("MARKER-e2e"),
            "{ctx}: line {n} is {line:?}"
        );

        stop(client).await;
        assert!(server.is_alive(), "{ctx}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_results_not_protocol_errors() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("errs").start();
        let client = start(Some(&server.socket), &[]).await;
        let ctx = format!("tmux {}", bin.label);

        let (t, k) = err(&client, "capture_pane", json!({"pane_id": "%999"})).await;
        assert_eq!(k, "NotFound", "{ctx}: {t}");
        assert!(t.contains("%999") && t.contains("list_panes"), "{ctx}: {t}");

        let (t, k) = err(&client, "capture_pane", json!({"max_lines": 0})).await;
        assert_eq!(k, "InvalidArgument", "{ctx}: {t}");
        let (t, k) = err(&client, "list_sessions", json!({"bogus": 1})).await;
        assert_eq!(k, "InvalidArgument", "{ctx}: {t}");
        assert!(t.contains("bogus"), "{t}");
        let (t, k) = err(
            &client,
            "get_pane_info",
            json!({"pane_id": "%0", "wait_for_previous": true}),
        )
        .await;
        assert_eq!(k, "InvalidArgument", "{ctx}: {t}");
        assert!(t.contains("wait_for_previous"), "{t}");
        let (t, k) = err(
            &client,
            "display_message",
            json!({"format_string": "#{E:pane_id}"}),
        )
        .await;
        assert_eq!(k, "InvalidArgument", "{ctx}: {t}");

        let (t, k) = err(
            &client,
            "search_panes",
            json!({"pattern": "(", "regex": true}),
        )
        .await;
        assert_eq!(k, "InvalidPattern", "{ctx}: {t}");

        // An unknown tool is an error result, not a JSON-RPC error.
        let r = call(&client, "no_such_tool", json!({})).await;
        assert_eq!(r["isError"], json!(true), "{ctx}: {r}");
        assert!(text_of(&r).contains("no_such_tool"), "{r}");

        // The connection is still fine afterwards.
        let s = ok(&client, "list_sessions", json!({})).await;
        assert_eq!(s["result"][0]["session_name"], json!("errs"));
        stop(client).await;
        assert!(server.is_alive());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn socket_selection_from_the_environment() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("envsock").start();
        let sock = server.socket.display().to_string();
        let (_dir, bogus) = missing_socket();
        let bogus = bogus.display().to_string();
        let ctx = format!("tmux {}", bin.label);
        for env in [
            vec![("TMUXWIRE_SOCKET_PATH", sock.as_str())],
            vec![("LIBTMUX_SOCKET_PATH", sock.as_str())],
            // tmuxwire's own variable wins over the libtmux-mcp fallback.
            vec![
                ("TMUXWIRE_SOCKET_PATH", sock.as_str()),
                ("LIBTMUX_SOCKET_PATH", bogus.as_str()),
            ],
        ] {
            let client = start(None, &env).await;
            let i = ok(&client, "get_server_info", json!({})).await;
            assert_eq!(i["socket_path"], json!(sock), "{ctx}: {env:?}");
            assert_eq!(i["is_alive"], json!(true), "{ctx}: {env:?}");
            let s = ok(&client, "list_sessions", json!({})).await;
            assert_eq!(s["result"][0]["session_name"], json!("envsock"), "{ctx}");
            stop(client).await;
        }
        // -S wins over the environment.
        let client = start(Some(&server.socket), &[("TMUXWIRE_SOCKET_PATH", &bogus)]).await;
        let i = ok(&client, "get_server_info", json!({})).await;
        assert_eq!(i["socket_path"], json!(sock), "{ctx}: -S wins");
        stop(client).await;
        assert!(server.is_alive());
    }
}

/// Kills whatever tmux server listens on a private socket when dropped.
struct KillOnDrop<'a>(&'a TestServer);

impl Drop for KillOnDrop<'_> {
    fn drop(&mut self) {
        if self.0.socket_accepts() {
            let _ = self.0.tmux(&["kill-server"]);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starts_without_a_tmux_server_and_reports_it() {
    let (_dir, missing) = missing_socket();
    let want = format!("no tmux server running on {}", missing.display());
    let client = start(Some(&missing), &[]).await;
    let i = ok(&client, "get_server_info", json!({})).await;
    assert_eq!(i["is_alive"], json!(false), "{i}");
    assert_eq!(i["socket_path"], json!(missing.display().to_string()));
    for tool in ["list_panes", "capture_pane", "get_pane_info"] {
        let (t, k) = err(&client, tool, json!({})).await;
        assert_eq!(k, "NoServer", "{tool}: {t}");
        assert!(t.starts_with(&want), "{tool}: {t}");
    }
    stop(client).await;
    assert!(!missing.exists(), "no server was started");

    // The same MCP process notices a server that starts later on its socket.
    for bin in tmux_bins() {
        let mut server = TestServer::builder(&bin).session("first").start();
        server.kill();
        let client = start(Some(&server.socket), &[]).await;
        let (t, k) = err(&client, "list_panes", json!({})).await;
        assert_eq!(k, "NoServer", "tmux {}: {t}", bin.label);
        // A new server on the same private socket (started with the tmux binary).
        let out = server.tmux(&[
            "start-server",
            ";",
            "set",
            "-g",
            "default-command",
            SH,
            ";",
            "new-session",
            "-d",
            "-s",
            "later",
            "-x",
            "80",
            "-y",
            "24",
        ]);
        assert!(out.status.success(), "{out:?}");
        let _guard = KillOnDrop(&server);
        let i = ok(&client, "get_server_info", json!({})).await;
        assert_eq!(i["is_alive"], json!(true), "tmux {}: {i}", bin.label);
        assert_eq!(i["version"], json!(bin.label));
        let s = ok(&client, "list_sessions", json!({})).await;
        assert_eq!(
            s["result"][0]["session_name"],
            json!("later"),
            "tmux {}",
            bin.label
        );
        stop(client).await;
    }
}

/// Writes JSON-RPC lines by hand and checks that every stdout line is a JSON-RPC message
/// (logs, even at debug level, go to stderr).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_carries_only_json_rpc() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("raw").start();
        let mut cmd = mcp_command(Some(&server.socket), &[("TMUXWIRE_LOG", "debug")]);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn tmuxwire mcp");
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let stderr = child.stderr.take().unwrap();
        let stderr_task = tokio::spawn(async move {
            let mut s = String::new();
            let mut r = BufReader::new(stderr);
            let _ = tokio::io::AsyncReadExt::read_to_string(&mut r, &mut s).await;
            s
        });

        let mut lines: Vec<String> = Vec::new();
        let mut send = async |msg: Value| {
            let mut b = serde_json::to_vec(&msg).unwrap();
            b.push(b'\n');
            within("write to stdin", stdin.write_all(&b)).await.unwrap();
        };
        send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"}
            }}),
        )
        .await;
        // Wait for the initialize answer before going on.
        let first = within("initialize response", stdout.next_line())
            .await
            .unwrap()
            .expect("a line");
        lines.push(first);
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await;
        send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "list_sessions", "arguments": {}}}))
        .await;
        send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "capture_pane", "arguments": {"pane_id": "%999"}}}))
        .await;
        send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "no_such_tool", "arguments": {}}}))
        .await;
        send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
            "params": {"name": "search_panes", "arguments": {"pattern": "$"}}}))
        .await;

        // Read until every request has its answer.
        let mut ids = std::collections::BTreeSet::new();
        let mut by_id = std::collections::BTreeMap::new();
        let check = |line: &str| -> Value {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
            assert_eq!(v["jsonrpc"], json!("2.0"), "not JSON-RPC: {line}");
            v
        };
        let v = check(&lines[0]);
        assert_eq!(v["id"], json!(1));
        assert_eq!(v["result"]["serverInfo"]["name"], json!("tmuxwire"));
        while ids.len() < 5 {
            let line = within("responses", stdout.next_line())
                .await
                .unwrap()
                .expect("stdout ended early");
            let v = check(&line);
            if let Some(id) = v["id"].as_i64() {
                ids.insert(id);
                by_id.insert(id, v);
            }
            lines.push(line);
        }
        assert_eq!(ids, (2..=6).collect());
        let names: Vec<String> = by_id[&2]["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, tool_names());
        assert_eq!(
            by_id[&3]["result"]["structuredContent"]["result"][0]["session_name"],
            json!("raw"),
            "tmux {}",
            bin.label
        );
        for id in [4, 5] {
            let r = &by_id[&id];
            assert!(
                r.get("error").is_none(),
                "tool failures are not JSON-RPC errors: {r}"
            );
            assert_eq!(r["result"]["isError"], json!(true), "{r}");
        }
        assert!(by_id[&6]["result"]["structuredContent"]["total_panes_matched"].is_number());

        // Close stdin: the server exits, and nothing but JSON-RPC was printed meanwhile.
        let _ = send;
        drop(stdin);
        while let Some(line) = within("stdout to EOF", stdout.next_line()).await.unwrap() {
            check(&line);
            lines.push(line);
        }
        let status = within("the server exits after stdin closes", child.wait())
            .await
            .unwrap();
        assert!(status.success(), "tmux {}: exit status {status}", bin.label);
        // The debug logs went somewhere: stderr.
        let stderr = within("stderr", stderr_task).await.unwrap();
        assert!(
            stderr.contains("DEBUG"),
            "tmux {}: TMUXWIRE_LOG=debug logs on stderr, got {stderr:?}",
            bin.label
        );
        assert!(server.is_alive());
    }
}

/// 300 tool calls at once on one MCP session are all answered, and answered right (each
/// capture on tmux ≤ 3.5 used to open its own connection and overflow the server's listen
/// backlog).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_concurrent_calls() {
    for bin in tmux_bins() {
        let ctx = format!("tmux {}", bin.label);
        let server = TestServer::builder(&bin).size(80, 24).start();
        let pane = server.format("main", "pane_id");
        server.run_in_pane(&pane, "seq -f 'row %g' 1 300");
        let want: Vec<String> = server
            .capture(&pane, &["-S", "-", "-E", "-"])
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect();
        let client = start(Some(&server.socket), &[]).await;
        let calls = (0..300).map(|i| {
            let client = &client;
            let pane = pane.clone();
            async move {
                let args = match i % 3 {
                    0 => json!({"pane_id": pane, "start": -1000, "max_lines": null}),
                    1 => json!({"pane_id": pane}),
                    _ => json!({"pane_id": pane, "start": -1000, "join_wrapped": true, "max_lines": null}),
                };
                (i, ok(client, "capture_pane", args).await)
            }
        });
        let answers = futures::future::join_all(calls).await;
        assert_eq!(answers.len(), 300);
        for (i, v) in answers {
            let text = v["result"].as_str().unwrap_or("");
            let lines: Vec<&str> = text.lines().collect();
            match i % 3 {
                1 => assert!(!lines.is_empty(), "{ctx}: call {i}: {v}"),
                _ => {
                    let mut w: Vec<&str> = want.iter().map(String::as_str).collect();
                    while w.last().is_some_and(|l| l.is_empty()) {
                        w.pop();
                    }
                    assert_eq!(lines, w, "{ctx}: call {i}");
                }
            }
        }
        stop(client).await;
    }
}

/// A search whose matches run into the hundreds of thousands costs one capture per pane and
/// answers within the response budget, saying what it left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_cost_and_size_are_bounded() {
    let bin = system_tmux();
    let server = TestServer::builder(&bin)
        .size(80, 24)
        .history_limit(310_000)
        .start();
    let pane = server.format("main", "pane_id");
    server.run_in_pane(&pane, "seq 1 300000");
    let client = start(Some(&server.socket), &[]).await;
    let r = call(
        &client,
        "search_panes",
        json!({"pattern": "^[0-9]*1[0-9]*$", "regex": true, "max_matched_lines_per_pane": 1_000_000}),
    )
    .await;
    let text = text_of(&r);
    assert!(text.len() < 2 << 20, "answer of {} bytes", text.len());
    let v = &r["structuredContent"];
    let m = &v["matches"][0];
    let with_one = (1..=300_000)
        .filter(|n: &u32| n.to_string().contains('1'))
        .count() as u64;
    let count = m["matched_line_count"].as_u64().unwrap_or(0);
    assert_eq!(count, with_one);
    let kept = m["matched_lines"].as_array().map_or(0, Vec::len) as u64;
    assert!(kept > 1000 && kept < count, "{kept} of {count} kept");
    assert_eq!(v["lines_omitted"].as_u64(), Some(count - kept), "{v:?}");
    assert_eq!(v["truncated"], json!(true));
    // The newest lines are the ones kept, with exact line numbers.
    let last = m["matched_lines"]
        .as_array()
        .and_then(|a| a.last())
        .cloned();
    assert_eq!(last, Some(json!("299991")));
    stop(client).await;
}
