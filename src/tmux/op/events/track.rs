//! The follower's record of one pane ([`Track`]) and what one look at its
//! copy found ([`Look`]): the state compared from change to change to
//! write the pane's events (see the parent module's docs).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use super::{
    DEATH_ASKS, DEATH_FIRST, IDLE_STILL, INPUT_EVERY_AT_MOST, INPUT_QUIET, INPUT_WINDOW,
    LINES_PER_CHANGE, PROC_FIRST, reading_words,
};
use crate::control::{PaneId, SessionId, WindowId};
use crate::events::text::{cleaned, duration, quoted};
use crate::events::{Event, Facts, Kind};
use crate::mirror::{PaneMirror, Status};
use crate::search::Pattern;
use crate::sys::input::Input;
use crate::term::{CommandEnd, LineIndex};
use crate::tmux::wait::{INPUT_LASTS, ProcessRef};

/// The follower's record of one pane.
#[derive(Debug)]
pub(super) struct Track {
    pub(super) pane: PaneId,
    pub(super) session: Option<SessionId>,
    pub(super) window: Option<WindowId>,
    pub(super) epoch: u64,
    /// Commands numbered below this were there when following began (or a
    /// seed replaced the copy): no events for them.
    pub(super) floor: u64,
    /// `(started told, finished told)` of newer records.
    pub(super) told: HashMap<u64, (bool, bool)>,
    pub(super) title: Option<String>,
    /// The copy's bell count last seen.
    pub(super) bells: u64,
    pub(super) gone: bool,
    pub(super) exited: bool,
    /// tmux keeps the pane with its program dead, as last looked at.
    pub(super) kept: bool,
    /// When tmux is next asked whether the pane's program died
    /// ([`DEATH_FIRST`]), and how many times it was asked.
    pub(super) death_due: Option<Instant>,
    pub(super) death_asked: u32,
    /// The end of the pane's first process is watched (or could not be).
    pub(super) end_watched: bool,
    /// When the pane's process is next looked for from its tty (on a
    /// server of this machine, until found, within [`INPUT_WINDOW`] of
    /// following it: tmux forks it before it makes the pty its terminal).
    pub(super) proc_due: Option<Instant>,
    pub(super) proc_backoff: Duration,
    pub(super) last_output: Option<u64>,
    /// When following the pane began (its input state is looked at
    /// within [`INPUT_WINDOW`] of this when its copy knows no output: a
    /// prompt drawn before the seed).
    pub(super) taken_up: Instant,
    /// The screen's hash when `idle` was last told (or following began).
    pub(super) idle_hash: Option<u64>,
    pub(super) idle_due: Option<Instant>,
    pub(super) input_due: Option<Instant>,
    pub(super) input_backoff: Duration,
    pub(super) input_seen: Option<(Input, Instant)>,
    pub(super) input_told: Option<Input>,
    /// The next line to read for patterns, in `epoch`.
    pub(super) next_line: Option<LineIndex>,
}

/// What a look at a copy found, taken under its read lock.
pub(super) struct Look {
    pub(super) epoch: u64,
    pub(super) status: Status,
    pub(super) exit_status: Option<i32>,
    pub(super) kept: bool,
    pub(super) session: Option<SessionId>,
    pub(super) window: Option<WindowId>,
    pub(super) title: Option<String>,
    pub(super) bells: u64,
    pub(super) last_output: Option<u64>,
    /// The newest records (newest first): index, started, end, status,
    /// command, started and ended times.
    pub(super) records: Vec<Record>,
    pub(super) next_record: u64,
}

pub(super) struct Record {
    pub(super) index: u64,
    pub(super) started_at: Option<u64>,
    pub(super) ended: Option<CommandEnd>,
    pub(super) ended_at: Option<u64>,
    pub(super) exit_status: Option<u8>,
    pub(super) command: Option<String>,
}

/// Records looked at per change (the newest).
const RECORDS_LOOKED: usize = 8;

pub(super) fn look(p: &PaneMirror) -> Option<Look> {
    let st = p.view();
    let t = st.term()?;
    let cmds = t.commands();
    let records = cmds
        .records()
        .rev()
        .take(RECORDS_LOOKED)
        .map(|r| Record {
            index: r.index,
            started_at: r.started_at,
            ended: r.ended,
            ended_at: r.ended_at,
            exit_status: r.exit_status,
            command: r.command.clone(),
        })
        .collect();
    Some(Look {
        epoch: st.epoch(),
        status: st.status(),
        exit_status: st.exit_status(),
        kept: st.is_kept(),
        session: st.owner().or_else(|| st.meta().session()),
        window: st.meta().window_id.parse().ok(),
        title: t.title().map(str::to_string),
        bells: t.bells(),
        last_output: t.screen_state().last_output_at,
        next_record: cmds.last().map_or(0, |r| r.index + 1),
        records,
    })
}

impl Look {
    /// The first record whose events are still to come: the oldest that
    /// has not ended (a command running, or the prompt where the next one
    /// will run), else the next record's number.
    pub(super) fn floor(&self) -> u64 {
        self.records
            .iter()
            .filter(|r| r.ended.is_none())
            .map(|r| r.index)
            .min()
            .unwrap_or(self.next_record)
    }

    /// What was already true of the records when following began: a
    /// command running then is not told as started again.
    pub(super) fn told(&self) -> HashMap<u64, (bool, bool)> {
        self.records
            .iter()
            .filter(|r| r.started_at.is_some() && r.ended.is_none())
            .map(|r| (r.index, (true, false)))
            .collect()
    }
}

impl Track {
    pub(super) fn new(pane: PaneId, l: &Look) -> Track {
        Track {
            pane,
            session: l.session,
            window: l.window,
            epoch: l.epoch,
            floor: l.floor(),
            told: l.told(),
            title: l.title.clone(),
            bells: l.bells,
            gone: l.status == Status::Dead && !l.kept,
            exited: l.exit_status.is_some(),
            kept: l.kept,
            death_due: None,
            death_asked: 0,
            end_watched: false,
            proc_due: None,
            proc_backoff: PROC_FIRST,
            last_output: l.last_output,
            taken_up: Instant::now(),
            idle_hash: None,
            idle_due: None,
            input_due: None,
            input_backoff: INPUT_QUIET,
            input_seen: None,
            input_told: None,
            next_line: None,
        }
    }

    pub(super) fn event(&self, kind: Kind, at_us: u64, what: String) -> Event {
        let mut e = Event::new(
            kind,
            Some(self.pane),
            at_us,
            format!("{} {kind}{what}", self.pane),
        );
        e.session = self.session;
        e.window = self.window;
        e
    }

    /// The events `l` shows since the last look.
    pub(super) fn diff(&mut self, l: &Look, out: &mut Vec<Event>) {
        let now_us = crate::mirror::clock_us();
        self.session = l.session.or(self.session);
        self.window = l.window.or(self.window);
        if l.epoch != self.epoch {
            // A seed replaced the copy: its records are not new commands.
            self.epoch = l.epoch;
            self.floor = l.floor();
            self.told = l.told();
            self.next_line = None;
        }
        for r in l.records.iter().rev().filter(|r| r.index >= self.floor) {
            let mut told = self.told.get(&r.index).copied().unwrap_or_default();
            if r.started_at.is_some() && !told.0 {
                told.0 = true;
                self.told.insert(r.index, told);
                let what = r
                    .command
                    .as_deref()
                    .map_or_else(String::new, |c| format!(": {}", quoted(c)));
                let mut e = self.event(Kind::CommandStarted, r.started_at.unwrap_or(now_us), what);
                e.facts = Facts::Started {
                    command: r.command.as_deref().map(cleaned),
                };
                out.push(e);
            }
            if let Some(end) = r.ended
                && !told.1
            {
                told.1 = true;
                self.told.insert(r.index, told);
                if !told.0 && end == CommandEnd::Abandoned {
                    // A prompt left with nothing run: no command.
                    continue;
                }
                out.push(self.finished(r, end, now_us));
            }
        }
        let oldest = l.records.last().map_or(self.floor, |r| r.index);
        self.told.retain(|i, _| *i >= oldest);
        if l.title != self.title {
            self.title.clone_from(&l.title);
            let t = l.title.as_deref().unwrap_or("");
            let mut e = self.event(Kind::Title, now_us, format!(": {}", quoted(t)));
            e.facts = Facts::Title { title: cleaned(t) };
            out.push(e);
        }
        let rang = l.bells.wrapping_sub(self.bells);
        if rang > 0 {
            self.bells = l.bells;
            let times = if rang == 1 {
                String::new()
            } else {
                format!(": {rang} times")
            };
            out.push(self.event(Kind::Bell, now_us, times));
        }
        self.kept = l.kept;
        if let Some(s) = l.exit_status
            && !self.exited
        {
            self.exited = true;
            self.death_due = None;
            out.push(self.exited_event(Some(s), now_us));
        } else if l.kept && !self.exited && self.death_due.is_none() && self.death_asked == 0 {
            // Kept dead with no status yet: tmux closed the pane when its
            // terminal ended, before it reaped the program (or a signal
            // ended it, which has none). Asked again shortly.
            self.death_due = Some(Instant::now());
        }
        // A dead pane tmux keeps (remain-on-exit) is `exited`, not gone,
        // until it is killed.
        if l.status == Status::Dead && !l.kept && !self.gone {
            self.gone = true;
            self.death_due = None;
            out.push(self.event(Kind::PaneGone, now_us, String::new()));
        }
        if l.last_output != self.last_output {
            self.last_output = l.last_output;
            let at = l.last_output.map_or_else(Instant::now, |us| {
                Instant::from_std(crate::mirror::instant_of(us))
            });
            self.idle_due = Some(at + IDLE_STILL);
            self.input_due = Some(at + INPUT_QUIET);
            self.input_backoff = INPUT_QUIET;
            self.input_seen = None;
            self.input_told = None;
        }
    }

    /// `exited` with tmux's `#{pane_dead_status}`, or without one.
    pub(super) fn exited_event(&self, status: Option<i32>, now_us: u64) -> Event {
        let what = status.map_or_else(
            || ": no exit status (tmux gave none: a signal, or not reaped yet)".to_string(),
            |s| format!(": status {s}"),
        );
        let mut e = self.event(Kind::Exited, now_us, what);
        e.facts = Facts::Exited {
            exit_status: status,
        };
        e
    }

    /// Whether tmux is to be asked now if the pane's program died (its
    /// first process ended, or a look found it kept with no status yet);
    /// schedules the next time ([`DEATH_FIRST`], doubling,
    /// [`DEATH_ASKS`] times). After the last, a pane tmux keeps with no
    /// status is told `exited` without one.
    pub(super) fn ask_death(&mut self, now: Instant, out: &mut Vec<Event>) -> bool {
        let Some(due) = self.death_due else {
            return false;
        };
        if now < due {
            return false;
        }
        if self.exited || self.gone {
            self.death_due = None;
            return false;
        }
        if self.death_asked >= DEATH_ASKS {
            self.death_due = None;
            if self.kept {
                self.exited = true;
                out.push(self.exited_event(None, crate::mirror::clock_us()));
            }
            return false;
        }
        self.death_due = Some(now + DEATH_FIRST * (1 << self.death_asked));
        self.death_asked += 1;
        true
    }

    /// Whether the pane's process is to be looked for now; schedules the
    /// next look ([`PROC_FIRST`], doubling up to
    /// [`INPUT_EVERY_AT_MOST`], until [`INPUT_WINDOW`] after following
    /// began).
    pub(super) fn look_for_process(&mut self, now: Instant) -> bool {
        let Some(due) = self.proc_due else {
            return false;
        };
        if now < due {
            return false;
        }
        self.proc_due = (now < self.taken_up + INPUT_WINDOW).then(|| now + self.proc_backoff);
        self.proc_backoff = (self.proc_backoff * 2).min(INPUT_EVERY_AT_MOST);
        true
    }

    /// tmux is to be asked soon whether the pane's program died: its
    /// first process ended.
    pub(super) fn process_ended(&mut self) {
        if !self.exited && !self.gone {
            self.death_due = Some(Instant::now());
            self.death_asked = 0;
        }
    }

    pub(super) fn finished(&self, r: &Record, end: CommandEnd, now_us: u64) -> Event {
        let mut what = r
            .command
            .as_deref()
            .map_or_else(String::new, |c| format!(": {}", quoted(c)));
        what.push_str(match (end, r.exit_status) {
            (CommandEnd::Abandoned, _) => " ended, how is unknown (a new prompt came first)",
            (CommandEnd::Finished, None) => " ended, no exit status in its mark",
            (CommandEnd::Finished, Some(_)) => "",
        });
        if let (CommandEnd::Finished, Some(s)) = (end, r.exit_status) {
            what.push_str(&format!(" exit {s}"));
        }
        let ran = r
            .started_at
            .zip(r.ended_at)
            .map(|(a, b)| b.saturating_sub(a));
        if let Some(us) = ran {
            what.push_str(&format!(" after {}", duration(us)));
        }
        let mut e = self.event(Kind::CommandFinished, r.ended_at.unwrap_or(now_us), what);
        e.facts = Facts::Finished {
            exit_status: r.exit_status.map(i32::from),
            command: r.command.as_deref().map(cleaned),
            duration_us: ran,
        };
        e
    }

    /// `idle`, when it is due: the screen changed since the last `idle`
    /// and has been still for [`IDLE_STILL`] with nothing known to run.
    pub(super) fn check_idle(&mut self, p: &PaneMirror, out: &mut Vec<Event>) {
        let Some(due) = self.idle_due else { return };
        let now = Instant::now();
        if now < due {
            return;
        }
        let Some(ss) = p.settle_screen() else {
            self.idle_due = None;
            return;
        };
        let busy = p.view().term().and_then(crate::tmux::op::stable::busy);
        let now_us = crate::mirror::clock_us();
        let changed = ss.last_change_at.or(ss.last_output_at).unwrap_or(0);
        let still = Duration::from_micros(now_us.saturating_sub(changed));
        if ss.hash.is_none() || (ss.sync_open && ss.dirty) {
            // Inside a synchronized frame: looked at again when it ends
            // (its output wakes the follower) or tmux shows it anyway.
            self.idle_due = Some(now + Duration::from_micros(crate::term::SYNC_TIMEOUT_US));
            return;
        }
        if still < IDLE_STILL {
            self.idle_due = Some(now + (IDLE_STILL - still));
            return;
        }
        self.idle_due = None;
        if busy.is_some() || ss.hash == self.idle_hash || self.gone {
            self.idle_hash = ss.hash;
            return;
        }
        self.idle_hash = ss.hash;
        let mut e = self.event(
            Kind::Idle,
            now_us,
            format!(": screen still for {}", duration(still.as_micros() as u64)),
        );
        e.facts = Facts::Idle {
            still_us: still.as_micros() as u64,
        };
        out.push(e);
    }

    /// `password_prompt` / `awaiting_input`, when the program has read for
    /// [`INPUT_LASTS`] with the pane quiet (looked at within
    /// [`INPUT_WINDOW`] of its last output).
    pub(super) fn check_input(
        &mut self,
        p: &PaneMirror,
        proc: Option<&ProcessRef>,
        out: &mut Vec<Event>,
    ) -> Option<(Input, String)> {
        let due = self.input_due?;
        let now = Instant::now();
        if now < due || self.gone || self.exited {
            return None;
        }
        let since = self.last_output.map_or_else(
            || self.taken_up.elapsed(),
            |us| crate::mirror::instant_of(us).elapsed(),
        );
        let Some(proc) = proc.filter(|_| since <= INPUT_WINDOW) else {
            self.input_due = None;
            return None;
        };
        let (input, _evidence) = proc.read(p);
        if !matches!(input, Input::Password | Input::LineRead | Input::KeyRead) {
            self.input_seen = None;
            self.input_due = Some(now + self.input_backoff);
            self.input_backoff = (self.input_backoff * 2).min(INPUT_EVERY_AT_MOST);
            return None;
        }
        match self.input_seen {
            Some((i, at)) if i == input && now >= at + INPUT_LASTS => {}
            Some((i, at)) if i == input => {
                self.input_due = Some(at + INPUT_LASTS);
                return None;
            }
            _ => {
                self.input_seen = Some((input, now));
                self.input_due = Some(now + INPUT_LASTS);
                return None;
            }
        }
        self.input_due = None;
        if self.input_told == Some(input) {
            return None;
        }
        self.input_told = Some(input);
        let (kind, what) = reading_words(input, p)?;
        out.push(self.event(kind, crate::mirror::clock_us(), format!(": {what}")));
        Some((input, what))
    }

    /// `matched` for new complete lines that match `patterns`.
    pub(super) fn check_lines(
        &mut self,
        p: &PaneMirror,
        patterns: &[(String, Pattern)],
        out: &mut Vec<Event>,
    ) {
        let st = p.view();
        let Some(t) = st.term() else { return };
        let from = match self.next_line {
            Some(l) => l,
            None => {
                self.next_line = Some(crate::mirror::lines::cursor_spot(t).line);
                return;
            }
        };
        let since = crate::mirror::lines::lines_since(
            t,
            from,
            LINES_PER_CHANGE,
            crate::mirror::lines::Keep::Newest,
        );
        drop(st);
        self.next_line = Some(since.next());
        let now_us = crate::mirror::clock_us();
        for line in &since.lines {
            for (text, pat) in patterns {
                if pat.is_match_line(line) {
                    let l = String::from_utf8_lossy(line);
                    let mut e = self.event(
                        Kind::Matched,
                        now_us,
                        format!(" {}: {}", quoted(text), quoted(&l)),
                    );
                    e.facts = Facts::Matched {
                        pattern: cleaned(text),
                        line: cleaned(&l),
                    };
                    out.push(e);
                }
            }
        }
    }

    pub(super) fn due(&self) -> Option<Instant> {
        [self.idle_due, self.input_due, self.death_due, self.proc_due]
            .into_iter()
            .flatten()
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(status: Status, kept: bool, exit_status: Option<i32>) -> Look {
        Look {
            epoch: 1,
            status,
            exit_status,
            kept,
            session: None,
            window: None,
            title: None,
            bells: 0,
            last_output: None,
            records: Vec::new(),
            next_record: 0,
        }
    }

    fn kinds(out: &[Event]) -> Vec<Kind> {
        out.iter().map(|e| e.kind).collect()
    }

    #[test]
    fn a_kept_pane_is_exited_with_its_status_then_gone_when_killed() {
        let mut t = Track::new(PaneId(4), &look(Status::Live, false, None));
        let mut out = Vec::new();
        // Listed dead before tmux reaped the program: asked again, no
        // event yet, and not gone.
        t.diff(&look(Status::Dead, true, None), &mut out);
        assert!(out.is_empty());
        assert!(t.death_due.is_some());
        t.diff(&look(Status::Dead, true, Some(3)), &mut out);
        assert_eq!(kinds(&out), [Kind::Exited]);
        assert_eq!(
            out[0].facts,
            Facts::Exited {
                exit_status: Some(3)
            }
        );
        assert_eq!(t.death_due, None);
        // Killed later: gone, once.
        t.diff(&look(Status::Dead, false, Some(3)), &mut out);
        t.diff(&look(Status::Dead, false, Some(3)), &mut out);
        assert_eq!(kinds(&out), [Kind::Exited, Kind::PaneGone]);
    }

    #[test]
    fn a_pane_that_goes_is_gone_not_exited() {
        let mut t = Track::new(PaneId(4), &look(Status::Live, false, None));
        let mut out = Vec::new();
        t.diff(&look(Status::Dead, false, None), &mut out);
        assert_eq!(kinds(&out), [Kind::PaneGone]);
    }

    #[test]
    fn asks_double_then_a_kept_pane_without_status_is_exited_without_one() {
        let mut t = Track::new(PaneId(4), &look(Status::Live, false, None));
        let mut out = Vec::new();
        t.process_ended();
        let mut at = Instant::now();
        let mut asked = 0;
        let mut gaps = Vec::new();
        while let Some(due) = t.death_due {
            at = at.max(due);
            if t.ask_death(at, &mut out) {
                asked += 1;
                if let Some(next) = t.death_due {
                    gaps.push(next - at);
                }
            }
            if asked == 1 {
                // The first listing shows it kept, still with no status.
                t.diff(&look(Status::Dead, true, None), &mut out);
            }
        }
        assert_eq!(asked, DEATH_ASKS);
        assert_eq!(gaps[0], DEATH_FIRST);
        assert_eq!(gaps[1], DEATH_FIRST * 2);
        assert_eq!(kinds(&out), [Kind::Exited]);
        assert_eq!(out[0].facts, Facts::Exited { exit_status: None });
        // A process that ended in a pane tmux did not keep: no event.
        let mut t = Track::new(PaneId(5), &look(Status::Live, false, None));
        let mut out = Vec::new();
        t.process_ended();
        while let Some(due) = t.death_due {
            t.ask_death(due, &mut out);
        }
        assert!(out.is_empty());
    }
}
