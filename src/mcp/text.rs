//! The text blocks of a tool result: what a client that reads only text
//! gets.
//!
//! Clients disagree on which half of a result reaches the model: Claude
//! Code, Codex, Copilot CLI and opencode pass `structuredContent` (as
//! compact JSON) and drop the text blocks; Open WebUI, kimi-code and
//! others pass only the text blocks. So each half carries the whole
//! answer (`docs/RESULTS.md` is the contract, tool by tool).
//!
//! `structuredContent` is the result type serialized: its fields in the
//! order the type declares them (serde_json's `preserve_order`), the one
//! owner of field order. Where libtmux-mcp has the tool, its fields come
//! first in its order; tmuxwire's own fields follow, and those that only
//! repeat a default (null, false, 0, empty) are left out.
//!
//! By default ([`TextMode::Reference`]) the first text block is what
//! libtmux-mcp 0.1.0a22 sends for the same result, chosen by the shape of
//! the tool's reference result ([`TextShape`], declared by each result
//! type through [`Rendered`]):
//!
//! * [`TextShape::String`]: the `result` string as is. `capture_pane`'s
//!   pane text (with libtmux-mcp's `[... truncated K lines ...]` first line
//!   when lines were cut, by `max_lines` or by the response budget),
//!   `display_message`'s expansion, and the sentences of the action tools
//!   (`Keys sent to pane %0`).
//! * [`TextShape::List`]: the `result` list, bare (`[{…},{…}]`).
//! * [`TextShape::Object`]: the object, as `structuredContent` holds it
//!   (a field the reference sends as a number is a number:
//!   [`Rendered::NUMBERS`]).
//!
//! A string or a bare list has no room for tmuxwire's other fields, so
//! what the first block lacks follows in a second text block, one compact
//! JSON object ([`note`]): a cut's `truncated_lines` and `next`, a list's
//! `omitted`, a dead pane, a delivery that was not confirmed. It is sent
//! only when there is something to say: the fields the call named or the
//! text already shows ([`Rendered::QUIET`]) are not repeated, and an
//! ordinary answer has one block.
//!
//! JSON is written as FastMCP writes it (pydantic-core): compact (`,` and
//! `:` with no spaces), non-ASCII as UTF-8, control characters as `\n`,
//! `\t`, … or `\u001b`, nulls kept.
//!
//! With [`TextMode::Json`] (`tmuxwire mcp --json-text`) the text block is
//! the structured result serialized, in the same order. In both modes
//! `structuredContent` is the structured result. Error results keep their
//! message text.

use serde_json::{Map, Value};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextShape {
    /// A string: the text block is the `result` field.
    String,
    /// A list: the text block is the `result` list, bare.
    List,
    /// An object: the text block is the object.
    Object,
}

/// How a tool's text blocks are made: its result type's [`Rendered`]
/// constants, kept in the tool's row.
#[derive(Clone, Copy, Debug)]
pub struct Text {
    /// [`Rendered::TEXT`].
    pub shape: TextShape,
    /// [`Rendered::QUIET`].
    pub quiet: &'static [&'static str],
    /// [`Rendered::NUMBERS`].
    pub numbers: &'static [&'static str],
}

impl Text {
    /// The text of result type `R`.
    pub const fn of<R: Rendered>() -> Text {
        Text {
            shape: R::TEXT,
            quiet: R::QUIET,
            numbers: R::NUMBERS,
        }
    }
}

/// A result type's text: the one place a tool's definition says how its
/// text blocks are made ([`super::tools`] reads it from the result type
/// of each tool).
pub trait Rendered {
    /// The shape of the reference result.
    const TEXT: TextShape;
    /// Fields the second text block ([`note`]) leaves out: what the call
    /// named (`pane_id`) or the first block already shows (`lines`, the
    /// count of the text's lines).
    const QUIET: &'static [&'static str] = &[];
    /// Top-level fields sent as decimal strings in `structuredContent`
    /// that the reference's text writes as numbers (`snapshot_pane`'s
    /// `pane_width`).
    const NUMBERS: &'static [&'static str] = &[];
}

/// The text blocks of a successful result whose structured content is
/// `value`, for a tool whose text is `text`: the first block, and the
/// [`note`] when there is one (`also_quiet`: fields this answer's note
/// leaves out too, such as a confirmed delivery). A value that lacks what
/// its shape needs (no `result` string or list) is written as JSON.
pub fn render(mode: TextMode, text: &Text, value: &Value, also_quiet: &[&str]) -> Vec<String> {
    if mode == TextMode::Json {
        return vec![value.to_string()];
    }
    let first = match (text.shape, value.get("result")) {
        (TextShape::String, Some(Value::String(s))) => s.clone(),
        (TextShape::List, Some(v @ Value::Array(_))) => v.to_string(),
        (TextShape::Object, _) if !text.numbers.is_empty() => {
            let mut v = value.clone();
            if let Value::Object(map) = &mut v {
                for k in text.numbers {
                    if let Some(x) = map.get_mut(*k)
                        && let Some(n) = x.as_str().and_then(|s| s.parse::<i64>().ok())
                    {
                        *x = Value::from(n);
                    }
                }
            }
            v.to_string()
        }
        _ => return vec![value.to_string()],
    };
    let mut blocks = vec![first];
    if let Some(Value::Object(mut n)) = note(text, value) {
        n.retain(|k, _| !also_quiet.contains(&k.as_str()));
        if !n.is_empty() {
            blocks.push(Value::Object(n).to_string());
        }
    }
    blocks
}

/// The second text block of a string or list result: the fields of
/// `value` that the first block does not show, but those the result type
/// calls [`Rendered::QUIET`]; `None` when nothing is left (an object
/// result's block already holds every field).
pub fn note(text: &Text, value: &Value) -> Option<Value> {
    if text.shape == TextShape::Object {
        return None;
    }
    let map = value.as_object()?;
    let rest: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| *k != "result" && !text.quiet.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!rest.is_empty()).then_some(Value::Object(rest))
}

/// `impl Rendered` with the text shape `$shape` (a [`TextShape`] variant)
/// and no quiet or number fields, for each type:
/// `rendered!(Object: SessionInfo, WindowInfo)`.
macro_rules! rendered {
    ($shape:ident: $($t:ty),+ $(,)?) => {
        $(impl $crate::mcp::text::Rendered for $t {
            const TEXT: $crate::mcp::text::TextShape = $crate::mcp::text::TextShape::$shape;
        })+
    };
}
pub(crate) use rendered;

rendered!(
    Object: crate::tmux::SessionInfo,
    crate::tmux::WindowInfo,
    crate::tmux::PaneInfo,
    crate::tmux::ServerInfo,
    crate::tmux::SearchPanesResult,
    crate::tmux::op::commands::WaitForCommandResult,
    crate::tmux::op::stable::WaitForStableResult,
    crate::tmux::op::poll::PollEventsResult,
    crate::tmux::pane_text::WaitForTextResult,
    crate::tmux::pane_text::CaptureSinceResult,
    crate::tmux::pane_text::RunCommandResult,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const STRING: Text = Text {
        shape: TextShape::String,
        quiet: &["pane_id", "lines"],
        numbers: &[],
    };
    const LIST: Text = Text {
        shape: TextShape::List,
        quiet: &[],
        numbers: &[],
    };
    const OBJECT: Text = Text {
        shape: TextShape::Object,
        quiet: &[],
        numbers: &["pane_width"],
    };

    fn reference(text: &Text, v: &Value) -> Vec<String> {
        render(TextMode::Reference, text, v, &[])
    }

    #[test]
    fn strings_are_sent_bare_with_a_note_when_there_is_more() {
        let v = json!({"result": "$ echo hello\nhello\n$", "pane_id": "%0", "lines": 3});
        assert_eq!(reference(&STRING, &v), ["$ echo hello\nhello\n$"]);
        let cut = json!({"result": "[... truncated 4 lines ...]\n4\n5\n$", "pane_id": "%0",
            "lines": 3, "truncated_lines": 4, "next": {"pane_id": "%0", "start": -4, "end": -1}});
        assert_eq!(
            reference(&STRING, &cut),
            [
                "[... truncated 4 lines ...]\n4\n5\n$",
                r#"{"truncated_lines":4,"next":{"pane_id":"%0","start":-4,"end":-1}}"#
            ]
        );
        // No `result` string: the JSON, rather than nothing.
        assert_eq!(reference(&STRING, &json!({"x": 1})), [r#"{"x":1}"#]);
    }

    #[test]
    fn objects_keep_their_order() {
        let v = json!({"session_id": "$0", "session_name": "main", "zeta": 1, "alpha": null});
        assert_eq!(
            reference(&OBJECT, &v),
            [r#"{"session_id":"$0","session_name":"main","zeta":1,"alpha":null}"#]
        );
        // As FastMCP writes JSON: UTF-8 kept, controls escaped, nulls kept.
        let v = json!({"option": "@x", "value": "é ✓\u{1b}\"\\\n"});
        assert_eq!(
            reference(&OBJECT, &v),
            ["{\"option\":\"@x\",\"value\":\"é ✓\\u001b\\\"\\\\\\n\"}"]
        );
        let v = json!({"pane_id": "%1", "pane_width": "40"});
        assert_eq!(
            reference(&OBJECT, &v),
            [r#"{"pane_id":"%1","pane_width":40}"#]
        );
        assert_eq!(note(&OBJECT, &v), None);
    }

    #[test]
    fn lists_are_bare() {
        let v = json!({"result": [{"session_id": "$1", "window_count": 1}], "omitted": 3});
        assert_eq!(
            reference(&LIST, &v),
            [
                r#"[{"session_id":"$1","window_count":1}]"#,
                r#"{"omitted":3}"#
            ]
        );
        assert_eq!(reference(&LIST, &json!({"result": []})), ["[]"]);
    }

    #[test]
    fn json_mode_is_the_structured_result() {
        let v = json!({"result": "x", "pane_id": "%0"});
        assert_eq!(
            render(TextMode::Json, &STRING, &v, &[]),
            [r#"{"result":"x","pane_id":"%0"}"#]
        );
    }
}
