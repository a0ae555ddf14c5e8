//! Format strings that ask tmux for many fields at once, and the parser for
//! their answers. Pure.
//!
//! # Format
//!
//! Each object is printed as one record, on one line:
//!
//! ```text
//! ␞<nonce>␟field␟field␟…␟field␞<nonce>
//! ```
//!
//! RS = U+241E `␞` and US = U+241F `␟` are printable characters, because
//! tmux 3.5 and later print control characters such as `\x1e` as `\036`.
//! Field values come from programs in panes (titles, process names,
//! working directories) and must come back exactly, yet never cut or forge
//! a record or the block around it:
//!
//! * every field that can hold text is printed through two tmux
//!   substitutions, `s/(\\|␞|␟)/\\\1/` then `s/<LF>/\\n/` (format.c:
//!   `format_sub()`, regsub.c), so a backslash, a separator or a line
//!   feed in a value arrives escaped ([`escape_value`] does the same, for
//!   tests), and [`super::escape::unescape`] undoes it together with the
//!   vis(3) escaping tmux ≥ 3.5 adds;
//! * a record starts with RS and this query's random nonce and ends with
//!   RS and the nonce again, which a pane cannot guess: a value cannot
//!   start or end a record, and the control stream's block ends only
//!   after a record's end ([`Query::frame`], [`super::parse::Frame::Records`]),
//!   so a value holding `%end …` lines (were a line feed ever to get
//!   through unescaped) is still content;
//! * a record must have exactly the expected number of fields, or it is
//!   dropped.
//!
//! Templates built here never contain `%`: `display-message` runs its
//! template through `strftime()` when it does (format.c:
//! `format_expand1()`), which would turn `%` sequences into dates.

use super::correlate::FrameSpec;
use super::escape::unescape;

/// Record separator, printed before each record (U+241E).
pub const RS: char = '\u{241e}';
/// Field separator (U+241F).
pub const US: char = '\u{241f}';

/// The two substitutions that make a value safe to print inside a record
/// (see the module docs), as a tmux format modifier list ending in `:`.
/// The second pattern is a real line feed.
const ESCAPE_MODIFIERS: &str = "s/(\\\\|\u{241e}|\u{241f})/\\\\\\1/;s/\n/\\\\n/:";

/// The flag options a query reads (the ones a copy's layout follows:
/// [`crate::mirror::probe`]). A format prints a flag option as `1` or
/// `0` (format.c: `format_find()` asks `options_to_string()` for the
/// numeric form) and `set-option` refuses any other value than on, off,
/// yes, no, 1 or 0 (options.c: `options_from_string_flag()`, 3.3a–3.8),
/// so
/// their values never need escaping; leaving the two substitutions out
/// spares tmux two regcomp(3)s per field and pane, most of a fence's cost.
const FLAG_OPTIONS: &[&str] = &[
    "scroll-on-clear",
    "alternate-screen",
    "variation-selector-always-wide",
];

/// True for format variables whose values tmux itself generates (ids,
/// numbers, flags, layouts, mode names, [flag options](FLAG_OPTIONS))
/// and so cannot hold text a program chose; every other variable is
/// printed escaped.
fn is_generated(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "version",
        "pid",
        "window_layout",
        "window_visible_layout",
        "pane_mode",
        "pane_tty",
        "socket_path",
        "start_time",
    ];
    const SUFFIXES: &[&str] = &[
        "_id",
        "_index",
        "_width",
        "_height",
        "_left",
        "_top",
        "_right",
        "_bottom",
        "_size",
        "_bytes",
        "_limit",
        "_flag",
        "_active",
        "_pid",
        "_created",
        "_activity",
        "_attached",
        "_windows",
        "_panes",
        "_status",
        "_time",
        "_dead",
        "_in_mode",
        "_mode_flag",
    ];
    const PREFIXES: &[&str] = &[
        "pane_at_",
        "cursor_",
        "alternate_",
        "scroll_",
        "history_",
        "mouse_",
    ];
    EXACT.contains(&name)
        || FLAG_OPTIONS.contains(&name)
        || SUFFIXES.iter().any(|s| name.ends_with(s))
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || name == "client_control_mode"
}

/// 64 unpredictable bits as 16 hex digits, different on every call: the
/// crate's one nonce source, [`crate::nonce::hex`], under the name the
/// mirror and the CLI call it by.
pub fn nonce() -> String {
    crate::nonce::hex()
}

/// What tmux prints for `value` through [`ESCAPE_MODIFIERS`]: `\` → `\\`,
/// `␞` → `\␞`, `␟` → `\␟`, line feed → `\n`. For tests and fuzzing; the
/// dual of [`super::escape::unescape`] on values tmux does not vis(3)
/// escape further.
pub fn escape_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | RS | US => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// One piece of a template: literal text, or a format variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part<'a> {
    /// Text printed as is.
    Literal(&'a str),
    /// `#{name}`, printed escaped unless tmux generates its values.
    Var(&'a str),
}

/// Appends `text` to a template so that tmux prints exactly `text` (after
/// [`super::escape::unescape`]).
///
/// A `#` is doubled (`##` prints `#`) except in a run of `#`s directly
/// before `[`, which tmux copies unchanged (format.c: `format_expand1()`
/// keeps `#[` and `##…#[` for styles). Backslashes, separators and line
/// feeds are escaped as values are.
fn push_literal(template: &mut String, text: &str) {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '#' => push_hashes(template, text, i, &mut chars),
            '\\' | RS | US => {
                template.push('\\');
                template.push(c);
            }
            '\n' => template.push_str("\\n"),
            c => template.push(c),
        }
    }
}

/// The run of `#`s at byte `i` of `text` (`chars` is just past its
/// first) written for tmux's format expander: each doubled, unless the
/// run stands directly before `[` (a style, copied unchanged); `chars`
/// is moved past the run.
fn push_hashes(
    out: &mut String,
    text: &str,
    i: usize,
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
) {
    let run_end = text[i..].find(|ch| ch != '#').map_or(text.len(), |k| i + k);
    if text[run_end..].starts_with('[') {
        out.push_str(&text[i..run_end]);
    } else {
        for _ in i..run_end {
            out.push_str("##");
        }
    }
    while chars.peek().is_some_and(|&(k, _)| k < run_end) {
        chars.next();
    }
}

/// `text` written so that tmux's format expander gives back exactly
/// `text`: for arguments tmux expands as formats before using them
/// (`rename-window`, `rename-session`, `new-session -s/-n/-c`,
/// `new-window -n/-c`, `split-window -c`, `respawn-pane -c`,
/// `select-pane -T`: `format_single()` in their cmd-*.c and spawn.c on
/// 3.3a–3.8). Without it `#{pane_id}` is replaced, `#S` becomes the
/// session name and `#(cmd)` runs a shell command.
///
/// A `#` is doubled (`##` gives `#`), except a run of `#`s directly
/// before `[`, which tmux copies unchanged (`#[…]` styles; doubling it
/// would also be copied unchanged, as `##[`). Nothing else is special.
/// The dual of tmux's `format_expand()` on text without variables; see
/// also [`escape_format_time`].
pub fn escape_format(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '#' {
            push_hashes(&mut out, text, i, &mut chars);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`escape_format`] for arguments tmux also passes through `strftime()`
/// (`pipe-pane`'s command: `format_expand_time()`): `%` is doubled too.
pub fn escape_format_time(text: &str) -> String {
    escape_format(text).replace('%', "%%")
}

fn push_var(template: &mut String, name: &str) {
    template.push_str("#{");
    if !is_generated(name) {
        template.push_str(ESCAPE_MODIFIERS);
    }
    template.push_str(name);
    template.push('}');
}

/// A multi-field query: its template and the parser for its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    template: String,
    start: String,
    end: String,
    fields: usize,
}

impl Query {
    /// A query for `names` (tmux format variable names), with a fresh
    /// nonce.
    pub fn new(names: &[&str]) -> Query {
        let parts: Vec<Vec<Part<'_>>> = names.iter().map(|n| vec![Part::Var(n)]).collect();
        Query::from_parts(&parts)
    }

    /// A query whose fields are built from parts (literal text and
    /// variables), with a fresh nonce. `display_message` uses one field
    /// made of the caller's text.
    pub fn from_parts(fields: &[Vec<Part<'_>>]) -> Query {
        let nonce = crate::nonce::hex();
        let start = format!("{RS}{nonce}{US}");
        let end = format!("{RS}{nonce}");
        let mut template = String::with_capacity(fields.len() * 48 + 48);
        template.push_str(&start);
        for (i, parts) in fields.iter().enumerate() {
            if i > 0 {
                template.push(US);
            }
            for p in parts {
                match p {
                    Part::Literal(t) => push_literal(&mut template, t),
                    Part::Var(n) => push_var(&mut template, n),
                }
            }
        }
        template.push_str(&end);
        Query {
            template,
            start,
            end,
            fields: fields.len(),
        }
    }

    /// One record as tmux prints it for `fields` (a line without its
    /// `\n`), with values escaped as tmux escapes them; for tests and
    /// fuzzing.
    pub fn render(&self, fields: &[&str]) -> String {
        let mut line = self.start.clone();
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                line.push(US);
            }
            line.push_str(&escape_value(f));
        }
        line.push_str(&self.end);
        line
    }

    /// The format to pass to tmux (`-F`).
    pub fn template(&self) -> &str {
        &self.template
    }

    /// How the answer's block ends: only at a record boundary.
    pub fn frame(&self) -> FrameSpec {
        FrameSpec::Records {
            start: self.start.clone().into_bytes(),
            end: self.end.clone().into_bytes(),
        }
    }

    /// The records in a command's output. Text outside records is
    /// ignored; a record whose field count is wrong is dropped (and
    /// logged).
    pub fn parse(&self, body: &[u8]) -> Vec<Record> {
        let start = self.start.as_bytes();
        let end = self.end.as_bytes();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(i) = memchr::memmem::find(&body[from..], start) {
            let at = from + i;
            if at != 0 && body[at - 1] != b'\n' {
                from = at + start.len();
                continue;
            }
            let rec_start = at + start.len();
            // The record ends at the end marker followed by a line break
            // (or the end of the body).
            let mut search = rec_start;
            let rec_end = loop {
                match memchr::memmem::find(&body[search..], end) {
                    Some(k) => {
                        let e = search + k;
                        let after = e + end.len();
                        if after == body.len() || body[after] == b'\n' {
                            break Some(e);
                        }
                        search = e + 1;
                    }
                    None => break None,
                }
            };
            let Some(rec_end) = rec_end else { break };
            match self.fields_of(&body[rec_start..rec_end]) {
                Some(fields) => out.push(Record(fields)),
                None => tracing::warn!(
                    expected = self.fields,
                    "dropping a tmux record with the wrong number of fields"
                ),
            }
            from = rec_end + end.len();
        }
        out
    }

    /// Splits a record's text at unescaped field separators and decodes
    /// each field; `None` unless there are exactly as many as expected.
    fn fields_of(&self, rec: &[u8]) -> Option<Vec<String>> {
        let us = US.to_string();
        let us = us.as_bytes();
        let mut fields = Vec::with_capacity(self.fields);
        let mut field_start = 0;
        let mut i = 0;
        while i < rec.len() {
            if rec[i] == b'\\' {
                // Skip the backslash and the first byte of the character
                // it escapes; the bytes that continue a multi-byte one
                // (`\␟`) are never a backslash or the first byte of US,
                // so they pass as plain bytes.
                i += 2;
                continue;
            }
            if rec[i..].starts_with(us) {
                fields.push(decode(&rec[field_start..i]));
                i += us.len();
                field_start = i;
                continue;
            }
            i += 1;
        }
        fields.push(decode(&rec[field_start..]));
        (fields.len() == self.fields).then_some(fields)
    }
}

fn decode(field: &[u8]) -> String {
    String::from_utf8_lossy(&unescape(field)).into_owned()
}

/// One parsed record: its fields in template order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record(pub Vec<String>);

impl Record {
    /// Field `i` as text (empty if missing).
    pub fn str(&self, i: usize) -> &str {
        self.0.get(i).map(String::as_str).unwrap_or("")
    }

    /// Field `i` as an owned string.
    pub fn string(&self, i: usize) -> String {
        self.str(i).to_string()
    }

    /// Field `i` as an integer, or `None` when empty or not a number.
    pub fn int(&self, i: usize) -> Option<i64> {
        self.str(i).trim().parse().ok()
    }

    /// Field `i` as a flag: tmux prints `1` for true.
    pub fn flag(&self, i: usize) -> bool {
        self.str(i) == "1"
    }

    /// Field `i` as an optional flag: empty (unknown to this tmux) is `None`.
    pub fn opt_flag(&self, i: usize) -> Option<bool> {
        match self.str(i) {
            "" => None,
            s => Some(s == "1"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(q: &Query, records: &[&[&str]]) -> Vec<u8> {
        let mut b = String::new();
        for r in records {
            b.push_str(&q.render(r));
            b.push('\n');
        }
        b.into_bytes()
    }

    #[test]
    fn template_shape() {
        let q = Query::new(&["pane_id", "pane_title"]);
        let t = q.template();
        assert!(t.starts_with(RS), "{t}");
        assert!(
            t.contains("␟#{pane_id}␟#{s/(\\\\|␞|␟)/\\\\\\1/;s/\n/\\\\n/:pane_title}␞"),
            "{t}"
        );
        assert!(!t.contains('%'));
        assert_ne!(
            Query::new(&["a"]).start,
            Query::new(&["a"]).start,
            "fresh nonce each time"
        );
    }

    #[test]
    fn split_records() {
        let q = Query::new(&["pane_id", "pane_width"]);
        let r = q.parse(&body(&q, &[&["%0", "80"], &["%1", "100"]]));
        assert_eq!(
            r,
            vec![
                Record(vec!["%0".into(), "80".into()]),
                Record(vec!["%1".into(), "100".into()])
            ]
        );
        assert_eq!(r[1].int(1), Some(100));
        assert!(q.parse(b"").is_empty());
        assert!(q.parse(b"junk\n").is_empty());
    }

    #[test]
    fn values_come_back_exactly() {
        let q = Query::new(&["pane_id", "pane_current_path", "pane_title"]);
        for v in [
            "/tmp/a\nb",
            "build␞step␟2 done",
            "back\\slash \\n not a newline",
            "x\n%end 1700000000 42 1\n%begin 1 2 1",
            "",
        ] {
            let r = q.parse(&body(&q, &[&["%0", v, v], &["%1", "/x", "t"]]));
            assert_eq!(r.len(), 2, "{v:?}");
            assert_eq!((r[0].str(1), r[0].str(2)), (v, v));
            assert_eq!(r[1].str(1), "/x");
        }
    }

    #[test]
    fn vis_escaped_values_decode() {
        // tmux ≥ 3.5 prints control characters as octal after our escape.
        let q = Query::new(&["pane_id", "pane_title"]);
        let mut b = q.render(&["%0", "x"]).replace("␟x", "␟a\\036b\\\\c");
        b.push('\n');
        let r = q.parse(b.as_bytes());
        assert_eq!(r[0].str(1), "a\u{1e}b\\c");
    }

    #[test]
    fn forged_records_and_fields_are_dropped() {
        let q = Query::new(&["pane_id", "pane_title", "window_id"]);
        // A value that tries to start a record without knowing the nonce.
        let forged = format!("x\n{RS}0000000000000000{US}");
        let r = q.parse(&body(&q, &[&["%1", &forged, "@1"]]));
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].str(0), r[0].str(1), r[0].str(2)),
            ("%1", forged.as_str(), "@1")
        );
        // An unescaped separator (a tmux that ignored the substitution)
        // shifts fields: the record is dropped.
        let raw = format!("{}%1{US}x{US}@999{US}@1{}\n", q.start, q.end);
        assert!(q.parse(raw.as_bytes()).is_empty());
    }

    #[test]
    fn format_escapes() {
        assert_eq!(escape_format("plain text"), "plain text");
        assert_eq!(escape_format("build #2"), "build ##2");
        assert_eq!(
            escape_format("#{pane_id} #(id) #S"),
            "##{pane_id} ##(id) ##S"
        );
        assert_eq!(escape_format("##x #"), "####x ##");
        // Style runs are copied by tmux as they are.
        assert_eq!(escape_format("#[fg=red] ##[x]"), "#[fg=red] ##[x]");
        assert_eq!(escape_format("日本#語"), "日本##語");
        assert_eq!(escape_format_time("100% #1"), "100%% ##1");
    }

    #[test]
    fn literals_print_as_written() {
        let lit = |s: &str| {
            let mut t = String::new();
            push_literal(&mut t, s);
            t
        };
        for (text, written) in [
            ("a#b", "a##b"),
            ("#[fg=red]x", "#[fg=red]x"),
            ("##[x", "##[x"),
            ("## #", "#### ##"),
            ("a\\b\nc␞", "a\\\\b\\nc\\␞"),
        ] {
            assert_eq!(lit(text), written, "{text:?}");
        }
    }

    #[test]
    fn generated_variables_are_not_escaped() {
        for n in [
            "pane_id",
            "window_index",
            "pane_width",
            "cursor_x",
            "history_size",
            "scroll-on-clear",
            "variation-selector-always-wide",
        ] {
            assert!(is_generated(n), "{n}");
        }
        for n in [
            "pane_title",
            "pane_current_path",
            "session_name",
            "window_name",
            "x",
            "@scroll-on-clear",
            "@user-option",
        ] {
            assert!(!is_generated(n), "{n}");
        }
    }
}
