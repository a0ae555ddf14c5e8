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
//! rows of a logical line are first worked out from its width in cells
//! ([`crate::term::width`], by tmux version) and the pane width, counting
//! from the bottom of the captured range (which is fixed however much
//! history grows meanwhile). Then every number returned is *checked* with
//! tmux (`capture-pane -J` of exactly those rows, all in one round trip);
//! for a pane where a check fails (a character whose width tmux sees
//! differently, or output that arrived meanwhile), the pane is captured
//! again both joined and row by row in one write, and rows are counted by
//! aligning the two ([`align_rows`]).

use std::sync::Arc;

use futures::StreamExt;

use schemars::JsonSchema;
use serde::Serialize;

use super::error::Error;
use super::handle::Tmux;
use super::model::Geometry;
use super::ops::{PaneScope, keep_tail, split_lines, trim_end_spaces};
use crate::control::format::Record;
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::search::Pattern;
use crate::term::width::{self, Rules};

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
    /// there were more. A line over 4096 bytes is cut to 4096 bytes around
    /// its first match, `…` marking the cuts.
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
    /// Panes with matches, in tmux's order (`list_panes`: sessions, then
    /// windows by index, then panes by index), this page only.
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
    /// Matched lines left out of this page to keep the answer within the
    /// response budget (1 MiB), beyond those `max_matched_lines_per_pane`
    /// left out; each pane's `matched_line_count` still counts them.
    /// Narrow the search (`content_start`/`content_end`, a session, a
    /// tighter pattern, `limit`) to see them.
    pub lines_omitted: usize,
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

/// Bytes of matched lines one answer carries at most (about 1 MiB of
/// text); older lines beyond it are left out and counted in
/// [`SearchPanesResult::lines_omitted`].
pub const RESPONSE_BUDGET: usize = 1 << 20;

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

/// What one pane's scan found.
#[derive(Debug, Default)]
struct PaneHits {
    lines: Vec<String>,
    numbers: Vec<i64>,
    rows: Vec<u32>,
    count: usize,
    /// The rows all captured lines fill, as counted: equal to the rows of
    /// the captured range when every count was right.
    rows_total: u64,
}

impl PaneHits {
    /// Keeps the newest lines that fit in `budget` bytes (at least one
    /// line's worth is never promised), takes their size off `budget`,
    /// and returns how many older lines were dropped.
    fn fit(&mut self, budget: &mut usize) -> usize {
        let mut used = 0usize;
        let mut keep = 0usize;
        for l in self.lines.iter().rev() {
            // The line and its JSON overhead (quotes, comma, number, rows).
            let cost = l.len() + 24;
            if used + cost > *budget {
                break;
            }
            used += cost;
            keep += 1;
        }
        *budget -= used;
        let drop = self.lines.len() - keep;
        self.lines.drain(..drop);
        self.numbers.drain(..drop);
        self.rows.drain(..drop);
        drop
    }
}

/// The rows each logical line of a `capture-pane -J` fills.
enum RowCount<'a> {
    /// Worked out from widths.
    Estimate { width: usize, rules: Rules },
    /// Known (from [`align_rows`]), one entry per line.
    Exact(&'a [u32]),
}

/// Scans one pane's `capture-pane -p -J` output.
fn scan(
    body: &[u8],
    pattern: &Pattern,
    rows_of: RowCount<'_>,
    bottom: i64,
    keep: usize,
) -> PaneHits {
    let mut hay = Vec::with_capacity(body.len());
    let mut starts: Vec<usize> = Vec::new();
    let mut rows: Vec<u32> = Vec::new();
    for (k, line) in split_lines(body).enumerate() {
        starts.push(hay.len());
        rows.push(match rows_of {
            RowCount::Estimate { width, rules } => {
                width::rows(&String::from_utf8_lossy(line), width, rules)
            }
            RowCount::Exact(r) => r.get(k).copied().unwrap_or(1),
        });
        hay.extend_from_slice(trim_end_spaces(line));
        hay.push(b'\n');
    }
    let mut found = pattern.find_lines(&hay);
    let count = found.len();
    keep_tail(&mut found, Some(keep));
    let total: u64 = rows.iter().map(|&r| u64::from(r)).sum();
    let mut hits = PaneHits {
        count,
        rows_total: total,
        ..PaneHits::default()
    };
    if found.is_empty() {
        return hits;
    }
    // Rows after each line, summed from the bottom.
    let mut before = vec![0u64; rows.len() + 1];
    for (i, r) in rows.iter().enumerate() {
        before[i + 1] = before[i] + u64::from(*r);
    }
    for m in found {
        let i = m.line;
        // Every line is followed by its `\n`.
        let end = starts.get(i + 1).map_or(hay.len(), |&s| s) - 1;
        let text = &hay[starts[i]..end];
        let after = total - before[i + 1];
        let r = rows[i];
        hits.lines.push(excerpt(text, m.start, m.end));
        hits.numbers.push(bottom - after as i64 - i64::from(r) + 1);
        hits.rows.push(r);
    }
    hits
}

/// The longest matched line returned whole, in bytes; a longer one is cut
/// to this much around its first match, with `…` marking each cut.
pub const MAX_LINE_BYTES: usize = 4096;

/// `line` as text, cut around `start..end` when it is over
/// [`MAX_LINE_BYTES`].
fn excerpt(line: &[u8], start: usize, end: usize) -> String {
    if line.len() <= MAX_LINE_BYTES {
        return String::from_utf8_lossy(line).into_owned();
    }
    let half = MAX_LINE_BYTES.saturating_sub(end.saturating_sub(start)) / 2;
    let mut from = start.saturating_sub(half);
    let mut to = (end + half).min(line.len());
    // Whole UTF-8 characters only.
    while from > 0 && (line[from] & 0xC0) == 0x80 {
        from -= 1;
    }
    while to < line.len() && (line[to] & 0xC0) == 0x80 {
        to += 1;
    }
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&String::from_utf8_lossy(&line[from..to]));
    if to < line.len() {
        out.push('…');
    }
    out
}

/// Rows per logical line, by aligning a `capture-pane -p -J` of a range
/// (`joined`: logical lines) with a plain `capture-pane -p` of the same
/// range taken at the same moment (`rows`: one line per row, trailing
/// blanks trimmed by tmux). Each row's text must continue the logical line
/// where the previous row stopped (after any blanks the trimming removed).
///
/// Returns `None` when the two do not align (a row of only blanks inside a
/// wrapped line is ambiguous; so is a capture that is not of one moment).
pub fn align_rows(joined: &[&[u8]], rows: &[&[u8]]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(joined.len());
    let mut ri = 0;
    for line in joined {
        let mut pos = 0;
        let mut count = 0u32;
        loop {
            let row = trim_end_spaces(rows.get(ri)?);
            // Skip blanks the previous row's trimming removed.
            let mut at = pos;
            loop {
                if line[at..].starts_with(row) {
                    break;
                }
                if line.get(at) != Some(&b' ') {
                    return None;
                }
                at += 1;
            }
            pos = at + row.len();
            count += 1;
            ri += 1;
            if line[pos..].iter().all(|&b| b == b' ') {
                break;
            }
            if row.is_empty() {
                // A blank row cannot have started text that goes on.
                return None;
            }
        }
        out.push(count);
    }
    (ri == rows.len()).then_some(out)
}

/// A pane's width and the bottom row of the searched range.
#[derive(Clone, Copy, Debug)]
struct PaneGeometry {
    width: usize,
    bottom: i64,
    /// Rows in the searched range.
    rows: u64,
}

/// The pane state read with each capture, in the same write: [`STATE`]'s
/// fields.
const STATE: &[&str] = &["pane_id", "pane_width", "pane_height", "history_size"];

impl PaneGeometry {
    /// From a record of [`STATE`].
    fn of(rec: &Record, req: &SearchRequest) -> PaneGeometry {
        let width = rec.int(1).unwrap_or(0).max(0) as usize;
        let height = rec.int(2).unwrap_or(1).max(1);
        let hsize = rec.int(3).unwrap_or(0).max(0);
        let bottom = bottom_line(req.content_start, req.content_end, hsize, height);
        let top = top_line(req.content_start, req.content_end, hsize, height);
        PaneGeometry {
            width,
            bottom,
            rows: u64::try_from(bottom - top + 1).unwrap_or(0),
        }
    }
}

/// The tmux line number of the top row a capture of `start..=end` covers
/// (see [`bottom_line`]).
pub fn top_line(start: Option<i64>, end: Option<i64>, hsize: i64, height: i64) -> i64 {
    let last = height.max(1) - 1;
    let clamp = |n: i64| if n < -hsize { -hsize } else { n.min(last) };
    let top = start.map_or(-hsize, clamp);
    let bottom = end.map_or(last, clamp);
    top.min(bottom)
}

/// `capture-pane -p [-J] -S start -E end` for the searched range (the
/// target is added by the caller).
fn capture_cmd(req: &SearchRequest, join: bool) -> Command {
    let start = req
        .content_start
        .map_or("-".to_string(), |s| s.min(MAX_LINE_ARG).to_string());
    let end = req
        .content_end
        .map_or("-".to_string(), |e| e.min(MAX_LINE_ARG).to_string());
    let mut cmd = Command::new("capture-pane").arg("-p");
    if join {
        cmd = cmd.arg("-J");
    }
    cmd.opt("-S", start).opt("-E", end)
}

impl Tmux {
    /// Runs a search (see the module docs).
    ///
    /// Panes are captured in pane order, [`CAPTURES_IN_FLIGHT`] at a time,
    /// and scanned on blocking threads as their text arrives. Only the
    /// page's panes keep their lines, and only within
    /// [`RESPONSE_BUDGET`] bytes, so memory and the answer stay bounded
    /// however many lines match.
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
        let rules = Rules::for_version(&self.version().await?);

        // Captures go out CAPTURES_IN_FLIGHT at a time: tmux renders one
        // while the previous one streams to us and is scanned on a blocking
        // thread, instead of rendering every pane before writing any.
        let ids: Vec<(usize, PaneId)> = panes
            .iter()
            .enumerate()
            .filter_map(|(i, rec)| Some((i, rec.str(0).parse::<PaneId>().ok()?)))
            .collect();
        let scans = futures::stream::iter(ids)
            .map(|(i, id)| async move {
                let target = Target::Pane(id);
                let cap = capture_cmd(req, true);
                match self.state_and_text(&target, STATE, cap).await {
                    Ok((state, body)) => {
                        let geo = PaneGeometry::of(&state, req);
                        let keep = req.max_matched_lines_per_pane;
                        let pattern = req.pattern.clone();
                        let task = tokio::task::spawn_blocking(move || {
                            let rows_of = RowCount::Estimate {
                                width: geo.width,
                                rules,
                            };
                            let hits = scan(&body, &pattern, rows_of, geo.bottom, keep);
                            (hits.rows_total == geo.rows, hits)
                        });
                        match task.await {
                            Ok((exact, hits)) => (i, Ok(Some((exact, hits)))),
                            Err(e) => (
                                i,
                                Err(Error::Connection(format!("search task failed: {e}"))),
                            ),
                        }
                    }
                    // The pane went away meanwhile: skip it.
                    Err(Error::NotFound(_)) => (i, Ok(None)),
                    Err(e) => (i, Err(e)),
                }
            })
            .buffered(CAPTURES_IN_FLIGHT);
        futures::pin_mut!(scans);

        let page_start = req.offset;
        let page_end = req
            .limit
            .map_or(usize::MAX, |l| req.offset.saturating_add(l));
        let mut budget = RESPONSE_BUDGET;
        let mut matched = 0usize;
        let mut page: Vec<(usize, PaneHits)> = Vec::new();
        let mut truncated_panes = Vec::new();
        let mut lines_omitted = 0usize;
        while let Some((i, scanned)) = scans.next().await {
            let Some((exact, mut hits)) = scanned? else {
                continue;
            };
            if hits.count == 0 {
                continue;
            }
            let k = matched;
            matched += 1;
            if k < page_start {
                continue;
            }
            if k >= page_end {
                truncated_panes.push(panes[i].string(0));
                continue;
            }
            if !exact {
                // The widths tmux used differ from the model somewhere in
                // this pane: count its rows exactly.
                tracing::debug!(pane = panes[i].str(0), "row estimate off; recounting rows");
                if let Some(recounted) = self.recount(&panes[i], req).await? {
                    hits = recounted;
                }
            }
            lines_omitted += hits.fit(&mut budget);
            page.push((i, hits));
        }
        let truncated = !truncated_panes.is_empty()
            || lines_omitted > 0
            || page.iter().any(|(_, h)| h.count > h.lines.len());
        Ok(SearchPanesResult {
            matches: page
                .into_iter()
                .map(|(i, hits)| self.pane_match(&panes[i], hits))
                .collect(),
            truncated,
            truncated_panes,
            total_panes_matched: matched,
            offset: req.offset,
            limit: req.limit,
            panes_searched: panes.len(),
            lines_omitted,
        })
    }

    /// Captures a pane joined and row by row in one write, aligns the two
    /// and scans again with exact row counts. `None` when they do not align
    /// (the estimates are kept then).
    async fn recount(&self, rec: &Record, req: &SearchRequest) -> Result<Option<PaneHits>, Error> {
        let Ok(id) = rec.str(0).parse::<PaneId>() else {
            return Ok(None);
        };
        let target = Target::Pane(id);
        let q = crate::control::format::Query::new(STATE);
        let [state, joined, plain] = self
            .run_each(&[
                super::ops::pane_lookup(&target, &q),
                capture_cmd(req, true).target(&target, TargetKind::Pane),
                capture_cmd(req, false).target(&target, TargetKind::Pane),
            ])
            .await?;
        if !state.ok || !joined.ok || !plain.ok {
            return Ok(None);
        }
        let Some(state) = q.parse(&state.body).into_iter().next() else {
            return Ok(None);
        };
        let jl: Vec<&[u8]> = split_lines(&joined.body).collect();
        let pl: Vec<&[u8]> = split_lines(&plain.body).collect();
        let Some(rows) = align_rows(&jl, &pl) else {
            return Ok(None);
        };
        let geo = PaneGeometry::of(&state, req);
        Ok(Some(scan(
            &joined.body,
            &req.pattern,
            RowCount::Exact(&rows),
            geo.bottom,
            req.max_matched_lines_per_pane,
        )))
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

    fn est(width: usize) -> RowCount<'static> {
        RowCount::Estimate {
            width,
            rules: Rules::V33,
        }
    }

    #[test]
    fn align() {
        let a = |j: &[&str], r: &[&str]| {
            let j: Vec<&[u8]> = j.iter().map(|s| s.as_bytes()).collect();
            let r: Vec<&[u8]> = r.iter().map(|s| s.as_bytes()).collect();
            align_rows(&j, &r)
        };
        assert_eq!(
            a(
                &["old", "0123456789abcdefNEEDLEXYZ-tail", ""],
                &["old", "0123456789abcdefNEED", "LEXYZ-tail", ""]
            ),
            Some(vec![1, 2, 1])
        );
        // Blanks at the end of a wrapped row are trimmed from the plain capture.
        assert_eq!(a(&["abc   def"], &["abc", "def"]), Some(vec![2]));
        assert_eq!(a(&["abc  def"], &["abc", "  def"]), Some(vec![2]));
        // Trailing blanks of the last row.
        assert_eq!(a(&["done      "], &["done"]), Some(vec![1]));
        // Rows left over, or text that does not continue: no alignment.
        assert_eq!(a(&["a"], &["a", "b"]), None);
        assert_eq!(a(&["abc"], &["abd"]), None);
        assert_eq!(a(&["ab", "c"], &["ab"]), None);
        // A blank row inside a wrapped line is ambiguous.
        assert_eq!(a(&["x          y"], &["x", "", "y"]), None);
        // Emoji that tmux made two cells wide: whatever the widths, rows align.
        let hearts = "\u{2764}\u{fe0f}".repeat(60);
        let (r1, r2) = (hearts[..40 * 6].to_string(), hearts[40 * 6..].to_string());
        assert_eq!(a(&[&hearts], &[&r1, &r2]), Some(vec![2]));
    }

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let mut line = "a".repeat(10_000).into_bytes();
        line.extend_from_slice("NEEDLE é".as_bytes());
        line.extend_from_slice(&[b'b'; 10_000]);
        let e = excerpt(&line, 10_000, 10_006);
        assert!(
            e.starts_with('…') && e.ends_with('…') && e.contains("NEEDLE é"),
            "{}",
            e.len()
        );
        assert!(e.len() <= MAX_LINE_BYTES + 8);
        assert_eq!(excerpt(b"short", 0, 1), "short");
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
        let hits = scan(body, &pat, est(20), 1, 50);
        assert_eq!(hits.lines, vec!["0123456789abcdefNEEDLEXYZ-tail"]);
        assert_eq!(hits.numbers, vec![-2]);
        assert_eq!(hits.rows, vec![2]);
        let pat = Pattern::new("prompt$", PatternOptions::regex()).unwrap();
        let hits = scan(body, &pat, est(20), 1, 50);
        assert_eq!(hits.lines, vec!["prompt"], "trailing blanks are trimmed");
        assert_eq!(hits.numbers, vec![0]);
    }

    #[test]
    fn scan_keeps_newest() {
        let pat = Pattern::new("x", PatternOptions::literal()).unwrap();
        let hits = scan(b"x1\nx2\nx3\n", &pat, est(80), 2, 2);
        assert_eq!(hits.lines, vec!["x2", "x3"]);
        assert_eq!(hits.count, 3);
        assert_eq!(hits.numbers, vec![1, 2]);
    }
}
