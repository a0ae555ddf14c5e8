//! Undoing the escapes tmux applies to text it prints to control clients.
//! Pure.
//!
//! Two escapers meet on the way out of tmux:
//!
//! * **vis(3)**, which tmux runs over command output: `show-buffer` on
//!   tmux ≤ 3.4 (cmd-save-buffer.c: `utf8_stravisx(…,
//!   VIS_OCTAL|VIS_CSTYLE|VIS_TAB)`) and every `cmdq_print()` line on
//!   tmux ≥ 3.5 (server-client.c: `server_client_print()`,
//!   `VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH`). Valid UTF-8 passes unchanged;
//!   other non-printable bytes become `\ooo` (three octal digits) or a C
//!   escape (`\r \b \a \v \t \f \0`); a backslash becomes `\\` unless
//!   `VIS_NOSLASH`; `$` before a letter, `_` or `{` may become `\$`
//!   (utf8.c: `utf8_strvis()`). Line feeds, spaces and (without
//!   `VIS_TAB`) tabs pass raw.
//! * **tmuxwire's own field escape**, applied inside the format tmux
//!   expands (see [`super::format`]): a backslash becomes `\\`, the record
//!   separators `␞`/`␟` become `\␞`/`\␟` and a line feed becomes `\n`, so
//!   a record is always one line and a separator in a value never splits
//!   it.
//!
//! Because tmuxwire doubles every backslash *before* vis sees the value, a
//! single backslash in the output always starts an escape, and one decoder
//! ([`unescape`]) undoes both layers, whatever the tmux version.

/// Decodes one escaped text (no line feeds expected, but they are kept).
///
/// * `\\` → `\`; `\␞` → `␞`; `\␟` → `␟`; `\$` → `$`;
/// * `\n \r \t \b \a \v \f \s` → LF, CR, TAB, BS, BEL, VT, FF, space;
/// * `\ooo` (exactly three octal digits) → that byte; `\0` not followed by
///   two octal digits → NUL;
/// * anything else after a backslash (and a backslash at the end) is kept
///   as is.
///
/// The dual of this routine is the vis(3) escaping tmux performs plus
/// [`super::format`]'s field escape.
pub fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    unescape_into(s, &mut out);
    out
}

/// [`unescape`], appending to `out`. Returns the number of bytes
/// appended.
pub fn unescape_into(s: &[u8], out: &mut Vec<u8>) -> usize {
    let before = out.len();
    let mut rest = s;
    while let Some(i) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..i]);
        let (value, used) = escape_at(&rest[i..]);
        out.extend_from_slice(value.as_slice());
        rest = &rest[i + used..];
    }
    out.extend_from_slice(rest);
    out.len() - before
}

/// The decoded length of `s` (what [`unescape`] would return the length
/// of), without allocating.
pub fn unescaped_len(s: &[u8]) -> usize {
    let mut n = 0;
    let mut rest = s;
    while let Some(i) = memchr::memchr(b'\\', rest) {
        n += i;
        let (value, used) = escape_at(&rest[i..]);
        n += usize::from(value.len);
        rest = &rest[i + used..];
    }
    n + rest.len()
}

/// Up to three bytes an escape stands for.
#[derive(Clone, Copy)]
struct Decoded {
    bytes: [u8; 3],
    len: u8,
}

impl Decoded {
    fn one(b: u8) -> Decoded {
        Decoded {
            bytes: [b, 0, 0],
            len: 1,
        }
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

const RS_BYTES: &[u8] = "\u{241e}".as_bytes();
const US_BYTES: &[u8] = "\u{241f}".as_bytes();

fn is_octal(b: u8) -> bool {
    (b'0'..=b'7').contains(&b)
}

/// Decodes the escape at the start of `s` (which starts with `\`): what
/// it stands for, and how many input bytes it used.
fn escape_at(s: &[u8]) -> (Decoded, usize) {
    let Some(&c) = s.get(1) else {
        return (Decoded::one(b'\\'), 1);
    };
    if s.len() >= 4 && is_octal(c) && is_octal(s[2]) && is_octal(s[3]) {
        let v = u32::from(c - b'0') * 64 + u32::from(s[2] - b'0') * 8 + u32::from(s[3] - b'0');
        // Three octal digits can exceed a byte (`\777`); vis never writes
        // that, keep the text.
        if let Ok(b) = u8::try_from(v) {
            return (Decoded::one(b), 4);
        }
        return (Decoded::one(b'\\'), 1);
    }
    let simple = match c {
        b'\\' => Some(b'\\'),
        b'$' => Some(b'$'),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'b' => Some(0x08),
        b'a' => Some(0x07),
        b'v' => Some(0x0b),
        b'f' => Some(0x0c),
        b's' => Some(b' '),
        b'0' => Some(0),
        _ => None,
    };
    if let Some(b) = simple {
        return (Decoded::one(b), 2);
    }
    for sep in [RS_BYTES, US_BYTES] {
        if s[1..].starts_with(sep) {
            let mut d = Decoded {
                bytes: [0; 3],
                len: 3,
            };
            d.bytes.copy_from_slice(sep);
            return (d, 1 + sep.len());
        }
    }
    (Decoded::one(b'\\'), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vis_escapes() {
        assert_eq!(unescape(br"a\\b"), b"a\\b");
        assert_eq!(unescape(br"\033[31m"), b"\x1b[31m");
        assert_eq!(
            unescape(br"x\ty\rz\bq\aw\ve\ff\s"),
            b"x\ty\rz\x08q\x07w\x0be\x0cf "
        );
        assert_eq!(unescape(br"\$HOME \$x"), b"$HOME $x");
        assert_eq!(unescape(br"\0x\0001"), b"\0x\x001");
        assert_eq!(unescape(br"\377\200"), b"\xff\x80");
        assert_eq!(unescape("caf\\303\\251 é".as_bytes()), "café é".as_bytes());
    }

    #[test]
    fn field_escapes() {
        assert_eq!(unescape("a\\␞b\\␟c\\nd".as_bytes()), "a␞b␟c\nd".as_bytes());
    }

    #[test]
    fn stray_backslashes_are_kept() {
        assert_eq!(unescape(br"\"), b"\\");
        assert_eq!(unescape(br"a\q"), b"a\\q");
        assert_eq!(unescape(br"\777"), b"\\777");
        assert_eq!(unescape(br"\12"), b"\\12");
    }

    #[test]
    fn lengths_agree() {
        for s in [
            &br"a\\b\033\t\$x\0"[..],
            br"\",
            br"plain",
            "\\␞\\␟é".as_bytes(),
            br"\777\12",
        ] {
            assert_eq!(unescaped_len(s), unescape(s).len(), "{s:?}");
        }
    }
}
