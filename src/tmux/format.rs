//! Format strings that ask tmux for many fields at once, and the parser for
//! their answers. Pure.
//!
//! A record is printed as `RS field US field US … field`, one record per
//! object, with RS = U+241E `␞` and US = U+241F `␟` (printable
//! characters: tmux 3.5 and later print the ASCII separators `\x1e`/`\x1f`
//! as `\036`/`\037`). Records are split at line starts
//! that begin with RS, so a value containing a line break (a directory
//! name, say) does not split a record; fields are split on US from the
//! left into exactly the expected count.
//!
//! Templates built here never contain `%`: `display-message` runs its
//! template through `strftime()` when it does (format.c:
//! `format_expand1()`), which would turn `%` sequences into dates.

/// Record separator, printed before each record (U+241E).
pub const RS: char = '\u{241e}';
/// Field separator (U+241F).
pub const US: char = '\u{241f}';

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
    let sep: String = ['\n', RS].iter().collect();
    loop {
        let (rec, next) = match rest.find(&sep) {
            Some(i) => (&rest[..i], Some(&rest[i + sep.len()..])),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_shape() {
        assert_eq!(
            template(&["pane_id", "pane_width"]),
            "␞#{pane_id}␟#{pane_width}"
        );
        assert!(!template(&["a"]).contains('%'));
    }

    #[test]
    fn split_records() {
        let body = "␞%0␟80\n␞%1␟100\n".as_bytes();
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
        let body = "␞%0␟/tmp/a\nb\n␞%1␟/x\n".as_bytes();
        let r = records(body, 2);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].str(1), "/tmp/a\nb");
    }

    #[test]
    fn short_and_long_records() {
        let r = records("␞a\n␞a␟b␟c␟d\n".as_bytes(), 3);
        assert_eq!(r[0].0, vec!["a", "", ""]);
        assert_eq!(r[1].0, vec!["a", "b", "c␟d"]);
        assert!(records(b"", 2).is_empty());
        assert!(records(b"junk\n", 2).is_empty());
    }
}
