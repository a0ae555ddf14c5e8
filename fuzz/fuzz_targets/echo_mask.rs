//! `cargo fuzz run -s none echo_mask`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::mirror::echo::fuzz_mask(data));
