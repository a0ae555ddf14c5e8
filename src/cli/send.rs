//! `tmuxwire send`: type text into a pane, exactly as given, and press
//! keys by name. Runs `send_keys_batch` (one round trip): the text first
//! (always literal: `Up` is typed as two letters), then Enter unless `-n`,
//! then each `-k KEY` in order. Text read from stdin (`-`) loses one line
//! break at its end ([`stdin_text`]): `echo cmd | tmuxwire send -` presses
//! Enter once, not twice.

use std::io::Read as _;
use std::process::ExitCode;

use serde_json::{Map, Value, json};

use super::SendArgs;
use super::target::{self, Level};
use super::tool::{self, CliError};
use crate::tmux::Servers;
use crate::tmux::input::is_key_name;

/// The `send_keys_batch` operations `a` asks for (text read already).
pub fn operations(text: Option<&str>, keys: &[String], no_enter: bool) -> Vec<Value> {
    let mut ops = Vec::new();
    if let Some(t) = text {
        ops.push(json!({"keys": t, "literal": true, "enter": !no_enter}));
    }
    for k in keys {
        ops.push(json!({"keys": k, "literal": false, "enter": false}));
    }
    ops
}

/// The text to type for what stdin held: without one final line break
/// (`\n` or `\r\n`), which ends the text rather than being part of it
/// (as a shell's `$(cat)` drops it); line breaks inside are kept and typed.
pub fn stdin_text(mut text: String) -> String {
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    text
}

/// Runs `send`.
///
/// # Errors
///
/// Nothing to send, a `-k` value that is not a key name, a missing
/// target, the tool's errors.
pub async fn run(servers: &Servers, a: SendArgs) -> Result<ExitCode, CliError> {
    if let Some(bad) = a.keys.iter().find(|k| !is_key_name(k)) {
        return Err(CliError::new(format!("-k {bad:?}: not a key name")).hint(
            "Keys are names such as Enter, C-c, Up, Escape, F5, M-x or C-Space; type text as \
             TEXT instead.",
        ));
    }
    let text = match a.text.as_deref() {
        Some("-") => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| CliError::new(format!("reading stdin: {e}")))?;
            let text = String::from_utf8(buf).map_err(|_| {
                CliError::new("stdin is not UTF-8 text").hint("send types UTF-8 text only.")
            })?;
            Some(stdin_text(text))
        }
        other => other.map(str::to_string),
    };
    if text.is_none() && a.keys.is_empty() {
        return Err(CliError::new("nothing to send: give TEXT, or -k KEY")
            .hint("Example: tmuxwire send -t %3 'make test'   or   tmuxwire send -t %3 -k C-c"));
    }
    let mut op_target = Map::new();
    if let Some(t) = &a.target {
        let (_, scope) = target::resolve_arg(servers, t).await?;
        match scope.level {
            Level::Pane => op_target.insert("pane_id".into(), json!(scope.pane_id)),
            Level::Window => op_target.insert("window_id".into(), json!(scope.window_id)),
            Level::Session => op_target.insert("session_id".into(), json!(scope.session_id)),
        };
    }
    let ops: Vec<Value> = operations(text.as_deref(), &a.keys, a.no_enter)
        .into_iter()
        .map(|mut op| {
            if let Value::Object(m) = &mut op {
                m.extend(op_target.clone());
            }
            op
        })
        .collect();
    let mut args = Map::new();
    args.insert("operations".into(), Value::Array(ops));
    args.insert("on_error".into(), json!("stop"));
    let v = tool::call(servers, "send_keys_batch", args).await?;
    if let Some(bad) = v["results"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["success"] != json!(true)))
    {
        let msg = bad["error"].as_str().unwrap_or("sending failed");
        let first = msg.lines().next().unwrap_or(msg);
        return Err(CliError::new(first.to_string()).hint(tool::PANES_HINT));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops() {
        let keys = vec!["C-c".to_string()];
        assert_eq!(
            operations(Some("ls"), &[], false),
            vec![json!({"keys": "ls", "literal": true, "enter": true})]
        );
        assert_eq!(
            operations(Some("ls"), &keys, true),
            vec![
                json!({"keys": "ls", "literal": true, "enter": false}),
                json!({"keys": "C-c", "literal": false, "enter": false})
            ]
        );
        assert_eq!(operations(None, &keys, false).len(), 1);
    }

    #[test]
    fn one_final_line_break_goes() {
        let t = |s: &str| stdin_text(s.to_string());
        assert_eq!(t("make test\n"), "make test");
        assert_eq!(t("make test\r\n"), "make test");
        assert_eq!(t("a\nb\n"), "a\nb");
        assert_eq!(t("a\n\n"), "a\n");
        assert_eq!(t("no break"), "no break");
        assert_eq!(t("\n"), "");
        assert_eq!(t(""), "");
    }
}
