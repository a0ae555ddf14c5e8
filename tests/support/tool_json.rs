//! Tool calls in process (`tmuxwire::mcp::tools::call`) with the whole result as JSON
//! (`content`, `structuredContent`, `isError`, `_meta`), as a client reads it, and the shape
//! every error must have. The same calls returning rmcp's types are in [`super::tool`], which
//! says when a test calls with typed arguments ([`call_typed`], [`ok_typed`], [`err_typed`]) and
//! when with JSON.

use serde_json::{Map, Value};
use tmuxwire::mcp::args::ToolCall;
use tmuxwire::mcp::tools;
use tmuxwire::tmux::Servers;

use super::tool::arguments;
use super::within;

/// Calls a tool and returns the whole result as JSON (`content`, `structuredContent`,
/// `isError`, `_meta`).
pub async fn call(servers: &Servers, tool: &str, args: Value) -> Value {
    let map: Map<String, Value> = match args {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        other => panic!("arguments must be an object, got {other}"),
    };
    let what = format!("{tool}({})", Value::Object(map.clone()));
    let r = within(&what, tools::call(servers, tool, map)).await;
    serde_json::to_value(&r).expect("CallToolResult serializes")
}

/// The structured content of a successful call (panics with the error text otherwise).
pub async fn ok(servers: &Servers, tool: &str, args: Value) -> Value {
    let r = call(servers, tool, args.clone()).await;
    assert_ne!(
        r.get("isError"),
        Some(&Value::Bool(true)),
        "{tool}({args}) failed: {}",
        text_of(&r)
    );
    r.get("structuredContent")
        .cloned()
        .unwrap_or_else(|| panic!("{tool}({args}): no structuredContent: {r}"))
}

/// An error call: checks the error shape and returns `(text, error_type)`.
pub async fn err(servers: &Servers, tool: &str, args: Value) -> (String, String) {
    let r = call(servers, tool, args.clone()).await;
    assert_error_shape(&r, &format!("{tool}({args})"))
}

/// Calls tool `A::NAME` with `args`, the whole result as JSON ([`call`]).
pub async fn call_typed<A: ToolCall>(servers: &Servers, args: A) -> Value {
    call(servers, A::NAME, arguments(&args)).await
}

/// The structured content of a successful typed call ([`ok`]).
pub async fn ok_typed<A: ToolCall>(servers: &Servers, args: A) -> Value {
    ok(servers, A::NAME, arguments(&args)).await
}

/// A typed call that must fail: `(text, error_type)` ([`err`]).
pub async fn err_typed<A: ToolCall>(servers: &Servers, args: A) -> (String, String) {
    err(servers, A::NAME, arguments(&args)).await
}

pub fn assert_error_shape(r: &Value, ctx: &str) -> (String, String) {
    assert_eq!(
        r.get("isError"),
        Some(&Value::Bool(true)),
        "{ctx} should fail, got {r}"
    );
    assert!(
        r.get("structuredContent").is_none_or(Value::is_null),
        "{ctx}: an error carries no structuredContent: {r}"
    );
    let meta = r
        .get("_meta")
        .unwrap_or_else(|| panic!("{ctx}: error without _meta: {r}"));
    let kind = meta["error_type"]
        .as_str()
        .unwrap_or_else(|| panic!("{ctx}: _meta.error_type missing: {r}"))
        .to_string();
    assert!(meta["expected"].is_boolean(), "{ctx}: _meta.expected: {r}");
    let text = text_of(r);
    assert!(!text.is_empty(), "{ctx}: empty error text");
    if let Some(s) = meta.get("suggestion").and_then(Value::as_str) {
        assert!(
            text.ends_with(s),
            "{ctx}: the text ends with the suggestion: {text:?} / {s:?}"
        );
    }
    (text, kind)
}

pub fn text_of(r: &Value) -> String {
    r["content"][0]["text"].as_str().unwrap_or("").to_string()
}

/// The `result` text of a successful call (`capture_pane`, `display_message`), after
/// checking that its text block is that text, as libtmux-mcp sends it (the same facts for a
/// client that reads either).
pub fn result_text(r: &Value) -> String {
    assert_eq!(
        Some(text_of(r).as_str()),
        r["structuredContent"]["result"].as_str(),
        "text block = structuredContent's result"
    );
    r["structuredContent"]["result"]
        .as_str()
        .unwrap_or_else(|| panic!("no result text: {r}"))
        .to_string()
}

pub fn suggestion_of(r: &Value) -> String {
    r["_meta"]["suggestion"].as_str().unwrap_or("").to_string()
}
