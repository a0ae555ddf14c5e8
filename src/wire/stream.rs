//! imsg frames over a socket: a buffered frame reader and fd passing.

use std::io::{self, IoSlice};
use std::os::fd::{AsRawFd, BorrowedFd};

use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
use tokio::io::Interest;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

use super::error::Error;
use super::imsg::{self, Framing};
use super::protocol::PROTOCOL_VERSION;

/// `sendmsg` flags: no `SIGPIPE` when tmux closed its end
/// (`MSG_NOSIGNAL`; macOS has none, and a Rust binary ignores `SIGPIPE`
/// from its start anyway, so an `EPIPE` error is what arrives there too).
#[cfg(not(target_vendor = "apple"))]
const NO_SIGPIPE: MsgFlags = MsgFlags::MSG_NOSIGNAL;
#[cfg(target_vendor = "apple")]
const NO_SIGPIPE: MsgFlags = MsgFlags::empty();

/// An owned imsg message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The raw message type (see [`super::protocol::MsgType`]).
    pub kind: u32,
    /// The sender's `peerid` (protocol version in the low 8 bits).
    pub peerid: u32,
    /// The payload.
    pub data: Vec<u8>,
}

/// Reads whole imsg frames from a byte stream.
#[derive(Debug)]
pub struct FrameReader {
    framing: Framing,
    buf: Vec<u8>,
    start: usize,
}

impl FrameReader {
    /// A reader for a server speaking `framing`.
    pub fn new(framing: Framing) -> FrameReader {
        FrameReader {
            framing,
            buf: Vec::with_capacity(16 * 1024),
            start: 0,
        }
    }

    /// The next message.
    ///
    /// # Returns
    ///
    /// `Ok(None)` at a clean end of stream (between frames).
    ///
    /// # Errors
    ///
    /// [`Error::Protocol`] for an invalid frame or an end of stream inside
    /// one; [`Error::Io`] for read errors.
    pub async fn read<R: AsyncRead + Unpin>(
        &mut self,
        r: &mut R,
    ) -> Result<Option<Message>, Error> {
        loop {
            match imsg::decode(self.framing, &self.buf[self.start..]) {
                Ok(Some((f, n))) => {
                    let m = Message {
                        kind: f.kind,
                        peerid: f.peerid,
                        data: f.data.to_vec(),
                    };
                    self.start += n;
                    if self.start == self.buf.len() {
                        self.buf.clear();
                        self.start = 0;
                    }
                    return Ok(Some(m));
                }
                Ok(None) => {}
                Err(e) => return Err(Error::Protocol(e.to_string())),
            }
            if self.start > 0 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            self.buf.reserve(16 * 1024);
            let n = r.read_buf(&mut self.buf).await?;
            if n == 0 {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(Error::Protocol(format!(
                        "connection closed inside an imsg frame ({} bytes pending)",
                        self.buf.len()
                    )))
                };
            }
        }
    }
}

/// Checks a server message's protocol version, as tmux's
/// `peer_check_version()` does on its side.
///
/// # Errors
///
/// [`Error::ProtocolVersion`] on a mismatch (the server also answers a
/// mismatch with `MSG_VERSION`).
pub fn check_peer_version(m: &Message) -> Result<(), Error> {
    let v = m.peerid & 0xff;
    if v != PROTOCOL_VERSION {
        return Err(Error::ProtocolVersion { server: v });
    }
    Ok(())
}

/// Writes `bytes` (whole frames) to the stream.
pub async fn send_plain(stream: &mut UnixStream, bytes: &[u8]) -> io::Result<()> {
    stream.write_all(bytes).await
}

/// Sends `frame` with `fd` attached in one `sendmsg()` (`SCM_RIGHTS` on
/// the first byte), then any unsent rest without it.
pub async fn send_with_fd(
    stream: &mut UnixStream,
    frame: &[u8],
    fd: BorrowedFd<'_>,
) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    let sock = stream.as_raw_fd();
    let sent = stream
        .async_io(Interest::WRITABLE, || {
            let fds = [raw];
            let cmsg = [ControlMessage::ScmRights(&fds)];
            sendmsg::<()>(sock, &[IoSlice::new(frame)], &cmsg, NO_SIGPIPE, None)
                .map_err(io::Error::from)
        })
        .await?;
    if sent < frame.len() {
        stream.write_all(&frame[sent..]).await?;
    }
    Ok(())
}
