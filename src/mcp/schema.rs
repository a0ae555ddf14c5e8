//! Tidies the JSON Schemas that schemars derives into what MCP clients
//! read well: standard JSON Schema keywords only (no `uint`/`int64`
//! formats, which some validators warn about), no Rust type names, no
//! `$defs` to follow, and short text.
//!
//! * Input schemas keep the descriptions of a tool's own arguments (they
//!   teach how to call it) and defaults, but a flag's `false` (every flag
//!   is off unless given or its default says otherwise: the instructions
//!   say it once). `null` is listed as a value only where
//!   it means something other than leaving the argument out (an argument
//!   whose default is not `null`, such as `max_lines`).
//! * Output schemas give field names and types only: what fields mean is
//!   said once, in the server instructions and the tool descriptions (a
//!   model reads those; it rarely sees output schemas).
//! * A value that may be `null` is a two-branch `anyOf`, never a `type`
//!   list, which some clients cannot map.

use rmcp::model::JsonObject;
use serde_json::{Map, Value};

/// The tidy form of an input (arguments) schema; the arguments named in
/// `explained` (elsewhere, once for every tool) lose their descriptions.
pub fn input(raw: &JsonObject, explained: &[&str]) -> JsonObject {
    let mut root = raw.clone();
    let mut defs = take_defs(&mut root);
    // A type's own doc (an argument type shared by several tools) says
    // what the type is, not what the argument does: arguments carry
    // their own descriptions.
    for d in defs.values_mut() {
        if let Value::Object(d) = d {
            d.remove("description");
        }
    }
    let mut v = Value::Object(root);
    inline(&mut v, &defs);
    let Value::Object(mut root) = v else {
        unreachable!("still an object")
    };
    for k in ["$schema", "title", "description"] {
        root.remove(k);
    }
    if let Some(Value::Object(props)) = root.get_mut("properties") {
        for (name, p) in props.iter_mut() {
            if let Value::Object(p) = p {
                tidy_input_property(p);
                if explained.contains(&name.as_str()) {
                    p.remove("description");
                }
            }
        }
    }
    root
}

/// The tidy form of an output schema: names and types.
pub fn output(raw: &JsonObject) -> JsonObject {
    let mut root = raw.clone();
    let defs = take_defs(&mut root);
    let mut v = Value::Object(root);
    inline(&mut v, &defs);
    tidy_output(&mut v);
    match v {
        Value::Object(o) => o,
        _ => unreachable!("still an object"),
    }
}

fn take_defs(root: &mut JsonObject) -> Map<String, Value> {
    match root.remove("$defs") {
        Some(Value::Object(d)) => d,
        _ => Map::new(),
    }
}

/// Replaces every `{"$ref": "#/$defs/X", …}` with X's schema (the
/// referring site's own keywords, such as its description, win).
fn inline(v: &mut Value, defs: &Map<String, Value>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(r)) = o.get("$ref")
                && let Some(Value::Object(def)) =
                    r.strip_prefix("#/$defs/").and_then(|name| defs.get(name))
            {
                let def = def.clone();
                o.remove("$ref");
                for (k, val) in def {
                    o.entry(k).or_insert(val);
                }
            }
            for val in o.values_mut() {
                inline(val, defs);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| inline(x, defs)),
        _ => {}
    }
}

/// `{"anyOf": [X, {"type": "null"}]}` becomes X with `null` added to its
/// type (one form to work on; [`split_nullable`] writes the portable one).
/// Other `anyOf`s lose their `null` branch, unless `keep_null` (an output
/// schema, where a `null` value must still validate): then an `anyOf` of
/// several branches keeps it, and X that is itself an `anyOf` (an `Option`
/// of an untagged enum) gets it as one more branch.
fn fold_null_branch(o: &mut Map<String, Value>, keep_null: bool) {
    let Some(Value::Array(branches)) = o.get_mut("anyOf") else {
        return;
    };
    let null = Value::Object(Map::from_iter([("type".to_string(), Value::from("null"))]));
    let before = branches.len();
    branches.retain(|b| b.get("type") != Some(&Value::String("null".into())));
    let had_null = branches.len() < before;
    if branches.len() != 1 {
        if had_null && keep_null {
            branches.push(null);
        }
        return;
    }
    let Some(Value::Object(only)) = branches.pop() else {
        return;
    };
    o.remove("anyOf");
    for (k, val) in only {
        o.entry(k).or_insert(val);
    }
    if had_null && let Some(Value::String(t)) = o.get("type").cloned() {
        o.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
    } else if had_null
        && keep_null
        && let Some(Value::Array(inner)) = o.get_mut("anyOf")
    {
        inner.push(null);
    }
}

/// `{"type": [T, "null"], …}` becomes `{"anyOf": [{"type": T, …}, {"type":
/// "null"}], …}`: a `type` list is legal JSON Schema, but clients that map
/// schemas onto a single-type dialect (Gemini's function declarations) may
/// reject it, where a two-branch `anyOf` is read everywhere. The branch
/// takes what belongs to the type (`properties`, `items`, `enum`); the
/// description and default stay outside.
fn split_nullable(o: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = o.get("type") else {
        return;
    };
    let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    if others.len() != 1 || others.len() == types.len() {
        return;
    }
    o.remove("type");
    let mut branch = Map::new();
    branch.insert("type".into(), others[0].clone());
    for k in [
        "properties",
        "items",
        "enum",
        "additionalProperties",
        "required",
    ] {
        if let Some(v) = o.remove(k) {
            branch.insert(k.into(), v);
        }
    }
    let null = Value::Object(Map::from_iter([("type".to_string(), Value::from("null"))]));
    o.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(branch), null]),
    );
}

fn tidy_input_property(p: &mut Map<String, Value>) {
    for k in ["format", "title"] {
        p.remove(k);
    }
    fold_null_branch(p, false);
    consts_to_enum(p);
    // Objects inside (a list of operations): their properties too.
    for key in ["items", "additionalProperties"] {
        if let Some(Value::Object(inner)) = p.get_mut(key) {
            for k in ["title", "description", "format"] {
                inner.remove(k);
            }
            if let Some(Value::Object(props)) = inner.get_mut("properties") {
                for v in props.values_mut() {
                    if let Value::Object(o) = v {
                        tidy_input_property(o);
                    }
                }
            }
        }
    }
    // `null` is worth listing only when it differs from leaving the
    // argument out, i.e. when the default is something else.
    let null_means_something = p.get("default").is_some_and(|d| !d.is_null());
    if let Some(Value::Array(types)) = p.get_mut("type")
        && !null_means_something
    {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.pop().expect("one type");
            p.insert("type".into(), t);
        }
    }
    if let Some(Value::Array(branches)) = p.get_mut("anyOf") {
        for b in branches.iter_mut().filter_map(Value::as_object_mut) {
            b.remove("description");
            b.remove("format");
            if b.get("additionalProperties") == Some(&Value::Bool(true)) {
                b.remove("additionalProperties");
            }
        }
    }
    if let Some(Value::String(d)) = p.get_mut("description") {
        *d = one_line(d);
    }
    // A flag is off unless given: said once, in the instructions.
    if p.get("default") == Some(&Value::Bool(false))
        && p.get("type") == Some(&Value::from("boolean"))
    {
        p.remove("default");
    }
    split_nullable(p);
}

/// A schema that is the bare `true` (any JSON value, as schemars writes
/// a `serde_json::Value` field) becomes the equivalent empty schema `{}`:
/// some clients (the MCP Inspector's `--strict`) expect a schema object
/// wherever one is allowed.
fn any_value(v: &mut Value) {
    if *v == Value::Bool(true) {
        *v = Value::Object(Map::new());
    }
}

fn tidy_output(v: &mut Value) {
    match v {
        Value::Object(o) => {
            fold_null_branch(o, true);
            consts_to_enum(o);
            for k in [
                "$schema",
                "title",
                "format",
                "minimum",
                "maximum",
                "required",
                "description",
            ] {
                o.remove(k);
            }
            for (k, val) in o.iter_mut() {
                if k == "properties" {
                    let Value::Object(props) = val else { continue };
                    for p in props.values_mut() {
                        any_value(p);
                        tidy_output(p);
                    }
                } else {
                    if k == "items" {
                        any_value(val);
                    }
                    tidy_output(val);
                }
            }
            split_nullable(o);
        }
        Value::Array(a) => a.iter_mut().for_each(tidy_output),
        _ => {}
    }
}

/// `{"oneOf": [{"const": "a", "type": "string"}, …]}` (a Rust enum of unit
/// variants) becomes `{"type": "string", "enum": ["a", …]}`.
fn consts_to_enum(o: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = o.get("oneOf") else {
        return;
    };
    let consts: Option<Vec<Value>> = branches.iter().map(|b| b.get("const").cloned()).collect();
    let Some(consts) = consts else { return };
    if consts.iter().all(Value::is_string) {
        o.remove("oneOf");
        o.insert("type".into(), "string".into());
        o.insert("enum".into(), Value::Array(consts));
    }
}

/// Rustdoc's wrapped lines as one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn inputs() {
        let raw = obj(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args", "description": "`tool`.", "type": "object",
            "additionalProperties": false,
            "$defs": {"F": {"description": "x", "anyOf": [
                {"type": "object", "additionalProperties": true, "description": "m"},
                {"type": "string", "description": "j"}]}},
            "properties": {
                "a": {"type": ["integer", "null"], "format": "int64", "description": "A\nb."},
                "m": {"type": ["integer", "null"], "format": "int64", "default": 500},
                "f": {"anyOf": [{"$ref": "#/$defs/F"}, {"type": "null"}], "description": "F."},
                "pane_id": {"type": ["string", "null"], "description": "Pane id."}
            },
            "required": ["a"]
        }));
        assert_eq!(
            Value::Object(input(&raw, &["pane_id"])),
            json!({
                "type": "object", "additionalProperties": false, "required": ["a"],
                "properties": {
                    "a": {"type": "integer", "description": "A b."},
                    "m": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 500},
                    "f": {"anyOf": [{"type": "object"}, {"type": "string"}], "description": "F."},
                    "pane_id": {"type": "string"}
                }
            })
        );
    }

    #[test]
    fn outputs() {
        let raw = obj(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "R", "type": "object", "required": ["s"],
            "$defs": {
                "Src": {"description": "d", "oneOf": [
                    {"const": "mirror", "type": "string", "description": "m"},
                    {"const": "capture", "type": "string"}]},
                "P": {"type": "object", "properties": {"row": {"type": "integer", "format": "int64"}}}
            },
            "properties": {
                "s": {"$ref": "#/$defs/Src", "description": "which"},
                "n": {"type": "integer", "format": "uint", "minimum": 0, "description": "count"},
                "at": {"type": "array", "items": {"$ref": "#/$defs/P"}},
                "o": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]}
            }
        }));
        assert_eq!(
            Value::Object(output(&raw)),
            json!({
                "type": "object",
                "properties": {
                    "s": {"type": "string", "enum": ["mirror", "capture"]},
                    "n": {"type": "integer"},
                    "at": {"type": "array", "items": {"type": "object", "properties": {"row": {"type": "integer"}}}},
                    "o": {"anyOf": [
                        {"type": "object", "properties": {"row": {"type": "integer"}}},
                        {"type": "null"}
                    ]}
                }
            })
        );
    }
}
