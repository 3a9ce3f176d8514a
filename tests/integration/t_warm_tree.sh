#!/bin/bash
# Warm start from a snapshot of process trees (snapproc.c): every process
# of a machine at the point is copied, each at its own pid; in a seed they
# are all init's children, and dsim answers for their parents (waits,
# SIGCHLD and its siginfo, getppid, /proc's PPid). The bar, as in
# t_warm_snapshot: every seed's hash and outputs are its cold run's, and a
# replay's, seeds 1-5 at -j 2; and what the programs print is what they
# print natively.
#  1. warm_tree.c: a parent blocked in wait4 across the point for one of
#     its two children; SIGCHLD's siginfo, WNOHANG, waitid of a killed
#     child, a child forked after the point, then ECHILD; again with a
#     grandchild orphaned before the point (init reaped it).
#  2. A shell that stays its command's parent (`cd . && python3 ...`):
#     dash waits for CPython across the point, then prints its status.
#  3. A pipeline (`python3 ... | cat`): a pipe at fd 1 of one process and
#     fd 0 of the other, made anew in each seed and joining the copies.
#  4. A pipe whose ends the parent and both children hold past fd 2: the
#     parent writes before the point, a child after it, the parent reads
#     both after it (the copies share one pipe, with the bytes).
#  5. A unix socket pair whose ends parent and children hold, written by a
#     child after the point and read by the parent; as a host that cannot
#     list unix sockets (DSIM_WARM_FDS=old-host), refused, the same hashes.
#  6. A parent and child each with its own file past fd 2: copied; as a
#     host without kcmp (DSIM_WARM_FDS=old-host), refused, the same hashes.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 300
cd "$TMP" || exit 1
# kcmp_said NAME: the sweep NAME, whose processes share pipes or both hold
# files past fd 2, started from a snapshot where this host has kcmp (dsim
# doctor), else said why not and ran cold.
has_kcmp=$("$DSIM" doctor | grep -c '^  kcmp (files two processes share) *yes ')
kcmp_said() {
    if [ "$has_kcmp" = 1 ]; then snapshot_said "$1"; return; fi
    grep -q 'no kcmp here' "$1.err" || { cat "$1.err" >&2; fail "$1: not said"; }
}
mkdir c && cp "$PROGS/warm_probe.py" c/ && cp "$(build warm_tree)" c/warm_tree
. "$SRCDIR/tests/integration/warm_lib.sh"

# --- 1. a parent and its children ------------------------------------------------
conf tree.conf 1s m 'exec ./warm_tree'
three_ways tree.conf tree
snapshot_said tree
(cd c && ./warm_tree) >native.out || fail "native warm_tree failed"
strip() { grep -v '^parent ' "$1" | sed 's/ random [0-9a-f]*$//'; }
out=out-tree/seed-1/m.stdout
diff <(strip native.out | sort) <(strip "$out" | sort) >&2 || fail "tree: not as natively"
grep -qx 'A getppid parent stat parent status parent' <(strip "$out") || fail "tree: child A's parent: $(cat "$out")"
grep -qx 'C getppid parent' "$out" || fail "tree: child C's parent: $(cat "$out")"
grep -qx 'SIGCHLD 0: code 1 pid A status 7 uid 0' "$out" || fail "tree: A's SIGCHLD: $(cat "$out")"
[ "$(cat out-tree/seed-*/m.stdout | grep '^A getppid' | sort -u | wc -l)" -ge 4 ] || fail "tree: the seeds drew the same bytes"

# A grandchild orphaned and gone before the point (init reaped it): no
# process of the machine waits for it, so nothing keeps a copy.
conf orphan.conf 1s m 'exec ./warm_tree orphan'
three_ways orphan.conf orphan
snapshot_said orphan

# --- 2. a shell that stays its command's parent ----------------------------------
conf shell.conf 1s m 'cd . && python3 warm_probe.py; echo "shell: status $?"'
three_ways shell.conf shell
snapshot_said shell
grep -qx 'shell: status 0' out-shell/seed-2/m.stdout || fail "shell: $(cat out-shell/seed-2/m.stdout)"

# --- 3. a pipeline ------------------------------------------------------------------
conf pipe.conf 1s m 'python3 warm_probe.py | cat'
three_ways pipe.conf pipe
kcmp_said pipe
grep -q '^start-up ' out-pipe/seed-3/m.stdout && grep -q '^seed ' out-pipe/seed-3/m.stdout ||
    fail "pipe: $(cat out-pipe/seed-3/m.stdout)"

# --- 4. a pipe past fd 2 that parent and children all hold ------------------------------
conf held.conf 1s m 'exec ./warm_tree held'
three_ways held.conf held
kcmp_said held
(cd c && ./warm_tree held) >native-held.out || fail "native warm_tree held failed"
diff <(strip native-held.out | sort) <(strip out-held/seed-2/m.stdout | sort) >&2 || fail "held: not as natively"
grep -qx 'held read hiA, inodes kept 1 1' out-held/seed-2/m.stdout || fail "held: $(cat out-held/seed-2/m.stdout)"

# --- 5. a socket pair between parent and children ------------------------------------
conf pair.conf 1s m 'exec ./warm_tree pair'
three_ways pair.conf pair
snapshot_said pair
grep -qx 'held read A, inodes kept 1 1' out-pair/seed-4/m.stdout || fail "pair: $(cat out-pair/seed-4/m.stdout)"
DSIM_WARM_FDS=old-host sweep pair.conf pair-old
grep -q '^dsim: warm start: seeds run cold, not from a snapshot: machine m: ' pair-old.err ||
    { cat pair-old.err >&2; fail "pair, old host: not refused"; }
[ "$(hashes pair.jsonl)" = "$(hashes pair-old.jsonl)" ] || fail "pair, old host: other hashes"

# --- 6. each its own file past fd 2: copied where kcmp tells them apart ---------------
conf own.conf 1s m 'exec ./warm_tree own'
three_ways own.conf own
kcmp_said own
DSIM_WARM_FDS=old-host sweep own.conf own-old
grep -q '^dsim: warm start: seeds run cold, not from a snapshot: machine m: fds past 2 in pids 2 and 3, and no kcmp here to tell them apart$' own-old.err ||
    { cat own-old.err >&2; fail "own, old host: not refused as such"; }
[ "$(hashes own.jsonl)" = "$(hashes own-old.jsonl)" ] || fail "own, old host: other hashes"
"$DSIM" doctor | grep -q '^  kcmp (files two processes share) *\(yes\|no\) ' || fail "dsim doctor does not tell kcmp"
