//! The `tmuxwire` binary as a person uses it: `panes`, `capture`, `search`, exit codes,
//! socket selection, help texts and the demo. Each test runs the real binary against its own
//! private tmux server.

use std::path::Path;
use std::process::{Command, Output};

use crate::cases::util::*;
use crate::support::{DEADLINE, TestServer, test_env, tmux_bins, wait_until};

/// Environment variables that select a socket; removed from every run unless a test sets one.
const SOCKET_VARS: &[&str] = &[
    "TMUXWIRE_SOCKET_PATH",
    "TMUXWIRE_SOCKET_NAME",
    "LIBTMUX_SOCKET_PATH",
    "LIBTMUX_SOCKET",
    "TMUXWIRE_TMUX",
];

/// The binary with a clean environment (no `TMUX`, no socket variables).
fn tmuxwire() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tmuxwire"));
    test_env(&mut cmd);
    for v in SOCKET_VARS {
        cmd.env_remove(v);
    }
    cmd
}

/// Runs `tmuxwire -S <socket> args...`.
fn tw(socket: &Path, args: &[&str]) -> Output {
    tmuxwire()
        .arg("-S")
        .arg(socket)
        .args(args)
        .output()
        .expect("run tmuxwire")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// Asserts exit code `want`, showing the output otherwise.
fn expect_code(o: &Output, want: i32, what: &str) {
    assert_eq!(
        code(o),
        want,
        "{what}: exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

/// A server with two sessions, `alpha` (two panes) and `beta`, and known text in each pane.
/// Returns the server and its panes as (pane_id, "session:window.pane").
fn two_sessions(bin: &crate::support::TmuxBin) -> (TestServer, Vec<(String, String)>) {
    let server = TestServer::builder(bin)
        .session("alpha")
        .size(60, 12)
        .start();
    server.tmux_ok(&["split-window", "-d", "-t", "=alpha:"]);
    server.tmux_ok(&["new-session", "-d", "-s", "beta", "-x", "60", "-y", "12"]);
    let list = server.tmux_ok(&[
        "list-panes",
        "-a",
        "-F",
        "#{pane_id} #{session_name}:#{window_index}.#{pane_index}",
    ]);
    let panes: Vec<(String, String)> = list
        .lines()
        .map(|l| {
            let (id, pos) = l.split_once(' ').unwrap();
            (id.to_string(), pos.to_string())
        })
        .collect();
    assert_eq!(panes.len(), 3);
    for (id, pos) in &panes {
        server.wait_for_text(id, "$", DEADLINE);
        run(&server, id, &format!("seq 1 30; echo CLI-MA''RK {pos}"));
    }
    (server, panes)
}

/// `panes` lists every pane, `%N\tsession:window.pane\tWxH\tcommand\tpath`, as tmux does.
#[test]
fn cli_panes_lists_every_pane() {
    for bin in tmux_bins() {
        let (server, _) = two_sessions(&bin);
        let o = tw(&server.socket, &["panes"]);
        expect_code(&o, 0, "panes");
        let want = server.tmux_ok(&[
            "list-panes",
            "-a",
            "-F",
            "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_width}x#{pane_height}\t#{pane_current_command}\t#{pane_current_path}",
        ]);
        assert_eq!(stdout(&o), want, "tmux {}", bin.label);
        // Scoped to one session.
        let o = tw(&server.socket, &["panes", "-t", "beta"]);
        expect_code(&o, 0, "panes -t beta");
        let got = stdout(&o);
        assert_eq!(got.lines().count(), 1, "{got}");
        assert!(got.contains("\tbeta:0.0\t60x12\t"), "{got}");
        // A missing session: exit 2, message on stderr, nothing on stdout.
        let o = tw(&server.socket, &["panes", "-t", "alph"]);
        expect_code(&o, 2, "panes -t alph");
        assert!(stdout(&o).is_empty());
        assert!(stderr(&o).contains("alph"), "{}", stderr(&o));
    }
}

/// `capture -t %N --start -5` prints what `tmux capture-pane -p -S -5` prints.
#[test]
fn cli_capture_equals_tmux() {
    for bin in tmux_bins() {
        let (server, panes) = two_sessions(&bin);
        for (id, _) in &panes {
            for extra in [
                vec!["--start", "-5"],
                vec![],
                vec!["--start", "-20", "--end", "3"],
                vec!["--start", "-5", "-J"],
            ] {
                let mut args = vec!["capture", "-t", id.as_str()];
                args.extend(&extra);
                let o = tw(&server.socket, &args);
                expect_code(&o, 0, "capture");
                let mut tmux_args: Vec<&str> = Vec::new();
                for pair in extra.chunks(2) {
                    match pair {
                        ["--start", v] => tmux_args.extend(["-S", v]),
                        ["--end", v] => tmux_args.extend(["-E", v]),
                        ["-J", ..] => tmux_args.push("-J"),
                        _ => unreachable!(),
                    }
                }
                let want = tmux_lines(&server, id, &tmux_args);
                let got: Vec<String> = lines_of(&stdout(&o))
                    .into_iter()
                    .map(|l| l.trim_end().to_string())
                    .collect();
                assert_eq!(got, want, "tmux {}: capture {extra:?} of {id}", bin.label);
            }
        }
        // --max-lines keeps the newest lines after a header.
        let (id, _) = &panes[0];
        let o = tw(
            &server.socket,
            &["capture", "-t", id, "--start", "-20", "--max-lines", "3"],
        );
        expect_code(&o, 0, "capture --max-lines");
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("[... truncated "), "{out}");
        assert_eq!(lines.len(), 4, "{out}");
        // A missing pane: exit 2.
        let o = tw(&server.socket, &["capture", "-t", "%999"]);
        expect_code(&o, 2, "capture %999");
        assert!(!stderr(&o).is_empty());
        let o = tw(&server.socket, &["capture", "-t", "%x"]);
        expect_code(&o, 2, "capture %x");
    }
}

/// `search PATTERN` prints `session:window.pane:line: text` (tmux line numbers); exit 0 with
/// matches, 1 without (and no stdout), 2 on errors (with a message on stderr).
#[test]
fn cli_search_output_and_exit_codes() {
    for bin in tmux_bins() {
        let (server, panes) = two_sessions(&bin);
        let o = tw(&server.socket, &["search", "CLI-MARK"]);
        expect_code(&o, 0, "search CLI-MARK");
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "tmux {}: {out}", bin.label);
        for ((id, pos), line) in panes.iter().zip(&lines) {
            // "alpha:0.1:-3: CLI-MARK alpha:0.1"
            let (prefix, text) = line.split_once(": ").unwrap();
            assert_eq!(text, format!("CLI-MARK {pos}"), "{line}");
            let (where_, num) = prefix.rsplit_once(':').unwrap();
            assert_eq!(where_, pos, "{line}");
            // The number is tmux's: capture-pane -S n -E n shows that line.
            let back = tmux_lines(&server, id, &["-J", "-S", num, "-E", num]);
            assert_eq!(back, vec![text.to_string()], "tmux {}: {line}", bin.label);
        }
        // Regex, case-insensitivity, per-pane cap.
        let o = tw(
            &server.socket,
            &["search", "--regex", r"^cli-mark beta:\d\.\d$"],
        );
        expect_code(&o, 0, "search --regex");
        assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
        let o = tw(&server.socket, &["search", "-s", "cli-mark"]);
        expect_code(&o, 1, "search -s cli-mark");
        assert!(stdout(&o).is_empty());
        let o = tw(&server.socket, &["search", "-e", r"^\d+$", "-m", "2"]);
        expect_code(&o, 0, "search -m 2");
        assert_eq!(stdout(&o).lines().count(), 6, "{}", stdout(&o));
        // Session scoping, by name and by id.
        let o = tw(&server.socket, &["search", "CLI-MARK", "-t", "beta"]);
        expect_code(&o, 0, "search -t beta");
        let out = stdout(&o);
        assert_eq!(out.lines().count(), 1, "{out}");
        assert!(out.starts_with("beta:0.0:"), "{out}");
        let beta_id = server
            .tmux_ok(&["display-message", "-p", "-t", "=beta:", "#{session_id}"])
            .trim()
            .to_string();
        let o = tw(&server.socket, &["search", "CLI-MARK", "-t", &beta_id]);
        expect_code(&o, 0, "search -t $id");
        assert_eq!(stdout(&o), out);
        let o = tw(&server.socket, &["search", "CLI-MARK", "-t", "bet"]);
        expect_code(&o, 2, "search -t bet (a prefix is not a session)");
        assert!(stdout(&o).is_empty());
        // No match: exit 1, nothing printed.
        let o = tw(&server.socket, &["search", "no-such-text-anywhere"]);
        expect_code(&o, 1, "no match");
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        // Errors: exit 2, message on stderr, nothing on stdout.
        for args in [
            vec!["search", "--regex", "("],
            vec!["search", ""],
            vec!["search", "x", "-m", "0"],
        ] {
            let o = tw(&server.socket, &args);
            expect_code(&o, 2, &format!("{args:?}"));
            assert!(stdout(&o).is_empty());
            assert!(stderr(&o).starts_with("tmuxwire: "), "{}", stderr(&o));
        }
        // A literal with regex characters is literal.
        let o = tw(&server.socket, &["search", "("]);
        expect_code(&o, 1, "literal (");
    }
}

/// No server on the socket: every command exits 2 with a message naming the socket.
#[test]
fn cli_no_server_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nothing.sock");
    for args in [
        vec!["panes"],
        vec!["capture"],
        vec!["search", "x"],
        vec!["capture", "-t", "%0"],
    ] {
        let o = tw(&socket, &args);
        expect_code(&o, 2, &format!("{args:?}"));
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        let err = stderr(&o);
        assert!(
            err.contains("no tmux server running on") && err.contains(&*socket.to_string_lossy()),
            "{args:?}: {err}"
        );
    }
    // A stale socket file (a server that was killed) is "no server" too.
    let bin = crate::support::system_tmux();
    let mut server = TestServer::start(&bin);
    let pid = server.server_pid().to_string();
    assert!(
        Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    wait_until("server dead", DEADLINE, || {
        (!server.is_alive()).then_some(())
    });
    let o = tw(&server.socket, &["search", "x"]);
    expect_code(&o, 2, "stale socket");
    assert!(
        stderr(&o).contains("no tmux server running on"),
        "{}",
        stderr(&o)
    );
    server.kill();
}

/// `TMUXWIRE_SOCKET_PATH` and `LIBTMUX_SOCKET_PATH` select the server without `-S`; `-S`
/// beats both, and tmuxwire's variable beats libtmux's.
#[test]
fn cli_socket_from_environment() {
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).session("envsel").start();
    let pane = first_pane(&server);
    run(&server, &pane, "echo ENV-SEL''ECTED");
    let dir = tempfile::tempdir().unwrap();
    let nothing = dir.path().join("nothing.sock");
    for var in ["TMUXWIRE_SOCKET_PATH", "LIBTMUX_SOCKET_PATH"] {
        let o = tmuxwire()
            .env(var, &server.socket)
            .args(["search", "ENV-SELECTED"])
            .output()
            .unwrap();
        expect_code(&o, 0, var);
        assert!(
            stdout(&o).starts_with("envsel:0.0:"),
            "{var}: {}",
            stdout(&o)
        );
        let o = tmuxwire()
            .env(var, &server.socket)
            .arg("panes")
            .output()
            .unwrap();
        expect_code(&o, 0, var);
        assert!(stdout(&o).starts_with(&format!("{pane}\tenvsel:0.0\t")));
        // -S wins over the variable.
        let o = tmuxwire()
            .env(var, &server.socket)
            .arg("-S")
            .arg(&nothing)
            .arg("panes")
            .output()
            .unwrap();
        expect_code(&o, 2, "-S beats env");
    }
    // TMUXWIRE_SOCKET_PATH beats LIBTMUX_SOCKET_PATH.
    let o = tmuxwire()
        .env("TMUXWIRE_SOCKET_PATH", &server.socket)
        .env("LIBTMUX_SOCKET_PATH", &nothing)
        .arg("panes")
        .output()
        .unwrap();
    expect_code(&o, 0, "tmuxwire var first");
    let o = tmuxwire()
        .env("TMUXWIRE_SOCKET_PATH", &nothing)
        .env("LIBTMUX_SOCKET_PATH", &server.socket)
        .arg("panes")
        .output()
        .unwrap();
    expect_code(&o, 2, "tmuxwire var first");
}

/// `--help` and every subcommand's `--help` exit 0 and show an example.
#[test]
fn cli_help_has_examples() {
    for args in [
        vec!["--help"],
        vec!["mcp", "--help"],
        vec!["panes", "--help"],
        vec!["capture", "--help"],
        vec!["search", "--help"],
        vec!["demo", "--help"],
        vec!["help", "search"],
    ] {
        let o = tmuxwire().args(&args).output().unwrap();
        expect_code(&o, 0, &format!("{args:?}"));
        let out = stdout(&o);
        assert!(out.contains("Example"), "{args:?}: {out}");
        assert!(out.contains("Usage: tmuxwire"), "{args:?}: {out}");
    }
    let o = tmuxwire().arg("--version").output().unwrap();
    expect_code(&o, 0, "--version");
    assert!(stdout(&o).starts_with("tmuxwire "));
    // Usage errors are clap's: exit 2, message on stderr.
    for args in [
        vec![],
        vec!["bogus"],
        vec!["search"],
        vec!["capture", "--start"],
    ] {
        let o = tmuxwire().args(&args).output().unwrap();
        expect_code(&o, 2, &format!("{args:?}"));
        assert!(!stderr(&o).is_empty());
    }
}

/// `tmuxwire demo --tmux <bin>` works with every tmux, finds the wrapped needle, and leaves no
/// server and no temp directory behind.
#[test]
fn cli_demo_runs_and_cleans_up() {
    for bin in tmux_bins() {
        let tmp = tempfile::tempdir().unwrap();
        let o = tmuxwire()
            .env("TMPDIR", tmp.path())
            .arg("demo")
            .arg("--tmux")
            .arg(&bin.path)
            .output()
            .unwrap();
        expect_code(&o, 0, &format!("demo with tmux {}", bin.label));
        let out = stdout(&o);
        // The wrapped-needle search printed a match line with the needle, spanning 2 rows.
        let needle_lines: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("DEMO-NEEDLE-42") && l.contains("line "))
            .collect();
        assert_eq!(needle_lines.len(), 1, "tmux {}: {out}", bin.label);
        assert!(needle_lines[0].contains("(2 rows)"), "{}", needle_lines[0]);
        assert!(
            out.contains(&format!("get_server_info: tmux {}", bin.label)),
            "tmux {}: {out}",
            bin.label
        );
        // The socket it printed.
        let sock = out
            .lines()
            .find_map(|l| l.strip_prefix("tmuxwire demo: a private tmux server on "))
            .unwrap_or_else(|| panic!("no socket line in {out}"))
            .to_string();
        assert!(sock.starts_with(&*tmp.path().to_string_lossy()), "{sock}");
        // Nothing left: the demo's directory is gone and no tmux process uses that socket.
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert!(
            leftovers.is_empty(),
            "tmux {}: left {leftovers:?}",
            bin.label
        );
        wait_until("demo server gone", DEADLINE, || {
            let pg = Command::new("pgrep").args(["-f", &sock]).output().unwrap();
            pg.stdout.is_empty().then_some(())
        });
    }
}
