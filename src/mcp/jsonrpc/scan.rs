//! The streaming scan of a line too long or too deep to parse: the
//! depth, the top-level shape and its `id` and `method`, read byte by
//! byte as the line streams past, so that even a discarded line is
//! answered with its own `id` ([`super::Framer`]).

use super::*;

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
    pub(super) in_str: bool,
    pub(super) escaped: bool,
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
        if self.in_str {
            let in_key = self.member == Member::InKey && self.depth == 1;
            if in_key {
                if self.escaped || b != b'"' {
                    self.key.push(b);
                }
            } else if self.in_id_value() {
                self.id_raw.push(b);
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_str = false;
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
                self.in_str = true;
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
