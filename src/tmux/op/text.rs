//! `wait_for_text`: wait until new output of a pane matches.
//!
//! The wait is a [`Condition`] over the pane's copy ([`Wait`]) run by the
//! wait engine ([`crate::tmux::wait`]), which follows the pane, wakes on
//! its `%output` and ends the wait when the pane's program reads input,
//! the pane ends or the time runs out. The request's patterns are
//! compiled when it is built; the wait ceiling of the MCP tools is the
//! caller's business (the CLI waits as long as it is told).

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use super::Server;
use crate::control::PaneId;
use crate::mirror::echo::{Echoes, Line, has_unmasked_text, merge_ranges};
use crate::mirror::lines::{Keep, cursor_spot, lines_since};
use crate::mirror::pane::TypedFrom;
use crate::mirror::{Progress, Status};
use crate::search::Pattern;
use crate::term::{LineIndex, Term};
use crate::tmux::keys::TypedPanes;
use crate::tmux::pane_text::{
    Entry, Outcome, PaneEnd, Typing, WaitForTextResult, cap_lines, cursor_among, first_match,
    lossy, matches_outside,
};
use crate::tmux::wait::{self, Condition, End, Ended, Limits, Seen, exit_of, follow};
use crate::tmux::{Error, Selector};

/// What the wait's progress notifications say it does.
const WAITING: &str = "waiting for output";

/// `wait_for_text`: wait until new output of a pane matches (see
/// [`wait_for_text`]).
#[derive(Clone)]
pub struct WaitForTextRequest {
    /// The pane (a window or session: its active pane).
    pub pane: Selector,
    /// Patterns to wait for; `None`: any new output.
    pub patterns: Option<Vec<Arc<Pattern>>>,
    /// Patterns that end the wait early (checked before `patterns`).
    pub stop: Vec<Arc<Pattern>>,
    /// How long to wait.
    pub timeout: Duration,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<Progress>,
    /// Redaction is on: a match that overlaps a secret of the line (read
    /// with the lines around it, so a key's body is one) does not count.
    pub redact: bool,
}

crate::tmux::op::waited::pane_wait! {
    WaitForTextRequest => WaitForTextResult by wait_for_text;

    fn redacting(self, on: bool) -> WaitForTextRequest {
        WaitForTextRequest { redact: on, ..self }
    }
}

/// Waits until new output of `pane` matches (see the module docs and
/// [`WaitForTextResult`]).
///
/// Lines count as new when they come after the line the cursor was on
/// when the wait began. Of that line itself, only what was written after
/// the wait began counts, appended or written over what it held (from
/// the first byte that differs: a spinner's frame replaced by the final
/// status after `\r`, or `\r` + `CSI K`, is new text): a line holding a
/// prompt is where a command typed just before echoes, and the echo is
/// not output (public case C13). Every echo
/// of text tmuxwire typed into the pane (typeahead the tty echoed
/// while the program was busy, a line editor's later redraws, at any
/// column, over several rows, or still being drawn) is masked out of
/// the lines looked at ([`crate::mirror::echo`]), and patterns match
/// only in what is left, each part on its own. Each change of the copy
/// wakes the wait; only the lines that changed (and the line before
/// the cursor's, which an echo may carry over into it) are matched
/// again.
///
/// The wait also ends when the pane's program exits and tmux keeps the
/// pane (`exited`, with `pane_exit_status`) or the pane is gone
/// (`pane_gone`), within about [`LIVENESS_EVERY`](crate::tmux::wait::LIVENESS_EVERY) (at once when tmux
/// notifies it), after the pane's last output was matched.
///
/// # Errors
///
/// A missing pane; the mirror being off;
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when the
/// server exits during the wait; connection errors.
pub(super) async fn wait_for_text(
    server: &Server,
    pane: PaneId,
    req: &WaitForTextRequest,
) -> Result<WaitForTextResult, Error> {
    let limits = Limits::new(req.timeout, req.progress.as_ref(), WAITING);
    let started = limits.started;
    let f = follow(server, pane, None, Some(req.timeout / 2)).await?;
    let mut typing = Typing::new(pane);
    typing.refresh(&server.typed);

    // The state at entry.
    let typed = f.pane.typed_from();
    let (entry_line, entry, matched_at_entry) = {
        let st = f.pane.view();
        let Some(t) = st.term() else {
            return Err(Error::not_found(format!("can't find pane: {pane}")));
        };
        entry_state(
            t,
            st.epoch(),
            &typing.echoes,
            req.patterns.as_deref(),
            typed,
            req.redact,
        )
    };
    // Subscribed after the entry state was read: a change in between
    // is seen by the first look.
    let mut rx = f.pane.subscribe();
    let mut w = Wait::new(req, entry_line, entry, &server.typed, typing);
    let end = wait::run(server, &f, &mut rx, &mut w, &limits).await?;
    let ended = match end {
        End::Pane(e, _) => Some(e),
        End::Reading(i, evidence) => {
            w.outcome = Some(Outcome::of_reading(i));
            w.evidence = evidence;
            None
        }
        End::Met(_) | End::Timeout => None,
    };
    let dead = ended.is_some() || f.pane.view().status() == Status::Dead;
    let mut r = w.finish(pane, matched_at_entry, dead, ended);
    r.elapsed_seconds = started.elapsed().as_secs_f64();
    Ok(r)
}

/// Where a wait begins on `t` (the copy at `epoch`): the entry line, how
/// it is treated, and whether one of `patterns` already matches the
/// visible screen (outside its secrets with `redact`). `typed`: where
/// tmuxwire last began typing into the pane.
fn entry_state(
    t: &Term,
    epoch: u64,
    echoes: &Echoes,
    patterns: Option<&[Arc<Pattern>]>,
    typed: Option<TypedFrom>,
    redact: bool,
) -> (LineIndex, Entry, bool) {
    let spot = cursor_spot(t);
    let since = lines_since(t, spot.line, 0, Keep::Newest);
    let mut screen = masked_screen(t, echoes, (!t.alternate_on()).then_some(epoch));
    if redact {
        mask_secrets(&mut screen);
    }
    let at_entry = patterns.is_some_and(|ps| {
        screen
            .iter()
            .any(|(l, m)| ps.iter().any(|p| matches_outside(p, l, m)))
    });
    // Input tmuxwire typed in the last seconds: what the pane printed
    // from that line on answers it, even if it came before this wait (a
    // fast command typed by send_keys just before).
    match typed {
        Some(from) if from.epoch == epoch && from.line < spot.line => {
            let entry = if from.had_text {
                Entry::Echo
            } else {
                Entry::Whole
            };
            (from.line, entry, at_entry)
        }
        _ if since.partial.is_empty() => (spot.line, Entry::Whole, at_entry),
        _ => (spot.line, Entry::After(since.partial), at_entry),
    }
}

/// Lines to match, each with its masked ranges.
type Candidates = Vec<(Vec<u8>, Vec<Range<usize>>)>;

/// Adds the secrets of `lines` (consecutive lines: a key's body spans
/// them) to their masks, so no match overlapping one counts.
fn mask_secrets(lines: &mut Candidates) {
    let found = {
        let texts: Vec<&[u8]> = lines.iter().map(|(l, _)| l.as_slice()).collect();
        crate::redact::find_in_lines(&texts)
    };
    for ((_, m), spans) in lines.iter_mut().zip(found) {
        if !spans.is_empty() {
            m.extend(spans.into_iter().map(|s| s.range));
            merge_ranges(m);
        }
    }
}

/// `wait_for_text`'s condition: a wait in progress, what it has looked
/// at and found. Met when a stop pattern, a pattern or (without
/// patterns) any new output is found; the echoes of what tmuxwire typed
/// (`typed`, read again at each look) are masked out first.
pub(crate) struct Wait<'r> {
    req: &'r WaitForTextRequest,
    typed: &'r TypedPanes,
    typing: Typing,
    entry_line: LineIndex,
    entry: Entry,
    /// Lines before `checked` (other than the entry line and the
    /// cursor's) have been looked at already; the last of them is looked
    /// at again while the cursor's line follows it, as an echo carried
    /// over a line break is told by the line after it.
    checked: LineIndex,
    entry_done: bool,
    /// The last complete line looked at, and whether it was output.
    last_seen: Option<(LineIndex, bool)>,
    tail: VecDeque<String>,
    partial_now: String,
    matched: VecDeque<String>,
    saw_new_output: bool,
    outcome: Option<Outcome>,
    matched_index: Option<usize>,
    alternate: bool,
    /// Why the pane's program is found reading (see [`Outcome::of_reading`]).
    evidence: Vec<String>,
}

impl<'r> Wait<'r> {
    pub(crate) fn new(
        req: &'r WaitForTextRequest,
        entry_line: LineIndex,
        entry: Entry,
        typed: &'r TypedPanes,
        typing: Typing,
    ) -> Wait<'r> {
        Wait {
            req,
            typed,
            typing,
            entry_line,
            entry,
            checked: entry_line + 1,
            entry_done: false,
            last_seen: None,
            tail: VecDeque::new(),
            partial_now: String::new(),
            matched: VecDeque::new(),
            saw_new_output: false,
            outcome: None,
            matched_index: None,
            alternate: false,
            evidence: Vec::new(),
        }
    }

    /// Looks at the copy `t` (at `epoch`) once: the lines new since the
    /// last look, matched outside the echoes of typed input.
    fn look_term(&mut self, t: &Term, epoch: u64, echoes: &Echoes) {
        self.alternate = t.alternate_on();
        let candidates = if self.alternate {
            self.partial_now.clear();
            screen_candidates(t, echoes)
        } else {
            self.new_lines(t, epoch, echoes)
        };
        self.match_candidates(&candidates);
        if self.alternate {
            self.tail = candidates.iter().map(|(c, _)| lossy(c)).collect();
            while self.tail.back().is_some_and(String::is_empty) {
                self.tail.pop_back();
            }
            cap_lines(&mut self.tail);
        }
    }

    /// The lines of the main screen not looked at yet (and the cursor's),
    /// noted in `tail` and `partial_now`: the output among them, masked.
    fn new_lines(&mut self, t: &Term, epoch: u64, echoes: &Echoes) -> Candidates {
        let spot = cursor_spot(t);
        let mut candidates = Candidates::new();
        let from = if self.entry_done {
            LineIndex(self.checked.0.saturating_sub(1)).max(self.entry_line)
        } else {
            self.entry_line
        };
        let since = lines_since(t, from, usize::MAX, Keep::Newest);
        let mut all: Vec<(LineIndex, Vec<u8>, bool)> = since
            .lines
            .into_iter()
            .enumerate()
            .map(|(k, l)| (since.first + k as u64, l, true))
            .collect();
        all.push((since.cursor_line, since.partial, false));
        let masks = {
            let window: Vec<Line<'_>> = all
                .iter()
                .map(|(i, text, _)| Line { index: *i, text })
                .collect();
            let cursor = cursor_among(t, &window, spot, echoes);
            echoes.mask(&window, cursor, Some(epoch))
        };
        let mut seen = None;
        for ((i, text, complete), mut mask) in all.into_iter().zip(masks) {
            // The entry line is new output the first time it is
            // complete; other complete lines, the first time they are
            // past `checked`.
            let mut again = complete && i < self.checked;
            if i == self.entry_line {
                again = complete && self.entry_done;
                self.entry_done |= complete;
                match &self.entry {
                    // The prompt line where tmuxwire typed: its echo, not
                    // output.
                    Entry::Echo => continue,
                    // A line that held text when the wait began (a
                    // prompt, or output still being written): only what
                    // was written since, appended or over it (a spinner's
                    // frame replaced by the final status, after `\r` or
                    // `\r` + `CSI K`), from the first byte that differs.
                    Entry::After(before) => {
                        let kept = common_prefix(before, &text);
                        if kept == text.len() {
                            continue;
                        }
                        mask.insert(0, 0..kept);
                        merge_ranges(&mut mask);
                    }
                    Entry::Whole => {}
                }
            }
            let output = has_unmasked_text(&text, &mask);
            if complete {
                seen = Some((i, output));
                // Looked at before: new output only if it was all echo
                // then (its next line has shown it is not).
                let fresh = !again || self.last_seen.is_some_and(|(l, was)| l == i && !was);
                if output && fresh {
                    self.saw_new_output = true;
                    self.tail.push_back(lossy(&text));
                }
            } else if output {
                self.saw_new_output = true;
                self.partial_now = lossy(&text);
            } else {
                self.partial_now.clear();
            }
            if output {
                candidates.push((text, mask));
            }
        }
        if seen.is_some() {
            self.last_seen = seen;
        }
        self.checked = self.checked.max(since.cursor_line);
        cap_lines(&mut self.tail);
        candidates
    }

    /// Matches `candidates`: stop patterns first, then the patterns (or
    /// any output), setting the outcome when one is reached.
    fn match_candidates(&mut self, candidates: &Candidates) {
        let req = self.req;
        let masked;
        let candidates = if req.redact {
            masked = {
                let mut c = candidates.clone();
                mask_secrets(&mut c);
                c
            };
            &masked
        } else {
            candidates
        };
        if let Some((i, line)) = first_match(&req.stop, candidates) {
            self.outcome = Some(Outcome::Stopped);
            self.matched_index = Some(i);
            self.matched.push_back(lossy(line));
        } else if let Some(ps) = &req.patterns {
            for (c, m) in candidates {
                if let Some(i) = ps.iter().position(|p| matches_outside(p, c, m)) {
                    self.matched_index.get_or_insert(i);
                    self.matched.push_back(lossy(c));
                }
            }
            if !self.matched.is_empty() {
                self.outcome = Some(Outcome::Matched);
            }
        } else if self.saw_new_output && !self.alternate {
            self.outcome = Some(Outcome::AnyOutput);
        }
    }

    /// The answer once the wait ends (`elapsed_seconds` left at 0 for the
    /// caller).
    fn finish(
        mut self,
        pane: PaneId,
        matched_at_entry: bool,
        dead: bool,
        ended: Option<Ended>,
    ) -> WaitForTextResult {
        if !self.partial_now.is_empty() {
            self.tail.push_back(std::mem::take(&mut self.partial_now));
            cap_lines(&mut self.tail);
        }
        cap_lines(&mut self.matched);
        let exit = exit_of(ended.as_ref());
        let outcome = self.outcome.unwrap_or(match ended {
            Some(Ended::Exited(_)) => Outcome::Exited,
            Some(Ended::Gone) => Outcome::PaneGone,
            None if self.alternate => Outcome::AlternateScreen,
            None => Outcome::Timeout,
        });
        WaitForTextResult {
            found: matches!(outcome, Outcome::Matched | Outcome::AnyOutput),
            outcome,
            matched_index: self.matched_index,
            matched_lines: self.matched.into(),
            tail: self.tail.into(),
            saw_new_output: self.saw_new_output,
            matched_at_entry,
            alternate_screen: self.alternate,
            pane_id: pane.to_string(),
            elapsed_seconds: 0.0,
            effective_timeout: self.req.timeout.as_secs_f64(),
            end: PaneEnd {
                pane_dead: dead,
                exit,
                evidence: self.evidence,
            },
        }
    }
}

impl Condition for Wait<'_> {
    type Found = Outcome;

    /// Looks at the copy once, when it is live or dead (a copy being
    /// seeded again is looked at once it is), with what was typed into
    /// the pane up to now masked.
    fn look(&mut self, seen: &Seen<'_>) -> Option<Outcome> {
        self.typing.refresh(self.typed);
        if let Some(t) = seen.term
            && matches!(seen.status, Status::Live | Status::Dead)
        {
            let echoes = std::mem::take(&mut self.typing.echoes);
            self.look_term(t, seen.epoch, &echoes);
            self.typing.echoes = echoes;
        }
        self.outcome
    }
}

/// How many leading bytes `now` shares with `before`, backed off to the
/// start of a UTF-8 character of `now` (a character written over another
/// that shares its first bytes is new as a whole).
fn common_prefix(before: &[u8], now: &[u8]) -> usize {
    let mut k = before.iter().zip(now).take_while(|(a, b)| a == b).count();
    if k < now.len() {
        while k > 0 && now[k] & 0xc0 == 0x80 {
            k -= 1;
        }
    }
    k
}

/// The alternate screen's lines, masked: redrawn, not appended to, so
/// looked at afresh each time.
fn screen_candidates(t: &Term, echoes: &Echoes) -> Candidates {
    masked_screen(t, echoes, None)
}

/// The visible screen's logical lines of `t`, each with the echoes of
/// typed input masked (`epoch`: the copy's, where the echoes' places on
/// the main screen hold; `None` on the alternate screen).
fn masked_screen(t: &Term, echoes: &Echoes, epoch: Option<u64>) -> Candidates {
    let spot = cursor_spot(t);
    let screen: Vec<_> = t.screen_logical_lines().collect();
    let window: Vec<Line<'_>> = screen
        .iter()
        .map(|l| Line {
            index: l.index,
            text: &l.text,
        })
        .collect();
    let masks = echoes.mask(&window, cursor_among(t, &window, spot, echoes), epoch);
    window
        .iter()
        .zip(masks)
        .map(|(l, m)| (l.text.to_vec(), m))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::PatternOptions;
    use crate::term::{Options, Rules};

    #[test]
    fn common_prefix_stops_at_characters() {
        assert_eq!(common_prefix(b"working |", b"working /"), 8);
        assert_eq!(common_prefix(b"working |", b"DONE"), 0);
        assert_eq!(common_prefix(b"$ ", b"$ make"), 2);
        assert_eq!(common_prefix(b"$ make", b"$ ma"), 4);
        // Braille spinner frames share their first two bytes.
        let (a, b) = ("\u{280b} x".as_bytes(), "\u{2819} x".as_bytes());
        assert_eq!(common_prefix(a, b), 0);
    }

    /// A 20×4 terminal that has printed `bytes`.
    fn term(bytes: &[u8]) -> Term {
        let mut t = Term::new(20, 4, Rules::V36, Options::default());
        t.advance(bytes);
        t
    }

    fn request(patterns: &[&str], stop: &[&str]) -> WaitForTextRequest {
        let p = |s: &&str| Arc::new(Pattern::new(s, PatternOptions::default()).expect("pattern"));
        WaitForTextRequest {
            pane: Selector::default(),
            patterns: (!patterns.is_empty()).then(|| patterns.iter().map(p).collect()),
            stop: stop.iter().map(p).collect(),
            timeout: Duration::from_secs(1),
            progress: None,
            redact: false,
        }
    }

    /// Feeds `steps` to a copy that showed `entry` when the wait began,
    /// looking after each; the outcome of each look.
    fn looks(req: &WaitForTextRequest, entry: &[u8], steps: &[&[u8]]) -> Vec<Option<Outcome>> {
        let typed = TypedPanes::default();
        let typing = Typing::new(PaneId(1));
        let mut t = term(entry);
        let (line, e, _) = entry_state(&t, 0, &typing.echoes, req.patterns.as_deref(), None, false);
        let mut w = Wait::new(req, line, e, &typed, typing);
        steps
            .iter()
            .map(|b| {
                t.advance(b);
                w.look(&Seen::of_term(&t, 0))
            })
            .collect()
    }

    #[test]
    fn a_pattern_is_met_by_new_output_only() {
        let req = request(&["done"], &[]);
        // "done" on the screen before the wait is not new output.
        let got = looks(
            &req,
            b"was done\r\n$ ",
            &[b"make", b"\r\nbuilding\r\n", b"all done\r\n"],
        );
        assert_eq!(got, [None, None, Some(Outcome::Matched)]);
    }

    #[test]
    fn a_stop_pattern_wins_and_any_output_needs_no_pattern() {
        let req = request(&["ok"], &["error"]);
        let got = looks(&req, b"$ ", &[b"\r\nerror: ok\r\n"]);
        assert_eq!(got, [Some(Outcome::Stopped)]);
        let any = request(&[], &[]);
        assert_eq!(looks(&any, b"$ ", &[b"x\r\n"]), [Some(Outcome::AnyOutput)]);
    }

    #[test]
    fn a_line_written_over_counts_from_the_first_new_byte() {
        // A spinner line rewritten after \r: the frame that was there is
        // not new, the final status is.
        let req = request(&["working"], &[]);
        let got = looks(&req, b"working |", &[b"\rworking /", b"\rworking done\r\n"]);
        assert_eq!(got, [None, None]);
        let req = request(&["DONE"], &[]);
        assert_eq!(
            looks(&req, b"working |", &[b"\rDONE\r\n"]),
            [Some(Outcome::Matched)]
        );
    }

    #[test]
    fn the_answer_ends_on_the_time_or_the_pane() {
        let req = request(&["never"], &[]);
        let typed = TypedPanes::default();
        let t = term(b"$ ");
        for (ended, outcome) in [
            (None, Outcome::Timeout),
            (Some(Ended::Gone), Outcome::PaneGone),
        ] {
            let typing = Typing::new(PaneId(1));
            let mut w = Wait::new(&req, LineIndex(0), Entry::Whole, &typed, typing);
            assert_eq!(w.look(&Seen::of_term(&t, 0)), None);
            let gone = ended.is_some();
            let r = w.finish(PaneId(1), false, gone, ended);
            assert_eq!(
                (r.outcome, r.found, r.end.pane_dead),
                (outcome, false, gone)
            );
            assert_eq!(r.end.exit.unknown.is_some(), gone);
        }
    }
}
