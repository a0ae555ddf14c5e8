//! Behaviour of `Pattern` searches, edge case by edge case, plus oracle
//! tests against naive per-line searches.

use proptest::prelude::*;

use super::*;

/// Compiles `pattern` with `regex`/`case_sensitive`, panicking on error.
fn pat(pattern: &str, regex: bool, case_sensitive: bool) -> Pattern {
    match Pattern::new(
        pattern,
        PatternOptions {
            regex,
            case_sensitive,
        },
    ) {
        Ok(p) => p,
        Err(e) => panic!("{pattern:?}: {e}"),
    }
}

/// Line numbers of a case-sensitive literal search.
fn lit(pattern: &str, hay: &[u8]) -> Vec<usize> {
    lines(&pat(pattern, false, true), hay)
}

/// Line numbers of a case-insensitive literal search.
fn ilit(pattern: &str, hay: &[u8]) -> Vec<usize> {
    lines(&pat(pattern, false, false), hay)
}

/// Line numbers of a case-sensitive regex search.
fn re(pattern: &str, hay: &[u8]) -> Vec<usize> {
    lines(&pat(pattern, true, true), hay)
}

/// Line numbers of a case-insensitive regex search.
fn ire(pattern: &str, hay: &[u8]) -> Vec<usize> {
    lines(&pat(pattern, true, false), hay)
}

#[test]
fn match_within_a_span() {
    let line = b"$ echo LATE1 LATE1";
    // Literal, regex and folded literal: only wholly inside the span.
    for p in [
        pat("LATE1", false, true),
        pat("LATE1", true, true),
        pat("late1", false, false),
    ] {
        assert!(p.is_match_within(line, 13..18));
        assert!(!p.is_match_within(line, 0..11));
        assert!(!p.is_match_within(line, 8..17));
        assert!(p.is_match_within(line, 0..99));
        assert!(!p.is_match_within(line, 20..30));
    }
    // Look-arounds see the whole line, not the span's edges.
    assert!(!pat(r"^LATE1", true, true).is_match_within(line, 13..18));
    assert!(pat(r"LATE1$", true, true).is_match_within(line, 13..18));
    assert!(!pat(r"^\$$", true, true).is_match_within(line, 0..2));
    assert!(!pat(r"\bATE", true, true).is_match_within(line, 8..12));
}

/// `(line, start, end)` of each match of a case-sensitive regex.
fn re_spans(pattern: &str, hay: &[u8]) -> Vec<(usize, usize, usize)> {
    spans(&pat(pattern, true, true), hay)
}

/// `(line, start, end)` of each match of a case-sensitive literal.
fn lit_spans(pattern: &str, hay: &[u8]) -> Vec<(usize, usize, usize)> {
    spans(&pat(pattern, false, true), hay)
}

fn lines(p: &Pattern, hay: &[u8]) -> Vec<usize> {
    p.find_lines(hay).iter().map(|m| m.line).collect()
}

fn spans(p: &Pattern, hay: &[u8]) -> Vec<(usize, usize, usize)> {
    p.find_lines(hay)
        .iter()
        .map(|m| (m.line, m.start, m.end))
        .collect()
}

/// The error of compiling `pattern`.
fn error(pattern: &str, regex: bool) -> PatternError {
    let opts = PatternOptions {
        regex,
        case_sensitive: true,
    };
    match Pattern::new(pattern, opts) {
        Ok(_) => panic!("{pattern:?} compiled"),
        Err(e) => e,
    }
}

/// The error kind of compiling `pattern`.
fn err(pattern: &str, regex: bool) -> PatternErrorKind {
    error(pattern, regex).kind()
}

/// The error message of compiling `pattern`.
fn msg(pattern: &str, regex: bool) -> String {
    error(pattern, regex).to_string()
}

const NONE: [usize; 0] = [];

#[test]
fn literal_metacharacters() {
    let hay: &[u8] = b"a\\b\n[x]\n*?\n.\n(\n#{pane_id}\n#(date)\n}\n$^|+\n";
    // (the lines matched, by these needles, and by these needles
    // case-insensitively: the regex engine with an escaped pattern).
    let cases: [(&[usize], &[&str], &[&str]); 10] = [
        (&[0], &["\\", "a\\b"], &["A\\B"]),
        (&[1], &["[", "[x]"], &["[X]"]),
        (&[2], &["*", "?", "*?"], &["*?"]),
        (&[3], &["."], &["."]),
        (&[4, 6], &["("], &[]),
        (&[5], &["#{", "#{pane_id}"], &["#{PANE_ID}"]),
        (&[6], &["#(", "#(date)"], &["#(DATE)"]),
        (&[5, 7], &["}"], &["}"]),
        (&[8], &["$^|+", "$", "^"], &["$^|+", "^"]),
        (&NONE, &["a.b", "x*"], &["a.b"]),
    ];
    for (want, sensitive, insensitive) in cases {
        for needle in sensitive {
            assert_eq!(lit(needle, hay), want, "{needle:?}");
        }
        for needle in insensitive {
            assert_eq!(ilit(needle, hay), want, "{needle:?} (case-insensitive)");
        }
    }
    // Whitespace and `#` are not special either (no `(?x)` surprises).
    assert_eq!(ilit("(?x) a # b", b"(?x) a # b\n"), [0]);
    assert_eq!(lit(" ", b"a\nb c\n"), [1]);
    assert_eq!(ilit(" ", b"a\nb c\n"), [1]);
}

#[test]
fn case_folding() {
    let hay = "Error\nERROR\nerror\neRRoR\nerr or\n".as_bytes();
    assert_eq!(lit("error", hay), [2]);
    assert_eq!(ilit("error", hay), [0, 1, 2, 3]);
    assert_eq!(ilit("ERROR", hay), [0, 1, 2, 3]);
    assert_eq!(ire("e[r]+or", hay), [0, 1, 2, 3]);
    assert_eq!(re("(?i)e[r]+or", hay), [0, 1, 2, 3]);
    assert_eq!(re("e[r]+or", hay), [2]);

    let hay = "une école\nÉCOLE\nEcole\nΣΊΣΥΦΟΣ\nσίσυφος\nstraße\n".as_bytes();
    assert_eq!(ilit("ÉCOLE", hay), [0, 1]);
    assert_eq!(ilit("école", hay), [0, 1]);
    assert_eq!(lit("école", hay), [0]);
    assert_eq!(ire("^ÉCOLE$", hay), [1]);
    assert_eq!(ilit("ΣΊΣΥΦΟΣ", hay), [3, 4]);
    assert_eq!(ilit("σίσυφος", hay), [3, 4]);
    // Simple case folding only: one character never becomes two.
    assert_eq!(ilit("STRASSE", hay), NONE);
    assert_eq!(ilit("STRAẞE", hay), [5]);
    // Offsets are in bytes of the haystack, not of the pattern.
    let p = pat("ÉCOLE", false, false);
    assert_eq!(spans(&p, hay), [(0, 4, 10), (1, 0, 6)]);
}

#[test]
fn needle_positions() {
    let hay: &[u8] = b"needle first\nmiddle needle middle\nlast needle\nneedle";
    assert_eq!(
        lit_spans("needle", hay),
        [(0, 0, 6), (1, 7, 13), (2, 5, 11), (3, 0, 6)]
    );
    assert_eq!(lit_spans("needle", b"needle"), [(0, 0, 6)]);
    assert_eq!(lit_spans("needle", b"needle\n"), [(0, 0, 6)]);
    assert_eq!(lit_spans("needle", b"\n\nneedle"), [(2, 0, 6)]);
    assert_eq!(lit_spans("needle", b"\n\nxneedle\n\n"), [(2, 1, 7)]);
    assert_eq!(
        lit_spans("e", b"xe\nex\ne"),
        [(0, 1, 2), (1, 0, 1), (2, 0, 1)]
    );
    // Several matches in a line: one report, the first match.
    assert_eq!(lit_spans("ab", b"xabab ab\nab"), [(0, 1, 3), (1, 0, 2)]);
    // `\r` is an ordinary byte.
    let hay: &[u8] = b"foo\r\nbar\r\n\r\nfoo\r";
    assert_eq!(lit_spans("foo", hay), [(0, 0, 3), (3, 0, 3)]);
    assert_eq!(
        lit_spans("\r", hay),
        [(0, 3, 4), (1, 3, 4), (2, 0, 1), (3, 3, 4)]
    );
    assert_eq!(lit_spans("o\r", hay), [(0, 2, 4), (3, 2, 4)]);
    assert_eq!(re("foo$", hay), NONE);
    assert_eq!(re(r"foo\r$", hay), [0, 3]);
    assert_eq!(re(r"^\r$", hay), [2]);
    // Nothing to find.
    assert_eq!(lit("x", b""), NONE);
    assert_eq!(lit("x", b"\n\n\n"), NONE);
    assert_eq!(lit("needle", b"needl\needle"), NONE);
}

#[test]
fn regex_anchors() {
    let hay: &[u8] = b"foo bar\nbar foo\n\nfoo\n";
    assert_eq!(re("^foo", hay), [0, 3]);
    assert_eq!(re("foo$", hay), [1, 3]);
    assert_eq!(re("^foo$", hay), [3]);
    assert_eq!(re("^$", hay), [2]);
    assert_eq!(re("^bar", hay), [1]);
    // `\A` and `\z` are line anchors too: each line is its own haystack.
    assert_eq!(re(r"\Afoo", hay), [0, 3]);
    assert_eq!(re(r"foo\z", hay), [1, 3]);
    assert_eq!(re(r"\A\z", hay), [2]);
    // Inline `(?-m)` does not turn them back into buffer anchors.
    assert_eq!(re("(?-m)^foo$", hay), [3]);
    // Word boundaries do not see the neighbouring lines.
    assert_eq!(re(r"\bbar\b", b"foo\nbar\nxbar\nbar_"), [1]);
    assert_eq!(re(r"o\b", b"fo\nbar"), [0]);
    assert_eq!(
        re_spans("b$", b"ab\nb\nbb"),
        [(0, 1, 2), (1, 0, 1), (2, 1, 2)]
    );
    assert_eq!(re_spans("^b", b"ab\nb\nbb"), [(1, 0, 1), (2, 0, 1)]);
}

#[test]
fn regex_never_crosses_lines() {
    assert_eq!(re(r"foo\s+bar", b"foo\nbar\n"), NONE);
    assert_eq!(re(r"foo\s+bar", b"foo \n bar\nfoo  bar"), [2]);
    assert_eq!(re(r"foo\s*$", b"foo \n\n"), [0]);
    assert_eq!(re_spans(r"\s+", b"a\n\nb  c\n"), [(2, 1, 3)]);
    assert_eq!(re(r"a[^x]b", b"a\nb\nayb"), [2]);
    assert_eq!(re(r"(?s)a.b", b"a\nb\nayb"), [2]);
    assert_eq!(re(r"a\Wb", b"a\nb"), NONE);
    assert_eq!(re(r"a(?-u:\s)b", b"a\nb"), NONE);
    assert_eq!(re(r"a\pCb", b"a\nb"), NONE);
    assert_eq!(re(r"a[\x00-\x{10FFFF}]b", b"a\nb"), NONE);
    assert_eq!(re(r"a\n?b", b"a\nb\nab"), [2]);
    assert_eq!(re(r"x|\n", b"a\nx\n"), [1]);
    assert_eq!(re_spans(r".+", b"ab\n\ncd"), [(0, 0, 2), (2, 0, 2)]);
    assert_eq!(
        re_spans(r"(?s).*", b"ab\n\ncd"),
        [(0, 0, 2), (1, 0, 0), (2, 0, 2)]
    );
}

#[test]
fn line_breaks_rejected() {
    use PatternErrorKind::LineBreak;
    assert_eq!(err(r"foo\nbar", true), LineBreak);
    assert_eq!(err(r"\n", true), LineBreak);
    assert_eq!(err(r"[\n]+", true), LineBreak);
    assert_eq!(err(r"\x0A", true), LineBreak);
    assert_eq!(err(r"\r\n", true), LineBreak);
    assert_eq!(err("foo\nbar", true), LineBreak);
    assert_eq!(err("foo\nbar", false), LineBreak);
    assert_eq!(err("\n", false), LineBreak);
    assert_eq!(
        msg(r"foo\nbar", true),
        "a pattern cannot match a line break: logical lines are searched one \
         at a time; search for the text of one line instead"
    );
}

#[test]
fn empty_width() {
    let hay: &[u8] = b"ab\n\nxx\nb";
    let all = [0, 1, 2, 3];
    assert_eq!(re("^", hay), all);
    assert_eq!(re("$", hay), all);
    assert_eq!(re("x*", hay), all);
    assert_eq!(re("(?:)", hay), all);
    assert_eq!(re("()", hay), all);
    assert_eq!(re("a?", hay), all);
    assert_eq!(re("^$", hay), [1]);
    assert_eq!(re(r"\b", hay), [0, 2, 3]);
    assert_eq!(re(r"\B", hay), [0, 1, 2]);
    // The first place the line matches: `x*` matches the empty string at
    // the start of the line before it could match `xx`.
    assert_eq!(
        re_spans("x*", hay),
        [(0, 0, 0), (1, 0, 0), (2, 0, 2), (3, 0, 0)]
    );
    assert_eq!(
        re_spans("$", hay),
        [(0, 2, 2), (1, 0, 0), (2, 2, 2), (3, 1, 1)]
    );
    // Empty lines at the end; the empty segment after the final `\n` is
    // not a line.
    assert_eq!(re("^", b"a\n"), [0]);
    assert_eq!(re("^", b"a\n\n"), [0, 1]);
    assert_eq!(re("^", b"\n"), [0]);
    assert_eq!(re("^", b"\n\n\n"), [0, 1, 2]);
    assert_eq!(re("^", b""), NONE);
    assert_eq!(re("x*", b""), NONE);
    // An empty match at the end of an unterminated last line counts.
    assert_eq!(re_spans("$", b"a\nbc"), [(0, 1, 1), (1, 2, 2)]);
    // Empty matches never split a UTF-8 character.
    assert_eq!(re_spans("$", "é".as_bytes()), [(0, 2, 2)]);
}

#[test]
fn invalid_utf8() {
    let hay: &[u8] = b"CAF\xe9 LATTE\n\xff\xfe\xfd\nthen LATTE\n\xe9\n";
    assert_eq!(lit("LATTE", hay), [0, 2]);
    assert_eq!(lit("CAF\u{e9}", hay), NONE);
    assert_eq!(lit_spans("LATTE", hay), [(0, 5, 10), (2, 5, 10)]);
    assert_eq!(ilit("latte", hay), [0, 2]);
    assert_eq!(ilit("caf", hay), [0]);
    assert_eq!(re("LATTE$", hay), [0, 2]);
    assert_eq!(re(r"^CAF\S LATTE", hay), NONE);
    assert_eq!(re("^CAF. LATTE", hay), NONE);
    assert_eq!(re("^CAF", hay), [0]);
    // `.` never matches an invalid byte, but `.*` may match nothing.
    assert_eq!(re(r"^.*$", hay), [2]);
    assert_eq!(re(r"^.*", hay), [0, 1, 2, 3]);
    assert_eq!(re_spans(r"^.+", hay), [(0, 0, 3), (2, 0, 10)]);
    assert_eq!(re(r"\w+$", hay), [0, 2]);
    assert_eq!(ire("latte", hay), [0, 2]);
    // Truncated and over-long sequences, surrogates.
    let hay: &[u8] = b"\xe2\x82\n\xc0\xaf\n\xed\xa0\x80\nok";
    assert_eq!(re("ok", hay), [3]);
    assert_eq!(re(".", hay), [3]);
    assert_eq!(re("^", hay), [0, 1, 2, 3]);
    assert!(
        pat("\u{e9}", false, false)
            .find_lines(b"\xe9\n\xc3")
            .is_empty()
    );
}

#[test]
fn hostile_patterns() {
    // Linear time: a backtracker would take forever here.
    let mut hay = vec![b'a'; 100_000];
    hay.push(b'!');
    hay.push(b'\n');
    hay.extend(std::iter::repeat_n(b'a', 50_000));
    assert_eq!(re("(a+)+$", &hay), [1]);
    assert_eq!(re("(a*)*b", &hay), NONE);
    assert_eq!(re("(?:a|aa)+$", &hay), [1]);

    assert_eq!(err("(?:a{1000}){1000}", true), PatternErrorKind::TooComplex);
    assert_eq!(err(r"\w{1000}", true), PatternErrorKind::TooComplex);
    let e = Pattern::new("(?:a{1000}){1000}", PatternOptions::regex()).unwrap_err();
    assert_eq!(e.size_limit(), Some(NFA_SIZE_LIMIT));
    assert!(e.to_string().contains("literal"));
    // Repetition counts beyond what regex-syntax accepts.
    assert_eq!(err("a{1000000}", true), PatternErrorKind::TooComplex);
    assert_eq!(err("a{4294967296}", true), PatternErrorKind::Syntax);

    let nested = format!("{}a{}", "(".repeat(100), ")".repeat(100));
    assert_eq!(err(&nested, true), PatternErrorKind::Syntax);
    assert!(msg(&nested, true).starts_with("invalid regex pattern: "));
    // ... but as a literal it is just text.
    assert_eq!(lit(&nested, nested.as_bytes()), [0]);
    let ok = format!("{}a{}", "(".repeat(60), ")".repeat(60));
    assert_eq!(re(&ok, b"xa"), [0]);

    assert_eq!(err(&"a".repeat(1001), false), PatternErrorKind::TooLong);
    assert_eq!(err(&"a".repeat(1001), true), PatternErrorKind::TooLong);
    assert_eq!(
        msg(&"a".repeat(1001), true),
        PatternError::too_long(1001).to_string()
    );
    assert!(msg(&"a".repeat(1001), true).starts_with("pattern is longer than 1000 characters"));
    // A megabyte pattern: the message does not echo it.
    assert!(msg(&"a".repeat(1 << 20), true).len() < 200);
    // The limit counts characters, not bytes.
    let long = "é".repeat(MAX_PATTERN_CHARS);
    assert_eq!(lit(&long, long.as_bytes()), [0]);
    assert_eq!(ilit(&long, long.to_uppercase().as_bytes()), [0]);
    assert_eq!(re(&long, long.as_bytes()), [0]);
    assert_eq!(err(&format!("{long}é"), false), PatternErrorKind::TooLong);

    assert_eq!(err("", false), PatternErrorKind::Empty);
    assert_eq!(msg("", true), "pattern must not be empty");
    assert!(msg("(", true).starts_with("invalid regex pattern: regex parse error:"));
}

#[test]
fn for_each_line_stops() {
    let p = pat("a", false, true);
    let hay = b"a\na\na\na\n";
    let mut seen = vec![];
    p.for_each_line(hay, |m| {
        seen.push(m.line);
        seen.len() < 2
    });
    assert_eq!(seen, [0, 1]);
    let p = pat("^", true, true);
    let mut n = 0;
    p.for_each_line(hay, |_| {
        n += 1;
        false
    });
    assert_eq!(n, 1);
}

#[test]
fn line_helpers() {
    let p = pat("b+", true, true);
    assert_eq!(p.find_in_line(b"abbc"), Some(1..3));
    assert_eq!(p.find_in_line(b"ac"), None);
    assert!(p.is_match_line(b"ab"));
    assert!(!p.is_match_line(b""));
    let p = pat("^$", true, true);
    assert!(p.is_match_line(b""));
    assert_eq!(p.find_in_line(b""), Some(0..0));
    let p = pat("b", false, true);
    assert_eq!(p.find_in_line(b"abb"), Some(1..2));
    assert!(p.is_match_line(b"b"));
    assert!(!p.is_match_line(b""));
    let m = p.find_lines(b"x\nab")[0];
    assert_eq!((m.line, m.range()), (1, 1..2));
}

#[test]
fn shared_across_threads() {
    let p = pat("[0-9]{3}", true, true);
    let hay: Vec<u8> = (0..2000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let want: Vec<usize> = (100..2000).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| lines(&p, &hay))).collect();
        for h in handles {
            assert_eq!(h.join().ok(), Some(want.clone()));
        }
    });
}

// ---- oracles ------------------------------------------------------------

/// The lines of `hay` as defined by the module: split on `\n`, without the
/// empty segment after a final `\n`.
fn naive_lines(hay: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = hay.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// The byte offset of each of `lines`' starts in the haystack they came
/// from.
fn offsets(lines: &[&[u8]]) -> Vec<usize> {
    let mut at = 0;
    lines
        .iter()
        .map(|l| {
            let o = at;
            at += l.len() + 1;
            o
        })
        .collect()
}

/// The naive twin of a literal `find_lines`: per line, the first window
/// equal to `needle` (ASCII case-insensitively if `!case_sensitive`).
fn naive_literal(hay: &[u8], needle: &[u8], case_sensitive: bool) -> Vec<LineMatch> {
    let eq = |a: &[u8]| {
        if case_sensitive {
            a == needle
        } else {
            a.eq_ignore_ascii_case(needle)
        }
    };
    naive(hay, |text| {
        let start = text.windows(needle.len()).position(eq)?;
        Some(start..start + needle.len())
    })
}

/// The naive twin of a regex `find_lines`: search each line on its own.
fn naive_per_line(p: &Pattern, hay: &[u8]) -> Vec<LineMatch> {
    naive(hay, |text| p.find_in_line(text))
}

/// Each line of `hay` on its own, where `find` finds a match in it.
fn naive(hay: &[u8], find: impl Fn(&[u8]) -> Option<std::ops::Range<usize>>) -> Vec<LineMatch> {
    let lines = naive_lines(hay);
    let offs = offsets(&lines);
    lines
        .iter()
        .enumerate()
        .filter_map(|(line, text)| {
            let r = find(text)?;
            Some(LineMatch {
                line,
                offset: offs[line],
                start: r.start,
                end: r.end,
            })
        })
        .collect()
}

/// Pieces haystacks are made of: ASCII with both cases, metacharacters,
/// `\r`, multi-byte UTF-8 and invalid bytes (but nothing that Unicode case
/// folding maps to ASCII, like `ſ` or the Kelvin sign, so that the ASCII
/// oracle holds for the case-insensitive path).
const PIECES: &[&[u8]] = &[
    b"a",
    b"b",
    b"A",
    b"B",
    b"ab",
    b"aB",
    b"\n",
    b"\n",
    b"\r",
    b" ",
    b".",
    b"*",
    b"\\",
    b"[",
    b"(",
    b"#{",
    b"}",
    b"\xc3\xa9",
    b"\xc3\x89",
    b"\xe6\x97\xa5",
    b"\xff",
    b"\xe9",
    b"_",
    b"1",
];

/// Pieces literal needles are made of (no `\n`; ASCII letters only, so
/// ASCII case folding is the whole truth).
const NEEDLE_PIECES: &[&str] = &[
    "a", "b", "A", "B", "ab", " ", ".", "*", "\\", "[", "(", "#{", "}", "_", "\r",
];

/// Regexes for the per-line oracle: anchors, empty matches, classes that
/// contain `\n` before stripping, word boundaries, Unicode.
const REGEXES: &[&str] = &[
    "^a",
    "b$",
    "a+b?",
    r"\s+",
    "[^a]",
    "(?s).",
    r"\bab\b",
    "^$",
    "x*",
    r"a|\n",
    r"\A.",
    r"\z",
    "(?i)AB",
    ".",
    r"\W+",
    "[[:upper:]]+",
    "é",
    r"\B",
    r"(?i)É",
    r"a\s*b",
    r"[ab]{2,}",
    r"\d",
    r"(?s:.)*",
    r"\Aa*\z",
    r"\r$",
];

fn hay_strategy(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(proptest::sample::select(PIECES), 0..max)
        .prop_map(|pieces| pieces.concat())
}

fn needle_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(NEEDLE_PIECES), 1..4)
        .prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn oracle_literal(hay in hay_strategy(80), needle in needle_strategy()) {
        let p = pat(&needle, false, true);
        prop_assert_eq!(p.find_lines(&hay), naive_literal(&hay, needle.as_bytes(), true));
    }

    #[test]
    fn oracle_literal_ci(hay in hay_strategy(80), needle in needle_strategy()) {
        let p = pat(&needle, false, false);
        prop_assert_eq!(p.find_lines(&hay), naive_literal(&hay, needle.as_bytes(), false));
    }

    #[test]
    fn oracle_regex(hay in hay_strategy(80), i in 0..REGEXES.len()) {
        let p = pat(REGEXES[i], true, true);
        prop_assert_eq!(p.find_lines(&hay), naive_per_line(&p, &hay));
    }

    #[test]
    fn never_panics(hay in proptest::collection::vec(any::<u8>(), 0..200), pattern in ".{0,12}", regex in any::<bool>(), cs in any::<bool>()) {
        if let Ok(p) = Pattern::new(&pattern, PatternOptions { regex, case_sensitive: cs }) {
            let found = p.find_lines(&hay);
            prop_assert!(found.windows(2).all(|w| w[0].line < w[1].line));
            let lines = naive_lines(&hay);
            for m in found {
                prop_assert!(m.start <= m.end && m.end <= lines[m.line].len());
            }
        }
    }
}

/// A deterministic pseudo-random haystack of 600 KB with lines up to 20 KB,
/// checked against the oracles.
#[test]
fn oracle_large() {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut hay = vec![];
    while hay.len() < 600_000 {
        let r = next();
        // Mostly short lines of pieces, sometimes a long line.
        let n = if r % 97 == 0 {
            20_000
        } else {
            (r >> 8) as usize % 60
        };
        for _ in 0..n {
            let piece = PIECES[(next() >> 16) as usize % PIECES.len()];
            if piece != b"\n" {
                hay.extend_from_slice(piece);
            }
        }
        hay.push(b'\n');
    }
    for needle in ["ab", "aB", "#{", "\\[", "a b", "\r.", "bab"] {
        let p = pat(needle, false, true);
        assert_eq!(
            p.find_lines(&hay),
            naive_literal(&hay, needle.as_bytes(), true),
            "{needle}"
        );
        let p = pat(needle, false, false);
        assert_eq!(
            p.find_lines(&hay),
            naive_literal(&hay, needle.as_bytes(), false),
            "{needle}"
        );
    }
    for regex in REGEXES {
        let p = pat(regex, true, true);
        assert_eq!(p.find_lines(&hay), naive_per_line(&p, &hay), "{regex}");
    }
}

/// Pieces for the case-insensitive literal prefilter: letters whose Unicode
/// case variants are several bytes long (`k`: U+212A, `s`: U+017F), those
/// variants, and lines long enough for the 16- and 32-byte blocks.
const FOLD_PIECES: &[&[u8]] = &[
    b"k",
    b"K",
    b"s",
    b"S",
    b"q",
    b"Q",
    b"-",
    b"1",
    b" ",
    b"\n",
    "\u{212a}".as_bytes(),
    "\u{17f}".as_bytes(),
    b"\xe2",
    b"\xc5",
    b"xxxxxxxxxxxxxxxx",
    b"qs-Kq1",
];

const FOLD_NEEDLE_PIECES: &[&str] = &["k", "K", "s", "S", "q", "Q", "-", "1", "qs-kq1"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// The prefiltered case-insensitive literal finds exactly what the
    /// regex engine alone finds, positions included.
    #[test]
    fn folded_literal_equals_regex(
        hay in proptest::collection::vec(proptest::sample::select(FOLD_PIECES), 0..120)
            .prop_map(|p| p.concat()),
        needle in proptest::collection::vec(proptest::sample::select(FOLD_NEEDLE_PIECES), 1..4)
            .prop_map(|p| p.concat()),
    ) {
        let folded = pat(&needle, false, false);
        let regex = pat(&regex_syntax::escape(&needle), true, false);
        prop_assert_eq!(folded.find_lines(&hay), regex.find_lines(&hay));
    }
}

/// Whether every required pair of `p` is in `line`, ASCII case folded.
fn holds_required_pairs(p: &Pattern, line: &[u8]) -> bool {
    let pairs: std::collections::HashSet<(u8, u8)> = line
        .windows(2)
        .map(|w| (w[0].to_ascii_lowercase(), w[1].to_ascii_lowercase()))
        .collect();
    p.required_pairs()
        .iter()
        .all(|&(a, b)| pairs.contains(&(a.to_ascii_lowercase(), b.to_ascii_lowercase())))
}

/// Regexes whose matches share literals (so they have required pairs),
/// in both case modes.
const PAIR_REGEXES: &[&str] = &[
    r"ab\d+",
    r"(?:ab|aB)c",
    r"kab",
    r"sab|sAb",
    r"é[ab]{2}",
    r"\bAB\b",
    r"a.b",
    r"x*ab",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every line a pattern matches holds all its required pairs (what lets
    /// the mirror skip history chunks that lack one).
    #[test]
    fn matched_lines_hold_the_required_pairs(
        hay in proptest::collection::vec(
            proptest::sample::select([PIECES, FOLD_PIECES, &[b"c", b"C", b"9"]].concat()),
            0..100,
        ).prop_map(|p| p.concat()),
        i in 0..PAIR_REGEXES.len() + NEEDLE_PIECES.len() + FOLD_NEEDLE_PIECES.len(),
        regex in any::<bool>(),
        cs in any::<bool>(),
    ) {
        let all: Vec<&str> = PAIR_REGEXES
            .iter()
            .chain(NEEDLE_PIECES)
            .chain(FOLD_NEEDLE_PIECES)
            .copied()
            .collect();
        let text = all[i];
        let regex = regex || i < PAIR_REGEXES.len();
        let Ok(p) = Pattern::new(text, PatternOptions { regex, case_sensitive: cs }) else {
            return Ok(());
        };
        let lines = naive_lines(&hay);
        for m in p.find_lines(&hay) {
            prop_assert!(
                holds_required_pairs(&p, lines[m.line]),
                "{text:?} (regex {regex}, cs {cs}) matched {:?} lacking one of {:?}",
                String::from_utf8_lossy(lines[m.line]),
                p.required_pairs()
            );
        }
    }
}

#[test]
fn required_pairs_examples() {
    let ci = PatternOptions::literal().case_sensitive(false);
    let re_ci = PatternOptions::regex().case_sensitive(false);
    assert_eq!(pat("ab", false, true).required_pairs(), [(b'a', b'b')]);
    assert!(pat("a", false, true).required_pairs().is_empty());
    assert!(
        !Pattern::new("MCPB-RX-8954f7 job=build-[0-9]{4}", re_ci)
            .unwrap()
            .required_pairs()
            .is_empty()
    );
    assert!(
        !Pattern::new("MCPB-宽字符-8954f7", ci)
            .unwrap()
            .required_pairs()
            .is_empty()
    );
    // `k` also matches U+212A: no pair of a case-insensitive `k` is required.
    let k = Pattern::new("akb", re_ci).unwrap();
    assert!(
        k.required_pairs()
            .iter()
            .all(|&(a, b)| a != b'k' && b != b'k'),
        "{:?}",
        k.required_pairs()
    );
    assert!(
        Pattern::new("a|b", PatternOptions::regex())
            .unwrap()
            .required_pairs()
            .is_empty()
    );
}
