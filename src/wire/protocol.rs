//! Constants of tmux's client/server protocol, mirroring `tmux-protocol.h`
//! and the `CLIENT_*` flags of `tmux.h`.
//!
//! Values were checked against tmux 3.2 … master (`next-3.8`); see
//! `tmux-wire-protocol.md` §1.4 and §1.5.

/// The protocol version carried in the low 8 bits of every imsg `peerid`.
///
/// It has been 8 in every release from 1.9 to master, so it never tells
/// versions apart; the imsg header layout does (see [`Framing`]).
///
/// [`Framing`]: super::imsg::Framing
pub const PROTOCOL_VERSION: u32 = 8;

/// Size of an imsg header in bytes (both layouts).
pub const IMSG_HEADER_SIZE: usize = 16;

/// Largest imsg, header included, in bytes (`MAX_IMSGSIZE`).
pub const MAX_IMSGSIZE: usize = 16384;

/// Largest imsg payload in bytes.
pub const MAX_PAYLOAD: usize = MAX_IMSGSIZE - IMSG_HEADER_SIZE;

/// Message types (`enum msgtype` in `tmux-protocol.h`).
///
/// Unknown values are kept as raw `u32`s by the decoder; this enum only
/// names the ones tmuxwire sends or handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum MsgType {
    /// S→C: wrong protocol version; the server's version is in `peerid`.
    Version = 12,
    /// C→S: `int32` client flags (low 31 bits only; the server sign-extends).
    IdentifyFlags = 100,
    /// C→S: `$TERM`, NUL-terminated.
    IdentifyTerm = 101,
    /// C→S: tty name, NUL-terminated. Mandatory: servers < 3.7 crash at
    /// `MSG_IDENTIFY_DONE` without it.
    IdentifyTtyname = 102,
    /// C→S: empty payload plus the stdin fd (SCM_RIGHTS).
    IdentifyStdin = 104,
    /// C→S: one `NAME=value` environment entry, NUL-terminated.
    IdentifyEnviron = 105,
    /// C→S: end of identification.
    IdentifyDone = 106,
    /// C→S: the client's pid as `int32`.
    IdentifyClientPid = 107,
    /// C→S: working directory, NUL-terminated.
    IdentifyCwd = 108,
    /// C→S (3.2+): `int32` terminal-feature bitmask.
    IdentifyFeatures = 109,
    /// C→S (3.2+): empty payload plus the stdout fd (SCM_RIGHTS).
    IdentifyStdout = 110,
    /// C→S (3.2+): `uint64` client flags.
    IdentifyLongFlags = 111,
    /// C→S: `int32 argc` followed by `argc` NUL-terminated arguments.
    Command = 200,
    /// S→C: detach; payload is the session name. Answer with `Exiting`.
    Detach = 201,
    /// S→C: like `Detach` (the real client also SIGHUPs its parent).
    DetachKill = 202,
    /// S→C: `int32` exit status, optionally followed by a NUL-terminated message.
    Exit = 203,
    /// S→C: answer to `Exiting`.
    Exited = 204,
    /// C→S: the client is exiting (answer to `Detach`).
    Exiting = 205,
    /// S→C: lock the terminal (never sent to control clients).
    Lock = 206,
    /// S→C: the client is attached (never sent to control clients).
    Ready = 207,
    /// S→C: the server is exiting.
    Shutdown = 210,
    /// S→C (≤ 3.0 as `MSG_STDERR`): a server this old is refused.
    OldStderr = 211,
    /// S→C (≤ 3.0 as `MSG_STDIN`).
    OldStdin = 212,
    /// S→C (≤ 3.0 as `MSG_STDOUT`).
    OldStdout = 213,
    /// S→C: `suspend-client`. Never answer with `Wakeup`: for a control
    /// client that crashes the server (all versions).
    Suspend = 214,
    /// C→S: never sent by tmuxwire (see `Suspend`).
    Wakeup = 216,
    /// S→C: `detach-client -E`; treated as an exit.
    Exec = 217,
    /// S→C (3.2+): `uint64` client flags after a change.
    Flags = 218,
    /// S→C (3.1+): `{int32 stream; int32 fd}` + path; answer `ReadDone`.
    ReadOpen = 300,
    /// C→S: `{int32 stream}` + data.
    Read = 301,
    /// C→S: `{int32 stream; int32 error}`.
    ReadDone = 302,
    /// S→C (3.1+): `{int32 stream; int32 fd; int32 flags}` + path; answer `WriteReady`.
    WriteOpen = 303,
    /// S→C: `{int32 stream}` + data.
    Write = 304,
    /// C→S: `{int32 stream; int32 error}`.
    WriteReady = 305,
    /// S→C: `{int32 stream}`.
    WriteClose = 306,
    /// S→C (3.4+): `{int32 stream}`.
    ReadCancel = 307,
}

impl MsgType {
    /// The message type for a raw value, if tmuxwire knows it.
    pub fn from_u32(v: u32) -> Option<MsgType> {
        use MsgType::*;
        Some(match v {
            12 => Version,
            100 => IdentifyFlags,
            101 => IdentifyTerm,
            102 => IdentifyTtyname,
            104 => IdentifyStdin,
            105 => IdentifyEnviron,
            106 => IdentifyDone,
            107 => IdentifyClientPid,
            108 => IdentifyCwd,
            109 => IdentifyFeatures,
            110 => IdentifyStdout,
            111 => IdentifyLongFlags,
            200 => Command,
            201 => Detach,
            202 => DetachKill,
            203 => Exit,
            204 => Exited,
            205 => Exiting,
            206 => Lock,
            207 => Ready,
            210 => Shutdown,
            211 => OldStderr,
            212 => OldStdin,
            213 => OldStdout,
            214 => Suspend,
            216 => Wakeup,
            217 => Exec,
            218 => Flags,
            300 => ReadOpen,
            301 => Read,
            302 => ReadDone,
            303 => WriteOpen,
            304 => Write,
            305 => WriteReady,
            306 => WriteClose,
            307 => ReadCancel,
            _ => return None,
        })
    }
}

/// `CLIENT_READONLY`: only read-only commands are allowed.
pub const CLIENT_READONLY: u64 = 0x800;
/// `CLIENT_CONTROL`: a control-mode client (`tmux -C`).
pub const CLIENT_CONTROL: u64 = 0x2000;
/// `CLIENT_UTF8`: without it the server replaces non-ASCII output with `_`.
pub const CLIENT_UTF8: u64 = 0x10000;
/// `CLIENT_IGNORESIZE` (3.2+): never count this client for window sizes.
pub const CLIENT_IGNORESIZE: u64 = 0x20000;
/// `CLIENT_CONTROL_NOOUTPUT`: no `%output` notifications (`-f no-output`).
pub const CLIENT_CONTROL_NOOUTPUT: u64 = 0x400_0000;

/// `errno` value tmuxwire answers file requests with (`EBADF`).
pub const EBADF: i32 = libc::EBADF;
