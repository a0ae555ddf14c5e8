//! The one-shot command client: what `tmux <command>` does, without the
//! binary.
//!
//! It identifies *without* passing any fds and without `CLIENT_CONTROL`,
//! sends one `MSG_COMMAND`, answers the server's `MSG_WRITE_OPEN` for
//! stdout/stderr, collects `MSG_WRITE` data and ends at `MSG_EXIT`
//! (client.c: `client_dispatch_wait()`; file.c). Because no fd travels,
//! its bytes are the same in both imsg layouts on little-endian hosts, so
//! it is safe before the server's version is known.
//!
//! Used for the version probe, for servers that have no sessions (a
//! control client must attach to one), and for commands that must not run
//! on a control connection.

use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use super::dial::connect_socket;
use super::error::Error;
use super::identify::{self, Chunk, Identity};
use super::imsg::{self, Framing};
use super::protocol::{CLIENT_UTF8, EBADF, MsgType};
use super::stream::{FrameReader, check_peer_version};

/// What a one-shot command produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandOutput {
    /// The exit status from `MSG_EXIT` (0 = success).
    pub status: i32,
    /// Bytes the command printed to the client's stdout (stream 1).
    pub stdout: Vec<u8>,
    /// Bytes printed to stderr (stream 2): tmux's error messages.
    pub stderr: Vec<u8>,
    /// The optional message that came with `MSG_EXIT`.
    pub exit_message: Option<String>,
    /// How the exchange ended: `status` says something about the command
    /// only for [`Ending::Exit`].
    pub ending: Ending,
}

/// How a one-shot command's exchange with the server ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ending {
    /// `MSG_EXIT` came: `status` is the command's.
    #[default]
    Exit,
    /// The server ended the client with `MSG_SHUTDOWN` or `MSG_EXITED`
    /// (it is exiting) rather than `MSG_EXIT`: `status` then says nothing
    /// about the command.
    ServerExited,
    /// The sink of [`stream_command_list`] asked to stop before `MSG_EXIT`
    /// (its reader went away): the connection was dropped, `status` says
    /// nothing.
    Stopped,
}

impl CommandOutput {
    /// True when the command succeeded.
    pub fn success(&self) -> bool {
        self.status == 0
    }

    /// The error text, for a failed command: stderr, else the exit message.
    pub fn error_text(&self) -> String {
        let e = String::from_utf8_lossy(&self.stderr).trim().to_string();
        if !e.is_empty() {
            return e;
        }
        self.exit_message
            .clone()
            .unwrap_or_else(|| format!("exit status {}", self.status))
    }
}

/// Runs `argv` as one tmux command on the server at `path`.
///
/// `argv` elements are tmux arguments (no shell or tmux quoting; see
/// [`identify::command_payload`]). The whole exchange is bounded by
/// `timeout`.
///
/// # Errors
///
/// [`Error::NoServer`] when nothing listens; [`Error::Timeout`];
/// [`Error::ProtocolVersion`] / [`Error::TooOld`] for servers tmuxwire
/// cannot talk to; [`Error::Closed`] when the connection ends without
/// `MSG_EXIT`. A command that tmux ran and that *failed* is not an error:
/// see [`CommandOutput::status`].
pub async fn run_command<S: AsRef<str>>(
    path: &Path,
    argv: &[S],
    timeout: Duration,
) -> Result<CommandOutput, Error> {
    let payload = identify::command_payload(argv)?;
    run_payload(path, &payload, timeout).await
}

/// Runs several commands in order as one one-shot client (`tmux a \; b`):
/// their output is concatenated on stdout, and tmux stops at the first
/// command that fails (its error is on stderr, the status is non-zero).
///
/// # Errors
///
/// As [`run_command`].
pub async fn run_command_list<S: AsRef<str>>(
    path: &Path,
    cmds: &[&[S]],
    timeout: Duration,
) -> Result<CommandOutput, Error> {
    let payload = identify::command_list_payload(cmds)?;
    run_payload(path, &payload, timeout).await
}

/// One-shot clients open at once, process-wide: each is a connection the
/// server must accept, and a burst would overflow its listen queue.
const MAX_ONE_SHOT: usize = 16;

/// The slots of [`MAX_ONE_SHOT`].
static SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(MAX_ONE_SHOT);

async fn run_payload(
    path: &Path,
    payload: &[u8],
    timeout: Duration,
) -> Result<CommandOutput, Error> {
    let work = async {
        let _slot = SLOTS.acquire().await;
        let mut stdout = Vec::new();
        let mut out = run(path, payload, Framing::Old, None, &mut |data: &[u8]| {
            stdout.extend_from_slice(data);
            true
        })
        .await?;
        out.stdout = stdout;
        Ok(out)
    };
    match tokio::time::timeout(timeout, work).await {
        Ok(r) => r,
        Err(_) => Err(Error::Timeout {
            path: path.to_path_buf(),
            timeout,
            what: "a one-shot command",
        }),
    }
}

/// Runs several commands in order as one one-shot client, as
/// [`run_command_list`] does, but hands what they print on stdout to
/// `sink` as each `MSG_WRITE` frame arrives (at most 16 KiB at a time)
/// instead of collecting it: a capture of any size passes through in
/// constant memory. `sink` returns `false` to stop (its reader went away):
/// the connection is then dropped and [`CommandOutput::ending`] is
/// [`Ending::Stopped`].
/// stderr is collected as usual; [`CommandOutput::stdout`] stays empty.
///
/// There is no bound on the whole exchange, only on each wait: `idle` is
/// the longest time without a frame from the server (tmux renders a
/// capture before it sends the first byte, so allow for that).
///
/// # Errors
///
/// As [`run_command`], [`Error::Timeout`] after `idle` without a frame.
pub async fn stream_command_list<S: AsRef<str>>(
    path: &Path,
    cmds: &[&[S]],
    idle: Duration,
    mut sink: impl FnMut(&[u8]) -> bool,
) -> Result<CommandOutput, Error> {
    let payload = identify::command_list_payload(cmds)?;
    let _slot = SLOTS.acquire().await;
    run(path, &payload, Framing::Old, Some(idle), &mut sink).await
}

async fn run<F: FnMut(&[u8]) -> bool>(
    path: &Path,
    payload: &[u8],
    framing: Framing,
    idle: Option<Duration>,
    sink: &mut F,
) -> Result<CommandOutput, Error> {
    let mut stream = connect_socket(path).await?;
    let id = Identity::for_this_process(CLIENT_UTF8, "dumb");
    let mut bytes = Vec::new();
    for chunk in identify::handshake(framing, &id, false, payload)? {
        match chunk {
            Chunk::Plain(b) => bytes.extend_from_slice(&b),
            Chunk::WithFd(_) => unreachable!("no fds without pass_fds"),
        }
    }
    stream.write_all(&bytes).await?;

    let mut reader = FrameReader::new(framing);
    let mut out = CommandOutput::default();
    let mut got_exit = false;
    // Streams the server opened, and the fd each writes to: 1 and 2 are
    // the client's stdout and stderr; `show-buffer` and other file writes
    // to "-" open a stream of their own with fd 1 (file.c: file_write()).
    let mut streams: Vec<(i32, i32)> = vec![(1, 1), (2, 2)];
    loop {
        let next = match idle {
            Some(idle) => match tokio::time::timeout(idle, reader.read(&mut stream)).await {
                Ok(r) => r,
                Err(_) => {
                    return Err(Error::Timeout {
                        path: path.to_path_buf(),
                        timeout: idle,
                        what: "a one-shot command's output",
                    });
                }
            },
            None => reader.read(&mut stream).await,
        };
        let m = match next {
            Ok(Some(m)) => m,
            Ok(None) => break,
            // A reset after MSG_EXIT is just the server closing.
            Err(Error::Io(_)) if got_exit => break,
            Err(e) => return Err(e),
        };
        if m.kind == MsgType::Version as u32 {
            return Err(Error::ProtocolVersion {
                server: m.peerid & 0xff,
            });
        }
        check_peer_version(&m)?;
        let mut answer = Vec::new();
        match MsgType::from_u32(m.kind) {
            Some(MsgType::WriteOpen) => {
                // {int32 stream; int32 fd; int32 flags} + path
                let stream_id = read_i32(&m.data, 0);
                let fd = read_i32(&m.data, 4);
                let ok = m.data.len() >= 12 && matches!(fd, Some(1) | Some(2));
                if let Some(s) = stream_id {
                    if let (true, Some(fd)) = (ok, fd) {
                        streams.retain(|(id, _)| *id != s);
                        streams.push((s, fd));
                    }
                    let err = if ok { 0 } else { EBADF };
                    let mut p = s.to_ne_bytes().to_vec();
                    p.extend_from_slice(&err.to_ne_bytes());
                    imsg::encode(framing, MsgType::WriteReady as u32, &p, false, &mut answer)
                        .map_err(|e| Error::Protocol(e.to_string()))?;
                }
            }
            Some(MsgType::Write) => {
                if let Some(s) = read_i32(&m.data, 0) {
                    let data = &m.data[4..];
                    match streams.iter().find(|(id, _)| *id == s).map(|(_, fd)| *fd) {
                        Some(1) if !sink(data) => {
                            out.ending = Ending::Stopped;
                            return Ok(out);
                        }
                        Some(2) => out.stderr.extend_from_slice(data),
                        _ => {}
                    }
                }
            }
            Some(MsgType::ReadOpen) => {
                if let Some(s) = read_i32(&m.data, 0) {
                    let mut p = s.to_ne_bytes().to_vec();
                    p.extend_from_slice(&EBADF.to_ne_bytes());
                    imsg::encode(framing, MsgType::ReadDone as u32, &p, false, &mut answer)
                        .map_err(|e| Error::Protocol(e.to_string()))?;
                }
            }
            Some(MsgType::Exit) => {
                out.status = read_i32(&m.data, 0).unwrap_or(0);
                if m.data.len() > 4 {
                    let msg = &m.data[4..];
                    let msg = msg.strip_suffix(b"\0").unwrap_or(msg);
                    if !msg.is_empty() {
                        out.exit_message = Some(String::from_utf8_lossy(msg).into_owned());
                    }
                }
                got_exit = true;
                break;
            }
            Some(MsgType::Shutdown) | Some(MsgType::Exited) => {
                out.ending = Ending::ServerExited;
                got_exit = true;
                break;
            }
            Some(MsgType::Detach) | Some(MsgType::DetachKill) | Some(MsgType::Exec) => {
                imsg::encode(framing, MsgType::Exiting as u32, &[], false, &mut answer)
                    .map_err(|e| Error::Protocol(e.to_string()))?;
            }
            Some(MsgType::OldStdout) | Some(MsgType::OldStderr) | Some(MsgType::OldStdin) => {
                return Err(Error::TooOld);
            }
            // MSG_SUSPEND must never be answered with MSG_WAKEUP.
            _ => {}
        }
        if !answer.is_empty() && stream.write_all(&answer).await.is_err() {
            break;
        }
    }
    if !got_exit {
        return Err(Error::Closed {
            path: path.to_path_buf(),
            reason: "the connection closed before MSG_EXIT".into(),
        });
    }
    Ok(out)
}

fn read_i32(data: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_ne_bytes(data.get(at..at + 4)?.try_into().ok()?))
}
