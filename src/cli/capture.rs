//! `tmuxwire panes` and `tmuxwire capture`.
//!
//! # How `capture` reads a pane
//!
//! On the capture engine the `capture_pane` tool uses when tmux answers
//! ([`crate::tmux::capture`]): its [`Plan`] says which commands run and
//! its [`Reader`] turns the answer into rows. One one-shot client
//! (fd-less, output as `MSG_WRITE` frames, status as `MSG_EXIT`:
//! [`crate::wire::stream_command_list`]) runs the plan's command list, and
//! the rows are written to stdout as the frames arrive: no cap, nothing
//! dropped, constant memory (one frame, plus one row where a row is
//! rewritten). Where nothing is rewritten, tmux's bytes pass through
//! untouched.
//!
//! Trailing empty rows are left out (runs of empty rows are held back as a
//! count until a row with text follows).

use std::collections::VecDeque;
use std::io::{self, BufWriter, IsTerminal as _, Write};
use std::process::ExitCode;
use std::time::Duration;

use super::CaptureArgs;
use super::errors::CliError;
use super::output::{Out, escape_field};
use super::target;
use crate::control::PaneId;
use crate::tmux::Servers;
use crate::tmux::capture::{Plan, Reader, Rows};
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
    pub fn pass(&mut self, chunk: &[u8]) {
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

/// Rows and, without `--max-lines`, runs of rows as bytes
/// ([`RowSink::pass`]) and tmux's bytes as they are.
impl<W: Write> Rows for RowSink<W> {
    fn row(&mut self, row: &[u8]) {
        RowSink::row(self, row);
    }

    fn bytes(&mut self, chunk: &[u8]) -> bool {
        let whole = self.tail.is_none();
        if whole {
            self.pass(chunk);
        }
        whole
    }

    fn raw(&mut self, chunk: &[u8]) -> bool {
        let whole = self.tail.is_none();
        if whole {
            self.write(chunk);
        }
        whole
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
            Ok(scope.id().to_string())
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
                out.ending = crate::wire::Ending::Stopped;
            }
            Ok(out)
        }
    }
}

/// Streams the answer to `cmds` through `reader` into `sink`; `false`
/// when whoever read stdout went away (`capture | head`: that is all).
///
/// # Errors
///
/// tmux's error, a server that cannot be reached.
async fn run<W: Write>(
    endpoint: &crate::wire::Endpoint,
    cmds: &[&[String]],
    reader: &mut Reader,
    sink: &mut RowSink<W>,
    target: Option<&str>,
) -> Result<bool, CliError> {
    let feed = |data: &[u8]| {
        reader.feed(data, sink);
        !sink.is_broken()
    };
    let out = stream(endpoint, cmds, feed)
        .await
        .map_err(|e| CliError::new(e.to_string()))?;
    if out.ending == crate::wire::Ending::Stopped {
        return Ok(false);
    }
    if !out.success() {
        return Err(tmux_error(&out, target));
    }
    Ok(true)
}

/// Runs `capture` (see the module docs).
///
/// # Errors
///
/// A missing target, tmux's error, a server that cannot be reached.
pub async fn capture(servers: &Servers, a: CaptureArgs) -> Result<ExitCode, CliError> {
    let target = capture_target(servers, a.target.as_deref()).await?;
    let endpoint = servers.default_server().endpoint().clone();
    let plan = Plan::new(a.flags.clone());
    let max_lines = a
        .max_lines
        .map(|m| usize::try_from(m).unwrap_or(usize::MAX));
    let stdout = BufWriter::with_capacity(64 << 10, io::stdout().lock());
    // With --redact, secrets are masked in what is printed (a key's body
    // over lines too); every row is still printed. Joined lines are
    // masked as they arrive; rows are held to the end and read with the
    // pane's width, so a secret a soft wrap splits is read whole.
    let rows = if a.redact.redact && !a.flags.join {
        Some(pane_width(servers, &target).await?)
    } else {
        None
    };
    let out = super::output::Redacting::new(stdout, a.redact.redact, rows);
    let mut sink = RowSink::new(out, max_lines);
    let commands = plan.commands(&target);
    let refs: Vec<&[String]> = commands.iter().map(Vec::as_slice).collect();
    let said = a.target.as_deref();
    let mut reader = plan.reader();
    if !run(&endpoint, &refs, &mut reader, &mut sink, said).await? {
        return Ok(ExitCode::SUCCESS);
    }
    if reader.again() {
        // -J with line drawing on the screen: taken again with -e.
        let again = plan.again(&target);
        reader = plan.strip_reader();
        if !run(&endpoint, &[again.as_slice()], &mut reader, &mut sink, said).await? {
            return Ok(ExitCode::SUCCESS);
        }
    }
    reader.finish(&mut sink);
    // A closed pipe at the end is not an error either.
    let _ = sink.finish().and_then(super::output::Redacting::finish);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                    s.pass(x.as_bytes());
                    s.pass(y.as_bytes());
                },
                None,
            );
            assert_eq!(got, "one\n\ntwo\nthree\n", "cut at {cut}");
        }
        assert_eq!(sink_out(|s| s.pass(b"\n\n\n"), None), "");
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
