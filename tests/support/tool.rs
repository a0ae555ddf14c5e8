//! Tool calls in process (`tmuxwire::mcp::tools::call`) and the pane helpers the tests built
//! around them: results as rmcp's `CallToolResult`, errors as [`ToolError`]. The same calls
//! with the whole result as JSON are in [`super::tool_json`].
//!
//! Behaviour tests call a tool with its typed arguments ([`ok_typed`], [`err_typed`],
//! [`call_typed`]: `ok_typed(&s, CapturePaneArgs { pane_id: Some(p), ..Default::default() })`),
//! sent as the JSON a client sends ([`arguments`]), so a renamed or mistyped argument does not
//! compile. The calls by name with JSON arguments ([`ok`], [`err`], [`call`]) are for tests about
//! the JSON itself: how malformed or unknown arguments are refused, the wire, the drop-in
//! conformance, call-level arguments no tool's struct holds (`max_bytes`, `verbose`, `fenced`).

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tmuxwire::mcp::args::{
    CapturePaneArgs, CaptureSinceArgs, ClearPaneArgs, CommandOutputArgs, CreateSessionArgs,
    CreateWindowArgs, DisplayMessageArgs, EnterCopyModeArgs, ExitCopyModeArgs, FindPaneArgs,
    KillSessionArgs, ListCommandsArgs, ListPanesArgs, ListWindowsArgs, MoveWindowArgs, Operation,
    PaneArgs, PaneStateArgs, PasteBufferArgs, PasteTextArgs, PipePaneArgs, RenameSessionArgs,
    RenameWindowArgs, ResizePaneArgs, ResizeWindowArgs, RunCommandArgs, SearchPanesArgs,
    SelectLayoutArgs, SelectPaneArgs, SelectWindowArgs, SendKeysArgs, SessionArgs,
    SetEnvironmentArgs, SetPaneTitleArgs, ShowEnvironmentArgs, SnapshotPaneArgs, SplitWindowArgs,
    ToolCall, WaitForCommandArgs, WaitForStableArgs, WaitForTextArgs, WindowArgs,
};
use tmuxwire::tmux::Servers;

use super::{DEADLINE, TestServer};

fn map(args: Value) -> Map<String, Value> {
    match args {
        Value::Object(m) => m,
        other => panic!("tool arguments must be an object, got {other}"),
    }
}

/// Calls tool `name` in process.
pub async fn call(servers: &Servers, name: &str, args: Value) -> CallToolResult {
    tmuxwire::mcp::tools::call(servers, name, map(args)).await
}

/// The `arguments` object a client sends for the typed call `args`.
pub fn arguments<A: ToolCall>(args: &A) -> Value {
    serde_json::to_value(args).unwrap_or_else(|e| panic!("{}: arguments: {e}", A::NAME))
}

/// The same, as the map of arguments `tools::call` and `TmuxwireServer::call` take.
pub fn argument_map<A: ToolCall>(args: &A) -> Map<String, Value> {
    map(arguments(args))
}

/// An argument that is a JSON object by nature (`filters`, `environment`), or the same object
/// as a JSON string, read as the tool reads it.
pub fn json_arg<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("argument {v}: {e}"))
}

/// A typed call's arguments aimed at one pane: `CapturePaneArgs::on(&pane)`; with more,
/// `CapturePaneArgs { start: Some(-5), ..CapturePaneArgs::on(&pane) }`.
pub trait OnPane: Default {
    /// The arguments with `pane_id` set, the others at their defaults.
    fn on(pane: &str) -> Self;
}

/// `impl $trait for` each argument struct listed: `$make(x)` is the struct with `$field:
/// Some(x)`, the other arguments at their defaults.
macro_rules! aimed {
    ($trait:ident::$make:ident => $field:ident: $($args:ident),* $(,)?) => {
        $(impl $trait for $args {
            fn $make(target: &str) -> Self {
                $args {
                    $field: Some(target.to_string()),
                    ..Default::default()
                }
            }
        })*
    };
}

aimed!(
    OnPane::on => pane_id:
    CapturePaneArgs,
    CaptureSinceArgs,
    ClearPaneArgs,
    CommandOutputArgs,
    DisplayMessageArgs,
    EnterCopyModeArgs,
    ExitCopyModeArgs,
    ListCommandsArgs,
    PaneArgs,
    PaneStateArgs,
    PasteBufferArgs,
    PasteTextArgs,
    PipePaneArgs,
    ResizePaneArgs,
    RunCommandArgs,
    SearchPanesArgs,
    SelectPaneArgs,
    SendKeysArgs,
    SetPaneTitleArgs,
    SnapshotPaneArgs,
    SplitWindowArgs,
    WaitForCommandArgs,
    WaitForStableArgs,
    WaitForTextArgs
);

/// A typed call's arguments aimed at one session by name: `SessionArgs::in_session("dev")`.
pub trait InSession: Default {
    /// The arguments with `session_name` set, the others at their defaults.
    fn in_session(name: &str) -> Self;
}

aimed!(
    InSession::in_session => session_name:
    CapturePaneArgs,
    CaptureSinceArgs,
    ClearPaneArgs,
    CommandOutputArgs,
    CreateSessionArgs,
    CreateWindowArgs,
    DisplayMessageArgs,
    EnterCopyModeArgs,
    ExitCopyModeArgs,
    FindPaneArgs,
    KillSessionArgs,
    ListCommandsArgs,
    ListPanesArgs,
    ListWindowsArgs,
    MoveWindowArgs,
    PaneArgs,
    PaneStateArgs,
    PasteBufferArgs,
    PasteTextArgs,
    PipePaneArgs,
    RenameSessionArgs,
    RenameWindowArgs,
    ResizePaneArgs,
    ResizeWindowArgs,
    RunCommandArgs,
    SearchPanesArgs,
    SelectLayoutArgs,
    SelectPaneArgs,
    SelectWindowArgs,
    SendKeysArgs,
    SessionArgs,
    SetEnvironmentArgs,
    SetPaneTitleArgs,
    ShowEnvironmentArgs,
    SnapshotPaneArgs,
    SplitWindowArgs,
    WaitForCommandArgs,
    WaitForStableArgs,
    WaitForTextArgs,
    WindowArgs
);

/// Where a typed call aims, for tables that aim several tools the same way or one tool
/// several ways: `PaneArgs::at(&Target { window_id: Some(w), ..Default::default() })`. Each
/// argument struct takes the targeting arguments it has ([`Aim`]); `Debug` names the target
/// in a failure.
#[derive(Clone, Debug, Default)]
pub struct Target {
    pub pane_id: Option<String>,
    pub session_name: Option<String>,
    pub session_id: Option<String>,
    pub window_id: Option<String>,
    pub window_index: Option<i64>,
}

/// A typed call's arguments aimed at a [`Target`].
pub trait Aim: Default {
    /// The arguments with the target's fields set, the others at their defaults. Panics
    /// when the target sets a field the struct has not (the call would aim elsewhere).
    fn at(target: &Target) -> Self;
}

/// `impl Aim for` each argument struct listed, which has the targeting fields `[$field…]`
/// (and not the others of [`Target`]).
macro_rules! aim {
    ($fields:tt $($args:ident),* $(,)?) => {
        $(aim!(@one $fields $args);)*
    };
    (@one [$($field:ident),*] $args:ident) => {
        impl Aim for $args {
            fn at(target: &Target) -> Self {
                let Target { $($field,)* .. } = target.clone();
                let kept = Target { $($field: $field.clone(),)* ..Default::default() };
                assert_eq!(
                    format!("{kept:?}"),
                    format!("{target:?}"),
                    "{} has no such targeting argument",
                    <$args as ToolCall>::NAME
                );
                $args { $($field,)* ..Default::default() }
            }
        }
    };
}

aim!(
    [pane_id, session_name, session_id, window_id]
    CapturePaneArgs,
    CaptureSinceArgs,
    DisplayMessageArgs,
    ListCommandsArgs,
    PaneArgs,
    PaneStateArgs,
    SendKeysArgs,
    SnapshotPaneArgs,
    WaitForStableArgs,
    WaitForTextArgs,
);
aim!([window_id, window_index, session_name, session_id] FindPaneArgs, ListPanesArgs, WindowArgs);
aim!([session_name, session_id] ListWindowsArgs, SessionArgs);
aim!([session_name, session_id, pane_id] SearchPanesArgs);

/// One operation of a `call_read_tools_batch`: the typed call `args`.
pub fn operation<A: ToolCall>(args: A) -> Operation {
    Operation {
        tool: A::NAME.to_string(),
        arguments: argument_map(&args),
    }
}

/// `search_panes` for the literal `pattern`, the other arguments at their defaults
/// (`SearchPanesArgs { regex: true, ..search_for("^x$") }` for more).
pub fn search_for(pattern: &str) -> SearchPanesArgs {
    SearchPanesArgs {
        pattern: pattern.to_string(),
        ..Default::default()
    }
}

/// `send_keys` of `keys` to `pane` without Enter, the other arguments at their defaults
/// (`SendKeysArgs { literal: true, ..keys_only(&pane, "Up") }` for more).
pub fn keys_only(pane: &str, keys: &str) -> SendKeysArgs {
    SendKeysArgs {
        keys: keys.to_string(),
        enter: false,
        ..SendKeysArgs::on(pane)
    }
}

/// A typed call as `(tool name, arguments)`, for tables that call several tools in one loop.
pub fn named<A: ToolCall>(args: A) -> (&'static str, Value) {
    (A::NAME, arguments(&args))
}

/// Calls tool `A::NAME` in process with `args` ([`call`]).
pub async fn call_typed<A: ToolCall>(servers: &Servers, args: A) -> CallToolResult {
    call(servers, A::NAME, arguments(&args)).await
}

/// Calls tool `A::NAME`, which must succeed; returns its structured content ([`ok`]).
pub async fn ok_typed<A: ToolCall>(servers: &Servers, args: A) -> Value {
    ok(servers, A::NAME, arguments(&args)).await
}

/// Calls tool `A::NAME`, which must fail; returns the error ([`err`]).
pub async fn err_typed<A: ToolCall>(servers: &Servers, args: A) -> ToolError {
    err(servers, A::NAME, arguments(&args)).await
}

/// The text blocks of a result, joined.
pub fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls a tool that must succeed; returns its structured content.
pub async fn ok(servers: &Servers, name: &str, args: Value) -> Value {
    let r = call(servers, name, args.clone()).await;
    assert_ne!(
        r.is_error,
        Some(true),
        "{name} {args} failed: {}",
        text_of(&r)
    );
    r.structured_content
        .unwrap_or_else(|| panic!("{name} {args}: no structured content"))
}

/// A tool error: `_meta.error_type` and the message text.
#[derive(Debug)]
pub struct ToolError {
    pub kind: String,
    pub text: String,
    pub meta: Value,
}

/// Calls a tool that must fail; returns the error.
pub async fn err(servers: &Servers, name: &str, args: Value) -> ToolError {
    let r = call(servers, name, args.clone()).await;
    assert_eq!(
        r.is_error,
        Some(true),
        "{name} {args} should have failed, got {:?}",
        r.structured_content
    );
    let v = serde_json::to_value(&r).expect("encode result");
    let meta = v.get("_meta").cloned().unwrap_or(Value::Null);
    ToolError {
        kind: meta["error_type"].as_str().unwrap_or("").to_string(),
        text: text_of(&r),
        meta,
    }
}

/// The id (`%N`) of the pane `target` names.
pub fn pane_id(server: &TestServer, target: &str) -> String {
    server
        .tmux_ok(&["display-message", "-p", "-t", target, "#{pane_id}"])
        .trim()
        .to_string()
}

/// The first pane of `server`'s first session.
pub fn first_pane(server: &TestServer) -> String {
    pane_id(server, &format!("={}:", server.session))
}

/// Types `text` literally into `pane` and presses Enter.
pub fn type_line(server: &TestServer, pane: &str, text: &str) {
    server.tmux_ok(&["send-keys", "-t", pane, "-l", "--", text]);
    server.tmux_ok(&["send-keys", "-t", pane, "Enter"]);
}

/// A fresh end marker and the shell command that prints it, written so that the
/// command line's echo does not contain the marker.
pub fn marker() -> (String, String) {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    (format!("END-MARK-{n}"), format!("echo END-MA\"\"RK-{n}"))
}

/// Runs `cmd` in the shell of `pane`, then waits until it finished (an end marker printed
/// after it shows up).
pub fn run(server: &TestServer, pane: &str, cmd: &str) -> String {
    let (mark, echo) = marker();
    type_line(server, pane, &format!("{cmd}; {echo}"));
    server.wait_for_text(pane, &mark, DEADLINE);
    mark
}

/// tmux's own capture of `pane` with `extra` args, as lines (trailing spaces and trailing
/// empty lines removed).
pub fn tmux_lines(server: &TestServer, pane: &str, extra: &[&str]) -> Vec<String> {
    let text = server.capture(pane, extra);
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Lines of text, trailing empty lines removed.
pub fn lines_of(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// `#{history_size}` of a pane.
pub fn history_size(server: &TestServer, pane: &str) -> i64 {
    server
        .tmux_ok(&["display-message", "-p", "-t", pane, "#{history_size}"])
        .trim()
        .parse()
        .expect("history_size")
}

/// All matches of a search result, as (pane_id, line, number, rows).
pub fn hits(v: &Value) -> Vec<(String, String, i64, u64)> {
    let mut out = Vec::new();
    for m in v["matches"].as_array().into_iter().flatten() {
        let lines = m["matched_lines"].as_array().cloned().unwrap_or_default();
        let nums = m["matched_line_numbers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let rows = m["matched_line_rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(lines.len(), nums.len(), "{m}");
        // Left out when every line spans one row.
        assert!(rows.is_empty() || lines.len() == rows.len(), "{m}");
        for i in 0..lines.len() {
            out.push((
                m["pane_id"].as_str().unwrap_or("").to_string(),
                lines[i].as_str().unwrap_or("").to_string(),
                nums[i].as_i64().expect("line number"),
                rows.get(i).map_or(1, |r| r.as_u64().expect("rows")),
            ));
        }
    }
    out
}
