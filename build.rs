//! Build script: the commit `tmuxwire --version` names.
//!
//! Sets `TMUXWIRE_COMMIT` for the crate, from the first of:
//!
//! 1. `TMUXWIRE_COMMIT` in the build's environment (a packager that builds
//!    from a tarball and knows the commit);
//! 2. `git rev-parse --short=12 HEAD`, when the sources are a git checkout
//!    and git is on PATH;
//! 3. `.cargo_vcs_info.json`, which `cargo package` writes into a packaged
//!    crate (its `git.sha1`): a `cargo install tmuxwire` from the registry
//!    has no `.git` but has this file;
//! 4. `unknown`.
//!
//! In release builds (what `cargo install`, the wheels and the release
//! archives are), the script reruns when `HEAD` or the branch it points at
//! moves, not on every edit: the commit names what was checked out, not
//! uncommitted changes. Other profiles do not watch `HEAD`: a commit would
//! rebuild the whole crate on the next `cargo test`, so a debug build names
//! the commit of its first build until `build.rs` changes or `cargo clean`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=TMUXWIRE_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = std::env::var("TMUXWIRE_COMMIT")
        .ok()
        .filter(|c| is_commit(c))
        .or_else(|| from_git(&dir))
        .or_else(|| from_vcs_info(&dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=TMUXWIRE_COMMIT={commit}");
}

/// A short or full hexadecimal commit id (what `--version` may print).
fn is_commit(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Runs git in `dir`; `None` when git is missing, fails, or says nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn from_git(dir: &Path) -> Option<String> {
    // Only when this package is the top of the checkout: a crate unpacked
    // inside some other repository must not take that repository's commit.
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = std::fs::canonicalize(&top).ok()? == std::fs::canonicalize(dir).ok()?;
    if !same {
        return None;
    }
    let commit = git(dir, &["rev-parse", "--short=12", "HEAD"]).filter(|c| is_commit(c))?;
    // Rerun when HEAD moves: HEAD itself (a checkout), the branch's ref file
    // (a commit) and packed-refs (a `git pack-refs`). Worktrees keep HEAD
    // in their own git directory, which `--git-path` finds.
    if std::env::var("PROFILE").as_deref() != Ok("release") {
        return Some(commit);
    }
    // A path that does not exist is left out: cargo would rerun the script
    // (and rebuild the crate) on every build.
    let branch = git(dir, &["symbolic-ref", "-q", "HEAD"]);
    for path in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        if let Some(p) = git(dir, &["rev-parse", "--git-path", path]) {
            watch(&dir.join(p));
        }
    }
    Some(commit)
}

/// Reruns the script when `path` changes, if it exists.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// `"sha1": "<40 hex digits>"` from cargo's `.cargo_vcs_info.json`, read
/// without a JSON parser (build scripts get no dependencies here).
fn from_vcs_info(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    watch(&path);
    let text = std::fs::read_to_string(path).ok()?;
    let rest = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let sha = &rest[..rest.find('"')?];
    is_commit(sha).then(|| sha[..12.min(sha.len())].to_string())
}
