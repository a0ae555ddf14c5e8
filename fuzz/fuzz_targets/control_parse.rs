//! `cargo fuzz run -s none control_parse`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::control::parse::fuzz_parse(data));
