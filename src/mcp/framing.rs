//! Framing stdin into lines for the JSON-RPC checks ([`super::jsonrpc`]):
//! [`Framer`] splits the byte stream, holding at most a limit of bytes,
//! and every byte goes through a streaming scan of the depth and the
//! top-level `id` and `method`, so that a line too long or too deep to
//! parse is still answered with its own `id`. Pure: no I/O.

use rmcp::model::RequestId;
use serde::Deserialize;
use serde_json::Value;

use super::jsonrpc::decode;

/// The longest top-level `id` value the scan keeps, in bytes.
const MAX_ID_BYTES: usize = 256;

/// The longest top-level key the scan keeps as written, in bytes: `method`
/// with every letter a `\uXXXX` escape is 36.
const MAX_KEY_BYTES: usize = 48;

/// Splits a byte stream into lines, holding at most a limit of bytes.
///
/// Every byte goes through a scan that tracks nesting depth and the
/// top-level `id` and `method`, so a line over the limit is still
/// described (by its [`Line`]) although its bytes were dropped.
#[derive(Debug)]
pub struct Framer {
    pub(super) max: usize,
    pub(super) buf: Vec<u8>,
    pub(super) len: usize,
    pub(super) scan: Scanner,
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
    pub(super) text: Option<Vec<u8>>,
    pub(super) len: usize,
    pub(super) max: usize,
    pub(super) shape: Shape,
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

/// Where a top-level member's scan is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    /// Before a key (after `{` or `,`).
    #[default]
    Key,
    /// Inside the key string.
    InKey,
    /// After the key, before `:`.
    Colon,
    /// In the value.
    Value,
}

/// What the first significant byte of a line was.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Top {
    #[default]
    Nothing,
    Object,
    Other,
}

/// The top-level `id` as far as the scan knows.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) enum IdScan {
    #[default]
    Absent,
    /// Present, but not a string or an integer (or too long to keep).
    Unusable,
    Found(Value),
}

/// Where a scan stands in the line's strings.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lex {
    /// Outside a string.
    #[default]
    Outside,
    /// In a string.
    InString,
    /// In a string, just after a backslash: the next byte is escaped.
    Escaped,
}

/// What a scan saw in a line.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Shape {
    pub(super) max_depth: usize,
    pub(super) top: Top,
    pub(super) id: IdScan,
    pub(super) has_method: bool,
}

impl Shape {
    /// A top-level object with `method` and without `id`.
    pub(super) fn is_notification(&self) -> bool {
        self.top == Top::Object && self.has_method && self.id == IdScan::Absent
    }

    /// The id to answer with: the usable one found, else `null`.
    pub(super) fn id(&self) -> Value {
        match &self.id {
            IdScan::Found(v) => v.clone(),
            _ => Value::Null,
        }
    }
}

/// A byte-at-a-time JSON scan (no validation): nesting depth, and the
/// top-level object's `id` value and whether it has a `method` key.
#[derive(Debug, Default)]
pub(super) struct Scanner {
    pub(super) depth: usize,
    pub(super) lex: Lex,
    pub(super) member: Member,
    /// The current top-level key, if it is at most 6 bytes (`method`).
    pub(super) key: Vec<u8>,
    /// The raw bytes of the top-level `id` value, while it is being read.
    pub(super) id_raw: Vec<u8>,
    pub(super) shape: Shape,
}

impl Scanner {
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    pub(super) fn in_id_value(&self) -> bool {
        self.depth == 1 && self.member == Member::Value && self.key == b"id"
    }

    pub(super) fn byte(&mut self, b: u8) {
        if self.lex != Lex::Outside {
            let escaped = self.lex == Lex::Escaped;
            let in_key = self.member == Member::InKey && self.depth == 1;
            if in_key {
                if escaped || b != b'"' {
                    self.key.push(b);
                }
            } else if self.in_id_value() {
                self.id_raw.push(b);
            }
            if escaped {
                self.lex = Lex::InString;
            } else if b == b'\\' {
                self.lex = Lex::Escaped;
            } else if b == b'"' {
                self.lex = Lex::Outside;
                if in_key {
                    self.member = Member::Colon;
                    self.end_key();
                }
            }
            self.cap();
            return;
        }
        if b.is_ascii_whitespace() {
            return;
        }
        if self.depth == 0 && self.shape.top == Top::Nothing {
            if matches!(b, 0xEF | 0xBB | 0xBF) {
                // A byte order mark before the message.
                return;
            }
            self.shape.top = if b == b'{' { Top::Object } else { Top::Other };
        }
        let top_object = self.shape.top == Top::Object;
        match b {
            b'"' => {
                self.lex = Lex::InString;
                if self.depth == 1 && top_object && self.member == Member::Key {
                    self.member = Member::InKey;
                    self.key.clear();
                } else if self.in_id_value() {
                    self.id_raw.push(b);
                }
            }
            b'{' | b'[' => {
                if self.in_id_value() {
                    self.shape.id = IdScan::Unusable;
                    self.id_raw.clear();
                    self.key.clear();
                }
                self.depth = self.depth.saturating_add(1);
                self.shape.max_depth = self.shape.max_depth.max(self.depth);
                if self.depth == 1 {
                    self.member = Member::Key;
                }
            }
            b'}' | b']' => {
                if self.depth == 1 && top_object {
                    self.end_member();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 && self.member == Member::Colon => {
                self.member = Member::Value;
                if self.key == b"method" {
                    self.shape.has_method = true;
                } else if self.key == b"id" {
                    self.id_raw.clear();
                }
            }
            b',' if self.depth == 1 && top_object => {
                self.end_member();
                self.member = Member::Key;
            }
            _ => {
                if self.in_id_value() {
                    self.id_raw.push(b);
                }
            }
        }
        self.cap();
    }

    /// At the `"` that ends a top-level key: the key as serde_json reads
    /// it (`"i\u0064"` is `id`, as `classify` sees the message), or `-`
    /// for one that is no key we look for.
    pub(super) fn end_key(&mut self) {
        if self.key.contains(&b'\\') {
            let mut quoted = Vec::with_capacity(self.key.len() + 2);
            quoted.push(b'"');
            quoted.extend_from_slice(&self.key);
            quoted.push(b'"');
            self.key = match serde_json::from_str::<String>(&decode(&quoted)) {
                Ok(k) => k.into_bytes(),
                Err(_) => b"-".to_vec(),
            };
        }
        if self.key.len() > 6 {
            self.key.clear();
            self.key.push(b'-');
        }
    }

    /// Keeps the captures bounded: a long key is no key we look for (a
    /// key is kept as written, escapes and all, up to [`MAX_KEY_BYTES`]),
    /// and a long id is not kept.
    pub(super) fn cap(&mut self) {
        if self.key.len() > MAX_KEY_BYTES {
            self.key.clear();
            self.key.push(b'-');
        }
        if self.id_raw.len() > MAX_ID_BYTES {
            self.id_raw.clear();
            self.key.clear();
            self.shape.id = IdScan::Unusable;
        }
    }

    /// At the `,` or `}` after a top-level member.
    pub(super) fn end_member(&mut self) {
        if self.member == Member::Value && self.key == b"id" {
            // Decoded as `classify` decodes the whole line.
            self.shape.id = match serde_json::from_str::<Value>(&decode(&self.id_raw)) {
                Ok(v) if RequestId::deserialize(&v).is_ok() => IdScan::Found(v),
                _ => IdScan::Unusable,
            };
        }
        self.key.clear();
        self.id_raw.clear();
    }

    pub(super) fn finish(self) -> Shape {
        self.shape
    }
}

/// Frames `text` (one line, no newline needed) with a limit of `max`.
#[cfg(test)]
pub(super) fn line_max(text: &[u8], max: usize) -> Line {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mcp::jsonrpc::{Verdict, classify};

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
}
