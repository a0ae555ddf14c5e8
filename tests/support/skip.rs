//! Tests that pass without running what they test, counted and named at the end of the run.
//!
//! A test whose program or service is missing here (python3, a shell, a tmux version, sshd,
//! root) returns early and libtest counts it as passed. Each such test calls [`skipped`]
//! (the helpers that find the program do it for it: [`super::has_python`],
//! [`super::test_shell`], [`super::tmux_bin`], [`super::sshd::Sshd::start`]), and when the
//! process exits, after libtest's `test result:` line, [`report`] prints how many tests
//! skipped what, and why, on the stderr handle itself (libtest's capture never hides it). CI
//! makes each skip a failure instead: `TMUXWIRE_REQUIRE_PYTHON=1`,
//! `TMUXWIRE_REQUIRE_SHELLS`, `TMUXWIRE_REQUIRE_TMUX_VERSIONS`, `TMUXWIRE_REQUIRE_SSHD=1`.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Mutex, Once};

/// `(why, test)` of every skip so far, in order.
static SKIPS: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// Records that the running test skips (part of) what it tests because of `why` (its first
/// line says what is missing; the rest may give details, such as a log). The first skip for
/// each reason (first line) prints `SKIPPED in TEST: why` at once; every skip is in the
/// summary at exit ([`report`]). The test is named after its thread (libtest names each test's thread
/// after the test; a tool test's body runs on it too).
pub fn skipped(why: &str) {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // SAFETY: `atexit` only records a function pointer; the handler takes no arguments
        // and never unwinds (see `report`).
        let registered = unsafe { libc::atexit(report) } == 0;
        assert!(registered, "atexit refused the skip report");
    });
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed thread>")
        .to_string();
    let full = why.trim_end();
    let why = why.lines().next().unwrap_or("").trim().to_string();
    let mut skips = SKIPS.lock().unwrap_or_else(|p| p.into_inner());
    if !skips.iter().any(|(w, _)| *w == why) {
        // One write, on lines of its own, between libtest's lines as well as it can.
        let line = format!("\nSKIPPED in {test}: {full} (more at the end of the run)\n");
        let _ = std::io::stderr().write_all(line.as_bytes());
    }
    skips.push((why, test));
}

/// Prints the skips at process exit: how many tests skipped, grouped by reason, each
/// group's tests named. Nothing when no test skipped. A panic must not cross into C, so it
/// is caught.
extern "C" fn report() {
    let _ = std::panic::catch_unwind(|| {
        let skips = SKIPS.lock().unwrap_or_else(|p| p.into_inner());
        if skips.is_empty() {
            return;
        }
        let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (why, test) in skips.iter() {
            let tests = by_reason.entry(why).or_default();
            if !tests.contains(&test.as_str()) {
                tests.push(test);
            }
        }
        let mut all: Vec<&str> = by_reason.values().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        let mut text = format!(
            "\n{bar}\nSKIPPED: {n} test(s) above passed without running all they test:\n",
            bar = "#".repeat(79),
            n = all.len()
        );
        for (why, tests) in &by_reason {
            text.push_str(&format!(
                "* {} test(s): {why}\n    {}\n",
                tests.len(),
                tests.join(", ")
            ));
        }
        text.push_str(
            "Set TMUXWIRE_REQUIRE_PYTHON=1, TMUXWIRE_REQUIRE_SHELLS, \
             TMUXWIRE_REQUIRE_TMUX_VERSIONS or TMUXWIRE_REQUIRE_SSHD=1 (as .ci/run does) to \
             make these failures;\ndocs/TESTING.md says how to run the ssh tests.\n",
        );
        text.push_str(&"#".repeat(79));
        text.push('\n');
        let _ = std::io::stderr().write_all(text.as_bytes());
    });
}
