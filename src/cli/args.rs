//! The flags, as clap parses them: validation only, no I/O (ripgrep's
//! `lowargs`). The commands turn them into tool calls.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::output::ColorChoice;

const ABOUT: &str = "An MCP server and CLI for tmux that speaks tmux's own client protocol.\n\n\
tmuxwire connects to the tmux server's socket and talks control mode directly: no `tmux` process \
per call. Searches cover whole scrollback as logical lines, so text split by a soft wrap is found.";

const AFTER_HELP: &str = "\
Socket selection (like tmux): -S PATH, else -L NAME, else $TMUXWIRE_SOCKET_PATH / \
$TMUXWIRE_SOCKET_NAME, else libtmux-mcp's $LIBTMUX_SOCKET_PATH / $LIBTMUX_SOCKET, else $TMUX \
(inside tmux), else the default socket. -S and -L go before the command, as in tmux (tmuxwire -S \
PATH capture -S -100); after it, --socket-path and --socket-name work everywhere, and -S/-L \
everywhere but after `capture`, whose -S is its start line.

Targets (-t), as tmux: %N (pane), @N (window), $N or NAME or =NAME (session, exact name), \
session:window, session:window.pane (indexes, as `tmuxwire panes` prints).

Examples:
  tmuxwire demo                        # a private tmux server, filled and searched
  tmuxwire panes                       # every pane of the default server
  tmuxwire -L work search 'error:'     # grep all panes' scrollback on socket 'work'
  tmuxwire capture -t %3 -S -100       # the last 100 scrollback lines and the screen
  tmuxwire -S /tmp/s capture -S -      # a socket path, then capture's own -S (start)
  claude mcp add tmux -- tmuxwire mcp  # use it from Claude Code";

/// The long help of `-t`, after what the target is for.
macro_rules! target_help {
    ($what:literal) => {
        concat!(
            $what,
            ": %N (a pane), @N (a window), $N, NAME or =NAME (a session; names match exactly, \
             never as a prefix), session:window or session:window.pane (indexes), as `tmuxwire \
             panes` prints them. An empty session (:1, :1.0) is the current session."
        )
    };
}

const CAPTURE_LONG: &str = "Print a pane's text, one line per screen row, as tmux capture-pane -p.

Takes capture-pane's flags: -S/-E (start and end line: 0 is the top of the screen, negative numbers \
are scrollback; '-' is the oldest line for -S and the bottom of the screen for -E), -J, -N, -T, -e, \
-C, -p (accepted; stdout is the default). The text is printed as tmux prints it, streamed as tmux \
sends it (the whole scrollback with -S -, nothing left out, in constant memory), with two \
differences: trailing empty rows are left out, and DEC line-drawing cells on the screen (`ESC ( \
0`, which tmux stores as the letters lqqk) read as the box characters they show (┌──┐); in the \
scrollback they read as tmux's letters unless --line-drawing (tmux renders that about 4× slower). \
-e and -C print tmux's bytes unchanged. With --redact, secrets are masked (each row still printed); \
rows are then held until the capture ends, so a secret a soft wrap splits is read whole (-J lines \
stream). The socket is chosen before the command (tmuxwire -S PATH capture ...) or with \
--socket-path: after `capture`, -S is the start line, as in tmux.";

const SEARCH_LONG: &str = "Search every pane's scrollback and screen, like grep.

Lines are logical lines (soft wraps joined, trailing blanks trimmed) of the whole scrollback and \
screen (or of --start/--end), in `tmuxwire panes` order. PATTERN is literal by default (grep -F); \
-E makes it a regex (Rust syntax, ^ and $ per line). -e PATTERN and -f FILE give more patterns (a \
line matches when any does; an empty pattern matches every line, an empty -f file none). The \
flags mean what they mean in GNU grep: -i -w -x -v -o -c -l -q -m -A -B -C -n -H -h --color; -m N \
counts the oldest N selected lines of each pane, --newest N keeps the newest N. Exit status: 0 \
when a line was selected, 1 when none was, 2 on an error (-q: 0 on a match even after an error).

Output, one record per line (PLACE = session:window.pane, LINE = tmux's line number of the \
logical line's first row: 0 = top of the screen, negative = scrollback, as capture -S/-E take it):
  PLACE:LINE:TEXT    a selected line (-o: TEXT is one match; -h drops PLACE:, -N drops LINE:)
  PLACE-LINE-TEXT    a context line (-A/-B/-C)
  --                 between groups of context that do not touch
  PLACE:COUNT        -c (every pane searched, 0 included)
  PLACE              -l (--files-without-match: the other panes)
PLACE writes a ':' in a session name as \\x3a (tmux 3.7+ allows one; older tmux makes it '_'), so \
the session runs to the first ':', then come WINDOW '.' PANE (digits); after PLACE comes ':' \
(selected) or '-' (context), then LINE as -?[0-9]+, then the same separator, then TEXT to the end \
of the line. A context line in the scrollback reads `work:1.0--455-text`: separator '-', LINE \
-455, separator '-'. In TEXT and PLACE, control characters are written as escapes (\\t, \\x1b, \\u0085); \
PLACE also writes '\\' as '\\\\' (TEXT keeps it, so TEXT reads as on the screen).";

const SEARCH_EXAMPLES: &str = "\
Examples:
  tmuxwire search 'connection refused'      # literal, case-sensitive, every pane
  tmuxwire search -i -w error -t work       # whole word, any case, session work
  tmuxwire search -E 'error\\[E[0-9]+\\]' -C 2 # a regex, 2 lines of context
  tmuxwire search -e panic -e FAILED        # either pattern
  tmuxwire search -f patterns.txt -c        # patterns from a file; count per pane
  tmuxwire search -c '' -t %3               # how many lines pane %3 holds
  tmuxwire search -o -E '[0-9]+ ms'         # only the matching parts
  tmuxwire search -l TODO -t @3             # the panes of window @3 that match
  tmuxwire search --newest 5 'test result' -t %7  # the newest 5 matching lines of %7
  tmuxwire search --start -500 -- -v        # a pattern that starts with '-' (or -e -v)
  tmuxwire search -h -N -x '\\$' -t %3       # bare text, no place or line number
  tmuxwire search x | cut -d: -f1          # sessions: a ':' in a name is written \\x3a";

const CAPTURE_EXAMPLES: &str = "\
Examples:
  tmuxwire capture -t %3                    # the screen of pane %3
  tmuxwire capture -t work:1.0 -S -         # all its scrollback and the screen
  tmuxwire capture -t @2 -S -100 -J         # 100 rows back, wrapped lines joined
  tmuxwire capture -S -20 -E -1             # 20 scrollback rows, no screen
  tmuxwire capture -p -e -t %3 > screen.ans # with colours, as tmux -e prints them
  tmuxwire -L work capture -t %1 -S - | wc -l  # on socket 'work' (-L/-S before the command)";

const PANES_EXAMPLES: &str = "\
Examples:
  tmuxwire panes                            # every pane (a header line on a terminal)
  tmuxwire panes -t work                    # the panes of session work
  tmuxwire panes -t work:1                  # of window 1 of work
  tmuxwire panes | cut -f1,2                # ids and places (no header into a pipe)";

/// `-L`/`-S` (or only their long forms) after a subcommand, for
/// invocations that name the socket there (`tmuxwire search x -L work`),
/// and before the command ([`Cli`]'s `socket`, with tmux's words for them).
#[derive(Clone, Debug, Default, Args)]
pub struct SocketArgs {
    /// tmux socket name, as `tmux -L` (also before the command).
    #[arg(
        short = 'L',
        long = "socket-name",
        value_name = "NAME",
        display_order = 900
    )]
    pub socket_name: Option<String>,
    /// tmux socket path, as `tmux -S` (also before the command).
    #[arg(
        short = 'S',
        long = "socket-path",
        value_name = "PATH",
        display_order = 901
    )]
    pub socket_path: Option<PathBuf>,
}

/// `--redact` (also `TMUXWIRE_REDACT=1`): mask secrets in what is printed
/// or answered ([`crate::redact`]).
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct RedactArgs {
    /// Mask secrets (private keys, cloud and forge tokens, JWTs, password= and token= values,
    /// a URL's password) in the pane text shown, each as [REDACTED:KIND]; the pane is not
    /// changed (also $TMUXWIRE_REDACT=1).
    #[arg(long, env = "TMUXWIRE_REDACT", value_parser = clap::builder::BoolishValueParser::new(), display_order = 800)]
    pub redact: bool,
}

/// The tmux versions the test suite runs against (the system tmux of CI's
/// Debian 12 and the two `.ci/fetch-tmux.sh` fetches), as `--version`
/// names them; a literal so that `concat!` can use it.
macro_rules! tested_tmux {
    () => {
        "3.3a, 3.5a, 3.8"
    };
}

/// What `tmuxwire --version` prints after the program's name: the
/// package version, the commit it was built from (`build.rs`: git, else a
/// packaged crate's `.cargo_vcs_info.json`, else `unknown`) and the tmux
/// versions it was tested with, on one line.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("TMUXWIRE_COMMIT"),
    "; tested with tmux ",
    tested_tmux!(),
    ")"
);

/// The tmux versions the test suite runs against, comma-separated
/// (`3.3a, 3.5a, 3.8`).
pub const TESTED_TMUX: &str = tested_tmux!();

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "tmuxwire", version = VERSION, about = ABOUT, after_help = AFTER_HELP)]
#[command(mut_args(tmux_socket_help))]
pub struct Cli {
    /// The socket flags given before the command.
    #[command(flatten)]
    pub socket: SocketArgs,
    /// A remote host, through ssh. For `mcp`: NAME=DEST, repeatable (DEST is anything ssh
    /// takes, usually a Host alias of ~/.ssh/config; also $TMUXWIRE_HOSTS="name=dest,…").
    /// For panes, capture, search, send and wait: the NAME of one of those, or a DEST.
    #[arg(long = "host", value_name = "HOST", global = true, display_order = 902)]
    pub hosts: Vec<String>,
    /// ssh configuration file for the hosts (ssh -F).
    #[arg(
        long,
        env = "TMUXWIRE_SSH_CONFIG",
        value_name = "FILE",
        global = true,
        display_order = 903
    )]
    pub ssh_config: Option<PathBuf>,
    /// The tmux binary on a host: NAME=PATH, repeatable (also $TMUXWIRE_HOST_TMUX="name=path,…");
    /// default: tmux on the host's PATH.
    #[arg(
        long = "host-tmux",
        value_name = "NAME=PATH",
        global = true,
        display_order = 904
    )]
    pub host_tmux: Vec<String>,
    /// Seconds between ssh keepalives on each host's connection (ServerAliveInterval; a dead
    /// link is noticed after 3 unanswered), and the quiet time after which a control channel
    /// asks tmux for an answer (tmux silent as long after is noticed too); default 15.
    #[arg(
        long,
        env = "TMUXWIRE_SSH_KEEPALIVE",
        value_name = "SECS",
        global = true,
        display_order = 905
    )]
    pub ssh_keepalive: Option<u32>,
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// Before the command the socket flags are tmux's own, and their help
/// says so (`mut_args`, not `mut_arg`: the flags keep their place, which
/// the shell completions follow).
fn tmux_socket_help(a: clap::Arg) -> clap::Arg {
    match a.get_id().as_str() {
        "socket_name" => a.help(
            "tmux socket name, as `tmux -L` (a file in $TMUX_TMPDIR/tmux-UID/, default /tmp)",
        ),
        "socket_path" => a.help("tmux socket path, as `tmux -S`"),
        _ => a,
    }
}

impl Cli {
    /// The socket flags in force: those given after the command win over
    /// those before it (`tmuxwire -L a panes -L b` reads server `b`).
    pub fn socket(&self) -> (Option<String>, Option<PathBuf>) {
        let after = match &self.command {
            Cmd::Mcp { socket, .. } | Cmd::Panes { socket, .. } => Some(socket.clone()),
            Cmd::Search(a) => Some(a.socket.clone()),
            Cmd::Send(a) => Some(a.socket.clone()),
            Cmd::Wait(a) => Some(a.socket.clone()),
            Cmd::Events(a) => Some(a.socket.clone()),
            Cmd::Capture(a) => Some(a.socket.clone()),
            Cmd::Demo { .. } | Cmd::Completions { .. } | Cmd::Man { .. } => None,
        }
        .unwrap_or_default();
        // A path beats a name, as in tmux, wherever each was given.
        let path = after
            .socket_path
            .or_else(|| self.socket.socket_path.clone());
        let name = after
            .socket_name
            .or_else(|| self.socket.socket_name.clone());
        (name, path)
    }
}

/// A `--start`/`--end` value (the capture engine's `-S`/`-E`).
pub use crate::tmux::capture::LineArg;

/// A size in bytes, with K/KiB and M/MiB suffixes (any size).
fn parse_bytes(s: &str) -> Result<usize, String> {
    crate::mcp::budget::Budget::parse_size(s)
}

/// A count flag's value: a whole number, at least 1.
fn positive(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number, at least 1".into()),
    }
}

/// `tmuxwire capture`.
#[derive(Debug, Args)]
#[command(after_help = CAPTURE_EXAMPLES)]
// `--socket-path` without `-S` (see `socket`).
#[command(mut_arg("socket_path", |a| a.short(None).help(
    "tmux socket path, as `tmux -S` before the command (after `capture`, -S is the start)"
)))]
pub struct CaptureArgs {
    /// The pane: %N, or a window or session for its active pane (default: the active pane of
    /// the current session).
    #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("The pane to capture, or a window or session for its active pane"))]
    pub target: Option<String>,
    /// capture-pane's flags, as the capture engine takes them.
    #[command(flatten)]
    pub flags: crate::tmux::capture::Flags,
    /// Print to stdout (accepted for capture-pane -p; stdout is where capture always prints).
    #[arg(short = 'p', long = "print")]
    pub print: bool,
    /// Print only the last N lines.
    #[arg(long, value_name = "N", value_parser = positive)]
    pub max_lines: Option<u64>,
    /// `--redact`.
    #[command(flatten)]
    pub redact: RedactArgs,
    /// The socket flags given after the command: `-S` is capture's start
    /// line (as tmux's capture-pane), so the path has only its long form
    /// here (`mut_arg` above).
    #[command(flatten)]
    pub socket: SocketArgs,
}

/// `tmuxwire search`.
#[derive(Debug, Args)]
#[command(after_help = SEARCH_EXAMPLES, disable_help_flag = true)]
pub struct SearchArgs {
    /// The text to find: a literal unless -E (not given with -e/-f).
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// A pattern (repeatable: a line matches when any does); PATTERN then is not given.
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    pub patterns: Vec<String>,
    /// Patterns from FILE, one per line ('-': stdin); an empty file has none and matches
    /// nothing.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Patterns are regular expressions (Rust regex syntax; ^ and $ anchor each line).
    #[arg(
        short = 'E',
        long = "extended-regexp",
        visible_alias = "regex",
        overrides_with = "fixed_strings"
    )]
    pub regex: bool,
    /// Patterns are literal text (the default; undoes -E).
    #[arg(short = 'F', long, overrides_with = "regex")]
    pub fixed_strings: bool,
    /// Ignore case.
    #[arg(short = 'i', long, overrides_with = "case_sensitive")]
    pub ignore_case: bool,
    /// Match case (the default; undoes -i).
    #[arg(
        short = 's',
        long,
        visible_alias = "no-ignore-case",
        overrides_with = "ignore_case"
    )]
    pub case_sensitive: bool,
    /// Only matches that are whole words (no word character just before or after).
    #[arg(short = 'w', long = "word-regexp", alias = "word")]
    pub word: bool,
    /// Only matches of the whole line.
    #[arg(short = 'x', long = "line-regexp")]
    pub line: bool,
    /// Select the lines that do not match.
    #[arg(short = 'v', long = "invert-match")]
    pub invert: bool,
    /// Print only the matched parts of selected lines, each on its own line.
    #[arg(short = 'o', long = "only-matching")]
    pub only_matching: bool,
    /// Print PLACE:COUNT of selected lines for each pane searched.
    #[arg(short = 'c', long)]
    pub count: bool,
    /// Print only the panes with a selected line (PLACE).
    #[arg(
        short = 'l',
        long = "files-with-matches",
        visible_alias = "panes-with-matches"
    )]
    pub list: bool,
    /// Print only the panes without a selected line (PLACE).
    #[arg(long = "files-without-match", visible_alias = "panes-without-match")]
    pub list_without: bool,
    /// Print nothing; the exit status says whether a line was selected.
    #[arg(short = 'q', long, visible_alias = "silent")]
    pub quiet: bool,
    /// Stop each pane after its first N selected lines (its oldest: grep -m).
    #[arg(short = 'm', long = "max-count", value_name = "N")]
    pub max_count: Option<u64>,
    /// Keep only the newest N selected lines of each pane.
    #[arg(long = "newest", alias = "max-per-pane", value_name = "N", value_parser = positive)]
    pub newest: Option<u64>,
    /// Print LINE (the default; accepted for grep -n).
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    pub line_number: bool,
    /// Do not print LINE.
    #[arg(short = 'N', long = "no-line-number", overrides_with = "line_number")]
    pub no_line_number: bool,
    /// Print PLACE (the default; accepted for grep -H).
    #[arg(short = 'H', long = "with-filename", overrides_with = "no_filename")]
    pub with_filename: bool,
    /// Do not print PLACE.
    #[arg(short = 'h', long = "no-filename", overrides_with = "with_filename")]
    pub no_filename: bool,
    /// Print N lines after each selected line.
    #[arg(short = 'A', long = "after-context", value_name = "N")]
    pub after: Option<usize>,
    /// Print N lines before each selected line.
    #[arg(short = 'B', long = "before-context", value_name = "N")]
    pub before: Option<usize>,
    /// Print N lines before and after each selected line (-A/-B override a side).
    #[arg(short = 'C', long = "context", value_name = "N")]
    pub context: Option<usize>,
    /// Colour places, line numbers and matches: auto (when stdout is a terminal and NO_COLOR is
    /// unset; --color alone), always, never.
    #[arg(
        long,
        alias = "colour",
        value_enum,
        default_value_t,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "auto"
    )]
    pub color: ColorChoice,
    /// Only these panes: a session, a window or a pane.
    #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("Only these panes"))]
    pub target: Option<String>,
    /// First line to search (tmux numbering; default '-': the oldest scrollback line).
    #[arg(long, allow_hyphen_values = true, value_name = "LINE")]
    pub start: Option<LineArg>,
    /// Last line to search (default '-': the bottom of the screen).
    #[arg(long, allow_hyphen_values = true, value_name = "LINE")]
    pub end: Option<LineArg>,
    /// Print help (-h is grep's --no-filename here).
    #[arg(long, action = clap::ArgAction::Help)]
    pub help: Option<bool>,
    /// `--redact`: lines are searched and printed with their secrets masked.
    #[command(flatten)]
    pub redact: RedactArgs,
    /// The socket flags given after the command.
    #[command(flatten)]
    pub socket: SocketArgs,
}

const SEND_LONG: &str = "Type text into a pane exactly as given, and press keys by name.

TEXT is typed literally, byte for byte (a ';' at the end, a leading '-', quotes, $VAR, #{...}, \
line breaks, any script), then Enter unless -n, then each -k KEY in order. A key is a name such \
as Enter, C-c, Up, Escape, F5, M-x or C-Space; words in TEXT are never taken as keys. TEXT '-' \
reads the text from stdin; one line break at its end (what echo and most files end with) is \
dropped, so Enter is pressed once; line breaks inside are typed as they are. The target is a pane, or a window or session for its active pane \
(default: the active pane of the current session). Prints nothing; exit status 0 when sent, 2 \
on an error.";

const SEND_EXAMPLES: &str = "\
Examples:
  tmuxwire send -t %3 'make test'           # type it and press Enter
  tmuxwire send -t work:1.0 -n 'git commit' # type it, no Enter
  tmuxwire send -t %3 -k C-c                # press Ctrl-C
  tmuxwire send -t %3 -n -- '-v' -k Enter   # text that starts with '-'
  echo 'make test' | tmuxwire send -t %3 -    # text from stdin, then Enter (once)
  printf 'a\\nb\\n' | tmuxwire send -t %3 -n -   # two lines: 'a' Enter 'b', no Enter after";

/// `tmuxwire send`.
#[derive(Debug, Args)]
#[command(after_help = SEND_EXAMPLES)]
pub struct SendArgs {
    /// Text to type exactly ('-': read it from stdin).
    pub text: Option<String>,
    /// The pane: %N, or a window or session for its active pane (default: the active pane of
    /// the current session).
    #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("The pane to send to, or a window or session for its active pane"))]
    pub target: Option<String>,
    /// A key to press after the text, by name (Enter, C-c, Up, Escape, F5, M-x); repeatable.
    #[arg(short = 'k', long = "key", value_name = "KEY")]
    pub keys: Vec<String>,
    /// Do not press Enter after the text.
    #[arg(short = 'n', long = "no-enter")]
    pub no_enter: bool,
    /// The socket flags given after the command.
    #[command(flatten)]
    pub socket: SocketArgs,
}

const WAIT_LONG: &str = "Wait until a pane prints a new line that matches, woken by the output itself.

Only lines printed after the wait begins count; the echo of a command tmuxwire just typed (tmuxwire \
send) is not output. PATTERN is literal text unless -e; case-sensitive unless -i. Without \
PATTERN, any new output ends the wait. --stop PATTERN (repeatable) ends it early, as a failure. \
Prints the matching lines (the last lines printed with --tail). With --send TEXT, types TEXT \
first and counts its output even if it came before the wait could begin. Exit status: 0 \
matched, 1 timed out (or a full-screen program kept the screen), 3 stopped by --stop, 4 the \
pane's program exited or the pane is gone (within about a second), 2 on an error (the server \
exited: ServerGone).";

const WAIT_EXAMPLES: &str = "\
Examples:
  tmuxwire wait -t %3 --send 'make test' --stop FAILED 'tests passed'  # 0 passed, 3 failed
  tmuxwire wait -t %3 -e '^\\$$' --timeout 20         # the prompt '$ ' is back (lines are
                                                   # matched without trailing spaces)
  tmuxwire wait -t build:1 --tail                  # any output; show the last lines
  tmuxwire wait -t %3 --timeout 600 'Finished'     # ten minutes (the CLI has no 30 s ceiling)";

/// `tmuxwire wait`.
#[derive(Debug, Args)]
#[command(after_help = WAIT_EXAMPLES)]
pub struct WaitArgs {
    /// Text to wait for (a literal unless -e); repeatable as more arguments: any one matches.
    pub patterns: Vec<String>,
    /// The pane: %N, or a window or session for its active pane (default: the active pane of
    /// the current session).
    #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("The pane to watch, or a window or session for its active pane"))]
    pub target: Option<String>,
    /// Patterns are regular expressions (Rust regex syntax; lines are matched without their
    /// trailing spaces).
    #[arg(
        short = 'e',
        long,
        visible_short_alias = 'E',
        overrides_with = "fixed_strings"
    )]
    pub regex: bool,
    /// Patterns are literal text (the default; undoes -e).
    #[arg(short = 'F', long, overrides_with = "regex")]
    pub fixed_strings: bool,
    /// Ignore case (the default is case-sensitive, as grep; the MCP tool's default is
    /// match_case=false).
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// End the wait (exit status 3) when a new line matches this; repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub stop: Vec<String>,
    /// Seconds to wait (default 30; any length up to a year, 31536000: the MCP tools' wait
    /// ceiling is for models and does not apply here).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 30.0,
        allow_negative_numbers = true
    )]
    pub timeout: f64,
    /// Print the last lines the pane printed (up to 20) instead of the matching lines.
    #[arg(long)]
    pub tail: bool,
    /// Print nothing; the exit status says how the wait ended.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Type TEXT into the pane (then Enter) first, and wait for its output: output that comes
    /// before the wait could begin still counts. (Separate `tmuxwire send` and `tmuxwire
    /// wait` runs cannot know that: a fast command's output may come before the wait.)
    #[arg(long, value_name = "TEXT")]
    pub send: Option<String>,
    /// `--redact`: no match inside a secret counts; lines are printed masked.
    #[command(flatten)]
    pub redact: RedactArgs,
    /// The socket flags given after the command.
    #[command(flatten)]
    pub socket: SocketArgs,
}

const EVENTS_LONG: &str = "Print what happens in the panes, one line per event: a marked command \
started or finished (with its exit status), a program waits for a password or a line, a screen \
went still, a title changed, a pane or session came or went, a line matched --pattern. The \
same events as the MCP tool poll_events, from tmuxwire's copies of the panes (woken by the \
panes' output; nothing polls the screens). First the followed panes' state now, then, with \
--follow, each event as it comes until interrupted. Text a pane controls (titles, command \
lines) is cleaned and quoted. Exit status: 0, or 2 when tmuxwire cannot run.";

const EVENTS_EXAMPLES: &str = "Examples:
  tmuxwire events                          # every pane's state now
  tmuxwire events --follow                 # and every event as it comes
  tmuxwire events --follow -t '$1' -t %7   # a session's panes and one more pane
  tmuxwire events --follow --kind command_finished --json
  tmuxwire events --follow --pattern 'error|FAIL'";

/// `tmuxwire events`.
#[derive(Debug, Args)]
#[command(after_help = EVENTS_EXAMPLES)]
pub struct EventsArgs {
    /// Keep printing events as they come, until interrupted.
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// One JSON object per line (poll_events' event fields) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only these panes (%N) or sessions ($N); repeatable (default: every pane).
    #[arg(short = 't', long = "target", value_name = "ID")]
    pub targets: Vec<String>,
    /// Only events of this kind (command_finished, password_prompt, ...); repeatable.
    #[arg(long = "kind", value_name = "KIND")]
    pub kinds: Vec<String>,
    /// Also tell new lines matching this regex (matched events); repeatable.
    #[arg(long = "pattern", value_name = "REGEX")]
    pub patterns: Vec<String>,
    /// The socket flags given after the command.
    #[command(flatten)]
    pub socket: SocketArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Serve MCP on stdin/stdout (for Claude Code, Codex, Cursor, the MCP Inspector).
    ///
    /// Example: claude mcp add tmux -- tmuxwire mcp
    Mcp {
        /// Serve only the chosen tmux server: refuse tool calls whose socket_name names another.
        #[arg(long, env = "TMUXWIRE_PIN_SOCKET", value_parser = clap::builder::BoolishValueParser::new())]
        pin_socket: bool,
        /// Serve only the configured hosts (--host): refuse tool calls for this machine. With one
        /// host, calls without host go to it.
        #[arg(long, env = "TMUXWIRE_PIN_HOST", value_parser = clap::builder::BoolishValueParser::new())]
        pin_host: bool,
        /// Most text one tool answer carries, in bytes (K/KiB and M/MiB suffixes accepted):
        /// 16 KiB to 3 MiB, default 40000 (sized for a model's context; a call asks for up to
        /// 1 MiB with max_bytes). Answers over it are cut and say how to get the rest.
        #[arg(
            long,
            env = "TMUXWIRE_RESPONSE_BUDGET",
            value_name = "BYTES",
            value_parser = crate::mcp::budget::Budget::parse_size
        )]
        response_budget: Option<usize>,
        /// Text blocks hold each result's JSON (structuredContent serialized, in its
        /// order), as tmuxwire sent them before. Default: what libtmux-mcp sends (the pane text
        /// of capture_pane, the sentence of an action, a bare list, an object in the
        /// reference's field order).
        #[arg(long, env = "TMUXWIRE_JSON_TEXT", value_parser = clap::builder::BoolishValueParser::new())]
        json_text: bool,
        /// Text blocks as libtmux-mcp sends them: the default (kept so that old configurations
        /// still start; cannot be combined with --json-text).
        #[arg(long, env = "TMUXWIRE_PLAIN_TEXT", value_parser = clap::builder::BoolishValueParser::new())]
        plain_text: bool,
        /// Seconds the copy of a pane that is gone is kept (it still answers capture_since,
        /// capture_pane and search_panes meanwhile); default 600.
        #[arg(long, env = "TMUXWIRE_DEAD_PANE_TTL", value_name = "SECONDS")]
        dead_pane_ttl: Option<u64>,
        /// Copies of gone panes kept at most, the most recently gone (default 64); with
        /// --dead-pane-memory (default 64 MiB, K/M suffixes accepted) for their text.
        #[arg(long, env = "TMUXWIRE_DEAD_PANES", value_name = "N")]
        dead_panes: Option<usize>,
        /// Bytes of text the copies of gone panes may hold together (default 64 MiB).
        #[arg(
            long,
            env = "TMUXWIRE_DEAD_PANE_MEMORY",
            value_name = "BYTES",
            value_parser = parse_bytes
        )]
        dead_pane_memory: Option<usize>,
        /// `--redact`: every text a tool returns (captures, search lines, command output, waits'
        /// lines, buffers, resources) has its secrets masked and counted (`redacted`); a search
        /// or wait never matches inside a secret.
        #[command(flatten)]
        redact: RedactArgs,
        /// The socket flags given after the command.
        #[command(flatten)]
        socket: SocketArgs,
    },
    /// List panes: id, session:window.pane, size, command, path, window name (one line each).
    ///
    /// Fields are separated by tabs; control characters and backslashes in them are escaped
    /// (\n, \t, \x1b, \\), so every pane is exactly one line. On a terminal a header line
    /// (PANE PLACE SIZE COMMAND PATH WINDOW) comes first; into a pipe or file there is none.
    #[command(after_help = PANES_EXAMPLES)]
    Panes {
        /// Only these panes: a session, a window or a pane.
        #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("Only these panes"))]
        target: Option<String>,
        /// The socket flags given after the command.
        #[command(flatten)]
        socket: SocketArgs,
    },
    /// Print a pane's text, one line per screen row, as tmux capture-pane -p.
    #[command(long_about = CAPTURE_LONG)]
    Capture(CaptureArgs),
    /// Search every pane's scrollback and screen, like grep.
    #[command(long_about = SEARCH_LONG)]
    Search(SearchArgs),
    /// Type text into a pane exactly as given, and press keys by name.
    #[command(long_about = SEND_LONG)]
    Send(SendArgs),
    /// Wait until a pane prints a line that matches (no polling).
    #[command(long_about = WAIT_LONG)]
    Wait(WaitArgs),
    /// Print what happens in the panes (commands finished, prompts waiting, screens gone still).
    #[command(long_about = EVENTS_LONG)]
    Events(EventsArgs),
    /// Show what tmuxwire does, on a private tmux server removed at the end.
    ///
    /// Fills four panes with 100,000 lines each, then searches them (timed next to tmux's own
    /// capture-pane | grep), finds a line a wrap split, waits for output, runs a failing command
    /// and searches a pane that is gone, checking each claim. Needs the tmux binary to start
    /// that server (and for the comparison); -L/-S are ignored. Exit status: 0 every step
    /// checked out, 1 a check failed, 2 the demo could not run, 130 interrupted (the server is
    /// removed then too). Example: tmuxwire demo
    Demo {
        /// The tmux binary used to start the private server.
        #[arg(long, env = "TMUXWIRE_TMUX", default_value = "tmux")]
        tmux: String,
        /// Keep the server running afterwards (prints how to attach).
        #[arg(long)]
        keep: bool,
        /// Lines each large pane prints (for quick test runs).
        #[arg(long, hide = true, default_value_t = 100_000,
              value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
        lines: u32,
    },
    /// Print a shell completion script for tmuxwire (bash, zsh, fish, elvish, powershell).
    ///
    /// Generated from the same flag definitions tmuxwire parses (clap_complete). Install:
    /// bash: tmuxwire completions bash > ~/.local/share/bash-completion/completions/tmuxwire;
    /// zsh: tmuxwire completions zsh > DIR/_tmuxwire, DIR on $fpath; fish: tmuxwire
    /// completions fish > ~/.config/fish/completions/tmuxwire.fish. Release archives carry
    /// the three files. Needs no tmux server.
    Completions {
        /// The shell.
        #[arg(value_enum, value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print tmuxwire's manual page (roff), or write a page per command into a directory.
    ///
    /// Generated from the same definitions as --help (clap_mangen). `tmuxwire man | man -l -`
    /// reads it; with --dir DIR, writes tmuxwire.1 and tmuxwire-COMMAND.1 for each command
    /// into DIR (which must exist) and prints their paths. Needs no tmux server.
    Man {
        /// Write tmuxwire.1 and one page per command into this directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    #[test]
    fn line_args() {
        assert_eq!("-".parse::<LineArg>(), Ok(LineArg::Edge));
        assert_eq!("-12".parse::<LineArg>(), Ok(LineArg::At(-12)));
        assert_eq!("0".parse::<LineArg>(), Ok(LineArg::At(0)));
        assert!("x".parse::<LineArg>().is_err());
        assert!("--".parse::<LineArg>().is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(positive("3"), Ok(3));
        assert!(positive("0").is_err());
        assert!(positive("-1").is_err());
    }

    fn parse(args: &[&str]) -> Cli {
        let mut v = vec!["tmuxwire"];
        v.extend(args);
        Cli::try_parse_from(v).unwrap()
    }

    #[test]
    fn flags_parse() {
        Cli::command().debug_assert();
        let Cmd::Search(a) = parse(&["search", "-E", "-F", "-i", "-s", "x"]).command else {
            panic!()
        };
        assert!(!a.regex && a.fixed_strings && !a.ignore_case && a.case_sensitive);
        let Cmd::Search(a) = parse(&["search", "-F", "-E", "-C", "2", "-A", "0", "x"]).command
        else {
            panic!()
        };
        assert!(a.regex && !a.fixed_strings);
        assert_eq!((a.context, a.after, a.before), (Some(2), Some(0), None));
        // grep's -e PATTERN, repeatable, taking values that start with '-'.
        let Cmd::Search(a) = parse(&["search", "-e", "a", "-e", "-v", "-e", ""]).command else {
            panic!()
        };
        assert_eq!(a.patterns, ["a", "-v", ""]);
        assert_eq!(a.pattern, None);
        // -h is --no-filename; --help is help.
        let Cmd::Search(a) = parse(&["search", "-h", "-n", "-c", "-l", "x"]).command else {
            panic!()
        };
        assert!(a.no_filename && a.line_number && a.count && a.list);
        assert!(Cli::try_parse_from(["tmuxwire", "search", "--help"]).is_err());
        let Cmd::Search(a) = parse(&["search", "--color", "x"]).command else {
            panic!()
        };
        assert_eq!(
            (a.color, a.pattern.as_deref()),
            (ColorChoice::Auto, Some("x"))
        );
        let Cmd::Search(a) = parse(&["search", "--color=always", "-m", "0", "--", "-x"]).command
        else {
            panic!()
        };
        assert_eq!(a.color, ColorChoice::Always);
        assert_eq!((a.max_count, a.pattern.as_deref()), (Some(0), Some("-x")));
        assert!(Cli::try_parse_from(["tmuxwire", "search", "--newest", "0", "x"]).is_err());
    }

    #[test]
    fn capture_flags_are_tmuxs() {
        let c = parse(&["capture", "--start", "-", "--end", "-5"]);
        let Cmd::Capture(a) = c.command else { panic!() };
        assert_eq!(
            (a.flags.start, a.flags.end),
            (Some(LineArg::Edge), Some(LineArg::At(-5)))
        );
        let c = parse(&[
            "-S", "/tmp/s", "capture", "-S", "-100", "-E", "-", "-p", "-e", "-J",
        ]);
        assert_eq!(c.socket(), (None, Some(PathBuf::from("/tmp/s"))));
        let Cmd::Capture(a) = c.command else { panic!() };
        assert_eq!(
            (a.flags.start, a.flags.end),
            (Some(LineArg::At(-100)), Some(LineArg::Edge))
        );
        assert!(a.print && a.flags.escapes && a.flags.join);
        let c = parse(&["capture", "-S", "-", "--socket-path", "/tmp/t", "-L", "x"]);
        assert_eq!(
            c.socket(),
            (Some("x".to_string()), Some(PathBuf::from("/tmp/t")))
        );
    }

    #[test]
    fn socket_flags_before_and_after() {
        for args in [
            &["-L", "w", "panes"][..],
            &["panes", "-L", "w"],
            &["search", "x", "-L", "w"],
            &["send", "-L", "w", "-k", "C-c"],
            &["wait", "-L", "w"],
            &["mcp", "--socket-name", "w"],
            &["-L", "v", "panes", "-L", "w"],
        ] {
            assert_eq!(
                parse(args).socket(),
                (Some("w".to_string()), None),
                "{args:?}"
            );
        }
        let c = parse(&["search", "-S", "/tmp/s", "x"]);
        assert_eq!(c.socket(), (None, Some(PathBuf::from("/tmp/s"))));
        assert_eq!(
            parse(&["-S", "/a", "panes"]).socket().1,
            Some(PathBuf::from("/a"))
        );
    }
}
