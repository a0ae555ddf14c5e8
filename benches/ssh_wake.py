#!/usr/bin/env python3
"""How soon `wait_for_text` wakes after the output that ends it, locally and through
`--host` (tmuxwire's ssh master and channels), on the same tmux server.

The pane must run `cat` (so typed words come back as output). Each of N rounds starts a
wait for a fresh word, lets it begin (150 ms), types the word with the local tmux binary
(`send-keys -l`), and times from the moment `send-keys` returned to the wait's answer:
the pty echo, `%output` (over ssh for the remote run), the mirror and the wake.

  python3 benches/ssh_wake.py --tmuxwire target/release/tmuxwire --socket /path/sock \\
      --dest loop --ssh-config /path/ssh_config [--rounds 30]

The tmux server at --socket must be reachable both directly (this user) and on the ssh
destination at the same path (a loopback sshd whose login user owns the server; tests/support
/sshd.rs makes one).
"""
import argparse, json, os, shutil, statistics, subprocess, tempfile, time

# A home of the bench's own for what it starts (tmuxwire, the tmux binary): none of them
# keeps anything in the user's files. ssh still reads the user's ~/.ssh (it takes the home
# from the password database), as --ssh-config or the user's own config needs.
HOME = tempfile.mkdtemp(prefix="ssh_wake-home-")
ENV = {k: v for k, v in os.environ.items() if "HIST" not in k and k not in ("ENV", "BASH_ENV")}
ENV.update(HOME=HOME, XDG_CONFIG_HOME=HOME + "/.config", XDG_DATA_HOME=HOME + "/.local/share",
           XDG_STATE_HOME=HOME + "/.local/state", XDG_CACHE_HOME=HOME + "/.cache")


def client(args):
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
    n = [0]

    def send(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    def req(method, params=None):
        n[0] += 1
        send({"jsonrpc": "2.0", "id": n[0], "method": method, "params": params or {}})
        while True:
            r = json.loads(p.stdout.readline())
            if r.get("id") == n[0]:
                return r

    req("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "ssh_wake", "version": "1"}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p, send, req


def rounds(args, socket, n):
    p, send, req = client(args)
    req("tools/call", {"name": "wait_for_text", "arguments": {
        "pane_id": "%0", "patterns": ["warm-up"], "timeout": 3}})
    lat = []
    for i in range(n):
        word = "wake%d_%d" % (i, time.time_ns() % 1000000)
        rid = 10000 + i
        send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
            "name": "wait_for_text",
            "arguments": {"pane_id": "%0", "patterns": [word], "timeout": 10}}})
        time.sleep(0.15)
        subprocess.run(["tmux", "-S", socket, "send-keys", "-t", "%0", "-l", word + "\n"],
                       check=True, env=ENV)
        t0 = time.perf_counter()
        while True:
            r = json.loads(p.stdout.readline())
            if r.get("id") == rid:
                break
        lat.append((time.perf_counter() - t0) * 1000)
        assert r["result"]["structuredContent"]["found"], r
    # A closed stdin ends tmuxwire, which ends its ssh processes.
    p.stdin.close()
    p.wait(timeout=20)
    return lat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tmuxwire", required=True)
    ap.add_argument("--socket", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--ssh-config")
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args()
    local = [a.tmuxwire, "mcp", "--socket-path", a.socket]
    remote = [a.tmuxwire, "mcp", "--host", "remote=" + a.dest, "--pin-host",
              "--socket-path", a.socket]
    if a.ssh_config:
        remote[2:2] = ["--ssh-config", a.ssh_config]
    for name, args in (("local", local), ("ssh", remote)):
        lat = sorted(rounds(args, a.socket, a.rounds))
        print("%-5s median %.2f ms, p90 %.2f ms, max %.2f ms (%d waits)" % (
            name, statistics.median(lat), lat[int(len(lat) * 0.9)], lat[-1], len(lat)))


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(HOME, ignore_errors=True)
