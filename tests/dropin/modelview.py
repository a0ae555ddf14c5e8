#!/usr/bin/env python3
"""What the model reads: a scripted agent session on tmuxwire and libtmux-mcp side by side.

Clients disagree on which half of a tool result reaches the model (/work docs: model-view):
Claude Code, Codex, Copilot CLI and opencode pass ``JSON.stringify(structuredContent)``
whenever it is present (else the text blocks); Open WebUI, kimi-code and others pass only the
text blocks. This script renders both rules for every call of an ordinary agent session
(``SESSION``: lists, info, captures, a search, send_keys, wait_for_text, display_message,
snapshot_pane, ...) made on identical private tmux servers (``sidebyside.Side``), and checks:

* every fact of libtmux-mcp's view is in tmuxwire's (leaf values of JSON by key, lines of
  text), in both views, but for the deliberate differences ``sidebyside.ALLOWED`` lists;
* the payload leads: tmuxwire's structured view starts with libtmux-mcp's first key;
* over the session, tmuxwire's structured view and its text view each total at most
  ``RATIO`` times libtmux-mcp's;
* large answers (``LARGE``: a capture of a long history with ``max_lines: null``, one shaped by
  ``grep``, a search
  matching every line of it) stay within the model budget (``MODEL_BUDGET`` characters) in
  both views, and say how to get the rest.

It prints a table of the view sizes per call and their totals. Run:
python3 tests/dropin/modelview.py --tmuxwire target/debug/tmuxwire --libtmux-mcp
target/dropin-venv/bin/libtmux-mcp (.ci/run does, after sidebyside.py). Exit status 0: every
check held; 1: a check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sidebyside as sbs  # noqa: E402

#: At most this many times libtmux-mcp's characters over the session, in each view.
RATIO = 1.05
#: tmuxwire's default model budget: characters of either view of any one answer.
MODEL_BUDGET = 40_000

#: The session: (label, tool, arguments), made in this order on both sides.
SESSION: list[tuple[str, str, dict[str, Any]]] = [
    ("list_sessions", "list_sessions", {}),
    ("list_windows", "list_windows", {"session_name": "main"}),
    ("list_panes", "list_panes", {"session_name": "main"}),
    ("get_pane_info", "get_pane_info", {"pane_id": "%0"}),
    ("capture_pane", "capture_pane", {"pane_id": "%0"}),
    ("search_panes", "search_panes", {"pattern": "hello"}),
    ("send_keys", "send_keys", {"pane_id": "%0", "keys": "echo typed-by-agent"}),
    ("wait_for_text", "wait_for_text", {"pane_id": "%0", "patterns": ["typed-by-agent"], "timeout": 10}),
    ("display_message", "display_message", {"pane_id": "%0", "format_string": "#{pane_current_command}"}),
    ("snapshot_pane", "snapshot_pane", {"pane_id": "%1"}),
    ("get_window_info", "get_window_info", {"window_id": "@0"}),
]

#: Keys whose values differ between the two sides by design (sidebyside's ALLOWED), per tool.
DIFFERENT = {
    "wait_for_text": {"tail", "matched_lines", "matched_index"},
    "search_panes": {
        "pane_left", "pane_top", "pane_right", "pane_bottom", "pane_at_left", "pane_at_right",
        "pane_at_top", "pane_at_bottom", "pane_tty",
    },
    "get_server_info": {"socket_path"},
}


def structured_view(r: Any) -> str:
    """What a structured-preferring client (Claude Code, Codex, opencode) gives its model."""
    if r.structured_content is not None:
        return json.dumps(r.structured_content, separators=(",", ":"), ensure_ascii=False)
    return text_view(r)


def text_view(r: Any) -> str:
    """What a text-only client (Open WebUI, kimi-code) gives its model: the text blocks."""
    return "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")


def facts(v: Any, key: str = "", out: set[tuple[str, str]] | None = None) -> set[tuple[str, str]]:
    """The leaf facts of a value: (key, scalar) pairs; a string's lines each; JSON inside a
    string parsed."""
    if out is None:
        out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            facts(x, k, out)
    elif isinstance(v, list):
        for x in v:
            facts(x, key, out)
    elif isinstance(v, str):
        ok, parsed = sbs.parse_json(v)
        if ok and isinstance(parsed, (dict, list)):
            facts(parsed, key, out)
        else:
            for line in v.splitlines() or [""]:
                out.add((key, line.rstrip()))
    elif isinstance(v, bool) or v is None:
        out.add((key, json.dumps(v)))
    else:
        out.add((key, json.dumps(v)))
    return out


def view_facts(side: sbs.Side, view: str) -> set[tuple[str, str]]:
    ok, v = sbs.parse_json(view)
    v = sbs.normalise(side, v) if ok else sbs.normalise_text(side, view)
    return facts(v)


def missing(ref: set[tuple[str, str]], got: set[tuple[str, str]], skip: set[str]) -> list[tuple[str, str]]:
    """The facts of `ref` not in `got`: a fact counts as present under any key when its
    value is a text line (a capture's lines are `result` in one view and bare in the other)."""
    values = {v for _, v in got}
    return sorted(
        (k, v) for k, v in ref if k not in skip and (k, v) not in got and not (v and v in values)
    )


def first_key(view: str) -> str | None:
    ok, v = sbs.parse_json(view)
    if ok and isinstance(v, dict) and v:
        return next(iter(v))
    return None


def fill_history(side: sbs.Side) -> None:
    """The session's fixture: a build's output on %0's screen, and 3,000 lines of history in
    %1."""
    sbs.echo_hello(side)
    side.run_in("%0", "seq -f 'build step %g: module ok' 1 18", "build step 18: module ok\n")
    side.run_in("%1", "seq -f 'history line %g of the long pane' 1 3000", "3000 of the long pane\n")


LARGE: list[tuple[str, str, dict[str, Any]]] = [
    ("capture_pane/everything", "capture_pane", {"pane_id": "%1", "start": -100000, "max_lines": None}),
    ("search_panes/every line", "search_panes", {"pattern": "history line", "max_matched_lines_per_pane": 100000}),
    ("capture_pane/max_lines", "capture_pane", {"pane_id": "%0", "max_lines": 2}),
    ("capture_pane/grep", "capture_pane", {"pane_id": "%1", "start": -100000, "max_lines": None, "grep": "line 2", "context": 1}),
]


async def main_async(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="tmuxwire-modelview-"))
    cwd = root / "work"
    cwd.mkdir()

    def program(p: str) -> str:
        return str(Path(p).resolve()) if "/" in p else p

    sides = [
        sbs.Side("libtmux-mcp", [program(args.libtmux_mcp)], root, args.tmux, cwd),
        sbs.Side("tmuxwire", [program(args.tmuxwire), "mcp"], root, args.tmux, cwd),
    ]
    problems: list[str] = []
    rows: list[tuple[str, int, int, int, int]] = []
    try:
        with open(root / "servers.log", "w", encoding="utf-8") as log:
            async with contextlib.AsyncExitStack() as stack:
                for side in sides:
                    await sbs.start(side, stack, log)
                for side in sides:
                    side.start_fixture("modelview")
                    fill_history(side)
                try:
                    for label, tool, a in SESSION:
                        results = []
                        for side in sides:
                            r = await side.call(tool, {**a, "socket_name": side.socket})
                            results.append((side, r))
                            if tool == "send_keys":
                                # The same screen on both sides before the next call.
                                side.wait_screen("%0", lambda s: s.count("typed-by-agent") >= 2)
                        (rs, ref), (ts, tw) = results
                        if ref.is_error or tw.is_error:
                            problems.append(f"{label}: an error: {text_view(ref)[:200]} / {text_view(tw)[:200]}")
                            continue
                        rsv, rtv = structured_view(ref), text_view(ref)
                        tsv, ttv = structured_view(tw), text_view(tw)
                        rows.append((label, len(rsv), len(tsv), len(rtv), len(ttv)))
                        if args.dump:
                            print(f"--- {label}\n  ref structured: {rsv[:600]}\n  tw  structured: {tsv[:600]}")
                            print(f"  ref text: {rtv[:600]}\n  tw  text: {ttv[:600]}")
                        skip = DIFFERENT.get(tool, set()) | {"elapsed_seconds"}
                        for name, rv, tv in (("structured", rsv, tsv), ("text", rtv, ttv)):
                            gone = missing(view_facts(rs, rv), view_facts(ts, tv), skip)
                            if gone:
                                problems.append(f"{label}: {name} view lacks {gone[:8]}")
                        rk, tk = first_key(rsv), first_key(tsv)
                        if rk is not None and rk != tk:
                            problems.append(f"{label}: the structured view starts with {tk!r}, not the payload {rk!r}")
                    tw_side = sides[1]
                    for label, tool, a in LARGE:
                        r = await tw_side.call(tool, {**a, "socket_name": tw_side.socket})
                        if r.is_error:
                            problems.append(f"{label}: an error: {text_view(r)[:300]}")
                            continue
                        sv, tv = structured_view(r), text_view(r)
                        print(f"large    {label}: structured {len(sv):,} chars, text {len(tv):,} chars")
                        for name, v in (("structured", sv), ("text", tv)):
                            if len(v) > MODEL_BUDGET or (name == "text" and tool == "capture_pane" and len(r.content) != 2):
                                problems.append(f"{label}: the {name} view is {len(v):,} chars (over {MODEL_BUDGET:,}?) or has no note")
                            # A capture's next (the arguments), a search's lines_omitted and next
                            # (the calls that return them).
                            # A shaped capture, the lines grep left out.
                            says = {"capture_pane": ["next"], "search_panes": ["lines_omitted", "next"]}
                            if any(k not in v for k in (["lines_omitted"] if "grep" in a else says[tool])):
                                problems.append(f"{label}: the {name} view does not say what was left out")
                finally:
                    for side in sides:
                        side.stop_fixture()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    w = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'call':<{w}}  {'structured ref':>14} {'tmuxwire':>9} {'ratio':>6}   {'text ref':>9} {'tmuxwire':>9} {'ratio':>6}")
    for label, rs_, ts_, rt_, tt_ in rows:
        print(f"{label:<{w}}  {rs_:>14,} {ts_:>9,} {ts_ / max(rs_, 1):>6.2f}   {rt_:>9,} {tt_:>9,} {tt_ / max(rt_, 1):>6.2f}")
    totals = [sum(r[i] for r in rows) for i in range(1, 5)]
    s_ratio = totals[1] / max(totals[0], 1)
    t_ratio = totals[3] / max(totals[2], 1)
    print(f"{'total':<{w}}  {totals[0]:>14,} {totals[1]:>9,} {s_ratio:>6.2f}   {totals[2]:>9,} {totals[3]:>9,} {t_ratio:>6.2f}")
    for name, ratio in (("structured", s_ratio), ("text", t_ratio)):
        if ratio > RATIO:
            problems.append(f"the {name} view totals {ratio:.3f}x libtmux-mcp's, over {RATIO}x")
    for p in problems:
        print(f"FAIL {p}")
    checks = len(SESSION) * 3 + len(LARGE) + 2
    print(f"modelview: {checks - len(problems)} passed, {len(problems)} failed")
    return 1 if problems else 0


def main() -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tmuxwire", default=str(here.parent.parent / "target/debug/tmuxwire"))
    p.add_argument("--libtmux-mcp", default=shutil.which("libtmux-mcp") or "libtmux-mcp")
    p.add_argument("--tmux", default=shutil.which("tmux") or "tmux")
    p.add_argument("--dump", action="store_true", help="print both views of every call")
    args = p.parse_args()
    return anyio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
