//! What a pane's program is doing with its input, classified from the
//! facts [`super::probe`] reads. Pure.
//!
//! The table measured on Linux (`terminal-state.md` §3.2):
//!
//! | foreground | ECHO | ICANON | wchan |
//! |---|---|---|---|
//! | bash at its prompt (readline) | off | off | `poll_schedule_timeout` |
//! | a REPL, `vi` | off | off | `poll_schedule_timeout` |
//! | `read -s`, `getpass()` | off | **on** | `wait_woken` |
//! | `read`, `cat` | on | on | `wait_woken` |
//! | `sleep`, a busy program | on | on | `hrtimer_nanosleep` |
//! | bash `read -n 1`, zsh `read -k` / `read -q` (a y/n question) | **on** | off | `wait_woken` |
//! | zsh at its prompt (ZLE) | off | off | `wait_woken` |
//! | bash `read -s -n 1`, fish's `read` | off | off | `wait_woken` / `poll_schedule_timeout` |
//!
//! ECHO off with ICANON on is a password read. ICANON off with ECHO on is
//! a program reading single keys (a line editor or a TUI turns echo off
//! and draws what is typed itself). ICANON off with ECHO off is a line
//! editor when a shell (by its name: bash, zsh, fish, …) is in the
//! foreground and a raw program (TUI) otherwise — except that the pane's
//! own shell editing a line while its marks say a command runs
//! ([`Facts::command_running`]) is that command's `read` (bash
//! `read -s -n 1`, fish's `read`, which reads with the line editor). In
//! canonical mode only the wait channel tells a line read from a busy
//! program, so without it the answer is `unknown`. An event-loop TUI waits
//! in `epoll_wait` whether it works or idles: the kernel cannot tell those
//! apart, and `raw` says no more.

use schemars::JsonSchema;
use serde::Serialize;

/// What the pane's foreground program does with its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    /// A shell edits a command line (ICANON off, a shell in the
    /// foreground).
    LineEditor,
    /// A program reads a line the terminal echoes (ECHO and ICANON on,
    /// blocked in a read).
    LineRead,
    /// A program reads a line the terminal does not echo (ECHO off,
    /// ICANON on): a password or other secret.
    Password,
    /// A program waits for single keys, not a line: ICANON off with ECHO
    /// on, reading (bash `read -n 1`, zsh `read -k` and `read -q`, a y/n
    /// question), or the pane's shell reading keys while its marks say a
    /// command runs (bash `read -s -n 1`, fish's `read`).
    KeyRead,
    /// A program reads keys itself (ICANON off, not the shell): a TUI.
    Raw,
    /// The program is not reading: running, sleeping, waiting on a child
    /// or on something else.
    Busy,
    /// The facts could not be read (another user's terminal, another pid
    /// namespace, a dead pane) or do not decide.
    Unknown,
}

impl Input {
    /// Its name as answers spell it (`line-editor`, `password`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Input::LineEditor => "line-editor",
            Input::LineRead => "line-read",
            Input::Password => "password",
            Input::KeyRead => "key-read",
            Input::Raw => "raw",
            Input::Busy => "busy",
            Input::Unknown => "unknown",
        }
    }
}

/// The terminal settings that matter (termios `c_lflag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Termios {
    /// `ECHO`: the terminal echoes what is typed.
    pub echo: bool,
    /// `ICANON`: the terminal collects lines (canonical mode).
    pub icanon: bool,
}

/// The foreground process as read from `/proc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    /// Its pid (in tmuxwire's pid namespace).
    pub pid: u32,
    /// Its name (`comm`), raw bytes as the program chose them.
    pub comm: Vec<u8>,
    /// Its state letter (`/proc/<pid>/stat` field 3).
    pub state: u8,
    /// `/proc/<pid>/wchan` as read (may carry a `.constprop.0`-style
    /// suffix); `None` when it could not be read.
    pub wchan: Option<String>,
}

/// The facts one classification uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The pane terminal's settings; `None` when they could not be read.
    pub termios: Option<Termios>,
    /// The foreground process; `None` when it could not be found.
    pub foreground: Option<Process>,
    /// Whether the foreground process is the pane's own first process
    /// (`pane_pid`, its shell).
    pub shell_in_foreground: bool,
    /// How long ago the pane's first process (`pane_pid`) started; `None`
    /// when it could not be read or is not this pane's.
    pub pane_age: Option<std::time::Duration>,
    /// Whether the shell-integration marks of the pane's copy say a
    /// command runs (OSC 133 `C` without `D`; advisory); `None` without a
    /// copy.
    pub command_running: Option<bool>,
    /// How the facts were read and which could not be: evidence, in
    /// order (`pane_tty /dev/pts/3: permission denied`).
    pub notes: Vec<String>,
}

/// Where a process waits, from its state and wait channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Blocked in a read (`wait_woken`, `n_tty_read`).
    Read,
    /// Waiting in `poll`/`select`/`epoll`.
    Poll,
    /// Sleeping on a timer (`hrtimer_nanosleep`, `do_nanosleep`).
    Sleep,
    /// Waiting for a child (`do_wait`).
    Child,
    /// Running (state `R`) or in an uninterruptible wait (`D`).
    Running,
    /// Stopped or traced (`T`, `t`), or exited (`Z`, `X`).
    Stopped,
    /// Blocked somewhere else (a futex, a pipe, a socket).
    Other,
    /// The wait channel could not be read (or read `0` for a sleeping
    /// process: denied, or the process woke meanwhile).
    Unknown,
}

/// The wait channel's function name: `poll_schedule_timeout` of
/// `poll_schedule_timeout.constprop.0`.
pub fn wchan_name(wchan: &str) -> &str {
    let w = wchan.trim();
    w.split_once('.').map_or(w, |(head, _)| head)
}

/// Where `p` waits.
pub fn wait_of(p: &Process) -> Wait {
    match p.state {
        b'R' | b'D' => return Wait::Running,
        b'T' | b't' | b'Z' | b'X' | b'x' => return Wait::Stopped,
        _ => {}
    }
    let Some(w) = p.wchan.as_deref().map(wchan_name) else {
        return Wait::Unknown;
    };
    match w {
        "" | "0" => Wait::Unknown,
        "wait_woken" | "n_tty_read" | "tty_read" => Wait::Read,
        "poll_schedule_timeout"
        | "do_select"
        | "core_sys_select"
        | "do_poll"
        | "do_sys_poll"
        | "ep_poll"
        | "do_epoll_wait" => Wait::Poll,
        "hrtimer_nanosleep" | "do_nanosleep" | "common_nsleep" | "clock_nanosleep" => Wait::Sleep,
        "do_wait" | "kernel_wait4" => Wait::Child,
        _ => Wait::Other,
    }
}

/// Whether `comm` is a well-known interactive shell's name (a nested
/// shell at its prompt edits lines as the pane's own shell does). A
/// program may take such a name; it changes only `line-editor` against
/// `raw`, never `password`.
pub fn is_shell_name(comm: &[u8]) -> bool {
    const SHELLS: &[&[u8]] = &[
        b"bash", b"sh", b"dash", b"ash", b"zsh", b"fish", b"ksh", b"mksh", b"oksh", b"pdksh",
        b"yash", b"tcsh", b"csh", b"nu", b"elvish", b"xonsh",
    ];
    SHELLS.contains(&comm)
}

/// Shells that read their command line in canonical mode (no line
/// editor of their own): `dash`, `sh` (dash or a POSIX `sh` on Debian
/// and most systems), `ash`, `posh`.
fn is_editorless_shell(comm: &[u8]) -> bool {
    matches!(comm, b"dash" | b"sh" | b"ash" | b"posh")
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// What [`wait_of`] found, said as evidence.
fn wait_evidence(p: &Process, w: Wait) -> String {
    let state = char::from(p.state);
    let wchan = p.wchan.as_deref().map(wchan_name);
    let name = super::stat::display_name(wchan.unwrap_or("").as_bytes());
    match (w, wchan) {
        (Wait::Running, _) => format!("pid {} is running (state {state})", p.pid),
        (Wait::Stopped, _) => format!("pid {} is stopped or exited (state {state})", p.pid),
        (Wait::Unknown, None) => format!("wchan of pid {} not readable", p.pid),
        (Wait::Unknown, Some(_)) => {
            format!(
                "wchan of pid {} reads 0 while it sleeps (denied or woken)",
                p.pid
            )
        }
        (Wait::Read, _) => format!("wchan of pid {}: {name} (blocked in a read)", p.pid),
        (Wait::Poll, _) => format!("wchan of pid {}: {name} (waiting in poll/select)", p.pid),
        (Wait::Sleep, _) => format!("wchan of pid {}: {name} (sleeping on a timer)", p.pid),
        (Wait::Child, _) => format!("wchan of pid {}: {name} (waiting for a child)", p.pid),
        (Wait::Other, _) => format!("wchan of pid {}: {name} (not a terminal read)", p.pid),
    }
}

/// Classifies `f`: the input state and the evidence for it (`f.notes`
/// first, then each fact the decision used).
pub fn classify(f: &Facts) -> (Input, Vec<String>) {
    let mut ev = f.notes.clone();
    let (Some(t), Some(p)) = (f.termios, f.foreground.as_ref()) else {
        ev.push(
            "unknown: the terminal's settings or its foreground process could not be read".into(),
        );
        return (Input::Unknown, ev);
    };
    ev.push(format!(
        "termios: echo {}, icanon {}",
        on_off(t.echo),
        on_off(t.icanon)
    ));
    let name = super::stat::display_name(&p.comm);
    if f.shell_in_foreground {
        ev.push(format!(
            "foreground: pid {} '{name}', pane_pid (the pane's first process)",
            p.pid
        ));
    } else {
        ev.push(format!("foreground: pid {} '{name}', not pane_pid", p.pid));
    }
    // pane_pid is the pane's shell only when the pane runs one: tmux's
    // `sh -c` execs a lone command (`vi`), which then is pane_pid.
    let shell = is_shell_name(&p.comm);
    let w = wait_of(p);
    ev.push(wait_evidence(p, w));
    let input = match (t.echo, t.icanon) {
        (false, true) => match w {
            Wait::Sleep | Wait::Child | Wait::Running | Wait::Stopped => {
                ev.push("echo off with icanon on, but not reading: busy".into());
                Input::Busy
            }
            _ => {
                ev.push("echo off with icanon on: a password read".into());
                Input::Password
            }
        },
        (_, false) if w == Wait::Stopped => Input::Busy,
        (true, false) => match w {
            Wait::Read | Wait::Poll => {
                ev.push(
                    "icanon off with echo on: a program reads single keys (a line editor or a \
                     TUI turns echo off)"
                        .into(),
                );
                Input::KeyRead
            }
            Wait::Unknown => {
                ev.push("unknown: icanon off with echo on, but no wait channel to tell a key read from work".into());
                Input::Unknown
            }
            _ => Input::Busy,
        },
        (false, false) if shell && f.shell_in_foreground && f.command_running == Some(true) => {
            ev.push(format!(
                "icanon off in '{name}', the pane's shell, while its marks say a command runs: \
                 the shell reads keys for that command (`read`)"
            ));
            Input::KeyRead
        }
        (false, false) if shell => {
            ev.push(format!(
                "icanon off, '{name}' is a shell's name: a line editor"
            ));
            Input::LineEditor
        }
        (false, false) => {
            ev.push("icanon off, not a shell: a program reading raw keys".into());
            Input::Raw
        }
        (true, true) => match w {
            // dash and the like have no line editor: at their prompt the
            // kernel edits the line, as for any canonical read (`read`
            // at such a prompt looks the same, and is called so too).
            Wait::Read if is_editorless_shell(&p.comm) => {
                ev.push(format!(
                    "echo and icanon on, blocked in a read by '{name}', a shell without a line \
                     editor: its command line"
                ));
                Input::LineEditor
            }
            Wait::Read => {
                ev.push("echo and icanon on, blocked in a read: a line read".into());
                Input::LineRead
            }
            Wait::Unknown => {
                ev.push(
                    "unknown: in canonical mode only the wait channel tells a read from a busy \
                     program"
                        .into(),
                );
                Input::Unknown
            }
            _ => Input::Busy,
        },
    };
    (input, ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(
        echo: bool,
        icanon: bool,
        comm: &str,
        shell: bool,
        state: u8,
        wchan: Option<&str>,
    ) -> Facts {
        Facts {
            termios: Some(Termios { echo, icanon }),
            foreground: Some(Process {
                pid: 10,
                comm: comm.as_bytes().to_vec(),
                state,
                wchan: wchan.map(str::to_string),
            }),
            shell_in_foreground: shell,
            pane_age: None,
            command_running: None,
            notes: Vec::new(),
        }
    }

    /// The table of `terminal-state.md` §3.2, row by row.
    #[test]
    fn the_measured_table() {
        let poll = Some("poll_schedule_timeout.constprop.0");
        let read = Some("wait_woken");
        let rows = [
            (
                facts(false, false, "bash", true, b'S', poll),
                Input::LineEditor,
            ),
            (
                facts(false, false, "python3", false, b'S', poll),
                Input::Raw,
            ),
            (facts(false, false, "vi", false, b'S', poll), Input::Raw),
            (
                facts(false, true, "bash", true, b'S', read),
                Input::Password,
            ),
            (
                facts(false, true, "python3", false, b'S', read),
                Input::Password,
            ),
            (facts(true, true, "bash", true, b'S', read), Input::LineRead),
            (facts(true, true, "cat", false, b'S', read), Input::LineRead),
            // dash at its prompt: the kernel edits the line.
            (
                facts(true, true, "dash", true, b'S', read),
                Input::LineEditor,
            ),
            (facts(true, true, "bash", true, b'S', read), Input::LineRead),
            (
                facts(true, true, "sleep", false, b'S', Some("hrtimer_nanosleep")),
                Input::Busy,
            ),
            (
                facts(true, true, "python3", false, b'R', Some("0")),
                Input::Busy,
            ),
        ];
        for (f, want) in rows {
            let (got, ev) = classify(&f);
            assert_eq!(got, want, "{f:?}: {ev:?}");
            assert!(ev.iter().any(|e| e.starts_with("termios: ")), "{ev:?}");
            assert!(
                ev.iter().any(|e| e.starts_with("foreground: pid 10")),
                "{ev:?}"
            );
        }
    }

    /// Single-key reads: echo on with icanon off (measured: bash
    /// `read -n 1`, zsh `read -k`, `read -q`); the pane's shell editing a
    /// line while its marks say a command runs (bash `read -s -n 1`, fish's
    /// `read`).
    #[test]
    fn key_reads() {
        let read = Some("wait_woken");
        let poll = Some("poll_schedule_timeout.constprop.0");
        for comm in ["bash", "zsh", "python3"] {
            let (i, ev) = classify(&facts(true, false, comm, true, b'S', read));
            assert_eq!(i, Input::KeyRead, "{comm}: {ev:?}");
        }
        assert_eq!(
            classify(&facts(
                true,
                false,
                "x",
                false,
                b'S',
                Some("hrtimer_nanosleep")
            ))
            .0,
            Input::Busy
        );
        assert_eq!(
            classify(&facts(true, false, "x", false, b'S', None)).0,
            Input::Unknown
        );
        // Echo off: the marks decide, and only for the pane's own shell.
        let mut f = facts(false, false, "fish", true, b'S', poll);
        assert_eq!(classify(&f).0, Input::LineEditor);
        f.command_running = Some(false);
        assert_eq!(classify(&f).0, Input::LineEditor);
        f.command_running = Some(true);
        let (i, ev) = classify(&f);
        assert_eq!(i, Input::KeyRead, "{ev:?}");
        assert!(ev.iter().any(|e| e.contains("marks say")), "{ev:?}");
        // A shell the command started, at its prompt: its line editor.
        f.shell_in_foreground = false;
        assert_eq!(classify(&f).0, Input::LineEditor);
        // A TUI is raw whatever the marks say.
        let mut f = facts(false, false, "vi", false, b'S', poll);
        f.command_running = Some(true);
        assert_eq!(classify(&f).0, Input::Raw);
    }

    #[test]
    fn edges() {
        // A nested shell at its prompt; a TUI never counts as a shell.
        let (i, ev) = classify(&facts(false, false, "zsh", false, b'S', Some("do_select")));
        assert_eq!(i, Input::LineEditor, "{ev:?}");
        // Canonical mode without a wait channel: not decidable.
        assert_eq!(
            classify(&facts(true, true, "cat", false, b'S', None)).0,
            Input::Unknown
        );
        assert_eq!(
            classify(&facts(true, true, "cat", false, b'S', Some("0"))).0,
            Input::Unknown
        );
        // Canonical mode in poll (a download) or a futex: busy.
        assert_eq!(
            classify(&facts(true, true, "curl", false, b'S', Some("do_sys_poll"))).0,
            Input::Busy
        );
        assert_eq!(
            classify(&facts(
                true,
                true,
                "java",
                false,
                b'S',
                Some("futex_wait_queue")
            ))
            .0,
            Input::Busy
        );
        // Echo off with icanon on while asleep or waiting for a child: busy.
        assert_eq!(
            classify(&facts(
                false,
                true,
                "x",
                false,
                b'S',
                Some("hrtimer_nanosleep")
            ))
            .0,
            Input::Busy
        );
        assert_eq!(
            classify(&facts(false, true, "sh", true, b'S', Some("do_wait"))).0,
            Input::Busy
        );
        // ... with its wait channel unknown: still a password read.
        assert_eq!(
            classify(&facts(false, true, "sudo", false, b'S', None)).0,
            Input::Password
        );
        // A stopped raw program.
        assert_eq!(
            classify(&facts(false, false, "vi", false, b'T', None)).0,
            Input::Busy
        );
        // Missing facts: unknown, with the notes first.
        let mut f = facts(true, true, "cat", false, b'S', Some("wait_woken"));
        f.termios = None;
        f.notes
            .push("pane_tty /dev/pts/9: permission denied".into());
        let (i, ev) = classify(&f);
        assert_eq!(i, Input::Unknown);
        assert_eq!(ev[0], "pane_tty /dev/pts/9: permission denied");
        let (i, _) = classify(&Facts::default());
        assert_eq!(i, Input::Unknown);
    }

    /// A hostile name shows escaped in the evidence.
    #[test]
    fn hostile_name_in_evidence() {
        let (_, ev) = classify(&facts(
            true,
            true,
            "a)\n\x1b[2J",
            false,
            b'S',
            Some("wait_woken"),
        ));
        assert!(
            ev.iter().all(|e| !e.chars().any(char::is_control)),
            "{ev:?}"
        );
        assert!(ev.iter().any(|e| e.contains("a)\\n\\x1b[2J")), "{ev:?}");
    }

    #[test]
    fn wchan_names() {
        assert_eq!(
            wchan_name("poll_schedule_timeout.constprop.0\n"),
            "poll_schedule_timeout"
        );
        assert_eq!(wchan_name("wait_woken"), "wait_woken");
    }
}
