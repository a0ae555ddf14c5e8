#!/usr/bin/env python3
"""tmuxwire and libtmux-mcp side by side: the text block of every tool.

For each of the 54 tools this starts, for each server, a fresh private tmux
server set up identically (``-f /dev/null``, a socket in a ``TMUX_TMPDIR`` of
the server's own), runs the same preparation, calls the tool with the same
arguments through the official MCP Python SDK (``ClientSession`` over
``stdio_client``), and compares the text blocks a client reads:

* text that is not JSON (pane text, libtmux-mcp's sentences) must be equal
  once volatile values are normalised;
* JSON must be formatted as libtmux-mcp (FastMCP, pydantic) formats it:
  compact separators, non-ASCII as UTF-8, nulls kept; every object must hold
  the reference's keys first, in the reference's order, with the same values
  and types, and may add only the keys ``EXTRA_KEYS`` lists after them (the
  README's rule: a JSON client ignores unknown keys, a model reads the hints).

Differences that are deliberate fixes (the README lists them) are in
``ALLOWED``, each with its reason; anything else fails. Volatile values (pids,
ttys, times, tmpdirs, buffer ids, cursors, durations) are normalised first.

Run: python3 tests/dropin/sidebyside.py --tmuxwire target/debug/tmuxwire
(with the packages of tests/dropin/requirements.txt installed; .ci/run makes a
venv under target/ for it). Exit status 0: every case matched; 1: a difference.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ALL_TOOLSETS = "inspect,manage,execute,teardown"
DEADLINE = 20.0


# --------------------------------------------------------------------------
# The two sides: a server command, its private TMUX_TMPDIR and tmux fixtures
# --------------------------------------------------------------------------


class Side:
    """One MCP server under test and the tmux servers its cases run on."""

    def __init__(self, name: str, command: list[str], root: Path, tmux: str, cwd: Path) -> None:
        self.name = name
        self.command = command
        self.tmux_bin = tmux
        self.cwd = cwd
        self.tmpdir = root / f"{name}-tmp"
        self.tmpdir.mkdir()
        self.home = root / f"{name}-home"
        self.home.mkdir()
        # Panes run `sh` as a login shell, which reads /etc/profile (where root's prompt
        # becomes `# `); ENV is read after it, so every pane shows `$ `.
        self.shrc = self.home / "shrc"
        self.shrc.write_text("PS1='$ '\n")
        self.session: ClientSession | None = None
        self.socket = ""
        self.ctx: dict[str, Any] = {}

    def env(self) -> dict[str, str]:
        """The environment of the MCP server and of every tmux started for this side."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "TMUX_TMPDIR": str(self.tmpdir),
            "SHELL": "/bin/sh",
            "PS1": "$ ",
            "ENV": str(self.shrc),
            "LANG": "C.UTF-8",
            "TERM": "xterm",
            "LIBTMUX_TOOLSETS": ALL_TOOLSETS,
            "TMUXWIRE_TOOLSETS": ALL_TOOLSETS,
            "LIBTMUX_TMUX_BIN": self.tmux_bin,
            "TMUXWIRE_TMUX": self.tmux_bin,
        }
        return env

    def tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            [self.tmux_bin, "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env(),
            capture_output=True,
            text=True,
            cwd=self.cwd,
            timeout=DEADLINE,
        )
        if check and proc.returncode != 0:
            raise RuntimeError(f"{self.name}: tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def start_fixture(self, socket: str) -> None:
        """The same tmux server on each side: session `main` (window 0 with panes
        %0 and %1 side by side, window 1 with %2), session `other` (%3), a hook,
        every pane at a `$ ` prompt."""
        self.socket = socket
        self.ctx = {}
        cwd = str(self.cwd)
        self.tmux("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "-c", cwd)
        self.tmux("split-window", "-h", "-t", "=main:0", "-c", cwd)
        self.tmux("new-window", "-d", "-t", "=main:1", "-c", cwd)
        self.tmux("new-session", "-d", "-s", "other", "-x", "80", "-y", "24", "-c", cwd)
        self.tmux("select-pane", "-t", "%0")
        self.tmux("set-hook", "-g", "after-new-window", "display-message created")
        for pane in ("%0", "%1", "%2", "%3"):
            self.wait_screen(pane, lambda s: s.rstrip().endswith("$"))
        # Window names follow the pane's program (automatic-rename, on a
        # timer of its own) and start as tmux's name until the first check:
        # wait until every window is named after its shell, so a call reads
        # the same names on both sides whenever it comes.
        self.wait_tmux(
            ["list-windows", "-a", "-F", "#{window_name}"],
            lambda out: set(out.split()) == {"sh"},
        )

    def wait_tmux(self, args: list[str], cond: Callable[[str], bool]) -> str:
        end = time.monotonic() + DEADLINE
        while True:
            out = self.tmux(*args, check=False)
            if cond(out):
                return out
            if time.monotonic() > end:
                raise RuntimeError(f"{self.name}: tmux {' '.join(args)} never gave what was waited for:\n{out}")
            time.sleep(0.02)

    def stop_fixture(self) -> None:
        self.tmux("kill-server", check=False)

    def screen(self, pane: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", pane)

    def wait_screen(self, pane: str, cond: Callable[[str], bool]) -> str:
        end = time.monotonic() + DEADLINE
        while True:
            s = self.tmux("capture-pane", "-p", "-t", pane, check=False)
            if cond(s):
                return s
            if time.monotonic() > end:
                raise RuntimeError(f"{self.name}: pane {pane} never showed what was waited for:\n{s}")
            time.sleep(0.02)

    def run_in(self, pane: str, command: str, done: str) -> None:
        """Types `command` into `pane` (through tmux, not the MCP server) and waits
        until the screen shows `done` followed by a new prompt."""
        self.tmux("send-keys", "-t", pane, "-l", command)
        self.tmux("send-keys", "-t", pane, "Enter")
        self.wait_screen(pane, lambda s: done in s and s.rstrip().endswith("$") and s.rstrip() != "$")

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        assert self.session is not None
        with anyio.fail_after(60):
            return await self.session.call_tool(tool, args)


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

Args = dict[str, Any] | Callable[[Side], dict[str, Any]]


@dataclasses.dataclass
class Case:
    """One call of `tool` on both sides."""

    name: str
    tool: str
    args: Args = dataclasses.field(default_factory=dict)
    # Runs on each side after the fixture is up (may store values in side.ctx).
    prep: Callable[[Side], Any] | None = None
    # Async preparation through the side's own MCP server (load_buffer, ...).
    mcp_prep: Callable[[Side], Any] | None = None
    # Whether `socket_name` is added to the arguments (the two tools without it: no).
    socket: bool = True


def echo_hello(side: Side) -> None:
    side.run_in("%0", "echo hello", "hello\n")


def hook_ids(side: Side) -> None:
    pass


async def load(side: Side, content: str = "hello\nworld", name: str = "note") -> None:
    r = await side.call("load_buffer", {"content": content, "logical_name": name, "socket_name": side.socket})
    if r.is_error:
        raise RuntimeError(f"{side.name}: load_buffer failed: {r.content}")
    side.ctx["buffer"] = r.structured_content["buffer_name"]


def buffer_args(**extra: Any) -> Callable[[Side], dict[str, Any]]:
    return lambda side: {"buffer_name": side.ctx["buffer"], **extra}


def scrolled_away(side: Side) -> None:
    # A line that the next 40 push off the 24-row screen into the history.
    side.run_in("%0", "echo FAR-BACK; seq 1 40", "40\n")


def glob_text(side: Side) -> None:
    side.run_in("%0", "printf '%s\\n' 'a*c' abc", "abc\n")


def seq_lines(side: Side) -> None:
    side.run_in("%0", "seq 1 5", "5\n")


def copy_mode(side: Side) -> None:
    side.tmux("copy-mode", "-t", "%0")


def presignal(side: Side) -> None:
    # tmux remembers a signal sent while nobody waits (cmd-wait-for.c `woken`):
    # the wait that follows returns at once.
    side.tmux("wait-for", "-S", "ready")


def pipe_args(side: Side) -> dict[str, Any]:
    return {"pane_id": "%0", "output_path": str(side.tmpdir / "pipe.log")}


CASES: list[Case] = [
    # inspect
    Case("list_sessions", "list_sessions"),
    Case("list_windows", "list_windows", {"session_name": "main"}),
    Case("list_panes", "list_panes", {"session_name": "main"}),
    Case("list_panes/filters", "list_panes", {"filters": {"pane_index": "1"}}),
    Case("get_server_info", "get_server_info"),
    Case("get_session_info", "get_session_info", {"session_name": "main"}),
    Case("get_window_info", "get_window_info", {"window_id": "@1"}),
    Case("get_pane_info", "get_pane_info", {"pane_id": "%1"}),
    Case("capture_pane", "capture_pane", {"pane_id": "%0"}, prep=echo_hello),
    Case("capture_pane/max_lines", "capture_pane", {"pane_id": "%0", "max_lines": 3}, prep=seq_lines),
    Case("capture_pane/range", "capture_pane", {"pane_id": "%0", "start": 1, "end": 3}, prep=seq_lines),
    Case("snapshot_pane", "snapshot_pane", {"pane_id": "%0"}, prep=echo_hello),
    Case(
        "display_message",
        "display_message",
        {"pane_id": "%1", "format_string": "#{pane_id} in #{session_name}: #{window_index}"},
    ),
    Case("search_panes", "search_panes", {"pattern": "hello"}, prep=echo_hello),
    Case("search_panes/none", "search_panes", {"pattern": "absent-text"}),
    Case("search_panes/scrollback", "search_panes", {"pattern": "FAR-BACK"}, prep=scrolled_away),
    # Literal patterns: `*` is no wildcard in either server.
    Case("search_panes/literal", "search_panes", {"pattern": "a*c"}, prep=glob_text),
    Case("list_servers", "list_servers", socket=False),
    Case("show_option", "show_option", {"option": "history-limit", "global_": True}),
    Case("show_option/unset", "show_option", {"option": "@unset", "scope": "session", "target": "main"}),
    Case("show_environment", "show_environment", {"session_name": "main"}),
    Case("show_buffer", "show_buffer", buffer_args(), mcp_prep=load),
    Case("show_hooks", "show_hooks", {"global_": True}),
    Case("show_hook", "show_hook", {"hook_name": "after-new-window", "global_": True}),
    Case("find_pane_by_position", "find_pane_by_position", {"corner": "top-right", "window_id": "@0"}),
    Case(
        "call_read_tools_batch",
        "call_read_tools_batch",
        lambda side: {
            "operations": [
                {"tool": "get_pane_info", "arguments": {"pane_id": "%0", "socket_name": side.socket}},
                {"tool": "capture_pane", "arguments": {"pane_id": "%0", "socket_name": side.socket}},
                {"tool": "list_windows", "arguments": {"session_name": "other", "socket_name": side.socket}},
                {
                    "tool": "display_message",
                    "arguments": {"pane_id": "%0", "format_string": "#{pane_id}", "socket_name": side.socket},
                },
            ]
        },
        prep=echo_hello,
        socket=False,
    ),
    Case("wait_for_text/timeout", "wait_for_text", {"pane_id": "%0", "patterns": ["NEVER-SEEN"], "timeout": 1}),
    Case("capture_since", "capture_since", {"pane_id": "%0"}, prep=echo_hello),
    # manage
    Case("rename_session", "rename_session", {"session_name": "other", "new_name": "renamed"}),
    Case("rename_window", "rename_window", {"window_id": "@1", "new_name": "logs #1"}),
    Case("select_window", "select_window", {"window_id": "@1"}),
    Case("select_pane", "select_pane", {"pane_id": "%1"}),
    Case("select_layout", "select_layout", {"window_id": "@0", "layout": "even-vertical"}),
    Case("resize_window", "resize_window", {"window_id": "@0", "width": 100, "height": 30}),
    Case("resize_pane", "resize_pane", {"pane_id": "%0", "width": 30}),
    Case("move_window", "move_window", {"window_id": "@1", "destination_index": "5"}),
    Case("swap_pane", "swap_pane", {"source_pane_id": "%0", "target_pane_id": "%1"}),
    Case("set_pane_title", "set_pane_title", {"pane_id": "%0", "title": "build #1 ✓ é"}),
    Case("enter_copy_mode", "enter_copy_mode", {"pane_id": "%0"}),
    Case("exit_copy_mode", "exit_copy_mode", {"pane_id": "%0"}, prep=copy_mode),
    Case("load_buffer", "load_buffer", {"content": "some text", "logical_name": "notes"}),
    Case("wait_for_channel", "wait_for_channel", {"channel": "ready", "timeout": 5}, prep=presignal),
    Case("signal_channel", "signal_channel", {"channel": "go"}),
    # execute
    Case("create_session", "create_session", lambda side: {"session_name": "made", "start_directory": str(side.cwd)}),
    Case(
        "create_window",
        "create_window",
        lambda side: {"session_name": "main", "window_name": "made", "start_directory": str(side.cwd)},
    ),
    Case("split_window", "split_window", lambda side: {"pane_id": "%0", "start_directory": str(side.cwd)}),
    Case("send_keys", "send_keys", {"pane_id": "%0", "keys": "echo sent"}),
    Case(
        "send_keys_batch",
        "send_keys_batch",
        {"operations": [{"keys": "echo one", "pane_id": "%0"}, {"keys": "echo two", "pane_id": "%1"}]},
    ),
    Case("paste_text", "paste_text", {"pane_id": "%0", "text": "pasted"}),
    Case("paste_buffer", "paste_buffer", buffer_args(pane_id="%0"), mcp_prep=load),
    Case("respawn_pane", "respawn_pane", {"pane_id": "%1", "kill": True}),
    Case("pipe_pane", "pipe_pane", pipe_args),
    Case("set_option", "set_option", {"option": "@color", "value": "blue", "scope": "session", "target": "main"}),
    Case("set_environment", "set_environment", {"name": "FOO", "value": "bar", "session_name": "main"}),
    Case("run_command", "run_command", {"pane_id": "%0", "command": "echo ran", "timeout": 10}),
    # teardown
    Case("kill_server", "kill_server"),
    Case("kill_session", "kill_session", {"session_name": "other"}),
    Case("kill_window", "kill_window", {"window_id": "@1"}),
    Case("kill_pane", "kill_pane", {"pane_id": "%1"}),
    Case("clear_pane", "clear_pane", {"pane_id": "%0"}, prep=echo_hello),
    Case("delete_buffer", "delete_buffer", buffer_args(), mcp_prep=load),
]


# --------------------------------------------------------------------------
# Normalising and comparing
# --------------------------------------------------------------------------

#: Keys whose values legitimately differ between two tmux servers set up the
#: same way: process ids, terminals, creation times, durations, random ids.
VOLATILE_KEYS = {
    "pane_pid",
    "pane_tty",
    "session_created",
    "elapsed_seconds",
    "cursor",
    "buffer_name",
    "pid",
}


def normalise_text(side: Side | None, s: str) -> str:
    """Volatile values inside text: the side's tmpdir and home, buffer names,
    ttys."""
    if side is not None:
        s = s.replace(str(side.tmpdir), "<TMPDIR>").replace(str(side.home), "<HOME>")
    s = re.sub(r"libtmux_mcp_[0-9a-f]{32}_|tmuxwire_[0-9a-f]{32}_", "<BUFFER>_", s)
    s = re.sub(r"/dev/pts/\d+", "/dev/pts/N", s)
    return s


def normalise(side: Side | None, v: Any, key: str | None = None) -> Any:
    if key in VOLATILE_KEYS and v is not None:
        return f"<{key}>"
    if isinstance(v, dict):
        return {k: normalise(side, x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [normalise(side, x, key) for x in v]
    if isinstance(v, str):
        return normalise_text(side, v)
    return v


def parse_json(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def compact(v: Any) -> str:
    """JSON as pydantic-core writes it (FastMCP's text block)."""
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def compare(ref: Any, got: Any, path: str, extras: set[str], problems: list[str]) -> None:
    """Records where `got` differs from `ref`: a missing key, a key out of the
    reference's order, an extra key not in `extras` or not after the
    reference's keys, a different value or type."""
    if isinstance(ref, dict) and isinstance(got, dict):
        rk = [k for k in ref if k in got]
        gk = list(got)
        for k in ref:
            if k not in got:
                problems.append(f"{path}: missing key {k!r}")
        if gk[: len(rk)] != rk:
            problems.append(f"{path}: keys {gk} do not start with the reference's {rk}")
        for k in gk[len(rk) :]:
            if k in ref:
                continue
            if k not in extras:
                problems.append(f"{path}: extra key {k!r} is not in EXTRA_KEYS")
        for k in rk:
            if k in got:
                compare(ref[k], got[k], f"{path}.{k}", extras, problems)
        return
    if isinstance(ref, list) and isinstance(got, list):
        if len(ref) != len(got):
            problems.append(f"{path}: {len(got)} items, reference {len(ref)}: {compact(got)[:400]} vs {compact(ref)[:400]}")
            return
        for i, (r, g) in enumerate(zip(ref, got)):
            compare(r, g, f"{path}[{i}]", extras, problems)
        return
    if isinstance(ref, str) and isinstance(got, str) and ref[:1] in "[{" and got[:1] in "[{":
        # JSON inside a string (a batch's nested text blocks): compared as JSON.
        rj, rv = parse_json(ref)
        gj, gv = parse_json(got)
        if rj and gj:
            if compact(gv) != got:
                problems.append(f"{path}: nested text is not compact JSON: {got[:300]!r}")
            compare(normalise(None, rv), normalise(None, gv), f"{path}(json)", extras, problems)
            return
    if type(ref) is not type(got) or ref != got:
        problems.append(f"{path}: {compact(got)} (reference: {compact(ref)})")


@dataclasses.dataclass
class Allowed:
    """A deliberate difference: problems matching `pattern` (a regular
    expression) in the cases whose name matches `case` (fully), with the
    reason."""

    case: str
    pattern: str
    reason: str
    # A difference that shows only on some runs (a race tmux decides).
    sometimes: bool = False
    used: bool = False


#: tmuxwire's own fields of each result, which its JSON text blocks carry
#: after the reference's (the README's rule: a client that parses JSON
#: ignores keys it does not know; a model reads the hints). No other key may
#: appear.
PANE_EXTRA = {"history_limit", "history_size", "session_name", "window_index", "window_name"}
SERVER_EXTRA = {"imsg_framing", "pid"}
SNAPSHOT_EXTRA = {"content_truncated_bytes", "content_view", "history_limit", "next"}
SEARCH_EXTRA = {
    "lines_omitted",
    "panes_searched",
    "panes_history_at_limit",
    "note",
    # per match
    "matched_at",
    "matched_line_count",
    "matched_line_numbers",
    "matched_line_rows",
    "matched_screens",
    "pane_index",
    "source",
    "window_index",
    "pane_dead",
    "exit_status",
    "capped_history_rows",
}
# capture_pane's structured result, as call_read_tools_batch nests it.
CAPTURE_EXTRA = {
    "alternate_on",
    "lines",
    "next",
    "pane_id",
    "pane_in_mode",
    "pane_mode",
    "pane_dead",
    "scroll_position",
    "source",
    "truncated_bytes",
    "truncated_lines",
    "view",
}
EXTRA_KEYS: dict[str, set[str]] = {
    "list_panes": PANE_EXTRA,
    "get_pane_info": PANE_EXTRA,
    "find_pane_by_position": PANE_EXTRA,
    "select_pane": PANE_EXTRA,
    "resize_pane": PANE_EXTRA,
    "swap_pane": PANE_EXTRA,
    "set_pane_title": PANE_EXTRA,
    "enter_copy_mode": PANE_EXTRA,
    "exit_copy_mode": PANE_EXTRA,
    "split_window": PANE_EXTRA,
    "respawn_pane": PANE_EXTRA,
    "get_server_info": SERVER_EXTRA,
    "list_servers": SERVER_EXTRA,
    "snapshot_pane": SNAPSHOT_EXTRA,
    "search_panes": SEARCH_EXTRA,
    "show_buffer": {"content_truncated_bytes"},
    "wait_for_text": {"pane_dead", "exit_status", "outcome", "pane_exit_status"},
    "capture_since": {"alternate_screen", "partial_line", "pane_dead", "lines_remaining"},
    "run_command": {"output_complete", "interrupted", "pane_dead", "outcome", "pane_exit_status"},
    "call_read_tools_batch": PANE_EXTRA | CAPTURE_EXTRA,
}

#: Deliberate differences, each a fix or a design the README states, with
#: its reason: (case, regular expression matched against the problem, reason).
ALLOWED: list[Allowed] = [
    Allowed(
        "get_server_info|list_servers",
        r"\$(\[0\])?\.socket_path: ",
        "tmuxwire names the socket it resolved; libtmux-mcp gives null unless it was started with a path",
    ),
    Allowed(
        "search_panes(/.*)?",
        r"\$\.matches\[\d+\]: missing key '(pane_(left|top|right|bottom|at_left|at_right|at_top|at_bottom|tty))'",
        "search_panes names each pane once, by ids, names, indexes, command and path; geometry and tty are list_panes'",
    ),
    Allowed(
        "search_panes/scrollback",
        r"\$(\.matches: |\.total_panes_matched: |\.matches\[0\]\.matched_lines: )",
        "search_panes searches the whole scrollback by default; libtmux-mcp only the visible rows",
    ),
    Allowed(
        "show_option/unset",
        r"isError: False \(reference: True\)",
        "an option not set reads as value null (its output schema says so), where tmux's error reaches libtmux-mcp's caller",
    ),
    Allowed(
        "call_read_tools_batch",
        r"\$\.results\[\d+\]\.meta: null \(reference: \{\"fastmcp\":\{\"wrap_result\":true\}\}\)",
        "FastMCP's private marker of a wrapped result; tmuxwire's nested results carry no _meta",
    ),
    Allowed(
        "wait_for_text/timeout",
        r"\$\.tail: ",
        "tail holds only what the pane printed during the wait (on the cursor's line, only what was added to it); "
        "libtmux-mcp repeats the rows from the entry row down, stale ones included",
    ),
    Allowed(
        "capture_since",
        r"\$\.lines: ",
        "capture_since returns each complete new line once; the line the cursor is on (a prompt) is partial_line "
        "until it is complete",
    ),
    Allowed(
        "select_layout",
        r"\$\.window_layout",
        "select_layout returns the window read after the change (the new layout); libtmux-mcp returns the old one",
    ),
    Allowed(
        "run_command",
        r"\$\.output: ",
        "run_command returns only the command's own output, between marks no output can forge; libtmux-mcp's "
        "holds the echo of the wrapper and the prompt",
    ),
    Allowed(
        "respawn_pane|split_window",
        r'\$\.pane_current_path: "" ',
        "the pane is read on the command line that starts its process, which may not yet have a working "
        "directory tmux can see; libtmux-mcp reads it later, in another process",
        sometimes=True,
    ),
]


def allowed(case: str, problem: str) -> Allowed | None:
    for a in ALLOWED:
        if re.fullmatch(a.case, case) and re.match(a.pattern, problem):
            a.used = True
            return a
    return None


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


# Tools tmuxwire offers beyond libtmux-mcp's (the MCP table's OWN_TOOLS).
OWN_TOOLS = (
    "get_pane_state",
    "list_commands",
    "get_command_output",
    "wait_for_command",
    "wait_for_stable",
    "poll_events",
)


async def start(side: Side, stack: contextlib.AsyncExitStack, log: Any) -> None:
    params = StdioServerParameters(command=side.command[0], args=side.command[1:], env=side.env(), cwd=str(side.cwd))
    read, write = await stack.enter_async_context(stdio_client(params, errlog=log))
    side.session = await stack.enter_async_context(ClientSession(read, write))
    await side.session.initialize()
    tools = await side.session.list_tools()
    names = sorted(t.name for t in tools.tools)
    # tmuxwire offers the reference's 54 tools and tools of its own (get_pane_state, ...);
    # only the reference's are compared.
    own = set(OWN_TOOLS) if side.name == "tmuxwire" else set()
    shared = [n for n in names if n not in own]
    if len(shared) != 54:
        raise RuntimeError(f"{side.name} lists {len(shared)} reference tools, not 54: {names}")


def text_of(r: Any) -> str:
    return "".join(c.text for c in r.content if getattr(c, "type", "") == "text")


def first_text(r: Any) -> str:
    """The first text block: libtmux-mcp's text (a second one is tmuxwire's note)."""
    texts = [c.text for c in r.content if getattr(c, "type", "") == "text"]
    return texts[0] if texts else ""


async def run_case(case: Case, sides: list[Side], index: int, dump: bool) -> list[str]:
    results = []
    for side in sides:
        side.start_fixture(f"dropin{index}")
    try:
        for side in sides:
            if case.prep:
                case.prep(side)
            if case.mcp_prep:
                await case.mcp_prep(side)
        for side in sides:
            args = case.args(side) if callable(case.args) else dict(case.args)
            if case.socket:
                args["socket_name"] = side.socket
            r = await side.call(case.tool, args)
            results.append((side, r))
    finally:
        for side in sides:
            side.stop_fixture()
    (ref_side, ref), (tw_side, tw) = results
    ref_text, tw_text = text_of(ref), first_text(tw)
    if dump:
        print(f"--- {case.name}\n  ref: {ref_text[:2000]}\n  tw:  {tw_text[:2000]}")
    problems: list[str] = []
    if bool(ref.is_error) != bool(tw.is_error):
        problems.append(f"isError: {tw.is_error} (reference: {ref.is_error}): {tw_text[:300]} vs {ref_text[:300]}")
        return problems
    if ref.is_error:
        # Errors keep tmuxwire's own messages; only the flag is compared.
        return problems
    if len(tw.content) == len(ref.content) + 1:
        # tmuxwire's note: what its first block has no room for, one compact JSON object.
        note = tw.content[-1].text
        ok, v = parse_json(note)
        if not ok or not isinstance(v, dict) or compact(v) != note:
            problems.append(f"the second text block is not one compact JSON object: {note[:300]!r}")
        elif dump:
            print(f"  note: {note[:400]}")
    elif len(tw.content) != len(ref.content):
        problems.append(f"{len(tw.content)} content blocks (reference: {len(ref.content)})")
    rj, rv = parse_json(ref_text)
    tj, tv = parse_json(tw_text)
    if rj and isinstance(rv, (dict, list)):
        if not tj:
            problems.append(f"text is not JSON: {tw_text[:300]!r}")
            return problems
        for side, text, v in ((ref_side, ref_text, rv), (tw_side, tw_text, tv)):
            if compact(v) != text:
                problems.append(f"{side.name} text is not compact JSON: {text[:300]!r}")
        extras = EXTRA_KEYS.get(case.tool, set())
        compare(normalise(ref_side, rv), normalise(tw_side, tv), "$", extras, problems)
    else:
        a, b = normalise_text(ref_side, ref_text), normalise_text(tw_side, tw_text)
        if a != b:
            problems.append(f"text: {b!r} (reference: {a!r})")
    return problems


async def main_async(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="tmuxwire-dropin-"))
    cwd = root / "work"
    cwd.mkdir()
    # The servers start in the cases' working directory: paths given relative to ours are
    # made absolute first.
    def program(p: str) -> str:
        return str(Path(p).resolve()) if "/" in p else p

    ref_cmd = [program(args.libtmux_mcp)]
    tw_cmd = [program(args.tmuxwire), "mcp"]
    sides = [Side("libtmux-mcp", ref_cmd, root, args.tmux, cwd), Side("tmuxwire", tw_cmd, root, args.tmux, cwd)]
    failures = 0
    passed = 0
    try:
        with open(root / "servers.log", "w", encoding="utf-8") as log:
            async with contextlib.AsyncExitStack() as stack:
                for side in sides:
                    await start(side, stack, log)
                tools_seen = set()
                for i, case in enumerate(CASES):
                    if args.only and not any(o in case.name for o in args.only):
                        continue
                    tools_seen.add(case.tool)
                    try:
                        problems = await run_case(case, sides, i, args.dump)
                    except Exception as e:  # noqa: BLE001 - a failing case must not stop the others
                        problems = [f"the case raised {type(e).__name__}: {e}"]
                    unexplained = []
                    for p in problems:
                        a = allowed(case.name, p)
                        if a:
                            print(f"  allowed  {case.name}: {p[:200]} ({a.reason})")
                        else:
                            unexplained.append(p)
                    if unexplained:
                        failures += 1
                        print(f"FAIL {case.name}")
                        for p in unexplained:
                            print(f"    {p}")
                    else:
                        passed += 1
                        print(f"ok   {case.name}")
                if not args.only:
                    all_tools = {t.name for t in (await sides[0].session.list_tools()).tools}
                    missing = all_tools - tools_seen
                    if missing:
                        failures += 1
                        print(f"FAIL coverage: no case for {sorted(missing)}")
                    for a in ALLOWED:
                        if not a.used and not a.sometimes:
                            failures += 1
                            print(f"FAIL allow-table: no difference matched {a.case} {a.pattern!r}: remove it")
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"sidebyside: {passed} passed, {failures} failed")
    return 1 if failures else 0


def main() -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tmuxwire", default=str(here.parent.parent / "target/debug/tmuxwire"))
    p.add_argument("--libtmux-mcp", default=shutil.which("libtmux-mcp") or "libtmux-mcp")
    p.add_argument("--tmux", default=shutil.which("tmux") or "tmux")
    p.add_argument("--only", action="append", help="run only the cases whose name contains this")
    p.add_argument("--dump", action="store_true", help="print both text blocks of every case")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = p.parse_args()
    return anyio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
