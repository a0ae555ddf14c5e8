//! `docs/TOOLS.md`, the tools reference, made from the tool rows: each
//! tool's description and its input schema as `tools/list` sends them
//! ([`super::tool`]), and the server instructions, which say once what
//! the listed schemas leave out. A unit test keeps the file fresh
//! (`TMUXWIRE_WRITE_TOOLS=1 cargo test --lib tools_doc` writes it).

use serde_json::Value;

use super::{Def, defs, tool};
use crate::mcp::server::{INSTRUCTIONS, INSTRUCTIONS_MORE};

/// The command that writes `docs/TOOLS.md` again.
const WRITE: &str = "TMUXWIRE_WRITE_TOOLS=1 cargo test --lib tools_doc";

/// The whole of `docs/TOOLS.md`: a heading, the tools at a glance (name,
/// toolset, core, first sentence), the server instructions, then one
/// section per tool in listing order (inspect, manage, execute,
/// teardown) with its description, its hints and a table of the
/// arguments its listed schema has.
pub fn tools_reference() -> String {
    let mut out = format!(
        "# Tools reference\n\n\
         <!-- generated from the tool rows (src/mcp/tools/) by `{WRITE}`: do not edit -->\n\n\
         Every tool tmuxwire serves, in `tools/list` order, with the description and the \
         arguments a client sees. The toolsets (`TMUXWIRE_TOOLSETS`, default \
         `inspect,manage,execute`; `core` is the column below) and the result contract \
         (`docs/RESULTS.md`) are described in `docs/GUIDE.md`. What every tool shares (the \
         targets, `socket_name`/`socket_path`, the limits) is in the server instructions, \
         quoted [at the end](#what-every-tool-shares). With remote hosts configured \
         (`--host`), every tool also takes `host`, the tools marked *fenced* take `fenced`, \
         and `list_hosts` is offered.\n\n\
         | tool | toolset | core | what it does |\n|---|---|---|---|\n"
    );
    for d in defs() {
        out.push_str(&format!(
            "| [`{0}`](#{0}) | {1} | {2} | {3} |\n",
            d.name,
            d.toolset.name(),
            if d.core { "core" } else { "" },
            cell(first_sentence(d.description)),
        ));
    }
    for d in defs() {
        out.push_str(&section(d));
    }
    out.push_str(&format!(
        "\n## What every tool shares\n\n\
         The server instructions, sent at `initialize` (`src/mcp/server.rs`), which the \
         listed schemas do not repeat (the first part, then the caller's pane, redaction \
         and remote hosts when they apply, then the rest and the toolsets):\n\n```text\n\
         {INSTRUCTIONS}\n\n{INSTRUCTIONS_MORE}\n```\n"
    ));
    out
}

/// One tool's section: heading, description, facts, arguments.
fn section(d: &Def) -> String {
    let t = tool(d);
    let mut facts = vec![format!("toolset `{}`", d.toolset.name())];
    if d.core {
        facts.push("core".into());
    }
    let a = t.annotations.unwrap_or_default();
    if a.read_only_hint == Some(true) {
        facts.push("read-only".into());
    } else {
        if a.destructive_hint != Some(false) {
            facts.push("destructive".into());
        }
        if a.idempotent_hint == Some(true) {
            facts.push("idempotent".into());
        }
    }
    if d.sized {
        facts.push("takes `max_bytes`".into());
    }
    if d.fenced {
        facts.push("fenced".into());
    }
    if d.sends_output {
        facts.push("sends an `outputSchema`".into());
    }
    let mut out = format!(
        "\n### {}\n\n{}\n\n{}.\n\n",
        d.name,
        d.description.trim(),
        facts.join(", ")
    );
    let props = t.input_schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = t
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match props {
        Some(p) if !p.is_empty() => {
            out.push_str(
                "| argument | type | required | default | meaning |\n|---|---|---|---|---|\n",
            );
            for (name, s) in p {
                out.push_str(&format!(
                    "| `{name}` | {} | {} | {} | {} |\n",
                    cell(&type_of(s)),
                    if required.contains(&name.as_str()) {
                        "yes"
                    } else {
                        ""
                    },
                    s.get("default")
                        .map(|v| format!("`{}`", cell(&v.to_string())))
                        .unwrap_or_default(),
                    cell(
                        s.get("description")
                            .and_then(Value::as_str)
                            .unwrap_or_else(|| shared_meaning(name))
                    ),
                ));
            }
        }
        _ => out.push_str("No arguments of its own.\n"),
    }
    out
}

/// What an argument the schemas leave undescribed means, where the
/// instructions say it once for every tool (empty for the others, whose
/// names say it).
fn shared_meaning(name: &str) -> &'static str {
    match name {
        "pane_id" | "window_id" | "session_id" | "session_name" | "window_index" => {
            "A target ([TARGETING](#what-every-tool-shares))."
        }
        "max_bytes" => {
            "This call's response budget in bytes, up to 1 MiB ([LIMITS](#what-every-tool-shares))."
        }
        "verbose" => "Also a confirmed delivery's evidence.",
        "grep" | "context" | "head" | "tail" => {
            "Which lines are returned ([LIMITS](#what-every-tool-shares))."
        }
        _ => "",
    }
}

/// A schema's type in words: `integer`, `string or null`, `array of
/// string`, `one of "a", "b"`.
fn type_of(s: &Value) -> String {
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = e.iter().map(|v| format!("`{v}`")).collect();
        return format!("one of {}", values.join(", "));
    }
    if let Some(branches) = s.get("anyOf").or_else(|| s.get("oneOf")) {
        let kinds: Vec<String> = branches
            .as_array()
            .map(|b| b.iter().map(type_of).collect())
            .unwrap_or_default();
        return kinds.join(" or ");
    }
    match s.get("type") {
        Some(Value::String(t)) if t == "array" => match s.get("items") {
            Some(items) => format!("array of {}", type_of(items)),
            None => "array".into(),
        },
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if s.get("properties").is_some() => "object".into(),
        _ => "any".into(),
    }
}

/// The text up to the first sentence end (". " or a line break), or all
/// of it.
fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    let end = [text.find(". "), text.find('\n')]
        .into_iter()
        .flatten()
        .min()
        .map_or(text.len(), |i| i + 1);
    text[..end].trim_end_matches('\n')
}

/// `text` made safe for one Markdown table cell: line breaks become
/// spaces and `|` is escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/TOOLS.md` is [`tools_reference`]; with `TMUXWIRE_WRITE_TOOLS=1`
    /// the test writes it instead of failing.
    #[test]
    fn tools_doc_is_fresh() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/TOOLS.md");
        let fresh = tools_reference();
        if std::env::var_os("TMUXWIRE_WRITE_TOOLS").is_some() {
            std::fs::write(path, &fresh).expect("write docs/TOOLS.md");
            return;
        }
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        assert!(fresh == doc, "docs/TOOLS.md is stale: run {WRITE}");
    }

    #[test]
    fn every_tool_has_a_section_and_a_row() {
        let doc = tools_reference();
        for d in defs() {
            assert!(doc.contains(&format!("\n### {}\n", d.name)), "{}", d.name);
            assert!(
                doc.contains(&format!("| [`{0}`](#{0}) |", d.name)),
                "{}",
                d.name
            );
        }
    }

    #[test]
    fn types_and_sentences_read_as_words() {
        let s = serde_json::json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
        assert_eq!(type_of(&s), "integer or null");
        let s = serde_json::json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(type_of(&s), "array of string");
        let s = serde_json::json!({"enum": ["a", "b"]});
        assert_eq!(type_of(&s), "one of `\"a\"`, `\"b\"`");
        assert_eq!(first_sentence("One. Two."), "One.");
        assert_eq!(first_sentence("No end"), "No end");
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
