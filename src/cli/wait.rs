//! `tmuxwire wait`: block until a pane prints a line that matches (or any
//! output), woken by the pane's `%output` through the mirror, as the MCP
//! tool `wait_for_text` does (the same code, [`Tmux::wait_for_text`],
//! called directly: the tool clamps its timeout to the wait ceiling, 30 s
//! by default, which is there for models; a person's shell waits as long
//! as it is told, up to [`MAX_TIMEOUT`]). Prints the matching lines (or
//! the tail) with control characters escaped; the exit status says how
//! the wait ended.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::WaitArgs;
use super::output::escape_text;
use super::target::{self, Level};
use super::tool::{self, CliError};
use crate::control::PaneId;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::Servers;
use crate::tmux::follow::WaitRequest;

/// Exit status when a `--stop` pattern ended the wait.
const STOPPED: u8 = 3;

/// The longest `--timeout`, in seconds: a year (365 days).
pub const MAX_TIMEOUT: f64 = 31_536_000.0;

/// `--timeout` as a duration.
///
/// # Errors
///
/// Not a positive number of seconds, or over [`MAX_TIMEOUT`].
pub fn timeout(secs: f64) -> Result<Duration, CliError> {
    if !secs.is_finite() || secs <= 0.0 {
        return Err(CliError::new(format!(
            "--timeout {secs}: must be a positive number of seconds"
        )));
    }
    if secs > MAX_TIMEOUT {
        return Err(CliError::new(format!(
            "--timeout {secs}: at most {MAX_TIMEOUT} seconds (a year)"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Compiles `texts` as `a` says (`--stop` or the patterns).
fn compile(texts: &[String], a: &WaitArgs, what: &str) -> Result<Vec<Arc<Pattern>>, CliError> {
    let opts = PatternOptions {
        regex: a.regex,
        case_sensitive: !a.ignore_case,
    };
    texts
        .iter()
        .map(|t| {
            if t.is_empty() {
                return Err(
                    CliError::new(format!("{what}: a pattern must not be empty"))
                        .hint("Leave PATTERN out to wait for any new output."),
                );
            }
            Pattern::new(t, opts).map(Arc::new).map_err(|e| {
                let err = CliError::new(format!("{what} {t:?}: {e}"));
                if a.regex {
                    err.hint("Leave out -e (or add -F) to wait for the text literally.")
                } else {
                    err
                }
            })
        })
        .collect()
}

/// Runs `wait`.
///
/// # Errors
///
/// A bad pattern or timeout, a missing target, the tool's errors.
pub async fn run(servers: &Servers, a: WaitArgs) -> Result<ExitCode, CliError> {
    let timeout = timeout(a.timeout)?;
    let patterns = (!a.patterns.is_empty())
        .then(|| compile(&a.patterns, &a, "PATTERN"))
        .transpose()?;
    let stop = compile(&a.stop, &a, "--stop")?;
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
    // The pane, as the tool would pick it (a window or session: its
    // active pane).
    let info = tool::call(servers, "get_pane_info", target_args).await?;
    let pane: PaneId = info["pane_id"]
        .as_str()
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| CliError::new("tmux named no pane to wait on"))?;
    let req = WaitRequest {
        patterns,
        stop,
        timeout,
        progress: None,
    };
    let r = servers
        .default_server()
        .wait_for_text(pane, &req)
        .await
        .map_err(|e| tool::ToolError::from_error(&e).into_cli())?;
    let r = serde_json::to_value(&r).unwrap_or(Value::Null);
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
