//! `tmuxwire send`: type text into a pane, exactly as given, and press
//! keys by name. Runs the `send_keys_batch` operation
//! ([`SendKeysBatchRequest`], one round trip): the text first
//! (always literal: `Up` is typed as two letters), then Enter unless `-n`,
//! then each `-k KEY` in order. Text read from stdin (`-`) loses one line
//! break at its end ([`stdin_text`]): `echo cmd | tmuxwire send -` presses
//! Enter once, not twice.

use std::io::Read as _;
use std::process::ExitCode;

use super::SendArgs;
use super::errors::CliError;
use super::target;
use crate::tmux::input::is_key_name;
use crate::tmux::keys::Keys;
use crate::tmux::op::typing::{BatchSent, SendKeysBatchRequest};
use crate::tmux::op::{self, Limit};
use crate::tmux::{Selector, Servers};

/// The `send_keys_batch` operations `a` asks for (text read already).
pub fn operations(text: Option<&str>, keys: &[String], no_enter: bool) -> Vec<Keys> {
    let mut ops = Vec::new();
    if let Some(t) = text {
        ops.push(Keys {
            keys: t.to_string(),
            literal: true,
            enter: !no_enter,
            suppress_history: false,
        });
    }
    for k in keys {
        ops.push(Keys {
            keys: k.clone(),
            literal: false,
            enter: false,
            suppress_history: false,
        });
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
    let pane = match &a.target {
        Some(t) => target::resolve_arg(servers, t).await?.1.selector(),
        None => Selector::default(),
    };
    let ops = operations(text.as_deref(), &a.keys, a.no_enter)
        .into_iter()
        .map(|k| (pane.clone(), k))
        .collect();
    // A person at the CLI names the pane and the text: typed as told, as
    // `tmux send-keys` does (the password guard is the MCP tools').
    let req = SendKeysBatchRequest {
        allow_password_input: true,
        ..SendKeysBatchRequest::new(ops, true, None)?
    };
    let BatchSent(sent) = op::run(servers.default_server(), req, Limit::NONE).await?;
    match sent.into_iter().find_map(|s| s.result.err()) {
        Some(e) => Err(CliError::from(e)),
        None => Ok(ExitCode::SUCCESS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops() {
        let keys = vec!["C-c".to_string()];
        let k = |keys: &str, literal, enter| Keys {
            keys: keys.into(),
            literal,
            enter,
            suppress_history: false,
        };
        assert_eq!(operations(Some("ls"), &[], false), [k("ls", true, true)]);
        assert_eq!(
            operations(Some("ls"), &keys, true),
            [k("ls", true, false), k("C-c", false, false)]
        );
        assert_eq!(operations(None, &keys, false).len(), 1);
    }

    #[test]
    fn one_final_line_break_goes() {
        let t = |s: &str| stdin_text(s.to_string());
        for (typed, sent) in [
            ("make test\n", "make test"),
            ("make test\r\n", "make test"),
            ("a\nb\n", "a\nb"),
            ("a\n\n", "a\n"),
            ("no break", "no break"),
            ("\n", ""),
            ("", ""),
        ] {
            assert_eq!(t(typed), sent, "{typed:?}");
        }
    }
}
