//! The `tmuxwire` binary as a person uses it: `panes`, `capture`, `search` and their flags, `-t`
//! in every form, context lines, colour, notes on stderr, errors in CLI words, exit codes,
//! socket selection, help texts and the demo. Each test runs the real binary against its own
//! private tmux server, for every tmux version in [`tmux_bins`].

use std::path::Path;
use std::process::{Command, Output};

use crate::support::Socket;
use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, test_env, tmux_bins, wait_until};

use crate::support::{run_tmuxwire as tw, tmuxwire_cli as tmuxwire};

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
        // Window names stop changing with the running program, so both listings agree.
        server.tmux_ok(&["set-window-option", "-g", "automatic-rename", "off"]);
        let o = tw(&server.socket, &["panes"]);
        expect_code(&o, 0, "panes");
        let want = server.tmux_ok(&[
            "list-panes",
            "-a",
            "-F",
            "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_width}x#{pane_height}\t#{pane_current_command}\t#{pane_current_path}\t#{window_name}",
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
        let o = tw(&server.socket, &["search", "-E", r"^\d+$", "-m", "2"]);
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
            vec!["search", "-E", "-e", "("],
        ] {
            let o = tw(&server.socket, &args);
            expect_code(&o, 2, &format!("{args:?}"));
            assert!(stdout(&o).is_empty());
            assert!(stderr(&o).starts_with("tmuxwire: "), "{}", stderr(&o));
        }
        // A bad flag value is a usage error (clap's), naming the flag.
        let o = tw(&server.socket, &["search", "x", "--newest", "0"]);
        expect_code(&o, 2, "--newest 0");
        assert!(stdout(&o).is_empty());
        assert!(stderr(&o).contains("--newest"), "{}", stderr(&o));
        // -m 0 is grep's: nothing selected, exit 1.
        let o = tw(&server.socket, &["search", "-m", "0", "CLI-MARK"]);
        expect_code(&o, 1, "-m 0");
        assert!(stdout(&o).is_empty());
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

/// `--version` names the version, the commit and the tmux versions tested, and those include
/// every tmux this suite runs against.
#[test]
fn cli_version_names_commit_and_tested_tmux() {
    let o = tmuxwire().arg("--version").output().unwrap();
    expect_code(&o, 0, "--version");
    let out = stdout(&o);
    let rest = out
        .trim_end()
        .strip_prefix(concat!("tmuxwire ", env!("CARGO_PKG_VERSION"), " (commit "))
        .unwrap_or_else(|| panic!("{out}"));
    let (commit, tested) = rest.split_once("; tested with tmux ").expect(&out);
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "{out}"
    );
    let tested: Vec<&str> = tested.strip_suffix(')').expect(&out).split(", ").collect();
    for bin in tmux_bins() {
        assert!(
            tested.contains(&bin.label.as_str()),
            "tmux {} not in {out}",
            bin.label
        );
    }
    assert_eq!(tmuxwire().arg("-V").output().unwrap().stdout, o.stdout);
}

/// `completions` and `man` need no tmux server (none is reachable here), and what they print
/// works: bash completes a command name with the script, zsh and fish parse theirs, `man --dir`
/// writes a page per command, and a closed pipe is not an error.
#[test]
fn cli_completions_and_man_pages() {
    let nowhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        tmuxwire()
            .env("TMUXWIRE_SOCKET_PATH", nowhere.path().join("no-socket"))
            .args(args)
            .output()
            .unwrap()
    };
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell]);
        expect_code(&o, 0, shell);
        let script = nowhere.path().join(format!("completion.{shell}"));
        std::fs::write(&script, &o.stdout).unwrap();
        let check = match shell {
            "fish" => vec!["--no-execute"],
            _ => vec!["-n"],
        };
        let Ok(parsed) = Command::new(shell).args(&check).arg(&script).output() else {
            // The shells are required on CI (TMUXWIRE_REQUIRE_SHELLS); elsewhere one may be missing.
            assert!(
                std::env::var_os("TMUXWIRE_REQUIRE_SHELLS").is_none(),
                "no {shell}"
            );
            continue;
        };
        expect_code(&parsed, 0, &format!("{shell} parses its completion script"));
    }
    // bash: the completion function offers the commands that start with "se".
    let script = nowhere.path().join("completion.bash");
    let o = Command::new("bash")
        .arg("-c")
        .arg(
            r#"source "$1"; COMP_WORDS=(tmuxwire se); COMP_CWORD=1; COMP_LINE="tmuxwire se";
               COMP_POINT=${#COMP_LINE}; _tmuxwire tmuxwire se tmuxwire;
               printf '%s\n' "${COMPREPLY[@]}""#,
        )
        .arg("bash")
        .arg(&script)
        .output()
        .unwrap();
    let words: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert!(words.contains(&"search".to_string()) && words.contains(&"send".to_string()));
    assert!(!words.contains(&"capture".to_string()), "{words:?}");

    let o = run(&["man"]);
    expect_code(&o, 0, "man");
    let page = stdout(&o);
    assert!(page.contains(".TH tmuxwire 1"), "{page}");
    assert!(page.contains("completions") && page.contains(env!("CARGO_PKG_VERSION")));
    let dir = nowhere.path().join("man1");
    std::fs::create_dir(&dir).unwrap();
    let o = run(&["man", "--dir", dir.to_str().unwrap()]);
    expect_code(&o, 0, "man --dir");
    for cmd in [
        "", "-mcp", "-panes", "-capture", "-search", "-send", "-wait", "-demo",
    ] {
        let page = std::fs::read_to_string(dir.join(format!("tmuxwire{cmd}.1"))).unwrap();
        assert!(page.contains(&format!(".TH tmuxwire{cmd} 1")), "{cmd}");
        assert!(stdout(&o).contains(&format!("tmuxwire{cmd}.1\n")), "{cmd}");
    }
    let o = run(&[
        "man",
        "--dir",
        nowhere.path().join("absent").to_str().unwrap(),
    ]);
    expect_code(&o, 2, "man --dir to a missing directory");
    assert!(stderr(&o).contains("not a directory"), "{}", stderr(&o));
    // Into a pipe closed at once: exit 0, no panic.
    let mut child = tmuxwire()
        .arg("man")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    expect_code(&o, 0, "man into a closed pipe");
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
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
        // -F is the default; -E makes a regex; the last of them wins; -e is grep's -e PATTERN.
        assert_eq!(texts(&["search", "#.#"]), ["#.# literal"]);
        assert_eq!(texts(&["search", "-F", "#.#"]), ["#.# literal"]);
        assert_eq!(texts(&["search", "-e", "#.#"]), ["#.# literal"]);
        assert_eq!(
            texts(&["search", "-E", "#.#"]),
            ["#.# literal", "#z# regex"]
        );
        assert_eq!(
            texts(&["search", "-E", "-e", "#.#"]),
            ["#.# literal", "#z# regex"]
        );
        assert_eq!(texts(&["search", "-E", "-F", "#.#"]), ["#.# literal"]);
        assert_eq!(
            texts(&["search", "-F", "-E", "#.#"]),
            ["#.# literal", "#z# regex"]
        );
        assert_eq!(texts(&["search", "-E", "-w", "e[a-z]+s"]), ["errors three"]);
        // -m is grep's: the first N; --newest keeps the newest N.
        assert_eq!(
            texts(&["search", "-m", "2", "error"]),
            ["error two", "errors three"]
        );
        assert_eq!(
            texts(&["search", "--newest", "2", "error"]),
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
            vec!["search", "-l", "nowhere-to-be-found"],
        ] {
            let o = tw(s, &args);
            expect_code(&o, 1, &format!("{args:?}"));
            assert!(stdout(&o).is_empty(), "{args:?}");
        }
        // -c prints every pane searched, 0 included (grep -c), exit 1 when 0.
        let o = tw(s, &["search", "-c", "nowhere-to-be-found"]);
        expect_code(&o, 1, "-c no match");
        assert_eq!(stdout(&o), "flags:0.0:0\n");
        // -c and -l together: -l wins, as in grep.
        let o = tw(s, &["search", "-c", "-l", "error"]);
        assert_eq!(stdout(&o), "flags:0.0\n");
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
                "-E",
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
        let o = tw(s, &["search", "-E", "-A", "1", "^(after-1|after-3)$"]);
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
            crate::support::skipped("script(1) not found: colour on a terminal not tested");
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
                "search", "-t", &pane, "--start", "-", "--end", "-", "-c", "-E", r"^\d+$",
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
            line.contains(&format!("\t{escaped}\t")),
            "tmux {}: {line:?}",
            bin.label
        );
        assert_eq!(line.split('\t').count(), 6, "{line:?}");
    }
}

/// Every selected line is printed, however many: no answer cap, no note; `-c` counts them all,
/// `-m` stops each pane after its first N.
#[test]
fn cli_search_prints_every_line() {
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
        // 2 × 20,000 lines: more than the MCP tool's 1 MiB answer holds.
        for p in [&first, &second] {
            run(&server, p, "seq 1 20000 | sed s/^/ro''w-/");
        }
        let label = &bin.label;
        let o = tw(&server.socket, &["search", "row-"]);
        expect_code(&o, 0, "search row-");
        let lines = out_lines(&o);
        assert_eq!(lines.len(), 40_000, "tmux {label}");
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
        // In order, each once: 1..=20000 in each pane.
        for (k, l) in lines.iter().enumerate() {
            let want = format!(":row-{}", k % 20_000 + 1);
            assert!(l.ends_with(&want), "tmux {label}: line {k}: {l}");
        }
        let o = tw(&server.socket, &["search", "-c", "row-"]);
        assert_eq!(stdout(&o), "big:0.0:20000\nbig:0.1:20000\n", "tmux {label}");
        let o = tw(&server.socket, &["search", "-c", "row-", "-t", "big:0.1"]);
        assert_eq!(stdout(&o), "big:0.1:20000\n", "tmux {label}");
        let o = tw(&server.socket, &["search", "-m", "5", "row-"]);
        let lines = out_lines(&o);
        assert_eq!(lines.len(), 10);
        assert!(lines[4].ends_with(":row-5"), "{lines:?}");
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
        (&server.socket, vec!["capture", "-t", "%999"], "-t %999"),
        (
            &server.socket,
            vec!["search", "-t", "err:5", "x"],
            "-t err:5",
        ),
        (&server.socket, vec!["search", "-E", "("], "regex"),
        (&server.socket, vec!["search"], "PATTERN"),
        (&server.socket, vec!["search", "-e", "a", "b"], "PATTERN"),
        (&server.socket, vec!["search", "-E", r"a\nb"], "line break"),
        (
            &server.socket,
            vec!["search", "-f", "/nonexistent/patterns", "x"],
            "-f",
        ),
        (
            &server.socket,
            vec!["search", "-f", "/nonexistent/patterns"],
            "-f",
        ),
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

/// The lines of the grep test, shown with `cat`.
const GREP_TEXT: &str = "\
foo
bar
foo bar
-x dash
a:b:-3:c
--

baz
";

/// The texts of `search` output lines (`PLACE:LINE:TEXT` or `PLACE-LINE-TEXT`), or the lines
/// as they are when they have no place (`--`, -h).
fn grep_texts(o: &Output, place: &str) -> Vec<String> {
    out_lines(o)
        .iter()
        .map(|l| match parse_record(l) {
            Some(r) if r.place == place => r.text,
            _ => l.clone(),
        })
        .collect()
}

/// A `search` record, parsed by the grammar its `--help` gives.
#[derive(Debug, PartialEq, Eq)]
struct Record {
    /// The session name, unescaped.
    session: String,
    window: u32,
    pane: u32,
    /// `session:window.pane` as printed.
    place: String,
    selected: bool,
    line: i64,
    text: String,
}

/// Undoes `panes`/PLACE escaping (`\\`, `\n`, `\t`, `\xHH`, `\uHHHH`, ...).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('v') => out.push('\x0b'),
            Some('f') => out.push('\x0c'),
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                out.push(char::from_u32(u32::from_str_radix(&h, 16).unwrap()).unwrap());
            }
            Some('u') => {
                let h: String = it.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&h, 16).unwrap()).unwrap());
            }
            other => panic!("bad escape \\{other:?} in {s:?}"),
        }
    }
    out
}

/// Parses `SESSION:WINDOW.PANE SEP LINE SEP TEXT` (SEP ':' for a selected line, '-' for
/// context): the session runs to the first ':', then digits '.' digits, then the separator,
/// then '-'? digits, then the same separator, then the text to the end.
fn parse_record(l: &str) -> Option<Record> {
    let (session, rest) = l.split_once(':')?;
    let w_end = rest.find(|c: char| !c.is_ascii_digit())?;
    let window = rest[..w_end].parse().ok()?;
    let rest = rest[w_end..].strip_prefix('.')?;
    let p_end = rest.find(|c: char| !c.is_ascii_digit())?;
    let pane = rest[..p_end].parse().ok()?;
    let place = l[..l.len() - rest.len() + p_end].to_string();
    let rest = &rest[p_end..];
    let sep = rest.chars().next()?;
    if sep != ':' && sep != '-' {
        return None;
    }
    let rest = &rest[1..];
    let (neg, digits) = match rest.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, rest),
    };
    let d_end = digits.find(|c: char| !c.is_ascii_digit())?;
    let n: i64 = digits[..d_end].parse().ok()?;
    let text = digits[d_end..].strip_prefix(sep)?;
    Some(Record {
        session: unescape(session),
        window,
        pane,
        place,
        selected: sep == ':',
        line: if neg { -n } else { n },
        text: text.to_string(),
    })
}

/// grep's flags with GNU grep's meaning, edge cases included (checked against GNU grep 3.8):
/// -e (repeatable, values starting with '-'), -f (an empty file, `-f -`), -v, -o, -x, -n, -H,
/// -h, -N, -c with -v, -l with -c, -q's exit status, -m with context, an empty pattern, `--`.
#[test]
fn cli_search_is_grep() {
    for bin in tmux_bins() {
        let (server, pane, dir) = pane_with(&bin, "g", (60, 30), GREP_TEXT);
        let s = &server.socket;
        let label = &bin.label;
        let t = |args: &[&str]| {
            let mut v = vec!["search", "-t", pane.as_str()];
            v.extend(args);
            tw(s, &v)
        };
        let texts = |args: &[&str]| grep_texts(&t(args), "g:0.0");
        // The command line `cat FILE` is a line too; patterns avoid it.
        assert_eq!(
            texts(&["-e", "foo", "-e", "baz"]),
            ["foo", "foo bar", "baz"],
            "tmux {label}"
        );
        assert_eq!(texts(&["-e", "-x"]), ["-x dash"]);
        assert_eq!(texts(&["--", "-x"]), ["-x dash"]);
        assert_eq!(texts(&["-x", "-e", "foo", "-e", "bar"]), ["foo", "bar"]);
        assert_eq!(texts(&["-w", "-e", "ba"]), Vec::<String>::new());
        // A pattern with a line break is two patterns.
        assert_eq!(texts(&["-x", "foo\nbaz"]), ["foo", "baz"]);
        // -f: one pattern per line; an empty file matches nothing (and -v everything).
        let pats = dir.path().join("pats");
        std::fs::write(&pats, "baz\nfoo bar\n").unwrap();
        let pats_s = pats.to_str().unwrap();
        assert_eq!(texts(&["-f", pats_s]), ["foo bar", "baz"]);
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        let empty_s = empty.to_str().unwrap();
        let o = t(&["-f", empty_s]);
        expect_code(&o, 1, "-f empty");
        assert!(stdout(&o).is_empty());
        let all = t(&["-c", ""]);
        expect_code(&all, 0, "empty pattern");
        let n_all: usize = stdout(&all)
            .trim()
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let o = t(&["-c", "-v", "-f", empty_s]);
        assert_eq!(
            stdout(&o),
            format!("g:0.0:{n_all}\n"),
            "-v -f empty: every line"
        );
        let o = tmuxwire()
            .arg("-S")
            .arg(s)
            .args(["search", "-t", &pane, "-x", "-f", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write as _;
                c.stdin.take().unwrap().write_all(b"bar\n")?;
                c.wait_with_output()
            })
            .unwrap();
        assert_eq!(grep_texts(&o, "g:0.0"), ["bar"], "-f -");
        // -v selects the other lines; -c -v counts them; -v -o prints nothing yet exits 0.
        let o = t(&["-c", "-v", "o"]);
        let foo_lines = grep_texts(&t(&["o"]), "g:0.0").len();
        assert_eq!(stdout(&o), format!("g:0.0:{}\n", n_all - foo_lines));
        let o = t(&["-v", "-o", "o"]);
        expect_code(&o, 0, "-v -o");
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        // -o: each match on its own line, with the line's number.
        let o = t(&["-o", "-E", "ba[rz]"]);
        let recs: Vec<Record> = out_lines(&o)
            .iter()
            .filter_map(|l| parse_record(l))
            .collect();
        let got: Vec<&str> = recs.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(got, ["bar", "bar", "baz"]);
        assert_eq!(recs[0].line + 1, recs[1].line, "bar then foo bar");
        // -q: exit 0/1, nothing printed; -l -c: -l wins.
        expect_code(&t(&["-q", "foo"]), 0, "-q");
        expect_code(&t(&["-q", "-v", ""]), 1, "-q -v ''");
        let o = t(&["-l", "-c", "foo"]);
        assert_eq!(stdout(&o), "g:0.0\n");
        let o = t(&["--files-without-match", "foo"]);
        assert_eq!(stdout(&o), "");
        // -m with context: trailing context after the last counted line, matches in it as
        // context lines.
        let o = t(&["-m", "1", "-A", "2", "-x", "-e", "foo", "-e", "foo bar"]);
        let recs: Vec<Record> = out_lines(&o)
            .iter()
            .filter_map(|l| parse_record(l))
            .collect();
        let got: Vec<(bool, &str)> = recs.iter().map(|r| (r.selected, r.text.as_str())).collect();
        assert_eq!(
            got,
            [(true, "foo"), (false, "bar"), (false, "foo bar")],
            "tmux {label}"
        );
        // -h, -N, -n, -H.
        let o = t(&["-h", "-x", "baz"]);
        let l = stdout(&o);
        let (n, text) = l.trim_end().split_once(':').unwrap();
        assert_eq!(text, "baz");
        n.parse::<i64>().unwrap();
        assert_eq!(stdout(&t(&["-h", "-N", "-x", "baz"])), "baz\n");
        assert_eq!(
            stdout(&t(&["-n", "-H", "-x", "baz"])),
            stdout(&t(&["-x", "baz"]))
        );
        // Hostile text parses back: a text that looks like a record, `--`, a leading '-'.
        let o = t(&["-x", "-e", "a:b:-3:c", "-e", "--", "-e", "-x dash"]);
        let recs: Vec<Record> = out_lines(&o)
            .iter()
            .map(|l| parse_record(l).unwrap())
            .collect();
        let got: Vec<&str> = recs.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(got, ["-x dash", "a:b:-3:c", "--"]);
        // --help is help; -h is not.
        let o = tmuxwire().args(["search", "--help"]).output().unwrap();
        expect_code(&o, 0, "--help");
        assert!(stdout(&o).contains("PLACE-LINE-TEXT"), "{}", stdout(&o));
    }
}

/// Output parses back unambiguously for hostile session names and texts, and for context lines
/// with negative line numbers: a parser following `--help`'s grammar recovers the pane (the
/// session's real name, window and pane index), the line (tmux shows that text at that line)
/// and the text.
#[test]
fn cli_search_output_parses_back() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("plain")
            .size(40, 6)
            .history_limit(10_000)
            .start();
        // Older tmux turns ':' and '.' into '_' (search writes a ':' as \x3a); the rest stays (a
        // backslash, dashes, digits, spaces, '=' and a tab, which tmux writes as \t).
        let names = [
            "a-1 -2",
            "x:y.z",
            "back\\slash",
            "9",
            "=eq",
            "tab\there",
            "é-日本",
        ];
        let dir = tempfile::tempdir().unwrap();
        let text = "\
HOSTILE plain
HOSTILE a:b.c:-5:text
HOSTILE --
HOSTILE -7-minus
HOSTILE x\\y \\t
ctx after
";
        let first = first_pane(&server);
        show(&server, &first, &dir, text);
        run(&server, &first, "seq 1 20");
        // Session name (as tmux has it) → its pane.
        let mut panes = vec![("plain".to_string(), first)];
        for name in names {
            let made = server.tmux(&[
                "new-session",
                "-d",
                "-P",
                "-F",
                "#{session_id}",
                "-s",
                name,
                "-x",
                "40",
                "-y",
                "6",
            ]);
            if !made.status.success() {
                // tmux 3.8 refuses control characters in names.
                assert!(name.contains('\t'), "tmux {}: {name:?} refused", bin.label);
                continue;
            }
            let id = String::from_utf8_lossy(&made.stdout).trim().to_string();
            let real = server
                .tmux_ok(&["display-message", "-p", "-t", &id, "#{session_name}"])
                .trim_end_matches('\n')
                .to_string();
            let pane = pane_id(&server, &format!("{id}:"));
            server.wait_for_text(&pane, "$", DEADLINE);
            show(&server, &pane, &dir, text);
            // Push the lines into the scrollback: negative numbers.
            run(&server, &pane, "seq 1 20");
            panes.push((real, pane));
        }
        // tmux before 3.6 writes ':' and '.' as '_'; later versions keep them.
        assert!(
            panes.iter().any(|(n, _)| n == "x_y_z" || n == "x:y.z"),
            "{panes:?}"
        );
        let o = tw(&server.socket, &["search", "-A", "1", "HOSTILE"]);
        expect_code(&o, 0, "search");
        let label = &bin.label;
        let mut seen = 0;
        for l in out_lines(&o) {
            if l == "--" {
                continue;
            }
            let r = parse_record(&l).unwrap_or_else(|| panic!("tmux {label}: unparsable {l:?}"));
            // The pane: its session's name (as tmux has it) and indexes.
            let pane = panes
                .iter()
                .find(|(n, _)| *n == r.session)
                .map(|(_, p)| p.clone())
                .unwrap_or_else(|| panic!("tmux {label}: no session {:?} in {l:?}", r.session));
            assert_eq!((r.window, r.pane), (0, 0), "{l:?}");
            // The line: tmux shows the text there.
            let n = r.line.to_string();
            let back = tmux_lines(&server, &pane, &["-J", "-S", &n, "-E", &n]);
            assert_eq!(back, vec![r.text.clone()], "tmux {label}: {l:?}");
            if r.selected {
                assert!(r.text.starts_with("HOSTILE "), "{l:?}");
                seen += 1;
            }
            assert!(r.line < 0, "scrollback lines: {l:?}");
        }
        // 5 lines in each pane.
        assert_eq!(seen, 5 * panes.len(), "tmux {label}: {}", stdout(&o));
        // A context line in the scrollback reads PLACE-LINE-TEXT with LINE negative.
        assert!(stdout(&o).contains("--"), "{}", stdout(&o));
        assert!(
            out_lines(&o).iter().any(|l| {
                parse_record(l).is_some_and(|r| !r.selected && r.text == "ctx after")
                    && l.contains("--")
            }),
            "{}",
            stdout(&o)
        );
    }
}

/// `capture` takes capture-pane's own flags: `-S`/`-E` (numbers and `-`), `-J`, `-N`, `-e`, `-p`;
/// the socket goes before the command (`tmuxwire -S PATH capture -S -5`, as tmux) or after it
/// as `--socket-path`; `-L` works after it too. Each prints what tmux prints.
#[test]
fn cli_capture_takes_tmux_flags() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).session("cap").size(30, 8).start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            "seq 1 40; printf '%070d\\n' 7; printf 'sp   \\n'; printf '\\033[31mred\\033[0m \\tt\\001\\n'",
        );
        let label = &bin.label;
        let s = &server.socket;
        for (ours, theirs) in [
            (vec!["-S", "-5"], vec!["-S", "-5"]),
            (vec!["-S", "-", "-E", "-"], vec!["-S", "-", "-E", "-"]),
            (
                vec!["-S", "-20", "-E", "-3", "-p"],
                vec!["-S", "-20", "-E", "-3"],
            ),
            (vec!["-S", "-", "-J"], vec!["-S", "-", "-J"]),
            (vec!["-S", "-10", "-N"], vec!["-S", "-10", "-N"]),
            (vec!["-E", "2"], vec!["-E", "2"]),
            (vec!["-S", "-", "-J", "-N"], vec!["-S", "-", "-J", "-N"]),
            (
                vec!["-S", "-12", "-E", "-2", "-J"],
                vec!["-S", "-12", "-E", "-2", "-J"],
            ),
            (vec!["-S", "-", "-e", "-J"], vec!["-S", "-", "-e", "-J"]),
            (vec!["-S", "-6", "-e", "-N"], vec!["-S", "-6", "-e", "-N"]),
            (vec!["-S", "-4", "-C"], vec!["-S", "-4", "-C"]),
            (vec!["-S", "-4", "-C", "-e"], vec!["-S", "-4", "-C", "-e"]),
        ]
        .into_iter()
        // -T is tmux 3.4's.
        .chain((label.as_str() != "3.3a").then(|| (vec!["-S", "-", "-T"], vec!["-S", "-", "-T"])))
        {
            let mut args = vec!["capture", "-t", pane.as_str()];
            args.extend(&ours);
            let o = tw(s, &args);
            expect_code(&o, 0, &format!("{ours:?}"));
            // Exactly tmux's text, trailing spaces included, trailing empty rows left out.
            let mut want = server.capture(&pane, &theirs);
            while want.ends_with("\n\n") {
                want.pop();
            }
            if ours.iter().any(|f| *f == "-e" || *f == "-C") {
                // tmux's bytes, trailing empty rows and all.
                want = server.capture(&pane, &theirs);
            }
            assert_eq!(stdout(&o), want, "tmux {label}: {ours:?}");
        }
        // -e: tmux's bytes, codes and all.
        let o = tw(s, &["capture", "-t", &pane, "-e", "-S", "-3"]);
        assert_eq!(stdout(&o), server.capture(&pane, &["-e", "-S", "-3"]));
        // The socket before the command, or as --socket-path or -L after it.
        let mut c = tmuxwire();
        c.arg("-S")
            .arg(s)
            .args(["capture", "-t", &pane, "-S", "-5"]);
        let before = c.output().unwrap();
        expect_code(&before, 0, "-S PATH capture -S -5");
        let mut c = tmuxwire();
        c.args(["capture", "-t", &pane, "-S", "-5", "--socket-path"])
            .arg(s);
        let after = c.output().unwrap();
        expect_code(&after, 0, "capture -S -5 --socket-path PATH");
        assert_eq!(stdout(&before), stdout(&after));
        assert_eq!(
            stdout(&before),
            tmux_lines(&server, &pane, &["-S", "-5"]).join("\n") + "\n"
        );
        // Old invocations that put -S after other commands keep working.
        let mut c = tmuxwire();
        c.args(["search", "-c", "0000007", "-S"]).arg(s);
        let o = c.output().unwrap();
        assert_eq!(stdout(&o), "cap:0.0:1\n", "tmux {label}");
        let mut c = tmuxwire();
        c.args(["panes", "-S"]).arg(s);
        expect_code(&c.output().unwrap(), 0, "panes -S PATH");
        // A bad line number names the flag.
        let o = tw(s, &["capture", "-S", "x"]);
        expect_code(&o, 2, "-S x");
        assert!(stderr(&o).contains("--start"), "{}", stderr(&o));
    }
}

/// `-L NAME` before or after any command reaches the server on that socket name.
#[test]
fn cli_socket_name_before_and_after() {
    let bin = crate::support::system_tmux();
    let name = crate::support::unique_name("tmuxwire-test-L");
    // A server on -L NAME in this test's private TMUX_TMPDIR.
    let ok = bin
        .command(Socket::Name(&name))
        .args(["-f", "/dev/null", "new-session", "-d", "-s", "lname"])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let kill = || {
        let _ = bin.command(Socket::Name(&name)).arg("kill-server").status();
    };
    for args in [
        vec!["-L", name.as_str(), "panes"],
        vec!["panes", "-L", name.as_str()],
        vec!["capture", "-L", name.as_str(), "-S", "-"],
        vec!["-L", name.as_str(), "capture", "-S", "-"],
        vec!["--socket-name", name.as_str(), "search", "-c", "x"],
        vec!["search", "-c", "x", "--socket-name", name.as_str()],
    ] {
        let o = tmuxwire().args(&args).output().unwrap();
        if code(&o) > 1 {
            kill();
        }
        assert!(code(&o) <= 1, "{args:?}: {}", stderr(&o));
    }
    kill();
}

/// `capture -S -` of a 200,000-line pane prints every line once, in order (no cap, nothing
/// dropped), streamed; the time against `tmux capture-pane -p -S -` is printed (measured in
/// the same run; the release figure is in docs/PERFORMANCE.md).
#[test]
fn cli_capture_whole_scrollback_200k() {
    const N: usize = 200_000;
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("huge")
            .size(100, 20)
            .history_limit(250_000)
            .start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            &format!("seq -f 'row %g of the huge pane, padded to be longer' 1 {N}"),
        );
        let s = &server.socket;
        let t0 = std::time::Instant::now();
        let o = tw(s, &["capture", "-t", &pane, "-S", "-"]);
        let ours = t0.elapsed();
        expect_code(&o, 0, "capture -S -");
        let t1 = std::time::Instant::now();
        let theirs_out = server.tmux(&["capture-pane", "-p", "-t", &pane, "-S", "-"]);
        let theirs = t1.elapsed();
        assert!(theirs_out.status.success());
        let text = String::from_utf8(o.stdout).unwrap();
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("row ")).collect();
        assert_eq!(rows.len(), N, "tmux {}: every line once", bin.label);
        for (k, r) in rows.iter().enumerate() {
            let want = format!("row {} of the huge pane, padded to be longer", k + 1);
            assert_eq!(*r, want, "tmux {}: in order", bin.label);
        }
        // The same text as tmux's, less its trailing empty rows.
        let mut want = String::from_utf8(theirs_out.stdout).unwrap();
        while want.ends_with("\n\n") {
            want.pop();
        }
        assert!(
            text == want,
            "tmux {}: capture differs from tmux's",
            bin.label
        );
        eprintln!(
            "tmux {}: capture -S - of {N} lines: tmuxwire {:.3} s, tmux capture-pane -p {:.3} s \
             ({:.2}x, debug build, process start included)",
            bin.label,
            ours.as_secs_f64(),
            theirs.as_secs_f64(),
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
        // A closed pipe ends it quietly, exit 0.
        let mut c = tmuxwire();
        c.arg("-S").arg(s).args(["capture", "-t", &pane, "-S", "-"]);
        c.stdout(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        drop(child.stdout.take());
        let st = child.wait().unwrap();
        assert_eq!(st.code(), Some(0), "tmux {}: closed pipe", bin.label);
    }
}

/// DEC line drawing on the screen reads as box characters in `capture` (C21), row by row and
/// with `-J`; `-e` keeps tmux's bytes.
#[test]
fn cli_capture_line_drawing_c21() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .session("acs")
            .size(40, 10)
            .start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            "printf '\\033(0lqqk\\033(B\\nx  x\\n\\033(0mqqj\\033(B\\n'",
        );
        let s = &server.socket;
        for extra in [
            vec![],
            vec!["-J"],
            vec!["-S", "-"],
            vec!["--line-drawing", "-S", "-"],
        ] {
            let mut args = vec!["capture", "-t", pane.as_str()];
            args.extend(&extra);
            let o = tw(s, &args);
            expect_code(&o, 0, &format!("{extra:?}"));
            let out = stdout(&o);
            assert!(
                out.contains("\n┌──┐\nx  x\n└──┘\n"),
                "tmux {}: {extra:?}: {out}",
                bin.label
            );
        }
        // Against tmux: its plain capture with the line-drawing rows read as box characters.
        for extra in [vec![], vec!["-S", "-"], vec!["-S", "-", "-N"]] {
            let mut args = vec!["capture", "-t", pane.as_str()];
            args.extend(&extra);
            let mut want = server.capture(&pane, &extra);
            while want.ends_with("\n\n") {
                want.pop();
            }
            let want: String = want
                .split_inclusive('\n')
                .map(|row| match row.trim_end() {
                    "lqqk" => row.replace("lqqk", "┌──┐"),
                    "mqqj" => row.replace("mqqj", "└──┘"),
                    _ => row.to_string(),
                })
                .collect();
            assert_eq!(stdout(&tw(s, &args)), want, "tmux {}: {extra:?}", bin.label);
        }
        let o = tw(s, &["capture", "-t", &pane, "-e"]);
        assert!(stdout(&o).contains("lqqk"), "{}", stdout(&o));
        assert_eq!(stdout(&o), server.capture(&pane, &["-e"]));
    }
}

/// `wait --timeout N` waits N seconds even past the MCP tools' wait ceiling, never less, and
/// exits 1 only then; a timeout over a year is refused.
#[test]
fn cli_wait_has_no_ceiling() {
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).size(80, 10).start();
    let pane = first_pane(&server);
    let t0 = std::time::Instant::now();
    let o = tmuxwire()
        .env("TMUXWIRE_WAIT_MAX_SECONDS", "1")
        .arg("-S")
        .arg(&server.socket)
        .args([
            "wait",
            "-t",
            &pane,
            "--timeout",
            "2.5",
            "never-printed-text",
        ])
        .output()
        .unwrap();
    let waited = t0.elapsed();
    expect_code(&o, 1, "timeout");
    assert!(waited.as_secs_f64() >= 2.5, "reported after {waited:?}");
    assert!(stderr(&o).contains("within 2.5 s"), "{}", stderr(&o));
    let o = tw(
        &server.socket,
        &["wait", "-t", &pane, "--timeout", "40000000", "x"],
    );
    expect_code(&o, 2, "over a year");
    // A match still ends it at once.
    type_line(&server, &pane, "sleep 1; echo LATE-''MARK");
    let o = tmuxwire()
        .env("TMUXWIRE_WAIT_MAX_SECONDS", "1")
        .arg("-S")
        .arg(&server.socket)
        .args(["wait", "-t", &pane, "--timeout", "60", "LATE-MARK"])
        .output()
        .unwrap();
    expect_code(&o, 0, "matched after the ceiling");
}

/// `send -` types stdin and presses Enter once: text ending in a line break does not give two
/// Enters, inner line breaks are typed as they are, `-n` presses none.
#[test]
fn cli_send_stdin_enter_once() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin).size(80, 10).start();
        let pane = first_pane(&server);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("got");
        // `cat` writes each line the tty completes: an Enter is a line break in the file.
        type_line(
            &server,
            &pane,
            &format!("stty -echo; cat > {}", file.display()),
        );
        let send = |input: &[u8], extra: &[&str]| {
            let mut c = tmuxwire();
            c.arg("-S")
                .arg(&server.socket)
                .args(["send", "-t", &pane])
                .args(extra)
                .arg("-")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            {
                use std::io::Write as _;
                child.stdin.take().unwrap().write_all(input).unwrap();
            }
            let o = child.wait_with_output().unwrap();
            expect_code(&o, 0, "send -");
        };
        let read = || std::fs::read_to_string(&file).unwrap_or_default();
        wait_until("cat ready", DEADLINE, || file.exists().then_some(()));
        send(b"one\n", &[]);
        send(b"two\nthree\n", &[]);
        send(b"four\n", &["-n"]);
        send(b"END\n", &[]);
        wait_until("all lines", DEADLINE, || {
            read().ends_with("END\n").then_some(())
        });
        assert_eq!(read(), "one\ntwo\nthree\nfourEND\n", "tmux {}", bin.label);
    }
}

/// `panes` prints a header on a terminal (script(1) gives one) and none into a pipe; the window
/// name is its last field.
#[test]
fn cli_panes_header_on_a_terminal() {
    let bin = crate::support::system_tmux();
    let server = TestServer::builder(&bin).session("hdr").start();
    server.tmux_ok(&["rename-window", "-t", "=hdr:0", "my win"]);
    let o = tw(&server.socket, &["panes"]);
    let lines = out_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].ends_with("\tmy win"), "{lines:?}");
    if Command::new("script").arg("--version").output().is_err() {
        crate::support::skipped("script(1) not found: the header on a terminal not tested");
        return;
    }
    let cmd = format!(
        "{} -S {} panes",
        env!("CARGO_BIN_EXE_tmuxwire"),
        server.socket.display()
    );
    let mut c = Command::new("script");
    test_env(&mut c);
    c.args(["-qec", &cmd, "/dev/null"]);
    let o = c.output().unwrap();
    expect_code(&o, 0, "script");
    let out = stdout(&o).replace('\r', "");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "PANE\tPLACE\tSIZE\tCOMMAND\tPATH\tWINDOW",
        "{out:?}"
    );
    assert!(lines[1].ends_with("\tmy win"), "{out:?}");
}

/// tmux 3.2–3.5 keep the text of every `capture-pane -p` a *control* client runs; `capture`
/// and `search` run theirs on one-shot clients, which tmux frees: repeated full captures leave
/// the server's memory where it was.
#[test]
fn cli_captures_do_not_grow_the_tmux_server() {
    for bin in tmux_bins() {
        let server = TestServer::builder(&bin)
            .size(120, 40)
            .history_limit(50_000)
            .command("seq -f 'line %06g ........................................................................................' 1 20000; echo CAPTURE-END; exec sleep 86400")
            .start();
        server.wait_for_text("main:", "CAPTURE-END", DEADLINE);
        // The tmux server's resident memory (KiB).
        let rss = || crate::support::held(server.server_pid()).rss_kib as i64;
        let s = &server.socket;
        let once = || {
            let o = tw(s, &["capture", "-t", "main:", "-S", "-"]);
            expect_code(&o, 0, "capture");
            let o2 = tw(s, &["search", "-c", "no-such-text"]);
            expect_code(&o2, 1, "search");
            2 * o.stdout.len() as i64
        };
        // Warm up (allocator high-water marks), then measure.
        for _ in 0..3 {
            once();
        }
        let before = rss();
        let captured: i64 = (0..20).map(|_| once()).sum();
        let grown_kb = rss() - before;
        let captured_kb = captured / 1024;
        assert!(
            grown_kb < captured_kb / 2,
            "tmux {}: the server grew by {grown_kb} kB over 40 captures of {captured_kb} kB",
            bin.label
        );
    }
}

/// `search` finds what `search_panes` finds in a pane that shows a full-screen program: the
/// history (a soft-wrapped line of wide characters among it), the normal screen the program
/// hides (numbered from its top row) and the program's own screen, each line once, in the same
/// order, with the same line numbers: one engine (a copy of the pane, scanned the same way),
/// whether `search_panes` reads the mirror's copy or, without the mirror, one made at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_search_sees_behind_a_full_screen_program() {
    for bin in tmux_bins() {
        let label = &bin.label;
        let server = TestServer::builder(&bin)
            .session("fs")
            .size(40, 6)
            .history_limit(1000)
            .start();
        let pane = first_pane(&server);
        run(
            &server,
            &pane,
            "seq -f 'BEHIND old %g' 1 8; printf 'BEHIND wide %.0s漢字' $(seq 12); echo; \
             echo 'BEHIND hidden line'",
        );
        // A full-screen program: the alternate screen with a line of its own.
        type_line(
            &server,
            &pane,
            "printf '\\033[?1049h\\033[HBEHIND on the alternate screen\\n'; sleep 999",
        );
        server.wait_for_text(&pane, "BEHIND on the alternate screen", DEADLINE);
        let o = tw(&server.socket, &["search", "-t", &pane, "BEHIND"]);
        expect_code(&o, 0, "search");
        let cli: Vec<(i64, String)> = out_lines(&o)
            .iter()
            .filter_map(|l| {
                let rest = l.strip_prefix("fs:0.0:")?;
                let (n, text) = rest.split_once(':')?;
                Some((n.parse().ok()?, text.to_string()))
            })
            .collect();
        // The first pane's (line number, line) pairs in a search_panes answer.
        let numbered = |m: &serde_json::Value| -> Vec<(i64, String)> {
            m["matched_lines"]
                .as_array()
                .unwrap()
                .iter()
                .zip(m["matched_line_numbers"].as_array().unwrap())
                .map(|(t, n)| (n.as_i64().unwrap(), t.as_str().unwrap().to_string()))
                .collect()
        };
        let s = crate::support::mirrored_servers(&server);
        let v = ok_typed(&s, search_for("BEHIND")).await;
        let tool = numbered(&v["matches"][0]);
        assert_eq!(cli, tool, "tmux {label}: cli {cli:?} tool {tool:?}");
        // Without the mirror, search_panes makes a copy at once: the same lines.
        let s = crate::support::capture_servers(&server);
        let v = ok_typed(&s, search_for("BEHIND")).await;
        let m = &v["matches"][0];
        assert_eq!(m["source"], "capture", "tmux {label}: {m}");
        let captured = numbered(m);
        assert_eq!(cli, captured, "tmux {label}: without the mirror");
        assert!(
            cli.iter()
                .any(|(_, t)| t.starts_with("BEHIND wide") && t.ends_with("漢字")),
            "tmux {label}: {cli:?}"
        );
        assert!(
            cli.iter().any(|(_, t)| t == "BEHIND hidden line"),
            "tmux {label}: {cli:?}"
        );
        assert!(
            cli.iter()
                .any(|(_, t)| t == "BEHIND on the alternate screen"),
            "tmux {label}: {cli:?}"
        );
    }
}

/// `tmuxwire events` prints every pane's state and exits; with `--follow --json` it goes on
/// printing each event as a JSON line (a new window's `pane_new`).
#[test]
fn cli_events_prints_state_then_follows() {
    let server = TestServer::start(&crate::support::system_tmux());
    let o = tw(&server.socket, &["events"]);
    expect_code(&o, 0, "events");
    let out = stdout(&o);
    assert!(
        out.contains(" %0 state: ") && out.ends_with("(now)\n"),
        "{out}"
    );
    let o = tw(&server.socket, &["events", "--kind", "sneeze"]);
    expect_code(&o, 2, "events --kind sneeze");
    assert!(stderr(&o).contains("--kind \"sneeze\""), "{}", stderr(&o));
    let mut child = tmuxwire()
        .arg("-S")
        .arg(&server.socket)
        .args(["events", "--follow", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn tmuxwire events");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    // The state first: the panes are followed from then on.
    let first = rx.recv_timeout(DEADLINE).expect("the state line");
    let v: serde_json::Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(v["current"], serde_json::json!(true), "{first}");
    let deadline = std::time::Instant::now() + DEADLINE;
    let found = 'found: loop {
        if std::time::Instant::now() >= deadline {
            break None;
        }
        server.tmux_ok(&["new-window", "-d"]);
        let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while let Ok(line) =
            rx.recv_timeout(until.saturating_duration_since(std::time::Instant::now()))
        {
            let v: serde_json::Value = serde_json::from_str(&line).expect("JSON line");
            if v["kind"] == serde_json::json!("pane_new") {
                break 'found Some(v);
            }
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let v = found.expect("a pane_new line");
    assert!(
        v["summary"]
            .as_str()
            .is_some_and(|s| s.contains("pane_new")),
        "{v}"
    );
}

/// `search`'s LINE is tmux's line number of each logical line's first row, whether the history is
/// printable ASCII (before tmux 3.7 its rows are then laid out without a second capture to check
/// them) or holds wide characters at the wrap edge (then checked against tmux's rows): each
/// marked line's number is the row tmux's own row capture shows it starting on.
#[test]
fn cli_search_line_numbers_are_tmux_rows() {
    let filler: String = (0..12)
        .map(|i| format!("filler {i} {}\n", "f".repeat(i * 3)))
        .collect();
    let ascii = format!("MARKA {}\n{filler}MARKB tail\n{filler}", "a".repeat(30));
    // 13 + 6 cells, then a wide character that does not fit in the 20th cell.
    let wide = format!(
        "MARKC {}中x\n{filler}MARKD 中中中中中中中中中中中\n{filler}",
        "c".repeat(13)
    );
    for bin in tmux_bins() {
        let (server, pane, dir) = pane_with(&bin, "rows", (20, 5), &ascii);
        let label = &bin.label;
        for (step, marks) in [
            (0, &["MARKA", "MARKB"][..]),
            (1, &["MARKA", "MARKB", "MARKC", "MARKD"]),
        ] {
            if step == 1 {
                show(&server, &pane, &dir, &wide);
            }
            let hsize = history_size(&server, &pane);
            let rows = server.capture(&pane, &["-S", "-", "-E", "-"]);
            let o = tw(
                &server.socket,
                &["search", "-h", "-t", &pane, "-E", "^MARK"],
            );
            expect_code(&o, 0, "search ^MARK");
            let got: Vec<String> = out_lines(&o);
            let want: Vec<String> = rows
                .lines()
                .enumerate()
                .filter(|(_, r)| r.starts_with("MARK"))
                .map(|(i, r)| {
                    let line = i as i64 - hsize;
                    let text = o_text(&got, r);
                    format!("{line}:{text}")
                })
                .collect();
            assert_eq!(want.len(), marks.len(), "tmux {label} step {step}: {rows}");
            assert_eq!(got, want, "tmux {label} step {step}");
        }
    }
}

/// The whole logical line of `got` (records `LINE:TEXT`) whose text starts with the row `row`.
fn o_text(got: &[String], row: &str) -> String {
    got.iter()
        .filter_map(|r| r.split_once(':').map(|(_, t)| t))
        .find(|t| t.starts_with(row.trim_end()))
        .unwrap_or(row)
        .to_string()
}
