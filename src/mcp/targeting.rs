//! The targeting arguments every tool shares: libtmux-mcp's `pane_id`,
//! `session_name`, `session_id`, `window_id` and `window_index`, and the
//! server's `socket_name` (`-L`) and `socket_path` (`-S`). They are
//! declared once, here: [`args!`] writes them into each tool's argument
//! struct, and [`selector`] reads them into a [`Selector`], refusing a
//! malformed id before anything reaches tmux.
//!
//! Their docs are for Rust readers only: the server instructions explain
//! them once for every tool ([`super::tools`] leaves their descriptions
//! out of the input schemas).

use crate::control::{PaneId, SessionId, WindowId};
use crate::tmux::{Error, Selector};

/// An argument struct whose targeting fields, and the few other fields
/// several tools take with one meaning and one doc, are written in by
/// marker, where they stand (the schema lists fields in declaration order, so a
/// marker keeps a tool's argument order):
///
/// * `@pane,`: `pane_id`, `session_name`, `session_id`, `window_id`;
/// * `@window,`: `window_id`, `window_index`, `session_name`, `session_id`;
/// * `@session,`: `session_name`, `session_id`;
/// * `@socket,`: `socket_name`, `socket_path`;
/// * `@table,`: the options or hooks table of `show_option`, `set_option`,
///   `show_hooks` and `show_hook`: `scope` (`Option<ScopeArg>`), `target`
///   (`Option<String>`), `global_` (`bool`, default `false`), without
///   docs (the tools' descriptions explain them once);
/// * `@pane_id,`, `@window_id,`, `@window_index,`, `@session_name,`,
///   `@session_id,`: one of them;
/// * `@size,`: `height` and `width` (`Option<i64>`, rows and columns), of
///   `resize_window` and `resize_pane`;
/// * `@timeout = "default_fn",`: a wait's `timeout` (`f64`, seconds,
///   default `default_fn()`), of the waits, `run_command` and
///   `wait_for_channel` (the wait ceiling clamps it, which the
///   instructions explain once);
/// * `@buffer_name,`: `buffer_name` (`String`, a name `load_buffer`
///   returned), of the tools that read, paste or delete a buffer;
/// * `@channel,`: `channel` (`String`), of `wait_for_channel` and
///   `signal_channel`;
/// * `@fenced,`: `fenced` (`Option<bool>`), for the rows that answer from
///   the pane mirror ([`fenced_field`](crate::mcp::tools::hosts::fenced_field)).
///
/// Every struct ends with `host` (`Option<String>`,
/// [`host_field`](crate::mcp::tools::hosts::host_field)), but one that
/// starts `args! { @item …`: an item of a list argument
/// (`send_keys_batch`'s operations), whose call names the host. `host` and
/// `fenced` are left out of the schema: the catalog adds them only when
/// hosts are configured (`hosts::add_host_arg`), so the default
/// `tools/list` stays libtmux-mcp's.
///
/// Each is `Option<String>` (`window_index`: `Option<i64>`), `pub`. The
/// struct is `#[serde(deny_unknown_fields)]`: serde's `flatten` would
/// accept any argument, so the fields are written out instead. Other
/// fields are written as usual, each ending in a comma.
///
/// The struct also derives `Serialize`, as the arguments a client sends
/// ([`super::args::ToolCall`]): an `Option` field is left out when
/// `None`, but one with a default of its own (`#[serde(default = "…")]`
/// right after its docs) is sent as it is. Fields without docs are
/// explained by the tool's description (`allow(missing_docs)`).
///
/// ```ignore
/// args! {
///     /// `kill_session`.
///     #[derive(Clone, Debug, Deserialize, JsonSchema)]
///     struct KillSessionArgs {
///         @session,
///         @socket,
///     }
/// }
/// ```
macro_rules! args {
    (@munch $head:tt $tail:tt [$($done:tt)*] @pane, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            @pane_id, @session_name, @session_id, @window_id, $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @window, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            @window_id, @window_index, @session_name, @session_id, $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @session, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            @session_name, @session_id, $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @socket, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// tmux socket name (-L).
            pub socket_name: Option<String>,
            /// tmux socket path (-S).
            pub socket_path: Option<String>,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @table, $($rest:tt)*) => {
        // No docs: show_option's description explains them once.
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            pub scope: Option<$crate::mcp::args::ScopeArg>,
            pub target: Option<String>,
            #[serde(default)]
            pub global_: bool,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @size, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Rows.
            pub height: Option<i64>,
            /// Columns.
            pub width: Option<i64>,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @timeout = $default:literal, $($rest:tt)*) => {
        // Clamped to the wait ceiling, which the instructions explain once.
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Seconds.
            #[serde(default = $default)]
            pub timeout: f64,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @buffer_name, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// A name load_buffer returned.
            pub buffer_name: String,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @channel, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// 1-128 of A-Z a-z 0-9 _ . : -
            pub channel: String,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @pane_id, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Pane id (%N). Default: the active pane (of the window or session given).
            pub pane_id: Option<String>,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @window_id, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Window id (@N).
            pub window_id: Option<String>,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @window_index, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Window index in the session.
            pub window_index: Option<i64>,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @session_name, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Session name (exact).
            pub session_name: Option<String>,
            $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @session_id, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*]
            /// Session id ($N).
            pub session_id: Option<String>,
            $($rest)*);
    };
    // A field with a default of its own is sent as it is, `None` as
    // `null` (`max_lines: null`: no limit); another `Option` is left out
    // when `None`, as a client leaves it out.
    (@munch $head:tt $tail:tt [$($done:tt)*] $(#[doc = $doc:literal])*
        #[serde(default = $default:literal)] $fvis:vis $field:ident : $ty:ty, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*
            $(#[doc = $doc])* #[serde(default = $default)] $fvis $field: $ty,
        ] $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*]
        $(#[$fm:meta])* $fvis:vis $field:ident : Option<$ty:ty>, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*
            $(#[$fm])* #[serde(skip_serializing_if = "Option::is_none")]
            $fvis $field: Option<$ty>,
        ] $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*]
        $(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*
            $(#[$fm])* $fvis $field: $ty,
        ] $($rest)*);
    };
    (@munch $head:tt $tail:tt [$($done:tt)*] @fenced, $($rest:tt)*) => {
        $crate::mcp::targeting::args!(@munch $head $tail [$($done)*
            /// `fenced: false`: the mirror's copies as they are.
            #[serde(default, deserialize_with = "crate::mcp::tools::hosts::fenced_field")]
            #[serde(skip_serializing_if = "Option::is_none")]
            #[schemars(skip)]
            pub fenced: Option<bool>,
        ] $($rest)*);
    };
    (@munch [$($head:tt)*] [$($tail:tt)*] [$($done:tt)*]) => {
        $($head)* { $($done)* $($tail)* }
    };
    (@entry $tail:tt $(#[$m:meta])* $vis:vis struct $name:ident { $($body:tt)* }) => {
        $crate::mcp::targeting::args!(@munch
            [$(#[$m])* #[derive(serde::Serialize)] #[serde(deny_unknown_fields)]
             #[allow(missing_docs)] $vis struct $name]
            $tail [] $($body)*);
    };
    // One item of a list argument (`send_keys_batch`'s operations): no
    // `host` of its own.
    (@item $($item:tt)*) => {
        $crate::mcp::targeting::args!(@entry [] $($item)*);
    };
    ($($item:tt)*) => {
        $crate::mcp::targeting::args!(@entry [
            /// The host the call runs on (`--host`; `None`: this machine).
            #[serde(default, deserialize_with = "crate::mcp::tools::hosts::host_field")]
            #[serde(skip_serializing_if = "Option::is_none")]
            #[schemars(skip)]
            pub host: Option<String>,
        ] $($item)*);
    };
}
pub(crate) use args;

/// Parses an optional id argument.
fn id<T: std::str::FromStr<Err = crate::control::id::IdError>>(
    arg: &'static str,
    v: &Option<String>,
    example: &str,
) -> Result<Option<T>, Error> {
    v.as_deref()
        .map(|s| required_id(arg, s, example))
        .transpose()
}

/// Parses the required id argument `arg` (`%N`, `@N` or `$N`, as `T`
/// is): a malformed one is [`Error::invalid`], `example` saying what is
/// accepted.
pub(crate) fn required_id<T: std::str::FromStr<Err = crate::control::id::IdError>>(
    arg: &'static str,
    s: &str,
    example: &str,
) -> Result<T, Error> {
    s.parse::<T>()
        .map_err(|e| Error::invalid(arg, format!("{arg}: {e}"), example))
}

/// The required pane id argument `arg` (`%N`), as [`required_id`] reads
/// it.
pub(crate) fn pane_id(arg: &'static str, s: &str) -> Result<PaneId, Error> {
    required_id(arg, s, "a pane id like %3")
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

/// Builds a selector from the shared targeting arguments.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument)
/// naming the argument: an id without its sigil (`%`, `@`, `$`), a
/// window index outside `0..=u32::MAX`, an empty session name or one
/// holding NUL.
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

/// The libtmux-mcp targeting arguments of one call ([`targeting!`]).
pub(crate) struct Targeting<'a> {
    pub(crate) pane_id: &'a Option<String>,
    pub(crate) window_id: &'a Option<String>,
    pub(crate) window_index: Option<i64>,
    pub(crate) session_id: &'a Option<String>,
    pub(crate) session_name: &'a Option<String>,
}

impl Targeting<'_> {
    /// The object they name ([`selector`]).
    ///
    /// # Errors
    ///
    /// As [`selector`].
    pub(crate) fn selector(&self) -> Result<Selector, Error> {
        selector(
            self.pane_id,
            self.window_id,
            self.window_index,
            self.session_id,
            self.session_name,
        )
    }
}

/// Targeting from an args struct's fields; missing kinds are `None`.
macro_rules! targeting {
    ($a:expr $(, $field:ident)*) => {{
        #[allow(unused_mut)]
        let mut t = $crate::mcp::targeting::Targeting {
            pane_id: &None,
            window_id: &None,
            window_index: None,
            session_id: &$a.session_id,
            session_name: &$a.session_name,
        };
        $($crate::mcp::targeting::targeting!(@set t, $a, $field);)*
        t
    }};
    (@set $t:ident, $a:expr, pane_id) => { $t.pane_id = &$a.pane_id; };
    (@set $t:ident, $a:expr, window_id) => { $t.window_id = &$a.window_id; };
    (@set $t:ident, $a:expr, window_index) => { $t.window_index = $a.window_index; };
}
pub(crate) use targeting;

#[cfg(test)]
mod tests {
    use super::*;

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
}
