//! A terminal that does to text exactly what tmux does. Pure: bytes in,
//! state out.
//!
//! tmuxwire keeps a mirror of each watched pane: a [`Term`] fed the bytes
//! the program in the pane wrote (tmux's `%output`), answering capture and
//! search from memory. tmux is the oracle: for any byte stream,
//! [`Term::lines`] equals `capture-pane -p -J -S - -E -` (each line's
//! trailing spaces removed) and [`Term::capture`] of the whole pane equals
//! `capture-pane -p -S - -E -`, for the tmux version the [`Rules`] name.
//!
//! # Brief overview
//!
//! ```
//! use tmuxwire::term::{LineNo, Options, Rules, Term};
//!
//! let mut t = Term::new(20, 5, Rules::V36, Options::default());
//! t.advance(b"0123456789abcdefNEEDLEXYZ-tail\r\n\x1b[31m\xe4\xb8\xad\xe6\x96\x87xxx\x1b[m\r\n");
//! let lines: Vec<_> = t.lines().map(|l| l.text.into_owned()).collect();
//! assert_eq!(lines[0], b"0123456789abcdefNEEDLEXYZ-tail");
//! assert_eq!(lines[1], "中文xxx".as_bytes());
//! assert_eq!(t.capture(LineNo(0), LineNo(1)), b"0123456789abcdefNEED\nLEXYZ-tail\n");
//! ```
//!
//! # What tmux does, and so what this does
//!
//! Everything is taken from tmux's source for the version (input.c,
//! screen-write.c, grid.c, grid-view.c, screen.c, utf8.c), and checked
//! against real tmux 3.3a, 3.5a and 3.8 by a differential test
//! (`tests/grid_diff.rs`):
//!
//! * the escape-sequence parser is tmux's own state machine (the
//!   `parser` module's docs say why not the `vte` crate: tmux's grammar
//!   differs from it in ways that change the text);
//! * character widths and joining (combining marks, ZWJ, VS16, skin tones,
//!   flags) by version ([`width`]);
//! * autowrap with the pending-wrap cursor (`cursor_x == width`), the
//!   wrapped flag exactly where tmux sets and clears it (including the
//!   history row above the screen), DECAWM off, insert mode;
//! * cursor motion, tabs and tab stops (tmux ≥ 3.6 keeps a TAB written
//!   over blank cells as one cell that captures print as `\t`), erase,
//!   insert and delete of characters and lines, scroll regions (a region
//!   not at the top still moves its top row into history, as tmux does),
//!   index and reverse index, origin mode, DECSC/DECRC, RIS, DECALN, REP;
//! * the alternate screen (`?1049`, `?1047`, `?47`, saved cursor and pen
//!   as tmux keeps them) and `scroll-on-clear`;
//! * history as rows trimmed `history-limit / 10` at a time (so the
//!   oldest line left can be the tail of a wrapped line), `CSI 3 J`, and
//!   (≥ 3.7) a changed `history-limit` ([`Term::set_history_limit`]);
//! * invalid UTF-8 dropped (≤ 3.5) or replaced by U+FFFD (≥ 3.6);
//! * DEC special graphics stored as the line-drawing characters
//!   ([`DecGraphics`]; tmux itself prints the ASCII letters, see public
//!   case C21).
//!
//! Text is bytes, not `str`: tmux stores what glibc's `mbtowc()` accepts,
//! which includes code points up to `U+13FFFF`, and captures print them.
//!
//! # Known gaps
//!
//! * Widths come from glibc 2.36's `C.UTF-8` table (what the test servers
//!   use); a server whose C library disagrees on a character differs on
//!   it. [`Term::fingerprint`] lets the mirror notice.
//! * tmux resets its parser and pen when a string sequence (OSC, DCS, …)
//!   stays unterminated for 5 seconds; a byte stream carries no time, so
//!   the caller has to call [`Term::string_timeout`].
//! * tmux ≤ 3.3 forgets a held-back ZWJ at the end of each read from the
//!   pane ([`Term::end_read`]).
//! * SIXEL images (`DCS q`) move the cursor by the image's height in
//!   cells, which depends on the terminal's pixel size: not modelled.
//! * Resizing is not modelled: the mirror seeds a new `Term` ([`Seed`]).
//!   The `seed` module lists what a seed cannot know (the pen, character
//!   sets, DECSC state and what `REP` repeats; a few cell layouts no
//!   capture shows, which [`Term::fully_seedable`] and
//!   [`Term::reflow_safe`] detect; wrapped flags of empty rows on
//!   ≤ 3.6, counted in [`Term::seed_guesses`]).
//! * [`Rules::V36`] follows 3.8 (master), the newest release tested; 3.6
//!   and 3.7 differ in corners: before 3.7 a cell widened at the window's
//!   right edge moves the cursor, and a changed `history-limit` is not
//!   applied to existing panes.
//! * tmux ≥ 3.7 re-applies every pane's `history-limit` whenever any
//!   `set-option history-limit` runs; the mirror must call
//!   [`Term::set_history_limit`] for each pane then (control mode does not
//!   announce option changes).
//!
//! # Layout
//!
//! * `index`: coordinate newtypes ([`LineNo`], [`ScreenRow`], [`Column`],
//!   [`LineIndex`], [`ByteOffset`], [`CharOffset`], [`Point`]).
//! * [`width`]: per-version width and joining rules; row counting.
//! * `parser`: tmux's escape-sequence state machine.
//! * `screen`: [`Term`] and what each sequence does.
//! * `grid`, `cell`: screen rows and cells.
//! * `history`: scrollback as chunks of logical lines ([`History`]).
//! * `read`: logical lines, captures, cursor, offsets.
//! * `seed`: building a [`Term`] from `capture-pane` output ([`Seed`]).
//! * `plain`: `capture-pane -e` output without its codes ([`strip_row`],
//!   [`plain_capture`]).
//! * [`marks`]: reading OSC 133/633/1337/7/0/2/9;4 payloads (pure).
//! * `state`: private modes, the command table, screen-change times
//!   ([`Commands`], [`PrivateModes`], [`ScreenState`]).

mod cap;
mod cell;
mod grid;
mod history;
mod index;
mod invariants;
pub mod marks;
mod parser;
mod plain;
mod read;
mod screen;
mod seed;
mod state;
pub mod width;
mod width_table;

#[cfg(test)]
mod tests;

pub use history::{Dropped, History, HistoryLine, RowBreaks, SearchChunk, trim_end_spaces};
pub use index::{ByteOffset, CharOffset, Column, LineIndex, LineNo, Point, ScreenRow};
pub use plain::{plain_capture, strip_row};
pub use read::{
    Cursor, LogicalLine, Modes, Place, Tail, bottom_line, fingerprint, keep_tail, split_lines,
    top_line,
};
pub use screen::{DecGraphics, Options, Term};
pub use seed::{
    Captures, LaidHistory, OwnCaptures, Seed, SeedError, history_row_digests,
    history_row_digests_in, history_rows_match, modes_format, parse_modes,
};
pub use state::{
    CommandEnd, CommandRecord, CommandText, Commands, MAX_COMMANDS, MAX_DEPTH, MAX_SET_MARKS,
    MarkPos, PrivateModes, RowHash, SYNC_TIMEOUT_US, ScreenState, SetMark,
};
pub use width::Rules;
