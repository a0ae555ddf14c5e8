//! `get_pane_state`: what a pane's program is doing with its input, from
//! the pane terminal's settings and `/proc` ([`crate::sys`]), with the
//! screen modes tmux reports.
//!
//! One round trip (`list-panes` filtered to the pane), then local reads
//! of the pane's tty and `/proc`. tmuxwire reaches tmux over a Unix
//! socket, so the server is on this machine, but it may run as another
//! user or in another pid namespace: then the facts are `unknown`, said
//! in `evidence`, never guessed.

use schemars::JsonSchema;
use serde::Serialize;

use super::fit::Limit;
use super::{Op, Server};
use crate::control::Command;
use crate::control::format::{Query, Record};
use crate::mirror::PaneMirror;
use crate::sys::input::{self, Facts, Input, Termios};
use crate::tmux::target::{one_record, pane_lookup};
use crate::tmux::wait::ProcessRow;
use crate::tmux::{Error, Selector, Subject};

crate::fits_whole!(PaneState);

crate::record! {
    /// The tmux variables a [`PaneState`] is read from.
    struct StateRow {
        pane_id: String = "pane_id",
        alternate_on: Option<bool> = "alternate_on",
        // Empty (unknown) where the version lacks the variable:
        // `bracket_paste_flag` is new in tmux 3.7.
        cursor_flag: Option<bool> = "cursor_flag",
        bracket_paste_flag: Option<bool> = "bracket_paste_flag",
        pane_current_command: String = "pane_current_command",
        // Where the text left of the cursor is read, when the input
        // state needs it (`sys::input::needs_prompt_row`).
        cursor_x: u32 = "cursor_x",
        cursor_y: u32 = "cursor_y",
    }
}

/// A pane as `get_pane_state` lists it: its [`StateRow`], then the
/// [`ProcessRow`] its tty and `/proc` facts are read from.
struct PaneRow {
    state: StateRow,
    process: ProcessRow,
}

impl PaneRow {
    /// The format variables, in record order.
    const FIELDS: &'static [&'static str] = &crate::concat_fields!(StateRow, ProcessRow);

    /// Reads one from a record of [`PaneRow::FIELDS`].
    fn from_record(r: &Record) -> PaneRow {
        PaneRow {
            state: StateRow::from_record(r),
            process: ProcessRow::from_record_at(r, StateRow::FIELDS.len()),
        }
    }
}

/// `get_pane_state`: one pane (by id; else the active pane of the window
/// or session named; else the caller's own pane or the default one).
///
/// # Errors
///
/// [`crate::tmux::ErrorKind::NotFound`] for a missing pane; connection
/// errors. Facts that cannot be read are not errors: `input` is then
/// `unknown`.
#[derive(Default)]
pub struct PaneStateRequest {
    /// The pane.
    pub pane: Selector,
    /// Follow the pane in the mirror (seeding its copy) to read its
    /// command marks, output times and modes; else those come only from
    /// a copy that already exists.
    pub follow: bool,
}

/// The foreground process of a pane's terminal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Foreground {
    /// Its pid (tmuxwire's pid namespace).
    pub pid: u32,
    /// Its name (`comm`, at most 15 bytes as the program chose it), with
    /// control characters as C-style escapes (`\n`, `\x1b`) and `\` as
    /// `\\`.
    pub name: String,
}

/// `get_pane_state`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PaneState {
    /// line-editor: the shell edits a command line; line-read: a program
    /// reads an echoed line; password: it reads a line without echo;
    /// key-read: it waits for a single key (`read -n 1`, a y/n question;
    /// the pane's shell reading keys while its marks say a command runs);
    /// raw: a program (TUI) reads keys itself; busy: not reading;
    /// unknown: the facts could not be read or do not decide.
    pub input: Input,
    /// Pane id, `%N`.
    pub pane_id: String,
    /// The foreground process; null when it could not be read.
    pub foreground: Option<Foreground>,
    /// Whether the foreground process is pane_pid (the pane's shell);
    /// null when unknown.
    pub shell_in_foreground: Option<bool>,
    /// The terminal's ECHO and ICANON; null when unreadable.
    pub termios: Option<Termios>,
    /// The foreground process's kernel wait channel
    /// (`poll_schedule_timeout`, `wait_woken`, `hrtimer_nanosleep`);
    /// absent when unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wchan: Option<String>,
    /// Whether the alternate screen is shown.
    pub alternate_on: Option<bool>,
    /// Whether the cursor is shown (`?25`); null when unknown.
    pub cursor_visible: Option<bool>,
    /// Whether the program asked for bracketed paste (`?2004`): tmux's
    /// flag (3.7+), else what tmuxwire's copy saw; null when unknown.
    pub bracketed_paste: Option<bool>,
    /// The newest shell-integration mark (OSC 133/633, advisory: any
    /// program can print them): prompt (a command line is being edited)
    /// | running (C without D, also under a prompt the command drew, as
    /// fish's `read` does) | finished | none (no marks seen); null without
    /// a copy (mirror off).
    pub command_state: Option<&'static str>,
    /// When the pane last printed (Unix seconds), as tmuxwire's copy saw;
    /// null when not since it followed the pane, or without a copy.
    pub last_output_at: Option<f64>,
    /// When its visible screen's text last changed (Unix seconds, taken
    /// outside synchronized-output frames); null as last_output_at.
    pub last_change_at: Option<f64>,
    /// Each fact used, and each that could not be read, in words.
    pub evidence: Vec<String>,
    /// Where the facts were read (the pane's tty and pids), for a later
    /// look without asking tmux again; `None` for a dead pane.
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) process: Option<crate::tmux::wait::ProcessRef>,
    /// How long ago the pane's first process started, where read.
    #[serde(skip)]
    #[schemars(skip)]
    pub(super) pane_age: Option<std::time::Duration>,
}

op!(PaneStateRequest, PaneState, async |req, server, _| {
    let target = server.resolve_pane(&req.pane).await?;
    let q = Query::new(PaneRow::FIELDS);
    let body = server.run(&pane_lookup(&target, &q)).await?.into_result()?;
    let row = PaneRow::from_record(&one_record(&q, &body, &target)?);
    let Ok(pane) = row.state.pane_id.parse::<crate::control::PaneId>() else {
        return Ok(read_state(server, &row, None).await);
    };
    // A copy followed here is confirmed by tmux after the row above
    // was read: its modes are the newer of the two.
    let mut no_copy = None;
    let (copy, confirmed) = match server.mirror().await {
        None => (None, false),
        Some(_) if req.follow && !row.process.pane_dead => {
            match crate::tmux::wait::copy_of(server, pane).await {
                Ok(c) => (Some(c), true),
                Err(e) => {
                    no_copy = Some(format!("no copy of the pane: {e}"));
                    (None, false)
                }
            }
        }
        Some(m) => (m.pane(pane), false),
    };
    let mut st = read_state(server, &row, copy.as_deref()).await;
    st.evidence.extend(no_copy);
    if let Some(c) = copy {
        from_copy(&mut st, &c, confirmed);
    }
    Ok(st)
});

/// Fills what tmuxwire's copy of the pane knows into `st`: the newest
/// command mark, output and screen-change times, and the modes tmux did
/// not report. A `confirmed` copy (checked against tmux after `st` was
/// listed) also replaces the modes tmux reported: output tmux parsed
/// between the listing and the check (a prompt turning `?2004` on) is in
/// the copy, not in the listing.
fn from_copy(st: &mut PaneState, copy: &crate::mirror::PaneMirror, confirmed: bool) {
    let view = copy.view();
    let Some(t) = view.term() else {
        return;
    };
    let modes = t.private_modes();
    let ss = t.screen_state();
    let c = t.commands();
    st.command_state = Some(match c.last() {
        None => "none",
        // A prompt drawn while a command runs (fish's `read`) is that
        // command's.
        Some(_) if c.running().is_some() => "running",
        Some(r) if r.ended.is_some() => "finished",
        Some(r) if r.output_start.is_some() => "running",
        Some(_) => "prompt",
    });
    st.last_output_at = ss.last_output_at.and_then(super::commands::unix_seconds);
    st.last_change_at = ss
        .last_change_at
        .or(ss.last_output_at)
        .and_then(super::commands::unix_seconds);
    if modes.bracketed_paste.is_some() && (confirmed || st.bracketed_paste.is_none()) {
        if st.bracketed_paste.is_none() {
            st.evidence.push(
                "bracketed_paste as tmuxwire's copy saw ?2004 (tmux < 3.7 does not say)".into(),
            );
        }
        st.bracketed_paste = modes.bracketed_paste;
    }
    if modes.cursor_visible.is_some() && (confirmed || st.cursor_visible.is_none()) {
        st.cursor_visible = modes.cursor_visible;
    }
}

/// Refuses to type into the pane `sel` names while its program reads a
/// password ([`Input::Password`]: ECHO off with ICANON on, or a password
/// reader with ICANON off, see [`crate::sys::input`]). A pane whose facts
/// cannot be read (`unknown`) is not refused: nothing says it reads a
/// secret.
///
/// # Errors
///
/// [`crate::tmux::ErrorKind::PasswordInput`] for that pane;
/// `NotFound` for a missing pane; connection errors.
pub(super) async fn refuse_password_input(server: &Server, sel: &Selector) -> Result<(), Error> {
    let st = PaneStateRequest {
        pane: sel.clone(),
        follow: false,
    }
    .run(server, Limit::NONE)
    .await?;
    refuse_password_state(&st)
}

/// [`refuse_password_input`] for several panes at once, by id: one
/// round trip (`list-panes -a`), whatever their number. A pane that is
/// not there is left to the typing, which fails for it.
///
/// # Errors
///
/// [`crate::tmux::ErrorKind::PasswordInput`] for the first pane that
/// reads a password; connection errors.
pub(super) async fn refuse_password_panes(
    server: &Server,
    panes: &[crate::control::PaneId],
) -> Result<(), Error> {
    if panes.is_empty() {
        return Ok(());
    }
    let (cmd, q) = crate::tmux::target::template_cmd("list-panes", PaneRow::FIELDS);
    let body = server.run(&cmd.arg("-a")).await?.into_result()?;
    for r in q.parse(&body) {
        let row = PaneRow::from_record(&r);
        if panes.iter().any(|p| p.to_string() == row.state.pane_id) {
            let copy = match (server.running_mirror(), row.state.pane_id.parse()) {
                (Some(m), Ok(p)) => m.pane(p),
                _ => None,
            };
            refuse_password_state(&read_state(server, &row, copy.as_deref()).await)?;
        }
    }
    Ok(())
}

/// [`refuse_password_input`] on a state already read.
///
/// # Errors
///
/// [`crate::tmux::ErrorKind::PasswordInput`] when `st` reads a password.
pub(super) fn refuse_password_state(st: &PaneState) -> Result<(), Error> {
    if st.input != Input::Password {
        return Ok(());
    }
    let program = st
        .foreground
        .as_ref()
        .map_or_else(String::new, |f| format!(" ({})", f.name));
    Err(Error::password_input(format!(
        "pane {} is reading a password: its program{program} turned echo off to read a secret",
        st.pane_id
    ))
    .about(Subject::Pane(st.pane_id.clone()))
    .for_argument("allow_password_input"))
}

/// The state of the pane `row` describes: its tty and `/proc` read, and,
/// when the decision needs it ([`input::needs_prompt_row`]), the text
/// left of its cursor, from `copy` (the pane's copy) when it is live, else
/// from tmux (one `capture-pane` of the cursor's row).
async fn read_state(server: &Server, row: &PaneRow, copy: Option<&PaneMirror>) -> PaneState {
    let mut facts = facts_of(row);
    facts.command_running = copy.and_then(crate::tmux::wait::marks_running);
    if input::needs_prompt_row(&facts) {
        facts.prompt_row = match copy.filter(|c| c.view().status() == crate::mirror::Status::Live) {
            Some(c) => crate::tmux::wait::prompt_row_of(c),
            None => prompt_row(server, row).await,
        };
    }
    state_of(row, &facts)
}

/// The text left of the cursor on its row, as tmux shows the pane
/// (`capture-pane -p` of that row, read by length); `None` when tmux
/// does not give it.
async fn prompt_row(server: &Server, row: &PaneRow) -> Option<String> {
    let y = row.state.cursor_y.to_string();
    let capture = Command::new("capture-pane")
        .arg("-p")
        .opt("-t", row.state.pane_id.as_str())
        .opt("-S", y.as_str())
        .opt("-E", y.as_str());
    let out = server.run_all(&[capture]).await.ok()?.pop()?;
    if !out.ok {
        return None;
    }
    Some(input::left_of(&out.text(), row.state.cursor_x).to_string())
}

/// What is read of the pane `row` describes: its tty and `/proc`.
fn facts_of(row: &PaneRow) -> Facts {
    match row.process.process() {
        Some(p) => p.probe(),
        None => Facts {
            notes: vec!["the pane is dead (its process exited; remain-on-exit)".into()],
            ..Default::default()
        },
    }
}

/// The state of the pane `row` describes, from `facts`.
fn state_of(row: &PaneRow, facts: &Facts) -> PaneState {
    let (input, mut evidence) = input::classify(facts);
    if facts.foreground.is_none() && !row.state.pane_current_command.is_empty() {
        evidence.push(format!(
            "tmux reports pane_current_command '{}'",
            crate::sys::stat::display_name(row.state.pane_current_command.as_bytes())
        ));
    }
    let fg = facts.foreground.as_ref();
    PaneState {
        pane_id: row.state.pane_id.clone(),
        input,
        foreground: fg.map(|p| Foreground {
            pid: p.pid,
            name: crate::sys::stat::display_name(&p.comm),
        }),
        shell_in_foreground: fg.map(|_| facts.shell_in_foreground),
        termios: facts.termios,
        wchan: fg
            .and_then(|p| p.wchan.as_deref())
            .map(input::wchan_name)
            .filter(|w| !w.is_empty() && *w != "0")
            .map(|w| crate::sys::stat::display_name(w.as_bytes())),
        alternate_on: row.state.alternate_on,
        cursor_visible: row.state.cursor_flag,
        bracketed_paste: row.state.bracket_paste_flag,
        command_state: None,
        last_output_at: None,
        last_change_at: None,
        evidence,
        process: row.process.process(),
        pane_age: facts.pane_age,
    }
}
