#!/bin/bash
# syscall_cost.sh [N]: what one system call costs natively, as a bare
# seccomp-stop round trip, and under dsim. N (default 20000) getppid calls
# each; best of 3 runs for every number. Run it by hand, as root (dsim
# needs root); `make check` does not run it.
#
#   native getppid           getppid_loop N, timed by itself (CLOCK_MONOTONIC)
#   seccomp stop round trip  stop_roundtrip N: a traced child's getppid stops
#                            by SECCOMP_RET_TRACE; the parent only waitpid +
#                            PTRACE_CONT; both pinned to one CPU
#   dsim trapped getppid     wall time of `dsim exec -- getppid_loop N` minus
#                            that of `getppid_loop 0`, over N (under dsim the
#                            program's own clock is virtual)
#
# dsim is $DSIM, or ../dsim relative to this script.
set -u

N=${1:-20000}
case $N in
''|*[!0-9]*) echo "usage: $0 [N]   (N >= 2, default 20000)" >&2; exit 2 ;;
esac
[ "$N" -ge 2 ] || { echo "usage: $0 [N]   (N >= 2, default 20000)" >&2; exit 2; }

NAME=syscall_cost
. "$(dirname "$0")/common.sh"
CC=${CC:-cc}
RUNS=3

for p in getppid_loop stop_roundtrip; do
    "$CC" -O2 -Wall -o "$TMP/$p" "$HERE/$p.c" || die "cannot build $p"
done

# min A B...: the smallest of integers or decimals.
min() { printf '%s\n' "$@" | sort -g | head -n 1; }

# 1. Native: the program's own clock is real time.
native=()
for _ in $(seq $RUNS); do
    out=$("$TMP/getppid_loop" "$N") || die "getppid_loop $N failed"
    v=$(sed -n 's/.*, \([0-9.]*\) ns per call$/\1/p' <<<"$out")
    [ -n "$v" ] || die "getppid_loop: cannot read: $out"
    native+=("$v")
done
native_ns=$(min "${native[@]}")

# 2. Bare seccomp stop round trip.
stop=() cpus=()
for _ in $(seq $RUNS); do
    out=$("$TMP/stop_roundtrip" "$N") || die "stop_roundtrip $N failed: $out"
    cpu=$(sed -n 's/^stop_roundtrip: pinned to CPU \([0-9]*\)$/\1/p' <<<"$out")
    v=$(sed -n 's/.*, \([0-9.]*\) ns per round trip$/\1/p' <<<"$out")
    [ -n "$v" ] && [ -n "$cpu" ] || die "stop_roundtrip: cannot read: $out"
    stop+=("$v") cpus+=("$cpu")
done
stop_ns=$(min "${stop[@]}")

# 3. dsim: wall time from outside, N calls minus 0 calls. Each call is one
# step of 10 us virtual time; give the run room beyond the 30 s default.
duration=$((30 + N / 50000))s
dsim_wall() {   # dsim_wall N: best-of-$RUNS wall ns of dsim exec getppid_loop N
    local best='' t0 t1 d rc _
    for _ in $(seq $RUNS); do
        t0=$(now_ns)
        "$DSIM" exec --duration "$duration" -- "$TMP/getppid_loop" "$1" >"$TMP/dsim.out" 2>"$TMP/dsim.err"
        rc=$?
        t1=$(now_ns)
        [ "$rc" = 0 ] || { cat "$TMP/dsim.err" >&2; die "dsim exec -- getppid_loop $1: exit $rc"; }
        d=$((t1 - t0))
        [ -z "$best" ] || [ "$d" -lt "$best" ] && best=$d
    done
    echo "$best"
}
wall_n=$(dsim_wall "$N")
wall_0=$(dsim_wall 0)
dsim_ns=$(awk -v a="$wall_n" -v b="$wall_0" -v n="$N" 'BEGIN { printf "%.1f", (a - b) / n }')

echo "syscall_cost: N=$N getppid calls, best of $RUNS runs each; $(uname -r), $(nproc) CPUs"
echo "  stop_roundtrip pinned parent and child to one CPU (sched_setaffinity, as dsim does):" \
    "run by run, CPU $(IFS=,; echo "${cpus[*]}")"
echo "  dsim: $DSIM exec: $((wall_0 / 1000000)) ms for 0 calls, $((wall_n / 1000000)) ms for $N"
echo
awk -v nat="$native_ns" -v stp="$stop_ns" -v ds="$dsim_ns" 'BEGIN {
    printf "  %-24s %9.3f us\n", "native getppid", nat / 1000
    printf "  %-24s %9.3f us   (%.1fx native)\n", "seccomp stop round trip", stp / 1000, stp / nat
    printf "  %-24s %9.3f us   (%.1fx native, %.2fx the bare stop)\n", "dsim trapped getppid", ds / 1000, ds / nat, ds / stp
}'
