//! Mapping matches in a buffer of logical lines to matching lines.
//!
//! # Format
//!
//! A haystack is a byte buffer of logical lines, each ended by `\n`, except
//! that the last line may lack its `\n`:
//!
//! ```text
//! "a\nb"    -> ["a", "b"]
//! "a\nb\n"  -> ["a", "b"]      the empty segment after a final \n is no line
//! "a\n\nb"  -> ["a", "", "b"]
//! "\n"      -> [""]
//! ""        -> []
//! ```
//!
//! # How the scan works
//!
//! The matcher runs over the whole remaining buffer, not line by line. On a
//! hit the match is mapped to its line with `memrchr`/`memchr`, reported,
//! and the search resumes at the next line start. Line numbers come from
//! counting `\n` (`memchr_iter().count()`) from the previous resume point to
//! the match, so nothing after the last match is ever counted: a search
//! that finds nothing costs one pass of the matcher alone.
//!
//! A block-wise scan that counted each 64 KiB block right after searching
//! it (while still in cache) was measured and dropped: on the 32 MiB bench
//! corpus a never-matching literal ran at 10.5 GiB/s against 23 GiB/s here,
//! and rare matches were no faster, because counting is compute-bound once
//! the bytes are in cache and eager counting pays it for the whole buffer.

use std::ops::Range;

use memchr::{memchr, memchr_iter, memrchr};

/// One matching logical line, with the first match inside it.
///
/// Produced by [`Pattern::find_lines`](super::Pattern::find_lines) and
/// [`Pattern::for_each_line`](super::Pattern::for_each_line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineMatch {
    /// The 0-based index of the logical line in the haystack.
    pub line: usize,
    /// The byte offset of the line's start in the haystack.
    pub offset: usize,
    /// The byte offset where the first match in the line starts, relative
    /// to the start of the line; `<= end`.
    pub start: usize,
    /// The byte offset one past the end of that match, relative to the
    /// start of the line; `<=` the line's length (excluding its `\n`).
    /// Equal to `start` for an empty match (for example the regex `^`).
    pub end: usize,
}

impl LineMatch {
    /// The match as a byte range relative to the start of its line.
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// Returns the number of bytes of `haystack` that belong to lines, i.e.
/// its length without a final `\n`.
pub(crate) fn content_end(haystack: &[u8]) -> usize {
    match haystack.last() {
        Some(b'\n') => haystack.len() - 1,
        _ => haystack.len(),
    }
}

/// Reports every line of `haystack` that contains a match, in order, once
/// each, until `f` returns `false`.
///
/// `find(start, end)` must return the leftmost match `(match_start,
/// match_end)` (absolute byte offsets) that lies within `start..=end` of
/// `haystack`, where `start` is always a line start and `end` is the end of
/// the last line. Matches must not contain `\n`. A result outside
/// `start..=end` ends the scan (it would be a matcher bug) rather than
/// panicking.
pub(crate) fn scan<S, F>(haystack: &[u8], mut find: S, mut f: F)
where
    S: FnMut(usize, usize) -> Option<(usize, usize)>,
    F: FnMut(LineMatch) -> bool,
{
    if haystack.is_empty() {
        return;
    }
    let end = content_end(haystack);
    // `pos` is always the start of line number `line`, and `pos <= end`.
    let mut pos: usize = 0;
    let mut line = 0;
    while let Some((ms, me)) = find(pos, end) {
        if !(pos <= ms && ms <= me && me <= end) {
            debug_assert!(false, "match {ms}..{me} outside {pos}..{end}");
            return;
        }
        let line_start = memrchr(b'\n', &haystack[pos..ms]).map_or(pos, |i| pos + i + 1);
        line += count_lines(&haystack[pos..line_start]);
        let line_end = memchr(b'\n', &haystack[me..end]).map_or(end, |i| me + i);
        if !f(LineMatch {
            line,
            offset: line_start,
            start: ms - line_start,
            end: me - line_start,
        }) {
            return;
        }
        if line_end >= end {
            // The last line: resuming at `end` would let an empty-width
            // regex match it a second time.
            return;
        }
        pos = line_end + 1;
        line += 1;
    }
}

/// Returns the number of `\n` in `bytes`.
fn count_lines(bytes: &[u8]) -> usize {
    memchr_iter(b'\n', bytes).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line start of `hay` as a matcher: an empty match at each line.
    fn starts(hay: &[u8]) -> Vec<LineMatch> {
        let mut out = vec![];
        scan(
            hay,
            |s, _| Some((s, s)),
            |m| {
                out.push(m);
                true
            },
        );
        out
    }

    /// Lines containing `needle` (a naive matcher).
    fn naive(hay: &[u8], needle: u8) -> Vec<usize> {
        let mut out = vec![];
        let find = |s: usize, e: usize| {
            hay[s..e]
                .iter()
                .position(|&b| b == needle)
                .map(|i| (s + i, s + i + 1))
        };
        scan(hay, find, |m| {
            out.push(m.line);
            true
        });
        out
    }

    #[test]
    fn scan_line_count() {
        assert_eq!(starts(b"").len(), 0);
        assert_eq!(starts(b"\n").len(), 1);
        assert_eq!(starts(b"a").len(), 1);
        assert_eq!(starts(b"a\n").len(), 1);
        assert_eq!(starts(b"a\nb").len(), 2);
        assert_eq!(starts(b"a\nb\n").len(), 2);
        assert_eq!(starts(b"\n\n").len(), 2);
        assert_eq!(starts(b"a\n\nb\n\n").len(), 4);
        let lines: Vec<usize> = starts(b"a\n\nb").iter().map(|m| m.line).collect();
        assert_eq!(lines, [0, 1, 2]);
    }

    #[test]
    fn scan_long() {
        // Many lines of varied length, one of them very long.
        let mut hay = vec![];
        let mut want = vec![];
        for i in 0..3000 {
            let len = if i == 1500 { 300_000 } else { (i * 37) % 200 };
            hay.extend(std::iter::repeat_n(b'.', len));
            if i % 7 == 0 {
                hay.push(b'x');
                want.push(i);
            }
            hay.push(b'\n');
        }
        assert_eq!(naive(&hay, b'x'), want);
        assert_eq!(starts(&hay).len(), 3000);
        hay.pop();
        assert_eq!(naive(&hay, b'x'), want);
        assert_eq!(starts(&hay).len(), 3000);
    }

    #[test]
    fn scan_stops() {
        let mut seen = 0;
        scan(
            b"a\nb\nc\n",
            |s, _| Some((s, s)),
            |_| {
                seen += 1;
                seen < 2
            },
        );
        assert_eq!(seen, 2);
    }

    #[test]
    fn scan_bad_matcher() {
        // A matcher bug ends the scan instead of panicking (release) or
        // trips the debug assertion (tests).
        let result = std::panic::catch_unwind(|| {
            scan(b"ab\ncd", |_, _| Some((5, 9)), |_| true);
        });
        assert_eq!(result.is_err(), cfg!(debug_assertions));
    }
}
