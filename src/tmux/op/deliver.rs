//! Confirmed input: `send_keys` and `paste_text` with Enter type the
//! body first (never with its final newline), wait a settle delay, press
//! Enter as a key of its own, and say from the mirror whether the body
//! arrived and was submitted ([`Delivery`]).
//!
//! Why the delay: TUIs that read raw keys tell typing from a paste by
//! timing (Codex takes an Enter within 120 ms of fast typing as part of
//! a paste, a newline in its composer), so Enter pressed right after the
//! body is lost there. A shell's line editor has no such rule, so it
//! gets the body and Enter in one control-mode line as before (delay 0).
//!
//! The evidence is read from the pane's copy, never guessed; marks are
//! advisory (any program can print them), and `unconfirmed` is an
//! honest answer. A lost Enter is pressed again at most
//! [`MAX_RETRIES`] times, and only while the body is still on the input
//! row (a double submit is worse than none).
//!
//! The readiness gate (`wait_ready`) waits, at most [`READY_AT_MOST`],
//! until the pane's program reads: a marked prompt, or the terminal's
//! settings show a reader (a line editor, a line read, a TUI reading
//! keys) and the screen has been still for [`READY_STILL`]. Keys typed
//! into a pane whose program has not begun to read are often discarded
//! (zsh and sudo flush typeahead when they start). Unless the caller
//! says, the gate runs for a pane started moments ago ([`FRESH`]) whose
//! own first process is still its terminal's foreground (nothing was
//! launched in it yet), for at most [`READY_WHEN_FRESH`].

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use crate::mirror::PaneMirror;
use crate::mirror::lines::cursor_spot;
use crate::sys::input::Input;
use crate::term::{LineIndex, Term};
use crate::tmux::Error;
use crate::tmux::model::is_zero;
use crate::tmux::wait::{self, Condition, OnTerm, ProcessRef, Seen};
// The pane's copy as typing reads it (followed first only when there is
// none or it is not live).
pub(super) use crate::tmux::wait::copy_of;
use tokio::time::Instant;

/// The delay between the body and Enter for a program that is not a
/// shell's line editor (above Codex's 120 ms paste window).
pub const SUBMIT_DELAY: Duration = Duration::from_millis(150);

/// The longest `submit_delay_ms`.
pub const MAX_SUBMIT_DELAY: Duration = Duration::from_secs(10);

/// How long the mirror is watched for evidence that Enter submitted the
/// input, each time Enter is pressed.
const CONFIRM: Duration = Duration::from_millis(800);

/// Most times a lost Enter is pressed again.
pub const MAX_RETRIES: u32 = 2;

/// The longest readiness gate.
pub const READY_AT_MOST: Duration = Duration::from_secs(10);

/// A pane whose first process started less than this long ago is gated
/// by default ([`gate`]).
pub const FRESH: Duration = Duration::from_secs(10);

/// The longest default readiness gate (the caller did not ask for one).
pub const READY_WHEN_FRESH: Duration = Duration::from_secs(3);

/// How long the screen must be still for a reader to count as ready.
const READY_STILL: Duration = Duration::from_millis(300);

/// How often the gate reads the terminal's settings.
const READY_EVERY: Duration = Duration::from_millis(50);

/// Most characters of the body's last line looked for on the screen.
const TAIL_CHARS: usize = 32;

/// How typed input is submitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Submit {
    /// Wait (at most [`READY_AT_MOST`]) until the program reads before
    /// typing; `None`: only in a pane started moments ago ([`gate`]).
    pub wait_ready: Option<bool>,
    /// The delay between the body and Enter; `None`: 0 for a shell's line
    /// editor, else [`SUBMIT_DELAY`].
    pub delay: Option<Duration>,
}

/// Whether the mirror showed what delivery looked for (the body typed,
/// the input submitted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confirmation {
    /// The copy showed it (see [`Delivery`]'s fields for what counts).
    Confirmed,
    /// Nothing showed it within the time (echo off, or a program that
    /// does not show it): an honest answer, not a failure.
    Unconfirmed,
}

/// What became of typed input, read from the pane's copy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Delivery {
    /// The readiness gate: true when the program was seen reading before
    /// the keys went, false when it was not in time (typed anyway); null
    /// when the gate did not run (see `wait_ready`).
    pub ready: Option<bool>,
    /// confirmed (the body's end showed on the screen, or a paste
    /// placeholder) | unconfirmed (echo off, or a program that does not
    /// show it).
    pub typed: Confirmation,
    /// confirmed (a command mark, the cursor left the input line, the
    /// input row was cleared, or the program that read turned busy, after
    /// Enter) | unconfirmed.
    pub submitted: Confirmation,
    /// Times Enter was pressed again (at most 2), each only while the body
    /// was still on the input row 800 ms after the last; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub enter_retries: u32,
    /// The delay between the body and Enter, ms; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub submit_delay_ms: u64,
    /// What was seen, in words.
    pub evidence: Vec<String>,
}

/// What is looked for after typing: the end of the body's last line.
fn tail_of(body: &str) -> Vec<u8> {
    let last = body
        .trim_end_matches(['\n', '\r'])
        .rsplit(['\n', '\r'])
        .next()
        .unwrap_or("")
        .trim_end();
    crate::sys::input::last_chars(last, TAIL_CHARS)
        .trim_start()
        .as_bytes()
        .to_vec()
}

/// Where the input is when typing begins.
#[derive(Clone, Debug)]
pub(super) struct Before {
    /// The cursor's logical line.
    line: LineIndex,
    /// The command table's next index, and the records open then.
    next: u64,
    open: Vec<u64>,
}

impl Before {
    pub(super) fn of(pane: &PaneMirror) -> Option<Before> {
        let st = pane.view();
        let t = st.term()?;
        let c = t.commands();
        Some(Before {
            line: cursor_spot(t).line,
            next: c.last().map_or(0, |r| r.index + 1),
            open: c
                .records()
                .filter(|r| r.output_start.is_none() && r.ended.is_none())
                .map(|r| r.index)
                .collect(),
        })
    }

    /// A command began (OSC 133 `C`) after the keys.
    fn command_began(&self, t: &Term) -> bool {
        t.commands().records().any(|r| {
            r.output_start.is_some() && (r.index >= self.next || self.open.contains(&r.index))
        })
    }
}

/// The cursor's logical line's text and index.
fn cursor_line(t: &Term) -> (LineIndex, Vec<u8>) {
    let spot = cursor_spot(t);
    let text = t
        .screen_logical_lines()
        .find(|l| l.index == spot.line)
        .map(|l| l.text.into_owned())
        .unwrap_or_default();
    (spot.line, text)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || memchr::memmem::find(hay, needle).is_some()
}

/// Whether the body shows: its tail on the lines from `before.line` to
/// the cursor's, or a paste placeholder on the screen.
fn typed_shows(t: &Term, before: &Before, tail: &[u8]) -> Option<String> {
    let (line, _) = cursor_line(t);
    for l in t.screen_logical_lines() {
        if l.index >= before.line.min(line) && l.index <= line && contains(&l.text, tail) {
            return Some("the typed text's end shows on the input line".into());
        }
    }
    let mut placeholder = false;
    t.visible_rows(|_, row| placeholder |= contains(row, b"[Pasted text"));
    placeholder.then(|| "a paste placeholder ([Pasted text …]) shows".into())
}

/// Evidence that Enter submitted the input, looked at in `t`.
fn submitted(t: &Term, before: &Before, tail: &[u8], tail_was_on_row: bool) -> Option<String> {
    if before.command_began(t) {
        return Some("a command began after Enter (OSC 133 C; marks are advisory)".into());
    }
    let (line, text) = cursor_line(t);
    if line > before.line {
        return Some("the cursor left the input line (a new line began)".into());
    }
    if tail_was_on_row && !tail.is_empty() && !contains(&text, tail) {
        return Some("the input line no longer shows the typed text".into());
    }
    None
}

/// Whether the body is still on the input line (for a retry).
fn still_on_input_row(t: &Term, before: &Before, tail: &[u8]) -> bool {
    let (line, text) = cursor_line(t);
    line == before.line && !tail.is_empty() && contains(&text, tail)
}

/// The submit delay for a program reading `input`: 0 for a shell's line
/// editor, [`SUBMIT_DELAY`] otherwise.
pub(super) fn delay_for(submit: &Submit, input: Input) -> Duration {
    submit.delay.unwrap_or(if input == Input::LineEditor {
        Duration::ZERO
    } else {
        SUBMIT_DELAY
    })
}

/// Whether the readiness gate runs and for how long at most: as
/// `wait_ready` says, else ([`None`]) for [`READY_WHEN_FRESH`] when the
/// pane's first process started under [`FRESH`] ago (`pane_age`) and is
/// still the terminal's foreground (`shell_in_foreground`); the reason
/// goes to `evidence`. A pane whose facts cannot be read is not gated.
pub(super) fn gate(
    wait_ready: Option<bool>,
    pane_age: Option<Duration>,
    shell_in_foreground: Option<bool>,
    evidence: &mut Vec<String>,
) -> Option<Duration> {
    match wait_ready {
        Some(true) => Some(READY_AT_MOST),
        Some(false) => None,
        None => {
            let age = pane_age.filter(|a| *a < FRESH)?;
            if shell_in_foreground != Some(true) {
                return None;
            }
            evidence.push(format!(
                "the pane started {} ms ago and runs its first program: waited for it to read \
                 (wait_ready: false skips this)",
                age.as_millis()
            ));
            Some(READY_WHEN_FRESH)
        }
    }
}

/// The readiness gate: waits, at most `at_most`, until the program whose
/// terminal `process` names reads (see the module docs), looking at its
/// copy `copy`; whether it did, with the evidence. No tmux round trip:
/// `process` comes from the state read before typing.
pub(super) async fn wait_ready(
    process: Option<&ProcessRef>,
    copy: &PaneMirror,
    at_most: Duration,
    evidence: &mut Vec<String>,
) -> bool {
    let mut ready = Ready {
        process,
        copy,
        still: false,
    };
    match wait::watch(copy, at_most, Some(READY_EVERY), &mut ready).await {
        Some(e) => {
            evidence.push(e);
            true
        }
        None => {
            evidence.push(format!(
                "not ready within {} ms: typed anyway",
                at_most.as_millis()
            ));
            false
        }
    }
}

/// The readiness gate's condition: a marked prompt at a look; or, read
/// outside the copy's lock ([`Condition::check`]), the terminal's
/// settings show a reader while the screen has been still for
/// [`READY_STILL`]. Found: the evidence.
struct Ready<'a> {
    process: Option<&'a ProcessRef>,
    copy: &'a PaneMirror,
    /// The screen was still at the last look.
    still: bool,
}

impl Condition for Ready<'_> {
    type Found = String;

    fn look(&mut self, seen: &Seen<'_>) -> Option<String> {
        let prompt = seen.term.is_some_and(|t| {
            t.commands()
                .last()
                .is_some_and(|r| r.output_start.is_none() && r.ended.is_none())
        });
        let changed = seen
            .term
            .map(Term::screen_state)
            .and_then(|s| s.last_change_at.or(s.last_output_at));
        self.still = changed
            .is_none_or(|us| seen.now_us.saturating_sub(us) >= READY_STILL.as_micros() as u64);
        prompt.then(|| "ready: a marked prompt (OSC 133 A/B) is shown".into())
    }

    fn check(&mut self) -> Option<String> {
        let (input, _) = self.process?.read(self.copy);
        let reads = matches!(
            input,
            Input::LineEditor | Input::LineRead | Input::KeyRead | Input::Raw | Input::Password
        );
        (reads && self.still).then(|| {
            format!(
                "ready: the program reads ({}) and the screen has been still for 300 ms",
                input.as_str()
            )
        })
    }
}

/// How the body and Enter are sent: what [`confirm`] needs to press
/// Enter (again).
pub(super) trait Presser {
    /// Presses Enter in the pane.
    async fn enter(&self) -> Result<(), Error>;
}

/// After the body was typed (and Enter with it when `enter_sent`):
/// confirms typing, presses Enter after `delay` when it was not sent
/// with the body, confirms submission, and presses a lost Enter again.
///
/// # Errors
///
/// Errors pressing Enter.
#[allow(clippy::too_many_arguments)]
pub(super) async fn confirm(
    copy: &PaneMirror,
    before: &Before,
    body: &str,
    delay: Duration,
    enter_sent: bool,
    presser: &impl Presser,
    reader: Option<(&ProcessRef, Input)>,
    mut d: Delivery,
) -> Result<Delivery, Error> {
    let tail = tail_of(body);
    d.submit_delay_ms = delay.as_millis() as u64;
    let mut tail_was_on_row = false;
    if !enter_sent {
        // The body alone: it shows (or not) before Enter goes.
        let started = Instant::now();
        let within = delay.max(Duration::from_millis(1));
        let mut shows = OnTerm(|t: &Term| typed_shows(t, before, &tail));
        let seen = wait::watch(copy, within, None, &mut shows).await;
        if let Some(e) = seen {
            d.typed = Confirmation::Confirmed;
            d.evidence.push(e);
        }
        tail_was_on_row = copy
            .view()
            .term()
            .is_some_and(|t| still_on_input_row(t, before, &tail));
        tokio::time::sleep_until(started + delay).await;
        presser.enter().await?;
    }
    loop {
        let mut taken = OnTerm(|t: &Term| {
            if d.typed != Confirmation::Confirmed
                && let Some(e) = typed_shows(t, before, &tail)
            {
                d.typed = Confirmation::Confirmed;
                d.evidence.push(e);
                tail_was_on_row |= still_on_input_row(t, before, &tail);
            }
            submitted(t, before, &tail, tail_was_on_row)
        });
        let found = wait::watch(copy, CONFIRM, None, &mut taken).await;
        if let Some(e) = found {
            d.submitted = Confirmation::Confirmed;
            if d.typed != Confirmation::Confirmed {
                // Submitted input was typed, whether or not it showed.
                d.evidence
                    .push("typed: not seen on the screen (echo off?)".into());
            }
            d.evidence.push(e);
            return Ok(d);
        }
        // A program that read input before Enter and is busy now took the
        // line (the shell started the command): never press Enter again
        // into what runs.
        if let Some((p, was)) = reader
            && matches!(
                was,
                Input::LineEditor | Input::LineRead | Input::KeyRead | Input::Raw
            )
        {
            let (now, facts) = p.read(copy);
            if now == Input::Busy {
                d.submitted = Confirmation::Confirmed;
                d.evidence.push(format!(
                    "the program turned busy after Enter (input {} before, busy now{})",
                    was.as_str(),
                    facts
                        .iter()
                        .find(|e| e.starts_with("foreground"))
                        .map_or_else(String::new, |e| format!(": {e}"))
                ));
                return Ok(d);
            }
        }
        let on_row = copy
            .view()
            .term()
            .is_some_and(|t| still_on_input_row(t, before, &tail));
        if !on_row || d.enter_retries >= MAX_RETRIES {
            d.evidence.push(if on_row {
                "the typed text is still on the input line after 2 more Enters".into()
            } else {
                "no sign of submission within 800 ms (the text is not on the input line: \
                 not pressed again)"
                    .into()
            });
            return Ok(d);
        }
        d.enter_retries += 1;
        d.evidence.push(format!(
            "Enter pressed again ({}): the typed text was still on the input line after 800 ms",
            d.enter_retries
        ));
        tail_was_on_row = true;
        presser.enter().await?;
    }
}

impl Delivery {
    /// Nothing confirmed yet.
    pub(super) fn new(ready: Option<bool>, evidence: Vec<String>) -> Delivery {
        Delivery {
            ready,
            typed: Confirmation::Unconfirmed,
            submitted: Confirmation::Unconfirmed,
            enter_retries: 0,
            submit_delay_ms: 0,
            evidence,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_runs_by_default_only_for_a_fresh_pane() {
        let mut ev = Vec::new();
        let s = Duration::from_secs;
        assert_eq!(gate(Some(true), None, None, &mut ev), Some(READY_AT_MOST));
        assert_eq!(gate(Some(false), Some(s(1)), Some(true), &mut ev), None);
        assert!(ev.is_empty());
        assert_eq!(
            gate(None, Some(s(1)), Some(true), &mut ev),
            Some(READY_WHEN_FRESH)
        );
        assert_eq!(ev.len(), 1);
        // Old, launched something, or unknown: not gated.
        assert_eq!(gate(None, Some(s(11)), Some(true), &mut ev), None);
        assert_eq!(gate(None, Some(s(1)), Some(false), &mut ev), None);
        assert_eq!(gate(None, Some(s(1)), None, &mut ev), None);
        assert_eq!(gate(None, None, Some(true), &mut ev), None);
        assert_eq!(ev.len(), 1);
    }

    #[test]
    fn the_tail_is_the_end_of_the_last_line() {
        assert_eq!(tail_of("make test\n"), b"make test");
        assert_eq!(tail_of("one\ntwo  \n\n"), b"two");
        let long = "x".repeat(40) + "END";
        assert_eq!(tail_of(&long).len(), 32);
        assert!(tail_of(&long).ends_with(b"END"));
        assert_eq!(tail_of("\n"), b"");
        // Multi-byte characters are never cut.
        assert_eq!(tail_of(&"é".repeat(40)), "é".repeat(32).as_bytes());
    }
}
