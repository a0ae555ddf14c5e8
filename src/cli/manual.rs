//! `tmuxwire completions SHELL` and `tmuxwire man`: shell completion
//! scripts (clap_complete) and manual pages (clap_mangen), generated from
//! the [`Cli`] definitions the binary parses, so they cannot drift from
//! the flags. The generators are pure (bytes out); `completions` and `man`
//! write them out and turn I/O errors into an exit status.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::CommandFactory as _;
use clap_complete::Shell;

use super::Cli;

/// The completion script for `shell`, for a program named `tmuxwire`.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tmuxwire", &mut out);
    out
}

/// The whole command tree, built (so subcommands have their display
/// names, `tmuxwire-search`), without clap's `help` subcommand.
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// The manual pages, as (file name, roff text): `tmuxwire.1` first, then
/// `tmuxwire-COMMAND.1` for each command, in `--help` order.
pub fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let cmd = command();
    let mut pages = Vec::new();
    let mut one = |cmd: clap::Command| -> std::io::Result<()> {
        let man = clap_mangen::Man::new(cmd);
        let mut text = Vec::new();
        man.render(&mut text)?;
        pages.push((man.get_filename(), text));
        Ok(())
    };
    one(cmd.clone())?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        one(sub.clone())?;
    }
    Ok(pages)
}

/// Writes `bytes` to stdout. A closed pipe (`tmuxwire man | head`) is not
/// an error; anything else is, said on stderr with exit status 2.
fn print(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tmuxwire: cannot write to stdout: {e}");
            ExitCode::from(2)
        }
    }
}

/// `tmuxwire completions SHELL`.
pub fn completions(shell: Shell) -> ExitCode {
    print(&completion_script(shell))
}

/// `tmuxwire man [--dir DIR]`: the main page on stdout, or every page
/// written into DIR (an existing directory) with their paths printed.
pub fn man(dir: Option<&Path>) -> ExitCode {
    let pages = match man_pages() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tmuxwire: cannot render the manual page: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(dir) = dir else {
        return match pages.first() {
            Some((_, text)) => print(text),
            None => ExitCode::from(2),
        };
    };
    if !dir.is_dir() {
        eprintln!(
            "tmuxwire: --dir {}: not a directory (create it first)",
            dir.display()
        );
        return ExitCode::from(2);
    }
    let mut written = String::new();
    for (name, text) in &pages {
        let path: PathBuf = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("tmuxwire: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        written.push_str(&format!("{}\n", path.display()));
    }
    print(written.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_every_command() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let script = String::from_utf8(completion_script(shell)).unwrap();
            for word in [
                "tmuxwire",
                "search",
                "capture",
                "socket-name",
                "completions",
            ] {
                assert!(script.contains(word), "{shell}: no {word}");
            }
        }
    }

    #[test]
    fn a_page_per_command_with_its_long_help() {
        let pages = man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "tmuxwire.1");
        for n in ["tmuxwire-mcp.1", "tmuxwire-search.1", "tmuxwire-man.1"] {
            assert!(names.contains(&n), "{names:?}");
        }
        assert!(!names.contains(&"tmuxwire-help.1"), "{names:?}");
        let search = &pages
            .iter()
            .find(|(n, _)| n == "tmuxwire-search.1")
            .unwrap()
            .1;
        let search = String::from_utf8_lossy(search);
        assert!(search.contains(".TH tmuxwire-search 1"), "{search}");
        assert!(search.contains("logical lines"), "long help missing");
        let main = String::from_utf8_lossy(&pages[0].1);
        assert!(main.contains(super::super::args::VERSION), "no version");
    }
}
