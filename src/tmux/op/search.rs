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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;

use schemars::JsonSchema;
use serde::Serialize;

use super::commands::CommandPick;
use super::fit::{self, Limit};
use super::{Op, Server};
use crate::control::{PaneId, SessionId, Target};
use crate::mirror::scan::{Scan, Screen, scan_with};
use crate::mirror::{Mirror, PaneMeta, PaneMirror, Progress, Scope as DeadScope, Status, Want};
use crate::search::Pattern;
use crate::term::{LineNo, Term};
use crate::tmux::copy;
use crate::tmux::model::Source;
use crate::tmux::{Error, PaneScope, Selector};

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
    /// First line to search (tmux numbering); `None`: the oldest history
    /// line.
    pub content_start: Option<LineNo>,
    /// Last line; `None`: the bottom of the screen.
    pub content_end: Option<LineNo>,
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

    fn redacting(self, on: bool) -> SearchPanesRequest {
        SearchPanesRequest { redact: on, ..self }
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
    /// The matching logical lines (soft wraps joined, trailing blanks
    /// trimmed), oldest first; the newest `max_matched_lines_per_pane` when
    /// there were more. A line over 4096 bytes is cut to 4096 bytes around
    /// its first match, `…` marking the cuts.
    pub matched_lines: Vec<String>,
    /// Whether this is the caller's own pane (null outside tmux).
    pub is_caller: Option<bool>,
    /// The window's index in that session.
    pub window_index: String,
    /// The pane's index in its window.
    pub pane_index: String,
    /// For each matched line, the tmux line number of its first row: 0 is
    /// the top row of the visible screen, negative numbers are history
    /// (`capture-pane -S/-E` numbering).
    pub matched_line_numbers: Vec<i64>,
    /// For each matched line, how many screen rows it spans (more than 1
    /// when it was soft-wrapped); left out when every line spans one row.
    #[serde(skip_serializing_if = "all_one_row")]
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
    /// them: `capture_pane` with a range reaches them); for a pane that is
    /// gone, also the rows it held before tmuxwire followed it, which no
    /// call read while it lived. Absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capped_history_rows: Option<u64>,
}

/// Whether every matched line spans one screen row.
fn all_one_row(rows: &[u32]) -> bool {
    rows.iter().all(|&r| r == 1)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// tighter pattern, `limit`) or ask for more (`max_bytes`) to see them.
    /// Left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
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
    /// When the response budget or the page left matched lines out: the
    /// `search_panes` arguments (with the same server) that return them,
    /// in order: the older lines of the first pane the budget cut
    /// (`pane_id`, `content_end` before its oldest line returned,
    /// `max_matched_lines_per_pane` the lines left out), then the page
    /// from the next pane whose lines were left out or that follows the
    /// page (`offset`). Absent when nothing was left out (lines beyond
    /// `max_matched_lines_per_pane` were not asked for: raise it).
    /// Written by the MCP layer, which holds the arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Vec<serde_json::Map<String, serde_json::Value>>>,
}

crate::record! {
    /// What the search lists of a pane: its ids and indexes, and its
    /// history's fill. Not its window's and session's names: each is
    /// printed escaped (two regcomp(3)s in tmux), so they are listed once
    /// per window and per session ([`Names`]). Not its foreground process
    /// and working directory: tmux reads each from `/proc` (seven system
    /// calls a pane, most of a listing's cost), so only the panes on the
    /// answer's page are asked for them, after the scan
    /// ([`fill_processes`]).
    struct ListedRow {
        pane_id: String = "pane_id",
        session_id: String = "session_id",
        window_id: String = "window_id",
        window_index: String = "window_index",
        pane_index: String = "pane_index",
        pane_tty: String = "pane_tty",
        history_size: Option<i64> = "history_size",
        history_limit: Option<i64> = "history_limit",
        pane_pid: Option<u32> = "pane_pid",
    }
}

/// The variables the search lists each pane with.
const LISTED_FIELDS: &[&str] = ListedRow::FIELDS;

/// A pane in scope, as the search lists it: what its result names it by
/// (the mirror's [`PaneMeta`], its process and directory left empty until
/// [`fill_processes`]) and its history's fill.
struct ListedPane {
    pane_id: String,
    history_size: Option<i64>,
    history_limit: Option<i64>,
    /// `#{pane_pid}`: where a local pane's process and directory are read
    /// ([`fill_processes`]).
    pane_pid: Option<u32>,
    meta: PaneMeta,
}

impl ListedPane {
    /// From a record of [`LISTED_FIELDS`], named by `names`.
    fn from_record(r: &crate::control::format::Record, names: &Names) -> ListedPane {
        let row = ListedRow::from_record(r);
        ListedPane {
            pane_id: row.pane_id,
            history_size: row.history_size,
            history_limit: row.history_limit,
            pane_pid: row.pane_pid,
            meta: PaneMeta {
                session_name: names.session(&row.session_id),
                session_id: row.session_id,
                window_name: names.window(&row.window_id),
                window_id: row.window_id,
                window_index: row.window_index,
                pane_index: row.pane_index,
                pane_current_command: String::new(),
                pane_current_path: String::new(),
                pane_tty: row.pane_tty,
            },
        }
    }
}

crate::record! {
    /// A window's name, listed once per window (per pane for a window's
    /// own search).
    struct WindowNameRow {
        window_id: String = "window_id",
        window_name: String = "window_name",
    }
}

crate::record! {
    /// A session's name.
    struct SessionNameRow {
        session_id: String = "session_id",
        session_name: String = "session_name",
    }
}

/// The names of the windows and sessions a search lists, by id: asked in
/// the listing's own round trip, one record per window and per session,
/// so tmux escapes each name once, not once per pane.
#[derive(Default)]
struct Names {
    windows: std::collections::HashMap<String, String>,
    sessions: std::collections::HashMap<String, String>,
}

impl Names {
    /// The window `id`'s name; empty for a window tmux did not list (made
    /// between the two commands, which tmux runs back to back: never).
    fn window(&self, id: &str) -> String {
        self.windows.get(id).cloned().unwrap_or_default()
    }

    /// The session `id`'s name (empty as for [`Names::window`]).
    fn session(&self, id: &str) -> String {
        self.sessions.get(id).cloned().unwrap_or_default()
    }
}

/// The panes in `scope`, named: `list-panes` with [`LISTED_FIELDS`], then
/// the names of their windows (`list-windows`; a window's own panes for a
/// window scope) and of the sessions, in one round trip.
///
/// # Errors
///
/// As [`super::list::pane_records`]: connection errors;
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing
/// target (an empty server has no panes).
async fn list_named(server: &Server, scope: &PaneScope) -> Result<Vec<ListedPane>, Error> {
    use crate::control::format::Query;
    use crate::control::{Command, TargetKind};
    use crate::tmux::target::{is_empty_server, template_cmd};
    let (panes, pq) = template_cmd("list-panes", LISTED_FIELDS);
    let wq = Query::new(WindowNameRow::FIELDS);
    let windows = |name: &str| {
        Command::new(name)
            .opt("-F", wq.template())
            .frame(wq.frame())
    };
    let (sessions, sq) = template_cmd("list-sessions", SessionNameRow::FIELDS);
    let (panes, windows) = match scope {
        PaneScope::All => (panes.arg("-a"), windows("list-windows").arg("-a")),
        // list-panes -t takes a window even with -s: a session name needs "=name:".
        PaneScope::Session(t) => (
            panes.arg("-s").target(t, TargetKind::Window),
            windows("list-windows").target(t, TargetKind::Session),
        ),
        // The window's name from its own panes' records.
        PaneScope::Window(t) => (
            panes.target(t, TargetKind::Window),
            windows("list-panes").target(t, TargetKind::Window),
        ),
    };
    let [panes, windows, sessions] = server.run_each(&[panes, windows, sessions]).await?;
    let panes = match panes.into_result() {
        Err(e) if *scope == PaneScope::All && is_empty_server(&e) => return Ok(Vec::new()),
        other => other?,
    };
    let mut names = Names::default();
    for r in wq.parse(&windows.into_result()?) {
        let w = WindowNameRow::from_record(&r);
        names.windows.insert(w.window_id, w.window_name);
    }
    for r in sq.parse(&sessions.into_result()?) {
        let s = SessionNameRow::from_record(&r);
        names.sessions.insert(s.session_id, s.session_name);
    }
    Ok(pq
        .parse(&panes)
        .iter()
        .map(|r| ListedPane::from_record(r, &names))
        .collect())
}

crate::record! {
    /// A page pane's foreground process and working directory.
    struct ProcessRow {
        pane_id: String = "pane_id",
        command: String = "pane_current_command",
        path: String = "pane_current_path",
    }
}

/// The filter that keeps exactly the panes `ids` in a listing:
/// `#{m:*|#{pane_id}|*,|%1|%5|}`, true when the pane's id, between two
/// bars, is in the list (tmux's `m` modifier: `fnmatch(3)` of the first
/// argument against the second, both expanded). Pane ids are `%` and
/// digits, so nothing in the list is a format or a pattern character.
fn pane_filter(ids: &[PaneId]) -> String {
    let mut list = String::from("|");
    for id in ids {
        list.push_str(&format!("{id}|"));
    }
    format!("#{{m:*|#{{pane_id}}|*,{list}}}")
}

/// Reads the foreground process and working directory of the live panes
/// on the page. On a local server each is first read from `/proc` with
/// tmux's own rule ([`crate::sys::current`], `panes`: the listing, for each
/// pane's tty and pid), where tmuxwire can prove it reads what tmux would;
/// the rest come from one `list-panes -a` filtered to them
/// ([`pane_filter`]), so a search asks tmux at most one command whatever
/// the number of matched panes (tmux reads each pane's from `/proc`, for
/// the panes the filter keeps only). A pane that went away meanwhile keeps
/// them empty; copies of gone panes keep their last listing's.
async fn fill_processes(server: &Server, panes: &[ListedPane], page: &mut [PaneContentMatch]) {
    read_locally(server, panes, page).await;
    let ids: Vec<PaneId> = page
        .iter()
        .filter(|m| !m.pane_dead && m.pane_current_command.is_empty())
        .filter_map(|m| m.pane_id.parse().ok())
        .collect();
    if ids.is_empty() {
        return;
    }
    let (cmd, q) = crate::tmux::target::template_cmd("list-panes", ProcessRow::FIELDS);
    let cmd = cmd.arg("-a").opt("-f", pane_filter(&ids));
    let Ok(records) = server.records(&cmd, &q).await else {
        return;
    };
    let mut found = std::collections::HashMap::new();
    for r in &records {
        let row = ProcessRow::from_record(r);
        // A pane of a linked window is listed once per session: the
        // first record is as good as any.
        found.entry(row.pane_id.clone()).or_insert(row);
    }
    for m in page.iter_mut().filter(|m| !m.pane_dead) {
        if let Some(row) = found.get(&m.pane_id) {
            m.pane_current_command.clone_from(&row.command);
            m.pane_current_path.clone_from(&row.path);
        }
    }
}

/// Fills the process and directory of the page's live panes that a local
/// server's `/proc` gives as tmux would ([`crate::sys::current::read`]),
/// on a blocking thread; the others are left empty (for tmux to fill).
/// Nothing for a remote server, or before the mirror knows the server's
/// pid.
async fn read_locally(server: &Server, panes: &[ListedPane], page: &mut [PaneContentMatch]) {
    if server.endpoint().local_path().is_none() {
        return;
    }
    let Some(server_pid) = server.mirrored_server_pid().await else {
        return;
    };
    let by_id: std::collections::HashMap<&str, &ListedPane> =
        panes.iter().map(|p| (p.pane_id.as_str(), p)).collect();
    let asked: Vec<(usize, String, u32)> = page
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.pane_dead)
        .filter_map(|(i, m)| {
            let p = by_id.get(m.pane_id.as_str())?;
            Some((i, p.meta.pane_tty.clone(), p.pane_pid?))
        })
        .collect();
    if asked.is_empty() {
        return;
    }
    let read = tokio::task::spawn_blocking(move || {
        asked
            .into_iter()
            .filter_map(|(i, tty, pane_pid)| {
                let pane = crate::sys::current::PaneRef {
                    tty: &tty,
                    pane_pid,
                    server_pid,
                };
                Some((i, crate::sys::current::read(&pane)?))
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    tracing::debug!(read = read.len(), "page processes read from /proc");
    for (i, c) in read {
        if let Some(m) = page.get_mut(i) {
            m.pane_current_command = c.command;
            m.pane_current_path = c.path;
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
    // Copies seeded after this may be of panes newer than the listing
    // (`Mirror::mark_gone`).
    let listed_at = std::time::Instant::now();
    let mut panes = list_named(server, scope).await?;
    let listed = listed_at.elapsed();
    // Linked windows and grouped sessions list a pane more than once.
    let mut seen = std::collections::HashSet::new();
    panes.retain(|p| seen.insert(p.pane_id.clone()));
    let panes_history_at_limit = panes
        .iter()
        .filter(|p| req.pane.as_ref().is_none_or(|only| p.pane_id == *only))
        .filter(|p| matches!((p.history_size, p.history_limit), (Some(size), Some(limit)) if history_at_limit(size, limit)))
        .map(|p| p.pane_id.clone())
        .collect();
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
        // A search that reaches into the history reads it (a copy of the
        // screen only is filled first).
        let want = if req.content_start.is_some_and(|s| s.0 >= 0) {
            Want::current(req.as_is)
        } else {
            Want::Text
        };
        confirmed = m
            .sync_within(&list, want, req.progress.as_ref(), None)
            .await;
        let alive: std::collections::HashSet<PaneId> = list.iter().map(|(p, _, _)| *p).collect();
        if *scope == PaneScope::All {
            m.mark_gone(&alive, listed_at);
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
    if let Some(only) = &req.pane {
        items.retain(|it| match it {
            Item::Listed(i) => panes[*i].pane_id == *only,
            Item::Gone(p) => p.id.to_string() == *only,
        });
    }
    let panes_searched = items.len();
    let synced = listed_at.elapsed();
    let parallel = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(CAPTURES_IN_FLIGHT);
    let per_task = copies_per_task(items.len(), parallel);
    let units = plan(items, &panes, mirror.as_ref(), &confirmed, per_task);
    let panes = &panes;
    let flag = &cancel.0;
    let scans = futures::stream::iter(units)
        .map(|unit| async move {
            match unit {
                Unit::Copies(group) => scan_copies(group, req, flag.clone()).await,
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
    let scanned = listed_at.elapsed();
    fill_processes(server, panes, &mut page).await;
    // Where a search's time goes (`TMUXWIRE_LOG=tmuxwire=debug`), each
    // phase's end from the listing's start.
    tracing::debug!(
        panes = panes_searched,
        matched,
        ?listed,
        ?synced,
        ?scanned,
        filled = ?listed_at.elapsed(),
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

/// Copies one blocking task scans one after the other, at most: a task
/// per pane cost a hand-off between threads per pane, most of a 50-pane
/// search on a busy machine. The copies are split evenly over as many
/// tasks as scan at once ([`copies_per_task`]), so a search waits for one
/// round of hand-offs whatever the number of panes; at most as many tasks'
/// lines as run at once wait for the collector.
const COPIES_PER_TASK: usize = 32;

/// Copies per blocking task for `items` panes scanned `parallel` tasks at
/// a time: one round of tasks when [`COPIES_PER_TASK`] allows it.
fn copies_per_task(items: usize, parallel: usize) -> usize {
    items.div_ceil(parallel.max(1)).clamp(1, COPIES_PER_TASK)
}

/// What answers some panes of a search, in the order they are listed.
enum Unit {
    /// Copies the mirror holds (each with its pane's listing; none for a
    /// pane that is gone), scanned one after the other on a blocking
    /// thread.
    Copies(Vec<(Option<Facts>, Arc<PaneMirror>)>),
    /// A listed pane the mirror does not hold: a copy made once from
    /// tmux's captures answers it.
    Capture(usize),
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

/// Searches a listed pane the mirror does not hold, from a copy made once
/// from tmux's captures. `None` when the pane went away.
async fn search_captured(
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
    let pattern = req.pattern.clone();
    let (keep, range, command) = (req.max_matched_lines_per_pane, scan_range(req), req.command);
    let redact = req.redact;
    let cancel = cancel.clone();
    let task = tokio::task::spawn_blocking(move || {
        let t = &built.term;
        let found = scan_scoped(t, &pattern, range, command, keep, &cancel, redact);
        (found, t.alternate_on())
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

/// The searched range as [`scan`] takes it (inclusive tmux line numbers;
/// `None`: everything).
fn scan_range(req: &SearchPanesRequest) -> Option<(i64, i64)> {
    match req.range() {
        (None, None) => None,
        (s, e) => Some((s.unwrap_or(i64::MIN), e.unwrap_or(i64::MAX))),
    }
}

/// Scans `t` over `range`, narrowed to the output of `command` when the
/// search is scoped to one: no matches when `t`'s table has no such
/// command or the two do not overlap.
fn scan_scoped(
    t: &Term,
    pattern: &Pattern,
    range: Option<(i64, i64)>,
    command: Option<CommandPick>,
    keep: usize,
    cancel: &AtomicBool,
    redact: bool,
) -> Scan {
    let Some(pick) = command else {
        return scan_with(t, pattern, range, keep, cancel, redact);
    };
    let Some((lo, hi)) = super::commands::output_rows(t, pick) else {
        return Scan::default();
    };
    let (lo, hi) = match range {
        None => (lo, hi),
        Some((a, b)) => (lo.max(a), hi.min(b)),
    };
    if lo > hi {
        return Scan::default();
    }
    scan_with(t, pattern, Some((lo, hi)), keep, cancel, redact)
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

/// Scans tmuxwire's copies of some panes on a blocking thread, one after
/// the other: live copies tmux has just confirmed (with their listing), or
/// copies of panes that are gone (then marked dead, with their program's
/// exit status and the history rows they never held).
///
/// # Errors
///
/// [`ErrorKind::Internal`](crate::tmux::ErrorKind::Internal) when the scan
/// panicked (said once, for the group).
async fn scan_copies(
    group: Vec<(Option<Facts>, Arc<PaneMirror>)>,
    req: &SearchPanesRequest,
    cancel: Arc<AtomicBool>,
) -> Vec<Result<Option<Searched>, Error>> {
    let pattern = req.pattern.clone();
    let keep = req.max_matched_lines_per_pane;
    let range = scan_range(req);
    let command = req.command;
    let redact = req.redact;
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
                    Some(t) => (
                        scan_scoped(t, &pattern, range, command, keep, &cancel, redact),
                        t.alternate_on(),
                    ),
                    None => (Scan::default(), false),
                };
                let dead = listed.is_none() && st.status() == Status::Dead;
                let facts = listed.unwrap_or_else(|| Facts {
                    pane_id: p.id.to_string(),
                    meta: st.meta().clone(),
                });
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
