//! The tools that follow a pane on the mirror: `wait_for_text` and
//! `capture_since` (inspect), `run_command` (execute). Each wakes on the
//! pane's `%output` instead of polling (see [`crate::tmux::follow`]); the
//! argument names, defaults and result fields are libtmux-mcp's
//! (reference-tools.md §2), with tmuxwire's additions noted on the result
//! types.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::manage::wait_ceiling;
use super::{Ctx, Def, OPEN, READ, bare_output, def, object, parse, targeting};
use crate::control::{PaneId, Target};
use crate::mcp::args;
use crate::mcp::budget::json_len;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::follow::{RunRequest, SinceCursor, WaitRequest};
use crate::tmux::{Error, Tmux};

/// `wait_for_text`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitForTextArgs {
    /// Any one matches; null: any new output.
    patterns: Option<Vec<String>>,
    /// End the wait (outcome stopped).
    stop: Option<Vec<String>>,
    /// Regexes.
    #[serde(default)]
    regex: bool,
    /// Case-sensitive.
    #[serde(default)]
    match_case: bool,
    /// Seconds, at most the wait ceiling.
    #[serde(default = "default_wait_timeout")]
    timeout: f64,
    interval: Option<f64>,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

fn default_wait_timeout() -> f64 {
    8.0
}

/// `capture_since`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CaptureSinceArgs {
    /// From the last call; null: start.
    cursor: Option<String>,
    /// The newest kept; null: no limit.
    #[serde(default = "default_since_lines")]
    max_lines: Option<i64>,
    /// The newest kept; null: no limit.
    #[serde(default = "default_since_bytes")]
    max_bytes: Option<i64>,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

#[allow(clippy::unnecessary_wraps)]
fn default_since_lines() -> Option<i64> {
    Some(500)
}

#[allow(clippy::unnecessary_wraps)]
fn default_since_bytes() -> Option<i64> {
    Some(128_000)
}

/// `run_command`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RunCommandArgs {
    /// One shell command line.
    command: String,
    /// Seconds, at most the wait ceiling.
    #[serde(default = "default_run_timeout")]
    timeout: f64,
    /// Keep the last N output lines.
    max_lines: Option<i64>,
    /// Keep out of shell history (one line only).
    suppress_history: Option<bool>,
    /// Press C-c on timeout.
    #[serde(default)]
    interrupt_on_timeout: bool,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

fn default_run_timeout() -> f64 {
    30.0
}

/// `run_command`'s default for `suppress_history`: libtmux-mcp's
/// `LIBTMUX_SUPPRESS_HISTORY` (`0` turns it off).
fn suppress_history_default() -> bool {
    std::env::var("LIBTMUX_SUPPRESS_HISTORY").map_or(true, |v| v.trim() != "0")
}

/// The inspect tools of this module, in listing order.
pub(super) fn inspect_defs() -> Vec<Def> {
    vec![
        bare_output(
            def::<WaitForTextArgs, crate::tmux::follow::WaitForTextResult>(
                "wait_for_text",
                "Wait for Text",
                READ,
                "Wait for a new line matching patterns (never the echo of typed input), or any output; woken by output. outcome: matched, any_output, stopped, alternate_screen, timeout.",
            ),
        )
        .mark_self_bounded(),
        bare_output(def::<
            CaptureSinceArgs,
            crate::tmux::follow::CaptureSinceResult,
        >(
            "capture_since",
            "Capture Since",
            READ,
            "New logical lines of a pane since cursor, each once; pass the returned cursor back. lines_missed: history trimmed or cleared.",
        )),
    ]
}

/// The execute tools of this module.
pub(super) fn execute_defs() -> Vec<Def> {
    vec![
        bare_output(
            def::<RunCommandArgs, crate::tmux::follow::RunCommandResult>(
                "run_command",
                "Run Command",
                OPEN,
                "Run a command at a pane's shell prompt, in a subshell, and wait: exit_status and \
         only its own output lines.",
            ),
        )
        .mark_self_bounded(),
    ]
}

/// Runs one of this module's tools.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let servers = ctx.servers;
    let budget = ctx.budget.map(crate::mcp::budget::Budget::bytes);
    match name {
        "wait_for_text" => {
            let a: WaitForTextArgs = parse(args)?;
            let timeout = timeout_arg(a.timeout)?;
            if let Some(i) = a.interval
                && (i.is_nan() || i < 0.01)
            {
                return Err(Error::invalid(
                    "interval",
                    format!("interval must be at least 0.01 s (received {i})"),
                    "seconds ≥ 0.01, or leave it out (tmuxwire does not poll)",
                ));
            }
            let opts = PatternOptions {
                regex: a.regex,
                case_sensitive: a.match_case,
            };
            let patterns = match &a.patterns {
                None => None,
                Some(p) if p.is_empty() => {
                    return Err(Error::invalid(
                        "patterns",
                        "patterns must be a non-empty list, or null to wait for any new output",
                        "[\"text\", ...] or null",
                    ));
                }
                Some(p) => Some(compile("patterns", p, opts)?),
            };
            let stop = compile("stop", a.stop.as_deref().unwrap_or_default(), opts)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            let pane = pane_of(&t, &target).await?;
            let req = WaitRequest {
                patterns,
                stop,
                timeout,
                progress: ctx.progress.clone(),
            };
            Ok(object(&t.wait_for_text(pane, &req).await?))
        }
        "capture_since" => {
            let a: CaptureSinceArgs = parse(args)?;
            let max_lines = args::positive("max_lines", a.max_lines)?.unwrap_or(usize::MAX);
            let max_bytes = args::positive("max_bytes", a.max_bytes)?.unwrap_or(usize::MAX);
            let cursor = a.cursor.as_deref().map(SinceCursor::decode).transpose()?;
            let mut targeting = targeting!(a, pane_id, window_id);
            let from_cursor = cursor.as_ref().map(|c| Some(c.pane.to_string()));
            if let Some(p) = &from_cursor
                && a.pane_id.is_none()
                && a.window_id.is_none()
                && a.session_id.is_none()
                && a.session_name.is_none()
            {
                targeting.pane_id = p;
            }
            let (t, target) = targeting.pane(servers).await?;
            let pane = pane_of(&t, &target).await?;
            // The byte limit also keeps the answer within the response budget
            // (escaping can make a line's JSON longer than its text; the loop
            // below makes sure).
            let cap = budget.map_or(usize::MAX, |b| b.saturating_sub(4096) / 2);
            let mut r = t
                .capture_since(pane, cursor.as_ref(), max_lines, max_bytes.min(cap))
                .await?;
            if let Some(b) = budget {
                while json_len(&r) > b && !r.lines.is_empty() {
                    let n = r.lines.len().div_ceil(8);
                    for l in r.lines.drain(..n) {
                        r.truncated_bytes += l.len();
                        r.truncated_lines += 1;
                    }
                    r.truncated = true;
                }
            }
            Ok(object(&r))
        }
        "run_command" => {
            let a: RunCommandArgs = parse(args)?;
            let timeout = timeout_arg(a.timeout)?;
            let suppress_history = a.suppress_history.unwrap_or_else(suppress_history_default);
            crate::tmux::follow::check_command(&a.command, suppress_history)?;
            let max_lines = args::positive("max_lines", a.max_lines)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            let pane = pane_of(&t, &target).await?;
            let req = RunRequest {
                command: a.command,
                timeout,
                max_lines,
                suppress_history,
                interrupt_on_timeout: a.interrupt_on_timeout,
                progress: ctx.progress.clone(),
            };
            let mut r = t.run_command(pane, &req).await?;
            if let Some(b) = budget {
                while json_len(&r) > b && !r.output.is_empty() {
                    let n = r.output.len().div_ceil(8);
                    r.output.drain(..n);
                    r.output_truncated_lines += n;
                    r.output_truncated = true;
                }
            }
            Ok(object(&r))
        }
        other => Ok(super::unknown_tool(other)),
    }
}

/// A wait's timeout argument: positive seconds, clamped to the ceiling
/// ([`wait_ceiling`]).
fn timeout_arg(secs: f64) -> Result<Duration, Error> {
    if !secs.is_finite() || secs <= 0.0 {
        return Err(Error::invalid(
            "timeout",
            format!("timeout must be positive (received {secs})"),
            "seconds > 0",
        ));
    }
    Ok(Duration::from_secs_f64(secs.min(wait_ceiling())))
}

/// Compiles each of `texts` (none may be empty).
fn compile(
    arg: &'static str,
    texts: &[String],
    opts: PatternOptions,
) -> Result<Vec<Arc<Pattern>>, Error> {
    texts
        .iter()
        .map(|p| {
            if p.is_empty() {
                return Err(Error::invalid(
                    arg,
                    format!("{arg}: a pattern must be a non-empty string"),
                    "non-empty text",
                ));
            }
            Ok(Arc::new(Pattern::new(p, opts)?))
        })
        .collect()
}

/// The pane id of a resolved pane target (a window or session target:
/// its active pane, one round trip).
async fn pane_of(t: &Tmux, target: &Target) -> Result<PaneId, Error> {
    if let Target::Pane(p) = target {
        return Ok(*p);
    }
    let info = crate::tmux::op::info::pane_info(t, target).await?;
    info.pane_id
        .parse()
        .map_err(|_| Error::not_found(format!("can't find pane: {target}")))
}
