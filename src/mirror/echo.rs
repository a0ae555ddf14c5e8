//! Telling the echo of input tmuxwire typed from a pane's output.
//!
//! Text typed into a pane comes back on its screen as *echo*, which is
//! not output: a wait for `LATE1` after typing `sleep 1; echo LATE1` must
//! not end on the command line itself (public case C13). An echo shows up
//! in more places than the prompt line where the text was typed:
//!
//! * the tty echoes typeahead the moment it arrives, wherever the cursor
//!   is, while the program in the pane is still busy (after its partial
//!   output, at any column);
//! * a line editor (readline, zle, fish) draws `prompt + text` again when
//!   it reads the line, later, on a later line, and again on each redraw;
//!   zsh breaks a long line over rows itself (a hard break at the right
//!   edge, not a soft wrap);
//! * each line of multi-line input is echoed on its own line, after a
//!   continuation prompt;
//! * while it is being drawn, the cursor's line ends with the first part
//!   of the text only.
//!
//! None of these can be told apart from output by where they are, so the
//! text is: [`TypedLog`] remembers what tmuxwire typed into a pane, and
//! [`Echoes::mask`] marks, in the lines a wait looks at, every place that
//! holds it. Waits then look for matches only in the unmasked segments of
//! a line ([`segments`]), each segment searched in place (look-arounds
//! see the whole line), so masking never glues text together.
//!
//! # What is masked
//!
//! For each remembered typed line `L` (its trailing spaces dropped, as
//! lines on screen have theirs; cut at control characters, whose echo is
//! not their byte):
//!
//! * **every occurrence** of `L` when it is at least [`DISTINCT`] bytes
//!   long, at any column, however often;
//! * an occurrence of a shorter `L` (`y`, `q`, `ls`) where an echo of it
//!   ends: at the end of its line (or at the cursor), starting at the
//!   line's start or after a character that is not a letter, digit or `_`
//!   (a prompt, a question, a space). A short text appears inside output
//!   by chance all the time (`y` in `Ready`); masking it there would hide
//!   output for as long as the text is remembered;
//! * an occurrence carried over a line break, for each of those: the
//!   break may stand for nothing or for one space of `L` (zsh's own
//!   wrapping; the trailing space of the first row is trimmed away), and
//!   is never taken across an empty line;
//! * an echo in progress: a suffix of the text before the cursor (or of
//!   the cursor's whole line), starting as above after a non-word
//!   character or at a line start, that is a prefix of `L`. It may begin
//!   on an earlier line when the cursor's line already holds the rest.
//!
//! Each typed line masks only lines at or after the line the cursor was
//! on when it was typed ([`Origin`]), in the same copy of the pane: an
//! echo is drawn at or after the cursor.
//!
//! # What a program in the pane can do with it
//!
//! A program can print text equal to what tmuxwire typed, and a wait
//! then takes it for echo: that is inherent (an echo *is* the program's
//! output as far as the terminal is concerned). It cannot hide anything
//! else: only bytes inside such an occurrence (or a prefix of one at the
//! cursor) are masked, a line that holds no typed text is never masked,
//! and what the program prints around the copied text still matches.
//!
//! # How long input is remembered
//!
//! By count and size, not by time: the last [`MAX_LINES`] lines, at most
//! [`MAX_BYTES`] bytes in all. An echo of a line can only come while the
//! line is still unread (the tty echoes typeahead when it arrives; a line
//! editor draws the line it reads, and redraws only the line it is
//! editing). Programs read their input in order, so a line typed `k`
//! lines back can still be echoed only when the `k` lines typed after it
//! are all still queued unread too: tmuxwire typed `k` lines ahead of a
//! program that is not reading. A Linux tty queues at most 4 KiB for a
//! reader (`N_TTY_BUF_SIZE`; beyond it tmux holds the input back), so the
//! bound covers every line that is still unread unless tmuxwire queued
//! more than 256 lines or 64 KiB ahead of a busy program. A time limit
//! gives no such bound: a shell busy for a minute echoes its typeahead a
//! minute later.

use std::collections::VecDeque;
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem;

use crate::term::LineIndex;

/// Typed lines remembered per pane.
pub const MAX_LINES: usize = 256;

/// Bytes of typed lines remembered per pane.
pub const MAX_BYTES: usize = 64 * 1024;

/// The longest piece a typed line is remembered in (longer lines are cut
/// into pieces of this size, each masked wherever it occurs).
pub const MAX_PIECE: usize = 4096;

/// Typed lines at least this long (bytes) are masked wherever they occur;
/// shorter ones only where an echo of them ends (see the module docs).
pub const DISTINCT: usize = 8;

/// Where the cursor was when text was typed: the copy (its epoch) and the
/// logical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The copy's epoch ([`super::PaneState::epoch`]).
    pub epoch: u64,
    /// The logical line the cursor was on.
    pub line: LineIndex,
}

/// A line (or a piece of one) tmuxwire typed into a pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typed {
    /// Its place in the order of all typing (larger: later).
    pub seq: u64,
    /// The text: non-empty, no control characters, no trailing spaces.
    pub text: Vec<u8>,
    /// Where the cursor was then; `None`: unknown (masks every line).
    pub origin: Option<Origin>,
}

/// What tmuxwire typed into one pane lately, oldest first, bounded by
/// [`MAX_LINES`] and [`MAX_BYTES`].
#[derive(Clone, Debug, Default)]
pub struct TypedLog {
    lines: VecDeque<Typed>,
    bytes: usize,
    /// What was typed on the current line so far (no line break yet): the
    /// next text continues it.
    open: Vec<u8>,
}

impl TypedLog {
    /// An empty log.
    pub fn new() -> TypedLog {
        TypedLog::default()
    }

    /// Notes that `text` was typed, then Enter when `ended`. Each line of
    /// it is remembered, and so is the line it continues when the text
    /// before it had no line break (`cd /tmp` then ` && ls`: the shell
    /// echoes `cd /tmp && ls`). `seq` numbers the lines (it is advanced
    /// for each one).
    pub fn note(&mut self, text: &[u8], ended: bool, origin: Option<Origin>, seq: &mut u64) {
        let mut rest = text;
        loop {
            let brk = memchr::memchr2(b'\r', b'\n', rest);
            let seg = &rest[..brk.unwrap_or(rest.len())];
            if !seg.is_empty() {
                self.push(seg, origin, seq);
                if !self.open.is_empty() {
                    let mut line = self.open.clone();
                    line.extend_from_slice(seg);
                    self.push(&line, origin, seq);
                }
                self.open.extend_from_slice(seg);
                if self.open.len() > MAX_PIECE {
                    // Its end is what the next text continues.
                    let cut = self.open.len() - MAX_PIECE;
                    self.open.drain(..cut);
                }
            }
            match brk {
                Some(i) => {
                    self.open.clear();
                    rest = &rest[i + 1..];
                }
                None => break,
            }
        }
        if ended {
            self.open.clear();
        }
    }

    /// Notes that a key was pressed: Enter ends the current line; any
    /// other key (C-c, an arrow, BSpace) changes it in a way not followed
    /// here, so the next text starts a new one.
    pub fn note_key(&mut self) {
        self.open.clear();
    }

    /// The remembered lines, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &Typed> {
        self.lines.iter()
    }

    /// The largest `seq` held, or `None` when empty.
    pub fn last_seq(&self) -> Option<u64> {
        self.lines.back().map(|t| t.seq)
    }

    fn push(&mut self, line: &[u8], origin: Option<Origin>, seq: &mut u64) {
        for piece in line.split(|&b| b < b' ' || b == 0x7f) {
            let piece = trim_end_spaces(piece);
            for chunk in piece.chunks(MAX_PIECE) {
                self.push_one(chunk, origin, seq);
            }
        }
    }

    fn push_one(&mut self, text: &[u8], origin: Option<Origin>, seq: &mut u64) {
        if text.is_empty() {
            return;
        }
        let mut origin = origin;
        if let Some(at) = self.lines.iter().position(|t| t.text == text)
            && let Some(old) = self.lines.remove(at)
        {
            self.bytes -= old.text.len();
            // Both typings' echoes must stay masked: from the earlier line
            // on, or everywhere when they are of different copies.
            origin = wider(old.origin, origin);
        }
        *seq += 1;
        self.bytes += text.len();
        self.lines.push_back(Typed {
            seq: *seq,
            text: text.to_vec(),
            origin,
        });
        while self.lines.len() > MAX_LINES || self.bytes > MAX_BYTES {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.text.len(),
                None => break,
            }
        }
    }
}

fn trim_end_spaces(b: &[u8]) -> &[u8] {
    let n = b.iter().rposition(|&c| c != b' ').map_or(0, |i| i + 1);
    &b[..n]
}

/// One line of a window given to [`Echoes::mask`]: its index in the
/// pane's logical lines and its text (trailing spaces removed).
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The logical line's index.
    pub index: LineIndex,
    /// Its text.
    pub text: &'a [u8],
}

/// `texts` as a window of lines numbered 0, 1, … (text that is not a
/// pane's lines: a command's output, a fuzz case).
pub fn numbered<T: AsRef<[u8]>>(texts: &[T]) -> Vec<Line<'_>> {
    texts
        .iter()
        .enumerate()
        .map(|(k, t)| Line {
            index: LineIndex(k as u64),
            text: t.as_ref(),
        })
        .collect()
}

/// The cursor in a window: which line of it (0-based position in the
/// window) and the byte offset in that line's text where the cursor is
/// (the text's length or more: at its end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The line's position in the window.
    pub line: usize,
    /// The byte offset of the cursor in it.
    pub byte: usize,
}

#[derive(Debug)]
struct Text {
    bytes: Vec<u8>,
    origin: Option<Origin>,
    distinct: bool,
}

/// The typed lines of a pane, made ready to mask a window of its lines
/// ([`Echoes::mask`]). Build once per change of the log.
#[derive(Debug, Default)]
pub struct Echoes {
    /// Sorted by `bytes`, so the texts starting with some bytes are
    /// neighbours.
    texts: Vec<Text>,
    /// The longest text's length.
    longest: usize,
    /// All texts at once (overlapping matches); `None` when there are none
    /// or the automaton could not be built (then each text is searched on
    /// its own).
    ac: Option<AhoCorasick>,
}

/// How lines of a window are joined when searching across breaks: the
/// break stands for nothing, or for one space.
const JOINS: [&[u8]; 2] = [b"", b" "];

/// A join that no echo crosses (next to an empty line). No line holds it
/// (lines hold no `\n`), and no typed text does, so no match crosses it.
const WALL: &[u8] = b"\n";

impl Echoes {
    /// Compiles `typed` (duplicates are merged, keeping the most
    /// permissive origin).
    pub fn new<'a>(typed: impl IntoIterator<Item = &'a Typed>) -> Echoes {
        let mut texts: Vec<Text> = Vec::new();
        for t in typed {
            let text = trim_end_spaces(&t.text);
            if text.is_empty() || text.contains(&b'\n') {
                continue;
            }
            texts.push(Text {
                bytes: text.to_vec(),
                origin: t.origin,
                distinct: text.len() >= DISTINCT,
            });
        }
        texts.sort_by(|a, b| a.bytes.cmp(&b.bytes));
        texts.dedup_by(|later, kept| {
            if later.bytes != kept.bytes {
                return false;
            }
            kept.origin = wider(kept.origin, later.origin);
            true
        });
        let longest = texts.iter().map(|t| t.bytes.len()).max().unwrap_or(0);
        let ac = if texts.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(texts.iter().map(|t| &t.bytes))
                .ok()
        };
        Echoes { texts, longest, ac }
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The masked byte ranges of each line of `window` (consecutive
    /// logical lines, oldest first): sorted, disjoint, within the line.
    /// `cursor` is where the cursor is, when it is on one of them; `epoch`
    /// is the copy the lines are of (`None`: do not restrict typed lines to
    /// the lines after their [`Origin`], as on the alternate screen whose
    /// lines are redrawn in place).
    pub fn mask(
        &self,
        window: &[Line<'_>],
        cursor: Option<Cursor>,
        epoch: Option<u64>,
    ) -> Vec<Vec<Range<usize>>> {
        let mut masks: Vec<Vec<Range<usize>>> = vec![Vec::new(); window.len()];
        if self.texts.is_empty() || window.is_empty() {
            return masks;
        }
        let cursor = cursor.filter(|c| c.line < window.len());
        let joins: &[&[u8]] = if window.len() > 1 {
            &JOINS
        } else {
            &JOINS[..1]
        };
        for &join in joins {
            let j = Joined::new(window, join);
            self.occurrences(&j, |t, a, b| {
                if accept(&j, window, cursor, epoch, t, a, b) {
                    j.add(&mut masks, a, b);
                }
            });
            let Some(c) = cursor else { continue };
            let text = window[c.line].text;
            // An empty cursor line holds no echo in progress, and one does
            // not reach back past it.
            if text.is_empty() {
                continue;
            }
            let start = j.starts[c.line];
            let mut ends = vec![start + text.len()];
            if c.byte < text.len() {
                ends.push(start + c.byte);
            }
            for end in ends {
                if let Some(a) = self.in_progress(&j, window, epoch, end) {
                    j.add(&mut masks, a, end);
                }
            }
        }
        for m in &mut masks {
            merge_ranges(m);
        }
        masks
    }

    /// Calls `f(text, start, end)` for every occurrence of every text in
    /// `j`, overlapping ones included.
    fn occurrences(&self, j: &Joined, mut f: impl FnMut(&Text, usize, usize)) {
        match &self.ac {
            Some(ac) => {
                for m in ac.find_overlapping_iter(&j.text) {
                    f(&self.texts[m.pattern().as_usize()], m.start(), m.end());
                }
            }
            None => {
                for t in &self.texts {
                    let finder = memmem::Finder::new(&t.bytes);
                    let mut from = 0;
                    while let Some(i) = j.text.get(from..).and_then(|h| finder.find(h)) {
                        f(t, from + i, from + i + t.bytes.len());
                        from += i + 1;
                    }
                }
            }
        }
    }

    /// Where the longest echo in progress that ends `j` at `end` starts:
    /// the earliest `a` such that `j.text[a..end]` is a prefix of a typed
    /// text that applies there and starts where an echo can.
    fn in_progress(
        &self,
        j: &Joined,
        window: &[Line<'_>],
        epoch: Option<u64>,
        end: usize,
    ) -> Option<usize> {
        for a in end.saturating_sub(self.longest)..end {
            // Not inside a character, not on a join.
            if j.text[a] & 0xc0 == 0x80 {
                continue;
            }
            let Some(line) = j.line_of(a) else { continue };
            let part = &j.text[a..end];
            if !j.word_start(line, a, part) {
                continue;
            }
            let from = self.texts.partition_point(|t| t.bytes.as_slice() < part);
            let found = self.texts[from..]
                .iter()
                .take_while(|t| t.bytes.starts_with(part))
                .any(|t| applies(t, window[line].index, epoch));
            if found {
                return Some(a);
            }
        }
        None
    }
}

/// Whether the occurrence `a..b` of `t` in `j` is masked.
fn accept(
    j: &Joined,
    window: &[Line<'_>],
    cursor: Option<Cursor>,
    epoch: Option<u64>,
    t: &Text,
    a: usize,
    b: usize,
) -> bool {
    let (Some(first), Some(last)) = (j.line_of(a), j.line_of(b - 1)) else {
        return false;
    };
    if !applies(t, window[first].index, epoch) {
        return false;
    }
    if t.distinct {
        return true;
    }
    let line_end = j.starts[last] + window[last].text.len();
    let at_cursor = cursor.is_some_and(|c| c.line == last && j.starts[last] + c.byte == b);
    (b == line_end || at_cursor) && j.word_start(first, a, &t.bytes)
}

/// The origin that masks the lines of both: the earlier line of one copy,
/// or every line when they are of different copies (or one is unknown).
fn wider(a: Option<Origin>, b: Option<Origin>) -> Option<Origin> {
    match (a, b) {
        (Some(a), Some(b)) if a.epoch == b.epoch => Some(if a.line <= b.line { a } else { b }),
        _ => None,
    }
}

/// Whether typed text `t` can have been echoed on line `index`.
fn applies(t: &Text, index: LineIndex, epoch: Option<u64>) -> bool {
    match (t.origin, epoch) {
        (Some(o), Some(e)) if o.epoch == e => index >= o.line,
        _ => true,
    }
}

/// A window's lines joined into one text.
struct Joined {
    text: Vec<u8>,
    /// Where each line starts in `text`.
    starts: Vec<usize>,
    /// Each line's length.
    lens: Vec<usize>,
}

impl Joined {
    fn new(window: &[Line<'_>], join: &[u8]) -> Joined {
        let total: usize = window.iter().map(|l| l.text.len() + 1).sum();
        let mut text = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(window.len());
        let mut lens = Vec::with_capacity(window.len());
        for (k, l) in window.iter().enumerate() {
            if k > 0 {
                let prev = window[k - 1].text;
                text.extend_from_slice(if prev.is_empty() || l.text.is_empty() {
                    WALL
                } else {
                    join
                });
            }
            starts.push(text.len());
            lens.push(l.text.len());
            text.extend_from_slice(l.text);
        }
        Joined { text, starts, lens }
    }

    /// The line whose text holds byte `at` of `text` (`None` on a join).
    fn line_of(&self, at: usize) -> Option<usize> {
        let k = self.starts.partition_point(|&s| s <= at).checked_sub(1)?;
        (at < self.starts[k] + self.lens[k]).then_some(k)
    }

    /// Whether an echo of `typed` can start at `at` (on line `line`): at
    /// the line's start, after a character that is not a word character,
    /// or with `typed` itself starting with one.
    fn word_start(&self, line: usize, at: usize, typed: &[u8]) -> bool {
        let start = self.starts[line];
        at == start || !first_is_word(typed) || !last_is_word(&self.text[start..at])
    }

    /// Masks `a..b` of `text` in the lines it covers.
    fn add(&self, masks: &mut [Vec<Range<usize>>], a: usize, b: usize) {
        let first = self.starts.partition_point(|&s| s <= a).saturating_sub(1);
        for (k, m) in masks.iter_mut().enumerate().skip(first) {
            let (s, e) = (self.starts[k], self.starts[k] + self.lens[k]);
            if s >= b {
                break;
            }
            let (lo, hi) = (a.max(s), b.min(e));
            if lo < hi {
                m.push(lo - s..hi - s);
            }
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `b` starts with a word character (or with bytes that are not
/// UTF-8, which are taken as one: an echo then needs a boundary).
fn first_is_word(b: &[u8]) -> bool {
    let head = &b[..b.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    match valid.chars().next() {
        Some(c) => is_word(c),
        None => !b.is_empty(),
    }
}

/// Whether `b` ends with a word character (or inside a character).
fn last_is_word(b: &[u8]) -> bool {
    let tail = &b[b.len().saturating_sub(4)..];
    match (0..tail.len()).find_map(|i| std::str::from_utf8(&tail[i..]).ok()) {
        Some(s) => s.chars().next_back().is_some_and(is_word),
        None => !b.is_empty(),
    }
}

/// Sorts and merges overlapping or touching ranges (byte ranges of a
/// line: the echo masks here and a wait's masks, `tmux::op::text`).
pub(crate) fn merge_ranges(m: &mut Vec<Range<usize>>) {
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

/// The parts of a line of `len` bytes that `masked` (sorted, disjoint)
/// leaves, in order; empty parts are left out.
pub fn segments(len: usize, masked: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(masked.len() + 1);
    let mut at = 0;
    for r in masked {
        if r.start > at {
            out.push(at..r.start.min(len));
        }
        at = at.max(r.end);
    }
    if at < len {
        out.push(at..len);
    }
    out
}

/// Whether `text` holds anything but spaces outside `masked`.
pub fn has_unmasked_text(text: &[u8], masked: &[Range<usize>]) -> bool {
    segments(text.len(), masked)
        .into_iter()
        .any(|r| text[r].iter().any(|&b| b != b' '))
}

/// Checks [`Echoes::mask`] on a window and typed lines made from `data`
/// (the fuzz target `echo_mask`): no panic, ranges sorted, disjoint and
/// within their lines; every occurrence of a long typed line is masked;
/// a window of one line and no cursor is masked only inside occurrences
/// of typed lines.
///
/// Input: byte 0 = number of typed lines (mod 8), byte 1 = cursor (bit 7
/// set: none; else its line mod the window's), then NUL-separated typed
/// lines, then the window's lines separated by `\n`.
pub fn fuzz_mask(data: &[u8]) {
    let [count, cur, rest @ ..] = data else {
        return;
    };
    let count = usize::from(*count % 8);
    let mut parts = rest.splitn(count + 1, |&b| b == 0);
    let mut seq = 0;
    let mut log = TypedLog::new();
    for _ in 0..count {
        if let Some(p) = parts.next() {
            log.note(p, true, None, &mut seq);
        }
    }
    let body = parts.next().unwrap_or(&[]);
    let texts: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let window = numbered(&texts);
    let cursor = (cur & 0x80 == 0).then(|| Cursor {
        line: usize::from(*cur) % window.len().max(1),
        byte: usize::from(*cur),
    });
    let echoes = Echoes::new(log.lines());
    let masks = echoes.mask(&window, cursor, Some(0));
    assert_eq!(masks.len(), window.len());
    for (m, l) in masks.iter().zip(&window) {
        let mut at = 0;
        for r in m {
            assert!(r.start >= at && r.start < r.end && r.end <= l.text.len());
            at = r.end + 1;
        }
        for t in log.lines().filter(|t| t.text.len() >= DISTINCT) {
            let f = memmem::Finder::new(&t.text);
            let mut from = 0;
            while let Some(i) = l.text.get(from..).and_then(|h| f.find(h)) {
                let (s, e) = (from + i, from + i + t.text.len());
                assert!(
                    m.iter().any(|r| r.start <= s && e <= r.end),
                    "an occurrence of a long typed line is not masked"
                );
                from += i + 1;
            }
        }
    }
    if window.len() == 1 && cursor.is_none() {
        let line = window[0].text;
        for r in &masks[0] {
            for k in r.clone() {
                assert!(
                    typed_covers(&log, line, k),
                    "byte {k} is masked outside any typed text"
                );
            }
        }
    }
}

/// Whether byte `k` of `line` lies in an occurrence of a line of `log`,
/// overlapping ones included ("b b" twice in "b b b", where
/// `memmem::find_iter` reports one): what [`fuzz_mask`] and the tests
/// allow a mask to cover.
fn typed_covers(log: &TypedLog, line: &[u8], k: usize) -> bool {
    log.lines().any(|t| {
        let n = t.text.len();
        n > 0 && (k.saturating_sub(n - 1)..=k).any(|s| line.get(s..s + n) == Some(&t.text[..]))
    })
}

#[cfg(test)]
mod tests;
