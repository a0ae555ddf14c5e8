//! The six `tmux://` resource templates of libtmux-mcp, and completion of
//! their parameters.
//!
//! # Format
//!
//! ```text
//! tmux://sessions{?socket_name}                                 [SessionInfo]
//! tmux://sessions/{session_name}{?socket_name}                  SessionInfo + "windows"
//! tmux://sessions/{session_name}/windows{?socket_name}          [WindowInfo]
//! tmux://sessions/{session_name}/windows/{window_index}{?socket_name}
//!                                                               WindowInfo + "panes"
//! tmux://panes/{pane_id}{?socket_name}                          PaneInfo
//! tmux://panes/{pane_id}/content{?socket_name}                  the visible screen (text)
//! ```
//!
//! Parameters are percent-decoded (`%252` and `%2` both name pane `%2`: a
//! `%` not followed by two hex digits is itself). Session names are
//! matched exactly. A socket name with `/`, `..` or NUL is refused. A
//! missing object is the JSON-RPC error `-32603` (`Session not found:
//! NAME`), an address that is none of these `-32002`. Resources are read
//! through the same tools as `tools/call` and are offered whatever the
//! toolset choice (they only read).

use rmcp::ErrorData as McpError;
use rmcp::model::{ReadResourceResult, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value, json};

use super::tools;
use crate::tmux::{Error, ErrorKind, Servers, Subject};

/// The templates, in listing order: (URI template, name, title, MIME type).
pub const TEMPLATES: &[(&str, &str, &str, &str)] = &[
    (
        "tmux://sessions{?socket_name}",
        "sessions",
        "tmux sessions",
        "application/json",
    ),
    (
        "tmux://sessions/{session_name}{?socket_name}",
        "session",
        "A tmux session and its windows",
        "application/json",
    ),
    (
        "tmux://sessions/{session_name}/windows{?socket_name}",
        "session_windows",
        "A session's windows",
        "application/json",
    ),
    (
        "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}",
        "window",
        "A tmux window and its panes",
        "application/json",
    ),
    (
        "tmux://panes/{pane_id}{?socket_name}",
        "pane",
        "A tmux pane",
        "application/json",
    ),
    (
        "tmux://panes/{pane_id}/content{?socket_name}",
        "pane_content",
        "A pane's visible text",
        "text/plain",
    ),
];

/// The templates as MCP `ResourceTemplate`s.
pub fn templates() -> Vec<ResourceTemplate> {
    TEMPLATES
        .iter()
        .map(|(uri, name, title, mime)| {
            ResourceTemplate::new(*uri, *name)
                .with_title(*title)
                .with_mime_type(*mime)
        })
        .collect()
}

/// What an address names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Address {
    /// Every session.
    Sessions,
    /// One session, with its windows.
    Session(String),
    /// A session's windows.
    Windows(String),
    /// One window (session and index), with its panes.
    Window(String, u32),
    /// One pane.
    Pane(String),
    /// A pane's visible text.
    Content(String),
}

/// A parsed `tmux://` address: what it names and the socket it names it on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// What.
    pub address: Address,
    /// `?socket_name=`.
    pub socket_name: Option<String>,
}

/// `%XX` decoded; a `%` not followed by two hex digits stays a `%`.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Why an address cannot be read: not one of ours (`-32002`), or a bad
/// parameter (`-32602`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressError {
    /// No template matches.
    Unknown(String),
    /// A parameter that cannot be used.
    Invalid(String),
}

/// Parses a `tmux://` address.
///
/// # Errors
///
/// [`AddressError`].
pub fn parse(uri: &str) -> Result<Parsed, AddressError> {
    let unknown = || AddressError::Unknown(format!("Unknown resource: {uri}"));
    let rest = uri.strip_prefix("tmux://").ok_or_else(unknown)?;
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    let mut socket_name = None;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if k == "socket_name" && !v.is_empty() {
            let v = percent_decode(v);
            if v.contains('/') || v.contains('\0') || v == ".." || v == "." {
                return Err(AddressError::Invalid(format!(
                    "socket_name must be a socket name, not a path: {v:?}"
                )));
            }
            socket_name = Some(v);
        }
    }
    let segs: Vec<String> = path.split('/').map(percent_decode).collect();
    if segs.iter().any(|s| s.contains('\0')) {
        return Err(AddressError::Invalid("NUL in a resource address".into()));
    }
    let seg: Vec<&str> = segs.iter().map(String::as_str).collect();
    let address = match seg.as_slice() {
        ["sessions"] => Address::Sessions,
        ["sessions", s] if !s.is_empty() => Address::Session(s.to_string()),
        ["sessions", s, "windows"] if !s.is_empty() => Address::Windows(s.to_string()),
        ["sessions", s, "windows", i] if !s.is_empty() => {
            let i = i.parse().map_err(|_| {
                AddressError::Invalid(format!("window_index must be a number, not {i:?}"))
            })?;
            Address::Window(s.to_string(), i)
        }
        ["panes", p] if !p.is_empty() => Address::Pane(p.to_string()),
        ["panes", p, "content"] if !p.is_empty() => Address::Content(p.to_string()),
        _ => return Err(unknown()),
    };
    Ok(Parsed {
        address,
        socket_name,
    })
}

fn with_socket(mut args: Map<String, Value>, socket: &Option<String>) -> Map<String, Value> {
    if let Some(s) = socket {
        args.insert("socket_name".into(), json!(s));
    }
    args
}

/// `sel` naming the object `read` is by its id (`field`, `session_id` or
/// `window_id`) instead, when `read` has one; the socket is kept.
fn by_id(sel: Map<String, Value>, read: &Value, field: &str) -> Map<String, Value> {
    let Some(id) = read[field].as_str() else {
        return sel;
    };
    let mut m: Map<String, Value> = sel
        .into_iter()
        .filter(|(k, _)| k == "socket_name")
        .collect();
    m.insert(field.to_string(), json!(id));
    m
}

/// What a failed read of `address` says (`-32603`): the session, window or
/// pane it names when tmux could not find that object (told by the
/// error's kind and subject, never its text), otherwise the error itself.
fn read_error(e: &Error, address: &Address) -> McpError {
    let missing = if e.is(ErrorKind::NotFound) {
        match (e.subject(), address) {
            (
                Some(Subject::Session(_)),
                Address::Session(n) | Address::Windows(n) | Address::Window(n, _),
            ) => Some(format!("Session not found: {n}")),
            (Some(Subject::Window(_)), Address::Window(_, i)) => {
                Some(format!("Window not found: index {i}"))
            }
            (Some(Subject::Pane(_)), Address::Pane(id) | Address::Content(id)) => {
                Some(format!("Pane not found: {id}"))
            }
            _ => None,
        }
    } else {
        None
    };
    let what = missing.unwrap_or_else(|| e.to_string());
    McpError::internal_error(format!("Internal error: {what}"), None)
}

/// Reads an address; with `redact`, secrets in what is read are masked
/// ([`super::redaction`]), before JSON is written.
///
/// # Errors
///
/// `-32002` for an unknown address, `-32602` for a bad parameter,
/// `-32603` for a missing object or a failed read.
pub async fn read(
    servers: &Servers,
    uri: &str,
    redact: bool,
) -> Result<ReadResourceResult, McpError> {
    let p = parse(uri).map_err(|e| match e {
        AddressError::Unknown(m) => McpError::resource_not_found(m, None),
        AddressError::Invalid(m) => McpError::invalid_params(m, None),
    })?;
    let sock = &p.socket_name;
    let failed = |e: Error| read_error(&e, &p.address);
    let args = |pairs: &[(&str, Value)]| {
        let m: Map<String, Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        with_socket(m, sock)
    };
    let call = |tool: &'static str, a: Map<String, Value>| async move {
        let mut v = tools::call_typed(servers, tool, a, redact).await?;
        if redact {
            crate::redact::redact_value(&mut v);
        }
        Ok::<Value, Error>(v)
    };
    // An object read by `tool`, with its children listed by `list` under
    // `key`, by the object's own id (`id`): a child renamed, moved or
    // renumbered meanwhile is still one of the object read.
    let with_children = |tool, sel: Map<String, Value>, list, id: &'static str, key| {
        let call = &call;
        async move {
            let mut v = call(tool, sel.clone()).await?;
            let children = call(list, by_id(sel, &v, id)).await?;
            v[key] = children["result"].clone();
            Ok::<Value, Error>(v)
        }
    };
    let listed = |v: Value| v["result"].clone();
    let read = match &p.address {
        Address::Sessions => call("list_sessions", args(&[])).await.map(listed),
        Address::Session(name) => {
            let sel = args(&[("session_name", json!(name))]);
            let list = "list_windows";
            with_children("get_session_info", sel, list, "session_id", "windows").await
        }
        Address::Windows(name) => {
            let sel = args(&[("session_name", json!(name))]);
            call("list_windows", sel).await.map(listed)
        }
        Address::Window(name, index) => {
            let sel = args(&[
                ("session_name", json!(name)),
                ("window_index", json!(index)),
            ]);
            with_children("get_window_info", sel, "list_panes", "window_id", "panes").await
        }
        Address::Pane(id) => call("get_pane_info", args(&[("pane_id", json!(id))])).await,
        Address::Content(id) => {
            let sel = args(&[("pane_id", json!(id)), ("max_lines", Value::Null)]);
            call("capture_pane", sel).await
        }
    };
    let v = read.map_err(failed)?;
    let (text, mime) = match &p.address {
        Address::Content(_) => (v["result"].as_str().unwrap_or("").to_string(), "text/plain"),
        _ => (
            serde_json::to_string_pretty(&v).unwrap_or_default(),
            "application/json",
        ),
    };
    let contents = ResourceContents::text(text, uri).with_mime_type(mime);
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Completion values for a parameter of a template or prompt: session
/// names, pane ids or window indexes of the live server that start with
/// `prefix` (at most 100); none when the server does not answer.
/// `context_session` narrows window indexes to one session.
pub async fn complete(
    servers: &Servers,
    argument: &str,
    prefix: &str,
    context_session: Option<&str>,
    socket_name: Option<&str>,
) -> Vec<String> {
    let sock = socket_name.map(str::to_string);
    let (tool, args, field) = match argument {
        "session_name" => (
            "list_sessions",
            with_socket(Map::new(), &sock),
            "session_name",
        ),
        "pane_id" => ("list_panes", with_socket(Map::new(), &sock), "pane_id"),
        "window_index" => {
            let mut m = Map::new();
            if let Some(s) = context_session {
                m.insert("session_name".into(), json!(s));
            }
            ("list_windows", with_socket(m, &sock), "window_index")
        }
        _ => return Vec::new(),
    };
    let Ok(v) = tools::call_typed(servers, tool, args, false).await else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for item in v["result"].as_array().into_iter().flatten() {
        if let Some(s) = item[field].as_str()
            && s.starts_with(prefix)
            && !out.iter().any(|o| o == s)
        {
            out.push(s.to_string());
        }
    }
    out.truncate(100);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(uri: &str) -> Address {
        parse(uri).unwrap().address
    }

    #[test]
    fn addresses() {
        assert_eq!(addr("tmux://sessions"), Address::Sessions);
        assert_eq!(addr("tmux://sessions/a:1"), Address::Session("a:1".into()));
        assert_eq!(
            addr("tmux://sessions/my%20work/windows"),
            Address::Windows("my work".into())
        );
        assert_eq!(
            addr("tmux://sessions/w/windows/2"),
            Address::Window("w".into(), 2)
        );
        assert_eq!(addr("tmux://panes/%252"), Address::Pane("%2".into()));
        assert_eq!(addr("tmux://panes/%2"), Address::Pane("%2".into()));
        assert_eq!(
            addr("tmux://panes/%2/content"),
            Address::Content("%2".into())
        );
        let p = parse("tmux://sessions?socket_name=work").unwrap();
        assert_eq!(p.socket_name.as_deref(), Some("work"));
        for (bad, refused) in [
            ("tmux://nope", "unknown"),
            ("http://sessions", "unknown"),
            ("tmux://sessions/", "unknown"),
            ("tmux://panes", "unknown"),
            ("tmux://sessions?socket_name=..", "invalid"),
            ("tmux://sessions?socket_name=a%2Fb", "invalid"),
            ("tmux://sessions/x/windows/one", "invalid"),
            ("tmux://sessions/a%00b", "invalid"),
        ] {
            let got = match parse(bad) {
                Err(AddressError::Unknown(_)) => "unknown",
                Err(AddressError::Invalid(_)) => "invalid",
                Ok(_) => "parsed",
            };
            assert_eq!(got, refused, "{bad}");
        }
        assert_eq!(templates().len(), 6);
    }
}
