//! One tool's row: its definition ([`Def`]), hints, schemas as
//! `tools/list` sends them, and how a typed row runs its request
//! ([`row`], [`row_as`], [`reporting`]: arguments read and checked into
//! the request, the server they name, [`op::run`]).

use super::*;
use crate::mcp::args::ToolCall;
use crate::mcp::schema;
use crate::mcp::text::{Rendered, Text};
use crate::mcp::toolsets::Toolset;
use crate::tmux::op::{self, Op};
use crate::tmux::{Error, Server};
use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::model::{CallToolResult, JsonObject, MetaObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Arguments every tool shares, explained once in the instructions
/// ([`crate::mcp::INSTRUCTIONS`]) rather than in every input schema.
pub(super) const TARGETING: &[&str] = &[
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
pub(super) struct Hints {
    pub(super) read_only: bool,
    pub(super) destructive: bool,
    pub(super) idempotent: bool,
    pub(super) open_world: bool,
}

/// Reads only.
pub(super) const READ: Hints = Hints {
    read_only: true,
    idempotent: true,
    ..ADDITIVE
};
/// Changes something; the same call again changes nothing more.
pub(super) const IDEMPOTENT: Hints = Hints {
    idempotent: true,
    ..ADDITIVE
};
/// Creates or moves something; again makes another. No hint is set: each
/// other preset is this one with the hints it names.
pub(super) const ADDITIVE: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: false,
};
/// Reaches programs in panes (input, output to files).
pub(super) const OPEN: Hints = Hints {
    open_world: true,
    ..ADDITIVE
};
/// Destroys something.
pub(super) const DESTRUCTIVE: Hints = Hints {
    destructive: true,
    ..ADDITIVE
};

/// One tool's definition.
pub(super) struct Def {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) input: JsonObject,
    /// The result type's output schema ([`schema::output`]).
    pub(super) output: fn() -> JsonObject,
    /// `tools/list` sends [`Def::output`] ([`Def::mark_output_schema`]).
    pub(super) sends_output: bool,
    pub(super) hints: Hints,
    /// How the text blocks of a result are made (the result type's
    /// [`Rendered`] constants).
    pub(super) text: Text,
    /// The toolset that offers it.
    pub(super) toolset: Toolset,
    /// How a call runs: a typed row's request and operation
    /// ([`typed`]), or a call that needs the call's context ([`Def::calls`]);
    /// `None` for the tools still run by their toolset's `run`.
    pub(super) call: Option<CallFn>,
    /// It bounds its own waiting (libtmux-mcp's `self-bounded` tag), so a
    /// batch refuses it.
    pub(super) self_bounded: bool,
    /// It is sent with `_meta["anthropic/alwaysLoad"]: true`, which asks a
    /// client to load it up front (libtmux-mcp marks three tools so).
    pub(super) always_load: bool,
    /// It answers from the pane mirror and takes `fenced`
    /// ([`hosts::fenced_field`]).
    pub(super) fenced: bool,
    /// Its typed arguments carry `host` (and `fenced`): its call finds
    /// the host itself ([`Route`]). The others (`list_hosts`,
    /// `list_servers`, the read batch) have it taken out of their
    /// arguments first ([`hosts::take_host`]).
    pub(super) hosted: bool,
    /// It can answer much text and takes `max_bytes`, the call's own
    /// response budget ([`Budget::for_call`]).
    pub(super) sized: bool,
    /// It reports diagnostics (a delivery's evidence) only off the happy
    /// path unless the call says `verbose: true`.
    pub(super) verbose: bool,
    /// It is one of the core tools (`TMUXWIRE_TOOLSETS=core`,
    /// [`crate::mcp::toolsets::CORE`]).
    pub(super) core: bool,
}

impl Def {
    /// The row, run by `call` (for tools that need the call's context:
    /// the pool of servers, the policy); the tmux work still goes through
    /// [`op::run`].
    pub(super) fn calls(mut self, call: CallFn) -> Def {
        self.call = Some(call);
        self
    }
}

/// `fn $mark(self) -> Def`: the row with the flag `$field` set, for each
/// `$mark => $field;` (with its docs).
macro_rules! marks {
    ($($(#[$doc:meta])* $mark:ident => $field:ident;)*) => {
        impl Def {
            $($(#[$doc])*
            pub(super) fn $mark(mut self) -> Def {
                self.$field = true;
                self
            })*
        }
    };
}

marks! {
    /// The row, marked as bounding its own waiting.
    mark_self_bounded => self_bounded;
    /// The row, marked to be loaded up front.
    mark_always_load => always_load;
    /// The row, marked as answering from the pane mirror (it takes
    /// `fenced`).
    mark_fenced => fenced;
    /// The row, marked as answering much text (it takes `max_bytes`).
    mark_sized => sized;
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
    mark_output_schema => sends_output;
    /// The row, marked as one of the core tools.
    mark_core => core;
    /// The row, marked as keeping diagnostics for `verbose: true`.
    mark_verbose => verbose;
}

/// A call's future: a boxed future per tool keeps one dispatch future
/// from holding every tool's state inline.
pub(super) type CallFuture<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResult, Error>> + Send + 'a>>;

/// How a typed row runs a call.
pub(super) type CallFn = for<'a> fn(&'a Ctx<'a>, Map<String, Value>) -> CallFuture<'a>;

/// A tool's arguments as the table runs them: the server they name and
/// the typed request they make. Checking happens here, so a bad call is
/// refused before anything reaches tmux.
pub(super) trait ToolArgs:
    DeserializeOwned + JsonSchema + ToolCall + Send + 'static
{
    /// The operation's request.
    type Request: Op;

    /// `(socket_name, socket_path)`: the server named (`-L`, `-S`).
    fn socket(&self) -> (Option<&str>, Option<&str>);

    /// `host` as the call gave it (the field [`args!`] writes), taken.
    ///
    /// [`args!`]: crate::mcp::targeting::args
    fn take_host(&mut self) -> Option<String>;

    /// The cursor the call gave, which names its host when it is a
    /// remote host's (`capture_since`, [`hosts::cursor_host`]).
    fn cursor(&mut self) -> Option<&mut String> {
        None
    }

    /// Whether the call wants the mirror's copies proven current (the
    /// default), not taken as they are (`fenced: false`, for the rows
    /// marked fenced).
    fn fenced(&self) -> bool {
        true
    }

    /// The request, checked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming the argument.
    fn into_request(self) -> Result<Self::Request, Error>;
}

/// `impl ToolArgs` for argument structs written by [`args!`]
/// (`socket_name`, `socket_path` and `host` fields):
/// `tool_args!(ListPanesArgs => ListPanesRequest, |a| ...)`, with the
/// trait's other methods after a `;` where a row needs them
/// ([`ToolArgs::cursor`], [`ToolArgs::fenced`]).
///
/// [`args!`]: crate::mcp::targeting::args
macro_rules! tool_args {
    ($args:ty => $req:ty, |$a:ident| $body:expr $(; $($more:item)*)?) => {
        impl $crate::mcp::tools::ToolArgs for $args {
            type Request = $req;

            fn socket(&self) -> (Option<&str>, Option<&str>) {
                (self.socket_name.as_deref(), self.socket_path.as_deref())
            }

            fn take_host(&mut self) -> Option<String> {
                self.host.take()
            }

            fn into_request(self) -> Result<$req, $crate::tmux::Error> {
                let $a = self;
                $body
            }

            $($($more)*)?
        }
    };
}
pub(crate) use tool_args;

/// Where a call runs: the pool of servers of the host it names
/// ([`hosts::pool`]), and whether it takes the mirror's copies as they
/// are.
pub(super) struct Route<'a> {
    pub(super) pool: &'a Servers,
    pub(super) fenced: bool,
}

impl<'a> Route<'a> {
    /// The route of a call on `host` (from the pool `ctx` runs on; a
    /// `cursor` that names its host too, [`hosts::cursor_host`]), `fenced`
    /// or not.
    ///
    /// # Errors
    ///
    /// As [`hosts::cursor_host`] and [`hosts::pool`].
    pub(super) fn of(
        ctx: &Ctx<'a>,
        host: Option<String>,
        cursor: Option<&mut String>,
        fenced: bool,
    ) -> Result<Route<'a>, Error> {
        let host = hosts::cursor_host(host, cursor)?;
        Ok(Route {
            pool: hosts::pool(ctx.servers, host.as_deref())?,
            fenced,
        })
    }

    /// `r` marked as answered there: `fenced: false` when taken as they
    /// are ([`hosts::mark_unfenced`]), a remote host's name
    /// ([`hosts::mark_host`]).
    pub(super) fn mark(&self, mut r: CallToolResult) -> CallToolResult {
        hosts::mark_unfenced(&mut r, self.fenced);
        if let Some(host) = self.pool.host_name() {
            hosts::mark_host(&mut r, host);
        }
        r
    }
}

/// A typed call read: its arguments parsed and checked into the request,
/// the server they name (on the host they name) and the route, whose
/// [`Route::mark`] the answer takes.
///
/// # Errors
///
/// As [`parse`], [`Route::of`], the server lookup and
/// [`ToolArgs::into_request`].
pub(super) fn routed<'a, A: ToolArgs>(
    ctx: &Ctx<'a>,
    args: Map<String, Value>,
) -> Result<(Arc<Server>, A::Request, Route<'a>), Error> {
    let mut a: A = parse(args)?;
    let (host, fenced) = (a.take_host(), a.fenced());
    let route = Route::of(ctx, host, a.cursor(), fenced)?;
    let (name, path) = a.socket();
    let server = route.pool.get_socket(name, path)?;
    Ok((server, a.into_request()?.redacting(ctx.redact), route))
}

/// A response a typed row sends as it is: structured content with a
/// schema and a text shape ([`row`]; a response shown as another type,
/// an action's [`Sentence`], needs none of these: [`row_as`]).
pub(super) trait Shown: Serialize + JsonSchema + Rendered + 'static {}

impl<T: Serialize + JsonSchema + Rendered + 'static> Shown for T {}

/// Runs a typed row: arguments parsed and checked into the request, the
/// server they name ([`routed`]), the operation ([`op::run`], which cuts
/// the answer to the response budget), the response as structured
/// content.
pub(super) async fn typed<A: ToolArgs>(
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error>
where
    <A::Request as Op>::Response: Shown,
{
    let (server, request, route) = routed::<A>(ctx, args)?;
    Ok(route.mark(object(&op::run(&server, request, ctx.limit()).await?)))
}

/// A request that reports its progress to the MCP client.
pub(super) trait Reports: Op {
    /// The request, reporting to `progress`.
    fn reporting_to(self, progress: Option<crate::mirror::Progress>) -> Self;
}

/// Runs a row of a request that reports progress: as a typed row
/// ([`row`]), with the call's progress sink.
pub(super) async fn call_reporting<A: ToolArgs>(
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error>
where
    A::Request: Reports,
    <A::Request as Op>::Response: Shown,
{
    let (server, request, route) = routed::<A>(ctx, args)?;
    let request = request.reporting_to(ctx.progress.clone());
    Ok(route.mark(object(&op::run(&server, request, ctx.limit()).await?)))
}

/// A typed row whose request reports progress ([`call_reporting`]).
pub(super) fn reporting<A: ToolArgs>(
    name: &'static str,
    hints: Hints,
    description: &'static str,
) -> Def
where
    A::Request: Reports,
    <A::Request as Op>::Response: Shown,
{
    let mut d = row::<A>(name, hints, description);
    d.call = Some(|ctx, args| Box::pin(call_reporting::<A>(ctx, args)));
    d
}

/// A typed row: the tool's name, hints and description (MCP's `title`
/// is not sent: it only restated the name), its
/// argument type `A` (whose request and response give the schemas, the
/// text shape and the call).
pub(super) fn row<A: ToolArgs>(name: &'static str, hints: Hints, description: &'static str) -> Def
where
    <A::Request as Op>::Response: Shown,
{
    let mut d = def::<A, <A::Request as Op>::Response>(name, hints, description);
    d.call = Some(|ctx, args| Box::pin(typed::<A>(ctx, args)));
    d.hosted = true;
    d
}

/// A typed row whose answer is shown as `R`, made from the operation's
/// response: an action's sentence (`{"result": "Keys sent to pane %3",
/// "pane_id": "%3"}`) as libtmux-mcp reports it. `R` gives the schema and
/// the text shape.
pub(super) fn row_as<A: ToolArgs, R>(
    name: &'static str,
    hints: Hints,
    description: &'static str,
) -> Def
where
    R: Serialize + JsonSchema + Rendered + From<<A::Request as Op>::Response> + 'static,
{
    let mut d = def::<A, R>(name, hints, description);
    d.call = Some(|ctx, args| Box::pin(typed_as::<A, R>(ctx, args)));
    d.hosted = true;
    d
}

/// Runs a [`row_as`] row: as [`typed`], the response shown as `R`.
pub(super) async fn typed_as<A: ToolArgs, R>(
    ctx: &Ctx<'_>,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error>
where
    R: Serialize + From<<A::Request as Op>::Response>,
{
    let (server, request, route) = routed::<A>(ctx, args)?;
    let response = op::run(&server, request, ctx.limit()).await?;
    Ok(route.mark(object(&R::from(response))))
}

/// A row's definition: tool `name` (its argument type's
/// [`ToolCall::NAME`], which tests call it by), taking `A`, answering `R`.
pub(super) fn def<A: ToolCall + JsonSchema + 'static, R: JsonSchema + Rendered + 'static>(
    name: &'static str,
    hints: Hints,
    description: &'static str,
) -> Def {
    debug_assert_eq!(name, A::NAME, "the row's name is its arguments' tool name");
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
        hosted: false,
        sized: false,
        verbose: false,
        core: false,
    }
}

/// The argument that sets a call's own response budget.
pub(super) const MAX_BYTES_ARG: &str = "max_bytes";
/// The argument that asks for diagnostics on the happy path too.
pub(super) const VERBOSE_ARG: &str = "verbose";

/// Arguments every tool takes (but `list_servers`, `list_hosts` and the
/// read batch, whose operations name their own) that its listed schema
/// leaves out: the server instructions say them once
/// ([`crate::mcp::INSTRUCTIONS`], TARGETING), and a call that sends them is
/// read as before.
pub(super) const UNLISTED: &[&str] = &["socket_name", "socket_path"];

/// The targets a pane tool takes besides `pane_id` (that window's or
/// session's active pane), which its listed schema leaves to the
/// instructions; a tool that takes `window_index` too (`split_window`,
/// `select_pane`) acts on a window as well and lists them all.
pub(super) const PANE_FALLBACKS: &[&str] = &["session_name", "session_id", "window_id"];

/// A tool's input schema as `tools/list` sends it: the row's schema
/// without [`UNLISTED`] arguments, a pane tool's [`PANE_FALLBACKS`] and
/// `additionalProperties` (every tool refuses an argument it does not
/// take, naming the ones it does: a schema that says so too would make
/// strict clients refuse the unlisted ones), with `max_bytes` and
/// `verbose` for the rows that take them (explained once, in the
/// instructions).
pub(super) fn listed_input(d: &Def) -> JsonObject {
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
pub(super) fn unlist_pane_fallbacks(o: &mut JsonObject) {
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
pub(super) fn drop_additional_properties(o: &mut JsonObject) {
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

pub(super) fn tool(d: &Def) -> Tool {
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
