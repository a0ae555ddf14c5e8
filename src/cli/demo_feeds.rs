//! The generated output the demo's panes print: a build log, a test log,
//! a service log and an access log, each with its needles placed and an
//! end marker, from a seeded generator.

use super::*;

/// One pane's output: the file its program `cat`s, and the file's text,
/// which ends with [`end_marker`].
pub(super) struct Feed {
    pub(super) file: &'static str,
    pub(super) text: String,
}

impl Feed {
    /// The feed of `file`: `text` and its [`end_marker`] line.
    fn ended(file: &'static str, mut text: String) -> Feed {
        let _ = writeln!(text, "{}", end_marker(file));
        Feed { file, text }
    }
}

/// The last line of a generated file: once a pane's screen shows it, tmux
/// has taken in everything before it.
pub(super) fn end_marker(file: &str) -> String {
    format!("== end of {file} ==")
}

/// The line that step 2 finds: [`WRAPPED`] starts [`WRAPPED_SPLIT`] cells
/// before the pane's right edge, so the wrap splits it. The colour codes
/// take no cells.
pub(super) fn wrapped_line() -> String {
    let head = "\x1b[1;31merror\x1b[0m: test billing::invoice::totals_match_receipt failed at \
                src/billing/invoice.rs:412:17: the ";
    format!("{head}{WRAPPED} (expected 1299.00, got 1290.00)")
}

/// A build log: compiler lines with colours, notes long enough to wrap,
/// and, near its end (on the screen), the [`wrapped_line`].
pub(super) fn build_log(rng: &mut Rng, lines: usize) -> Feed {
    const CRATES: [&str; 6] = [
        "serde",
        "tokio",
        "memchr",
        "regex-automata",
        "billing",
        "vte",
    ];
    let mut s = String::with_capacity(lines * 70);
    for i in 0..lines {
        let krate = CRATES[rng.usize(..CRATES.len())];
        let _ = match rng.u32(..40) {
            0 => writeln!(
                s,
                "    = note: the field `f{i}` of struct `Ledger` is never read, and neither is \
                 `g{}`; `#[warn(dead_code)]` is on by default in {krate}",
                rng.u32(..1000)
            ),
            1..=4 => writeln!(
                s,
                "\x1b[1;33mwarning\x1b[0m: unused variable `x{i}` in {krate}"
            ),
            5..=14 => writeln!(
                s,
                "\x1b[1;32m   Compiling\x1b[0m {krate} v0.{}.{}",
                rng.u32(..20),
                rng.u32(..9)
            ),
            _ => writeln!(
                s,
                "    \x1b[34m-->\x1b[0m src/{krate}/lib.rs:{}:{} (step {i})",
                rng.u32(..900),
                rng.u32(..80)
            ),
        };
    }
    s.push_str("running 212 tests\n");
    let _ = writeln!(s, "{}", wrapped_line());
    s.push_str("test result: FAILED. 211 passed; 1 failed\n");
    s.push_str("error: test failed, to rerun pass `-p billing --lib`\n");
    Feed::ended("build.log", s)
}

/// A test log: coloured results, and JSON events that wrap over three
/// rows.
pub(super) fn test_log(rng: &mut Rng, lines: usize) -> Feed {
    let mut s = String::with_capacity(lines * 50);
    for i in 0..lines {
        if i % 50 == 0 {
            let fields: String = (0..24)
                .map(|k| format!("\"k{k}\":{},", rng.u32(..1000)))
                .collect();
            let _ = writeln!(s, "{{\"event\":\"batch\",\"id\":{i},{fields}\"ok\":true}}");
        } else if rng.u32(..60) == 0 {
            let _ = writeln!(s, "test ledger::case_{i} ... \x1b[31mFAILED\x1b[0m");
        } else {
            let _ = writeln!(s, "test ledger::case_{i} ... \x1b[32mok\x1b[0m");
        }
    }
    Feed::ended("tests.log", s)
}

/// A service log with Japanese lines, and [`NEEDLE`] once, two fifths in.
pub(super) fn service_log(rng: &mut Rng, lines: usize) -> Feed {
    let mut s = String::with_capacity(lines * 70);
    for i in 0..lines {
        let stamp = format!(
            "2026-12-02T{:02}:{:02}:{:02}Z",
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60
        );
        if i == lines * 2 / 5 {
            let _ = writeln!(
                s,
                "{stamp} \x1b[33mWARN\x1b[0m {NEEDLE}: card declined twice"
            );
            continue;
        }
        let _ = match rng.u32(..30) {
            0 => writeln!(
                s,
                "{stamp} \x1b[31mERROR\x1b[0m connection refused by 10.0.0.{} (timeout 30 s)",
                rng.u32(..255)
            ),
            1..=5 => writeln!(
                s,
                "{stamp} INFO 作業 {i} 完了 (処理時間 {} ms、再試行 {} 回)",
                rng.u32(..500),
                rng.u32(..3)
            ),
            6..=9 => writeln!(s, "{stamp} INFO order {} paid", rng.u32(..100_000)),
            _ => writeln!(
                s,
                "{stamp} INFO GET /api/v1/items/{} 200 {} µs",
                rng.u32(..100_000),
                rng.u32(..900)
            ),
        };
    }
    Feed::ended("service.log", s)
}

/// An access log: short lines, and long user agents that wrap.
pub(super) fn access_log(rng: &mut Rng, lines: usize) -> Feed {
    let mut s = String::with_capacity(lines * 90);
    for i in 0..lines {
        let ua = if i % 10 == 0 {
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/131.0.0.0 Safari/537.36"
        } else {
            "curl/8.5.0"
        };
        let status = if rng.u32(..25) == 0 {
            "\x1b[31m500\x1b[0m"
        } else {
            "\x1b[32m200\x1b[0m"
        };
        let _ = writeln!(
            s,
            "10.0.{}.{} \"GET /検索?q=item{} HTTP/1.1\" {status} {} B {} ms \"{ua}\"",
            rng.u32(..8),
            rng.u32(..255),
            rng.u32(..100_000),
            rng.u32(..40_000),
            rng.u32(..90)
        );
    }
    Feed::ended("access.log", s)
}
