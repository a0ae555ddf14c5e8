//! tmuxwire's errors in the command line's words.
//!
//! Operations fail with a typed [`Error`] (a kind, the subject and the
//! argument it concerns, tmux's own text); this is where the CLI says it
//! for the person at the terminal, with the flag that sets the argument
//! and a hint that names CLI commands.

use super::tool::{CliError, ToolError};
use crate::tmux::Error;

/// `e` for the person at the terminal.
pub fn cli_error(e: &Error) -> CliError {
    ToolError::from_error(e).into_cli()
}

impl From<Error> for CliError {
    fn from(e: Error) -> CliError {
        cli_error(&e)
    }
}
