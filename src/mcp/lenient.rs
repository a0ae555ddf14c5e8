//! Tool arguments read leniently against their schema ([`coerce`]), as
//! libtmux-mcp's validation does: an integer may come as a decimal string
//! (`"-10"`) or an exact float (`2.0`), a boolean as `"true"`/`"false"`,
//! and a string argument may come as a number, so every field a tool
//! returns can be passed back unchanged and clients that send every value
//! as text (the MCP Inspector's forms and CLI) work. Pure: JSON in, JSON
//! out; serde then reads the struct ([`super::args`]).

use rmcp::model::JsonObject;
use serde_json::{Map, Value};

use crate::tmux::Error;

/// Every argument name of every tool, for errors that name one.
const NAMES: &[&str] = &[
    "socket_name",
    "socket_path",
    "filters",
    "session_name",
    "session_id",
    "window_id",
    "window_index",
    "pane_id",
    "start",
    "end",
    "max_lines",
    "join_wrapped",
    "format_string",
    "pattern",
    "regex",
    "match_case",
    "content_start",
    "content_end",
    "max_matched_lines_per_pane",
    "limit",
    "offset",
    "extra_socket_paths",
    "option",
    "scope",
    "target",
    "global_",
    "buffer_name",
    "hook_name",
    "corner",
    "operations",
    "on_error",
    "new_name",
    "direction",
    "layout",
    "height",
    "width",
    "zoom",
    "destination_index",
    "destination_session",
    "source_pane_id",
    "target_pane_id",
    "title",
    "scroll_up",
    "content",
    "logical_name",
    "channel",
    "timeout",
    "window_name",
    "start_directory",
    "x",
    "y",
    "environment",
    "suppress_persistent_history",
    "attach",
    "size",
    "shell",
    "keys",
    "enter",
    "literal",
    "suppress_history",
    "text",
    "bracket",
    "kill",
    "output_path",
    "append",
    "value",
    "name",
];

/// Reads `args` leniently against the input `schema` of their tool (as
/// schemars writes it: `$ref`s into `$defs`, `Option`s as a `null` type or
/// branch), rewriting each value to the type the schema declares, the
/// forms models send:
///
/// * integer: a JSON integer; a float with no fraction (`2.0`); a string
///   holding either (`"-10"`, `"2.0"`, surrounding blanks ignored).
/// * number: a JSON number; a string holding one.
/// * boolean: `true`/`false`; `"true"`/`"false"`, `"1"`/`"0"`,
///   `"yes"`/`"no"`, `"on"`/`"off"` (any case); the numbers 1 and 0.
/// * string: a string; a number or boolean, as its JSON text (`1` is
///   `"1"`).
/// * list: a list; a string holding a JSON list (`"[\"a\"]"`); any other
///   single item, as a list of one (`patterns: "X"` is `["X"]`); its items
///   read as above.
/// * object: an object; a string holding a JSON object.
/// * one of a few names (an enum): the name, in any case.
/// * `null`, or the string `"null"`, where the schema allows null.
/// * An empty string for a non-string argument counts as not given.
///
/// Unknown arguments are left to serde.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// naming the argument, what was given and the form expected, in one
/// line, for a value that cannot be read as its type (`1.5` or `"abc"`
/// for an integer, an object for a string, a name not in the list).
pub fn coerce(schema: &JsonObject, args: &mut Map<String, Value>) -> Result<(), Error> {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return Ok(());
    };
    let defs = match schema.get("$defs") {
        Some(Value::Object(d)) => Some(d),
        _ => None,
    };
    let keys: Vec<String> = args.keys().cloned().collect();
    for k in keys {
        let Some(prop) = props.get(&k) else {
            continue;
        };
        let want = Want::of(prop, defs);
        let Some(v) = args.get(&k) else { continue };
        match want.read(v, defs) {
            Ok(Read::Keep) => {}
            Ok(Read::Absent) => {
                args.remove(&k);
            }
            Ok(Read::Value(new)) => {
                args.insert(k, new);
            }
            Err(expected) => {
                let name = NAMES
                    .iter()
                    .copied()
                    .find(|n| *n == k)
                    .unwrap_or("arguments");
                return Err(Error::invalid(
                    name,
                    format!("{k} must be {expected} (received {})", shown(v)),
                    expected,
                ));
            }
        }
    }
    Ok(())
}

/// What a property schema asks for: its type (besides `null`), whether
/// `null` is allowed, the names of an enum, the schema of a list's items.
struct Want<'a> {
    kinds: Vec<&'a str>,
    nullable: bool,
    names: Vec<&'a str>,
    items: Option<&'a Value>,
}

impl<'a> Want<'a> {
    /// Reads `p`, following `$ref`s into `defs` and `anyOf`/`oneOf`
    /// branches.
    fn of(p: &'a Value, defs: Option<&'a Map<String, Value>>) -> Want<'a> {
        let mut w = Want {
            kinds: Vec::new(),
            nullable: false,
            names: Vec::new(),
            items: None,
        };
        w.add(p, defs, 0);
        w
    }

    fn add(&mut self, p: &'a Value, defs: Option<&'a Map<String, Value>>, depth: usize) {
        if depth > 4 {
            return;
        }
        if let Some(r) = p.get("$ref").and_then(Value::as_str)
            && let Some(d) = r
                .strip_prefix("#/$defs/")
                .and_then(|n| defs.and_then(|d| d.get(n)))
        {
            self.add(d, defs, depth + 1);
        }
        for t in declared(p) {
            if t == "null" {
                self.nullable = true;
            } else if !self.kinds.contains(&t) {
                self.kinds.push(t);
            }
        }
        if let Some(Value::Array(e)) = p.get("enum") {
            self.names.extend(e.iter().filter_map(Value::as_str));
        }
        if let Some(c) = p.get("const").and_then(Value::as_str) {
            self.names.push(c);
        }
        if self.items.is_none() {
            self.items = p.get("items");
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = p.get(key) {
                for b in branches {
                    self.add(b, defs, depth + 1);
                }
            }
        }
    }

    /// `v` read as wanted, or the form expected: as it is when it has
    /// one of the types declared (a list's items still read), else the
    /// first type it can be read as.
    fn read(&self, v: &Value, defs: Option<&Map<String, Value>>) -> Result<Read, String> {
        if !self.names.is_empty() && self.kinds.iter().all(|k| *k == "string") {
            return self.name(v);
        }
        let Some(first) = self.kinds.first() else {
            return Ok(Read::Keep);
        };
        if v.is_null() && self.nullable {
            return Ok(Read::Keep);
        }
        let has = |k: &str| self.kinds.contains(&k);
        match v {
            Value::Array(_) if has("array") => return self.list(v, defs),
            Value::Object(_) if has("object") => return Ok(Read::Keep),
            Value::String(_) if has("string") => return Ok(Read::Keep),
            Value::Bool(_) if has("boolean") => return Ok(Read::Keep),
            Value::Number(n) if has("number") || (has("integer") && n.as_i64().is_some()) => {
                return Ok(Read::Keep);
            }
            _ => {}
        }
        let mut err = None;
        for kind in &self.kinds {
            let got = match *kind {
                "array" => self.list(v, defs),
                "object" => match v {
                    Value::String(s) if s.trim().is_empty() => Ok(Read::Absent),
                    Value::String(s) => match serde_json::from_str::<Value>(s) {
                        Ok(o @ Value::Object(_)) => Ok(Read::Value(o)),
                        _ => Err("an object (like {\"NAME\": \"value\"})".into()),
                    },
                    _ => Err("an object (like {\"NAME\": \"value\"})".into()),
                },
                k => read(k, self.nullable, v).map_err(str::to_string),
            };
            match got {
                Ok(r) => return Ok(r),
                Err(e) => {
                    err.get_or_insert(e);
                }
            }
        }
        Err(match (err, self.kinds.len()) {
            (Some(e), 1) => e,
            _ => {
                let a = |k: &str| match k {
                    "integer" => "an integer",
                    "number" => "a number",
                    "boolean" => "true or false",
                    "array" => "a list",
                    "object" => "an object",
                    _ => "a string",
                };
                let mut all: Vec<&str> = vec![a(first)];
                all.extend(self.kinds[1..].iter().map(|k| a(k)));
                all.join(" or ")
            }
        })
    }

    /// One of [`Want::names`], matched in any case.
    fn name(&self, v: &Value) -> Result<Read, String> {
        let expected = || format!("one of {}", self.names.join(", "));
        match v {
            Value::Null if self.nullable => Ok(Read::Keep),
            Value::String(s) if s.is_empty() => Ok(Read::Absent),
            Value::String(s) if self.names.contains(&s.as_str()) => Ok(Read::Keep),
            Value::String(s) => {
                let t = s.trim();
                match self.names.iter().find(|n| n.eq_ignore_ascii_case(t)) {
                    Some(n) => Ok(Read::Value(Value::from(*n))),
                    None => Err(expected()),
                }
            }
            _ => Err(expected()),
        }
    }

    /// A list: as it is, a JSON list in a string, or one item; each item
    /// read as the items' schema asks.
    fn list(&self, v: &Value, defs: Option<&Map<String, Value>>) -> Result<Read, String> {
        let items: Vec<Value> = match v {
            Value::Null if self.nullable => return Ok(Read::Keep),
            Value::Array(a) => a.clone(),
            Value::String(s) if s.trim().is_empty() => return Ok(Read::Absent),
            Value::String(s) if s.trim_start().starts_with('[') => {
                match serde_json::from_str::<Value>(s) {
                    Ok(Value::Array(a)) => a,
                    _ => vec![v.clone()],
                }
            }
            other => vec![other.clone()],
        };
        let want = self.items.map(|i| Want::of(i, defs));
        let mut out = Vec::with_capacity(items.len());
        let mut changed = !v.is_array();
        for item in items {
            let read = match &want {
                Some(w) => w
                    .read(&item, defs)
                    .map_err(|e| format!("a list whose items are each {e}"))?,
                None => Read::Keep,
            };
            match read {
                Read::Value(x) => {
                    changed = true;
                    out.push(x);
                }
                Read::Keep | Read::Absent => out.push(item),
            }
        }
        Ok(if changed {
            Read::Value(Value::Array(out))
        } else {
            Read::Keep
        })
    }
}

/// The types a property schema declares (`type` as a string or a list).
fn declared(p: &Value) -> Vec<&str> {
    match p.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

enum Read {
    Keep,
    Absent,
    Value(Value),
}

/// `v` read as `kind`, or what was expected.
fn read(kind: &str, nullable: bool, v: &Value) -> Result<Read, &'static str> {
    let expected = match kind {
        "integer" => "an integer (like 3, -10 or \"3\")",
        "number" => "a number (like 2.5 or \"2.5\")",
        "boolean" => "true or false",
        "string" => "a string",
        _ => return Ok(Read::Keep),
    };
    let s = match v {
        Value::Null if nullable => return Ok(Read::Keep),
        Value::String(s) if s.is_empty() && kind != "string" => return Ok(Read::Absent),
        Value::String(s) if nullable && s == "null" && kind != "string" => {
            return Ok(Read::Value(Value::Null));
        }
        Value::String(s) => s.trim(),
        _ => "",
    };
    let new = match (kind, v) {
        ("string", Value::String(_))
        | ("integer", Value::Number(_))
        | ("number", Value::Number(_))
        | ("boolean", Value::Bool(_))
            if integer_ok(kind, v) =>
        {
            return Ok(Read::Keep);
        }
        ("number", Value::String(_)) => decimal(s)
            .filter(|f| f.is_finite())
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        ("integer", Value::Number(n)) => n.as_f64().and_then(whole).map(Value::from),
        ("integer", Value::String(_)) => s
            .parse::<i64>()
            .ok()
            .or_else(|| decimal(s).and_then(whole))
            .map(Value::from),
        ("boolean", Value::Number(n)) => match n.as_u64() {
            Some(0) => Some(Value::Bool(false)),
            Some(1) => Some(Value::Bool(true)),
            _ => None,
        },
        ("boolean", Value::String(_)) => match s.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Some(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    new.map(Read::Value).ok_or(expected)
}

/// An integer argument that is already a JSON integer in range.
fn integer_ok(kind: &str, v: &Value) -> bool {
    kind != "integer" || v.as_i64().is_some()
}

/// A decimal number written out (`2.0`, `-1e3`), not `inf` or `nan`.
fn decimal(s: &str) -> Option<f64> {
    let plain = s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    if plain { s.parse().ok() } else { None }
}

/// `f` as an integer when it has no fraction and is exact as an `f64`.
fn whole(f: f64) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    (f.fract() == 0.0 && f.abs() <= EXACT).then_some(f as i64)
}

/// A received value for an error message, shortened.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 40 {
        return s;
    }
    let mut t: String = s.chars().take(40).collect();
    t.push('…');
    t
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;

    use super::*;
    use crate::mcp::args::{CapturePaneArgs, SearchPanesArgs, ServerArgs, WindowArgs};

    /// `args` read leniently against `T`'s schema, then parsed.
    fn lenient<T: JsonSchema + serde::de::DeserializeOwned>(
        args: serde_json::Value,
    ) -> Result<T, String> {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<T>();
        let schema = serde_json::to_value(schema).unwrap();
        let mut map = args.as_object().unwrap().clone();
        coerce(schema.as_object().unwrap(), &mut map).map_err(|e| e.to_string())?;
        serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())
    }

    #[test]
    fn lenient_values() {
        use serde_json::json;
        let a: CapturePaneArgs = lenient(json!({
            "start": "-10", "end": 2.0, "max_lines": " 7 ", "join_wrapped": "true",
            "pane_id": "%1"
        }))
        .unwrap();
        assert_eq!(
            (a.start, a.end, a.max_lines, a.join_wrapped),
            (Some(-10), Some(2), Some(7), true)
        );
        let a: CapturePaneArgs = lenient(json!({"max_lines": "null", "start": ""})).unwrap();
        assert_eq!((a.max_lines, a.start), (None, None));
        let a: CapturePaneArgs = lenient(json!({"max_lines": null, "join_wrapped": 0})).unwrap();
        assert_eq!((a.max_lines, a.join_wrapped), (None, false));
        let a: WindowArgs = lenient(json!({"window_index": "1", "session_name": 2024})).unwrap();
        assert_eq!(
            (a.window_index, a.session_name.as_deref()),
            (Some(1), Some("2024"))
        );
        let a: SearchPanesArgs =
            lenient(json!({"pattern": true, "regex": "FALSE", "offset": "2.0"})).unwrap();
        assert_eq!((a.pattern.as_str(), a.regex, a.offset), ("true", false, 2));
        for (args, want) in [
            (
                json!({"start": 1.5}),
                "start must be an integer (like 3, -10 or \"3\") (received 1.5)",
            ),
            (
                json!({"start": "abc"}),
                "start must be an integer (like 3, -10 or \"3\") (received \"abc\")",
            ),
            (json!({"end": "1.5"}), "end must be an integer"),
            (json!({"end": "inf"}), "end must be an integer"),
            (json!({"end": 1e300}), "end must be an integer"),
            (json!({"end": true}), "end must be an integer"),
            (
                json!({"join_wrapped": "maybe"}),
                "join_wrapped must be true or false",
            ),
            (
                json!({"join_wrapped": 2}),
                "join_wrapped must be true or false",
            ),
            (
                json!({"pane_id": ["%1"]}),
                "pane_id must be a string (received [\"%1\"])",
            ),
        ] {
            let e = lenient::<CapturePaneArgs>(args.clone()).unwrap_err();
            assert!(e.starts_with(want), "{args}: {e}");
        }
        let e = lenient::<SearchPanesArgs>(json!({"pattern": null})).unwrap_err();
        assert!(e.starts_with("pattern must be a string"), "{e}");
        // Unknown arguments stay serde's to report.
        assert!(
            lenient::<ServerArgs>(json!({"bogus": "1"}))
                .unwrap_err()
                .contains("bogus")
        );
    }
}
