//! `cargo fuzz run -s none layout`: see `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tmuxwire::tmux::layout::fuzz_layout(data));
