//! Unit tests of the whole `Term`: one per escape sequence and text rule
//! (the table in `test_sequences.rs`, whose expectations
//! `tests/grid_diff.rs` checks against the real tmux versions), the public
//! bug cases this module answers, history trimming and indexes, and the
//! read API's units.

use super::index::{ByteOffset, CharOffset, Column, LineIndex, LineNo, Point};
use super::{DecGraphics, Options, Place, Rules, Term, fingerprint};

include!("test_sequences.rs");

/// The rules for a version label of the sequence table.
fn rules_of(label: &str) -> Rules {
    match label {
        "3.3a" => Rules::V33,
        "3.5a" => Rules::V34,
        _ => Rules::V36,
    }
}

fn term(width: u32, height: u32, rules: Rules, bytes: &[u8]) -> Term {
    let opts = Options {
        history_limit: 100,
        dec_graphics: DecGraphics::Ascii,
        ..Options::default()
    };
    let mut t = Term::new(width, height, rules, opts);
    t.advance(bytes);
    t
}

/// All rows (history then screen) as `capture-pane -p -S - -E -`, the
/// trailing empty ones left out.
fn rows(t: &Term) -> String {
    let (_, h) = t.size();
    let out = t.capture_tmux(LineNo(-(t.history_size() as i64)), LineNo(i64::from(h) - 1));
    let text = String::from_utf8_lossy(&out).into_owned();
    text.trim_end_matches('\n').to_owned()
}

fn lines(t: &Term) -> Vec<String> {
    t.lines()
        .map(|l| String::from_utf8_lossy(&l.text).into_owned())
        .collect()
}

#[test]
fn sequence_table() {
    let mut failures = Vec::new();
    for label in ["3.3a", "3.5a", "3.8"] {
        for &(name, versions, width, height, bytes, want, cursor) in SEQUENCES {
            if !versions.is_empty() && !versions.split(' ').any(|v| v == label) {
                continue;
            }
            let t = term(width, height, rules_of(label), bytes);
            let got = rows(&t);
            let c = t.cursor();
            if got != want || (c.x.0, c.y.0) != cursor {
                failures.push(format!(
                    "{label} {name}: rows {got:?} cursor ({}, {}), want {want:?} cursor {cursor:?}",
                    c.x.0, c.y.0
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_version_has_every_entry() {
    // Each name is covered for all three versions (by one entry or by
    // version-specific ones).
    for &(name, ..) in SEQUENCES {
        for label in ["3.3a", "3.5a", "3.8"] {
            let covered = SEQUENCES
                .iter()
                .any(|s| s.0 == name && (s.1.is_empty() || s.1.split(' ').any(|v| v == label)));
            assert!(covered, "{name} has no entry for {label}");
        }
    }
}

/// C2: a match's byte, char and cell positions next to wide characters.
#[test]
fn offsets_next_to_wide_characters_c2() {
    let t = term(20, 4, Rules::V36, "中文xxx\r\n".as_bytes());
    let line = t.lines().next().unwrap();
    assert_eq!(&*line.text, "中文xxx".as_bytes());
    // `xxx` starts at byte 6 = char 2 = cell column 4.
    let at = ByteOffset(6);
    assert_eq!(line.char_offset(at), CharOffset(2));
    assert_eq!(line.byte_offset(CharOffset(2)), at);
    assert_eq!(
        line.point(at, 20, Rules::V36),
        Point::new(LineNo(0), Column(4))
    );
    let (start, end) = line.cells(at..ByteOffset(9), 20, Rules::V36);
    assert_eq!((start.column, end.column), (Column(4), Column(7)));
    // `中` covers cells 0 and 1, never half of it.
    let (start, end) = line.cells(ByteOffset(0)..ByteOffset(3), 20, Rules::V36);
    assert_eq!((start.column, end.column), (Column(0), Column(2)));
    // A byte inside `文` is that character's cell.
    assert_eq!(line.point(ByteOffset(4), 20, Rules::V36).column, Column(2));
    assert_eq!(line.char_offset(ByteOffset(4)), CharOffset(1));
}

/// C2 on a wrapped line: the point is on the row holding the byte.
#[test]
fn offsets_on_a_wrapped_line() {
    let t = term(5, 4, Rules::V36, "abcd中xy\r\n".as_bytes());
    let line = t.lines().next().unwrap();
    assert_eq!(line.rows(), 2);
    assert_eq!(
        line.point(ByteOffset(4), 5, Rules::V36),
        Point::new(LineNo(1), Column(0))
    );
    assert_eq!(
        line.point(ByteOffset(7), 5, Rules::V36),
        Point::new(LineNo(1), Column(2))
    );
}

/// C3: a line overwritten with blanks has no trailing spaces, joined or
/// not.
#[test]
fn overwritten_blanks_are_trimmed_c3() {
    let t = term(20, 4, Rules::V36, b"50%\r          \rdone\r\n");
    assert_eq!(lines(&t)[0], "done");
    assert_eq!(t.capture_joined(LineNo(0), LineNo(0)), b"done\n");
    assert_eq!(t.capture(LineNo(0), LineNo(0)), b"done\n");
}

/// C4: invalid UTF-8 neither panics nor loses the rest of the stream.
#[test]
fn invalid_utf8_keeps_the_stream_c4() {
    for (rules, want) in [
        (Rules::V33, "CAF LATTE"),
        (Rules::V34, "CAF LATTE"),
        (Rules::V36, "CAF\u{fffd} LATTE"),
    ] {
        let t = term(20, 4, rules, b"CAF\xe9 LATTE\r\nnext\xff\xfe line\r\n");
        let l = lines(&t);
        assert_eq!(l[0], want);
        assert!(l[1].starts_with("next") && l[1].ends_with(" line"), "{l:?}");
    }
}

/// C16-style: the text stays readable from the `Term` with no more input
/// (keeping the `Term` after the pane exits is the mirror's part).
#[test]
fn content_stays_without_input_c16() {
    let t = term(20, 4, Rules::V34, b"RESULT-42\r\n");
    assert_eq!(lines(&t)[0], "RESULT-42");
}

/// C18: while the alternate screen is on, the hidden main screen is
/// there as `capture-pane -a` shows it; leaving restores it exactly.
#[test]
fn alternate_screen_and_hidden_main_c18() {
    let mut t = term(30, 5, Rules::V36, b"older\r\nMAINSCREEN-MARK\r\n");
    let before = rows(&t);
    let history = t.history_size();
    t.advance(b"\x1b[?1049h\x1b[2J\x1b[HALTSCREEN-MARK\r\n");
    assert!(t.alternate_on());
    assert_eq!(t.history_size(), 0);
    assert_eq!(rows(&t), "ALTSCREEN-MARK");
    let hidden = String::from_utf8(t.hidden_main_screen().unwrap()).unwrap();
    assert!(hidden.starts_with("older\nMAINSCREEN-MARK\n"), "{hidden:?}");
    let hidden_lines: Vec<_> = t
        .hidden_main_lines()
        .iter()
        .map(|l| l.text.to_vec())
        .collect();
    assert_eq!(hidden_lines[1], b"MAINSCREEN-MARK");
    // Lines on the alternate screen are on the screen.
    assert!(t.lines().all(|l| l.place == Place::Screen));
    t.advance(b"\x1b[?1049l");
    assert!(!t.alternate_on());
    assert!(t.hidden_main_screen().is_none());
    assert_eq!(rows(&t), before);
    assert_eq!(t.history_size(), history);
}

/// C21: DEC line drawing shows as the Unicode box characters (the
/// default), or as tmux prints it.
#[test]
fn dec_graphics_as_unicode_c21() {
    let bytes = b"\x1b(0lqqk\x1b(B\r\nx  x\r\n\x1b(0mqqj\x1b(B\r\n";
    let mut t = Term::new(40, 10, Rules::V36, Options::default());
    t.advance(bytes);
    assert_eq!(lines(&t)[..3], ["┌──┐", "x  x", "└──┘"]);
    assert_eq!(
        t.capture(LineNo(0), LineNo(2)),
        "┌──┐\nx  x\n└──┘\n".as_bytes()
    );
    assert_eq!(t.capture_tmux(LineNo(0), LineNo(2)), b"lqqk\nx  x\nmqqj\n");
    assert!(t.has_dec_graphics());
    // Also once scrolled into history.
    t.advance("\r\n".repeat(12).as_bytes());
    let l: Vec<String> = t
        .history()
        .iter()
        .map(|l| String::from_utf8_lossy(l.text).into_owned())
        .collect();
    assert_eq!(l[..3], ["┌──┐", "x  x", "└──┘"]);
    // The whole table.
    let mut t = Term::new(40, 4, Rules::V36, Options::default());
    t.advance(b"\x1b(0jklmnqtuvwx`afg~,+.-hio0yz{|}\x1b(B");
    // tmux's own table (tty-acs.c `tty_acs_table`).
    assert_eq!(lines(&t)[0], "┘┐┌└┼─├┤┴┬│◆▒°±·←→↓↑␤␋⎺▮≤≥π≠£");
}

/// C22: what a TAB leaves, per version: a TAB cell printed as `\t` from
/// 3.6 (so a query with a TAB can match), spaces before.
#[test]
fn tabs_per_version_c22() {
    let bytes = b"col1\tcol2\tTABMARK\r\n";
    assert_eq!(
        lines(&term(80, 4, Rules::V36, bytes))[0],
        "col1\tcol2\tTABMARK"
    );
    for rules in [Rules::V33, Rules::V34] {
        assert_eq!(
            lines(&term(80, 4, rules, bytes))[0],
            "col1    col2    TABMARK"
        );
    }
    // The TAB cell's columns: `col2` starts at column 8.
    let t = term(80, 4, Rules::V36, bytes);
    let line = t.lines().next().unwrap();
    assert_eq!(line.point(ByteOffset(5), 80, Rules::V36).column, Column(8));
}

/// C29: interior blank rows are kept, trailing ones dropped, and the
/// cursor row says how far a snapshot should reach.
#[test]
fn blank_rows_and_cursor_row_c29() {
    let t = term(
        40,
        12,
        Rules::V36,
        b"top\r\n\r\n\r\n   \r\nbottom\r\n\r\n\r\n",
    );
    assert_eq!(rows(&t), "top\n\n\n\nbottom");
    assert_eq!(t.cursor().y.0, 7);
    let snapshot = t.capture(LineNo(0), LineNo(i64::from(t.cursor().y.0)));
    assert_eq!(snapshot, b"top\n\n\n\nbottom\n\n\n\n");
}

/// History rows are trimmed `limit / 10` at a time; the oldest line left
/// can be the tail of a wrapped line; indexes keep counting.
#[test]
fn history_trims_rows_and_keeps_indexes() {
    let opts = Options {
        history_limit: 20,
        dec_graphics: DecGraphics::Ascii,
        ..Options::default()
    };
    let mut t = Term::new(4, 2, Rules::V36, opts);
    // A 3-row line, then numbered lines.
    t.advance(b"aaaabbbbcc\r\n");
    for i in 0..19 {
        t.advance(format!("{i}\r\n").as_bytes());
    }
    // 21 rows left the screen: at the 21st, the full history (20 rows)
    // dropped its oldest 2 (`limit / 10`), the wrapped line's first two
    // rows.
    assert_eq!(t.history_size(), 19);
    let first = t.lines().next().unwrap();
    assert_eq!(&*first.text, b"cc");
    assert_eq!(first.index, LineIndex(0));
    assert_eq!(first.place, Place::History);
    let dropped = t.history().dropped();
    assert_eq!((dropped.lines, dropped.rows, dropped.bytes), (0, 2, 8));
    // Two more: the next trim drops the partial line and line "0".
    t.advance(b"x\r\ny\r\n");
    assert_eq!(t.history_size(), 19);
    let first = t.lines().next().unwrap();
    assert_eq!((first.index, &*first.text), (LineIndex(2), &b"1"[..]));
    assert_eq!(t.history().dropped().lines, 2);
    // ED 3 clears it; new lines keep counting.
    let end = t.history().end_index();
    t.advance(b"\x1b[3J");
    assert_eq!(t.history_size(), 0);
    t.advance(b"y\r\nz\r\n\r\n");
    assert!(t.lines().next().unwrap().index >= end);
}

#[test]
fn set_history_limit_trims_at_once() {
    let mut t = term(10, 2, Rules::V36, &b"x\r\n".repeat(60));
    assert_eq!(t.history_size(), 59);
    t.set_history_limit(30);
    assert_eq!(t.history_size(), 30);
    assert_eq!(t.history_limit(), 30);
    // A full history loses one row per call.
    t.set_history_limit(30);
    assert_eq!(t.history_size(), 29);
    t.set_history_limit(100);
    assert_eq!(t.history_size(), 29);
}

/// A TAB cell that inserted characters moved off its tab stop cannot be
/// seeded exactly (the capture prints `\t`).
#[test]
fn moved_tab_cell_is_not_seedable() {
    let t = term(20, 2, Rules::V36, b"\t");
    assert!(t.fully_seedable());
    let t = term(20, 2, Rules::V36, b"\t\x1b[H\x1b[@");
    assert!(!t.fully_seedable());
}

#[test]
fn fingerprint_hashes_the_visible_rows() {
    let t = term(10, 3, Rules::V34, b"a\r\nb\r\nc\r\nd\x1b(0q");
    assert_eq!(t.fingerprint(), fingerprint(b"b\nc\ndq\n"));
}

#[test]
fn strings_are_bounded() {
    // A long OSC is dropped and the stream goes on.
    let mut t = term(10, 2, Rules::V36, b"\x1b]0;");
    t.advance(&vec![b'x'; 3 << 20]);
    t.advance(b"\x07ok");
    assert_eq!(rows(&t), "ok");
    assert!(!t.in_string());
    // An unterminated string times out as tmux's does.
    let mut t = term(10, 2, Rules::V36, b"\x1bPq");
    assert!(t.in_string());
    t.string_timeout();
    t.advance(b"ok");
    assert_eq!(rows(&t), "ok");
}

#[test]
fn printing_in_pieces_is_the_same() {
    // Escape sequences and UTF-8 split across reads.
    let bytes = "a\x1b[1;31m中\x1b[0mb\u{1f44d}\u{1f3fd}c\x1b[2;3Hd".as_bytes();
    let whole = term(10, 3, Rules::V36, bytes);
    for split in 1..bytes.len() {
        let mut t = term(10, 3, Rules::V36, &bytes[..split]);
        t.advance(&bytes[split..]);
        assert_eq!(rows(&t), rows(&whole), "split at {split}");
    }
}

#[test]
#[ignore = "debug helper"]
fn debug_fuzz_input() {
    let Ok(path) = std::env::var("GRID_INPUT") else {
        return;
    };
    let data = std::fs::read(path).unwrap();
    let (head, body) = data.split_at(5);
    let rules = [Rules::V33, Rules::V34, Rules::V36][usize::from(head[0] % 3)];
    let width = u32::from(head[1] % 48) + 1;
    let height = u32::from(head[2] % 12) + 1;
    let limits = [0, 1, 2, 5, 10, 20, 100, 2000];
    let bit = |n: u8| head[3] & (8 << n) != 0;
    let opts = Options {
        history_limit: limits[usize::from(head[3] & 7)],
        scroll_on_clear: !bit(0),
        alternate_screen: !bit(1),
        variation_selector_always_wide: bit(2),
        dec_graphics: if bit(3) {
            DecGraphics::Ascii
        } else {
            DecGraphics::Unicode
        },
        at_window_right_edge: !bit(4),
    };
    let mut t = Term::new(width, height, rules, opts);
    let piece = usize::from(head[4] % 64) + 1;
    for p in body.chunks(piece) {
        t.advance(p);
        if let Err(e) = t.check_invariants() {
            eprintln!("{e} after {p:?}");
            break;
        }
    }
    eprintln!("{rules:?} {width}x{height} {opts:?}");
    let (_, h) = t.size();
    let hs = t.history_size() as i64;
    eprintln!(
        "joined capture: {:?}",
        String::from_utf8_lossy(&t.capture_joined(LineNo(-hs), LineNo(i64::from(h) - 1)))
    );
    for l in t.lines() {
        eprintln!(
            "line {:?} {:?} {:?} {:?}",
            l.index,
            l.first_row,
            l.place,
            String::from_utf8_lossy(&l.text)
        );
    }
    eprintln!(
        "rows: {:?}",
        String::from_utf8_lossy(&t.capture(LineNo(-hs), LineNo(i64::from(h) - 1)))
    );
    for (r, w) in t.screen_rows() {
        eprintln!("screen row {:?} wrapped {w}", String::from_utf8_lossy(&r));
    }
}

/// What `capture_tail` must give: the full capture's lines (trailing empty
/// ones dropped), the newest `max_lines`, then the newest that reach
/// `room` bytes; and what was cut above.
fn tail_reference(
    t: &Term,
    start: i64,
    end: i64,
    join: bool,
    max_lines: Option<usize>,
    room: usize,
) -> super::Tail {
    let full = if join {
        t.capture_joined(LineNo(start), LineNo(end))
    } else {
        t.capture(LineNo(start), LineNo(end))
    };
    let body = full.strip_suffix(b"\n").unwrap_or(&full);
    let mut lines: Vec<&[u8]> = if body.is_empty() && full.len() <= 1 {
        Vec::new()
    } else {
        body.split(|&b| b == b'\n').collect()
    };
    if full.is_empty() {
        lines.clear();
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let by_lines = max_lines.map_or(0, |m| lines.len().saturating_sub(m));
    let newest = &lines[by_lines..];
    let (mut keep, mut bytes) = (0, 0);
    for l in newest.iter().rev() {
        if bytes >= room {
            break;
        }
        bytes += l.len() + 1;
        keep += 1;
    }
    let cut = &newest[..newest.len() - keep];
    let mut text = Vec::new();
    for l in &newest[newest.len() - keep..] {
        text.extend_from_slice(l);
        text.push(b'\n');
    }
    super::Tail {
        text,
        lines_above: by_lines + cut.len(),
        bytes_above: cut.iter().map(|l| l.len() + 1).sum(),
    }
}

#[test]
fn capture_tail_is_the_newest_lines_of_the_capture() {
    let mut rng = fastrand::Rng::with_seed(7);
    let pieces: &[&[u8]] = &[
        b"word ",
        b"a much longer piece of text that wraps ",
        b"\r\n",
        b"\r\n\r\n",
        "\u{4e2d}\u{6587}".as_bytes(),
        b"   ",
        b"\x1b[2K",
        b"\x1b[H",
        b"\x1b[5B",
        b"\t",
    ];
    for case in 0..500 {
        let (w, h) = (rng.u32(3..12), rng.u32(1..6));
        let mut bytes = Vec::new();
        for _ in 0..rng.usize(0..60) {
            bytes.extend_from_slice(pieces[rng.usize(..pieces.len())]);
        }
        let t = term(w, h, Rules::V36, &bytes);
        let hsize = t.history_size() as i64;
        let start = rng.i64(-hsize - 2..i64::from(h) + 1);
        let end = rng.i64(-hsize - 2..i64::from(h) + 1);
        let join = rng.bool();
        let max_lines = rng.bool().then(|| rng.usize(1..20));
        let room = rng.usize(0..200);
        let got = t.capture_tail(LineNo(start), LineNo(end), join, max_lines, room);
        let want = tail_reference(&t, start, end, join, max_lines, room);
        assert_eq!(
            got,
            want,
            "case {case}: {w}x{h} {:?} start {start} end {end} join {join} max_lines {max_lines:?} room {room}",
            String::from_utf8_lossy(&bytes)
        );
    }
}

/// `width::row_breaks` cuts a logical line where the grid's own write path
/// wraps it, for every rule set (the grid is checked against tmux by the
/// differential tests), so a history seeded from joined lines gets tmux's
/// rows. Text only: where a cell's content depends on more than the text
/// (joiners whose decision depends on a dropped character or a full cell,
/// a widened cell at the edge, cells a TAB skipped before 3.6, trailing
/// spaces the line's text has lost), a row split can differ, which the
/// mirror finds by comparing rows with tmux's after such a seed.
#[test]
fn row_breaks_are_where_the_grid_wraps() {
    let mut rng = fastrand::Rng::with_seed(0x5eed_0b0e);
    let pieces: &[&str] = &[
        "a",
        "xyz",
        " ",
        "\u{4e2d}",
        "\u{ac00}",
        "e\u{301}",
        "\u{e9}",
        "\u{1f44d}",
        "\u{3042}",
        "\t",
    ];
    for rules in [Rules::V33, Rules::V34, Rules::V36] {
        for case in 0..2000 {
            let w = rng.u32(2..24);
            let mut text = String::new();
            for _ in 0..rng.usize(0..50) {
                let p = pieces[rng.usize(..pieces.len())];
                if p != "\t" || rules.keeps_tabs() {
                    text.push_str(p);
                }
            }
            // The last character, not a space (the line's text is trimmed).
            text.push('z');
            let t = term(w, 60, rules, text.as_bytes());
            let Some(line) = t.lines().next() else {
                continue;
            };
            let mut breaks = Vec::new();
            super::width::row_breaks(&line.text, w as usize, rules, &mut breaks);
            assert_eq!(
                breaks,
                line.breaks.as_ref(),
                "{rules:?} case {case}: width {w}, text {text:?}"
            );
        }
    }
}

/// BELs count as tmux rings them (input_c0_dispatch '\a'): one in text,
/// one inside a CSI (C0 is executed there too), none that ends an OSC or
/// sits inside a DCS; pieces split anywhere count the same.
#[test]
fn bells_count_c0_bel_outside_strings() {
    let bytes: &[u8] = b"a\x07b\x1b[1\x07m\x1b]2;t\x07\x1bP1q\x07\x1b\\\x07";
    let t = term(20, 4, Rules::V36, bytes);
    assert_eq!(t.bells(), 3);
    let mut pieces = term(20, 4, Rules::V36, b"");
    for b in bytes {
        pieces.advance(std::slice::from_ref(b));
    }
    assert_eq!(pieces.bells(), 3);
}
