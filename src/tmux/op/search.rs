//! `search_panes`: find the logical lines that match a pattern in many
//! panes' scrollback and screen.
//!
//! One `list-panes` gives the panes in scope. Each pane is then answered
//! from one of two sources:
//!
//! * **the mirror** ([`crate::mirror`]), when tmuxwire holds a copy of the
//!   pane that tmux has just confirmed (the mirror fences every copy, one
//!   round trip per session whatever the number of panes, before a
//!   search; a copy of the screen only is filled first when the search
//!   reaches the history): the copy's history is scanned as chunks of
//!   logical lines at memory speed, a few copies per blocking thread, with
//!   exact tmux line numbers and match positions from the grid. Copies of
//!   panes that have since vanished (their program exited) are searched
//!   too, marked `pane_dead`.
//! * **a capture** otherwise (a pane the mirror could not seed, or the
//!   mirror is off): a copy made once from tmux's captures
//!   ([`crate::tmux::copy`], the mirror's own seed), [`CAPTURES_IN_FLIGHT`]
//!   panes at a time, and scanned the same way. Both sources give the same
//!   lines, line numbers and positions for the same pane.
//!
//! Each pane's result says which source answered (`source`). The page is
//! cut to the caller's limit by [`SearchPanesResult`]'s
//! [`Fit`](super::Fit) impl (in [`super::fit`]), the one place its size
//! rules live.

mod listed;
mod result;
mod scan;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use futures::StreamExt;

use super::commands::CommandPick;
use super::fit::{self, Limit};
use super::{Op, Server};
use crate::control::{PaneId, SessionId, Target};
use crate::mirror::{Mirror, PaneMeta, PaneMirror, Progress, Scope as DeadScope, Status, Want};
use crate::search::Pattern;
use crate::term::LineNo;
use crate::tmux::{Error, PaneScope, Selector};
pub(crate) use listed::KeptListing;
use listed::{Facts, ListedPane, fill_processes};
pub use result::{PaneContentMatch, SearchPanesResult};
use scan::{CancelOnDrop, Unit, copies_per_task, pane_match, scan_copies, search_captured};

/// `search_panes`: the lines matching a pattern in many panes.
#[derive(Clone)]
pub struct SearchPanesRequest {
    /// The compiled pattern (compiled once, shared by every pane's scan).
    pub pattern: Arc<Pattern>,
    /// The session whose panes to search; `None`: every pane.
    pub session: Option<Selector>,
    /// Only this pane (`%N`), of those in scope; `None`: every pane in
    /// scope.
    pub pane: Option<String>,
    /// The lines to search (`content_start`, `content_end`).
    pub lines: LineRange,
    /// Only the output of this command of each pane (its shell's
    /// marks; [`super::commands::output_rows`]), within the range above;
    /// a pane without it has no matches.
    pub command: Option<CommandPick>,
    /// Matched lines kept per pane (the newest ones), at least 1.
    pub max_matched_lines_per_pane: usize,
    /// Panes per page (`None`: all).
    pub limit: Option<usize>,
    /// Panes skipped before the page.
    pub offset: usize,
    /// Where to report progress (seeding the mirror, panes searched).
    pub progress: Option<Progress>,
    /// Redaction is on: a match that overlaps a secret does not count
    /// ([`crate::mirror::scan::scan_with`]), so a search for a secret's
    /// text finds nothing to return.
    pub redact: bool,
    /// Take the mirror's copies as they are, without the round trip that
    /// proves them current (the tool's `fenced: false`; [`Want::AsIs`]).
    pub as_is: bool,
}

/// The lines a search reads of each pane, in tmux numbering (0 is the
/// top of the screen, negative numbers are history lines); the default
/// reads them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineRange {
    /// The first line; `None`: the oldest history line.
    pub start: Option<LineNo>,
    /// The last line; `None`: the bottom of the screen.
    pub end: Option<LineNo>,
}

impl LineRange {
    /// The first and last line, an open end as `i64::MIN` or `i64::MAX`;
    /// `None` when neither end is given (every line).
    fn bounds(&self) -> Option<(i64, i64)> {
        match (self.start, self.end) {
            (None, None) => None,
            (s, e) => Some((s.map_or(i64::MIN, |l| l.0), e.map_or(i64::MAX, |l| l.0))),
        }
    }
}

impl Op for SearchPanesRequest {
    type Response = SearchPanesResult;

    /// # Errors
    ///
    /// As [`search_panes`].
    async fn run(self, server: &Server, limit: Limit) -> Result<SearchPanesResult, Error> {
        let scope = match &self.session {
            None => PaneScope::All,
            Some(sel) => PaneScope::Session(server.resolve_session(sel).await?),
        };
        search_panes(server, &self, &scope, limit).await
    }

    fn redacting(self, on: bool) -> SearchPanesRequest {
        SearchPanesRequest { redact: on, ..self }
    }

    fn reads_only(&self) -> bool {
        true
    }
}

/// Whether a history of `size` lines of at most `limit` has most likely
/// been trimmed: tmux drops `max(limit / 10, 1)` lines each time it is
/// full, so a trimmed history never falls below `limit - limit / 10`.
pub fn history_at_limit(size: i64, limit: i64) -> bool {
    limit > 0 && size > 0 && size >= limit - (limit / 10).max(1)
}

/// Captures requested from tmux at once during a search.
const CAPTURES_IN_FLIGHT: usize = 2;

/// Bytes of matched lines one answer carries at most without a response
/// limit (about 1 MiB of text; with one, the limit); older lines beyond
/// it are left out and counted in [`SearchPanesResult::lines_omitted`]
/// (see the [`fit::Fit`] impl of [`SearchPanesResult`]).
pub const RESPONSE_BUDGET: usize = 1 << 20;

/// The largest line number `capture-pane` accepts (`SHRT_MAX`); larger
/// values are silently ignored by tmux, so they are clamped here.
pub const MAX_LINE_ARG: i64 = i16::MAX as i64;

/// A pane to search: listed by tmux, or a copy of a pane that is gone.
enum Item {
    Listed(usize),
    Gone(Arc<PaneMirror>),
}

/// Runs a search over the panes of `scope` (see the module docs).
///
/// Panes are searched in order, a few at a time; only the page's panes
/// keep their lines, and only as many as fit the limit (or
/// [`RESPONSE_BUDGET`] without one): the collector applies the first rule
/// of [`SearchPanesResult`]'s [`Fit`](fit::Fit) as each pane arrives, so
/// memory stays bounded however many lines match, and [`super::run`]'s
/// cut then finds those lines already fitting.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing session scope; connection
/// errors; [`ErrorKind::Internal`](crate::tmux::ErrorKind::Internal) when
/// a pane's scan panicked. A pane that disappears during the search is
/// skipped.
pub async fn search_panes(
    server: &Server,
    req: &SearchPanesRequest,
    scope: &PaneScope,
    limit: Limit,
) -> Result<SearchPanesResult, Error> {
    let mirror = server.mirror().await;
    let started = std::time::Instant::now();
    let (mut panes, mut listed_at, mut kept) =
        panes_of(server, scope, mirror.as_ref(), true).await?;
    let listed = started.elapsed();
    let version = server.version().await?;
    let note = (!version.at_least(3, 6) && req.pattern.mentions_tab()).then(|| {
        format!(
            "tmux {} keeps no TABs: a TAB moves the cursor and leaves blank cells, which \
             read as spaces (tmux 3.6 and later keep them). Match the spaces instead, \
             e.g. the regex ` +` where the TAB was.",
            version.as_str()
        )
    });
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));

    let mut confirmed = std::collections::HashSet::new();
    let mut dead = Vec::new();
    if let Some(m) = &mirror {
        loop {
            let list: Vec<(PaneId, SessionId, PaneMeta)> = panes
                .iter()
                .filter_map(|p| {
                    Some((
                        p.pane_id.parse().ok()?,
                        p.meta.session_id.parse().ok()?,
                        p.meta.clone(),
                    ))
                })
                .collect();
            // A search that reaches into the history reads it (a copy of
            // the screen only is filled first).
            let want = if req.lines.start.is_some_and(|s| s.0 >= 0) {
                Want::current(req.as_is)
            } else {
                Want::Text
            };
            confirmed = m
                .sync_within(&list, want, req.progress.as_ref(), None)
                .await;
            // A kept listing is tmux's if no notification came before
            // the fences' answers (`Mirror::layout_generation`); else the
            // panes are listed and synced again.
            if let Some(k) = &kept
                && k.moved(m)
            {
                (panes, listed_at, kept) = panes_of(server, scope, mirror.as_ref(), false).await?;
                continue;
            }
            let alive: std::collections::HashSet<PaneId> =
                list.iter().map(|(p, _, _)| *p).collect();
            if *scope == PaneScope::All {
                m.mark_gone(&alive, listed_at);
            }
            let dead_scope = match scope {
                PaneScope::All => Some(DeadScope::Server),
                PaneScope::Session(Target::Session(s)) => Some(DeadScope::Session(*s)),
                _ => None,
            };
            dead = dead_scope.map(|s| m.dead_in(s)).unwrap_or_default();
            dead.retain(|p| !alive.contains(&p.id));
            break;
        }
    }
    let panes_history_at_limit = panes
        .iter()
        .filter(|p| req.pane.as_ref().is_none_or(|only| p.pane_id == *only))
        .filter(|p| {
            // A kept listing's fill may be a second old: the confirmed
            // copy's is current.
            let copy = match (&kept, &mirror) {
                (Some(_), Some(m)) => copy_history(m, &confirmed, &p.pane_id),
                _ => None,
            };
            copy.or(p.history_size.zip(p.history_limit))
                .is_some_and(|(size, limit)| history_at_limit(size, limit))
        })
        .map(|p| p.pane_id.clone())
        .collect();
    let mut items: Vec<Item> = (0..panes.len()).map(Item::Listed).collect();
    items.extend(dead.into_iter().map(Item::Gone));
    if let Some(only) = &req.pane {
        items.retain(|it| match it {
            Item::Listed(i) => panes[*i].pane_id == *only,
            Item::Gone(p) => p.id.to_string() == *only,
        });
    }
    let panes_searched = items.len();
    let synced = started.elapsed();
    let parallel = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(CAPTURES_IN_FLIGHT);
    let per_task = copies_per_task(items.len(), parallel);
    // A local server's pid (known to the mirror): the scans read their
    // matched panes' processes from /proc as they go.
    let local = match server.endpoint().local_path() {
        Some(_) => server.mirrored_server_pid().await,
        None => None,
    };
    // A page that holds every pane searched holds every matched one (but
    // for the budget's cut): each scan reads its matched panes' processes
    // on its own thread. A smaller page has only its own read, once it is
    // known.
    let whole_page = req.offset == 0 && req.limit.is_none_or(|l| l >= panes_searched);
    let scans_read = local.filter(|_| whole_page);
    let units = plan(items, &panes, mirror.as_ref(), &confirmed, per_task);
    let panes = &panes;
    let flag = &cancel.0;
    let scans = futures::stream::iter(units)
        .map(|unit| async move {
            match unit {
                Unit::Copies(group) => scan_copies(group, req, flag.clone(), scans_read).await,
                Unit::Capture(i) => vec![search_captured(server, &panes[i], req, flag).await],
            }
        })
        .buffered(parallel)
        .flat_map(futures::stream::iter);
    futures::pin_mut!(scans);

    let page_start = req.offset;
    let page_end = req
        .limit
        .map_or(usize::MAX, |l| req.offset.saturating_add(l));
    let mut budget = limit.get().unwrap_or(RESPONSE_BUDGET);
    let mut matched = 0usize;
    let mut page: Vec<PaneContentMatch> = Vec::new();
    let mut truncated_panes = Vec::new();
    let mut lines_omitted = 0usize;
    let mut capped = false;
    let mut done = 0u64;
    while let Some(searched) = scans.next().await {
        done += 1;
        if let Some(p) = &req.progress {
            p(done, panes_searched as u64, "searching panes");
        }
        let Some(s) = searched? else {
            continue;
        };
        if s.scan.count == 0 {
            continue;
        }
        let k = matched;
        matched += 1;
        if k < page_start {
            continue;
        }
        if k >= page_end {
            truncated_panes.push(s.facts.pane_id.clone());
            continue;
        }
        let mut m = pane_match(server, s);
        capped |= m.matched_line_count > m.matched_lines.len();
        // Stop holding lines the answer cannot carry (Fit's first rule).
        lines_omitted += fit::keep_newest_lines(&mut m, &mut budget);
        page.push(m);
    }
    let scanned = started.elapsed();
    fill_processes(server, panes, &mut page, local, scans_read.is_some()).await;
    // Where a search's time goes (`TMUXWIRE_LOG=tmuxwire=debug`), each
    // phase's end from the listing's start.
    tracing::debug!(
        panes = panes_searched,
        matched,
        ?listed,
        ?synced,
        ?scanned,
        filled = ?started.elapsed(),
        kept = kept.is_some(),
        "search phases"
    );
    let truncated = !truncated_panes.is_empty() || lines_omitted > 0 || capped;
    Ok(SearchPanesResult {
        matches: page,
        truncated,
        truncated_panes,
        total_panes_matched: matched,
        offset: req.offset,
        limit: req.limit,
        panes_searched,
        lines_omitted,
        panes_history_at_limit,
        note,
        next: None,
    })
}

/// The panes in `scope` as the search lists them (each once), when they
/// were asked, and the kept listing they are (`None`: listed now). With a
/// mirror and `keep`, a listing an earlier search kept is taken while it
/// holds ([`KeptListing::holds`]); a new one is kept for the searches that
/// follow.
///
/// # Errors
///
/// As [`listed::list_named`].
async fn panes_of(
    server: &Server,
    scope: &PaneScope,
    mirror: Option<&Arc<Mirror>>,
    keep: bool,
) -> Result<
    (
        Arc<Vec<ListedPane>>,
        std::time::Instant,
        Option<Arc<KeptListing>>,
    ),
    Error,
> {
    let now = std::time::Instant::now();
    if keep
        && let Some(m) = mirror
        && let Some(k) = server.kept_listing().filter(|k| k.holds(m, scope, now))
    {
        return Ok((k.panes.clone(), k.at, Some(k)));
    }
    let generation = mirror.map(|m| listed::generation(m));
    // Copies seeded after this may be of panes newer than the listing
    // (`Mirror::mark_gone`).
    let listed_at = std::time::Instant::now();
    let mut panes = listed::list_named(server, scope).await?;
    // Linked windows and grouped sessions list a pane more than once.
    let mut seen = std::collections::HashSet::new();
    panes.retain(|p| seen.insert(p.pane_id.clone()));
    let panes = Arc::new(panes);
    if let (Some(m), Some(g)) = (mirror, generation) {
        let k = KeptListing::new(m, scope, g, listed_at, panes.clone());
        server.keep_listing(Arc::new(k));
    }
    Ok((panes, listed_at, None))
}

/// The history's fill of `pane`'s copy, as tmux's `(#{history_size},
/// #{history_limit})`, when its sync confirmed it.
fn copy_history(
    m: &Arc<Mirror>,
    confirmed: &std::collections::HashSet<PaneId>,
    pane: &str,
) -> Option<(i64, i64)> {
    let id: PaneId = pane.parse().ok()?;
    if !confirmed.contains(&id) {
        return None;
    }
    let copy = m.pane(id)?;
    let st = copy.view();
    let t = st.term()?;
    let size = i64::try_from(t.history_size() + t.history_absent()).ok()?;
    Some((size, i64::try_from(t.history_limit()).ok()?))
}

/// Which source answers each item, grouped into [`Unit`]s in order: a
/// listed pane whose copy tmux just confirmed, or a copy of a pane that is
/// gone, is scanned with its neighbours; any other listed pane is
/// captured. A unit holds at most `per_task` copies.
fn plan(
    items: Vec<Item>,
    panes: &[ListedPane],
    mirror: Option<&Arc<Mirror>>,
    confirmed: &std::collections::HashSet<PaneId>,
    per_task: usize,
) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut group = Vec::new();
    for item in items {
        let copy = match item {
            Item::Gone(p) => Ok((None, p)),
            Item::Listed(i) => panes[i]
                .pane_id
                .parse::<PaneId>()
                .ok()
                .filter(|id| confirmed.contains(id))
                .and_then(|id| mirror?.pane(id))
                .filter(|p| p.view().status() == Status::Live)
                .map(|p| (Some(Facts::of_listing(&panes[i])), p))
                .ok_or(i),
        };
        match copy {
            Ok(c) => {
                group.push(c);
                if group.len() == per_task {
                    units.push(Unit::Copies(std::mem::take(&mut group)));
                }
            }
            Err(i) => {
                // The answer keeps the listing's order.
                if !group.is_empty() {
                    units.push(Unit::Copies(std::mem::take(&mut group)));
                }
                units.push(Unit::Capture(i));
            }
        }
    }
    if !group.is_empty() {
        units.push(Unit::Copies(group));
    }
    units
}
