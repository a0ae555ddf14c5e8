//! Searching mirrored panes: `tmuxwire::mirror::scan::scan` over 8 pane
//! copies holding 16 MiB of history each (128 MiB in all), against the
//! memory-bandwidth floor of one pass over the same bytes.
//!
//! The copies are [`Term`]s fed the benches' corpus (see
//! `common/corpus.rs`) as a program would write it (`\r\n` line ends) on a
//! 200-column pane, so long lines are soft-wrapped and the search works on
//! logical lines, as it does for live panes.
//!
//! Bench ids are `model/case`:
//!
//! * `scan/*`: [`scan`] over every copy (history chunks, then the screen),
//!   keeping the newest 500 matched lines per pane as `search_panes` does
//!   by default.
//! * `raw/*`: bare `memchr` routines over every copy's history chunks;
//!   `raw/memchr-never` (a byte that never occurs) is the floor.
//! * `snapshot/clone`: cloning every copy, as a search or capture does
//!   (under the pane's lock) before it scans: the longest the pane's
//!   output then waits for a reader. The history's sealed chunks are
//!   shared, so this copies the screens and the newest chunks only.
//!
//! Run: `cargo bench --bench mirror` (about a minute after ~2 s of set-up;
//! add `-- --quick` for a rougher, faster run).

use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tmuxwire::mirror::scan::scan;
use tmuxwire::search::{Pattern, PatternOptions};
use tmuxwire::term::{Options, Rules, Term};

#[path = "common/corpus.rs"]
mod corpus;
use corpus::RARE;

/// Pane copies searched.
const PANES: usize = 8;

/// History text per copy, in bytes.
const PANE_BYTES: usize = 16 << 20;

/// Matched lines kept per pane (`search_panes`' default).
const KEEP: usize = 500;

/// Builds one copy holding `text` (whole lines) in its history.
fn copy_of(text: &[u8]) -> Term {
    let opts = Options {
        history_limit: 1 << 20,
        ..Options::default()
    };
    let mut term = Term::new(200, 50, Rules::V36, opts);
    let mut out = Vec::with_capacity(text.len() + text.len() / 32);
    for line in text.split_inclusive(|&b| b == b'\n') {
        out.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
        out.extend_from_slice(b"\r\n");
    }
    term.advance(&out);
    term
}

/// Compiles a pattern the benches know to be valid.
fn pattern(text: &str, regex: bool) -> Pattern {
    let opts = PatternOptions {
        regex,
        case_sensitive: true,
    };
    match Pattern::new(text, opts) {
        Ok(p) => p,
        Err(e) => panic!("{text:?}: {e}"),
    }
}

fn mirror(c: &mut Criterion) {
    let text = corpus::corpus(PANES * PANE_BYTES);
    let mut copies = Vec::with_capacity(PANES);
    let mut rest = &text[..];
    for _ in 0..PANES {
        let cut = match memchr::memchr(b'\n', &rest[PANE_BYTES.min(rest.len() - 1)..]) {
            Some(i) => PANE_BYTES.min(rest.len() - 1) + i + 1,
            None => rest.len(),
        };
        copies.push(copy_of(&rest[..cut]));
        rest = &rest[cut..];
    }
    let chunks: Vec<&[u8]> = copies
        .iter()
        .flat_map(|t| t.history().search_chunks().map(|c| c.text))
        .collect();
    let bytes: usize = chunks.iter().map(|c| c.len()).sum();
    eprintln!(
        "{PANES} copies, {} MiB of history text in {} chunks",
        bytes >> 20,
        chunks.len()
    );

    let mut group = c.benchmark_group("mirror-128mib");
    group.throughput(Throughput::Bytes(bytes as u64));
    let never = AtomicBool::new(false);
    let cases = [
        ("scan/literal-rare", pattern(RARE, false)),
        ("scan/literal-never", pattern("zebra-unicorn", false)),
        ("scan/literal-common", pattern("status=500", false)),
        (
            "scan/regex-literal-prefix",
            pattern(r"status=5\d\d took \d+ms", true),
        ),
        ("scan/regex-no-literal", pattern("[A-Z]{3}[0-9]{4}", true)),
    ];
    for (name, pat) in &cases {
        let found: usize = copies
            .iter()
            .map(|t| scan(t, pat, None, KEEP, &never).count)
            .sum();
        eprintln!("{name}: {found} matching lines");
        group.bench_function(*name, |b| {
            b.iter(|| {
                copies
                    .iter()
                    .map(|t| scan(black_box(t), pat, None, KEEP, &never).count)
                    .sum::<usize>()
            })
        });
    }
    group.bench_function("snapshot/clone", |b| {
        b.iter(|| {
            copies
                .iter()
                .map(|t| black_box(t.clone()).history_size())
                .sum::<usize>()
        })
    });
    group.bench_function("raw/memchr-never", |b| {
        b.iter(|| {
            chunks
                .iter()
                .filter_map(|c| memchr::memchr(black_box(0x01), black_box(c)))
                .count()
        })
    });
    let finder = memchr::memmem::Finder::new(RARE);
    group.bench_function("raw/memmem-rare", |b| {
        b.iter(|| {
            chunks
                .iter()
                .map(|c| finder.find_iter(black_box(c)).count())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = mirror
}
criterion_main!(benches);
