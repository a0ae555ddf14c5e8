//! Searching a copy: the history as chunks of `\n`-separated logical lines
//! (scanned whole, near memory speed), then the lines on the screen.
//! Pure.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::search::Pattern;
use crate::search::hit::excerpt_keeping;
use crate::term::{ByteOffset, LineNo, LogicalLine, Term};

/// Which screen a match was found on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Screen {
    /// The normal screen and its history.
    Main,
    /// The alternate screen a full-screen program shows.
    Alternate,
    /// The normal screen, hidden while the alternate one is shown (tmux's
    /// `capture-pane -a`).
    HiddenMain,
}

/// Where a match starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Position {
    /// The tmux line number of the row holding the match's first
    /// character (0 = top of the screen, negative = history).
    pub row: i64,
    /// Its cell column (0-based).
    pub column: u32,
    /// Its offset in the logical line, in characters.
    pub char: usize,
    /// Its offset in the logical line, in bytes (UTF-8).
    pub byte: usize,
}

/// One matched logical line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The line (cut around the match when long, see
    /// [`crate::search::hit::excerpt`]).
    pub text: String,
    /// The tmux line number of its first row.
    pub line: i64,
    /// The rows it fills.
    pub rows: u32,
    /// Where the first match in it starts.
    pub at: Position,
    /// Which screen it is on.
    pub screen: Screen,
}

/// What scanning one copy found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// The newest matched lines (at most the number asked for), oldest
    /// first.
    pub hits: Vec<Hit>,
    /// How many lines matched in all.
    pub count: usize,
    /// The scan was cancelled before it finished.
    pub cancelled: bool,
}

/// The logical lines after the complete history, in the order a scan
/// reads them, each with its screen: with the alternate screen on, the
/// normal screen it hides (numbered from its top row, 0) and then the
/// alternate screen; otherwise the screen (with the history line it
/// continues, if any).
pub fn screen_lines(term: &Term) -> impl Iterator<Item = (LogicalLine<'_>, Screen)> + '_ {
    let alternate = term.alternate_on();
    let on_screen = if alternate {
        Screen::Alternate
    } else {
        Screen::Main
    };
    let hidden = if alternate {
        term.hidden_main_lines()
    } else {
        Vec::new()
    };
    hidden
        .into_iter()
        .map(|l| (l, Screen::HiddenMain))
        .chain(term.screen_logical_lines().map(move |l| (l, on_screen)))
}

/// [`screen_lines`] of a copy, held: made once for a snapshot that never
/// changes ([`crate::mirror::pane::Snapshot::screen_lines`]) and read by
/// every scan of it, so a search of many idle panes lays out no screen
/// (each of its rows' cells to text) again.
#[derive(Debug)]
pub struct ScreenLines(Vec<(LogicalLine<'static>, Screen)>);

impl ScreenLines {
    /// The [`screen_lines`] of `term`, owned.
    pub fn of(term: &Term) -> ScreenLines {
        ScreenLines(
            screen_lines(term)
                .map(|(l, s)| (l.into_owned(), s))
                .collect(),
        )
    }

    /// The lines, in [`screen_lines`]' order, borrowed.
    fn iter(&self) -> impl Iterator<Item = (LogicalLine<'_>, Screen)> + '_ {
        self.0.iter().map(|(l, s)| (l.borrowed(), *s))
    }
}

/// A copy's logical lines in the order a scan reads them (the history's,
/// then [`screen_lines`]) whose first row is within a range (a line that
/// starts before it but reaches into it counts), each with its tmux line
/// number; held as the copy holds them, not copied. The one walk over a
/// copy's lines: [`scan`] searches it ([`Lines::walk`]), and a reader
/// that selects and prints whole lines (`tmuxwire search`: `-v`,
/// context, every match) reads it by position and
/// [`Lines::each_match`], so both find the same lines, numbers and rows.
pub struct Lines<'a> {
    hsize: i64,
    /// Every history chunk (the scan positions of redaction count them
    /// all, in range or not).
    chunks: Vec<crate::term::SearchChunk<'a>>,
    /// The history's lines in range, chunk by chunk.
    parts: Vec<Part>,
    /// History lines in range (the first screen line's position).
    history: usize,
    /// The lines after the history in range, each with its position
    /// among all of [`screen_lines`].
    screen: Vec<(LogicalLine<'a>, Screen, usize)>,
}

/// The lines `from..to` of history chunk `chunk`, the first at position
/// `base`.
struct Part {
    chunk: usize,
    from: usize,
    to: usize,
    base: usize,
}

/// One line of [`Lines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// Its text, trailing spaces removed, without a line break.
    pub text: &'a [u8],
    /// The tmux line number of its first row.
    pub number: i64,
    /// The rows it fills.
    pub rows: u32,
    /// Which screen it is on.
    pub screen: Screen,
}

/// A matched line of [`Lines::walk`], and where in it the match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    line: Which,
    /// The match, bytes of the line.
    start: usize,
    end: usize,
}

/// Which line of [`Lines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    /// Line `line` of part `part`'s chunk, starting at byte `offset` of
    /// the chunk's text.
    History {
        part: usize,
        line: usize,
        offset: usize,
    },
    /// Line `k` of [`Lines`]'s screen lines.
    Screen(usize),
}

/// The first `k` in `0..n` where `pred` is false (`pred` true, then
/// false, along `0..n`).
fn first_not(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

impl<'a> Lines<'a> {
    /// The lines of `term` whose first row is within `range` (tmux line
    /// numbers, inclusive; `None`: all of them).
    pub fn of(term: &'a Term, range: Option<(i64, i64)>) -> Lines<'a> {
        Lines::with_screen(term, range, screen_lines(term))
    }

    /// [`Lines::of`] with the lines after the history given (`term`'s
    /// [`screen_lines`], made already: [`ScreenLines`]).
    fn with_screen(
        term: &'a Term,
        range: Option<(i64, i64)>,
        screen: impl Iterator<Item = (LogicalLine<'a>, Screen)>,
    ) -> Lines<'a> {
        let hsize = i64::try_from(term.history_size()).unwrap_or(i64::MAX);
        let in_range = |first: i64, rows: u32| match range {
            None => true,
            Some((lo, hi)) => first <= hi && first + i64::from(rows) > lo,
        };
        let chunks: Vec<_> = term.history().search_chunks().collect();
        let mut parts = Vec::new();
        let mut history = 0;
        for (ci, chunk) in chunks.iter().enumerate() {
            let n = chunk.line_count();
            let first = |k: usize| {
                let (row, rows) = chunk.rows_of(k);
                (i64::try_from(row).unwrap_or(i64::MAX) - hsize, rows)
            };
            // A chunk's lines go down its rows: those in range are a run.
            let whole = |lo: i64, hi: i64| {
                n > 0 && {
                    let (f, rows) = first(0);
                    f + i64::from(rows) > lo && first(n - 1).0 <= hi
                }
            };
            let (from, to) = match range {
                None => (0, n),
                // Every line in range (a search from the top of the
                // history, for most chunks): no search for the run's ends.
                Some((lo, hi)) if whole(lo, hi) => (0, n),
                Some((lo, hi)) => {
                    let from = first_not(n, |k| {
                        let (f, rows) = first(k);
                        f + i64::from(rows) <= lo
                    });
                    (from, first_not(n, |k| first(k).0 <= hi).max(from))
                }
            };
            if from < to {
                parts.push(Part {
                    chunk: ci,
                    from,
                    to,
                    base: history,
                });
                history += to - from;
            }
        }
        let screen = screen
            .enumerate()
            .filter(|(_, (l, _))| in_range(l.first_row.0, l.rows()))
            .map(|(k, (l, s))| (l, s, k))
            .collect();
        Lines {
            hsize,
            chunks,
            parts,
            history,
            screen,
        }
    }

    /// How many lines.
    pub fn len(&self) -> usize {
        self.history + self.screen.len()
    }

    /// No line at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Line `i` (0-based, in scan order); `None` past the last.
    pub fn get(&self, i: usize) -> Option<Line<'_>> {
        if i >= self.history {
            let (l, screen, _) = self.screen.get(i - self.history)?;
            return Some(Line {
                text: &l.text,
                number: l.first_row.0,
                rows: l.rows(),
                screen: *screen,
            });
        }
        let p = &self.parts[self.parts.partition_point(|p| p.base <= i) - 1];
        let c = &self.chunks[p.chunk];
        let k = p.from + (i - p.base);
        let (row, rows) = c.rows_of(k);
        Some(Line {
            text: c.line(k),
            number: i64::try_from(row).unwrap_or(i64::MAX) - self.hsize,
            rows,
            screen: Screen::Main,
        })
    }

    /// Calls `f` with the position of each line `pattern` matches, in
    /// order, until it returns `false` ([`Lines::walk`]).
    pub fn each_match(&self, pattern: &Pattern, mut f: impl FnMut(usize) -> bool) {
        // No chunk is skipped: a copy read once (the CLI's) would build
        // every chunk's pair summary for this one search.
        let never = AtomicBool::new(false);
        self.walk(pattern, &[], &never, |at| f(self.position(at)));
    }

    /// The position (in scan order) of the line of `at`.
    fn position(&self, at: At) -> usize {
        match at.line {
            Which::History { part, line, .. } => {
                let p = &self.parts[part];
                p.base + (line - p.from)
            }
            Which::Screen(k) => self.history + k,
        }
    }

    /// The walk: calls `f` with each line `pattern` matches, in order,
    /// until it returns `false`; the history a chunk at a time as one
    /// buffer ([`Pattern::for_each_line`]; a chunk that lacks one of
    /// `pairs`, the pattern's byte pairs, is skipped), then the screen
    /// lines. `false` when `cancel` was set (checked between history
    /// chunks).
    fn walk(
        &self,
        pattern: &Pattern,
        pairs: &[(u8, u8)],
        cancel: &AtomicBool,
        mut f: impl FnMut(At) -> bool,
    ) -> bool {
        for (pi, p) in self.parts.iter().enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return false;
            }
            let c = &self.chunks[p.chunk];
            if !c.may_hold(pairs) {
                // A pair of the literal's bytes is nowhere in this chunk.
                continue;
            }
            let at = c.line_start(p.from);
            let mut go = true;
            pattern.for_each_line(&c.text[at..c.line_start(p.to)], |m| {
                let line = Which::History {
                    part: pi,
                    line: p.from + m.line,
                    offset: at + m.offset,
                };
                go = f(At {
                    line,
                    start: m.start,
                    end: m.end,
                });
                go
            });
            if !go {
                return true;
            }
        }
        for (k, (l, _, _)) in self.screen.iter().enumerate() {
            if let Some(r) = pattern.find_in_line(&l.text)
                && !f(At {
                    line: Which::Screen(k),
                    start: r.start,
                    end: r.end,
                })
            {
                return true;
            }
        }
        true
    }

    /// The text of the line of `at` and its scan position among all of
    /// the copy's lines (as [`Secrets`] counts them).
    fn whole(&self, at: At, secrets: &Secrets) -> (&[u8], usize) {
        match at.line {
            Which::History { part, line, offset } => {
                let p = &self.parts[part];
                let text = &self.chunks[p.chunk].text[offset..];
                let text = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
                (text, secrets.history(p.chunk, line))
            }
            Which::Screen(k) => {
                let (l, _, all) = &self.screen[k];
                (&l.text, secrets.screen(*all))
            }
        }
    }

    /// The [`Hit`] of `at`.
    fn hit(&self, at: At, term: &Term, redact: bool) -> Hit {
        let (width, _) = term.size();
        let (start, end) = (at.start, at.end);
        match at.line {
            Which::History { part, line, offset } => {
                let c = &self.chunks[self.parts[part].chunk];
                let (row, _) = c.rows_of(line);
                let text_end =
                    memchr::memchr(b'\n', &c.text[offset..]).map_or(c.text.len(), |i| offset + i);
                let logical = LogicalLine {
                    index: c.first + line as u64,
                    first_row: LineNo(row as i64 - self.hsize),
                    text: std::borrow::Cow::Borrowed(&c.text[offset..text_end]),
                    breaks: std::borrow::Cow::Owned(c.breaks_of(line)),
                    place: crate::term::Place::History,
                };
                hit(
                    &logical,
                    start,
                    end,
                    width,
                    term.rules(),
                    Screen::Main,
                    redact,
                )
            }
            Which::Screen(k) => {
                let (l, screen, _) = &self.screen[k];
                hit(l, start, end, width, term.rules(), *screen, redact)
            }
        }
    }
}

/// Searches `term` for `pattern` in the lines whose first row is within
/// `range` (tmux line numbers, inclusive; `None`: everything), keeping the
/// newest `keep` matched lines. `cancel` is checked between history
/// chunks.
pub fn scan(
    term: &Term,
    pattern: &Pattern,
    range: Option<(i64, i64)>,
    keep: usize,
    cancel: &AtomicBool,
) -> Scan {
    scan_with(term, None, pattern, range, keep, cancel, false)
}

/// [`scan`], with redaction on when `redact` ([`crate::redact`]): a match
/// that overlaps a secret does not count, so a line matches only where a
/// match lies wholly outside its secrets (its position is the first such
/// match), and no line of a private key's body matches at all. The
/// lines are returned as the copy holds them (the caller masks them);
/// a long line is never cut inside a secret. `screen`: `term`'s
/// [`screen_lines`] when a snapshot holds them made ([`ScreenLines`]);
/// the scan is the same either way.
pub fn scan_with(
    term: &Term,
    screen: Option<&ScreenLines>,
    pattern: &Pattern,
    range: Option<(i64, i64)>,
    keep: usize,
    cancel: &AtomicBool,
    redact: bool,
) -> Scan {
    let lines = match screen {
        Some(held) => Lines::with_screen(term, range, held.iter()),
        None => Lines::of(term, range),
    };
    let secrets = redact.then(|| Secrets::of(term, &lines.chunks));
    let mut found: Vec<At> = Vec::new();
    let mut count = 0usize;
    let done = lines.walk(pattern, pattern.required_pairs(), cancel, |at| {
        let at = match &secrets {
            None => at,
            Some(s) => {
                let (text, pos) = lines.whole(at, s);
                match s.clear(pattern, text, at.start..at.end, pos) {
                    Some(r) => At {
                        start: r.start,
                        end: r.end,
                        ..at
                    },
                    None => return true,
                }
            }
        };
        count += 1;
        found.push(at);
        if found.len() > keep.saturating_mul(2).max(1024) {
            found.drain(..found.len() - keep);
        }
        true
    });
    if !done {
        return Scan {
            cancelled: true,
            ..Scan::default()
        };
    }
    if found.len() > keep {
        found.drain(..found.len() - keep);
    }
    Scan {
        hits: found
            .into_iter()
            .map(|at| lines.hit(at, term, redact))
            .collect(),
        count,
        cancelled: false,
    }
}

/// What the scan keeps out while redaction is on: the lines of private
/// key bodies (found across the whole copy, in scan order: history
/// chunks, then [`screen_lines`]) and each matched line's secrets.
struct Secrets {
    /// Key body lines, as positions in scan order.
    keys: Vec<std::ops::Range<usize>>,
    /// The position of each history chunk's first line.
    bases: Vec<usize>,
    /// History lines in all (the first screen line's position).
    history: usize,
}

impl Secrets {
    fn of(term: &Term, chunks: &[crate::term::SearchChunk<'_>]) -> Secrets {
        let mut bases = Vec::with_capacity(chunks.len());
        let mut history = 0;
        for c in chunks {
            bases.push(history);
            history += memchr::memchr_iter(b'\n', c.text).count();
        }
        let screen: Vec<LogicalLine<'_>> = screen_lines(term).map(|(l, _)| l).collect();
        let lines = chunks
            .iter()
            .flat_map(|c| lines_of(c.text))
            .chain(screen.iter().map(|l| &*l.text));
        Secrets {
            keys: crate::redact::key_lines(lines),
            bases,
            history,
        }
    }

    /// The scan position of line `line` of history chunk `chunk`.
    fn history(&self, chunk: usize, line: usize) -> usize {
        self.bases.get(chunk).copied().unwrap_or(self.history) + line
    }

    /// The scan position of the `k`th of [`screen_lines`].
    fn screen(&self, k: usize) -> usize {
        self.history + k
    }

    /// Where `pattern` matches `line` (at scan position `at`) outside its
    /// secrets, given its first match `first`: that match when it
    /// overlaps none, else the first match lying wholly between them;
    /// `None` when every match lies in one, or the line is a key's body.
    fn clear(
        &self,
        pattern: &Pattern,
        line: &[u8],
        first: std::ops::Range<usize>,
        at: usize,
    ) -> Option<std::ops::Range<usize>> {
        let i = self.keys.partition_point(|r| r.end <= at);
        if self.keys.get(i).is_some_and(|r| r.start <= at) {
            return None;
        }
        let spans = crate::redact::find(line);
        let overlaps = |s: &crate::redact::Span| {
            s.range.start < first.end.max(first.start + 1) && first.start < s.range.end
        };
        if !spans.iter().any(overlaps) {
            return Some(first);
        }
        crate::redact::clear_parts(line.len(), &spans)
            .into_iter()
            .find_map(|p| pattern.find_within(line, p))
    }
}

/// The lines of `text`, each followed by `\n` (a history chunk's).
fn lines_of(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    (!text.is_empty())
        .then(|| body.split(|&b| b == b'\n'))
        .into_iter()
        .flatten()
}

fn hit(
    line: &LogicalLine<'_>,
    start: usize,
    end: usize,
    width: u32,
    rules: crate::term::Rules,
    screen: Screen,
    redact: bool,
) -> Hit {
    let p = line.point(ByteOffset(start), width, rules);
    // A line cut to an excerpt is never cut inside a secret, so what is
    // returned can be masked whole.
    let keep = if redact && line.text.len() > crate::search::hit::MAX_LINE_BYTES {
        crate::redact::find(&line.text)
            .into_iter()
            .map(|s| s.range)
            .collect()
    } else {
        Vec::new()
    };
    Hit {
        text: excerpt_keeping(&line.text, start, end, &keep),
        line: line.first_row.0,
        rows: line.rows(),
        at: Position {
            row: p.line.0,
            column: p.column.0,
            char: line.char_offset(ByteOffset(start)).0,
            byte: start,
        },
        screen,
    }
}

/// The obvious twin of [`scan`] (for tests and fuzzing): every logical
/// line of the copy, one at a time, in the same order.
pub fn scan_naive(term: &Term, pattern: &Pattern, keep: usize) -> Scan {
    scan_naive_with(term, pattern, keep, false)
}

/// The obvious twin of [`scan_with`]: every logical line, one at a time;
/// with `redact`, each part of a line outside its secrets is searched in
/// turn (no key body line, found over every line in scan order, is), and
/// the first match found is the line's.
pub fn scan_naive_with(term: &Term, pattern: &Pattern, keep: usize, redact: bool) -> Scan {
    let (width, _) = term.size();
    let screen = if term.alternate_on() {
        Screen::Alternate
    } else {
        Screen::Main
    };
    let history_rows = term.history_size() as i64;
    let mut hits = Vec::new();
    let hidden: Vec<(LogicalLine<'_>, Screen)> = term
        .hidden_main_lines()
        .into_iter()
        .map(|l| (l, Screen::HiddenMain))
        .collect();
    let lines = term.lines().map(|l| {
        let s = if l.first_row.0 < 0 && l.first_row.0 + i64::from(l.rows()) <= 0 {
            Screen::Main
        } else {
            screen
        };
        (l, s)
    });
    // History lines come first in the fast scan, then the hidden
    // screen, then the screen: order the twin the same way.
    let (hist, rest): (Vec<_>, Vec<_>) =
        lines.partition(|(l, _)| l.first_row.0 + i64::from(l.rows()) <= 0 && history_rows > 0);
    let all: Vec<(LogicalLine<'_>, Screen)> = hist.into_iter().chain(hidden).chain(rest).collect();
    let keys = if redact {
        crate::redact::key_lines(all.iter().map(|(l, _)| &*l.text))
    } else {
        Vec::new()
    };
    for (k, (l, s)) in all.iter().enumerate() {
        let r = if redact {
            if keys.iter().any(|r| r.contains(&k)) {
                continue;
            }
            let spans = crate::redact::find(&l.text);
            crate::redact::clear_parts(l.text.len(), &spans)
                .into_iter()
                .find_map(|p| pattern.find_within(&l.text, p))
        } else {
            pattern.find_in_line(&l.text)
        };
        if let Some(r) = r {
            hits.push(hit(l, r.start, r.end, width, term.rules(), *s, redact));
        }
    }
    let count = hits.len();
    if hits.len() > keep {
        hits.drain(..hits.len() - keep);
    }
    Scan {
        hits,
        count,
        cancelled: false,
    }
}

/// Fuzz entry point: the first bytes choose a pane size, a pattern and
/// how many lines to keep; the rest is written to a copy. [`scan`] must
/// find exactly what [`scan_naive`] finds, positions included, and never
/// panic; with redaction on (bit 7 of the keep byte), [`scan_with`] as
/// [`scan_naive_with`].
pub fn fuzz_scan(data: &[u8]) {
    let [w, h, k, plen, rest @ ..] = data else {
        return;
    };
    let (pat, stream) = rest.split_at(usize::from(*plen % 8).min(rest.len()));
    let width = u32::from(*w % 40) + 1;
    let height = u32::from(*h % 10) + 1;
    let keep = usize::from(*k % 16) + 1;
    let mut t = Term::new(
        width,
        height,
        crate::term::Rules::V36,
        crate::term::Options {
            history_limit: 64,
            ..crate::term::Options::default()
        },
    );
    t.advance(stream);
    let text = String::from_utf8_lossy(pat);
    let Ok(p) = Pattern::new(&text, crate::search::PatternOptions::literal()) else {
        return;
    };
    let fast = scan(&t, &p, None, keep, &AtomicBool::new(false));
    assert_eq!(fast, scan_naive(&t, &p, keep), "scan vs scan_naive");
    if *k & 0x80 != 0 {
        let fast = scan_with(&t, None, &p, None, keep, &AtomicBool::new(false), true);
        assert_eq!(
            fast,
            scan_naive_with(&t, &p, keep, true),
            "scan_with vs scan_naive_with"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::PatternOptions;
    use crate::term::{Options, Rules};
    use proptest::prelude::*;

    /// [`Lines`] holds every logical line in scan order with its number
    /// and rows (history over several chunks, a wrapped line, the hidden
    /// and alternate screens), a range keeps those that reach into it,
    /// and `each_match` finds the lines [`scan`] finds.
    #[test]
    fn lines_in_scan_order() {
        let mut t = Term::with_history(30, 4, 50_000);
        let mut out = Vec::new();
        for i in 0..20_000 {
            let l = if i % 500 == 7 {
                format!("long {i} {}", "w".repeat(70))
            } else {
                format!("l{i} NEEDLE{}", i % 3)
            };
            out.extend_from_slice(l.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"main\x1b[?1049h\x1b[Halt NEEDLE0\r\nalt b");
        t.advance(&out);
        assert!(t.history().chunks().count() > 2, "several chunks");
        // The order scan_naive reads (history, hidden screen, screen).
        let hsize = t.history_size() as i64;
        let want: Vec<(String, i64, u32, Screen)> = t
            .lines()
            .filter(|l| l.first_row.0 + i64::from(l.rows()) <= 0 && hsize > 0)
            .map(|l| (l, Screen::Main))
            .chain(screen_lines(&t))
            .map(|(l, s)| {
                let text = String::from_utf8_lossy(&l.text).into_owned();
                (text, l.first_row.0, l.rows(), s)
            })
            .collect();
        let all = Lines::of(&t, None);
        let got = |v: &Lines<'_>| -> Vec<(String, i64, u32, Screen)> {
            (0..v.len())
                .map(|i| {
                    let l = v.get(i).unwrap();
                    let text = String::from_utf8_lossy(l.text).into_owned();
                    (text, l.number, l.rows, l.screen)
                })
                .collect()
        };
        assert_eq!(got(&all), want);
        assert!(all.get(all.len()).is_none());
        // A range: the lines that reach into it (whole chunks, chunks cut
        // at either end, nothing, everything).
        for (lo, hi) in [
            (i64::MIN, i64::MAX),
            (-hsize, 0),
            (-hsize + 1, -hsize + 1),
            (-hsize - 5, -hsize + 3),
            (-7_001, -6_999),
            (-1, i64::MAX),
            (5, 3),
            (i64::MIN, -hsize - 1),
            (-14_000, -1_000),
        ] {
            let v = Lines::of(&t, Some((lo, hi)));
            let mut want = want.clone();
            want.retain(|(_, first, rows, _)| *first <= hi && first + i64::from(*rows) > lo);
            assert_eq!(got(&v), want, "{lo}..={hi}");
        }
        // Matches: the lines scan finds, in order.
        let p = Pattern::new("NEEDLE0", PatternOptions::literal()).unwrap();
        let mut found = Vec::new();
        all.each_match(&p, |i| {
            found.push(all.get(i).unwrap().number);
            true
        });
        let s = scan(&t, &p, None, usize::MAX, &AtomicBool::new(false));
        let lines: Vec<i64> = s.hits.iter().map(|h| h.line).collect();
        assert_eq!(found, lines);
        assert_eq!(found.len(), s.count);
        // Stopped by `f`.
        let mut n = 0;
        all.each_match(&p, |_| {
            n += 1;
            n < 3
        });
        assert_eq!(n, 3);
    }

    /// Chunks whose byte-pair summary lacks a pair of the needle are
    /// skipped: with many chunks, the scan still finds exactly what the
    /// naive scan finds, for literals in either case mode (Kelvin sign and
    /// long s included, whose case variants are other bytes).
    #[test]
    fn skipped_chunks_never_hide_a_match() {
        let mut rng = fastrand::Rng::with_seed(11);
        let words = [
            "alpha",
            "Beta",
            "GAMMA",
            "delta",
            "eps",
            "kilo",
            "Sierra",
            "\u{212a}ilo",
            "\u{17f}ierra",
            "zq",
            "QZ",
            "x9",
            "-",
            "_",
            "42",
            "ab",
            "中文",
        ];
        let mut t = Term::with_history(60, 5, 100_000);
        let mut lines = Vec::new();
        let mut out = Vec::new();
        for i in 0..15_000 {
            let mut line = String::new();
            for _ in 0..rng.usize(1..12) {
                line.push_str(words[rng.usize(..words.len())]);
                if rng.bool() {
                    line.push(' ');
                }
            }
            if i % 997 == 0 {
                line.push_str(" RareNeedle");
            }
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(b"\r\n");
            lines.push(line);
        }
        t.advance(&out);
        assert!(t.history().chunks().count() > 4, "several chunks");
        let mut needles: Vec<String> = vec![
            "RareNeedle".into(),
            "rareneedle".into(),
            "kilo".into(),
            "KILO".into(),
            "sierra".into(),
            "zqx".into(),
            "never-there".into(),
            "a".into(),
        ];
        for _ in 0..30 {
            let l = &lines[rng.usize(..lines.len())];
            let chars: Vec<char> = l.chars().collect();
            let a = rng.usize(..chars.len());
            let b = (a + rng.usize(1..10)).min(chars.len());
            let mut n: String = chars[a..b].iter().collect();
            if rng.bool() {
                n = n.to_uppercase();
            }
            needles.push(n);
        }
        let no = AtomicBool::new(false);
        // The summaries do skip: a needle that is nowhere reads no sealed
        // chunk.
        let rare = Pattern::new(
            "never-there",
            PatternOptions::literal().case_sensitive(false),
        )
        .expect("pattern");
        let skipped = t
            .history()
            .search_chunks()
            .filter(|c| !c.may_hold(rare.required_pairs()))
            .count();
        assert_eq!(
            skipped,
            t.history().search_chunks().count() - 1,
            "sealed chunks skipped"
        );
        for n in &needles {
            for cs in [true, false] {
                let Ok(p) = Pattern::new(n, PatternOptions::literal().case_sensitive(cs)) else {
                    continue;
                };
                assert_eq!(
                    scan(&t, &p, None, 5, &no),
                    scan_naive(&t, &p, 5),
                    "{n:?} case-sensitive {cs}"
                );
            }
        }
    }

    const PIECES: &[&str] = &[
        "a",
        "b",
        "ab",
        "NEEDLE",
        " ",
        "  ",
        "中",
        "文",
        "é",
        "e\u{301}",
        "😀",
        "\t",
        "\r\n",
        "\r\n",
        "\r\n",
        "\r",
        "\x08",
        "\x1b[31m",
        "\x1b[m",
        "\x1b[2K",
        "\x1b[1;1H",
        "\x1b[5C",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[2J",
        "x",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The fast scan finds the same lines, at the same positions, as
        /// the line-by-line twin.
        #[test]
        fn fast_scan_equals_naive(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..400),
            width in 5u32..30,
            height in 2u32..8,
            needle in proptest::sample::select(&["a", "NEEDLE", "中", "ab", "x", " b"][..]),
            keep in 1usize..20,
        ) {
            let stream: String = pieces.concat();
            let mut t = Term::new(
                width,
                height,
                Rules::V33,
                Options { history_limit: 50, ..Options::default() },
            );
            t.advance(stream.as_bytes());
            let p = Pattern::new(needle, PatternOptions::literal()).unwrap();
            let fast = scan(&t, &p, None, keep, &AtomicBool::new(false));
            // A snapshot's held screen lines scan as the copy's own.
            let held = ScreenLines::of(&t);
            for range in [None, Some((-3, 1))] {
                let no = AtomicBool::new(false);
                prop_assert_eq!(
                    scan_with(&t, Some(&held), &p, range, keep, &no, true),
                    scan_with(&t, None, &p, range, keep, &no, true)
                );
            }
            prop_assert_eq!(fast, scan_naive(&t, &p, keep));
        }
    }

    fn term(bytes: &[u8], w: u32, h: u32) -> Term {
        let mut t = Term::new(
            w,
            h,
            Rules::V33,
            Options {
                history_limit: 1000,
                ..Options::default()
            },
        );
        t.advance(bytes);
        t
    }

    fn pat(p: &str) -> Pattern {
        Pattern::new(p, PatternOptions::literal()).unwrap()
    }

    #[test]
    fn history_and_screen_with_line_numbers() {
        // 20 wide, 3 rows: 5 lines scroll 3 into history.
        let t = term(
            b"one\r\n0123456789abcdefNEEDLEXYZ-tail\r\nthree\r\nfour NEEDLE\r\nfive",
            20,
            3,
        );
        let s = scan(&t, &pat("NEEDLE"), None, 10, &AtomicBool::new(false));
        assert_eq!(s.count, 2);
        assert_eq!(s.hits[0].text, "0123456789abcdefNEEDLEXYZ-tail");
        assert_eq!(s.hits[0].rows, 2);
        // Rows: one, 0123…NEED, LEXYZ-tail, three (history: 4 rows? screen 3).
        let hsize = t.history_size() as i64;
        assert_eq!(s.hits[0].line, 1 - hsize);
        assert_eq!(s.hits[0].at.column, 16);
        assert_eq!(s.hits[0].at.byte, 16);
        assert_eq!(s.hits[1].text, "four NEEDLE");
        assert_eq!(s.hits[1].at.column, 5);
    }

    #[test]
    fn wide_characters_give_cells_chars_and_bytes() {
        // Public case C2: "中文xxx": xxx at cell 4, char 2, byte 6.
        let t = term("中文xxx\r\n".as_bytes(), 20, 3);
        let s = scan(&t, &pat("xxx"), None, 10, &AtomicBool::new(false));
        assert_eq!(
            s.hits[0].at,
            Position {
                row: 0,
                column: 4,
                char: 2,
                byte: 6
            }
        );
    }

    /// With redaction on, a match inside a secret does not count: a
    /// search for a token's text, or for text in a key's body, finds
    /// nothing; a line with a match outside its secrets is found at that
    /// match.
    #[test]
    fn redaction_drops_matches_inside_secrets() {
        let body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
        let mut out =
            String::from("$ env\r\nGH_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnopqr ok\r\n");
        out.push_str("-----BEGIN RSA PRIVATE KEY-----\r\n");
        for _ in 0..30 {
            out.push_str(body);
            out.push_str("\r\n");
        }
        out.push_str("-----END RSA PRIVATE KEY-----\r\n$ ghp_ is a prefix\r\n");
        let t = term(out.as_bytes(), 80, 10);
        let no = AtomicBool::new(false);
        let with = |p: &str| scan_with(&t, None, &pat(p), None, 100, &no, true);
        let without = |p: &str| scan(&t, &pat(p), None, 100, &no);
        assert_eq!(without("ghp_0123").count, 1);
        assert_eq!(with("ghp_0123").count, 0);
        assert_eq!(without("MIIEow").count, 30);
        assert_eq!(with("MIIEow").count, 0, "history and screen body lines");
        // The prefix outside a token is found, the one in it is not.
        let s = with("ghp_");
        assert_eq!(s.count, 1);
        assert_eq!(s.hits[0].text, "$ ghp_ is a prefix");
        // A line with a secret is found by text outside it, at that text.
        let s = with("ok");
        assert_eq!(s.count, 1);
        assert_eq!(s.hits[0].at.byte, 52);
        assert_eq!(with("TOKEN=").count, 1, "the name is not the secret");
        for p in ["ghp_", "MII", "ok", "-----", "0123"] {
            assert_eq!(with(p), scan_naive_with(&t, &pat(p), 100, true), "{p}");
        }
    }

    #[test]
    fn keeps_the_newest_and_counts_all() {
        let mut bytes = Vec::new();
        for i in 0..5000 {
            bytes.extend_from_slice(format!("line {i} x\r\n").as_bytes());
        }
        let t = term(&bytes, 40, 5);
        let s = scan(&t, &pat(" x"), None, 3, &AtomicBool::new(false));
        let naive = t
            .lines()
            .filter(|l| l.text.windows(2).any(|w| w == b" x"))
            .count();
        assert!(naive > 900, "{naive}");
        assert_eq!(s.count, naive);
        assert_eq!(s.hits.len(), 3);
        assert!(s.hits[2].text.starts_with("line 4999"));
        let cancelled = scan(&t, &pat(" x"), None, 3, &AtomicBool::new(true));
        assert!(cancelled.cancelled);
    }
}
