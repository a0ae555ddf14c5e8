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
///
/// Most shapes are cut only under a limit and implement [`Fit::fit_to`];
/// one that cuts without a limit too (a search keeps its own budget)
/// implements [`Fit::fit`].
pub trait Fit {
    /// Cuts `self` so that it serializes to at most `limit` bytes where
    /// its shape allows (a response whose fixed fields alone are over the
    /// limit stays over it; the MCP layer reports that). Without a limit
    /// nothing is cut, else [`Fit::fit_to`] cuts.
    fn fit(&mut self, limit: Limit) {
        if let Some(max) = limit.get() {
            self.fit_to(max);
        }
    }

    /// Cuts `self` to at most `max` bytes serialized, as [`Fit::fit`]
    /// says; nothing by default (a shape small and fixed in size).
    fn fit_to(&mut self, _max: usize) {}
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

/// The matched lines of one pane of a search page, as its cut sees them
/// (the search's `PaneContentMatch`, in `op::search_cut`).
pub(crate) trait MatchedLines {
    /// How many there are.
    fn count(&self) -> usize;
    /// The bytes line `i` adds to the answer's JSON (an estimate at or
    /// above the exact size).
    fn line_cost(&self, i: usize) -> usize;
    /// Drops the `n` oldest, with all that goes with each.
    fn drop_oldest(&mut self, n: usize);
}

/// Step 1 of a search page's cut for one pane: keeps the newest matched
/// lines of `m` whose [`MatchedLines::line_cost`] fits in `budget`, takes
/// their cost off `budget`, and returns how many older lines were dropped
/// (the caller adds them to `lines_omitted`).
pub(crate) fn keep_newest_lines(m: &mut impl MatchedLines, budget: &mut usize) -> usize {
    let n = m.count();
    let mut used = 0usize;
    let mut keep = 0usize;
    for i in (0..n).rev() {
        let cost = m.line_cost(i);
        if used + cost > *budget {
            break;
        }
        used += cost;
        keep += 1;
    }
    *budget -= used;
    let drop = n - keep;
    if drop > 0 {
        m.drop_oldest(drop);
    }
    drop
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
}
