//! Format strings that ask tmux for many fields at once, and the parser for
//! their answers. Pure.
//!
//! A record is printed as `RS field US field US … field` (RS = `\x1e`,
//! US = `\x1f`), one record per object. Records are split at line starts
//! that begin with RS, so a value containing a line break (a directory
//! name, say) does not split a record; fields are split on US from the
//! left into exactly the expected count.
//!
//! Templates built here never contain `%`: `display-message` runs its
//! template through `strftime()` when it does (format.c:
//! `format_expand1()`), which would turn `%` sequences into dates.

/// Record separator, printed before each record.
pub const RS: char = '\x1e';
/// Field separator.
pub const US: char = '\x1f';

/// Builds the template for `names` (tmux format variable names).
pub fn template(names: &[&str]) -> String {
    let mut t = String::with_capacity(names.len() * 16 + 1);
    t.push(RS);
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            t.push(US);
        }
        t.push_str("#{");
        t.push_str(n);
        t.push('}');
    }
    t
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

/// Splits a command's output into records of `n` fields each.
///
/// Text before the first RS is ignored; a record with fewer fields than
/// `n` is padded with empty fields (older tmux versions print unknown
/// variables as empty, not as missing), one with more keeps the extra US
/// bytes in its last field.
pub fn records(body: &[u8], n: usize) -> Vec<Record> {
    let text = String::from_utf8_lossy(body);
    let mut out = Vec::new();
    let mut rest: &str = &text;
    // Skip to the first record.
    match rest.find(RS) {
        Some(i) => rest = &rest[i + RS.len_utf8()..],
        None => return out,
    }
    loop {
        let (rec, next) = match find_record_end(rest) {
            Some(i) => (&rest[..i], Some(&rest[i + 1 + RS.len_utf8()..])),
            None => (rest.strip_suffix('\n').unwrap_or(rest), None),
        };
        let mut fields: Vec<String> = rec.splitn(n.max(1), US).map(str::to_string).collect();
        fields.resize(n, String::new());
        out.push(Record(fields));
        match next {
            Some(n) => rest = n,
            None => break,
        }
    }
    out
}

/// The index of the `\n` that ends the record starting at `s[0]`: the
/// first `\n` followed by RS.
fn find_record_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', &b[from..]) {
        let at = from + i;
        if b.get(at + 1) == Some(&(RS as u8)) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_shape() {
        assert_eq!(
            template(&["pane_id", "pane_width"]),
            "\x1e#{pane_id}\x1f#{pane_width}"
        );
        assert!(!template(&["a"]).contains('%'));
    }

    #[test]
    fn split_records() {
        let body = b"\x1e%0\x1f80\n\x1e%1\x1f100\n";
        let r = records(body, 2);
        assert_eq!(
            r,
            vec![
                Record(vec!["%0".into(), "80".into()]),
                Record(vec!["%1".into(), "100".into()])
            ]
        );
        assert_eq!(r[1].int(1), Some(100));
    }

    #[test]
    fn newline_inside_a_value() {
        let body = b"\x1e%0\x1f/tmp/a\nb\n\x1e%1\x1f/x\n";
        let r = records(body, 2);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].str(1), "/tmp/a\nb");
    }

    #[test]
    fn short_and_long_records() {
        let r = records(b"\x1ea\n\x1ea\x1fb\x1fc\x1fd\n", 3);
        assert_eq!(r[0].0, vec!["a", "", ""]);
        assert_eq!(r[1].0, vec!["a", "b", "c\x1fd"]);
        assert!(records(b"", 2).is_empty());
        assert!(records(b"junk\n", 2).is_empty());
    }
}
