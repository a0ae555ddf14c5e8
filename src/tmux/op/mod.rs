//! Operations: one typed request per tool, run over one tmux server.
//!
//! Each tool of the MCP server and each CLI command is a request type
//! (`XRequest`: typed ids, line numbers and selectors, checked when it is
//! built) that implements [`Op`]. [`run`] runs it over a [`Server`] and
//! cuts the response to the caller's [`Limit`] once, as its shape's
//! [`Fit`] says; the MCP layer (`mcp::tools`) and the CLI (`cli`) call
//! the same `run` and only turn arguments into requests and responses into
//! JSON or text.
//!
//! The families, one file each:
//!
//! * [`list`]: sessions, windows and panes, with `filters` ([`filter`]);
//! * [`info`]: one server, session, window or pane;
//! * [`capture`], [`snapshot`], [`display`]: a pane's text and state
//!   (`capture_pane`, `snapshot_pane`, `display_message`);
//! * [`state`]: `get_pane_state` (input state from the pane's terminal);
//! * [`search`]: `search_panes` over scrollback and screen;
//! * [`since`]: `capture_since` (the lines new since a cursor);
//! * the waits, each a condition run by the wait engine
//!   ([`crate::tmux::wait`]): [`text`] (`wait_for_text`), [`run`]
//!   (`run_command`), [`commands`] (`wait_for_command`, with
//!   `list_commands` and `get_command_output`), [`stable`]
//!   (`wait_for_stable`);
//! * [`typing`]: keys and pastes, with [`deliver`]: whether typed input
//!   arrived and was submitted; [`buffers`]: tmuxwire's paste buffers;
//! * [`manage`]: changing sessions, windows and panes, with [`resize`]:
//!   layouts and sizes ([`create`] and [`kill`] make and remove them);
//! * [`settings`]: options, environment, hooks;
//! * [`channel`]: `wait-for` channels;
//! * [`events`]: the event log's producers, and [`poll`]: `poll_events`;
//! * [`fit`]: the response limit and how each shape is cut to it.
//!
//! An operation is usually one round trip to tmux (a command line whose
//! commands tmux runs together), or a read of the mirror after one.
//!
//! With the mirror on (the MCP server), [`run`] starts it at the first
//! call to a server and follows every pane from then on: that call waits
//! until each pane's screen is copied ([`Mirror::follow_all`]), so
//! whatever is typed into a pane after any call named or listed it is in
//! its copy (its commands, its output); panes and sessions made later are
//! followed as tmux tells the mirror of them.

/// Writes a request's [`Op`] impl from one row: the request type, its
/// response type, and its `run` as an async closure of the request, the
/// server and the caller's [`Limit`]:
///
/// `op!(XRequest, XResult, async |req, server, limit| { … });`
///
/// The closure is only the row's notation: its body becomes `run`'s
/// (`?` and `.await` work as there). A request whose impl has more than
/// `run` (`redacting`) writes the impl out; so do the families with a
/// macro of their own ([`manage::acts`], [`waited::pane_wait`]).
macro_rules! op {
    ($req:ty, $response:ty, async |$r:tt, $server:ident, $limit:tt| $body:block) => {
        impl $crate::tmux::op::Op for $req {
            type Response = $response;

            async fn run(
                self,
                $server: &$crate::tmux::op::Server,
                $limit: $crate::tmux::op::Limit,
            ) -> Result<$response, $crate::tmux::Error> {
                let $r = self;
                $body
            }
        }
    };
}

pub mod buffers;
pub mod capture;
pub mod channel;
pub mod commands;
pub mod deliver;
pub mod display;
pub mod events;
pub mod filter;
pub mod fit;
pub mod info;
pub mod list;
pub mod manage;
pub mod poll;
pub mod resize;
pub mod run;
pub mod search;
mod search_cut;
pub mod settings;
pub mod shape;
pub mod since;
pub mod snapshot;
pub mod stable;
pub mod state;
pub mod text;
pub mod typing;
mod waited;

// The manage family's creating and killing halves (see `manage`).
pub mod create;
pub mod kill;

use std::future::Future;
use std::time::Duration;

pub use filter::{Filters, FiltersArg};
pub use fit::{Fit, Limit};

use super::{Error, PaneScope, Server};
use crate::mirror::{Busy, Mirror, PaneMeta};

/// A typed request for one operation.
pub trait Op: Sized + Send {
    /// What the operation answers.
    type Response: Fit + Send;

    /// Runs the request over `server`. `limit` is the caller's response
    /// limit, for operations that can stop early once it is reached (a
    /// capture renders only the newest lines that fit); cutting the
    /// response is [`Fit`]'s job, done by [`run`].
    ///
    /// # Errors
    ///
    /// As each operation documents: [`Error`]s with a kind, the subject
    /// and the argument they concern.
    fn run(
        self,
        server: &Server,
        limit: Limit,
    ) -> impl Future<Output = Result<Self::Response, Error>> + Send;

    /// The request with redaction on or off (`--redact`,
    /// [`crate::redact`]). A request that finds text by a pattern
    /// (`search_panes`, `wait_for_text`, `get_command_output`'s `grep`)
    /// then counts no match that overlaps a secret; the text it returns
    /// is the pane's, masked by the caller. Others are unchanged (the
    /// default).
    #[must_use]
    fn redacting(self, _on: bool) -> Self {
        self
    }

    /// Whether the operation only reads: it changes no pane, option or
    /// layout. [`run`] tells the mirror after any other
    /// ([`Mirror::note_change`]), so a search after it compares every copy
    /// with tmux instead of taking a constant fence. `false` unless an
    /// operation says otherwise.
    fn reads_only(&self) -> bool {
        false
    }
}

/// Runs `request` over `server` and cuts its response to `limit`.
///
/// # Errors
///
/// The operation's ([`Op::run`]).
pub async fn run<R: Op>(server: &Server, request: R, limit: Limit) -> Result<R::Response, Error> {
    let _call = begin_call(server).await;
    let reads_only = request.reads_only();
    let response = request.run(server, limit).await;
    if !reads_only && let Some(m) = server.running_mirror() {
        // Told however the call ended: one that failed may have done part
        // of its work.
        m.note_change();
    }
    let mut response = response?;
    response.fit(limit);
    Ok(response)
}

/// How long the first call to a server waits for every pane to be
/// followed (longer, and the panes not followed yet are by the next
/// call).
const FOLLOW_WITHIN: Duration = crate::mirror::CHECK_DEADLINE;

crate::record! {
    /// What [`begin_call`] lists of a pane besides its [`PaneMeta`].
    struct PaneIdRow {
        pane_id: String = "pane_id",
    }
}

/// Readies the mirror for a call, when it is on: starts it, follows
/// every pane of the server on the first call ([`Mirror::follow_all`],
/// one `list-panes -a`, then a copy of each screen), and marks a call in
/// flight until the guard is dropped ([`Mirror::busy`]: checks nobody
/// waits for wait until calls pause). `None` when the mirror is off (the
/// CLI) or the server cannot be reached; a listing that fails is left to
/// the next call.
async fn begin_call(server: &Server) -> Option<Busy> {
    let m: std::sync::Arc<Mirror> = server.mirror().await?;
    let busy = m.busy();
    let list = async || {
        const FIELDS: &[&str] = &crate::concat_fields!(PaneMeta, PaneIdRow);
        let recs = list::pane_records(server, &PaneScope::All, FIELDS)
            .await
            .unwrap_or_default();
        recs.iter()
            .filter_map(|r| {
                let meta = PaneMeta::from_record(r);
                let pane = PaneIdRow::from_record_at(r, PaneMeta::FIELDS.len());
                Some((pane.pane_id.parse().ok()?, meta.session()?, meta))
            })
            .collect()
    };
    m.follow_all(list, FOLLOW_WITHIN).await;
    Some(busy)
}
