//! A local pane's `#{pane_current_command}` and `#{pane_current_path}`,
//! read from `/proc` by tmuxwire with tmux's own rule, so a search does
//! not make tmux format every pane of the server for the few on its page.
//!
//! tmux (format.c `format_cb_current_command()`,
//! `format_cb_current_path()`; osdep-linux.c `osdep_get_name()`,
//! `osdep_get_cwd()`; names.c `parse_window_name()`, 3.2 to 3.8 alike)
//! takes the pane's foreground process group (`tcgetpgrp()` of the pty),
//! then the first argument of `/proc/<pgrp>/cmdline` (the name its group
//! leader gave itself) and the link `/proc/<pgrp>/cwd`. The name is then
//! cleaned by `parse_window_name()` (a leading `"`, `exec `, leading
//! blanks and dashes, everything from the first space, trailing
//! punctuation; the last path component of an absolute path). tmux falls
//! back to the pane's start command or shell when the name is empty, and
//! to the session leader's directory when the group's cannot be read.
//!
//! Only the case where every step succeeds and the cleaning changes
//! nothing but the directory part is answered here ([`command_name`],
//! [`plain_path`]); anything else (a name with a quote, a space, a dash,
//! trailing punctuation, bytes outside printable ASCII; a process gone or
//! of another pid namespace; an unreadable link) is `None`, and the caller
//! asks tmux. The foreground group is field 8 (`tpgid`) of
//! `/proc/<pane_pid>/stat`, the same number `tcgetpgrp()` gives for the
//! pty, once that process is proven to be the pane's: a child of the tmux
//! server whose controlling terminal is `#{pane_tty}` (as [`super::probe`]
//! proves it).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use super::probe::device_numbers;
use super::stat;

/// tmux's `MAXPATHLEN` buffer for the directory: a longer link is cut by
/// its `readlink()`, so it is left to tmux.
const MAX_PATH: usize = 4096;

/// A pane's foreground process name and working directory, as tmux's
/// `#{pane_current_command}` and `#{pane_current_path}` give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Current {
    /// `#{pane_current_command}`.
    pub command: String,
    /// `#{pane_current_path}`.
    pub path: String,
}

/// What tmux says about the pane whose [`Current`] is read.
#[derive(Clone, Copy, Debug)]
pub struct PaneRef<'a> {
    /// `#{pane_tty}`, e.g. `/dev/pts/3`.
    pub tty: &'a str,
    /// `#{pane_pid}`.
    pub pane_pid: u32,
    /// `#{pid}`: the tmux server's pid, which must be the pane process's
    /// parent.
    pub server_pid: u32,
}

/// `parse_window_name()` of `arg` (a process's first argument), when
/// tmux's cleaning leaves it as it is but for the directory part: `arg`
/// is printable ASCII with no space, `"`, `\` or `#`, does not start with
/// `-` and ends with a letter or digit. An absolute path gives its last
/// component (`basename()`); any other name itself. `None` for every
/// other argument (tmux is asked).
pub fn command_name(arg: &[u8]) -> Option<String> {
    let plain = |b: &u8| (0x21..=0x7e).contains(b) && !matches!(b, b'"' | b'\\' | b'#');
    if !arg.iter().all(plain) || arg.first() == Some(&b'-') {
        return None;
    }
    if !arg.last()?.is_ascii_alphanumeric() {
        return None;
    }
    let name = if arg.first() == Some(&b'/') {
        let at = arg.iter().rposition(|&b| b == b'/')?;
        &arg[at + 1..]
    } else {
        arg
    };
    String::from_utf8(name.to_vec()).ok()
}

/// The directory `link` (a `/proc/<pid>/cwd` target) when tmux gives it
/// unchanged and it is printable ASCII without `\`; `None` otherwise.
pub fn plain_path(link: &[u8]) -> Option<String> {
    let plain = |b: &u8| (0x20..=0x7e).contains(b) && *b != b'\\';
    if link.is_empty() || link.len() >= MAX_PATH || !link.iter().all(plain) {
        return None;
    }
    String::from_utf8(link.to_vec()).ok()
}

/// The first argument of a `/proc/<pid>/cmdline` (up to its first NUL,
/// as `osdep_get_name()` reads it).
pub fn first_arg(cmdline: &[u8]) -> &[u8] {
    let end = cmdline
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(cmdline.len());
    &cmdline[..end]
}

/// Reads `pane`'s [`Current`] from `/proc`; `None` when tmuxwire cannot
/// prove it gives what tmux would (see the module docs).
pub fn read(pane: &PaneRef<'_>) -> Option<Current> {
    read_in(Path::new("/proc"), pane)
}

/// [`read`] over the proc file system at `proc`.
pub fn read_in(proc: &Path, pane: &PaneRef<'_>) -> Option<Current> {
    if !pane.tty.starts_with("/dev/pts/") || pane.tty.contains("/..") {
        return None;
    }
    let meta = std::fs::metadata(pane.tty).ok()?;
    if !meta.file_type().is_char_device() {
        return None;
    }
    let dev = device_numbers(meta.rdev())?;
    let shell = read_stat(proc, pane.pane_pid)?;
    if shell.ppid != i64::from(pane.server_pid) || stat::tty_device(shell.tty_nr) != dev {
        return None;
    }
    let group = u32::try_from(shell.tpgid).ok().filter(|&g| g > 0)?;
    let dir = proc.join(group.to_string());
    let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
    let command = command_name(first_arg(&cmdline))?;
    let link = std::fs::read_link(dir.join("cwd")).ok()?;
    let path = plain_path(std::os::unix::ffi::OsStrExt::as_bytes(link.as_os_str()))?;
    Some(Current { command, path })
}

/// `/proc/<pid>/stat`, when it parses and names `pid`.
fn read_stat(proc: &Path, pid: u32) -> Option<stat::Stat> {
    let s = stat::parse(&std::fs::read(proc.join(pid.to_string()).join("stat")).ok()?).ok()?;
    (s.pid == pid).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tmux_leaves_alone_are_taken_and_the_rest_left_to_tmux() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"bash", Some("bash")),
            (b"/usr/bin/python3", Some("python3")),
            (b"./run.sh", Some("./run.sh")),
            (b"vim", Some("vim")),
            (b"//x/y2", Some("y2")),
            // What parse_window_name() would change: tmux is asked.
            (b"-bash", None),
            (b"sshd: me@pts/1", None),
            (b"\"quoted\"", None),
            (b"exec", Some("exec")),
            (b"name.", None),
            (b"/usr/bin/", None),
            (b"", None),
            (b"caf\xc3\xa9", None),
            (b"a\\b", None),
            (b"a#b", None),
            (b"tab\there", None),
        ];
        for (arg, want) in cases {
            assert_eq!(command_name(arg).as_deref(), *want, "{arg:?}");
        }
        assert_eq!(first_arg(b"sleep\x0030\x00"), b"sleep");
        assert_eq!(first_arg(b""), b"");
        assert_eq!(plain_path(b"/home/a b").as_deref(), Some("/home/a b"));
        assert_eq!(plain_path(b"/tmp/x\ny"), None);
        assert_eq!(plain_path(b"/tmp/\\"), None);
        assert_eq!(plain_path(b""), None);
        assert_eq!(plain_path(&vec![b'a'; MAX_PATH]), None);
    }

    #[test]
    fn a_pane_that_is_not_proven_local_is_left_to_tmux() {
        let me = std::process::id();
        // Not a pty, no such pid, not the server's child: all None.
        for tty in ["/dev/null", "/dev/pts/../null", "", "/dev/pts/999999"] {
            let p = PaneRef {
                tty,
                pane_pid: me,
                server_pid: 1,
            };
            assert_eq!(read(&p), None, "{tty}");
        }
    }
}
