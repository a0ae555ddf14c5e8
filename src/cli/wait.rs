//! `tmuxwire wait`: block until a pane prints a line that matches (or any
//! output), woken by the pane's `%output` through the mirror, as the MCP
//! tool `wait_for_text` does (the same code). Prints the matching lines
//! (or the tail) with control characters escaped; the exit status says
//! how the wait ended.

use std::io::Write as _;
use std::process::ExitCode;

use serde_json::{Map, Value, json};

use super::WaitArgs;
use super::output::escape_text;
use super::target::{self, Level};
use super::tool::{self, CliError};
use crate::tmux::Servers;

/// Exit status when a `--stop` pattern ended the wait.
const STOPPED: u8 = 3;

/// The `wait_for_text` arguments `a` asks for (target resolved apart).
pub fn arguments(a: &WaitArgs) -> Map<String, Value> {
    let mut args = Map::new();
    if !a.patterns.is_empty() {
        args.insert("patterns".into(), json!(a.patterns));
    }
    if !a.stop.is_empty() {
        args.insert("stop".into(), json!(a.stop));
    }
    args.insert("regex".into(), json!(a.regex));
    args.insert("match_case".into(), json!(!a.ignore_case));
    args.insert("timeout".into(), json!(a.timeout));
    args
}

/// Runs `wait`.
///
/// # Errors
///
/// A bad pattern or timeout, a missing target, the tool's errors.
pub async fn run(servers: &Servers, a: WaitArgs) -> Result<ExitCode, CliError> {
    if !a.timeout.is_finite() || a.timeout <= 0.0 {
        return Err(CliError::new(format!(
            "--timeout {}: must be a positive number of seconds",
            a.timeout
        )));
    }
    let mut args = arguments(&a);
    let mut target_args = Map::new();
    if let Some(t) = &a.target {
        let (_, scope) = target::resolve_arg(servers, t).await?;
        match scope.level {
            Level::Pane => target_args.insert("pane_id".into(), json!(scope.pane_id)),
            Level::Window => target_args.insert("window_id".into(), json!(scope.window_id)),
            Level::Session => target_args.insert("session_id".into(), json!(scope.session_id)),
        };
    }
    if let Some(text) = &a.send {
        // One pane for all three calls; its copy exists before the keys go,
        // so the wait counts the output from where the text was typed.
        let info = tool::call(servers, "get_pane_info", target_args.clone()).await?;
        let pane = json!(info["pane_id"]);
        target_args = Map::new();
        target_args.insert("pane_id".into(), pane.clone());
        tool::call(servers, "capture_since", target_args.clone()).await?;
        let mut send = target_args.clone();
        send.insert("keys".into(), json!(text));
        send.insert("literal".into(), json!(true));
        send.insert("enter".into(), json!(true));
        tool::call(servers, "send_keys", send).await?;
    }
    args.extend(target_args);
    let r = tool::call(servers, "wait_for_text", args).await?;
    if !a.quiet {
        let outcome = r["outcome"].as_str().unwrap_or("");
        let lines = if a.tail || r["matched_lines"].as_array().is_none_or(Vec::is_empty) {
            &r["tail"]
        } else {
            &r["matched_lines"]
        };
        let mut out = std::io::stdout().lock();
        let show = a.tail || matches!(outcome, "matched" | "any_output" | "stopped");
        for l in lines.as_array().into_iter().flatten().filter(|_| show) {
            let _ = writeln!(out, "{}", escape_text(l.as_str().unwrap_or("")));
        }
        let pane = r["pane_id"].as_str().unwrap_or("the pane");
        let what = if a.patterns.is_empty() {
            "no new output"
        } else {
            "no match"
        };
        if r["pane_dead"] == json!(true) && !matches!(outcome, "matched" | "any_output") {
            eprintln!("tmuxwire: {what} in {pane}: its program exited");
        } else if outcome == "alternate_screen" {
            eprintln!(
                "tmuxwire: {what} in {pane} within {} s: it shows a full-screen program, which \
                 adds no lines (see tmuxwire capture -t {pane})",
                r["effective_timeout"]
            );
        } else if outcome == "timeout" {
            eprintln!(
                "tmuxwire: {what} in {pane} within {} s",
                r["effective_timeout"]
            );
        }
    }
    Ok(match r["outcome"].as_str() {
        Some("matched" | "any_output") => ExitCode::SUCCESS,
        Some("stopped") => ExitCode::from(STOPPED),
        _ => ExitCode::from(1),
    })
}
