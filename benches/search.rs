//! Throughput of `tmuxwire::search` over ~32 MiB of terminal-like text.
//!
//! The corpus is synthetic and deterministic (a fixed `fastrand` seed): log
//! lines, cargo output, shell prompts, long JSON lines, CJK text, and a
//! rare needle (`segfault at 0x...`) about every 2 MiB. It is built in
//! memory at start-up, so no data files are needed.
//!
//! Bench ids are `model/case/engine`:
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
use fastrand::Rng;
use tmuxwire::search::{Pattern, PatternOptions};

/// The corpus size to reach, in bytes.
const CORPUS_BYTES: usize = 32 << 20;

/// The rare needle planted in the corpus.
const RARE: &str = "segfault at 0x";

/// Builds the corpus: `\n`-terminated logical lines, ~72 bytes on average.
fn corpus() -> Vec<u8> {
    use std::io::Write;

    const LEVELS: [&str; 8] = [
        "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN", "INFO", "ERROR",
    ];
    const PATHS: [&str; 4] = [
        "/api/v1/items",
        "/api/v1/users",
        "/healthz",
        "/static/app.js",
    ];
    const CMDS: [&str; 5] = [
        "git status",
        "ls -la",
        "cargo build --release",
        "vim src/main.rs",
        "make -j8",
    ];
    const CJK: [&str; 4] = [
        "ビルドが完了しました",
        "构建成功，耗时",
        "테스트 통과",
        "処理中のファイル",
    ];

    let mut rng = Rng::with_seed(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(CORPUS_BYTES + 4096);
    let mut next_rare = 1 << 21;
    while out.len() < CORPUS_BYTES {
        let r = rng.u64(..100);
        // Writing to a Vec cannot fail.
        let _ = if out.len() >= next_rare {
            next_rare += 1 << 21;
            writeln!(
                out,
                "[{:>6}.{:06}] app[{}]: {RARE}{:012x} ip {:016x} sp {:016x} error 4 in libc.so.6",
                rng.u64(..100_000),
                rng.u64(..1_000_000),
                rng.u64(..65_536),
                rng.u64(..) & 0xffff_ffff_ffff,
                rng.u64(..),
                rng.u64(..),
            )
        } else if r < 55 {
            let status = if rng.u64(..20) == 0 {
                500 + rng.u64(..4)
            } else {
                200
            };
            writeln!(
                out,
                "2026-05-20T12:{:02}:{:02}.{:03}Z {:<5} http: request id={:08x} path={}/{} status={status} took {}ms",
                rng.u64(..60),
                rng.u64(..60),
                rng.u64(..1000),
                LEVELS[rng.u64(..8) as usize],
                rng.u64(..) as u32,
                PATHS[rng.u64(..4) as usize],
                rng.u64(..10_000),
                rng.u64(..2_000),
            )
        } else if r < 70 {
            writeln!(
                out,
                "   Compiling crate-{} v0.{}.{} (/home/user/src/crate-{})",
                rng.u64(..500),
                rng.u64(..20),
                rng.u64(..20),
                rng.u64(..500),
            )
        } else if r < 80 {
            writeln!(
                out,
                "user@host:~/src/project$ {}",
                CMDS[rng.u64(..5) as usize]
            )
        } else if r < 90 {
            writeln!(
                out,
                "{{\"ts\":\"2026-05-20T12:00:{:02}Z\",\"level\":\"debug\",\"target\":\"app::db\",\
                 \"msg\":\"query done\",\"rows\":{},\"elapsed_ms\":{},\"tags\":[\"pool\",\"read\"],\
                 \"sql\":\"select * from items where id = $1\"}}",
                rng.u64(..60),
                rng.u64(..1000),
                rng.u64(..100),
            )
        } else if r < 97 {
            writeln!(
                out,
                "{}: {} 件 ({} 秒)",
                CJK[rng.u64(..4) as usize],
                rng.u64(..999),
                rng.u64(..60)
            )
        } else {
            writeln!(out)
        };
    }
    out
}

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
    let hay = corpus();
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
            "lines/literal-ci-rare/meta",
            pattern("SEGFAULT AT 0X", false, false),
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
