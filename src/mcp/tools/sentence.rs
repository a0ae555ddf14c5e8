//! What an action tool reports: libtmux-mcp's sentence, written here for
//! every action from what its operation did (`Pane killed: %3`, `Keys
//! sent to pane %3`), as structured content `{"result": …}` whose text
//! block is the sentence alone.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::text::{Rendered, TextShape};
use crate::tmux::op::buffers::{BufferDeleted, BufferPasted};
use crate::tmux::op::create::Piped;
use crate::tmux::op::deliver::Delivery;
use crate::tmux::op::kill::{Cleared, Killed};
use crate::tmux::op::typing::{KeysSent, TextPasted, TypedInto};

/// An action's report: the sentence, the pane acted on when there is one
/// (structured content only: the sentence names it), and for text typed
/// with Enter whether it arrived and was submitted. Fields that are
/// `None` are left out, so each action's object is libtmux-mcp's.
#[derive(Serialize, JsonSchema)]
pub(super) struct Sentence {
    /// libtmux-mcp's sentence.
    result: String,
    /// The pane acted on (`%N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pane_id: Option<String>,
    /// Whether typed text arrived and was submitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    delivery: Option<Delivery>,
}

impl Rendered for Sentence {
    const TEXT: TextShape = TextShape::String;
    const QUIET: &'static [&'static str] = &["pane_id"];
}

impl Sentence {
    /// A sentence that names no pane of its own.
    pub(super) fn new(result: String) -> Sentence {
        Sentence {
            result,
            pane_id: None,
            delivery: None,
        }
    }

    /// A sentence about the pane `pane_id`.
    fn on_pane(result: String, pane_id: String) -> Sentence {
        Sentence {
            pane_id: Some(pane_id),
            ..Sentence::new(result)
        }
    }
}

/// The reference's sentence, and the mode the pane was taken out of
/// first when it was in one (` (left copy-mode first)`).
fn left(reference: String, left_mode: Option<&str>) -> String {
    match left_mode {
        Some(m) => format!("{reference} (left {m} first)"),
        None => reference,
    }
}

impl From<Killed> for Sentence {
    fn from(k: Killed) -> Sentence {
        Sentence::new(match k {
            Killed::Server => "Server killed successfully".into(),
            Killed::Session(shown) => format!("Session killed: {shown}"),
            Killed::Window(w) => format!("Window killed: {w}"),
            Killed::Pane(p) => format!("Pane killed: {p}"),
        })
    }
}

impl From<Cleared> for Sentence {
    fn from(c: Cleared) -> Sentence {
        Sentence::on_pane(format!("Pane cleared: {}", c.pane_id), c.pane_id)
    }
}

impl From<Piped> for Sentence {
    fn from(p: Piped) -> Sentence {
        let result = match &p.to {
            Some(to) => format!("Piping pane {} to {}", p.pane_id, to.display()),
            None => format!("Piping stopped for pane {}", p.pane_id),
        };
        Sentence::on_pane(result, p.pane_id)
    }
}

impl From<BufferDeleted> for Sentence {
    fn from(d: BufferDeleted) -> Sentence {
        Sentence::new(format!("Buffer '{}' deleted", d.buffer_name))
    }
}

/// Text typed into `t`'s pane (`done`: `Keys sent to pane`), the mode
/// left first, and its delivery.
fn text_typed(done: &str, t: TypedInto) -> Sentence {
    let result = left(format!("{done} {}", t.pane_id), t.left_mode.as_deref());
    Sentence {
        delivery: t.delivery,
        ..Sentence::on_pane(result, t.pane_id)
    }
}

impl From<KeysSent> for Sentence {
    fn from(KeysSent(t): KeysSent) -> Sentence {
        text_typed("Keys sent to pane", t)
    }
}

impl From<TextPasted> for Sentence {
    fn from(TextPasted(t): TextPasted) -> Sentence {
        text_typed("Text pasted to pane", t)
    }
}

impl From<BufferPasted> for Sentence {
    fn from(p: BufferPasted) -> Sentence {
        let result = left(
            format!("Buffer '{}' pasted to pane {}", p.buffer_name, p.pane_id),
            p.left_mode.as_deref(),
        );
        Sentence::on_pane(result, p.pane_id)
    }
}
