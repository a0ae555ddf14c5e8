//! Throughput of `tmuxwire::search` over ~32 MiB of terminal-like text.
//!
//! The corpus is synthetic and deterministic (a fixed `fastrand` seed): log
//! lines, cargo output, shell prompts, long JSON lines, CJK text, and a
//! rare needle (`segfault at 0x...`) about every 2 MiB. It is built in
//! memory at start-up, so no data files are needed.
//!
//! Bench ids are `model/case/engine` (engine: `memmem`, `fold` for the
//! case-insensitive literal prefilter, `meta` for the regex engine):
//!
//! * `lines/*`: `Pattern::find_lines` (the real API: search, map to lines,
//!   count line numbers).
//! * `raw/*`: bare `memchr` routines over the same bytes, for comparison.
//!   `raw/memchr-never` (a byte that never occurs) is the memory-bandwidth
//!   floor a single-pass search can reach.
//!
//! Run: `cargo bench --bench search` (about a minute; add `-- --quick` for
//! a rougher, faster run).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tmuxwire::search::{Pattern, PatternOptions};

#[path = "common/corpus.rs"]
mod corpus;
use corpus::RARE;

/// The corpus size to reach, in bytes.
const CORPUS_BYTES: usize = 32 << 20;

/// Compiles a pattern the benches know to be valid.
fn pattern(text: &str, regex: bool, case_sensitive: bool) -> Pattern {
    match Pattern::new(
        text,
        PatternOptions {
            regex,
            case_sensitive,
        },
    ) {
        Ok(p) => p,
        Err(e) => panic!("{text:?}: {e}"),
    }
}

fn search(c: &mut Criterion) {
    let hay = corpus::corpus(CORPUS_BYTES);
    let lines = memchr::memchr_iter(b'\n', &hay).count();
    let mut group = c.benchmark_group("search-32mib");
    group.throughput(Throughput::Bytes(hay.len() as u64));

    let cases = [
        ("lines/literal-rare/memmem", pattern(RARE, false, true)),
        (
            "lines/literal-never/memmem",
            pattern("zebra-unicorn", false, true),
        ),
        (
            "lines/literal-common/memmem",
            pattern("status=500", false, true),
        ),
        (
            "lines/literal-ci-rare/fold",
            pattern("SEGFAULT AT 0X", false, false),
        ),
        // The same search by the regex engine alone (what the fold
        // prefilter replaced).
        (
            "lines/literal-ci-rare/meta",
            pattern("SEGFAULT AT 0X", true, false),
        ),
        (
            "lines/regex-literal-prefix/meta",
            pattern(r"status=5\d\d took \d+ms", true, true),
        ),
        (
            "lines/regex-no-literal/meta",
            pattern("[A-Z]{3}[0-9]{4}", true, true),
        ),
    ];
    for (name, pat) in &cases {
        eprintln!(
            "{name}: {} matching lines of {lines} (memmem: {})",
            pat.find_lines(&hay).len(),
            pat.is_literal_fast_path(),
        );
        group.bench_function(*name, |b| {
            b.iter(|| black_box(pat.find_lines(black_box(&hay))).len())
        });
    }

    group.bench_function("raw/memchr-never", |b| {
        b.iter(|| memchr::memchr(black_box(0x01), black_box(&hay)))
    });
    group.bench_function("raw/newline-count", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(&hay)).count())
    });
    let finder = memchr::memmem::Finder::new(RARE);
    group.bench_function("raw/memmem-rare", |b| {
        b.iter(|| finder.find_iter(black_box(&hay)).count())
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = search
}
criterion_main!(benches);
