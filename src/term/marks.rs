//! Reading the OSC sequences that say what the terminal is doing: shell
//! integration marks (OSC 133, VS Code's OSC 633, iTerm2's
//! `1337;SetMark`), the working directory (OSC 7, `633;P;Cwd=`, iTerm2's
//! `1337;CurrentDir=`), the title (OSC 0 and 2) and progress (ConEmu's
//! `9;4`). Pure: [`parse`] takes an OSC string's payload (the bytes
//! between `ESC ]` and its terminator, BEL or ST, which the parser has
//! already removed) and returns what it means.
//!
//! Sequences, as emitted by shells and read here
//! (`shared/docs/terminal-state.md` §2.1 has who emits which):
//!
//! ```text
//! 133;A[;k=v…]        prompt start        (fish: click_events=1; WezTerm: cl=m;aid=N)
//! 133;N / 133;P[;k=s] new prompt / prompt with properties (k=s: a secondary prompt, PS2)
//! 133;B / 133;I       prompt end, input start
//! 133;C[;cmdline_url=<percent-encoded>]   command executed, output starts (fish ≥ 4.0.1)
//! 133;D[;status][;aid=N]                  command finished
//! 633;A B C D         VS Code's copies of the above
//! 633;F / 633;G       VS Code: a continuation prompt (PS2) starts / ends (its input starts)
//! 633;H               VS Code: a right prompt starts (its end, `633;I`, is not read)
//! 633;E;<cmdline>[;<nonce>]               the command line: `\\` is `\`, `\x3b` is `;`, `\xHH` a byte
//! 633;P;Cwd=<escaped> the working directory (other properties are ignored)
//! 1337;SetMark        iTerm2's mark
//! 1337;CurrentDir=<path>
//! 7;file://host/path  the working directory, percent-encoded
//! 0;title  2;title    the title
//! 9;4;state[;value]   progress: 0 clear, 1 value %, 2 error, 3 indeterminate, 4 paused
//! ```
//!
//! The OSC number is read as tmux reads it (`input_exit_osc()`: decimal
//! digits, then `;` or the end); the 133 kind is its first byte, as tmux's
//! `input_osc_133()` takes it.
//!
//! Everything here comes from the program in the pane, which anyone can
//! make print anything: every string is capped ([`MAX_TEXT`] bytes, an aid
//! [`MAX_AID`]) and made safe to show ([`clean`]: controls escaped,
//! invalid UTF-8 replaced; a command line keeps its line feeds,
//! [`clean_command`], so a multi-line command reads as typed). Marks are
//! advisory; nothing here authenticates them.

use std::borrow::Cow;

/// The most bytes kept of a command line, a directory or a title (after
/// [`clean`]; longer ones are cut at a character boundary).
pub const MAX_TEXT: usize = 4096;

/// The most bytes kept of an `aid=` value; a longer one is cut.
pub const MAX_AID: usize = 64;

/// Which sequence family a mark came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MarkSource {
    /// `OSC 133` (FinalTerm; fish, WezTerm, kitty, tmux's own parser).
    Osc133,
    /// `OSC 633` (VS Code's shell integration).
    Osc633,
    /// `OSC 1337` (iTerm2).
    Osc1337,
    /// tmux's own record of `OSC 133` `A` and `C` (the prompt and output
    /// flags `capture-pane -F` prints, tmux 3.7+), read when a copy is
    /// seeded: the prompt and output starts of history printed before
    /// tmuxwire watched the pane (no exit status, no times).
    TmuxFlags,
}

impl MarkSource {
    /// `"osc133"`, `"osc633"`, `"osc1337"` or `"tmux-flags"`.
    pub fn as_str(self) -> &'static str {
        match self {
            MarkSource::Osc133 => "osc133",
            MarkSource::Osc633 => "osc633",
            MarkSource::Osc1337 => "osc1337",
            MarkSource::TmuxFlags => "tmux-flags",
        }
    }
}

/// What a shell-integration mark says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// `A`, `N`, or `P` without `k=s`: a prompt starts.
    Prompt,
    /// `P;k=s` (or `A;k=s`, kitty; VS Code's `633;F`): a secondary
    /// prompt (PS2) starts; it continues the command being typed.
    SecondaryPrompt,
    /// `B` or `I` (VS Code's `633;G` after a continuation prompt): the
    /// prompt ends and the command's input starts.
    CommandStart,
    /// VS Code's `633;H`: a right prompt starts here (zsh's `RPROMPT`); it
    /// is not part of the command typed to its left.
    RightPrompt,
    /// `C`: the command was executed; its output starts.
    OutputStart,
    /// `D`: the command finished, with the exit status as tmux's
    /// `input_osc_133_exit_status()` reads it (the first parameter when it
    /// is not `key=value`; 0–255, anything else 255), except that an
    /// absent status is `None` (unknown: VS Code sends `D` alone for an
    /// empty command line or Ctrl-C), never 0.
    CommandEnd(Option<u8>),
    /// iTerm2's `SetMark`: a place, no command.
    Mark,
}

/// A shell-integration mark ([`parse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The family it came in.
    pub source: MarkSource,
    /// Its meaning.
    pub kind: MarkKind,
    /// The `aid=` parameter (the shell's id, for nesting), cleaned and
    /// capped at [`MAX_AID`] bytes.
    pub aid: Option<String>,
    /// For [`MarkKind::OutputStart`]: fish's `cmdline_url=` decoded
    /// (percent-encoding), cleaned ([`clean_command`]: line feeds kept)
    /// and capped.
    pub command: Option<String>,
}

/// Progress as ConEmu's `OSC 9;4` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// `0`: no progress shown.
    Clear,
    /// `1;N`: N percent (0–100; absent = 0).
    Value(u8),
    /// `2[;N]`: error.
    Error(Option<u8>),
    /// `3`: busy, no value.
    Indeterminate,
    /// `4[;N]`: paused / warning.
    Paused(Option<u8>),
}

/// What an OSC string means, for the sequences read here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Osc {
    /// A shell-integration mark.
    Mark(Mark),
    /// `633;E`: the command line (decoded, cleaned with its line feeds
    /// kept, capped) and the nonce it carried, if any (capped at
    /// [`MAX_AID`] bytes).
    CommandLine {
        /// The command line.
        text: String,
        /// The nonce, if one followed.
        nonce: Option<String>,
    },
    /// The working directory: OSC 7's path (percent-decoded) with its
    /// host, `633;P;Cwd=` or `1337;CurrentDir=`.
    Cwd {
        /// The host of a `file://host/path` URL, if not empty.
        host: Option<String>,
        /// The path.
        path: String,
    },
    /// OSC 0 or 2: the title (cleaned, capped).
    Title(String),
    /// `9;4`: progress.
    Progress(Progress),
}

/// Reads an OSC payload (`data` is what follows `ESC ]`, without the
/// terminator). `None` for sequences not read here or malformed ones.
/// Never panics, whatever the bytes; runs in time linear in `data`.
pub fn parse(data: &[u8]) -> Option<Osc> {
    let digits = data.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 5 {
        return None;
    }
    let rest = &data[digits..];
    let rest = match rest.first() {
        None => rest,
        Some(b';') => &rest[1..],
        Some(_) => return None,
    };
    // At most five digits: no overflow.
    let number: u32 = data[..digits]
        .iter()
        .fold(0, |n, &b| n * 10 + u32::from(b - b'0'));
    match number {
        0 | 2 => Some(Osc::Title(clean(rest, MAX_TEXT))),
        7 => cwd_url(rest),
        9 => progress(rest),
        133 => mark(MarkSource::Osc133, rest).map(Osc::Mark),
        633 => vscode(rest),
        1337 => iterm(rest),
        _ => None,
    }
}

/// The `;`-separated fields after the kind letter, as `key=value` pairs
/// (a field without `=` has an empty key).
fn fields(rest: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    rest.split(|&b| b == b';')
        .map(|f| match f.iter().position(|&b| b == b'=') {
            Some(i) => (&f[..i], &f[i + 1..]),
            None => (&b""[..], f),
        })
}

/// `133;<kind>…` or `633;<A-D>…`.
fn mark(source: MarkSource, rest: &[u8]) -> Option<Mark> {
    let (&kind, after) = rest.split_first()?;
    // Parameters begin after the kind's `;` (tmux looks at the first
    // byte only, so `Axyz` is an `A` with no parameters).
    let params: &[u8] = match after.iter().position(|&b| b == b';') {
        Some(i) => &after[i + 1..],
        None => b"",
    };
    let mut aid = None;
    let mut secondary = false;
    let mut command = None;
    for (k, v) in fields(params) {
        match k {
            b"aid" if aid.is_none() => aid = Some(clean(v, MAX_AID)),
            b"k" => secondary = v == b"s",
            b"cmdline_url" if kind == b'C' && command.is_none() => {
                command = Some(clean_command(&percent_decode(v, MAX_TEXT * 4), MAX_TEXT));
            }
            _ => {}
        }
    }
    let kind = match kind {
        b'A' | b'N' | b'P' if secondary => MarkKind::SecondaryPrompt,
        b'A' | b'N' | b'P' => MarkKind::Prompt,
        b'B' | b'I' => MarkKind::CommandStart,
        b'C' => MarkKind::OutputStart,
        b'D' => MarkKind::CommandEnd(exit_status(params)),
        _ => return None,
    };
    Some(Mark {
        source,
        kind,
        aid,
        command,
    })
}

/// The status of `D;<params>`: tmux's `input_osc_133_exit_status()` (the
/// first field, unless empty or `key=value`; `strtonum(0, 255)`, else
/// 255), with absent as `None`.
fn exit_status(params: &[u8]) -> Option<u8> {
    let first = params.split(|&b| b == b';').next()?;
    if first.is_empty() || first.contains(&b'=') {
        return None;
    }
    // strtonum: optional leading blanks and sign, decimal digits, nothing
    // after; out of range or not a number is an error, which tmux reads
    // as 255.
    let s = std::str::from_utf8(first).ok();
    let n = s.and_then(|s| s.trim_start().parse::<i64>().ok());
    Some(match n {
        Some(n @ 0..=255) => n as u8,
        _ => 255,
    })
}

/// `633;…`.
fn vscode(rest: &[u8]) -> Option<Osc> {
    match rest.first()? {
        b'A' | b'B' | b'C' | b'D' => mark(MarkSource::Osc633, rest).map(Osc::Mark),
        // Continuation prompt start and end, right prompt start
        // (`shellIntegration-bash.sh` / `-rc.zsh`: `__vsc_continuation_start`,
        // `__vsc_continuation_end`, `__vsc_right_prompt_start`).
        k @ (b'F' | b'G' | b'H') => {
            let kind = match k {
                b'F' => MarkKind::SecondaryPrompt,
                b'G' => MarkKind::CommandStart,
                _ => MarkKind::RightPrompt,
            };
            Some(Osc::Mark(Mark {
                source: MarkSource::Osc633,
                kind,
                aid: None,
                command: None,
            }))
        }
        b'E' => {
            let after = rest.get(1..)?;
            let after = after.strip_prefix(b";").unwrap_or(after);
            if rest.get(1).is_some_and(|&b| b != b';') {
                return None;
            }
            let mut parts = after.splitn(3, |&b| b == b';');
            let text = parts.next().unwrap_or_default();
            let nonce = parts.next().map(|n| clean(n, MAX_AID));
            Some(Osc::CommandLine {
                text: clean_command(&vscode_unescape(text, MAX_TEXT * 4), MAX_TEXT),
                nonce,
            })
        }
        b'P' => {
            let props = rest.get(1..)?.strip_prefix(b";")?;
            let value = props.strip_prefix(b"Cwd=")?;
            let path = clean(&vscode_unescape(value, MAX_TEXT * 4), MAX_TEXT);
            (!path.is_empty()).then_some(Osc::Cwd { host: None, path })
        }
        _ => None,
    }
}

/// `1337;…`.
fn iterm(rest: &[u8]) -> Option<Osc> {
    if rest == b"SetMark" || rest.starts_with(b"SetMark;") {
        return Some(Osc::Mark(Mark {
            source: MarkSource::Osc1337,
            kind: MarkKind::Mark,
            aid: None,
            command: None,
        }));
    }
    let path = rest.strip_prefix(b"CurrentDir=")?;
    let path = clean(path, MAX_TEXT);
    (!path.is_empty()).then_some(Osc::Cwd { host: None, path })
}

/// OSC 7: `file://host/path` (percent-encoded), or a bare absolute path.
fn cwd_url(rest: &[u8]) -> Option<Osc> {
    let (host, path) = if let Some(url) = rest.strip_prefix(b"file://") {
        let slash = url.iter().position(|&b| b == b'/')?;
        (&url[..slash], &url[slash..])
    } else if rest.first() == Some(&b'/') {
        (&b""[..], rest)
    } else {
        return None;
    };
    let path = clean(&percent_decode(path, MAX_TEXT * 4), MAX_TEXT);
    let host = clean(&percent_decode(host, MAX_TEXT), 255);
    Some(Osc::Cwd {
        host: (!host.is_empty()).then_some(host),
        path,
    })
}

/// `9;4;state[;value]` (other `OSC 9` forms are notifications: `None`).
fn progress(rest: &[u8]) -> Option<Osc> {
    let p = rest.strip_prefix(b"4")?;
    if !(p.is_empty() || p[0] == b';') {
        return None;
    }
    let mut f = p.split(|&b| b == b';').skip(1);
    let state = f.next().unwrap_or(b"0");
    let value = f
        .next()
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.parse::<u64>().ok())
        .map(|v| v.min(100) as u8);
    Some(Osc::Progress(match state {
        b"" | b"0" => Progress::Clear,
        b"1" => Progress::Value(value.unwrap_or(0)),
        b"2" => Progress::Error(value),
        b"3" => Progress::Indeterminate,
        b"4" => Progress::Paused(value),
        _ => return None,
    }))
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Percent-decodes `s` (RFC 3986 `%HH`; a `%` not followed by two hex
/// digits stays), reading at most `limit` input bytes.
pub fn percent_decode(s: &[u8], limit: usize) -> Vec<u8> {
    unescape(s, limit, |s, i| match s[i] {
        b'%' => Some((hex_pair(s, i + 1)?, 3)),
        _ => None,
    })
}

/// Undoes VS Code's `633;E`/`633;P` escaping (`shellIntegrationAddon.ts`
/// `deserializeMessage()`): `\\` is `\`, `\xHH` the byte HH (`\x3b` is
/// `;`); any other `\` stays. Reads at most `limit` input bytes.
pub fn vscode_unescape(s: &[u8], limit: usize) -> Vec<u8> {
    unescape(s, limit, |s, i| match (s[i], s.get(i + 1)) {
        (b'\\', Some(b'\\')) => Some((b'\\', 2)),
        (b'\\', Some(b'x')) => Some((hex_pair(s, i + 2)?, 4)),
        _ => None,
    })
}

/// The first `limit` bytes of `s`, each escape `escape` reads at a
/// position (the byte it stands for and its length) replaced by that
/// byte, every other byte kept.
fn unescape(
    s: &[u8],
    limit: usize,
    escape: impl Fn(&[u8], usize) -> Option<(u8, usize)>,
) -> Vec<u8> {
    let s = &s[..s.len().min(limit)];
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (b, n) = escape(s, i).unwrap_or((s[i], 1));
        out.push(b);
        i += n;
    }
    out
}

/// The byte two hex digits at `i` of `s` spell, if they do.
fn hex_pair(s: &[u8], i: usize) -> Option<u8> {
    let h = hex(*s.get(i)?)?;
    let l = hex(*s.get(i + 1)?)?;
    Some(h << 4 | l)
}

/// Whether `c` is escaped by [`clean`]: C0 and C1 controls, DEL, and the
/// bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069)
/// that make shown text read otherwise than it is.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text from a pane made safe to put in an answer: invalid UTF-8 becomes
/// U+FFFD, each character [`unsafe_char`] says is unsafe becomes `\xHH`
/// (C0, DEL, C1) or `\u{HHHH}` (bidi controls), and the result is cut at a
/// character boundary to at most `max` bytes. Only the first `4 * max`
/// input bytes are read.
pub fn clean(raw: &[u8], max: usize) -> String {
    clean_keeping(raw, max, false)
}

/// [`clean`], keeping line feeds when `keep_lf`.
fn clean_keeping(raw: &[u8], max: usize, keep_lf: bool) -> String {
    let raw = &raw[..raw.len().min(max.saturating_mul(4))];
    let text: Cow<'_, str> = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(text.len().min(max));
    for c in text.chars() {
        if unsafe_char(c) && !(keep_lf && c == '\n') {
            let n = u32::from(c);
            let esc = if n < 0x100 {
                format!("\\x{n:02x}")
            } else {
                format!("\\u{{{n:04x}}}")
            };
            if out.len() + esc.len() > max {
                break;
            }
            out.push_str(&esc);
        } else {
            if out.len() + c.len_utf8() > max {
                break;
            }
            out.push(c);
        }
    }
    out
}

/// [`clean`] for a command line: the same, except that a line feed
/// stays (a multi-line command, `for` … `done` typed over several lines,
/// reads as it was typed). A carriage return and every other control are
/// escaped.
pub fn clean_command(raw: &[u8], max: usize) -> String {
    clean_keeping(raw, max, true)
}

/// The fuzz target's property (`fuzz/fuzz_targets/term_marks.rs`): any
/// bytes parse without panicking; every string in the answer is within its
/// cap and free of controls (a command line's line feeds aside); the
/// number prefix is read as tmux reads it.
pub fn fuzz_parse(data: &[u8]) {
    let safe = |s: &str, max: usize| {
        assert!(s.len() <= max, "{} > {max}", s.len());
        assert!(!s.chars().any(unsafe_char), "unsafe char in {s:?}");
    };
    match parse(data) {
        None => {}
        Some(Osc::Mark(m)) => {
            if let Some(a) = &m.aid {
                safe(a, MAX_AID);
            }
            if let Some(c) = &m.command {
                safe(&c.replace('\n', ""), MAX_TEXT);
                assert!(c.len() <= MAX_TEXT);
                assert_eq!(m.kind, MarkKind::OutputStart);
            }
        }
        Some(Osc::CommandLine { text, nonce }) => {
            safe(&text.replace('\n', ""), MAX_TEXT);
            assert!(text.len() <= MAX_TEXT);
            if let Some(n) = &nonce {
                safe(n, MAX_AID);
            }
        }
        Some(Osc::Cwd { host, path }) => {
            safe(&path, MAX_TEXT);
            if let Some(h) = &host {
                safe(h, 255);
            }
        }
        Some(Osc::Title(t)) => safe(&t, MAX_TEXT),
        Some(Osc::Progress(Progress::Value(v))) => assert!(v <= 100),
        Some(Osc::Progress(_)) => {}
    }
    // Cleaning is idempotent on its own output's characters' safety, and
    // the decoders never grow their input.
    assert!(percent_decode(data, usize::MAX).len() <= data.len());
    assert!(vscode_unescape(data, usize::MAX).len() <= data.len());
    let c = clean(data, 100);
    safe(&c, 100);
    let c = clean_command(data, 100);
    assert!(c.len() <= 100);
    safe(&c.replace('\n', ""), 100);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What OSC 7 and its kin say: the directory `path` on `host`.
    fn cwd(host: Option<&str>, path: &str) -> Option<Osc> {
        Some(Osc::Cwd {
            host: host.map(String::from),
            path: path.into(),
        })
    }

    fn m(data: &[u8]) -> Mark {
        match parse(data) {
            Some(Osc::Mark(m)) => m,
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(data)),
        }
    }

    /// The exit status of the `D` mark `data` is.
    fn status(data: &[u8]) -> Option<u8> {
        match m(data).kind {
            MarkKind::CommandEnd(status) => status,
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(data)),
        }
    }

    #[test]
    fn osc_133_kinds_and_parameters() {
        assert_eq!(m(b"133;A").kind, MarkKind::Prompt);
        assert_eq!(m(b"133;N").kind, MarkKind::Prompt);
        assert_eq!(m(b"133;P").kind, MarkKind::Prompt);
        assert_eq!(m(b"133;P;k=s").kind, MarkKind::SecondaryPrompt);
        assert_eq!(m(b"133;P;k=i").kind, MarkKind::Prompt);
        assert_eq!(m(b"133;A;k=s").kind, MarkKind::SecondaryPrompt);
        assert_eq!(m(b"133;B").kind, MarkKind::CommandStart);
        assert_eq!(m(b"133;I").kind, MarkKind::CommandStart);
        assert_eq!(m(b"133;C").kind, MarkKind::OutputStart);
        assert_eq!(m(b"133;D").kind, MarkKind::CommandEnd(None));
        let a = m(b"133;A;cl=m;aid=4242");
        assert_eq!(a.aid.as_deref(), Some("4242"));
        assert_eq!(a.source, MarkSource::Osc133);
        assert_eq!(m(b"133;A;click_events=1").aid, None);
        // tmux reads the first byte only.
        assert_eq!(m(b"133;Axyz").kind, MarkKind::Prompt);
        assert_eq!(parse(b"133;Z"), None);
        assert_eq!(parse(b"133"), None);
        assert_eq!(parse(b"133;"), None);
        assert_eq!(parse(b"133x;A"), None);
    }

    #[test]
    fn exit_status_as_tmux_reads_it_but_absent_is_unknown() {
        assert_eq!(status(b"133;D"), None);
        assert_eq!(status(b"133;D;"), None);
        assert_eq!(status(b"133;D;aid=7"), None);
        assert_eq!(status(b"133;D;0"), Some(0));
        assert_eq!(status(b"133;D;7"), Some(7));
        assert_eq!(status(b"133;D;130;aid=9"), Some(130));
        assert_eq!(m(b"133;D;130;aid=9").aid.as_deref(), Some("9"));
        assert_eq!(status(b"133;D;255"), Some(255));
        assert_eq!(status(b"133;D;256"), Some(255));
        assert_eq!(status(b"133;D;-1"), Some(255));
        assert_eq!(status(b"133;D;99999999999999999999999"), Some(255));
        assert_eq!(status(b"133;D;abc"), Some(255));
    }

    #[test]
    fn fish_cmdline_url() {
        let c = m(b"133;C;cmdline_url=echo%20hi%3B%20ls%20%25x");
        assert_eq!(c.command.as_deref(), Some("echo hi; ls %x"));
        // Controls in the command come out escaped.
        let c = m(b"133;C;cmdline_url=echo%1b%5d0%3bpwned%07");
        assert_eq!(c.command.as_deref(), Some("echo\\x1b]0;pwned\\x07"));
        // Only C carries it.
        assert_eq!(m(b"133;A;cmdline_url=x").command, None);
        // A multi-line command keeps its line feeds, nothing else.
        let c = m(b"133;C;cmdline_url=for%20i%20in%201%0Aecho%20%24i%0D%0Aend");
        assert_eq!(c.command.as_deref(), Some("for i in 1\necho $i\\x0d\nend"));
        assert_eq!(clean_command(b"a\nb\x1b", 100), "a\nb\\x1b");
        assert_eq!(clean_command(b"ab\ncd", 4), "ab\nc");
    }

    #[test]
    fn vscode_633() {
        assert_eq!(m(b"633;A").source, MarkSource::Osc633);
        assert_eq!(status(b"633;D;1"), Some(1));
        assert_eq!(
            parse(b"633;E;echo a\\x3bb \\\\ c\\x0a;n0nce"),
            Some(Osc::CommandLine {
                text: "echo a;b \\ c\n".into(),
                nonce: Some("n0nce".into())
            })
        );
        // A carriage return (and any other control) stays escaped.
        assert_eq!(
            parse(b"633;E;a\\x0d\\x1bb"),
            Some(Osc::CommandLine {
                text: "a\\x0d\\x1bb".into(),
                nonce: None
            })
        );
        // Continuation prompts and the right prompt.
        assert_eq!(m(b"633;F").kind, MarkKind::SecondaryPrompt);
        assert_eq!(m(b"633;G").kind, MarkKind::CommandStart);
        assert_eq!(m(b"633;H").kind, MarkKind::RightPrompt);
        assert_eq!(m(b"633;H").source, MarkSource::Osc633);
        assert_eq!(parse(b"633;I"), None);
        assert_eq!(parse(b"133;H"), None);
        assert_eq!(
            parse(b"633;E;ls"),
            Some(Osc::CommandLine {
                text: "ls".into(),
                nonce: None
            })
        );
        assert_eq!(
            parse(b"633;E"),
            Some(Osc::CommandLine {
                text: String::new(),
                nonce: None
            })
        );
        assert_eq!(parse(b"633;Ex"), None);
        assert_eq!(
            parse(b"633;P;Cwd=/home/u/a\\x3bb"),
            cwd(None, "/home/u/a;b")
        );
        assert_eq!(parse(b"633;P;IsWindows=False"), None);
        assert_eq!(parse(b"633;Z"), None);
    }

    #[test]
    fn iterm_1337() {
        assert_eq!(m(b"1337;SetMark").kind, MarkKind::Mark);
        assert_eq!(m(b"1337;SetMark").source, MarkSource::Osc1337);
        assert_eq!(parse(b"1337;CurrentDir=/tmp"), cwd(None, "/tmp"));
        assert_eq!(parse(b"1337;SetMarkX"), None);
        assert_eq!(parse(b"1337;File=abc"), None);
    }

    #[test]
    fn osc_7() {
        assert_eq!(
            parse(b"7;file://host.example/home/u/my%20dir"),
            cwd(Some("host.example"), "/home/u/my dir")
        );
        assert_eq!(parse(b"7;file:///tmp"), cwd(None, "/tmp"));
        assert_eq!(parse(b"7;/plain/path"), cwd(None, "/plain/path"));
        assert_eq!(
            parse(b"7;file://h/a%0a%1b[31mb"),
            cwd(Some("h"), "/a\\x0a\\x1b[31mb")
        );
        assert_eq!(parse(b"7;file://nohostslash"), None);
        assert_eq!(parse(b"7;http://x/y"), None);
    }

    #[test]
    fn titles_and_progress() {
        assert_eq!(parse(b"0;my title"), Some(Osc::Title("my title".into())));
        assert_eq!(parse(b"2;t\x1bx"), Some(Osc::Title("t\\x1bx".into())));
        assert_eq!(parse(b"2"), Some(Osc::Title(String::new())));
        assert_eq!(parse(b"9;4;0"), Some(Osc::Progress(Progress::Clear)));
        assert_eq!(parse(b"9;4"), Some(Osc::Progress(Progress::Clear)));
        assert_eq!(parse(b"9;4;1;42"), Some(Osc::Progress(Progress::Value(42))));
        assert_eq!(
            parse(b"9;4;1;420"),
            Some(Osc::Progress(Progress::Value(100)))
        );
        assert_eq!(parse(b"9;4;2"), Some(Osc::Progress(Progress::Error(None))));
        assert_eq!(
            parse(b"9;4;3"),
            Some(Osc::Progress(Progress::Indeterminate))
        );
        assert_eq!(
            parse(b"9;4;4;5"),
            Some(Osc::Progress(Progress::Paused(Some(5))))
        );
        assert_eq!(parse(b"9;4;9"), None);
        assert_eq!(parse(b"9;hello"), None);
        assert_eq!(parse(b"8;;http://x"), None);
    }

    #[test]
    fn hostile_strings_are_capped_and_clean() {
        let mut huge = b"633;E;".to_vec();
        huge.extend(std::iter::repeat_n(b'x', 1 << 20));
        let Some(Osc::CommandLine { text, .. }) = parse(&huge) else {
            panic!()
        };
        assert_eq!(text.len(), MAX_TEXT);
        let mut aid = b"133;A;aid=".to_vec();
        aid.extend(std::iter::repeat_n(b'7', 10_000));
        assert_eq!(m(&aid).aid.map(|a| a.len()), Some(MAX_AID));
        // C1 controls as UTF-8, bidi overrides, DEL, NUL, invalid UTF-8.
        let t = clean("a\u{9b}b\u{202e}c\x7f\0\u{2066}".as_bytes(), 100);
        assert_eq!(t, "a\\x9bb\\u{202e}c\\x7f\\x00\\u{2066}");
        assert_eq!(clean(b"\xff\xfe", 100), "\u{fffd}\u{fffd}");
        // Escapes never cut in half.
        assert_eq!(clean(b"ab\x1b", 5), "ab");
        assert_eq!(clean("é".as_bytes(), 1), "");
        // A wide OSC number is not read.
        assert_eq!(parse(b"0000000133;A"), None);
        fuzz_parse(&huge);
        fuzz_parse(b"133;C;cmdline_url=%ff%fe%e2%80%ae");
    }
}
