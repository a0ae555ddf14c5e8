//! Reads a local pane's input facts: its terminal's settings through
//! `#{pane_tty}`, and its foreground process through `/proc`. The reads
//! only; [`super::input::classify`] decides.
//!
//! The tty is opened `O_RDONLY|O_NOCTTY|O_NONBLOCK` (never becoming its
//! controlling terminal, never blocking), asked `tcgetattr()` and closed
//! at once. Nothing is guessed: a fact that cannot be read, or that does
//! not belong to this pane (a pid of another pid namespace names some
//! other process here), is left out and said in the notes.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind as IoKind;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::input::{Facts, Process, Termios, Wait, wait_of};
use super::stat::{self, Stat, tty_device};

/// The majors of Unix98 pty slaves (Linux `UNIX98_PTY_SLAVE_MAJOR`, 136,
/// and the 7 after it).
const PTS_MAJORS: std::ops::RangeInclusive<u64> = 136..=143;

/// `(major, minor)` of a device number; `None` off Linux, where the
/// rest of the facts (`/proc`) cannot be read either.
#[cfg(target_os = "linux")]
pub(crate) fn device_numbers(rdev: u64) -> Option<(u64, u64)> {
    Some((nix::sys::stat::major(rdev), nix::sys::stat::minor(rdev)))
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn device_numbers(_rdev: u64) -> Option<(u64, u64)> {
    None
}

/// Most group members looked at when the group's leader is gone or
/// waits for a child.
const MAX_SCAN: usize = 1 << 16;

/// What tmux says about the pane, the facts are read for.
#[derive(Clone, Debug)]
pub struct PaneProcess<'a> {
    /// `#{pane_tty}`, e.g. `/dev/pts/3`.
    pub tty: &'a str,
    /// `#{pane_pid}`: the pane's first process (its shell).
    pub pane_pid: u32,
    /// `#{pid}`: the tmux server's pid, the pane process's parent; `None`
    /// when unknown (then not checked).
    pub server_pid: Option<u32>,
}

/// Reads the facts of `pane` from the pane's tty and `/proc`.
pub fn probe(pane: &PaneProcess<'_>) -> Facts {
    probe_in(Path::new("/proc"), pane)
}

/// [`probe`] over the proc file system at `proc`.
pub fn probe_in(proc: &Path, pane: &PaneProcess<'_>) -> Facts {
    let mut f = Facts::default();
    let tty = read_tty(pane.tty, &mut f.notes);
    if let Some((t, _)) = tty {
        f.termios = Some(t);
    }
    let Some(shell) = read_stat(proc, pane.pane_pid, &mut f.notes) else {
        f.notes.push(format!(
            "no /proc/{} here: the pane's process runs in another pid namespace or has exited",
            pane.pane_pid
        ));
        return f;
    };
    if let Some(server) = pane.server_pid
        && shell.ppid != i64::from(server)
    {
        f.notes.push(format!(
            "pid {}'s parent is {}, not the tmux server's pid {server}: another pid namespace",
            pane.pane_pid, shell.ppid
        ));
        return f;
    }
    let Some((_, dev)) = tty else {
        return f;
    };
    if tty_device(shell.tty_nr) != dev {
        let (maj, min) = tty_device(shell.tty_nr);
        f.notes.push(format!(
            "pid {}'s terminal is {maj}:{min}, not pane_tty's {}:{}: another namespace",
            pane.pane_pid, dev.0, dev.1
        ));
        return f;
    }
    f.notes.push(format!(
        "pane_pid {}: a child of the tmux server on pane_tty",
        pane.pane_pid
    ));
    f.pane_age = std::fs::read(proc.join("uptime"))
        .ok()
        .and_then(|b| stat::parse_uptime(&b))
        .and_then(|up| stat::age(shell.starttime, up, ticks_per_second()));
    if shell.tpgid <= 0 {
        f.notes.push(format!(
            "tpgid of pid {} is {}: no foreground process group visible",
            pane.pane_pid, shell.tpgid
        ));
        return f;
    }
    let Some(fg) = foreground(proc, &shell, &mut f.notes) else {
        return f;
    };
    let wchan = std::fs::read_to_string(proc.join(fg.pid.to_string()).join("wchan")).ok();
    f.shell_in_foreground = fg.pid == pane.pane_pid;
    f.foreground = Some(Process {
        pid: fg.pid,
        comm: fg.comm,
        state: fg.state,
        wchan: wchan.map(|w| w.trim().to_string()),
    });
    f
}

/// The kernel's clock ticks per second for `/proc` times (`USER_HZ`,
/// `sysconf(_SC_CLK_TCK)`); 0 when it cannot say.
fn ticks_per_second() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .and_then(|t| u64::try_from(t).ok())
            .unwrap_or(0)
    })
}

/// The pid of the child of `parent` (the tmux server) whose terminal is
/// the pseudo-terminal at `tty` (`#{pane_tty}`): the pane's first process,
/// `#{pane_pid}`, found with no call to tmux. The server's children are
/// read from `/proc/<parent>/task/<parent>/children` (one per pane, as
/// tmux forks each pane's process from its main thread), each one's
/// `stat` for its parent and terminal; every process of `/proc` when
/// none of those matches. `None` off Linux, for a path that
/// is not a pty slave under `/dev/pts`, or when no child matches (another
/// pid namespace, the process gone).
pub fn child_on_tty(parent: u32, tty: &str) -> Option<u32> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    if !tty.starts_with("/dev/pts/") || tty.contains("/..") {
        return None;
    }
    let meta = std::fs::metadata(tty).ok()?;
    if !meta.file_type().is_char_device() {
        return None;
    }
    let dev = device_numbers(meta.rdev())?;
    let proc = Path::new("/proc");
    let on_tty = |pid: &u32| {
        read_stat(proc, *pid, &mut Vec::new())
            .is_some_and(|s| s.ppid == i64::from(parent) && stat::tty_device(s.tty_nr) == dev)
    };
    let children = std::fs::read_to_string(
        proc.join(parent.to_string())
            .join("task")
            .join(parent.to_string())
            .join("children"),
    )
    .unwrap_or_default();
    let found = children
        .split_ascii_whitespace()
        .filter_map(|c| c.parse::<u32>().ok())
        .find(on_tty);
    // The children file can miss a child (the kernel does not promise a
    // whole list while processes come and go): every process then.
    found.or_else(|| {
        std::fs::read_dir(proc)
            .ok()?
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .take(MAX_SCAN)
            .find(on_tty)
    })
}

/// The terminal's settings and `(major, minor)`, or `None` with a note.
fn read_tty(path: &str, notes: &mut Vec<String>) -> Option<(Termios, (u64, u64))> {
    let shown = stat::display_name(path.as_bytes());
    if path.is_empty() {
        notes.push("tmux gave no pane_tty".into());
        return None;
    }
    if !path.starts_with("/dev/") {
        notes.push(format!("pane_tty {shown} is not under /dev"));
        return None;
    }
    // Look before opening: opening some devices has effects.
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            notes.push(format!("pane_tty {shown}: {}", io_reason(&e)));
            return None;
        }
    };
    let Some(dev) = device_numbers(meta.rdev()) else {
        notes.push("terminal facts are read on Linux only (/proc)".into());
        return None;
    };
    if !meta.file_type().is_char_device() || !PTS_MAJORS.contains(&dev.0) {
        notes.push(format!("pane_tty {shown} is not a pseudo-terminal"));
        return None;
    }
    let file: File = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => {
            notes.push(format!("pane_tty {shown}: {}", io_reason(&e)));
            return None;
        }
    };
    let t = nix::sys::termios::tcgetattr(&file);
    drop(file);
    match t {
        Ok(t) => {
            use nix::sys::termios::LocalFlags;
            let termios = Termios {
                echo: t.local_flags.contains(LocalFlags::ECHO),
                icanon: t.local_flags.contains(LocalFlags::ICANON),
                echonl: t.local_flags.contains(LocalFlags::ECHONL),
                isig: t.local_flags.contains(LocalFlags::ISIG),
            };
            notes.push(format!("termios read from pane_tty {shown}"));
            Some((termios, dev))
        }
        Err(e) => {
            notes.push(format!("tcgetattr on pane_tty {shown}: {}", e.desc()));
            None
        }
    }
}

/// Why a file could not be read, in words.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        IoKind::PermissionDenied => "permission denied (another user's terminal)".into(),
        IoKind::NotFound => "not found here (another mount namespace, or the pane is gone)".into(),
        _ => e.to_string(),
    }
}

/// `/proc/<pid>/stat`, parsed; `None` when missing (silently) or
/// malformed (with a note).
fn read_stat(proc: &Path, pid: u32, notes: &mut Vec<String>) -> Option<Stat> {
    let bytes = std::fs::read(proc.join(pid.to_string()).join("stat")).ok()?;
    match stat::parse(&bytes) {
        Ok(s) if s.pid == pid => Some(s),
        Ok(s) => {
            notes.push(format!("/proc/{pid}/stat names pid {}", s.pid));
            None
        }
        Err(e) => {
            notes.push(format!("/proc/{pid}/stat: {e}"));
            None
        }
    }
}

/// The process that stands for the foreground group of `shell`'s
/// terminal: the group's leader, unless it is gone or waits for a child,
/// then the group's newest member on the same terminal.
fn foreground(proc: &Path, shell: &Stat, notes: &mut Vec<String>) -> Option<Stat> {
    let tpgid = shell.tpgid;
    let leader = u32::try_from(tpgid)
        .ok()
        .and_then(|pid| read_stat(proc, pid, notes))
        .filter(|s| s.pgrp == tpgid && s.tty_nr == shell.tty_nr);
    let waits_for_child = leader.as_ref().is_some_and(|l| {
        let wchan = std::fs::read_to_string(proc.join(l.pid.to_string()).join("wchan")).ok();
        let p = Process {
            pid: l.pid,
            comm: Vec::new(),
            state: l.state,
            wchan,
        };
        wait_of(&p) == Wait::Child
    });
    if leader.is_some() && !waits_for_child {
        notes.push(format!("foreground group {tpgid}: its leader"));
        return leader;
    }
    let newest = group_members(proc, tpgid, shell.tty_nr)
        .into_iter()
        .filter(|s| Some(s.pid) != leader.as_ref().map(|l| l.pid))
        .max_by_key(|s| (s.starttime, s.pid));
    match (newest, leader) {
        (Some(m), _) => {
            notes.push(format!(
                "foreground group {tpgid}: its newest member (the leader is gone or waits for it)"
            ));
            Some(m)
        }
        (None, Some(l)) => {
            notes.push(format!("foreground group {tpgid}: its leader"));
            Some(l)
        }
        (None, None) => {
            notes.push(format!(
                "foreground group {tpgid}: no member found in /proc"
            ));
            None
        }
    }
}

/// The processes of group `pgrp` on terminal `tty_nr`, from a scan of
/// `proc`.
fn group_members(proc: &Path, pgrp: i64, tty_nr: i64) -> Vec<Stat> {
    let Ok(dir) = std::fs::read_dir(proc) else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .take(MAX_SCAN)
        .filter_map(|pid| {
            stat::parse(&std::fs::read(proc.join(pid.to_string()).join("stat")).ok()?).ok()
        })
        .filter(|s| s.pgrp == pgrp && s.tty_nr == tty_nr)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_pane_tty() {
        let mut notes = Vec::new();
        for path in ["", "relative", "/etc/passwd", "/dev/null", "/dev/no-such"] {
            assert!(read_tty(path, &mut notes).is_none(), "{path}");
        }
        assert_eq!(notes.len(), 5, "{notes:?}");
    }

    /// A pid that does not exist here is named, and nothing is guessed.
    #[test]
    fn missing_process() {
        let dir = tempfile::tempdir().unwrap();
        let f = probe_in(
            dir.path(),
            &PaneProcess {
                tty: "/dev/null",
                pane_pid: 4_000_000,
                server_pid: None,
            },
        );
        assert!(f.termios.is_none() && f.foreground.is_none());
        assert!(
            f.notes.iter().any(|n| n.contains("another pid namespace")),
            "{:?}",
            f.notes
        );
    }
}
