//! `cargo fuzz run -s none cli_target`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::cli::fuzz_target(data));
