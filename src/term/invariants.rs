//! Self-checks of a [`Term`] for tests and the `grid` fuzz target.

use super::grid::HIDDEN_COLUMNS;
use super::history::trim_end_spaces;
use super::index::{ByteOffset, CharOffset, LineNo};
use super::read::Place;
use super::{Term, fingerprint};

impl Term {
    /// Checks what must hold after any input (for tests and the fuzz
    /// target; not needed in normal use): the grid's shape and the
    /// cursor's and scroll region's bounds; the history's bookkeeping
    /// (row and byte counts, row and line starts, contiguous indexes) and
    /// its cap; and that the read API agrees with itself: logical lines
    /// numbered and placed without gaps, covering every row once, with
    /// no trailing spaces, row breaks in order, a wrapped history line
    /// continuing on the screen, `capture-pane -J` and `-p` output made of
    /// the same lines, byte/char/cell conversions inside each line, and
    /// the fingerprint.
    ///
    /// # Errors
    ///
    /// A description of the first violation.
    #[doc(hidden)]
    pub fn check_invariants(&self) -> Result<(), String> {
        let (sx, sy) = (self.sx(), self.sy());
        for (name, g) in std::iter::once(("screen", &self.grid))
            .chain(self.saved_grid.as_ref().map(|g| ("hidden", g)))
        {
            if g.lines.len() != g.sy as usize {
                return Err(format!(
                    "{name}: {} rows for height {}",
                    g.lines.len(),
                    g.sy
                ));
            }
            for (y, l) in g.lines.iter().enumerate() {
                if l.cells.len() != g.sx as usize + HIDDEN_COLUMNS || l.used > g.sx {
                    return Err(format!(
                        "{name} row {y}: {} cells, {} used, width {}",
                        l.cells.len(),
                        l.used,
                        g.sx
                    ));
                }
                if (l.dirty as usize)
                    < l.cells
                        .iter()
                        .rposition(|c| *c != super::cell::Cell::BLANK)
                        .map_or(0, |i| i + 1)
                {
                    return Err(format!("{name} row {y}: a cell past the dirty mark"));
                }
            }
        }
        if self.cx > sx || self.cy >= sy {
            return Err(format!("cursor {},{} outside {sx}x{sy}", self.cx, self.cy));
        }
        if (self.rupper >= self.rlower || self.rlower >= sy)
            && !(sy == 1 && self.rupper == 0 && self.rlower == 0)
        {
            return Err(format!(
                "scroll region {}..{} in height {sy}",
                self.rupper, self.rlower
            ));
        }
        self.history.check()?;
        let hsize = self.history.rows();
        let cap = if self.keeps_history {
            self.history.limit().max(1)
        } else {
            0
        };
        if hsize > cap {
            return Err(format!("{hsize} history rows over the cap {cap}"));
        }

        // Logical lines: contiguous indexes and rows, every row once.
        let first_index = self.history.first_index();
        let mut index = first_index.0;
        let mut row = -(hsize as i64);
        let mut joined = Vec::new();
        for l in self.lines() {
            if l.index.0 != index || l.first_row != LineNo(row) {
                return Err(format!(
                    "line {} at row {} after index {index} row {row}",
                    l.index.0, l.first_row.0
                ));
            }
            let want_place = if row + i64::from(l.rows()) <= 0 {
                Place::History
            } else if row < 0 {
                Place::Both
            } else {
                Place::Screen
            };
            if l.place != want_place {
                return Err(format!(
                    "line {} is {:?}, rows say {want_place:?}",
                    l.index.0, l.place
                ));
            }
            if trim_end_spaces(&l.text).len() != l.text.len() {
                return Err(format!("line {} keeps trailing spaces", l.index.0));
            }
            if l.breaks.windows(2).any(|w| w[0] > w[1])
                || l.breaks.iter().any(|&b| b > l.text.len())
            {
                return Err(format!("line {}: row breaks out of order", l.index.0));
            }
            // Conversions inside the line (the first characters: each
            // lays its row out again).
            let mut chars = 0;
            for (i, &b) in l.text.iter().enumerate().take(256) {
                if b & 0xc0 == 0x80 {
                    continue;
                }
                if l.char_offset(ByteOffset(i)) != CharOffset(chars)
                    || l.byte_offset(CharOffset(chars)) != ByteOffset(i)
                {
                    return Err(format!(
                        "line {}: byte {i} and char {chars} do not convert",
                        l.index.0
                    ));
                }
                let p = l.point(ByteOffset(i), sx, self.rules);
                // A wide character in a one-column pane is written whole,
                // its padding past the edge: tmux's `s->cx > sx - width`
                // (screen-write.c `screen_write_cell()`) wraps around in
                // unsigned arithmetic, and so does the copy.
                if p.line < l.first_row
                    || p.line.0 >= l.first_row.0 + i64::from(l.rows())
                    || p.column.0 > sx.max(2)
                {
                    return Err(format!("line {}: byte {i} at {p:?}", l.index.0));
                }
                chars += 1;
            }
            joined.extend_from_slice(&l.text);
            joined.push(b'\n');
            index += 1;
            row += i64::from(l.rows());
        }
        if row != i64::from(sy) {
            return Err(format!(
                "lines cover rows up to {row}, the screen ends at {sy}"
            ));
        }
        if self.grid.lines.back().is_some_and(|l| l.wrapped) {
            joined.pop();
        }
        let (top, bottom) = (LineNo(-(hsize as i64)), LineNo(i64::from(sy) - 1));
        if self.capture_joined(top, bottom) != joined {
            return Err("capture_joined differs from the logical lines".into());
        }
        let captured = self.capture(top, bottom);
        let count = memchr::memchr_iter(b'\n', &captured).count();
        if count != hsize + sy as usize {
            return Err(format!("capture has {count} rows for {hsize} + {sy}"));
        }
        // The history's rows are its lines cut at the breaks.
        let mut rows_text = Vec::new();
        for (text, wrapped) in self.history.rows_iter() {
            rows_text.extend_from_slice(text);
            if !wrapped {
                rows_text.push(b'\n');
            }
        }
        let mut hist_joined = Vec::new();
        for l in self.history.iter() {
            hist_joined.extend_from_slice(l.text);
            if !l.open {
                hist_joined.push(b'\n');
            }
        }
        if rows_text != hist_joined {
            return Err("history rows differ from history lines".into());
        }
        if self.fingerprint() != fingerprint(&self.capture_tmux(LineNo(0), bottom)) {
            return Err("fingerprint differs from the capture's".into());
        }
        if let Some(hidden) = self.hidden_main_screen() {
            let n = memchr::memchr_iter(b'\n', &hidden).count();
            let rows: u32 = self.hidden_main_lines().iter().map(|l| l.rows()).sum();
            if self
                .saved_grid
                .as_ref()
                .is_some_and(|g| n != g.sy as usize || rows != g.sy)
            {
                return Err(format!("hidden screen: {n} rows captured, {rows} in lines"));
            }
        }
        // The state beside the grid: bounded, clean, in order.
        let c = self.commands();
        if c.records().len() > super::MAX_COMMANDS || c.depth() >= super::MAX_DEPTH {
            return Err("command table over its bounds".into());
        }
        let clean =
            |s: &str| s.len() <= super::marks::MAX_TEXT && !s.chars().any(|ch| ch.is_control());
        let mut last = None;
        for r in c.records() {
            if last.is_some_and(|l| r.index <= l) {
                return Err("command records out of order".into());
            }
            last = Some(r.index);
            // A command line keeps its line feeds (a multi-line command).
            let command = r.command.as_deref().map(|c| c.replace('\n', ""));
            let texts = [&command, &r.cwd, &r.aid, &r.command_nonce];
            if !texts.iter().all(|t| t.as_deref().is_none_or(clean)) {
                return Err(format!(
                    "command record {} holds an unclean string",
                    r.index
                ));
            }
            if r.ended.is_none() && r.ended_at.is_some() {
                return Err("an open record has an end time".into());
            }
        }
        if ![self.title(), self.cwd().0, self.cwd().1]
            .into_iter()
            .all(|t| t.is_none_or(clean))
        {
            return Err("title or cwd unclean".into());
        }
        Ok(())
    }
}
