//! The MCP server: libtmux-mcp's read tools (same names, arguments and
//! result fields) over tmuxwire's direct tmux connection, served on stdio
//! with rmcp.
//!
//! * [`tools`]: the tool catalog and what each tool does.
//! * [`args`]: argument types, defaults, checks and lenient reading.
//! * [`schema`]: the JSON Schemas clients see, tidied.
//! * [`budget`]: the response budget every answer fits.
//! * [`filters`]: the list tools' Django-style `filters`.
//! * [`jsonrpc`]: the checks every input line passes before rmcp sees it
//!   (limits, encoding, batches, JSON-RPC errors answered here).
//! * [`stdio`]: the stdio transport: reader, rmcp, one stdout writer.
//!
//! Results: every result is one JSON object, sent as `structuredContent`
//! and serialized as the text block; lists are `{"result": [...]}`. Each
//! answer fits the response budget ([`budget`]; 1 MiB of text by default)
//! and says what it cut to fit. Failures are tool results with `isError: true`, a
//! message a model can act on, and `_meta` `{error_type, expected,
//! suggestion}`; only a message that is not a usable JSON-RPC request
//! becomes a JSON-RPC error (for example `-32602` for a `tools/call` with
//! non-object `arguments`; see [`jsonrpc`]). Logs go to stderr only.

pub mod args;
pub mod budget;
pub mod filters;
pub mod jsonrpc;
pub mod schema;
pub mod stdio;
pub mod tools;
pub mod toolsets;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::tmux::Servers;
use budget::Budget;
use toolsets::Policy;

/// Instructions sent at `initialize`.
pub const INSTRUCTIONS: &str = "\
tmuxwire reads a tmux server directly over its socket (control mode; no tmux process per call).\n\
\n\
HIERARCHY: server > sessions ($N) > windows (@N) > panes (%N).\n\
\n\
TARGETING (every tool): pane_id, window_id, session_id take ids ($N/@N/%N: unique and stable; \
names are not, so prefer ids); session_name is matched exactly; window_index is a window's index \
in that session. Without a target, pane tools use the active pane (of the window or session given, \
else of the session a person used last). socket_name (tmux -L name) selects another server. \
is_caller=true marks the pane running this client; session_attached does not count tmuxwire's own \
clients. Numbers and booleans may also be sent as strings (\"3\", \"true\").\n\
\n\
METADATA vs CONTENT: list_sessions / list_windows / list_panes / get_*_info describe objects; \
capture_pane and snapshot_pane return what a pane shows; search_panes finds text.\n\
\n\
SEARCH: search_panes searches every pane's whole scrollback and screen by default, as logical lines \
(soft wraps joined, so text split by a wrap is found). Patterns are literal unless regex=true. Each \
matched line comes with its tmux line number (0 = top of the screen, negative = scrollback), usable \
as capture_pane start/end.\n\
\n\
LIMITS: every answer fits a response budget (1 MiB of text by default) and says what it cut: \
truncated_lines and truncated_bytes (capture_pane), content_truncated_lines (snapshot_pane), \
lines_omitted (search_panes), omitted (lists). next holds the capture_pane arguments that return \
the lines cut.";

/// The MCP server handler.
#[derive(Clone)]
pub struct TmuxwireServer {
    servers: Arc<Servers>,
    tools: Arc<Vec<Tool>>,
    budget: Budget,
    policy: Arc<Policy>,
}

impl TmuxwireServer {
    /// A server answering for `servers`, with the default response budget
    /// and the default toolsets ([`toolsets::DEFAULT`]).
    pub fn new(servers: Arc<Servers>) -> TmuxwireServer {
        TmuxwireServer {
            servers,
            tools: Arc::new(tools::catalog_for(&Policy::default())),
            budget: Budget::default(),
            policy: Arc::new(Policy::default()),
        }
    }

    /// The same server with response budget `budget`.
    pub fn with_budget(self, budget: Budget) -> TmuxwireServer {
        TmuxwireServer { budget, ..self }
    }

    /// The same server offering the tools `policy` chooses.
    pub fn with_policy(self, policy: Policy) -> TmuxwireServer {
        TmuxwireServer {
            tools: Arc::new(tools::catalog_for(&policy)),
            policy: Arc::new(policy),
            ..self
        }
    }

    /// Runs one tool by name: the `tools/call` body, within the response
    /// budget. (The CLI runs tools through [`tools::call`], without one.)
    pub async fn call(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> rmcp::model::CallToolResult {
        if !self.tools.iter().any(|t| t.name == name) {
            return tools::unknown_tool(name);
        }
        tools::call_within(
            &self.servers,
            self.budget,
            name,
            arguments,
            None,
            &self.policy,
        )
        .await
    }
}

impl ServerHandler for TmuxwireServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tmuxwire", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.tools.iter().any(|t| t.name == request.name) {
            return Ok(tools::unknown_tool(&request.name).into());
        }
        let args = request.arguments.unwrap_or_default();
        // `notifications/cancelled` cancels the token (rmcp); dropping the
        // call stops its work: no further captures are sent and partial
        // results are discarded.
        let progress = progress_sink(&context);
        tokio::select! {
            r = tools::call_within(
                &self.servers, self.budget, &request.name, args, progress, &self.policy,
            ) => {
                Ok(r.into())
            }
            _ = context.ct.cancelled() => Ok(tools::cancelled(&request.name).into()),
        }
    }
}

/// Where a call reports progress: MCP `notifications/progress` for the
/// request's progress token, when the client gave one (sent in order by
/// one task; a report never waits for the client).
fn progress_sink(context: &RequestContext<RoleServer>) -> Option<crate::mirror::Progress> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, u64, String)>();
    tokio::spawn(async move {
        while let Some((done, total, what)) = rx.recv().await {
            let p = rmcp::model::ProgressNotificationParam::new(token.clone(), done as f64)
                .with_total(total as f64)
                .with_message(what);
            if peer.notify_progress(p).await.is_err() {
                return;
            }
        }
    });
    Some(std::sync::Arc::new(move |done, total, what: &str| {
        let _ = tx.send((done, total, what.to_string()));
    }))
}

/// Serves MCP on stdin/stdout until the client disconnects.
///
/// Every line read is checked by [`jsonrpc`] first: malformed lines are
/// answered with JSON-RPC errors (lines of at most
/// [`jsonrpc::MAX_LINE_BYTES`], nesting of at most [`jsonrpc::MAX_DEPTH`]),
/// and rmcp's answers and those share one stdout writer ([`stdio`]).
/// Every tool answer fits `budget`.
///
/// # Errors
///
/// Transport failures during initialization or service.
pub async fn serve_stdio(
    servers: Arc<Servers>,
    budget: Budget,
    policy: Policy,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // Non-blocking pipes when stdin/stdout are pipes (as MCP clients start
    // servers), so a pending read never holds up shutdown.
    let (read, write) = rmcp::transport::io::stdio_pipes();
    stdio::serve(
        TmuxwireServer::new(servers)
            .with_budget(budget)
            .with_policy(policy),
        read,
        write,
        jsonrpc::MAX_LINE_BYTES,
    )
    .await
}
