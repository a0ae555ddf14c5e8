//! Which remote hosts a run knows (`--host`, `$TMUXWIRE_HOSTS`,
//! `--host-tmux`, `--ssh-config`, `--ssh-keepalive`), and which one a CLI
//! command works on. Pure: the environment comes in as values.

use std::path::PathBuf;

use crate::wire::ssh::{HostConfig, check_dest, check_name};

/// The hosts and the one chosen.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct HostChoice {
    /// Every configured host.
    pub hosts: Vec<HostConfig>,
    /// For a CLI command with `--host`: the host's name (`None`: this
    /// machine).
    pub selected: Option<String>,
}

/// What the command line and the environment say about hosts.
#[derive(Debug, Default)]
pub struct HostFlags<'a> {
    /// `--host` values.
    pub host: &'a [String],
    /// True for `mcp`, where each `--host` is `NAME=DEST`; for the other
    /// commands one `--host` names a configured host or is a destination.
    pub configure: bool,
    /// `$TMUXWIRE_HOSTS`: `name=dest,…`.
    pub env_hosts: Option<&'a str>,
    /// `--host-tmux` values, then `$TMUXWIRE_HOST_TMUX` (`name=path,…`).
    pub host_tmux: &'a [String],
    /// `$TMUXWIRE_HOST_TMUX`.
    pub env_host_tmux: Option<&'a str>,
    /// `--ssh-config`.
    pub ssh_config: Option<PathBuf>,
    /// `--ssh-keepalive`.
    pub keepalive: Option<u32>,
}

/// Splits `NAME=VALUE` (`shape` says what VALUE is, e.g. `NAME=DEST`),
/// checking the name.
fn pair<'s>(s: &'s str, what: &str, shape: &str) -> Result<(&'s str, &'s str), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("{what} {s:?} must be {shape}"))?;
    check_name(name)?;
    Ok((name.trim(), value.trim()))
}

/// Reads the host flags.
///
/// # Errors
///
/// A sentence naming the bad value.
pub fn choose(f: &HostFlags<'_>) -> Result<HostChoice, String> {
    let mut hosts: Vec<HostConfig> = Vec::new();
    fn add(hosts: &mut Vec<HostConfig>, name: &str, dest: &str) -> Result<(), String> {
        check_dest(dest)?;
        hosts.retain(|h| h.name != name);
        hosts.push(HostConfig::new(name, dest));
        Ok(())
    }
    for item in f.env_hosts.unwrap_or("").split(',').map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let (name, dest) = pair(item, "TMUXWIRE_HOSTS entry", "NAME=DEST")?;
        add(&mut hosts, name, dest)?;
    }
    let mut selected = None;
    if f.configure {
        // A flag replaces an entry of TMUXWIRE_HOSTS with its name; two
        // flags with one name are a mistake.
        let mut given: Vec<&str> = Vec::new();
        for h in f.host {
            let (name, dest) = pair(h, "--host", "NAME=DEST")?;
            if given.contains(&name) {
                return Err(format!("--host {name}=… is given twice"));
            }
            given.push(name);
            add(&mut hosts, name, dest)?;
        }
    } else {
        match f.host {
            [] => {}
            [one] if one == crate::tmux::LOCAL_HOST => {}
            [one] => {
                if one.starts_with('-') {
                    check_dest(one)?;
                }
                if one.contains('=') {
                    return Err(format!(
                        "--host {one:?}: NAME=DEST configures a host for `tmuxwire mcp`; here give \
                         a host's NAME or an ssh destination"
                    ));
                }
                if !hosts.iter().any(|h| h.name == *one) {
                    // A destination: a host of its own, named after it.
                    let name: String = one
                        .chars()
                        .map(|c| {
                            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                                c
                            } else {
                                '-'
                            }
                        })
                        .take(64)
                        .collect();
                    let name = if name == crate::tmux::LOCAL_HOST {
                        "local-host".to_string()
                    } else {
                        name
                    };
                    add(&mut hosts, &name, one)?;
                    selected = Some(name);
                } else {
                    selected = Some(one.clone());
                }
            }
            _ => return Err("give --host once (one host per command)".into()),
        }
    }
    let tmux_env: Vec<String> = f
        .env_host_tmux
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let from_env = tmux_env.len();
    for (i, item) in tmux_env.iter().chain(f.host_tmux).enumerate() {
        let what = if i < from_env {
            "TMUXWIRE_HOST_TMUX entry"
        } else {
            "--host-tmux"
        };
        let (name, path) = pair(item, what, "NAME=PATH")?;
        if path.is_empty() || path.contains('\0') {
            return Err(format!("{what} {item:?}: the path is empty"));
        }
        match hosts.iter_mut().find(|h| h.name == name) {
            Some(h) => h.tmux = Some(path.to_string()),
            None => return Err(format!("{what} {item:?}: no host is named {name:?}")),
        }
    }
    for h in &mut hosts {
        h.ssh_config = f.ssh_config.clone();
        if let Some(k) = f.keepalive {
            h.keepalive.interval = k.max(1);
        }
    }
    Ok(HostChoice { hosts, selected })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_from_flags_and_environment() {
        let host = ["b=other".to_string(), "c=u@c".to_string()];
        let c = choose(&HostFlags {
            host: &host,
            configure: true,
            env_hosts: Some("a=dev, b=build ,"),
            host_tmux: &["c=/opt/tmux".to_string()],
            keepalive: Some(2),
            ..HostFlags::default()
        })
        .unwrap();
        let names: Vec<(&str, &str)> = c
            .hosts
            .iter()
            .map(|h| (h.name.as_str(), h.dest.as_str()))
            .collect();
        assert_eq!(names, [("a", "dev"), ("b", "other"), ("c", "u@c")]);
        assert_eq!(c.hosts[2].tmux.as_deref(), Some("/opt/tmux"));
        assert_eq!(c.hosts[0].keepalive.interval, 2);
        assert_eq!(c.selected, None);
    }

    #[test]
    fn a_command_picks_a_name_or_a_destination() {
        let pick = |h: &str| {
            choose(&HostFlags {
                host: &[h.to_string()],
                env_hosts: Some("dev=devbox"),
                ..HostFlags::default()
            })
        };
        assert_eq!(pick("dev").unwrap().selected.as_deref(), Some("dev"));
        let c = pick("me@box:22").unwrap();
        assert_eq!(c.selected.as_deref(), Some("me-box-22"));
        assert_eq!(c.hosts.last().unwrap().dest, "me@box:22");
        assert_eq!(pick("local").unwrap().selected, None);
        assert!(pick("a=b").is_err());
        assert!(pick("-oProxyCommand=x").is_err());
    }

    #[test]
    fn bad_values_are_refused() {
        let bad = |env: &str, host: &[&str], tmux: &[&str]| {
            let host: Vec<String> = host.iter().map(|s| s.to_string()).collect();
            let tmux: Vec<String> = tmux.iter().map(|s| s.to_string()).collect();
            choose(&HostFlags {
                host: &host,
                configure: true,
                env_hosts: Some(env),
                host_tmux: &tmux,
                ..HostFlags::default()
            })
            .is_err()
        };
        assert!(bad("nodest", &[], &[]));
        assert!(bad("", &["local=x"], &[]));
        assert!(bad("", &["a b=x"], &[]));
        assert!(bad("", &["a=-x"], &[]));
        assert!(bad("", &["a=x"], &["b=/t"]));
        assert!(!bad("", &["a=x"], &["a=/t"]));
        assert!(bad("", &["a=x", "a=y"], &[]));
        assert!(!bad("a=x", &["a=y"], &[]));
    }
}
