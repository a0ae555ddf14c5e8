//! grep over a pane's logical lines ([`PaneText`]: a copy's lines as the
//! mirror's scan reads them, [`crate::mirror::scan::Lines`], or the same
//! lines in one buffer, [`super::source::PaneLines`]): selecting lines,
//! `-m`, context, `-o`, and printing records (pure: no I/O but the writer
//! it is given). Which lines match is the scan's answer
//! ([`crate::mirror::scan::Lines::each_match`]); this module adds grep's
//! selection and format on top.
//!
//! # Semantics (GNU grep's)
//!
//! * Patterns: every `-e`, every line of every `-f` file, or PATTERN; a
//!   pattern holding line breaks is one pattern per line. A line matches
//!   when any pattern does; an empty pattern matches every line; no
//!   pattern at all (an empty `-f` file) matches none. `-x` wraps the
//!   alternation in `^…$`, `-w` in `\b{start-half}…\b{end-half}` (no word
//!   character just before or after the match; `-x` wins over `-w`).
//! * Selected lines are the matching ones, or with `-v` the others. `-m N`
//!   stops a pane after its first N selected lines (`-m 0`: none), and
//!   trailing context after the last one is still printed, matching lines
//!   in it as context; `--newest N` keeps a pane's last N selected lines.
//! * `-c` counts selected lines per pane (after `-m`), every pane; `-l`
//!   names the panes with a selected line, `--files-without-match` the
//!   others (both win over `-c`); `-q` prints nothing and stops at the
//!   first selected line.
//! * `-o` prints each non-empty match of a selected line on its own line;
//!   with `-v` it prints nothing (a non-matching line has no match), and
//!   context lines are never printed, only the `--` between groups.
//! * Context: `-A/-B/-C N` print N lines around each selected line; groups
//!   that overlap or touch merge; `--` goes between groups (also across
//!   panes) whenever any of `-A/-B/-C` was given, 0 included.
//!
//! # Format
//!
//! ```text
//! PLACE ':' LINE ':' TEXT     a selected line (or, with -o, one match)
//! PLACE '-' LINE '-' TEXT     a context line
//! '--'                        between groups
//! PLACE ':' COUNT             -c
//! PLACE                       -l, --files-without-match
//! PLACE = SESSION ':' WINDOW '.' PANE   SESSION without ':' (escaped), WINDOW, PANE digits
//! LINE  = '-'? DIGITS
//! ```
//!
//! `-h` leaves out `PLACE` and its separator, `-N` `LINE` and its
//! separator. PLACE is escaped as `panes` fields are
//! ([`super::output::escape_field`]), with `:` in a session name written
//! `\x3a` (tmux 3.7 and later allow one; before, tmux wrote `:` and `.`
//! as `_`), so the first `:` ends the session; TEXT has its control characters
//! escaped ([`super::output::escape_text`]) and runs to the end of the
//! line.

use std::io::Write;
use std::ops::Range;

use super::errors::CliError;
use super::output::{Painter, escape_field};
use super::source::{PaneInfo, PaneLines};
use crate::mirror::scan::Lines;
use crate::search::{Pattern, PatternErrorKind, PatternOptions};

/// The longest pattern `search` compiles, in characters (all `-e` and
/// `-f` patterns together): a person's pattern files can be long; the
/// compiled size stays bounded by [`crate::search::NFA_SIZE_LIMIT`].
pub const MAX_CHARS: usize = 1 << 20;

/// How patterns are read (`-E`/`-F`, `-i`, `-w`, `-x`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchOptions {
    /// Regular expressions (Rust syntax), not literals.
    pub regex: bool,
    /// Ignore case.
    pub ignore_case: bool,
    /// Whole words only.
    pub word: bool,
    /// Whole lines only.
    pub line: bool,
}

/// The compiled patterns: one [`Pattern`] for all of them (a literal
/// alone keeps `memmem` or the folding prefilter; several become one
/// alternation, searched by `regex-automata` with its literal
/// prefilters), or none (matches no line).
#[derive(Clone, Debug)]
pub struct Matcher {
    pattern: Option<Pattern>,
}

/// The regex source for `patterns` and `o` (not both a lone literal).
pub fn regex_source(patterns: &[String], o: MatchOptions) -> String {
    let alts: Vec<String> = patterns
        .iter()
        .map(|p| {
            if o.regex {
                format!("(?:{p})")
            } else {
                format!("(?:{})", regex_syntax::escape(p))
            }
        })
        .collect();
    let alt = alts.join("|");
    if o.line {
        format!("^(?:{alt})$")
    } else if o.word {
        format!(r"\b{{start-half}}(?:{alt})\b{{end-half}}")
    } else {
        alt
    }
}

impl Matcher {
    /// Compiles `patterns` (see the module docs).
    ///
    /// # Errors
    ///
    /// A pattern that is not a valid regex, or too big, in CLI words.
    pub fn new(patterns: &[String], o: MatchOptions) -> Result<Matcher, CliError> {
        if patterns.is_empty() {
            return Ok(Matcher { pattern: None });
        }
        let case_sensitive = !o.ignore_case;
        let lone = match patterns {
            [p] if !p.is_empty() && !o.word && !o.line => Some(p.as_str()),
            _ => None,
        };
        let (text, regex) = match lone {
            Some(p) => (p.to_string(), o.regex),
            None => (regex_source(patterns, o), true),
        };
        let opts = PatternOptions {
            regex,
            case_sensitive,
        };
        let pattern = Pattern::new_within(&text, opts, MAX_CHARS).map_err(|e| {
            let hint = match e.kind() {
                PatternErrorKind::Syntax | PatternErrorKind::TooComplex if o.regex => Some(
                    "Leave out -E (or add -F) to search for the text literally, or fix the \
                     regex.",
                ),
                PatternErrorKind::LineBreak => {
                    Some("A line break separates patterns: each line is one pattern.")
                }
                _ => None,
            };
            let err = CliError::new(e.to_string());
            match hint {
                Some(h) => err.hint(h),
                None => err,
            }
        })?;
        Ok(Matcher {
            pattern: Some(pattern),
        })
    }

    /// The compiled pattern (`None`: no pattern, no line matches).
    pub fn pattern(&self) -> Option<&Pattern> {
        self.pattern.as_ref()
    }

    /// Calls `f` with each matching line's index of `lines`, in order,
    /// until it returns `false`.
    fn each_match(&self, lines: &impl PaneText, f: impl FnMut(usize) -> bool) {
        if let Some(p) = &self.pattern {
            lines.each_match(p, f);
        }
    }

    /// The non-empty matches in `line`, for `-o` and colour.
    fn ranges(&self, line: &[u8]) -> Vec<Range<usize>> {
        self.pattern
            .as_ref()
            .map_or_else(Vec::new, |p| p.find_all_in_line(line))
    }
}

/// A pane's logical lines as grep reads them: numbered `0..len()` in
/// scan order, each with its text and tmux line number.
pub trait PaneText {
    /// How many lines.
    fn len(&self) -> usize;
    /// Line `i`'s text (no line break) and its tmux line number (`i` is
    /// below [`PaneText::len`]).
    fn line(&self, i: usize) -> (&[u8], i64);
    /// Calls `f` with the index of each line `pattern` matches, in order,
    /// until it returns `false`.
    fn each_match(&self, pattern: &Pattern, f: impl FnMut(usize) -> bool);
}

impl PaneText for Lines<'_> {
    fn len(&self) -> usize {
        Lines::len(self)
    }

    fn line(&self, i: usize) -> (&[u8], i64) {
        self.get(i).map_or((&[][..], 0), |l| (l.text, l.number))
    }

    fn each_match(&self, pattern: &Pattern, f: impl FnMut(usize) -> bool) {
        Lines::each_match(self, pattern, f);
    }
}

impl PaneText for PaneLines {
    fn len(&self) -> usize {
        self.lines.len()
    }

    fn line(&self, i: usize) -> (&[u8], i64) {
        (PaneLines::line(self, i), self.lines[i].number)
    }

    fn each_match(&self, pattern: &Pattern, mut f: impl FnMut(usize) -> bool) {
        pattern.for_each_line(&self.text, |m| f(m.line));
    }
}

/// What is printed per pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Lines (with context), or `-o` matches.
    Lines,
    /// `-c`.
    Count,
    /// `-l`.
    WithMatches,
    /// `--files-without-match`.
    WithoutMatch,
    /// `-q`.
    Quiet,
}

/// How lines are selected and printed.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// What is printed.
    pub mode: Mode,
    /// `-v`.
    pub invert: bool,
    /// `-o`.
    pub only_matching: bool,
    /// Which selected lines of each pane are kept (`-m`, `--newest`).
    pub keep: Keep,
    /// The context lines around each selected line, when any of
    /// `-A/-B/-C` was given (`--` between groups, even with none).
    pub context: Option<Context>,
    /// Print PLACE (`-h` off).
    pub places: bool,
    /// Print LINE (`-N` off).
    pub numbers: bool,
}

/// Which of a pane's selected lines are kept: the first `max_count`,
/// then the last `newest` of those.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    /// `-m N`: the first N selected lines of each pane.
    pub max_count: Option<u64>,
    /// `--newest N`: the last N selected lines of each pane.
    pub newest: Option<u64>,
}

impl Keep {
    /// How many selected lines to look for: `max_count`, at most one
    /// when only whether a pane has any counts (`first_only`).
    fn cap(&self, first_only: bool) -> usize {
        let cap = match (first_only, self.max_count) {
            (true, Some(m)) => m.min(1),
            (true, None) => 1,
            (false, m) => m.unwrap_or(u64::MAX),
        };
        usize::try_from(cap).unwrap_or(usize::MAX)
    }

    /// `sel` (selected line indexes, in order) cut to its last `newest`.
    fn newest(&self, sel: &mut Vec<usize>) {
        if let Some(k) = self.newest {
            let k = usize::try_from(k).unwrap_or(usize::MAX);
            if sel.len() > k {
                sel.drain(..sel.len() - k);
            }
        }
    }
}

/// `-A/-B/-C`: the context lines printed around each selected line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context {
    /// Context lines before each selected line.
    pub before: usize,
    /// Context lines after.
    pub after: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mode: Mode::Lines,
            invert: false,
            only_matching: false,
            keep: Keep::default(),
            context: None,
            places: true,
            numbers: true,
        }
    }
}

/// A pane's place for output: `session:window.pane`, escaped (see the
/// module docs).
pub fn place(p: &super::source::PaneInfo) -> String {
    format!(
        "{}:{}.{}",
        escape_field(&p.session_name).replace(':', "\\x3a"),
        escape_field(&p.window_index),
        escape_field(&p.pane_index)
    )
}

/// Greps panes one after another and prints their records.
pub struct Grep<'a, W: Write> {
    matcher: &'a Matcher,
    opts: Options,
    painter: Painter,
    out: W,
    /// Something was printed in lines mode (a `--` may be due).
    printed: bool,
    /// A write failed (a closed pipe): nothing more is written.
    broken: bool,
    line: String,
}

impl<'a, W: Write> Grep<'a, W> {
    /// Prints to `out`.
    pub fn new(matcher: &'a Matcher, opts: Options, painter: Painter, out: W) -> Grep<'a, W> {
        Grep {
            matcher,
            opts,
            painter,
            out,
            printed: false,
            broken: false,
            line: String::new(),
        }
    }

    /// True once a write failed.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// The writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn emit(&mut self) {
        if self.broken {
            return;
        }
        self.line.push('\n');
        if self.out.write_all(self.line.as_bytes()).is_err() {
            self.broken = true;
        }
        self.line.clear();
    }

    /// The selected lines of `p` (indexes), as many as the mode needs.
    fn selected(&self, p: &impl PaneText) -> Vec<usize> {
        let o = &self.opts;
        let first_only = matches!(o.mode, Mode::WithMatches | Mode::WithoutMatch | Mode::Quiet);
        let cap = o.keep.cap(first_only);
        let mut out = Vec::new();
        if cap == 0 {
            return out;
        }
        if !o.invert {
            self.matcher.each_match(p, |i| {
                out.push(i);
                out.len() < cap
            });
        } else {
            let mut matched = Vec::new();
            self.matcher.each_match(p, |i| {
                matched.push(i);
                true
            });
            let mut mi = 0;
            for i in 0..p.len() {
                if matched.get(mi) == Some(&i) {
                    mi += 1;
                    continue;
                }
                out.push(i);
                if out.len() >= cap {
                    break;
                }
            }
        }
        o.keep.newest(&mut out);
        out
    }

    /// Greps `p`, the lines of `pane`, and prints its records. Returns
    /// how many lines were selected (after `-m`/`--newest`).
    pub fn pane(&mut self, pane: &PaneInfo, p: &impl PaneText) -> usize {
        let sel = self.selected(p);
        let place = place(pane);
        match self.opts.mode {
            Mode::Quiet => {}
            Mode::WithMatches if !sel.is_empty() => {
                self.painter.place(&mut self.line, &place);
                self.emit();
            }
            Mode::WithoutMatch if sel.is_empty() => {
                self.painter.place(&mut self.line, &place);
                self.emit();
            }
            Mode::WithMatches | Mode::WithoutMatch => {}
            Mode::Count => {
                if self.opts.places {
                    self.painter.place(&mut self.line, &place);
                    self.line.push(':');
                }
                self.line.push_str(&sel.len().to_string());
                self.emit();
            }
            Mode::Lines => self.lines(p, &place, &sel),
        }
        sel.len()
    }

    /// Prints selected lines and their context.
    fn lines(&mut self, p: &impl PaneText, place: &str, sel: &[usize]) {
        let Context { before, after } = self.opts.context.unwrap_or_default();
        let n = p.len();
        let mut k = 0;
        while k < sel.len() {
            // One group: selected lines whose context overlaps or touches.
            let from = sel[k].saturating_sub(before);
            let mut to = sel[k].saturating_add(after).min(n.saturating_sub(1));
            let mut j = k + 1;
            while j < sel.len() && sel[j].saturating_sub(before) <= to.saturating_add(1) {
                to = to.max(sel[j].saturating_add(after).min(n.saturating_sub(1)));
                j += 1;
            }
            if self.opts.context.is_some() && self.printed {
                self.line.push_str("--");
                self.emit();
            }
            let mut next_sel = k;
            for i in from..=to {
                let is_sel = next_sel < j && sel[next_sel] == i;
                if is_sel {
                    next_sel += 1;
                }
                self.record(p, place, i, is_sel);
            }
            self.printed = true;
            k = j;
            if self.broken {
                return;
            }
        }
    }

    /// One line: selected (`:`) or context (`-`); `-o` prints matches.
    fn record(&mut self, p: &impl PaneText, place: &str, i: usize, selected: bool) {
        let (text, number) = p.line(i);
        if self.opts.only_matching {
            if !selected || self.opts.invert {
                return;
            }
            for r in self.matcher.ranges(text) {
                self.prefix(place, number, ':');
                let m = String::from_utf8_lossy(&text[r.clone()]);
                let whole = 0..m.len();
                self.painter.text(&mut self.line, &m, &[whole]);
                self.emit();
            }
            return;
        }
        let sep = if selected { ':' } else { '-' };
        self.prefix(place, number, sep);
        // Matches are coloured where the line matches: selected lines, or
        // with -v the context lines.
        let s = String::from_utf8_lossy(text);
        let ranges = if self.painter.is_coloured() && (selected != self.opts.invert) {
            self.matcher.ranges(s.as_bytes())
        } else {
            Vec::new()
        };
        self.painter.text(&mut self.line, &s, &ranges);
        self.emit();
    }

    fn prefix(&mut self, place: &str, number: i64, sep: char) {
        if self.opts.places {
            self.painter.place(&mut self.line, place);
            self.line.push(sep);
        }
        if self.opts.numbers {
            self.painter.number(&mut self.line, number);
            self.line.push(sep);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::source::{LineInfo, PaneInfo};
    use super::*;

    fn pane(session: &str, first: i64, lines: &[&str]) -> PaneLines {
        let mut text = Vec::new();
        let mut infos = Vec::new();
        for (k, l) in lines.iter().enumerate() {
            infos.push(LineInfo {
                start: text.len(),
                number: first + k as i64,
                rows: 1,
                screen: crate::mirror::scan::Screen::Main,
            });
            text.extend_from_slice(l.as_bytes());
            text.push(b'\n');
        }
        PaneLines {
            pane: PaneInfo {
                pane_id: "%1".into(),
                session_name: session.into(),
                window_index: "0".into(),
                pane_index: "1".into(),
                ..PaneInfo::default()
            },
            text,
            lines: infos,
        }
    }

    fn matches(m: &Matcher, line: &str) -> bool {
        m.pattern()
            .is_some_and(|p| p.is_match_line(line.as_bytes()))
    }

    fn m(patterns: &[&str], o: MatchOptions) -> Matcher {
        let p: Vec<String> = patterns.iter().map(|s| s.to_string()).collect();
        Matcher::new(&p, o).unwrap()
    }

    fn run(matcher: &Matcher, opts: Options, panes: &[PaneLines]) -> (String, usize) {
        let mut g = Grep::new(matcher, opts, Painter::new(false), Vec::new());
        let n = panes.iter().map(|p| g.pane(&p.pane, p)).sum();
        (String::from_utf8(g.into_inner()).unwrap(), n)
    }

    const LIT: MatchOptions = MatchOptions {
        regex: false,
        ignore_case: false,
        word: false,
        line: false,
    };

    /// `-m n`.
    fn first(n: u64) -> Keep {
        Keep {
            max_count: Some(n),
            ..Keep::default()
        }
    }

    /// GNU grep's answers on `a` = foo, bar, foo bar, '', baz (checked
    /// with grep 3.8), numbered from -2.
    fn a() -> PaneLines {
        pane("w", -2, &["foo", "bar", "foo bar", "", "baz"])
    }

    #[test]
    fn grep_edge_cases() {
        let o = Options::default();
        let foo = m(&["foo"], LIT);
        assert_eq!(run(&foo, o, &[a()]).0, "w:0.1:-2:foo\nw:0.1:0:foo bar\n");
        // -c -v counts the other lines.
        let c = Options {
            mode: Mode::Count,
            invert: true,
            ..o
        };
        assert_eq!(run(&foo, c, &[a()]).0, "w:0.1:3\n");
        // -v -o prints nothing, yet lines were selected.
        let vo = Options {
            invert: true,
            only_matching: true,
            ..o
        };
        assert_eq!(run(&foo, vo, &[a()]), (String::new(), 3));
        // -m 1 -A 2: trailing context after the last counted line, a
        // matching line in it printed as context.
        let ma = Options {
            keep: first(1),
            context: Some(Context {
                before: 0,
                after: 2,
            }),
            ..o
        };
        assert_eq!(
            run(&foo, ma, &[a()]).0,
            "w:0.1:-2:foo\nw:0.1--1-bar\nw:0.1-0-foo bar\n"
        );
        // -m 1 -c, -m 0.
        let mc = Options {
            mode: Mode::Count,
            keep: first(1),
            ..o
        };
        assert_eq!(run(&foo, mc, &[a()]).0, "w:0.1:1\n");
        let m0 = Options {
            keep: first(0),
            ..o
        };
        assert_eq!(run(&foo, m0, &[a()]), (String::new(), 0));
        // An empty pattern matches every line; -x '' and -w '' the empty one.
        let c = Options {
            mode: Mode::Count,
            ..o
        };
        assert_eq!(run(&m(&[""], LIT), c, &[a()]).0, "w:0.1:5\n");
        for w in [
            MatchOptions { line: true, ..LIT },
            MatchOptions { word: true, ..LIT },
        ] {
            assert_eq!(run(&m(&[""], w), o, &[a()]).0, "w:0.1:1:\n", "{w:?}");
        }
        // No pattern (an empty -f file): nothing, and -v everything.
        let none = m(&[], LIT);
        assert_eq!(run(&none, o, &[a()]), (String::new(), 0));
        let v = Options { invert: true, ..o };
        assert_eq!(run(&none, v, &[a()]).1, 5);
        // Several -e: an alternation, each line once.
        let two = m(&["foo", "baz"], LIT);
        assert_eq!(
            run(&two, o, &[a()]).0,
            "w:0.1:-2:foo\nw:0.1:0:foo bar\nw:0.1:2:baz\n"
        );
        let x = m(&["foo", "bar"], MatchOptions { line: true, ..LIT });
        assert_eq!(run(&x, o, &[a()]).0, "w:0.1:-2:foo\nw:0.1:-1:bar\n");
        // -l wins over -c; without-match names the others.
        let l = Options {
            mode: Mode::WithMatches,
            ..o
        };
        let b = pane("b", 0, &["nothing"]);
        assert_eq!(run(&foo, l, &[a(), b.clone()]).0, "w:0.1\n");
        let lv = Options {
            mode: Mode::WithMatches,
            invert: true,
            ..o
        };
        assert_eq!(run(&foo, lv, &[a(), b.clone()]).0, "w:0.1\nb:0.1\n");
        let wm = Options {
            mode: Mode::WithoutMatch,
            ..o
        };
        assert_eq!(run(&foo, wm, &[a(), b.clone()]).0, "b:0.1\n");
        // -c prints every pane, 0 too.
        assert_eq!(run(&foo, c, &[a(), b]).0, "w:0.1:2\nb:0.1:0\n");
        // -q -v '' selects nothing.
        let q = Options {
            mode: Mode::Quiet,
            invert: true,
            ..o
        };
        assert_eq!(run(&m(&[""], LIT), q, &[a()]), (String::new(), 0));
        // -o prints each match; -c -o counts lines.
        let oo = Options {
            only_matching: true,
            ..o
        };
        let ooo = m(&["o"], LIT);
        assert_eq!(
            run(&ooo, oo, &[a()]).0,
            "w:0.1:-2:o\nw:0.1:-2:o\nw:0.1:0:o\nw:0.1:0:o\n"
        );
        assert_eq!(run(&ooo, c, &[a()]).0, "w:0.1:2\n");
        // -o with an empty-matching regex prints only non-empty matches.
        let zs = m(&["z*"], MatchOptions { regex: true, ..LIT });
        assert_eq!(run(&zs, oo, &[a()]), ("w:0.1:2:z\n".to_string(), 5));
        // -h -N: bare text; --newest keeps the last.
        let bare = Options {
            places: false,
            numbers: false,
            keep: Keep {
                newest: Some(1),
                ..Keep::default()
            },
            ..o
        };
        assert_eq!(run(&foo, bare, &[a()]).0, "foo bar\n");
    }

    #[test]
    fn context_groups() {
        let p = pane("w", 1, &["foo", "x", "y", "z", "foo"]);
        let foo = m(&["foo"], LIT);
        let ctx = |before, after, only_matching| Options {
            only_matching,
            context: Some(Context { before, after }),
            ..Options::default()
        };
        let cases = [
            // -A0: `--` between groups that do not touch.
            (ctx(0, 0, false), "w:0.1:1:foo\n--\nw:0.1:5:foo\n"),
            // -o with context: no context lines, the separators stay.
            (ctx(1, 1, true), "w:0.1:1:foo\n--\nw:0.1:5:foo\n"),
            // Touching groups merge: -A1 -B1 on lines 1 and 5 of 5 covers
            // 1-2 and 4-5, which do not touch (3 is between).
            (
                ctx(1, 1, false),
                "w:0.1:1:foo\nw:0.1-2-x\n--\nw:0.1-4-z\nw:0.1:5:foo\n",
            ),
            (
                ctx(2, 1, false),
                "w:0.1:1:foo\nw:0.1-2-x\nw:0.1-3-y\nw:0.1-4-z\nw:0.1:5:foo\n",
            ),
        ];
        for (o, want) in cases {
            assert_eq!(run(&foo, o, std::slice::from_ref(&p)).0, want, "{o:?}");
        }
        let c1 = ctx(1, 1, false);
        // Across panes a `--` too, and negative numbers read -LINE-.
        let q = pane("v", -3, &["a", "foo"]);
        assert_eq!(
            run(&foo, c1, &[q.clone(), q]).0,
            "v:0.1--3-a\nv:0.1:-2:foo\n--\nv:0.1--3-a\nv:0.1:-2:foo\n"
        );
    }

    #[test]
    fn places_parse_back() {
        let mut p = pane("a:b.c-1\\x\n", 0, &["t"]);
        p.pane.window_index = "3".into();
        assert_eq!(place(&p.pane), "a\\x3ab.c-1\\\\x\\n:3.1");
    }

    #[test]
    fn fast_paths_kept() {
        let lone = m(&["needle"], LIT);
        assert!(lone.pattern().unwrap().is_literal_fast_path());
        let two = m(&["a", "b"], LIT);
        assert!(!two.pattern().unwrap().is_literal_fast_path());
        assert!(matches(&two, "xbx"));
        let w = m(
            &["foo|bar"],
            MatchOptions {
                regex: true,
                word: true,
                ..LIT
            },
        );
        assert!(matches(&w, "a bar") && !matches(&w, "xbar") && !matches(&w, "foox"));
        // A literal is never a regex error.
        assert!(Matcher::new(&["(".to_string()], LIT).is_ok());
        let e = Matcher::new(&["(".to_string()], MatchOptions { regex: true, ..LIT }).unwrap_err();
        assert!(e.hint.unwrap().contains("-F"));
    }
}
