//! Options, environment and hooks: read and set (hooks read only, as
//! libtmux-mcp: hooks survive the process that set them). One round trip
//! each.
//!
//! Option values are stored verbatim (`set-option` does not expand them;
//! a status format is meant to keep its `#{…}`), and so are environment
//! values (`set-environment` expands only with `-F`, which is never sent).

use super::error::{Error, ErrorKind};
use super::model::HookEntry;
use super::server::Tmux;
use crate::control::{Command, Target, TargetKind};

/// Which table an option or hook lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Server options (`-s`).
    Server,
    /// Session options (no flag).
    Session,
    /// Window options (`-w`).
    Window,
    /// Pane options (`-p`).
    Pane,
}

impl Scope {
    /// Parses `server`, `session`, `window`, `pane`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for anything else.
    pub fn parse(s: &str) -> Result<Scope, Error> {
        match s {
            "server" => Ok(Scope::Server),
            "session" => Ok(Scope::Session),
            "window" => Ok(Scope::Window),
            "pane" => Ok(Scope::Pane),
            other => Err(Error::invalid(
                "scope",
                format!("Invalid scope: '{}'", super::error::shorten(other, 40)),
                "one of server, session, window, pane",
            )),
        }
    }
}

/// Where an option or hook is read or set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The table (`None`: tmux's default, session options).
    pub scope: Option<Scope>,
    /// The object (`-t`), resolved.
    pub target: Option<Target>,
    /// The global table (`-g`).
    pub global: bool,
}

impl Place {
    fn flags(&self, mut cmd: Command) -> Command {
        if self.global {
            cmd = cmd.arg("-g");
        }
        match self.scope {
            Some(Scope::Server) => cmd = cmd.arg("-s"),
            Some(Scope::Window) => cmd = cmd.arg("-w"),
            Some(Scope::Pane) => cmd = cmd.arg("-p"),
            Some(Scope::Session) | None => {}
        }
        if let Some(t) = &self.target {
            // show-options, set-option and show-hooks read -t as a pane
            // (cmd-set-option.c: CMD_FIND_PANE): a session by name must be
            // `=name:`, which is what a pane target gives.
            cmd = cmd.target(t, TargetKind::Pane);
        }
        cmd
    }
}

fn check_option(option: &str) -> Result<(), Error> {
    if option.is_empty() || option.contains(['\0', ' ', '\n']) {
        return Err(Error::invalid(
            "option",
            "option must be an option name (no spaces)",
            "an option name such as history-limit or @my-option",
        ));
    }
    Ok(())
}

/// Environment variables as `show-environment` prints them: `NAME=value`,
/// or `-NAME` for a variable marked for removal (`None`). A line without
/// `=` after a variable continues its value (a value with a line break).
pub fn parse_environment(body: &[u8]) -> Vec<(String, Option<String>)> {
    let text = String::from_utf8_lossy(body);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    if text.is_empty() {
        return out;
    }
    for line in text.split('\n') {
        if let Some(name) = line.strip_prefix('-')
            && !name.contains('=')
        {
            out.push((name.to_string(), None));
        } else if let Some((k, v)) = line.split_once('=') {
            out.push((k.to_string(), Some(v.to_string())));
        } else if let Some((_, Some(v))) = out.last_mut() {
            v.push('\n');
            v.push_str(line);
        }
    }
    out
}

/// Hook entries as `show-hooks` prints them: `name[index] command` for
/// each command set; a bare name (no command set) is left out.
pub fn parse_hooks(body: &[u8]) -> Vec<HookEntry> {
    let text = String::from_utf8_lossy(body);
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((key, command)) = line.split_once(' ') else {
            continue;
        };
        let (name, index) = match key.split_once('[') {
            Some((n, rest)) => (n, rest.strip_suffix(']').and_then(|i| i.parse().ok())),
            None => (key, None),
        };
        out.push(HookEntry {
            hook_name: name.to_string(),
            index,
            command: command.to_string(),
        });
    }
    out
}

impl Tmux {
    /// An option's value as tmux prints it (`show-options -v`), or `None`
    /// when it is not set at that place.
    ///
    /// # Errors
    ///
    /// tmux's errors (`invalid option: x`, `ambiguous option: x`).
    pub async fn show_option(&self, option: &str, place: &Place) -> Result<Option<String>, Error> {
        check_option(option)?;
        let cmd = place
            .flags(Command::new("show-options").arg("-v"))
            .arg("--")
            .arg(option);
        match self.act(vec![cmd]).await {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out[0]);
                let text = text.strip_suffix('\n').unwrap_or(&text);
                Ok((!text.is_empty()).then(|| text.to_string()))
            }
            // A user option that is not set here.
            Err(e)
                if e.is(ErrorKind::Tmux)
                    && option.starts_with('@')
                    && e.detail().contains("invalid option") =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Sets an option to `value`, verbatim.
    ///
    /// # Errors
    ///
    /// tmux's errors (`invalid option`, `value is invalid`).
    pub async fn set_option(&self, option: &str, value: &str, place: &Place) -> Result<(), Error> {
        check_option(option)?;
        let cmd = place
            .flags(Command::new("set-option"))
            .arg("--")
            .arg(option)
            .arg(value);
        self.act(vec![cmd]).await.map(drop)
    }

    /// The global environment (`session: None`) or a session's.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing session.
    pub async fn show_environment(
        &self,
        session: Option<&Target>,
    ) -> Result<Vec<(String, Option<String>)>, Error> {
        let cmd = match session {
            Some(s) => Command::new("show-environment").target(s, TargetKind::Session),
            None => Command::new("show-environment").arg("-g"),
        };
        let out = self.act(vec![cmd]).await?;
        Ok(parse_environment(&out[0]))
    }

    /// Sets a variable in the global environment (`session: None`) or a
    /// session's, verbatim.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a bad name; [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound).
    pub async fn set_environment(
        &self,
        name: &str,
        value: &str,
        session: Option<&Target>,
    ) -> Result<(), Error> {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(Error::invalid(
                "name",
                "name must be a variable name without '='",
                "an environment variable name such as EDITOR",
            ));
        }
        let cmd = match session {
            Some(s) => Command::new("set-environment").target(s, TargetKind::Session),
            None => Command::new("set-environment").arg("-g"),
        };
        self.act(vec![cmd.arg("--").arg(name).arg(value)])
            .await
            .map(drop)
    }

    /// Hooks set at `place`, or only `hook` when given. The server's
    /// global hooks without a target read both tables tmux keeps them in
    /// (`show-hooks -g` and `-gw`), in one round trip.
    ///
    /// # Errors
    ///
    /// tmux's errors (`invalid option: no-such-hook`).
    pub async fn show_hooks(
        &self,
        place: &Place,
        hook: Option<&str>,
    ) -> Result<Vec<HookEntry>, Error> {
        if let Some(h) = hook {
            check_option(h).map_err(|_| {
                Error::invalid(
                    "hook_name",
                    "hook_name must be a hook name",
                    "a hook name such as after-new-window",
                )
            })?;
        }
        let build = |p: &Place| {
            let cmd = p.flags(Command::new("show-hooks"));
            match hook {
                Some(h) => cmd.arg("--").arg(h),
                None => cmd,
            }
        };
        let mut cmds = Vec::new();
        if place.scope == Some(Scope::Server) && place.target.is_none() {
            let global = Place {
                scope: None,
                target: None,
                global: true,
            };
            let window = Place {
                scope: Some(Scope::Window),
                target: None,
                global: true,
            };
            cmds.push(build(&global));
            cmds.push(build(&window));
        } else {
            cmds.push(build(place));
        }
        let lines: Vec<Vec<Command>> = cmds.into_iter().map(|c| vec![c]).collect();
        let answers = self.run_lines(&lines, super::server::Retry::Safe).await?;
        let mut entries = Vec::new();
        let mut first_error = None;
        let mut any_ok = false;
        for a in answers {
            for o in a {
                if o.ok {
                    any_ok = true;
                    entries.extend(parse_hooks(&o.body));
                } else if first_error.is_none() {
                    first_error = Some(Error::from_tmux(&String::from_utf8_lossy(&o.body)));
                }
            }
        }
        match first_error {
            // One table knows the hook: the other's "invalid option" is
            // no error.
            Some(e) if !any_ok => Err(e),
            _ => Ok(entries),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment() {
        let env = parse_environment(b"A=1\n-GONE\nB=x=y\nC=l1\nl2\nD=\n");
        assert_eq!(
            env,
            vec![
                ("A".into(), Some("1".into())),
                ("GONE".into(), None),
                ("B".into(), Some("x=y".into())),
                ("C".into(), Some("l1\nl2".into())),
                ("D".into(), Some(String::new())),
            ]
        );
        assert!(parse_environment(b"").is_empty());
    }

    #[test]
    fn hooks() {
        let h = parse_hooks(
            b"after-kill-pane\nafter-new-window[0] display-message hi\nafter-new-window[1] run-shell true\n",
        );
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].hook_name, "after-new-window");
        assert_eq!(h[0].index, Some(0));
        assert_eq!(h[1].command, "run-shell true");
        assert!(Scope::parse("nope").is_err());
    }
}
