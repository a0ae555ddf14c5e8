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
//! Line numbers are tmux's (`capture-pane -S`/`-E`: 0 = the top row of
//! the visible screen, negative in history), of the first row of a
//! logical line, so they can be passed to `capture_pane` as they are.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::Serialize;

use super::fit::{Limit, json_str_len};
use super::{Fit, Op, Server};
use crate::control::PaneId;
use crate::mirror::PaneState;
use crate::term::{CommandEnd, CommandRecord, LineIndex, LineNo, Term};
use crate::tmux::{Error, Selector, Subject};

/// `list_commands`: the newest `limit` commands of a pane, before command
/// `before` when given.
#[derive(Clone, Debug, Default)]
pub struct ListCommandsRequest {
    /// The pane.
    pub pane: Selector,
    /// At most this many commands (the newest).
    pub limit: usize,
    /// Only commands whose index is below this.
    pub before: Option<u64>,
}

/// One command as `list_commands` and `get_command_output` report it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CommandInfo {
    /// Its number in the pane, from 0 (never reused).
    pub index: u64,
    /// The command line as the marks or the screen gave it; null when
    /// unknown.
    pub command: Option<String>,
    /// running | finished | abandoned (a new prompt came before its end
    /// mark) | prompt (typed, not yet run).
    pub state: &'static str,
    /// The status its end mark carried; null when none came or it carried
    /// none (never made up as 0).
    pub exit_status: Option<u8>,
    /// When its output began, Unix time in seconds.
    pub started_at: Option<f64>,
    /// From output start to its end mark, milliseconds.
    pub duration_ms: Option<f64>,
    /// Its output's logical lines (null when it has no output start).
    pub output_lines: Option<u64>,
    /// tmux line number of its first output line.
    pub output_start_line: Option<i64>,
    /// tmux line number of its last output line.
    pub output_end_line: Option<i64>,
    /// Working directory when it started (OSC 7 and the like).
    pub cwd: Option<String>,
    /// osc133 | osc633 | osc1337: the marks it was read from.
    pub source: &'static str,
    /// Always false: a program in the pane can print any mark.
    pub trusted: bool,
    /// 0 for the outermost shell, 1 for a shell started from it, …
    pub depth: u32,
    /// Some of its lines are no longer held (history trimmed, cleared).
    pub trimmed: bool,
}

/// `list_commands`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CommandList {
    /// Pane id, `%N`.
    pub pane_id: String,
    /// present: the pane's shell sent marks; absent: none was seen (the
    /// shell has no integration, so nothing here says what ran).
    pub marks: &'static str,
    /// Oldest first.
    pub commands: Vec<CommandInfo>,
    /// Commands the table holds in all.
    pub total: usize,
    /// Older commands left out (limit, before or the response budget);
    /// pass `before` = the first index shown to get them.
    pub omitted: usize,
}

impl Fit for CommandList {
    fn fit(&mut self, limit: Limit) {
        let Some(max) = limit.get() else { return };
        while !self.commands.is_empty() && serde_json::to_vec(&*self).map_or(0, |v| v.len()) > max {
            let drop = self.commands.len().div_ceil(8);
            self.commands.drain(..drop);
            self.omitted += drop;
        }
    }
}

impl Op for ListCommandsRequest {
    type Response = CommandList;

    /// # Errors
    ///
    /// [`crate::tmux::ErrorKind::NotFound`] for a missing pane;
    /// `Unsupported` with the mirror off; connection errors.
    async fn run(self, server: &Server, _: Limit) -> Result<CommandList, Error> {
        let (pane, st) = copy_of(server, &self.pane).await?;
        let t = st
            .term()
            .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))?;
        let c = t.commands();
        let all: Vec<&CommandRecord> = c
            .records()
            .filter(|r| self.before.is_none_or(|b| r.index < b))
            .collect();
        let keep = all.len().min(self.limit);
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
    }
}

/// `get_command_output`: one command's output lines.
#[derive(Clone, Debug, Default)]
pub struct CommandOutputRequest {
    /// The pane.
    pub pane: Selector,
    /// The command: its index, or counted back from the newest command
    /// that ran when negative (-1: the newest; a prompt still being
    /// edited is not counted).
    pub index: i64,
    /// Keep the first `head` lines (with `tail`: both ends).
    pub head: Option<usize>,
    /// Keep the last `tail` lines.
    pub tail: Option<usize>,
    /// Keep only lines holding this text (case-sensitive), with `context`
    /// lines around each.
    pub grep: Option<String>,
    /// Lines kept around each `grep` match.
    pub context: usize,
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
    /// Pane id, `%N`.
    pub pane_id: String,
    /// The command.
    pub command: CommandInfo,
    /// The lines kept, in order.
    pub lines: Vec<OutputLine>,
    /// Output lines not returned (head/tail/grep/max_bytes or the
    /// budget).
    pub lines_omitted: usize,
    /// Output lines tmux no longer holds (trimmed from history).
    pub lines_missing: u64,
}

impl Fit for CommandOutput {
    fn fit(&mut self, limit: Limit) {
        let Some(max) = limit.get() else { return };
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
        let t = st
            .term()
            .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))?;
        let c = t.commands();
        let rec = if self.index < 0 {
            let back = usize::try_from(self.index.unsigned_abs()).unwrap_or(usize::MAX);
            // From the newest command that ran: the prompt being edited
            // now has no output yet.
            c.records()
                .rev()
                .filter(|r| r.output_start.is_some() || r.ended.is_some())
                .nth(back - 1)
        } else {
            c.get(self.index.unsigned_abs())
        };
        let Some(rec) = rec else {
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
        if let Some(g) = self.grep.as_deref().filter(|g| !g.is_empty()) {
            let hit: Vec<bool> = out.iter().map(|l| l.text.contains(g)).collect();
            let mut keep = vec![false; out.len()];
            for (i, _) in hit.iter().enumerate().filter(|(_, h)| **h) {
                let lo = i.saturating_sub(self.context);
                let hi = (i + self.context).min(out.len() - 1);
                keep[lo..=hi].iter_mut().for_each(|k| *k = true);
            }
            let mut k = keep.into_iter();
            out.retain(|_| k.next().unwrap_or(false));
        }
        match (self.head, self.tail) {
            (Some(h), Some(t)) if h + t < out.len() => {
                out.drain(h..out.len() - t);
            }
            (Some(h), None) => out.truncate(h),
            (None, Some(t)) if t < out.len() => {
                out.drain(..out.len() - t);
            }
            _ => {}
        }
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
}

/// The pane `sel` names and a snapshot of its copy, followed and just
/// confirmed by tmux.
async fn copy_of(server: &Server, sel: &Selector) -> Result<(PaneId, PaneState), Error> {
    let pane = super::follow::pane_id(server, sel).await?;
    let copy = super::follow::followed_copy(server, pane).await?;
    Ok((pane, copy.snapshot()))
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
fn unix_seconds(us: u64) -> Option<f64> {
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
