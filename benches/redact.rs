//! The cost of `--redact`: `tmuxwire::redact` over 8 MiB of terminal-like
//! text, per MiB.
//!
//! The corpus is the search benches' (`common/corpus.rs`: log lines, cargo
//! output, shell prompts, long JSON lines, CJK text), as pane text is: it
//! holds no secret, so `clean` measures what every answer pays. `secrets`
//! is the same text with a line of the redaction corpus
//! (`tests/data/redact/secrets.txt`, marks removed) after every 100th
//! line, about one secret per 7 KiB, each masked.
//!
//! Bench ids are `model/case/engine`:
//!
//! * `redact/clean/rules`, `redact/secrets/rules`: [`redact::redact`] on the
//!   whole text (one-line rules and key blocks).
//! * `redact/clean/lines`: [`redact::LineRedactor`], a line at a time (what
//!   `tmuxwire capture --redact` does).
//! * `redact/clean/json`: [`redact::redact_value`] on the text as one JSON
//!   string (a `capture_pane` result) and as an array of lines.
//! * `raw/newline-count`: a `memchr` pass over the same bytes, the floor.
//!
//! Run: `cargo bench --bench redact` (add `-- --quick` for a rougher run).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tmuxwire::redact;

#[path = "common/corpus.rs"]
mod corpus;

/// The corpus size, in bytes.
const CORPUS_BYTES: usize = 8 << 20;

/// The corpus's secrets, their `⟦`/`⟧` marks removed.
fn secret_lines() -> Vec<String> {
    include_str!("../tests/data/redact/secrets.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(_, t)| t.replace(['⟦', '⟧'], ""))
        .collect()
}

fn bench(c: &mut Criterion) {
    let clean = String::from_utf8_lossy(&corpus::corpus(CORPUS_BYTES)).into_owned();
    let secrets = secret_lines();
    let mut mixed = String::with_capacity(clean.len() + clean.len() / 50);
    for (i, line) in clean.lines().enumerate() {
        mixed.push_str(line);
        mixed.push('\n');
        if i % 100 == 99 {
            mixed.push_str(&secrets[(i / 100) % secrets.len()]);
            mixed.push('\n');
        }
    }
    let (_, found) = redact::redact(&clean);
    eprintln!("clean: {} secrets in {} bytes", found.total(), clean.len());
    let (_, found) = redact::redact(&mixed);
    eprintln!(
        "secrets: {} secrets in {} bytes",
        found.total(),
        mixed.len()
    );

    let mut group = c.benchmark_group("redact-8mib");
    group.throughput(Throughput::Bytes(clean.len() as u64));
    group.bench_function("redact/clean/rules", |b| {
        b.iter(|| redact::redact(black_box(&clean)).1.total())
    });
    group.bench_function("redact/clean/lines", |b| {
        b.iter(|| {
            let mut r = redact::LineRedactor::new();
            let mut n = 0usize;
            for l in black_box(&clean).split('\n') {
                r.push(l.as_bytes(), |x| n += x.len());
            }
            r.finish(|x| n += x.len());
            n
        })
    });
    let one = serde_json::Value::String(clean.clone());
    group.bench_function("redact/clean/json", |b| {
        b.iter(|| {
            let mut v = one.clone();
            redact::redact_value(black_box(&mut v)).total()
        })
    });
    let rows = serde_json::Value::Array(
        clean
            .lines()
            .map(|l| serde_json::Value::String(l.to_string()))
            .collect(),
    );
    group.bench_function("redact/clean/json-lines", |b| {
        b.iter(|| {
            let mut v = rows.clone();
            redact::redact_value(black_box(&mut v)).total()
        })
    });
    group.bench_function("raw/newline-count", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(clean.as_bytes())).count())
    });
    group.throughput(Throughput::Bytes(mixed.len() as u64));
    group.bench_function("redact/secrets/rules", |b| {
        b.iter(|| redact::redact(black_box(&mixed)).1.total())
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
