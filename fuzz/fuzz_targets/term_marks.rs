//! `cargo fuzz run -s none term_marks`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::term::marks::fuzz_parse(data));
