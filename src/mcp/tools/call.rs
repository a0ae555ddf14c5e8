//! How a call is answered: the arguments read leniently and checked,
//! the row run (its target tried again when a default one moved), errors
//! as tool results, the response budget and the text blocks.

use super::*;
use crate::mcp::budget::{Budget, json_len};
use crate::mcp::lenient;
use crate::mcp::text::{self, Text, TextMode, TextShape};
use crate::mcp::toolsets::Policy;
use crate::tmux::{Error, ErrorKind, Server, Servers};
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The error result for a tool name that does not exist (or is not
/// offered).
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

pub(super) fn error_result(
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

pub(super) fn from_error(e: &Error) -> CallToolResult {
    error_result(
        &e.to_string(),
        e.kind().name(),
        e.kind().is_expected(),
        crate::mcp::errors::suggestion(e),
    )
}

/// Parses arguments: read leniently against the tool's input schema
/// ([`lenient::coerce`]), then checked by serde, with its complaint turned
/// into an actionable error.
pub(super) fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    mut args: Map<String, Value>,
) -> Result<T, Error> {
    lenient::coerce(&schema_for_type::<T>(), &mut args)?;
    serde_json::from_value(Value::Object(args)).map_err(|e| explain(&e.to_string()))
}

/// serde's complaint about a tool's arguments, in one line naming the
/// argument: a missing one, an unknown one (with the ones the tool
/// takes), else serde's words.
pub(super) fn explain(msg: &str) -> Error {
    /// The first `` `name` `` of `s`, and what follows it.
    fn quoted(s: &str) -> Option<(&str, &str)> {
        let (_, rest) = s.split_once('`')?;
        rest.split_once('`')
    }
    if let Some(e) = hosts::explain(msg) {
        return e;
    }
    if let Some(rest) = msg.strip_prefix("missing field ")
        && let Some((name, _)) = quoted(rest)
    {
        return Error::invalid(
            "arguments",
            format!("{name} is required (received no {name})"),
            format!("a value for {name}, as this tool's input schema lists it"),
        );
    }
    if let Some(rest) = msg.strip_prefix("unknown field ")
        && let Some((name, tail)) = quoted(rest)
    {
        // host and fenced are listed only when hosts are configured.
        let takes: Vec<&str> = tail
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|k| ![hosts::HOST_ARG, hosts::FENCED_ARG].contains(k))
            .collect();
        let mut expected = format!("only the arguments this tool takes: {}", takes.join(", "));
        if name == "wait_for_previous" {
            expected.push_str(
                " (wait_for_previous is a scheduling flag some clients leak into tool calls; retry \
                 without it)",
            );
        }
        return Error::invalid(
            "arguments",
            format!("unknown argument {name} (received {name}; not one this tool takes)"),
            expected,
        );
    }
    let one_line = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    Error::invalid(
        "arguments",
        format!("invalid arguments: {one_line}"),
        "arguments as listed in this tool's input schema",
    )
}

/// A successful result with structured content `value`; its text block is
/// written from it once the tool has answered ([`answer`], [`text`]).
pub(super) fn structured(value: Value) -> CallToolResult {
    let mut r = CallToolResult::success(Vec::new());
    r.structured_content = Some(value);
    r
}

pub(super) fn object<T: Serialize>(v: &T) -> CallToolResult {
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

/// Runs tool `name` for a caller that is not an MCP client (the CLI, the
/// demo, tests): no response budget, every tool offered, the text block
/// libtmux-mcp's ([`TextMode::Reference`]). A capture still holds at most
/// [`MAX_TEXT_BYTES`] of text, a search at most
/// [`crate::tmux::op::search::RESPONSE_BUDGET`] of matched lines. Every
/// failure becomes an error result.
pub async fn call(servers: &Servers, name: &str, args: Map<String, Value>) -> CallToolResult {
    let policy = Policy::all();
    answer(&Ctx::direct(servers, &policy), name, args).await
}

impl<'a> Ctx<'a> {
    /// The context of a caller that is not an MCP client ([`call`],
    /// [`call_typed`]): no budget, no progress, libtmux-mcp's text blocks.
    pub(super) fn direct(servers: &'a Servers, policy: &'a Policy) -> Ctx<'a> {
        Ctx {
            servers,
            budget: None,
            progress: None,
            policy,
            text: TextMode::Reference,
            verbose: true,
            redact: false,
        }
    }
}

/// Runs tool `name` for tmuxwire's own readers (the MCP resources): the
/// tool's structured content, or its typed error, so the caller decides
/// what a failure means by its kind and subject, never by its text. No
/// response budget, every tool offered; with `redact`, the operation is
/// told ([`op::Op::redacting`]: a capture of rows masks secrets a soft
/// wrap cut), and the caller masks the rest ([`crate::mcp::redaction`]).
///
/// # Errors
///
/// The operation's [`Error`]; [`ErrorKind::Internal`] for a tool that
/// answered with an error result of its own (an unknown name, a result
/// that could not be encoded).
pub async fn call_typed(
    servers: &Servers,
    name: &str,
    args: Map<String, Value>,
    redact: bool,
) -> Result<Value, Error> {
    let policy = Policy::all();
    let ctx = Ctx {
        redact,
        ..Ctx::direct(servers, &policy)
    };
    let r = run(&ctx, name, args).await?;
    if r.is_error == Some(true) {
        let text: Vec<String> = r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        return Err(Error::internal(format!("{name}: {}", text.join(" "))));
    }
    Ok(r.structured_content.unwrap_or(Value::Null))
}

/// Runs tool `name` for an MCP client: the answer's text is at most
/// `budget` bytes, and says what was cut to fit; long calls (a search
/// that seeds the mirror) report to `progress`; `policy` says which tools
/// a batch may run; `text` what the text block holds; `redact` whether
/// secrets are masked ([`crate::mcp::redaction`]). Every failure becomes an
/// error result. (Whether `name` is offered at all is checked by the
/// caller.)
#[allow(clippy::too_many_arguments)]
pub async fn call_within(
    servers: &Servers,
    budget: Budget,
    name: &str,
    args: Map<String, Value>,
    progress: Option<crate::mirror::Progress>,
    policy: &Policy,
    text: TextMode,
    redact: bool,
) -> CallToolResult {
    let ctx = Ctx {
        servers,
        budget: Some(budget),
        progress,
        policy,
        text,
        verbose: false,
        redact,
    };
    answer(&ctx, name, args).await
}

/// `r` with its text block written from its structured content, for
/// tool `name` in mode `mode` ([`text::render`]). Errors keep their text.
pub(super) fn with_text(
    name: &str,
    mode: TextMode,
    mut r: CallToolResult,
    also_quiet: &[&str],
) -> CallToolResult {
    if r.is_error == Some(true) || !r.content.is_empty() {
        return r;
    }
    let Some(value) = r.structured_content.as_ref() else {
        return r;
    };
    let t = text_of(name).unwrap_or(Text {
        shape: TextShape::String,
        quiet: &[],
        numbers: &[],
    });
    r.content = text::render(mode, &t, value, also_quiet)
        .into_iter()
        .map(ContentBlock::text)
        .collect();
    r
}

/// Runs tool `name` and writes its answer: the call's own options taken
/// from `args` first (`max_bytes`, `verbose`, for the rows that take
/// them), diagnostics of the happy path left out unless asked for, the
/// text blocks written, and the answer held to the call's budget.
///
/// Every text a tool returns passes here on its way out, in the result's
/// structured content before the text blocks are written from it: the
/// one place a filter of returned text (redaction) belongs.
pub(super) async fn answer(
    ctx: &Ctx<'_>,
    name: &str,
    mut args: Map<String, Value>,
) -> CallToolResult {
    let def = def_of(name);
    let budget = match def.filter(|d| d.sized) {
        Some(_) => match take_max_bytes(&mut args, def.is_some_and(own_max_bytes)) {
            Ok(Some(n)) => Some(Budget::for_call(n, ctx.budget)),
            Ok(None) => ctx.budget,
            Err(e) => return from_error(&e),
        },
        None => ctx.budget,
    };
    let verbose = match def.filter(|d| d.verbose) {
        Some(_) => match hosts::take_flag(VERBOSE_ARG, &mut args) {
            Ok(v) => v.unwrap_or(ctx.verbose),
            Err(e) => return from_error(&e),
        },
        None => ctx.verbose,
    };
    let ctx = Ctx {
        servers: ctx.servers,
        budget,
        progress: ctx.progress.clone(),
        policy: ctx.policy,
        text: ctx.text,
        verbose,
        redact: ctx.redact,
    };
    let ctx = &ctx;
    let masked = |r: CallToolResult| {
        if ctx.redact {
            crate::mcp::redaction::tool_result(r)
        } else {
            r
        }
    };
    match run(ctx, name, args).await {
        Ok(mut r) => {
            // A confirmed delivery is what the sentence already says.
            let quiet: &[&str] = if !ctx.verbose && quiet_delivery(&mut r) {
                &["delivery"]
            } else {
                &[]
            };
            within(with_text(name, ctx.text, masked(r), quiet), ctx.budget)
        }
        // Say which call failed when the message comes from deeper down.
        Err(e) if matches!(e.kind(), ErrorKind::Timeout | ErrorKind::Connection) => {
            masked(error_result(
                &format!("{name}: {e}"),
                e.kind().name(),
                e.kind().is_expected(),
                crate::mcp::errors::suggestion(&e),
            ))
        }
        Err(e) => masked(from_error(&e)),
    }
}

/// The arguments that name a session, window or pane (or, for the option
/// tools, a `target`).
pub(super) const NAMING: &[&str] = &[
    "pane_id",
    "window_id",
    "window_index",
    "session_id",
    "session_name",
    "target",
];

/// Whether `args` name no session, window or pane: the call acts on
/// tmux's default choice ([`Selector`]'s default).
pub(super) fn names_no_object(args: &Map<String, Value>) -> bool {
    NAMING
        .iter()
        .all(|k| args.get(*k).is_none_or(Value::is_null))
}

/// Times a read that names no object runs at most, when the object chosen
/// for it went away before it was read.
pub(super) const DEFAULT_TARGET_TRIES: u32 = 3;

/// Runs `call`; with `again` (a read that names no object), runs it again
/// when it says its object is not found and the server still has
/// sessions: the session, window or pane chosen for it went away between
/// the choice and the read (another client killed it), which is no
/// answer about the caller's request. Only a failure within the first
/// [`DEFAULT_TARGET_AGAIN_WITHIN`] is run again, so a wait that ran its
/// time is never run twice.
pub(super) async fn call_again(
    call: CallFn,
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
    again: bool,
) -> Result<CallToolResult, Error> {
    if !again {
        return call(ctx, args).await;
    }
    let began = std::time::Instant::now();
    let mut tries = 1;
    loop {
        match call(ctx, args.clone()).await {
            Err(e)
                if tries < DEFAULT_TARGET_TRIES
                    && e.is(ErrorKind::NotFound)
                    && !crate::tmux::target::is_empty_server(&e)
                    && began.elapsed() < DEFAULT_TARGET_AGAIN_WITHIN =>
            {
                tracing::debug!(%e, "the default target went away; choosing again");
                tries += 1;
            }
            other => return other,
        }
    }
}

/// How soon a read that names no object must fail for it to run again
/// ([`call_again`]).
pub(super) const DEFAULT_TARGET_AGAIN_WITHIN: std::time::Duration =
    std::time::Duration::from_secs(2);

/// Runs one tool by name.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    // Each toolset's future is boxed: one future holding every tool's
    // state inline would be as large as the largest and nest deeper than
    // the compiler's layout limit allows.
    let Some(def) = def_of(name) else {
        return Ok(unknown_tool(name));
    };
    let Some(call) = def.call else {
        return Err(Error::internal(format!(
            "tool {name} has no call in the table"
        )));
    };
    let again = def.hints.read_only && names_no_object(&args);
    if def.hosted {
        // Its arguments name the host ([`Route`]).
        return call_again(call, ctx, args, again).await;
    }
    let mut args = args;
    let host = hosts::take_host(&mut args)?;
    if name == "list_hosts" {
        // Every host's state, whichever host the call named.
        return call(ctx, args).await;
    }
    let route = Route {
        pool: hosts::pool(ctx.servers, host.as_deref())?,
        fenced: true,
    };
    let sub = Ctx {
        servers: route.pool,
        budget: ctx.budget,
        progress: ctx.progress.clone(),
        policy: ctx.policy,
        text: ctx.text,
        verbose: ctx.verbose,
        redact: ctx.redact,
    };
    Ok(route.mark(call_again(call, &sub, args, again).await?))
}

/// `max_bytes` of a call's arguments: taken out, or only read when the
/// tool's own arguments hold it too (`get_command_output`'s cap on line
/// text also raises the call's budget).
pub(super) fn take_max_bytes(
    args: &mut Map<String, Value>,
    own: bool,
) -> Result<Option<usize>, Error> {
    let v = if own {
        args.get(MAX_BYTES_ARG).cloned()
    } else {
        args.shift_remove(MAX_BYTES_ARG)
    };
    let bad = |v: &Value| {
        Error::invalid(
            MAX_BYTES_ARG,
            format!("max_bytes must be a positive integer (received {v})"),
            "bytes, like 100000 (at most 1048576)",
        )
    };
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(ref x @ Value::String(ref s)) => match Budget::parse_size(s) {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(bad(x)),
        },
        Some(ref x @ Value::Number(ref n)) => match n.as_u64() {
            Some(n) if n > 0 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
            _ => Err(bad(x)),
        },
        Some(x) => Err(bad(&x)),
    }
}

/// Whether tool `d`'s own arguments include `max_bytes`.
pub(super) fn own_max_bytes(d: &Def) -> bool {
    d.input
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.contains_key(MAX_BYTES_ARG))
}

/// Leaves out a delivery's `evidence` (and `ready`) when the delivery was
/// the happy path: the program was ready (or not gated), and the text was
/// typed and submitted, confirmed, without pressing Enter again. Off that
/// path (not ready, unconfirmed, retried) the evidence says why, and
/// stays.
/// Returns whether it was: then the text blocks need not repeat it.
pub(super) fn quiet_delivery(r: &mut CallToolResult) -> bool {
    let Some(Value::Object(d)) = r
        .structured_content
        .as_mut()
        .and_then(|v| v.get_mut("delivery"))
    else {
        return false;
    };
    let confirmed = |k: &str| d.get(k).is_none_or(|v| v == "confirmed");
    let happy = d.get("ready") != Some(&Value::Bool(false))
        && d.get("typed") == Some(&json!("confirmed"))
        && confirmed("submitted")
        && d.get("enter_retries").and_then(Value::as_u64).unwrap_or(0) == 0;
    if happy {
        d.shift_remove("evidence");
        d.shift_remove("ready");
    }
    happy
}

/// `r`, or an error when either view of it is over `budget` after all:
/// its structured content serialized (what a client that prefers it gives
/// the model) or its text blocks (what a text-only client gives). Every
/// tool that can return much text cuts it to fit; this catches the rest.
pub(super) fn within(r: CallToolResult, budget: Option<Budget>) -> CallToolResult {
    let Some(b) = budget else { return r };
    let text: usize = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.len() + 1))
        .sum();
    let structured = r.structured_content.as_ref().map_or(0, json_len);
    let size = text.max(structured);
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
            "Ask for less (a narrower target or range), pass a larger max_bytes where the tool \
             takes it, or start tmuxwire with a larger --response-budget."
                .into(),
        ),
    )
}

/// The wait ceiling in seconds: `TMUXWIRE_WAIT_MAX_SECONDS`, else
/// libtmux-mcp's `LIBTMUX_MCP_WAIT_MAX_SECONDS`, else 30; clamped to
/// 1–120 (a bad value is ignored). The MCP tools that wait clamp their
/// timeout to it: a model's call should not hold the connection longer.
pub fn wait_ceiling() -> f64 {
    ["TMUXWIRE_WAIT_MAX_SECONDS", "LIBTMUX_MCP_WAIT_MAX_SECONDS"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .map_or(30.0, |v| v.clamp(1.0, 120.0))
}

/// The server a call names: `socket_path` (`-S`), else `socket_name`
/// (`-L`), else the default.
pub(super) fn server(
    servers: &Servers,
    socket_name: &Option<String>,
    socket_path: &Option<String>,
) -> Result<Arc<Server>, Error> {
    servers.get_socket(socket_name.as_deref(), socket_path.as_deref())
}
