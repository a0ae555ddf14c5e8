//! `capture_pane` (the snapshot and the format are [`super::snapshot`]
//! and [`super::display`]).
//!
//! A capture of a pane the mirror follows is answered from its copy once
//! tmux has confirmed the copy (one round trip), and of a pane that is
//! gone from its copy as it was last; any other pane is captured by tmux
//! in one write with its mode state, on the capture engine
//! `tmuxwire capture` runs on too ([`crate::tmux::capture`], line drawing
//! read in the whole range).
//!
//! Each response cuts itself to the caller's [`Limit`] ([`Fit`]): a
//! capture keeps its newest lines and says how to get the older ones
//! (`next`).

use schemars::JsonSchema;
use serde::Serialize;

use super::fit::{Fit, Limit, SLACK, fit_room, json_len, json_str_len};
use super::shape::Shape;
use super::{Op, Server};
use crate::control::format::Query;
use crate::control::{Command, Target, TargetKind};
use crate::mirror::{PaneMirror, Status, Want};
use crate::term::{LineNo, keep_tail, split_lines, trim_end_spaces};
use crate::tmux::capture::{Flags, LineArg, Plan};
use crate::tmux::model::{Source, is_zero};
use crate::tmux::target::{one_record, pane_lookup};
use crate::tmux::{Error, ErrorKind, Selector};

/// Largest text a capture returns to a caller without a response limit
/// (the CLI), in bytes; beyond it the oldest lines are dropped and the
/// text starts with `[... truncated N lines ...]`.
pub const MAX_TEXT_BYTES: usize = 8 << 20;

/// `capture_pane`: a pane's lines from `start` to `end`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CapturePaneRequest {
    /// The pane (default: the active one).
    pub pane: Selector,
    /// First line: 0 is the top of the visible screen, negative numbers
    /// are history lines (`-1` the newest); `None` is the top of the
    /// screen. Values beyond the history are clamped, as tmux does.
    pub start: Option<LineNo>,
    /// Last line, same numbering; `None` is the bottom of the screen.
    pub end: Option<LineNo>,
    /// Join soft-wrapped rows into logical lines (`-J`), trailing blanks
    /// trimmed.
    pub join: bool,
    /// Keep only the last this many lines (`None`: all).
    pub max_lines: Option<usize>,
    /// Which lines of the range to keep before `max_lines` and the
    /// response limit ([`Shape`]: `grep` with `context`, `head`, `tail`).
    pub shape: Shape,
    /// Redaction is on (`--redact`): rows (not `join`) have their secrets
    /// masked here, where the pane's width says which rows a soft wrap
    /// cut ([`crate::redact::find_rows`]); the caller masks the rest.
    pub redact: bool,
    /// Take the mirror's copy as it is, without the round trip that
    /// proves it current (the tool's `fenced: false`; [`Want::AsIs`]).
    pub as_is: bool,
}

impl Op for CapturePaneRequest {
    type Response = CaptureResult;

    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] for a missing pane; connection errors.
    async fn run(self, server: &Server, limit: Limit) -> Result<CaptureResult, Error> {
        let target = server.resolve_pane(&self.pane).await?;
        let mut cap = if self.shape.is_active() {
            // The whole range, shaped before it is cut.
            let whole = CapturePaneRequest {
                max_lines: None,
                ..self.clone()
            };
            capture(server, &target, &whole, None).await?
        } else {
            // Rendering stops once the limit is reached: the copy renders
            // only the newest lines that reach it.
            capture(server, &target, &self, limit.get()).await?
        };
        // Masked before they are shaped, so a grep never sees a secret.
        let redacted = if self.redact && !self.join {
            mask_rows(&mut cap.lines, cap.width)
        } else {
            None
        };
        let mut r = CaptureResult::new(cap, &self);
        r.redacted = redacted;
        Ok(r)
    }

    fn redacting(self, on: bool) -> CapturePaneRequest {
        let shape = Shape {
            redact: on,
            ..self.shape
        };
        CapturePaneRequest {
            redact: on,
            shape,
            ..self
        }
    }

    fn reads_only(&self) -> bool {
        true
    }
}

/// Masks the secrets of `rows`, a pane's rows of `width` cells (a secret
/// that soft wraps cut over rows included); how many, when any.
pub(super) fn mask_rows(rows: &mut [String], width: Option<u32>) -> Option<u64> {
    let width = usize::try_from(width?).ok()?;
    let spans = crate::redact::find_in_rows(rows, width);
    let mut n = 0;
    for (row, spans) in rows.iter_mut().zip(spans) {
        if !spans.is_empty() {
            n += crate::redact::count(&spans).total();
            *row = crate::redact::apply_str(row, &spans);
        }
    }
    (n > 0).then_some(n)
}

/// A capture: lines of text and how it was cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The pane captured.
    pub pane_id: String,
    /// The lines kept (trailing empty lines dropped), oldest first.
    pub lines: Vec<String>,
    /// Lines dropped from the front by `max_lines` (and by the byte hint
    /// of [`capture`]).
    pub truncated_lines: usize,
    /// The pane's mode state at the capture.
    pub mode: ModeState,
    /// Which source answered.
    pub source: Source,
    /// The pane is gone; the text is tmuxwire's copy of its last screen.
    pub pane_dead: bool,
    /// Bytes (each line's bytes and its `\n`) of the lines cut for the
    /// byte hint of [`capture`], counted in `truncated_lines` too.
    pub cut_bytes: usize,
    /// The tmux line number of the range's first row after tmux's
    /// clamping (0 without a range), read at the moment of the capture;
    /// `None` when tmux can no longer tell (a range over a pane that is
    /// gone).
    pub top_row: Option<i64>,
    /// The pane's width in cells at the capture, when known.
    pub width: Option<u32>,
}

crate::record! {
    /// A pane's mode state, as a capture reads it with the text (tmux's
    /// variables) and returns it ([`CaptureResult`] flattens it: the
    /// same keys, in this order).
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
    pub struct ModeState {
        /// The pane is in a mode (copy mode, …); left out when false.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pub pane_in_mode: bool = "pane_in_mode",
        /// The mode's name, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub pane_mode: Option<String> = "pane_mode",
        /// In copy mode: lines the user's view is scrolled up from the live bottom.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub scroll_position: Option<i64> = "scroll_position",
        /// The alternate screen (a full-screen program) is shown; left out
        /// when false.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pub alternate_on: bool = "alternate_on",
    }
}

crate::record! {
    /// A pane's mode state and size, read with its capture in the same
    /// write.
    struct CaptureMeta {
        pane_id: String = "pane_id",
        mode: ModeState = ..,
        history_size: i64 = "history_size",
        pane_height: i64 = "pane_height",
        pane_width: i64 = "pane_width",
    }
}

/// Extra rows captured beyond `max_lines` when narrowing a capture to its
/// tail, for trailing empty rows (which are dropped).
const TAIL_MARGIN: i64 = 512;

/// Captured text as lines, trailing blanks trimmed when `trim`, trailing
/// empty lines dropped (libtmux-mcp does the same).
pub(super) fn text_lines(body: &[u8], trim: bool) -> Vec<String> {
    let mut lines: Vec<String> = split_lines(body)
        .map(|l| String::from_utf8_lossy(if trim { trim_end_spaces(l) } else { l }).into_owned())
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// The tmux line number of the first row a row capture of `req` starts
/// at on a pane with `hsize` history lines and `height` rows, after
/// tmux's clamping ([`crate::tmux::capture::first_row`]).
fn first_row(req: &CapturePaneRequest, hsize: i64, height: i64) -> i64 {
    let at = |n: Option<LineNo>| n.map(|n| LineArg::At(n.0));
    crate::tmux::capture::first_row(at(req.start), at(req.end), hsize, height)
}

/// A capture from a pane's copy, as tmux would give it (rows, or logical
/// lines with `join`); `None` when the copy is empty.
fn capture_copy(
    p: &PaneMirror,
    req: &CapturePaneRequest,
    max_bytes: Option<usize>,
) -> Option<Capture> {
    // Rendered from a snapshot: the pane's output is not held up.
    let st = p.snapshot();
    let t = st.term()?;
    // History the copy dropped for the memory cap is still in tmux (for a
    // live pane): a range reaching into it is tmux's to answer.
    let reaches_dropped = (st.capped_rows() > 0 || st.absent_rows() > 0)
        && req.start.is_some_and(|s| s.0 < -(t.history_size() as i64));
    let dead = st.status() == Status::Dead;
    if reaches_dropped && !dead {
        return None;
    }
    // Only the newest lines are rendered: `max_lines` of them, and no more
    // than fit the caller's limit (the rest are counted, not rendered).
    let (width, height) = t.size();
    let tail = t.capture_tail(
        req.start.unwrap_or(LineNo(0)),
        req.end.unwrap_or(LineNo(i64::from(height) - 1)),
        req.join,
        req.max_lines,
        max_bytes.unwrap_or(usize::MAX),
    );
    let lines = text_lines(&tail.text, req.join);
    let hsize = i64::try_from(t.history_size()).unwrap_or(i64::MAX);
    // tmux no longer knows a pane that is gone: only the screen (no
    // range) has a first row then.
    let ranged = req.start.is_some() || req.end.is_some();
    let top_row = (!dead || !ranged).then(|| first_row(req, hsize, i64::from(height)));
    Some(Capture {
        pane_id: p.id.to_string(),
        lines,
        truncated_lines: tail.lines_above,
        mode: ModeState {
            pane_in_mode: st.mode().in_mode,
            pane_mode: st.mode().mode.clone(),
            scroll_position: st.mode().scroll_position,
            alternate_on: t.alternate_on(),
        },
        source: Source::Mirror,
        pane_dead: dead,
        cut_bytes: tail.bytes_above,
        top_row,
        width: Some(width),
    })
}

/// Captures a pane (`capture-pane -p`), in one round trip with the pane's
/// mode state; from the mirror's copy when it has a confirmed one.
/// `max_bytes` is a hint: bytes of text the caller will keep at most
/// (each line's bytes and a `\n`); a copy renders only the newest lines
/// that reach it and counts the rest in [`Capture::truncated_lines`] and
/// [`Capture::cut_bytes`].
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing pane; connection errors.
async fn capture(
    server: &Server,
    target: &Target,
    req: &CapturePaneRequest,
    max_bytes: Option<usize>,
) -> Result<Capture, Error> {
    // A pane the mirror follows is answered from its copy, once tmux has
    // confirmed the copy (one round trip); a pane that is gone is answered
    // from its copy as it was last.
    let copy = match (target, server.mirror().await) {
        (Target::Pane(id), Some(m)) => m.pane(*id).map(|p| (m, p, *id)),
        _ => None,
    };
    if let Some((m, p, id)) = &copy {
        let status = p.view().status();
        // A range into the history needs the copy's history read.
        let want = if req.start.is_some_and(|s| s.0 < 0) {
            Want::History
        } else {
            Want::current(req.as_is)
        };
        let usable =
            status == Status::Dead || (status != Status::Unseeded && m.refresh(&[*id], want).await);
        if usable && let Some(cap) = capture_copy(p, req, max_bytes) {
            return Ok(cap);
        }
    }
    match capture_from_tmux(server, target, req).await {
        Err(e) if e.is(ErrorKind::NotFound) => {
            // Gone since the copy was last checked.
            if let Some((_, p, _)) = &copy
                && p.view().term().is_some()
            {
                // Waits on the pane learn it is gone too.
                p.mark_dead();
                if let Some(cap) = capture_copy(p, req, max_bytes) {
                    return Ok(cap);
                }
            }
            Err(e)
        }
        other => other,
    }
}

async fn capture_from_tmux(
    server: &Server,
    target: &Target,
    req: &CapturePaneRequest,
) -> Result<Capture, Error> {
    // When only the newest `max_lines` rows of a deep range are wanted,
    // ask tmux for just those (plus a margin for trailing empty rows):
    // tmux's cost is proportional to the rows it renders.
    let narrowed = match (req.max_lines, req.join, req.start) {
        (Some(m), false, Some(LineNo(s))) => {
            let span = (m as i64).saturating_add(TAIL_MARGIN);
            let from = match req.end {
                Some(LineNo(e)) => e.saturating_sub(span - 1),
                None => -span,
            };
            (s < from).then_some(from)
        }
        _ => None,
    };
    let (cap, skipped) = capture_once(server, target, req, narrowed).await?;
    if skipped > 0 && cap.lines.len() < req.max_lines.unwrap_or(0) {
        // More trailing empty rows than the margin: capture it all.
        return Ok(capture_once(server, target, req, None).await?.0);
    }
    Ok(cap)
}

async fn capture_once(
    server: &Server,
    target: &Target,
    req: &CapturePaneRequest,
    narrowed_start: Option<i64>,
) -> Result<(Capture, usize), Error> {
    // On the capture engine with line drawing read in the whole range
    // (-e, so DEC line-drawing cells can be told from letters, C21; the
    // codes are removed again as the rows are read).
    let at = |n: Option<i64>| n.map(LineArg::At);
    let plan = Plan::new(Flags {
        start: at(narrowed_start.or(req.start.map(|s| s.0))),
        end: at(req.end.map(|e| e.0)),
        join: req.join,
        line_drawing: true,
        ..Flags::default()
    });
    let cap = plan
        .capture_args(false)
        .into_iter()
        .fold(Command::new("capture-pane"), Command::arg);
    let (meta, body) = state_and_text(server, target, CaptureMeta::FIELDS, cap).await?;
    let meta = CaptureMeta::from_record(&meta);
    let mut lines = crate::tmux::capture::collect(&plan, &body);
    let hsize = meta.history_size;
    let height = meta.pane_height.max(1);
    // Rows of the requested range that the narrowed capture skipped.
    let skipped = match (narrowed_start, req.start) {
        (Some(from), Some(LineNo(start))) => {
            let clamp = |n: i64| n.max(-hsize).min(height - 1);
            usize::try_from(clamp(from) - clamp(start)).unwrap_or(0)
        }
        _ => 0,
    };
    let truncated_lines = keep_tail(&mut lines, req.max_lines) + skipped;
    let cap = Capture {
        pane_id: meta.pane_id,
        lines,
        truncated_lines,
        mode: meta.mode,
        source: Source::Capture,
        pane_dead: false,
        cut_bytes: 0,
        top_row: Some(first_row(req, hsize, height)),
        width: u32::try_from(meta.pane_width).ok(),
    };
    Ok((cap, skipped))
}

/// Runs a pane lookup of `fields` and `capture` (targeted here) in one
/// write, so the state and the text describe the same moment.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing pane; connection errors.
pub(crate) async fn state_and_text(
    server: &Server,
    target: &Target,
    fields: &[&str],
    capture: Command,
) -> Result<(crate::control::format::Record, Vec<u8>), Error> {
    let q = Query::new(fields);
    let lookup = pane_lookup(target, &q);
    let capture = capture.target(target, TargetKind::Pane);
    let [meta, body] = server.run_each(&[lookup, capture]).await?;
    let (meta, body) = (meta.into_result()?, body.into_result()?);
    Ok((one_record(&q, &meta, target)?, body))
}

/// How to get the lines a capture or snapshot cut (the older ones).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Next {
    /// The pane.
    pub pane_id: String,
    /// First line to ask for (tmux numbering).
    pub start: i64,
    /// Last line to ask for.
    pub end: i64,
    /// `max_lines` to ask with.
    pub max_lines: Option<usize>,
    /// `grep` to ask with (a shaped capture's); left out when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grep: Option<String>,
    /// `context` to ask with; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub context: usize,
}

/// `capture_pane`'s result.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CaptureResult {
    /// The captured text.
    pub result: String,
    /// The pane captured.
    pub pane_id: String,
    /// Lines returned.
    pub lines: usize,
    /// Lines cut before the first line returned, by `max_lines` or the
    /// response budget (left out when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_lines: usize,
    /// Bytes of text cut to fit the response budget (left out when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_bytes: usize,
    /// How to get the lines cut; left out when nothing was cut or, for
    /// `join_wrapped` captures, when logical lines have no line number.
    /// For a capture shaped by `grep` with `context`, the range reaches
    /// `context` lines further on each side, so the answer to it may
    /// repeat up to `context` lines (it never misses one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Next>,
    /// Lines of the range that `head`, `tail` or `grep` left out (not
    /// counted in `truncated_lines`); left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_omitted: usize,
    /// Which screen was captured: always `live`, the pane's current screen
    /// (left out); a pane in copy mode may show the user older lines (see
    /// `scroll_position`).
    #[serde(skip_serializing_if = "is_live")]
    pub view: String,
    /// `pane_in_mode`, `pane_mode`, `scroll_position`, `alternate_on`.
    #[serde(flatten)]
    pub mode: ModeState,
    /// Which source answered: `mirror` (tmuxwire's copy, checked with tmux
    /// just before) or `capture` (tmux itself).
    pub source: Source,
    /// The pane is gone; the text is tmuxwire's copy of its last screen.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
    /// Secrets masked in the rows (`--redact`); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    /// The lines `result` holds (after its header), kept to cut them.
    #[serde(skip)]
    #[schemars(skip)]
    text: Vec<String>,
    /// [`Capture::top_row`].
    #[serde(skip)]
    #[schemars(skip)]
    top_row: Option<i64>,
    /// Of a shaped capture of rows: the tmux line number of each line of
    /// `text`, and of the first line the shape kept.
    #[serde(skip)]
    #[schemars(skip)]
    numbers: Option<(Vec<i64>, i64)>,
    /// The request's shape, for `next`.
    #[serde(skip)]
    #[schemars(skip)]
    shape: Shape,
    /// The request's `join` and `max_lines`, for `next`.
    #[serde(skip)]
    #[schemars(skip)]
    join: bool,
    #[serde(skip)]
    #[schemars(skip)]
    max_lines: Option<usize>,
}

impl CaptureResult {
    /// The uncut result of capture `cap` made for `req`.
    pub fn new(cap: Capture, req: &CapturePaneRequest) -> CaptureResult {
        let mut text = cap.lines;
        let mut truncated_lines = cap.truncated_lines;
        let mut lines_omitted = 0;
        let mut numbers: Option<(Vec<i64>, i64)> = None;
        if req.shape.is_active() {
            // Captured whole (no max_lines): line `i` of rows is row
            // `top + i`; logical lines have no number.
            let kept = req.shape.keep(&text);
            lines_omitted = text.len() - kept.len();
            if let (false, Some(top), Some(&first)) = (req.join, cap.top_row, kept.first()) {
                let row = |i: usize| top.saturating_add(i64::try_from(i).unwrap_or(i64::MAX));
                numbers = Some((kept.iter().map(|&i| row(i)).collect(), row(first)));
            }
            super::shape::retain_at(&mut text, kept);
            truncated_lines = keep_tail(&mut text, req.max_lines);
            if let Some((n, _)) = &mut numbers {
                n.drain(..truncated_lines.min(n.len()));
            }
        }
        let mut r = CaptureResult {
            result: String::new(),
            pane_id: cap.pane_id,
            lines: 0,
            truncated_lines,
            truncated_bytes: cap.cut_bytes,
            next: None,
            lines_omitted,
            view: "live".into(),
            mode: cap.mode,
            source: cap.source,
            pane_dead: cap.pane_dead,
            text,
            top_row: cap.top_row,
            numbers,
            shape: req.shape.clone(),
            join: req.join,
            max_lines: req.max_lines,
            redacted: None,
        };
        r.finish();
        r
    }

    /// The lines returned, oldest first (`result` without its header).
    pub fn text_lines(&self) -> &[String] {
        &self.text
    }

    /// Writes `result`, `lines` and `next` from the lines kept.
    fn finish(&mut self) {
        self.next = None;
        if self.truncated_lines > 0 && self.shape.is_active() {
            // The shape kept lines from `first` on; those before the
            // first line returned were cut. Asked again with grep over
            // that span (context further on each side, for the lines a
            // match across its ends kept), they come back; head and tail
            // chose among them and are not asked again.
            if let Some((numbers, first)) = &self.numbers
                && let Some(&returned) = numbers.first()
            {
                let c = i64::try_from(self.shape.context).unwrap_or(0);
                self.next = Some(Next {
                    pane_id: self.pane_id.clone(),
                    start: first.saturating_sub(c),
                    end: returned.saturating_sub(1).saturating_add(c),
                    max_lines: self.max_lines,
                    grep: self.shape.grep.clone(),
                    context: self.shape.context,
                });
            }
        } else if self.truncated_lines > 0
            && !self.join
            && let Some(top) = self.top_row
        {
            // Rows: the first line returned is `top + truncated_lines`.
            let cut = i64::try_from(self.truncated_lines).unwrap_or(i64::MAX);
            self.next = Some(Next {
                pane_id: self.pane_id.clone(),
                start: top,
                end: top.saturating_add(cut) - 1,
                max_lines: self.max_lines,
                grep: None,
                context: 0,
            });
        }
        self.lines = self.text.len();
        self.result = joined(&self.text, self.truncated_lines);
    }
}

/// Keeps the newest lines that fit: within the limit with room for the
/// fixed fields, the header and `next`; without a limit, within
/// [`MAX_TEXT_BYTES`] of text.
impl Fit for CaptureResult {
    fn fit(&mut self, limit: Limit) {
        let (cut, bytes) = match limit.get() {
            None => fit_bytes(&mut self.text, MAX_TEXT_BYTES),
            Some(b) => {
                let mut bare = self.clone();
                bare.result.clear();
                bare.lines = 0;
                // The most digits, so the fields a cut adds are counted.
                bare.truncated_lines = usize::MAX;
                bare.truncated_bytes = usize::MAX;
                bare.next = None;
                let grep = self.shape.grep.as_deref().map_or(0, json_str_len);
                let fixed = json_len(&bare) + HEADER_ROOM + NEXT_ROOM + grep + SLACK;
                fit_room(&mut self.text, b.saturating_sub(fixed))
            }
        };
        if let Some((numbers, _)) = &mut self.numbers {
            numbers.drain(..cut.min(numbers.len()));
        }
        self.truncated_lines += cut;
        self.truncated_bytes += bytes;
        self.finish();
    }
}

/// Drops whole lines from the front of `lines` until they fit in `max`
/// bytes joined; returns how many lines and bytes were dropped.
fn fit_bytes(lines: &mut Vec<String>, max: usize) -> (usize, usize) {
    let mut total: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut drop = 0;
    let mut bytes = 0;
    while total > max && drop < lines.len() {
        total -= lines[drop].len() + 1;
        bytes += lines[drop].len() + 1;
        drop += 1;
    }
    lines.drain(..drop);
    (drop, bytes)
}

/// Text `lines` joined, with libtmux-mcp's truncation header when
/// `truncated > 0`.
fn joined(lines: &[String], truncated: usize) -> String {
    let body = lines.join("\n");
    if truncated == 0 {
        return body;
    }
    format!("[... truncated {truncated} lines ...]\n{body}")
}

/// Room the header `joined` adds at most, in JSON bytes.
const HEADER_ROOM: usize = "[... truncated 18446744073709551615 lines ...]\\n".len();

/// Room a [`Next`] takes at most, in JSON bytes, beyond `null`.
pub(super) const NEXT_ROOM: usize = 128;

/// Whether a view is `live`, the only one there is (a field left out).
pub(crate) fn is_live(v: &str) -> bool {
    v == "live"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_header() {
        let lines: Vec<String> = (0..3).map(|i| i.to_string()).collect();
        assert_eq!(joined(&lines, 0), "0\n1\n2");
        assert_eq!(joined(&lines, 7), "[... truncated 7 lines ...]\n0\n1\n2");
        let mut big: Vec<String> = (0..3).map(|_| "x".repeat(MAX_TEXT_BYTES / 2)).collect();
        assert_eq!(fit_bytes(&mut big, MAX_TEXT_BYTES), (2, MAX_TEXT_BYTES + 2));
        assert_eq!(big.len(), 1);
        let mut l: Vec<String> = ["aa", "bbb", "cc"].iter().map(|s| s.to_string()).collect();
        assert_eq!(fit_room(&mut l, 100), (0, 0));
        assert_eq!(fit_room(&mut l, 6), (2, 7));
        let mut l: Vec<String> = ["aa", "bbb", "cc"].iter().map(|s| s.to_string()).collect();
        assert_eq!(fit_room(&mut l, 7), (1, 3));
        assert_eq!(l, ["bbb", "cc"]);
        // Not even the newest line fits: its end is kept.
        assert_eq!(fit_room(&mut l, 1), (1, 5));
        assert_eq!(l, ["c"]);
    }

    #[test]
    fn first_rows() {
        let req = |start: Option<i64>, end: Option<i64>| CapturePaneRequest {
            start: start.map(LineNo),
            end: end.map(LineNo),
            ..CapturePaneRequest::default()
        };
        assert_eq!(first_row(&req(None, None), 100, 24), 0);
        assert_eq!(first_row(&req(Some(-500), None), 100, 24), -100);
        assert_eq!(first_row(&req(Some(5), Some(2)), 100, 24), 2);
        assert_eq!(first_row(&req(None, Some(-3)), 100, 24), -3);
    }
}
