//! libtmux-mcp's four prompts, worded for tmuxwire's tools. They render
//! text only and never contact tmux; they are offered whatever the
//! toolset choice (a prompt names tools, it does not run them).

use std::collections::BTreeMap;

use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};

/// `(name, title, description, [(argument, description, required)])`.
type Spec = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str, bool)],
);

/// The prompts, in listing order.
pub const PROMPTS: &[Spec] = &[
    (
        "run_and_wait",
        "Run a command and wait for it",
        "Run a shell command in a pane and get its exit status and output in one call.",
        &[
            ("command", "The shell command to run.", true),
            ("pane_id", "The pane to run it in (%N).", true),
            ("timeout", "Seconds to wait (default 60).", false),
        ],
    ),
    (
        "diagnose_failing_pane",
        "Diagnose a failing pane",
        "Look at what a pane shows and what it printed recently, then explain the failure.",
        &[("pane_id", "The pane (%N).", true)],
    ),
    (
        "build_dev_workspace",
        "Build a dev workspace",
        "Create a session with an editor pane, a shell pane and a log pane.",
        &[
            ("session_name", "Name of the new session.", true),
            (
                "log_command",
                "Command for the log pane (default: watch -n 1 date).",
                false,
            ),
        ],
    ),
    (
        "interrupt_gracefully",
        "Interrupt a pane gracefully",
        "Stop what runs in a pane with Ctrl-C and check that the shell prompt came back.",
        &[("pane_id", "The pane (%N).", true)],
    ),
];

/// The prompts as MCP `Prompt`s.
pub fn list() -> Vec<Prompt> {
    PROMPTS
        .iter()
        .map(|(name, title, description, args)| {
            let args = args
                .iter()
                .map(|(n, d, req)| {
                    PromptArgument::new(*n)
                        .with_description(*d)
                        .with_required(*req)
                })
                .collect();
            Prompt::new(*name, Some(*description), Some(args)).with_title(*title)
        })
        .collect()
}

/// Why a prompt cannot be rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptError {
    /// No prompt has that name.
    Unknown(String),
    /// A required argument is missing, or a value is unusable.
    Argument(String),
}

/// `s` as a JSON string literal, for tool-call examples in the text.
fn lit(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// Renders prompt `name` with `args`.
///
/// # Errors
///
/// [`PromptError`].
pub fn render(name: &str, args: &BTreeMap<String, String>) -> Result<GetPromptResult, PromptError> {
    let spec = PROMPTS
        .iter()
        .find(|p| p.0 == name)
        .ok_or_else(|| PromptError::Unknown(format!("Unknown prompt: '{name}'")))?;
    for (a, _, required) in spec.3 {
        if *required && args.get(*a).is_none_or(|v| v.trim().is_empty()) {
            return Err(PromptError::Argument(format!(
                "prompt {name} needs the argument {a}"
            )));
        }
    }
    let get = |k: &str| args.get(k).map(String::as_str).unwrap_or("");
    let text = match name {
        "run_and_wait" => {
            let command = get("command");
            let pane = get("pane_id");
            let timeout: f64 = match args.get("timeout") {
                Some(t) => t.trim().parse().map_err(|_| {
                    PromptError::Argument(format!("timeout must be a number, not {t:?}"))
                })?,
                None => 60.0,
            };
            let multiline = command.contains('\n');
            let mut t = format!(
                "Run this command in tmux pane {pane} and report how it ended:\n\n{command}\n\n\
                 Call run_command with {{\"pane_id\": {}, \"command\": {}, \"timeout\": \
                 {timeout}, \"max_lines\": 100{}}}. It types the command, waits for it to \
                 finish (no polling), and returns exit_status and the command's own output \
                 lines. If timed_out is true the command still runs: check it with \
                 capture_since or wait_for_text, or stop it with the interrupt_gracefully \
                 steps. Do not retype the command to find out whether it finished.",
                lit(pane),
                lit(command),
                if multiline {
                    ", \"suppress_history\": false"
                } else {
                    ""
                },
            );
            if multiline {
                t.push_str(
                    "\n\nThe command has several lines, so it cannot be kept out of the shell's \
                     history (suppress_history needs one line): it will be saved there.",
                );
            }
            t
        }
        "diagnose_failing_pane" => {
            let pane = get("pane_id");
            format!(
                "Diagnose what is failing in tmux pane {pane}.\n\n\
                 1. Call snapshot_pane {{\"pane_id\": {p}}}: the screen, the running command \
                 (pane_current_command), the directory, whether it is dead (pane_dead), in \
                 copy mode or on the alternate screen (a full-screen program).\n\
                 2. Call capture_since {{\"pane_id\": {p}}} and keep its cursor: later calls \
                 with that cursor return only what is new. For older output use capture_pane \
                 with a negative start, or search_panes for an error text (it searches the \
                 whole scrollback).\n\
                 3. Explain the first error and its likely cause, quoting the lines. Change \
                 nothing in the pane unless asked.",
                p = lit(pane)
            )
        }
        "build_dev_workspace" => {
            let session = get("session_name");
            let log = args
                .get("log_command")
                .filter(|v| !v.trim().is_empty())
                .map_or("watch -n 1 date", String::as_str);
            format!(
                "Build a development workspace in a new tmux session named {s}.\n\n\
                 1. create_session {{\"session_name\": {s}}}; note session_id and \
                 active_pane_id (the editor pane).\n\
                 2. split_window {{\"pane_id\": <active_pane_id>, \"direction\": \"right\"}} \
                 for a shell pane; note its pane_id.\n\
                 3. split_window {{\"pane_id\": <shell pane>, \"direction\": \"below\"}} for \
                 the log pane.\n\
                 4. send_keys {{\"pane_id\": <log pane>, \"keys\": {log}}} to start the log.\n\
                 5. wait_for_text {{\"pane_id\": <log pane>, \"patterns\": null}} until it \
                 prints something, then report the three pane ids. Use ids, not names, in \
                 every later call.",
                s = lit(session),
                log = lit(log)
            )
        }
        "interrupt_gracefully" => {
            let pane = get("pane_id");
            format!(
                "Interrupt what runs in tmux pane {pane}, gently.\n\n\
                 1. get_pane_info {{\"pane_id\": {p}}}: note pane_current_command.\n\
                 2. send_keys {{\"pane_id\": {p}, \"keys\": \"C-c\", \"enter\": false}} \
                 (one Ctrl-C; enter must be false).\n\
                 3. wait_for_text {{\"pane_id\": {p}, \"patterns\": [\"[$#%>] ?$\"], \
                 \"regex\": true, \"timeout\": 5}} for the shell prompt.\n\
                 4. get_pane_info again: pane_current_command should now be the shell.\n\
                 If it still runs, send C-c once more and wait again; then report. Never \
                 escalate to C-\\\\ (SIGQUIT) or kill_pane without asking.",
                p = lit(pane)
            )
        }
        _ => unreachable!("listed prompt"),
    };
    let mut r = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    r.description = Some(spec.2.to_string());
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn text(r: &GetPromptResult) -> String {
        serde_json::to_value(&r.messages[0].content).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn renders() {
        assert_eq!(list().len(), 4);
        let r = render(
            "run_and_wait",
            &args(&[("command", "make test"), ("pane_id", "%3")]),
        )
        .unwrap();
        let t = text(&r);
        assert!(t.contains("run_command") && t.contains("\"%3\"") && t.contains("max_lines"));
        assert!(!t.contains("suppress_history"));
        let r = render(
            "run_and_wait",
            &args(&[("command", "a\nb"), ("pane_id", "%3"), ("timeout", "5")]),
        )
        .unwrap();
        assert!(text(&r).contains("\"suppress_history\": false"));
        assert!(text(&r).contains("\"timeout\": 5"));
        let t = text(&render("interrupt_gracefully", &args(&[("pane_id", "%1")])).unwrap());
        assert!(t.contains("\"C-c\"") && t.contains("\"enter\": false") && t.contains("SIGQUIT"));
        let t = text(&render("build_dev_workspace", &args(&[("session_name", "dev")])).unwrap());
        assert!(t.contains("watch -n 1 date") && t.contains("wait_for_text"));
        let t = text(&render("diagnose_failing_pane", &args(&[("pane_id", "%1")])).unwrap());
        assert!(t.contains("snapshot_pane") && t.contains("capture_since"));
        assert!(matches!(
            render("run_and_wait", &args(&[("command", "x")])),
            Err(PromptError::Argument(_))
        ));
        assert!(matches!(
            render("nope", &args(&[])),
            Err(PromptError::Unknown(_))
        ));
        // Quotes in arguments stay inside their JSON strings.
        let t = text(
            &render(
                "run_and_wait",
                &args(&[("command", "echo \"hi\""), ("pane_id", "%1")]),
            )
            .unwrap(),
        );
        assert!(t.contains(r#""command": "echo \"hi\"""#), "{t}");
    }
}
