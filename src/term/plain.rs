//! `capture-pane -e` output read as plain text: the one reader of its
//! codes, used by the seed ([`super::Seed`]), `capture_pane`'s line-drawing
//! path ([`plain_capture`]) and `tmuxwire capture` (row by row,
//! [`strip_row`]). Pure.
//!
//! With `-e`, tmux writes before each cell the codes that take a terminal
//! from the previous cell's style to this one's (grid.c
//! `grid_string_cells_code()`): SGR sequences (`ESC [ … m`), hyperlinks
//! (OSC 8: `ESC ] 8 ; … ESC \`) and, around DEC line-drawing cells, SO and
//! SI (`\016`, `\017`). The codes are relative to the previous cell,
//! whatever its row, so the SO state carries from row to row. A cell's
//! text never holds ESC, SO or SI (tmux's input parser takes them as
//! controls).

use super::cell::acs_char;

/// The length in bytes of the `-e` code that starts at `b[at]`, or `None`
/// when a cell's text starts there (a lone ESC, not followed by `[` or
/// `]`, is text): SO or SI (1 byte), a CSI sequence (`ESC [` up to and
/// including its final byte, 0x40–0x7E), an OSC sequence (`ESC ]` up to
/// and including BEL or `ESC \`). A sequence the row ends in the middle
/// of runs to the end of the row. `at` must be within `b`.
pub(crate) fn code_len(b: &[u8], at: usize) -> Option<usize> {
    let end = match (b[at], b.get(at + 1)) {
        (0x0e | 0x0f, _) => at + 1,
        (0x1b, Some(b'[')) => {
            let mut j = at + 2;
            while j < b.len() && !(0x40..=0x7e).contains(&b[j]) {
                j += 1;
            }
            j + 1
        }
        (0x1b, Some(b']')) => {
            let mut j = at + 2;
            while j < b.len() && b[j] != 0x07 && !(b[j] == 0x1b && b.get(j + 1) == Some(&b'\\')) {
                j += 1;
            }
            j + if b.get(j) == Some(&0x1b) { 2 } else { 1 }
        }
        _ => return None,
    };
    Some(end.min(b.len()) - at)
}

/// Appends row `row` of a `capture-pane -e` (its bytes without the
/// newline) to `out` without its codes (SGR and other CSI sequences, OSC
/// sequences such as hyperlinks, SO/SI; see [`code_len`]). With `acs`,
/// letters between SO and SI become the DEC line-drawing characters they
/// show (tty-acs.c, as tmux draws them on a UTF-8 terminal: `lqqk` is
/// `┌──┐`, public case C21); without, they stay letters, as a plain
/// capture prints them. `shifted` is the SO state, carried from row to
/// row (start a capture with `false`). With `trim`, the row's trailing
/// spaces (U+0020) go, as a plain capture without `-J`/`-N` trims them
/// (with `-e` a code can stand after them).
///
/// `out` grows by at most three times `row`'s length (a letter becomes a
/// three-byte UTF-8 character); it gets no SO or SI.
pub fn strip_row(row: &[u8], acs: bool, trim: bool, shifted: &mut bool, out: &mut Vec<u8>) {
    let start = out.len();
    let mut i = 0;
    while i < row.len() {
        let next = memchr::memchr3(0x1b, 0x0e, 0x0f, &row[i..]).map_or(row.len(), |k| i + k);
        let text = &row[i..next];
        if *shifted && acs {
            for &c in text {
                match acs_char(u32::from(c)) {
                    Some(ch) => {
                        let mut buf = [0; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    None => out.push(c),
                }
            }
        } else {
            out.extend_from_slice(text);
        }
        if next == row.len() {
            break;
        }
        match code_len(row, next) {
            Some(n) => {
                match row[next] {
                    0x0e => *shifted = true,
                    0x0f => *shifted = false,
                    _ => {}
                }
                i = next + n;
            }
            None => {
                // A lone ESC: text (no line-drawing form).
                out.push(row[next]);
                i = next + 1;
            }
        }
    }
    if trim {
        let keep = out[start..]
            .iter()
            .rposition(|&b| b != b' ')
            .map_or(start, |k| start + k + 1);
        out.truncate(keep);
    }
}

/// The text of a `capture-pane -p -e` (rows or `-J` lines, each ending
/// with `\n`) as a plain capture prints it, except that DEC line-drawing
/// cells (`ESC ( 0`, which tmux stores as the letters `lqkxmj…` and a
/// plain capture prints as such) read as the box-drawing characters they
/// show (public case C21). The codes are removed and each line's trailing
/// spaces trimmed ([`strip_row`] with `acs` and `trim`). One line out per
/// line in; text without codes comes back as it is.
pub fn plain_capture(body: &[u8]) -> Vec<u8> {
    if memchr::memchr3(0x1b, 0x0e, 0x0f, body).is_none() {
        return body.to_vec();
    }
    let mut out = Vec::with_capacity(body.len());
    let mut shifted = false;
    let rows = body.strip_suffix(b"\n").unwrap_or(body);
    for row in rows.split(|&b| b == b'\n') {
        strip_row(row, true, true, &mut shifted, &mut out);
        out.push(b'\n');
    }
    if !body.ends_with(b"\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_lengths() {
        assert_eq!(code_len(b"\x0e", 0), Some(1));
        assert_eq!(code_len(b"a\x0f", 1), Some(1));
        assert_eq!(code_len(b"\x1b[1;31mx", 0), Some(7));
        assert_eq!(code_len(b"\x1b[1;3", 0), Some(5), "cut off: the rest");
        assert_eq!(code_len(b"\x1b]8;;u\x1b\\x", 0), Some(8));
        assert_eq!(code_len(b"\x1b]8;;u\x07x", 0), Some(7));
        assert_eq!(code_len(b"\x1b]8;\x1b", 0), Some(5));
        assert_eq!(code_len(b"\x1b", 0), None);
        assert_eq!(code_len(b"\x1b(0", 0), None);
        assert_eq!(code_len(b"x", 0), None);
    }

    fn stripped(rows: &[&[u8]], acs: bool, trim: bool) -> Vec<String> {
        let mut shifted = false;
        rows.iter()
            .map(|r| {
                let mut out = Vec::new();
                strip_row(r, acs, trim, &mut shifted, &mut out);
                String::from_utf8(out).unwrap()
            })
            .collect()
    }

    #[test]
    fn codes_and_line_drawing() {
        // C21: a box in DEC graphics, an ASCII x inside, SO carried over.
        let rows: [&[u8]; 3] = [b"\x0elqqk\x0f", b"x  x", b"\x0emqq\x1b[31mj"];
        assert_eq!(stripped(&rows, true, true), ["┌──┐", "x  x", "└──┘"]);
        assert_eq!(stripped(&rows, false, true), ["lqqk", "x  x", "mqqj"]);
        // Colours, a hyperlink, trailing spaces behind a code.
        let rows: [&[u8]; 2] = [
            b"\x1b[1mbold\x1b[0m  \x1b[41m  ",
            b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ ",
        ];
        assert_eq!(stripped(&rows, true, true), ["bold", "link"]);
        assert_eq!(stripped(&rows, true, false), ["bold    ", "link "]);
        // A code cut off at the end of a row is dropped, never a panic;
        // a lone ESC and bytes past ASCII are text.
        assert_eq!(stripped(&[b"a\x1b[3", b"\x1b]8;"], true, true), ["a", ""]);
        assert_eq!(
            stripped(&["\x0eé\x1bq".as_bytes()], true, false),
            ["é\x1b─"]
        );
    }

    #[test]
    fn plain_capture_reads_line_drawing_c21() {
        // SO/SI around DEC graphics letters, carried across rows; SGR and
        // OSC 8 removed; trailing spaces before a code trimmed.
        let body = b"\x0elqqk\x0f\nx  x\n\x0emq\nqj\x0f \x1b[41m \x1b[0m\n\x1b]8;;http://a\x07ok\x1b]8;;\x07\n";
        assert_eq!(
            String::from_utf8(plain_capture(body)).unwrap(),
            "\u{250c}\u{2500}\u{2500}\u{2510}\nx  x\n\u{2514}\u{2500}\n\u{2500}\u{2518}\nok\n"
        );
        assert_eq!(plain_capture(b"plain  \n"), b"plain  \n");
        assert_eq!(plain_capture(b"\x1b[1mbold"), b"bold");
        assert_eq!(plain_capture(b""), b"");
    }
}
