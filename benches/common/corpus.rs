//! The synthetic, deterministic corpus the benches search: log lines,
//! cargo output, shell prompts, long JSON lines, CJK text, and a rare
//! needle ([`RARE`]) about every 2 MiB. Built in memory from a fixed
//! `fastrand` seed, so no data files are needed.

use fastrand::Rng;

/// The rare needle planted in the corpus.
pub const RARE: &str = "segfault at 0x";

/// Builds a corpus of at least `bytes` bytes: `\n`-terminated logical
/// lines, ~72 bytes on average, the same for every run.
pub fn corpus(bytes: usize) -> Vec<u8> {
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
    let mut out = Vec::with_capacity(bytes + 4096);
    let mut next_rare = 1 << 21;
    while out.len() < bytes {
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
