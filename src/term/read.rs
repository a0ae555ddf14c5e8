//! Reading a [`Term`]: logical lines, rows as `capture-pane` prints them,
//! the cursor and state, and offset conversions.
//!
//! Units, everywhere: text is UTF-8 bytes as tmux stores them (see
//! [`Term`] for what can be in there), offsets into it are
//! [`ByteOffset`]s, rows are tmux line numbers ([`LineNo`]) or screen rows
//! ([`ScreenRow`], 0-based), columns are cells ([`Column`], 0-based).

use std::borrow::Cow;

use super::cell::ACS;
use super::grid::{Grid, Line};
use super::history::trim_end_spaces;
use super::index::{ByteOffset, CharOffset, Column, LineIndex, LineNo, Point, ScreenRow};
use super::screen::{DecGraphics, MODE_INSERT, MODE_ORIGIN, MODE_WRAP, Term};
use super::width::{Layout, Rules};

/// Where a logical line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Entirely in history.
    History,
    /// Begins in history and continues on the screen.
    Both,
    /// Entirely on the visible screen.
    Screen,
}

/// One logical line: rows joined where tmux's wrapped flag joins them,
/// as `capture-pane -J` prints it with the trailing spaces removed.
#[derive(Clone, Debug)]
pub struct LogicalLine<'a> {
    /// The absolute index ([`LineIndex`]).
    pub index: LineIndex,
    /// The tmux line number of its first row (negative in history).
    pub first_row: LineNo,
    /// The text: UTF-8 bytes, trailing spaces (U+0020) removed; a TAB
    /// kept by tmux ≥ 3.6 is `\t`; DEC graphics per
    /// [`Options::dec_graphics`](super::Options).
    pub text: Cow<'a, [u8]>,
    /// Byte offsets in `text` where rows after the first begin (clamped
    /// to its length); `rows() == breaks.len() + 1`.
    pub breaks: Cow<'a, [usize]>,
    /// History, screen or both.
    pub place: Place,
}

impl LogicalLine<'_> {
    /// The line with its text and breaks owned (copied where borrowed).
    pub fn into_owned(self) -> LogicalLine<'static> {
        LogicalLine {
            index: self.index,
            first_row: self.first_row,
            text: Cow::Owned(self.text.into_owned()),
            breaks: Cow::Owned(self.breaks.into_owned()),
            place: self.place,
        }
    }

    /// The line borrowing its text and breaks from this one (no copy).
    pub fn borrowed(&self) -> LogicalLine<'_> {
        LogicalLine {
            index: self.index,
            first_row: self.first_row,
            text: Cow::Borrowed(&self.text),
            breaks: Cow::Borrowed(&self.breaks),
            place: self.place,
        }
    }

    /// The number of rows the line fills.
    pub fn rows(&self) -> u32 {
        self.breaks.len() as u32 + 1
    }

    /// The row (0-based within the line) holding byte `at`, and the byte
    /// offset where that row begins.
    pub fn row_of(&self, at: ByteOffset) -> (u32, ByteOffset) {
        let i = self.breaks.partition_point(|&b| b <= at.0);
        let start = if i == 0 { 0 } else { self.breaks[i - 1] };
        (i as u32, ByteOffset(start))
    }

    /// The character offset of byte `at` (clamped to the text; a byte
    /// inside a character counts as that character).
    pub fn char_offset(&self, at: ByteOffset) -> CharOffset {
        let end = at.0.min(self.text.len());
        let n = self.text[..end]
            .iter()
            .filter(|&&b| b & 0xc0 != 0x80)
            .count();
        // Inside a character: that character.
        let inside = self.text.get(end).is_some_and(|&b| b & 0xc0 == 0x80);
        CharOffset(if inside { n.saturating_sub(1) } else { n })
    }

    /// The byte offset of character `at` (clamped to the text's end).
    pub fn byte_offset(&self, at: CharOffset) -> ByteOffset {
        let mut n = 0;
        for (i, &b) in self.text.iter().enumerate() {
            if b & 0xc0 != 0x80 {
                if n == at.0 {
                    return ByteOffset(i);
                }
                n += 1;
            }
        }
        ByteOffset(self.text.len())
    }

    /// The cell where byte `at` is drawn: its row as a tmux line number
    /// and the first column of the cell holding it (a wide character's
    /// left column; a joined mark's base cell). `width` is the pane
    /// width.
    ///
    /// Columns are found by laying the row's text out again with tmux's
    /// rules (exact for text written left to right; a TAB counts to the
    /// next multiple of 8, the default tab stops).
    pub fn point(&self, at: ByteOffset, width: u32, rules: Rules) -> Point {
        let at = at.0.min(self.text.len());
        let (row, start) = self.row_of(ByteOffset(at));
        let mut layout = Layout::new(width as usize, rules);
        let mut col = 0;
        let text = &self.text[start.0..];
        let mut i = 0;
        while i < text.len() && start.0 + i <= at {
            let (cp, len) = decode(&text[i..]);
            let placed = layout.push(cp);
            if start.0 + i + len > at {
                col = if placed.width == 0 {
                    layout.col
                } else {
                    placed.col
                };
                break;
            }
            col = layout.col;
            i += len;
        }
        let col = if layout.rows > 1 && layout.col < col {
            0
        } else {
            col
        };
        Point::new(self.first_row + i64::from(row), Column(col as u32))
    }

    /// The cells a byte range covers: the first cell and the cell after
    /// the last one (exclusive end, on the last byte's row), so a wide
    /// character is never cut in half (public case C2).
    pub fn cells(
        &self,
        range: std::ops::Range<ByteOffset>,
        width: u32,
        rules: Rules,
    ) -> (Point, Point) {
        let start = self.point(range.start, width, rules);
        if range.end.0 <= range.start.0 {
            return (start, start);
        }
        let last = prev_char_start(&self.text, range.end.0);
        let p = self.point(ByteOffset(last), width, rules);
        let (cp, _) = decode(&self.text[last.min(self.text.len())..]);
        let mut layout = Layout::new(width as usize, rules);
        let w = layout.push(cp).width.max(1);
        (start, Point::new(p.line, Column(p.column.0 + w as u32)))
    }
}

fn prev_char_start(text: &[u8], end: usize) -> usize {
    let mut i = end.min(text.len()).saturating_sub(1);
    while i > 0 && text[i] & 0xc0 == 0x80 {
        i -= 1;
    }
    i
}

/// Decodes one character (as tmux stores them: up to `U+13FFFF`), or a
/// lone byte as itself.
fn decode(b: &[u8]) -> (u32, usize) {
    let Some(&b0) = b.first() else { return (0, 1) };
    let len = match b0 {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (u32::from(b0), 1),
    };
    match super::width::first_code_point(b) {
        Some(cp) if b.len() >= len => (cp, len),
        _ => (u32::from(b0), 1),
    }
}

/// The newest lines of a range, from [`Term::capture_tail`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tail {
    /// The lines kept, oldest first, each followed by `\n`.
    pub text: Vec<u8>,
    /// Lines of the range above the ones kept (not rendered).
    pub lines_above: usize,
    /// Bytes (each line's bytes and its `\n`) of the lines above that
    /// `max_lines` alone would have kept: what the byte limit cut.
    pub bytes_above: usize,
}

/// The cursor as tmux reports it (`#{cursor_x}`, `#{cursor_y}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The column; equal to the width when a wrap is pending (the last
    /// column was written with autowrap on: the next character goes to
    /// the next row). tmux can also leave it past the width after resizing
    /// a pane that shows the alternate screen; that too means the next
    /// character wraps.
    pub x: Column,
    /// The screen row.
    pub y: ScreenRow,
}

/// The modes that change where text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes {
    /// DECAWM (`#{wrap_flag}`).
    pub wrap: bool,
    /// IRM (`#{insert_flag}`).
    pub insert: bool,
    /// DECOM (`#{origin_flag}`).
    pub origin: bool,
}

/// The FNV-1a 64-bit hash of `text`: [`Term::fingerprint`] hashes the
/// visible rows with it, so a caller can hash tmux's own
/// `capture-pane -p -S 0 -E -` output the same way and compare.
pub fn fingerprint(text: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Term {
    /// The pane's size: width and height in cells.
    pub fn size(&self) -> (u32, u32) {
        (self.sx(), self.sy())
    }

    /// The tmux rules this term follows.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The options it was made with.
    pub fn options(&self) -> super::Options {
        self.opts
    }

    /// The cursor.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            x: Column(self.cx),
            y: ScreenRow(self.cy),
        }
    }

    /// DECAWM, IRM and DECOM.
    pub fn modes(&self) -> Modes {
        Modes {
            wrap: self.mode & MODE_WRAP != 0,
            insert: self.mode & MODE_INSERT != 0,
            origin: self.mode & MODE_ORIGIN != 0,
        }
    }

    /// The scroll region: first and last screen row (inclusive), as
    /// `#{scroll_region_upper}`/`#{scroll_region_lower}`.
    pub fn scroll_region(&self) -> (ScreenRow, ScreenRow) {
        (ScreenRow(self.rupper), ScreenRow(self.rlower))
    }

    /// The tab stops (columns), as `#{pane_tabs}` lists them.
    pub fn tab_stops(&self) -> Vec<Column> {
        self.tabs
            .iter()
            .enumerate()
            .filter(|(_, t)| **t)
            .map(|(i, _)| Column(i as u32))
            .collect()
    }

    /// The number of history rows (`#{history_size}`).
    pub fn history_size(&self) -> usize {
        self.history.rows()
    }

    /// History rows tmux holds that this copy never held (it was seeded
    /// without reading its history: [`super::History::absent`]); with
    /// [`Term::history_size`], tmux's `#{history_size}`.
    pub fn history_absent(&self) -> usize {
        self.history.absent()
    }

    /// The pane's `history-limit` (`#{history_limit}`).
    pub fn history_limit(&self) -> usize {
        self.history.limit()
    }

    /// The history itself (chunks of text to search, lines by index).
    pub fn history(&self) -> &super::History {
        &self.history
    }

    /// Whether the alternate screen is shown (`#{alternate_on}`).
    pub fn alternate_on(&self) -> bool {
        self.saved_grid.is_some()
    }

    /// The saved cursor of `?1049h` (`#{alternate_saved_x}`,
    /// `#{alternate_saved_y}`), if any.
    pub fn alternate_saved_cursor(&self) -> Option<(Column, ScreenRow)> {
        self.saved_cursor.map(|(x, y)| (Column(x), ScreenRow(y)))
    }

    fn acs_unicode(&self) -> bool {
        self.opts.dec_graphics == DecGraphics::Unicode
    }

    fn row_text(&self, line: &Line, acs: bool, out: &mut Vec<u8>) {
        line.push_text(&self.combined, acs, out);
    }

    /// The logical lines, oldest first: history, then the screen (a
    /// history line whose last row is wrapped continues with the screen's
    /// first rows, as `capture-pane -J` joins them).
    pub fn lines(&self) -> impl Iterator<Item = LogicalLine<'_>> + '_ {
        let hsize = self.history.rows() as i64;
        let mut row = -hsize;
        let open = self.history.is_open();
        let total = self.history.lines();
        let hist = self.history.iter().enumerate().filter_map(move |(i, l)| {
            let first_row = LineNo(row);
            row += i64::from(l.rows());
            if open && i + 1 == total {
                return None;
            }
            Some(LogicalLine {
                index: l.index,
                first_row,
                text: Cow::Borrowed(l.text),
                breaks: Cow::Owned(l.row_breaks.iter().collect()),
                place: Place::History,
            })
        });
        hist.chain(self.screen_lines(&self.grid, true))
    }

    /// The logical lines that are not complete in history: the open
    /// history line joined to the screen rows it continues on, then the
    /// rest of the screen ([`Term::lines`] without the complete history
    /// lines, which [`History::search_chunks`](super::History::search_chunks)
    /// gives as text).
    pub fn screen_logical_lines(&self) -> impl Iterator<Item = LogicalLine<'_>> + '_ {
        self.screen_lines(&self.grid, true)
    }

    /// The visible screen's logical lines; with `join_history`, the open
    /// history line is joined to the first one.
    fn screen_lines<'a>(
        &'a self,
        grid: &'a Grid,
        join_history: bool,
    ) -> impl Iterator<Item = LogicalLine<'a>> + 'a {
        let acs = self.acs_unicode();
        let mut y = 0usize;
        let mut index = self.history.end_index();
        let open = join_history
            .then(|| self.history.iter().next_back())
            .flatten()
            .filter(|l| l.open);
        let mut carry = open.map(|l| {
            (
                l.text.to_vec(),
                l.row_breaks.iter().collect::<Vec<_>>(),
                -i64::from(l.rows()),
            )
        });
        std::iter::from_fn(move || {
            if y >= grid.lines.len() {
                return None;
            }
            let (mut text, mut breaks, first_row, place) = match carry.take() {
                Some((t, b, r)) => {
                    let mut b = b;
                    b.push(t.len());
                    (t, b, r, Place::Both)
                }
                None => (Vec::new(), Vec::new(), y as i64, Place::Screen),
            };
            let mut first = true;
            loop {
                let line = &grid.lines[y];
                if !first {
                    breaks.push(text.len());
                }
                first = false;
                self.row_text(line, acs, &mut text);
                y += 1;
                if !line.wrapped || y >= grid.lines.len() {
                    break;
                }
            }
            let trimmed = trim_end_spaces(&text).len();
            text.truncate(trimmed);
            for b in &mut breaks {
                *b = (*b).min(trimmed);
            }
            let l = LogicalLine {
                index,
                first_row: LineNo(first_row),
                text: Cow::Owned(text),
                breaks: Cow::Owned(breaks),
                place,
            };
            index = index + 1;
            Some(l)
        })
    }

    /// The rows `start..=end` (tmux line numbers, clamped as
    /// `capture-pane -S -E` clamps them) as `capture-pane -p` prints them:
    /// each row's cells with trailing spaces removed, then `\n`.
    pub fn capture(&self, start: LineNo, end: LineNo) -> Vec<u8> {
        self.capture_with(start, end, false, self.acs_unicode())
    }

    /// Like [`Term::capture`] but rows joined where they wrap, as
    /// `capture-pane -p -J` prints them, except that each output line's
    /// trailing spaces are removed.
    pub fn capture_joined(&self, start: LineNo, end: LineNo) -> Vec<u8> {
        self.capture_with(start, end, true, self.acs_unicode())
    }

    /// `capture-pane -p` exactly as tmux prints it: DEC graphics cells as
    /// their ASCII letters, whatever [`Options::dec_graphics`] says.
    ///
    /// [`Options::dec_graphics`]: super::Options::dec_graphics
    pub fn capture_tmux(&self, start: LineNo, end: LineNo) -> Vec<u8> {
        self.capture_with(start, end, false, false)
    }

    fn capture_with(&self, start: LineNo, end: LineNo, join: bool, acs: bool) -> Vec<u8> {
        let hsize = self.history.rows() as i64;
        let (top, bottom) = self.clamp_range(start, end);
        let mut out = Vec::new();
        let mut pending = Vec::new();
        let mut emit = |text: &[u8], wrapped: bool, out: &mut Vec<u8>| {
            if join {
                pending.extend_from_slice(text);
                if !wrapped {
                    out.extend_from_slice(trim_end_spaces(&pending));
                    out.push(b'\n');
                    pending.clear();
                }
            } else {
                out.extend_from_slice(trim_end_spaces(text));
                out.push(b'\n');
            }
        };
        if top < hsize {
            let hist = self.history.rows_iter();
            for (i, (text, wrapped)) in hist.enumerate() {
                let i = i as i64;
                if i < top || i > bottom {
                    continue;
                }
                emit(text, wrapped, &mut out);
            }
        }
        let mut buf = Vec::new();
        for y in top.max(hsize)..=bottom {
            let line = &self.grid.lines[(y - hsize) as usize];
            buf.clear();
            self.row_text(line, acs, &mut buf);
            emit(&buf, line.wrapped, &mut out);
        }
        if join {
            // A wrapped last row: tmux prints no newline after it.
            out.extend_from_slice(trim_end_spaces(&pending));
        }
        out
    }

    /// The newest lines of `start..=end` (numbered and clamped as in
    /// [`Term::capture`]; logical lines with `join`, as
    /// [`Term::capture_joined`]), rendered newest first until `max_lines`
    /// lines or `room` bytes (each line's bytes and its `\n`) are reached,
    /// so a caller that keeps only what fits a budget never renders the
    /// whole range. Trailing empty lines are dropped, as callers drop them.
    ///
    /// The line that reaches `room` is kept whole: the text is at least
    /// `room` bytes unless the range is smaller.
    pub fn capture_tail(
        &self,
        start: LineNo,
        end: LineNo,
        join: bool,
        max_lines: Option<usize>,
        room: usize,
    ) -> Tail {
        let (top, bottom) = self.clamp_range(start, end);
        let hsize = self.history.rows() as i64;
        let acs = self.acs_unicode();
        // Rows of the range, newest first.
        let screen_top = top.max(hsize);
        let screen = (screen_top..=bottom).rev().map(|y| {
            let line = &self.grid.lines[(y - hsize) as usize];
            let mut b = Vec::new();
            self.row_text(line, acs, &mut b);
            (Cow::Owned(b), line.wrapped)
        });
        let in_history = if top < hsize {
            let skip = usize::try_from(hsize - 1 - bottom.min(hsize - 1)).unwrap_or(0);
            let take = usize::try_from(bottom.min(hsize - 1) - top + 1).unwrap_or(0);
            Some(
                self.history
                    .rows_iter()
                    .rev()
                    .skip(skip)
                    .take(take)
                    .map(|(t, w)| (Cow::Borrowed(t), w)),
            )
        } else {
            None
        };
        let rows = screen.chain(in_history.into_iter().flatten());
        let mut tail = Tail::default();
        // Kept lines, newest first.
        let mut kept: Vec<Vec<u8>> = Vec::new();
        let mut bytes = 0usize;
        let mut full = room == 0;
        let mut budget_cut = 0usize;
        let mut seen_text = false;
        // The logical line being put together (newest row first), and
        // whether the range's last row wraps (then no line ends there).
        let mut parts: Vec<Cow<'_, [u8]>> = Vec::new();
        let mut first = true;
        let mut finish = |parts: &mut Vec<Cow<'_, [u8]>>, tail: &mut Tail| {
            let mut line = Vec::new();
            for p in parts.iter().rev() {
                line.extend_from_slice(p);
            }
            parts.clear();
            let line = trim_end_spaces(&line);
            if !seen_text && line.is_empty() {
                // A trailing empty line: dropped, not counted.
                return;
            }
            seen_text = true;
            // Lines `max_lines` keeps: those kept and those the byte limit
            // cut.
            let limit = max_lines.is_some_and(|m| kept.len() + budget_cut >= m);
            if full || limit {
                if !limit {
                    tail.bytes_above += line.len() + 1;
                    budget_cut += 1;
                }
                tail.lines_above += 1;
                return;
            }
            bytes += line.len() + 1;
            kept.push(line.to_vec());
            full = bytes >= room;
        };
        for (text, wrapped) in rows {
            if !join {
                parts.push(text);
                finish(&mut parts, &mut tail);
                continue;
            }
            // Rows go newest first: a row that does not wrap ends the line
            // above it.
            if !wrapped && !first {
                finish(&mut parts, &mut tail);
            }
            first = false;
            parts.push(text);
        }
        if !parts.is_empty() {
            finish(&mut parts, &mut tail);
        }
        for l in kept.iter().rev() {
            tail.text.extend_from_slice(l);
            tail.text.push(b'\n');
        }
        tail
    }

    /// `start..=end` clamped as `capture-pane -S -E` clamps them, as
    /// absolute rows (0 is the oldest history row), top first.
    fn clamp_range(&self, start: LineNo, end: LineNo) -> (i64, i64) {
        let hsize = self.history.rows() as i64;
        let last = hsize + i64::from(self.sy()) - 1;
        let clamp = |n: LineNo| {
            let v = if n.0 < 0 && -n.0 > hsize {
                0
            } else {
                hsize + n.0
            };
            v.min(last)
        };
        let (top, bottom) = (clamp(start), clamp(end));
        if bottom < top {
            (bottom, top)
        } else {
            (top, bottom)
        }
    }

    /// The main screen hidden while the alternate screen is shown, as
    /// `capture-pane -a -p` prints it, or `None` when the alternate screen
    /// is off (public case C18).
    pub fn hidden_main_screen(&self) -> Option<Vec<u8>> {
        let grid = self.saved_grid.as_ref()?;
        let acs = self.acs_unicode();
        let mut out = Vec::new();
        let mut buf = Vec::new();
        for line in &grid.lines {
            buf.clear();
            self.row_text(line, acs, &mut buf);
            out.extend_from_slice(trim_end_spaces(&buf));
            out.push(b'\n');
        }
        Some(out)
    }

    /// The hidden main screen's logical lines (see
    /// [`Term::hidden_main_screen`]); indexes and line numbers are those
    /// the lines would have on the screen.
    pub fn hidden_main_lines(&self) -> Vec<LogicalLine<'_>> {
        match &self.saved_grid {
            Some(g) => self.screen_lines(g, false).collect(),
            None => Vec::new(),
        }
    }

    /// A hash of the visible rows as tmux prints them (`capture-pane -p -S
    /// 0 -E -`, DEC graphics as ASCII letters): compare it with
    /// [`fingerprint`] of tmux's own capture to detect divergence.
    pub fn fingerprint(&self) -> u64 {
        fingerprint(&self.capture_tmux(LineNo(0), LineNo(i64::from(self.sy()) - 1)))
    }

    /// The screen rows with their wrapped flags, as `capture-pane -p`
    /// prints them (DEC graphics per the options).
    pub fn screen_rows(&self) -> Vec<(Vec<u8>, bool)> {
        let acs = self.acs_unicode();
        self.grid
            .lines
            .iter()
            .map(|l| {
                let mut b = Vec::new();
                self.row_text(l, acs, &mut b);
                (trim_end_spaces(&b).to_vec(), l.wrapped)
            })
            .collect()
    }

    /// Whether any cell on the screen is a DEC graphics cell.
    pub fn has_dec_graphics(&self) -> bool {
        self.grid
            .lines
            .iter()
            .any(|l| l.cells.iter().any(|c| c.flags() & ACS != 0))
    }
}

/// Splits `capture-pane -p` text into its lines (rows, or logical lines
/// with `-J`), without their `\n`; empty text has none.
pub fn split_lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    let empty = body.is_empty();
    body.split(|&b| b == b'\n').filter(move |_| !empty)
}

/// Keeps the last `max` of `lines` (all with `None`); returns how many
/// were dropped from the front.
pub fn keep_tail<T>(lines: &mut Vec<T>, max: Option<usize>) -> usize {
    match max {
        Some(m) if lines.len() > m => {
            let drop = lines.len() - m;
            lines.drain(..drop);
            drop
        }
        _ => 0,
    }
}

/// The tmux line number (0 = top of the screen) of the bottom row a
/// capture of `start..=end` covers on a pane with `hsize` history lines
/// and `height` rows, as `cmd-capture-pane.c` clamps and orders them
/// (`None`: as far as the pane goes).
pub fn bottom_line(start: Option<i64>, end: Option<i64>, hsize: i64, height: i64) -> i64 {
    let (top, bottom) = clamped_range(start, end, hsize, height);
    top.max(bottom)
}

/// The tmux line number of the top row a capture of `start..=end` covers
/// (see [`bottom_line`]).
pub fn top_line(start: Option<i64>, end: Option<i64>, hsize: i64, height: i64) -> i64 {
    let (top, bottom) = clamped_range(start, end, hsize, height);
    top.min(bottom)
}

/// `start` and `end` clamped to `-hsize..=height - 1` as tmux does, in
/// the order given.
fn clamped_range(start: Option<i64>, end: Option<i64>, hsize: i64, height: i64) -> (i64, i64) {
    let last = height.max(1) - 1;
    let clamp = |n: i64| if n < -hsize { -hsize } else { n.min(last) };
    (start.map_or(-hsize, clamp), end.map_or(last, clamp))
}

#[cfg(test)]
mod capture_range_tests {
    use super::*;

    #[test]
    fn bottom_lines() {
        // Default range: whole history to the bottom of a 24-row screen.
        assert_eq!(bottom_line(None, None, 100, 24), 23);
        assert_eq!(bottom_line(Some(-5), Some(3), 100, 24), 3);
        assert_eq!(bottom_line(Some(-5), Some(99), 100, 24), 23);
        assert_eq!(
            bottom_line(Some(5), Some(2), 100, 24),
            5,
            "swapped like tmux"
        );
        assert_eq!(bottom_line(None, Some(-500), 100, 24), -100);
        assert_eq!(top_line(Some(5), Some(2), 100, 24), 2);
        assert_eq!(top_line(None, None, 100, 24), -100);
    }

    #[test]
    fn lines_and_tails() {
        assert_eq!(split_lines(b"").count(), 0);
        assert_eq!(split_lines(b"\n").count(), 0);
        assert_eq!(
            split_lines(b"a\n\n").collect::<Vec<_>>(),
            [b"a" as &[u8], b""]
        );
        assert_eq!(
            split_lines(b"a\nb\n").collect::<Vec<_>>(),
            [b"a" as &[u8], b"b"]
        );
        let mut v = vec![1, 2, 3];
        assert_eq!(keep_tail(&mut v, Some(2)), 1);
        assert_eq!(v, [2, 3]);
        assert_eq!(keep_tail(&mut v, None), 0);
    }
}
