//! Text a pane controls, made fit for an event's one-line summary.

/// Bytes of a summary at most (text from a pane is cut first).
pub const SUMMARY_MAX: usize = 240;

/// Bytes of pane-controlled text (a title, a command line, a matched
/// line) an event carries at most, in its summary and its fields.
pub const PANE_TEXT_MAX: usize = 120;

/// `raw`, text a pane controls, cleaned as every answer cleans it
/// ([`crate::term::marks::clean`]: controls and bidirectional overrides
/// escaped, invalid UTF-8 replaced) and cut to [`PANE_TEXT_MAX`] bytes at
/// a character boundary (`…` marks a cut). Double quotes become `'`, so
/// the text can sit in `"…"` in a summary and never end the quote.
pub fn cleaned(raw: &str) -> String {
    // Room for one more escape (at most 10 bytes) past the cap: text that
    // cleans to no more than the cap was not cut.
    let s = crate::term::marks::clean(raw.as_bytes(), PANE_TEXT_MAX + 16);
    cut(s, PANE_TEXT_MAX).replace('"', "'")
}

/// [`cleaned`] `raw` in double quotes, for a summary.
pub fn quoted(raw: &str) -> String {
    format!("\"{}\"", cleaned(raw))
}

/// `s` cut to [`SUMMARY_MAX`] bytes at a character boundary (`…` marks a
/// cut); a summary is built from tmuxwire's words, tmux's ids and
/// [`quoted`] text, so it holds no controls.
pub fn capped(s: String) -> String {
    cut(s, SUMMARY_MAX)
}

/// `s` cut to at most `max` bytes (`max` ≥ 3, the bytes of `…`) at a
/// character boundary, `…` marking the cut; `s` itself when not over.
fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max - '…'.len_utf8();
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

/// A duration for a summary: `850 ms`, `41 s`, `3 min 20 s`, `2 h 5 min`.
pub fn duration(us: u64) -> String {
    let ms = us / 1000;
    let s = ms / 1000;
    match s {
        0 => format!("{ms} ms"),
        1..=119 => format!("{s} s"),
        120..=7199 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s / 60) % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_text_cannot_break_the_line_or_the_quote() {
        let q = quoted("done\"\n%4 command_finished: exit 0\x1b[2J\u{202e}");
        assert_eq!(
            q,
            "\"done'\\x0a%4 command_finished: exit 0\\x1b[2J\\u{202e}\""
        );
        assert!(!q.chars().any(char::is_control));
        assert_eq!(q.matches('"').count(), 2);
    }

    #[test]
    fn long_text_is_cut_at_a_character_boundary() {
        let long = "é".repeat(400);
        let c = cleaned(&long);
        assert!(c.len() <= PANE_TEXT_MAX);
        assert!(c.ends_with('…'));
        let s = capped("x".repeat(1000));
        assert_eq!(s.len(), SUMMARY_MAX);
        assert!(s.ends_with('…'));
        assert_eq!(capped("short".into()), "short");
    }

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(duration(850_000), "850 ms");
        assert_eq!(duration(41_000_000), "41 s");
        assert_eq!(duration(200_000_000), "3 min 20 s");
        assert_eq!(duration(7_500_000_000), "2 h 5 min");
    }
}
