//! What tmuxwire asks the remote host to run, and how it reads the answers.
//! Pure: no I/O, unit-tested with exact text.
//!
//! The command line `ssh` sends is read by the user's *login shell* on the
//! remote host, which may be bash, zsh, fish, nushell or csh, each with its
//! own quoting. So that line is always the same fixed text, [`BOOT`], which
//! every one of them reads alike: it starts `/bin/sh`, which reads *one*
//! line from stdin (POSIX `read` consumes exactly one line, byte by byte, from
//! a pipe) and runs it. That line is built here, quoted for POSIX `sh` only
//! ([`quote`]); whatever follows it on stdin (the control-mode commands of a
//! channel) is left for the program it execs.
//!
//! Every line prints a banner with a nonce first, so text that the user's
//! start-up files print before it (bash reads `.bashrc` for commands run by
//! sshd) is skipped, never taken for tmux's output.

use std::fmt::Write as _;

/// The remote command every channel and every one-shot runs: `/bin/sh`
/// reading one line from stdin and running it. The same bytes mean the same
/// in sh, bash, zsh, fish, nushell and csh: single quotes hold no quote and
/// no backslash.
pub const BOOT: &str = "exec /bin/sh -c 'IFS= read -r l; eval \"$l\"'";

/// The banner's first word; the nonce follows.
pub const BANNER: &str = "TWREADY";

/// `s` quoted for POSIX `sh`: in single quotes, a `'` as `'\''`, a line
/// break as `'"$nl"'` (the line that runs it defines `nl`; a raw line break
/// would end the line [`BOOT`] reads).
pub fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('\'');
    for c in s.chars() {
        match c {
            '\'' => q.push_str("'\\''"),
            '\n' => q.push_str("'\"$nl\"'"),
            c => q.push(c),
        }
    }
    q.push('\'');
    q
}

/// How the remote tmux server is chosen, as `-L`/`-S` choose it locally.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RemoteSocket {
    /// tmux's default socket for the remote user.
    Default,
    /// `-L NAME`.
    Name(String),
    /// `-S PATH` (a path on the remote host).
    Path(String),
}

impl RemoteSocket {
    /// tmux's arguments for this socket.
    pub fn args(&self) -> Vec<&str> {
        match self {
            RemoteSocket::Default => Vec::new(),
            RemoteSocket::Name(n) => vec!["-L", n],
            RemoteSocket::Path(p) => vec!["-S", p],
        }
    }
}

impl std::fmt::Display for RemoteSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RemoteSocket::Default => f.write_str("the default socket"),
            RemoteSocket::Name(n) => write!(f, "socket name {n:?}"),
            RemoteSocket::Path(p) => write!(f, "{p}"),
        }
    }
}

/// The start every line shares: `nl` for [`quote`], a `PATH` that also
/// holds the usual places of a tmux not installed by the system (a
/// non-login shell's `PATH` is short), then the banner.
fn preamble(nonce: &str) -> String {
    format!(
        "nl=$(printf '\\nx'); nl=${{nl%x}}; printf '{BANNER} %s\\n' {}; ",
        quote(nonce)
    )
}

/// Sets `T` to `tmux`, looked up on `PATH` and the usual places of a tmux
/// the system did not install (a non-login shell's `PATH` is short); the
/// longer `PATH` is not exported, so a server `create_session` starts keeps
/// the user's own.
fn find_tmux(tmux: &str) -> String {
    format!(
        "T=$(PATH=\"$PATH:/usr/local/bin:/opt/homebrew/bin:/snap/bin\" command -v {q} || echo {q}); ",
        q = quote(tmux)
    )
}

/// The `TERM` of the probe's one-shot client.
const PROBE_TERM: &str = "tmuxwire-probe";

/// The tmux client a line starts on the host: what [`control_line`] and
/// [`exec_line`] both need.
#[derive(Clone, Debug)]
pub struct Client {
    /// The nonce of the line's banner, fresh for each line.
    pub nonce: String,
    /// The client's `TERM`, so tmuxwire's clients can be told from a
    /// person's.
    pub term: String,
    /// The tmux binary (a name on the host's `PATH`, or a path).
    pub tmux: String,
    /// The server's socket.
    pub socket: RemoteSocket,
}

/// The start of a line that execs `tmux` (with `TERM` `client.term`): the
/// preamble, then `exec env TERM=… TMUX [-N] -u [-L|-S …]`; `-N` (never
/// start a server) unless `start`.
fn exec_tmux(client: &Client, start: bool) -> String {
    let mut l = preamble(&client.nonce);
    l.push_str(&find_tmux(&client.tmux));
    l.push_str("exec ");
    l.push_str(&tmux_command(&client.term, &client.socket, start));
    l
}

/// `env TERM=… "$T" -N -u [-L|-S …]` (`"$T" -u …` when `start`: a server
/// started here keeps the user's TERM in its environment).
fn tmux_command(term: &str, socket: &RemoteSocket, start: bool) -> String {
    let mut l = String::new();
    if start {
        l.push_str("\"$T\"");
    } else {
        l.push_str("env TERM=");
        l.push_str(&quote(term));
        l.push_str(" \"$T\" -N");
    }
    l.push_str(" -u");
    for a in socket.args() {
        l.push(' ');
        l.push_str(&quote(a));
    }
    l
}

/// The line that makes the remote `tmux` (its `TERM` is `client.term`, so
/// tmuxwire's clients can be told from a person's) a control client
/// attached to `session` (an id such as `$3`; `None`: tmux's choice): `-N` (never start
/// a server), `-u` (UTF-8 whatever the locale), `attach-session -E` (do not
/// rewrite the session's environment) with `-f` flags (`ignore-size`, and
/// `no-output` for a client that only sends commands).
pub fn control_line(client: &Client, session: Option<&str>, flags: &str) -> String {
    let mut cmd = tmux_command(&client.term, &client.socket, false);
    cmd.push_str(" -C attach-session -E -f ");
    cmd.push_str(&quote(flags));
    if let Some(s) = session {
        cmd.push_str(" -t ");
        cmd.push_str(&quote(s));
    }
    let mut l = preamble(&client.nonce);
    l.push_str(&find_tmux(&client.tmux));
    // tmux's control client hands its stdin and stdout to the server, and
    // the server keeps a client whose output it cannot write (the channel
    // closed while an answer was queued) until the client's process ends
    // (control.c: the exit waits for `control_all_done`). So the channel's
    // stdin reaches tmux through a relay (a fifo, removed once open) that
    // sends the client SIGHUP when the channel's input ends: the client
    // leaves the server whenever its channel closes. `$$` is the client's
    // pid, as the shell execs it. The relay keeps no stdout or stderr of
    // the channel open, so the channel still ends with tmux. Without
    // mktemp or mkfifo, tmux is run on the channel directly.
    l.push_str(
        "exec 3<&0; if d=$(mktemp -d 2>/dev/null) && mkfifo -m 600 \"$d/in\"; then \
         (exec 4>\"$d/in\"; rm -rf \"$d\"; cat <&3 >&4; exec 4>&-; kill -HUP $$) \
         >/dev/null 2>&1 & exec ",
    );
    l.push_str(&cmd);
    l.push_str(" <\"$d/in\" 3<&-; else exec ");
    l.push_str(&cmd);
    l.push_str(" 3<&-; fi\n");
    l
}

/// The line that runs one one-shot `tmux` client with `cmds` (each a
/// command's argv; joined by `;` as tmux's own argv parser reads them, an
/// argument ending in `;` escaped). With `start`, the client may start a
/// server (`new-session` in `create_session`); otherwise `-N`.
pub fn exec_line<S: AsRef<str>>(client: &Client, cmds: &[&[S]], start: bool) -> String {
    let mut l = exec_tmux(client, start);
    for (i, argv) in cmds.iter().enumerate() {
        if i > 0 {
            l.push_str(" ';'");
        }
        for a in argv.iter() {
            let a = a.as_ref();
            l.push(' ');
            match a.strip_suffix(';') {
                Some(head) => l.push_str(&quote(&format!("{head}\\;"))),
                None => l.push_str(&quote(a)),
            }
        }
    }
    l.push('\n');
    l
}

/// The line that finds out what runs on the host: the binary's version
/// (`tmux -V`), the server's version and pid as the binary sees them, and
/// the operating system. [`parse_probe`] reads its answer.
pub fn probe_line(nonce: &str, tmux: &str, socket: &RemoteSocket) -> String {
    let mut sock = String::new();
    for a in socket.args() {
        sock.push(' ');
        sock.push_str(&quote(a));
    }
    let mut l = preamble(nonce);
    l.push_str(&find_tmux(tmux));
    let _ = writeln!(
        l,
        "b=$(\"$T\" -V 2>&1); br=$?; s=$(env TERM={PROBE_TERM} \"$T\" -N -u{sock} \
         display-message -p '#{{version}} #{{pid}}' 2>&1); sr=$?; \
         printf 'os %s\\nbin %s %s\\nsrv %s %s\\n' \"$(uname -s)\" \"$br\" \"$b\" \"$sr\" \"$s\""
    );
    l
}

/// What [`probe_line`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// `uname -s` (`Linux`, `Darwin`, …).
    pub os: String,
    /// `tmux -V` without `tmux `, e.g. `3.8`; `Err` with the shell's text
    /// when the binary could not run (exit status 126/127: not found).
    pub binary: Result<String, String>,
    /// The server's version and pid; `Err` with tmux's text (no server, or
    /// a server the binary cannot talk to).
    pub server: Result<(String, u32), String>,
}

/// Reads [`probe_line`]'s answer (the text after the banner).
///
/// # Errors
///
/// A description when the text does not have the probe's shape.
pub fn parse_probe(text: &str) -> Result<Probe, String> {
    let mut os = None;
    let mut binary = None;
    let mut server = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(v) = line.strip_prefix("os ") {
            os = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("bin ") {
            let (status, rest) = v.split_once(' ').unwrap_or((v, ""));
            binary = Some(match (status, rest.strip_prefix("tmux ")) {
                ("0", Some(ver)) => Ok(ver.trim().to_string()),
                _ => Err(rest.trim().to_string()),
            });
        } else if let Some(v) = line.strip_prefix("srv ") {
            // The server's answer may be several lines (an error): the rest.
            let mut all = v.to_string();
            for more in lines.by_ref() {
                all.push('\n');
                all.push_str(more);
            }
            let (status, rest) = all.split_once(' ').unwrap_or((&all, ""));
            let rest = rest.trim();
            server = Some(match status {
                "0" => {
                    let (ver, pid) = rest
                        .split_once(' ')
                        .ok_or_else(|| format!("unexpected server answer {rest:?}"))?;
                    let pid = pid
                        .trim()
                        .parse()
                        .map_err(|_| format!("unexpected server pid {pid:?}"))?;
                    Ok((ver.to_string(), pid))
                }
                _ => Err(rest.to_string()),
            });
        }
    }
    match (os, binary, server) {
        (Some(os), Some(binary), Some(server)) => Ok(Probe { os, binary, server }),
        _ => Err(format!(
            "the host's answer to the probe was not understood: {text:?}"
        )),
    }
}

/// Splits what a remote line printed at the banner: the bytes after the
/// first whole line `TWREADY <nonce>` (at the start of `out` or after a
/// `\n`), or `None` when there is none (the line did not run: the shell or
/// `ssh` failed first). The same text inside a longer line is not the
/// banner and does not hide a banner after it.
pub fn after_banner<'a>(out: &'a [u8], nonce: &str) -> Option<&'a [u8]> {
    let line = format!("{BANNER} {nonce}\n");
    memchr::memmem::find_iter(out, line.as_bytes())
        .find(|&at| at == 0 || out[at - 1] == b'\n')
        .map(|at| &out[at + line.len()..])
}

/// Why an `ssh` invocation failed, from its exit status and stderr
/// (`ssh` exits 255 for its own errors, else with the remote status;
/// sh exits 127 for a command not found).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The user must authenticate once by hand (a key the agent does not
    /// hold, a password, MFA): `BatchMode` never prompts.
    AuthRequired,
    /// The host's key is not in `known_hosts`.
    HostKeyUnknown,
    /// The host's key differs from the one in `known_hosts`.
    HostKeyChanged,
    /// The host could not be reached (DNS, refused, timed out, no route).
    Unreachable,
    /// The connection's `MaxSessions` refused one more session.
    SessionLimit,
    /// `tmux` is not installed on the host (or not on `PATH`).
    TmuxNotFound,
    /// Anything else.
    Other,
}

/// Classifies a failed `ssh` run ([`Failure`]).
pub fn classify(status: Option<i32>, stderr: &str) -> Failure {
    let has = |s: &str| stderr.contains(s);
    // 126/127: the shell could not run a command (not ssh's own failure,
    // which is 255), whatever the words ("Permission denied" too).
    if matches!(status, Some(126 | 127)) {
        return Failure::TmuxNotFound;
    }
    if has("Session open refused by peer") || has("administratively prohibited") {
        return Failure::SessionLimit;
    }
    if has("REMOTE HOST IDENTIFICATION HAS CHANGED") || has("Host key for") && has("has changed") {
        return Failure::HostKeyChanged;
    }
    if has("Host key verification failed") || has("No ") && has("host key is known") {
        return Failure::HostKeyUnknown;
    }
    if has("Permission denied")
        || has("Too many authentication failures")
        || has("keyboard-interactive")
        || has("passphrase")
    {
        return Failure::AuthRequired;
    }
    if has("Could not resolve hostname")
        || has("Connection refused")
        || has("Connection timed out")
        || has("No route to host")
        || has("Network is unreachable")
        || has("Connection closed by")
        || has("Connection reset")
        || has("Operation timed out")
    {
        return Failure::Unreachable;
    }
    Failure::Other
}

/// The last useful line of `ssh`'s stderr, for a message (OpenSSH's
/// banners and warnings first; the error is last).
pub fn last_line(stderr: &str) -> &str {
    stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `line` the way the remote side does: [`BOOT`] under `sh -c`,
    /// the line on stdin.
    fn run(line: &str) -> std::process::Output {
        use std::io::Write;
        let mut child = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(BOOT)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    #[test]
    fn quoted_arguments_reach_the_program_unchanged() {
        let hostile = [
            "plain",
            "it's",
            "a\nb",
            "$(touch /tmp/never) `x` $HOME \\ \\n \"q\"",
            "%1 ; ;; ' ''",
            "",
            "é 日本",
        ];
        for h in hostile {
            let line = format!("{}printf '%s' {}\n", preamble("n1"), quote(h));
            let out = run(&line);
            assert!(out.status.success(), "{h:?}: {out:?}");
            let body = after_banner(&out.stdout, "n1").unwrap();
            assert_eq!(body, h.as_bytes(), "{h:?}");
        }
    }

    #[test]
    fn the_rest_of_stdin_is_left_for_the_program() {
        use std::io::Write;
        let line = format!("{}exec cat\n", preamble("n2"));
        let mut child = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(BOOT)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"list-sessions\nsecond line\n").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            after_banner(&out.stdout, "n2").unwrap(),
            b"list-sessions\nsecond line\n"
        );
    }

    #[test]
    fn banner_skips_start_up_chatter_and_needs_the_nonce() {
        assert_eq!(
            after_banner(b"welcome\nTWREADY abc\n%begin", "abc"),
            Some(&b"%begin"[..])
        );
        assert_eq!(after_banner(b"TWREADY abd\n", "abc"), None);
        assert_eq!(after_banner(b"xTWREADY abc\n", "abc"), None);
        // Text that only ends like the banner hides no banner after it.
        assert_eq!(
            after_banner(b"echo xTWREADY abc\nTWREADY abc\nok", "abc"),
            Some(&b"ok"[..])
        );
    }

    #[test]
    fn exec_lines_join_commands_as_tmux_argv() {
        let client = |term: &str, socket| Client {
            nonce: "n".into(),
            term: term.into(),
            tmux: "tmux".into(),
            socket,
        };
        let l = exec_line(
            &client("tmuxwire", RemoteSocket::Name("w".into())),
            &[&["display-message", "-p", "a;"][..], &["list-sessions"][..]],
            false,
        );
        assert!(
            l.ends_with(
                "exec env TERM='tmuxwire' \"$T\" -N -u '-L' 'w' 'display-message' '-p' 'a\\;' ';' \
                 'list-sessions'\n"
            ),
            "{l}"
        );
        let l = exec_line::<&str>(
            &client("t", RemoteSocket::Path("/tmp/x/tmux.sock".into())),
            &[&["new-session"]],
            true,
        );
        assert!(
            l.ends_with("exec \"$T\" -u '-S' '/tmp/x/tmux.sock' 'new-session'\n"),
            "{l}"
        );
    }

    #[test]
    fn probe_answers_are_read() {
        let p = parse_probe("os Linux\nbin 0 tmux 3.8\nsrv 0 3.5a 4242\n").unwrap();
        assert_eq!(p.os, "Linux");
        assert_eq!(p.binary, Ok("3.8".into()));
        assert_eq!(p.server, Ok(("3.5a".into(), 4242)));
        let p = parse_probe(
            "os Linux\nbin 127 sh: 1: tmux: not found\nsrv 127 sh: 1: tmux: not found\n",
        )
        .unwrap();
        assert!(p.binary.is_err());
        let p = parse_probe(
            "os Linux\nbin 0 tmux 3.3a\nsrv 1 error connecting to /tmp/x (No such file or \
             directory)\n",
        )
        .unwrap();
        assert_eq!(
            p.server,
            Err("error connecting to /tmp/x (No such file or directory)".into())
        );
        assert!(parse_probe("garbage").is_err());
        assert!(parse_probe("os L\nbin 0 tmux 3.3a\nsrv 0 3.3a notapid\n").is_err());
    }

    #[test]
    fn the_probe_runs_under_sh() {
        let out = run(&probe_line(
            "n3",
            "/nonexistent/tmux",
            &RemoteSocket::Path("/nonexistent/sock".into()),
        ));
        let body = after_banner(&out.stdout, "n3").unwrap();
        let p = parse_probe(&String::from_utf8_lossy(body)).unwrap();
        assert!(p.binary.is_err(), "{p:?}");
        assert!(p.server.is_err(), "{p:?}");
    }

    #[test]
    fn ssh_failures_are_classified() {
        assert_eq!(
            classify(Some(255), "user@h: Permission denied (publickey).\n"),
            Failure::AuthRequired
        );
        assert_eq!(
            classify(
                Some(255),
                "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict \
                 checking.\nHost key verification failed.\n"
            ),
            Failure::HostKeyUnknown
        );
        assert_eq!(
            classify(
                Some(255),
                "@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key \
                 verification failed.\n"
            ),
            Failure::HostKeyChanged
        );
        assert_eq!(
            classify(
                Some(255),
                "ssh: connect to host 127.0.0.1 port 1: Connection refused\n"
            ),
            Failure::Unreachable
        );
        assert_eq!(
            classify(
                Some(255),
                "mux_client_request_session: session request failed: Session open refused by \
                 peer\n"
            ),
            Failure::SessionLimit
        );
        assert_eq!(
            classify(Some(127), "sh: 1: tmux: not found\n"),
            Failure::TmuxNotFound
        );
        assert_eq!(classify(Some(1), "whatever\n"), Failure::Other);
        assert_eq!(
            classify(Some(126), "sh: 1: /tmp: Permission denied\n"),
            Failure::TmuxNotFound
        );
        assert_eq!(last_line("a\n\nb \n\n"), "b");
    }
}
