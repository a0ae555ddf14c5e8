//! `poll_events`: the events of the followed panes after a cursor, or
//! the first event to come (a long poll woken by the event itself).
//!
//! The wait is self-contained: it subscribes to the log's signal
//! ([`crate::events::EventLog::subscribe`]), reads, and sleeps until the
//! signal, the deadline or the next progress report; it never polls.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;

use super::Server;
use super::events::{Attention, Scope};
use crate::control::{PaneId, SessionId};
use crate::events::text::{duration, quoted};
use crate::events::{Cursor, CursorError, Event, Facts, Kind};
use crate::mirror::{PaneMeta, Progress, Status};
use crate::search::Pattern;
use crate::tmux::Error;
use crate::tmux::model::is_zero;
use crate::tmux::target::PaneScope;
use crate::tmux::wait::ProcessRow;

/// Events one answer holds at most (the rest follow its cursor).
pub const MAX_EVENTS: usize = 50;

/// How long a call brings the followed copies up to date at most before
/// it reads the log (a copy not confirmed by then is followed once its
/// seed lands).
pub const REFRESH_AT_MOST: Duration = Duration::from_secs(5);

/// `poll_events`.
///
/// # Errors
///
/// `Unsupported` with the mirror off; `InvalidArgument` for a cursor
/// of another log or past the newest event; connection errors.
#[derive(Clone, Default)]
pub struct PollEventsRequest {
    /// Where the last answer stopped; `None`: start now, with the current
    /// state of the followed panes.
    pub cursor: Option<Cursor>,
    /// Only these kinds (`None`: every kind).
    pub kinds: Option<HashSet<Kind>>,
    /// Only events of these panes, and follow them.
    pub panes: Vec<PaneId>,
    /// Only events of these sessions' panes (and the sessions), and
    /// follow them.
    pub sessions: Vec<SessionId>,
    /// Follow every pane of the server (the default when neither `panes`
    /// nor `sessions` is given).
    pub follow_all: bool,
    /// Lines to watch for in the followed panes (`matched`), `(as given,
    /// compiled)`; with patterns, `matched` events of other patterns are
    /// left out.
    pub patterns: Vec<(String, Pattern)>,
    /// How long to wait for an event when there is none (zero: answer at
    /// once).
    pub timeout: Duration,
    /// Events at most in the answer.
    pub max_events: usize,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<Progress>,
}

/// One event as `poll_events` answers it: what, where, when, and the line
/// to read first.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct EventRow {
    /// command_started | command_finished | password_prompt |
    /// awaiting_input | idle | exited | pane_gone | bell | title | pane_new
    /// | session_new | session_closed | matched | state.
    pub kind: &'static str,
    /// The pane, `%N` (absent for a session's event).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<String>,
    /// A session showing the pane, `$N`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// When it happened, Unix seconds.
    pub at: Option<f64>,
    /// One line to read as it is; text the pane controls is in `"…"`,
    /// cleaned and capped.
    pub summary: String,
    /// The pane's window, `@N`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    /// The exit status (`command_finished`: from the end mark; `exited`:
    /// tmux's `#{pane_dead_status}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// The command line, as the marks gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// How long the command ran or the screen was still, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    /// The new title (`title`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The pattern (`matched`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The line that matched (`matched`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// Events of this pane dropped just before this one by the per-pane
    /// rate cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_before: Option<u64>,
    /// True for the current state of a pane in a first answer (not a
    /// change that happened).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub current: bool,
}

impl EventRow {
    /// The row of `e`.
    pub fn of(e: &Event, current: bool) -> EventRow {
        let seconds = |us: u64| us as f64 / 1e6;
        let mut row = EventRow {
            kind: e.kind.as_str(),
            pane_id: e.pane.map(|p| p.to_string()),
            session_id: e.session.map(|s| s.to_string()),
            at: super::commands::unix_seconds(e.at_us),
            summary: e.summary.clone(),
            window_id: e.window.map(|w| w.to_string()),
            exit_status: None,
            command: None,
            duration_seconds: None,
            title: None,
            pattern: None,
            line: None,
            dropped_before: e.dropped_before,
            current,
        };
        match &e.facts {
            Facts::None => {}
            Facts::Started { command } => row.command.clone_from(command),
            Facts::Finished {
                exit_status,
                command,
                duration_us,
            } => {
                row.exit_status = *exit_status;
                row.command.clone_from(command);
                row.duration_seconds = duration_us.map(seconds);
            }
            Facts::Exited { exit_status } => row.exit_status = *exit_status,
            Facts::Idle { still_us } => row.duration_seconds = Some(seconds(*still_us)),
            Facts::Title { title } => row.title = Some(title.clone()),
            Facts::Matched { pattern, line } => {
                row.pattern = Some(pattern.clone());
                row.line = Some(line.clone());
            }
        }
        row
    }
}

/// `poll_events`' answer: the events first.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PollEventsResult {
    /// The events, oldest first (at most `max_events`).
    pub events: Vec<EventRow>,
    /// Pass it back as `cursor` to get the events after these.
    pub cursor: String,
    /// events | current (a first answer: the log's newest events, then
    /// each followed pane's state now, `current: true`) | timeout (none
    /// came within the timeout).
    pub outcome: &'static str,
    /// Events after the cursor given that fell out of the bounded log
    /// before this call (lost to this reader); in a first answer, older
    /// events of the log left out to keep `max_events`.
    #[serde(skip_serializing_if = "is_zero")]
    pub missed: u64,
    /// More events wait after these: call again at once with `cursor`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
    /// What is followed for events now (calls only widen it).
    pub following: String,
    /// Seconds waited.
    pub elapsed_seconds: f64,
}

crate::fits_whole!(PollEventsResult);

crate::record! {
    /// What `poll_events` lists of a pane besides its [`PaneMeta`]: its
    /// id, and where its terminal's facts are read (as `get_pane_state`
    /// reads them).
    struct EventsRow {
        pane_id: String = "pane_id",
        process: ProcessRow = ..,
    }
}

const LISTED_FIELDS: &[&str] = &crate::concat_fields!(PaneMeta, EventsRow);

impl PollEventsRequest {
    fn scope(&self) -> Scope {
        Scope {
            all: self.follow_all || (self.panes.is_empty() && self.sessions.is_empty()),
            sessions: self.sessions.iter().copied().collect(),
            panes: self.panes.iter().copied().collect(),
        }
    }

    /// Whether the caller asked for `e`.
    fn wants(&self, e: &Event) -> bool {
        if self.kinds.as_ref().is_some_and(|k| !k.contains(&e.kind)) {
            return false;
        }
        let pane_ok = self.panes.is_empty() && self.sessions.is_empty()
            || e.pane.is_some_and(|p| self.panes.contains(&p))
            || e.session.is_some_and(|s| self.sessions.contains(&s));
        if !pane_ok {
            return false;
        }
        if e.kind == Kind::Matched && !self.patterns.is_empty() {
            let Facts::Matched { pattern, .. } = &e.facts else {
                return false;
            };
            return self
                .patterns
                .iter()
                .any(|(t, _)| crate::events::text::cleaned(t) == *pattern);
        }
        true
    }
}

op!(
    PollEventsRequest,
    PollEventsResult,
    async |req, server, _| {
        crate::tmux::wait::within(req.timeout + REFRESH_AT_MOST, poll_events(server, &req)).await
    }
);

/// Lists the server's panes, brings the copies of the followed ones up to
/// date, and notes their ttys and pids for the follower.
/// `grows`: the scope grows with this call, so the panes listed now were
/// there when following them began ([`Attention::were_there`]).
async fn refresh(
    server: &Server,
    a: &Attention,
    scope: &Scope,
    grows: bool,
) -> Result<usize, Error> {
    let Some(m) = server.mirror().await else {
        return Ok(0);
    };
    let records = super::list::pane_records(server, &PaneScope::All, LISTED_FIELDS).await?;
    let local = matches!(server.endpoint(), crate::wire::Endpoint::Local(_));
    let mut list = Vec::new();
    let mut dead = Vec::new();
    let mut seen = HashSet::new();
    for r in &records {
        let row = EventsRow::from_record_at(r, PaneMeta::FIELDS.len());
        let meta = PaneMeta::from_record(r);
        let (Ok(pane), Some(session)) = (row.pane_id.parse::<PaneId>(), meta.session()) else {
            continue;
        };
        if !scope.covers(pane, Some(session)) || !seen.insert(pane) {
            continue;
        }
        // A remote server's pids name no process here: its panes' terminal
        // facts cannot be read from this machine's `/proc`.
        // (A pane_pid tmux did not give reads as 0: no process to note.)
        if local
            && !a.knows_process(pane)
            && let Some(process) = row.process.process().filter(|p| p.pane_pid != 0)
        {
            a.note_process(pane, process);
        }
        if row.process.pane_dead && m.pane(pane).is_some_and(|p| !p.view().is_kept()) {
            dead.push(pane);
        }
        list.push((pane, session, meta));
    }
    // tmux says nothing when a pane it keeps (`remain-on-exit`) dies: a
    // copy that does not know yet learns it from its watch's listing
    // (where no pidfd told the follower: a remote server).
    for pane in dead {
        m.list_again(pane, false).await;
    }
    if grows {
        a.were_there(
            list.iter().map(|(p, _, _)| *p),
            list.iter().map(|(_, s, _)| *s),
        );
    }
    m.sync_within(
        &list,
        crate::mirror::Want::Current,
        None,
        Some(REFRESH_AT_MOST),
    )
    .await;
    Ok(list.len())
}

/// The current state of the followed panes, as events (`current`).
fn current(server: &Server, a: &Attention) -> Vec<Event> {
    let Some(m) = server.running_mirror() else {
        return Vec::new();
    };
    let scope = a.scope();
    let now_us = crate::mirror::clock_us();
    let mut out = Vec::new();
    let mut panes = m.panes();
    panes.sort_by_key(|(id, _)| id.0);
    for (id, p) in panes {
        let reading = reading_now(a, &p);
        let st = p.view();
        let session = st.owner().or_else(|| st.meta().session());
        if !scope.covers(id, session) || st.term().is_none() {
            continue;
        }
        let t = st.term().expect("checked above");
        let (kind, what) = if st.status() == Status::Dead && !st.is_kept() {
            (Kind::PaneGone, String::new())
        } else if let Some(s) = st.exit_status() {
            (Kind::Exited, format!(": status {s}"))
        } else if st.is_kept() {
            (Kind::Exited, ": no exit status".to_string())
        } else if let Some((kind, what)) = reading {
            (kind, what)
        } else if let Some(r) = t.commands().running() {
            let cmd = r
                .command
                .as_deref()
                .map_or_else(String::new, |c| format!(" {}", quoted(c)));
            let ran = r.started_at.map_or_else(String::new, |s| {
                format!(" for {}", duration(now_us.saturating_sub(s)))
            });
            (Kind::State, format!(": running{cmd}{ran}"))
        } else {
            let quiet = t.screen_state().last_output_at.map_or_else(
                || "printed nothing since followed".into(),
                |o| format!("quiet for {}", duration(now_us.saturating_sub(o))),
            );
            let prompt = if t.commands().last().is_some() {
                "at a prompt, "
            } else {
                ""
            };
            (Kind::State, format!(": {prompt}{quiet}"))
        };
        let mut e = Event::new(kind, Some(id), now_us, format!("{id} {kind}{what}"));
        e.session = session;
        e.window = st.meta().window_id.parse().ok();
        if kind == Kind::Exited {
            e.facts = Facts::Exited {
                exit_status: st.exit_status(),
            };
        }
        out.push(e);
    }
    out
}

/// Whether `p`'s program reads input now (a look at its terminal and
/// `/proc`, as `get_pane_state`'s), as an event's kind and words.
fn reading_now(a: &Attention, p: &crate::mirror::PaneMirror) -> Option<(Kind, String)> {
    let (input, _) = a.process_of(p.id)?.read(p);
    let (kind, what) = super::events::reading_words(input, p)?;
    Some((kind, format!(": {what}")))
}

fn describe(scope: &Scope, panes: usize) -> String {
    let what = if scope.all {
        "every pane".to_string()
    } else {
        let mut parts: Vec<String> = scope.sessions.iter().map(ToString::to_string).collect();
        parts.sort();
        let mut p: Vec<String> = scope.panes.iter().map(ToString::to_string).collect();
        p.sort();
        parts.extend(p);
        parts.join(" ")
    };
    format!("{what} ({panes} panes now)")
}

/// Runs `poll_events`: see [`PollEventsRequest`].
///
/// # Errors
///
/// As [`PollEventsRequest`] says.
pub async fn poll_events(
    server: &Server,
    req: &PollEventsRequest,
) -> Result<PollEventsResult, Error> {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + req.timeout;
    let m = server.mirror().await.ok_or_else(|| {
        Error::unsupported("poll_events needs tmuxwire's copies of the panes (the mirror is off)")
    })?;
    let a = server.attention(&m);
    if matches!(server.endpoint(), crate::wire::Endpoint::Local(_))
        && let Some(pid) = server.mirrored_server_pid().await
    {
        a.note_local_server(pid);
    }
    let scope = req.scope();
    // The panes there now are noted before the scope widens, so the
    // follower, woken by the widening, tells none of them as new.
    let wider = a.widened(&scope);
    let grows = wider != a.scope();
    a.watch_patterns(&req.patterns);
    let listed = refresh(server, &a, &wider, grows).await;
    a.follow(&scope);
    let followed = listed?;
    let following = describe(&a.scope(), followed);
    let max = if req.max_events == 0 {
        MAX_EVENTS
    } else {
        req.max_events
    };
    let mut rx = a.log.subscribe();
    let Some(mut cursor) = req.cursor else {
        let now: Vec<Event> = current(server, &a)
            .into_iter()
            .filter(|e| req.wants(e))
            .take(max)
            .collect();
        // What already happened (the newest that fit), then the state now.
        let past = a.log.newest(max - now.len(), |e| req.wants(e));
        let events = past
            .events
            .iter()
            .map(|e| EventRow::of(e, false))
            .chain(now.iter().map(|e| EventRow::of(e, true)))
            .collect();
        return Ok(PollEventsResult {
            events,
            cursor: past.cursor.encode(),
            outcome: "current",
            missed: past.left_out,
            more: false,
            following,
            elapsed_seconds: started.elapsed().as_secs_f64(),
        });
    };
    loop {
        rx.borrow_and_update();
        let read = a
            .log
            .read(Some(&cursor), max, |e| req.wants(e))
            .map_err(|e| cursor_error(&e))?;
        let now = tokio::time::Instant::now();
        if !read.events.is_empty() || read.missed > 0 || now >= deadline {
            let outcome = if read.events.is_empty() {
                "timeout"
            } else {
                "events"
            };
            return Ok(PollEventsResult {
                events: read.events.iter().map(|e| EventRow::of(e, false)).collect(),
                cursor: read.cursor.encode(),
                outcome,
                missed: read.missed,
                more: read.more,
                following,
                elapsed_seconds: started.elapsed().as_secs_f64(),
            });
        }
        // Nothing yet: the events the filter left out are passed over.
        cursor = read.cursor;
        if let Some(p) = &req.progress {
            p(
                started.elapsed().as_secs(),
                req.timeout.as_secs().max(1),
                "waiting for an event",
            );
        }
        let wake = crate::tmux::wait::wake_at(deadline, req.progress.as_ref());
        match tokio::time::timeout_at(wake, rx.changed()).await {
            Ok(Ok(())) | Err(_) => {}
            Ok(Err(_)) => {
                return Err(Error::server_gone(
                    "the event log ended (the server is gone)",
                ));
            }
        }
    }
}

fn cursor_error(e: &CursorError) -> Error {
    Error::invalid(
        "cursor",
        e.to_string(),
        "the `cursor` of an earlier poll_events answer of this server, as it is",
    )
}
