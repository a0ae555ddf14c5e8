//! Throughput of the control-mode parser (`tmuxwire::control::Parser::feed`)
//! and of the imsg frame decoder (`tmuxwire::wire::imsg::decode`).
//!
//! The inputs are synthetic and deterministic (a fixed `fastrand` seed),
//! built in memory at start-up:
//!
//! * `control/capture-block-8mib`: one `capture-pane` answer block of
//!   ~8 MiB of terminal lines (~100 bytes each, some starting with `%`,
//!   including guard look-alikes such as `%end 1 2 1`), fed in 64 KiB
//!   chunks.
//! * `control/output-100k`: 100 000 `%output %N …` notifications with
//!   octal escapes (`\033[31m`, `\015\012`, `\134`), fed in 64 KiB chunks;
//!   each line is decoded into a `Notification::Output`.
//! * `control/small-blocks`: many small `list-panes`-style answer blocks
//!   (1–6 record lines each) with the odd `%window-add`/`%output`
//!   notification in between, fed in 64 KiB chunks.
//! * `imsg/decode-{old,new}`: `decode` over a buffer of many `MSG_WRITE`
//!   frames (payloads of 5 B–16 KiB), in both header layouts.
//!
//! Parser throughput is reported per input byte (criterion prints MiB/s
//! or GiB/s; 1 MiB/s = 1.048576 MB/s); imsg throughput per frame
//! (`decode` reads a header and borrows the payload, so bytes/s would only
//! measure the payload sizes chosen).
//!
//! Run: `cargo bench --bench control_parse` (about 30 s; add `-- --quick`
//! for a rougher, faster run).

use std::hint::black_box;
use std::io::Write;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fastrand::Rng;
use tmuxwire::control::{Event, Notification, Parser};
use tmuxwire::wire::imsg::{self, Framing};

/// The size of the chunks the parser is fed, as a socket read would.
const CHUNK: usize = 64 << 10;

/// One terminal line (without `\n`), ~100 bytes on average.
fn terminal_line(rng: &mut Rng, out: &mut Vec<u8>) {
    const WORDS: [&str; 8] = [
        "request",
        "handled",
        "cache",
        "miss",
        "GET",
        "/api/v1/items",
        "200",
        "ok",
    ];
    // Writing to a Vec cannot fail.
    let _ = match rng.u64(..100) {
        0..=59 => {
            let _ = write!(
                out,
                "2026-05-20T12:{:02}:{:02}.{:03}Z INFO  http: id={:08x} status=200 took {}ms",
                rng.u64(..60),
                rng.u64(..60),
                rng.u64(..1000),
                rng.u64(..) as u32,
                rng.u64(..2000),
            );
            for _ in 0..rng.u64(..4) {
                let _ = write!(out, " {}", WORDS[rng.u64(..8) as usize]);
            }
            Ok(())
        }
        60..=74 => write!(
            out,
            "   Compiling crate-{} v0.{}.{} (/home/user/src/workspace/crates/crate-{})",
            rng.u64(..500),
            rng.u64(..20),
            rng.u64(..20),
            rng.u64(..500),
        ),
        75..=84 => write!(
            out,
            "user@host:~/src/project$ cargo test --workspace -- --nocapture {}",
            rng.u64(..1000)
        ),
        85..=92 => write!(
            out,
            "{{\"ts\":\"2026-05-20T12:00:{:02}Z\",\"level\":\"debug\",\"msg\":\"query done\",\
             \"rows\":{},\"elapsed_ms\":{},\"tags\":[\"pool\",\"read\"]}}",
            rng.u64(..60),
            rng.u64(..1000),
            rng.u64(..100),
        ),
        // Lines a pane may print that look like protocol lines.
        93..=95 => write!(out, "% {} done, {} left", rng.u64(..100), rng.u64(..100)),
        96 => write!(out, "%end 1 2 1"),
        97 => write!(out, "%output %{} looks like a notification", rng.u64(..9)),
        98 => write!(
            out,
            "ビルドが完了しました: {} 件 ({} 秒)",
            rng.u64(..999),
            rng.u64(..60)
        ),
        _ => Ok(()),
    };
}

/// (a) One `capture-pane` answer block of about `size` bytes.
fn capture_block(size: usize) -> Vec<u8> {
    let mut rng = Rng::with_seed(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(size + 4096);
    out.extend_from_slice(b"%begin 1795978033 268 1\n");
    while out.len() < size {
        terminal_line(&mut rng, &mut out);
        out.push(b'\n');
    }
    out.extend_from_slice(b"%end 1795978033 268 1\n");
    out
}

/// (b) `count` `%output` notifications with tmux's octal escaping.
fn output_stream(count: usize) -> Vec<u8> {
    let mut rng = Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(count * 90);
    for _ in 0..count {
        let pane = rng.u64(..12);
        // Writing to a Vec cannot fail.
        let _ = match rng.u64(..4) {
            0 => writeln!(
                out,
                "%output %{pane} \\033[31mERROR\\033[0m request {:08x} failed after {}ms\\015\\012",
                rng.u64(..) as u32,
                rng.u64(..5000),
            ),
            1 => writeln!(
                out,
                "%output %{pane} \\033[1;32m   Compiling\\033[0m crate-{} v0.{}.0\\015\\012",
                rng.u64(..500),
                rng.u64(..20),
            ),
            2 => writeln!(
                out,
                "%output %{pane} \\033[?2004huser@host:~/src$ ls C:\\134Users\\134{}\\015\\012\\033[?2004l",
                rng.u64(..100),
            ),
            _ => writeln!(
                out,
                "%output %{pane} progress {}%\\015\\033[K\\011{} bytes \u{2588}\u{2588}\u{2591}",
                rng.u64(..100),
                rng.u64(..1 << 20),
            ),
        };
    }
    out
}

/// (c) `list-panes`-style answer blocks, about `size` bytes in all.
fn small_blocks(size: usize) -> (Vec<u8>, usize) {
    let mut rng = Rng::with_seed(0xD1B5_4A32_D192_ED03);
    let mut out = Vec::with_capacity(size + 4096);
    let mut number = 1000u64;
    let mut blocks = 0;
    while out.len() < size {
        number += 1;
        blocks += 1;
        let _ = writeln!(out, "%begin 1795978033 {number} 1");
        for _ in 0..=rng.u64(..6) {
            let id = rng.u64(..200);
            let _ = writeln!(
                out,
                "\u{241e}%{id}\u{241f}@{}\u{241f}$0\u{241f}{}\u{241f}{}\u{241f}/home/user/src/project-{}\u{241f}bash\u{241f}{}",
                id / 3,
                80 + rng.u64(..120),
                24 + rng.u64(..40),
                rng.u64(..50),
                rng.u64(..2),
            );
        }
        let _ = writeln!(out, "%end 1795978033 {number} 1");
        match rng.u64(..8) {
            0 => {
                let _ = writeln!(out, "%window-add @{}", rng.u64(..100));
            }
            1 => {
                let _ = writeln!(out, "%output %{} $ \\015\\012", rng.u64(..200));
            }
            _ => {}
        }
    }
    (out, blocks)
}

/// (d) `MSG_WRITE` frames (`stream id` + data) in `framing`, about `size`
/// bytes in all.
fn imsg_frames(framing: Framing, size: usize) -> (Vec<u8>, usize) {
    let mut rng = Rng::with_seed(0xA076_1D64_78BD_642F);
    let mut out = Vec::with_capacity(size + (16 << 10));
    let mut frames = 0;
    while out.len() < size {
        let len = match rng.u64(..10) {
            0 => 16_368 - 4,
            1..=3 => 1 + rng.u64(..64) as usize,
            _ => 1 + rng.u64(..4096) as usize,
        };
        let mut payload = 1u32.to_ne_bytes().to_vec();
        payload.extend((0..len).map(|i| b'a' + (i % 26) as u8));
        imsg::encode(framing, 303, &payload, false, &mut out).expect("payload fits");
        frames += 1;
    }
    (out, frames)
}

/// Feeds `stream` to a new parser in [`CHUNK`]-byte pieces; returns the
/// number of events and of block body or output bytes seen.
fn parse_chunked(stream: &[u8]) -> (usize, usize) {
    let mut p = Parser::new();
    let mut events = 0;
    let mut bytes = 0;
    let mut sink = |e: Event| {
        events += 1;
        bytes += match e {
            Event::Block(b) => b.body.len(),
            Event::Notification(Notification::Output { data, .. }) => data.len(),
            _ => 0,
        };
    };
    for chunk in stream.chunks(CHUNK) {
        p.feed(black_box(chunk), &mut sink);
    }
    assert!(!p.finish(), "the stream ends inside a block");
    (events, bytes)
}

/// Decodes every frame of `buf`; returns the frame count and payload bytes.
fn decode_frames(framing: Framing, mut buf: &[u8]) -> (usize, usize) {
    let mut frames = 0;
    let mut bytes = 0;
    while let Ok(Some((f, n))) = imsg::decode(framing, buf) {
        frames += 1;
        bytes += f.data.len();
        buf = &buf[n..];
    }
    (frames, bytes)
}

fn control(c: &mut Criterion) {
    let capture = capture_block(8 << 20);
    let output = output_stream(100_000);
    let (small, small_count) = small_blocks(8 << 20);
    // Check the streams parse as intended before timing them.
    assert_eq!(parse_chunked(&capture).0, 1, "one capture block");
    assert_eq!(parse_chunked(&output).0, 100_000, "one event per %output");
    assert!(parse_chunked(&small).0 >= small_count, "every small block");
    eprintln!(
        "capture block: {} bytes; %output stream: {} bytes, 100000 lines; \
         small blocks: {} bytes, {small_count} blocks",
        capture.len(),
        output.len(),
        small.len(),
    );

    let mut group = c.benchmark_group("control");
    for (name, stream) in [
        ("capture-block-8mib", &capture),
        ("output-100k", &output),
        ("small-blocks", &small),
    ] {
        group.throughput(Throughput::Bytes(stream.len() as u64));
        group.bench_function(name, |b| b.iter(|| parse_chunked(black_box(stream))));
    }
    group.finish();
}

fn wire(c: &mut Criterion) {
    let mut group = c.benchmark_group("imsg");
    for (name, framing) in [("decode-old", Framing::Old), ("decode-new", Framing::New)] {
        let (buf, count) = imsg_frames(framing, 8 << 20);
        assert_eq!(decode_frames(framing, &buf).0, count, "every frame decodes");
        eprintln!("imsg {name}: {} bytes, {count} frames", buf.len());
        // `decode` reads the 16-byte header and borrows the payload, so
        // its cost is per frame, not per byte.
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(name, |b| b.iter(|| decode_frames(framing, black_box(&buf))));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = control, wire
}
criterion_main!(benches);
