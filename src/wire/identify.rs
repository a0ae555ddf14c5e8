//! The bytes of the identify handshake and of `MSG_COMMAND`. Pure.
//!
//! A tmux client identifies itself with a sequence of `MSG_IDENTIFY_*`
//! messages ending in `MSG_IDENTIFY_DONE`, then sends one `MSG_COMMAND`.
//! Several mistakes here kill the user's *whole* tmux server
//! (`tmux-wire-protocol.md` §1.6, §7), so the plan built here always:
//!
//! * sends `MSG_IDENTIFY_TTYNAME` (servers < 3.7 dereference it at DONE);
//! * sends only well-formed payloads (≤ 3.5a calls `fatalx()` otherwise):
//!   strings NUL-terminated and non-empty, fixed-size values exact;
//! * puts `CLIENT_CONTROL` only in a final `MSG_IDENTIFY_LONGFLAGS` that is
//!   written in the same `write()` as `MSG_IDENTIFY_DONE` (servers < 3.7
//!   crash if a half-identified control client goes away or is notified);
//! * sets `CLIENT_UTF8`, and puts only bits 0..=30 in the `int` flags;
//! * never forwards `TMUX` or `TMUX_PANE`;
//! * sends each fd-carrying message on its own, for its own `sendmsg()`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use super::imsg::{self, EncodeError, Framing};
use super::protocol::{CLIENT_CONTROL, MAX_PAYLOAD, MsgType};

/// The terminal name tmuxwire's control clients identify with
/// (`#{client_termname}`), so tmuxwire can tell its own clients from a
/// person's (for example to leave them out of `session_attached`).
pub const CLIENT_TERM: &str = "tmuxwire";

/// What a client tells the server about itself.
#[derive(Clone, Debug)]
pub struct Identity {
    /// All client flags (`CLIENT_*`), including [`CLIENT_CONTROL`] for a
    /// control client. The control bit is held back until the final write.
    pub flags: u64,
    /// The `TERM` name. An empty string is sent as `"unknown"` would be.
    pub term: String,
    /// The working directory (bytes, without NUL). The server keeps it only
    /// if it can `access(X_OK)` it, else it uses the home directory.
    pub cwd: Vec<u8>,
    /// The client pid. tmux names the client `client-<pid>`.
    pub pid: i32,
    /// Environment entries as `NAME=value` byte strings (no NUL).
    pub environ: Vec<Vec<u8>>,
}

impl Identity {
    /// An identity for this process: cwd and pid from the OS, the
    /// environment minus `TMUX`/`TMUX_PANE` and minus entries tmux could
    /// not carry (over 16 KiB, or containing NUL).
    pub fn for_this_process(flags: u64, term: &str) -> Identity {
        let cwd = std::env::current_dir()
            .map(|p| p.as_os_str().as_bytes().to_vec())
            .unwrap_or_else(|_| b"/".to_vec());
        let environ = std::env::vars_os()
            .filter(|(k, _)| k != OsStr::new("TMUX") && k != OsStr::new("TMUX_PANE"))
            .map(|(k, v)| {
                let mut e = k.as_bytes().to_vec();
                e.push(b'=');
                e.extend_from_slice(v.as_bytes());
                e
            })
            .collect();
        Identity {
            flags,
            term: term.to_string(),
            cwd,
            pid: std::process::id() as i32,
            environ,
        }
    }
}

/// One unit of the handshake, in sending order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Bytes to write as they are (one or more whole frames).
    Plain(Vec<u8>),
    /// One frame to send with the control socket's fd attached
    /// (`SCM_RIGHTS`), in its own `sendmsg()`.
    WithFd(Vec<u8>),
}

/// Why a handshake or command could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdentifyError {
    /// A `MSG_COMMAND` over tmux's 16 KiB message limit.
    #[error("tmux command is too long for one message ({0} bytes; the limit is 16368)")]
    CommandTooLong(usize),
    /// A command argument contains a NUL byte, which tmux cannot carry.
    #[error("a tmux command argument contains a NUL byte")]
    Nul,
    /// `MSG_COMMAND` needs at least one argument (argc 0 means
    /// `new-session`).
    #[error("empty tmux command")]
    EmptyCommand,
}

fn frame(framing: Framing, kind: MsgType, data: &[u8], dst: &mut Vec<u8>) {
    // Every payload built here is bounded well below MAX_PAYLOAD (strings
    // are truncated or skipped before this point), so this cannot fail.
    let r = imsg::encode(framing, kind as u32, data, false, dst);
    debug_assert!(r.is_ok());
}

/// A NUL-terminated copy of `s` for a string payload, or `None` if it
/// cannot be one (contains NUL, or too long).
fn cstr(s: &[u8]) -> Option<Vec<u8>> {
    if s.contains(&0) || s.len() + 1 > MAX_PAYLOAD {
        return None;
    }
    let mut v = Vec::with_capacity(s.len() + 1);
    v.extend_from_slice(s);
    v.push(0);
    Some(v)
}

/// The `MSG_COMMAND` payload: `int32 argc` then each argument
/// NUL-terminated (cmd.c: `cmd_pack_argv()`). Arguments are tmux argv
/// elements: the server splits commands on arguments that end in `;`, so
/// an argument ending in `;` is sent with that `;` escaped as `\;`, which
/// the server turns back into the original text (cmd-parse.y:
/// `cmd_parse_from_arguments()`).
///
/// # Errors
///
/// [`IdentifyError`] for an empty argv, a NUL byte or a payload over the
/// limit.
pub fn command_payload<S: AsRef<str>>(argv: &[S]) -> Result<Vec<u8>, IdentifyError> {
    command_list_payload(&[argv])
}

/// The `MSG_COMMAND` payload for several commands run in order, as
/// `tmux a \; b` does: the commands' arguments (escaped as in
/// [`command_payload`]) with a lone `;` argument between commands. tmux
/// stops at the first command that fails.
///
/// # Errors
///
/// As [`command_payload`]; every command must have at least one argument.
pub fn command_list_payload<S: AsRef<str>>(cmds: &[&[S]]) -> Result<Vec<u8>, IdentifyError> {
    if cmds.is_empty() || cmds.iter().any(|c| c.is_empty()) {
        return Err(IdentifyError::EmptyCommand);
    }
    let argc: usize = cmds.iter().map(|c| c.len()).sum::<usize>() + cmds.len() - 1;
    let mut data = (argc as i32).to_ne_bytes().to_vec();
    for (i, argv) in cmds.iter().enumerate() {
        if i > 0 {
            data.extend_from_slice(b";\0");
        }
        for a in argv.iter() {
            let a = a.as_ref().as_bytes();
            if a.contains(&0) {
                return Err(IdentifyError::Nul);
            }
            if let Some(head) = a.strip_suffix(b";") {
                data.extend_from_slice(head);
                data.extend_from_slice(b"\\;");
            } else {
                data.extend_from_slice(a);
            }
            data.push(0);
        }
    }
    if data.len() > MAX_PAYLOAD {
        return Err(IdentifyError::CommandTooLong(data.len()));
    }
    Ok(data)
}

/// The whole handshake as chunks to send in order.
///
/// With `pass_fds`, two [`Chunk::WithFd`] frames (`MSG_IDENTIFY_STDIN` and
/// `MSG_IDENTIFY_STDOUT`) are included: the caller attaches one end of a
/// socket pair to both. The last chunk always holds the final
/// `MSG_IDENTIFY_LONGFLAGS` (with [`CLIENT_CONTROL`] if set), then
/// `MSG_IDENTIFY_DONE`, then `MSG_COMMAND` with `command` (a payload from
/// [`command_payload`] or [`command_list_payload`]), and must go out in
/// one `write()`.
///
/// # Errors
///
/// [`IdentifyError`] if `argv` cannot be encoded.
pub fn handshake(
    framing: Framing,
    id: &Identity,
    pass_fds: bool,
    command: &[u8],
) -> Result<Vec<Chunk>, IdentifyError> {
    let base = id.flags & !CLIENT_CONTROL;
    let mut chunks = Vec::new();

    let mut first = Vec::with_capacity(256);
    // `int` flags: only bits 0..=30, or the server sign-extends bit 31.
    let low = (base & 0x7fff_ffff) as i32;
    frame(
        framing,
        MsgType::IdentifyFlags,
        &low.to_ne_bytes(),
        &mut first,
    );
    frame(
        framing,
        MsgType::IdentifyLongFlags,
        &base.to_ne_bytes(),
        &mut first,
    );
    let term = cstr(id.term.as_bytes()).unwrap_or_else(|| b"unknown\0".to_vec());
    frame(framing, MsgType::IdentifyTerm, &term, &mut first);
    frame(
        framing,
        MsgType::IdentifyFeatures,
        &0i32.to_ne_bytes(),
        &mut first,
    );
    // "" (a lone NUL): tmux then names the client client-<pid>.
    frame(framing, MsgType::IdentifyTtyname, b"\0", &mut first);
    let cwd = cstr(&id.cwd)
        .filter(|c| c.len() > 1)
        .unwrap_or_else(|| b"/\0".to_vec());
    frame(framing, MsgType::IdentifyCwd, &cwd, &mut first);
    chunks.push(Chunk::Plain(first));

    if pass_fds {
        for kind in [MsgType::IdentifyStdin, MsgType::IdentifyStdout] {
            let mut f = Vec::with_capacity(16);
            let r = imsg::encode(framing, kind as u32, &[], true, &mut f);
            debug_assert!(r.is_ok());
            chunks.push(Chunk::WithFd(f));
        }
    }

    let mut middle = Vec::with_capacity(4096);
    frame(
        framing,
        MsgType::IdentifyClientPid,
        &id.pid.to_ne_bytes(),
        &mut middle,
    );
    for e in &id.environ {
        // tmux ignores entries without '='; never send TMUX/TMUX_PANE.
        if !e.contains(&b'=') || e.starts_with(b"TMUX=") || e.starts_with(b"TMUX_PANE=") {
            continue;
        }
        if let Some(c) = cstr(e) {
            frame(framing, MsgType::IdentifyEnviron, &c, &mut middle);
        }
    }
    chunks.push(Chunk::Plain(middle));

    let mut last = Vec::with_capacity(64 + command.len());
    if id.flags & CLIENT_CONTROL != 0 {
        frame(
            framing,
            MsgType::IdentifyLongFlags,
            &id.flags.to_ne_bytes(),
            &mut last,
        );
    }
    frame(framing, MsgType::IdentifyDone, &[], &mut last);
    imsg::encode(framing, MsgType::Command as u32, command, false, &mut last)
        .map_err(|EncodeError::TooLarge(n)| IdentifyError::CommandTooLong(n))?;
    chunks.push(Chunk::Plain(last));
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::protocol::{CLIENT_UTF8, IMSG_HEADER_SIZE};

    fn ident(flags: u64) -> Identity {
        Identity {
            flags,
            term: "screen".into(),
            cwd: b"/tmp".to_vec(),
            pid: 0x37e6,
            environ: vec![
                b"LANG=C.UTF-8".to_vec(),
                b"TMUX=/tmp/x,1,2".to_vec(),
                b"TMUX_PANE=%1".to_vec(),
                b"NOEQUALS".to_vec(),
            ],
        }
    }

    fn kinds(framing: Framing, bytes: &[u8]) -> Vec<u32> {
        imsg::decode_all(framing, bytes)
            .unwrap()
            .0
            .into_iter()
            .map(|f| f.0)
            .collect()
    }

    #[test]
    fn control_handshake_order_and_final_write() {
        let id = ident(CLIENT_CONTROL | CLIENT_UTF8);
        let chunks = handshake(
            Framing::Old,
            &id,
            true,
            &command_payload(&["attach-session"]).unwrap(),
        )
        .unwrap();
        assert_eq!(chunks.len(), 5);
        let Chunk::Plain(first) = &chunks[0] else {
            panic!()
        };
        assert_eq!(
            kinds(Framing::Old, first),
            vec![100, 111, 101, 109, 102, 108]
        );
        // The control bit is not in the early flags.
        let frames = imsg::decode_all(Framing::Old, first).unwrap().0;
        assert_eq!(frames[0].3, (CLIENT_UTF8 as i32).to_ne_bytes());
        assert_eq!(frames[1].3, CLIENT_UTF8.to_ne_bytes());
        assert_eq!(frames[4].3, b"\0");
        assert!(matches!(&chunks[1], Chunk::WithFd(f) if kinds(Framing::Old, f) == vec![104]));
        assert!(matches!(&chunks[2], Chunk::WithFd(f) if kinds(Framing::Old, f) == vec![110]));
        let Chunk::Plain(middle) = &chunks[3] else {
            panic!()
        };
        let frames = imsg::decode_all(Framing::Old, middle).unwrap().0;
        assert_eq!(
            frames.iter().map(|f| f.0).collect::<Vec<_>>(),
            vec![107, 105]
        );
        assert_eq!(frames[1].3, b"LANG=C.UTF-8\0");
        let Chunk::Plain(last) = &chunks[4] else {
            panic!()
        };
        let frames = imsg::decode_all(Framing::Old, last).unwrap().0;
        assert_eq!(
            frames.iter().map(|f| f.0).collect::<Vec<_>>(),
            vec![111, 106, 200]
        );
        assert_eq!(frames[0].3, (CLIENT_CONTROL | CLIENT_UTF8).to_ne_bytes());
    }

    #[test]
    fn command_client_has_no_fds_or_control() {
        let chunks = handshake(
            Framing::New,
            &ident(CLIENT_UTF8),
            false,
            &command_payload(&["list-sessions"]).unwrap(),
        )
        .unwrap();
        assert!(chunks.iter().all(|c| matches!(c, Chunk::Plain(_))));
        let Chunk::Plain(last) = chunks.last().unwrap() else {
            panic!()
        };
        assert_eq!(kinds(Framing::New, last), vec![106, 200]);
    }

    #[test]
    fn command_payload_escapes_trailing_semicolon() {
        let p = command_payload(&["send-keys", "echo one;", "a\\;", ";"]).unwrap();
        assert_eq!(&p[..4], &4i32.to_ne_bytes());
        assert_eq!(&p[4..], b"send-keys\0echo one\\;\0a\\\\;\0\\;\0");
        assert_eq!(
            command_payload::<&str>(&[]),
            Err(IdentifyError::EmptyCommand)
        );
        assert_eq!(command_payload(&["a\0b"]), Err(IdentifyError::Nul));
        let p = command_list_payload(&[&["a", "x;"][..], &["b"][..]]).unwrap();
        assert_eq!(&p[..4], &4i32.to_ne_bytes());
        assert_eq!(&p[4..], b"a\0x\\;\0;\0b\0");
        assert!(command_list_payload::<&str>(&[&["a"][..], &[][..]]).is_err());
        let long = "x".repeat(MAX_PAYLOAD);
        assert!(matches!(
            command_payload(&[long]),
            Err(IdentifyError::CommandTooLong(_))
        ));
    }

    #[test]
    fn strings_are_well_formed() {
        let mut id = ident(CLIENT_UTF8);
        id.term = String::new();
        id.cwd = Vec::new();
        let chunks =
            handshake(Framing::Old, &id, false, &command_payload(&["x"]).unwrap()).unwrap();
        let Chunk::Plain(first) = &chunks[0] else {
            panic!()
        };
        for (kind, _, _, data) in imsg::decode_all(Framing::Old, first).unwrap().0 {
            if [101, 102, 108].contains(&kind) {
                assert!(!data.is_empty() && data.ends_with(b"\0"), "{kind}");
            }
            assert!(data.len() + IMSG_HEADER_SIZE <= 16384);
        }
    }
}
