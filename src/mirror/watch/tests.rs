//! The watch's orderings without tmux or a clock: notifications and
//! answers are fed in an order tmux may write them, at made-up times, and
//! the lines the watch sends and the copies it installs are looked at.
//! The copy a seed's answer builds is made here from the bytes "tmux" had
//! parsed at the capture (building it from the answer is [`seed::build`]'s
//! job, tested there); fence answers are records as tmux prints them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::{Build, Effect, Watch};
use crate::control::client::Reply;
use crate::control::parse::Block;
use crate::control::{Notification, PaneId, SessionId};
use crate::mirror::flood::FLOOD_BYTES;
use crate::mirror::pane::{PaneMeta, Status};
use crate::mirror::seed;
use crate::mirror::{MirrorOptions, MirrorShared, Want, probe};
use crate::term::{Options, Term};
use crate::wire::{Endpoint, TmuxVersion};

const S: SessionId = SessionId(1);
const A: PaneId = PaneId(1);
const B: PaneId = PaneId(2);

/// A watch of session `$1`, the lines it sent and the builds it asked for.
struct Rig {
    w: Watch,
    shared: Arc<MirrorShared>,
    t0: Instant,
    /// Every line sent: job id and text.
    sent: Vec<(u64, String)>,
    builds: Vec<Build>,
}

/// A sync request's reply and outcomes, as the mirror waits for them.
struct Request {
    reply: oneshot::Receiver<()>,
    outcomes: mpsc::Receiver<(PaneId, bool)>,
}

impl Request {
    fn done(&mut self) -> bool {
        self.reply.try_recv().is_ok()
    }

    fn outcomes(&mut self) -> Vec<(PaneId, bool)> {
        let mut all = Vec::new();
        while let Ok(o) = self.outcomes.try_recv() {
            all.push(o);
        }
        all.sort_by_key(|&(p, _)| p.0);
        all
    }
}

fn block(body: impl Into<Vec<u8>>) -> Block {
    Block {
        time: 0,
        number: 0,
        flags: 1,
        ok: true,
        body: body.into(),
    }
}

/// An answer with these blocks.
fn answer(blocks: Vec<Block>) -> super::Answer {
    Some(Ok(Reply {
        blocks,
        stray: Vec::new(),
    }))
}

/// A pane's copy as a seed captures it after `printed`.
fn copy(shared: &MirrorShared, printed: &[u8]) -> Term {
    let mut t = Term::new(80, 24, shared.rules, Options::default());
    t.advance(printed);
    t.end_read();
    t
}

impl Rig {
    fn new() -> Rig {
        let version = TmuxVersion::parse("3.5a");
        let endpoint = Endpoint::Local("/nonexistent/tmuxwire-test".into());
        let (shared, _) = MirrorShared::new(endpoint, &version, &MirrorOptions::default());
        let shared = Arc::new(shared);
        let t0 = Instant::now();
        Rig {
            w: Watch::new(S, shared.clone(), t0),
            shared,
            t0,
            sent: Vec::new(),
            builds: Vec::new(),
        }
    }

    /// The watch at `ms` after the start.
    fn at(&mut self, ms: u64) -> &mut Watch {
        self.w.at(self.t0 + Duration::from_millis(ms))
    }

    /// Takes the effects of the last input.
    fn settle(&mut self) {
        for e in self.w.effects() {
            match e {
                Effect::Send { job, line } => {
                    let text = line.to_line().expect("a line the watch makes is encodable");
                    self.sent.push((job, text));
                }
                Effect::Build(b) => self.builds.push(b),
                Effect::DropBuffer(_) | Effect::Close => {}
            }
        }
    }

    fn sync(&mut self, ms: u64, panes: &[PaneId], want: Want) -> Request {
        let (reply, rx) = oneshot::channel();
        let (outcomes, orx) = mpsc::channel(panes.len().max(1));
        let panes = panes.iter().map(|&p| (p, PaneMeta::default())).collect();
        self.at(ms).sync(panes, want, reply, outcomes);
        self.settle();
        Request {
            reply: rx,
            outcomes: orx,
        }
    }

    fn output(&mut self, ms: u64, pane: PaneId, data: &[u8]) {
        let data = data.to_vec();
        self.at(ms)
            .notification(Notification::Output { pane, data });
        self.settle();
    }

    fn notify(&mut self, ms: u64, n: Notification) {
        self.at(ms).notification(n);
        self.settle();
    }

    fn answered(&mut self, ms: u64, job: u64, reply: super::Answer) {
        self.at(ms).answered(job, reply);
        self.settle();
    }

    /// The lines sent so far whose text has every one of `words`.
    fn lines_with(&self, words: &[&str]) -> Vec<u64> {
        self.sent
            .iter()
            .filter(|(_, l)| words.iter().all(|w| l.contains(w)))
            .map(|&(id, _)| id)
            .collect()
    }

    /// The one seed line of `pane` sent since `from` lines were (every
    /// seed resumes its pane first: `refresh-client -A '%N:continue'`).
    fn seed_of(&self, pane: PaneId, from: usize) -> u64 {
        let resume = format!("{pane}:continue");
        let ids: Vec<u64> = self.sent[from..]
            .iter()
            .filter(|(_, l)| l.contains(&resume) && l.contains("capture-pane"))
            .map(|&(id, _)| id)
            .collect();
        assert_eq!(
            ids.len(),
            1,
            "seed lines of {pane} in {:?}",
            &self.sent[from..]
        );
        ids[0]
    }

    /// The build asked for `pane`, taken.
    fn build_of(&mut self, pane: PaneId) -> Build {
        let i = self
            .builds
            .iter()
            .position(|b| b.pane == pane)
            .unwrap_or_else(|| panic!("no build of {pane}"));
        self.builds.remove(i)
    }

    /// "tmux" builds the copy of `pane` asked for from what it had parsed
    /// at the capture.
    fn built(&mut self, ms: u64, pane: PaneId, printed: &[u8]) {
        let b = self.build_of(pane);
        let term = copy(&self.shared, printed);
        let built = seed::Built {
            term,
            dead: false,
            exit_status: None,
        };
        self.at(ms).built(pane, b.key, Ok(built));
        self.settle();
    }

    /// Seeds `panes` (nothing printed yet) and installs their copies.
    fn live(&mut self, ms: u64, panes: &[PaneId]) {
        let mut req = self.sync(ms, panes, Want::Current);
        for &p in panes {
            let from = self.sent.len().saturating_sub(1);
            let id = self.seed_of(p, from);
            self.answered(ms, id, answer(vec![block("")]));
            self.built(ms, p, b"");
        }
        assert!(req.done());
        assert!(req.outcomes().iter().all(|&(_, ok)| ok));
        for &p in panes {
            assert_eq!(self.status(p), Status::Live);
        }
    }

    fn status(&self, pane: PaneId) -> Status {
        self.shared
            .pane(pane)
            .map(|p| p.view().status)
            .expect("a copy")
    }

    /// The visible rows and cursor of `pane`'s copy.
    fn screen(&self, pane: PaneId) -> Screen {
        let p = self.shared.pane(pane).expect("a copy");
        let st = p.view();
        screen_of(st.term.as_ref().expect("a term"))
    }
}

/// A copy's visible rows (text, wrapped) and cursor (x, y).
type Screen = (Vec<(Vec<u8>, bool)>, (u32, u32));

fn screen_of(t: &Term) -> Screen {
    let c = t.cursor();
    (t.screen_rows(), (c.x.0, c.y.0))
}

/// What a fence's record says of a pane's state ([`probe::Queries::text`]'s
/// fields): an 80×24 pane, no history, the cursor at (`x`, 0).
fn state_values(pane: PaneId, x: u32) -> Vec<String> {
    let (id, x) = (pane.to_string(), x.to_string());
    [
        id.as_str(),
        "80",
        "24",
        "0",
        "2000",
        x.as_str(),
        "0",
        "0",
        "",
        "",
        "",
    ]
    .map(String::from)
    .to_vec()
}

/// One pane's record in a fence's answer, as tmux prints it for
/// [`probe::CHECK_FIELDS`]: [`state_values`], then no mode.
fn fence_record(q: &probe::Queries, pane: PaneId, x: u32) -> String {
    let mut values = state_values(pane, x);
    values.extend(["0", "", ""].map(String::from));
    assert_eq!(values.len(), probe::CHECK_FIELDS.len());
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    q.check.render(&values)
}

/// A fence's answer: one record per pane, the cursor at (`x`, 0).
fn fence_answer(q: &probe::Queries, panes: &[PaneId], x: u32) -> super::Answer {
    let mut body = String::new();
    for &p in panes {
        body.push_str(&fence_record(q, p, x));
        body.push('\n');
    }
    answer(vec![block(body)])
}

#[test]
fn a_seed_during_a_neighbours_flood_is_taken_again_hushed_and_ends_exact() {
    let mut rig = Rig::new();
    let mut req = rig.sync(0, &[A, B], Want::Current);
    // One seed line out at a time: A's first.
    let seed_a = rig.seed_of(A, 0);
    rig.answered(10, seed_a, answer(vec![block("")]));
    // A's copy is built while B's seed line goes.
    let from = rig.sent.len() - 1;
    let seed_b = rig.seed_of(B, from);
    rig.built(20, A, b"");
    assert_eq!(rig.status(A), Status::Live);

    // Past the grace a request gives: A floods while B's seed is out,
    // and B prints too, so B's output may have come early.
    let chunk = vec![b'x'; FLOOD_BYTES / 2 + 1];
    rig.output(3_000, A, &chunk);
    rig.output(3_001, B, b"b1\r\n");
    assert!(rig.lines_with(&["%1:pause"]).is_empty());
    rig.output(3_002, A, &chunk);
    // Nobody waits on A and no seed of it is under way: paused.
    let pause_a = rig.lines_with(&["%1:pause"]);
    assert_eq!(pause_a.len(), 1, "{:?}", rig.sent);

    // B's seed answer is ambiguous: not built, taken again hushed.
    let before = rig.sent.len();
    rig.answered(3_010, seed_b, answer(vec![block("")]));
    assert!(rig.builds.is_empty());
    let hush = rig.lines_with(&["%2:pause"]);
    assert_eq!(hush.len(), 1, "{:?}", &rig.sent[before..]);
    assert!(
        rig.lines_with(&["%2:continue"]).len() == 1,
        "no seed before the pause is in"
    );
    // Output of B before the pause's answer is in what the seed captures.
    rig.output(3_011, B, b"b2\r\n");
    rig.answered(3_012, pause_a[0], answer(vec![block("")]));
    let before = rig.sent.len();
    rig.answered(3_013, hush[0], answer(vec![block("")]));
    let seed_b = rig.seed_of(B, before);
    // tmux may write the hush's own %pause after its answer: not a pause
    // of the seed.
    rig.notify(3_014, Notification::Pause(B));
    // Output after the capture (the seed resumed B) is held ...
    rig.output(3_015, B, b"b3\r\n");
    rig.answered(3_016, seed_b, answer(vec![block("")]));
    // ... and applied on top of the copy built from the capture.
    rig.built(3_020, B, b"b1\r\nb2\r\n");
    assert_eq!(rig.status(B), Status::Live);
    let whole = copy(&rig.shared, b"b1\r\nb2\r\nb3\r\n");
    assert_eq!(rig.screen(B), screen_of(&whole));
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true), (B, true)]);
    // Only the seeds above were sent: B was seeded twice, A once.
    assert_eq!(rig.lines_with(&["capture-pane"]).len(), 3);
}

#[test]
fn a_flooding_pane_is_paused_only_when_nobody_waits_on_it() {
    let mut rig = Rig::new();
    rig.live(0, &[A]);
    let chunk = vec![b'x'; FLOOD_BYTES + 1];
    // Within the grace a request gives a pane it asked for: followed.
    rig.output(1_000, A, &chunk);
    assert!(rig.lines_with(&["%1:pause"]).is_empty());
    // A wait follows it: followed.
    let waiting = rig.shared.pane(A).expect("a copy").subscribe();
    rig.output(3_000, A, &chunk);
    rig.output(3_300, A, &chunk);
    assert!(rig.lines_with(&["%1:pause"]).is_empty());
    // Nobody waits: paused.
    drop(waiting);
    rig.output(3_600, A, &chunk);
    let pause = rig.lines_with(&["%1:pause"]);
    assert_eq!(pause.len(), 1, "{:?}", rig.sent);
    // tmux stops sending its output once the pause is answered: the copy
    // is stale until the flood settles and a seed brings it back.
    rig.answered(3_610, pause[0], answer(vec![block("")]));
    assert_eq!(rig.status(A), Status::Stale);
    assert_eq!(
        rig.w.flood_due(),
        Some(rig.t0 + Duration::from_millis(3_850))
    );
}

#[test]
fn a_fence_answered_while_two_panes_printed_fences_without_comparing() {
    let mut rig = Rig::new();
    rig.live(0, &[A, B]);
    let q = rig.shared.query.clone();
    // Records that disagree with both copies (the cursor is elsewhere).
    let mut req = rig.sync(5_000, &[A, B], Want::Current);
    let fence = rig.lines_with(&["list-panes -s"]);
    assert_eq!(fence.len(), 1);
    rig.output(5_001, A, b"a\r\n");
    rig.output(5_002, B, b"b\r\n");
    let seeds = rig.lines_with(&["capture-pane"]).len();
    rig.answered(5_003, fence[0], fence_answer(&q, &[A, B], 7));
    // Both printed during the fence: the records may predate output
    // already applied, so they are not compared; the fence holds.
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true), (B, true)]);
    assert_eq!(rig.lines_with(&["capture-pane"]).len(), seeds);
    assert_eq!(rig.status(A), Status::Live);
    assert_eq!(rig.status(B), Status::Live);

    // One pane printed: nothing came early, so the records are compared
    // and the copies they disagree with are seeded again.
    let mut req = rig.sync(6_000, &[A, B], Want::Current);
    let fence = rig.lines_with(&["list-panes -s"]);
    rig.output(6_001, A, b"a\r\n");
    let before = rig.sent.len();
    rig.answered(6_002, fence[1], fence_answer(&q, &[A, B], 7));
    assert!(!req.done());
    let seed_a = rig.seed_of(A, before);
    assert_eq!(rig.status(A), Status::Stale);
    assert_eq!(rig.status(B), Status::Stale);
    // B's seed waits for A's (one out at a time).
    let before = rig.sent.len();
    rig.answered(6_010, seed_a, answer(vec![block("")]));
    let seed_b = rig.seed_of(B, before);
    rig.built(6_011, A, b"a\r\na\r\n");
    rig.answered(6_012, seed_b, answer(vec![block("")]));
    rig.built(6_013, B, b"b\r\n");
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true), (B, true)]);
}

#[test]
fn a_pause_during_a_seed_seeds_again() {
    let mut rig = Rig::new();
    let mut req = rig.sync(0, &[A], Want::Current);
    let first = rig.seed_of(A, 0);
    // tmux paused A (its output was dropped) while the seed was out.
    rig.notify(1, Notification::Pause(A));
    assert_eq!(rig.lines_with(&["capture-pane"]).len(), 1);
    let before = rig.sent.len();
    rig.answered(2, first, answer(vec![block("")]));
    assert!(
        rig.builds.is_empty(),
        "a seed paused on its way is not built"
    );
    let second = rig.seed_of(A, before);
    assert!(!req.done());

    // Paused again while the second is built: a third.
    rig.answered(3, second, answer(vec![block("")]));
    rig.notify(4, Notification::Pause(A));
    let before = rig.sent.len();
    rig.built(5, A, b"lost\r\n");
    assert_eq!(rig.status(A), Status::Unseeded);
    let third = rig.seed_of(A, before);
    assert!(!req.done());

    rig.answered(6, third, answer(vec![block("")]));
    rig.output(7, A, b"after\r\n");
    rig.built(8, A, b"lost\r\n");
    assert_eq!(rig.status(A), Status::Live);
    assert_eq!(
        rig.screen(A),
        screen_of(&copy(&rig.shared, b"lost\r\nafter\r\n"))
    );
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true)]);
}

/// One pane's record in a text fence's answer ([`Want::Text`]):
/// [`state_values`] alone.
fn text_answer(q: &probe::Queries, pane: PaneId, x: u32) -> super::Answer {
    text_answers_at(q, &[(pane, x)])
}

#[test]
fn a_text_fence_asks_no_mode_keeps_the_copys_and_still_compares_the_rest() {
    let mut rig = Rig::new();
    rig.live(0, &[A]);
    let q = rig.shared.query.clone();
    let in_copy_mode = crate::mirror::pane::PaneMode {
        in_mode: true,
        mode: Some("copy-mode".into()),
        scroll_position: Some(3),
    };
    if let Some(p) = rig.shared.pane(A) {
        p.write().mode = in_copy_mode.clone();
    }
    // A search's fence: the session's panes without their modes.
    let mut req = rig.sync(1_000, &[A], Want::Text);
    let fence = rig.lines_with(&["list-panes -s", "history_size"]);
    assert_eq!(fence.len(), 1, "{:?}", rig.sent);
    let line = &rig.sent.last().expect("the fence").1;
    assert!(!line.contains("pane_mode") && !line.contains("scroll_position"));
    rig.answered(1_001, fence[0], text_answer(&q, A, 0));
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true)]);
    let mode = rig.shared.pane(A).map(|p| p.view().mode().clone());
    assert_eq!(mode, Some(in_copy_mode), "the copy keeps the mode it knew");

    // A record that disagrees (the cursor is elsewhere) seeds the copy again.
    let mut req = rig.sync(2_000, &[A], Want::Text);
    let fence = rig.lines_with(&["list-panes -s", "history_size"]);
    let before = rig.sent.len();
    rig.answered(2_001, fence[1], text_answer(&q, A, 7));
    assert_eq!(rig.status(A), Status::Stale);
    let seed = rig.seed_of(A, before);
    rig.answered(2_010, seed, answer(vec![block("")]));
    rig.built(2_011, A, b"");
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true)]);
}

#[test]
fn a_copy_a_fence_finds_as_it_was_is_not_written_and_its_shared_snapshot_stays() {
    let mut rig = Rig::new();
    rig.live(0, &[A]);
    let q = rig.shared.query.clone();
    let Some(p) = rig.shared.pane(A) else {
        panic!("no copy of {A}");
    };
    let mut fences = 0;
    let mut search = |rig: &mut Rig, ms: u64, x: u32| {
        let mut req = rig.sync(ms, &[A], Want::Text);
        let fence = rig.lines_with(&["list-panes -s", "history_size"]);
        rig.answered(ms + 1, fence[fences], text_answer(&q, A, x));
        fences += 1;
        assert!(req.done());
        req.outcomes()
    };
    assert_eq!(search(&mut rig, 1_000, 0), vec![(A, true)]);
    let before = p.shared_snapshot();
    // A search that finds the copy agreeing with tmux writes nothing: the
    // next scan reads the snapshot the last one took.
    assert_eq!(search(&mut rig, 2_000, 0), vec![(A, true)]);
    let after = p.shared_snapshot();
    assert!(
        Arc::ptr_eq(&before, &after),
        "an agreeing fence wrote the copy"
    );
    // Output makes a new one, which holds it.
    rig.output(3_000, A, b"more");
    let fresh = p.shared_snapshot();
    assert!(!Arc::ptr_eq(&after, &fresh));
    let line = fresh.term().map(screen_of);
    assert_ne!(line, after.term().map(screen_of));
    // Its screen lines are laid out once, by the first scan that reads
    // them, and are the copy's own.
    let held = fresh.screen_lines().map(|l| l as *const _);
    assert!(held.is_some() && held == fresh.screen_lines().map(|l| l as *const _));
    let Some(t) = fresh.term() else {
        panic!("no term in the snapshot");
    };
    let own = |l: &crate::mirror::scan::ScreenLines| format!("{l:?}");
    assert_eq!(
        fresh.screen_lines().map(own),
        Some(own(&crate::mirror::scan::ScreenLines::of(t)))
    );
}

/// A constant fence's answer for `$1`, `variation-selector-always-wide`
/// printed as `vs16` (empty: not compared) and the other options empty.
fn barrier_answer(q: &probe::Queries, vs16: &str) -> super::Answer {
    let line = q.barrier.render(&["$1", "", "", vs16]);
    answer(vec![block(format!("{line}\n"))])
}

/// A text fence's answer with one record per pane ([`text_answer`]'s).
fn text_answers(q: &probe::Queries, panes: &[PaneId]) -> super::Answer {
    let at: Vec<(PaneId, u32)> = panes.iter().map(|&p| (p, 0)).collect();
    text_answers_at(q, &at)
}

/// A text fence's answer with one record per pane, its cursor at (`x`, 0).
fn text_answers_at(q: &probe::Queries, panes: &[(PaneId, u32)]) -> super::Answer {
    let mut body = String::new();
    for &(p, x) in panes {
        let values = state_values(p, x);
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        body.push_str(&q.text.render(&values));
        body.push('\n');
    }
    answer(vec![block(body)])
}

#[test]
fn text_syncs_close_together_take_a_constant_fence_and_compare_again_when_due() {
    let mut rig = Rig::new();
    rig.live(0, &[A, B]);
    let q = rig.shared.query.clone();
    let full = |rig: &Rig| rig.lines_with(&["list-panes -s", "history_size"]);
    let barriers = |rig: &Rig| rig.lines_with(&["display-message", "session_id"]);
    let search = |rig: &mut Rig, ms: u64| -> (Vec<u64>, Vec<u64>, Request) {
        let req = rig.sync(ms, &[A, B], Want::Text);
        (full(rig), barriers(rig), req)
    };

    // The first compares every copy (a record per pane).
    let (f, b, mut req) = search(&mut rig, 1_000);
    assert_eq!((f.len(), b.len()), (1, 0), "{:?}", rig.sent);
    rig.answered(1_001, f[0], text_answers(&q, &[A, B]));
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true), (B, true)]);

    // One soon after takes one line of constant cost, whatever the panes;
    // output before its answer is in the copy, which is confirmed.
    let generation = rig.shared.layout_generation();
    let (f, b, mut req) = search(&mut rig, 1_100);
    assert_eq!((f.len(), b.len()), (1, 1), "{:?}", rig.sent);
    rig.output(1_101, A, b"more");
    assert!(!req.done());
    rig.answered(1_102, b[0], barrier_answer(&q, ""));
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true), (B, true)]);
    assert_eq!(
        rig.shared.layout_generation(),
        generation,
        "output changes no layout"
    );

    // A call that may have changed a pane without output: compared again.
    rig.shared.note_change();
    let (f, b, mut req) = search(&mut rig, 1_200);
    assert_eq!((f.len(), b.len()), (2, 1), "{:?}", rig.sent);
    // The record of A says the cursor moved by the output.
    let printed = || text_answers_at(&q, &[(A, 4), (B, 0)]);
    rig.answered(1_201, f[1], printed());
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true), (B, true)]);

    // Then constant again, until a second after the last comparison.
    let (f, b, mut req) = search(&mut rig, 1_300);
    assert_eq!((f.len(), b.len()), (2, 2));
    rig.answered(1_301, b[1], barrier_answer(&q, ""));
    assert!(req.done());
    let (f, b, mut req) = search(&mut rig, 1_200 + super::FULL_CHECK_EVERY.as_millis() as u64);
    assert_eq!((f.len(), b.len()), (3, 2), "{:?}", rig.sent);
    rig.answered(2_201, f[2], printed());
    assert!(req.done());

    // A layout option the copies do not follow (another client's `set -g`,
    // which no output tells): the constant fence's answer says so, and the
    // copies are compared before the request is answered.
    let copy_wide = rig.shared.pane(A).and_then(|p| {
        p.view()
            .term()
            .map(|t| t.options().variation_selector_always_wide)
    });
    let other = if copy_wide == Some(true) { "off" } else { "on" };
    let (f, b, mut req) = search(&mut rig, 2_300);
    assert_eq!((f.len(), b.len()), (3, 3), "{:?}", rig.sent);
    rig.answered(2_301, b[2], barrier_answer(&q, other));
    assert!(!req.done(), "confirmed without comparing");
    let f = full(&rig);
    assert_eq!(f.len(), 4, "{:?}", rig.sent);
    rig.answered(2_302, f[3], printed());
    assert!(req.done());
}

#[test]
fn a_notification_before_a_constant_fences_answer_makes_it_compare_the_copies() {
    let mut rig = Rig::new();
    rig.live(0, &[A]);
    let q = rig.shared.query.clone();
    let mut req = rig.sync(1_000, &[A], Want::Text);
    let f = rig.lines_with(&["list-panes -s", "history_size"]);
    rig.answered(1_001, f[0], text_answer(&q, A, 0));
    assert!(req.done());

    let generation = rig.shared.layout_generation();
    let mut req = rig.sync(1_100, &[A], Want::Text);
    let b = rig.lines_with(&["display-message", "session_id"]);
    assert_eq!(b.len(), 1, "{:?}", rig.sent);
    // A resize (or a pane gone) tmux told before the fence's answer: the
    // watch lists the panes again, and the copies are compared after.
    rig.notify(
        1_101,
        Notification::LayoutChange {
            window: crate::control::WindowId(1),
            layout: "x".into(),
        },
    );
    assert_ne!(rig.shared.layout_generation(), generation);
    let list = rig.lines_with(&["list-panes -a"]);
    assert_eq!(list.len(), 1, "{:?}", rig.sent);
    rig.answered(1_102, b[0], barrier_answer(&q, ""));
    assert!(!req.done(), "confirmed before the copies were compared");
    let f = rig.lines_with(&["list-panes -s", "history_size"]);
    assert_eq!(f.len(), 2, "{:?}", rig.sent);
    rig.answered(1_103, list[0], None);
    rig.answered(1_104, f[1], text_answer(&q, A, 0));
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, true)]);

    // Renames move the generation too; a refused fence (the session is
    // gone) confirms nothing.
    let generation = rig.shared.layout_generation();
    rig.notify(
        1_200,
        Notification::WindowRenamed {
            window: crate::control::WindowId(1),
            name: "n".into(),
        },
    );
    assert_ne!(rig.shared.layout_generation(), generation);
    let mut req = rig.sync(1_300, &[A], Want::Text);
    let b = rig.lines_with(&["display-message", "session_id"]);
    assert_eq!(b.len(), 2, "{:?}", rig.sent);
    let refused = Some(Ok(Reply {
        blocks: vec![Block {
            ok: false,
            ..block("can't find session: $1\n")
        }],
        stray: Vec::new(),
    }));
    rig.answered(1_301, b[1], refused);
    assert!(req.done());
    assert_eq!(req.outcomes(), vec![(A, false)]);
}
