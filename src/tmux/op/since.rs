//! `capture_since`: the lines of a pane that are new since a cursor, read
//! from the pane's mirrored copy (followed and confirmed by tmux first,
//! [`crate::tmux::wait::follow`]). The cursor is decoded when the request
//! is built ([`SinceCursor::decode`]); the answers and the pure parts
//! (cursors, the caps of the lines) are [`crate::tmux::pane_text`]'s.

use std::time::Instant;

use super::fit::{Fit, Limit, json_len};
use super::shape::Shape;
use super::{Op, Server};
use crate::control::PaneId;
use crate::mirror::lines::{Keep, Since, cursor_spot, lines_since};
use crate::mirror::{Status, Want};
use crate::term::{LineIndex, Term, fingerprint};
use crate::tmux::pane_text::{CaptureSinceResult, SinceCursor, find_line, line_text, lossy};
use crate::tmux::wait::{Followed, follow_with, pane_id};
use crate::tmux::{Error, Selector};

/// `capture_since`: the lines of a pane that are new since a cursor (see
/// [`capture_since`]).
#[derive(Clone, Debug)]
pub struct CaptureSinceRequest {
    /// The pane.
    pub pane: Selector,
    /// Where the previous answer stopped; `None`: the visible screen.
    pub cursor: Option<SinceCursor>,
    /// Lines an answer holds at most.
    pub max_lines: usize,
    /// Bytes of text an answer holds at most (whole lines; a single longer
    /// line is cut).
    pub max_bytes: usize,
    /// Which lines an answer keeps when more are new: the oldest (the
    /// default: the cursor stops after them, nothing is lost) or the
    /// newest (libtmux-mcp: older ones are skipped).
    pub keep: Keep,
    /// Which of the lines an answer takes it returns ([`Shape`]); the
    /// cursor moves past them all.
    pub shape: Shape,
    /// Take the mirror's copy as it is (the tool's `fenced: false`;
    /// [`Want::AsIs`]) where it would be fenced.
    pub as_is: bool,
}

impl CaptureSinceRequest {
    /// A request for `pane` after `cursor` (decoded from the text a
    /// previous answer gave, [`SinceCursor::decode`]). Without a pane,
    /// session or window named, the cursor's pane.
    pub fn new(
        mut pane: Selector,
        cursor: Option<SinceCursor>,
        max_lines: usize,
        max_bytes: usize,
    ) -> CaptureSinceRequest {
        if let Some(c) = &cursor
            && pane == Selector::default()
        {
            pane.pane_id = Some(c.pane);
        }
        CaptureSinceRequest {
            pane,
            cursor,
            max_lines,
            max_bytes,
            keep: Keep::Oldest,
            shape: Shape::default(),
            as_is: false,
        }
    }
}

impl Op for CaptureSinceRequest {
    type Response = CaptureSinceResult;

    async fn run(self, server: &Server, limit: Limit) -> Result<CaptureSinceResult, Error> {
        let pane = pane_id(server, &self.pane).await?;
        // The byte limit also keeps the answer within the response limit
        // (escaping can make a line's JSON longer than its text; the fit
        // makes sure).
        let cap = limit
            .get()
            .map_or(usize::MAX, |b| b.saturating_sub(4096) / 2);
        let mut r = capture_since(
            server,
            pane,
            self.cursor.as_ref(),
            self.max_lines,
            self.max_bytes.min(cap),
            self.keep,
            self.as_is,
        )
        .await?;
        if self.shape.is_active() {
            // Cut first, so the cursor stays where the lines taken end;
            // the shape then picks which of them are returned, and the
            // answer only shrinks (the fit after this one keeps it).
            r.fit(limit);
            r.lines_omitted = self.shape.apply(&mut r.lines, String::as_str);
        }
        Ok(r)
    }

    fn redacting(self, on: bool) -> CaptureSinceRequest {
        let shape = Shape {
            redact: on,
            ..self.shape
        };
        CaptureSinceRequest { shape, ..self }
    }

    fn reads_only(&self) -> bool {
        true
    }
}

impl Fit for CaptureSinceResult {
    /// Leaves out lines (an eighth at a time) until the answer fits: the
    /// newest with `keep: "oldest"` (the cursor moves back before them, so
    /// the next call returns them: `lines_remaining`), the oldest with
    /// `keep: "newest"` (counted in `truncated_lines` and
    /// `truncated_bytes`). A single line left is cut in half until it fits.
    fn fit_to(&mut self, b: usize) {
        while json_len(self) > b && !self.lines.is_empty() {
            self.truncated = true;
            if self.lines.len() == 1 {
                let l = &mut self.lines[0];
                let mut at = l.len() / 2;
                while !l.is_char_boundary(at) {
                    at -= 1;
                }
                self.truncated_bytes += l.len() - at;
                l.truncate(at);
                if at == 0 {
                    break;
                }
                continue;
            }
            let n = self.lines.len().div_ceil(8).min(self.lines.len() - 1);
            if self.resume.keep == Keep::Oldest && self.resume.moves {
                let keep = self.lines.len() - n;
                self.lines.truncate(keep);
                self.resume.hashes.truncate(keep);
                self.lines_remaining += n as u64;
                self.truncated_lines += n;
                let mut c = self.resume.cursor;
                c.next = c.next + keep as u64;
                c.hash = self.resume.hashes.last().copied().unwrap_or(c.hash);
                self.cursor = c.encode();
            } else {
                for l in self.lines.drain(..n) {
                    self.truncated_bytes += l.len();
                    self.truncated_lines += 1;
                }
                self.resume.hashes.drain(..n);
            }
        }
    }
}

/// The lines of `pane` that are new since `cursor` (see
/// [`CaptureSinceResult`]); without a cursor, the visible screen's
/// complete lines.
///
/// At most `max_lines` lines and `max_bytes` bytes of text are returned;
/// `keep` says which when more are new: [`Keep::Oldest`] returns the
/// oldest and a cursor just after them (`lines_remaining` counts the
/// rest, which the next call returns), [`Keep::Newest`] skips the older
/// ones (libtmux-mcp). A single line longer than `max_bytes` is cut to
/// its first `max_bytes` bytes (the rest is counted in
/// `truncated_bytes`), so a follower always moves on.
///
/// A pane that is gone answers from its last copy until every line was
/// returned (`pane_dead`, `lines_remaining` 0 on the last answer);
/// with `as_is` its last copy is taken as it is ([`follow_or_last`]).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a cursor of another pane or server,
/// or of a pane that was respawned; [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a pane
/// that is gone and whose lines have all been returned (or whose copy
/// was dropped).
pub(super) async fn capture_since(
    server: &Server,
    pane: PaneId,
    cursor: Option<&SinceCursor>,
    max_lines: usize,
    max_bytes: usize,
    keep: Keep,
    as_is: bool,
) -> Result<CaptureSinceResult, Error> {
    let started = Instant::now();
    let f = follow_or_last(server, pane, as_is).await?;
    let server_pid = server.mirrored_server_pid().await.unwrap_or(0);
    if let Some(c) = cursor {
        check_cursor(c, server_pid, pane, f.pid)?;
    }
    // A snapshot: finding the cursor's line may walk the history.
    let st = f.pane.snapshot();
    let dead = st.status() == Status::Dead;
    let Some(t) = st.term() else {
        return Err(Error::not_found(format!("can't find pane: {pane}")));
    };
    let alternate = t.alternate_on();
    let (from, mut missed) = resume_from(t, cursor, alternate);
    let since = if alternate && cursor.is_some() {
        Since {
            first: from,
            lines: Vec::new(),
            cursor_line: from,
            partial: Vec::new(),
        }
    } else {
        lines_since(t, from, max_lines, keep)
    };
    if since.first > from {
        let trimmed = from < t.history().first_index();
        missed |= trimmed;
    }
    if dead && since.lines.is_empty() && cursor.is_some() {
        return Err(Error::not_found(format!(
            "pane {pane} is dead and all of its output has been returned"
        )));
    }
    // Lines between the cursor and the first line returned, trimmed by
    // tmux or skipped for the newest (libtmux-mcp counts both).
    let skipped = (since.cursor_line.0.saturating_sub(from.0) as usize)
        .saturating_sub(since.lines.len() + since.remaining() as usize);
    let cut = keep_bytes(since.lines, max_bytes, keep);
    let first = since.first + cut.dropped_front as u64;
    let next = if alternate && cursor.is_some() {
        from
    } else if keep == Keep::Newest {
        since.cursor_line
    } else {
        first + cut.lines.len() as u64
    };
    let lines_remaining = since.cursor_line.0.saturating_sub(next.0);
    let truncated_lines = if keep == Keep::Newest {
        skipped + cut.dropped_front
    } else {
        lines_remaining as usize
    };
    let hash_before = if first.0 == 0 {
        0
    } else {
        line_text(t, LineIndex(first.0 - 1)).map_or(0, |l| fingerprint(&l))
    };
    let hash = if next == first {
        hash_before
    } else {
        cut.hashes.last().copied().unwrap_or(0)
    };
    let new_cursor = SinceCursor {
        server_pid,
        pane,
        pane_pid: f.pid,
        next,
        hash,
    };
    Ok(CaptureSinceResult {
        pane_id: pane.to_string(),
        cursor: new_cursor.encode(),
        lines: cut.lines,
        partial_line: lossy(&since.partial),
        elapsed_seconds: started.elapsed().as_secs_f64(),
        lines_missed: missed,
        truncated: truncated_lines > 0 || cut.bytes > 0,
        truncated_lines,
        truncated_bytes: cut.bytes,
        lines_omitted: 0,
        lines_remaining,
        alternate_screen: alternate,
        pane_dead: dead,
        resume: crate::tmux::pane_text::Resume {
            cursor: SinceCursor {
                next: first,
                hash: hash_before,
                ..new_cursor
            },
            hashes: cut.hashes,
            keep,
            moves: !(alternate && cursor.is_some()),
        },
    })
}

/// [`follow`], or for a pane tmux no longer has, its last copy (marked
/// dead) once the watch that fed it has answered a question asked after
/// the pane went: tmux sends a pane's output before any later answer on
/// the same connection, so the copy then holds every byte the pane
/// printed (with `as_is`, a copy a live watch still feeds is taken as it
/// is: [`Want::AsIs`]). The pid of a gone pane is not known (0: not
/// checked).
async fn follow_or_last(server: &Server, pane: PaneId, as_is: bool) -> Result<Followed, Error> {
    // With the history: lines a follower has not read may have scrolled
    // into it while the copy was seeded again.
    let gone = match follow_with(server, pane, Want::History, None, None).await {
        Err(e) if e.kind() == crate::tmux::ErrorKind::NotFound => e,
        r => return r,
    };
    let Some(m) = server.mirror().await else {
        return Err(gone);
    };
    let Some(p) = m.pane(pane).filter(|p| p.view().term().is_some()) else {
        return Err(match m.dropped(pane) {
            Some(why) => Error::not_found(format!("pane {pane} is gone: {why}")),
            None => gone,
        });
    };
    if p.view().status() != Status::Dead {
        m.refresh(&[pane], Want::current(as_is)).await;
        p.mark_dead();
    }
    Ok(Followed {
        pane: p,
        pid: 0,
        command: String::new(),
    })
}

/// Checks that cursor `c` continues this copy: the same server, the pane
/// asked for, the same program (`pane_pid`; 0 when unknown).
fn check_cursor(
    c: &SinceCursor,
    server_pid: u32,
    pane: PaneId,
    pane_pid: u32,
) -> Result<(), Error> {
    if c.server_pid != server_pid {
        return Err(Error::invalid(
            "cursor",
            "the cursor is from another tmux server (or the server was restarted)",
            "a cursor returned by capture_since on this server, or null to start over",
        ));
    }
    if c.pane != pane {
        return Err(Error::invalid(
            "cursor",
            format!(
                "cursor pane {} does not match requested pane {pane}",
                c.pane
            ),
            "the pane the cursor came from, or no target (the cursor's pane is used)",
        ));
    }
    if pane_pid != 0 && c.pane_pid != pane_pid {
        return Err(Error::invalid(
            "cursor",
            format!(
                "pane {pane} was respawned (pid {} -> {}); its earlier output is gone",
                c.pane_pid, pane_pid
            ),
            "null, to start over from the visible screen",
        ));
    }
    Ok(())
}

/// The first line of `t` a `capture_since` after `cursor` returns, and
/// whether lines the follower had not read are gone.
///
/// Line indexes survive what tmux drops (trims, `clear-history`) and a
/// copy seeded again ([`crate::mirror::lines::continued_first`]), so the
/// cursor's `next` is trusted: lines before the oldest one held that the
/// follower had not read were dropped (`lines_missed`). The hash of the
/// last line returned confirms the numbering while that line is held; a
/// line held with another text is looked for by its hash (the newest one
/// before the cursor), and when none has it (it was written over in
/// place), the numbering stands. A cursor past the cursor's line (a copy
/// numbered anew) starts at the cursor's line, saying lines may be lost.
fn resume_from(t: &Term, cursor: Option<&SinceCursor>, alternate: bool) -> (LineIndex, bool) {
    let Some(c) = cursor else {
        return (t.history().end_index(), false);
    };
    if alternate {
        return (cursor_spot(t).line, false);
    }
    let first = t.history().first_index();
    if c.next.0 == 0 || LineIndex(c.next.0 - 1) < first {
        // The last line returned is no longer held.
        return (c.next, c.next < first);
    }
    let last = LineIndex(c.next.0 - 1);
    if line_text(t, last).map(|l| fingerprint(&l)) == Some(c.hash) {
        return (c.next, false);
    }
    if let Some(i) = find_line(t, c.hash, c.next) {
        return (i + 1, false);
    }
    let at = cursor_spot(t).line;
    if c.next > at {
        return (at, true);
    }
    (c.next, false)
}

/// What [`keep_bytes`] kept of some lines.
struct Kept {
    /// The lines, as text.
    lines: Vec<String>,
    /// Each line's [`fingerprint`] (of its bytes, before any cut).
    hashes: Vec<u64>,
    /// Lines left out before the first kept one ([`Keep::Newest`]).
    dropped_front: usize,
    /// Bytes left out (line breaks not counted), of left-out lines and of
    /// a line cut to fit.
    bytes: usize,
}

/// `lines`, at most `max_bytes` of text (line breaks not counted): whole
/// lines, the oldest ([`Keep::Oldest`], the rest left for the next
/// answer, not counted in `bytes`) or the newest ([`Keep::Newest`], the
/// older counted as left out). When not even one line fits, its first
/// `max_bytes` bytes (on a character boundary) are kept, so an answer
/// always moves on.
fn keep_bytes(lines: Vec<Vec<u8>>, max_bytes: usize, keep: Keep) -> Kept {
    let total: usize = lines.iter().map(Vec::len).sum();
    let mut out = Kept {
        lines: Vec::new(),
        hashes: Vec::new(),
        dropped_front: 0,
        bytes: 0,
    };
    let n = lines.len();
    let (mut take, mut size) = (0usize, 0usize);
    match keep {
        Keep::Oldest => {
            while take < n && size + lines[take].len() <= max_bytes {
                size += lines[take].len();
                take += 1;
            }
            let mut lines = lines;
            lines.truncate(take.max(1).min(n));
            for l in lines {
                out.hashes.push(fingerprint(&l));
                let mut text = lossy(&l);
                if take == 0 && text.len() > max_bytes {
                    let mut at = max_bytes;
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    out.bytes += text.len() - at;
                    text.truncate(at);
                }
                out.lines.push(text);
            }
        }
        Keep::Newest => {
            let mut rest = total;
            let mut from = 0;
            while rest > max_bytes && from < n {
                rest -= lines[from].len();
                out.bytes += lines[from].len();
                from += 1;
            }
            out.dropped_front = from;
            for l in lines.into_iter().skip(from) {
                out.hashes.push(fingerprint(&l));
                out.lines.push(lossy(&l));
            }
        }
    }
    out
}
