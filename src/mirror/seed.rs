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
//! capture-pane -t %P -J -S - -E -1              (kept buffer) ;        history lines (< 3.7)
//! capture-pane -t %P -N -T -F -S - -E -1        (kept buffer) ;        history rows (≥ 3.7)
//! capture-pane -t %P -e -N [-T] [-F] -S 0 -E -  (paste-buffer read) ;  screen rows
//! capture-pane -t %P -J -S 0 -E -               (paste-buffer read) ;  their wrapped flags (< 3.7)
//! capture-pane -t %P -a -e -N [-T] [-F] -q      (paste-buffer read) ;  hidden main screen
//! capture-pane -t %P -a -J -q                   (paste-buffer read) ;  its wrapped flags (< 3.7)
//! capture-pane -t %P -P                         (paste-buffer read)    escape in progress
//! ```
//!
//! A line that follows a pane without reading its history
//! ([`Depth::Screen`]) leaves out the history's capture: the copy counts
//! tmux's history rows as absent and keeps what scrolls off the screen
//! from then on. Its history is read by a [`Depth::Full`] line when a
//! request first needs it.
//!
//! One line, so tmux runs it as one list with no pane output read in
//! between: everything describes one moment, and the output that follows
//! the answer in the stream is exactly what the copy lacks (see
//! [`super::watch`] for the one exception). Every capture printed on the
//! line is a paste-buffer read framed by its length
//! ([`crate::control::buffer`]), so no pane text can cut the answer. The
//! two format records print only numbers and `on`/`off`, which no pane
//! controls.
//!
//! The history, most of a seed's bytes, is captured into a buffer that the
//! line leaves in place, with its size printed; a one-shot client then
//! reads it (`save-buffer -b B -`, which tmux writes to a client without a
//! session raw, as file data) and deletes it. tmux spends 0.11–0.18 s
//! printing a 10 MB buffer to a control client on 3.3a and 0.04 s writing
//! it to a one-shot client; the buffer's size checks that all of it came.
//! Before 3.7 (no `-F`) the history is captured once, joined, and its rows
//! laid out again ([`Captures::history_joined`]); when that does not give
//! tmux's row count, the pane is seeded again with the [exact](Recipe::exact)
//! line, which captures the rows and the joined text of everything and
//! prints them on the line.

use crate::control::buffer::{EMPTY, GROUP, capture_commands, captured};
use crate::control::client::Reply;
use crate::control::format;
use crate::control::parse::Block;
use crate::control::said::{Said, said};
use crate::control::{Command, Encoding, Line, PaneId, Target, TargetKind};
use crate::term::{Captures, DecGraphics, LaidHistory, LineIndex, Options, Rules, Seed, Term};
use crate::wire::TmuxVersion;

/// The options record: what changes how the pane's text is kept.
const OPTIONS_FORMAT: &str = "#{scroll-on-clear},#{alternate-screen},\
#{variation-selector-always-wide},#{pane_right},#{window_width},#{pane_dead},\
#{pane_dead_status}";

/// [`OPTIONS_FORMAT`] and then the private modes' flags the version has
/// ([`crate::term::modes_format`]); a field a fake or older server leaves
/// out reads as unknown.
fn options_format(recipe: &Recipe) -> String {
    format!(
        "{OPTIONS_FORMAT},{}",
        crate::term::modes_format(recipe.paste_and_sync_flags, recipe.private_modes)
    )
}

/// The fields of [`OPTIONS_FORMAT`] before the modes.
const OPTIONS_FIELDS: usize = 7;

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
    /// `#{bracket_paste_flag}` and `#{synchronized_output_flag}` exist
    /// (3.7+).
    pub paste_and_sync_flags: bool,
    /// `#{pane_private_modes}` exists (3.8+).
    pub private_modes: bool,
    /// Print everything on the line, history rows and joined text
    /// included (< 3.7: rows exactly as tmux has them, for a pane whose
    /// history does not lay out again as its rows). Otherwise the history
    /// is left in a buffer for [`fetch_history`].
    pub exact: bool,
}

impl Recipe {
    /// The recipe for `version`.
    pub fn for_version(version: &TmuxVersion, encoding: Encoding) -> Recipe {
        Recipe {
            encoding,
            trim_flag: version.at_least(3, 4),
            row_flags: version.at_least(3, 7),
            paste_and_sync_flags: version.at_least(3, 7),
            private_modes: version.at_least(3, 8),
            exact: false,
        }
    }

    /// This recipe, printing everything on the line ([`Recipe::exact`]).
    pub fn exact(self) -> Recipe {
        Recipe {
            exact: true,
            ..self
        }
    }

    /// Whether the history is left in a buffer rather than printed.
    pub fn history_apart(&self) -> bool {
        !self.exact
    }

    /// Whether the history comes as joined lines whose rows are laid out
    /// again ([`Captures::history_joined`]).
    fn history_joined(&self) -> bool {
        self.history_apart() && !self.row_flags
    }
}

/// How much of a pane a seed reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// What following the pane needs: its state, screen, hidden main
    /// screen and pending escape, whatever the length of its history (a
    /// few kilobytes, a fraction of a millisecond of tmux's time). The
    /// copy holds no history and counts tmux's rows as
    /// [absent](crate::term::History::absent); rows that scroll off the
    /// screen from then on are kept as usual.
    Screen,
    /// Everything, the history included (what a search or a capture of
    /// the history reads).
    Full,
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
    /// The history's lines did not lay out as tmux's rows
    /// ([`crate::term::Captures::history_joined`]): seed with the
    /// [exact](Recipe::exact) line.
    Layout(String),
}

/// Commands that leave the history in a buffer ([`history_commands`]).
const KEPT: usize = 3;

/// The capture of the history into buffer `name`, left there: fill it
/// with [`EMPTY`] (an empty capture leaves a buffer as it was), capture,
/// print its size.
fn history_commands(pane: PaneId, r: &Recipe, name: &str) -> [Command; KEPT] {
    let flags: &[&str] = if r.row_flags {
        &["-N", "-T", "-F", "-S", "-", "-E", "-1"]
    } else {
        &["-J", "-S", "-", "-E", "-1"]
    };
    history_into(pane, flags, name)
}

/// `capture-pane` of `pane` with `flags` into buffer `name`, as
/// [`history_commands`] runs it.
fn history_into(pane: PaneId, flags: &[&str], name: &str) -> [Command; KEPT] {
    let cap = flags
        .iter()
        .fold(Command::new("capture-pane"), |c, f| c.arg(*f))
        .target(&Target::Pane(pane), TargetKind::Pane)
        .opt("-b", name.to_string());
    [
        Command::new("set-buffer")
            .opt("-b", name.to_string())
            .arg(EMPTY),
        cap,
        Command::new("list-buffers")
            .opt("-F", "#{buffer_size}")
            .opt("-f", format!("#{{==:#{{buffer_name}},{name}}}")),
    ]
}

/// The capture commands of the line, in order (see the module docs);
/// `apart`: the history is left in a buffer or not read at all, so none
/// of them captures it.
fn captures(pane: PaneId, r: &Recipe, apart: bool) -> Vec<[Command; GROUP]> {
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
    let mut out = Vec::new();
    if !apart {
        // History without -e: tmux renders codes at a seventh of the speed
        // (100,000 rows: 0.65 s against 0.09 s on 3.3a), and history is kept
        // as text. The screen with -e, in a capture of its own so its codes
        // start from the default style.
        let mut history_rows: Vec<&str> = rows.iter().copied().filter(|f| *f != "-e").collect();
        history_rows.extend(["-S", "-", "-E", "-1"]);
        out.push(cap(&history_rows));
    }
    let mut screen_rows = rows.clone();
    screen_rows.extend(["-S", "0", "-E", "-"]);
    let mut saved_rows = vec!["-a"];
    saved_rows.extend(&rows);
    saved_rows.push("-q");
    out.push(cap(&screen_rows));
    if !r.row_flags {
        // The logical lines of what the rows cover.
        let from = if apart { "0" } else { "-" };
        out.push(cap(&["-J", "-S", from, "-E", "-"]));
    }
    out.push(cap(&saved_rows));
    if !r.row_flags {
        out.push(cap(&["-a", "-J", "-q"]));
    }
    out.push(cap(&["-P"]));
    out
}

/// A seed line and the buffer it leaves the history in, if any.
#[derive(Debug)]
pub struct SeedLine {
    /// The line.
    pub line: Line,
    /// The buffer holding the history once the line has run (named with a
    /// random nonce), for [`fetch_history`]; `None` for an
    /// [exact](Recipe::exact) recipe.
    pub history_buffer: Option<String>,
}

/// The seed line for `pane` that reads `depth` of it; with
/// `continue_first`, it first resumes the pane's output
/// (`refresh-client -A '%N:continue'`) after a `%pause`, in the same line,
/// so no output is lost between the seed and the resume. A
/// [`Depth::Screen`] line has no history commands (the recipe's
/// [exact](Recipe::exact) flag, which is about the history, is then
/// unused).
pub fn line(pane: PaneId, recipe: &Recipe, continue_first: bool, depth: Depth) -> SeedLine {
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
    cmds.push(record(&options_format(recipe)));
    let full = depth == Depth::Full;
    let history_buffer =
        (full && recipe.history_apart()).then(|| format!("tmuxwire-{}", format::nonce()));
    if let Some(name) = &history_buffer {
        cmds.extend(history_commands(pane, recipe, name));
    }
    for group in captures(pane, recipe, !full || recipe.history_apart()) {
        cmds.extend(group);
    }
    SeedLine {
        line: Line::list(cmds),
        history_buffer,
    }
}

/// The line that checks a copy whose history was seeded as lines
/// ([`crate::term::Captures::history_joined`]): the history's rows are
/// captured into buffer `name`, left there for [`fetch_history`], with
/// the buffer's size printed. Its answer marks the moment the rows are
/// from: the copy at that point in the stream is what they must match
/// ([`crate::term::history_rows_match`]).
pub fn verify_line(pane: PaneId, name: &str) -> Line {
    Line::list(history_into(pane, &["-N", "-S", "-", "-E", "-1"], name).into())
}

/// Rows one [`verify_chunk_line`] captures at most. tmux renders roughly
/// a thousand history rows a millisecond and reads no pane's output
/// meanwhile, so a chunk holds up the server (and every wait's output) for
/// well under a millisecond, where a check of a whole 100,000-row history
/// took 8–141 ms.
pub const VERIFY_ROWS: usize = 500;

/// The line that checks the history rows `start..=end` (tmux line
/// numbers: negative, counted up from the screen) of a copy whose history
/// was seeded as lines ([`crate::term::Captures::history_joined`]): the
/// pane's history size (`display-message -p '#{history_size}'`, a number)
/// and the rows (`capture-pane -N`, a length-framed paste-buffer read), at
/// one moment. Its answer marks the moment: the copy at that point in the
/// stream is what the rows must match ([`verify_chunk`]).
pub fn verify_chunk_line(pane: PaneId, start: i64, end: i64, encoding: Encoding) -> Line {
    let target = Target::Pane(pane);
    let size = Command::new("display-message")
        .arg("-p")
        .target(&target, TargetKind::Pane)
        .arg("#{history_size}");
    let cap = Command::new("capture-pane")
        .arg("-p")
        .arg("-N")
        .opt("-S", start.to_string())
        .opt("-E", end.to_string())
        .target(&target, TargetKind::Pane);
    let mut cmds = vec![size];
    cmds.extend(capture_commands(&cap, encoding));
    Line::list(cmds)
}

/// The history size and the rows (each ending in `\n`, as
/// [`crate::term::history_rows_match`] reads them) of a
/// [`verify_chunk_line`]'s answer; `None` when a command failed.
pub fn verify_chunk(reply: Reply) -> Option<(usize, Vec<u8>)> {
    let mut blocks = reply.blocks.into_iter();
    let size = blocks.next().filter(|b| b.ok)?;
    let size = size.text().trim().parse().ok()?;
    let rows = captured(blocks.collect()).ok()?;
    Some((size, rows))
}

/// The size of the buffer a [`verify_line`] filled, from its answer.
pub fn verify_size(reply: &Reply) -> Option<usize> {
    if reply.blocks.len() != KEPT || reply.blocks.iter().any(|b| !b.ok) {
        return None;
    }
    reply.blocks[2].text().trim().parse().ok()
}

/// Whether a copy seeded with `recipe` has its history rows laid out
/// rather than captured, so they are checked ([`verify_line`]).
pub fn needs_verify(recipe: &Recipe) -> bool {
    recipe.history_joined()
}

/// Reads and deletes the buffer a seed line left the history in, with a
/// one-shot client of the server at `path` (`save-buffer -b NAME -`, then
/// `delete-buffer -b NAME`). The bytes are the buffer's as tmux holds
/// them ([`build`] checks them against the size the line printed).
///
/// # Errors
///
/// A connection failure, or tmux's error text when it could not write the
/// buffer (it does not exist: the line failed before making it).
pub async fn fetch_history(
    endpoint: &crate::wire::Endpoint,
    name: &str,
    timeout: std::time::Duration,
) -> Result<Vec<u8>, String> {
    let save: [&str; 4] = ["save-buffer", "-b", name, "-"];
    let delete: [&str; 3] = ["delete-buffer", "-b", name];
    let out = endpoint
        .run_command_list(&[&save[..], &delete[..]], timeout)
        .await
        .map_err(|e| e.to_string())?;
    if !out.success() {
        return Err(out.error_text());
    }
    Ok(out.stdout)
}

/// The line that reads and deletes the buffer a seed line left the
/// history in over a control connection, for a server on another host
/// (where each one-shot client of [`fetch_history`] is an ssh process):
/// `list-buffers -F '#{buffer_size}' -f <NAME only> ; show-buffer -b NAME
/// ; list-buffers -F <canary> … ; delete-buffer -b NAME`. The text is read
/// by the size printed before it ([`crate::control::correlate::FrameSpec::LengthOfPrevious`]), so no
/// line of it can end the answer early, and the canary says where tmux's
/// output resumes if it printed past the text
/// ([`crate::control::buffer::show_commands`]); `encoding` is how
/// `show-buffer` writes to a control client on the server's version
/// ([`crate::control::buffer::buffer_encoding`]: vis(3)-escaped before
/// 3.4, decoded here). [`fetched`] reads the answer.
pub fn fetch_line(name: &str, encoding: Encoding) -> Line {
    let [show, sing] = crate::control::buffer::show_commands(name, encoding);
    Line::list(vec![
        Command::new("list-buffers")
            .opt("-F", "#{buffer_size}")
            .opt("-f", format!("#{{==:#{{buffer_name}},{name}}}")),
        show,
        sing,
        Command::new("delete-buffer").opt("-b", name.to_string()),
    ])
}

/// The buffer's bytes from a [`fetch_line`]'s answer, as
/// [`fetch_history`] gives them.
///
/// # Errors
///
/// tmux's error text when the buffer could not be shown (it does not
/// exist: the seed line failed before making it).
pub fn fetched(reply: Reply) -> Result<Vec<u8>, String> {
    let mut blocks = reply.blocks.into_iter();
    let (Some(_size), Some(show)) = (blocks.next(), blocks.next()) else {
        return Err("tmux gave no answer to show-buffer".into());
    };
    if !show.ok {
        return Err(show.text());
    }
    Ok(show.body)
}

/// Reads and deletes a seed's history buffer `name`: with a one-shot
/// client ([`fetch_history`]) when the server is on this machine; for one
/// on another host, where a one-shot client is an ssh process, `over` runs
/// [`fetch_line`] on a control connection the caller has and gives its
/// answer, read by [`fetched`].
///
/// # Errors
///
/// As [`fetch_history`] and [`fetched`], or `over`'s.
pub async fn fetch_history_for<Fut>(
    endpoint: &crate::wire::Endpoint,
    name: &str,
    timeout: std::time::Duration,
    over: impl FnOnce() -> Fut,
) -> Result<Vec<u8>, String>
where
    Fut: std::future::Future<Output = Result<Reply, String>>,
{
    if endpoint.remote().is_none() {
        return fetch_history(endpoint, name, timeout).await;
    }
    fetched(over().await?)
}

/// Builds the copy from the answer of a [`line`] of `depth`.
///
/// # Errors
///
/// [`SeedFailure::Gone`] when tmux says the pane does not exist;
/// [`SeedFailure::Unusable`] when a command failed or the captures do not
/// fit together.
///
/// With a [`Depth::Full`] line of a recipe that leaves the history apart,
/// `history` is what [`fetch_history`] read (`None` when it failed); a
/// history whose size is not the one the line printed is unusable.
pub fn build(
    reply: Reply,
    recipe: &Recipe,
    continue_first: bool,
    depth: Depth,
    opts: &SeedOptions,
    history: Option<Vec<u8>>,
) -> Result<Built, SeedFailure> {
    build_from(
        reply,
        recipe,
        continue_first,
        depth,
        opts,
        Read::Text(history),
    )
}

/// [`build`] for a [`Depth::Full`] line that leaves the history in a
/// buffer, with the buffer laid out as it was read (`laid`, made from this
/// answer's first record with `opts`: see [`laid_history`]) instead of
/// its text.
///
/// # Errors
///
/// As [`build`].
pub fn build_laid(
    reply: Reply,
    recipe: &Recipe,
    opts: &SeedOptions,
    laid: LaidHistory,
) -> Result<Built, SeedFailure> {
    build_from(
        reply,
        recipe,
        false,
        Depth::Full,
        opts,
        Read::Laid(Box::new(laid)),
    )
}

/// The empty [`LaidHistory`] the history buffer of a [`Depth::Full`]
/// line's `reply` (no resume first) is laid out into as it is read;
/// `None` when the answer has no record to make one from (build it from
/// the text then: [`build`] says why).
pub fn laid_history(reply: &Reply, recipe: &Recipe, opts: &SeedOptions) -> Option<LaidHistory> {
    let formats = reply.blocks.first().filter(|b| b.ok)?;
    let formats = formats.text();
    if recipe.row_flags {
        // Read as build reads the screen: DEC graphics as box characters.
        LaidHistory::new_rows(&formats, opts.rules, opts.first, true).ok()
    } else {
        LaidHistory::new(&formats, opts.rules, opts.first).ok()
    }
}

/// The history buffer as it was read.
enum Read {
    /// Its bytes (`None`: it could not be read).
    Text(Option<Vec<u8>>),
    /// Laid out as it came.
    Laid(Box<LaidHistory>),
}

fn build_from(
    reply: Reply,
    recipe: &Recipe,
    continue_first: bool,
    depth: Depth,
    opts: &SeedOptions,
    read: Read,
) -> Result<Built, SeedFailure> {
    if let Some(failure) = gone(&reply, continue_first) {
        return Err(failure);
    }
    let screen_only = depth == Depth::Screen;
    // No capture on the line holds the history (it is in a buffer, or not
    // read at all).
    let apart = screen_only || recipe.history_apart();
    let mut blocks = reply.blocks.into_iter();
    if continue_first {
        blocks.next();
    }
    let (Some(formats), Some(options)) = (blocks.next(), blocks.next()) else {
        return Err(SeedFailure::Unusable("tmux gave a short answer".into()));
    };
    if !options.ok {
        return Err(unusable(Some(&options)));
    }
    let (history, laid) = if !screen_only && recipe.history_apart() {
        let kept: Vec<Block> = blocks.by_ref().take(KEPT).collect();
        if let Some(b) = kept.iter().find(|b| !b.ok) {
            return Err(unusable(Some(b)));
        }
        let size = kept
            .get(2)
            .and_then(|b| b.text().trim().parse::<usize>().ok())
            .ok_or_else(|| SeedFailure::Unusable("tmux did not print the history's size".into()))?;
        let got = match &read {
            Read::Text(bytes) => bytes.as_ref().map(Vec::len),
            Read::Laid(laid) => Some(laid.bytes()),
        };
        let got = got
            .ok_or_else(|| SeedFailure::Unusable("the history buffer could not be read".into()))?;
        if got != size {
            return Err(SeedFailure::Unusable(format!(
                "the history buffer held {got} bytes, tmux said {size}"
            )));
        }
        match read {
            Read::Text(Some(bytes)) if bytes != EMPTY.as_bytes() => (Some(bytes), None),
            Read::Text(_) => (Some(Vec::new()), None),
            // Laid out already: the joined text stands empty.
            Read::Laid(laid) => (Some(Vec::new()), Some(*laid)),
        }
    } else {
        (None, None)
    };
    let laid = laid.filter(|_| recipe.history_apart());
    let groups = match (apart, recipe.row_flags) {
        (true, true) => 3,
        (true, false) => 5,
        (false, true) => 4,
        (false, false) => 6,
    };
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
    // Without the history, the groups are those of the exact line after
    // its first.
    let at = usize::from(apart);
    let history_rows = match &history {
        Some(h) if recipe.row_flags => h.as_slice(),
        Some(_) => &[][..],
        None if apart => &[][..],
        None => texts[0].as_slice(),
    };
    let screen_rows = &texts[1 - at];
    let (joined, saved_rows, saved_joined, pending) = if recipe.row_flags {
        (&[][..], &texts[2 - at], &[][..], &texts[3 - at])
    } else {
        (
            texts[2 - at].as_slice(),
            &texts[3 - at],
            texts[4 - at].as_slice(),
            &texts[5 - at],
        )
    };
    let history_joined = history.as_deref().filter(|_| recipe.history_joined());
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
        history_joined,
        saved_rows,
        saved_joined,
        pending,
        history_absent: screen_only,
    };
    let made = match laid {
        Some(laid) => Seed::from_captures_laid(&c, opts.rules, term_opts, opts.first, laid),
        None => Seed::from_captures(&c, opts.rules, term_opts, opts.first),
    };
    let mut term = made.map_err(|e| {
        if e.is_layout() {
            SeedFailure::Layout(e.to_string())
        } else {
            SeedFailure::Unusable(e.to_string())
        }
    })?;
    term.seed_private_modes(crate::term::parse_modes(
        o.get(OPTIONS_FIELDS..).unwrap_or_default(),
        recipe.paste_and_sync_flags,
        recipe.private_modes,
    ));
    Ok(Built {
        term,
        dead: on(5, false),
        exit_status: num(6).and_then(|v| i32::try_from(v).ok()),
    })
}

/// [`SeedFailure::Gone`] when a [`line`]'s answer says the pane no longer
/// exists; another failure of its first record (or of the resume before
/// it) as [`SeedFailure::Unusable`]; `None` when the record is there.
///
/// The pane goes between two requests, never within the line (tmux runs
/// a line's commands with no event in between), and tmux skips the rest
/// of a line after a command fails (cmd-queue.c `cmdq_remove_group()`),
/// so the answer of a pane that is gone is the one `%error` block of
/// `list-panes` (`can't find pane: %N`, or `can't find window` on some
/// versions): it must read as gone, not as an answer cut short. A record
/// that matched nothing says the same. A caller with a line whose history
/// buffer was never made (the line stopped before `set-buffer`) asks this
/// before it treats an unreadable buffer as a fault.
pub fn gone(reply: &Reply, continue_first: bool) -> Option<SeedFailure> {
    let mut blocks = reply.blocks.iter();
    if continue_first {
        // `refresh-client -A` ignores a pane that does not exist
        // (cmd-refresh-client.c), so it fails only for another reason.
        match blocks.next() {
            Some(b) if !b.ok => return Some(not_found_or_unusable(b)),
            _ => {}
        }
    }
    let Some(formats) = blocks.next() else {
        return Some(SeedFailure::Unusable("tmux gave a short answer".into()));
    };
    if !formats.ok {
        return Some(not_found_or_unusable(formats));
    }
    // The filter matched nothing: the pane is gone.
    formats.body.is_empty().then_some(SeedFailure::Gone)
}

/// A failed block: [`SeedFailure::Gone`] for tmux's "can't find" (the
/// pane, its window or its session: cmd-find.c; [`Said::NotFound`]), else
/// its text.
fn not_found_or_unusable(b: &Block) -> SeedFailure {
    let text = b.text();
    if matches!(said(&text), Said::NotFound(_)) {
        SeedFailure::Gone
    } else {
        SeedFailure::Unusable(text)
    }
}

fn unusable(b: Option<&Block>) -> SeedFailure {
    SeedFailure::Unusable(
        b.map(Block::text)
            .unwrap_or_else(|| "tmux gave a short answer".into()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(ok: bool, body: &str) -> Block {
        Block {
            time: 0,
            number: 0,
            flags: 1,
            ok,
            body: body.as_bytes().to_vec(),
        }
    }

    fn reply(blocks: Vec<Block>) -> Reply {
        Reply {
            blocks,
            stray: Vec::new(),
        }
    }

    #[test]
    fn a_pane_gone_before_the_line_reads_as_gone() {
        // tmux stops the line at the failed list-panes: one block.
        let vanished = reply(vec![block(false, "can't find pane: %9\n")]);
        assert_eq!(gone(&vanished, false), Some(SeedFailure::Gone));
        let window = reply(vec![block(false, "can't find window: %9\n")]);
        assert_eq!(gone(&window, false), Some(SeedFailure::Gone));
        // After the resume, which ignores a pane that does not exist.
        let resumed = reply(vec![block(true, ""), block(false, "can't find pane: %9\n")]);
        assert_eq!(gone(&resumed, true), Some(SeedFailure::Gone));
        // A record that matched nothing.
        let none = reply(vec![block(true, ""), block(true, "")]);
        assert_eq!(gone(&none, false), Some(SeedFailure::Gone));
        // Another failure is said as it is; an empty answer is short.
        let other = reply(vec![block(false, "server exited\n")]);
        assert_eq!(
            gone(&other, false),
            Some(SeedFailure::Unusable("server exited".into()))
        );
        assert_eq!(
            gone(&reply(Vec::new()), false),
            Some(SeedFailure::Unusable("tmux gave a short answer".into()))
        );
        // The record is there: not gone.
        let there = reply(vec![block(true, "80 24\n"), block(true, "on,on\n")]);
        assert_eq!(gone(&there, false), None);
        // build says the same as gone.
        let opts = SeedOptions {
            rules: Rules::for_version(&TmuxVersion::parse("3.3a")),
            first: LineIndex(0),
        };
        let recipe = Recipe::for_version(&TmuxVersion::parse("3.3a"), Encoding::Vis);
        let built = build(vanished, &recipe, false, Depth::Full, &opts, None);
        assert_eq!(built.err(), Some(SeedFailure::Gone));
    }
}
