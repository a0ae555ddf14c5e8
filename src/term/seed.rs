//! Building a [`Term`](super::Term) from what tmux reports about a pane.

/// Placeholder.
#[derive(Debug)]
pub struct Seed;

/// Placeholder.
#[derive(Debug)]
pub struct SeedError;
