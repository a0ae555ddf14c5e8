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

/// New text of a pane since a line index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Since {
    /// The index of the first line in `lines` (later than asked when tmux
    /// trimmed or cleared the lines in between).
    pub first: LineIndex,
    /// Complete lines from `first` up to the cursor's line, oldest first.
    pub lines: Vec<Vec<u8>>,
    /// The line the cursor is on: `cursor_line` is its index, `partial`
    /// its text so far (it is returned as a complete line once the cursor
    /// has moved on).
    pub cursor_line: LineIndex,
    /// See `cursor_line`.
    pub partial: Vec<u8>,
}

/// The complete lines of `term` with index `from` or later, and the
/// cursor's line. `limit` bounds how many lines are kept: the newest
/// `limit` when there are more (the others are counted in
/// `first`, which moves past them).
pub fn lines_since(term: &Term, from: LineIndex, limit: usize) -> Since {
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
    // Lines before the cursor's line, counted first so only the newest
    // `limit` are copied.
    let upto = cursor.line;
    if upto > out.first {
        let wanted = upto.0 - out.first.0;
        if wanted > limit as u64 {
            out.first = LineIndex(upto.0 - limit as u64);
        }
    }
    let start = out.first;
    for chunk in term.history().search_chunks() {
        let mut index = chunk.first;
        if index >= upto {
            break;
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
    for line in term.screen_logical_lines() {
        if line.index >= upto {
            if line.index == upto {
                out.partial = line.text.into_owned();
            }
            break;
        }
        if line.index >= start {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{Options, Rules};

    fn term(w: u32, h: u32, limit: usize) -> Term {
        let opts = Options {
            history_limit: limit,
            ..Options::default()
        };
        Term::new(w, h, Rules::V36, opts)
    }

    fn s(lines: &[Vec<u8>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect()
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
        let all = lines_since(&t, LineIndex(0), 100);
        assert_eq!(s(&all.lines), ["a", "b", "c", "d", "e"]);
        assert_eq!(all.first, LineIndex(0));
        assert_eq!(all.partial, b"$");
        assert_eq!(all.cursor_line, LineIndex(5));
        t.advance(b"ls\r\nf\r\n");
        let more = lines_since(&t, all.cursor_line, 100);
        assert_eq!(s(&more.lines), ["$ ls", "f"]);
        let tail = lines_since(&t, LineIndex(0), 2);
        assert_eq!(s(&tail.lines), ["$ ls", "f"]);
        assert_eq!(tail.first, LineIndex(5));
    }

    #[test]
    fn trimmed_lines_move_first() {
        let mut t = term(20, 2, 10);
        for i in 0..40 {
            t.advance(format!("{i}\r\n").as_bytes());
        }
        let since = lines_since(&t, LineIndex(0), 100);
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
