"""`tmuxwire search` and `tmuxwire capture` against tmux's own pipelines, as ratios in one run.

A private tmux server (its own socket in a temporary directory, `-f /dev/null`, killed at the
end) gets two sessions: `one`, a pane with LINES lines of scrollback (default 200,000), and
`ten`, ten panes with LINES/10 lines each. Every line is ~60 characters; every 1,000th is 300
(it wraps at 200 columns), and a few hold NEEDLE. Then, best of ROUNDS (default 5) with the
commands alternated in each round, it times:

  search, one pane    tmuxwire search -t one NEEDLE
                      vs  tmux capture-pane -p -J -S - -t one | grep -F NEEDLE
  search, ten panes   tmuxwire search -t ten NEEDLE
                      vs  the same pipeline run for each of the ten panes, one after another
  capture, one pane   tmuxwire capture -t one -S -
                      vs  tmux capture-pane -p -S - -t one

and prints each time and the ratio tmuxwire / tmux (the goals: search within 1.2x, capture
within 1.5x). The outputs are compared too (the same lines found, the same text captured).

    cargo build --release && python3 benches/cli.py [target/release/tmuxwire]

Environment: CLI_LINES (default 200000), CLI_ROUNDS (default 5), CLI_TMUX (default tmux).
"""
import os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', 'target', 'release', 'tmuxwire')
ENV = {k: os.environ.get('CLI_' + k, d) for k, d in
       [('LINES', '200000'), ('ROUNDS', '5'), ('TMUX', 'tmux')]}
LINES, ROUNDS, TMUX = int(ENV['LINES']), int(ENV['ROUNDS']), ENV['TMUX']
# Everything on a private socket in a temporary directory (TMUX_TMPDIR too): nothing here
# reaches the default server.
tmp = tempfile.mkdtemp()
os.environ.pop('TMUX', None)
os.environ['TMUX_TMPDIR'] = tmp
sock = os.path.join(tmp, 's')
SHELL = f"env -i PATH=/usr/bin:/bin TMUX_TMPDIR={tmp} HOME={tmp} sh"


def t(*a):
    return subprocess.run([TMUX, '-S', sock, *a], capture_output=True, text=True)


def fill(pane, n):
    """Prints n lines in `pane` and waits (with a deadline) until its history holds them."""
    awk = ("awk 'BEGIN{for(i=0;i<%d;i++){if(i%%20011==7)print \"the NEEDLE at \" i;"
           "else if(i%%1000==500){s=\"long \" i;while(length(s)<300)s=s \" wrapped text\";print s}"
           "else print \"line \" i \" lorem ipsum dolor sit amet, consectetur adipiscing\"}}'"
           % n)
    t('send-keys', '-t', pane, '-l', f"clear; {awk}\n")
    deadline = time.time() + 120
    while time.time() < deadline:
        if int(t('display', '-p', '-t', pane, '#{history_size}').stdout or 0) >= n - 60:
            return
        time.sleep(0.1)
    raise SystemExit(f"pane {pane} did not fill in 120 s")


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"{cmd!r} failed ({r.returncode}): {r.stderr.decode()[:500]}")
    return dt, r.stdout


def main():
    t('-f', '/dev/null', 'start-server', ';', 'set', '-g', 'history-limit', str(LINES + 1000),
      ';', 'set', '-g', 'default-command', SHELL, ';',
      'new-session', '-d', '-s', 'one', '-x', '200', '-y', '50', SHELL)
    t('new-session', '-d', '-s', 'ten', '-x', '200', '-y', '50', SHELL)
    for _ in range(9):
        t('split-window', '-d', '-t', 'ten', SHELL)
        t('select-layout', '-t', 'ten', 'tiled')
    ten = t('list-panes', '-t', 'ten', '-F', '#{pane_id}').stdout.split()
    fill('one', LINES)
    for p in ten:
        fill(p, LINES // 10)
    tw = f"{BIN} -S {sock}"
    tm = f"{TMUX} -S {sock}"
    cases = [
        ('search, one pane',
         f"{tw} search -h -N -t one NEEDLE",
         f"{tm} capture-pane -p -J -S - -t one | grep -F NEEDLE"),
        ('search, ten panes',
         f"{tw} search -h -N -t ten NEEDLE",
         "; ".join(f"{tm} capture-pane -p -J -S - -t {p} | grep -F NEEDLE" for p in ten)),
        ('capture, one pane',
         f"{tw} capture -t one -S -",
         f"{tm} capture-pane -p -S - -t one"),
    ]
    print(f"tmux {t('-V').stdout.strip() or TMUX}, {LINES} lines, best of {ROUNDS} "
          f"(alternated), {os.cpu_count()} CPUs")
    for name, ours, theirs in cases:
        best = [float('inf'), float('inf')]
        outs = [None, None]
        for r in range(ROUNDS):
            order = [0, 1] if r % 2 == 0 else [1, 0]
            for i in order:
                dt, out = timed([ours, theirs][i])
                best[i] = min(best[i], dt)
                outs[i] = out
        same = outs[0].rstrip(b'\n') == outs[1].rstrip(b'\n')
        n = outs[0].count(b'\n')
        print(f"{name:18}  tmuxwire {best[0]*1000:7.1f} ms  tmux {best[1]*1000:7.1f} ms  "
              f"ratio {best[0]/best[1]:.2f}x  {'same output' if same else 'OUTPUT DIFFERS'}"
              f" ({n} lines)")


try:
    main()
finally:
    t('kill-server')
    shutil.rmtree(tmp, ignore_errors=True)
