//! `cargo fuzz run -s none password_prompt`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::sys::input::fuzz_prompt(data));
