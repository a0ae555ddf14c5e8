//! Operations that change sessions, windows and panes: rename, select,
//! resize, move, swap, copy mode, create, split, respawn, kill, clear,
//! pipe.
//!
//! Each is one round trip when its target is given by id (or by a session
//! name tmux can match exactly, see [`exact_name_target`]): the action and
//! the read of its result go out as one control-mode line, which tmux
//! runs back to back and stops at the first failure, so the result
//! describes the moment right after the action and a failed action reads
//! nothing.
//!
//! Names, titles and directories given by a caller pass through
//! [`escape_format`] where tmux expands formats in that argument, so
//! `#{…}`, `#S` and `#(…)` are stored as text and never run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::time::Duration;

use super::error::{Error, ErrorKind};
use super::handle::{Output, Retry, Tmux};
use super::layout::Layout;
use super::model::{PaneInfo, SessionInfo, WindowInfo};
use super::target::{Selector, one_record, pane_lookup, template_cmd, window_lookup};
use crate::control::format::{Query, escape_format, escape_format_time};
use crate::control::{Command, PaneId, SessionId, Target, TargetKind, WindowId};

/// Whether tmux can be given `=name` for a session named `name` and
/// match exactly that session: tmux reads `:` and `.` as target
/// separators, `$` as an id, and falls back to a client's name or tty
/// when no session has the name (cmd-find.c: `cmd_find_get_session()`),
/// so names with those are matched by tmuxwire instead (one more round
/// trip).
pub fn exact_name_target(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('$')
        && !name.contains([':', '.', '/', '\0'])
        && !name.starts_with("client-")
        && !name.starts_with("pts")
        && !name.starts_with("tty")
}

/// Where a new pane goes relative to the target (split_window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Above (`-v -b`).
    Above,
    /// Below (`-v`), tmux's default.
    Below,
    /// Left (`-h -b`).
    Left,
    /// Right (`-h`).
    Right,
}

/// Where `select_pane` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneMove {
    /// `-U`.
    Up,
    /// `-D`.
    Down,
    /// `-L`.
    Left,
    /// `-R`.
    Right,
    /// The previously active pane (`-l`).
    Last,
    /// The next pane by index (`.+`).
    Next,
    /// The previous pane by index (`.-`).
    Previous,
}

/// Where `select_window` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowMove {
    /// `next-window`.
    Next,
    /// `previous-window`.
    Previous,
    /// `last-window`.
    Last,
}

/// What a spawned process gets: its directory, environment, command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spawn {
    /// The working directory (absolute, existing).
    pub start_directory: Option<PathBuf>,
    /// `NAME=value` pairs (`-e`), in order.
    pub environment: Vec<(String, String)>,
    /// The shell command to run instead of the default shell.
    pub shell: Option<String>,
}

impl Spawn {
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
}

/// What `create_session` makes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewSession {
    /// `-s`: stored literally.
    pub session_name: Option<String>,
    /// `-n`: stored literally.
    pub window_name: Option<String>,
    /// `-x` cells.
    pub width: Option<u32>,
    /// `-y` rows.
    pub height: Option<u32>,
    /// Directory and environment.
    pub spawn: Spawn,
}

/// What `create_window` makes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewWindow {
    /// `-n`: stored literally.
    pub window_name: Option<String>,
    /// Make it the session's current window (no `-d`).
    pub attach: bool,
    /// `Some(true)`: just before the current window (`-b`); `Some(false)`:
    /// just after it (`-a`); `None`: at the next free index.
    pub before: Option<bool>,
    /// Directory, environment and command.
    pub spawn: Spawn,
}

/// The result of a kill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Killed {
    /// What was killed: `$N`, `@N`, `%N`.
    pub id: String,
    /// Its name, for sessions.
    pub name: Option<String>,
}

/// A `-t` value for the pane `sel`'s pane target names plus a relative
/// pane part (`+`/`-`): `@3.+`, `$1:.+`, `=name:2.-`.
fn relative_pane(window: &Target, rel: &str) -> String {
    match window {
        Target::Window(w) => format!("{w}.{rel}"),
        Target::Pane(p) => format!("{p}"),
        Target::Session(_) | Target::SessionName(_) => {
            format!("{}:.{rel}", window.to_arg(TargetKind::Session))
        }
        Target::WindowIndex { .. } => format!("{}.{rel}", window.to_arg(TargetKind::Window)),
    }
}

/// The commands and parser of a [`SessionInfo`] read for `target`:
/// through the session's current window, plus tmuxwire's own clients so
/// `session_attached` leaves them out.
fn session_read(target: &Target) -> ([Command; 2], Query, Query) {
    let (cmd, q) = template_cmd("list-windows", SessionInfo::FIELDS);
    let cmd = cmd
        .target(target, TargetKind::Session)
        .opt("-f", "#{window_active}");
    let (clients, cq) = template_cmd("list-clients", &["client_termname", "session_id"]);
    ([cmd, clients], q, cq)
}

/// tmuxwire's own control clients per session id.
fn own_clients(cq: &Query, body: &[u8]) -> HashMap<String, i64> {
    let mut ours = HashMap::new();
    for r in cq.parse(body) {
        if r.str(0) == crate::wire::CLIENT_TERM {
            *ours.entry(r.string(1)).or_insert(0) += 1;
        }
    }
    ours
}

/// Checks an answer of one line: the error of the command that failed,
/// or every body.
fn bodies(out: Vec<Output>, expected: usize) -> Result<Vec<Vec<u8>>, Error> {
    if let Some(bad) = out.iter().find(|o| !o.ok) {
        return Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body)));
    }
    if out.len() < expected {
        return Err(Error::connection(format!(
            "tmux answered {} of {expected} commands",
            out.len()
        )));
    }
    Ok(out.into_iter().map(|o| o.body).collect())
}

/// Checks a name a caller gives (window, session): not empty, no NUL.
fn check_name(arg: &'static str, name: &str) -> Result<(), Error> {
    if name.is_empty() || name.contains('\0') {
        return Err(Error::invalid(
            arg,
            format!("{arg} must be a non-empty name without NUL bytes"),
            "a name (stored exactly as given)",
        ));
    }
    Ok(())
}

/// The directory a caller gives, checked: `~` expanded, made absolute
/// (relative to tmuxwire's directory), and existing.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) naming the absolute path when it is not an
/// existing directory.
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
                super::error::shorten(&abs.to_string_lossy(), 200)
            ),
            "the path of an existing directory",
        ));
    }
    Ok(abs)
}

/// The layouts tmux knows by name (layout-set.c), and the version that
/// added each.
const LAYOUTS: &[(&str, (u32, u32))] = &[
    ("even-horizontal", (1, 0)),
    ("even-vertical", (1, 0)),
    ("main-horizontal", (1, 0)),
    ("main-vertical", (1, 0)),
    ("tiled", (1, 0)),
    ("main-horizontal-mirrored", (3, 5)),
    ("main-vertical-mirrored", (3, 5)),
];

/// What `select-layout` is given for `layout` on `version`: a layout name
/// that version knows (exactly; tmux would also take a prefix), or a
/// layout string in either of tmux's forms, parsed and written out again
/// in a form `version` reads ([`Layout::for_version`]: tmux 3.8's JSON
/// form goes to 3.8 as JSON and to earlier versions in the legacy form
/// when it can be said there). Nothing else reaches tmux's layout reader,
/// which trusts its input: on 3.2 and 3.3 it frees an unset pointer for
/// text without a checksum (layout-custom.c: `layout_parse()` returns
/// without its cause; fixed in 3.4) and reads past the end of a string
/// shorter than its 5-byte header, and on 3.3a and 3.5a a checksummed
/// layout with a one-cell split kills the server when the window has
/// fewer panes than the layout cells.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) saying what is wrong with the text.
pub fn layout_argument(layout: &str, version: &crate::wire::TmuxVersion) -> Result<String, Error> {
    if let Some((_, (major, minor))) = LAYOUTS.iter().find(|(n, _)| *n == layout) {
        if version.at_least(*major, *minor) {
            return Ok(layout.to_string());
        }
        return Err(Error::invalid(
            "layout",
            format!("layout {layout} needs tmux {major}.{minor} or newer (this is {version})"),
            "even-horizontal, even-vertical, main-horizontal, main-vertical or tiled",
        ));
    }
    let expected = "even-horizontal, even-vertical, main-horizontal, main-vertical, tiled \
                    (3.5+: main-horizontal-mirrored, main-vertical-mirrored), or a layout \
                    string exactly as window_layout gives it";
    let looks_like_layout = layout
        .bytes()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| b == b'{' || b.is_ascii_hexdigit())
        && (layout.contains(',') || layout.trim_start().starts_with('{'));
    if !looks_like_layout {
        return Err(Error::invalid(
            "layout",
            format!(
                "layout must be a layout name or a layout string (received {:?})",
                super::error::shorten(layout, 40)
            ),
            expected,
        ));
    }
    Layout::parse(layout)
        .and_then(|l| l.for_version(version))
        .map_err(|e| {
            Error::invalid(
                "layout",
                format!(
                    "layout is not a layout tmux can be given: {e} (received {:?})",
                    super::error::shorten(layout, 40)
                ),
                expected,
            )
        })
}

/// `s` quoted for `sh`: inside single quotes, `'` written as `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// How long a split or respawn waits for the pane's new process to run its
/// program before reading its state ([`Tmux::spawned`]): the exec takes
/// about a millisecond, the ceiling is for a machine under load.
const SPAWN_SETTLE: Duration = Duration::from_secs(2);

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

/// How long a split or respawn waits for `SHELL -c 'command'` to exec the
/// command ([`Tmux::spawned`]).
const SHELL_EXEC_SETTLE: Duration = Duration::from_millis(50);

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

impl Tmux {
    /// Runs one line that changes something and returns every command's
    /// output, or the error of the first command that failed.
    pub(crate) async fn act(&self, cmds: Vec<Command>) -> Result<Vec<Vec<u8>>, Error> {
        let n = cmds.len();
        let out = self
            .run_lines(&[cmds], Retry::Never)
            .await?
            .pop()
            .unwrap_or_default();
        bodies(out, n)
    }

    /// The session `sel` names, as a target for a command line: `$N`,
    /// `=name` when tmux can match the name exactly
    /// ([`exact_name_target`]; no round trip), else the id of the session
    /// with that exact name, or the default session (a round trip each).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing session (looked up names) or no
    /// sessions at all.
    pub async fn session_target(&self, sel: &Selector) -> Result<Target, Error> {
        if let Some(s) = sel.session_id {
            return Ok(Target::Session(s));
        }
        if let Some(n) = &sel.session_name {
            if exact_name_target(n) {
                return Ok(Target::SessionName(n.clone()));
            }
            return Ok(Target::Session(self.session_id_by_name(n).await?));
        }
        Ok(Target::Session(self.default_session().await?))
    }

    /// The window `sel` names (id; index in a session; else the session's
    /// current window), as a target: see [`Tmux::session_target`].
    ///
    /// # Errors
    ///
    /// As [`Tmux::session_target`].
    pub async fn window_target(&self, sel: &Selector) -> Result<Target, Error> {
        if let Some(w) = sel.window_id {
            return Ok(Target::Window(w));
        }
        let session = self.session_target(sel).await?;
        Ok(match sel.window_index {
            Some(index) => Target::WindowIndex {
                session: Box::new(session),
                index,
            },
            None => session,
        })
    }

    /// The pane `sel` names (id; else the active pane of the window or
    /// session named; with no target, the caller's own pane inside tmux,
    /// else the default session's), as a target: see
    /// [`Tmux::session_target`].
    ///
    /// # Errors
    ///
    /// As [`Tmux::session_target`].
    pub async fn pane_target(&self, sel: &Selector) -> Result<Target, Error> {
        if let Some(p) = sel.pane_id {
            return Ok(Target::Pane(p));
        }
        if *sel == Selector::default()
            && let Some(p) = self.caller_pane()
        {
            return Ok(Target::Pane(p));
        }
        self.window_target(sel).await
    }

    /// Runs `action` (targeted already) then reads the pane `target` names,
    /// on one line.
    async fn act_then_pane(
        &self,
        action: Vec<Command>,
        target: &Target,
    ) -> Result<PaneInfo, Error> {
        let q = Query::new(PaneInfo::FIELDS);
        let mut line = action;
        line.push(pane_lookup(target, &q));
        let mut out = self.act(line).await?;
        let body = out.pop().unwrap_or_default();
        let r = one_record(&q, &body, target)?;
        Ok(PaneInfo::from_record(&r, |id| self.is_caller(id)))
    }

    /// `info`, the state of a pane whose process tmux just started (a
    /// split, a respawn), as it is once that process runs its program:
    /// tmux forks, and until the child execs, the pane's process is a
    /// copy of the tmux server (`pane_current_command` is tmux's name,
    /// `pane_current_path` may be empty); a command given as one string
    /// then runs as `SHELL -c 'command'`, which usually execs the command
    /// at once. Waiting for the exec (at most [`SPAWN_SETTLE`]) and for a
    /// shell's (at most [`SHELL_EXEC_SETTLE`] more), the two are read where
    /// tmux reads them (the process's `/proc/PID/cmdline` and `cwd`:
    /// osdep-linux.c; the program is its terminal's foreground process
    /// then), so the answer stays one round trip. Linux only; elsewhere
    /// `info` as read.
    async fn spawned(&self, mut info: PaneInfo) -> PaneInfo {
        let Ok(pid) = info.pane_pid.parse::<u32>() else {
            return info;
        };
        let exe = |pid: u32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        let Some(server) = parent_of(pid) else {
            return info;
        };
        let deadline = tokio::time::Instant::now() + SPAWN_SETTLE;
        // tmux read the pane while the child was still the server's copy
        // (the exec may have come since).
        let forking = program_name(server).is_some_and(|n| n == info.pane_current_command)
            || info.pane_current_path.is_empty();
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
        // A command given as one string runs as `SHELL -c 'command'`,
        // which a shell usually replaces with the command at once: a moment
        // more for that second exec (the command line reads as empty while
        // it happens).
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

    /// Runs `action` then reads the window `target` names, on one line.
    async fn act_then_window(
        &self,
        action: Vec<Command>,
        target: &Target,
    ) -> Result<WindowInfo, Error> {
        let (read, q) = window_lookup(target, WindowInfo::FIELDS);
        let mut line = action;
        line.push(read);
        let mut out = self.act(line).await?;
        let body = out.pop().unwrap_or_default();
        Ok(WindowInfo::from_record(&one_record(&q, &body, target)?))
    }

    /// Renames a session (the name stored literally); its new state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`duplicate session: …`).
    pub async fn rename_session(
        &self,
        target: &Target,
        new_name: &str,
    ) -> Result<SessionInfo, Error> {
        check_name("new_name", new_name)?;
        // The id first (the name changes), then the rename, then every
        // session's state: picked by id.
        let (id_cmd, idq) = template_cmd("list-windows", &["session_id"]);
        let id_cmd = id_cmd
            .target(target, TargetKind::Session)
            .opt("-f", "#{window_active}");
        let rename = Command::new("rename-session")
            .target(target, TargetKind::Session)
            .arg("--")
            .arg(escape_format(new_name));
        let (all, q) = template_cmd("list-windows", SessionInfo::FIELDS);
        let all = all.arg("-a").opt("-f", "#{window_active}");
        let (clients, cq) = template_cmd("list-clients", &["client_termname", "session_id"]);
        let out = self.act(vec![id_cmd, rename, all, clients]).await?;
        let id = one_record(&idq, &out[0], target)?.string(0);
        let ours = own_clients(&cq, &out[3]);
        q.parse(&out[2])
            .iter()
            .find(|r| r.str(0) == id)
            .map(|r| SessionInfo::from_record(r, &ours))
            .ok_or_else(|| Error::not_found(format!("session {id} is gone after the rename")))
    }

    /// One session's state, with tmuxwire's own clients left out of
    /// `session_attached` (for the results of session tools).
    pub async fn session_state(&self, target: &Target) -> Result<SessionInfo, Error> {
        let ([read, clients], q, cq) = session_read(target);
        let out = self.act(vec![read, clients]).await?;
        let ours = own_clients(&cq, &out[1]);
        Ok(SessionInfo::from_record(
            &one_record(&q, &out[0], target)?,
            &ours,
        ))
    }

    /// Renames a window (stored literally; automatic renaming stops);
    /// its new state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
    pub async fn rename_window(
        &self,
        target: &Target,
        new_name: &str,
    ) -> Result<WindowInfo, Error> {
        check_name("new_name", new_name)?;
        let rename = Command::new("rename-window")
            .target(target, TargetKind::Window)
            .arg("--")
            .arg(escape_format(new_name));
        self.act_then_window(vec![rename], target).await
    }

    /// Makes a window its session's current window; its state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn select_window(&self, target: &Target) -> Result<WindowInfo, Error> {
        let select = Command::new("select-window").target(target, TargetKind::Window);
        self.act_then_window(vec![select], target).await
    }

    /// Moves a session's current window (next, previous, last); the new
    /// current window.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`no last window`).
    pub async fn step_window(
        &self,
        session: &Target,
        how: WindowMove,
    ) -> Result<WindowInfo, Error> {
        let name = match how {
            WindowMove::Next => "next-window",
            WindowMove::Previous => "previous-window",
            WindowMove::Last => "last-window",
        };
        let step = Command::new(name).target(session, TargetKind::Session);
        self.act_then_window(vec![step], session).await
    }

    /// Makes a pane its window's active pane; its state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn select_pane(&self, pane: &Target) -> Result<PaneInfo, Error> {
        let select = Command::new("select-pane").target(pane, TargetKind::Pane);
        self.act_then_pane(vec![select], pane).await
    }

    /// Moves a window's active pane (`window` names the window, or a
    /// session for its current window); the newly active pane.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
    pub async fn step_pane(&self, window: &Target, how: PaneMove) -> Result<PaneInfo, Error> {
        let base = Command::new("select-pane");
        let step = match how {
            PaneMove::Up => base.target(window, TargetKind::Pane).arg("-U"),
            PaneMove::Down => base.target(window, TargetKind::Pane).arg("-D"),
            PaneMove::Left => base.target(window, TargetKind::Pane).arg("-L"),
            PaneMove::Right => base.target(window, TargetKind::Pane).arg("-R"),
            PaneMove::Last => base.target(window, TargetKind::Pane).arg("-l"),
            PaneMove::Next => base.opt("-t", relative_pane(window, "+")),
            PaneMove::Previous => base.opt("-t", relative_pane(window, "-")),
        };
        self.act_then_pane(vec![step], window).await
    }

    /// Resizes a pane to `width` × `height` cells (either may be left
    /// out); its new state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
    pub async fn resize_pane(
        &self,
        pane: &Target,
        width: Option<u32>,
        height: Option<u32>,
    ) -> Result<PaneInfo, Error> {
        let resize = Command::new("resize-pane")
            .target(pane, TargetKind::Pane)
            .opt_if("-x", width.map(|w| w.to_string()))
            .opt_if("-y", height.map(|h| h.to_string()));
        self.act_then_pane(vec![resize], pane).await
    }

    /// Zooms the pane (`true`: it fills its window and is the window's
    /// active pane) or unzooms its window (`false`); the pane's state
    /// afterwards. One round trip.
    ///
    /// tmux's `resize-pane -Z` toggles the *window's* zoom, whichever pane
    /// is zoomed (cmd-resize-pane.c: unzoom when `WINDOW_ZOOMED`, else
    /// `window_zoom(wp)`), so zooming is decided by tmux on the line
    /// itself (`if-shell -F`, no shell): nothing when the pane is the
    /// zoomed one already (the zoomed pane is always the window's active
    /// pane, `window_zoom()` makes it so), else an unzoom (`resize-pane`
    /// without a size only unzooms) then a zoom of this pane. Unzooming
    /// needs no check: a plain `resize-pane` unzooms and is a no-op on an
    /// unzoomed window, so it is one command line with the read.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn zoom_pane(&self, pane: &Target, zoom: bool) -> Result<PaneInfo, Error> {
        let unzoom = Command::new("resize-pane").target(pane, TargetKind::Pane);
        if !zoom {
            return self.act_then_pane(vec![unzoom], pane).await;
        }
        let toggle = Command::new("resize-pane")
            .arg("-Z")
            .target(pane, TargetKind::Pane);
        let inner = crate::control::Line::list(vec![unzoom, toggle])
            .to_line()
            .map_err(|e| Error::invalid("pane_id", e.to_string(), "a pane id"))?;
        // Non-empty and not "0" runs the command: unless the window is
        // zoomed on this very pane.
        let check = Command::new("if-shell")
            .arg("-F")
            .target(pane, TargetKind::Pane)
            .arg("#{?window_zoomed_flag,#{?pane_active,0,1},1}")
            .arg(inner);
        // The read has a line of its own (the if-shell line is fenced, as
        // its block count varies), so its records keep their framing.
        let q = Query::new(PaneInfo::FIELDS);
        let lines = [vec![check], vec![pane_lookup(pane, &q)]];
        let mut out = self.run_lines(&lines, Retry::Never).await?;
        let read = bodies(out.pop().unwrap_or_default(), 1)?;
        bodies(out.pop().unwrap_or_default(), 1)?;
        let r = one_record(&q, &read[0], pane)?;
        Ok(PaneInfo::from_record(&r, |id| self.is_caller(id)))
    }

    /// Resizes a window (sets its `window-size` to manual, as tmux does);
    /// its new state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
    pub async fn resize_window(
        &self,
        window: &Target,
        width: Option<u32>,
        height: Option<u32>,
    ) -> Result<WindowInfo, Error> {
        let resize = Command::new("resize-window")
            .target(window, TargetKind::Window)
            .opt_if("-x", width.map(|w| w.to_string()))
            .opt_if("-y", height.map(|h| h.to_string()));
        self.act_then_window(vec![resize], window).await
    }

    /// Applies a layout (a name such as `tiled`, or a layout string in
    /// either form: see [`layout_argument`]); the window's state
    /// afterwards, with its new `window_layout`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`invalid layout`).
    pub async fn select_layout(&self, window: &Target, layout: &str) -> Result<WindowInfo, Error> {
        let layout = layout_argument(layout, &self.version().await?)?;
        let select = Command::new("select-layout")
            .target(window, TargetKind::Pane)
            .arg("--")
            .arg(layout);
        self.act_then_window(vec![select], window).await
    }

    /// Moves a window to `index` (`None`: the next free index) of
    /// `destination` (`None`: its own session); its state there.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`index in use`).
    pub async fn move_window(
        &self,
        window: &Target,
        destination: Option<&Target>,
        index: Option<u32>,
    ) -> Result<WindowInfo, Error> {
        let own_session = match window {
            Target::WindowIndex { session, .. } => Some(session.as_ref().clone()),
            Target::Session(_) | Target::SessionName(_) => Some(window.clone()),
            _ => None,
        };
        let session = match (destination, own_session) {
            (Some(d), _) => d.clone(),
            (None, Some(s)) => s,
            (None, None) => {
                // The window's session: one more round trip.
                let (cmd, q) = window_lookup(window, &["session_id"]);
                let out = self.act(vec![cmd]).await?;
                let id: SessionId = one_record(&q, &out[0], window)?
                    .str(0)
                    .parse()
                    .map_err(|_| Error::not_found(format!("can't find {window}")))?;
                Target::Session(id)
            }
        };
        let dest = match index {
            Some(i) => format!("{}:{i}", session.to_arg(TargetKind::Session)),
            None => format!("{}:", session.to_arg(TargetKind::Session)),
        };
        let (id_cmd, idq) = window_lookup(window, &["window_id"]);
        let mv = Command::new("move-window")
            .opt("-s", window.to_arg(TargetKind::Window))
            .opt("-t", dest);
        let (after, q) = template_cmd("list-windows", WindowInfo::FIELDS);
        let after = after.target(&session, TargetKind::Session);
        let out = self.act(vec![id_cmd, mv, after]).await?;
        let id = one_record(&idq, &out[0], window)?.string(0);
        q.parse(&out[2])
            .iter()
            .find(|r| r.str(0) == id)
            .map(WindowInfo::from_record)
            .ok_or_else(|| {
                Error::not_found(format!("window {id} is not in {session} after the move"))
            })
    }

    /// Swaps two panes; the source pane's state (in its new place).
    ///
    /// tmux makes the pane named by `-t` the active one after a swap
    /// (cmd-swap-pane.c), so the source goes as `-t`, as libtmux-mcp sends
    /// it: the pane the caller names first keeps (or takes) the focus.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn swap_pane(&self, source: PaneId, target: PaneId) -> Result<PaneInfo, Error> {
        let swap = Command::new("swap-pane")
            .opt("-s", target.to_string())
            .opt("-t", source.to_string());
        self.act_then_pane(vec![swap], &Target::Pane(source)).await
    }

    /// Sets a pane's title (stored literally); its state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn set_pane_title(&self, pane: &Target, title: &str) -> Result<PaneInfo, Error> {
        if title.contains('\0') {
            return Err(Error::invalid(
                "title",
                "title must not contain NUL bytes",
                "a title",
            ));
        }
        let set = Command::new("select-pane")
            .target(pane, TargetKind::Pane)
            .opt("-T", escape_format(title));
        self.act_then_pane(vec![set], pane).await
    }

    /// Puts a pane in copy mode, scrolled up `scroll_up` lines; its state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn enter_copy_mode(
        &self,
        pane: &Target,
        scroll_up: Option<u32>,
    ) -> Result<PaneInfo, Error> {
        let mut line = vec![Command::new("copy-mode").target(pane, TargetKind::Pane)];
        if let Some(n) = scroll_up.filter(|n| *n > 0) {
            line.push(
                Command::new("send-keys")
                    .target(pane, TargetKind::Pane)
                    .arg("-X")
                    .opt("-N", n.to_string())
                    .arg("scroll-up"),
            );
        }
        self.act_then_pane(line, pane).await
    }

    /// Leaves copy mode (or any mode); a pane in no mode is left as it
    /// is. Its state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn exit_copy_mode(&self, pane: &Target) -> Result<PaneInfo, Error> {
        let cancel = Command::new("send-keys")
            .target(pane, TargetKind::Pane)
            .arg("-X")
            .arg("cancel");
        match self.act_then_pane(vec![cancel], pane).await {
            Err(e) if e.is(ErrorKind::Tmux) && e.detail().contains("not in a mode") => {
                self.act_then_pane(Vec::new(), pane).await
            }
            other => other,
        }
    }

    /// Creates a detached session; its state.
    ///
    /// # Errors
    ///
    /// tmux's errors (`duplicate session: NAME`); [`ErrorKind::NoServer`](crate::tmux::ErrorKind::NoServer).
    pub async fn create_session(&self, new: &NewSession) -> Result<SessionInfo, Error> {
        let q = Query::new(SessionInfo::FIELDS);
        let mut cmd = Command::new("new-session")
            .arg("-d")
            .arg("-P")
            .opt("-F", q.template())
            .frame(q.frame());
        if let Some(n) = &new.session_name {
            check_name("session_name", n)?;
            cmd = cmd.opt("-s", escape_format(n));
        }
        if let Some(n) = &new.window_name {
            check_name("window_name", n)?;
            cmd = cmd.opt("-n", escape_format(n));
        }
        cmd = cmd
            .opt_if("-x", new.width.map(|w| w.to_string()))
            .opt_if("-y", new.height.map(|h| h.to_string()));
        let cmd = new.spawn.command(new.spawn.flags(cmd));
        let body = match self.act(vec![cmd.clone()]).await {
            Ok(mut out) => out.pop().unwrap_or_default(),
            // No server: start one, as `tmux new-session` does.
            Err(e) if matches!(e.kind(), ErrorKind::NoServer | ErrorKind::SocketGone) => {
                self.start_server(&cmd).await?
            }
            Err(e) => return Err(e),
        };
        let r = q
            .parse(&body)
            .into_iter()
            .next()
            .ok_or_else(|| Error::tmux("new-session printed no session"))?;
        // A new session has none of tmuxwire's clients.
        Ok(SessionInfo::from_record(&r, &HashMap::new()))
    }

    /// Runs `new_session` with the tmux binary, which starts a server on
    /// this socket (only a tmux process can become a server; tmuxwire
    /// never forks one itself). The binary is `$TMUXWIRE_TMUX` or `tmux`
    /// on `PATH`; it reads the user's configuration as tmux does. Returns
    /// what the command printed.
    async fn start_server(&self, new_session: &Command) -> Result<Vec<u8>, Error> {
        let bin = std::env::var("TMUXWIRE_TMUX")
            .ok()
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| "tmux".into());
        let mut cmd = tokio::process::Command::new(&bin);
        cmd.arg("-S").arg(self.socket_path());
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
        let out = tokio::time::timeout(std::time::Duration::from_secs(20), cmd.output())
            .await
            .map_err(|_| Error::timeout(format!("{bin} new-session did not finish within 20s")))?
            .map_err(|e| {
                Error::tmux(format!(
                    "no tmux server runs on {}, and starting one with {bin} failed: {e}",
                    self.socket_path().display()
                ))
            })?;
        if !out.status.success() {
            return Err(Error::from_tmux(&String::from_utf8_lossy(&out.stderr)));
        }
        Ok(out.stdout)
    }

    /// Creates a window in `session`; its state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors.
    pub async fn create_window(
        &self,
        session: &Target,
        new: &NewWindow,
    ) -> Result<WindowInfo, Error> {
        let q = Query::new(WindowInfo::FIELDS);
        let mut cmd = Command::new("new-window")
            .arg("-P")
            .opt("-F", q.template())
            .frame(q.frame())
            .opt("-t", format!("{}:", session.to_arg(TargetKind::Session)));
        if !new.attach {
            cmd = cmd.arg("-d");
        }
        match new.before {
            Some(true) => cmd = cmd.arg("-b"),
            Some(false) => cmd = cmd.arg("-a"),
            None => {}
        }
        if let Some(n) = &new.window_name {
            check_name("window_name", n)?;
            cmd = cmd.opt("-n", escape_format(n));
        }
        let cmd = new.spawn.command(new.spawn.flags(cmd));
        let out = self.act(vec![cmd]).await?;
        let r = one_record(&q, &out[0], session)?;
        Ok(WindowInfo::from_record(&r))
    }

    /// Splits a pane; the new pane's state. The new pane does not take the
    /// focus (`-d`, as libtmux-mcp splits): the active pane stays the one
    /// a person was using.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`no space for new pane`).
    pub async fn split_window(
        &self,
        pane: &Target,
        direction: Option<Split>,
        size: Option<&str>,
        spawn: &Spawn,
    ) -> Result<PaneInfo, Error> {
        let q = Query::new(PaneInfo::FIELDS);
        let mut cmd = Command::new("split-window")
            .target(pane, TargetKind::Pane)
            .arg("-d")
            .arg("-P")
            .opt("-F", q.template())
            .frame(q.frame());
        cmd = match direction {
            Some(Split::Above) => cmd.arg("-v").arg("-b"),
            Some(Split::Below) => cmd.arg("-v"),
            Some(Split::Left) => cmd.arg("-h").arg("-b"),
            Some(Split::Right) => cmd.arg("-h"),
            None => cmd,
        };
        if let Some(s) = size {
            cmd = cmd.opt("-l", s);
        }
        let cmd = spawn.command(spawn.flags(cmd));
        let out = self.act(vec![cmd]).await?;
        let r = one_record(&q, &out[0], pane)?;
        let info = PaneInfo::from_record(&r, |id| self.is_caller(id));
        Ok(self.spawned(info).await)
    }

    /// Restarts a pane's process (`kill`: even if it still runs); the
    /// pane's state (same id, new pid).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); tmux's errors (`pane %N still active`).
    pub async fn respawn_pane(
        &self,
        pane: PaneId,
        kill: bool,
        spawn: &Spawn,
    ) -> Result<PaneInfo, Error> {
        let target = Target::Pane(pane);
        let mut cmd = Command::new("respawn-pane").target(&target, TargetKind::Pane);
        if kill {
            cmd = cmd.arg("-k");
        }
        let cmd = spawn.command(spawn.flags(cmd));
        let info = self.act_then_pane(vec![cmd], &target).await?;
        Ok(self.spawned(info).await)
    }

    /// Resets a pane's terminal and clears its history, in one line (no
    /// output can land between the two); the pane's id.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn clear_pane(&self, pane: &Target) -> Result<String, Error> {
        let (id_cmd, q) = template_cmd("list-panes", &["pane_id"]);
        let filter = match pane {
            Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
            _ => "#{pane_active}".into(),
        };
        let id_cmd = id_cmd.target(pane, TargetKind::Window).opt("-f", filter);
        let reset = Command::new("send-keys")
            .target(pane, TargetKind::Pane)
            .arg("-R");
        let clear = Command::new("clear-history").target(pane, TargetKind::Pane);
        let out = self.act(vec![id_cmd, reset, clear]).await?;
        Ok(one_record(&q, &out[0], pane)?.string(0))
    }

    /// Starts (`Some(path)`) or stops (`None`) copying a pane's output to
    /// a file: `cat >> PATH` (or `>`), the path quoted for the shell and
    /// escaped for tmux's format and `strftime()` pass. Returns the pane
    /// id.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn pipe_pane(
        &self,
        pane: &Target,
        path: Option<&Path>,
        append: bool,
    ) -> Result<String, Error> {
        let (id_cmd, q) = template_cmd("list-panes", &["pane_id"]);
        let filter = match pane {
            Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
            _ => "#{pane_active}".into(),
        };
        let id_cmd = id_cmd.target(pane, TargetKind::Window).opt("-f", filter);
        let mut pipe = Command::new("pipe-pane").target(pane, TargetKind::Pane);
        if let Some(p) = path {
            let op = if append { ">>" } else { ">" };
            let shell = format!("cat {op} {}", shell_quote(&p.to_string_lossy()));
            pipe = pipe.arg("--").arg(escape_format_time(&shell));
        }
        let out = self.act(vec![id_cmd, pipe]).await?;
        Ok(one_record(&q, &out[0], pane)?.string(0))
    }

    /// Kills the server. Its connection ends with it; that is the
    /// expected answer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NoServer`](crate::tmux::ErrorKind::NoServer) when none runs.
    pub async fn kill_server(&self) -> Result<(), Error> {
        match self.act(vec![Command::new("kill-server")]).await {
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::Connection | ErrorKind::NoServer | ErrorKind::SocketGone
                ) =>
            {
                // Gone, as asked, unless it still answers.
                match super::op::info::server_info(self).await {
                    Ok(i) if i.is_alive => {
                        Err(Error::tmux("the tmux server still runs after kill-server"))
                    }
                    _ => Ok(()),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The panes of a session or window (for the self-kill guards).
    pub(crate) async fn pane_ids_in(&self, scope: &Target) -> Result<Vec<PaneId>, Error> {
        let (cmd, q) = template_cmd("list-panes", &["pane_id"]);
        let cmd = match scope {
            Target::Session(_) | Target::SessionName(_) => {
                cmd.arg("-s").target(scope, TargetKind::Window)
            }
            _ => cmd.target(scope, TargetKind::Window),
        };
        let out = self.act(vec![cmd]).await?;
        Ok(q.parse(&out[0])
            .iter()
            .filter_map(|r| r.str(0).parse().ok())
            .collect())
    }

    /// Kills a session; its id and name.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) (an exact name only: never tmux's prefix match).
    pub async fn kill_session(&self, session: &Target) -> Result<Killed, Error> {
        let (read, q) = template_cmd("list-windows", &["session_id", "session_name"]);
        let read = read
            .target(session, TargetKind::Session)
            .opt("-f", "#{window_active}");
        let kill = Command::new("kill-session").target(session, TargetKind::Session);
        let (id, name) = match self.act(vec![read.clone(), kill]).await {
            Ok(out) => {
                let r = one_record(&q, &out[0], session)?;
                (r.string(0), r.string(1))
            }
            // Killing the session tmuxwire's control client is attached to
            // can end that connection before the answer arrives: gone is
            // success.
            Err(e) if e.is(ErrorKind::Connection) => match self.act(vec![read]).await {
                Err(gone) if gone.is(ErrorKind::NotFound) => match session {
                    Target::SessionName(n) => (String::new(), n.clone()),
                    other => (other.to_string(), String::new()),
                },
                Ok(_) => return Err(e),
                Err(other) => return Err(other),
            },
            Err(e) => return Err(e),
        };
        Ok(Killed {
            id,
            name: Some(name).filter(|n| !n.is_empty()),
        })
    }

    /// Kills a window.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn kill_window(&self, window: WindowId) -> Result<Killed, Error> {
        let t = Target::Window(window);
        let kill = Command::new("kill-window").target(&t, TargetKind::Window);
        self.kill_checked(kill, &t).await?;
        Ok(Killed {
            id: window.to_string(),
            name: None,
        })
    }

    /// Kills a pane.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn kill_pane(&self, pane: PaneId) -> Result<Killed, Error> {
        let t = Target::Pane(pane);
        let kill = Command::new("kill-pane").target(&t, TargetKind::Pane);
        self.kill_checked(kill, &t).await?;
        Ok(Killed {
            id: pane.to_string(),
            name: None,
        })
    }

    /// Runs a kill of `target`; a connection that ended meanwhile (the
    /// last window of tmuxwire's own session) counts as success once the
    /// target is gone.
    async fn kill_checked(&self, kill: Command, target: &Target) -> Result<(), Error> {
        match self.act(vec![kill]).await {
            Ok(_) => Ok(()),
            Err(e) if e.is(ErrorKind::Connection) => {
                let exists = Command::new("list-panes").target(target, TargetKind::Window);
                match self.act(vec![exists]).await {
                    Err(gone)
                        if matches!(gone.kind(), ErrorKind::NotFound | ErrorKind::NoServer) =>
                    {
                        Ok(())
                    }
                    _ => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }
}

/// Parses a `$N`-or-name destination session.
pub fn session_ref(s: &str) -> Selector {
    match s.parse::<SessionId>() {
        Ok(id) => Selector {
            session_id: Some(id),
            ..Selector::default()
        },
        Err(_) => Selector {
            session_name: Some(s.to_string()),
            ..Selector::default()
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn window_names_as_tmux_parses_them() {
        assert_eq!(window_name("/bin/sh"), "sh");
        assert_eq!(window_name("-bash"), "bash");
        assert_eq!(window_name("exec vim file"), "vim");
        assert_eq!(window_name("\"quoted name\" rest"), "quoted");
        assert_eq!(window_name("python3\t"), "python3");
        assert_eq!(window_name("/usr/bin/"), "bin");
        assert_eq!(window_name(""), "");
    }

    use super::*;

    #[test]
    fn exact_names() {
        for ok in ["work", "build-x", "a b", "日本", "=x", "#{pane_id}"] {
            assert!(exact_name_target(ok), "{ok}");
        }
        for bad in [
            "",
            "$1",
            "a:b",
            "a.b",
            "/dev/pts/1",
            "pts/1",
            "client-12",
            "tty1",
        ] {
            assert!(!exact_name_target(bad), "{bad}");
        }
    }

    #[test]
    fn relative_panes() {
        assert_eq!(relative_pane(&Target::Window(WindowId(3)), "+"), "@3.+");
        assert_eq!(relative_pane(&Target::Session(SessionId(1)), "-"), "$1:.-");
        assert_eq!(
            relative_pane(&Target::SessionName("w".into()), "+"),
            "=w:.+"
        );
        let wi = Target::WindowIndex {
            session: Box::new(Target::Session(SessionId(1))),
            index: 2,
        };
        assert_eq!(relative_pane(&wi, "+"), "$1:2.+");
    }

    #[test]
    fn layouts() {
        let v33 = crate::wire::TmuxVersion::parse("3.3a");
        let v35 = crate::wire::TmuxVersion::parse("3.5a");
        let v38 = crate::wire::TmuxVersion::parse("3.8");
        for ok in ["tiled", "main-vertical", "b25d,80x24,0,0,0"] {
            assert_eq!(layout_argument(ok, &v33).ok().as_deref(), Some(ok), "{ok}");
        }
        assert!(layout_argument("main-vertical-mirrored", &v35).is_ok());
        let json = r#"{"V":2,"L":{"t":"p","w":80,"h":24,"x":0,"y":0,"a":true,"i":0,"I":"%0"}}"#;
        assert_eq!(layout_argument(json, &v38).ok().as_deref(), Some(json));
        assert_eq!(
            layout_argument(json, &v33).ok().as_deref(),
            Some("b25d,80x24,0,0,0")
        );
        // Each of these crashes a tmux 3.3 server (the last one 3.5a's too).
        for bad in [
            "",
            "nonsense",
            "t",
            "1,",
            "abcd,",
            "main-vertical-mirrored",
            "zzzz,1",
            "0073,80x24,0,0[80x12,0,0,0,80x11,0,13{80x11,0,13,1}]",
        ] {
            let e = layout_argument(bad, &v33).unwrap_err();
            assert!(e.is(ErrorKind::InvalidArgument), "{bad:?}: {e:?}");
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
}
