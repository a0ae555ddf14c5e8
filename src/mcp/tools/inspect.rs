//! The inspect tools: reading only. The eleven read tools (listings,
//! captures, `search_panes`), and the reference's other readers: servers,
//! options, environment, buffers, hooks, a pane by corner, and a batch of
//! read tools in one call.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Ctx, Def, READ, def, object, parse, server, targeting, tool_args, unknown_tool};
use crate::control::Target;
use crate::mcp::args::{self, *};
use crate::mcp::budget::{Budget, json_len};
use crate::mcp::text::{self, Rendered, TextShape};
use crate::search::{Pattern, PatternOptions};
use crate::term::LineNo;
use crate::tmux::op::capture::{
    CapturePaneRequest, CaptureResult, DisplayMessageRequest, SnapshotPaneRequest, SnapshotResult,
    TextResult, fit_room,
};
use crate::tmux::op::info::{
    PaneInfoRequest, ServerInfoRequest, SessionInfoRequest, WindowInfoRequest,
};
use crate::tmux::op::list::{ListPanesRequest, ListSessionsRequest, ListWindowsRequest, Listing};
use crate::tmux::op::search::SearchPanesRequest;
use crate::tmux::op::{self, Filters, Fit, Limit};
use crate::tmux::{Error, PaneInfo, PaneScope, SearchPanesResult, Selector, ServerInfo, Tmux};

impl Rendered for CaptureResult {
    const TEXT: TextShape = TextShape::String;
}

impl Rendered for TextResult {
    const TEXT: TextShape = TextShape::String;
}

impl Rendered for SnapshotResult {
    const TEXT: TextShape = TextShape::Object(&text::SNAPSHOT);
}

/// The inspect tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        super::list_of_read(super::row::<ListSessionsArgs>(
            "list_sessions",
            "List tmux Sessions",
            READ,
            "All sessions on the tmux server.",
        )),
        super::list_of_read(super::row::<ListWindowsArgs>(
            "list_windows",
            "List tmux Windows",
            READ,
            "Windows of one session, or of all sessions.",
        )),
        super::list_of_read(super::row::<ListPanesArgs>(
            "list_panes",
            "List tmux Panes",
            READ,
            "Panes of a window, a session, or all; for their text: capture_pane, search_panes.",
        )),
        super::row::<ServerArgs>(
            "get_server_info",
            "Get tmux Server Info",
            READ,
            "Whether a tmux server runs (is_alive), its version, pid and session count. Never \
             starts one.",
        ),
        super::row::<SessionArgs>(
            "get_session_info",
            "Get tmux Session Info",
            READ,
            "One session (default: the one a person used last).",
        ),
        super::row::<WindowArgs>(
            "get_window_info",
            "Get tmux Window Info",
            READ,
            "One window, by id or by index in a session (default: the session's active one).",
        ),
        super::row::<PaneArgs>(
            "get_pane_info",
            "Get tmux Pane Info",
            READ,
            "One pane (default: the active one).",
        ),
        super::bare_output(super::row::<CapturePaneArgs>(
            "capture_pane",
            "Capture Pane",
            READ,
            "A pane's text, one line per row (join_wrapped: logical lines), tmux lines start to end (default: the screen): the newest max_lines that fit; next gets older ones.",
        )),
        super::bare_output(super::row::<SnapshotPaneArgs>(
            "snapshot_pane",
            "Snapshot Pane",
            READ,
            "A pane's visible screen and state in one call: cursor, size, process, copy mode, \
             scroll position, alternate screen, history size.",
        )),
        super::row::<DisplayMessageArgs>(
            "display_message",
            "Evaluate tmux Format String",
            READ,
            "Expand #{variable} references for a pane; other text is literal, modifiers are refused, #(...) never runs.",
        ),
        super::bare_output(def::<SearchPanesArgs, SearchPanesResult>(
            "search_panes",
            "Search tmux Panes",
            READ,
            "Find lines containing a pattern in every pane's scrollback and screen (or one session's), soft wraps joined. Literal, case-insensitive by default. Per pane the newest matches with tmux line numbers; panes paged by offset/limit.",
        )),
        super::list_of_read(def::<ListServersArgs, Listing<ServerInfo>>(
            "list_servers",
            "List tmux Servers",
            READ,
            "Live tmux servers of this user ($TMUX_TMPDIR or /tmp) and extra_socket_paths, asked with one-shot clients (none attached).",
        )),
        def::<ShowOptionArgs, OptionResult>(
            "show_option",
            "Show tmux Option",
            READ,
            "An option's value where set (null: not set there). scope: server, session (default), window, pane; target: a session name, $N, @N or %N; global_: the global table.",
        ),
        def::<ShowEnvironmentArgs, EnvironmentResult>(
            "show_environment",
            "Show tmux Environment",
            READ,
            "The global environment, or a session's. A variable marked for removal reads \
             \"-NAME\": true.",
        ),
        super::bare_output(def::<ShowBufferArgs, BufferContent>(
            "show_buffer",
            "Show tmux Buffer",
            READ,
            "The exact text of a tmuxwire buffer (load_buffer); the newest max_lines lines when longer.",
        )),
        def::<ShowHooksArgs, HookListResult>(
            "show_hooks",
            "Show tmux Hooks",
            READ,
            "Hooks set at a scope (as show_option; server without target: all global hooks).",
        ),
        super::bare_output(def::<ShowHookArgs, HookListResult>(
            "show_hook",
            "Show tmux Hook",
            READ,
            "One hook's commands, as show_hooks (entries: [] when unset).",
        )),
        super::bare_output(def::<FindPaneArgs, PaneInfo>(
            "find_pane_by_position",
            "Find Pane by Position",
            READ,
            "The pane at a corner of a window (default: the active window of the session).",
        )),
        def::<BatchArgs, BatchResult>(
            "call_read_tools_batch",
            "Call Read Tools in a Batch",
            READ,
            "Run up to 1000 inspect tools in one call: [{tool, arguments}], results in order; on_error stop (default) or continue.",
        ),
    ]
    .into_iter()
    .chain(super::follow::inspect_defs())
    .collect()
}

tool_args!(ListSessionsArgs => ListSessionsRequest, |a| Ok(ListSessionsRequest {
    filters: a.filters.as_ref().map(Filters::parse).transpose()?,
}));

tool_args!(ListWindowsArgs => ListWindowsRequest, |a| Ok(ListWindowsRequest {
    session: targeting!(a).selector()?,
    filters: a.filters.as_ref().map(Filters::parse).transpose()?,
}));

tool_args!(ListPanesArgs => ListPanesRequest, |a| Ok(ListPanesRequest {
    scope: targeting!(a, window_id, window_index).selector()?,
    filters: a.filters.as_ref().map(Filters::parse).transpose()?,
}));

tool_args!(ServerArgs => ServerInfoRequest, |_a| Ok(ServerInfoRequest));

tool_args!(SessionArgs => SessionInfoRequest, |a| Ok(SessionInfoRequest {
    session: targeting!(a).selector()?,
}));

tool_args!(WindowArgs => WindowInfoRequest, |a| Ok(WindowInfoRequest {
    window: targeting!(a, window_id, window_index).selector()?,
}));

tool_args!(PaneArgs => PaneInfoRequest, |a| Ok(PaneInfoRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
}));

tool_args!(CapturePaneArgs => CapturePaneRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?;
    let start = args::line("start", a.start)?;
    let end = args::line("end", a.end)?;
    Ok(CapturePaneRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        start: start.map(LineNo),
        end: end.map(LineNo),
        join: a.join_wrapped,
        max_lines,
    })
});

tool_args!(SnapshotPaneArgs => SnapshotPaneRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?;
    Ok(SnapshotPaneRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        max_lines,
    })
});

tool_args!(DisplayMessageArgs => DisplayMessageRequest, |a| {
    let format = args::tmux_format(&a.format_string)?;
    let pane = targeting!(a, pane_id, window_id).selector()?;
    Ok(DisplayMessageRequest::new(pane, &format))
});

tool_args!(SearchPanesArgs => SearchPanesRequest, |a| {
    let per_pane =
        args::positive_required("max_matched_lines_per_pane", a.max_matched_lines_per_pane)?;
    let limit = args::positive("limit", a.limit)?;
    if a.offset < 0 {
        return Err(Error::invalid(
            "offset",
            format!("offset must be ≥ 0 (received {})", a.offset),
            "offset ≥ 0 (matching panes to skip)",
        ));
    }
    let content_start = args::line("content_start", a.content_start)?;
    let content_end = args::line("content_end", a.content_end)?;
    let opts = PatternOptions {
        regex: a.regex,
        case_sensitive: a.match_case,
    };
    let pattern = Arc::new(Pattern::new(&a.pattern, opts)?);
    let sel = targeting!(a).selector()?;
    Ok(SearchPanesRequest {
        pattern,
        session: (sel != Selector::default()).then_some(sel),
        content_start: content_start.map(LineNo),
        content_end: content_end.map(LineNo),
        max_matched_lines_per_pane: per_pane,
        limit,
        offset: usize::try_from(a.offset).unwrap_or(usize::MAX),
        progress: None,
    })
});

/// Runs one inspect tool.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let (servers, budget) = (ctx.servers, ctx.budget);
    let progress = ctx.progress.clone();
    match name {
        "wait_for_text" | "capture_since" => Box::pin(super::follow::run(ctx, name, args)).await,
        "search_panes" => {
            // A typed request, with the call's progress reporter (seeding
            // the mirror and scanning take long on many panes).
            use super::ToolArgs as _;
            let a: SearchPanesArgs = parse(args)?;
            let t = servers.get_socket(a.socket_name.as_deref(), a.socket_path.as_deref())?;
            let mut req = a.into_request()?;
            req.progress = progress;
            let limit = budget.map_or(Limit::NONE, Budget::limit);
            Ok(object(&op::run(&t, req, limit).await?))
        }
        "list_servers" => {
            let a: ListServersArgs = parse(args)?;
            let infos = if servers.is_pinned() {
                let t = servers.default_server();
                let i = crate::tmux::op::info::server_info(t).await?;
                if i.is_alive { vec![i] } else { Vec::new() }
            } else {
                let extra: Vec<std::path::PathBuf> = a
                    .extra_socket_paths
                    .unwrap_or_default()
                    .into_iter()
                    .map(std::path::PathBuf::from)
                    .collect();
                crate::tmux::discover::list_servers(&extra).await
            };
            let mut l = Listing::new(infos);
            l.fit(budget.map_or(Limit::NONE, Budget::limit));
            Ok(object(&l))
        }
        "show_option" => {
            let a: ShowOptionArgs = parse(args)?;
            let t = server(servers, &a.socket_name, &a.socket_path)?;
            let place = place(&t, a.scope, a.target.as_deref(), a.global_).await?;
            let value = t.show_option(&a.option, &place).await?;
            Ok(object(&OptionResult {
                option: a.option,
                value: value.map(typed).unwrap_or(Value::Null),
            }))
        }
        "show_environment" => {
            let a: ShowEnvironmentArgs = parse(args)?;
            let targeting = targeting!(a);
            let sel = targeting.selector()?;
            let t = targeting.server(servers)?;
            let session = if sel == Selector::default() {
                None
            } else {
                Some(t.session_target(&sel).await?)
            };
            let mut variables = Map::new();
            for (k, v) in t.show_environment(session.as_ref()).await? {
                match v {
                    Some(v) => variables.insert(k, Value::String(v)),
                    None => variables.insert(format!("-{k}"), Value::Bool(true)),
                };
            }
            Ok(object(&EnvironmentResult { variables }))
        }
        "show_buffer" => {
            let a: ShowBufferArgs = parse(args)?;
            let max_lines = args::positive("max_lines", a.max_lines)?;
            own_buffer(&a.buffer_name)?;
            let t = server(servers, &a.socket_name, &a.socket_path)?;
            let bytes = t.show_buffer(&a.buffer_name).await?;
            Ok(object(&buffer_content(
                a.buffer_name,
                &bytes,
                max_lines,
                budget,
            )))
        }
        "show_hooks" => {
            let a: ShowHooksArgs = parse(args)?;
            let t = server(servers, &a.socket_name, &a.socket_path)?;
            let place = place(&t, a.scope, a.target.as_deref(), a.global_).await?;
            let entries = t.show_hooks(&place, None).await?;
            Ok(object(&HookListResult { entries }))
        }
        "show_hook" => {
            let a: ShowHookArgs = parse(args)?;
            let t = server(servers, &a.socket_name, &a.socket_path)?;
            let place = place(&t, a.scope, a.target.as_deref(), a.global_).await?;
            let entries = t.show_hooks(&place, Some(&a.hook_name)).await?;
            Ok(object(&HookListResult { entries }))
        }
        "find_pane_by_position" => {
            let a: FindPaneArgs = parse(args)?;
            let (t, window) = targeting!(a, window_id, window_index)
                .window_target(servers)
                .await?;
            let panes =
                crate::tmux::op::list::panes(&t, &PaneScope::Window(window.clone())).await?;
            let pick = corner_pane(&panes, a.corner).ok_or_else(|| {
                let w = panes
                    .first()
                    .map_or_else(|| window.to_string(), |p| p.window_id.clone());
                Error::not_found(format!(
                    "No pane found at corner '{}' in window {w}.",
                    a.corner.name()
                ))
            })?;
            Ok(object(pick))
        }
        "call_read_tools_batch" => {
            let a: BatchArgs = parse(args)?;
            batch(ctx, a).await
        }
        other => Ok(unknown_tool(other)),
    }
}

/// `list_servers`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListServersArgs {
    /// Socket paths to probe as well, after the scan.
    extra_socket_paths: Option<Vec<String>>,
}

/// `show_option`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowOptionArgs {
    /// Option name, e.g. history-limit or @my-option.
    option: String,
    scope: Option<ScopeArg>,
    /// Needs scope: a session name or $N, @N, %N.
    target: Option<String>,
    /// The global table (-g).
    #[serde(default)]
    global_: bool,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `show_option`'s result (libtmux-mcp `OptionResult`): a number when the
/// value is one, else the text; null when not set.
#[derive(Serialize, JsonSchema)]
struct OptionResult {
    option: String,
    #[schemars(with = "Option<OptionValue>")]
    value: Value,
}

impl Rendered for OptionResult {
    const TEXT: TextShape = TextShape::Object(&text::OPTION);
}

/// What an option's value can be (for the output schema only): tmux's
/// text, or a number or flag read from it.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum OptionValue {
    Text(String),
    Number(f64),
    Flag(bool),
}

/// `show_environment`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowEnvironmentArgs {
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `show_environment`'s result (libtmux-mcp `EnvironmentResult`).
#[derive(Serialize, JsonSchema)]
struct EnvironmentResult {
    variables: Map<String, Value>,
}

impl Rendered for EnvironmentResult {
    const TEXT: TextShape = TextShape::Object(&text::ENVIRONMENT);
}

/// `show_buffer`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowBufferArgs {
    /// A name load_buffer returned.
    buffer_name: String,
    /// Keep the newest N lines (N ≥ 1); null: all.
    #[serde(default = "default_buffer_lines")]
    max_lines: Option<i64>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

fn default_buffer_lines() -> Option<i64> {
    Some(500)
}

/// `show_buffer`'s result (libtmux-mcp `BufferContent`).
#[derive(Serialize, JsonSchema)]
struct BufferContent {
    buffer_name: String,
    content: String,
    content_truncated: bool,
    content_truncated_lines: usize,
    #[serde(skip_serializing_if = "super::is_zero")]
    content_truncated_bytes: usize,
}

impl Rendered for BufferContent {
    const TEXT: TextShape = TextShape::Object(&text::BUFFER);
}

/// `show_hooks`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowHooksArgs {
    scope: Option<ScopeArg>,
    /// Needs scope: a session name or $N, @N, %N.
    target: Option<String>,
    /// The global table (-g).
    #[serde(default)]
    global_: bool,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `show_hook`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowHookArgs {
    /// e.g. after-new-window.
    hook_name: String,
    scope: Option<ScopeArg>,
    /// Needs scope: a session name or $N, @N, %N.
    target: Option<String>,
    /// The global table (-g).
    #[serde(default)]
    global_: bool,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `show_hooks`' and `show_hook`'s result (libtmux-mcp `HookListResult`).
#[derive(Serialize, JsonSchema)]
struct HookListResult {
    entries: Vec<crate::tmux::HookEntry>,
}

impl Rendered for HookListResult {
    const TEXT: TextShape = TextShape::Object(&text::HOOKS);
}

/// A window corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
enum Corner {
    /// Top left.
    TopLeft,
    /// Top right.
    TopRight,
    /// Bottom left.
    BottomLeft,
    /// Bottom right.
    BottomRight,
}

impl Corner {
    fn name(self) -> &'static str {
        match self {
            Corner::TopLeft => "top-left",
            Corner::TopRight => "top-right",
            Corner::BottomLeft => "bottom-left",
            Corner::BottomRight => "bottom-right",
        }
    }
}

/// `find_pane_by_position`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FindPaneArgs {
    corner: Corner,
    window_id: Option<String>,
    window_index: Option<i64>,
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// The pane at `corner`: of those touching both edges, the one with the
/// largest `pane_left + pane_top` (libtmux-mcp's tie rule).
fn corner_pane(panes: &[PaneInfo], corner: Corner) -> Option<&PaneInfo> {
    panes
        .iter()
        .filter(|p| {
            let g = &p.geometry;
            match corner {
                Corner::TopLeft => g.pane_at_top && g.pane_at_left,
                Corner::TopRight => g.pane_at_top && g.pane_at_right,
                Corner::BottomLeft => g.pane_at_bottom && g.pane_at_left,
                Corner::BottomRight => g.pane_at_bottom && g.pane_at_right,
            }
        })
        .max_by_key(|p| p.geometry.pane_left + p.geometry.pane_top)
}

/// One operation of a batch.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Operation {
    /// An inspect tool.
    tool: String,
    /// Its arguments.
    #[serde(default)]
    arguments: Map<String, Value>,
}

/// `call_read_tools_batch`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BatchArgs {
    /// [{tool, arguments}], 1 to 1000.
    operations: Vec<Operation>,
    #[serde(default)]
    on_error: OnError,
}

/// One operation's outcome (libtmux-mcp `ToolCallOperationResult`).
#[derive(Serialize, JsonSchema)]
struct OperationResult {
    index: usize,
    tool: String,
    success: bool,
    error: Option<String>,
    /// Content blocks (objects).
    #[schemars(with = "Vec<Map<String, Value>>")]
    content: Vec<Value>,
    #[schemars(with = "Option<Map<String, Value>>")]
    structured_content: Option<Value>,
    #[schemars(with = "Option<Map<String, Value>>")]
    meta: Option<Value>,
    elapsed_seconds: f64,
}

/// `call_read_tools_batch`'s result (libtmux-mcp `ToolCallBatchResult`).
#[derive(Serialize, JsonSchema)]
struct BatchResult {
    results: Vec<OperationResult>,
    succeeded: usize,
    failed: usize,
    stopped_at: Option<usize>,
    response_truncated: bool,
    response_truncated_bytes: usize,
}

impl Rendered for BatchResult {
    const TEXT: TextShape = TextShape::Object(&text::TOOL_BATCH);
}

/// Most operations in one batch.
const MAX_OPERATIONS: usize = 1000;

/// What nested content is replaced with when a batch is over the budget.
const CUT_CONTENT: &str = "[... batch truncated nested content ...]";

/// Why an operation may not run in a read batch, if it may not.
fn refusal(policy: &crate::mcp::toolsets::Policy, tool: &str) -> Option<String> {
    use crate::mcp::toolsets::{SELF_BOUNDED, Toolset, toolset_of};
    let shown: String = tool.chars().take(64).collect();
    if tool == "call_read_tools_batch" {
        return Some("Batch tools cannot call batch tools recursively.".into());
    }
    if SELF_BOUNDED.contains(&tool) {
        return Some(format!(
            "Tool '{shown}' enforces its own wait ceiling and cannot be batched; call it directly."
        ));
    }
    match toolset_of(tool) {
        None => Some(format!("Unknown tool: '{shown}'")),
        Some(_) if policy.is_excluded(tool) => Some(format!("Unknown tool: '{shown}'")),
        Some(Toolset::Inspect) => None,
        Some(_) => Some(format!(
            "Tool '{shown}' is not an 'inspect' tool, so it cannot run in a read batch. Call it \
             directly."
        )),
    }
}

/// `call_read_tools_batch`: every operation runs at once (their commands
/// share writes to tmux), and the results are then read in order: with
/// `on_error: stop`, those after the first failure are dropped (read tools
/// change nothing, so running them changed nothing).
async fn batch(ctx: &Ctx<'_>, a: BatchArgs) -> Result<CallToolResult, Error> {
    let n = a.operations.len();
    if n == 0 || n > MAX_OPERATIONS {
        return Err(Error::invalid(
            "operations",
            format!("operations must hold 1 to {MAX_OPERATIONS} operations (received {n})"),
            "a list of {tool, arguments} objects",
        ));
    }
    let start = std::time::Instant::now();
    let inner = super::Ctx {
        servers: ctx.servers,
        budget: None,
        progress: None,
        policy: ctx.policy,
        text: ctx.text,
    };
    let runs = a.operations.iter().map(|op| {
        let inner = &inner;
        async move {
            if let Some(why) = refusal(inner.policy, &op.tool) {
                return (super::error_result(&why, "NotAllowed", true, None), 0.0);
            }
            let r = Box::pin(super::answer(inner, &op.tool, op.arguments.clone())).await;
            (r, start.elapsed().as_secs_f64())
        }
    });
    let outcomes = futures::future::join_all(runs).await;
    let mut results = Vec::with_capacity(n);
    let (mut succeeded, mut failed, mut stopped_at) = (0, 0, None);
    for (index, ((r, elapsed), op)) in outcomes.into_iter().zip(&a.operations).enumerate() {
        let success = r.is_error != Some(true);
        let content: Vec<Value> = r
            .content
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok())
            .collect();
        let error = (!success).then(|| {
            r.content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect::<Vec<_>>()
                .join("\n")
        });
        results.push(OperationResult {
            index,
            tool: op.tool.clone(),
            success,
            error,
            content,
            structured_content: r.structured_content.clone(),
            meta: r.meta.as_ref().and_then(|m| serde_json::to_value(m).ok()),
            elapsed_seconds: elapsed,
        });
        if success {
            succeeded += 1;
        } else {
            failed += 1;
            if a.on_error == OnError::Stop {
                stopped_at = Some(index);
                break;
            }
        }
    }
    let mut out = BatchResult {
        results,
        succeeded,
        failed,
        stopped_at,
        response_truncated: false,
        response_truncated_bytes: 0,
    };
    if let Some(b) = ctx.budget {
        // Over the budget: the nested answers go, from the last one back.
        let mut size = json_len(&out);
        let mut i = out.results.len();
        while size > b.bytes() && i > 0 {
            i -= 1;
            let r = &mut out.results[i];
            let before = json_len(&r.content) + json_len(&r.structured_content);
            r.content = vec![json!({"type": "text", "text": CUT_CONTENT})];
            r.structured_content = None;
            let after = json_len(&r.content) + json_len(&r.structured_content);
            out.response_truncated = true;
            out.response_truncated_bytes += before.saturating_sub(after);
            size = json_len(&out);
        }
    }
    Ok(object(&out))
}

/// Where an option or hook tool reads: `scope`, `target` (resolved: a
/// session name or `$N`, `@N`, `%N`), `global_`.
pub(super) async fn place(
    t: &Tmux,
    scope: Option<ScopeArg>,
    target: Option<&str>,
    global: bool,
) -> Result<crate::tmux::settings::Place, Error> {
    use crate::tmux::settings::{Place, Scope};
    let scope = scope.map(|s| match s {
        ScopeArg::Server => Scope::Server,
        ScopeArg::Session => Scope::Session,
        ScopeArg::Window => Scope::Window,
        ScopeArg::Pane => Scope::Pane,
    });
    let target = match (target.filter(|t| !t.is_empty()), scope) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(Error::invalid(
                "scope",
                "scope is required when target is specified",
                "scope: session, window or pane, with a target of that kind",
            ));
        }
        (Some(_), Some(Scope::Server)) => {
            return Err(Error::invalid(
                "target",
                "server options have no target",
                "no target for scope server",
            ));
        }
        (Some(s), Some(Scope::Session)) => Some(
            t.session_target(&crate::tmux::manage::session_ref(s))
                .await?,
        ),
        (Some(s), Some(Scope::Window)) => Some(Target::Window(s.parse().map_err(|_| {
            Error::invalid(
                "target",
                "a window target is a window id",
                "a window id like @2",
            )
        })?)),
        (Some(s), Some(Scope::Pane)) => Some(Target::Pane(s.parse().map_err(|_| {
            Error::invalid("target", "a pane target is a pane id", "a pane id like %3")
        })?)),
    };
    Ok(Place {
        scope,
        target,
        global,
    })
}

/// An option value as libtmux-mcp types it: a whole number as a number,
/// anything else as text.
fn typed(value: String) -> Value {
    let plain = !value.is_empty()
        && value.len() < 19
        && value
            .strip_prefix('-')
            .unwrap_or(&value)
            .bytes()
            .all(|b| b.is_ascii_digit());
    match value.parse::<i64>() {
        Ok(n) if plain => Value::from(n),
        _ => Value::String(value),
    }
}

/// Only buffers of tmuxwire's namespace may be read, pasted or deleted:
/// the user's own buffers (clipboard history) stay out of reach.
pub(super) fn own_buffer(name: &str) -> Result<(), Error> {
    if crate::tmux::input::is_own_buffer(name) {
        return Ok(());
    }
    let shown = crate::tmux::error::shorten(name, 80);
    Err(Error::invalid(
        "buffer_name",
        format!("Invalid buffer name: '{shown}'"),
        "a name load_buffer returned (tmuxwire_<32 hex>_<name>)",
    ))
}

/// A buffer's bytes as `show_buffer` returns them: exact when whole; else
/// the newest `max_lines` lines (joined by `\n`), then whatever fits the
/// response budget.
fn buffer_content(
    buffer_name: String,
    bytes: &[u8],
    max_lines: Option<usize>,
    budget: Option<Budget>,
) -> BufferContent {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cut = crate::term::keep_tail(&mut lines, max_lines);
    let mut r = BufferContent {
        buffer_name,
        content: String::new(),
        content_truncated: false,
        content_truncated_lines: 0,
        content_truncated_bytes: 0,
    };
    let mut bytes_cut = 0;
    if let Some(b) = budget {
        let fixed = json_len(&r) + 64;
        let total: usize = lines.iter().map(|l| json_len(l) + 1).sum();
        if total > b.bytes().saturating_sub(fixed) {
            let (drop, bytes) = fit_room(&mut lines, b.bytes().saturating_sub(fixed));
            cut += drop;
            bytes_cut = bytes;
        }
    }
    if cut == 0 && bytes_cut == 0 {
        r.content = text;
    } else {
        r.content = lines.join("\n");
        r.content_truncated = true;
        r.content_truncated_lines = cut;
        r.content_truncated_bytes = bytes_cut;
    }
    r
}
