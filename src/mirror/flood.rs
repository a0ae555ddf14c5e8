//! Floods: a pane printing faster than [`FLOOD_BYTES`] per [`WINDOW`] that
//! nobody waits on is paused (`refresh-client -A '%N:pause'`) and seeded
//! again once it has settled, instead of being followed byte by byte.
//!
//! Why: with only control clients attached, tmux stops reading a pane
//! whose output a control client has not taken yet (server-client.c
//! `server_client_check_pane_buffer`: "there are attached clients, all of
//! which are control clients which are not able to accept any more data"),
//! and it encodes every byte of `%output` (control.c
//! `control_append_data`), so a flood runs at the speed of that encoding:
//! 2.3× slower than with no client on this machine, for any control
//! client. A paused pane is neither encoded nor waited for
//! (`control_pane_offset` leaves it out), so the flood runs at tmux's own
//! speed; the copy is brought back by one seed (a capture, exact) when the
//! pane is quiet.
//!
//! Whether it settled is seen by asking tmux to resume the pane
//! (`…:continue`) every [`PROBE_EVERY`]: output within [`QUIET`] means
//! it still floods (paused again), none means it settled (seeded). A pane
//! a sync asks for, or that a wait follows, is not paused for [`GRACE`]
//! after (a seed resumes it): answers are always from an exact copy.
//!
//! This module is the pure state machine; the watch sends the commands.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::control::PaneId;

/// The metering window.
pub const WINDOW: Duration = Duration::from_millis(250);

/// Bytes within one [`WINDOW`] that make a flood (4 MiB/s).
pub const FLOOD_BYTES: usize = 1 << 20;

/// How long a paused pane stays paused before it is probed.
pub const PROBE_EVERY: Duration = Duration::from_millis(250);

/// How long a probed pane must stay silent to count as settled.
pub const QUIET: Duration = Duration::from_millis(150);

/// How long a pane a request asked for is not paused.
pub const GRACE: Duration = Duration::from_secs(2);

/// Where a pane is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Followed; `bytes` of output since `since`.
    Metering { since: Instant, bytes: usize },
    /// Asked to pause at `at`.
    Paused { at: Instant },
    /// Asked to resume at `at`, to see whether it still prints.
    Probing { at: Instant },
    /// Not paused before `until`.
    Grace { until: Instant },
}

/// What the watch should tell tmux about a pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `refresh-client -A '%N:pause'`.
    Pause,
    /// `refresh-client -A '%N:continue'` (a probe).
    Continue,
    /// It settled: seed it (the seed resumes it).
    Seed,
}

/// The flood state of one watch's panes.
#[derive(Debug, Default)]
pub struct Floods {
    panes: HashMap<PaneId, State>,
}

impl Floods {
    /// `bytes` of output of `pane` arrived at `now`; `may_pause` says
    /// whether nobody waits on it and no seed of it is under way (asked
    /// only when the pane is over the rate: this runs for every
    /// `%output`).
    pub fn output(
        &mut self,
        pane: PaneId,
        bytes: usize,
        now: Instant,
        may_pause: impl FnOnce() -> bool,
    ) -> Option<Action> {
        let st = self.panes.entry(pane).or_insert(State::Metering {
            since: now,
            bytes: 0,
        });
        match *st {
            State::Grace { until } if now < until => None,
            State::Grace { .. } => {
                *st = State::Metering { since: now, bytes };
                None
            }
            State::Metering {
                since,
                bytes: before,
            } => {
                let total = if now.duration_since(since) > WINDOW {
                    *st = State::Metering { since: now, bytes };
                    bytes
                } else {
                    let total = before + bytes;
                    *st = State::Metering {
                        since,
                        bytes: total,
                    };
                    total
                };
                (total > FLOOD_BYTES && may_pause()).then(|| {
                    *st = State::Paused { at: now };
                    Action::Pause
                })
            }
            // Output after a probe's resume: it still floods.
            State::Probing { .. } => {
                *st = State::Paused { at: now };
                Some(Action::Pause)
            }
            State::Paused { .. } => None,
        }
    }

    /// Whether `pane` is paused (or being probed) for a flood: tmux's
    /// `%pause` for it is expected, and it is not seeded at once.
    pub fn holds(&self, pane: PaneId) -> bool {
        matches!(
            self.panes.get(&pane),
            Some(State::Paused { .. } | State::Probing { .. })
        )
    }

    /// A request asked for `pane` (it will be seeded, which resumes it):
    /// not paused for [`GRACE`].
    pub fn asked(&mut self, pane: PaneId, now: Instant) {
        self.panes.insert(pane, State::Grace { until: now + GRACE });
    }

    /// What is due at `now`: probes of paused panes, seeds of settled ones.
    pub fn tick(&mut self, now: Instant) -> Vec<(PaneId, Action)> {
        let mut due = Vec::new();
        for (&pane, st) in &mut self.panes {
            match *st {
                State::Paused { at } if now.duration_since(at) >= PROBE_EVERY => {
                    *st = State::Probing { at: now };
                    due.push((pane, Action::Continue));
                }
                State::Probing { at } if now.duration_since(at) >= QUIET => {
                    *st = State::Grace { until: now + GRACE };
                    due.push((pane, Action::Seed));
                }
                _ => {}
            }
        }
        due
    }

    /// When [`Floods::tick`] next has something to do.
    pub fn next_tick(&self) -> Option<Instant> {
        self.panes
            .values()
            .filter_map(|st| match *st {
                State::Paused { at } => Some(at + PROBE_EVERY),
                State::Probing { at } => Some(at + QUIET),
                _ => None,
            })
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: PaneId = PaneId(3);

    #[test]
    fn a_flood_is_paused_probed_and_seeded_once_quiet() {
        let t0 = Instant::now();
        let mut f = Floods::default();
        // Below the rate: followed.
        assert_eq!(f.output(P, FLOOD_BYTES / 2, t0, || true), None);
        assert_eq!(f.output(P, FLOOD_BYTES / 4, t0 + WINDOW * 2, || true), None);
        // Over it within one window: paused.
        let t1 = t0 + WINDOW * 3;
        assert_eq!(f.output(P, FLOOD_BYTES / 2, t1, || true), None);
        assert_eq!(
            f.output(P, FLOOD_BYTES / 2 + 1, t1, || true),
            Some(Action::Pause)
        );
        assert!(f.holds(P));
        assert_eq!(f.next_tick(), Some(t1 + PROBE_EVERY));
        assert!(f.tick(t1).is_empty());
        // Probed; output comes: paused again.
        let t2 = t1 + PROBE_EVERY;
        assert_eq!(f.tick(t2), [(P, Action::Continue)]);
        assert_eq!(f.output(P, 10, t2, || true), Some(Action::Pause));
        // Probed; silence: seeded, then not paused for a while.
        let t3 = t2 + PROBE_EVERY;
        assert_eq!(f.tick(t3), [(P, Action::Continue)]);
        assert_eq!(f.tick(t3 + QUIET), [(P, Action::Seed)]);
        assert!(!f.holds(P));
        assert_eq!(f.output(P, FLOOD_BYTES * 2, t3 + QUIET, || true), None);
        assert_eq!(f.next_tick(), None);
    }

    #[test]
    fn a_pane_waited_on_or_asked_for_is_not_paused() {
        let t0 = Instant::now();
        let mut f = Floods::default();
        assert_eq!(f.output(P, FLOOD_BYTES * 2, t0, || false), None);
        assert!(!f.holds(P));
        f.asked(P, t0);
        assert_eq!(f.output(P, FLOOD_BYTES * 2, t0 + GRACE / 2, || true), None);
        // After the grace, metering starts again.
        assert_eq!(f.output(P, 1, t0 + GRACE, || true), None);
        assert_eq!(
            f.output(P, FLOOD_BYTES, t0 + GRACE, || true),
            Some(Action::Pause)
        );
    }
}
