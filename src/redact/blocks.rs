//! Private keys over several lines: which lines of a text are a key's
//! body, read a line at a time by one state machine ([`Blocks`]) that
//! both [`Blocks::scan`] (a whole text) and [`LineRedactor`] (lines as
//! they are printed) drive.
//!
//! # Rules
//!
//! Lines are classed after trimming blanks (and a leading line number
//! such as `cat -n`, `nl` or `grep -n` print, `12\t`, `12:`):
//!
//! * **begin**: `-----BEGIN <LABEL>PRIVATE KEY-----` (or `PRIVATE KEY
//!   BLOCK`, PGP's), with no body after it on the line (a key written on
//!   one line is the one-line rules' job);
//! * **end**: `-----END <LABEL>PRIVATE KEY-----`;
//! * **body**: base64 only (`A-Z a-z 0-9 + / =`); **full** when it is as
//!   wide as PEM (64) or OpenSSH (70) write them and holds both upper and
//!   lower case letters (a hex hash has one case);
//! * **header** (`Proc-Type: 4,ENCRYPTED`), **blank**, or anything else.
//!
//! Then:
//!
//! * From a begin line to the next end line, every body, header or blank
//!   line is the key's: its body and header lines are masked, the
//!   markers stay. A line of anything else ends the block early (the key
//!   was cut, or the begin line was only quoted).
//! * A block whose end is not in the text (cut at the bottom of a
//!   capture) runs to the text's end.
//! * An end line with no block open: the body lines just above it are
//!   the key's (cut at the top of a capture).
//! * Body lines with neither marker around them, three or more full ones
//!   of one width, all but the last full: a key cut at both ends (or a
//!   certificate's body, masked too: no marker says which).
//!
//! Each block counts as one secret, however many lines it masks.

use std::collections::VecDeque;
use std::ops::Range;

use super::{Counts, Kind, Span};

/// Lines [`LineRedactor`] holds back at most while a key may still
/// claim them; past it, what is pending is settled ([`Blocks::settle`]).
/// A private key is at most a few hundred lines (a 16384-bit RSA key in
/// PEM is about 170).
pub const MAX_HELD_LINES: usize = 1024;

/// What a line is, for the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Begin,
    End,
    /// Base64 from byte `at` (after any line number) to `end`; `full`:
    /// its width, when it is a full-width key line.
    Body {
        at: usize,
        end: usize,
        full: Option<usize>,
    },
    Header,
    Blank,
    Other,
}

/// Bytes of base64 (the standard alphabet and padding).
fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// The offset after `-----` that closes a private key marker's label
/// starting at `from` in `t`, if there is one: `[A-Z0-9 ]*PRIVATE KEY`,
/// or PGP's `… PRIVATE KEY BLOCK`.
fn marker_end(t: &[u8], from: usize) -> Option<usize> {
    let rest = t.get(from..)?;
    let len = rest.iter().take(64).position(|&b| b == b'-')?;
    let label = &rest[..len];
    let private = label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK");
    let plain = label
        .iter()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b' ');
    (private && plain && rest[len..].starts_with(b"-----")).then_some(from + len + 5)
}

/// Where a leading line number ends (`  12\t`, `12:`, `12-`, as `cat -n`,
/// `nl`, `grep -n` write them), or 0.
fn after_number(t: &[u8]) -> usize {
    let digits = t.iter().take(10).take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits == t.len() {
        return 0;
    }
    match t[digits] {
        b':' | b'-' => digits + 1,
        b' ' | b'\t' => {
            digits
                + t[digits..]
                    .iter()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count()
        }
        _ => 0,
    }
}

fn classify(line: &[u8]) -> Class {
    let lead = line.len() - line.trim_ascii_start().len();
    let t = line.trim_ascii();
    if t.is_empty() {
        return Class::Blank;
    }
    if t.len() >= 25 && memchr::memmem::find(t, b"-----").is_some() {
        let begin = memchr::memmem::find(t, b"-----BEGIN ").and_then(|b| marker_end(t, b + 11));
        let end = memchr::memmem::find(t, b"-----END ").and_then(|e| marker_end(t, e + 9));
        return match (begin, end) {
            (Some(after), None) => {
                let body = t[after..].iter().filter(|&&b| is_base64(b)).count();
                if body >= 16 {
                    Class::Other
                } else {
                    Class::Begin
                }
            }
            (None, Some(_)) => Class::End,
            _ => Class::Other,
        };
    }
    let skip = after_number(t);
    let b = &t[skip..];
    if !b.is_empty() && b.iter().all(|&x| is_base64(x)) {
        let mixed = b.iter().any(u8::is_ascii_uppercase) && b.iter().any(u8::is_ascii_lowercase);
        let full = (mixed && (b.len() == 64 || b.len() == 70)).then_some(b.len());
        let at = lead + skip;
        return Class::Body {
            at,
            end: at + b.len(),
            full,
        };
    }
    let name = t
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    if name > 0 && t[0].is_ascii_alphabetic() && t[name..].starts_with(b": ") {
        return Class::Header;
    }
    Class::Other
}

/// Body lines with no marker open, since `start`.
#[derive(Clone, Copy, Debug)]
struct Run {
    start: usize,
    /// Full-width lines in it, and their width.
    full: usize,
    width: usize,
    /// A line that is not full was seen (only the last may be one).
    short: bool,
    /// Not a key's body cut at both ends.
    broken: bool,
}

impl Run {
    fn new(start: usize) -> Run {
        Run {
            start,
            full: 0,
            width: 0,
            short: false,
            broken: false,
        }
    }

    fn add(&mut self, full: Option<usize>) {
        if self.short {
            self.broken = true;
        }
        match full {
            Some(w) if self.full == 0 || w == self.width => {
                self.width = w;
                self.full += 1;
            }
            Some(_) => self.broken = true,
            None => self.short = true,
        }
    }

    fn is_fragment(&self) -> bool {
        !self.broken && self.full >= 3
    }
}

#[derive(Clone, Copy, Debug)]
enum State {
    /// No block open; maybe a run of body lines.
    Closed(Option<Run>),
    /// A block's lines since `start`; `emitted`: some were already given
    /// out ([`Blocks::settle`]), so the rest does not count again.
    Open { start: usize, emitted: bool },
}

/// Lines that are a key's body, as the machine settles them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Emit {
    /// Line indexes (0 = the first line pushed).
    pub(super) lines: Range<usize>,
    /// They begin a key (the block is counted once, at its first line).
    pub(super) new: bool,
}

/// The rules of the module docs as a state machine over lines.
#[derive(Clone, Debug)]
pub(super) struct Blocks {
    next: usize,
    state: State,
}

impl Blocks {
    pub(super) fn new() -> Blocks {
        Blocks {
            next: 0,
            state: State::Closed(None),
        }
    }

    /// Takes the next line (without its `\n`); returns the lines it
    /// settles as a key's body, if any.
    pub(super) fn push(&mut self, line: &[u8]) -> Option<Emit> {
        let i = self.next;
        self.next += 1;
        let class = classify(line);
        let fragment = |run: Option<Run>, end: usize| {
            run.filter(Run::is_fragment).map(|r| Emit {
                lines: r.start..end,
                new: true,
            })
        };
        let open = |start: usize, emitted: bool, end: usize| {
            (start < end).then_some(Emit {
                lines: start..end,
                new: !emitted,
            })
        };
        match (self.state, class) {
            (State::Closed(run), Class::Begin) => {
                self.state = State::Open {
                    start: i + 1,
                    emitted: false,
                };
                fragment(run, i)
            }
            (State::Closed(run), Class::End) => {
                self.state = State::Closed(None);
                run.map(|r| Emit {
                    lines: r.start..i,
                    new: true,
                })
            }
            (State::Closed(run), Class::Body { full, .. }) => {
                let mut r = run.unwrap_or(Run::new(i));
                r.add(full);
                self.state = State::Closed(Some(r));
                None
            }
            (State::Closed(run), _) => {
                self.state = State::Closed(None);
                fragment(run, i)
            }
            (State::Open { start, emitted }, Class::End | Class::Other) => {
                self.state = State::Closed(None);
                open(start, emitted, i)
            }
            (State::Open { start, emitted }, Class::Begin) => {
                self.state = State::Open {
                    start: i + 1,
                    emitted: false,
                };
                open(start, emitted, i)
            }
            (State::Open { .. }, Class::Body { .. } | Class::Header | Class::Blank) => None,
        }
    }

    /// The end of the text: an open block runs to it; a run is a key's
    /// only as a fragment.
    pub(super) fn finish(&mut self) -> Option<Emit> {
        let end = self.next;
        let state = std::mem::replace(&mut self.state, State::Closed(None));
        match state {
            State::Open { start, emitted } => (start < end).then_some(Emit {
                lines: start..end,
                new: !emitted,
            }),
            State::Closed(run) => run.filter(Run::is_fragment).map(|r| Emit {
                lines: r.start..end,
                new: true,
            }),
        }
    }

    /// The first line a later [`Emit`] may still cover (`None`: every line
    /// pushed is settled).
    pub(super) fn pending_from(&self) -> Option<usize> {
        match self.state {
            State::Closed(None) => None,
            State::Closed(Some(r)) => Some(r.start),
            State::Open { start, .. } => Some(start),
        }
    }

    /// Settles what is pending now, for a reader that cannot hold more
    /// lines: an open block's lines so far are the key's (the block goes
    /// on); a run is one only if it is a fragment, else it is given up.
    pub(super) fn settle(&mut self) -> Option<Emit> {
        let end = self.next;
        match self.state {
            State::Open { start, emitted } => {
                self.state = State::Open {
                    start: end,
                    emitted: emitted || start < end,
                };
                (start < end).then_some(Emit {
                    lines: start..end,
                    new: !emitted,
                })
            }
            State::Closed(run) => {
                self.state = State::Closed(None);
                run.filter(Run::is_fragment).map(|r| Emit {
                    lines: r.start..end,
                    new: true,
                })
            }
        }
    }

    /// The spans of the key lines of `text` (`\n`-separated lines): each
    /// masked line's content, blanks and a line number left out, sorted.
    pub(super) fn scan(text: &[u8]) -> Vec<Span> {
        let mut b = Blocks::new();
        let mut out = Vec::new();
        // The lines a later emit may still cover: index and byte range.
        let mut held: VecDeque<(usize, Range<usize>)> = VecDeque::new();
        let mut at = 0;
        let ends = memchr::memchr_iter(b'\n', text).chain(std::iter::once(text.len()));
        for (i, end) in ends.enumerate() {
            let range = at..end;
            at = end + 1;
            held.push_back((i, range.clone()));
            if let Some(e) = b.push(&text[range]) {
                mark(text, &held, &e, &mut out);
            }
            if held.len() > MAX_HELD_LINES
                && let Some(e) = b.settle()
            {
                mark(text, &held, &e, &mut out);
            }
            match b.pending_from() {
                Some(p) => {
                    while held.front().is_some_and(|(k, _)| *k < p) {
                        held.pop_front();
                    }
                }
                None => held.clear(),
            }
        }
        if let Some(e) = b.finish() {
            mark(text, &held, &e, &mut out);
        }
        out.sort_by_key(|s| s.range.start);
        out
    }
}

/// The lines of `lines` (consecutive lines, without their `\n`) that are
/// a key's body by the rules of the module docs, as ranges of their
/// positions (0 = the first line), in order: what a search over a copy
/// leaves out while redaction is on (every match on such a line lies in
/// a secret).
pub fn key_lines<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Vec<Range<usize>> {
    let mut b = Blocks::new();
    let mut out: Vec<Range<usize>> = lines
        .into_iter()
        .filter_map(|l| b.push(l))
        .map(|e| e.lines)
        .collect();
    out.extend(b.finish().map(|e| e.lines));
    out
}

/// The span of line `line` (its content as classed: trimmed, without a
/// line number) when it is masked, else `None` (a blank line).
fn masked_part(line: &[u8]) -> Option<Range<usize>> {
    match classify(line) {
        Class::Body { at, end, .. } => Some(at..end),
        Class::Blank => None,
        _ => {
            let lead = line.len() - line.trim_ascii_start().len();
            let t = line.trim_ascii();
            (!t.is_empty()).then_some(lead..lead + t.len())
        }
    }
}

/// Adds the spans of the lines of `e` among `held` to `out`.
fn mark(text: &[u8], held: &VecDeque<(usize, Range<usize>)>, e: &Emit, out: &mut Vec<Span>) {
    let mut first = e.new;
    for (_, r) in held.iter().filter(|(k, _)| e.lines.contains(k)) {
        if let Some(p) = masked_part(&text[r.clone()]) {
            out.push(Span {
                range: r.start + p.start..r.start + p.end,
                kind: Kind::PrivateKey,
                counted: std::mem::take(&mut first),
            });
        }
    }
}

/// A line that is held back: its text, and how it is masked once settled.
struct Held {
    index: usize,
    text: Vec<u8>,
    /// Masked as a key's body; counted.
    key: Option<bool>,
}

/// [`super::redact`] a line at a time, for text printed as it arrives
/// (`tmuxwire capture`, a follower): lines come out in order, each as it
/// is settled. A line that may still be a key's body (body lines after
/// a begin line, or a run of them that an end line may follow) is held
/// back until that is known, at most [`MAX_HELD_LINES`] lines; all
/// others come out at once. Fed the lines of a text and finished, it
/// prints what [`super::redact_bytes`] gives for the whole text.
///
/// # Example
///
/// ```
/// use tmuxwire::redact::LineRedactor;
///
/// let mut r = LineRedactor::new();
/// let mut out: Vec<String> = Vec::new();
/// let mut print = |l: &[u8]| out.push(String::from_utf8_lossy(l).into_owned());
/// for line in ["-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU=",
///              "-----END OPENSSH PRIVATE KEY-----", "$ "] {
///     r.push(line.as_bytes(), &mut print);
/// }
/// r.finish(&mut print);
/// assert_eq!(out[1], "[REDACTED:private-key]");
/// assert_eq!(r.counts().total(), 1);
/// ```
pub struct LineRedactor {
    blocks: Blocks,
    held: VecDeque<Held>,
    counts: Counts,
}

impl Default for LineRedactor {
    fn default() -> LineRedactor {
        LineRedactor::new()
    }
}

impl LineRedactor {
    /// A redactor before its first line.
    pub fn new() -> LineRedactor {
        LineRedactor {
            blocks: Blocks::new(),
            held: VecDeque::new(),
            counts: Counts::default(),
        }
    }

    /// Takes the next line (without its `\n`, any bytes) and hands `out`
    /// every line settled by it, redacted, in order.
    pub fn push(&mut self, line: &[u8], mut out: impl FnMut(&[u8])) {
        let index = self.blocks.next;
        self.held.push_back(Held {
            index,
            text: line.to_vec(),
            key: None,
        });
        if let Some(e) = self.blocks.push(line) {
            self.mark(&e);
        }
        if self.held.len() > MAX_HELD_LINES
            && let Some(e) = self.blocks.settle()
        {
            self.mark(&e);
        }
        let settled = self.blocks.pending_from();
        self.release(settled, &mut out);
    }

    /// Ends the text: hands `out` every line still held.
    pub fn finish(&mut self, mut out: impl FnMut(&[u8])) {
        if let Some(e) = self.blocks.finish() {
            self.mark(&e);
        }
        self.release(None, &mut out);
    }

    /// The secrets masked so far (in lines handed out).
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    fn mark(&mut self, e: &Emit) {
        let mut first = e.new;
        for h in self.held.iter_mut().filter(|h| e.lines.contains(&h.index)) {
            let content = masked_part(&h.text).is_some();
            h.key = Some(content && std::mem::take(&mut first));
            if !content {
                h.key = None;
            }
        }
    }

    /// Hands out the held lines before `until` (all with `None`).
    fn release(&mut self, until: Option<usize>, out: &mut impl FnMut(&[u8])) {
        while let Some(h) = self.held.front() {
            if until.is_some_and(|u| h.index >= u) {
                break;
            }
            let Some(h) = self.held.pop_front() else {
                break;
            };
            let spans = match (h.key, masked_part(&h.text)) {
                (Some(counted), Some(p)) => vec![Span {
                    range: p,
                    kind: Kind::PrivateKey,
                    counted,
                }],
                _ => {
                    let mut s = Vec::new();
                    super::one_line(&h.text, 0, &mut s);
                    s
                }
            };
            if spans.is_empty() {
                out(&h.text);
            } else {
                self.counts.add(&super::count(&spans));
                out(&super::apply(&h.text, &spans));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(lines: &[&str]) -> Vec<Class> {
        lines.iter().map(|l| classify(l.as_bytes())).collect()
    }

    #[test]
    fn lines_are_classed() {
        let body64 = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
        let c = classes(&[
            "-----BEGIN RSA PRIVATE KEY-----",
            "  -----BEGIN OPENSSH PRIVATE KEY-----  ",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            "-----END ENCRYPTED PRIVATE KEY-----",
            "-----BEGIN CERTIFICATE-----",
            "-----BEGIN PRIVATE KEY-----MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-----END PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0B",
            body64,
            "Proc-Type: 4,ENCRYPTED",
            "   ",
            "$ ls -l",
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ]);
        assert_eq!(
            &c[..4],
            [Class::Begin, Class::Begin, Class::Begin, Class::End]
        );
        assert_eq!(&c[4..7], [Class::Other, Class::Other, Class::Other]);
        assert_eq!(
            c[7],
            Class::Body {
                at: 0,
                end: 64,
                full: Some(64)
            }
        );
        assert_eq!(&c[8..11], [Class::Header, Class::Blank, Class::Other]);
        // A hex hash is base64, but not a full key line.
        assert!(matches!(c[11], Class::Body { full: None, .. }));
        // Line numbers are not the body.
        assert_eq!(
            classify(format!("    12\t{body64}").as_bytes()),
            Class::Body {
                at: 7,
                end: 71,
                full: Some(64)
            }
        );
        assert_eq!(after_number(b"123"), 0);
        assert_eq!(after_number(b"12:ab"), 3);
    }

    fn emits(lines: &[&str]) -> Vec<Emit> {
        let mut b = Blocks::new();
        let mut out: Vec<Emit> = lines.iter().filter_map(|l| b.push(l.as_bytes())).collect();
        out.extend(b.finish());
        out
    }

    #[test]
    fn machine() {
        let full = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
        let e = |a: usize, b: usize| Emit {
            lines: a..b,
            new: true,
        };
        // Whole, cut at the bottom, cut at the top, cut at both ends.
        let begin = "-----BEGIN RSA PRIVATE KEY-----";
        let end = "-----END RSA PRIVATE KEY-----";
        assert_eq!(
            emits(&["$ cat k", begin, full, "Zm9v", end, "$ "]),
            [e(2, 4)]
        );
        assert_eq!(emits(&["$ cat k", begin, full, full]), [e(2, 4)]);
        assert_eq!(emits(&[full, "Zm9v", end, "$ "]), [e(0, 2)]);
        assert_eq!(emits(&["$ x", full, full, full, "$ "]), [e(1, 4)]);
        // Two full lines, or a short line before a full one: not a key.
        assert_eq!(emits(&["$ x", full, full, "$ "]), []);
        assert_eq!(emits(&["Zm9v", full, full, full]), []);
        // A quoted begin line followed by prose: nothing.
        assert_eq!(
            emits(&["echo '-----BEGIN RSA PRIVATE KEY-----'", "hello there"]),
            []
        );
        // Headers and blank lines belong to an open block.
        assert_eq!(
            emits(&[begin, "Proc-Type: 4,ENCRYPTED", "", full, end]),
            [e(1, 4)]
        );
    }

    #[test]
    fn streaming_holds_only_what_a_key_may_claim() {
        let mut r = LineRedactor::new();
        let mut out = Vec::new();
        r.push(b"$ ls", |l| out.push(l.to_vec()));
        assert_eq!(out.len(), 1, "an ordinary line comes out at once");
        r.push(b"Zm9vYmFy", |l| out.push(l.to_vec()));
        assert_eq!(out.len(), 1, "a body line waits for what follows");
        r.push(b"$ done", |l| out.push(l.to_vec()));
        assert_eq!(out.len(), 3);
        for _ in 0..MAX_HELD_LINES + 10 {
            r.push(b"Zm9vYmFy", |l| out.push(l.to_vec()));
        }
        assert!(out.len() > 3 + 10, "held lines are bounded");
        r.finish(|l| out.push(l.to_vec()));
        assert_eq!(out.len(), 3 + MAX_HELD_LINES + 10);
    }
}
