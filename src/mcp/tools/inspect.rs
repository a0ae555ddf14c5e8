//! The inspect tools: reading only. The eleven read tools (listings,
//! captures, `search_panes`), and the reference's other readers: servers,
//! options, environment, buffers, hooks, a pane by corner, and a batch of
//! read tools in one call.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Ctx, Def, READ, def, object, parse, tool_args};
use crate::mcp::args::{self, *};
use crate::mcp::budget::json_len;
use crate::mcp::lenient;
use crate::mcp::targeting::{args, targeting};
use crate::mcp::text::{Rendered, TextShape};
use crate::search::{Pattern, PatternOptions};
use crate::term::LineNo;
use crate::tmux::op::buffers::{BufferContent, ShowBufferRequest};
use crate::tmux::op::capture::{CapturePaneRequest, CaptureResult};
use crate::tmux::op::commands::{
    CommandList, CommandOutput, CommandOutputRequest, ListCommandsRequest,
};
use crate::tmux::op::display::{DisplayMessageRequest, TextResult};
use crate::tmux::op::info::{
    Corner, FindPaneRequest, PaneInfoRequest, ServerInfoRequest, SessionInfoRequest,
    WindowInfoRequest,
};
use crate::tmux::op::list::{
    ListPanesRequest, ListServersRequest, ListSessionsRequest, ListWindowsRequest, Listing,
};
use crate::tmux::op::search::{LineRange, SearchPanesRequest};
use crate::tmux::op::settings::{
    EnvironmentResult, HookListResult, OptionName, OptionResult, Place, Scope,
    ShowEnvironmentRequest, ShowHooksRequest, ShowOptionRequest,
};
use crate::tmux::op::shape::Shape;
use crate::tmux::op::snapshot::{SnapshotPaneRequest, SnapshotResult};
use crate::tmux::op::state::{PaneState, PaneStateRequest};
use crate::tmux::op::{self, Filters, Fit, Limit};
use crate::tmux::{Error, Selector, ServerInfo};

impl Rendered for CaptureResult {
    const TEXT: TextShape = TextShape::String;
    /// The pane named, the count of the text's lines, and which copy
    /// answered (tmuxwire's mirror or tmux) are not repeated.
    const QUIET: &'static [&'static str] = &["pane_id", "lines", "source"];
}

crate::mcp::text::rendered!(String: TextResult);

impl Rendered for SnapshotResult {
    const TEXT: TextShape = TextShape::Object;
    const NUMBERS: &'static [&'static str] = &["pane_width", "pane_height"];
}

/// The inspect tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        super::row::<ListSessionsArgs>(
            "list_sessions",
            READ,
            "All sessions on the tmux server.",
        )
        .mark_sized(),
        super::row::<ListWindowsArgs>(
            "list_windows",
            READ,
            "Windows of one session, or of all sessions.",
        )
        .mark_sized()
        .mark_always_load(),
        super::row::<ListPanesArgs>(
            "list_panes",
            READ,
            "Panes of a window, a session, or all; for their text: capture_pane, search_panes.",
        )
        .mark_sized()
        .mark_core()
        .mark_always_load(),
        super::row::<ServerArgs>(
            "get_server_info",
            READ,
            "Whether a tmux server runs (is_alive), its version, pid and session count. Never \
             starts one.",
        )
        .mark_output_schema(),
        super::row::<SessionArgs>(
            "get_session_info",
            READ,
            "One session (default: the one a person used last).",
        )
        .mark_output_schema(),
        super::row::<WindowArgs>(
            "get_window_info",
            READ,
            "One window, by id or by index in a session (default: the session's active one).",
        )
        .mark_output_schema(),
        super::row::<PaneArgs>(
            "get_pane_info",
            READ,
            "One pane (default: the active one).",
        )
        .mark_output_schema(),
        super::row::<PaneStateArgs>(
            "get_pane_state",
            READ,
            "What a pane's program does with input, from its terminal's settings and /proc: input \
             line-editor|line-read|password|key-read|raw|busy|unknown, foreground process, termios, \
             evidence.",
        )
        .mark_core(),
        super::row::<ListCommandsArgs>(
            "list_commands",
            READ,
            "Commands a pane's shell marked (OSC 133/633) since tmuxwire followed it, oldest \
             first: command, state, exit_status, times, output lines. Advisory (trusted false).",
        )
        .mark_core()
        .mark_sized(),
        super::row::<CommandOutputArgs>(
            "get_command_output",
            READ,
            "One marked command (a list_commands item) and its output lines (default: the last \
             command), with head/tail/grep/context/max_bytes.",
        )
        .mark_sized(),
        super::row::<CapturePaneArgs>(
            "capture_pane",
            READ,
            "A pane's text, one line per row (join_wrapped: logical lines), tmux lines start to end (default: the screen): the newest max_lines that fit; next gets older ones.",
        )
        .mark_core()
        .mark_sized()
        .mark_fenced(),
        super::row::<SnapshotPaneArgs>(
            "snapshot_pane",
            READ,
            "A pane's visible screen and state in one call: cursor, size, process, copy mode, \
             scroll position, alternate screen, history size.",
        )
        .mark_sized()
        .mark_always_load(),
        super::row::<DisplayMessageArgs>(
            "display_message",
            READ,
            "Expand #{variable} references for a pane; other text is literal, modifiers are refused, #(...) never runs.",
        )
        .mark_sized(),
        super::reporting::<SearchPanesArgs>(
            "search_panes",
            READ,
            "Lines containing a pattern in every pane's scrollback and screen (or a session's or a pane's), soft wraps joined: per pane the newest, with tmux line numbers; panes paged by offset/limit; next: calls returning what a cut left out.",
        )
        .calls(|ctx, args| Box::pin(search(ctx, args)))
        .mark_core()
        .mark_sized()
        .mark_fenced(),
        def::<ListServersArgs, Listing<ServerInfo>>(
            "list_servers",
            READ,
            "Live tmux servers of this user ($TMUX_TMPDIR or /tmp) and extra_socket_paths, asked with one-shot clients (none attached).",
        )
        .mark_sized()
        .calls(|ctx, args| Box::pin(list_servers(ctx, args))),
        super::row::<ShowOptionArgs>(
            "show_option",
            READ,
            "An option's value where set (null: not set there). scope: server, session (default), window, pane; target: a session name, $N, @N or %N; global_: the global table.",
        )
        .mark_sized(),
        super::row::<ShowEnvironmentArgs>(
            "show_environment",
            READ,
            "The global environment, or a session's. A variable marked for removal reads \
             \"-NAME\": true.",
        )
        .mark_sized(),
        super::row::<ShowBufferArgs>(
            "show_buffer",
            READ,
            "The exact text of a tmuxwire buffer (load_buffer); the newest max_lines lines when longer.",
        )
        .mark_sized(),
        super::row::<ShowHooksArgs>(
            "show_hooks",
            READ,
            "Hooks set at a scope (as show_option; server without target: all global hooks).",
        )
        .mark_sized(),
        super::row::<ShowHookArgs>(
            "show_hook",
            READ,
            "One hook's commands, as show_hooks (entries: [] when unset).",
        )
        .mark_sized(),
        super::row::<FindPaneArgs>(
            "find_pane_by_position",
            READ,
            "The pane at a corner of a window (default: the active window of the session).",
        ),
        def::<BatchArgs, BatchResult>(
            BATCH,
            READ,
            "Run up to 1000 inspect tools in one call: [{tool, arguments}], results in order; on_error stop (default) or continue.",
        )
        .calls(|ctx, args| Box::pin(batch(ctx, args)))
        .mark_sized(),
    ]
    .into_iter()
    .chain(super::waits::inspect_defs())
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

tool_args!(PaneStateArgs => PaneStateRequest, |a| Ok(PaneStateRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
    follow: true,
}));

crate::mcp::text::rendered!(Object: PaneState);

tool_args!(ListCommandsArgs => ListCommandsRequest, |a| Ok(ListCommandsRequest {
    limit: args::positive("limit", a.limit)?.unwrap_or(20),
    before: a.before,
    pane: targeting!(a, pane_id, window_id).selector()?,
}));

crate::mcp::text::rendered!(Object: CommandList);

tool_args!(CommandOutputArgs => CommandOutputRequest, |a| {
    Ok(CommandOutputRequest {
        index: a.index.unwrap_or(-1),
        shape: Shape::from_args(a.head, a.tail, a.grep.clone(), a.context)?,
        max_bytes: args::positive("max_bytes", a.max_bytes)?,
        pane: targeting!(a, pane_id, window_id).selector()?,
    })
});

crate::mcp::text::rendered!(Object: CommandOutput);

tool_args!(ShowOptionArgs => ShowOptionRequest, |a| {
    let place = Place::new(a.scope.map(Scope::from), a.target.as_deref(), a.global_)?;
    Ok(ShowOptionRequest {
        option: OptionName::option(&a.option)?,
        place,
    })
});

tool_args!(ShowEnvironmentArgs => ShowEnvironmentRequest, |a| {
    let sel = targeting!(a).selector()?;
    Ok(ShowEnvironmentRequest {
        session: (sel != Selector::default()).then_some(sel),
    })
});

tool_args!(ShowHooksArgs => ShowHooksRequest, |a| Ok(ShowHooksRequest {
    place: Place::new(a.scope.map(Scope::from), a.target.as_deref(), a.global_)?,
    hook: None,
}));

tool_args!(ShowHookArgs => ShowHooksRequest, |a| {
    let place = Place::new(a.scope.map(Scope::from), a.target.as_deref(), a.global_)?;
    Ok(ShowHooksRequest {
        place,
        hook: Some(OptionName::hook(&a.hook_name)?),
    })
});

tool_args!(FindPaneArgs => FindPaneRequest, |a| Ok(FindPaneRequest {
    window: targeting!(a, window_id, window_index).selector()?,
    corner: a.corner,
}));

/// `list_servers`: over the pool's default server, which is the only one
/// reported when tmuxwire is pinned to it (the pool knows; the arguments
/// do not).
async fn list_servers(ctx: &Ctx<'_>, args: Map<String, Value>) -> Result<CallToolResult, Error> {
    let a: ListServersArgs = parse(args)?;
    let request = ListServersRequest {
        extra: a
            .extra_socket_paths
            .unwrap_or_default()
            .into_iter()
            .map(std::path::PathBuf::from)
            .collect(),
        pinned: ctx.servers.is_pinned(),
    };
    if ctx.servers.host().is_some() {
        // A host's servers cannot be listed from here (their socket
        // directory is the host's): its default server and the paths asked
        // for, each asked over the link.
        let mut found = Vec::new();
        let mut handles = vec![ctx.servers.default_server().clone()];
        for p in &request.extra {
            handles.push(ctx.servers.get_socket(None, p.to_str())?);
        }
        for h in handles {
            let i = crate::tmux::target::server_info(&h).await?;
            if i.is_alive {
                found.push(i);
            }
        }
        return Ok(object(&Listing::new(found)));
    }
    let server = ctx.servers.default_server();
    Ok(object(&op::run(server, request, ctx.limit()).await?))
}

crate::mcp::text::rendered!(Object: OptionResult, EnvironmentResult, HookListResult);

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
        shape: Shape::from_args(a.head, a.tail, a.grep.clone(), a.context)?,
        redact: false,
        as_is: a.fenced == Some(false),
    })
};
    fn fenced(&self) -> bool {
        self.fenced != Some(false)
    }
);

tool_args!(SnapshotPaneArgs => SnapshotPaneRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?;
    Ok(SnapshotPaneRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        max_lines,
        redact: false,
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
    let pane = match a.pane_id.as_deref() {
        None => None,
        Some(p) => Some(
            p.parse::<crate::control::PaneId>()
                .map_err(|e| Error::invalid("pane_id", format!("pane_id: {e}"), "a pane id like %3"))?
                .to_string(),
        ),
    };
    Ok(SearchPanesRequest {
        pattern,
        session: (sel != Selector::default()).then_some(sel),
        pane,
        lines: LineRange {
            start: content_start.map(LineNo),
            end: content_end.map(LineNo),
        },
        command: a.command.as_ref().map(CommandArg::pick).transpose()?,
        max_matched_lines_per_pane: per_pane,
        limit,
        offset: usize::try_from(a.offset).unwrap_or(usize::MAX),
        progress: None,
        redact: false,
        as_is: a.fenced == Some(false),
    })
};
    fn fenced(&self) -> bool {
        self.fenced != Some(false)
    }
);

/// `list_servers`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ListServersArgs {
    /// Socket paths to probe as well, after the scan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_socket_paths: Option<Vec<String>>,
}

args! {
    /// `show_option`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ShowOptionArgs {
        /// Option name, e.g. history-limit or @my-option.
        pub option: String,
        @table,
        @socket,
    }
}

args! {
    /// `show_environment`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ShowEnvironmentArgs {
        @session,
        @socket,
    }
}

args! {
    /// `show_buffer`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct ShowBufferArgs {
        @buffer_name,
        /// Keep the newest N lines (N ≥ 1); null: all.
        #[serde(default = "default_buffer_lines")]
        pub max_lines: Option<i64>,
        @socket,
    }
}

fn default_buffer_lines() -> Option<i64> {
    Some(500)
}

crate::mcp::text::rendered!(Object: BufferContent);

tool_args!(ShowBufferArgs => ShowBufferRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?;
    ShowBufferRequest::new(a.buffer_name, max_lines)
});

args! {
    /// `show_hooks`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ShowHooksArgs {
        @table,
        @socket,
    }
}

args! {
    /// `show_hook`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ShowHookArgs {
        /// e.g. after-new-window.
        pub hook_name: String,
        @table,
        @socket,
    }
}

args! {
    /// `find_pane_by_position`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct FindPaneArgs {
        pub corner: Corner,
        @window,
        @socket,
    }
}

/// One operation of a batch.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// An inspect tool.
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// `call_read_tools_batch`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // on_error: the description says it.
pub struct BatchArgs {
    /// [{tool, arguments}], 1 to 1000.
    pub operations: Vec<Operation>,
    #[serde(default, skip_serializing_if = "OnError::is_stop")]
    pub on_error: OnError,
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

crate::mcp::text::rendered!(Object: BatchResult);

/// Over the limit, the nested answers go, from the last one back: each
/// keeps its place, success and error, its content replaced by
/// [`CUT_CONTENT`] and its structured content dropped, and
/// `response_truncated_bytes` counts what went.
impl Fit for BatchResult {
    fn fit(&mut self, limit: Limit) {
        let Some(budget) = limit.get() else { return };
        let mut size = json_len(&*self);
        let mut i = self.results.len();
        while size > budget && i > 0 {
            i -= 1;
            let r = &mut self.results[i];
            let before = json_len(&r.content) + json_len(&r.structured_content);
            r.content = vec![json!({"type": "text", "text": CUT_CONTENT})];
            r.structured_content = None;
            let after = json_len(&r.content) + json_len(&r.structured_content);
            self.response_truncated = true;
            self.response_truncated_bytes += before.saturating_sub(after);
            size = json_len(&*self);
        }
    }
}

/// Most operations in one batch.
const MAX_OPERATIONS: usize = 1000;

/// What nested content is replaced with when a batch is over the budget.
const CUT_CONTENT: &str = "[... batch truncated nested content ...]";

/// The batch tool's name: a batch may not run itself.
const BATCH: &str = "call_read_tools_batch";

/// Why an operation may not run in a read batch, if it may not: what its
/// row says (its toolset, whether it bounds its own wait) and the
/// policy's exclusions.
fn refusal(policy: &crate::mcp::toolsets::Policy, tool: &str) -> Option<String> {
    use crate::mcp::toolsets::Toolset;
    let shown: String = tool.chars().take(64).collect();
    if tool == BATCH {
        return Some("Batch tools cannot call batch tools recursively.".into());
    }
    let def = super::def_of(tool);
    if def.is_some_and(|d| d.self_bounded) {
        return Some(format!(
            "Tool '{shown}' enforces its own wait ceiling and cannot be batched; call it directly."
        ));
    }
    match def {
        None => Some(format!("Unknown tool: '{shown}'")),
        Some(_) if policy.is_excluded(tool) => Some(format!("Unknown tool: '{shown}'")),
        Some(d) if d.toolset == Toolset::Inspect => None,
        Some(_) => Some(format!(
            "Tool '{shown}' is not an 'inspect' tool, so it cannot run in a read batch. Call it \
             directly."
        )),
    }
}

/// `call_read_tools_batch`: every operation runs at once (their commands
/// share writes to tmux), and the results are then read in order: with
/// `on_error: stop`, those after the first failure are dropped (read tools
/// change nothing, so running them changed nothing). Each operation runs
/// as its row says ([`super::answer`]), as it would when called alone.
async fn batch(ctx: &Ctx<'_>, args: Map<String, Value>) -> Result<CallToolResult, Error> {
    let a: BatchArgs = parse(args)?;
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
        verbose: ctx.verbose,
        // Each operation's answer is masked and counts its own secrets.
        redact: ctx.redact,
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
    out.fit(ctx.limit());
    Ok(object(&out))
}

/// `search_panes`'s call: the typed row's ([`super::call_reporting`]),
/// within the budget less room for `next`, which is then written from the
/// arguments given ([`search_next`]).
async fn search(ctx: &Ctx<'_>, args: Map<String, Value>) -> Result<CallToolResult, Error> {
    // The arguments as read (numbers as numbers), without the server's.
    let mut given = args.clone();
    lenient::coerce(
        &rmcp::handler::server::common::schema_for_type::<SearchPanesArgs>(),
        &mut given,
    )?;
    for k in [
        "socket_name",
        "socket_path",
        super::hosts::HOST_ARG,
        super::hosts::FENCED_ARG,
    ] {
        given.shift_remove(k);
    }
    let (server, request, route) = super::routed::<SearchPanesArgs>(ctx, args)?;
    let request = super::Reports::reporting_to(request, ctx.progress.clone());
    // At most two calls, each the arguments given and a few more.
    let room = 2 * (json_len(&given) + 160);
    let limit = ctx.budget.map_or(Limit::NONE, |b| {
        Limit::bytes(b.bytes().saturating_sub(room))
    });
    let mut r = op::run(&server, request, limit).await?;
    r.next = search_next(&given, &r);
    Ok(route.mark(object(&r)))
}

/// The `search_panes` calls that return what page `r` of a search with
/// arguments `given` left out ([`SearchPanesResult::next`]): the older
/// lines of the first pane that lost lines to the budget, then the page
/// from the next pane whose lines were left out, or after the page.
fn search_next(
    given: &Map<String, Value>,
    r: &crate::tmux::SearchPanesResult,
) -> Option<Vec<Map<String, Value>>> {
    let number = |k: &str, default: u64| given.get(k).and_then(Value::as_u64).unwrap_or(default);
    let per_pane = usize::try_from(number("max_matched_lines_per_pane", 50)).unwrap_or(usize::MAX);
    let offset = usize::try_from(number("offset", 0)).unwrap_or(usize::MAX);
    let lost = |m: &crate::tmux::op::search::PaneContentMatch| {
        m.matched_lines.len() < m.matched_line_count.min(per_pane)
    };
    let mut out = Vec::new();
    let mut from = offset.saturating_add(r.matches.len());
    if let Some(k) = r.matches.iter().position(lost) {
        let m = &r.matches[k];
        from = offset.saturating_add(k);
        if let Some(&oldest) = m.matched_line_numbers.first() {
            let mut a = given.clone();
            for key in ["session_name", "session_id", "offset", "limit"] {
                a.shift_remove(key);
            }
            a.insert("pane_id".into(), Value::from(m.pane_id.clone()));
            a.insert("content_end".into(), Value::from(oldest - 1));
            a.insert(
                "max_matched_lines_per_pane".into(),
                Value::from(m.matched_line_count.min(per_pane) - m.matched_lines.len()),
            );
            out.push(a);
            from += 1;
        }
        let rest = r.matches.get(k + 1..).unwrap_or_default();
        if !rest.iter().any(lost) && r.truncated_panes.is_empty() {
            return Some(out);
        }
    } else if r.truncated_panes.is_empty() {
        return None;
    }
    let mut a = given.clone();
    a.insert("offset".into(), Value::from(from));
    out.push(a);
    Some(out)
}

impl super::Reports for SearchPanesRequest {
    fn reporting_to(self, progress: Option<crate::mirror::Progress>) -> Self {
        SearchPanesRequest { progress, ..self }
    }
}
