//! The tool catalog and the tools themselves.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::args::{self, *};
use super::filters::Filters;
use crate::control::Target;
use crate::search::{Pattern, PatternOptions};
use crate::tmux::{
    CaptureOptions, Error, PaneInfo, PaneScope, PaneSnapshot, SearchPanesResult, SearchRequest,
    Selector, ServerInfo, Servers, SessionInfo, Tmux, WindowInfo,
};

/// Largest text a capture returns, in bytes; beyond it the oldest lines
/// are dropped and the text starts with `[... truncated N bytes ...]`.
pub const MAX_TEXT_BYTES: usize = 8 << 20;

/// `{"result": [...]}`: how list results are wrapped.
#[derive(Serialize, JsonSchema)]
struct ListResult<T> {
    result: Vec<T>,
}

/// `capture_pane`'s structured result.
#[derive(Serialize, JsonSchema)]
struct CaptureResult {
    /// The captured text (the same as the text content).
    result: String,
    /// The pane captured.
    pane_id: String,
    /// Lines returned.
    lines: usize,
    /// Lines dropped from the front by `max_lines`.
    truncated_lines: usize,
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

/// `display_message`'s structured result.
#[derive(Serialize, JsonSchema)]
struct TextResult {
    /// The expanded text.
    result: String,
}

struct Def {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: Arc<JsonObject>,
    output: Arc<JsonObject>,
    always_load: bool,
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
        input: schema_for_type::<A>(),
        output: schema_for_output::<R>(),
        always_load: false,
    }
}

/// Every tool, in listing order.
pub fn catalog() -> Vec<Tool> {
    let mut defs = vec![
        def::<ListSessionsArgs, ListResult<SessionInfo>>(
            "list_sessions",
            "List tmux Sessions",
            "List all sessions on the tmux server: id, name, window count, attached clients, creation \
             time and active pane. One round trip.",
        ),
        def::<ListWindowsArgs, ListResult<WindowInfo>>(
            "list_windows",
            "List tmux Windows",
            "List windows of one session (session_name or session_id), or of all sessions: id, name, \
             index, pane count, layout, size, active pane.",
        ),
        def::<ListPanesArgs, ListResult<PaneInfo>>(
            "list_panes",
            "List tmux Panes",
            "List panes of one window (window_id, or window_index in a session), one session, or all \
             sessions: id, size, position, tty, current command and path, pid, title. Metadata only; \
             use capture_pane or search_panes for content.",
        ),
        def::<ServerArgs, ServerInfo>(
            "get_server_info",
            "Get tmux Server Info",
            "Whether a tmux server runs on the socket, its version, pid and session count. A socket \
             with no server gives is_alive=false; no server is started.",
        ),
        def::<SessionArgs, SessionInfo>(
            "get_session_info",
            "Get tmux Session Info",
            "One session by session_id or exact session_name (default: the session a person used \
             last).",
        ),
        def::<WindowArgs, WindowInfo>(
            "get_window_info",
            "Get tmux Window Info",
            "One window by window_id, or window_index within a session (default: the session's \
             active window).",
        ),
        def::<PaneArgs, PaneInfo>(
            "get_pane_info",
            "Get tmux Pane Info",
            "One pane by pane_id (default: the active pane of the window or session given).",
        ),
        def::<CapturePaneArgs, CaptureResult>(
            "capture_pane",
            "Capture Pane",
            "The text of a pane, one line per screen row (join_wrapped=true joins soft-wrapped rows). \
             start/end are tmux line numbers: 0 is the top of the visible screen, negative numbers \
             reach into scrollback. Default: the visible screen; trailing empty rows are dropped. \
             max_lines (default 500) keeps the newest lines and prefixes '[... truncated K lines \
             ...]'; at most 8 MiB of text is returned (older lines beyond that are dropped and \
             counted in K).",
        ),
        def::<SnapshotPaneArgs, PaneSnapshot>(
            "snapshot_pane",
            "Snapshot Pane",
            "The visible screen of a pane plus its state in one call: cursor, size, position, \
             process, mode (copy mode and its scroll position), alternate screen, history size.",
        ),
        def::<DisplayMessageArgs, TextResult>(
            "display_message",
            "Evaluate tmux Format String",
            "Expand #{variable} references for a pane, e.g. '#{pane_current_command} #{pane_pid}'; \
             all other text, '#' and '%' included, is literal. Format modifiers (#{E:...}, \
             #{?...}) are refused, and #(...) is plain text, never a job.",
        ),
        def::<SearchPanesArgs, SearchPanesResult>(
            "search_panes",
            "Search tmux Panes",
            "Find lines containing a pattern in every pane (or one session's panes), across the whole \
             scrollback and the screen by default. Lines are logical lines: text split by a soft \
             wrap is found. Literal by default (regex=true for regex); case-insensitive unless \
             match_case. Returns, per pane, the newest max_matched_lines_per_pane matching lines \
             with their tmux line numbers; panes are paged with offset/limit.",
        ),
    ];
    for d in &mut defs {
        d.always_load = matches!(d.name, "list_panes" | "list_windows" | "snapshot_pane");
    }
    defs.into_iter()
        .map(|d| {
            let mut t = Tool::new(d.name, d.description, d.input);
            t.title = Some(d.title.to_string());
            t.output_schema = Some(d.output);
            let mut a = ToolAnnotations::default();
            a.title = Some(d.title.to_string());
            a.read_only_hint = Some(true);
            a.destructive_hint = Some(false);
            a.idempotent_hint = Some(true);
            a.open_world_hint = Some(false);
            t.annotations = Some(a);
            if d.always_load {
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
    let text = match &suggestion {
        Some(s) => format!("{message}\n{s}"),
        None => message.to_string(),
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

/// Parses arguments, mapping serde's complaint to an actionable error.
fn parse<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, Error> {
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

fn object<T: Serialize>(v: &T) -> CallToolResult {
    match serde_json::to_value(v) {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => error_result(
            &format!("could not encode the result: {e}"),
            "InternalError",
            false,
            None,
        ),
    }
}

fn list<T: Serialize>(items: &[T], filters: Option<&FiltersArg>) -> Result<CallToolResult, Error> {
    let mut values: Vec<Value> = items
        .iter()
        .filter_map(|i| serde_json::to_value(i).ok())
        .collect();
    if let Some(f) = filters {
        values = Filters::parse(f)?.apply(values)?;
    }
    let text = Value::Array(values.clone()).to_string();
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(json!({ "result": values }));
    Ok(r)
}

/// Drops whole lines from the front of `lines` until they fit in
/// [`MAX_TEXT_BYTES`] joined; returns how many were dropped.
fn fit_bytes(lines: &mut Vec<String>) -> usize {
    let mut total: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut drop = 0;
    while total > MAX_TEXT_BYTES && drop < lines.len() {
        total -= lines[drop].len() + 1;
        drop += 1;
    }
    lines.drain(..drop);
    drop
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

/// Runs tool `name`. Every failure becomes an error result.
pub async fn call(servers: &Servers, name: &str, args: Map<String, Value>) -> CallToolResult {
    call_with(servers, name, args, None).await
}

/// [`call`], reporting progress of long calls (a search that seeds the
/// mirror) to `progress`.
pub async fn call_with(
    servers: &Servers,
    name: &str,
    args: Map<String, Value>,
    progress: Option<crate::mirror::Progress>,
) -> CallToolResult {
    match run(servers, name, args, progress).await {
        Ok(r) => r,
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
    name: &str,
    args: Map<String, Value>,
    progress: Option<crate::mirror::Progress>,
) -> Result<CallToolResult, Error> {
    match name {
        "list_sessions" => {
            let a: ListSessionsArgs = parse(args)?;
            let t = server(servers, &a.socket_name)?;
            list(&t.list_sessions().await?, a.filters.as_ref())
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
            list(&t.list_windows(scope.as_ref()).await?, a.filters.as_ref())
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
            list(&t.list_panes(&scope).await?, a.filters.as_ref())
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
            let mut cap = t.capture(&target, &opts).await?;
            cap.truncated_lines += fit_bytes(&mut cap.lines);
            let text = joined(&cap.lines, cap.truncated_lines);
            let structured = CaptureResult {
                result: text.clone(),
                pane_id: cap.pane_id,
                lines: cap.lines.len(),
                truncated_lines: cap.truncated_lines,
                view: "live".into(),
                pane_in_mode: cap.pane_in_mode,
                pane_mode: cap.pane_mode,
                scroll_position: cap.scroll_position,
                alternate_on: cap.alternate_on,
                source: cap.source,
                pane_dead: cap.pane_dead,
            };
            let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
            r.structured_content = serde_json::to_value(&structured).ok();
            Ok(r)
        }
        "snapshot_pane" => {
            let a: SnapshotPaneArgs = parse(args)?;
            let max_lines = args::positive("max_lines", a.max_lines)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            Ok(object(&t.snapshot(&target, max_lines).await?))
        }
        "display_message" => {
            let a: DisplayMessageArgs = parse(args)?;
            let format = args::tmux_format(&a.format_string)?;
            let (t, target) = targeting!(a, pane_id, window_id).pane(servers).await?;
            let text = t.display(&target, &format).await?;
            let mut r = CallToolResult::success(vec![ContentBlock::text(text.clone())]);
            r.structured_content = Some(json!({ "result": text }));
            Ok(r)
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
            };
            Ok(object(&t.search_panes(&req).await?))
        }
        other => Ok(unknown_tool(other)),
    }
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
        assert_eq!(fit_bytes(&mut big), 2);
        assert_eq!(big.len(), 1);
    }
}
