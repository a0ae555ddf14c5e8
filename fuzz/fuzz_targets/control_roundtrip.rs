//! `cargo fuzz run -s none control_roundtrip`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::control_roundtrip(data));
