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

mod scan;
#[cfg(test)]
mod tests;

use scan::{Scanner, Shape};

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

/// The longest top-level `id` value the scan keeps, in bytes.
const MAX_ID_BYTES: usize = 256;

/// The longest top-level key the scan keeps as written, in bytes: `method`
/// with every letter a `\uXXXX` escape is 36.
const MAX_KEY_BYTES: usize = 48;

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

/// Splits a byte stream into lines, holding at most a limit of bytes.
///
/// Every byte goes through a scan that tracks nesting depth and the
/// top-level `id` and `method`, so a line over the limit is still
/// described (by its [`Line`]) although its bytes were dropped.
#[derive(Debug)]
pub struct Framer {
    max: usize,
    buf: Vec<u8>,
    len: usize,
    scan: Scanner,
}

impl Framer {
    /// A framer that keeps lines of at most `max` bytes (not counting the
    /// newline); [`MAX_LINE_BYTES`] on stdin.
    pub fn new(max: usize) -> Framer {
        Framer {
            max,
            buf: Vec::new(),
            len: 0,
            scan: Scanner::default(),
        }
    }

    /// Takes bytes from `input` up to and including the first newline.
    /// Returns how many it took (> 0 unless `input` is empty) and, if they
    /// end a line, that line.
    pub fn feed(&mut self, input: &[u8]) -> (usize, Option<Line>) {
        let (chunk, end) = match memchr::memchr(b'\n', input) {
            Some(i) => (&input[..i], Some(i + 1)),
            None => (input, None),
        };
        self.scan.feed(chunk);
        self.len = self.len.saturating_add(chunk.len());
        if self.len <= self.max {
            self.buf.extend_from_slice(chunk);
        } else if self.buf.capacity() > 0 {
            // Over the limit: give the memory back and only scan from now on.
            self.buf = Vec::new();
        }
        match end {
            Some(n) => (n, Some(self.take())),
            None => (input.len(), None),
        }
    }

    /// At the end of input: the last line if it had no newline.
    pub fn finish(&mut self) -> Option<Line> {
        (self.len > 0).then(|| self.take())
    }

    fn take(&mut self) -> Line {
        let shape = std::mem::take(&mut self.scan).finish();
        let len = std::mem::replace(&mut self.len, 0);
        let text = std::mem::take(&mut self.buf);
        Line {
            text: (len <= self.max).then_some(text),
            len,
            max: self.max,
            shape,
        }
    }
}

/// One line from a [`Framer`]: its bytes (unless it was over the limit) and
/// what the scan saw.
#[derive(Debug)]
pub struct Line {
    text: Option<Vec<u8>>,
    len: usize,
    max: usize,
    shape: Shape,
}

impl Line {
    /// The line's length in bytes, without its newline.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the line had no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the line was over the limit (its bytes were discarded).
    pub fn is_too_long(&self) -> bool {
        self.text.is_none()
    }
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
