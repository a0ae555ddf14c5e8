//! Building a [`Term`] for a pane that already has content, from what
//! tmux reports about it in one batch of commands. Pure.
//!
//! The mirror starts watching panes mid-life; it asks tmux for the pane's
//! text and state once, builds a `Term` with [`Seed::from_captures`], and
//! feeds it every `%output` that follows. The same path re-seeds a pane
//! after a resize (tmux reflows the text; the mirror does not).
//!
//! # The commands
//!
//! Run them in one batch (one `write()`, so tmux runs them back to back,
//! with no pane output parsed in between), each capture into a named
//! buffer read back byte-exact (`show-buffer`; tmux ≤ 3.3 escapes it, see
//! the README) and deleted:
//!
//! ```text
//! display-message -p -t P '<Seed::FORMAT>'            → formats
//! capture-pane -t P -e -N -T -S - -E - -b B1          → rows    (≤ 3.3: no -T)
//! capture-pane -t P -J -S - -E - -b B2                → joined
//! capture-pane -t P -a -e -N -T -q -b B3              → saved_rows    (only if alternate_on)
//! capture-pane -t P -a -J -q -b B4                    → saved_joined  (only if alternate_on)
//! capture-pane -t P -P -b B5                          → pending
//! ```
//!
//! * `-e` keeps colours, attributes, hyperlinks and the DEC graphics shift
//!   (`SO`/`SI`), so DEC line-drawing cells and the styles tmux ≥ 3.6
//!   compares for TAB cells are known.
//! * `-N -T` print each row up to tmux's `cellused` with its trailing
//!   spaces (≤ 3.3 always stops at `cellused`, and has no `-T`).
//! * `-J` into a *buffer*: the joined text tells which rows are wrapped,
//!   and a buffer (unlike `-p`) has no newline after a wrapped last row.
//!   `capture-pane -p` prints the buffer's bytes with one trailing newline
//!   removed and one added, so the two differ only there.
//! * With tmux ≥ 3.7, `-F` may be added to the `rows` capture: each row is
//!   then prefixed with its flags (`W` = wrapped) and `joined` is not
//!   needed (set [`Captures::rows_have_flags`]). Without it, an empty row
//!   next to a wrap is ambiguous (both ways print the same); the seed then
//!   takes the row before the empty one as not wrapped.
//! * An empty capture creates no buffer: pass `b""`.
//! * `-P` gives the bytes of an escape sequence tmux is in the middle of;
//!   they are fed to the new `Term` so it continues that sequence.
//!
//! # What a seed cannot know
//!
//! tmux does not report the pen (colours, attributes) nor the character
//! sets (`ESC ( 0`, SO), the DECSC state, a half-read UTF-8 character, the
//! character `REP` would repeat, or (3.3) a held-back ZWJ. The seeded
//! `Term` starts with all of them reset, so a program that switched to DEC
//! graphics before the seed and keeps drawing after it is mirrored as
//! ASCII letters until it switches again. A cell whose 32 bytes tmux reads
//! back as empty (≥ 3.6) prints nothing and is lost, shifting the cells
//! after it.

use std::borrow::Cow;
use std::fmt;

use super::grid::{Grid, Line};
use super::index::LineIndex;
use super::plain::{code_len, strip_row};
use super::screen::{MODE_INSERT, MODE_ORIGIN, MODE_WRAP, Options, Term};
use super::width::Rules;

/// The `display-message` format a seed reads: 14 comma-separated numbers,
/// then `;` and `#{pane_tabs}`.
pub const FORMAT: &str = "#{pane_width},#{pane_height},#{cursor_x},#{cursor_y},\
#{history_size},#{history_limit},#{alternate_on},#{alternate_saved_x},\
#{alternate_saved_y},#{scroll_region_upper},#{scroll_region_lower},\
#{wrap_flag},#{insert_flag},#{origin_flag};#{pane_tabs}";

/// The format fields that report a pane's private modes
/// ([`super::PrivateModes`]) on a tmux version, comma-separated, for
/// [`parse_modes`]. From format.c: `cursor_flag` and the
/// `mouse_{standard,button,utf8}_flag`s since 1.8, `mouse_all_flag` 2.4,
/// `mouse_sgr_flag` 3.1 (all in every supported version);
/// `bracket_paste_flag` and `synchronized_output_flag` since 3.7
/// (`paste_and_sync`); `pane_private_modes` (every DEC mode set, which
/// alone tells `?1004`) since 3.8 (`private_modes`). `pane_in_mode`
/// comes too: `bracket_paste_flag` reads the pane's current screen, which
/// in copy mode is the mode's, not the program's.
pub fn modes_format(paste_and_sync: bool, private_modes: bool) -> String {
    let mut f = String::from(
        "#{cursor_flag},#{mouse_standard_flag},#{mouse_button_flag},#{mouse_all_flag},\
#{mouse_utf8_flag},#{mouse_sgr_flag},#{pane_in_mode}",
    );
    if paste_and_sync {
        f.push_str(",#{bracket_paste_flag},#{synchronized_output_flag}");
    }
    if private_modes {
        // Last: its value holds commas.
        f.push_str(",#{pane_private_modes}");
    }
    f
}

/// Reads the fields [`modes_format`] asked for (`fields`: the record's
/// comma-separated values from the first one on, the format's flags
/// given again). A field that is not `0` or `1` is unknown; a short
/// record leaves the rest unknown.
pub fn parse_modes(
    fields: &[&str],
    paste_and_sync: bool,
    private_modes: bool,
) -> super::PrivateModes {
    let flag = |i: usize| match fields.get(i).map(|s| s.trim()) {
        Some("1") => Some(true),
        Some("0") => Some(false),
        _ => None,
    };
    let mut m = super::PrivateModes {
        cursor_visible: flag(0),
        mouse_standard: flag(1),
        mouse_button: flag(2),
        mouse_all: flag(3),
        mouse_utf8: flag(4),
        mouse_sgr: flag(5),
        ..Default::default()
    };
    let in_mode = flag(6) != Some(false);
    let mut next = 7;
    if paste_and_sync {
        if !in_mode {
            m.bracketed_paste = flag(next);
        }
        m.synchronized_output = flag(next + 1);
        next += 2;
    }
    if private_modes && fields.len() > next {
        let list = fields[next..].join(",");
        let listed = super::PrivateModes::from_private_modes_list(&list);
        // The flags read above agree with it; only what it alone says is
        // taken (it is the base screen's, copy mode or not).
        m.focus_events = listed.focus_events;
        if listed.bracketed_paste.is_some() {
            m.bracketed_paste = listed.bracketed_paste;
        }
    }
    m
}

/// The raw outputs of the seed commands (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct Captures<'a> {
    /// The output of `display-message -p '<FORMAT>'` (one line).
    pub formats: &'a str,
    /// `capture-pane -e -N -T -S - -E -`: every history and screen row;
    /// with [`Captures::screen_rows`], only the history rows
    /// (`-N -T -S - -E -1`, with or without `-e`; when the history is
    /// empty tmux prints one screen row there, which is ignored).
    pub rows: &'a [u8],
    /// `capture-pane -e -N -T -S 0 -E -`: the screen rows in a capture of
    /// their own (their codes start from the default style), or `None`
    /// when `rows` has them.
    pub screen_rows: Option<&'a [u8]>,
    /// Whether `rows` was captured with `-F` (tmux ≥ 3.7).
    pub rows_have_flags: bool,
    /// `capture-pane -J -S - -E -` into a buffer (unused with flags); with
    /// [`Captures::history_joined`], `-J -S 0 -E -`: the screen only.
    pub joined: &'a [u8],
    /// `capture-pane -J -S - -E -1` into a buffer: the history as logical
    /// lines, their rows laid out again by tmux's width rules
    /// ([`crate::term::width::row_breaks`]) rather than captured, so `rows` is
    /// unused. One capture of the history instead of two (tmux < 3.7 has
    /// no `-F`). The lines are tmux's; their rows are wherever a wrapped
    /// row holds what the rules put in it, which is how tmux writes text.
    /// A wrapped row that ends in cells the program skipped (a TAB before
    /// 3.6, a cursor move) or erased, or a cell whose joiners the text
    /// alone does not decide, can make a line's rows split elsewhere: when
    /// that changes the row count the seed fails ([`SeedError::is_layout`]),
    /// otherwise only [`history_rows_match`] against tmux's rows tells.
    pub history_joined: Option<&'a [u8]>,
    /// `capture-pane -a -e -N -T -q` when the alternate screen is on.
    pub saved_rows: &'a [u8],
    /// `capture-pane -a -J -q` into a buffer when the alternate screen is on.
    pub saved_joined: &'a [u8],
    /// `capture-pane -P`: the unfinished escape sequence, if any.
    pub pending: &'a [u8],
    /// The history was not captured (a seed that follows a pane without
    /// reading its history): `rows` and `history_joined` are unused, the
    /// copy holds no history and counts tmux's `history_size` rows as
    /// [absent](super::History::absent).
    pub history_absent: bool,
}

/// Why captures could not be made into a [`Term`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedError {
    msg: String,
    layout: bool,
}

impl SeedError {
    /// A layout failure ([`SeedError::is_layout`]), for tests that model
    /// the mirror's check of a seeded copy's rows.
    #[doc(hidden)]
    pub fn layout_for_tests() -> SeedError {
        SeedError {
            msg: "the history's rows are not tmux's".into(),
            layout: true,
        }
    }

    /// Whether the history, given as lines
    /// ([`Captures::history_joined`]), laid out as another number of rows
    /// than tmux has: the rows must be captured instead.
    pub fn is_layout(&self) -> bool {
        self.layout
    }
}

impl fmt::Display for SeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot seed the pane mirror: {}", self.msg)
    }
}

impl std::error::Error for SeedError {}

fn err(msg: impl Into<String>) -> SeedError {
    SeedError {
        msg: msg.into(),
        layout: false,
    }
}

/// The pane state a seed reads from [`FORMAT`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seed {
    /// Width and height in cells.
    pub width: u32,
    /// Height in cells.
    pub height: u32,
    /// `#{cursor_x}` (equal to the width when a wrap is pending).
    pub cursor_x: u32,
    /// `#{cursor_y}`.
    pub cursor_y: u32,
    /// `#{history_size}` in rows.
    pub history_size: usize,
    /// `#{history_limit}` in rows.
    pub history_limit: usize,
    /// `#{alternate_on}`.
    pub alternate_on: bool,
    /// `#{alternate_saved_x}`, `#{alternate_saved_y}` (tmux prints
    /// 4294967295 when none is saved).
    pub alternate_saved: Option<(u32, u32)>,
    /// `#{scroll_region_upper}`, `#{scroll_region_lower}`.
    pub scroll_region: (u32, u32),
    /// `#{wrap_flag}`, `#{insert_flag}`, `#{origin_flag}`.
    pub wrap: bool,
    /// IRM.
    pub insert: bool,
    /// DECOM.
    pub origin: bool,
    /// `#{pane_tabs}`: tab stop columns.
    pub tabs: Vec<u32>,
}

impl Seed {
    /// The format to pass to `display-message -p`.
    pub const FORMAT: &'static str = FORMAT;

    /// Parses the output of `display-message -p '<FORMAT>'`.
    ///
    /// # Errors
    ///
    /// When the line does not have the fields [`FORMAT`] produces.
    pub fn parse_formats(line: &str) -> Result<Seed, SeedError> {
        let line = line.trim_end_matches(['\n', '\r']);
        let (nums, tabs) = line
            .split_once(';')
            .ok_or_else(|| err("no ';' in the formats"))?;
        let v: Vec<u64> = nums
            .split(',')
            .map(|f| {
                f.trim()
                    .parse::<u64>()
                    .map_err(|_| err(format!("bad number {f:?}")))
            })
            .collect::<Result<_, _>>()?;
        if v.len() != 14 {
            return Err(err(format!("expected 14 numbers, got {}", v.len())));
        }
        let u = |i: usize| u32::try_from(v[i]).map_err(|_| err("number too large"));
        let tabs = tabs
            .split(',')
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.trim()
                    .parse::<u32>()
                    .map_err(|_| err(format!("bad tab stop {t:?}")))
            })
            .collect::<Result<_, _>>()?;
        let saved = (v[7] < u64::from(u32::MAX) && v[8] < u64::from(u32::MAX))
            .then(|| (v[7] as u32, v[8] as u32));
        let seed = Seed {
            width: u(0)?,
            height: u(1)?,
            cursor_x: u(2)?,
            cursor_y: u(3)?,
            history_size: v[4] as usize,
            history_limit: v[5] as usize,
            alternate_on: v[6] != 0,
            alternate_saved: saved,
            scroll_region: (u(9)?, u(10)?),
            wrap: v[11] != 0,
            insert: v[12] != 0,
            origin: v[13] != 0,
            tabs,
        };
        if seed.width == 0 || seed.height == 0 || seed.width > 10_000 || seed.height > 10_000 {
            return Err(err(format!("bad size {}x{}", seed.width, seed.height)));
        }
        // tmux never sets a region of one row (screen-write.c
        // `screen_write_scrollregion()`: "cannot be one line"); only a
        // pane one row high has one.
        let (upper, lower) = seed.scroll_region;
        if lower >= seed.height || (upper >= lower && seed.height > 1) {
            return Err(err("bad scroll region"));
        }
        Ok(seed)
    }

    /// Builds a [`Term`] for the pane from the captures, following `rules`
    /// (`opts.history_limit` is replaced by the pane's). The first history
    /// line gets index `first` (so a re-seed can continue the numbering).
    ///
    /// # Errors
    ///
    /// When the captures do not fit together: a row count other than
    /// history size plus height, or joined text that is not the rows
    /// joined.
    pub fn from_captures(
        c: &Captures<'_>,
        rules: Rules,
        opts: Options,
        first: LineIndex,
    ) -> Result<Term, SeedError> {
        let seed = Seed::parse_formats(c.formats)?;
        seed.build(c, rules, opts, first, None)
    }

    /// [`Seed::from_captures`] with the history laid out already (`laid`,
    /// made with the same `rules` and `first`): it stands for
    /// [`Captures::history_joined`], which is then only a marker (the
    /// history comes as lines), its text unused.
    ///
    /// # Errors
    ///
    /// As [`Seed::from_captures`].
    pub fn from_captures_laid(
        c: &Captures<'_>,
        rules: Rules,
        opts: Options,
        first: LineIndex,
        laid: LaidHistory,
    ) -> Result<Term, SeedError> {
        let seed = Seed::parse_formats(c.formats)?;
        seed.build(c, rules, opts, first, Some(laid))
    }

    fn build(
        &self,
        c: &Captures<'_>,
        rules: Rules,
        opts: Options,
        first: LineIndex,
        mut laid: Option<LaidHistory>,
    ) -> Result<Term, SeedError> {
        let opts = Options {
            history_limit: self.history_limit,
            ..opts
        };
        let mut t = Term::new(self.width, self.height, rules, opts);
        t.history = super::History::starting_at(self.history_limit, first.0);
        // Whether rows scroll into history (tmux's `GRID_HISTORY`) was
        // fixed when the pane was created, with the limit of then; ≤ 3.6
        // never changes a pane's limit, so it is today's. A known gap on
        // ≥ 3.7: a pane created with a limit above 0 whose limit became 0
        // still keeps (one row of) history, which no capture tells apart
        // from history a resize left in a pane created with 0.
        t.keeps_history = self.history_limit > 0;

        // TAB cells (≥ 3.6) print as `\t`: their width is laid out again
        // with the pane's current tab stops (the ones they were written
        // with are not reported; a resize resets them to the default).
        t.tabs = vec![false; self.width as usize];
        for &x in &self.tabs {
            if let Some(s) = t.tabs.get_mut(x as usize) {
                *s = true;
            }
        }
        // History rows in `rows` (none when the history comes as lines or
        // was not captured).
        // History rows laid out already, as they were read.
        let rows_laid = !c.history_absent
            && c.history_joined.is_none()
            && laid.as_ref().is_some_and(|l| l.flagged);
        let hsize = match c.history_joined {
            _ if c.history_absent || rows_laid => 0,
            Some(_) => 0,
            None => self.history_size,
        };
        let mut rows = match c.history_joined {
            _ if c.history_absent || rows_laid => Vec::new(),
            Some(_) => Vec::new(),
            None => split_rows(c.rows, c.rows_have_flags),
        };
        if let Some(screen) = c.screen_rows {
            if hsize == 0 {
                rows.clear();
            }
            rows.extend(split_rows(screen, c.rows_have_flags));
        }
        let want = hsize + self.height as usize;
        if rows.len() != want {
            return Err(err(format!(
                "{} rows captured, expected history {} + height {}",
                rows.len(),
                hsize,
                self.height
            )));
        }
        // Only the screen's rows are laid out as cells; history is kept as
        // text. The screen's codes are relative to the last history cell,
        // so the history's codes (and nothing else of it) go first.
        let codes = match c.screen_rows {
            Some(_) => Vec::new(),
            None => codes_of(&rows[..hsize]),
        };
        let (lines, mut guessed) = t.seed_lines(&rows[hsize..], &codes);
        let texts = plain_texts(&rows, false);
        let wrapped = wrapped_flags(&texts, &rows, c.joined, c.rows_have_flags)?;
        if !c.rows_have_flags {
            guessed += ambiguous(&texts, &wrapped);
        }
        let acs = opts.dec_graphics == super::screen::DecGraphics::Unicode;
        let hist_texts = if acs && rows[..hsize].iter().any(|r| r.text.contains(&0x0e)) {
            plain_texts(&rows[..hsize], true)
        } else {
            texts
        };
        match c.history_joined {
            _ if c.history_absent => t.history.set_absent(self.history_size),
            Some(joined) if self.history_size > 0 => {
                let pushed = match laid.take() {
                    Some(laid) => {
                        let (history, pushed, _) = laid.finish();
                        t.history = history;
                        pushed
                    }
                    None => push_history_lines(&mut t, joined, rules),
                };
                if pushed != self.history_size {
                    return Err(SeedError {
                        layout: true,
                        ..err(format!(
                            "the history's lines lay out as {pushed} rows, tmux has {}",
                            self.history_size
                        ))
                    });
                }
            }
            Some(_) => {}
            None => {
                for (i, text) in hist_texts.iter().enumerate().take(hsize) {
                    t.history.push_row(text, wrapped[i]);
                }
            }
        }
        let mut laid_marks = Vec::new();
        if rows_laid
            && self.history_size > 0
            && let Some(laid) = laid.take()
        {
            let (history, pushed, marks) = laid.finish();
            if pushed != self.history_size {
                return Err(err(format!(
                    "{pushed} history rows captured, tmux has {}",
                    self.history_size
                )));
            }
            t.history = history;
            laid_marks = marks;
        }
        for (y, mut line) in lines.into_iter().enumerate() {
            line.wrapped = wrapped[hsize + y];
            t.grid.lines[y] = line;
        }
        // tmux's prompt and output flags (3.7+): the commands of history
        // printed before the copy. The alternate screen's rows name no
        // line of history.
        if c.rows_have_flags && !self.alternate_on && c.history_joined.is_none() {
            let has = |r: &Row<'_>, f: u8| r.flags.is_some_and(|x| x.contains(&f));
            if laid_marks.iter().any(|&m| m & 3 != 0)
                || rows.iter().any(|r| has(r, b'P') || has(r, b'O'))
            {
                let laid = laid_marks
                    .iter()
                    .map(|&m| (m & 1 != 0, m & 2 != 0, m & 4 != 0));
                t.recover_marks(
                    laid.chain(
                        rows.iter()
                            .zip(&wrapped)
                            .map(|(r, &w)| (has(r, b'P'), has(r, b'O'), w)),
                    ),
                );
            }
        }
        if self.alternate_on {
            // The hidden main screen keeps the size it had when the
            // alternate screen came on (tmux resizes it only when leaving,
            // with a reflow this crate does not model: see
            // `Term::needs_reseed`). Its height is its row count; its width
            // is not reported and taken to be the pane's.
            let saved = split_rows(c.saved_rows, c.rows_have_flags);
            if saved.is_empty() {
                return Err(err("no saved rows captured for the alternate screen"));
            }
            let (lines, bad) = t.seed_lines(&saved, &[]);
            let texts = plain_texts(&saved, false);
            let wrapped = wrapped_flags(&texts, &saved, c.saved_joined, c.rows_have_flags)?;
            guessed += bad;
            if !c.rows_have_flags {
                guessed += ambiguous(&texts, &wrapped);
            }
            let mut grid = Grid::new(self.width, lines.len() as u32);
            for (y, mut line) in lines.into_iter().enumerate() {
                line.wrapped = wrapped[y];
                grid.lines[y] = line;
            }
            t.saved_grid = Some(grid);
            t.alt_size_unknown = true;
        }
        t.saved_cursor = self.alternate_saved;
        // tmux can leave the cursor past the right edge after resizing a
        // pane in the alternate screen (screen.c `screen_resize_cursor()`
        // does not clamp it); it stays there until the next write or move.
        t.cx = self.cursor_x;
        t.cy = self.cursor_y.min(self.height - 1);
        t.rupper = self.scroll_region.0;
        t.rlower = self.scroll_region.1;
        t.mode = (if self.wrap { MODE_WRAP } else { 0 })
            | (if self.insert { MODE_INSERT } else { 0 })
            | (if self.origin { MODE_ORIGIN } else { 0 });
        t.reset_after_seed();
        t.seed_guesses = guessed;
        t.advance(c.pending);
        Ok(t)
    }
}

/// What tmux ≥ 3.7 would answer to the seed commands for a pane whose
/// state is `t`: the formats line, `-F` rows (history, then screen, each
/// up to its last used cell), the hidden main screen's rows, and no
/// pending escape. For tests and fuzzing: a `Term` seeded from these and
/// fed what `t` is fed next must stay equal to `t` whenever
/// [`Term::parser_idle`] and [`Term::fully_seedable`] hold for `t`. Styles
/// and DEC graphics shifts are not written (`-e` codes), so the seeded
/// copy keeps text only.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct OwnCaptures {
    /// See [`Captures::formats`].
    pub formats: String,
    /// History rows, `-F` flags first.
    pub rows: Vec<u8>,
    /// Screen rows, `-F` flags first.
    pub screen_rows: Vec<u8>,
    /// The hidden main screen's rows (empty unless the alternate screen
    /// is on).
    pub saved_rows: Vec<u8>,
}

impl OwnCaptures {
    /// The captures of `t` (see the type).
    pub fn of(t: &Term) -> OwnCaptures {
        let (w, h) = t.size();
        let c = t.cursor();
        let m = t.modes();
        let (upper, lower) = t.scroll_region();
        let (sx, sy) = t
            .alternate_saved_cursor()
            .map_or((u32::MAX, u32::MAX), |(x, y)| (x.0, y.0));
        let tabs: Vec<String> = t.tab_stops().iter().map(|x| x.0.to_string()).collect();
        let formats = format!(
            "{w},{h},{},{},{},{},{},{sx},{sy},{},{},{},{},{};{}",
            c.x.0,
            c.y.0,
            t.history_size(),
            t.history_limit(),
            u8::from(t.alternate_on()),
            upper.0,
            lower.0,
            u8::from(m.wrap),
            u8::from(m.insert),
            u8::from(m.origin),
            tabs.join(",")
        );
        let row = |out: &mut Vec<u8>, text: &[u8], wrapped: bool| {
            out.extend_from_slice(if wrapped { b"W " } else { b"- " });
            out.extend_from_slice(text);
            out.push(b'\n');
        };
        let mut rows = Vec::new();
        for (text, wrapped) in t.history.rows_iter() {
            row(&mut rows, text, wrapped);
        }
        let grid_rows = |g: &Grid| {
            let mut out = Vec::new();
            let mut text = Vec::new();
            for line in &g.lines {
                text.clear();
                line.push_text(&t.combined, false, &mut text);
                row(&mut out, &text, line.wrapped);
            }
            out
        };
        OwnCaptures {
            formats,
            rows,
            screen_rows: grid_rows(&t.grid),
            saved_rows: t.saved_grid.as_ref().map(grid_rows).unwrap_or_default(),
        }
    }

    /// As [`Captures`] for [`Seed::from_captures`].
    pub fn captures(&self) -> Captures<'_> {
        Captures {
            formats: &self.formats,
            rows: &self.rows,
            screen_rows: Some(&self.screen_rows),
            rows_have_flags: true,
            joined: b"",
            history_joined: None,
            saved_rows: &self.saved_rows,
            saved_joined: b"",
            pending: b"",
            history_absent: false,
        }
    }
}

/// One captured row: its flags (with `-F`) and its bytes.
struct Row<'a> {
    flags: Option<&'a [u8]>,
    text: &'a [u8],
}

/// Splits a rows capture: every row ends with a newline.
fn split_rows(body: &[u8], flagged: bool) -> Vec<Row<'_>> {
    let Some(body) = body.strip_suffix(b"\n") else {
        return Vec::new();
    };
    body.split(|&b| b == b'\n')
        .map(|line| {
            if flagged {
                match line.iter().position(|&b| b == b' ') {
                    Some(i) => Row {
                        flags: Some(&line[..i]),
                        text: &line[i + 1..],
                    },
                    None => Row {
                        flags: Some(line),
                        text: &[],
                    },
                }
            } else {
                Row {
                    flags: None,
                    text: line,
                }
            }
        })
        .collect()
}

/// Each row's text without the `-e` codes (SGR, OSC 8 and the SO/SI
/// shifts), as `-J` prints it; with `acs`, DEC graphics letters (between
/// SO and SI, which carry over from row to row) become line-drawing
/// characters. A row without codes (most of a long history) is borrowed.
fn plain_texts<'a>(rows: &[Row<'a>], acs: bool) -> Vec<Cow<'a, [u8]>> {
    let mut shifted = false;
    rows.iter()
        .map(|r| {
            if !shifted && memchr::memchr3(0x1b, 0x0e, 0x0f, r.text).is_none() {
                return Cow::Borrowed(r.text);
            }
            let mut out = Vec::with_capacity(r.text.len());
            strip_row(r.text, acs, false, &mut shifted, &mut out);
            Cow::Owned(out)
        })
        .collect()
}

/// The codes of `rows` (SGR, OSC 8, SO and SI), in order, without their
/// text: what a `-e` capture's later rows are relative to.
fn codes_of(rows: &[Row<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in rows {
        let b = r.text;
        let mut i = 0;
        while let Some(k) = memchr::memchr3(0x1b, 0x0e, 0x0f, &b[i..]) {
            let at = i + k;
            // A lone ESC is kept too (the screen's layout reads it again).
            let end = at + code_len(b, at).unwrap_or(1);
            out.extend_from_slice(&b[at..end]);
            i = end;
        }
    }
    out
}

/// The wrapped flag of each row: from `-F` flags, or by walking the joined
/// capture (a row is wrapped when its text is not followed by a newline).
fn wrapped_flags(
    texts: &[Cow<'_, [u8]>],
    rows: &[Row<'_>],
    joined: &[u8],
    flagged: bool,
) -> Result<Vec<bool>, SeedError> {
    if flagged {
        return Ok(rows
            .iter()
            .map(|r| r.flags.is_some_and(|f| f.contains(&b'W')))
            .collect());
    }
    let mut flags = Vec::with_capacity(texts.len());
    let mut at = 0;
    for (i, text) in texts.iter().enumerate() {
        if !joined[at.min(joined.len())..].starts_with(text) {
            return Err(err(format!("joined capture does not match row {i}")));
        }
        at += text.len();
        // A newline here ends the row; none means wrapped (also for the
        // last row: a buffer has no newline after a wrapped last row). An
        // empty row after this one makes it ambiguous; this takes the
        // earlier row as not wrapped.
        let newline = joined.get(at) == Some(&b'\n');
        if newline {
            at += 1;
        }
        flags.push(!newline);
    }
    if at != joined.len() {
        return Err(err("joined capture longer than the rows"));
    }
    Ok(flags)
}

/// Appends history given as logical lines (a `capture-pane -J` into a
/// buffer: each line ends with `\n`, except a last one whose row wraps
/// into the screen) to `t`'s history, each line cut into rows where tmux
/// lays it out ([`crate::term::width::row_breaks`]); returns the rows pushed.
fn push_history_lines(t: &mut Term, joined: &[u8], rules: Rules) -> usize {
    let history = std::mem::replace(&mut t.history, super::History::new(0));
    let mut laid = LaidHistory::on(history, t.sx() as usize, rules);
    laid.feed(joined);
    let (history, pushed, _) = laid.finish();
    t.history = history;
    pushed
}

/// A seed's history as logical lines ([`Captures::history_joined`]) laid
/// out into rows as its bytes arrive, a piece at a time (a piece may end
/// inside a line: the rest of the line is held until its `\n` comes), so
/// a reader that streams the history buffer lays it out while the rest is
/// still on its way. [`Seed::from_captures_laid`] takes it in place of the
/// text; the rows are the ones the whole text would lay out as.
#[derive(Debug)]
pub struct LaidHistory {
    history: super::History,
    width: usize,
    rules: Rules,
    /// The line whose `\n` has not come yet.
    carry: Vec<u8>,
    breaks: Vec<usize>,
    rows: usize,
    bytes: usize,
    /// The text is rows with their flags ([`Captures::rows_have_flags`],
    /// tmux ≥ 3.7), not lines: each row is pushed as it is.
    flagged: bool,
    /// Rows: DEC line-drawing letters read as box characters.
    acs: bool,
    /// Rows: inside a DEC line-drawing shift (SO before SI).
    shifted: bool,
    /// Rows: each row's prompt, output and wrapped flags (bits 1, 2, 4),
    /// for [`Term::recover_marks`](super::Term).
    marks: Vec<u8>,
    buf: Vec<u8>,
}

impl LaidHistory {
    /// An empty history for the pane whose [`Seed::FORMAT`] record is
    /// `formats` (its width and `history-limit`), its first line numbered
    /// `first`.
    ///
    /// # Errors
    ///
    /// A record [`Seed::parse_formats`] cannot read.
    pub fn new(formats: &str, rules: Rules, first: LineIndex) -> Result<LaidHistory, SeedError> {
        let seed = Seed::parse_formats(formats)?;
        let history = super::History::starting_at(seed.history_limit, first.0);
        Ok(LaidHistory::on(history, seed.width as usize, rules))
    }

    /// [`LaidHistory::new`] for a history that comes as rows with their
    /// flags (`capture-pane -N -T -F`, tmux ≥ 3.7: [`Captures::rows`] with
    /// [`Captures::rows_have_flags`]), each row kept as tmux has it; with
    /// `acs`, DEC line-drawing letters read as box characters (as
    /// [`DecGraphics::Unicode`](super::DecGraphics) reads them).
    ///
    /// # Errors
    ///
    /// As [`LaidHistory::new`].
    pub fn new_rows(
        formats: &str,
        rules: Rules,
        first: LineIndex,
        acs: bool,
    ) -> Result<LaidHistory, SeedError> {
        let mut laid = LaidHistory::new(formats, rules, first)?;
        laid.flagged = true;
        laid.acs = acs;
        Ok(laid)
    }

    fn on(history: super::History, width: usize, rules: Rules) -> LaidHistory {
        LaidHistory {
            history,
            width,
            rules,
            carry: Vec::new(),
            breaks: Vec::new(),
            rows: 0,
            bytes: 0,
            flagged: false,
            acs: false,
            shifted: false,
            marks: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Lays out the next piece of the text.
    pub fn feed(&mut self, mut data: &[u8]) {
        self.bytes += data.len();
        if !self.carry.is_empty() {
            let Some(i) = memchr::memchr(b'\n', data) else {
                self.carry.extend_from_slice(data);
                return;
            };
            let mut line = std::mem::take(&mut self.carry);
            line.extend_from_slice(&data[..i]);
            self.push(&line, false);
            line.clear();
            self.carry = line;
            data = &data[i + 1..];
        }
        let mut at = 0;
        for i in memchr::memchr_iter(b'\n', data) {
            self.push(&data[at..i], false);
            at = i + 1;
        }
        self.carry.extend_from_slice(&data[at..]);
    }

    /// Bytes fed so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// One line's rows (`open`: its last row wraps, onto the screen), or
    /// with flags one row as [`split_rows`] and [`plain_texts`] read it.
    fn push(&mut self, line: &[u8], open: bool) {
        if self.flagged {
            let (flags, text) = match memchr::memchr(b' ', line) {
                Some(i) => (&line[..i], &line[i + 1..]),
                None => (line, &[][..]),
            };
            let has = |f: u8| flags.contains(&f);
            let wrapped = has(b'W');
            self.marks
                .push(u8::from(has(b'P')) | (u8::from(has(b'O')) << 1) | (u8::from(wrapped) << 2));
            if !self.shifted && memchr::memchr3(0x1b, 0x0e, 0x0f, text).is_none() {
                self.history.push_row(text, wrapped);
            } else {
                let mut buf = std::mem::take(&mut self.buf);
                buf.clear();
                strip_row(text, self.acs, false, &mut self.shifted, &mut buf);
                self.history.push_row(&buf, wrapped);
                self.buf = buf;
            }
            self.rows += 1;
            return;
        }
        self.breaks.clear();
        super::width::row_breaks(line, self.width, self.rules, &mut self.breaks);
        let mut start = 0;
        for &b in &self.breaks {
            self.history.push_row(&line[start..b], true);
            start = b;
        }
        self.history.push_row(&line[start..], open);
        self.rows += self.breaks.len() + 1;
    }

    /// The history and the rows pushed: a last line without its `\n`
    /// continues on the screen (as is an empty text's one line).
    /// The history, the rows pushed and (rows) each row's flags bits.
    fn finish(mut self) -> (super::History, usize, Vec<u8>) {
        let carry = std::mem::take(&mut self.carry);
        // Every row ends with a line break: a last piece without one is
        // no row (the count then differs from tmux's).
        if !self.flagged && (!carry.is_empty() || self.bytes == 0) {
            self.push(&carry, true);
        }
        (self.history, self.rows, self.marks)
    }
}

/// A digest of each history row of `t`, trailing spaces left out, oldest
/// first: what [`history_rows_match`] compares with tmux's rows.
pub fn history_row_digests(t: &Term) -> Vec<u64> {
    history_row_digests_in(t, 0..usize::MAX)
}

/// [`history_row_digests`] of the rows `rows` only (0 is the oldest row
/// held; a range past the end stops there): a check of part of the
/// history against a capture of the same rows.
pub fn history_row_digests_in(t: &Term, rows: std::ops::Range<usize>) -> Vec<u64> {
    t.history()
        .rows_from(rows.start)
        .take(rows.end.saturating_sub(rows.start))
        .map(|(text, _)| digest(text))
        .collect()
}

/// Whether `rows`, a `capture-pane -N -S - -E -1` of the pane's history
/// (into a buffer: every row ends with `\n`), holds the rows `digests`
/// ([`history_row_digests`]) describe, taken at the same moment: the
/// check of a copy whose history was seeded as lines
/// ([`Captures::history_joined`]). An empty history is always equal (tmux
/// then prints a screen row).
pub fn history_rows_match(digests: &[u64], rows: &[u8]) -> bool {
    if digests.is_empty() {
        return true;
    }
    let Some(body) = rows.strip_suffix(b"\n") else {
        return false;
    };
    let mut theirs = body.split(|&b| b == b'\n');
    digests
        .iter()
        .all(|&d| theirs.next().is_some_and(|r| digest(r) == d))
        && theirs.next().is_none()
}

/// A row's digest, its trailing spaces left out (tmux prints them up to
/// the last used cell; a copy's line keeps none at its end).
fn digest(row: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    super::history::trim_end_spaces(row).hash(&mut h);
    h.finish()
}

/// The rows whose wrapped flag the joined capture leaves open: a row taken
/// as not wrapped followed by an empty wrapped row prints the same as the
/// other way round.
fn ambiguous(texts: &[Cow<'_, [u8]>], flags: &[bool]) -> usize {
    (1..texts.len())
        .filter(|&i| !flags[i - 1] && flags[i] && texts[i].is_empty())
        .count()
}

impl Term {
    /// Lays each captured row (with its `-e` codes) out into a screen line,
    /// through the normal write path on a one-row scratch grid. Returns the
    /// lines and how many of them did not come out as captured (cells
    /// tmux left overlapping, such as a wide character whose padding was
    /// written over without clearing it, cannot be placed again from text).
    fn seed_lines(&mut self, rows: &[Row<'_>], codes_before: &[u8]) -> (Vec<Line>, usize) {
        let sx = self.sx();
        let saved_grid = std::mem::replace(&mut self.grid, Grid::new(sx, 1));
        let saved_alt = self.saved_grid.take();
        let (rupper, rlower, mode) = (self.rupper, self.rlower, self.mode);
        self.rupper = 0;
        self.rlower = 0;
        self.mode = MODE_WRAP;
        // History off while laying out: an overflowing row scrolls nowhere.
        self.saved_grid = Some(Grid::new(1, 1));
        self.pen.g1 = true;
        self.advance(codes_before);
        let texts = plain_texts(rows, false);
        let mut lines = Vec::with_capacity(rows.len());
        let mut bad = 0;
        let mut text = Vec::new();
        // The codes are relative to the previous cell, across rows too.
        for (row, want) in rows.iter().zip(&texts) {
            self.grid.lines[0].empty(super::grid::Bg::DEFAULT);
            self.cx = 0;
            self.cy = 0;
            self.advance(row.text);
            let line = self.grid.lines[0].clone();
            text.clear();
            line.push_text(&self.combined, false, &mut text);
            if line.wrapped || text[..] != want[..] {
                bad += 1;
            }
            lines.push(line);
        }
        self.grid = saved_grid;
        self.saved_grid = saved_alt;
        self.rupper = rupper;
        self.rlower = rlower;
        self.mode = mode;
        for l in &mut lines {
            l.wrapped = false;
        }
        (lines, bad)
    }

    /// The state tmux does not report starts from its defaults.
    fn reset_after_seed(&mut self) {
        self.string_timeout();
        self.parser = Default::default();
        self.pen = super::screen::Pen::default_pen();
        self.old = super::screen::SavedState {
            pen: self.pen,
            cx: 0,
            cy: 0,
            origin: false,
        };
        self.last = None;
        self.v33 = Default::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::LineNo;

    const F: &str = "20,3,4,2,2,100,0,4294967295,4294967295,0,2,1,0,0;8,16\n";

    /// A history laid out piece by piece, cut anywhere (inside a line, a
    /// wide character, between line breaks), has the rows the whole text
    /// lays out as, the open last line included.
    #[test]
    fn history_laid_in_pieces_is_laid_whole() {
        let texts: [&[u8]; 5] = [
            b"one\n\ntwo wraps past ten\nthree\n",
            "wide 中文中文中文 and\nopen last".as_bytes(),
            b"",
            b"\n",
            b"a\n\n",
        ];
        let rows = |h: &super::super::History| -> Vec<(Vec<u8>, bool)> {
            h.rows_iter().map(|(t, w)| (t.to_vec(), w)).collect()
        };
        for text in texts {
            let whole = {
                let mut l = LaidHistory::on(super::super::History::new(100), 10, Rules::V36);
                l.feed(text);
                let (h, n, _) = l.finish();
                (h, n)
            };
            for cut in 0..=text.len() {
                for cut2 in cut..=text.len() {
                    let mut l = LaidHistory::on(super::super::History::new(100), 10, Rules::V36);
                    l.feed(&text[..cut]);
                    l.feed(&text[cut..cut2]);
                    l.feed(&text[cut2..]);
                    assert_eq!(l.bytes(), text.len());
                    let (h, n, _) = l.finish();
                    assert_eq!(
                        (rows(&h), n),
                        (rows(&whole.0), whole.1),
                        "{text:?} {cut} {cut2}"
                    );
                }
            }
        }
    }

    #[test]
    fn formats() {
        let s = Seed::parse_formats(F).unwrap();
        assert_eq!((s.width, s.height, s.cursor_x, s.cursor_y), (20, 3, 4, 2));
        assert_eq!(s.alternate_saved, None);
        assert_eq!(s.tabs, [8, 16]);
        assert!(Seed::parse_formats("1,2").is_err());
        assert!(Seed::parse_formats("0,3,0,0,0,0,0,0,0,0,0,1,0,0;").is_err());
        assert!(Seed::parse_formats("20,3,4,2,2,100,0,0,0,1,1,1,0,0;").is_err());
        assert!(Seed::parse_formats("20,1,4,0,2,100,0,0,0,0,0,1,0,0;").is_ok());
    }

    /// A history of flagged rows (tmux ≥ 3.7) laid out as it streams,
    /// cut anywhere, makes the copy the whole capture makes: rows, lines,
    /// and the commands tmux's prompt and output flags mark.
    #[test]
    fn flagged_rows_laid_in_pieces_seed_the_same_copy() {
        let mut t = Term::new(
            12,
            3,
            Rules::V36,
            Options {
                history_limit: 100,
                ..Options::default()
            },
        );
        t.advance(b"$ make\r\nbuilding a long line that wraps\r\ndone\r\n$ ls\r\na b\r\n$ ");
        let own = OwnCaptures::of(&t);
        // tmux's flags on the prompt and output rows.
        let rows = String::from_utf8(own.rows.clone()).unwrap();
        let rows = rows
            .replacen("- $ make", "P $ make", 1)
            .replacen("W build", "OW build", 1)
            .replacen("- $ ls", "P $ ls", 1);
        let c = Captures {
            rows: rows.as_bytes(),
            ..own.captures()
        };
        let whole = Seed::from_captures(&c, Rules::V36, Options::default(), LineIndex(3)).unwrap();
        let view = |t: &Term| {
            let lines: Vec<_> = t
                .lines()
                .map(|l| (l.index.0, l.text.into_owned()))
                .collect();
            let commands = format!("{:?}", t.commands());
            (t.capture(LineNo(-100), LineNo(2)), lines, commands)
        };
        assert!(view(&whole).2.contains("TmuxFlags"), "{}", view(&whole).2);
        let bytes = rows.as_bytes();
        for cut in 0..=bytes.len() {
            let mut laid =
                LaidHistory::new_rows(c.formats, Rules::V36, LineIndex(3), true).unwrap();
            laid.feed(&bytes[..cut]);
            laid.feed(&bytes[cut..]);
            let marker = Captures { rows: b"", ..c };
            let t = Seed::from_captures_laid(
                &marker,
                Rules::V36,
                Options::default(),
                LineIndex(3),
                laid,
            )
            .unwrap();
            assert_eq!(view(&t), view(&whole), "cut at {cut}");
        }
    }

    #[test]
    fn rows_and_wraps() {
        let c = Captures {
            formats: F,
            rows: b"old\nabcdefghijklmnopqrst\nuv\n\x1b[31mred\x1b[39m\n\n",
            joined: b"old\nabcdefghijklmnopqrstuv\nred\n\n",
            ..Captures::default()
        };
        let t = Seed::from_captures(&c, Rules::V36, Options::default(), LineIndex(7)).unwrap();
        let lines: Vec<_> = t
            .lines()
            .map(|l| (l.index.0, l.text.into_owned()))
            .collect();
        assert_eq!(
            lines,
            [
                (7, b"old".to_vec()),
                (8, b"abcdefghijklmnopqrstuv".to_vec()),
                (9, b"red".to_vec()),
                (10, b"".to_vec())
            ]
        );
        assert_eq!(t.history_size(), 2);
        assert_eq!(
            t.capture(LineNo(-2), LineNo(2)),
            b"old\nabcdefghijklmnopqrst\nuv\nred\n\n"
        );
        assert_eq!(t.cursor().x.0, 4);
    }
}
