//! Marks: invisible, unforgeable places in a pane's output.
//!
//! `run_command` has the shell print a *mark* before and after the command
//! it types, as an OSC sequence tmux does not know:
//!
//! ```text
//! ESC ] 5379 ; tmuxwire ; <nonce: 32 hex digits> ; S BEL          start
//! ESC ] 5379 ; tmuxwire ; <nonce> ; E ; <exit status> BEL         end
//! ```
//!
//! (`ESC \` may end it instead of BEL). tmux parses an unknown OSC and
//! drops it (`input_exit_osc()` in input.c), so it shows on no screen and
//! in no capture, but control clients receive every byte the pane wrote,
//! so the mirror sees it in `%output`. The shell is given the mark as
//! `printf '\033]5379;…\007'`: the echo of the typed command holds a
//! backslash, not an ESC byte, so it is never taken for the mark, and a
//! program in the pane cannot print a mark it does not know the random
//! nonce of.
//!
//! [`MarkScanner`] finds marks in a pane's `%output` stream, including
//! marks split across notifications; it is a pure parser (fuzzed by
//! `fuzz_marks`).

use memchr::memmem;

/// What every mark starts with.
pub const PREFIX: &[u8] = b"\x1b]5379;tmuxwire;";

/// The longest mark, terminator included.
pub const MAX_MARK: usize = PREFIX.len() + 32 + 3 + 12 + 2;

/// A mark's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// The command starts.
    Start,
    /// The command ended with this exit status (`$?`).
    End(i32),
}

/// A mark found in a chunk of output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The offset in the chunk just past the mark's last byte.
    pub end: usize,
    /// The nonce it carries.
    pub nonce: u128,
    /// Its meaning.
    pub kind: MarkKind,
}

/// The printf format that makes a POSIX shell print a start mark.
pub fn start_printf(nonce: u128) -> String {
    format!("\\033]5379;tmuxwire;{nonce:032x};S\\007")
}

/// The printf format that makes a POSIX shell print an end mark; its one
/// `%d` takes the exit status.
pub fn end_printf(nonce: u128) -> String {
    format!("\\033]5379;tmuxwire;{nonce:032x};E;%d\\007")
}

/// Finds marks in one pane's output, chunk after chunk.
#[derive(Clone, Debug, Default)]
pub struct MarkScanner {
    /// The end of the previous chunks that may begin a mark (shorter than
    /// [`MAX_MARK`]).
    tail: Vec<u8>,
}

impl MarkScanner {
    /// A scanner at the start of a stream.
    pub fn new() -> MarkScanner {
        MarkScanner::default()
    }

    /// Forgets the stream so far (output was lost, or a new copy starts).
    pub fn reset(&mut self) {
        self.tail.clear();
    }

    /// The marks that end in `data`, in order, each with the offset just
    /// past it in `data` (a mark that began in an earlier chunk counts
    /// where it ends).
    pub fn scan(&mut self, data: &[u8]) -> Vec<Found> {
        let mut found = Vec::new();
        if self.tail.is_empty() && memchr::memchr(0x1b, data).is_none() {
            return found;
        }
        let joined;
        let buf: &[u8] = if self.tail.is_empty() {
            data
        } else {
            let mut b = std::mem::take(&mut self.tail);
            b.extend_from_slice(data);
            joined = b;
            &joined
        };
        let skip = buf.len() - data.len();
        let mut keep_from = None;
        let finder = memmem::Finder::new(PREFIX);
        let mut at = 0;
        while let Some(i) = finder.find(&buf[at..]) {
            let start = at + i;
            match parse(&buf[start..]) {
                Parsed::Mark { len, nonce, kind } => {
                    if start + len > skip {
                        found.push(Found {
                            end: start + len - skip,
                            nonce,
                            kind,
                        });
                    }
                    at = start + len;
                }
                Parsed::Incomplete => {
                    keep_from = Some(start);
                    break;
                }
                Parsed::Invalid => at = start + 1,
            }
        }
        let keep_from = keep_from.unwrap_or_else(|| buf.len() - partial_prefix(buf));
        self.tail = buf[keep_from..].to_vec();
        found
    }
}

/// The length of the longest end of `buf` that is a proper start of
/// [`PREFIX`].
fn partial_prefix(buf: &[u8]) -> usize {
    (1..PREFIX.len().min(buf.len() + 1))
        .rev()
        .find(|&n| buf.ends_with(&PREFIX[..n]))
        .unwrap_or(0)
}

enum Parsed {
    Mark {
        len: usize,
        nonce: u128,
        kind: MarkKind,
    },
    Incomplete,
    Invalid,
}

/// Parses a mark at the start of `buf` (which starts with [`PREFIX`]).
fn parse(buf: &[u8]) -> Parsed {
    let body_start = PREFIX.len();
    let window = &buf[..buf.len().min(MAX_MARK)];
    let term = window[body_start..]
        .iter()
        .position(|&b| b == 0x07 || b == 0x1b)
        .map(|i| body_start + i);
    let Some(end) = term else {
        return if buf.len() < MAX_MARK {
            Parsed::Incomplete
        } else {
            Parsed::Invalid
        };
    };
    let len = if buf[end] == 0x07 {
        end + 1
    } else {
        match buf.get(end + 1) {
            Some(b'\\') => end + 2,
            Some(_) => return Parsed::Invalid,
            None => return Parsed::Incomplete,
        }
    };
    let Ok(body) = std::str::from_utf8(&buf[body_start..end]) else {
        return Parsed::Invalid;
    };
    let mut fields = body.split(';');
    let nonce = match fields.next() {
        Some(n) if n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit()) => {
            match u128::from_str_radix(n, 16) {
                Ok(v) => v,
                Err(_) => return Parsed::Invalid,
            }
        }
        _ => return Parsed::Invalid,
    };
    let kind = match (fields.next(), fields.next(), fields.next()) {
        (Some("S"), None, None) => MarkKind::Start,
        (Some("E"), Some(status), None) => match status.parse::<i32>() {
            Ok(s) => MarkKind::End(s),
            Err(_) => return Parsed::Invalid,
        },
        _ => return Parsed::Invalid,
    };
    Parsed::Mark { len, nonce, kind }
}

/// Feeds `data` to a scanner in the chunks a fuzzer chose and checks that
/// the marks found do not depend on where the stream was cut.
pub fn fuzz_marks(data: &[u8]) {
    let Some((&cuts, stream)) = data.split_first() else {
        return;
    };
    let whole: Vec<(usize, u128, MarkKind)> = MarkScanner::new()
        .scan(stream)
        .into_iter()
        .map(|f| (f.end, f.nonce, f.kind))
        .collect();
    let mut s = MarkScanner::new();
    let mut pieces = Vec::new();
    let step = usize::from(cuts % 17) + 1;
    let mut at = 0;
    while at < stream.len() {
        let end = (at + step).min(stream.len());
        for f in s.scan(&stream[at..end]) {
            assert!(
                f.end >= 1 && f.end <= end - at,
                "mark end outside its chunk"
            );
            pieces.push((at + f.end, f.nonce, f.kind));
        }
        at = end;
    }
    assert_eq!(whole, pieces, "marks depend on how the stream was cut");
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: u128 = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;

    fn start() -> Vec<u8> {
        format!("\x1b]5379;tmuxwire;{N:032x};S\x07").into_bytes()
    }

    fn end(status: i32) -> Vec<u8> {
        format!("\x1b]5379;tmuxwire;{N:032x};E;{status}\x1b\\").into_bytes()
    }

    #[test]
    fn finds_marks_in_one_chunk() {
        let mut data = b"echo\r\n".to_vec();
        data.extend(start());
        let s_end = data.len();
        data.extend(b"out\r\n");
        data.extend(end(3));
        let e_end = data.len();
        data.extend(b"$ ");
        let found = MarkScanner::new().scan(&data);
        assert_eq!(
            found,
            [
                Found {
                    end: s_end,
                    nonce: N,
                    kind: MarkKind::Start
                },
                Found {
                    end: e_end,
                    nonce: N,
                    kind: MarkKind::End(3)
                }
            ]
        );
    }

    #[test]
    fn a_mark_split_anywhere_is_found_once_where_it_ends() {
        let mut data = b"abc".to_vec();
        data.extend(end(-1));
        data.extend(b"xyz");
        for cut in 0..=data.len() {
            let mut s = MarkScanner::new();
            let a = s.scan(&data[..cut]);
            let b = s.scan(&data[cut..]);
            let all: Vec<usize> = a
                .iter()
                .map(|f| f.end)
                .chain(b.iter().map(|f| f.end + cut))
                .collect();
            assert_eq!(all, [data.len() - 3], "cut at {cut}");
        }
    }

    #[test]
    fn the_printf_text_is_not_a_mark() {
        // What the echo of the typed command holds.
        let echo = format!("$ printf '{}'", start_printf(N));
        assert!(MarkScanner::new().scan(echo.as_bytes()).is_empty());
    }

    #[test]
    fn malformed_marks_are_ignored() {
        let mut s = MarkScanner::new();
        for bad in [
            "\x1b]5379;tmuxwire;xyz;S\x07".to_string(),
            format!("\x1b]5379;tmuxwire;{N:032x};Q\x07"),
            format!("\x1b]5379;tmuxwire;{N:032x};E;notanumber\x07"),
            format!("\x1b]5379;tmuxwire;{N:032x};S;extra\x07"),
            format!("\x1b]5379;tmuxwire;{N:031x};S\x07"),
        ] {
            assert!(s.scan(bad.as_bytes()).is_empty(), "{bad:?}");
        }
        // A prefix that never ends does not hold output back for ever.
        let mut long = PREFIX.to_vec();
        long.extend(std::iter::repeat_n(b'a', 200));
        assert!(s.scan(&long).is_empty());
        assert!(s.tail.len() < MAX_MARK);
        let mut after = start();
        after.extend(b"tail");
        assert_eq!(s.scan(&after).len(), 1);
    }

    #[test]
    fn fuzz_harness_agrees_on_examples() {
        let mut data = vec![5u8];
        data.extend(start());
        data.extend(b"text\x1b]5379;tmux");
        data.extend(end(0));
        fuzz_marks(&data);
    }
}
