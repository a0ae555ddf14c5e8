//! What a [`Term`] knows about the terminal's state besides its text: the
//! private modes that matter to whoever types into the pane, the commands
//! that shell-integration marks delimit ([`Commands`]), the working
//! directory, title and progress the program announced, and when output
//! last came and the visible screen last changed ([`ScreenState`]). Pure:
//! times are the caller's ([`Term::set_now`]).
//!
//! Everything here is what the program in the pane *said*: any program
//! can print `ESC ] 133 ; D ; 0`, so marks are advisory. Strings are
//! capped and cleaned ([`super::marks::clean`]); the command table holds
//! at most [`MAX_COMMANDS`] records and the nesting stack [`MAX_DEPTH`]
//! levels, so no output grows memory without bound.

use std::collections::VecDeque;
use std::sync::Arc;

use super::cell;
use super::index::{Column, LineIndex};
use super::marks::{self, Mark, MarkKind, MarkSource, Osc, Progress};
use super::screen::Term;
use super::width::{Layout, first_code_point};

/// Command records kept per pane (the oldest go first).
pub const MAX_COMMANDS: usize = 1000;

/// iTerm2 `SetMark` places kept per pane.
pub const MAX_SET_MARKS: usize = 256;

/// Nesting levels (shells started from shells) followed; deeper ones
/// share the innermost level.
pub const MAX_DEPTH: usize = 16;

/// tmux ends a synchronized-output frame that stays open this long
/// (screen-write.c, `?2026h` timer: 1 s), in µs.
pub const SYNC_TIMEOUT_US: u64 = 1_000_000;

/// Declares [`PrivateModes`] from one row per mode (its doc, its field,
/// its DEC number and its state after RIS), so the struct, its `RESET`,
/// `merge` and the reading of a `#{pane_private_modes}` list name each
/// mode once.
macro_rules! private_modes {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        $( $(#[$doc:meta])* $field:ident = $number:literal, reset $reset:literal; )*
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$doc])* pub $field: Option<bool>, )*
        }

        impl $name {
            /// tmux's modes after RIS (`screen_write_reset()`: cursor and wrap
            /// only) as far as they are tracked here.
            pub const RESET: $name = $name { $( $field: Some($reset), )* };

            /// Each mode of `other` that is known replaces this one's.
            pub fn merge(&mut self, other: $name) {
                $( if other.$field.is_some() { self.$field = other.$field; } )*
            }

            /// The modes a `#{pane_private_modes}` value (tmux ≥ 3.8: the set
            /// modes' numbers, comma-separated) gives. An empty value says
            /// nothing (it is also what a tmux without the format prints).
            pub fn from_private_modes_list(list: &str) -> $name {
                let list = list.trim();
                if list.is_empty() {
                    return $name::default();
                }
                let set: Vec<u32> = list
                    .split(',')
                    .filter_map(|n| n.trim().parse().ok())
                    .collect();
                $name { $( $field: Some(set.contains(&$number)), )* }
            }
        }
    };
}

private_modes! {
    /// The DEC private modes tracked, each `None` until a sequence sets or
    /// resets it or a seed reports it (tmux's `MODE_*` flags, set and cleared
    /// as input.c `input_csi_dispatch_sm_private()` /
    /// `input_csi_dispatch_rm_private()` do: `?1000h`/`?1002h`/`?1003h`
    /// clear the other two, any of `?1000l`–`?1003l` clears all three; RIS
    /// resets everything to tmux's defaults, cursor on, the rest off).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct PrivateModes;
    /// `?2004` bracketed paste (`MODE_BRACKETPASTE`, `#{bracket_paste_flag}` ≥ 3.7).
    bracketed_paste = 2004, reset false;
    /// `?25` cursor visible (`MODE_CURSOR`, `#{cursor_flag}`).
    cursor_visible = 25, reset true;
    /// `?1004` focus events (`MODE_FOCUSON`; reported by tmux ≥ 3.8's
    /// `#{pane_private_modes}` only).
    focus_events = 1004, reset false;
    /// `?1000` mouse: press and release (`#{mouse_standard_flag}`).
    mouse_standard = 1000, reset false;
    /// `?1002` mouse: button motion (`#{mouse_button_flag}`).
    mouse_button = 1002, reset false;
    /// `?1003` mouse: all motion (`#{mouse_all_flag}`).
    mouse_all = 1003, reset false;
    /// `?1005` UTF-8 mouse encoding (`#{mouse_utf8_flag}`).
    mouse_utf8 = 1005, reset false;
    /// `?1006` SGR mouse encoding (`#{mouse_sgr_flag}`).
    mouse_sgr = 1006, reset false;
    /// `?2026` synchronized output: a frame is open
    /// (`#{synchronized_output_flag}` ≥ 3.7).
    synchronized_output = 2026, reset false;
}

/// Where a mark arrived: the cursor when its first byte after the OSC's
/// terminator would be written (tmux's `s->cx`, `s->cy + hsize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MarkPos {
    /// The logical line ([`LineIndex`] numbering: survives trimming).
    /// A line still on the screen keeps its index unless the program
    /// later inserts or deletes lines above it.
    pub line: LineIndex,
    /// The row within that logical line, 0-based (a wrapped line fills
    /// several).
    pub row: u32,
    /// The cell column on that row, 0-based (equal to the width when a
    /// wrap is pending).
    pub column: Column,
}

/// How a command record ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandEnd {
    /// `D` came (its status, if any, is [`CommandRecord::exit_status`]).
    Finished,
    /// A new prompt came before any `D`: how it ended is unknown.
    Abandoned,
}

/// Where a record's command text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandText {
    /// `633;E`, with a nonce ([`CommandRecord::command_nonce`]) or not.
    Osc633,
    /// fish's `133;C;cmdline_url=`.
    CmdlineUrl,
    /// The grid's text between the `B` and `C` marks.
    Grid,
}

/// One command, delimited by shell-integration marks. Times are the
/// caller's clock ([`Term::set_now`], µs) when the mark's bytes were fed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandRecord {
    /// Its number in this pane, from 0, never reused (survives trimming).
    pub index: u64,
    /// The family of the mark that opened it.
    pub source: MarkSource,
    /// The shell's `aid=`, if it sent one.
    pub aid: Option<String>,
    /// Its nesting depth: 0 for the outermost shell, 1 for a shell
    /// started from one of its commands, …
    pub depth: u32,
    /// Where the prompt began (`A`), if seen.
    pub prompt: Option<MarkPos>,
    /// Where the input began (`B`/`I`).
    pub command_start: Option<MarkPos>,
    /// Where the output began (`C`).
    pub output_start: Option<MarkPos>,
    /// Where the output ended (`D`).
    pub output_end: Option<MarkPos>,
    /// The exit status from `D`: `None` when `D` carried none, or has not
    /// come (see [`CommandRecord::ended`]). Never made up.
    pub exit_status: Option<u8>,
    /// How it ended; `None` while at its prompt or running.
    pub ended: Option<CommandEnd>,
    /// The command line (cleaned, at most [`marks::MAX_TEXT`] bytes).
    pub command: Option<String>,
    /// Where [`CommandRecord::command`] came from.
    pub command_from: Option<CommandText>,
    /// The nonce a `633;E` carried.
    pub command_nonce: Option<String>,
    /// The working directory when it started (OSC 7, `633;P;Cwd=`,
    /// `1337;CurrentDir=`).
    pub cwd: Option<String>,
    /// When its prompt mark came.
    pub prompt_at: Option<u64>,
    /// When `C` came.
    pub started_at: Option<u64>,
    /// When `D` came (or the prompt that abandoned it).
    pub ended_at: Option<u64>,
    /// Some of its lines were trimmed from history or cleared (`CSI 3 J`,
    /// `clear`): its positions may name lines no longer held.
    pub trimmed: bool,
}

impl CommandRecord {
    /// Whether its output started and it has not ended.
    pub fn running(&self) -> bool {
        self.output_start.is_some() && self.ended.is_none()
    }

    /// The last position it has.
    fn last_pos(&self) -> Option<MarkPos> {
        [
            self.output_end,
            self.output_start,
            self.command_start,
            self.prompt,
        ]
        .into_iter()
        .flatten()
        .max()
    }

    /// The first position it has.
    fn first_pos(&self) -> Option<MarkPos> {
        [
            self.prompt,
            self.command_start,
            self.output_start,
            self.output_end,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Its duration in µs, when it started and finished.
    pub fn duration_us(&self) -> Option<u64> {
        match (self.started_at, self.ended_at, self.ended) {
            (Some(s), Some(e), Some(CommandEnd::Finished)) => Some(e.saturating_sub(s)),
            _ => None,
        }
    }
}

/// An iTerm2 `SetMark`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetMark {
    /// Where.
    pub at: MarkPos,
    /// When (caller's clock, µs).
    pub time: u64,
}

/// One shell on the nesting stack.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Level {
    aid: Option<String>,
    /// Its newest record.
    record: Option<u64>,
    /// A command of this shell that was still running when a prompt was
    /// drawn (fish ≥ 4 marks the prompt of its `read` builtin; a shell the
    /// command started marks its own prompts without `aid=`): it ends at
    /// the next `D` (the prompt was its own), or is abandoned when the
    /// next command starts.
    superseded: Option<u64>,
}

impl Level {
    fn new(aid: Option<&str>) -> Level {
        Level {
            aid: aid.map(str::to_string),
            record: None,
            superseded: None,
        }
    }
}

/// Continuation lines (a `B` after a secondary prompt) remembered per
/// command line; later ones are read as unmarked lines.
pub const MAX_CONTINUED: usize = 256;

/// What is known of the command line being typed at the innermost
/// shell's prompt, from its input start (`B`) to its output start (`C`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Typing {
    /// The record it belongs to.
    record: u64,
    /// A secondary prompt (PS2) started and its input has not: the next
    /// `B` is where that continuation line's input starts.
    in_secondary: bool,
    /// Where each continuation line's input starts, oldest first.
    continued: Vec<MarkPos>,
    /// Where a right prompt marked by the shell (`633;H`) starts, on the
    /// input's first row.
    right_prompt: Option<MarkPos>,
}

/// Where a command line is read from the grid when its output starts
/// ([`MarkEffect::ReadInput`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InputText {
    /// The record that takes the text.
    pub record: u64,
    /// Where its input starts (the `B` mark).
    pub start: MarkPos,
    /// Where each continuation line's input starts (a `B` after a
    /// secondary prompt), oldest first.
    pub continued: Vec<MarkPos>,
    /// Where a right prompt the shell marked starts, on the first row.
    pub right_prompt: Option<MarkPos>,
}

/// What a mark asks of the grid ([`Commands::mark`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MarkEffect {
    /// Nothing.
    None,
    /// A command line's input starts here (a primary `B`): the row as the
    /// prompt leaves it is worth reading, to tell a right prompt or a
    /// prompt rewritten later.
    InputStart(MarkPos),
    /// The output started: read the command line typed.
    ReadInput(InputText),
}

/// The per-pane command table: records opened and closed by marks, in
/// order, at most [`MAX_COMMANDS`].
///
/// Prompts are drawn more often than commands run, so a record is one
/// command line, not one prompt: a prompt drawn again before the command
/// line ran (a redraw after a resize or a vi-mode switch, a transient
/// prompt rewritten after Enter, Enter on an empty line, Ctrl-C at the
/// prompt) stays the same record, at its newest prompt; a `D` without a
/// `C` before it ends no command when the shell marks its commands' output
/// starts or nothing was typed (it is the shell's `$?` at a new prompt);
/// and a prompt drawn while a command runs does not end that command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commands {
    records: VecDeque<Arc<CommandRecord>>,
    next: u64,
    levels: Vec<Level>,
    /// A `633;E` that came with no record to take it.
    pending: Option<(String, Option<String>)>,
    set_marks: VecDeque<SetMark>,
    /// Marks seen (any kind).
    marks_seen: u64,
    dropped: u64,
    /// An output start (`C`) came: the shell marks when a command runs.
    output_marks: bool,
    /// The command line being typed at the innermost prompt.
    typing: Option<Typing>,
}

impl Commands {
    /// The records, oldest first.
    pub fn records(&self) -> impl DoubleEndedIterator<Item = &CommandRecord> + ExactSizeIterator {
        self.records.iter().map(|r| &**r)
    }

    /// The record numbered `index`, if still held.
    pub fn get(&self, index: u64) -> Option<&CommandRecord> {
        let front = self.records.front()?.index;
        let at = usize::try_from(index.checked_sub(front)?).ok()?;
        self.records.get(at).map(|r| &**r)
    }

    /// The newest record.
    pub fn last(&self) -> Option<&CommandRecord> {
        self.records.back().map(|r| &**r)
    }

    /// The command the innermost shell runs, as its marks say: its newest
    /// record while that runs (`C` without `D`), else a command of that
    /// shell still running under a prompt drawn meanwhile (fish's `read`
    /// prompt, a shell it started that marks without `aid=`). `None` at a
    /// prompt, or without marks.
    pub fn running(&self) -> Option<&CommandRecord> {
        let level = self.levels.last()?;
        let newest = level.record.and_then(|i| self.get(i));
        newest
            .filter(|r| r.running())
            .or_else(|| level.superseded.and_then(|i| self.get(i)))
            .filter(|r| r.running())
    }

    /// How many shell-integration marks were seen (0: the pane's shell
    /// sends none, so "no commands" says nothing about its output).
    pub fn marks_seen(&self) -> u64 {
        self.marks_seen
    }

    /// Records dropped (trimmed with history, or past [`MAX_COMMANDS`]).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// iTerm2 `SetMark` places, oldest first.
    pub fn set_marks(&self) -> impl DoubleEndedIterator<Item = &SetMark> {
        self.set_marks.iter()
    }

    /// The current nesting depth (0: the outermost shell, or none yet).
    pub fn depth(&self) -> usize {
        self.levels.len().saturating_sub(1)
    }

    fn get_mut(&mut self, index: u64) -> Option<&mut CommandRecord> {
        let front = self.records.front()?.index;
        let at = usize::try_from(index.checked_sub(front)?).ok()?;
        self.records.get_mut(at).map(Arc::make_mut)
    }

    /// The open (not ended) record of level `l`.
    fn open_at(&self, l: usize) -> Option<u64> {
        let idx = self.levels.get(l)?.record?;
        self.get(idx).filter(|r| r.ended.is_none()).map(|r| r.index)
    }

    /// The open record of level `l` whose output has not started (at its
    /// prompt, or being typed).
    fn at_prompt(&self, l: usize) -> Option<u64> {
        self.open_at(l)
            .filter(|&i| self.get(i).is_some_and(|r| r.output_start.is_none()))
    }

    /// Where the command line of the innermost shell's prompt starts
    /// (its `B`), while it has not run.
    pub(crate) fn input_start(&self) -> Option<MarkPos> {
        let l = self.levels.len().checked_sub(1)?;
        self.get(self.at_prompt(l)?)?.command_start
    }

    fn close(&mut self, index: u64, how: CommandEnd, now: u64) {
        if let Some(r) = self.get_mut(index)
            && r.ended.is_none()
        {
            r.ended = Some(how);
            r.ended_at = Some(now);
        }
    }

    /// Ends record `index` with a `D` at `pos`.
    fn finish(&mut self, index: u64, pos: MarkPos, status: Option<u8>, now: u64) {
        if let Some(r) = self.get_mut(index) {
            r.output_end = Some(pos);
            r.exit_status = status;
        }
        self.close(index, CommandEnd::Finished, now);
    }

    /// Record `index` goes back to a bare prompt: what was typed at it
    /// never ran (or was drawn again), so its input start and command line
    /// are forgotten; the next prompt takes the record over.
    fn back_to_prompt(&mut self, index: u64) {
        if let Some(r) = self.get_mut(index) {
            r.command_start = None;
            r.command = None;
            r.command_from = None;
            r.command_nonce = None;
        }
        if self.typing.as_ref().is_some_and(|t| t.record == index) {
            self.typing = None;
        }
    }

    /// Level `l`'s running record `index` goes on under a prompt drawn
    /// meanwhile (see [`Level::superseded`]); one superseded before is
    /// abandoned.
    fn supersede(&mut self, l: usize, index: u64, now: u64) {
        let old = self
            .levels
            .get_mut(l)
            .and_then(|v| v.superseded.replace(index));
        if let Some(old) = old.filter(|&o| o != index) {
            self.close(old, CommandEnd::Abandoned, now);
        }
    }

    /// Opens a record at level `l`.
    fn open(&mut self, l: usize, source: MarkSource, cwd: Option<&str>) -> u64 {
        let index = self.next;
        self.next += 1;
        let (command, command_from, command_nonce) = match self.pending.take() {
            Some((text, nonce)) => (Some(text), Some(CommandText::Osc633), nonce),
            None => (None, None, None),
        };
        let aid = self.levels.get(l).and_then(|v| v.aid.clone());
        if self.records.len() == MAX_COMMANDS {
            self.records.pop_front();
            self.dropped += 1;
        }
        self.records.push_back(Arc::new(CommandRecord {
            index,
            source,
            aid,
            depth: l as u32,
            prompt: None,
            command_start: None,
            output_start: None,
            output_end: None,
            exit_status: None,
            ended: None,
            command,
            command_from,
            command_nonce,
            cwd: cwd.map(str::to_string),
            prompt_at: None,
            started_at: None,
            ended_at: None,
            trimmed: false,
        }));
        if let Some(level) = self.levels.get_mut(l) {
            level.record = Some(index);
        }
        index
    }

    /// Closes and pops the levels above `l`.
    fn pop_above(&mut self, l: usize, now: u64) {
        while self.levels.len() > l + 1 {
            if let Some(level) = self.levels.pop() {
                for i in [level.record, level.superseded].into_iter().flatten() {
                    self.close(i, CommandEnd::Abandoned, now);
                }
            }
        }
    }

    /// The level a prompt with `aid` belongs to. Nesting follows aids
    /// only (without them a nested shell cannot be told from the same
    /// shell's next prompt, so records stay flat): a known aid is its level
    /// (inner levels are gone); a new aid while the innermost level runs a
    /// command is a shell that command started (pushed), else the
    /// innermost shell was replaced (`exec`); no aid is the innermost
    /// level.
    fn prompt_level(&mut self, aid: Option<&str>, now: u64) -> usize {
        if self.levels.is_empty() {
            self.levels.push(Level::new(aid));
            return 0;
        }
        let top = self.levels.len() - 1;
        let Some(a) = aid else { return top };
        if let Some(l) = self
            .levels
            .iter()
            .rposition(|v| v.aid.as_deref() == Some(a))
        {
            self.pop_above(l, now);
            return l;
        }
        let running = self
            .open_at(top)
            .and_then(|i| self.get(i))
            .is_some_and(CommandRecord::running)
            || self.levels[top].superseded.is_some();
        if running && self.levels.len() < MAX_DEPTH {
            self.levels.push(Level::new(Some(a)));
            return top + 1;
        }
        self.levels[top].aid = Some(a.to_string());
        top
    }

    /// The level a non-prompt mark with `aid` goes to: its aid's level
    /// when known (a `D` there ends the shells nested inside: their
    /// open records are abandoned), else the innermost.
    fn mark_level(&mut self, kind: MarkKind, aid: Option<&str>, now: u64) -> usize {
        if self.levels.is_empty() {
            self.levels.push(Level::new(aid));
            return 0;
        }
        if let Some(a) = aid
            && let Some(l) = self
                .levels
                .iter()
                .rposition(|v| v.aid.as_deref() == Some(a))
        {
            if matches!(kind, MarkKind::CommandEnd(_)) {
                self.pop_above(l, now);
            }
            return l;
        }
        self.levels.len() - 1
    }

    /// Applies a mark at `pos`. `input_empty` is for a `D`: whether the
    /// command line at the innermost prompt (from its `B` to `pos`) is
    /// empty (`None` without a `B`). Returns what the grid must be read
    /// for: a primary `B`'s row, or at `C` the command line, when no
    /// other source gave it.
    pub(crate) fn mark(
        &mut self,
        m: &Mark,
        pos: MarkPos,
        now: u64,
        cwd: Option<&str>,
        input_empty: Option<bool>,
    ) -> MarkEffect {
        self.marks_seen += 1;
        let aid = m.aid.as_deref();
        match m.kind {
            MarkKind::Mark => {
                if self.set_marks.len() == MAX_SET_MARKS {
                    self.set_marks.pop_front();
                }
                self.set_marks.push_back(SetMark { at: pos, time: now });
                MarkEffect::None
            }
            MarkKind::Prompt => {
                let l = self.prompt_level(aid, now);
                let i = match self.open_at(l) {
                    Some(i) if self.get(i).is_some_and(|r| r.output_start.is_none()) => {
                        // The command line never ran: this prompt is the
                        // same one drawn again, or the next one for a new
                        // command line (Enter on an empty line, Ctrl-C).
                        self.back_to_prompt(i);
                        i
                    }
                    Some(i) => {
                        self.supersede(l, i, now);
                        self.open(l, m.source, cwd)
                    }
                    None => self.open(l, m.source, cwd),
                };
                if let Some(r) = self.get_mut(i) {
                    r.prompt = Some(pos);
                    r.prompt_at = Some(now);
                }
                self.typing = None;
                MarkEffect::None
            }
            MarkKind::SecondaryPrompt => {
                let l = self.mark_level(m.kind, aid, now);
                // Before the primary `B` it is part of the primary prompt
                // (a multi-line PS1 marked per line).
                if let Some(i) = self.at_prompt(l)
                    && self.get(i).is_some_and(|r| r.command_start.is_some())
                    && let Some(t) = self.typing.as_mut().filter(|t| t.record == i)
                {
                    t.in_secondary = true;
                }
                MarkEffect::None
            }
            MarkKind::CommandStart => {
                let l = self.mark_level(m.kind, aid, now);
                let i = match self.open_at(l) {
                    Some(i) if self.get(i).is_some_and(|r| r.output_start.is_none()) => {
                        let typed = self.get(i).is_some_and(|r| r.command_start.is_some());
                        if let Some(t) = self
                            .typing
                            .as_mut()
                            .filter(|t| typed && t.record == i && t.in_secondary)
                        {
                            t.in_secondary = false;
                            if t.continued.len() < MAX_CONTINUED {
                                t.continued.push(pos);
                            }
                            return MarkEffect::None;
                        }
                        // The first, or the prompt's last row drawn again
                        // (bash redraws only the last row of a multi-line
                        // PS1).
                        i
                    }
                    Some(i) => {
                        // A prompt's end while a command runs: its own.
                        self.supersede(l, i, now);
                        self.open(l, m.source, cwd)
                    }
                    None => self.open(l, m.source, cwd),
                };
                if let Some(r) = self.get_mut(i) {
                    r.command_start = Some(pos);
                }
                self.typing = Some(Typing {
                    record: i,
                    in_secondary: false,
                    continued: Vec::new(),
                    right_prompt: None,
                });
                MarkEffect::InputStart(pos)
            }
            MarkKind::RightPrompt => {
                let l = self.mark_level(m.kind, aid, now);
                let start = self
                    .at_prompt(l)
                    .and_then(|i| self.get(i))
                    .and_then(|r| r.command_start);
                if let Some(b) = start
                    && (b.line, b.row) == (pos.line, pos.row)
                    && b.column < pos.column
                    && let Some(t) = self.typing.as_mut()
                    && t.continued.is_empty()
                    && t.right_prompt.is_none()
                {
                    t.right_prompt = Some(pos);
                }
                MarkEffect::None
            }
            MarkKind::OutputStart => {
                self.output_marks = true;
                let l = self.mark_level(m.kind, aid, now);
                let i = match self.open_at(l) {
                    Some(i) if self.get(i).is_some_and(|r| r.output_start.is_none()) => i,
                    Some(i) => {
                        self.close(i, CommandEnd::Abandoned, now);
                        self.open(l, m.source, cwd)
                    }
                    None => self.open(l, m.source, cwd),
                };
                // The shell runs a new command: one still running under an
                // earlier prompt will send no `D`.
                if let Some(s) = self.levels.get_mut(l).and_then(|v| v.superseded.take()) {
                    self.close(s, CommandEnd::Abandoned, now);
                }
                let typing = self.typing.take().filter(|t| t.record == i);
                let pending = self.pending.take();
                let Some(r) = self.get_mut(i) else {
                    return MarkEffect::None;
                };
                r.output_start = Some(pos);
                r.started_at = Some(now);
                if let Some(c) = cwd {
                    r.cwd = Some(c.to_string());
                }
                if let Some((text, nonce)) = pending {
                    r.command = Some(text);
                    r.command_from = Some(CommandText::Osc633);
                    r.command_nonce = nonce;
                } else if r.command.is_none()
                    && let Some(text) = &m.command
                {
                    r.command = Some(text.clone());
                    r.command_from = Some(CommandText::CmdlineUrl);
                }
                match (r.command.is_none(), r.command_start) {
                    (true, Some(start)) => {
                        let (continued, right_prompt) =
                            typing.map_or((Vec::new(), None), |t| (t.continued, t.right_prompt));
                        MarkEffect::ReadInput(InputText {
                            record: i,
                            start,
                            continued,
                            right_prompt,
                        })
                    }
                    _ => MarkEffect::None,
                }
            }
            MarkKind::CommandEnd(status) => {
                let l = self.mark_level(m.kind, aid, now);
                let open = self.open_at(l);
                match open {
                    Some(i) if self.get(i).is_some_and(|r| r.output_start.is_some()) => {
                        self.finish(i, pos, status, now);
                    }
                    _ => {
                        let superseded = self.levels.get_mut(l).and_then(|v| v.superseded.take());
                        if let Some(s) = superseded {
                            // The end of the command that drew the prompt
                            // meanwhile: that prompt was its own.
                            self.finish(s, pos, status, now);
                            if let Some(i) = open {
                                self.back_to_prompt(i);
                            }
                        } else if let Some(i) =
                            open.filter(|_| self.output_marks || input_empty == Some(true))
                        {
                            // Nothing ran (Enter on an empty line, Ctrl-C
                            // at the prompt): the shell's `$?` at a new
                            // prompt, not a command's end.
                            self.back_to_prompt(i);
                        } else {
                            let i = open.unwrap_or_else(|| self.open(l, m.source, cwd));
                            self.finish(i, pos, status, now);
                        }
                    }
                }
                MarkEffect::None
            }
        }
    }

    /// `633;E`: the command line of the innermost open record that has
    /// not started, or of the next record.
    pub(crate) fn command_line(&mut self, text: String, nonce: Option<String>) {
        self.marks_seen += 1;
        let target = self
            .levels
            .len()
            .checked_sub(1)
            .and_then(|l| self.at_prompt(l));
        match target.and_then(|i| self.get_mut(i)) {
            Some(r) => {
                r.command = Some(text);
                r.command_from = Some(CommandText::Osc633);
                r.command_nonce = nonce;
            }
            None => self.pending = Some((text, nonce)),
        }
    }

    /// Sets the grid text of record `index` (see [`Commands::mark`]).
    pub(crate) fn grid_text(&mut self, index: u64, text: String) {
        if let Some(r) = self.get_mut(index)
            && r.command.is_none()
            && !text.is_empty()
        {
            r.command = Some(text);
            r.command_from = Some(CommandText::Grid);
        }
    }

    /// Follows history trimming: `first` is the oldest line still held.
    /// Ended records whose last line is gone are dropped; others that
    /// lost lines are marked [`CommandRecord::trimmed`].
    pub(crate) fn trim(&mut self, first: LineIndex) {
        while let Some(r) = self.records.front() {
            let gone = r.last_pos().is_none_or(|p| p.line < first);
            if gone && r.ended.is_some() {
                self.records.pop_front();
                self.dropped += 1;
            } else {
                break;
            }
        }
        for r in self.records.iter_mut() {
            if r.trimmed {
                continue;
            }
            match r.first_pos() {
                Some(p) if p.line < first => Arc::make_mut(r).trimmed = true,
                // Records are in line order: the rest are newer.
                _ => break,
            }
        }
        self.set_marks.retain(|m| m.at.line >= first);
    }
}

/// When the pane last printed and its visible screen last changed, and a
/// hash of that screen ([`Term::screen_state`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScreenState {
    /// When bytes last came (caller's clock, µs), if ever.
    pub last_output_at: Option<u64>,
    /// When the visible screen's text last changed, as of the last
    /// [`Term::settle_screen`]: the time of the output that made the
    /// change (the latest output between the two hashes that differ, so
    /// never earlier than the change).
    pub last_change_at: Option<u64>,
    /// A hash of the visible rows' text (each row's trailing blanks
    /// trimmed; no attributes, no cursor), taken outside synchronized
    /// output frames; `None` before the first [`Term::settle_screen`].
    pub hash: Option<u64>,
    /// Output came since that hash (it may be stale: call
    /// [`Term::settle_screen`]).
    pub dirty: bool,
    /// A synchronized-output frame (`?2026h`) is open.
    pub sync_open: bool,
}

/// The hash of a screen's rows, as [`Term::visible_hash`] takes it:
/// FNV-1a over each row's text followed by `\n`.
#[derive(Clone, Copy, Debug)]
pub struct RowHash(u64);

impl RowHash {
    /// An empty hash.
    pub fn new() -> RowHash {
        RowHash(0xcbf2_9ce4_8422_2325)
    }

    /// Adds one row's text.
    pub fn row(&mut self, text: &[u8]) {
        for &b in text.iter().chain(b"\n") {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash of the rows added.
    pub fn finish(self) -> u64 {
        self.0
    }
}

impl Default for RowHash {
    fn default() -> RowHash {
        RowHash::new()
    }
}

/// What [`Term::settle_screen`] keeps (on the caller's clock, µs):
/// [`ScreenState`] is what it reports of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Settle {
    /// When bytes last came.
    pub last_output_at: Option<u64>,
    /// When the visible screen's text last changed, as of the last hash.
    pub last_change_at: Option<u64>,
    /// The last hash of the visible rows' text.
    pub hash: Option<u64>,
    /// Output since the last hash, the newest at this time.
    pub dirty_at: Option<u64>,
    /// An open `?2026h` frame, since.
    pub sync_since: Option<u64>,
}

impl Settle {
    /// As [`Term::screen_state`] reports it.
    fn report(&self) -> ScreenState {
        ScreenState {
            last_output_at: self.last_output_at,
            last_change_at: self.last_change_at,
            hash: self.hash,
            dirty: self.dirty_at.is_some(),
            sync_open: self.sync_since.is_some(),
        }
    }

    /// Dates what a seed fed (its output, the screen change, an open
    /// frame) to `now`.
    fn seeded(&mut self, now: u64) {
        for t in [
            &mut self.last_output_at,
            &mut self.last_change_at,
            &mut self.dirty_at,
            &mut self.sync_since,
        ] {
            if t.is_some() {
                *t = Some(now);
            }
        }
    }

    /// Ends an open synchronized frame at `now`: what it drew is to be
    /// hashed.
    fn end_frame(&mut self, now: u64) {
        if self.sync_since.take().is_some() {
            self.dirty_at = Some(now);
        }
    }
}

/// The state kept beside the grid ([`Term`]'s `state` field).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TermState {
    pub now: u64,
    pub modes: PrivateModes,
    pub commands: Commands,
    pub cwd: Option<String>,
    pub cwd_host: Option<String>,
    pub title: Option<String>,
    pub progress: Option<Progress>,
    /// BELs the pane printed (C0 `\a` outside strings), wrapping.
    pub bells: u64,
    /// When output came and the screen last changed.
    pub settle: Settle,
    /// The oldest history line when the table was last trimmed.
    pub first_line: LineIndex,
    /// The row the command line at the prompt is typed on, as the prompt
    /// left it.
    pub prompt_row: Option<PromptRow>,
}

/// The row a command line is typed on, as the prompt left it: the text
/// left of its `B` mark, read with the mark, and where the cursor was last
/// seen on the row, right of the mark, at the end of an output while the
/// line was typed (typing leaves it after the text typed; a right prompt is
/// drawn where it does not stay). Compared with the row when the command's
/// output starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PromptRow {
    /// The `B` mark.
    pub at: MarkPos,
    /// The row's text left of the mark (the prompt's last row), trailing
    /// blanks trimmed.
    pub before: String,
    /// The column the cursor was on, on that row and not left of the
    /// mark, at the end of the last output that left it there.
    pub cursor_last: u32,
    /// The row left the screen: nothing more is read.
    pub gone: bool,
}

/// A row as [`Term::input_text`] reads it ([`Term::row_view`]).
struct RowView {
    /// Whether each cell is blank.
    blank: Vec<bool>,
    /// The text left of the column asked for (cleaned, trailing blanks
    /// trimmed).
    before: String,
}

/// How far from the right edge a right prompt may end (zsh leaves
/// `ZLE_RPROMPT_INDENT`, 1 by default).
pub const RIGHT_PROMPT_SLACK: u32 = 3;

/// The ends of prompts as shells and themes draw them, each followed by a
/// space: where a command line rewritten without marks is looked for.
const PROMPT_ENDS: &[&str] = &["❯ ", "$ ", "% ", "# ", "> ", "» ", "➜ ", "λ "];

/// The most continuation lines read into one command line.
const MAX_INPUT_LINES: usize = 256;

/// A continuation line's prompt as shells draw it unmarked: bash's `> `,
/// zsh's `%_> ` (`for> `, `dquote> `, `cmdsubst> `): lower-case words and
/// spaces, then `> `, after readline's default mode string if it shows one
/// (`@`, `(ins)`, `(cmd)`: `show-mode-in-prompt`). The length of that
/// prompt in `text`, if it has one.
fn unmarked_ps2(text: &[u8]) -> Option<usize> {
    let mode = [&b"(ins)"[..], b"(cmd)", b"@"]
        .iter()
        .find(|m| text.starts_with(m))
        .map_or(0, |m| m.len());
    let rest = &text[mode..];
    let words = rest
        .iter()
        .take_while(|b| b.is_ascii_lowercase() || **b == b' ')
        .count();
    rest[words..].starts_with(b"> ").then_some(mode + words + 2)
}

impl Term {
    /// Sets the time stamped on what comes next (records, output and
    /// change times): the caller's clock in µs, e.g. monotonic time since
    /// the mirror started. Pure: a `Term` never reads a clock.
    pub fn set_now(&mut self, now_us: u64) {
        self.state.now = now_us;
    }

    /// Sets the clock as [`Term::set_now`] and dates what a seed fed to
    /// this copy (its output and screen change) to now: a seed's bytes
    /// were applied before the copy knew the time, and when the pane
    /// printed them is unknown (now is never earlier than that).
    pub fn seeded_now(&mut self, now_us: u64) {
        self.state.now = now_us;
        self.state.settle.seeded(now_us);
    }

    /// Recovers the command table of history printed before the copy
    /// existed from tmux's row flags (`capture-pane -F`, tmux 3.7+: `P`
    /// a prompt starts on the row, `O` a command's output starts), given
    /// each row from the oldest history row to the screen's last as
    /// `(prompt, output, wrapped)`. A prompt after an output start ends
    /// that command (finished, its status unknown); the records have no
    /// times. Used by the seed, before anything else is marked.
    pub(crate) fn recover_marks(&mut self, rows: impl Iterator<Item = (bool, bool, bool)>) {
        let mut index = self.history.first_index().0;
        let mut row = 0;
        let mark = |kind| Mark {
            source: MarkSource::TmuxFlags,
            kind,
            aid: None,
            command: None,
        };
        for (prompt, output, wrapped) in rows {
            let pos = MarkPos {
                line: LineIndex(index),
                row,
                column: Column(0),
            };
            let c = &mut self.state.commands;
            if prompt {
                if let Some(i) = c.open_at(0)
                    && c.get(i).is_some_and(|r| r.output_start.is_some())
                {
                    // Its output ends where the prompt begins, where a
                    // `D` mark would have come.
                    if let Some(r) = c.get_mut(i) {
                        r.output_end = Some(pos);
                    }
                    c.close(i, CommandEnd::Finished, 0);
                }
                c.mark(&mark(MarkKind::Prompt), pos, 0, None, None);
            }
            if output {
                c.mark(&mark(MarkKind::OutputStart), pos, 0, None, None);
            }
            if wrapped {
                row += 1;
            } else {
                index += 1;
                row = 0;
            }
        }
        for r in self.state.commands.records.iter_mut() {
            let r = Arc::make_mut(r);
            r.started_at = None;
            r.prompt_at = None;
            r.ended_at = None;
        }
    }

    /// The tracked private modes.
    pub fn private_modes(&self) -> PrivateModes {
        self.state.modes
    }

    /// Sets the modes a seed reported (unknown ones are left as they
    /// are).
    pub fn seed_private_modes(&mut self, modes: PrivateModes) {
        self.state.modes.merge(modes);
    }

    /// The command table.
    pub fn commands(&self) -> &Commands {
        &self.state.commands
    }

    /// The working directory the program last announced (cleaned,
    /// capped), and the host of its `file://` URL.
    pub fn cwd(&self) -> (Option<&str>, Option<&str>) {
        (self.state.cwd.as_deref(), self.state.cwd_host.as_deref())
    }

    /// The title the program last set (OSC 0/2; cleaned, capped). tmux
    /// may ignore it (`allow-set-title`); this is what was asked.
    pub fn title(&self) -> Option<&str> {
        self.state.title.as_deref()
    }

    /// How many times the pane rang the bell: each C0 BEL (`\a`) outside
    /// a string sequence, as tmux's `input_c0_dispatch` passes it to
    /// `alerts_queue(…, WINDOW_BELL)`; a BEL ending an OSC is no bell.
    /// A counter (wrapping), kept across seeds ([`Term::adopt_state`]):
    /// readers compare it with the count they last saw.
    pub fn bells(&self) -> u64 {
        self.state.bells
    }

    /// The last `OSC 9;4` progress.
    pub fn progress(&self) -> Option<Progress> {
        self.state.progress
    }

    /// Output and screen-change times and the screen hash as of the last
    /// [`Term::settle_screen`].
    pub fn screen_state(&self) -> ScreenState {
        self.state.settle.report()
    }

    /// Hashes the visible screen if output came since the last hash and
    /// no synchronized-output frame is open (or it has been open for
    /// [`SYNC_TIMEOUT_US`], when tmux shows it anyway); when the hash
    /// differs, the change is dated to the newest output since. Returns
    /// the state. Costs one pass over the visible rows' text when dirty,
    /// nothing otherwise.
    pub fn settle_screen(&mut self) -> ScreenState {
        let now = self.state.now;
        let sync_ok = self
            .state
            .settle
            .sync_since
            .is_none_or(|s| now.saturating_sub(s) >= SYNC_TIMEOUT_US);
        if let (Some(at), true) = (self.state.settle.dirty_at, sync_ok) {
            let h = self.visible_hash();
            let s = &mut self.state.settle;
            if s.hash != Some(h) {
                s.hash = Some(h);
                s.last_change_at = Some(at);
            }
            s.dirty_at = None;
        }
        self.screen_state()
    }

    /// The hash of the visible rows' text, trailing blanks trimmed
    /// (FNV-1a over the rows, each followed by `\n`).
    pub fn visible_hash(&self) -> u64 {
        let mut h = RowHash::new();
        self.visible_rows(|_, row| h.row(row));
        h.finish()
    }

    /// Calls `f` with each visible row (0 = the top row) and its text,
    /// trailing blanks trimmed (a soft-wrapped line is one row per screen
    /// row here, as the screen shows it).
    pub fn visible_rows(&self, mut f: impl FnMut(usize, &[u8])) {
        let acs = self.opts.dec_graphics == super::DecGraphics::Unicode;
        let mut buf = Vec::with_capacity(self.sx() as usize * 4);
        for (i, line) in self.grid.lines.iter().enumerate() {
            buf.clear();
            line.push_text(&self.combined, acs, &mut buf);
            f(i, super::trim_end_spaces(&buf));
        }
    }

    /// Where the cursor is, as a [`MarkPos`].
    pub(crate) fn cursor_mark_pos(&self) -> MarkPos {
        let mut index = self.history.end_index().0;
        let mut row = if self.history.is_open() {
            self.history.iter().next_back().map_or(0, |l| l.rows())
        } else {
            0
        };
        let cy = (self.cy as usize).min(self.grid.lines.len().saturating_sub(1));
        for line in self.grid.lines.range(..cy) {
            if line.wrapped {
                row += 1;
            } else {
                index += 1;
                row = 0;
            }
        }
        MarkPos {
            line: LineIndex(index),
            row,
            column: Column(self.cx),
        }
    }

    /// The text of logical line `index` (screen or history).
    fn line_text(&self, index: LineIndex) -> Option<Vec<u8>> {
        self.screen_logical_lines()
            .find(|l| l.index == index)
            .map(|l| l.text.into_owned())
            .or_else(|| self.history.get(index).map(|l| l.text.to_vec()))
    }

    /// The byte offset in `text`, logical line `from.line`, of the cell at
    /// `p` (the first character at or after it).
    fn offset_in(&self, text: &[u8], p: MarkPos) -> usize {
        offset_at(
            text,
            p.row,
            p.column.0 as usize,
            self.sx() as usize,
            self.rules,
        )
    }

    /// The text of logical line `from.line` from `from` on: to `to` when
    /// on the same line, else to its end (cleaned, capped, trimmed).
    fn text_between(&self, from: MarkPos, to: MarkPos) -> String {
        let Some(text) = self.line_text(from.line) else {
            return String::new();
        };
        let start = self.offset_in(&text, from);
        let end = if to.line == from.line {
            self.offset_in(&text, to).max(start)
        } else {
            text.len()
        };
        marks::clean(super::trim_end_spaces(&text[start..end]), marks::MAX_TEXT)
            .trim()
            .to_string()
    }

    /// The screen row showing row `row` of logical line `line`, if on the
    /// screen.
    fn screen_row_of(&self, line: LineIndex, row: u32) -> Option<usize> {
        let mut index = self.history.end_index().0;
        let mut r = if self.history.is_open() {
            self.history.iter().next_back().map_or(0, |l| l.rows())
        } else {
            0
        };
        for (y, l) in self.grid.lines.iter().enumerate() {
            if index == line.0 && r == row {
                return Some(y);
            }
            if l.wrapped {
                r += 1;
            } else {
                index += 1;
                r = 0;
            }
        }
        None
    }

    /// Screen row `y`: whether each cell is blank (when `blanks`), and
    /// the text left of column `col` (cleaned, trailing blanks trimmed).
    fn screen_row_view(&self, y: usize, col: usize, blanks: bool) -> RowView {
        let sx = self.sx() as usize;
        let mut blank = Vec::with_capacity(if blanks { sx } else { 0 });
        let mut before = Vec::new();
        let space = u32::from(b' ');
        for x in 0..if blanks { sx } else { col.min(sx) } {
            let c = self.grid.get(x as u32, y as u32);
            // A space, cleared or written; a TAB cell is blank too.
            let is_blank = c.code() == space && c.flags() & !(cell::CLEARED | cell::TAB) == 0;
            if blanks {
                blank.push(is_blank);
            }
            if x < col && !c.is_padding() {
                if is_blank {
                    before.push(b' ');
                } else {
                    c.push_data(&self.combined, &mut before);
                }
            }
        }
        RowView {
            blank,
            before: marks::clean(super::trim_end_spaces(&before), marks::MAX_TEXT),
        }
    }

    /// [`Term::screen_row_view`] of row `row` of logical line `line`: on
    /// the screen, or laid out again from its text in history.
    fn row_view(&self, line: LineIndex, row: u32, col: usize) -> Option<RowView> {
        if let Some(y) = self.screen_row_of(line, row) {
            return Some(self.screen_row_view(y, col, true));
        }
        let text = self.history.get(line)?.text.to_vec();
        let sx = self.sx() as usize;
        let mut blank = vec![true; sx];
        let mut before = vec![b' '; col.min(sx) * 4];
        let mut at = vec![0usize; col.min(sx)];
        let mut layout = Layout::new(sx, self.rules);
        let mut one = [0u8; 4];
        // A wide character's second column (`at`).
        const PADDING: usize = 5;
        for c in String::from_utf8_lossy(&text).chars() {
            let placed = layout.push(u32::from(c));
            if placed.row != row || placed.width == 0 || c == ' ' {
                continue;
            }
            for x in placed.col..(placed.col + placed.width).min(sx) {
                blank[x] = false;
                if x > placed.col && x < at.len() {
                    at[x] = PADDING;
                }
            }
            if placed.col < at.len() {
                // Up to four bytes per cell left of the mark; joined
                // characters beyond that are dropped.
                let bytes = c.encode_utf8(&mut one).as_bytes();
                let cell = placed.col * 4;
                let n = at[placed.col];
                for (i, &b) in bytes.iter().enumerate().take(4 - n.min(4)) {
                    before[cell + n + i] = b;
                }
                at[placed.col] = (n + bytes.len()).min(4);
            }
        }
        let mut text = Vec::with_capacity(before.len());
        for (x, &n) in at.iter().enumerate() {
            let cell = &before[x * 4..x * 4 + 4];
            match n {
                PADDING => {}
                0 => text.push(b' '),
                n => text.extend_from_slice(&cell[..n]),
            }
        }
        Some(RowView {
            blank,
            before: marks::clean(super::trim_end_spaces(&text), marks::MAX_TEXT),
        })
    }

    /// A right prompt on a row: the first column of the text after the
    /// last gap of two or more blanks right of column `after`, when it
    /// ends within [`RIGHT_PROMPT_SLACK`] cells of the right edge.
    fn right_prompt_in(blank: &[bool], after: usize) -> Option<u32> {
        let last = blank.iter().rposition(|b| !b)?;
        if last + (RIGHT_PROMPT_SLACK as usize) < blank.len() || last < after {
            return None;
        }
        let mut start = last;
        loop {
            while start > after && !blank[start - 1] {
                start -= 1;
            }
            let gap = blank[after..start].iter().rev().take_while(|b| **b).count();
            if gap >= 2 {
                return u32::try_from(start).ok();
            }
            if gap == 0 || start - gap <= after {
                return None;
            }
            // Past a single blank (a space inside the right prompt).
            start -= gap + 1;
        }
    }

    /// Follows the cursor on the prompt's row (see [`PromptRow`]) at the
    /// end of each output while the command line is typed: a pass over the
    /// screen's rows.
    fn follow_prompt_row(&mut self) {
        let Some(p) = self.state.prompt_row.as_ref().filter(|p| !p.gone) else {
            return;
        };
        let at = p.at;
        let y = self.screen_row_of(at.line, at.row);
        let (cx, cy) = (self.cx, self.cy as usize);
        if let Some(p) = self.state.prompt_row.as_mut() {
            match y {
                None => p.gone = true,
                Some(y) if y == cy && cx >= at.column.0 => p.cursor_last = cx,
                Some(_) => {}
            }
        }
    }

    /// The command line typed at a prompt, read from the grid when its
    /// output starts at `end`: from its `B` to the line's end, then each
    /// continuation line up to `end`'s line (from its marked input start,
    /// else after an unmarked `> `-style prompt; a line with neither ends
    /// the command), joined by line feeds. A right prompt on the first row
    /// (marked by `633;H`, or seen there when the prompt was drawn and
    /// still there) is left out. A prompt rewritten since the `B` without
    /// marks (a transient prompt) moves the command line: it is read after
    /// the rewritten prompt's last word (`❯`, `$`, `%`) on the row above
    /// `end`, or is unknown (empty).
    fn input_text(&self, req: &InputText, end: MarkPos) -> String {
        let start = req.start;
        let row = self.state.prompt_row.as_ref().filter(|p| p.at == start);
        let col = start.column.0 as usize;
        let view = self.row_view(start.line, start.row, col);
        if let (Some(p), Some(view)) = (row, &view)
            && view.before != p.before
        {
            return self.rewritten_input(&p.before, end);
        }
        let right = req
            .right_prompt
            .filter(|r| (r.line, r.row) == (start.line, start.row) && r.column > start.column)
            .or_else(|| {
                // Text right of a gap, out to the edge, right of where the
                // cursor was last seen while the line was typed.
                let cursor = row.map_or(start.column.0, |p| p.cursor_last);
                let x = Self::right_prompt_in(&view.as_ref()?.blank, col)?;
                (x >= cursor.saturating_add(2)).then_some(MarkPos {
                    column: Column(x),
                    ..start
                })
            });
        let first_end = match right {
            Some(r) => r,
            None if end.line == start.line => end,
            None => MarkPos {
                line: start.line,
                row: u32::MAX,
                column: Column(u32::MAX),
            },
        };
        let mut text = self.text_between(start, first_end);
        // The lines after the first, to the one `end` is on (not that one
        // when the output starts at its beginning, as after Enter).
        let last = if end.row == 0 && end.column.0 == 0 {
            end.line.0.checked_sub(1)
        } else {
            Some(end.line.0)
        };
        let Some(last) = last else { return text };
        let mut next = start.line.0 + 1;
        while next <= last && next - start.line.0 <= MAX_INPUT_LINES as u64 {
            let index = LineIndex(next);
            next += 1;
            let Some(line) = self.line_text(index) else {
                break;
            };
            let from = match req.continued.iter().find(|c| c.line == index) {
                Some(&c) => self.offset_in(&line, c),
                None => match unmarked_ps2(&line) {
                    Some(n) => n,
                    None => break,
                },
            };
            let to = if index == end.line {
                self.offset_in(&line, end).max(from)
            } else {
                line.len()
            };
            let room = marks::MAX_TEXT.saturating_sub(text.len() + 1);
            if room == 0 {
                break;
            }
            let part = marks::clean(super::trim_end_spaces(&line[from..to]), room);
            text.push('\n');
            text.push_str(&part);
        }
        text
    }

    /// The command line of a prompt rewritten without marks (see
    /// [`Term::input_text`]): on the row above `end`, after the first
    /// occurrence of the last word of the prompt's row as it was drawn
    /// (`❯`, `$`), else after the first of the usual prompt ends
    /// ([`PROMPT_ENDS`]); empty when neither is there.
    fn rewritten_input(&self, before: &str, end: MarkPos) -> String {
        if end.row != 0 || end.column.0 != 0 {
            return String::new();
        }
        let Some(line) = end
            .line
            .0
            .checked_sub(1)
            .and_then(|i| self.line_text(LineIndex(i)))
        else {
            return String::new();
        };
        let line = marks::clean(super::trim_end_spaces(&line), marks::MAX_TEXT);
        let word = before
            .split_whitespace()
            .next_back()
            .map(|w| format!("{w} "))
            .into_iter();
        word.chain(PROMPT_ENDS.iter().map(|e| e.to_string()))
            .find_map(|w| {
                line.find(&w)
                    .map(|at| line[at + w.len()..].trim().to_string())
            })
            .unwrap_or_default()
    }

    /// Handles an OSC payload for the state kept here.
    pub(crate) fn state_osc(&mut self, data: &[u8]) {
        let Some(osc) = marks::parse(data) else {
            return;
        };
        let now = self.state.now;
        match osc {
            Osc::Mark(m) => {
                // Marks on the alternate screen name no line of history.
                if self.saved_grid.is_some() {
                    return;
                }
                let pos = self.cursor_mark_pos();
                let cwd = self.state.cwd.clone();
                let input_empty = matches!(m.kind, MarkKind::CommandEnd(_))
                    .then(|| self.state.commands.input_start())
                    .flatten()
                    .map(|b| self.text_between(b, pos).is_empty());
                let effect = self
                    .state
                    .commands
                    .mark(&m, pos, now, cwd.as_deref(), input_empty);
                match effect {
                    MarkEffect::None => {}
                    MarkEffect::InputStart(at) => {
                        // The prompt is drawn left of its `B`, on the
                        // cursor's row.
                        let col = at.column.0 as usize;
                        let view = self.screen_row_view(self.cy as usize, col, false);
                        self.state.prompt_row = Some(PromptRow {
                            at,
                            before: view.before,
                            cursor_last: at.column.0,
                            gone: false,
                        });
                    }
                    MarkEffect::ReadInput(req) => {
                        let text = self.input_text(&req, pos);
                        self.state.commands.grid_text(req.record, text);
                        self.state.prompt_row = None;
                    }
                }
            }
            Osc::CommandLine { text, nonce } => {
                if self.saved_grid.is_none() {
                    self.state.commands.command_line(text, nonce);
                }
            }
            Osc::Cwd { host, path } => {
                self.state.cwd = Some(path);
                self.state.cwd_host = host;
            }
            Osc::Title(t) => self.state.title = Some(t),
            Osc::Progress(p) => self.state.progress = Some(p),
        }
    }

    /// A private mode set (`on`) or reset, as tmux tracks it.
    pub(crate) fn state_private_mode(&mut self, mode: u32, on: bool) {
        let m = &mut self.state.modes;
        match mode {
            25 => m.cursor_visible = Some(on),
            1000..=1003 => {
                m.mouse_standard = Some(on && mode == 1000);
                m.mouse_button = Some(on && mode == 1002);
                m.mouse_all = Some(on && mode == 1003);
                if on && mode == 1001 {
                    // tmux ignores ?1001h (highlight tracking).
                    m.mouse_standard = None;
                    m.mouse_button = None;
                    m.mouse_all = None;
                }
            }
            1004 => m.focus_events = Some(on),
            1005 => m.mouse_utf8 = Some(on),
            1006 => m.mouse_sgr = Some(on),
            2004 => m.bracketed_paste = Some(on),
            2026 => {
                m.synchronized_output = Some(on);
                if on {
                    if self.state.settle.sync_since.is_none() {
                        // The screen as the last frame left it.
                        self.settle_screen();
                        self.state.settle.sync_since = Some(self.state.now);
                    }
                } else {
                    self.state.settle.end_frame(self.state.now);
                }
            }
            _ => {}
        }
    }

    /// RIS: the modes tmux resets.
    pub(crate) fn state_reset(&mut self) {
        self.state.modes = PrivateModes::RESET;
        self.state.settle.end_frame(self.state.now);
    }

    /// After each [`Term::advance`]: output times, the dirty mark, and
    /// trimming of the command table with history.
    pub(crate) fn state_after_advance(&mut self, fed: bool) {
        if fed {
            self.state.settle.last_output_at = Some(self.state.now);
            // Inside a frame too: [`Term::settle_screen`] waits for its
            // end (or tmux's timeout).
            self.state.settle.dirty_at = Some(self.state.now);
        }
        let first = self.history.first_index();
        if first != self.state.first_line {
            self.state.first_line = first;
            self.state.commands.trim(first);
        }
        if self.state.prompt_row.is_some() {
            self.follow_prompt_row();
        }
    }

    /// Adds `shift` to the index of every history line (and so of every
    /// screen line after them): a copy built from a seed to replace a
    /// copy of the same pane is numbered so its lines end where the old
    /// copy's end, and indices given out from the old one (followers'
    /// cursors, the command table it adopts with [`Term::adopt_state`])
    /// name the same lines in it. Call before `adopt_state`.
    pub fn renumber_history(&mut self, shift: u64) {
        let first = self.history.first_index().0 + shift;
        self.history.renumber(crate::term::LineIndex(first));
    }

    /// Takes over the command table, working directory, title and
    /// progress of `old`, the copy this one replaces (a re-seed continues
    /// its line numbering, so positions stay meaningful), and the private
    /// modes the seed did not report.
    pub fn adopt_state(&mut self, old: &Term) {
        let seeded = self.state.modes;
        let mut modes = old.state.modes;
        modes.merge(seeded);
        let now = self.state.now.max(old.state.now);
        self.state = TermState {
            modes,
            now,
            settle: Settle {
                hash: None,
                dirty_at: Some(now),
                sync_since: None,
                ..old.state.settle
            },
            ..old.state.clone()
        };
        let first = self.history.first_index();
        self.state.first_line = first;
        self.state.commands.trim(first);
    }
}

/// The byte offset in `text` (a logical line) of the cell at `row`,
/// `col`, laying its characters out again with tmux's rules (exact for
/// text written left to right): the first character at or after that
/// cell.
fn offset_at(text: &[u8], row: u32, col: usize, width: usize, rules: super::Rules) -> usize {
    let mut layout = Layout::new(width, rules);
    let mut i = 0;
    while i < text.len() {
        let len = match text[i] {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 1,
        };
        let cp = if len == 1 {
            u32::from(text[i])
        } else {
            text.get(i..i + len)
                .and_then(first_code_point)
                .unwrap_or(u32::from(text[i]))
        };
        let placed = layout.push(cp);
        if placed.width > 0 && (placed.row > row || (placed.row == row && placed.col >= col)) {
            return i;
        }
        i += len.min(text.len() - i);
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{Options, Rules};

    fn term() -> Term {
        Term::new(40, 10, Rules::V36, Options::default())
    }

    fn opts(limit: usize) -> Options {
        Options {
            history_limit: limit,
            ..Options::default()
        }
    }

    /// A bash-like session: prompt `$ `, the command typed, Enter, its
    /// output, the status; `st` ends the marks with ST instead of BEL.
    fn session(t: &mut Term, cmd: &str, out: &str, status: Option<u8>, st: bool) {
        let end = if st { "\x1b\\" } else { "\x07" };
        t.advance(format!("\x1b]133;A{end}$ \x1b]133;B{end}{cmd}\r\n\x1b]133;C{end}").as_bytes());
        t.advance(out.as_bytes());
        match status {
            Some(s) => t.advance(format!("\x1b]133;D;{s}{end}").as_bytes()),
            None => t.advance(format!("\x1b]133;D{end}").as_bytes()),
        }
    }

    #[test]
    fn commands_from_133_bel_and_st() {
        for st in [false, true] {
            let mut t = term();
            t.set_now(10);
            session(&mut t, "echo hi", "hi\r\n", Some(0), st);
            t.set_now(20);
            session(&mut t, "false", "", Some(1), st);
            session(&mut t, "  ls   -l  ", "x\r\n", None, st);
            let c: Vec<_> = t.commands().records().collect();
            assert_eq!(c.len(), 3, "st={st}");
            assert_eq!(c[0].command.as_deref(), Some("echo hi"));
            assert_eq!(c[0].command_from, Some(CommandText::Grid));
            assert_eq!(c[0].exit_status, Some(0));
            assert_eq!(c[0].ended, Some(CommandEnd::Finished));
            assert_eq!(c[0].prompt_at, Some(10));
            assert_eq!(c[0].started_at, Some(10));
            assert_eq!(c[0].source, MarkSource::Osc133);
            assert_eq!(
                c[0].prompt.map(|p| (p.line, p.column)),
                Some((LineIndex(0), Column(0)))
            );
            assert_eq!(c[0].command_start.map(|p| p.column), Some(Column(2)));
            assert_eq!(c[0].output_start.map(|p| p.line), Some(LineIndex(1)));
            assert_eq!(c[0].output_end.map(|p| p.line), Some(LineIndex(2)));
            assert_eq!(c[1].command.as_deref(), Some("false"));
            assert_eq!(c[1].exit_status, Some(1));
            assert_eq!(c[1].ended_at, Some(20));
            assert_eq!(c[2].command.as_deref(), Some("ls   -l"));
            // An absent status is unknown, never 0.
            assert_eq!(c[2].exit_status, None);
            assert_eq!(c[2].ended, Some(CommandEnd::Finished));
            assert_eq!(t.commands().marks_seen(), 12);
            // The marks leave the text alone.
            let lines: Vec<_> = t.lines().map(|l| l.text.into_owned()).collect();
            assert_eq!(lines[0], b"$ echo hi");
            assert_eq!(lines[1], b"hi");
        }
    }

    #[test]
    fn dangling_prompt_and_d_without_a() {
        let mut t = term();
        // D with no record: a record with only its end.
        t.advance(b"\x1b]133;D;3\x07");
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07sleep 9\r\n\x1b]133;C\x07");
        // A new prompt before D (a shell that sends no D, or a prompt the
        // command drew): the command goes on until the next one starts.
        t.advance(b"^C\r\n\x1b]133;A\x07$ ");
        let c: Vec<_> = t.commands().records().collect();
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].exit_status, c[0].prompt), (Some(3), None));
        assert_eq!(c[1].command.as_deref(), Some("sleep 9"));
        assert!(c[1].running());
        assert_eq!(c[2].ended, None);
        assert!(!c[2].running());
        assert_eq!(t.commands().running().map(|r| r.index), Some(1));
        // The same prompt drawn again (a redraw) is not a new record.
        t.advance(b"\r\x1b]133;A\x07$ ");
        assert_eq!(t.commands().records().len(), 3);
        // The next command starts: the one without D is abandoned.
        t.advance(b"\x1b]133;B\x07true\r\n\x1b]133;C\x07");
        let c: Vec<_> = t.commands().records().collect();
        assert_eq!(c[1].ended, Some(CommandEnd::Abandoned));
        assert_eq!(c[1].exit_status, None);
        assert_eq!(c[2].command.as_deref(), Some("true"));
        assert!(c[2].running());
    }

    /// The records of `t` as (command, state, status).
    fn table(t: &Term) -> Vec<(Option<String>, &'static str, Option<u8>)> {
        t.commands()
            .records()
            .map(|r| {
                let state = match (r.ended, r.output_start) {
                    (Some(CommandEnd::Finished), _) => "finished",
                    (Some(CommandEnd::Abandoned), _) => "abandoned",
                    (None, Some(_)) => "running",
                    (None, None) => "prompt",
                };
                (r.command.clone(), state, r.exit_status)
            })
            .collect()
    }

    fn cmd(
        c: &str,
        state: &'static str,
        st: Option<u8>,
    ) -> (Option<String>, &'static str, Option<u8>) {
        (Some(c.to_string()), state, st)
    }

    /// Enter on an empty line and Ctrl-C at the prompt run nothing: a
    /// bash-preexec-style shell sends `D;$?` at every prompt, zsh and fish
    /// send only a new prompt; neither is a command.
    #[test]
    fn prompts_where_nothing_ran_are_one_record() {
        // `D` at every prompt, before any command ran: nothing typed.
        let mut t = term();
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07\r\n\x1b]133;D;0\x07");
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07");
        assert_eq!(table(&t), [(None, "prompt", None)]);
        session(&mut t, "echo hi", "hi\r\n", Some(0), false);
        // Enter on an empty line, Ctrl-C with text typed: `D;$?`, no `C`.
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07\r\n\x1b]133;D;0\x07");
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07echo ab^C\r\n\x1b]133;D;130\x07");
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07");
        assert_eq!(
            table(&t),
            [cmd("echo hi", "finished", Some(0)), (None, "prompt", None)]
        );
        let open = t.commands().last().expect("the prompt");
        assert_eq!(open.prompt.map(|p| p.line), Some(LineIndex(5)));
        // A new prompt without `D` (zsh, fish): the same.
        t.advance(b"\r\n\x1b]133;A\x07$ \x1b]133;B\x07\r\n\x1b]133;A\x07$ \x1b]133;B\x07");
        assert_eq!(t.commands().records().len(), 2);
        // A shell that marks prompts and ends but never output starts:
        // what was typed before its `D` is a command, as before.
        let mut t = term();
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07ls\r\nx\r\n\x1b]133;D;0\x07");
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07\r\n\x1b]133;D;0\x07");
        assert_eq!(t.commands().records().len(), 2);
        assert_eq!(table(&t)[0].1, "finished");
        assert_eq!(table(&t)[1], (None, "prompt", None));
    }

    /// Multi-line commands: continuation lines marked (`P;k=s` … `B`, VS
    /// Code's `633;F` … `G`) are read from their input start; unmarked ones
    /// after bash's `> ` or zsh's `for> `; a line with neither (printed by
    /// PS0) is not the command's.
    #[test]
    fn multi_line_commands_are_one_record_with_every_line() {
        let run = |input: &[u8]| {
            let mut t = term();
            t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07");
            t.advance(input);
            t.advance(b"\x1b]133;C\x071\r\n2\r\n\x1b]133;D;0\x07\x1b]133;A\x07$ ");
            let c = table(&t);
            assert_eq!(c.len(), 2, "{c:?}");
            c[0].0.clone().unwrap_or_default()
        };
        let lines = "for i in 1 2; do\necho $i\ndone";
        assert_eq!(run(b"for i in 1 2; do\r\n> echo $i\r\n> done\r\n"), lines);
        assert_eq!(
            run(b"for i in 1 2; do\r\nfor> echo $i\r\nfor> done\r\n"),
            lines
        );
        let marked =
            b"for i in 1 2; do\r\n\x1b]133;P;k=s\x07\xe2\x88\x99 \x1b]133;B\x07echo $i\r\n\
            \x1b]133;A;k=s\x07\xe2\x88\x99 \x1b]133;B\x07done\r\n";
        assert_eq!(run(marked), lines);
        let vscode = b"for i in 1 2; do\r\n\x1b]633;F\x07> \x1b]633;G\x07echo $i\r\n\
            \x1b]633;F\x07> \x1b]633;G\x07done\r\n";
        assert_eq!(run(vscode), lines);
        // Indentation typed on a continuation line stays.
        assert_eq!(run(b"f() {\r\n>   echo x\r\n> }\r\n"), "f() {\n  echo x\n}");
        // PS0 printed a line before `C`: not part of the command.
        assert_eq!(run(b"ls\r\n12:00:01\r\n"), "ls");
        // A multi-line PS1 marked per line: the secondary mark before the
        // primary `B` is the prompt's.
        let mut t = term();
        t.advance(b"\x1b]133;A\x07~/src\r\n\x1b]133;P;k=s\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07");
        assert_eq!(table(&t), [cmd("ls", "running", None)]);
    }

    /// zsh's `RPROMPT` (drawn after the prompt's `B`, right-aligned) and a
    /// right prompt VS Code marks (`633;H`) are not the command; text the
    /// user typed out to the right edge is.
    #[test]
    fn right_prompts_stay_out_of_the_command() {
        let zsh = b"\x1b]133;A\x07% \x1b]133;B\x07\x1b[K\x1b[70Ctook 2s\x1b[77D";
        for bytewise in [false, true] {
            let mut t = Term::new(80, 10, Rules::V36, Options::default());
            t.advance(b"\x1b[5;1H");
            let feed = |t: &mut Term, b: &[u8]| {
                if bytewise {
                    b.iter().for_each(|c| t.advance(std::slice::from_ref(c)));
                } else {
                    t.advance(b);
                }
            };
            feed(&mut t, zsh);
            feed(
                &mut t,
                b"e\x08echo hi\r\r\n\x1b]133;C\x07hi\r\n\x1b]133;D;0\x07",
            );
            assert_eq!(
                table(&t)[0],
                cmd("echo hi", "finished", Some(0)),
                "bytewise {bytewise}"
            );
        }
        // Typed to the edge with a wide gap: the cursor stayed right of it.
        let mut t = Term::new(40, 10, Rules::V36, Options::default());
        let typed = format!("echo a{}b", " ".repeat(30));
        t.advance(b"\x1b]133;A\x07% \x1b]133;B\x07");
        t.advance(typed.as_bytes());
        t.advance(b"\r\n\x1b]133;C\x07");
        assert_eq!(
            t.commands().last().and_then(|r| r.command.as_deref()),
            Some(typed.as_str())
        );
        // Marked by VS Code.
        let mut t = Term::new(80, 10, Rules::V36, Options::default());
        t.advance(
            b"\x1b]633;A\x07% \x1b]633;B\x07ls -l\x1b[20C\x1b]633;H\x07[main]\x1b]633;I\x07\r\n",
        );
        t.advance(b"\x1b]633;C\x07");
        assert_eq!(
            t.commands().last().and_then(|r| r.command.as_deref()),
            Some("ls -l")
        );
    }

    /// A prompt drawn again before its command line ran (a resize, a vi
    /// keymap switch, a transient prompt rewritten after Enter) is the same
    /// record; a transient prompt rewritten without marks still gives the
    /// command line.
    #[test]
    fn redrawn_and_transient_prompts_are_one_record() {
        // bash redraws only the last row of a two-row PS1 (its `B`).
        let mut t = term();
        t.advance(b"\x1b]133;A\x07~/src\r\n$ \x1b]133;B\x07ec");
        t.advance(b"\r\x1b[K$ \x1b]133;B\x07ech");
        // zsh redraws the whole prompt (`A` and `B`).
        t.advance(b"\r\x1b[A\x1b[J\x1b]133;A\x07~/src\r\n$ \x1b]133;B\x07echo hi");
        // A transient prompt with marks, then the output.
        t.advance(b"\r\x1b[A\x1b[J\x1b]133;A\x07\xe2\x9d\xaf \x1b]133;B\x07echo hi\r\n");
        t.advance(b"\x1b]133;C\x07hi\r\n\x1b]133;D;0\x07");
        assert_eq!(table(&t), [cmd("echo hi", "finished", Some(0))]);
        // Rewritten without marks, below other lines (cleared in place)
        // and at the top of the screen (tmux moves the screen into
        // history: the old row stays).
        for top in [false, true] {
            let mut t = term();
            if !top {
                t.advance(b"x\r\ny\r\n");
            }
            t.advance(b"\x1b]133;A\x07~/src on main\r\n\xe2\x9d\xaf \x1b]133;B\x07\x1b[K\x1b[70Ctook 2s\x1b[77D");
            t.advance(b"echo hi\r\x1bM\x1b[J\xe2\x9d\xaf echo hi\x1b[K\r\n\x1b]133;C\x07hi\r\n");
            assert_eq!(table(&t), [cmd("echo hi", "running", None)], "top {top}");
        }
    }

    /// A prompt drawn while a command runs (fish ≥ 4 marks its `read`
    /// builtin's prompt) does not end it: its `D` does; a new command
    /// starting without that `D` abandons it.
    #[test]
    fn a_prompt_drawn_by_a_running_command() {
        let mut t = term();
        t.advance(b"\x1b]133;A\x1b\\> \x1b]133;B\x1b\\read -n 1 x\r\n\x1b]133;C;cmdline_url=read%20-n%201%20x\x1b\\");
        t.advance(b"\x1b]133;A;click_events=1\x1b\\read> \x1b]133;B\x1b\\");
        let c = t.commands();
        assert_eq!(
            c.running().and_then(|r| r.command.as_deref()),
            Some("read -n 1 x")
        );
        assert_eq!(c.last().map(|r| r.running()), Some(false));
        t.advance(b"y\r\ngot y\r\n\x1b]133;D;0\x1b\\\x1b]133;A\x1b\\> \x1b]133;B\x1b\\");
        assert_eq!(
            table(&t),
            [
                cmd("read -n 1 x", "finished", Some(0)),
                (None, "prompt", None)
            ]
        );
        assert!(t.commands().running().is_none());
        // Its output is the command's.
        let r = t.commands().get(0).expect("read");
        assert_eq!(r.output_end.map(|p| p.line), Some(LineIndex(3)));
    }

    #[test]
    fn vscode_and_fish_command_text() {
        let mut t = term();
        t.advance(b"\x1b]633;A\x07$ \x1b]633;B\x07echo a;b\r\n");
        t.advance(b"\x1b]633;E;echo a\\x3bb;abc123\x07\x1b]633;C\x07a\r\n\x1b]633;D;0\x07");
        t.advance(b"\x1b]133;A;click_events=1\x1b\\> \x1b]133;B\x1b\\ls\r\n");
        t.advance(b"\x1b]133;C;cmdline_url=ls%20%2Dla\x1b\\\x1b]133;D;2\x1b\\");
        let c: Vec<_> = t.commands().records().collect();
        assert_eq!(c[0].command.as_deref(), Some("echo a;b"));
        assert_eq!(c[0].command_from, Some(CommandText::Osc633));
        assert_eq!(c[0].command_nonce.as_deref(), Some("abc123"));
        assert_eq!(c[0].source, MarkSource::Osc633);
        assert_eq!(c[1].command.as_deref(), Some("ls -la"));
        assert_eq!(c[1].command_from, Some(CommandText::CmdlineUrl));
        assert_eq!(c[1].exit_status, Some(2));
    }

    #[test]
    fn cwd_title_progress() {
        let mut t = term();
        t.advance(b"\x1b]7;file://box/home/u/a%20b\x07\x1b]133;A\x07$ ");
        assert_eq!(t.cwd(), (Some("/home/u/a b"), Some("box")));
        t.advance(b"\x1b]133;B\x07pwd\r\n\x1b]133;C\x07");
        assert_eq!(
            t.commands().last().and_then(|r| r.cwd.as_deref()),
            Some("/home/u/a b")
        );
        t.advance(b"\x1b]633;P;Cwd=/srv\x07");
        assert_eq!(t.cwd(), (Some("/srv"), None));
        t.advance(b"\x1b]2;hello\x1b[31m\x07\x1b]0;t\x1b\\");
        assert_eq!(t.title(), Some("t"));
        t.advance(b"\x1b]9;4;3\x07");
        assert_eq!(t.progress(), Some(Progress::Indeterminate));
        t.advance(b"\x1b]9;4;0\x1b\\");
        assert_eq!(t.progress(), Some(Progress::Clear));
        t.advance(b"\x1b]1337;SetMark\x07");
        assert_eq!(t.commands().set_marks().count(), 1);
    }

    #[test]
    fn hostile_marks() {
        let mut t = term();
        // Controls and a huge command in 633;E: escaped and capped.
        let mut e = b"\x1b]633;E;rm\\x1b]0\\x3bx\\x07\\x0d".to_vec();
        e.extend(std::iter::repeat_n(b'y', 100_000));
        e.extend(b"\x07\x1b]633;C\x07\x1b]633;D;0\x07");
        t.advance(&e);
        let r = t.commands().last().expect("a record");
        let cmd = r.command.as_deref().unwrap_or("");
        assert!(cmd.starts_with("rm\\x1b]0;x\\x07\\x0d"), "{cmd:.40}");
        assert!(cmd.len() <= marks::MAX_TEXT);
        assert!(!cmd.chars().any(char::is_control));
        // A flood of marks keeps the table bounded.
        let mut flood = Vec::new();
        for i in 0..(MAX_COMMANDS + 500) {
            flood.extend(
                format!(
                    "\x1b]133;A;aid={}\x07\x1b]133;C\x07\x1b]133;D;{}\x07",
                    i % 3,
                    i % 300
                )
                .as_bytes(),
            );
        }
        t.advance(&flood);
        assert!(t.commands().records().len() <= MAX_COMMANDS);
        assert!(t.commands().dropped() > 0);
        assert!(t.commands().depth() < MAX_DEPTH);
        // Grid text: controls drawn by the program never get in (they are
        // not cells), and a long typed line is capped.
        let mut t = term();
        let long = "z".repeat(10_000);
        t.advance(format!("\x1b]133;A\x07$ \x1b]133;B\x07{long}\r\n\x1b]133;C\x07").as_bytes());
        let r = t.commands().last().expect("a record");
        assert!(
            r.command
                .as_ref()
                .is_some_and(|c| c.len() <= marks::MAX_TEXT && c.len() > 1000)
        );
    }

    #[test]
    fn alternate_screen_marks_are_ignored() {
        let mut t = term();
        t.advance(b"\x1b[?1049h\x1b]133;A\x07\x1b]133;D;0\x07\x1b]633;E;x\x07\x1b[?1049l");
        assert_eq!(t.commands().records().len(), 0);
        // The title and cwd still count.
        t.advance(b"\x1b[?1049h\x1b]2;vim\x07\x1b[?1049l");
        assert_eq!(t.title(), Some("vim"));
    }

    #[test]
    fn nesting_by_aid() {
        let mut t = term();
        t.advance(b"\x1b]133;A;aid=1\x07$ \x1b]133;B\x07bash\r\n\x1b]133;C\x07");
        t.advance(
            b"\x1b]133;A;aid=2\x07$ \x1b]133;B\x07true\r\n\x1b]133;C\x07\x1b]133;D;0;aid=2\x07",
        );
        t.advance(b"\x1b]133;A;aid=2\x07$ \x1b]133;B\x07exit\r\n\x1b]133;C\x07");
        assert_eq!(t.commands().depth(), 1);
        // The outer shell's D ends the inner shell too.
        t.advance(b"\x1b]133;D;5;aid=1\x07\x1b]133;A;aid=1\x07$ ");
        assert_eq!(t.commands().depth(), 0);
        let c: Vec<_> = t.commands().records().collect();
        assert_eq!(c.len(), 4);
        assert_eq!(
            (c[0].command.as_deref(), c[0].depth, c[0].exit_status),
            (Some("bash"), 0, Some(5))
        );
        assert_eq!(
            (c[1].command.as_deref(), c[1].depth, c[1].exit_status),
            (Some("true"), 1, Some(0))
        );
        assert_eq!(
            (c[2].command.as_deref(), c[2].ended),
            (Some("exit"), Some(CommandEnd::Abandoned))
        );
        assert_eq!((c[3].depth, c[3].ended), (0, None));
        assert_eq!(c[1].aid.as_deref(), Some("2"));
    }

    #[test]
    fn trimmed_with_history_and_clear() {
        let mut t = Term::new(20, 3, Rules::V36, opts(10));
        session(&mut t, "one", "1\r\n", Some(0), false);
        for _ in 0..30 {
            t.advance(b"filler\r\n");
        }
        // The record's lines are gone: it is dropped.
        assert_eq!(t.commands().records().len(), 0);
        assert_eq!(t.commands().dropped(), 1);
        // `clear` (bash's: home, erase, erase history) while running.
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07clear\r\n\x1b]133;C\x07");
        t.advance(b"\x1b[H\x1b[2J\x1b[3J");
        let r = t.commands().last().expect("the running record stays");
        assert!(r.trimmed && r.running());
        t.advance(b"\x1b]133;D;0\x07");
        assert_eq!(t.commands().last().map(|r| r.exit_status), Some(Some(0)));
    }

    #[test]
    fn private_modes() {
        let mut t = term();
        assert_eq!(t.private_modes(), PrivateModes::default());
        t.advance(b"\x1b[?2004h\x1b[?25l\x1b[?1004h\x1b[?1002h\x1b[?1006h");
        let m = t.private_modes();
        assert_eq!(m.bracketed_paste, Some(true));
        assert_eq!(m.cursor_visible, Some(false));
        assert_eq!(m.focus_events, Some(true));
        assert_eq!(
            (m.mouse_standard, m.mouse_button, m.mouse_all),
            (Some(false), Some(true), Some(false))
        );
        assert_eq!(m.mouse_sgr, Some(true));
        assert_eq!(m.mouse_utf8, None);
        t.advance(b"\x1b[?1003h");
        assert_eq!(t.private_modes().mouse_button, Some(false));
        assert_eq!(t.private_modes().mouse_all, Some(true));
        t.advance(b"\x1b[?1000l\x1b[?2004l\x1b[?25;1005h");
        let m = t.private_modes();
        assert_eq!(
            (
                m.mouse_all,
                m.bracketed_paste,
                m.cursor_visible,
                m.mouse_utf8
            ),
            (Some(false), Some(false), Some(true), Some(true))
        );
        t.advance(b"\x1b[?2004h\x1bc");
        assert_eq!(t.private_modes(), PrivateModes::RESET);
        let mut s = PrivateModes::from_private_modes_list("25,2004,2026");
        assert_eq!(s.bracketed_paste, Some(true));
        assert_eq!(s.focus_events, Some(false));
        s.merge(PrivateModes::from_private_modes_list(""));
        assert_eq!(s.cursor_visible, Some(true));
    }

    #[test]
    fn tmux_flags_recover_commands() {
        let mut t = term();
        t.set_now(7);
        // Rows: prompt (wrapped onto a second row), output, output, prompt.
        let rows = [
            (true, false, true),
            (false, false, false),
            (false, true, false),
            (false, false, false),
            (true, false, false),
        ];
        t.recover_marks(rows.into_iter());
        let c: Vec<_> = t.commands().records().collect();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].source, MarkSource::TmuxFlags);
        assert_eq!(c[0].ended, Some(CommandEnd::Finished));
        assert_eq!(c[0].exit_status, None);
        assert_eq!(c[0].started_at, None);
        let line = |p: Option<MarkPos>| p.map(|p| (p.line.0, p.row));
        assert_eq!(line(c[0].prompt), Some((0, 0)));
        assert_eq!(line(c[0].output_start), Some((1, 0)));
        assert_eq!(line(c[0].output_end), Some((3, 0)));
        assert_eq!(c[1].ended, None);
        assert_eq!(line(c[1].prompt), Some((3, 0)));
    }

    #[test]
    fn screen_hash_and_sync_frames() {
        let mut t = term();
        t.set_now(1);
        t.advance(b"hello");
        let s = t.settle_screen();
        assert_eq!((s.last_output_at, s.last_change_at), (Some(1), Some(1)));
        let h = s.hash;
        // A cursor move and a same-text repaint are no change.
        t.set_now(2);
        t.advance(b"\r\x1b[Khello\x1b[5;5H");
        let s = t.settle_screen();
        assert_eq!(
            (s.last_output_at, s.last_change_at, s.hash),
            (Some(2), Some(1), h)
        );
        // Attributes are not text.
        t.advance(b"\x1b[H\x1b[31mhello\x1b[m");
        assert_eq!(t.settle_screen().hash, h);
        // Inside a frame nothing is hashed; at its end, once.
        t.set_now(3);
        t.advance(b"\x1b[?2026h\x1b[2J\x1b[Hhalf");
        let s = t.settle_screen();
        assert!(s.sync_open);
        assert_eq!((s.hash, s.last_change_at), (h, Some(1)));
        t.set_now(4);
        t.advance(b" done\x1b[?2026l");
        let s = t.settle_screen();
        assert!(!s.sync_open);
        assert_ne!(s.hash, h);
        assert_eq!(s.last_change_at, Some(4));
        // A frame left open past tmux's timeout is hashed anyway.
        t.advance(b"\x1b[?2026hX");
        t.set_now(4 + SYNC_TIMEOUT_US);
        assert_eq!(t.settle_screen().last_change_at, Some(4));
        t.advance(b"");
        assert!(t.screen_state().sync_open);
        t.advance(b"Y");
        let s = t.settle_screen();
        assert_eq!(s.last_change_at, Some(4 + SYNC_TIMEOUT_US));
    }

    #[test]
    fn wrapped_command_line_text() {
        let mut t = Term::new(10, 5, Rules::V36, Options::default());
        t.advance(b"\x1b]133;A\x07$ \x1b]133;B\x07echo 0123456789abc\r\n\x1b]133;C\x07");
        let r = t.commands().last().expect("a record");
        assert_eq!(r.command.as_deref(), Some("echo 0123456789abc"));
        assert_eq!(
            r.output_start.map(|p| (p.line, p.row)),
            Some((LineIndex(1), 0))
        );
        // B in the middle of a wrapped prompt line.
        let mut t = Term::new(10, 5, Rules::V36, Options::default());
        t.advance(b"\x1b]133;A\x070123456789$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07");
        let r = t.commands().last().expect("a record");
        assert_eq!(
            r.command_start.map(|p| (p.row, p.column)),
            Some((1, Column(2)))
        );
        assert_eq!(r.command.as_deref(), Some("ls"));
    }
}
