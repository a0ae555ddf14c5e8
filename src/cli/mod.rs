//! The `tmuxwire` command line. Every command goes through the same tool
//! code as the MCP server ([`crate::mcp::tools::call`]), so what a person
//! sees is what a model gets.

mod demo;

/// `println!` that never panics: output to a closed pipe (`tmuxwire search
/// x | head -1`) is dropped instead of aborting the program, which may
/// still have a private tmux server to clean up.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, $($arg)*);
    }};
}
pub(crate) use say;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use serde_json::{Map, Value, json};

use crate::mcp;
use crate::tmux::{Caller, Servers, Tmux};
use crate::wire::SocketSpec;

const ABOUT: &str = "An MCP server and CLI for tmux that speaks tmux's own client protocol.\n\n\
tmuxwire connects to the tmux server's socket and talks control mode directly: no `tmux` process \
per call. Searches cover whole scrollback as logical lines, so text split by a soft wrap is found.";

const AFTER_HELP: &str = "\
Socket selection (like tmux): -S PATH, else -L NAME, else $TMUXWIRE_SOCKET_PATH / \
$TMUXWIRE_SOCKET_NAME, else libtmux-mcp's $LIBTMUX_SOCKET_PATH / $LIBTMUX_SOCKET, else $TMUX \
(inside tmux), else the default socket.

Examples:
  tmuxwire demo                        # a private tmux server, filled and searched
  tmuxwire panes                       # every pane of the default server
  tmuxwire -L work search 'error:'     # grep all panes' scrollback on socket 'work'
  tmuxwire capture -t %3 --start -100  # the last 100 scrollback lines and the screen
  claude mcp add tmux -- tmuxwire mcp  # use it from Claude Code";

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "tmuxwire", version, about = ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// tmux socket name, as `tmux -L` (a file in $TMUX_TMPDIR/tmux-UID/, default /tmp).
    #[arg(short = 'L', long = "socket-name", global = true, value_name = "NAME")]
    pub socket_name: Option<String>,
    /// tmux socket path, as `tmux -S`.
    #[arg(short = 'S', long = "socket-path", global = true, value_name = "PATH")]
    pub socket_path: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Serve MCP on stdin/stdout (for Claude Code, Codex, Cursor, the MCP Inspector).
    ///
    /// Example: claude mcp add tmux -- tmuxwire mcp
    Mcp {
        /// Serve only the chosen tmux server: refuse tool calls whose socket_name names another.
        #[arg(long, env = "TMUXWIRE_PIN_SOCKET")]
        pin_socket: bool,
    },
    /// List panes: id, session:window.pane, size, command, path.
    ///
    /// Example: tmuxwire panes -t work
    Panes {
        /// Only this session (exact name, or $N).
        #[arg(short = 't', long = "target", value_name = "SESSION")]
        session: Option<String>,
    },
    /// Print a pane's text, one line per screen row.
    ///
    /// Example: tmuxwire capture -t %3 --start -1000 --join
    Capture {
        /// The pane (%N), or a session (name or $N) for its active pane; default: the active
        /// pane of the session used last.
        #[arg(short = 't', long = "target", value_name = "PANE")]
        pane: Option<String>,
        /// First line: 0 is the top of the screen, negative numbers are scrollback.
        #[arg(long, allow_hyphen_values = true, value_name = "LINE")]
        start: Option<i64>,
        /// Last line, same numbering.
        #[arg(long, allow_hyphen_values = true, value_name = "LINE")]
        end: Option<i64>,
        /// Join soft-wrapped rows into logical lines.
        #[arg(short = 'J', long)]
        join: bool,
        /// Keep only the last N lines.
        #[arg(long, allow_hyphen_values = true, value_name = "N")]
        max_lines: Option<i64>,
    },
    /// Search every pane's scrollback and screen; prints session:window.pane:line: text.
    ///
    /// Lines are logical lines (soft wraps joined); line numbers are tmux's (0 = top of the
    /// screen, negative = scrollback). Exits 1 when nothing matches, 2 on error.
    ///
    /// Example: tmuxwire search 'connection refused' -t prod
    Search {
        /// The text to find (literal unless --regex).
        pattern: String,
        /// Treat PATTERN as a regular expression.
        #[arg(short = 'e', long)]
        regex: bool,
        /// Match case (default: case-insensitive).
        #[arg(short = 's', long = "case-sensitive")]
        case_sensitive: bool,
        /// Only this session (exact name, or $N).
        #[arg(short = 't', long = "target", value_name = "SESSION")]
        session: Option<String>,
        /// Matching lines to print per pane (the newest).
        #[arg(short = 'm', long, default_value_t = 1000, value_name = "N")]
        max_per_pane: i64,
    },
    /// Start a private tmux server, fill it, search it, time it, remove it.
    ///
    /// Needs the tmux binary only to start that server; -L/-S are ignored (the demo always uses
    /// its own private socket). Example: tmuxwire demo
    Demo {
        /// The tmux binary used to start the private server.
        #[arg(long, env = "TMUXWIRE_TMUX", default_value = "tmux")]
        tmux: String,
        /// Keep the server running afterwards (prints how to attach).
        #[arg(long)]
        keep: bool,
    },
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TMUXWIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
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
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
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

fn servers(cli: &Cli) -> Result<Servers, String> {
    // tmux refuses an empty -L/-S too; taking it as "unset" would reach the
    // user's main server from a script whose variable is empty.
    if cli.socket_name.as_deref() == Some("") {
        return Err(
            "-L/--socket-name is empty: give a socket name, or leave -L out for the \
                    default server"
                .into(),
        );
    }
    if cli
        .socket_path
        .as_ref()
        .is_some_and(|p| p.as_os_str().is_empty())
    {
        return Err(
            "-S/--socket-path is empty: give a socket path, or leave -S out for the \
                    default server"
                .into(),
        );
    }
    let spec =
        SocketSpec::from_args_and_env(cli.socket_path.clone(), cli.socket_name.clone(), |k| {
            std::env::var_os(k)
        });
    let path = spec.resolve().map_err(|e| e.to_string())?;
    let name = match &spec {
        SocketSpec::Name(n) => Some(n.clone()),
        _ => None,
    };
    let caller = Caller::from_env();
    // The MCP server outlives single calls: it keeps a mirror of the panes.
    let mirror = crate::mirror::MirrorOptions {
        enabled: matches!(cli.command, Cmd::Mcp { .. }),
        ..crate::mirror::MirrorOptions::default()
    };
    let default = Arc::new(Tmux::new(path, name, caller.clone()).with_mirror(mirror));
    Ok(Servers::new(default, caller))
}

async fn run(cli: Cli) -> ExitCode {
    let servers = match servers(&cli) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tmuxwire: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Cmd::Mcp { pin_socket } => {
            match mcp::serve_stdio(Arc::new(servers.pinned(pin_socket))).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tmuxwire: MCP server stopped: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Cmd::Panes { session } => {
            let mut args = Map::new();
            put_session(&mut args, session);
            let v = match tool(&servers, "list_panes", args).await {
                Ok(v) => v,
                Err(code) => return code,
            };
            for p in v["result"].as_array().into_iter().flatten() {
                say!(
                    "{}\t{}:{}.{}\t{}x{}\t{}\t{}",
                    s(&p["pane_id"]),
                    s(&p["session_name"]),
                    s(&p["window_index"]),
                    s(&p["pane_index"]),
                    s(&p["pane_width"]),
                    s(&p["pane_height"]),
                    s(&p["pane_current_command"]),
                    s(&p["pane_current_path"]),
                );
            }
            ExitCode::SUCCESS
        }
        Cmd::Capture {
            pane,
            start,
            end,
            join,
            max_lines,
        } => {
            let mut args = Map::new();
            match pane {
                Some(p) if p.starts_with('%') => {
                    args.insert("pane_id".into(), json!(p));
                }
                other => put_session(&mut args, other),
            }
            if let Some(v) = start {
                args.insert("start".into(), json!(v));
            }
            if let Some(v) = end {
                args.insert("end".into(), json!(v));
            }
            args.insert("join_wrapped".into(), json!(join));
            args.insert(
                "max_lines".into(),
                max_lines.map_or(Value::Null, |m| json!(m)),
            );
            match tool(&servers, "capture_pane", args).await {
                Ok(v) => {
                    say!("{}", s(&v["result"]));
                    ExitCode::SUCCESS
                }
                Err(code) => code,
            }
        }
        Cmd::Search {
            pattern,
            regex,
            case_sensitive,
            session,
            max_per_pane,
        } => {
            let mut args = Map::new();
            args.insert("pattern".into(), json!(pattern));
            args.insert("regex".into(), json!(regex));
            args.insert("match_case".into(), json!(case_sensitive));
            args.insert("limit".into(), Value::Null);
            args.insert("max_matched_lines_per_pane".into(), json!(max_per_pane));
            put_session(&mut args, session);
            let v = match tool(&servers, "search_panes", args).await {
                Ok(v) => v,
                Err(code) => return code,
            };
            let n = print_matches(&v);
            if n == 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Cmd::Demo { tmux, keep } => demo::run(&tmux, keep).await,
    }
}

/// `-t SESSION`: `$N` is a session id, anything else an exact name.
fn put_session(args: &mut Map<String, Value>, session: Option<String>) {
    if let Some(s) = session {
        let key = if s.parse::<crate::control::SessionId>().is_ok() {
            "session_id"
        } else {
            "session_name"
        };
        args.insert(key.into(), json!(s));
    }
}

/// `v` as display text (strings without quotes).
fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// One matched line of a `search_panes` result.
struct Hit<'a> {
    pane: &'a Value,
    text: String,
    line: String,
    rows: Option<u64>,
}

/// The matched lines of a `search_panes` result, in order.
fn hits(v: &Value) -> impl Iterator<Item = Hit<'_>> {
    v["matches"].as_array().into_iter().flatten().flat_map(|m| {
        let lines = m["matched_lines"].as_array().cloned().unwrap_or_default();
        let numbers = m["matched_line_numbers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let rows = m["matched_line_rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        lines.into_iter().enumerate().map(move |(i, line)| Hit {
            pane: m,
            text: s(&line),
            line: numbers.get(i).map(s).unwrap_or_default(),
            rows: rows.get(i).and_then(Value::as_u64),
        })
    })
}

/// `session:window.pane` of a match.
fn place(m: &Value) -> String {
    format!(
        "{}:{}.{}",
        s(&m["session_name"]),
        s(&m["window_index"]),
        s(&m["pane_index"])
    )
}

/// Prints search matches grep-style; returns how many lines.
pub(crate) fn print_matches(v: &Value) -> usize {
    hits(v)
        .map(|h| say!("{}:{}: {}", place(h.pane), h.line, h.text))
        .count()
}

/// Runs a tool through the MCP tool code: its structured result, or the
/// error text.
pub(crate) async fn call_tool(
    servers: &Servers,
    name: &str,
    args: Map<String, Value>,
) -> Result<Value, String> {
    let r = mcp::tools::call(servers, name, args).await;
    if r.is_error == Some(true) {
        let text: Vec<String> = r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        return Err(text.join("\n"));
    }
    Ok(r.structured_content.unwrap_or(Value::Null))
}

/// Runs a tool; on error prints it and returns exit code 2.
async fn tool(servers: &Servers, name: &str, args: Map<String, Value>) -> Result<Value, ExitCode> {
    call_tool(servers, name, args).await.map_err(|e| {
        eprintln!("tmuxwire: {e}");
        ExitCode::from(2)
    })
}

/// Like [`print_matches`], indented and with the rows a line spans, for
/// the demo.
pub(crate) fn print_matches_indented(v: &Value) -> usize {
    hits(v)
        .map(|h| {
            let short: String = h.text.chars().take(110).collect();
            let ell = if short.len() < h.text.len() {
                "…"
            } else {
                ""
            };
            let rows = h.rows.unwrap_or(1);
            let plural = if rows == 1 { "" } else { "s" };
            say!(
                "  {} {} line {} ({rows} row{plural}): {short}{ell}",
                place(h.pane),
                s(&h.pane["pane_id"]),
                h.line
            );
        })
        .count()
}
