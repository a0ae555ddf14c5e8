//! Seeding a copy: one command line that reads everything a
//! [`Term`](crate::term::Term) needs about a pane at one moment, and
//! building the copy from its answer.

use crate::control::client::Reply;
use crate::control::{Encoding, Line, PaneId};
use crate::term::{Rules, Term};

/// What building a copy needs besides the answer.
#[derive(Clone, Copy, Debug)]
pub struct SeedOptions {
    /// The server's width rules.
    pub rules: Rules,
}

/// A copy built from a seed.
#[derive(Debug)]
pub struct Built {
    /// The copy.
    pub term: Term,
    /// The pane's program has exited (remain-on-exit kept the pane).
    pub dead: bool,
    /// Its exit status, if so.
    pub exit_status: Option<i32>,
}

/// Why a seed gave no copy.
#[derive(Debug, PartialEq, Eq)]
pub enum SeedFailure {
    /// The pane no longer exists.
    Gone,
    /// tmux's answer could not be turned into a copy.
    Unusable(String),
}

/// The seed line for `pane`; with `continue_first`, it first resumes the
/// pane's output (`refresh-client -A '%N:continue'`) after a `%pause`, in
/// the same line, so no output is lost between the seed and the resume.
pub fn line(pane: PaneId, encoding: Encoding, continue_first: bool) -> Line {
    let _ = (pane, encoding, continue_first);
    Line::list(Vec::new())
}

/// Builds the copy from a [`line`]'s answer.
///
/// # Errors
///
/// [`SeedFailure::Gone`] when tmux says the pane does not exist;
/// [`SeedFailure::Unusable`] otherwise.
pub fn build(reply: &Reply, opts: &SeedOptions) -> Result<Built, SeedFailure> {
    let _ = (reply, opts);
    Err(SeedFailure::Unusable("not yet".into()))
}
