//! Scrollback history: rows that scrolled off the top of the screen, kept
//! as logical lines of UTF-8 text in append-only chunks.
//!
//! tmux keeps history as grid rows, each with a `GRID_LINE_WRAPPED` flag
//! (grid.c); a row scrolls in at the bottom (`grid_scroll_history()`,
//! `grid_scroll_history_region()`) and, when `hsize` reaches the
//! `history-limit`, the oldest `limit / 10` rows are freed at once
//! (`grid_collect_history()`), so the oldest line left can lose its first
//! rows. This module keeps the same rows and flags, as text:
//!
//! ```text
//!  Chunk { text:  "first line\nsecond line that wr|apped\nopen li|ne"   (bytes)
//!          rows:  [0, 11, 37, 44, 51]        byte offset where each row starts
//!          lines: [0, 1, 3]                  first row of each line
//!          first: LineIndex of lines[0] }
//! ```
//!
//! * A line is its rows' text joined; a row holds what `capture-pane -J`
//!   prints for it (cells up to tmux's `cellused`, padding skipped), so the
//!   spaces at the end of a wrapped row are kept, as `-J` keeps them.
//! * When a line ends (a row without the wrapped flag), its trailing spaces
//!   are trimmed and a `\n` is appended: a chunk's text is ready to search
//!   as `\n`-separated lines.
//! * The newest line is *open* while its last row is wrapped: it continues
//!   on the screen. tmux can later clear that flag (`grid_move_lines()`,
//!   `grid_clear_lines()`), which closes the line.
//! * Cost: the text (about one byte per character), one `\n` per line, four
//!   bytes per row and four per line; and, once a chunk is sealed (a newer
//!   one exists) and searched, a 512-byte [`PairSummary`] of the byte pairs
//!   its text holds, which lets a search skip it
//!   ([`SearchChunk::may_hold`]).
//! * Sharing: a sealed chunk is kept behind an [`Arc`], so cloning a
//!   history (a reader's snapshot of a pane's copy) copies only the
//!   newest, unsealed chunk and counts references to the others. The
//!   writer then changes a sealed chunk only at its front, when rows are
//!   trimmed, and copies it first if a snapshot still holds it
//!   ([`Arc::make_mut`]); a scan over a snapshot never holds up the
//!   pane's output.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use super::index::LineIndex;

/// Start a new chunk once the last one holds this many bytes.
const CHUNK_BYTES: usize = 64 << 10;

/// Room a new chunk reserves past [`CHUNK_BYTES`] for the row that
/// crosses it.
const CHUNK_SLACK: usize = 2 << 10;

/// Rows never make a chunk's text longer than this (offsets are `u32`);
/// the text of a row that would is dropped. Unreachable in practice.
const MAX_CHUNK_BYTES: usize = (u32::MAX / 2) as usize;

/// What history trimming and clearing removed since the
/// [`Term`](super::Term) was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Logical lines removed entirely.
    pub lines: u64,
    /// Rows removed.
    pub rows: u64,
    /// Bytes of text removed (`\n` separators not counted).
    pub bytes: u64,
}

#[derive(Clone, Debug)]
struct Chunk {
    text: Vec<u8>,
    /// Byte offset in `text` where each row starts.
    rows: Vec<u32>,
    /// Index into `rows` of each line's first row.
    lines: Vec<u32>,
    /// The index of `lines[0]`.
    first: u64,
    /// Rows before this one were trimmed (front chunk only).
    live_row: u32,
    /// Lines before this one were trimmed entirely.
    live_line: u32,
    /// The byte pairs `text` holds, made on the first search after the
    /// chunk is sealed (see [`PairSummary`]).
    pairs: std::sync::OnceLock<Box<PairSummary>>,
}

/// Which byte pairs a sealed chunk's text holds, ASCII letters folded to
/// lower case, hashed into 4,096 bits (512 bytes per 64 KiB chunk): a
/// literal whose adjacent bytes form a pair the summary lacks is not in
/// the chunk, so search can skip it without reading it.
///
/// A chunk is sealed once a newer chunk exists: from then on its text only
/// loses bytes at its front (trimming), which can only remove pairs, so a
/// summary stays a superset of what the text holds.
#[derive(Clone, Debug)]
pub struct PairSummary([u64; PAIR_WORDS]);

const PAIR_WORDS: usize = 64;

impl PairSummary {
    fn of(text: &[u8]) -> PairSummary {
        let mut bits = [0u64; PAIR_WORDS];
        let mut prev = match text.first() {
            Some(&b) => fold(b),
            None => return PairSummary(bits),
        };
        for &b in &text[1..] {
            let b = fold(b);
            let i = pair_bit(prev, b);
            bits[i >> 6] |= 1 << (i & 63);
            prev = b;
        }
        PairSummary(bits)
    }

    /// Whether the text may hold every pair of `pairs` (each ASCII-folded
    /// as [`PairSummary`] folds): `false` means at least one is surely
    /// missing.
    pub fn may_hold(&self, pairs: &[(u8, u8)]) -> bool {
        pairs.iter().all(|&(a, b)| {
            let i = pair_bit(fold(a), fold(b));
            self.0[i >> 6] & (1 << (i & 63)) != 0
        })
    }
}

/// ASCII letters in lower case, other bytes as they are.
fn fold(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// The bit of the pair `(a, b)` (12 bits of a multiplicative hash).
fn pair_bit(a: u8, b: u8) -> usize {
    let key = (u32::from(a) << 8) | u32::from(b);
    (key.wrapping_mul(0x9E37_79B1) >> 20) as usize
}

impl Chunk {
    fn new(first: u64) -> Chunk {
        Chunk {
            // Room for the chunk's size and the row that crosses it, so
            // a typical chunk never grows by doubling.
            text: Vec::with_capacity(CHUNK_BYTES + CHUNK_SLACK),
            rows: Vec::new(),
            lines: Vec::new(),
            first,
            live_row: 0,
            live_line: 0,
            pairs: std::sync::OnceLock::new(),
        }
    }

    fn row_start(&self, r: usize) -> usize {
        (self.rows[r].max(self.rows[self.live_row as usize])) as usize
    }

    /// Rows of line `l` (positions in `rows`), live ones only.
    fn line_rows(&self, l: usize) -> Range<usize> {
        let start = (self.lines[l] as usize).max(self.live_row as usize);
        let end = self
            .lines
            .get(l + 1)
            .map_or(self.rows.len(), |&r| r as usize);
        start..end
    }

    /// The text of line `l` (without its `\n`) and whether it is complete.
    fn line_text(&self, l: usize) -> (&[u8], bool) {
        let rows = self.line_rows(l);
        let start = self.row_start(rows.start);
        let end = match self.lines.get(l + 1) {
            Some(&r) => self.rows[r as usize] as usize,
            None => self.text.len(),
        };
        let complete = self.lines.get(l + 1).is_some() || self.text.last() == Some(&b'\n');
        let end = if complete { end.saturating_sub(1) } else { end };
        (&self.text[start.min(end)..end], complete)
    }

    fn live_lines(&self) -> usize {
        self.lines.len() - self.live_line as usize
    }
}

/// One line of history, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct HistoryLine<'a> {
    /// The line's absolute index.
    pub index: LineIndex,
    /// The text, trailing spaces trimmed once the line is complete; UTF-8
    /// as tmux stores it (see [`Term`](super::Term) for what that can hold).
    pub text: &'a [u8],
    /// Byte offsets in `text` where its rows after the first begin.
    pub row_breaks: RowBreaks<'a>,
    /// Whether the line continues on the screen (its last row is wrapped).
    pub open: bool,
}

impl HistoryLine<'_> {
    /// The number of rows the line fills in history (a line whose first
    /// rows were trimmed counts only the rows left).
    pub fn rows(&self) -> u32 {
        self.row_breaks.len() as u32 + 1
    }
}

/// The byte offsets (relative to the line's text) where the rows of a
/// line after the first one begin; clamped to the text's length.
#[derive(Clone, Copy, Debug)]
pub struct RowBreaks<'a> {
    starts: &'a [u32],
    base: u32,
    len: u32,
}

impl RowBreaks<'_> {
    /// The number of breaks (rows − 1).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether the line fills one row.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The byte offset where row `i + 1` of the line begins.
    pub fn get(&self, i: usize) -> Option<usize> {
        self.starts
            .get(i)
            .map(|&s| (s.saturating_sub(self.base)).min(self.len) as usize)
    }

    /// All breaks in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// The history of one screen; see the module documentation.
#[derive(Clone, Debug)]
pub struct History {
    /// Chunks a newer one follows, oldest first: their text no longer
    /// grows, and they are shared with clones (see the module docs).
    sealed: VecDeque<Arc<Chunk>>,
    /// The newest chunk, which rows are appended to.
    tail: Option<Chunk>,
    limit: usize,
    rows: usize,
    bytes: usize,
    /// The index the next line will get (or the open line's index).
    next: u64,
    open: bool,
    dropped: Dropped,
    /// Rows tmux holds above the oldest row held here that this history
    /// never held ([`History::absent`]).
    absent: usize,
}

impl History {
    /// An empty history holding at most `limit` rows (tmux's
    /// `history-limit`; 0 keeps no history).
    pub fn new(limit: usize) -> History {
        History::starting_at(limit, 0)
    }

    /// An empty history whose first line will get index `first`.
    pub(crate) fn starting_at(limit: usize, first: u64) -> History {
        History {
            sealed: VecDeque::new(),
            tail: None,
            limit,
            rows: 0,
            bytes: 0,
            next: first,
            open: false,
            dropped: Dropped::default(),
            absent: 0,
        }
    }

    /// Rows tmux holds above the oldest row held here that this history
    /// never held: a copy seeded without reading its history
    /// ([`Captures::history_absent`](super::Captures::history_absent))
    /// counts them, so it trims when tmux does (`grid_collect_history()`
    /// counts every row) and its [`History::rows`] plus these is tmux's
    /// `history_size`. Trimming takes them first; clearing zeroes them.
    pub fn absent(&self) -> usize {
        self.absent
    }

    /// Sets [`History::absent`] (a seed that did not read the history).
    pub(crate) fn set_absent(&mut self, rows: usize) {
        self.absent = rows;
    }

    /// Every chunk, oldest first (the sealed ones, then the tail).
    fn all(&self) -> AllChunks<'_> {
        AllChunks {
            sealed: self.sealed.iter(),
            tail: self.tail.as_ref(),
        }
    }

    /// The number of chunks.
    fn count(&self) -> usize {
        self.sealed.len() + usize::from(self.tail.is_some())
    }

    /// The limit in rows.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The number of rows held (tmux's `history_size`).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Bytes of line text held (separators not counted).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The number of logical lines held (a partly trimmed line counts).
    pub fn lines(&self) -> usize {
        self.all().map(Chunk::live_lines).sum()
    }

    /// The index of the oldest line held (or of the next line, when
    /// empty).
    pub fn first_index(&self) -> LineIndex {
        self.all()
            .next()
            .map_or(LineIndex(self.end_index().0), |c| {
                LineIndex(c.first + u64::from(c.live_line))
            })
    }

    /// The index of the first line not complete in history: the open line
    /// if there is one, else the next line to come. The screen's lines are
    /// numbered from here.
    pub fn end_index(&self) -> LineIndex {
        if self.open {
            LineIndex(self.next.saturating_sub(1))
        } else {
            LineIndex(self.next)
        }
    }

    /// Whether the newest line continues on the screen.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// What trimming and clearing removed so far.
    pub fn dropped(&self) -> Dropped {
        self.dropped
    }

    /// Makes room for one more row as tmux does before each scroll
    /// (`grid_collect_history()`): when full, drop the oldest
    /// `max(limit / 10, 1)` rows.
    pub(crate) fn collect(&mut self) {
        let total = self.rows + self.absent;
        if total == 0 || total < self.limit {
            return;
        }
        let n = (self.limit / 10).max(1).min(total);
        self.trim_counting_absent(n);
    }

    /// Drops the oldest `n` rows, the [absent](History::absent) ones
    /// first.
    pub(crate) fn trim_counting_absent(&mut self, n: usize) {
        let gone = n.min(self.absent);
        self.absent -= gone;
        self.trim_rows(n - gone);
    }

    /// Changes the limit as tmux ≥ 3.7 does when the `history-limit`
    /// option changes (session.c `session_update_history()` calling
    /// `grid_collect_history(gd, 1)`): when the history holds at least
    /// `limit` rows, the oldest `max(rows - limit, 1)` go at once.
    pub(crate) fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
        let total = self.rows + self.absent;
        if total == 0 || total < limit {
            return;
        }
        let n = (total - limit).max(1);
        self.trim_counting_absent(n);
    }

    /// Renumbers the lines so that the oldest one held (or the next one,
    /// when none is) gets `first`; their order and text stay. For a copy
    /// seeded again, whose numbering continues its predecessor's
    /// ([`crate::mirror::lines::continued_first`]).
    pub(crate) fn renumber(&mut self, first: LineIndex) {
        let now = self.first_index().0;
        if first.0 == now {
            return;
        }
        // Every index moves by the same amount; a chunk's `first` may be
        // below the oldest held line by its trimmed lines.
        let shift = |v: u64| {
            if first.0 >= now {
                v + (first.0 - now)
            } else {
                v.saturating_sub(now - first.0)
            }
        };
        for c in self.sealed.iter_mut() {
            let c = Arc::make_mut(c);
            c.first = shift(c.first);
        }
        if let Some(c) = self.tail.as_mut() {
            c.first = shift(c.first);
        }
        self.next = shift(self.next);
    }

    /// Sets the limit without trimming anything (the caller trims to what
    /// tmux holds: [`Term::match_history`](super::Term::match_history)).
    pub(crate) fn keep_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Appends a row: `text` as `capture-pane -J` prints it, `wrapped` its
    /// flag.
    pub(crate) fn push_row(&mut self, text: &[u8], wrapped: bool) {
        self.push_row_with(wrapped, |out| out.extend_from_slice(text));
    }

    /// [`History::push_row`] with the row's text appended by `write`
    /// (straight into the chunk, saving a copy).
    pub(crate) fn push_row_with(&mut self, wrapped: bool, write: impl FnOnce(&mut Vec<u8>)) {
        let new_line = !self.open;
        if new_line {
            let start_new = self
                .tail
                .as_ref()
                .is_none_or(|c| c.text.len() >= CHUNK_BYTES);
            if start_new {
                // The full chunk keeps only what it holds (a row that
                // crossed the size made its vectors double), and is
                // sealed.
                if let Some(mut c) = self.tail.take() {
                    c.text.shrink_to_fit();
                    c.rows.shrink_to_fit();
                    c.lines.shrink_to_fit();
                    self.sealed.push_back(Arc::new(c));
                }
                self.tail = Some(Chunk::new(self.next));
            }
            self.next += 1;
        }
        let Some(chunk) = self.tail.as_mut() else {
            return;
        };
        let at = chunk.text.len();
        write(&mut chunk.text);
        if chunk.text.len() + 1 > MAX_CHUNK_BYTES {
            chunk.text.truncate(at);
        }
        if new_line {
            chunk.lines.push(chunk.rows.len() as u32);
        }
        chunk.rows.push(at as u32);
        self.bytes += chunk.text.len() - at;
        self.rows += 1;
        self.open = wrapped;
        if !wrapped {
            self.close_last();
        }
    }

    /// Clears the wrapped flag of the newest row, as `grid_move_lines()`
    /// and `grid_clear_lines()` do to the row above the ones they touch
    /// when that row is in history: the open line ends there.
    pub(crate) fn unwrap_last(&mut self) {
        if self.open {
            self.open = false;
            self.close_last();
        }
    }

    /// Ends the newest line: trims its trailing spaces, clamps its row
    /// starts, appends `\n`.
    fn close_last(&mut self) {
        let Some(chunk) = self.tail.as_mut() else {
            return;
        };
        let Some(&first_row) = chunk.lines.last() else {
            return;
        };
        let line_start = chunk.rows[first_row as usize].max(chunk.rows[chunk.live_row as usize]);
        let mut end = chunk.text.len();
        while end > line_start as usize && chunk.text[end - 1] == b' ' {
            end -= 1;
        }
        self.bytes -= chunk.text.len() - end;
        chunk.text.truncate(end);
        for r in chunk.rows[first_row as usize..].iter_mut() {
            *r = (*r).min(end as u32);
        }
        chunk.text.push(b'\n');
    }

    /// Drops the oldest `n` rows (fewer if there are fewer).
    pub(crate) fn trim_rows(&mut self, mut n: usize) {
        while n > 0 {
            let Some(chunk) = front_mut(&mut self.sealed, &mut self.tail) else {
                break;
            };
            let live_rows = chunk.rows.len() - chunk.live_row as usize;
            let take = n.min(live_rows);
            let from = chunk.live_row as usize;
            let to = from + take;
            // Bytes of the dropped rows.
            let start = chunk.row_start(from);
            let end = if to < chunk.rows.len() {
                chunk.rows[to] as usize
            } else {
                chunk.text.len()
            };
            let newlines = memchr::memchr_iter(b'\n', &chunk.text[start..end]).count();
            let dropped_bytes = end - start - newlines;
            chunk.live_row = to as u32;
            // Lines entirely before the new first live row are gone.
            let mut gone = 0;
            while (chunk.live_line as usize) < chunk.lines.len() {
                let l = chunk.live_line as usize;
                let line_end = chunk
                    .lines
                    .get(l + 1)
                    .map_or(chunk.rows.len(), |&r| r as usize);
                if line_end <= to {
                    chunk.live_line += 1;
                    gone += 1;
                } else {
                    break;
                }
            }
            self.rows -= take;
            self.bytes -= dropped_bytes;
            self.dropped.rows += take as u64;
            self.dropped.bytes += dropped_bytes as u64;
            self.dropped.lines += gone;
            n -= take;
            if chunk.live_row as usize == chunk.rows.len() {
                if self.sealed.pop_front().is_none() {
                    self.tail = None;
                }
                if self.tail.is_none() && self.open {
                    // The open line lost all its history rows; it keeps
                    // its index and continues on the screen.
                    self.dropped.lines -= 1;
                    self.open = false;
                    self.next -= 1;
                }
            } else if self.sealed.is_empty() {
                // A chunk that is not alone goes as a whole once its last
                // row is trimmed; a lone one (one huge open line) is
                // compacted instead.
                if let Some(chunk) = self.tail.as_mut() {
                    Self::compact(chunk);
                }
            }
        }
    }

    /// Frees the trimmed front of a chunk once it is most of it.
    fn compact(chunk: &mut Chunk) {
        let dead = chunk.rows[chunk.live_row as usize] as usize;
        if dead < (64 << 10) || dead * 2 < chunk.text.len() {
            return;
        }
        let first_line = chunk.live_line as usize;
        let live_row = chunk.live_row as usize;
        chunk.text.drain(..dead);
        chunk.rows.drain(..live_row);
        for r in chunk.rows.iter_mut() {
            *r -= dead as u32;
        }
        chunk.lines.drain(..first_line);
        // The first line may have lost rows: it now starts at row 0.
        for l in chunk.lines.iter_mut() {
            *l = l.saturating_sub(live_row as u32);
        }
        chunk.first += first_line as u64;
        chunk.live_line = 0;
        chunk.live_row = 0;
    }

    /// Drops everything (`clear-history`, `CSI 3 J`). The open line, if
    /// any, keeps its index for its part on the screen.
    pub(crate) fn clear(&mut self) {
        self.absent = 0;
        self.trim_rows(self.rows);
        debug_assert!(
            self.sealed.is_empty() && self.tail.is_none() && self.rows == 0 && self.bytes == 0
        );
        self.sealed.clear();
        self.tail = None;
        self.rows = 0;
        self.bytes = 0;
        self.open = false;
    }

    /// Iterates the lines held, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = HistoryLine<'_>> + '_ {
        let open = self.open;
        let total = self.count();
        self.all().enumerate().flat_map(move |(ci, c)| {
            let last_chunk = ci + 1 == total;
            (c.live_line as usize..c.lines.len()).map(move |l| {
                let (text, _) = c.line_text(l);
                let rows = c.line_rows(l);
                let base = c.row_start(rows.start) as u32;
                let last_line = last_chunk && l + 1 == c.lines.len();
                HistoryLine {
                    index: LineIndex(c.first + l as u64),
                    text,
                    row_breaks: RowBreaks {
                        starts: &c.rows[rows.start + 1..rows.end],
                        base,
                        len: text.len() as u32,
                    },
                    open: open && last_line,
                }
            })
        })
    }

    /// The line with index `index`, if held.
    pub fn get(&self, index: LineIndex) -> Option<HistoryLine<'_>> {
        let first = self.first_index();
        if index < first {
            return None;
        }
        // Lines are contiguous across chunks.
        self.iter().nth((index.0 - first.0) as usize)
    }

    /// The text of every complete line, oldest first, as `\n`-terminated
    /// chunks ready to search (the open line, if any, is left out; read it
    /// with [`History::iter`]). Each item is a chunk's line text and the
    /// index of its first line.
    pub fn chunks(&self) -> impl Iterator<Item = (LineIndex, &[u8])> + '_ {
        let open = self.open;
        let total = self.count();
        self.all().enumerate().filter_map(move |(ci, c)| {
            if c.live_line as usize >= c.lines.len() {
                return None;
            }
            let start = c.row_start(c.lines[c.live_line as usize] as usize);
            let mut end = c.text.len();
            if open && ci + 1 == total {
                end = c.lines.last().map_or(end, |&r| c.rows[r as usize] as usize);
            }
            (start < end).then(|| {
                (
                    LineIndex(c.first + u64::from(c.live_line)),
                    &c.text[start..end],
                )
            })
        })
    }

    /// The rows held, oldest first: each row's text and its wrapped flag.
    /// A wrapped row's text keeps its trailing spaces, as
    /// `capture-pane -J` prints them; [`trim_end_spaces`] gives what
    /// `capture-pane -p` prints.
    pub fn rows_iter(&self) -> impl DoubleEndedIterator<Item = (&[u8], bool)> + '_ {
        self.rows_of_chunks(0)
    }

    /// [`History::rows_iter`] from row `start` (0 is the oldest row held):
    /// the chunks before it are passed over by their row counts, so rows
    /// far down a long history are reached without walking the rows above
    /// them.
    pub fn rows_from(&self, start: usize) -> impl Iterator<Item = (&[u8], bool)> + '_ {
        let (mut before, mut chunks) = (0, 0);
        for c in self.all() {
            let rows = c.rows.len() - c.live_row as usize;
            if before + rows > start {
                break;
            }
            before += rows;
            chunks += 1;
        }
        self.rows_of_chunks(chunks).skip(start - before)
    }

    /// The rows of the chunks after the first `skip` ([`History::rows_iter`]).
    fn rows_of_chunks(&self, skip: usize) -> impl DoubleEndedIterator<Item = (&[u8], bool)> + '_ {
        let open = self.open;
        let total = self.count();
        self.all().enumerate().skip(skip).flat_map(move |(ci, c)| {
            let last_chunk = ci + 1 == total;
            (c.live_line as usize..c.lines.len()).flat_map(move |l| {
                let rows = c.line_rows(l);
                let (text, _) = c.line_text(l);
                let base = c.row_start(rows.start);
                let last = rows.end;
                let open_line = open && last_chunk && l + 1 == c.lines.len();
                rows.clone().map(move |r| {
                    let s = (c.row_start(r) - base).min(text.len());
                    let e = if r + 1 < last {
                        (c.rows[r + 1] as usize)
                            .saturating_sub(base)
                            .min(text.len())
                    } else {
                        text.len()
                    };
                    let wrapped = r + 1 < last || open_line;
                    (&text[s..e], wrapped)
                })
            })
        })
    }
}

impl History {
    /// Checks the internal bookkeeping (for tests and the fuzz target):
    /// row and byte counts match the chunks, row and line starts are in
    /// order and inside the text, every complete line ends with its `\n`
    /// where the next line begins, and indexes are contiguous.
    pub(crate) fn check(&self) -> Result<(), String> {
        let (mut rows, mut bytes) = (0usize, 0usize);
        let mut next_index = None;
        let total = self.count();
        for (ci, c) in self.all().enumerate() {
            let last = ci + 1 == total;
            if c.rows.windows(2).any(|w| w[0] > w[1])
                || c.rows.last().is_some_and(|&r| r as usize > c.text.len())
            {
                return Err(format!(
                    "chunk {ci}: row starts out of order or past the text"
                ));
            }
            if c.lines.first() != Some(&0) || c.lines.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!(
                    "chunk {ci}: line starts {:?} not increasing from 0",
                    &c.lines[..c.lines.len().min(8)]
                ));
            }
            if c.lines.last().is_some_and(|&l| l as usize >= c.rows.len())
                || c.live_row as usize > c.rows.len()
            {
                return Err(format!("chunk {ci}: a line or the live row past the rows"));
            }
            if c.live_row as usize >= c.rows.len() {
                return Err(format!(
                    "chunk {ci}: no live row left but the chunk is kept"
                ));
            }
            let complete = c.lines.len() - usize::from(last && self.open);
            let newlines = memchr::memchr_iter(b'\n', &c.text).count();
            if newlines != complete {
                return Err(format!(
                    "chunk {ci}: {newlines} newlines for {complete} complete lines"
                ));
            }
            for l in 1..c.lines.len() {
                let at = c.rows[c.lines[l] as usize] as usize;
                if at == 0 || c.text[at - 1] != b'\n' {
                    return Err(format!("chunk {ci}: line {l} does not follow a newline"));
                }
            }
            let start = c.row_start(c.live_row as usize);
            rows += c.rows.len() - c.live_row as usize;
            bytes += c.text.len() - start - memchr::memchr_iter(b'\n', &c.text[start..]).count();
            if next_index.is_some_and(|n| n != c.first + u64::from(c.live_line)) {
                return Err(format!("chunk {ci}: line indexes not contiguous"));
            }
            next_index = Some(c.first + c.lines.len() as u64);
        }
        if rows != self.rows || bytes != self.bytes {
            return Err(format!(
                "counted {rows} rows {bytes} bytes, kept {} rows {} bytes",
                self.rows, self.bytes
            ));
        }
        if self.tail.is_none() && self.open {
            return Err("open line without history".into());
        }
        if let Some(n) = next_index {
            let end = n - u64::from(self.open);
            if end != self.end_index().0 {
                return Err(format!(
                    "end index {} but lines end at {end}",
                    self.end_index().0
                ));
            }
        }
        Ok(())
    }
}

/// [`History::all`]: the sealed chunks, then the tail (a named iterator,
/// so it is exact-sized and double-ended for `enumerate().rev()`).
struct AllChunks<'a> {
    sealed: std::collections::vec_deque::Iter<'a, Arc<Chunk>>,
    tail: Option<&'a Chunk>,
}

impl<'a> Iterator for AllChunks<'a> {
    type Item = &'a Chunk;

    fn next(&mut self) -> Option<&'a Chunk> {
        match self.sealed.next() {
            Some(c) => Some(c),
            None => self.tail.take(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.sealed.len() + usize::from(self.tail.is_some());
        (n, Some(n))
    }
}

impl DoubleEndedIterator for AllChunks<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self.tail.take() {
            Some(c) => Some(c),
            None => self.sealed.next_back().map(|c| &**c),
        }
    }
}

impl ExactSizeIterator for AllChunks<'_> {}

/// The oldest chunk, for trimming: a sealed chunk is copied first if a
/// clone of the history still shares it (a free function, so the caller
/// keeps the history's counters borrowable).
fn front_mut<'a>(
    sealed: &'a mut VecDeque<Arc<Chunk>>,
    tail: &'a mut Option<Chunk>,
) -> Option<&'a mut Chunk> {
    match sealed.front_mut() {
        Some(c) => Some(Arc::make_mut(c)),
        None => tail.as_mut(),
    }
}

/// `text` without its trailing spaces (U+0020 only, as tmux trims).
pub fn trim_end_spaces(text: &[u8]) -> &[u8] {
    let mut end = text.len();
    while end > 0 && text[end - 1] == b' ' {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(h: &History) -> Vec<(u64, String, u32, bool)> {
        h.iter()
            .map(|l| {
                (
                    l.index.0,
                    String::from_utf8_lossy(l.text).into_owned(),
                    l.rows(),
                    l.open,
                )
            })
            .collect()
    }

    fn rows(h: &History) -> Vec<(String, bool)> {
        h.rows_iter()
            .map(|(t, w)| (String::from_utf8_lossy(trim_end_spaces(t)).into_owned(), w))
            .collect()
    }

    #[test]
    fn search_chunk_lines_are_its_text() {
        // Several chunks, a trimmed front, an open last line.
        let mut h = History::new(3000);
        for i in 0..4000 {
            let long = format!("line {i} {}", "x".repeat(i % 50));
            h.push_row(long.as_bytes(), i % 7 == 3);
        }
        h.push_row(b"open", true);
        let mut n = 0;
        for c in h.search_chunks() {
            let joined: Vec<u8> = (0..c.line_count())
                .flat_map(|k| c.line(k).iter().copied().chain([b'\n']))
                .collect();
            assert_eq!(joined, c.text);
            assert_eq!(c.line_start(c.line_count()), c.text.len());
            assert!(c.line(c.line_count()).is_empty());
            n += c.line_count();
        }
        // Every line but the open one, which continues on the screen.
        assert_eq!(n + 1, h.iter().count());
    }

    #[test]
    fn lines_and_rows() {
        let mut h = History::new(100);
        h.push_row(b"one  ", false);
        h.push_row(b"two wraps ", true);
        h.push_row(b"here  ", false);
        h.push_row(b"open", true);
        assert_eq!(
            lines(&h),
            [
                (0, "one".into(), 1, false),
                (1, "two wraps here".into(), 2, false),
                (2, "open".into(), 1, true),
            ]
        );
        assert_eq!(
            rows(&h),
            [
                ("one".into(), false),
                ("two wraps".into(), true),
                ("here".into(), false),
                ("open".into(), true),
            ]
        );
        assert_eq!(h.end_index(), LineIndex(2));
        let chunks: Vec<_> = h.chunks().collect();
        assert_eq!(chunks, [(LineIndex(0), &b"one\ntwo wraps here\n"[..])]);
        h.push_row(b" more", false);
        assert_eq!(lines(&h)[2], (2, "open more".into(), 2, false));
        assert_eq!(h.end_index(), LineIndex(3));
        assert_eq!(h.rows(), 5);
        let l = h.get(LineIndex(1)).unwrap();
        assert_eq!(l.row_breaks.iter().collect::<Vec<_>>(), [10]);
    }

    #[test]
    fn trailing_spaces_of_wrapped_rows() {
        let mut h = History::new(100);
        h.push_row(b"abc   ", true);
        h.push_row(b"   ", false);
        assert_eq!(lines(&h), [(0, "abc".into(), 2, false)]);
        assert_eq!(rows(&h), [("abc".into(), true), ("".into(), false)]);
    }

    #[test]
    fn collect_trims_rows() {
        let mut h = History::new(10);
        h.push_row(b"aaaa", true);
        h.push_row(b"bbbb", false);
        for i in 0..8 {
            h.push_row(format!("line{i}").as_bytes(), false);
        }
        assert_eq!(h.rows(), 10);
        h.collect();
        // One row (10 / 10) dropped: the first line loses its first row.
        assert_eq!(h.rows(), 9);
        assert_eq!(lines(&h)[0], (0, "bbbb".into(), 1, false));
        assert_eq!(
            h.dropped(),
            Dropped {
                lines: 0,
                rows: 1,
                bytes: 4
            }
        );
        h.push_row(b"x", false);
        h.collect();
        assert_eq!(lines(&h)[0], (1, "line0".into(), 1, false));
        assert_eq!(
            h.dropped(),
            Dropped {
                lines: 1,
                rows: 2,
                bytes: 8
            }
        );
        assert_eq!(h.first_index(), LineIndex(1));
    }

    #[test]
    fn absent_rows_are_trimmed_first_and_cleared() {
        // A copy of the screen only: tmux holds 8 rows it never read.
        let mut h = History::starting_at(10, 8);
        h.set_absent(8);
        h.push_row(b"seen", false);
        h.collect();
        assert_eq!((h.absent(), h.rows()), (8, 1));
        h.push_row(b"next", false);
        // 8 + 2 rows reach the limit: tmux drops one row, an absent one.
        h.collect();
        assert_eq!((h.absent(), h.rows()), (7, 2));
        assert_eq!(h.dropped(), Dropped::default());
        assert_eq!(lines(&h)[0], (8, "seen".into(), 1, false));
        // A lower limit trims as many rows as it takes, absent ones first.
        h.set_limit(1);
        assert_eq!((h.absent(), h.rows()), (0, 1));
        assert_eq!(lines(&h), [(9, "next".into(), 1, false)]);
        h.set_absent(5);
        h.clear();
        assert_eq!((h.absent(), h.rows()), (0, 0));
    }

    #[test]
    fn rows_from_a_row_far_down() {
        let mut h = History::new(100_000);
        let row = vec![b'y'; 300];
        for i in 0..2000 {
            h.push_row(format!("{i:05} ").as_bytes(), true);
            h.push_row(&row, false);
        }
        assert!(h.sealed.len() > 3);
        h.trim_rows(3);
        let all: Vec<_> = h.rows_iter().collect();
        for start in [
            0,
            1,
            2,
            500,
            1999,
            2500,
            all.len() - 1,
            all.len(),
            all.len() + 5,
        ] {
            let from: Vec<_> = h.rows_from(start).collect();
            assert_eq!(from, all[start.min(all.len())..], "from row {start}");
        }
    }

    /// A history (limit 10,000 rows) of `n` lines `0000`, `0001`, …, each
    /// followed by a line of 1,000 `x`: enough text to seal chunks.
    fn numbered(n: usize) -> History {
        let mut h = History::new(10_000);
        let row = vec![b'x'; 1000];
        for i in 0..n {
            h.push_row(format!("{i:04}").as_bytes(), false);
            h.push_row(&row, false);
        }
        h
    }

    #[test]
    fn renumbering_moves_every_index() {
        let mut h = numbered(150);
        let snap = h.clone();
        h.renumber(LineIndex(1000));
        assert_eq!(h.first_index(), LineIndex(1000));
        assert_eq!(h.end_index(), LineIndex(1300));
        assert_eq!(h.get(LineIndex(1002)).map(|l| l.text), Some(&b"0001"[..]));
        assert_eq!(h.check(), Ok(()));
        // A clone sharing sealed chunks keeps its own numbering.
        assert_eq!(snap.first_index(), LineIndex(0));
        assert_eq!(snap.get(LineIndex(2)).map(|l| l.text), Some(&b"0001"[..]));
        h.push_row(b"new", false);
        assert_eq!(h.end_index(), LineIndex(1301));
    }

    #[test]
    fn unwrap_and_clear() {
        let mut h = History::new(10);
        h.push_row(b"x  ", true);
        h.unwrap_last();
        assert_eq!(lines(&h), [(0, "x".into(), 1, false)]);
        h.push_row(b"y", true);
        assert_eq!(h.end_index(), LineIndex(1));
        h.clear();
        assert_eq!(h.rows(), 0);
        assert_eq!(h.end_index(), LineIndex(1));
        assert_eq!(h.dropped().lines, 1);
        h.push_row(b"z", false);
        assert_eq!(lines(&h), [(1, "z".into(), 1, false)]);
    }

    #[test]
    fn clones_share_sealed_chunks_and_stay_apart() {
        let mut h = numbered(300);
        assert!(h.sealed.len() >= 2, "{} sealed", h.sealed.len());
        let snap = h.clone();
        assert!(Arc::ptr_eq(&h.sealed[0], &snap.sealed[0]));
        let before = lines(&snap);
        // The writer trims the shared front chunk and appends: the clone
        // keeps what it held, and the writer's copy is right too.
        h.trim_rows(5);
        h.push_row(b"new", false);
        assert!(!Arc::ptr_eq(&h.sealed[0], &snap.sealed[0]));
        assert!(Arc::ptr_eq(&h.sealed[1], &snap.sealed[1]));
        assert_eq!(lines(&snap), before);
        assert_eq!(snap.check(), Ok(()));
        assert_eq!(h.check(), Ok(()));
        assert_eq!(lines(&h).last().map(|l| l.1.clone()), Some("new".into()));
        assert_eq!(h.rows(), snap.rows() - 5 + 1);
    }

    #[test]
    fn compaction_keeps_lines() {
        let mut h = History::new(100_000);
        let row = vec![b'x'; 100];
        for _ in 0..5000 {
            h.push_row(&row, true);
        }
        h.push_row(b"end", false);
        h.trim_rows(4000);
        let l: Vec<_> = h.iter().collect();
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].text.len(), 1000 * 100 + 3);
        assert_eq!(l[0].rows(), 1001);
        assert_eq!(h.bytes(), 100_003);
        for i in 0..10 {
            h.push_row(format!("n{i}").as_bytes(), false);
        }
        assert_eq!(h.iter().nth(3).map(|l| l.text), Some(&b"n2"[..]));
    }
}

/// One chunk of history text with what a search needs to place a match:
/// see [`History::search_chunks`].
#[derive(Clone, Copy, Debug)]
pub struct SearchChunk<'a> {
    /// The text of whole lines, each followed by `\n` (as
    /// [`History::chunks`] gives it).
    pub text: &'a [u8],
    /// The index of the first line in `text`.
    pub first: LineIndex,
    chunk: &'a Chunk,
    /// A newer chunk exists: the text no longer grows.
    sealed: bool,
    /// History rows (0 = the oldest row held) before the chunk's first
    /// line.
    rows_before: usize,
    /// Lines in `text`.
    lines: usize,
}

impl SearchChunk<'_> {
    /// Whether the chunk may hold every byte pair of `pairs` (ASCII
    /// letters compared in either case): `false` means a literal made of
    /// them is surely not in `text`. The newest chunk, which still grows,
    /// always says `true`; the others summarise their text once, on first
    /// use (about 0.1 ms per chunk).
    pub fn may_hold(&self, pairs: &[(u8, u8)]) -> bool {
        if !self.sealed || pairs.is_empty() {
            return true;
        }
        self.chunk
            .pairs
            .get_or_init(|| Box::new(PairSummary::of(&self.chunk.text)))
            .may_hold(pairs)
    }

    /// Line `k` of `text` (0-based): the history row (0 = the oldest held)
    /// of its first row, and its number of rows.
    pub fn rows_of(&self, k: usize) -> (usize, u32) {
        let c = self.chunk;
        let l = c.live_line as usize + k;
        if l >= c.lines.len() {
            return (self.rows_before, 1);
        }
        let rows = c.line_rows(l);
        let first = rows.start - c.live_row as usize;
        (self.rows_before + first, rows.len().max(1) as u32)
    }

    /// The number of lines in `text`.
    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// Where line `k` (0-based, at most [`SearchChunk::line_count`])
    /// starts in `text`, in bytes; `text.len()` for `k` past the last.
    pub fn line_start(&self, k: usize) -> usize {
        let c = self.chunk;
        let l = c.live_line as usize + k;
        if k >= self.lines || l >= c.lines.len() {
            return self.text.len();
        }
        let base = c.row_start(c.lines[c.live_line as usize] as usize);
        (c.row_start(c.lines[l] as usize).saturating_sub(base)).min(self.text.len())
    }

    /// Line `k`'s text (without its `\n`); empty past the last line.
    pub fn line(&self, k: usize) -> &[u8] {
        let start = self.line_start(k);
        let end = self.line_start(k + 1).saturating_sub(1).max(start);
        &self.text[start..end]
    }

    /// Byte offsets in line `k`'s text (as `text` holds it) where its
    /// rows after the first begin.
    pub fn breaks_of(&self, k: usize) -> Vec<usize> {
        let c = self.chunk;
        let l = c.live_line as usize + k;
        if l >= c.lines.len() {
            return Vec::new();
        }
        let rows = c.line_rows(l);
        let base = c.row_start(rows.start);
        let (text, _) = c.line_text(l);
        c.rows[rows.start + 1..rows.end]
            .iter()
            .map(|&r| (r as usize).saturating_sub(base).min(text.len()))
            .collect()
    }
}

impl History {
    /// Makes the byte-pair summary of every sealed chunk now (a seeded
    /// history is summarised once, as it is built, rather than by the
    /// first search that reaches it: about 0.1 ms per 64 KiB chunk).
    pub fn summarize_sealed(&self) {
        for c in &self.sealed {
            c.pairs.get_or_init(|| Box::new(PairSummary::of(&c.text)));
        }
    }

    /// Like [`History::chunks`], with each chunk's row bookkeeping, so a
    /// search can turn a matched line into tmux line numbers without
    /// walking the lines before it.
    pub fn search_chunks(&self) -> impl Iterator<Item = SearchChunk<'_>> + '_ {
        let open = self.open;
        let total = self.count();
        let mut rows_before = 0usize;
        self.all().enumerate().filter_map(move |(ci, c)| {
            let live_rows = c.rows.len() - c.live_row as usize;
            let before = rows_before;
            rows_before += live_rows;
            if c.live_line as usize >= c.lines.len() {
                return None;
            }
            let start = c.row_start(c.lines[c.live_line as usize] as usize);
            let mut end = c.text.len();
            let mut lines = c.live_lines();
            if open && ci + 1 == total {
                end = c.lines.last().map_or(end, |&r| c.rows[r as usize] as usize);
                lines -= 1;
            }
            // The first line may have lost rows to trimming: its first
            // live row is the chunk's first live row.
            (start < end).then(|| SearchChunk {
                text: &c.text[start..end],
                first: LineIndex(c.first + u64::from(c.live_line)),
                chunk: c,
                sealed: ci + 1 < total,
                rows_before: before,
                lines,
            })
        })
    }
}
