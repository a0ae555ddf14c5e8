//! `search -A/-B/-C`: the logical lines around matches, with their tmux
//! line numbers.
//!
//! `search_panes` gives each matched line's tmux line number (of its first
//! row) and its row count. The lines around them come from `capture_pane`
//! over one span of rows per pane, `S..=E`, taken twice: joined
//! (`join_wrapped`, one line per logical line) and row by row. Aligning
//! the two ([`align_rows`]) gives every logical line's row count, so the
//! line starting at row `S` is numbered `S`, the next `S + rows₀`, and so
//! on. Where the two captures do not align (a blank row inside a wrapped
//! line), rows are counted from the text's width instead
//! ([`crate::term::width`]).
//!
//! ```text
//!  row S ─┐ first captured line: may be the tail of a wrapped line,
//!         │ so it is context only when S is the top of the history
//!  ...    │ ≥ B whole lines
//!  n₀  ───┤ first match (a line start: the search said so)
//!  ...    │ other matches and the lines between them
//!  nₖ  ───┤ last match
//!  ...    │ ≥ A whole lines
//!  row E ─┘ last captured line: may be cut at E, so it is context only
//!           when E is the bottom of the screen
//! ```
//!
//! The span starts with a guess of two rows per context line and doubles
//! on the side that came up short. Every match must land on a line start
//! that the pattern matches; when one does not (the pane printed more
//! meanwhile), the pane's matches are printed without context.

use serde_json::{Map, Value, json};

use super::tool::{self, CliError};
use crate::search::Pattern;
use crate::term::width::{self, Rules};
use crate::tmux::Servers;
use crate::tmux::search::align_rows;
use crate::wire::TmuxVersion;

/// A matched line as `search_panes` returned it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// tmux line number of its first row.
    pub number: i64,
    /// Rows it spans.
    pub rows: u32,
    /// Its text (an excerpt when over 4 KiB).
    pub text: String,
}

/// A line to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// tmux line number of its first row.
    pub number: i64,
    /// Rows it spans.
    pub rows: u32,
    /// Its text.
    pub text: String,
    /// A match (printed `place:n:text`), else context (`place-n-text`).
    pub is_match: bool,
}

impl Line {
    /// The line number of its last row.
    pub fn last_row(&self) -> i64 {
        self.number + i64::from(self.rows.max(1)) - 1
    }
}

impl From<&Hit> for Line {
    fn from(h: &Hit) -> Line {
        Line {
            number: h.number,
            rows: h.rows,
            text: h.text.clone(),
            is_match: true,
        }
    }
}

/// The first row of each line, for lines starting at row `start` and
/// spanning `rows` rows each.
pub fn line_starts(start: i64, rows: &[u32]) -> Vec<i64> {
    let mut at = start;
    rows.iter()
        .map(|&r| {
            let n = at;
            at += i64::from(r.max(1));
            n
        })
        .collect()
}

/// The index of the line each hit starts, or `None` when a hit's number
/// is not a line start (the text moved since the search).
pub fn anchors(starts: &[i64], hits: &[Hit]) -> Option<Vec<usize>> {
    hits.iter()
        .map(|h| starts.binary_search(&h.number).ok())
        .collect()
}

/// The ranges of line indexes to print: `before` lines before and
/// `after` lines after each anchor (sorted), merged where they overlap or
/// touch, and kept within `lo..=hi` (lines outside are cut by the
/// capture), though never so as to lose an anchor itself.
pub fn groups(
    anchors: &[usize],
    before: usize,
    after: usize,
    lo: usize,
    hi: usize,
) -> Vec<std::ops::RangeInclusive<usize>> {
    let mut out: Vec<std::ops::RangeInclusive<usize>> = Vec::new();
    for &k in anchors {
        let from = k.saturating_sub(before).max(lo.min(k));
        let to = k.saturating_add(after).min(hi.max(k));
        match out.last_mut() {
            Some(last) if from <= last.end() + 1 => {
                *last = *last.start()..=to.max(*last.end());
            }
            _ => out.push(from..=to),
        }
    }
    out
}

/// What the pane looked like when its context was read.
#[derive(Clone, Debug)]
struct PaneState {
    /// `#{history_size}`: the top row is `-hsize`.
    hsize: i64,
    /// `#{pane_height}`: the bottom row is `height - 1`.
    height: i64,
    width: usize,
    rules: Rules,
}

async fn pane_state(servers: &Servers, pane: &str) -> Result<PaneState, CliError> {
    let mut args = Map::new();
    args.insert(
        "format_string".into(),
        json!("#{history_size} #{pane_height} #{pane_width} #{version}"),
    );
    args.insert("pane_id".into(), json!(pane));
    let v = tool::call(servers, "display_message", args).await?;
    let text = v["result"].as_str().unwrap_or("");
    let mut f = text.split(' ');
    let mut int = || f.next().and_then(|s| s.parse::<i64>().ok()).unwrap_or(0);
    let (hsize, height, width) = (int(), int(), int());
    let version = text.splitn(4, ' ').nth(3).unwrap_or("");
    Ok(PaneState {
        hsize: hsize.max(0),
        height: height.max(1),
        width: usize::try_from(width).unwrap_or(0),
        rules: Rules::for_version(&TmuxVersion::parse(version)),
    })
}

/// `capture_pane` of rows `start..=end`: its lines, or `None` when the
/// capture was cut (over 8 MiB).
async fn capture(
    servers: &Servers,
    pane: &str,
    start: i64,
    end: i64,
    join: bool,
) -> Result<Option<Vec<String>>, CliError> {
    let mut args = Map::new();
    args.insert("pane_id".into(), json!(pane));
    args.insert("start".into(), json!(start));
    args.insert("end".into(), json!(end));
    args.insert("join_wrapped".into(), json!(join));
    args.insert("max_lines".into(), Value::Null);
    let v = tool::call(servers, "capture_pane", args).await?;
    if v["truncated_lines"].as_u64().unwrap_or(0) > 0 {
        return Ok(None);
    }
    let n = v["lines"].as_u64().unwrap_or(0) as usize;
    let text = v["result"].as_str().unwrap_or("");
    Ok(Some(text.split('\n').take(n).map(str::to_string).collect()))
}

/// The most times a span is widened (doubling each time).
const MAX_WIDENINGS: usize = 24;

/// The lines to print for `hits` (one pane's, sorted), with `before` and
/// `after` lines of context, in order; lines of overlapping groups once.
/// `None` when the pane's text changed since the search, so the context
/// cannot be placed.
///
/// # Errors
///
/// The tools' errors (the pane was closed, the server went away).
pub async fn fetch(
    servers: &Servers,
    pane: &str,
    hits: &[Hit],
    before: usize,
    after: usize,
    pattern: &Pattern,
) -> Result<Option<Vec<Line>>, CliError> {
    let mut out: Vec<Line> = Vec::new();
    // Spans are split in halves when a capture would be over 8 MiB.
    let mut todo: Vec<&[Hit]> = vec![hits];
    while let Some(part) = todo.pop() {
        match span(servers, pane, part, before, after, pattern).await? {
            Span::Lines(lines) => out.extend(lines),
            Span::TooBig if part.len() > 1 => {
                let (a, b) = part.split_at(part.len() / 2);
                // Popped last first: keep the order.
                todo.push(b);
                todo.push(a);
            }
            Span::TooBig => out.extend(part.iter().map(Line::from)),
            Span::Moved => return Ok(None),
        }
    }
    out.sort_by_key(|l| l.number);
    out.dedup_by_key(|l| l.number);
    Ok(Some(out))
}

enum Span {
    Lines(Vec<Line>),
    TooBig,
    Moved,
}

async fn span(
    servers: &Servers,
    pane: &str,
    hits: &[Hit],
    before: usize,
    after: usize,
    pattern: &Pattern,
) -> Result<Span, CliError> {
    let (Some(first), Some(last)) = (hits.first(), hits.last()) else {
        return Ok(Span::Lines(Vec::new()));
    };
    let state = pane_state(servers, pane).await?;
    let (top, bottom) = (-state.hsize, state.height - 1);
    let last_row = Line::from(last).last_row();
    // Each context line is at least one row; guess two.
    let mut back = if before == 0 {
        0
    } else {
        2 * before as i64 + 2
    };
    let mut ahead = if after == 0 { 0 } else { 2 * after as i64 + 2 };
    for _ in 0..MAX_WIDENINGS {
        let start = (first.number - back).max(top);
        let end = (last_row + ahead).min(bottom).max(start);
        let Some(joined) = capture(servers, pane, start, end, true).await? else {
            return Ok(Span::TooBig);
        };
        let Some(plain) = capture(servers, pane, start, end, false).await? else {
            return Ok(Span::TooBig);
        };
        let j: Vec<&[u8]> = joined.iter().map(|l| l.as_bytes()).collect();
        let p: Vec<&[u8]> = plain.iter().map(|l| l.as_bytes()).collect();
        let rows = align_rows(&j, &p).unwrap_or_else(|| {
            joined
                .iter()
                .map(|l| width::rows(l, state.width, state.rules))
                .collect()
        });
        let starts = line_starts(start, &rows);
        let Some(at) = anchors(&starts, hits) else {
            return Ok(Span::Moved);
        };
        if at
            .iter()
            .any(|&k| !pattern.is_match_line(joined[k].as_bytes()))
        {
            return Ok(Span::Moved);
        }
        let (at_top, at_bottom) = (start <= top, end >= bottom);
        let (k0, kn) = (at[0], at[at.len() - 1]);
        // Line 0 may be the tail of a wrapped line and the last line may
        // be cut at `end`: neither counts unless the span reaches the edge.
        // Without context on a side, the span ends at a match there.
        let short_before = before > 0 && !at_top && k0 < before + 1;
        let short_after = after > 0 && !at_bottom && joined.len() - 1 - kn < after + 1;
        if short_before || short_after {
            if short_before {
                back = back * 2 + before as i64;
            }
            if short_after {
                ahead = ahead * 2 + after as i64;
            }
            continue;
        }
        let lo = usize::from(!at_top);
        let hi = joined.len() - 1 - usize::from(!at_bottom);
        let mut lines = Vec::new();
        let mut next_hit = 0;
        for g in groups(&at, before, after, lo, hi) {
            for k in g {
                let hit = (next_hit < at.len() && at[next_hit] == k).then(|| {
                    next_hit += 1;
                    &hits[next_hit - 1]
                });
                lines.push(match hit {
                    Some(h) => Line::from(h),
                    None => Line {
                        number: starts[k],
                        rows: rows[k],
                        text: joined[k].clone(),
                        is_match: false,
                    },
                });
            }
        }
        return Ok(Span::Lines(lines));
    }
    // Never reached the edge nor enough lines (absurdly many rows per line).
    Ok(Span::Lines(hits.iter().map(Line::from).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(number: i64) -> Hit {
        Hit {
            number,
            rows: 1,
            text: String::new(),
        }
    }

    #[test]
    fn starts() {
        assert_eq!(line_starts(-5, &[1, 2, 1, 3]), [-5, -4, -2, -1]);
        assert_eq!(line_starts(0, &[]), Vec::<i64>::new());
        // A row count of 0 (never produced) still advances.
        assert_eq!(line_starts(0, &[0, 1]), [0, 1]);
    }

    #[test]
    fn anchoring() {
        let s = line_starts(-5, &[1, 2, 1, 3]);
        assert_eq!(anchors(&s, &[hit(-4), hit(-1)]), Some(vec![1, 3]));
        // -3 is the second row of a wrapped line: the text moved.
        assert_eq!(anchors(&s, &[hit(-3)]), None);
    }

    #[test]
    fn grouping() {
        // grep -C1 on matches at 2 and 4 (touching) and 9.
        assert_eq!(groups(&[2, 4, 9], 1, 1, 0, 20), [1..=5, 8..=10]);
        // Adjacent groups merge (3 ends where 4 starts).
        assert_eq!(groups(&[1, 5], 1, 1, 0, 20), [0..=2, 4..=6]);
        assert_eq!(groups(&[1, 4], 1, 1, 0, 20), [0..=5]);
        // Only before, only after.
        assert_eq!(groups(&[3, 7], 2, 0, 0, 20), [1..=3, 5..=7]);
        assert_eq!(groups(&[3, 7], 0, 2, 0, 20), [3..=5, 7..=9]);
        // No context: each match alone; consecutive matches touch.
        assert_eq!(groups(&[3, 4, 6], 0, 0, 0, 20), [3..=4, 6..=6]);
        // Cut lines are left out, anchors never.
        assert_eq!(groups(&[1, 9], 3, 3, 1, 9), [1..=4, 6..=9]);
        assert_eq!(groups(&[1, 8], 3, 3, 1, 9), [1..=9]);
        assert_eq!(groups(&[0, 10], 2, 2, 1, 9), [0..=2, 8..=10]);
    }

    #[test]
    fn last_rows() {
        let l = Line {
            number: -3,
            rows: 2,
            text: String::new(),
            is_match: false,
        };
        assert_eq!(l.last_row(), -2);
    }
}
