//! The `tmuxwire` binary as a person uses it: `panes`, `capture`, `search` and their flags, `-t`
//! in every form, context lines, colour, notes on stderr, errors in CLI words, exit codes,
//! socket selection, help texts and the demo. Each test runs the real binary against its own
//! private tmux server, for every tmux version in [`tmux_bins`].

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
        // --max-lines keeps the newest lines, like tail -n: no header, no note.
        let (id, _) = &panes[0];
        let o = tw(
            &server.socket,
            &["capture", "-t", id, "--start", "-20", "--max-lines", "3"],
        );
        expect_code(&o, 0, "capture --max-lines");
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        let want = tmux_lines(&server, id, &["-S", "-20"]);
        assert_eq!(lines, want[want.len() - 3..], "{out}");
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
        // A missing pane: exit 2.
        let o = tw(&server.socket, &["capture", "-t", "%999"]);
        expect_code(&o, 2, "capture %999");
        assert!(!stderr(&o).is_empty());
        let o = tw(&server.socket, &["capture", "-t", "%x"]);
        expect_code(&o, 2, "capture %x");
    }
}

/// `search PATTERN` prints `session:window.pane:line:text` (tmux line numbers); exit 0 with
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
            // "alpha:0.1:-3:CLI-MARK alpha:0.1"
            let (where_, rest) = line.split_at(pos.len());
            assert_eq!(where_, pos, "{line}");
            let (num, text) = rest[1..].split_once(':').unwrap();
            assert_eq!(text, format!("CLI-MARK {pos}"), "{line}");
            // The number is tmux's: capture-pane -S n -E n shows that line.
            let back = tmux_lines(&server, id, &["-J", "-S", num, "-E", num]);
            assert_eq!(back, vec![text.to_string()], "tmux {}: {line}", bin.label);
        }
        // Regex, case, per-pane cap.
        let o = tw(
            &server.socket,
            &["search", "-i", "--regex", r"^cli-mark beta:\d\.\d$"],
        );
        expect_code(&o, 0, "search -i --regex");
        assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
        let o = tw(&server.socket, &["search", "cli-mark"]);
        expect_code(&o, 1, "search cli-mark (case-sensitive by default)");
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
        for args in [vec!["search", "--regex", "("], vec!["search", ""]] {
            let o = tw(&server.socket, &args);
            expect_code(&o, 2, &format!("{args:?}"));
            assert!(stdout(&o).is_empty());
            assert!(stderr(&o).starts_with("tmuxwire: "), "{}", stderr(&o));
        }
        // A bad flag value is a usage error (clap's), naming the flag.
        let o = tw(&server.socket, &["search", "x", "-m", "0"]);
        expect_code(&o, 2, "-m 0");
        assert!(stdout(&o).is_empty());
        assert!(stderr(&o).contains("--max-count"), "{}", stderr(&o));
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

/// `tmuxwire demo` (small: `--lines 2000`) checks out all five steps with every tmux, prints
/// them without colour codes into a pipe, and leaves no server and no temp directory behind.
#[test]
fn cli_demo_runs_and_cleans_up() {
    for bin in tmux_bins() {
        let tmp = tempfile::tempdir().unwrap();
        let o = tmuxwire()
            .env("TMPDIR", tmp.path())
            .env_remove("NO_COLOR")
            .args(["demo", "--lines", "2000", "--tmux"])
            .arg(&bin.path)
            .output()
            .unwrap();
        expect_code(&o, 0, &format!("demo with tmux {}", bin.label));
        let out = stdout(&o);
        let what = format!("tmux {}: {out}", bin.label);
        assert!(!out.contains('\x1b'), "colour codes in a pipe: {what}");
        assert!(out.contains(&format!("tmux {};", bin.label)), "{what}");
        for n in 1..=5 {
            assert!(out.contains(&format!("\n{n}. ")), "no step {n}: {what}");
        }
        assert_eq!(out.matches('✓').count(), 5, "{what}");
        assert!(out.contains("All 5 steps checked out"), "{what}");
        // Each step's figure is there: tmux's time and the ratio, the wrapped rows, the wake-up,
        // the exit status, the gone pane.
        assert!(out.contains("capture-pane -p -J -S - | grep -F"), "{what}");
        assert!(out.contains("later searches (median of 5)"), "{what}");
        assert!(
            out.contains("× faster") || out.contains("× slower") || out.contains("about as fast"),
            "{what}"
        );
        assert!(
            out.contains("starts  \"ls do not match the receipt"),
            "{what}"
        );
        assert!(
            out.contains("find-window reads row by row and misses it"),
            "{what}"
        );
        assert!(out.contains("ms after the line was printed"), "{what}");
        assert!(out.contains("exit status 3, 4 lines"), "{what}");
        assert!(out.contains("in the gone pane"), "{what}");
        let sock = out
            .lines()
            .find_map(|l| l.strip_prefix("tmuxwire demo: a private tmux server on "))
            .unwrap_or_else(|| panic!("no socket line in {what}"))
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

/// A demo that cannot start tmux says so, exits 2 and leaves no temp directory behind.
#[test]
fn cli_demo_without_tmux_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmuxwire()
        .env("TMPDIR", tmp.path())
        .args(["demo", "--lines", "100", "--tmux"])
        .arg(tmp.path().join("no-such-tmux"))
        .output()
        .unwrap();
    expect_code(&o, 2, "demo without tmux");
    assert!(stderr(&o).contains("cannot run"), "{}", stderr(&o));
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(leftovers.is_empty(), "left {leftovers:?}");
    // Too few lines is a usage error.
    let o = tmuxwire().args(["demo", "--lines", "5"]).output().unwrap();
    expect_code(&o, 2, "demo --lines 5");
}

/// A pane that has shown `text` (written to a file and `cat`, so the command line holds none of
/// it), on a server of its own with one session `name` of `w`×`h` cells. Returns the server,
/// the pane and the directory holding the file.
fn pane_with(
    bin: &crate::support::TmuxBin,
    name: &str,
    (w, h): (u32, u32),
    text: &str,
) -> (TestServer, String, tempfile::TempDir) {
    let server = TestServer::builder(bin)
        .session(name)
        .size(w, h)
        .history_limit(200_000)
        .start();
    let pane = first_pane(&server);
    let dir = tempfile::tempdir().unwrap();
    show(&server, &pane, &dir, text);
    (server, pane, dir)
}

/// Makes `pane` show `text` (see [`pane_with`]).
fn show(server: &TestServer, pane: &str, dir: &tempfile::TempDir, text: &str) {
    let file = dir
        .path()
        .join(format!("t{}.txt", pane.trim_start_matches('%')));
    std::fs::write(&file, text).unwrap();
    run(server, pane, &format!("cat {}", file.display()));
}

/// The lines of stdout.
fn out_lines(o: &Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

const FLAG_TEXT: &str = "\
Error one
error two
errors three
an error: four
suberror five
#.# literal
#z# regex
";

/// Each search flag: literal by default (-F), -e/-E regex, -i, -w, -c, -l, -q, -m; the last of
/// -e/-F and of -i/-s wins.
#[test]
fn cli_search_flags() {
    for bin in tmux_bins() {
        let (server, _pane, _dir) = pane_with(&bin, "flags", (60, 20), FLAG_TEXT);
        let s = &server.socket;
        let texts = |args: &[&str]| -> Vec<String> {
            let o = tw(s, args);
            assert!(code(&o) <= 1, "{args:?}: {}", stderr(&o));
            out_lines(&o)
                .iter()
                .map(|l| {
                    // flags:0.0:N:TEXT
                    let rest = l
                        .strip_prefix("flags:0.0:")
                        .unwrap_or_else(|| panic!("{l}"));
                    rest.split_once(':').unwrap().1.to_string()
                })
                .collect()
        };
        let label = &bin.label;
        // Case-sensitive literal by default.
        assert_eq!(
            texts(&["search", "error"]),
            [
                "error two",
                "errors three",
                "an error: four",
                "suberror five"
            ],
            "tmux {label}"
        );
        assert_eq!(
            texts(&["search", "-i", "error"]),
            [
                "Error one",
                "error two",
                "errors three",
                "an error: four",
                "suberror five"
            ]
        );
        assert_eq!(texts(&["search", "-i", "-s", "Error"]), ["Error one"]);
        assert_eq!(
            texts(&["search", "-w", "error"]),
            ["error two", "an error: four"]
        );
        assert_eq!(
            texts(&["search", "-w", "-i", "error"]),
            ["Error one", "error two", "an error: four"]
        );
        // -F is the default; -e/-E make a regex; the last of them wins.
        assert_eq!(texts(&["search", "#.#"]), ["#.# literal"]);
        assert_eq!(texts(&["search", "-F", "#.#"]), ["#.# literal"]);
        assert_eq!(
            texts(&["search", "-e", "#.#"]),
            ["#.# literal", "#z# regex"]
        );
        assert_eq!(
            texts(&["search", "-E", "#.#"]),
            ["#.# literal", "#z# regex"]
        );
        assert_eq!(texts(&["search", "-e", "-F", "#.#"]), ["#.# literal"]);
        assert_eq!(
            texts(&["search", "-F", "-E", "#.#"]),
            ["#.# literal", "#z# regex"]
        );
        assert_eq!(texts(&["search", "-E", "-w", "e[a-z]+s"]), ["errors three"]);
        // -m keeps the newest N.
        assert_eq!(
            texts(&["search", "-m", "2", "error"]),
            ["an error: four", "suberror five"]
        );
        // -c: counts per pane (-m caps them, as grep -c -m); -l: the panes; -q: nothing.
        let o = tw(s, &["search", "-c", "error"]);
        expect_code(&o, 0, "-c");
        assert_eq!(stdout(&o), "flags:0.0:4\n");
        let o = tw(s, &["search", "-c", "-m", "3", "error"]);
        assert_eq!(stdout(&o), "flags:0.0:3\n");
        let o = tw(s, &["search", "-l", "error"]);
        expect_code(&o, 0, "-l");
        assert_eq!(stdout(&o), "flags:0.0\n");
        let o = tw(s, &["search", "-q", "error"]);
        expect_code(&o, 0, "-q");
        assert!(stdout(&o).is_empty());
        for args in [
            vec!["search", "-q", "nowhere-to-be-found"],
            vec!["search", "-c", "nowhere-to-be-found"],
            vec!["search", "-l", "nowhere-to-be-found"],
        ] {
            let o = tw(s, &args);
            expect_code(&o, 1, &format!("{args:?}"));
            assert!(stdout(&o).is_empty(), "{args:?}");
        }
        // -c and -l together: a usage error.
        expect_code(&tw(s, &["search", "-c", "-l", "x"]), 2, "-c -l");
    }
}

/// The text of the context test, 20 cells wide: (line, rows).
const CONTEXT_TEXT: &[(&str, i64)] = &[
    ("head-line", 1),
    ("ctx-b2", 1),
    ("ctx-b1-0123456789abcdefghij", 2),
    ("MATCH-one-0123456789abcdefghijk", 2),
    ("after-1", 1),
    ("after-2", 1),
    ("after-3", 1),
    ("gap-1", 1),
    ("gap-2", 1),
    ("long-a-0123456789012345678901234567890123456789", 3),
    ("long-b-0123456789012345678901234567890123456789", 3),
    ("MATCH-two", 1),
    ("tail-1", 1),
    ("tail-2", 1),
];

/// `-A/-B/-C`: grep's output, exactly, with line numbers worked out by hand from the rows each
/// line fills (soft wraps at 20 cells), anchored where tmux shows the first line; `--` between
/// groups that do not touch, and between panes.
#[test]
fn cli_search_context_is_exact() {
    for bin in tmux_bins() {
        let text: String = CONTEXT_TEXT.iter().map(|(l, _)| format!("{l}\n")).collect();
        let (server, pane, dir) = pane_with(&bin, "ctx", (20, 10), &text);
        // Where tmux put "head-line": its row in a full capture, less the history size.
        let rows = server.capture(&pane, &["-S", "-", "-E", "-"]);
        let row = rows
            .lines()
            .position(|r| r.trim_end() == "head-line")
            .unwrap() as i64;
        let first = row - history_size(&server, &pane);
        let mut n = Vec::new();
        let mut at = first;
        for (_, r) in CONTEXT_TEXT {
            n.push(at);
            at += r;
        }
        let line = |i: usize, is_match: bool| {
            let sep = if is_match { ':' } else { '-' };
            format!("ctx:0.0{sep}{}{sep}{}", n[i], CONTEXT_TEXT[i].0)
        };
        let want = |lines: &[Option<(usize, bool)>]| -> String {
            lines
                .iter()
                .map(|l| match l {
                    Some((i, m)) => line(*i, *m) + "\n",
                    None => "--\n".to_string(),
                })
                .collect()
        };
        let s = &server.socket;
        let label = &bin.label;
        let o = tw(s, &["search", "-C", "2", "MATCH"]);
        expect_code(&o, 0, "-C 2");
        #[rustfmt::skip]
        let expected = want(&[
            Some((1, false)), Some((2, false)), Some((3, true)), Some((4, false)), Some((5, false)),
            None,
            Some((9, false)), Some((10, false)), Some((11, true)), Some((12, false)),
            Some((13, false)),
        ]);
        assert_eq!(stdout(&o), expected, "tmux {label}");
        // Before only: the span must grow past two 3-row lines.
        let o = tw(s, &["search", "-B", "2", "MATCH-two"]);
        assert_eq!(
            stdout(&o),
            want(&[Some((9, false)), Some((10, false)), Some((11, true))]),
            "tmux {label}"
        );
        // After a wrapped match.
        let o = tw(s, &["search", "-A", "1", "MATCH-one"]);
        assert_eq!(stdout(&o), want(&[Some((3, true)), Some((4, false))]));
        // Groups that touch merge; -A/-B override -C on their side.
        let o = tw(
            s,
            &[
                "search",
                "-e",
                "-C",
                "9",
                "-A",
                "0",
                "-B",
                "1",
                "^(after-2|gap-1)$",
            ],
        );
        #[rustfmt::skip]
        assert_eq!(
            stdout(&o),
            want(&[Some((4, false)), Some((5, true)), Some((6, false)), Some((7, true))]),
            "tmux {label}"
        );
        let o = tw(s, &["search", "-e", "-A", "1", "^(after-1|after-3)$"]);
        #[rustfmt::skip]
        assert_eq!(
            stdout(&o),
            want(&[Some((4, true)), Some((5, false)), Some((6, true)), Some((7, false))])
        );
        // The head of the history: no line before it.
        let o = tw(s, &["search", "-B", "3", "-t", &pane, "ctx-b2"]);
        let out = out_lines(&o);
        assert_eq!(out.last().unwrap(), &line(1, true), "tmux {label}");
        assert_eq!(out[out.len() - 2], line(0, false));
        // A line with a blank row inside (the joined and row captures cannot be aligned): its
        // rows come from its width.
        let spaced = format!("x{}y", " ".repeat(39));
        show(&server, &pane, &dir, &format!("{spaced}\nMATCH-blank\n"));
        let rows = server.capture(&pane, &["-S", "-", "-E", "-"]);
        let row = rows
            .lines()
            .position(|r| r.trim_end() == "MATCH-blank")
            .unwrap() as i64;
        let m = row - history_size(&server, &pane);
        let o = tw(s, &["search", "-B", "1", "MATCH-blank"]);
        assert_eq!(
            stdout(&o),
            format!("ctx:0.0-{}-{spaced}\nctx:0.0:{m}:MATCH-blank\n", m - 3),
            "tmux {label}"
        );
        // A second pane: `--` between panes, panes in `panes` order.
        server.tmux_ok(&["split-window", "-d", "-t", &pane]);
        let second = server
            .tmux_ok(&["list-panes", "-t", &pane, "-F", "#{pane_id}"])
            .lines()
            .nth(1)
            .unwrap()
            .to_string();
        server.wait_for_text(&second, "$", DEADLINE);
        show(&server, &second, &dir, "MATCH-three\nnext\n");
        let o = tw(s, &["search", "-A", "1", "MATCH-t"]);
        let out = out_lines(&o);
        // (The split moved the first pane's lines: numbers are checked above.)
        assert_eq!(out.len(), 5, "tmux {label}: {out:?}");
        assert!(
            out[0].starts_with("ctx:0.0:") && out[0].ends_with(":MATCH-two"),
            "{out:?}"
        );
        assert!(
            out[1].starts_with("ctx:0.0-") && out[1].ends_with("-tail-1"),
            "{out:?}"
        );
        assert_eq!(out[2], "--");
        assert!(
            out[3].starts_with("ctx:0.1:") && out[3].ends_with(":MATCH-three"),
            "{out:?}"
        );
        assert!(
            out[4].starts_with("ctx:0.1-") && out[4].ends_with("-next"),
            "{out:?}"
        );
        // Without context there is no `--`.
        let o = tw(s, &["search", "MATCH-t"]);
        assert_eq!(out_lines(&o).len(), 2);
    }
}

/// `--color=always` colours place, line number and every match (ripgrep's colours); `never`
/// and `auto` into a pipe do not; `auto` on a terminal does, unless `NO_COLOR` is set.
#[test]
fn cli_search_colour() {
    for bin in tmux_bins() {
        let (server, _pane, _dir) = pane_with(&bin, "col", (60, 10), "say a-b and a-b\n");
        let s = &server.socket;
        let o = tw(s, &["search", "--color=always", "a-b"]);
        expect_code(&o, 0, "always");
        let out = stdout(&o);
        let line = out.lines().next().unwrap();
        assert!(
            line.starts_with("\x1b[35mcol:0.0\x1b[0m:\x1b[32m"),
            "{line:?}"
        );
        assert!(
            line.ends_with(":say \x1b[1;31ma-b\x1b[0m and \x1b[1;31ma-b\x1b[0m"),
            "{line:?}"
        );
        let o = tw(s, &["search", "-c", "--color=always", "a-b"]);
        assert_eq!(stdout(&o), "\x1b[35mcol:0.0\x1b[0m:1\n");
        for args in [
            vec!["search", "--color=never", "a-b"],
            vec!["search", "--color=auto", "a-b"],
            vec!["search", "a-b"],
        ] {
            let o = tw(s, &args);
            expect_code(&o, 0, &format!("{args:?}"));
            assert!(!stdout(&o).contains('\x1b'), "{args:?}: {:?}", stdout(&o));
        }
        // On a terminal (script(1) gives one).
        if Command::new("script").arg("--version").output().is_err() {
            eprintln!("script(1) not found: colour on a terminal not tested");
            continue;
        }
        let cmd = format!(
            "{} -S {} search a-b",
            env!("CARGO_BIN_EXE_tmuxwire"),
            s.display()
        );
        for (no_color, coloured) in [(None, true), (Some(""), true), (Some("1"), false)] {
            let mut c = Command::new("script");
            crate::support::test_env(&mut c);
            c.args(["-qec", &cmd, "/dev/null"]);
            match no_color {
                Some(v) => c.env("NO_COLOR", v),
                None => c.env_remove("NO_COLOR"),
            };
            let o = c.output().unwrap();
            expect_code(&o, 0, "script");
            assert_eq!(
                stdout(&o).contains("\x1b[1;31ma-b"),
                coloured,
                "NO_COLOR={no_color:?}: {:?}",
                stdout(&o)
            );
        }
    }
}

/// `-t` takes every form `panes` prints and tmux takes: `%N`, `@N`, `@N.P`, `$N`, `NAME`,
/// `=NAME`, `NAME:`, `session:window`, `session:window.pane`, `:window`, `window.pane`, and
/// window names; for `search` (the target's panes), `capture` (its active pane) and `panes`.
/// Names match exactly; a missing target is an error naming -t.
#[test]
fn cli_every_target_form() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("work")
            .size(60, 12)
            .start();
        server.tmux_ok(&["new-window", "-d", "-t", "=work:", "-n", "logs"]);
        server.tmux_ok(&["split-window", "-d", "-t", "=work:1"]);
        server.tmux_ok(&[
            "new-session",
            "-d",
            "-s",
            "workshop",
            "-x",
            "60",
            "-y",
            "12",
        ]);
        let list = server.tmux_ok(&[
            "list-panes",
            "-a",
            "-F",
            "#{pane_id} #{session_name}:#{window_index}.#{pane_index} #{window_id} #{session_id}",
        ]);
        // (pane, place, window, session)
        let panes: Vec<Vec<String>> = list
            .lines()
            .map(|l| l.split(' ').map(str::to_string).collect())
            .collect();
        assert_eq!(panes.len(), 4);
        for p in &panes {
            server.wait_for_text(&p[0], "$", DEADLINE);
            run(&server, &p[0], &format!("echo T-MA''RK {}", p[1]));
        }
        let by = |place: &str| panes.iter().find(|p| p[1] == place).unwrap().clone();
        let (w00, w10, w11, ws) = (
            by("work:0.0"),
            by("work:1.0"),
            by("work:1.1"),
            by("workshop:0.0"),
        );
        // The places whose marks a search finds.
        let found = |args: &[&str]| -> Vec<String> {
            let o = tw(&server.socket, args);
            expect_code(&o, 0, &format!("{args:?}"));
            out_lines(&o)
                .iter()
                .map(|l| l.rsplit_once("T-MARK ").unwrap().1.to_string())
                .collect()
        };
        let label = &bin.label;
        let search = |t: &str| found(&["search", "T-MARK", "-t", t]);
        let all_work = ["work:0.0", "work:1.0", "work:1.1"];
        for (t, want) in [
            (w11[0].as_str(), &["work:1.1"][..]),
            ("work:1.1", &["work:1.1"]),
            ("work:1.0", &["work:1.0"]),
            ("work:1", &["work:1.0", "work:1.1"]),
            ("work:logs", &["work:1.0", "work:1.1"]),
            ("work:=logs", &["work:1.0", "work:1.1"]),
            (w10[2].as_str(), &["work:1.0", "work:1.1"]),
            (&format!("{}.1", w10[2]), &["work:1.1"]),
            ("work", &all_work),
            ("=work", &all_work),
            ("work:", &all_work),
            (w00[3].as_str(), &all_work),
            (&format!("{}:1.1", w00[3]), &["work:1.1"]),
            ("workshop", &["workshop:0.0"]),
        ] {
            assert_eq!(search(t), want, "tmux {label}: -t {t}");
        }
        // capture: the pane, or the active pane of a window or session.
        let capture = |t: &str| -> String {
            let o = tw(&server.socket, &["capture", "-t", t]);
            expect_code(&o, 0, &format!("capture -t {t}"));
            let out = stdout(&o);
            let mark = out.lines().find_map(|l| l.strip_prefix("T-MARK "));
            mark.unwrap_or_else(|| panic!("-t {t}: {out}")).to_string()
        };
        let active_of_1 = server
            .tmux_ok(&[
                "display-message",
                "-p",
                "-t",
                "=work:1",
                "#{session_name}:#{window_index}.#{pane_index}",
            ])
            .trim()
            .to_string();
        for (t, want) in [
            (w11[0].as_str(), "work:1.1"),
            ("work:1.1", "work:1.1"),
            ("work:1.0", "work:1.0"),
            ("work:1", active_of_1.as_str()),
            (w10[2].as_str(), active_of_1.as_str()),
            ("work:0", "work:0.0"),
            ("workshop", "workshop:0.0"),
            (ws[3].as_str(), "workshop:0.0"),
            ("=workshop:0.0", "workshop:0.0"),
        ] {
            assert_eq!(capture(t), want, "tmux {label}: capture -t {t}");
        }
        // The current session (no tmux client: the one used last) for `:W` and `W.P`.
        let current = server
            .tmux_ok(&["display-message", "-p", "#{session_name}"])
            .trim()
            .to_string();
        if current == "work" {
            assert_eq!(search("1.1"), ["work:1.1"], "tmux {label}");
            assert_eq!(search(":1"), ["work:1.0", "work:1.1"]);
        }
        // panes -t: the same scopes, one line per pane.
        for (t, n) in [
            ("work", 3),
            ("work:1", 2),
            ("work:1.1", 1),
            (w00[0].as_str(), 1),
        ] {
            let o = tw(&server.socket, &["panes", "-t", t]);
            expect_code(&o, 0, &format!("panes -t {t}"));
            assert_eq!(out_lines(&o).len(), n, "panes -t {t}: {}", stdout(&o));
        }
        // Missing targets: exit 2, `-t VALUE: no such …`, a hint about `tmuxwire panes`.
        for (t, what) in [
            ("work:9.9", "no such pane"),
            ("work:9", "no such window"),
            ("work:1.7", "no such pane"),
            ("wor", "no such session"),
            ("nope:0.0", "no such pane"),
            ("%9999", "no such pane"),
            ("@9999", "no such window"),
            ("$9999", "no such session"),
        ] {
            for cmd in ["search", "capture", "panes"] {
                let mut args = vec![cmd, "-t", t];
                if cmd == "search" {
                    args.push("T-MARK");
                }
                let o = tw(&server.socket, &args);
                expect_code(&o, 2, &format!("{args:?}"));
                assert!(stdout(&o).is_empty());
                let err = stderr(&o);
                assert!(
                    err.starts_with(&format!("tmuxwire: -t {t}: {what}")),
                    "{args:?}: {err}"
                );
                assert!(err.contains("tmuxwire panes"), "{err}");
            }
        }
        let o = tw(&server.socket, &["capture", "-t", "work:+1"]);
        expect_code(&o, 2, "relative window");
        assert!(stderr(&o).contains("not supported"), "{}", stderr(&o));
    }
}

/// `capture --start -` and `--end -` are tmux's `-S -` and `-E -`: the whole history, the bottom
/// of the screen.
#[test]
fn cli_capture_start_dash() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("dash")
            .size(30, 8)
            .start();
        let pane = first_pane(&server);
        run(&server, &pane, "seq 1 60; printf '%070d\\n' 7");
        let label = &bin.label;
        for (ours, theirs) in [
            (vec!["--start", "-"], vec!["-S", "-"]),
            (
                vec!["--start", "-", "--end", "-"],
                vec!["-S", "-", "-E", "-"],
            ),
            (vec!["--end", "-"], vec!["-E", "-"]),
            (
                vec!["--start", "-", "--end", "-40"],
                vec!["-S", "-", "-E", "-40"],
            ),
            (vec!["--start", "-", "-J"], vec!["-S", "-", "-J"]),
            (
                vec!["--start", "-5", "--end", "-"],
                vec!["-S", "-5", "-E", "-"],
            ),
        ] {
            let mut args = vec!["capture", "-t", pane.as_str()];
            args.extend(&ours);
            let o = tw(&server.socket, &args);
            expect_code(&o, 0, &format!("{ours:?}"));
            let got: Vec<String> = lines_of(&stdout(&o))
                .into_iter()
                .map(|l| l.trim_end().to_string())
                .collect();
            assert_eq!(
                got,
                tmux_lines(&server, &pane, &theirs),
                "tmux {label}: {ours:?}"
            );
        }
        let o = tw(&server.socket, &["capture", "-t", &pane, "--start", "-"]);
        assert!(stdout(&o).starts_with("$ seq 1 60"), "{}", stdout(&o));
        // Search ranges take '-' too.
        let o = tw(
            &server.socket,
            &[
                "search", "-t", &pane, "--start", "-", "--end", "-", "-c", "-e", r"^\d+$",
            ],
        );
        assert_eq!(stdout(&o), "dash:0.0:61\n", "tmux {label}");
        let o = tw(&server.socket, &["capture", "--start", "x"]);
        expect_code(&o, 2, "--start x");
        assert!(stderr(&o).contains("--start"), "{}", stderr(&o));
    }
}

/// Public case C25: a directory name with a line break; `panes` prints one line per pane, the
/// path escaped (`\n`, and `\\` for a backslash).
#[test]
fn cli_panes_one_line_per_pane_c25() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("base").start();
        let dir = tempfile::tempdir().unwrap();
        let evil = dir.path().join("evil\ndir\\x\ty");
        std::fs::create_dir(&evil).unwrap();
        let evil_s = evil.to_str().unwrap();
        server.tmux_ok(&["new-window", "-d", "-t", "=base:", "-c", evil_s]);
        server.tmux_ok(&["new-window", "-d", "-t", "=base:"]);
        let o = tw(&server.socket, &["panes"]);
        expect_code(&o, 0, "panes");
        let lines = out_lines(&o);
        assert_eq!(lines.len(), 3, "tmux {}: {lines:?}", bin.label);
        let escaped = evil_s
            .replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\t', "\\t");
        let line = lines.iter().find(|l| l.contains("evil")).unwrap();
        assert!(
            line.ends_with(&format!("\t{escaped}")),
            "tmux {}: {line:?}",
            bin.label
        );
        assert_eq!(line.split('\t').count(), 5, "{line:?}");
    }
}

/// When the search's 1 MiB answer cap leaves lines out, stderr says how many and how to see
/// them, and the count adds up; `-t` of one pane re-asks so the cap is that pane's alone.
#[test]
fn cli_search_note_when_lines_are_left_out() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("big")
            .size(80, 10)
            .history_limit(100_000)
            .start();
        let first = first_pane(&server);
        server.tmux_ok(&["split-window", "-d", "-t", &first]);
        let second = pane_id(&server, "=big:0.1");
        server.wait_for_text(&second, "$", DEADLINE);
        // ~34 bytes per matched line in the answer: 2 × 20,000 lines do not fit in 1 MiB, one
        // pane's do.
        for p in [&first, &second] {
            run(&server, p, "seq 1 20000 | sed s/^/ro''w-/");
        }
        let label = &bin.label;
        let o = tw(&server.socket, &["search", "row-"]);
        expect_code(&o, 0, "search row-");
        let shown = out_lines(&o).len();
        let err = stderr(&o);
        assert!(shown < 40_000, "tmux {label}: {shown}");
        let left = 40_000 - shown;
        let thousands = {
            let d = left.to_string();
            let mut s = String::new();
            for (i, c) in d.chars().enumerate() {
                if i > 0 && (d.len() - i).is_multiple_of(3) {
                    s.push(',');
                }
                s.push(c);
            }
            s
        };
        assert!(
            err.starts_with(&format!("tmuxwire: {thousands} matching lines not shown")),
            "tmux {label}: {err}"
        );
        assert!(err.contains("--end"), "{err}");
        assert_eq!(err.lines().count(), 2, "{err}");
        // -c counts every line, capped or not.
        let o = tw(&server.socket, &["search", "-c", "row-"]);
        assert_eq!(stdout(&o), "big:0.0:20000\nbig:0.1:20000\n", "tmux {label}");
        let o = tw(&server.socket, &["search", "-c", "row-", "-t", "big:0.1"]);
        assert_eq!(stdout(&o), "big:0.1:20000\n", "tmux {label}");
        // The second pane alone: all its lines, no note.
        let o = tw(&server.socket, &["search", "row-", "-t", "big:0.1"]);
        expect_code(&o, 0, "-t big:0.1");
        assert_eq!(out_lines(&o).len(), 20_000, "tmux {label}: {}", stderr(&o));
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
        // -m: no note (it was asked for).
        let o = tw(&server.socket, &["search", "-m", "5", "row-"]);
        assert_eq!(out_lines(&o).len(), 10);
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    }
}

/// Errors speak of flags and commands, never of tool arguments or tools.
#[test]
fn cli_errors_in_cli_words() {
    const MCP_WORDS: &[&str] = &[
        "max_matched_lines_per_pane",
        "content_start",
        "content_end",
        "max_lines",
        "list_sessions",
        "list_panes",
        "list_windows",
        "capture_pane",
        "search_panes",
        "session_name",
        "session_id",
        "pane_id",
        "window_id",
        "socket_name",
        "regex=",
        "Call ",
    ];
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).session("err").start();
    let dir = tempfile::tempdir().unwrap();
    let nothing = dir.path().join("nothing.sock");
    let cases: Vec<(&Path, Vec<&str>, &str)> = vec![
        (
            &server.socket,
            vec!["capture", "--start", "-3000000000"],
            "--start",
        ),
        (
            &server.socket,
            vec!["search", "--start", "-3000000000", "x"],
            "--start",
        ),
        (&server.socket, vec!["capture", "-t", "%999"], "-t %999"),
        (
            &server.socket,
            vec!["search", "-t", "err:5", "x"],
            "-t err:5",
        ),
        (&server.socket, vec!["search", "-e", "("], "regex"),
        (&server.socket, vec!["search", ""], "PATTERN"),
        (&server.socket, vec!["search", "-e", r"a\nb"], "line break"),
        (&nothing, vec!["search", "x"], "no tmux server running"),
        (&nothing, vec!["capture"], "no tmux server running"),
    ];
    for (socket, args, want) in cases {
        let o = tw(socket, &args);
        expect_code(&o, 2, &format!("{args:?}"));
        let err = stderr(&o);
        assert!(err.starts_with("tmuxwire: "), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        for w in MCP_WORDS {
            assert!(!err.contains(w), "{args:?}: {w:?} in {err}");
        }
    }
}

/// `tmuxwire wait`: exit 0 with the matching line when a new line matches, 3 when a `--stop`
/// pattern matches first, 1 on a timeout (with a note on stderr); a line already on the screen
/// when the wait began does not count.
#[test]
fn cli_wait_exit_codes() {
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).size(80, 10).start();
    let pane = first_pane(&server);
    run(&server, &pane, "echo CLI-ON-SCREEN");
    let o = tw(
        &server.socket,
        &["wait", "-t", &pane, "--timeout", "0.3", "CLI-ON-SCREEN"],
    );
    expect_code(&o, 1, "a line printed before the wait");
    assert!(stderr(&o).contains("no match"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    // A loop prints the line every 0.1 s, so the wait sees a new one however late it starts.
    type_line(
        &server,
        &pane,
        "while :; do echo CLI-\"\"LOOP-42; sleep 0.1; done",
    );
    server.wait_for_text(&pane, "CLI-LOOP-42", DEADLINE);
    let o = tw(
        &server.socket,
        &["wait", "-t", &pane, "--timeout", "20", "-e", r"LOOP-\d+$"],
    );
    expect_code(&o, 0, "matched");
    assert!(
        stdout(&o).lines().all(|l| l == "CLI-LOOP-42") && !stdout(&o).is_empty(),
        "{}",
        stdout(&o)
    );
    let o = tw(
        &server.socket,
        &[
            "wait",
            "-t",
            &pane,
            "--timeout",
            "20",
            "--stop",
            "cli-loop",
            "-i",
            "never",
        ],
    );
    expect_code(&o, 3, "stopped");
    let o = tw(
        &server.socket,
        &["wait", "-t", &pane, "--timeout", "0", "x"],
    );
    expect_code(&o, 2, "a zero timeout");
    server.tmux_ok(&["send-keys", "-t", &pane, "C-c"]);
    // --send types the command itself: a fast command's output is never missed.
    for i in 0..3 {
        let want = format!("QUICK-{}", 42 + i);
        let o = tw(
            &server.socket,
            &[
                "wait",
                "-t",
                &pane,
                "--timeout",
                "10",
                "--send",
                &format!("echo QUICK-$((42+{i}))"),
                &want,
            ],
        );
        expect_code(&o, 0, "wait --send");
        assert_eq!(stdout(&o).trim_end(), want);
    }
}
