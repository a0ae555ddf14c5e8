#!/usr/bin/env python3
"""What tmux spends formatting one `list-panes -a` record per pane.

Sends each template below REPS times as `list-panes -a -F TEMPLATE` over one
control client (`tmux -C attach`) of an existing server, and prints tmux's CPU
time per command, read from /proc/<pid>/stat (utime + stime, 10 ms ticks: use
enough REPS), and what each field costs per pane over the constant template.

The templates are the fields a search lists (`tmux::op::search::listed`) and
the fields a fence compares (`mirror::probe::StateRow`), each framed as
tmuxwire frames records, beside a constant record and a constant of the same
length as a listing's record.

Usage (a server mcpbench left behind):

    python3 benches/mcpbench/mcpbench.py --server "target/release/tmuxwire mcp" \\
        -P 50 -L 20000 --scenarios search_history_absent --workdir /tmp/w50 --keep
    python3 benches/tmux_format_cost.py /tmp/w50/tmux.sock --reps 1000
"""

import argparse
import subprocess
import sys

LISTED = ["pane_id", "session_id", "window_id", "window_index", "pane_index",
          "pane_tty", "history_size", "history_limit", "pane_pid"]
FENCE = ["pane_id", "pane_width", "pane_height", "history_size", "history_limit",
         "cursor_x", "cursor_y", "alternate_on", "scroll-on-clear", "alternate-screen",
         "variation-selector-always-wide"]
RS, US, NONCE = "\u241e", "\u241f", "0123456789abcdef"


def framed(fields):
    """A record template as tmuxwire frames one (record and unit separators)."""
    return RS + NONCE + US + US.join("#{%s}" % f for f in fields) + RS + NONCE


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("socket", help="the tmux server's socket (tmux -S)")
    ap.add_argument("--reps", type=int, default=1000, help="commands per template")
    ap.add_argument("--tmux", default="tmux")
    args = ap.parse_args()

    def tmux(*a):
        return subprocess.check_output([args.tmux, "-S", args.socket, *a], text=True).strip()

    pid = int(tmux("display-message", "-p", "#{pid}"))
    panes = len(tmux("list-panes", "-a", "-F", "x").splitlines())
    session = tmux("list-sessions", "-F", "#{session_id}").splitlines()[0]

    def cpu_ms():
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000.0 / 100

    client = subprocess.Popen([args.tmux, "-S", args.socket, "-C", "attach", "-t", session],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def answered():
        while True:
            out = client.stdout.readline()
            if not out:
                sys.exit("the control client ended")
            if out.startswith((b"%end", b"%error")):
                return

    def run(line):
        client.stdin.write((line + "\n").encode())
        client.stdin.flush()
        answered()

    # The attach command's own %begin/%end block comes first: each later
    # answer is then the answer of the line just sent.
    answered()
    listed = framed(LISTED)
    cases = [
        ("constant record", "x"),
        ("constant, a listing's length", "y" * len(listed.encode())),
        ("search listing (9 fields)", listed),
        ("fence (11 fields)", framed(FENCE)),
    ]
    base = None
    print(f"tmux {tmux('display-message', '-p', '#{version}')}, {panes} panes, {args.reps} commands each")
    for name, template in cases:
        line = "list-panes -a -F '" + template + "'"
        run(line)
        before = cpu_ms()
        for _ in range(args.reps):
            run(line)
        per_cmd = (cpu_ms() - before) * 1000 / args.reps
        base = per_cmd if base is None else base
        fields = template.count("#{")
        per_field = (per_cmd - base) / panes / fields if fields else 0.0
        print(f"{name:30s} {per_cmd:7.1f} µs a command   {per_field:5.2f} µs a field a pane")
    client.stdin.close()
    client.wait()


if __name__ == "__main__":
    main()
