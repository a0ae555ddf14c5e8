//! `wait_for_stable`: wait until a pane's visible screen has stopped
//! changing, for a TUI (an agent's, a REPL, a pager) that prints no
//! lines and no marks to wait for.
//!
//! The screen is the visible rows' text (trailing blanks trimmed; no
//! attributes, no cursor), looked at only between synchronized-output
//! frames (`?2026h` … `?2026l`, or once tmux would show an unfinished
//! one anyway, [`crate::term::SYNC_TIMEOUT_US`]), so a repaint in
//! progress is never taken for the screen. A mask leaves rows (a status
//! bar, a clock) and regex matches (a spinner glyph, a timer, a token
//! counter) out of the comparison. The wait is woken by the pane's
//! output and by one timer (the moment the screen will have been still
//! for `stable_ms`); it never polls the screen.
//!
//! Silence alone is never taken for idle while the program is known to
//! run: a marked command that began (OSC 133 `C`) and has not ended
//! (`D`), or a progress report that says busy (`OSC 9;4;1` or `;3`),
//! keeps the wait going (the answer's `evidence` says which).

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use super::Server;
use crate::control::PaneId;
use crate::search::Pattern;
use crate::term::marks::Progress;
use crate::term::{RowHash, Term};
use crate::tmux::wait::{self, Condition, End, Ended, Limits, Seen};
use crate::tmux::{Error, Selector};

/// What the wait's progress notifications say it does.
const WAITING: &str = "waiting for the screen to settle";

/// `wait_for_stable`: wait until `pane`'s screen has not changed for
/// `stable`.
#[derive(Clone)]
pub struct WaitForStableRequest {
    /// The pane.
    pub pane: Selector,
    /// How long the screen must stay unchanged.
    pub stable: Duration,
    /// How long to wait.
    pub timeout: Duration,
    /// What is left out of the comparison.
    pub mask: ScreenMask,
    /// Only a screen that changed after the wait began counts as stable
    /// (a program that has not yet started to draw is not done).
    pub require_change: bool,
    /// End as `matched` once the (masked) screen shows this.
    pub until: Option<Pattern>,
    /// End as `matched` once the (masked) screen no longer shows this,
    /// after it showed it during the wait (a "working…" footer gone; one
    /// never shown ends nothing, so a program that has not yet begun is
    /// not taken for done).
    pub absent: Option<Pattern>,
    /// Where to report progress (seconds waited of the timeout).
    pub progress: Option<crate::mirror::Progress>,
}

crate::tmux::op::waited::pane_wait! {
    /// # Errors
    ///
    /// `NotFound` for a missing pane; `Unsupported` with the mirror off;
    /// [`crate::tmux::ErrorKind::ServerGone`] when the server exits during
    /// the wait; connection errors.
    WaitForStableRequest => WaitForStableResult by wait_for_stable;
}

/// Rows and text left out when the screen is compared.
#[derive(Clone, Debug, Default)]
pub struct ScreenMask {
    /// Screen rows: 0 = the top row, -1 = the bottom row (rows beyond the
    /// screen are ignored).
    pub rows: Vec<i64>,
    /// Text matching any of these is removed from each row first.
    pub patterns: Vec<Pattern>,
}

impl ScreenMask {
    fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.patterns.is_empty()
    }

    /// Whether screen row `row` of `height` rows is masked.
    fn masks_row(&self, row: usize, height: usize) -> bool {
        self.rows.iter().any(|&r| {
            let at = if r < 0 { height as i64 + r } else { r };
            at == row as i64
        })
    }

    /// `text` with every match of the patterns removed.
    fn apply<'a>(&self, text: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
        if self.patterns.is_empty() {
            return text;
        }
        let mut cut: Vec<std::ops::Range<usize>> = self
            .patterns
            .iter()
            .flat_map(|p| p.find_all_in_line(text))
            .filter(|r| !r.is_empty())
            .collect();
        if cut.is_empty() {
            return text;
        }
        cut.sort_by_key(|r| r.start);
        buf.clear();
        let mut at = 0;
        for r in cut {
            if r.start > at {
                buf.extend_from_slice(&text[at..r.start]);
            }
            at = at.max(r.end);
        }
        buf.extend_from_slice(&text[at.min(text.len())..]);
        buf
    }
}

/// Most lines and bytes of [`WaitForStableResult::screen`].
const SCREEN_LINES: usize = 40;
const SCREEN_BYTES: usize = 4000;

crate::tmux::op::waited::wait_outcome! {
    /// How a `wait_for_stable` ended.
    pub enum StableOutcome {
        /// The (masked) screen was unchanged for `stable_ms` while nothing
        /// was known to run.
        Stable,
        /// `until_pattern` shown, or `absent_pattern` gone after it was
        /// shown.
        Matched,
    }
}

crate::tmux::op::waited::waited! {
    /// `wait_for_stable`'s answer.
    #[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
    pub struct WaitForStableResult {
        /// stable (unchanged for stable_ms, nothing known to run) | matched
        /// (until_pattern shown, or absent_pattern gone after it was shown) | password_prompt |
        /// awaiting_input (the program has read a line, without / with echo,
        /// or waited for a key, for 300 ms) | exited | pane_gone | timeout.
        pub outcome: StableOutcome,
        /// True for `stable` and `matched`.
        pub found: bool,
        /// The pane, `%N`.
        pub pane_id: String,
        /// How long the (masked) screen had been unchanged at the end, ms.
        pub stable_for_ms: f64,
        /// When the (masked) screen last changed, Unix seconds: no earlier
        /// than the change (the newest output before it); null when unknown.
        pub last_change_at: Option<f64>,
        /// When the pane last printed anything, Unix seconds.
        pub last_output_at: Option<f64>,
        /// The masked screen's hash (16 hex digits): equal hashes, equal
        /// screens under the same mask.
        pub screen_hash: Option<String>,
        /// Changes of the (masked) screen seen during the wait.
        pub changes: u64,
        /// The visible screen at the end (unmasked; trailing blank rows left
        /// out; at most 40 rows and 4000 bytes, the top kept).
        pub screen: Vec<String>,
        @waited,
        /// Why it ended so, or why it did not end `stable` (a command
        /// running, a progress report, the terminal's settings).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub evidence: Vec<String>,
    }
}

/// One look at the screen.
struct Look {
    /// The masked screen's hash; `None` inside an open frame.
    hash: Option<u64>,
    /// When it last changed, as the copy dates it (mirror clock, µs).
    changed_at: Option<u64>,
    last_output_at: Option<u64>,
    /// Why the program is known to run, if it is.
    busy: Option<String>,
    /// `until` is shown.
    matched: Option<String>,
    /// Whether `absent` is shown (`None`: not asked, or inside a frame).
    absent_shown: Option<bool>,
}

/// Looks at `t` under `req`'s mask.
fn look_screen(t: &Term, req: &WaitForStableRequest) -> Look {
    let ss = t.screen_state();
    let open = ss.sync_open && ss.dirty;
    let mut matched = None;
    let mut shown = None;
    let hash = if open {
        None
    } else if req.mask.is_empty() && req.until.is_none() && req.absent.is_none() {
        ss.hash
    } else {
        let height = t.size().1 as usize;
        let mut h = RowHash::new();
        let mut buf = Vec::new();
        let mut absent_seen = false;
        t.visible_rows(|row, text| {
            if req.mask.masks_row(row, height) {
                h.row(b"");
                return;
            }
            let kept = req.mask.apply(text, &mut buf);
            h.row(kept);
            if matched.is_none()
                && let Some(p) = &req.until
                && p.is_match_line(kept)
            {
                matched = Some(format!("until_pattern shown in row {row}"));
            }
            if let Some(p) = &req.absent {
                absent_seen |= p.is_match_line(kept);
            }
        });
        if req.absent.is_some() {
            shown = Some(absent_seen);
        }
        Some(h.finish())
    };
    Look {
        hash,
        // The whole screen's last change bounds the masked one's.
        changed_at: ss.last_change_at.or(ss.last_output_at),
        last_output_at: ss.last_output_at,
        busy: busy(t),
        matched,
        absent_shown: shown,
    }
}

/// Why the pane's program is known to be running: the newest marked
/// command began and has not ended, or it reports busy progress.
pub(super) fn busy(t: &Term) -> Option<String> {
    if let Some(r) = t.commands().last()
        && r.running()
    {
        let what = r
            .command
            .as_ref()
            .map_or_else(String::new, |c| format!(" '{c}'"));
        return Some(format!(
            "command {}{what} is running (OSC 133 C without D; marks are advisory)",
            r.index
        ));
    }
    match t.progress() {
        Some(Progress::Indeterminate) => Some("progress busy (OSC 9;4;3)".into()),
        Some(Progress::Value(n)) => Some(format!("progress at {n}% (OSC 9;4;1)")),
        _ => None,
    }
}

/// `wait_for_stable`'s condition: what the wait has seen of the screen.
/// Met at a look when `until` shows or `absent` went; met by time
/// ([`Condition::check`], after the input watch) once the screen has
/// been still for `stable` while nothing is known to run.
struct Still<'r> {
    req: &'r WaitForStableRequest,
    /// The masked screen's hash at the last look outside a frame.
    hash: Option<u64>,
    /// When it last changed (mirror clock, µs).
    changed_at: Option<u64>,
    /// Changes seen after the first look.
    changes: u64,
    first: bool,
    absent_was_shown: bool,
    last_output_at: Option<u64>,
    /// How long the screen had been still at the last look.
    still: Duration,
    /// The screen can count as stable (outside a frame, changed when
    /// `require_change`) and nothing is known to run.
    settled: bool,
    /// Why the program is known to run, at the last look.
    busy: Option<String>,
}

/// What [`Still`] finds: the outcome and its evidence.
type StillFound = (StableOutcome, Vec<String>);

impl<'r> Still<'r> {
    fn new(req: &'r WaitForStableRequest) -> Still<'r> {
        Still {
            req,
            hash: None,
            changed_at: None,
            changes: 0,
            first: true,
            absent_was_shown: false,
            last_output_at: None,
            still: Duration::ZERO,
            settled: false,
            busy: None,
        }
    }

    /// Why the wait did not end `stable` when its time ran out.
    fn timeout_evidence(&self) -> Vec<String> {
        let mut ev = Vec::new();
        if let Some(b) = &self.busy {
            ev.push(b.clone());
        } else if self.req.require_change && self.changes == 0 {
            ev.push("the screen did not change (require_change)".into());
        } else {
            ev.push(format!(
                "the screen changed {} ms ago",
                self.still.as_millis()
            ));
        }
        if self.changed_at.is_none() && self.last_output_at.is_none() {
            ev.push("the pane printed nothing since tmuxwire watched it".into());
        }
        ev
    }
}

impl Condition for Still<'_> {
    type Found = StillFound;

    /// The screen settles by time: a pane that ended is not looked at
    /// again.
    const LOOK_AT_END: bool = false;

    fn look(&mut self, seen: &Seen<'_>) -> Option<StillFound> {
        let req = self.req;
        let l = look_screen(seen.term?, req);
        if l.hash.is_some() && l.hash != self.hash {
            if !self.first {
                self.changes += 1;
            }
            self.hash = l.hash;
            // A masked screen's change is dated by the newest output
            // (never earlier than the change); the whole screen's, by the
            // copy.
            self.changed_at = if self.first || req.mask.is_empty() {
                l.changed_at
            } else {
                l.last_output_at
            };
        }
        self.first = false;
        self.last_output_at = l.last_output_at;
        self.still =
            Duration::from_micros(seen.now_us.saturating_sub(self.changed_at.unwrap_or(0)));
        self.settled =
            l.hash.is_some() && (!req.require_change || self.changes > 0) && l.busy.is_none();
        self.busy = l.busy;
        match l.absent_shown {
            Some(true) => self.absent_was_shown = true,
            Some(false) if self.absent_was_shown && l.matched.is_none() => {
                return Some((
                    StableOutcome::Matched,
                    vec!["absent_pattern no longer shown".into()],
                ));
            }
            _ => {}
        }
        l.matched.map(|m| (StableOutcome::Matched, vec![m]))
    }

    fn check(&mut self) -> Option<StillFound> {
        (self.settled && self.still >= self.req.stable).then(|| {
            let ev = vec![format!(
                "screen unchanged for {} ms (stable_ms {})",
                self.still.as_millis(),
                self.req.stable.as_millis()
            )];
            (StableOutcome::Stable, ev)
        })
    }

    fn wake_in(&self) -> Option<Duration> {
        self.settled
            .then(|| self.req.stable.saturating_sub(self.still))
    }
}

/// Waits until `pane`'s masked screen has not changed for `req.stable`
/// while nothing is known to run, or another outcome ends the wait
/// ([`WaitForStableResult::outcome`]), on the wait engine
/// ([`crate::tmux::wait`]).
///
/// # Errors
///
/// As the [`run`](super::Op::run) of [`WaitForStableRequest`].
pub(super) async fn wait_for_stable(
    server: &Server,
    pane: PaneId,
    req: &WaitForStableRequest,
) -> Result<WaitForStableResult, Error> {
    let limits = Limits::new(req.timeout, req.progress.as_ref(), WAITING);
    let started = limits.started;
    let f = wait::follow(server, pane, None, Some(req.timeout / 2)).await?;
    // Subscribed before the first look: the watch hashes the screen of a
    // copy that is waited on, so every look sees it settled.
    let mut rx = f.pane.subscribe();
    if f.pane.settle_screen().is_none() {
        return Err(Error::not_found(format!("can't find pane: {pane}")));
    }
    let mut cond = Still::new(req);
    let end = wait::run(server, &f, &mut rx, &mut cond, &limits).await?;
    let (outcome, evidence, exit) = match end {
        End::Met((o, ev)) | End::Pane(_, Some((o, ev))) => (o, ev, None),
        End::Reading(i, ev) if wait::reads_password(i) => (StableOutcome::PasswordPrompt, ev, None),
        End::Reading(_, ev) => (StableOutcome::AwaitingInput, ev, None),
        End::Pane(e @ Ended::Exited(_), None) => (StableOutcome::Exited, Vec::new(), Some(e)),
        End::Pane(e @ Ended::Gone, None) => (StableOutcome::PaneGone, Vec::new(), Some(e)),
        End::Timeout => (StableOutcome::Timeout, cond.timeout_evidence(), None),
    };
    let exit = wait::exit_of(exit.as_ref());
    let st = f.pane.view();
    let screen = st.term().map_or_else(Vec::new, screen_of);
    drop(st);
    let now_us = crate::mirror::clock_us();
    let changed_at = cond.changed_at;
    Ok(WaitForStableResult {
        found: matches!(outcome, StableOutcome::Stable | StableOutcome::Matched),
        outcome,
        pane_id: pane.to_string(),
        stable_for_ms: changed_at.map_or(0.0, |c| now_us.saturating_sub(c) as f64 / 1000.0),
        last_change_at: changed_at.and_then(super::commands::unix_seconds),
        last_output_at: cond.last_output_at.and_then(super::commands::unix_seconds),
        screen_hash: cond.hash.map(|h| format!("{h:016x}")),
        changes: cond.changes,
        screen,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        effective_timeout: req.timeout.as_secs_f64(),
        exit,
        evidence,
    })
}

/// The visible rows of `t`, trailing blank rows left out, within
/// [`SCREEN_LINES`] and [`SCREEN_BYTES`] (the top kept).
fn screen_of(t: &Term) -> Vec<String> {
    let mut rows = Vec::new();
    t.visible_rows(|_, text| rows.push(String::from_utf8_lossy(text).into_owned()));
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    let mut used = 0;
    rows.into_iter()
        .take(SCREEN_LINES)
        .take_while(|r| {
            used += r.len() + 1;
            used <= SCREEN_BYTES
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::PatternOptions;

    #[test]
    fn masks_rows_from_either_end() {
        let m = ScreenMask {
            rows: vec![0, -1, 99],
            patterns: Vec::new(),
        };
        assert!(m.masks_row(0, 24));
        assert!(m.masks_row(23, 24));
        assert!(!m.masks_row(1, 24));
        assert!(!m.masks_row(22, 24));
    }

    #[test]
    fn patterns_are_cut_out_of_rows() {
        let p = |s| Pattern::new(s, PatternOptions::regex()).expect("pattern");
        let m = ScreenMask {
            rows: Vec::new(),
            patterns: vec![p(r"\([0-9]+s[^)]*\)"), p("[⠋⠙⠹⠸]")],
        };
        let mut buf = Vec::new();
        assert_eq!(
            m.apply("⠙ Working (12s · 3k tokens) esc".as_bytes(), &mut buf),
            " Working  esc".as_bytes()
        );
        let mut buf2 = Vec::new();
        assert_eq!(m.apply(b"plain", &mut buf2), b"plain");
    }

    fn request(stable_ms: u64, require_change: bool) -> WaitForStableRequest {
        WaitForStableRequest {
            pane: Selector::default(),
            stable: Duration::from_millis(stable_ms),
            timeout: Duration::from_secs(5),
            mask: ScreenMask::default(),
            require_change,
            until: None,
            absent: None,
            progress: None,
        }
    }

    /// A 20×4 terminal that printed `bytes` at `at_us`, its screen
    /// settled (as the mirror does for a copy that is waited on).
    fn printed(t: &mut Term, bytes: &[u8], at_us: u64) {
        t.set_now(at_us);
        t.advance(bytes);
        t.settle_screen();
    }

    fn term() -> Term {
        Term::new(
            20,
            4,
            crate::term::Rules::V36,
            crate::term::Options::default(),
        )
    }

    #[test]
    fn still_for_stable_ms_is_stable_and_the_timer_says_when() {
        let req = request(200, false);
        let mut t = term();
        printed(&mut t, b"ready> ", 1_000);
        let mut c = Still::new(&req);
        // Looks at these times (µs): nothing found, the timer due in.
        let not_yet = |c: &mut Still<'_>, t: &Term, at: u64| {
            assert_eq!(c.look(&Seen::of_term(t, at)), None);
            assert_eq!(c.check(), None);
            c.wake_in()
        };
        assert_eq!(not_yet(&mut c, &t, 1_000), Some(Duration::from_millis(200)));
        // 150 ms later: not yet, 50 ms to go.
        assert_eq!(
            not_yet(&mut c, &t, 151_000),
            Some(Duration::from_millis(50))
        );
        // Output that changes the screen starts the stillness again.
        printed(&mut t, b"x", 190_000);
        assert_eq!(
            not_yet(&mut c, &t, 201_000),
            Some(Duration::from_millis(189))
        );
        assert_eq!(c.look(&Seen::of_term(&t, 390_000)), None);
        let (o, ev) = c.check().expect("stable");
        assert_eq!(o, StableOutcome::Stable);
        assert!(ev[0].contains("stable_ms 200"), "{ev:?}");
        assert_eq!(c.changes, 1);
    }

    #[test]
    fn require_change_and_a_running_command_hold_the_wait() {
        let req = request(10, true);
        let mut t = term();
        printed(&mut t, b"$ ", 1_000);
        let mut c = Still::new(&req);
        c.look(&Seen::of_term(&t, 900_000));
        assert_eq!(c.check(), None, "the screen never changed");
        assert_eq!(c.wake_in(), None);
        assert!(c.timeout_evidence()[0].contains("require_change"));
        // A marked command that began (OSC 133 C) and has not ended.
        printed(
            &mut t,
            b"\x1b]133;A\x07$ \x1b]133;B\x07make\r\n\x1b]133;C\x07",
            1_000_000,
        );
        c.look(&Seen::of_term(&t, 2_000_000));
        assert_eq!(c.check(), None, "busy");
        assert!(c.timeout_evidence()[0].contains("is running"));
    }

    #[test]
    fn until_and_absent_patterns_match_the_screen() {
        let p = |s| Some(Pattern::new(s, PatternOptions::default()).expect("pattern"));
        let mut req = request(1_000, false);
        req.absent = p("Working");
        let mut t = term();
        printed(&mut t, b"Working...", 1_000);
        let mut c = Still::new(&req);
        assert_eq!(c.look(&Seen::of_term(&t, 1_000)), None);
        printed(&mut t, b"\r\x1b[KDone", 2_000);
        let (o, ev) = c.look(&Seen::of_term(&t, 2_000)).expect("matched");
        assert_eq!(o, StableOutcome::Matched);
        assert_eq!(ev, ["absent_pattern no longer shown"]);
        // A pattern never shown ends nothing.
        let mut c = Still::new(&req);
        assert_eq!(c.look(&Seen::of_term(&t, 3_000)), None);
        req.absent = None;
        req.until = p("Done");
        let mut c = Still::new(&req);
        let (o, _) = c.look(&Seen::of_term(&t, 3_000)).expect("matched");
        assert_eq!(o, StableOutcome::Matched);
    }
}
