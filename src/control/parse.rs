//! The control-mode stream parser. Pure: bytes in, events out.
//!
//! # Format
//!
//! tmux writes `\n`-terminated lines (no tty, so no `\r`). A command's
//! answer is a block:
//!
//! ```text
//! %begin <time> <number> <flags>
//! <output lines: raw bytes, anything at all, even "%end 1 2 1">
//! %end <time> <number> <flags>        (or %error … on failure)
//! ```
//!
//! `number` is a server-global counter and the closing guard repeats the
//! opening one exactly (cmd-queue.c: `cmdq_guard()`), so a block ends only
//! at a guard whose fields equal its `%begin`'s — never at a line that
//! merely starts with `%end`. Old servers printed two fields instead of
//! three (tmux issue #2646); both are accepted. Lines outside blocks that
//! start with `%` are notifications; other lines outside blocks are "stray"
//! (on tmux master, `run-shell` output arrives that way).
//!
//! Lines are split on `\n` only and handled as bytes; nothing here assumes
//! UTF-8. A line cut off by the end of the stream is dropped (see
//! [`Parser::finish`]), so a truncated `%output` never reaches a pane.

use memchr::memchr;

use super::notify::Notification;

/// A command's answer: the lines between `%begin` and `%end`/`%error`.
#[derive(Clone, PartialEq, Eq)]
pub struct Block {
    /// `time(NULL)` on the server when the command ran.
    pub time: i64,
    /// The server-global command number.
    pub number: u64,
    /// 1 when the command came from this client's control input; 0 for
    /// other origins (such as the attach command sent at connect).
    pub flags: u32,
    /// True for `%end`, false for `%error`.
    pub ok: bool,
    /// The output lines, each followed by `\n`. Empty for no output.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("number", &self.number)
            .field("flags", &self.flags)
            .field("ok", &self.ok)
            .field(
                "body",
                &String::from_utf8_lossy(&self.body[..self.body.len().min(200)]),
            )
            .finish()
    }
}

impl Block {
    /// The output lines, without their `\n`.
    pub fn lines(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let body = self.body.strip_suffix(b"\n").unwrap_or(&self.body);
        let empty = body.is_empty() && self.body.is_empty();
        body.split(|&b| b == b'\n').filter(move |_| !empty)
    }

    /// Number of output lines.
    pub fn line_count(&self) -> usize {
        memchr::memchr_iter(b'\n', &self.body).count()
    }

    /// The body as text (invalid UTF-8 replaced), without the final `\n`.
    pub fn text(&self) -> String {
        let body = self.body.strip_suffix(b"\n").unwrap_or(&self.body);
        String::from_utf8_lossy(body).into_owned()
    }
}

/// One thing the parser recognised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A complete command answer.
    Block(Block),
    /// A `%`-line outside any block.
    Notification(Notification),
    /// A line outside any block that does not start with `%`.
    Stray(Vec<u8>),
    /// The stream broke a rule only a forgery or a desynchronised
    /// connection can break (a guard line outside any block, a block
    /// number that does not increase, a length-framed body not followed by
    /// its guard). The parser ignores everything after this: the
    /// connection must be closed.
    Violation(String),
}

/// How the body of a block ends. Chosen by the caller when the block
/// opens (see [`Parser::feed_framed`]), because only the caller knows
/// which command the block answers and whether its output can hold text
/// that programs in panes control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The block ends at the first `%end`/`%error` line equal to its guard.
    /// Only for output that nothing outside tmuxwire and tmux can choose.
    Guard,
    /// The body is a list of records that start with `start` and end with
    /// `end` (per-query nonces; see [`super::format`]). A guard line ends
    /// the block only where a record ended (or before any record
    /// started), so a guard-like line inside a value is content.
    Records {
        /// What every record starts with.
        start: Vec<u8>,
        /// What every record ends with (just before its `\n`).
        end: Vec<u8>,
    },
    /// The body is exactly `len` bytes of data (a paste buffer's size),
    /// written in `encoding`, then one `\n`; the guard line must follow
    /// at once. Nothing inside the data is looked at.
    Length {
        /// The data's size in bytes, after decoding.
        len: usize,
        /// How tmux wrote the data.
        encoding: Encoding,
        /// The line a later command of the same command line prints
        /// (a random text no pane can know), when there is one: raw data
        /// followed by more than its `\n` is then tmux reading past the
        /// buffer ([`Event::Block`] keeps exactly `len` bytes and everything
        /// up to this line is skipped) instead of a violation.
        ///
        /// tmux ≥ 3.4 prints a buffer to a control client with `%s` after
        /// appending a NUL to its evbuffer (server-client.c
        /// `server_client_print()`); when the data fills the evbuffer's
        /// first chain, the NUL goes into a second one and `%s` reads on
        /// into the heap until it meets a zero byte (a 2,000-byte buffer
        /// with 64-bit libevent 2.1). What it reads there can hold pane
        /// text, guard lookalikes included: only the canary, which tmux
        /// prints after it, says where tmux's own output resumes.
        canary: Option<Vec<u8>>,
    },
}

/// How tmux writes the bytes of a [`Frame::Length`] body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Exactly the data (tmux ≥ 3.5 `show-buffer`).
    Raw,
    /// Escaped with vis(3), line feeds raw (tmux ≤ 3.4 `show-buffer`);
    /// decoded with [`super::escape::unescape`].
    Vis,
}

/// The fields of a `%begin` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockStart {
    /// `time(NULL)` when the command ran.
    pub time: i64,
    /// The server-global command number.
    pub number: u64,
    /// 1 for commands from this client's control input.
    pub flags: u32,
}

/// Where an open block is.
#[derive(Debug, PartialEq, Eq)]
enum Phase {
    /// Lines up to a guard ([`Frame::Guard`], [`Frame::Records`]).
    Lines,
    /// `remaining` more raw data bytes ([`Encoding::Raw`]).
    RawData { remaining: usize },
    /// Escaped data lines; `remaining` decoded bytes to go
    /// ([`Encoding::Vis`]).
    VisData { remaining: usize },
    /// The `\n` after raw data.
    Newline,
    /// Bytes tmux read past the data: skipped up to the canary line
    /// ([`Frame::Length`]'s `canary`).
    Overrun,
    /// The guard line, and nothing else.
    Guard,
}

/// The state of an open block.
#[derive(Debug)]
struct Open {
    /// The guard fields exactly as `%begin` printed them ("T N F").
    guard: Vec<u8>,
    /// A block whose `%begin` was skipped with an overrun (the canary's):
    /// any guard with its flags and a later number ends it. Only tmux's
    /// own output follows the canary, so nothing forged can end it.
    loose: bool,
    start: BlockStart,
    frame: Frame,
    phase: Phase,
    body: Vec<u8>,
}

impl Open {
    /// If `line` is this block's `%end`/`%error` guard, whether it is
    /// `%end` (true) or `%error` (false).
    fn closes(&self, line: &[u8]) -> Option<bool> {
        if !self.loose {
            return closes(line, &self.guard);
        }
        let (ok, rest) = match (line.strip_prefix(b"%end "), line.strip_prefix(b"%error ")) {
            (Some(rest), _) => (true, rest),
            (_, Some(rest)) => (false, rest),
            _ => return None,
        };
        let g = parse_guard(rest)?;
        let number = g.number == self.start.number || number_follows(self.start.number, g.number);
        (g.flags == self.start.flags && number).then_some(ok)
    }

    /// Whether a guard line that matches (`%end` when `ok`) really ends
    /// the block here.
    fn accepts(&self, ok: bool) -> bool {
        match &self.frame {
            Frame::Records { start, end } => {
                let ended_record = self
                    .body
                    .strip_suffix(b"\n")
                    .is_some_and(|b| b.ends_with(end));
                self.body.is_empty()
                    || ended_record
                    || (!ok && memchr::memmem::find(&self.body, start).is_none())
            }
            _ => true,
        }
    }
}

/// What [`Parser::feed_framed`] reports to, and asks.
pub trait Handler {
    /// How the body of the block that `start` opens ends.
    fn frame(&mut self, start: &BlockStart) -> Frame;
    /// One complete event, in stream order.
    fn event(&mut self, e: Event);
}

/// Incremental control-stream parser.
///
/// Feed it bytes as they arrive, in any chunking; it calls the sink once
/// per [`Event`] in stream order.
#[derive(Debug, Default)]
pub struct Parser {
    partial: Vec<u8>,
    open: Option<Open>,
    /// The number of the last block, which the next must exceed.
    last_number: Option<u64>,
    /// Set after a [`Event::Violation`]: everything else is ignored.
    poisoned: bool,
}

/// Parses `"<time> <number>[ <flags>]"`.
fn parse_guard(rest: &[u8]) -> Option<BlockStart> {
    let s = std::str::from_utf8(rest).ok()?;
    let mut it = s.split(' ');
    let time = it.next()?.parse().ok()?;
    let number = it.next()?.parse().ok()?;
    let flags = match it.next() {
        Some(f) => f.parse().ok()?,
        None => 0,
    };
    if it.next().is_some() {
        return None;
    }
    Some(BlockStart {
        time,
        number,
        flags,
    })
}

/// True when `next` may follow `last` as a command number: tmux counts
/// with a 32-bit `u_int` that only grows (cmd-queue.c: `cmdq_next()`),
/// and wraps.
fn number_follows(last: u64, next: u64) -> bool {
    const HALF: u64 = 1 << 31;
    next > last || last - next > HALF
}

impl Parser {
    /// A parser at the start of a stream.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// True while inside a `%begin` … `%end` block.
    pub fn in_block(&self) -> bool {
        self.open.is_some()
    }

    /// True after a [`Event::Violation`].
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// Consumes `data`, calling `sink` for each complete event; every block
    /// is framed by its guard ([`Frame::Guard`]).
    pub fn feed(&mut self, data: &[u8], sink: &mut impl FnMut(Event)) {
        struct Guards<'a, F>(&'a mut F);
        impl<F: FnMut(Event)> Handler for Guards<'_, F> {
            fn frame(&mut self, _: &BlockStart) -> Frame {
                Frame::Guard
            }
            fn event(&mut self, e: Event) {
                (self.0)(e)
            }
        }
        self.feed_framed(data, &mut Guards(sink));
    }

    /// Consumes `data`, asking `h` how each block's body ends when the
    /// block opens, and handing it each complete event. The answer for a
    /// block may depend on the events before it: they have all been
    /// handed over by then.
    pub fn feed_framed(&mut self, mut data: &[u8], h: &mut impl Handler) {
        loop {
            if self.poisoned {
                return;
            }
            // Raw data: bytes, not lines.
            if let Some(open) = &mut self.open {
                match open.phase {
                    Phase::RawData { remaining } => {
                        let n = remaining.min(data.len());
                        open.body.extend_from_slice(&data[..n]);
                        data = &data[n..];
                        open.phase = if n == remaining {
                            Phase::Newline
                        } else {
                            Phase::RawData {
                                remaining: remaining - n,
                            }
                        };
                        if data.is_empty() {
                            return;
                        }
                        continue;
                    }
                    Phase::Newline => {
                        let Some(&first) = data.first() else { return };
                        if first != b'\n' {
                            if matches!(
                                open.frame,
                                Frame::Length {
                                    canary: Some(_),
                                    ..
                                }
                            ) {
                                open.phase = Phase::Overrun;
                                continue;
                            }
                            self.violation("a buffer's text ran past its size", h);
                            return;
                        }
                        open.phase = Phase::Guard;
                        data = &data[1..];
                        continue;
                    }
                    _ => {}
                }
            }
            if data.is_empty() {
                return;
            }
            if !self.partial.is_empty() {
                match memchr(b'\n', data) {
                    None => {
                        self.partial.extend_from_slice(data);
                        return;
                    }
                    Some(i) => {
                        self.partial.extend_from_slice(&data[..i]);
                        data = &data[i + 1..];
                        let line = std::mem::take(&mut self.partial);
                        self.line(&line, h);
                        continue;
                    }
                }
            }
            if let Some(open) = &mut self.open
                && open.phase == Phase::Lines
                && !open.loose
            {
                // Inside a block: copy body lines in bulk, look only at
                // lines that start with '%'.
                let mut pos = 0;
                loop {
                    let Some(i) = memchr(b'\n', &data[pos..]) else {
                        open.body.extend_from_slice(&data[..pos]);
                        self.partial.extend_from_slice(&data[pos..]);
                        return;
                    };
                    let line = &data[pos..pos + i];
                    if line.first() == Some(&b'%')
                        && let Some(ok) = open.closes(line)
                    {
                        open.body.extend_from_slice(&data[..pos]);
                        if open.accepts(ok) {
                            data = &data[pos + i + 1..];
                            self.close(ok, h);
                            break;
                        }
                        open.body.extend_from_slice(line);
                        open.body.push(b'\n');
                        data = &data[pos + i + 1..];
                        pos = 0;
                        continue;
                    }
                    pos += i + 1;
                    if pos == data.len() {
                        open.body.extend_from_slice(data);
                        return;
                    }
                }
                continue;
            }
            let Some(i) = memchr(b'\n', data) else {
                self.partial.extend_from_slice(data);
                return;
            };
            let (line, rest) = (&data[..i], &data[i + 1..]);
            self.line(line, h);
            data = rest;
        }
    }

    /// Ends the stream. A partial last line is dropped. Returns true if a
    /// block was still open (its answer was cut off).
    pub fn finish(&mut self) -> bool {
        self.partial.clear();
        self.open.take().is_some()
    }

    fn violation(&mut self, why: &str, h: &mut impl Handler) {
        self.poisoned = true;
        self.open = None;
        self.partial.clear();
        h.event(Event::Violation(why.to_string()));
    }

    fn line(&mut self, line: &[u8], h: &mut impl Handler) {
        let Some(open) = &mut self.open else {
            self.outside(line, h);
            return;
        };
        match open.phase {
            Phase::Lines => {
                if line.first() == Some(&b'%')
                    && let Some(ok) = open.closes(line)
                    && open.accepts(ok)
                {
                    self.close(ok, h);
                    return;
                }
                if open.loose {
                    // The canary's block holds the canary and nothing else.
                    self.violation("the canary after a buffer was not followed by its guard", h);
                    return;
                }
                open.body.extend_from_slice(line);
                open.body.push(b'\n');
            }
            Phase::VisData { remaining } => {
                let n = super::escape::unescaped_len(line);
                if n > remaining {
                    self.violation("a buffer's text ran past its size", h);
                    return;
                }
                super::escape::unescape_into(line, &mut open.body);
                if n == remaining {
                    // This line's `\n` is the one tmux adds after the data.
                    open.phase = Phase::Guard;
                } else {
                    open.body.push(b'\n');
                    open.phase = Phase::VisData {
                        remaining: remaining - n - 1,
                    };
                }
            }
            Phase::Guard => match closes(line, &open.guard) {
                Some(ok) => self.close(ok, h),
                None => self.violation("a buffer's text was not followed by its guard", h),
            },
            Phase::Overrun => {
                if let Frame::Length {
                    canary: Some(canary),
                    ..
                } = &open.frame
                    && line == canary.as_slice()
                {
                    self.overran(line, h);
                }
            }
            // Handled byte-wise in `feed_framed`.
            Phase::RawData { .. } | Phase::Newline => {}
        }
    }

    /// Ends a block whose data tmux printed past ([`Phase::Overrun`]) at
    /// its canary `line`: the block keeps exactly its data, and the
    /// canary's own block, whose `%begin` was skipped with the rest, is
    /// open with the canary as its first line.
    fn overran(&mut self, line: &[u8], h: &mut impl Handler) {
        let Some(open) = self.open.take() else { return };
        let start = open.start;
        h.event(Event::Block(Block {
            time: start.time,
            number: start.number,
            flags: start.flags,
            ok: true,
            body: open.body,
        }));
        let mut body = line.to_vec();
        body.push(b'\n');
        self.open = Some(Open {
            guard: Vec::new(),
            loose: true,
            start: BlockStart {
                number: start.number.wrapping_add(1),
                ..start
            },
            frame: Frame::Guard,
            phase: Phase::Lines,
            body,
        });
    }

    fn outside(&mut self, line: &[u8], h: &mut impl Handler) {
        if let Some(rest) = line.strip_prefix(b"%begin ")
            && let Some(start) = parse_guard(rest)
        {
            if let Some(last) = self.last_number
                && !number_follows(last, start.number)
            {
                self.violation("a block's number did not increase", h);
                return;
            }
            self.last_number = Some(start.number);
            let frame = h.frame(&start);
            let phase = match frame {
                Frame::Guard | Frame::Records { .. } => Phase::Lines,
                Frame::Length {
                    len,
                    encoding: Encoding::Raw,
                    ..
                } => Phase::RawData { remaining: len },
                Frame::Length {
                    len,
                    encoding: Encoding::Vis,
                    ..
                } => Phase::VisData { remaining: len },
            };
            self.open = Some(Open {
                guard: rest.to_vec(),
                loose: false,
                start,
                frame,
                phase,
                body: Vec::new(),
            });
            return;
        }
        if line.starts_with(b"%end ") || line.starts_with(b"%error ") {
            // tmux prints guards only around output: one outside a block
            // means a block was cut short.
            self.violation("a block guard arrived outside any block", h);
            return;
        }
        if line.first() == Some(&b'%') {
            h.event(Event::Notification(Notification::parse(line)));
        } else {
            h.event(Event::Stray(line.to_vec()));
        }
    }

    fn close(&mut self, ok: bool, h: &mut impl Handler) {
        if let Some(open) = self.open.take() {
            h.event(Event::Block(Block {
                time: open.start.time,
                number: open.start.number,
                flags: open.start.flags,
                ok,
                body: open.body,
            }));
        }
    }
}

/// If `line` is the `%end`/`%error` guard matching `guard`, whether it is
/// `%end` (true) or `%error` (false).
fn closes(line: &[u8], guard: &[u8]) -> Option<bool> {
    if let Some(rest) = line.strip_prefix(b"%end ") {
        return (rest == guard).then_some(true);
    }
    if let Some(rest) = line.strip_prefix(b"%error ") {
        return (rest == guard).then_some(false);
    }
    None
}

/// Parses a whole stream at once (for tests, fuzzing and benches).
pub fn parse_all(data: &[u8]) -> Vec<Event> {
    let mut p = Parser::new();
    let mut out = Vec::new();
    p.feed(data, &mut |e| out.push(e));
    p.finish();
    out
}

/// Fuzz entry point: any bytes, in any chunking, give the same events and
/// never panic.
#[doc(hidden)]
pub fn fuzz_parse(data: &[u8]) {
    let whole = parse_all(data);
    let split = data.first().map(|b| usize::from(*b) % 7 + 1).unwrap_or(1);
    let mut p = Parser::new();
    let mut chunked = Vec::new();
    for chunk in data.chunks(split) {
        p.feed(chunk, &mut |e| chunked.push(e));
    }
    p.finish();
    assert_eq!(whole, chunked, "chunking changed the events");
    for e in &whole {
        if let Event::Block(b) = e {
            assert!(b.body.is_empty() || b.body.ends_with(b"\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::id::PaneId;

    fn blocks(events: &[Event]) -> Vec<&Block> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Block(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn simple_block() {
        let ev = parse_all(b"%begin 1 2 1\nhello\nworld\n%end 1 2 1\n");
        let b = blocks(&ev);
        assert_eq!(b.len(), 1);
        assert_eq!(
            (b[0].time, b[0].number, b[0].flags, b[0].ok),
            (1, 2, 1, true)
        );
        assert_eq!(b[0].body, b"hello\nworld\n");
        assert_eq!(
            b[0].lines().collect::<Vec<_>>(),
            vec![&b"hello"[..], b"world"]
        );
        assert_eq!(b[0].line_count(), 2);
    }

    #[test]
    fn empty_block_and_error_block() {
        let ev = parse_all(b"%begin 1 2 0\n%end 1 2 0\n%begin 1 3 1\nno such pane\n%error 1 3 1\n");
        let b = blocks(&ev);
        assert_eq!(b[0].body, b"");
        assert_eq!(b[0].lines().count(), 0);
        assert!(!b[1].ok);
        assert_eq!(b[1].text(), "no such pane");
    }

    #[test]
    fn empty_lines_inside_block_are_kept() {
        let ev = parse_all(b"%begin 5 6 1\n\n\nx\n\n%end 5 6 1\n");
        let b = blocks(&ev);
        assert_eq!(
            b[0].lines().collect::<Vec<_>>(),
            vec![&b""[..], b"", b"x", b""]
        );
    }

    #[test]
    fn guard_lookalikes_are_content() {
        // A pane that printed "%end 1 2 1" and "%begin 3 4 1" (the real
        // guard has other numbers).
        let s = b"%begin 1700000000 268 1\n%end 1 2 1\n%begin 3 4 1\n%error 1700000000 268 0\n\
                  %end 1700000000 268\n%end 1700000000 268 1\n";
        let ev = parse_all(s);
        let b = blocks(&ev);
        assert_eq!(b.len(), 1);
        assert_eq!(
            b[0].body,
            b"%end 1 2 1\n%begin 3 4 1\n%error 1700000000 268 0\n%end 1700000000 268\n"
        );
    }

    #[test]
    fn notifications_and_stray_lines() {
        let ev = parse_all(b"%session-changed $0 main\nstray text\n%output %1 hi\\015\\012\n");
        assert!(matches!(
            &ev[0],
            Event::Notification(Notification::SessionChanged { .. })
        ));
        assert_eq!(ev[1], Event::Stray(b"stray text".to_vec()));
        assert_eq!(
            ev[2],
            Event::Notification(Notification::Output {
                pane: PaneId(1),
                data: b"hi\r\n".to_vec()
            })
        );
    }

    #[test]
    fn notification_lookalikes_inside_blocks_are_content() {
        let ev = parse_all(b"%begin 1 2 1\n%pause %0\n%output %0 x\n%end 1 2 1\n");
        assert_eq!(ev.len(), 1);
        assert_eq!(blocks(&ev)[0].body, b"%pause %0\n%output %0 x\n");
    }

    #[test]
    fn every_chunking_gives_the_same_events() {
        let s: &[u8] =
            b"%begin 1 2 1\nab\n%end 1 2 1\n%output %3 x\\134y\nz\n%begin 1 3 1\n\n%error 1 3 1\n";
        let whole = parse_all(s);
        for size in 1..s.len() {
            let mut p = Parser::new();
            let mut got = Vec::new();
            for c in s.chunks(size) {
                p.feed(c, &mut |e| got.push(e));
            }
            assert_eq!(got, whole, "chunk size {size}");
        }
        // Split at every point into two pieces.
        for cut in 0..s.len() {
            let mut p = Parser::new();
            let mut got = Vec::new();
            p.feed(&s[..cut], &mut |e| got.push(e));
            p.feed(&s[cut..], &mut |e| got.push(e));
            assert_eq!(got, whole, "cut at {cut}");
        }
    }

    #[test]
    fn truncated_stream_drops_partial_line() {
        // C5: heavy output cut at detach time, mid-escape.
        let mut p = Parser::new();
        let mut got = Vec::new();
        p.feed(b"%output %0 yyyy\\01", &mut |e| got.push(e));
        assert!(!p.finish());
        assert!(got.is_empty());
        let mut p = Parser::new();
        p.feed(b"%begin 1 2 1\nabc\n", &mut |e| got.push(e));
        assert!(p.finish(), "an open block is reported");
    }

    #[test]
    fn block_bodies() {
        for (stream, body) in [
            // Guards of two fields.
            (&b"%begin 1 9\nx\n%end 1 9\n"[..], &b"x\n"[..]),
            // Raw bytes pass through.
            (
                b"%begin 1 2 1\nCAF\xe9 LATTE\r\n%end 1 2 1\n",
                b"CAF\xe9 LATTE\r\n",
            ),
        ] {
            let ev = parse_all(stream);
            assert_eq!(blocks(&ev)[0].body, body, "{stream:?}");
        }
    }

    #[test]
    fn fuzz_smoke() {
        fuzz_parse(b"");
        fuzz_parse(b"%begin 1 2 3\n%end 1 2 3\n%x\n");
        fuzz_parse(b"\x03%begin 1 2\nq\n%end 1 2\n%output %1 \\\n");
    }
}
