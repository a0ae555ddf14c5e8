//! Rewriting a regex so that no match can contain a line break.
//!
//! The searcher runs one regex over a whole buffer of `\n`-separated logical
//! lines. That is only equivalent to searching each line on its own if no
//! match can contain `\n`. [`strip_line_terminator`]:
//!
//! * removes `\n` from every class (`[^a]`, `\s`, `(?s).`, ...);
//! * turns every literal that contains `\n` into "cannot match", and
//!   simplifies around it (`foo|\n` becomes `foo`, `a\n?b` becomes `ab`);
//! * turns `\A`/`\z` into the line anchors `^`/`$`;
//! * drops capture groups (only whole matches are ever reported).
//!
//! This is ripgrep's `strip_from_match` (`grep-regex/src/strip.rs`), except
//! that a literal `\n` only fails its own branch instead of the whole
//! pattern: a pattern is rejected only when every way it could match needs
//! a `\n`. After the rewrite, a search over the whole buffer reports
//! exactly what searching each line on its own (as its own haystack) would
//! (the opt-in CRLF flag `(?R)` aside: its `$` sees the `\r` before a `\n`).

use regex_syntax::hir::{self, Hir, HirKind};

use super::error::PatternError;

/// Returns `hir` with `\n` removed from everything it can match.
///
/// # Errors
///
/// [`PatternErrorKind::LineBreak`](super::PatternErrorKind::LineBreak) when
/// `hir` could match something before the rewrite but can match nothing
/// after it, i.e. every match needs a `\n` (`foo\nbar`, `[\n]`). A pattern
/// that could never match in the first place (`[a&&b]`) is no error.
pub(crate) fn strip_line_terminator(hir: Hir) -> Result<Hir, PatternError> {
    let could_match = can_match(&hir);
    let stripped = strip(hir);
    if could_match && !can_match(&stripped) {
        return Err(PatternError::line_break());
    }
    Ok(stripped)
}

/// Returns `false` if `hir` matches nothing at all (ignoring look-around:
/// `$a` counts as able to match).
///
/// This is exact where `Properties::minimum_len` is conservative: that
/// reports `None` ("matches nothing") for `\P{any}?` and `a|\P{any}`.
fn can_match(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) => true,
        HirKind::Class(hir::Class::Unicode(class)) => !class.ranges().is_empty(),
        HirKind::Class(hir::Class::Bytes(class)) => !class.ranges().is_empty(),
        HirKind::Repetition(rep) => rep.min == 0 || can_match(&rep.sub),
        HirKind::Capture(cap) => can_match(&cap.sub),
        HirKind::Concat(subs) => subs.iter().all(can_match),
        HirKind::Alternation(subs) => subs.iter().any(can_match),
    }
}

/// Rewrites one node, simplifying away the parts that can no longer
/// match; recursion depth is bounded by the parser's nest limit.
fn strip(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(hir::Literal(bytes)) => {
            if memchr::memchr(b'\n', &bytes).is_some() {
                Hir::fail()
            } else {
                Hir::literal(bytes)
            }
        }
        HirKind::Class(hir::Class::Unicode(mut class)) => {
            let lf = hir::ClassUnicodeRange::new('\n', '\n');
            class.difference(&hir::ClassUnicode::new([lf]));
            // `Hir::class` turns an empty class into `Hir::fail()`.
            Hir::class(hir::Class::Unicode(class))
        }
        HirKind::Class(hir::Class::Bytes(mut class)) => {
            let lf = hir::ClassBytesRange::new(b'\n', b'\n');
            class.difference(&hir::ClassBytes::new([lf]));
            Hir::class(hir::Class::Bytes(class))
        }
        // Each line is searched as if it were the whole haystack, so `\A`
        // and `\z` mean the same as `^` and `$` in multi-line mode.
        HirKind::Look(hir::Look::Start) => Hir::look(hir::Look::StartLF),
        HirKind::Look(hir::Look::End) => Hir::look(hir::Look::EndLF),
        HirKind::Look(look) => Hir::look(look),
        HirKind::Repetition(mut rep) => {
            let sub = strip(std::mem::replace(&mut *rep.sub, Hir::empty()));
            if can_match(&sub) {
                *rep.sub = sub;
                Hir::repetition(rep)
            } else if rep.min == 0 {
                // `\n?` and `\n*` can still match the empty string.
                Hir::empty()
            } else {
                Hir::fail()
            }
        }
        // Only the overall match is ever reported, so groups are dropped.
        // This lets `(foo)bar` collapse to the literal `foobar`.
        HirKind::Capture(cap) => strip(*cap.sub),
        HirKind::Concat(subs) => {
            let subs: Vec<Hir> = subs.into_iter().map(strip).collect();
            if subs.iter().all(can_match) {
                Hir::concat(subs)
            } else {
                Hir::fail()
            }
        }
        HirKind::Alternation(subs) => {
            // `Hir::alternation` of no branches is `Hir::fail()`.
            Hir::alternation(subs.into_iter().map(strip).filter(can_match).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use regex_automata::util::syntax;

    use super::*;
    use crate::search::PatternErrorKind;

    /// Parses `pattern` the way the searcher does (multi-line).
    fn parse(pattern: &str) -> Hir {
        let config = syntax::Config::new()
            .multi_line(true)
            .line_terminator(b'\n');
        match syntax::parse_with(pattern, &config) {
            Ok(hir) => hir,
            Err(err) => panic!("{pattern:?}: {err}"),
        }
    }

    /// Strips `pattern` and returns the shortest and longest match length.
    fn lens(pattern: &str) -> (Option<usize>, Option<usize>) {
        match strip_line_terminator(parse(pattern)) {
            Ok(hir) => (
                hir.properties().minimum_len(),
                hir.properties().maximum_len(),
            ),
            Err(err) => panic!("{pattern:?}: {err}"),
        }
    }

    /// Returns true when stripping `pattern` fails with `LineBreak`.
    fn rejected(pattern: &str) -> bool {
        match strip_line_terminator(parse(pattern)) {
            Ok(_) => false,
            Err(err) => {
                assert_eq!(err.kind(), PatternErrorKind::LineBreak);
                true
            }
        }
    }

    /// Returns true when the stripped `pattern` can match `\n` somewhere.
    fn can_match_lf(pattern: &str) -> bool {
        let Ok(hir) = strip_line_terminator(parse(pattern)) else {
            return false;
        };
        match regex_automata::meta::Regex::builder().build_from_hir(&hir) {
            Ok(re) => re
                .find("a\nb\n\n")
                .is_some_and(|m| memchr::memchr(b'\n', &b"a\nb\n\n"[m.range()]).is_some()),
            Err(err) => panic!("{pattern:?}: {err}"),
        }
    }

    #[test]
    fn strip_rejects() {
        for p in [
            r"\n",
            r"foo\nbar",
            r"[\n]",
            r"(?-u:[\n])",
            r"a\n+b",
            r"(x\n)",
            "a\r\nb",
        ] {
            assert!(rejected(p), "{p}");
        }
    }

    #[test]
    fn strip_keeps() {
        for p in [r"foo|\n", r"a\n?b", r"a\n*b", r"\s", r"[^a]", r"(?s)."] {
            assert!(!rejected(p), "{p}");
        }
        // Cannot match before stripping either: left alone.
        assert!(!rejected(r"[a&&b]"));
        assert_eq!(lens(r"foo|\n"), (Some(3), Some(3)));
        assert_eq!(lens(r"a\n?b"), (Some(2), Some(2)));
        assert_eq!(lens(r"^$"), (Some(0), Some(0)));
        assert_eq!(lens(r"(a)(b)"), (Some(2), Some(2)));
        assert_eq!(lens(r"x\n*"), (Some(1), Some(1)));
        assert_eq!(lens(r"(?:\n|a)b"), (Some(2), Some(2)));
        // A literal that became impossible is gone, not kept as `[]`.
        assert!(can_match(&strip(parse(r"a|(?:b\nc)*"))));
    }

    #[test]
    fn strip_classes() {
        for p in [
            r"\s",
            r"\s+",
            r"[^a]",
            r"(?s).",
            r"(?s:.)+",
            r"[\x00-\x{10FFFF}]",
            r"(?-u:\s)",
            r"\P{L}",
            r"a\n?b|b\s*\n?",
            r"\v|\pC",
        ] {
            assert!(!can_match_lf(p), "{p}");
        }
    }
}
