//! The execute tools: creating sessions, windows and panes, and sending
//! input (processes run). Names, titles and directories are stored
//! exactly; text reaches the pane byte for byte (see
//! [`crate::tmux::input`]).

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    ADDITIVE, Ctx, Def, IDEMPOTENT, OPEN, PaneMessage, bare_output, def, object, pane_message,
    parse, targeting, tool_args, unknown_tool,
};
use crate::mcp::args::{self, EnvArg, OnError, ScopeArg};
use crate::mcp::text::{self, Rendered, TextShape};
use crate::tmux::manage::{NewSession, NewWindow, Spawn, Split, start_directory};
use crate::tmux::op::typing::{
    BatchSent, BufferPasted, KeysSent, PasteBufferRequest, PasteTextRequest, SendKeysBatchRequest,
    SendKeysRequest, TextPasted,
};
use crate::tmux::op::{self, Limit};
use crate::tmux::typing::Keys;
use crate::tmux::{Error, PaneInfo, SessionInfo, WindowInfo};

/// `create_session`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateSessionArgs {
    /// Stored exactly (tmux turns : and . into _).
    session_name: Option<String>,
    window_name: Option<String>,
    /// An existing directory (~ expanded).
    start_directory: Option<String>,
    /// Width in cells.
    x: Option<i64>,
    /// Height in rows.
    y: Option<i64>,
    /// {"NAME": "value"}, set in the session's environment.
    environment: Option<EnvArg>,
    socket_name: Option<String>,
    socket_path: Option<String>,
    /// Shells keep no history file (HISTFILE="", fish private mode).
    #[serde(default)]
    suppress_persistent_history: bool,
}

/// Where `create_window` puts the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Place {
    /// Just before the current window.
    Before,
    /// Just after the current window.
    After,
}

/// `create_window`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateWindowArgs {
    session_name: Option<String>,
    session_id: Option<String>,
    window_name: Option<String>,
    start_directory: Option<String>,
    /// Make it the current window.
    #[serde(default)]
    attach: bool,
    /// Default: the next free index.
    direction: Option<Place>,
    socket_name: Option<String>,
    socket_path: Option<String>,
    /// {"NAME": "value"} for this window's shell.
    environment: Option<EnvArg>,
    #[serde(default)]
    suppress_persistent_history: bool,
}

/// `split_window`'s directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum SplitDirection {
    /// The new pane above.
    Above,
    /// Below (tmux's default).
    Below,
    /// Left.
    Left,
    /// Right.
    Right,
}

/// A pane size: cells, or a percentage such as "30%".
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum SizeArg {
    /// Cells.
    Cells(i64),
    /// "30%" or "12".
    Text(String),
}

/// `split_window`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SplitWindowArgs {
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    window_index: Option<i64>,
    direction: Option<SplitDirection>,
    /// Cells, or "30%".
    size: Option<SizeArg>,
    start_directory: Option<String>,
    /// Command to run instead of the default shell.
    shell: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
    environment: Option<EnvArg>,
    #[serde(default)]
    suppress_persistent_history: bool,
}

fn yes() -> bool {
    true
}

/// `send_keys`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendKeysArgs {
    /// Text, typed exactly; or one key name alone (C-c, Enter, Up, Escape, F5, M-x).
    keys: String,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    /// Press Enter after.
    #[serde(default = "yes")]
    enter: bool,
    /// keys is text even if it is a key name.
    #[serde(default)]
    literal: bool,
    /// Prefix a space (shells with ignorespace skip history).
    #[serde(default)]
    suppress_history: bool,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// One operation of `send_keys_batch` (libtmux-mcp `SendKeysOperation`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendKeysOperation {
    keys: String,
    pane_id: Option<String>,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    #[serde(default = "yes")]
    enter: bool,
    #[serde(default)]
    literal: bool,
    #[serde(default)]
    suppress_history: bool,
}

/// `send_keys_batch`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendKeysBatchArgs {
    /// [{keys, pane_id, enter, literal, …}] as send_keys, in order.
    operations: Vec<SendKeysOperation>,
    #[serde(default)]
    on_error: OnError,
    /// Seconds for the whole batch.
    timeout: Option<f64>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// One operation's outcome (libtmux-mcp `SendKeysOperationResult`).
#[derive(Serialize, JsonSchema)]
struct SendResult {
    index: usize,
    pane_id: Option<String>,
    success: bool,
    error: Option<String>,
    elapsed_seconds: f64,
}

/// `send_keys_batch`'s result (libtmux-mcp `SendKeysBatchResult`).
#[derive(Serialize, JsonSchema)]
struct SendBatchResult {
    results: Vec<SendResult>,
    succeeded: usize,
    failed: usize,
    stopped_at: Option<usize>,
}

impl Rendered for SendBatchResult {
    const TEXT: TextShape = TextShape::Object(&text::SEND_BATCH);
}

/// `paste_text`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PasteTextArgs {
    /// Pasted as a terminal paste does (line breaks as Enter).
    text: String,
    pane_id: Option<String>,
    /// Bracketed paste when the program asked for it.
    #[serde(default = "yes")]
    bracket: bool,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `paste_buffer`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PasteBufferArgs {
    /// A name load_buffer returned.
    buffer_name: String,
    pane_id: Option<String>,
    #[serde(default = "yes")]
    bracket: bool,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `respawn_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RespawnPaneArgs {
    /// %N.
    pane_id: String,
    /// Kill the running process first.
    #[serde(default = "yes")]
    kill: bool,
    /// Command (default: the pane's first one).
    shell: Option<String>,
    start_directory: Option<String>,
    environment: Option<EnvArg>,
    socket_name: Option<String>,
    socket_path: Option<String>,
    #[serde(default)]
    suppress_persistent_history: bool,
}

/// `pipe_pane`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PipePaneArgs {
    pane_id: Option<String>,
    /// File to copy the pane's output to; null stops piping.
    output_path: Option<String>,
    /// Append (else truncate).
    #[serde(default = "yes")]
    append: bool,
    session_name: Option<String>,
    session_id: Option<String>,
    window_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `set_option`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetOptionArgs {
    option: String,
    /// Stored verbatim (formats stay formats).
    value: String,
    scope: Option<ScopeArg>,
    /// Needs scope: a session name or $N, @N, %N.
    target: Option<String>,
    #[serde(default)]
    global_: bool,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `set_option`'s result (libtmux-mcp `OptionSetResult`).
#[derive(Serialize, JsonSchema)]
struct OptionSet {
    option: String,
    value: String,
    status: String,
}

impl Rendered for OptionSet {
    const TEXT: TextShape = TextShape::Object(&text::OPTION_SET);
}

/// `set_environment`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetEnvironmentArgs {
    name: String,
    value: String,
    /// Default: the global environment.
    session_name: Option<String>,
    session_id: Option<String>,
    socket_name: Option<String>,
    socket_path: Option<String>,
}

/// `set_environment`'s result (libtmux-mcp `EnvironmentSetResult`).
#[derive(Serialize, JsonSchema)]
struct EnvironmentSet {
    name: String,
    value: String,
    status: String,
}

impl Rendered for EnvironmentSet {
    const TEXT: TextShape = TextShape::Object(&text::ENVIRONMENT_SET);
}

/// The execute tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        bare_output(def::<CreateSessionArgs, SessionInfo>(
            "create_session",
            "Create tmux Session",
            ADDITIVE,
            "Start a detached session; its state (active_pane_id included).",
        )),
        bare_output(def::<CreateWindowArgs, WindowInfo>(
            "create_window",
            "Create tmux Window",
            ADDITIVE,
            "Open a window in a session (not made current unless attach).",
        )),
        bare_output(def::<SplitWindowArgs, PaneInfo>(
            "split_window",
            "Split tmux Window",
            ADDITIVE,
            "Split a pane; the new pane's state.",
        )),
        bare_output(super::row_as::<SendKeysArgs, PaneMessage>(
            "send_keys",
            "Send Keys",
            OPEN,
            "Type text into a pane exactly as given (any bytes), then Enter unless enter=false. keys that is exactly one key name (C-c, Enter, Up) is pressed as that key unless literal=true.",
        )),
        {
            let mut d = def::<SendKeysBatchArgs, SendBatchResult>(
                "send_keys_batch",
                "Send Keys in a Batch",
                OPEN,
                "Several send_keys in order, one round trip; on_error stop or continue.",
            );
            d.call = Some(|ctx, args| Box::pin(send_batch(ctx, args)));
            d
        },
        bare_output(super::row_as::<PasteTextArgs, PaneMessage>(
            "paste_text",
            "Paste Text",
            OPEN,
            "Paste text into a pane through a private buffer (bracketed when the program asked).",
        )),
        bare_output(super::row_as::<PasteBufferArgs, PaneMessage>(
            "paste_buffer",
            "Paste tmux Buffer",
            OPEN,
            "Paste a buffer load_buffer made into a pane.",
        )),
        bare_output(def::<RespawnPaneArgs, PaneInfo>(
            "respawn_pane",
            "Respawn tmux Pane",
            super::DESTRUCTIVE,
            "Restart a pane's process (kill=true ends the running one); same id, new pid.",
        )),
        bare_output(def::<PipePaneArgs, PaneMessage>(
            "pipe_pane",
            "Pipe tmux Pane",
            OPEN,
            "Copy a pane's output to a file from now on (output_path null: stop).",
        )),
        def::<SetOptionArgs, OptionSet>(
            "set_option",
            "Set tmux Option",
            IDEMPOTENT,
            "Set an option (scope, target, global_ as show_option).",
        ),
        def::<SetEnvironmentArgs, EnvironmentSet>(
            "set_environment",
            "Set tmux Environment",
            IDEMPOTENT,
            "Set a variable in the global or a session's environment (new panes get it).",
        ),
    ]
    .into_iter()
    .chain(super::follow::execute_defs())
    .collect()
}

/// `start_directory`, `environment` (and history suppression) and `shell`
/// as a [`Spawn`].
fn spawn(
    dir: Option<&str>,
    env: Option<&EnvArg>,
    suppress: bool,
    shell: Option<&str>,
) -> Result<Spawn, Error> {
    if let Some(s) = shell
        && (s.trim().is_empty() || s.contains('\0'))
    {
        return Err(Error::invalid(
            "shell",
            "shell must be a non-empty command without NUL bytes",
            "a command such as \"htop\", or leave it out for the default shell",
        ));
    }
    Ok(Spawn {
        start_directory: dir.map(start_directory).transpose()?,
        environment: args::environment(env, suppress)?,
        shell: shell.map(str::to_string),
    })
}

fn dimension(arg: &'static str, v: Option<i64>) -> Result<Option<u32>, Error> {
    match v {
        None => Ok(None),
        Some(n) if (1..=10_000).contains(&n) => Ok(Some(n as u32)),
        Some(n) => Err(Error::invalid(
            arg,
            format!("{arg} must be between 1 and 10000 (received {n})"),
            "a number of cells",
        )),
    }
}

/// A split size: `N` cells or `N%`.
fn size(v: Option<&SizeArg>) -> Result<Option<String>, Error> {
    let text = match v {
        None => return Ok(None),
        Some(SizeArg::Cells(n)) => n.to_string(),
        Some(SizeArg::Text(s)) => s.trim().to_string(),
    };
    let digits = text.strip_suffix('%').unwrap_or(&text);
    let ok = !digits.is_empty()
        && digits.len() <= 5
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits.parse::<u32>().is_ok_and(|n| n > 0);
    if !ok {
        return Err(Error::invalid(
            "size",
            format!(
                "size must be a number of cells or a percentage (received {:?})",
                crate::tmux::error::shorten(&text, 20)
            ),
            "a number of cells such as 20, or a percentage such as \"30%\"",
        ));
    }
    Ok(Some(text))
}

/// Runs one execute tool.
pub(super) async fn run(
    ctx: &Ctx<'_>,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, Error> {
    let servers = ctx.servers;
    match name {
        "create_session" => {
            let a: CreateSessionArgs = parse(args)?;
            let new = NewSession {
                session_name: a.session_name.clone(),
                window_name: a.window_name.clone(),
                width: dimension("x", a.x)?,
                height: dimension("y", a.y)?,
                spawn: spawn(
                    a.start_directory.as_deref(),
                    a.environment.as_ref(),
                    a.suppress_persistent_history,
                    None,
                )?,
            };
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            Ok(object(&t.create_session(&new).await?))
        }
        "create_window" => {
            let a: CreateWindowArgs = parse(args)?;
            let new = NewWindow {
                window_name: a.window_name.clone(),
                attach: a.attach,
                before: a.direction.map(|d| d == Place::Before),
                spawn: spawn(
                    a.start_directory.as_deref(),
                    a.environment.as_ref(),
                    a.suppress_persistent_history,
                    None,
                )?,
            };
            let (t, s) = targeting!(a).session_target(servers).await?;
            Ok(object(&t.create_window(&s, &new).await?))
        }
        "split_window" => {
            let a: SplitWindowArgs = parse(args)?;
            let direction = a.direction.map(|d| match d {
                SplitDirection::Above => Split::Above,
                SplitDirection::Below => Split::Below,
                SplitDirection::Left => Split::Left,
                SplitDirection::Right => Split::Right,
            });
            let size = size(a.size.as_ref())?;
            let sp = spawn(
                a.start_directory.as_deref(),
                a.environment.as_ref(),
                a.suppress_persistent_history,
                a.shell.as_deref(),
            )?;
            let (t, p) = targeting!(a, pane_id, window_id, window_index)
                .pane_target(servers)
                .await?;
            Ok(object(
                &t.split_window(&p, direction, size.as_deref(), &sp).await?,
            ))
        }
        "respawn_pane" => {
            let a: RespawnPaneArgs = parse(args)?;
            let pane = a.pane_id.parse().map_err(|e| {
                Error::invalid("pane_id", format!("pane_id: {e}"), "a pane id like %3")
            })?;
            let sp = spawn(
                a.start_directory.as_deref(),
                a.environment.as_ref(),
                a.suppress_persistent_history,
                a.shell.as_deref(),
            )?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            super::teardown::guard_pane(&t, pane, "respawn")?;
            Ok(object(&t.respawn_pane(pane, a.kill, &sp).await?))
        }
        "pipe_pane" => {
            let a: PipePaneArgs = parse(args)?;
            let path = match a.output_path.as_deref() {
                None => None,
                Some(p) if p.trim().is_empty() || p.contains('\0') => {
                    return Err(Error::invalid(
                        "output_path",
                        "output_path must be a file path (null stops piping)",
                        "a file path, or null",
                    ));
                }
                Some(p) => Some(absolute(p)),
            };
            let (t, pane) = targeting!(a, pane_id, window_id)
                .pane_target(servers)
                .await?;
            let id = t.pipe_pane(&pane, path.as_deref(), a.append).await?;
            let text = match &path {
                Some(p) => format!("Piping pane {id} to {}", p.display()),
                None => format!("Piping stopped for pane {id}"),
            };
            Ok(pane_message(text, id))
        }
        "set_option" => {
            let a: SetOptionArgs = parse(args)?;
            let t = super::server(servers, &a.socket_name, &a.socket_path)?;
            let place = super::inspect::place(&t, a.scope, a.target.as_deref(), a.global_).await?;
            t.set_option(&a.option, &a.value, &place).await?;
            Ok(object(&OptionSet {
                option: a.option,
                value: a.value,
                status: "set".into(),
            }))
        }
        "set_environment" => {
            let a: SetEnvironmentArgs = parse(args)?;
            let targeting = targeting!(a);
            let sel = targeting.selector()?;
            let t = targeting.server(servers)?;
            let session = if sel == crate::tmux::Selector::default() {
                None
            } else {
                Some(t.session_target(&sel).await?)
            };
            t.set_environment(&a.name, &a.value, session.as_ref())
                .await?;
            Ok(object(&EnvironmentSet {
                name: a.name,
                value: a.value,
                status: "set".into(),
            }))
        }
        other => Ok(unknown_tool(other)),
    }
}

/// A path made absolute against tmuxwire's directory, `~/` expanded.
fn absolute(p: &str) -> std::path::PathBuf {
    let path = match p.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_default()
            .join(rest),
        None => std::path::PathBuf::from(p),
    };
    if path.is_absolute() {
        path
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| "/".into())
            .join(path)
    }
}

/// `send_keys_batch`'s call: the operations checked into a request, run
/// as one operation ([`SendKeysBatchRequest`]), each outcome reported
/// with its error in MCP words.
async fn send_batch(ctx: &Ctx<'_>, args: Map<String, Value>) -> Result<CallToolResult, Error> {
    let a: SendKeysBatchArgs = parse(args)?;
    let stop = a.on_error == OnError::Stop;
    let mut ops = Vec::with_capacity(a.operations.len());
    for op in &a.operations {
        let sel = args::selector(
            &op.pane_id,
            &op.window_id,
            None,
            &op.session_id,
            &op.session_name,
        )?;
        ops.push((
            sel,
            keys(op.keys.clone(), op.literal, op.enter, op.suppress_history),
        ));
    }
    let request = SendKeysBatchRequest::new(ops, stop, a.timeout)?;
    let t = super::server(ctx.servers, &a.socket_name, &a.socket_path)?;
    let BatchSent(sent) = op::run(&t, request, Limit::NONE).await?;
    let mut out = SendBatchResult {
        results: Vec::with_capacity(sent.len()),
        succeeded: 0,
        failed: 0,
        stopped_at: None,
    };
    for (index, s) in sent.into_iter().enumerate() {
        let error = s
            .result
            .as_ref()
            .err()
            .map(|e| match crate::mcp::errors::suggestion(e) {
                Some(hint) => format!("{e}\n{hint}"),
                None => e.to_string(),
            });
        if error.is_some() {
            out.failed += 1;
            if stop {
                out.stopped_at = Some(index);
            }
        } else {
            out.succeeded += 1;
        }
        out.results.push(SendResult {
            index,
            pane_id: s.pane_id,
            success: error.is_none(),
            error,
            elapsed_seconds: s.elapsed_seconds,
        });
    }
    Ok(object(&out))
}

/// What one `send_keys` (or batch operation) sends.
fn keys(keys: String, literal: bool, enter: bool, suppress_history: bool) -> Keys {
    Keys {
        keys,
        literal,
        enter,
        suppress_history,
    }
}

tool_args!(SendKeysArgs => SendKeysRequest, |a| Ok(SendKeysRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
    keys: keys(a.keys, a.literal, a.enter, a.suppress_history),
}));

tool_args!(PasteTextArgs => PasteTextRequest, |a| {
    let pane = targeting!(a, pane_id, window_id).selector()?;
    PasteTextRequest::new(pane, a.text, a.bracket)
});

tool_args!(PasteBufferArgs => PasteBufferRequest, |a| {
    let pane = targeting!(a, pane_id, window_id).selector()?;
    PasteBufferRequest::new(pane, a.buffer_name, a.bracket)
});

impl Rendered for KeysSent {
    const TEXT: TextShape = TextShape::String;
}

impl Rendered for BufferPasted {
    const TEXT: TextShape = TextShape::String;
}

impl Rendered for TextPasted {
    const TEXT: TextShape = TextShape::String;
}

impl From<KeysSent> for PaneMessage {
    fn from(k: KeysSent) -> PaneMessage {
        PaneMessage {
            result: format!("Keys sent to pane {}", k.pane_id),
            pane_id: k.pane_id,
        }
    }
}

impl From<TextPasted> for PaneMessage {
    fn from(k: TextPasted) -> PaneMessage {
        PaneMessage {
            result: format!("Text pasted to pane {}", k.pane_id),
            pane_id: k.pane_id,
        }
    }
}

impl From<BufferPasted> for PaneMessage {
    fn from(p: BufferPasted) -> PaneMessage {
        PaneMessage {
            result: format!("Buffer '{}' pasted to pane {}", p.buffer_name, p.pane_id),
            pane_id: p.pane_id,
        }
    }
}
