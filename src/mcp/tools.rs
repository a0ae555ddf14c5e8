//! The tool catalog and the tools themselves.
//!
//! Every successful answer is one JSON object, sent as `structuredContent`
//! and, serialized, as the text block, so a client that reads either sees
//! the same facts. Lists are `{"result": [...]}` in both (MCP requires an
//! object for `structuredContent`). Over MCP every answer fits the
//! response budget ([`super::budget`]) and says what it cut and how to get
//! the rest.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::args::{self, *};
use super::budget::{self, Budget, json_len};
use super::filters::Filters;
use super::schema;
use crate::control::Target;
use crate::control::format::Part;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::{
    CaptureOptions, Error, PaneInfo, PaneScope, PaneSnapshot, SearchPanesResult, SearchRequest,
    Selector, ServerInfo, Servers, SessionInfo, Tmux, WindowInfo,
};

/// Largest text a capture returns to a caller without a response budget
/// (the CLI), in bytes; beyond it the oldest lines are dropped and the
/// text starts with `[... truncated N lines ...]`.
pub const MAX_TEXT_BYTES: usize = 8 << 20;

/// Longest error message sent, in bytes (messages may quote input).
const MAX_ERROR_BYTES: usize = 8 << 10;

/// `{"result": [...]}`: how list results are sent.
#[derive(Serialize, JsonSchema)]
struct ListResult<T> {
    result: Vec<T>,
    /// Items left out to fit the response budget (the last ones).
    #[serde(skip_serializing_if = "is_zero")]
    omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `capture_pane` arguments that return the lines a capture or a
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

/// `display_message`'s result.
#[derive(Serialize, JsonSchema)]
struct TextResult {
    /// The expanded text.
    result: String,
    /// Bytes cut from its end to fit the response budget.
    #[serde(skip_serializing_if = "is_zero")]
    truncated_bytes: usize,
}

/// `snapshot_pane`'s result: [`PaneSnapshot`] with `pane_width` and
/// `pane_height` as strings (as every other tool gives them), plus how to
/// get the rows cut. Only its schema is used: the result is built from a
/// serialized [`PaneSnapshot`].
#[derive(JsonSchema)]
#[allow(dead_code)]
struct SnapshotExtra {
    pane_width: String,
    pane_height: String,
    content_truncated_bytes: usize,
    next: Option<Next>,
}

/// Arguments every tool shares, explained once in the instructions
/// ([`super::INSTRUCTIONS`]) rather than in every input schema.
const TARGETING: &[&str] = &[
    "pane_id",
    "window_id",
    "window_index",
    "session_id",
    "session_name",
    "socket_name",
];

struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: JsonObject,
    output: JsonObject,
}

fn def<A: JsonSchema + 'static, R: JsonSchema + 'static>(
    name: &'static str,
    title: &'static str,
    description: &'static str,
) -> Def {
    Def {
        name,
        title,
        description,
        input: schema::input(&schema_for_type::<A>(), TARGETING),
        output: schema::output(&schema_for_output::<R>()),
    }
}

/// `snapshot_pane`'s output schema: [`PaneSnapshot`]'s with
/// [`SnapshotExtra`]'s fields laid over it.
fn snapshot_output(mut d: Def) -> Def {
    let extra = schema::output(&schema_for_output::<SnapshotExtra>());
    if let (Some(Value::Object(props)), Some(Value::Object(more))) =
        (d.output.get_mut("properties"), extra.get("properties"))
    {
        for (k, v) in more {
            props.insert(k.clone(), v.clone());
        }
    }
    d
}

/// Every tool, in listing order.
pub fn catalog() -> Vec<Tool> {
    let defs = vec![
        def::<ListSessionsArgs, ListResult<SessionInfo>>(
            "list_sessions",
            "List tmux Sessions",
            "All sessions on the tmux server.",
        ),
        def::<ListWindowsArgs, ListResult<WindowInfo>>(
            "list_windows",
            "List tmux Windows",
            "Windows of one session, or of all sessions.",
        ),
        def::<ListPanesArgs, ListResult<PaneInfo>>(
            "list_panes",
            "List tmux Panes",
            "Panes of one window, one session, or all sessions. For their text use capture_pane \
             or search_panes.",
        ),
        def::<ServerArgs, ServerInfo>(
            "get_server_info",
            "Get tmux Server Info",
            "Whether a tmux server runs (is_alive), its version, pid and session count. Never \
             starts one.",
        ),
        def::<SessionArgs, SessionInfo>(
            "get_session_info",
            "Get tmux Session Info",
            "One session (default: the one a person used last).",
        ),
        def::<WindowArgs, WindowInfo>(
            "get_window_info",
            "Get tmux Window Info",
            "One window, by id or by index in a session (default: the session's active one).",
        ),
        def::<PaneArgs, PaneInfo>(
            "get_pane_info",
            "Get tmux Pane Info",
            "One pane (default: the active one).",
        ),
        def::<CapturePaneArgs, CaptureResult>(
            "capture_pane",
            "Capture Pane",
            "A pane's text, one line per screen row (join_wrapped: logical lines), from tmux line \
             start to end (default: the visible screen): the newest max_lines lines that fit the \
             response budget; next gets older ones.",
        ),
        snapshot_output(def::<SnapshotPaneArgs, PaneSnapshot>(
            "snapshot_pane",
            "Snapshot Pane",
            "A pane's visible screen and state in one call: cursor, size, process, copy mode, \
             scroll position, alternate screen, history size.",
        )),
        def::<DisplayMessageArgs, TextResult>(
            "display_message",
            "Evaluate tmux Format String",
            "Expand tmux #{variable} references for a pane. Other text is literal; modifiers \
             (#{E:...}, #{?...}) are refused and #(...) never runs.",
        ),
        def::<SearchPanesArgs, SearchPanesResult>(
            "search_panes",
            "Search tmux Panes",
            "Find lines containing a pattern in every pane (or one session's), across scrollback \
             and screen, as logical lines (soft wraps joined). Literal and case-insensitive by \
             default. Per pane, the newest matching lines with tmux line numbers; panes are \
             paged by offset/limit.",
        ),
    ];
    defs.into_iter()
        .map(|d| {
            let always_load = matches!(d.name, "list_panes" | "list_windows" | "snapshot_pane");
            let mut t = Tool::new(d.name, d.description, Arc::new(d.input));
            t.title = Some(d.title.to_string());
            t.output_schema = Some(Arc::new(d.output));
            // destructiveHint and idempotentHint mean something only for
            // tools that are not read-only; the title is the tool's own.
            let mut a = ToolAnnotations::default();
            a.read_only_hint = Some(true);
            a.open_world_hint = Some(false);
            t.annotations = Some(a);
            if always_load {
                let mut m = JsonObject::new();
                m.insert("anthropic/alwaysLoad".into(), Value::Bool(true));
                t.meta = Some(MetaObject(m));
            }
            t
        })
        .collect()
}

/// The error result for a tool name that does not exist.
pub fn unknown_tool(name: &str) -> CallToolResult {
    let shown: String = name.chars().take(64).collect();
    error_result(
        &format!("Unknown tool: '{shown}'"),
        "NotFound",
        true,
        Some("Call tools/list to see the available tools.".into()),
    )
}

/// The result for a call the client cancelled (`notifications/cancelled`).
pub fn cancelled(name: &str) -> CallToolResult {
    let shown: String = name.chars().take(64).collect();
    error_result(
        &format!("{shown}: cancelled by the client; its work was stopped"),
        "Cancelled",
        true,
        None,
    )
}

fn error_result(
    message: &str,
    kind: &str,
    expected: bool,
    suggestion: Option<String>,
) -> CallToolResult {
    let message = if message.len() > MAX_ERROR_BYTES {
        let mut end = MAX_ERROR_BYTES;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &message[..end])
    } else {
        message.to_string()
    };
    let text = match &suggestion {
        Some(s) => format!("{message}\n{s}"),
        None => message,
    };
    let mut meta = JsonObject::new();
    meta.insert("error_type".into(), Value::String(kind.into()));
    meta.insert("expected".into(), Value::Bool(expected));
    if let Some(s) = suggestion {
        meta.insert("suggestion".into(), Value::String(s));
    }
    CallToolResult::error(vec![ContentBlock::text(text)]).with_meta(Some(MetaObject(meta)))
}

fn from_error(e: &Error) -> CallToolResult {
    error_result(&e.to_string(), e.kind_name(), e.expected(), e.suggestion())
}

/// Parses arguments: read leniently against the tool's input schema
/// ([`args::coerce`]), then checked by serde, with its complaint turned
/// into an actionable error.
fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    mut args: Map<String, Value>,
) -> Result<T, Error> {
    args::coerce(&schema_for_type::<T>(), &mut args)?;
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        let msg = e.to_string();
        let mut expected = "arguments as listed in this tool's input schema".to_string();
        if msg.contains("wait_for_previous") {
            expected.push_str(
                " (wait_for_previous is a scheduling flag some clients leak into tool calls; retry \
                 without it)",
            );
        }
        Error::invalid("arguments", format!("invalid arguments: {msg}"), expected)
    })
}

/// A result whose text block is `value` serialized.
fn structured(value: Value) -> CallToolResult {
    CallToolResult::structured(value)
}

fn object<T: Serialize>(v: &T) -> CallToolResult {
    match serde_json::to_value(v) {
        Ok(value) => structured(value),
        Err(e) => error_result(
            &format!("could not encode the result: {e}"),
            "InternalError",
            false,
            None,
        ),
    }
}

fn list<T: Serialize>(
    items: &[T],
    filters: Option<&FiltersArg>,
    budget: Option<Budget>,
) -> Result<CallToolResult, Error> {
    let mut values: Vec<Value> = items
        .iter()
        .filter_map(|i| serde_json::to_value(i).ok())
        .collect();
    if let Some(f) = filters {
        values = Filters::parse(f)?.apply(values)?;
    }
    let mut omitted = 0;
    if let Some(b) = budget {
        let fixed = json_len(&json!({"result": [], "omitted": 0}));
        let keep = budget::keep_for_list(&values, fixed, b.bytes());
        omitted = values.len() - keep;
        values.truncate(keep);
    }
    Ok(object(&ListResult {
        result: values,
        omitted,
    }))
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
/// demo, tests): no response budget. A capture still holds at most
/// [`MAX_TEXT_BYTES`] of text, a search at most
/// [`crate::tmux::search::RESPONSE_BUDGET`] of matched lines. Every
/// failure becomes an error result.
pub async fn call(servers: &Servers, name: &str, args: Map<String, Value>) -> CallToolResult {
    answer(servers, None, name, args, None).await
}

/// Runs tool `name` for an MCP client: the answer's text (the serialized
/// structured result) is at most `budget` bytes, and says what was cut
/// to fit; long calls (a search that seeds the mirror) report to
/// `progress`. Every failure becomes an error result.
pub async fn call_within(
    servers: &Servers,
    budget: Budget,
    name: &str,
    args: Map<String, Value>,
    progress: Option<crate::mirror::Progress>,
) -> CallToolResult {
    answer(servers, Some(budget), name, args, progress).await
}

async fn answer(
    servers: &Servers,
    budget: Option<Budget>,
    name: &str,
    args: Map<String, Value>,
    progress: Option<crate::mirror::Progress>,
) -> CallToolResult {
    match run(servers, budget, name, args, progress).await {
        Ok(r) => within(r, budget),
        // Say which call failed when the message comes from deeper down.
        Err(e @ (Error::Timeout(_) | Error::Connection(_))) => error_result(
            &format!("{name}: {e}"),
            e.kind_name(),
            e.expected(),
            e.suggestion(),
        ),
        Err(e) => from_error(&e),
    }
}

/// `r`, or an error when its text is over `budget` after all (every tool
/// that can return much text cuts it to fit; this catches the rest).
fn within(r: CallToolResult, budget: Option<Budget>) -> CallToolResult {
    let Some(b) = budget else { return r };
    let size: usize = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.len()))
        .sum();
    if size <= b.bytes() {
        return r;
    }
    error_result(
        &format!(
            "the answer is {size} bytes, over the response budget of {} bytes",
            b.bytes()
        ),
        "ResponseTooLarge",
        true,
        Some(
            "Ask for less (a narrower target or range), or start tmuxwire with a larger              --response-budget."
                .into(),
        ),
    )
}

fn server(servers: &Servers, socket_name: &Option<String>) -> Result<Arc<Tmux>, Error> {
    servers.get(socket_name.as_deref())
}

/// The libtmux-mcp targeting arguments of one call.
struct Targeting<'a> {
    socket_name: &'a Option<String>,
    pane_id: &'a Option<String>,
    window_id: &'a Option<String>,
    window_index: Option<i64>,
    session_id: &'a Option<String>,
    session_name: &'a Option<String>,
}

impl Targeting<'_> {
    fn selector(&self) -> Result<Selector, Error> {
        selector(
            self.pane_id,
            self.window_id,
            self.window_index,
            self.session_id,
            self.session_name,
        )
    }

    /// The server and the pane the arguments name (or the default pane).
    async fn pane(&self, servers: &Servers) -> Result<(Arc<Tmux>, Target), Error> {
        let sel = self.selector()?;
        let t = server(servers, self.socket_name)?;
        let target = t.resolve_pane(&sel).await?;
        Ok((t, target))
    }

    /// The server and the window the arguments name.
    async fn window(&self, servers: &Servers) -> Result<(Arc<Tmux>, Target), Error> {
        let sel = self.selector()?;
        let t = server(servers, self.socket_name)?;
        let target = t.resolve_window(&sel).await?;
        Ok((t, target))
    }

    /// The server and the session the arguments name.
    async fn session(&self, servers: &Servers) -> Result<(Arc<Tmux>, Target), Error> {
        let sel = self.selector()?;
        let t = server(servers, self.socket_name)?;
        let target = t.resolve_session(&sel).await?;
        Ok((t, target))
    }
}

/// Targeting from an args struct's fields; missing kinds are `None`.
macro_rules! targeting {
    ($a:expr $(, $field:ident)*) => {{
        #[allow(unused_mut)]
        let mut t = Targeting {
            socket_name: &$a.socket_name,
            pane_id: &None,
            window_id: &None,
            window_index: None,
            session_id: &$a.session_id,
            session_name: &$a.session_name,
        };
        $(targeting!(@set t, $a, $field);)*
        t
    }};
    (@set $t:ident, $a:expr, pane_id) => { $t.pane_id = &$a.pane_id; };
    (@set $t:ident, $a:expr, window_id) => { $t.window_id = &$a.window_id; };
    (@set $t:ident, $a:expr, window_index) => { $t.window_index = $a.window_index; };
}

async fn run(
    servers: &Servers,
    budget: Option<Budget>,
    name: &str,
    args: Map<String, Value>,
    progress: Option<crate::mirror::Progress>,
) -> Result<CallToolResult, Error> {
    match name {
        "list_sessions" => {
            let a: ListSessionsArgs = parse(args)?;
            let t = server(servers, &a.socket_name)?;
            list(&t.list_sessions().await?, a.filters.as_ref(), budget)
        }
        "list_windows" => {
            let a: ListWindowsArgs = parse(args)?;
            let targeting = targeting!(a);
            let sel = targeting.selector()?;
            let t = server(servers, &a.socket_name)?;
            let scope = if sel == Selector::default() {
                None
            } else {
                Some(t.resolve_session(&sel).await?)
            };
            list(
                &t.list_windows(scope.as_ref()).await?,
                a.filters.as_ref(),
                budget,
            )
        }
        "list_panes" => {
            let a: ListPanesArgs = parse(args)?;
            let sel = targeting!(a, window_id, window_index).selector()?;
            let t = server(servers, &a.socket_name)?;
            let scope = if sel.window_id.is_some() || sel.window_index.is_some() {
                PaneScope::Window(t.resolve_window(&sel).await?)
            } else if sel.session_id.is_some() || sel.session_name.is_some() {
                PaneScope::Session(t.resolve_session(&sel).await?)
            } else {
                PaneScope::All
            };
            list(&t.list_panes(&scope).await?, a.filters.as_ref(), budget)
        }
        "get_server_info" => {
            let a: ServerArgs = parse(args)?;
            Ok(object(
                &server(servers, &a.socket_name)?.server_info().await?,
            ))
        }
        "get_session_info" => {
            let a: SessionArgs = parse(args)?;
            let (t, target) = targeting!(a).session(servers).await?;
            Ok(object(&t.session_info(&target).await?))
        }
        "get_window_info" => {
            let a: WindowArgs = parse(args)?;
            let (t, target) = targeting!(a, window_id, window_index)
                .window(servers)
                .await?;
            Ok(object(&t.window_info(&target).await?))
        }
        "get_pane_info" => {
            let a: PaneArgs = parse(args)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            Ok(object(&t.pane_info(&target).await?))
        }
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
            let t = server(servers, &a.socket_name)?;
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
            if let Some(b) = budget {
                budget::fit_search(&mut r, b.bytes());
            }
            Ok(object(&r))
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
    r.truncated_bytes = bytes;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_shape() {
        let tools = catalog();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "list_sessions",
                "list_windows",
                "list_panes",
                "get_server_info",
                "get_session_info",
                "get_window_info",
                "get_pane_info",
                "capture_pane",
                "snapshot_pane",
                "display_message",
                "search_panes"
            ]
        );
        for t in &tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            assert_eq!(
                t.input_schema.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                t.name
            );
        }
    }

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
