//! The `tmuxwire` binary; everything lives in the library's `cli` module.

// The one `unsafe` block of the binary is the malloc tuning below.
#![deny(unsafe_code)]

fn main() -> std::process::ExitCode {
    release_large_buffers();
    tmuxwire::cli::main()
}

/// glibc's malloc raises its mmap threshold each time a large block is
/// freed (up to 32 MiB), after which large blocks come from the heap and
/// stay in the process when freed. A mirror seed holds tens of megabytes
/// of capture for a moment: with the threshold fixed at 1 MiB those
/// blocks are mapped and go back to the system when the seed is built.
#[allow(unsafe_code)]
fn release_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; called once, before
    // any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
