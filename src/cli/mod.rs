//! The `tmuxwire` command line: `panes`, `capture` and `search` feel like
//! tmux and grep, and `mcp` serves the tools. Every command builds the
//! typed requests of [`crate::tmux::op`] from its flags and runs them
//! with the same `run` the MCP tools call, so what a person sees is what a
//! model gets: `panes` and target resolution the listings, `send` and
//! `wait` the typing and follow operations (`wait` without the tools'
//! wait ceiling), errors said in CLI words by [`errors`];
//! `capture` and `search` read panes with one-shot clients of tmux's
//! protocol (whole scrollbacks, streamed or scanned as one buffer, with no
//! response budget: a shell is not a model's context window).
//!
//! # Layout
//!
//! * this module: the entry point and the dispatch; `args`: the flags
//!   (clap);
//! * `target`: `-t` in tmux's syntax (`%N`, `@N`, `$N`, `=name`,
//!   `session:window.pane`), parsed and resolved (pure) against
//!   `list_panes`;
//! * `search`: grep's flags; `source`: where it gets each pane's logical
//!   lines with their tmux line numbers (a copy of each pane, the MCP
//!   server's kind, behind [`source::LineSource`]); `grep`: selecting and printing lines over a
//!   pane's buffer (pure);
//! * `capture`: `panes` and `capture` (a one-shot client's
//!   `capture-pane -p`, streamed to stdout); `send`: text and keys into a
//!   pane; `wait`: until a pane prints a pattern;
//! * `output`: escaping, colour, a stdout that survives a closed pipe;
//! * `errors`: the typed errors of the operations, in CLI words;
//! * `demo`: what tmuxwire does, shown and checked on a private server;
//! * `manual`: `completions` and `man`, generated from `args`.

mod args;
mod capture;
mod demo;
mod errors;
mod events;
mod grep;
mod hosts;
pub mod manual;
mod output;
mod search;
mod send;
pub mod source;
mod target;
mod wait;

/// For the fuzz target `cli_target` (`fuzz/`): the `-t` reader's checks.
#[doc(hidden)]
pub use target::fuzz_parse as fuzz_target;

/// `println!` that never panics: output to a closed pipe (`tmuxwire demo
/// | head -1`) is dropped instead of aborting the program, which may
/// still have a private tmux server to clean up.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, $($arg)*);
    }};
}
pub(crate) use say;

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use crate::mcp;
use crate::tmux::{Caller, Server, Servers};
use crate::wire::SocketSpec;
pub use args::{
    CaptureArgs, Cli, Cmd, EventsArgs, LineArg, RedactArgs, SearchArgs, SendArgs, SocketArgs,
    TESTED_TMUX, VERSION, WaitArgs,
};
pub use output::ColorChoice;

/// The log filter when `TMUXWIRE_LOG` is not set: warnings, except rmcp's
/// service loop below errors. That loop logs a warning for every error it
/// answers a request with (service.rs: "response error", "rejected peer
/// request"), such as a `resources/read` of a session that does not exist:
/// answers the client gets anyway and that are no fault of the server, so
/// on stderr, which MCP clients show as the server's log, they only look
/// like one. tmuxwire's own warnings and rmcp's other targets stay.
const DEFAULT_LOG_FILTER: &str = "warn,rmcp::service=error";

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TMUXWIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    // No colour codes unless stderr is a terminal (MCP clients read it as a log).
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .try_init();
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    init_logging();
    let cli = Cli::parse();
    // Generated from the flag definitions alone: no tmux server, no runtime.
    match &cli.command {
        Cmd::Completions { shell } => return manual::completions(*shell),
        Cmd::Man { dir } => return manual::man(dir.as_deref()),
        _ => {}
    }
    // Scans run on the blocking pool (one thread each while they run): it
    // is bounded, and its idle threads end after 2 s (tokio keeps them 10 s)
    // so a long-lived server's thread count comes back after a busy spell.
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(64)
        .thread_keep_alive(std::time::Duration::from_secs(2))
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tmuxwire: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    rt.block_on(run(cli))
}

/// The pool (with its hosts' pools) and the host a CLI command chose.
fn servers(cli: &Cli) -> Result<(Servers, Option<String>), String> {
    // tmux refuses an empty -L/-S too; taking it as "unset" would reach the
    // user's main server from a script whose variable is empty.
    let (socket_name, socket_path) = cli.socket();
    if socket_name.as_deref() == Some("") {
        return Err(
            "-L/--socket-name is empty: give a socket name, or leave -L out for the \
                    default server"
                .into(),
        );
    }
    if socket_path
        .as_ref()
        .is_some_and(|p| p.as_os_str().is_empty())
    {
        return Err(
            "-S/--socket-path is empty: give a socket path, or leave -S out for the \
                    default server"
                .into(),
        );
    }
    let spec = SocketSpec::from_args_and_env(socket_path, socket_name, |k| std::env::var_os(k));
    let path = spec.resolve().map_err(|e| e.to_string())?;
    let name = match &spec {
        SocketSpec::Name(n) => Some(n.clone()),
        _ => None,
    };
    let caller = Caller::from_env();
    // The MCP server outlives single calls: it keeps a mirror of the panes.
    // `wait` follows one pane's output, which only the mirror sees.
    let mut mirror = crate::mirror::MirrorOptions {
        enabled: matches!(cli.command, Cmd::Mcp { .. } | Cmd::Wait(_) | Cmd::Events(_)),
        ..crate::mirror::MirrorOptions::default()
    };
    if let Cmd::Mcp {
        dead_pane_ttl,
        dead_panes,
        dead_pane_memory,
        ..
    } = &cli.command
    {
        if let Some(secs) = dead_pane_ttl {
            mirror.dead_ttl = std::time::Duration::from_secs(*secs);
        }
        mirror.dead_keep = dead_panes.unwrap_or(mirror.dead_keep);
        mirror.dead_bytes = dead_pane_memory.unwrap_or(mirror.dead_bytes);
    }
    let default = Arc::new(Server::new(path, name, caller.clone()).with_mirror(mirror));
    let env_hosts = std::env::var("TMUXWIRE_HOSTS").ok();
    let env_tmux = std::env::var("TMUXWIRE_HOST_TMUX").ok();
    let choice = hosts::choose(&hosts::HostFlags {
        host: &cli.hosts,
        configure: matches!(cli.command, Cmd::Mcp { .. }),
        env_hosts: env_hosts.as_deref(),
        host_tmux: &cli.host_tmux,
        env_host_tmux: env_tmux.as_deref(),
        ssh_config: cli.ssh_config.clone(),
        keepalive: cli.ssh_keepalive,
    })?;
    let pin_host = matches!(cli.command, Cmd::Mcp { pin_host: true, .. });
    if pin_host && choice.hosts.is_empty() {
        return Err(
            "--pin-host serves only the configured hosts, and none is (--host NAME=DEST)".into(),
        );
    }
    let pin_socket = matches!(
        cli.command,
        Cmd::Mcp {
            pin_socket: true,
            ..
        }
    );
    // On a host, -L/-S (and their variables) name a server there too; $TMUX
    // never does (it is this machine's).
    let remote_socket = match &spec {
        SocketSpec::Path(p) => {
            crate::wire::ssh::RemoteSocket::Path(p.to_string_lossy().into_owned())
        }
        SocketSpec::Name(n) => crate::wire::ssh::RemoteSocket::Name(n.clone()),
        _ => crate::wire::ssh::RemoteSocket::Default,
    };
    let servers = Servers::new(default, caller)
        .pinned(pin_socket)
        .with_hosts(choice.hosts, pin_host, remote_socket)
        .map_err(|e| format!("cannot make a private directory for ssh's control sockets: {e}"))?;
    Ok((servers, choice.selected))
}

async fn run(cli: Cli) -> ExitCode {
    let redact = match &cli.command {
        Cmd::Mcp { redact, .. } => redact.redact,
        Cmd::Capture(a) => a.redact.redact,
        Cmd::Search(a) => a.redact.redact,
        Cmd::Wait(a) => a.redact.redact,
        _ => false,
    };
    if redact && let Err(e) = crate::redact::check_rules() {
        eprintln!("tmuxwire: --redact: {e}");
        return ExitCode::from(2);
    }
    let (servers, selected) = match servers(&cli) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tmuxwire: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Cmd::Mcp {
            pin_socket,
            response_budget,
            json_text,
            plain_text,
            redact,
            ..
        } => {
            if json_text && plain_text {
                eprintln!(
                    "tmuxwire: --json-text (TMUXWIRE_JSON_TEXT) and --plain-text \
                     (TMUXWIRE_PLAIN_TEXT) ask for different text blocks: give one"
                );
                return ExitCode::from(2);
            }
            let text = if json_text {
                mcp::text::TextMode::Json
            } else {
                mcp::text::TextMode::Reference
            };
            // Unknown toolset or tool names stop the server before it starts:
            // a typo must not silently change what a model may do.
            let policy = match mcp::toolsets::Policy::from_env(
                |k| std::env::var(k).ok(),
                mcp::tools::is_tool,
            ) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("tmuxwire: {e}");
                    return ExitCode::from(2);
                }
            };
            let wanted = response_budget.unwrap_or(mcp::budget::DEFAULT);
            let budget = mcp::budget::Budget::new(wanted);
            if budget.bytes() != wanted {
                eprintln!(
                    "tmuxwire: a response budget of {wanted} bytes is outside {}..={}; using {}",
                    mcp::budget::FLOOR,
                    mcp::budget::CEILING,
                    budget.bytes()
                );
            }
            let remote = !servers.hosts().is_empty();
            let servers = Arc::new(servers.pinned(pin_socket));
            let serve = mcp::serve_stdio(servers, budget, policy, text, redact.redact);
            let served = if remote {
                // The ssh processes are tmuxwire's children: a signal must end
                // them too (dropping the runtime kills them), as it ends
                // tmuxwire's local connections.
                tokio::select! {
                    r = serve => r,
                    () = demo::interrupted() => Ok(()),
                }
            } else {
                serve.await
            };
            return match served {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tmuxwire: MCP server stopped: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Cmd::Demo { tmux, keep, lines } => {
            let opts = demo::Options {
                tmux,
                keep,
                lines: lines as usize,
            };
            return demo::run(opts).await;
        }
        _ => {}
    }
    // A host's pool has the server -L/-S name there as its default.
    let pool = match servers.for_host(selected.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tmuxwire: {e}");
            return ExitCode::from(2);
        }
    };
    let command = async {
        match cli.command {
            Cmd::Panes { target, .. } => capture::panes(pool, target.as_deref()).await,
            Cmd::Capture(a) => capture::capture(pool, a).await,
            Cmd::Search(a) => search::run(pool, a).await,
            Cmd::Send(a) => send::run(pool, a).await,
            Cmd::Wait(a) => wait::run(pool, a).await,
            Cmd::Events(a) => events::run(pool, a).await,
            Cmd::Mcp { .. } | Cmd::Demo { .. } | Cmd::Completions { .. } | Cmd::Man { .. } => {
                Ok(ExitCode::SUCCESS)
            }
        }
    };
    let done = if pool.host().is_some() {
        // On a host, a signal ends the ssh processes too (see `mcp`).
        tokio::select! {
            r = command => r,
            () = demo::interrupted() => return ExitCode::from(130),
        }
    } else {
        command.await
    };
    done.unwrap_or_else(|e| {
        e.print();
        ExitCode::from(2)
    })
}
