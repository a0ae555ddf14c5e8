//! Finding tmux servers: the live sockets in the user's tmux directory
//! (`$TMUX_TMPDIR` or `/tmp`, then `tmux-UID/`), and any paths given.
//!
//! Each socket is asked with one-shot clients only (fd-less, no session
//! attached, nothing left behind on the server), never with a control
//! connection: listing servers must not attach tmuxwire to each of them.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::model::ServerInfo;
use crate::wire::{self, SocketSpec};

/// How long one socket may take to answer.
const PROBE: Duration = Duration::from_secs(2);

/// The directory tmux keeps its sockets in for this user, if it exists.
pub fn socket_dir() -> Option<PathBuf> {
    let default = SocketSpec::Name("default".into()).resolve().ok()?;
    default.parent().map(Path::to_path_buf)
}

/// The sockets in `dir`, sorted by name.
pub fn sockets_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_socket()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// What the server on `path` reports, or `None` when no tmux server
/// answers there (a stale socket, another program's socket, a server too
/// old for tmuxwire).
pub async fn probe(path: &Path, socket_name: Option<String>) -> Option<ServerInfo> {
    let version = wire::probe_version(path, PROBE).await.ok()?;
    let cmds: [&[&str]; 2] = [
        &["display-message", "-p", "#{pid}"],
        &["list-sessions", "-F", "#{session_id}"],
    ];
    let out = wire::run_command_list(path, &cmds, PROBE).await.ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let pid = lines.next().and_then(|l| l.trim().parse().ok());
    let session_count = lines.filter(|l| l.starts_with('$')).count() as i64;
    Some(ServerInfo {
        is_alive: true,
        socket_name,
        socket_path: Some(path.display().to_string()),
        session_count,
        version: Some(version.to_string()),
        pid,
        imsg_framing: version.framing().map(|f| match f {
            wire::Framing::Old => "old".to_string(),
            wire::Framing::New => "new".to_string(),
        }),
    })
}

/// Every live server: the sockets of [`socket_dir`] in name order, then
/// `extra` paths in the order given (each once). Dead sockets and paths
/// that are not sockets are left out.
pub async fn list_servers(extra: &[PathBuf]) -> Vec<ServerInfo> {
    let mut paths: Vec<(PathBuf, Option<String>)> = socket_dir()
        .map(|d| sockets_in(&d))
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (p, name)
        })
        .collect();
    for p in extra {
        let is_socket = std::fs::metadata(p).is_ok_and(|m| m.file_type().is_socket());
        if is_socket && !paths.iter().any(|(q, _)| q == p) {
            paths.push((p.clone(), None));
        }
    }
    let probes = paths
        .into_iter()
        .map(|(p, name)| async move { probe(&p, name).await });
    futures::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}
