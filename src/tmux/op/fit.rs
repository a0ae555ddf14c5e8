//! The response limit and the one place each answer shape is cut to fit
//! it.
//!
//! An answer's text block is its structured result serialized
//! (`mcp::budget` explains why that is what the budget bounds). Every
//! response type implements [`Fit`]: it cuts itself to a [`Limit`] the
//! way its shape reads best and says what it cut and how to get the rest
//! (a capture keeps its newest lines and sets `truncated_lines` and
//! `next`, a search its earlier panes and each pane's newest lines, a
//! list its first items and sets `omitted`). [`super::run`] applies it
//! once, after the operation; nothing else in the tree cuts an answer.
//!
//! The helpers here measure text exactly as serde_json writes it.

use serde::Serialize;

use super::search::{PaneContentMatch, RESPONSE_BUDGET, SearchPanesResult};

/// How many bytes an answer may take serialized; [`Limit::NONE`] for a
/// caller without a budget (the CLI, the demo, tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limit {
    bytes: Option<usize>,
}

impl Limit {
    /// No limit.
    pub const NONE: Limit = Limit { bytes: None };

    /// At most `n` bytes.
    pub const fn bytes(n: usize) -> Limit {
        Limit { bytes: Some(n) }
    }

    /// The limit in bytes, if any.
    pub fn get(self) -> Option<usize> {
        self.bytes
    }
}

/// A response that can cut itself to fit a [`Limit`], recording what it
/// cut in its own fields.
pub trait Fit {
    /// Cuts `self` so that it serializes to at most `limit` bytes where
    /// its shape allows (a response whose fixed fields alone are over the
    /// limit stays over it; the MCP layer reports that).
    fn fit(&mut self, limit: Limit);
}

/// Responses that are small and fixed in size: never cut.
#[macro_export]
#[doc(hidden)]
macro_rules! fits_whole {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::tmux::op::Fit for $t {
            fn fit(&mut self, _: $crate::tmux::op::Limit) {}
        })*
    };
}

/// Bytes `s` takes inside a JSON string as serde_json writes it (quotes
/// not counted): `"` and `\` and the short control escapes take 2, other
/// control characters 6 (`\u001b`), everything else itself.
pub fn json_str_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// Bytes `v` takes serialized compactly (what the text block holds).
pub fn json_len<T: Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    // Serializing plain data into a counter cannot fail.
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// How many of the oldest `lines` to drop so that the rest, joined with
/// `\n`, take at most `room` bytes inside a JSON string.
pub fn drop_for_tail(lines: &[String], room: usize) -> usize {
    let mut used = 0usize;
    let mut keep = 0usize;
    for l in lines.iter().rev() {
        // The line, and the escaped `\n` that joins it to the next one.
        let cost = json_str_len(l) + if keep > 0 { 2 } else { 0 };
        if used + cost > room {
            break;
        }
        used += cost;
        keep += 1;
    }
    lines.len() - keep
}

/// The longest tail of `s` (starting at a character boundary) that takes
/// at most `room` bytes inside a JSON string.
pub fn tail_within(s: &str, room: usize) -> &str {
    let mut used = 0usize;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let mut buf = [0u8; 4];
        let cost = json_str_len(c.encode_utf8(&mut buf));
        if used + cost > room {
            break;
        }
        used += cost;
        start = i;
    }
    &s[start..]
}

/// The longest head of `s` (ending at a character boundary) that takes at
/// most `room` bytes inside a JSON string.
pub fn head_within(s: &str, room: usize) -> &str {
    let mut used = 0usize;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let mut buf = [0u8; 4];
        let cost = json_str_len(c.encode_utf8(&mut buf));
        if used + cost > room {
            break;
        }
        used += cost;
        end = i + c.len_utf8();
    }
    &s[..end]
}

/// Keeps the newest `lines` that take at most `room` bytes as JSON text
/// (joined with `\n`). When not even the newest line fits, the end of it
/// that fits is kept. Returns how many whole lines were dropped and how
/// many bytes of text (their newlines included) were cut.
pub fn fit_room(lines: &mut Vec<String>, room: usize) -> (usize, usize) {
    let drop = drop_for_tail(lines, room);
    if drop == 0 {
        return (0, 0);
    }
    if drop == lines.len() {
        let Some(last) = lines.pop() else {
            return (0, 0);
        };
        let whole = lines.len();
        let mut bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        let tail = tail_within(&last, room).to_string();
        bytes += last.len() - tail.len();
        *lines = vec![tail];
        return (whole, bytes);
    }
    let bytes = lines[..drop].iter().map(|l| l.len() + 1).sum();
    lines.drain(..drop);
    (drop, bytes)
}

/// Room for digits that grow when counters change after measuring (a
/// count going from `0` to a 20-digit number, a flag from `false` to
/// `true`, and so on).
pub(crate) const SLACK: usize = 64;

/// How many of the last `items` to leave out so that the list, wrapped as
/// its tool sends it, fits `budget` bytes; `fixed` is what the result costs
/// with an empty list.
pub fn keep_for_list<T: Serialize>(items: &[T], fixed: usize, budget: usize) -> usize {
    let mut used = fixed + SLACK;
    let mut keep = 0;
    for v in items {
        let cost = json_len(v) + 1;
        if used + cost > budget {
            break;
        }
        used += cost;
        keep += 1;
    }
    keep
}

/// A search page is cut in two steps, the only rules for its size:
///
/// 1. matched lines: panes in page order keep their newest lines while
///    their cost ([`line_cost`]) fits what the limit (or, without one,
///    [`RESPONSE_BUDGET`]) has left; the lines left out are counted in
///    `lines_omitted`. The search applies this step itself as each pane
///    arrives ([`keep_newest_lines`]), so it never holds more lines than
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

/// Step 1 of a search page's cut for one pane: keeps the newest matched
/// lines of `m` whose [`line_cost`] fits in `budget`, takes their cost off
/// `budget`, and returns how many older lines were dropped (the caller
/// adds them to `lines_omitted`).
pub(crate) fn keep_newest_lines(m: &mut PaneContentMatch, budget: &mut usize) -> usize {
    let n = m.matched_lines.len();
    let mut used = 0usize;
    let mut keep = 0usize;
    for i in (0..n).rev() {
        let cost = line_cost(m, i);
        if used + cost > *budget {
            break;
        }
        used += cost;
        keep += 1;
    }
    *budget -= used;
    let drop = n - keep;
    if drop > 0 {
        drop_oldest(m, drop);
    }
    drop
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

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn lengths_match_serde_json() {
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "tab\there\nnl\r",
            "\u{1b}[0m",
            "é✓\u{7f}",
            "\u{8}\u{c}",
        ] {
            let encoded = serde_json::to_string(s).unwrap();
            assert_eq!(json_str_len(s), encoded.len() - 2, "{s:?}");
        }
        assert_eq!(json_len(&serde_json::json!({"a": [1, "x"]})), 13);
    }

    #[test]
    fn tails() {
        let l = lines(&["aaaa", "bb", "c"]);
        // "bb\nc" is 2 + 2 + 1 bytes in JSON.
        assert_eq!(drop_for_tail(&l, 5), 1);
        assert_eq!(drop_for_tail(&l, 4), 2);
        assert_eq!(drop_for_tail(&l, 0), 3);
        assert_eq!(drop_for_tail(&l, 100), 0);
        assert_eq!(drop_for_tail(&lines(&["\"\"\""]), 5), 1);
        assert_eq!(tail_within("héllo", 3), "llo");
        assert_eq!(tail_within("a\"b", 2), "b");
        assert_eq!(tail_within("a\"b", 3), "\"b");
        assert_eq!(head_within("✓✓x", 4), "✓");
        assert_eq!(head_within("ab", 0), "");
    }

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
