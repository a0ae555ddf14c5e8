//! Ingest throughput of `tmuxwire::term::Term`: bytes of pane output
//! parsed into a 200×50 pane with 2,000 rows of history, as the mirror
//! feeds `%output`.
//!
//! The corpora are synthetic and deterministic (a fixed `fastrand` seed),
//! built in memory at start-up, 16 MiB each:
//!
//! * `ingest/ascii-logs`: log lines of printable ASCII, `\r\n` ended
//!   (the fast path: runs of printable ASCII in the ground state).
//! * `ingest/mixed`: logs with SGR colours, CJK, emoji with VS16, ZWJ
//!   and skin tones, combining marks, tabs, progress lines redrawn with
//!   CR and EL, and an occasional cursor jump.
//! * `ingest/cursor-heavy`: a full-screen program redrawing: CUP to a
//!   row, SGR, a field of text, EL, over and over (no scrolling).
//!
//! Bench ids are `model/corpus`. Run: `cargo bench --bench grid` (add
//! `-- --quick` for a rougher, faster run).

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};
use fastrand::Rng;
use tmuxwire::term::{Captures, LineIndex, Options, Rules, Seed, Term};

/// The size of each corpus in bytes.
const CORPUS_BYTES: usize = 16 << 20;

const LEVELS: [&str; 6] = ["INFO", "INFO", "DEBUG", "WARN", "INFO", "ERROR"];
const PATHS: [&str; 4] = [
    "/api/v1/items",
    "/api/v1/users",
    "/healthz",
    "/static/app.js",
];

fn log_line(rng: &mut Rng, out: &mut Vec<u8>) {
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        "2026-05-20T12:{:02}:{:02}.{:03}Z {:<5} http: request id={:08x} path={}/{} status={} took {}ms\r\n",
        rng.u64(..60),
        rng.u64(..60),
        rng.u64(..1000),
        LEVELS[rng.usize(..LEVELS.len())],
        rng.u32(..),
        PATHS[rng.usize(..PATHS.len())],
        rng.u64(..10_000),
        if rng.u8(..20) == 0 { 500 } else { 200 },
        rng.u64(..2_000),
    );
}

fn ascii_logs() -> Vec<u8> {
    let mut rng = Rng::with_seed(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(CORPUS_BYTES + 256);
    while out.len() < CORPUS_BYTES {
        log_line(&mut rng, &mut out);
    }
    out
}

fn mixed() -> Vec<u8> {
    const CJK: [&str; 4] = [
        "ビルドが完了しました",
        "构建成功，耗时",
        "테스트 통과",
        "処理中のファイル",
    ];
    const EMOJI: [&str; 6] = ["✅", "❤️", "👍🏽", "👨‍👩‍👧", "🇫🇷", "🚀"];
    let mut rng = Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(CORPUS_BYTES + 256);
    while out.len() < CORPUS_BYTES {
        let _ = match rng.u32(..100) {
            0..=49 => {
                let colour = 31 + rng.u32(..7);
                let _ = write!(out, "\x1b[{colour}m");
                log_line(&mut rng, &mut out);
                write!(out, "\x1b[m")
            }
            50..=64 => write!(
                out,
                "{}: {} 件 ({} 秒) {}\r\n",
                CJK[rng.usize(..CJK.len())],
                rng.u64(..999),
                rng.u64(..60),
                EMOJI[rng.usize(..EMOJI.len())]
            ),
            65..=72 => write!(
                out,
                "\x1b[1;32m✔\x1b[0m test {} ... ok {}\r\n",
                rng.u64(..100_000),
                EMOJI[rng.usize(..EMOJI.len())]
            ),
            73..=80 => write!(
                out,
                "name\tsize\tmtime\r\nfile{}\t{}\t2026-05-20\r\n",
                rng.u64(..99),
                rng.u64(..1 << 20)
            ),
            81..=88 => {
                for p in (0..=100).step_by(25) {
                    let _ = write!(out, "\r\x1b[K[{:<20}] {p}%", "#".repeat(p / 5));
                }
                write!(out, "\r\n")
            }
            89..=93 => write!(
                out,
                "caf\u{e9} na\u{ef}ve re\u{301}sume\u{301} Z\u{335}\u{31b}\u{327}\r\n"
            ),
            _ => write!(
                out,
                "\x1b7\x1b[1;{}H\x1b[7m {} \x1b[m\x1b8",
                rng.u32(1..150),
                rng.u64(..1000)
            ),
        };
    }
    out
}

fn cursor_heavy() -> Vec<u8> {
    let mut rng = Rng::with_seed(0xD1B5_4A32_D192_ED03);
    let mut out = Vec::with_capacity(CORPUS_BYTES + 256);
    while out.len() < CORPUS_BYTES {
        let _ = write!(
            out,
            "\x1b[{};{}H\x1b[{}m{:>6} {:<5.1}% {:>8}K\x1b[m\x1b[K",
            rng.u32(1..=50),
            rng.u32(1..=120),
            [0, 1, 7, 32, 33][rng.usize(..5)],
            rng.u32(..100_000),
            rng.f32() * 100.0,
            rng.u32(..1_000_000),
        );
    }
    out
}

fn ingest(c: &mut Criterion) {
    let corpora = [
        ("ascii-logs", ascii_logs()),
        ("mixed", mixed()),
        ("cursor-heavy", cursor_heavy()),
    ];
    let mut group = c.benchmark_group("ingest");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, data) in &corpora {
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut t = Term::new(200, 50, Rules::V36, Options::default());
                // Fed in 64 KiB pieces, like %output blocks.
                for piece in data.chunks(64 << 10) {
                    t.advance(black_box(piece));
                }
                black_box(t.history_size())
            })
        });
    }
    group.finish();
}

/// The captures of a 120×50 pane with `rows` rows of history as tmux
/// 3.5 answers a seed (`-e -N -T` rows with some SGR, `-J` into a
/// buffer): every tenth line is long enough to wrap once.
fn seed_captures(rows: usize) -> (String, Vec<u8>, Vec<u8>) {
    let mut rng = Rng::with_seed(0x5EED_0000_0000_0001);
    let (width, height) = (120usize, 50usize);
    let mut out = Vec::new();
    let mut joined = Vec::new();
    let mut n = 0;
    while n < rows + height {
        let mut line = Vec::new();
        log_line(&mut rng, &mut line);
        line.truncate(line.len() - 2);
        if n % 10 == 0 {
            line.extend_from_slice(&line.clone()[..40]);
        }
        let chunks: Vec<&[u8]> = line.chunks(width).collect();
        for (i, c) in chunks.iter().enumerate() {
            if n >= rows + height {
                break;
            }
            if i == 0 && n % 7 == 0 {
                out.extend_from_slice(b"\x1b[31m");
                out.extend_from_slice(c);
                out.extend_from_slice(b"\x1b[39m");
            } else {
                out.extend_from_slice(c);
            }
            out.push(b'\n');
            joined.extend_from_slice(c);
            n += 1;
        }
        joined.push(b'\n');
    }
    let formats = format!(
        "{width},{height},0,49,{rows},{},0,4294967295,4294967295,0,49,1,0,0;8,16,24,32,40,48,56,64,72,80,88,96,104,112",
        rows + 10
    );
    (formats, out, joined)
}

/// `seed/100k-rows`: building a copy from the captures of a pane with
/// 100,000 rows of history (`Seed::from_captures`);
/// `seed/100k-rows-renumbered`: matching such a copy seeded again with
/// the one it replaces (`mirror::lines::continued_first`).
fn seed(c: &mut Criterion) {
    let (formats, rows, joined) = seed_captures(100_000);
    let mut group = c.benchmark_group("seed");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Bytes(rows.len() as u64));
    group.bench_function("100k-rows", |b| {
        b.iter(|| {
            let caps = Captures {
                formats: &formats,
                rows: &rows,
                joined: &joined,
                ..Captures::default()
            };
            let t = Seed::from_captures(&caps, Rules::V34, Options::default(), LineIndex(0))
                .expect("seed");
            black_box(t.history_size())
        })
    });
    // A copy seeded again numbers its lines on from the one it replaces
    // (`mirror::lines::continued_first`): both hold the same 100,000 rows.
    let build = || {
        let caps = Captures {
            formats: &formats,
            rows: &rows,
            joined: &joined,
            ..Captures::default()
        };
        Seed::from_captures(&caps, Rules::V34, Options::default(), LineIndex(0)).expect("seed")
    };
    let (old, new) = (build(), build());
    group.bench_function("100k-rows-renumbered", |b| {
        b.iter(|| black_box(tmuxwire::mirror::lines::continued_first(&old, &new)))
    });
    group.finish();
}

criterion_group!(benches, ingest, seed);

fn main() {
    // `GRID_ONCE=N`: ingest each corpus N x 5 times and print the best
    // throughput by the thread's own CPU time (Linux
    // `/proc/thread-self/schedstat`), which a busy machine disturbs less
    // than wall time. `GRID_CORPUS=NAME` limits it to one corpus.
    if let Some(n) = std::env::var("GRID_ONCE")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        let cpu_ns = || -> Option<u64> {
            std::fs::read_to_string("/proc/thread-self/schedstat")
                .ok()?
                .split(' ')
                .next()?
                .parse()
                .ok()
        };
        let only = std::env::var("GRID_CORPUS").ok();
        for (name, make) in [
            ("ascii-logs", ascii_logs as fn() -> Vec<u8>),
            ("mixed", mixed),
            ("cursor-heavy", cursor_heavy),
        ] {
            if only.as_deref().is_some_and(|o| o != name) {
                continue;
            }
            let data = make();
            // Batches of 5 ingests: the kernel may account CPU time in
            // scheduler ticks, too coarse for one 16 MiB ingest.
            const BATCH: usize = 5;
            let mut best = 0f64;
            for _ in 0..n.max(1) {
                let (start, wall) = (cpu_ns(), std::time::Instant::now());
                for _ in 0..BATCH {
                    let mut t = Term::new(200, 50, Rules::V36, Options::default());
                    for piece in data.chunks(64 << 10) {
                        t.advance(black_box(piece));
                    }
                    black_box(t.history_size());
                }
                let secs = match (start, cpu_ns()) {
                    (Some(a), Some(b)) => (b - a) as f64 / 1e9,
                    _ => wall.elapsed().as_secs_f64(),
                };
                best = best.max((BATCH * data.len()) as f64 / secs);
            }
            println!(
                "{name}: {:.0} MB/s = {:.0} MiB/s (CPU time, best of {n} x {BATCH})",
                best / 1e6,
                best / (1 << 20) as f64
            );
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
