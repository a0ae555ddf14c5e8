//! The panes a search lists ([`ListedPane`], [`Facts`]), and the
//! foreground process and directory of those on the answer's page
//! ([`fill_processes`]).

use std::sync::Arc;

use super::PaneContentMatch;
use crate::control::PaneId;
use crate::mirror::{Mirror, PaneMeta};
use crate::tmux::PaneScope;
use crate::tmux::model::Source;
use crate::tmux::op::{Error, Server};

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
pub(super) struct ListedPane {
    pub(super) pane_id: String,
    pub(super) history_size: Option<i64>,
    pub(super) history_limit: Option<i64>,
    /// `#{pane_pid}`: where a local pane's process and directory are read
    /// ([`fill_processes`]).
    pane_pid: Option<u32>,
    pub(super) meta: PaneMeta,
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
pub(super) async fn list_named(
    server: &Server,
    scope: &PaneScope,
) -> Result<Vec<ListedPane>, Error> {
    use crate::control::format::Query;
    use crate::control::{Command, TargetKind};
    use crate::tmux::target::{is_empty_server, panes_in, template_cmd};
    let (panes, pq) = template_cmd("list-panes", LISTED_FIELDS);
    let wq = Query::new(WindowNameRow::FIELDS);
    let windows = |name: &str| {
        Command::new(name)
            .opt("-F", wq.template())
            .frame(wq.frame())
    };
    let (sessions, sq) = template_cmd("list-sessions", SessionNameRow::FIELDS);
    let windows = match scope {
        PaneScope::All => windows("list-windows").arg("-a"),
        PaneScope::Session(t) => windows("list-windows").target(t, TargetKind::Session),
        // The window's name from its own panes' records.
        PaneScope::Window(_) => panes_in(windows("list-panes"), scope),
    };
    let panes = panes_in(panes, scope);
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

/// How long a search's listing of the panes is kept at most
/// ([`KeptListing`]): what tmux changes without a notification (a window
/// renumbered by `move-window -r` or shuffled by `new-window -a`, a pid
/// after another client's `respawn-pane`) shows in answers for this long
/// at most. The same second as the copies' comparison
/// ([`crate::mirror::FULL_CHECK_EVERY`]).
pub(super) const KEEP_LISTING: std::time::Duration = crate::mirror::FULL_CHECK_EVERY;

/// A search's listing of the panes in a scope, kept for the searches that
/// follow it closely: taken again when a watch read a notification that
/// may change it since ([`Mirror::layout_generation`]), a call of ours may
/// have changed a pane ([`Mirror::changes`]), it is [`KEEP_LISTING`] old,
/// or the mirror is another. A search that takes it checks the generation
/// again once its copies are fenced, and lists again if it moved.
pub(crate) struct KeptListing {
    mirror: std::sync::Weak<Mirror>,
    scope: PaneScope,
    /// [`Mirror::layout_generation`] before the listing was asked.
    generation: u64,
    /// [`Mirror::changes`] before the listing was asked.
    changes: u64,
    /// When the listing was asked.
    pub(super) at: std::time::Instant,
    pub(super) panes: Arc<Vec<ListedPane>>,
}

impl KeptListing {
    /// A listing of `scope` asked at `at`, when `m` read `generation` and
    /// `changes`.
    pub(super) fn new(
        m: &Arc<Mirror>,
        scope: &PaneScope,
        (generation, changes): (u64, u64),
        at: std::time::Instant,
        panes: Arc<Vec<ListedPane>>,
    ) -> KeptListing {
        KeptListing {
            mirror: Arc::downgrade(m),
            scope: scope.clone(),
            generation,
            changes,
            at,
            panes,
        }
    }

    /// Whether this is still tmux's listing of `scope` as far as `m` can
    /// tell, at `now`.
    pub(super) fn holds(
        &self,
        m: &Arc<Mirror>,
        scope: &PaneScope,
        now: std::time::Instant,
    ) -> bool {
        std::ptr::eq(self.mirror.as_ptr(), Arc::as_ptr(m))
            && self.scope == *scope
            && self.generation == m.layout_generation()
            && self.changes == m.changes()
            && now.saturating_duration_since(self.at) < KEEP_LISTING
    }

    /// Whether a notification came since the listing was asked.
    pub(super) fn moved(&self, m: &Mirror) -> bool {
        self.generation != m.layout_generation()
    }
}

/// What `m` reads now: ([`Mirror::layout_generation`], [`Mirror::changes`]).
pub(super) fn generation(m: &Mirror) -> (u64, u64) {
    (m.layout_generation(), m.changes())
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
///
/// `local`: the local server's pid (`None`: a remote server, or no mirror
/// yet); `scans_read`: the scans have read their copies' panes already
/// ([`Facts::read_process`]), so only the panes captures answered are
/// read here.
pub(super) async fn fill_processes(
    server: &Server,
    panes: &[ListedPane],
    page: &mut [PaneContentMatch],
    local: Option<u32>,
    scans_read: bool,
) {
    if let Some(server_pid) = local {
        read_locally(panes, page, server_pid, scans_read).await;
    }
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

/// Fills the process and directory of the page's live panes where the
/// local server's `/proc` gives them as tmux would
/// ([`crate::sys::current::read`]), on a blocking thread: those tmux's
/// captures answered, and with `!scans_read` the mirror's too (else the
/// scans read them: [`Facts::read_process`]). The others are left empty
/// (for tmux to fill).
async fn read_locally(
    panes: &[ListedPane],
    page: &mut [PaneContentMatch],
    server_pid: u32,
    scans_read: bool,
) {
    let by_id: std::collections::HashMap<&str, &ListedPane> =
        panes.iter().map(|p| (p.pane_id.as_str(), p)).collect();
    let asked: Vec<(usize, String, u32)> = page
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.pane_dead && (m.source == Source::Capture || !scans_read))
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

/// What tmux said about a pane, from its listing or (for a pane that is
/// gone) from the mirror's last one.
#[derive(Clone, Debug)]
pub(super) struct Facts {
    pub(super) pane_id: String,
    pub(super) meta: PaneMeta,
    /// `#{pane_pid}` from the listing (none for a pane that is gone).
    pub(super) pane_pid: Option<u32>,
}

impl Facts {
    pub(super) fn of_listing(p: &ListedPane) -> Facts {
        Facts {
            pane_id: p.pane_id.clone(),
            meta: p.meta.clone(),
            pane_pid: p.pane_pid,
        }
    }

    /// Fills the pane's foreground process and working directory from
    /// `/proc` by tmux's own rule ([`crate::sys::current::read`]) for a
    /// live pane of the local server whose pid is `server_pid`; left
    /// empty (for [`fill_processes`] to ask) where that rule cannot prove
    /// its answer is tmux's. Done by the scan that found the pane's
    /// matches, on its blocking thread, so a page of many panes is not
    /// read one pane after another once the scans are over.
    pub(super) fn read_process(&mut self, server_pid: u32) {
        let Some(pane_pid) = self.pane_pid else {
            return;
        };
        let pane = crate::sys::current::PaneRef {
            tty: &self.meta.pane_tty,
            pane_pid,
            server_pid,
        };
        if let Some(c) = crate::sys::current::read(&pane) {
            self.meta.pane_current_command = c.command;
            self.meta.pane_current_path = c.path;
        }
    }
}
