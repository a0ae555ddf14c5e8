"""How much slower a program flooding a pane runs while tmuxwire watches it.

Runs `yes ... | head -c FLOOD_MB MB` in a pane of a private tmux server (its own socket in a
temporary directory, `-f /dev/null`, killed at the end) three times: with no client
attached ("none"), with a bare `tmux -C attach` reading into /dev/null ("control": what
any control client costs), and with `tmuxwire mcp` watching the pane ("tmuxwire"). Prints
the wall time and the CPU time of tmux and of tmuxwire for each.

    cargo build --release && python3 benches/flood.py [target/release/tmuxwire]

Environment: FLOOD_MB (default 200), FLOOD_TMUX (default tmux), FLOOD_MODES
(default none,control,tmuxwire).
"""
import json, os, subprocess, sys, time, tempfile
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'target', 'release', 'tmuxwire')
MB = int(os.environ.get('FLOOD_MB', '200'))
TMUX = os.environ.get('FLOOD_TMUX', 'tmux')
tmp = tempfile.mkdtemp()
sock = os.path.join(tmp, 's')
os.environ['TMUX_TMPDIR'] = tmp
os.environ.pop('TMUX', None)
# A home of the bench's own for everything it starts (the tmux servers and so their panes,
# tmuxwire): no shell or program keeps history in the user's files.
home = os.path.join(tmp, 'home')
os.environ.update(HOME=home, XDG_CONFIG_HOME=home + '/.config', XDG_DATA_HOME=home + '/.local/share',
                  XDG_STATE_HOME=home + '/.local/state', XDG_CACHE_HOME=home + '/.cache')
for k in [k for k in os.environ if 'HIST' in k] + ['ENV', 'BASH_ENV', 'PROMPT_COMMAND']:
    os.environ.pop(k, None)
SHELL = f"env -i PATH=/usr/bin:/bin TMUX_TMPDIR={tmp} HOME={tmp} sh"
def t(*a, **k): return subprocess.run([TMUX, '-S', sock, *a], capture_output=True, text=True, **k)
def cpu(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')
def run(mode):
    global sock
    sock = os.path.join(tmp, 's-' + mode)
    # A clean shell (no start-up files) in every pane, and TMUX_TMPDIR at the private
    # directory: nothing started here can reach the default socket.
    t('-f', '/dev/null', 'start-server', ';', 'set', '-g', 'default-command', SHELL, ';',
      'new-session', '-d', '-x', '200', '-y', '50', SHELL)
    t('set', '-g', 'history-limit', '50000')
    spid = int(t('display', '-p', '#{pid}').stdout)
    pane = t('new-window', '-d', '-P', '-F', '#{pane_id}').stdout.strip()
    helper = None
    if mode == 'control':
        helper = subprocess.Popen(f'sleep 100000 | {TMUX} -S {sock} -C attach -f ignore-size,pause-after=5 > /dev/null', shell=True, start_new_session=True)
        time.sleep(0.5)
    elif mode == 'tmuxwire':
        helper = subprocess.Popen([BIN, '-S', sock, 'mcp'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        def send(o): helper.stdin.write((json.dumps(o) + '\n').encode()); helper.stdin.flush()
        send({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
        helper.stdout.readline()
        send({"jsonrpc":"2.0","method":"notifications/initialized"})
        # A search copies every pane: the session is watched from here on.
        send({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_panes","arguments":{"pattern":"zzz"}}})
        helper.stdout.readline()
    c0 = cpu(spid); hc0 = cpu(helper.pid) if mode == 'tmuxwire' else 0
    t0 = time.time()
    t('send-keys', '-t', pane, '-l', f"yes 'line of text 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVW' | head -c {MB*1000000}; {TMUX} -S {sock} wait-for -S fdone")
    t('send-keys', '-t', pane, 'Enter')
    t('wait-for', 'fdone')
    el = time.time() - t0
    c1 = cpu(spid); hc1 = cpu(helper.pid) if mode == 'tmuxwire' else 0
    if helper:
        if mode == 'control': os.killpg(helper.pid, 9)
        else: helper.kill()
    t('kill-server')
    return el, c1 - c0, hc1 - hc0
for mode in os.environ.get('FLOOD_MODES', 'none,control,tmuxwire').split(','):
    el, tc, hc = run(mode)
    print(f'{mode:9s} {MB} MB: {el:6.2f} s wall, tmux cpu {tc:6.2f} s, tmuxwire cpu {hc:5.2f} s', flush=True)
