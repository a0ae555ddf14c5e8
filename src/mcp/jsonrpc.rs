//! JSON-RPC 2.0 input checks in front of rmcp: every line read on stdin is
//! framed, checked and classified here before rmcp sees it. Pure: no I/O
//! (the stdio transport in [`super::stdio`] reads and writes).
//!
//! rmcp drops input it cannot parse without a word, and routes a request
//! whose params do not fit its method to "method not found"; a client then
//! waits for an answer that never comes. This layer answers those lines
//! itself, so that every line gets an answer or is a notification.
//!
//! # What a line becomes
//!
//! | line | answer |
//! | --- | --- |
//! | blank (only whitespace) | none: skipped |
//! | longer than the line limit ([`MAX_LINE_BYTES`]) | `-32600`, discarded as it streams |
//! | nested deeper than [`MAX_DEPTH`] | `-32600` |
//! | invalid UTF-8 | decoded: each bad sequence becomes U+FFFD |
//! | a lone surrogate escape (`"\udc80"`) | decoded as U+FFFD |
//! | not JSON | `-32700`, `id: null` |
//! | a batch (array) | an array with one `-32600` per element that is not a notification; `[]`: one `-32600` |
//! | not an object, `id` not a string or integer, `jsonrpc` not `"2.0"`, no `method` | `-32600` |
//! | a request whose params do not fit its method | `-32602`, the reason in `message` and `data.reason` |
//! | a notification (`method`, no `id`) rmcp cannot read | none |
//! | a response rmcp cannot read | none |
//! | anything else | rmcp's (unknown methods: `-32601`) |
//!
//! The two limits are answered with the request's `id` when the line's
//! top-level object has one that is a string or an integer (found by a
//! streaming scan, so even a discarded line is answered with its `id`),
//! else with `id: null`; a line over a limit whose top-level object has a
//! `method` and no `id` is a notification and gets no answer.

use super::framing::Shape;
pub use super::framing::{Framer, Line};

use std::borrow::Cow;

// Deprecated request types (logging, legacy subscriptions) are listed too:
// rmcp still reads them into types, so their params are still checked.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequest, CancelTaskRequest, ClientJsonRpcMessage, ClientRequest, CompleteRequest,
    ConstString, DiscoverRequest, GetPromptRequest, GetSkillRequest, GetTaskRequest,
    InitializeRequest, JsonRpcMessage, ListPromptsRequest, ListResourceTemplatesRequest,
    ListResourcesRequest, ListSkillsRequest, ListToolsRequest, PingRequest,
    ReadResourceDirectoryRequest, ReadResourceRequest, Request, RequestId, RequestNoParam,
    RequestOptionalParam, SetLevelRequest, SubscribeRequest, SubscriptionsListenRequest,
    UnsubscribeRequest, UpdateTaskRequest,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Longest line read, in bytes, not counting its newline: 16 MiB. A longer
/// line is discarded as it streams (never buffered) and answered with
/// [`INVALID_REQUEST`].
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Deepest nesting of arrays and objects in a line, the message itself
/// counting as 1 (`{"params": {"arguments": {}}}` is 3 deep). A deeper
/// line is answered with [`INVALID_REQUEST`]. It stays below serde_json's
/// own recursion limit (127), so every line within it is parsed.
pub const MAX_DEPTH: usize = 64;

/// JSON-RPC "Parse error": the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "Invalid Request": JSON, but not a usable JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC "Invalid params": the params do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;

/// Why batches are refused, in each error's `data.reason`.
const NO_BATCHES: &str = "JSON-RPC batches are not supported (MCP 2025-06-18 removed them); \
                          send each message on its own line";

/// What to do with one line.
#[derive(Debug)]
pub enum Verdict {
    /// A message for rmcp.
    Forward(Box<ClientJsonRpcMessage>),
    /// An answer to write back as one line: a JSON-RPC error object, or an
    /// array of them for a batch.
    Answer(Value),
    /// Nothing to send (a blank line, a notification or a response rmcp
    /// cannot read); the text says why, for the debug log.
    Ignore(Cow<'static, str>),
}

/// Decides what a line becomes (see the module's table).
pub fn classify(line: Line) -> Verdict {
    let Some(text) = &line.text else {
        let why = format!(
            "the line is {} bytes long; the limit is {} bytes",
            line.len, line.max
        );
        return over_limit(&line.shape, why);
    };
    let text = trim(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore("blank line".into());
    }
    if line.shape.max_depth > MAX_DEPTH {
        let why = format!(
            "the message is nested {} levels deep; the limit is {MAX_DEPTH}",
            line.shape.max_depth
        );
        return over_limit(&line.shape, why);
    }
    let text = decode(text);
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => classify_value(v),
        Err(e) => Verdict::Answer(error(
            &Value::Null,
            PARSE_ERROR,
            "Parse error",
            &e.to_string(),
        )),
    }
}

/// A JSON-RPC error response: `{"jsonrpc": "2.0", "id": id, "error":
/// {"code", "message", "data": {"reason"}}}`; `id` is `null` when the
/// request's id is unknown. The message is `message: reason`.
pub fn error(id: &Value, code: i64, message: &str, reason: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": code,
            "message": format!("{message}: {reason}"),
            "data": {"reason": reason},
        },
    })
}

/// Decodes a line's bytes as UTF-8 text for serde_json: each invalid
/// sequence becomes U+FFFD, and so does each lone surrogate escape (see
/// [`replace_lone_surrogates`]).
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let text = String::from_utf8_lossy(bytes);
    match replace_lone_surrogates(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(fixed) => Cow::Owned(fixed),
    }
}

/// Rewrites each `\uXXXX` escape inside a JSON string that is a lone UTF-16
/// surrogate (a high one not followed by a low one, or a low one alone) as
/// `\uFFFD`, which serde_json then reads as U+FFFD; it rejects lone
/// surrogates in strings otherwise. Pairs and everything else are kept.
pub fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    if memchr::memmem::find(b, b"\\u").is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                in_str = !in_str;
                i += 1;
            }
            b'\\' if in_str => match (b.get(i + 1), hex4(b, i + 2)) {
                (Some(b'u'), Some(n)) => {
                    let paired = (0xD800..0xDC00).contains(&n)
                        && b.get(i + 6..i + 8) == Some(b"\\u")
                        && hex4(b, i + 8).is_some_and(|m| (0xDC00..0xE000).contains(&m));
                    if paired {
                        i += 12;
                    } else {
                        if (0xD800..0xE000).contains(&n) {
                            out.push_str(&text[copied..i]);
                            out.push_str("\\uFFFD");
                            copied = i + 6;
                        }
                        i += 6;
                    }
                }
                // Any other escape: skip the backslash and the byte after
                // it (an escaped quote must not end the string).
                _ => i += 2,
            },
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Four hex digits at `at`, as a number.
fn hex4(b: &[u8], at: usize) -> Option<u16> {
    let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(digits, 16).ok()
}

/// The line without a trailing `\r` and a leading UTF-8 byte order mark.
fn trim(text: &[u8]) -> &[u8] {
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text)
}

/// The answer to a line over a limit: none for a notification, else
/// `-32600` with the id the scan found (or `null`).
fn over_limit(shape: &Shape, why: String) -> Verdict {
    if shape.is_notification() {
        return Verdict::Ignore(format!("notification over a limit: {why}").into());
    }
    Verdict::Answer(error(&shape.id(), INVALID_REQUEST, "Invalid Request", &why))
}

fn classify_value(v: Value) -> Verdict {
    let m = match v {
        Value::Object(m) => m,
        Value::Array(items) if items.is_empty() => {
            let why = "an empty array is not a message";
            return Verdict::Answer(error(&Value::Null, INVALID_REQUEST, "Invalid Request", why));
        }
        Value::Array(items) => return batch(&items),
        other => {
            let why = format!("a JSON-RPC message is an object, not {}", kind(&other));
            return Verdict::Answer(error(
                &Value::Null,
                INVALID_REQUEST,
                "Invalid Request",
                &why,
            ));
        }
    };
    let method = m.get("method");
    if is_notification(&m) {
        // Never answered, whatever is wrong with it.
        return match serde_json::from_value(Value::Object(m)) {
            Ok(msg) => Verdict::Forward(Box::new(msg)),
            Err(e) => Verdict::Ignore(format!("unreadable notification: {e}").into()),
        };
    }
    if method.is_none() && (m.contains_key("result") || m.contains_key("error")) {
        // A response from the client; never answered.
        return match serde_json::from_value(Value::Object(m)) {
            Ok(msg) => Verdict::Forward(Box::new(msg)),
            Err(e) => Verdict::Ignore(format!("unreadable response: {e}").into()),
        };
    }
    let invalid =
        |id: &Value, why: &str| Verdict::Answer(error(id, INVALID_REQUEST, "Invalid Request", why));
    let id = match m.get("id") {
        Some(id) if RequestId::deserialize(id).is_ok() => id.clone(),
        Some(other) => {
            let why = format!("\"id\" must be a string or an integer, not {}", kind(other));
            return invalid(&Value::Null, &why);
        }
        None => {
            return invalid(
                &Value::Null,
                "no \"method\" (a request), or \"result\"/\"error\"",
            );
        }
    };
    if m.get("jsonrpc") != Some(&Value::from("2.0")) {
        return invalid(&id, "\"jsonrpc\" must be \"2.0\"");
    }
    let method = match method {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return invalid(
                &id,
                &format!("\"method\" must be a string, not {}", kind(other)),
            );
        }
        None => return invalid(&id, "no \"method\""),
    };
    if m.contains_key("result") || m.contains_key("error") {
        return invalid(&id, "a request has no \"result\" or \"error\"");
    }
    if let Some(p) = m.get("params").filter(|p| !p.is_object() && !p.is_null()) {
        let why = format!("params: must be an object, not {}", kind(p));
        return Verdict::Answer(error(&id, INVALID_PARAMS, "Invalid params", &why));
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(m)) {
        Ok(JsonRpcMessage::Request(r)) => match &r.request {
            ClientRequest::CustomRequest(c) => match params_problem(&method, c.params.as_ref()) {
                Some(why) => Verdict::Answer(error(&id, INVALID_PARAMS, "Invalid params", &why)),
                // An unknown method: rmcp answers "method not found".
                None => Verdict::Forward(Box::new(JsonRpcMessage::Request(r))),
            },
            _ => Verdict::Forward(Box::new(JsonRpcMessage::Request(r))),
        },
        Ok(other) => Verdict::Forward(Box::new(other)),
        Err(e) => invalid(&id, &e.to_string()),
    }
}

/// An object with a `method` and no `id`: a notification, never answered.
fn is_notification(m: &Map<String, Value>) -> bool {
    m.contains_key("method") && !m.contains_key("id")
}

/// The answer to a batch: one `-32600` per element that is not a
/// notification, with the element's id when it has a usable one.
fn batch(items: &[Value]) -> Verdict {
    let errors: Vec<Value> = items
        .iter()
        .filter(|item| !item.as_object().is_some_and(is_notification))
        .map(|item| {
            let id = item
                .get("id")
                .filter(|id| RequestId::deserialize(*id).is_ok())
                .cloned()
                .unwrap_or(Value::Null);
            error(&id, INVALID_REQUEST, "Invalid Request", NO_BATCHES)
        })
        .collect();
    if errors.is_empty() {
        return Verdict::Ignore("a batch of notifications".into());
    }
    Verdict::Answer(Value::Array(errors))
}

/// A JSON value's kind, for messages: "an array", "a string", ...
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Why `params` do not fit `method`, for a method rmcp has a type for;
/// `None` for other methods (and for params that fit).
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    if method == CallToolRequest::METHOD
        && let Some(why) = tool_call_problem(params)
    {
        return Some(why);
    }
    let (_, check) = TYPED.iter().find(|(name, _)| *name == method)?;
    let mut msg = Map::new();
    msg.insert("method".into(), Value::from(method));
    if let Some(p) = params {
        msg.insert("params".into(), p.clone());
    }
    match check(&Value::Object(msg)) {
        Ok(()) => None,
        Err(e) => Some(format!("params: {e}")),
    }
}

/// The `tools/call` cases a client most often gets wrong, named plainly.
fn tool_call_problem(params: Option<&Value>) -> Option<String> {
    let Some(Value::Object(p)) = params else {
        return Some(
            "params: missing; tools/call takes {\"name\": <tool>, \"arguments\": {…}}".into(),
        );
    };
    match p.get("name") {
        None => return Some("params.name: missing (the tool to call)".into()),
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "params.name: must be a string, not {}",
                kind(other)
            ));
        }
    }
    match p.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "params.arguments: must be an object, not {}",
            kind(other)
        )),
    }
}

/// A request type of rmcp's and its method name.
trait Typed: DeserializeOwned {
    const METHOD: &'static str;
}

impl<M: ConstString + DeserializeOwned, P: DeserializeOwned> Typed for Request<M, P> {
    const METHOD: &'static str = M::VALUE;
}

impl<M: ConstString + DeserializeOwned, P: DeserializeOwned> Typed for RequestOptionalParam<M, P> {
    const METHOD: &'static str = M::VALUE;
}

impl<M: ConstString + DeserializeOwned> Typed for RequestNoParam<M> {
    const METHOD: &'static str = M::VALUE;
}

type Check = fn(&Value) -> Result<(), serde_json::Error>;

fn check<T: Typed>(msg: &Value) -> Result<(), serde_json::Error> {
    T::deserialize(msg).map(drop)
}

const fn typed<T: Typed>() -> (&'static str, Check) {
    (T::METHOD, check::<T> as Check)
}

/// The requests rmcp reads into a type (the rest are "custom"), with a
/// check that gives serde's reason when a message does not fit.
#[allow(deprecated)]
const TYPED: &[(&str, Check)] = &[
    typed::<PingRequest>(),
    typed::<InitializeRequest>(),
    typed::<DiscoverRequest>(),
    typed::<SubscriptionsListenRequest>(),
    typed::<GetTaskRequest>(),
    typed::<UpdateTaskRequest>(),
    typed::<CancelTaskRequest>(),
    typed::<ListSkillsRequest>(),
    typed::<GetSkillRequest>(),
    typed::<ReadResourceDirectoryRequest>(),
    typed::<CompleteRequest>(),
    typed::<SetLevelRequest>(),
    typed::<GetPromptRequest>(),
    typed::<ListPromptsRequest>(),
    typed::<ListResourcesRequest>(),
    typed::<ListResourceTemplatesRequest>(),
    typed::<ReadResourceRequest>(),
    typed::<SubscribeRequest>(),
    typed::<UnsubscribeRequest>(),
    typed::<CallToolRequest>(),
    typed::<ListToolsRequest>(),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::framing::line_max;

    fn verdict(text: &[u8]) -> Verdict {
        classify(line_max(text, MAX_LINE_BYTES))
    }

    /// The answer to `text`; panics if there is none.
    fn answer(text: &[u8]) -> Value {
        match verdict(text) {
            Verdict::Answer(v) => v,
            other => panic!(
                "{:?}: expected an answer, got {other:?}",
                String::from_utf8_lossy(text)
            ),
        }
    }

    /// `(id, code, data.reason)` of an error answer.
    fn err(text: &[u8]) -> (Value, i64, String) {
        let v = answer(text);
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        let reason = v["error"]["data"]["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            v["error"]["message"].as_str().unwrap().ends_with(&reason),
            "{v}"
        );
        (
            v["id"].clone(),
            v["error"]["code"].as_i64().unwrap(),
            reason,
        )
    }

    fn forwarded(text: &[u8]) -> ClientJsonRpcMessage {
        match verdict(text) {
            Verdict::Forward(m) => *m,
            other => panic!(
                "{:?}: expected forward, got {other:?}",
                String::from_utf8_lossy(text)
            ),
        }
    }

    fn ignored(text: &[u8]) -> bool {
        matches!(verdict(text), Verdict::Ignore(_))
    }

    /// The `arguments` rmcp receives for a tools/call line.
    fn arguments(text: &[u8]) -> Value {
        match forwarded(text) {
            JsonRpcMessage::Request(r) => match r.request {
                ClientRequest::CallToolRequest(c) => Value::Object(c.params.arguments.unwrap()),
                other => panic!("not a tools/call: {other:?}"),
            },
            other => panic!("not a request: {other:?}"),
        }
    }

    fn call(args: &str) -> Vec<u8> {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{args}}}}}"#
        )
        .into_bytes()
    }

    fn nested(depth: usize, id_first: bool) -> Vec<u8> {
        // The message is 1 deep, params 2, arguments 3, then `depth - 3` arrays.
        let inner = format!("{}{}", "[".repeat(depth - 3), "]".repeat(depth - 3));
        let body =
            format!(r#""method":"tools/call","params":{{"name":"t","arguments":{{"x":{inner}}}}}"#);
        if id_first {
            format!(r#"{{"jsonrpc":"2.0","id":"deep",{body}}}"#).into_bytes()
        } else {
            format!(r#"{{"jsonrpc":"2.0",{body},"id":"deep"}}"#).into_bytes()
        }
    }

    #[test]
    fn too_long_answered_with_its_id() {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"x","params":{{"a":"{}"}}}}"#,
            "z".repeat(100)
        );
        let v = match classify(line_max(text.as_bytes(), 50)) {
            Verdict::Answer(v) => v,
            other => panic!("{other:?}"),
        };
        assert_eq!(v["id"], 42);
        assert_eq!(v["error"]["code"], INVALID_REQUEST);
        let reason = v["error"]["data"]["reason"].as_str().unwrap();
        assert!(reason.contains("limit is 50 bytes"), "{reason}");
        // The id after the long part is found too.
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":"{}"}},"id":"s"}}"#,
            "z".repeat(100)
        );
        let Verdict::Answer(v) = classify(line_max(text.as_bytes(), 50)) else {
            panic!()
        };
        assert_eq!(v["id"], "s");
        // A notification over the limit is not answered.
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":"{}"}}}}"#,
            "z".repeat(100)
        );
        assert!(matches!(
            classify(line_max(text.as_bytes(), 50)),
            Verdict::Ignore(_)
        ));
        // Garbage over the limit: id null.
        let Verdict::Answer(v) = classify(line_max(&[b'x'; 100], 50)) else {
            panic!()
        };
        assert_eq!(v["id"], Value::Null);
    }

    #[test]
    fn depth() {
        // At the limit: parsed and forwarded.
        assert!(matches!(
            verdict(&nested(MAX_DEPTH, true)),
            Verdict::Forward(_)
        ));
        for id_first in [true, false] {
            let (id, code, reason) = err(&nested(MAX_DEPTH + 1, id_first));
            assert_eq!((id, code), (json!("deep"), INVALID_REQUEST));
            assert!(
                reason.contains(&format!("{} levels", MAX_DEPTH + 1)),
                "{reason}"
            );
            let (id, _, _) = err(&nested(5000, id_first));
            assert_eq!(id, "deep");
        }
        // Brackets in strings do not count.
        let s = format!(r#"{{"x":"{}"}}"#, "[".repeat(500));
        assert_eq!(line_max(s.as_bytes(), 1000).shape.max_depth, 1);
        // A deep notification is not answered.
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"n","params":{}{}}}"#,
            "[".repeat(99),
            "]".repeat(99)
        );
        assert!(ignored(deep.as_bytes()));
        // Deep garbage: id null.
        assert_eq!(err(&b"[".repeat(5000)).0, Value::Null);
    }

    #[test]
    fn parse_error() {
        for text in [
            &b"{"[..],
            b"nope",
            br#"{"jsonrpc":"2.0","id":1,"#,
            b"{\"a\":1}\xff",
            b"\"\\x\"",
        ] {
            let (id, code, reason) = err(text);
            assert_eq!((id, code), (Value::Null, PARSE_ERROR), "{text:?}");
            assert!(!reason.is_empty());
        }
    }

    #[test]
    fn blank_lines_skipped() {
        for text in [&b""[..], b"  ", b"\r", b" \t\r", b"\xEF\xBB\xBF"] {
            assert!(ignored(text), "{text:?}");
        }
        // A BOM and a CR around a message are dropped.
        assert!(matches!(
            verdict(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r"),
            Verdict::Forward(_)
        ));
    }

    #[test]
    fn batches() {
        let v = answer(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},5,{"id":{}}]"#,
        );
        let errs = v.as_array().unwrap();
        assert_eq!(errs.len(), 3, "{v}");
        assert_eq!(errs[0]["id"], 1);
        assert_eq!(errs[1]["id"], Value::Null);
        assert_eq!(errs[2]["id"], Value::Null);
        for e in errs {
            assert_eq!(e["error"]["code"], INVALID_REQUEST);
            assert!(
                e["error"]["data"]["reason"]
                    .as_str()
                    .unwrap()
                    .contains("batches")
            );
        }
        let (id, code, _) = err(b"[]");
        assert_eq!((id, code), (Value::Null, INVALID_REQUEST));
        assert!(ignored(br#"[{"jsonrpc":"2.0","method":"n"}]"#));
    }

    #[test]
    fn invalid_requests() {
        let cases: &[(&[u8], Value, &str)] = &[
            (b"5", Value::Null, "not a number"),
            (b"null", Value::Null, "not null"),
            (br#""s""#, Value::Null, "not a string"),
            (br#"{}"#, Value::Null, "no \"method\""),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
                "not null",
            ),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                Value::Null,
                "\"id\"",
            ),
            (
                br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                Value::Null,
                "not an object",
            ),
            (
                br#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
                json!(2),
                "\"jsonrpc\"",
            ),
            (br#"{"id":3,"method":"ping"}"#, json!(3), "\"jsonrpc\""),
            (br#"{"jsonrpc":"2.0","id":4}"#, json!(4), "no \"method\""),
            (
                br#"{"jsonrpc":"2.0","id":5,"method":7}"#,
                json!(5),
                "not a number",
            ),
            (
                br#"{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}"#,
                json!(6),
                "\"result\"",
            ),
        ];
        for (text, want_id, want) in cases {
            let (id, code, reason) = err(text);
            let ctx = String::from_utf8_lossy(text);
            assert_eq!((&id, code), (want_id, INVALID_REQUEST), "{ctx}");
            assert!(reason.contains(want), "{ctx}: {reason}");
        }
    }

    #[test]
    fn invalid_params() {
        let cases: &[(&[u8], &str)] = &[
            (br#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#, "params: missing"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":[1]}"#, "not an array"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#, "params.name: missing"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":3}}"#, "params.name: must be a string, not a number"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t","arguments":[1]}}"#, "params.arguments: must be an object, not an array"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t","arguments":"x"}}"#, "params.arguments: must be an object, not a string"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#, "params: missing field"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"resources/read","params":{"uri":5}}"#, "params: invalid type"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"prompts/get","params":{}}"#, "params: missing field `name`"),
            (br#"{"jsonrpc":"2.0","id":"a","method":"ping","params":"x"}"#, "not a string"),
        ];
        for (text, want) in cases {
            let (id, code, reason) = err(text);
            let ctx = String::from_utf8_lossy(text);
            assert_eq!((id, code), (json!("a"), INVALID_PARAMS), "{ctx}");
            assert!(reason.contains(want), "{ctx}: {reason}");
        }
    }

    #[test]
    fn forwarded_as_rmcp_reads_them() {
        let ok: &[&[u8]] = &[
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":null}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        ];
        for text in ok {
            forwarded(text);
        }
        // An unknown method goes to rmcp, which answers -32601.
        match forwarded(br#"{"jsonrpc":"2.0","id":1,"method":"no/such"}"#) {
            JsonRpcMessage::Request(r) => {
                assert!(matches!(r.request, ClientRequest::CustomRequest(_)))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn notifications_never_answered() {
        let cases: &[&[u8]] = &[
            br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":"bad"}"#,
            br#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
            br#"{"method":5}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/nope","params":{"s":"\udc80"}}"#,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"s\":\"\xff\"}}",
            br#"{"jsonrpc":"2.0","result":5}"#,
        ];
        for text in cases {
            assert!(
                !matches!(verdict(text), Verdict::Answer(_)),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn surrogates() {
        let r = |s: &str| replace_lone_surrogates(s).into_owned();
        assert_eq!(r(r#""\udc80""#), r#""\uFFFD""#);
        assert_eq!(r(r#""a\uD800b""#), r#""a\uFFFDb""#);
        assert_eq!(
            r(r#""\ud83d\ude00""#),
            r#""\ud83d\ude00""#,
            "a pair is kept"
        );
        assert_eq!(r(r#""\ud83d\ud83d\ude00""#), r#""\uFFFD\ud83d\ude00""#);
        assert_eq!(r(r#""\ude00\ud83d""#), r#""\uFFFD\uFFFD""#);
        assert_eq!(
            r(r#""\\udc80""#),
            r#""\\udc80""#,
            "an escaped backslash, not an escape"
        );
        assert_eq!(r(r#""\"\udc80""#), r#""\"\uFFFD""#);
        assert_eq!(r(r#""\u00e9\u0041""#), r#""\u00e9\u0041""#);
        assert_eq!(
            r(r#""\udc8""#),
            r#""\udc8""#,
            "not an escape: left to serde_json"
        );
        assert_eq!(r("\"é\\udc80é\""), "\"é\\uFFFDé\"");
        assert!(matches!(
            replace_lone_surrogates(r#""plain""#),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            replace_lone_surrogates(r#""\u0041""#),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn replacement_characters_reach_the_tool() {
        assert_eq!(
            arguments(&call(r#"{"s":"a\udc80b"}"#)),
            json!({"s": "a\u{FFFD}b"})
        );
        assert_eq!(
            arguments(&call(r#"{"s\ud800":"\ud83d\ude00"}"#)),
            json!({"s\u{FFFD}": "😀"})
        );
        let mut raw = call(r#"{"s":"aXb"}"#);
        let x = raw.iter().position(|&b| b == b'X').unwrap();
        raw[x] = 0xFF;
        assert_eq!(arguments(&raw), json!({"s": "a\u{FFFD}b"}));
        raw[x] = 0xC3; // a truncated two-byte sequence
        assert_eq!(arguments(&raw), json!({"s": "a\u{FFFD}b"}));
    }

    #[test]
    fn error_shape() {
        let v = error(&Value::Null, PARSE_ERROR, "Parse error", "why");
        assert_eq!(
            v,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: why", "data": {"reason": "why"}}})
        );
    }

    #[test]
    fn typed_methods() {
        let names: Vec<&str> = TYPED.iter().map(|(n, _)| *n).collect();
        assert!(
            names.contains(&"tools/call") && names.contains(&"initialize"),
            "{names:?}"
        );
    }
}
