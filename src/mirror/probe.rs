//! The cheap questions a watch asks tmux: which panes exist (to adopt new
//! ones and notice gone ones), is every copy of a session current (the
//! fence a request waits for), and does a copy still agree with its pane.

use super::pane::{PaneMeta, PaneMode, by_name};
use crate::control::buffer::{capture_commands, captured};
use crate::control::client::Reply;
use crate::control::format::{Query, Record};
use crate::control::{Command, Encoding, Line, PaneId, SessionId, Target, TargetKind};
use crate::term::{LineNo, Term};

crate::record! {
    /// What a pane listing says besides the pane's [`PaneMeta`].
    struct ListRow {
        pane_id: String = "pane_id",
        session_id: String = "session_id",
        dead: bool = "pane_dead",
        dead_status: Option<i64> = "pane_dead_status",
        width: u32 = "pane_width",
        height: u32 = "pane_height",
    }
}

/// The format variables of a pane listing: the pane, its session, its
/// dead flag and status and its size, then
/// [`PaneMeta::FIELDS`] (`session_id`, which both read, is asked once).
pub fn list_fields() -> Vec<&'static str> {
    let mut fields = ListRow::FIELDS.to_vec();
    fields.extend(
        PaneMeta::FIELDS
            .iter()
            .filter(|f| !ListRow::FIELDS.contains(f)),
    );
    fields
}

crate::record! {
    /// What a fence or a check compares of a pane: its size, history,
    /// cursor, screen and the options its layout follows.
    #[derive(Clone, Debug)]
    struct StateRow {
        // The pane (a check's filter chose it; a fence lists every pane
        // of the session).
        pane_id: String = "pane_id",
        width: Option<i64> = "pane_width",
        height: Option<i64> = "pane_height",
        history_size: Option<i64> = "history_size",
        history_limit: Option<i64> = "history_limit",
        cursor_x: Option<i64> = "cursor_x",
        cursor_y: Option<i64> = "cursor_y",
        alternate_on: bool = "alternate_on",
        // The options a copy's layout follows (read when it was seeded):
        // one changed at run time (`set -g variation-selector-always-wide
        // off`) changes how tmux lays out what comes next, which no
        // output tells.
        scroll_on_clear: Option<String> = "scroll-on-clear",
        alternate_screen: Option<String> = "alternate-screen",
        vs16_wide: Option<String> = "variation-selector-always-wide",
    }
}

/// A check's pane state (the visible rows follow in the same answer),
/// or one pane's record in a fence: a [`StateRow`], then a [`PaneMode`].
#[derive(Clone, Debug)]
struct CheckRow {
    state: StateRow,
    mode: PaneMode,
}

impl CheckRow {
    /// From a record of [`CHECK_FIELDS`].
    fn from_record(r: &Record) -> CheckRow {
        CheckRow {
            state: StateRow::from_record(r),
            mode: PaneMode::from_record_at(r, StateRow::FIELDS.len()),
        }
    }
}

/// The format variables of a check, in record order.
pub const CHECK_FIELDS: &[&str] = &crate::concat_fields!(StateRow, PaneMode);

/// The line that fences every copy a watch feeds: `list-panes -s -t $S`
/// with [`CHECK_FIELDS`], one record per pane of the session and no
/// capture. Its answer comes after all output tmux parsed before the
/// command ran (see [`super::watch`]), so once it is in, each copy the
/// connection feeds holds at least everything its pane printed before the
/// request; the records then tell whether each copy's size, history size,
/// cursor and screen agree with tmux's (the visible rows are compared in
/// the background: [`check_line`]). One round trip per session, whatever
/// the number of panes; tmux formats a short record per pane.
/// `text_only`: for a request that reads only the copies' text (a
/// search), the records leave out the pane's mode ([`StateRow`]'s
/// fields alone; the copy keeps the mode it knew).
pub fn fence_line(session: SessionId, q: &Queries, text_only: bool) -> Line {
    let query = if text_only { &q.text } else { &q.check };
    Line::from(
        Command::new("list-panes")
            .arg("-s")
            .target(&Target::Session(session), TargetKind::Session)
            .opt("-F", query.template())
            .frame(query.frame()),
    )
}

crate::record! {
    /// What a [`barrier_line`] prints: the session, and the options a
    /// copy's layout follows as its active pane has them.
    #[derive(Clone, Debug)]
    pub struct BarrierRow {
        session_id: String = "session_id",
        scroll_on_clear: Option<String> = "scroll-on-clear",
        alternate_screen: Option<String> = "alternate-screen",
        vs16_wide: Option<String> = "variation-selector-always-wide",
    }
}

impl BarrierRow {
    /// The session tmux printed it for.
    pub fn session(&self) -> Option<SessionId> {
        self.session_id.parse().ok()
    }

    /// Whether `term` follows the options this row says (a copy of a pane
    /// with options of its own other than its session's active pane's
    /// does not, and is compared by a [`fence_line`]).
    pub fn options_agree(&self, term: &Term) -> bool {
        options_agree(
            term,
            [
                &self.scroll_on_clear,
                &self.alternate_screen,
                &self.vs16_wide,
            ],
        )
    }
}

/// The line that fences every copy a watch feeds at a constant cost:
/// `display-message -p -t $S` of [`BarrierRow`], one short line whatever
/// the number of panes. Its answer, like any command's, comes after all
/// output tmux parsed before it ran (see [`super::watch`]), so once it
/// is in each copy the connection feeds holds everything its pane
/// printed before; unlike [`fence_line`] it says nothing of each copy's
/// size, history or cursor, which the next [`fence_line`] compares. It
/// does say the options a copy's layout follows, as the session's active
/// pane has them (a `set -g` by another client, which no output tells,
/// is seen at once). A session tmux no longer has is refused.
pub fn barrier_line(session: SessionId, q: &Queries) -> Line {
    Line::from(
        Command::new("display-message")
            .arg("-p")
            .target(&Target::Session(session), TargetKind::Session)
            .arg(q.barrier.template())
            .frame(q.barrier.frame()),
    )
}

/// The record of a [`barrier_line`] answer; `None` when tmux refused it
/// (the session is gone) or it does not parse.
pub fn parse_barrier(reply: &Reply, q: &Queries) -> Option<BarrierRow> {
    let b = reply.blocks.first().filter(|b| b.ok)?;
    q.barrier
        .parse(&b.body)
        .first()
        .map(BarrierRow::from_record)
}

/// The records of a [`fence_line`] answer (asked with `text_only`), by
/// pane; `None` when tmux refused it (the session is gone).
pub fn parse_fence(
    reply: &Reply,
    q: &Queries,
    text_only: bool,
) -> Option<std::collections::HashMap<PaneId, FenceRow>> {
    let b = reply.blocks.first().filter(|b| b.ok)?;
    let query = if text_only { &q.text } else { &q.check };
    Some(
        query
            .parse(&b.body)
            .iter()
            .filter_map(|r| {
                let row = if text_only {
                    FenceRow(StateRow::from_record(r), None)
                } else {
                    let CheckRow { state, mode } = CheckRow::from_record(r);
                    FenceRow(state, Some(mode))
                };
                Some((row.0.pane_id.parse().ok()?, row))
            })
            .collect(),
    )
}

/// One pane's record in a [`fence_line`] answer: its state, and its mode
/// but in a text fence's.
#[derive(Clone, Debug)]
pub struct FenceRow(StateRow, Option<PaneMode>);

impl FenceRow {
    /// The pane's mode and copy-mode scroll; `None` in a text fence's
    /// record.
    pub fn mode(&self) -> Option<PaneMode> {
        self.1.clone()
    }

    /// What the record says of `term`: [`Verdict::Differs`] unless its
    /// size, cursor and screen (main or alternate) are tmux's; then what
    /// its history size (held and [absent](Term::history_absent)) and
    /// limit say ([`history_verdict`]). The visible rows are not in a
    /// fence (compared in the background: [`check_line`]).
    pub fn verdict(&self, term: &Term) -> Verdict {
        if state_agrees(term, &self.0) {
            history_of(term, &self.0)
        } else {
            Verdict::Differs
        }
    }
}

/// The queries a mirror asks with (their nonces are the mirror's own).
#[derive(Clone, Debug)]
pub struct Queries {
    /// [`list_fields`].
    pub list: Query,
    /// Its fields, for reading its records by name.
    list_fields: Vec<&'static str>,
    /// [`CHECK_FIELDS`].
    pub check: Query,
    /// [`StateRow`]'s fields (a text fence).
    pub text: Query,
    /// [`BarrierRow`]'s fields.
    pub barrier: Query,
}

impl Queries {
    /// Fresh queries.
    pub fn new() -> Queries {
        let list_fields = list_fields();
        Queries {
            list: Query::new(&list_fields),
            list_fields,
            check: Query::new(CHECK_FIELDS),
            text: Query::new(StateRow::FIELDS),
            barrier: Query::new(BarrierRow::FIELDS),
        }
    }
}

impl Default for Queries {
    fn default() -> Self {
        Queries::new()
    }
}

/// `list-panes -a` with [`list_fields`].
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
    Some(
        q.list
            .parse(&b.body)
            .iter()
            .filter_map(|r| listed(r, &q.list_fields))
            .collect(),
    )
}

fn listed(r: &Record, fields: &[&str]) -> Option<Listed> {
    let row = ListRow::from_record(&by_name(r, fields, ListRow::FIELDS));
    Some(Listed {
        pane: row.pane_id.parse().ok()?,
        session: row.session_id.parse().ok()?,
        meta: PaneMeta::of(r, fields),
        dead: row.dead,
        exit_status: row.dead_status.and_then(|v| i32::try_from(v).ok()),
        size: (row.width, row.height),
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

/// The pane state of a [`check_line`] answer.
fn check_row(reply: &Reply, q: &Queries) -> Option<CheckRow> {
    let state = reply.blocks.first().filter(|b| b.ok)?;
    let r = q.check.parse(&state.body).into_iter().next()?;
    Some(CheckRow::from_record(&r))
}

/// The [`PaneMode`] in a [`check_line`] answer.
pub fn mode(reply: &Reply, q: &Queries) -> Option<PaneMode> {
    Some(check_row(reply, q)?.mode)
}

/// What a [`check_line`] answer says of a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The copy agrees: same size, history size and limit, cursor and
    /// screen mode, and the same visible rows.
    Agrees,
    /// The copy agrees once its history limit is `limit` rows and only
    /// its newest `rows` history rows are left: tmux dropped the oldest
    /// ones itself, which no output tells a control client
    /// (`clear-history`, cmd-clear-history.c `grid_clear_history()`; a
    /// lowered `history-limit`, which tmux ≥ 3.7 applies to every pane at
    /// once, session.c `session_update_history()`). tmux only ever drops
    /// history from its oldest row, so the rows the copy keeps are the
    /// ones tmux holds ([`Term::match_history`]).
    Trimmed {
        /// The history rows tmux holds (`#{history_size}`).
        rows: usize,
        /// The pane's limit (`#{history_limit}`).
        limit: usize,
    },
    /// The copy differs: seed it again.
    Differs,
}

/// What a [`check_line`] answer says of `term` ([`Verdict`]).
pub fn verdict(term: &Term, reply: &Reply, q: &Queries) -> Verdict {
    let Some(r) = check_row(reply, q) else {
        return Verdict::Differs;
    };
    let Ok(screen) = captured(reply.blocks[1..].to_vec()) else {
        return Verdict::Differs;
    };
    let (_, h) = term.size();
    if !state_agrees(term, &r.state)
        || screen != term.capture_tmux(LineNo(0), LineNo(i64::from(h) - 1))
    {
        return Verdict::Differs;
    }
    history_of(term, &r.state)
}

/// Whether `term`'s size, cursor, screen mode and the options its layout
/// follows are the ones in `r` (its history: [`history_of`]).
fn state_agrees(term: &Term, r: &StateRow) -> bool {
    let (w, h) = term.size();
    let cursor = term.cursor();
    options_agree(
        term,
        [&r.scroll_on_clear, &r.alternate_screen, &r.vs16_wide],
    ) && r.width == Some(i64::from(w))
        && r.height == Some(i64::from(h))
        && r.cursor_x == Some(i64::from(cursor.x.0))
        && r.cursor_y == Some(i64::from(cursor.y.0))
        && r.alternate_on == term.alternate_on()
}

/// Whether `term` follows the options tmux printed, in order
/// `scroll-on-clear`, `alternate-screen`,
/// `variation-selector-always-wide`. An option tmux does not have (older
/// versions) expands to nothing: not compared.
fn options_agree(
    term: &Term,
    [scroll_on_clear, alternate_screen, vs16_wide]: [&Option<String>; 3],
) -> bool {
    let o = term.options();
    let same = |v: &Option<String>, copy: bool| match v.as_deref().map(str::trim) {
        Some("on" | "1") => copy,
        Some("off" | "0") => !copy,
        _ => true,
    };
    same(scroll_on_clear, o.scroll_on_clear)
        && same(alternate_screen, o.alternate_screen)
        && same(vs16_wide, o.variation_selector_always_wide)
}

/// [`history_verdict`] of `term`'s history against the one in `r`: the
/// copy's rows are those it holds plus those it never read
/// ([`Term::history_absent`]), as tmux's `history_size` counts both.
fn history_of(term: &Term, r: &StateRow) -> Verdict {
    history_verdict(
        (
            term.history_size() + term.history_absent(),
            term.history_limit(),
        ),
        r.history_size,
        r.history_limit,
    )
}

/// The history part of [`verdict`], for a copy whose screen agrees: the
/// copy holds `copy` (rows, limit), tmux says `rows` and `limit` (a
/// missing or negative field: [`Verdict::Differs`]). Fewer rows in tmux
/// are rows it dropped ([`Verdict::Trimmed`]); more are rows the copy
/// lacks (a copy over the mirror's memory cap, or one trimmed sooner than
/// tmux after a clear): seed again.
pub fn history_verdict(copy: (usize, usize), rows: Option<i64>, limit: Option<i64>) -> Verdict {
    let (Some(rows), Some(limit)) = (
        rows.and_then(|v| usize::try_from(v).ok()),
        limit.and_then(|v| usize::try_from(v).ok()),
    ) else {
        return Verdict::Differs;
    };
    match (rows.cmp(&copy.0), limit == copy.1) {
        (std::cmp::Ordering::Equal, true) => Verdict::Agrees,
        (std::cmp::Ordering::Greater, _) => Verdict::Differs,
        _ => Verdict::Trimmed { rows, limit },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_verdicts() {
        let v = |copy, rows, limit| history_verdict(copy, Some(rows), Some(limit));
        assert_eq!(v((50, 100), 50, 100), Verdict::Agrees);
        // clear-history: tmux holds none of the copy's rows.
        assert_eq!(
            v((50, 100), 0, 100),
            Verdict::Trimmed {
                rows: 0,
                limit: 100
            }
        );
        // A limit lowered at run time (tmux ≥ 3.7 trims at once), or raised.
        assert_eq!(
            v((900, 1000), 100, 100),
            Verdict::Trimmed {
                rows: 100,
                limit: 100
            }
        );
        assert_eq!(
            v((50, 100), 50, 2000),
            Verdict::Trimmed {
                rows: 50,
                limit: 2000
            }
        );
        // tmux holds rows the copy lacks.
        assert_eq!(v((50, 100), 60, 100), Verdict::Differs);
        assert_eq!(
            history_verdict((50, 100), None, Some(100)),
            Verdict::Differs
        );
        assert_eq!(
            history_verdict((50, 100), Some(-1), Some(100)),
            Verdict::Differs
        );
    }
}
