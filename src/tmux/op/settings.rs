//! Options, environment and hooks: `show_option`, `set_option`,
//! `show_environment`, `set_environment`, `show_hooks`, `show_hook`.
//! Hooks are read only, as libtmux-mcp: hooks survive the process that
//! set them. One round trip each (two when a session named by a name tmux
//! cannot match exactly is looked up first).
//!
//! Option values are stored verbatim (`set-option` does not expand them;
//! a status format is meant to keep its `#{…}`), and so are environment
//! values (`set-environment` expands only with `-F`, which is never sent).
//!
//! tmux's error text is read here, once, by the operation that asked
//! ([`show_option`] knows that `invalid option` for a user option means
//! "not set here"); every other tmux error is classified as
//! [`Error::from_tmux`] says.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use super::Server;
use super::fit::{Fit, Limit, SLACK, head_within, json_len, json_str_len};
use crate::control::said::{Said, said};
use crate::control::{Command, PaneId, Target, TargetKind, WindowId};
#[cfg(doc)]
use crate::tmux::ErrorKind;
use crate::tmux::error::shorten;
use crate::tmux::model::is_zero;
use crate::tmux::server::{Output, Retry};
use crate::tmux::{Error, HookEntry, Selector};

/// `text` cut to its head so that `fixed` bytes of the rest of the answer
/// and the text fit `limit`; returns the bytes cut.
fn keep_head(text: &mut String, fixed: usize, limit: Limit) -> usize {
    let Some(b) = limit.get() else { return 0 };
    let room = b.saturating_sub(fixed + SLACK);
    if json_str_len(text) <= room {
        return 0;
    }
    let keep = head_within(text, room).len();
    let cut = text.len() - keep;
    text.truncate(keep);
    cut
}

/// Fits an answer with one long text: the text `parts` picks (none: the
/// answer is left as it is) keeps its head ([`keep_head`]) beside the
/// rest of the answer and a `truncated_bytes` count, and the bytes cut
/// are added to the count `parts` picks.
fn fit_text<T: Serialize>(
    answer: &mut T,
    limit: Limit,
    parts: fn(&mut T) -> (Option<&mut String>, &mut usize),
) {
    let Some(text) = parts(answer).0 else { return };
    let mut text = std::mem::take(text);
    let fixed = json_len(&*answer) + "\"truncated_bytes\":,".len() + 20;
    let cut = keep_head(&mut text, fixed, limit);
    let (slot, truncated) = parts(answer);
    *truncated += cut;
    if let Some(slot) = slot {
        *slot = text;
    }
}

/// A long value keeps its head (`truncated_bytes`; `max_bytes` asks for
/// more).
impl Fit for OptionResult {
    fn fit(&mut self, limit: Limit) {
        fit_text(self, limit, |r| {
            let text = match &mut r.value {
                Some(OptionValue::Text(t)) => Some(t),
                _ => None,
            };
            (text, &mut r.truncated_bytes)
        });
    }
}

/// The value the caller sent, echoed: its head when long
/// (`truncated_bytes`).
impl Fit for OptionSet {
    fn fit(&mut self, limit: Limit) {
        fit_text(self, limit, |r| {
            (Some(&mut r.value), &mut r.truncated_bytes)
        });
    }
}

/// As [`OptionSet`].
impl Fit for EnvironmentSet {
    fn fit(&mut self, limit: Limit) {
        fit_text(self, limit, |r| {
            (Some(&mut r.value), &mut r.truncated_bytes)
        });
    }
}

/// The variables in name order while they fit; the rest counted in
/// `omitted` (`max_bytes` asks for more).
impl Fit for EnvironmentResult {
    fn fit_to(&mut self, b: usize) {
        if json_len(&*self) <= b {
            return;
        }
        let all = std::mem::take(&mut self.variables);
        let bare = EnvironmentResult {
            variables: BTreeMap::new(),
            omitted: usize::MAX,
        };
        let mut used = json_len(&bare) + SLACK;
        for (k, v) in all {
            let cost = json_str_len(&k) + 3 + json_len(&v) + 1;
            if self.omitted == 0 && used + cost <= b {
                used += cost;
                self.variables.insert(k, v);
            } else {
                self.omitted += 1;
            }
        }
    }
}

/// The entries in tmux's order while they fit; the rest counted in
/// `omitted` (`max_bytes` asks for more).
impl Fit for HookListResult {
    fn fit_to(&mut self, b: usize) {
        let bare = HookListResult {
            entries: Vec::new(),
            omitted: usize::MAX,
        };
        let keep = super::fit::keep_for_list(&self.entries, json_len(&bare), b);
        self.omitted += self.entries.len() - keep;
        self.entries.truncate(keep);
    }
}

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
    /// [`ErrorKind::InvalidArgument`] for anything else.
    pub fn parse(s: &str) -> Result<Scope, Error> {
        match s {
            "server" => Ok(Scope::Server),
            "session" => Ok(Scope::Session),
            "window" => Ok(Scope::Window),
            "pane" => Ok(Scope::Pane),
            other => Err(Error::invalid(
                "scope",
                format!("Invalid scope: '{}'", shorten(other, 40)),
                "one of server, session, window, pane",
            )),
        }
    }
}

/// The object an option or hook is read or set on, as the caller named
/// it: a session (looked up when the operation runs), or a window or pane
/// by id.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PlaceTarget {
    Session(Selector),
    Window(WindowId),
    Pane(PaneId),
}

/// Where an option or hook lives: the table (`scope`), the object
/// (`target`) and whether the global table is meant (`-g`). Checked when
/// built ([`Place::new`]); a session target is resolved when the
/// operation runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    scope: Option<Scope>,
    target: Option<PlaceTarget>,
    global: bool,
}

impl Place {
    /// The place `scope`, `target` and `global` name. `target` is a
    /// session name or `$N` for scope session, `@N` for window, `%N` for
    /// pane; an empty target is none. `scope: None` is tmux's default,
    /// session options.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming `scope` (a target without
    /// one) or `target` (a target for the server, or not an id of the
    /// scope's kind).
    pub fn new(scope: Option<Scope>, target: Option<&str>, global: bool) -> Result<Place, Error> {
        let target = match (target.filter(|t| !t.is_empty()), scope) {
            (None, _) => None,
            (Some(_), None) => {
                return Err(Error::invalid(
                    "scope",
                    "scope is required when target is specified",
                    "scope: session, window or pane, with a target of that kind",
                ));
            }
            (Some(_), Some(Scope::Server)) => {
                return Err(Error::invalid(
                    "target",
                    "server options have no target",
                    "no target for scope server",
                ));
            }
            (Some(s), Some(Scope::Session)) => {
                Some(PlaceTarget::Session(crate::tmux::act::session_ref(s)))
            }
            (Some(s), Some(Scope::Window)) => {
                Some(PlaceTarget::Window(s.parse().map_err(|_| {
                    Error::invalid(
                        "target",
                        "a window target is a window id",
                        "a window id like @2",
                    )
                })?))
            }
            (Some(s), Some(Scope::Pane)) => Some(PlaceTarget::Pane(s.parse().map_err(|_| {
                Error::invalid("target", "a pane target is a pane id", "a pane id like %3")
            })?)),
        };
        Ok(Place {
            scope,
            target,
            global,
        })
    }

    /// The place with its session target resolved (a round trip when the
    /// session is named by a name tmux cannot match exactly).
    async fn resolve(&self, server: &Server) -> Result<Resolved, Error> {
        let target = match &self.target {
            None => None,
            Some(PlaceTarget::Session(sel)) => Some(server.session_target(sel).await?),
            Some(PlaceTarget::Window(w)) => Some(Target::Window(*w)),
            Some(PlaceTarget::Pane(p)) => Some(Target::Pane(*p)),
        };
        Ok(Resolved {
            scope: self.scope,
            target,
            global: self.global,
        })
    }
}

/// A [`Place`] whose target is what tmux is sent.
struct Resolved {
    scope: Option<Scope>,
    target: Option<Target>,
    global: bool,
}

impl Resolved {
    /// `cmd` with the flags that choose the table and the object.
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

/// An option or hook name: not empty, no space, line break or NUL (tmux
/// would read it as more than one argument of `show-options`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionName(String);

impl OptionName {
    /// An option name (`history-limit`, `@my-option`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming `option`.
    pub fn option(name: &str) -> Result<OptionName, Error> {
        OptionName::checked(name).ok_or_else(|| {
            Error::invalid(
                "option",
                "option must be an option name (no spaces)",
                "an option name such as history-limit or @my-option",
            )
        })
    }

    /// A hook name (`after-new-window`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming `hook_name`.
    pub fn hook(name: &str) -> Result<OptionName, Error> {
        OptionName::checked(name).ok_or_else(|| {
            Error::invalid(
                "hook_name",
                "hook_name must be a hook name",
                "a hook name such as after-new-window",
            )
        })
    }

    fn checked(name: &str) -> Option<OptionName> {
        let bad = name.is_empty() || name.contains(['\0', ' ', '\n']);
        (!bad).then(|| OptionName(name.to_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A user option (`@name`), which tmux calls invalid where it is not
    /// set.
    fn is_user(&self) -> bool {
        self.0.starts_with('@')
    }
}

/// An environment variable name: not empty, no `=` or NUL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarName(String);

impl VarName {
    /// The name `name`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming `name`.
    pub fn new(name: &str) -> Result<VarName, Error> {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(Error::invalid(
                "name",
                "name must be a variable name without '='",
                "an environment variable name such as EDITOR",
            ));
        }
        Ok(VarName(name.to_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An option's value as libtmux-mcp types it: a whole number as a
/// number, anything else as tmux's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// A whole number (`history-limit` → `2000`).
    Number(i64),
    /// Anything else, as tmux printed it.
    Text(String),
}

impl OptionValue {
    /// `value` typed: digits with an optional `-` (fewer than 19
    /// characters, so it fits an `i64`) are a number.
    pub fn typed(value: String) -> OptionValue {
        let plain = !value.is_empty()
            && value.len() < 19
            && value
                .strip_prefix('-')
                .unwrap_or(&value)
                .bytes()
                .all(|b| b.is_ascii_digit());
        match value.parse::<i64>() {
            Ok(n) if plain => OptionValue::Number(n),
            _ => OptionValue::Text(value),
        }
    }
}

/// The output schema of [`OptionValue`]: what an option's value can be,
/// as libtmux-mcp advertises it (text, or a number or flag read from it).
mod schema {
    #[derive(schemars::JsonSchema)]
    #[serde(untagged)]
    #[allow(dead_code)]
    pub enum OptionValue {
        Text(String),
        Number(f64),
        Flag(bool),
    }
}

/// `show_option`: an option's value at a place.
pub struct ShowOptionRequest {
    /// The option.
    pub option: OptionName,
    /// Where it is read.
    pub place: Place,
}

/// `show_option`'s answer (libtmux-mcp `OptionResult`): the value, `null`
/// when the option is not set there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OptionResult {
    /// The option asked for.
    pub option: String,
    /// Its value, typed ([`OptionValue::typed`]).
    #[schemars(with = "Option<schema::OptionValue>")]
    pub value: Option<OptionValue>,
    /// Bytes of a long value left out at its end to fit the response
    /// budget; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_bytes: usize,
}

op!(ShowOptionRequest, OptionResult, async |req, server, _| {
    let value = show_option(server, &req.option, &req.place).await?;
    Ok(OptionResult {
        option: req.option.0,
        value: value.map(OptionValue::typed),
        truncated_bytes: 0,
    })
});

/// An option's value as tmux prints it (`show-options -v`), or `None`
/// when it is not set at `place`.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing target; [`ErrorKind::Tmux`] with
/// tmux's words (`invalid option: x`, `ambiguous option: x`).
pub(super) async fn show_option(
    server: &Server,
    option: &OptionName,
    place: &Place,
) -> Result<Option<String>, Error> {
    let place = place.resolve(server).await?;
    let cmd = place
        .flags(Command::new("show-options").arg("-v"))
        .arg("--")
        .arg(option.as_str());
    let out = one(server, cmd, Retry::Never).await?;
    if out.ok {
        let text = out.text();
        return Ok((!text.is_empty()).then_some(text));
    }
    let text = String::from_utf8_lossy(&out.body);
    // tmux calls a user option that is not set here invalid
    // (options_get_only in cmd-show-options.c finds no entry; a user
    // option has no table entry to fall back to).
    if option.is_user() && said(&text) == Said::InvalidOption {
        return Ok(None);
    }
    Err(Error::from_tmux(&text))
}

/// `set_option`: sets an option to a value, verbatim.
pub struct SetOptionRequest {
    /// The option.
    pub option: OptionName,
    /// Its new value, stored as given.
    pub value: String,
    /// Where it is set.
    pub place: Place,
}

/// `set_option`'s answer (libtmux-mcp `OptionSetResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OptionSet {
    /// The option set.
    pub option: String,
    /// The value set.
    pub value: String,
    /// Always `set`.
    pub status: String,
    /// Bytes of a long value left out of this echo (the value set is
    /// whole); left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_bytes: usize,
}

op!(SetOptionRequest, OptionSet, async |req, server, _| {
    let place = req.place.resolve(server).await?;
    let cmd = place
        .flags(Command::new("set-option"))
        .arg("--")
        .arg(req.option.as_str())
        .arg(&req.value);
    one(server, cmd, Retry::Never).await?.into_result()?;
    Ok(OptionSet {
        option: req.option.0,
        value: req.value,
        status: "set".into(),
        truncated_bytes: 0,
    })
});

/// `show_environment`: the global environment, or a session's.
#[derive(Default)]
pub struct ShowEnvironmentRequest {
    /// The session; `None`: the global environment.
    pub session: Option<Selector>,
}

/// One variable of an environment: its value, or marked for removal
/// (tmux's `-NAME`; a new process does not get it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvValue {
    /// Set to this text.
    Set(String),
    /// Marked for removal: written as `"-NAME": true`.
    Removed,
}

impl Serialize for EnvValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EnvValue::Set(v) => s.serialize_str(v),
            EnvValue::Removed => s.serialize_bool(true),
        }
    }
}

/// `show_environment`'s answer (libtmux-mcp `EnvironmentResult`): name →
/// value, in name order; a variable marked for removal is `"-NAME":
/// true`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EnvironmentResult {
    /// The variables.
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub variables: BTreeMap<String, EnvValue>,
    /// Variables after those listed (in name order) left out to fit the
    /// response budget; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

op!(
    ShowEnvironmentRequest,
    EnvironmentResult,
    async |req, server, _| {
        let out = environment(server, "show-environment", req.session.as_ref(), &[]).await?;
        let mut variables = BTreeMap::new();
        for (name, value) in parse_environment(&out) {
            match value {
                Some(v) => variables.insert(name, EnvValue::Set(v)),
                None => variables.insert(format!("-{name}"), EnvValue::Removed),
            };
        }
        Ok(EnvironmentResult {
            variables,
            omitted: 0,
        })
    }
);

/// `set_environment`: sets a variable in the global environment or a
/// session's, verbatim.
pub struct SetEnvironmentRequest {
    /// The variable.
    pub name: VarName,
    /// Its value, stored as given.
    pub value: String,
    /// The session; `None`: the global environment.
    pub session: Option<Selector>,
}

/// `set_environment`'s answer (libtmux-mcp `EnvironmentSetResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EnvironmentSet {
    /// The variable set.
    pub name: String,
    /// The value set.
    pub value: String,
    /// Always `set`.
    pub status: String,
    /// Bytes of a long value left out of this echo (the value set is
    /// whole); left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated_bytes: usize,
}

op!(
    SetEnvironmentRequest,
    EnvironmentSet,
    async |req, server, _| {
        let args = ["--", req.name.as_str(), &req.value];
        environment(server, "set-environment", req.session.as_ref(), &args).await?;
        Ok(EnvironmentSet {
            name: req.name.0,
            value: req.value,
            status: "set".into(),
            truncated_bytes: 0,
        })
    }
);

/// `show_hooks` (`hook: None`) and `show_hook`: the hooks set at a
/// place, or one hook's commands.
pub struct ShowHooksRequest {
    /// Where the hooks are read.
    pub place: Place,
    /// Only this hook.
    pub hook: Option<OptionName>,
}

/// `show_hooks`' and `show_hook`'s answer (libtmux-mcp
/// `HookListResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HookListResult {
    /// Each command set on a hook, in tmux's order.
    pub entries: Vec<HookEntry>,
    /// Entries after those listed left out to fit the response budget;
    /// left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

op!(ShowHooksRequest, HookListResult, async |req, server, _| {
    let entries = show_hooks(server, &req.place, req.hook.as_ref()).await?;
    Ok(HookListResult {
        entries,
        omitted: 0,
    })
});

/// Hooks set at `place`, or only `hook` when given. The server's global
/// hooks without a target read both tables tmux keeps them in
/// (`show-hooks -g` and `-gw`), in one round trip.
///
/// # Errors
///
/// [`ErrorKind::NotFound`] for a missing target; [`ErrorKind::Tmux`] with
/// tmux's words (`invalid option: no-such-hook`) when no table knows the
/// hook.
pub(super) async fn show_hooks(
    server: &Server,
    place: &Place,
    hook: Option<&OptionName>,
) -> Result<Vec<HookEntry>, Error> {
    let build = |p: &Resolved| {
        let cmd = p.flags(Command::new("show-hooks"));
        match hook {
            Some(h) => cmd.arg("--").arg(h.as_str()),
            None => cmd,
        }
    };
    let mut lines = Vec::new();
    if place.scope == Some(Scope::Server) && place.target.is_none() {
        for scope in [None, Some(Scope::Window)] {
            let global = Resolved {
                scope,
                target: None,
                global: true,
            };
            lines.push(vec![build(&global)]);
        }
    } else {
        lines.push(vec![build(&place.resolve(server).await?)]);
    }
    let answers = server.run_lines(&lines, Retry::Safe).await?;
    let mut entries = Vec::new();
    let mut first_error = None;
    let mut any_ok = false;
    for o in answers.into_iter().flatten() {
        if o.ok {
            any_ok = true;
            entries.extend(parse_hooks(&o.body));
        } else if first_error.is_none() {
            first_error = Some(Error::from_tmux(&String::from_utf8_lossy(&o.body)));
        }
    }
    match first_error {
        // One table knows the hook: the other's "invalid option" is no
        // error.
        Some(e) if !any_ok => Err(e),
        _ => Ok(entries),
    }
}

/// Runs one command on a line of its own; its [`Output`].
async fn one(server: &Server, cmd: Command, retry: Retry) -> Result<Output, Error> {
    let out = server.run_lines(&[vec![cmd]], retry).await?;
    out.into_iter()
        .flatten()
        .next()
        .ok_or_else(|| Error::connection("tmux answered 0 of 1 commands"))
}

/// Runs `name` (`show-environment`, `set-environment`) with `args` on a
/// session's environment, or with `-g` on the global one (`session:
/// None`); its output.
///
/// # Errors
///
/// As [`Server::session_target`]; tmux's error.
async fn environment(
    server: &Server,
    name: &str,
    session: Option<&Selector>,
    args: &[&str],
) -> Result<Vec<u8>, Error> {
    let cmd = match session {
        Some(sel) => {
            Command::new(name).target(&server.session_target(sel).await?, TargetKind::Session)
        }
        None => Command::new(name).arg("-g"),
    };
    let cmd = args.iter().fold(cmd, |c, &a| c.arg(a));
    one(server, cmd, Retry::Never).await?.into_result()
}

/// Environment variables as `show-environment` prints them: `NAME=value`,
/// or `-NAME` for a variable marked for removal (`None`). A line without
/// `=` after a variable continues its value (a value with a line break).
pub(super) fn parse_environment(body: &[u8]) -> Vec<(String, Option<String>)> {
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
pub(super) fn parse_hooks(body: &[u8]) -> Vec<HookEntry> {
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
        let v = serde_json::to_value(EnvironmentResult {
            variables: [
                ("A".to_string(), EnvValue::Set("1".into())),
                ("-GONE".to_string(), EnvValue::Removed),
            ]
            .into_iter()
            .collect(),
            omitted: 0,
        })
        .unwrap();
        assert_eq!(
            v,
            serde_json::json!({"variables": {"-GONE": true, "A": "1"}})
        );
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

    #[test]
    fn places() {
        let e = |r: Result<Place, Error>| r.unwrap_err().argument();
        assert_eq!(e(Place::new(None, Some("x"), false)), Some("scope"));
        assert_eq!(
            e(Place::new(Some(Scope::Server), Some("x"), false)),
            Some("target")
        );
        assert_eq!(
            e(Place::new(Some(Scope::Window), Some("%1"), false)),
            Some("target")
        );
        assert_eq!(
            e(Place::new(Some(Scope::Pane), Some("@1"), false)),
            Some("target")
        );
        // An empty target is none.
        assert_eq!(
            Place::new(None, Some(""), true).unwrap(),
            Place {
                scope: None,
                target: None,
                global: true
            }
        );
        assert!(Place::new(Some(Scope::Session), Some("my work"), false).is_ok());
    }

    #[test]
    fn names_and_values() {
        assert!(OptionName::option("@a b").is_err());
        assert_eq!(
            OptionName::hook("").unwrap_err().argument(),
            Some("hook_name")
        );
        assert_eq!(VarName::new("A=B").unwrap_err().argument(), Some("name"));
        assert_eq!(OptionValue::typed("2000".into()), OptionValue::Number(2000));
        assert_eq!(OptionValue::typed("-5".into()), OptionValue::Number(-5));
        assert_eq!(
            OptionValue::typed("+5".into()),
            OptionValue::Text("+5".into())
        );
        assert_eq!(
            OptionValue::typed("9".repeat(19)),
            OptionValue::Text("9".repeat(19))
        );
        assert_eq!(OptionValue::typed("".into()), OptionValue::Text("".into()));
    }
}
