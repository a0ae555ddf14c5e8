//! The imsg frame codec, in both header layouts tmux has used. Pure: no I/O.
//!
//! # Format
//!
//! Every message is a 16-byte header followed by its payload. All fields
//! are in host byte order (client and server share a machine).
//!
//! ```text
//! offset  tmux ≤ 3.5a (Framing::Old)     tmux ≥ 3.6 (Framing::New)
//!  0      u32 type                       u32 type
//!  4      u16 len                        u32 len | IMSG_FD_MARK (bit 31)
//!  6      u16 flags (IMSGF_HASFD = 1)
//!  8      u32 peerid (= PROTOCOL_VERSION) u32 peerid
//! 12      u32 pid (ignored; -1)          u32 pid
//! ```
//!
//! `len` counts the header and is at most [`MAX_IMSGSIZE`]. On little-endian
//! hosts a message *without* an fd is byte-identical in both layouts; only
//! fd-carrying messages differ (`10 00 01 00` vs `10 00 00 80` at bytes
//! 4..8 for an empty payload). Source: tmux `compat/imsg.h` before and after
//! commit `252f41818`; `tmux-wire-protocol.md` §1.2.

use super::protocol::{IMSG_HEADER_SIZE, MAX_IMSGSIZE, PROTOCOL_VERSION};

/// `IMSGF_HASFD` in the old layout's `flags` field.
const IMSGF_HASFD: u16 = 1;
/// `IMSG_FD_MARK` in the new layout's `len` field.
const IMSG_FD_MARK: u32 = 0x8000_0000;

/// Which imsg header layout a server speaks.
///
/// Chosen from the server's version (see [`super::version::TmuxVersion::framing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// tmux ≤ 3.5a: `u16 len; u16 flags` with `IMSGF_HASFD`.
    Old,
    /// tmux ≥ 3.6 and `next-*` builds: `u32 len` with bit 31 marking an fd.
    New,
}

/// A decoded message, borrowing its payload from the input buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The raw message type (see [`super::protocol::MsgType`]).
    pub kind: u32,
    /// The sender's `peerid`; its low 8 bits are the protocol version.
    pub peerid: u32,
    /// Whether the header says an fd travelled with this message.
    pub has_fd: bool,
    /// The payload (`len - 16` bytes).
    pub data: &'a [u8],
}

impl Frame<'_> {
    /// The protocol version the sender put in `peerid`.
    pub fn protocol_version(&self) -> u32 {
        self.peerid & 0xff
    }
}

/// Why bytes could not be decoded as an imsg frame.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The header's length field is outside `16..=16384`. The value is
    /// included.
    #[error("imsg length {0} is outside 16..=16384 bytes")]
    BadLength(u32),
}

/// Why a message could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The payload is longer than [`super::protocol::MAX_PAYLOAD`] bytes.
    /// The payload length is included.
    #[error("imsg payload of {0} bytes is over tmux's limit of 16368 bytes")]
    TooLarge(usize),
}

/// Reads a native-endian `u32` at `at`. Upon success, also returns the
/// offset just past it.
fn try_read_u32(buf: &[u8], at: usize) -> Option<(u32, usize)> {
    let bytes = buf.get(at..at + 4)?;
    Some((u32::from_ne_bytes(bytes.try_into().ok()?), at + 4))
}

fn try_read_u16(buf: &[u8], at: usize) -> Option<(u16, usize)> {
    let bytes = buf.get(at..at + 2)?;
    Some((u16::from_ne_bytes(bytes.try_into().ok()?), at + 2))
}

/// Decodes one frame from the front of `buf`.
///
/// # Returns
///
/// `Ok(None)` when `buf` does not yet hold a whole frame (an expected
/// condition: read more and call again), otherwise the frame and the number
/// of bytes it used.
///
/// # Errors
///
/// [`DecodeError::BadLength`] when the length field cannot be valid; the
/// stream is then unusable.
pub fn decode(framing: Framing, buf: &[u8]) -> Result<Option<(Frame<'_>, usize)>, DecodeError> {
    if buf.len() < IMSG_HEADER_SIZE {
        return Ok(None);
    }
    // The header is complete, so these reads cannot fail; treat a failure
    // like a short buffer rather than panicking.
    let Some((kind, at)) = try_read_u32(buf, 0) else {
        return Ok(None);
    };
    let (len, has_fd, at) = match framing {
        Framing::Old => {
            let Some((len, at)) = try_read_u16(buf, at) else {
                return Ok(None);
            };
            let Some((flags, at)) = try_read_u16(buf, at) else {
                return Ok(None);
            };
            (u32::from(len), flags & IMSGF_HASFD != 0, at)
        }
        Framing::New => {
            let Some((raw, at)) = try_read_u32(buf, at) else {
                return Ok(None);
            };
            (raw & !IMSG_FD_MARK, raw & IMSG_FD_MARK != 0, at)
        }
    };
    let Some((peerid, _)) = try_read_u32(buf, at) else {
        return Ok(None);
    };
    let total = len as usize;
    if !(IMSG_HEADER_SIZE..=MAX_IMSGSIZE).contains(&total) {
        return Err(DecodeError::BadLength(len));
    }
    if buf.len() < total {
        return Ok(None);
    }
    let frame = Frame {
        kind,
        peerid,
        has_fd,
        data: &buf[IMSG_HEADER_SIZE..total],
    };
    Ok(Some((frame, total)))
}

/// Appends one encoded message to `dst`: the header for `framing` and then
/// `data`. `with_fd` marks the header as carrying an fd; the caller must
/// then send these bytes with exactly one fd in an `SCM_RIGHTS` message
/// (each fd-carrying frame in its own `sendmsg()`).
///
/// `peerid` is always [`PROTOCOL_VERSION`] and `pid` is `-1`, as tmux's own
/// `proc_send()` does.
///
/// # Errors
///
/// [`EncodeError::TooLarge`] when `data` is over 16368 bytes; `dst` is then
/// unchanged.
pub fn encode(
    framing: Framing,
    kind: u32,
    data: &[u8],
    with_fd: bool,
    dst: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let total = IMSG_HEADER_SIZE + data.len();
    if total > MAX_IMSGSIZE {
        return Err(EncodeError::TooLarge(data.len()));
    }
    dst.reserve(total);
    dst.extend_from_slice(&kind.to_ne_bytes());
    match framing {
        Framing::Old => {
            // total <= 16384, so it fits a u16.
            dst.extend_from_slice(&(total as u16).to_ne_bytes());
            let flags = if with_fd { IMSGF_HASFD } else { 0 };
            dst.extend_from_slice(&flags.to_ne_bytes());
        }
        Framing::New => {
            let len = total as u32 | if with_fd { IMSG_FD_MARK } else { 0 };
            dst.extend_from_slice(&len.to_ne_bytes());
        }
    }
    dst.extend_from_slice(&PROTOCOL_VERSION.to_ne_bytes());
    dst.extend_from_slice(&u32::MAX.to_ne_bytes());
    dst.extend_from_slice(data);
    Ok(())
}

/// Convenience: [`encode`] into a new buffer.
pub fn encode_vec(
    framing: Framing,
    kind: u32,
    data: &[u8],
    with_fd: bool,
) -> Result<Vec<u8>, EncodeError> {
    let mut v = Vec::with_capacity(IMSG_HEADER_SIZE + data.len());
    encode(framing, kind, data, with_fd, &mut v)?;
    Ok(v)
}

/// An owned frame: `(kind, peerid, has_fd, data)`.
pub type OwnedFrame = (u32, u32, bool, Vec<u8>);

/// Decodes every whole frame in `buf`, for tests and fuzzing: returns the
/// frames and the bytes consumed.
///
/// # Errors
///
/// The first [`DecodeError`] met.
pub fn decode_all(
    framing: Framing,
    mut buf: &[u8],
) -> Result<(Vec<OwnedFrame>, usize), DecodeError> {
    let mut out = Vec::new();
    let mut used = 0;
    while let Some((f, n)) = decode(framing, buf)? {
        out.push((f.kind, f.peerid, f.has_fd, f.data.to_vec()));
        used += n;
        buf = &buf[n..];
    }
    Ok((out, used))
}

/// Fuzz entry point: decoding arbitrary bytes in either layout never
/// panics, and every frame decoded re-encodes to the same bytes (for the
/// fields tmux defines: `pid` is normalised to `-1`).
#[doc(hidden)]
pub fn fuzz_decode(data: &[u8]) {
    for framing in [Framing::Old, Framing::New] {
        let mut buf = data;
        while let Ok(Some((f, n))) = decode(framing, buf) {
            assert!((IMSG_HEADER_SIZE..=MAX_IMSGSIZE).contains(&n) && n <= buf.len());
            assert_eq!(f.data.len(), n - IMSG_HEADER_SIZE);
            let again = encode_vec(framing, f.kind, f.data, f.has_fd).expect("decoded frame fits");
            // Type, length, fd mark and payload survive the round trip.
            assert_eq!(&again[..4], &buf[..4]);
            assert_eq!(&again[IMSG_HEADER_SIZE..], &buf[IMSG_HEADER_SIZE..n]);
            match decode(framing, &again) {
                Ok(Some((g, m))) => {
                    assert_eq!(m, n);
                    assert_eq!((g.kind, g.has_fd, g.data), (f.kind, f.has_fd, f.data));
                }
                other => panic!("re-encoded frame did not decode: {other:?}"),
            }
            buf = &buf[n..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::protocol::MsgType;

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    /// A message without an fd, as [`encode_vec`] writes it.
    #[cfg(target_endian = "little")]
    fn encoded(framing: Framing, kind: MsgType, payload: &[u8]) -> Vec<u8> {
        encode_vec(framing, kind as u32, payload, false).unwrap()
    }

    // Exact bytes from tmux-wire-protocol.md §1.6 (x86-64, tmux 3.3a and 3.6a).
    #[cfg(target_endian = "little")]
    #[test]
    fn message_bytes() {
        let mut command = 1i32.to_ne_bytes().to_vec();
        command.extend_from_slice(b"attach-session\0");
        for (kind, payload, bytes) in [
            (
                MsgType::IdentifyFlags,
                &0x10000i32.to_ne_bytes()[..],
                "64 00 00 00 14 00 00 00 08 00 00 00 ff ff ff ff 00 00 01 00",
            ),
            (
                MsgType::Command,
                &command,
                "c8 00 00 00 23 00 00 00 08 00 00 00 ff ff ff ff \
                 01 00 00 00 61 74 74 61 63 68 2d 73 65 73 73 69 6f 6e 00",
            ),
            (
                MsgType::IdentifyLongFlags,
                &0x12000u64.to_ne_bytes(),
                "6f 00 00 00 18 00 00 00 08 00 00 00 ff ff ff ff 00 20 01 00 00 00 00 00",
            ),
        ] {
            let m = encoded(Framing::Old, kind, payload);
            assert_eq!(m, hex(bytes), "{kind:?}");
            // Without an fd the new layout is byte-identical.
            assert_eq!(encoded(Framing::New, kind, payload), m, "{kind:?}");
        }
    }

    #[cfg(target_endian = "little")]
    #[test]
    fn fd_marker_bytes_differ_by_layout() {
        let old = encode_vec(Framing::Old, MsgType::IdentifyStdin as u32, &[], true).unwrap();
        assert_eq!(old, hex("68 00 00 00 10 00 01 00 08 00 00 00 ff ff ff ff"));
        let new = encode_vec(Framing::New, MsgType::IdentifyStdin as u32, &[], true).unwrap();
        assert_eq!(new, hex("68 00 00 00 10 00 00 80 08 00 00 00 ff ff ff ff"));
        let stdout = encode_vec(Framing::New, MsgType::IdentifyStdout as u32, &[], true).unwrap();
        assert_eq!(
            stdout,
            hex("6e 00 00 00 10 00 00 80 08 00 00 00 ff ff ff ff")
        );
    }

    #[test]
    fn decode_roundtrip_both_layouts() {
        for framing in [Framing::Old, Framing::New] {
            for with_fd in [false, true] {
                let m = encode_vec(framing, 304, b"\x01\0\0\0hello", with_fd).unwrap();
                let (f, n) = decode(framing, &m).unwrap().unwrap();
                assert_eq!(n, m.len());
                assert_eq!(f.kind, 304);
                assert_eq!(f.has_fd, with_fd);
                assert_eq!(f.protocol_version(), PROTOCOL_VERSION);
                assert_eq!(f.data, b"\x01\0\0\0hello");
            }
        }
    }

    #[test]
    fn decode_short_input_is_incomplete() {
        let m = encode_vec(Framing::New, 203, &0i32.to_ne_bytes(), false).unwrap();
        for cut in 0..m.len() {
            assert_eq!(decode(Framing::New, &m[..cut]), Ok(None), "cut at {cut}");
        }
    }

    #[test]
    fn decode_rejects_bad_lengths() {
        let mut m = encode_vec(Framing::Old, 203, &[], false).unwrap();
        m[4..6].copy_from_slice(&3u16.to_ne_bytes());
        assert_eq!(decode(Framing::Old, &m), Err(DecodeError::BadLength(3)));
        let mut m = encode_vec(Framing::New, 203, &[], false).unwrap();
        m[4..8].copy_from_slice(&20000u32.to_ne_bytes());
        assert_eq!(decode(Framing::New, &m), Err(DecodeError::BadLength(20000)));
    }

    #[test]
    fn encode_rejects_oversized_payload() {
        let big = vec![0u8; MAX_IMSGSIZE - IMSG_HEADER_SIZE + 1];
        let mut dst = Vec::new();
        assert_eq!(
            encode(Framing::Old, 200, &big, false, &mut dst),
            Err(EncodeError::TooLarge(big.len()))
        );
        assert!(dst.is_empty());
        let fits = vec![0u8; MAX_IMSGSIZE - IMSG_HEADER_SIZE];
        encode(Framing::Old, 200, &fits, false, &mut dst).unwrap();
        assert_eq!(dst.len(), MAX_IMSGSIZE);
    }

    #[test]
    fn decode_all_splits_a_stream() {
        let mut buf = encode_vec(Framing::Old, 303, b"abc", false).unwrap();
        buf.extend(encode_vec(Framing::Old, 203, b"", false).unwrap());
        buf.extend_from_slice(&[1, 2, 3]);
        let (frames, used) = decode_all(Framing::Old, &buf).unwrap();
        assert_eq!(frames.len(), 2);
        assert_eq!(used, buf.len() - 3);
    }

    #[test]
    fn fuzz_smoke() {
        fuzz_decode(&[]);
        fuzz_decode(&encode_vec(Framing::New, 1, b"x", true).unwrap());
        fuzz_decode(&[0xff; 40]);
    }
}
