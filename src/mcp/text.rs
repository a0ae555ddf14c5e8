//! The text block of a tool result: what a client that reads only text
//! gets.
//!
//! By default ([`TextMode::Reference`]) the text block is what
//! libtmux-mcp 0.1.0a22 sends for the same result, chosen by the shape of
//! the tool's reference result ([`TextShape`], declared by each result
//! type through [`Rendered`]):
//!
//! * [`TextShape::String`]: the `result` string as is. `capture_pane`'s
//!   pane text (with libtmux-mcp's `[... truncated K lines ...]` first line
//!   when lines were cut, by `max_lines` or by the response budget),
//!   `display_message`'s expansion, and the sentences of the action tools
//!   (`Keys sent to pane %0`).
//! * [`TextShape::List`]: the `result` list, bare (`[{…},{…}]`), each item
//!   in its [`Order`]. `omitted` (items the response budget left out) is in
//!   `structuredContent` only: a bare list has no room for it.
//! * [`TextShape::Object`]: the object in its [`Order`].
//!
//! JSON is written as FastMCP writes it (pydantic-core): compact (`,` and
//! `:` with no spaces), non-ASCII as UTF-8, control characters as `\n`,
//! `\t`, … or `\u001b`, nulls kept. The reference's fields come first, in
//! the reference's order, with the reference's types (a field the
//! reference sends as a number is a number: `snapshot_pane`'s
//! `pane_width`). tmuxwire's own fields follow, in name order: a client
//! that parses JSON ignores keys it does not know, and a model reads the
//! hints they carry (`truncated_lines`, `next`, `lines_omitted`,
//! `matched_line_numbers`, …).
//!
//! With [`TextMode::Json`] (`tmuxwire mcp --json-text`) the text block is
//! the structured result serialized, every field in name order, as
//! tmuxwire sent it before. In both modes `structuredContent` is the
//! structured result, unchanged. Error results keep their message text.

use serde_json::Value;

/// What a successful result's text block holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextMode {
    /// libtmux-mcp's text for the result's shape (the default).
    #[default]
    Reference,
    /// The structured result serialized (`--json-text`).
    Json,
}

/// The shape of a tool's reference result, which decides its text block.
#[derive(Clone, Copy, Debug)]
pub enum TextShape {
    /// A string: the text block is the `result` field.
    String,
    /// A list: the text block is the `result` list, bare. The order is
    /// the structured result's, `{"result": [items]}` (one of [`SESSIONS`],
    /// [`WINDOWS`], [`PANES`], [`SERVERS`]).
    List(&'static Order),
    /// An object: the text block is the object, ordered.
    Object(&'static Order),
}

/// A result type's text shape: the one place a tool's definition says
/// how its text block is made ([`super::tools`] reads it from the result
/// type of each tool).
pub trait Rendered {
    /// The shape of the reference result.
    const TEXT: TextShape;
}

/// The reference's fields of an object, in the reference's order.
#[derive(Debug)]
pub struct Order(pub &'static [Field]);

/// One field of an [`Order`].
#[derive(Debug)]
pub struct Field {
    /// The key.
    pub name: &'static str,
    /// How its value is written.
    pub kind: Kind,
}

/// How a field's value is written.
#[derive(Debug)]
pub enum Kind {
    /// As it is.
    Same,
    /// A decimal string written as a number (the reference's type).
    Integer,
    /// An object, or a list of objects, in this order.
    Nested(&'static Order),
    /// A nested tool's structured result (`call_read_tools_batch`), in the
    /// order of the tool named by the sibling `tool` field.
    OfTool,
}

const fn f(name: &'static str) -> Field {
    Field {
        name,
        kind: Kind::Same,
    }
}

const fn int(name: &'static str) -> Field {
    Field {
        name,
        kind: Kind::Integer,
    }
}

const fn nested(name: &'static str, order: &'static Order) -> Field {
    Field {
        name,
        kind: Kind::Nested(order),
    }
}

/// tmuxwire's `list_hosts` item.
pub static HOST: Order = Order(&[
    f("name"),
    f("destination"),
    f("state"),
    f("reason"),
    f("error_type"),
    f("tmux_version"),
    f("sessions_watched"),
    f("channels"),
]);

/// `list_hosts`.
pub static HOSTS: Order = Order(&[nested("result", &HOST)]);

/// libtmux-mcp `SessionInfo`.
pub static SESSION: Order = Order(&[
    f("session_id"),
    f("session_name"),
    f("window_count"),
    f("session_attached"),
    f("session_created"),
    f("active_pane_id"),
]);

/// libtmux-mcp `WindowInfo`.
pub static WINDOW: Order = Order(&[
    f("window_id"),
    f("window_name"),
    f("window_index"),
    f("session_id"),
    f("session_name"),
    f("pane_count"),
    f("window_layout"),
    f("window_active"),
    f("window_width"),
    f("window_height"),
    f("active_pane_id"),
]);

/// libtmux-mcp `PaneInfo`.
pub static PANE: Order = Order(&[
    f("pane_id"),
    f("pane_index"),
    f("pane_width"),
    f("pane_height"),
    f("pane_left"),
    f("pane_top"),
    f("pane_right"),
    f("pane_bottom"),
    f("pane_at_left"),
    f("pane_at_right"),
    f("pane_at_top"),
    f("pane_at_bottom"),
    f("pane_tty"),
    f("pane_current_command"),
    f("pane_current_path"),
    f("pane_pid"),
    f("pane_title"),
    f("pane_active"),
    f("window_id"),
    f("session_id"),
    f("is_caller"),
]);

/// libtmux-mcp `ServerInfo`.
pub static SERVER: Order = Order(&[
    f("is_alive"),
    f("socket_name"),
    f("socket_path"),
    f("session_count"),
    f("version"),
]);

/// libtmux-mcp `PaneSnapshot` (sizes as numbers there).
pub static SNAPSHOT: Order = Order(&[
    f("pane_id"),
    f("content"),
    f("cursor_x"),
    f("cursor_y"),
    int("pane_width"),
    int("pane_height"),
    f("pane_left"),
    f("pane_top"),
    f("pane_right"),
    f("pane_bottom"),
    f("pane_at_left"),
    f("pane_at_right"),
    f("pane_at_top"),
    f("pane_at_bottom"),
    f("pane_tty"),
    f("pane_pid"),
    f("pane_dead"),
    f("alternate_on"),
    f("pane_in_mode"),
    f("pane_mode"),
    f("scroll_position"),
    f("history_size"),
    f("title"),
    f("pane_current_command"),
    f("pane_current_path"),
    f("is_caller"),
    f("content_truncated"),
    f("content_truncated_lines"),
]);

/// libtmux-mcp `PaneContentMatch` (its geometry and tty fields are not in
/// tmuxwire's matches: `list_panes` has them).
pub static MATCH: Order = Order(&[
    f("pane_id"),
    f("pane_left"),
    f("pane_top"),
    f("pane_right"),
    f("pane_bottom"),
    f("pane_at_left"),
    f("pane_at_right"),
    f("pane_at_top"),
    f("pane_at_bottom"),
    f("pane_tty"),
    f("pane_current_command"),
    f("pane_current_path"),
    f("window_id"),
    f("window_name"),
    f("session_id"),
    f("session_name"),
    f("matched_lines"),
    f("is_caller"),
]);

/// libtmux-mcp `SearchPanesResult`.
pub static SEARCH: Order = Order(&[
    nested("matches", &MATCH),
    f("truncated"),
    f("truncated_panes"),
    f("total_panes_matched"),
    f("offset"),
    f("limit"),
]);

/// `{"result": [sessions]}`: `list_sessions`.
pub static SESSIONS: Order = Order(&[nested("result", &SESSION)]);

/// `{"result": [windows]}`: `list_windows`.
pub static WINDOWS: Order = Order(&[nested("result", &WINDOW)]);

/// `{"result": [panes]}`: `list_panes`.
pub static PANES: Order = Order(&[nested("result", &PANE)]);

/// `{"result": [servers]}`: `list_servers`.
pub static SERVERS: Order = Order(&[nested("result", &SERVER)]);

/// libtmux-mcp `OptionResult`.
pub static OPTION: Order = Order(&[f("option"), f("value")]);

/// libtmux-mcp `OptionSetResult`.
pub static OPTION_SET: Order = Order(&[f("option"), f("value"), f("status")]);

/// libtmux-mcp `EnvironmentResult`.
pub static ENVIRONMENT: Order = Order(&[f("variables")]);

/// libtmux-mcp `EnvironmentSetResult`.
pub static ENVIRONMENT_SET: Order = Order(&[f("name"), f("value"), f("status")]);

/// libtmux-mcp `HookEntry`.
pub static HOOK: Order = Order(&[f("hook_name"), f("index"), f("command")]);

/// libtmux-mcp `HookListResult`.
pub static HOOKS: Order = Order(&[nested("entries", &HOOK)]);

/// libtmux-mcp `BufferRef`.
pub static BUFFER_REF: Order = Order(&[f("buffer_name"), f("logical_name")]);

/// libtmux-mcp `BufferContent`.
pub static BUFFER: Order = Order(&[
    f("buffer_name"),
    f("content"),
    f("content_truncated"),
    f("content_truncated_lines"),
]);

/// libtmux-mcp `WaitForTextResult`.
pub static WAIT: Order = Order(&[
    f("found"),
    f("outcome"),
    f("matched_index"),
    f("matched_lines"),
    f("tail"),
    f("saw_new_output"),
    f("matched_at_entry"),
    f("alternate_screen"),
    f("pane_id"),
    f("elapsed_seconds"),
    f("effective_timeout"),
]);

/// libtmux-mcp `CaptureSinceResult`.
pub static SINCE: Order = Order(&[
    f("pane_id"),
    f("cursor"),
    f("lines"),
    f("elapsed_seconds"),
    f("lines_missed"),
    f("truncated"),
    f("truncated_lines"),
    f("truncated_bytes"),
]);

/// libtmux-mcp `RunCommandResult`.
pub static RUN: Order = Order(&[
    f("pane_id"),
    f("exit_status"),
    f("timed_out"),
    f("elapsed_seconds"),
    f("output"),
    f("output_truncated"),
    f("output_truncated_lines"),
    f("effective_timeout"),
]);

/// tmuxwire's `get_pane_state` (no reference result): the state first.
pub static PANE_STATE: Order = Order(&[
    f("pane_id"),
    f("input"),
    f("foreground"),
    f("shell_in_foreground"),
    f("termios"),
    f("wchan"),
    f("alternate_on"),
    f("cursor_visible"),
    f("bracketed_paste"),
    f("command_state"),
    f("last_output_at"),
    f("last_change_at"),
    f("evidence"),
]);

/// One command of tmuxwire's `list_commands` / `get_command_output`.
pub static COMMAND: Order = Order(&[
    f("index"),
    f("command"),
    f("state"),
    f("exit_status"),
    f("started_at"),
    f("duration_ms"),
    f("output_lines"),
    f("output_start_line"),
    f("output_end_line"),
    f("cwd"),
    f("source"),
    f("trusted"),
    f("depth"),
    f("trimmed"),
]);

/// tmuxwire's `list_commands` (no reference result).
pub static COMMAND_LIST: Order = Order(&[
    f("pane_id"),
    f("marks"),
    nested("commands", &COMMAND),
    f("total"),
    f("omitted"),
]);

/// One line of tmuxwire's `get_command_output`.
pub static OUTPUT_LINE: Order = Order(&[f("line"), f("text")]);

/// tmuxwire's `get_command_output` (no reference result).
pub static COMMAND_OUTPUT: Order = Order(&[
    f("pane_id"),
    nested("command", &COMMAND),
    nested("lines", &OUTPUT_LINE),
    f("lines_omitted"),
    f("lines_missing"),
]);

/// tmuxwire's `wait_for_command` (no reference result).
pub static WAIT_COMMAND: Order = Order(&[
    f("found"),
    f("outcome"),
    nested("command", &COMMAND),
    f("tail"),
    nested("running", &COMMAND),
    f("marks"),
    f("pane_id"),
    f("elapsed_seconds"),
    f("effective_timeout"),
    f("pane_exit_status"),
    f("pane_exit_signal"),
    f("pane_exit_unknown"),
    f("evidence"),
]);

/// tmuxwire's `wait_for_stable` (no reference result).
pub static WAIT_STABLE: Order = Order(&[
    f("found"),
    f("outcome"),
    f("pane_id"),
    f("stable_for_ms"),
    f("last_change_at"),
    f("last_output_at"),
    f("screen_hash"),
    f("changes"),
    f("screen"),
    f("elapsed_seconds"),
    f("effective_timeout"),
    f("pane_exit_status"),
    f("pane_exit_signal"),
    f("pane_exit_unknown"),
    f("evidence"),
]);

/// libtmux-mcp `SendKeysOperationResult`.
pub static SEND_ONE: Order = Order(&[
    f("index"),
    f("pane_id"),
    f("success"),
    f("error"),
    f("elapsed_seconds"),
]);

/// libtmux-mcp `SendKeysBatchResult`.
pub static SEND_BATCH: Order = Order(&[
    nested("results", &SEND_ONE),
    f("succeeded"),
    f("failed"),
    f("stopped_at"),
]);

/// An MCP content block as libtmux-mcp's batch lists it.
pub static CONTENT_BLOCK: Order = Order(&[f("type"), f("text")]);

/// libtmux-mcp `ToolCallOperationResult`.
pub static TOOL_ONE: Order = Order(&[
    f("index"),
    f("tool"),
    f("success"),
    f("error"),
    nested("content", &CONTENT_BLOCK),
    Field {
        name: "structured_content",
        kind: Kind::OfTool,
    },
    f("meta"),
    f("elapsed_seconds"),
]);

/// libtmux-mcp `ToolCallBatchResult`.
pub static TOOL_BATCH: Order = Order(&[
    nested("results", &TOOL_ONE),
    f("succeeded"),
    f("failed"),
    f("stopped_at"),
    f("response_truncated"),
    f("response_truncated_bytes"),
]);

impl Rendered for crate::tmux::SessionInfo {
    const TEXT: TextShape = TextShape::Object(&SESSION);
}

impl Rendered for crate::tmux::WindowInfo {
    const TEXT: TextShape = TextShape::Object(&WINDOW);
}

impl Rendered for crate::tmux::PaneInfo {
    const TEXT: TextShape = TextShape::Object(&PANE);
}

impl Rendered for crate::tmux::ServerInfo {
    const TEXT: TextShape = TextShape::Object(&SERVER);
}

impl Rendered for crate::tmux::PaneSnapshot {
    const TEXT: TextShape = TextShape::Object(&SNAPSHOT);
}

impl Rendered for crate::tmux::SearchPanesResult {
    const TEXT: TextShape = TextShape::Object(&SEARCH);
}

impl Rendered for crate::tmux::op::commands::WaitForCommandResult {
    const TEXT: TextShape = TextShape::Object(&WAIT_COMMAND);
}

impl Rendered for crate::tmux::op::stable::WaitForStableResult {
    const TEXT: TextShape = TextShape::Object(&WAIT_STABLE);
}

impl Rendered for crate::tmux::follow::WaitForTextResult {
    const TEXT: TextShape = TextShape::Object(&WAIT);
}

impl Rendered for crate::tmux::follow::CaptureSinceResult {
    const TEXT: TextShape = TextShape::Object(&SINCE);
}

impl Rendered for crate::tmux::follow::RunCommandResult {
    const TEXT: TextShape = TextShape::Object(&RUN);
}

/// The text block of a successful result whose structured content is
/// `value`, for a tool of shape `shape`. `shape_of` gives the shape of a
/// tool by name (for the nested results of a batch). A value that lacks
/// what its shape needs (no `result` string or list) is written as JSON.
pub fn render(
    mode: TextMode,
    shape: TextShape,
    value: &Value,
    shape_of: &dyn Fn(&str) -> Option<TextShape>,
) -> String {
    if mode == TextMode::Json {
        return value.to_string();
    }
    let mut out = Vec::new();
    match (shape, value.get("result")) {
        (TextShape::String, Some(Value::String(s))) => return s.clone(),
        (TextShape::List(order), Some(Value::Array(items))) => {
            let items_order = order.0.iter().find_map(|f| match f.kind {
                Kind::Nested(o) if f.name == "result" => Some(o),
                _ => None,
            });
            write_list(&mut out, items, items_order, shape_of);
        }
        (TextShape::Object(order), _) => write_value(&mut out, value, Some(order), shape_of),
        _ => return value.to_string(),
    }
    // Only serde_json's output and ASCII punctuation were written.
    String::from_utf8(out).unwrap_or_else(|_| value.to_string())
}

/// Writes `v`: an object or a list of objects in `order`, anything else
/// as serde_json writes it.
fn write_value(
    out: &mut Vec<u8>,
    v: &Value,
    order: Option<&Order>,
    shape_of: &dyn Fn(&str) -> Option<TextShape>,
) {
    match (v, order) {
        (Value::Object(map), Some(order)) => {
            out.push(b'{');
            let mut first = true;
            let mut key = |out: &mut Vec<u8>, k: &str| {
                if !first {
                    out.push(b',');
                }
                first = false;
                scalar(out, &Value::String(k.to_string()));
                out.push(b':');
            };
            for field in order.0 {
                let Some(x) = map.get(field.name) else {
                    continue;
                };
                key(out, field.name);
                match &field.kind {
                    Kind::Same => scalar(out, x),
                    Kind::Integer => match x.as_str().and_then(|s| s.parse::<i64>().ok()) {
                        Some(n) => scalar(out, &Value::from(n)),
                        None => scalar(out, x),
                    },
                    Kind::Nested(o) => write_value(out, x, Some(o), shape_of),
                    Kind::OfTool => {
                        let shape = map.get("tool").and_then(Value::as_str).and_then(shape_of);
                        write_structured(out, x, shape, shape_of);
                    }
                }
            }
            for (k, x) in map {
                if order.0.iter().any(|f| f.name == k) {
                    continue;
                }
                key(out, k);
                scalar(out, x);
            }
            out.push(b'}');
        }
        (Value::Array(items), Some(order)) => write_list(out, items, Some(order), shape_of),
        _ => scalar(out, v),
    }
}

fn write_list(
    out: &mut Vec<u8>,
    items: &[Value],
    order: Option<&Order>,
    shape_of: &dyn Fn(&str) -> Option<TextShape>,
) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_value(out, item, order, shape_of);
    }
    out.push(b']');
}

/// Writes a nested tool's structured result as libtmux-mcp's batch holds
/// it: an object or a wrapped list (`{"result": [...]}`) in its order; a
/// string result (`{"result": "…"}`, FastMCP's wrapping) `result` first.
fn write_structured(
    out: &mut Vec<u8>,
    v: &Value,
    shape: Option<TextShape>,
    shape_of: &dyn Fn(&str) -> Option<TextShape>,
) {
    static RESULT: Order = Order(&[f("result")]);
    let order = match shape {
        Some(TextShape::Object(o) | TextShape::List(o)) => o,
        Some(TextShape::String) | None => &RESULT,
    };
    write_value(out, v, Some(order), shape_of);
}

/// `v` as serde_json writes it compactly.
fn scalar(out: &mut Vec<u8>, v: &Value) {
    // Writing a `Value` into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn none(_: &str) -> Option<TextShape> {
        None
    }

    fn reference(shape: TextShape, v: &Value) -> String {
        render(TextMode::Reference, shape, v, &none)
    }

    #[test]
    fn strings_are_sent_bare() {
        let v = json!({"result": "$ echo hello\nhello\n$", "pane_id": "%0", "lines": 3});
        assert_eq!(reference(TextShape::String, &v), "$ echo hello\nhello\n$");
        let cut = json!({"result": "[... truncated 4 lines ...]\n4\n5\n$", "truncated_lines": 4});
        assert_eq!(
            reference(TextShape::String, &cut),
            "[... truncated 4 lines ...]\n4\n5\n$"
        );
        assert_eq!(
            reference(
                TextShape::String,
                &json!({"result": "Keys sent to pane %0", "pane_id": "%0"})
            ),
            "Keys sent to pane %0"
        );
        // No `result` string: the JSON, rather than nothing.
        assert_eq!(reference(TextShape::String, &json!({"x": 1})), r#"{"x":1}"#);
    }

    #[test]
    fn objects_in_reference_order_then_extras_by_name() {
        let v = json!({
            "active_pane_id": "%0", "session_attached": "0", "session_created": "1",
            "session_id": "$0", "session_name": "main", "window_count": 2, "zeta": 1, "alpha": null,
        });
        assert_eq!(
            reference(TextShape::Object(&SESSION), &v),
            r#"{"session_id":"$0","session_name":"main","window_count":2,"session_attached":"0","session_created":"1","active_pane_id":"%0","alpha":null,"zeta":1}"#
        );
        // As FastMCP writes JSON: UTF-8 kept, controls escaped, nulls kept.
        let v = json!({"option": "@x", "value": "é ✓\u{1b}\"\\\n"});
        assert_eq!(
            reference(TextShape::Object(&OPTION), &v),
            "{\"option\":\"@x\",\"value\":\"é ✓\\u001b\\\"\\\\\\n\"}"
        );
    }

    #[test]
    fn lists_are_bare() {
        let v = json!({"result": [{"window_count": 1, "session_id": "$1"}], "omitted": 3});
        assert_eq!(
            reference(TextShape::List(&SESSIONS), &v),
            r#"[{"session_id":"$1","window_count":1}]"#
        );
        assert_eq!(
            reference(TextShape::List(&SESSIONS), &json!({"result": []})),
            "[]"
        );
    }

    #[test]
    fn reference_types() {
        let v = json!({"pane_width": "40", "pane_height": "x", "pane_id": "%1"});
        assert_eq!(
            reference(TextShape::Object(&SNAPSHOT), &v),
            r#"{"pane_id":"%1","pane_width":40,"pane_height":"x"}"#
        );
    }

    #[test]
    fn nested_orders() {
        let v = json!({
            "truncated": false, "offset": 0, "limit": null, "total_panes_matched": 1,
            "truncated_panes": [], "lines_omitted": 0,
            "matches": [{"session_id": "$0", "pane_id": "%0", "matched_lines": ["a"], "source": "mirror"}],
        });
        assert_eq!(
            reference(TextShape::Object(&SEARCH), &v),
            r#"{"matches":[{"pane_id":"%0","session_id":"$0","matched_lines":["a"],"source":"mirror"}],"truncated":false,"truncated_panes":[],"total_panes_matched":1,"offset":0,"limit":null,"lines_omitted":0}"#
        );
    }

    #[test]
    fn batch_results_follow_their_tools() {
        let shapes = |name: &str| match name {
            "get_session_info" => Some(TextShape::Object(&SESSION)),
            "list_sessions" => Some(TextShape::List(&SESSIONS)),
            "capture_pane" => Some(TextShape::String),
            _ => None,
        };
        let v = json!({"results": [
            {"tool": "get_session_info", "index": 0, "content": [{"text": "t", "type": "text"}],
             "structured_content": {"window_count": 1, "session_id": "$0"}},
            {"tool": "list_sessions", "index": 1,
             "structured_content": {"result": [{"window_count": 1, "session_id": "$0"}]}},
            {"tool": "capture_pane", "index": 2,
             "structured_content": {"pane_id": "%0", "result": "x"}},
        ], "failed": 0});
        assert_eq!(
            render(
                TextMode::Reference,
                TextShape::Object(&TOOL_BATCH),
                &v,
                &shapes
            ),
            concat!(
                r#"{"results":["#,
                r#"{"index":0,"tool":"get_session_info","content":[{"type":"text","text":"t"}],"structured_content":{"session_id":"$0","window_count":1}},"#,
                r#"{"index":1,"tool":"list_sessions","structured_content":{"result":[{"session_id":"$0","window_count":1}]}},"#,
                r#"{"index":2,"tool":"capture_pane","structured_content":{"result":"x","pane_id":"%0"}}"#,
                r#"],"failed":0}"#
            )
        );
    }

    #[test]
    fn json_mode_is_the_structured_result() {
        let v = json!({"result": "x", "pane_id": "%0"});
        assert_eq!(
            render(TextMode::Json, TextShape::String, &v, &none),
            r#"{"pane_id":"%0","result":"x"}"#
        );
    }
}
