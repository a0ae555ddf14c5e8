//! `cargo fuzz run -s none ssh_answer`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::ssh_answer(data));
