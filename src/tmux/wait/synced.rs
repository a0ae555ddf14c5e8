//! Following a pane: making sure the mirror holds a copy of it that tmux
//! has just confirmed, before a wait (or a read of the copy) begins.

use std::sync::Arc;
use std::time::Duration;

use crate::control::{PaneId, Target};
use crate::mirror::{PaneMeta, PaneMirror, Progress, Status, Want};
use crate::tmux::Server;
use crate::tmux::{Error, PaneScope, Selector};

crate::record! {
    /// What following a pane lists of it besides its [`PaneMeta`], which
    /// comes first in the record ([`FOLLOWED_FIELDS`]).
    struct FollowedRow {
        pane_id: String = "pane_id",
        pane_pid: Option<i64> = "pane_pid",
    }
}

/// The variables a followed pane is listed with.
const FOLLOWED_FIELDS: &[&str] = &crate::concat_fields!(PaneMeta, FollowedRow);

/// A pane the mirror follows, as tmux listed it just now.
pub(crate) struct Followed {
    pub(crate) pane: Arc<PaneMirror>,
    pub(crate) pid: u32,
    /// Its foreground process (`#{pane_current_command}`).
    pub(crate) command: String,
}

/// The id of the pane `sel` names (a window or session: its active pane;
/// one round trip then).
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); connection
/// errors.
pub async fn pane_id(server: &Server, sel: &Selector) -> Result<PaneId, Error> {
    let target = server.resolve_pane(sel).await?;
    if let Target::Pane(p) = target {
        return Ok(p);
    }
    let info = crate::tmux::target::pane_info(server, &target).await?;
    info.pane_id
        .parse()
        .map_err(|_| Error::not_found(format!("can't find pane: {target}")))
}

/// The mirror's copy of `pane`, followed and just confirmed by tmux (see
/// [`follow`]).
///
/// # Errors
///
/// As [`follow`]: `NotFound`, `Unsupported` (mirror off), connection
/// errors.
pub(crate) async fn followed_copy(server: &Server, pane: PaneId) -> Result<Arc<PaneMirror>, Error> {
    Ok(follow(server, pane, None, None).await?.pane)
}

/// Makes sure the mirror follows `pane` and tmux has just confirmed
/// its copy ([`Want::Current`]).
///
/// Something else may change the pane meanwhile: its session killed (the
/// watch of the session it was listed in cannot open, or ends with the
/// seed out), its window moved to another session, the pane respawned or
/// resized. A sync that gave up before its time is then asked again from
/// a fresh listing ([`SYNC_TRIES`] times in all), and a pane that is gone
/// by then is `NotFound`, as a pane that was never there: never a timeout
/// the caller is told to retry.
pub(crate) async fn follow(
    server: &Server,
    pane: PaneId,
    progress: Option<&Progress>,
    within: Option<Duration>,
) -> Result<Followed, Error> {
    follow_with(server, pane, Want::Current, progress, within).await
}

/// [`follow`], the copy as `want` says (its history read, for one).
pub(crate) async fn follow_with(
    server: &Server,
    pane: PaneId,
    want: Want,
    progress: Option<&Progress>,
    within: Option<Duration>,
) -> Result<Followed, Error> {
    let Some(m) = server.mirror().await else {
        // Distinguish a server that is gone from a mirror turned off.
        server.connect().await?;
        return Err(Error::unsupported(
            "this tool follows the pane's output and needs the pane mirror, which is off",
        ));
    };
    let limit = within.map_or(m.options().sync_timeout, |w| {
        w.min(m.options().sync_timeout)
    });
    let began = std::time::Instant::now();
    let limited = || {
        m.session_limit()
            .map(|why| Error::new(crate::tmux::ErrorKind::HostSessionLimit, why))
    };
    let mut tries = 0;
    loop {
        tries += 1;
        // Fails NotFound for a pane that is gone (and says so for a
        // server that went away).
        let (row, meta) = followed_row(server, pane).await?;
        let session = meta
            .session_id
            .parse()
            .map_err(|_| Error::connection("tmux listed a pane without a session"))?;
        let pid = row
            .pane_pid
            .and_then(|p| u32::try_from(p).ok())
            .unwrap_or(0);
        let command = meta.pane_current_command.clone();
        let left = limit.saturating_sub(began.elapsed());
        let synced = std::time::Instant::now();
        let confirmed = m
            .sync_within(&[(pane, session, meta)], want, progress, Some(left))
            .await;
        let copy = m.pane(pane);
        // A live copy that tmux did not confirm is still fed in the order
        // tmux sent its output: its check was taken while this pane and
        // another printed, which proves nothing either way (the copy is
        // checked again at the next call). One not live after the sync was
        // still being seeded when the time ran out, or its session went.
        if let Some(p) = copy.filter(|p| {
            let st = p.view();
            (confirmed.contains(&pane) || matches!(st.status(), Status::Dead | Status::Live))
                && st.term().is_some()
        }) {
            return Ok(Followed {
                pane: p,
                pid,
                command,
            });
        }
        if let Some(e) = limited() {
            return Err(e);
        }
        // The sync gave up before its time: the session it was asked of
        // went (or the pane left it). Asked again from a fresh listing,
        // which also tells a pane that is gone.
        let early = synced.elapsed() + SYNC_EARLY < left;
        if early && tries < SYNC_TRIES {
            continue;
        }
        // Gone by now (or the server went away): said so.
        followed_row(server, pane).await?;
        let waited = began.elapsed();
        let waited = if waited < Duration::from_secs(1) {
            format!("{} ms", waited.as_millis())
        } else {
            format!("{:.0} s", waited.as_secs_f64())
        };
        return Err(Error::timeout(format!(
            "tmux did not send the copy of pane {pane} (its capture-pane) within {waited}: \
             tmux answers only after the output it has not sent yet, which a pane printing \
             as fast as it can (or a stopped server) holds up"
        )));
    }
}

/// Times [`follow`] syncs a pane whose sync gave up early (its session
/// went while it was asked).
const SYNC_TRIES: u32 = 3;

/// A sync that ends more than this before its time gave up: it did not
/// run out of time.
const SYNC_EARLY: Duration = Duration::from_millis(100);

/// `pane`'s listing, as [`follow`] reads it.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when tmux
/// no longer has the pane; connection errors.
async fn followed_row(server: &Server, pane: PaneId) -> Result<(FollowedRow, PaneMeta), Error> {
    let target = Target::Pane(pane);
    let recs =
        crate::tmux::target::pane_records(server, &PaneScope::Window(target), FOLLOWED_FIELDS)
            .await?;
    let pane_str = pane.to_string();
    recs.iter()
        .map(|r| {
            let row = FollowedRow::from_record_at(r, PaneMeta::FIELDS.len());
            (row, PaneMeta::from_record(r))
        })
        .find(|(row, _)| row.pane_id == pane_str)
        .ok_or_else(|| Error::not_found(format!("can't find pane: {pane}")))
}

/// The pane's copy, as it is: followed first (a fence) only when there
/// is none or it is not live.
///
/// # Errors
///
/// As [`follow`].
pub(crate) async fn copy_of(server: &Server, pane: PaneId) -> Result<Arc<PaneMirror>, Error> {
    if let Some(m) = server.mirror().await
        && let Some(p) = m.pane(pane)
        && p.view().status() == Status::Live
    {
        return Ok(p);
    }
    followed_copy(server, pane).await
}
