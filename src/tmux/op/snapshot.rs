//! `snapshot_pane`: the visible screen and the pane's state in one
//! write, cut to the caller's [`Limit`] by keeping the newest lines.

use schemars::JsonSchema;
use serde::Serialize;

use super::capture::{NEXT_ROOM, Next, mask_rows, state_and_text, text_lines};
use super::fit::{Fit, Limit, SLACK, fit_room, json_len};
use super::{Op, Server};
use crate::control::{Command, Target};
use crate::term::{keep_tail, split_lines};
use crate::tmux::model::{PaneSnapshot, is_zero};
use crate::tmux::{Error, Selector};

/// `snapshot_pane`: the visible screen and the pane's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotPaneRequest {
    /// The pane (default: the active one).
    pub pane: Selector,
    /// Keep only the last this many rows (`None`: all).
    pub max_lines: Option<usize>,
    /// Redaction is on: the rows have their secrets masked here, read
    /// with the pane's width (see [`CapturePaneRequest::redact`]).
    pub redact: bool,
}

impl Op for SnapshotPaneRequest {
    type Response = SnapshotResult;

    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] for a missing pane; connection errors.
    async fn run(self, server: &Server, _: Limit) -> Result<SnapshotResult, Error> {
        let target = server.resolve_pane(&self.pane).await?;
        let snapshot = snapshot(server, &target, self.max_lines).await?;
        let mut r = SnapshotResult::new(snapshot);
        if self.redact {
            r.redacted = mask_rows(&mut r.rows, u32::try_from(r.snapshot.pane_width).ok());
            r.finish();
        }
        Ok(r)
    }

    fn redacting(self, on: bool) -> SnapshotPaneRequest {
        SnapshotPaneRequest { redact: on, ..self }
    }

    fn reads_only(&self) -> bool {
        true
    }
}

/// `snapshot_pane`'s result: the snapshot (sizes as strings), its content
/// cut to the newest rows that fit, and how to get the rows cut.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SnapshotResult {
    /// The snapshot; `content_truncated` and `content_truncated_lines`
    /// count the rows cut by `max_lines` and by the response budget.
    #[serde(flatten)]
    pub snapshot: PaneSnapshot,
    /// Bytes of the rows cut to fit the response budget (left out when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub content_truncated_bytes: usize,
    /// How to get the rows cut (left out when none were).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Next>,
    /// Secrets masked in the rows (`--redact`); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    /// The rows `content` holds, kept to cut them.
    #[serde(skip)]
    #[schemars(skip)]
    rows: Vec<String>,
}

impl SnapshotResult {
    /// The uncut result for `snapshot`.
    pub fn new(snapshot: PaneSnapshot) -> SnapshotResult {
        let rows = if snapshot.content.is_empty() {
            Vec::new()
        } else {
            snapshot.content.split('\n').map(str::to_string).collect()
        };
        let mut r = SnapshotResult {
            snapshot,
            content_truncated_bytes: 0,
            next: None,
            redacted: None,
            rows,
        };
        r.finish();
        r
    }

    /// Writes `content`, the truncation fields and `next` from the rows
    /// kept.
    fn finish(&mut self) {
        let s = &mut self.snapshot;
        let cut = s.content_truncated_lines;
        s.content = self.rows.join("\n");
        s.content_truncated = cut > 0;
        // The content starts at row 0; the rows cut are its first ones.
        self.next = (cut > 0).then(|| Next {
            pane_id: s.pane_id.clone(),
            start: 0,
            end: cut - 1,
            max_lines: Some(usize::try_from(cut).unwrap_or(usize::MAX)),
            grep: None,
            context: 0,
        });
    }
}

/// Keeps the newest rows that fit the limit with room for the other
/// fields and `next`; without a limit, all of them.
impl Fit for SnapshotResult {
    fn fit_to(&mut self, b: usize) {
        let mut bare = self.clone();
        bare.snapshot.content.clear();
        bare.content_truncated_bytes = usize::MAX;
        bare.next = None;
        let fixed = json_len(&bare) + NEXT_ROOM + SLACK;
        let (drop, bytes) = fit_room(&mut self.rows, b.saturating_sub(fixed));
        self.snapshot.content_truncated_lines += i64::try_from(drop).unwrap_or(i64::MAX);
        self.content_truncated_bytes = bytes;
        self.finish();
    }
}

/// The visible screen and the pane's state, in one round trip.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing pane; connection errors.
pub(super) async fn snapshot(
    server: &Server,
    target: &Target,
    max_lines: Option<usize>,
) -> Result<PaneSnapshot, Error> {
    let cap = Command::new("capture-pane").arg("-p").arg("-e");
    let (rec, body) = state_and_text(server, target, PaneSnapshot::FIELDS, cap).await?;
    let body = crate::term::plain_capture(&body);
    let mut snap = PaneSnapshot::from_record(&rec, |id| server.is_caller(id));
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
