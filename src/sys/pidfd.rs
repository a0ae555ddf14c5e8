//! The end of a process of this machine, as a future: Linux's
//! `pidfd_open(2)` (since 5.3) gives a descriptor that polls readable once
//! the process has ended (it is a zombie or reaped), whoever its parent
//! is; no signal and no timer. The event log watches a pane's first
//! process (`#{pane_pid}`) with it, since tmux sends no notification when
//! a pane it keeps (`remain-on-exit`) dies.
//!
//! Elsewhere (another kernel, a tmux server on another host, a refusal)
//! [`watch`] says so and the caller falls back to what it did before.

use std::path::Path;

/// What [`watch`] found.
#[derive(Debug)]
pub enum Watch {
    /// The process runs: [`ProcessEnd::ended`] answers when it ends.
    Running(ProcessEnd),
    /// No such process (it has ended and been reaped), or `pid` now names
    /// a process whose parent is not `parent` (the pid was reused).
    Gone,
    /// It cannot be watched here (not Linux, a kernel before 5.3,
    /// `pidfd_open` refused, or no runtime to poll it): why.
    Unsupported(String),
}

/// A process being watched for its end.
#[derive(Debug)]
pub struct ProcessEnd {
    #[cfg(target_os = "linux")]
    fd: tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>,
}

impl ProcessEnd {
    /// Answers once the process has ended (at once if it already has).
    /// An error of the poll (never seen) reads as an end: the caller then
    /// asks tmux, which has the last word.
    pub async fn ended(self) {
        #[cfg(target_os = "linux")]
        {
            let _ = self.fd.readable().await;
        }
    }
}

/// Watches process `pid`, whose parent must be `parent` (the tmux
/// server: tmux forks each pane's first process, so `#{pane_pid}`'s
/// parent is `#{pid}`); checked in `/proc` after the descriptor is open,
/// so a reused pid is not watched. Needs a Tokio runtime with I/O.
pub fn watch(pid: u32, parent: u32) -> Watch {
    watch_in(Path::new("/proc"), pid, parent)
}

#[cfg(target_os = "linux")]
fn watch_in(proc: &Path, pid: u32, parent: u32) -> Watch {
    use rustix::process::{Pid, PidfdFlags, pidfd_open};
    let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return Watch::Gone;
    };
    let fd = match pidfd_open(p, PidfdFlags::NONBLOCK) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::SRCH) => return Watch::Gone,
        Err(e) => return Watch::Unsupported(format!("pidfd_open({pid}): {e}")),
    };
    // The descriptor names the process that had the pid when it was
    // opened: if its parent is the server now, it is the pane's.
    let stat = std::fs::read(proc.join(pid.to_string()).join("stat"))
        .ok()
        .and_then(|b| super::stat::parse(&b).ok());
    match stat {
        Some(s) if s.pid == pid && s.ppid == i64::from(parent) => {}
        // Ended meanwhile (reaped: no /proc entry), or another process.
        _ => return Watch::Gone,
    }
    // Deprecated for types whose descriptor may change or close under
    // the registration (tokio#8587); an `OwnedFd` owns its descriptor and
    // closes it only when dropped, after the registration (the safe
    // replacement, `register_with_interest`, is `unsafe`, which this
    // crate forbids here).
    #[allow(deprecated)]
    let fd = tokio::io::unix::AsyncFd::with_interest(fd, tokio::io::Interest::READABLE);
    match fd {
        Ok(fd) => Watch::Running(ProcessEnd { fd }),
        Err(e) => Watch::Unsupported(format!("polling a pidfd: {e}")),
    }
}

#[cfg(not(target_os = "linux"))]
fn watch_in(_proc: &Path, pid: u32, _parent: u32) -> Watch {
    Watch::Unsupported(format!("no pidfd for {pid}: Linux only"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_child_that_ends_is_told_and_a_stranger_is_not_watched() {
        let mut child = std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .expect("sleep");
        let me = std::process::id();
        // Not our child's parent: a reused pid reads as gone.
        assert!(matches!(watch(child.id(), me + 1), Watch::Gone));
        let Watch::Running(end) = watch(child.id(), me) else {
            panic!("pidfd_open failed on this kernel");
        };
        let mut ended = Box::pin(end.ended());
        assert!(futures::FutureExt::now_or_never(&mut ended).is_none());
        child.kill().expect("kill");
        tokio::time::timeout(std::time::Duration::from_secs(10), ended)
            .await
            .expect("told within 10 s");
        child.wait().expect("reaped");
        assert!(matches!(watch(child.id(), me), Watch::Gone));
    }
}
