//! The scan units of a search: copies the mirror holds, scanned a few
//! to a blocking thread, and panes captured from tmux once; each gives
//! one [`Searched`] per pane, made into a [`PaneContentMatch`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::listed::{Facts, ListedPane};
use super::{PaneContentMatch, SearchPanesRequest, Server};
use crate::control::PaneId;
use crate::mirror::scan::{Scan, ScreenLines, scan_with};
use crate::mirror::{PaneMirror, Status};
use crate::search::Pattern;
use crate::term::Term;
use crate::tmux::Error;
use crate::tmux::copy;
use crate::tmux::model::Source;
use crate::tmux::op::commands::{self, CommandPick};

/// One pane's outcome.
pub(super) struct Searched {
    pub(super) facts: Facts,
    pub(super) scan: Scan,
    source: Source,
    dead: bool,
    exit_status: Option<i32>,
    alternate: bool,
    capped: u64,
}

/// Sets a flag when dropped: a cancelled search (its future dropped) stops
/// the scans still running on blocking threads.
pub(super) struct CancelOnDrop(pub(super) Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Copies one blocking task scans one after the other, at most: a task
/// per pane cost a hand-off between threads per pane, most of a 50-pane
/// search on a busy machine. The copies are split evenly over as many
/// tasks as scan at once ([`copies_per_task`]), so a search waits for one
/// round of hand-offs whatever the number of panes; at most as many tasks'
/// lines as run at once wait for the collector.
const COPIES_PER_TASK: usize = 32;

/// Copies per blocking task for `items` panes scanned `parallel` tasks at
/// a time: one round of tasks when [`COPIES_PER_TASK`] allows it.
pub(super) fn copies_per_task(items: usize, parallel: usize) -> usize {
    items.div_ceil(parallel.max(1)).clamp(1, COPIES_PER_TASK)
}

/// What answers some panes of a search, in the order they are listed.
pub(super) enum Unit {
    /// Copies the mirror holds (each with its pane's listing; none for a
    /// pane that is gone), scanned one after the other on a blocking
    /// thread.
    Copies(Vec<(Option<Facts>, Arc<PaneMirror>)>),
    /// A listed pane the mirror does not hold: a copy made once from
    /// tmux's captures answers it.
    Capture(usize),
}

/// Searches a listed pane the mirror does not hold, from a copy made once
/// from tmux's captures. `None` when the pane went away.
pub(super) async fn search_captured(
    server: &Server,
    listed: &ListedPane,
    req: &SearchPanesRequest,
    cancel: &Arc<AtomicBool>,
) -> Result<Option<Searched>, Error> {
    let facts = Facts::of_listing(listed);
    let Ok(id) = facts.pane_id.parse::<PaneId>() else {
        return Ok(None);
    };
    let Some(built) = copy::copy_pane(server, id).await? else {
        return Ok(None);
    };
    let wanted = Wanted::of(req);
    let cancel = cancel.clone();
    let task = tokio::task::spawn_blocking(move || {
        let t = &built.term;
        (wanted.scan(t, None, &cancel), t.alternate_on())
    });
    let (scan, alternate) = task.await.map_err(|e| scan_failed(id, &e))?;
    Ok(Some(Searched {
        facts,
        scan,
        source: Source::Capture,
        dead: false,
        exit_status: None,
        alternate,
        capped: 0,
    }))
}

/// What a search scans each pane for, taken from its request once and
/// handed to the blocking threads that scan.
struct Wanted {
    pattern: Arc<Pattern>,
    /// The searched range (inclusive tmux line numbers; `None`:
    /// everything).
    range: Option<(i64, i64)>,
    command: Option<CommandPick>,
    keep: usize,
    redact: bool,
}

impl Wanted {
    fn of(req: &SearchPanesRequest) -> Wanted {
        Wanted {
            pattern: req.pattern.clone(),
            range: req.lines.bounds(),
            command: req.command,
            keep: req.max_matched_lines_per_pane,
            redact: req.redact,
        }
    }

    /// Scans `t` over the range, narrowed to the output of the command
    /// when the search is scoped to one: no matches when `t`'s table has
    /// no such command or the two do not overlap. `screen`: `t`'s screen
    /// lines, when a snapshot holds them made ([`scan_with`]).
    fn scan(&self, t: &Term, screen: Option<&ScreenLines>, cancel: &AtomicBool) -> Scan {
        let scan = |range| {
            scan_with(
                t,
                screen,
                &self.pattern,
                range,
                self.keep,
                cancel,
                self.redact,
            )
        };
        let Some(pick) = self.command else {
            return scan(self.range);
        };
        let Some((lo, hi)) = commands::output_rows(t, pick) else {
            return Scan::default();
        };
        let (lo, hi) = match self.range {
            None => (lo, hi),
            Some((a, b)) => (lo.max(a), hi.min(b)),
        };
        if lo > hi {
            return Scan::default();
        }
        scan(Some((lo, hi)))
    }
}

/// A scan task that did not finish: a bug (a panic in the scan), said as
/// such, never "no matches" and never a connection to retry.
fn scan_failed(id: PaneId, e: &tokio::task::JoinError) -> Error {
    let what = if e.is_panic() {
        "panicked"
    } else {
        "was cancelled"
    };
    Error::internal(format!("search: the scan of pane {id} {what}: {e}"))
}

pub(super) fn pane_match(server: &Server, s: Searched) -> PaneContentMatch {
    let Searched {
        facts,
        scan,
        source,
        dead,
        exit_status,
        alternate,
        capped,
    } = s;
    let m = facts.meta;
    PaneContentMatch {
        is_caller: server.is_caller(&facts.pane_id),
        pane_id: facts.pane_id,
        pane_current_command: m.pane_current_command,
        window_id: m.window_id,
        window_name: m.window_name,
        session_id: m.session_id,
        session_name: m.session_name,
        window_index: m.window_index,
        pane_index: m.pane_index,
        pane_current_path: m.pane_current_path,
        matched_line_numbers: scan.hits.iter().map(|h| h.line).collect(),
        matched_line_rows: scan.hits.iter().map(|h| h.rows).collect(),
        matched_at: scan
            .hits
            .iter()
            .map(|h| {
                let a = h.at;
                [
                    a.row,
                    i64::from(a.column),
                    i64::try_from(a.char).unwrap_or(i64::MAX),
                    i64::try_from(a.byte).unwrap_or(i64::MAX),
                ]
            })
            .collect(),
        matched_screens: alternate.then(|| scan.hits.iter().map(|h| h.screen).collect()),
        matched_lines: scan.hits.into_iter().map(|h| h.text).collect(),
        matched_line_count: scan.count,
        source,
        pane_dead: dead,
        exit_status,
        capped_history_rows: (capped > 0).then_some(capped),
    }
}

/// Scans tmuxwire's copies of some panes on a blocking thread, one after
/// the other: live copies tmux has just confirmed (with their listing), or
/// copies of panes that are gone (then marked dead, with their program's
/// exit status and the history rows they never held).
///
/// # Errors
///
/// [`ErrorKind::Internal`](crate::tmux::ErrorKind::Internal) when the scan
/// panicked (said once, for the group).
///
/// `local`: the local server's pid, when the mirror knows it: a live pane
/// with matches then has its process and directory read here
/// ([`Facts::read_process`]).
pub(super) async fn scan_copies(
    group: Vec<(Option<Facts>, Arc<PaneMirror>)>,
    req: &SearchPanesRequest,
    cancel: Arc<AtomicBool>,
    local: Option<u32>,
) -> Vec<Result<Option<Searched>, Error>> {
    let wanted = Wanted::of(req);
    let first = group.first().map(|(_, p)| p.id);
    let done = tokio::task::spawn_blocking(move || {
        group
            .into_iter()
            .map(|(listed, p)| {
                // Scanned from a snapshot: the watch task applying the
                // pane's output never waits behind the scan. An idle
                // pane's is the one the last search took.
                let st = p.shared_snapshot();
                let (scan, alternate) = match st.term() {
                    Some(t) => (wanted.scan(t, st.screen_lines(), &cancel), t.alternate_on()),
                    None => (Scan::default(), false),
                };
                let dead = listed.is_none() && st.status() == Status::Dead;
                let facts = match (listed, local) {
                    (Some(mut f), Some(server_pid)) if scan.count > 0 => {
                        f.read_process(server_pid);
                        f
                    }
                    (Some(f), _) => f,
                    (None, _) => Facts {
                        pane_id: p.id.to_string(),
                        meta: st.meta().clone(),
                        pane_pid: None,
                    },
                };
                Ok(Some(Searched {
                    facts,
                    scan,
                    source: Source::Mirror,
                    dead,
                    exit_status: st.exit_status(),
                    alternate,
                    capped: st.capped_rows() + if dead { st.absent_rows() } else { 0 },
                }))
            })
            .collect()
    })
    .await;
    done.unwrap_or_else(|e| vec![Err(scan_failed(first.unwrap_or(PaneId(0)), &e))])
}
