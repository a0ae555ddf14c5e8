//! The read operations tools are built from: listings, single objects,
//! captures and format evaluation. Each is one round trip when the target
//! is given by id.

use super::error::{Error, ErrorKind};

use super::model::PaneSnapshot;
use super::search::Source;
use super::server::Tmux;
use crate::control::format::{Part, Query, Record};
use crate::control::{Command, PaneId, SessionId, Target, TargetKind, WindowId};
use crate::mirror::{PaneMirror, Status};
use crate::term::LineNo;

/// Which object a tool call names: the union of libtmux-mcp's targeting
/// arguments. The most specific one given wins (pane, then window, then
/// session); with none, the active pane of the active window of the
/// default session (see [`Tmux::default_session`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    /// `%N`.
    pub pane_id: Option<PaneId>,
    /// `@N`.
    pub window_id: Option<WindowId>,
    /// A window index within the selected session.
    pub window_index: Option<u32>,
    /// `$N`.
    pub session_id: Option<SessionId>,
    /// An exact session name.
    pub session_name: Option<String>,
}

/// Which panes a listing covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaneScope {
    /// Every pane of every session.
    All,
    /// The panes of one session.
    Session(Target),
    /// The panes of one window.
    Window(Target),
}

/// What to capture.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureOptions {
    /// First line: 0 is the top of the visible screen, negative numbers
    /// are history lines (`-1` the newest); `None` is the top of the
    /// screen. Values beyond the history are clamped, as tmux does.
    pub start: Option<i64>,
    /// Last line, same numbering; `None` is the bottom of the screen.
    pub end: Option<i64>,
    /// Join soft-wrapped rows into logical lines (`-J`), trailing blanks
    /// trimmed.
    pub join: bool,
    /// Keep only the last this many lines (`None`: all).
    pub max_lines: Option<usize>,
    /// Bytes of text the caller will keep at most (each line's bytes and a
    /// `\n`): a copy renders only the newest lines that reach it, and
    /// counts the rest in [`Capture::truncated_lines`] and
    /// [`Capture::cut_bytes`]. A hint: the result may hold more.
    pub max_bytes: Option<usize>,
}

/// A capture: lines of text and how it was cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The pane captured.
    pub pane_id: String,
    /// The lines kept (trailing empty lines dropped), oldest first.
    pub lines: Vec<String>,
    /// Lines dropped from the front by `max_lines`.
    pub truncated_lines: usize,
    /// Whether the pane is in a mode (copy mode, …).
    pub pane_in_mode: bool,
    /// The mode, if any.
    pub pane_mode: Option<String>,
    /// In copy mode, the view's offset from the live bottom.
    pub scroll_position: Option<i64>,
    /// True when the alternate screen is shown.
    pub alternate_on: bool,
    /// Which source answered.
    pub source: Source,
    /// The pane is gone; the text is tmuxwire's copy of its last screen.
    pub pane_dead: bool,
    /// Bytes (each line's bytes and its `\n`) of the lines cut for
    /// [`CaptureOptions::max_bytes`], counted in `truncated_lines` too.
    pub cut_bytes: usize,
}

const CAPTURE_META: &[&str] = &[
    "pane_id",
    "pane_in_mode",
    "pane_mode",
    "scroll_position",
    "alternate_on",
    "history_size",
    "pane_height",
];

/// Extra rows captured beyond `max_lines` when narrowing a capture to its
/// tail, for trailing empty rows (which are dropped).
const TAIL_MARGIN: i64 = 512;

/// `name -F <template>` for `fields`, and the query that parses its answer.
pub(crate) fn template_cmd(name: &str, fields: &[&str]) -> (Command, Query) {
    let q = Query::new(fields);
    (
        Command::new(name).opt("-F", q.template()).frame(q.frame()),
        q,
    )
}

/// The `list-panes` command that prints `format` for exactly one pane:
/// the pane itself for a pane id, else the active pane of the window (or
/// of the session's current window).
///
/// Not `display-message -t`: that command lets a missing target pass
/// silently (`CMD_FIND_CANFAIL`) and prints an empty expansion; it also
/// runs its template through `strftime()`. `list-panes -t` fails with
/// "can't find pane" and prints `%` literally.
pub(crate) fn pane_lookup(target: &Target, q: &Query) -> Command {
    let filter = match target {
        // Ids are validated digits: safe inside a format.
        Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
        _ => "#{pane_active}".to_string(),
    };
    Command::new("list-panes")
        .target(target, TargetKind::Window)
        .opt("-f", filter)
        .opt("-F", q.template())
        .frame(q.frame())
}

/// The `list-windows` command that prints `fields` for exactly one window:
/// a window by id or index, else the session's current window.
pub(crate) fn window_lookup(target: &Target, fields: &[&str]) -> (Command, Query) {
    let (session, filter) = match target {
        Target::Window(w) => (target.clone(), format!("#{{==:#{{window_id}},{w}}}")),
        Target::WindowIndex { session, index } => (
            session.as_ref().clone(),
            format!("#{{==:#{{window_index}},{index}}}"),
        ),
        _ => (target.clone(), "#{window_active}".to_string()),
    };
    let (cmd, q) = template_cmd("list-windows", fields);
    (
        cmd.target(&session, TargetKind::Session).opt("-f", filter),
        q,
    )
}

/// The one record `body` must hold, or [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
pub(crate) fn one_record(q: &Query, body: &[u8], target: &Target) -> Result<Record, Error> {
    q.parse(body)
        .into_iter()
        .next()
        .ok_or_else(|| Error::not_found(format!("can't find {target}")))
}

/// Errors that mean "there is nothing to list" on a server without
/// sessions (`list-panes -a` there says "no current target").
pub(crate) fn is_empty_server(e: &Error) -> bool {
    e.is(ErrorKind::NotFound)
        && (e.detail().contains("no current") || e.detail().contains("no sessions"))
}

/// Splits captured text into lines (without their `\n`).
pub fn split_lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    let empty = body.is_empty();
    body.split(|&b| b == b'\n').filter(move |_| !empty)
}

/// `line` without trailing spaces.
pub fn trim_end_spaces(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    &line[..end]
}

/// Captured text as lines, trailing blanks trimmed when `trim`, trailing
/// empty lines dropped (libtmux-mcp does the same).
fn text_lines(body: &[u8], trim: bool) -> Vec<String> {
    let mut lines: Vec<String> = split_lines(body)
        .map(|l| String::from_utf8_lossy(if trim { trim_end_spaces(l) } else { l }).into_owned())
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// A capture from a pane's copy, as tmux would give it (rows, or logical
/// lines with `join`); `None` when the copy is empty.
fn capture_copy(p: &PaneMirror, opts: &CaptureOptions) -> Option<Capture> {
    // Rendered from a snapshot: the pane's output is not held up.
    let st = p.snapshot();
    let t = st.term()?;
    // History the copy dropped for the memory cap is still in tmux (for a
    // live pane): a range reaching into it is tmux's to answer.
    let reaches_dropped =
        st.capped_rows() > 0 && opts.start.is_some_and(|s| s < -(t.history_size() as i64));
    if reaches_dropped && st.status() != Status::Dead {
        return None;
    }
    // Only the newest lines are rendered: `max_lines` of them, and no more
    // than fit the caller's budget (the rest are counted, not rendered).
    let (_, height) = t.size();
    let tail = t.capture_tail(
        LineNo(opts.start.unwrap_or(0)),
        LineNo(opts.end.unwrap_or(i64::from(height) - 1)),
        opts.join,
        opts.max_lines,
        opts.max_bytes.unwrap_or(usize::MAX),
    );
    let lines = text_lines(&tail.text, opts.join);
    let (truncated_lines, cut_bytes) = (tail.lines_above, tail.bytes_above);
    Some(Capture {
        pane_id: p.id.to_string(),
        lines,
        truncated_lines,
        pane_in_mode: st.mode().in_mode,
        pane_mode: st.mode().mode.clone(),
        scroll_position: st.mode().scroll_position,
        alternate_on: t.alternate_on(),
        source: Source::Mirror,
        pane_dead: st.status() == Status::Dead,
        cut_bytes,
    })
}

/// Keeps the last `max` of `lines`; returns how many were dropped.
pub fn keep_tail<T>(lines: &mut Vec<T>, max: Option<usize>) -> usize {
    match max {
        Some(m) if lines.len() > m => {
            let drop = lines.len() - m;
            lines.drain(..drop);
            drop
        }
        _ => 0,
    }
}

impl Tmux {
    /// The target a pane-level command should use for `sel`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when nothing is named and the server has no
    /// sessions.
    pub async fn resolve_pane(&self, sel: &Selector) -> Result<Target, Error> {
        if let Some(p) = sel.pane_id {
            return Ok(Target::Pane(p));
        }
        if *sel == Selector::default()
            && let Some(p) = self.caller_pane()
        {
            // Run from inside tmux: the caller's own pane, as tmux does.
            return Ok(Target::Pane(p));
        }
        self.resolve_window(sel).await
    }

    /// The target a window-level command should use for `sel`.
    ///
    /// # Errors
    ///
    /// As [`Tmux::resolve_pane`].
    pub async fn resolve_window(&self, sel: &Selector) -> Result<Target, Error> {
        if let Some(w) = sel.window_id {
            return Ok(Target::Window(w));
        }
        let session = self.resolve_session(sel).await?;
        Ok(match sel.window_index {
            Some(index) => Target::WindowIndex {
                session: Box::new(session),
                index,
            },
            None => session,
        })
    }

    /// The session `sel` names, or the default session.
    ///
    /// # Errors
    ///
    /// As [`Tmux::resolve_pane`].
    pub async fn resolve_session(&self, sel: &Selector) -> Result<Target, Error> {
        if let Some(s) = sel.session_id {
            return Ok(Target::Session(s));
        }
        if let Some(n) = &sel.session_name {
            return Ok(Target::Session(self.session_id_by_name(n).await?));
        }
        Ok(Target::Session(self.default_session().await?))
    }

    /// The id of the session named exactly `name`.
    ///
    /// Matched here rather than with tmux's `-t =name`, because a name can
    /// contain what tmux's target syntax gives meaning to (`:`, `.`, a
    /// leading `$`, `@` or `%`) on versions that allow it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when no session has that name.
    pub async fn session_id_by_name(&self, name: &str) -> Result<SessionId, Error> {
        let (cmd, q) = template_cmd("list-sessions", &["session_id", "session_name"]);
        let recs = match self.records(&cmd, &q).await {
            Err(e) if is_empty_server(&e) => Vec::new(),
            other => other?,
        };
        recs.iter()
            .filter(|r| r.str(1) == name)
            .find_map(|r| r.str(0).parse().ok())
            .ok_or_else(|| {
                let name = super::error::shorten(name, super::error::MAX_MESSAGE_CHARS);
                Error::not_found(format!("can't find session: {name}"))
            })
    }

    /// Captures a pane (`capture-pane -p`), in one round trip with the
    /// pane's mode state.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing pane; connection errors.
    pub async fn capture(&self, target: &Target, opts: &CaptureOptions) -> Result<Capture, Error> {
        // A pane the mirror follows is answered from its copy, once tmux
        // has confirmed the copy (one round trip); a pane that is gone is
        // answered from its copy as it was last.
        let copy = match (target, self.mirror().await) {
            (Target::Pane(id), Some(m)) => m.pane(*id).map(|p| (m, p, *id)),
            _ => None,
        };
        if let Some((m, p, id)) = &copy {
            let status = p.view().status();
            let usable =
                status == Status::Dead || (status != Status::Unseeded && m.refresh(&[*id]).await);
            if usable && let Some(cap) = capture_copy(p, opts) {
                return Ok(cap);
            }
        }
        match self.capture_from_tmux(target, opts).await {
            Err(e) if e.is(ErrorKind::NotFound) => {
                // Gone since the copy was last checked.
                if let Some((_, p, _)) = &copy
                    && p.view().term().is_some()
                {
                    p.mark_dead();
                    if let Some(cap) = capture_copy(p, opts) {
                        return Ok(cap);
                    }
                }
                Err(e)
            }
            other => other,
        }
    }

    async fn capture_from_tmux(
        &self,
        target: &Target,
        opts: &CaptureOptions,
    ) -> Result<Capture, Error> {
        // When only the newest `max_lines` rows of a deep range are wanted,
        // ask tmux for just those (plus a margin for trailing empty rows):
        // tmux's cost is proportional to the rows it renders.
        let narrowed = match (opts.max_lines, opts.join, opts.start) {
            (Some(m), false, Some(s)) => {
                let span = (m as i64).saturating_add(TAIL_MARGIN);
                let from = match opts.end {
                    Some(e) => e.saturating_sub(span - 1),
                    None => -span,
                };
                (s < from).then_some(from)
            }
            _ => None,
        };
        let (cap, skipped) = self.capture_once(target, opts, narrowed).await?;
        if skipped > 0 && cap.lines.len() < opts.max_lines.unwrap_or(0) {
            // More trailing empty rows than the margin: capture it all.
            return Ok(self.capture_once(target, opts, None).await?.0);
        }
        Ok(cap)
    }

    async fn capture_once(
        &self,
        target: &Target,
        opts: &CaptureOptions,
        narrowed_start: Option<i64>,
    ) -> Result<(Capture, usize), Error> {
        // -e, so DEC line-drawing cells can be told from letters (C21);
        // the codes are removed again below.
        let mut cap = Command::new("capture-pane").arg("-p").arg("-e");
        if opts.join {
            cap = cap.arg("-J");
        }
        let cap = cap
            .opt_if("-S", narrowed_start.or(opts.start).map(|s| s.to_string()))
            .opt_if("-E", opts.end.map(|e| e.to_string()));
        let (meta, body) = self.state_and_text(target, CAPTURE_META, cap).await?;
        let mut lines = text_lines(&crate::term::plain_capture(&body), opts.join);
        // Rows of the requested range that the narrowed capture skipped.
        let skipped = match (narrowed_start, opts.start) {
            (Some(from), Some(start)) => {
                let hsize = meta.int(5).unwrap_or(0);
                let height = meta.int(6).unwrap_or(1).max(1);
                let clamp = |n: i64| n.max(-hsize).min(height - 1);
                usize::try_from(clamp(from) - clamp(start)).unwrap_or(0)
            }
            _ => 0,
        };
        let truncated_lines = keep_tail(&mut lines, opts.max_lines) + skipped;
        let cap = Capture {
            pane_id: meta.string(0),
            lines,
            truncated_lines,
            pane_in_mode: meta.flag(1),
            pane_mode: Some(meta.string(2)).filter(|s| !s.is_empty()),
            scroll_position: meta.int(3),
            alternate_on: meta.flag(4),
            source: Source::Capture,
            pane_dead: false,
            cut_bytes: 0,
        };
        Ok((cap, skipped))
    }

    /// Runs a pane lookup of `fields` and `capture` (targeted here) in one
    /// write, so the state and the text describe the same moment.
    pub(crate) async fn state_and_text(
        &self,
        target: &Target,
        fields: &[&str],
        capture: Command,
    ) -> Result<(Record, Vec<u8>), Error> {
        let q = Query::new(fields);
        let lookup = pane_lookup(target, &q);
        let capture = capture.target(target, TargetKind::Pane);
        let [meta, body] = self.run_each(&[lookup, capture]).await?;
        let (meta, body) = (meta.into_result()?, body.into_result()?);
        Ok((one_record(&q, &meta, target)?, body))
    }

    /// The visible screen and the pane's state, in one round trip.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing pane; connection errors.
    pub async fn snapshot(
        &self,
        target: &Target,
        max_lines: Option<usize>,
    ) -> Result<PaneSnapshot, Error> {
        let cap = Command::new("capture-pane").arg("-p").arg("-e");
        let (rec, body) = self
            .state_and_text(target, PaneSnapshot::FIELDS, cap)
            .await?;
        let body = crate::term::plain_capture(&body);
        let mut snap = PaneSnapshot::from_record(&rec, |id| self.is_caller(id));
        let mut lines = text_lines(&body, false);
        // Rows down to the cursor belong to the screen the program left
        // (C29: blank lines printed above a prompt).
        let rows = split_lines(&body).count();
        let down_to_cursor = usize::try_from(snap.cursor_y.saturating_add(1))
            .unwrap_or(0)
            .min(rows);
        if lines.len() < down_to_cursor {
            lines.resize(down_to_cursor, String::new());
        }
        let cut = keep_tail(&mut lines, max_lines);
        snap.content = lines.join("\n");
        snap.content_truncated = cut > 0;
        snap.content_truncated_lines = cut as i64;
        Ok(snap)
    }

    /// Expands literal text and `#{variable}` references for a pane, as
    /// `display-message -p` would but without its `strftime()` pass (so
    /// `%` stays literal), with every literal character printed as given
    /// (`#` included), and with an error for a missing pane (it uses
    /// `list-panes -t`, not `display-message -t`, which passes silently).
    /// Values arrive in one record (see [`crate::control::format`]), so
    /// they come back exactly and cannot cut the answer.
    ///
    /// `#{session_attached}` and `#{session_many_attached}` leave out
    /// tmuxwire's own control clients, as `list_sessions` does, so every
    /// tool gives one answer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing pane; connection errors.
    pub async fn display(&self, target: &Target, parts: &[Part<'_>]) -> Result<String, Error> {
        if parts
            .iter()
            .any(|p| matches!(p, Part::Var(v) if CLIENT_COUNTS.contains(v)))
        {
            return self.display_counted(target, parts).await;
        }
        let q = Query::from_parts(&[parts.to_vec()]);
        let body = self.run(&pane_lookup(target, &q)).await?.into_result()?;
        let r = one_record(&q, &body, target)?;
        Ok(r.string(0))
    }

    /// [`Tmux::display`] for a format that counts a session's clients.
    ///
    /// The format is split into fields: the pane's `#{session_id}` first,
    /// then runs of other parts, and each count on its own as the raw
    /// `#{session_attached}`. One round trip also lists the clients, and
    /// the counts are put back with tmuxwire's clients of that session
    /// subtracted.
    async fn display_counted(&self, target: &Target, parts: &[Part<'_>]) -> Result<String, Error> {
        // Field kinds after the session id: `None` text, `Some(var)` a count.
        let mut fields: Vec<Vec<Part<'_>>> = vec![vec![Part::Var("session_id")]];
        let mut kinds: Vec<Option<&str>> = Vec::new();
        for p in parts {
            match p {
                Part::Var(v) if CLIENT_COUNTS.contains(v) => {
                    fields.push(vec![Part::Var("session_attached")]);
                    kinds.push(Some(v));
                }
                other => match (kinds.last(), fields.last_mut()) {
                    (Some(None), Some(f)) => f.push(other.clone()),
                    _ => {
                        fields.push(vec![other.clone()]);
                        kinds.push(None);
                    }
                },
            }
        }
        let q = Query::from_parts(&fields);
        let (body, ours) = super::op::list::with_own_clients(self, pane_lookup(target, &q)).await?;
        let r = one_record(&q, &body, target)?;
        let mine = ours.get(r.str(0)).copied().unwrap_or(0);
        let mut out = String::new();
        for (i, kind) in kinds.iter().enumerate() {
            let field = i + 1;
            match (kind, r.int(field)) {
                (Some("session_many_attached"), Some(n)) => {
                    out.push_str(if n - mine > 1 { "1" } else { "0" });
                }
                (Some(_), Some(n)) => out.push_str(&(n - mine).max(0).to_string()),
                _ => out.push_str(r.str(field)),
            }
        }
        Ok(out)
    }
}

/// Format variables that count a session's clients, and so would count
/// tmuxwire's own control clients.
const CLIENT_COUNTS: &[&str] = &["session_attached", "session_many_attached"];
