//! How many cells tmux gives text, by tmux version. Pure.
//!
//! tmux places characters cell by cell (screen-write.c:
//! `screen_write_cell()`), joining some onto the cell before them
//! (`screen_write_combine()`), and the rules changed:
//!
//! * ≤ 3.3: a zero-width character (combining marks, VS16 `U+FE0F`) joins
//!   the previous cell without changing its width; after a zero-width
//!   joiner (ZWJ, `U+200D`) the next character joins too.
//! * 3.4 and 3.5: VS16 joins *and* widens a one-cell character to two
//!   cells; an emoji skin-tone modifier (`U+1F3FB`–`U+1F3FF`) joins and
//!   widens; anything after a cell ending in ZWJ joins.
//! * ≥ 3.6: as 3.4, and a second regional indicator joins the first (a
//!   flag) and widens it. VS16 widens only while the server option
//!   `variation-selector-always-wide` is on (the default).
//!
//! Base widths come from Unicode (`unicode-width`), which agrees with the C
//! library's `wcwidth()` tmux uses for nearly all text; rare characters
//! whose width tables differ between systems are the remaining source of
//! error, which is why callers verify row numbers they report.

use unicode_width::UnicodeWidthChar;

use crate::wire::TmuxVersion;

/// Which placement rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// tmux ≤ 3.3.
    V33,
    /// tmux 3.4 and 3.5.
    V34,
    /// tmux ≥ 3.6 (and unknown, newer builds).
    V36,
}

impl Rules {
    /// The rules for a server version.
    pub fn for_version(v: &TmuxVersion) -> Rules {
        if !v.at_least(3, 4) {
            Rules::V33
        } else if !v.at_least(3, 6) {
            Rules::V34
        } else {
            Rules::V36
        }
    }
}

const ZWJ: char = '\u{200d}';
const VS16: char = '\u{fe0f}';

fn is_skin_tone(c: char) -> bool {
    ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
}

fn is_regional(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

/// The rows a logical line of `text` fills in a pane `width` cells wide:
/// tmux wraps before a character that does not fit (a two-cell character
/// that would straddle the edge moves to the next row), and a line that
/// exactly fills its rows does not spill into another. Tabs advance to the
/// next multiple of 8.
pub fn rows(text: &str, width: usize, rules: Rules) -> u32 {
    if width == 0 {
        return 1;
    }
    if text.is_ascii() && !text.contains('\t') {
        return text.len().div_ceil(width).max(1) as u32;
    }
    let mut rows = 1u32;
    let mut col = 0usize;
    // The cell the next joining character would join: its width and
    // whether it holds a ZWJ or one regional indicator.
    let mut last: Option<(usize, bool, bool)> = None;
    let mut pending_zwj = false;
    for c in text.chars() {
        if c == ZWJ {
            match rules {
                Rules::V33 => pending_zwj = true,
                _ => {
                    if let Some(l) = last.as_mut() {
                        l.1 = true;
                    }
                }
            }
            continue;
        }
        if rules == Rules::V33 && std::mem::take(&mut pending_zwj) && last.is_some() {
            continue;
        }
        let w = if c == '\t' {
            (col / 8 + 1) * 8 - col
        } else {
            c.width().unwrap_or(0)
        };
        if let Some((lw, zwj, ri)) = last {
            let widen = match rules {
                Rules::V33 => false,
                _ => c == VS16 || is_skin_tone(c) || (rules == Rules::V36 && ri && is_regional(c)),
            };
            let joins = w == 0 || widen || (rules != Rules::V33 && zwj);
            if joins {
                if widen && lw == 1 {
                    col += 1;
                    last = Some((2, false, false));
                } else {
                    last = Some((lw, false, false));
                }
                continue;
            }
        } else if w == 0 {
            continue;
        }
        if col + w > width && col > 0 {
            rows += 1;
            col = 0;
        }
        col += w;
        last = Some((w, false, is_regional(c)));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_wide() {
        for r in [Rules::V33, Rules::V34, Rules::V36] {
            assert_eq!(rows("", 20, r), 1);
            assert_eq!(rows("0123456789abcdefNEEDLEXYZ-tail", 20, r), 2);
            assert_eq!(rows(&"x".repeat(20), 20, r), 1);
            assert_eq!(rows(&"x".repeat(21), 20, r), 2);
            // 中文 + 18 x = 22 cells.
            assert_eq!(rows("中文xxxxxxxxxxxxxxxxxx", 20, r), 2);
            // A wide character that does not fit in the last cell wraps early.
            assert_eq!(rows("xxxxxxxxxxxxxxxxxxx中", 20, r), 2);
            assert_eq!(rows("xxxxxxxxxxxxxxxxxx中", 20, r), 1);
            assert_eq!(rows("a\tb", 20, r), 1);
            // A combining accent takes no cell.
            assert_eq!(rows(&"e\u{301}".repeat(20), 20, r), 1);
        }
    }

    #[test]
    fn variation_selector() {
        // 60 × "❤️" (U+2764 U+FE0F) in 80 columns: one cell each up to 3.3,
        // two cells from 3.4.
        let hearts = "\u{2764}\u{fe0f}".repeat(60);
        assert_eq!(rows(&hearts, 80, Rules::V33), 1);
        assert_eq!(rows(&hearts, 80, Rules::V34), 2);
        assert_eq!(rows(&hearts, 80, Rules::V36), 2);
    }

    #[test]
    fn joiners_modifiers_and_flags() {
        // 👨‍👩‍👧 is one two-cell character from 3.4; 3.3 joins only the
        // character right after each ZWJ, which here is all of them.
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        assert_eq!(rows(&family.repeat(10), 20, Rules::V34), 1);
        assert_eq!(rows(&family.repeat(10), 20, Rules::V33), 1);
        // 👍🏽: the skin tone joins from 3.4; on 3.3 it is its own cell.
        let thumbs = "\u{1f44d}\u{1f3fd}".repeat(10);
        assert_eq!(rows(&thumbs, 20, Rules::V34), 1);
        assert_eq!(rows(&thumbs, 20, Rules::V33), 2);
        // 🇫🇷: a pair of regional indicators, joined from 3.6.
        let flags = "\u{1f1eb}\u{1f1f7}".repeat(10);
        assert_eq!(rows(&flags, 20, Rules::V36), 1);
    }

    #[test]
    fn rules_by_version() {
        let v = |s: &str| Rules::for_version(&TmuxVersion::parse(s));
        assert_eq!(v("3.2a"), Rules::V33);
        assert_eq!(v("3.3a"), Rules::V33);
        assert_eq!(v("3.4"), Rules::V34);
        assert_eq!(v("3.5a"), Rules::V34);
        assert_eq!(v("3.6a"), Rules::V36);
        assert_eq!(v("3.8"), Rules::V36);
        assert_eq!(v("next-3.8"), Rules::V36);
    }
}
