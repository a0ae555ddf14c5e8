//! `list_hosts`, and how a call names its host: the `host` argument every
//! tool takes once hosts are configured (`--host NAME=DEST`), the `host`
//! field of a remote call's result, and cursors that carry their host.

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Ctx, Def, READ, def, object, parse};
use crate::mcp::text::{Rendered, TextShape};
use crate::tmux::{Error, Servers};
use crate::wire::ssh::LinkState;

/// The argument naming the host.
pub const HOST_ARG: &str = "host";

/// `list_hosts`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ListHostsArgs {}

/// One host as `list_hosts` reports it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HostInfo {
    /// The name tools take as `host` (`local`: this machine).
    pub name: String,
    /// The ssh destination (absent for `local`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// `local`, `idle` (not asked yet), `connecting`, `connected` or
    /// `down`.
    pub state: String,
    /// Why it is down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The kind of failure when down (as errors' `error_type`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The host's tmux server version, once probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tmux_version: Option<String>,
    /// Sessions whose panes are mirrored now.
    pub sessions_watched: usize,
    /// ssh channels open on the host's connection now (one per watched
    /// session, one for commands per server).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channels: Option<usize>,
}

/// `list_hosts`' result.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HostList {
    /// This machine (unless `--pin-host`), then each configured host.
    pub result: Vec<HostInfo>,
}

impl Rendered for HostList {
    const TEXT: TextShape = TextShape::List;
}

/// The rows of this module.
pub(super) fn defs() -> Vec<Def> {
    vec![
        def::<ListHostsArgs, HostList>(
            "list_hosts",
            READ,
            "This machine and each configured remote host (--host): state (connected, connecting, down with the reason), tmux version, sessions watched. Pass a name as any tool's host.",
        )
        .calls(|ctx, args| Box::pin(list_hosts(ctx, args))),
    ]
}

/// Sessions watched now by every mirror of `pool`.
async fn watched(pool: &Servers) -> usize {
    let mut n = 0;
    for t in pool.handles() {
        if let Some(m) = t.running_mirror() {
            n += m.watched_sessions().await;
        }
    }
    n
}

async fn list_hosts(ctx: &Ctx<'_>, args: Map<String, Value>) -> Result<CallToolResult, Error> {
    let _: ListHostsArgs = parse(args)?;
    let root = ctx.servers;
    let mut result = Vec::new();
    if !root.is_host_pinned() {
        result.push(HostInfo {
            name: crate::tmux::LOCAL_HOST.into(),
            destination: None,
            state: "local".into(),
            reason: None,
            error_type: None,
            tmux_version: None,
            sessions_watched: watched(root).await,
            channels: None,
        });
    }
    for pool in root.hosts() {
        let Some(host) = pool.host() else { continue };
        let (state, reason, error_type) = match host.state() {
            LinkState::Idle => ("idle", None, None),
            LinkState::Connecting => ("connecting", None, None),
            LinkState::Connected { .. } => ("connected", None, None),
            LinkState::Down { reason, failure } => {
                let kind: Error = crate::wire::Error::Ssh {
                    host: host.name().to_string(),
                    failure,
                    message: String::new(),
                }
                .into();
                ("down", Some(reason), Some(kind.kind().name().to_string()))
            }
        };
        result.push(HostInfo {
            name: host.name().to_string(),
            destination: Some(host.config().dest.clone()),
            state: state.into(),
            reason,
            error_type,
            tmux_version: host.last_version(),
            sessions_watched: watched(pool).await,
            channels: Some(host.channels()),
        });
    }
    Ok(object(&HostList { result }))
}

/// The host a call names, taken out of its arguments (every tool's
/// schema has it only when hosts are configured, but it is accepted
/// always: `local` works everywhere). A `capture_since` cursor of a remote
/// host (`HOST/…`) names its host too, and must agree with `host`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// for a `host` that is not a string, or a cursor of another host.
pub(super) fn take_host(args: &mut Map<String, Value>) -> Result<Option<String>, Error> {
    let host = match args.remove(HOST_ARG) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            return Err(Error::invalid(
                HOST_ARG,
                format!("host must be a string (received {other})"),
                "a host name from list_hosts, or \"local\"",
            ));
        }
    };
    let Some(Value::String(cursor)) = args.get("cursor") else {
        return Ok(host);
    };
    let Some((of, rest)) = cursor.split_once('/') else {
        return match host.as_deref() {
            Some(h) if h != crate::tmux::LOCAL_HOST => Err(Error::invalid(
                "cursor",
                format!("the cursor is from this machine, not from host {h}"),
                "a cursor returned by capture_since on the same host",
            )),
            _ => Ok(host),
        };
    };
    let (of, rest) = (of.to_string(), rest.to_string());
    if let Some(h) = &host
        && *h != of
    {
        return Err(Error::invalid(
            "cursor",
            format!("the cursor is from host {of}, not {h}"),
            "a cursor returned by capture_since on the same host",
        ));
    }
    args.insert("cursor".into(), Value::String(rest));
    Ok(Some(of))
}

/// The argument that lets a call take the mirror's copies as they are.
pub const FENCED_ARG: &str = "fenced";

/// Whether the call wants its answer fenced (the default): `fenced:
/// false` takes the mirror's copies as they are, without the round trip
/// that proves them current (on a remote host, one network round trip).
/// Taken out of the arguments of the tools whose rows are marked fenced
/// (`takes`) only; elsewhere it is an unknown argument as before.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// for a value that is not a boolean.
pub(super) fn take_fenced(takes: bool, args: &mut Map<String, Value>) -> Result<bool, Error> {
    if !takes {
        return Ok(true);
    }
    match args.remove(FENCED_ARG) {
        None | Some(Value::Null) => Ok(true),
        Some(Value::Bool(b)) => Ok(b),
        Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
        Some(other) => Err(Error::invalid(
            FENCED_ARG,
            format!("fenced must be a boolean (received {other})"),
            "true (the default: one round trip proves the copy current) or false",
        )),
    }
}

/// Takes boolean argument `name` out of `args`: `None` when absent or
/// null.
///
/// # Errors
///
/// [`crate::tmux::ErrorKind::InvalidArgument`] for a value that is not a
/// boolean (or `"true"`/`"false"`).
pub(super) fn take_flag(
    name: &'static str,
    args: &mut Map<String, Value>,
) -> Result<Option<bool>, Error> {
    match args.shift_remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
        Some(other) => Err(Error::invalid(
            name,
            format!("{name} must be true or false (received {other})"),
            "true or false",
        )),
    }
}

/// Marks a remote call's result: `host` in its structured content, and
/// its `cursor` as `HOST/cursor`, so the next call finds the host again.
pub(super) fn mark_host(r: &mut CallToolResult, host: &str) {
    if r.is_error == Some(true) {
        return;
    }
    let Some(Value::Object(o)) = r.structured_content.as_mut() else {
        return;
    };
    if let Some(Value::String(c)) = o.get_mut("cursor") {
        *c = format!("{host}/{c}");
    }
    o.entry(HOST_ARG).or_insert_with(|| json!(host));
}

/// Marks a result answered from copies taken as they are (`fenced:
/// false`).
pub(super) fn mark_unfenced(r: &mut CallToolResult, fenced: bool) {
    if fenced || r.is_error == Some(true) {
        return;
    }
    if let Some(Value::Object(o)) = r.structured_content.as_mut() {
        o.insert(FENCED_ARG.into(), json!(false));
    }
}

/// Adds the `host` argument to a tool's input schema (only when hosts are
/// configured, so the default `tools/list` stays libtmux-mcp's), and
/// `fenced` to a tool that answers from the pane mirror (`fenced`).
pub fn add_host_arg(fenced: bool, schema: &mut rmcp::model::JsonObject, names: &[String]) {
    let props = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(props) = props else {
        return;
    };
    props.insert(
        HOST_ARG.into(),
        json!({"type": "string", "enum": names, "description": "Host (list_hosts)."}),
    );
    if fenced {
        props.insert(
            FENCED_ARG.into(),
            json!({"type": "boolean", "description": "false: tmuxwire's copy as it is, without the round trip that proves it current (default true)."}),
        );
    }
}
