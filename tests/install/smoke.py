"""An installed tmuxwire, tried as an MCP client starts it.

    python tests/install/smoke.py --tmuxwire VENV/bin/tmuxwire [--tmux tmux]
    python tests/install/smoke.py --tmuxwire 'uvx --offline --from dist/tmuxwire-….whl tmuxwire'

Starts a private tmux server (a socket in a new temporary directory, `-S`, `-f /dev/null`) whose
one pane prints a line, then runs `tmuxwire mcp` (--tmuxwire is the command that starts
tmuxwire, split as a shell would; HOME is the temporary directory, so uv's cache is a new one) with TMUXWIRE_SOCKET_PATH naming that socket
through the official MCP Python SDK (`ClientSession` over `stdio_client`): `initialize`,
`tools/list` (capture_pane among the tools), and one `capture_pane` of the pane, whose text must
hold the line. Kills that server and removes the directory at the end. Exit status 0 when every
step checks out, 1 otherwise (the step and what came back on stderr). .ci/run runs it on the
tmuxwire a wheel put into a clean virtual environment.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

DEADLINE = 20.0
MARK = "tmuxwire-installed-smoke"


def tmux(bin_: str, sock: Path, *args: str) -> str:
    return subprocess.run(
        [bin_, "-S", str(sock), "-f", "/dev/null", *args],
        capture_output=True, text=True, check=True, timeout=DEADLINE,
    ).stdout


async def session(tmuxwire: list[str], sock: Path, home: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TMUXWIRE_SOCKET_PATH": str(sock),
    }
    params = StdioServerParameters(command=tmuxwire[0], args=[*tmuxwire[1:], "mcp"], env=env)
    with open(home / "stderr.log", "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as s:
                init = await asyncio.wait_for(s.initialize(), DEADLINE)
                print(f"initialize: {init.server_info.name} {init.server_info.version}, "
                      f"protocol {init.protocol_version}")
                if init.server_info.name != "tmuxwire":
                    raise RuntimeError(f"serverInfo.name is {init.server_info.name!r}")
                tools = await asyncio.wait_for(s.list_tools(), DEADLINE)
                names = {t.name for t in tools.tools}
                print(f"tools/list: {len(names)} tools")
                if "capture_pane" not in names:
                    raise RuntimeError(f"no capture_pane in {sorted(names)}")
                r = await asyncio.wait_for(s.call_tool("capture_pane", {"pane_id": "%0"}), DEADLINE)
                text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                if r.is_error or MARK not in text:
                    raise RuntimeError(f"capture_pane answered (isError={r.is_error}): {text!r}")
                print(f"capture_pane %0: {MARK!r} read back ({len(text)} characters)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tmuxwire", required=True, help="the command that starts the installed tmuxwire")
    ap.add_argument("--tmux", default="tmux", help="the tmux binary for the private server")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tmuxwire-smoke-") as d:
        root = Path(d)
        sock = root / "tmux.sock"
        try:
            tmux(args.tmux, sock, "new-session", "-d", "-x", "80", "-y", "24",
                 f"printf '%s\\n' {MARK}; exec cat")
            end = time.monotonic() + DEADLINE
            while MARK not in tmux(args.tmux, sock, "capture-pane", "-p", "-t", "%0"):
                if time.monotonic() > end:
                    raise RuntimeError(f"the pane did not print {MARK} within {DEADLINE} s")
                time.sleep(0.05)
            asyncio.run(session(shlex.split(args.tmuxwire), sock, root))
        except Exception as e:  # noqa: BLE001 - every failure is reported the same way
            log = root / "stderr.log"
            while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                e = e.exceptions[0]  # the SDK's task groups wrap the error
            print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
            if log.exists() and log.read_text().strip():
                print(f"tmuxwire's stderr:\n{log.read_text()}", file=sys.stderr)
            return 1
        finally:
            subprocess.run([args.tmux, "-S", str(sock), "kill-server"], capture_output=True)
    print("the installed tmuxwire serves MCP")
    return 0


if __name__ == "__main__":
    sys.exit(main())
