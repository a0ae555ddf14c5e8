// Single ranges are what masks hold, not a range meant as its items.
#![allow(clippy::single_range_in_vec_init)]

use proptest::prelude::*;

use super::*;

/// A log holding `typed`, each line ended (typed with Enter), origins
/// unknown.
fn log_of(typed: &[&str]) -> TypedLog {
    let mut log = TypedLog::new();
    let mut seq = 0;
    for t in typed {
        log.note(t.as_bytes(), true, None, &mut seq);
    }
    log
}

fn window<'a>(lines: &[&'a str]) -> Vec<Line<'a>> {
    lines
        .iter()
        .enumerate()
        .map(|(k, t)| Line {
            index: LineIndex(k as u64),
            text: t.as_bytes(),
        })
        .collect()
}

/// The unmasked text of each line, segments joined with `|`.
fn shown(typed: &[&str], lines: &[&str], cursor: Option<(usize, usize)>) -> Vec<String> {
    let echoes = Echoes::new(log_of(typed).lines());
    let w = window(lines);
    let cursor = cursor.map(|(line, byte)| Cursor { line, byte });
    let masks = echoes.mask(&w, cursor, Some(0));
    lines
        .iter()
        .zip(&masks)
        .map(|(l, m)| {
            segments(l.len(), m)
                .into_iter()
                .map(|r| &l[r])
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

/// The cursor at the end of the last line.
fn at_end(lines: &[&str]) -> Option<(usize, usize)> {
    Some((lines.len() - 1, lines[lines.len() - 1].len()))
}

const LATE: &str = "sleep 1; echo LATE1";

#[test]
fn prompt_and_echo() {
    let lines = ["bash-5.2# sleep 1; echo LATE1", "LATE1", "bash-5.2#"];
    assert_eq!(
        shown(&[LATE], &lines, at_end(&lines)),
        ["bash-5.2# ", "LATE1", "bash-5.2#"]
    );
}

#[test]
fn typeahead_is_echoed_twice() {
    // What bash shows for `sleep 1; echo LATE1` typed while `sleep 2` runs:
    // the tty's echo, then readline's redraw of prompt + text.
    let lines = [
        "bash-5.2# sleep 2",
        "sleep 1; echo LATE1",
        "bash-5.2# sleep 1; echo LATE1",
        "LATE1",
        "bash-5.2#",
    ];
    assert_eq!(
        shown(&[LATE], &lines, at_end(&lines)),
        ["bash-5.2# sleep 2", "", "bash-5.2# ", "LATE1", "bash-5.2#"]
    );
}

#[test]
fn at_any_column_and_several_times() {
    let lines = [
        "working...sleep 1; echo LATE1",
        "compilingsleep 1; echo LATE1",
        "x sleep 1; echo LATE1 y sleep 1; echo LATE1",
    ];
    assert_eq!(
        shown(&[LATE], &lines, None),
        ["working...", "compiling", "x | y "]
    );
}

#[test]
fn a_typed_word_in_output_is_output() {
    let lines = ["LATE1", "echo LATE", "sleep 1; echo"];
    assert_eq!(shown(&[LATE], &lines, None), lines);
}

#[test]
fn zsh_breaks_long_lines_itself() {
    // zsh ends the first row with `and a ` (trimmed) and starts the next
    // row afresh: a hard break where the text had a space.
    let typed = "sleep 1; echo LATE1 and a long tail of words to wrap";
    let lines = [
        "vm# sleep 1; echo LATE1 and a",
        "long tail of words to wrap",
        "LATE1 and a long tail of words to wrap",
    ];
    assert_eq!(
        shown(&[typed], &lines, None),
        ["vm# ", "", "LATE1 and a long tail of words to wrap"]
    );
    // A break inside a word stands for nothing.
    let lines = [
        "vm# sleep 1; echo LATE1 and a lo",
        "ng tail of words to wrap",
    ];
    assert_eq!(shown(&[typed], &lines, None), ["vm# ", ""]);
    // Still being drawn: the start of the second row on the cursor's line.
    let lines = ["vm# sleep 1; echo LATE1 and a", "lo"];
    assert_eq!(shown(&[typed], &lines, at_end(&lines)), ["vm# ", ""]);
    // An empty cursor line is not a continuation: a line that merely ends
    // with the start of a typed line keeps it until more is drawn.
    let lines = ["vm# sleep 1; echo LATE1 and a", ""];
    assert_eq!(shown(&[typed], &lines, at_end(&lines)), lines);
}

#[test]
fn partial_echo_on_the_cursor_line() {
    let lines = ["$ sleep 1; echo LA"];
    assert_eq!(shown(&[LATE], &lines, at_end(&lines)), ["$ "]);
    // Only on the cursor's line, and only from where an echo can start.
    assert_eq!(shown(&[LATE], &lines, None), lines);
    let lines = ["Xsleep 1; echo LA"];
    assert_eq!(shown(&[LATE], &lines, at_end(&lines)), lines);
    // `e` ends `Done` but starts no word there.
    let lines = ["Done"];
    assert_eq!(shown(&["echo LATE1"], &lines, at_end(&lines)), lines);
    // Before the cursor when a line editor shows more after it (fish's
    // suggestion, the rest of the buffer).
    let lines = ["> sleep 1; ecQ"];
    assert_eq!(shown(&[LATE], &lines, Some((0, 13))), ["> |Q"]);
}

#[test]
fn decorations_after_the_echo() {
    // zsh's RPROMPT, fish's right prompt or autosuggestion.
    let lines = ["% sleep 1; echo LATE1          12:00", "> echo LATE1"];
    assert_eq!(
        shown(&[LATE, "echo LATE"], &lines, Some((1, 11))),
        ["% |          12:00", "> |1"]
    );
}

#[test]
fn short_text_only_where_an_echo_ends() {
    let typed = ["y"];
    let lines = [
        "Continue? [y/N] y",
        "y",
        "Ready",
        "Successfully installed",
        "Proceed?y",
        "Answer: y or no",
    ];
    assert_eq!(
        shown(&typed, &lines, None),
        [
            "Continue? [y/N] ",
            "",
            "Ready",
            "Successfully installed",
            "Proceed?",
            "Answer: y or no"
        ]
    );
    // At the cursor.
    let lines = ["Proceed? y"];
    assert_eq!(shown(&typed, &lines, Some((0, 10))), ["Proceed? "]);
    // `ls` ends `tools` but does not start there.
    assert_eq!(shown(&["ls"], &["tools", "$ ls"], None), ["tools", "$ "]);
}

#[test]
fn multi_line_input() {
    let lines = ["$ echo A", "> echo B", "A", "B"];
    assert_eq!(
        shown(&["echo A\necho B"], &lines, None),
        ["$ ", "> ", "A", "B"]
    );
}

#[test]
fn pieces_typed_without_enter_make_one_line() {
    let mut log = TypedLog::new();
    let mut seq = 0;
    log.note(b"cd /tmp", false, None, &mut seq);
    log.note(b" && ls -la", true, None, &mut seq);
    let texts: Vec<&[u8]> = log.lines().map(|t| &t.text[..]).collect();
    assert_eq!(
        texts,
        [&b"cd /tmp"[..], b" && ls -la", b"cd /tmp && ls -la"]
    );
    // A key ends the line being composed.
    log.note(b"abc", false, None, &mut seq);
    log.note_key();
    log.note(b"def", true, None, &mut seq);
    assert!(log.lines().all(|t| t.text != b"abcdef"));
}

#[test]
fn control_characters_cut_lines() {
    let log = log_of(&["abc\x03def\tghi  ", "   "]);
    let texts: Vec<&[u8]> = log.lines().map(|t| &t.text[..]).collect();
    assert_eq!(texts, [&b"abc"[..], b"def", b"ghi"]);
}

#[test]
fn lines_before_the_typing_are_not_masked() {
    let mut log = TypedLog::new();
    let mut seq = 0;
    let origin = Origin {
        epoch: 3,
        line: LineIndex(11),
    };
    log.note(LATE.as_bytes(), true, Some(origin), &mut seq);
    let echoes = Echoes::new(log.lines());
    let w = [
        Line {
            index: LineIndex(10),
            text: LATE.as_bytes(),
        },
        Line {
            index: LineIndex(11),
            text: LATE.as_bytes(),
        },
    ];
    let all = vec![0..LATE.len()];
    assert_eq!(echoes.mask(&w, None, Some(3)), [vec![], all.clone()]);
    // Another copy's lines, or lines that are redrawn: every line.
    assert_eq!(echoes.mask(&w, None, Some(4)), [all.clone(), all.clone()]);
    assert_eq!(echoes.mask(&w, None, None), [all.clone(), all.clone()]);
}

#[test]
fn log_is_bounded_and_deduplicated() {
    let mut log = TypedLog::new();
    let mut seq = 0;
    for i in 0..MAX_LINES + 10 {
        log.note(format!("command {i}").as_bytes(), true, None, &mut seq);
    }
    assert_eq!(log.lines().count(), MAX_LINES);
    assert_eq!(
        log.lines().next().map(|t| t.text.clone()),
        Some(b"command 10".to_vec())
    );
    let big = "x".repeat(MAX_PIECE * 20);
    log.note(big.as_bytes(), true, None, &mut seq);
    let bytes: usize = log.lines().map(|t| t.text.len()).sum();
    assert!(bytes <= MAX_BYTES, "{bytes}");
    assert!(log.lines().all(|t| t.text.len() <= MAX_PIECE));
    // Typing a line again moves it to the end, masking from the earlier
    // line of the two.
    let mut log = TypedLog::new();
    let at = |line| {
        Some(Origin {
            epoch: 0,
            line: LineIndex(line),
        })
    };
    log.note(b"make test", true, at(5), &mut seq);
    log.note(b"other", true, at(6), &mut seq);
    log.note(b"make test", true, at(9), &mut seq);
    let last = log.lines().last().cloned();
    assert_eq!(last.as_ref().map(|t| &t.text[..]), Some(&b"make test"[..]));
    assert_eq!(last.and_then(|t| t.origin), at(5));
    assert_eq!(log.lines().count(), 2);
    assert_eq!(log.last_seq(), Some(seq));
}

#[test]
fn segments_and_text() {
    assert_eq!(segments(10, &[]), [0..10]);
    assert_eq!(segments(10, &[0..3, 5..10]), [3..5]);
    assert_eq!(segments(0, &[]), Vec::<Range<usize>>::new());
    assert!(!has_unmasked_text(b"$ abc", &[0..1, 2..5]));
    assert!(has_unmasked_text(b"$ abc", &[2..5]));
}

#[test]
fn the_automaton_and_the_plain_search_agree() {
    let log = log_of(&[LATE, "y", "sleep", "aaaa"]);
    let lines = ["aaaaaa sleep 1; echo LATE1", "x y", "sleep"];
    let w = window(&lines);
    let fast = Echoes::new(log.lines());
    let mut slow = Echoes::new(log.lines());
    slow.ac = None;
    assert_eq!(fast.mask(&w, None, Some(0)), slow.mask(&w, None, Some(0)));
}

#[test]
fn fuzz_mask_seeds() {
    fuzz_mask(b"\x02\x00sleep 1; echo LATE1\x00y\x00$ sleep 1; echo LATE1\nLATE1\ny");
    fuzz_mask(b"\x07\x81aaaaaaaa\x00\x00\xff\x00aaaaaaaaaaaaaaaa\n\n\xe2\x9d\xaf y");
    fuzz_mask(b"");
    fuzz_mask(b"\x01");
}

/// Typed texts and lines made of a few pieces, so occurrences are common.
fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(vec!["a", "b", " ", "ab", "é", "$ ", "x", "_"]),
        0..max,
    )
    .prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// A line that holds no typed line's text is never masked, and what is
    /// masked of a line alone is inside occurrences of typed text.
    #[test]
    fn only_typed_text_is_masked(
        typed in proptest::collection::vec(text(6), 0..4),
        line in text(16),
    ) {
        let refs: Vec<&str> = typed.iter().map(String::as_str).collect();
        let log = log_of(&refs);
        let echoes = Echoes::new(log.lines());
        let masks = echoes.mask(&window(&[&line]), None, Some(0));
        let b = line.as_bytes();
        for r in &masks[0] {
            for k in r.clone() {
                prop_assert!(super::typed_covers(&log, b, k), "byte {} of {:?}", k, line);
            }
        }
        if log.lines().all(|t| memmem::find(b, &t.text).is_none()) {
            prop_assert!(masks[0].is_empty());
        }
    }

    /// Every occurrence of a long typed line is masked, wherever it is and
    /// whatever surrounds it; masks are sorted, disjoint and in bounds.
    #[test]
    fn long_typed_lines_are_always_masked(
        typed in text(12).prop_filter("long", |t| t.trim_end().len() >= DISTINCT),
        lines in proptest::collection::vec(text(20), 1..4),
        insert in proptest::collection::vec((0usize..4, 0usize..40), 0..4),
        cursor in proptest::option::of((0usize..4, 0usize..60)),
    ) {
        let t = typed.trim_end().to_string();
        let mut lines = lines;
        for (l, at) in insert {
            let l = l % lines.len();
            let mut at = at.min(lines[l].len());
            while !lines[l].is_char_boundary(at) {
                at -= 1;
            }
            lines[l].insert_str(at, &t);
        }
        let lines: Vec<String> = lines.into_iter().map(|l| l.trim_end().to_string()).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let echoes = Echoes::new(log_of(&[&t]).lines());
        let cursor = cursor.map(|(l, b)| Cursor { line: l % refs.len(), byte: b });
        let masks = echoes.mask(&window(&refs), cursor, Some(0));
        for (l, m) in refs.iter().zip(&masks) {
            let mut end = 0;
            for r in m {
                prop_assert!(r.start >= end && r.start < r.end && r.end <= l.len());
                end = r.end + 1;
            }
            for s in memmem::find_iter(l.as_bytes(), t.as_bytes()) {
                let e = s + t.len();
                prop_assert!(m.iter().any(|r| r.start <= s && e <= r.end), "{:?} in {:?}", t, l);
            }
            // No segment left holds the typed text.
            for r in segments(l.len(), m) {
                prop_assert!(memmem::find(&l.as_bytes()[r], t.as_bytes()).is_none());
            }
        }
    }
}
