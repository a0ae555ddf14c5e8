//! How a search page is cut to the response limit: the [`Fit`] of
//! [`SearchPanesResult`] and the cost of a matched line
//! ([`MatchedLines`]), which the search also applies as each pane
//! arrives ([`keep_newest_lines`]).

use super::fit::{Fit, Limit, MatchedLines, SLACK, json_len, json_str_len, keep_newest_lines};
use super::search::{PaneContentMatch, RESPONSE_BUDGET, SearchPanesResult};

/// A search page is cut in two steps, the only rules for its size:
///
/// 1. matched lines: panes in page order keep their newest lines while
///    their cost ([`line_cost`]) fits what the limit (or, without one,
///    [`RESPONSE_BUDGET`]) has left; the lines left out are counted in
///    `lines_omitted`. The search applies this step itself as each pane
///    arrives ([`keep_newest_lines`](super::fit::keep_newest_lines)), so it never holds more lines than
///    the answer can carry; applied again here it keeps what it kept.
/// 2. with a limit, the whole answer serialized ([`fit_search`]).
impl Fit for SearchPanesResult {
    fn fit(&mut self, limit: Limit) {
        let mut budget = limit.get().unwrap_or(RESPONSE_BUDGET);
        for m in &mut self.matches {
            let dropped = keep_newest_lines(m, &mut budget);
            if dropped > 0 {
                self.lines_omitted += dropped;
                self.truncated = true;
            }
        }
        if let Some(b) = limit.get() {
            fit_search(self, b);
        }
    }
}

/// The bytes matched line `i` of `m` adds to a search answer's JSON, as
/// the search has always counted them: its text (escaped, a control
/// character counted as `\u00XX`), line number, row count and position,
/// with separators. An estimate at or above the exact size.
fn line_cost(m: &PaneContentMatch, i: usize) -> usize {
    fn digits(v: i64) -> usize {
        let mut n = usize::from(v < 0) + 1;
        let mut v = v.unsigned_abs();
        while v >= 10 {
            v /= 10;
            n += 1;
        }
        n
    }
    let text = m.matched_lines.get(i).map_or("", String::as_str);
    let escapes: usize = text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    let line = m.matched_line_numbers.get(i).copied().unwrap_or(0);
    let rows = m.matched_line_rows.get(i).copied().unwrap_or(0);
    let at = m.matched_at.get(i).copied().unwrap_or([0; 4]);
    text.len()
        + escapes
        + 3
        + digits(line)
        + 1
        + digits(i64::from(rows))
        + 1
        + at.iter().map(|&v| digits(v)).sum::<usize>()
        + 6
}

impl MatchedLines for PaneContentMatch {
    fn count(&self) -> usize {
        self.matched_lines.len()
    }

    fn line_cost(&self, i: usize) -> usize {
        line_cost(self, i)
    }

    fn drop_oldest(&mut self, n: usize) {
        drop_oldest(self, n);
    }
}

/// Drops the `drop` oldest matched lines of `m`, with their numbers, rows,
/// positions and screens.
fn drop_oldest(m: &mut PaneContentMatch, drop: usize) {
    m.matched_lines.drain(..drop.min(m.matched_lines.len()));
    m.matched_line_numbers
        .drain(..drop.min(m.matched_line_numbers.len()));
    m.matched_line_rows
        .drain(..drop.min(m.matched_line_rows.len()));
    m.matched_at.drain(..drop.min(m.matched_at.len()));
    if let Some(s) = &mut m.matched_screens {
        s.drain(..drop.min(s.len()));
    }
}

/// Step 2 of a search page's cut: the page to fit `budget` bytes
/// serialized, the way step 1 keeps within its budget: panes in page order keep their newest
/// matched lines while they fit, and the lines left out are added to
/// `lines_omitted` (each pane's `matched_line_count` still counts them).
/// When the panes' own fields do not fit, the last panes of the page move
/// to the front of `truncated_panes`, and `limit` becomes the number of
/// panes served, so `offset + limit` is the next page's `offset`.
fn fit_search(r: &mut SearchPanesResult, budget: usize) {
    if json_len(r) <= budget {
        return;
    }
    // Without any lines: what the panes cost on their own, with room for
    // the fields a cut adds (`lines_omitted`, each pane's
    // `matched_line_rows` key).
    let mut bare = r.clone();
    bare.lines_omitted = usize::MAX;
    for m in &mut bare.matches {
        m.matched_lines.clear();
        m.matched_line_numbers.clear();
        m.matched_line_rows.clear();
        m.matched_at.clear();
        if let Some(s) = &mut m.matched_screens {
            s.clear();
        }
    }
    let mut fixed = json_len(&bare) + SLACK + 24 * bare.matches.len();
    while fixed > budget && !r.matches.is_empty() {
        let (Some(m), Some(pane)) = (r.matches.pop(), bare.matches.pop()) else {
            break;
        };
        fixed -= json_len(&pane) + 1;
        fixed += json_len(&m.pane_id) + 1;
        r.truncated_panes.insert(0, m.pane_id);
        r.limit = Some(r.matches.len());
        r.truncated = true;
    }
    while fixed > budget && !r.truncated_panes.is_empty() {
        // Pathological: the ids alone are too many; the count stays in
        // total_panes_matched.
        let Some(id) = r.truncated_panes.pop() else {
            break;
        };
        fixed -= json_len(&id) + 1;
    }
    let mut room = budget.saturating_sub(fixed);
    for m in &mut r.matches {
        let n = m.matched_lines.len();
        let mut keep = 0;
        for i in (0..n).rev() {
            let mut cost = json_str_len(&m.matched_lines[i])
                + 3
                + json_len(&m.matched_line_numbers.get(i))
                + 1
                + json_len(&m.matched_line_rows.get(i))
                + 1
                + json_len(&m.matched_at.get(i))
                + 1;
            if let Some(s) = &m.matched_screens {
                cost += json_len(&s.get(i)) + 1;
            }
            if cost > room {
                break;
            }
            room -= cost;
            keep += 1;
        }
        let drop = n - keep;
        if drop > 0 {
            drop_oldest(m, drop);
            r.lines_omitted += drop;
            r.truncated = true;
        }
        // Later panes get nothing once the room is spent (as the search
        // itself does), so the page reads as "earlier panes first".
        if keep < n {
            room = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(id: &str, lines: &[&str]) -> PaneContentMatch {
        PaneContentMatch {
            pane_id: id.into(),
            pane_current_command: "sh".into(),
            pane_current_path: "/".into(),
            window_id: "@1".into(),
            window_name: "w".into(),
            session_id: "$1".into(),
            session_name: "s".into(),
            window_index: "0".into(),
            pane_index: "0".into(),
            matched_lines: lines.iter().map(|l| l.to_string()).collect(),
            matched_line_numbers: (0..lines.len() as i64).collect(),
            matched_line_rows: vec![1; lines.len()],
            matched_at: (0..lines.len() as i64).map(|i| [i, 0, 0, 0]).collect(),
            matched_screens: None,
            matched_line_count: lines.len(),
            source: crate::tmux::Source::Mirror,
            pane_dead: false,
            exit_status: None,
            capped_history_rows: None,
            is_caller: None,
        }
    }

    fn page(panes: Vec<PaneContentMatch>) -> SearchPanesResult {
        SearchPanesResult {
            total_panes_matched: panes.len(),
            matches: panes,
            truncated: false,
            truncated_panes: Vec::new(),
            offset: 0,
            limit: None,
            panes_searched: 2,
            lines_omitted: 0,
            panes_history_at_limit: Vec::new(),
            note: None,
            next: None,
        }
    }

    #[test]
    fn search_lines_cut_once() {
        let long = "x".repeat(3000);
        let lines: Vec<&str> = (0..8).map(|_| long.as_str()).collect();
        // What the search does as panes arrive, then the cut of op::run:
        // the second finds nothing more to cut in step 1.
        let mut a = pane("%1", &lines);
        let mut b = pane("%2", &lines);
        let mut budget = 20_000;
        let omitted =
            keep_newest_lines(&mut a, &mut budget) + keep_newest_lines(&mut b, &mut budget);
        assert_eq!((a.matched_lines.len(), b.matched_lines.len()), (6, 0));
        assert_eq!(omitted, 10);
        let mut r = page(vec![a, b]);
        r.lines_omitted = omitted;
        r.truncated = true;
        let before = r.clone();
        r.fit(Limit::bytes(20_000));
        assert_eq!(r.lines_omitted, before.lines_omitted);
        assert_eq!(r.matches[0].matched_lines.len(), 6);
        assert!(json_len(&r) <= 20_000);
        // The same page uncut: one fit gives the same answer.
        let mut whole = page(vec![pane("%1", &lines), pane("%2", &lines)]);
        whole.fit(Limit::bytes(20_000));
        assert_eq!(whole, r);
        // Without a limit, matched lines stop at RESPONSE_BUDGET.
        let huge = "y".repeat(RESPONSE_BUDGET / 4);
        let mut big = page(vec![pane("%1", &[&huge, &huge, &huge, &huge, &huge])]);
        big.fit(Limit::NONE);
        assert_eq!(big.matches[0].matched_lines.len(), 3);
        assert_eq!(big.lines_omitted, 2);
        assert!(big.truncated);
    }
}
