//! `display_message`: a format expanded by a `list-panes` filtered to the
//! pane (see [`pane_lookup`](crate::tmux::target::pane_lookup) for why
//! not `display-message -t`); its text keeps its head when cut.

use schemars::JsonSchema;
use serde::Serialize;

use super::Server;
use super::fit::{Fit, head_within, json_len};
use crate::control::Target;
use crate::control::format::{Part, Query};
use crate::tmux::model::is_zero;
use crate::tmux::target::{one_record, pane_lookup};
use crate::tmux::{Error, Selector};

/// One piece of a `display_message` format, owned: literal text, or a
/// `#{name}` reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatPiece {
    /// Text printed as is.
    Literal(String),
    /// `#{name}`.
    Var(String),
}

/// `display_message`: literal text and `#{variable}` references expanded
/// for a pane.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing pane; connection errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DisplayMessageRequest {
    /// The pane (default: the active one).
    pub pane: Selector,
    /// The format, checked (plain references only; see
    /// `mcp::args::tmux_format`).
    pub format: Vec<FormatPiece>,
}

impl DisplayMessageRequest {
    /// A request for `parts` (as `mcp::args::tmux_format` checks them).
    pub fn new(pane: Selector, parts: &[Part<'_>]) -> DisplayMessageRequest {
        let format = parts
            .iter()
            .map(|p| match p {
                Part::Literal(t) => FormatPiece::Literal((*t).to_string()),
                Part::Var(v) => FormatPiece::Var((*v).to_string()),
            })
            .collect();
        DisplayMessageRequest { pane, format }
    }
}

op!(DisplayMessageRequest, TextResult, async |req, server, _| {
    let target = server.resolve_pane(&req.pane).await?;
    let parts: Vec<Part<'_>> = req
        .format
        .iter()
        .map(|p| match p {
            FormatPiece::Literal(t) => Part::Literal(t),
            FormatPiece::Var(v) => Part::Var(v),
        })
        .collect();
    Ok(TextResult {
        result: display(server, &target, &parts).await?,
        truncated_bytes: 0,
    })
});

/// `display_message`'s result.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TextResult {
    /// The expanded text.
    pub result: String,
    /// Bytes cut from its end to fit the response budget.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_bytes: usize,
}

/// A format is read from its start: the head that fits is kept.
impl Fit for TextResult {
    fn fit_to(&mut self, b: usize) {
        if json_len(self) <= b {
            return;
        }
        let fixed = json_len(&TextResult {
            result: String::new(),
            truncated_bytes: usize::MAX,
        });
        let head = head_within(&self.result, b.saturating_sub(fixed)).len();
        self.truncated_bytes = self.result.len() - head;
        self.result.truncate(head);
    }
}

/// Expands literal text and `#{variable}` references for a pane, as
/// `display-message -p` would but without its `strftime()` pass (so `%`
/// stays literal), with every literal character printed as given (`#`
/// included), and with an error for a missing pane (it uses
/// `list-panes -t`, not `display-message -t`, which passes silently).
/// Values arrive in one record (see [`crate::control::format`]), so they
/// come back exactly and cannot cut the answer.
///
/// `#{session_attached}` and `#{session_many_attached}` leave out
/// tmuxwire's own control clients, as `list_sessions` does, so every tool
/// gives one answer.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing pane; connection errors.
pub(super) async fn display(
    server: &Server,
    target: &Target,
    parts: &[Part<'_>],
) -> Result<String, Error> {
    if parts
        .iter()
        .any(|p| matches!(p, Part::Var(v) if CLIENT_COUNTS.contains(v)))
    {
        return display_counted(server, target, parts).await;
    }
    let q = Query::from_parts(&[parts.to_vec()]);
    let body = server.run(&pane_lookup(target, &q)).await?.into_result()?;
    // The query has one field: the whole expansion.
    let r = one_record(&q, &body, target)?;
    Ok(r.0.into_iter().next().unwrap_or_default())
}

/// [`display`] for a format that counts a session's clients.
///
/// The format is split into fields: the pane's `#{session_id}` first,
/// then each run of parts between the counts. One round trip also lists
/// the clients, and each count is put in as [`crate::tmux::model::Attached`]
/// counts that session's clients.
async fn display_counted(
    server: &Server,
    target: &Target,
    parts: &[Part<'_>],
) -> Result<String, Error> {
    // After the session id: `None` a field of text, `Some(var)` a count.
    let mut fields: Vec<Vec<Part<'_>>> = vec![vec![Part::Var("session_id")]];
    let mut kinds: Vec<Option<&str>> = Vec::new();
    for p in parts {
        match p {
            Part::Var(v) if CLIENT_COUNTS.contains(v) => kinds.push(Some(v)),
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
    let (body, attached) = super::list::with_attached(server, pane_lookup(target, &q)).await?;
    // The session, then one value per text field, in order.
    let mut values = one_record(&q, &body, target)?.0.into_iter();
    let session = values.next().unwrap_or_default();
    let n = attached.count(&session);
    let mut out = String::new();
    for kind in &kinds {
        match kind {
            Some("session_many_attached") => out.push_str(if n > 1 { "1" } else { "0" }),
            Some(_) => out.push_str(&n.to_string()),
            None => out.push_str(&values.next().unwrap_or_default()),
        }
    }
    Ok(out)
}

/// Format variables that count a session's clients, and so would count
/// tmuxwire's own control clients.
const CLIENT_COUNTS: &[&str] = &["session_attached", "session_many_attached"];
