// Property checks for the fuzz targets whose entry point is not in the
// library. Each function takes arbitrary bytes and panics when a property
// is violated.
//
// This file is the `tmuxwire_fuzz` library of the fuzz crate AND is
// `include!`d by `tests/fuzz_corpus.rs` (the corpus replay under plain
// `cargo test`), so it must stay a plain list of items: no inner
// attributes or `//!` docs, no `crate::` paths, dependencies on `tmuxwire`
// and `std` only.

use tmuxwire::control::notify::unescape_output;
use tmuxwire::control::{Block, Event, Notification, PaneId, Parser};
use tmuxwire::search::{LineMatch, Pattern, PatternOptions};
use tmuxwire::control::format::{Query, RS, US};
use tmuxwire::wire::{Framing, TmuxVersion};

/// tmux's `%output` escaping (control.c: `control_append_data()`): every
/// byte below 0x20 and `\` as `\ooo`, all other bytes raw.
pub fn escape_output(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for &b in data {
        if b < 0x20 || b == b'\\' {
            out.extend_from_slice(format!("\\{b:03o}").as_bytes());
        } else {
            out.push(b);
        }
    }
    out
}

/// `Notification::parse` and `unescape_output` on any line: no panic,
/// unescaping never grows the data, undoes tmux's escaping exactly, and an
/// escaped `%output`/`%extended-output` line survives the whole parser.
pub fn notification(data: &[u8]) {
    let n = Notification::parse(data);
    match &n {
        Notification::Output { data: d, .. } | Notification::ExtendedOutput { data: d, .. } => {
            assert!(d.len() <= data.len(), "unescaped output grew");
        }
        Notification::Other(raw) => assert_eq!(raw, data),
        _ => assert_eq!(data.first(), Some(&b'%'), "{n:?} from a non-% line"),
    }

    let u = unescape_output(data);
    assert!(u.len() <= data.len(), "unescape_output grew the data");
    if !data.contains(&b'\\') {
        assert_eq!(u, data, "no backslash, yet unescape changed the data");
    }
    let escaped = escape_output(data);
    assert!(!escaped.contains(&b'\n'));
    assert_eq!(
        unescape_output(&escaped),
        data,
        "escape/unescape round trip"
    );

    // Through the stream parser, as tmux would send it.
    let mut stream = b"%output %7 ".to_vec();
    stream.extend_from_slice(&escaped);
    stream.extend_from_slice(b"\n%extended-output %7 12 x : ");
    stream.extend_from_slice(&escaped);
    stream.push(b'\n');
    let mut events = Vec::new();
    let mut p = Parser::new();
    p.feed(&stream, &mut |e| events.push(e));
    assert!(!p.finish());
    let want = vec![
        Event::Notification(Notification::Output {
            pane: PaneId(7),
            data: data.to_vec(),
        }),
        Event::Notification(Notification::ExtendedOutput {
            pane: PaneId(7),
            age_ms: 12,
            data: data.to_vec(),
        }),
    ];
    assert_eq!(events, want);
}

/// A stream as tmux writes it: for every NUL-separated piece of the input,
/// one answer block whose body is the piece's lines (any bytes, including
/// `%end`/`%begin` look-alikes), alternately `%end` and `%error`, then an
/// `%output` line carrying the piece. The parser must give back exactly
/// those blocks and notifications, whole or in small chunks.
///
/// A body line equal to its block's own closing guard cannot be told apart
/// from the guard (by tmux's clients either); such inputs are skipped.
pub fn control_roundtrip(data: &[u8]) {
    let mut stream = Vec::new();
    let mut want = Vec::new();
    for (k, piece) in data.split(|&b| b == 0).enumerate() {
        let (time, number, ok) = (1_795_978_033 + k as i64, 1000 + k as u64, k % 2 == 0);
        let guard = format!("{time} {number} 1");
        let close = format!("{} {guard}", if ok { "%end" } else { "%error" });
        if piece.split(|&b| b == b'\n').any(|l| l == close.as_bytes()) {
            return;
        }
        let mut body = piece.to_vec();
        if !body.is_empty() {
            body.push(b'\n');
        }
        stream.extend_from_slice(format!("%begin {guard}\n").as_bytes());
        stream.extend_from_slice(&body);
        stream.extend_from_slice(format!("{close}\n%output %1 ").as_bytes());
        stream.extend_from_slice(&escape_output(piece));
        stream.push(b'\n');
        want.push(Event::Block(Block {
            time,
            number,
            flags: 1,
            ok,
            body,
        }));
        want.push(Event::Notification(Notification::Output {
            pane: PaneId(1),
            data: piece.to_vec(),
        }));
    }
    for size in [stream.len().max(1), data.len() % 13 + 1] {
        let mut got = Vec::new();
        let mut p = Parser::new();
        for chunk in stream.chunks(size) {
            p.feed(chunk, &mut |e| got.push(e));
            // Inside block k, exactly the 2k events before it are out.
            assert!(!p.in_block() || got.len() % 2 == 0);
        }
        assert!(!p.finish(), "a block is still open");
        assert_eq!(got, want, "chunks of {size}");
    }
}

/// `Query::parse`: no panic on any body, exactly `n` fields per record;
/// records rendered the way tmux prints the query's template read back
/// unchanged, whatever bytes surround them; and no value can forge a
/// record or shift a field.
///
/// Input: first byte = `n % 16` (at least 1), the rest = the body.
pub fn format_records(data: &[u8]) {
    let Some((&n, body)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 16).max(1);
    let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let q = Query::new(&names);
    for r in q.parse(body) {
        assert_eq!(r.0.len(), n, "field count");
    }

    // Round trip: separator-free values (line breaks allowed), with the
    // fuzz input as noise before and between records.
    let text = String::from_utf8_lossy(body);
    let clean: String = text.chars().filter(|&c| c != RS && c != US).collect();
    let values: Vec<&str> = clean.split(',').collect();
    let want: Vec<Vec<String>> = values
        .chunks(n)
        .map(|c| {
            let mut v: Vec<String> = c.iter().map(|s| s.to_string()).collect();
            v.resize(n, String::new());
            v
        })
        .collect();
    let mut printed = format!("{text}\n");
    for rec in &want {
        let fields: Vec<&str> = rec.iter().map(String::as_str).collect();
        printed.push_str(&q.render(&fields));
        printed.push('\n');
    }
    let back: Vec<Vec<String>> = q.parse(printed.as_bytes()).into_iter().map(|r| r.0).collect();
    assert_eq!(back, want, "round trip of {printed:?}");
}

/// The logical lines of a search haystack (see `tmuxwire::search`).
pub fn haystack_lines(hay: &[u8]) -> Vec<&[u8]> {
    if hay.is_empty() {
        return Vec::new();
    }
    let body = hay.strip_suffix(b"\n").unwrap_or(hay);
    body.split(|&b| b == b'\n').collect()
}

/// `Pattern::new` + `find_lines`: no panic; reported lines increase, exist,
/// and hold their match range; and `find_lines` agrees with `find_in_line`
/// and `is_match_line` on every line.
///
/// Input: byte 0 = flags (bit 0: regex, bit 1: case-insensitive), byte 1 =
/// pattern length in bytes, then the pattern (lossy UTF-8), then the
/// haystack.
pub fn search_pattern(data: &[u8]) {
    let [flags, len, rest @ ..] = data else {
        return;
    };
    let (pat, hay) = rest.split_at(usize::from(*len).min(rest.len()));
    let opts = PatternOptions {
        regex: flags & 1 != 0,
        case_sensitive: flags & 2 == 0,
    };
    let pat = String::from_utf8_lossy(pat);
    let Ok(p) = Pattern::new(&pat, opts) else {
        return;
    };
    let lines = haystack_lines(hay);
    let found = p.find_lines(hay);
    let mut next = 0;
    for m in &found {
        assert!(m.line >= next, "lines not increasing: {found:?}");
        assert!(m.line < lines.len(), "line {} of {}", m.line, lines.len());
        assert!(m.start <= m.end && m.end <= lines[m.line].len(), "{m:?}");
        next = m.line + 1;
        // Every matched line holds the pattern's required byte pairs (the
        // mirror skips history chunks that lack one).
        let line = &lines[m.line];
        for &(a, b) in p.required_pairs() {
            assert!(
                line.windows(2).any(|w| w[0].eq_ignore_ascii_case(&a) && w[1].eq_ignore_ascii_case(&b)),
                "{pat:?} matched {line:?} without the pair {:?}",
                (a as char, b as char)
            );
        }
    }
    // `for_each_line` stops when asked to.
    let mut first = Vec::new();
    p.for_each_line(hay, |m| {
        first.push(m);
        false
    });
    assert_eq!(first, found.iter().copied().take(1).collect::<Vec<_>>());

    // Line-by-line agreement. The CRLF flag `(?R)` is the documented
    // exception (its `$` sees the `\r` before a `\n`), so skip patterns
    // that could set it.
    if opts.regex && pat.contains('R') {
        return;
    }
    let mut at = 0;
    let offsets: Vec<usize> = lines
        .iter()
        .map(|l| {
            let o = at;
            at += l.len() + 1;
            o
        })
        .collect();
    let per_line: Vec<LineMatch> = lines
        .iter()
        .enumerate()
        .filter_map(|(line, l)| {
            let r = p.find_in_line(l);
            assert_eq!(p.is_match_line(l), r.is_some(), "is_match_line({l:?})");
            r.map(|r| LineMatch {
                line,
                offset: offsets[line],
                start: r.start,
                end: r.end,
            })
        })
        .collect();
    assert_eq!(found, per_line, "find_lines vs find_in_line for {pat:?}");
}

/// `TmuxVersion::parse`: no panic, keeps the trimmed text, and the derived
/// answers are consistent with `release()`.
pub fn tmux_version(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    let v = TmuxVersion::parse(&s);
    assert_eq!(v.as_str(), s.trim());
    assert_eq!(v.to_string(), s.trim());
    assert_eq!(TmuxVersion::parse(v.as_str()), v, "re-parse");
    match v.release() {
        Some(mm) => {
            let framing = if mm >= (3, 6) {
                Framing::New
            } else {
                Framing::Old
            };
            assert_eq!(v.framing(), Some(framing));
            assert_eq!(v.check_supported().is_ok(), mm >= (3, 2));
            assert!(v.at_least(mm.0, mm.1));
            assert!(mm.1 == u32::MAX || !v.at_least(mm.0, mm.1 + 1));
        }
        None => {
            assert!(v.check_supported().is_ok());
            assert!(v.at_least(u32::MAX, u32::MAX));
        }
    }
}

/// The CLI's reading of a copy (`cli::source::lines_of`, chunk by chunk)
/// gives the lines, tmux line numbers, rows and screens of the copy's
/// one-at-a-time lines (`Term::lines`, the hidden normal screen between
/// history and screen), whole and over a range; and `term::width::rows`
/// is at least 1 for any text.
///
/// Input: byte 0 = width − 1 (mod 40); byte 1 = height − 1 (mod 8); then
/// the pane output.
pub fn copy_lines(data: &[u8]) {
    use tmuxwire::cli::source::{PaneInfo, Range, lines_of};
    use tmuxwire::mirror::scan::Screen;
    use tmuxwire::term::width::{Rules, rows};
    use tmuxwire::term::{Options, Term, trim_end_spaces};
    let Some((head, body)) = data.split_first_chunk::<2>() else {
        return;
    };
    for text in String::from_utf8_lossy(body).split('\n').take(64) {
        for r in [Rules::V33, Rules::V34, Rules::V36] {
            assert!(rows(text, usize::from(head[0] % 40) + 1, r) >= 1);
        }
    }
    let width = u32::from(head[0] % 40) + 1;
    let height = u32::from(head[1] % 8) + 1;
    let opts = Options {
        history_limit: 50,
        ..Options::default()
    };
    let mut t = Term::new(width, height, Rules::V36, opts);
    t.advance(body);
    let alternate = t.alternate_on();
    let screen = if alternate { Screen::Alternate } else { Screen::Main };
    let mut want: Vec<(Vec<u8>, i64, u32, Screen)> = Vec::new();
    let all: Vec<_> = t.lines().collect();
    let screen_first = t.screen_logical_lines().next().map(|l| l.index);
    let (hist, scr): (Vec<_>, Vec<_>) = all
        .iter()
        .partition(|l| screen_first.is_none_or(|f| l.index < f));
    for l in hist {
        want.push((trim_end_spaces(&l.text).to_vec(), l.first_row.0, l.rows(), Screen::Main));
    }
    if alternate {
        for l in t.hidden_main_lines() {
            want.push((trim_end_spaces(&l.text).to_vec(), l.first_row.0, l.rows(), Screen::HiddenMain));
        }
    }
    for l in scr {
        want.push((trim_end_spaces(&l.text).to_vec(), l.first_row.0, l.rows(), screen));
    }
    let read = |range: Range| {
        let p = lines_of(&t, PaneInfo::default(), range);
        (0..p.lines.len())
            .map(|i| (p.line(i).to_vec(), p.lines[i].number, p.lines[i].rows, p.lines[i].screen))
            .collect::<Vec<_>>()
    };
    assert_eq!(read(Range::default()), want);
    let (lo, hi) = (-3, 1);
    let ranged: Vec<_> = want
        .iter()
        .filter(|w| w.1 + i64::from(w.2) > lo && w.1 <= hi)
        .cloned()
        .collect();
    assert_eq!(read(Range { start: Some(lo), end: Some(hi) }), ranged);
}

/// `term::Term` (the pane mirror's grid) on any bytes: no panic, and
/// `Term::check_invariants` holds after every piece (grid shape, cursor
/// and region bounds, history bookkeeping within its cap, logical lines
/// numbered and placed without gaps with consistent row breaks, captures
/// made of the same lines, offsets that convert, fingerprint); feeding
/// the bytes in pieces gives the same text, cursor and history as in one
/// go; a (tmux ≥ 3.7) `set_history_limit` keeps the invariants.
///
/// Input: byte 0 = tmux rules (mod 3); byte 1 = width − 1 (mod 48); byte
/// 2 = height − 1 (mod 12); byte 3 = history-limit choice (low 3 bits)
/// and option bits (scroll-on-clear, alternate-screen,
/// variation-selector-always-wide, DEC graphics as ASCII, window right
/// edge); byte 4 = piece length − 1 (mod 64); then the pane output.
pub fn grid(data: &[u8]) {
    use tmuxwire::term::{DecGraphics, LineNo, Options, Rules, Term};
    // The `-e` capture reader on the same bytes: no panic, one line out
    // per line in, no codes left.
    let plain = tmuxwire::term::plain_capture(data);
    assert_eq!(
        plain.iter().filter(|&&b| b == b'\n').count(),
        data.iter().filter(|&&b| b == b'\n').count()
    );
    assert!(!plain.contains(&0x0e) && !plain.contains(&0x0f));
    let Some((head, body)) = data.split_first_chunk::<5>() else {
        return;
    };
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
        dec_graphics: if bit(3) { DecGraphics::Ascii } else { DecGraphics::Unicode },
        at_window_right_edge: !bit(4),
    };
    let piece = usize::from(head[4] % 64) + 1;

    let mut whole = Term::new(width, height, rules, opts);
    whole.advance(body);
    let mut pieces = Term::new(width, height, rules, opts);
    // The checks cost more than the input: after at most 16 pieces.
    let stride = body.len().div_ceil(piece).div_ceil(16).max(1);
    for (i, p) in body.chunks(piece).enumerate() {
        pieces.advance(p);
        if i % stride == 0
            && let Err(e) = pieces.check_invariants() {
                panic!("invariant broken: {e}");
            }
    }
    if let Err(e) = whole.check_invariants() {
        panic!("invariant broken: {e}");
    }
    let all = |t: &Term| {
        let (_, h) = t.size();
        t.capture(LineNo(-(t.history_size() as i64)), LineNo(i64::from(h) - 1))
    };
    assert_eq!(all(&whole), all(&pieces), "pieces of {piece} bytes differ from one go");
    assert_eq!(whole.cursor(), pieces.cursor());
    assert_eq!(whole.history().dropped(), pieces.history().dropped());
    assert_eq!(whole.hidden_main_screen(), pieces.hidden_main_screen());
    // The command table, however the output was cut: bounded, and its
    // command lines capped and free of controls but line feeds.
    for t in [&whole, &pieces] {
        let c = t.commands();
        assert!(c.records().len() <= tmuxwire::term::MAX_COMMANDS);
        for r in c.records() {
            let text = r.command.as_deref().unwrap_or("");
            assert!(text.len() <= tmuxwire::term::marks::MAX_TEXT);
            assert!(!text.chars().any(|ch| ch.is_control() && ch != '\n'), "{text:?}");
        }
    }

    // A history-limit change mid-stream (tmux ≥ 3.7).
    let mut changed = Term::new(width, height, rules, opts);
    let (a, b) = body.split_at(body.len() / 2);
    changed.advance(a);
    changed.set_history_limit(limits[usize::from(head[4] & 7)]);
    if let Err(e) = changed.check_invariants() {
        panic!("invariant broken after set_history_limit: {e}");
    }
    changed.advance(b);
    if let Err(e) = changed.check_invariants() {
        panic!("invariant broken after set_history_limit: {e}");
    }
}

/// The mirror's handling of one pane's events: `%output` in pieces split
/// anywhere, `%pause` (tmux drops the pane's output until the copy is
/// seeded again), and seeds taken mid-stream from the pane's state.
///
/// The pane is a `Term` fed everything; the copy starts unseeded, is
/// seeded from [`OwnCaptures`] of the pane (what tmux ≥ 3.7 answers to
/// the seed commands) and fed only the output that follows its seed. A
/// seed is taken only where one loses nothing (the parser idle, nothing
/// tmux cannot report); elsewhere the copy waits for the next such point,
/// as the mirror's check would find it stale. Whenever the copy is live
/// it must print exactly what the pane prints: every row (history and
/// screen), the logical lines, the cursor, the hidden main screen; and the
/// copy's own invariants hold.
///
/// Input: 4 header bytes (rules, width, height, history limit), then
/// events: `op` byte, and for output a length byte and that many bytes.
pub fn mirror_feed(data: &[u8]) {
    use tmuxwire::term::{DecGraphics, LineNo, Options, OwnCaptures, Rules, Seed, Term};
    let Some((head, mut rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let rules = [Rules::V33, Rules::V34, Rules::V36][usize::from(head[0] % 3)];
    let width = u32::from(head[1] % 40) + 2;
    let height = u32::from(head[2] % 10) + 1;
    let limits = [0, 1, 3, 10, 100];
    let opts = Options {
        history_limit: limits[usize::from(head[3] % 5)],
        dec_graphics: DecGraphics::Ascii,
        ..Options::default()
    };
    let mut pane = Term::new(width, height, rules, opts);
    // The copy, and whether output is applied to it.
    let mut copy: Option<Term> = None;
    let mut live = false;
    // A seed is wanted (first one, or after a %pause) but not yet taken.
    let mut want_seed = true;
    let all = |t: &Term| {
        let (_, h) = t.size();
        let (start, end) = (LineNo(-(t.history_size() as i64)), LineNo(i64::from(h) - 1));
        (t.capture_tmux(start, end), t.capture_joined(start, end))
    };
    let mut events = 0;
    while let Some((&op, tail)) = rest.split_first() {
        rest = tail;
        events += 1;
        if events > 200 {
            break;
        }
        match op % 8 {
            // `%output`: a piece of the pane's output.
            0..=4 => {
                let Some((&len, tail)) = rest.split_first() else {
                    break;
                };
                let n = usize::from(len).min(tail.len());
                let (piece, tail) = tail.split_at(n);
                rest = tail;
                pane.advance(piece);
                pane.end_read();
                if live && let Some(c) = copy.as_mut() {
                    c.advance(piece);
                    c.end_read();
                }
            }
            // `%pause`: output is dropped from here until a seed.
            5 => {
                live = false;
                want_seed = true;
            }
            // A seed (first, after a pause, or a re-seed of a live copy
            // that the check asked for): taken only where it loses
            // nothing.
            _ => {
                if !(want_seed || op & 0x80 != 0) {
                    continue;
                }
                if !(pane.parser_idle() && pane.fully_seedable()) {
                    continue;
                }
                let caps = OwnCaptures::of(&pane);
                let first = copy.as_ref().map_or(tmuxwire::term::LineIndex(0), |c| {
                    c.history().first_index()
                });
                match Seed::from_captures(&caps.captures(), rules, opts, first) {
                    Ok(t) => {
                        if t.seed_guesses() > 0 {
                            // The copy knows it guessed: the mirror checks
                            // and re-seeds such a copy; not compared.
                            copy = None;
                            live = false;
                            continue;
                        }
                        if let Err(e) = t.check_invariants() {
                            panic!("seeded copy: invariant broken: {e}");
                        }
                        assert_eq!(all(&t), all(&pane), "a fresh seed differs from the pane");
                        copy = Some(t);
                        live = true;
                        want_seed = false;
                    }
                    Err(e) => panic!("own captures rejected: {e}\n{caps:?}"),
                }
            }
        }
    }
    if let (true, Some(c)) = (live, copy.as_ref()) {
        if let Err(e) = c.check_invariants() {
            panic!("copy: invariant broken: {e}");
        }
        if c.needs_reseed() {
            // The copy knows it lost track (the mirror re-seeds it).
            return;
        }
        let (rows, lines) = all(c);
        let (want_rows, want_lines) = all(&pane);
        assert_eq!(
            String::from_utf8_lossy(&rows),
            String::from_utf8_lossy(&want_rows),
            "rows differ"
        );
        assert_eq!(lines, want_lines, "logical lines differ");
        assert_eq!(c.cursor(), pane.cursor(), "cursor differs");
        assert_eq!(c.hidden_main_screen(), pane.hidden_main_screen());
    }
}
