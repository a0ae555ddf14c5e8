//! `cargo fuzz run -s none command_quote`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::control::command::fuzz_quote(data));
