//! The execute tools: creating sessions, windows and panes, and sending
//! input (processes run). Names, titles and directories are stored
//! exactly; text reaches the pane byte for byte (see
//! [`crate::tmux::input`]).

use std::time::Duration;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ADDITIVE, Ctx, Def, IDEMPOTENT, OPEN, Sentence, def, object, parse, tool_args};
use crate::mcp::args::{self, EnvArg, OnError};
use crate::mcp::targeting::{self, args, targeting};
use crate::tmux::Error;
use crate::tmux::keys::Keys;
use crate::tmux::op::buffers::PasteBufferRequest;
use crate::tmux::op::create::{
    CreateSessionRequest, CreateWindowRequest, PipePaneRequest, Place, RespawnPaneRequest, Spawn,
    SplitDirection, SplitSize, SplitWindowRequest,
};
use crate::tmux::op::deliver::{MAX_SUBMIT_DELAY, Submit};
use crate::tmux::op::manage::Name;
use crate::tmux::op::resize::cells;
use crate::tmux::op::settings::{
    self as settings, EnvironmentSet, OptionName, OptionSet, Scope, SetEnvironmentRequest,
    SetOptionRequest, VarName,
};
use crate::tmux::op::typing::{BatchSent, PasteTextRequest, SendKeysBatchRequest, SendKeysRequest};
use crate::tmux::op::{self, Limit};

args! {
    /// `create_session`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct CreateSessionArgs {
        @session_name,
        pub window_name: Option<String>,
        /// An existing directory (~ expanded).
        pub start_directory: Option<String>,
        /// Width in cells.
        pub x: Option<i64>,
        /// Height in rows.
        pub y: Option<i64>,
        /// {"NAME": "value"}, set in the session's environment.
        pub environment: Option<EnvArg>,
        @socket,
        /// Shells keep no history file (HISTFILE="", fish private mode).
        #[serde(default)]
        pub suppress_persistent_history: bool,
    }
}

args! {
    /// `create_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct CreateWindowArgs {
        @session,
        pub window_name: Option<String>,
        pub start_directory: Option<String>,
        /// Make it the current window.
        #[serde(default)]
        pub attach: bool,
        /// Default: the next free index.
        pub direction: Option<Place>,
        @socket,
        /// {"NAME": "value"} for this window's shell.
        pub environment: Option<EnvArg>,
        #[serde(default)]
        pub suppress_persistent_history: bool,
    }
}

/// A pane size: cells, or a percentage such as "30%".
#[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
#[serde(untagged)]
pub enum SizeArg {
    /// Cells.
    Cells(i64),
    /// "30%" or "12".
    Text(String),
}

args! {
    /// `split_window`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SplitWindowArgs {
        @pane,
        @window_index,
        pub direction: Option<SplitDirection>,
        /// Cells, or "30%".
        pub size: Option<SizeArg>,
        pub start_directory: Option<String>,
        /// Command to run instead of the default shell.
        pub shell: Option<String>,
        @socket,
        pub environment: Option<EnvArg>,
        #[serde(default)]
        pub suppress_persistent_history: bool,
    }
}

fn yes() -> bool {
    true
}

args! {
    /// `send_keys`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct SendKeysArgs {
        /// Text, typed exactly; or one key name alone (C-c, Enter, Up, Escape, F5, M-x).
        pub keys: String,
        @pane,
        /// Press Enter after.
        #[serde(default = "yes")]
        pub enter: bool,
        /// keys is text even if it is a key name.
        #[serde(default)]
        pub literal: bool,
        /// Prefix a space (shells with ignorespace skip history).
        #[serde(default)]
        pub suppress_history: bool,
        /// Type into a password prompt (else refused).
        #[serde(default)]
        pub allow_password_input: bool,
        /// ms between text and Enter; null: 0 for a shell, else 150.
        pub submit_delay_ms: Option<f64>,
        /// First wait ≤10 s until the program reads; null: ≤3 s if the pane is new.
        pub wait_ready: Option<bool>,
        @socket,
    }
}

args! {
    @item
    /// One operation of `send_keys_batch` (libtmux-mcp `SendKeysOperation`).
    /// Its targeting fields are written out, undocumented, rather than by
    /// [`args!`]'s markers: the input schema leaves out the descriptions of
    /// a tool's own targeting arguments, not of those nested in a list's
    /// items.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct SendKeysOperation {
        pub keys: String,
        pub pane_id: Option<String>,
        pub session_name: Option<String>,
        pub session_id: Option<String>,
        pub window_id: Option<String>,
        #[serde(default = "yes")]
        pub enter: bool,
        #[serde(default)]
        pub literal: bool,
        #[serde(default)]
        pub suppress_history: bool,
    }
}

args! {
    /// `send_keys_batch`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SendKeysBatchArgs {
        /// [{keys, pane_id, enter, literal, …}] as send_keys, in order.
        pub operations: Vec<SendKeysOperation>,
        #[serde(default, skip_serializing_if = "OnError::is_stop")]
        pub on_error: OnError,
        /// Seconds for the whole batch.
        pub timeout: Option<f64>,
        /// Type into password prompts (else refused).
        #[serde(default)]
        pub allow_password_input: bool,
        @socket,
    }
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
    /// Results after those listed left out to fit the response budget
    /// (`succeeded` and `failed` count them); left out when 0.
    #[serde(skip_serializing_if = "crate::tmux::model::is_zero")]
    omitted: usize,
}

crate::mcp::text::rendered!(Object: SendBatchResult);

args! {
    /// `paste_text`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct PasteTextArgs {
        /// Pasted as a terminal paste does (line breaks as Enter).
        pub text: String,
        @pane_id,
        /// Bracketed paste when the program asked for it.
        #[serde(default = "yes")]
        pub bracket: bool,
        /// Paste into a password prompt (else refused).
        #[serde(default)]
        pub allow_password_input: bool,
        /// Then press Enter (confirmed: delivery).
        #[serde(default)]
        pub enter: bool,
        /// As send_keys.
        pub submit_delay_ms: Option<f64>,
        /// As send_keys.
        pub wait_ready: Option<bool>,
        @session,
        @window_id,
        @socket,
    }
}

args! {
    /// `paste_buffer`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct PasteBufferArgs {
        @buffer_name,
        @pane_id,
        #[serde(default = "yes")]
        pub bracket: bool,
        @session,
        @window_id,
        @socket,
    }
}

args! {
    /// `respawn_pane`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct RespawnPaneArgs {
        /// %N.
        pub pane_id: String,
        /// Kill the running process first.
        #[serde(default = "yes")]
        pub kill: bool,
        /// Command (default: the pane's first one).
        pub shell: Option<String>,
        pub start_directory: Option<String>,
        pub environment: Option<EnvArg>,
        @socket,
        #[serde(default)]
        pub suppress_persistent_history: bool,
    }
}

args! {
    /// `pipe_pane`.
    #[derive(Clone, Debug, Deserialize, JsonSchema)]
    pub struct PipePaneArgs {
        @pane_id,
        /// File to copy the pane's output to; null stops piping.
        pub output_path: Option<String>,
        /// Append (else truncate).
        #[serde(default = "yes")]
        pub append: bool,
        @session,
        @window_id,
        @socket,
    }
}

args! {
    /// `set_option`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SetOptionArgs {
        pub option: String,
        /// Stored verbatim (formats stay formats).
        pub value: String,
        @table,
        @socket,
    }
}

args! {
    /// `set_environment`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
    pub struct SetEnvironmentArgs {
        pub name: String,
        pub value: String,
        @session,
        @socket,
    }
}

tool_args!(SetOptionArgs => SetOptionRequest, |a| {
    let place = settings::Place::new(a.scope.map(Scope::from), a.target.as_deref(), a.global_)?;
    Ok(SetOptionRequest {
        option: OptionName::option(&a.option)?,
        value: a.value,
        place,
    })
});

tool_args!(SetEnvironmentArgs => SetEnvironmentRequest, |a| {
    let sel = targeting!(a).selector()?;
    Ok(SetEnvironmentRequest {
        name: VarName::new(&a.name)?,
        value: a.value,
        session: (sel != crate::tmux::Selector::default()).then_some(sel),
    })
});

crate::mcp::text::rendered!(Object: OptionSet, EnvironmentSet);

/// The execute tools, in listing order.
pub(super) fn defs() -> Vec<Def> {
    vec![
        super::row::<CreateSessionArgs>(
            "create_session",
            ADDITIVE,
            "Start a detached session; its state (active_pane_id included).",
        ),
        super::row::<CreateWindowArgs>(
            "create_window",
            ADDITIVE,
            "Open a window in a session (not made current unless attach).",
        ),
        super::row::<SplitWindowArgs>(
            "split_window",
            ADDITIVE,
            "Split a pane; the new pane's state.",
        ),
        super::row_as::<SendKeysArgs, Sentence>(
            "send_keys",
            OPEN,
            "Type text into a pane exactly as given (any bytes), then Enter unless enter=false; delivery says, from the screen, whether it was typed and submitted. Leaves copy mode first.",
        )
        .mark_core()
        .mark_verbose(),
        {
            let mut d = def::<SendKeysBatchArgs, SendBatchResult>(
                "send_keys_batch",
                OPEN,
                "Several send_keys in order, one round trip; on_error stop or continue.",
            );
            d.call = Some(|ctx, args| Box::pin(send_batch(ctx, args)));
            d.hosted = true;
            d
        },
        super::row_as::<PasteTextArgs, Sentence>(
            "paste_text",
            OPEN,
            "Paste text into a pane through a private buffer (bracketed when the program asked), out of copy mode; controls arrive as ^X (as tmux 3.7+).",
        )
        .mark_verbose(),
        super::row_as::<PasteBufferArgs, Sentence>(
            "paste_buffer",
            OPEN,
            "Paste a buffer load_buffer made into a pane.",
        ),
        super::row::<RespawnPaneArgs>(
            "respawn_pane",
            super::DESTRUCTIVE,
            "Restart a pane's process (kill=true ends the running one); same id, new pid.",
        ),
        super::row_as::<PipePaneArgs, Sentence>(
            "pipe_pane",
            OPEN,
            "Copy a pane's output to a file from now on (output_path null: stop).",
        ),
        super::row::<SetOptionArgs>(
            "set_option",
            IDEMPOTENT,
            "Set an option (scope, target, global_ as show_option).",
        ),
        super::row::<SetEnvironmentArgs>(
            "set_environment",
            IDEMPOTENT,
            "Set a variable in the global or a session's environment (new panes get it).",
        ),
    ]
    .into_iter()
    .chain(super::waits::execute_defs())
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
    Ok(Spawn::new(dir, shell)?.with_environment(args::environment(env, suppress)?))
}

/// [`spawn`] of an argument struct's `start_directory`, `environment`
/// and `suppress_persistent_history` fields (the tools that start a
/// shell take all three), with `shell` (an `Option<&str>`).
macro_rules! spawn_of {
    ($a:ident, $shell:expr) => {
        spawn(
            $a.start_directory.as_deref(),
            $a.environment.as_ref(),
            $a.suppress_persistent_history,
            $shell,
        )
    };
}

/// A split size: `N` cells or `N%`.
fn size(v: Option<&SizeArg>) -> Result<Option<SplitSize>, Error> {
    match v {
        None => Ok(None),
        Some(SizeArg::Cells(n)) => SplitSize::parse(&n.to_string()).map(Some),
        Some(SizeArg::Text(s)) => SplitSize::parse(s).map(Some),
    }
}

/// An optional name argument, checked.
fn name(arg: &'static str, v: &Option<String>) -> Result<Option<Name>, Error> {
    v.as_deref().map(|n| Name::new(arg, n)).transpose()
}

tool_args!(CreateSessionArgs => CreateSessionRequest, |a| {
    let width = cells("x", a.x)?;
    let height = cells("y", a.y)?;
    let spawn = spawn_of!(a, None)?;
    Ok(CreateSessionRequest {
        session_name: name("session_name", &a.session_name)?,
        window_name: name("window_name", &a.window_name)?,
        width,
        height,
        spawn,
    })
});

tool_args!(CreateWindowArgs => CreateWindowRequest, |a| {
    let spawn = spawn_of!(a, None)?;
    Ok(CreateWindowRequest {
        session: targeting!(a).selector()?,
        window_name: name("window_name", &a.window_name)?,
        attach: a.attach,
        place: a.direction,
        spawn,
    })
});

tool_args!(SplitWindowArgs => SplitWindowRequest, |a| {
    let size = size(a.size.as_ref())?;
    let spawn = spawn_of!(a, a.shell.as_deref())?;
    Ok(SplitWindowRequest {
        pane: targeting!(a, pane_id, window_id, window_index).selector()?,
        direction: a.direction,
        size,
        spawn,
    })
});

tool_args!(RespawnPaneArgs => RespawnPaneRequest, |a| {
    let pane = targeting::pane_id("pane_id", &a.pane_id)?;
    let spawn = spawn_of!(a, a.shell.as_deref())?;
    Ok(RespawnPaneRequest {
        pane,
        kill: a.kill,
        spawn,
    })
});

tool_args!(PipePaneArgs => PipePaneRequest, |a| {
    let output = PipePaneRequest::output_path(a.output_path.as_deref())?;
    Ok(PipePaneRequest {
        pane: targeting!(a, pane_id, window_id).selector()?,
        output,
        append: a.append,
    })
});

/// `send_keys_batch`'s call: the operations checked into a request, run
/// as one operation ([`SendKeysBatchRequest`]), each outcome reported
/// with its error in MCP words.
async fn send_batch(ctx: &Ctx<'_>, args: Map<String, Value>) -> Result<CallToolResult, Error> {
    let mut a: SendKeysBatchArgs = parse(args)?;
    let route = super::Route::of(ctx, a.host.take(), None, true)?;
    let stop = a.on_error == OnError::Stop;
    let mut ops = Vec::with_capacity(a.operations.len());
    for op in &a.operations {
        let sel = targeting::selector(
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
    let request = SendKeysBatchRequest {
        allow_password_input: a.allow_password_input,
        ..SendKeysBatchRequest::new(ops, stop, a.timeout)?
    };
    let t = super::server(route.pool, &a.socket_name, &a.socket_path)?;
    let BatchSent(sent) = op::run(&t, request, Limit::NONE).await?;
    let mut out = SendBatchResult {
        results: Vec::with_capacity(sent.len()),
        succeeded: 0,
        failed: 0,
        stopped_at: None,
        omitted: 0,
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
    // The first results while they fit (the counts above cover them all).
    if let Some(b) = ctx.budget {
        let bare = SendBatchResult {
            results: Vec::new(),
            omitted: usize::MAX,
            ..out
        };
        let keep = crate::tmux::op::fit::keep_for_list(
            &out.results,
            crate::tmux::op::fit::json_len(&bare),
            b.bytes(),
        );
        out.omitted = out.results.len() - keep;
        out.results.truncate(keep);
    }
    Ok(route.mark(object(&out)))
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

/// `submit_delay_ms` and `wait_ready` as a [`Submit`].
fn submit(delay_ms: Option<f64>, wait_ready: Option<bool>) -> Result<Submit, Error> {
    let most = MAX_SUBMIT_DELAY.as_millis() as f64;
    let delay = match delay_ms {
        None => None,
        Some(ms) if ms.is_finite() && (0.0..=most).contains(&ms) => {
            Some(Duration::from_secs_f64(ms / 1000.0))
        }
        Some(ms) => {
            return Err(Error::invalid(
                "submit_delay_ms",
                format!("submit_delay_ms must be 0 to {most} ms (received {ms})"),
                "milliseconds, or null for the default",
            ));
        }
    };
    Ok(Submit { wait_ready, delay })
}

tool_args!(SendKeysArgs => SendKeysRequest, |a| Ok(SendKeysRequest {
    pane: targeting!(a, pane_id, window_id).selector()?,
    keys: keys(a.keys, a.literal, a.enter, a.suppress_history),
    allow_password_input: a.allow_password_input,
    submit: submit(a.submit_delay_ms, a.wait_ready)?,
}));

tool_args!(PasteTextArgs => PasteTextRequest, |a| {
    let pane = targeting!(a, pane_id, window_id).selector()?;
    let paste = PasteTextRequest::new(pane, a.text, a.bracket)?;
    Ok(PasteTextRequest {
        allow_password_input: a.allow_password_input,
        enter: a.enter,
        submit: submit(a.submit_delay_ms, a.wait_ready)?,
        ..paste
    })
});

tool_args!(PasteBufferArgs => PasteBufferRequest, |a| {
    let pane = targeting!(a, pane_id, window_id).selector()?;
    PasteBufferRequest::new(pane, a.buffer_name, a.bracket)
});
