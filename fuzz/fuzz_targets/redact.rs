//! `cargo fuzz run -s none redact`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::redact::fuzz_redact(data));
