//! `cargo fuzz run -s none correlate`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::control::correlate::fuzz_correlate(data));
