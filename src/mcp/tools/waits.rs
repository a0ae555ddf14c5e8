//! The tools that wait on a pane as the mirror sees it, or read it over
//! time: `wait_for_text`, `wait_for_command`, `wait_for_stable`,
//! `poll_events` and `capture_since` (inspect), `run_command` (execute).
//! Each wakes on the
//! pane's `%output` instead of polling (see [`crate::tmux::wait`]);
//! the argument names, defaults and result fields are libtmux-mcp's
//! (reference-tools.md §2), with tmuxwire's additions noted on the result
//! types. The waits report progress to the client and clamp their timeout
//! to the wait ceiling ([`super::wait_ceiling`]), which is there for
//! models; their rows run with the call's progress sink ([`reporting`]).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Def, OPEN, READ, tool_args, wait_ceiling};
use crate::events::{Cursor as EventCursor, Kind};
use crate::mcp::args;
use crate::mcp::targeting::{args, targeting};
use crate::mirror::Progress;
use crate::mirror::lines::Keep;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::Error;
use crate::tmux::op::commands::WaitForCommandRequest;
use crate::tmux::op::poll::PollEventsRequest;
use crate::tmux::op::run::RunCommandRequest;
use crate::tmux::op::shape::Shape;
use crate::tmux::op::since::CaptureSinceRequest;
use crate::tmux::op::stable::{ScreenMask, WaitForStableRequest};
use crate::tmux::op::text::WaitForTextRequest;
use crate::tmux::pane_text::{SinceCursor, check_command};
args! {
    /// `wait_for_text`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct WaitForTextArgs {
        /// Any one matches; null: any new output.
        pub patterns: Option<Vec<String>>,
        /// End the wait (outcome stopped).
        pub stop: Option<Vec<String>>,
        /// Regexes.
        #[serde(default)]
        pub regex: bool,
        /// Case-sensitive.
        #[serde(default)]
        pub match_case: bool,
        @timeout = "default_wait_timeout",
        pub interval: Option<f64>,
        @pane,
        @socket,
    }
}

fn default_wait_timeout() -> f64 {
    8.0
}

args! {
    /// `wait_for_command`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct WaitForCommandArgs {
        @timeout = "default_run_timeout",
        @pane,
        @socket,
    }
}

args! {
    /// `wait_for_stable`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct WaitForStableArgs {
        /// Screen unchanged this long, ms.
        #[serde(default = "default_stable_ms")]
        pub stable_ms: f64,
        @timeout = "default_run_timeout",
        /// Screen rows left out: 0 top, -1 bottom.
        pub mask_rows: Option<Vec<i64>>,
        /// Regexes cut out of rows (spinner, timer).
        pub mask_patterns: Option<Vec<String>>,
        /// Only a change after the call counts.
        #[serde(default)]
        pub require_change: bool,
        /// Regex: end matched once shown.
        pub until_pattern: Option<String>,
        /// Regex: end matched once gone.
        pub absent_pattern: Option<String>,
        @pane,
        @socket,
    }
}

fn default_stable_ms() -> f64 {
    1500.0
}

args! {
    /// `poll_events`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct PollEventsArgs {
        pub cursor: Option<String>,
        pub kinds: Option<Vec<String>>,
        /// %N: follow, filter.
        pub panes: Option<Vec<String>>,
        /// $N: follow, filter.
        pub sessions: Option<Vec<String>>,
        // Follow every pane (the default without panes and sessions).
        #[serde(default)]
        pub follow_all: bool,
        /// Regexes: matched.
        pub patterns: Option<Vec<String>>,
        // Clamped to the wait ceiling, which the instructions explain once.
        #[serde(default)]
        pub timeout: f64,
        pub max_events: Option<i64>,
        @socket,
    }
}

args! {
    /// `capture_since`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct CaptureSinceArgs {
        /// From the last call; null: start.
        pub cursor: Option<String>,
        /// null: no limit.
        #[serde(default = "default_since_lines")]
        pub max_lines: Option<i64>,
        /// null: no limit.
        #[serde(default = "default_since_bytes")]
        pub max_bytes: Option<i64>,
        /// Over a limit: oldest (rest next call) or newest.
        pub keep: Option<String>,
        // As capture_pane's (the description says so).
        pub head: Option<i64>,
        pub tail: Option<i64>,
        pub grep: Option<String>,
        pub context: Option<i64>,
        @pane,
        @socket,
        @fenced,
    }
}

#[allow(clippy::unnecessary_wraps)]
fn default_since_lines() -> Option<i64> {
    Some(500)
}

#[allow(clippy::unnecessary_wraps)]
fn default_since_bytes() -> Option<i64> {
    Some(128_000)
}

args! {
    /// `run_command`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct RunCommandArgs {
        /// One shell command line.
        pub command: String,
        @timeout = "default_run_timeout",
        /// Keep the last N output lines.
        pub max_lines: Option<i64>,
        /// Keep out of shell history (one line only).
        pub suppress_history: Option<bool>,
        /// Press C-c on timeout.
        #[serde(default)]
        pub interrupt_on_timeout: bool,
        /// wrapped; marks: typed as is, shell's OSC 133 marks.
        pub mode: Option<String>,
        @pane,
        @socket,
    }
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
        redact: false,
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

tool_args!(WaitForStableArgs => WaitForStableRequest, |a| {
    let timeout = timeout_arg(a.timeout)?;
    if !a.stable_ms.is_finite() || !(10.0..=3_600_000.0).contains(&a.stable_ms) {
        return Err(Error::invalid(
            "stable_ms",
            format!("stable_ms must be 10 to 3600000 ms (received {})", a.stable_ms),
            "milliseconds, e.g. 1500",
        ));
    }
    let regex = PatternOptions::regex();
    // Regexes always (no `regex` flag here): an error names the argument.
    let compile_one = |arg: &'static str, p: &str| -> Result<Pattern, Error> {
        if p.is_empty() {
            return Err(Error::invalid(arg, format!("{arg}: a pattern must be a non-empty regex"), "a regex"));
        }
        Pattern::new(p, regex).map_err(|e| {
            Error::invalid(arg, format!("{arg}: {e}"), "a regex (Rust regex syntax)")
        })
    };
    let one = |arg: &'static str, p: &Option<String>| -> Result<Option<Pattern>, Error> {
        p.as_deref().map(|p| compile_one(arg, p)).transpose()
    };
    let patterns = a
        .mask_patterns
        .iter()
        .flatten()
        .map(|p| compile_one("mask_patterns", p))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(WaitForStableRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        stable: Duration::from_secs_f64(a.stable_ms / 1000.0),
        timeout,
        mask: ScreenMask {
            rows: a.mask_rows.clone().unwrap_or_default(),
            patterns,
        },
        require_change: a.require_change,
        until: one("until_pattern", &a.until_pattern)?,
        absent: one("absent_pattern", &a.absent_pattern)?,
        progress: None,
    })
});

impl super::Reports for WaitForStableRequest {
    fn reporting_to(self, progress: Option<Progress>) -> Self {
        WaitForStableRequest { progress, ..self }
    }
}

tool_args!(PollEventsArgs => PollEventsRequest, |a| {
    let timeout = if a.timeout == 0.0 {
        Duration::ZERO
    } else {
        timeout_arg(a.timeout)?
    };
    let cursor = a
        .cursor
        .as_deref()
        .map(|c| {
            EventCursor::decode(c).map_err(|e| {
                Error::invalid("cursor", e.to_string(), "the cursor of an earlier answer, as it is")
            })
        })
        .transpose()?;
    let kinds = a
        .kinds
        .as_ref()
        .map(|ks| {
            ks.iter()
                .map(|k| {
                    Kind::parse(k).ok_or_else(|| {
                        let all: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
                        Error::invalid("kinds", format!("kinds: unknown event kind {k:?}"), all.join(", "))
                    })
                })
                .collect::<Result<_, _>>()
        })
        .transpose()?;
    let panes = ids("panes", a.panes.as_deref(), "pane (%N)")?;
    let sessions = ids("sessions", a.sessions.as_deref(), "session ($N)")?;
    let texts = a.patterns.clone().unwrap_or_default();
    let compiled = compile("patterns", &texts, PatternOptions::regex()).map_err(|e| {
        Error::invalid(
            "patterns",
            format!("patterns: {}", e.detail()),
            "regexes (Rust regex syntax)",
        )
    })?;
    let max_events = match args::positive("max_events", a.max_events)? {
        Some(n) => n.min(crate::tmux::op::poll::MAX_EVENTS * 10),
        None => crate::tmux::op::poll::MAX_EVENTS,
    };
    Ok(PollEventsRequest {
        cursor,
        kinds,
        panes,
        sessions,
        follow_all: a.follow_all,
        patterns: texts
            .into_iter()
            .zip(compiled)
            .map(|(t, p)| (t, Pattern::clone(&p)))
            .collect(),
        timeout,
        max_events,
        progress: None,
    })
});

/// The ids in `list` (`what`: how the error names one).
fn ids<T: std::str::FromStr>(
    arg: &'static str,
    list: Option<&[String]>,
    what: &str,
) -> Result<Vec<T>, Error> {
    list.unwrap_or_default()
        .iter()
        .map(|s| {
            s.parse().map_err(|_| {
                Error::invalid(
                    arg,
                    format!("{arg}: {s:?} is not a {what} id"),
                    format!("{what} ids"),
                )
            })
        })
        .collect()
}

impl super::Reports for PollEventsRequest {
    fn reporting_to(self, progress: Option<Progress>) -> Self {
        PollEventsRequest { progress, ..self }
    }
}

tool_args!(CaptureSinceArgs => CaptureSinceRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?.unwrap_or(usize::MAX);
    let max_bytes = args::positive("max_bytes", a.max_bytes)?.unwrap_or(usize::MAX);
    let cursor = a.cursor.as_deref().map(SinceCursor::decode).transpose()?;
    let pane = targeting!(a, pane_id, window_id).selector()?;
    let mut req = CaptureSinceRequest::new(pane, cursor, max_lines, max_bytes);
    req.keep = match a.keep.as_deref() {
        None | Some("oldest") => Keep::Oldest,
        Some("newest") => Keep::Newest,
        Some(k) => {
            return Err(Error::invalid(
                "keep",
                format!("keep must be \"oldest\" or \"newest\" (received {k:?})"),
                "\"oldest\" (default) or \"newest\"",
            ));
        }
    };
    req.shape = Shape::from_args(a.head, a.tail, a.grep.clone(), a.context)?;
    req.as_is = a.fenced == Some(false);
    Ok(req)
};
    fn cursor(&mut self) -> Option<&mut String> {
        self.cursor.as_mut()
    }

    fn fenced(&self) -> bool {
        self.fenced != Some(false)
    }
);

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
        marks: match a.mode.as_deref() {
            None | Some("wrapped") => false,
            Some("marks") => true,
            Some(m) => {
                return Err(Error::invalid(
                    "mode",
                    format!("mode must be \"wrapped\" or \"marks\" (received {m:?})"),
                    "\"wrapped\" (default) or \"marks\"",
                ));
            }
        },
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
        super::reporting::<WaitForTextArgs>(
            "wait_for_text",
            READ,
            "Wait for a new line matching patterns (never the echo of typed input) or any output. outcome: matched, any_output, stopped, alternate_screen, timeout, exited, pane_gone, password_prompt, awaiting_input",
        )
        .mark_core()
        .mark_self_bounded(),
        super::reporting::<WaitForCommandArgs>(
            "wait_for_command",
            READ,
            "Wait for the pane's next marked command to finish (OSC 133/633 shell integration; \
             typed by anyone): command with exit_status, tail. outcome: finished, \
             password_prompt, awaiting_input, exited, pane_gone, timeout.",
        )
        .mark_self_bounded(),
        super::reporting::<WaitForStableArgs>(
            "wait_for_stable",
            READ,
            "Wait until a pane's screen (a TUI) is unchanged for stable_ms, never while a marked \
             command or OSC 9;4 progress runs. outcome: stable, \
             matched, password_prompt, awaiting_input, exited, pane_gone, timeout.",
        )
        .mark_self_bounded(),
        super::reporting::<PollEventsArgs>(
            "poll_events",
            READ,
            "Events of followed panes after cursor (command_finished, password_prompt, \
             awaiting_input, idle, pane_gone...); timeout>0 waits. No cursor: logged, then state now.",
        )
        .mark_self_bounded(),
        super::row::<CaptureSinceArgs>(
            "capture_since",
            READ,
            "New logical lines of a pane since cursor, each once; pass the returned cursor back. lines_missed: history trimmed or cleared. grep, context, head, tail: as capture_pane.",
        )
        .mark_core()
        .mark_sized()
        .mark_fenced(),
    ]
}

/// The execute tools of this module.
pub(super) fn execute_defs() -> Vec<Def> {
    vec![
        super::reporting::<RunCommandArgs>(
            "run_command",
            OPEN,
            "Run a command at a pane's shell prompt in a subshell (fish: begin/end) and wait: \
         exit_status and only its own output lines.",
        )
        .mark_core()
        .mark_sized()
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
