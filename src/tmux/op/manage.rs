//! Creating, changing and killing sessions, windows and panes.
