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
//! * [`reference`]: `docs/TOOLS.md`, made from the rows below;
//! * [`follow`]: the tools that follow a pane on the mirror
//!   (`wait_for_text`, `capture_since`, `run_command`).
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
pub mod follow;
pub mod hosts;
pub mod inspect;
pub mod manage;
pub mod reference;
pub mod teardown;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::args;
use super::budget::{Budget, json_len};
use super::schema;
use super::text::{self, Rendered, Text, TextMode, TextShape};
use super::toolsets::{Policy, Toolset};
use crate::tmux::op::{self, Limit, Op};
use crate::tmux::{Error, ErrorKind, Selector, Server, Servers};

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

impl Rendered for Listing<crate::tmux::SessionInfo> {
    const TEXT: TextShape = TextShape::List;
}

impl Rendered for Listing<crate::tmux::WindowInfo> {
    const TEXT: TextShape = TextShape::List;
}

impl Rendered for Listing<crate::tmux::PaneInfo> {
    const TEXT: TextShape = TextShape::List;
}

impl Rendered for Listing<crate::tmux::ServerInfo> {
    const TEXT: TextShape = TextShape::List;
}

/// What an action tool reports: libtmux-mcp's sentence.
#[derive(Serialize, JsonSchema)]
struct Message {
    result: String,
}

impl Rendered for Message {
    const TEXT: TextShape = TextShape::String;
}

/// What an action on a pane reports: the sentence and the pane.
#[derive(Serialize, JsonSchema)]
struct PaneMessage {
    result: String,
    pane_id: String,
}

impl Rendered for PaneMessage {
    const TEXT: TextShape = TextShape::String;
    const QUIET: &'static [&'static str] = &["pane_id"];
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
    "socket_path",
];

/// A tool's MCP annotations (libtmux-mcp 0.1.0a20's meaningful hints).
#[derive(Clone, Copy, Debug)]
struct Hints {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

/// Reads only.
const READ: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};
/// Changes something; the same call again changes nothing more.
const IDEMPOTENT: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: true,
    open_world: false,
};
/// Creates or moves something; again makes another.
const ADDITIVE: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: false,
};
/// Reaches programs in panes (input, output to files).
const OPEN: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: true,
};
/// Destroys something.
const DESTRUCTIVE: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: false,
};

/// One tool's definition.
struct Def {
    name: &'static str,
    description: &'static str,
    input: JsonObject,
    /// The result type's output schema ([`schema::output`]).
    output: fn() -> JsonObject,
    /// `tools/list` sends [`Def::output`] ([`Def::mark_output_schema`]).
    sends_output: bool,
    hints: Hints,
    /// How the text blocks of a result are made (the result type's
    /// [`Rendered`] constants).
    text: Text,
    /// The toolset that offers it.
    toolset: Toolset,
    /// How a call runs: a typed row's request and operation
    /// ([`typed`]), or a call that needs the call's context ([`Def::calls`]);
    /// `None` for the tools still run by their toolset's `run`.
    call: Option<CallFn>,
    /// It bounds its own waiting (libtmux-mcp's `self-bounded` tag), so a
    /// batch refuses it.
    self_bounded: bool,
    /// It is sent with `_meta["anthropic/alwaysLoad"]: true`, which asks a
    /// client to load it up front (libtmux-mcp marks three tools so).
    always_load: bool,
    /// It answers from the pane mirror and takes `fenced`
    /// ([`hosts::take_fenced`]).
    fenced: bool,
    /// It can answer much text and takes `max_bytes`, the call's own
    /// response budget ([`Budget::for_call`]).
    sized: bool,
    /// It reports diagnostics (a delivery's evidence) only off the happy
    /// path unless the call says `verbose: true`.
    verbose: bool,
    /// It is one of the core tools (`TMUXWIRE_TOOLSETS=core`,
    /// [`super::toolsets::CORE`]).
    core: bool,
}

impl Def {
    /// The row, run by `call` (for tools that need the call's context:
    /// the pool of servers, the policy); the tmux work still goes through
    /// [`op::run`].
    fn calls(mut self, call: CallFn) -> Def {
        self.call = Some(call);
        self
    }

    /// The row, marked as bounding its own waiting.
    fn mark_self_bounded(mut self) -> Def {
        self.self_bounded = true;
        self
    }

    /// The row, marked to be loaded up front.
    fn mark_always_load(mut self) -> Def {
        self.always_load = true;
        self
    }

    /// The row, marked as answering from the pane mirror (it takes
    /// `fenced`).
    fn mark_fenced(mut self) -> Def {
        self.fenced = true;
        self
    }

    /// The row, marked as answering much text (it takes `max_bytes`).
    fn mark_sized(mut self) -> Def {
        self.sized = true;
        self
    }

    /// The row, marked as sending its output schema: the four objects
    /// other results are made of, as libtmux-mcp's models have them
    /// (`get_pane_info`, `get_window_info`, `get_session_info`,
    /// `get_server_info`), which the instructions name as the fields of
    /// every pane, window, session and server returned. Other rows send
    /// none: their structured content is one JSON object all the same
    /// (MCP requires it), whose keys a model reads; their fields are what
    /// those objects hold (lists, actions that return one), a sentence
    /// (`{"result": …}`), or what the descriptions and instructions name
    /// (captures, searches, waits, state, commands, batches, options). A
    /// schema for each would take a third of `tools/list`, and
    /// libtmux-mcp's own response-limited tools advertise none either.
    fn mark_output_schema(mut self) -> Def {
        self.sends_output = true;
        self
    }

    /// The row, marked as one of the core tools.
    fn mark_core(mut self) -> Def {
        self.core = true;
        self
    }

    /// The row, marked as keeping diagnostics for `verbose: true`.
    fn mark_verbose(mut self) -> Def {
        self.verbose = true;
        self
    }
}

/// A call's future: a boxed future per tool keeps one dispatch future
/// from holding every tool's state inline.
type CallFuture<'a> = Pin<Box<dyn Future<Output = Result<CallToolResult, Error>> + Send + 'a>>;

/// How a typed row runs a call.
type CallFn = for<'a> fn(&'a Ctx<'a>, Map<String, Value>) -> CallFuture<'a>;

/// A tool's arguments as the table runs them: the server they name and
/// the typed request they make. Checking happens here, so a bad call is
/// refused before anything reaches tmux.
pub(super) trait ToolArgs: DeserializeOwned + JsonSchema + Send + 'static {
    /// The operation's request.
    type Request: Op<Response: Serialize + JsonSchema + Rendered + 'static>;

    /// `(socket_name, socket_path)`: the server named (`-L`, `-S`).
    fn socket(&self) -> (Option<&str>, Option<&str>);

    /// The request, checked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming the argument.
    fn into_request(self) -> Result<Self::Request, Error>;
}

/// `impl ToolArgs` for argument structs with `socket_name` and
/// `socket_path` fields: `tool_args!(ListPanesArgs => ListPanesRequest, |a| ...)`.
macro_rules! tool_args {
    ($args:ty => $req:ty, |$a:ident| $body:expr) => {
        impl $crate::mcp::tools::ToolArgs for $args {
            type Request = $req;

            fn socket(&self) -> (Option<&str>, Option<&str>) {
                (self.socket_name.as_deref(), self.socket_path.as_deref())
            }

            fn into_request(self) -> Result<$req, $crate::tmux::Error> {
                let $a = self;
                $body
            }
        }
    };
}
pub(crate) use tool_args;

/// Runs a typed row: arguments parsed and checked into the request, the
/// server they name, the operation ([`op::run`], which cuts the answer to
/// the response budget), the response as structured content.
async fn typed<A: ToolArgs>(
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let a: A = parse(args)?;
    let (name, path) = a.socket();
    let server = ctx.servers.get_socket(name, path)?;
    let request = a.into_request()?.redacting(ctx.redact);
    Ok(object(&op::run(&server, request, ctx.limit()).await?))
}

/// A request that reports its progress to the MCP client.
trait Reports: Op {
    /// The request, reporting to `progress`.
    fn reporting_to(self, progress: Option<crate::mirror::Progress>) -> Self;
}

/// Runs a row of a request that reports progress: as a typed row
/// ([`super::row`]), with the call's progress sink.
async fn call_reporting<A: ToolArgs>(
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error>
where
    A::Request: Reports,
{
    let a: A = parse(args)?;
    let (name, path) = a.socket();
    let server = ctx.servers.get_socket(name, path)?;
    let request = a
        .into_request()?
        .reporting_to(ctx.progress.clone())
        .redacting(ctx.redact);
    let limit = ctx.budget.map_or(Limit::NONE, Budget::limit);
    Ok(object(&op::run(&server, request, limit).await?))
}

/// A typed row whose request reports progress ([`call_reporting`]).
fn reporting<A: ToolArgs>(name: &'static str, hints: Hints, description: &'static str) -> Def
where
    A::Request: Reports,
{
    let mut d = row::<A>(name, hints, description);
    d.call = Some(|ctx, args| Box::pin(call_reporting::<A>(ctx, args)));
    d
}

/// A typed row: the tool's name, hints and description (MCP's `title`
/// is not sent: it only restated the name), its
/// argument type `A` (whose request and response give the schemas, the
/// text shape and the call).
fn row<A: ToolArgs>(name: &'static str, hints: Hints, description: &'static str) -> Def {
    let mut d = def::<A, <A::Request as Op>::Response>(name, hints, description);
    d.call = Some(|ctx, args| Box::pin(typed::<A>(ctx, args)));
    d
}

/// A typed row whose answer is shown as `R`, made from the operation's
/// response: an action's sentence (`{"result": "Keys sent to pane %3",
/// "pane_id": "%3"}`) as libtmux-mcp reports it. `R` gives the schema and
/// the text shape.
fn row_as<A: ToolArgs, R>(name: &'static str, hints: Hints, description: &'static str) -> Def
where
    R: Serialize + JsonSchema + Rendered + From<<A::Request as Op>::Response> + 'static,
{
    let mut d = def::<A, R>(name, hints, description);
    d.call = Some(|ctx, args| Box::pin(typed_as::<A, R>(ctx, args)));
    d
}

/// Runs a [`row_as`] row: as [`typed`], the response shown as `R`.
async fn typed_as<A: ToolArgs, R>(
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error>
where
    R: Serialize + From<<A::Request as Op>::Response>,
{
    let a: A = parse(args)?;
    let (name, path) = a.socket();
    let server = ctx.servers.get_socket(name, path)?;
    let request = a.into_request()?.redacting(ctx.redact);
    let limit = ctx.budget.map_or(Limit::NONE, Budget::limit);
    Ok(object(&R::from(op::run(&server, request, limit).await?)))
}

fn def<A: JsonSchema + 'static, R: JsonSchema + Rendered + 'static>(
    name: &'static str,
    hints: Hints,
    description: &'static str,
) -> Def {
    Def {
        name,
        description,
        input: schema::input(&schema_for_type::<A>(), TARGETING),
        output: || schema::output(&schema_for_output::<R>()),
        sends_output: false,
        hints,
        text: Text::of::<R>(),
        toolset: Toolset::Inspect,
        call: None,
        self_bounded: false,
        always_load: false,
        fenced: false,
        sized: false,
        verbose: false,
        core: false,
    }
}

/// The argument that sets a call's own response budget.
const MAX_BYTES_ARG: &str = "max_bytes";
/// The argument that asks for diagnostics on the happy path too.
const VERBOSE_ARG: &str = "verbose";

/// Arguments every tool takes (but `list_servers`, `list_hosts` and the
/// read batch, whose operations name their own) that its listed schema
/// leaves out: the server instructions say them once
/// ([`super::INSTRUCTIONS`], TARGETING), and a call that sends them is
/// read as before.
const UNLISTED: &[&str] = &["socket_name", "socket_path"];

/// The targets a pane tool takes besides `pane_id` (that window's or
/// session's active pane), which its listed schema leaves to the
/// instructions; a tool that takes `window_index` too (`split_window`,
/// `select_pane`) acts on a window as well and lists them all.
const PANE_FALLBACKS: &[&str] = &["session_name", "session_id", "window_id"];

/// A tool's input schema as `tools/list` sends it: the row's schema
/// without [`UNLISTED`] arguments, a pane tool's [`PANE_FALLBACKS`] and
/// `additionalProperties` (every tool refuses an argument it does not
/// take, naming the ones it does: a schema that says so too would make
/// strict clients refuse the unlisted ones), with `max_bytes` and
/// `verbose` for the rows that take them (explained once, in the
/// instructions).
fn listed_input(d: &Def) -> JsonObject {
    let mut input = d.input.clone();
    drop_additional_properties(&mut input);
    unlist_pane_fallbacks(&mut input);
    if let Some(Value::Object(props)) = input.get_mut("properties") {
        for k in UNLISTED {
            props.shift_remove(*k);
        }
        if d.sized && !props.contains_key(MAX_BYTES_ARG) {
            props.insert(MAX_BYTES_ARG.into(), json!({"type": "integer"}));
        }
        if d.verbose {
            props.insert(VERBOSE_ARG.into(), json!({"type": "boolean"}));
        }
    }
    input
}

/// Leaves [`PANE_FALLBACKS`] out of a schema whose properties hold
/// `pane_id` and `window_id` (a pane tool's targets; `search_panes`'
/// `pane_id` narrows its session scope instead) but not `window_index`,
/// and of the items of its lists of operations (`send_keys_batch`).
fn unlist_pane_fallbacks(o: &mut JsonObject) {
    if let Some(Value::Object(props)) = o.get_mut("properties") {
        if props.contains_key("pane_id")
            && props.contains_key("window_id")
            && !props.contains_key("window_index")
        {
            for k in PANE_FALLBACKS {
                props.shift_remove(*k);
            }
        }
        for p in props.values_mut() {
            if let Some(Value::Object(items)) = p.get_mut("items") {
                unlist_pane_fallbacks(items);
            }
        }
    }
}

/// Removes every `additionalProperties` keyword of a schema (not a
/// property of that name).
fn drop_additional_properties(o: &mut JsonObject) {
    o.shift_remove("additionalProperties");
    for (k, v) in o.iter_mut() {
        match v {
            Value::Object(inner) if k == "properties" => {
                for p in inner.values_mut() {
                    if let Value::Object(p) = p {
                        drop_additional_properties(p);
                    }
                }
            }
            Value::Object(inner) => drop_additional_properties(inner),
            Value::Array(a) => {
                for x in a.iter_mut() {
                    if let Value::Object(x) = x {
                        drop_additional_properties(x);
                    }
                }
            }
            _ => {}
        }
    }
}

fn tool(d: &Def) -> Tool {
    let mut t = Tool::new(d.name, d.description, Arc::new(listed_input(d)));
    t.output_schema = d.sends_output.then(|| Arc::new((d.output)()));
    // Hints that differ from MCP's defaults (readOnly false, destructive
    // true, idempotent false, openWorld true) are sent; the others are
    // implied. destructiveHint and idempotentHint mean something only for
    // tools that are not read-only.
    let mut a = ToolAnnotations::default();
    if d.hints.read_only {
        a.read_only_hint = Some(true);
    } else {
        a.destructive_hint = (!d.hints.destructive).then_some(false);
        a.idempotent_hint = d.hints.idempotent.then_some(true);
    }
    a.open_world_hint = (!d.hints.open_world).then_some(false);
    t.annotations = Some(a);
    if d.always_load {
        let mut m = JsonObject::new();
        m.insert("anthropic/alwaysLoad".into(), Value::Bool(true));
        t.meta = Some(MetaObject(m));
    }
    t
}

/// The table: every tool's row, in listing order (inspect, manage,
/// execute, teardown).
fn defs() -> &'static [Def] {
    static DEFS: std::sync::OnceLock<Vec<Def>> = std::sync::OnceLock::new();
    DEFS.get_or_init(|| {
        let set = |t: Toolset| {
            move |mut d: Def| {
                d.toolset = t;
                d
            }
        };
        inspect::defs()
            .into_iter()
            .chain(hosts::defs())
            .map(set(Toolset::Inspect))
            .chain(manage::defs().into_iter().map(set(Toolset::Manage)))
            .chain(execute::defs().into_iter().map(set(Toolset::Execute)))
            .chain(teardown::defs().into_iter().map(set(Toolset::Teardown)))
            .collect()
    })
}

/// Tool `name`'s row.
fn def_of(name: &str) -> Option<&'static Def> {
    defs().iter().find(|d| d.name == name)
}

/// Every tool tmuxwire serves, in listing order (inspect, manage,
/// execute, teardown), whatever the toolset choice.
pub fn catalog() -> Vec<Tool> {
    defs()
        .iter()
        .filter(|d| d.name != "list_hosts")
        .map(tool)
        .collect()
}

/// The toolset of tool `name`, from its row; `None` for a name tmuxwire
/// does not serve.
pub fn toolset_of(name: &str) -> Option<Toolset> {
    def_of(name).map(|d| d.toolset)
}

/// Whether tmuxwire serves a tool `name` (for [`Policy::from_env`]).
pub fn is_tool(name: &str) -> bool {
    def_of(name).is_some()
}

/// The text shape of tool `name`'s result, from its definition.
pub fn shape_of(name: &str) -> Option<TextShape> {
    def_of(name).map(|d| d.text.shape)
}

/// How tool `name`'s text blocks are made, from its definition.
pub fn text_of(name: &str) -> Option<Text> {
    def_of(name).map(|d| d.text)
}

/// The characters above which Claude Code writes a tool result to a file
/// and hands its model the path, unless the tool declares more with
/// `_meta["anthropic/maxResultSizeChars"]`.
const CLIENT_FILE_THRESHOLD: usize = 50_000;

/// Declares `_meta["anthropic/maxResultSizeChars"]` on every tool of
/// `tools` that can answer past [`CLIENT_FILE_THRESHOLD`] characters under
/// `budget`: those that take `max_bytes` (up to the larger of the budget
/// and [`super::budget::CALL_CEILING`]), and every tool when the server's
/// budget itself is larger. The value is the most bytes either view can
/// hold, which bounds its characters.
pub fn declare_result_sizes(tools: &mut [Tool], budget: Budget) {
    for t in tools {
        let sized = def_of(&t.name).is_some_and(|d| d.sized);
        let most = if sized {
            budget.bytes().max(super::budget::CALL_CEILING)
        } else {
            budget.bytes()
        };
        if most <= CLIENT_FILE_THRESHOLD {
            continue;
        }
        let mut m = t.meta.take().map(|m| m.0).unwrap_or_default();
        m.insert("anthropic/maxResultSizeChars".into(), Value::from(most));
        t.meta = Some(MetaObject(m));
    }
}

/// The result contract of every tool, one Markdown table row each (the
/// generated part of `docs/RESULTS.md`, which a unit test keeps fresh):
/// its toolset, whether it sends `structuredContent` and an
/// `outputSchema`, its first text block, whether a second one can come,
/// and what a model reads under each client rule.
pub fn contract_table() -> String {
    let mut out = String::from(
        "| tool | toolset | structuredContent | outputSchema | first text block | second text block | structured-preferring client's model reads | text-only client's model reads |\n|---|---|---|---|---|---|---|---|\n",
    );
    for d in defs() {
        let schema = if d.sends_output {
            "fields and types"
        } else {
            "none"
        };
        let (first, second, text_view) = match d.text.shape {
            TextShape::String => (
                "the `result` string",
                "the other fields not quiet, when any",
                "the string, then the note when any",
            ),
            TextShape::List => (
                "the `result` list, bare",
                "`omitted` (and any other field), when any",
                "the list, then the note when any",
            ),
            TextShape::Object => ("the object as compact JSON", "never", "the whole object"),
        };
        let quiet = if d.text.quiet.is_empty() {
            String::new()
        } else {
            format!(
                " (quiet: {})",
                d.text
                    .quiet
                    .iter()
                    .map(|q| format!("`{q}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        out.push_str(&format!(
            "| `{}` | {} | always | {schema} | {first} | {second}{quiet} | the object as compact JSON{} | {text_view} |\n",
            d.name,
            d.toolset.name(),
            if d.sized { ", within the budget or `max_bytes`" } else { "" },
        ));
    }
    out
}

/// The tools `policy` offers, in listing order.
pub fn catalog_for(policy: &Policy) -> Vec<Tool> {
    defs()
        .iter()
        .filter(|d| d.name != "list_hosts" && policy.offers(d.name, d.toolset, d.core))
        .map(tool)
        .collect()
}

/// [`catalog_for`] for a server with remote hosts: `list_hosts` too, and
/// every other tool's `host` argument, one of `names` (`None`: no hosts,
/// the plain catalog).
pub fn catalog_for_hosts(policy: &Policy, names: Option<&[String]>) -> Vec<Tool> {
    let Some(names) = names else {
        return catalog_for(policy);
    };
    defs()
        .iter()
        .filter(|d| policy.offers(d.name, d.toolset, d.core))
        .map(|d| {
            let mut t = tool(d);
            if d.name != "list_hosts" {
                hosts::add_host_arg(d.fenced, Arc::make_mut(&mut t.input_schema), names);
            }
            t
        })
        .collect()
}

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
    error_result(
        &e.to_string(),
        e.kind().name(),
        e.kind().is_expected(),
        super::errors::suggestion(e),
    )
}

/// Parses arguments: read leniently against the tool's input schema
/// ([`args::coerce`]), then checked by serde, with its complaint turned
/// into an actionable error.
fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    mut args: Map<String, Value>,
) -> Result<T, Error> {
    args::coerce(&schema_for_type::<T>(), &mut args)?;
    serde_json::from_value(Value::Object(args)).map_err(|e| explain(&e.to_string()))
}

/// serde's complaint about a tool's arguments, in one line naming the
/// argument: a missing one, an unknown one (with the ones the tool
/// takes), else serde's words.
fn explain(msg: &str) -> Error {
    /// The first `` `name` `` of `s`, and what follows it.
    fn quoted(s: &str) -> Option<(&str, &str)> {
        let (_, rest) = s.split_once('`')?;
        rest.split_once('`')
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
        let takes: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
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
fn structured(value: Value) -> CallToolResult {
    let mut r = CallToolResult::success(Vec::new());
    r.structured_content = Some(value);
    r
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
    fn direct(servers: &'a Servers, policy: &'a Policy) -> Ctx<'a> {
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
/// wrap cut), and the caller masks the rest ([`super::redaction`]).
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
/// secrets are masked ([`super::redaction`]). Every failure becomes an
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
fn with_text(
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
async fn answer(ctx: &Ctx<'_>, name: &str, mut args: Map<String, Value>) -> CallToolResult {
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
            super::redaction::tool_result(r)
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
                super::errors::suggestion(&e),
            ))
        }
        Err(e) => masked(from_error(&e)),
    }
}

/// The arguments that name a session, window or pane (or, for the option
/// tools, a `target`).
const NAMING: &[&str] = &[
    "pane_id",
    "window_id",
    "window_index",
    "session_id",
    "session_name",
    "target",
];

/// Whether `args` name no session, window or pane: the call acts on
/// tmux's default choice ([`Selector`]'s default).
fn names_no_object(args: &Map<String, Value>) -> bool {
    NAMING
        .iter()
        .all(|k| args.get(*k).is_none_or(Value::is_null))
}

/// Times a read that names no object runs at most, when the object chosen
/// for it went away before it was read.
const DEFAULT_TARGET_TRIES: u32 = 3;

/// Runs `call`; with `again` (a read that names no object), runs it again
/// when it says its object is not found and the server still has
/// sessions: the session, window or pane chosen for it went away between
/// the choice and the read (another client killed it), which is no
/// answer about the caller's request. Only a failure within the first
/// [`DEFAULT_TARGET_AGAIN_WITHIN`] is run again, so a wait that ran its
/// time is never run twice.
async fn call_again(
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
const DEFAULT_TARGET_AGAIN_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs one tool by name.
async fn run(ctx: &Ctx<'_>, name: &str, args: Map<String, Value>) -> Result<CallToolResult, Error> {
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
    let mut args = args;
    let host = hosts::take_host(&mut args)?;
    if name == "list_hosts" {
        // Every host's state, whichever host the call named.
        return call(ctx, args).await;
    }
    let fenced = hosts::take_fenced(def.fenced, &mut args)?;
    if let (Some(on), Some(asked)) = (ctx.servers.host_name(), host.as_deref())
        && on != asked
    {
        // An operation of a batch that runs on a host.
        return Err(Error::invalid(
            hosts::HOST_ARG,
            format!("this batch runs on host {on}; an operation in it cannot name host {asked}"),
            format!("no host in the operations, or \"{on}\""),
        ));
    }
    let pool = ctx.servers.for_host(host.as_deref())?;
    let again = def.hints.read_only && names_no_object(&args);
    let Some(remote) = pool.host_name() else {
        let mut r =
            crate::mirror::Mirror::unfenced(fenced, call_again(call, ctx, args, again)).await?;
        hosts::mark_unfenced(&mut r, fenced);
        return Ok(r);
    };
    let sub = Ctx {
        servers: pool,
        budget: ctx.budget,
        progress: ctx.progress.clone(),
        policy: ctx.policy,
        text: ctx.text,
        verbose: ctx.verbose,
        redact: ctx.redact,
    };
    let mut r =
        crate::mirror::Mirror::unfenced(fenced, call_again(call, &sub, args, again)).await?;
    hosts::mark_unfenced(&mut r, fenced);
    hosts::mark_host(&mut r, remote);
    Ok(r)
}

/// `max_bytes` of a call's arguments: taken out, or only read when the
/// tool's own arguments hold it too (`get_command_output`'s cap on line
/// text also raises the call's budget).
fn take_max_bytes(args: &mut Map<String, Value>, own: bool) -> Result<Option<usize>, Error> {
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
fn own_max_bytes(d: &Def) -> bool {
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
fn quiet_delivery(r: &mut CallToolResult) -> bool {
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
fn within(r: CallToolResult, budget: Option<Budget>) -> CallToolResult {
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
fn server(
    servers: &Servers,
    socket_name: &Option<String>,
    socket_path: &Option<String>,
) -> Result<Arc<Server>, Error> {
    servers.get_socket(socket_name.as_deref(), socket_path.as_deref())
}

/// The libtmux-mcp targeting arguments of one call.
struct Targeting<'a> {
    pane_id: &'a Option<String>,
    window_id: &'a Option<String>,
    window_index: Option<i64>,
    session_id: &'a Option<String>,
    session_name: &'a Option<String>,
}

impl Targeting<'_> {
    fn selector(&self) -> Result<Selector, Error> {
        args::selector(
            self.pane_id,
            self.window_id,
            self.window_index,
            self.session_id,
            self.session_name,
        )
    }
}

/// Targeting from an args struct's fields; missing kinds are `None`.
macro_rules! targeting {
    ($a:expr $(, $field:ident)*) => {{
        #[allow(unused_mut)]
        let mut t = $crate::mcp::tools::Targeting {
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
pub(crate) use targeting;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_names_an_object_by_any_targeting_argument() {
        let args = |v: Value| match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        assert!(names_no_object(&args(json!({}))));
        assert!(names_no_object(&args(
            json!({"socket_name": "w", "pane_id": null})
        )));
        for k in NAMING {
            assert!(!names_no_object(&args(json!({*k: "x"}))), "{k}");
        }
    }

    /// libtmux-mcp's tools, copied once from the reference catalog.
    const REFERENCE: &str = include_str!("../../../tests/data/reference-tools.md");

    /// Every tool of the reference's toolset table: its name, toolset and
    /// whether it is marked self-bounded.
    fn reference_tools() -> Vec<(&'static str, Toolset, bool)> {
        let mut out = Vec::new();
        for line in REFERENCE.lines() {
            let Some((set, rest)) = line.strip_prefix("| `").and_then(|l| l.split_once('`')) else {
                continue;
            };
            let toolset = Toolset::ALL
                .into_iter()
                .find(|t| t.name() == set)
                .expect("a toolset");
            let names = rest.split_once("| ").expect("a tool list").1;
            for name in names.trim_end_matches(" |").split(", ") {
                match name.strip_suffix(" (+self-bounded)") {
                    Some(n) => out.push((n, toolset, true)),
                    None => out.push((name, toolset, false)),
                }
            }
        }
        out
    }

    /// tmuxwire's tools beyond the reference's: toolset, and whether it
    /// bounds its own waiting.
    const OWN_TOOLS: &[(&str, Toolset, bool)] = &[
        ("get_pane_state", Toolset::Inspect, false),
        ("list_commands", Toolset::Inspect, false),
        ("get_command_output", Toolset::Inspect, false),
        ("wait_for_command", Toolset::Inspect, true),
        ("wait_for_stable", Toolset::Inspect, true),
        ("poll_events", Toolset::Inspect, true),
    ];

    /// The tools the reference sends with `anthropic/alwaysLoad`.
    fn reference_always_load() -> Vec<&'static str> {
        let line = REFERENCE
            .lines()
            .find(|l| l.contains("anthropic/alwaysLoad"))
            .expect("the alwaysLoad line");
        let list = line.split_once("`: ").expect("a list").1;
        let list = list.split_once(". ").expect("a sentence").0;
        list.split(", ").map(|n| n.trim_matches('`')).collect()
    }

    /// The result shape of every tool whose reference entry says what it
    /// returns: a list (`list[…]`), a string (a sentence in quotes, or "a
    /// string"), else an object.
    fn reference_results() -> Vec<(&'static str, &'static str)> {
        let mut out: Vec<(&str, &str)> = Vec::new();
        let mut tool = None;
        for line in REFERENCE.lines() {
            let heading = line.strip_prefix("- ").unwrap_or(line);
            if let Some(rest) = heading.strip_prefix("**`") {
                tool = rest.split_once('`').map(|(n, _)| n);
                continue;
            }
            let (Some(name), Some((_, what))) = (tool, line.split_once("Returns ")) else {
                continue;
            };
            tool = None;
            let shape = if what.starts_with("`list[") {
                "list"
            } else if ["`\"", "a string", "a **string**"]
                .iter()
                .any(|p| what.starts_with(p))
            {
                "string"
            } else {
                "object"
            };
            out.push((name, shape));
        }
        out
    }

    /// The table serves exactly the reference's tools, each once, in its
    /// toolset and with its marks; listing order follows the toolsets;
    /// schemas and hints are what clients expect.
    #[test]
    fn catalog_shape() {
        let reference = reference_tools();
        assert_eq!(reference.len(), 54);
        let tools = catalog();
        assert_eq!(tools.len(), reference.len() + OWN_TOOLS.len());
        for (name, toolset, self_bounded) in OWN_TOOLS {
            assert!(reference.iter().all(|(n, ..)| n != name), "{name}");
            let d = def_of(name).unwrap_or_else(|| panic!("{name} is served"));
            assert_eq!(d.toolset, *toolset, "{name}");
            assert_eq!(d.self_bounded, *self_bounded, "{name}");
        }
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "names are unique");
        for (name, toolset, self_bounded) in &reference {
            let d = def_of(name).unwrap_or_else(|| panic!("{name} is served"));
            assert_eq!(d.toolset, *toolset, "{name}");
            assert_eq!(d.self_bounded, *self_bounded, "{name}");
        }
        let order: Vec<Toolset> = defs().iter().map(|d| d.toolset).collect();
        assert!(order.is_sorted(), "listed by toolset");
        let always = reference_always_load();
        assert_eq!(always.len(), 3);
        for t in &tools {
            let loads = t
                .meta
                .as_ref()
                .is_some_and(|m| m.0.get("anthropic/alwaysLoad") == Some(&json!(true)));
            assert_eq!(loads, always.contains(&t.name.as_ref()), "{}", t.name);
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            // Listed without additionalProperties and the arguments the
            // instructions say once; the row's own schema keeps both.
            assert_eq!(
                t.input_schema.get("additionalProperties"),
                None,
                "{}",
                t.name
            );
            let d = def_of(&t.name).expect("a row");
            assert_eq!(
                d.input.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                t.name
            );
            let props = t.input_schema.get("properties").and_then(Value::as_object);
            let has = |k: &str| props.is_some_and(|p| p.contains_key(k));
            let row_has = |k: &str| {
                d.input
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.contains_key(k))
            };
            // Every tool runs over one server, but the batch (its
            // operations name theirs) and list_servers (it finds them).
            if !matches!(
                t.name.as_ref(),
                "list_servers" | "call_read_tools_batch" | "list_hosts"
            ) {
                assert!(
                    row_has("socket_name") && row_has("socket_path"),
                    "{}",
                    t.name
                );
            }
            assert!(!has("socket_name") && !has("socket_path"), "{}", t.name);
            // A pane tool lists pane_id, not the targets that fall back
            // to an active pane (but those that act on a window too).
            if row_has("pane_id") && row_has("window_id") && !row_has("window_index") {
                for k in PANE_FALLBACKS {
                    assert!(!has(k), "{} {k}", t.name);
                }
            }
            if t.name == "search_panes" {
                assert!(has("session_name") && has("session_id") && has("pane_id"));
            }
            assert_eq!(t.title, None, "{}", t.name);
            // Output schemas only for the four objects other results are
            // made of.
            assert_eq!(
                t.output_schema.is_some(),
                matches!(
                    t.name.as_ref(),
                    "get_pane_info" | "get_window_info" | "get_session_info" | "get_server_info"
                ),
                "{}",
                t.name
            );
            let a = t.annotations.as_ref().expect("annotations");
            let read = toolset_of(&t.name) == Some(Toolset::Inspect);
            assert_eq!(a.read_only_hint, read.then_some(true), "{}", t.name);
        }
        assert!(is_tool("list_panes") && !is_tool("no_such_tool"));
    }

    /// Every tool's text shape is its reference result's: a string for the
    /// tools whose libtmux-mcp result is a `str`, a bare list for the list
    /// tools, an object for the rest.
    #[test]
    fn text_shapes_follow_the_reference() {
        let results = reference_results();
        assert!(results.len() >= 50, "{}", results.len());
        for (name, want) in results {
            let got = match shape_of(name).expect("every tool has a shape") {
                TextShape::String => "string",
                TextShape::List => "list",
                TextShape::Object => "object",
            };
            assert_eq!(got, want, "{name}");
        }
        assert!(shape_of("no_such_tool").is_none());
    }

    /// The text block of each shape, from a structured result, in both
    /// modes; errors keep their message.
    #[test]
    fn text_blocks() {
        let text_of = |r: &CallToolResult| {
            r.content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect::<Vec<_>>()
        };
        let pane = json!({"result": "[... truncated 2 lines ...]\nb\n$", "pane_id": "%1",
            "truncated_lines": 2});
        let r = with_text(
            "capture_pane",
            TextMode::Reference,
            structured(pane.clone()),
            &[],
        );
        assert_eq!(
            text_of(&r),
            [
                "[... truncated 2 lines ...]\nb\n$",
                r#"{"truncated_lines":2}"#
            ]
        );
        assert_eq!(r.structured_content.as_ref(), Some(&pane));
        let r = with_text(
            "capture_pane",
            TextMode::Json,
            structured(pane.clone()),
            &[],
        );
        assert_eq!(text_of(&r), [pane.to_string()]);
        let r = with_text(
            "kill_pane",
            TextMode::Reference,
            object(&Message {
                result: "Pane killed: %1".into(),
            }),
            &[],
        );
        assert_eq!(text_of(&r), ["Pane killed: %1"]);
        let list = json!({"result": [{"session_id": "$0", "session_name": "a"}]});
        let r = with_text("list_sessions", TextMode::Reference, structured(list), &[]);
        assert_eq!(text_of(&r), [r#"[{"session_id":"$0","session_name":"a"}]"#]);
        let e = error_result("no such pane", "NotFound", true, None);
        let r = with_text("capture_pane", TextMode::Reference, e.clone(), &[]);
        assert_eq!(r, e);
    }

    /// Wrong values a model is likely to send for an argument of each
    /// declared type: a word for a number or a flag, a fraction for an
    /// integer, an object for a string or a list of strings, a name not
    /// in an enum.
    fn wrong_values(prop: &Value) -> Vec<Value> {
        let types: Vec<&str> = match (prop.get("type"), prop.get("anyOf")) {
            (Some(Value::String(t)), _) => vec![t.as_str()],
            (_, Some(Value::Array(b))) => b
                .iter()
                .filter_map(|b| b.get("type").and_then(Value::as_str))
                .filter(|t| *t != "null")
                .collect(),
            _ => Vec::new(),
        };
        if prop.get("enum").is_some() {
            return vec![json!("no-such-choice"), json!({"a": 1})];
        }
        match types.as_slice() {
            ["integer"] => vec![json!("abc"), json!(1.5), json!({"a": 1}), json!([1, 2])],
            ["number"] => vec![json!("fast"), json!({"a": 1})],
            ["boolean"] => vec![json!("maybe"), json!(2), json!([true])],
            ["string"] => vec![json!({"a": 1}), json!([1, 2])],
            ["array"] => {
                let objects = prop["items"]["type"] == json!("object");
                if objects {
                    vec![json!(5), json!("not a list")]
                } else {
                    vec![json!({"a": 1})]
                }
            }
            ["object"] => vec![json!(5), json!("not json")],
            _ => Vec::new(),
        }
    }

    /// Every argument of every tool, sent with each wrong value a model is
    /// likely to send, is refused before anything reaches tmux with one
    /// line that names the argument, what was given and the form expected;
    /// never a panic or a hang.
    #[tokio::test]
    async fn every_argument_refuses_wrong_types_naming_itself() {
        let socket = std::env::temp_dir().join(format!("tmuxwire-none-{}/s", std::process::id()));
        let tmux = Arc::new(Server::new(socket, None, crate::tmux::Caller::default()));
        let servers = Servers::new(tmux, crate::tmux::Caller::default());
        let mut checked = 0;
        for d in defs() {
            let Some(Value::Object(props)) = d.input.get("properties") else {
                continue;
            };
            for (arg, prop) in props {
                for wrong in wrong_values(prop) {
                    let mut args = Map::new();
                    args.insert(arg.clone(), wrong.clone());
                    let r = tokio::time::timeout(
                        std::time::Duration::from_secs(10),
                        call(&servers, d.name, args),
                    )
                    .await
                    .unwrap_or_else(|_| panic!("{} {arg}={wrong}: hung", d.name));
                    let text = r
                        .content
                        .first()
                        .and_then(|c| c.as_text())
                        .map(|t| t.text.clone())
                        .unwrap_or_default();
                    let kind = r.meta.as_ref().and_then(|m| m.0.get("error_type").cloned());
                    let line = text.lines().next().unwrap_or("");
                    assert!(
                        r.is_error == Some(true)
                            && kind == Some(json!("InvalidArgument"))
                            && line.contains(arg.as_str())
                            && line.contains("received"),
                        "{} {arg}={wrong}: {text:?} ({kind:?})",
                        d.name
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }

    /// The forms models send are read as meant: one string for a list of
    /// strings, numbers and flags as strings, a JSON list or object in a
    /// string, an enum name in another case.
    #[test]
    fn arguments_as_models_send_them() {
        let schema = schema_for_type::<follow::WaitForTextArgs>();
        let mut a = Map::new();
        a.insert("patterns".into(), json!("ready"));
        a.insert("timeout".into(), json!("2.5"));
        a.insert("regex".into(), json!("false"));
        args::coerce(&schema, &mut a).expect("read");
        assert_eq!(a["patterns"], json!(["ready"]));
        assert_eq!(a["timeout"], json!(2.5));
        assert_eq!(a["regex"], json!(false));
        let mut a = Map::new();
        a.insert("patterns".into(), json!("[\"a\", \"b\"]"));
        args::coerce(&schema, &mut a).expect("read");
        assert_eq!(a["patterns"], json!(["a", "b"]));
        let e = args::coerce(
            &schema,
            &mut Map::from_iter([("patterns".into(), json!({"a": 1}))]),
        )
        .expect_err("an object is no pattern");
        assert!(e.to_string().contains("patterns must be a list"), "{e}");
    }

    /// `docs/RESULTS.md`'s tool table is [`contract_table`]; with
    /// `TMUXWIRE_WRITE_RESULTS=1` the test writes it instead of failing.
    #[test]
    fn results_doc_is_fresh() {
        const BEGIN: &str = "<!-- tools:begin (generated: TMUXWIRE_WRITE_RESULTS=1 cargo test --lib results_doc) -->\n";
        const END: &str = "<!-- tools:end -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/RESULTS.md");
        let doc = std::fs::read_to_string(path).expect("docs/RESULTS.md");
        let (head, rest) = doc.split_once(BEGIN).expect("the begin marker");
        let (_, tail) = rest.split_once(END).expect("the end marker");
        let fresh = format!("{head}{BEGIN}{}{END}{tail}", contract_table());
        if std::env::var_os("TMUXWIRE_WRITE_RESULTS").is_some() {
            std::fs::write(path, &fresh).expect("write docs/RESULTS.md");
            return;
        }
        assert!(
            fresh == doc,
            "docs/RESULTS.md is stale: run TMUXWIRE_WRITE_RESULTS=1 cargo test --lib results_doc"
        );
    }

    #[test]
    fn hosts_add_list_hosts_and_a_host_argument() {
        let names = vec!["local".to_string(), "dev".to_string()];
        let plain = catalog_for(&Policy::default());
        let with = catalog_for_hosts(&Policy::default(), Some(&names));
        assert_eq!(with.len(), plain.len() + 1);
        assert!(plain.iter().all(|t| t.name != "list_hosts"));
        for t in &with {
            let host = t.input_schema.get("properties").and_then(|p| p.get("host"));
            let fenced = t
                .input_schema
                .get("properties")
                .and_then(|p| p.get("fenced"));
            assert_eq!(
                fenced.is_some(),
                ["search_panes", "capture_pane", "capture_since"].contains(&&*t.name),
                "{}",
                t.name
            );
            if t.name == "list_hosts" {
                assert!(host.is_none());
            } else {
                assert_eq!(
                    host.map(|h| &h["enum"]),
                    Some(&json!(["local", "dev"])),
                    "{}",
                    t.name
                );
            }
        }
    }

    /// The core toolset: the tools an agent needs most (find, read,
    /// type, wait, run, state), and only those.
    #[test]
    fn core_tools() {
        let env = |k: &str| (k == "TMUXWIRE_TOOLSETS").then(|| "core".to_string());
        let core = Policy::from_env(env, is_tool).expect("core");
        let names: Vec<String> = catalog_for(&core)
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(
            names,
            [
                "list_panes",
                "get_pane_state",
                "list_commands",
                "capture_pane",
                "search_panes",
                "wait_for_text",
                "capture_since",
                "send_keys",
                "run_command"
            ]
        );
        // Every description within the 1 KB a model reads of it.
        for t in catalog() {
            assert!(
                t.description.as_ref().is_some_and(|d| d.len() <= 1024),
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn policy_filters_the_catalog() {
        let all = catalog_for(&Policy::all()).len();
        let default = catalog_for(&Policy::default()).len();
        assert_eq!(all, catalog().len());
        assert_eq!(all - default, 6, "teardown is off by default");
    }
}
