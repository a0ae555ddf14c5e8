//! Line output: a buffered stdout that survives a closed pipe, escaping so
//! that one record stays one line, and ripgrep's colours.
//!
//! # Escaping
//!
//! Two levels, both pure:
//!
//! * [`escape_field`] is for metadata printed as tab-separated fields
//!   (`panes`: session names, commands, paths). Control characters become
//!   C-style escapes (`\n`, `\t`, `\x1b`, `\u0085`) and a backslash becomes
//!   `\\`, so every value can be decoded exactly and a directory whose name
//!   holds a line break cannot split a pane over two lines (public case
//!   C25).
//! * [`escape_text`] is for pane text (`search` lines). Control characters
//!   are escaped the same way, so pane text cannot drive the terminal or
//!   break a line; backslashes are printed as they are, so the text reads
//!   as it does on the screen.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{BufWriter, StdoutLock, Write};
use std::ops::Range;

/// Whether a character is escaped: C0 and C1 controls, DEL, and the
/// Unicode line and paragraph separators (some programs break lines there).
fn is_special(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Appends the escape for `c` (see [`escape_field`]).
fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0b' => out.push_str("\\v"),
        '\x0c' => out.push_str("\\f"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
    }
}

fn escape(s: &str, backslash: bool) -> Cow<'_, str> {
    let needs = |c: char| is_special(c) || (backslash && c == '\\');
    if !s.chars().any(needs) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if backslash && c == '\\' {
            out.push_str("\\\\");
        } else if is_special(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` with control characters as C-style escapes (`\n`, `\t`, `\r`, `\a`,
/// `\b`, `\v`, `\f`, other ASCII controls and DEL as `\xHH`, C1 controls and
/// U+2028/U+2029 as `\uHHHH`) and `\` as `\\`: one line, decodable exactly.
///
/// Borrowed when nothing needs escaping.
pub fn escape_field(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// `s` with control characters escaped as [`escape_field`] does, and
/// backslashes left alone (pane text as it reads on the screen).
pub fn escape_text(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// `--color`: when to colour output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    /// Always (even into a pipe, even with `NO_COLOR`).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour, given whether stdout is a terminal and the value
    /// of `NO_COLOR` (<https://no-color.org>: set and non-empty disables
    /// colour).
    pub fn enabled(self, stdout_is_terminal: bool, no_color: Option<&str>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stdout_is_terminal && no_color.is_none_or(str::is_empty),
        }
    }

    /// [`ColorChoice::enabled`] for this process.
    pub fn enabled_here(self) -> bool {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
        let no_color = std::env::var("NO_COLOR").ok();
        self.enabled(tty, no_color.as_deref())
    }
}

/// SGR sequences, as ripgrep's defaults: place magenta, line number green,
/// match bold red.
const PLACE: &str = "\x1b[35m";
const NUMBER: &str = "\x1b[32m";
const MATCH: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

/// Formats the parts of an output line, coloured or not.
#[derive(Clone, Copy, Debug)]
pub struct Painter {
    color: bool,
}

impl Painter {
    /// A painter that colours when `color` is true.
    pub fn new(color: bool) -> Painter {
        Painter { color }
    }

    /// Whether this painter colours.
    pub fn is_coloured(&self) -> bool {
        self.color
    }

    fn paint(&self, out: &mut String, style: &str, text: &str) {
        if self.color {
            out.push_str(style);
            out.push_str(text);
            out.push_str(RESET);
        } else {
            out.push_str(text);
        }
    }

    /// Appends a place (`session:window.pane`), already escaped.
    pub fn place(&self, out: &mut String, place: &str) {
        self.paint(out, PLACE, place);
    }

    /// Appends a line number.
    pub fn number(&self, out: &mut String, n: i64) {
        self.paint(out, NUMBER, &n.to_string());
    }

    /// Appends pane text, escaped with [`escape_text`], with the byte
    /// ranges `matches` (sorted, not overlapping, on character boundaries)
    /// highlighted.
    pub fn text(&self, out: &mut String, text: &str, matches: &[Range<usize>]) {
        if !self.color || matches.is_empty() {
            out.push_str(&escape_text(text));
            return;
        }
        let mut at = 0;
        for m in matches {
            let (Some(before), Some(hit)) = (text.get(at..m.start), text.get(m.start..m.end))
            else {
                continue;
            };
            out.push_str(&escape_text(before));
            self.paint(out, MATCH, &escape_text(hit));
            at = m.end;
        }
        out.push_str(&escape_text(text.get(at..).unwrap_or("")));
    }
}

/// Buffered stdout. A write that fails (a closed pipe: `tmuxwire search x
/// | head -1`) stops all further output instead of panicking, as ripgrep
/// does.
pub struct Out {
    w: BufWriter<StdoutLock<'static>>,
    broken: bool,
}

impl Default for Out {
    fn default() -> Out {
        Out::new()
    }
}

impl Out {
    /// Locks stdout for buffered writing.
    pub fn new() -> Out {
        Out {
            w: BufWriter::with_capacity(64 << 10, std::io::stdout().lock()),
            broken: false,
        }
    }

    /// Writes `line` and a line break.
    pub fn line(&mut self, line: &str) {
        if self.broken {
            return;
        }
        if self.w.write_all(line.as_bytes()).is_err() || self.w.write_all(b"\n").is_err() {
            self.broken = true;
        }
    }

    /// Flushes the buffer.
    pub fn flush(&mut self) {
        if !self.broken && self.w.flush().is_err() {
            self.broken = true;
        }
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A writer that masks secrets before they reach `w` (`tmuxwire capture
/// --redact`), or passes bytes through unchanged (off). Whole lines (a
/// joined capture, `-J`) are masked a line at a time
/// ([`crate::redact::LineRedactor`]: lines that may still be a private
/// key's body are held until that is known); rows of a known width are
/// held until [`Redacting::finish`] and masked together, so a secret that
/// a soft wrap splits over rows is read whole
/// ([`crate::redact::find_rows`]).
pub struct Redacting<W: Write> {
    w: W,
    mode: Masking,
    /// The start of a line whose `\n` has not come yet (line mode), or
    /// every row (row mode).
    partial: Vec<u8>,
    failed: Option<std::io::Error>,
}

/// How [`Redacting`] masks.
enum Masking {
    Off,
    Lines(Box<crate::redact::LineRedactor>),
    /// Rows of this many cells.
    Rows(usize),
}

impl<W: Write> Redacting<W> {
    /// Writes to `w`, masking secrets when `on`; `rows`: the text is a
    /// terminal's rows of that many cells (not joined), read whole at the
    /// end.
    pub fn new(w: W, on: bool, rows: Option<usize>) -> Redacting<W> {
        let mode = match (on, rows) {
            (false, _) => Masking::Off,
            (true, None) => Masking::Lines(Box::default()),
            (true, Some(width)) => Masking::Rows(width),
        };
        Redacting {
            w,
            mode,
            partial: Vec::new(),
            failed: None,
        }
    }

    /// Writes what is held (a last line without its `\n` too) and
    /// flushes; returns the writer.
    ///
    /// # Errors
    ///
    /// The first write error.
    pub fn finish(mut self) -> std::io::Result<W> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let last = std::mem::take(&mut self.partial);
        match std::mem::replace(&mut self.mode, Masking::Off) {
            Masking::Off => {}
            Masking::Rows(width) => {
                let spans = crate::redact::find_rows(&last, width);
                self.w.write_all(&crate::redact::apply(&last, &spans))?;
            }
            Masking::Lines(mut r) => {
                let mut lines = Vec::new();
                if !last.is_empty() {
                    r.push(&last, |l| lines.push(l.to_vec()));
                }
                r.finish(|l| lines.push(l.to_vec()));
                let n = lines.len();
                for (i, l) in lines.into_iter().enumerate() {
                    self.w.write_all(&l)?;
                    // The last line had no line break if it came unfinished.
                    if i + 1 < n || last.is_empty() {
                        self.w.write_all(b"\n")?;
                    }
                }
            }
        }
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = match &mut self.mode {
            Masking::Off => return self.w.write(buf),
            Masking::Rows(_) => {
                self.partial.extend_from_slice(buf);
                return Ok(buf.len());
            }
            Masking::Lines(r) => r,
        };
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let (w, failed) = (&mut self.w, &mut self.failed);
        let mut out = |l: &[u8]| {
            if failed.is_none()
                && let Err(e) = w.write_all(l).and_then(|()| w.write_all(b"\n"))
            {
                *failed = Some(e);
            }
        };
        let mut at = 0;
        for i in memchr::memchr_iter(b'\n', buf) {
            if self.partial.is_empty() {
                r.push(&buf[at..i], &mut out);
            } else {
                self.partial.extend_from_slice(&buf[at..i]);
                r.push(&self.partial, &mut out);
                self.partial.clear();
            }
            at = i + 1;
        }
        self.partial.extend_from_slice(&buf[at..]);
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // Held lines wait for what decides them; only `finish` forces them.
        self.w.flush()
    }
}

/// `n` with thousands separators (`12,345`), for notes.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        assert_eq!(escape_field("/home/me"), "/home/me");
        assert!(matches!(escape_field("plain"), Cow::Borrowed(_)));
        assert_eq!(escape_field("evil\ndir"), "evil\\ndir");
        assert_eq!(escape_field("a\tb\rc"), "a\\tb\\rc");
        assert_eq!(escape_field("\x1b[31mred"), "\\x1b[31mred");
        assert_eq!(escape_field("back\\slash"), "back\\\\slash");
        assert_eq!(escape_field("\x7f\x00"), "\\x7f\\x00");
        assert_eq!(escape_field("\u{85}x\u{2028}"), "\\u0085x\\u2028");
        assert_eq!(escape_field("\x07\x08\x0b\x0c"), "\\a\\b\\v\\f");
        // Printable Unicode stays.
        assert_eq!(escape_field("école ❤️ 日本"), "école ❤️ 日本");
        // One line, whatever the input.
        let all: String = (0u32..0x250).filter_map(char::from_u32).collect();
        assert!(!escape_field(&all).contains(['\n', '\r', '\u{85}']));
    }

    #[test]
    fn text() {
        assert_eq!(escape_text(r"C:\Users"), r"C:\Users");
        assert_eq!(escape_text("a\x1bb\n"), "a\\x1bb\\n");
    }

    #[test]
    fn colour_choice() {
        use ColorChoice::*;
        assert!(Always.enabled(false, Some("1")));
        assert!(!Never.enabled(true, None));
        assert!(Auto.enabled(true, None));
        assert!(Auto.enabled(true, Some("")));
        assert!(!Auto.enabled(true, Some("1")));
        assert!(!Auto.enabled(false, None));
    }

    #[test]
    fn painting() {
        let mut s = String::new();
        let error = 3..8;
        Painter::new(false).text(&mut s, "an error\x1b here", &[error]);
        assert_eq!(s, "an error\\x1b here");
        let mut s = String::new();
        let p = Painter::new(true);
        p.place(&mut s, "w:0.1");
        s.push(':');
        p.number(&mut s, -3);
        s.push(':');
        p.text(&mut s, "an error\x1b err", &[3..8, 10..13]);
        assert_eq!(
            s,
            "\x1b[35mw:0.1\x1b[0m:\x1b[32m-3\x1b[0m:an \x1b[1;31merror\x1b[0m\\x1b \
             \x1b[1;31merr\x1b[0m"
        );
        // Ranges off character boundaries are skipped, never a panic.
        let mut s = String::new();
        let inside = 1..2;
        p.text(&mut s, "é", &[inside]);
        assert_eq!(s, "é");
    }
}
