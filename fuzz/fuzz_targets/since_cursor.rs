//! `cargo fuzz run -s none since_cursor`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::since_cursor(data));
