//! The corpus (`tests/data/redact/`): real-looking secrets masked exactly,
//! near misses untouched, key blocks over lines; and the properties the
//! fuzz target checks, on it.

use super::*;

const SECRETS: &str = include_str!("../../tests/data/redact/secrets.txt");
const NEAR_MISSES: &str = include_str!("../../tests/data/redact/near-misses.txt");
const BLOCKS: &str = include_str!("../../tests/data/redact/blocks.txt");

/// `marked` without its `⟦…⟧` marks, and with each marked part replaced
/// by the marker of the next of `kinds` (the last one repeats).
fn unmark(marked: &str, kinds: &[Kind]) -> (String, String) {
    let mut input = String::new();
    let mut expected = String::new();
    let mut rest = marked;
    let mut k = 0;
    while let Some(open) = rest.find('⟦') {
        let close = rest[open..]
            .find('⟧')
            .map(|c| open + c)
            .expect("a closing mark");
        input.push_str(&rest[..open]);
        expected.push_str(&rest[..open]);
        input.push_str(&rest[open + '⟦'.len_utf8()..close]);
        expected.push_str(kinds[k.min(kinds.len() - 1)].marker());
        k += 1;
        rest = &rest[close + '⟧'.len_utf8()..];
    }
    input.push_str(rest);
    expected.push_str(rest);
    (input, expected)
}

fn kind_named(name: &str) -> Kind {
    Kind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .unwrap_or_else(|| panic!("no kind {name}"))
}

fn cases(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
}

#[test]
fn rules_compile() {
    assert!(check_rules().is_ok());
    assert!(rules::compiled().is_some());
    for k in Kind::ALL {
        assert_eq!(k.marker(), format!("[REDACTED:{}]", k.name()));
    }
}

#[test]
fn secrets_are_masked() {
    let mut n = 0;
    let mut seen = std::collections::HashSet::new();
    for line in cases(SECRETS) {
        let (kinds, marked) = line.split_once('\t').expect("KINDS<TAB>TEXT");
        let kinds: Vec<Kind> = kinds.split(',').map(kind_named).collect();
        let (input, expected) = unmark(marked, &kinds);
        let (got, counts) = redact(&input);
        assert_eq!(got, expected, "{input}");
        assert_eq!(
            counts.total(),
            marked.matches('⟦').count() as u64,
            "{input}"
        );
        for k in &kinds {
            assert!(counts.get(*k) > 0, "{input}: {counts:?}");
            seen.insert(*k);
        }
        n += 1;
    }
    assert!(n >= 70, "{n} cases");
    // Every one-line kind has a case.
    for k in Kind::ALL {
        if !matches!(
            k,
            Kind::AtlassianToken | Kind::OnepasswordToken | Kind::PrivateKey
        ) {
            assert!(seen.contains(&k), "no case for {}", k.name());
        }
    }
}

#[test]
fn near_misses_are_untouched() {
    let mut n = 0;
    for line in cases(NEAR_MISSES) {
        let (got, counts) = redact(line);
        assert_eq!(got, line, "{counts:?}");
        assert!(matches!(got, Cow::Borrowed(_)));
        n += 1;
    }
    assert!(n >= 50, "{n} cases");
}

/// The cases of `blocks.txt`: name, keys counted, lines.
fn block_cases() -> Vec<(&'static str, u64, Vec<&'static str>)> {
    let mut out: Vec<(&str, u64, Vec<&str>)> = Vec::new();
    for line in BLOCKS.lines().filter(|l| !l.starts_with('#')) {
        if let Some(h) = line.strip_prefix("=== ") {
            let (name, n) = h.rsplit_once(" (").expect("NAME (N)");
            let n = n.trim_end_matches(')').parse().expect("a count");
            out.push((name, n, Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.2.push(line);
        }
    }
    out
}

#[test]
fn key_blocks_are_masked_whole_or_cut() {
    let cases = block_cases();
    assert!(cases.len() >= 12);
    for (name, keys, lines) in cases {
        let marked = lines.join("\n");
        let (input, expected) = unmark(&marked, &[Kind::PrivateKey]);
        let (got, counts) = redact(&input);
        assert_eq!(got, expected, "{name}");
        assert_eq!(counts.get(Kind::PrivateKey), keys, "{name}");
        // The same a line at a time, and as an array of lines.
        let mut r = LineRedactor::new();
        let mut out: Vec<String> = Vec::new();
        for l in input.split('\n') {
            r.push(l.as_bytes(), |x| {
                out.push(String::from_utf8_lossy(x).into_owned())
            });
        }
        r.finish(|x| out.push(String::from_utf8_lossy(x).into_owned()));
        assert_eq!(out.join("\n"), expected, "{name}: streamed");
        assert_eq!(r.counts().get(Kind::PrivateKey), keys, "{name}: streamed");
        let rows: Vec<&str> = input.split('\n').collect();
        let per_row = find_in_lines(&rows);
        let joined: Vec<String> = rows
            .iter()
            .zip(&per_row)
            .map(|(r, s)| apply_str(r, s))
            .collect();
        assert_eq!(joined.join("\n"), expected, "{name}: as lines");
        fuzz_redact(input.as_bytes());
    }
}

#[test]
fn corpus_keeps_the_fuzz_properties() {
    for line in cases(SECRETS).chain(cases(NEAR_MISSES)) {
        fuzz_redact(line.as_bytes());
    }
    fuzz_redact(SECRETS.as_bytes());
    fuzz_redact(BLOCKS.as_bytes());
}

#[test]
fn a_search_may_match_only_outside_secrets() {
    let line = "x token=ghp_0123456789abcdefghijABCDEFGHIJklmnopqr y";
    let spans = find(line.as_bytes());
    assert_eq!(spans.len(), 1);
    assert_eq!(clear_parts(line.len(), &spans), [0..8, 50..52]);
    assert_eq!(clear_parts(3, &[]), vec![Range { start: 0, end: 3 }]);
    let whole = Span {
        range: 0..3,
        kind: Kind::Secret,
        counted: true,
    };
    assert!(clear_parts(3, &[whole]).is_empty());
}

#[test]
fn edges() {
    assert_eq!(redact("").0, "");
    assert!(find(b"\n\n\n").is_empty());
    // Not UTF-8 around a secret: bytes kept.
    let (b, c) = redact_bytes(b"\xff token=abcdefgh1234 \xfe");
    assert_eq!(b.as_ref(), b"\xff token=[REDACTED:secret] \xfe");
    assert_eq!(c.total(), 1);
    // A secret followed by more on the line; two on one line.
    let (t, c) = redact("a=1 password=x1 secret=abcdefghij tail");
    assert_eq!(
        t,
        "a=1 password=[REDACTED:password] secret=[REDACTED:secret] tail"
    );
    assert_eq!(c.total(), 2);
    // A placeholder's provider token is still masked.
    let (t, _) = redact("password=$ghp_0123456789abcdefghijABCDEFGHIJklmnopqr");
    assert_eq!(t, "password=$[REDACTED:github-token]");
    // The masked markers never match again.
    assert!(find(b"[REDACTED:github-token] password=[REDACTED:password]").is_empty());
}

/// Rows cut by soft wraps: a secret split over full rows is found and
/// masked in each row; whole lines are never joined.
#[test]
fn secrets_split_by_a_soft_wrap() {
    let token = "ghp_0123456789abcdefghijABCDEFGHIJklmnopqr";
    let line = format!("$ echo {token} done");
    let rows: Vec<&str> = vec![&line[..20], &line[20..40], &line[40..]];
    let text = format!("$ ls\n{}\n$ ", rows.join("\n"));
    let (got, counts) = redact_rows(&text, 20);
    assert_eq!(
        got,
        "$ ls\n$ echo [REDACTED:github-token]\n[REDACTED:github-token]\n[REDACTED:github-token] done\n$ "
    );
    assert_eq!(counts.total(), 1);
    // As lines, or rows of another width: not joined.
    assert_eq!(find(text.as_bytes()), []);
    assert_eq!(find_rows(text.as_bytes(), 21), []);
    // A JWT over three rows of 40, as text and as an array of rows.
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV";
    let rows: Vec<String> = jwt
        .as_bytes()
        .chunks(40)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    let joined = rows.join("\n");
    let (got, counts) = redact_rows(&joined, 40);
    assert!(!got.contains("eyJ"), "{got}");
    assert_eq!(counts.get(Kind::Jwt), 1);
    let spans = find_in_rows(&rows, 40);
    assert!(spans.iter().all(|s| !s.is_empty()));
    // Wide characters fill a row in fewer characters.
    let cjk = format!("{}{}", "中".repeat(5), &token[..10]);
    let text = format!("{cjk}\n{}", &token[10..]);
    assert_eq!(redact_rows(&text, 20).1.total(), 1);
}

/// The corpus as one text, as a pane prints it (near misses, secrets, a
/// key): exactly the marked parts are masked, the key counted once.
#[test]
fn the_corpus_as_one_text() {
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for l in cases(NEAR_MISSES) {
        input.push(l.to_string());
        expected.push(l.to_string());
    }
    let mut marked = 0;
    for line in cases(SECRETS) {
        let (kinds, text) = line.split_once('\t').expect("KINDS<TAB>TEXT");
        let kinds: Vec<Kind> = kinds.split(',').map(kind_named).collect();
        let (i, e) = unmark(text, &kinds);
        marked += text.matches('⟦').count() as u64;
        input.push(i);
        expected.push(e);
    }
    let (_, _, key) = block_cases()
        .into_iter()
        .find(|(n, ..)| *n == "rsa whole")
        .expect("the rsa case");
    for l in key {
        let (i, e) = unmark(l, &[Kind::PrivateKey]);
        input.push(i);
        expected.push(e);
    }
    let text = input.join("\n");
    let (got, counts) = redact(&text);
    for (g, e) in got.lines().zip(&expected) {
        assert_eq!(g, e);
    }
    assert_eq!(counts.total(), marked + 1);
}
