//! The flags, as clap parses them: validation only, no I/O (ripgrep's
//! `lowargs`). The commands turn them into tool calls.

use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand};

use super::output::ColorChoice;

const ABOUT: &str = "An MCP server and CLI for tmux that speaks tmux's own client protocol.\n\n\
tmuxwire connects to the tmux server's socket and talks control mode directly: no `tmux` process \
per call. Searches cover whole scrollback as logical lines, so text split by a soft wrap is found.";

const AFTER_HELP: &str = "\
Socket selection (like tmux): -S PATH, else -L NAME, else $TMUXWIRE_SOCKET_PATH / \
$TMUXWIRE_SOCKET_NAME, else libtmux-mcp's $LIBTMUX_SOCKET_PATH / $LIBTMUX_SOCKET, else $TMUX \
(inside tmux), else the default socket.

Targets (-t), as tmux: %N (pane), @N (window), $N or NAME or =NAME (session, exact name), \
session:window, session:window.pane (indexes, as `tmuxwire panes` prints).

Examples:
  tmuxwire demo                        # a private tmux server, filled and searched
  tmuxwire panes                       # every pane of the default server
  tmuxwire -L work search 'error:'     # grep all panes' scrollback on socket 'work'
  tmuxwire capture -t %3 --start -100  # the last 100 scrollback lines and the screen
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

Trailing empty rows are left out. Line numbers are tmux's: 0 is the top of the screen, negative \
numbers are scrollback; '-' is the oldest line for --start and the bottom of the screen for \
--end, as tmux's -S -/-E -. The text is printed as tmux prints it. When the 8 MiB limit of one \
capture leaves older lines out, a note on stderr says so.";

const SEARCH_LONG: &str = "Search every pane's scrollback and screen, like grep.

Prints session:window.pane:LINE:TEXT for each matching line. Lines are logical lines (soft wraps \
joined), in `tmuxwire panes` order; LINE is tmux's line number of the line's first row (0 = top of \
the screen, negative = scrollback), as `capture --start/--end` take it. PATTERN is a literal by \
default (like grep -F) and case-sensitive; -e/-E make it a regex (Rust syntax). Control characters \
in the text are shown as escapes (\\x1b, \\t). Every matching line is printed: a note on stderr \
says when the search's 1 MiB answer cap left lines out, and how to see them. Exit status: 0 when a \
line matched, 1 when none did, 2 on an error.";

const SEARCH_EXAMPLES: &str = "\
Examples:
  tmuxwire search 'connection refused'      # literal, case-sensitive, every pane
  tmuxwire search -i -w error -t work       # whole word, any case, session work
  tmuxwire search -e 'error\\[E\\d+\\]' -C 2   # a regex, 2 lines of context
  tmuxwire search -c panic                  # session:window.pane:COUNT per pane
  tmuxwire search -l TODO -t @3             # the panes of window @3 that match
  tmuxwire search -m 5 'test result' -t %7  # the newest 5 matching lines of %7
  tmuxwire search --start -500 -- -v        # a pattern that starts with '-'";

const CAPTURE_EXAMPLES: &str = "\
Examples:
  tmuxwire capture -t %3                    # the screen of pane %3
  tmuxwire capture -t work:1.0 --start -    # all its scrollback and the screen
  tmuxwire capture -t @2 --start -100 -J    # 100 rows back, wrapped lines joined
  tmuxwire capture --start -20 --end -1     # 20 scrollback rows, no screen";

const PANES_EXAMPLES: &str = "\
Examples:
  tmuxwire panes                            # every pane
  tmuxwire panes -t work                    # the panes of session work
  tmuxwire panes -t work:1                  # of window 1 of work
  tmuxwire panes | cut -f1,2                # ids and places";

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "tmuxwire", version, about = ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// tmux socket name, as `tmux -L` (a file in $TMUX_TMPDIR/tmux-UID/, default /tmp).
    #[arg(
        short = 'L',
        long = "socket-name",
        global = true,
        value_name = "NAME",
        display_order = 900
    )]
    pub socket_name: Option<String>,
    /// tmux socket path, as `tmux -S`.
    #[arg(
        short = 'S',
        long = "socket-path",
        global = true,
        value_name = "PATH",
        display_order = 901
    )]
    pub socket_path: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// A `--start`/`--end` value: a tmux line number, or `-` for as far as
/// it goes (the top of the history, the bottom of the screen), as tmux's
/// `capture-pane -S -`/`-E -`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineArg {
    /// `-`.
    Edge,
    /// A line number: 0 is the top of the screen, negative numbers are
    /// scrollback.
    At(i64),
}

impl FromStr for LineArg {
    type Err = String;

    fn from_str(s: &str) -> Result<LineArg, String> {
        if s == "-" {
            return Ok(LineArg::Edge);
        }
        s.parse().map(LineArg::At).map_err(|_| {
            "expected a line number (0 = top of the screen, negative = scrollback) or '-'".into()
        })
    }
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
pub struct CaptureArgs {
    /// The pane: %N, or a window or session for its active pane (default: the active pane of
    /// the current session).
    #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("The pane to capture, or a window or session for its active pane"))]
    pub target: Option<String>,
    /// First line: 0 is the top of the screen, negative numbers are scrollback, '-' the oldest
    /// line (default: 0).
    #[arg(long, allow_hyphen_values = true, value_name = "LINE")]
    pub start: Option<LineArg>,
    /// Last line, same numbering; '-' (the default) is the bottom of the screen.
    #[arg(long, allow_hyphen_values = true, value_name = "LINE")]
    pub end: Option<LineArg>,
    /// Join soft-wrapped rows into logical lines.
    #[arg(short = 'J', long)]
    pub join: bool,
    /// Print only the last N lines.
    #[arg(long, value_name = "N", value_parser = positive)]
    pub max_lines: Option<u64>,
}

/// `tmuxwire search`.
#[derive(Debug, Args)]
#[command(after_help = SEARCH_EXAMPLES)]
pub struct SearchArgs {
    /// The text to find: a literal unless -e/-E.
    pub pattern: String,
    /// PATTERN is a regular expression (Rust regex syntax; ^ and $ anchor each line).
    #[arg(
        short = 'e',
        long,
        visible_short_alias = 'E',
        overrides_with = "fixed_strings"
    )]
    pub regex: bool,
    /// PATTERN is a literal (the default; undoes -e).
    #[arg(short = 'F', long, overrides_with = "regex")]
    pub fixed_strings: bool,
    /// Ignore case.
    #[arg(short = 'i', long, overrides_with = "case_sensitive")]
    pub ignore_case: bool,
    /// Match case (the default; undoes -i).
    #[arg(short = 's', long, overrides_with = "ignore_case")]
    pub case_sensitive: bool,
    /// Only matches that are whole words (no word character just before or after).
    #[arg(short = 'w', long = "word-regexp", alias = "word")]
    pub word: bool,
    /// Print session:window.pane:COUNT for each matching pane.
    #[arg(short = 'c', long, conflicts_with = "list")]
    pub count: bool,
    /// Print only the matching panes (session:window.pane).
    #[arg(
        short = 'l',
        long = "panes-with-matches",
        visible_alias = "files-with-matches"
    )]
    pub list: bool,
    /// Print nothing; the exit status says whether a line matched.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Keep the newest N matching lines of each pane, not grep's first N: pane text grows at
    /// the bottom (default: all).
    #[arg(
        short = 'm',
        long = "max-count",
        alias = "max-per-pane",
        value_name = "N",
        value_parser = positive
    )]
    pub max_count: Option<u64>,
    /// Print N lines after each match.
    #[arg(short = 'A', long = "after-context", value_name = "N")]
    pub after: Option<usize>,
    /// Print N lines before each match.
    #[arg(short = 'B', long = "before-context", value_name = "N")]
    pub before: Option<usize>,
    /// Print N lines before and after each match (-A/-B override a side).
    #[arg(short = 'C', long = "context", value_name = "N")]
    pub context: Option<usize>,
    /// Colour places, line numbers and matches: auto (when stdout is a terminal and NO_COLOR is
    /// unset), always, never.
    #[arg(
        long,
        alias = "colour",
        value_enum,
        default_value_t,
        value_name = "WHEN"
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
}

const SEND_LONG: &str = "Type text into a pane exactly as given, and press keys by name.

TEXT is typed literally, byte for byte (a ';' at the end, a leading '-', quotes, $VAR, #{...}, \
line breaks, any script), then Enter unless -n, then each -k KEY in order. A key is a name such \
as Enter, C-c, Up, Escape, F5, M-x or C-Space; words in TEXT are never taken as keys. TEXT '-' \
reads the text from stdin. The target is a pane, or a window or session for its active pane \
(default: the active pane of the current session). Prints nothing; exit status 0 when sent, 2 \
on an error.";

const SEND_EXAMPLES: &str = "\
Examples:
  tmuxwire send -t %3 'make test'           # type it and press Enter
  tmuxwire send -t work:1.0 -n 'git commit' # type it, no Enter
  tmuxwire send -t %3 -k C-c                # press Ctrl-C
  tmuxwire send -t %3 -n -- '-v' -k Enter   # text that starts with '-'
  printf 'a\\nb\\n' | tmuxwire send -t %3 -n -   # text from stdin";

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
}

const WAIT_LONG: &str = "Wait until a pane prints a new line that matches, woken by the output itself.

Only lines printed after the wait begins count; the echo of a command tmuxwire just typed (tmuxwire \
send) is not output. PATTERN is literal text unless -e; case-sensitive unless -i. Without \
PATTERN, any new output ends the wait. --stop PATTERN (repeatable) ends it early, as a failure. \
Prints the matching lines (the last lines printed with --tail). With --send TEXT, types TEXT \
first and counts its output even if it came before the wait could begin. Exit status: 0 \
matched, 1 timed out (or the pane's program exited, or a full-screen program kept the screen), 3 \
stopped by --stop, 2 on an error.";

const WAIT_EXAMPLES: &str = "\
Examples:
  tmuxwire wait -t %3 --send 'make test' --stop FAILED 'tests passed'  # 0 passed, 3 failed
  tmuxwire wait -t %3 -e '^\\$$' --timeout 20         # the prompt '$ ' is back (lines are
                                                   # matched without trailing spaces)
  tmuxwire wait -t build:1 --tail                  # any output; show the last lines";

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
    /// Seconds to wait, at most the wait ceiling (30 unless TMUXWIRE_WAIT_MAX_SECONDS says
    /// otherwise, up to 120).
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
        /// Most text one tool answer carries, in bytes (K/KiB and M/MiB suffixes accepted):
        /// 16 KiB to 3 MiB, default 1 MiB. Answers over it are cut and say how to get the rest.
        #[arg(
            long,
            env = "TMUXWIRE_RESPONSE_BUDGET",
            value_name = "BYTES",
            value_parser = crate::mcp::budget::Budget::parse_size
        )]
        response_budget: Option<usize>,
        /// capture_pane and display_message send their text bare in the text block, as
        /// libtmux-mcp does (structuredContent keeps every field); default: the text block is
        /// the result's JSON.
        #[arg(long, env = "TMUXWIRE_PLAIN_TEXT", value_parser = clap::builder::BoolishValueParser::new())]
        plain_text: bool,
    },
    /// List panes: id, session:window.pane, size, command, path (one line each).
    ///
    /// Fields are separated by tabs; control characters and backslashes in them are escaped
    /// (\n, \t, \x1b, \\), so every pane is exactly one line.
    #[command(after_help = PANES_EXAMPLES)]
    Panes {
        /// Only these panes: a session, a window or a pane.
        #[arg(short = 't', long = "target", value_name = "TARGET", long_help = target_help!("Only these panes"))]
        target: Option<String>,
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

    #[test]
    fn flags_parse() {
        Cli::command().debug_assert();
        let c = Cli::try_parse_from(["tmuxwire", "search", "-e", "-F", "-i", "-s", "x"]).unwrap();
        let Cmd::Search(a) = c.command else { panic!() };
        assert!(!a.regex && a.fixed_strings && !a.ignore_case && a.case_sensitive);
        let c = Cli::try_parse_from(["tmuxwire", "search", "-F", "-E", "-C", "2", "-A", "0", "x"])
            .unwrap();
        let Cmd::Search(a) = c.command else { panic!() };
        assert!(a.regex && !a.fixed_strings);
        assert_eq!((a.context, a.after, a.before), (Some(2), Some(0), None));
        let c =
            Cli::try_parse_from(["tmuxwire", "capture", "--start", "-", "--end", "-5"]).unwrap();
        let Cmd::Capture(a) = c.command else { panic!() };
        assert_eq!(
            (a.start, a.end),
            (Some(LineArg::Edge), Some(LineArg::At(-5)))
        );
        assert!(Cli::try_parse_from(["tmuxwire", "search", "-c", "-l", "x"]).is_err());
        assert!(Cli::try_parse_from(["tmuxwire", "search", "-m", "0", "x"]).is_err());
    }
}
