//! tmux's escape-sequence parser (input.c), byte for byte. Pure.
//!
//! tmux parses pane output with its own state machine (input.c, after Paul
//! Williams' DEC ANSI parser, with tmux's changes), and what a byte does
//! depends on details no general-purpose parser shares: `ESC k … ST` sets
//! the window name and prints nothing; inside a DCS an `ESC` that is not
//! followed by `\` is data (so `tmux;` passthrough survives); CAN and SUB do
//! not end a DCS; a parameter string longer than 63 bytes, more than 23
//! parameters, a number above `INT_MAX` or a `:` in a parameter make the
//! sequence do nothing; UTF-8 is decoded only in the ground state and a
//! character split by an escape sequence is still completed afterwards.
//! The `vte` crate differs on each of these, so this module follows
//! input.c's transition tables instead (`input_state_*_table`).
//!
//! The parser only recognises; a [`Handler`] acts. Runs of printable ASCII
//! in the ground state are handed over as one slice.

/// What the parser found; see input.c for the tmux function each
/// corresponds to.
pub(crate) trait Handler {
    /// Printable ASCII (`0x20..=0x7e`) in the ground state, one
    /// `input_print()` per byte.
    fn print_ascii(&mut self, run: &[u8]);
    /// A byte `≥ 0x80` started a UTF-8 sequence (`input_top_bit_set()`
    /// clears `INPUT_LAST`).
    fn utf8_start(&mut self);
    /// A complete UTF-8 sequence of the length its first byte announced.
    /// `bad` is set when a byte after the first was not a continuation
    /// byte (`utf8_append()` then fails).
    fn print_utf8(&mut self, data: &[u8], bad: bool);
    /// A run of complete UTF-8 sequences of two to four bytes, each with
    /// continuation bytes where its first byte announced them, in the
    /// ground state: for each, [`Handler::utf8_start`] then
    /// [`Handler::print_utf8`] (what the default does; an implementation
    /// may batch).
    fn print_utf8_run(&mut self, run: &[u8]) {
        let mut i = 0;
        while let Some(&b) = run.get(i) {
            let n = utf8_len(b).max(1);
            self.utf8_start();
            self.print_utf8(run.get(i..i + n).unwrap_or(&run[i..]), false);
            i += n;
        }
    }
    /// A UTF-8 sequence ended unfinished or could not start
    /// (`input_stop_utf8()` with `utf8started`).
    fn invalid_utf8(&mut self);
    /// A C0 control (`input_c0_dispatch()`), including CAN and SUB.
    fn execute(&mut self, b: u8);
    /// `ESC` + intermediates + final (`input_esc_dispatch()`).
    fn esc_dispatch(&mut self, interm: &[u8], ch: u8, discard: bool);
    /// `CSI` (`input_csi_dispatch()`): the raw parameter bytes (digits,
    /// `;`, `:`), the intermediates (including private markers such as
    /// `?`) and the final byte.
    fn csi_dispatch(&mut self, params: &[u8], interm: &[u8], ch: u8, discard: bool);
    /// An OSC string ended (`input_exit_osc()`); `data` is its first
    /// [`OSC_KEEP`] bytes.
    fn osc_dispatch(&mut self, data: &[u8], discard: bool);
    /// A DCS, OSC, APC, `ESC k` or SOS/PM string began: `INPUT_LAST` is
    /// cleared (`input_enter_dcs()` and friends).
    fn string_start(&mut self);
}

/// OSC bytes kept for [`Handler::osc_dispatch`] (tmux keeps up to 1 MiB
/// and marks longer strings as discarded; only the start of an OSC 8
/// hyperlink matters for text here, and a longer string is flagged).
pub(crate) const OSC_KEEP: usize = 4096;

/// tmux's limit on a string sequence (input.c `input_input()`, 1 MiB):
/// longer strings are discarded.
const STRING_LIMIT: usize = (1 << 20) - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Ground,
    EscEnter,
    EscIntermediate,
    CsiEnter,
    CsiParameter,
    CsiIntermediate,
    CsiIgnore,
    DcsEnter,
    DcsParameter,
    DcsIntermediate,
    DcsHandler,
    DcsEscape,
    DcsIgnore,
    OscString,
    ApcString,
    RenameString,
    ConsumeSt,
}

/// The parser's state between calls.
#[derive(Clone, Debug)]
pub(crate) struct Parser {
    pub(crate) state: State,
    interm: [u8; 4],
    interm_len: usize,
    params: [u8; 64],
    params_len: usize,
    discard: bool,
    string: Vec<u8>,
    string_len: usize,
    utf8: [u8; 4],
    utf8_size: usize,
    utf8_have: usize,
    utf8_bad: bool,
    utf8_started: bool,
}

impl Default for Parser {
    fn default() -> Parser {
        Parser {
            state: State::Ground,
            interm: [0; 4],
            interm_len: 0,
            params: [0; 64],
            params_len: 0,
            discard: false,
            string: Vec::new(),
            string_len: 0,
            utf8: [0; 4],
            utf8_size: 0,
            utf8_have: 0,
            utf8_bad: false,
            utf8_started: false,
        }
    }
}

/// The length of the leading run of printable ASCII (`0x20..=0x7e`),
/// eight bytes at a time.
fn printable_prefix(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut w = [0; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let x = u64::from_le_bytes(w);
        // A byte below 0x20, or 0x7f and above, sets its high bit here.
        // Borrows and carries only run upwards, so the lowest flagged byte
        // is the first such byte.
        let low = x.wrapping_sub(LO * 0x20) & !x;
        let high = x.wrapping_add(LO) | x;
        let flagged = (low | high) & HI;
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..]
        .iter()
        .position(|&c| !(0x20..0x7f).contains(&c))
        .unwrap_or(b.len() - i)
}

/// The length of the UTF-8 sequence byte `b` starts (2 to 4), or 0 for
/// a byte that starts none (ASCII, a continuation byte, `0xc0`, `0xc1`,
/// `0xf5..`).
fn utf8_len(b: u8) -> usize {
    match b {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    }
}

/// The length of the leading run of complete UTF-8 sequences (a first
/// byte and the continuation bytes it announces; what the sequences
/// decode to is checked later).
fn utf8_prefix(b: &[u8]) -> usize {
    let mut i = 0;
    while let Some(&lead) = b.get(i) {
        let n = utf8_len(lead);
        match b.get(i + 1..i + n) {
            Some(rest) if n > 0 && rest.iter().all(|&c| c & 0xc0 == 0x80) => i += n,
            _ => break,
        }
    }
    i
}

fn is_c0(b: u8) -> bool {
    matches!(b, 0x00..=0x17 | 0x19 | 0x1c..=0x1f)
}

impl Parser {
    /// Whether a UTF-8 character is half read.
    pub(crate) fn in_utf8(&self) -> bool {
        self.utf8_started
    }

    /// Back to the ground state with nothing collected (tmux's
    /// `input_reset()` when its 5-second wait for a string terminator
    /// expires). The UTF-8 state is kept, as tmux keeps it.
    pub(crate) fn reset(&mut self) {
        self.clear();
        self.state = State::Ground;
    }

    /// `input_clear()`.
    fn clear(&mut self) {
        self.interm_len = 0;
        self.params_len = 0;
        self.string.clear();
        self.string_len = 0;
        self.discard = false;
    }

    fn intermediate(&mut self, b: u8) {
        if self.interm_len == self.interm.len() - 1 {
            self.discard = true;
        } else {
            self.interm[self.interm_len] = b;
            self.interm_len += 1;
        }
    }

    fn parameter(&mut self, b: u8) {
        if self.params_len == self.params.len() - 1 {
            self.discard = true;
        } else {
            self.params[self.params_len] = b;
            self.params_len += 1;
        }
    }

    fn input(&mut self, b: u8) {
        if self.string_len >= STRING_LIMIT {
            self.discard = true;
            return;
        }
        self.string_len += 1;
        if self.string.len() < OSC_KEEP {
            self.string.push(b);
        }
    }

    fn stop_utf8<H: Handler>(&mut self, h: &mut H) {
        if self.utf8_started {
            self.utf8_started = false;
            h.invalid_utf8();
        }
    }

    /// Leaves the current state (its exit action) and enters `to` (its
    /// entry action), as `input_set_state()`.
    fn set_state<H: Handler>(&mut self, h: &mut H, to: State) {
        if self.state == State::OscString {
            let n = self.string.len();
            h.osc_dispatch(&self.string[..n], self.discard);
        }
        self.state = to;
        match to {
            State::EscEnter | State::CsiEnter => self.clear(),
            State::DcsEnter
            | State::OscString
            | State::ApcString
            | State::RenameString
            | State::ConsumeSt => {
                self.clear();
                h.string_start();
            }
            _ => {}
        }
    }

    /// Feeds bytes.
    pub(crate) fn advance<H: Handler>(&mut self, h: &mut H, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.state == State::Ground {
                // Fast path: a run of printable ASCII.
                let end = i + printable_prefix(&bytes[i..]);
                if end > i {
                    self.stop_utf8(h);
                    h.print_ascii(&bytes[i..end]);
                    i = end;
                    continue;
                }
            }
            if self.state == State::Ground && !self.utf8_started && bytes[i] >= 0xc2 {
                // Fast path: whole, well-formed UTF-8 sequences.
                let end = i + utf8_prefix(&bytes[i..]);
                if end > i {
                    h.print_utf8_run(&bytes[i..end]);
                    i = end;
                    continue;
                }
            }
            if self.state == State::Ground && is_c0(bytes[i]) {
                // Fast path: a C0 control (CR, LF, BS, TAB, …).
                self.stop_utf8(h);
                h.execute(bytes[i]);
                i += 1;
                continue;
            }
            if self.state == State::Ground
                && !self.utf8_started
                && bytes[i] == 0x1b
                && bytes.get(i + 1) == Some(&b'[')
            {
                // Fast path: a whole CSI sequence of parameters and a
                // final byte (`ESC [ 1 ; 31 m`), short enough that no
                // parameter byte is discarded.
                let start = i + 2;
                let n = bytes[start..]
                    .iter()
                    .take_while(|b| (0x30..=0x3b).contains(*b))
                    .count();
                if n < self.params.len() - 1
                    && let Some(&fin) = bytes.get(start + n)
                    && (0x40..=0x7e).contains(&fin)
                {
                    self.clear();
                    h.csi_dispatch(&bytes[start..start + n], &[], fin, false);
                    i = start + n + 1;
                    continue;
                }
            }
            if matches!(self.state, State::CsiEnter | State::CsiParameter) {
                // Fast path: parameter bytes (digits, `;`, `:`).
                let n = bytes[i..]
                    .iter()
                    .take_while(|b| (0x30..=0x3b).contains(*b))
                    .count();
                if n > 0 {
                    for &b in &bytes[i..i + n] {
                        self.parameter(b);
                    }
                    self.state = State::CsiParameter;
                    i += n;
                    continue;
                }
            }
            self.byte(h, bytes[i]);
            i += 1;
        }
    }

    fn byte<H: Handler>(&mut self, h: &mut H, b: u8) {
        // The transitions valid in every state but the DCS handler ones.
        if !matches!(self.state, State::DcsHandler | State::DcsEscape) {
            match b {
                0x18 | 0x1a => {
                    self.stop_utf8(h);
                    h.execute(b);
                    self.set_state(h, State::Ground);
                    return;
                }
                0x1b => {
                    self.set_state(h, State::EscEnter);
                    return;
                }
                _ => {}
            }
        }
        match self.state {
            State::Ground => match b {
                _ if is_c0(b) => {
                    self.stop_utf8(h);
                    h.execute(b);
                }
                0x20..=0x7e => {
                    self.stop_utf8(h);
                    h.print_ascii(&[b]);
                }
                0x7f => {}
                _ => self.top_bit(h, b),
            },
            State::EscEnter => match b {
                _ if is_c0(b) => self.c0(h, b),
                0x20..=0x2f => {
                    self.intermediate(b);
                    self.set_state(h, State::EscIntermediate);
                }
                0x50 => self.set_state(h, State::DcsEnter),
                0x58 | 0x5e => self.set_state(h, State::ConsumeSt),
                0x5b => self.set_state(h, State::CsiEnter),
                0x5d => self.set_state(h, State::OscString),
                0x5f => self.set_state(h, State::ApcString),
                0x6b => self.set_state(h, State::RenameString),
                0x30..=0x7e => {
                    self.esc(h, b);
                    self.set_state(h, State::Ground);
                }
                _ => {}
            },
            State::EscIntermediate => match b {
                _ if is_c0(b) => self.c0(h, b),
                0x20..=0x2f => self.intermediate(b),
                0x30..=0x7e => {
                    self.esc(h, b);
                    self.set_state(h, State::Ground);
                }
                _ => {}
            },
            State::CsiEnter => match b {
                _ if is_c0(b) => self.c0(h, b),
                0x20..=0x2f => {
                    self.intermediate(b);
                    self.set_state(h, State::CsiIntermediate);
                }
                0x30..=0x3b => {
                    self.parameter(b);
                    self.set_state(h, State::CsiParameter);
                }
                0x3c..=0x3f => {
                    self.intermediate(b);
                    self.set_state(h, State::CsiParameter);
                }
                0x40..=0x7e => {
                    self.csi(h, b);
                    self.set_state(h, State::Ground);
                }
                _ => {}
            },
            State::CsiParameter => match b {
                _ if is_c0(b) => self.c0(h, b),
                0x20..=0x2f => {
                    self.intermediate(b);
                    self.set_state(h, State::CsiIntermediate);
                }
                0x30..=0x3b => self.parameter(b),
                0x3c..=0x3f => self.set_state(h, State::CsiIgnore),
                0x40..=0x7e => {
                    self.csi(h, b);
                    self.set_state(h, State::Ground);
                }
                _ => {}
            },
            State::CsiIntermediate => match b {
                _ if is_c0(b) => self.c0(h, b),
                0x20..=0x2f => self.intermediate(b),
                0x30..=0x3f => self.set_state(h, State::CsiIgnore),
                0x40..=0x7e => {
                    self.csi(h, b);
                    self.set_state(h, State::Ground);
                }
                _ => {}
            },
            State::CsiIgnore => match b {
                _ if is_c0(b) => self.c0(h, b),
                0x40..=0x7e => self.set_state(h, State::Ground),
                _ => {}
            },
            State::DcsEnter => match b {
                0x20..=0x2f => {
                    self.intermediate(b);
                    self.set_state(h, State::DcsIntermediate);
                }
                0x30..=0x39 | 0x3b => {
                    self.parameter(b);
                    self.set_state(h, State::DcsParameter);
                }
                0x3a => self.set_state(h, State::DcsIgnore),
                0x3c..=0x3f => {
                    self.intermediate(b);
                    self.set_state(h, State::DcsParameter);
                }
                0x40..=0x7e => {
                    self.input(b);
                    self.set_state(h, State::DcsHandler);
                }
                _ => {}
            },
            State::DcsParameter => match b {
                0x20..=0x2f => {
                    self.intermediate(b);
                    self.set_state(h, State::DcsIntermediate);
                }
                0x30..=0x39 | 0x3b => self.parameter(b),
                0x3a | 0x3c..=0x3f => self.set_state(h, State::DcsIgnore),
                0x40..=0x7e => {
                    self.input(b);
                    self.set_state(h, State::DcsHandler);
                }
                _ => {}
            },
            State::DcsIntermediate => match b {
                0x20..=0x2f => self.intermediate(b),
                0x30..=0x3f => self.set_state(h, State::DcsIgnore),
                0x40..=0x7e => {
                    self.input(b);
                    self.set_state(h, State::DcsHandler);
                }
                _ => {}
            },
            State::DcsHandler => {
                if b == 0x1b {
                    self.set_state(h, State::DcsEscape);
                } else {
                    self.input(b);
                }
            }
            State::DcsEscape => {
                if b == b'\\' {
                    // input_dcs_dispatch(): passthrough and SIXEL only; no
                    // text (SIXEL images are not modelled, see Term).
                    self.set_state(h, State::Ground);
                } else {
                    self.input(b);
                    self.set_state(h, State::DcsHandler);
                }
            }
            State::DcsIgnore => {}
            State::OscString => match b {
                0x07 => self.set_state(h, State::Ground),
                0x20..=0xff => self.input(b),
                _ => {}
            },
            State::ApcString | State::RenameString => {
                if b >= 0x20 {
                    self.input(b);
                }
            }
            State::ConsumeSt => {}
        }
    }

    fn c0<H: Handler>(&mut self, h: &mut H, b: u8) {
        self.stop_utf8(h);
        h.execute(b);
    }

    fn esc<H: Handler>(&mut self, h: &mut H, b: u8) {
        h.esc_dispatch(&self.interm[..self.interm_len], b, self.discard);
    }

    fn csi<H: Handler>(&mut self, h: &mut H, b: u8) {
        h.csi_dispatch(
            &self.params[..self.params_len],
            &self.interm[..self.interm_len],
            b,
            self.discard,
        );
    }

    /// `input_top_bit_set()`.
    fn top_bit<H: Handler>(&mut self, h: &mut H, b: u8) {
        if !self.utf8_started {
            h.utf8_start();
            let size = match b {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => {
                    // utf8_open() fails: tmux ≥ 3.6 writes U+FFFD, older
                    // versions drop the byte.
                    h.invalid_utf8();
                    return;
                }
            };
            self.utf8_started = true;
            self.utf8[0] = b;
            self.utf8_size = size;
            self.utf8_have = 1;
            self.utf8_bad = false;
            return;
        }
        if b & 0xc0 != 0x80 {
            self.utf8_bad = true;
        }
        self.utf8[self.utf8_have] = b;
        self.utf8_have += 1;
        if self.utf8_have < self.utf8_size {
            return;
        }
        self.utf8_started = false;
        let n = self.utf8_size;
        let data = self.utf8;
        h.print_utf8(&data[..n], self.utf8_bad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>);

    impl Handler for Log {
        fn print_ascii(&mut self, run: &[u8]) {
            self.0.push(format!("p{}", String::from_utf8_lossy(run)));
        }
        fn utf8_start(&mut self) {}
        fn print_utf8(&mut self, data: &[u8], bad: bool) {
            self.0.push(format!(
                "u{}{}",
                String::from_utf8_lossy(data),
                if bad { "!" } else { "" }
            ));
        }
        fn invalid_utf8(&mut self) {
            self.0.push("bad".into());
        }
        fn execute(&mut self, b: u8) {
            self.0.push(format!("x{b:02x}"));
        }
        fn esc_dispatch(&mut self, interm: &[u8], ch: u8, discard: bool) {
            self.0.push(format!(
                "e{}{}{}",
                String::from_utf8_lossy(interm),
                ch as char,
                if discard { "!" } else { "" }
            ));
        }
        fn csi_dispatch(&mut self, params: &[u8], interm: &[u8], ch: u8, discard: bool) {
            self.0.push(format!(
                "c{}|{}{}{}",
                String::from_utf8_lossy(params),
                String::from_utf8_lossy(interm),
                ch as char,
                if discard { "!" } else { "" }
            ));
        }
        fn osc_dispatch(&mut self, data: &[u8], _discard: bool) {
            self.0.push(format!("o{}", String::from_utf8_lossy(data)));
        }
        fn string_start(&mut self) {
            self.0.push("s".into());
        }
    }

    fn parse(bytes: &[u8]) -> Vec<String> {
        let mut p = Parser::default();
        let mut log = Log::default();
        p.advance(&mut log, bytes);
        log.0
    }

    #[test]
    fn sequences() {
        assert_eq!(parse(b"ab\x1b[1;2Hc"), ["pab", "c1;2|H", "pc"]);
        assert_eq!(parse(b"\x1b[?25l"), ["c25|?l"]);
        assert_eq!(parse(b"\x1b(0q"), ["e(0", "pq"]);
        assert_eq!(parse(b"\x1b]2;title\x07x"), ["s", "o2;title", "px"]);
        assert_eq!(parse(b"\x1b]2;t\x1b\\x"), ["s", "o2;t", "e\\", "px"]);
        // ESC k ... ST prints nothing.
        assert_eq!(parse(b"\x1bkname\x1b\\x"), ["s", "e\\", "px"]);
        // ESC inside a DCS that is not ST is data; CAN does not end it.
        assert_eq!(parse(b"\x1bPtmux;\x1b\x1b[1m\x18x\x1b\\y"), ["s", "py"]);
        // C0 inside a CSI is executed.
        assert_eq!(parse(b"\x1b[1\n2A"), ["x0a", "c12|A"]);
        // Too many parameter bytes discard the sequence.
        let long = format!("\x1b[{}A", "1".repeat(70));
        assert_eq!(parse(long.as_bytes()), [format!("c{}|A!", "1".repeat(63))]);
        // CAN aborts a CSI.
        assert_eq!(parse(b"\x1b[1\x18A"), ["x18", "pA"]);
    }

    #[test]
    fn printable_runs() {
        for n in 0..40 {
            for bad in [0x00u8, 0x1f, 0x7f, 0x80, 0xff, 0x1b] {
                let mut v = vec![b'a'; n];
                v.push(bad);
                v.extend_from_slice(b"zzzzzzzzzz");
                assert_eq!(printable_prefix(&v), n, "{n} {bad:#x}");
            }
            assert_eq!(printable_prefix(&vec![b'~'; n]), n);
        }
    }

    #[test]
    fn utf8() {
        assert_eq!(parse("中".as_bytes()), ["u中"]);
        // Split by an escape sequence: still completed.
        assert_eq!(parse(b"\xe4\x1b[m\xb8\xad"), ["c|m", "u中"]);
        // Interrupted by a printable byte or a C0 control.
        assert_eq!(parse(b"\xe4a"), ["bad", "pa"]);
        assert_eq!(parse(b"\xe4\n"), ["bad", "x0a"]);
        // A lone continuation byte.
        assert_eq!(parse(b"\x80"), ["bad"]);
        // A new lead byte inside a sequence makes it bad.
        assert_eq!(parse(b"\xe4\xe4\xad"), ["u\u{fffd}\u{fffd}!"]);
    }
}
