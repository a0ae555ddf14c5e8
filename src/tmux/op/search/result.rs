//! What `search_panes` answers: a page of panes, each with its matched
//! lines ([`SearchPanesResult`], [`PaneContentMatch`]).

use schemars::JsonSchema;
use serde::Serialize;

use crate::mirror::scan::Screen;
use crate::tmux::model::{Source, is_zero};

/// The matches in one pane (libtmux-mcp `PaneContentMatch`, plus line
/// numbers, positions and the source). The pane is named once, by its ids,
/// names, indexes, command and path; its geometry and tty (which
/// libtmux-mcp repeats for every match) are `list_panes`' to tell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PaneContentMatch {
    /// Pane id, `%N`.
    pub pane_id: String,
    /// Name of the foreground process.
    pub pane_current_command: String,
    /// Working directory of the foreground process.
    pub pane_current_path: String,
    /// The pane's window.
    pub window_id: String,
    /// The window's name.
    pub window_name: String,
    /// The pane's session.
    pub session_id: String,
    /// The session's name.
    pub session_name: String,
    /// The matching logical lines (soft wraps joined, trailing blanks
    /// trimmed), oldest first; the newest `max_matched_lines_per_pane` when
    /// there were more. A line over 4096 bytes is cut to 4096 bytes around
    /// its first match, `…` marking the cuts.
    pub matched_lines: Vec<String>,
    /// Whether this is the caller's own pane (null outside tmux).
    pub is_caller: Option<bool>,
    /// The window's index in that session.
    pub window_index: String,
    /// The pane's index in its window.
    pub pane_index: String,
    /// For each matched line, the tmux line number of its first row: 0 is
    /// the top row of the visible screen, negative numbers are history
    /// (`capture-pane -S/-E` numbering).
    pub matched_line_numbers: Vec<i64>,
    /// For each matched line, how many screen rows it spans (more than 1
    /// when it was soft-wrapped); left out when every line spans one row.
    #[serde(skip_serializing_if = "all_one_row")]
    pub matched_line_rows: Vec<u32>,
    /// For each matched line, where its first match starts, as
    /// `[row, column, char, byte]`: the tmux line number of the row holding
    /// it, its cell column (0-based), and its offsets in the logical line in
    /// characters and in bytes.
    pub matched_at: Vec<[i64; 4]>,
    /// For each matched line, the screen it is on, when the pane shows the
    /// alternate screen: `alternate` (what the program draws) or
    /// `hidden_main` (the normal screen it covers). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_screens: Option<Vec<Screen>>,
    /// How many lines matched in this pane, before the per-pane cap.
    pub matched_line_count: usize,
    /// Which source answered: `mirror` or `capture`.
    pub source: Source,
    /// The pane is gone (its program exited and tmux destroyed it); the
    /// lines come from tmuxwire's copy.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pane_dead: bool,
    /// The exit status of the pane's program, when tmux reported it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    /// Oldest history rows tmuxwire's copy of this pane dropped to stay
    /// within its memory cap, and so did not search (tmux may still hold
    /// them: `capture_pane` with a range reaches them); for a pane that is
    /// gone, also the rows it held before tmuxwire followed it, which no
    /// call read while it lived. Absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capped_history_rows: Option<u64>,
}

/// Whether every matched line spans one screen row.
fn all_one_row(rows: &[u32]) -> bool {
    rows.iter().all(|&r| r == 1)
}

/// A page of search results (libtmux-mcp `SearchPanesResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SearchPanesResult {
    /// Panes with matches, in tmux's order (`list_panes`: sessions, then
    /// windows by index, then panes by index; panes that are gone last),
    /// this page only.
    pub matches: Vec<PaneContentMatch>,
    /// True when a pane's lines were capped or more panes follow the page.
    pub truncated: bool,
    /// Ids of the matching panes after this page.
    pub truncated_panes: Vec<String>,
    /// Matching panes in all pages.
    pub total_panes_matched: usize,
    /// Panes skipped before this page.
    pub offset: usize,
    /// Page size (`null`: unlimited).
    pub limit: Option<usize>,
    /// Panes searched.
    pub panes_searched: usize,
    /// Matched lines left out of this page to keep the answer within the
    /// response budget (1 MiB by default), beyond those
    /// `max_matched_lines_per_pane` left out; each pane's
    /// `matched_line_count` still counts them.
    /// Narrow the search (`content_start`/`content_end`, a session, a
    /// tighter pattern, `limit`) or ask for more (`max_bytes`) to see them.
    /// Left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub lines_omitted: usize,
    /// Ids of the searched panes whose history is at its limit: each time
    /// a pane's `history_size` reaches `history_limit`, tmux drops the
    /// oldest tenth of it (`grid_collect_history()`), so a pane within a
    /// tenth of its limit has most likely lost its oldest lines, and text
    /// from them cannot be found. Before tmux 3.7 a pane keeps the limit
    /// it was made with, whatever `history-limit` is set to later (tmux
    /// issue 4705). `get_pane_info` gives both numbers. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub panes_history_at_limit: Vec<String>,
    /// Why the pattern cannot match, when tmuxwire can tell: set when it
    /// asks for a TAB and the server is tmux before 3.6, which stores a TAB
    /// as the blank cells it moves the cursor over, so no pane text holds
    /// one (tmux issues 2619, 978; public case C22). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When the response budget or the page left matched lines out: the
    /// `search_panes` arguments (with the same server) that return them,
    /// in order: the older lines of the first pane the budget cut
    /// (`pane_id`, `content_end` before its oldest line returned,
    /// `max_matched_lines_per_pane` the lines left out), then the page
    /// from the next pane whose lines were left out or that follows the
    /// page (`offset`). Absent when nothing was left out (lines beyond
    /// `max_matched_lines_per_pane` were not asked for: raise it).
    /// Written by the MCP layer, which holds the arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Vec<serde_json::Map<String, serde_json::Value>>>,
}
