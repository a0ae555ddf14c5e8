//! `cargo fuzz run -s none event_cursor`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::events::ring::fuzz_cursor(data));
