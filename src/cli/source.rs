//! Where `search` gets each pane's text: the seam between reading panes
//! and grepping them.
//!
//! A [`LineSource`] yields, pane by pane in `tmuxwire panes` order, the
//! pane's logical lines as one contiguous buffer ([`PaneLines::text`],
//! each line ended by `\n`, trailing blanks trimmed) with, for every line,
//! where it starts in the buffer, the tmux line number of its first row
//! and the rows it fills ([`LineInfo`]). `search` (`super::grep`) matches
//! over the whole buffer with [`crate::search::Pattern`] and prints from
//! these facts alone, so a source can be swapped without touching it.
//!
//! Today's source is [`Captures`]: per pane, one one-shot client runs
//! `display-message` (width, height, history size) and `capture-pane -p
//! -J` of the range in one command list (one moment), two panes in flight
//! at a time. Each logical line's row count comes from the width model
//! ([`crate::term::width`]); when the counts do not add up to the rows of
//! the range, the pane is captured again joined and row by row in one
//! command list and the two are aligned
//! ([`crate::tmux::search::align_rows`]). Line numbers are counted from
//! the bottom of the range, so the newest lines are right even where a
//! count is off. A pane that vanishes meanwhile is skipped.

use std::collections::VecDeque;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesOrdered;

use super::tool::CliError;
use crate::mirror::scan::Screen;
use crate::term::width::{self, Rules};
use crate::tmux::ops::{split_lines, trim_end_spaces};
use crate::tmux::search::{align_rows, bottom_line, top_line};

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

/// Panes captured at once.
const IN_FLIGHT: usize = 2;

/// Longest wait for the next frame of a capture.
const IDLE: Duration = Duration::from_secs(120);

/// [`LineSource`] by tmux captures (see the module docs).
pub struct Captures {
    path: PathBuf,
    range: Range,
    rules: Rules,
    todo: VecDeque<PaneInfo>,
    running: FuturesOrdered<BoxFuture<'static, Result<Option<PaneLines>, CliError>>>,
}

impl Captures {
    /// Reads `panes` (in this order) of the server at `path`, whose width
    /// rules are `rules`, over `range`.
    pub fn new(path: PathBuf, rules: Rules, panes: Vec<PaneInfo>, range: Range) -> Captures {
        Captures {
            path,
            range,
            rules,
            todo: panes.into(),
            running: FuturesOrdered::new(),
        }
    }
}

impl LineSource for Captures {
    async fn next_pane(&mut self) -> Option<Result<PaneLines, CliError>> {
        loop {
            while self.running.len() < IN_FLIGHT
                && let Some(p) = self.todo.pop_front()
            {
                let path = self.path.clone();
                let (range, rules) = (self.range, self.rules);
                self.running
                    .push_back(Box::pin(read_pane(path, p, range, rules)));
            }
            match self.running.next().await? {
                Ok(Some(p)) => return Some(Ok(p)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// A line number as tmux's `-S`/`-E` take it (see `capture::line_value`).
fn line_arg(v: Option<i64>) -> String {
    v.map_or("-".to_string(), |n| {
        n.clamp(-i64::from(i32::MAX), i64::from(i16::MAX))
            .to_string()
    })
}

/// What `#{pane_width} #{pane_height} #{history_size}` said.
#[derive(Clone, Copy, Debug)]
struct State {
    width: usize,
    /// The bottom row of the range.
    bottom: i64,
    /// Rows in the range.
    rows: u64,
}

impl State {
    fn parse(line: &[u8], range: Range) -> State {
        let text = String::from_utf8_lossy(line);
        let mut f = text
            .split(' ')
            .map(|x| x.trim().parse::<i64>().unwrap_or(0));
        let width = f.next().unwrap_or(0).max(0);
        let height = f.next().unwrap_or(1).max(1);
        let hsize = f.next().unwrap_or(0).max(0);
        let start = range.start.map(|s| s.max(-i64::from(i32::MAX)));
        let bottom = bottom_line(start, range.end, hsize, height);
        let top = top_line(start, range.end, hsize, height);
        State {
            width: usize::try_from(width).unwrap_or(0),
            bottom,
            rows: u64::try_from(bottom - top + 1).unwrap_or(0),
        }
    }
}

/// Runs `cmds` as one one-shot client: stdout, `None` when the pane is
/// gone.
async fn one_shot(path: &Path, cmds: &[Vec<String>]) -> Result<Option<Vec<u8>>, CliError> {
    let refs: Vec<&[String]> = cmds.iter().map(Vec::as_slice).collect();
    let mut body = Vec::new();
    let out = crate::wire::stream_command_list(path, &refs, IDLE, |d| {
        body.extend_from_slice(d);
        true
    })
    .await
    .map_err(|e| CliError::new(e.to_string()))?;
    if out.success() {
        return Ok(Some(body));
    }
    let msg = out.error_text();
    if msg.contains("can't find") {
        return Ok(None);
    }
    Err(CliError::new(format!(
        "search: {}",
        msg.lines().next().unwrap_or("")
    )))
}

/// Splits `body` after its first line: (first line, rest).
fn first_line(body: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'\n', body) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &[]),
    }
}

/// Reads one pane (see the module docs).
async fn read_pane(
    path: PathBuf,
    pane: PaneInfo,
    range: Range,
    rules: Rules,
) -> Result<Option<PaneLines>, CliError> {
    let t = pane.pane_id.clone();
    let state = vec![
        "display-message".to_string(),
        "-p".into(),
        "-t".into(),
        t.clone(),
        "#{pane_width} #{pane_height} #{history_size}".into(),
    ];
    let capture = |join: bool| {
        let mut v = vec!["capture-pane".to_string(), "-p".into()];
        if join {
            v.push("-J".into());
        }
        v.extend(["-t".into(), t.clone()]);
        v.extend(["-S".into(), line_arg(range.start)]);
        v.extend(["-E".into(), line_arg(range.end)]);
        v
    };
    let Some(body) = one_shot(&path, &[state.clone(), capture(true)]).await? else {
        return Ok(None);
    };
    let (head, joined) = first_line(&body);
    let st = State::parse(head, range);
    let estimated: Vec<u32> = split_lines(joined)
        .map(|l| width::rows(&String::from_utf8_lossy(l), st.width, rules))
        .collect();
    let total: u64 = estimated.iter().map(|&r| u64::from(r)).sum();
    if total == st.rows {
        return Ok(Some(build(pane, joined, &estimated, st.bottom)));
    }
    // The widths tmux used differ from the model somewhere: count the
    // rows exactly, from a joined and a row-by-row capture of one moment.
    tracing::debug!(pane = %pane.pane_id, "row estimate off; recounting rows");
    let Some(body) = one_shot(&path, &[state, capture(true), capture(false)]).await? else {
        return Ok(None);
    };
    let (head, rest) = first_line(&body);
    let st = State::parse(head, range);
    // The row-by-row capture is the last `rows` lines.
    let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
    let mut cut = rest.len();
    let mut found = 0u64;
    while found < st.rows {
        match memchr::memrchr(b'\n', &rest[..cut]) {
            Some(i) => {
                cut = i;
                found += 1;
            }
            None => break,
        }
    }
    if found < st.rows {
        // Fewer lines than rows: the two do not split; keep estimates.
        let estimated: Vec<u32> = split_lines(rest)
            .map(|l| width::rows(&String::from_utf8_lossy(l), st.width, rules))
            .collect();
        return Ok(Some(build(pane, rest, &estimated, st.bottom)));
    }
    let (joined, plain) = (&rest[..cut + 1], &rest[cut + 1..]);
    let jl: Vec<&[u8]> = split_lines(joined).collect();
    let pl: Vec<&[u8]> = plain.split(|&b| b == b'\n').collect();
    let rows = align_rows(&jl, &pl).unwrap_or_else(|| {
        jl.iter()
            .map(|l| width::rows(&String::from_utf8_lossy(l), st.width, rules))
            .collect()
    });
    Ok(Some(build(pane, joined, &rows, st.bottom)))
}

/// The lines of a `capture-pane -p -J` body with `rows[i]` rows each,
/// numbered from `bottom`, the tmux line number of the range's last row.
fn build(pane: PaneInfo, joined: &[u8], rows: &[u32], bottom: i64) -> PaneLines {
    let mut text = Vec::with_capacity(joined.len());
    let mut lines = Vec::with_capacity(rows.len());
    let total: i64 = rows.iter().map(|&r| i64::from(r.max(1))).sum();
    // The first row of line 0, counted back from the bottom.
    let mut at = bottom - total + 1;
    for (k, line) in split_lines(joined).enumerate() {
        let r = rows.get(k).copied().unwrap_or(1).max(1);
        lines.push(LineInfo {
            start: text.len(),
            number: at,
            rows: r,
            screen: Screen::Main,
        });
        at += i64::from(r);
        text.extend_from_slice(trim_end_spaces(line));
        text.push(b'\n');
    }
    PaneLines { pane, text, lines }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_from_the_bottom() {
        let p = build(
            PaneInfo::default(),
            b"old\n0123456789abcdefNEEDLEXYZ-tail\nprompt   \n\n",
            &[1, 2, 1, 1],
            1,
        );
        let numbers: Vec<i64> = p.lines.iter().map(|l| l.number).collect();
        assert_eq!(numbers, [-3, -2, 0, 1]);
        assert_eq!(p.line(1), b"0123456789abcdefNEEDLEXYZ-tail");
        assert_eq!(p.line(2), b"prompt", "trailing blanks are trimmed");
        assert_eq!(p.line(3), b"");
        assert_eq!(p.text.iter().filter(|&&b| b == b'\n').count(), 4);
        assert!(build(PaneInfo::default(), b"", &[], 0).lines.is_empty());
    }

    #[test]
    fn states() {
        let r = Range::default();
        let s = State::parse(b"80 24 100", r);
        assert_eq!((s.width, s.bottom, s.rows), (80, 23, 124));
        let s = State::parse(
            b"80 24 100",
            Range {
                start: Some(-5),
                end: Some(-1),
            },
        );
        assert_eq!((s.bottom, s.rows), (-1, 5));
        let s = State::parse(b"junk", r);
        assert_eq!((s.width, s.rows), (0, 1));
        assert_eq!(line_arg(Some(-9_999_999_999)), "-2147483647");
        assert_eq!(line_arg(None), "-");
    }
}
