//! `cargo fuzz run -s none jsonrpc_lines`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire_fuzz::jsonrpc_lines(data));
