//! What the tools that follow a pane on its mirrored copy answer, and the
//! pure parts of following (the operations are [`crate::tmux::op::text`],
//! [`crate::tmux::op::since`] and [`crate::tmux::op::run`], on the wait
//! engine [`crate::tmux::wait`]):
//!
//! * [`WaitForTextResult`], [`CaptureSinceResult`], [`RunCommandResult`]
//!   (the first and the last end with a [`PaneEnd`]);
//! * [`SinceCursor`]: where a `capture_since` answer stopped;
//! * how a wait masks the echo of typed input and matches around it, and
//!   the caps of a wait's lines ([`WAIT_LINES`], [`WAIT_BYTES`]).

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use super::error::Error;
use super::keys::TypedPanes;
use super::wait::Exit;
use crate::control::PaneId;
use crate::mirror::echo::{Cursor, Echoes, Line, Typed, has_unmasked_text, numbered, segments};
use crate::mirror::lines::{Keep, Spot, byte_at, lines_since};
use crate::search::Pattern;
use crate::term::{LineIndex, Term, fingerprint};
use crate::tmux::model::is_zero;

/// Lines and bytes `wait_for_text` returns in `matched_lines` and `tail`
/// (libtmux-mcp's caps).
pub const WAIT_LINES: usize = 20;
/// See [`WAIT_LINES`].
pub const WAIT_BYTES: usize = 2000;

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
    /// The pane's program exited and tmux keeps the pane, dead
    /// (`remain-on-exit`): nothing more will be printed. Its status is in
    /// `pane_exit_status` (tmux's `#{pane_dead_status}`), or the signal
    /// that ended it in `pane_exit_signal`; `pane_exit_unknown` says why
    /// when neither is known.
    /// The pane's last output was still matched first.
    Exited,
    /// The pane is gone: its program exited and tmux destroyed the pane,
    /// or the pane, its window or its session was killed. The pane's
    /// last output was still matched first.
    PaneGone,
    /// The pane's program has been reading a line with echo off (a
    /// password) for 300 ms with nothing printed: nothing more comes
    /// until someone types (`evidence` says how this was read).
    PasswordPrompt,
    /// The pane's program has been reading an echoed line (`read`,
    /// `input()`, `cat`), or waiting for a single key (`read -n 1`, a y/n
    /// question), for 300 ms with nothing printed.
    AwaitingInput,
}

impl Outcome {
    /// The outcome for a program found reading `input`
    /// ([`crate::sys::input::Input::Password`] or a line read).
    pub fn of_reading(input: crate::sys::input::Input) -> Outcome {
        if input == crate::sys::input::Input::Password {
            Outcome::PasswordPrompt
        } else {
            Outcome::AwaitingInput
        }
    }
}

/// The answer of `wait_for_text` (libtmux-mcp `WaitForTextResult`, plus
/// `pane_dead` and `pane_exit_status`, and the outcomes `exited` and
/// `pane_gone`). A server that exits during the wait is an error
/// ([`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone)), never an
/// outcome.
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
    /// Whether the pane ended, how, and what a prompt was told by
    /// (`pane_dead`, `pane_exit_*`, `evidence`). The pane's last output
    /// is still matched: the outcome is `exited` or `pane_gone` unless
    /// that output matched.
    #[serde(flatten)]
    pub end: PaneEnd,
}

/// How the pane a wait followed ended, or what it waits for: the last
/// fields of [`WaitForTextResult`] and [`RunCommandResult`], flattened
/// into them in this order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct PaneEnd {
    /// The pane's program exited (tmux keeps the pane, dead) or the pane
    /// is gone (`outcome` `exited` or `pane_gone`, or a match in its last
    /// output); left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
    /// How the pane's program ended, when it did (`pane_exit_status`,
    /// `pane_exit_signal`, `pane_exit_unknown`).
    #[serde(flatten)]
    pub exit: Exit,
    /// For `password_prompt` and `awaiting_input`: the facts that tell
    /// (the terminal's settings, the foreground process, its wait
    /// channel); absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
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
    /// Seconds the call took.
    pub elapsed_seconds: f64,
    /// True when lines after the cursor are gone unread: tmux trimmed or
    /// cleared them (`lines` starts at the oldest line it holds), or the
    /// copy was renumbered past the cursor.
    pub lines_missed: bool,
    /// True when older lines were left out for `max_lines`/`max_bytes`.
    pub truncated: bool,
    /// Lines left out.
    pub truncated_lines: usize,
    /// Bytes left out (line breaks not counted).
    pub truncated_bytes: usize,
    /// Lines of this answer that `head`, `tail` or `grep` left out (the
    /// cursor moved past them: they are not returned again); left out
    /// when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_omitted: usize,
    /// The line the cursor is on, as it is now (a prompt, or output still
    /// being written); returned again in `lines` once complete. Left out
    /// when empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub partial_line: String,
    /// Complete lines after `lines` that this answer left for the next
    /// call (`keep: "oldest"`, the default): the cursor stops just after
    /// `lines`, so none is lost; 0 (left out) once the answer reaches the
    /// pane's cursor. Always 0 with `keep: "newest"` (older lines are
    /// skipped).
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_remaining: u64,
    /// Whether the pane shows the alternate screen: a full-screen program
    /// draws there and adds no lines; `lines` is empty meanwhile. Left out
    /// when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub alternate_screen: bool,
    /// The pane is dead or gone; these are its last lines (with
    /// `lines_remaining` 0, its output has all been returned).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
    /// Where `lines` start, to move the cursor back when the response
    /// budget leaves the newest of them out.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) resume: Resume,
}

/// Where a [`CaptureSinceResult`]'s lines start: what it takes to leave
/// some of them out and still hand back a cursor that loses none.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Resume {
    /// The cursor before `lines[0]` (`next` is its index, `hash` the
    /// previous line's).
    pub(crate) cursor: SinceCursor,
    /// Each line's [`fingerprint`].
    pub(crate) hashes: Vec<u64>,
    /// Which lines a cut keeps.
    pub(crate) keep: Keep,
    /// False when the cursor stays where it was (the alternate screen).
    pub(crate) moves: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// How a `run_command` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// The command ended: `exit_status` is its `$?` (`$status` in fish).
    Completed,
    /// The time ran out first (`timed_out`).
    Timeout,
    /// The pane's program (the shell) exited before the command ended,
    /// and tmux keeps the pane, dead (`remain-on-exit`); its status is in
    /// `pane_exit_status` (or `pane_exit_signal`, or why neither is known
    /// in `pane_exit_unknown`).
    Exited,
    /// The pane is gone before the command ended: its shell exited and
    /// tmux destroyed the pane, or the pane was killed.
    PaneGone,
    /// The command has been reading a line with echo off (a password)
    /// for 300 ms: it waits for someone to type (`evidence`).
    PasswordPrompt,
    /// The command has been reading an echoed line (`read`, `input()`),
    /// or waiting for a single key (`read -n 1`, a y/n question), for 300
    /// ms: it waits for someone to type.
    AwaitingInput,
}

/// The answer of `run_command` (libtmux-mcp `RunCommandResult`, plus
/// `outcome`, `pane_dead`, `pane_exit_status`, `interrupted`,
/// `output_complete` and `note`). A server that exits while the command
/// runs is an error
/// ([`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone)).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RunCommandResult {
    /// The pane, `%N`.
    pub pane_id: String,
    /// The command's exit status (`$?`); null when it did not end (timed
    /// out, or the pane's shell exited or the pane is gone first).
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
    /// history before the command ended. Left out when true.
    #[serde(skip_serializing_if = "is_true")]
    pub output_complete: bool,
    /// What to do next, when the command did not finish: it still runs
    /// (the pane's next `run_command` waits behind it), or the shell never
    /// started it (busy, or waiting for more input such as an unclosed
    /// quote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How it ended: `completed`, `timeout`, `exited` (the shell exited
    /// and tmux keeps the dead pane) or `pane_gone`.
    pub outcome: RunOutcome,
    /// Whether the pane's shell ended before the command did, how, and
    /// what a prompt was told by (`pane_dead`, `pane_exit_*`,
    /// `evidence`).
    #[serde(flatten)]
    pub end: PaneEnd,
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
        let cursor = SinceCursor {
            server_pid: small(server)?,
            pane: PaneId(small(pane)?),
            pane_pid: small(pid)?,
            next: LineIndex(num(next)?),
            hash: u64::from_str_radix(hash, 16).map_err(|_| bad("bad hash"))?,
        };
        // One text per cursor: `+7`, `07` or a short or upper-case hash
        // read as numbers too, but no cursor of ours is written so.
        if cursor.encode() != text {
            return Err(bad("not written as capture_since writes cursors"));
        }
        Ok(cursor)
    }
}

/// How a wait treats the line the cursor was on when it began.
pub(crate) enum Entry {
    /// Empty then: all of it is new.
    Whole,
    /// The prompt line where tmuxwire typed input just before: its echo.
    Echo,
    /// It held this text then: only what was written since is new, added
    /// after it or over it, from the first byte that differs (public case
    /// C13: a prompt with a command typed by someone else is not output;
    /// a spinner's frame overwritten by the final status is).
    After(Vec<u8>),
}

/// The echoes of what tmuxwire typed into a pane, rebuilt when more is
/// typed (a wait looks again at each change of the pane).
pub(crate) struct Typing {
    pane: PaneId,
    generation: Option<u64>,
    pub(crate) echoes: Echoes,
}

impl Typing {
    pub(crate) fn new(pane: PaneId) -> Typing {
        Typing {
            pane,
            generation: None,
            echoes: Echoes::default(),
        }
    }

    /// Takes in what was typed since the last call.
    pub(crate) fn refresh(&mut self, typed: &TypedPanes) {
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
pub(crate) fn cursor_among(
    t: &Term,
    lines: &[Line<'_>],
    spot: Spot,
    echoes: &Echoes,
) -> Option<Cursor> {
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
pub(crate) fn matches_outside(p: &Pattern, text: &[u8], masked: &[Range<usize>]) -> bool {
    segments(text.len(), masked)
        .into_iter()
        .any(|r| p.is_match_within(text, r))
}

/// Keeps the newest lines within [`WAIT_LINES`] and [`WAIT_BYTES`].
pub(crate) fn cap_lines(lines: &mut VecDeque<String>) {
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

pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The text of line `index` in `term`, if held.
pub(crate) fn line_text(term: &Term, index: LineIndex) -> Option<Vec<u8>> {
    // One line: the copy of everything after it would cost a follower
    // the whole backlog on every call.
    let since = lines_since(term, index, 1, Keep::Oldest);
    if since.first != index {
        return None;
    }
    if since.cursor_line == index {
        return Some(since.partial);
    }
    since.lines.into_iter().next()
}

/// `run_command`'s output without the lines that are wholly the echo of
/// input tmuxwire typed into the pane while the command ran (`during`;
/// typeahead the tty echoed between the marks). Input typed before the
/// command cannot be echoed there: the shell read it before the command's
/// line. A line that also holds output is kept whole. `open`: the last
/// line is the cursor's (the command has not ended).
pub(crate) fn drop_typeahead(during: &[Typed], output: Vec<Vec<u8>>, open: bool) -> Vec<Vec<u8>> {
    if during.is_empty() || output.is_empty() {
        return output;
    }
    let echoes = Echoes::new(during);
    let window = numbered(&output);
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
pub(crate) fn first_match<'a>(
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

/// The newest held line before `before` whose hash is `hash`.
pub(crate) fn find_line(term: &Term, hash: u64, before: LineIndex) -> Option<LineIndex> {
    let since = lines_since(term, term.history().first_index(), usize::MAX, Keep::Newest);
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
            // Numbers that parse, but not as a cursor is written.
            "tmuxwire-cursor-v1.+42.7.999.123456.00000000deadbeef",
            "tmuxwire-cursor-v1.42.07.999.123456.00000000deadbeef",
            "tmuxwire-cursor-v1.42.7.999.123456.deadbeef",
            "tmuxwire-cursor-v1.42.7.999.123456.00000000DEADBEEF",
            "tmuxwire-cursor-v1.42.7.999.123456.+0000000deadbeef",
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

    /// Flattened, a [`PaneEnd`] keeps the keys of both answers last and
    /// in their order, in the JSON and in the schema.
    #[test]
    fn pane_end_keys_come_last_in_order() {
        let end = PaneEnd {
            pane_dead: true,
            exit: Exit {
                status: Some(3),
                signal: Some("KILL".into()),
                unknown: Some("gone".into()),
            },
            evidence: vec!["tty".into()],
        };
        let last = [
            "pane_dead",
            "pane_exit_status",
            "pane_exit_signal",
            "pane_exit_unknown",
            "evidence",
        ];
        let tail = |keys: Vec<String>| keys[keys.len() - last.len()..].to_vec();
        let json_keys = |v: serde_json::Value| match v {
            serde_json::Value::Object(o) => o.keys().cloned().collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        fn schema_keys<T: JsonSchema>() -> Vec<String> {
            let s = schemars::generate::SchemaSettings::draft2020_12()
                .for_serialize()
                .into_generator()
                .into_root_schema_for::<T>();
            match s.get("properties") {
                Some(serde_json::Value::Object(o)) => o.keys().cloned().collect(),
                _ => Vec::new(),
            }
        }
        let wait = WaitForTextResult {
            found: false,
            outcome: Outcome::Exited,
            matched_index: None,
            matched_lines: Vec::new(),
            tail: Vec::new(),
            saw_new_output: false,
            matched_at_entry: false,
            alternate_screen: false,
            pane_id: "%1".into(),
            elapsed_seconds: 0.0,
            effective_timeout: 1.0,
            end: end.clone(),
        };
        let run = RunCommandResult {
            pane_id: "%1".into(),
            exit_status: None,
            timed_out: false,
            elapsed_seconds: 0.0,
            output: Vec::new(),
            output_truncated: false,
            output_truncated_lines: 0,
            effective_timeout: 1.0,
            interrupted: false,
            output_complete: true,
            note: None,
            outcome: RunOutcome::Exited,
            end,
        };
        for keys in [
            json_keys(serde_json::to_value(&wait).expect("json")),
            json_keys(serde_json::to_value(&run).expect("json")),
            schema_keys::<WaitForTextResult>(),
            schema_keys::<RunCommandResult>(),
        ] {
            assert_eq!(tail(keys), last);
        }
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
