//! `tmuxwire search`: grep for panes.
//!
//! Two layers: a [`LineSource`] yields a copy of each pane
//! (`super::source`: made as the MCP server's mirror makes its copies),
//! whose logical lines and tmux line numbers the mirror's scan reads
//! ([`crate::mirror::scan::Lines`], so `search_panes` finds the same
//! lines), and `super::grep` selects and prints lines with GNU grep's
//! flags. This module turns the flags into both and runs them.
//!
//! What changed from grep, and why: PATTERN is literal unless `-E` (a
//! pane's text is full of regex characters, and a literal keeps the
//! `memmem` fast path); PLACE and LINE are printed by default (`-h`, `-N`
//! leave them out: a pane is not a file a person opened, and LINE is what
//! `capture -S/-E` take); `-s` is `--case-sensitive` (ripgrep's), `-L`
//! the socket name (`--files-without-match` is long only), `-h` not help
//! (`--help` is). Exit status: 0 when a line was selected, 1 when none
//! was, 2 on an error (with `-q`, 0 on a selected line whatever came
//! before).

use std::io::{BufWriter, Read as _, Write as _};
use std::process::ExitCode;

use super::errors::CliError;
use super::grep::{Context, Grep, Keep, MatchOptions, Matcher, Mode, Options};
use super::output::Painter;
use super::source::{Copies, LineSource, PaneInfo, Range, lines_of};
use super::target;
use super::{LineArg, SearchArgs};
use crate::tmux::Servers;

/// The patterns `a` gives: every `-e`, every line of every `-f` file, or
/// PATTERN; each split at its line breaks (GNU grep's rule).
///
/// # Errors
///
/// No pattern at all, PATTERN beside `-e`/`-f`, an unreadable file.
pub fn patterns(a: &SearchArgs) -> Result<Vec<String>, CliError> {
    if a.patterns.is_empty() && a.files.is_empty() {
        let Some(p) = &a.pattern else {
            return Err(
                CliError::new("no PATTERN: give one, or -e PATTERN, or -f FILE")
                    .hint("Example: tmuxwire search 'connection refused'"),
            );
        };
        return Ok(p.split('\n').map(str::to_string).collect());
    }
    if let Some(p) = &a.pattern {
        return Err(CliError::new(format!(
            "PATTERN {p:?} given with -e/-f: grep would read it as a file to search"
        ))
        .hint(
            "Give every pattern with -e (tmuxwire search -e one -e two), and choose panes with -t.",
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for p in &a.patterns {
        out.extend(p.split('\n').map(str::to_string));
    }
    for f in &a.files {
        let mut bytes = Vec::new();
        let read = if f.as_os_str() == "-" {
            std::io::stdin().read_to_end(&mut bytes).map(|_| ())
        } else {
            std::fs::File::open(f).and_then(|mut file| file.read_to_end(&mut bytes).map(|_| ()))
        };
        read.map_err(|e| CliError::new(format!("-f {}: {e}", f.display())))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| CliError::new(format!("-f {}: not UTF-8 text", f.display())))?;
        // One pattern per line; the line break that ends the file ends the
        // last pattern (an empty file has none).
        let body = text.strip_suffix('\n').unwrap_or(&text);
        if !text.is_empty() {
            out.extend(body.split('\n').map(str::to_string));
        }
    }
    Ok(out)
}

/// The grep options `a` asks for.
pub fn options(a: &SearchArgs) -> Options {
    let mode = if a.quiet {
        Mode::Quiet
    } else if a.list {
        Mode::WithMatches
    } else if a.list_without {
        Mode::WithoutMatch
    } else if a.count {
        Mode::Count
    } else {
        Mode::Lines
    };
    Options {
        mode,
        invert: a.invert,
        only_matching: a.only_matching,
        keep: Keep {
            max_count: a.max_count,
            newest: a.newest,
        },
        context: (a.before.is_some() || a.after.is_some() || a.context.is_some()).then(|| {
            Context {
                before: a.before.or(a.context).unwrap_or(0),
                after: a.after.or(a.context).unwrap_or(0),
            }
        }),
        places: !a.no_filename,
        numbers: !a.no_line_number,
    }
}

/// `--start`/`--end` as a source range: `-` is as far as the pane goes.
fn line(v: Option<LineArg>) -> Option<i64> {
    match v {
        Some(LineArg::At(n)) => Some(n),
        Some(LineArg::Edge) | None => None,
    }
}

/// The panes in scope, in `tmuxwire panes` order, each once (a pane of a
/// linked window is listed once per session).
async fn scope(servers: &Servers, target: Option<&str>) -> Result<Vec<PaneInfo>, CliError> {
    let (world, rows) = target::panes_in(servers, target).await?;
    let mut seen = std::collections::HashSet::new();
    Ok(rows
        .into_iter()
        .filter(|&i| seen.insert(world.rows[i].pane_id.clone()))
        .map(|i| {
            let r = &world.rows[i];
            let (size, limit) = (r.history_size, r.history_limit);
            let at_limit = limit > 0 && size > 0 && size >= limit - (limit / 10).max(1);
            PaneInfo {
                pane_id: r.pane_id.clone(),
                session_name: r.session_name.clone(),
                window_index: r.window_index.clone(),
                window_name: r.window_name.clone(),
                pane_index: r.pane_index.clone(),
                command: r.pane_current_command.clone(),
                path: r.pane_current_path.clone(),
                history_at_limit: at_limit,
                ..PaneInfo::default()
            }
        })
        .collect())
}

/// Runs `search`.
///
/// # Errors
///
/// Bad flags or patterns, a missing target, the server's errors.
pub async fn run(servers: &Servers, a: SearchArgs) -> Result<ExitCode, CliError> {
    let patterns = patterns(&a)?;
    let match_opts = MatchOptions {
        regex: a.regex,
        ignore_case: a.ignore_case,
        word: a.word,
        line: a.line,
    };
    let matcher = Matcher::new(&patterns, match_opts)?;
    let opts = options(&a);
    let panes = scope(servers, a.target.as_deref()).await?;
    let tmux = servers.default_server();
    let version = tmux
        .version()
        .await
        .map_err(|e| CliError::new(e.to_string()))?;
    let range = Range {
        start: line(a.start),
        end: line(a.end),
    };
    let mut source = Copies::new(tmux.clone(), panes);
    let painter = Painter::new(a.color.enabled_here());
    let stdout = BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    let mut grep = Grep::new(&matcher, opts, painter, stdout);
    let mut selected = 0usize;
    let mut failed: Option<CliError> = None;
    while let Some(next) = source.next_pane().await {
        match next {
            Ok(copy) => {
                let lines = copy.lines(range);
                selected += if a.redact.redact {
                    // Searched as printed: a secret's text is not there.
                    let mut p = lines_of(&lines, copy.pane.clone());
                    p.redact();
                    grep.pane(&copy.pane, &p)
                } else {
                    grep.pane(&copy.pane, &lines)
                };
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
        // -q: the first selected line settles it; a closed pipe ends it.
        if (opts.mode == Mode::Quiet && selected > 0) || grep.is_broken() {
            break;
        }
    }
    let mut out = grep.into_inner();
    let _ = out.flush();
    drop(out);
    if let Some(e) = failed
        && !(opts.mode == Mode::Quiet && selected > 0)
    {
        return Err(e);
    }
    if selected == 0
        && !patterns.is_empty()
        && !version.at_least(3, 6)
        && matcher
            .pattern()
            .is_some_and(crate::search::Pattern::mentions_tab)
    {
        eprintln!(
            "tmuxwire: tmux {} keeps no TABs: a TAB moves the cursor and leaves blank cells, \
             which read as spaces (tmux 3.6 and later keep them); match the spaces instead \
             (e.g. -E ' +').",
            version.as_str()
        );
    }
    Ok(if selected > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
