//! `cargo fuzz run -s none mirror_feed`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::mirror_feed(data));
