//! `cargo fuzz run -s none mirror_marks`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::mirror::marks::fuzz_marks(data));
