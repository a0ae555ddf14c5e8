//! Seeding a copy: one command line that reads everything a
//! [`Term`](crate::term::Term) needs about a pane at one moment, and
//! building the copy from its answer ([`crate::term::Seed`] has the
//! details of what is read and why).
//!
//! # The line
//!
//! ```text
//! [refresh-client -A '%P:continue' ;]                after a %pause
//! list-panes -t %P -f <%P only> -F '<Seed::FORMAT>' ;  size, cursor, history, modes, tabs
//! list-panes -t %P -f <%P only> -F '<options>' ;       scroll-on-clear, alternate-screen, …
//! capture-pane -t %P -N [-T] [-F] -S - -E -1    (paste-buffer read) ;  history rows
//! capture-pane -t %P -e -N [-T] [-F] -S 0 -E -  (paste-buffer read) ;  screen rows
//! capture-pane -t %P -J -S - -E -               (paste-buffer read) ;  wrapped flags
//! capture-pane -t %P -a -e -N [-T] [-F] -q      (paste-buffer read) ;  hidden main screen
//! capture-pane -t %P -a -J -q                   (paste-buffer read) ;  its wrapped flags
//! capture-pane -t %P -P                         (paste-buffer read)    escape in progress
//! ```
//!
//! One line, so tmux runs it as one list with no pane output read in
//! between: everything describes one moment, and the output that follows
//! the answer in the stream is exactly what the copy lacks (see
//! [`super::watch`] for the one exception). Every capture is a
//! paste-buffer read framed by its length ([`crate::control::buffer`]), so
//! no pane text can cut the answer. The two format records print only
//! numbers and `on`/`off`, which no pane controls.

use crate::control::buffer::{GROUP, capture_commands, captured};
use crate::control::client::Reply;
use crate::control::parse::Block;
use crate::control::{Command, Encoding, Line, PaneId, Target, TargetKind};
use crate::term::{Captures, DecGraphics, LineIndex, Options, Rules, Seed, Term};
use crate::wire::TmuxVersion;

/// The options record: what changes how the pane's text is kept.
const OPTIONS_FORMAT: &str = "#{scroll-on-clear},#{alternate-screen},\
#{variation-selector-always-wide},#{pane_right},#{window_width},#{pane_dead},\
#{pane_dead_status}";

/// What building a copy needs besides the answer.
#[derive(Clone, Debug)]
pub struct SeedOptions {
    /// The server's width rules.
    pub rules: Rules,
    /// The index the copy's first history line gets (a re-seed continues
    /// the numbering of the copy it replaces).
    pub first: LineIndex,
}

/// How the seed line is built for a server version.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    /// How `show-buffer` writes buffers.
    pub encoding: Encoding,
    /// `capture-pane -T` exists (3.4+).
    pub trim_flag: bool,
    /// `capture-pane -F` prints row flags (3.7+): no joined captures then.
    pub row_flags: bool,
}

impl Recipe {
    /// The recipe for `version`.
    pub fn for_version(version: &TmuxVersion, encoding: Encoding) -> Recipe {
        Recipe {
            encoding,
            trim_flag: version.at_least(3, 4),
            row_flags: version.at_least(3, 7),
        }
    }
}

/// A copy built from a seed.
#[derive(Debug)]
pub struct Built {
    /// The copy.
    pub term: Term,
    /// The pane's program has exited (remain-on-exit kept the pane).
    pub dead: bool,
    /// Its exit status, if so.
    pub exit_status: Option<i32>,
}

/// Why a seed gave no copy.
#[derive(Debug, PartialEq, Eq)]
pub enum SeedFailure {
    /// The pane no longer exists.
    Gone,
    /// tmux's answer could not be turned into a copy.
    Unusable(String),
}

/// The capture commands of the line, in order (see the module docs).
fn captures(pane: PaneId, r: &Recipe) -> Vec<[Command; GROUP]> {
    let target = Target::Pane(pane);
    let cap = |flags: &[&str]| {
        let mut c = Command::new("capture-pane").arg("-p");
        for f in flags {
            c = c.arg(*f);
        }
        capture_commands(&c.target(&target, TargetKind::Pane), r.encoding)
    };
    let mut rows = vec!["-e", "-N"];
    if r.trim_flag {
        rows.push("-T");
    }
    if r.row_flags {
        rows.push("-F");
    }
    // History without -e: tmux renders codes at a seventh of the speed
    // (100,000 rows: 0.65 s against 0.09 s on 3.3a), and history is kept
    // as text. The screen with -e, in a capture of its own so its codes
    // start from the default style.
    let mut history_rows: Vec<&str> = rows.iter().copied().filter(|f| *f != "-e").collect();
    history_rows.extend(["-S", "-", "-E", "-1"]);
    let mut screen_rows = rows.clone();
    screen_rows.extend(["-S", "0", "-E", "-"]);
    let mut saved_rows = vec!["-a"];
    saved_rows.extend(&rows);
    saved_rows.push("-q");
    let mut out = vec![cap(&history_rows), cap(&screen_rows)];
    if !r.row_flags {
        out.push(cap(&["-J", "-S", "-", "-E", "-"]));
    }
    out.push(cap(&saved_rows));
    if !r.row_flags {
        out.push(cap(&["-a", "-J", "-q"]));
    }
    out.push(cap(&["-P"]));
    out
}

/// The seed line for `pane`; with `continue_first`, it first resumes the
/// pane's output (`refresh-client -A '%N:continue'`) after a `%pause`, in
/// the same line, so no output is lost between the seed and the resume.
pub fn line(pane: PaneId, recipe: &Recipe, continue_first: bool) -> Line {
    let target = Target::Pane(pane);
    let record = |format: &str| {
        Command::new("list-panes")
            .target(&target, TargetKind::Window)
            .opt("-f", format!("#{{==:#{{pane_id}},{pane}}}"))
            .opt("-F", format)
    };
    let mut cmds = Vec::new();
    if continue_first {
        cmds.push(Command::new("refresh-client").opt("-A", format!("{pane}:continue")));
    }
    cmds.push(record(Seed::FORMAT));
    cmds.push(record(OPTIONS_FORMAT));
    for group in captures(pane, recipe) {
        cmds.extend(group);
    }
    Line::list(cmds)
}

/// Builds the copy from a [`line`]'s answer.
///
/// # Errors
///
/// [`SeedFailure::Gone`] when tmux says the pane does not exist;
/// [`SeedFailure::Unusable`] when a command failed or the captures do not
/// fit together.
pub fn build(
    reply: Reply,
    recipe: &Recipe,
    continue_first: bool,
    opts: &SeedOptions,
) -> Result<Built, SeedFailure> {
    let mut blocks = reply.blocks.into_iter();
    if continue_first {
        blocks.next();
    }
    let (Some(formats), Some(options)) = (blocks.next(), blocks.next()) else {
        return Err(SeedFailure::Unusable("tmux gave a short answer".into()));
    };
    if !formats.ok {
        let text = formats.text();
        return Err(if text.contains("can't find") {
            SeedFailure::Gone
        } else {
            SeedFailure::Unusable(text)
        });
    }
    if formats.body.is_empty() {
        // The filter matched nothing: the pane is gone.
        return Err(SeedFailure::Gone);
    }
    if !options.ok {
        return Err(unusable(Some(&options)));
    }
    let groups = if recipe.row_flags { 4 } else { 6 };
    let mut texts = Vec::with_capacity(groups);
    for _ in 0..groups {
        // Each capture's blocks are moved, not copied: a seed of a long
        // history is tens of megabytes.
        let group: Vec<Block> = blocks.by_ref().take(GROUP).collect();
        texts.push(
            captured(group).map_err(|e| {
                SeedFailure::Unusable(String::from_utf8_lossy(&e).trim().to_string())
            })?,
        );
    }
    let (history_rows, screen_rows) = (&texts[0], &texts[1]);
    let (joined, saved_rows, saved_joined, pending) = if recipe.row_flags {
        (&[][..], &texts[2], &[][..], &texts[3])
    } else {
        (
            texts[2].as_slice(),
            &texts[3],
            texts[4].as_slice(),
            &texts[5],
        )
    };
    let formats_text = formats.text();
    let option = options.text();
    let o: Vec<&str> = option.split(',').collect();
    let on = |i: usize, default: bool| match o.get(i).map(|s| s.trim()) {
        Some("on") | Some("1") => true,
        Some("off") | Some("0") => false,
        _ => default,
    };
    let num = |i: usize| o.get(i).and_then(|s| s.trim().parse::<i64>().ok());
    let at_edge = match (num(3), num(4)) {
        (Some(right), Some(width)) => right + 1 >= width,
        _ => true,
    };
    let term_opts = Options {
        history_limit: 0,
        scroll_on_clear: on(0, true),
        alternate_screen: on(1, true),
        variation_selector_always_wide: on(2, true),
        dec_graphics: DecGraphics::Unicode,
        at_window_right_edge: at_edge,
    };
    let c = Captures {
        formats: &formats_text,
        rows: history_rows,
        screen_rows: Some(screen_rows),
        rows_have_flags: recipe.row_flags,
        joined,
        saved_rows,
        saved_joined,
        pending,
    };
    let term = Seed::from_captures(&c, opts.rules, term_opts, opts.first)
        .map_err(|e| SeedFailure::Unusable(e.to_string()))?;
    Ok(Built {
        term,
        dead: on(5, false),
        exit_status: num(6).and_then(|v| i32::try_from(v).ok()),
    })
}

fn unusable(b: Option<&Block>) -> SeedFailure {
    SeedFailure::Unusable(
        b.map(Block::text)
            .unwrap_or_else(|| "tmux gave a short answer".into()),
    )
}
