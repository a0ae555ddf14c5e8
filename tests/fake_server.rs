//! The client's side of the protocol checked byte by byte against a fake
//! tmux server: what real servers cannot show (versions older than 3.2, a
//! protocol mismatch, tmux ≤ 3.0) or what must never happen on the wire
//! (a handshake out of the crash-safe order, `MSG_WAKEUP` after
//! `MSG_SUSPEND`, an unanswered file request).

use std::io::{IoSliceMut, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
use tmuxwire::control::{Client, ClientOptions, Command};
use tmuxwire::wire::imsg::{self, Framing};
use tmuxwire::wire::protocol::{CLIENT_CONTROL, CLIENT_UTF8, MsgType};
use tmuxwire::wire::{self, ControlOptions, EndReason, Error};

use crate::support::{unique_name, wait_until_async};

const T: Duration = Duration::from_secs(10);

/// A frame the fake server received, with the recv() call it came in and
/// whether an fd rode with that call.
#[derive(Clone, Debug)]
struct Got {
    kind: u32,
    data: Vec<u8>,
    read: usize,
    fd: Option<RawFd>,
}

/// One accepted connection: reads whole frames with recvmsg (keeping any
/// passed fd), writes frames.
struct Peer {
    stream: UnixStream,
    framing: Framing,
    buf: Vec<u8>,
    reads: usize,
    pending_fd: Option<RawFd>,
}

impl Peer {
    fn new(stream: UnixStream, framing: Framing) -> Peer {
        stream.set_read_timeout(Some(T)).unwrap();
        Peer {
            stream,
            framing,
            buf: Vec::new(),
            reads: 0,
            pending_fd: None,
        }
    }

    /// The next frame, or None at end of stream.
    fn next(&mut self) -> Option<Got> {
        loop {
            if let Ok(Some((f, n))) = imsg::decode(self.framing, &self.buf) {
                let got = Got {
                    kind: f.kind,
                    data: f.data.to_vec(),
                    read: self.reads,
                    fd: if f.has_fd {
                        self.pending_fd.take()
                    } else {
                        None
                    },
                };
                self.buf.drain(..n);
                return Some(got);
            }
            let mut chunk = [0u8; 65536];
            let mut cmsg = nix::cmsg_space!([RawFd; 2]);
            let mut iov = [IoSliceMut::new(&mut chunk)];
            let msg = recvmsg::<()>(
                self.stream.as_raw_fd(),
                &mut iov,
                Some(&mut cmsg),
                MsgFlags::empty(),
            )
            .ok()?;
            for c in msg.cmsgs().ok()? {
                if let ControlMessageOwned::ScmRights(fds) = c {
                    self.pending_fd = fds.first().copied();
                }
            }
            let n = msg.bytes;
            if n == 0 {
                return None;
            }
            self.reads += 1;
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    fn send(&mut self, kind: MsgType, data: &[u8]) {
        let f = imsg::encode_vec(self.framing, kind as u32, data, false).unwrap();
        let _ = self.stream.write_all(&f);
    }

    fn send_peerid(&mut self, kind: MsgType, peerid: u32) {
        let mut f = imsg::encode_vec(self.framing, kind as u32, &[], false).unwrap();
        f[8..12].copy_from_slice(&peerid.to_ne_bytes());
        let _ = self.stream.write_all(&f);
    }

    /// Reads frames up to and including `MSG_COMMAND`.
    fn handshake(&mut self) -> Vec<Got> {
        let mut frames = Vec::new();
        while let Some(g) = self.next() {
            let done = g.kind == MsgType::Command as u32;
            frames.push(g);
            if done {
                break;
            }
        }
        frames
    }

    /// Opens the client's stdout as file stream `stream` (MSG_WRITE_OPEN
    /// with fd 1 and path `-`, as tmux's file.c does) and checks that
    /// MSG_WRITE_READY answers it with `errno` (0: opened).
    fn open_stdout(&mut self, stream: i32, errno: i32) {
        let mut open = stream.to_ne_bytes().to_vec();
        open.extend_from_slice(&1i32.to_ne_bytes());
        open.extend_from_slice(&0i32.to_ne_bytes());
        open.extend_from_slice(b"-\0");
        self.send(MsgType::WriteOpen, &open);
        let ready = self.next().expect("MSG_WRITE_READY");
        assert_eq!(ready.kind, MsgType::WriteReady as u32);
        assert_eq!(
            ready.data,
            [stream.to_ne_bytes(), errno.to_ne_bytes()].concat()
        );
    }

    /// Answers a one-shot command like a server printing `stdout` and
    /// exiting with `status`.
    fn print_and_exit(&mut self, stdout: &str, status: i32) {
        // Wait for MSG_WRITE_READY before writing, as tmux does.
        self.open_stdout(1, 0);
        let mut w = 1i32.to_ne_bytes().to_vec();
        w.extend_from_slice(stdout.as_bytes());
        self.send(MsgType::Write, &w);
        self.send(MsgType::Exit, &status.to_ne_bytes());
    }
}

/// A listening fake server in a temporary directory.
struct Fake {
    _dir: tempfile::TempDir,
    path: PathBuf,
    listener: UnixListener,
}

impl Fake {
    fn new() -> Fake {
        let dir = tempfile::Builder::new()
            .prefix(&unique_name("tw-fake"))
            .tempdir()
            .unwrap();
        let path = dir.path().join("s");
        let listener = UnixListener::bind(&path).unwrap();
        Fake {
            _dir: dir,
            path,
            listener,
        }
    }

    fn accept(&self, framing: Framing) -> Peer {
        let (s, _) = self.listener.accept().unwrap();
        Peer::new(s, framing)
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn probe(path: &Path) -> Result<wire::TmuxVersion, Error> {
    rt().block_on(wire::probe_version(path, T))
}

#[test]
fn versions_older_than_3_2_are_refused_clearly() {
    let fake = Fake::new();
    let server = thread::scope(|s| {
        let h = s.spawn(|| {
            let mut p = fake.accept(Framing::Old);
            let frames = p.handshake();
            // The probe asks for the version, passing no fds.
            let cmd = frames.last().unwrap();
            assert!(
                cmd.data.ends_with(b"display-message\0-p\0#{version}\0"),
                "{:?}",
                cmd.data
            );
            assert!(
                frames.iter().all(|f| f.fd.is_none()),
                "the probe passes no fd"
            );
            p.print_and_exit("3.1c\n", 0);
        });
        let r = probe(&fake.path);
        h.join().unwrap();
        r
    });
    let e = server.unwrap_err().to_string();
    assert_eq!(e, "unsupported tmux version 3.1c (need ≥ 3.2)");
}

#[test]
fn a_protocol_mismatch_and_tmux_3_0_are_refused() {
    let fake = Fake::new();
    let e = thread::scope(|s| {
        s.spawn(|| {
            let mut p = fake.accept(Framing::Old);
            p.handshake();
            p.send_peerid(MsgType::Version, 7);
        });
        probe(&fake.path)
    })
    .unwrap_err();
    assert!(matches!(e, Error::ProtocolVersion { server: 7 }), "{e}");

    let e = thread::scope(|s| {
        s.spawn(|| {
            let mut p = fake.accept(Framing::Old);
            p.handshake();
            p.send(MsgType::OldStdout, &[0; 16]);
        });
        probe(&fake.path)
    })
    .unwrap_err();
    assert!(matches!(e, Error::TooOld), "{e}");
    assert!(e.to_string().contains("need ≥ 3.2"), "{e}");
}

#[test]
fn a_server_that_never_answers_times_out() {
    let fake = Fake::new();
    let r = thread::scope(|s| {
        s.spawn(|| {
            let mut p = fake.accept(Framing::Old);
            p.handshake();
            // Say nothing; keep the connection open until the client gives up.
            let _ = p.next();
        });
        rt().block_on(wire::probe_version(&fake.path, Duration::from_millis(300)))
    });
    assert!(matches!(r, Err(Error::Timeout { .. })), "{r:?}");
}

/// The control handshake in the crash-safe order, in both imsg layouts;
/// then the server side of a session: `MSG_SUSPEND` (never answered with
/// `MSG_WAKEUP`), file requests (refused, never left hanging), and a
/// detach (answered with `MSG_EXITING`, reported as the end reason).
#[test]
fn control_handshake_and_server_messages() {
    for (version, framing) in [("3.3a", Framing::Old), ("3.7c", Framing::New)] {
        let fake = Fake::new();
        let (tx, rx) = mpsc::channel::<Vec<Got>>();
        thread::scope(|s| {
            s.spawn(|| {
                // 1. The version probe.
                let mut p = fake.accept(Framing::Old);
                p.handshake();
                p.print_and_exit(&format!("{version}\n"), 0);
                // 2. The control connection.
                let mut p = fake.accept(framing);
                let frames = p.handshake();
                let fd = frames
                    .iter()
                    .find(|f| f.kind == MsgType::IdentifyStdout as u32)
                    .and_then(|f| f.fd)
                    .expect("stdout fd passed");
                // SAFETY: the fd was just received with SCM_RIGHTS and is owned by nobody else.
                let mut ctl = UnixStream::from(unsafe { OwnedFd::from_raw_fd(fd) });
                ctl.write_all(b"%begin 1 10 0\n%end 1 10 0\n%session-changed $0 main\n")
                    .unwrap();
                tx.send(frames).unwrap();

                // A command from the client, answered on the control channel.
                ctl.set_read_timeout(Some(T)).unwrap();
                p.send(MsgType::Suspend, &[]);
                let mut line = Vec::new();
                let mut b = [0u8; 1];
                while ctl.read(&mut b).unwrap_or(0) == 1 && b[0] != b'\n' {
                    line.push(b[0]);
                }
                assert_eq!(line, b"display-message -p hello");
                ctl.write_all(b"%begin 1 11 1\nhello\n%end 1 11 1\n")
                    .unwrap();

                // File requests must be refused.
                let mut ro = 5i32.to_ne_bytes().to_vec();
                ro.extend_from_slice(&0i32.to_ne_bytes());
                ro.extend_from_slice(b"/etc/passwd\0");
                p.send(MsgType::ReadOpen, &ro);
                let done = p.next().expect("MSG_READ_DONE");
                assert_eq!(
                    done.kind,
                    MsgType::ReadDone as u32,
                    "after MSG_SUSPEND: {:?}",
                    done.kind
                );
                assert_eq!(
                    done.data,
                    [5i32.to_ne_bytes(), libc::EBADF.to_ne_bytes()].concat()
                );
                p.open_stdout(6, libc::EBADF);

                // Detach: the client must answer MSG_EXITING.
                p.send(MsgType::Detach, b"main\0");
                let exiting = p.next().expect("MSG_EXITING");
                assert_eq!(exiting.kind, MsgType::Exiting as u32);
                p.send(MsgType::Exited, &[]);
                drop(ctl);
                // Nothing else may follow (in particular no MSG_WAKEUP).
                if let Some(g) = p.next() {
                    assert_ne!(
                        g.kind,
                        MsgType::Wakeup as u32,
                        "MSG_WAKEUP crashes control clients' servers"
                    );
                    panic!("unexpected message {} after MSG_EXITED", g.kind);
                }
            });

            let rt = rt();
            rt.block_on(async {
                let transport = wire::connect_control(&fake.path, &ControlOptions::default())
                    .await
                    .unwrap();
                assert_eq!(transport.framing, framing);
                let client = Client::start(transport, ClientOptions::default())
                    .await
                    .unwrap();
                assert_eq!(
                    client.attached_session().map(|(id, _)| id.to_string()),
                    Some("$0".into())
                );
                let b = client
                    .command(&Command::new("display-message").arg("-p").arg("hello"))
                    .await
                    .unwrap();
                assert_eq!(b.body, b"hello\n");
                let reason =
                    wait_until_async("the detach is noticed", || async { client.end_reason() })
                        .await;
                assert_eq!(reason, EndReason::Detached("main".into()).to_string());
            });
        });

        let frames = rx.recv_timeout(T).unwrap();
        let kinds: Vec<u32> = frames.iter().map(|f| f.kind).collect();
        let k = |m: MsgType| m as u32;
        // The order client.c sends, with the control flag held back.
        assert_eq!(
            kinds[..8],
            [
                k(MsgType::IdentifyFlags),
                k(MsgType::IdentifyLongFlags),
                k(MsgType::IdentifyTerm),
                k(MsgType::IdentifyFeatures),
                k(MsgType::IdentifyTtyname),
                k(MsgType::IdentifyCwd),
                k(MsgType::IdentifyStdin),
                k(MsgType::IdentifyStdout),
            ],
            "{version}"
        );
        let flags = |f: &Got| u64::from_ne_bytes(f.data[..8].try_into().unwrap());
        assert_eq!(
            flags(&frames[1]) & CLIENT_CONTROL,
            0,
            "no CLIENT_CONTROL before the end"
        );
        assert_ne!(flags(&frames[1]) & CLIENT_UTF8, 0, "CLIENT_UTF8 always");
        assert_eq!(frames[4].data, b"\0", "TTYNAME sent, empty");
        assert!(
            frames[6].fd.is_some() && frames[7].fd.is_some(),
            "stdin and stdout carry fds"
        );
        for f in &frames {
            if f.kind == MsgType::IdentifyEnviron as u32 {
                assert!(!f.data.starts_with(b"TMUX=") && !f.data.starts_with(b"TMUX_PANE="));
                assert!(f.data.ends_with(b"\0") && f.data.contains(&b'='));
            }
        }
        let n = frames.len();
        assert_eq!(
            kinds[n - 3..],
            [
                k(MsgType::IdentifyLongFlags),
                k(MsgType::IdentifyDone),
                k(MsgType::Command)
            ],
            "{version}"
        );
        let last_flags = flags(&frames[n - 3]);
        assert_ne!(
            last_flags & CLIENT_CONTROL,
            0,
            "CLIENT_CONTROL in the final LONGFLAGS"
        );
        assert_eq!(
            frames[n - 3].read,
            frames[n - 2].read,
            "final LONGFLAGS and DONE arrive in one read"
        );
        assert!(
            frames[n - 1]
                .data
                .windows(15)
                .any(|w| w == b"attach-session\0"),
            "an attaching command"
        );
    }
}
