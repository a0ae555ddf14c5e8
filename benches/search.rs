//! Throughput of `tmuxwire::search` over ~32 MiB of terminal-like text.
//!
//! The corpus is synthetic and deterministic (a fixed xorshift seed): log
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
use tmuxwire::search::{Pattern, PatternOptions};

/// The corpus size to reach, in bytes.
const CORPUS_BYTES: usize = 32 << 20;

/// The rare needle planted in the corpus.
const RARE: &str = "segfault at 0x";

/// A small deterministic PRNG (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

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

    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(CORPUS_BYTES + 4096);
    let mut next_rare = 1 << 21;
    while out.len() < CORPUS_BYTES {
        let r = rng.below(100);
        // Writing to a Vec cannot fail.
        let _ = if out.len() >= next_rare {
            next_rare += 1 << 21;
            writeln!(
                out,
                "[{:>6}.{:06}] app[{}]: {RARE}{:012x} ip {:016x} sp {:016x} error 4 in libc.so.6",
                rng.below(100_000),
                rng.below(1_000_000),
                rng.below(65_536),
                rng.next() & 0xffff_ffff_ffff,
                rng.next(),
                rng.next(),
            )
        } else if r < 55 {
            let status = if rng.below(20) == 0 {
                500 + rng.below(4)
            } else {
                200
            };
            writeln!(
                out,
                "2026-05-20T12:{:02}:{:02}.{:03}Z {:<5} http: request id={:08x} path={}/{} status={status} took {}ms",
                rng.below(60),
                rng.below(60),
                rng.below(1000),
                LEVELS[rng.below(8) as usize],
                rng.next() as u32,
                PATHS[rng.below(4) as usize],
                rng.below(10_000),
                rng.below(2_000),
            )
        } else if r < 70 {
            writeln!(
                out,
                "   Compiling crate-{} v0.{}.{} (/home/user/src/crate-{})",
                rng.below(500),
                rng.below(20),
                rng.below(20),
                rng.below(500),
            )
        } else if r < 80 {
            writeln!(
                out,
                "user@host:~/src/project$ {}",
                CMDS[rng.below(5) as usize]
            )
        } else if r < 90 {
            writeln!(
                out,
                "{{\"ts\":\"2026-05-20T12:00:{:02}Z\",\"level\":\"debug\",\"target\":\"app::db\",\
                 \"msg\":\"query done\",\"rows\":{},\"elapsed_ms\":{},\"tags\":[\"pool\",\"read\"],\
                 \"sql\":\"select * from items where id = $1\"}}",
                rng.below(60),
                rng.below(1000),
                rng.below(100),
            )
        } else if r < 97 {
            writeln!(
                out,
                "{}: {} 件 ({} 秒)",
                CJK[rng.below(4) as usize],
                rng.below(999),
                rng.below(60)
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
