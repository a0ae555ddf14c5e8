//! Building tmux command lines that mean exactly what they say. Pure.
//!
//! Control mode sends command *text*, which tmux parses with its full
//! configuration grammar (cmd-parse.y), so every argument must be quoted:
//! unquoted, `;` splits commands, `$X` and `~` expand, `#` starts a
//! comment, `{` opens a block and a leading `%` is a syntax error. Inside
//! single quotes nothing is special but `'`; a quote or a line break
//! cannot appear there, so those are written as the unquoted escapes `\'`
//! and `\n` between quoted runs (`'it'\''s'`). No raw line break ever
//! reaches the server: control mode would take it as the end of the
//! command.
//!
//! Targets name objects by id (`$N`, `@N`, `%N`) or by exact session name
//! (`=name`), never by tmux's prefix or pattern match (`-t build` matches
//! a session `build-x`; `-t =build` does not).

use std::fmt;

use super::correlate::{FrameSpec, Shape};
use super::id::{PaneId, SessionId, WindowId};

/// What a command targets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A session by id.
    Session(SessionId),
    /// A session by exact name.
    SessionName(String),
    /// A window by id.
    Window(WindowId),
    /// A pane by id.
    Pane(PaneId),
    /// A window by its index in a session (`$N:I` or `=name:I`).
    WindowIndex {
        /// The session (by id or exact name).
        session: Box<Target>,
        /// The window index.
        index: u32,
    },
}

/// The kind of object a command's `-t` expects; it decides how a session
/// name is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// `-t` takes a session (`has-session`, `list-windows`, …).
    Session,
    /// `-t` takes a window (`list-panes`, `select-window`, …).
    Window,
    /// `-t` takes a pane (`capture-pane`, `send-keys`, …).
    Pane,
}

impl Target {
    /// The `-t` argument for a command whose target is of `kind`.
    ///
    /// A session name becomes `=name` for session targets and `=name:` for
    /// window and pane targets (a bare `=name` would be read as a window or
    /// pane name there); the session's current window and that window's
    /// active pane are then used, as tmux does for `$N`.
    pub fn to_arg(&self, kind: TargetKind) -> String {
        match (self, kind) {
            (Target::Session(id), _) => id.to_string(),
            (Target::SessionName(n), TargetKind::Session) => format!("={n}"),
            (Target::SessionName(n), _) => format!("={n}:"),
            (Target::Window(id), _) => id.to_string(),
            (Target::Pane(id), _) => id.to_string(),
            (Target::WindowIndex { session, index }, _) => {
                let s = session.to_arg(TargetKind::Session);
                format!("{s}:{index}")
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Session(id) => write!(f, "{id}"),
            Target::SessionName(n) => {
                // Names can be long: a message repeats at most 200 characters.
                let short: String = n.chars().take(200).collect();
                if short.len() < n.len() {
                    write!(f, "session {short:?}…")
                } else {
                    write!(f, "session {n:?}")
                }
            }
            Target::Window(id) => write!(f, "{id}"),
            Target::Pane(id) => write!(f, "{id}"),
            Target::WindowIndex { session, index } => write!(f, "window {index} of {session}"),
        }
    }
}

/// How many answer blocks a command line produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocks {
    /// Exactly one `%begin`/`%end` block.
    One,
    /// Possibly several, or output after `%end` (`if-shell`, `run-shell`,
    /// `source-file`, `wait-for`, prompts…): the client fences it.
    Variable,
}

/// Commands that may answer with other than exactly one block.
const VARIABLE_BLOCK_COMMANDS: &[&str] = &[
    "if-shell",
    "if",
    "run-shell",
    "run",
    "source-file",
    "source",
    "wait-for",
    "wait",
    "command-prompt",
    "confirm-before",
    "confirm",
    "display-menu",
    "menu",
    "display-popup",
    "popup",
    "choose-tree",
    "choose-buffer",
    "choose-client",
];

/// A tmux command: a name and its arguments, unquoted, and how the body
/// of its answer ends ([`FrameSpec::Guard`] unless set with
/// [`Command::frame`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    argv: Vec<String>,
    frame: FrameSpec,
}

/// One control-mode input line: one command, or several that tmux parses
/// as one list (`a ; b ; c`) and runs back to back, skipping the rest of
/// the list after a command fails. Because tmux reads whole lines, nothing
/// else (another client's command, pane output) runs between the commands
/// of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    cmds: Vec<Command>,
}

impl Line {
    /// A line of several commands, run in order. At least one command.
    pub fn list(cmds: Vec<Command>) -> Line {
        Line { cmds }
    }

    /// The commands.
    pub fn commands(&self) -> &[Command] {
        &self.cmds
    }

    /// What the line answers with: one block per command (each framed by
    /// its command's [`FrameSpec`]), or, for a single command whose block
    /// count is unknown, a fence.
    pub fn shape(&self) -> Shape {
        match self.cmds.as_slice() {
            [one] if one.blocks() == Blocks::Variable => Shape::Fenced(Vec::new()),
            cmds => Shape::Blocks(cmds.iter().map(|c| c.frame.clone()).collect()),
        }
    }

    /// The line's text without its `\n`: the commands' lines joined with
    /// ` ; `.
    ///
    /// # Errors
    ///
    /// [`CommandError::Nul`] if an argument contains NUL;
    /// [`CommandError::Empty`] for a line without commands.
    pub fn to_line(&self) -> Result<String, CommandError> {
        if self.cmds.is_empty() {
            return Err(CommandError::Empty);
        }
        let mut out = String::new();
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                out.push_str(" ; ");
            }
            out.push_str(&c.to_line()?);
        }
        Ok(out)
    }
}

impl From<Command> for Line {
    fn from(c: Command) -> Line {
        Line { cmds: vec![c] }
    }
}

/// Why a command cannot be sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// An argument contains a NUL byte, which tmux cannot carry.
    #[error("a tmux argument contains a NUL byte")]
    Nul,
    /// A [`Line`] without commands.
    #[error("an empty command line")]
    Empty,
}

impl Command {
    /// A command with no arguments yet. `name` is a tmux command name.
    pub fn new(name: &str) -> Command {
        Command {
            argv: vec![name.to_string()],
            frame: FrameSpec::Guard,
        }
    }

    /// The same command, its answer's body ending as `frame` says (for
    /// output that can hold text programs in panes control).
    pub fn frame(mut self, frame: FrameSpec) -> Command {
        self.frame = frame;
        self
    }

    /// How the body of this command's answer ends.
    pub fn frame_spec(&self) -> &FrameSpec {
        &self.frame
    }

    /// Appends one argument (a flag, a value, free text — all the same).
    pub fn arg(mut self, a: impl Into<String>) -> Command {
        self.argv.push(a.into());
        self
    }

    /// Appends `flag value`.
    pub fn opt(self, flag: &str, value: impl Into<String>) -> Command {
        self.arg(flag).arg(value)
    }

    /// Appends `flag value` when `value` is `Some`.
    pub fn opt_if(self, flag: &str, value: Option<impl Into<String>>) -> Command {
        match value {
            Some(v) => self.opt(flag, v),
            None => self,
        }
    }

    /// Appends `-t <target>` for a command whose target is of `kind`.
    pub fn target(self, t: &Target, kind: TargetKind) -> Command {
        let a = t.to_arg(kind);
        self.opt("-t", a)
    }

    /// The command name.
    pub fn name(&self) -> &str {
        &self.argv[0]
    }

    /// The unquoted arguments, name first.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// How many blocks this command answers with.
    pub fn blocks(&self) -> Blocks {
        if VARIABLE_BLOCK_COMMANDS.contains(&self.name()) {
            Blocks::Variable
        } else {
            Blocks::One
        }
    }

    /// The command as one control-mode line, without the `\n`: the name,
    /// then every argument quoted with [`quote`].
    ///
    /// # Errors
    ///
    /// [`CommandError::Nul`] if an argument contains NUL.
    pub fn to_line(&self) -> Result<String, CommandError> {
        let mut line = String::with_capacity(self.argv.iter().map(|a| a.len() + 3).sum());
        for (i, a) in self.argv.iter().enumerate() {
            if a.contains('\0') {
                return Err(CommandError::Nul);
            }
            if i > 0 {
                line.push(' ');
            }
            if is_bare_word(a) {
                line.push_str(a);
            } else {
                quote_into(a, &mut line);
            }
        }
        Ok(line)
    }
}

/// True for words that tmux reads back unchanged without quotes: command
/// names, flags, plain numbers.
fn is_bare_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Quotes `arg` so tmux's parser reads it back as exactly one argument
/// equal to `arg`.
///
/// Runs of ordinary characters go inside single quotes; `'` becomes `\'`
/// and a line feed `\n`, both outside quotes (cmd-parse.y:
/// `yylex_token()`, `yylex_token_escape()`). The result contains no line
/// break. The empty string becomes `''`.
///
/// The dual of this routine is [`unquote`].
pub fn quote(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len() + 2);
    quote_into(arg, &mut out);
    out
}

fn quote_into(arg: &str, out: &mut String) {
    if arg.is_empty() {
        out.push_str("''");
        return;
    }
    let mut open = false;
    for c in arg.chars() {
        match c {
            '\'' | '\n' => {
                if open {
                    out.push('\'');
                    open = false;
                }
                out.push_str(if c == '\'' { "\\'" } else { "\\n" });
            }
            _ => {
                if !open {
                    out.push('\'');
                    open = true;
                }
                out.push(c);
            }
        }
    }
    if open {
        out.push('\'');
    }
}

/// Splits one command line into arguments the way tmux's parser would,
/// for the subset of the grammar [`quote`] produces and a little more:
/// whitespace separation, single quotes, double quotes with `\`-escapes,
/// and unquoted `\`-escapes. Variables and `~` are not expanded (such input
/// gives `None`), nor are `;`, `{`, `}`, `#` or a leading `%` accepted
/// unquoted.
///
/// A reference for tests and fuzzing: `unquote(&quote(s)) == Some(vec![s])`.
/// The dual of this routine is [`quote`].
pub fn unquote(line: &str) -> Option<Vec<String>> {
    #[derive(PartialEq)]
    enum St {
        None,
        Single,
        Double,
    }
    let mut args = Vec::new();
    let mut cur: Option<String> = None;
    let mut st = St::None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match st {
            St::None => match c {
                ' ' | '\t' => {
                    if let Some(a) = cur.take() {
                        args.push(a);
                    }
                }
                '\'' => {
                    cur.get_or_insert_with(String::new);
                    st = St::Single;
                }
                '"' => {
                    cur.get_or_insert_with(String::new);
                    st = St::Double;
                }
                '\\' => {
                    let e = escape(chars.next()?)?;
                    cur.get_or_insert_with(String::new).push(e);
                }
                ';' | '{' | '}' | '$' | '~' | '\n' => return None,
                '#' | '%' if cur.is_none() => return None,
                _ => cur.get_or_insert_with(String::new).push(c),
            },
            St::Single => match c {
                '\'' => st = St::None,
                '\n' => return None,
                _ => cur.get_or_insert_with(String::new).push(c),
            },
            St::Double => match c {
                '"' => st = St::None,
                '\\' => {
                    let e = escape(chars.next()?)?;
                    cur.get_or_insert_with(String::new).push(e);
                }
                '$' | '~' | '\n' => return None,
                _ => cur.get_or_insert_with(String::new).push(c),
            },
        }
    }
    if st != St::None {
        return None;
    }
    if let Some(a) = cur.take() {
        args.push(a);
    }
    Some(args)
}

/// tmux's single-character escapes (`yylex_token_escape()`); octal and
/// `\u`/`\U` forms are not produced by [`quote`] and are refused.
fn escape(c: char) -> Option<char> {
    Some(match c {
        'a' => '\x07',
        'b' => '\x08',
        'e' => '\x1b',
        'f' => '\x0c',
        's' => ' ',
        'v' => '\x0b',
        'r' => '\r',
        'n' => '\n',
        't' => '\t',
        'u' | 'U' | '0'..='7' => return None,
        c => c,
    })
}

/// Fuzz entry point: for any text, [`quote`] yields one line that
/// [`unquote`] reads back as exactly that argument.
#[doc(hidden)]
pub fn fuzz_quote(data: &[u8]) {
    let s = String::from_utf8_lossy(data).replace('\0', "");
    let q = quote(&s);
    assert!(!q.contains('\n'), "raw newline in {q:?}");
    assert_eq!(unquote(&q), Some(vec![s.clone()]), "quoted as {q:?}");
    let cmd = Command::new("display-message")
        .arg("-p")
        .arg(s.clone())
        .arg(s.clone());
    let line = cmd.to_line().expect("no NUL");
    assert_eq!(
        unquote(&line),
        Some(vec!["display-message".into(), "-p".into(), s.clone(), s])
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        for (text, quoted) in [
            ("abc", "'abc'"),
            ("", "''"),
            ("it's", "'it'\\''s'"),
            ("'", "\\'"),
            ("a\nb", "'a'\\n'b'"),
            ("%0:pause", "'%0:pause'"),
            ("a;b", "'a;b'"),
            ("#{pane_id} $HOME ~ \\", "'#{pane_id} $HOME ~ \\'"),
        ] {
            assert_eq!(quote(text), quoted, "{text:?}");
        }
    }

    #[test]
    fn roundtrip_hostile() {
        for s in [
            "",
            " ",
            "'",
            "''",
            "\\",
            "\\'",
            "a b",
            "x;",
            ";",
            "echo one;",
            "#{session_name}",
            "#(touch /tmp/pwned)",
            "$HOME",
            "~root",
            "{",
            "}",
            "%if",
            "%end 1 2 1",
            "日本語 😀",
            "tab\there",
            "cr\rhere",
            "a\nb\n",
            "\"quoted\"",
            "-t",
            "--",
            "=name",
        ] {
            let q = quote(s);
            assert!(!q.contains('\n'));
            assert_eq!(unquote(&q), Some(vec![s.to_string()]), "{s:?} -> {q}");
        }
    }

    #[test]
    fn command_lines() {
        let c = Command::new("capture-pane")
            .arg("-p")
            .arg("-J")
            .opt("-S", "-")
            .target(&Target::Pane(PaneId(3)), TargetKind::Pane);
        assert_eq!(c.to_line().unwrap(), "capture-pane -p -J -S - -t '%3'");
        assert_eq!(c.blocks(), Blocks::One);
        assert_eq!(
            Command::new("run-shell").arg("true").blocks(),
            Blocks::Variable
        );
        assert_eq!(
            Command::new("x").arg("a\0").to_line(),
            Err(CommandError::Nul)
        );
    }

    #[test]
    fn targets() {
        let n = Target::SessionName("build".into());
        assert_eq!(n.to_arg(TargetKind::Session), "=build");
        assert_eq!(n.to_arg(TargetKind::Pane), "=build:");
        assert_eq!(Target::Session(SessionId(2)).to_arg(TargetKind::Pane), "$2");
        assert_eq!(Target::Window(WindowId(5)).to_arg(TargetKind::Window), "@5");
        let wi = Target::WindowIndex {
            session: Box::new(n),
            index: 3,
        };
        assert_eq!(wi.to_arg(TargetKind::Pane), "=build:3");
    }

    #[test]
    fn fuzz_smoke() {
        fuzz_quote(b"");
        fuzz_quote(b"'\n\\;#{}$~%");
        fuzz_quote(&[0xff, 0xfe, b'\'', 0]);
    }
}
