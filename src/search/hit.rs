//! What a search reports for a matched line: an excerpt of long lines
//! around the match. Pure.

use std::ops::Range;

/// The longest matched line returned whole, in bytes; a longer one is cut
/// to this much around its first match, with `…` marking each cut.
pub const MAX_LINE_BYTES: usize = 4096;

/// `line` as text, cut around `start..end` when it is over
/// [`MAX_LINE_BYTES`].
pub fn excerpt(line: &[u8], start: usize, end: usize) -> String {
    excerpt_keeping(line, start, end, &[])
}

/// [`excerpt`], never cutting inside one of `keep` (sorted byte ranges of
/// `line`, such as its secrets while redaction is on): a cut that would
/// fall inside one moves out to take it whole, so the excerpt may be
/// longer than [`MAX_LINE_BYTES`] by those ranges.
pub fn excerpt_keeping(line: &[u8], start: usize, end: usize, keep: &[Range<usize>]) -> String {
    if line.len() <= MAX_LINE_BYTES {
        return String::from_utf8_lossy(line).into_owned();
    }
    let half = MAX_LINE_BYTES.saturating_sub(end.saturating_sub(start)) / 2;
    let mut from = start.saturating_sub(half);
    let mut to = (end + half).min(line.len());
    for k in keep {
        if k.start < from && from < k.end {
            from = k.start;
        }
        if k.start < to && to < k.end {
            to = k.end.min(line.len());
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
        // A cut never falls inside a range to keep.
        let cut = excerpt(&line, 10_000, 10_006);
        let from = 10_000 - cut.find("NEEDLE").unwrap() + '…'.len_utf8();
        let keep = from - 10..from + 10;
        let k = excerpt_keeping(&line, 10_000, 10_006, &[keep]);
        assert_eq!(k.len(), cut.len() + 10);
    }
}
