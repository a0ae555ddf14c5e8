//! `tmuxwire panes` and `tmuxwire capture`.
//!
//! # How `capture` reads a pane
//!
//! One one-shot client (fd-less, output as `MSG_WRITE` frames, status as
//! `MSG_EXIT`: [`crate::wire::stream_command_list`]) runs, as one command
//! list (so all of it describes one moment):
//!
//! ```text
//! display-message -p -t T '#{history_size} #{pane_height}'
//! capture-pane -p -e [-N] [-T] -t T -S 0 -E -         the screen, with codes
//! capture-pane -p [-J] [-N] [-T] -t T -S START -E END  what was asked for
//! ```
//!
//! and the answer is written to stdout as its frames arrive: no cap,
//! nothing dropped, constant memory (one frame, plus one row where a row
//! is rewritten). tmux renders `-e` at about a quarter of its plain speed,
//! so only the screen (a few dozen rows) is rendered with codes: when it
//! holds no DEC line-drawing cell (no SO byte), the asked-for capture
//! passes through untouched; when it does, each screen row of the capture
//! is replaced by the screen row with its codes removed and its
//! line-drawing letters read as box characters (`lqqk` becomes `┌──┐`,
//! public case C21). `-J` with line drawing on the screen, and
//! `--line-drawing` (the scrollback too), capture the range with `-e`
//! instead and remove the codes row by row. `-e` and `-C` print tmux's
//! bytes as they come.
//!
//! Trailing empty rows are left out (runs of empty rows are held back as a
//! count until a row with text follows).

use std::collections::VecDeque;
use std::io::{self, BufWriter, IsTerminal as _, Write};
use std::process::ExitCode;
use std::time::Duration;

use super::errors::CliError;
use super::output::{Out, escape_field};
use super::target::{self, Level};
use super::{CaptureArgs, LineArg};
use crate::control::PaneId;
use crate::term::strip_row;
use crate::tmux::Servers;
use crate::tmux::op::info::PaneInfoRequest;
use crate::tmux::op::{self, Limit};

/// One `panes` line: `%N\tsession:window.pane\tWxH\tcommand\tpath\twindow`,
/// every field escaped ([`escape_field`]) so that it is one line.
pub fn pane_line(p: &crate::tmux::PaneInfo) -> String {
    let s = |v: &str| escape_field(v).into_owned();
    format!(
        "{}\t{}:{}.{}\t{}x{}\t{}\t{}\t{}",
        s(&p.pane_id),
        s(&p.session_name),
        s(&p.window_index),
        s(&p.pane_index),
        s(&p.pane_width),
        s(&p.pane_height),
        s(&p.pane_current_command),
        s(&p.pane_current_path),
        s(&p.window_name),
    )
}

/// The header `panes` prints on a terminal, naming [`pane_line`]'s fields.
pub const PANES_HEADER: &str = "PANE\tPLACE\tSIZE\tCOMMAND\tPATH\tWINDOW";

/// Runs `panes`.
///
/// # Errors
///
/// A missing target, the tools' errors.
pub async fn panes(servers: &Servers, target: Option<&str>) -> Result<ExitCode, CliError> {
    let (world, rows) = target::panes_in(servers, target).await?;
    let mut out = Out::new();
    // A header helps a person; a script reading a pipe gets records only.
    if io::stdout().is_terminal() {
        out.line(PANES_HEADER);
    }
    for i in rows {
        out.line(&pane_line(&world.rows[i]));
    }
    Ok(ExitCode::SUCCESS)
}

/// Longest wait for the next frame of a capture: tmux renders the whole
/// range before it sends the first byte (0.15 s for 200,000 rows).
const IDLE: Duration = Duration::from_secs(120);

/// A line number as tmux's `-S`/`-E` parse it (`strtonum` within
/// `INT_MIN..=SHRT_MAX`; a value outside is silently taken as 0): clamped
/// into that range, which changes nothing tmux does with it.
fn line_value(v: LineArg) -> String {
    match v {
        LineArg::Edge => "-".to_string(),
        LineArg::At(n) => n
            .clamp(-i64::from(i32::MAX), i64::from(i16::MAX))
            .to_string(),
    }
}

/// The first row (0-based tmux line number) of a capture of `start..=end`
/// of a pane with `hsize` history rows and `height` screen rows, as
/// cmd-capture-pane.c works it out (no `-S`: the top of the screen).
pub fn first_row(start: Option<LineArg>, end: Option<LineArg>, hsize: i64, height: i64) -> i64 {
    let last = height.max(1) - 1;
    let clamp = |n: i64| n.max(-hsize).min(last);
    let top = match start {
        None => 0,
        Some(LineArg::Edge) => -hsize,
        Some(LineArg::At(n)) => clamp(n),
    };
    let bottom = match end {
        None | Some(LineArg::Edge) => last,
        Some(LineArg::At(n)) => clamp(n),
    };
    top.min(bottom)
}

/// How the asked-for capture's rows are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// tmux's bytes (`-e`, `-C`).
    Raw,
    /// A plain capture of scrollback only: nothing to rewrite.
    Plain,
    /// A plain capture, with the screen probed for line drawing first.
    Probed,
    /// A capture with `-e`, codes removed from every row.
    Strip,
}

/// What `capture` runs, from its flags (see the module docs).
#[derive(Clone, Debug)]
struct Plan {
    target: String,
    start: Option<LineArg>,
    end: Option<LineArg>,
    join: bool,
    /// `-N`/`-T` as given.
    keep_flags: Vec<&'static str>,
    mode: Mode,
    /// tmux trims each row's trailing spaces (neither `-J` nor `-N`).
    trims: bool,
}

impl Plan {
    fn new(a: &CaptureArgs, target: String) -> Plan {
        let mut keep_flags = Vec::new();
        if a.trailing_spaces {
            keep_flags.push("-N");
        }
        if a.no_trailing_positions {
            keep_flags.push("-T");
        }
        let screen_in_range = !matches!(a.end, Some(LineArg::At(n)) if n < 0);
        let mode = if a.escapes || a.octal {
            Mode::Raw
        } else if a.line_drawing {
            Mode::Strip
        } else if screen_in_range {
            Mode::Probed
        } else {
            // Only scrollback: nothing to probe.
            Mode::Plain
        };
        Plan {
            target,
            start: a.start,
            end: a.end,
            join: a.join,
            keep_flags,
            mode,
            trims: !a.join && !a.trailing_spaces,
        }
    }

    /// `capture-pane -p ...` of the asked-for range, `-e` when `codes`.
    fn capture(&self, a: &CaptureArgs, codes: bool) -> Vec<String> {
        let mut v: Vec<String> = vec!["capture-pane".into(), "-p".into()];
        if codes || a.escapes {
            v.push("-e".into());
        }
        if a.octal {
            v.push("-C".into());
        }
        if self.join {
            v.push("-J".into());
        }
        v.extend(self.keep_flags.iter().map(|f| f.to_string()));
        v.extend(["-t".into(), self.target.clone()]);
        if let Some(s) = self.start {
            v.extend(["-S".into(), line_value(s)]);
        }
        if let Some(e) = self.end {
            v.extend(["-E".into(), line_value(e)]);
        }
        v
    }

    /// The commands of the first (and usually only) one-shot client.
    fn commands(&self, a: &CaptureArgs) -> Vec<Vec<String>> {
        match self.mode {
            Mode::Raw | Mode::Plain => vec![self.capture(a, false)],
            Mode::Strip => vec![self.capture(a, true)],
            Mode::Probed => {
                let state = vec![
                    "display-message".into(),
                    "-p".into(),
                    "-t".into(),
                    self.target.clone(),
                    "#{history_size} #{pane_height}".into(),
                ];
                let mut probe: Vec<String> = vec!["capture-pane".into(), "-p".into(), "-e".into()];
                probe.extend(self.keep_flags.iter().map(|f| f.to_string()));
                probe.extend(["-t".into(), self.target.clone()]);
                probe.extend(["-S".into(), "0".into(), "-E".into(), "-".into()]);
                vec![state, probe, self.capture(a, false)]
            }
        }
    }
}

/// Where printed rows go: holds back empty rows until a row with text
/// follows (trailing empty rows are left out) and, with `--max-lines`,
/// keeps only the last rows. A failed write (a closed pipe) stops it.
pub struct RowSink<W: Write> {
    w: W,
    /// Empty rows held back.
    pending: u64,
    /// Text was written (a final line break is due).
    any: bool,
    /// `--max-lines`: the newest rows, held until the end.
    tail: Option<(usize, VecDeque<Vec<u8>>)>,
    broken: bool,
}

impl<W: Write> RowSink<W> {
    /// A sink writing to `w`, keeping the last `max_lines` rows when set.
    pub fn new(w: W, max_lines: Option<usize>) -> RowSink<W> {
        RowSink {
            w,
            pending: 0,
            any: false,
            tail: max_lines.map(|m| (m, VecDeque::new())),
            broken: false,
        }
    }

    /// True once a write failed.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    fn write(&mut self, b: &[u8]) {
        if !self.broken && self.w.write_all(b).is_err() {
            self.broken = true;
        }
    }

    fn newlines(&mut self, mut n: u64) {
        const NL: [u8; 256] = [b'\n'; 256];
        while n > 0 {
            let k = n.min(NL.len() as u64);
            self.write(&NL[..k as usize]);
            n -= k;
        }
    }

    /// One row, without its line break.
    pub fn row(&mut self, row: &[u8]) {
        if row.is_empty() {
            self.pending += 1;
            return;
        }
        if let Some((max, rows)) = &mut self.tail {
            let held = self.pending;
            self.pending = 0;
            for _ in 0..held.min(*max as u64) {
                rows.push_back(Vec::new());
            }
            rows.push_back(row.to_vec());
            while rows.len() > *max {
                rows.pop_front();
            }
            return;
        }
        if self.any {
            self.newlines(self.pending + 1);
        } else {
            self.newlines(self.pending);
        }
        self.pending = 0;
        self.write(row);
        self.any = true;
    }

    /// Rows as bytes, each ended by `\n` except perhaps the last, which
    /// the next call continues (`chunk` is passed through, only its
    /// trailing line breaks held back). Not with `--max-lines`.
    pub fn bytes(&mut self, chunk: &[u8]) {
        debug_assert!(self.tail.is_none());
        let Some(last) = chunk.iter().rposition(|&b| b != b'\n') else {
            self.pending += chunk.len() as u64;
            return;
        };
        // The held line breaks end the row before this text, or are empty rows.
        self.newlines(self.pending);
        self.write(&chunk[..=last]);
        self.any = true;
        // The row written last is open: the first held break ends it,
        // every further one is an empty row ([`RowSink::finish`] writes
        // only the first). Rows and bytes are not mixed.
        self.pending = (chunk.len() - last - 1) as u64;
    }

    /// Bytes written as they are: nothing held, nothing added.
    pub fn raw(&mut self, chunk: &[u8]) {
        self.write(chunk);
    }

    /// Writes what is held (the newest rows with `--max-lines`; the final
    /// line break) and flushes. Returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some((_, rows)) = self.tail.take() {
            for r in rows {
                self.write(&r);
                self.write(b"\n");
            }
        } else if self.any {
            self.write(b"\n");
        }
        if !self.broken && self.w.flush().is_err() {
            self.broken = true;
        }
        if self.broken {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        }
        Ok(self.w)
    }
}

/// Splits a stream into rows: complete rows go to `each`, a partial row
/// is kept until its line break arrives.
#[derive(Default)]
struct RowSplitter {
    carry: Vec<u8>,
}

impl RowSplitter {
    fn feed(&mut self, mut data: &[u8], each: &mut impl FnMut(&[u8])) {
        if !self.carry.is_empty() {
            match memchr::memchr(b'\n', data) {
                Some(i) => {
                    self.carry.extend_from_slice(&data[..i]);
                    let row = std::mem::take(&mut self.carry);
                    each(&row);
                    data = &data[i + 1..];
                }
                None => {
                    self.carry.extend_from_slice(data);
                    return;
                }
            }
        }
        let mut at = 0;
        for i in memchr::memchr_iter(b'\n', data) {
            each(&data[at..i]);
            at = i + 1;
        }
        self.carry.extend_from_slice(&data[at..]);
    }

    /// The last row, when the stream did not end with a line break.
    fn finish(&mut self, each: &mut impl FnMut(&[u8])) {
        if !self.carry.is_empty() {
            let row = std::mem::take(&mut self.carry);
            each(&row);
        }
    }
}

/// Where a probed capture's stream is.
enum Stage {
    /// Reading `#{history_size} #{pane_height}`.
    State,
    /// Reading the screen rows (`left` to go).
    Probe { left: usize },
    /// The asked-for capture.
    Main,
}

/// Reads a [`Mode::Probed`] stream: the state line, the screen with codes,
/// then the capture, printed as the module docs say.
struct Probed {
    stage: Stage,
    head: Vec<u8>,
    hsize: i64,
    /// The screen rows, codes removed and line drawing read; `Some` only
    /// when one holds a line-drawing cell.
    screen: Option<Vec<Vec<u8>>>,
    /// The tmux line number of the next main row.
    next_line: i64,
    /// `-J` with line drawing on the screen: the capture is taken again.
    again: bool,
    plan: Plan,
    rows: RowSplitter,
}

impl Probed {
    fn new(plan: Plan) -> Probed {
        Probed {
            stage: Stage::State,
            head: Vec::new(),
            hsize: 0,
            screen: None,
            next_line: 0,
            again: false,
            plan,
            rows: RowSplitter::default(),
        }
    }

    fn feed<W: Write>(&mut self, mut data: &[u8], sink: &mut RowSink<W>) {
        while !data.is_empty() {
            match self.stage {
                Stage::State => {
                    let Some(i) = memchr::memchr(b'\n', data) else {
                        self.head.extend_from_slice(data);
                        return;
                    };
                    self.head.extend_from_slice(&data[..i]);
                    data = &data[i + 1..];
                    let line = String::from_utf8_lossy(&self.head).into_owned();
                    self.head.clear();
                    let mut f = line
                        .split(' ')
                        .map(|x| x.trim().parse::<i64>().unwrap_or(0));
                    let (hsize, height) = (f.next().unwrap_or(0).max(0), f.next().unwrap_or(1));
                    self.hsize = hsize;
                    self.next_line =
                        first_row(self.plan.start, self.plan.end, hsize, height.max(1));
                    self.stage = Stage::Probe {
                        left: usize::try_from(height.max(1)).unwrap_or(1),
                    };
                }
                Stage::Probe { left } => {
                    let mut left = left;
                    let mut used = 0;
                    for i in memchr::memchr_iter(b'\n', data) {
                        used = i + 1;
                        left -= 1;
                        if left == 0 {
                            break;
                        }
                    }
                    self.head.extend_from_slice(&data[..used]);
                    if left > 0 && used < data.len() {
                        self.head.extend_from_slice(&data[used..]);
                        used = data.len();
                    }
                    data = &data[used..];
                    if left > 0 {
                        self.stage = Stage::Probe { left };
                        continue;
                    }
                    self.end_probe();
                    self.stage = Stage::Main;
                }
                Stage::Main => {
                    self.main(data, sink);
                    return;
                }
            }
        }
    }

    /// The screen rows are in `head`: keep them only when one holds line
    /// drawing.
    fn end_probe(&mut self) {
        let head = std::mem::take(&mut self.head);
        if memchr::memchr(0x0e, &head).is_none() {
            return;
        }
        if self.plan.join {
            self.again = true;
            return;
        }
        let mut shifted = false;
        let body = head.strip_suffix(b"\n").unwrap_or(&head);
        self.screen = Some(
            body.split(|&b| b == b'\n')
                .map(|r| {
                    let mut out = Vec::with_capacity(r.len());
                    strip_row(r, true, self.plan.trims, &mut shifted, &mut out);
                    out
                })
                .collect(),
        );
    }

    fn main<W: Write>(&mut self, data: &[u8], sink: &mut RowSink<W>) {
        if self.again {
            // Taken again with -e: this one is read and dropped.
            return;
        }
        match &self.screen {
            None if sink.tail.is_none() => sink.bytes(data),
            None => self.rows.feed(data, &mut |r| sink.row(r)),
            Some(screen) => {
                let next = &mut self.next_line;
                self.rows.feed(data, &mut |r| {
                    let row = usize::try_from(*next)
                        .ok()
                        .and_then(|k| screen.get(k))
                        .map_or(r, Vec::as_slice);
                    sink.row(row);
                    *next += 1;
                });
            }
        }
    }

    fn finish<W: Write>(&mut self, sink: &mut RowSink<W>) {
        if self.again {
            return;
        }
        if let Some(screen) = &self.screen {
            let next = &mut self.next_line;
            self.rows.finish(&mut |r| {
                let row = usize::try_from(*next)
                    .ok()
                    .and_then(|k| screen.get(k))
                    .map_or(r, Vec::as_slice);
                sink.row(row);
                *next += 1;
            });
        } else {
            self.rows.finish(&mut |r| sink.row(r));
        }
    }
}

/// Reads a [`Mode::Strip`] stream: every row's codes removed.
struct Stripped {
    rows: RowSplitter,
    shifted: bool,
    trim: bool,
    buf: Vec<u8>,
}

impl Stripped {
    fn new(trim: bool) -> Stripped {
        Stripped {
            rows: RowSplitter::default(),
            shifted: false,
            trim,
            buf: Vec::new(),
        }
    }

    fn feed<W: Write>(&mut self, data: &[u8], sink: &mut RowSink<W>) {
        let (shifted, trim, buf) = (&mut self.shifted, self.trim, &mut self.buf);
        let mut each = |r: &[u8]| {
            // Most rows hold no code: passed as they are.
            if !*shifted && memchr::memchr3(0x1b, 0x0e, 0x0f, r).is_none() {
                sink.row(r);
                return;
            }
            buf.clear();
            strip_row(r, true, trim, shifted, buf);
            sink.row(buf);
        };
        self.rows.feed(data, &mut each);
    }

    fn finish<W: Write>(&mut self, sink: &mut RowSink<W>) {
        let (shifted, trim, buf) = (&mut self.shifted, self.trim, &mut self.buf);
        self.rows.finish(&mut |r| {
            buf.clear();
            strip_row(r, true, trim, shifted, buf);
            sink.row(buf);
        });
    }
}

/// The pane `capture` reads: `-t %N` as it is (no round trip), another
/// target resolved as tmux does, none the active pane of the current
/// session (as every tool without a target).
async fn capture_target(servers: &Servers, target: Option<&str>) -> Result<String, CliError> {
    match target {
        Some(t) if t.parse::<PaneId>().is_ok() => Ok(t.to_string()),
        Some(t) => {
            let (_, scope) = target::resolve_arg(servers, t).await?;
            Ok(match scope.level {
                Level::Pane => scope.pane_id.unwrap_or_default(),
                Level::Window => scope.window_id.unwrap_or_default(),
                Level::Session => scope.session_id,
            })
        }
        None => {
            let server = servers.default_server();
            let pane = op::run(server, PaneInfoRequest::default(), Limit::NONE).await?;
            Ok(pane.pane_id)
        }
    }
}

/// The width in cells of the pane `target` (`%N`, or a window's or
/// session's active pane) names.
///
/// # Errors
///
/// A pane that cannot be read.
async fn pane_width(servers: &Servers, target: &str) -> Result<usize, CliError> {
    let mut pane = crate::tmux::Selector::default();
    if let Ok(p) = target.parse() {
        pane.pane_id = Some(p);
    } else if let Ok(w) = target.parse() {
        pane.window_id = Some(w);
    } else if let Ok(s) = target.parse() {
        pane.session_id = Some(s);
    }
    let info = op::run(
        servers.default_server(),
        PaneInfoRequest { pane },
        Limit::NONE,
    )
    .await?;
    info.pane_width
        .parse()
        .map_err(|_| CliError::new(format!("capture: pane width {:?}", info.pane_width)))
}

/// A failed capture in CLI words: `-t TARGET: no such pane` for a pane
/// that does not exist (as `-t` says it for every form), else tmux's
/// message.
fn tmux_error(out: &crate::wire::CommandOutput, target: Option<&str>) -> CliError {
    let msg = out.error_text();
    let first = msg.lines().next().unwrap_or("").to_string();
    if matches!(
        crate::control::said::said(&first),
        crate::control::said::Said::NotFound(_)
    ) {
        return target::target_error(target.unwrap_or(""), "no such pane");
    }
    CliError::new(format!("capture: {first}"))
}

/// Runs `cmds` as one one-shot client of the server, handing what it
/// prints to `feed` (false: stop reading): streamed as tmux sends it
/// locally; on a remote host the answer comes whole (one one-shot over
/// ssh), then goes to `feed`.
async fn stream(
    endpoint: &crate::wire::Endpoint,
    cmds: &[&[String]],
    mut feed: impl FnMut(&[u8]) -> bool,
) -> Result<crate::wire::CommandOutput, crate::wire::Error> {
    match endpoint {
        crate::wire::Endpoint::Local(path) => {
            crate::wire::stream_command_list(path, cmds, IDLE, feed).await
        }
        crate::wire::Endpoint::Remote(r) => {
            let wait = IDLE.max(std::time::Duration::from_secs(60));
            let mut out = r.run_command_list(cmds, wait, false).await?;
            let data = std::mem::take(&mut out.stdout);
            if !feed(&data) {
                out.stopped = true;
            }
            Ok(out)
        }
    }
}

/// Runs `capture` (see the module docs).
///
/// # Errors
///
/// A missing target, tmux's error, a server that cannot be reached.
pub async fn capture(servers: &Servers, a: CaptureArgs) -> Result<ExitCode, CliError> {
    let target = capture_target(servers, a.target.as_deref()).await?;
    let endpoint = servers.default_server().endpoint().clone();
    let plan = Plan::new(&a, target);
    let max_lines = a
        .max_lines
        .map(|m| usize::try_from(m).unwrap_or(usize::MAX));
    let stdout = BufWriter::with_capacity(64 << 10, io::stdout().lock());
    // With --redact, secrets are masked in what is printed (a key's body
    // over lines too); every row is still printed. Joined lines are
    // masked as they arrive; rows are held to the end and read with the
    // pane's width, so a secret a soft wrap splits is read whole.
    let rows = if a.redact.redact && !a.join {
        Some(pane_width(servers, &plan.target).await?)
    } else {
        None
    };
    let out = super::output::Redacting::new(stdout, a.redact.redact, rows);
    let mut sink = RowSink::new(out, max_lines);
    let commands = plan.commands(&a);
    let refs: Vec<&[String]> = commands.iter().map(Vec::as_slice).collect();
    let cli_err = |e: crate::wire::Error| CliError::new(e.to_string());
    let mut probed = Probed::new(plan.clone());
    let mut stripped = Stripped::new(plan.trims);
    let mut split = RowSplitter::default();
    let mode = plan.mode;
    let feed = |data: &[u8]| {
        match mode {
            // tmux's bytes, unchanged (trailing empty rows too).
            Mode::Raw if max_lines.is_none() => sink.raw(data),
            Mode::Plain if max_lines.is_none() => sink.bytes(data),
            Mode::Raw | Mode::Plain => split.feed(data, &mut |r| sink.row(r)),
            Mode::Probed => probed.feed(data, &mut sink),
            Mode::Strip => stripped.feed(data, &mut sink),
        }
        !sink.is_broken()
    };
    let out = stream(&endpoint, &refs, feed).await.map_err(cli_err)?;
    if out.stopped {
        // Whoever read stdout went away (`capture | head`): that is all.
        return Ok(ExitCode::SUCCESS);
    }
    if !out.success() {
        return Err(tmux_error(&out, a.target.as_deref()));
    }
    match mode {
        Mode::Probed if probed.again => {
            let again = plan.capture(&a, true);
            let mut stripped = Stripped::new(plan.trims);
            let feed = |data: &[u8]| {
                stripped.feed(data, &mut sink);
                !sink.is_broken()
            };
            let out = stream(&endpoint, &[again.as_slice()], feed)
                .await
                .map_err(cli_err)?;
            if out.stopped {
                return Ok(ExitCode::SUCCESS);
            }
            if !out.success() {
                return Err(tmux_error(&out, a.target.as_deref()));
            }
            stripped.finish(&mut sink);
        }
        Mode::Probed => probed.finish(&mut sink),
        Mode::Strip => stripped.finish(&mut sink),
        Mode::Raw | Mode::Plain => split.finish(&mut |r| sink.row(r)),
    }
    // A closed pipe at the end is not an error either.
    let _ = sink.finish().and_then(super::output::Redacting::finish);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_a_capture() {
        // 3 history rows, 4 screen rows.
        assert_eq!(first_row(None, None, 3, 4), 0);
        assert_eq!(first_row(Some(LineArg::Edge), None, 3, 4), -3);
        assert_eq!(first_row(Some(LineArg::At(-100)), None, 3, 4), -3);
        assert_eq!(
            first_row(Some(LineArg::At(-2)), Some(LineArg::At(1)), 3, 4),
            -2
        );
        // Swapped as tmux swaps them.
        assert_eq!(
            first_row(Some(LineArg::At(2)), Some(LineArg::At(-1)), 3, 4),
            -1
        );
        assert_eq!(first_row(Some(LineArg::At(99)), None, 3, 4), 3);
        assert_eq!(line_value(LineArg::At(-5_000_000_000)), "-2147483647");
        assert_eq!(line_value(LineArg::At(40_000)), "32767");
        assert_eq!(line_value(LineArg::Edge), "-");
    }

    fn sink_out(f: impl FnOnce(&mut RowSink<Vec<u8>>), max: Option<usize>) -> String {
        let mut s = RowSink::new(Vec::new(), max);
        f(&mut s);
        String::from_utf8(s.finish().unwrap()).unwrap()
    }

    #[test]
    fn trailing_empty_rows_are_left_out() {
        let rows = |rs: &[&str], max| {
            sink_out(
                |s| {
                    for r in rs {
                        s.row(r.as_bytes());
                    }
                },
                max,
            )
        };
        assert_eq!(rows(&["a", "", "b", "", ""], None), "a\n\nb\n");
        assert_eq!(rows(&["", "", "a"], None), "\n\na\n");
        assert_eq!(rows(&["", ""], None), "");
        assert_eq!(rows(&["a", "", "b", "", "c", ""], Some(3)), "b\n\nc\n");
        assert_eq!(rows(&["a", "", "", "", "b"], Some(2)), "\nb\n");
        // The same through bytes, split anywhere.
        let text = "one\n\ntwo\nthree\n\n\n\n";
        for cut in 0..text.len() {
            let (x, y) = text.split_at(cut);
            let got = sink_out(
                |s| {
                    s.bytes(x.as_bytes());
                    s.bytes(y.as_bytes());
                },
                None,
            );
            assert_eq!(got, "one\n\ntwo\nthree\n", "cut at {cut}");
        }
        assert_eq!(sink_out(|s| s.bytes(b"\n\n\n"), None), "");
    }

    #[test]
    fn rows_split_anywhere() {
        let text = b"ab\ncd\n\nef";
        for cut in 0..text.len() {
            let mut split = RowSplitter::default();
            let mut got: Vec<String> = Vec::new();
            let mut each = |r: &[u8]| got.push(String::from_utf8_lossy(r).into_owned());
            split.feed(&text[..cut], &mut each);
            split.feed(&text[cut..], &mut each);
            split.finish(&mut each);
            assert_eq!(got, ["ab", "cd", "", "ef"], "cut at {cut}");
        }
    }

    #[test]
    fn one_line_per_pane() {
        // C25: a directory name with a line break.
        let p = crate::tmux::PaneInfo {
            pane_id: "%1".into(),
            session_name: "base".into(),
            window_index: "1".into(),
            pane_index: "0".into(),
            pane_width: "80".into(),
            pane_height: "24".into(),
            pane_current_command: "bash".into(),
            pane_current_path: "/tmp/evil\ndir\\x".into(),
            window_name: "w\tx".into(),
            ..Default::default()
        };
        assert_eq!(
            pane_line(&p),
            "%1\tbase:1.0\t80x24\tbash\t/tmp/evil\\ndir\\\\x\tw\\tx"
        );
        assert_eq!(
            PANES_HEADER.split('\t').count(),
            pane_line(&p).split('\t').count()
        );
    }
}
