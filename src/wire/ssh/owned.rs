//! Tying the ssh master's life to tmuxwire's: a tmuxwire that ends cleanly
//! ends its masters itself, and one killed with SIGKILL (or that crashes)
//! must not leave a master logged in to the host for as long as the link
//! lives.
//!
//! On Linux the master is spawned with `PR_SET_PDEATHSIG` = `SIGTERM`
//! (prctl(2)): the kernel sends it SIGTERM when the thread that spawned it
//! ends, and ssh exits on SIGTERM, closing its channels (the remote `tmux
//! -C` clients then read EOF and exit). The thread is a runtime thread that
//! polls the call opening the master (a worker of the multi-threaded
//! runtime, or the thread in `block_on`), which lives as long as the
//! runtime; tmuxwire spawns no ssh process from a blocking-pool thread,
//! whose end would be too early. The setting survives `execve` of a binary
//! without set-uid (ssh). Elsewhere nothing is done.

use tokio::process::Command;

/// Makes the process `c` spawns get SIGTERM when the spawning thread ends
/// (Linux; a no-op elsewhere). If the parent ended before the setting took
/// effect, the spawn fails with `ESRCH` rather than leave an orphan.
#[cfg(target_os = "linux")]
pub fn end_with_this_process(c: &mut Command) {
    // The pid the child must see as its parent: a child whose parent died
    // first was reparented, and the death signal will never come.
    let Ok(parent) = libc::pid_t::try_from(std::process::id()) else {
        return;
    };
    // SAFETY: the closure runs in the child between fork and exec, where
    // only async-signal-safe functions may be called: it calls prctl(2)
    // and getppid(2) (both system calls that take integers and touch no
    // memory of ours), and builds its errors from raw OS codes without
    // allocating.
    unsafe {
        c.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Makes the process `c` spawns get SIGTERM when the spawning thread ends
/// (Linux; a no-op elsewhere).
#[cfg(not(target_os = "linux"))]
pub fn end_with_this_process(_: &mut Command) {}
