//! Creating sessions, windows and panes, and what runs in them:
//! `create_session`, `create_window`, `split_window`, `respawn_pane`,
//! `pipe_pane`.
//!
//! Each is one round trip when its target is given by id: the command
//! prints the new object's state itself (`-P -F`), or the read follows the
//! action on the same line. Names and directories pass through
//! [`escape_format`] where tmux expands formats in that argument.

use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Server;
use super::kill::guard_pane;
use super::manage::{Acted, Name};
use crate::control::format::{Query, escape_format, escape_format_time};
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::tmux::act::{PaneIdRow, pane_id_read};
use crate::tmux::error::shorten;
use crate::tmux::model::Attached;
use crate::tmux::target::one_record;
use crate::tmux::{Error, ErrorKind, PaneInfo, Selector, SessionInfo, WindowInfo};

/// What a spawned process gets: its directory, environment, command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spawn {
    start_directory: Option<PathBuf>,
    environment: Vec<(String, String)>,
    shell: Option<String>,
}

impl Spawn {
    /// A spawn in `start_directory` (see [`start_directory`]) running
    /// `shell` (a shell command; `None`: the default shell, or the pane's
    /// first command for a respawn), with no environment of its own.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for an empty `shell` or one with a
    /// NUL byte (checked first), or a directory that does not exist.
    pub fn new(start_directory: Option<&str>, shell: Option<&str>) -> Result<Spawn, Error> {
        if let Some(s) = shell
            && (s.trim().is_empty() || s.contains('\0'))
        {
            return Err(Error::invalid(
                "shell",
                "shell must be a non-empty command without NUL bytes",
                "a command such as \"htop\", or leave it out for the default shell",
            ));
        }
        Ok(Spawn {
            start_directory: start_directory.map(self::start_directory).transpose()?,
            environment: Vec::new(),
            shell: shell.map(str::to_string),
        })
    }

    /// The same spawn with `environment`: `NAME=value` pairs (`-e`), in
    /// order.
    #[must_use]
    pub fn with_environment(mut self, environment: Vec<(String, String)>) -> Spawn {
        self.environment = environment;
        self
    }

    /// Adds `-c` and `-e` to `cmd` (not the shell command).
    fn flags(&self, mut cmd: Command) -> Command {
        if let Some(d) = &self.start_directory {
            cmd = cmd.opt("-c", escape_format(&d.to_string_lossy()));
        }
        for (k, v) in &self.environment {
            cmd = cmd.opt("-e", format!("{k}={v}"));
        }
        cmd
    }

    /// Appends the shell command, after `--`, when there is one.
    fn command(&self, cmd: Command) -> Command {
        match &self.shell {
            Some(s) => cmd.arg("--").arg(s.clone()),
            None => cmd,
        }
    }

    /// `cmd` with the directory, environment and command.
    fn apply(&self, cmd: Command) -> Command {
        self.command(self.flags(cmd))
    }
}

/// The directory a caller gives, checked: `~` expanded, made absolute
/// (relative to tmuxwire's directory), and existing.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`] naming the absolute path when it is not
/// an existing directory.
pub fn start_directory(dir: &str) -> Result<PathBuf, Error> {
    let expanded = match dir.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(dir),
    };
    let abs = if expanded.is_absolute() {
        expanded
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(expanded)
    };
    if dir.is_empty() || dir.contains('\0') || !abs.is_dir() {
        return Err(Error::invalid(
            "start_directory",
            format!(
                "start_directory is not an existing directory: '{}'",
                shorten(&abs.to_string_lossy(), 200)
            ),
            "the path of an existing directory",
        ));
    }
    Ok(abs)
}

/// `cmd` (a command that makes a session, window or pane) printing the
/// new object's record (`-P -F`, the template of `fields`), framed so that
/// its answer parses with the query returned.
fn printing(cmd: Command, fields: &[&str]) -> (Command, Query) {
    let q = Query::new(fields);
    let cmd = cmd.arg("-P").opt("-F", q.template()).frame(q.frame());
    (cmd, q)
}

/// `create_session`: creates a detached session (starting a server on
/// the socket when none runs, as `tmux new-session` does); its state.
///
/// # Errors
///
/// tmux's errors (`duplicate session: NAME`); [`ErrorKind::Timeout`] when
/// starting a server does not finish.
#[derive(Default)]
pub struct CreateSessionRequest {
    /// `-s`: stored literally (tmux turns `:` and `.` into `_`).
    pub session_name: Option<Name>,
    /// `-n`: stored literally.
    pub window_name: Option<Name>,
    /// `-x` cells.
    pub width: Option<u32>,
    /// `-y` rows.
    pub height: Option<u32>,
    /// Directory and environment.
    pub spawn: Spawn,
}

op!(CreateSessionRequest, SessionInfo, async |req, server, _| {
    let (mut cmd, q) = printing(Command::new("new-session").arg("-d"), SessionInfo::FIELDS);
    if let Some(n) = &req.session_name {
        cmd = cmd.opt("-s", escape_format(n.as_str()));
    }
    if let Some(n) = &req.window_name {
        cmd = cmd.opt("-n", escape_format(n.as_str()));
    }
    cmd = cmd
        .opt_if("-x", req.width.map(|w| w.to_string()))
        .opt_if("-y", req.height.map(|h| h.to_string()));
    let cmd = req.spawn.apply(cmd);
    let body = match server.act(vec![cmd.clone()]).await {
        Ok(mut out) => out.pop().unwrap_or_default(),
        // No server: start one, as `tmux new-session` does.
        Err(e) if matches!(e.kind(), ErrorKind::NoServer | ErrorKind::SocketGone) => {
            start_server(server, &cmd).await?
        }
        Err(e) => return Err(e),
    };
    let r = q
        .parse(&body)
        .into_iter()
        .next()
        .ok_or_else(|| Error::tmux("new-session printed no session"))?;
    // A session made detached has no client yet.
    Ok(SessionInfo::from_record(&r, &Attached::default()))
});

/// Runs `new_session` with the tmux binary, which starts a server on the
/// socket (only a tmux process can become a server; tmuxwire never forks
/// one itself). The binary is `$TMUXWIRE_TMUX` or `tmux` on `PATH`; it
/// reads the user's configuration as tmux does. Returns what the command
/// printed.
async fn start_server(server: &Server, new_session: &Command) -> Result<Vec<u8>, Error> {
    if let Some(remote) = server.endpoint().remote() {
        // The host's own tmux starts the server there (the only call that
        // may: every other one-shot runs with -N).
        let out = remote
            .run_command_list(&[new_session.argv()], Duration::from_secs(20), true)
            .await?;
        if !out.success() {
            return Err(Error::from_tmux(&out.error_text()));
        }
        return Ok(out.stdout);
    }
    let bin = std::env::var("TMUXWIRE_TMUX")
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "tmux".into());
    let mut cmd = tokio::process::Command::new(&bin);
    cmd.arg("-S").arg(server.socket_path());
    for a in new_session.argv() {
        // As a one-shot client's MSG_COMMAND: a final ';' would end the
        // command (cmd-parse.c: cmd_parse_from_arguments()).
        match a.strip_suffix(';') {
            Some(head) => cmd.arg(format!("{head}\\;")),
            None => cmd.arg(a),
        };
    }
    cmd.env_remove("TMUX").env_remove("TMUX_PANE");
    cmd.stdin(std::process::Stdio::null());
    let out = tokio::time::timeout(Duration::from_secs(20), cmd.output())
        .await
        .map_err(|_| Error::timeout(format!("{bin} new-session did not finish within 20s")))?
        .map_err(|e| {
            Error::tmux(format!(
                "no tmux server runs on {}, and starting one with {bin} failed: {e}",
                server.socket_path().display()
            ))
        })?;
    if !out.status.success() {
        return Err(Error::from_tmux(&String::from_utf8_lossy(&out.stderr)));
    }
    Ok(out.stdout)
}

/// Where `create_window` puts the window (`None`: at the next free
/// index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// Just before the current window.
    Before,
    /// Just after the current window.
    After,
}

/// `create_window`: creates a window in a session; its state.
///
/// # Errors
///
/// [`ErrorKind::NotFound`]; tmux's errors.
#[derive(Default)]
pub struct CreateWindowRequest {
    /// The session (the default one when none is named).
    pub session: Selector,
    /// `-n`: stored literally.
    pub window_name: Option<Name>,
    /// Make it the session's current window (no `-d`).
    pub attach: bool,
    /// Before (`-b`) or after (`-a`) the current window.
    pub place: Option<Place>,
    /// Directory, environment and command.
    pub spawn: Spawn,
}

op!(CreateWindowRequest, WindowInfo, async |req, server, _| {
    let session = server.session_target(&req.session).await?;
    let (cmd, q) = printing(Command::new("new-window"), WindowInfo::FIELDS);
    let mut cmd = cmd.opt("-t", format!("{}:", session.to_arg(TargetKind::Session)));
    if !req.attach {
        cmd = cmd.arg("-d");
    }
    match req.place {
        Some(Place::Before) => cmd = cmd.arg("-b"),
        Some(Place::After) => cmd = cmd.arg("-a"),
        None => {}
    }
    if let Some(n) = &req.window_name {
        cmd = cmd.opt("-n", escape_format(n.as_str()));
    }
    let cmd = req.spawn.apply(cmd);
    let out = server.act(vec![cmd]).await?;
    let r = one_record(&q, &out[0], &session)?;
    Ok(WindowInfo::from_record(&r))
});

/// Where `split_window` puts the new pane relative to the one split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitDirection {
    /// The new pane above.
    Above,
    /// Below (tmux's default).
    Below,
    /// Left.
    Left,
    /// Right.
    Right,
}

/// The new pane's size in a split (`-l`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitSize {
    /// Cells (1 … 99999).
    Cells(u32),
    /// A percentage of the pane split (1 … 99999, as tmux takes it).
    Percent(u32),
}

impl SplitSize {
    /// Parses `N` (cells) or `N%`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for `size` otherwise.
    pub fn parse(text: &str) -> Result<SplitSize, Error> {
        let text = text.trim();
        let (digits, percent) = match text.strip_suffix('%') {
            Some(d) => (d, true),
            None => (text, false),
        };
        let n =
            (!digits.is_empty() && digits.len() <= 5 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u32>().ok())
                .flatten()
                .filter(|n| *n > 0);
        match n {
            Some(n) if percent => Ok(SplitSize::Percent(n)),
            Some(n) => Ok(SplitSize::Cells(n)),
            None => Err(Error::invalid(
                "size",
                format!(
                    "size must be a number of cells or a percentage (received {:?})",
                    shorten(text, 20)
                ),
                "a number of cells such as 20, or a percentage such as \"30%\"",
            )),
        }
    }

    /// The `-l` value.
    fn argument(self) -> String {
        match self {
            SplitSize::Cells(n) => n.to_string(),
            SplitSize::Percent(n) => format!("{n}%"),
        }
    }
}

/// `split_window`: splits a pane; the new pane's state, read once its
/// program runs (tmux reads it while its process may still be a copy of
/// the server: see `spawned`). The new pane does not take the focus
/// (`-d`, as libtmux-mcp splits): the active pane stays the one a person
/// was using.
///
/// # Errors
///
/// [`ErrorKind::NotFound`]; tmux's errors (`no space for new pane`).
#[derive(Default)]
pub struct SplitWindowRequest {
    /// The pane split (by id; else the active pane of the window or
    /// session named; else the caller's own or the default one).
    pub pane: Selector,
    /// Where the new pane goes (`None`: below).
    pub direction: Option<SplitDirection>,
    /// Its size (`None`: half).
    pub size: Option<SplitSize>,
    /// Directory, environment and command.
    pub spawn: Spawn,
}

op!(SplitWindowRequest, PaneInfo, async |req, server, _| {
    let pane = server.pane_target(&req.pane).await?;
    let split = Command::new("split-window").target(&pane, TargetKind::Pane);
    let (mut cmd, q) = printing(split.arg("-d"), PaneInfo::FIELDS);
    cmd = match req.direction {
        Some(SplitDirection::Above) => cmd.arg("-v").arg("-b"),
        Some(SplitDirection::Below) => cmd.arg("-v"),
        Some(SplitDirection::Left) => cmd.arg("-h").arg("-b"),
        Some(SplitDirection::Right) => cmd.arg("-h"),
        None => cmd,
    };
    if let Some(s) = req.size {
        cmd = cmd.opt("-l", s.argument());
    }
    let cmd = req.spawn.apply(cmd);
    let out = server.act(vec![cmd]).await?;
    let r = one_record(&q, &out[0], &pane)?;
    let info = PaneInfo::from_record(&r, |id| server.is_caller(id));
    Ok(spawned(info).await)
});

/// `respawn_pane`: restarts a pane's process (`kill`: even if it still
/// runs); the pane's state (same id, new pid), read once its program runs
/// (as for a split). Refused for the pane running tmuxwire.
///
/// # Errors
///
/// [`ErrorKind::SelfTarget`] for the caller's own pane;
/// [`ErrorKind::NotFound`]; tmux's errors (`pane %N still active`).
pub struct RespawnPaneRequest {
    /// The pane.
    pub pane: PaneId,
    /// Kill the running process first (`-k`).
    pub kill: bool,
    /// Directory, environment and command (`None`: the pane's first one).
    pub spawn: Spawn,
}

op!(RespawnPaneRequest, PaneInfo, async |req, server, _| {
    guard_pane(server, req.pane, "respawn")?;
    let target = Target::Pane(req.pane);
    let mut cmd = Command::new("respawn-pane").target(&target, TargetKind::Pane);
    if req.kill {
        cmd = cmd.arg("-k");
    }
    let info = PaneInfo::act_then(server, vec![req.spawn.apply(cmd)], &target).await?;
    Ok(spawned(info).await)
});

/// `pipe_pane`: starts (`output`) or stops (`None`) copying a pane's
/// output to a file, `cat >> PATH` (or `>`), the path quoted for the
/// shell and escaped for tmux's format and `strftime()` pass.
///
/// # Errors
///
/// [`ErrorKind::NotFound`].
#[derive(Default)]
pub struct PipePaneRequest {
    /// The pane.
    pub pane: Selector,
    /// The file (absolute); `None` stops piping.
    pub output: Option<PathBuf>,
    /// Append to the file (else truncate it).
    pub append: bool,
}

impl PipePaneRequest {
    /// An `output_path` argument: `None` stays `None` (stop), a path is
    /// made absolute against tmuxwire's directory, `~/` expanded.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for an empty path or one with a NUL
    /// byte.
    pub fn output_path(p: Option<&str>) -> Result<Option<PathBuf>, Error> {
        let Some(p) = p else { return Ok(None) };
        if p.trim().is_empty() || p.contains('\0') {
            return Err(Error::invalid(
                "output_path",
                "output_path must be a file path (null stops piping)",
                "a file path, or null",
            ));
        }
        let path = match p.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default()
                .join(rest),
            None => PathBuf::from(p),
        };
        Ok(Some(if path.is_absolute() {
            path
        } else {
            std::env::current_dir()
                .unwrap_or_else(|_| "/".into())
                .join(path)
        }))
    }
}

/// What `pipe_pane` did: the pane (`%N`) and the file its output now goes
/// to, or `None` when piping stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piped {
    /// The pane's id.
    pub pane_id: String,
    /// The file, as given.
    pub to: Option<PathBuf>,
}

crate::fits_whole!(Piped);

op!(PipePaneRequest, Piped, async |req, server, _| {
    let pane = server.pane_target(&req.pane).await?;
    let (id_cmd, q) = pane_id_read(&pane);
    let mut pipe = Command::new("pipe-pane").target(&pane, TargetKind::Pane);
    if let Some(p) = &req.output {
        let op = if req.append { ">>" } else { ">" };
        let shell = format!("cat {op} {}", shell_quote(&p.to_string_lossy()));
        pipe = pipe.arg("--").arg(escape_format_time(&shell));
    }
    let out = server.act(vec![id_cmd, pipe]).await?;
    let id = PaneIdRow::from_record(&one_record(&q, &out[0], &pane)?).pane_id;
    Ok(Piped {
        pane_id: id,
        to: req.output,
    })
});

/// `s` quoted for `sh`: inside single quotes, `'` written as `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// How long a split or respawn waits for the pane's new process to run
/// its program before reading its state ([`spawned`]): the exec takes
/// about a millisecond, the ceiling is for a machine under load.
const SPAWN_SETTLE: Duration = Duration::from_secs(2);

/// How long a split or respawn waits for `SHELL -c 'command'` to exec the
/// command ([`spawned`]).
const SHELL_EXEC_SETTLE: Duration = Duration::from_millis(50);

/// The name tmux gives process `pid`'s program (`#{pane_current_command}`):
/// the first string of its command line (osdep-linux.c
/// `osdep_get_name()`) as names.c `parse_window_name()` makes it a name.
fn program_name(pid: u32) -> Option<String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let first = cmdline.split(|&b| b == 0).next()?;
    let name = window_name(&String::from_utf8_lossy(first));
    (!name.is_empty()).then_some(name)
}

/// names.c `parse_window_name()`: a leading `"` and what follows the
/// next one dropped, an `exec ` prefix, leading spaces and dashes, all
/// from the first space on, trailing characters that are neither
/// alphanumeric nor punctuation; a path's last part.
fn window_name(input: &str) -> String {
    let mut name = input.strip_prefix('"').unwrap_or(input);
    name = name.split('"').next().unwrap_or("");
    name = name.strip_prefix("exec ").unwrap_or(name);
    name = name.trim_start_matches([' ', '-']);
    name = name.split(' ').next().unwrap_or("");
    let keep = name
        .char_indices()
        .rev()
        .find(|&(i, c)| {
            i == 0 || c.is_ascii_alphanumeric() || c.is_ascii_punctuation() || !c.is_ascii()
        })
        .map_or(0, |(i, c)| i + c.len_utf8());
    name = &name[..keep];
    if name.starts_with('/') {
        // basename(3): the last part, trailing slashes ignored.
        let trimmed = name.trim_end_matches('/');
        return match trimmed.rsplit('/').next() {
            Some(last) if !last.is_empty() => last.to_string(),
            _ => "/".to_string(),
        };
    }
    name.to_string()
}

/// Whether process `pid` runs `PROGRAM -c …` (a shell running the command
/// tmux gave it as one string).
fn is_shell_wrapper(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .ok()
        .is_some_and(|c| c.split(|&b| b == 0).nth(1) == Some(b"-c"))
}

/// The parent of process `pid` (`/proc/PID/stat`'s fourth field; the
/// second, the name in parentheses, may hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// `info`, the state of a pane whose process tmux just started (a split,
/// a respawn), as it is once that process runs its program: tmux forks,
/// and until the child execs, the pane's process is a copy of the tmux
/// server (`pane_current_command` is tmux's name, `pane_current_path` may
/// be empty); a command given as one string then runs as `SHELL -c
/// 'command'`, which usually execs the command at once. Waiting for the
/// exec (at most [`SPAWN_SETTLE`]) and for a shell's (at most
/// [`SHELL_EXEC_SETTLE`] more), the two are read where tmux reads them
/// (the process's `/proc/PID/cmdline` and `cwd`: osdep-linux.c; the
/// program is its terminal's foreground process then), so the answer
/// stays one round trip. Linux only; elsewhere `info` as read.
async fn spawned(mut info: PaneInfo) -> PaneInfo {
    let Ok(pid) = info.pane_pid.parse::<u32>() else {
        return info;
    };
    let exe = |pid: u32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let Some(server) = parent_of(pid) else {
        return info;
    };
    let deadline = tokio::time::Instant::now() + SPAWN_SETTLE;
    // tmux read the pane while the child was still the server's copy
    // (the exec may have come since), or it still is one now (tmux may
    // have read another process: its pane's foreground).
    let forking = program_name(server).is_some_and(|n| n == info.pane_current_command)
        || info.pane_current_path.is_empty()
        || exe(pid).is_some_and(|e| exe(server).as_ref() == Some(&e));
    if let Some(tmux_exe) = exe(server).filter(|_| forking) {
        let mut pause = Duration::from_millis(1);
        // Until the child has exec'd and its new command line can be
        // read (it reads as empty for a moment during the exec).
        while exe(pid).as_ref() == Some(&tmux_exe) || program_name(pid).is_none() {
            if tokio::time::Instant::now() >= deadline {
                tracing::debug!(
                    pid,
                    "pane's process has not exec'd yet; reading it as tmux did"
                );
                return info;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
    // A command given as one string runs as `SHELL -c 'command'`, which a
    // shell usually replaces with the command at once: a moment more for
    // that second exec (the command line reads as empty while it
    // happens).
    let until = (tokio::time::Instant::now() + SHELL_EXEC_SETTLE).min(deadline);
    loop {
        let now = tokio::time::Instant::now();
        let waiting = (is_shell_wrapper(pid) && now < until)
            || (program_name(pid).is_none() && now < deadline);
        if !waiting {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // What tmux would read now: the process as it is (possibly past a
    // second exec since tmux's read).
    if let Some(name) = program_name(pid) {
        info.pane_current_command = name;
    }
    if let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) {
        info.pane_current_path = cwd.to_string_lossy().into_owned();
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_names_as_tmux_parses_them() {
        for (command, name) in [
            ("/bin/sh", "sh"),
            ("-bash", "bash"),
            ("exec vim file", "vim"),
            ("\"quoted name\" rest", "quoted"),
            ("python3\t", "python3"),
            ("/usr/bin/", "bin"),
            ("", ""),
        ] {
            assert_eq!(window_name(command), name, "{command:?}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert!(start_directory("/").is_ok());
        assert!(start_directory("/no/such/dir/xyz").is_err());
        assert!(start_directory("").is_err());
    }

    #[test]
    fn split_sizes() {
        assert_eq!(SplitSize::parse("20").ok(), Some(SplitSize::Cells(20)));
        assert_eq!(SplitSize::parse(" 30% ").ok(), Some(SplitSize::Percent(30)));
        for bad in ["", "%", "0", "0%", "-1", "123456", "1e3", "20 %"] {
            assert!(SplitSize::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Spawn::new(None, Some(" ")).is_err());
        assert!(PipePaneRequest::output_path(Some("")).is_err());
        assert!(PipePaneRequest::output_path(Some("/tmp/x")).is_ok_and(|p| p.is_some()));
    }
}
