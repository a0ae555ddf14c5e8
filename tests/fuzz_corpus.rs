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
fn password_prompt_corpus() {
    replay("password_prompt", tmuxwire::sys::input::fuzz_prompt);
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
fn jsonrpc_lines_corpus() {
    replay("jsonrpc_lines", props::jsonrpc_lines);
}

#[test]
fn event_cursor_corpus() {
    replay("event_cursor", tmuxwire::events::ring::fuzz_cursor);
}

#[test]
fn since_cursor_corpus() {
    replay("since_cursor", props::since_cursor);
}

#[test]
fn resource_uri_corpus() {
    replay("resource_uri", props::resource_uri);
}

#[test]
fn cli_target_corpus() {
    replay("cli_target", tmuxwire::cli::fuzz_target);
}

#[test]
fn filters_corpus() {
    replay("filters", props::filters);
}

#[test]
fn ssh_answer_corpus() {
    replay("ssh_answer", props::ssh_answer);
}

#[test]
fn seed_captures_corpus() {
    replay("seed_captures", props::seed_captures);
}

#[test]
fn capture_strip_corpus() {
    replay("capture_strip", props::capture_strip);
}

#[test]
fn redact_corpus() {
    replay("redact", tmuxwire::redact::fuzz_redact);
}

/// Every fuzz target has a replay test above (and a seed directory).
#[test]
fn every_target_is_replayed() {
    let replayed = [
        "capture_strip",
        "cli_target",
        "command_quote",
        "control_parse",
        "control_roundtrip",
        "copy_lines",
        "correlate",
        "echo_mask",
        "event_cursor",
        "filters",
        "format_records",
        "grid",
        "imsg_decode",
        "jsonrpc_lines",
        "layout",
        "mirror_feed",
        "mirror_marks",
        "mirror_scan",
        "notification",
        "password_prompt",
        "proc_stat",
        "redact",
        "resource_uri",
        "search_pattern",
        "seed_captures",
        "send_keys_plan",
        "since_cursor",
        "ssh_answer",
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

/// Quick properties: the checks of the newer targets on inputs built from
/// their grammar's pieces, so `cargo test` reaches the paths random bytes
/// rarely do (whole JSON-RPC messages, cursors, templates, captures).
mod quick {
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::select;

    use super::props;

    /// Pieces of JSON-RPC lines: the keys the scan looks for (escaped too),
    /// ids of every kind, nesting, breakage.
    const JSON: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\"jsonrpc\"",
        "\"2.0\"",
        "\"id\"",
        "\"i\\u0064\"",
        "\"method\"",
        "\"m\\u0065thod\"",
        "\"ping\"",
        "\"tools/call\"",
        "\"params\"",
        "\"name\"",
        "\"result\"",
        "1",
        "1.0",
        "1.5",
        "-7",
        "null",
        "\"a\"",
        "\"\\udc80\"",
        "\"\\\"\"",
        "\n",
        "\r",
        "\u{feff}",
        "\\",
        "\u{fffd}",
    ];

    /// A message's members, any order, some repeated.
    fn message() -> impl Strategy<Value = String> {
        let ids = [
            "1",
            "\"x\"",
            "1.0",
            "1e2",
            "1.5",
            "null",
            "{}",
            "[1]",
            "\"\\udc80\"",
            "9223372036854775808",
        ];
        let member = prop_oneof![
            select(vec!["\"jsonrpc\":\"2.0\"", "\"jsonrpc\":\"1.0\""]).prop_map(String::from),
            (select(vec!["\"id\"", "\"i\\u0064\""]), select(ids.to_vec()))
                .prop_map(|(k, v)| format!("{k}:{v}")),
            (
                select(vec!["\"method\"", "\"\\u006dethod\""]),
                select(vec![
                    "\"ping\"",
                    "\"tools/call\"",
                    "\"notifications/initialized\"",
                    "\"no/such\"",
                    "5"
                ])
            )
                .prop_map(|(k, v)| format!("{k}:{v}")),
            (
                0usize..70,
                select(vec!["{\"name\":\"t\"}", "[1]", "\"x\"", "{}", "null"])
            )
                .prop_map(|(d, p)| format!(
                    "\"params\":{}{p}{}",
                    "[".repeat(d),
                    "]".repeat(d)
                )),
            select(vec![
                "\"result\":{}",
                "\"error\":{\"code\":1,\"message\":\"m\"}"
            ])
            .prop_map(String::from),
        ];
        vec(member, 0..6).prop_map(|m| format!("{{{}}}", m.join(",")))
    }

    fn run_bytes(head: &[u8], body: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
        let mut data = head.to_vec();
        for b in body {
            data.extend_from_slice(&b);
        }
        data
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn jsonrpc_pieces(step in any::<u8>(), pieces in vec(select(JSON), 0..48)) {
            props::jsonrpc_lines(&run_bytes(&[step], pieces.iter().map(|p| p.as_bytes().to_vec())));
        }

        #[test]
        fn jsonrpc_messages(step in any::<u8>(), lines in vec((message(), any::<bool>()), 1..6)) {
            let lines = lines.into_iter().map(|(m, batch)| {
                let m = if batch { format!("[{m},{m}]") } else { m };
                format!("{m}\n").into_bytes()
            });
            props::jsonrpc_lines(&run_bytes(&[step], lines));
        }

        #[test]
        fn since_cursors(
            fields in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u64>(), any::<u64>()),
            at in any::<u8>(),
            byte in select(b"0123456789abcdefABCDEF+-. x".to_vec()),
        ) {
            let (s, p, q, n, h) = fields;
            let mut data = Vec::new();
            for b in [&s.to_le_bytes()[..], &p.to_le_bytes(), &q.to_le_bytes(), &n.to_le_bytes(), &h.to_le_bytes()] {
                data.extend_from_slice(b);
            }
            data.extend_from_slice(&[at, byte]);
            props::since_cursor(&data);
        }

        #[test]
        fn resource_uris(
            param in "(.|%|/|\\?|&|=|\\.\\.){0,8}",
            pieces in vec(select(vec!["tmux://", "sessions", "panes", "windows", "content", "/", "?", "socket_name=", "&", "%2", "%25", "%00", "%2f", "..", "7", "+1", "w"]), 0..10),
        ) {
            props::resource_uri(param.as_bytes());
            props::resource_uri(pieces.concat().as_bytes());
        }

        #[test]
        fn cli_targets(pieces in vec(select(vec!["work", ":", ".", "=", "%1", "@2", "$3", "12", "0", "!", "^", "$", "+1", "-", "{last}", "99999999999", "%99999999999", "é", " "]), 0..7)) {
            tmuxwire::cli::fuzz_target(pieces.concat().as_bytes());
        }

        #[test]
        fn filter_objects(
            conds in vec((
                select(vec!["n", "c", "a__b", "", "N"]),
                select(vec!["", "__exact", "__eq", "__iexact", "__contains", "__icontains", "__startswith", "__istartswith", "__endswith", "__iendswith", "__regex", "__iregex", "__in", "__nin", "__bogus", "__"]),
                prop_oneof![
                    "[a-zA-Zé ,.*(\\[{]{0,6}".prop_map(serde_json::Value::from),
                    any::<i64>().prop_map(serde_json::Value::from),
                    any::<bool>().prop_map(serde_json::Value::from),
                    Just(serde_json::Value::Null),
                    vec("[a-z ,]{0,3}", 0..3).prop_map(serde_json::Value::from),
                ],
            ), 0..4),
            as_string in any::<bool>(),
        ) {
            let map: serde_json::Map<String, serde_json::Value> =
                conds.into_iter().map(|(f, op, v)| (format!("{f}{op}"), v)).collect();
            let mut text = serde_json::Value::Object(map).to_string();
            if as_string {
                text = serde_json::Value::from(text).to_string();
            }
            props::filters(text.as_bytes());
        }

        #[test]
        fn ssh_answers(
            chatter in vec(select(vec!["Welcome", "TWREADY 5eed0123456789ab", "xTWREADY 5eed0123456789ab", "TWREADY 5eed0123456789ac", "", "os Linux", "srv 0 3.8 1"]), 0..4),
            os in "[A-Za-z \n]{0,8}",
            bin in prop_oneof![Just("tmux 3.8".to_string()), "[a-z0-9 .:]{0,12}"],
            server in prop_oneof![Just("3.5a 4242".to_string()), "[a-z0-9 .:\n]{0,16}"],
            statuses in any::<u8>(),
        ) {
            let chatter = chatter.join("\n");
            let data = format!("{chatter}\0{os}\0{bin}\0{server}\0");
            let mut data = data.into_bytes();
            data.push(statuses);
            props::ssh_answer(&data);
        }

        #[test]
        fn seed_answers(
            size in (1u32..12, 1u32..5, 0u32..14, 0u32..6, 0usize..4),
            flags in any::<u8>(),
            cells in vec(select(vec!["a", " ", "q", "\x0e", "\x0f", "\x1b[31m", "\x1b]8;;u\x1b\\", "é", "中", "\t"]), 0..40),
            cuts in vec(any::<u8>(), 0..8),
        ) {
            let (w, h, cx, cy, hist) = size;
            let formats = format!("{w},{h},{cx},{cy},{hist},100,{},4294967295,4294967295,0,{},1,0,0;8\n", flags & 1, h - 1);
            // hist + h rows cut from the cells.
            let text = cells.concat();
            let mut rows = Vec::new();
            let mut rest = text.as_str();
            for k in 0..(hist + h as usize) {
                let n = cuts.get(k).map_or(0, |&c| usize::from(c) % (rest.len() + 1));
                let n = (0..=n).rev().find(|&i| rest.is_char_boundary(i)).unwrap_or(0);
                rows.push(&rest[..n]);
                rest = &rest[n..];
            }
            let body: String = rows.iter().map(|r| format!("{r}\n")).collect();
            let data = format!("{formats}\0{body}\0{body}\0{body}\0{body}\0{body}\0{body}\0\x1b[");
            let mut data = data.into_bytes();
            data.push(0);
            data.push(flags >> 1);
            props::seed_captures(&data);
        }

        #[test]
        fn capture_rows(flags in any::<u8>(), pieces in vec(select(vec!["a", " ", "q", "l", "x", "\n", "\x0e", "\x0f", "\x1b[1m", "\x1b[", "\x1b", "\x1b]8;;u\x1b\\", "\x1b]8;;\x07", "\x1b]", "é", "\u{fff8}"]), 0..40)) {
            props::capture_strip(&run_bytes(&[flags], pieces.iter().map(|p| p.as_bytes().to_vec())));
        }
    }
}
