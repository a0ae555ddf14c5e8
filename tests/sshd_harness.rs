//! The throwaway sshd of `support::sshd` works as the ssh tests need it to: commands run as
//! the login user; every test tmux binary's server, started as that user, answers over ssh;
//! a bad key and an unknown host key are refused the way OpenSSH reports them; `MaxSessions`
//! is enforced on a ControlMaster; a stalled link is noticed by keepalives (both ways) and a
//! resumed one carries on; a partition also holds off new logins; killed connections drop;
//! dropping the sshd ends everything it started.
//!
//! Every test skips (loudly) when sshd is unavailable, unless `TMUXWIRE_REQUIRE_SSHD=1`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::sshd::{Sshd, proc_state, sh_quote};
use crate::support::{DEADLINE, TestServer, tmux_bins, wait_until};

/// A spawned `ssh` whose stdout lines arrive on a channel; killed and reaped on drop.
struct Ssh {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Ssh {
    /// Spawns `cmd` (an `ssh …` from [`Sshd::ssh_command`]) with stdout and stderr piped.
    fn spawn(mut cmd: std::process::Command) -> Ssh {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ssh");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ssh { child, lines }
    }

    /// Waits (up to [`DEADLINE`]) for the next stdout line and checks that it is `want`.
    fn expect_line(&mut self, want: &str) {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => assert_eq!(line, want, "ssh's next stdout line"),
            Err(e) => panic!(
                "no stdout line {want:?} from ssh within {DEADLINE:?} ({e}); status {:?}, \
                 stderr: {}",
                self.child.try_wait(),
                self.stderr_if_exited()
            ),
        }
    }

    /// The exit status, if ssh has exited.
    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("wait for ssh")
    }

    /// Waits (up to `timeout`) for ssh to exit; returns its status.
    fn wait_exit(&mut self, what: &str, timeout: Duration) -> ExitStatus {
        wait_until(what, timeout, || self.exited())
    }

    /// ssh's stderr, read to the end; only call it once ssh has exited (else it blocks).
    fn stderr_if_exited(&mut self) -> String {
        if self.exited().is_none() {
            return "<ssh still running>".to_string();
        }
        let mut err = String::new();
        if let Some(mut s) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut s, &mut err);
        }
        err
    }

    /// ssh's stdin (when spawned with `Stdio::piped()` stdin).
    fn stdin(&mut self) -> &mut ChildStdin {
        self.child.stdin.as_mut().expect("piped stdin")
    }
}

impl Drop for Ssh {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `out`'s stdout and stderr, for assertion messages.
fn shown(out: &std::process::Output) -> String {
    format!(
        "status {}, stdout {:?}, stderr {:?}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn ssh_runs_a_command_as_the_login_user() {
    let Some(sshd) = Sshd::start() else { return };
    let out = sshd.ssh("echo ok; id -un");
    assert!(out.status.success(), "ssh echo: {}", shown(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("ok\n{}\n", sshd.user()),
        "{}",
        shown(&out)
    );
    // Nothing else is printed (no motd, no rc-file chatter, no "Permanently added" warning).
    assert!(out.stderr.is_empty(), "ssh stderr: {}", shown(&out));
    // The remote status comes back as ssh's.
    assert_eq!(sshd.ssh("exit 7").status.code(), Some(7));
    // A tmux run there without -S/-L finds a private directory, not the default socket's.
    let out = sshd.ssh("printf %s \"$TMUX_TMPDIR\"");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        sshd.remote_tmpdir().display().to_string(),
        "{}",
        shown(&out)
    );
    // A shell run there keeps its history in a private home, not in the login user's.
    let out = sshd
        .ssh("printf '%s|%s|%s|%s' \"$HOME\" \"$XDG_DATA_HOME\" \"$ZDOTDIR\" \"$LESSHISTFILE\"");
    let home = sshd.remote_home().display().to_string();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{home}|{home}/.local/share|{home}|-"),
        "{}",
        shown(&out)
    );
}

#[test]
fn every_tmux_binary_is_reachable_over_ssh() {
    let Some(sshd) = Sshd::start() else { return };
    for bin in tmux_bins() {
        let mut server = TestServer::builder(&bin)
            .owner(sshd.owner_for_servers())
            .start();
        // The test process talks to it directly...
        let here = server.tmux_ok(&["display", "-p", "#{version}"]);
        assert_eq!(here.trim(), bin.label, "tmux {}: direct", bin.label);
        assert!(server.capture("main:", &[]).contains('$'), "the shell runs");
        // Its shells have a home of the owner's own in the socket's directory.
        let dir = server.socket.parent().expect("the socket's directory");
        let home = match sshd.owner_for_servers() {
            Some(_) => dir.join("home"),
            None => crate::support::private_home(),
        };
        server.tmux_ok(&["send-keys", "-t", "main:", "-l", "echo \"home=[$HOME]\""]);
        server.tmux_ok(&["send-keys", "-t", "main:", "Enter"]);
        server.wait_for_text(
            "main:",
            &format!("home=[{}]", home.display()),
            crate::support::DEADLINE,
        );
        // ...and the login user over ssh, with the same binary path (same machine).
        let cmd = format!(
            "{} -S {} display -p '#{{version}} #{{pid}}'",
            sh_quote(&bin.path.display().to_string()),
            sh_quote(&server.socket.display().to_string())
        );
        let out = sshd.ssh(&cmd);
        assert!(
            out.status.success(),
            "tmux {} over ssh ({cmd}): {}",
            bin.label,
            shown(&out)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("{} {}", bin.label, server.server_pid()),
            "tmux {} over ssh: {}",
            bin.label,
            shown(&out)
        );
        // The server runs as the owner asked for.
        let uid = |pid: u32| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next())
                .map(str::to_string)
                .expect("a Uid line")
        };
        let want = nix::unistd::User::from_name(sshd.user())
            .expect("look up the ssh user")
            .expect("the ssh user exists")
            .uid
            .to_string();
        assert_eq!(
            uid(server.server_pid()),
            want,
            "tmux {}: server uid",
            bin.label
        );
        if sshd.owner_for_servers().is_some() {
            use std::os::unix::fs::MetadataExt;
            let dir = server.socket.parent().expect("the socket's directory");
            let meta = std::fs::metadata(dir).expect("stat the socket's directory");
            assert_eq!(meta.uid().to_string(), want, "socket dir owner");
            assert_eq!(meta.mode() & 0o777, 0o700, "socket dir mode");
        }
        // The test process can still stop it.
        server.kill();
        assert!(!server.is_alive(), "tmux {}: killed", bin.label);
    }
}

#[test]
fn a_bad_key_and_an_unknown_host_key_are_refused() {
    let Some(sshd) = Sshd::start() else { return };
    let run = |alias: &str| {
        sshd.ssh_command()
            .args(["-T", alias, "echo logged-in"])
            .output()
            .expect("run ssh")
    };
    let out = run(sshd.badkey_alias());
    assert_eq!(out.status.code(), Some(255), "bad key: {}", shown(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Permission denied"),
        "bad key: {}",
        shown(&out)
    );
    let out = run(sshd.unknownhost_alias());
    assert_eq!(
        out.status.code(),
        Some(255),
        "unknown host: {}",
        shown(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Host key verification failed"),
        "unknown host: {}",
        shown(&out)
    );
    assert!(out.stdout.is_empty(), "unknown host: {}", shown(&out));
    // The refusals leave the good alias working.
    let out = run(sshd.alias());
    assert!(out.status.success(), "good alias: {}", shown(&out));
}

#[test]
fn max_sessions_refuses_a_second_multiplexed_session() {
    let Some(sshd) = Sshd::builder().max_sessions(1).start() else {
        return;
    };
    let control = sshd.dir().join("cm");
    let path = format!("ControlPath={}", control.display());
    // A mux client whose session is refused falls back to a connection of its own; the
    // failing ProxyCommand turns that fallback into an error (cmux does the same).
    let mux = || {
        let mut cmd = sshd.ssh_command();
        cmd.args([
            "-o",
            "ControlMaster=no",
            "-o",
            &path,
            "-o",
            "ProxyCommand=/bin/false",
        ]);
        cmd
    };
    // The master: one TCP connection, no session of its own (-N).
    let mut master_cmd = sshd.ssh_command();
    master_cmd.args([
        "-M",
        "-N",
        "-o",
        &path,
        "-o",
        "ControlPersist=no",
        sshd.alias(),
    ]);
    let _master = Ssh::spawn(master_cmd);
    wait_until("the ControlMaster answers -O check", DEADLINE, || {
        let out = mux()
            .args(["-O", "check", sshd.alias()])
            .output()
            .expect("ssh -O check");
        out.status.success().then_some(())
    });

    let mut first_cmd = mux();
    first_cmd
        .args(["-T", sshd.alias(), "echo up; read line; echo bye"])
        .stdin(Stdio::piped());
    let mut first = Ssh::spawn(first_cmd);
    first.expect_line("up");

    let out = mux()
        .args(["-T", sshd.alias(), "echo second"])
        .output()
        .expect("second mux session");
    assert_eq!(
        out.status.code(),
        Some(255),
        "second session: {}",
        shown(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Session open refused"),
        "second session: {}",
        shown(&out)
    );
    assert!(out.stdout.is_empty(), "second session ran: {}", shown(&out));
    assert_eq!(
        sshd.connection_count(),
        1,
        "all over the master's connection"
    );

    // Once the first session has ended, its slot is free again. (A mux client that is merely
    // killed frees nothing: sshd keeps the session until its remote command exits.)
    writeln!(first.stdin(), "done").expect("write to ssh");
    first.expect_line("bye");
    let status = first.wait_exit("the first session ends", DEADLINE);
    assert!(status.success(), "stderr: {}", first.stderr_if_exited());
    wait_until(
        "a mux session opens after the first ended",
        DEADLINE,
        || {
            let out = mux()
                .args(["-T", sshd.alias(), "echo again"])
                .output()
                .expect("mux session");
            (out.status.success() && out.stdout == b"again\n").then_some(())
        },
    );
}

#[test]
fn a_stall_is_noticed_by_server_alive_and_resume_carries_on() {
    let Some(sshd) = Sshd::start() else { return };
    // A: keepalives every second, gives up after 2 unanswered ones.
    let mut a_cmd = sshd.ssh_command();
    a_cmd.args([
        "-o",
        "ServerAliveInterval=1",
        "-o",
        "ServerAliveCountMax=2",
        "-T",
        sshd.alias(),
        "echo up; exec sleep 30",
    ]);
    let mut a = Ssh::spawn(a_cmd);
    // B: no keepalive; it waits for a line on stdin.
    let mut b_cmd = sshd.ssh_command();
    b_cmd
        .args(["-T", sshd.alias(), "echo up; read line; echo \"got $line\""])
        .stdin(Stdio::piped());
    let mut b = Ssh::spawn(b_cmd);
    a.expect_line("up");
    b.expect_line("up");
    assert_eq!(sshd.connection_count(), 2);

    let stall = sshd.stall();
    let stalled = Instant::now();
    assert!(!stall.pids().is_empty());
    for pid in stall.pids() {
        assert_eq!(proc_state(pid), Some('T'), "sshd pid {pid} is stopped");
    }
    let status = a.wait_exit(
        "ssh with ServerAlive gives up on the stalled link",
        DEADLINE,
    );
    let took = stalled.elapsed();
    assert_eq!(status.code(), Some(255), "stderr: {}", a.stderr_if_exited());
    assert!(
        took < Duration::from_secs(10),
        "ServerAliveInterval=1 x 2 took {took:?}"
    );
    // Without keepalives, nothing notices.
    assert!(b.exited().is_none(), "ssh without ServerAlive is still up");

    stall.resume();
    writeln!(b.stdin(), "hello").expect("write to ssh");
    b.expect_line("got hello");
    let status = b.wait_exit("ssh ends with its remote command", DEADLINE);
    assert!(status.success(), "stderr: {}", b.stderr_if_exited());
    // The listener was never stopped: new logins work.
    assert!(sshd.ssh("true").status.success());
}

#[test]
fn a_partition_blocks_new_logins_until_resumed() {
    let Some(sshd) = Sshd::start() else { return };
    let partition = sshd.partition();
    assert!(
        partition.pids().contains(&sshd.pid()),
        "the listener is stopped"
    );
    let started = Instant::now();
    let out = sshd
        .ssh_command()
        .args(["-o", "ConnectTimeout=1", "-T", sshd.alias(), "true"])
        .output()
        .expect("run ssh");
    assert_eq!(out.status.code(), Some(255), "{}", shown(&out));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "ConnectTimeout=1 took {:?}",
        started.elapsed()
    );
    partition.resume();
    let out = sshd.ssh("echo back");
    assert_eq!(out.stdout, b"back\n", "{}", shown(&out));
}

#[test]
fn client_alive_interval_drops_a_silent_client() {
    let Some(sshd) = Sshd::builder().client_alive_interval(1).start() else {
        return;
    };
    let mut cmd = sshd.ssh_command();
    cmd.args(["-T", sshd.alias(), "echo up; exec sleep 30"]);
    let mut ssh = Ssh::spawn(cmd);
    ssh.expect_line("up");
    assert_eq!(sshd.connection_count(), 1);
    let pid = libc::pid_t::try_from(ssh.child.id()).expect("a pid_t");
    // SAFETY: kill(2) on our own child, which has not been reaped (it is still running).
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    wait_until_dropped(&sshd);
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    let status = ssh.wait_exit("the dropped client exits", DEADLINE);
    assert_eq!(
        status.code(),
        Some(255),
        "stderr: {}",
        ssh.stderr_if_exited()
    );
    assert!(
        sshd.log().contains("not responding"),
        "sshd log:\n{}",
        sshd.log()
    );
}

/// Waits until `sshd` serves no connection any more (3 unanswered client-alive asks at 1 s).
fn wait_until_dropped(sshd: &Sshd) {
    wait_until(
        "sshd drops the client that does not answer",
        DEADLINE,
        || (sshd.connection_count() == 0).then_some(()),
    );
}

#[test]
fn kill_sessions_drops_every_connection() {
    let Some(sshd) = Sshd::start() else { return };
    let mut cmd = sshd.ssh_command();
    cmd.args(["-T", sshd.alias(), "echo up; exec sleep 30"]);
    let mut ssh = Ssh::spawn(cmd);
    ssh.expect_line("up");
    sshd.kill_sessions();
    let status = ssh.wait_exit("ssh sees its connection closed", DEADLINE);
    assert_eq!(
        status.code(),
        Some(255),
        "stderr: {}",
        ssh.stderr_if_exited()
    );
    assert!(sshd.session_pids().is_empty());
    // The remote command outlives its connection, as on a real host.
    let remote = sshd.remote_pids();
    assert!(!remote.is_empty(), "the remote `sleep 30` runs on");
    assert!(
        sshd.ssh("true").status.success(),
        "the listener still accepts"
    );
    // Dropping the sshd ends it too.
    drop(sshd);
    wait_until_gone(&remote);
}

#[test]
fn dropping_sshd_ends_its_processes() {
    let Some(sshd) = Sshd::start() else { return };
    let mut cmd = sshd.ssh_command();
    cmd.args(["-T", sshd.alias(), "echo up; exec sleep 30"]);
    let mut ssh = Ssh::spawn(cmd);
    ssh.expect_line("up");
    let listener = sshd.pid();
    let mut pids = sshd.session_pids();
    pids.extend(sshd.remote_pids());
    assert!(
        pids.len() >= 3,
        "2 sshd processes and the remote command: {pids:?}"
    );
    let dir = sshd.dir().to_path_buf();
    drop(sshd);
    assert!(gone(listener), "the listener is gone");
    wait_until_gone(&pids);
    assert!(!dir.exists(), "the temp dir is removed");
    let status = ssh.wait_exit("ssh sees its connection closed", DEADLINE);
    assert_eq!(status.code(), Some(255));
}

/// Whether `pid` has exited (a zombie counts as exited).
fn gone(pid: u32) -> bool {
    !matches!(proc_state(pid), Some(s) if s != 'Z')
}

/// Waits (up to [`DEADLINE`]) until every pid of `pids` has exited.
fn wait_until_gone(pids: &[u32]) {
    wait_until("the processes exit", DEADLINE, || {
        pids.iter().all(|&p| gone(p)).then_some(())
    });
}
