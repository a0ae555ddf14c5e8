//! `cargo fuzz run -s none proc_stat`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::sys::stat::fuzz_stat(data));
