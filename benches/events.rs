//! What following a pane for events costs the ingest: the same output fed
//! to a pane's copy as the mirror feeds `%output` (4 KiB pieces: the
//! parse, then the wake of waiters and observers), with the copy followed
//! by the event log's follower (`followed`) and not (`plain`).
//!
//! The follower runs on the runtime's other worker thread, as it does in
//! `tmuxwire mcp`: each piece wakes it, and it reads the copy's state
//! under the copy's read lock (the look, the diff, the `idle` and input
//! checks: `tmuxwire::tmux::op::events::bench_follow_one`), competing for
//! the lock with the feed.
//!
//! The corpus is log lines with colours and a title set every 64 lines
//! (so the follower has events to tell, which the per-pane rate cap then
//! holds), 16 MiB, into a 200×50 pane with 2,000 rows of history.
//!
//! Besides criterion's groups (run one after the other), the bench times
//! the two cases alternately in one loop (`plain`, `followed`, `plain`…,
//! 11 rounds) and prints the median ratio of the pairs, the figure to
//! compare with the goal (≤ 3 %).
//!
//! Run: `cargo bench --bench events` (add `-- --quick` for a rougher,
//! faster run).

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fastrand::Rng;
use tmuxwire::control::PaneId;
use tmuxwire::events::EventLog;
use tmuxwire::mirror::PaneMirror;
use tmuxwire::term::{Options, Rules, Term};

/// The corpus size.
const CORPUS_BYTES: usize = 16 << 20;

/// The size of one `%output` piece.
const PIECE: usize = 4096;

/// Alternated rounds for the printed ratio.
const ROUNDS: usize = 11;

fn corpus() -> Vec<u8> {
    let mut rng = Rng::with_seed(0x5851_F42D_4C95_7F2D);
    let mut out = Vec::with_capacity(CORPUS_BYTES + 256);
    let mut n = 0u64;
    while out.len() < CORPUS_BYTES {
        n += 1;
        if n.is_multiple_of(64) {
            let _ = write!(out, "\x1b]2;build step {n}\x07");
        }
        let _ = write!(
            out,
            "\x1b[{}m2026-05-20T12:{:02}:{:02} INFO request id={:08x} status={} took {}ms\x1b[m\r\n",
            31 + rng.u32(..7),
            rng.u64(..60),
            rng.u64(..60),
            rng.u32(..),
            if rng.u8(..20) == 0 { 500 } else { 200 },
            rng.u64(..2_000),
        );
    }
    out
}

fn copy() -> Arc<PaneMirror> {
    let opts = Options {
        history_limit: 2_000,
        ..Options::default()
    };
    PaneMirror::bench_live(PaneId(1), Term::new(200, 50, Rules::V36, opts))
}

/// Feeds `corpus` to a fresh copy, followed or not, on `rt`; the time of
/// the feed alone.
fn feed(rt: &tokio::runtime::Runtime, corpus: &[u8], followed: bool) -> Duration {
    let p = copy();
    // Observed from here on (before the feed begins).
    let follower = followed.then(|| {
        let log = Arc::new(EventLog::new());
        rt.spawn(tmuxwire::tmux::op::events::bench_follow_one(p.clone(), log))
    });
    let began = Instant::now();
    for piece in corpus.chunks(PIECE) {
        p.bench_feed(black_box(piece));
    }
    let took = began.elapsed();
    if let Some(f) = follower {
        f.abort();
    }
    took
}

fn bench(c: &mut Criterion) {
    let corpus = corpus();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("events-ingest");
    group.throughput(Throughput::Bytes(corpus.len() as u64));
    for (name, followed) in [("plain", false), ("followed", true)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| feed(&rt, &corpus, followed)).sum())
        });
    }
    group.finish();
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let plain = feed(&rt, &corpus, false);
            let followed = feed(&rt, &corpus, true);
            followed.as_secs_f64() / plain.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    eprintln!(
        "events-ingest alternated, {ROUNDS} rounds: followed/plain median {:.4} (min {:.4}, max {:.4})",
        ratios[ROUNDS / 2],
        ratios[0],
        ratios[ROUNDS - 1]
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
