//! Dropping history beyond what tmux drops, for a mirror that must stay
//! within a memory cap.

use super::history::Dropped;
use super::screen::Term;

impl Term {
    /// Drops the oldest `rows` history rows (fewer if there are fewer), as
    /// tmux's own trimming would, and returns what went. tmux itself may
    /// still hold them: a caller reports the loss.
    pub fn drop_oldest_history(&mut self, rows: usize) -> Dropped {
        let before = self.history.dropped();
        self.history.trim_rows(rows);
        let after = self.history.dropped();
        Dropped {
            lines: after.lines - before.lines,
            rows: after.rows - before.rows,
            bytes: after.bytes - before.bytes,
        }
    }
}
