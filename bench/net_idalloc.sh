#!/bin/bash
# net_idalloc.sh [N]: what a simulated network run costs, on the judge's
# scenario of tests/integration/t_net_idalloc.sh with the fixed server: an
# asyncio id allocator (python3 idalloc.py server --fixed --clients 2) and two
# clients asking for 5 ids each over TCP. Run it by hand, as root (dsim
# needs root); `make check` does not run it.
#
#   dsim      wall time of `dsim run CONF --seeds 1-N` (one worker), over N:
#             three machines, a network with 1..50 ms latency, clients
#             starting at 100 and 110 ms of virtual time, and the check
#             (idalloc_check.py) after each seed
#   native    the same three processes on 127.0.0.1, all started at once
#             (the clients retry while the server is not listening yet), run
#             to completion and checked the same way; best of 3 runs
#
# SAFETY: no real network traffic. Both run in a new network namespace with
# only lo (`unshare --net`): natively every run gets its own, and so does
# each dsim invocation (whose machines have their own namespaces besides).
# The programs also refuse to run unless lo is their only interface.
#
# dsim is $DSIM, or ../dsim relative to this script. N defaults to 20.
set -u

N=${1:-20}
case $N in
''|*[!0-9]*) echo "usage: $0 [N]   (N >= 1 seeds, default 20)" >&2; exit 2 ;;
esac
[ "$N" -ge 1 ] || { echo "usage: $0 [N]   (N >= 1 seeds, default 20)" >&2; exit 2; }

NAME=net_idalloc
. "$(dirname "$0")/common.sh"
RUNS=3

# The conf's directory holds only the programs and the conf.
D=$TMP/ia
mkdir -p "$D"
cp "$PROGS/idalloc.py" "$PROGS/idalloc_check.py" "$PROGS/netcheck.py" "$D/" || die "no idalloc.py in $PROGS"
cp "$HERE/idalloc.conf" "$D/fixed.conf" || die "no idalloc.conf in $HERE"

# 1. dsim: N seeds, one worker.
t0=$(now_ns)
timeout -k 5 $((60 + 10 * N)) $UNSHARE "$DSIM" run "$D/fixed.conf" --seeds "1-$N" >"$TMP/dsim.out" 2>&1
rc=$?
t1=$(now_ns)
[ "$rc" = 0 ] || { tail -n 30 "$TMP/dsim.out" >&2; die "dsim run --seeds 1-$N: exit $rc"; }
dsim_ns=$(( (t1 - t0) / N ))

# 2. Natively: server and two clients at once, to completion, in a fresh
# namespace each run; best of $RUNS.
native_best=''
for r in $(seq $RUNS); do
    mkdir -p "$TMP/n$r"
    t0=$(now_ns)
    timeout -k 5 60 $UNSHARE env PATH="$MPATH" sh -c '
        ip link set lo up || exit 1
        cd "$1" && D=$2
        python3 "$D/idalloc.py" server 7000 --fixed --clients 2 --bind 127.0.0.1 >alloc.stdout & s=$!
        python3 "$D/idalloc.py" client 127.0.0.1 7000 c1 5 >c1.stdout & a=$!
        python3 "$D/idalloc.py" client 127.0.0.1 7000 c2 5 >c2.stdout & b=$!
        wait $a && wait $b && wait $s && python3 "$D/idalloc_check.py" c1.stdout c2.stdout
    ' sh "$TMP/n$r" "$D" >"$TMP/n$r.out" 2>&1
    rc=$?
    t1=$(now_ns)
    [ "$rc" = 0 ] || { cat "$TMP/n$r.out" >&2; die "native run $r: exit $rc"; }
    d=$((t1 - t0))
    [ -z "$native_best" ] || [ "$d" -lt "$native_best" ] && native_best=$d
done

echo "net_idalloc: idalloc.py (fixed) server + 2 clients x 5 ids; $(uname -r), $(nproc) CPUs, $(env PATH="$MPATH" python3 --version 2>&1)"
echo "  dsim: $DSIM run, $N seeds, one worker: $(( dsim_ns * N / 1000000 )) ms in all"
echo
awk -v ds="$dsim_ns" -v nat="$native_best" 'BEGIN {
    printf "  %-28s %8.1f ms\n", "dsim, wall time per seed", ds / 1e6
    printf "  %-28s %8.1f ms   (best of 3)\n", "native, wall time per run", nat / 1e6
    printf "  %-28s %8.1fx\n", "dsim / native", ds / nat
}'
