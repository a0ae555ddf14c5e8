//! Line, row, column and offset newtypes for strongly typed terminal
//! coordinates.
//!
//! tmux numbers the same row in several ways, and a logical line is indexed
//! in bytes, characters and cells; mixing them up is the classic bug of
//! search over terminal text (xterm.js issue 3235, a zellij panic on a
//! byte/char mismatch). Each unit has its own type here, and conversions
//! between them are explicit:
//!
//! ```text
//!   LineNo  -3  ┐ history (oldest first; tmux trims from the top)
//!           -2  │
//!           -1  ┘
//!            0  ┐ visible screen: LineNo n == ScreenRow n
//!            1  │
//!            …  ┘
//! ```
//!
//! * [`LineNo`]: a tmux line number as `capture-pane -S/-E` take it:
//!   `0` is the top row of the visible screen, `-1` the newest history
//!   row.
//! * [`ScreenRow`]: a row of the visible screen, 0-based from the top.
//! * [`Column`]: a cell column, 0-based from the left edge.
//! * [`LineIndex`]: the absolute index of a logical line, counted from the
//!   first line the [`Term`](super::Term) ever held (0) and never reused,
//!   so it survives history trimming: a reader can keep "every line since
//!   index X" as a cursor.
//! * [`ByteOffset`] and [`CharOffset`]: offsets into the UTF-8 text of a
//!   logical line, in bytes and in characters (Unicode scalar values).
//! * [`Point`]: a cell on a row, `(LineNo, Column)`.

use std::fmt;
use std::ops::{Add, Sub};

/// Declares an index type: a number of `$inner` that adds and subtracts
/// `$inner` and prints as that number.
macro_rules! index {
    ($(#[$doc:meta])* $ty:ident($inner:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $ty(pub $inner);
        impl Add<$inner> for $ty {
            type Output = $ty;
            fn add(self, rhs: $inner) -> $ty {
                $ty(self.0 + rhs)
            }
        }
        impl Sub<$inner> for $ty {
            type Output = $ty;
            fn sub(self, rhs: $inner) -> $ty {
                $ty(self.0 - rhs)
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

index! {
    /// A tmux line number, as `capture-pane -S`/`-E` take it: 0 is the top
    /// row of the visible screen, `n > 0` the screen row `n`, `-1` the newest
    /// history row and `-history_size` the oldest one.
    LineNo(i64)
}

index! {
    /// A row of the visible screen, 0-based from the top (tmux's `cursor_y`).
    ScreenRow(u32)
}

index! {
    /// A cell column, 0-based from the left edge (tmux's `cursor_x`).
    ///
    /// A wide character covers two columns; it is reported at its first one.
    Column(u32)
}

index! {
    /// The absolute index of a logical line: 0 for the first line the
    /// [`Term`](super::Term) ever held, counting up, never reused. Trimming
    /// history does not renumber the lines that remain.
    ///
    /// Lines on the visible screen are numbered after the history lines; they
    /// are live (a program can rewrite them), so only indexes of history lines
    /// name text that no longer changes.
    LineIndex(u64)
}

index! {
    /// A byte offset into UTF-8 text.
    ByteOffset(usize)
}

index! {
    /// An offset into text counted in characters (Unicode scalar values; a
    /// combining mark or a variation selector counts as one).
    CharOffset(usize)
}

/// A cell: a tmux line number and a column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point {
    /// The row, as a tmux line number.
    pub line: LineNo,
    /// The cell column on that row.
    pub column: Column,
}

impl Point {
    /// A point at `line`, `column`.
    pub const fn new(line: LineNo, column: Column) -> Point {
        Point { line, column }
    }
}

impl LineNo {
    /// The screen row this line number names, or `None` for a history row.
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub fn screen_row(self) -> Option<ScreenRow> {
        u32::try_from(self.0).ok().map(ScreenRow)
    }
}

impl From<ScreenRow> for LineNo {
    fn from(row: ScreenRow) -> LineNo {
        LineNo(i64::from(row.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers() {
        assert_eq!(LineNo(-1).screen_row(), None);
        assert_eq!(LineNo(0).screen_row(), Some(ScreenRow(0)));
        assert_eq!(LineNo(7).screen_row(), Some(ScreenRow(7)));
        assert_eq!(LineNo::from(ScreenRow(3)), LineNo(3));
        assert_eq!(LineNo(-2) + 3, LineNo(1));
        assert_eq!(LineIndex(5) - 2, LineIndex(3));
        assert_eq!(Column(4).to_string(), "4");
    }
}
