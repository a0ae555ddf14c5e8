//! Malformed JSON-RPC through the real `tmuxwire mcp` binary: every line gets an answer (or is
//! a notification, which gets none), and a bad line never disturbs the lines around it.
//!
//! No tmux server is needed: the binary connects lazily, and the socket it is given does not
//! exist (tool calls answer `is_alive: false` or a `NoServer` result).

use std::collections::BTreeMap;
use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

use crate::support::{DEADLINE, TestServer, system_tmux, tmuxwire_command, wait_until, within};

/// The line limit and nesting limit the binary enforces.
const MAX_LINE: usize = tmuxwire::mcp::jsonrpc::MAX_LINE_BYTES;

/// A running `tmuxwire mcp` with its stdout parsed line by line.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Each stdout line, parsed (a line that is not JSON fails the test in the reader).
    out: mpsc::UnboundedReceiver<Value>,
    /// Answers read but not yet claimed, by id (`null` ids in arrival order).
    pending: Vec<Value>,
    _dir: tempfile::TempDir,
}

impl Mcp {
    /// Starts the binary on a socket nobody listens on and completes `initialize`.
    async fn start() -> Mcp {
        Mcp::start_on(None).await
    }

    /// Starts the binary on `socket` (default: one nobody listens on) and completes
    /// `initialize`.
    async fn start_on(socket: Option<&std::path::Path>) -> Mcp {
        Mcp::start_with(socket, &[]).await
    }

    /// [`Mcp::start_on`] with `env` set for the binary.
    async fn start_with(socket: Option<&std::path::Path>, env: &[(&str, &str)]) -> Mcp {
        let mut mcp = Mcp::spawn(socket, env);
        mcp.send(&request(
            "init",
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "jsonrpc-test", "version": "0"}
            }),
        ))
        .await;
        let init = mcp.answer(&json!("init")).await;
        assert_eq!(init["result"]["serverInfo"]["name"], "tmuxwire", "{init}");
        mcp.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        mcp
    }

    /// The binary on `socket` with `env`, before any message.
    fn spawn(socket: Option<&std::path::Path>, env: &[(&str, &str)]) -> Mcp {
        let dir = tempfile::Builder::new()
            .prefix("tmuxwire-rpc-")
            .tempdir_in("/tmp")
            .unwrap();
        let mut cmd = tmuxwire_command();
        // `socket_name` arguments resolve inside the temp dir.
        cmd.env("TMUX_TMPDIR", dir.path());
        cmd.envs(env.iter().copied());
        let none = dir.path().join("none.sock");
        cmd.arg("-S").arg(socket.unwrap_or(&none)).arg("mcp");
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        cmd.kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn tmuxwire mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, out) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut r = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                match r.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let v: Value = serde_json::from_slice(&line).unwrap_or_else(|e| {
                    panic!(
                        "stdout line is not JSON ({e}): {:?}",
                        String::from_utf8_lossy(&line)
                    )
                });
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Mcp {
            child,
            stdin,
            out,
            pending: Vec::new(),
            _dir: dir,
        }
    }

    /// Writes `bytes` and a newline in one write.
    async fn send(&mut self, bytes: &[u8]) {
        let mut b = Vec::with_capacity(bytes.len() + 1);
        b.extend_from_slice(bytes);
        b.push(b'\n');
        self.write(&b).await;
    }

    async fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        within("write to stdin", stdin.write_all(bytes))
            .await
            .expect("write to stdin");
    }

    /// Waits for the next stdout message.
    async fn next(&mut self) -> Value {
        within("an answer on stdout", self.out.recv())
            .await
            .expect("stdout ended early")
    }

    /// Waits for the answer with `id` (a string or number id), keeping others for later.
    async fn answer(&mut self, id: &Value) -> Value {
        assert!(!id.is_null(), "use next() for id null");
        loop {
            if let Some(i) = self.pending.iter().position(|v| &v["id"] == id) {
                return self.pending.remove(i);
            }
            let v = self.next().await;
            self.pending.push(v);
        }
    }

    /// Closes stdin, reads stdout to its end, checks the exit status and returns every
    /// message not yet claimed.
    async fn finish(mut self) -> Vec<Value> {
        drop(self.stdin.take());
        while let Some(v) = within("stdout to EOF", self.out.recv()).await {
            self.pending.push(v);
        }
        let status = within("exit after stdin closes", self.child.wait())
            .await
            .unwrap();
        assert!(status.success(), "exit status {status}");
        self.pending
    }
}

/// One request line.
fn request(id: impl Into<Value>, method: &str, params: Value) -> Vec<u8> {
    let id: Value = id.into();
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

/// A `tools/call` line with `arguments` as raw JSON text (so it may hold what serde would not
/// write: lone surrogates, raw bytes).
fn call_raw(id: &str, tool: &str, arguments: &[u8]) -> Vec<u8> {
    let mut b = format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"{tool}","arguments":"#
    )
    .into_bytes();
    b.extend_from_slice(arguments);
    b.extend_from_slice(b"}}");
    b
}

/// What a line must get.
#[derive(Debug)]
enum Want {
    /// A JSON-RPC error with this id, code, and text in its message.
    Error(Value, i64, &'static str),
    /// An array with one -32600 per id (for a batch).
    Batch(Vec<Value>),
    /// A tool result (not an error) whose JSON contains the text.
    Tool(Value, &'static str),
    /// Nothing at all (a notification or a blank line).
    Nothing,
}

/// Each malformed form with what it must get.
fn forms() -> Vec<(&'static str, Vec<u8>, Want)> {
    use Want::*;
    let null = Value::Null;
    let deep = {
        let mut b = call_raw("deep", "get_server_info", br#"{"x":"#);
        b.truncate(b.len() - 2);
        b.extend(std::iter::repeat_n(b'[', 5000));
        b.extend(std::iter::repeat_n(b']', 5000));
        b.extend_from_slice(b"}}}");
        b
    };
    let long = {
        let mut b = call_raw("long", "get_server_info", br#"{"pad":"#);
        b.truncate(b.len() - 2);
        b.push(b'"');
        b.extend(std::iter::repeat_n(b'a', MAX_LINE + 1));
        b.extend_from_slice(b"\"}}}");
        b
    };
    let mut raw_ff = call_raw("raw-ff", "get_server_info", br#"{"socket_name":"yXz"}"#);
    let x = raw_ff.iter().rposition(|&b| b == b'X').unwrap();
    raw_ff[x] = 0xFF;
    let mut bad_notification_bytes =
        br#"{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"X"}}"#.to_vec();
    let x = bad_notification_bytes
        .iter()
        .rposition(|&b| b == b'X')
        .unwrap();
    bad_notification_bytes[x] = 0xFF;
    vec![
        (
            "unparseable line",
            br#"{"jsonrpc":"2.0","id":"cut","method":"tools/list""#.to_vec(),
            Error(null.clone(), -32700, "Parse error"),
        ),
        ("not JSON at all", b"hello".to_vec(), Error(null.clone(), -32700, "Parse error")),
        (
            "batch array",
            br#"[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b2","method":"tools/list"}]"#.to_vec(),
            Batch(vec![json!("b1"), json!("b2")]),
        ),
        ("empty batch", b"[]".to_vec(), Error(null.clone(), -32600, "empty array")),
        (
            "lone surrogate in a string argument",
            call_raw("surrogate", "get_server_info", br#"{"socket_name":"x\udc80"}"#),
            Tool(json!("surrogate"), "x\u{FFFD}"),
        ),
        ("raw 0xFF byte in a string", raw_ff, Tool(json!("raw-ff"), "y\u{FFFD}z")),
        ("5,000-deep nesting", deep, Error(json!("deep"), -32600, "levels deep; the limit is 64")),
        ("line over 16 MiB", long, Error(json!("long"), -32600, "the limit is 16777216 bytes")),
        (
            "non-object arguments",
            call_raw("args", "get_server_info", b"[1, 2]"),
            Error(json!("args"), -32602, "params.arguments: must be an object, not an array"),
        ),
        (
            "string arguments",
            call_raw("args-s", "get_server_info", br#""x""#),
            Error(json!("args-s"), -32602, "params.arguments"),
        ),
        (
            "missing name",
            request("noname", "tools/call", json!({"arguments": {}})),
            Error(json!("noname"), -32602, "params.name: missing"),
        ),
        (
            "params not an object",
            request("params", "tools/list", json!([1])),
            Error(json!("params"), -32602, "params: must be an object"),
        ),
        ("unknown method", request(77, "no/such_method", json!({})), Error(json!(77), -32601, "")),
        (
            "id null",
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.to_vec(),
            Error(null.clone(), -32600, "\"id\""),
        ),
        (
            "wrong jsonrpc version",
            br#"{"jsonrpc":"1.0","id":"v1","method":"ping"}"#.to_vec(),
            Error(json!("v1"), -32600, "\"jsonrpc\""),
        ),
        ("not an object", b"42".to_vec(), Error(null.clone(), -32600, "not a number")),
        (
            "notification with bad params",
            br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"bad"}"#.to_vec(),
            Nothing,
        ),
        ("unknown notification", br#"{"jsonrpc":"2.0","method":"notifications/nope"}"#.to_vec(), Nothing),
        (
            "notification with a lone surrogate",
            br#"{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"\ud800"}}"#.to_vec(),
            Nothing,
        ),
        ("notification with a raw 0xFF byte", bad_notification_bytes, Nothing),
        (
            "deep notification",
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"a":{}{}}}}}"#, "[".repeat(5000), "]".repeat(5000)).into_bytes(),
            Nothing,
        ),
        ("blank line", b"   ".to_vec(), Nothing),
    ]
}

/// Checks that `got` (every message that was not an answer to a good call) is exactly what
/// `wants` asks for.
fn check_extras(name: &str, wants: &[&Want], mut got: Vec<Value>) {
    for want in wants {
        let i = match want {
            Want::Nothing => continue,
            Want::Error(id, _, _) | Want::Tool(id, _) => got.iter().position(|v| &v["id"] == id),
            Want::Batch(_) => got.iter().position(Value::is_array),
        };
        let Some(i) = i else {
            panic!("{name}: no answer for {want:?} in {got:?}")
        };
        let v = got.remove(i);
        match want {
            Want::Error(_, code, text) => {
                assert_eq!(v["jsonrpc"], "2.0", "{name}: {v}");
                assert_eq!(v["error"]["code"], *code, "{name}: {v}");
                let message = v["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains(text), "{name}: {text:?} not in {v}");
                if *code != -32601 {
                    assert!(v["error"]["data"]["reason"].is_string(), "{name}: {v}");
                }
            }
            Want::Batch(ids) => {
                let errs = v.as_array().unwrap();
                let got_ids: Vec<&Value> = errs.iter().map(|e| &e["id"]).collect();
                assert_eq!(got_ids, ids.iter().collect::<Vec<_>>(), "{name}: {v}");
                for e in errs {
                    assert_eq!(e["error"]["code"], -32600, "{name}: {v}");
                    assert!(
                        e["error"]["message"].as_str().unwrap().contains("batches"),
                        "{v}"
                    );
                }
            }
            Want::Tool(_, text) => {
                assert!(v.get("error").is_none(), "{name}: {v}");
                assert_eq!(v["result"]["isError"], false, "{name}: {v}");
                let s = v["result"]["structuredContent"].to_string();
                assert!(s.contains(text), "{name}: {text:?} not in {s}");
            }
            Want::Nothing => unreachable!(),
        }
    }
    assert!(got.is_empty(), "{name}: unexpected messages {got:?}");
}

/// The good call before a bad line: `ping`.
fn good_before(id: &str) -> Vec<u8> {
    request(id, "ping", json!({}))
}

/// The good call after a bad line: a tool call.
fn good_after(id: &str) -> Vec<u8> {
    request(
        id,
        "tools/call",
        json!({"name": "get_server_info", "arguments": {}}),
    )
}

fn check_good_before(id: &str, v: &Value) {
    assert_eq!(
        v,
        &json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "{id}"
    );
}

fn check_good_after(id: &str, v: &Value) {
    assert_eq!(v["result"]["isError"], false, "{id}: {v}");
    assert_eq!(
        v["result"]["structuredContent"]["is_alive"], false,
        "{id}: {v}"
    );
}

/// Each form between two good calls, one form at a time: the good calls are answered, the form
/// gets exactly what it must, and nothing else is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_malformed_form_between_good_calls() {
    let mut mcp = Mcp::start().await;
    for (n, (name, line, want)) in forms().into_iter().enumerate() {
        let (before, after) = (format!("before-{n}"), format!("after-{n}"));
        // All three lines in one write.
        let mut b = good_before(&before);
        b.push(b'\n');
        b.extend_from_slice(&line);
        b.push(b'\n');
        b.extend_from_slice(&good_after(&after));
        b.push(b'\n');
        mcp.write(&b).await;
        check_good_before(&before, &mcp.answer(&json!(before)).await);
        check_good_after(&after, &mcp.answer(&json!(after)).await);
        // tmuxwire's own answers are queued before the next line goes to rmcp, so they are in
        // by now; rmcp's (the unknown method, the tool results) are waited for by id.
        if let Want::Error(id, _, _) | Want::Tool(id, _) = &want
            && !id.is_null()
        {
            let v = mcp.answer(id).await;
            mcp.pending.push(v);
        }
        let extras = std::mem::take(&mut mcp.pending);
        check_extras(name, &[&want], extras);
    }
    let rest = mcp.finish().await;
    assert!(rest.is_empty(), "unexpected messages at the end: {rest:?}");
}

/// Every form and good call pipelined in one write, then stdin closed: each request id is
/// answered exactly once, the good calls correctly, and nothing else is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_good_and_bad_lines() {
    let mut mcp = Mcp::start().await;
    let forms = forms();
    let mut script = Vec::new();
    for (n, (_, line, _)) in forms.iter().enumerate() {
        for part in [
            good_before(&format!("before-{n}")),
            line.clone(),
            good_after(&format!("after-{n}")),
        ] {
            script.extend_from_slice(&part);
            script.push(b'\n');
        }
    }
    // The last line has no newline: it is answered too.
    script.extend_from_slice(&good_before("last"));
    let writer = {
        let mut stdin = mcp.stdin.take().unwrap();
        tokio::spawn(async move {
            stdin.write_all(&script).await.expect("write the script");
            // Dropping stdin closes it.
        })
    };
    within("writing the script", writer).await.unwrap();
    let mut got = mcp.finish().await;

    // Answers to the good calls, each exactly once.
    let mut by_id: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    got.retain(|v| match v["id"].as_str() {
        Some(id) if id.starts_with("before-") || id.starts_with("after-") || id == "last" => {
            by_id.entry(id.to_string()).or_default().push(v.clone());
            false
        }
        _ => true,
    });
    for n in 0..forms.len() {
        let (before, after) = (format!("before-{n}"), format!("after-{n}"));
        assert_eq!(by_id.get(&before).map(Vec::len), Some(1), "{before}");
        assert_eq!(by_id.get(&after).map(Vec::len), Some(1), "{after}");
        check_good_before(&before, &by_id[&before][0]);
        check_good_after(&after, &by_id[&after][0]);
    }
    check_good_before("last", &by_id["last"][0]);
    let wants: Vec<&Want> = forms.iter().map(|(_, _, w)| w).collect();
    check_extras("pipelined", &wants, got);
}

/// The server writes nothing but JSON-RPC on stdout even while it refuses input, and a client
/// that sends nothing but garbage before `initialize` can still initialize afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_before_initialize() {
    let dir = tempfile::Builder::new()
        .prefix("tmuxwire-rpc-")
        .tempdir_in("/tmp")
        .unwrap();
    let mut cmd = tmuxwire_command();
    cmd.env("TMUX_TMPDIR", dir.path());
    cmd.arg("-S").arg(dir.path().join("none.sock")).arg("mcp");
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let script = [
        &b"{not json"[..],
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        br#"{"jsonrpc":"2.0","result":{}}"#,
        br#"{"a":1}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    ]
    .iter()
    .flat_map(|l| l.iter().copied().chain([b'\n']))
    .collect::<Vec<u8>>();
    within("write", stdin.write_all(&script)).await.unwrap();
    drop(stdin);
    let mut out = String::new();
    within("stdout to EOF", stdout.read_to_string(&mut out))
        .await
        .unwrap();
    let status = within("exit", child.wait()).await.unwrap();
    assert!(status.success(), "{status}: {out}");
    let msgs: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let codes: Vec<(Value, Value)> = msgs
        .iter()
        .map(|m| (m["id"].clone(), m["error"]["code"].clone()))
        .collect();
    assert_eq!(
        codes,
        [
            (Value::Null, json!(-32700)),
            (Value::Null, json!(-32600)),
            (json!(1), json!(-32602)),
            (json!(2), Value::Null),
            (json!(3), Value::Null),
        ],
        "{out}"
    );
    assert_eq!(msgs[3]["result"]["serverInfo"]["name"], "tmuxwire");
}

/// `notifications/cancelled` stops a running call: no answer is sent for it (MCP: receivers
/// should not answer a cancelled request; rmcp drops it), the call's work is dropped, and the
/// connection keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops() {
    let server = TestServer::builder(&system_tmux())
        .history_limit(250_000)
        .start();
    for _ in 0..5 {
        let pane = server.new_window_pane(&["seq 1 200000; exec sleep 100000"]);
        wait_until("the pane is filled", DEADLINE, || {
            server
                .capture(&pane, &["-S", "-3", "-E", "-"])
                .contains("200000")
                .then_some(())
        });
    }
    let mut mcp = Mcp::start_on(Some(&server.socket)).await;
    let search = request(
        "s",
        "tools/call",
        json!({"name": "search_panes", "arguments": {"pattern": "NEVER-PRINTED", "regex": true}}),
    );
    let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s","reason":"test"}}"#;
    let mut both = search.clone();
    both.push(b'\n');
    both.extend_from_slice(cancel);
    mcp.send(&both).await;
    mcp.send(&request("p", "ping", json!({}))).await;
    let p = mcp.answer(&json!("p")).await;
    assert!(p.get("result").is_some(), "{p}");
    let rest = mcp.finish().await;
    assert!(
        rest.iter().all(|v| v["id"] != json!("s")),
        "a cancelled call was answered: {rest:?}"
    );
}

/// A call that gives a progress token gets `notifications/progress` for it (the search seeds
/// the mirror, then searches pane by pane) before its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_for_a_search() {
    let server = TestServer::builder(&system_tmux()).start();
    for _ in 0..3 {
        server.tmux_ok(&["new-window", "-d"]);
    }
    let mut mcp = Mcp::start_on(Some(&server.socket)).await;
    mcp.send(&request(
        "s",
        "tools/call",
        json!({"name": "search_panes", "arguments": {"pattern": "x"}, "_meta": {"progressToken": "tok-1"}}),
    ))
    .await;
    let mut progress = Vec::new();
    loop {
        let v = mcp.next().await;
        if v["id"] == json!("s") {
            assert!(v.get("result").is_some(), "{v}");
            break;
        }
        assert_eq!(v["method"], json!("notifications/progress"), "{v}");
        assert_eq!(v["params"]["progressToken"], json!("tok-1"), "{v}");
        progress.push(v["params"]["progress"].as_f64().unwrap_or(-1.0));
    }
    assert!(progress.len() >= 4, "{progress:?}");
    mcp.finish().await;
}

/// With `TMUXWIRE_CLAUDE_CHANNEL=1` the server declares the Claude Code
/// channel and sends `notifications/claude/channel` with an event's
/// summary; a `resources/subscribe` on a pane's address brings
/// `notifications/resources/updated` for that address when the pane has
/// an event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn channel_and_subscription_notifications() {
    let server = TestServer::builder(&system_tmux()).start();
    let mut mcp = Mcp::start_with(Some(&server.socket), &[("TMUXWIRE_CLAUDE_CHANNEL", "1")]).await;
    let pane = server
        .tmux_ok(&["display-message", "-p", "#{pane_id}"])
        .trim()
        .to_string();
    let uri = format!("tmux://panes/{pane}");
    mcp.send(&request("sub", "resources/subscribe", json!({"uri": uri})))
        .await;
    let sub = mcp.answer(&json!("sub")).await;
    assert!(sub.get("result").is_some(), "{sub}");
    // The forwarder follows from its first poll on: new panes until one is
    // told (each try bounded).
    let channel = notified(
        &mut mcp,
        "channel notification",
        || {
            server.tmux_ok(&["new-window", "-d"]);
        },
        |v| v["method"] == json!("notifications/claude/channel"),
    )
    .await;
    let content = channel["params"]["content"].as_str().expect("content");
    assert!(content.contains("pane_new"), "{channel}");
    assert_eq!(
        channel["params"]["meta"]["kind"],
        json!("pane_new"),
        "{channel}"
    );
    // An event of the subscribed pane: its title.
    updated_on_title(&mut mcp, &server, &pane, &uri).await;
    mcp.finish().await;
}

/// Makes `pane`'s shell set new titles (an event of the pane) until
/// `notifications/resources/updated` comes, and checks it names `uri`.
async fn updated_on_title(mcp: &mut Mcp, server: &TestServer, pane: &str, uri: &str) {
    let retitle = || {
        server.tmux_ok(&[
            "send-keys",
            "-t",
            pane,
            "printf '\\033]2;t%s\\007' $RANDOM",
            "Enter",
        ]);
    };
    let updated = notified(mcp, "resources/updated", retitle, |v| {
        v["method"] == json!("notifications/resources/updated")
    })
    .await;
    assert_eq!(updated["params"]["uri"], json!(uri), "{updated}");
}

/// Waits (within [`DEADLINE`]) for a message `is` accepts, making `poke`
/// happen about once a second meanwhile.
async fn notified(
    mcp: &mut Mcp,
    what: &str,
    poke: impl Fn(),
    is: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + DEADLINE;
    loop {
        assert!(std::time::Instant::now() < deadline, "no {what}");
        poke();
        let until = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
        while let Ok(Some(v)) = tokio::time::timeout_at(until, mcp.out.recv()).await {
            if is(&v) {
                return v;
            }
        }
    }
}

/// Push covers every server tmuxwire talks to: once a call names another
/// server (`socket_path`), the channel tells that server's events too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_channel_follows_a_server_a_call_named() {
    let main = TestServer::builder(&system_tmux()).start();
    let other = TestServer::builder(&system_tmux()).start();
    let mut mcp = Mcp::start_with(Some(&main.socket), &[("TMUXWIRE_CLAUDE_CHANNEL", "1")]).await;
    let path = other.socket.to_str().expect("a UTF-8 path").to_string();
    mcp.send(&request(
        "ls",
        "tools/call",
        json!({"name": "list_sessions", "arguments": {"socket_path": path}}),
    ))
    .await;
    let ls = mcp.answer(&json!("ls")).await;
    assert!(ls["result"]["isError"] != json!(true), "{ls}");
    let v = notified(
        &mut mcp,
        "channel notification from the other server",
        || {
            other.tmux_ok(&["new-window", "-d"]);
        },
        |v| {
            v["method"] == json!("notifications/claude/channel")
                && v["params"]["meta"]["kind"] == json!("pane_new")
        },
    )
    .await;
    let pane = v["params"]["meta"]["pane_id"]
        .as_str()
        .expect("pane")
        .to_string();
    let listed = other.tmux_ok(&["list-panes", "-a", "-F", "#{pane_id}"]);
    assert!(
        listed.lines().any(|l| l == pane),
        "{pane} of the other server: {listed}"
    );
    mcp.finish().await;
}

/// The 2026-07-28 form: `subscriptions/listen` with a pane's address (no
/// initialize; the metadata in the request) is acknowledged, and an event
/// of the pane brings `notifications/resources/updated` for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_listen_brings_resource_updates() {
    let server = TestServer::builder(&system_tmux()).start();
    let mut mcp = Mcp::spawn(Some(&server.socket), &[]);
    let pane = server
        .tmux_ok(&["display-message", "-p", "#{pane_id}"])
        .trim()
        .to_string();
    let uri = format!("tmux://panes/{pane}");
    mcp.send(&request(
        "listen",
        "subscriptions/listen",
        json!({
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "jsonrpc-test", "version": "0"},
            },
            "notifications": {"resourceSubscriptions": [uri, "tmux://sessions"]},
        }),
    ))
    .await;
    let ack = notified(
        &mut mcp,
        "acknowledgement",
        || {},
        |v| {
            v["method"] == json!("notifications/subscriptions/acknowledged")
                || v.get("error").is_some()
        },
    )
    .await;
    assert!(ack.get("error").is_none(), "{ack}");
    updated_on_title(&mut mcp, &server, &pane, &uri).await;
    drop(mcp);
}

/// A long `poll_events` reports progress and stops on
/// `notifications/cancelled`: the server answers the next request at
/// once, and the cancelled call sends no events after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_poll_stops_on_cancel() {
    let server = TestServer::builder(&system_tmux()).start();
    let mut mcp = Mcp::start_on(Some(&server.socket)).await;
    mcp.send(&request(
        "first",
        "tools/call",
        json!({"name": "poll_events", "arguments": {}}),
    ))
    .await;
    let first = mcp.answer(&json!("first")).await;
    let cursor = first["result"]["structuredContent"]["cursor"]
        .as_str()
        .unwrap_or_else(|| panic!("a cursor: {first}"))
        .to_string();
    mcp.send(
        &serde_json::to_vec(
            &json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call",
            "params": {"name": "poll_events", "_meta": {"progressToken": "p-1"},
            "arguments": {"cursor": cursor, "timeout": 30}}}),
        )
        .expect("JSON"),
    )
    .await;
    let progress = notified(
        &mut mcp,
        "progress",
        || {},
        |v| v["method"] == json!("notifications/progress") || v["id"] == json!("long"),
    )
    .await;
    assert_eq!(
        progress["params"]["progressToken"],
        json!("p-1"),
        "{progress}"
    );
    mcp.send(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long","reason":"test"}}"#,
    )
    .await;
    let t0 = std::time::Instant::now();
    mcp.send(&request("ping", "ping", json!({}))).await;
    let ping = mcp.answer(&json!("ping")).await;
    assert_eq!(ping["result"], json!({}), "{ping}");
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        t0.elapsed()
    );
    // An event now is not answered to the cancelled call.
    server.tmux_ok(&["new-window", "-d"]);
    let rest = mcp.finish().await;
    assert!(
        rest.iter()
            .all(|v| v["id"] != json!("long")
                || v["result"]["structuredContent"]["events"].is_null()),
        "{rest:#?}"
    );
}
