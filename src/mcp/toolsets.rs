//! Which tools a server offers: libtmux-mcp's four toolsets, chosen at
//! start-up, plus tools enabled or refused by name. Pure.
//!
//! # Format
//!
//! ```text
//! TMUXWIRE_TOOLSETS=inspect,manage,execute   (default; also teardown, core)
//! TMUXWIRE_TOOLS=kill_pane,clear_pane        (enabled whatever their toolset)
//! TMUXWIRE_EXCLUDE_TOOLS=send_keys           (refused; beats every enable)
//! ```
//!
//! Comma lists, blanks around names ignored, empty items skipped; an
//! empty `TMUXWIRE_TOOLSETS` offers no toolset. `core` is tmuxwire's own
//! choice across the four: the few tools an agent needs most (find, read,
//! type, wait, run, state; the rows marked so), for small models and
//! small contexts; with others it adds those tools to theirs. Each variable falls back
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
//!
//! Which tools exist and the toolset of each are the tool table's
//! (`mcp::tools`, one row per tool); a policy is told them, so this
//! module knows no tool names.

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

/// The toolsets offered when none are chosen.
pub const DEFAULT: [Toolset; 3] = [Toolset::Inspect, Toolset::Manage, Toolset::Execute];

/// The name of the core choice in `TMUXWIRE_TOOLSETS`.
pub const CORE: &str = "core";

/// What a server offers: toolsets, tools enabled by name, tools refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    toolsets: BTreeSet<Toolset>,
    /// The core tools are offered ([`CORE`]).
    core: bool,
    include: BTreeSet<String>,
    exclude: BTreeSet<String>,
}

impl Default for Policy {
    /// The [`DEFAULT`] toolsets, nothing else.
    fn default() -> Policy {
        Policy {
            toolsets: DEFAULT.into_iter().collect(),
            core: false,
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
    /// reads a variable, `is_tool` says whether a tool name exists
    /// (`mcp::tools::is_tool`).
    ///
    /// # Errors
    ///
    /// A message naming the variable and the unknown names.
    pub fn from_env(
        get: impl Fn(&str) -> Option<String>,
        is_tool: impl Fn(&str) -> bool,
    ) -> Result<Policy, String> {
        let mut p = Policy::default();
        if let Some((var_name, list)) = var(&get, "TMUXWIRE_TOOLSETS", "LIBTMUX_TOOLSETS") {
            let mut sets = BTreeSet::new();
            let mut core = false;
            let mut unknown = Vec::new();
            for item in items(&list) {
                let name = item.to_ascii_lowercase();
                match Toolset::parse(&name) {
                    Some(t) => {
                        sets.insert(t);
                    }
                    None if name == CORE => core = true,
                    None => unknown.push(item.to_string()),
                }
            }
            if !unknown.is_empty() {
                return Err(format!(
                    "{var_name} names unknown toolsets: {} (known: inspect, manage, execute, \
                     teardown, core)",
                    unknown.join(", ")
                ));
            }
            p.toolsets = sets;
            p.core = core;
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
            let unknown: Vec<&str> = items(&list).filter(|n| !is_tool(n)).collect();
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

    /// Whether tool `name` of `toolset` (one of the core tools when
    /// `core`) is offered: its toolset is chosen, or it is a core tool
    /// and core is, or it is enabled by name; and it is not refused.
    pub fn offers(&self, name: &str, toolset: Toolset, core: bool) -> bool {
        if self.is_excluded(name) {
            return false;
        }
        self.include.contains(name) || self.toolsets.contains(&toolset) || (core && self.core)
    }

    /// A sentence for the server instructions.
    pub fn describe(&self) -> String {
        let mut names: Vec<&str> = self.toolsets.iter().map(|t| t.name()).collect();
        if self.core {
            names.push(CORE);
        }
        format!(
            "Toolsets: {} (of inspect, manage, execute, teardown; core: the few tools an agent \
             needs most), set by TMUXWIRE_TOOLSETS. Hiding one shapes this list, not what a \
             pane can run.",
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

    /// A stand-in for the tool table (`mcp::tools`): a few tools.
    fn toolset(name: &str) -> Option<Toolset> {
        match name {
            "list_panes" => Some(Toolset::Inspect),
            "send_keys" | "paste_text" | "run_command" => Some(Toolset::Execute),
            "kill_pane" => Some(Toolset::Teardown),
            _ => None,
        }
    }

    fn policy(vars: &[(&str, &str)]) -> Result<Policy, String> {
        Policy::from_env(env(vars), |n| toolset(n).is_some())
    }

    /// The stand-in's core tools.
    fn is_core(name: &str) -> bool {
        matches!(name, "list_panes" | "send_keys")
    }

    fn offers(p: &Policy, name: &str) -> bool {
        toolset(name).is_some_and(|t| p.offers(name, t, is_core(name)))
    }

    #[test]
    fn choices() {
        let p = policy(&[]).unwrap();
        assert!(offers(&p, "send_keys") && offers(&p, "list_panes"));
        assert!(!offers(&p, "kill_pane"));
        let p = policy(&[("TMUXWIRE_TOOLSETS", " inspect , ")]).unwrap();
        assert!(offers(&p, "list_panes") && !offers(&p, "send_keys"));
        let p = policy(&[("LIBTMUX_TOOLSETS", "")]).unwrap();
        assert!(!offers(&p, "list_panes"));
        assert!(p.describe().contains("Toolsets: none"));
        // Ours beats libtmux-mcp's.
        let p = policy(&[
            ("TMUXWIRE_TOOLSETS", "teardown"),
            ("LIBTMUX_TOOLSETS", "inspect"),
        ])
        .unwrap();
        assert!(offers(&p, "kill_pane") && !offers(&p, "list_panes"));
        let p = policy(&[
            ("TMUXWIRE_TOOLS", "kill_pane"),
            ("LIBTMUX_EXCLUDE_TOOLS", "send_keys,kill_pane"),
        ])
        .unwrap();
        assert!(!offers(&p, "kill_pane") && !offers(&p, "send_keys") && p.is_excluded("kill_pane"));
        assert!(offers(&p, "paste_text"));
        // core: its tools, whatever their toolset; with a toolset, both.
        let p = policy(&[("TMUXWIRE_TOOLSETS", "Core")]).unwrap();
        assert!(offers(&p, "list_panes") && offers(&p, "send_keys"));
        assert!(!offers(&p, "paste_text") && !offers(&p, "kill_pane"));
        assert!(
            p.describe().starts_with("Toolsets: core "),
            "{}",
            p.describe()
        );
        let p = policy(&[("TMUXWIRE_TOOLSETS", "core,teardown")]).unwrap();
        assert!(offers(&p, "send_keys") && offers(&p, "kill_pane") && !offers(&p, "paste_text"));
        let p = policy(&[
            ("TMUXWIRE_TOOLSETS", "core"),
            ("TMUXWIRE_EXCLUDE_TOOLS", "send_keys"),
        ])
        .unwrap();
        assert!(!offers(&p, "send_keys"));
    }

    #[test]
    fn unknown_names_fail() {
        let e = policy(&[("TMUXWIRE_TOOLSETS", "inspect,danger")]).unwrap_err();
        assert!(
            e.contains("TMUXWIRE_TOOLSETS") && e.contains("danger"),
            "{e}"
        );
        let e = policy(&[("LIBTMUX_TOOLS", "list_panes,nope")]).unwrap_err();
        assert!(e.contains("LIBTMUX_TOOLS names unknown tools: nope"), "{e}");
        let e = policy(&[("TMUXWIRE_EXCLUDE_TOOLS", "x")]).unwrap_err();
        assert!(e.contains("TMUXWIRE_EXCLUDE_TOOLS"), "{e}");
        assert!(policy(&[("TMUXWIRE_TOOLS", "run_command")]).is_ok());
    }
}
