//! The table of rows ([`defs`]) and what is made from it: the catalog
//! `tools/list` sends for a policy and hosts, the lookups by name, the
//! declared result sizes and the results contract of `docs/RESULTS.md`.

use super::*;
use crate::mcp::budget::Budget;
use crate::mcp::text::{Text, TextShape};
use crate::mcp::toolsets::{Policy, Toolset};
use rmcp::model::{MetaObject, Tool};
use serde_json::Value;
use std::sync::Arc;

/// The table: every tool's row, in listing order (inspect, manage,
/// execute, teardown).
pub(super) fn defs() -> &'static [Def] {
    static DEFS: std::sync::OnceLock<Vec<Def>> = std::sync::OnceLock::new();
    DEFS.get_or_init(|| {
        let set = |t: Toolset| {
            move |mut d: Def| {
                d.toolset = t;
                d
            }
        };
        inspect::defs()
            .into_iter()
            .chain(hosts::defs())
            .map(set(Toolset::Inspect))
            .chain(manage::defs().into_iter().map(set(Toolset::Manage)))
            .chain(execute::defs().into_iter().map(set(Toolset::Execute)))
            .chain(teardown::defs().into_iter().map(set(Toolset::Teardown)))
            .collect()
    })
}

/// Tool `name`'s row.
pub(super) fn def_of(name: &str) -> Option<&'static Def> {
    defs().iter().find(|d| d.name == name)
}

/// Every tool tmuxwire serves, in listing order (inspect, manage,
/// execute, teardown), whatever the toolset choice.
pub fn catalog() -> Vec<Tool> {
    defs()
        .iter()
        .filter(|d| d.name != "list_hosts")
        .map(tool)
        .collect()
}

/// The toolset of tool `name`, from its row; `None` for a name tmuxwire
/// does not serve.
pub fn toolset_of(name: &str) -> Option<Toolset> {
    def_of(name).map(|d| d.toolset)
}

/// Whether tmuxwire serves a tool `name` (for [`Policy::from_env`]).
pub fn is_tool(name: &str) -> bool {
    def_of(name).is_some()
}

/// The text shape of tool `name`'s result, from its definition.
pub fn shape_of(name: &str) -> Option<TextShape> {
    def_of(name).map(|d| d.text.shape)
}

/// How tool `name`'s text blocks are made, from its definition.
pub fn text_of(name: &str) -> Option<Text> {
    def_of(name).map(|d| d.text)
}

/// The characters above which Claude Code writes a tool result to a file
/// and hands its model the path, unless the tool declares more with
/// `_meta["anthropic/maxResultSizeChars"]`.
pub(super) const CLIENT_FILE_THRESHOLD: usize = 50_000;

/// Declares `_meta["anthropic/maxResultSizeChars"]` on every tool of
/// `tools` that can answer past [`CLIENT_FILE_THRESHOLD`] characters under
/// `budget`: those that take `max_bytes` (up to the larger of the budget
/// and [`crate::mcp::budget::CALL_CEILING`]), and every tool when the server's
/// budget itself is larger. The value is the most bytes either view can
/// hold, which bounds its characters.
pub fn declare_result_sizes(tools: &mut [Tool], budget: Budget) {
    for t in tools {
        let sized = def_of(&t.name).is_some_and(|d| d.sized);
        let most = if sized {
            budget.bytes().max(crate::mcp::budget::CALL_CEILING)
        } else {
            budget.bytes()
        };
        if most <= CLIENT_FILE_THRESHOLD {
            continue;
        }
        let mut m = t.meta.take().map(|m| m.0).unwrap_or_default();
        m.insert("anthropic/maxResultSizeChars".into(), Value::from(most));
        t.meta = Some(MetaObject(m));
    }
}

/// The result contract of every tool, one Markdown table row each (the
/// generated part of `docs/RESULTS.md`, which a unit test keeps fresh):
/// its toolset, whether it sends `structuredContent` and an
/// `outputSchema`, its first text block, whether a second one can come,
/// and what a model reads under each client rule.
pub fn contract_table() -> String {
    let mut out = String::from(
        "| tool | toolset | structuredContent | outputSchema | first text block | second text block | structured-preferring client's model reads | text-only client's model reads |\n|---|---|---|---|---|---|---|---|\n",
    );
    for d in defs() {
        let schema = if d.sends_output {
            "fields and types"
        } else {
            "none"
        };
        let (first, second, text_view) = match d.text.shape {
            TextShape::String => (
                "the `result` string",
                "the other fields not quiet, when any",
                "the string, then the note when any",
            ),
            TextShape::List => (
                "the `result` list, bare",
                "`omitted` (and any other field), when any",
                "the list, then the note when any",
            ),
            TextShape::Object => ("the object as compact JSON", "never", "the whole object"),
        };
        let quiet = if d.text.quiet.is_empty() {
            String::new()
        } else {
            format!(
                " (quiet: {})",
                d.text
                    .quiet
                    .iter()
                    .map(|q| format!("`{q}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push_str(&format!(
            "| `{}` | {} | always | {schema} | {first} | {second}{quiet} | the object as compact JSON{} | {text_view} |\n",
            d.name,
            d.toolset.name(),
            if d.sized { ", within the budget or `max_bytes`" } else { "" },
        ));
    }
    out
}

/// The tools `policy` offers, in listing order.
pub fn catalog_for(policy: &Policy) -> Vec<Tool> {
    defs()
        .iter()
        .filter(|d| d.name != "list_hosts" && policy.offers(d.name, d.toolset, d.core))
        .map(tool)
        .collect()
}

/// [`catalog_for`] for a server with remote hosts: `list_hosts` too, and
/// every other tool's `host` argument, one of `names` (`None`: no hosts,
/// the plain catalog).
pub fn catalog_for_hosts(policy: &Policy, names: Option<&[String]>) -> Vec<Tool> {
    let Some(names) = names else {
        return catalog_for(policy);
    };
    defs()
        .iter()
        .filter(|d| policy.offers(d.name, d.toolset, d.core))
        .map(|d| {
            let mut t = tool(d);
            if d.name != "list_hosts" {
                hosts::add_host_arg(d.fenced, Arc::make_mut(&mut t.input_schema), names);
            }
            t
        })
        .collect()
}
