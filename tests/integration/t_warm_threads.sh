#!/bin/bash
# Warm start from a snapshot of processes with threads (snapthreads.c): a
# copy is a fork of the process's first thread, and every other thread is
# made again in it (its tid, registers and TLS, FPU state, signal mask,
# alternate stack, robust list, name, tid address). The bar, as in
# t_warm_snapshot: every seed's hash and outputs are its cold run's, and a
# replay's, seeds 1-5 at -j 2.
#  1. CPython with two threads across the point, one waiting on an event
#     (a futex) set after it, one asleep past it; both joined.
#  2. Node with a worker thread exchanging messages across the point (its
#     epoll set, eventfds and pipes made anew, a pipe with a wakeup byte in
#     it written again, V8's do-not-copy mappings copied all the same).
#  3. Go's runtime (its threads, futexes, netpoller) across the point.
#  4. A thread in select() at the point, on a pipe written after it: the
#     copies it holds are the template's, and the seed takes each again
#     from the copy (poll_rehold; refused before 2026-12-03).
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 300
command -v node >/dev/null || fail "node is not installed (.ci/run installs nodejs)"
command -v go >/dev/null || fail "go is not installed (.ci/run installs golang-go)"
cd "$TMP" || exit 1
mkdir c && cp "$PROGS/warm_probe.py" "$PROGS/node_workers.js" c/
. "$SRCDIR/tests/integration/warm_lib.sh"

# --- 1. CPython with threads -----------------------------------------------------
conf threads.conf 1s m 'exec python3 warm_probe.py'
probe_env threads.conf WARM_PROBE_THREADS
three_ways threads.conf threads
snapshot_said threads
for s in 1 5; do
    out=out-threads/seed-$s/m.stdout
    grep -q '^waiter [0-9a-f]*$' "$out" && grep -qx 'sleeper sleeper' "$out" &&
        grep -qx 'threads joined \[False, False\]' "$out" || fail "threads: seed $s: $(cat "$out")"
done
[ "$(cat out-threads/seed-*/m.stdout | grep '^waiter' | sort -u | wc -l)" -ge 4 ] || fail "threads: the seeds drew the same bytes"

# --- 2. Node with a worker thread ------------------------------------------------
conf node.conf 55ms m 'exec node node_workers.js'
three_ways node.conf node
afresh_said node
grep -qx 'sum 385' out-node/seed-1/m.stdout || fail "node: $(cat out-node/seed-1/m.stdout)"

# --- 3. Go -------------------------------------------------------------------------
mkdir -p go && cp "$PROGS"/go_goroutines/* go/
(cd go && HOME="$TMP" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GOPROXY=off GOFLAGS=-mod=mod \
    go build -o "$TMP/c/gt" .) || fail "go build failed"
conf go.conf 1s m 'exec ./gt'
three_ways go.conf go
afresh_said go
grep -q '^total 28 ' out-go/seed-1/m.stdout || fail "go: $(cat out-go/seed-1/m.stdout)"

# --- 4. a thread in select() at the point --------------------------------------------
conf select.conf 1s m 'exec python3 warm_probe.py'
probe_env select.conf WARM_PROBE_THREADS
printf 'env = WARM_PROBE_SELECT=1\n' >>c/select.conf
three_ways select.conf select
afresh_said select
grep -qx "selected True b's'" out-select/seed-2/m.stdout || fail "select: $(cat out-select/seed-2/m.stdout)"
