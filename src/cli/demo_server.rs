//! The demo's private tmux server: the tmux binary run on it, its home,
//! tmux's own `capture-pane | grep` for the comparison, and the cleanup
//! that removes the server and its directory (after a failure and on
//! Ctrl-C too).

use super::*;

/// Runs the tmux binary on the private server; its stdout, or what it
/// said on stderr when it failed.
pub(super) fn tmux_out(tmux: &str, sock: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = tmux_run(tmux, sock, args)?;
    if !out.status.success() {
        return Err(format!(
            "{tmux} {}: {}",
            args.first().copied().unwrap_or(""),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// `f` given the tmux binary and the private server's socket, on a
/// blocking thread (it runs tmux and waits for it): the demo's
/// comparisons with tmux's own answers.
pub(super) async fn with_tmux<T: Send + 'static>(
    opts: &Options,
    sock: &Path,
    f: impl FnOnce(&str, &Path) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let (tmux, sock) = (opts.tmux.clone(), sock.to_path_buf());
    tokio::task::spawn_blocking(move || f(&tmux, &sock))
        .await
        .map_err(|e| format!("the tmux comparison stopped: {e}"))?
}

/// Runs the tmux binary on the private server, with `-f /dev/null` (the
/// user's configuration stays out of the demo) and the demo's own home
/// ([`private_home`]): the server that the first call starts passes it to
/// every pane.
pub(super) fn tmux_run(
    tmux: &str,
    sock: &Path,
    args: &[&str],
) -> Result<std::process::Output, String> {
    let mut cmd = Proc::new(tmux);
    cmd.arg("-S")
        .arg(sock)
        .arg("-f")
        .arg("/dev/null")
        .args(args)
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null());
    crate::sys::home::isolate(&mut cmd, &home_of(sock));
    cmd.output()
        .map_err(|e| format!("cannot run {tmux}: {e} (set --tmux or TMUXWIRE_TMUX)"))
}

/// The demo's home: `home` beside the private server's socket, in the
/// demo's directory (made with it, removed with it).
pub(super) fn home_of(sock: &Path) -> PathBuf {
    sock.with_file_name("home")
}

/// `tmux capture-pane -p -J -S - -t PANE | grep -c -F -e NEEDLE`, as a
/// shell would run it (without one: the two processes joined by a pipe);
/// the count grep prints.
pub(super) fn tmux_grep(tmux: &str, sock: &Path, pane: &str, needle: &str) -> Result<u64, String> {
    let mut capture = Proc::new(tmux)
        .arg("-S")
        .arg(sock)
        .args(["capture-pane", "-p", "-J", "-S", "-", "-t", pane])
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {tmux}: {e}"))?;
    let Some(pipe) = capture.stdout.take() else {
        let _ = capture.wait();
        return Err("tmux capture-pane: no output pipe".into());
    };
    let grep = Proc::new("grep")
        .args(["-c", "-F", "-e", needle])
        .stdin(pipe)
        .output();
    let captured = capture.wait();
    let grep = grep.map_err(|e| format!("cannot run grep: {e}"))?;
    if !captured.is_ok_and(|s| s.success()) {
        return Err(format!("tmux capture-pane -t {pane} failed"));
    }
    // grep -c prints the count, and exits 1 when it is 0.
    String::from_utf8_lossy(&grep.stdout)
        .trim()
        .parse()
        .map_err(|_| {
            format!(
                "grep -c printed no count: {}",
                String::from_utf8_lossy(&grep.stderr).trim()
            )
        })
}

/// Removes the private server and its directory, even when the demo
/// fails or panics half-way (then from `Drop`, on a thread of its own).
pub(super) struct Cleanup {
    pub(super) sock: PathBuf,
    pub(super) dir: PathBuf,
    pub(super) armed: bool,
}

impl Cleanup {
    pub(super) async fn run(&mut self) {
        if std::mem::take(&mut self.armed) {
            let _ = crate::wire::run_command(&self.sock, &["kill-server"], Duration::from_secs(5))
                .await;
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (sock, dir) = (self.sock.clone(), self.dir.clone());
        let _ = std::thread::spawn(move || {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                let _ = rt.block_on(crate::wire::run_command(
                    &sock,
                    &["kill-server"],
                    Duration::from_secs(5),
                ));
            }
            let _ = std::fs::remove_dir_all(&dir);
        })
        .join();
    }
}
