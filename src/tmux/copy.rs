//! A pane's copy made once: a [`Term`](crate::term::Term) built from
//! tmux's captures of the pane at one moment, exactly as the mirror seeds
//! the copies it keeps ([`crate::mirror::seed`]).
//!
//! For what reads a pane without keeping its copy: `search_panes` for a
//! pane the mirror does not (yet) hold, and the one-shot CLI
//! (`tmuxwire search`). Both then scan the same kind of copy the mirror
//! keeps, with the same code ([`crate::mirror::scan`] and the copy's
//! logical lines), so every reader gives the same lines, line numbers and
//! row counts for the same pane, the lines behind a full-screen program
//! included.
//!
//! Before tmux 3.7 (no `capture-pane -F` row flags) the history is
//! captured once, as logical lines, and its rows laid out again by the
//! width rules; tmux's own rows of the history are captured on the same
//! write, right after (one moment, [`seed::verify_line`]), and compared
//! ([`crate::term::history_rows_match`]). A pane whose rows differ is
//! captured again with the [exact](seed::Recipe::exact) recipe, which
//! prints its rows as tmux holds them. The same recipe is the way out
//! when the history, left in a paste buffer, cannot be read by a one-shot
//! client (the socket file was renamed while the control connection
//! stays open): it reads everything over the control connection.

use super::error::Error;
use super::server::Retry;
use super::server::Server;
use crate::control::buffer::buffer_encoding;
use crate::control::{Command, PaneId};
use crate::mirror::seed::{self, Built, Recipe, SeedFailure, SeedOptions};
use crate::term::{LineIndex, Rules};

/// Makes a copy of `pane` from one batch of captures.
///
/// `Ok(None)` when the pane does not exist (it went away meanwhile).
///
/// # Errors
///
/// The connection's errors; [`ErrorKind::Internal`](super::ErrorKind::Internal)
/// when tmux's answer cannot be made into a copy (a bug or a server that
/// changed under the captures: said as such, never "no lines").
pub async fn copy_pane(server: &Server, pane: PaneId) -> Result<Option<Built>, Error> {
    let version = server.version().await?;
    let recipe = Recipe::for_version(&version, buffer_encoding(&version));
    let opts = SeedOptions {
        rules: Rules::for_version(&version),
        first: LineIndex(0),
    };
    match attempt(server, pane, recipe, &opts).await? {
        Attempt::Built(b) => Ok(Some(*b)),
        Attempt::Gone => Ok(None),
        Attempt::Exactly(why) => {
            tracing::debug!(%pane, %why, "copying exactly");
            match attempt(server, pane, recipe.exact(), &opts).await? {
                Attempt::Built(b) => Ok(Some(*b)),
                Attempt::Gone => Ok(None),
                Attempt::Exactly(why) => Err(Error::internal(format!(
                    "the copy of pane {pane} could not be made: {why}"
                ))),
            }
        }
    }
}

/// Reads and deletes a seed's history buffer ([`seed::fetch_history_for`]),
/// over the control connection for a server on another host.
async fn fetch_history(
    server: &Server,
    name: &str,
    timeout: std::time::Duration,
) -> Result<Vec<u8>, String> {
    seed::fetch_history_for(server.endpoint(), name, timeout, async || {
        let version = server.version().await.map_err(|e| e.to_string())?;
        let line = seed::fetch_line(name, crate::control::buffer::buffer_encoding(&version));
        let mut replies = server
            .run_replies(std::slice::from_ref(&line))
            .await
            .map_err(|e| e.to_string())?;
        replies
            .pop()
            .ok_or_else(|| "tmux gave no answer to show-buffer".to_string())
    })
    .await
}

/// What one batch of captures gave.
enum Attempt {
    Built(Box<Built>),
    Gone,
    /// Try again with the exact recipe, which reads everything over the
    /// control connection: the history's rows, laid out again, are not
    /// tmux's, or a buffer the line left could not be read (a one-shot
    /// client cannot connect: the socket file was renamed or removed while
    /// the control connection stays open).
    Exactly(String),
}

async fn attempt(
    server: &Server,
    pane: PaneId,
    recipe: Recipe,
    opts: &SeedOptions,
) -> Result<Attempt, Error> {
    let seed::SeedLine {
        line,
        history_buffer,
    } = seed::line(pane, &recipe, false, seed::Depth::Full);
    let check = seed::needs_verify(&recipe)
        .then(|| format!("tmuxwire-{}", crate::control::format::nonce()));
    let mut lines = vec![line];
    if let Some(name) = &check {
        lines.push(seed::verify_line(pane, name));
    }
    // Both lines in one write: tmux runs them back to back, so the rows
    // checked are those of the moment the copy is made of.
    let mut replies = server.run_replies(&lines).await?.into_iter();
    let (Some(reply), verify) = (replies.next(), replies.next()) else {
        return Err(Error::connection(
            "tmux gave no answer to a pane's captures",
        ));
    };
    // Every buffer the lines left is read and deleted, whatever the answer.
    let timeout = server.timeout();
    // Both buffers at once, each by a one-shot client (locally).
    let fetch = async |name: &Option<String>| match name {
        Some(n) => Some(
            fetch_history(server, n, timeout)
                .await
                .map_err(|e| (n.clone(), e)),
        ),
        None => None,
    };
    let (history, rows) = futures::join!(fetch(&history_buffer), fetch(&check));
    let mut unread = Vec::new();
    let mut keep = |got: Option<Result<Vec<u8>, (String, String)>>| match got? {
        Ok(b) => Some(b),
        Err(failed) => {
            unread.push(failed);
            None
        }
    };
    let (history, rows) = (keep(history), keep(rows));
    if !unread.is_empty() {
        // Deleted over the control connection, which still reaches tmux.
        let deletes: Vec<Vec<Command>> = unread
            .iter()
            .map(|(name, _)| vec![Command::new("delete-buffer").opt("-b", name.clone())])
            .collect();
        let _ = server.run_lines(&deletes, Retry::Safe).await;
        // A pane that went away before the line ran stopped it before the
        // history buffer was made: that is no reason to copy exactly.
        if seed::gone(&reply, false) == Some(SeedFailure::Gone) {
            return Ok(Attempt::Gone);
        }
        if !recipe.exact {
            let why = unread
                .iter()
                .map(|(n, e)| format!("{n}: {e}"))
                .collect::<Vec<_>>()
                .join("; ");
            return Ok(Attempt::Exactly(format!(
                "a kept buffer could not be read ({why})"
            )));
        }
    }
    let built = match seed::build(reply, &recipe, false, seed::Depth::Full, opts, history) {
        Ok(b) => b,
        Err(SeedFailure::Gone) => return Ok(Attempt::Gone),
        Err(SeedFailure::Layout(why)) if !recipe.exact => return Ok(Attempt::Exactly(why)),
        Err(SeedFailure::Layout(why) | SeedFailure::Unusable(why)) => {
            return Err(Error::internal(format!(
                "the copy of pane {pane} could not be made from tmux's captures: {why}"
            )));
        }
    };
    if check.is_some() && built.term.history_size() > 0 {
        let size = verify.as_ref().and_then(seed::verify_size);
        let rows = rows.filter(|r| Some(r.len()) == size).map(|r| {
            if r == crate::control::buffer::EMPTY.as_bytes() {
                Vec::new()
            } else {
                r
            }
        });
        let digests = crate::term::history_row_digests(&built.term);
        match rows {
            Some(r) if crate::term::history_rows_match(&digests, &r) => {}
            Some(_) => {
                return Ok(Attempt::Exactly(
                    "the history's rows differ from tmux's".into(),
                ));
            }
            None => {
                return Ok(Attempt::Exactly(
                    "tmux's history rows could not be read".into(),
                ));
            }
        }
    }
    Ok(Attempt::Built(Box::new(built)))
}
