//! `tmuxwire events`: the events of `poll_events` as lines for a person
//! (or JSON lines), the followed panes' state first, then with `--follow`
//! each event as it comes (long polls of the same operation,
//! [`PollEventsRequest`], woken by the event itself).

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use super::EventsArgs;
use super::errors::CliError;
use crate::events::{Cursor, Kind};
use crate::search::{Pattern, PatternOptions};
use crate::tmux::Servers;
use crate::tmux::op::poll::{EventRow, PollEventsRequest, poll_events};

/// How long one poll of `--follow` waits before it asks again.
const POLL_FOR: Duration = Duration::from_secs(300);

/// The request `a` asks for (the filters; no cursor, no wait).
///
/// # Errors
///
/// A target that is not a pane or session id, an unknown kind, a bad
/// regex.
fn request(a: &EventsArgs) -> Result<PollEventsRequest, CliError> {
    let mut req = PollEventsRequest::default();
    for t in &a.targets {
        if let Ok(p) = t.parse() {
            req.panes.push(p);
        } else if let Ok(s) = t.parse() {
            req.sessions.push(s);
        } else {
            return Err(
                CliError::new(format!("-t {t:?}: not a pane (%N) or session ($N) id"))
                    .hint("tmuxwire panes lists them."),
            );
        }
    }
    if !a.kinds.is_empty() {
        let mut kinds = std::collections::HashSet::new();
        for k in &a.kinds {
            let kind = Kind::parse(k).ok_or_else(|| {
                let all: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
                CliError::new(format!("--kind {k:?}: unknown"))
                    .hint(format!("One of: {}", all.join(", ")))
            })?;
            kinds.insert(kind);
        }
        req.kinds = Some(kinds);
    }
    for p in &a.patterns {
        if p.is_empty() {
            return Err(CliError::new("--pattern: a pattern must not be empty"));
        }
        let compiled = Pattern::new(p, PatternOptions::regex())
            .map_err(|e| CliError::new(format!("--pattern {p:?}: {e}")))?;
        req.patterns.push((p.clone(), compiled));
    }
    Ok(req)
}

/// One event as a line: its time (UTC, `HH:MM:SS`) and its summary
/// (which holds no control characters), or its JSON.
fn line(e: &EventRow, json: bool) -> String {
    if json {
        return serde_json::to_string(e).unwrap_or_default();
    }
    let secs = e.at.map_or(0, |s| s as u64) % 86_400;
    let now = if e.current { " (now)" } else { "" };
    format!(
        "{:02}:{:02}:{:02} {}{now}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60,
        e.summary
    )
}

/// Runs `events`.
///
/// # Errors
///
/// Bad arguments; the operation's errors (no server, the mirror off).
pub async fn run(servers: &Servers, a: EventsArgs) -> Result<ExitCode, CliError> {
    let mut req = request(&a)?;
    let server = servers.default_server();
    loop {
        let r = poll_events(server, &req).await?;
        let mut out = std::io::stdout().lock();
        for e in &r.events {
            if writeln!(out, "{}", line(e, a.json)).is_err() {
                // The reader went (a closed pipe).
                return Ok(ExitCode::SUCCESS);
            }
        }
        let _ = out.flush();
        drop(out);
        if r.missed > 0 {
            eprintln!(
                "tmuxwire: {} events were missed (the log is bounded)",
                r.missed
            );
        }
        if !a.follow {
            return Ok(ExitCode::SUCCESS);
        }
        req.cursor = Cursor::decode(&r.cursor).ok();
        req.timeout = POLL_FOR;
    }
}
