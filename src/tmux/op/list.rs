//! Listings: `list_sessions`, `list_windows`, `list_panes`.
//!
//! Each is one round trip: the `list-*` command with a format of the
//! record's fields (sessions also count tmuxwire's own control clients in
//! the same line, so `session_attached` leaves them out). A server with no
//! sessions lists nothing rather than failing.

use schemars::JsonSchema;
use serde::Serialize;

use super::filter::Filtered;
use super::fit::{self, Fit, Limit};
use super::{Filters, Op, Server};
use crate::control::{Command, TargetKind};
use crate::tmux::model::Attached;
pub(crate) use crate::tmux::target::pane_records;
use crate::tmux::target::{is_empty_server, template_cmd};
use crate::tmux::{Error, PaneInfo, PaneScope, Selector, SessionInfo, WindowInfo};

/// A list answer: `{"result": [...], "omitted": N}` (MCP requires an
/// object as structured content).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Listing<T> {
    /// The items, in tmux's order.
    pub result: Vec<T>,
    /// Items left out at the end to fit the response limit.
    #[serde(skip_serializing_if = "crate::tmux::model::is_zero")]
    pub omitted: usize,
}

impl<T> Listing<T> {
    /// All of `items`.
    pub fn new(items: Vec<T>) -> Listing<T> {
        Listing {
            result: items,
            omitted: 0,
        }
    }

    /// The items kept by `filters` (all with `None`).
    ///
    /// # Errors
    ///
    /// [`Filters::keep`]'s: a filter on a field the items lack.
    pub fn filtered(items: Vec<T>, filters: Option<&Filters>) -> Result<Listing<T>, Error>
    where
        T: Filtered,
    {
        Ok(Listing::new(match filters {
            Some(f) => f.keep(items)?,
            None => items,
        }))
    }
}

/// A list keeps its first items while they fit, and counts the rest in
/// `omitted`.
impl<T: Serialize> Fit for Listing<T> {
    fn fit(&mut self, limit: Limit) {
        let Some(budget) = limit.get() else { return };
        let empty = Listing::<T> {
            result: Vec::new(),
            omitted: usize::MAX,
        };
        let keep = fit::keep_for_list(&self.result, fit::json_len(&empty), budget);
        self.omitted += self.result.len() - keep;
        self.result.truncate(keep);
    }
}

/// `list_sessions`: every session.
#[derive(Default)]
pub struct ListSessionsRequest {
    /// Conditions every session listed meets.
    pub filters: Option<Filters>,
}

impl Op for ListSessionsRequest {
    type Response = Listing<SessionInfo>;

    async fn run(self, server: &Server, _: Limit) -> Result<Listing<SessionInfo>, Error> {
        Listing::filtered(sessions(server).await?, self.filters.as_ref())
    }
}

/// `list_windows`: the windows of one session, or of every session.
#[derive(Default)]
pub struct ListWindowsRequest {
    /// The session (by id or name); the default selector lists every
    /// session's windows.
    pub session: Selector,
    /// Conditions every window listed meets.
    pub filters: Option<Filters>,
}

impl Op for ListWindowsRequest {
    type Response = Listing<WindowInfo>;

    async fn run(self, server: &Server, _: Limit) -> Result<Listing<WindowInfo>, Error> {
        let scope = if self.session == Selector::default() {
            None
        } else {
            Some(server.resolve_session(&self.session).await?)
        };
        let (cmd, q) = template_cmd("list-windows", WindowInfo::FIELDS);
        let cmd = match &scope {
            Some(t) => cmd.target(t, TargetKind::Session),
            None => cmd.arg("-a"),
        };
        let recs = match server.records(&cmd, &q).await {
            Err(e) if scope.is_none() && is_empty_server(&e) => Vec::new(),
            other => other?,
        };
        let windows = recs.iter().map(WindowInfo::from_record).collect();
        Listing::filtered(windows, self.filters.as_ref())
    }
}

/// `list_panes`: the panes of a window, of a session, or of every
/// session.
#[derive(Default)]
pub struct ListPanesRequest {
    /// A window (`window_id`, or `window_index` in the selected session)
    /// lists its panes; else a session (`session_id`/`session_name`) lists
    /// its panes; else every pane is listed.
    pub scope: Selector,
    /// Conditions every pane listed meets.
    pub filters: Option<Filters>,
}

impl Op for ListPanesRequest {
    type Response = Listing<PaneInfo>;

    async fn run(self, server: &Server, _: Limit) -> Result<Listing<PaneInfo>, Error> {
        let sel = &self.scope;
        let scope = if sel.window_id.is_some() || sel.window_index.is_some() {
            PaneScope::Window(server.resolve_window(sel).await?)
        } else if sel.session_id.is_some() || sel.session_name.is_some() {
            PaneScope::Session(server.resolve_session(sel).await?)
        } else {
            PaneScope::All
        };
        Listing::filtered(panes(server, &scope).await?, self.filters.as_ref())
    }
}

/// Every session.
///
/// # Errors
///
/// Connection errors.
pub(super) async fn sessions(server: &Server) -> Result<Vec<SessionInfo>, Error> {
    let (cmd, q) = template_cmd("list-sessions", SessionInfo::FIELDS);
    let (body, attached) = with_attached(server, cmd).await?;
    Ok(q.parse(&body)
        .iter()
        .map(|r| SessionInfo::from_record(r, &attached))
        .collect())
}

/// The panes in `scope`.
///
/// # Errors
///
/// Connection errors; [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound)
/// for a missing target.
pub(super) async fn panes(server: &Server, scope: &PaneScope) -> Result<Vec<PaneInfo>, Error> {
    let recs = pane_records(server, scope, PaneInfo::FIELDS).await?;
    Ok(recs
        .iter()
        .map(|r| PaneInfo::from_record(r, |id| server.is_caller(id)))
        .collect())
}

/// Runs `cmd` together with `list-clients`, in one round trip, so
/// `session_attached` counts the clients attached at the same moment,
/// tmuxwire's own left out ([`Attached`]).
pub(crate) async fn with_attached(
    server: &Server,
    cmd: Command,
) -> Result<(Vec<u8>, Attached), Error> {
    let (clients, cq) = template_cmd("list-clients", Attached::FIELDS);
    let [body, clients] = server.run_each(&[cmd, clients]).await?;
    let body = body.into_result()?;
    let attached = clients
        .into_result()
        .map(|c| Attached::from_records(&cq.parse(&c)))
        .unwrap_or_default();
    Ok((body, attached))
}

/// `list_servers`: the live tmux servers of this user, asked with
/// one-shot clients only (none attached; see [`crate::tmux::discover`]).
/// Run over the server the caller is pinned to, when it is: then only
/// that server is reported (when it runs).
#[derive(Default)]
pub struct ListServersRequest {
    /// Socket paths to probe after the user's socket directory (each
    /// once; paths that are not sockets are left out).
    pub extra: Vec<std::path::PathBuf>,
    /// Report only the server the operation runs over (a server pinned
    /// to one socket must not reveal the others).
    pub pinned: bool,
}

impl Op for ListServersRequest {
    type Response = Listing<crate::tmux::ServerInfo>;

    async fn run(
        self,
        server: &Server,
        _: Limit,
    ) -> Result<Listing<crate::tmux::ServerInfo>, Error> {
        if self.pinned {
            let i = crate::tmux::target::server_info(server).await?;
            return Ok(Listing::new(if i.is_alive { vec![i] } else { Vec::new() }));
        }
        Ok(Listing::new(
            crate::tmux::discover::list_servers(&self.extra).await,
        ))
    }
}
