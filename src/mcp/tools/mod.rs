//! The tool catalog and the tools themselves, one file per toolset:
//!
//! * [`inspect`]: reading (listings, captures, searches, options,
//!   environment, buffers, hooks, servers, a batch of read tools);
//! * [`manage`]: changing tmux objects without running anything in a
//!   pane (rename, select, resize, move, swap, copy mode, buffers,
//!   channels);
//! * [`execute`]: creating things and sending input (sessions, windows,
//!   splits, keys, pastes, respawn, pipes, options, environment);
//! * [`teardown`]: killing and clearing;
//! * [`waits`]: the tools that wait on a pane as the mirror sees it
//!   (`wait_for_text`, `wait_for_command`, `wait_for_stable`,
//!   `run_command`, `poll_events`) or read it over time
//!   (`capture_since`);
//! * [`reference`]: `docs/TOOLS.md`, made from the rows.
//!
//! The machinery they share: [`row`], one tool's row (its definition,
//! schemas, hints and how a typed row runs its request); [`catalog`], the
//! table of rows and what is made from it (`tools/list`, the results
//! contract); [`call`], how a call is answered (arguments read, the
//! target tried again, errors, the budget, the text blocks).
//!
//! Every successful answer is one JSON object, sent as `structuredContent`
//! (lists are `{"result": [...]}`: MCP requires an object there; tools
//! that report an action say it in `result`, libtmux-mcp's text such as
//! `Keys sent to pane %3`). Its text block is what libtmux-mcp sends for
//! the same result, chosen by the result type's [`Rendered`] shape
//! ([`super::text`]), or the result serialized with `--json-text`. Over
//! MCP every answer fits the response budget ([`super::budget`]) and says
//! what it cut and how to get the rest. Arguments are read before
//! anything is sent to tmux, so a bad call changes nothing.

pub mod execute;
pub mod hosts;
pub mod inspect;
pub mod manage;
pub mod reference;
pub mod teardown;
pub mod waits;

mod call;
mod catalog;
mod row;
mod sentence;

use call::{answer, error_result, object, parse, server};
pub use call::{call, call_typed, call_within, cancelled, unknown_tool, wait_ceiling};
pub use catalog::{
    catalog, catalog_for, catalog_for_hosts, contract_table, declare_result_sizes, is_tool,
    shape_of, text_of, toolset_of,
};
use catalog::{def_of, defs};
use row::{
    ADDITIVE, CallFn, DESTRUCTIVE, Def, IDEMPOTENT, MAX_BYTES_ARG, OPEN, READ, Reports, Route,
    ToolArgs, VERBOSE_ARG, def, reporting, routed, row, row_as, tool, tool_args,
};
use sentence::Sentence;

use super::budget::Budget;
use super::text::TextMode;
use super::toolsets::Policy;
use crate::tmux::Servers;
use crate::tmux::op::Limit;

pub use crate::tmux::op::capture::MAX_TEXT_BYTES;

/// Longest error message sent, in bytes (messages may quote input).
const MAX_ERROR_BYTES: usize = 8 << 10;

/// What one call runs with.
pub(crate) struct Ctx<'a> {
    servers: &'a Servers,
    budget: Option<Budget>,
    progress: Option<crate::mirror::Progress>,
    policy: &'a Policy,
    /// What the text block of a successful result holds.
    text: TextMode,
    /// Diagnostics on the happy path too (`verbose: true`; always for
    /// callers that are not MCP clients).
    verbose: bool,
    /// Secrets are masked in the answer (`--redact`, [`super::redaction`]).
    redact: bool,
}

impl Ctx<'_> {
    /// The response limit of the call (none without a budget).
    fn limit(&self) -> Limit {
        self.budget.map_or(Limit::NONE, Budget::limit)
    }
}

use crate::tmux::op::list::Listing;

crate::mcp::text::rendered!(
    List: Listing<crate::tmux::SessionInfo>,
    Listing<crate::tmux::WindowInfo>,
    Listing<crate::tmux::PaneInfo>,
    Listing<crate::tmux::ServerInfo>,
);

#[cfg(test)]
mod tests;
