//! Input that arrives exactly as given: text typed into a pane byte for
//! byte, key names kept apart from text, and paste-buffer text in
//! tmuxwire's own buffer namespace. Pure: command building only.
//!
//! # Typing text
//!
//! tmux's `send-keys` reads each argument as a key name when it is one
//! (`Up`, `Enter`, `C-c`) and as text otherwise, parses flags from
//! arguments that start with `-`, and, from a one-shot client, ends a
//! command at an argument ending in `;`. Text is therefore never sent as
//! a plain argument here ([`type_text`]):
//!
//! * runs of printable ASCII (`0x20..=0x7e`) go as `send-keys -l --
//!   'TEXT'` (literal, after `--`; the control-mode line quotes every
//!   argument, so `;`, `$VAR`, `#{…}`, quotes and a leading `-` are
//!   text);
//! * every other byte (line breaks, tabs, other control characters, DEL,
//!   and the UTF-8 bytes of non-ASCII text) goes as `send-keys -H xx …`:
//!   tmux writes each as one raw byte (`KEYC_LITERAL` in input-keys.c).
//!   `-l` would send non-ASCII characters through tmux's UTF-8 decoder
//!   and width table, which drops characters it does not know
//!   (cmd-send-keys.c: `utf8_from_data()` failing is skipped), and would
//!   map control characters to keys.
//!
//! Long text is cut into [`Segment`]s of at most [`MAX_TEXT_BYTES`] bytes
//! of text or [`MAX_HEX_BYTES`] hex arguments per command: tmux's command
//! parser fails a command of about 10,000 arguments as a whole ("yacc
//! stack overflow", public case C34), so no command comes near that.
//!
//! # Keys
//!
//! A key press is sent only for a string that is exactly one key name of
//! [`KEY_NAMES`] with optional `C-`/`M-`/`S-`/`^` modifiers, or a single
//! character with at least one modifier ([`is_key_name`]): `C-c`,
//! `Enter`, `M-x`, `C-Space`, `F5`. Anything else is text.

use crate::control::Command;

/// Most bytes of text one `send-keys -l` command carries.
pub const MAX_TEXT_BYTES: usize = 4096;

/// Most bytes one `send-keys -H` command carries (one argument each).
pub const MAX_HEX_BYTES: usize = 512;

/// Most bytes one `set-buffer` command carries when text is put into a
/// paste buffer in pieces.
pub const MAX_BUFFER_CHUNK: usize = 64 * 1024;

/// The key names tmux knows (key-string.c: `key_string_table`, 3.2–3.8),
/// matched without regard to case.
pub const KEY_NAMES: &[&str] = &[
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "IC", "Insert",
    "DC", "Delete", "Home", "End", "NPage", "PageDown", "PgDn", "PPage", "PageUp", "PgUp", "Tab",
    "BTab", "Space", "BSpace", "Enter", "Escape", "Up", "Down", "Left", "Right", "KP/", "KP*",
    "KP-", "KP7", "KP8", "KP9", "KP+", "KP4", "KP5", "KP6", "KP1", "KP2", "KP3", "KPEnter", "KP0",
    "KP.",
];

/// Whether `s` is exactly one key name: optional modifiers (`C-`, `M-`,
/// `S-` in any order and case, or a leading `^` for Ctrl) followed by a
/// name of [`KEY_NAMES`], or by a single character when there is at least
/// one modifier (`C-c`, `M-.`). A single character alone is text (the
/// same byte either way); so is everything else.
pub fn is_key_name(s: &str) -> bool {
    let mut rest = s;
    let mut modified = false;
    if let Some(r) = rest.strip_prefix('^')
        && !r.is_empty()
    {
        rest = r;
        modified = true;
    }
    loop {
        let b = rest.as_bytes();
        if b.len() > 2 && b[1] == b'-' && matches!(b[0], b'C' | b'c' | b'M' | b'm' | b'S' | b's') {
            rest = &rest[2..];
            modified = true;
        } else {
            break;
        }
    }
    if KEY_NAMES.iter().any(|k| k.eq_ignore_ascii_case(rest)) {
        return true;
    }
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => modified && !c.is_control(),
        _ => false,
    }
}

/// One piece of text and how it is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Printable ASCII only (`0x20..=0x7e`), at most [`MAX_TEXT_BYTES`]:
    /// `send-keys -l -- TEXT`.
    Text(&'a str),
    /// Any other bytes, at most [`MAX_HEX_BYTES`]: `send-keys -H xx …`.
    Bytes(&'a [u8]),
}

fn printable(b: u8) -> bool {
    (0x20..=0x7e).contains(&b)
}

/// `text` cut into [`Segment`]s, in order. Their bytes, joined, are
/// exactly `text`'s bytes; no segment is empty; a text segment holds only
/// printable ASCII and a bytes segment none.
pub fn segments(text: &str) -> Vec<Segment<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let kind = printable(b[i]);
        let max = if kind { MAX_TEXT_BYTES } else { MAX_HEX_BYTES };
        let mut j = i + 1;
        while j < b.len() && j - i < max && printable(b[j]) == kind {
            j += 1;
        }
        out.push(if kind {
            // Only ASCII between i and j: both are char boundaries.
            Segment::Text(&text[i..j])
        } else {
            Segment::Bytes(&b[i..j])
        });
        i = j;
    }
    out
}

/// The commands that type `text` into the pane `target` (a `-t` value)
/// byte for byte (see the module docs); none for empty text.
pub fn type_text(target: &str, text: &str) -> Vec<Command> {
    segments(text)
        .into_iter()
        .map(|s| match s {
            Segment::Text(t) => Command::new("send-keys")
                .opt("-t", target)
                .arg("-l")
                .arg("--")
                .arg(t),
            Segment::Bytes(bytes) => {
                let mut c = Command::new("send-keys").opt("-t", target).arg("-H");
                for x in bytes {
                    c = c.arg(format!("{x:02x}"));
                }
                c
            }
        })
        .collect()
}

/// The command that takes the pane `target` out of every mode (copy
/// mode, view mode, a chooser, the clock): `copy-mode -q`
/// (cmd-copy-mode.c: `window_pane_reset_mode_all()`; tmux 3.2+), a no-op
/// for a pane in no mode.
///
/// Every line that types into a pane starts with it. Keys sent to a pane
/// in a mode go to the mode's key table, not to the program
/// (cmd-send-keys.c: `cmd_send_keys_inject_key()` dispatches the mode's
/// binding with the sending client as its client): text is lost, and keys
/// such as `t`, `f`, `/`, `?`, `:` or a digit run `command-prompt` on
/// tmuxwire's own control client, which waits for the prompt to be
/// answered (cmd-command-prompt.c returns `CMD_RETURN_WAIT` without
/// `-b`), so that client's queue never moves again (public case C39).
/// A paste (`paste-buffer`) reaches the program in a mode, but the pane
/// would stay scrolled back over it, so pastes leave modes too.
pub fn leave_modes(target: &str) -> Command {
    Command::new("copy-mode").arg("-q").opt("-t", target)
}

/// `cmds` (typing into the pane `target`) as control-mode lines of at most
/// `line_commands` commands, each starting with [`leave_modes`] (a person
/// may enter copy mode between two lines); `first` (a lookup whose answer
/// says which pane and mode) opens the first line, before anything else.
pub fn typing_lines(
    first: Command,
    target: &str,
    cmds: Vec<Command>,
    line_commands: usize,
) -> Vec<Vec<Command>> {
    let most = line_commands.max(2);
    let mut lines = vec![vec![first, leave_modes(target)]];
    for c in cmds {
        match lines.last_mut() {
            Some(last) if last.len() < most => last.push(c),
            _ => lines.push(vec![leave_modes(target), c]),
        }
    }
    lines
}

/// The command that presses key `key` (a name [`is_key_name`] accepts)
/// in the pane `target`.
pub fn press_key(target: &str, key: &str) -> Command {
    Command::new("send-keys")
        .opt("-t", target)
        .arg("--")
        .arg(key)
}

/// The commands that fill the paste buffer `name` with `text`: the first
/// piece replaces the buffer, the others are appended (`set-buffer -a`);
/// pieces are cut at character boundaries. None for empty text (tmux
/// creates no buffer for empty data).
pub fn fill_buffer(name: &str, text: &str) -> Vec<Command> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(MAX_BUFFER_CHUNK);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let mut c = Command::new("set-buffer");
        if !out.is_empty() {
            c = c.arg("-a");
        }
        out.push(c.opt("-b", name).arg("--").arg(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

/// Whether a pasted byte reaches the program as it is: printable ASCII,
/// space, tab, line feed, carriage return, backspace and bell (vis(3)'s
/// `VIS_SAFE` set, compat/vis.c `isvisible()`).
fn paste_keeps(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r' | 0x08 | 0x07)
}

/// Appends how vis(3) shows the byte `b` with `VIS_SAFE|VIS_NOSLASH`
/// (compat/vis.c `vis()`): `b` itself when [`paste_keeps`] it, else `^X`
/// for a control character (`^[` for ESC, `^?` for DEL), with `M` before
/// it for a byte with the high bit set (`M^[`, `M-i`).
fn vis_byte(b: u8, out: &mut Vec<u8>) {
    if paste_keeps(b) {
        out.push(b);
        return;
    }
    let mut c = b;
    if c & 0x80 != 0 {
        c &= 0x7f;
        out.push(b'M');
    }
    if c < 0x20 || c == 0x7f {
        out.push(b'^');
        out.push(if c == 0x7f { b'?' } else { c + b'@' });
    } else {
        out.push(b'-');
        out.push(c);
    }
}

/// `bytes` as tmux 3.7 and later paste them (cmd-paste-buffer.c:
/// `cmd_paste_buffer_paste()` passes each line through
/// `utf8_stravisx(VIS_SAFE|VIS_NOSLASH)`, utf8.c `utf8_strvis()`): a valid
/// UTF-8 character of two or more bytes as it is; every other byte as
/// [`vis_byte`] shows it. So ESC becomes the two characters `^[`, and no
/// pasted text can end a bracketed paste early (`ESC [ 2 0 1 ~`) or type
/// a control key (C-u, C-c) into the program: tmux before 3.7 writes a
/// buffer's bytes as they are (public case C40). Pasting the result on
/// 3.7+ changes nothing more: every byte of it is one [`paste_keeps`].
/// Line feeds stay; tmux turns them into the paste's separator.
pub fn paste_safe(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for ch in chunk.valid().chars() {
            if ch.is_ascii() {
                vis_byte(ch as u8, &mut out);
            } else {
                let mut buf = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
        }
        for &b in chunk.invalid() {
            vis_byte(b, &mut out);
        }
    }
    // Only whole characters and ASCII were written.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Prefix of every paste buffer tmuxwire creates for callers
/// (`load_buffer`, `paste_text`); buffer tools accept no other names.
pub const BUFFER_PREFIX: &str = "tmuxwire_";

/// A fresh buffer name in tmuxwire's namespace: `tmuxwire_<32 hex>_<logical>`.
/// `logical` must pass [`is_logical_name`].
pub fn new_buffer_name(logical: &str) -> String {
    let n = crate::nonce::u128();
    format!("{BUFFER_PREFIX}{n:032x}_{logical}")
}

/// A logical buffer name: 1–64 of `[A-Za-z0-9_.-]`.
pub fn is_logical_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Whether `name` is a buffer name [`new_buffer_name`] could have made.
pub fn is_own_buffer(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(BUFFER_PREFIX) else {
        return false;
    };
    let (hex, logical) = rest.split_at(rest.len().min(32));
    hex.len() == 32
        && hex
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && logical.strip_prefix('_').is_some_and(is_logical_name)
}

/// The fuzz property of [`segments`], [`type_text`] and [`paste_safe`]
/// (target `send_keys_plan`): for any text, the segments join to the
/// text, each is non-empty, within its limit and of one kind, and the
/// commands carry the same bytes without a raw line break in any command
/// line; a paste of any bytes holds no byte a paste would not keep (no
/// ESC, so no bracketed-paste marker), and pasting it again changes
/// nothing.
///
/// # Panics
///
/// When a property fails.
#[doc(hidden)]
pub fn fuzz_segments(data: &[u8]) {
    let safe = paste_safe(data);
    assert!(safe.bytes().all(|b| b >= 0x80 || paste_keeps(b)));
    assert_eq!(paste_safe(safe.as_bytes()), safe);
    let text = String::from_utf8_lossy(data);
    let segs = segments(&text);
    let mut joined = Vec::new();
    for s in &segs {
        match s {
            Segment::Text(t) => {
                assert!(!t.is_empty() && t.len() <= MAX_TEXT_BYTES);
                assert!(t.bytes().all(printable));
                joined.extend_from_slice(t.as_bytes());
            }
            Segment::Bytes(b) => {
                assert!(!b.is_empty() && b.len() <= MAX_HEX_BYTES);
                assert!(!b.iter().copied().any(printable));
                joined.extend_from_slice(b);
            }
        }
    }
    assert_eq!(joined, text.as_bytes());
    // Adjacent segments of one kind only when the first is full.
    for w in segs.windows(2) {
        match w {
            [Segment::Text(a), Segment::Text(_)] => assert_eq!(a.len(), MAX_TEXT_BYTES),
            [Segment::Bytes(a), Segment::Bytes(_)] => assert_eq!(a.len(), MAX_HEX_BYTES),
            _ => {}
        }
    }
    let mut sent = Vec::new();
    for c in type_text("%1", &text) {
        let argv = c.argv();
        assert_eq!(&argv[..3], ["send-keys", "-t", "%1"]);
        let line = c.to_line().expect("no NUL reaches a command");
        assert!(!line.contains('\n'));
        match argv[3].as_str() {
            "-l" => {
                assert_eq!(argv.len(), 6);
                assert_eq!(argv[4], "--");
                sent.extend_from_slice(argv[5].as_bytes());
            }
            "-H" => {
                assert!(argv.len() > 4 && argv.len() - 4 <= MAX_HEX_BYTES);
                for h in &argv[4..] {
                    assert_eq!(h.len(), 2);
                    sent.push(u8::from_str_radix(h, 16).expect("hex"));
                }
            }
            other => panic!("unexpected send-keys flag {other}"),
        }
    }
    assert_eq!(sent, text.as_bytes());
    // Buffer pieces join to the text too.
    let mut filled = String::new();
    for (i, c) in fill_buffer("tmuxwire_x", &text).iter().enumerate() {
        let argv = c.argv();
        assert_eq!(argv[1] == "-a", i > 0);
        let piece = argv.last().expect("data");
        assert!(!piece.is_empty() && piece.len() <= MAX_BUFFER_CHUNK);
        filled.push_str(piece);
    }
    assert_eq!(filled, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(char, usize)> {
        segments(text)
            .iter()
            .map(|s| match s {
                Segment::Text(t) => ('t', t.len()),
                Segment::Bytes(b) => ('b', b.len()),
            })
            .collect()
    }

    #[test]
    fn key_names() {
        for k in [
            "C-c", "c-c", "Enter", "enter", "Up", "C-Space", "M-x", "S-Left", "C-M-Up", "^c",
            "F12", "KP.", "BSpace", "M-.", "C-日",
        ] {
            assert!(is_key_name(k), "{k}");
        }
        for t in [
            "", "c", ";", "-", "echo Up", "Up ", "Enter\n", "C-", "C-cc", "Ctrl-c", "0x41", "None",
            "Any", "^", "M-\n", "F13", "日", "hello",
        ] {
            assert!(!is_key_name(t), "{t:?}");
        }
    }

    #[test]
    fn cuts() {
        assert_eq!(kinds(""), vec![]);
        assert_eq!(kinds("echo one;"), vec![('t', 9)]);
        assert_eq!(kinds("a\nb"), vec![('t', 1), ('b', 1), ('t', 1)]);
        assert_eq!(kinds("日本語"), vec![('b', 9)]);
        assert_eq!(kinds("x\u{7f}\t"), vec![('t', 1), ('b', 2)]);
        let long = "a".repeat(MAX_TEXT_BYTES * 2 + 1);
        assert_eq!(
            kinds(&long),
            vec![('t', MAX_TEXT_BYTES), ('t', MAX_TEXT_BYTES), ('t', 1)]
        );
        let wide = "é".repeat(MAX_HEX_BYTES);
        assert_eq!(
            kinds(&wide),
            vec![('b', MAX_HEX_BYTES), ('b', MAX_HEX_BYTES)]
        );
    }

    #[test]
    fn commands() {
        let c = type_text("%3", "-t d2 ;$X\n");
        assert_eq!(c.len(), 2);
        assert_eq!(
            c[0].argv(),
            ["send-keys", "-t", "%3", "-l", "--", "-t d2 ;$X"]
        );
        assert_eq!(c[1].argv(), ["send-keys", "-t", "%3", "-H", "0a"]);
        assert_eq!(
            press_key("%3", "C-c").argv(),
            ["send-keys", "-t", "%3", "--", "C-c"]
        );
        let fill = fill_buffer("b", &"x".repeat(MAX_BUFFER_CHUNK + 2));
        assert_eq!(fill.len(), 2);
        assert_eq!(fill[1].argv()[..4], ["set-buffer", "-a", "-b", "b"]);
        assert!(fill_buffer("b", "").is_empty());
    }

    /// Every line starts by leaving modes (the first after the lookup),
    /// and none is longer than asked.
    #[test]
    fn typing_lines_leave_modes_first() {
        let names = |lines: &[Vec<Command>]| -> Vec<Vec<String>> {
            lines
                .iter()
                .map(|l| l.iter().map(|c| c.name().to_string()).collect())
                .collect()
        };
        let lookup = Command::new("list-panes");
        let keys = type_text("%1", "ab\ncd");
        assert_eq!(
            names(&typing_lines(lookup.clone(), "%1", keys, 32)),
            [[
                "list-panes",
                "copy-mode",
                "send-keys",
                "send-keys",
                "send-keys"
            ]]
        );
        let many: Vec<Command> = (0..7).map(|_| press_key("%1", "Up")).collect();
        let lines = typing_lines(lookup, "%1", many, 4);
        assert_eq!(lines.iter().map(Vec::len).collect::<Vec<_>>(), [4, 4, 3]);
        for (i, l) in lines.iter().enumerate() {
            let leave = l.iter().position(|c| c.name() == "copy-mode");
            assert_eq!(leave, Some(usize::from(i == 0)), "{:?}", names(&lines));
            assert_eq!(
                l[usize::from(i == 0)].argv(),
                ["copy-mode", "-q", "-t", "%1"]
            );
        }
    }

    /// Pastes as tmux 3.7+ writes them: controls shown as `^X`, the
    /// bracketed-paste markers inert, UTF-8 kept, invalid bytes as vis(3)
    /// shows them; a second pass changes nothing.
    #[test]
    fn pastes_as_tmux_3_7_writes_them() {
        let cases: &[(&[u8], &str)] = &[
            (b"plain text; $X #{y}", "plain text; $X #{y}"),
            (b"a\tb\r\nc\x08\x07", "a\tb\r\nc\x08\x07"),
            (
                b"just text \x1b[201~\x15echo INJECTED-$((6*7))\r",
                "just text ^[[201~^Uecho INJECTED-$((6*7))\r",
            ),
            (b"\x1b[200~x\x1b[201~", "^[[200~x^[[201~"),
            (b"\x03\x04\x7f\x00\x1f", "^C^D^?^@^_"),
            (
                "日本語 e\u{301} 👍🏽 \u{9b}".as_bytes(),
                "日本語 e\u{301} 👍🏽 \u{9b}",
            ),
            (b"caf\xe9 \xff\x9b!", "cafM-i M^?M^[!"),
        ];
        for (raw, want) in cases {
            let got = paste_safe(raw);
            assert_eq!(got, *want, "{raw:?}");
            assert_eq!(paste_safe(got.as_bytes()), got, "{raw:?}: twice");
            assert!(!got.contains('\x1b'), "{raw:?}");
        }
    }

    #[test]
    fn buffer_names() {
        let n = new_buffer_name("buf");
        assert!(is_own_buffer(&n), "{n}");
        assert!(n.starts_with("tmuxwire_") && n.ends_with("_buf"));
        assert_eq!(n.len(), "tmuxwire_".len() + 32 + 4);
        for bad in [
            "clipboard",
            "buffer0",
            "tmuxwire-0123456789abcdef",
            "tmuxwire_0123_buf",
            &format!("tmuxwire_{}_", "a".repeat(32)),
            &format!("tmuxwire_{}_a b", "a".repeat(32)),
            &format!("tmuxwire_{}_x", "A".repeat(32)),
        ] {
            assert!(!is_own_buffer(bad), "{bad}");
        }
        assert!(is_logical_name("a.b-c_1"));
        assert!(!is_logical_name(&"a".repeat(65)));
        assert!(!is_logical_name("a/b"));
    }

    proptest::proptest! {
        /// Any bytes keep [`fuzz_segments`]'s properties, the paste's
        /// included.
        #[test]
        fn any_bytes_keep_the_fuzz_property(
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
        ) {
            fuzz_segments(&data);
        }
    }

    #[test]
    fn fuzz_property_holds() {
        for s in [
            "",
            "plain",
            "a\u{0}b",
            "日本語\n;-- '\"$X #{pane_id} #(id)",
            &"é;".repeat(3000),
            &"x".repeat(MAX_TEXT_BYTES + 7),
        ] {
            fuzz_segments(s.as_bytes());
        }
        fuzz_segments(&[0xff, 0x41, 0xc3]);
    }
}
