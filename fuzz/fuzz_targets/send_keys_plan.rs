//! `cargo fuzz run -s none send_keys_plan`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::tmux::input::fuzz_segments(data));
