//! Which tools a server offers: libtmux-mcp's four toolsets, chosen at
//! start-up, plus tools enabled or refused by name. Pure.
//!
//! # Format
//!
//! ```text
//! TMUXWIRE_TOOLSETS=inspect,manage,execute   (default; also teardown)
//! TMUXWIRE_TOOLS=kill_pane,clear_pane        (enabled whatever their toolset)
//! TMUXWIRE_EXCLUDE_TOOLS=send_keys           (refused; beats every enable)
//! ```
//!
//! Comma lists, blanks around names ignored, empty items skipped; an
//! empty `TMUXWIRE_TOOLSETS` offers no toolset. Each variable falls back
//! to libtmux-mcp's (`LIBTMUX_TOOLSETS`, `LIBTMUX_TOOLS`,
//! `LIBTMUX_EXCLUDE_TOOLS`) when unset. An unknown toolset or tool name
//! is an error at start-up: a typo must not silently widen or narrow what
//! a model can do.
//!
//! A tool that is not offered is unknown on the wire: not in
//! `tools/list`, and calling it answers "Unknown tool", as for a name
//! that never existed. `call_read_tools_batch` may run inspect tools a
//! toolset choice hides, never excluded ones.
//!
//! Toolsets shape what a model is offered; they are not confinement: an
//! execute tool types into shells, and tmux hooks and aliases can make
//! any command do more.

use std::collections::BTreeSet;

/// A group of tools, as libtmux-mcp tags them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Toolset {
    /// Reading: listings, captures, searches, options, buffers.
    Inspect,
    /// Changing tmux objects without running anything in a pane.
    Manage,
    /// Creating things and sending input: processes run.
    Execute,
    /// Killing and clearing.
    Teardown,
}

impl Toolset {
    /// Every toolset, in libtmux-mcp's order.
    pub const ALL: [Toolset; 4] = [
        Toolset::Inspect,
        Toolset::Manage,
        Toolset::Execute,
        Toolset::Teardown,
    ];

    /// The toolset's name.
    pub fn name(self) -> &'static str {
        match self {
            Toolset::Inspect => "inspect",
            Toolset::Manage => "manage",
            Toolset::Execute => "execute",
            Toolset::Teardown => "teardown",
        }
    }

    fn parse(s: &str) -> Option<Toolset> {
        Toolset::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// Every libtmux-mcp tool name (0.1.0a22: 54) and its toolset; tmuxwire
/// serves them all.
pub const REFERENCE: &[(&str, Toolset)] = &[
    ("call_read_tools_batch", Toolset::Inspect),
    ("capture_pane", Toolset::Inspect),
    ("capture_since", Toolset::Inspect),
    ("display_message", Toolset::Inspect),
    ("find_pane_by_position", Toolset::Inspect),
    ("get_pane_info", Toolset::Inspect),
    ("get_server_info", Toolset::Inspect),
    ("get_session_info", Toolset::Inspect),
    ("get_window_info", Toolset::Inspect),
    ("list_panes", Toolset::Inspect),
    ("list_servers", Toolset::Inspect),
    ("list_sessions", Toolset::Inspect),
    ("list_windows", Toolset::Inspect),
    ("search_panes", Toolset::Inspect),
    ("show_buffer", Toolset::Inspect),
    ("show_environment", Toolset::Inspect),
    ("show_hook", Toolset::Inspect),
    ("show_hooks", Toolset::Inspect),
    ("show_option", Toolset::Inspect),
    ("snapshot_pane", Toolset::Inspect),
    ("wait_for_text", Toolset::Inspect),
    ("enter_copy_mode", Toolset::Manage),
    ("exit_copy_mode", Toolset::Manage),
    ("load_buffer", Toolset::Manage),
    ("move_window", Toolset::Manage),
    ("rename_session", Toolset::Manage),
    ("rename_window", Toolset::Manage),
    ("resize_pane", Toolset::Manage),
    ("resize_window", Toolset::Manage),
    ("select_layout", Toolset::Manage),
    ("select_pane", Toolset::Manage),
    ("select_window", Toolset::Manage),
    ("set_pane_title", Toolset::Manage),
    ("signal_channel", Toolset::Manage),
    ("swap_pane", Toolset::Manage),
    ("wait_for_channel", Toolset::Manage),
    ("create_session", Toolset::Execute),
    ("create_window", Toolset::Execute),
    ("paste_buffer", Toolset::Execute),
    ("paste_text", Toolset::Execute),
    ("pipe_pane", Toolset::Execute),
    ("respawn_pane", Toolset::Execute),
    ("run_command", Toolset::Execute),
    ("send_keys", Toolset::Execute),
    ("send_keys_batch", Toolset::Execute),
    ("set_environment", Toolset::Execute),
    ("set_option", Toolset::Execute),
    ("split_window", Toolset::Execute),
    ("clear_pane", Toolset::Teardown),
    ("delete_buffer", Toolset::Teardown),
    ("kill_pane", Toolset::Teardown),
    ("kill_server", Toolset::Teardown),
    ("kill_session", Toolset::Teardown),
    ("kill_window", Toolset::Teardown),
];

/// Tools that bound their own waiting; batches refuse them.
pub const SELF_BOUNDED: &[&str] = &["wait_for_text", "wait_for_channel", "run_command"];

/// The toolset of a known tool.
pub fn toolset_of(name: &str) -> Option<Toolset> {
    REFERENCE.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The toolsets offered when none are chosen.
pub const DEFAULT: [Toolset; 3] = [Toolset::Inspect, Toolset::Manage, Toolset::Execute];

/// What a server offers: toolsets, tools enabled by name, tools refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    toolsets: BTreeSet<Toolset>,
    include: BTreeSet<String>,
    exclude: BTreeSet<String>,
}

impl Default for Policy {
    /// The [`DEFAULT`] toolsets, nothing else.
    fn default() -> Policy {
        Policy {
            toolsets: DEFAULT.into_iter().collect(),
            include: BTreeSet::new(),
            exclude: BTreeSet::new(),
        }
    }
}

/// A list variable, `tmuxwire`'s first, libtmux-mcp's as a fallback.
fn var(
    get: &impl Fn(&str) -> Option<String>,
    ours: &'static str,
    theirs: &'static str,
) -> Option<(&'static str, String)> {
    get(ours)
        .map(|v| (ours, v))
        .or_else(|| get(theirs).map(|v| (theirs, v)))
}

fn items(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
}

impl Policy {
    /// Every toolset (the command line, tests).
    pub fn all() -> Policy {
        Policy {
            toolsets: Toolset::ALL.into_iter().collect(),
            ..Policy::default()
        }
    }

    /// The policy the environment asks for (see the module docs); `get`
    /// reads a variable.
    ///
    /// # Errors
    ///
    /// A message naming the variable and the unknown names.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Policy, String> {
        let mut p = Policy::default();
        if let Some((var_name, list)) = var(&get, "TMUXWIRE_TOOLSETS", "LIBTMUX_TOOLSETS") {
            let mut sets = BTreeSet::new();
            let mut unknown = Vec::new();
            for item in items(&list) {
                match Toolset::parse(&item.to_ascii_lowercase()) {
                    Some(t) => {
                        sets.insert(t);
                    }
                    None => unknown.push(item.to_string()),
                }
            }
            if !unknown.is_empty() {
                return Err(format!(
                    "{var_name} names unknown toolsets: {} (known: inspect, manage, execute, \
                     teardown)",
                    unknown.join(", ")
                ));
            }
            p.toolsets = sets;
        }
        for (ours, theirs, into) in [
            ("TMUXWIRE_TOOLS", "LIBTMUX_TOOLS", &mut p.include),
            (
                "TMUXWIRE_EXCLUDE_TOOLS",
                "LIBTMUX_EXCLUDE_TOOLS",
                &mut p.exclude,
            ),
        ] {
            let Some((var_name, list)) = var(&get, ours, theirs) else {
                continue;
            };
            let unknown: Vec<&str> = items(&list).filter(|n| toolset_of(n).is_none()).collect();
            if !unknown.is_empty() {
                return Err(format!(
                    "{var_name} names unknown tools: {}",
                    unknown.join(", ")
                ));
            }
            into.extend(items(&list).map(str::to_string));
        }
        Ok(p)
    }

    /// The toolsets chosen, in order.
    pub fn toolsets(&self) -> Vec<Toolset> {
        self.toolsets.iter().copied().collect()
    }

    /// Whether `name` is refused by name.
    pub fn is_excluded(&self, name: &str) -> bool {
        self.exclude.contains(name)
    }

    /// Whether `name` is offered: its toolset is chosen or it is enabled
    /// by name, and it is not refused.
    pub fn offers(&self, name: &str) -> bool {
        if self.is_excluded(name) {
            return false;
        }
        self.include.contains(name) || toolset_of(name).is_some_and(|t| self.toolsets.contains(&t))
    }

    /// A sentence for the server instructions.
    pub fn describe(&self) -> String {
        let names: Vec<&str> = self.toolsets.iter().map(|t| t.name()).collect();
        format!(
            "Toolsets: {} (of inspect, manage, execute, teardown), set by TMUXWIRE_TOOLSETS. \
             Hiding one shapes this list, not what a pane can run.",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(",")
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let v: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| v.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn reference_inventory() {
        assert_eq!(REFERENCE.len(), 54);
        let count = |t| REFERENCE.iter().filter(|(_, s)| *s == t).count();
        assert_eq!(
            [
                count(Toolset::Inspect),
                count(Toolset::Manage),
                count(Toolset::Execute),
                count(Toolset::Teardown)
            ],
            [21, 15, 12, 6]
        );
        let mut names: Vec<&str> = REFERENCE.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 54);
    }

    #[test]
    fn choices() {
        let p = Policy::from_env(env(&[])).unwrap();
        assert!(p.offers("send_keys") && p.offers("list_panes"));
        assert!(!p.offers("kill_pane"));
        let p = Policy::from_env(env(&[("TMUXWIRE_TOOLSETS", " inspect , ")])).unwrap();
        assert!(p.offers("list_panes") && !p.offers("send_keys"));
        let p = Policy::from_env(env(&[("LIBTMUX_TOOLSETS", "")])).unwrap();
        assert!(!p.offers("list_panes"));
        assert!(p.describe().contains("Toolsets: none"));
        // Ours beats libtmux-mcp's.
        let p = Policy::from_env(env(&[
            ("TMUXWIRE_TOOLSETS", "teardown"),
            ("LIBTMUX_TOOLSETS", "inspect"),
        ]))
        .unwrap();
        assert!(p.offers("kill_pane") && !p.offers("list_panes"));
        let p = Policy::from_env(env(&[
            ("TMUXWIRE_TOOLS", "kill_pane"),
            ("LIBTMUX_EXCLUDE_TOOLS", "send_keys,kill_pane"),
        ]))
        .unwrap();
        assert!(!p.offers("kill_pane") && !p.offers("send_keys") && p.is_excluded("kill_pane"));
        assert!(p.offers("paste_text"));
    }

    #[test]
    fn unknown_names_fail() {
        let e = Policy::from_env(env(&[("TMUXWIRE_TOOLSETS", "inspect,danger")])).unwrap_err();
        assert!(
            e.contains("TMUXWIRE_TOOLSETS") && e.contains("danger"),
            "{e}"
        );
        let e = Policy::from_env(env(&[("LIBTMUX_TOOLS", "list_panes,nope")])).unwrap_err();
        assert!(e.contains("LIBTMUX_TOOLS names unknown tools: nope"), "{e}");
        let e = Policy::from_env(env(&[("TMUXWIRE_EXCLUDE_TOOLS", "x")])).unwrap_err();
        assert!(e.contains("TMUXWIRE_EXCLUDE_TOOLS"), "{e}");
        assert!(Policy::from_env(env(&[("TMUXWIRE_TOOLS", "run_command")])).is_ok());
    }
}
