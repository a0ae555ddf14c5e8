// Property checks for the fuzz targets whose entry point is not in the
// library. Each function takes arbitrary bytes and panics when a property
// is violated.
//
// This file is the `tmuxwire_fuzz` library of the fuzz crate AND is
// `include!`d by `tests/fuzz_corpus.rs` (the corpus replay under plain
// `cargo test`), so it must stay a plain list of items: no inner
// attributes or `//!` docs, no `crate::` paths, dependencies on `tmuxwire`,
// `serde_json` and `std` only.

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

/// The CLI's reading of a copy (`mirror::scan::Lines`, chunk by chunk,
/// copied out by `cli::source::lines_of`) gives the lines, tmux line numbers, rows and screens of the copy's
/// one-at-a-time lines (`Term::lines`, the hidden normal screen between
/// history and screen), whole and over a range; and `term::width::rows`
/// is at least 1 for any text.
///
/// Input: byte 0 = width − 1 (mod 40); byte 1 = height − 1 (mod 8); then
/// the pane output.
pub fn copy_lines(data: &[u8]) {
    use tmuxwire::cli::source::{PaneInfo, Range, lines_of};
    use tmuxwire::mirror::scan::{Lines, Screen};
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
        let p = lines_of(&Lines::of(&t, range.bounds()), PaneInfo::default());
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

/// A JSON-RPC id rmcp reads (`RequestId`): a string, or an integer (also
/// in float form, `1.0`, below 2^53).
pub fn usable_id(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(_) => true,
        serde_json::Value::Number(n) => {
            n.as_i64().is_some()
                || n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0)
        }
        _ => false,
    }
}

/// The deepest nesting of arrays and objects in JSON text, as
/// `jsonrpc::MAX_DEPTH` counts it (the message itself is 1; a scalar 0):
/// of the text, so a member that a later one of the same key replaces
/// counts too.
pub fn json_depth(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0, false, false);
    for &b in text {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Checks one JSON-RPC error answer: `{"jsonrpc": "2.0", "id", "error":
/// {"code", "message", "data": {"reason"}}}` with the message ending in
/// the reason; returns its code and id.
pub fn rpc_error(e: &serde_json::Value) -> (i64, serde_json::Value) {
    use tmuxwire::mcp::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR};
    assert_eq!(e["jsonrpc"], "2.0", "{e}");
    assert_eq!(e.as_object().map(|m| m.len()), Some(3), "{e}");
    let id = e["id"].clone();
    assert!(id.is_null() || usable_id(&id), "{e}");
    let code = e["error"]["code"].as_i64().unwrap_or(0);
    assert!(
        [PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS].contains(&code),
        "{e}"
    );
    let reason = e["error"]["data"]["reason"].as_str().unwrap_or_default();
    assert!(!reason.is_empty(), "{e}");
    let message = e["error"]["message"].as_str().unwrap_or_default();
    assert!(message.ends_with(reason), "{e}");
    (code, id)
}

/// The frames of `stream` as a `Framer` with limit `max` makes them, fed
/// `step` bytes at a time.
pub fn jsonrpc_frames(stream: &[u8], step: usize, max: usize) -> Vec<tmuxwire::mcp::jsonrpc::Line> {
    let mut framer = tmuxwire::mcp::jsonrpc::Framer::new(max);
    let mut lines = Vec::new();
    for chunk in stream.chunks(step.max(1)) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let (n, line) = framer.feed(rest);
            assert!(n > 0 && n <= rest.len());
            rest = &rest[n..];
            lines.extend(line);
        }
    }
    lines.extend(framer.finish());
    lines
}

/// What a line over a limit (its length or `MAX_DEPTH`) must get, when the
/// line read whole would be `parsed`: no answer for a notification; for
/// anything else a `-32600` with the request's id when it has a usable one
/// (`null` allowed only for an id too long for the scan to keep), else
/// `null`.
pub fn jsonrpc_over_limit(
    parsed: Option<&serde_json::Value>,
    verdict: &tmuxwire::mcp::jsonrpc::Verdict,
) {
    use serde_json::Value;
    use tmuxwire::mcp::jsonrpc::{INVALID_REQUEST, Verdict};
    let object = parsed.and_then(Value::as_object);
    if object.is_some_and(|m| m.contains_key("method") && !m.contains_key("id")) {
        assert!(
            !matches!(verdict, Verdict::Answer(_)),
            "a notification answered: {verdict:?}"
        );
        return;
    }
    let Verdict::Answer(a) = verdict else {
        // Unparsable text the scan took for a notification.
        assert!(parsed.is_none(), "not answered: {verdict:?}");
        return;
    };
    let (code, id) = rpc_error(a);
    assert_eq!(code, INVALID_REQUEST, "{a}");
    let Some(m) = object else {
        if parsed.is_some() {
            assert!(id.is_null(), "{a}");
        }
        return;
    };
    match m.get("id").filter(|id| usable_id(id)) {
        Some(want) => {
            // Every character of a short id may be a `\uXXXX` escape and
            // the scan still keeps it (256 bytes).
            let short = serde_json::to_string(want).is_ok_and(|t| t.len() * 6 <= 256);
            assert!(
                id == *want || (id.is_null() && !short),
                "answered {id}, the id is {want}"
            );
        }
        None => assert!(id.is_null(), "answered {id}, the id is not usable"),
    }
}

/// The JSON-RPC line checks in front of rmcp (`mcp::jsonrpc`: `Framer`,
/// `classify`) on any stdin bytes: never a panic; the same lines and
/// verdicts whole or fed in pieces; every answer a well-formed error
/// object; a blank line skipped; a line that is not JSON `-32700` with id
/// `null`; a notification or a response never answered; an answer to a
/// message carries its id when usable, else `null`; a batch answered once
/// per element that is not a notification; a line over the length or
/// depth limit answered as the line would be read whole (the streaming
/// scan finds the same `id` and `method` as serde_json, escapes included).
///
/// Input: byte 0 = piece length − 1 (mod 32), then the stream of lines.
pub fn jsonrpc_lines(data: &[u8]) {
    use serde_json::Value;
    use tmuxwire::mcp::jsonrpc::{
        self, INVALID_REQUEST, MAX_DEPTH, MAX_LINE_BYTES, PARSE_ERROR, Verdict,
    };
    let Some((&head, stream)) = data.split_first() else {
        return;
    };
    let whole = jsonrpc_frames(stream, stream.len(), MAX_LINE_BYTES);
    let pieces = jsonrpc_frames(stream, usize::from(head % 32) + 1, MAX_LINE_BYTES);
    let mut texts: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    if texts.last().is_some_and(|t| t.is_empty()) {
        texts.pop();
    }
    assert_eq!(whole.len(), texts.len());
    assert_eq!(pieces.len(), texts.len());
    for ((line, piece), &text) in whole.into_iter().zip(pieces).zip(&texts) {
        assert_eq!((line.len(), line.is_too_long()), (text.len(), false));
        assert_eq!(piece.len(), text.len());
        let verdict = jsonrpc::classify(line);
        assert_eq!(
            format!("{verdict:?}"),
            format!("{:?}", jsonrpc::classify(piece)),
            "pieces classified otherwise"
        );
        let trimmed = text.strip_suffix(b"\r").unwrap_or(text);
        let trimmed = trimmed.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(trimmed);
        let parsed = serde_json::from_str::<Value>(&jsonrpc::decode(trimmed)).ok();
        if !text.is_empty() {
            let short = jsonrpc_frames(text, text.len(), text.len() - 1);
            assert_eq!(short.len(), 1);
            assert!(short[0].is_too_long());
            jsonrpc_over_limit(
                parsed.as_ref(),
                &jsonrpc::classify(short.into_iter().next().unwrap()),
            );
        }
        if trimmed.iter().all(u8::is_ascii_whitespace) {
            assert!(matches!(verdict, Verdict::Ignore(_)), "blank: {verdict:?}");
            continue;
        }
        let Some(v) = parsed else {
            if json_depth(trimmed) > MAX_DEPTH {
                jsonrpc_over_limit(None, &verdict);
                continue;
            }
            let Verdict::Answer(a) = &verdict else {
                panic!("not JSON, yet {verdict:?}");
            };
            assert_eq!(rpc_error(a), (PARSE_ERROR, Value::Null), "{a}");
            continue;
        };
        if json_depth(trimmed) > MAX_DEPTH {
            jsonrpc_over_limit(Some(&v), &verdict);
            continue;
        }
        let id_of = |item: &Value| {
            item.get("id")
                .filter(|id| usable_id(id))
                .cloned()
                .unwrap_or(Value::Null)
        };
        let notification = |item: &Value| {
            item.as_object()
                .is_some_and(|m| m.contains_key("method") && !m.contains_key("id"))
        };
        match &v {
            Value::Object(m) => {
                let response = !m.contains_key("method")
                    && (m.contains_key("result") || m.contains_key("error"));
                if notification(&v) || response {
                    assert!(
                        !matches!(verdict, Verdict::Answer(_)),
                        "answered: {verdict:?}"
                    );
                } else if let Verdict::Answer(a) = &verdict {
                    let (code, id) = rpc_error(a);
                    assert_ne!(code, PARSE_ERROR, "{a}");
                    assert_eq!(id, id_of(&v), "{a}");
                }
            }
            Value::Array(items) => {
                let answered: Vec<&Value> = items.iter().filter(|i| !notification(i)).collect();
                match &verdict {
                    Verdict::Answer(Value::Array(errors)) => {
                        assert_eq!(errors.len(), answered.len());
                        for (e, item) in errors.iter().zip(answered) {
                            assert_eq!(rpc_error(e), (INVALID_REQUEST, id_of(item)));
                        }
                    }
                    Verdict::Answer(e) => {
                        assert!(items.is_empty(), "{e}");
                        assert_eq!(rpc_error(e), (INVALID_REQUEST, Value::Null));
                    }
                    other => assert!(answered.is_empty() && !items.is_empty(), "{other:?}"),
                }
            }
            _ => {
                let Verdict::Answer(a) = &verdict else {
                    panic!("a scalar, yet {verdict:?}");
                };
                assert_eq!(rpc_error(a), (INVALID_REQUEST, Value::Null));
            }
        }
    }
}

/// The `capture_since` cursor a caller hands back
/// (`tmux::pane_text::SinceCursor`): `decode` never panics and accepts only
/// the text `encode` writes (one text per cursor); any cursor's text reads
/// back as that cursor; a cursor's text with one byte changed is refused
/// or is the text of another cursor.
///
/// Input: any text; its first 28 bytes (when there are) also make a
/// cursor (pids, pane, line, hash), and bytes 28–29 a change (position,
/// byte).
pub fn since_cursor(data: &[u8]) {
    use tmuxwire::control::PaneId;
    use tmuxwire::term::LineIndex;
    use tmuxwire::tmux::pane_text::SinceCursor;
    let text = String::from_utf8_lossy(data);
    if let Ok(c) = SinceCursor::decode(&text) {
        assert_eq!(c.encode(), text);
    }
    let Some(b) = data.first_chunk::<30>() else {
        return;
    };
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let u64_at = |i: usize| u64::from(u32_at(i)) | u64::from(u32_at(i + 4)) << 32;
    let c = SinceCursor {
        server_pid: u32_at(0),
        pane: PaneId(u32_at(4)),
        pane_pid: u32_at(8),
        next: LineIndex(u64_at(12)),
        hash: u64_at(20),
    };
    let text = c.encode();
    assert!(text.is_ascii());
    assert_eq!(SinceCursor::decode(&text).ok(), Some(c));
    let mut changed = text.into_bytes();
    let at = usize::from(b[28]) % changed.len();
    changed[at] = b[29];
    if let Ok(s) = std::str::from_utf8(&changed)
        && let Ok(d) = SinceCursor::decode(s)
    {
        assert_eq!(d.encode(), s);
    }
}

/// `%XX` for every byte outside RFC 3986's unreserved characters.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A parsed `tmux://` address written back, every parameter
/// percent-encoded.
pub fn resource_uri_of(p: &tmuxwire::mcp::resources::Parsed) -> String {
    use tmuxwire::mcp::resources::Address;
    let e = |s: &str| percent_encode(s);
    let path = match &p.address {
        Address::Sessions => "sessions".to_string(),
        Address::Session(s) => format!("sessions/{}", e(s)),
        Address::Windows(s) => format!("sessions/{}/windows", e(s)),
        Address::Window(s, i) => format!("sessions/{}/windows/{i}", e(s)),
        Address::Pane(x) => format!("panes/{}", e(x)),
        Address::Content(x) => format!("panes/{}/content", e(x)),
    };
    match &p.socket_name {
        Some(s) => format!("tmux://{path}?socket_name={}", e(s)),
        None => format!("tmux://{path}"),
    }
}

/// MCP resource addresses (`mcp::resources::parse`, what `resources/read`
/// reads): never a panic; what is accepted names no empty or NUL
/// parameter and a socket by name, never a path; written back with its
/// parameters percent-encoded it reads the same; any text (U+FFFD for bad
/// UTF-8) put percent-encoded into each template reads back as itself.
///
/// Input: any text, read both as an address and as a parameter; byte 0 also
/// picks the window index.
pub fn resource_uri(data: &[u8]) {
    use tmuxwire::mcp::resources::{Address, AddressError, Parsed, parse};
    let text = String::from_utf8_lossy(data);
    let check = |p: &Parsed| {
        let name = match &p.address {
            Address::Sessions => None,
            Address::Session(s) | Address::Windows(s) | Address::Window(s, _) => Some(s),
            Address::Pane(x) | Address::Content(x) => Some(x),
        };
        if let Some(n) = name {
            assert!(!n.is_empty() && !n.contains('\0'), "{p:?}");
        }
        if let Some(s) = &p.socket_name {
            assert!(
                !s.is_empty() && !s.contains(['/', '\0']) && s != "." && s != "..",
                "{p:?}"
            );
        }
    };
    match parse(&text) {
        Ok(p) => {
            check(&p);
            let again = resource_uri_of(&p);
            assert_eq!(parse(&again), Ok(p), "{text:?} written as {again:?}");
        }
        Err(AddressError::Unknown(m) | AddressError::Invalid(m)) => assert!(!m.is_empty()),
    }
    // The text as each template's parameter.
    let e = percent_encode(&text);
    let index = u32::from(data.first().copied().unwrap_or(0));
    let named = [
        (
            format!("tmux://sessions/{e}"),
            Address::Session(text.to_string()),
        ),
        (
            format!("tmux://sessions/{e}/windows"),
            Address::Windows(text.to_string()),
        ),
        (
            format!("tmux://sessions/{e}/windows/{index}"),
            Address::Window(text.to_string(), index),
        ),
        (format!("tmux://panes/{e}"), Address::Pane(text.to_string())),
        (
            format!("tmux://panes/{e}/content"),
            Address::Content(text.to_string()),
        ),
    ];
    for (uri, address) in named {
        match parse(&uri) {
            Ok(p) => assert_eq!(
                p,
                Parsed {
                    address,
                    socket_name: None
                },
                "{uri:?}"
            ),
            Err(e) => assert!(text.is_empty() || text.contains('\0'), "{uri:?}: {e:?}"),
        }
    }
    let uri = format!("tmux://sessions?socket_name={e}");
    match parse(&uri) {
        Ok(p) => {
            check(&p);
            assert_eq!(
                p.socket_name.as_deref(),
                (!text.is_empty()).then_some(&*text),
                "{uri:?}"
            );
        }
        Err(e) => assert!(matches!(e, AddressError::Invalid(_)), "{uri:?}: {e:?}"),
    }
}

/// A regex that matches `s` literally: every character but ASCII letters
/// and digits as `\x{…}`.
pub fn regex_literal(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                format!("\\x{{{:x}}}", c as u32)
            }
        })
        .collect()
}

/// The list tools' Django-style `filters` (`tmux::op::filter`): any JSON
/// text given as a string, and any object given as one, never panics; the
/// two forms agree; only an object is accepted; a filter on a field the
/// items lack is refused; one condition `field__op: value` keeps an item
/// whose field is the value itself (`exact`, `eq`, `contains`,
/// `startswith`, `endswith`, their `i` forms, `in`, a `regex` of the
/// value's text written literally; `iexact` with the value in ASCII upper
/// case) and `nin` drops it.
///
/// Input: JSON text (any bytes, U+FFFD for bad UTF-8).
pub fn filters(data: &[u8]) {
    use serde_json::{Map, Value, json};
    use tmuxwire::tmux::op::filter::{Filters, FiltersArg};
    let text = String::from_utf8_lossy(data);
    let from_json = Filters::parse(&FiltersArg::Json(text.to_string()));
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text) else {
        assert!(from_json.is_err(), "not an object, yet accepted: {text:?}");
        return;
    };
    let as_map = |m: &Map<String, Value>| FiltersArg::Map(m.clone().into_iter().collect());
    assert_eq!(from_json.is_ok(), Filters::parse(&as_map(&map)).is_ok());
    let Ok(all) = from_json else {
        return;
    };
    if !map.is_empty() {
        assert!(
            all.apply(vec![json!({})]).is_err(),
            "no such field, yet applied"
        );
    }
    let text_of = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    for (key, value) in &map {
        let one = Map::from_iter([(key.clone(), value.clone())]);
        let Ok(f) = Filters::parse(&as_map(&one)) else {
            continue;
        };
        let (field, op) = match key.rsplit_once("__") {
            Some((f, op)) => (f, op),
            None => (key.as_str(), "exact"),
        };
        let keeps = |v: Value| {
            f.apply(vec![json!({ field: v })])
                .map(|kept| kept.len() == 1)
                .ok()
        };
        let first = match value {
            Value::Array(a) => a.first().map(|v| Value::String(text_of(v))),
            other => text_of(other)
                .split(',')
                .next()
                .map(|s| Value::String(s.trim().to_string())),
        };
        match op {
            "exact" | "eq" | "iexact" | "contains" | "icontains" | "startswith" | "istartswith"
            | "endswith" | "iendswith" => {
                assert_eq!(keeps(value.clone()), Some(true), "{key}: {value}");
                if op == "iexact" {
                    let upper = Value::String(text_of(value).to_ascii_uppercase());
                    assert_eq!(keeps(upper), Some(true), "{key}: {value}");
                }
            }
            "in" => {
                if let Some(v) = first {
                    assert_eq!(keeps(v), Some(true), "{key}: {value}");
                }
            }
            "nin" => {
                if let Some(v) = first {
                    assert_eq!(keeps(v), Some(false), "{key}: {value}");
                }
            }
            _ => {
                // regex, iregex: the value is the pattern; no panic on any
                // field, and a literal pattern of a text keeps that text.
                let _ = keeps(value.clone());
                let lit =
                    Map::from_iter([(key.clone(), Value::String(regex_literal(&text_of(value))))]);
                if let Ok(f) = Filters::parse(&as_map(&lit)) {
                    let kept = f.apply(vec![json!({ field: value.clone() })]);
                    assert_eq!(kept.map(|k| k.len()).ok(), Some(1), "{key}: {value}");
                }
            }
        }
    }
}

/// The first line of `out` that is exactly `line` (without its `\n`, and
/// followed by one): what follows it.
pub fn after_line<'a>(out: &'a [u8], line: &[u8]) -> Option<&'a [u8]> {
    let mut at = 0;
    for l in out.split(|&b| b == b'\n') {
        let end = at + l.len();
        if end < out.len() && l == line {
            return Some(&out[end + 1..]);
        }
        at = end + 1;
    }
    None
}

/// What a remote host answers a one-shot (`wire::ssh::script`), untrusted:
/// the banner (`TWREADY <nonce>`) is taken only as a whole line carrying
/// our nonce, the first such line, never one with another nonce or inside
/// a longer line; start-up chatter before it never shows in the answer;
/// read as the output grows (as a channel reads it), the banner is found
/// once and what follows only grows. `parse_probe` never panics, and reads
/// what the probe line prints (`os`, `bin`, `srv` lines from any field
/// text) as those fields.
///
/// Input: any output; also, NUL-separated: chatter, `uname -s`, `tmux -V`,
/// the server's answer, and a byte choosing the two exit statuses.
pub fn ssh_answer(data: &[u8]) {
    use tmuxwire::wire::ssh::script::{BANNER, Probe, after_banner, parse_probe};
    const NONCE: &str = "5eed0123456789ab";
    let banner = format!("{BANNER} {NONCE}");
    assert_eq!(
        after_banner(data, NONCE),
        after_line(data, banner.as_bytes())
    );
    for cut in [data.len() / 3, data.len() / 2, data.len().saturating_sub(1)] {
        if let Some(early) = after_banner(&data[..cut], NONCE) {
            let late = after_banner(data, NONCE).expect("found earlier");
            assert!(late.starts_with(early));
        }
    }
    let _ = parse_probe(&String::from_utf8_lossy(data));

    let mut parts = data.split(|&b| b == 0);
    let mut next = || String::from_utf8_lossy(parts.next().unwrap_or_default()).replace('\r', " ");
    let (chatter, os, bin, server) = (next(), next(), next(), next());
    let statuses = next().bytes().next().unwrap_or(0);
    let status = |s: u8| ["0", "1", "126", "127"][usize::from(s % 4)];
    let (br, sr) = (status(statuses), status(statuses >> 2));
    let (os, bin) = (os.replace('\n', " "), bin.replace('\n', " "));
    let server = if sr == "0" {
        server.replace('\n', " ")
    } else {
        server
    };
    let answer = format!("os {os}\nbin {br} {bin}\nsrv {sr} {server}\n");
    // Our banner after the chatter: the chatter never shows (unless it
    // holds our banner line itself, which it cannot know).
    let out = format!("{chatter}\n{banner}\n{answer}");
    if after_line(format!("{chatter}\n").as_bytes(), banner.as_bytes()).is_none() {
        assert_eq!(after_banner(out.as_bytes(), NONCE), Some(answer.as_bytes()));
    }
    // Another nonce's banner, or ours inside a line, is not ours.
    for forged in [
        format!("{BANNER} 5eed0123456789ac"),
        format!(" {banner}"),
        format!("{banner} "),
    ] {
        let out = format!("{chatter}\n{forged}\n{answer}");
        assert_eq!(
            after_banner(out.as_bytes(), NONCE),
            after_line(out.as_bytes(), banner.as_bytes())
        );
    }
    let want = {
        let binary = match (br, bin.strip_prefix("tmux ")) {
            ("0", Some(v)) => Ok(v.trim().to_string()),
            _ => Err(bin.trim().to_string()),
        };
        let rest = server.trim();
        let srv = match sr {
            "0" => rest
                .split_once(' ')
                .and_then(|(v, pid)| Some((v.to_string(), pid.trim().parse::<u32>().ok()?)))
                .map(Ok),
            _ => Some(Err(rest.to_string())),
        };
        srv.map(|server| Probe {
            os: os.trim().to_string(),
            binary,
            server,
        })
    };
    assert_eq!(parse_probe(&answer).ok(), want, "{answer:?}");
}

/// `display-message -p '<Seed::FORMAT>'` as tmux prints it for `s`.
pub fn seed_formats_line(s: &tmuxwire::term::Seed) -> String {
    let (sx, sy) = s.alternate_saved.unwrap_or((u32::MAX, u32::MAX));
    let tabs: Vec<String> = s.tabs.iter().map(u32::to_string).collect();
    format!(
        "{},{},{},{},{},{},{},{sx},{sy},{},{},{},{},{};{}\n",
        s.width,
        s.height,
        s.cursor_x,
        s.cursor_y,
        s.history_size,
        s.history_limit,
        u8::from(s.alternate_on),
        s.scroll_region.0,
        s.scroll_region.1,
        u8::from(s.wrap),
        u8::from(s.insert),
        u8::from(s.origin),
        tabs.join(",")
    )
}

/// The seed's readers of tmux's answers (`term::Seed`): the formats line
/// (`parse_formats`) never panics, accepts only a size tmux can have and a
/// scroll region inside it, and reads back what it accepted when written
/// as tmux prints it; `from_captures` on any captures never panics, and a
/// `Term` it makes has the formats' size and history and keeps its
/// invariants.
///
/// Input: NUL-separated: the formats line, rows, joined, screen rows,
/// history as lines, saved rows, saved joined, pending bytes, then a
/// flags byte (bit 0: rows with `-F` flags; bit 1: screen rows apart;
/// bit 2: history as lines; bits 3–4: rules). Sizes past 64×16 with 256
/// history rows are skipped (the cost of a test, not a limit of the
/// reader).
pub fn seed_captures(data: &[u8]) {
    use tmuxwire::term::{Captures, LineIndex, Options, Rules, Seed};
    let first = data.split(|&b| b == 0).next().unwrap_or_default();
    let formats = String::from_utf8_lossy(first);
    let Ok(seed) = Seed::parse_formats(&formats) else {
        return;
    };
    assert!((1..=10_000).contains(&seed.width) && (1..=10_000).contains(&seed.height));
    let (upper, lower) = seed.scroll_region;
    assert!((upper < lower || seed.height == 1) && lower < seed.height);
    let line = seed_formats_line(&seed);
    assert_eq!(Seed::parse_formats(&line).as_ref(), Ok(&seed), "{line:?}");
    if seed.width > 64 || seed.height > 16 || seed.history_size > 256 {
        return;
    }
    let mut parts = data.split(|&b| b == 0).skip(1);
    let mut next = || parts.next().unwrap_or_default();
    let (rows, joined, screen, lines) = (next(), next(), next(), next());
    let (saved_rows, saved_joined, pending) = (next(), next(), next());
    let flags = next().first().copied().unwrap_or(0);
    let rules = [Rules::V33, Rules::V34, Rules::V36, Rules::V36][usize::from(flags >> 3 & 3)];
    let c = Captures {
        formats: &formats,
        rows,
        screen_rows: (flags & 2 != 0).then_some(screen),
        rows_have_flags: flags & 1 != 0,
        joined,
        history_joined: (flags & 4 != 0).then_some(lines),
        saved_rows,
        saved_joined,
        pending,
        // A seed of the screen only: the history's rows counted, not read.
        history_absent: flags & 0x20 != 0,
    };
    let Ok(t) = Seed::from_captures(&c, rules, Options::default(), LineIndex(5)) else {
        return;
    };
    assert_eq!(t.size(), (seed.width, seed.height));
    assert_eq!(t.history_size() + t.history_absent(), seed.history_size);
    if seed.cursor_x > seed.width {
        // tmux can leave the cursor past the right edge after a resize
        // (screen.c `screen_resize_cursor()`), and so does the copy: not
        // a state a `Term` reaches by output, so its invariants allow none.
        return;
    }
    if let Err(e) = t.check_invariants() {
        panic!("seeded from {c:?}: invariant broken: {e}");
    }
}

/// The one `capture-pane -e` reader (`term::strip_row`, and
/// `term::plain_capture` on whole captures): on any rows, never a panic,
/// no SO/SI out, at most three bytes out per byte in, the same text and
/// SO state as a byte-by-byte reading; `plain_capture` is the rows read
/// with line drawing and trimmed, one line out per line in; rows built of
/// text and codes (SGR, OSC 8 with either terminator, SO/SI, another CSI)
/// read back as the text, letters between SO and SI drawn when asked.
///
/// Input: byte 0 = flags (bit 0 line drawing, bit 1 trim, bit 2 shifted
/// at the start); then the rows, `\n`-separated (also read as text and
/// codes: bytes 0xF8–0xFF are codes; ESC, SO, SI and `\n` are skipped).
pub fn capture_strip(data: &[u8]) {
    use tmuxwire::term::{plain_capture, strip_row};
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let (acs, trim, start) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
    // One byte as a shifted cell reads (the table is unit-tested).
    let drawn = |c: u8| {
        let mut out = Vec::new();
        strip_row(&[0x0e, c], true, false, &mut false, &mut out);
        out
    };
    let trimmed = |mut v: Vec<u8>| {
        while trim && v.last() == Some(&b' ') {
            v.pop();
        }
        v
    };
    let (mut shifted, mut model) = (start, start);
    let (mut plain, mut plain_shifted) = (Vec::new(), false);
    for row in body.split(|&b| b == b'\n') {
        let mut out = Vec::new();
        strip_row(row, acs, trim, &mut shifted, &mut out);
        assert!(!out.contains(&0x0e) && !out.contains(&0x0f));
        assert!(out.len() <= 3 * row.len());
        // Byte by byte: SO, SI, `ESC [` to a final byte, `ESC ]` to BEL or
        // `ESC \`, each cut off by the row's end; the rest is text.
        let mut want = Vec::new();
        let mut i = 0;
        while i < row.len() {
            let end = match (row[i], row.get(i + 1)) {
                (0x0e | 0x0f, _) => i + 1,
                (0x1b, Some(b'[')) => (i + 2..row.len())
                    .find(|&j| (0x40..=0x7e).contains(&row[j]))
                    .map_or(row.len(), |j| j + 1),
                (0x1b, Some(b']')) => (i + 2..row.len())
                    .find(|&j| row[j] == 0x07 || (row[j] == 0x1b && row.get(j + 1) == Some(&b'\\')))
                    .map_or(row.len(), |j| j + if row[j] == 0x07 { 1 } else { 2 }),
                (c, _) => {
                    if model && acs {
                        want.extend_from_slice(&drawn(c));
                    } else {
                        want.push(c);
                    }
                    i += 1;
                    continue;
                }
            };
            match row[i] {
                0x0e => model = true,
                0x0f => model = false,
                _ => {}
            }
            i = end;
        }
        assert_eq!(shifted, model, "SO state after {row:?}");
        assert_eq!(out, trimmed(want), "{row:?}");
        strip_row(row, true, true, &mut plain_shifted, &mut plain);
        plain.push(b'\n');
    }
    // `split` gives one more piece than there are `\n`s.
    plain.pop();
    if !body.iter().any(|b| matches!(b, 0x1b | 0x0e | 0x0f)) {
        assert_eq!(plain_capture(body), body);
    } else {
        assert_eq!(plain_capture(body), plain);
    }

    // A row built of text and codes.
    let (mut row, mut text, mut on) = (Vec::new(), Vec::new(), start);
    for &b in body {
        match b {
            0xf8 | 0xff => {
                row.push(0x0e);
                on = true;
            }
            0xf9 => {
                row.push(0x0f);
                on = false;
            }
            0xfa => row.extend_from_slice(b"\x1b[0m"),
            0xfb => row.extend_from_slice(b"\x1b[1;38;5;196;48;2;1;2;3m"),
            0xfc => row.extend_from_slice(b"\x1b]8;id=1;http://x/q?l=k\x1b\\"),
            0xfd => row.extend_from_slice(b"\x1b]8;;\x07"),
            0xfe => row.extend_from_slice(b"\x1b[?25h"),
            0x1b | 0x0e | 0x0f | b'\n' => {}
            c => {
                row.push(c);
                if on && acs {
                    text.extend_from_slice(&drawn(c));
                } else {
                    text.push(c);
                }
            }
        }
    }
    let (mut out, mut s) = (Vec::new(), start);
    strip_row(&row, acs, trim, &mut s, &mut out);
    assert_eq!(s, on);
    assert_eq!(out, trimmed(text), "{row:?}");
}
