//! Tool arguments: libtmux-mcp's names, types and defaults, checked here
//! so that bad input gets a clear error and never reaches tmux.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::control::format::Part;
use crate::control::{PaneId, SessionId, WindowId};
use crate::tmux::{Error, Selector};

/// `filters` on the list tools: an object of `field__op` → value, or the
/// same object as a JSON string (some clients send that).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FiltersArg {
    /// `{"session_name__startswith": "dev"}`.
    Map(BTreeMap<String, serde_json::Value>),
    /// The same, as a JSON string.
    Json(String),
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

/// `list_sessions`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSessionsArgs {
    /// tmux socket name (`-L`); default: the server tmuxwire was started for.
    pub socket_name: Option<String>,
    /// Filter results, Django style: `{"session_name__contains": "dev"}`. Operators: exact, iexact,
    /// contains, icontains, startswith, istartswith, endswith, iendswith, regex, iregex, in, nin, eq.
    pub filters: Option<FiltersArg>,
}

/// `list_windows`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListWindowsArgs {
    /// Only this session's windows (exact name).
    pub session_name: Option<String>,
    /// Only this session's windows (`$N`).
    pub session_id: Option<String>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
    /// Filter results, Django style: `{"window_name__contains": "log"}`.
    pub filters: Option<FiltersArg>,
}

/// `list_panes`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPanesArgs {
    /// Only this session's panes (exact name).
    pub session_name: Option<String>,
    /// Only this session's panes (`$N`).
    pub session_id: Option<String>,
    /// Only this window's panes (`@N`).
    pub window_id: Option<String>,
    /// Only the panes of the window at this index in the session.
    pub window_index: Option<i64>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
    /// Filter results, Django style: `{"pane_current_command__eq": "vim"}`.
    pub filters: Option<FiltersArg>,
}

/// `get_server_info`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerArgs {
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// `get_session_info`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionArgs {
    /// Session id (`$N`).
    pub session_id: Option<String>,
    /// Session name (exact).
    pub session_name: Option<String>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// `get_window_info`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindowArgs {
    /// Window id (`@N`).
    pub window_id: Option<String>,
    /// Window index within the session.
    pub window_index: Option<i64>,
    /// Session name (exact).
    pub session_name: Option<String>,
    /// Session id (`$N`).
    pub session_id: Option<String>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// Pane targeting shared by the pane tools.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaneArgs {
    /// Pane id (`%N`). Without it: the active pane of the window or session given, else of the
    /// session a person used last.
    pub pane_id: Option<String>,
    /// Session name (exact).
    pub session_name: Option<String>,
    /// Session id (`$N`).
    pub session_id: Option<String>,
    /// Window id (`@N`).
    pub window_id: Option<String>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// `capture_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapturePaneArgs {
    /// Pane id (`%N`); default: the active pane.
    pub pane_id: Option<String>,
    /// Session name (exact).
    pub session_name: Option<String>,
    /// Session id (`$N`).
    pub session_id: Option<String>,
    /// Window id (`@N`).
    pub window_id: Option<String>,
    /// First line: 0 is the top of the visible screen, negative numbers reach into history
    /// (-1 is the newest history line). Default: top of the screen.
    pub start: Option<i64>,
    /// Last line, same numbering. Default: bottom of the screen.
    pub end: Option<i64>,
    /// Keep only the last N lines (the output then starts with "[... truncated K lines ...]").
    /// null: no limit. Must be ≥ 1.
    #[serde(default = "default_max_lines")]
    pub max_lines: Option<i64>,
    /// Join soft-wrapped rows into logical lines (tmux capture-pane -J), trailing blanks trimmed.
    #[serde(default)]
    pub join_wrapped: bool,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// `snapshot_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotPaneArgs {
    /// Pane id (`%N`); default: the active pane.
    pub pane_id: Option<String>,
    /// Session name (exact).
    pub session_name: Option<String>,
    /// Session id (`$N`).
    pub session_id: Option<String>,
    /// Window id (`@N`).
    pub window_id: Option<String>,
    /// Keep only the last N lines of content; null: all. Must be ≥ 1.
    #[serde(default = "default_max_lines")]
    pub max_lines: Option<i64>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// `display_message`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DisplayMessageArgs {
    /// Text with `#{variable}` references, e.g. `#{pane_current_command} in #{pane_current_path}`.
    /// Everything else is literal (`#`, `%`, `#(…)` included); modifiers like `#{E:…}` are refused.
    pub format_string: String,
    /// Pane id (`%N`); default: the active pane.
    pub pane_id: Option<String>,
    /// Session name (exact).
    pub session_name: Option<String>,
    /// Session id (`$N`).
    pub session_id: Option<String>,
    /// Window id (`@N`).
    pub window_id: Option<String>,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// `search_panes`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchPanesArgs {
    /// Text to find. Literal unless `regex` is true: every character, `\ [ * ? #{` included, means
    /// itself.
    pub pattern: String,
    /// Treat `pattern` as a regular expression (Rust regex syntax; `^`/`$` anchor each line; a
    /// match never spans lines).
    #[serde(default)]
    pub regex: bool,
    /// Case-sensitive matching (default: case-insensitive).
    #[serde(default)]
    pub match_case: bool,
    /// Only this session's panes (exact name).
    pub session_name: Option<String>,
    /// Only this session's panes (`$N`).
    pub session_id: Option<String>,
    /// First line to search (0 = top of the visible screen, negative = history). Default: the
    /// oldest scrollback line, so the whole scrollback and the screen are searched.
    pub content_start: Option<i64>,
    /// Last line to search, same numbering. Default: the bottom of the screen.
    pub content_end: Option<i64>,
    /// Matched lines returned per pane (the newest), ≥ 1.
    #[serde(default = "default_per_pane")]
    pub max_matched_lines_per_pane: i64,
    /// Panes per page, ≥ 1; null: all.
    #[serde(default = "default_limit")]
    pub limit: Option<i64>,
    /// Matching panes to skip (for the next page), ≥ 0.
    #[serde(default)]
    pub offset: i64,
    /// tmux socket name (`-L`).
    pub socket_name: Option<String>,
}

/// Parses an optional id argument.
fn id<T: std::str::FromStr<Err = crate::control::id::IdError>>(
    arg: &'static str,
    v: &Option<String>,
    example: &str,
) -> Result<Option<T>, Error> {
    match v {
        None => Ok(None),
        Some(s) => s
            .parse::<T>()
            .map(Some)
            .map_err(|e| Error::invalid(arg, format!("{arg}: {e}"), example)),
    }
}

/// A session name argument: must be non-empty and free of NUL.
fn name(arg: &'static str, v: &Option<String>) -> Result<Option<String>, Error> {
    match v {
        Some(s) if s.is_empty() || s.contains('\0') => Err(Error::invalid(
            arg,
            format!("{arg} must be a non-empty name without NUL bytes"),
            "an exact session name as list_sessions shows it",
        )),
        other => Ok(other.clone()),
    }
}

/// A window index: 0 … u32::MAX.
fn index(v: Option<i64>) -> Result<Option<u32>, Error> {
    match v {
        None => Ok(None),
        Some(i) => u32::try_from(i).map(Some).map_err(|_| {
            Error::invalid(
                "window_index",
                format!(
                    "window_index must be between 0 and {} (received {i})",
                    u32::MAX
                ),
                "a window index from list_windows",
            )
        }),
    }
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
        Some(n) => Ok(Some(n.min(crate::tmux::search::MAX_LINE_ARG))),
        None => Ok(None),
    }
}

/// Builds a selector from the shared targeting arguments.
pub fn selector(
    pane_id: &Option<String>,
    window_id: &Option<String>,
    window_index: Option<i64>,
    session_id: &Option<String>,
    session_name: &Option<String>,
) -> Result<Selector, Error> {
    Ok(Selector {
        pane_id: id::<PaneId>("pane_id", pane_id, "a pane id like %3 (see list_panes)")?,
        window_id: id::<WindowId>(
            "window_id",
            window_id,
            "a window id like @2 (see list_windows)",
        )?,
        window_index: index(window_index)?,
        session_id: id::<SessionId>(
            "session_id",
            session_id,
            "a session id like $1 (see list_sessions)",
        )?,
        session_name: name("session_name", session_name)?,
    })
}

/// Turns a `display_message` format into the tmux format to expand:
/// `#{name}` references (name = `[A-Za-z_@][A-Za-z0-9_-]*`) are kept, and
/// every other `#` is literal text (written `##` for tmux). Other format
/// syntax inside `#{…}` (modifiers such as `#{E:…}`, conditionals) is
/// refused: it could expand a value a second time or run a job.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for `#{…}` that is not a plain reference, an
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
    fn ids() {
        let s = selector(
            &Some("%3".into()),
            &None,
            Some(2),
            &Some("$1".into()),
            &None,
        )
        .unwrap();
        assert_eq!(s.pane_id, Some(PaneId(3)));
        assert!(selector(&Some("3".into()), &None, None, &None, &None).is_err());
        assert!(selector(&None, &Some("%3".into()), None, &None, &None).is_err());
        assert!(selector(&None, &None, Some(-1), &None, &None).is_err());
        assert!(selector(&None, &None, None, &None, &Some(String::new())).is_err());
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
