//! `run_command`: type a command at a pane's shell prompt and wait for
//! it to end, with its exit status and its own output.
//!
//! The default wraps the command in marks only tmuxwire can print
//! ([`run_command`]); `mode: "marks"` reads the shell's own marks
//! ([`run_marked`], on `wait_for_command`'s wait). Either waits on the
//! wait engine ([`crate::tmux::wait`]). The command is checked when the
//! request is built ([`check_command`]).

use std::time::{Duration, Instant};

use super::commands::{
    CommandOutcome, CommandOutputRequest, Entry, WaitForCommandRequest, wait_from,
};
use super::fit::{Fit, Limit, json_len};
use super::shape::Shape;
use super::{Op, Server};
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::mirror::lines::{Spot, cursor_spot, text_between};
use crate::mirror::marks::{self, MarkKind};
use crate::mirror::pane::Mark;
use crate::mirror::{PaneState, Progress, Status};
use crate::term::Term;
use crate::tmux::pane_text::{
    PaneEnd, RunCommandResult, RunOutcome, check_command, drop_typeahead, lossy,
};
use crate::tmux::wait::{self, Condition, End, Ended, Limits, Seen, exit_of, follow};
use crate::tmux::{Error, Selector};

/// `run_command`: type a command at a pane's shell prompt and wait for it
/// (see [`run_command`]).
#[derive(Clone)]
pub struct RunCommandRequest {
    /// The pane.
    pub pane: Selector,
    /// The shell command (may span lines).
    pub command: String,
    /// How long to wait for it.
    pub timeout: Duration,
    /// Lines of output kept (the newest); `None`: all, within the
    /// response limit.
    pub max_lines: Option<usize>,
    /// Type a leading space, so shells with `ignorespace` keep the
    /// command out of their history.
    pub suppress_history: bool,
    /// Send C-c when the time runs out.
    pub interrupt_on_timeout: bool,
    /// Type the command as it is and read its end from the shell's own
    /// marks ([`run_marked`]) instead of wrapping it.
    pub marks: bool,
    /// Where to report progress.
    pub progress: Option<Progress>,
}

impl RunCommandRequest {
    /// A run of `command` in `pane` for at most `timeout`; the other
    /// fields at their defaults (all output, in history, no C-c).
    ///
    /// # Errors
    ///
    /// As [`check_command`] (with `suppress_history` false).
    pub fn new(pane: Selector, command: String, timeout: Duration) -> Result<Self, Error> {
        check_command(&command, false)?;
        Ok(RunCommandRequest {
            pane,
            command,
            timeout,
            max_lines: None,
            suppress_history: false,
            interrupt_on_timeout: false,
            marks: false,
            progress: None,
        })
    }
}

op!(
    RunCommandRequest,
    RunCommandResult,
    async |req, server, _| {
        check_command(&req.command, req.suppress_history)?;
        wait::on_pane(server, &req.pane, req.timeout, async |pane| {
            if req.marks {
                return run_marked(server, pane, &req).await;
            }
            run_command(server, pane, &req).await
        })
        .await
    }
);

impl Fit for RunCommandResult {
    /// Leaves out the oldest output lines (an eighth at a time) until the
    /// answer fits, counting them in `output_truncated_lines`.
    fn fit_to(&mut self, b: usize) {
        while json_len(self) > b && !self.output.is_empty() {
            let n = self.output.len().div_ceil(8);
            self.output.drain(..n);
            self.output_truncated_lines += n;
            self.output_truncated = true;
        }
    }
}

/// Types `req.command` into the shell in `pane`, waits for it to end,
/// and returns its exit status and its own output (see
/// [`RunCommandResult`]).
///
/// A POSIX shell is given
/// `printf <start mark>; (⏎<command>⏎); printf <end mark> "$?"` and
/// Enter ([`crate::mirror::marks`]): the output is exactly the text
/// between the two marks, so neither the echo of what was typed nor
/// the prompt is part of it. The command runs in a subshell: `cd` and
/// `export` do not outlast it. fish (which has no subshell, and whose
/// `( … )` is a command substitution and `$?` an error, public case C36)
/// is given `printf <start mark>; begin⏎<command>⏎end; printf <end mark>
/// "$status"`: the command runs in the shell itself, so `cd` and `set -g`
/// do outlast it. A shell that is neither ([`Shell::of`]: nushell,
/// xonsh, elvish, PowerShell, csh, …) is refused before anything is
/// typed. Commands for one pane run one at a time, in the order they
/// were asked for.
///
/// The wait ends when the end mark arrives, when the time runs out, when
/// the pane's program exits or the pane is gone (`outcome` `exited` or
/// `pane_gone`, within about [`LIVENESS_EVERY`](crate::tmux::wait::LIVENESS_EVERY) when tmux does not notify
/// it), or when the server exits (an error).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for an empty command, or a multi-line
/// one with `suppress_history`;
/// [`ErrorKind::Unsupported`](crate::tmux::ErrorKind::Unsupported) for a
/// pane whose foreground program is a shell tmuxwire cannot wrap;
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when the
/// server exits meanwhile; a missing pane; connection errors.
pub(super) async fn run_command(
    server: &Server,
    pane: PaneId,
    req: &RunCommandRequest,
) -> Result<RunCommandResult, Error> {
    let started = Instant::now();
    check_command(&req.command, req.suppress_history)?;
    let f = shell_pane(server, pane, req).await?;
    let lock = f.pane.run_lock();
    let _turn = lock.lock().await;
    // The foreground program as tmux listed it just now (a command queued
    // behind another one is typed into whatever runs once its turn comes).
    let shell = match Shell::of(&f.command) {
        Shell::Other(name) => return Err(unsupported_shell(pane, &name)),
        s => s,
    };
    let nonce = crate::nonce::u128();
    let mut rx = f.pane.subscribe();
    let typed = typed_line(req, nonce, &shell);
    let target = Target::Pane(pane);
    // Noted before it is sent: what is typed into the pane from now on
    // (numbered after `typed_upto`) can only be typeahead echoed while
    // the command runs.
    let typed_upto = server.note_typed(
        &pane.to_string(),
        typed.as_bytes(),
        true,
        f.pane.cursor_origin(),
    );
    type_and_enter(server, &target, &typed).await?;
    let limits = Limits {
        started,
        ..Limits::new(
            req.timeout,
            req.progress.as_ref(),
            "waiting for the command",
        )
    };
    let end_of = wait::run(server, &f, &mut rx, &mut EndMark(nonce), &limits).await?;
    let timed_out = end_of == End::Timeout;
    let limit = req.max_lines.unwrap_or(usize::MAX);
    let (end, output, omitted, complete, began) = {
        // A snapshot: the command's output may be long.
        let st = f.pane.snapshot();
        read_output(&st, nonce, limit)
    };
    // What it printed so far is read before C-c, whose echo is not output.
    let interrupted = interrupt_if(server, &target, timed_out && req.interrupt_on_timeout).await?;
    let exit_status = match end.map(|e| e.kind) {
        Some(MarkKind::End(s)) => Some(s),
        _ => None,
    };
    let output = drop_typeahead(&server.typed.since(pane, typed_upto), output, end.is_none());
    let mut output: Vec<String> = output.iter().map(|l| lossy(l)).collect();
    if exit_status.is_none() {
        while output.last().is_some_and(String::is_empty) {
            output.pop();
        }
    }
    let ended = match &end_of {
        // The end mark may have come just before the pane went.
        End::Pane(e, None) if exit_status.is_none() => Some(e.clone()),
        _ => None,
    };
    let exit = exit_of(ended.as_ref());
    let (reading, evidence) = match end_of {
        End::Reading(i, evidence) if exit_status.is_none() => (Some(i), evidence),
        _ => (None, Vec::new()),
    };
    let outcome = match (exit_status, &ended, reading) {
        (Some(_), _, _) => RunOutcome::Completed,
        (None, Some(Ended::Exited(_)), _) => RunOutcome::Exited,
        (None, Some(Ended::Gone), _) => RunOutcome::PaneGone,
        (None, None, Some(i)) if wait::reads_password(i) => RunOutcome::PasswordPrompt,
        (None, None, Some(_)) => RunOutcome::AwaitingInput,
        (None, None, None) => RunOutcome::Timeout,
    };
    Ok(RunCommandResult {
        exit_status,
        output_complete: complete && (exit_status.is_some() || timed_out || ended.is_some()),
        note: note(outcome, began, interrupted),
        end: PaneEnd {
            pane_dead: ended.is_some(),
            exit,
            evidence,
        },
        ..answer(req, pane, started, outcome, (output, omitted), interrupted)
    })
}

/// The pane a run types into, followed (see [`follow`]; progress goes to
/// the request's sink while the copy is seeded).
///
/// # Errors
///
/// `NotFound` for a dead pane (no shell to type into), and as [`follow`].
async fn shell_pane(
    server: &Server,
    pane: PaneId,
    req: &RunCommandRequest,
) -> Result<wait::Followed, Error> {
    let f = follow(server, pane, req.progress.as_ref(), Some(req.timeout / 2)).await?;
    if f.pane.view().status() == Status::Dead {
        return Err(Error::not_found(format!(
            "pane {pane} is dead: there is no shell to run the command in"
        )));
    }
    Ok(f)
}

/// Types `line` into `target` exactly (`send-keys -l`) and presses Enter,
/// in one round trip, the pane's modes left first
/// ([`crate::tmux::input::leave_modes`]): what `run_command` types.
///
/// # Errors
///
/// tmux's error for either command; connection errors.
pub(super) async fn type_and_enter(
    server: &Server,
    target: &Target,
    line: &str,
) -> Result<(), Error> {
    let cmds = [
        crate::tmux::input::leave_modes(&target.to_arg(TargetKind::Pane)),
        Command::new("send-keys")
            .target(target, TargetKind::Pane)
            .arg("-l")
            .arg("--")
            .arg(line),
        Command::new("send-keys")
            .target(target, TargetKind::Pane)
            .arg("Enter"),
    ];
    for out in server.run_all(&cmds).await? {
        out.into_result()?;
    }
    Ok(())
}

/// Presses C-c in `target` when `yes` (`interrupt_on_timeout` after a
/// run's time ran out), its modes left first; whether it did.
///
/// # Errors
///
/// tmux's error; connection errors.
pub(super) async fn interrupt_if(
    server: &Server,
    target: &Target,
    yes: bool,
) -> Result<bool, Error> {
    if yes {
        let leave = crate::tmux::input::leave_modes(&target.to_arg(TargetKind::Pane));
        let c_c = Command::new("send-keys")
            .target(target, TargetKind::Pane)
            .arg("C-c");
        for out in server.run_all(&[leave, c_c]).await? {
            out.into_result()?;
        }
    }
    Ok(yes)
}

/// `run_command`'s condition: the run `nonce`'s end mark is in the copy
/// (its marks are read from the pane's output by the mirror,
/// [`crate::mirror::marks`]).
struct EndMark(u128);

impl Condition for EndMark {
    type Found = ();

    fn look(&mut self, seen: &Seen<'_>) -> Option<()> {
        seen.newest_mark(|m| m.nonce == self.0 && is_end(m.kind))
            .map(|_| ())
    }
}

/// The shell a pane runs, as `run_command` wraps commands for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shell {
    /// A POSIX shell (sh, bash, dash, zsh, ksh, …), or a program tmuxwire
    /// does not know as a shell (`ssh`, a wrapper, …): the POSIX wrapper.
    Posix,
    /// fish.
    Fish,
    /// A shell whose syntax neither wrapper parses (its name as tmux
    /// reports it).
    Other(String),
}

impl Shell {
    /// The shell of a pane whose foreground process tmux names `command`
    /// (`#{pane_current_command}`: the process's name, which the kernel
    /// cuts to 15 bytes; a login shell's leading `-` is dropped here).
    pub(crate) fn of(command: &str) -> Shell {
        let name = command.trim().trim_start_matches('-');
        let name = name.rsplit('/').next().unwrap_or(name);
        match name {
            "fish" => Shell::Fish,
            "nu" | "nushell" | "xonsh" | "elvish" | "pwsh" | "powershell" | "pwsh-preview"
            | "csh" | "tcsh" | "rc" | "es" | "ion" | "murex" | "ngs" | "oh" | "cmd" | "cmd.exe"
            | "powershell.exe" | "pwsh.exe" => Shell::Other(name.to_string()),
            _ if name.starts_with("xonsh") => Shell::Other(name.to_string()),
            _ => Shell::Posix,
        }
    }
}

/// The error for a pane whose shell `run_command` cannot wrap.
fn unsupported_shell(pane: PaneId, name: &str) -> Error {
    Error::unsupported(format!(
        "run_command needs a POSIX shell or fish at the prompt of pane {pane}, but it runs          {name:?} (pane_current_command), whose syntax the wrapper that marks the command's          start, end and exit status is not written in; nothing was typed. Use send_keys and          wait_for_text there instead"
    ))
}

/// What the shell is given for `req.command` (see [`run_command`]).
fn typed_line(req: &RunCommandRequest, nonce: u128, shell: &Shell) -> String {
    let space = if req.suppress_history { " " } else { "" };
    let (start, end) = (marks::start_printf(nonce), marks::end_printf(nonce));
    match shell {
        Shell::Fish => format!(
            "{space}printf '{start}'; begin\n{}\nend; printf '{end}' \"$status\"",
            req.command,
        ),
        Shell::Posix | Shell::Other(_) => format!(
            "{space}printf '{start}'; (\n{}\n); printf '{end}' \"$?\"",
            req.command,
        ),
    }
}

fn is_start(k: MarkKind) -> bool {
    k == MarkKind::Start
}

fn is_end(k: MarkKind) -> bool {
    matches!(k, MarkKind::End(_))
}

/// The newest mark of the run `nonce` of a kind `kind` accepts.
fn find_mark(st: &PaneState, nonce: u128, kind: fn(MarkKind) -> bool) -> Option<Mark> {
    st.marks()
        .rev()
        .find(|m| m.nonce == nonce && kind(m.kind))
        .copied()
}

/// What the run `nonce` printed so far, as the copy `st` holds it: its
/// end mark, its newest `limit` lines, the lines left out, whether all of
/// it could be read, and whether it began at all.
fn read_output(
    st: &PaneState,
    nonce: u128,
    limit: usize,
) -> (Option<Mark>, Vec<Vec<u8>>, usize, bool, bool) {
    let start = find_mark(st, nonce, is_start);
    let end = find_mark(st, nonce, is_end);
    let (output, omitted, complete) = match st.term() {
        Some(t) => output_between(t, st.epoch(), (start, end), nonce, limit),
        None => (Vec::new(), 0, false),
    };
    (end, output, omitted, complete, start.is_some())
}

/// What the run `nonce` printed, in the copy `t` of epoch `epoch`, given
/// its start and end marks as found (either may be of an older copy, or
/// missing): its newest `limit` lines, the lines left out, and whether
/// all of it could be read.
fn output_between(
    t: &Term,
    epoch: u64,
    (start, end): (Option<Mark>, Option<Mark>),
    nonce: u128,
    limit: usize,
) -> (Vec<Vec<u8>>, usize, bool) {
    match start {
        Some(s) if s.epoch == epoch => {
            let to = match end {
                Some(e) if e.epoch == epoch => e.at,
                _ => cursor_spot(t),
            };
            let complete = end.is_none_or(|e| e.epoch == epoch);
            let first = t.history().first_index();
            if s.at.line < first {
                // The command printed more than the pane's history
                // holds: its newest lines, the lost ones counted.
                let lost = usize::try_from(first.0 - s.at.line.0).unwrap_or(usize::MAX);
                let from = Spot {
                    line: first,
                    row: 0,
                    column: 0,
                };
                match text_between(t, from, to, limit) {
                    Some((lines, omitted)) => (lines, omitted.saturating_add(lost), false),
                    None => (Vec::new(), lost, false),
                }
            } else {
                match text_between(t, s.at, to, limit) {
                    Some((lines, omitted)) => (lines, omitted, complete),
                    None => (Vec::new(), 0, false),
                }
            }
        }
        // The copy was seeded again while it ran: the start mark is in an
        // older copy, or never reached this one (the link dropped between
        // the mark and tmux's `%output` of it).
        _ => match end {
            Some(e) if e.epoch == epoch => output_after_echo(t, e, nonce, limit),
            _ => (Vec::new(), 0, false),
        },
    }
}

/// The output of the run `nonce` when the copy was seeded again while it
/// ran (a remote host's link dropped, a `%pause`): the start mark's place
/// is gone with the old copy (or the mark was lost with the link before it
/// arrived), but the shell echoed the typed line that
/// prints the end mark, and its text holds the nonce, which no output can
/// know. The output is what comes after that echo, up to the end mark
/// `end` (the newest `limit` lines; the rest counted). Incomplete (and
/// empty) when the echo is not in the copy any more.
fn output_after_echo(
    t: &Term,
    end: Mark,
    nonce: u128,
    limit: usize,
) -> (Vec<Vec<u8>>, usize, bool) {
    let from = Spot {
        line: t.history().first_index(),
        row: 0,
        column: 0,
    };
    let Some((lines, _)) = text_between(t, from, end.at, usize::MAX) else {
        return (Vec::new(), 0, false);
    };
    let needle = format!(";{nonce:032x};E;");
    let Some(echo) = lines
        .iter()
        .rposition(|l| memchr::memmem::find(l, needle.as_bytes()).is_some())
    else {
        return (Vec::new(), 0, false);
    };
    let mut out = lines[echo + 1..].to_vec();
    let omitted = out.len().saturating_sub(limit);
    out.drain(..omitted);
    (out, omitted, true)
}

/// What to do next when the command did not finish (see
/// [`RunCommandResult::note`]).
fn note(outcome: RunOutcome, began: bool, interrupted: bool) -> Option<String> {
    match (outcome, began, interrupted) {
        (RunOutcome::Timeout, false, _) => Some(
            "the shell never started the command: it is still running an earlier one, or \
             waits for more input (an unclosed quote?); send_keys with keys C-c brings \
             the prompt back"
                .into(),
        ),
        (RunOutcome::Timeout, true, false) => Some(
            "the command is still running; a later run_command in this pane types behind \
             it: interrupt it with send_keys keys C-c, or pass interrupt_on_timeout"
                .into(),
        ),
        (RunOutcome::Exited, _, _) => Some(
            "the pane's program exited before the command ended; tmux keeps the dead pane \
             (remain-on-exit): respawn_pane starts it again"
                .into(),
        ),
        (RunOutcome::PasswordPrompt, _, _) => Some(
            "the command is reading a password (echo off) and waits: type it with \
             send_keys (allow_password_input), or interrupt it with keys C-c"
                .into(),
        ),
        (RunOutcome::AwaitingInput, _, _) => Some(
            "the command is reading a line of input or a key and waits: answer it with \
             send_keys, or interrupt it with keys C-c"
                .into(),
        ),
        (RunOutcome::PaneGone, _, _) => Some(
            "the pane is gone: its shell exited or the pane was killed before the command ended"
                .into(),
        ),
        _ => None,
    }
}

/// `run_command` with `mode: "marks"`: types `req.command` as it is at
/// the shell's prompt (so `cd` and `export` persist) and reads its end,
/// exit status and output from the shell's own command marks (OSC
/// 133/633), which any program in the pane can print: the answer's note
/// says so. Refused at once in a pane whose shell has sent no marks, or
/// while a marked command runs.
///
/// # Errors
///
/// `Unsupported` without marks; `InvalidArgument` while a command runs;
/// as [`run_command`] otherwise.
async fn run_marked(
    server: &Server,
    pane: PaneId,
    req: &RunCommandRequest,
) -> Result<RunCommandResult, Error> {
    let started = std::time::Instant::now();
    let f = shell_pane(server, pane, req).await?;
    let lock = f.pane.run_lock();
    let _turn = lock.lock().await;
    let entry = {
        let st = f.pane.view();
        let t = st
            .term()
            .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))?;
        let c = t.commands();
        if c.marks_seen() == 0 {
            return Err(Error::unsupported(format!(
                "pane {pane}'s shell has sent no command marks (OSC 133/633) since tmuxwire \
                 watched it: mode \"marks\" needs shell integration (the default mode wraps the \
                 command itself)"
            ))
            .for_argument("mode"));
        }
        if let Some(r) = c.last().filter(|r| r.running()) {
            return Err(Error::invalid(
                "mode",
                format!(
                    "pane {pane} is running command {} (its marks say): mode \"marks\" types at \
                     a prompt; wait_for_command waits for it",
                    r.index
                ),
                "a pane at its prompt",
            ));
        }
        Entry::of(t)
    };
    let typed = if req.suppress_history {
        format!(" {}", req.command)
    } else {
        req.command.clone()
    };
    server.note_typed(
        &pane.to_string(),
        typed.as_bytes(),
        true,
        f.pane.cursor_origin(),
    );
    let target = Target::Pane(pane);
    type_and_enter(server, &target, &typed).await?;
    let wait = WaitForCommandRequest {
        pane: Selector {
            pane_id: Some(pane),
            ..Selector::default()
        },
        timeout: req.timeout,
        progress: req.progress.clone(),
    };
    let w = wait_from(server, pane, &wait, Some(entry)).await?;
    let outcome = match w.outcome {
        CommandOutcome::Finished => RunOutcome::Completed,
        CommandOutcome::PasswordPrompt => RunOutcome::PasswordPrompt,
        CommandOutcome::AwaitingInput => RunOutcome::AwaitingInput,
        CommandOutcome::Exited => RunOutcome::Exited,
        CommandOutcome::PaneGone => RunOutcome::PaneGone,
        CommandOutcome::Timeout => RunOutcome::Timeout,
    };
    let interrupted = interrupt_if(
        server,
        &target,
        outcome == RunOutcome::Timeout && req.interrupt_on_timeout,
    )
    .await?;
    let record = w.command.as_ref().or(w.running.as_ref());
    let (output, omitted) = match record {
        Some(c) if outcome != RunOutcome::PaneGone => {
            let out = CommandOutputRequest {
                pane: wait.pane.clone(),
                index: i64::try_from(c.index).unwrap_or(i64::MAX),
                shape: Shape {
                    tail: req.max_lines,
                    ..Shape::default()
                },
                ..CommandOutputRequest::default()
            }
            .run(server, Limit::NONE)
            .await;
            match out {
                Ok(o) => (
                    o.lines.into_iter().map(|l| l.text).collect(),
                    o.lines_omitted,
                ),
                Err(_) => (w.tail.clone(), 0),
            }
        }
        _ => (w.tail.clone(), 0),
    };
    let exit_status = w
        .command
        .as_ref()
        .and_then(|c| c.exit_status)
        .map(i32::from);
    let mut note = String::from(
        "mode marks: the end, exit status and output come from the shell's own marks, which \
         any program in the pane can print (trusted false)",
    );
    if outcome == RunOutcome::Completed && exit_status.is_none() {
        note.push_str("; its end mark carried no status");
    }
    if outcome == RunOutcome::Timeout {
        note.push_str("; the command is still running");
    }
    Ok(RunCommandResult {
        exit_status,
        output_complete: outcome == RunOutcome::Completed,
        note: Some(note),
        end: PaneEnd {
            pane_dead: matches!(outcome, RunOutcome::Exited | RunOutcome::PaneGone),
            exit: w.exit,
            evidence: w.evidence,
        },
        ..answer(req, pane, started, outcome, (output, omitted), interrupted)
    })
}

/// The fields of a `run_command` answer both modes fill alike: `outcome`,
/// the output (the newest lines, and how many older ones were left out),
/// whether C-c was pressed, and the times; the caller sets the rest.
fn answer(
    req: &RunCommandRequest,
    pane: PaneId,
    started: Instant,
    outcome: RunOutcome,
    (output, omitted): (Vec<String>, usize),
    interrupted: bool,
) -> RunCommandResult {
    RunCommandResult {
        pane_id: pane.to_string(),
        exit_status: None,
        timed_out: outcome == RunOutcome::Timeout,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        output,
        output_truncated: omitted > 0,
        output_truncated_lines: omitted,
        effective_timeout: req.timeout.as_secs_f64(),
        interrupted,
        output_complete: false,
        note: None,
        outcome,
        end: PaneEnd::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mirror::lines::Spot;
    use crate::term::LineIndex;

    #[test]
    fn shells_by_name() {
        for posix in [
            "bash", "-bash", "sh", "dash", "zsh", "ksh", "ssh", "sleep", "",
        ] {
            assert_eq!(Shell::of(posix), Shell::Posix, "{posix}");
        }
        assert_eq!(Shell::of("fish"), Shell::Fish);
        assert_eq!(Shell::of("-fish"), Shell::Fish);
        for other in ["nu", "nushell", "xonsh", "elvish", "pwsh", "tcsh", "csh"] {
            assert_eq!(Shell::of(other), Shell::Other(other.to_string()), "{other}");
        }
    }

    #[test]
    fn wrappers_per_shell() {
        let req = RunCommandRequest::new(
            Selector::default(),
            "echo hello; false".into(),
            Duration::from_secs(1),
        )
        .expect("request");
        let posix = typed_line(&req, 1, &Shell::Posix);
        assert!(
            posix.contains("; (\necho hello; false\n); printf"),
            "{posix}"
        );
        assert!(posix.ends_with("\"$?\""), "{posix}");
        let fish = typed_line(&req, 1, &Shell::Fish);
        assert!(
            fish.contains("; begin\necho hello; false\nend; printf"),
            "{fish}"
        );
        assert!(fish.ends_with("\"$status\""), "{fish}");
        assert!(!fish.contains("$?") && !fish.contains("; ("), "{fish}");
    }

    /// A copy seeded again while the run went on: the output is what
    /// follows the echo of the typed line that prints the end mark,
    /// whether the start mark is in the older copy or never arrived (a
    /// link that dropped right after it was printed).
    #[test]
    fn a_copy_seeded_again_reads_the_output_after_the_echo() {
        let nonce = 0x4035_u128;
        let mut t = Term::new(
            80,
            8,
            crate::term::Rules::V36,
            crate::term::Options::default(),
        );
        let echo = format!(
            "$ printf 'S'; (\r\n> echo a; echo b\r\n> ); printf '{}' \"$?\"\r\na\r\nb\r\n",
            crate::mirror::marks::end_printf(nonce)
        );
        t.advance(echo.as_bytes());
        let end = Mark {
            nonce,
            kind: MarkKind::End(7),
            at: cursor_spot(&t),
            epoch: 2,
        };
        let start = Mark {
            kind: MarkKind::Start,
            epoch: 1,
            ..end
        };
        let want = (vec![b"a".to_vec(), b"b".to_vec()], 0, true);
        for start in [Some(start), None] {
            assert_eq!(
                output_between(&t, 2, (start, Some(end)), nonce, 100),
                want,
                "{start:?}"
            );
        }
        // Another run's echo is not this one's.
        assert_eq!(
            output_between(&t, 2, (None, Some(end)), nonce + 1, 100),
            (Vec::new(), 0, false)
        );
        // No end mark in this copy: nothing can be read yet.
        assert_eq!(
            output_between(&t, 2, (None, None), nonce, 100),
            (Vec::new(), 0, false)
        );
    }

    #[test]
    fn the_end_mark_of_this_run_only_meets_the_wait() {
        let t = Term::new(
            20,
            4,
            crate::term::Rules::V36,
            crate::term::Options::default(),
        );
        let mark = |nonce, kind| Mark {
            nonce,
            kind,
            at: Spot {
                line: LineIndex(0),
                row: 0,
                column: 0,
            },
            epoch: 0,
        };
        let mut c = EndMark(7);
        let marks = [mark(7, MarkKind::Start), mark(8, MarkKind::End(0))];
        assert_eq!(c.look(&Seen::of_term(&t, 0).with_marks(&marks)), None);
        let marks = [mark(7, MarkKind::Start), mark(7, MarkKind::End(2))];
        assert_eq!(c.look(&Seen::of_term(&t, 0).with_marks(&marks)), Some(()));
    }
}
