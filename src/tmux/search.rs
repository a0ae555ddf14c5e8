//! `search_panes`: find the logical lines that match a pattern in many
//! panes' scrollback and screen.
//!
//! One `list-panes` gives the panes in scope with their geometry; then one
//! `capture-pane -p -J` per pane is pipelined on the connection (soft
//! wraps joined, so text split by a wrap is found), and each capture is
//! scanned on a blocking thread as soon as it arrives, while the next one
//! is still streaming in.
//!
//! Each matched line carries its tmux line number (the `capture-pane
//! -S/-E` numbering: 0 is the top row of the visible screen, negative
//! numbers are history) of its first row, and how many rows it spans. The
//! rows of a logical line are worked out from its width in cells and the
//! pane width, counting from the bottom of the captured range (which is
//! fixed however much history grows meanwhile).

use std::sync::Arc;

use futures::StreamExt;

use schemars::JsonSchema;
use serde::Serialize;
use unicode_width::UnicodeWidthChar;

use super::error::Error;
use super::format::Record;
use super::handle::Tmux;
use super::model::Geometry;
use super::ops::{PaneScope, keep_tail, split_lines, trim_end_spaces};
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::search::Pattern;

/// A search over panes.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The compiled pattern.
    pub pattern: Arc<Pattern>,
    /// The panes to search.
    pub scope: PaneScope,
    /// First line to search (tmux numbering); `None`: the oldest history
    /// line.
    pub content_start: Option<i64>,
    /// Last line; `None`: the bottom of the screen.
    pub content_end: Option<i64>,
    /// Matched lines kept per pane (the newest ones), at least 1.
    pub max_matched_lines_per_pane: usize,
    /// Panes per page (`None`: all).
    pub limit: Option<usize>,
    /// Panes skipped before the page.
    pub offset: usize,
}

/// The matches in one pane (libtmux-mcp `PaneContentMatch`, plus line
/// numbers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PaneContentMatch {
    /// Pane id, `%N`.
    pub pane_id: String,
    /// Position in the window.
    #[serde(flatten)]
    pub geometry: Geometry,
    /// The pane's tty device.
    pub pane_tty: String,
    /// Name of the foreground process.
    pub pane_current_command: String,
    /// Working directory of the foreground process.
    pub pane_current_path: String,
    /// The pane's window.
    pub window_id: String,
    /// The window's name.
    pub window_name: String,
    /// The pane's session.
    pub session_id: String,
    /// The session's name.
    pub session_name: String,
    /// The window's index in that session.
    pub window_index: String,
    /// The pane's index in its window.
    pub pane_index: String,
    /// The matching logical lines (soft wraps joined, trailing blanks
    /// trimmed), oldest first; the newest `max_matched_lines_per_pane` when
    /// there were more.
    pub matched_lines: Vec<String>,
    /// For each matched line, the tmux line number of its first row: 0 is
    /// the top row of the visible screen, negative numbers are history
    /// (`capture-pane -S/-E` numbering).
    pub matched_line_numbers: Vec<i64>,
    /// For each matched line, how many screen rows it spans (more than 1
    /// when it was soft-wrapped).
    pub matched_line_rows: Vec<u32>,
    /// How many lines matched in this pane, before the per-pane cap.
    pub matched_line_count: usize,
    /// See [`super::model::PaneInfo::is_caller`].
    pub is_caller: Option<bool>,
}

/// A page of search results (libtmux-mcp `SearchPanesResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchPanesResult {
    /// Panes with matches, ordered by pane number (`%2` before `%10`),
    /// this page only.
    pub matches: Vec<PaneContentMatch>,
    /// True when a pane's lines were capped or more panes follow the page.
    pub truncated: bool,
    /// Ids of the matching panes after this page.
    pub truncated_panes: Vec<String>,
    /// Matching panes in all pages.
    pub total_panes_matched: usize,
    /// Panes skipped before this page.
    pub offset: usize,
    /// Page size (`null`: unlimited).
    pub limit: Option<usize>,
    /// Panes searched.
    pub panes_searched: usize,
}

const FIELDS: &[&str] = &[
    "pane_id",
    "pane_left",
    "pane_top",
    "pane_right",
    "pane_bottom",
    "pane_at_left",
    "pane_at_right",
    "pane_at_top",
    "pane_at_bottom",
    "pane_tty",
    "pane_current_command",
    "window_id",
    "window_name",
    "session_id",
    "session_name",
    "pane_width",
    "pane_height",
    "history_size",
    "window_index",
    "pane_index",
    "pane_current_path",
];

/// Captures requested from tmux at once during a search.
const CAPTURES_IN_FLIGHT: usize = 2;

/// The largest line number `capture-pane` accepts (`SHRT_MAX`); larger
/// values are silently ignored by tmux, so they are clamped here.
pub const MAX_LINE_ARG: i64 = i16::MAX as i64;

/// The tmux line number (0 = top of screen) of the bottom row a capture
/// of `start..=end` covers, as `cmd-capture-pane.c` computes it from the
/// history size and screen height.
pub fn bottom_line(start: Option<i64>, end: Option<i64>, hsize: i64, height: i64) -> i64 {
    let last = height.max(1) - 1;
    let clamp = |n: i64| if n < -hsize { -hsize } else { n.min(last) };
    let top = start.map_or(-hsize, clamp);
    let bottom = end.map_or(last, clamp);
    top.max(bottom)
}

/// How many rows of a `width`-cell pane a logical line of `text` fills
/// (tmux wraps before a character that does not fit; a double-width
/// character that does not fit in the last cell moves to the next row).
pub fn rows_for(text: &[u8], width: usize) -> u32 {
    if width == 0 {
        return 1;
    }
    if text.is_ascii() && !text.contains(&b'\t') {
        return text.len().div_ceil(width).max(1) as u32;
    }
    let mut rows = 1u32;
    let mut col = 0usize;
    for c in String::from_utf8_lossy(text).chars() {
        let w = if c == '\t' {
            (col / 8 + 1) * 8 - col
        } else {
            c.width().unwrap_or(0)
        };
        if w == 0 {
            continue;
        }
        if col + w > width && col > 0 {
            rows += 1;
            col = 0;
        }
        col += w;
    }
    rows
}

/// What one pane's scan found.
#[derive(Debug, Default)]
struct PaneHits {
    lines: Vec<String>,
    numbers: Vec<i64>,
    rows: Vec<u32>,
    count: usize,
}

/// Scans one pane's `capture-pane -p -J` output.
fn scan(body: &[u8], pattern: &Pattern, width: usize, bottom: i64, keep: usize) -> PaneHits {
    let mut hay = Vec::with_capacity(body.len());
    let mut starts: Vec<usize> = Vec::new();
    let mut rows: Vec<u32> = Vec::new();
    for line in split_lines(body) {
        starts.push(hay.len());
        rows.push(rows_for(line, width));
        hay.extend_from_slice(trim_end_spaces(line));
        hay.push(b'\n');
    }
    let mut found = pattern.find_lines(&hay);
    let count = found.len();
    keep_tail(&mut found, Some(keep));
    if found.is_empty() {
        return PaneHits {
            count,
            ..PaneHits::default()
        };
    }
    // Rows after each line, summed from the bottom.
    let total: u64 = rows.iter().map(|&r| u64::from(r)).sum();
    let mut before = vec![0u64; rows.len() + 1];
    for (i, r) in rows.iter().enumerate() {
        before[i + 1] = before[i] + u64::from(*r);
    }
    let mut hits = PaneHits {
        count,
        ..PaneHits::default()
    };
    for m in found {
        let i = m.line;
        // Every line is followed by its `\n`.
        let end = starts.get(i + 1).map_or(hay.len(), |&s| s) - 1;
        let text = &hay[starts[i]..end];
        let after = total - before[i + 1];
        let r = rows[i];
        hits.lines.push(String::from_utf8_lossy(text).into_owned());
        hits.numbers.push(bottom - after as i64 - i64::from(r) + 1);
        hits.rows.push(r);
    }
    hits
}

/// Sort key giving numeric pane order (`%2` < `%10`).
fn pane_key(id: &str) -> (u8, u64, String) {
    match id.parse::<PaneId>() {
        Ok(p) => (0, u64::from(p.0), String::new()),
        Err(_) => (1, 0, id.to_string()),
    }
}

impl Tmux {
    /// Runs a search (see the module docs).
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] for a missing session scope; connection errors.
    /// A pane that disappears during the search is skipped.
    pub async fn search_panes(&self, req: &SearchRequest) -> Result<SearchPanesResult, Error> {
        let mut panes = self.pane_records(&req.scope, FIELDS).await?;
        // Linked windows and grouped sessions list a pane more than once.
        let mut seen = std::collections::HashSet::new();
        panes.retain(|r| seen.insert(r.string(0)));
        let start_arg = req
            .content_start
            .map_or("-".to_string(), |s| s.min(MAX_LINE_ARG).to_string());
        let end_arg = req
            .content_end
            .map_or("-".to_string(), |e| e.min(MAX_LINE_ARG).to_string());

        // Captures go out CAPTURES_IN_FLIGHT at a time: tmux renders one
        // while the previous one streams to us and is scanned on a blocking
        // thread, instead of rendering every pane before writing any.
        // Ids and commands first, so the stream's items hold no borrows.
        let cmds: Vec<(usize, Command)> = panes
            .iter()
            .enumerate()
            .filter_map(|(i, rec)| {
                let id = rec.str(0).parse::<PaneId>().ok()?;
                let cmd = Command::new("capture-pane")
                    .arg("-p")
                    .arg("-J")
                    .opt("-S", start_arg.clone())
                    .opt("-E", end_arg.clone())
                    .target(&Target::Pane(id), TargetKind::Pane);
                Some((i, cmd))
            })
            .collect();
        let captures = futures::stream::iter(cmds)
            .map(|(i, cmd)| async move {
                match self.run(&cmd).await {
                    Ok(o) if o.ok => (i, Ok(Some(o.body))),
                    // The pane went away meanwhile: skip it.
                    Ok(_) => (i, Ok(None)),
                    Err(e) => (i, Err(e)),
                }
            })
            .buffered(CAPTURES_IN_FLIGHT);
        futures::pin_mut!(captures);
        let mut scans = Vec::with_capacity(panes.len());
        while let Some((i, captured)) = captures.next().await {
            let Some(body) = captured? else { continue };
            let rec = &panes[i];
            let width = rec.int(15).unwrap_or(0).max(0) as usize;
            let height = rec.int(16).unwrap_or(1);
            let hsize = rec.int(17).unwrap_or(0);
            let bottom = bottom_line(req.content_start, req.content_end, hsize, height);
            let keep = req.max_matched_lines_per_pane;
            let pattern = req.pattern.clone();
            let task =
                tokio::task::spawn_blocking(move || scan(&body, &pattern, width, bottom, keep));
            scans.push((i, task));
        }

        let mut matched: Vec<(PaneContentMatch, bool)> = Vec::new();
        for (i, task) in scans {
            let hits = task
                .await
                .map_err(|e| Error::Connection(format!("search task failed: {e}")))?;
            let rec = &panes[i];
            if hits.count == 0 {
                continue;
            }
            let capped = hits.count > hits.lines.len();
            matched.push((self.pane_match(rec, hits), capped));
        }
        matched.sort_by_key(|m| pane_key(&m.0.pane_id));
        let total = matched.len();
        let page_end = req
            .limit
            .map_or(total, |l| req.offset.saturating_add(l).min(total));
        let page_start = req.offset.min(total);
        let truncated_panes: Vec<String> = matched[page_end..]
            .iter()
            .map(|m| m.0.pane_id.clone())
            .collect();
        let page: Vec<(PaneContentMatch, bool)> = matched.drain(page_start..page_end).collect();
        let truncated = !truncated_panes.is_empty() || page.iter().any(|(_, capped)| *capped);
        Ok(SearchPanesResult {
            matches: page.into_iter().map(|(m, _)| m).collect(),
            truncated,
            truncated_panes,
            total_panes_matched: total,
            offset: req.offset,
            limit: req.limit,
            panes_searched: panes.len(),
        })
    }

    fn pane_match(&self, r: &Record, hits: PaneHits) -> PaneContentMatch {
        PaneContentMatch {
            pane_id: r.string(0),
            geometry: Geometry::from_record(r, 1),
            pane_tty: r.string(9),
            pane_current_command: r.string(10),
            window_id: r.string(11),
            window_name: r.string(12),
            session_id: r.string(13),
            session_name: r.string(14),
            window_index: r.string(18),
            pane_index: r.string(19),
            pane_current_path: r.string(20),
            matched_lines: hits.lines,
            matched_line_numbers: hits.numbers,
            matched_line_rows: hits.rows,
            matched_line_count: hits.count,
            is_caller: self.is_caller(r.str(0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::PatternOptions;

    #[test]
    fn rows() {
        assert_eq!(rows_for(b"", 20), 1);
        assert_eq!(rows_for(b"0123456789abcdefNEEDLEXYZ-tail", 20), 2);
        assert_eq!(rows_for(&[b'x'; 20], 20), 1);
        assert_eq!(rows_for(&[b'x'; 21], 20), 2);
        assert_eq!(rows_for(&[b'x'; 100], 40), 3);
        // 中文 + 18 x = 22 cells: "中文" + 16 x, then "xx".
        assert_eq!(rows_for("中文xxxxxxxxxxxxxxxxxx".as_bytes(), 20), 2);
        // A wide character that does not fit in the last cell wraps early.
        assert_eq!(rows_for("xxxxxxxxxxxxxxxxxxx中".as_bytes(), 20), 2);
        assert_eq!(rows_for("xxxxxxxxxxxxxxxxxx中".as_bytes(), 20), 1);
        assert_eq!(rows_for(b"a\tb", 20), 1);
        assert_eq!(rows_for(b"x", 0), 1);
    }

    #[test]
    fn bottom_lines() {
        // Default range: whole history to the bottom of a 24-row screen.
        assert_eq!(bottom_line(None, None, 100, 24), 23);
        assert_eq!(bottom_line(Some(-5), Some(3), 100, 24), 3);
        assert_eq!(bottom_line(Some(-5), Some(99), 100, 24), 23);
        assert_eq!(
            bottom_line(Some(5), Some(2), 100, 24),
            5,
            "swapped like tmux"
        );
        assert_eq!(bottom_line(None, Some(-500), 100, 24), -100);
    }

    #[test]
    fn scan_numbers_from_the_bottom() {
        let pat = Pattern::new("NEEDLE", PatternOptions::literal()).unwrap();
        // 20-wide pane, 3 history rows + 2 screen rows; the needle line
        // wraps over rows -1 and 0.
        let body = b"old\n0123456789abcdefNEEDLEXYZ-tail\nprompt   \n\n";
        // rows: old=1, needle=2, prompt=1, empty=1 -> 5 rows, bottom = 1.
        let hits = scan(body, &pat, 20, 1, 50);
        assert_eq!(hits.lines, vec!["0123456789abcdefNEEDLEXYZ-tail"]);
        assert_eq!(hits.numbers, vec![-2]);
        assert_eq!(hits.rows, vec![2]);
        let pat = Pattern::new("prompt$", PatternOptions::regex()).unwrap();
        let hits = scan(body, &pat, 20, 1, 50);
        assert_eq!(hits.lines, vec!["prompt"], "trailing blanks are trimmed");
        assert_eq!(hits.numbers, vec![0]);
    }

    #[test]
    fn scan_keeps_newest() {
        let pat = Pattern::new("x", PatternOptions::literal()).unwrap();
        let hits = scan(b"x1\nx2\nx3\n", &pat, 80, 2, 2);
        assert_eq!(hits.lines, vec!["x2", "x3"]);
        assert_eq!(hits.count, 3);
        assert_eq!(hits.numbers, vec![1, 2]);
    }

    #[test]
    fn numeric_pane_order() {
        let mut v = vec!["%10", "%2", "%1", "x"];
        v.sort_by_key(|a| pane_key(a));
        assert_eq!(v, vec!["%1", "%2", "%10", "x"]);
    }
}
