//! The cheap questions a watch asks tmux: which panes exist (to adopt new
//! ones and notice gone ones), and does a copy still agree with its pane.

use super::pane::PaneMeta;
use crate::control::buffer::{capture_commands, captured};
use crate::control::client::Reply;
use crate::control::format::{Query, Record};
use crate::control::{Command, Encoding, Line, PaneId, SessionId, Target, TargetKind};
use crate::term::{LineNo, Term};

/// The format variables of a pane listing, in record order.
pub const LIST_FIELDS: &[&str] = &[
    "pane_id",
    "session_id",
    "session_name",
    "window_id",
    "window_name",
    "window_index",
    "pane_index",
    "pane_current_command",
    "pane_current_path",
    "pane_tty",
    "pane_dead",
    "pane_dead_status",
    "pane_width",
    "pane_height",
];

/// The format variables of a check, in record order.
pub const CHECK_FIELDS: &[&str] = &[
    "pane_id",
    "pane_width",
    "pane_height",
    "history_size",
    "cursor_x",
    "cursor_y",
    "alternate_on",
    "pane_in_mode",
    "pane_mode",
    "scroll_position",
];

/// The queries a mirror asks with (their nonces are the mirror's own).
#[derive(Clone, Debug)]
pub struct Queries {
    /// [`LIST_FIELDS`].
    pub list: Query,
    /// [`CHECK_FIELDS`].
    pub check: Query,
}

impl Queries {
    /// Fresh queries.
    pub fn new() -> Queries {
        Queries {
            list: Query::new(LIST_FIELDS),
            check: Query::new(CHECK_FIELDS),
        }
    }
}

impl Default for Queries {
    fn default() -> Self {
        Queries::new()
    }
}

/// `list-panes -a` with [`LIST_FIELDS`].
pub fn list_line(q: &Queries) -> Line {
    Line::from(
        Command::new("list-panes")
            .arg("-a")
            .opt("-F", q.list.template())
            .frame(q.list.frame()),
    )
}

/// One pane of a listing.
#[derive(Clone, Debug)]
pub struct Listed {
    /// The pane.
    pub pane: PaneId,
    /// A session showing it (a pane in several sessions is listed once per
    /// session).
    pub session: SessionId,
    /// What tmux said about it.
    pub meta: PaneMeta,
    /// Its program has exited (remain-on-exit kept it).
    pub dead: bool,
    /// The exit status, for a dead pane.
    pub exit_status: Option<i32>,
    /// Its size in cells (width, height).
    pub size: (u32, u32),
}

/// The panes of a [`list_line`] answer; `None` when tmux refused it (a
/// server with no sessions says so).
pub fn parse_list(reply: &Reply, q: &Queries) -> Option<Vec<Listed>> {
    let b = reply.blocks.first().filter(|b| b.ok)?;
    Some(q.list.parse(&b.body).iter().filter_map(listed).collect())
}

fn listed(r: &Record) -> Option<Listed> {
    Some(Listed {
        pane: r.str(0).parse().ok()?,
        session: r.str(1).parse().ok()?,
        meta: PaneMeta {
            session_id: r.string(1),
            session_name: r.string(2),
            window_id: r.string(3),
            window_name: r.string(4),
            window_index: r.string(5),
            pane_index: r.string(6),
            pane_current_command: r.string(7),
            pane_current_path: r.string(8),
            pane_tty: r.string(9),
        },
        dead: r.flag(10),
        exit_status: r.int(11).and_then(|v| i32::try_from(v).ok()),
        size: (
            r.int(12).and_then(|v| u32::try_from(v).ok()).unwrap_or(0),
            r.int(13).and_then(|v| u32::try_from(v).ok()).unwrap_or(0),
        ),
    })
}

/// The line that checks a copy: the pane's size, history size, cursor and
/// screen mode, then its visible rows, all at one moment.
pub fn check_line(pane: PaneId, q: &Queries, encoding: Encoding) -> Line {
    let target = Target::Pane(pane);
    let state = Command::new("list-panes")
        .target(&target, TargetKind::Window)
        .opt("-f", format!("#{{==:#{{pane_id}},{pane}}}"))
        .opt("-F", q.check.template())
        .frame(q.check.frame());
    let cap = Command::new("capture-pane")
        .arg("-p")
        .target(&target, TargetKind::Pane);
    let mut cmds = vec![state];
    cmds.extend(capture_commands(&cap, encoding));
    Line::list(cmds)
}

/// What a user sees of a pane besides its text: its mode (copy mode, …)
/// and where copy mode is scrolled. Read with every check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The pane is in a mode.
    pub in_mode: bool,
    /// The mode's name.
    pub mode: Option<String>,
    /// In copy mode: lines the view is scrolled up.
    pub scroll_position: Option<i64>,
}

/// The [`View`] in a [`check_line`] answer.
pub fn view(reply: &Reply, q: &Queries) -> Option<View> {
    let state = reply.blocks.first().filter(|b| b.ok)?;
    let r = q.check.parse(&state.body).into_iter().next()?;
    Some(View {
        in_mode: r.flag(7),
        mode: Some(r.string(8)).filter(|s| !s.is_empty()),
        scroll_position: r.int(9),
    })
}

/// Whether `term` agrees with a [`check_line`] answer: same size, history
/// size, cursor and screen mode, and the same visible rows.
pub fn agrees(term: &Term, reply: &Reply, q: &Queries) -> bool {
    let Some(state) = reply.blocks.first().filter(|b| b.ok) else {
        return false;
    };
    let Some(r) = q.check.parse(&state.body).into_iter().next() else {
        return false;
    };
    let Ok(screen) = captured(reply.blocks[1..].to_vec()) else {
        return false;
    };
    let (w, h) = term.size();
    let cursor = term.cursor();
    let same_state = r.int(1) == Some(i64::from(w))
        && r.int(2) == Some(i64::from(h))
        && r.int(3) == i64::try_from(term.history_size()).ok()
        && r.int(4) == Some(i64::from(cursor.x.0))
        && r.int(5) == Some(i64::from(cursor.y.0))
        && r.flag(6) == term.alternate_on();
    same_state && screen == term.capture_tmux(LineNo(0), LineNo(i64::from(h) - 1))
}
