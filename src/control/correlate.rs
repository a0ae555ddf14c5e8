//! Matching a control stream's blocks to the requests that asked for
//! them. Pure: bytes and requests in, replies and events out.
//!
//! A control client's commands run strictly in the order it wrote them,
//! and each command line answers with its blocks before the next one
//! starts (cmd-queue.c: `cmdq_next()`), so the oldest open request owns
//! the next block that came from our input (flags 1). What a request
//! expects is its [`Shape`]:
//!
//! * [`Shape::Blocks`]: a line of one or more commands (`a ; b ; c`), one
//!   block each, in order; tmux skips the rest of a line after a command
//!   fails, so an `%error` block ends the request early. Each expected
//!   block has a [`FrameSpec`] that says how its body ends
//!   ([`Frame::Guard`], [`Frame::Records`], or a length printed by the
//!   block before it, for paste-buffer text).
//! * [`Shape::Fenced`]: a line whose block count is unknown, followed by a
//!   fence (`display-message -p TOKEN`); everything up to the block whose
//!   body is exactly the token belongs to the request.
//! * [`Shape::Detach`]: the empty line that detaches; no answer.
//!
//! Everything else the stream carries comes out in stream order as
//! [`Output`]s: notifications (including `%output`), the attach answer,
//! and violations after which the connection must be dropped.

use std::collections::VecDeque;

use super::notify::Notification;
use super::parse::{Block, BlockStart, Encoding, Event, Frame, Handler, Parser};

/// How the body of one expected block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameSpec {
    /// [`Frame::Guard`].
    Guard,
    /// [`Frame::Records`] with these markers.
    Records {
        /// Record start.
        start: Vec<u8>,
        /// Record end.
        end: Vec<u8>,
    },
    /// [`Frame::Length`], the length being the decimal number the previous
    /// block of the same request printed (`list-buffers -F
    /// '#{buffer_size}'`), and the canary line a later command of the
    /// request prints, when there is one ([`Frame::Length`]'s `canary`).
    /// When that block printed no number (no such buffer),
    /// [`Frame::Guard`]: the block then holds tmux's error.
    LengthOfPrevious(Encoding, Option<Vec<u8>>),
}

/// What a request expects back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One block per command of the line, stopping at the first `%error`.
    Blocks(Vec<FrameSpec>),
    /// Blocks up to the fence whose body is exactly `token` (with its
    /// `\n`).
    Fenced(Vec<u8>),
    /// The detaching empty line.
    Detach,
}

impl Shape {
    /// One command whose block ends at its guard.
    pub fn one() -> Shape {
        Shape::Blocks(vec![FrameSpec::Guard])
    }
}

/// A finished request's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// The blocks, in order (fewer than expected when one failed; the
    /// fence's own block is not included).
    pub blocks: Vec<Block>,
    /// Lines outside blocks while the request was open (only kept for
    /// fenced requests: `run-shell` output on tmux master).
    pub stray: Vec<Vec<u8>>,
}

/// What feeding the correlator produced, in stream order.
#[derive(Debug, PartialEq, Eq)]
pub enum Output<T> {
    /// A request is complete.
    Reply {
        /// The request's token, as given to [`Correlator::push`].
        token: T,
        /// Its answer.
        reply: Reply,
    },
    /// The answer to the attach command sent at connect (the first block
    /// not from our input): `Err` holds tmux's message.
    Attached(Result<(), String>),
    /// A notification (`%output`, `%layout-change`, …).
    Notification(Notification),
    /// A block nobody asked for (no request open, or not from our input
    /// after the attach): a hook's output, for example.
    Unclaimed(Block),
    /// The stream cannot be trusted any more (see [`Event::Violation`]):
    /// close the connection and fail every open request.
    Violation(String),
}

struct Pending<T> {
    shape: Shape,
    token: T,
    reply: Reply,
}

impl<T> Pending<T> {
    /// The frame of the next block this request expects.
    fn next_frame(&self) -> Frame {
        let Shape::Blocks(frames) = &self.shape else {
            return Frame::Guard;
        };
        match frames.get(self.reply.blocks.len()) {
            None | Some(FrameSpec::Guard) => Frame::Guard,
            Some(FrameSpec::Records { start, end }) => Frame::Records {
                start: start.clone(),
                end: end.clone(),
            },
            Some(FrameSpec::LengthOfPrevious(encoding, canary)) => {
                let len = self
                    .reply
                    .blocks
                    .last()
                    .filter(|b| b.ok)
                    .and_then(|b| std::str::from_utf8(&b.body).ok())
                    .and_then(|s| s.trim().parse::<usize>().ok());
                match len {
                    Some(len) => Frame::Length {
                        len,
                        encoding: *encoding,
                        canary: canary.clone(),
                    },
                    None => Frame::Guard,
                }
            }
        }
    }

    /// Adds a block; true when the request is complete.
    fn add(&mut self, b: Block) -> bool {
        match &self.shape {
            Shape::Blocks(frames) => {
                let failed = !b.ok;
                self.reply.blocks.push(b);
                failed || self.reply.blocks.len() >= frames.len()
            }
            Shape::Fenced(token) => {
                if b.ok && b.body == *token {
                    true
                } else {
                    self.reply.blocks.push(b);
                    false
                }
            }
            Shape::Detach => true,
        }
    }
}

/// The parser's [`Handler`] while feeding: frames come from the oldest
/// open request, which has seen every block before the one opening.
struct Route<'a, T, S> {
    pending: &'a mut VecDeque<Pending<T>>,
    attached: &'a mut bool,
    sink: &'a mut S,
}

impl<T, S: FnMut(Output<T>)> Handler for Route<'_, T, S> {
    fn frame(&mut self, start: &BlockStart) -> Frame {
        if start.flags == 0 {
            return Frame::Guard;
        }
        self.pending
            .front()
            .map_or(Frame::Guard, Pending::next_frame)
    }

    fn event(&mut self, e: Event) {
        let sink = &mut *self.sink;
        match e {
            Event::Block(b) if b.flags == 0 => {
                if *self.attached {
                    sink(Output::Unclaimed(b));
                } else {
                    *self.attached = true;
                    sink(Output::Attached(if b.ok { Ok(()) } else { Err(b.text()) }));
                }
            }
            Event::Block(b) => match self.pending.front_mut() {
                Some(p) => {
                    if p.add(b)
                        && let Some(done) = self.pending.pop_front()
                    {
                        sink(Output::Reply {
                            token: done.token,
                            reply: done.reply,
                        });
                    }
                }
                None => sink(Output::Unclaimed(b)),
            },
            Event::Notification(n) => sink(Output::Notification(n)),
            Event::Stray(line) => match self.pending.front_mut() {
                Some(p) if matches!(p.shape, Shape::Fenced(_)) => p.reply.stray.push(line),
                _ => tracing::debug!(
                    line = %String::from_utf8_lossy(&line),
                    "stray control line"
                ),
            },
            Event::Violation(why) => sink(Output::Violation(why)),
        }
    }
}

/// Pairs blocks with requests; see the module docs.
pub struct Correlator<T> {
    parser: Parser,
    pending: VecDeque<Pending<T>>,
    attached: bool,
}

impl<T> Default for Correlator<T> {
    fn default() -> Self {
        Correlator {
            parser: Parser::new(),
            pending: VecDeque::new(),
            attached: false,
        }
    }
}

impl<T> Correlator<T> {
    /// A correlator at the start of a connection (the first block not from
    /// our input is the attach answer).
    pub fn new() -> Correlator<T> {
        Correlator::default()
    }

    /// Records a request, in the order its line is written. A
    /// [`Shape::Detach`] request completes at once (nothing answers it) and
    /// is not queued; its token is returned.
    pub fn push(&mut self, shape: Shape, token: T) -> Option<T> {
        if shape == Shape::Detach {
            return Some(token);
        }
        self.pending.push_back(Pending {
            shape,
            token,
            reply: Reply::default(),
        });
        None
    }

    /// Number of requests waiting for an answer.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// True after a violation: the connection must be dropped.
    pub fn is_poisoned(&self) -> bool {
        self.parser.is_poisoned()
    }

    /// Consumes stream bytes, producing outputs in stream order.
    pub fn feed(&mut self, data: &[u8], sink: &mut impl FnMut(Output<T>)) {
        let mut route = Route {
            pending: &mut self.pending,
            attached: &mut self.attached,
            sink,
        };
        self.parser.feed_framed(data, &mut route);
    }

    /// Ends the stream: every open request's token, oldest first (to be
    /// failed by the caller).
    pub fn finish(&mut self) -> Vec<T> {
        self.parser.finish();
        self.pending.drain(..).map(|p| p.token).collect()
    }
}

/// The canary of the buffer reads [`fuzz_shape`] makes.
const FUZZ_CANARY: &[u8] = b"tmuxwire-canary-f";

/// The request shapes [`fuzz_correlate`] picks from.
fn fuzz_shape(b: u8) -> Shape {
    let start = b"\xe2\x90\x9eN\xe2\x90\x9f".to_vec();
    let end = b"\xe2\x90\x9eN".to_vec();
    match b % 5 {
        0 => Shape::one(),
        1 => Shape::Blocks(vec![FrameSpec::Records { start, end }]),
        2 | 3 => Shape::Blocks(vec![
            FrameSpec::Guard,
            FrameSpec::Guard,
            FrameSpec::LengthOfPrevious(
                if b % 5 == 2 {
                    Encoding::Raw
                } else {
                    Encoding::Vis
                },
                Some(FUZZ_CANARY.to_vec()),
            ),
            FrameSpec::Guard,
        ]),
        _ => Shape::Fenced(b"F\n".to_vec()),
    }
}

/// Fuzz entry point: byte 0 = number of requests (up to 7), then one byte
/// per request's shape, then the stream. The outputs are the same however
/// the stream is chunked, every reply belongs to a request made and comes
/// in request order, and nothing but the violation follows a violation.
#[doc(hidden)]
pub fn fuzz_correlate(data: &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 8).min(rest.len());
    let (shapes, stream) = rest.split_at(n);
    let run = |chunk: usize| {
        let mut c = Correlator::new();
        for (i, &s) in shapes.iter().enumerate() {
            c.push(fuzz_shape(s), i);
        }
        let mut out = Vec::new();
        for part in stream.chunks(chunk.max(1)) {
            c.feed(part, &mut |o| out.push(o));
        }
        let left = c.finish();
        (out, left)
    };
    let (whole, left) = run(stream.len());
    let split = stream.first().map_or(1, |b| usize::from(*b) % 7 + 1);
    let (chunked, chunked_left) = run(split);
    assert!(
        chunked == whole && chunked_left == left,
        "chunking changed the outputs"
    );
    let mut next = 0;
    let mut violated = false;
    for o in &whole {
        assert!(!violated, "output after a violation: {o:?}");
        match o {
            Output::Reply { token, .. } => {
                assert_eq!(*token, next, "replies out of order");
                next += 1;
            }
            Output::Violation(_) => violated = true,
            _ => {}
        }
    }
    assert_eq!(next + left.len(), shapes.len(), "a request was lost");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed<T: std::fmt::Debug>(c: &mut Correlator<T>, s: &[u8]) -> Vec<Output<T>> {
        let mut out = Vec::new();
        c.feed(s, &mut |o| out.push(o));
        out
    }

    fn replies<T: Copy>(out: &[Output<T>]) -> Vec<(T, Vec<Vec<u8>>)> {
        out.iter()
            .filter_map(|o| match o {
                Output::Reply { token, reply } => Some((
                    *token,
                    reply.blocks.iter().map(|b| b.body.clone()).collect(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn attach_then_ordered_replies() {
        let mut c = Correlator::new();
        c.push(Shape::one(), 1);
        c.push(Shape::one(), 2);
        let out = feed(
            &mut c,
            b"%begin 1 1 0\n%end 1 1 0\n%session-changed $0 s\n%begin 1 2 1\na\n%end 1 2 1\n\
              %begin 1 3 1\nb\n%error 1 3 1\n",
        );
        assert!(matches!(out[0], Output::Attached(Ok(()))));
        assert!(matches!(
            out[1],
            Output::Notification(Notification::SessionChanged { .. })
        ));
        assert_eq!(
            replies(&out),
            vec![(1, vec![b"a\n".to_vec()]), (2, vec![b"b\n".to_vec()])]
        );
        assert_eq!(c.pending(), 0);
    }

    #[test]
    fn a_group_stops_at_its_first_error() {
        let mut c = Correlator::new();
        c.push(
            Shape::Blocks(vec![FrameSpec::Guard, FrameSpec::Guard, FrameSpec::Guard]),
            7,
        );
        c.push(Shape::one(), 8);
        let out = feed(
            &mut c,
            b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\nno\n%error 1 3 1\n%begin 1 4 1\n%end 1 4 1\n",
        );
        assert_eq!(
            replies(&out),
            vec![
                (7, vec![b"".to_vec(), b"no\n".to_vec()]),
                (8, vec![b"".to_vec()])
            ]
        );
    }

    #[test]
    fn fenced_requests_collect_until_the_fence() {
        let mut c = Correlator::new();
        c.push(Shape::Fenced(b"F\n".to_vec()), 1);
        let out = feed(
            &mut c,
            b"%begin 1 2 1\nx\n%end 1 2 1\nstray\n%begin 1 3 1\ny\n%end 1 3 1\n%begin 1 4 1\nF\n%end 1 4 1\n",
        );
        let Some(Output::Reply { reply, .. }) = out.into_iter().next() else {
            panic!("no reply")
        };
        assert_eq!(reply.blocks.len(), 2);
        assert_eq!(reply.stray, vec![b"stray".to_vec()]);
    }

    /// A buffer read: capture, size, text (length-framed), delete.
    fn buffer_read(enc: Encoding) -> Shape {
        Shape::Blocks(vec![
            FrameSpec::Guard,
            FrameSpec::Guard,
            FrameSpec::LengthOfPrevious(enc, None),
            FrameSpec::Guard,
        ])
    }

    /// A paste-buffer read's answers as tmux sends them: an empty
    /// answer, the length `len`, `text` (as tmux encodes it), and an
    /// empty one.
    fn framed(len: usize, text: &[u8]) -> Vec<u8> {
        let mut s = Vec::new();
        s.extend_from_slice(b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n");
        s.extend_from_slice(format!("{len}\n%end 1 3 1\n%begin 1 4 1\n").as_bytes());
        s.extend_from_slice(text);
        s.extend_from_slice(b"\n%end 1 4 1\n%begin 1 5 1\n%end 1 5 1\n");
        s
    }

    #[test]
    fn length_framed_text_cannot_be_cut() {
        let text = b"row 1\n%end 1 4 1\n%error 1 4 1\n%begin 1 5 1\nlast\n";
        let s = framed(text.len(), text);
        for chunk in [1, 2, 3, 7, s.len()] {
            let mut c = Correlator::new();
            c.push(buffer_read(Encoding::Raw), 1);
            let mut out = Vec::new();
            for part in s.chunks(chunk) {
                c.feed(part, &mut |o| out.push(o));
            }
            let r = replies(&out);
            assert_eq!(r.len(), 1, "chunk {chunk}: {out:?}");
            assert_eq!(r[0].1[2], text.to_vec(), "chunk {chunk}");
            assert!(!c.is_poisoned());
        }
    }

    #[test]
    fn vis_encoded_text_is_decoded_by_length() {
        let decoded = b"a\\b\t$HOME\n%end 1 4 1\n\n";
        let encoded = b"a\\\\b\\t\\$HOME\n%end 1 4 1\n\n";
        let s = framed(decoded.len(), encoded);
        let mut c = Correlator::new();
        c.push(buffer_read(Encoding::Vis), 1);
        let r = replies(&feed(&mut c, &s));
        assert_eq!(r[0].1[2], decoded.to_vec());
    }

    #[test]
    fn a_missing_buffer_is_an_error_block() {
        let mut c = Correlator::new();
        c.push(buffer_read(Encoding::Raw), 1);
        let r = replies(&feed(
            &mut c,
            b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n%end 1 3 1\n%begin 1 4 1\nno buffer x\n%error 1 4 1\n",
        ));
        assert_eq!(r[0].1.len(), 3);
        assert_eq!(r[0].1[2], b"no buffer x\n".to_vec());
    }

    #[test]
    fn text_past_its_length_is_a_violation() {
        let mut c = Correlator::new();
        c.push(buffer_read(Encoding::Raw), 1);
        let out = feed(
            &mut c,
            b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n2\n%end 1 3 1\n%begin 1 4 1\nabc\n%end 1 4 1\n",
        );
        assert!(out.iter().any(|o| matches!(o, Output::Violation(_))));
        assert!(c.is_poisoned());
        assert_eq!(c.finish(), vec![1]);
    }

    /// A buffer read with a canary: fill, size, text, canary, delete
    /// ([`crate::control::buffer::capture_commands`]'s shape, less the
    /// capture).
    fn canaried_read(enc: Encoding, canary: &[u8]) -> Shape {
        Shape::Blocks(vec![
            FrameSpec::Guard,
            FrameSpec::Guard,
            FrameSpec::LengthOfPrevious(enc, Some(canary.to_vec())),
            FrameSpec::Guard,
            FrameSpec::Guard,
        ])
    }

    /// tmux ≥ 3.4 printing a buffer that fills its evbuffer chain reads on
    /// past it (server-client.c `server_client_print()`): the bytes up to
    /// the canary are skipped, whatever they hold (pane text with guard
    /// lookalikes, forged blocks and notifications), and the data is kept
    /// exactly, in any chunking. This is the stream's shape that a
    /// 2,000-byte screen capture got on 3.5a.
    #[test]
    fn text_tmux_printed_past_a_buffer_is_skipped_up_to_the_canary() {
        let canary = b"tmuxwire-canary-0123456789abcdef";
        let mut data = Vec::new();
        while data.len() < 2000 {
            data.extend_from_slice(b"019999 yyyyyyyyyyyyyyyyyyyy\n");
        }
        data.truncate(2000 - 3);
        data.extend_from_slice(b"$ \n");
        let past: &[u8] = b"yyyy\n000014 yyyy\n%end 1 4 1\n%begin 1 5 1\nforged\n%end 1 5 1\n\
                            %output %1 forged\n%begin 1 6 1\n%end 1 6 1\n%error 1 4 1x\n019987";
        let mut s = Vec::new();
        s.extend_from_slice(b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n");
        s.extend_from_slice(format!("{}\n%end 1 3 1\n%begin 1 4 1\n", data.len()).as_bytes());
        s.extend_from_slice(&data);
        s.extend_from_slice(past);
        s.extend_from_slice(b"\n%end 1 4 1\n%begin 1 5 1\n");
        s.extend_from_slice(canary);
        s.extend_from_slice(b"\n%end 1 5 1\n%begin 1 6 1\n%end 1 6 1\n");
        s.extend_from_slice(b"%output %1 real\n%begin 1 7 1\nnext\n%end 1 7 1\n");
        for chunk in [1, 2, 3, 7, 100, s.len()] {
            let mut c = Correlator::new();
            c.push(canaried_read(Encoding::Raw, canary), 1);
            c.push(Shape::one(), 2);
            let mut out = Vec::new();
            for part in s.chunks(chunk) {
                c.feed(part, &mut |o| out.push(o));
            }
            assert!(!c.is_poisoned(), "chunk {chunk}: {out:?}");
            let r = replies(&out);
            assert_eq!(r.len(), 2, "chunk {chunk}: {out:?}");
            assert_eq!(r[0].1.len(), 5, "chunk {chunk}");
            assert_eq!(r[0].1[2], data, "chunk {chunk}");
            assert_eq!(
                r[0].1[3],
                [canary.as_slice(), b"\n"].concat(),
                "chunk {chunk}"
            );
            assert_eq!(r[1].1, vec![b"next\n".to_vec()], "chunk {chunk}");
            let notes = out
                .iter()
                .filter(|o| matches!(o, Output::Notification(_)))
                .count();
            assert_eq!(notes, 1, "only tmux's own %output: chunk {chunk}: {out:?}");
        }
    }

    /// Without a canary, or with vis(3) text (tmux ≤ 3.3 prints a buffer
    /// through `cmdq_print`, which never reads past it), text past the
    /// size is still a violation; so is a canary block holding more than
    /// the canary (a canary met in what tmux read past, not its own).
    #[test]
    fn text_past_its_length_without_a_canary_is_a_violation() {
        let canary = b"tmuxwire-canary-0";
        let past = b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n2\n%end 1 3 1\n%begin 1 4 1\nabc\n%end 1 4 1\n";
        for shape in [
            buffer_read(Encoding::Raw),
            canaried_read(Encoding::Vis, canary),
        ] {
            let mut c = Correlator::new();
            c.push(shape, 1);
            let out = feed(&mut c, past);
            assert!(out.iter().any(|o| matches!(o, Output::Violation(_))));
            assert!(c.is_poisoned());
        }
        let mut c = Correlator::new();
        c.push(canaried_read(Encoding::Raw, canary), 1);
        let mut s =
            b"%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n2\n%end 1 3 1\n%begin 1 4 1\nab".to_vec();
        s.extend_from_slice(b"c\n");
        s.extend_from_slice(canary);
        s.extend_from_slice(b"\n%end 1 4 1\n%begin 1 5 1\n");
        s.extend_from_slice(canary);
        s.extend_from_slice(b"\n%end 1 5 1\n");
        let out = feed(&mut c, &s);
        assert!(
            out.iter().any(|o| matches!(o, Output::Violation(_))),
            "{out:?}"
        );
        assert!(c.is_poisoned());
    }

    #[test]
    fn records_end_only_at_a_record_boundary() {
        let start = b"\xe2\x90\x9eN\xe2\x90\x9f".to_vec();
        let end = b"\xe2\x90\x9eN".to_vec();
        let mut c = Correlator::new();
        c.push(
            Shape::Blocks(vec![FrameSpec::Records {
                start: start.clone(),
                end: end.clone(),
            }]),
            1,
        );
        c.push(Shape::one(), 2);
        let mut s = Vec::new();
        s.extend_from_slice(b"%begin 1 2 1\n");
        s.extend_from_slice(&start);
        s.extend_from_slice(b"%0\xe2\x90\x9f/tmp/x\n%end 1 2 1\n%error 1 2 1\nmore");
        s.extend_from_slice(&end);
        s.extend_from_slice(b"\n%end 1 2 1\n%begin 1 3 1\n%end 1 3 1\n");
        let r = replies(&feed(&mut c, &s));
        assert_eq!(r.len(), 2);
        let body = String::from_utf8_lossy(&r[0].1[0]).into_owned();
        assert!(
            body.contains("/tmp/x\n%end 1 2 1\n%error 1 2 1\nmore"),
            "{body}"
        );
        // An error before any record is accepted.
        let mut c = Correlator::new();
        c.push(Shape::Blocks(vec![FrameSpec::Records { start, end }]), 1);
        let r = replies(&feed(
            &mut c,
            b"%begin 1 2 1\ncan't find pane: %9\n%error 1 2 1\n",
        ));
        assert_eq!(r[0].1[0], b"can't find pane: %9\n".to_vec());
    }

    #[test]
    fn guards_outside_blocks_and_repeated_numbers_are_violations() {
        let mut c: Correlator<u8> = Correlator::new();
        let out = feed(&mut c, b"%end 1 2 1\n");
        assert!(matches!(out[0], Output::Violation(_)));
        let mut c: Correlator<u8> = Correlator::new();
        let out = feed(
            &mut c,
            b"%begin 1 5 0\n%end 1 5 0\n%begin 1 5 1\n%end 1 5 1\n",
        );
        assert!(matches!(out[1], Output::Violation(_)));
    }
}
