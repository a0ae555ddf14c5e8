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
//! Today's source is [`Captures`]: per pane, one one-shot client runs, in
//! one command list (one moment), `display-message` (width, height,
//! history size, alternate screen), `capture-pane -a -J` (the normal
//! screen a full-screen program hides, as `search_panes` finds it; nothing
//! without one), a fence line of a random nonce, and `capture-pane -p -J`
//! of the range; two panes are in flight at a time. The answer is split
//! into lines as it streams in, so the work overlaps tmux writing it. Each
//! logical line's row count comes from the width model
//! ([`crate::term::width`]); when the counts do not add up to the rows of
//! the range, the pane is captured again joined and row by row in one
//! command list and the two are aligned
//! ([`crate::tmux::op::search::align_rows`]). Line numbers are counted from
//! the bottom of the range, so the newest lines are right even where a
//! count is off; the hidden screen's lines go between the history and the
//! screen, numbered from its top row (0). A pane that vanishes meanwhile is
//! skipped.

use std::collections::VecDeque;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesOrdered;

use super::errors::CliError;
use crate::mirror::scan::Screen;
use crate::term::width::{self, Rules};
use crate::term::{bottom_line, split_lines, top_line, trim_end_spaces};
use crate::tmux::op::search::align_rows;

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

/// What `#{pane_width} #{pane_height} #{history_size} #{alternate_on}`
/// said.
#[derive(Clone, Copy, Debug)]
struct State {
    width: usize,
    /// The bottom row of the range.
    bottom: i64,
    /// Rows in the range.
    rows: u64,
    /// The alternate screen is on: the screen's lines are a full-screen
    /// program's, the normal screen is hidden.
    alternate: bool,
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
        let alternate = f.next().unwrap_or(0) != 0;
        let start = range.start.map(|s| s.max(-i64::from(i32::MAX)));
        let bottom = bottom_line(start, range.end, hsize, height);
        let top = top_line(start, range.end, hsize, height);
        State {
            width: usize::try_from(width).unwrap_or(0),
            bottom,
            rows: u64::try_from(bottom - top + 1).unwrap_or(0),
            alternate,
        }
    }
}

/// Runs `cmds` as one one-shot client, handing stdout to `sink` as it
/// arrives; `false` when the pane is gone.
async fn one_shot(
    path: &Path,
    cmds: &[Vec<String>],
    mut sink: impl FnMut(&[u8]),
) -> Result<bool, CliError> {
    let refs: Vec<&[String]> = cmds.iter().map(Vec::as_slice).collect();
    let out = crate::wire::stream_command_list(path, &refs, IDLE, |d| {
        sink(d);
        true
    })
    .await
    .map_err(|e| CliError::new(e.to_string()))?;
    if out.success() {
        return Ok(true);
    }
    let msg = out.error_text();
    if msg.contains("can't find") {
        return Ok(false);
    }
    Err(CliError::new(format!(
        "search: {}",
        msg.lines().next().unwrap_or("")
    )))
}

/// Where the next line of a pane's answer goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The state line.
    State,
    /// The hidden normal screen's lines, up to the fence line.
    Hidden,
    /// The range's lines.
    Range,
}

/// Builds a [`PaneLines`] from a pane's answer as it streams in (so the
/// work overlaps tmux writing it): the state line, the hidden normal
/// screen's joined lines (`capture-pane -a -J`; none without the alternate
/// screen), a fence line of a random nonce that no pane can print without
/// knowing it, then the range's joined lines. Each line is trimmed, its
/// rows counted by the width model, and appended to one buffer.
struct Assembler {
    range: Range,
    rules: Rules,
    fence: Vec<u8>,
    part: Part,
    state: Option<State>,
    /// An unfinished line.
    partial: Vec<u8>,
    /// The range's lines, and their rows.
    text: Vec<u8>,
    lines: Vec<(usize, u32)>,
    /// The hidden screen's lines, and their rows.
    hidden: Vec<u8>,
    hidden_lines: Vec<(usize, u32)>,
    /// The raw lines, kept only when the rows are to be recounted.
    raw: Option<Vec<u8>>,
}

impl Assembler {
    fn new(range: Range, rules: Rules, fence: &str, keep_raw: bool) -> Assembler {
        Assembler {
            range,
            rules,
            fence: fence.as_bytes().to_vec(),
            part: Part::State,
            state: None,
            partial: Vec::new(),
            text: Vec::new(),
            lines: Vec::new(),
            hidden: Vec::new(),
            hidden_lines: Vec::new(),
            raw: keep_raw.then(Vec::new),
        }
    }

    fn feed(&mut self, mut data: &[u8]) {
        while let Some(i) = memchr::memchr(b'\n', data) {
            if self.partial.is_empty() {
                self.line(&data[..i]);
            } else {
                let mut l = std::mem::take(&mut self.partial);
                l.extend_from_slice(&data[..i]);
                self.line(&l);
            }
            data = &data[i + 1..];
        }
        self.partial.extend_from_slice(data);
    }

    fn line(&mut self, l: &[u8]) {
        match self.part {
            Part::State => {
                self.state = Some(State::parse(l, self.range));
                self.part = Part::Hidden;
            }
            Part::Hidden if l == self.fence.as_slice() => self.part = Part::Range,
            Part::Hidden => {
                let rows = self.rows(l);
                self.hidden_lines.push((self.hidden.len(), rows));
                self.hidden.extend_from_slice(trim_end_spaces(l));
                self.hidden.push(b'\n');
            }
            Part::Range => {
                if let Some(raw) = &mut self.raw {
                    raw.extend_from_slice(l);
                    raw.push(b'\n');
                    return;
                }
                let rows = self.rows(l);
                self.lines.push((self.text.len(), rows));
                self.text.extend_from_slice(trim_end_spaces(l));
                self.text.push(b'\n');
            }
        }
    }

    fn rows(&self, l: &[u8]) -> u32 {
        let width = self.state.map_or(0, |s| s.width);
        match std::str::from_utf8(l) {
            Ok(s) => width::rows(s, width, self.rules),
            Err(_) => width::rows(&String::from_utf8_lossy(l), width, self.rules),
        }
    }

    /// The lines, numbered from the bottom of the range (`rows` replaces
    /// the counted rows when given); `None` when the counts do not add up
    /// to the range's rows.
    fn finish(mut self, pane: PaneInfo, rows: Option<&[u32]>) -> Option<PaneLines> {
        let tail = std::mem::take(&mut self.partial);
        if !tail.is_empty() {
            self.line(&tail);
        }
        let st = self.state?;
        if let Some(rows) = rows {
            for (l, r) in self.lines.iter_mut().zip(rows) {
                l.1 = *r;
            }
        }
        let total: u64 = self.lines.iter().map(|&(_, r)| u64::from(r.max(1))).sum();
        if rows.is_none() && total != st.rows {
            return None;
        }
        let mut at = st.bottom - total as i64 + 1;
        let mut infos = Vec::with_capacity(self.lines.len() + self.hidden_lines.len());
        for &(start, r) in &self.lines {
            let r = r.max(1);
            // As the copy's search does: a line that reaches the screen is
            // on the screen shown.
            let screen = if st.alternate && at + i64::from(r) > 0 {
                Screen::Alternate
            } else {
                Screen::Main
            };
            infos.push(LineInfo {
                start,
                number: at,
                rows: r,
                screen,
            });
            at += i64::from(r);
        }
        let mut text = self.text;
        if st.alternate && !self.hidden_lines.is_empty() {
            // The hidden screen's lines go between the history and the
            // screen, numbered from its top row (0), as `search_panes`
            // gives them; those outside the range are left out.
            let split = infos
                .iter()
                .position(|l| l.screen == Screen::Alternate)
                .unwrap_or(infos.len());
            let cut = infos.get(split).map_or(text.len(), |l| l.start);
            let mut hidden_infos = Vec::new();
            let mut spliced = Vec::with_capacity(text.len() + self.hidden.len());
            spliced.extend_from_slice(&text[..cut]);
            let mut row = 0i64;
            let end = |i: usize| {
                self.hidden_lines
                    .get(i + 1)
                    .map_or(self.hidden.len(), |&(s, _)| s)
            };
            for (i, &(start, r)) in self.hidden_lines.iter().enumerate() {
                let r = r.max(1);
                let inside = self.range.start.is_none_or(|s| row + i64::from(r) > s)
                    && self.range.end.is_none_or(|e| row <= e);
                if inside {
                    hidden_infos.push(LineInfo {
                        start: spliced.len(),
                        number: row,
                        rows: r,
                        screen: Screen::HiddenMain,
                    });
                    spliced.extend_from_slice(&self.hidden[start..end(i)]);
                }
                row += i64::from(r);
            }
            let shift = spliced.len() - cut;
            spliced.extend_from_slice(&text[cut..]);
            for l in &mut infos[split..] {
                l.start += shift;
            }
            infos.splice(split..split, hidden_infos);
            text = spliced;
        }
        Some(PaneLines {
            pane,
            text,
            lines: infos,
        })
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
    let fence = format!("tmuxwire-{}", crate::control::format::nonce());
    let cmds = |rows_too: bool| {
        let mut cmds = vec![
            vec![
                "display-message".to_string(),
                "-p".into(),
                "-t".into(),
                t.clone(),
                "#{pane_width} #{pane_height} #{history_size} #{alternate_on}".into(),
            ],
            // The normal screen a full-screen program hides (nothing, and
            // no error, without one).
            vec![
                "capture-pane".to_string(),
                "-p".into(),
                "-a".into(),
                "-J".into(),
                "-q".into(),
                "-t".into(),
                t.clone(),
            ],
            vec![
                "display-message".to_string(),
                "-p".into(),
                "-t".into(),
                t.clone(),
                fence.clone(),
            ],
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
        cmds.push(capture(true));
        if rows_too {
            cmds.push(capture(false));
        }
        cmds
    };
    let mut a = Assembler::new(range, rules, &fence, false);
    if !one_shot(&path, &cmds(false), |d| a.feed(d)).await? {
        return Ok(None);
    }
    let pane = match a.finish(pane.clone(), None) {
        Some(lines) => return Ok(Some(lines)),
        None => pane,
    };
    // The widths tmux used differ from the model somewhere: count the
    // rows exactly, from a joined and a row-by-row capture of one moment.
    tracing::debug!(pane = %pane.pane_id, "row estimate off; recounting rows");
    let mut a = Assembler::new(range, rules, &fence, true);
    if !one_shot(&path, &cmds(true), |d| a.feed(d)).await? {
        return Ok(None);
    }
    let Some(st) = a.state else {
        return Ok(None);
    };
    let rest = a.raw.take().unwrap_or_default();
    // The row-by-row capture is the last `rows` lines.
    let body = rest.strip_suffix(b"\n").unwrap_or(&rest);
    let mut cut = body.len();
    let mut found = 0u64;
    while found < st.rows {
        match memchr::memrchr(b'\n', &body[..cut]) {
            Some(i) => {
                cut = i;
                found += 1;
            }
            None => break,
        }
    }
    let (joined, rows) = if found < st.rows {
        // Fewer lines than rows: the two do not split; keep estimates.
        (&rest[..], None)
    } else {
        let (joined, plain) = (&body[..cut + 1], &body[cut + 1..]);
        let jl: Vec<&[u8]> = split_lines(joined).collect();
        let pl: Vec<&[u8]> = plain.split(|&b| b == b'\n').collect();
        (joined, align_rows(&jl, &pl))
    };
    let mut b = Assembler::new(range, rules, &fence, false);
    b.state = Some(st);
    b.part = Part::Range;
    b.hidden = a.hidden;
    b.hidden_lines = a.hidden_lines;
    b.feed(joined);
    let rows = rows.unwrap_or_else(|| b.lines.iter().map(|&(_, r)| r).collect());
    Ok(b.finish(pane, Some(&rows)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer fed in pieces: `state`, hidden lines, the fence, `range`.
    fn assemble(state: &str, hidden: &str, range: &str, cut: usize) -> Option<PaneLines> {
        let body = format!("{state}\n{hidden}FENCE\n{range}");
        let mut a = Assembler::new(Range::default(), Rules::V34, "FENCE", false);
        for piece in body.as_bytes().chunks(cut) {
            a.feed(piece);
        }
        a.finish(PaneInfo::default(), None)
    }

    #[test]
    fn lines_from_the_bottom() {
        for cut in [1, 3, 1000] {
            let p = assemble(
                "20 3 2 0",
                "",
                "old\n0123456789abcdefNEEDLEXYZ-tail\nprompt   \n\n",
                cut,
            )
            .expect("rows add up");
            let numbers: Vec<i64> = p.lines.iter().map(|l| l.number).collect();
            assert_eq!(numbers, [-2, -1, 1, 2]);
            assert_eq!(p.line(1), b"0123456789abcdefNEEDLEXYZ-tail");
            assert_eq!(p.line(2), b"prompt", "trailing blanks are trimmed");
            assert_eq!(p.line(3), b"");
            assert_eq!(p.text.iter().filter(|&&b| b == b'\n').count(), 4);
        }
        // Rows that do not add up: recounted by the caller.
        assert!(assemble("20 3 5 0", "", "a\n", 7).is_none());
    }

    #[test]
    fn hidden_screen_between_history_and_screen() {
        let p = assemble(
            "20 2 1 1",
            "main one\nmain two\n",
            "hist\nalt a\nalt b\n",
            2,
        )
        .expect("rows add up");
        let got: Vec<(String, i64, Screen)> = (0..p.lines.len())
            .map(|i| {
                (
                    String::from_utf8_lossy(p.line(i)).into_owned(),
                    p.lines[i].number,
                    p.lines[i].screen,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("hist".into(), -1, Screen::Main),
                ("main one".into(), 0, Screen::HiddenMain),
                ("main two".into(), 1, Screen::HiddenMain),
                ("alt a".into(), 0, Screen::Alternate),
                ("alt b".into(), 1, Screen::Alternate),
            ]
        );
        // A pane line equal to another nonce is a line.
        let p = assemble("20 1 0 0", "", "FENCE2\n", 4).expect("rows add up");
        assert_eq!(p.line(0), b"FENCE2");
    }

    #[test]
    fn states() {
        let r = Range::default();
        let s = State::parse(b"80 24 100 0", r);
        assert_eq!(
            (s.width, s.bottom, s.rows, s.alternate),
            (80, 23, 124, false)
        );
        assert!(State::parse(b"80 24 100 1", r).alternate);
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
