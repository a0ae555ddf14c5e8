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
//!
//! A reader that needs only the logical lines (each line's text, the tmux
//! line number of its first row and the rows it fills: the one-shot CLI)
//! asks for [`Exactness::Lines`], which leaves out that second capture
//! when the history is printable ASCII (why that is exact: see
//! [`Exactness::Lines`]) and otherwise checks the rows as above.

use super::error::Error;
use super::server::Retry;
use super::server::Server;
use crate::control::buffer::buffer_encoding;
use crate::control::{Command, PaneId};
use crate::mirror::seed::{self, Built, Recipe, SeedFailure, SeedOptions};
use crate::term::{LaidHistory, LineIndex, Rules};

/// What of a copy is certain to be tmux's (before tmux 3.7, where the
/// history comes as logical lines whose rows are laid out again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// Every row: the history's rows are checked against tmux's rows,
    /// captured on the same write (what `search_panes` needs: a match's
    /// row and column).
    Rows,
    /// Every logical line's text, the tmux line number of its first row
    /// and the rows it fills; not where a line's rows break (a match's
    /// column). When the history is printable ASCII (bytes 0x20-0x7e and
    /// line breaks) and the alternate screen is off, no rows are captured
    /// to check it: a tmux row then holds at most a width of these
    /// one-cell characters (tmux reflows the history to the pane's width on
    /// a resize, and on leaving the alternate screen for a resize made
    /// while it was on: `screen_resize`, `screen_alternate_off` in
    /// screen.c), so no line fills fewer rows than the width rules'
    /// fullest layout gives it, and the seed
    /// already checks that the layout's rows add up to tmux's
    /// `#{history_size}` ([`seed::build`]): differences none of which is
    /// negative add up to 0 only when each is 0. With any other byte (a
    /// wide or combining character, a TAB, a line-drawing shift) tmux's
    /// rows are captured after the copy is made and compared; when they
    /// differ (or the pane changed meanwhile), the copy is made again as
    /// for [`Exactness::Rows`].
    Lines,
}

/// Makes a copy of `pane` from one batch of captures, every row exact
/// ([`Exactness::Rows`]).
///
/// `Ok(None)` when the pane does not exist (it went away meanwhile).
///
/// # Errors
///
/// The connection's errors; [`ErrorKind::Internal`](super::ErrorKind::Internal)
/// when tmux's answer cannot be made into a copy (a bug or a server that
/// changed under the captures: said as such, never "no lines").
pub async fn copy_pane(server: &Server, pane: PaneId) -> Result<Option<Built>, Error> {
    copy_pane_as(server, pane, Exactness::Rows).await
}

/// [`copy_pane`], exact as `exactness` says.
///
/// # Errors
///
/// As [`copy_pane`].
pub async fn copy_pane_as(
    server: &Server,
    pane: PaneId,
    exactness: Exactness,
) -> Result<Option<Built>, Error> {
    let version = server.version().await?;
    let recipe = Recipe::for_version(&version, buffer_encoding(&version));
    let opts = SeedOptions {
        rules: Rules::for_version(&version),
        first: LineIndex(0),
    };
    let mut exactness = exactness;
    let why = loop {
        match attempt(server, pane, recipe, &opts, exactness).await? {
            Attempt::Built(b) => return Ok(Some(*b)),
            Attempt::Gone => return Ok(None),
            Attempt::Recheck(why) => {
                tracing::debug!(%pane, %why, "copying with the rows checked on the same write");
                exactness = Exactness::Rows;
            }
            Attempt::Exactly(why) => break why,
        }
    };
    tracing::debug!(%pane, %why, "copying exactly");
    match attempt(server, pane, recipe.exact(), &opts, Exactness::Rows).await? {
        Attempt::Built(b) => Ok(Some(*b)),
        Attempt::Gone => Ok(None),
        Attempt::Exactly(why) | Attempt::Recheck(why) => Err(Error::internal(format!(
            "the copy of pane {pane} could not be made: {why}"
        ))),
    }
}

/// Whether `text` is printable ASCII and line breaks only: every byte one
/// cell wide in every tmux version (see [`Exactness::Lines`]).
pub fn printable_ascii(text: &[u8]) -> bool {
    // Whole words at a time: the loop is vectorised.
    text.chunks(64).all(|c| {
        c.iter().fold(true, |ok, &b| {
            ok & ((0x20..0x7f).contains(&b) | (b == b'\n'))
        })
    })
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

/// What a buffer's read gave, its failure (the buffer's name and why)
/// added to `unread`; `None` when none was read.
fn kept<T>(
    got: Option<Result<T, (String, String)>>,
    unread: &mut Vec<(String, String)>,
) -> Option<T> {
    match got? {
        Ok(b) => Some(b),
        Err(failed) => {
            unread.push(failed);
            None
        }
    }
}

/// A history buffer as it was read.
enum Read {
    /// Its bytes.
    Text(Vec<u8>),
    /// Laid out as it came ([`lay_history`]), and whether it was printable
    /// ASCII.
    Laid(Box<LaidHistory>, bool),
}

/// Reads and deletes the history buffer `name` of a seed of a server on
/// this machine (at `path`), as [`seed::fetch_history`] does, laying its
/// lines out as each piece arrives; whether it was printable ASCII.
///
/// # Errors
///
/// A connection failure, or tmux's error text when it could not write
/// the buffer.
async fn lay_history(
    path: &std::path::Path,
    name: &str,
    idle: std::time::Duration,
    mut laid: LaidHistory,
) -> Result<(LaidHistory, bool), String> {
    let save: [&str; 4] = ["save-buffer", "-b", name, "-"];
    let delete: [&str; 3] = ["delete-buffer", "-b", name];
    let mut ascii = true;
    let out = crate::wire::stream_command_list(path, &[&save[..], &delete[..]], idle, |data| {
        ascii &= printable_ascii(data);
        laid.feed(data);
        true
    })
    .await
    .map_err(|e| e.to_string())?;
    if !out.success() {
        return Err(out.error_text());
    }
    Ok((laid, ascii))
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
    /// Try again with the rows checked on the same write
    /// ([`Exactness::Rows`]): the check made after the copy
    /// ([`Exactness::Lines`]) found other rows, or none.
    Recheck(String),
}

async fn attempt(
    server: &Server,
    pane: PaneId,
    recipe: Recipe,
    opts: &SeedOptions,
    exactness: Exactness,
) -> Result<Attempt, Error> {
    let seed::SeedLine {
        line,
        history_buffer,
    } = seed::line(pane, &recipe, false, seed::Depth::Full);
    let check = (seed::needs_verify(&recipe) && exactness == Exactness::Rows).then(check_name);
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
    // The history is laid out as it is read, on this machine (a remote
    // one answers whole).
    let local = match server.endpoint() {
        crate::wire::Endpoint::Local(path) => Some(path),
        crate::wire::Endpoint::Remote(_) => None,
    };
    let laid = local.and_then(|path| Some((path, seed::laid_history(&reply, &recipe, opts)?)));
    // Both buffers at once, each by a one-shot client (locally).
    let fetch = async |name: &Option<String>| match name {
        Some(n) => Some(
            fetch_history(server, n, timeout)
                .await
                .map_err(|e| (n.clone(), e)),
        ),
        None => None,
    };
    let read = async || match (&history_buffer, laid) {
        (Some(n), Some((path, laid))) => Some(
            lay_history(path, n, timeout, laid)
                .await
                .map(|(laid, ascii)| Read::Laid(Box::new(laid), ascii))
                .map_err(|e| (n.clone(), e)),
        ),
        (name, _) => Some(fetch(name).await?.map(Read::Text)),
    };
    let (history, rows) = futures::join!(read(), fetch(&check));
    let mut unread = Vec::new();
    let (history, rows) = (kept(history, &mut unread), kept(rows, &mut unread));
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
    // Printable ASCII lays out as tmux's rows (see [`Exactness::Lines`]).
    let (ascii, made) = match history {
        Some(Read::Laid(laid, ascii)) => (ascii, seed::build_laid(reply, &recipe, opts, *laid)),
        history => {
            let history = history.and_then(|r| match r {
                Read::Text(b) => Some(b),
                Read::Laid(..) => None,
            });
            let ascii = history.as_deref().is_some_and(printable_ascii);
            let built = seed::build(reply, &recipe, false, seed::Depth::Full, opts, history);
            (ascii, built)
        }
    };
    let built = match made {
        Ok(b) => b,
        Err(SeedFailure::Gone) => return Ok(Attempt::Gone),
        Err(SeedFailure::Layout(why)) if !recipe.exact => return Ok(Attempt::Exactly(why)),
        Err(SeedFailure::Layout(why) | SeedFailure::Unusable(why)) => {
            return Err(Error::internal(format!(
                "the copy of pane {pane} could not be made from tmux's captures: {why}"
            )));
        }
    };
    if built.term.history_size() == 0 {
        return Ok(Attempt::Built(Box::new(built)));
    }
    if check.is_some() {
        let size = verify.as_ref().and_then(seed::verify_size);
        if let Err(why) = rows_match(&built, size, rows) {
            return Ok(Attempt::Exactly(why.into()));
        }
    } else if seed::needs_verify(&recipe) && (!ascii || built.term.alternate_on()) {
        // Checked now, a moment later (see [`Exactness::Lines`]).
        let name = check_name();
        let mut replies = server
            .run_replies(&[seed::verify_line(pane, &name)])
            .await?;
        let size = replies.pop().as_ref().and_then(seed::verify_size);
        let rows = match fetch_history(server, &name, server.timeout()).await {
            Ok(r) => Some(r),
            Err(_) => {
                let delete = vec![Command::new("delete-buffer").opt("-b", name)];
                let _ = server.run_lines(&[delete], Retry::Safe).await;
                None
            }
        };
        if let Err(why) = rows_match(&built, size, rows) {
            return Ok(Attempt::Recheck(why.into()));
        }
    }
    Ok(Attempt::Built(Box::new(built)))
}

/// A fresh name for the buffer a [`seed::verify_line`] fills.
fn check_name() -> String {
    format!("tmuxwire-{}", crate::control::format::nonce())
}

/// Whether `rows`, the buffer a [`seed::verify_line`] filled (`size`
/// bytes, as its answer printed), are the history rows of `built`; why
/// not.
fn rows_match(
    built: &Built,
    size: Option<usize>,
    rows: Option<Vec<u8>>,
) -> Result<(), &'static str> {
    let rows = rows.filter(|r| Some(r.len()) == size).map(|r| {
        if r == crate::control::buffer::EMPTY.as_bytes() {
            Vec::new()
        } else {
            r
        }
    });
    let digests = crate::term::history_row_digests(&built.term);
    match rows {
        Some(r) if crate::term::history_rows_match(&digests, &r) => Ok(()),
        Some(_) => Err("the history's rows differ from tmux's"),
        None => Err("tmux's history rows could not be read"),
    }
}

#[cfg(test)]
mod tests {
    use super::printable_ascii;

    #[test]
    fn printable_ascii_is_one_cell_bytes_and_line_breaks() {
        assert!(printable_ascii(b""));
        assert!(printable_ascii(b"a line ~ of text\n\nanother\n"));
        let long = [b"x".repeat(200), b"\n".to_vec()].concat().repeat(3);
        assert!(printable_ascii(&long));
        for bad in [
            &b"tab\there"[..],
            b"\x0eqqq\x0f",
            b"\x1b[m",
            b"\x7f",
            "中".as_bytes(),
            b"\r",
        ] {
            let mut t = long.clone();
            t.extend_from_slice(bad);
            t.extend_from_slice(&long);
            assert!(!printable_ascii(&t), "{bad:?}");
        }
    }
}
