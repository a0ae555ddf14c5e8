//! The tools that follow a pane on the mirror: `wait_for_text` and
//! `capture_since` (inspect), `run_command` (execute). Each wakes on the
//! pane's `%output` instead of polling (see [`crate::tmux::op::follow`]);
//! the argument names, defaults and result fields are libtmux-mcp's
//! (reference-tools.md §2), with tmuxwire's additions noted on the result
//! types. The waits report progress to the client and clamp their timeout
//! to the wait ceiling ([`super::wait_ceiling`]), which is there for
//! models; their rows run with the call's progress sink ([`reporting`]).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Def, OPEN, READ, bare_output, targeting, tool_args, wait_ceiling};
use crate::mcp::args;
use crate::mirror::Progress;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::Error;
use crate::tmux::follow::{SinceCursor, check_command};
use crate::tmux::op::commands::WaitForCommandRequest;
use crate::tmux::op::follow::{CaptureSinceRequest, RunCommandRequest, WaitForTextRequest};
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

/// `wait_for_command`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitForCommandArgs {
    /// Seconds, at most the wait ceiling.
    #[serde(default = "default_run_timeout")]
    timeout: f64,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
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

tool_args!(WaitForTextArgs => WaitForTextRequest, |a| {
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
    Ok(WaitForTextRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        patterns,
        stop,
        timeout,
        progress: None,
    })
});

tool_args!(WaitForCommandArgs => WaitForCommandRequest, |a| {
    Ok(WaitForCommandRequest {
        timeout: timeout_arg(a.timeout)?,
        pane: targeting!(a, pane_id, window_id).selector()?,
        progress: None,
    })
});

impl super::Reports for WaitForCommandRequest {
    fn reporting_to(self, progress: Option<Progress>) -> Self {
        WaitForCommandRequest { progress, ..self }
    }
}

tool_args!(CaptureSinceArgs => CaptureSinceRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?.unwrap_or(usize::MAX);
    let max_bytes = args::positive("max_bytes", a.max_bytes)?.unwrap_or(usize::MAX);
    let cursor = a.cursor.as_deref().map(SinceCursor::decode).transpose()?;
    let pane = targeting!(a, pane_id, window_id).selector()?;
    Ok(CaptureSinceRequest::new(pane, cursor, max_lines, max_bytes))
});

tool_args!(RunCommandArgs => RunCommandRequest, |a| {
    let timeout = timeout_arg(a.timeout)?;
    let suppress_history = a.suppress_history.unwrap_or_else(suppress_history_default);
    check_command(&a.command, suppress_history)?;
    let max_lines = args::positive("max_lines", a.max_lines)?;
    Ok(RunCommandRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        command: a.command,
        timeout,
        max_lines,
        suppress_history,
        interrupt_on_timeout: a.interrupt_on_timeout,
        progress: None,
    })
});

impl super::Reports for WaitForTextRequest {
    fn reporting_to(self, progress: Option<Progress>) -> Self {
        WaitForTextRequest { progress, ..self }
    }
}

impl super::Reports for RunCommandRequest {
    fn reporting_to(self, progress: Option<Progress>) -> Self {
        RunCommandRequest { progress, ..self }
    }
}

/// The inspect tools of this module, in listing order.
pub(super) fn inspect_defs() -> Vec<Def> {
    vec![
        bare_output(super::reporting::<WaitForTextArgs>(
            "wait_for_text",
            "Wait for Text",
            READ,
            "Wait for a new line matching patterns (never the echo of typed input) or any output. outcome: matched, any_output, stopped, alternate_screen, timeout, exited, pane_gone",
        ))
        .mark_self_bounded(),
        bare_output(super::reporting::<WaitForCommandArgs>(
            "wait_for_command",
            "Wait for Command",
            READ,
            "Wait for the pane's next marked command to finish (OSC 133/633 shell integration; \
             typed by anyone): command with exit_status, tail. outcome: finished, \
             password_prompt, awaiting_input, exited, pane_gone, timeout.",
        ))
        .mark_self_bounded(),
        bare_output(super::row::<CaptureSinceArgs>(
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
        bare_output(super::reporting::<RunCommandArgs>(
            "run_command",
            "Run Command",
            OPEN,
            "Run a command at a pane's shell prompt in a subshell (fish: begin/end) and wait: \
         exit_status and only its own output lines.",
        ))
        .mark_self_bounded(),
    ]
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
