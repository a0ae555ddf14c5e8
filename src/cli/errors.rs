//! tmuxwire's errors in the command line's words.
//!
//! Operations fail with a typed [`Error`]: a kind, the subject and the
//! argument it concerns, and tmux's or tmuxwire's own words for what was
//! found. This is where the CLI says it for the person at the terminal:
//! the message as the error states it, the flag that sets the argument
//! when one does, and a hint that names CLI commands and flags (MCP's
//! hints, which name tools, are written in `mcp::errors`).

use std::fmt;

use crate::tmux::{Error, ErrorKind};

/// An error for the person at the terminal: printed as `tmuxwire: MESSAGE`,
/// then the hint on a line of its own. Exit code 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError {
    /// What went wrong, in CLI words.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl CliError {
    /// An error without a hint.
    pub fn new(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            hint: None,
        }
    }

    /// This error with a hint.
    #[must_use = "this returns a new error and leaves `self` unchanged"]
    pub fn hint(self, hint: impl Into<String>) -> CliError {
        CliError {
            hint: Some(hint.into()),
            ..self
        }
    }

    /// Prints the error on stderr.
    pub fn print(&self) {
        eprintln!("tmuxwire: {self}");
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n{h}")?;
        }
        Ok(())
    }
}

/// The hint for a target that does not exist.
pub const PANES_HINT: &str = "Run `tmuxwire panes` to see every pane; -t takes what it prints (%N or \
     session:window.pane), @N, $N, a session name (exact, or =name), or session:window.";

/// The flag that sets a request's argument, for the arguments a command
/// line can set.
fn flag_of(argument: &str) -> Option<&'static str> {
    Some(match argument {
        "max_matched_lines_per_pane" => "-m/--max-count",
        "content_start" | "start" => "-S/--start",
        "content_end" | "end" => "-E/--end",
        "max_lines" => "--max-lines",
        "pattern" => "PATTERN",
        "pane_id" | "window_id" | "window_index" | "session_id" | "session_name" => "-t",
        "socket_name" => "-L/--socket-name",
        "socket_path" => "-S/--socket-path",
        "timeout" => "--timeout",
        "keys" | "text" => "TEXT",
        _ => return None,
    })
}

/// What to do next, for a person at a shell.
fn hint(e: &Error) -> Option<String> {
    Some(match e.kind() {
        ErrorKind::NotFound => PANES_HINT.to_string(),
        ErrorKind::InvalidArgument => return e.accepted().map(|a| format!("Expected {a}.")),
        ErrorKind::NoServer => format!(
            "Start tmux on that socket (tmux new -d), or choose the server with -L/--socket-name \
             or -S/--socket-path (or TMUXWIRE_SOCKET_NAME/TMUXWIRE_SOCKET_PATH; tried {}).",
            e.socket()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ),
        ErrorKind::SocketGone => "tmux recreates its socket when its server process gets SIGUSR1 \
             (`kill -USR1 <server pid>`), or pass the socket's new path with -S."
            .to_string(),
        ErrorKind::AccessDenied => "Run tmuxwire as the user who started the tmux server, or have \
             that user run `tmux server-access -a <your user>`."
            .to_string(),
        ErrorKind::Unsupported => "tmuxwire needs tmux 3.2 or newer.".to_string(),
        ErrorKind::Connection => {
            "Run the command again; tmuxwire opens a new connection to tmux.".to_string()
        }
        ErrorKind::Timeout => "The tmux server may be stopped, blocked or busy with a very large \
             capture; try again later or check the server."
            .to_string(),
        ErrorKind::Pattern => {
            "Leave out -e/-E (or add -F) to search for the text literally, or fix the regex."
                .to_string()
        }
        ErrorKind::ServerGone => "The tmux server exited.".to_string(),
        ErrorKind::Internal => {
            "This is a fault in tmuxwire, not in the command; run it again, and report it if it \
             persists."
                .to_string()
        }
        _ => return None,
    })
}

/// `e` for the person at the terminal.
pub fn cli_error(e: &Error) -> CliError {
    let message = match e.argument().and_then(flag_of) {
        Some(flag) if e.is(ErrorKind::InvalidArgument) => format!("{flag}: {e}"),
        _ => e.to_string(),
    };
    CliError {
        message,
        hint: hint(e),
    }
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        cli_error(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of MCP that a CLI hint must not contain.
    const MCP_WORDS: &[&str] = &[
        "list_sessions",
        "list_panes",
        "list_windows",
        "capture_pane",
        "search_panes",
        "socket_name",
        "regex=",
        "Retry the call",
        "Call ",
    ];

    #[test]
    fn hints_speak_cli() {
        for e in [
            Error::not_found("can't find pane: %99"),
            Error::no_server("/tmp/x"),
            Error::connection("connection closed"),
            Error::new(ErrorKind::Pattern, "invalid regex pattern: x"),
            Error::timeout("tmux did not answer within 5s"),
            Error::internal("the scan of %1 panicked"),
        ] {
            let cli = cli_error(&e).to_string();
            for w in MCP_WORDS {
                assert!(!cli.contains(w), "{w:?} in {cli:?}");
            }
        }
        let e = cli_error(&Error::no_server("/tmp/x"));
        assert_eq!(e.message, "no tmux server running on /tmp/x");
        assert!(e.hint.is_some_and(|h| h.contains("/tmp/x")));
        let e = cli_error(&Error::invalid(
            "max_lines",
            "must be ≥ 1 (received 0)",
            "max lines ≥ 1",
        ));
        assert_eq!(e.message, "--max-lines: must be ≥ 1 (received 0)");
    }

    #[test]
    fn hint_on_its_own_line() {
        let e = CliError::new("-t x: no such session").hint("Run it.");
        assert_eq!(e.to_string(), "-t x: no such session\nRun it.");
    }
}
