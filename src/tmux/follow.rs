//! The tools that follow a pane as it runs, answered from its mirrored
//! copy and woken by `%output`, never by polling:
//!
//! * [`Tmux::wait_for_text`]: wait until new output matches;
//! * [`Tmux::capture_since`]: the lines that are new since a cursor;
//! * [`Tmux::run_command`]: type a command, wait for it to finish, and
//!   return its exit status and its own output.
//!
//! Each needs the pane mirror ([`crate::mirror`]); the pane is seeded on
//! first use (one command line) and checked with tmux before the answer.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;

use super::error::Error;
use super::server::Tmux;
use super::target::PaneScope;
use super::typing::TypedPanes;
use crate::control::format::Record;
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::mirror::echo::{Cursor, Echoes, Line, Typed, has_unmasked_text, segments};
use crate::mirror::follow::{Since, Spot, byte_at, cursor_spot, lines_since, text_between};
use crate::mirror::marks::{self, MarkKind};
use crate::mirror::pane::Mark;
use crate::mirror::{PaneMeta, PaneMirror, Progress, Status};
use crate::search::Pattern;
use crate::term::{LineIndex, Term, fingerprint};

/// Lines and bytes `wait_for_text` returns in `matched_lines` and `tail`
/// (libtmux-mcp's caps).
pub const WAIT_LINES: usize = 20;
/// See [`WAIT_LINES`].
pub const WAIT_BYTES: usize = 2000;

/// The fields read about a followed pane.
const FIELDS: &[&str] = &[
    "pane_id",
    "session_id",
    "session_name",
    "window_id",
    "window_name",
    "window_index",
    "pane_index",
    "pane_current_command",
    "pane_tty",
    "pane_pid",
    "pane_dead",
    "pane_dead_status",
    "pane_current_path",
];

/// A pane the mirror follows, as tmux listed it just now.
struct Followed {
    pane: Arc<PaneMirror>,
    pid: u32,
}

/// What [`Tmux::wait_for_text`] waits for.
#[derive(Clone)]
pub struct WaitRequest {
    /// Patterns to wait for; `None`: any new output.
    pub patterns: Option<Vec<Arc<Pattern>>>,
    /// Patterns that end the wait early (checked before `patterns`).
    pub stop: Vec<Arc<Pattern>>,
    /// How long to wait.
    pub timeout: Duration,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<Progress>,
}

/// How a wait ended (libtmux-mcp's outcomes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A line matched one of `patterns`.
    Matched,
    /// New output arrived (`patterns` was null).
    AnyOutput,
    /// A line matched one of `stop`.
    Stopped,
    /// The time ran out while the pane showed the alternate screen.
    AlternateScreen,
    /// The time ran out.
    Timeout,
}

/// The answer of `wait_for_text` (libtmux-mcp `WaitForTextResult`, plus
/// `pane_dead` and `exit_status`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct WaitForTextResult {
    /// True when the outcome is `matched` or `any_output`.
    pub found: bool,
    /// How the wait ended.
    pub outcome: Outcome,
    /// Which pattern matched (0-based index into `patterns`, or into
    /// `stop` for `stopped`); null otherwise.
    pub matched_index: Option<usize>,
    /// The new lines that matched, oldest first (at most 20 lines and
    /// 2000 bytes, the newest kept).
    pub matched_lines: Vec<String>,
    /// The last new lines when the wait ended, the line the cursor is on
    /// included (at most 20 lines and 2000 bytes).
    pub tail: Vec<String>,
    /// Whether the pane printed anything new during the wait.
    pub saw_new_output: bool,
    /// Whether a pattern already matched a line of the visible screen
    /// when the wait began (the wait still waits for new output).
    pub matched_at_entry: bool,
    /// Whether the pane shows the alternate screen (a full-screen
    /// program) at the end.
    pub alternate_screen: bool,
    /// The pane, `%N`.
    pub pane_id: String,
    /// Seconds waited.
    pub elapsed_seconds: f64,
    /// The timeout applied, in seconds (after clamping to the ceiling).
    pub effective_timeout: f64,
    /// The pane's program exited during the wait (its last output was
    /// still matched).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
}

/// The answer of `capture_since` (libtmux-mcp `CaptureSinceResult`, plus
/// `partial_line`, `first_line_index`, `alternate_screen` and
/// `pane_dead`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CaptureSinceResult {
    /// The pane, `%N`.
    pub pane_id: String,
    /// Pass this back to get the lines after these (opaque; starts with
    /// `tmuxwire-cursor-v1.`).
    pub cursor: String,
    /// The new complete logical lines (soft wraps joined, trailing spaces
    /// trimmed), oldest first; each line is returned once, when the cursor
    /// has moved past it.
    pub lines: Vec<String>,
    /// The line the cursor is on, as it is now (a prompt, or output still
    /// being written); returned again in `lines` once complete.
    pub partial_line: String,
    /// Seconds the call took.
    pub elapsed_seconds: f64,
    /// True when lines between the cursor and `lines` are gone: tmux
    /// trimmed or cleared its history, or the copy could not be matched
    /// to the cursor (then `lines` starts at the visible screen).
    pub lines_missed: bool,
    /// True when older lines were left out for `max_lines`/`max_bytes`.
    pub truncated: bool,
    /// Lines left out.
    pub truncated_lines: usize,
    /// Bytes left out (line breaks not counted).
    pub truncated_bytes: usize,
    /// Whether the pane shows the alternate screen: a full-screen program
    /// draws there and adds no lines; `lines` is empty meanwhile.
    pub alternate_screen: bool,
    /// The pane's program has exited; these are its last lines.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
}

/// What [`Tmux::run_command`] runs.
#[derive(Clone)]
pub struct RunRequest {
    /// The shell command (may span lines).
    pub command: String,
    /// How long to wait for it.
    pub timeout: Duration,
    /// Lines of output kept (the newest); `None`: all, within the
    /// response budget.
    pub max_lines: Option<usize>,
    /// Type a leading space, so shells with `ignorespace` keep the
    /// command out of their history.
    pub suppress_history: bool,
    /// Send C-c when the time runs out.
    pub interrupt_on_timeout: bool,
    /// Where to report progress.
    pub progress: Option<Progress>,
}

/// The answer of `run_command` (libtmux-mcp `RunCommandResult`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RunCommandResult {
    /// The pane, `%N`.
    pub pane_id: String,
    /// The command's exit status (`$?`); null when it timed out.
    pub exit_status: Option<i32>,
    /// Whether the time ran out first (the command may still run; see
    /// `interrupted`).
    pub timed_out: bool,
    /// Seconds waited.
    pub elapsed_seconds: f64,
    /// What the command printed, and only that (not its echo, not the
    /// prompt), as logical lines; on a timeout, what it printed so far.
    pub output: Vec<String>,
    /// True when older lines were left out for `max_lines`.
    pub output_truncated: bool,
    /// Lines left out.
    pub output_truncated_lines: usize,
    /// The timeout applied, in seconds.
    pub effective_timeout: f64,
    /// C-c was sent after the timeout.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// False when part of the output could not be recovered: the pane
    /// printed so much that tmux paused it, or tmux trimmed it from its
    /// history before the command ended.
    pub output_complete: bool,
    /// What to do next, when the command did not finish: it still runs
    /// (the pane's next `run_command` waits behind it), or the shell never
    /// started it (busy, or waiting for more input such as an unclosed
    /// quote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A `capture_since` cursor: where the previous answer stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinceCursor {
    /// The tmux server's pid.
    pub server_pid: u32,
    /// The pane.
    pub pane: PaneId,
    /// Its program's pid (a respawned pane has a new one).
    pub pane_pid: u32,
    /// The first line not returned yet.
    pub next: LineIndex,
    /// The hash ([`fingerprint`]) of the last line returned (line
    /// `next - 1`), to check the copy still agrees.
    pub hash: u64,
}

const CURSOR_PREFIX: &str = "tmuxwire-cursor-v1.";

impl SinceCursor {
    /// The text handed to callers.
    pub fn encode(&self) -> String {
        format!(
            "{CURSOR_PREFIX}{}.{}.{}.{}.{:016x}",
            self.server_pid, self.pane.0, self.pane_pid, self.next.0, self.hash
        )
    }

    /// Reads a cursor back.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for text [`SinceCursor::encode`] did not
    /// make.
    pub fn decode(text: &str) -> Result<SinceCursor, Error> {
        let bad = |why: &str| {
            Error::invalid(
                "cursor",
                format!("invalid capture_since cursor: {why}"),
                "a cursor returned by capture_since, or null for a first call",
            )
        };
        let body = text
            .strip_prefix(CURSOR_PREFIX)
            .ok_or_else(|| bad("unsupported cursor format"))?;
        let parts: Vec<&str> = body.split('.').collect();
        let [server, pane, pid, next, hash] = parts[..] else {
            return Err(bad("wrong number of fields"));
        };
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad("a field is not a number"));
        let small = |s: &str| s.parse::<u32>().map_err(|_| bad("a field is out of range"));
        Ok(SinceCursor {
            server_pid: small(server)?,
            pane: PaneId(small(pane)?),
            pane_pid: small(pid)?,
            next: LineIndex(num(next)?),
            hash: u64::from_str_radix(hash, 16).map_err(|_| bad("bad hash"))?,
        })
    }
}

/// How a wait treats the line the cursor was on when it began.
enum Entry {
    /// Empty then: all of it is new.
    Whole,
    /// The prompt line where tmuxwire typed input just before: its echo.
    Echo,
    /// It held this text then: only what follows it is new (public case
    /// C13: a prompt with a command typed by someone else is not output).
    After(Vec<u8>),
}

/// The echoes of what tmuxwire typed into a pane, rebuilt when more is
/// typed (a wait looks again at each change of the pane).
struct Typing {
    pane: PaneId,
    generation: Option<u64>,
    echoes: Echoes,
}

impl Typing {
    fn new(pane: PaneId) -> Typing {
        Typing {
            pane,
            generation: None,
            echoes: Echoes::default(),
        }
    }

    /// Takes in what was typed since the last call.
    fn refresh(&mut self, typed: &TypedPanes) {
        let g = typed.generation(self.pane);
        if self.generation != Some(g) {
            self.echoes = Echoes::new(&typed.since(self.pane, 0));
            self.generation = Some(g);
        }
    }
}

/// Where the cursor is among `lines` (the screen's logical lines, or the
/// lines of a wait ending with the cursor's): its position and byte.
/// `None` when nothing is masked anyway (no typed input).
fn cursor_among(t: &Term, lines: &[Line<'_>], spot: Spot, echoes: &Echoes) -> Option<Cursor> {
    if echoes.is_empty() {
        return None;
    }
    let line = lines.iter().position(|l| l.index == spot.line)?;
    let byte = t
        .screen_logical_lines()
        .find(|l| l.index == spot.line)
        .map_or(usize::MAX, |l| byte_at(&l, spot.row, spot.column, t));
    Some(Cursor { line, byte })
}

/// Whether `p` matches `text` outside its `masked` ranges (each unmasked
/// segment searched in place, never glued to the next).
fn matches_outside(p: &Pattern, text: &[u8], masked: &[Range<usize>]) -> bool {
    segments(text.len(), masked)
        .into_iter()
        .any(|r| p.is_match_within(text, r))
}

/// Keeps the newest lines within [`WAIT_LINES`] and [`WAIT_BYTES`].
fn cap_lines(lines: &mut VecDeque<String>) {
    while lines.len() > WAIT_LINES {
        lines.pop_front();
    }
    let mut total: usize = lines.iter().map(String::len).sum();
    while total > WAIT_BYTES && lines.len() > 1 {
        if let Some(l) = lines.pop_front() {
            total -= l.len();
        }
    }
    if total > WAIT_BYTES
        && let Some(l) = lines.front_mut()
    {
        let mut cut = l.len() - WAIT_BYTES;
        while !l.is_char_boundary(cut) {
            cut += 1;
        }
        l.replace_range(..cut, "…");
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The text of line `index` in `term`, if held.
fn line_text(term: &Term, index: LineIndex) -> Option<Vec<u8>> {
    let since = lines_since(term, index, usize::MAX);
    if since.first != index {
        return None;
    }
    if since.cursor_line == index {
        return Some(since.partial);
    }
    since.lines.into_iter().next()
}

impl Tmux {
    /// Makes sure the mirror follows `pane` and tmux has just confirmed
    /// its copy.
    async fn follow(&self, pane: PaneId, progress: Option<&Progress>) -> Result<Followed, Error> {
        let Some(m) = self.mirror().await else {
            // Distinguish a server that is gone from a mirror turned off.
            self.connect().await?;
            return Err(Error::unsupported(
                "this tool follows the pane's output and needs the pane mirror, which is off",
            ));
        };
        let target = Target::Pane(pane);
        let recs =
            super::op::list::pane_records(self, &PaneScope::Window(target.clone()), FIELDS).await?;
        let pane_str = pane.to_string();
        let rec: &Record = recs
            .iter()
            .find(|r| r.str(0) == pane_str)
            .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))?;
        let session = rec
            .str(1)
            .parse()
            .map_err(|_| Error::connection("tmux listed a pane without a session"))?;
        let meta = PaneMeta::of(rec, FIELDS);
        let pid = rec.int(9).and_then(|p| u32::try_from(p).ok()).unwrap_or(0);
        let confirmed = m.sync_with(&[(pane, session, meta)], progress).await;
        let p = m
            .pane(pane)
            .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))?;
        let usable = confirmed.contains(&pane) || p.view().status() == Status::Dead;
        if !usable || p.view().term().is_none() {
            return Err(Error::timeout(format!(
                "tmuxwire could not follow pane {pane}: its copy was not confirmed by tmux in time \
                 (the pane may be printing faster than tmux sends its output)"
            )));
        }
        Ok(Followed { pane: p, pid })
    }

    /// Waits until new output of `pane` matches (see the module docs and
    /// [`WaitForTextResult`]).
    ///
    /// Lines count as new when they come after the line the cursor was on
    /// when the wait began. That line itself counts only if it was empty
    /// then: a line holding a prompt is where a command typed just before
    /// echoes, and the echo is not output (public case C13). Every echo
    /// of text tmuxwire typed into the pane (typeahead the tty echoed
    /// while the program was busy, a line editor's later redraws, at any
    /// column, over several rows, or still being drawn) is masked out of
    /// the lines looked at ([`crate::mirror::echo`]), and patterns match
    /// only in what is left, each part on its own. Each change of the copy
    /// wakes the wait; only the lines that changed (and the line before
    /// the cursor's, which an echo may carry over into it) are matched
    /// again.
    ///
    /// # Errors
    ///
    /// A missing pane; the mirror being off; connection errors.
    pub async fn wait_for_text(
        &self,
        pane: PaneId,
        req: &WaitRequest,
    ) -> Result<WaitForTextResult, Error> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + req.timeout;
        let f = self.follow(pane, None).await?;
        let mut typing = Typing::new(pane);
        typing.refresh(&self.typed);

        // The state at entry.
        let typed = f.pane.typed_from();
        let (entry_line, entry, matched_at_entry) = {
            let st = f.pane.view();
            let Some(t) = st.term() else {
                return Err(Error::not_found(format!("can't find pane: {pane}")));
            };
            let spot = cursor_spot(t);
            let since = lines_since(t, spot.line, 0);
            let screen: Vec<_> = t.screen_logical_lines().collect();
            let window: Vec<Line<'_>> = screen
                .iter()
                .map(|l| Line {
                    index: l.index,
                    text: &l.text,
                })
                .collect();
            let epoch = (!t.alternate_on()).then_some(st.epoch());
            let masks = typing.echoes.mask(
                &window,
                cursor_among(t, &window, spot, &typing.echoes),
                epoch,
            );
            let at_entry = req.patterns.as_ref().is_some_and(|ps| {
                window
                    .iter()
                    .zip(&masks)
                    .any(|(l, m)| ps.iter().any(|p| matches_outside(p, l.text, m)))
            });
            // Input tmuxwire typed in the last seconds: what the pane
            // printed from that line on answers it, even if it came before
            // this wait (a fast command typed by send_keys just before).
            match typed {
                Some(from) if from.epoch == st.epoch() && from.line < spot.line => {
                    let entry = if from.had_text {
                        Entry::Echo
                    } else {
                        Entry::Whole
                    };
                    (from.line, entry, at_entry)
                }
                _ if since.partial.is_empty() => (spot.line, Entry::Whole, at_entry),
                _ => (spot.line, Entry::After(since.partial), at_entry),
            }
        };
        // Subscribed after the entry state was read: a change in between
        // is seen by the first look below; later ones wake the wait.
        let mut rx = f.pane.subscribe();
        // Lines before `checked` (other than the entry line and the
        // cursor's) have been looked at already; the last of them is looked
        // at again while the cursor's line follows it, as an echo carried
        // over a line break is told by the line after it.
        let mut checked = entry_line + 1;
        let mut entry_done = false;
        // The last complete line looked at, and whether it was output.
        let mut last_seen: Option<(LineIndex, bool)> = None;
        let mut tail: VecDeque<String> = VecDeque::new();
        let mut partial_now = String::new();
        let mut matched: VecDeque<String> = VecDeque::new();
        let mut saw_new_output = false;
        let mut outcome = None;
        let mut matched_index = None;
        let mut alternate = false;
        let mut dead;
        loop {
            typing.refresh(&self.typed);
            {
                let st = f.pane.view();
                dead = st.status() == Status::Dead;
                if let Some(t) = st.term()
                    && matches!(st.status(), Status::Live | Status::Dead)
                {
                    alternate = t.alternate_on();
                    let spot = cursor_spot(t);
                    // Lines to match, each with its masked ranges.
                    let mut candidates: Vec<(Vec<u8>, Vec<Range<usize>>)> = Vec::new();
                    if alternate {
                        // Redrawn, not appended to: looked at afresh.
                        let screen: Vec<_> = t.screen_logical_lines().collect();
                        let window: Vec<Line<'_>> = screen
                            .iter()
                            .map(|l| Line {
                                index: l.index,
                                text: &l.text,
                            })
                            .collect();
                        let masks = typing.echoes.mask(
                            &window,
                            cursor_among(t, &window, spot, &typing.echoes),
                            None,
                        );
                        candidates
                            .extend(window.iter().zip(masks).map(|(l, m)| (l.text.to_vec(), m)));
                        partial_now.clear();
                    } else {
                        let from = if entry_done {
                            LineIndex(checked.0.saturating_sub(1)).max(entry_line)
                        } else {
                            entry_line
                        };
                        let since = lines_since(t, from, usize::MAX);
                        let mut all: Vec<(LineIndex, Vec<u8>, bool)> = since
                            .lines
                            .into_iter()
                            .enumerate()
                            .map(|(k, l)| (since.first + k as u64, l, true))
                            .collect();
                        all.push((since.cursor_line, since.partial, false));
                        let masks = {
                            let window: Vec<Line<'_>> = all
                                .iter()
                                .map(|(i, text, _)| Line { index: *i, text })
                                .collect();
                            let cursor = cursor_among(t, &window, spot, &typing.echoes);
                            typing.echoes.mask(&window, cursor, Some(st.epoch()))
                        };
                        let mut seen = None;
                        for ((i, text, complete), mut mask) in all.into_iter().zip(masks) {
                            // The entry line is new output the first time it is
                            // complete; other complete lines, the first time they
                            // are past `checked`.
                            let mut again = complete && i < checked;
                            if i == entry_line {
                                again = complete && entry_done;
                                entry_done |= complete;
                                match &entry {
                                    // The prompt line where tmuxwire typed:
                                    // its echo, not output.
                                    Entry::Echo => continue,
                                    // A line that held text when the wait
                                    // began (a prompt, or output still being
                                    // written): only what was added since.
                                    Entry::After(before) => {
                                        if text.len() <= before.len() || !text.starts_with(before) {
                                            continue;
                                        }
                                        mask.insert(0, 0..before.len());
                                        merge_ranges(&mut mask);
                                    }
                                    Entry::Whole => {}
                                }
                            }
                            let output = has_unmasked_text(&text, &mask);
                            if complete {
                                seen = Some((i, output));
                                // Looked at before: new output only if it
                                // was all echo then (its next line has
                                // shown it is not).
                                let fresh =
                                    !again || last_seen.is_some_and(|(l, was)| l == i && !was);
                                if output && fresh {
                                    saw_new_output = true;
                                    tail.push_back(lossy(&text));
                                }
                            } else if output {
                                saw_new_output = true;
                                partial_now = lossy(&text);
                            } else {
                                partial_now.clear();
                            }
                            if output {
                                candidates.push((text, mask));
                            }
                        }
                        if seen.is_some() {
                            last_seen = seen;
                        }
                        checked = checked.max(since.cursor_line);
                        cap_lines(&mut tail);
                    }
                    if let Some((i, line)) = first_match(&req.stop, &candidates) {
                        outcome = Some(Outcome::Stopped);
                        matched_index = Some(i);
                        matched.push_back(lossy(line));
                    } else if let Some(ps) = &req.patterns {
                        for (c, m) in &candidates {
                            if let Some(i) = ps.iter().position(|p| matches_outside(p, c, m)) {
                                matched_index.get_or_insert(i);
                                matched.push_back(lossy(c));
                            }
                        }
                        if !matched.is_empty() {
                            outcome = Some(Outcome::Matched);
                        }
                    } else if saw_new_output && !alternate {
                        outcome = Some(Outcome::AnyOutput);
                    }
                    if alternate {
                        tail = candidates.iter().map(|(c, _)| lossy(c)).collect();
                        while tail.back().is_some_and(String::is_empty) {
                            tail.pop_back();
                        }
                        cap_lines(&mut tail);
                    }
                }
            }
            if outcome.is_some() || dead {
                break;
            }
            if let Some(p) = &req.progress {
                let waited = started.elapsed().as_secs();
                p(waited, req.timeout.as_secs().max(1), "waiting for output");
            }
            match tokio::time::timeout_at(wake_at(deadline, req.progress.as_ref()), rx.changed())
                .await
            {
                Ok(Ok(())) => {}
                // The copy is gone (mirror stopped).
                Ok(Err(_)) => break,
                // The time is up, or a progress tick is due.
                Err(_) if tokio::time::Instant::now() >= deadline => break,
                Err(_) => {}
            }
        }
        if !partial_now.is_empty() {
            tail.push_back(partial_now);
            cap_lines(&mut tail);
        }
        cap_lines(&mut matched);
        let outcome = outcome.unwrap_or(if alternate {
            Outcome::AlternateScreen
        } else {
            Outcome::Timeout
        });
        Ok(WaitForTextResult {
            found: matches!(outcome, Outcome::Matched | Outcome::AnyOutput),
            outcome,
            matched_index,
            matched_lines: matched.into(),
            tail: tail.into(),
            saw_new_output,
            matched_at_entry,
            alternate_screen: alternate,
            pane_id: pane.to_string(),
            elapsed_seconds: started.elapsed().as_secs_f64(),
            effective_timeout: req.timeout.as_secs_f64(),
            pane_dead: dead,
        })
    }

    /// The lines of `pane` that are new since `cursor` (see
    /// [`CaptureSinceResult`]); without a cursor, the visible screen's
    /// complete lines.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a cursor of another pane or server,
    /// or of a pane that was respawned; [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a pane
    /// that is gone and whose lines have all been returned.
    pub async fn capture_since(
        &self,
        pane: PaneId,
        cursor: Option<&SinceCursor>,
        max_lines: usize,
        max_bytes: usize,
    ) -> Result<CaptureSinceResult, Error> {
        let started = Instant::now();
        let f = self.follow(pane, None).await?;
        let server_pid = self.mirrored_server_pid().await.unwrap_or(0);
        if let Some(c) = cursor {
            if c.server_pid != server_pid {
                return Err(Error::invalid(
                    "cursor",
                    "the cursor is from another tmux server (or the server was restarted)",
                    "a cursor returned by capture_since on this server, or null to start over",
                ));
            }
            if c.pane != pane {
                return Err(Error::invalid(
                    "cursor",
                    format!(
                        "cursor pane {} does not match requested pane {pane}",
                        c.pane
                    ),
                    "the pane the cursor came from, or no target (the cursor's pane is used)",
                ));
            }
        }
        if let Some(c) = cursor
            && f.pid != 0
            && c.pane_pid != f.pid
        {
            return Err(Error::invalid(
                "cursor",
                format!(
                    "pane {pane} was respawned (pid {} -> {}); its earlier output is gone",
                    c.pane_pid, f.pid
                ),
                "null, to start over from the visible screen",
            ));
        }
        // A snapshot: finding the cursor's line may walk the history.
        let st = f.pane.snapshot();
        let dead = st.status() == Status::Dead;
        let Some(t) = st.term() else {
            return Err(Error::not_found(format!("can't find pane: {pane}")));
        };
        let alternate = t.alternate_on();
        let spot = cursor_spot(t);
        let mut missed = false;
        let from = match cursor {
            None => t.history().end_index(),
            Some(_) if alternate => spot.line,
            Some(c) => {
                let agrees = c.next.0 == 0
                    || line_text(t, LineIndex(c.next.0 - 1)).map(|l| fingerprint(&l))
                        == Some(c.hash);
                if agrees || c.next < t.history().first_index() {
                    missed = c.next < t.history().first_index();
                    c.next
                } else {
                    match find_line(t, c.hash, c.next) {
                        Some(i) => i + 1,
                        None => {
                            missed = true;
                            t.history().end_index()
                        }
                    }
                }
            }
        };
        let Since {
            first,
            lines,
            cursor_line,
            partial,
        } = if alternate && cursor.is_some() {
            Since {
                first: from,
                lines: Vec::new(),
                cursor_line: from,
                partial: Vec::new(),
            }
        } else {
            lines_since(t, from, max_lines)
        };
        if first > from {
            let trimmed = from < t.history().first_index();
            missed |= trimmed;
        }
        if dead && lines.is_empty() && cursor.is_some() {
            return Err(Error::not_found(format!(
                "pane {pane} is dead and all of its output has been returned"
            )));
        }
        let mut truncated_lines =
            (cursor_line.0.saturating_sub(from.0) as usize).saturating_sub(lines.len());
        let mut truncated_bytes = 0usize;
        // Bytes: drop whole lines from the front.
        let mut out: VecDeque<String> = lines.iter().map(|l| lossy(l)).collect();
        let mut total: usize = out.iter().map(String::len).sum();
        while total > max_bytes
            && let Some(l) = out.pop_front()
        {
            total -= l.len();
            truncated_bytes += l.len();
            truncated_lines += 1;
        }
        let next = if alternate && cursor.is_some() {
            from
        } else {
            cursor_line
        };
        let hash = if next.0 == 0 {
            0
        } else {
            line_text(t, LineIndex(next.0 - 1)).map_or(0, |l| fingerprint(&l))
        };
        let new_cursor = SinceCursor {
            server_pid,
            pane,
            pane_pid: f.pid,
            next,
            hash,
        };
        Ok(CaptureSinceResult {
            pane_id: pane.to_string(),
            cursor: new_cursor.encode(),
            lines: out.into(),
            partial_line: lossy(&partial),
            elapsed_seconds: started.elapsed().as_secs_f64(),
            lines_missed: missed,
            truncated: truncated_lines > 0,
            truncated_lines,
            truncated_bytes,
            alternate_screen: alternate,
            pane_dead: dead,
        })
    }

    /// Types `req.command` into the shell in `pane`, waits for it to end,
    /// and returns its exit status and its own output (see
    /// [`RunCommandResult`]).
    ///
    /// The shell is given
    /// `printf <start mark>; (⏎<command>⏎); printf <end mark> "$?"` and
    /// Enter ([`crate::mirror::marks`]): the output is exactly the text
    /// between the two marks, so neither the echo of what was typed nor
    /// the prompt is part of it. The command runs in a subshell: `cd` and
    /// `export` do not outlast it. Commands for one pane run one at a
    /// time, in the order they were asked for. The shell must be a POSIX
    /// shell at its prompt.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for an empty command, or a multi-line
    /// one with `suppress_history`; a missing pane; connection errors.
    pub async fn run_command(
        &self,
        pane: PaneId,
        req: &RunRequest,
    ) -> Result<RunCommandResult, Error> {
        let started = Instant::now();
        check_command(&req.command, req.suppress_history)?;
        let f = self.follow(pane, req.progress.as_ref()).await?;
        if f.pane.view().status() == Status::Dead {
            return Err(Error::not_found(format!(
                "pane {pane} is dead: there is no shell to run the command in"
            )));
        }
        let lock = f.pane.run_lock();
        let _turn = lock.lock().await;
        let nonce = crate::nonce::u128();
        let mut rx = f.pane.subscribe();
        let typed = format!(
            "{}printf '{}'; (\n{}\n); printf '{}' \"$?\"",
            if req.suppress_history { " " } else { "" },
            marks::start_printf(nonce),
            req.command,
            marks::end_printf(nonce),
        );
        let target = Target::Pane(pane);
        // Noted before it is sent: what is typed into the pane from now on
        // (numbered after `typed_upto`) can only be typeahead echoed while
        // the command runs.
        let typed_upto = self.note_typed(
            &pane.to_string(),
            typed.as_bytes(),
            true,
            f.pane.cursor_origin(),
        );
        let cmds = [
            Command::new("send-keys")
                .target(&target, TargetKind::Pane)
                .arg("-l")
                .arg("--")
                .arg(&typed),
            Command::new("send-keys")
                .target(&target, TargetKind::Pane)
                .arg("Enter"),
        ];
        for out in self.run_all(&cmds).await? {
            out.into_result()?;
        }
        let deadline = tokio::time::Instant::now() + req.timeout;
        let find = |st: &crate::mirror::PaneState, kind: fn(MarkKind) -> bool| -> Option<Mark> {
            st.marks()
                .rev()
                .find(|m| m.nonce == nonce && kind(m.kind))
                .copied()
        };
        let is_start = |k: MarkKind| k == MarkKind::Start;
        let is_end = |k: MarkKind| matches!(k, MarkKind::End(_));
        let mut timed_out = false;
        loop {
            {
                let st = f.pane.view();
                if find(&st, is_end).is_some() || st.status() == Status::Dead {
                    break;
                }
            }
            if let Some(p) = &req.progress {
                p(
                    started.elapsed().as_secs(),
                    req.timeout.as_secs().max(1),
                    "waiting for the command",
                );
            }
            match tokio::time::timeout_at(wake_at(deadline, req.progress.as_ref()), rx.changed())
                .await
            {
                Ok(Ok(())) => {}
                Err(_) if tokio::time::Instant::now() < deadline => {}
                Ok(Err(_)) | Err(_) => {
                    timed_out = true;
                    break;
                }
            }
        }
        let limit = req.max_lines.unwrap_or(usize::MAX);
        let (end, output, omitted, complete, began) = {
            // A snapshot: the command's output may be long.
            let st = f.pane.snapshot();
            let start = find(&st, is_start);
            let end = find(&st, is_end);
            let began = start.is_some();
            let (output, omitted, complete) = match (st.term(), start) {
                (Some(t), Some(s)) if s.epoch == st.epoch() => {
                    let to = match end {
                        Some(e) if e.epoch == st.epoch() => e.at,
                        _ => cursor_spot(t),
                    };
                    let complete = end.is_none_or(|e| e.epoch == st.epoch());
                    let first = t.history().first_index();
                    if s.at.line < first {
                        // The command printed more than the pane's history
                        // holds: its newest lines, the lost ones counted.
                        let lost = usize::try_from(first.0 - s.at.line.0).unwrap_or(usize::MAX);
                        let from = Spot {
                            line: first,
                            row: 0,
                            column: 0,
                        };
                        match text_between(t, from, to, limit) {
                            Some((lines, omitted)) => (lines, omitted.saturating_add(lost), false),
                            None => (Vec::new(), lost, false),
                        }
                    } else {
                        match text_between(t, s.at, to, limit) {
                            Some((lines, omitted)) => (lines, omitted, complete),
                            None => (Vec::new(), 0, false),
                        }
                    }
                }
                _ => (Vec::new(), 0, false),
            };
            (end, output, omitted, complete, began)
        };
        // What it printed so far is read before C-c, whose echo is not output.
        let mut interrupted = false;
        if timed_out && req.interrupt_on_timeout {
            let c_c = Command::new("send-keys")
                .target(&target, TargetKind::Pane)
                .arg("C-c");
            self.run(&c_c).await?.into_result()?;
            interrupted = true;
        }
        let exit_status = match end.map(|e| e.kind) {
            Some(MarkKind::End(s)) => Some(s),
            _ => None,
        };
        let output = drop_typeahead(&self.typed.since(pane, typed_upto), output, end.is_none());
        let mut output: Vec<String> = output.iter().map(|l| lossy(l)).collect();
        if timed_out {
            while output.last().is_some_and(String::is_empty) {
                output.pop();
            }
        }
        Ok(RunCommandResult {
            pane_id: pane.to_string(),
            exit_status,
            timed_out: exit_status.is_none() && timed_out,
            elapsed_seconds: started.elapsed().as_secs_f64(),
            output,
            output_truncated: omitted > 0,
            output_truncated_lines: omitted,
            effective_timeout: req.timeout.as_secs_f64(),
            interrupted,
            output_complete: complete && (exit_status.is_some() || timed_out),
            note: match (timed_out, began, interrupted) {
                (true, false, _) => Some(
                    "the shell never started the command: it is still running an earlier one, or \
                     waits for more input (an unclosed quote?); send_keys with keys C-c brings \
                     the prompt back"
                        .into(),
                ),
                (true, true, false) => Some(
                    "the command is still running; a later run_command in this pane types behind \
                     it: interrupt it with send_keys keys C-c, or pass interrupt_on_timeout"
                        .into(),
                ),
                _ => None,
            },
        })
    }
}

/// `run_command`'s output without the lines that are wholly the echo of
/// input tmuxwire typed into the pane while the command ran (`during`;
/// typeahead the tty echoed between the marks). Input typed before the
/// command cannot be echoed there: the shell read it before the command's
/// line. A line that also holds output is kept whole. `open`: the last
/// line is the cursor's (the command has not ended).
fn drop_typeahead(during: &[Typed], output: Vec<Vec<u8>>, open: bool) -> Vec<Vec<u8>> {
    if during.is_empty() || output.is_empty() {
        return output;
    }
    let echoes = Echoes::new(during);
    let window: Vec<Line<'_>> = output
        .iter()
        .enumerate()
        .map(|(k, l)| Line {
            index: LineIndex(k as u64),
            text: l,
        })
        .collect();
    let cursor = open.then(|| Cursor {
        line: window.len() - 1,
        byte: usize::MAX,
    });
    let masks = echoes.mask(&window, cursor, None);
    let keep: Vec<bool> = output
        .iter()
        .zip(&masks)
        .map(|(l, m)| m.is_empty() || has_unmasked_text(l, m))
        .collect();
    output
        .into_iter()
        .zip(keep)
        .filter_map(|(l, k)| k.then_some(l))
        .collect()
}

/// The first `(pattern index, line)` where one of `patterns` matches a
/// line outside its masked ranges.
fn first_match<'a>(
    patterns: &[Arc<Pattern>],
    lines: &'a [(Vec<u8>, Vec<Range<usize>>)],
) -> Option<(usize, &'a [u8])> {
    lines.iter().find_map(|(l, m)| {
        patterns
            .iter()
            .position(|p| matches_outside(p, l, m))
            .map(|i| (i, l.as_slice()))
    })
}

/// Sorts and merges overlapping ranges.
fn merge_ranges(m: &mut Vec<Range<usize>>) {
    m.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(m.len());
    for r in m.drain(..) {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    *m = out;
}

/// The newest held line before `before` whose hash is `hash`.
fn find_line(term: &Term, hash: u64, before: LineIndex) -> Option<LineIndex> {
    let since = lines_since(term, term.history().first_index(), usize::MAX);
    let mut found = None;
    for (k, l) in since.lines.iter().enumerate() {
        let i = since.first + k as u64;
        if fingerprint(l) == hash {
            found = Some(i);
            if i.0 + 1 >= before.0 {
                break;
            }
        }
    }
    found
}

/// How often a wait with a progress sink reports while nothing happens.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// When a wait next wakes by itself: at `deadline`, or sooner to report
/// progress (once a second) when there is a sink.
fn wake_at(deadline: tokio::time::Instant, progress: Option<&Progress>) -> tokio::time::Instant {
    match progress {
        Some(_) => deadline.min(tokio::time::Instant::now() + PROGRESS_EVERY),
        None => deadline,
    }
}

/// Checks a command `run_command` is asked to run: not empty, and one
/// line when `suppress_history` (a leading space keeps only the first
/// line of a multi-line command out of history).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument).
pub fn check_command(command: &str, suppress_history: bool) -> Result<(), Error> {
    if command.trim().is_empty() {
        return Err(Error::invalid(
            "command",
            "command must not be empty",
            "a shell command",
        ));
    }
    if suppress_history && command.contains('\n') {
        return Err(Error::invalid(
            "command",
            "command must be a single line when suppress_history=true",
            "one line, or suppress_history=false",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips_and_rejects_junk() {
        let c = SinceCursor {
            server_pid: 42,
            pane: PaneId(7),
            pane_pid: 999,
            next: LineIndex(123_456),
            hash: 0xdead_beef,
        };
        assert_eq!(SinceCursor::decode(&c.encode()).ok(), Some(c));
        for junk in [
            "",
            "capture-since-v1:abc",
            "tmuxwire-cursor-v1.",
            "tmuxwire-cursor-v1.1.2.3.4",
            "tmuxwire-cursor-v1.1.2.3.4.zz",
            "tmuxwire-cursor-v1.1.-2.3.4.0",
            "tmuxwire-cursor-v1.99999999999.2.3.4.0",
        ] {
            assert!(SinceCursor::decode(junk).is_err(), "{junk:?}");
        }
    }

    #[test]
    fn typeahead_lines_leave_run_command_output() {
        let mut log = crate::mirror::echo::TypedLog::new();
        let mut seq = 0;
        log.note(b"echo later", true, None, &mut seq);
        let during: Vec<Typed> = log.lines().cloned().collect();
        let out = |v: &[&str]| v.iter().map(|l| l.as_bytes().to_vec()).collect::<Vec<_>>();
        assert_eq!(
            drop_typeahead(
                &during,
                out(&["a", "echo later", "50% echo later", ""]),
                false
            ),
            out(&["a", "50% echo later", ""])
        );
        assert_eq!(
            drop_typeahead(&[], out(&["echo later"]), false),
            out(&["echo later"])
        );
        // Still being typed at the cursor.
        assert_eq!(
            drop_typeahead(&during, out(&["a", "echo la"]), true),
            out(&["a"])
        );
    }

    // Single ranges are masks, not ranges meant as their items.
    #[allow(clippy::single_range_in_vec_init)]
    #[test]
    fn matching_never_glues_segments() {
        let p = Pattern::new("ab", crate::search::PatternOptions::literal()).expect("pattern");
        assert!(!matches_outside(&p, b"aXb", &[1..2]));
        assert!(matches_outside(&p, b"abXab", &[0..2, 2..3]));
        assert!(!matches_outside(&p, b"ab", &[0..1]));
    }

    #[test]
    fn caps_keep_the_newest() {
        let mut l: VecDeque<String> = (0..30).map(|i| i.to_string()).collect();
        cap_lines(&mut l);
        assert_eq!(l.len(), WAIT_LINES);
        assert_eq!(l.back().map(String::as_str), Some("29"));
        let mut big: VecDeque<String> = ["x".repeat(5000)].into();
        cap_lines(&mut big);
        assert!(big[0].len() <= WAIT_BYTES + "…".len());
    }
}
