//! Calling the MCP tools from the command line, and saying what went wrong
//! in the command line's words.
//!
//! Every command runs through [`crate::mcp::tools::call`], the code the MCP
//! server runs. Its errors speak to a model: they name tool arguments
//! (`max_matched_lines_per_pane`) and other tools (`Call list_sessions…`).
//! [`ToolError::into_cli`] rewrites them at this boundary: arguments become
//! the flags that set them, tool names become commands, and suggestions
//! point at `tmuxwire panes`. Most bad input never reaches a tool: flags
//! are checked by clap, patterns are compiled here first, and `-t` is
//! resolved here (see [`super::target`]).

use serde_json::{Map, Value};

use crate::mcp;
use crate::tmux::Servers;

/// A failed tool call, as the tool reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    /// `_meta.error_type` (`NotFound`, `InvalidArgument`, `NoServer`, …).
    pub kind: String,
    /// The message, without the suggestion.
    pub message: String,
    /// `_meta.suggestion`.
    pub suggestion: Option<String>,
}

/// Tool names, and how the command line says what they were doing.
const TOOLS: &[(&str, &str)] = &[
    ("search_panes", "search"),
    ("capture_pane", "capture"),
    ("list_panes", "panes"),
    ("list_windows", "listing windows"),
    ("list_sessions", "listing sessions"),
    ("display_message", "reading the pane's state"),
    ("get_session_info", "finding the current session"),
    ("get_window_info", "finding the window"),
    ("get_pane_info", "finding the pane"),
    ("get_server_info", "asking the server"),
    ("snapshot_pane", "capture"),
    ("send_keys_batch", "send"),
    ("wait_for_text", "wait"),
    ("send_keys", "send"),
    ("capture_since", "wait"),
];

/// Tool arguments and the flags that set them.
const ARGUMENTS: &[(&str, &str)] = &[
    ("max_matched_lines_per_pane", "-m/--max-count"),
    ("content_start", "--start"),
    ("content_end", "--end"),
    ("max_lines", "--max-lines"),
    ("join_wrapped", "-J/--join"),
    ("match_case", "-s/--case-sensitive"),
    ("pane_id", "-t"),
    ("window_id", "-t"),
    ("window_index", "-t"),
    ("session_id", "-t"),
    ("session_name", "-t"),
    ("socket_name", "-L/--socket-name"),
];

/// Arguments named by a plain word, replaced only where a message starts
/// with them (`start is out of range …`): elsewhere the word is English.
const LEADING: &[(&str, &str)] = &[("start ", "--start "), ("end ", "--end ")];

pub use super::errors::{CliError, PANES_HINT};

/// Replaces whole words (runs of `[A-Za-z0-9_]`) found in `table`.
fn replace_words(s: &str, table: &[(&str, &str)]) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(is_word) {
        out.push_str(&rest[..i]);
        let word_len = rest[i..]
            .find(|c: char| !is_word(c))
            .unwrap_or(rest.len() - i);
        let word = &rest[i..i + word_len];
        match table.iter().find(|(w, _)| *w == word) {
            Some((_, to)) => out.push_str(to),
            None => out.push_str(word),
        }
        rest = &rest[i + word_len..];
    }
    out.push_str(rest);
    out
}

/// A tool's text in CLI words: argument names become flags, tool names
/// become what the command was doing, MCP-only phrases go.
pub fn cli_words(s: &str) -> String {
    let s = s
        .replace(", or null for no limit", "")
        .replace("; null: no limit", "")
        .replace("Retry the call", "Run the command again")
        .replace(
            "with socket_name, -L/--socket-name",
            "with -L/--socket-name",
        )
        .replace("regex=false", "no -e");
    let s = replace_words(&s, TOOLS);
    let s = replace_words(&s, ARGUMENTS);
    match LEADING.iter().find(|(w, _)| s.starts_with(w)) {
        Some((w, to)) => format!("{to}{}", &s[w.len()..]),
        None => s,
    }
}

impl ToolError {
    /// A tmux-layer error as a tool would report it (for commands that
    /// call [`crate::tmux::Tmux`] directly, such as `wait`).
    pub fn from_error(e: &crate::tmux::Error) -> ToolError {
        ToolError {
            kind: e.kind().name().to_string(),
            message: e.to_string(),
            suggestion: crate::mcp::errors::suggestion(e),
        }
    }

    /// This error for a person: see the module docs.
    pub fn into_cli(self) -> CliError {
        let message = cli_words(&self.message);
        let hint = match self.kind.as_str() {
            "NotFound" => Some(PANES_HINT.to_string()),
            "InvalidPattern" => Some(
                "Leave out -e/-E (or add -F) to search for the text literally, or fix the \
                 regex."
                    .to_string(),
            ),
            _ => self.suggestion.as_deref().map(cli_words),
        };
        CliError { message, hint }
    }
}

/// Runs tool `name` through the MCP tool code: its structured result, or
/// its error.
pub async fn call_tool(
    servers: &Servers,
    name: &str,
    args: Map<String, Value>,
) -> Result<Value, ToolError> {
    let r = mcp::tools::call(servers, name, args).await;
    if r.is_error != Some(true) {
        return Ok(r.structured_content.unwrap_or(Value::Null));
    }
    let text: Vec<String> = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    let text = text.join("\n");
    let meta = serde_json::to_value(&r)
        .ok()
        .and_then(|v| v.get("_meta").cloned())
        .unwrap_or(Value::Null);
    let suggestion = meta["suggestion"].as_str().map(str::to_string);
    let message = match &suggestion {
        Some(s) => text
            .strip_suffix(s.as_str())
            .map(|m| m.trim_end_matches('\n').to_string())
            .unwrap_or(text.clone()),
        None => text,
    };
    Err(ToolError {
        kind: meta["error_type"].as_str().unwrap_or("").to_string(),
        message,
        suggestion,
    })
}

/// [`call_tool`] with the error in CLI words.
pub async fn call(
    servers: &Servers,
    name: &str,
    args: Map<String, Value>,
) -> Result<Value, CliError> {
    call_tool(servers, name, args)
        .await
        .map_err(ToolError::into_cli)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of MCP that a CLI error must not contain.
    const MCP_WORDS: &[&str] = &[
        "max_matched_lines_per_pane",
        "content_start",
        "max_lines",
        "list_sessions",
        "list_panes",
        "list_windows",
        "capture_pane",
        "search_panes",
        "session_name",
        "session_id",
        "pane_id",
        "window_id",
        "socket_name",
        "regex=",
        "null",
        "Retry the call",
    ];

    fn clean(s: &str) {
        for w in MCP_WORDS {
            assert!(!s.contains(w), "{w:?} in {s:?}");
        }
    }

    #[test]
    fn words() {
        assert_eq!(
            replace_words("max_lines must be ≥ 1 (max_lines_x)", ARGUMENTS),
            "--max-lines must be ≥ 1 (max_lines_x)"
        );
        assert_eq!(
            cli_words("start is out of range (received -3000000000)"),
            "--start is out of range (received -3000000000)"
        );
        assert_eq!(
            cli_words("search_panes: tmux did not answer within 5s"),
            "search: tmux did not answer within 5s"
        );
        // Text that merely contains a name is left alone, and so are
        // plain words that are arguments only at the start.
        assert_eq!(cli_words("the pane_ids_x"), "the pane_ids_x");
        assert_eq!(cli_words("the end of the start"), "the end of the start");
        assert_eq!(cli_words("Start tmux"), "Start tmux");
    }

    #[test]
    fn tool_errors_in_cli_words() {
        // What the tools say (see src/tmux/error.rs and src/mcp/args.rs).
        let cases = [
            ToolError {
                kind: "InvalidArgument".into(),
                message: "max_matched_lines_per_pane must be a positive number (received 0)".into(),
                suggestion: Some("Expected max_matched_lines_per_pane ≥ 1.".into()),
            },
            ToolError {
                kind: "InvalidArgument".into(),
                message: "max_lines must be a positive number (received -1)".into(),
                suggestion: Some("Expected max_lines ≥ 1, or null for no limit.".into()),
            },
            ToolError {
                kind: "NotFound".into(),
                message: "can't find pane: %99".into(),
                suggestion: Some(
                    "Call list_sessions / list_windows / list_panes to discover valid ids, and \
                     target by id ($N session, @N window, %N pane)."
                        .into(),
                ),
            },
            ToolError {
                kind: "NoServer".into(),
                message: "no tmux server running on /tmp/x".into(),
                suggestion: Some(
                    "Start tmux on that socket, or point tmuxwire at the right one with \
                     socket_name, -L/--socket-name, -S/--socket-path, or \
                     TMUXWIRE_SOCKET_NAME/TMUXWIRE_SOCKET_PATH (tried /tmp/x)."
                        .into(),
                ),
            },
            ToolError {
                kind: "ConnectionError".into(),
                message: "capture_pane: connection closed".into(),
                suggestion: Some("Retry the call; tmuxwire opens a new connection to tmux.".into()),
            },
            ToolError {
                kind: "InvalidPattern".into(),
                message: "invalid regex pattern: x".into(),
                suggestion: Some(
                    "Pass regex=false to search for the text literally, or fix the pattern.".into(),
                ),
            },
        ];
        for e in cases {
            let cli = e.clone().into_cli().to_string();
            clean(&cli);
            assert!(!cli.is_empty());
        }
        let e = cases_first().into_cli();
        assert_eq!(
            e.message,
            "-m/--max-count must be a positive number (received 0)"
        );
        assert_eq!(e.hint.as_deref(), Some("Expected -m/--max-count ≥ 1."));
    }

    fn cases_first() -> ToolError {
        ToolError {
            kind: "InvalidArgument".into(),
            message: "max_matched_lines_per_pane must be a positive number (received 0)".into(),
            suggestion: Some("Expected max_matched_lines_per_pane ≥ 1.".into()),
        }
    }
}
