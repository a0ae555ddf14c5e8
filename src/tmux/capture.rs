//! The capture engine: which `capture-pane` commands a capture tmux
//! renders runs, and how their answers become rows. One engine for the
//! `capture_pane` tool when tmux answers it ([`crate::tmux::op::capture`]:
//! the rows collected, then cut to the caller's budget) and for
//! `tmuxwire capture` ([`crate::cli::capture`]: the rows streamed as they
//! arrive, no cap, constant memory). Pure: the callers send the commands
//! and feed what tmux prints to a [`Reader`].
//!
//! A [`Plan`] is made from capture-pane's flags ([`Flags`]) and picks a
//! [`Mode`]:
//!
//! * [`Mode::Raw`] (`-e`, `-C`): tmux's bytes as they come.
//! * [`Mode::Plain`]: a range of scrollback only, nothing to rewrite.
//! * [`Mode::Probed`]: tmux renders `-e` at about a quarter of its plain
//!   speed, so only the screen (a few dozen rows) is rendered with codes,
//!   before the plain capture and in the same command list:
//!
//!   ```text
//!   display-message -p -t T '#{history_size} #{pane_height}'
//!   capture-pane -p -e [-N] [-T] -t T -S 0 -E -         the screen, with codes
//!   capture-pane -p [-J] [-N] [-T] -t T -S START -E END  what was asked for
//!   ```
//!
//!   When the screen holds no DEC line-drawing cell (no SO byte), the
//!   capture passes through untouched; when it does, each screen row of
//!   the capture is replaced by the screen row with its codes removed and
//!   its line-drawing letters read as box characters (`lqqk` becomes
//!   `┌──┐`, public case C21). `-J` with line drawing on the screen is
//!   captured again as [`Mode::Strip`] ([`Reader::again`]).
//! * [`Mode::Strip`] (`--line-drawing`, and the tool always): the range
//!   captured with `-e` and the codes removed row by row
//!   ([`crate::term::strip_row`]), so line drawing in the scrollback reads
//!   as box characters too.
//!
//! Rows go to a [`Rows`] (the CLI's writer, the tool's collector), which
//! may take runs of whole rows as bytes where nothing is rewritten.

use std::str::FromStr;

use crate::term::strip_row;

/// A `-S`/`-E` value: a tmux line number, or `-` for as far as it goes
/// (the top of the history, the bottom of the screen), as tmux's
/// `capture-pane -S -`/`-E -`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineArg {
    /// `-`.
    Edge,
    /// A line number: 0 is the top of the screen, negative numbers are
    /// scrollback.
    At(i64),
}

impl FromStr for LineArg {
    type Err = String;

    fn from_str(s: &str) -> Result<LineArg, String> {
        if s == "-" {
            return Ok(LineArg::Edge);
        }
        s.parse().map(LineArg::At).map_err(|_| {
            "expected a line number (0 = top of the screen, negative = scrollback) or '-'".into()
        })
    }
}

/// A line number as tmux's `-S`/`-E` parse it (`strtonum` within
/// `INT_MIN..=SHRT_MAX`; a value outside is silently taken as 0): clamped
/// into that range, which changes nothing tmux does with it.
pub fn line_value(v: LineArg) -> String {
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

/// capture-pane's flags, as a capture asks for them (and as
/// `tmuxwire capture` takes them: the field docs are its help).
#[derive(Clone, Debug, Default, PartialEq, Eq, clap::Args)]
pub struct Flags {
    /// First line, as capture-pane -S: 0 is the top of the screen, negative numbers are
    /// scrollback, '-' the oldest line (default: 0).
    #[arg(short = 'S', long, allow_hyphen_values = true, value_name = "LINE")]
    pub start: Option<LineArg>,
    /// Last line, as capture-pane -E, same numbering; '-' (the default) is the bottom of the
    /// screen.
    #[arg(short = 'E', long, allow_hyphen_values = true, value_name = "LINE")]
    pub end: Option<LineArg>,
    /// Join soft-wrapped rows into logical lines, keeping trailing spaces (capture-pane -J).
    #[arg(short = 'J', long)]
    pub join: bool,
    /// Keep trailing spaces at the end of each row (capture-pane -N).
    #[arg(short = 'N', long = "trailing-spaces")]
    pub trailing_spaces: bool,
    /// Leave out trailing positions that hold no character (capture-pane -T; tmux 3.4+).
    #[arg(short = 'T', long = "no-trailing-positions")]
    pub no_trailing_positions: bool,
    /// Include escape sequences for text and background attributes (capture-pane -e): tmux's
    /// bytes, unchanged.
    #[arg(short = 'e', long = "escape-sequences")]
    pub escapes: bool,
    /// Escape non-printable characters as octal \xxx (capture-pane -C): tmux's bytes,
    /// unchanged.
    #[arg(short = 'C', long = "escape-octal")]
    pub octal: bool,
    /// Read DEC line-drawing cells in the scrollback as box characters too (tmux renders such a
    /// capture about 4× slower).
    #[arg(long = "line-drawing")]
    pub line_drawing: bool,
}

/// How a capture's answer is read (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// tmux's bytes (`-e`, `-C`).
    Raw,
    /// A plain capture of scrollback only: nothing to rewrite.
    Plain,
    /// A plain capture, with the screen probed for line drawing first.
    Probed,
    /// A capture with `-e`, codes removed from every row.
    Strip,
}

/// What a capture runs and how its answer is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    flags: Flags,
    mode: Mode,
    /// tmux trims each row's trailing spaces (neither `-J` nor `-N`).
    trims: bool,
}

impl Plan {
    /// The plan for `flags`.
    pub fn new(flags: Flags) -> Plan {
        let screen_in_range = !matches!(flags.end, Some(LineArg::At(n)) if n < 0);
        let mode = if flags.escapes || flags.octal {
            Mode::Raw
        } else if flags.line_drawing {
            Mode::Strip
        } else if screen_in_range {
            Mode::Probed
        } else {
            // Only scrollback: nothing to probe.
            Mode::Plain
        };
        Plan {
            trims: !flags.join && !flags.trailing_spaces,
            flags,
            mode,
        }
    }

    /// How the answer is read.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `-N`/`-T` as given.
    fn keep_flags(&self) -> impl Iterator<Item = String> {
        let f = &self.flags;
        [(f.trailing_spaces, "-N"), (f.no_trailing_positions, "-T")]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, flag)| flag.to_string())
    }

    /// The arguments after `capture-pane` (no target) of the asked-for
    /// range, `-e` when `codes` or asked for: `-p`, then the flags, then
    /// `-S`/`-E`.
    pub fn capture_args(&self, codes: bool) -> Vec<String> {
        let f = &self.flags;
        let mut v = vec!["-p".to_string()];
        let on = [(codes || f.escapes, "-e"), (f.octal, "-C"), (f.join, "-J")];
        v.extend(on.iter().filter(|(on, _)| *on).map(|(_, x)| x.to_string()));
        v.extend(self.keep_flags());
        for (flag, value) in [("-S", f.start), ("-E", f.end)] {
            if let Some(value) = value {
                v.extend([flag.to_string(), line_value(value)]);
            }
        }
        v
    }

    /// A whole `capture-pane` command of the asked-for range, targeted at
    /// `target` (see [`Plan::capture_args`]).
    fn capture(&self, target: &str, codes: bool) -> Vec<String> {
        let mut v = vec!["capture-pane".to_string()];
        v.extend(self.capture_args(codes));
        v.extend(["-t".to_string(), target.to_string()]);
        v
    }

    /// The command list of the capture of `target` (a one-shot client's:
    /// one list, so all of it describes one moment).
    pub fn commands(&self, target: &str) -> Vec<Vec<String>> {
        match self.mode {
            Mode::Raw | Mode::Plain => vec![self.capture(target, false)],
            Mode::Strip => vec![self.capture(target, true)],
            Mode::Probed => {
                let t = target.to_string();
                let state = ["display-message", "-p", "-t", &t, PROBE_FORMAT];
                let mut probe: Vec<String> = ["capture-pane", "-p", "-e"].map(String::from).into();
                probe.extend(self.keep_flags());
                probe.extend(["-t", &t, "-S", "0", "-E", "-"].map(String::from));
                vec![
                    state.map(String::from).into(),
                    probe,
                    self.capture(target, false),
                ]
            }
        }
    }

    /// The command to run when [`Reader::again`] says so (the range with
    /// `-e`), read by [`Plan::strip_reader`].
    pub fn again(&self, target: &str) -> Vec<String> {
        self.capture(target, true)
    }

    /// The reader of the answer to [`Plan::commands`].
    pub fn reader(&self) -> Reader {
        match self.mode {
            Mode::Raw => Reader::Raw(RowSplitter::default()),
            Mode::Plain => Reader::Plain(RowSplitter::default()),
            Mode::Probed => Reader::Probed(Probed::new(self)),
            Mode::Strip => self.strip_reader(),
        }
    }

    /// The reader of the answer to [`Plan::again`].
    pub fn strip_reader(&self) -> Reader {
        Reader::Strip(Stripped::new(self.trims))
    }
}

/// The probe's state line: `#{history_size} #{pane_height}`.
const PROBE_FORMAT: &str = "#{history_size} #{pane_height}";

/// Where a capture's rows go.
pub trait Rows {
    /// One row, without its line break.
    fn row(&mut self, row: &[u8]);

    /// Takes rows as bytes, each ended by `\n` except perhaps the last,
    /// which the next call continues; `false` when it takes rows only
    /// (then nothing was taken). The same answer for every call.
    fn bytes(&mut self, _chunk: &[u8]) -> bool {
        false
    }

    /// Takes tmux's bytes as they are (trailing empty rows too); `false`
    /// when it takes rows only. The same answer for every call.
    fn raw(&mut self, _chunk: &[u8]) -> bool {
        false
    }
}

/// Reads a capture's answer, fed as it arrives in pieces of any size.
pub enum Reader {
    /// [`Mode::Raw`].
    Raw(RowSplitter),
    /// [`Mode::Plain`].
    Plain(RowSplitter),
    /// [`Mode::Probed`].
    Probed(Probed),
    /// [`Mode::Strip`].
    Strip(Stripped),
}

impl Reader {
    /// Reads the next piece of the answer.
    pub fn feed(&mut self, data: &[u8], out: &mut impl Rows) {
        match self {
            Reader::Raw(split) => {
                if !out.raw(data) {
                    split.feed(data, &mut |r| out.row(r));
                }
            }
            Reader::Plain(split) => {
                if !out.bytes(data) {
                    split.feed(data, &mut |r| out.row(r));
                }
            }
            Reader::Probed(p) => p.feed(data, out),
            Reader::Strip(s) => s.feed(data, out),
        }
    }

    /// The answer is complete: the last row, when it had no line break.
    pub fn finish(&mut self, out: &mut impl Rows) {
        match self {
            Reader::Raw(split) | Reader::Plain(split) => split.finish(&mut |r| out.row(r)),
            Reader::Probed(p) => p.finish(out),
            Reader::Strip(s) => s.finish(out),
        }
    }

    /// `-J` with line drawing on the screen: what was read was dropped;
    /// run [`Plan::again`] and read it with [`Plan::strip_reader`].
    pub fn again(&self) -> bool {
        matches!(self, Reader::Probed(p) if p.again)
    }
}

/// The rows of a whole answer to [`Plan::commands`] (one command, not
/// [`Mode::Probed`]), each with its trailing spaces trimmed, trailing
/// empty rows left out: how the tool collects a capture tmux renders.
pub fn collect(plan: &Plan, body: &[u8]) -> Vec<String> {
    struct Lines(Vec<String>);
    impl Rows for Lines {
        fn row(&mut self, row: &[u8]) {
            let row = crate::term::trim_end_spaces(row);
            self.0.push(String::from_utf8_lossy(row).into_owned());
        }
    }
    let mut lines = Lines(Vec::new());
    let mut reader = plan.reader();
    reader.feed(body, &mut lines);
    reader.finish(&mut lines);
    let mut lines = lines.0;
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Splits a stream into rows: complete rows go to `each`, a partial row
/// is kept until its line break arrives.
#[derive(Default)]
pub struct RowSplitter {
    carry: Vec<u8>,
}

impl RowSplitter {
    /// Hands each row `data` completes to `each`.
    pub fn feed(&mut self, mut data: &[u8], each: &mut impl FnMut(&[u8])) {
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
    pub fn finish(&mut self, each: &mut impl FnMut(&[u8])) {
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

/// Reads a [`Mode::Probed`] answer: the state line, the screen with
/// codes, then the capture, read as the module docs say.
pub struct Probed {
    stage: Stage,
    head: Vec<u8>,
    /// The screen rows, codes removed and line drawing read; `Some` only
    /// when one holds a line-drawing cell.
    screen: Option<Vec<Vec<u8>>>,
    /// The tmux line number of the next main row.
    next_line: i64,
    /// `-J` with line drawing on the screen: the capture is taken again.
    again: bool,
    start: Option<LineArg>,
    end: Option<LineArg>,
    join: bool,
    trims: bool,
    rows: RowSplitter,
}

impl Probed {
    fn new(plan: &Plan) -> Probed {
        Probed {
            stage: Stage::State,
            head: Vec::new(),
            screen: None,
            next_line: 0,
            again: false,
            start: plan.flags.start,
            end: plan.flags.end,
            join: plan.flags.join,
            trims: plan.trims,
            rows: RowSplitter::default(),
        }
    }

    fn feed(&mut self, mut data: &[u8], out: &mut impl Rows) {
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
                    self.next_line = first_row(self.start, self.end, hsize, height.max(1));
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
                    self.main(data, out);
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
        if self.join {
            self.again = true;
            return;
        }
        let mut shifted = false;
        let body = head.strip_suffix(b"\n").unwrap_or(&head);
        self.screen = Some(
            body.split(|&b| b == b'\n')
                .map(|r| {
                    let mut row = Vec::with_capacity(r.len());
                    strip_row(r, true, self.trims, &mut shifted, &mut row);
                    row
                })
                .collect(),
        );
    }

    fn main(&mut self, data: &[u8], out: &mut impl Rows) {
        if self.again {
            // Taken again with -e: this one is read and dropped.
            return;
        }
        match &self.screen {
            None => {
                if !out.bytes(data) {
                    self.rows.feed(data, &mut |r| out.row(r));
                }
            }
            Some(screen) => {
                let next = &mut self.next_line;
                self.rows
                    .feed(data, &mut |r| screen_row(screen, next, r, out));
            }
        }
    }

    fn finish(&mut self, out: &mut impl Rows) {
        if self.again {
            return;
        }
        match &self.screen {
            None => self.rows.finish(&mut |r| out.row(r)),
            Some(screen) => {
                let next = &mut self.next_line;
                self.rows.finish(&mut |r| screen_row(screen, next, r, out));
            }
        }
    }
}

/// Hands on row `r` of line number `*next`, or the screen's row of that
/// number where there is one; counts the line.
fn screen_row(screen: &[Vec<u8>], next: &mut i64, r: &[u8], out: &mut impl Rows) {
    let row = usize::try_from(*next)
        .ok()
        .and_then(|k| screen.get(k))
        .map_or(r, Vec::as_slice);
    out.row(row);
    *next += 1;
}

/// Reads a [`Mode::Strip`] answer: every row's codes removed.
pub struct Stripped {
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

    fn feed(&mut self, data: &[u8], out: &mut impl Rows) {
        let (shifted, trim, buf) = (&mut self.shifted, self.trim, &mut self.buf);
        let mut each = |r: &[u8]| {
            // Most rows hold no code: passed as they are.
            if !*shifted && memchr::memchr3(0x1b, 0x0e, 0x0f, r).is_none() {
                out.row(r);
                return;
            }
            buf.clear();
            strip_row(r, true, trim, shifted, buf);
            out.row(buf);
        };
        self.rows.feed(data, &mut each);
    }

    fn finish(&mut self, out: &mut impl Rows) {
        let (shifted, trim, buf) = (&mut self.shifted, self.trim, &mut self.buf);
        self.rows.finish(&mut |r| {
            buf.clear();
            strip_row(r, true, trim, shifted, buf);
            out.row(buf);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_a_capture() {
        // 3 history rows, 4 screen rows.
        let at = |n| Some(LineArg::At(n));
        for (start, end, want) in [
            (None, None, 0),
            (Some(LineArg::Edge), None, -3),
            (at(-100), None, -3),
            (at(-2), at(1), -2),
            // Swapped as tmux swaps them.
            (at(2), at(-1), -1),
            (at(99), None, 3),
            (None, at(-3), -3),
        ] {
            assert_eq!(first_row(start, end, 3, 4), want, "{start:?} {end:?}");
        }
        assert_eq!(line_value(LineArg::At(-5_000_000_000)), "-2147483647");
        assert_eq!(line_value(LineArg::At(40_000)), "32767");
        assert_eq!(line_value(LineArg::Edge), "-");
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
    fn commands_and_modes() {
        let plan = |f: Flags| Plan::new(f);
        let p = plan(Flags {
            start: Some(LineArg::At(-5)),
            join: true,
            trailing_spaces: true,
            ..Flags::default()
        });
        assert_eq!(p.mode(), Mode::Probed);
        let c = p.commands("%1");
        assert_eq!(c.len(), 3);
        assert_eq!(c[0], ["display-message", "-p", "-t", "%1", PROBE_FORMAT]);
        assert_eq!(
            c[1],
            [
                "capture-pane",
                "-p",
                "-e",
                "-N",
                "-t",
                "%1",
                "-S",
                "0",
                "-E",
                "-"
            ]
        );
        assert_eq!(
            c[2],
            ["capture-pane", "-p", "-J", "-N", "-S", "-5", "-t", "%1"]
        );
        let scrollback = Flags {
            end: Some(LineArg::At(-1)),
            ..Flags::default()
        };
        assert_eq!(plan(scrollback).mode(), Mode::Plain);
        let raw = Flags {
            octal: true,
            line_drawing: true,
            ..Flags::default()
        };
        assert_eq!(plan(raw).capture_args(false), ["-p", "-C"]);
        let strip = plan(Flags {
            line_drawing: true,
            ..Flags::default()
        });
        assert_eq!(
            strip.commands("%2"),
            [["capture-pane", "-p", "-e", "-t", "%2"]]
        );
    }

    #[test]
    fn collected_rows_read_line_drawing() {
        let plan = Plan::new(Flags {
            line_drawing: true,
            ..Flags::default()
        });
        let body = b"\x0elqqk\x0f  \nx  x   \n\x1b[1mb\x1b[0m\n\n\n";
        assert_eq!(collect(&plan, body), ["┌──┐", "x  x", "b"]);
    }

    #[test]
    fn probed_screen_rows_are_rewritten() {
        // history 2, height 2; the capture -S - has 4 rows.
        let plan = Plan::new(Flags {
            start: Some(LineArg::Edge),
            ..Flags::default()
        });
        let answer = b"2 2\n\x0eqq\x0f\nb\nh1\nh2\nqq\nb\n";
        for cut in 0..answer.len() {
            let mut got = Vec::new();
            struct All<'a>(&'a mut Vec<String>);
            impl Rows for All<'_> {
                fn row(&mut self, r: &[u8]) {
                    self.0.push(String::from_utf8_lossy(r).into_owned());
                }
            }
            let mut reader = plan.reader();
            reader.feed(&answer[..cut], &mut All(&mut got));
            reader.feed(&answer[cut..], &mut All(&mut got));
            reader.finish(&mut All(&mut got));
            assert_eq!(got, ["h1", "h2", "──", "b"], "cut at {cut}");
        }
    }
}
