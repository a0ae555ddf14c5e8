//! `search_panes`: find the logical lines that match a pattern in many
//! panes' scrollback and screen.
//!
//! One `list-panes` gives the panes in scope. Each pane is then answered
//! from one of two sources:
//!
//! * **the mirror** ([`crate::mirror`]), when tmuxwire holds a copy of the
//!   pane that tmux has just confirmed (the mirror checks every copy in one
//!   round trip per session before a search): the copy's history is
//!   scanned as chunks of logical lines at memory speed, on blocking
//!   threads, with exact tmux line numbers and match positions from the
//!   grid. Copies of panes that have since vanished (their program exited)
//!   are searched too, marked `pane_dead`.
//! * **a capture** otherwise (a pane the mirror could not seed, or the
//!   mirror is off): `capture-pane -J` through a paste buffer, pipelined
//!   [`CAPTURES_IN_FLIGHT`] at a time and scanned as it arrives. Row counts
//!   come from the width model ([`crate::term::width`]) and are checked
//!   against the captured range's row count; a pane that disagrees is
//!   captured again joined and row by row in one write and its rows
//!   counted by aligning the two ([`align_rows`]).
//!
//! Each pane's result says which source answered (`source`). The page is
//! cut to the caller's limit by [`SearchPanesResult`]'s
//! [`Fit`](super::Fit) impl (in [`super::fit`]), the one place its size
//! rules live.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;

use schemars::JsonSchema;
use serde::Serialize;

use super::capture::state_and_text;
use super::fit::{self, Limit};
use super::{Op, Server};
use crate::control::format::Query;
use crate::control::{Command, PaneId, SessionId, Target, TargetKind};
use crate::mirror::scan::{Hit, Position, Scan, Screen, scan};
use crate::mirror::{Mirror, PaneMeta, PaneMirror, Progress, Scope as DeadScope, Status};
use crate::search::Pattern;
use crate::search::hit::excerpt;
use crate::term::width::{self, Rules};
use crate::term::{
    ByteOffset, LineNo, LogicalLine, bottom_line, keep_tail, split_lines, top_line, trim_end_spaces,
};
use crate::tmux::model::Source;
use crate::tmux::target::pane_lookup;
use crate::tmux::{Error, ErrorKind, PaneScope, Selector};

/// `search_panes`: the lines matching a pattern in many panes.
#[derive(Clone)]
pub struct SearchPanesRequest {
    /// The compiled pattern (compiled once, shared by every pane's scan).
    pub pattern: Arc<Pattern>,
    /// The session whose panes to search; `None`: every pane.
    pub session: Option<Selector>,
    /// First line to search (tmux numbering); `None`: the oldest history
    /// line.
    pub content_start: Option<LineNo>,
    /// Last line; `None`: the bottom of the screen.
    pub content_end: Option<LineNo>,
    /// Matched lines kept per pane (the newest ones), at least 1.
    pub max_matched_lines_per_pane: usize,
    /// Panes per page (`None`: all).
    pub limit: Option<usize>,
    /// Panes skipped before the page.
    pub offset: usize,
    /// Where to report progress (seeding the mirror, panes searched).
    pub progress: Option<Progress>,
}

impl SearchPanesRequest {
    /// `content_start` and `content_end` as line numbers.
    fn range(&self) -> (Option<i64>, Option<i64>) {
        (
            self.content_start.map(|l| l.0),
            self.content_end.map(|l| l.0),
        )
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
}

/// The matches in one pane (libtmux-mcp `PaneContentMatch`, plus line
/// numbers, positions and the source). The pane is named once, by its ids,
/// names, indexes, command and path; its geometry and tty (which
/// libtmux-mcp repeats for every match) are `list_panes`' to tell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PaneContentMatch {
    /// Pane id, `%N`.
    pub pane_id: String,
    /// Name of the foreground process.
    pub pane_current_command: String,
    /// Working directory of the foreground process.
    pub pane_current_path: String,
    /// The pane's window.
    pub window_id: String,
    /// The window's name.
    pub window_name: String,
    /// The pane's session.
    pub session_id: String,
    /// The session's name.
    pub session_name: String,
    /// The window's index in that session.
    pub window_index: String,
    /// The pane's index in its window.
    pub pane_index: String,
    /// The matching logical lines (soft wraps joined, trailing blanks
    /// trimmed), oldest first; the newest `max_matched_lines_per_pane` when
    /// there were more. A line over 4096 bytes is cut to 4096 bytes around
    /// its first match, `…` marking the cuts.
    pub matched_lines: Vec<String>,
    /// For each matched line, the tmux line number of its first row: 0 is
    /// the top row of the visible screen, negative numbers are history
    /// (`capture-pane -S/-E` numbering).
    pub matched_line_numbers: Vec<i64>,
    /// For each matched line, how many screen rows it spans (more than 1
    /// when it was soft-wrapped).
    pub matched_line_rows: Vec<u32>,
    /// For each matched line, where its first match starts, as
    /// `[row, column, char, byte]`: the tmux line number of the row holding
    /// it, its cell column (0-based), and its offsets in the logical line in
    /// characters and in bytes.
    pub matched_at: Vec<[i64; 4]>,
    /// For each matched line, the screen it is on, when the pane shows the
    /// alternate screen: `alternate` (what the program draws) or
    /// `hidden_main` (the normal screen it covers). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_screens: Option<Vec<Screen>>,
    /// How many lines matched in this pane, before the per-pane cap.
    pub matched_line_count: usize,
    /// Which source answered: `mirror` or `capture`.
    pub source: Source,
    /// The pane is gone (its program exited and tmux destroyed it); the
    /// lines come from tmuxwire's copy.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
    /// The exit status of the pane's program, when tmux reported it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// Oldest history rows tmuxwire's copy of this pane dropped to stay
    /// within its memory cap, and so did not search (tmux may still hold
    /// them: `capture_pane` with a range reaches them). Absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capped_history_rows: Option<u64>,
    /// Whether this is the caller's own pane (null outside tmux).
    pub is_caller: Option<bool>,
}

/// A page of search results (libtmux-mcp `SearchPanesResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchPanesResult {
    /// Panes with matches, in tmux's order (`list_panes`: sessions, then
    /// windows by index, then panes by index; panes that are gone last),
    /// this page only.
    pub matches: Vec<PaneContentMatch>,
    /// True when a pane's lines were capped or more panes follow the page.
    pub truncated: bool,
    /// Ids of the matching panes after this page.
    pub truncated_panes: Vec<String>,
    /// Matching panes in all pages.
    pub total_panes_matched: usize,
    /// Panes skipped before this page.
    pub offset: usize,
    /// Page size (`null`: unlimited).
    pub limit: Option<usize>,
    /// Panes searched.
    pub panes_searched: usize,
    /// Matched lines left out of this page to keep the answer within the
    /// response budget (1 MiB by default), beyond those
    /// `max_matched_lines_per_pane` left out; each pane's
    /// `matched_line_count` still counts them.
    /// Narrow the search (`content_start`/`content_end`, a session, a
    /// tighter pattern, `limit`) to see them.
    pub lines_omitted: usize,
    /// Ids of the searched panes whose history is at its limit: each time
    /// a pane's `history_size` reaches `history_limit`, tmux drops the
    /// oldest tenth of it (`grid_collect_history()`), so a pane within a
    /// tenth of its limit has most likely lost its oldest lines, and text
    /// from them cannot be found. Before tmux 3.7 a pane keeps the limit
    /// it was made with, whatever `history-limit` is set to later (tmux
    /// issue 4705). `get_pane_info` gives both numbers. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub panes_history_at_limit: Vec<String>,
    /// Why the pattern cannot match, when tmuxwire can tell: set when it
    /// asks for a TAB and the server is tmux before 3.6, which stores a TAB
    /// as the blank cells it moves the cursor over, so no pane text holds
    /// one (tmux issues 2619, 978; public case C22). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

crate::record! {
    /// What the search lists of a pane besides its [`PaneMeta`], which
    /// comes first in the record ([`LISTED_FIELDS`]).
    struct ListedRow {
        pane_id: String = "pane_id",
        history_size: Option<i64> = "history_size",
        history_limit: Option<i64> = "history_limit",
    }
}

/// The variables the search lists each pane with.
const LISTED_FIELDS: &[&str] = &crate::concat_fields!(PaneMeta, ListedRow);

/// A pane in scope, as the search lists it: what its result names it by
/// (the mirror's [`PaneMeta`]) and its history's fill.
struct ListedPane {
    pane_id: String,
    history_size: Option<i64>,
    history_limit: Option<i64>,
    meta: PaneMeta,
}

impl ListedPane {
    /// From a record of [`LISTED_FIELDS`].
    fn from_record(r: &crate::control::format::Record) -> ListedPane {
        let row = ListedRow::from_record_at(r, PaneMeta::FIELDS.len());
        ListedPane {
            pane_id: row.pane_id,
            history_size: row.history_size,
            history_limit: row.history_limit,
            meta: PaneMeta::from_record(r),
        }
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

/// The rows each logical line of a `capture-pane -J` fills.
enum RowCount<'a> {
    /// Worked out from widths.
    Estimate,
    /// Known (from [`align_rows`]), one entry per line.
    Exact(&'a [u32]),
}

/// Byte offsets in `text` where tmux would start a new row when writing it
/// from column 0 of a `width`-cell row, by the width model.
fn layout_breaks(text: &[u8], width: usize, rules: Rules) -> Vec<usize> {
    let mut layout = crate::term::width::Layout::new(width.max(1), rules);
    let mut breaks = Vec::new();
    let s = String::from_utf8_lossy(text);
    let mut byte = 0;
    for c in s.chars() {
        let before = layout.rows;
        layout.push(c as u32);
        if layout.rows > before {
            breaks.push(byte.min(text.len()));
        }
        byte += c.len_utf8();
    }
    breaks
}

/// Scans one pane's `capture-pane -p -J` output. Returns the hits and the
/// rows all captured lines fill as counted (equal to the rows of the
/// captured range when every count was right).
fn scan_capture(
    body: &[u8],
    pattern: &Pattern,
    rows_of: RowCount<'_>,
    width: usize,
    rules: Rules,
    bottom: i64,
    keep: usize,
) -> (Scan, u64) {
    let mut hay = Vec::with_capacity(body.len());
    let mut rows: Vec<u32> = Vec::new();
    for (k, line) in split_lines(body).enumerate() {
        rows.push(match rows_of {
            RowCount::Estimate => width::rows(&String::from_utf8_lossy(line), width, rules),
            RowCount::Exact(r) => r.get(k).copied().unwrap_or(1),
        });
        hay.extend_from_slice(trim_end_spaces(line));
        hay.push(b'\n');
    }
    let total: u64 = rows.iter().map(|&r| u64::from(r)).sum();
    let mut found = pattern.find_lines(&hay);
    let count = found.len();
    keep_tail(&mut found, Some(keep));
    let mut scan = Scan {
        count,
        ..Scan::default()
    };
    if found.is_empty() {
        return (scan, total);
    }
    // Rows before each line, summed from the top.
    let mut before = vec![0u64; rows.len() + 1];
    for (i, r) in rows.iter().enumerate() {
        before[i + 1] = before[i] + u64::from(*r);
    }
    for m in found {
        let i = m.line;
        let end = memchr::memchr(b'\n', &hay[m.offset..]).map_or(hay.len(), |e| m.offset + e);
        let text = &hay[m.offset..end];
        let after = total - before[i + 1];
        let r = rows[i];
        let first = bottom - after as i64 - i64::from(r) + 1;
        let line = LogicalLine {
            index: crate::term::LineIndex(i as u64),
            first_row: LineNo(first),
            text: std::borrow::Cow::Borrowed(text),
            breaks: std::borrow::Cow::Owned(layout_breaks(text, width, rules)),
            place: crate::term::Place::Screen,
        };
        let p = line.point(ByteOffset(m.start), width as u32, rules);
        scan.hits.push(Hit {
            text: excerpt(text, m.start, m.end),
            line: first,
            rows: r,
            at: Position {
                row: p.line.0,
                column: p.column.0,
                char: line.char_offset(ByteOffset(m.start)).0,
                byte: m.start,
            },
            screen: Screen::Main,
        });
    }
    (scan, total)
}

/// Rows per logical line, by aligning a `capture-pane -p -J` of a range
/// (`joined`: logical lines) with a plain `capture-pane -p` of the same
/// range taken at the same moment (`rows`: one line per row, trailing
/// blanks trimmed by tmux). Each row's text must continue the logical line
/// where the previous row stopped (after any blanks the trimming removed).
///
/// Returns `None` when the two do not align (a row of only blanks inside a
/// wrapped line is ambiguous; so is a capture that is not of one moment).
pub fn align_rows(joined: &[&[u8]], rows: &[&[u8]]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(joined.len());
    let mut ri = 0;
    for line in joined {
        let mut pos = 0;
        let mut count = 0u32;
        loop {
            let row = trim_end_spaces(rows.get(ri)?);
            // Skip blanks the previous row's trimming removed.
            let mut at = pos;
            loop {
                if line[at..].starts_with(row) {
                    break;
                }
                if line.get(at) != Some(&b' ') {
                    return None;
                }
                at += 1;
            }
            pos = at + row.len();
            count += 1;
            ri += 1;
            if line[pos..].iter().all(|&b| b == b' ') {
                break;
            }
            if row.is_empty() {
                // A blank row cannot have started text that goes on.
                return None;
            }
        }
        out.push(count);
    }
    (ri == rows.len()).then_some(out)
}

/// A pane's width and the bottom row of the searched range.
#[derive(Clone, Copy, Debug)]
struct PaneGeometry {
    width: usize,
    bottom: i64,
    /// Rows in the searched range.
    rows: u64,
}

crate::record! {
    /// The pane state read with each capture, in the same write.
    struct PaneState {
        width: i64 = "pane_width",
        height: i64 = "pane_height",
        history_size: i64 = "history_size",
    }
}

impl PaneGeometry {
    /// From the state read with a capture.
    fn of(state: &PaneState, req: &SearchPanesRequest) -> PaneGeometry {
        let width = usize::try_from(state.width).unwrap_or(0);
        let height = state.height.max(1);
        let hsize = state.history_size.max(0);
        let (start, end) = req.range();
        let bottom = bottom_line(start, end, hsize, height);
        let top = top_line(start, end, hsize, height);
        PaneGeometry {
            width,
            bottom,
            rows: u64::try_from(bottom - top + 1).unwrap_or(0),
        }
    }
}

/// `capture-pane -p [-J] -S start -E end` for the searched range (the
/// target is added by the caller).
fn capture_cmd(req: &SearchPanesRequest, join: bool) -> Command {
    let (start, end) = req.range();
    let start = start.map_or("-".to_string(), |s| s.min(MAX_LINE_ARG).to_string());
    let end = end.map_or("-".to_string(), |e| e.min(MAX_LINE_ARG).to_string());
    let mut cmd = Command::new("capture-pane").arg("-p");
    if join {
        cmd = cmd.arg("-J");
    }
    cmd.opt("-S", start).opt("-E", end)
}

/// What tmux said about a pane, from its listing or (for a pane that is
/// gone) from the mirror's last one.
#[derive(Clone, Debug)]
struct Facts {
    pane_id: String,
    meta: PaneMeta,
}

impl Facts {
    fn of_listing(p: &ListedPane) -> Facts {
        Facts {
            pane_id: p.pane_id.clone(),
            meta: p.meta.clone(),
        }
    }
}

/// One pane's outcome.
struct Searched {
    facts: Facts,
    scan: Scan,
    source: Source,
    dead: bool,
    exit_status: Option<i32>,
    alternate: bool,
    capped: u64,
}

/// Sets a flag when dropped: a cancelled search (its future dropped) stops
/// the scans still running on blocking threads.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

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
/// [`ErrorKind::NotFound`] for a missing session scope; connection
/// errors; [`ErrorKind::Internal`](crate::tmux::ErrorKind::Internal) when
/// a pane's scan panicked. A pane that disappears during the search is
/// skipped.
pub async fn search_panes(
    server: &Server,
    req: &SearchPanesRequest,
    scope: &PaneScope,
    limit: Limit,
) -> Result<SearchPanesResult, Error> {
    let records = super::list::pane_records(server, scope, LISTED_FIELDS).await?;
    let mut panes: Vec<ListedPane> = records.iter().map(ListedPane::from_record).collect();
    // Linked windows and grouped sessions list a pane more than once.
    let mut seen = std::collections::HashSet::new();
    panes.retain(|p| seen.insert(p.pane_id.clone()));
    let panes_history_at_limit = panes
        .iter()
        .filter(|p| matches!((p.history_size, p.history_limit), (Some(size), Some(limit)) if history_at_limit(size, limit)))
        .map(|p| p.pane_id.clone())
        .collect();
    let version = server.version().await?;
    let rules = Rules::for_version(&version);
    let note = (!version.at_least(3, 6) && req.pattern.mentions_tab()).then(|| {
        format!(
            "tmux {} keeps no TABs: a TAB moves the cursor and leaves blank cells, which \
             read as spaces (tmux 3.6 and later keep them). Match the spaces instead, \
             e.g. the regex ` +` where the TAB was.",
            version.as_str()
        )
    });
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));

    let mirror = server.mirror().await;
    let mut confirmed = std::collections::HashSet::new();
    let mut items: Vec<Item> = (0..panes.len()).map(Item::Listed).collect();
    if let Some(m) = &mirror {
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
        confirmed = m.sync_with(&list, req.progress.as_ref()).await;
        let alive: std::collections::HashSet<PaneId> = list.iter().map(|(p, _, _)| *p).collect();
        if *scope == PaneScope::All {
            m.mark_gone(&alive);
        }
        let dead_scope = match scope {
            PaneScope::All => Some(DeadScope::Server),
            PaneScope::Session(Target::Session(s)) => Some(DeadScope::Session(*s)),
            _ => None,
        };
        for p in dead_scope.map(|s| m.dead_in(s)).unwrap_or_default() {
            if !alive.contains(&p.id) {
                items.push(Item::Gone(p));
            }
        }
    }
    let panes_searched = items.len();
    let parallel = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(CAPTURES_IN_FLIGHT);
    let panes = &panes;
    let mirror = &mirror;
    let confirmed = &confirmed;
    let flag = &cancel.0;
    let scans = futures::stream::iter(items)
        .map(|item| async move {
            match item {
                Item::Listed(i) => {
                    search_listed(server, &panes[i], mirror, confirmed, req, rules, flag).await
                }
                Item::Gone(p) => scan_copy(p, req, flag.clone()).await.map(Some),
            }
        })
        .buffered(parallel);
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
    })
}

/// Searches a listed pane: from its copy when the mirror has a current
/// one, else from a capture. `None` when the pane went away.
async fn search_listed(
    server: &Server,
    listed: &ListedPane,
    mirror: &Option<Arc<Mirror>>,
    confirmed: &std::collections::HashSet<PaneId>,
    req: &SearchPanesRequest,
    rules: Rules,
    cancel: &Arc<AtomicBool>,
) -> Result<Option<Searched>, Error> {
    let facts = Facts::of_listing(listed);
    let Ok(id) = facts.pane_id.parse::<PaneId>() else {
        return Ok(None);
    };
    if confirmed.contains(&id)
        && let Some(p) = mirror.as_ref().and_then(|m| m.pane(id))
        && p.view().status() == Status::Live
    {
        let mut s = scan_copy(p, req, cancel.clone()).await?;
        s.facts = facts;
        s.dead = false;
        return Ok(Some(s));
    }
    let target = Target::Pane(id);
    let cap = capture_cmd(req, true);
    let (state, body) = match state_and_text(server, &target, PaneState::FIELDS, cap).await {
        Ok(x) => x,
        // The pane went away meanwhile: skip it.
        Err(e) if e.is(ErrorKind::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let geo = PaneGeometry::of(&PaneState::from_record(&state), req);
    let keep = req.max_matched_lines_per_pane;
    let pattern = req.pattern.clone();
    let task = tokio::task::spawn_blocking(move || {
        scan_capture(
            &body,
            &pattern,
            RowCount::Estimate,
            geo.width,
            rules,
            geo.bottom,
            keep,
        )
    });
    let (mut scan, rows_total) = task.await.map_err(|e| scan_failed(id, &e))?;
    if scan.count > 0 && rows_total != geo.rows {
        // The widths tmux used differ from the model somewhere in this
        // pane: count its rows exactly.
        tracing::debug!(pane = %id, "row estimate off; recounting rows");
        if let Some(exact) = recount(server, id, req, rules).await? {
            scan = exact;
        }
    }
    Ok(Some(Searched {
        facts,
        scan,
        source: Source::Capture,
        dead: false,
        exit_status: None,
        alternate: false,
        capped: 0,
    }))
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

/// Captures a pane joined and row by row in one write, aligns the two and
/// scans again with exact row counts. `None` when they do not align (the
/// estimates are kept then).
async fn recount(
    server: &Server,
    id: PaneId,
    req: &SearchPanesRequest,
    rules: Rules,
) -> Result<Option<Scan>, Error> {
    let target = Target::Pane(id);
    let q = Query::new(PaneState::FIELDS);
    let [state, joined, plain] = server
        .run_each(&[
            pane_lookup(&target, &q),
            capture_cmd(req, true).target(&target, TargetKind::Pane),
            capture_cmd(req, false).target(&target, TargetKind::Pane),
        ])
        .await?;
    if !state.ok || !joined.ok || !plain.ok {
        return Ok(None);
    }
    let Some(state) = q.parse(&state.body).into_iter().next() else {
        return Ok(None);
    };
    let jl: Vec<&[u8]> = split_lines(&joined.body).collect();
    let pl: Vec<&[u8]> = split_lines(&plain.body).collect();
    let Some(rows) = align_rows(&jl, &pl) else {
        return Ok(None);
    };
    let geo = PaneGeometry::of(&PaneState::from_record(&state), req);
    Ok(Some(
        scan_capture(
            &joined.body,
            &req.pattern,
            RowCount::Exact(&rows),
            geo.width,
            rules,
            geo.bottom,
            req.max_matched_lines_per_pane,
        )
        .0,
    ))
}

fn pane_match(server: &Server, s: Searched) -> PaneContentMatch {
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

/// Scans tmuxwire's copy of a pane on a blocking thread: a live copy
/// tmux has just confirmed, or the copy of a pane that is gone (then
/// marked dead, with its program's exit status).
///
/// # Errors
///
/// [`ErrorKind::Internal`](crate::tmux::ErrorKind::Internal) when the scan
/// panicked.
async fn scan_copy(
    p: Arc<PaneMirror>,
    req: &SearchPanesRequest,
    cancel: Arc<AtomicBool>,
) -> Result<Searched, Error> {
    let pattern = req.pattern.clone();
    let keep = req.max_matched_lines_per_pane;
    let range = match req.range() {
        (None, None) => None,
        (s, e) => Some((s.unwrap_or(i64::MIN), e.unwrap_or(i64::MAX))),
    };
    let pane = p.clone();
    let done = tokio::task::spawn_blocking(move || {
        // Scanned from a snapshot: the watch task applying the pane's
        // output never waits behind the scan.
        let st = pane.snapshot();
        let (scan, alternate) = match st.term() {
            Some(t) => (scan(t, &pattern, range, keep, &cancel), t.alternate_on()),
            None => (Scan::default(), false),
        };
        (
            scan,
            alternate,
            st.meta().clone(),
            st.status() == Status::Dead,
            st.exit_status(),
            st.capped_rows(),
        )
    })
    .await;
    let (scan, alternate, meta, dead, exit_status, capped) =
        done.map_err(|e| scan_failed(p.id, &e))?;
    Ok(Searched {
        facts: Facts {
            pane_id: p.id.to_string(),
            meta,
        },
        scan,
        source: Source::Mirror,
        dead,
        exit_status,
        alternate,
        capped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::PatternOptions;

    /// `scan_capture` with estimated rows, by 3.3's rules.
    fn scan_est(body: &[u8], pat: &Pattern, width: usize, bottom: i64, keep: usize) -> Scan {
        scan_capture(
            body,
            pat,
            RowCount::Estimate,
            width,
            Rules::V33,
            bottom,
            keep,
        )
        .0
    }

    fn texts(s: &Scan) -> Vec<&str> {
        s.hits.iter().map(|h| h.text.as_str()).collect()
    }

    fn numbers(s: &Scan) -> Vec<i64> {
        s.hits.iter().map(|h| h.line).collect()
    }

    #[test]
    fn align() {
        let a = |j: &[&str], r: &[&str]| {
            let j: Vec<&[u8]> = j.iter().map(|s| s.as_bytes()).collect();
            let r: Vec<&[u8]> = r.iter().map(|s| s.as_bytes()).collect();
            align_rows(&j, &r)
        };
        assert_eq!(
            a(
                &["old", "0123456789abcdefNEEDLEXYZ-tail", ""],
                &["old", "0123456789abcdefNEED", "LEXYZ-tail", ""]
            ),
            Some(vec![1, 2, 1])
        );
        // Blanks at the end of a wrapped row are trimmed from the plain capture.
        assert_eq!(a(&["abc   def"], &["abc", "def"]), Some(vec![2]));
        assert_eq!(a(&["abc  def"], &["abc", "  def"]), Some(vec![2]));
        // Trailing blanks of the last row.
        assert_eq!(a(&["done      "], &["done"]), Some(vec![1]));
        // Rows left over, or text that does not continue: no alignment.
        assert_eq!(a(&["a"], &["a", "b"]), None);
        assert_eq!(a(&["abc"], &["abd"]), None);
        assert_eq!(a(&["ab", "c"], &["ab"]), None);
        // A blank row inside a wrapped line is ambiguous.
        assert_eq!(a(&["x          y"], &["x", "", "y"]), None);
        // Emoji that tmux made two cells wide: whatever the widths, rows align.
        let hearts = "\u{2764}\u{fe0f}".repeat(60);
        let (r1, r2) = (hearts[..40 * 6].to_string(), hearts[40 * 6..].to_string());
        assert_eq!(a(&[&hearts], &[&r1, &r2]), Some(vec![2]));
    }

    #[test]
    fn scan_numbers_from_the_bottom() {
        let pat = Pattern::new("NEEDLE", PatternOptions::literal()).unwrap();
        // 20-wide pane, 3 history rows + 2 screen rows; the needle line
        // wraps over rows -1 and 0.
        let body = b"old\n0123456789abcdefNEEDLEXYZ-tail\nprompt   \n\n";
        // rows: old=1, needle=2, prompt=1, empty=1 -> 5 rows, bottom = 1.
        let hits = scan_est(body, &pat, 20, 1, 50);
        assert_eq!(texts(&hits), vec!["0123456789abcdefNEEDLEXYZ-tail"]);
        assert_eq!(numbers(&hits), vec![-2]);
        assert_eq!(hits.hits[0].rows, 2);
        // The match starts on the first row, cell 16.
        assert_eq!((hits.hits[0].at.row, hits.hits[0].at.column), (-2, 16));
        let pat = Pattern::new("prompt$", PatternOptions::regex()).unwrap();
        let hits = scan_est(body, &pat, 20, 1, 50);
        assert_eq!(texts(&hits), vec!["prompt"], "trailing blanks are trimmed");
        assert_eq!(numbers(&hits), vec![0]);
    }

    #[test]
    fn scan_keeps_newest() {
        let pat = Pattern::new("x", PatternOptions::literal()).unwrap();
        let hits = scan_est(b"x1\nx2\nx3\n", &pat, 80, 2, 2);
        assert_eq!(texts(&hits), vec!["x2", "x3"]);
        assert_eq!(hits.count, 3);
        assert_eq!(numbers(&hits), vec![1, 2]);
    }
}
