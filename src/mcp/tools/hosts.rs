//! `list_hosts`, and how a call names its host: the `host` argument every
//! tool takes once hosts are configured (`--host NAME=DEST`), the `host`
//! field of a remote call's result, and cursors that carry their host.

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Ctx, Def, READ, def, object, parse};
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
    /// `state`: `local`, `idle` (not asked yet), `connecting`,
    /// `connected` or `down`; with `reason` and `error_type` when down.
    #[serde(flatten)]
    pub state: HostState,
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

/// A host's `state` as `list_hosts` reports it, and why it is down: the
/// facts that go with one state only are that state's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum HostState {
    /// This machine.
    Local,
    /// Not asked yet.
    Idle,
    /// Its link is being made.
    Connecting,
    /// Its link is up.
    Connected,
    /// Its link is down.
    Down {
        /// Why it is down.
        reason: String,
        /// The kind of failure when down (as errors' `error_type`).
        error_type: String,
    },
}

/// `list_hosts`' result.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HostList {
    /// This machine (unless `--pin-host`), then each configured host.
    pub result: Vec<HostInfo>,
}

crate::mcp::text::rendered!(List: HostList);

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
            state: HostState::Local,
            tmux_version: None,
            sessions_watched: watched(root).await,
            channels: None,
        });
    }
    for pool in root.hosts() {
        let Some(host) = pool.host() else { continue };
        let state = match host.state() {
            LinkState::Idle => HostState::Idle,
            LinkState::Connecting => HostState::Connecting,
            LinkState::Connected { .. } => HostState::Connected,
            LinkState::Down { reason, failure } => {
                let kind: Error = crate::wire::Error::Ssh {
                    host: host.name().to_string(),
                    failure,
                    message: String::new(),
                }
                .into();
                HostState::Down {
                    reason,
                    error_type: kind.kind().name().to_string(),
                }
            }
        };
        result.push(HostInfo {
            name: host.name().to_string(),
            destination: Some(host.config().dest.clone()),
            state,
            tmux_version: host.last_version(),
            sessions_watched: watched(pool).await,
            channels: Some(host.channels()),
        });
    }
    Ok(object(&HostList { result }))
}

/// The host an untyped row's call names (`list_hosts`, `list_servers`,
/// the read batch), taken out of its arguments; a typed row's arguments
/// carry it ([`host_field`], [`super::ToolArgs::host`]). Every tool's
/// schema has it only when hosts are configured, but it is accepted
/// always: `local` works everywhere. A cursor argument names its host too
/// ([`cursor_host`]).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// for a `host` that is not a string, or a cursor of another host.
pub(super) fn take_host(args: &mut Map<String, Value>) -> Result<Option<String>, Error> {
    let host = host_of(args.remove(HOST_ARG).unwrap_or(Value::Null)).map_err(bad_host)?;
    match args.get_mut("cursor") {
        Some(Value::String(cursor)) => cursor_host(host, Some(cursor)),
        _ => Ok(host),
    }
}

/// What a host must be.
const HOST_EXPECTED: &str = "a host name from list_hosts, or \"local\"";

/// `host` as given: a string, or none (absent, null); else the complaint.
fn host_of(v: Value) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(format!("host must be a string (received {other})")),
    }
}

fn bad_host(why: String) -> Error {
    Error::invalid(HOST_ARG, why, HOST_EXPECTED)
}

/// Reads the `host` field of a typed row's arguments (the [`args!`]
/// macro's, skipped by the schema): a string or null.
///
/// # Errors
///
/// serde's custom error holding the complaint, which [`explain`] turns
/// back into the argument's own error.
///
/// [`args!`]: crate::mcp::targeting::args
pub(crate) fn host_field<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<String>, D::Error> {
    host_of(Value::deserialize(d)?).map_err(serde::de::Error::custom)
}

/// The host a call runs on, given its `host` and its `cursor` (a
/// `capture_since` cursor of a remote host reads `HOST/…`, and names its
/// host): the cursor's host when it names one (the cursor is left
/// without it), which `host` must agree with; a cursor of this machine
/// refuses a remote `host`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// for a cursor of another host.
pub(super) fn cursor_host(
    host: Option<String>,
    cursor: Option<&mut String>,
) -> Result<Option<String>, Error> {
    let Some(cursor) = cursor else {
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
    *cursor = rest;
    Ok(Some(of))
}

/// The pool of servers a call on `host` runs on, from the pool `servers`
/// it was called on: `servers` itself for no host (or its own, when a
/// batch runs on a host), else the host's.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// for an operation of a batch on a host that names another host; as
/// [`Servers::for_host`] for a host that is not configured.
pub(super) fn pool<'a>(servers: &'a Servers, host: Option<&str>) -> Result<&'a Servers, Error> {
    if let (Some(on), Some(asked)) = (servers.host_name(), host)
        && on != asked
    {
        return Err(Error::invalid(
            HOST_ARG,
            format!("this batch runs on host {on}; an operation in it cannot name host {asked}"),
            format!("no host in the operations, or \"{on}\""),
        ));
    }
    servers.for_host(host)
}

/// The argument that lets a call take the mirror's copies as they are.
pub const FENCED_ARG: &str = "fenced";

/// Reads the `fenced` field of a fenced row's arguments (the [`args!`]
/// macro's `@fenced`, skipped by the schema): `fenced: false` takes the
/// mirror's copies as they are, without the round trip that proves them
/// current (on a remote host, one network round trip). A boolean,
/// `"true"`/`"false"`, or null (the default: fenced).
///
/// # Errors
///
/// serde's custom error holding the complaint, which [`explain`] turns
/// back into the argument's own error.
///
/// [`args!`]: crate::mcp::targeting::args
pub(crate) fn fenced_field<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<bool>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(b)),
        Value::String(s) if s == "true" || s == "false" => Ok(Some(s == "true")),
        other => Err(serde::de::Error::custom(format!(
            "fenced must be a boolean (received {other})"
        ))),
    }
}

/// The argument's own error for serde's complaint `msg` about `host` or
/// `fenced` ([`host_field`], [`fenced_field`]); `None` for another.
pub(super) fn explain(msg: &str) -> Option<Error> {
    if msg.starts_with("host must be a string (received ") {
        return Some(bad_host(msg.to_string()));
    }
    msg.starts_with("fenced must be a boolean (received ")
        .then(|| {
            Error::invalid(
                FENCED_ARG,
                msg.to_string(),
                "true (the default: one round trip proves the copy current) or false",
            )
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A host's row keeps its keys in order, `reason` and `error_type`
    /// right after `state` and only when it is down.
    #[test]
    fn host_rows_as_json() {
        let row = |destination: Option<&str>, state| HostInfo {
            name: "h".into(),
            destination: destination.map(Into::into),
            state,
            tmux_version: None,
            sessions_watched: 2,
            channels: destination.map(|_| 3),
        };
        let json = |h: &HostInfo| serde_json::to_string(h).unwrap();
        assert_eq!(
            json(&row(None, HostState::Local)),
            r#"{"name":"h","state":"local","sessions_watched":2}"#
        );
        for (state, word) in [
            (HostState::Idle, "idle"),
            (HostState::Connecting, "connecting"),
            (HostState::Connected, "connected"),
        ] {
            assert_eq!(
                json(&row(Some("d"), state)),
                format!(
                    r#"{{"name":"h","destination":"d","state":"{word}","sessions_watched":2,"channels":3}}"#
                )
            );
        }
        let down = HostState::Down {
            reason: "ssh: no route".into(),
            error_type: "HostUnreachable".into(),
        };
        let mut h = row(Some("d"), down);
        h.tmux_version = Some("3.5a".into());
        assert_eq!(
            json(&h),
            r#"{"name":"h","destination":"d","state":"down","reason":"ssh: no route","error_type":"HostUnreachable","tmux_version":"3.5a","sessions_watched":2,"channels":3}"#
        );
    }
}
