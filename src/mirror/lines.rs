//! Following a pane's copy as it grows: where its cursor is in the
//! pane's logical lines ([`Spot`]), which lines are new since a line
//! index ([`lines_since`]), and the text between two spots
//! ([`text_between`]).
//!
//! Lines are numbered by [`LineIndex`]: every logical line the pane ever
//! showed gets the next index, history and screen alike, and the numbers
//! do not change when tmux trims its history (the oldest lines go, the
//! rest keep theirs). A line is *complete* once the cursor is on a later
//! line; the line the cursor is on can still change.

use crate::term::{ByteOffset, LineIndex, LogicalLine, Term};

/// A place in a pane's text: a logical line, a row in it (0-based), and a
/// cell column on that row (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Spot {
    /// The logical line.
    pub line: LineIndex,
    /// The row within the line (0 for an unwrapped line).
    pub row: u32,
    /// The cell column on that row.
    pub column: u32,
}

/// Where the cursor is in `term`'s logical lines. On the alternate screen,
/// this is where it is on that screen (its lines are numbered as the
/// normal screen's would be).
pub fn cursor_spot(term: &Term) -> Spot {
    let cursor = term.cursor();
    let y = i64::from(cursor.y.0);
    let (width, _) = term.size();
    let column = cursor.x.0.min(width);
    let mut last = None;
    for line in term.screen_logical_lines() {
        let first = line.first_row.0;
        let rows = i64::from(line.rows());
        if y >= first && y < first + rows {
            return Spot {
                line: line.index,
                row: (y - first) as u32,
                column,
            };
        }
        last = Some(line.index);
    }
    // No line holds the cursor's row (an empty screen): the next line.
    let line = last.map_or(term.history().end_index(), |l| l + 1);
    Spot {
        line,
        row: 0,
        column,
    }
}

/// The byte offset in `line` where the cell at `row`, `column` starts (the
/// line's end when the text stops before it).
pub fn byte_at(line: &LogicalLine<'_>, row: u32, column: u32, term: &Term) -> usize {
    let (width, _) = term.size();
    let rules = term.rules();
    let text = &line.text;
    let breaks = &line.breaks;
    let row = row as usize;
    if row > breaks.len() {
        return text.len();
    }
    let start = if row == 0 { 0 } else { breaks[row - 1] };
    let end = breaks.get(row).copied().unwrap_or(text.len());
    let mut at = start;
    while at < end {
        let p = line.point(ByteOffset(at), width, rules);
        let on_row = p.line.0 - line.first_row.0;
        if on_row > row as i64 || (on_row == row as i64 && p.column.0 >= column) {
            return at;
        }
        at += 1;
        while at < end && text[at] & 0xc0 == 0x80 {
            at += 1;
        }
    }
    end
}

/// Which lines a bounded answer keeps when more are new than it may hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// The oldest: the rest stay after the answer's end, for the next
    /// call (a follower loses nothing).
    #[default]
    Oldest,
    /// The newest (libtmux-mcp's tail): the older ones are skipped.
    Newest,
}

/// New text of a pane since a line index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Since {
    /// The index of the first line in `lines` (later than asked when tmux
    /// trimmed or cleared the lines in between, or when [`Keep::Newest`]
    /// skipped older ones).
    pub first: LineIndex,
    /// Complete lines from `first`, oldest first: up to the cursor's line,
    /// or fewer when the limit held them back ([`Since::next`]).
    pub lines: Vec<Vec<u8>>,
    /// The line the cursor is on: `cursor_line` is its index, `partial`
    /// its text so far (it is returned as a complete line once the cursor
    /// has moved on).
    pub cursor_line: LineIndex,
    /// See `cursor_line`.
    pub partial: Vec<u8>,
}

impl Since {
    /// The first line not in `lines`: where the next answer starts
    /// (`cursor_line` once every complete line is in).
    pub fn next(&self) -> LineIndex {
        self.first + self.lines.len() as u64
    }

    /// Complete lines after `lines` (held back by the limit, still held by
    /// the copy).
    pub fn remaining(&self) -> u64 {
        self.cursor_line.0.saturating_sub(self.next().0)
    }
}

/// The complete lines of `term` with index `from` or later, and the
/// cursor's line. `limit` bounds how many lines are kept; `keep` says
/// which when there are more: the oldest (the others follow
/// [`Since::next`]) or the newest (`first` moves past the others).
pub fn lines_since(term: &Term, from: LineIndex, limit: usize, keep: Keep) -> Since {
    let cursor = cursor_spot(term);
    let mut out = Since {
        first: from,
        lines: Vec::new(),
        cursor_line: cursor.line,
        partial: Vec::new(),
    };
    let first_held = term.history().first_index();
    if out.first < first_held {
        out.first = first_held;
    }
    // Lines `start..upto` are copied: the cursor's line and what is after
    // it are not complete yet.
    let mut upto = cursor.line;
    if upto > out.first {
        let wanted = upto.0 - out.first.0;
        if wanted > limit as u64 {
            match keep {
                Keep::Newest => out.first = LineIndex(upto.0 - limit as u64),
                Keep::Oldest => upto = out.first + limit as u64,
            }
        }
    }
    let start = out.first;
    let mut chunks = term.history().search_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        let mut index = chunk.first;
        if index >= upto {
            break;
        }
        // A chunk whose successor starts at or before `start` holds
        // nothing wanted: skipped without reading its text.
        if chunks.peek().is_some_and(|n| n.first <= start) {
            continue;
        }
        // Lines in this chunk: one per `\n`.
        let count = memchr::memchr_iter(b'\n', chunk.text).count() as u64;
        if index + count <= start {
            continue;
        }
        for line in chunk.text.split(|&b| b == b'\n').take(count as usize) {
            if index >= start && index < upto {
                out.lines.push(line.to_vec());
            }
            index = index + 1;
        }
    }
    // The screen (a few dozen lines): its complete lines in range, and
    // the cursor's line as it is so far.
    for line in term.screen_logical_lines() {
        if line.index >= cursor.line {
            if line.index == cursor.line {
                out.partial = line.text.into_owned();
            }
            break;
        }
        if line.index >= start && line.index < upto {
            out.lines.push(line.text.into_owned());
        }
    }
    out
}

/// The text from `from` to `to` (exclusive), as lines: the first line
/// starts at `from`'s cell, the last one stops before `to`'s (and is left
/// out when `to` is at its start). `None` when `from`'s line is no longer
/// held. At most `limit` lines are kept, the newest; the second value
/// counts the lines left out.
pub fn text_between(
    term: &Term,
    from: Spot,
    to: Spot,
    limit: usize,
) -> Option<(Vec<Vec<u8>>, usize)> {
    if from.line < term.history().first_index() || to < from {
        return None;
    }
    let mut lines: std::collections::VecDeque<Vec<u8>> = std::collections::VecDeque::new();
    let mut omitted = 0usize;
    let mut push = |text: Vec<u8>| {
        if lines.len() == limit {
            lines.pop_front();
            omitted += 1;
        }
        if limit > 0 {
            lines.push_back(text);
        } else {
            omitted += 1;
        }
    };
    // Lines wholly in history come as text; the screen's (and the open
    // history line) as logical lines, which know their rows.
    let screen_start = term.history().end_index();
    if from.line < screen_start {
        for chunk in term.history().search_chunks() {
            let mut index = chunk.first;
            let count = memchr::memchr_iter(b'\n', chunk.text).count() as u64;
            if index + count <= from.line {
                continue;
            }
            if index > to.line {
                break;
            }
            for line in chunk.text.split(|&b| b == b'\n').take(count as usize) {
                if index >= from.line && index <= to.line {
                    // A history line has no rows to place a spot on
                    // here: the whole line (marks land at line starts).
                    if index == to.line && to.row == 0 && to.column == 0 {
                        break;
                    }
                    push(line.to_vec());
                }
                index = index + 1;
            }
        }
    }
    for line in term.screen_logical_lines() {
        if line.index < from.line {
            continue;
        }
        if line.index > to.line {
            break;
        }
        let begin = if line.index == from.line {
            byte_at(&line, from.row, from.column, term)
        } else {
            0
        };
        let end = if line.index == to.line {
            byte_at(&line, to.row, to.column, term)
        } else {
            line.text.len()
        };
        if line.index == to.line && end == 0 && begin == 0 {
            break;
        }
        let end = end.max(begin).min(line.text.len());
        push(line.text[begin.min(end)..end].to_vec());
    }
    Some((lines.into_iter().collect(), omitted))
}

/// A copy's complete lines from the oldest held up to the cursor's line,
/// each ended by `\n`, as pieces of one text: the history's chunks as
/// they are, then the screen's lines (left out on the alternate screen,
/// which is not the pane's text). See [`continued_first`].
struct Text<'a> {
    /// Each piece: the index of its first line, and its text (whole lines).
    pieces: Vec<(u64, std::borrow::Cow<'a, [u8]>)>,
    /// Where each piece starts in the whole text.
    starts: Vec<usize>,
    /// The length of the history's part.
    history: usize,
    /// The length of the whole text.
    len: usize,
}

impl<'a> Text<'a> {
    fn of(t: &'a Term) -> Text<'a> {
        let mut pieces: Vec<(u64, std::borrow::Cow<'a, [u8]>)> = t
            .history()
            .search_chunks()
            .map(|c| (c.first.0, std::borrow::Cow::Borrowed(c.text)))
            .collect();
        let history = pieces.iter().map(|(_, p)| p.len()).sum();
        if !t.alternate_on() {
            let cursor = cursor_spot(t).line;
            let mut screen = Vec::new();
            let mut first = None;
            for l in t.screen_logical_lines().take_while(|l| l.index < cursor) {
                first.get_or_insert(l.index.0);
                screen.extend_from_slice(&l.text);
                screen.push(b'\n');
            }
            if let Some(first) = first {
                pieces.push((first, std::borrow::Cow::Owned(screen)));
            }
        }
        let mut starts = Vec::with_capacity(pieces.len());
        let mut len = 0;
        for (_, p) in &pieces {
            starts.push(len);
            len += p.len();
        }
        Text {
            pieces,
            starts,
            history,
            len,
        }
    }

    /// The piece holding byte `at` and the offset in it.
    fn piece(&self, at: usize) -> Option<(usize, usize)> {
        let i = self.starts.partition_point(|&s| s <= at).checked_sub(1)?;
        let off = at - self.starts[i];
        (off < self.pieces[i].1.len()).then_some((i, off))
    }

    /// The index of the line that starts at byte `at` (or the line after
    /// the last, at the end).
    fn line_at(&self, at: usize) -> u64 {
        match self.piece(at) {
            Some((i, off)) => {
                let (first, text) = &self.pieces[i];
                first + memchr::memchr_iter(b'\n', &text[..off]).count() as u64
            }
            None => self.pieces.last().map_or(0, |(first, text)| {
                first + memchr::memchr_iter(b'\n', text).count() as u64
            }),
        }
    }

    /// The first line, with its `\n`.
    fn first_line(&self) -> Option<&[u8]> {
        let (_, text) = self.pieces.first()?;
        let end = memchr::memchr(b'\n', text)?;
        Some(&text[..=end])
    }

    /// Where lines reading `line` (with its `\n`) start, in order.
    fn starts_of<'s>(&'s self, line: &'s [u8]) -> impl Iterator<Item = usize> + 's {
        self.pieces
            .iter()
            .zip(&self.starts)
            .flat_map(move |((_, text), &base)| {
                memchr::memmem::find_iter(text, line)
                    .filter(move |&p| p == 0 || text[p - 1] == b'\n')
                    .map(move |p| base + p)
            })
    }

    /// How many bytes from `at` equal `other`'s from its start, cut to the
    /// last whole line (both texts end every line with `\n`).
    fn common(&self, at: usize, other: &Text<'_>) -> usize {
        let (mut a, mut b) = (at, 0usize);
        let mut last_line = 0;
        while let (Some((i, ai)), Some((j, bj))) = (self.piece(a), other.piece(b)) {
            let x = &self.pieces[i].1[ai..];
            let y = &other.pieces[j].1[bj..];
            let n = x.len().min(y.len());
            let same = if x[..n] == y[..n] {
                n
            } else {
                x.iter().zip(y).take_while(|(p, q)| p == q).count()
            };
            if let Some(nl) = memchr::memrchr(b'\n', &y[..same]) {
                last_line = b + nl + 1;
            }
            a += same;
            b += same;
            if same < n {
                break;
            }
        }
        last_line
    }
}

/// Of the places in `hay` where `needle`'s text begins (its first line
/// read there; at most [`ALIGN_TRIES`] tried, oldest first), the first
/// where `accept(at, bytes in common)` holds.
fn first_place(
    hay: &Text<'_>,
    needle: &Text<'_>,
    accept: impl Fn(usize, usize) -> bool,
) -> Option<(usize, usize)> {
    let line = needle.first_line()?;
    hay.starts_of(line)
        .take(ALIGN_TRIES)
        .map(|at| (at, hay.common(at, needle)))
        .find(|&(at, same)| accept(at, same))
}

/// Places [`continued_first`] tries at most in each way (text that
/// repeats, such as a `yes` flood, matches at its first try).
const ALIGN_TRIES: usize = 256;

/// The index a copy seeded again (`new`) gives its oldest held line, so
/// that the lines it shares with the copy it replaces (`old`) keep their
/// indexes, and a `capture_since` cursor or a command's place in `old`
/// still points at the same line (see [`Term::renumber_lines`]).
///
/// tmux changes a pane's text only at its ends meanwhile: it drops the
/// oldest history rows (trims, `clear-history`), adds output at the
/// bottom, and rewrites screen lines; a resize lays the same logical lines
/// out again. So the text of `new`'s lines is found in `old`'s, in two
/// ways, and the one that shares more lines wins:
///
/// * `new` begins with the end of `old`: its first lines are `old`'s last
///   ones, through `old`'s last history line at least, or, when `new`
///   begins on `old`'s screen, through a line of it (the screen lines
///   after it were written over);
/// * `new` holds all of `old`'s history and older lines before it (tmux
///   held history the copy had dropped, past the mirror's memory cap).
///
/// Of several places (text that repeats), the oldest is taken (it shares
/// the most lines). When they share nothing (tmux dropped every line `old`
/// held, a pane paused for a flood), `new`'s lines all come after
/// `old`'s: its first line gets the index of `old`'s cursor line, and a
/// follower that had not read up to there is told it missed lines. The
/// texts are compared as bytes, chunk by chunk (100,000 rows: see
/// `benches/grid.rs`, `seed/100k-rows-renumbered`).
pub fn continued_first(old: &Term, new: &Term) -> LineIndex {
    let (o, n) = (Text::of(old), Text::of(new));
    let after = cursor_spot(old).line.max(old.history().end_index());
    // `new` begins with the end of `old`.
    let tail = first_place(&o, &n, |at, same| {
        same > 0 && (same == (o.len - at).min(n.len) || at + same >= o.history)
    })
    .map(|(at, same)| {
        let first = o.line_at(at);
        (o.line_at(at + same) - first, first)
    });
    // `new` holds `old`'s history whole, after lines of its own.
    let kept = o.pieces.len() - usize::from(o.len > o.history);
    let history = Text {
        pieces: o.pieces[..kept].to_vec(),
        starts: o.starts[..kept].to_vec(),
        history: o.history,
        len: o.history,
    };
    let whole = (history.len > 0)
        .then(|| first_place(&n, &history, |_, same| same == history.len))
        .flatten()
        .and_then(|(at, _)| {
            let shared = history.line_at(history.len) - history.line_at(0);
            let before = n.line_at(at) - n.line_at(0);
            history.line_at(0).checked_sub(before).map(|f| (shared, f))
        });
    match (tail, whole) {
        (Some(t), Some(w)) => LineIndex(if w.0 > t.0 { w.1 } else { t.1 }),
        (Some((_, first)), None) | (None, Some((_, first))) => LineIndex(first),
        (None, None) => after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(w: u32, h: u32, limit: usize) -> Term {
        Term::with_history(w, h, limit)
    }

    fn s(lines: &[Vec<u8>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect()
    }

    /// A copy 40 wide, `height` high, that printed `lines` (each ended by
    /// CR LF) and a prompt.
    fn printed(height: u32, lines: impl IntoIterator<Item = String>) -> Term {
        let mut t = term(40, height, 10_000);
        for l in lines {
            t.advance(format!("{l}\r\n").as_bytes());
        }
        t.advance(b"$ ");
        t
    }

    fn seq(tag: &str, from: u32, to: u32) -> Vec<String> {
        (from..=to).map(|i| format!("{tag}{i}")).collect()
    }

    #[test]
    fn seeded_again_keeps_the_numbering() {
        let old = printed(5, seq("l", 0, 49));
        // The same text (a resize): the same numbers.
        let same = printed(5, seq("l", 0, 49));
        assert_eq!(continued_first(&old, &same), LineIndex(0));
        // tmux dropped l0..l19 and more came.
        let on = printed(5, seq("l", 20, 59));
        assert_eq!(continued_first(&old, &on), LineIndex(20));
        // Only screen lines are shared (all of old's history dropped).
        let mut lines = seq("l", 47, 49);
        lines.extend(seq("m", 0, 9));
        assert_eq!(continued_first(&old, &printed(5, lines)), LineIndex(47));
        // Nothing shared: after old's cursor line (50, the prompt).
        let other = printed(5, seq("x", 0, 30));
        assert_eq!(continued_first(&old, &other), LineIndex(50));
        // The old copy had dropped its oldest history (memory cap): tmux's
        // older lines come before.
        let mut capped = printed(5, seq("l", 0, 49));
        capped.drop_oldest_history(10);
        assert_eq!(capped.history().first_index(), LineIndex(10));
        assert_eq!(continued_first(&capped, &same), LineIndex(0));
        // The old screen's last line was written over: matched up to the
        // line before it.
        let mut lines = seq("l", 10, 48);
        lines.push("rewritten".into());
        lines.extend(seq("n", 0, 3));
        assert_eq!(continued_first(&old, &printed(5, lines)), LineIndex(10));
        // new begins on old's screen, whose last line was written over.
        let lines = ["l47", "l48", "x"].map(String::from);
        assert_eq!(continued_first(&old, &printed(5, lines)), LineIndex(47));
        // Text that repeats: the oldest place.
        let ys = printed(5, (0..50).map(|_| "y".to_string()));
        let more = printed(5, (0..80).map(|_| "y".to_string()));
        assert_eq!(continued_first(&ys, &more), LineIndex(0));
        // Empty copies share nothing.
        let empty = term(40, 5, 100);
        assert_eq!(continued_first(&empty, &old), LineIndex(0));
        assert_eq!(continued_first(&old, &empty), LineIndex(50));
    }

    #[test]
    fn renumbered_copies_answer_followers() {
        let old = printed(5, seq("l", 0, 49));
        let mut new = printed(5, seq("l", 20, 59));
        new.renumber_lines(continued_first(&old, &new));
        let since = lines_since(&new, LineIndex(45), 100, Keep::Oldest);
        assert_eq!(since.first, LineIndex(45));
        assert_eq!(s(&since.lines), seq("l", 45, 59));
        assert_eq!(new.history().check(), Ok(()));
    }

    #[test]
    fn cursor_spot_follows_wraps() {
        let mut t = term(10, 5, 100);
        t.advance(b"one\r\n0123456789abc");
        let spot = cursor_spot(&t);
        assert_eq!(spot.row, 1);
        assert_eq!(spot.column, 3);
        assert_eq!(spot.line, LineIndex(1));
    }

    #[test]
    fn lines_since_returns_complete_lines_once() {
        let mut t = term(20, 4, 100);
        t.advance(b"a\r\nb\r\nc\r\nd\r\ne\r\n$ ");
        let all = lines_since(&t, LineIndex(0), 100, Keep::Oldest);
        assert_eq!(s(&all.lines), ["a", "b", "c", "d", "e"]);
        assert_eq!(all.first, LineIndex(0));
        assert_eq!(all.partial, b"$");
        assert_eq!(all.cursor_line, LineIndex(5));
        t.advance(b"ls\r\nf\r\n");
        let more = lines_since(&t, all.cursor_line, 100, Keep::Oldest);
        assert_eq!(s(&more.lines), ["$ ls", "f"]);
        let tail = lines_since(&t, LineIndex(0), 2, Keep::Newest);
        assert_eq!(s(&tail.lines), ["$ ls", "f"]);
        assert_eq!(tail.first, LineIndex(5));
        assert_eq!(tail.remaining(), 0);
        // The oldest, and where the rest start.
        let head = lines_since(&t, LineIndex(1), 2, Keep::Oldest);
        assert_eq!(s(&head.lines), ["b", "c"]);
        assert_eq!((head.first, head.next()), (LineIndex(1), LineIndex(3)));
        assert_eq!(head.remaining(), 4);
        assert_eq!(head.partial, b"");
        let rest = lines_since(&t, head.next(), 100, Keep::Oldest);
        assert_eq!(s(&rest.lines), ["d", "e", "$ ls", "f"]);
        assert_eq!(rest.remaining(), 0);
    }

    #[test]
    fn trimmed_lines_move_first() {
        let mut t = term(20, 2, 10);
        for i in 0..40 {
            t.advance(format!("{i}\r\n").as_bytes());
        }
        let since = lines_since(&t, LineIndex(0), 100, Keep::Oldest);
        assert!(since.first > LineIndex(0));
        assert_eq!(s(&since.lines).last().map(String::as_str), Some("39"));
        assert_eq!(
            since.first.0 + since.lines.len() as u64,
            since.cursor_line.0
        );
    }

    #[test]
    fn text_between_cuts_at_cells() {
        let mut t = term(10, 6, 100);
        t.advance(b"$ cmd\r\n");
        let from = cursor_spot(&t);
        t.advance("out1\r\n界x0123456789\r\npartial".as_bytes());
        let to = cursor_spot(&t);
        t.advance(b"$ ");
        let (lines, omitted) = text_between(&t, from, to, 100).expect("held");
        assert_eq!(s(&lines), ["out1", "界x0123456789", "partial"]);
        assert_eq!(omitted, 0);
        let (lines, omitted) = text_between(&t, from, to, 1).expect("held");
        assert_eq!(s(&lines), ["partial"]);
        assert_eq!(omitted, 2);
    }

    #[test]
    fn text_between_through_history() {
        let mut t = term(20, 3, 100);
        t.advance(b"$ cmd\r\n");
        let from = cursor_spot(&t);
        for i in 0..10 {
            t.advance(format!("line{i}\r\n").as_bytes());
        }
        let to = cursor_spot(&t);
        t.advance(b"$ ");
        let (lines, _) = text_between(&t, from, to, 100).expect("held");
        let want: Vec<String> = (0..10).map(|i| format!("line{i}")).collect();
        assert_eq!(s(&lines), want);
    }
}
