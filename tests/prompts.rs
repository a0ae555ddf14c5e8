//! The command table (`list_commands`, `get_command_output`,
//! `wait_for_command`, `get_pane_state`) against real bash, zsh and fish
//! configured as people configure them: a bash-preexec-style setup (DEBUG
//! trap and PROMPT_COMMAND), starship-style prompts (two rows, colours, a
//! right prompt, OSC 133 with `k=` and `aid=`), zsh with `RPROMPT` and
//! precmd/preexec hooks, transient prompts, vi mode, and fish 4's marks
//! written for fish 3.6. Each class of prompt behaviour — Enter on an
//! empty line and Ctrl-C at the prompt, multi-line commands, right
//! prompts, redraws on a resize, transient prompts, vi mode, single-key
//! reads — is run on each shell where it exists, on every tmux version.
//!
//! The start-up files are ours, written into a private temporary home
//! (`HOME`, `ZDOTDIR`, the XDG directories, `INPUTRC`, `HISTFILE=/dev/null`),
//! never the user's.

use std::sync::Arc;

use serde_json::{Value, json};
use tmuxwire::tmux::Servers;

use crate::commands::listed_until;
use crate::support::tool::*;
use crate::support::{DEADLINE, TestServer, TmuxBin, mirrored_servers, tmux_bins};
use tmuxwire::mcp::args::{CommandOutputArgs, ListCommandsArgs, PaneStateArgs, WaitForCommandArgs};

/// bash with a bash-preexec-style integration of our own: a DEBUG trap
/// marks the output start (`C`) of each command typed, PROMPT_COMMAND
/// sends `D;$?` before every prompt (an empty line's too, as such setups
/// do), a two-row coloured PS1 wrapped in `A` … `B`, the default unmarked
/// PS2 (`> `).
const BASH_PREEXEC: &str = r#"HISTFILE=/dev/null
__tw_at_prompt=
__tw_preexec() {
    [[ -n $COMP_LINE || -z $__tw_at_prompt ]] && return
    [[ $BASH_COMMAND == __tw_precmd* ]] && return
    __tw_at_prompt=
    printf '\e]133;C\a'
}
__tw_precmd() {
    local s=$?
    printf '\e]133;D;%s\a' "$s"
    __tw_at_prompt=1
}
trap '__tw_preexec' DEBUG
PROMPT_COMMAND=__tw_precmd
PS1='\[\e]133;A\a\]\[\e[32m\]tw\[\e[0m\]:\[\e[34m\]\w\[\e[0m\]\n$ \[\e]133;B\a\]'
"#;

/// bash styled as starship's prompts with WezTerm-style marks: `A;cl=m;aid=`
/// and `D;$?;aid=` from PROMPT_COMMAND, PS1 in `P;k=i` … `B` over two rows
/// with a right prompt drawn by saving and restoring the cursor, PS2 in
/// `P;k=s` … `B`, `C` from PS0.
const BASH_STARSHIP: &str = r#"HISTFILE=/dev/null
__tw_precmd() {
    local s=$?
    printf '\e]133;D;%s;aid=%s\a' "$s" "$$"
    printf '\e]133;A;cl=m;aid=%s\a' "$$"
}
PROMPT_COMMAND=__tw_precmd
PS0=$'\e]133;C;\a'
PS1='\[\e]133;P;k=i\a\]\[\e[1;34m\]\w\[\e[0m\] on \[\e[35m\]main\[\e[0m\]\n\[\e7\e[$((COLUMNS-7))G\e[33m[main]\e[0m\e8\]\[\e[32m\]❯\[\e[0m\] \[\e]133;B\a\]'
PS2='\[\e]133;P;k=s\a\]\[\e[90m\]∙\[\e[0m\] \[\e]133;B\a\]'
"#;

/// bash with a transient prompt as bash-preexec users draw one: the
/// preexec hook (the DEBUG trap, where `history 1` already holds the
/// command line) moves up over the two-row prompt and rewrites it as
/// `❯ <command>`, without marks, before `C`.
const BASH_TRANSIENT: &str = r#"
__tw_preexec() {
    [[ -n $COMP_LINE || -z $__tw_at_prompt ]] && return
    [[ $BASH_COMMAND == __tw_precmd* ]] && return
    __tw_at_prompt=
    local line
    line=$(HISTTIMEFORMAT= builtin history 1)
    line=${line#*[0-9]  }
    printf '\e[2A\r\e[J\e[32m❯\e[0m %s\n\e]133;C\a' "$line"
}
"#;

/// bash in vi mode, with readline showing the mode in the prompt.
const BASH_VI: &str = "set -o vi\n";
const INPUTRC_VI: &str = "set show-mode-in-prompt on\nset keyseq-timeout 50\n";

/// zsh with precmd/preexec hooks: `C` from preexec, `D;$?` from precmd only
/// after a command ran, a two-row coloured PROMPT in `A` … `B`, a right
/// prompt (`RPROMPT`, the time), the default unmarked PS2 (`%_> `).
const ZSH_HOOKS: &str = r#"HISTFILE=/dev/null
__tw_precmd() { local s=$?; [[ -n $__tw_ran ]] && printf '\e]133;D;%d\a' $s; __tw_ran=; }
__tw_preexec() { __tw_ran=1; printf '\e]133;C\a'; }
precmd_functions+=(__tw_precmd)
preexec_functions+=(__tw_preexec)
PROMPT=$'%{\e]133;A\a%}%F{green}tw%f %F{blue}%~%f\n%% %{\e]133;B\a%}'
RPROMPT='%F{yellow}[%*]%f'
"#;

/// zsh styled as starship with WezTerm-style marks: `D;$?;aid=` and
/// `A;cl=m;aid=` from precmd at every prompt, PROMPT in `P;k=i` … `B`, a
/// right prompt, PS2 in `P;k=s` … `B`.
const ZSH_STARSHIP: &str = r#"HISTFILE=/dev/null
__tw_ps1=$'%{\e]133;P;k=i\a%}%B%F{blue}%~%f%b on %F{magenta}main%f\n%F{green}❯%f %{\e]133;B\a%}'
__tw_precmd() {
    local s=$?
    printf '\e]133;D;%d;aid=%s\a' $s $$
    printf '\e]133;A;cl=m;aid=%s\a' $$
    PROMPT=$__tw_ps1
    RPROMPT='%F{yellow}took 2s%f'
}
__tw_preexec() { printf '\e]133;C;\a'; }
precmd_functions+=(__tw_precmd)
preexec_functions+=(__tw_preexec)
PS2=$'%{\e]133;P;k=s\a%}%F{8}∙%f %{\e]133;B\a%}'
"#;

/// zsh's usual transient prompt: after Enter, zle-line-finish rewrites the
/// prompt short, without the integration's marks.
const ZSH_TRANSIENT: &str = r#"
zle-line-finish() { PROMPT=$'%F{green}❯%f '; RPROMPT=; zle .reset-prompt; }
zle -N zle-line-finish
"#;

/// zsh in vi mode, the mode shown in the right prompt (the prompt is
/// drawn again, marks and all, on each switch).
const ZSH_VI: &str = r#"
bindkey -v
KEYTIMEOUT=1
zle-keymap-select() { RPROMPT=${${KEYMAP/vicmd/[N]}/(main|viins)/[I]}; zle .reset-prompt; }
zle -N zle-keymap-select
"#;

/// What fish ≥ 4.0 prints (fish's `src/terminal.rs`, `src/screen.rs`),
/// written for fish 3.6: `A;click_events=1` and `B` around every prompt
/// drawn (a repaint too), `C;cmdline_url=` with the command line
/// percent-encoded, `D;$status`, all ended by ST; a two-row coloured
/// prompt and a right prompt.
const FISH4: &str = r#"function fish_greeting; end
function fish_prompt
    printf '\e]133;A;click_events=1\e\\'
    set_color blue; printf '%s' (prompt_pwd); set_color normal; printf ' on main\n'
    set_color green; printf '❯ '; set_color normal
    printf '\e]133;B\e\\'
end
function fish_right_prompt; set_color yellow; printf 'took 2s'; set_color normal; end
function __tw_c --on-event fish_preexec; printf '\e]133;C;cmdline_url=%s\e\\' (string escape --style=url -- $argv[1]); end
function __tw_d --on-event fish_postexec; printf '\e]133;D;%d\e\\' $status; end
"#;

/// fish with an older, common integration (foot's wiki): `C` without the
/// command line, so the command is read from the screen, beside a right
/// prompt.
const FISH_PLAIN: &str = r#"function fish_greeting; end
function fish_prompt
    printf '\e]133;A\e\\'
    set_color blue; printf '%s' (prompt_pwd); set_color normal; printf ' on main\n'
    set_color green; printf '❯ '; set_color normal
    printf '\e]133;B\e\\'
end
function fish_right_prompt; set_color yellow; printf 'took 2s'; set_color normal; end
function __tw_c --on-event fish_preexec; printf '\e]133;C\e\\'; end
function __tw_d --on-event fish_postexec; printf '\e]133;D;%d\e\\' $status; end
"#;

/// fish's transient prompt as plugins draw it: Enter repaints the prompt
/// short (fish ≥ 4.0 marks every prompt it draws), then runs the line.
const FISH_TRANSIENT: &str = r#"
function __tw_enter; set -g __tw_transient 1; commandline -f repaint execute; end
function __tw_untransient --on-event fish_prompt; set -e __tw_transient; end
bind \r __tw_enter
functions -c fish_prompt __tw_full_prompt
function fish_prompt
    if set -q __tw_transient
        printf '\e]133;A;click_events=1\e\\'; set_color green; printf '❯ '; set_color normal
        # What the full prompt drew below goes.
        printf '\e[J\e]133;B\e\\'
    else
        __tw_full_prompt
    end
end
function fish_right_prompt; set -q __tw_transient; or begin; set_color yellow; printf 'took 2s'; set_color normal; end; end
"#;

const FISH_VI: &str = "set -g fish_key_bindings fish_vi_key_bindings\n";

/// One shell configuration.
#[derive(Clone, Copy, Debug)]
struct Config {
    /// What it is, for messages.
    name: &'static str,
    /// bash, zsh or fish.
    shell: &'static str,
    /// The start-up file's parts, in order.
    rc: &'static [&'static str],
    /// The end of the prompt's last row, before the command line.
    tail: &'static str,
    /// readline's start-up file (bash), empty for none.
    inputrc: &'static str,
    /// It draws a right prompt at the right edge.
    right: bool,
}

const BASH_PREEXEC_CFG: Config = Config {
    name: "bash, preexec style",
    shell: "bash",
    rc: &[BASH_PREEXEC],
    tail: "$ ",
    inputrc: "",
    right: false,
};
const BASH_STARSHIP_CFG: Config = Config {
    name: "bash, starship style",
    shell: "bash",
    rc: &[BASH_STARSHIP],
    tail: "❯ ",
    inputrc: "",
    right: true,
};
const ZSH_HOOKS_CFG: Config = Config {
    name: "zsh, hooks and RPROMPT",
    shell: "zsh",
    rc: &[ZSH_HOOKS],
    tail: "% ",
    inputrc: "",
    right: true,
};
const ZSH_STARSHIP_CFG: Config = Config {
    name: "zsh, starship style",
    shell: "zsh",
    rc: &[ZSH_STARSHIP],
    tail: "❯ ",
    inputrc: "",
    right: true,
};
const FISH4_CFG: Config = Config {
    name: "fish, fish 4's marks",
    shell: "fish",
    rc: &[FISH4],
    tail: "❯ ",
    inputrc: "",
    right: true,
};

/// A shell of one configuration in a pane of a fresh server, followed by
/// tmuxwire, with a first command (`true`) listed.
struct Prompted {
    server: TestServer,
    s: Arc<Servers>,
    pane: String,
    ctx: String,
    cfg: Config,
    /// The index of the first command (`true`).
    base: u64,
    _home: tempfile::TempDir,
}

impl Prompted {
    /// Starts `cfg` on `bin`; `None` when the shell is not installed.
    async fn start(bin: &TmuxBin, cfg: Config) -> Option<Prompted> {
        crate::support::test_shell(cfg.shell)?;
        let home = tempfile::Builder::new()
            .prefix("tmuxwire-test-prompts-")
            .tempdir()
            .expect("a private home");
        let h = home.path().display().to_string();
        let rc: String = cfg.rc.concat();
        let env = format!(
            "env -i HOME={h} TMUX_TMPDIR={} TERM=screen LANG=C.UTF-8 PATH=/usr/bin:/bin \
             HISTFILE=/dev/null INPUTRC={h}/inputrc XDG_CONFIG_HOME={h}/config \
             XDG_DATA_HOME={h}/data XDG_CACHE_HOME={h}/cache",
            crate::support::private_tmux_tmpdir().display()
        );
        std::fs::write(home.path().join("inputrc"), cfg.inputrc).expect("inputrc");
        let cmd = match cfg.shell {
            "bash" => {
                std::fs::write(home.path().join("bashrc"), rc).expect("bashrc");
                format!("{env} bash --noprofile --rcfile {h}/bashrc -i")
            }
            "zsh" => {
                std::fs::write(home.path().join(".zshrc"), rc).expect(".zshrc");
                // -d: no global start-up files but zshenv.
                format!("{env} ZDOTDIR={h} zsh -d -i")
            }
            _ => {
                // Not --no-config: fish 3.6 then sets up no vi key
                // bindings. The configuration is read from the private
                // XDG_CONFIG_HOME (and the system's /etc/fish).
                let dir = home.path().join("config/fish");
                std::fs::create_dir_all(&dir).expect("config/fish");
                std::fs::write(dir.join("config.fish"), rc).expect("config.fish");
                format!("{env} fish")
            }
        };
        let server = TestServer::builder(bin).size(80, 20).command(&cmd).start();
        let pane = first_pane(&server);
        let s = mirrored_servers(&server);
        let ctx = format!("{} on tmux {}", cfg.name, bin.label);
        eprintln!("-- {ctx}");
        // Follow the pane, then a fresh prompt and a first command.
        ok_typed(&s, ListCommandsArgs::on(&pane)).await;
        server.wait_for_text(&pane, cfg.tail.trim_end(), DEADLINE);
        server.tmux_ok(&["send-keys", "-t", &pane, "Enter"]);
        crate::commands::prompt_ready(&s, &pane).await;
        type_line(&server, &pane, "true");
        let v = listed_until(&s, &pane, "true").await;
        let base = v["commands"]
            .as_array()
            .and_then(|a| a.iter().rfind(|c| c["command"] == json!("true")))
            .and_then(|c| c["index"].as_u64())
            .unwrap_or_else(|| panic!("{ctx}: true in {v}"));
        Some(Prompted {
            server,
            s,
            pane,
            ctx,
            cfg,
            base,
            _home: home,
        })
    }

    fn typed(&self, line: &str) {
        type_line(&self.server, &self.pane, line);
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.pane.as_str()];
        args.extend(keys);
        self.server.tmux_ok(&args);
    }

    fn literal(&self, text: &str) {
        self.server
            .tmux_ok(&["send-keys", "-t", &self.pane, "-l", "--", text]);
    }

    /// The text of the row the cursor is on.
    fn cursor_row(&self) -> String {
        let y: usize = self
            .server
            .tmux_ok(&["display", "-p", "-t", &self.pane, "#{cursor_y}"])
            .trim()
            .parse()
            .unwrap_or(0);
        self.server
            .capture(&self.pane, &[])
            .lines()
            .nth(y)
            .unwrap_or("")
            .to_string()
    }

    /// Waits until the cursor's row satisfies `want`.
    fn cursor_row_until(&self, what: &str, want: impl Fn(&str) -> bool) {
        crate::support::wait_until(what, DEADLINE, || {
            let row = self.cursor_row();
            want(&row).then_some(())
        });
    }

    /// Types `text` without Enter and waits until it shows.
    fn typed_no_enter(&self, text: &str) {
        self.literal(text);
        self.cursor_row_until(&format!("{}: {text:?} shown", self.ctx), |r| {
            r.contains(text)
        });
    }

    /// The commands from the first one on, as (command, state, status).
    async fn table(&self) -> (Vec<(Value, Value, Value)>, Value) {
        let v = ok_typed(
            &self.s,
            ListCommandsArgs {
                limit: Some(100),
                ..ListCommandsArgs::on(&self.pane)
            },
        )
        .await;
        let rows = v["commands"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|c| c["index"].as_u64() >= Some(self.base))
                    .map(|c| {
                        (
                            c["command"].clone(),
                            c["state"].clone(),
                            c["exit_status"].clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        (rows, v)
    }

    /// Asserts that the table from the first command on comes to hold
    /// exactly `done` (command, status), finished, then the open prompt
    /// (which fish draws after its `D`, in another write).
    async fn assert_table(&self, done: &[(&str, u64)]) {
        let mut want: Vec<(Value, Value, Value)> = done
            .iter()
            .map(|(c, st)| (json!(c), json!("finished"), json!(st)))
            .collect();
        want.push((Value::Null, json!("prompt"), Value::Null));
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            let (rows, v) = self.table().await;
            if rows == want {
                return;
            }
            if std::time::Instant::now() >= deadline {
                assert_eq!(rows, want, "{}: {v}", self.ctx);
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// The output lines of the newest command whose line is `command`.
    async fn output_of(&self, command: &str) -> Vec<String> {
        let v = listed_until(&self.s, &self.pane, command).await;
        let index = v["commands"]
            .as_array()
            .and_then(|a| a.iter().rfind(|c| c["command"] == json!(command)))
            .map(|c| c["index"].clone())
            .unwrap_or(Value::Null);
        let out = ok_typed(
            &self.s,
            CommandOutputArgs {
                index: index.as_i64(),
                ..CommandOutputArgs::on(&self.pane)
            },
        )
        .await;
        out["lines"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l["text"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Runs `line` and waits until it is listed as finished.
    async fn ran(&self, line: &str) {
        self.typed(line);
        listed_until(&self.s, &self.pane, line).await;
    }

    /// `get_pane_state`'s `last_output_at`.
    async fn last_output_at(&self) -> f64 {
        let v = ok_typed(&self.s, PaneStateArgs::on(&self.pane)).await;
        v["last_output_at"].as_f64().unwrap_or(0.0)
    }
}

/// Runs `f` on each configuration on every tmux version.
async fn each<F>(configs: &[Config], mut f: F)
where
    F: AsyncFnMut(Prompted),
{
    for bin in tmux_bins() {
        for &cfg in configs {
            if let Some(p) = Prompted::start(&bin, cfg).await {
                f(p).await;
            }
        }
    }
}

/// Enter on an empty line and Ctrl-C at the prompt (with a command line
/// typed) run nothing: no record, whether the shell sends `D;$?` at every
/// prompt (bash-preexec style, WezTerm style), only after a command (zsh
/// hooks) or a new prompt only (fish).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_lines_and_ctrl_c_at_the_prompt_are_no_commands() {
    let configs = [
        BASH_PREEXEC_CFG,
        BASH_STARSHIP_CFG,
        ZSH_HOOKS_CFG,
        ZSH_STARSHIP_CFG,
        FISH4_CFG,
    ];
    each(&configs, async |p| {
        p.keys(&["Enter"]);
        p.keys(&["Enter"]);
        p.typed_no_enter("echo never");
        p.keys(&["C-c"]);
        p.cursor_row_until(&format!("{}: a new prompt after C-c", p.ctx), |r| {
            !r.contains("echo never") && r.contains(p.cfg.tail.trim_end())
        });
        p.ran("echo after").await;
        p.assert_table(&[("true", 0), ("echo after", 0)]).await;
        assert_eq!(p.output_of("echo after").await, ["after"], "{}", p.ctx);
    })
    .await;
}

/// A command typed over several lines is one record with every line
/// (joined by line feeds), from continuation prompts marked (`P;k=s` …
/// `B`) or not (bash's `> `, zsh's `for> `), and from fish's
/// `cmdline_url`; its output is the loop's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_line_commands_are_one_record_with_every_line() {
    let configs = [
        BASH_PREEXEC_CFG,
        BASH_STARSHIP_CFG,
        ZSH_HOOKS_CFG,
        ZSH_STARSHIP_CFG,
        FISH4_CFG,
    ];
    each(&configs, async |p| {
        let lines: &[&str] = if p.cfg.shell == "fish" {
            &["for i in 1 2", "echo n$i", "end"]
        } else {
            &["for i in 1 2; do", "echo n$i", "done"]
        };
        for (k, line) in lines.iter().enumerate() {
            p.typed(line);
            if k + 1 < lines.len() && p.cfg.shell != "fish" {
                // The continuation prompt, before the next line is typed.
                p.cursor_row_until(&format!("{}: PS2 after {line:?}", p.ctx), |r| {
                    let r = r.trim_end();
                    !r.contains(line) && (r.ends_with('>') || r.ends_with('∙'))
                });
            }
        }
        let whole = lines.join("\n");
        assert_eq!(p.output_of(&whole).await, ["n1", "n2"], "{}", p.ctx);
        p.assert_table(&[("true", 0), (whole.as_str(), 0)]).await;
    })
    .await;
}

/// A right prompt on the command line's row (zsh's `RPROMPT`, fish's
/// `fish_right_prompt`, bash's drawn by saving and restoring the cursor)
/// is not part of the command read from the screen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn right_prompts_stay_out_of_the_command() {
    let fish_plain = Config {
        name: "fish, foot-style marks (no command line)",
        rc: &[FISH_PLAIN],
        ..FISH4_CFG
    };
    let configs = [
        BASH_STARSHIP_CFG,
        ZSH_HOOKS_CFG,
        ZSH_STARSHIP_CFG,
        fish_plain,
    ];
    each(&configs, async |p| {
        p.typed_no_enter("echo right  side");
        let row = p.cursor_row();
        let right = row.trim_end();
        assert!(
            ["[main]", "]", "took 2s"]
                .iter()
                .any(|r| right.ends_with(r)),
            "{}: no right prompt shown: {row:?}",
            p.ctx
        );
        p.keys(&["Enter"]);
        assert_eq!(
            p.output_of("echo right  side").await,
            ["right side"],
            "{}",
            p.ctx
        );
        p.assert_table(&[("true", 0), ("echo right  side", 0)])
            .await;
    })
    .await;
}

/// A prompt drawn again on a resize (SIGWINCH: bash redraws the prompt's
/// last row, zsh and fish all of it, right prompt included) while a
/// command line is typed is the same record, and the command line is read
/// from where it is drawn last. (bash's right prompt drawn by saving and
/// restoring the cursor is left out: bash does not draw it again at the
/// new width, so the screen itself keeps copies of it beside the command.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_redrawn_on_a_resize_are_one_record() {
    let configs = [BASH_PREEXEC_CFG, ZSH_HOOKS_CFG, ZSH_STARSHIP_CFG, FISH4_CFG];
    each(&configs, async |p| {
        p.typed_no_enter("echo resized");
        for width in [60usize, 80] {
            let before = p.last_output_at().await;
            let w = width.to_string();
            p.server
                .tmux_ok(&["resize-window", "-t", &p.pane, "-x", &w, "-y", "20"]);
            let what = format!("{}: the prompt redrawn {width} wide", p.ctx);
            if p.cfg.right {
                // The right prompt at the new right edge.
                p.cursor_row_until(&what, |r| {
                    let n = r.trim_end().chars().count();
                    n + 4 >= width && n <= width && r.contains("echo resized")
                });
            } else {
                crate::support::wait_until_async(&what, || async {
                    (p.last_output_at().await > before).then_some(())
                })
                .await;
            }
        }
        p.keys(&["Enter"]);
        assert_eq!(p.output_of("echo resized").await, ["resized"], "{}", p.ctx);
        p.assert_table(&[("true", 0), ("echo resized", 0)]).await;
    })
    .await;
}

/// A transient prompt (rewritten short after Enter: by zsh's
/// zle-line-finish and bash's PS0 without marks, by fish with them) leaves
/// one record per command, with its command line and output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_prompts_are_one_record_per_command() {
    let configs = [
        Config {
            name: "bash, transient prompt from the preexec hook",
            rc: &[BASH_PREEXEC, BASH_TRANSIENT],
            ..BASH_PREEXEC_CFG
        },
        Config {
            name: "zsh, transient prompt from zle-line-finish",
            rc: &[ZSH_STARSHIP, ZSH_TRANSIENT],
            ..ZSH_STARSHIP_CFG
        },
        Config {
            name: "fish, transient prompt",
            rc: &[FISH4, FISH_TRANSIENT],
            ..FISH4_CFG
        },
    ];
    each(&configs, async |p| {
        p.ran("echo fleeting one").await;
        p.ran("echo fleeting two").await;
        let screen = p.server.capture(&p.pane, &[]);
        assert!(
            screen.lines().any(|l| l.starts_with("❯ echo fleeting one")),
            "{}: the prompt was not rewritten: {screen}",
            p.ctx
        );
        assert_eq!(
            p.output_of("echo fleeting one").await,
            ["fleeting one"],
            "{}",
            p.ctx
        );
        p.assert_table(&[
            ("true", 0),
            ("echo fleeting one", 0),
            ("echo fleeting two", 0),
        ])
        .await;
    })
    .await;
}

/// vi mode (bash `set -o vi` with the mode shown in the prompt, zsh
/// `bindkey -v` with the mode in `RPROMPT`, fish's vi bindings): switching
/// modes redraws the prompt; the command line edited in command mode is
/// one record with the line as run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vi_mode_edits_are_one_record() {
    let configs = [
        Config {
            name: "bash, vi mode",
            rc: &[BASH_PREEXEC, BASH_VI],
            inputrc: INPUTRC_VI,
            ..BASH_PREEXEC_CFG
        },
        Config {
            name: "zsh, vi mode",
            rc: &[ZSH_HOOKS, ZSH_VI],
            ..ZSH_HOOKS_CFG
        },
        Config {
            name: "fish, vi mode",
            rc: &[FISH4, FISH_VI],
            ..FISH4_CFG
        },
    ];
    each(&configs, async |p| {
        p.typed_no_enter("echo vix");
        p.keys(&["Escape"]);
        crate::support::wait_until(&format!("{}: command mode shown", p.ctx), DEADLINE, || {
            let screen = p.server.capture(&p.pane, &[]);
            (screen.contains("(cmd)") || screen.contains("[N]")).then_some(())
        });
        p.keys(&["x"]);
        p.cursor_row_until(&format!("{}: x deleted", p.ctx), |r| {
            r.contains("echo vi") && !r.contains("echo vix")
        });
        p.keys(&["Enter"]);
        assert_eq!(p.output_of("echo vi").await, ["vi"], "{}", p.ctx);
        p.assert_table(&[("true", 0), ("echo vi", 0)]).await;
    })
    .await;
}

/// A command waiting for one key (bash `read -n 1`, `read -s -n 1`, zsh
/// `read -k`, `read -q`, fish's `read -n 1`, its prompt marked as fish 4
/// marks it) ends `wait_for_command` as `awaiting_input`, `get_pane_state`
/// says `key-read`; once answered, the command is listed once, finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_key_reads_end_waits_as_awaiting_input() {
    let configs = [BASH_PREEXEC_CFG, ZSH_HOOKS_CFG, FISH4_CFG];
    each(&configs, async |p| {
        let reads: &[&str] = match p.cfg.shell {
            "bash" => &[
                "read -n 1 -p 'go on? [y/n] ' a; echo; echo got-$a",
                "read -s -n 1 a; echo got-$a",
            ],
            "zsh" => &["read -k 1 a; echo; echo got-$a", "read -q a; echo; echo got-$a"],
            _ => &[
                "read -n 1 -P 'go on? [y/n] ' a; echo got-$a",
                r#"read -n 1 -p 'printf "\e]133;A;click_events=1\e\x5cgo on? \e]133;B\e\x5c"' a; echo got-$a"#,
            ],
        };
        let mut done = vec![("true", 0)];
        for &read in reads {
            p.typed(read);
            let v = ok_typed(
                &p.s,
                WaitForCommandArgs {
                    timeout: 20.0,
                    ..WaitForCommandArgs::on(&p.pane)
                },
            )
            .await;
            assert_eq!(v["outcome"], json!("awaiting_input"), "{}: {read}: {v}", p.ctx);
            assert!(v["elapsed_seconds"].as_f64() < Some(5.0), "{}: {v}", p.ctx);
            assert_eq!(v["running"]["command"], json!(read), "{}: {v}", p.ctx);
            assert!(
                v["evidence"].as_array().is_some_and(|e| !e.is_empty()),
                "{}: {v}",
                p.ctx
            );
            let st = ok_typed(&p.s, PaneStateArgs::on(&p.pane)).await;
            assert_eq!(st["input"], json!("key-read"), "{}: {read}: {st}", p.ctx);
            assert_eq!(st["command_state"], json!("running"), "{}: {st}", p.ctx);
            p.keys(&["y"]);
            let out = p.output_of(read).await;
            assert!(
                out.iter().any(|l| l.ends_with("got-y")),
                "{}: {read}: {out:?}",
                p.ctx
            );
            done.push((read, 0));
        }
        p.assert_table(&done).await;
    })
    .await;
}
