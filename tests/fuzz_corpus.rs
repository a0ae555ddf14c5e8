//! Replays the fuzz seeds under plain `cargo test`, so CI checks every
//! committed fuzz input without cargo-fuzz or a nightly toolchain.
//!
//! For each target in `fuzz/fuzz_targets/`, every file in
//! `fuzz/seeds/<target>/` and `fuzz/artifacts/<target>/` (when present) is
//! run through the same property function the fuzzer calls: the library's
//! `fuzz_*` entry points, or the checks in `fuzz/props.rs` (included here
//! verbatim, so both sides check the same thing).
//!
//! Set `TMUXWIRE_FUZZ_CORPUS=1` to also replay the local, uncommitted
//! working corpus `fuzz/corpus/<target>/` that `cargo fuzz run` grows (it
//! can hold thousands of inputs, hence off by default).

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

mod props {
    include!("../fuzz/props.rs");
}

/// Inputs that are known to fail because of a bug in `src/`, by target and
/// file name, with the reason. They stay in `fuzz/artifacts/<target>/` and
/// are skipped here until the bug is fixed; then delete the entry.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[];

/// The fuzz crate's directory.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The input files of `target`, sorted, minus [`KNOWN_FAILURES`].
fn inputs(target: &str) -> Vec<PathBuf> {
    let mut dirs = vec!["seeds", "artifacts"];
    if std::env::var_os("TMUXWIRE_FUZZ_CORPUS").is_some_and(|v| v != "0") {
        dirs.push("corpus");
    }
    let mut files = Vec::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(fuzz_dir().join(dir).join(target)) else {
            continue; // A missing directory is fine (no artifacts yet).
        };
        for entry in entries {
            let path = entry.expect("readable fuzz directory").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let known = KNOWN_FAILURES
                .iter()
                .any(|&(t, f, _)| t == target && f == name);
            if path.is_file() && !name.starts_with('.') && !known {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Runs `check` on every input of `target`; reports all failing files at
/// once.
fn replay(target: &str, check: fn(&[u8])) {
    let files = inputs(target);
    let seeds = files
        .iter()
        .filter(|p| p.starts_with(fuzz_dir().join("seeds")))
        .count();
    assert!(seeds > 0, "no seeds in fuzz/seeds/{target}/");
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = fs::read(path).expect("readable fuzz input");
            catch_unwind(AssertUnwindSafe(|| check(&data))).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "{target}: {} of {} inputs failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

#[test]
fn imsg_decode_corpus() {
    replay("imsg_decode", tmuxwire::wire::imsg::fuzz_decode);
}

#[test]
fn control_parse_corpus() {
    replay("control_parse", tmuxwire::control::parse::fuzz_parse);
}

#[test]
fn control_roundtrip_corpus() {
    replay("control_roundtrip", props::control_roundtrip);
}

#[test]
fn command_quote_corpus() {
    replay("command_quote", tmuxwire::control::command::fuzz_quote);
}

#[test]
fn notification_corpus() {
    replay("notification", props::notification);
}

#[test]
fn format_records_corpus() {
    replay("format_records", props::format_records);
}

#[test]
fn search_pattern_corpus() {
    replay("search_pattern", props::search_pattern);
}

#[test]
fn tmux_version_corpus() {
    replay("tmux_version", props::tmux_version);
}

#[test]
fn copy_lines_corpus() {
    replay("copy_lines", props::copy_lines);
}

#[test]
fn correlate_corpus() {
    replay("correlate", tmuxwire::control::correlate::fuzz_correlate);
}

#[test]
fn mirror_scan_corpus() {
    replay("mirror_scan", tmuxwire::mirror::scan::fuzz_scan);
}

#[test]
fn mirror_marks_corpus() {
    replay("mirror_marks", tmuxwire::mirror::marks::fuzz_marks);
}

#[test]
fn echo_mask_corpus() {
    replay("echo_mask", tmuxwire::mirror::echo::fuzz_mask);
}

#[test]
fn grid_corpus() {
    replay("grid", props::grid);
}

#[test]
fn mirror_feed_corpus() {
    replay("mirror_feed", props::mirror_feed);
}

#[test]
fn layout_corpus() {
    replay("layout", tmuxwire::tmux::layout::fuzz_layout);
}

#[test]
fn proc_stat_corpus() {
    replay("proc_stat", tmuxwire::sys::stat::fuzz_stat);
}

#[test]
fn send_keys_plan_corpus() {
    replay("send_keys_plan", tmuxwire::tmux::input::fuzz_segments);
}

#[test]
fn term_marks_corpus() {
    replay("term_marks", tmuxwire::term::marks::fuzz_parse);
}

#[test]
fn redact_corpus() {
    replay("redact", tmuxwire::redact::fuzz_redact);
}

/// Every fuzz target has a replay test above (and a seed directory).
#[test]
fn every_target_is_replayed() {
    let replayed = [
        "command_quote",
        "control_parse",
        "control_roundtrip",
        "copy_lines",
        "correlate",
        "echo_mask",
        "format_records",
        "grid",
        "imsg_decode",
        "layout",
        "mirror_feed",
        "mirror_marks",
        "mirror_scan",
        "notification",
        "proc_stat",
        "redact",
        "search_pattern",
        "send_keys_plan",
        "term_marks",
        "tmux_version",
    ];
    let mut targets: Vec<String> = fs::read_dir(fuzz_dir().join("fuzz_targets"))
        .expect("fuzz/fuzz_targets exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            Some(name.strip_suffix(".rs")?.to_string())
        })
        .collect();
    targets.sort();
    assert_eq!(targets, replayed);
}
