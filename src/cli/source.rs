//! Where `search` gets each pane's text: the seam between reading panes
//! and grepping them.
//!
//! A [`LineSource`] yields, pane by pane in `tmuxwire panes` order, a
//! copy of the pane ([`PaneCopy`]): a [`Term`] made once from tmux's
//! captures ([`crate::tmux::copy`], the mirror's own seed: one batch of
//! commands, one moment), two panes in flight at a time. `search`
//! (`super::grep`) reads its lines with the mirror's scan
//! ([`crate::mirror::scan::Lines`]: the history's logical lines, then the
//! normal screen a full-screen program hides, numbered from its top row,
//! 0, then the screen), over the copy's own text, so `tmuxwire search` and
//! `search_panes` give the same lines, line numbers and row counts for the
//! same pane. A pane that vanishes meanwhile is skipped.
//!
//! [`PaneLines`] is the same lines copied into one buffer, for what must
//! rewrite their text first (`--redact` masks secrets across lines).

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesOrdered;

use super::errors::CliError;
use crate::control::PaneId;
use crate::mirror::scan::{Lines, Screen};
use crate::term::Term;
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

/// A source of panes' copies for `search`.
pub trait LineSource {
    /// The next pane, in `tmuxwire panes` order; `None` after the last.
    /// A pane that vanished while it was read is left out.
    ///
    /// # Errors
    ///
    /// The server went away or refused: nothing more can be read.
    fn next_pane(&mut self) -> impl Future<Output = Option<Result<PaneCopy, CliError>>>;
}

/// One pane's copy (see the module docs).
pub struct PaneCopy {
    /// The pane.
    pub pane: PaneInfo,
    /// Its copy.
    pub term: Term,
}

impl PaneCopy {
    /// Its lines within `range`, in scan order, read from the copy.
    pub fn lines(&self, range: Range) -> Lines<'_> {
        Lines::of(&self.term, range.bounds())
    }
}

impl Range {
    /// As [`Lines::of`] takes it: `None` for the whole pane.
    pub fn bounds(self) -> Option<(i64, i64)> {
        (self.start.is_some() || self.end.is_some())
            .then(|| (self.start.unwrap_or(i64::MIN), self.end.unwrap_or(i64::MAX)))
    }
}

/// Panes copied at once.
const IN_FLIGHT: usize = 2;

/// [`LineSource`] by copies made once (see the module docs).
pub struct Copies {
    server: Arc<Server>,
    todo: VecDeque<PaneInfo>,
    running: FuturesOrdered<BoxFuture<'static, Result<Option<PaneCopy>, CliError>>>,
}

impl Copies {
    /// Reads `panes` (in this order) of `server`.
    pub fn new(server: Arc<Server>, panes: Vec<PaneInfo>) -> Copies {
        Copies {
            server,
            todo: panes.into(),
            running: FuturesOrdered::new(),
        }
    }
}

impl LineSource for Copies {
    async fn next_pane(&mut self) -> Option<Result<PaneCopy, CliError>> {
        loop {
            while self.running.len() < IN_FLIGHT
                && let Some(p) = self.todo.pop_front()
            {
                let server = self.server.clone();
                self.running.push_back(Box::pin(read_pane(server, p)));
            }
            match self.running.next().await? {
                Ok(Some(p)) => return Some(Ok(p)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Copies one pane; `None` when it is gone.
async fn read_pane(server: Arc<Server>, pane: PaneInfo) -> Result<Option<PaneCopy>, CliError> {
    let Ok(id) = pane.pane_id.parse::<PaneId>() else {
        return Ok(None);
    };
    let built =
        crate::tmux::copy::copy_pane_as(&server, id, crate::tmux::copy::Exactness::Lines).await?;
    Ok(built.map(|b| PaneCopy { pane, term: b.term }))
}

/// The lines `lines` holds copied into one buffer (see [`PaneLines`]).
pub fn lines_of(lines: &Lines<'_>, pane: PaneInfo) -> PaneLines {
    let bytes = (0..lines.len())
        .filter_map(|i| lines.get(i))
        .map(|l| l.text.len() + 1)
        .sum();
    let mut out = PaneLines {
        pane,
        text: Vec::with_capacity(bytes),
        lines: Vec::with_capacity(lines.len()),
    };
    for l in (0..lines.len()).filter_map(|i| lines.get(i)) {
        out.lines.push(LineInfo {
            start: out.text.len(),
            number: l.number,
            rows: l.rows,
            screen: l.screen,
        });
        out.text.extend_from_slice(l.text);
        out.text.push(b'\n');
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

    fn read(t: &Term, range: Range) -> PaneLines {
        lines_of(&Lines::of(t, range.bounds()), PaneInfo::default())
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
        let p = read(&t, Range::default());
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
        let p = read(
            &t,
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
        let p = read(&t, Range::default());
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
