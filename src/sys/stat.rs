//! `/proc/<pid>/stat`, the fields pane state uses (proc(5)). Pure.
//!
//! The line is `pid (comm) state ppid pgrp session tty_nr tpgid …`.
//! `comm` is chosen by the program (its executable's file name, or
//! anything it writes to `/proc/self/comm`, up to 15 bytes): it may hold
//! spaces, parentheses, line feeds and escape bytes. Every field after it
//! is a number or the one-letter state, so `comm` ends at the **last**
//! `)` of the line (as `fs/proc/array.c: do_task_stat()` writes it).

use std::borrow::Cow;
use std::fmt::Write as _;

/// The fields of one `/proc/<pid>/stat` that pane state reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Field 1, the process id.
    pub pid: u32,
    /// Field 2 without its parentheses: the name the process chose, raw
    /// bytes (see [`display_name`]).
    pub comm: Vec<u8>,
    /// Field 3: `R` running, `S` sleeping, `D` disk sleep, `T` stopped,
    /// `t` traced, `Z` zombie, `X` dead, … (one ASCII byte).
    pub state: u8,
    /// Field 4, the parent's pid.
    pub ppid: i64,
    /// Field 5, the process group.
    pub pgrp: i64,
    /// Field 6, the session.
    pub session: i64,
    /// Field 7, the controlling terminal's device number, encoded as the
    /// kernel's `new_encode_dev()` (0: none); see [`tty_device`].
    pub tty_nr: i64,
    /// Field 8, the foreground process group of the controlling terminal
    /// (-1: none; 0: not visible in this pid namespace).
    pub tpgid: i64,
    /// Field 22, the start time in clock ticks after boot.
    pub starttime: u64,
}

/// Why a stat line did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed /proc stat line: {0}")]
pub struct StatError(&'static str);

/// Parses one `/proc/<pid>/stat` (its bytes as read; a trailing line
/// feed is fine).
///
/// # Errors
///
/// [`StatError`] when the pid, the parentheses or a numeric field is
/// missing or not a number.
pub fn parse(bytes: &[u8]) -> Result<Stat, StatError> {
    let open = bytes
        .iter()
        .position(|&b| b == b'(')
        .ok_or(StatError("no '('"))?;
    let close = bytes
        .iter()
        .rposition(|&b| b == b')')
        .filter(|&c| c > open)
        .ok_or(StatError("no ')'"))?;
    let pid = std::str::from_utf8(&bytes[..open])
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or(StatError("bad pid"))?;
    let comm = bytes[open + 1..close].to_vec();
    let rest = std::str::from_utf8(&bytes[close + 1..]).map_err(|_| StatError("not ASCII"))?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    let state = match fields.first().map(|s| s.as_bytes()) {
        Some([b]) if b.is_ascii_alphabetic() => *b,
        _ => return Err(StatError("bad state")),
    };
    // Field n (1-based) is fields[n - 3].
    let num = |n: usize| -> Result<i64, StatError> {
        fields
            .get(n - 3)
            .and_then(|s| s.parse().ok())
            .ok_or(StatError("bad number"))
    };
    Ok(Stat {
        pid,
        comm,
        state,
        ppid: num(4)?,
        pgrp: num(5)?,
        session: num(6)?,
        tty_nr: num(7)?,
        tpgid: num(8)?,
        // Older kernels and odd lines may stop early: the start time is
        // only used to order a group's members.
        starttime: fields.get(22 - 3).and_then(|s| s.parse().ok()).unwrap_or(0),
    })
}

/// `(major, minor)` of a `tty_nr` (the kernel's `new_encode_dev()`:
/// minor's low 8 bits, major's 12 bits, minor's high 12 bits).
pub fn tty_device(tty_nr: i64) -> (u64, u64) {
    let n = tty_nr as u64 & 0xffff_ffff;
    ((n >> 8) & 0xfff, (n & 0xff) | ((n >> 12) & 0xfff00))
}

/// The seconds since boot that `/proc/uptime` gives first (its bytes as
/// read), or `None` when it is not a non-negative number.
pub fn parse_uptime(bytes: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(bytes).ok()?;
    let secs: f64 = text.split_ascii_whitespace().next()?.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

/// How long ago a process started: `uptime` seconds since boot now, its
/// `starttime` in clock ticks after boot (field 22; 0 reads as unknown),
/// `ticks_per_second` the kernel's `USER_HZ` (`sysconf(_SC_CLK_TCK)`).
/// `None` when unknown or when the start lies ahead (clocks disagree).
pub fn age(starttime: u64, uptime: f64, ticks_per_second: u64) -> Option<std::time::Duration> {
    if starttime == 0 || ticks_per_second == 0 {
        return None;
    }
    let started = starttime as f64 / ticks_per_second as f64;
    let ago = uptime - started;
    std::time::Duration::try_from_secs_f64(ago).ok()
}

/// A process name as answers show it: invalid UTF-8 as U+FFFD, control
/// characters (C0, DEL, C1) and U+2028/U+2029 as C-style escapes (`\n`,
/// `\t`, `\x1b`, `\u009b`) and `\` as `\\`, so a name can neither drive a
/// terminal nor break a line, and reads back exactly; at most 64 bytes of
/// name are shown (a task's `comm` has at most 15, a kernel thread's 63).
pub fn display_name(comm: &[u8]) -> String {
    let comm = &comm[..comm.len().min(64)];
    let text: Cow<'_, str> = String::from_utf8_lossy(comm);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 && c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Fuzz entry: [`parse`] and [`parse_uptime`] never panic; what `parse`
/// accepts has a name that [`display_name`] shows without control
/// characters, and an uptime read is never negative.
///
/// # Panics
///
/// When a property fails.
#[doc(hidden)]
pub fn fuzz_stat(data: &[u8]) {
    if let Ok(s) = parse(data) {
        let shown = display_name(&s.comm);
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert!(data.len() >= s.comm.len() + 2);
        if let Some(up) = parse_uptime(data) {
            let _ = age(s.starttime, up, 100);
        }
    }
    if let Some(up) = parse_uptime(data) {
        assert!(up >= 0.0);
    }
    let _ = tty_device(i64::from_le_bytes(
        data.get(..8)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; 8]),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptime_and_age() {
        assert_eq!(parse_uptime(b"12345.67 2345.00\n"), Some(12345.67));
        assert_eq!(parse_uptime(b""), None);
        assert_eq!(parse_uptime(b"-1 0"), None);
        assert_eq!(parse_uptime(b"NaN 0"), None);
        assert_eq!(parse_uptime(b"\xff"), None);
        // Started at 100 s after boot, now 102.5 s: 2.5 s ago.
        assert_eq!(
            age(10_000, 102.5, 100),
            Some(std::time::Duration::from_millis(2500))
        );
        assert_eq!(age(0, 102.5, 100), None);
        assert_eq!(age(20_000, 102.5, 100), None);
        assert_eq!(age(10_000, 102.5, 0), None);
        assert_eq!(age(1, 1e300, 100), None);
    }

    const BASH: &[u8] = b"19699 (bash) S 19698 19699 19699 34820 19699 4194560 1 0 0 0 0 0 0 0 20 0 1 0 123456 8912896 1016 18446744073709551615 1 1 0 0 0 0 65536 3670020 1266777851 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

    #[test]
    fn fields() {
        let s = parse(BASH).unwrap();
        assert_eq!(
            s,
            Stat {
                pid: 19699,
                comm: b"bash".to_vec(),
                state: b'S',
                ppid: 19698,
                pgrp: 19699,
                session: 19699,
                tty_nr: 34820,
                tpgid: 19699,
                starttime: 123456,
            }
        );
        // /dev/pts/4: major 136.
        assert_eq!(tty_device(34820), (136, 4));
        assert_eq!(tty_device(0), (0, 0));
        // A minor above 255 (pts/300).
        let nr = (300 & 0xff) | (136 << 8) | ((300 & !0xff) << 12);
        assert_eq!(tty_device(nr), (136, 300));
    }

    /// A program chooses its name: `)`, spaces, a forged tail of fields,
    /// line feeds and escape bytes cannot move the fields after it.
    #[test]
    fn hostile_names() {
        for name in [
            &b"a) R 1 1 1 0 -1"[..],
            b") (",
            b"x\n1 (y) S",
            b"\x1b[2J\x1b]0;t\x07",
            b"",
            b"((()))",
            b"\xff\xfe",
        ] {
            let mut line = b"42 (".to_vec();
            line.extend_from_slice(name);
            line.extend_from_slice(b") S 7 42 42 34820 42 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0\n");
            let s = parse(&line).unwrap_or_else(|e| panic!("{name:?}: {e}"));
            assert_eq!(s.comm, name);
            assert_eq!((s.pid, s.state, s.ppid, s.tpgid), (42, b'S', 7, 42));
            assert_eq!(s.starttime, 99);
            let shown = display_name(&s.comm);
            assert!(!shown.chars().any(char::is_control), "{shown:?}");
        }
        assert_eq!(display_name(b"a\nb\x1b[1m\\"), "a\\nb\\x1b[1m\\\\");
        assert_eq!(display_name("\u{9b}x".as_bytes()), "\\u009bx");
    }

    #[test]
    fn malformed() {
        for bad in [
            &b""[..],
            b"12",
            b"12 (x",
            b"x (a) S 1 1 1 1 1",
            b"12 (a) 1 1 1 1 1 1",
            b"12 (a) S 1 1 1",
            b"12 (a) S 1 1 1 1 x",
            b"12 )a( S 1 1 1 1 1",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn fuzz_seeds_hold() {
        fuzz_stat(BASH);
        fuzz_stat(b"1 (\x00\x1b)) Z 0 0 0 0 0");
        fuzz_stat(&[0xff; 40]);
    }
}
