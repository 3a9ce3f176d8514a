#!/bin/bash
# run.sh [REPEATS]: what users compare, in one run, as ratios. Run it by
# hand, as root, after `make` (`make check` does not run it). Every number
# is the median of REPEATS (default 5) measurements, the measurements of
# the things compared interleaved (A B A B ...), so a host whose load
# changes during the run shifts both sides alike.
#
#   1. one trapped call: a getppid loop under `dsim exec` against the bare
#      seccomp stop (stop_roundtrip) and against `strace -f` on the same
#      loop; a network call (net_pingpong: one-byte TCP round trips, four
#      calls each) against the trapped getppid
#   2. the fixed cost per seed: `dsim exec /bin/true` against /bin/true
#   3. seeds per second, against running the same programs natively to
#      completion, and -j 2 against -j 1: a one-machine C program (three
#      threads under a mutex), a 3-machine C cluster (an epoll echo server
#      and two clients over TCP) and the 3-process CPython id allocator of
#      tests/integration/t_net_idalloc.sh, also with clock_reads = stop
#   4. a 5-machine CPython cluster (examples/election/fixed.conf: five
#      Raft-style nodes over UDP, a partition), seeds/s at -j 2: cold start
#      (every seed starts the five interpreters), and with warm_start =
#      network forced cold and from the sweep's snapshot (each worker
#      starts the interpreters once)
#   5. the 3-process CPython id allocator (asyncio) with its machines
#      started at once and warm_start = network: forced cold and from the
#      snapshot
#   6. Node with a worker thread (tests/programs/node_workers.js) and a
#      warm start at 55 ms, while the two threads exchange messages:
#      forced cold and from the snapshot (each copy makes the threads again)
#   7. row 5 with each machine's command a pipeline (`python3 ... | cat`:
#      a shell and its two children, a pipe between them): forced cold and
#      from the snapshot (each process copied, the pipe made anew)
#   8. row 4's cluster with warm_start = 1s, after its network was used
#      (its UDP sockets bound, each node in select(), a datagram in
#      flight): forced cold and from the snapshot
#   9. examples/jobqueue (a queue, a bank and two workers, CPython over
#      TCP) with warm_start = 1s and its [chaos] swarm crashes: forced cold
#      and from the snapshot (a crashed machine starts again cold in its seed)
#
# SAFETY: no real network traffic. Every run that uses a network, natively
# or under dsim, is in a new network namespace with only lo (`unshare
# --net`), and the programs refuse to run otherwise.
#
# dsim is $DSIM, or ../dsim relative to this script. SEEDS (default 20)
# seeds per sweep of the C programs, PY_SEEDS (default 6) of CPython,
# CLUSTER_SEEDS (default 6) of the 5-machine cluster.
set -u

R=${1:-5}
case $R in ''|*[!0-9]*|0) echo "usage: $0 [REPEATS]   (REPEATS >= 1, default 5)" >&2; exit 2 ;; esac
SEEDS=${SEEDS:-20}
PY_SEEDS=${PY_SEEDS:-6}
CLUSTER_SEEDS=${CLUSTER_SEEDS:-6}
N=${N:-20000}              # getppid calls per loop
NET_N=${NET_N:-1000}       # TCP round trips per loop

NAME=run.sh
. "$(dirname "$0")/common.sh"
CC=${CC:-cc}
# median V...: the middle value (the lower of the two middle ones).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# wall CMD...: ns the command took; it must succeed.
wall() {
    local t0 t1
    t0=$(now_ns)
    "$@" >"$TMP/last.out" 2>&1 || { tail -n 20 "$TMP/last.out" >&2; die "failed: $*"; }
    t1=$(now_ns)
    echo $((t1 - t0))
}
# repeat K CMD...: CMD K times, one after the other (each must succeed).
# A native side is timed as K runs in one measurement, as a sweep of K
# seeds is: one run timed alone would count the clock reads' own fork and
# exec (about 2 ms here, more than a short C program's run).
repeat() {
    local k=$1 i
    shift
    for ((i = 0; i < k; i++)); do "$@" || return 1; done
}
# netns CMD...: CMD in a new network namespace with lo up.
netns() { $UNSHARE sh -c 'ip link set lo up && exec "$@"' sh "$@"; }

for p in getppid_loop stop_roundtrip net_pingpong; do
    "$CC" -O2 -Wall -o "$TMP/$p" "$HERE/$p.c" || die "cannot build $p"
done
for p in locked_counter tcp_epoll_echo; do
    "$CC" -std=gnu11 -O2 -Wall -pthread -o "$TMP/$p" "$PROGS/$p.c" || die "cannot build $p"
done
command -v strace >/dev/null || die "no strace (apt-get install strace)"

# A loaded host slows dsim far more than the programs run natively: every
# step is two context switches, each of which may wait behind other work.
loadavg() { cut -d' ' -f1 /proc/loadavg; }
busy() { awk -v l="$(loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; }
echo "bench/run.sh: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); median of $R, interleaved"
busy && echo "   (warning: the host is busy; dsim's numbers below will be worse than on an idle host)"
echo

# ---- 1. one trapped call ----
dur=$((30 + N / 50000))s
A=() B=() S0=() SN=() D0=() DN=() P0=() PN=()
for _ in $(seq "$R"); do
    out=$("$TMP/stop_roundtrip" "$N") || die "stop_roundtrip failed"
    B+=("$(sed -n 's/.*, \([0-9.]*\) ns per round trip$/\1/p' <<<"$out")")
    out=$("$TMP/getppid_loop" "$N") || die "getppid_loop failed"
    A+=("$(sed -n 's/.*, \([0-9.]*\) ns per call$/\1/p' <<<"$out")")
    D0+=("$(wall "$DSIM" exec --duration "$dur" -- "$TMP/getppid_loop" 0)")
    DN+=("$(wall "$DSIM" exec --duration "$dur" -- "$TMP/getppid_loop" "$N")")
    S0+=("$(wall strace -f -o /dev/null "$TMP/getppid_loop" 0)")
    SN+=("$(wall strace -f -o /dev/null "$TMP/getppid_loop" "$N")")
    P0+=("$(wall $UNSHARE "$DSIM" exec --duration 600s -- "$TMP/net_pingpong" 1)")
    PN+=("$(wall $UNSHARE "$DSIM" exec --duration 600s -- "$TMP/net_pingpong" "$NET_N")")
done
per_call() {    # per_call ZERO_RUNS N_RUNS CALLS: median (N run - 0 run) over CALLS, in ns
    local z=$1 n=$2 calls=$3
    awk -v z="$z" -v n="$n" -v c="$calls" 'BEGIN { printf "%.1f", (n - z) / c }'
}
native=$(median "${A[@]}") bare=$(median "${B[@]}")
trapped=$(per_call "$(median "${D0[@]}")" "$(median "${DN[@]}")" "$N")
straced=$(per_call "$(median "${S0[@]}")" "$(median "${SN[@]}")" "$N")
netcall=$(per_call "$(median "${P0[@]}")" "$(median "${PN[@]}")" $((4 * (NET_N - 1))))
echo "1. one system call (getppid, N=$N; net_pingpong: $NET_N round trips of 4 calls)"
awk -v nat="$native" -v b="$bare" -v d="$trapped" -v s="$straced" -v n="$netcall" 'BEGIN {
    printf "   %-34s %9.2f us\n", "native getppid", nat / 1000
    printf "   %-34s %9.2f us\n", "bare seccomp stop round trip", b / 1000
    printf "   %-34s %9.2f us\n", "strace -f, per call", s / 1000
    printf "   %-34s %9.2f us   %5.2fx the bare stop   %5.2fx strace -f\n", "dsim, trapped getppid", d / 1000, d / b, d / s
    printf "   %-34s %9.2f us   %5.2fx the trapped getppid\n", "dsim, a network call (TCP)", n / 1000, n / d
}'
echo

# ---- 2. the fixed cost per seed ----
T=() X=()
for _ in $(seq "$R"); do
    T+=("$(wall repeat "$SEEDS" /bin/true)")
    X+=("$(wall repeat "$SEEDS" "$DSIM" exec -- /bin/true)")
done
t=$(($(median "${T[@]}") / SEEDS)) x=$(($(median "${X[@]}") / SEEDS))
echo "2. the fixed cost per seed (each the mean of $SEEDS runs one after the other)"
awk -v t="$t" -v x="$x" 'BEGIN {
    printf "   %-34s %9.2f ms\n", "/bin/true, natively (fork+exec)", t / 1e6
    printf "   %-34s %9.2f ms   %5.1fx native\n", "dsim exec /bin/true", x / 1e6, x / t
}'
echo

# ---- 3. seeds per second ----
mkdir -p "$TMP/one" "$TMP/c3" "$TMP/ia"
cat >"$TMP/one/one.conf" <<EOF
[simulation]
duration = 10s
[machine counter]
command = exec $TMP/locked_counter 3 50
EOF
K=20
cat >"$TMP/c3/c3.conf" <<EOF
[simulation]
duration = 60s
[network]
latency = 1ms..20ms
[machine srv]
command = exec $TMP/tcp_epoll_echo server 0.0.0.0 7200 2
[machine c1]
command = exec $TMP/tcp_epoll_echo client srv 7200 1 $K
[machine c2]
command = exec $TMP/tcp_epoll_echo client srv 7200 2 $K
EOF
cp "$PROGS/idalloc.py" "$PROGS/idalloc_check.py" "$PROGS/netcheck.py" "$TMP/ia/" || die "no idalloc.py in $PROGS"
cp "$HERE/idalloc.conf" "$TMP/ia/ia.conf" || die "no idalloc.conf in $HERE"
# The same with every clock read a stop (the default before 2026-12-02).
sed 's/^\[simulation\]$/[simulation]\nclock_reads = stop/' "$HERE/idalloc.conf" >"$TMP/ia/ia-stop.conf"

# Natively, one run to completion of each (a fresh namespace for the
# network ones, made the same way as dsim's).
native_one() { "$TMP/locked_counter" 3 50; }
native_c3() {
    netns sh -c 'E=$1 K=$2
        "$E" server 127.0.0.1 7200 2 >/dev/null & s=$!
        "$E" client 127.0.0.1 7200 1 $K >/dev/null & a=$!
        "$E" client 127.0.0.1 7200 2 $K >/dev/null & b=$!
        wait $a && wait $b && wait $s' sh "$TMP/tcp_epoll_echo" $K
}
native_iastop() { native_ia; }
native_ia() {
    mkdir -p "$TMP/ia-native" && netns env PATH="$MPATH" sh -c 'cd "$1" && D=$2
        python3 "$D/idalloc.py" server 7000 --fixed --clients 2 --bind 127.0.0.1 >alloc.stdout & s=$!
        python3 "$D/idalloc.py" client 127.0.0.1 7000 c1 5 >c1.stdout & a=$!
        python3 "$D/idalloc.py" client 127.0.0.1 7000 c2 5 >c2.stdout & b=$!
        wait $a && wait $b && wait $s && python3 "$D/idalloc_check.py" c1.stdout c2.stdout' sh "$TMP/ia-native" "$TMP/ia"
}
sweep() {   # sweep CONF SEEDS J: ns of `dsim run CONF --seeds 1-SEEDS -j J`
    wall $UNSHARE "$DSIM" run "$1" --seeds "1-$2" -j "$3"
}
echo "3. seeds per second (natively: runs to completion per second, as many runs one after the other as the sweep has seeds; dsim's default -j is the CPU count, $(nproc) here)"
printf '   %-22s %10s %10s %10s %12s %12s %12s\n' "" "native" "dsim -j 1" "dsim -j 2" "-j 1/native" "-j 2/native" "-j 2 / -j 1"
for what in one c3 ia iastop; do
    case $what in
    one) conf=$TMP/one/one.conf seeds=$SEEDS name="1 machine, C" ;;
    c3) conf=$TMP/c3/c3.conf seeds=$SEEDS name="3 machines, C (TCP)" ;;
    ia) conf=$TMP/ia/ia.conf seeds=$PY_SEEDS name="3 CPython (idalloc)" ;;
    iastop) conf=$TMP/ia/ia-stop.conf seeds=$PY_SEEDS name="  clock_reads = stop" ;;
    esac
    NAT=() J1=() J2=()
    for _ in $(seq "$R"); do
        NAT+=("$(wall repeat "$seeds" "native_$what")")
        J1+=("$(sweep "$conf" "$seeds" 1)")
        J2+=("$(sweep "$conf" "$seeds" 2)")
    done
    awk -v name="$name" -v nat="$(median "${NAT[@]}")" -v j1="$(median "${J1[@]}")" -v j2="$(median "${J2[@]}")" \
        -v s="$seeds" 'BEGIN {
        n = s * 1e9 / nat; a = s * 1e9 / j1; b = s * 1e9 / j2
        printf "   %-22s %10.1f %10.1f %10.1f %11.2fx %11.2fx %11.2fx\n", name, n, a, b, a / n, b / n, b / a
    }'
done
echo

# ---- 4. a 5-machine CPython cluster ----
# The example's files in a folder of their own (CPython lists its script's
# folder, and the sweep writes nothing into the source tree).
mkdir -p "$TMP/el"
cp "$HERE/../examples/election/fixed.conf" "$HERE/../examples/election/election.py" \
    "$HERE/../examples/election/check.py" "$TMP/el/" || die "no examples/election"
# The same cluster under a warm start at its first network call: its seeds
# forced cold (each runs the start-up), and from the sweep's snapshot.
sed 's/^duration = 30s$/&\nwarm_start = network/' "$TMP/el/fixed.conf" >"$TMP/el/warm.conf"
grep -q '^warm_start = network$' "$TMP/el/warm.conf" || die "no warm_start in warm.conf"
warm_sweep() {  # warm_sweep SEEDS MODE: ns of a -j 2 sweep of warm.conf with --warm MODE
    wall $UNSHARE "$DSIM" run "$TMP/el/warm.conf" --seeds "1-$1" -j 2 --warm "$2"
}
EL=() WC=() WS=()
for _ in $(seq "$R"); do
    EL+=("$(sweep "$TMP/el/fixed.conf" "$CLUSTER_SEEDS" 2)")
    WC+=("$(warm_sweep "$CLUSTER_SEEDS" cold)")
    WS+=("$(warm_sweep "$CLUSTER_SEEDS" snapshot)")
done
echo "4. a 5-machine CPython cluster (examples/election/fixed.conf), -j 2, $CLUSTER_SEEDS seeds"
awk -v j2="$(median "${EL[@]}")" -v wc="$(median "${WC[@]}")" -v ws="$(median "${WS[@]}")" -v s="$CLUSTER_SEEDS" 'BEGIN {
    printf "   %-44s %9.2f seeds/s\n", "cold start", s * 1e9 / j2
    printf "   %-44s %9.2f seeds/s\n", "warm_start = network, --warm cold", s * 1e9 / wc
    printf "   %-44s %9.2f seeds/s   %.2fx the cold start\n", "warm_start = network, from a snapshot", s * 1e9 / ws, j2 / ws
}'

# ---- 5. asyncio machines from a snapshot ----
# The id allocator's three asyncio machines started at once, under a warm
# start at the first network call: each process's event loop (an epoll set
# and its self-pipe) is made anew in each copy (supervisor/snapfds.c).
sed -e '/^start = /d' -e 's/^duration = 60s$/&\nwarm_start = network/' "$TMP/ia/ia.conf" >"$TMP/ia/ia-warm.conf"
grep -q '^warm_start = network$' "$TMP/ia/ia-warm.conf" || die "no warm_start in ia-warm.conf"
# cold_vs_snapshot TITLE CONF [WRAPPER...]: a -j 2 sweep of CONF's CLUSTER_SEEDS
# seeds forced cold against from its snapshot, REPEATS times interleaved.
cold_vs_snapshot() {
    local title=$1 conf=$2 cold=() snap=()
    shift 2
    for _ in $(seq "$R"); do
        cold+=("$(wall "$@" "$DSIM" run "$conf" --seeds "1-$CLUSTER_SEEDS" -j 2 --warm cold)")
        snap+=("$(wall "$@" "$DSIM" run "$conf" --seeds "1-$CLUSTER_SEEDS" -j 2 --warm snapshot)")
    done
    echo
    echo "$title, -j 2, $CLUSTER_SEEDS seeds"
    awk -v c="$(median "${cold[@]}")" -v w="$(median "${snap[@]}")" -v s="$CLUSTER_SEEDS" 'BEGIN {
        printf "   %-44s %9.2f seeds/s\n", "--warm cold", s * 1e9 / c
        printf "   %-44s %9.2f seeds/s   %.2fx the cold start\n", "from a snapshot", s * 1e9 / w, c / w
    }'
}
cold_vs_snapshot "5. 3 asyncio CPython machines started at once (the id allocator), warm_start = network" \
    "$TMP/ia/ia-warm.conf" $UNSHARE

# ---- 7 (below). process trees from a snapshot: each machine a pipeline ----
sed -e 's/^command = exec \(python3 idalloc\.py .*\)$/command = \1 | cat/' "$TMP/ia/ia-warm.conf" >"$TMP/ia/ia-tree.conf"
[ "$(grep -c '| cat$' "$TMP/ia/ia-tree.conf")" = 3 ] || die "no pipelines in ia-tree.conf"

# ---- 6. threads from a snapshot ----
command -v node >/dev/null || die "no node (apt-get install nodejs)"
mkdir -p "$TMP/nw" && cp "$PROGS/node_workers.js" "$TMP/nw/" || die "no node_workers.js"
printf '[simulation]\nduration = 10s\nwarm_start = 55ms\n[machine m]\ncommand = exec node node_workers.js\n' >"$TMP/nw/nw.conf"
cold_vs_snapshot "6. Node with a worker thread (node_workers.js), warm_start = 55ms" "$TMP/nw/nw.conf"
cold_vs_snapshot "7. row 5 with each machine a pipeline (sh, python3 idalloc.py ... | cat)" "$TMP/ia/ia-tree.conf" $UNSHARE
# ---- 8. a cluster copied mid-run: row 4's at 1 s ----
sed 's/^duration = 30s$/&\nwarm_start = 1s/' "$TMP/el/fixed.conf" >"$TMP/el/mid.conf"
grep -q '^warm_start = 1s$' "$TMP/el/mid.conf" || die "no warm_start in mid.conf"
cold_vs_snapshot "8. row 4's cluster copied at 1 s (UDP sockets bound, each node in select, a datagram in flight)" \
    "$TMP/el/mid.conf" $UNSHARE
# ---- 9. crashes after the point: the job queue under [chaos] ----
mkdir -p "$TMP/jq" && cp "$HERE/../examples/jobqueue/jobqueue.py" "$HERE/../examples/jobqueue/check.py" "$TMP/jq/" || die "no examples/jobqueue"
sed 's/^duration = 60s$/&\nwarm_start = 1s/' "$HERE/../examples/jobqueue/fixed.conf" >"$TMP/jq/jq.conf"
grep -q '^warm_start = 1s$' "$TMP/jq/jq.conf" || die "no warm_start in jq.conf"
cold_vs_snapshot "9. examples/jobqueue (4 CPython machines over TCP, [chaos] swarm crashes every ~3 s) copied at 1 s" \
    "$TMP/jq/jq.conf" $UNSHARE
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
