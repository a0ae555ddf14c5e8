//! Tool arguments: libtmux-mcp's names, types and defaults, checked here
//! so that bad input gets a clear error and never reaches tmux.
//!
//! Field docs become the argument descriptions clients show a model (see
//! [`super::schema`]): short, plain text, no Rust names. The targeting
//! arguments are written in by [`args!`](super::targeting::args), whose
//! docs are for Rust readers only ([`super::targeting`]).
//!
//! Values are read leniently first ([`super::lenient`]).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::control::format::Part;
use crate::mcp::targeting::args;
use crate::tmux::Error;

pub use crate::tmux::op::FiltersArg;
pub use crate::tmux::op::create::{Place, SplitDirection};
pub use crate::tmux::op::info::Corner;
pub use crate::tmux::op::manage::{PaneDirection, WindowDirection};

pub use crate::mcp::tools::execute::{
    CreateSessionArgs, CreateWindowArgs, PasteBufferArgs, PasteTextArgs, PipePaneArgs,
    RespawnPaneArgs, SendKeysArgs, SendKeysBatchArgs, SendKeysOperation, SetEnvironmentArgs,
    SetOptionArgs, SizeArg, SplitWindowArgs,
};
pub use crate::mcp::tools::hosts::ListHostsArgs;
pub use crate::mcp::tools::inspect::{
    BatchArgs, FindPaneArgs, ListServersArgs, Operation, ShowBufferArgs, ShowEnvironmentArgs,
    ShowHookArgs, ShowHooksArgs, ShowOptionArgs,
};
pub use crate::mcp::tools::manage::{
    EnterCopyModeArgs, ExitCopyModeArgs, LoadBufferArgs, MoveWindowArgs, RenameSessionArgs,
    RenameWindowArgs, ResizePaneArgs, ResizeWindowArgs, SelectLayoutArgs, SelectPaneArgs,
    SelectWindowArgs, SetPaneTitleArgs, SignalChannelArgs, SwapPaneArgs, WaitForChannelArgs,
};
pub use crate::mcp::tools::teardown::{
    ClearPaneArgs, DeleteBufferArgs, KillPaneArgs, KillServerArgs, KillSessionArgs, KillWindowArgs,
};
pub use crate::mcp::tools::waits::{
    CaptureSinceArgs, PollEventsArgs, RunCommandArgs, WaitForCommandArgs, WaitForStableArgs,
    WaitForTextArgs,
};

/// A tool's argument struct, named by its tool: serialized, it is the
/// `arguments` object a client sends in `tools/call` (an `Option` left
/// out when `None`, as a client leaves it out; a field with a default of
/// its own sent as it is, `null` for `None`). Tests build calls with it
/// (`CapturePaneArgs { pane_id: Some(p), ..Default::default() }`), so a
/// renamed or mistyped argument does not compile. Each tool's row checks
/// its name against its argument type's ([`super::tools`]).
pub trait ToolCall: Serialize {
    /// The tool's name, as `tools/list` sends it.
    const NAME: &'static str;
}

/// `impl ToolCall` for each `Args => "tool_name"`.
macro_rules! tool_calls {
    ($($args:ty => $name:literal,)*) => {
        $(impl ToolCall for $args {
            const NAME: &'static str = $name;
        })*
    };
}

tool_calls! {
    ListSessionsArgs => "list_sessions",
    ListWindowsArgs => "list_windows",
    ListPanesArgs => "list_panes",
    ServerArgs => "get_server_info",
    SessionArgs => "get_session_info",
    WindowArgs => "get_window_info",
    PaneArgs => "get_pane_info",
    PaneStateArgs => "get_pane_state",
    ListCommandsArgs => "list_commands",
    CommandOutputArgs => "get_command_output",
    CapturePaneArgs => "capture_pane",
    SnapshotPaneArgs => "snapshot_pane",
    DisplayMessageArgs => "display_message",
    SearchPanesArgs => "search_panes",
    ListServersArgs => "list_servers",
    ListHostsArgs => "list_hosts",
    ShowOptionArgs => "show_option",
    ShowEnvironmentArgs => "show_environment",
    ShowBufferArgs => "show_buffer",
    ShowHooksArgs => "show_hooks",
    ShowHookArgs => "show_hook",
    FindPaneArgs => "find_pane_by_position",
    BatchArgs => "call_read_tools_batch",
    RenameSessionArgs => "rename_session",
    RenameWindowArgs => "rename_window",
    SelectWindowArgs => "select_window",
    SelectPaneArgs => "select_pane",
    SelectLayoutArgs => "select_layout",
    ResizeWindowArgs => "resize_window",
    ResizePaneArgs => "resize_pane",
    MoveWindowArgs => "move_window",
    SwapPaneArgs => "swap_pane",
    SetPaneTitleArgs => "set_pane_title",
    EnterCopyModeArgs => "enter_copy_mode",
    ExitCopyModeArgs => "exit_copy_mode",
    LoadBufferArgs => "load_buffer",
    WaitForChannelArgs => "wait_for_channel",
    SignalChannelArgs => "signal_channel",
    CreateSessionArgs => "create_session",
    CreateWindowArgs => "create_window",
    SplitWindowArgs => "split_window",
    SendKeysArgs => "send_keys",
    SendKeysBatchArgs => "send_keys_batch",
    PasteTextArgs => "paste_text",
    PasteBufferArgs => "paste_buffer",
    RespawnPaneArgs => "respawn_pane",
    PipePaneArgs => "pipe_pane",
    SetOptionArgs => "set_option",
    SetEnvironmentArgs => "set_environment",
    KillServerArgs => "kill_server",
    KillSessionArgs => "kill_session",
    KillWindowArgs => "kill_window",
    KillPaneArgs => "kill_pane",
    ClearPaneArgs => "clear_pane",
    DeleteBufferArgs => "delete_buffer",
    WaitForTextArgs => "wait_for_text",
    WaitForCommandArgs => "wait_for_command",
    WaitForStableArgs => "wait_for_stable",
    PollEventsArgs => "poll_events",
    CaptureSinceArgs => "capture_since",
    RunCommandArgs => "run_command",
}

/// What `args` (the required arguments, empty) reads as: the arguments a
/// client that sends no others gets, each default as serde declares it.
fn defaulted<T: DeserializeOwned>(args: serde_json::Value) -> T {
    serde_json::from_value(args).unwrap_or_else(|e| panic!("argument defaults: {e}"))
}

/// `impl Default` for the argument structs with a default of their own
/// (`#[serde(default = "…")]`, which `derive(Default)` would not follow)
/// or a required field without one (`corner`): each `Args => {required
/// arguments, empty}` reads as [`defaulted`].
macro_rules! defaults {
    ($($args:ty => $required:tt,)*) => {
        $(impl Default for $args {
            fn default() -> Self {
                defaulted(serde_json::json!($required))
            }
        })*
    };
}

defaults! {
    CapturePaneArgs => {},
    SnapshotPaneArgs => {},
    SearchPanesArgs => {"pattern": ""},
    ShowBufferArgs => {"buffer_name": ""},
    WaitForChannelArgs => {"channel": ""},
    SendKeysArgs => {"keys": ""},
    SendKeysOperation => {"keys": ""},
    PasteTextArgs => {"text": ""},
    PasteBufferArgs => {"buffer_name": ""},
    RespawnPaneArgs => {"pane_id": ""},
    PipePaneArgs => {},
    WaitForTextArgs => {},
    WaitForCommandArgs => {},
    WaitForStableArgs => {},
    CaptureSinceArgs => {},
    RunCommandArgs => {"command": ""},
    FindPaneArgs => {"corner": "top-left"},
}

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
        @fenced,
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
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
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
#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
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
        @fenced,
    }
}

/// `environment`: `{"NAME": "value"}`, or the same object as a JSON
/// string (some clients send that).
#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
#[serde(untagged)]
pub enum EnvArg {
    /// `{"EDITOR": "vim"}`.
    Map(BTreeMap<String, serde_json::Value>),
    /// The same, as a JSON string.
    Json(String),
}

/// What a batch does after an operation fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Run nothing after it.
    #[default]
    Stop,
    /// Run the rest.
    Continue,
}

impl OnError {
    /// The default: a call that sends it is the call that leaves it out
    /// (and its schema names no default, as before it was serialized).
    #[must_use]
    pub fn is_stop(&self) -> bool {
        *self == OnError::Stop
    }
}

/// Which table an option or hook lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, Serialize)]
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

    /// A typed call serializes to the arguments a client sends: `None`s left
    /// out, a field with a default of its own as it is (`null`: no limit),
    /// and what it reads back is the same call.
    #[test]
    fn serialized_as_a_client_sends() {
        use serde_json::json;
        fn sent<T: ToolCall>(a: &T) -> serde_json::Value {
            serde_json::to_value(a).unwrap()
        }
        let c = CapturePaneArgs {
            pane_id: Some("%3".into()),
            start: Some(-5),
            ..Default::default()
        };
        assert_eq!(
            sent(&c),
            json!({"pane_id": "%3", "start": -5, "max_lines": 500, "join_wrapped": false})
        );
        let c = CapturePaneArgs {
            max_lines: None,
            ..Default::default()
        };
        assert_eq!(sent(&c)["max_lines"], json!(null));
        let again: CapturePaneArgs = serde_json::from_value(sent(&c)).unwrap();
        assert_eq!(again.max_lines, None);
        assert_eq!(sent(&KillSessionArgs::default()), json!({}));
        let k = SendKeysArgs {
            keys: "ls".into(),
            ..Default::default()
        };
        assert!(k.enter, "send_keys presses Enter by default");
        assert_eq!(SearchPanesArgs::default().max_matched_lines_per_pane, 50);
        assert_eq!(
            sent(&BatchArgs::default()),
            json!({"operations": []}),
            "on_error: stop is left out"
        );
        // Every default of its own reads (defaulted does not panic).
        let _ = (
            SnapshotPaneArgs::default(),
            ShowBufferArgs::default(),
            WaitForChannelArgs::default(),
            SendKeysOperation::default(),
            PasteTextArgs::default(),
            PasteBufferArgs::default(),
            RespawnPaneArgs::default(),
            PipePaneArgs::default(),
            WaitForTextArgs::default(),
            WaitForCommandArgs::default(),
            WaitForStableArgs::default(),
            CaptureSinceArgs::default(),
            RunCommandArgs::default(),
            FindPaneArgs::default(),
        );
        assert_eq!(
            (CapturePaneArgs::NAME, RunCommandArgs::NAME),
            ("capture_pane", "run_command")
        );
    }
}
