//! Format strings that ask tmux for many fields at once, and the parser for
//! their answers. Pure.
//!
//! # Format
//!
//! Each object is printed as one record:
//!
//! ```text
//! ␞<nonce>␟field␟field␟…␟field
//! ```
//!
//! RS = U+241E `␞` and US = U+241F `␟` are printable characters, because
//! tmux 3.5 and later print control characters such as `\x1e` as `\036`.
//! Field values come from programs in panes (titles, process names,
//! working directories), so the format defends against values that try to
//! look like separators:
//!
//! * free-text fields are printed through tmux's `s/␞|␟/�/` substitution,
//!   so they cannot contain a separator;
//! * a record starts only at a line that begins with RS followed by this
//!   query's random nonce, which a pane cannot guess, so a value holding a
//!   line break cannot start a fake record;
//! * a record must have exactly the expected number of fields, or it is
//!   dropped, so a field cannot shift the ones after it.
//!
//! Templates built here never contain `%`: `display-message` runs its
//! template through `strftime()` when it does (format.c:
//! `format_expand1()`), which would turn `%` sequences into dates.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Record separator, printed before each record (U+241E).
pub const RS: char = '\u{241e}';
/// Field separator (U+241F).
pub const US: char = '\u{241f}';

/// Fields whose values programs in a pane can choose (titles, process
/// names, paths, names set by commands); printed sanitized.
const FREE_TEXT: &[&str] = &[
    "session_name",
    "window_name",
    "pane_title",
    "pane_current_command",
    "pane_current_path",
    "pane_start_command",
    "pane_tty",
    "client_name",
    "client_termname",
];

/// 64 random bits as 16 hex digits, different on every call (std's
/// randomly keyed hasher over a counter).
pub fn nonce() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(SEQ.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// A multi-field query: its template and the parser for its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    template: String,
    marker: String,
    fields: usize,
}

impl Query {
    /// A query for `names` (tmux format variable names), with a fresh
    /// nonce.
    pub fn new(names: &[&str]) -> Query {
        let nonce = nonce();
        let mut template = String::with_capacity(names.len() * 24 + 24);
        template.push(RS);
        template.push_str(&nonce);
        for n in names {
            template.push(US);
            if FREE_TEXT.contains(n) {
                template.push_str("#{s/");
                template.push(RS);
                template.push('|');
                template.push(US);
                template.push_str("/\u{fffd}/:");
                template.push_str(n);
                template.push('}');
            } else {
                template.push_str("#{");
                template.push_str(n);
                template.push('}');
            }
        }
        let mut marker = String::new();
        marker.push(RS);
        marker.push_str(&nonce);
        marker.push(US);
        Query {
            template,
            marker,
            fields: names.len(),
        }
    }

    /// One record as tmux prints it for `fields` (a line without its
    /// `\n`), for tests and fuzzing. Values are not sanitized here.
    pub fn render(&self, fields: &[&str]) -> String {
        let mut line = self.marker.clone();
        line.push_str(&fields.join(&US.to_string()));
        line
    }

    /// The format to pass to tmux (`-F`).
    pub fn template(&self) -> &str {
        &self.template
    }

    /// The records in a command's output. Text outside records is
    /// ignored; a record whose field count is wrong is dropped (and
    /// logged).
    pub fn parse(&self, body: &[u8]) -> Vec<Record> {
        let text = String::from_utf8_lossy(body);
        let mut out = Vec::new();
        let mut starts = Vec::new();
        let mut from = 0;
        while let Some(i) = text[from..].find(&self.marker) {
            let at = from + i;
            if at == 0 || text.as_bytes()[at - 1] == b'\n' {
                starts.push(at);
            }
            from = at + self.marker.len();
        }
        for (k, &at) in starts.iter().enumerate() {
            let end = starts.get(k + 1).map_or(text.len(), |&next| next);
            let rec = &text[at + self.marker.len()..end];
            let rec = rec.strip_suffix('\n').unwrap_or(rec);
            let fields: Vec<String> = rec.split(US).map(str::to_string).collect();
            if fields.len() == self.fields {
                out.push(Record(fields));
            } else {
                tracing::warn!(
                    expected = self.fields,
                    got = fields.len(),
                    "dropping a tmux record whose fields contain separators"
                );
            }
        }
        out
    }
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
        let marker = &q.marker;
        let mut b = String::new();
        for r in records {
            b.push_str(marker);
            b.push_str(&r.join(&US.to_string()));
            b.push('\n');
        }
        b.into_bytes()
    }

    #[test]
    fn template_shape() {
        let q = Query::new(&["pane_id", "pane_title"]);
        let t = q.template();
        assert!(
            t.starts_with(RS) && t.contains("␟#{pane_id}␟#{s/␞|␟/\u{fffd}/:pane_title}"),
            "{t}"
        );
        assert!(!t.contains('%'));
        assert_ne!(
            Query::new(&["a"]).marker,
            Query::new(&["a"]).marker,
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
    fn newline_inside_a_value() {
        let q = Query::new(&["pane_id", "pane_current_path"]);
        let r = q.parse(&body(&q, &[&["%0", "/tmp/a\nb"], &["%1", "/x"]]));
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].str(1), "/tmp/a\nb");
    }

    #[test]
    fn forged_records_and_fields_are_dropped() {
        let q = Query::new(&["pane_id", "pane_title", "window_id"]);
        // A value that tries to start a record without knowing the nonce.
        let forged = format!("x\n{RS}0000000000000000");
        let r = q.parse(&body(&q, &[&["%1", &forged, "@1"]]));
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].str(0), r[0].str(1), r[0].str(2)),
            ("%1", forged.as_str(), "@1")
        );
        // A value holding separators shifts fields: the record is dropped.
        let shifted = format!("x{US}@999");
        assert!(q.parse(&body(&q, &[&["%1", &shifted, "@1"]])).is_empty());
    }
}
