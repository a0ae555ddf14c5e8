//! `cargo fuzz run -s none imsg_decode`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::wire::imsg::fuzz_decode(data));
