//! Tool arguments: libtmux-mcp's names, types and defaults, checked here
//! so that bad input gets a clear error and never reaches tmux.
//!
//! Field docs become the argument descriptions clients show a model (see
//! [`super::schema`]): short, plain text, no Rust names. The targeting
//! arguments are written in by [`args!`](super::targeting::args), whose
//! docs are for Rust readers only ([`super::targeting`]).
//!
//! Values are read leniently first ([`coerce`]), as libtmux-mcp's
//! validation does: an integer may come as a decimal string (`"-10"`) or
//! an exact float (`2.0`), a boolean as `"true"`/`"false"`, and a string
//! argument may come as a number, so every field a tool returns can be
//! passed back unchanged and clients that send every value as text (the
//! MCP Inspector's forms and CLI) work.

use std::collections::BTreeMap;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::control::format::Part;
use crate::mcp::targeting::args;
use crate::tmux::Error;

pub use crate::tmux::op::FiltersArg;

fn default_max_lines() -> Option<i64> {
    Some(500)
}

fn default_per_pane() -> i64 {
    50
}

fn default_limit() -> Option<i64> {
    Some(500)
}

args! {
    /// `list_sessions`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ListSessionsArgs {
        @socket,
        /// Conditions all items kept meet, e.g. {"session_name__contains": "dev"}. Operators: exact
        /// contains startswith endswith (i-prefixed: any case), regex iregex in nin eq.
        pub filters: Option<FiltersArg>,
    }
}

args! {
    /// `list_windows`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ListWindowsArgs {
        @session,
        @socket,
        /// Conditions, e.g. {"window_name__contains": "log"} (see list_sessions).
        pub filters: Option<FiltersArg>,
    }
}

args! {
    /// `list_panes`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ListPanesArgs {
        @session,
        @window_id,
        @window_index,
        @socket,
        /// Conditions, e.g. {"pane_current_command__eq": "vim"} (see list_sessions).
        pub filters: Option<FiltersArg>,
    }
}

args! {
    /// `get_server_info`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ServerArgs {
        @socket,
    }
}

args! {
    /// `get_session_info`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SessionArgs {
        @session_id,
        @session_name,
        @socket,
    }
}

args! {
    /// `get_window_info`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct WindowArgs {
        @window,
        @socket,
    }
}

args! {
    /// Pane targeting shared by the pane tools.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct PaneArgs {
        @pane,
        @socket,
    }
}

args! {
    /// `get_pane_state`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct PaneStateArgs {
        @pane,
        @socket,
    }
}

args! {
    /// `list_commands`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct ListCommandsArgs {
        @pane,
        /// The newest N commands (N ≥ 1). Default: 20.
        pub limit: Option<i64>,
        /// Only commands with an index below this (paging back).
        pub before: Option<u64>,
        @socket,
    }
}

args! {
    /// `get_command_output`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct CommandOutputArgs {
        @pane,
        /// Command index (list_commands); negative counts back from the last that ran (-1, default).
        pub index: Option<i64>,
        /// Keep the first N lines (with tail: both ends).
        pub head: Option<i64>,
        /// Keep the last N lines.
        pub tail: Option<i64>,
        /// Keep only lines containing this text (case-sensitive).
        pub grep: Option<String>,
        /// Lines kept around each grep match (0-100). Default: 0.
        pub context: Option<i64>,
        /// At most N bytes of line text, first lines kept.
        pub max_bytes: Option<i64>,
        @socket,
    }
}

args! {
    /// `capture_pane`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct CapturePaneArgs {
        @pane,
        /// First line: 0 = top of the screen, negative = scrollback (-1 = newest history line).
        /// Default: 0.
        pub start: Option<i64>,
        /// Last line. Default: the bottom of the screen.
        pub end: Option<i64>,
        /// Keep the newest N lines (N ≥ 1); null: no limit.
        #[serde(default = "default_max_lines")]
        pub max_lines: Option<i64>,
        /// Join soft-wrapped rows into logical lines.
        #[serde(default)]
        pub join_wrapped: bool,
        // head, tail and context: as grep's description says, once (hidden
        // docs: no description of their own in the schema).
        #[doc(hidden)]
        pub head: Option<i64>,
        #[doc(hidden)]
        pub tail: Option<i64>,
        /// Lines containing this text (case-sensitive), context (0-100) lines around each;
        /// then head/tail, then max_lines.
        pub grep: Option<String>,
        #[doc(hidden)]
        pub context: Option<i64>,
        @socket,
    }
}

args! {
    /// `snapshot_pane`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct SnapshotPaneArgs {
        @pane,
        /// Keep the newest N rows (N ≥ 1); null: all.
        #[serde(default = "default_max_lines")]
        pub max_lines: Option<i64>,
        @socket,
    }
}

args! {
    /// `display_message`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct DisplayMessageArgs {
        /// Text with #{variable} references, e.g. '#{pane_current_command} #{pane_pid}'; the rest
        /// is literal.
        pub format_string: String,
        @pane,
        @socket,
    }
}

/// A command named in `search_panes`: `"last"`, or an index (`list_commands`; negative
/// counts back from the last), as a number or a string of digits.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CommandArg {
    /// An index.
    Index(i64),
    /// `"last"`, or an index as a string.
    Name(String),
}

impl CommandArg {
    /// The command it names.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for any
    /// other string.
    pub fn pick(&self) -> Result<crate::tmux::op::commands::CommandPick, Error> {
        use crate::tmux::op::commands::CommandPick;
        let index = match self {
            CommandArg::Index(i) => *i,
            CommandArg::Name(s) if s.trim() == "last" => -1,
            CommandArg::Name(s) => s.trim().parse().map_err(|_| {
                Error::invalid(
                    "command",
                    format!("command must be \"last\" or a command index (received {s:?})"),
                    "\"last\", or an index from list_commands",
                )
            })?,
        };
        Ok(CommandPick::from_index(index))
    }
}

args! {
    /// `search_panes`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct SearchPanesArgs {
        /// Text to find; literal unless regex is true.
        pub pattern: String,
        /// pattern is a regex (Rust syntax; ^ and $ anchor each line).
        #[serde(default)]
        pub regex: bool,
        /// Case-sensitive matching.
        #[serde(default)]
        pub match_case: bool,
        @session,
        @pane_id,
        /// First line (0 = top of the screen, negative = scrollback). Default: the oldest.
        pub content_start: Option<i64>,
        /// Last line. Default: the bottom of the screen.
        pub content_end: Option<i64>,
        /// Only command output: "last" or a list_commands index.
        pub command: Option<CommandArg>,
        /// Matching lines returned per pane: the newest (≥ 1).
        #[serde(default = "default_per_pane")]
        pub max_matched_lines_per_pane: i64,
        /// Panes per page (≥ 1); null: all.
        #[serde(default = "default_limit")]
        pub limit: Option<i64>,
        /// Matching panes to skip (next page: offset + limit).
        #[serde(default)]
        pub offset: i64,
        @socket,
    }
}

/// `environment`: `{"NAME": "value"}`, or the same object as a JSON
/// string (some clients send that).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EnvArg {
    /// `{"EDITOR": "vim"}`.
    Map(BTreeMap<String, serde_json::Value>),
    /// The same, as a JSON string.
    Json(String),
}

/// What a batch does after an operation fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Run nothing after it.
    #[default]
    Stop,
    /// Run the rest.
    Continue,
}

/// Which table an option or hook lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScopeArg {
    /// Server options.
    Server,
    /// Session options.
    Session,
    /// Window options.
    Window,
    /// Pane options.
    Pane,
}

impl From<ScopeArg> for crate::tmux::op::settings::Scope {
    fn from(s: ScopeArg) -> Self {
        use crate::tmux::op::settings::Scope;
        match s {
            ScopeArg::Server => Scope::Server,
            ScopeArg::Session => Scope::Session,
            ScopeArg::Window => Scope::Window,
            ScopeArg::Pane => Scope::Pane,
        }
    }
}

/// What `suppress_persistent_history` adds to a new shell's environment:
/// no history file for bash, zsh or fish, and commands typed with a
/// leading space left out of the history.
pub const NO_HISTORY: &[(&str, &str)] = &[
    ("HISTFILE", ""),
    ("fish_history", ""),
    ("fish_private_mode", "1"),
    ("HISTCONTROL", "ignorespace"),
];

/// The `environment` argument as `NAME=value` pairs (names sorted), plus
/// [`NO_HISTORY`] when `suppress_history`.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for JSON that is not an object, values that
/// are not strings, names that are empty or hold `=`, and a value that
/// contradicts [`NO_HISTORY`] (the variable is named, the value is not
/// repeated).
pub fn environment(
    arg: Option<&EnvArg>,
    suppress_history: bool,
) -> Result<Vec<(String, String)>, Error> {
    let bad = |m: String| {
        Error::invalid(
            "environment",
            m,
            "an object of variable names to string values, e.g. {\"EDITOR\": \"vim\"}",
        )
    };
    let map = match arg {
        None => BTreeMap::new(),
        Some(EnvArg::Map(m)) => m.clone(),
        Some(EnvArg::Json(s)) => match serde_json::from_str::<serde_json::Value>(s) {
            Ok(serde_json::Value::Object(m)) => m.into_iter().collect(),
            Ok(other) => {
                let kind = match other {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                };
                return Err(bad(format!(
                    "environment must be a JSON object, got {kind}"
                )));
            }
            Err(e) => return Err(bad(format!("Invalid environment JSON: {e}"))),
        },
    };
    let mut out = Vec::with_capacity(map.len() + NO_HISTORY.len());
    for (k, v) in map {
        let serde_json::Value::String(v) = v else {
            return Err(bad("environment keys and values must be strings".into()));
        };
        if k.is_empty() || k.contains(['=', '\0']) || v.contains('\0') {
            return Err(bad(format!(
                "environment variable names must be non-empty, without '=' (got {:?})",
                k.chars().take(40).collect::<String>()
            )));
        }
        out.push((k, v));
    }
    if suppress_history {
        for (k, v) in NO_HISTORY {
            match out.iter().find(|(n, _)| n == k) {
                Some((_, given)) if given != v => {
                    return Err(bad(format!(
                        "environment sets {k}, which suppress_persistent_history sets too; leave \
                         one of them out"
                    )));
                }
                Some(_) => {}
                None => out.push((k.to_string(), v.to_string())),
            }
        }
    }
    Ok(out)
}

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

/// A limit that must be at least 1, where null means "no limit" (`None`
/// stays `None`).
pub fn positive(arg: &'static str, v: Option<i64>) -> Result<Option<usize>, Error> {
    count(arg, v, format!("{arg} ≥ 1, or null for no limit"))
}

/// A count that must be at least 1 and cannot be null.
pub fn positive_required(arg: &'static str, v: i64) -> Result<usize, Error> {
    Ok(count(arg, Some(v), format!("{arg} ≥ 1"))?.unwrap_or(1))
}

fn count(arg: &'static str, v: Option<i64>, expected: String) -> Result<Option<usize>, Error> {
    match v {
        None => Ok(None),
        Some(n) if n >= 1 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        Some(n) => Err(Error::invalid(
            arg,
            format!("{arg} must be a positive number (received {n})"),
            expected,
        )),
    }
}

/// A line number argument: tmux accepts `INT_MIN..=SHRT_MAX`.
pub fn line(arg: &'static str, v: Option<i64>) -> Result<Option<i64>, Error> {
    match v {
        Some(n) if n < i64::from(i32::MIN) => Err(Error::invalid(
            arg,
            format!("{arg} is out of range (received {n})"),
            "a line number ≥ -2147483648 (0 = top of the screen, negative = history)",
        )),
        Some(n) => Ok(Some(n.min(crate::tmux::op::search::MAX_LINE_ARG))),
        None => Ok(None),
    }
}

/// Turns a `display_message` format into the tmux format to expand:
/// `#{name}` references (name = `[A-Za-z_@][A-Za-z0-9_-]*`) are kept, and
/// every other `#` is literal text (written `##` for tmux). Other format
/// syntax inside `#{…}` (modifiers such as `#{E:…}`, conditionals) is
/// refused: it could expand a value a second time or run a job.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for `#{…}` that is not a plain reference, an
/// unclosed `#{`, or a NUL byte.
pub fn tmux_format(fs: &str) -> Result<Vec<Part<'_>>, Error> {
    let expected =
        "text with #{name} references, e.g. '#{pane_current_command} in #{pane_current_path}'";
    if fs.contains('\0') {
        return Err(Error::invalid(
            "format_string",
            "format_string must not contain NUL bytes",
            expected,
        ));
    }
    let mut parts = Vec::new();
    let mut rest = fs;
    while let Some(i) = rest.find("#{") {
        if i > 0 {
            parts.push(Part::Literal(&rest[..i]));
        }
        let inner = &rest[i + 2..];
        let end = inner.find('}').ok_or_else(|| {
            Error::invalid(
                "format_string",
                "format_string has a '#{' without its closing '}'",
                expected,
            )
        })?;
        let name = &inner[..end];
        let mut chars = name.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '@');
        if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(Error::invalid(
                "format_string",
                format!(
                    "format_string accepts literal text and '#{{variable}}' references only; \
                     '#{{{}}}' is other tmux format syntax (modifiers such as '#{{E:...}}' expand a \
                     value a second time; conditionals and jobs can run commands)",
                    name.chars().take(40).collect::<String>()
                ),
                expected,
            ));
        }
        parts.push(Part::Var(name));
        rest = &inner[end + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        fn f(s: &str) -> Result<Vec<Part<'_>>, String> {
            tmux_format(s).map_err(|e| e.to_string())
        }
        use Part::{Literal as L, Var as V};
        assert_eq!(f("").unwrap(), vec![]);
        assert_eq!(f("plain 100% text").unwrap(), vec![L("plain 100% text")]);
        assert_eq!(
            f("a #{session_name} b #{@user_opt}#{pane-x}").unwrap(),
            vec![
                L("a "),
                V("session_name"),
                L(" b "),
                V("@user_opt"),
                V("pane-x")
            ]
        );
        // Other '#' are literal text (the format module prints them as is).
        assert_eq!(
            f("issue #42, #[x] #").unwrap(),
            vec![L("issue #42, #[x] #")]
        );
        assert_eq!(f("##{pane_id}").unwrap(), vec![L("#"), V("pane_id")]);
        for bad in ["#{E:x}", "#{?a,b,c}", "#{", "#{}", "#{a}#{s/a/b/:x}", "x\0"] {
            assert!(f(bad).is_err(), "{bad}");
        }
        assert!(f("#{E:x}").unwrap_err().contains("'#{E:x}'"));
    }

    #[test]
    fn counts() {
        assert_eq!(positive("max_lines", Some(3)).unwrap(), Some(3));
        assert_eq!(positive("max_lines", None).unwrap(), None);
        let e = positive("max_lines", Some(0)).unwrap_err().to_string();
        assert_eq!(e, "max_lines must be a positive number (received 0)");
        assert!(positive("limit", Some(-1)).is_err());
    }

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

    #[test]
    fn defaults() {
        let a: CapturePaneArgs = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(a.max_lines, Some(500));
        let a: CapturePaneArgs =
            serde_json::from_value(serde_json::json!({"max_lines": null})).unwrap();
        assert_eq!(a.max_lines, None);
        let a: SearchPanesArgs =
            serde_json::from_value(serde_json::json!({"pattern": "x"})).unwrap();
        assert_eq!(
            (a.max_matched_lines_per_pane, a.limit, a.offset),
            (50, Some(500), 0)
        );
        assert!(serde_json::from_value::<ServerArgs>(serde_json::json!({"bogus": 1})).is_err());
    }
}
