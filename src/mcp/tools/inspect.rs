//! The inspect tools: reading only. The eleven read tools (listings,
//! captures, `search_panes`), and the reference's other readers: servers,
//! options, environment, buffers, hooks, a pane by corner, and a batch of
//! read tools in one call.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::MAX_TEXT_BYTES;
use super::{
    Ctx, Def, READ, def, object, parse, server, structured, targeting, tool_args, unknown_tool,
};
use crate::control::Target;
use crate::control::format::Part;
use crate::mcp::args::{self, *};
use crate::mcp::budget::{self, Budget, json_len};
use crate::mcp::text::{self, Rendered, TextShape};
use crate::search::{Pattern, PatternOptions};
use crate::tmux::op::info::{
    PaneInfoRequest, ServerInfoRequest, SessionInfoRequest, WindowInfoRequest,
};
use crate::tmux::op::list::{ListPanesRequest, ListSessionsRequest, ListWindowsRequest, Listing};
use crate::tmux::op::typing::{BufferContent, ShowBufferRequest};
use crate::tmux::op::{Filters, Fit, Limit};
use crate::tmux::{
    CaptureOptions, Error, PaneInfo, PaneScope, PaneSnapshot, SearchPanesResult, SearchRequest,
    Selector, ServerInfo, Tmux,
};

/// snapshot cut (the older ones).
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct Next {
    pane_id: String,
    start: i64,
    end: i64,
    max_lines: Option<usize>,
}

/// `capture_pane`'s result.
#[derive(Serialize, JsonSchema)]
struct CaptureResult {
    /// The captured text.
    result: String,
    /// The pane captured.
    pane_id: String,
    /// Lines returned.
    lines: usize,
    /// Lines cut before the first line returned, by `max_lines` or the
    /// response budget.
    truncated_lines: usize,
    /// Bytes of text cut to fit the response budget.
    truncated_bytes: usize,
    /// How to get the lines cut; `None` when nothing was cut or, for
    /// `join_wrapped` captures, when logical lines have no line number.
    next: Option<Next>,
    /// Which screen was captured: always `live`, the pane's current screen; a pane in copy mode
    /// may show the user older lines (see `scroll_position`).
    view: String,
    /// The pane is in a mode (copy mode, …).
    pane_in_mode: bool,
    /// The mode's name, if any.
    pane_mode: Option<String>,
    /// In copy mode: lines the user's view is scrolled up from the live bottom.
    scroll_position: Option<i64>,
    /// The alternate screen (a full-screen program) is shown.
    alternate_on: bool,
    /// Which source answered: `mirror` (tmuxwire's copy, checked with tmux just before) or
    /// `capture` (tmux itself).
    source: crate::tmux::search::Source,
    /// The pane is gone; the text is tmuxwire's copy of its last screen.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pane_dead: bool,
}

impl Rendered for CaptureResult {
    const TEXT: TextShape = TextShape::String;
}

/// `display_message`'s result.
#[derive(Serialize, JsonSchema)]
struct TextResult {
    /// The expanded text.
    result: String,
    /// Bytes cut from its end to fit the response budget.
    #[serde(skip_serializing_if = "super::is_zero")]
    truncated_bytes: usize,
}

impl Rendered for TextResult {
    const TEXT: TextShape = TextShape::String;
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
        super::bare_output(def::<CapturePaneArgs, CaptureResult>(
            "capture_pane",
            "Capture Pane",
            READ,
            "A pane's text, one line per row (join_wrapped: logical lines), tmux lines start to end (default: the screen): the newest max_lines that fit; next gets older ones.",
        )),
        super::bare_output(def::<SnapshotPaneArgs, PaneSnapshot>(
            "snapshot_pane",
            "Snapshot Pane",
            READ,
            "A pane's visible screen and state in one call: cursor, size, process, copy mode, \
             scroll position, alternate screen, history size.",
        )),
        def::<DisplayMessageArgs, TextResult>(
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
        super::bare_output(super::row::<ShowBufferArgs>(
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

/// Runs one inspect tool.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let (servers, budget) = (ctx.servers, ctx.budget);
    let progress = ctx.progress.clone();
    match name {
        "capture_pane" => {
            let a: CapturePaneArgs = parse(args)?;
            let max_lines = args::positive("max_lines", a.max_lines)?;
            let start = args::line("start", a.start)?;
            let end = args::line("end", a.end)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            let opts = CaptureOptions {
                start,
                end,
                join: a.join_wrapped,
                max_lines,
                // Rendering stops once the budget is reached.
                max_bytes: budget.map(|b| b.bytes()),
            };
            capture(&t, &target, &opts, budget).await
        }
        "snapshot_pane" => {
            let a: SnapshotPaneArgs = parse(args)?;
            let max_lines = args::positive("max_lines", a.max_lines)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            snapshot(&t, &target, max_lines, budget).await
        }
        "display_message" => {
            let a: DisplayMessageArgs = parse(args)?;
            let format = args::tmux_format(&a.format_string)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            let mut r = TextResult {
                result: t.display(&target, &format).await?,
                truncated_bytes: 0,
            };
            if let Some(b) = budget
                && json_len(&r) > b.bytes()
            {
                // A format is read from its start: keep the head.
                let fixed = json_len(&TextResult {
                    result: String::new(),
                    truncated_bytes: usize::MAX,
                });
                let head = budget::head_within(&r.result, b.bytes().saturating_sub(fixed)).len();
                r.truncated_bytes = r.result.len() - head;
                r.result.truncate(head);
            }
            Ok(object(&r))
        }
        "search_panes" => {
            let a: SearchPanesArgs = parse(args)?;
            let per_pane = args::positive_required(
                "max_matched_lines_per_pane",
                a.max_matched_lines_per_pane,
            )?;
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
            let t = server(servers, &a.socket_name, &a.socket_path)?;
            let scope = if sel == Selector::default() {
                PaneScope::All
            } else {
                PaneScope::Session(t.resolve_session(&sel).await?)
            };
            let req = SearchRequest {
                pattern,
                scope,
                content_start,
                content_end,
                max_matched_lines_per_pane: per_pane,
                limit,
                offset: usize::try_from(a.offset).unwrap_or(usize::MAX),
                progress,
                response_budget: budget.map_or(crate::tmux::search::RESPONSE_BUDGET, Budget::bytes),
            };
            let mut r = t.search_panes(&req).await?;
            r.fit(budget.map_or(Limit::NONE, Budget::limit));
            Ok(object(&r))
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

/// Room left for counters that grow after measuring, in JSON bytes.
const SLACK: usize = 64;

/// `capture_pane`: the capture, cut to the newest lines that fit, with
/// how to get the rest.
async fn capture(
    t: &Tmux,
    target: &Target,
    opts: &CaptureOptions,
    budget: Option<Budget>,
) -> Result<CallToolResult, Error> {
    let mut cap = t.capture(target, opts).await?;
    let mut r = CaptureResult {
        result: String::new(),
        pane_id: cap.pane_id.clone(),
        lines: 0,
        truncated_lines: cap.truncated_lines,
        truncated_bytes: 0,
        next: None,
        view: "live".into(),
        pane_in_mode: cap.pane_in_mode,
        pane_mode: cap.pane_mode.clone(),
        scroll_position: cap.scroll_position,
        alternate_on: cap.alternate_on,
        source: cap.source,
        pane_dead: cap.pane_dead,
    };
    let (cut, bytes) = match budget {
        None => fit_bytes(&mut cap.lines),
        Some(b) => {
            let fixed = json_len(&r) + HEADER_ROOM + NEXT_ROOM + SLACK;
            fit_room(&mut cap.lines, b.bytes().saturating_sub(fixed))
        }
    };
    r.truncated_lines += cut;
    r.truncated_bytes = bytes + cap.cut_bytes;
    if r.truncated_lines > 0 && !opts.join {
        // One more round trip, only when something was cut and a range was
        // given (measured: about 0.1 ms).
        let top = match cap.pane_id.parse() {
            Ok(pane) => first_row(t, &Target::Pane(pane), opts).await,
            Err(_) => None,
        };
        if let Some(top) = top {
            // Rows: the first line returned is `top + truncated_lines`.
            let cut = i64::try_from(r.truncated_lines).unwrap_or(i64::MAX);
            r.next = Some(Next {
                pane_id: cap.pane_id.clone(),
                start: top,
                end: top.saturating_add(cut) - 1,
                max_lines: opts.max_lines,
            });
        }
    }
    r.lines = cap.lines.len();
    r.result = joined(&cap.lines, r.truncated_lines);
    Ok(object(&r))
}

/// `snapshot_pane`: the snapshot with every size a string, its content
/// cut to the newest rows that fit, and how to get the rows cut.
async fn snapshot(
    t: &Tmux,
    target: &Target,
    max_lines: Option<usize>,
    budget: Option<Budget>,
) -> Result<CallToolResult, Error> {
    let snap = t.snapshot(target, max_lines).await?;
    let mut v = serde_json::to_value(&snap).unwrap_or(Value::Null);
    let Some(o) = v.as_object_mut() else {
        return Ok(object(&snap));
    };
    o.insert("pane_width".into(), snap.pane_width.to_string().into());
    o.insert("pane_height".into(), snap.pane_height.to_string().into());
    o.insert("content".into(), "".into());
    o.insert("content_truncated_bytes".into(), 0.into());
    o.insert("next".into(), Value::Null);
    let mut rows: Vec<String> = if snap.content.is_empty() {
        Vec::new()
    } else {
        snap.content.split('\n').map(str::to_string).collect()
    };
    let mut cut = usize::try_from(snap.content_truncated_lines).unwrap_or(0);
    if let Some(b) = budget {
        let fixed = json_len(&*o) + NEXT_ROOM + SLACK;
        let (drop, bytes) = fit_room(&mut rows, b.bytes().saturating_sub(fixed));
        cut += drop;
        o.insert("content_truncated_bytes".into(), bytes.into());
    }
    o.insert("content".into(), rows.join("\n").into());
    o.insert("content_truncated".into(), (cut > 0).into());
    o.insert("content_truncated_lines".into(), cut.into());
    if cut > 0 {
        // The content starts at row 0; the rows cut are its first ones.
        let next = Next {
            pane_id: snap.pane_id.clone(),
            start: 0,
            end: i64::try_from(cut).unwrap_or(i64::MAX) - 1,
            max_lines: Some(cut),
        };
        o.insert(
            "next".into(),
            serde_json::to_value(next).unwrap_or(Value::Null),
        );
    }
    Ok(structured(v))
}

/// Drops whole lines from the front of `lines` until they fit in
/// [`MAX_TEXT_BYTES`] joined; returns how many lines and bytes were
/// dropped.
fn fit_bytes(lines: &mut Vec<String>) -> (usize, usize) {
    let mut total: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut drop = 0;
    let mut bytes = 0;
    while total > MAX_TEXT_BYTES && drop < lines.len() {
        total -= lines[drop].len() + 1;
        bytes += lines[drop].len() + 1;
        drop += 1;
    }
    lines.drain(..drop);
    (drop, bytes)
}

/// Keeps the newest `lines` that take at most `room` bytes as JSON text
/// (joined with `\n`). When not even the newest line fits, the end of it
/// that fits is kept. Returns how many whole lines were dropped and how
/// many bytes of text (their newlines included) were cut.
fn fit_room(lines: &mut Vec<String>, room: usize) -> (usize, usize) {
    let drop = budget::drop_for_tail(lines, room);
    if drop == 0 {
        return (0, 0);
    }
    if drop == lines.len() {
        let last = lines.pop().expect("drop > 0");
        let whole = lines.len();
        let mut bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        let tail = budget::tail_within(&last, room).to_string();
        bytes += last.len() - tail.len();
        *lines = vec![tail];
        return (whole, bytes);
    }
    let bytes = lines[..drop].iter().map(|l| l.len() + 1).sum();
    lines.drain(..drop);
    (drop, bytes)
}

/// Text `lines` joined, with libtmux-mcp's truncation header when
/// `truncated > 0`.
fn joined(lines: &[String], truncated: usize) -> String {
    let body = lines.join("\n");
    if truncated == 0 {
        return body;
    }
    format!("[... truncated {truncated} lines ...]\n{body}")
}

/// Room the header `joined` adds at most, in JSON bytes.
const HEADER_ROOM: usize = "[... truncated 18446744073709551615 lines ...]\\n".len();

/// Room a [`Next`] takes at most, in JSON bytes, beyond `null`.
const NEXT_ROOM: usize = 128;

/// The tmux line number of the first row a row capture of `opts` from
/// `target` starts at, after tmux's clamping: one more round trip when
/// `start` or `end` was given (for the pane's history size and height;
/// the pane may print meanwhile, which moves every line number anyway).
async fn first_row(t: &Tmux, target: &Target, opts: &CaptureOptions) -> Option<i64> {
    if opts.start.is_none() && opts.end.is_none() {
        return Some(0);
    }
    let parts = [
        Part::Var("history_size"),
        Part::Literal(" "),
        Part::Var("pane_height"),
    ];
    let text = t.display(target, &parts).await.ok()?;
    let (h, y) = text.split_once(' ')?;
    let (hsize, height): (i64, i64) = (h.parse().ok()?, y.parse().ok()?);
    let clamp = |n: i64| n.max(-hsize).min(height - 1);
    let top = clamp(opts.start.unwrap_or(0));
    let bottom = clamp(opts.end.unwrap_or(height - 1));
    Some(top.min(bottom))
}

/// Runs tool `name` for a caller that is not an MCP client (the CLI, the
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

impl Rendered for BufferContent {
    const TEXT: TextShape = TextShape::Object(&text::BUFFER);
}

tool_args!(ShowBufferArgs => ShowBufferRequest, |a| {
    let max_lines = args::positive("max_lines", a.max_lines)?;
    ShowBufferRequest::new(a.buffer_name, max_lines)
});

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_header() {
        let lines: Vec<String> = (0..3).map(|i| i.to_string()).collect();
        assert_eq!(joined(&lines, 0), "0\n1\n2");
        assert_eq!(joined(&lines, 7), "[... truncated 7 lines ...]\n0\n1\n2");
        let mut big: Vec<String> = (0..3).map(|_| "x".repeat(MAX_TEXT_BYTES / 2)).collect();
        assert_eq!(fit_bytes(&mut big), (2, MAX_TEXT_BYTES + 2));
        assert_eq!(big.len(), 1);
        let mut l: Vec<String> = ["aa", "bbb", "cc"].iter().map(|s| s.to_string()).collect();
        assert_eq!(fit_room(&mut l, 100), (0, 0));
        assert_eq!(fit_room(&mut l, 6), (2, 7));
        let mut l: Vec<String> = ["aa", "bbb", "cc"].iter().map(|s| s.to_string()).collect();
        assert_eq!(fit_room(&mut l, 7), (1, 3));
        assert_eq!(l, ["bbb", "cc"]);
        // Not even the newest line fits: its end is kept.
        assert_eq!(fit_room(&mut l, 1), (1, 5));
        assert_eq!(l, ["c"]);
    }
}
