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
//!
//! # Password reads with canonical mode off
//!
//! A password reader that shows a `*` per key reads keys one by one, so
//! it turns ICANON off as well as ECHO (public case C41), and the
//! terminal then reads as a TUI's does. Measured on Linux (`stty -a`):
//!
//! | reader | ECHO | ICANON | ISIG | ECHONL |
//! |---|---|---|---|---|
//! | sudo `pwfeedback` (`sudo_term_cbreak()`, lib/util/term.c) | off | off | **on** | off |
//! | sudo-rs (`pwfeedback` by default; its `HiddenInput`) | off | off | on | **on** |
//! | pinentry-curses (curses `cbreak()`: gpg's passphrase, PIN) | off | off | **on** | off |
//! | a TUI in raw mode (`cfmakeraw()`: vi, node, crossterm) | off | off | off | off |
//! | sudo relaying a command on its own pty (`sudo -i`) | off | off | off | off |
//! | readline (bash, python3), `less`, `top` (cbreak) | off | off | on | off |
//!
//! So with ICANON off, a program other than a shell reads a password
//! when ECHONL is on with ECHO off (nothing else keeps Enter's echo while
//! hiding the keys), or when the terminal is in cbreak mode (ISIG on) and
//! either the program is one that reads passwords in that mode
//! ([`is_password_program`]: sudo, pinentry, gpg, …) or the text left of
//! the cursor on its row is a password prompt ([`password_prompt`]:
//! `[sudo] password for ann:`, `Passphrase: ***`, `Enter PIN:`). The
//! program and its screen are untrusted: a program can name itself
//! `sudo` or print `Password:`, which only makes tmuxwire refuse to type
//! (`allow_password_input` overrides), the safe failure; a raw-mode TUI
//! (ISIG off), whatever it prints, is never taken for one.

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
    /// A program reads a password or other secret: a line the terminal
    /// does not echo (ECHO off, ICANON on), or keys one by one with a
    /// `*` each (ICANON off too; see the module docs).
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Termios {
    /// `ECHO`: the terminal echoes what is typed.
    pub echo: bool,
    /// `ICANON`: the terminal collects lines (canonical mode).
    pub icanon: bool,
    /// `ECHONL`: the terminal echoes a newline even with `ECHO` off (a
    /// password reader's Enter); said in the evidence only.
    #[serde(skip)]
    #[schemars(skip)]
    pub echonl: bool,
    /// `ISIG`: C-c and C-z send signals (on in cbreak mode, off in raw
    /// mode); said in the evidence only.
    #[serde(skip)]
    #[schemars(skip)]
    pub isig: bool,
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
    /// The text left of the cursor on its row, as the pane shows it (its
    /// program's output: untrusted); read only when the decision needs
    /// it ([`needs_prompt_row`]), else `None`.
    pub prompt_row: Option<String>,
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

/// Whether `comm` names a program that reads passwords with canonical
/// mode off and nothing else in cbreak mode (ISIG on): `sudo` (and
/// sudo-rs, whose binary is `sudo` too) with `pwfeedback`, `pinentry`
/// and its variants (`pinentry-curses`, `pinentry-tty`), `gpg` waiting
/// on one, and the like. A relaying `sudo` (a command on its own pty)
/// sets raw mode, ISIG off, and is not taken for a password read. A
/// program may take such a name: that only makes typing refused.
pub fn is_password_program(comm: &[u8]) -> bool {
    const NAMES: &[&[u8]] = &[
        b"sudo",
        b"sudo-rs",
        b"su",
        b"su-rs",
        b"doas",
        b"passwd",
        b"pkexec",
        b"login",
        b"gpg",
        b"gpg2",
        b"ssh-add",
        b"ssh-keygen",
        b"kinit",
        b"cryptsetup",
        b"systemd-ask-pas",
    ];
    NAMES.contains(&comm) || comm.starts_with(b"pinentry")
}

/// Words that name a secret in a prompt, lower case: password and its
/// translations in sudo's and PAM's catalogues, passphrase, passcode.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passphrase",
    "pass phrase",
    "passcode",
    "passwort",
    "kennwort",
    "mot de passe",
    "contraseña",
    "contrasena",
    "senha",
    "wachtwoord",
    "hasło",
    "haslo",
    "heslo",
    "lösenord",
    "salasana",
    "jelszó",
    "parola",
    "parool",
    "şifre",
    "adgangskode",
    "passord",
    "пароль",
    "密码",
    "密碼",
    "パスワード",
    "암호",
    "비밀번호",
];

/// Most characters before the colon a prompt is looked at.
const PROMPT_CHARS: usize = 80;

/// The last `n` characters of `s` (all of `s` when it has fewer).
pub(crate) fn last_chars(s: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    let start = s.char_indices().rev().nth(n - 1).map_or(0, |(i, _)| i);
    &s[start..]
}

/// The password prompt `left` (the text left of the cursor on its row)
/// ends with, if any: after the keys' feedback (`*`, `•`, `●`) and
/// blanks, a `:` whose last [`PROMPT_CHARS`] characters before it name a
/// secret ([`SECRET_WORDS`], or `PIN` as a word): `[sudo] password for
/// ann: ***`, `Enter passphrase for key '/k':`, `Mot de passe :`,
/// `│ Passphrase: ***` (pinentry's box), `Enter PIN:`. The prompt is
/// returned (at most [`PROMPT_CHARS`] characters, and the colon) for the
/// evidence.
pub fn password_prompt(left: &str) -> Option<String> {
    let head = left
        .trim_end()
        .trim_end_matches(|c: char| matches!(c, '*' | '•' | '●' | '·' | '∗') || c.is_whitespace());
    let head = head
        .strip_suffix(':')
        .or_else(|| head.strip_suffix('：'))?
        .trim_end();
    let tail = last_chars(head, PROMPT_CHARS);
    let lower = tail.to_lowercase();
    let pin = lower.match_indices("pin").any(|(i, m)| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    });
    (pin || SECRET_WORDS.iter().any(|w| lower.contains(w)))
        .then(|| format!("{}:", tail.trim_start()))
}

/// The part of `row` (a screen row's text) left of cell column `column`
/// (0-based): each character counted by its width (a wide character two
/// cells, a combining mark none).
pub fn left_of(row: &str, column: u32) -> &str {
    use unicode_width::UnicodeWidthChar;
    let mut cells = 0usize;
    for (i, c) in row.char_indices() {
        cells += c.width().unwrap_or(0);
        if cells > column as usize {
            return &row[..i];
        }
    }
    row
}

/// Whether [`classify`] needs [`Facts::prompt_row`] to decide: echo and
/// canonical mode off in cbreak mode (ISIG on, ECHONL off), a foreground
/// program that is neither a shell nor a [`is_password_program`], which
/// is not busy. Only then is the row read (it costs a look at the
/// screen).
pub fn needs_prompt_row(f: &Facts) -> bool {
    let (Some(t), Some(p)) = (f.termios, f.foreground.as_ref()) else {
        return false;
    };
    !t.echo
        && !t.icanon
        && t.isig
        && !t.echonl
        && !is_shell_name(&p.comm)
        && !is_password_program(&p.comm)
        && reads_or_waits(wait_of(p))
}

/// Whether a process waiting so may be in a read of its terminal: not
/// sleeping on a timer, waiting for a child or stopped. Running counts: a
/// reader that takes keys one by one runs for each (pinentry-curses also
/// wakes from its poll now and then), and a look that catches it then
/// must not let typing through.
fn reads_or_waits(w: Wait) -> bool {
    !matches!(w, Wait::Sleep | Wait::Child | Wait::Stopped)
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
        "termios: echo {}, icanon {}, isig {}, echonl {}",
        on_off(t.echo),
        on_off(t.icanon),
        on_off(t.isig),
        on_off(t.echonl)
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
    let prompt = f.prompt_row.as_deref().and_then(password_prompt);
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
        (false, false) if reads_or_waits(w) && t.echonl => {
            ev.push(
                "echo and icanon off with echonl on: keys read one by one, hidden, Enter still \
                 echoed (sudo-rs's password prompt): a password read"
                    .into(),
            );
            Input::Password
        }
        (false, false) if reads_or_waits(w) && t.isig && is_password_program(&p.comm) => {
            ev.push(format!(
                "echo and icanon off in cbreak mode (isig on, as sudo's pwfeedback and pinentry \
                 set it), '{name}' reads passwords: a password read"
            ));
            Input::Password
        }
        (false, false) if reads_or_waits(w) && t.isig && prompt.is_some() => {
            ev.push(format!(
                "echo and icanon off in cbreak mode (isig on), and the cursor follows a password \
                 prompt '{}': a password read",
                prompt
                    .as_deref()
                    .map_or_else(String::new, |p| super::stat::display_name(p.as_bytes()))
            ));
            Input::Password
        }
        (false, false) => {
            if f.prompt_row.is_some() {
                ev.push("the text left of the cursor is not a password prompt".into());
            }
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

/// Fuzz entry (target `password_prompt`): the readers of a screen row a
/// pane's program wrote never panic; [`left_of`] gives a prefix of the row
/// ending at a character boundary, at most `column` cells wide, and
/// stops only where the next character would pass it; a prompt
/// [`password_prompt`] finds ends with a colon, is at most
/// [`PROMPT_CHARS`] characters and the colon, and is found again in
/// itself (input: byte 0 = the cursor's column, then the row, read as
/// UTF-8 with U+FFFD).
///
/// # Panics
///
/// When a property fails.
#[doc(hidden)]
pub fn fuzz_prompt(data: &[u8]) {
    use unicode_width::UnicodeWidthChar;
    let Some((&column, rest)) = data.split_first() else {
        return;
    };
    let row = String::from_utf8_lossy(rest);
    let left = left_of(&row, u32::from(column));
    assert!(row.starts_with(left) && row.is_char_boundary(left.len()));
    let cells: usize = left.chars().map(|c| c.width().unwrap_or(0)).sum();
    assert!(cells <= usize::from(column), "{left:?}");
    if let Some(next) = row[left.len()..].chars().next() {
        assert!(cells + next.width().unwrap_or(0) > usize::from(column));
    }
    for text in [left, &*row] {
        if let Some(p) = password_prompt(text) {
            assert!(p.ends_with(':'), "{p:?}");
            assert!(p.chars().count() <= PROMPT_CHARS + 1, "{p:?}");
            assert_eq!(password_prompt(&p).as_deref(), Some(p.as_str()), "{text:?}");
        }
    }
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
            // ISIG on, as a terminal's default and cbreak mode leave it.
            termios: Some(Termios {
                echo,
                icanon,
                isig: true,
                echonl: false,
            }),
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
            prompt_row: None,
        }
    }

    /// `facts` with ECHO and ICANON off, ISIG and ECHONL as given, and the
    /// text left of the cursor.
    fn cbreak(comm: &str, isig: bool, echonl: bool, row: Option<&str>) -> Facts {
        let mut f = facts(false, false, comm, false, b'S', Some("wait_woken"));
        f.termios = Some(Termios {
            echo: false,
            icanon: false,
            isig,
            echonl,
        });
        f.prompt_row = row.map(str::to_string);
        f
    }

    /// Password reads with canonical mode off (C41), told from TUIs and
    /// relays by the terminal's flags, the program and the prompt.
    #[test]
    fn password_reads_with_icanon_off() {
        let rows = [
            // sudo's pwfeedback: cbreak, and sudo reads passwords.
            (cbreak("sudo", true, false, None), Input::Password),
            // sudo-rs: echonl on with echo off, whatever its name.
            (cbreak("sudo", true, true, None), Input::Password),
            (cbreak("anything", true, true, None), Input::Password),
            // pinentry-curses by name, and gpg waiting on it.
            (
                cbreak("pinentry-curses", true, false, None),
                Input::Password,
            ),
            (cbreak("gpg", true, false, None), Input::Password),
            // Any program in cbreak mode with a password prompt left of
            // the cursor.
            (
                cbreak("python3", true, false, Some("[sudo] password for ann: ***")),
                Input::Password,
            ),
            (
                cbreak("prog", true, false, Some("   │ Passphrase: ***")),
                Input::Password,
            ),
            // ... but not without one: readline in a REPL, less, top.
            (
                cbreak("python3", true, false, Some(">>> x = 1")),
                Input::Raw,
            ),
            (cbreak("less", true, false, Some(":")), Input::Raw),
            (cbreak("top", true, false, None), Input::Raw),
            // A relaying sudo (`sudo -i`, its own pty) and raw-mode TUIs:
            // ISIG off, never a password read, whatever they print.
            (cbreak("sudo", false, false, None), Input::Raw),
            (cbreak("vi", false, false, Some("password:")), Input::Raw),
            (cbreak("node", false, false, Some("Enter PIN:")), Input::Raw),
            // A shell's line editor, whatever the row says.
            (
                cbreak("bash", true, false, Some("$ read -p Password:")),
                Input::LineEditor,
            ),
        ];
        for (f, want) in rows {
            let (got, ev) = classify(&f);
            assert_eq!(got, want, "{f:?}: {ev:?}");
            assert!(ev.iter().any(|e| e.contains("isig")), "{ev:?}");
        }
        // Asleep or waiting for a child: not reading; caught running
        // (a key being read): still a password read.
        let mut f = cbreak("sudo", true, true, None);
        f.foreground.as_mut().unwrap().wchan = Some("do_wait".into());
        assert_eq!(classify(&f).0, Input::Raw);
        f.foreground.as_mut().unwrap().state = b'R';
        assert_eq!(classify(&f).0, Input::Password);
        // The row is read only where it decides.
        assert!(needs_prompt_row(&cbreak("python3", true, false, None)));
        for f in [
            cbreak("sudo", true, false, None),
            cbreak("prog", true, true, None),
            cbreak("vi", false, false, None),
            cbreak("bash", true, false, None),
            facts(false, true, "x", false, b'S', Some("wait_woken")),
        ] {
            assert!(!needs_prompt_row(&f), "{f:?}");
        }
    }

    #[test]
    fn last_chars_counts_characters_not_bytes() {
        for (s, n, last) in [
            ("Mot de passe", 5, "passe"),
            ("日本語", 2, "本語"),
            ("ab", 5, "ab"),
            ("ab", 0, ""),
        ] {
            assert_eq!(last_chars(s, n), last, "{s:?} {n}");
        }
    }

    #[test]
    fn password_prompts() {
        for (row, want) in [
            (
                "[sudo] password for ann: ",
                Some("[sudo] password for ann:"),
            ),
            (
                "[sudo] password for ann: *******",
                Some("[sudo] password for ann:"),
            ),
            ("Password:", Some("Password:")),
            (
                "Enter passphrase for key '/root/.ssh/id':",
                Some("Enter passphrase for key '/root/.ssh/id':"),
            ),
            ("  │ Passphrase: ***", Some("│ Passphrase:")),
            ("Enter PIN: ", Some("Enter PIN:")),
            ("PIN:••", Some("PIN:")),
            (
                "[sudo] Passwort für ann: ",
                Some("[sudo] Passwort für ann:"),
            ),
            ("Mot de passe : ", Some("Mot de passe:")),
            ("[sudo] пароль для ann: ", Some("[sudo] пароль для ann:")),
            ("密码：", Some("密码:")),
            // Not a prompt: no colon last, no secret word, PIN inside a word.
            ("Password: hunter2", None),
            ("Username:", None),
            ("spinning:", None),
            ("pinned:", None),
            (">>> ", None),
            ("", None),
        ] {
            assert_eq!(password_prompt(row).as_deref(), want, "{row:?}");
        }
        // Only the last 80 characters before the colon count.
        let far = format!("password {}:", "x".repeat(100));
        assert_eq!(password_prompt(&far), None);
    }

    proptest::proptest! {
        /// Rows built from prompt pieces, wide and combining characters,
        /// feedback and controls keep [`fuzz_prompt`]'s properties.
        #[test]
        fn prompt_rows_keep_the_fuzz_properties(
            column in 0u8..=255,
            pieces in proptest::collection::vec(0usize..12, 0..24),
        ) {
            const PIECES: [&str; 12] = [
                "Password", ": ", "PIN", "*", "日本", "e\u{301}", " ", "passphrase",
                "：", "\u{1b}[", "x", "İ",
            ];
            let row: String = pieces.iter().map(|&i| PIECES[i]).collect();
            let mut data = vec![column];
            data.extend_from_slice(row.as_bytes());
            fuzz_prompt(&data);
        }
    }

    #[test]
    fn left_of_the_cursor() {
        assert_eq!(left_of("Password: ***____", 13), "Password: ***");
        assert_eq!(left_of("ab", 5), "ab");
        assert_eq!(left_of("日本x", 2), "日");
        assert_eq!(left_of("日本x", 3), "日");
        assert_eq!(left_of("e\u{301}x", 1), "e\u{301}");
        assert_eq!(left_of("abc", 0), "");
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
        // (echo, icanon, command, shell, state, wait channel): the input.
        let rows = [
            // A nested shell at its prompt; a TUI never counts as a shell.
            (
                (false, false, "zsh", false, b'S', Some("do_select")),
                Input::LineEditor,
            ),
            // Canonical mode without a wait channel: not decidable.
            ((true, true, "cat", false, b'S', None), Input::Unknown),
            ((true, true, "cat", false, b'S', Some("0")), Input::Unknown),
            // Canonical mode in poll (a download) or a futex: busy.
            (
                (true, true, "curl", false, b'S', Some("do_sys_poll")),
                Input::Busy,
            ),
            (
                (true, true, "java", false, b'S', Some("futex_wait_queue")),
                Input::Busy,
            ),
            // Echo off with icanon on while asleep or waiting for a child: busy.
            (
                (false, true, "x", false, b'S', Some("hrtimer_nanosleep")),
                Input::Busy,
            ),
            (
                (false, true, "sh", true, b'S', Some("do_wait")),
                Input::Busy,
            ),
            // ... with its wait channel unknown: still a password read.
            ((false, true, "sudo", false, b'S', None), Input::Password),
            // A stopped raw program.
            ((false, false, "vi", false, b'T', None), Input::Busy),
        ];
        for ((echo, icanon, comm, shell, state, wchan), want) in rows {
            let (got, ev) = classify(&facts(echo, icanon, comm, shell, state, wchan));
            assert_eq!(got, want, "{comm} {wchan:?}: {ev:?}");
        }
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
