//! `tmuxwire panes` and `tmuxwire capture`.

use std::process::ExitCode;

use serde_json::{Map, Value, json};

use super::output::{Out, escape_field, thousands};
use super::target::{self, Level, World};
use super::tool::{self, CliError};
use super::{CaptureArgs, LineArg};
use crate::tmux::Servers;

/// The `start` that means "the oldest history line" (`--start -`): tmux
/// clamps any number beyond the history to its top. Not `i32::MIN`, whose
/// negation overflows in tmux's range check.
pub const HISTORY_TOP: i64 = -(i32::MAX as i64);

/// `--start` as the tool's `start`: `-` is the top of the history.
pub fn start_arg(v: Option<LineArg>) -> Value {
    match v {
        Some(LineArg::At(n)) => json!(n),
        Some(LineArg::Edge) => json!(HISTORY_TOP),
        None => Value::Null,
    }
}

/// `--end` as the tool's `end`: `-` is the bottom of the screen, the
/// tool's default.
pub fn end_arg(v: Option<LineArg>) -> Value {
    match v {
        Some(LineArg::At(n)) => json!(n),
        Some(LineArg::Edge) | None => Value::Null,
    }
}

/// One `panes` line: `%N\tsession:window.pane\tWxH\tcommand\tpath`, every
/// field escaped ([`escape_field`]) so that it is one line.
pub fn pane_line(p: &Value) -> String {
    let s = |k: &str| match &p[k] {
        Value::String(s) => escape_field(s).into_owned(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    format!(
        "{}\t{}:{}.{}\t{}x{}\t{}\t{}",
        s("pane_id"),
        s("session_name"),
        s("window_index"),
        s("pane_index"),
        s("pane_width"),
        s("pane_height"),
        s("pane_current_command"),
        s("pane_current_path"),
    )
}

/// Runs `panes`.
///
/// # Errors
///
/// A missing target, the tools' errors.
pub async fn panes(servers: &Servers, target: Option<&str>) -> Result<ExitCode, CliError> {
    let (world, rows) = match target {
        Some(t) => {
            let (world, scope) = target::resolve_arg(servers, t).await?;
            (world, scope.rows)
        }
        None => {
            let world = World::fetch(servers, None).await?;
            let all = (0..world.rows.len()).collect();
            (world, all)
        }
    };
    let mut out = Out::new();
    for i in rows {
        out.line(&pane_line(&world.values[i]));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `capture`.
///
/// # Errors
///
/// A missing target, the tools' errors.
pub async fn capture(servers: &Servers, a: CaptureArgs) -> Result<ExitCode, CliError> {
    let mut args = Map::new();
    if let Some(t) = &a.target {
        let (_, scope) = target::resolve_arg(servers, t).await?;
        match scope.level {
            Level::Pane => args.insert("pane_id".into(), json!(scope.pane_id)),
            Level::Window => args.insert("window_id".into(), json!(scope.window_id)),
            Level::Session => args.insert("session_id".into(), json!(scope.session_id)),
        };
    }
    args.insert("start".into(), start_arg(a.start));
    args.insert("end".into(), end_arg(a.end));
    args.insert("join_wrapped".into(), json!(a.join));
    args.insert("max_lines".into(), json!(a.max_lines));
    let v = tool::call(servers, "capture_pane", args).await?;
    let text = v["result"].as_str().unwrap_or("");
    let lines = v["lines"].as_u64().unwrap_or(0);
    let truncated = v["truncated_lines"].as_u64().unwrap_or(0);
    // The tool puts "[... truncated K lines ...]" first; that is a note.
    let body = if truncated > 0 {
        text.split_once('\n').map_or("", |(_, rest)| rest)
    } else {
        text
    };
    let mut out = Out::new();
    if lines > 0 {
        out.line(body);
    }
    out.flush();
    // --max-lines asked for the cut; the 8 MiB cap did not.
    let by_size = truncated > 0 && a.max_lines.is_none_or(|m| lines < m);
    if by_size {
        eprintln!(
            "tmuxwire: {} older lines not shown: a capture holds at most 8 MiB of text; capture \
             a narrower range with --start/--end to see them",
            thousands(truncated as usize)
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_args() {
        assert_eq!(start_arg(Some(LineArg::Edge)), json!(-2147483647));
        assert_eq!(start_arg(Some(LineArg::At(-5))), json!(-5));
        assert_eq!(start_arg(None), Value::Null);
        assert_eq!(end_arg(Some(LineArg::Edge)), Value::Null);
        assert_eq!(end_arg(Some(LineArg::At(3))), json!(3));
    }

    #[test]
    fn one_line_per_pane() {
        // C25: a directory name with a line break.
        let p = json!({
            "pane_id": "%1", "session_name": "base", "window_index": "1", "pane_index": "0",
            "pane_width": "80", "pane_height": "24", "pane_current_command": "bash",
            "pane_current_path": "/tmp/evil\ndir\\x",
        });
        assert_eq!(
            pane_line(&p),
            "%1\tbase:1.0\t80x24\tbash\t/tmp/evil\\ndir\\\\x"
        );
    }
}
