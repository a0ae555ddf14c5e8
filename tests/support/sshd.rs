//! A throwaway OpenSSH server on `127.0.0.1`, so tests can reach "remote" tmux servers over
//! ssh on one machine, without a network.
//!
//! [`Sshd::start`] (or [`Sshd::builder`]) runs `/usr/sbin/sshd -D -e -f <dir>/sshd_config` on
//! a free loopback port, with a fresh host key and client key in a private temp dir, and
//! writes a client config ([`Sshd::ssh_config`]) whose `Host` [`Sshd::alias`] logs in with no
//! prompt, no agent and no `~/.ssh` file of the user's. Every session gets a `HOME` and
//! `TMUX_TMPDIR` of its own ([`Sshd::remote_home`], [`Sshd::remote_tmpdir`]), never the login
//! user's. Who logs in:
//! * `$TMUXWIRE_TEST_SSH_USER` when set (as `.ci/run` sets it): sshd then runs as root and
//!   logs in as that user (a throwaway account whose login shell is `/bin/sh`, so that no
//!   shell start-up file, such as root's `.bashrc`, runs before each command);
//! * else the current user, when that is not root (a non-root sshd can only log in as
//!   itself);
//! * running as root without `$TMUXWIRE_TEST_SSH_USER`: no sshd.
//!
//! When sshd cannot run (not installed, root without a login user, a broken config…), the
//! test is skipped, printed at once and counted at the end of the run ([`super::skipped`]),
//! unless `$TMUXWIRE_REQUIRE_SSHD=1` (as CI sets it), which turns that into a panic naming
//! the reason and sshd's own log.
//!
//! The remote side is this machine: the tmux binaries of [`super::tmux_bins`] have the same
//! paths there. A [`super::TestServer`] that the ssh user must reach is started as
//! [`Sshd::owner_for_servers`] (`.owner(sshd.owner_for_servers())`); its socket then lives in
//! a 0700 directory of that user's, which the test process (root) reaches as well.
//!
//! Link failures to simulate: [`Sshd::stall`] (SIGSTOP the per-connection sshd processes: a
//! silent link, only keepalives notice), [`Sshd::partition`] (the listener too: new
//! connections hang as well), [`Sshd::kill_sessions`] (SIGKILL them: every connection drops).
//!
//! Pitfalls met (OpenSSH 9.2p1, see `docs/remote-ssh.md` section 5): sshd must be run by
//! absolute path; as root it needs `/run/sshd` (made here if missing); `StrictModes no`
//! because the keys live under `/tmp`; `UsePAM no`, and then a locked account (password
//! field `!`, what `useradd` leaves) is refused even with a key (`usermod -p '*' USER`).

use std::collections::HashMap;
use std::fs;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// Env var: the user sshd logs in as when the tests run as root (`tmuxwire-ssh` in CI).
pub const SSH_USER_ENV: &str = "TMUXWIRE_TEST_SSH_USER";
/// Env var: `1` makes an unavailable sshd a test failure instead of a skip.
pub const REQUIRE_SSHD_ENV: &str = "TMUXWIRE_REQUIRE_SSHD";
/// The sshd binary (sshd refuses to re-exec itself unless started by absolute path).
pub const SSHD_PATH: &str = "/usr/sbin/sshd";
/// The client config's main `Host` alias; see [`Sshd::alias`].
pub const ALIAS: &str = "tw-loopback";
/// Deadline for sshd to listen and accept a first `ssh … true`.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);
/// The variable sshd sets (`SetEnv`) in every session's environment, to this sshd's own
/// token: it finds the remote commands ([`Sshd::remote_pids`]) after their connection is gone.
pub const MARKER_ENV: &str = "TMUXWIRE_TEST_SSHD";
/// How many free ports [`SshdBuilder::start`] tries when sshd loses the race for one.
const BIND_ATTEMPTS: usize = 5;

/// Builder for an [`Sshd`]; see [`Sshd::builder`].
#[derive(Clone, Debug, Default)]
pub struct SshdBuilder {
    max_sessions: Option<u32>,
    client_alive_interval: Option<u32>,
}

impl SshdBuilder {
    /// sshd's `MaxSessions`: sessions (channels with a shell or command) allowed per TCP
    /// connection, i.e. per ControlMaster. Default 10 (sshd's own default).
    pub fn max_sessions(mut self, n: u32) -> Self {
        self.max_sessions = Some(n);
        self
    }

    /// sshd's `ClientAliveInterval`, in seconds: after that long without data from a client
    /// sshd asks it for an answer, and drops the connection after 3 unanswered asks
    /// (`ClientAliveCountMax 3`). Default 0: off.
    pub fn client_alive_interval(mut self, secs: u32) -> Self {
        self.client_alive_interval = Some(secs);
        self
    }

    /// Starts sshd and waits (up to [`START_TIMEOUT`]) until `ssh -F <config> <alias> true`
    /// succeeds.
    ///
    /// Returns `None` when sshd is unavailable (the skip is recorded with the reason,
    /// [`super::skipped`]: printed at once and counted at the end of the run); panics instead,
    /// with the reason and sshd's log, when `$TMUXWIRE_REQUIRE_SSHD=1`.
    pub fn start(self) -> Option<Sshd> {
        match self.try_start() {
            Ok(sshd) => Some(sshd),
            Err(reason) if sshd_required() => {
                panic!("sshd is required (${REQUIRE_SSHD_ENV}=1) but unavailable: {reason}")
            }
            Err(reason) => {
                super::skipped(&format!(
                    "no sshd for the ssh tests ({REQUIRE_SSHD_ENV}=1 makes this a failure): \
                     {reason}"
                ));
                None
            }
        }
    }

    /// Like [`SshdBuilder::start`], but returns why sshd is unavailable as an `Err` text
    /// (with sshd's log when it ran) instead of skipping or panicking.
    pub fn try_start(self) -> Result<Sshd, String> {
        let login = login_user()?;
        if !super::is_executable(Path::new(SSHD_PATH)) {
            return Err(format!(
                "{SSHD_PATH} is not installed (apt-get install openssh-server)"
            ));
        }
        for tool in ["ssh", "ssh-keygen"] {
            if super::which(tool).is_none() {
                return Err(format!(
                    "{tool} is not on $PATH (apt-get install openssh-client)"
                ));
            }
        }
        if login.sshd_as_root {
            privsep_dir()?;
        }

        let dir = temp_dir()?;
        // As root, sshd reads authorized_keys with the login user's uid: that user must be
        // able to pass through the directory (0711: not list it) and read that one file.
        let mode = if login.sshd_as_root { 0o711 } else { 0o700 };
        set_mode(dir.path(), mode)?;
        let files = Files::new(dir.path());
        let token = dir
            .path()
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("temp dir {} has no UTF-8 name", dir.path().display()))?
            .to_string();
        keygen(&files.host_key)?;
        keygen(&files.identity)?;
        keygen(&files.bad_identity)?;
        let client_pub = read(&pub_of(&files.identity))?;
        write(&files.authorized_keys, &client_pub, 0o644)?;
        write(&files.known_hosts_empty, "", 0o644)?;
        // Every session's `TMUX_TMPDIR` (`SetEnv`): a `tmux` the login user runs without `-S`
        // finds a private directory, never that user's default socket.
        std::fs::create_dir(&files.remote_tmpdir)
            .map_err(|e| format!("cannot make {}: {e}", files.remote_tmpdir.display()))?;
        let owner = nix::unistd::User::from_name(&login.name)
            .ok()
            .flatten()
            .ok_or_else(|| format!("user {} has no passwd entry", login.name))?;
        std::os::unix::fs::chown(
            &files.remote_tmpdir,
            Some(owner.uid.as_raw()),
            Some(owner.gid.as_raw()),
        )
        .map_err(|e| format!("cannot chown {}: {e}", files.remote_tmpdir.display()))?;
        set_mode(&files.remote_tmpdir, 0o700)?;
        // And every session's `HOME` (`SetEnv`), `files.remote_home`, the login user's own:
        // its shells and tmux servers keep their history there, not in that user's home
        // (which is the tester's own when the tests do not run as root).
        super::home::home_for_owner(&files.dir, owner.uid.as_raw(), owner.gid.as_raw());
        let host_pub = read(&pub_of(&files.host_key))?;

        // `PerSourcePenalties no` (OpenSSH 9.8+: else the bad-key tests would get 127.0.0.1
        // refused for a while); older sshd rejects the keyword, so it is dropped for them.
        let mut penalties = true;
        let mut last_err = String::new();
        for _ in 0..BIND_ATTEMPTS {
            let port = free_port()?;
            let mut cfg = SshdConfig {
                files: &files,
                port,
                user: &login.name,
                token: &token,
                max_sessions: self.max_sessions.unwrap_or(10),
                client_alive_interval: self.client_alive_interval.unwrap_or(0),
                penalties,
            };
            if let Err(e) = check_config(&cfg) {
                if !(penalties && e.contains("PerSourcePenalties")) {
                    return Err(e);
                }
                penalties = false;
                cfg.penalties = false;
                check_config(&cfg)?;
            }
            let known = format!("[127.0.0.1]:{port} {}\n", host_pub.trim());
            write(&files.known_hosts, &known, 0o644)?;
            write(
                &files.ssh_config,
                &client_config(&files, port, &login.name),
                0o644,
            )?;

            let mut child = spawn_sshd(&files)?;
            match wait_ready(&mut child, &files, port) {
                Ok(()) => {
                    let owner = (login.sshd_as_root && login.name != login.current)
                        .then(|| login.name.clone());
                    return Ok(Sshd {
                        child,
                        port,
                        user: login.name,
                        owner,
                        alias: ALIAS.to_string(),
                        badkey_alias: format!("{ALIAS}-badkey"),
                        unknownhost_alias: format!("{ALIAS}-unknownhost"),
                        token,
                        files,
                        _dir: dir,
                    });
                }
                Err(Ready::PortTaken(e)) => {
                    reap(&mut child);
                    last_err = e;
                }
                Err(Ready::Failed(e)) => {
                    reap(&mut child);
                    return Err(e);
                }
            }
        }
        Err(format!(
            "sshd could not bind a free port in {BIND_ATTEMPTS} attempts; last: {last_err}"
        ))
    }
}

/// A running throwaway sshd on `127.0.0.1`; see the module docs.
///
/// Dropping it kills the listener and every process under it (connections, remote
/// commands), then removes its temp dir.
#[derive(Debug)]
pub struct Sshd {
    child: Child,
    port: u16,
    user: String,
    owner: Option<String>,
    alias: String,
    badkey_alias: String,
    unknownhost_alias: String,
    token: String,
    files: Files,
    _dir: tempfile::TempDir,
}

impl Sshd {
    /// Starts an sshd with the defaults (`MaxSessions 10`, no client keepalive); `None` when
    /// sshd is unavailable (skipped loudly, or a panic under `$TMUXWIRE_REQUIRE_SSHD=1`). See
    /// [`SshdBuilder::start`].
    pub fn start() -> Option<Sshd> {
        Self::builder().start()
    }

    /// A builder: `.max_sessions(n).client_alive_interval(secs).start()`.
    pub fn builder() -> SshdBuilder {
        SshdBuilder::default()
    }

    /// The login user of every alias.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The user a [`super::TestServer`] must be started as so that [`Sshd::user`] can reach
    /// it (`TestServer::builder(bin).owner(sshd.owner_for_servers())`): the login user when
    /// it is not the user running the tests, else `None`.
    pub fn owner_for_servers(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The TCP port sshd listens on, on `127.0.0.1`.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// sshd's private temp dir (keys, configs, log); the test process may put its own files
    /// there, e.g. a `ControlPath`. Mode 0711 when sshd runs as root, else 0700.
    pub fn dir(&self) -> &Path {
        self.files.dir.as_path()
    }

    /// The pid of the listening sshd (the `-D` process).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The client config to pass as `ssh -F`: `Host` [`Sshd::alias`] (logs in),
    /// [`Sshd::badkey_alias`] and [`Sshd::unknownhost_alias`] (both refused); every one with
    /// `BatchMode yes`, `StrictHostKeyChecking yes`, `IdentitiesOnly yes`, no agent and
    /// `LogLevel ERROR`. `-o` options on the command line take precedence over it.
    pub fn ssh_config(&self) -> &Path {
        &self.files.ssh_config
    }

    /// The alias that logs in (`tw-loopback`): `ssh -F <ssh_config> tw-loopback CMD`.
    pub fn alias(&self) -> &str {
        &self.alias
    }

    /// An alias that offers a key sshd does not accept: ssh exits 255 with
    /// `Permission denied (publickey).`.
    pub fn badkey_alias(&self) -> &str {
        &self.badkey_alias
    }

    /// An alias whose known-hosts file is empty (and `StrictHostKeyChecking yes`): ssh exits
    /// 255 with `Host key verification failed.`.
    pub fn unknownhost_alias(&self) -> &str {
        &self.unknownhost_alias
    }

    /// The known-hosts file of [`Sshd::alias`] and [`Sshd::badkey_alias`]: one line,
    /// `[127.0.0.1]:PORT <host key>`. A test may overwrite it (a changed host key).
    pub fn known_hosts(&self) -> &Path {
        &self.files.known_hosts
    }

    /// The private key [`Sshd::alias`] logs in with (its `.pub` is the authorized key).
    pub fn identity(&self) -> &Path {
        &self.files.identity
    }

    /// The `TMUX_TMPDIR` of every ssh session (a directory of the login user's own): a
    /// remote `tmux` run without `-S`/`-L` uses it, never the login user's default socket.
    pub fn remote_tmpdir(&self) -> &Path {
        &self.files.remote_tmpdir
    }

    /// The `HOME` of every ssh session (with the XDG directories under it; a directory of the
    /// login user's own, set by `SetEnv`): shells and tmux servers started over ssh keep their
    /// history there, never in the login user's home.
    pub fn remote_home(&self) -> &Path {
        &self.files.remote_home
    }

    /// sshd's own log so far (`-e`: its stderr), for failure messages.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.files.log).unwrap_or_else(|e| format!("<no sshd log: {e}>"))
    }

    /// `ssh -F <ssh_config>` with stdin from `/dev/null` and no `SSH_AUTH_SOCK`; add options,
    /// `-T`, the alias and the remote command (or override stdin).
    pub fn ssh_command(&self) -> Command {
        let mut cmd = Command::new("ssh");
        cmd.arg("-F")
            .arg(&self.files.ssh_config)
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `ssh -F <ssh_config> -T <alias> <remote_cmd>` (stdin `/dev/null`), blocking until
    /// it exits, and returns its output: the exit status is the remote command's, or 255 for
    /// an ssh error. `remote_cmd` is run by the login user's shell (`/bin/sh` in CI); quote
    /// variable parts with [`sh_quote`]. Panics only if `ssh` cannot be spawned.
    pub fn ssh(&self, remote_cmd: &str) -> Output {
        self.ssh_command()
            .arg("-T")
            .arg(&self.alias)
            .arg(remote_cmd)
            .output()
            .unwrap_or_else(|e| panic!("cannot run ssh: {e}"))
    }

    /// The per-connection sshd processes (each connection's monitor and its unprivileged
    /// child, whose name starts with `sshd`): the descendants of [`Sshd::pid`], read from
    /// `/proc`. The remote commands themselves are not included. Sorted pids.
    pub fn session_pids(&self) -> Vec<u32> {
        descendants(self.pid())
            .into_iter()
            .filter(|p| p.comm.starts_with("sshd"))
            .map(|p| p.pid)
            .collect()
    }

    /// Waits (up to `timeout`) until sshd serves at least `n` connections
    /// ([`Sshd::connection_count`]) and returns [`Sshd::session_pids`] then. Panics on
    /// timeout, with sshd's log.
    pub fn wait_for_connections(&self, n: usize, timeout: Duration) -> Vec<u32> {
        super::poll(timeout, || {
            let pids = self.session_pids();
            (self.connection_count() >= n).then_some(pids)
        })
        .unwrap_or_else(|| {
            panic!(
                "timed out after {timeout:?} waiting for {n} ssh connection(s) (have {}); \
                 sshd log:\n{}",
                self.connection_count(),
                self.log()
            )
        })
    }

    /// The number of connections being served: the listener's direct sshd children (one
    /// per connection, preauth ones included).
    pub fn connection_count(&self) -> usize {
        let listener = self.pid();
        descendants(listener)
            .iter()
            .filter(|p| p.ppid == listener && p.comm.starts_with("sshd"))
            .count()
    }

    /// Freezes every open connection (SIGSTOP to each of [`Sshd::session_pids`]): the link
    /// goes silent, only keepalives (`ServerAliveInterval`) notice. New connections are still
    /// accepted (see [`Sshd::partition`]). [`Stall::resume`] or dropping the [`Stall`] sends
    /// SIGCONT. Panics when there is no connection to stall (wait for one first:
    /// [`Sshd::wait_for_connections`]).
    pub fn stall(&self) -> Stall {
        let pids = self.session_pids();
        assert!(
            !pids.is_empty(),
            "Sshd::stall: no ssh connection is open; sshd log:\n{}",
            self.log()
        );
        Stall::stop(pids)
    }

    /// Like [`Sshd::stall`], and the listener is stopped too, as in a network partition: a new
    /// connection gets no ssh banner until [`Stall::resume`], so ssh gives up after its
    /// `ConnectTimeout` (10 s in [`Sshd::ssh_config`]; `-o ConnectTimeout=N` overrides it).
    /// Works with no connection open.
    pub fn partition(&self) -> Stall {
        // The listener first, so no connection starts between the snapshot and the stops.
        let mut pids = vec![self.pid()];
        let listener = Stall::stop(pids.clone());
        pids = self.session_pids();
        let mut stall = Stall::stop(pids);
        stall.procs.extend(listener.take());
        stall
    }

    /// Every live process started through this sshd's sessions (the remote commands and what
    /// they started, daemons included), whether or not its connection is still open: those
    /// whose environment has [`MARKER_ENV`] set to this sshd's token. Sorted pids. Processes
    /// that dropped the variable (`env -i`) are missed.
    pub fn remote_pids(&self) -> Vec<u32> {
        marked(&self.token).into_iter().map(|p| p.pid).collect()
    }

    /// Drops every open connection at once (SIGKILL to each of [`Sshd::session_pids`]); the
    /// clients see the connection closed (ssh exits 255), the listener keeps accepting. The
    /// remote commands are not killed (as on a real host): they see their stdin and stdout
    /// closed; [`Sshd::remote_pids`] finds them.
    pub fn kill_sessions(&self) {
        for pid in self.session_pids() {
            signal(pid, super::proc_start_time(pid), libc::SIGKILL);
        }
    }

    /// Stops the listener, every process under it and every [`Sshd::remote_pids`] process
    /// (SIGKILL), and reaps the listener.
    fn stop_processes(&mut self) {
        // Stop the listener first so that it forks nothing new, then snapshot its tree.
        let listener = self.pid();
        signal(listener, super::proc_start_time(listener), libc::SIGSTOP);
        for p in descendants(listener).into_iter().chain(marked(&self.token)) {
            signal(p.pid, p.start_time, libc::SIGKILL);
        }
        reap(&mut self.child);
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.stop_processes();
    }
}

/// Processes stopped by [`Sshd::stall`] or [`Sshd::partition`]; [`Stall::resume`] (or
/// dropping it) sends them SIGCONT.
#[derive(Debug)]
#[must_use = "dropping a Stall resumes the processes at once"]
pub struct Stall {
    /// `(pid, start time)`: the start time keeps a reused pid from being signalled.
    procs: Vec<(u32, Option<u64>)>,
}

impl Stall {
    /// SIGSTOPs `pids`, records them, and waits (up to [`super::DEFAULT_TIMEOUT`]) until
    /// each one is stopped or gone: a signal is delivered when the process next runs, so a
    /// process just signalled may still be running. Panics on timeout.
    pub fn stop(pids: Vec<u32>) -> Stall {
        let stall = Stall {
            procs: pids
                .into_iter()
                .map(|pid| (pid, super::proc_start_time(pid)))
                .filter(|&(pid, start)| signal(pid, start, libc::SIGSTOP))
                .collect(),
        };
        let settled = |&(pid, start): &(u32, Option<u64>)| {
            super::proc_start_time(pid) != start || matches!(proc_state(pid), Some('T' | 't'))
        };
        let stopped = super::poll(super::DEFAULT_TIMEOUT, || {
            stall.procs.iter().all(settled).then_some(())
        });
        if stopped.is_none() {
            let running: Vec<u32> = stall
                .procs
                .iter()
                .filter(|p| !settled(p))
                .map(|p| p.0)
                .collect();
            panic!(
                "SIGSTOP: pids {running:?} still not stopped after {:?}",
                super::DEFAULT_TIMEOUT
            );
        }
        stall
    }

    /// The stopped processes, leaving this `Stall` empty (so its drop resumes nothing).
    fn take(mut self) -> Vec<(u32, Option<u64>)> {
        std::mem::take(&mut self.procs)
    }

    /// The pids this stall stopped.
    pub fn pids(&self) -> Vec<u32> {
        self.procs.iter().map(|&(pid, _)| pid).collect()
    }

    /// Lets the stopped processes run again (SIGCONT); connections whose clients have not
    /// given up carry on where they were.
    pub fn resume(self) {
        drop(self);
    }
}

impl Drop for Stall {
    fn drop(&mut self) {
        for &(pid, start) in &self.procs {
            signal(pid, start, libc::SIGCONT);
        }
    }
}

/// `s` quoted for a POSIX shell (and fish): `'…'`, with each `'` written as `'\''`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Whether `$TMUXWIRE_REQUIRE_SSHD` is `1`.
fn sshd_required() -> bool {
    std::env::var(REQUIRE_SSHD_ENV).is_ok_and(|v| v.trim() == "1")
}

/// Who logs in, and whether sshd runs as root.
struct Login {
    /// The login user.
    name: String,
    /// The user running the tests.
    current: String,
    /// Whether sshd runs as root (and may log in as anyone).
    sshd_as_root: bool,
}

/// The login user, from `$TMUXWIRE_TEST_SSH_USER` or the current user; see the module docs.
fn login_user() -> Result<Login, String> {
    let euid = nix::unistd::geteuid();
    let current = nix::unistd::User::from_uid(euid)
        .ok()
        .flatten()
        .map(|u| u.name)
        .ok_or_else(|| format!("uid {euid} has no passwd entry"))?;
    let root = euid.is_root();
    let wanted = std::env::var(SSH_USER_ENV)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let name = match wanted {
        Some(name) => {
            let known = nix::unistd::User::from_name(&name).ok().flatten().is_some();
            if !known {
                return Err(format!(
                    "${SSH_USER_ENV}={name}, but there is no such user; create it as .ci/run \
                     does: useradd --create-home --home-dir /home/{name} --shell /bin/sh {name} \
                     && usermod --password '*' {name}"
                ));
            }
            if !root && name != current {
                return Err(format!(
                    "${SSH_USER_ENV}={name}, but only root can run an sshd that logs in as \
                     another user (running as {current})"
                ));
            }
            name
        }
        None if root => {
            return Err(format!(
                "running as root and ${SSH_USER_ENV} is not set; root's shell start-up files \
                 would run before every ssh command, so set {SSH_USER_ENV} to a throwaway user \
                 (as .ci/run does)"
            ));
        }
        None => current.clone(),
    };
    Ok(Login {
        name,
        current,
        sshd_as_root: root,
    })
}

/// Makes sshd's privilege separation directory `/run/sshd` (root only; systemd or the init
/// script would make it, neither runs here).
fn privsep_dir() -> Result<(), String> {
    let dir = Path::new("/run/sshd");
    if !dir.is_dir() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        set_mode(dir, 0o755)?;
    }
    Ok(())
}

/// A fresh temp dir for sshd, in the system temp dir or `/tmp` when that path is long (so a
/// `ControlPath` socket in it fits `sun_path`'s 108 bytes).
fn temp_dir() -> Result<tempfile::TempDir, String> {
    let base = std::env::temp_dir();
    let base = if base.as_os_str().len() > 40 {
        PathBuf::from("/tmp")
    } else {
        base
    };
    tempfile::Builder::new()
        .prefix("tmuxwire-sshd-")
        .tempdir_in(&base)
        .map_err(|e| format!("cannot create a temp dir in {}: {e}", base.display()))
}

/// The files of one sshd, all in its temp dir.
#[derive(Clone, Debug)]
struct Files {
    dir: PathBuf,
    host_key: PathBuf,
    identity: PathBuf,
    bad_identity: PathBuf,
    authorized_keys: PathBuf,
    known_hosts: PathBuf,
    known_hosts_empty: PathBuf,
    sshd_config: PathBuf,
    ssh_config: PathBuf,
    log: PathBuf,
    /// The sessions' `TMUX_TMPDIR`, owned by the login user.
    remote_tmpdir: PathBuf,
    /// The sessions' `HOME` (and XDG directories), owned by the login user.
    remote_home: PathBuf,
}

impl Files {
    fn new(dir: &Path) -> Files {
        Files {
            dir: dir.to_path_buf(),
            host_key: dir.join("host_ed25519"),
            identity: dir.join("id_ed25519"),
            bad_identity: dir.join("bad_ed25519"),
            authorized_keys: dir.join("authorized_keys"),
            known_hosts: dir.join("known_hosts"),
            known_hosts_empty: dir.join("known_hosts_empty"),
            sshd_config: dir.join("sshd_config"),
            ssh_config: dir.join("ssh_config"),
            log: dir.join("sshd.log"),
            remote_tmpdir: dir.join("remote-tmux-tmpdir"),
            remote_home: dir.join("home"),
        }
    }
}

/// What goes into `sshd_config`.
struct SshdConfig<'a> {
    files: &'a Files,
    port: u16,
    user: &'a str,
    token: &'a str,
    max_sessions: u32,
    client_alive_interval: u32,
    penalties: bool,
}

impl SshdConfig<'_> {
    fn render(&self) -> String {
        let f = self.files;
        let mut s = format!(
            "# Written by tests/support/sshd.rs for one test.\n\
             ListenAddress 127.0.0.1\n\
             Port {port}\n\
             HostKey {host_key}\n\
             PidFile {pid}\n\
             AuthorizedKeysFile {auth}\n\
             AllowUsers {user}\n\
             PubkeyAuthentication yes\n\
             PasswordAuthentication no\n\
             KbdInteractiveAuthentication no\n\
             UsePAM no\n\
             StrictModes no\n\
             PermitRootLogin prohibit-password\n\
             MaxSessions {max_sessions}\n\
             MaxStartups 100\n\
             ClientAliveInterval {alive}\n\
             ClientAliveCountMax 3\n\
             UseDNS no\n\
             X11Forwarding no\n\
             AllowAgentForwarding no\n\
             PermitUserEnvironment no\n\
             PrintMotd no\n\
             PrintLastLog no\n\
             SetEnv {MARKER_ENV}={token} TMUX_TMPDIR={tmpdir}{home}\n",
            port = self.port,
            host_key = f.host_key.display(),
            pid = f.dir.join("sshd.pid").display(),
            auth = f.authorized_keys.display(),
            user = self.user,
            max_sessions = self.max_sessions,
            alive = self.client_alive_interval,
            token = self.token,
            tmpdir = f.remote_tmpdir.display(),
            home = session_home(&f.remote_home),
        );
        if self.penalties {
            s.push_str("PerSourcePenalties no\n");
        }
        s
    }
}

/// The `SetEnv` words that give every session the private home `home` (sshd sets them
/// after `HOME` from the password database, so they win): ` NAME=value` for each variable
/// [`super::home::isolated_env`] sets. A session's environment starts empty, so nothing needs
/// removing.
fn session_home(home: &Path) -> String {
    super::home::isolated_env(home)
        .into_iter()
        .filter_map(|(k, v)| Some(format!(" {}={}", k.to_str()?, v?.to_str()?)))
        .collect()
}

/// Writes `cfg` and checks it with `sshd -t`; `Err` carries sshd's complaint.
fn check_config(cfg: &SshdConfig) -> Result<(), String> {
    let path = &cfg.files.sshd_config;
    write(path, &cfg.render(), 0o644)?;
    let out = Command::new(SSHD_PATH)
        .arg("-t")
        .arg("-f")
        .arg(path)
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {SSHD_PATH} -t: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{SSHD_PATH} -t -f {} rejected the config ({}): {}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

/// The client config: the three aliases, then the settings they share.
fn client_config(f: &Files, port: u16, user: &str) -> String {
    let host = |alias: &str, identity: &Path, known: &Path| {
        format!(
            "Host {alias}\n    HostName 127.0.0.1\n    Port {port}\n    User {user}\n    \
             IdentityFile {}\n    UserKnownHostsFile {}\n",
            identity.display(),
            known.display()
        )
    };
    format!(
        "# Written by tests/support/sshd.rs: ssh -F <this file> {ALIAS} CMD\n{}{}{}\
         Host *\n    IdentitiesOnly yes\n    IdentityAgent none\n    \
         GlobalKnownHostsFile /dev/null\n    StrictHostKeyChecking yes\n    \
         UpdateHostKeys no\n    BatchMode yes\n    ConnectTimeout 10\n    LogLevel ERROR\n",
        host(ALIAS, &f.identity, &f.known_hosts),
        host(&format!("{ALIAS}-badkey"), &f.bad_identity, &f.known_hosts),
        host(
            &format!("{ALIAS}-unknownhost"),
            &f.identity,
            &f.known_hosts_empty
        ),
    )
}

/// A port that was free on 127.0.0.1 a moment ago (bound to port 0, then released); sshd may
/// still lose it to someone else, which [`SshdBuilder::try_start`] retries.
fn free_port() -> Result<u16, String> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("cannot bind 127.0.0.1:0 to find a free port: {e}"))
}

/// Starts `sshd -D -e -f <config>` (in the foreground, logging to `<dir>/sshd.log`), with an
/// empty environment but `PATH`.
fn spawn_sshd(f: &Files) -> Result<Child, String> {
    let log =
        fs::File::create(&f.log).map_err(|e| format!("cannot create {}: {e}", f.log.display()))?;
    Command::new(SSHD_PATH)
        .args(["-D", "-e", "-f"])
        .arg(&f.sshd_config)
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot start {SSHD_PATH}: {e}"))
}

/// Why sshd did not become ready.
enum Ready {
    /// Someone else took the port: try another one.
    PortTaken(String),
    /// Anything else: give up.
    Failed(String),
}

/// Waits (up to [`START_TIMEOUT`]) until sshd logs that it listens and `ssh … alias true`
/// succeeds; sshd exiting first is a failure ([`Ready::PortTaken`] when it could not bind).
fn wait_ready(child: &mut Child, f: &Files, port: u16) -> Result<(), Ready> {
    let log = || fs::read_to_string(&f.log).unwrap_or_default();
    let mut last_ssh = String::from("<ssh not tried: sshd never logged `Server listening`>");
    let listening = format!("Server listening on 127.0.0.1 port {port}");
    let outcome = super::poll(START_TIMEOUT, || {
        match child.try_wait() {
            Ok(Some(status)) => {
                let text = log();
                let msg = format!("sshd exited ({status}) before it was ready; its log:\n{text}");
                return Some(Err(
                    if text.contains("Address already in use") || text.contains("Cannot bind") {
                        Ready::PortTaken(msg)
                    } else {
                        Ready::Failed(msg)
                    },
                ));
            }
            Ok(None) => {}
            Err(e) => return Some(Err(Ready::Failed(format!("cannot wait for sshd: {e}")))),
        }
        if !log().contains(&listening) {
            return None;
        }
        let out = Command::new("ssh")
            .arg("-F")
            .arg(&f.ssh_config)
            .args(["-T", ALIAS, "true"])
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null())
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Ok(())),
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr);
                last_ssh = format!("ssh {ALIAS} true: {}: {}", o.status, err.trim());
                // A refusal is final; anything else (sshd still starting up) is retried.
                let refused = err.contains("Permission denied")
                    || err.contains("Host key verification failed");
                refused.then(|| Err(Ready::Failed(not_ready(&last_ssh, &log()))))
            }
            Err(e) => Some(Err(Ready::Failed(format!("cannot run ssh: {e}")))),
        }
    });
    outcome.unwrap_or_else(|| {
        Err(Ready::Failed(not_ready(
            &format!("not ready within {START_TIMEOUT:?}: {last_ssh}"),
            &log(),
        )))
    })
}

/// The failure text when sshd runs but `ssh … true` does not get in: `what`, a hint when
/// the log shows a known cause, and sshd's log.
fn not_ready(what: &str, log: &str) -> String {
    let hint = if log.contains("account is locked") {
        "\n(hint: with UsePAM no, sshd refuses a locked account even with a key; unlock it \
         without giving it a password: usermod --password '*' USER)"
    } else {
        ""
    };
    format!("sshd: {what}{hint}\nsshd log:\n{log}")
}

/// SIGKILLs and reaps a child (fine if it has exited already).
fn reap(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Sends `sig` to `pid` if it is still the process that started at `start` (so a reused pid
/// is left alone); returns whether the signal was sent.
fn signal(pid: u32, start: Option<u64>, sig: libc::c_int) -> bool {
    let Ok(raw) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if start.is_none() || super::proc_start_time(pid) != start {
        return false;
    }
    // SAFETY: kill(2) takes two integers and touches no memory of this process.
    unsafe { libc::kill(raw, sig) == 0 }
}

/// The state letter of `pid` from `/proc/<pid>/stat` (`R`, `S`, `T` = stopped, `Z`, …), or
/// `None` when there is no such process.
pub fn proc_state(pid: u32) -> Option<char> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.get(stat.rfind(')')? + 1..)?
        .trim_start()
        .chars()
        .next()
}

/// One process, from `/proc/<pid>/stat`.
#[derive(Clone, Debug)]
struct Proc {
    pid: u32,
    ppid: u32,
    comm: String,
    start_time: Option<u64>,
}

/// The processes under `root` (children, grandchildren, …) as `(pid, start time)`, the start
/// time telling a process from a later one given the same pid ([`is_running`]).
pub fn descendant_pids(root: u32) -> Vec<(u32, Option<u64>)> {
    descendants(root)
        .into_iter()
        .map(|p| (p.pid, p.start_time))
        .collect()
}

/// Whether the process `(pid, start time)` from [`descendant_pids`] still runs (a zombie
/// does not).
pub fn is_running(&(pid, start): &(u32, Option<u64>)) -> bool {
    start.is_some()
        && super::proc_start_time(pid) == start
        && !matches!(proc_state(pid), Some('Z') | None)
}

/// Every process under `root` (children, grandchildren, …), in pid order; not `root` itself.
fn descendants(root: u32) -> Vec<Proc> {
    let mut children: HashMap<u32, Vec<Proc>> = HashMap::new();
    for p in processes() {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out = Vec::new();
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        for child in children.remove(&pid).unwrap_or_default() {
            todo.push(child.pid);
            out.push(child);
        }
    }
    out.sort_by_key(|p| p.pid);
    out
}

/// The live processes whose environment holds `MARKER_ENV=token` (those whose environment
/// cannot be read, other users' when not root, are left out).
fn marked(token: &str) -> Vec<Proc> {
    let want = format!("{MARKER_ENV}={token}");
    processes()
        .into_iter()
        .filter(|p| {
            fs::read(format!("/proc/{}/environ", p.pid))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
        })
        .collect()
}

/// All live processes in `/proc` (zombies, and those that vanish while being read, are left
/// out).
fn processes() -> Vec<Proc> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let open = stat.find('(')?;
            let close = stat.rfind(')')?;
            let comm = stat.get(open + 1..close)?.to_string();
            let mut rest = stat.get(close + 1..)?.split_whitespace();
            let _state = rest.next()?;
            let ppid = rest.next()?.parse().ok()?;
            // `None` for a zombie: it is done, its children are reparented already.
            let start_time = Some(super::proc_start_time(pid)?);
            Some(Proc {
                pid,
                ppid,
                comm,
                start_time,
            })
        })
        .collect()
}

/// Runs `ssh-keygen -t ed25519 -N '' -q -f path` (a new key without a passphrase).
fn keygen(path: &Path) -> Result<(), String> {
    let out = Command::new("ssh-keygen")
        .args(["-t", "ed25519", "-N", "", "-q", "-C", "tmuxwire-test", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ssh-keygen: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "ssh-keygen -f {} failed ({}): {}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

/// `path` with `.pub` appended.
fn pub_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".pub");
    PathBuf::from(s)
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Writes `text` to `path` and sets its mode (e.g. `0o644`).
fn write(path: &Path, text: &str, mode: u32) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    set_mode(path, mode)
}

fn set_mode(path: &Path, mode: u32) -> Result<(), String> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot chmod {mode:o} {}: {e}", path.display()))
}
