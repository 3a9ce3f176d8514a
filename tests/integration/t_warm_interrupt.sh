#!/bin/bash
# Stopping a sweep that starts its seeds from a snapshot (supervisor/
# snapshot.c), in the middle: a 2-worker sweep of 400 seeds of two CPython
# machines (warm_start = 1s) is signalled once seeds run from the snapshot
# (the templates, pid 32000 in their machines, are there) and a few are
# done. Cases: SIGINT to dsim; SIGINT to its process group (a terminal's
# Ctrl-C: workers, seed supervisors and helpers take it too); SIGTERM to
# dsim; SIGKILL to a worker (the sweep goes on without it, then fails:
# its seed did not finish).
# Within 5 s of the signal: dsim has exited (130, 130, 143; 1), no process it
# started is left (dsim runs under a subreaper, which inherits every orphan:
# templates, inits, copies, helpers, seed supervisors), the host's mount
# table names none of the test's paths, and $TMPDIR/dsim-runs is empty (the
# killed worker's run directory too).
# No real network: see netns.sh (the machines make no socket anyway).
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
cd "$TMP" || exit 1
mkdir c && cp "$PROGS/warm_probe.py" c/
printf '[simulation]\nduration = 10s\nwarm_start = 1s\n[defaults]\nenv = PYTHONDONTWRITEBYTECODE=1\n' >c/w.conf
for m in a b; do printf '[machine %s]\ncommand = exec python3 warm_probe.py\n' "$m" >>c/w.conf; done

cat >stop.py <<'EOF'
# stop.py SIG WHO TMP DSIM ARGS...: DSIM ARGS under this process as a
# subreaper; once its seeds come from a snapshot and 3 are done, SIG to WHO
# (dsim, group, worker); prints what is left 5 s later.
import ctypes, os, signal, sys, time
sig, who, tmp = getattr(signal, 'SIG' + sys.argv[1]), sys.argv[2], sys.argv[3]
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:    # PR_SET_CHILD_SUBREAPER
    sys.exit('stop.py: no subreaper')
def ours():                     # the host's mounts naming the test's paths
    return sorted(l for l in open('/proc/self/mountinfo') if tmp in l)
mounts = ours()
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGINT, signal.SIG_DFL)    # as from a terminal
    os.setpgid(0, 0)
    os.dup2(os.open('w.out', os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
    os.dup2(os.open('w.err', os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
    os.execv(sys.argv[4], sys.argv[4:])
def kids(p):
    try:
        return [int(x) for x in open(f'/proc/{p}/task/{p}/children').read().split()]
    except OSError:
        return []
def tree(p):
    return [d for c in kids(p) for d in [c] + tree(c)]
def nspid(p):
    try:
        return [l.split()[-1] for l in open(f'/proc/{p}/status') if l.startswith('NSpid:')][0]
    except (OSError, IndexError):
        return ''
def done():
    try:
        return sum(1 for _ in open('w.jsonl'))
    except OSError:
        return 0
deadline = time.time() + 120
while time.time() < deadline:
    if os.waitpid(pid, os.WNOHANG)[0]:
        sys.exit('stop.py: dsim exited before the signal')
    said = os.path.exists('w.err') and 'seeds start from a snapshot' in open('w.err').read()
    templates = [p for p in tree(pid) if nspid(p) == '32000']
    if said and templates and done() >= 3:
        break
    time.sleep(0.05)
else:
    sys.exit('stop.py: no seed from a snapshot within 120 s')
print('before: %d processes under dsim, %d templates, %d seeds done' % (len(tree(pid)), len(templates), done()))
if who == 'dsim':
    os.kill(pid, sig)
elif who == 'group':
    os.kill(-pid, sig)
else:
    os.kill(kids(pid)[0], sig)
t0 = time.time()
status, left = None, []
while time.time() < t0 + 5:
    while True:                 # dsim, and any orphan that ended
        try:
            p, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if p == 0:
            break
        if p == pid:
            status = os.waitstatus_to_exitcode(st)
    left = tree(os.getpid())
    if status is not None and not left:
        break
    time.sleep(0.05)
print('exit', status, 'after %.2f s' % (time.time() - t0))
for p in left:
    try:
        print('left', p, 'pid', nspid(p), 'in its namespace:', open(f'/proc/{p}/cmdline').read().replace('\0', ' ')[:80])
    except OSError:
        pass
    try:
        os.kill(p, signal.SIGKILL)
    except OSError:
        pass
print('mounts', len(ours()) - len(mounts))
EOF

# stop SIG WHO STATUS: one case, from a clean $TMPDIR/dsim-runs.
stop() {
    local sig=$1 who=$2 want=$3 n=$1-$2
    rm -rf "$TMPDIR/dsim-runs" w.jsonl w.err w.out
    python3 stop.py "$sig" "$who" "$TMP" "$DSIM" run c/w.conf --seeds 1-400 -j 2 --results w.jsonl \
        >"$n.out" 2>"$n.err" </dev/null || { cat "$n.out" "$n.err" w.out w.err >&2; fail "$n: stop.py failed"; }
    grep -q '^before: .* [1-4] templates' "$n.out" || { cat "$n.out" >&2; fail "$n: no template seen"; }
    grep -qx "exit $want after [0-4]\..* s" "$n.out" || { cat "$n.out" w.err >&2; fail "$n: not exit $want within 5 s"; }
    ! grep '^left' "$n.out" >&2 || fail "$n: processes started by dsim outlived it"
    grep -qx 'mounts 0' "$n.out" || { cat "$n.out" >&2; fail "$n: the host's mount table changed"; }
    [ -z "$(ls -A "$TMPDIR/dsim-runs" 2>/dev/null)" ] || fail "$n: run directories left: $(ls "$TMPDIR/dsim-runs")"
    note "$n: $(head -n 1 "$n.out"); $(sed -n 's/^exit/exit/p' "$n.out"), nothing left"
}
stop INT dsim 130
stop INT group 130
stop TERM dsim 143
stop KILL worker 1
grep -q 'worker running this seed died (signal 9)' w.jsonl || fail "KILL worker: its seed was not said to have died"
