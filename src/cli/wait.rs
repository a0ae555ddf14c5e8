//! `tmuxwire wait`: block until a pane prints a line that matches (or any
//! output), woken by the pane's `%output` through the mirror, as the MCP
//! tool `wait_for_text` does (the same operation, [`WaitForTextRequest`],
//! run directly: the tool clamps its timeout to the wait ceiling, 30 s
//! by default, which is there for models; a person's shell waits as long
//! as it is told, up to [`MAX_TIMEOUT`]). Prints the matching lines (or
//! the tail) with control characters escaped; the exit status says how
//! the wait ended.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::WaitArgs;
use super::errors::CliError;
use super::output::escape_text;
use super::target;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::keys::Keys;
use crate::tmux::op::since::CaptureSinceRequest;
use crate::tmux::op::text::WaitForTextRequest;
use crate::tmux::op::typing::SendKeysRequest;
use crate::tmux::op::{self, Limit};
use crate::tmux::pane_text::{Outcome, WaitForTextResult};
use crate::tmux::wait;
use crate::tmux::{Selector, Servers};

/// Exit status when a `--stop` pattern ended the wait.
const STOPPED: u8 = 3;

/// Exit status when the pane's program exited or the pane went away
/// before anything matched (outcome `exited` or `pane_gone`).
const PANE_ENDED: u8 = 4;

/// Exit status when the pane's program reads input (a password, or an
/// echoed line) before anything matched (outcome `password_prompt` or
/// `awaiting_input`).
const INPUT_WANTED: u8 = 5;

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
/// A bad pattern or timeout, a missing target, the operations' errors.
pub async fn run(servers: &Servers, a: WaitArgs) -> Result<ExitCode, CliError> {
    let timeout = timeout(a.timeout)?;
    let patterns = (!a.patterns.is_empty())
        .then(|| compile(&a.patterns, &a, "PATTERN"))
        .transpose()?;
    let stop = compile(&a.stop, &a, "--stop")?;
    let named = match &a.target {
        Some(t) => target::resolve_arg(servers, t).await?.1.selector(),
        None => Selector::default(),
    };
    let server = servers.default_server();
    // One pane for every step, as the tool would pick it (a window or
    // session: its active pane).
    let pane = Selector {
        pane_id: Some(wait::pane_id(server, &named).await?),
        ..Selector::default()
    };
    if let Some(text) = &a.send {
        // Its copy exists before the keys go, so the wait counts the
        // output from where the text was typed.
        let seed = CaptureSinceRequest::new(pane.clone(), None, 500, 128_000);
        op::run(server, seed, Limit::NONE).await?;
        let keys = Keys {
            keys: text.clone(),
            literal: true,
            enter: true,
            suppress_history: false,
        };
        let send = SendKeysRequest {
            pane: pane.clone(),
            keys,
            allow_password_input: false,
            submit: Default::default(),
        };
        op::run(server, send, Limit::NONE).await?;
    }
    let req = WaitForTextRequest {
        pane,
        patterns,
        stop,
        timeout,
        progress: None,
        redact: a.redact.redact,
    };
    let r = op::run(server, req, Limit::NONE).await?;
    if !a.quiet {
        report(&r, &a);
    }
    Ok(match r.outcome {
        Outcome::Matched | Outcome::AnyOutput => ExitCode::SUCCESS,
        Outcome::Stopped => ExitCode::from(STOPPED),
        Outcome::Exited | Outcome::PaneGone => ExitCode::from(PANE_ENDED),
        Outcome::PasswordPrompt | Outcome::AwaitingInput => ExitCode::from(INPUT_WANTED),
        Outcome::AlternateScreen | Outcome::Timeout => ExitCode::from(1),
    })
}

/// Prints what the wait saw: the matching lines (or the tail) on stdout,
/// why nothing matched on stderr.
fn report(r: &WaitForTextResult, a: &WaitArgs) {
    let found = matches!(r.outcome, Outcome::Matched | Outcome::AnyOutput);
    let lines = if a.tail || r.matched_lines.is_empty() {
        &r.tail
    } else {
        &r.matched_lines
    };
    let show = a.tail || found || r.outcome == Outcome::Stopped;
    let lines: Vec<std::borrow::Cow<'_, str>> = if a.redact.redact {
        // Read together: a key's body spans the lines.
        let spans = crate::redact::find_in_lines(lines);
        lines
            .iter()
            .zip(spans)
            .map(|(l, s)| crate::redact::apply_str(l, &s).into())
            .collect()
    } else {
        lines.iter().map(|l| l.as_str().into()).collect()
    };
    let mut out = std::io::stdout().lock();
    for l in lines.iter().filter(|_| show) {
        let _ = writeln!(out, "{}", escape_text(l));
    }
    let pane = &r.pane_id;
    let what = if a.patterns.is_empty() {
        "no new output"
    } else {
        "no match"
    };
    // `{:?}` writes seconds as the JSON answer does (`2.5`, `30.0`).
    let secs = r.effective_timeout;
    if r.outcome == Outcome::Exited {
        match r.end.exit.status {
            Some(s) => eprintln!("tmuxwire: {what} in {pane}: its program exited with status {s}"),
            None => eprintln!("tmuxwire: {what} in {pane}: its program exited"),
        }
    } else if r.outcome == Outcome::PaneGone {
        eprintln!(
            "tmuxwire: {what} in {pane}: the pane is gone (its program exited, or it was killed)"
        );
    } else if r.outcome == Outcome::AlternateScreen {
        eprintln!(
            "tmuxwire: {what} in {pane} within {secs:?} s: it shows a full-screen program, \
             which adds no lines (see tmuxwire capture -t {pane})"
        );
    } else if r.outcome == Outcome::PasswordPrompt {
        eprintln!("tmuxwire: {what} in {pane}: its program waits for a password (echo is off)");
    } else if r.outcome == Outcome::AwaitingInput {
        eprintln!("tmuxwire: {what} in {pane}: its program waits for a line of input");
    } else if r.outcome == Outcome::Timeout {
        eprintln!("tmuxwire: {what} in {pane} within {secs:?} s");
    }
}
