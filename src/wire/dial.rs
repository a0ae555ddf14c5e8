//! Connecting a Unix stream socket to a tmux server.

use std::time::Duration;

use super::error::Error;

/// Whether a server accepts connections on `path`: `Ok` when one does
/// (the connection is closed at once), [`Error::NoServer`] when nothing
/// listens.
///
/// # Errors
///
/// [`Error::Connect`] when the socket exists but the connection failed
/// for another reason.
pub async fn connect_socket_probe(path: &std::path::Path) -> Result<(), Error> {
    connect_socket(path).await.map(drop)
}

/// How long [`connect_socket`] keeps retrying a server whose listen queue
/// is full (`EAGAIN` on Linux).
const CONNECT_RETRY_FOR: Duration = Duration::from_secs(5);

/// Connects a Unix stream socket to `path`, mapping "nobody listens" to
/// [`Error::NoServer`]. A full listen queue (`EAGAIN`: many clients
/// connecting at once) is retried with backoff for a few seconds.
pub(crate) async fn connect_socket(
    path: &std::path::Path,
) -> Result<tokio::net::UnixStream, Error> {
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match tokio::net::UnixStream::connect(path).await {
            Ok(s) => return Ok(s),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ENOENT) | Some(libc::ECONNREFUSED) | Some(libc::ENOTDIR)
                ) =>
            {
                return Err(Error::NoServer {
                    path: path.to_path_buf(),
                });
            }
            Err(e)
                if e.raw_os_error() == Some(libc::EAGAIN)
                    && start.elapsed() < CONNECT_RETRY_FOR =>
            {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            Err(e) => {
                return Err(Error::Connect {
                    path: path.to_path_buf(),
                    source: e,
                });
            }
        }
    }
}
