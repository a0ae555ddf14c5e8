//! `tmuxwire search`: grep for panes.
//!
//! # Semantics
//!
//! * PATTERN is literal by default (as `grep -F`); `-e`/`-E`/`--regex`
//!   makes it a regex (Rust regex syntax), `-F` makes it literal again
//!   (the last of them wins). Matching is case-sensitive unless `-i`
//!   (`-s` undoes `-i`). `-w` keeps matches that neither start after nor
//!   end before a word character (GNU grep's `-w`), built as
//!   `\b{start-half}(?:…)\b{end-half}` around the escaped literal or the
//!   regex.
//! * Lines are logical lines (soft wraps joined) of the whole scrollback
//!   and screen, or of `--start`/`--end` (tmux line numbers); a line is
//!   printed `session:window.pane:LINE:TEXT`, LINE being tmux's number of
//!   its first row. Panes come in `tmuxwire panes` order.
//! * `-m N` keeps the newest N matching lines per pane; there is no cap by
//!   default. One answer of the search tool holds at most 1 MiB of matched
//!   lines: when lines were left out for that, a note on stderr says how
//!   many, where, and how to see them. Never silently.
//! * `-c` prints `session:window.pane:COUNT` per matching pane, `-l` the
//!   matching panes, `-q` nothing; `-A/-B/-C N` add N logical lines of
//!   context (`session:window.pane-LINE-TEXT`, `--` between groups).
//! * Exit status as grep: 0 when a line matched, 1 when none did, 2 on an
//!   error.

use std::collections::HashSet;
use std::process::ExitCode;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::context::{self, Hit, Line};
use super::output::{Out, Painter, escape_field, thousands};
use super::target::{self, Level};
use super::tool::{self, CliError};
use super::{LineArg, SearchArgs};
use crate::search::{Pattern, PatternErrorKind, PatternOptions};
use crate::tmux::Servers;

/// The pattern as the search tool gets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The pattern text.
    pub pattern: String,
    /// Whether it is a regex.
    pub regex: bool,
    /// Whether case matters.
    pub case_sensitive: bool,
}

impl Query {
    /// The tool's pattern for PATTERN and the flags (see the module docs).
    pub fn new(pattern: &str, regex: bool, ignore_case: bool, word: bool) -> Query {
        let (pattern, regex) = if word {
            let inner = if regex {
                pattern.to_string()
            } else {
                regex_syntax::escape(pattern)
            };
            (format!(r"\b{{start-half}}(?:{inner})\b{{end-half}}"), true)
        } else {
            (pattern.to_string(), regex)
        };
        Query {
            pattern,
            regex,
            case_sensitive: !ignore_case,
        }
    }

    /// Compiles it as the tool will, so a bad pattern is reported in CLI
    /// words before anything is searched, and matches can be highlighted.
    ///
    /// # Errors
    ///
    /// The pattern's problem, with a hint.
    pub fn compile(&self) -> Result<Pattern, CliError> {
        let opts = PatternOptions {
            regex: self.regex,
            case_sensitive: self.case_sensitive,
        };
        Pattern::new(&self.pattern, opts).map_err(|e| {
            let err = CliError::new(e.to_string());
            match e.kind() {
                PatternErrorKind::Syntax | PatternErrorKind::TooComplex if self.regex => err.hint(
                    "Leave out -e/-E (or add -F) to search for the text literally, or fix the \
                     regex.",
                ),
                PatternErrorKind::Empty => err.hint("Give a non-empty PATTERN."),
                _ => err,
            }
        })
    }
}

/// One pane of a `search_panes` answer (the fields used here).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct PaneMatch {
    /// `%N`.
    pub pane_id: String,
    /// Session name.
    pub session_name: String,
    /// Window index.
    pub window_index: String,
    /// Pane index.
    pub pane_index: String,
    /// Matched lines kept, oldest first.
    pub matched_lines: Vec<String>,
    /// Their tmux line numbers.
    pub matched_line_numbers: Vec<i64>,
    /// Their row counts.
    pub matched_line_rows: Vec<u32>,
    /// Lines that matched, kept or not.
    pub matched_line_count: usize,
}

impl PaneMatch {
    /// `session:window.pane`, escaped.
    pub fn place(&self) -> String {
        escape_field(&format!(
            "{}:{}.{}",
            self.session_name, self.window_index, self.pane_index
        ))
        .into_owned()
    }

    /// The kept lines as hits.
    pub fn hits(&self) -> Vec<Hit> {
        self.matched_lines
            .iter()
            .enumerate()
            .map(|(i, text)| Hit {
                number: self.matched_line_numbers.get(i).copied().unwrap_or(0),
                rows: self.matched_line_rows.get(i).copied().unwrap_or(1),
                text: text.clone(),
            })
            .collect()
    }

    /// Matching lines that `-m` lets through.
    fn wanted(&self, max: Option<u64>) -> usize {
        match max {
            Some(m) => self
                .matched_line_count
                .min(usize::try_from(m).unwrap_or(usize::MAX)),
            None => self.matched_line_count,
        }
    }

    /// Lines `-m` lets through that the answer left out (its 1 MiB cap).
    fn omitted(&self, max: Option<u64>) -> usize {
        self.wanted(max).saturating_sub(self.matched_lines.len())
    }
}

/// A `search_panes` answer (the fields used here).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Answer {
    /// Panes with matches, in pane order.
    pub matches: Vec<PaneMatch>,
}

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Lines,
    Count,
    List,
    Quiet,
}

/// `--start`/`--end` as tool arguments: `-` is the tool's default.
fn line_arg(v: Option<LineArg>) -> Value {
    match v {
        Some(LineArg::At(n)) => json!(n),
        Some(LineArg::Edge) | None => Value::Null,
    }
}

/// Runs `search`.
///
/// # Errors
///
/// Bad flags, a missing target, the tools' errors.
pub async fn run(servers: &Servers, a: SearchArgs) -> Result<ExitCode, CliError> {
    let query = Query::new(&a.pattern, a.regex, a.ignore_case, a.word);
    let pattern = query.compile()?;
    let mode = if a.quiet {
        Mode::Quiet
    } else if a.list {
        Mode::List
    } else if a.count {
        Mode::Count
    } else {
        Mode::Lines
    };
    let mut args = Map::new();
    args.insert("pattern".into(), json!(query.pattern));
    args.insert("regex".into(), json!(query.regex));
    args.insert("match_case".into(), json!(query.case_sensitive));
    args.insert("content_start".into(), line_arg(a.start));
    args.insert("content_end".into(), line_arg(a.end));
    args.insert("limit".into(), Value::Null);
    // Counting needs no lines: `matched_line_count` counts them all.
    let per_pane = match (mode, a.max_count) {
        (Mode::Lines, Some(m)) => i64::try_from(m).unwrap_or(i64::MAX),
        (Mode::Lines, None) => i64::MAX,
        _ => 1,
    };
    args.insert("max_matched_lines_per_pane".into(), json!(per_pane));
    // A window or pane: search its session, keep its panes.
    let mut keep: Option<Vec<String>> = None;
    if let Some(t) = &a.target {
        let (world, scope) = target::resolve_arg(servers, t).await?;
        args.insert("session_id".into(), json!(scope.session_id));
        if scope.level != Level::Session {
            keep = Some(scope.pane_ids(&world));
        }
    }
    let mut answer = ask(servers, &args).await?;
    if let Some(keep) = &keep {
        // Counting keeps one line per pane: nothing to re-ask for.
        let lines = mode == Mode::Lines;
        narrow(servers, &mut args, &mut answer, keep, a.max_count, lines).await?;
    }
    let matched = answer.matches.iter().any(|m| m.matched_line_count > 0);
    let painter = Painter::new(a.color.enabled_here());
    let mut out = Out::new();
    match mode {
        Mode::Quiet => {}
        Mode::List => {
            for m in &answer.matches {
                let mut s = String::new();
                painter.place(&mut s, &m.place());
                out.line(&s);
            }
        }
        Mode::Count => {
            for m in &answer.matches {
                let mut s = String::new();
                painter.place(&mut s, &m.place());
                s.push(':');
                s.push_str(&m.wanted(a.max_count).to_string());
                out.line(&s);
            }
        }
        Mode::Lines => {
            let before = a.before.or(a.context).unwrap_or(0);
            let after = a.after.or(a.context).unwrap_or(0);
            let printer = Printer {
                painter,
                pattern: &pattern,
                context: before > 0 || after > 0,
            };
            let mut state = PrintState::default();
            for m in &answer.matches {
                if out.is_broken() {
                    break;
                }
                let hits = m.hits();
                let lines = if printer.context && !hits.is_empty() {
                    let found =
                        context::fetch(servers, &m.pane_id, &hits, before, after, &pattern).await;
                    let why = match found {
                        Ok(Some(lines)) => Ok(lines),
                        Ok(None) => Err("its text changed while its context was read".to_string()),
                        // The server is gone: nothing more can be read.
                        Err(e) if e.message.starts_with("no tmux server") => return Err(e),
                        Err(e) => Err(format!("its context could not be read ({})", e.message)),
                    };
                    why.unwrap_or_else(|why| {
                        out.flush();
                        eprintln!(
                            "tmuxwire: {}: {why}; its matches are printed without context",
                            m.place()
                        );
                        hits.iter().map(Line::from).collect()
                    })
                } else {
                    hits.iter().map(Line::from).collect()
                };
                printer.pane(&mut out, &mut state, &m.place(), &lines);
            }
            out.flush();
            let one_pane = keep.as_ref().is_some_and(|k| k.len() == 1);
            if let Some(note) = omitted_note(&answer, a.max_count, one_pane) {
                eprintln!("{note}");
            }
        }
    }
    out.flush();
    Ok(if matched {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn ask(servers: &Servers, args: &Map<String, Value>) -> Result<Answer, CliError> {
    let v = tool::call(servers, "search_panes", args.clone()).await?;
    serde_json::from_value(v)
        .map_err(|e| CliError::new(format!("unexpected answer from the search: {e}")))
}

/// Keeps the panes `keep` of `answer`. When the answer's 1 MiB cap left
/// out lines of these panes (and `lines` are printed), asks again for just
/// these panes (they are consecutive in pane order, so one page of
/// `offset`/`limit`), so that the cap is theirs alone.
async fn narrow(
    servers: &Servers,
    args: &mut Map<String, Value>,
    answer: &mut Answer,
    keep: &[String],
    max: Option<u64>,
    lines: bool,
) -> Result<(), CliError> {
    let wanted: HashSet<&str> = keep.iter().map(String::as_str).collect();
    let at: Vec<usize> = (0..answer.matches.len())
        .filter(|&i| wanted.contains(answer.matches[i].pane_id.as_str()))
        .collect();
    let others = answer.matches.len() - at.len();
    answer
        .matches
        .retain(|m| wanted.contains(m.pane_id.as_str()));
    let omitted: usize = answer.matches.iter().map(|m| m.omitted(max)).sum();
    let consecutive = at.windows(2).all(|w| w[1] == w[0] + 1);
    if !lines || omitted == 0 || others == 0 || at.is_empty() || !consecutive {
        return Ok(());
    }
    args.insert("offset".into(), json!(at[0]));
    args.insert("limit".into(), json!(at.len()));
    let again = ask(servers, args).await?;
    // Only if the page is the same panes (nothing opened or closed).
    let ids = |a: &Answer| {
        a.matches
            .iter()
            .map(|m| m.pane_id.clone())
            .collect::<Vec<_>>()
    };
    if ids(&again) == ids(answer) {
        *answer = again;
    }
    Ok(())
}

/// The stderr note when the search tool's 1 MiB cap left lines out, or
/// `None`. `one_pane`: the search was of one pane already (`-t`).
pub fn omitted_note(answer: &Answer, max: Option<u64>, one_pane: bool) -> Option<String> {
    let cut: Vec<&PaneMatch> = answer
        .matches
        .iter()
        .filter(|m| m.omitted(max) > 0)
        .collect();
    let total: usize = cut.iter().map(|m| m.omitted(max)).sum();
    if total == 0 {
        return None;
    }
    const SHOWN: usize = 3;
    let mut parts: Vec<String> = cut
        .iter()
        .take(SHOWN)
        .map(|m| match m.matched_line_numbers.first() {
            Some(n) => format!(
                "{} older than line {n} in {}",
                thousands(m.omitted(max)),
                m.place()
            ),
            None => format!("all {} in {}", thousands(m.omitted(max)), m.place()),
        })
        .collect();
    if cut.len() > SHOWN {
        parts.push(format!("and more in {} other panes", cut.len() - SHOWN));
    }
    let example = cut[0];
    let end = example
        .matched_line_numbers
        .first()
        .map(|n| format!("--end {}", n - 1));
    let example = match (one_pane, end) {
        (true, Some(end)) => end,
        (false, Some(end)) => format!("-t {} {end}", example.place()),
        (_, None) => format!("-t {}", example.place()),
    };
    let lines = if total == 1 { "line" } else { "lines" };
    Some(format!(
        "tmuxwire: {} matching {lines} not shown: one search answer holds at most 1 MiB of matched \
         lines, so the oldest were left out ({}).\n\
         tmuxwire: to see them, narrow the search: a pane with -t, a range with --start/--end, or \
         a more specific pattern (e.g. {example}).",
        thousands(total),
        parts.join("; "),
    ))
}

/// Prints lines grep-style.
struct Printer<'a> {
    painter: Painter,
    pattern: &'a Pattern,
    /// Context was asked for: `--` between groups.
    context: bool,
}

/// Where printing is: the last line printed, to place `--`.
#[derive(Default)]
struct PrintState {
    /// (place, last row of the last line printed).
    last: Option<(String, i64)>,
}

impl Printer<'_> {
    /// Prints one pane's lines (sorted by number). With context, `--` goes
    /// before a line that does not follow the previous one printed.
    fn pane(&self, out: &mut Out, state: &mut PrintState, place: &str, lines: &[Line]) {
        for l in lines {
            if self.context
                && let Some((p, last)) = &state.last
                && (p != place || l.number > last + 1)
            {
                out.line("--");
            }
            state.last = Some((place.to_string(), l.last_row()));
            out.line(&self.format(place, l));
        }
    }

    /// `place:N:text` for a match, `place-N-text` for context.
    fn format(&self, place: &str, l: &Line) -> String {
        let sep = if l.is_match { ':' } else { '-' };
        let mut s = String::with_capacity(place.len() + l.text.len() + 16);
        self.painter.place(&mut s, place);
        s.push(sep);
        self.painter.number(&mut s, l.number);
        s.push(sep);
        let ranges = if l.is_match {
            self.pattern.find_all_in_line(l.text.as_bytes())
        } else {
            Vec::new()
        };
        self.painter.text(&mut s, &l.text, &ranges);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(p: &str, regex: bool, i: bool, w: bool) -> Query {
        Query::new(p, regex, i, w)
    }

    fn lines_matching(query: &Query, lines: &[&str]) -> Vec<usize> {
        let p = query.compile().unwrap();
        (0..lines.len())
            .filter(|&i| p.is_match_line(lines[i].as_bytes()))
            .collect()
    }

    #[test]
    fn queries() {
        assert_eq!(
            q("a.b", false, false, false),
            Query {
                pattern: "a.b".into(),
                regex: false,
                case_sensitive: true
            }
        );
        assert!(!q("x", false, true, false).case_sensitive);
        let w = q("a.b", false, false, true);
        assert_eq!(w.pattern, r"\b{start-half}(?:a\.b)\b{end-half}");
        assert!(w.regex);
        let w = q(r"\d+", true, false, true);
        assert_eq!(w.pattern, r"\b{start-half}(?:\d+)\b{end-half}");
    }

    #[test]
    fn word_semantics() {
        let text = [
            "error",
            "errors",
            "an error:",
            "suberror",
            "ERROR",
            "-error-",
            "x_error",
        ];
        assert_eq!(
            lines_matching(&q("error", false, false, true), &text),
            [0, 2, 5]
        );
        assert_eq!(
            lines_matching(&q("error", false, true, true), &text),
            [0, 2, 4, 5]
        );
        assert_eq!(
            lines_matching(&q("error", false, false, false), &text),
            [0, 1, 2, 3, 5, 6]
        );
        // Like GNU grep -w, a pattern that starts or ends with a non-word
        // character still matches: only its neighbours must not be word
        // characters.
        assert_eq!(
            lines_matching(&q("-error-", false, false, true), &["a -error- b"]),
            [0]
        );
        assert_eq!(
            lines_matching(&q(r"err\w*", true, false, true), &text),
            [0, 1, 2, 5]
        );
        // A regex alternation is grouped before the boundaries.
        assert_eq!(
            lines_matching(&q("foo|bar", true, false, true), &["xbar", "bar", "foox"]),
            [1]
        );
    }

    #[test]
    fn pattern_errors_in_cli_words() {
        let e = q("(", true, false, false).compile().unwrap_err();
        assert!(e.hint.unwrap().contains("-F"));
        let e = q("", false, false, false).compile().unwrap_err();
        assert!(e.to_string().contains("PATTERN"));
        // A literal is never a regex error.
        assert!(q("(", false, false, false).compile().is_ok());
        assert!(q("(", false, false, true).compile().is_ok());
    }

    fn pane(place: (&str, &str, &str), count: usize, numbers: &[i64]) -> PaneMatch {
        PaneMatch {
            pane_id: "%1".into(),
            session_name: place.0.into(),
            window_index: place.1.into(),
            pane_index: place.2.into(),
            matched_lines: numbers.iter().map(|n| n.to_string()).collect(),
            matched_line_numbers: numbers.to_vec(),
            matched_line_rows: numbers.iter().map(|_| 1).collect(),
            matched_line_count: count,
        }
    }

    #[test]
    fn notes() {
        let full = Answer {
            matches: vec![pane(("w", "0", "1"), 2, &[-1, 0])],
        };
        assert_eq!(omitted_note(&full, None, false), None);
        let cut = Answer {
            matches: vec![
                pane(("w", "0", "1"), 1002, &[-5, -1]),
                pane(("w", "1", "0"), 3, &[]),
            ],
        };
        let note = omitted_note(&cut, None, false).unwrap();
        assert!(
            note.starts_with("tmuxwire: 1,003 matching lines not shown"),
            "{note}"
        );
        assert!(note.contains("1,000 older than line -5 in w:0.1"), "{note}");
        assert!(note.contains("all 3 in w:1.0"), "{note}");
        assert!(note.contains("-t w:0.1 --end -6"), "{note}");
        // Lines -m leaves out are not "not shown".
        assert_eq!(
            omitted_note(&cut, Some(2), false).unwrap().lines().count(),
            2
        );
        assert!(
            omitted_note(&cut, Some(2), false)
                .unwrap()
                .contains(" 2 matching lines")
        );
        let capped = Answer {
            matches: vec![pane(("w", "0", "1"), 1002, &[-5, -1])],
        };
        assert_eq!(omitted_note(&capped, Some(2), false), None);
        let one = omitted_note(&capped, None, true).unwrap();
        assert!(one.contains("(e.g. --end -6)"), "{one}");
    }

    #[test]
    fn printing() {
        let pattern = q("err", false, false, false).compile().unwrap();
        let p = Printer {
            painter: Painter::new(false),
            pattern: &pattern,
            context: true,
        };
        let l = |number, text: &str, is_match| Line {
            number,
            rows: 1,
            text: text.into(),
            is_match,
        };
        assert_eq!(p.format("w:0.1", &l(-3, "an err", true)), "w:0.1:-3:an err");
        assert_eq!(
            p.format("w:0.1", &l(-2, "ctx\x1b", false)),
            "w:0.1--2-ctx\\x1b"
        );
        let p = Printer {
            painter: Painter::new(true),
            ..p
        };
        let s = p.format("w:0.1", &l(4, "err", true));
        assert_eq!(
            s,
            "\x1b[35mw:0.1\x1b[0m:\x1b[32m4\x1b[0m:\x1b[1;31merr\x1b[0m"
        );
    }
}
