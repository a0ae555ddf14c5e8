//! `list_commands` and `get_command_output`: the commands a pane's shell
//! marked with shell-integration sequences (OSC 133, VS Code's OSC 633,
//! iTerm2's OSC 1337), read from the mirror's command table
//! ([`crate::term::Commands`]).
//!
//! Marks are advisory: any program in the pane can print them, so every
//! record says where it came from (`source`) and `trusted: false` (no
//! mark a pane prints is proof; `run_command`'s own marks are the
//! unforgeable path). A pane whose shell sends no marks answers
//! `marks: "absent"` with no commands, which never reads as "no output".
//!
//! A record is one command line that ran, however often its prompt was
//! drawn: prompts drawn again (a resize, a vi-mode switch, a transient
//! prompt), Enter on an empty line and Ctrl-C at the prompt add none, and
//! a prompt a running command draws (fish's `read`) does not end it
//! ([`crate::term::Commands`] says how).
//!
//! Line numbers are tmux's (`capture-pane -S`/`-E`: 0 = the top row of
//! the visible screen, negative in history), of the first row of a
//! logical line, so they can be passed to `capture_pane` as they are.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Serialize;

use super::fit::{Limit, json_str_len};
use super::shape::Shape;
use super::{Fit, Op, Server};
use crate::control::PaneId;
use crate::mirror::PaneState;
use crate::term::{CommandEnd, CommandRecord, Commands, LineIndex, LineNo, Term};
use crate::tmux::model::is_zero;
use crate::tmux::wait::{self, Condition, End, Ended, Limits, Seen};
use crate::tmux::{Error, Selector, Subject};

/// What the wait's progress notifications say it does.
const WAITING: &str = "waiting for a command to finish";

/// `list_commands`: the newest `limit` commands of a pane, before command
/// `before` when given.
///
/// # Errors
///
/// [`crate::tmux::ErrorKind::NotFound`] for a missing pane;
/// `Unsupported` with the mirror off; connection errors.
#[derive(Clone, Debug, Default)]
pub struct ListCommandsRequest {
    /// The pane.
    pub pane: Selector,
    /// At most this many commands (the newest).
    pub limit: usize,
    /// Only commands whose index is below this.
    pub before: Option<u64>,
}

/// One command as `list_commands` and `get_command_output` report it (the
/// optional facts left out when unknown).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CommandInfo {
    /// Its number in the pane, from 0 (never reused).
    pub index: u64,
    /// The command line as the marks or the screen gave it (a multi-line
    /// command's lines joined by `\n`, prompts and a right prompt left
    /// out); null when unknown.
    pub command: Option<String>,
    /// running | finished | abandoned (the next command started before its
    /// end mark) | prompt (typed, not yet run).
    pub state: &'static str,
    /// The status its end mark carried; null when none came or it carried
    /// none (never made up as 0).
    pub exit_status: Option<u8>,
    /// When its output began, Unix time in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<f64>,
    /// From output start to its end mark, milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// Its output's logical lines (null when it has no output start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_lines: Option<u64>,
    /// tmux line number of its first output line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_start_line: Option<i64>,
    /// tmux line number of its last output line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_end_line: Option<i64>,
    /// Working directory when it started (OSC 7 and the like).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// osc133 | osc633 | osc1337: the marks it was read from.
    pub source: &'static str,
    /// Always false: a program in the pane can print any mark.
    pub trusted: bool,
    /// 0 for the outermost shell (left out), 1 for a shell started from
    /// it, …
    #[serde(skip_serializing_if = "is_zero")]
    pub depth: u32,
    /// Some of its lines are no longer held (history trimmed, cleared);
    /// left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trimmed: bool,
}

/// `list_commands`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CommandList {
    /// Oldest first.
    pub commands: Vec<CommandInfo>,
    /// Pane id, `%N`.
    pub pane_id: String,
    /// present: the pane's shell sent marks; absent: none was seen (the
    /// shell has no integration, so nothing here says what ran).
    pub marks: &'static str,
    /// Commands the table holds in all.
    pub total: usize,
    /// Older commands left out (limit, before or the response budget);
    /// pass `before` = the first index shown to get them. Left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

impl Fit for CommandList {
    fn fit_to(&mut self, max: usize) {
        while !self.commands.is_empty() && serde_json::to_vec(&*self).map_or(0, |v| v.len()) > max {
            let drop = self.commands.len().div_ceil(8);
            self.commands.drain(..drop);
            self.omitted += drop;
        }
    }
}

op!(ListCommandsRequest, CommandList, async |req, server, _| {
    let (pane, st) = copy_of(server, &req.pane).await?;
    let t = term_of(pane, &st)?;
    let c = t.commands();
    let all: Vec<&CommandRecord> = c
        .records()
        .filter(|r| req.before.is_none_or(|b| r.index < b))
        .collect();
    let keep = all.len().min(req.limit);
    let chosen = &all[all.len() - keep..];
    let lines = LineNumbers::of(t, chosen);
    Ok(CommandList {
        pane_id: pane.to_string(),
        marks: if c.marks_seen() > 0 {
            "present"
        } else {
            "absent"
        },
        commands: chosen.iter().map(|r| info(r, t, &lines)).collect(),
        total: c.records().len(),
        omitted: all.len() - keep,
    })
});

/// `get_command_output`: one command's output lines.
#[derive(Clone, Debug, Default)]
pub struct CommandOutputRequest {
    /// The pane.
    pub pane: Selector,
    /// The command: its index, or counted back from the newest command
    /// that ran when negative (-1: the newest; a prompt still being
    /// edited is not counted).
    pub index: i64,
    /// Which output lines to keep: `grep` with `context`, then `head`
    /// and `tail` (with both: both ends). With its `redact` on, `grep`
    /// keeps a line only for text it holds outside its secrets (read with
    /// the output's other lines, so a key's body is one).
    pub shape: Shape,
    /// At most this many bytes of line text (the first lines kept).
    pub max_bytes: Option<usize>,
}

/// One output line.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct OutputLine {
    /// tmux line number of its first row.
    pub line: i64,
    /// Its text (a logical line: wrapped rows joined).
    pub text: String,
}

/// `get_command_output`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CommandOutput {
    /// The lines kept, in order.
    pub lines: Vec<OutputLine>,
    /// Pane id, `%N`.
    pub pane_id: String,
    /// The command.
    pub command: CommandInfo,
    /// Output lines not returned (head/tail/grep/max_bytes or the
    /// budget); left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_omitted: usize,
    /// Output lines tmux no longer holds (trimmed from history); left out
    /// when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_missing: u64,
}

impl Fit for CommandOutput {
    fn fit_to(&mut self, max: usize) {
        let mut size = serde_json::to_vec(&*self).map_or(0, |v| v.len());
        while size > max && !self.lines.is_empty() {
            // The newest lines stay (a command's end says how it went).
            let l = self.lines.remove(0);
            size = size.saturating_sub(json_str_len(&l.text) + 24);
            self.lines_omitted += 1;
        }
    }
}

impl Op for CommandOutputRequest {
    type Response = CommandOutput;

    /// # Errors
    ///
    /// `NotFound` for a missing pane or a command index the table does not
    /// hold; `Unsupported` with the mirror off; connection errors.
    async fn run(self, server: &Server, _: Limit) -> Result<CommandOutput, Error> {
        let (pane, st) = copy_of(server, &self.pane).await?;
        let t = term_of(pane, &st)?;
        let c = t.commands();
        let Some(rec) = CommandPick::from_index(self.index).of(c) else {
            let detail = if c.marks_seen() == 0 {
                format!("pane {pane} has no command marks: its shell sends no OSC 133/633/1337")
            } else {
                format!("pane {pane} holds no command {}", self.index)
            };
            return Err(Error::not_found(detail)
                .about(Subject::Pane(pane.to_string()))
                .for_argument("index"));
        };
        let lines = LineNumbers::of(t, std::slice::from_ref(&rec));
        let info = info(rec, t, &lines);
        let (mut out, missing) = output_of(rec, t);
        let total = out.len();
        self.shape.apply(&mut out, |l| &l.text);
        if let Some(max) = self.max_bytes {
            let mut used = 0usize;
            let n = out
                .iter()
                .take_while(|l| {
                    used += l.text.len() + 1;
                    used <= max
                })
                .count();
            out.truncate(n);
        }
        Ok(CommandOutput {
            pane_id: pane.to_string(),
            command: info,
            lines_omitted: total - out.len(),
            lines: out,
            lines_missing: missing,
        })
    }

    fn redacting(self, on: bool) -> CommandOutputRequest {
        CommandOutputRequest {
            shape: Shape {
                redact: on,
                ..self.shape
            },
            ..self
        }
    }
}

/// The pane `sel` names and a snapshot of its copy, followed and just
/// confirmed by tmux.
async fn copy_of(server: &Server, sel: &Selector) -> Result<(PaneId, PaneState), Error> {
    let pane = wait::pane_id(server, sel).await?;
    let copy = wait::followed_copy(server, pane).await?;
    Ok((pane, copy.snapshot()))
}

/// The terminal of `st`, the state of pane `pane`'s copy.
///
/// # Errors
///
/// `NotFound` when the copy holds no terminal (not seeded).
fn term_of(pane: PaneId, st: &PaneState) -> Result<&Term, Error> {
    st.term()
        .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))
}

/// One command of a pane's table, as a caller names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandPick {
    /// Its index ([`CommandRecord::index`]).
    Index(u64),
    /// The `n`th newest command that ran (1: the last), a prompt still
    /// being edited not counted.
    Back(u64),
}

impl CommandPick {
    /// An index as the tools take it: counted back from the newest that
    /// ran when negative (-1: the last).
    pub fn from_index(index: i64) -> CommandPick {
        if index < 0 {
            CommandPick::Back(index.unsigned_abs())
        } else {
            CommandPick::Index(index.unsigned_abs())
        }
    }

    /// The record it names in `c`.
    pub fn of(self, c: &Commands) -> Option<&CommandRecord> {
        match self {
            CommandPick::Index(i) => c.get(i),
            CommandPick::Back(n) => {
                let n = usize::try_from(n).ok()?.checked_sub(1)?;
                c.records()
                    .rev()
                    .filter(|r| r.output_start.is_some() || r.ended.is_some())
                    .nth(n)
            }
        }
    }
}

/// The rows of the output of the command `pick` names in `t`, as
/// inclusive tmux line numbers (the first row of its first output line
/// to the last row of its last): what `search_panes` scans for a search
/// scoped to it. `None` when the table has no such command, it has no
/// output, or its lines are no longer held.
pub(super) fn output_rows(t: &Term, pick: CommandPick) -> Option<(i64, i64)> {
    let r = pick.of(t.commands())?;
    let (from, to) = output_range(r, t)?;
    let mut first = None;
    let mut last = None;
    for l in t.lines() {
        if l.index > to {
            break;
        }
        if l.index >= from {
            first.get_or_insert(l.first_row.0);
            last = Some(l.first_row.0 + i64::from(l.rows()) - 1);
        }
    }
    Some((first?, last?))
}

/// The logical lines a record's output covers: from the line of its
/// output start to the line of its end mark (that line only when the end
/// came after text on it), or to the cursor's line while it runs.
fn output_range(r: &CommandRecord, t: &Term) -> Option<(LineIndex, LineIndex)> {
    let start = r.output_start?;
    let end = match r.output_end {
        Some(e) if e.column.0 == 0 && e.row == 0 => LineIndex(e.line.0.checked_sub(1)?),
        Some(e) => e.line,
        None => {
            let last = t.lines().last().map(|l| l.index)?;
            if r.ended == Some(CommandEnd::Abandoned) {
                return None;
            }
            last
        }
    };
    (end >= start.line).then_some((start.line, end))
}

/// The text of `r`'s output lines that the copy still holds, and how many
/// it no longer holds.
fn output_of(r: &CommandRecord, t: &Term) -> (Vec<OutputLine>, u64) {
    let Some((from, to)) = output_range(r, t) else {
        return (Vec::new(), 0);
    };
    let mut out = Vec::new();
    let mut first_held = None;
    for l in t.lines() {
        if l.index > to {
            break;
        }
        if l.index >= from {
            first_held.get_or_insert(l.index);
            out.push(OutputLine {
                line: l.first_row.0,
                text: String::from_utf8_lossy(&l.text).into_owned(),
            });
        }
    }
    let missing = first_held.map_or(to.0 - from.0 + 1, |f| f.0 - from.0);
    (out, missing)
}

/// tmux line numbers of the logical lines some records name, found in one
/// pass over the copy.
struct LineNumbers {
    /// (index, first row), sorted by index.
    known: Vec<(LineIndex, LineNo)>,
}

impl LineNumbers {
    fn of(t: &Term, records: &[&CommandRecord]) -> LineNumbers {
        let mut want: Vec<LineIndex> = records
            .iter()
            .filter_map(|r| output_range(r, t))
            .flat_map(|(a, b)| [a, b])
            .collect();
        want.sort_unstable();
        want.dedup();
        let mut known = Vec::with_capacity(want.len());
        let mut w = want.iter().peekable();
        if w.peek().is_some() {
            for l in t.lines() {
                while w.next_if(|i| **i < l.index).is_some() {}
                if w.next_if(|i| **i == l.index).is_some() {
                    known.push((l.index, l.first_row));
                }
                if w.peek().is_none() {
                    break;
                }
            }
        }
        LineNumbers { known }
    }

    fn get(&self, i: LineIndex) -> Option<i64> {
        self.known
            .binary_search_by_key(&i, |(k, _)| *k)
            .ok()
            .map(|k| self.known[k].1.0)
    }
}

/// A mirror clock reading ([`crate::mirror::clock_us`]) as Unix seconds.
pub(super) fn unix_seconds(us: u64) -> Option<f64> {
    let ago = crate::mirror::clock_us().saturating_sub(us);
    let at = SystemTime::now().checked_sub(Duration::from_micros(ago))?;
    at.duration_since(UNIX_EPOCH).ok().map(|d| d.as_secs_f64())
}

fn info(r: &CommandRecord, t: &Term, lines: &LineNumbers) -> CommandInfo {
    let range = output_range(r, t);
    let state = match (r.ended, r.output_start) {
        (Some(CommandEnd::Finished), _) => "finished",
        (Some(CommandEnd::Abandoned), _) => "abandoned",
        (None, Some(_)) => "running",
        (None, None) => "prompt",
    };
    CommandInfo {
        index: r.index,
        command: r.command.clone(),
        state,
        exit_status: r.exit_status,
        started_at: r.started_at.and_then(unix_seconds),
        duration_ms: r.duration_us().map(|us| us as f64 / 1000.0),
        output_lines: r
            .output_start
            .map(|_| range.map_or(0, |(a, b)| b.0 - a.0 + 1)),
        output_start_line: range.and_then(|(a, _)| lines.get(a)),
        output_end_line: range.and_then(|(_, b)| lines.get(b)),
        cwd: r.cwd.clone(),
        source: r.source.as_str(),
        trusted: false,
        depth: r.depth,
        trimmed: r.trimmed,
    }
}

/// `wait_for_command`: wait until the pane's next command finishes (one
/// tmuxwire typed or one a person typed), read from the command table.
#[derive(Clone)]
pub struct WaitForCommandRequest {
    /// The pane.
    pub pane: Selector,
    /// How long to wait.
    pub timeout: Duration,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<crate::mirror::Progress>,
}

crate::tmux::op::waited::pane_wait! {
    /// # Errors
    ///
    /// `NotFound` for a missing pane; `Unsupported` with the mirror off;
    /// [`crate::tmux::ErrorKind::ServerGone`] when the server exits during
    /// the wait; connection errors.
    WaitForCommandRequest => WaitForCommandResult by wait_for_command;
}

/// Most lines and bytes of the finished command's output in
/// [`WaitForCommandResult::tail`] (the newest kept).
const TAIL_LINES: usize = 20;
const TAIL_BYTES: usize = 2000;

crate::tmux::op::waited::wait_outcome! {
    /// How a `wait_for_command` ended.
    pub enum CommandOutcome {
        /// A command's end mark came, or the next command started without
        /// one (abandoned).
        Finished,
    }
}

crate::tmux::op::waited::waited! {
    /// `wait_for_command`'s answer.
    #[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
    pub struct WaitForCommandResult {
        /// finished (a command's end mark came, or the next command started
        /// without one: abandoned) | password_prompt (the program has read a
        /// line with echo off for 300 ms) | awaiting_input (it has read an
        /// echoed line, or waited for a single key, for 300 ms: `read`,
        /// `input()`, `read -n 1`, a y/n question) | exited (the pane's
        /// program exited) | pane_gone | timeout.
        pub outcome: CommandOutcome,
        /// True when a command finished (`outcome` is `finished`).
        pub found: bool,
        /// The command that finished; null otherwise.
        pub command: Option<CommandInfo>,
        /// Its last output lines (at most 20 lines and 2000 bytes).
        pub tail: Vec<String>,
        /// The command still running when the wait ended without one
        /// finishing; left out when none was.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub running: Option<CommandInfo>,
        /// present | absent: whether the pane's shell sent any marks since
        /// tmuxwire watched it (absent: no command can be seen to finish).
        pub marks: &'static str,
        /// The pane, `%N`.
        pub pane_id: String,
        @waited,
        /// For `password_prompt` and `awaiting_input`: the facts that tell
        /// (the terminal's settings, the foreground process, its wait
        /// channel); absent otherwise.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub evidence: Vec<String>,
    }
}

/// The commands that were already in the table when a wait began: those
/// that end later are still "next".
#[derive(Clone, Debug)]
pub(super) struct Entry {
    /// The first index a record opened after the entry gets.
    next: u64,
    /// Records open (at their prompt or running) at the entry.
    open: Vec<u64>,
}

impl Entry {
    pub(super) fn of(t: &Term) -> Entry {
        let c = t.commands();
        Entry {
            next: c.last().map_or(0, |r| r.index + 1),
            open: c
                .records()
                .filter(|r| r.ended.is_none())
                .map(|r| r.index)
                .collect(),
        }
    }

    /// The oldest record that ran and ended after the entry.
    fn finished<'t>(&self, t: &'t Term) -> Option<&'t CommandRecord> {
        t.commands().records().find(|r| {
            r.ended.is_some()
                && r.output_start.is_some()
                && (r.index >= self.next || self.open.contains(&r.index))
        })
    }
}

/// `wait_for_command`'s condition: a command that was not finished when
/// the wait began has finished ([`Entry::finished`]); found: its index.
struct Finished(Entry);

impl Condition for Finished {
    type Found = u64;

    fn look(&mut self, seen: &Seen<'_>) -> Option<u64> {
        self.0.finished(seen.term?).map(|r| r.index)
    }
}

/// Waits until a command of `pane` that was not finished when the wait
/// began finishes, on the wait engine ([`crate::tmux::wait`]: woken by
/// each change of the copy, a pane whose program exits or that is
/// killed ends the wait within about 1 s, as `exited` or `pane_gone`).
/// A command at its prompt or running when the wait began counts, so a
/// wait begun just after typing a command sees it end.
///
/// # Errors
///
/// As [`WaitForCommandRequest::run`].
pub(super) async fn wait_for_command(
    server: &Server,
    pane: PaneId,
    req: &WaitForCommandRequest,
) -> Result<WaitForCommandResult, Error> {
    wait_from(server, pane, req, None).await
}

/// [`wait_for_command`] from `entry` (read when the wait begins when
/// `None`): a command typed just before is still waited for even if it
/// ended before the wait began.
pub(super) async fn wait_from(
    server: &Server,
    pane: PaneId,
    req: &WaitForCommandRequest,
    entry: Option<Entry>,
) -> Result<WaitForCommandResult, Error> {
    let limits = Limits::new(req.timeout, req.progress.as_ref(), WAITING);
    let started = limits.started;
    let f = wait::follow(server, pane, None, Some(req.timeout / 2)).await?;
    let entry = match entry {
        Some(e) => e,
        None => {
            let st = f.pane.view();
            let t = st
                .term()
                .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))?;
            Entry::of(t)
        }
    };
    // Subscribed after the entry was read: a change in between is seen by
    // the first look.
    let mut rx = f.pane.subscribe();
    let mut cond = Finished(entry);
    let end = wait::run(server, &f, &mut rx, &mut cond, &limits).await?;
    // The record's lines are read once, from a snapshot (not under the
    // copy's lock).
    let st = f.pane.snapshot();
    let met = matches!(end, End::Met(_) | End::Pane(_, Some(_)));
    let done = met
        .then(|| {
            let t = st.term()?;
            let r = cond.0.finished(t)?;
            let lines = LineNumbers::of(t, std::slice::from_ref(&r));
            let (out, _) = output_of(r, t);
            Some((info(r, t, &lines), tail_of(out)))
        })
        .flatten();
    let (marks, running) = st.term().map_or(("absent", None), |t| {
        let c = t.commands();
        let running = c.records().rev().find(|r| r.running()).map(|r| {
            let lines = LineNumbers::of(t, std::slice::from_ref(&r));
            info(r, t, &lines)
        });
        let marks = if c.marks_seen() > 0 {
            "present"
        } else {
            "absent"
        };
        (marks, running)
    });
    let (outcome, exit, evidence) = match end {
        _ if done.is_some() => (CommandOutcome::Finished, None, Vec::new()),
        End::Reading(i, ev) if wait::reads_password(i) => {
            (CommandOutcome::PasswordPrompt, None, ev)
        }
        End::Reading(_, ev) => (CommandOutcome::AwaitingInput, None, ev),
        End::Pane(e @ Ended::Exited(_), _) => (CommandOutcome::Exited, Some(e), Vec::new()),
        End::Pane(e @ Ended::Gone, _) => (CommandOutcome::PaneGone, Some(e), Vec::new()),
        End::Met(_) | End::Timeout => (CommandOutcome::Timeout, None, Vec::new()),
    };
    let exit = wait::exit_of(exit.as_ref());
    let (command, tail) = done.map_or((None, Vec::new()), |(c, t)| (Some(c), t));
    Ok(WaitForCommandResult {
        found: command.is_some(),
        outcome,
        running: if command.is_some() { None } else { running },
        command,
        tail,
        marks,
        pane_id: pane.to_string(),
        elapsed_seconds: started.elapsed().as_secs_f64(),
        effective_timeout: req.timeout.as_secs_f64(),
        exit,
        evidence,
    })
}

/// The newest of `lines` within [`TAIL_LINES`] and [`TAIL_BYTES`].
fn tail_of(lines: Vec<OutputLine>) -> Vec<String> {
    let mut used = 0;
    let mut keep: Vec<String> = lines
        .into_iter()
        .rev()
        .take(TAIL_LINES)
        .take_while(|l| {
            used += l.text.len() + 1;
            used <= TAIL_BYTES
        })
        .map(|l| l.text)
        .collect();
    keep.reverse();
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(bytes: &[u8]) -> Term {
        let mut t = Term::new(
            30,
            5,
            crate::term::Rules::V36,
            crate::term::Options::default(),
        );
        t.advance(bytes);
        t
    }

    #[test]
    fn the_next_command_to_finish_meets_the_wait() {
        // A finished command before the wait is not the next one; the one
        // at its prompt when the wait began is.
        let mut t = term(
            b"\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07a b\r\n\x1b]133;D;0\x07\
              \x1b]133;A\x07$ \x1b]133;B\x07",
        );
        let mut c = Finished(Entry::of(&t));
        assert_eq!(c.look(&Seen::of_term(&t, 0)), None);
        t.advance(b"make\r\n\x1b]133;C\x07building\r\n");
        assert_eq!(c.look(&Seen::of_term(&t, 0)), None);
        t.advance(b"\x1b]133;D;2\x07\x1b]133;A\x07$ ");
        let i = c.look(&Seen::of_term(&t, 0)).expect("finished");
        let r = t
            .commands()
            .records()
            .find(|r| r.index == i)
            .expect("record");
        assert_eq!(
            (r.command.as_deref(), r.exit_status),
            (Some("make"), Some(2))
        );
    }
}
