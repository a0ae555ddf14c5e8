//! `tmuxwire mcp` as a child process driven by rmcp's client over stdio: the command, the
//! handshake, a tool call as JSON. Tests that need the real binary's stdio (rather than
//! in-process calls, [`super::tool`]) start it here.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tmuxwire::mcp::args::ToolCall;

use super::tool::arguments;
use super::{tmuxwire_command, within};

/// An MCP client session with a `tmuxwire mcp` child.
pub type Client = RunningService<RoleClient, ()>;

/// `tmuxwire [-S socket] mcp` with a clean environment plus `env`; killed when dropped.
pub fn mcp_command(socket: Option<&Path>, env: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = tmuxwire_command();
    if let Some(s) = socket {
        cmd.arg("-S").arg(s);
    }
    cmd.arg("mcp");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.kill_on_drop(true);
    cmd
}

/// Spawns `cmd` (its stderr dropped) and completes the MCP handshake: the client and the
/// child's pid.
pub async fn start_mcp(cmd: tokio::process::Command) -> (Client, u32) {
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tmuxwire mcp");
    let pid = transport.id().expect("the server's pid");
    let client = within("initialize", ().serve(transport))
        .await
        .unwrap_or_else(|e| panic!("MCP initialize failed: {e}"));
    (client, pid)
}

/// Calls a tool over MCP and returns the result as JSON. A JSON-RPC error fails the test:
/// tool failures must be results with `isError: true`.
pub async fn call(client: &Client, tool: &str, args: Value) -> Value {
    let map: Map<String, Value> = match args {
        Value::Object(m) => m,
        other => panic!("arguments must be an object: {other}"),
    };
    let what = format!("tools/call {tool} {}", Value::Object(map.clone()));
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(map);
    let r = within(&what, client.call_tool(params))
        .await
        .unwrap_or_else(|e| panic!("{what}: JSON-RPC level failure: {e}"));
    serde_json::to_value(&r).expect("serialize CallToolResult")
}

/// Calls tool `A::NAME` over MCP with the typed arguments `args` ([`call`]).
pub async fn call_typed<A: ToolCall>(client: &Client, args: A) -> Value {
    call(client, A::NAME, arguments(&args)).await
}
