use super::scan::*;
use super::*;

/// Frames `text` (one line, no newline needed) with a limit of `max`.
fn line_max(text: &[u8], max: usize) -> Line {
    let mut f = Framer::new(max);
    let mut rest = text;
    while !rest.is_empty() {
        let (n, line) = f.feed(rest);
        assert!(line.is_none(), "one line only");
        rest = &rest[n..];
    }
    f.finish().unwrap_or(Line {
        text: Some(Vec::new()),
        len: 0,
        max,
        shape: Shape::default(),
    })
}

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
fn framer_lines() {
    let mut f = Framer::new(8);
    let (n, l) = f.feed(b"ab\ncd");
    assert_eq!(n, 3);
    let l = l.unwrap();
    assert_eq!((l.text.as_deref(), l.len()), (Some(&b"ab"[..]), 2));
    let (n, l) = f.feed(b"cd");
    assert_eq!((n, l.is_none()), (2, true));
    let (n, l) = f.feed(b"ef\n");
    assert_eq!(n, 3);
    assert_eq!(l.unwrap().text.as_deref(), Some(&b"cdef"[..]));
    assert!(f.finish().is_none());
    let (_, l) = f.feed(b"\n");
    assert!(l.unwrap().is_empty());
    f.feed(b"tail");
    assert_eq!(f.finish().unwrap().text.as_deref(), Some(&b"tail"[..]));
    assert!(f.finish().is_none());
}

#[test]
fn framer_limit() {
    let mut f = Framer::new(4);
    let (_, l) = f.feed(b"1234\n");
    assert!(!l.unwrap().is_too_long(), "exactly the limit is fine");
    f.feed(b"123");
    f.feed(b"45");
    assert!(f.buf.capacity() == 0, "nothing kept once over the limit");
    f.feed(b"6789");
    let (_, l) = f.feed(b"0\nok\n");
    let l = l.unwrap();
    assert!(l.is_too_long());
    assert_eq!(l.len(), 10);
    let (_, l) = f.feed(b"ok\n");
    assert_eq!(
        l.unwrap().text.as_deref(),
        Some(&b"ok"[..]),
        "the next line is intact"
    );
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
fn scan_id() {
    let id = |text: &str| line_max(text.as_bytes(), 1000).shape.id;
    assert_eq!(id(r#"{"id":1}"#), IdScan::Found(json!(1)));
    assert_eq!(
        id(r#"{ "id" : "a\"b" , "x":[1,{"id":2}]}"#),
        IdScan::Found(json!("a\"b"))
    );
    assert_eq!(id(r#"{"x":{"id":2},"y":"id"}"#), IdScan::Absent);
    assert_eq!(id(r#"{"id":null}"#), IdScan::Unusable);
    assert_eq!(id(r#"{"id":[1]}"#), IdScan::Unusable);
    assert_eq!(id(r#"{"id":1.5}"#), IdScan::Unusable);
    assert_eq!(
        id(&format!(r#"{{"id":"{}"}}"#, "a".repeat(300))),
        IdScan::Unusable
    );
    assert_eq!(id(r#"{"idx":1,"xid":2}"#), IdScan::Absent);
    assert_eq!(id(r#"{"methods":1,"id":3}"#), IdScan::Found(json!(3)));
    assert!(!line_max(br#"{"methods":1}"#, 100).shape.has_method);
    assert!(
        line_max(br#"{"a":{"method":1},"method":"m"}"#, 100)
            .shape
            .has_method
    );
    assert!(!line_max(br#"{"a":{"method":1}}"#, 100).shape.has_method);
    assert_eq!(id(r#"[{"id":1}]"#), IdScan::Absent);
    // Keys and ids read as serde_json reads them: escapes, lone
    // surrogates and bad UTF-8 included.
    assert_eq!(id(r#"{"i\u0064":7}"#), IdScan::Found(json!(7)));
    assert_eq!(id(r#"{"i\"d":7}"#), IdScan::Absent);
    assert_eq!(id(r#"{"id":"\udc80"}"#), IdScan::Found(json!("\u{FFFD}")));
    assert_eq!(
        line_max(b"{\"id\":\"\xff\"}", 100).shape.id,
        IdScan::Found(json!("\u{FFFD}"))
    );
    let escaped = br#"{"\u006d\u0065\u0074\u0068\u006f\u0064":"n"}"#;
    assert!(line_max(escaped, 100).shape.has_method);
    assert!(matches!(
        classify(line_max(escaped, 10)),
        Verdict::Ignore(_)
    ));
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
