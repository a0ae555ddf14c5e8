//! `cargo fuzz run -s none capture_strip`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::capture_strip(data));
