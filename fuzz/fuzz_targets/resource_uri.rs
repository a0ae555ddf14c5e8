//! `cargo fuzz run -s none resource_uri`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::resource_uri(data));
