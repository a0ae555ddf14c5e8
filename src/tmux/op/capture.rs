//! Captures: `capture_pane`, `snapshot_pane`, `display_message`.
