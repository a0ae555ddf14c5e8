//! [`TmuxwireServer`]: the MCP server handler (rmcp's [`ServerHandler`]),
//! its instructions, and [`serve_stdio`].

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CompletionInfo,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, Reference, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::budget::Budget;
use super::text::TextMode;
use super::toolsets::Policy;
use super::{jsonrpc, prompts, resources, stdio, tools};
use crate::tmux::Servers;

/// The head of the instructions sent at `initialize`: what every call
/// needs (targets, results, limits, safety), kept first and within the
/// 2 KB Claude Code keeps of a server's instructions (with the caller,
/// redaction and host lines [`instructions`] puts after it). What a
/// tool's listed schema leaves out is said here once: the targets every
/// tool takes and the server arguments, `max_bytes`, `verbose`, the
/// shaping arguments, what result fields mean.
pub const INSTRUCTIONS: &str = "\
tmuxwire drives a tmux server over its socket (control mode; no tmux process per call). \
server > sessions ($N) > windows (@N) > panes (%N).\n\
\n\
TARGETING (every tool): pane_id, window_id, session_id take ids ($N/@N/%N: stable, unlike \
names: prefer them); session_name matches exactly; window_index is an index in that session. A \
pane tool also takes window_id, session_id or session_name (its active pane); with no target, \
the active pane of the session used last. socket_name (tmux -L) or \
socket_path (-S) picks another server. Numbers and booleans may be strings (\"3\", \"true\"); a \
flag is false unless given.\n\
\n\
RESULTS: a pane, window, session or server has its get_*_info fields wherever returned (lists: {result: [...]}); \
fields that would repeat a default (0, false, null, empty) are left out. Text blocks are \
libtmux-mcp's; a second one, only when needed, holds the rest (next, omitted).\n\
\n\
LIMITS: an answer fits 40,000 bytes (max_bytes, where listed: up to 1 MiB) and says what it cut \
(truncated_lines, lines_omitted, omitted) with next: the arguments that return the rest. \
capture_pane, capture_since and get_command_output take grep (case-sensitive text) with context \
(0-100 lines), then head/tail (first/last N). verbose=true adds a confirmed delivery's evidence.\n\
\n\
SAFETY: send_keys types text exactly; a keys value that is one key name (C-c, Enter, Up) is \
pressed unless literal=true. Typing into a password prompt is refused (PasswordPrompt) unless \
allow_password_input=true. Kill tools refuse what runs this client (is_caller=true).";

/// The rest of the instructions, after the head and its lines
/// ([`instructions`]): clients that keep only 2 KB lose this, which is
/// why each tool's description stands on its own.
pub const INSTRUCTIONS_MORE: &str = "\
CONTENT: list_* and get_*_info describe objects; capture_pane and snapshot_pane return what a \
pane shows; search_panes finds text in every pane's whole scrollback as logical lines (soft \
wraps joined), literal unless regex=true, with tmux line numbers (0 = top of the screen, \
negative = scrollback) usable as capture_pane start/end: per matched line, \
matched_line_numbers (its first row), matched_line_rows (rows it spans, left out when each \
spans one) and matched_at [row, column, char, byte] where its first match starts (the row's \
tmux line number, its 0-based cell column, the offset in the line in characters and in bytes). \
session_attached does not count tmuxwire's own clients. Names, titles and paths are stored \
literally (#{...} and #(...) never expand or run); key names (C-c) always go.\n\
\n\
FOLLOWING: wait_for_text, capture_since and run_command wake on the pane's output (no polling). \
Waits are clamped to the wait ceiling (30 s unless TMUXWIRE_WAIT_MAX_SECONDS or \
LIBTMUX_MCP_WAIT_MAX_SECONDS says otherwise) and report effective_timeout. run_command's \
suppress_history defaults to true (LIBTMUX_SUPPRESS_HISTORY=0: false); cd and export do not \
persist; on timeout the command keeps running unless interrupt_on_timeout.\n\
\n\
STATE: get_pane_state says what the pane's program does with input now (input: line-editor, \
line-read, password, key-read, raw, busy, unknown). list_commands, get_command_output and wait_for_command \
(the next one to finish) read the commands a shell marks with OSC 133/633 (shell integration) \
since tmuxwire began watching the pane: state running|finished|abandoned|prompt; exit_status null \
means unknown, never 0; line numbers as capture_pane's; any program can print marks, so trusted is \
false and run_command is the checked path. wait_for_stable waits until a TUI's screen stops \
changing (mask spinners and timers). Every wait ends early as password_prompt or awaiting_input \
when the program reads a line or a key for 300 ms.";

/// What the instructions add when secrets are masked (`--redact`).
pub const REDACTION_NOTE: &str = "REDACTION: on. Secrets in returned text (keys, tokens, \
passwords) are replaced by [REDACTED:kind] markers and counted in redacted; searches and waits \
never match inside one. The pane itself is unchanged.";

/// The instructions for a server offering `policy`'s tools to `caller`,
/// which may run inside a tmux pane: [`INSTRUCTIONS`], the caller's pane,
/// each of `notes` (redaction, remote hosts: a paragraph each), then
/// [`INSTRUCTIONS_MORE`] and the toolsets. Everything up to the notes
/// fits the first 2 KB a client may keep.
pub fn instructions(policy: &Policy, caller: &crate::tmux::Caller, notes: &[String]) -> String {
    let mut s = String::from(INSTRUCTIONS);
    if let Some(pane) = caller.pane() {
        s.push_str(&format!(
            "\n\nAgent context: this MCP server runs inside tmux pane {}; results mark it \
             is_caller=true.",
            pane.chars().take(12).collect::<String>()
        ));
    }
    for n in notes {
        s.push_str("\n\n");
        s.push_str(n);
    }
    s.push_str("\n\n");
    s.push_str(INSTRUCTIONS_MORE);
    s.push_str("\n\n");
    s.push_str(&policy.describe());
    s
}

/// The MCP server handler.
#[derive(Clone)]
pub struct TmuxwireServer {
    servers: Arc<Servers>,
    /// The tools the policy offers, built on first use (building 54 input
    /// and output schemas takes a few milliseconds, which `initialize`
    /// should not wait for: [`serve_stdio`] builds them meanwhile).
    tools: Arc<std::sync::OnceLock<Vec<Tool>>>,
    budget: Budget,
    policy: Arc<Policy>,
    text: TextMode,
    /// Secrets are masked in every answer (`--redact`).
    redact: bool,
    /// Events pushed to this client ([`super::push`]).
    push: Arc<super::push::Push>,
}

impl TmuxwireServer {
    /// A server answering for `servers`, with the default response budget
    /// and the default toolsets ([`super::toolsets::DEFAULT`]).
    pub fn new(servers: Arc<Servers>) -> TmuxwireServer {
        TmuxwireServer {
            tools: Arc::default(),
            budget: Budget::default(),
            policy: Arc::new(Policy::default()),
            text: TextMode::default(),
            redact: false,
            push: Arc::new(super::push::Push::new(
                servers.clone(),
                super::push::channel_enabled(),
                false,
            )),
            servers,
        }
    }

    /// The tools offered, in listing order.
    fn tools(&self) -> &[Tool] {
        self.tools.get_or_init(|| {
            let mut names: Vec<String> = self
                .servers
                .hosts()
                .iter()
                .filter_map(|h| h.host_name().map(str::to_string))
                .collect();
            if !names.is_empty() && !self.servers.is_host_pinned() {
                names.insert(0, crate::tmux::LOCAL_HOST.to_string());
            }
            // No hosts: libtmux-mcp's surface, unchanged.
            let mut list =
                tools::catalog_for_hosts(&self.policy, (!names.is_empty()).then_some(&names[..]));
            tools::declare_result_sizes(&mut list, self.budget);
            list
        })
    }

    /// The same server writing text blocks as `text` says.
    pub fn with_text(self, text: TextMode) -> TmuxwireServer {
        TmuxwireServer { text, ..self }
    }

    /// The same server masking secrets in every answer when `redact`
    /// ([`super::redaction`]).
    pub fn with_redact(self, redact: bool) -> TmuxwireServer {
        let push = Arc::new(super::push::Push::new(
            self.servers.clone(),
            self.push.channel(),
            redact,
        ));
        TmuxwireServer {
            redact,
            push,
            ..self
        }
    }

    /// The same server with response budget `budget`.
    pub fn with_budget(self, budget: Budget) -> TmuxwireServer {
        // The tool list declares result sizes from the budget.
        TmuxwireServer {
            budget,
            tools: Arc::default(),
            ..self
        }
    }

    /// The same server offering the tools `policy` chooses.
    pub fn with_policy(self, policy: Policy) -> TmuxwireServer {
        TmuxwireServer {
            tools: Arc::default(),
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
        if !self.tools().iter().any(|t| t.name == name) {
            return tools::unknown_tool(name);
        }
        tools::call_within(
            &self.servers,
            self.budget,
            name,
            arguments,
            None,
            &self.policy,
            self.text,
            self.redact,
        )
        .await
    }
}

impl ServerHandler for TmuxwireServer {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .build();
        // `resources/subscribe` on pane addresses, and the opt-in Claude
        // Code channel ([`super::push`]).
        if let Some(r) = caps.resources.as_mut() {
            r.subscribe = Some(true);
        }
        if self.push.channel() {
            caps.experimental = Some(
                [("claude/channel".to_string(), serde_json::Map::new())]
                    .into_iter()
                    .collect(),
            );
        }
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("tmuxwire", env!("CARGO_PKG_VERSION")))
            .with_instructions({
                let names: Vec<&str> = self
                    .servers
                    .hosts()
                    .iter()
                    .filter_map(|h| h.host_name())
                    .collect();
                let mut notes = Vec::new();
                if self.redact {
                    notes.push(REDACTION_NOTE.to_string());
                }
                if !names.is_empty() {
                    notes.push(format!(
                        "Remote hosts: {}. Every tool takes host (default: {}); ids \
                         are per host, a remote host's results carry host, socket_name and \
                         socket_path name its servers; list_hosts shows their state.",
                        names.join(", "),
                        if self.servers.is_host_pinned() && names.len() == 1 {
                            names[0]
                        } else {
                            "local"
                        }
                    ));
                }
                instructions(&self.policy, self.servers.default_server().caller(), &notes)
            })
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if self.push.channel() {
            self.push.start(context.peer);
        }
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.push.subscribe(&request.uri)?;
        self.push.start(context.peer);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        // 2026-07-28's `subscriptions/listen`: pane addresses only
        // ([`super::push`]).
        let uris = requested.resource_subscriptions.as_deref().unwrap_or(&[]);
        Some(
            rmcp::model::SubscriptionFilter::builder()
                .resource_subscriptions(self.push.acceptable(uris))
                .build(),
        )
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        let peer = context.request_context().peer.clone();
        self.push
            .listen(context.sink().clone(), context.cancelled(), peer)
            .await;
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.push.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        // Only templates: every resource names a live object.
        Ok(ListResourcesResult::with_all_items(Vec::new()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        resources::read(&self.servers, &request.uri, self.redact)
            .await
            .map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let args: std::collections::BTreeMap<String, String> = request
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect();
        match prompts::render(&request.name, &args) {
            Ok(r) => Ok(r.into()),
            Err(prompts::PromptError::Unknown(m) | prompts::PromptError::Argument(m)) => {
                Err(McpError::invalid_params(m, None))
            }
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let context = |k: &str| {
            request
                .context
                .as_ref()
                .and_then(|c| c.get_argument(k))
                .map(String::as_str)
        };
        let known = match &request.r#ref {
            Reference::Resource(r) => resources::TEMPLATES.iter().any(|t| t.0 == r.uri),
            Reference::Prompt(p) => prompts::PROMPTS.iter().any(|t| t.0 == p.name),
            _ => false,
        };
        let values = if known {
            resources::complete(
                &self.servers,
                &request.argument.name,
                &request.argument.value,
                context("session_name"),
                context("socket_name"),
            )
            .await
        } else {
            Vec::new()
        };
        let info = CompletionInfo::with_all_values(values).unwrap_or_default();
        Ok(CompleteResult::new(info))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.tools().iter().any(|t| t.name == request.name) {
            return Ok(tools::unknown_tool(&request.name).into());
        }
        let args = request.arguments.unwrap_or_default();
        // `notifications/cancelled` cancels the token (rmcp); dropping the
        // call stops its work: no further captures are sent and partial
        // results are discarded.
        let (progress, reports) = match progress_sink(&context) {
            Some((p, task)) => (Some(p), Some(task)),
            None => (None, None),
        };
        let answer = tokio::select! {
            r = tools::call_within(
                &self.servers, self.budget, &request.name, args, progress, &self.policy,
                self.text, self.redact,
            ) => {
                Ok(r.into())
            }
            _ = context.ct.cancelled() => Ok(tools::cancelled(&request.name).into()),
        };
        // A call may have named a server the channel does not follow yet.
        self.push.look_again();
        // The call's reports go out before its answer (the sink is gone
        // with the call, so the task ends once it has sent them).
        if let Some(task) = reports {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), task).await;
        }
        answer
    }
}

/// Progress reports of one call queued for the client at most.
const PROGRESS_QUEUE: usize = 64;

/// Where a call reports progress: MCP `notifications/progress` for the
/// request's progress token, when the client gave one (sent in order by
/// one task, which ends when the sink is dropped; a report never waits for
/// the client).
fn progress_sink(
    context: &RequestContext<RoleServer>,
) -> Option<(crate::mirror::Progress, tokio::task::JoinHandle<()>)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    // Bounded, and a report never waits: a call makes a few per second at
    // most (one per pane seeded, one per second of a wait), so the queue
    // fills only when the client stops reading; the reports that do not
    // fit are dropped (each says how far the call got, so a later one
    // replaces an earlier one).
    let (tx, mut rx) = tokio::sync::mpsc::channel::<(u64, u64, String)>(PROGRESS_QUEUE);
    let task = tokio::spawn(async move {
        while let Some((done, total, what)) = rx.recv().await {
            let p = rmcp::model::ProgressNotificationParam::new(token.clone(), done as f64)
                .with_total(total as f64)
                .with_message(what);
            if peer.notify_progress(p).await.is_err() {
                return;
            }
        }
    });
    let sink: crate::mirror::Progress = std::sync::Arc::new(move |done, total, what: &str| {
        let _ = tx.try_send((done, total, what.to_string()));
    });
    Some((sink, task))
}

/// Serves MCP on stdin/stdout until the client disconnects.
///
/// Every line read is checked by [`jsonrpc`] first: malformed lines are
/// answered with JSON-RPC errors (lines of at most
/// [`jsonrpc::MAX_LINE_BYTES`], nesting of at most [`jsonrpc::MAX_DEPTH`]),
/// and rmcp's answers and those share one stdout writer ([`stdio`]).
/// Every tool answer fits `budget`; `text` says what text blocks hold;
/// with `redact`, secrets are masked in every answer and resource
/// ([`super::redaction`]).
///
/// # Errors
///
/// Transport failures during initialization or service.
pub async fn serve_stdio(
    servers: Arc<Servers>,
    budget: Budget,
    policy: Policy,
    text: TextMode,
    redact: bool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // Non-blocking pipes when stdin/stdout are pipes (as MCP clients start
    // servers), so a pending read never holds up shutdown.
    let (read, write) = rmcp::transport::io::stdio_pipes();
    let server = TmuxwireServer::new(servers)
        .with_budget(budget)
        .with_policy(policy)
        .with_text(text)
        .with_redact(redact);
    // The tool list is built while the client initializes.
    let warm = server.clone();
    tokio::task::spawn_blocking(move || {
        warm.tools();
    });
    stdio::serve(server, read, write, jsonrpc::MAX_LINE_BYTES).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code keeps the first 2 KB of a server's instructions: the
    /// head, the caller's pane, redaction and two remote hosts fit it.
    #[test]
    fn what_a_call_needs_fits_the_first_two_kilobytes() {
        let caller = crate::tmux::Caller::new(Some("/tmp/tmux-0/default,1,0"), Some("%123"));
        let hosts = "Remote hosts: build-box-01, gpu-node-17. Every tool takes host (default: \
                     local); ids are per host, a remote host's results carry host, socket_name \
                     and socket_path name its servers; list_hosts shows their state.";
        let s = instructions(
            &Policy::default(),
            &caller,
            &[REDACTION_NOTE.to_string(), hosts.to_string()],
        );
        let end = s.find(hosts).map(|i| i + hosts.len());
        assert!(end.is_some_and(|e| e <= 2048), "{end:?}");
        assert!(s.find("Agent context").is_some_and(|i| i < 2048));
        assert!(s.contains(INSTRUCTIONS_MORE));
    }
}
