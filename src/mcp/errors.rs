//! tmux-layer errors as a model reads them: the message, `_meta`'s
//! `error_type` and `expected`, and a suggestion in the tools' own words
//! (tool and argument names), which the domain errors never carry.

use crate::tmux::{Error, ErrorKind};

/// What to do next, in MCP terms, when there is a useful hint.
pub fn suggestion(e: &Error) -> Option<String> {
    let hint = match e.kind() {
        ErrorKind::NotFound if e.argument() == Some("index") => {
            "Call list_commands for the pane's command indexes. A shell without shell \
             integration (OSC 133/633 marks) has none: use run_command, or set up the shell's \
             integration."
        }
        ErrorKind::NotFound => {
            "Call list_sessions / list_windows / list_panes to discover valid ids, and target by \
             id ($N session, @N window, %N pane)."
        }
        ErrorKind::InvalidArgument => {
            return e.accepted().map(|a| format!("Expected {a}."));
        }
        ErrorKind::NoServer => {
            return Some(format!(
                "Start tmux on that socket, or point tmuxwire at the right one with socket_name, \
                 -L/--socket-name, -S/--socket-path, or TMUXWIRE_SOCKET_NAME/TMUXWIRE_SOCKET_PATH \
                 (tried {}).",
                e.socket()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ));
        }
        ErrorKind::SocketGone => {
            "tmux recreates its socket when its server process gets SIGUSR1 (`kill -USR1 <server \
             pid>`), or point tmuxwire at the socket's new path."
        }
        ErrorKind::AccessDenied => {
            "Run tmuxwire as the user who started the tmux server, or have that user run `tmux \
             server-access -a <your user>`."
        }
        ErrorKind::Unsupported => "tmuxwire needs tmux 3.2 or newer.",
        ErrorKind::Connection => "Retry the call; tmuxwire opens a new connection to tmux.",
        ErrorKind::Timeout => {
            "The tmux server may be stopped, blocked or busy with a very large capture; retry \
             later or check the server."
        }
        ErrorKind::Pattern => {
            "Pass regex=false to search for the text literally, or fix the pattern."
        }
        ErrorKind::Tmux => return None,
        ErrorKind::WaitTimeout => {
            "Call again to keep waiting, or check that something signals it (signal_channel, or \
             `tmux wait-for -S` in the command you ran)."
        }
        ErrorKind::ServerGone => {
            "The tmux server exited; nothing was signalled. Start it again or choose another \
             server."
        }
        ErrorKind::NoBuffer => {
            "The buffer may have been deleted (delete_buffer, or by tmux when it keeps no more \
             than buffer-limit buffers); make a new one with load_buffer."
        }
        ErrorKind::PasswordInput => {
            "The pane's program is reading a password (its terminal does not echo). Nothing was \
             typed. Send it only a secret the user gave for this prompt, with \
             allow_password_input=true; get_pane_state shows the pane's input state."
        }
        ErrorKind::SelfTarget => {
            "This MCP server runs inside that tmux object; use a manual tmux command if that is \
             really intended."
        }
        ErrorKind::Internal => {
            "This is a fault in tmuxwire, not in the request; retry, and report it if it \
             persists."
        }
        ErrorKind::AuthRequired | ErrorKind::HostKey => {
            "Ask the user to run the ssh command above once in a terminal; tmuxwire never \
             prompts. Then call again. list_hosts shows each host's state."
        }
        ErrorKind::HostUnreachable => {
            "The host or its link is down; tmuxwire reconnects on the next call (list_hosts shows \
             each host's state). tmux on the host keeps its panes and their output meanwhile."
        }
        ErrorKind::TmuxNotFound => "Install tmux on that host, or pass host: \"local\".",
        ErrorKind::HostSessionLimit => {
            "Work with fewer sessions of that host at once, or raise MaxSessions in the host's \
             sshd_config."
        }
    };
    Some(hint.to_string())
}
