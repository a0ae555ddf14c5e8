//! The visible screen: rows of cells with tmux's per-row state, and
//! tmux's grid operations on them.
//!
//! ```text
//!            column 0 …                         sx-1
//!          ┌────────────────────────────────────────┐
//!  history │ rows that scrolled off (history.rs)    │  LineNo -hsize … -1
//!          ├────────────────────────────────────────┤
//!  row 0   │ h e l l o ␣ w o r l d ␣ …              │  wrapped: false
//!  row 1   │ 中 ▒ x x x …                  (▒ = padding)
//!  …       │                                        │
//!  row sy-1│                                        │
//!          └────────────────────────────────────────┘
//! ```
//!
//! Each [`Line`] keeps what tmux keeps per grid line and what decides the
//! text: the cells, `cellused` ([`Line::used`]: one past the last cell ever
//! written; `capture-pane -J` prints up to here, `-p` trims the trailing
//! blanks), the `GRID_LINE_WRAPPED` flag, and how many cells tmux has
//! allocated (`cellsize`: `screen_write_clearline()` tests it for zero, and
//! a default space written past it is not stored at all, so `cellused`
//! does not grow).
//!
//! The operations are tmux's grid.c and grid-view.c functions on view
//! coordinates (row 0 is the top of the screen), with their side effects
//! on line flags: several clear the wrapped flag of the row just above
//! the rows they touch, which for row 0 is the newest history row; such a
//! clear is recorded in [`Grid::unwrap_history`] for the caller to apply.

use std::collections::VecDeque;

use super::cell::{Cell, Combined, PADDING};

/// One screen row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// `sx` cells and [`HIDDEN_COLUMNS`] more.
    pub cells: Vec<Cell>,
    /// tmux's `cellused`: cells from here on are blank (≤ `sx`).
    pub used: u32,
    /// `GRID_LINE_WRAPPED`: the row continues on the next one.
    pub wrapped: bool,
    /// tmux's `cellsize`: cells past it read as the default cell; cells
    /// between `used` and it are cleared cells.
    pub cellsize: u32,
    /// Cells from here on are [`Cell::BLANK`] (bookkeeping: emptying a row
    /// rewrites only what was written).
    pub dirty: u32,
    /// Every cell before `used` is plain ASCII (bookkeeping: the row's text
    /// is then one byte per cell).
    pub plain: bool,
}

/// The background of an erase: the style index for cleared cells and
/// whether the colour is the default one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bg {
    pub style: u16,
    pub default: bool,
}

impl Bg {
    pub(crate) const DEFAULT: Bg = Bg {
        style: 0,
        default: true,
    };
}

/// Columns kept past the right edge. tmux stores cells there (a wide
/// character written in column `sx` of a one-column pane, the padding of a
/// character widened with a wrap pending) and later writes read them
/// (`screen_write_overwrite()`); nothing prints them.
pub(crate) const HIDDEN_COLUMNS: usize = 2;

impl Line {
    pub(crate) fn new(sx: u32) -> Line {
        Line {
            cells: vec![Cell::BLANK; sx as usize + HIDDEN_COLUMNS],
            used: 0,
            wrapped: false,
            cellsize: 0,
            dirty: 0,
            plain: true,
        }
    }

    /// Marks cells before `end` as possibly not blank.
    fn touch(&mut self, end: usize) {
        self.dirty = self.dirty.max(end.min(self.cells.len()) as u32);
    }

    /// `grid_empty_line()`: no cells, no flags; a non-default background
    /// allocates the row with cleared cells of that colour.
    pub(crate) fn empty(&mut self, bg: Bg) {
        self.used = 0;
        self.wrapped = false;
        self.cellsize = 0;
        let dirty = (self.dirty as usize).min(self.cells.len());
        self.cells[..dirty].fill(Cell::BLANK);
        self.dirty = 0;
        self.plain = true;
        if !bg.default {
            let sx = (self.cells.len() - HIDDEN_COLUMNS) as u32;
            self.expand(sx, sx, bg.style);
        }
    }

    /// `grid_expand_line()`: grows `cellsize` to at least `want` (rounded
    /// up as tmux rounds it), the new cells cleared with `style`.
    pub(crate) fn expand(&mut self, want: u32, sx: u32, style: u16) {
        if want <= self.cellsize {
            return;
        }
        let size = if want < sx / 4 {
            sx / 4
        } else if want < sx / 2 {
            sx / 2
        } else if sx > want {
            sx
        } else {
            want
        };
        // Cells past `cellsize` are blank already; tmux's cleared cells
        // differ from blank ones only in a flag nothing here reads, so only
        // a coloured background needs writing.
        if style != 0 {
            let end = (size as usize).min(self.cells.len());
            let start = (self.cellsize as usize).min(end);
            self.cells[start..end].fill(Cell::cleared(style));
            self.touch(end);
        }
        self.cellsize = size;
    }

    /// Appends the row's text as `capture-pane -J` prints it: cells up to
    /// `used`, padding skipped. `acs` maps DEC graphics cells to their
    /// line-drawing characters; `tabs` prints TAB cells as `\t`.
    pub(crate) fn push_text(&self, combined: &Combined, acs: bool, out: &mut Vec<u8>) {
        let used = (self.used as usize).min(self.cells.len() - HIDDEN_COLUMNS);
        let cells = &self.cells[..used];
        if self.plain {
            out.extend(cells.iter().map(|c| c.code() as u8));
            return;
        }
        // Fast path: the leading run of plain ASCII (and cleared) cells.
        let plain = |c: &Cell| c.flags() & !super::cell::CLEARED == 0 && c.code() < 0x80;
        let n = cells.iter().position(|c| !plain(c)).unwrap_or(cells.len());
        out.extend(cells[..n].iter().map(|c| c.code() as u8));
        // The rest is written into room made for four bytes a cell (a
        // character's most), `at` the end of what is written; a cell of
        // several characters appends and makes room again.
        let rest = &cells[n..];
        let mut at = out.len();
        out.resize(at + rest.len() * 4, 0);
        for (i, &c) in rest.iter().enumerate() {
            let flags = c.flags() & !super::cell::CLEARED;
            if flags == 0 {
                // One character.
                at += encode(c.code(), &mut out[at..at + 4]);
                continue;
            }
            if flags & PADDING != 0 {
                continue;
            }
            if flags & super::cell::TAB != 0 {
                out[at] = b'\t';
                at += 1;
                continue;
            }
            if acs
                && flags & super::cell::ACS != 0
                && flags & super::cell::COMBINED == 0
                && let Some(ch) = super::cell::acs_char(c.code())
            {
                at += ch.encode_utf8(&mut out[at..at + 4]).len();
                continue;
            }
            out.truncate(at);
            c.push_data(combined, out);
            at = out.len();
            out.resize(at + (rest.len() - i - 1) * 4, 0);
        }
        out.truncate(at);
    }
}

/// Writes code point `cp` as tmux stores it (UTF-8, also past U+10FFFF
/// up to what glibc decodes) into `buf`; returns the byte count.
#[inline]
fn encode(cp: u32, buf: &mut [u8]) -> usize {
    if cp < 0x80 {
        buf[0] = cp as u8;
        1
    } else if cp < 0x800 {
        buf[0] = 0xc0 | (cp >> 6) as u8;
        buf[1] = 0x80 | (cp & 0x3f) as u8;
        2
    } else if cp < 0x10000 {
        buf[0] = 0xe0 | (cp >> 12) as u8;
        buf[1] = 0x80 | ((cp >> 6) & 0x3f) as u8;
        buf[2] = 0x80 | (cp & 0x3f) as u8;
        3
    } else {
        buf[0] = 0xf0 | ((cp >> 18) & 0x07) as u8;
        buf[1] = 0x80 | ((cp >> 12) & 0x3f) as u8;
        buf[2] = 0x80 | ((cp >> 6) & 0x3f) as u8;
        buf[3] = 0x80 | (cp & 0x3f) as u8;
        4
    }
}

/// The screen grid.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    pub sx: u32,
    pub sy: u32,
    /// The rows, top first (a ring: scrolling the whole screen is O(1)).
    pub lines: VecDeque<Line>,
    /// Set when an operation cleared the wrapped flag of the row above row
    /// 0 (the newest history row); the caller applies and resets it.
    pub unwrap_history: bool,
    /// Set once a cell was stored past the right edge.
    pub spilled: bool,
}

impl Grid {
    pub(crate) fn new(sx: u32, sy: u32) -> Grid {
        let sx = sx.max(1);
        let sy = sy.max(1);
        Grid {
            sx,
            sy,
            lines: (0..sy).map(|_| Line::new(sx)).collect(),
            unwrap_history: false,
            spilled: false,
        }
    }

    /// `grid_get_cell()`.
    pub(crate) fn get(&self, x: u32, y: u32) -> Cell {
        self.lines
            .get(y as usize)
            .and_then(|l| l.cells.get(x as usize))
            .copied()
            .unwrap_or(Cell::BLANK)
    }

    /// `grid_set_cell()`; a cell past the right edge goes to the hidden
    /// columns (`cellused` counts up to the width, all capture reads).
    pub(crate) fn set(&mut self, x: u32, y: u32, cell: Cell) {
        let sx = self.sx;
        self.spilled |= x >= sx;
        let Some(line) = self.lines.get_mut(y as usize) else {
            return;
        };
        line.expand(x + 1, sx, 0);
        line.used = line.used.max((x + 1).min(sx));
        if let Some(c) = line.cells.get_mut(x as usize) {
            *c = cell;
            line.touch(x as usize + 1);
            line.plain &= cell.flags() & !super::cell::CLEARED == 0 && cell.code() < 0x80;
        }
    }

    /// The common case of `screen_write_cell()` in one step: a new cell
    /// of one or two columns (`cell.width`) that fits on row `y` at column
    /// `x`, over a cell that is not part of a wide character and with no
    /// wide character's padding right after it (so
    /// `screen_write_overwrite()` has nothing to clear), and not a blank
    /// (which tmux may skip storing). A two-column cell gets its padding
    /// cell in `pad_style`. With `prev_below`, also that each of the two
    /// cells left of `x` holds one character, not a ZWJ, below that code
    /// point (so tmux ≥ 3.4 would not join the new character onto them;
    /// see [`super::width::new_cell_after`]). Returns `false`, changing
    /// nothing, when any of those conditions fails: the caller then takes
    /// the general path.
    pub(crate) fn put_simple(
        &mut self,
        x: u32,
        y: u32,
        cell: Cell,
        pad_style: u16,
        prev_below: Option<u32>,
    ) -> bool {
        let sx = self.sx;
        let w = u32::from(cell.width());
        if !(1..=2).contains(&w) || x + w > sx || cell == Cell::BLANK {
            return false;
        }
        let Some(line) = self.lines.get_mut(y as usize) else {
            return false;
        };
        let (xi, wi) = (x as usize, w as usize);
        if let Some(limit) = prev_below {
            let joinable = |c: &Cell| {
                c.flags() & super::cell::COMBINED != 0 || c.code() == 0x200d || c.code() >= limit
            };
            if line
                .cells
                .get(xi.saturating_sub(2)..xi)
                .is_none_or(|p| p.iter().any(joinable))
            {
                return false;
            }
        }
        let Some(&now) = line.cells.get(xi) else {
            return false;
        };
        if now.is_padding() {
            return false;
        }
        if (w != 1 || now.width() != 1)
            && xi + wi < sx as usize
            && line.cells.get(xi + wi).is_some_and(|c| c.is_padding())
        {
            return false;
        }
        line.expand(x + w, sx, 0);
        line.used = line.used.max(x + w);
        line.cells[xi] = cell;
        if w == 2 {
            line.cells[xi + 1] = Cell::padding(pad_style);
            line.plain = false;
        } else {
            line.plain &= cell.flags() & !super::cell::CLEARED == 0 && cell.code() < 0x80;
        }
        line.touch(xi + wi);
        true
    }

    /// `grid_set_cells()` for a run of ASCII bytes in one style.
    pub(crate) fn set_ascii(&mut self, x: u32, y: u32, run: &[u8], style: u16) {
        let sx = self.sx as usize;
        let Some(line) = self.lines.get_mut(y as usize) else {
            return;
        };
        let x = x as usize;
        if x >= sx {
            return;
        }
        let n = run.len().min(sx - x);
        line.expand((x + n) as u32, sx as u32, 0);
        line.used = line.used.max((x + n) as u32);
        for (c, &b) in line.cells[x..x + n].iter_mut().zip(run) {
            *c = Cell::ascii(b, style);
        }
        line.touch(x + n);
    }

    fn unwrap_above(&mut self, y: u32) {
        if y == 0 {
            self.unwrap_history = true;
        } else if let Some(l) = self.lines.get_mut(y as usize - 1) {
            l.wrapped = false;
        }
    }

    /// `grid_clear()`.
    pub(crate) fn clear(&mut self, px: u32, py: u32, nx: u32, ny: u32, bg: Bg) {
        if nx == 0 || ny == 0 {
            return;
        }
        if px == 0 && nx == self.sx {
            self.clear_lines(py, ny, bg);
            return;
        }
        if py >= self.sy || u64::from(py) + u64::from(ny) > u64::from(self.sy) {
            return;
        }
        let sx = self.sx;
        for y in py..py + ny {
            let line = &mut self.lines[y as usize];
            // With the default colour only allocated cells are cleared
            // (the rest read as blank anyway).
            let limit = if bg.default {
                line.cellsize.min(sx)
            } else {
                sx
            };
            if bg.default && px > limit {
                continue;
            }
            let end = (u64::from(px) + u64::from(nx)).min(u64::from(limit)) as u32;
            line.expand(end, sx, 0);
            line.cells[px.min(end) as usize..end as usize].fill(Cell::cleared(bg.style));
            line.touch(end as usize);
        }
    }

    /// `grid_clear_lines()`: empties whole rows and clears the wrapped flag
    /// of the row above them.
    pub(crate) fn clear_lines(&mut self, py: u32, ny: u32, bg: Bg) {
        if ny == 0 || py >= self.sy || u64::from(py) + u64::from(ny) > u64::from(self.sy) {
            return;
        }
        for y in py..py + ny {
            self.lines[y as usize].empty(bg);
        }
        self.unwrap_above(py);
    }

    /// A `grid_clear(gd, 0, py, sx, n, bg)` whose `n` tmux computes as
    /// `u_int` and can wrap below zero (`grid_view_delete_lines()` up to
    /// 3.5, `grid_view_*_lines_region()`): nothing for 0; for a negative
    /// `n` the range checks still pass and only the wrapped flag of the row
    /// above `py` is cleared.
    pub(crate) fn clear_lines_signed(&mut self, py: u32, n: i64, bg: Bg) {
        match n {
            0 => {}
            n if n > 0 => self.clear_lines(py, n as u32, bg),
            _ => self.unwrap_above(py),
        }
    }

    /// `grid_move_lines()`: moves `ny` rows from `py` to `dy`, empties the
    /// rows moved from, and clears the wrapped flag of the rows above the
    /// destination (before moving) and above the source (after).
    pub(crate) fn move_lines(&mut self, dy: u32, py: u32, ny: u32, bg: Bg) {
        if ny == 0 || py == dy {
            return;
        }
        let sy = u64::from(self.sy);
        if u64::from(py) + u64::from(ny) > sy || u64::from(dy) + u64::from(ny) > sy {
            return;
        }
        for y in dy..dy + ny {
            if y >= py && y < py + ny {
                continue;
            }
            self.lines[y as usize].empty(Bg::DEFAULT);
        }
        self.unwrap_above(dy);
        if dy < py {
            for i in 0..ny {
                self.lines.swap((dy + i) as usize, (py + i) as usize);
            }
        } else {
            for i in (0..ny).rev() {
                self.lines.swap((dy + i) as usize, (py + i) as usize);
            }
        }
        for y in py..py + ny {
            if y < dy || y >= dy + ny {
                self.lines[y as usize].empty(bg);
            }
        }
        if py < dy || py >= dy + ny {
            self.unwrap_above(py);
        }
    }

    /// `grid_move_cells()`.
    pub(crate) fn move_cells(&mut self, dx: u32, px: u32, py: u32, nx: u32, bg: Bg) {
        if nx == 0 || px == dx {
            return;
        }
        let sx = self.sx as usize;
        let Some(line) = self.lines.get_mut(py as usize) else {
            return;
        };
        let (dx, px, nx) = (dx as usize, px as usize, nx as usize);
        if px + nx > sx || dx + nx > sx {
            return;
        }
        line.expand((px + nx) as u32, sx as u32, 0);
        line.expand((dx + nx) as u32, sx as u32, 0);
        line.cells.copy_within(px..px + nx, dx);
        line.touch((px + nx).max(dx + nx));
        line.used = line.used.max((dx + nx) as u32);
        for x in px..px + nx {
            if x >= dx && x < dx + nx {
                continue;
            }
            line.cells[x] = Cell::cleared(bg.style);
        }
    }

    /// `grid_view_insert_cells()`.
    pub(crate) fn insert_cells(&mut self, px: u32, py: u32, nx: u32, bg: Bg) {
        let sx = self.sx;
        if px >= sx - 1 {
            self.clear(px, py, 1, 1, bg);
        } else if let Some(n) = sx.checked_sub(px + nx) {
            self.move_cells(px + nx, px, py, n, bg);
        }
    }

    /// `grid_view_delete_cells()`.
    pub(crate) fn delete_cells(&mut self, px: u32, py: u32, nx: u32, bg: Bg) {
        let sx = self.sx;
        let Some(n) = sx.checked_sub(px + nx) else {
            return;
        };
        self.move_cells(px, px + nx, py, n, bg);
        self.clear(sx - nx, py, nx, 1, bg);
    }

    /// `grid_view_insert_lines()`.
    pub(crate) fn insert_lines(&mut self, py: u32, ny: u32, bg: Bg) {
        if let Some(n) = self.sy.checked_sub(py + ny) {
            self.move_lines(py + ny, py, n, bg);
        }
    }

    /// `grid_view_insert_lines_region()`.
    pub(crate) fn insert_lines_region(&mut self, rlower: u32, py: u32, ny: u32, bg: Bg) {
        let Some(ny2) = (rlower + 1).checked_sub(py + ny) else {
            return;
        };
        self.move_lines(rlower + 1 - ny2, py, ny2, bg);
        self.clear_lines_signed(py + ny2, i64::from(ny) - i64::from(ny2), bg);
    }

    /// `grid_view_delete_lines()`; `old_clear` is the clear count tmux ≤
    /// 3.5 computed (`py + ny - (sy - ny)`, possibly below zero).
    pub(crate) fn delete_lines(&mut self, py: u32, ny: u32, bg: Bg, old_clear: bool) {
        let sy = self.sy;
        let Some(n) = sy.checked_sub(py + ny) else {
            return;
        };
        self.move_lines(py, py + ny, n, bg);
        if old_clear {
            let c = i64::from(py) + 2 * i64::from(ny) - i64::from(sy);
            self.clear_lines_signed(sy - ny, c, bg);
        } else {
            self.clear(0, sy - ny, self.sx, ny, bg);
        }
    }

    /// `grid_view_delete_lines_region()`.
    pub(crate) fn delete_lines_region(&mut self, rlower: u32, py: u32, ny: u32, bg: Bg) {
        let Some(ny2) = (rlower + 1).checked_sub(py + ny) else {
            return;
        };
        self.move_lines(py, py + ny, ny2, bg);
        self.clear_lines_signed(py + ny2, i64::from(ny) - i64::from(ny2), bg);
    }

    /// `grid_view_scroll_region_down()`.
    pub(crate) fn scroll_region_down(&mut self, rupper: u32, rlower: u32, bg: Bg) {
        self.move_lines(rupper + 1, rupper, rlower - rupper, bg);
    }

    /// The index of the last row with any cell used, plus one (0 if none).
    pub(crate) fn last_used(&self) -> u32 {
        self.lines
            .iter()
            .rposition(|l| l.used != 0)
            .map_or(0, |i| i as u32 + 1)
    }

    /// Moves row `up` to the bottom of rows `up..=lo`, shifting the rest up.
    pub(crate) fn rotate_up(&mut self, up: usize, lo: usize) {
        if up == 0 && lo + 1 == self.lines.len() {
            self.lines.rotate_left(1);
        } else {
            for y in up..lo {
                self.lines.swap(y, y + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &[&str]) -> Grid {
        let mut g = Grid::new(6, rows.len() as u32);
        for (y, r) in rows.iter().enumerate() {
            g.set_ascii(0, y as u32, r.as_bytes(), 0);
        }
        g
    }

    fn text(g: &Grid) -> Vec<String> {
        g.lines
            .iter()
            .map(|l| {
                let mut out = Vec::new();
                l.push_text(&Combined::default(), true, &mut out);
                let mut s = String::from_utf8(out).unwrap();
                if l.wrapped {
                    s.push('+');
                }
                s
            })
            .collect()
    }

    #[test]
    fn move_lines_clears_flags() {
        let mut g = grid(&["a", "b", "c", "d"]);
        g.lines[0].wrapped = true;
        g.lines[1].wrapped = true;
        // Scroll rows 1..=3 down by one (reverse index at row 1).
        g.scroll_region_down(1, 3, Bg::DEFAULT);
        assert_eq!(text(&g), ["a", "", "b", "c"]);
        assert!(!g.unwrap_history);
        let mut g = grid(&["a", "b", "c"]);
        g.lines[0].wrapped = true;
        g.scroll_region_down(0, 2, Bg::DEFAULT);
        assert_eq!(text(&g), ["", "a", "b"]);
        assert!(g.unwrap_history);
    }

    #[test]
    fn insert_and_delete() {
        let mut g = grid(&["abcdef"]);
        g.insert_cells(1, 0, 2, Bg::DEFAULT);
        assert_eq!(text(&g), ["a  bcd"]);
        g.delete_cells(0, 0, 3, Bg::DEFAULT);
        assert_eq!(text(&g), ["bcd   "]);
        // Inserting as many cells as remain moves nothing (tmux).
        let mut g = grid(&["abcdef"]);
        g.insert_cells(2, 0, 4, Bg::DEFAULT);
        assert_eq!(text(&g), ["abcdef"]);
        let mut g = grid(&["a", "b", "c", "d"]);
        g.delete_lines(1, 1, Bg::DEFAULT, false);
        assert_eq!(text(&g), ["a", "c", "d", ""]);
        let mut g = grid(&["a", "b", "c", "d"]);
        g.insert_lines(1, 3, Bg::DEFAULT);
        assert_eq!(text(&g), ["a", "b", "c", "d"]);
        g.insert_lines(1, 1, Bg::DEFAULT);
        assert_eq!(text(&g), ["a", "", "b", "c"]);
    }

    #[test]
    fn clears() {
        let mut g = grid(&["abcdef", "ghij"]);
        g.lines[0].wrapped = true;
        g.clear(2, 0, 2, 1, Bg::DEFAULT);
        assert_eq!(text(&g), ["ab  ef+", "ghij"]);
        g.clear(0, 1, 6, 1, Bg::DEFAULT);
        assert_eq!(text(&g), ["ab  ef", ""]);
        assert_eq!(g.lines[1].cellsize, 0);
    }
}
