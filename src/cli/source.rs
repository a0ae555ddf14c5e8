//! Where `search` gets each pane's text: the seam between reading panes
//! and grepping them.
//!
//! A [`LineSource`] yields, pane by pane in `tmuxwire panes` order, the
//! pane's logical lines as one contiguous buffer ([`PaneLines::text`],
//! each line ended by `\n`, trailing blanks trimmed) with, for every line,
//! where it starts in the buffer, the tmux line number of its first row,
//! the rows it fills and the screen it is on ([`LineInfo`]). `search`
//! (`super::grep`) matches over the whole buffer with
//! [`crate::search::Pattern`] and prints from these facts alone, so a
//! source can be swapped without touching it.
//!
//! The source is [`Copies`]: per pane, a copy made once from tmux's
//! captures ([`crate::tmux::copy`], the mirror's own seed: one batch of
//! commands, one moment), two panes in flight at a time. Its lines are
//! the copy's, read the way `search_panes` scans a copy
//! ([`crate::mirror::scan`]): the history's logical lines, then the normal
//! screen a full-screen program hides (numbered from its top row, 0),
//! then the screen. So `tmuxwire search` and `search_panes` give the same
//! lines, line numbers and row counts for the same pane. A pane that
//! vanishes meanwhile is skipped.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesOrdered;

use super::errors::CliError;
use crate::control::PaneId;
use crate::mirror::scan::Screen;
use crate::term::{Term, trim_end_spaces};
use crate::tmux::Server;

/// One logical line of a [`PaneLines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineInfo {
    /// Byte offset of the line's start in [`PaneLines::text`].
    pub start: usize,
    /// tmux's line number of its first row: 0 is the top of the screen,
    /// negative numbers are scrollback (`capture-pane -S/-E` numbering).
    pub number: i64,
    /// Screen rows it fills (more than 1 when soft-wrapped).
    pub rows: u32,
    /// The screen it is on: [`Screen::Main`] (the normal screen and its
    /// history) for a capture; a source that reads a pane's copy can also
    /// give the lines of the alternate screen and of the normal screen a
    /// full-screen program hides, as `search_panes` does.
    pub screen: Screen,
}

/// The pane a [`PaneLines`] is of, as `list_panes` named it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaneInfo {
    /// `%N`.
    pub pane_id: String,
    /// The session's name (tmux allows no `:` or `.` in it).
    pub session_name: String,
    /// The window's index in the session.
    pub window_index: String,
    /// The window's name.
    pub window_name: String,
    /// The pane's index in its window.
    pub pane_index: String,
    /// The foreground process (`#{pane_current_command}`).
    pub command: String,
    /// Its working directory (`#{pane_current_path}`).
    pub path: String,
    /// Its history is within a tenth of `history-limit`: tmux has most
    /// likely dropped its oldest lines (see `search_panes`'
    /// `panes_history_at_limit`).
    pub history_at_limit: bool,
    /// The pane is gone and its lines come from a copy (`search_panes`'
    /// `pane_dead`; never for a capture).
    pub dead: bool,
    /// Its program's exit status, when known.
    pub exit_status: Option<i32>,
    /// Oldest history rows the source no longer holds (a copy's memory
    /// cap; `search_panes`' `capped_history_rows`), 0 for none.
    pub capped_history_rows: u64,
}

/// One pane's logical lines (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct PaneLines {
    /// The pane.
    pub pane: PaneInfo,
    /// The lines, oldest first, each ended by `\n`, trailing blanks
    /// trimmed; bytes as tmux printed them (UTF-8, not checked).
    pub text: Vec<u8>,
    /// One entry per line of `text`, in order.
    pub lines: Vec<LineInfo>,
}

impl PaneLines {
    /// Line `i`'s text, without its `\n`.
    ///
    /// # Panics
    ///
    /// When `i >= self.lines.len()`.
    pub fn line(&self, i: usize) -> &[u8] {
        let start = self.lines[i].start;
        let end = self
            .lines
            .get(i + 1)
            .map_or(self.text.len(), |l| l.start)
            .saturating_sub(1)
            .max(start);
        &self.text[start..end]
    }

    /// Masks the secrets of the pane's lines ([`crate::redact`], read
    /// across them, so a key's body is one), keeping every line, its
    /// number and rows; the count.
    pub fn redact(&mut self) -> crate::redact::Counts {
        let spans = crate::redact::find(&self.text);
        let counts = crate::redact::count(&spans);
        if !spans.is_empty() {
            let t = crate::redact::apply(&self.text, &spans);
            // Redaction keeps every line break, so the lines are the same.
            let mut at = 0;
            for l in &mut self.lines {
                l.start = at;
                at = memchr::memchr(b'\n', &t[at.min(t.len())..]).map_or(t.len(), |i| at + i + 1);
            }
            self.text = t;
        }
        counts
    }
}

/// The lines to read of each pane, in tmux numbering; `None`: as far as
/// the pane goes (the oldest history line, the bottom of the screen).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Range {
    /// First line.
    pub start: Option<i64>,
    /// Last line.
    pub end: Option<i64>,
}

/// A source of panes' logical lines for `search`.
pub trait LineSource {
    /// The next pane, in `tmuxwire panes` order; `None` after the last.
    /// A pane that vanished while it was read is left out.
    ///
    /// # Errors
    ///
    /// The server went away or refused: nothing more can be read.
    fn next_pane(&mut self) -> impl Future<Output = Option<Result<PaneLines, CliError>>>;
}

/// Panes copied at once.
const IN_FLIGHT: usize = 2;

/// [`LineSource`] by copies made once (see the module docs).
pub struct Copies {
    server: Arc<Server>,
    range: Range,
    todo: VecDeque<PaneInfo>,
    running: FuturesOrdered<BoxFuture<'static, Result<Option<PaneLines>, CliError>>>,
}

impl Copies {
    /// Reads `panes` (in this order) of `server` over `range`.
    pub fn new(server: Arc<Server>, panes: Vec<PaneInfo>, range: Range) -> Copies {
        Copies {
            server,
            range,
            todo: panes.into(),
            running: FuturesOrdered::new(),
        }
    }
}

impl LineSource for Copies {
    async fn next_pane(&mut self) -> Option<Result<PaneLines, CliError>> {
        loop {
            while self.running.len() < IN_FLIGHT
                && let Some(p) = self.todo.pop_front()
            {
                let server = self.server.clone();
                let range = self.range;
                self.running
                    .push_back(Box::pin(read_pane(server, p, range)));
            }
            match self.running.next().await? {
                Ok(Some(p)) => return Some(Ok(p)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Copies one pane and reads its lines; `None` when it is gone.
async fn read_pane(
    server: Arc<Server>,
    pane: PaneInfo,
    range: Range,
) -> Result<Option<PaneLines>, CliError> {
    let Ok(id) = pane.pane_id.parse::<PaneId>() else {
        return Ok(None);
    };
    let Some(built) =
        crate::tmux::copy::copy_pane_as(&server, id, crate::tmux::copy::Exactness::Lines).await?
    else {
        return Ok(None);
    };
    let read = tokio::task::spawn_blocking(move || lines_of(&built.term, pane, range)).await;
    read.map(Some).map_err(|e| {
        CliError::new(format!(
            "search: reading the copy of pane {id} failed (a bug): {e}"
        ))
    })
}

/// The logical lines of `term` whose first row is within `range` (a line
/// that starts before it but reaches into it counts, as in
/// [`crate::mirror::scan::scan`]), in the order and with the numbers
/// `search_panes` gives them (see the module docs).
pub fn lines_of(term: &Term, pane: PaneInfo, range: Range) -> PaneLines {
    let in_range = |first: i64, rows: u32| {
        range.start.is_none_or(|lo| first + i64::from(rows) > lo)
            && range.end.is_none_or(|hi| first <= hi)
    };
    // Room for the whole history at once: growing a buffer of millions of
    // lines by doubling copies it again and faults its pages in twice.
    let (bytes, lines) = term.history().search_chunks().fold((0, 0), |(b, l), c| {
        (
            b + c.text.len(),
            l + memchr::memchr_iter(b'\n', c.text).count(),
        )
    });
    let mut out = PaneLines {
        pane,
        text: Vec::with_capacity(bytes + 4096),
        lines: Vec::with_capacity(lines + 256),
    };
    let mut push = |text: &[u8], number: i64, rows: u32, screen: Screen| {
        out.lines.push(LineInfo {
            start: out.text.len(),
            number,
            rows,
            screen,
        });
        out.text.extend_from_slice(trim_end_spaces(text));
        out.text.push(b'\n');
    };
    let hsize = i64::try_from(term.history_size()).unwrap_or(i64::MAX);
    for chunk in term.history().search_chunks() {
        let text = chunk.text;
        let mut at = 0;
        let mut k = 0;
        while at < text.len() {
            let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i);
            let (row, rows) = chunk.rows_of(k);
            let first = i64::try_from(row).unwrap_or(i64::MAX) - hsize;
            if in_range(first, rows) {
                push(&text[at..end], first, rows, Screen::Main);
            }
            at = end + 1;
            k += 1;
        }
    }
    for (line, on) in crate::mirror::scan::screen_lines(term) {
        if in_range(line.first_row.0, line.rows()) {
            push(&line.text, line.first_row.0, line.rows(), on);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{Options, Rules};

    /// A 20x3 copy fed `bytes`.
    fn term(bytes: &[u8]) -> Term {
        let mut t = Term::new(20, 3, Rules::V34, Options::default());
        t.advance(bytes);
        t
    }

    fn got(p: &PaneLines) -> Vec<(String, i64, u32, Screen)> {
        (0..p.lines.len())
            .map(|i| {
                let l = p.lines[i];
                (
                    String::from_utf8_lossy(p.line(i)).into_owned(),
                    l.number,
                    l.rows,
                    l.screen,
                )
            })
            .collect()
    }

    #[test]
    fn lines_with_tmux_numbers_and_rows() {
        let t = term(b"old\r\n0123456789abcdefNEEDLEXYZ-tail\r\nprompt   \r\nlast");
        let p = lines_of(&t, PaneInfo::default(), Range::default());
        assert_eq!(
            got(&p),
            [
                ("old".into(), -2, 1, Screen::Main),
                ("0123456789abcdefNEEDLEXYZ-tail".into(), -1, 2, Screen::Main),
                ("prompt".into(), 1, 1, Screen::Main),
                ("last".into(), 2, 1, Screen::Main),
            ]
        );
        assert_eq!(p.text.iter().filter(|&&b| b == b'\n').count(), 4);
        // A range keeps the lines that reach into it.
        let p = lines_of(
            &t,
            PaneInfo::default(),
            Range {
                start: Some(0),
                end: Some(1),
            },
        );
        let numbers: Vec<i64> = p.lines.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [-1, 1]);
    }

    #[test]
    fn hidden_screen_between_history_and_screen() {
        let t = term(b"hist\r\nmain one\r\nmain two\x1b[?1049h\x1b[Halt a\r\nalt b");
        let p = lines_of(&t, PaneInfo::default(), Range::default());
        let g = got(&p);
        assert_eq!(g[0], ("hist".into(), 0, 1, Screen::HiddenMain));
        assert!(
            g.contains(&("main two".into(), 2, 1, Screen::HiddenMain)),
            "{g:?}"
        );
        let alt: Vec<_> = g.iter().filter(|x| x.3 == Screen::Alternate).collect();
        assert_eq!(alt[0].0, "alt a");
        assert_eq!(alt[1].0, "alt b");
    }
}
