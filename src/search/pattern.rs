//! Compiled search patterns: a `memmem` finder or a `meta::Regex`.

use std::ops::Range;
use std::sync::Arc;

use memchr::memmem;
use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;
use regex_automata::{Input, Span};
use regex_syntax::hir::{self, HirKind};

use memchr::{memchr, memrchr};

use super::error::PatternError;
use super::fold::FoldedPair;
use super::limits::{HYBRID_CACHE_CAPACITY, MAX_PATTERN_CHARS, NEST_LIMIT, NFA_SIZE_LIMIT};
use super::lines::{LineMatch, scan};
use super::strip::strip_line_terminator;

/// How a pattern is interpreted.
///
/// The [`Default`] is a case-sensitive literal search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PatternOptions {
    /// `true`: the pattern is a regex in Rust `regex` syntax; `^` and `$`
    /// match at the start and end of every logical line. `false`: every
    /// byte of the pattern stands for itself (`\`, `[`, `*`, `.`, `#{`,
    /// ... included).
    pub regex: bool,
    /// `false`: letters match regardless of case, with Unicode simple case
    /// folding (`ÉCOLE` finds `école`, but `ß` does not find `SS`).
    pub case_sensitive: bool,
}

impl Default for PatternOptions {
    fn default() -> PatternOptions {
        PatternOptions::literal()
    }
}

impl PatternOptions {
    /// A case-sensitive literal search.
    pub fn literal() -> PatternOptions {
        PatternOptions {
            regex: false,
            case_sensitive: true,
        }
    }

    /// A case-sensitive regex search.
    pub fn regex() -> PatternOptions {
        PatternOptions {
            regex: true,
            case_sensitive: true,
        }
    }

    /// These options with `case_sensitive` set to `yes`.
    #[must_use = "this returns new options and leaves `self` unchanged"]
    pub fn case_sensitive(self, yes: bool) -> PatternOptions {
        PatternOptions {
            case_sensitive: yes,
            ..self
        }
    }
}

/// A compiled, immutable search pattern.
///
/// Build it once with [`Pattern::new`] and search any number of haystacks
/// with it. It is `Send + Sync`, and cloning it is cheap (an `Arc` bump),
/// so one pattern can search several panes on several threads.
///
/// A haystack is a buffer of logical lines separated by `\n`; the last line
/// may or may not end with `\n`, and the empty segment after a final `\n`
/// is not a line (so `""` has no lines and `"\n"` has one, empty, line).
/// Bytes need not be valid UTF-8: an invalid byte is never part of a match
/// (every match is valid UTF-8), but it never stops the search either. A match
/// never spans two lines: each line is searched as if it were the whole
/// haystack, so `^`, `$`, `\A` and `\z` all match at every line's start or
/// end, and `\b` sees nothing beyond the line.
///
/// # Example
///
/// ```
/// use tmuxwire::search::{LineMatch, Pattern, PatternOptions};
///
/// let pat = Pattern::new("error", PatternOptions::literal())?;
/// let hay = b"ok\nan error: x\nerror again\n";
/// assert_eq!(
///     pat.find_lines(hay),
///     [
///         LineMatch { line: 1, offset: 3, start: 3, end: 8 },
///         LineMatch { line: 2, offset: 15, start: 0, end: 5 },
///     ],
/// );
/// # Ok::<(), tmuxwire::search::PatternError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Pattern {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    text: String,
    options: PatternOptions,
    matcher: Matcher,
    /// See [`Pattern::required_pairs`].
    pairs: Vec<(u8, u8)>,
}

/// The most pairs [`Pattern::required_pairs`] gives (any subset will do).
const MAX_PAIRS: usize = 64;

// One `Matcher` lives behind the `Arc` of each pattern, so the size gap
// between the variants costs nothing worth an extra indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Matcher {
    /// The needle is non-empty and contains no `\n`.
    Literal(memmem::Finder<'static>),
    /// Compiled from an HIR with `\n` stripped from everything it matches,
    /// and the byte pairs every match holds ([`hir_pairs`]).
    Regex(meta::Regex, Vec<(u8, u8)>),
    /// A case-insensitive ASCII literal: candidates from the pair, the
    /// match from the regex on the candidate's line.
    Folded(FoldedPair, meta::Regex),
}

/// Compiling.
impl Pattern {
    /// Compiles `pattern` as `options` say.
    ///
    /// A case-sensitive literal (and a regex or case-insensitive literal
    /// that parses to a plain literal, such as `foo` or `(?i)123`) is
    /// searched with `memchr::memmem`; anything else with a
    /// `regex_automata::meta::Regex`.
    ///
    /// # Errors
    ///
    /// * [`Empty`](super::PatternErrorKind::Empty): `pattern` is `""`.
    /// * [`TooLong`](super::PatternErrorKind::TooLong): more than
    ///   [`MAX_PATTERN_CHARS`] characters.
    /// * [`Syntax`](super::PatternErrorKind::Syntax): not a valid regex
    ///   (regex mode), including nesting deeper than [`NEST_LIMIT`].
    /// * [`LineBreak`](super::PatternErrorKind::LineBreak): every match would
    ///   contain `\n` (a literal containing `\n`, or a regex like `a\nb`).
    ///   Branches that need a `\n` are dropped otherwise: `foo|\n` matches
    ///   `foo`, and `\s`, `[^a]`, `(?s).` never match `\n`.
    /// * [`TooComplex`](super::PatternErrorKind::TooComplex): the compiled
    ///   regex would exceed [`NFA_SIZE_LIMIT`] (`(?:a{1000}){1000}`).
    pub fn new(pattern: &str, options: PatternOptions) -> Result<Pattern, PatternError> {
        Pattern::new_within(pattern, options, MAX_PATTERN_CHARS)
    }

    /// [`Pattern::new`] with another length limit than
    /// [`MAX_PATTERN_CHARS`]: at most `max_chars` characters (the
    /// command line's `search -f FILE` takes long pattern lists; the
    /// compiled size is still bounded by [`NFA_SIZE_LIMIT`]).
    ///
    /// # Errors
    ///
    /// As [`Pattern::new`], `TooLong` past `max_chars`.
    pub fn new_within(
        pattern: &str,
        options: PatternOptions,
        max_chars: usize,
    ) -> Result<Pattern, PatternError> {
        if pattern.is_empty() {
            return Err(PatternError::empty());
        }
        if pattern.chars().nth(max_chars).is_some() {
            return Err(PatternError::too_long(pattern.chars().count()));
        }
        if !options.regex && pattern.contains('\n') {
            return Err(PatternError::line_break());
        }
        let matcher = if !options.regex && options.case_sensitive {
            Matcher::Literal(memmem::Finder::new(pattern).into_owned())
        } else if options.regex {
            compile_regex(pattern, options.case_sensitive)?
        } else {
            match compile_regex(&regex_syntax::escape(pattern), false)? {
                Matcher::Regex(re, pairs) => match FoldedPair::new(pattern) {
                    Some(pair) => Matcher::Folded(pair, re),
                    None => Matcher::Regex(re, pairs),
                },
                other => other,
            }
        };
        let mut pairs: Vec<(u8, u8)> = match &matcher {
            Matcher::Literal(f) => f.needle().windows(2).map(|w| (w[0], w[1])).collect(),
            Matcher::Folded(pair, _) => pair.pairs().to_vec(),
            Matcher::Regex(_, pairs) => pairs.clone(),
        };
        let mut seen = std::collections::HashSet::new();
        pairs.retain(|&(a, b)| seen.insert((a.to_ascii_lowercase(), b.to_ascii_lowercase())));
        pairs.truncate(MAX_PAIRS);
        let text = pattern.to_owned();
        Ok(Pattern {
            inner: Arc::new(Inner {
                text,
                options,
                matcher,
                pairs,
            }),
        })
    }

    /// The pattern as given to [`Pattern::new`].
    pub fn as_str(&self) -> &str {
        &self.inner.text
    }

    /// The options given to [`Pattern::new`].
    pub fn options(&self) -> PatternOptions {
        self.inner.options
    }

    /// Returns `true` when the pattern asks for a TAB: a literal holding
    /// one, or a regex with a TAB in a literal or in a class that does not
    /// also take a space (`\t`, `[\t,]`; `\s` and `[[:blank:]]` do not
    /// count). Searches use it to say that tmux before 3.6 keeps no TABs
    /// (public case C22).
    pub fn mentions_tab(&self) -> bool {
        if !self.inner.options.regex {
            return self.inner.text.contains('\t');
        }
        let syntax = syntax::Config::new().nest_limit(NEST_LIMIT);
        syntax::parse_with(&self.inner.text, &syntax).is_ok_and(|h| hir_mentions_tab(&h))
    }

    /// Pairs of adjacent bytes that every line matching this pattern holds
    /// side by side, each byte as given or with the other ASCII case (at
    /// most 64): text that lacks one of them, in either
    /// case, holds no match. Lets a search skip text summarised by the
    /// pairs it holds. Empty when nothing can be told (a regex whose
    /// matches share no literal, a one-byte literal).
    pub fn required_pairs(&self) -> &[(u8, u8)] {
        &self.inner.pairs
    }

    /// Returns `true` when searches use `memchr::memmem` (the pattern is,
    /// or parses to, a plain literal), `false` when they use the regex
    /// engine.
    pub fn is_literal_fast_path(&self) -> bool {
        matches!(self.inner.matcher, Matcher::Literal(_))
    }
}

/// Searching.
impl Pattern {
    /// Returns every line of `haystack` that matches, in increasing line
    /// order, each once, with the first (leftmost) match in it.
    ///
    /// [`LineMatch::line`] is the 0-based logical line index;
    /// [`LineMatch::start`]`..`[`LineMatch::end`] is the byte range of the
    /// match relative to the start of that line. A regex that can match
    /// the empty string (`^`, `x*`) matches every line, empty lines
    /// included, with an empty range at the first place it matches.
    ///
    /// Time is linear in `haystack.len()` for every pattern (for a regex
    /// without a useful literal, times a factor bounded by the size of the
    /// compiled pattern: there is no catastrophic backtracking).
    pub fn find_lines(&self, haystack: &[u8]) -> Vec<LineMatch> {
        let mut out = Vec::new();
        self.for_each_line(haystack, |m| {
            out.push(m);
            true
        });
        out
    }

    /// Like [`Pattern::find_lines`], but calls `f` with each matching line
    /// as it is found and stops as soon as `f` returns `false` (to enforce
    /// a result budget or check for cancellation).
    pub fn for_each_line(&self, haystack: &[u8], f: impl FnMut(LineMatch) -> bool) {
        match &self.inner.matcher {
            Matcher::Literal(finder) => {
                let n = finder.needle().len();
                let find = |start: usize, end: usize| {
                    let i = finder.find(haystack.get(start..end)?)?;
                    Some((start + i, start + i + n))
                };
                scan(haystack, find, f);
            }
            Matcher::Regex(re, _) => {
                // `search` borrows a cache from the regex's internal pool.
                // A fresh `create_cache()` per call would also start the
                // lazy DFA cold every time: measured 8.4 µs instead of
                // 0.2 µs for a two-line haystack and `took \d+ms`.
                let find = |start: usize, end: usize| {
                    let input = Input::new(haystack).span(Span { start, end });
                    let m = re.search(&input)?;
                    Some((m.start(), m.end()))
                };
                scan(haystack, find, f);
            }
            Matcher::Folded(pair, re) => {
                let find = |start: usize, end: usize| {
                    let mut from = start;
                    loop {
                        let at = pair.find(haystack, from, end)?;
                        let line_start =
                            memrchr(b'\n', &haystack[start..at]).map_or(start, |i| start + i + 1);
                        let line_end = memchr(b'\n', &haystack[at..end]).map_or(end, |i| at + i);
                        if !pair.confirm(&haystack[line_start..line_end], at - line_start) {
                            from = at + 1;
                            continue;
                        }
                        let input = Input::new(haystack).span(Span {
                            start: line_start,
                            end: line_end,
                        });
                        if let Some(m) = re.search(&input) {
                            return Some((m.start(), m.end()));
                        }
                        // The regex looked at the whole line.
                        from = line_end.saturating_add(1);
                    }
                };
                scan(haystack, find, f);
            }
        }
    }

    /// Returns the byte range of the first (leftmost) match in `line`, or
    /// `None`.
    ///
    /// `line` is the content of one logical line, without its `\n`; the
    /// range is relative to its start. For any line of a haystack,
    /// `find_in_line(line)` agrees with the [`LineMatch`] that
    /// [`Pattern::find_lines`] reports for it, with one exception: in CRLF
    /// mode (`(?R)`), `$` does not match between a line's final `\r` and
    /// its `\n` inside a haystack, so `(?R)\r$` matches the lone line
    /// `a\r` but not line 0 of `a\r\nb`. See [`Pattern::is_match_line`]
    /// for a `line` that contains `\n`.
    pub fn find_in_line(&self, line: &[u8]) -> Option<Range<usize>> {
        match &self.inner.matcher {
            Matcher::Literal(finder) => {
                let i = finder.find(line)?;
                Some(i..i + finder.needle().len())
            }
            Matcher::Regex(re, _) | Matcher::Folded(_, re) => re.find(line).map(|m| m.range()),
        }
    }

    /// Returns the byte ranges of every non-empty, non-overlapping match
    /// in `line`, left to right (for highlighting matches in output).
    ///
    /// `line` is the content of one logical line, without its `\n`; the
    /// ranges are relative to its start, and the first one is the range
    /// [`Pattern::find_in_line`] returns unless that match is empty. Empty
    /// matches (`^`, `x*` on a line without `x`) are left out: there is
    /// nothing to highlight.
    pub fn find_all_in_line(&self, line: &[u8]) -> Vec<Range<usize>> {
        match &self.inner.matcher {
            Matcher::Literal(finder) => {
                let n = finder.needle().len();
                finder.find_iter(line).map(|i| i..i + n).collect()
            }
            Matcher::Regex(re, _) | Matcher::Folded(_, re) => re
                .find_iter(line)
                .filter(|m| !m.is_empty())
                .map(|m| m.range())
                .collect(),
        }
    }

    /// Returns `true` if `line` matches.
    ///
    /// `line` is the content of one logical line, without its `\n`. Should
    /// it contain `\n` anyway, the result is `true` if any of the
    /// `\n`-separated pieces matches, counting the empty piece after a
    /// trailing `\n` (unlike [`Pattern::find_lines`]). Unlike
    /// `find_lines`, the empty slice is one (empty) line here.
    pub fn is_match_line(&self, line: &[u8]) -> bool {
        match &self.inner.matcher {
            Matcher::Literal(finder) => finder.find(line).is_some(),
            Matcher::Regex(re, _) | Matcher::Folded(_, re) => {
                re.is_match(Input::new(line).earliest(true))
            }
        }
    }

    /// Returns `true` if a match lies wholly within `span` of `line`.
    ///
    /// Look-arounds (`^`, `$`, `\b`) see the whole line, so `^x` matches
    /// only at the line's start, not at the span's. `line` is as for
    /// [`Pattern::is_match_line`]; a span beyond it is cut to its end.
    /// Used to match only the parts of a line that are not the echo of
    /// typed input ([`crate::mirror::echo`]).
    pub fn is_match_within(&self, line: &[u8], span: Range<usize>) -> bool {
        let end = span.end.min(line.len());
        let start = span.start.min(end);
        match &self.inner.matcher {
            Matcher::Literal(finder) => finder.find(&line[start..end]).is_some(),
            Matcher::Regex(re, _) | Matcher::Folded(_, re) => {
                re.is_match(Input::new(line).span(Span { start, end }).earliest(true))
            }
        }
    }

    /// Returns the byte range of the first match lying wholly within
    /// `span` of `line`, or `None`: [`Pattern::is_match_within`]'s match,
    /// with look-arounds seeing the whole line. The range is relative to
    /// `line`'s start. Used to find the first match outside a line's
    /// secrets while redaction is on ([`crate::redact`]).
    pub fn find_within(&self, line: &[u8], span: Range<usize>) -> Option<Range<usize>> {
        let end = span.end.min(line.len());
        let start = span.start.min(end);
        match &self.inner.matcher {
            Matcher::Literal(finder) => {
                let i = finder.find(&line[start..end])?;
                Some(start + i..start + i + finder.needle().len())
            }
            Matcher::Regex(re, _) | Matcher::Folded(_, re) => re
                .find(Input::new(line).span(Span { start, end }))
                .map(|m| m.range()),
        }
    }
}

/// Whether `hir` holds a TAB in a literal, or a class taking a TAB but no
/// space (see [`Pattern::mentions_tab`]).
fn hir_mentions_tab(hir: &hir::Hir) -> bool {
    let has = |c: &hir::Class, b: u8| match c {
        hir::Class::Unicode(u) => u
            .ranges()
            .iter()
            .any(|r| r.start() <= char::from(b) && char::from(b) <= r.end()),
        hir::Class::Bytes(x) => x.ranges().iter().any(|r| r.start() <= b && b <= r.end()),
    };
    match hir.kind() {
        HirKind::Literal(hir::Literal(bytes)) => bytes.contains(&b'\t'),
        HirKind::Class(c) => has(c, b'\t') && !has(c, b' '),
        HirKind::Repetition(r) => hir_mentions_tab(&r.sub),
        HirKind::Capture(c) => hir_mentions_tab(&c.sub),
        HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().any(hir_mentions_tab),
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// Parses `pattern`, strips `\n` from it and builds the fastest matcher for
/// what is left.
fn compile_regex(pattern: &str, case_sensitive: bool) -> Result<Matcher, PatternError> {
    let syntax = syntax::Config::new()
        .multi_line(true)
        .line_terminator(b'\n')
        .nest_limit(NEST_LIMIT)
        .case_insensitive(!case_sensitive);
    let hir = syntax::parse_with(pattern, &syntax).map_err(|e| PatternError::syntax(&e))?;
    let hir = strip_line_terminator(hir)?;
    // A plain literal with no case variants (any literal when case
    // sensitive; only case-less text such as digits when not) goes to
    // memmem. Stripping guarantees it has no `\n`; it is non-empty because
    // an empty pattern parses to `HirKind::Empty`.
    if let HirKind::Literal(hir::Literal(bytes)) = hir.kind()
        && !bytes.is_empty()
    {
        let finder = memmem::Finder::new(&bytes[..]).into_owned();
        return Ok(Matcher::Literal(finder));
    }
    let pairs = hir_pairs(&hir);
    let config = meta::Config::new()
        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
        .hybrid_cache_capacity(HYBRID_CACHE_CAPACITY)
        // Only the overall match is ever asked for.
        .which_captures(WhichCaptures::Implicit);
    let re = meta::Builder::new()
        .configure(config)
        .build_from_hir(&hir)
        .map_err(|e| PatternError::build(&e))?;
    Ok(Matcher::Regex(re, pairs))
}

/// Pairs of adjacent bytes that every match of `hir` holds side by side,
/// ASCII letters in lower case: those common to every literal that
/// matches can begin with (`regex_syntax`'s prefix extraction; when that
/// set is finite, every match begins with one of them). Case variants of
/// several bytes (`(?i)k` also matches U+212A) differ in their pairs, so
/// the pairs around them drop out of the common set.
fn hir_pairs(hir: &hir::Hir) -> Vec<(u8, u8)> {
    let seq = hir::literal::Extractor::new().extract(hir);
    let Some(literals) = seq.literals() else {
        return Vec::new();
    };
    let mut common: Option<std::collections::HashSet<(u8, u8)>> = None;
    for lit in literals {
        let pairs = lit
            .as_bytes()
            .windows(2)
            .map(|w| (w[0].to_ascii_lowercase(), w[1].to_ascii_lowercase()))
            .collect();
        let next = match common {
            None => pairs,
            Some(c) => c.intersection(&pairs).copied().collect(),
        };
        if next.is_empty() {
            return Vec::new();
        }
        common = Some(next);
    }
    let mut out: Vec<(u8, u8)> = common.map(|c| c.into_iter().collect()).unwrap_or_default();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::PatternErrorKind;

    /// Compiles a literal pattern.
    fn lit(p: &str) -> Pattern {
        Pattern::new(p, PatternOptions::literal()).unwrap()
    }

    /// Compiles a regex pattern.
    fn re(p: &str) -> Pattern {
        Pattern::new(p, PatternOptions::regex()).unwrap()
    }

    /// The error kind of compiling `p` with `opts`.
    fn err(p: &str, opts: PatternOptions) -> PatternErrorKind {
        match Pattern::new(p, opts) {
            Ok(_) => panic!("{p:?} compiled"),
            Err(e) => e.kind(),
        }
    }

    #[test]
    fn fast_path() {
        assert!(lit("foo").is_literal_fast_path());
        assert!(lit("a.b*").is_literal_fast_path());
        assert!(re("foo").is_literal_fast_path());
        assert!(re(r"a\.b").is_literal_fast_path());
        assert!(re("(?:foo)").is_literal_fast_path());
        assert!(!re("fo+").is_literal_fast_path());
        assert!(!re("^foo").is_literal_fast_path());
        assert!(re("(foo)bar").is_literal_fast_path());
        let ci = PatternOptions::literal().case_sensitive(false);
        assert!(!Pattern::new("foo", ci).unwrap().is_literal_fast_path());
        // Nothing to fold: stays on memmem.
        assert!(Pattern::new("12:34", ci).unwrap().is_literal_fast_path());
        let ci = PatternOptions::regex().case_sensitive(false);
        assert!(!Pattern::new("foo", ci).unwrap().is_literal_fast_path());
        assert!(re("(?i)123").is_literal_fast_path());
    }

    #[test]
    fn tabs_mentioned() {
        assert!(lit("col1\tcol2").mentions_tab());
        assert!(!lit(r"col1\tcol2").mentions_tab());
        assert!(re(r"col1\tcol2").mentions_tab());
        assert!(re("col1\tcol2").mentions_tab());
        assert!(re(r"a[\t,]b").mentions_tab());
        assert!(re(r"(?:x|\x09)+").mentions_tab());
        assert!(!re(r"col1\s+col2").mentions_tab());
        assert!(!re(r"a[[:blank:]]b").mentions_tab());
        assert!(!re(r"a[^x]b").mentions_tab());
        assert!(!re("foo").mentions_tab());
    }

    #[test]
    fn accessors() {
        let p = Pattern::new("a.b", PatternOptions::regex()).unwrap();
        assert_eq!(p.as_str(), "a.b");
        assert_eq!(
            p.options(),
            PatternOptions {
                regex: true,
                case_sensitive: true
            }
        );
        assert_eq!(PatternOptions::default(), PatternOptions::literal());
    }

    #[test]
    fn errors() {
        let lit = PatternOptions::literal();
        let regex = PatternOptions::regex();
        assert_eq!(err("", lit), PatternErrorKind::Empty);
        assert_eq!(err("", regex), PatternErrorKind::Empty);
        assert_eq!(err("a\nb", lit), PatternErrorKind::LineBreak);
        assert_eq!(
            err("\n", lit.case_sensitive(false)),
            PatternErrorKind::LineBreak
        );
        assert_eq!(err(r"a\nb", regex), PatternErrorKind::LineBreak);
        assert_eq!(err("(", regex), PatternErrorKind::Syntax);
        assert_eq!(err(r"\", regex), PatternErrorKind::Syntax);
        assert_eq!(err("a{2,1}", regex), PatternErrorKind::Syntax);
        // `utf8(true)`: a regex must match valid UTF-8 only.
        assert_eq!(err(r"(?-u:\xFF)", regex), PatternErrorKind::Syntax);
    }

    #[test]
    fn all_matches_in_line() {
        assert_eq!(lit("ab").find_all_in_line(b"abxabab"), [0..2, 3..5, 5..7]);
        assert_eq!(lit("aa").find_all_in_line(b"aaaa"), [0..2, 2..4]);
        assert!(lit("zz").find_all_in_line(b"abc").is_empty());
        assert_eq!(re(r"\d+").find_all_in_line(b"a12b3"), [1..3, 4..5]);
        // Empty matches are left out.
        assert!(re("x*").find_all_in_line(b"abc").is_empty());
        let first = 0..1;
        assert_eq!(re("^a").find_all_in_line(b"aaa"), [first]);
        let ci = PatternOptions::literal().case_sensitive(false);
        let p = Pattern::new("ab", ci).unwrap();
        assert_eq!(p.find_all_in_line(b"AB ab aB"), [0..2, 3..5, 6..8]);
    }

    #[test]
    fn send_sync() {
        fn is<T: Send + Sync + Clone>() {}
        is::<Pattern>();
        is::<PatternError>();
    }
}
