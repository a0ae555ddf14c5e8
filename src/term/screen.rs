//! The [`Term`]: tmux's pane state, and what each parsed sequence does to
//! it (input.c's dispatch functions and screen-write.c). Pure.

use std::collections::HashMap;

use super::cell::{self, ACS, CLEARED, COMBINED, Cell, Colour, Combined, Style, Styles, TAB};
use super::grid::{Bg, Grid};
use super::history::History;
use super::index::LineIndex;
use super::parser::{Handler, Parser, State};
use super::width::{self, Char, Decision, Prev, Rules, V33Decision, V33Joiner};

/// How DEC special graphics cells (`ESC ( 0`, SO) come out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DecGraphics {
    /// As the line-drawing characters they show (`lqqk` becomes `┌──┐`),
    /// the characters tmux draws on a UTF-8 terminal (tty-acs.c). The
    /// default: searching for `┌──┐` finds a box (public case C21).
    #[default]
    Unicode,
    /// As the ASCII letters tmux stores and `capture-pane` prints.
    Ascii,
}

/// Settings of the pane that change what text tmux keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The pane's `history-limit` in rows (fixed when tmux ≤ 3.6 creates
    /// the pane; ≥ 3.7 applies changes, see [`Term::set_history_limit`]).
    /// 0 keeps no history.
    pub history_limit: usize,
    /// The `scroll-on-clear` option (default on): clearing the whole
    /// screen moves its rows into history.
    pub scroll_on_clear: bool,
    /// The `alternate-screen` option (default on).
    pub alternate_screen: bool,
    /// The server option `variation-selector-always-wide` (≥ 3.6, default
    /// on): VS16 widens the character before it to two cells.
    pub variation_selector_always_wide: bool,
    /// How DEC line-drawing cells are returned.
    pub dec_graphics: DecGraphics,
    /// Whether the pane's right edge is the window's right edge
    /// (`#{pane_right} + 1 == #{window_width}`; true for a pane alone in
    /// its window). tmux ≥ 3.7 does not move the cursor when a character
    /// written with a wrap pending is widened to two cells by a joining
    /// character and so reaches past the window
    /// (`screen_write_combine()` checks `window_visible_ranges()`).
    pub at_window_right_edge: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            history_limit: 2000,
            scroll_on_clear: true,
            alternate_screen: true,
            variation_selector_always_wide: true,
            dec_graphics: DecGraphics::Unicode,
            at_window_right_edge: true,
        }
    }
}

/// `MODE_WRAP` (DECAWM).
pub(crate) const MODE_WRAP: u32 = 0x1;
/// `MODE_INSERT` (IRM).
pub(crate) const MODE_INSERT: u32 = 0x2;
/// `MODE_ORIGIN` (DECOM).
pub(crate) const MODE_ORIGIN: u32 = 0x4;

/// tmux's `input_cell`: the pen (`grid_cell` style) and the character
/// sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pen {
    pub style: Style,
    /// G0 is DEC special graphics.
    pub g0: bool,
    /// G1 is DEC special graphics.
    pub g1: bool,
    /// SO is active (G1 in use).
    pub shift: bool,
    /// `GRID_ATTR_CHARSET` left in the pen: tmux ≥ 3.4's `REP` sets it
    /// and only the next printable ASCII character or an SGR reset clears
    /// it, so UTF-8 characters written meanwhile carry it.
    pub charset_attr: bool,
}

impl Pen {
    pub(crate) const fn default_pen() -> Pen {
        Pen::DEFAULT
    }

    const DEFAULT: Pen = Pen {
        style: Style::DEFAULT,
        g0: false,
        g1: false,
        shift: false,
        charset_attr: false,
    };

    fn acs(&self) -> bool {
        if self.shift { self.g1 } else { self.g0 }
    }
}

/// DECSC state (`input_save_state()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SavedState {
    pub pen: Pen,
    pub cx: u32,
    pub cy: u32,
    pub origin: bool,
}

/// The character `REP` repeats (`ictx->last` with `INPUT_LAST`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Last {
    pub cp: u32,
    pub width: u8,
}

/// What an edit at the cursor does to cells or lines (screen-write.c's
/// insert, delete and clear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Insert,
    Delete,
    Clear,
}

/// A mirror of one tmux pane: its screen, history, cursor and modes, fed
/// the bytes the program in the pane wrote. See the [module
/// documentation](super) for what is exact.
#[derive(Clone, Debug)]
pub struct Term {
    pub(crate) rules: Rules,
    pub(crate) opts: Options,
    pub(crate) grid: Grid,
    pub(crate) history: History,
    /// The main screen while the alternate one is shown (`saved_grid`).
    pub(crate) saved_grid: Option<Grid>,
    /// `saved_cx`/`saved_cy` (`?1049h`).
    pub(crate) saved_cursor: Option<(u32, u32)>,
    /// `saved_cell`.
    pub(crate) saved_style: Style,
    pub(crate) cx: u32,
    pub(crate) cy: u32,
    pub(crate) rupper: u32,
    pub(crate) rlower: u32,
    pub(crate) mode: u32,
    pub(crate) tabs: Vec<bool>,
    pub(crate) pen: Pen,
    pub(crate) old: SavedState,
    pub(crate) last: Option<Last>,
    pub(crate) parser: Parser,
    pub(crate) v33: V33Joiner,
    /// tmux's `GRID_HISTORY`: rows scrolled off the top go to history
    /// (set when the pane was created with a `history-limit` above 0).
    pub(crate) keeps_history: bool,
    pub(crate) combined: Combined,
    pub(crate) styles: Styles,
    pen_style: Option<u16>,
    pen_bg: Option<Bg>,
    links: HashMap<u64, u32>,
    next_link: u32,
    scratch: Vec<u8>,
    reseed: bool,
    pub(crate) alt_size_unknown: bool,
    pub(crate) seed_guesses: usize,
    /// Modes, marks, times ([`super::state`]).
    pub(crate) state: super::state::TermState,
}

fn default_tabs(sx: u32) -> Vec<bool> {
    (0..sx).map(|x| x != 0 && x % 8 == 0).collect()
}

#[cfg(test)]
impl Term {
    /// An empty copy `width` × `height` on 3.6's rules keeping `limit`
    /// history rows (for tests).
    pub(crate) fn with_history(width: u32, height: u32, limit: usize) -> Term {
        let opts = Options {
            history_limit: limit,
            ..Options::default()
        };
        Term::new(width, height, Rules::V36, opts)
    }
}

impl Term {
    /// An empty pane `width` × `height` cells (each at least 1) following
    /// `rules`, as tmux creates it: cursor at the top left, autowrap on,
    /// tab stops every 8 columns.
    pub fn new(width: u32, height: u32, rules: Rules, opts: Options) -> Term {
        let grid = Grid::new(width, height);
        let (sx, sy) = (grid.sx, grid.sy);
        Term {
            rules,
            opts,
            grid,
            history: History::new(opts.history_limit),
            keeps_history: opts.history_limit > 0,
            saved_grid: None,
            saved_cursor: None,
            saved_style: Style::DEFAULT,
            cx: 0,
            cy: 0,
            rupper: 0,
            rlower: sy - 1,
            mode: MODE_WRAP,
            tabs: default_tabs(sx),
            pen: Pen::DEFAULT,
            old: SavedState {
                pen: Pen::DEFAULT,
                cx: 0,
                cy: 0,
                origin: false,
            },
            last: None,
            parser: Parser::default(),
            v33: V33Joiner::default(),
            combined: Combined::default(),
            styles: Styles::default(),
            pen_style: None,
            pen_bg: None,
            links: HashMap::new(),
            next_link: 1,
            scratch: Vec::new(),
            reseed: false,
            alt_size_unknown: false,
            seed_guesses: 0,
            state: Default::default(),
        }
    }

    /// Feeds bytes the program in the pane wrote (tmux's `%output`
    /// payload, unescaped). Any bytes are accepted; a sequence or a UTF-8
    /// character split across calls continues in the next call.
    pub fn advance(&mut self, bytes: &[u8]) {
        let mut parser = std::mem::take(&mut self.parser);
        parser.advance(self, bytes);
        self.parser = parser;
        self.state_after_advance(!bytes.is_empty());
    }

    /// Marks the end of one read tmux made from the pane. tmux ≤ 3.3
    /// forgets a zero-width joiner held back for the next character at
    /// that point (`screen_write_start_pane()` zeroes the write context);
    /// call this after each `%output` notification to follow it. It does
    /// nothing for other versions.
    pub fn end_read(&mut self) {
        self.v33.reset();
    }

    /// Whether the parser is inside a string sequence (DCS, OSC, APC,
    /// `ESC k`, SOS/PM) that has not been terminated. tmux gives up on
    /// such a string after 5 seconds without output and resets the parser
    /// and the pen (input.c `input_ground_timer_callback()`); a caller that
    /// sees no output for that long should call [`Term::string_timeout`].
    pub fn in_string(&self) -> bool {
        matches!(
            self.parser.state,
            State::DcsEnter
                | State::DcsParameter
                | State::DcsIntermediate
                | State::DcsHandler
                | State::DcsEscape
                | State::DcsIgnore
                | State::OscString
                | State::ApcString
                | State::RenameString
                | State::ConsumeSt
        )
    }

    /// tmux's `input_reset(ictx, 0)` when its string timer expires: the pen
    /// and character sets are reset, the DECSC state forgotten and the
    /// parser returns to the ground state.
    pub fn string_timeout(&mut self) {
        if self.in_string() {
            self.reset_cell();
            self.parser.reset();
            self.last = None;
        }
    }

    /// Whether this `Term` no longer follows tmux and should be seeded
    /// again. Set when a `Term` [seeded](super::Seed) while the alternate
    /// screen was on leaves it: tmux then resizes the hidden main screen to
    /// the pane's size with a reflow (screen.c `screen_alternate_off()`) if
    /// the pane was resized since the alternate screen came on, and the
    /// captures do not say the hidden screen's width. Check it after each
    /// [`Term::advance`].
    pub fn needs_reseed(&self) -> bool {
        self.reseed
    }

    /// How many rows' wrapped flags the [`Seed`](super::Seed) this `Term`
    /// was built from had to guess (0 if not seeded, or seeded with `-F`
    /// flags): with tmux ≤ 3.6 an empty row next to a wrap prints the same
    /// either way. A caller can verify such a seed later with
    /// [`Term::fingerprint`].
    pub fn seed_guesses(&self) -> usize {
        self.seed_guesses
    }

    /// Whether a seed taken after tmux reflows this pane (a resize) would
    /// be exact: tmux never stored a cell past the right edge here (a wide
    /// character's padding written in the last column, which a reflow
    /// brings into view but no capture shows), and (≥ 3.6) no TAB cell is
    /// on the screen (a capture prints a TAB cell as `\t`, not its width,
    /// and a reflow can split one).
    pub fn reflow_safe(&self) -> bool {
        let grids = || std::iter::once(&self.grid).chain(self.saved_grid.as_ref());
        !grids().any(|g| g.spilled)
            && !grids().any(|g| g.lines.iter().any(|l| l.cells.iter().any(|c| c.is_tab())))
    }

    /// Whether the parser is in its ground state with no half-read UTF-8
    /// character: nothing a seed would have to replay (`capture-pane -P`)
    /// or could not know.
    pub fn parser_idle(&self) -> bool {
        self.parser.state == State::Ground && !self.parser.in_utf8()
    }

    /// Whether everything tmux cannot report about this pane is at its
    /// default: the pen and character sets, the DECSC state, the
    /// character `REP` would repeat and (3.3) a held-back ZWJ. A
    /// [`Seed`](super::Seed) taken now then loses nothing (see the `seed`
    /// module for why it could).
    ///
    /// It also checks the screen (and the hidden main screen) for what no
    /// capture shows: a wide character whose padding was written over (so
    /// the cells after it sit one column further left than their text
    /// suggests), padding without its character, cells past the right
    /// edge, a row allocated but empty (which changes what erasing it does
    /// to the wrapped flag above it), styled cells after the last used
    /// one, or (≥ 3.6) a TAB cell wider or narrower than the distance to
    /// the next tab stop (inserted or deleted characters moved it; a
    /// capture prints it as `\t`, which the seed lays out again).
    pub fn fully_seedable(&self) -> bool {
        self.pen == Pen::DEFAULT
            && self.old
                == (SavedState {
                    pen: Pen::DEFAULT,
                    cx: 0,
                    cy: 0,
                    origin: self.old.origin,
                })
            && self.last.is_none()
            && self.v33 == V33Joiner::default()
            && std::iter::once(&self.grid)
                .chain(self.saved_grid.as_ref())
                .all(|g| {
                    g.lines.iter().all(|l| {
                        let sx = g.sx as usize;
                        let used = l.used as usize;
                        let mut x = 0;
                        while x < sx {
                            let c = l.cells[x];
                            let empty =
                                c.flags() & COMBINED != 0 && self.combined.get(c.code()).is_empty();
                            if c.is_padding() || (x < used && c.width() == 0) || empty {
                                return false;
                            }
                            for k in 1..usize::from(c.width().max(1)) {
                                if x + k >= sx || !l.cells[x + k].is_padding() {
                                    return false;
                                }
                            }
                            if c.is_tab()
                                && usize::from(c.width()) != self.tab_width(x as u32, g.sx) as usize
                            {
                                return false;
                            }
                            x += usize::from(c.width().max(1));
                        }
                        l.cells[sx..].iter().all(|&c| c == Cell::BLANK)
                            && !(l.cellsize > 0 && used == 0)
                            && l.cells[used.min(sx)..sx].iter().all(|c| c.style() == 0)
                    })
                })
    }

    pub(crate) fn sx(&self) -> u32 {
        self.grid.sx
    }

    pub(crate) fn sy(&self) -> u32 {
        self.grid.sy
    }

    fn history_enabled(&self) -> bool {
        self.keeps_history && self.saved_grid.is_none()
    }

    /// Applies a new `history-limit` to this pane, as tmux ≥ 3.7 does to
    /// every pane of a session when the option changes
    /// (`session_update_history()`): if the history holds at least
    /// `limit` rows, the oldest `max(rows - limit, 1)` rows are dropped at
    /// once (counted in [`History::dropped`](super::History::dropped)).
    ///
    /// tmux runs this for every pane of every session whenever any
    /// `set-option history-limit` runs (options.c
    /// `options_push_changes()`), each pane with its own session's
    /// limit, changed or not: a pane whose history is full loses a row
    /// each time. So call it for every pane after each such command
    /// (`limit` = the pane's `#{history_limit}`), not only for the panes
    /// whose limit changed.
    ///
    /// tmux ≤ 3.6 fixes a pane's limit when it creates the pane: do not
    /// call this for those versions. Whether rows go to history at all is
    /// also fixed at creation (tmux's `GRID_HISTORY`, set when the limit
    /// was not 0) and is not changed here: a pane created with a limit of
    /// 0 keeps no history whatever the limit becomes, and one whose limit
    /// drops to 0 keeps its newest row (tmux trims at least one row before
    /// each scroll and then adds one).
    pub fn set_history_limit(&mut self, limit: usize) {
        self.opts.history_limit = limit;
        self.history.set_limit(limit);
    }

    /// Makes the history what tmux says it is after dropping rows with no
    /// output a control client sees (`clear-history`; on ≥ 3.7 a changed
    /// `history-limit`): the limit becomes `limit` rows (nothing trimmed
    /// for it) and the oldest rows go until at most `rows` are left,
    /// counted in [`History::dropped`](super::History::dropped). tmux only
    /// ever drops history from its oldest row (grid.c
    /// `grid_clear_history()`, `grid_collect_history()`), so when the copy
    /// held every row tmux holds, the rows left are tmux's. Line indexes
    /// do not change.
    pub fn match_history(&mut self, limit: usize, rows: usize) {
        self.opts.history_limit = limit;
        self.history.keep_limit(limit);
        // Rows the copy never read ([`Term::history_absent`]) are tmux's
        // oldest: they go first.
        let total = self.history.rows() + self.history.absent();
        if total > rows {
            self.history.trim_counting_absent(total - rows);
        }
    }

    /// Renumbers the copy's logical lines so that the oldest one held
    /// gets `first` (the screen's follow it): a copy seeded again
    /// continues its predecessor's numbering
    /// ([`crate::mirror::lines::continued_first`]). Call it before
    /// [`Term::adopt_state`], whose command table is in that numbering.
    pub fn renumber_lines(&mut self, first: LineIndex) {
        self.history.renumber(first);
    }

    fn apply_unwrap(&mut self) {
        if std::mem::take(&mut self.grid.unwrap_history) {
            self.history.unwrap_last();
        }
    }

    /// `screen_write_set_cursor()`: `None` leaves a coordinate; x may be
    /// the width (a wrap pending), anything larger becomes the last column.
    pub(crate) fn set_cursor(&mut self, x: Option<u32>, y: Option<u32>) {
        if let Some(x) = x {
            self.cx = if x > self.sx() { self.sx() - 1 } else { x };
        }
        if let Some(y) = y {
            self.cy = if y > self.sy() - 1 { self.sy() - 1 } else { y };
        }
    }

    // Styles.

    fn intern(&mut self, s: Style) -> u16 {
        if let Some(i) = self.styles.intern(s) {
            return i;
        }
        self.gc_styles();
        self.styles.intern(s).unwrap_or(0)
    }

    fn gc_styles(&mut self) {
        let grids = std::iter::once(&self.grid).chain(self.saved_grid.as_ref());
        let live: Vec<u16> = grids
            .flat_map(|g| {
                g.lines
                    .iter()
                    .flat_map(|l| l.cells.iter().map(|c| c.style()))
            })
            .collect();
        let map = self.styles.gc(live.into_iter());
        for g in std::iter::once(&mut self.grid).chain(self.saved_grid.as_mut()) {
            for l in &mut g.lines {
                for c in &mut l.cells {
                    *c = c.with_style(map.get(&c.style()).copied().unwrap_or(0));
                }
            }
        }
        self.pen_style = None;
    }

    fn gc_combined(&mut self) {
        let cells = (self.sx() as usize) * (self.sy() as usize);
        if self.combined.len() < 4096.max(cells * 4) {
            return;
        }
        let grids = std::iter::once(&self.grid).chain(self.saved_grid.as_ref());
        let live: Vec<u32> = grids
            .flat_map(|g| g.lines.iter().flat_map(|l| l.cells.iter()))
            .filter(|c| c.flags() & COMBINED != 0)
            .map(|c| c.code())
            .collect();
        let map = self.combined.gc(live.into_iter());
        for g in std::iter::once(&mut self.grid).chain(self.saved_grid.as_mut()) {
            for l in &mut g.lines {
                for c in &mut l.cells {
                    if c.flags() & COMBINED != 0 {
                        *c = c.with_code(map.get(&c.code()).copied().unwrap_or(0));
                    }
                }
            }
        }
    }

    fn pen_style_id(&mut self) -> u16 {
        if let Some(i) = self.pen_style {
            return i;
        }
        self.pen_bg = None;
        let i = self.intern(self.pen.style);
        self.pen_style = Some(i);
        i
    }

    fn bg_of(&mut self, colour: Colour) -> Bg {
        if colour == self.pen.style.bg {
            return self.pen_bg();
        }
        Bg {
            style: self.intern(Style::cleared(colour)),
            default: cell::colour_default(colour),
        }
    }

    /// The erase background: the pen's background colour (cached with the
    /// pen's style).
    fn pen_bg(&mut self) -> Bg {
        if self.pen_style.is_some()
            && let Some(bg) = self.pen_bg
        {
            return bg;
        }
        let colour = self.pen.style.bg;
        let bg = Bg {
            style: self.intern(Style::cleared(colour)),
            default: cell::colour_default(colour),
        };
        self.pen_style_id();
        self.pen_bg = Some(bg);
        bg
    }

    /// `screen_write_clear_cell()` (≥ 3.6 keeps the cell's background; older
    /// versions write the default cell).
    fn clear_cell(&mut self, x: u32) {
        let style = if self.rules == Rules::V36 {
            let bg = self.styles.get(self.grid.get(x, self.cy).style()).bg;
            self.intern(Style::cleared(bg))
        } else {
            0
        };
        self.grid
            .set(x, self.cy, Cell::new(u32::from(b' '), 1, 0, style));
    }

    fn padding_style(&mut self, style: u16) -> u16 {
        // The default style's background is the default: style 0 again.
        if self.rules == Rules::V36 && style != 0 {
            let bg = self.styles.get(style).bg;
            self.intern(Style::cleared(bg))
        } else {
            0
        }
    }

    fn reset_cell(&mut self) {
        self.pen = Pen::DEFAULT;
        self.pen_style = None;
        self.old = SavedState {
            pen: Pen::DEFAULT,
            cx: 0,
            cy: 0,
            origin: self.old.origin,
        };
    }

    // Scrolling.

    /// `grid_view_scroll_region_up()`.
    fn scroll_region_up(&mut self, bg: Bg) {
        let (up, lo) = (self.rupper, self.rlower);
        if self.history_enabled() {
            self.history.collect();
            self.push_history_row(up as usize);
            self.grid.rotate_up(up as usize, lo as usize);
            self.grid.lines[lo as usize].empty(bg);
        } else {
            self.grid.move_lines(up, up + 1, lo - up, bg);
            self.apply_unwrap();
        }
    }

    /// Moves screen row `y`'s text and flag to the end of history.
    fn push_history_row(&mut self, y: usize) {
        let acs = self.opts.dec_graphics == DecGraphics::Unicode;
        let line = &self.grid.lines[y];
        let combined = &self.combined;
        self.history
            .push_row_with(line.wrapped, |out| line.push_text(combined, acs, out));
    }

    /// `screen_write_linefeed()`.
    pub(crate) fn linefeed(&mut self, wrapped: bool, bg: Bg) {
        if wrapped {
            self.grid.lines[self.cy as usize].wrapped = true;
        }
        if self.cy != self.rlower {
            if self.cy < self.sy() - 1 {
                self.set_cursor(None, Some(self.cy + 1));
            }
            return;
        }
        self.scroll_region_up(bg);
    }

    /// `grid_view_clear_history()`: the used rows go to history.
    fn clear_into_history(&mut self, bg: Bg) {
        let last = self.grid.last_used();
        let (sx, sy) = (self.sx(), self.sy());
        if last == 0 {
            self.grid.clear(0, 0, sx, sy, bg);
            self.apply_unwrap();
            return;
        }
        for _ in 0..last {
            self.history.collect();
            self.push_history_row(0);
            self.grid.rotate_up(0, sy as usize - 1);
            self.grid.lines[sy as usize - 1].empty(bg);
        }
        if last < sy {
            self.grid.clear(0, 0, sx, sy - last, bg);
            self.apply_unwrap();
        }
    }

    // Writing characters.

    /// Printable ASCII through tmux's collection path
    /// (`screen_write_collect_add()` and `screen_write_collect_end()`).
    fn collect_ascii(&mut self, mut run: &[u8]) {
        let sx = self.sx();
        let style = self.pen_style_id();
        while !run.is_empty() {
            if self.cx > sx - 1 {
                self.linefeed(true, Bg::DEFAULT);
                self.set_cursor(Some(0), None);
            }
            let n = run.len().min((sx - self.cx) as usize);
            self.collect_end(&run[..n], style);
            run = &run[n..];
        }
    }

    /// `screen_write_collect_end()` for one row's worth of ASCII.
    fn collect_end(&mut self, bytes: &[u8], style: u16) {
        let (x0, y, sx) = (self.cx, self.cy, self.sx());
        if x0 != 0 {
            let mut xx = x0;
            if self.rules == Rules::V36 {
                while xx > 0 {
                    if !self.grid.get(xx, y).is_padding() {
                        break;
                    }
                    self.clear_cell(xx);
                    xx -= 1;
                }
                if xx != x0 {
                    let gc = self.grid.get(xx, y);
                    if gc.width() > 1 || gc.is_padding() {
                        self.clear_cell(xx);
                    }
                }
            } else {
                let mut gc = Cell::BLANK;
                while xx > 0 {
                    gc = self.grid.get(xx, y);
                    if !gc.is_padding() {
                        break;
                    }
                    self.grid.set(xx, y, Cell::BLANK);
                    xx -= 1;
                }
                if gc.width() > 1 {
                    self.grid.set(xx, y, Cell::BLANK);
                }
            }
        }
        self.grid.set_ascii(x0, y, bytes, style);
        self.set_cursor(Some(x0 + bytes.len() as u32), None);
        let mut xx = self.cx;
        while xx < sx && self.grid.get(xx, y).is_padding() {
            if self.rules == Rules::V36 {
                self.clear_cell(xx);
            } else {
                self.grid.set(xx, y, Cell::BLANK);
            }
            xx += 1;
        }
    }

    fn collectable(&self) -> bool {
        self.mode & MODE_WRAP != 0 && self.mode & MODE_INSERT == 0
    }

    /// `input_print()` for a run of printable ASCII.
    fn print_run(&mut self, run: &[u8]) {
        let Some(&b) = run.last() else { return };
        if self.pen.acs() || !self.collectable() {
            let style = self.pen_style_id();
            let flags = if self.pen.acs() { ACS } else { 0 };
            for &c in run {
                let data = [c];
                self.write_cell(&data, u32::from(c), 1, flags, style);
            }
        } else {
            self.collect_ascii(run);
        }
        self.last = Some(Last {
            cp: u32::from(b),
            width: 1,
        });
        self.pen.charset_attr = false;
    }

    /// The cell tmux ≥ 3.4 would join a character onto
    /// (`screen_write_combine()`): its column and the cell.
    fn join_target(&self) -> Option<(u32, Cell)> {
        let cx = self.cx;
        if cx == 0 {
            return None;
        }
        let mut n = 1;
        let mut last = self.grid.get(cx - 1, self.cy);
        if cx != 1 && last.is_padding() {
            n = 2;
            last = self.grid.get(cx - 2, self.cy);
        }
        (u32::from(last.width()) == n && !last.is_padding()).then_some((cx - n, last))
    }

    /// Appends `data` to the cell at column `x` (widening it to two cells
    /// if `widen`).
    fn join(&mut self, x: u32, mut last: Cell, data: &[u8], widen: bool) {
        if !last.is_tab() {
            self.scratch.clear();
            let mut bytes = std::mem::take(&mut self.scratch);
            last.push_data(&self.combined, &mut bytes);
            bytes.extend_from_slice(data);
            self.gc_combined();
            if widen {
                last = last.with_width(2);
            }
            if self.rules == Rules::V36 && bytes.len() == 32 {
                // tmux ≥ 3.6 keeps a cell's size in 5 bits (utf8.c
                // `UTF8_SET_SIZE()`): 32 bytes read back as none, and the
                // spilled bit turns a width of 1 into 2.
                bytes.clear();
                if last.width() == 1 {
                    last = last.with_width(2);
                }
            }
            last = last
                .with_code(self.combined.intern(&bytes))
                .with_flags(last.flags() | COMBINED);
            self.scratch = bytes;
        } else if widen {
            last = last.with_width(2);
        }
        self.grid.set(x, self.cy, last);
        if widen {
            let style = self.padding_style(last.style());
            self.grid.set(self.cx, self.cy, Cell::padding(style));
            // ≥ 3.7: a widened cell reaching past the window leaves the
            // cursor where it was.
            let hidden =
                self.rules == Rules::V36 && self.opts.at_window_right_edge && self.cx >= self.sx();
            if !hidden {
                self.set_cursor(Some(self.cx + 1), None);
            }
        }
    }

    /// tmux ≤ 3.3's `screen_write_combine()`: append to the nearest
    /// non-padding cell left of the cursor if the result fits in 21 bytes.
    fn join_v33(&mut self, data: &[u8]) {
        let cx = self.cx;
        let Some(n) = (1..=cx).find(|&n| !self.grid.get(cx - n, self.cy).is_padding()) else {
            return;
        };
        let last = self.grid.get(cx - n, self.cy);
        if last.size(&self.combined) + data.len() > self.rules.max_cell_bytes() {
            return;
        }
        self.join(cx - n, last, data, false);
    }

    /// `screen_write_cell()`: one cell of `width` columns holding `data`
    /// (code point `cp`; a TAB cell when `flags` has [`TAB`]).
    fn write_cell(&mut self, data: &[u8], cp: u32, width: u8, flags: u8, style: u16) {
        match self.rules {
            Rules::V33 => match self.v33.decide(cp, width) {
                V33Decision::Hold => return,
                V33Decision::Join { with_zwj } => {
                    if with_zwj {
                        self.join_v33("\u{200d}".as_bytes());
                    }
                    self.join_v33(data);
                    return;
                }
                V33Decision::New(_) => {}
            },
            _ => {
                let target = self.join_target();
                if let Some(limit) = width::new_cell_after(cp, width) {
                    let joinable = target.is_some_and(|(_, c)| {
                        c.flags() & COMBINED != 0 || c.code() == 0x200d || c.code() >= limit
                    });
                    if !joinable {
                        self.place(data, cp, width, flags, style);
                        return;
                    }
                }
                let mut buf = [0u8; 64];
                let prev = target.map(|(_, c)| {
                    let n = c.write_data(&self.combined, &mut buf);
                    Prev {
                        data: &buf[..n],
                        width: c.width(),
                    }
                });
                let vs16 = self.opts.variation_selector_always_wide;
                let widen = match width::decide(self.rules, prev, Char { data, cp, width }, vs16) {
                    Decision::Drop => return,
                    Decision::Join => false,
                    Decision::JoinWiden => true,
                    Decision::New(_) => {
                        self.place(data, cp, width, flags, style);
                        return;
                    }
                };
                if let Some((x, last)) = target {
                    self.join(x, last, data, widen);
                }
                return;
            }
        }
        self.place(data, cp, width, flags, style);
    }

    /// The part of `screen_write_cell()` after joining: wrap, overwrite,
    /// padding, the cell, the cursor.
    fn place(&mut self, data: &[u8], cp: u32, width: u8, flags: u8, style: u16) {
        let (sx, sy) = (self.sx(), self.sy());
        let w = u32::from(width);
        if self.mode & (MODE_WRAP | MODE_INSERT) == MODE_WRAP
            && flags & TAB == 0
            && (1..=4).contains(&data.len())
        {
            // The common case in one step (see `Grid::put_simple`).
            let cell = Cell::new(cp, width, flags & ACS, style);
            let pad = if w == 2 { self.padding_style(style) } else { 0 };
            if self.grid.put_simple(self.cx, self.cy, cell, pad, None) {
                self.cx += w;
                return;
            }
        }
        let wrap = self.mode & MODE_WRAP != 0;
        if !wrap && w > 1 && (w > sx || (self.cx != sx && self.cx > sx - w)) {
            return;
        }
        // tmux skips storing a cell that changes nothing; a default space
        // past the allocated cells is then not stored at all, and
        // `cellused` does not grow ("If no change, do not draw").
        let mut skip = true;
        if self.mode & MODE_INSERT != 0 {
            self.grid.insert_cells(self.cx, self.cy, w, Bg::DEFAULT);
            self.apply_unwrap();
            skip = false;
        }
        if wrap && self.cx > sx.wrapping_sub(w) {
            self.linefeed(true, Bg::DEFAULT);
            self.set_cursor(Some(0), None);
        }
        if self.cx > sx.wrapping_sub(w) || self.cy > sy - 1 {
            return;
        }
        let now = self.grid.get(self.cx, self.cy);
        if self.overwrite(now, w) {
            skip = false;
        }
        let pstyle = self.padding_style(style);
        for xx in self.cx + 1..self.cx + w {
            self.grid.set(xx, self.cy, Cell::padding(pstyle));
            skip = false;
        }
        let cell = if flags & TAB != 0 {
            Cell::new(u32::from(b' '), width, flags, style)
        } else if data.len() > 4 || data.is_empty() {
            // Not reached: new cells hold one character.
            Cell::BLANK
        } else {
            Cell::new(cp, width, flags & ACS, style)
        };
        let past_cells = self.cx >= self.grid.lines[self.cy as usize].cellsize;
        if !(skip && past_cells && cell == Cell::BLANK) {
            self.grid.set(self.cx, self.cy, cell);
        }
        let not_wrap = u32::from(!wrap);
        if self.cx <= sx.wrapping_sub(not_wrap).wrapping_sub(w) {
            self.set_cursor(Some(self.cx + w), None);
        } else {
            self.set_cursor(Some(sx - not_wrap), None);
        }
    }

    /// `screen_write_overwrite()`: clears the rest of any wide character
    /// the new cell covers part of.
    fn overwrite(&mut self, now: Cell, width: u32) -> bool {
        let (cx, sx) = (self.cx, self.sx());
        let mut done = false;
        let clear = |t: &mut Term, x: u32| {
            if t.rules == Rules::V36 {
                t.clear_cell(x);
            } else {
                t.grid.set(x, t.cy, Cell::BLANK);
            }
        };
        if now.is_padding() {
            let mut xx = cx + 1;
            loop {
                xx -= 1;
                if xx == 0 || !self.grid.get(xx, self.cy).is_padding() {
                    break;
                }
                clear(self, xx);
            }
            clear(self, xx);
            done = true;
        }
        if width != 1 || now.width() != 1 || now.is_padding() {
            let mut xx = cx.wrapping_add(width).wrapping_sub(1);
            loop {
                xx = xx.wrapping_add(1);
                if xx >= sx || !self.grid.get(xx, self.cy).is_padding() {
                    break;
                }
                clear(self, xx);
                done = true;
            }
        }
        done
    }

    /// A character that arrived as UTF-8, after decoding.
    fn print_char(&mut self, data: &[u8], cp: u32, width: u8) {
        let style = self.pen_style_id();
        let flags = if self.pen.charset_attr { ACS } else { 0 };
        self.write_cell(data, cp, width, flags, style);
        // tmux ≤ 3.3 repeats only ASCII (`ictx->last` is a byte there).
        self.last = (self.rules != Rules::V33).then_some(Last { cp, width });
    }

    /// `input_stop_utf8()`: ≥ 3.6 writes U+FFFD, older versions drop.
    fn replacement(&mut self) {
        if self.rules.replaces_invalid_utf8() {
            let style = self.pen_style_id();
            let flags = if self.pen.charset_attr { ACS } else { 0 };
            self.write_cell("\u{fffd}".as_bytes(), 0xfffd, 1, flags, style);
        }
    }

    // Cursor movement (screen-write.c).

    pub(crate) fn cursor_up(&mut self, ny: u32) {
        let mut ny = ny.max(1);
        let (mut cx, mut cy) = (self.cx, self.cy);
        if cy < self.rupper {
            ny = ny.min(cy);
        } else {
            ny = ny.min(cy - self.rupper);
        }
        if cx == self.sx() {
            cx -= 1;
        }
        cy -= ny;
        self.set_cursor(Some(cx), Some(cy));
    }

    pub(crate) fn cursor_down(&mut self, ny: u32) {
        let mut ny = ny.max(1);
        let (mut cx, mut cy) = (self.cx, self.cy);
        if cy > self.rlower {
            ny = ny.min(self.sy() - 1 - cy);
        } else {
            ny = ny.min(self.rlower - cy);
        }
        if cx == self.sx() {
            cx -= 1;
        } else if ny == 0 {
            return;
        }
        cy += ny;
        self.set_cursor(Some(cx), Some(cy));
    }

    pub(crate) fn cursor_right(&mut self, nx: u32) {
        let mut nx = nx.max(1);
        let lim = self.sx().wrapping_sub(1).wrapping_sub(self.cx);
        if nx > lim {
            nx = lim;
        }
        if nx == 0 {
            return;
        }
        self.set_cursor(Some(self.cx.saturating_add(nx)), None);
    }

    pub(crate) fn cursor_left(&mut self, nx: u32) {
        let nx = nx.max(1).min(self.cx);
        if nx == 0 {
            return;
        }
        self.set_cursor(Some(self.cx - nx), None);
    }

    fn backspace(&mut self) {
        let (mut cx, mut cy) = (self.cx, self.cy);
        if cx == 0 {
            if cy == 0 {
                return;
            }
            if self.grid.lines[cy as usize - 1].wrapped {
                cy -= 1;
                cx = self.sx() - 1;
            }
        } else {
            cx -= 1;
        }
        self.set_cursor(Some(cx), Some(cy));
    }

    /// `screen_write_cursormove()`: `None` keeps a coordinate.
    pub(crate) fn cursor_move(&mut self, px: Option<u32>, py: Option<u32>, origin: bool) {
        let mut py = py;
        if origin
            && self.mode & MODE_ORIGIN != 0
            && let Some(y) = py
        {
            py = Some(if y > self.rlower - self.rupper {
                self.rlower
            } else {
                y + self.rupper
            });
        }
        let px = px.map(|x| x.min(self.sx() - 1));
        let py = py.map(|y| y.min(self.sy() - 1));
        self.set_cursor(px, py);
    }

    fn tab(&mut self) {
        let sx = self.sx();
        let start = self.cx;
        if start >= sx - 1 {
            return;
        }
        let y = self.cy;
        let first = self.grid.get(start, y);
        let mut has_content = false;
        let mut cx = start;
        loop {
            if !has_content {
                let gc = self.grid.get(cx, y);
                if !gc.is_space() || !self.look_equal(gc, first) {
                    has_content = true;
                }
            }
            cx += 1;
            if self.tabs.get(cx as usize).copied().unwrap_or(false) {
                break;
            }
            if cx >= sx - 1 {
                break;
            }
        }
        let width = cx - start;
        if !self.rules.keeps_tabs() || has_content || width as usize > self.rules.max_cell_bytes() {
            self.cx = cx;
            return;
        }
        let gc = self.grid.get(start, y);
        let flags = TAB | (gc.flags() & ACS);
        // At most 32 columns (checked above).
        const SPACES: [u8; 32] = [b' '; 32];
        let data = SPACES.get(..width as usize).unwrap_or(&SPACES);
        self.write_cell(data, u32::from(b' '), width as u8, flags, gc.style());
    }

    /// The columns a TAB at column `x` of an empty row `sx` wide reaches
    /// over: to the next tab stop, or to the last column (as
    /// [`Term::tab`] lays it out).
    fn tab_width(&self, x: u32, sx: u32) -> u32 {
        let mut cx = x;
        loop {
            cx += 1;
            if self.tabs.get(cx as usize).copied().unwrap_or(false) || cx >= sx.saturating_sub(1) {
                return cx - x;
            }
        }
    }

    /// `grid_cells_look_equal()`.
    fn look_equal(&self, a: Cell, b: Cell) -> bool {
        let mask = !(CLEARED | COMBINED);
        a.style() == b.style() && (a.flags() & mask) == (b.flags() & mask)
    }

    fn reverse_index(&mut self, bg: Bg) {
        if self.cy != self.rupper {
            if self.cy > 0 {
                self.set_cursor(None, Some(self.cy - 1));
            }
            return;
        }
        self.grid.scroll_region_down(self.rupper, self.rlower, bg);
        self.apply_unwrap();
    }

    pub(crate) fn set_scroll_region(&mut self, rupper: u32, rlower: u32) {
        let sy = self.sy();
        let rupper = rupper.min(sy - 1);
        let rlower = rlower.min(sy - 1);
        if rupper >= rlower {
            return;
        }
        self.set_cursor(Some(0), Some(0));
        self.rupper = rupper;
        self.rlower = rlower;
    }

    // Editing (screen-write.c).

    /// ICH, DCH and ECH: `nx` cells at the cursor inserted, deleted or
    /// cleared, within the line.
    fn edit_characters(&mut self, edit: Edit, nx: u32, bg: Bg) {
        let nx = nx.max(1).min(self.sx().saturating_sub(self.cx));
        if nx == 0 || self.cx > self.sx() - 1 {
            return;
        }
        let (cx, cy) = (self.cx, self.cy);
        match edit {
            Edit::Insert => self.grid.insert_cells(cx, cy, nx, bg),
            Edit::Delete => self.grid.delete_cells(cx, cy, nx, bg),
            Edit::Clear => self.grid.clear(cx, cy, nx, 1, bg),
        }
        self.apply_unwrap();
    }

    /// IL and DL: `ny` lines at the cursor's inserted or deleted (ECH's
    /// clear is no line edit: nothing), within the scroll region when the
    /// cursor is in it.
    fn edit_lines(&mut self, edit: Edit, ny: u32, bg: Bg) {
        let (sy, cy) = (self.sy(), self.cy);
        let outside = cy < self.rupper || cy > self.rlower;
        let room = if outside {
            sy - cy
        } else {
            self.rlower + 1 - cy
        };
        let ny = ny.max(1).min(room);
        if ny == 0 {
            return;
        }
        match (edit, outside) {
            (Edit::Insert, true) => self.grid.insert_lines(cy, ny, bg),
            (Edit::Insert, false) => self.grid.insert_lines_region(self.rlower, cy, ny, bg),
            (Edit::Delete, true) => {
                self.grid.delete_lines(cy, ny, bg, self.rules != Rules::V36);
            }
            (Edit::Delete, false) => self.grid.delete_lines_region(self.rlower, cy, ny, bg),
            (Edit::Clear, _) => return,
        }
        self.apply_unwrap();
    }

    /// ED's erases (`CSI J`): to the end of the screen, from its start,
    /// all of it.
    const SCREEN_ERASES: [fn(&mut Term, Bg); 3] = [
        Term::clear_end_of_screen,
        Term::clear_start_of_screen,
        Term::clear_screen,
    ];

    /// EL's erases (`CSI K`), as [`Term::SCREEN_ERASES`] for the cursor's
    /// line.
    const LINE_ERASES: [fn(&mut Term, Bg); 3] = [
        Term::clear_end_of_line,
        Term::clear_start_of_line,
        Term::clear_line,
    ];

    /// ED's or EL's parameter `n`: 0 erases from the cursor to the end, 1
    /// from the start to the cursor, 2 all (`erases`, in that order);
    /// anything else nothing (input.c `input_csi_dispatch()`).
    fn erase(&mut self, n: Option<u32>, bg: Bg, erases: [fn(&mut Term, Bg); 3]) {
        if let Some(clear) = n.and_then(|n| erases.get(n as usize)) {
            clear(self, bg);
        }
    }

    fn clear_line(&mut self, bg: Bg) {
        let line = &self.grid.lines[self.cy as usize];
        if line.cellsize == 0 && bg.default {
            return;
        }
        let sx = self.sx();
        self.grid.clear(0, self.cy, sx, 1, bg);
        self.apply_unwrap();
    }

    fn clear_end_of_line(&mut self, bg: Bg) {
        if self.cx == 0 {
            self.clear_line(bg);
            return;
        }
        let sx = self.sx();
        if self.cx > sx - 1 {
            return;
        }
        self.grid.clear(self.cx, self.cy, sx - self.cx, 1, bg);
        self.apply_unwrap();
    }

    fn clear_start_of_line(&mut self, bg: Bg) {
        let sx = self.sx();
        if self.cx >= sx - 1 {
            self.clear_line(bg);
            return;
        }
        self.grid.clear(0, self.cy, self.cx + 1, 1, bg);
        self.apply_unwrap();
    }

    fn clear_end_of_screen(&mut self, bg: Bg) {
        let (sx, sy) = (self.sx(), self.sy());
        if self.cx == 0 && self.cy == 0 && self.history_enabled() && self.opts.scroll_on_clear {
            self.clear_into_history(bg);
            return;
        }
        if self.cx < sx {
            self.grid.clear(self.cx, self.cy, sx - self.cx, 1, bg);
            self.apply_unwrap();
        }
        self.grid.clear(0, self.cy + 1, sx, sy - (self.cy + 1), bg);
        self.apply_unwrap();
    }

    fn clear_start_of_screen(&mut self, bg: Bg) {
        let sx = self.sx();
        if self.cy > 0 {
            self.grid.clear(0, 0, sx, self.cy, bg);
            self.apply_unwrap();
        }
        if self.cx > sx - 1 {
            self.grid.clear(0, self.cy, sx, 1, bg);
        } else {
            self.grid.clear(0, self.cy, self.cx + 1, 1, bg);
        }
        self.apply_unwrap();
    }

    fn clear_screen(&mut self, bg: Bg) {
        if self.history_enabled() && self.opts.scroll_on_clear {
            self.clear_into_history(bg);
        } else {
            let (sx, sy) = (self.sx(), self.sy());
            self.grid.clear(0, 0, sx, sy, bg);
            self.apply_unwrap();
        }
    }

    fn scroll_up(&mut self, lines: u32, bg: Bg) {
        let lines = lines.max(1).min(self.rlower - self.rupper + 1);
        for _ in 0..lines {
            self.scroll_region_up(bg);
        }
    }

    fn scroll_down(&mut self, lines: u32, bg: Bg) {
        let lines = lines.max(1).min(self.rlower - self.rupper + 1);
        for _ in 0..lines {
            self.grid.scroll_region_down(self.rupper, self.rlower, bg);
            self.apply_unwrap();
        }
    }

    /// `screen_write_alignmenttest()` (DECALN).
    fn alignment_test(&mut self) {
        let (sx, sy) = (self.sx(), self.sy());
        for y in 0..sy {
            for x in 0..sx {
                self.grid.set(x, y, Cell::ascii(b'E', 0));
            }
        }
        self.set_cursor(Some(0), Some(0));
        self.rupper = 0;
        self.rlower = sy - 1;
    }

    /// `screen_write_reset()` (RIS, with `input_reset_cell()` first).
    fn full_reset(&mut self) {
        self.reset_cell();
        let sy = self.sy();
        self.tabs = default_tabs(self.sx());
        self.set_scroll_region(0, sy - 1);
        self.mode = MODE_WRAP;
        self.clear_screen(Bg::DEFAULT);
        self.set_cursor(Some(0), Some(0));
        self.state_reset();
    }

    /// `screen_alternate_on()`.
    fn alt_on(&mut self, cursor: bool) {
        if !self.opts.alternate_screen || self.saved_grid.is_some() {
            return;
        }
        self.saved_grid = Some(self.grid.clone());
        if cursor {
            self.saved_cursor = Some((self.cx, self.cy));
        }
        self.saved_style = self.pen.style;
        let (sx, sy) = (self.sx(), self.sy());
        self.grid.clear(0, 0, sx, sy, Bg::DEFAULT);
        self.apply_unwrap();
    }

    /// `screen_alternate_off()`.
    fn alt_off(&mut self, cursor: bool) {
        if !self.opts.alternate_screen {
            return;
        }
        if cursor && let Some((x, y)) = self.saved_cursor {
            self.cx = x;
            self.cy = y;
            self.pen.style = self.saved_style;
            self.pen_style = None;
        }
        if let Some(saved) = self.saved_grid.take() {
            if self.alt_size_unknown {
                // Seeded while the alternate screen was on: tmux does not
                // report the hidden screen's width, and if the pane was
                // resized meanwhile tmux reflows it now.
                self.reseed = true;
                self.alt_size_unknown = false;
            }
            if saved.sx == self.sx() && saved.sy == self.sy() {
                self.grid.lines = saved.lines;
            } else {
                // tmux resizes the restored screen to the pane's size with a
                // reflow (screen.c `screen_alternate_off()`), which is not
                // modelled: keep what fits and ask for a new seed.
                for (dst, src) in self.grid.lines.iter_mut().zip(saved.lines) {
                    let keep = dst.cells.len().min(src.cells.len());
                    dst.cells[..keep].copy_from_slice(&src.cells[..keep]);
                    dst.dirty = dst.cells.len() as u32;
                    dst.plain = false;
                    dst.used = src.used.min(self.grid.sx);
                    dst.wrapped = src.wrapped;
                    dst.cellsize = src.cellsize.min(self.grid.sx);
                }
                self.reseed = true;
            }
        }
        self.cx = self.cx.min(self.sx() - 1);
        self.cy = self.cy.min(self.sy() - 1);
    }

    // Dispatch (input.c).

    fn esc(&mut self, interm: &[u8], ch: u8) {
        match (ch, interm) {
            (b'0', b"(") => self.pen.g0 = true,
            (b'0', b")") => self.pen.g1 = true,
            (b'B', b"(") => self.pen.g0 = false,
            (b'B', b")") => self.pen.g1 = false,
            (b'7', b"") => self.save_state(),
            (b'8', b"") => self.restore_state(),
            (b'8', b"#") => self.alignment_test(),
            (b'=', b"") | (b'>', b"") | (b'\\', b"") => {}
            (b'D', b"") => {
                let bg = self.pen_bg();
                self.linefeed(false, bg);
            }
            (b'E', b"") => {
                self.set_cursor(Some(0), None);
                let bg = self.pen_bg();
                self.linefeed(false, bg);
            }
            (b'H', b"") => {
                if let Some(t) = self.tabs.get_mut(self.cx as usize) {
                    *t = true;
                }
            }
            (b'M', b"") => {
                let bg = self.pen_bg();
                self.reverse_index(bg);
            }
            (b'c', b"") => self.full_reset(),
            _ => return,
        }
        self.last = None;
    }

    /// DECSC and CSI s: the pen, cursor and origin mode saved
    /// (tmux's `input_save_state()`).
    fn save_state(&mut self) {
        self.old = SavedState {
            pen: self.pen,
            cx: self.cx,
            cy: self.cy,
            origin: self.mode & MODE_ORIGIN != 0,
        };
    }

    fn restore_state(&mut self) {
        self.pen = self.old.pen;
        self.pen_style = None;
        if self.old.origin {
            self.mode |= MODE_ORIGIN;
        } else {
            self.mode &= !MODE_ORIGIN;
        }
        self.cursor_move(Some(self.old.cx), Some(self.old.cy), false);
    }

    fn csi(&mut self, raw: &[u8], interm: &[u8], ch: u8) {
        let Some(params) = Params::split(raw) else {
            return;
        };
        let p = &params;
        let known = match (ch, interm) {
            (b'@' | b'A'..=b'H' | b'J' | b'K' | b'L' | b'M' | b'P' | b'S' | b'T', b"")
            | (b'X' | b'Z' | b'`' | b'b' | b'c' | b'd' | b'f' | b'g', b"")
            | (b'h' | b'l' | b'm' | b'n' | b'r' | b's' | b't' | b'u', b"")
            | (b'c' | b'm' | b'n' | b'q', b">")
            | (b'h' | b'l', b"?")
            | (b'q', b" ") => true,
            (b'S' | b'n', b"?") | (b'p', b"$") | (b'p', b"?$") => match self.rules {
                Rules::V33 => false,
                Rules::V34 => ch == b'S',
                Rules::V36 => true,
            },
            _ => false,
        };
        if !known {
            return;
        }
        let bg = self.pen.style.bg;
        match (ch, interm) {
            (b'Z', b"") => {
                let mut cx = self.cx.min(self.sx() - 1);
                let Some(mut n) = p.get(0, 1, 1) else {
                    return self.done();
                };
                while cx > 0 && n > 0 {
                    n -= 1;
                    loop {
                        cx -= 1;
                        if cx == 0 || self.tabs.get(cx as usize).copied().unwrap_or(false) {
                            break;
                        }
                    }
                }
                self.cx = cx;
            }
            (b'D', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.cursor_left(n);
                }
            }
            (b'B', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.cursor_down(n);
                }
            }
            (b'C', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.cursor_right(n);
                }
            }
            (b'H' | b'f', b"") => {
                if let (Some(n), Some(m)) = (p.get(0, 1, 1), p.get(1, 1, 1)) {
                    self.cursor_move(Some(m - 1), Some(n - 1), true);
                }
            }
            (b'A', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.cursor_up(n);
                }
            }
            (b'E', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.set_cursor(Some(0), None);
                    self.cursor_down(n);
                }
            }
            (b'F', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.set_cursor(Some(0), None);
                    self.cursor_up(n);
                }
            }
            (b'@' | b'P' | b'X' | b'L' | b'M', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    let bg = self.bg_of(bg);
                    match ch {
                        b'@' => self.edit_characters(Edit::Insert, n, bg),
                        b'P' => self.edit_characters(Edit::Delete, n, bg),
                        b'X' => self.edit_characters(Edit::Clear, n, bg),
                        b'L' => self.edit_lines(Edit::Insert, n, bg),
                        _ => self.edit_lines(Edit::Delete, n, bg),
                    }
                }
            }
            (b'r', b"") => {
                let sy = self.sy();
                if let (Some(n), Some(m)) = (p.get(0, 1, 1), p.get(1, 1, sy)) {
                    self.set_scroll_region(n - 1, m - 1);
                }
            }
            (b'J', b"") => {
                let bg = self.bg_of(bg);
                match p.get(0, 0, 0) {
                    Some(3) if p.get(1, 0, 0) == Some(0) => self.history.clear(),
                    n => self.erase(n, bg, Term::SCREEN_ERASES),
                }
            }
            (b'K', b"") => {
                let bg = self.bg_of(bg);
                self.erase(p.get(0, 0, 0), bg, Term::LINE_ERASES);
            }
            (b'G' | b'`', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.cursor_move(Some(n - 1), None, true);
                }
            }
            (b'b', b"") => self.repeat(p),
            (b'u', b"") => self.restore_state(),
            (b's', b"") => self.save_state(),
            (b'm', b"") => self.sgr(p),
            (b'h', b"") => self.set_modes(p, true),
            (b'l', b"") => self.set_modes(p, false),
            (b'h', b"?") => self.set_private_modes(p, true),
            (b'l', b"?") => self.set_private_modes(p, false),
            (b'S', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    let bg = self.bg_of(bg);
                    self.scroll_up(n, bg);
                }
            }
            (b'T', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    let bg = self.bg_of(bg);
                    self.scroll_down(n, bg);
                }
            }
            (b'g', b"") => match p.get(0, 0, 0) {
                Some(0) => {
                    if let Some(t) = self.tabs.get_mut(self.cx as usize) {
                        *t = false;
                    }
                }
                Some(3) => self.tabs.fill(false),
                _ => {}
            },
            (b'd', b"") => {
                if let Some(n) = p.get(0, 1, 1) {
                    self.cursor_move(None, Some(n - 1), true);
                }
            }
            _ => {}
        }
        self.done();
    }

    /// The end of a dispatched sequence: `INPUT_LAST` is cleared.
    fn done(&mut self) {
        self.last = None;
    }

    /// `REP`.
    fn repeat(&mut self, p: &Params) {
        let Some(n) = p.get(0, 1, 1) else { return };
        let m = self.sx().saturating_sub(self.cx);
        let n = n.min(m);
        let Some(last) = self.last else { return };
        if last.cp < 0x80 {
            let run = vec![last.cp as u8; n as usize];
            self.print_run(&run);
            if self.rules != Rules::V33 {
                // REP leaves the pen's charset attribute set (input.c).
                self.pen.charset_attr = self.pen.acs();
            }
        } else {
            let mut data = Vec::with_capacity(4);
            width::push_code_point(&mut data, last.cp);
            let style = self.pen_style_id();
            self.pen.charset_attr = self.pen.acs();
            let flags = if self.pen.acs() { ACS } else { 0 };
            for _ in 0..n {
                self.write_cell(&data, last.cp, last.width, flags, style);
            }
        }
    }

    fn set_modes(&mut self, p: &Params, on: bool) {
        for i in 0..p.len() {
            if p.get(i, 0, u32::MAX) == Some(4) {
                if on {
                    self.mode |= MODE_INSERT;
                } else {
                    self.mode &= !MODE_INSERT;
                }
            }
        }
    }

    fn set_private_modes(&mut self, p: &Params, on: bool) {
        for i in 0..p.len() {
            let n = p.get(i, 0, u32::MAX);
            if let Some(n @ (25 | 1000..=1006 | 2004 | 2026)) = n {
                self.state_private_mode(n, on);
            }
            match n {
                Some(3) => {
                    self.cursor_move(Some(0), Some(0), true);
                    let bg = self.pen_bg();
                    self.clear_screen(bg);
                }
                Some(6) => {
                    if on {
                        self.mode |= MODE_ORIGIN;
                    } else {
                        self.mode &= !MODE_ORIGIN;
                    }
                    self.cursor_move(Some(0), Some(0), true);
                }
                Some(7) => {
                    if on {
                        self.mode |= MODE_WRAP;
                    } else {
                        self.mode &= !MODE_WRAP;
                    }
                }
                Some(47) | Some(1047) => {
                    if on {
                        self.alt_on(false);
                    } else {
                        self.alt_off(false);
                    }
                }
                Some(1049) => {
                    if on {
                        self.alt_on(true);
                    } else {
                        self.alt_off(true);
                    }
                }
                _ => {}
            }
        }
    }

    /// `input_csi_dispatch_sgr()`.
    fn sgr(&mut self, p: &Params) {
        self.pen_style = None;
        let v33 = self.rules == Rules::V33;
        let gc = &mut self.pen.style;
        if p.len() == 0 {
            *gc = Style::DEFAULT;
            self.pen.charset_attr = false;
            return;
        }
        const UNDERSCORES: u16 = 0x4 | 0x200 | 0x400 | 0x800 | 0x1000;
        let mut reset_charset = false;
        let mut i = 0;
        while i < p.len() {
            if let Some(s) = p.string(i) {
                sgr_colon(gc, s);
                i += 1;
                continue;
            }
            let Some(n) = p.get(i, 0, 0) else {
                i += 1;
                continue;
            };
            if n == 38 || n == 48 || n == 58 {
                i += 1;
                match p.get(i, 0, u32::MAX) {
                    Some(2) => {
                        let rgb = (
                            p.get(i + 1, 0, u32::MAX),
                            p.get(i + 2, 0, u32::MAX),
                            p.get(i + 3, 0, u32::MAX),
                        );
                        if sgr_rgb(gc, n, rgb) {
                            i += 3;
                        }
                    }
                    Some(5) => {
                        let c = p.get(i + 1, 0, u32::MAX);
                        sgr_256(gc, n, c);
                        i += 1;
                    }
                    _ => {}
                }
                i += 1;
                continue;
            }
            match n {
                0 => {
                    let link = gc.link;
                    *gc = Style::DEFAULT;
                    if !v33 {
                        gc.link = link;
                    }
                    reset_charset = true;
                }
                1 => gc.attr |= 0x1,
                2 => gc.attr |= 0x2,
                3 => gc.attr |= 0x40,
                4 => gc.attr = (gc.attr & !UNDERSCORES) | 0x4,
                5 | 6 => gc.attr |= 0x8,
                7 => gc.attr |= 0x10,
                8 => gc.attr |= 0x20,
                9 => gc.attr |= 0x100,
                21 => gc.attr = (gc.attr & !UNDERSCORES) | 0x200,
                22 => gc.attr &= !0x3,
                23 => gc.attr &= !0x40,
                24 => gc.attr &= !UNDERSCORES,
                25 => gc.attr &= !0x8,
                27 => gc.attr &= !0x10,
                28 => gc.attr &= !0x20,
                29 => gc.attr &= !0x100,
                30..=37 => gc.fg = n - 30,
                39 => gc.fg = 8,
                40..=47 => gc.bg = n - 40,
                49 => gc.bg = 8,
                53 => gc.attr |= 0x2000,
                55 => gc.attr &= !0x2000,
                59 => gc.us = 8,
                90..=97 => gc.fg = n,
                100..=107 => gc.bg = n - 10,
                _ => {}
            }
            i += 1;
        }
        if reset_charset {
            self.pen.charset_attr = false;
        }
    }

    /// `input_exit_osc()`: only OSC 8 (hyperlinks, ≥ 3.4) changes the pen;
    /// marks, the working directory, the title and progress go to the
    /// state kept beside the grid ([`super::state`]), whatever the
    /// version (tmux passes them through in `%output`).
    fn osc(&mut self, data: &[u8], discard: bool) {
        if discard {
            return;
        }
        if data.first() != Some(&b'8') {
            self.state_osc(data);
            return;
        }
        if self.rules == Rules::V33 {
            return;
        }
        let Some(rest) = data.strip_prefix(b"8") else {
            return;
        };
        let p = match rest.first() {
            Some(b';') => &rest[1..],
            None => rest,
            Some(_) => return,
        };
        // input_osc_8(): parameters up to the first ';', then the URI.
        let Some(semi) = p.iter().position(|&b| b == b';') else {
            return;
        };
        let (params, uri) = (&p[..semi], &p[semi + 1..]);
        let mut id: Option<&[u8]> = None;
        for part in params.split(|&b| b == b':') {
            if part.len() >= 4 && part.starts_with(b"id=") {
                if id.is_some() {
                    return;
                }
                id = Some(&part[3..]);
            }
        }
        self.pen_style = None;
        if uri.is_empty() {
            self.pen.style.link = 0;
            return;
        }
        if self.rules == Rules::V36 && uri.len() > 1024 {
            self.pen.style.link = 0;
            return;
        }
        let link = match id {
            Some(id) if !id.is_empty() => {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                id.hash(&mut h);
                uri.hash(&mut h);
                let key = h.finish();
                if self.links.len() > 10_000 {
                    self.links.clear();
                }
                let next = &mut self.next_link;
                *self.links.entry(key).or_insert_with(|| {
                    *next += 1;
                    *next
                })
            }
            _ => {
                self.next_link += 1;
                self.next_link
            }
        };
        self.pen.style.link = link;
    }
}

/// `input_csi_dispatch_sgr_256_do()`.
fn sgr_256(gc: &mut Style, fgbg: u32, c: Option<u32>) {
    match c {
        Some(c) if c <= 255 => match fgbg {
            38 => gc.fg = c | 0x0100_0000,
            48 => gc.bg = c | 0x0100_0000,
            _ => gc.us = c | 0x0100_0000,
        },
        _ => match fgbg {
            38 => gc.fg = 8,
            48 => gc.bg = 8,
            _ => {}
        },
    }
}

/// `input_csi_dispatch_sgr_rgb_do()`.
fn sgr_rgb(gc: &mut Style, fgbg: u32, rgb: (Option<u32>, Option<u32>, Option<u32>)) -> bool {
    let (Some(r), Some(g), Some(b)) = rgb else {
        return false;
    };
    if r > 255 || g > 255 || b > 255 {
        return false;
    }
    let c = 0x0200_0000 | (r << 16) | (g << 8) | b;
    match fgbg {
        38 => gc.fg = c,
        48 => gc.bg = c,
        _ => gc.us = c,
    }
    true
}

/// `input_csi_dispatch_sgr_colon()`.
fn sgr_colon(gc: &mut Style, s: &[u8]) {
    const UNDERSCORES: u16 = 0x4 | 0x200 | 0x400 | 0x800 | 0x1000;
    let mut p: [Option<u32>; 8] = [None; 8];
    let mut n = 0;
    for part in s.split(|&b| b == b':') {
        if !part.is_empty() {
            let Some(v) = parse_int(part) else { return };
            p[n] = Some(v);
        }
        n += 1;
        if n == p.len() {
            return;
        }
    }
    if n == 0 {
        return;
    }
    if p[0] == Some(4) {
        if n != 2 {
            return;
        }
        let u = match p[1] {
            Some(0) => 0,
            Some(1) => 0x4,
            Some(2) => 0x200,
            Some(3) => 0x400,
            Some(4) => 0x800,
            Some(5) => 0x1000,
            _ => return,
        };
        gc.attr = (gc.attr & !UNDERSCORES) | u;
        return;
    }
    let Some(which) = p[0].filter(|&v| v == 38 || v == 48 || v == 58) else {
        return;
    };
    if n < 2 {
        return;
    }
    match p[1] {
        Some(2) => {
            if n < 3 {
                return;
            }
            let i = if n == 5 { 2 } else { 3 };
            if n < i + 3 {
                return;
            }
            sgr_rgb(gc, which, (p[i], p[i + 1], p[i + 2]));
        }
        Some(5) => {
            if n < 3 {
                return;
            }
            sgr_256(gc, which, p[2]);
        }
        _ => {}
    }
}

/// `strtonum(s, 0, INT_MAX)` on digits.
fn parse_int(s: &[u8]) -> Option<u32> {
    let mut v: u64 = 0;
    if s.is_empty() {
        return None;
    }
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
        if v > i32::MAX as u64 {
            return None;
        }
    }
    Some(v as u32)
}

/// The parameters of a CSI sequence (`input_split()`), read from the raw
/// parameter bytes (at most 63) when asked, so nothing is copied around.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params<'a> {
    raw: &'a [u8],
    len: usize,
}

impl<'a> Params<'a> {
    /// `input_split()`: `None` when tmux gives up on the sequence (a
    /// number above `INT_MAX`, 24 or more parameters).
    fn split(raw: &'a [u8]) -> Option<Params<'a>> {
        if raw.is_empty() {
            return Some(Params { raw, len: 0 });
        }
        let mut len = 0;
        for part in raw.split(|&b| b == b';') {
            if !part.is_empty() && !part.contains(&b':') {
                parse_int(part)?;
            }
            len += 1;
            if len == 24 {
                return None;
            }
        }
        Some(Params { raw, len })
    }

    fn len(&self) -> usize {
        self.len
    }

    fn part(&self, i: usize) -> Option<&'a [u8]> {
        if i >= self.len {
            return None;
        }
        self.raw.split(|&b| b == b';').nth(i)
    }

    /// `input_get()`: `None` for a string parameter (tmux's `-1`).
    fn get(&self, i: usize, min: u32, default: u32) -> Option<u32> {
        match self.part(i) {
            None | Some([]) => Some(default),
            Some(p) if p.contains(&b':') => None,
            Some(p) => Some(parse_int(p).unwrap_or(0).max(min)),
        }
    }

    fn string(&self, i: usize) -> Option<&'a [u8]> {
        self.part(i).filter(|p| p.contains(&b':'))
    }
}

impl Handler for Term {
    fn print_ascii(&mut self, run: &[u8]) {
        self.print_run(run);
    }

    fn utf8_start(&mut self) {
        self.last = None;
    }

    fn print_utf8_run(&mut self, run: &[u8]) {
        // Characters that take new cells of their own (no joining, no
        // wrapping, nothing to overwrite) go straight to the grid; the
        // rest through `print_utf8()`.
        let style = self.pen_style_id();
        let flags = if self.pen.charset_attr { ACS } else { 0 };
        let simple = self.mode & (MODE_WRAP | MODE_INSERT) == MODE_WRAP;
        let mut pad = None;
        let mut i = 0;
        while let Some(&lead) = run.get(i) {
            let n = match lead {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let data = run.get(i..i + n).unwrap_or(&run[i..]);
            i += n;
            if simple
                && let Some(cp) = width::first_code_point(data)
                && let Some(w) = width::char_width(cp, self.rules)
            {
                // The previous cells' limit (see `Grid::put_simple`);
                // `Some(None)`: tmux ≤ 3.3 joins only by the
                // character.
                let fast = match self.rules {
                    Rules::V33 => {
                        (w > 0 && cp != 0x200d && self.v33 == V33Joiner::default()).then_some(None)
                    }
                    _ => width::new_cell_after(cp, w).map(Some),
                };
                if let (Some(prev_below), true) = (fast, w <= 2) {
                    let pad = if w == 2 {
                        *pad.get_or_insert_with(|| self.padding_style(style))
                    } else {
                        0
                    };
                    let cell = Cell::new(cp, w, flags, style);
                    if self
                        .grid
                        .put_simple(self.cx, self.cy, cell, pad, prev_below)
                    {
                        self.cx += u32::from(w);
                        self.last = (self.rules != Rules::V33).then_some(Last { cp, width: w });
                        continue;
                    }
                }
            }
            self.last = None;
            self.print_utf8(data, false);
        }
    }

    fn print_utf8(&mut self, data: &[u8], bad: bool) {
        let decoded = if bad {
            None
        } else {
            width::first_code_point(data)
        };
        let Some(cp) = decoded else {
            self.replacement();
            return;
        };
        let Some(w) = width::char_width(cp, self.rules) else {
            self.replacement();
            return;
        };
        self.print_char(data, cp, w);
    }

    fn invalid_utf8(&mut self) {
        self.last = None;
        self.replacement();
    }

    fn execute(&mut self, b: u8) {
        match b {
            0x08 => self.backspace(),
            0x09 => self.tab(),
            0x0a..=0x0c => {
                let bg = self.pen_bg();
                self.linefeed(false, bg);
            }
            0x0d => self.set_cursor(Some(0), None),
            0x0e => self.pen.shift = true,
            0x0f => self.pen.shift = false,
            // input_c0_dispatch: '\a' → alerts_queue(WINDOW_BELL).
            0x07 => self.state.bells = self.state.bells.wrapping_add(1),
            _ => {}
        }
        self.last = None;
    }

    fn esc_dispatch(&mut self, interm: &[u8], ch: u8, discard: bool) {
        if !discard {
            self.esc(interm, ch);
        }
    }

    fn csi_dispatch(&mut self, params: &[u8], interm: &[u8], ch: u8, discard: bool) {
        if !discard {
            self.csi(params, interm, ch);
        }
    }

    fn osc_dispatch(&mut self, data: &[u8], discard: bool) {
        self.osc(data, discard);
    }

    fn string_start(&mut self) {
        self.last = None;
    }
}
