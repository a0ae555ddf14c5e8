//! The five steps the demo shows, each checking what it claims: the
//! search timed against tmux's, the wrapped line, the wait, `run_command`,
//! the pane that is gone.

use super::*;

/// Checks that a `search_panes` result holds one line, in `pane`, answered
/// from tmuxwire's copy; returns that pane's match.
pub(super) fn one_match<'a>(v: &'a Value, pane: &str, step: &str) -> Result<&'a Value, Failure> {
    let m = &v["matches"][0];
    check(v["total_panes_matched"].as_u64() == Some(1), || {
        format!(
            "{step}: {} panes matched, expected 1 ({pane})",
            text(&v["total_panes_matched"])
        )
    })?;
    check(m["pane_id"].as_str() == Some(pane), || {
        format!("{step}: found in {}, expected {pane}", text(&m["pane_id"]))
    })?;
    check(m["matched_line_count"].as_u64() == Some(1), || {
        format!(
            "{step}: {} lines matched in {pane}, expected 1",
            text(&m["matched_line_count"])
        )
    })?;
    check(m["source"].as_str() == Some("mirror"), || {
        format!(
            "{step}: answered from {}, not from tmuxwire's copy",
            text(&m["source"])
        )
    })?;
    Ok(m)
}

/// What every step works with: the demo's options and private socket
/// (to ask tmux itself), the look of its output, the servers the tools
/// run on, and the panes.
pub(super) struct Stage<'a> {
    pub(super) opts: &'a Options,
    pub(super) sock: &'a Path,
    pub(super) look: &'a Look,
    pub(super) servers: &'a Servers,
    pub(super) p: &'a Panes,
}

impl Stage<'_> {
    /// `send_keys` of `keys` to `pane` (then Enter when `enter`).
    async fn send_keys(&self, pane: &str, keys: &str, enter: bool) -> Result<(), Failure> {
        call(
            self.servers,
            "send_keys",
            json!({"keys": keys, "pane_id": pane, "enter": enter}),
        )
        .await?;
        Ok(())
    }

    /// `search_panes` for `pattern` (literal, case-sensitive), checked to
    /// find one line, in `pane`, from tmuxwire's copy ([`one_match`]):
    /// that pane's match and how long the search took.
    async fn search_one(
        &self,
        pattern: &str,
        pane: &str,
        step: &str,
    ) -> Result<(Value, Duration), Failure> {
        let args = json!({"pattern": pattern, "match_case": true});
        let (v, took) = call(self.servers, "search_panes", args).await?;
        Ok((one_match(&v, pane, step)?.clone(), took))
    }
}

/// Step 1: every pane's whole scrollback, searched by tmux's own
/// `capture-pane | grep` and by tmuxwire, in this run.
pub(super) async fn step_search(s: &Stage<'_>) -> Result<(), Failure> {
    const STEP: &str = "step 1 (search)";
    const LATER: usize = 5;
    let (opts, sock, look, p) = (s.opts, s.sock, s.look, s.p);
    look.step(1, "Search every pane's whole scrollback");
    look.explain(&format!(
        "\"{NEEDLE}\" is on one line of logs:0.0, somewhere among {} lines in {} panes.",
        thousands(4 * opts.lines),
        p.all.len()
    ));

    // tmux's way, as a script would do it: list the panes, then capture
    // each one's history and grep it.
    let t = Instant::now();
    let counts = with_tmux(
        opts,
        sock,
        |tmux, sock| -> Result<Vec<(String, u64)>, String> {
            let list = tmux_out(tmux, sock, &["list-panes", "-a", "-F", "#{pane_id}"])?;
            String::from_utf8_lossy(&list)
                .lines()
                .map(|pane| Ok((pane.to_string(), tmux_grep(tmux, sock, pane, NEEDLE)?)))
                .collect()
        },
    )
    .await?;
    let tmux_took = t.elapsed();
    let found: Vec<&(String, u64)> = counts.iter().filter(|(_, n)| *n > 0).collect();
    check(
        found.len() == 1 && found[0].0 == p.service && found[0].1 == 1,
        || {
            format!(
                "{STEP}: tmux's own search found {found:?}, expected 1 line in {}",
                p.service
            )
        },
    )?;

    let (m, first) = s.search_one(NEEDLE, &p.service, STEP).await?;
    let line = line_number(&m["matched_line_numbers"][0]);
    let mut later = Vec::with_capacity(LATER);
    for _ in 0..LATER {
        later.push(s.search_one(NEEDLE, &p.service, STEP).await?.1);
    }
    later.sort();
    let median = later[LATER / 2];

    let rows = [
        (
            "tmux: capture-pane -p -J -S - | grep -F, pane by pane".to_string(),
            tmux_took,
            String::new(),
        ),
        (
            "tmuxwire, first search (copies each pane from tmux)".to_string(),
            first,
            ratio(first, tmux_took),
        ),
        (
            format!("tmuxwire, later searches (median of {LATER})"),
            median,
            ratio(median, tmux_took),
        ),
    ];
    for (what, took, vs) in rows {
        let row = format!("     {what:<55} {:>10}   {vs}", ms(took));
        say!("{}", row.trim_end());
    }
    look.good(&format!(
        "both found it once, in logs:0.0 ({}), line {line}",
        p.service
    ));
    Ok(())
}

/// Step 2: a line split over two rows by the pane's edge, found whole.
pub(super) async fn step_wrapped(s: &Stage<'_>) -> Result<(), Failure> {
    const STEP: &str = "step 2 (wrapped line)";
    let (opts, sock, look, p) = (s.opts, s.sock, s.look, s.p);
    look.step(2, "Find a line that the pane's edge split in two");
    look.explain("tmuxwire searches lines as they were printed, not screen rows.");
    let (m, took) = s.search_one(WRAPPED, &p.build, STEP).await?;
    check(m["matched_line_rows"][0].as_u64() == Some(2), || {
        format!(
            "{STEP}: the line spans {} rows, expected 2",
            text(&m["matched_line_rows"][0])
        )
    })?;
    let line = text(&m["matched_lines"][0]);
    let first_row = m["matched_line_numbers"][0].as_i64().unwrap_or(0);
    // The demo's line is ASCII: one character per cell.
    let (row1, row2): (String, String) = {
        let chars: Vec<char> = line.chars().collect();
        let cut = WIDTH.min(chars.len());
        (
            chars[cut.saturating_sub(24)..cut].iter().collect(),
            chars[cut..].iter().collect(),
        )
    };
    check(row1.ends_with(&WRAPPED[..WRAPPED_SPLIT]), || {
        format!("{STEP}: the first row ends {row1:?}, not inside {WRAPPED:?}")
    })?;
    say!(
        "     build:0.0 row {first_row:>4} ends    \"…{}\"",
        escape_text(&row1)
    );
    say!(
        "               row {:>4} starts  \"{}\"",
        first_row + 1,
        escape_text(&row2)
    );
    // tmux's find-window (and its #{C:} format) looks at the screen one row
    // at a time (window_pane_search() in window.c). A text on one row of
    // the same screen shows that the question itself works.
    let format = format!("#{{C:{WRAPPED}}} #{{C:{UNWRAPPED}}}");
    let build = p.build.clone();
    let tmux_row = with_tmux(opts, sock, move |tmux, sock| {
        tmux_out(
            tmux,
            sock,
            &["display-message", "-p", "-t", &build, &format],
        )
    })
    .await?;
    let tmux_row = String::from_utf8_lossy(&tmux_row);
    let mut rows = tmux_row.split_whitespace();
    let tmux_says = match (rows.next(), rows.next()) {
        (Some("0"), Some(r)) if r != "0" => "tmux's find-window reads row by row and misses it",
        (Some(r), _) if r != "0" => "tmux's find-window finds it too",
        _ => "tmux's find-window could not be asked",
    };
    look.good(&format!("found \"{WRAPPED}\" in {}; {tmux_says}", ms(took)));
    Ok(())
}

/// Step 3: `wait_for_text` woken by a line a command prints 0.5 s later.
pub(super) async fn step_wait(s: &Stage<'_>, trigger: &Path) -> Result<(), Failure> {
    const STEP: &str = "step 3 (wait)";
    let (look, servers, p) = (s.look, s.servers, s.p);
    look.step(3, "Wait for a line, woken by the output itself");
    look.explain("wait_for_text sleeps until the pane prints a matching line: no polling.");
    // `cat` prints what the demo writes into the pipe, when it writes it.
    s.send_keys(&p.shell, "cat trigger", true).await?;
    let cpu_before = cpu_time();
    let began = Instant::now();
    let wait = async {
        let r = call(
            servers,
            "wait_for_text",
            json!({"patterns": ["deploy finished"], "match_case": true, "timeout": 10,
                   "pane_id": p.shell}),
        )
        .await;
        (r, Instant::now())
    };
    let ((result, woke), printed) = tokio::join!(wait, print_later(trigger, TRIGGER_DELAY));
    let cpu = cpu_before.zip(cpu_time()).map(|(a, b)| b.saturating_sub(a));
    let (v, _) = result?;
    let printed = printed?;
    check(v["outcome"].as_str() == Some("matched"), || {
        format!(
            "{STEP}: the wait ended with {}, not matched",
            text(&v["outcome"])
        )
    })?;
    let matched: Vec<String> = texts(&v["matched_lines"]);
    check(matched == [TRIGGERED], || {
        format!("{STEP}: the wait matched {matched:?}, expected [{TRIGGERED:?}]")
    })?;
    check(woke >= printed, || {
        format!("{STEP}: the wait returned before the line was printed")
    })?;
    // A wake-up a second late is no wake-up; anything closer is left to
    // the figure (a busy machine adds milliseconds).
    check(woke - printed < Duration::from_secs(1), || {
        format!(
            "{STEP}: the wait returned {} after the line was printed",
            ms(woke - printed)
        )
    })?;
    say!(
        "     {}   prints \"{TRIGGERED}\" when the demo sends it, {} in",
        look.cmd("$ cat trigger"),
        secs(printed - began)
    );
    let cpu = cpu.map_or(String::new(), |c| {
        format!("; {} of CPU in the {} wait", ms(c), secs(woke - began))
    });
    look.good(&format!(
        "woke {} after the line was printed{cpu}",
        ms(woke - printed)
    ));
    Ok(())
}

/// Writes [`TRIGGERED`] into the pipe at `path`, `delay` after the pipe's
/// reader (the pane's `cat`) has opened it; when it wrote.
pub(super) async fn print_later(path: &Path, delay: Duration) -> Result<Instant, String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    // Opening a pipe to write fails at once (ENXIO) until a reader has it
    // open, and O_NONBLOCK keeps the open from blocking the runtime.
    let mut pipe = loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(f) => break f,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Err(e) => {
                return Err(format!(
                    "step 3: the pane's `cat trigger` did not start: {e}"
                ));
            }
        }
    };
    tokio::time::sleep(delay).await;
    let at = Instant::now();
    // One short line fits an empty pipe: the write never blocks.
    pipe.write_all(format!("{TRIGGERED}\n").as_bytes())
        .map_err(|e| format!("step 3: cannot write to the pipe: {e}"))?;
    Ok(at)
}

/// Step 4: `run_command` with a command that fails.
pub(super) async fn step_run(s: &Stage<'_>) -> Result<(), Failure> {
    const STEP: &str = "step 4 (run_command)";
    let (look, servers, p) = (s.look, s.servers, s.p);
    look.step(4, "Run a command: its exit status and only its own output");
    look.explain("run_command types it at the shell's prompt and waits until it ends.");
    let (v, took) = call(
        servers,
        "run_command",
        json!({"command": CHECK_COMMAND, "pane_id": p.shell, "timeout": 10}),
    )
    .await?;
    let output: Vec<String> = texts(&v["output"]);
    say!(
        "     {}   exit status {}, {} lines, {}",
        look.cmd(&format!("$ {CHECK_COMMAND}")),
        text(&v["exit_status"]),
        output.len(),
        ms(took)
    );
    for l in &output {
        say!("       │ {}", escape_text(l));
    }
    check(v["exit_status"].as_i64() == Some(CHECK_STATUS), || {
        format!(
            "{STEP}: exit status {}, expected {CHECK_STATUS}",
            text(&v["exit_status"])
        )
    })?;
    check(output == CHECK_OUTPUT, || {
        format!("{STEP}: the output was {output:?}, expected {CHECK_OUTPUT:?}")
    })?;
    look.good(&format!(
        "status {CHECK_STATUS} and exactly its {} lines: not the prompt, the echo or earlier text",
        CHECK_OUTPUT.len()
    ));
    Ok(())
}

/// Step 5: a pane whose program exited, and which tmux removed, searched.
pub(super) async fn step_gone(s: &Stage<'_>) -> Result<(), Failure> {
    const STEP: &str = "step 5 (gone pane)";
    let (opts, sock, look, servers, p) = (s.opts, s.sock, s.look, s.servers, s.p);
    look.step(5, "Search a pane that is gone");
    look.explain("tmuxwire keeps the copy of a pane whose program exited and which tmux removed.");
    // The deploy pane's program waits for Enter, then exits with status 3.
    s.send_keys(&p.deploy, "Enter", false).await?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (v, _) = call(servers, "list_panes", json!({})).await?;
        let listed =
            items(&v["result"]).any(|pane| pane["pane_id"].as_str() == Some(p.deploy.as_str()));
        if !listed {
            break;
        }
        if Instant::now() > deadline {
            return Err(Failure::Check(format!(
                "{STEP}: tmux still lists {} 10 s after its program was told to exit",
                p.deploy
            )));
        }
        tokio::time::sleep(POLL).await;
    }
    // tmux itself has nothing left to search.
    let deploy = p.deploy.clone();
    let tmux_says = with_tmux(opts, sock, move |tmux, sock| {
        tmux_run(tmux, sock, &["capture-pane", "-p", "-t", &deploy])
    })
    .await?;
    check(!tmux_says.status.success(), || {
        format!("{STEP}: tmux still captures {}", p.deploy)
    })?;
    let tmux_error = String::from_utf8_lossy(&tmux_says.stderr)
        .trim()
        .to_string();
    say!(
        "     shell:1.0 ({}) printed a deploy log, then its program exited; tmux removed the pane",
        p.deploy
    );
    say!(
        "     tmux capture-pane -t {} now says: {}",
        p.deploy,
        escape_text(&tmux_error)
    );
    let (m, took) = s.search_one(DEPLOY_NEEDLE, &p.deploy, STEP).await?;
    check(m["pane_dead"].as_bool() == Some(true), || {
        format!("{STEP}: the match does not say its pane is gone")
    })?;
    say!(
        "     tmuxwire's copy, line {}: {}",
        line_number(&m["matched_line_numbers"][0]),
        escape_text(text(&m["matched_lines"][0]).trim_start())
    );
    let status = match m["exit_status"].as_i64() {
        Some(s) => format!(", which exited with status {s}"),
        None => String::new(),
    };
    look.good(&format!(
        "found \"{DEPLOY_NEEDLE}\" in {}, in the gone pane{status}",
        ms(took)
    ));
    Ok(())
}
