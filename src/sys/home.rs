//! A private home for the tmux servers tmuxwire's demo and benches start,
//! so that no shell or program in their panes keeps history (or anything
//! else) in the files of the user who runs them.

use std::path::Path;
use std::process::Command;

/// Gives `cmd` (a tmux that starts a private server, whose panes inherit
/// its environment) the home `home`: `HOME` and the XDG base directories
/// there, and none of the variables that name a file of the user's
/// elsewhere (`HISTFILE` and every other `…HIST…`, `ENV`, `BASH_ENV`,
/// `PROMPT_COMMAND`). Where `/bin/sh` is bash (Fedora, Arch), a shell pane
/// is an interactive bash, which writes what was typed to `$HISTFILE` or
/// `~/.bash_history` when the server ends. `home` need not exist.
pub fn isolate<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    for k in ["ENV", "BASH_ENV", "PROMPT_COMMAND"] {
        cmd.env_remove(k);
    }
    for (k, _) in std::env::vars_os() {
        if k.as_encoded_bytes().windows(4).any(|w| w == b"HIST") {
            cmd.env_remove(k);
        }
    }
    cmd
}
