#!/bin/bash
# The kernel sockets under simulated ones get a send buffer of dsim's
# (net/sim/netsim.h NETSIM_SNDBUF), not the host's net.core.wmem_default:
# how much a write or the relay's flush puts into a socket before EAGAIN,
# and so a seed's hash, must not depend on the host's sysctl. The value is
# moved here (DSIM_TEST_SNDBUF) so that a socket left at the host's default
# shows: while sndbuf_spin computes (its connection to itself, its
# listener and UDP socket made), `ss -xm` in dsim's and the machine's
# network namespaces finds every connected stream socket and every socket
# of the program at that value, under dsim exec and in a seed started from
# a warm start's snapshot. The value decides hashes (tcp_flow's differ at
# two values of one length: the variable is in the program's environment
# too), one value gives one hash twice, and the output is the native one.
# Only the sockets of the dsim it starts count (other tests run beside it).
# No real network: see netns.sh; dsim runs in this empty namespace.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
command -v ss >/dev/null && command -v nsenter >/dev/null || fail "no ss or nsenter (apt-get install iproute2 util-linux)"
spin=$(build sndbuf_spin)
flow=$(build tcp_flow)
WANT=131072

# descendants PID: PID and every process below it.
descendants() {
    echo "$1"
    local c
    for c in $(pgrep -P "$1"); do descendants "$c"; done
}

# spins_under PID: how many sndbuf_spin processes run under PID.
spins_under() {
    local p n=0
    for p in $(descendants "$1"); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sndbuf_spin ] && n=$((n + 1)); done
    echo $n
}

# check_pinned WHAT TOP: among the sockets of the processes under TOP (the
# dsim this test started: other tests' run beside it), in each of their
# network namespaces, every socket of sndbuf_spin and every connected unix
# stream socket has tb$WANT; at least 4 connected ones (the connection's two
# sockets and two relay ends) and the program's listener and UDP socket.
check_pinned() {
    local pids p ns seen=" "
    pids=$(descendants "$2")
    : >"$TMP/ss.$1"
    for p in $pids; do
        ns=$(readlink "/proc/$p/ns/net" 2>/dev/null) || continue
        case $seen in *" $ns "*) continue ;; esac
        seen="$seen$ns "
        nsenter --net="/proc/$p/ns/net" ss -xapm >>"$TMP/ss.$1" 2>/dev/null
    done
    sort -u "$TMP/ss.$1" | awk -v want="tb$WANT" -v pids=" $(echo $pids) " '
        /^u_/ { mine = 0; line = $0
                while (match(line, /pid=[0-9]+/)) { if (index(pids, " " substr(line, RSTART + 4, RLENGTH - 4) " ")) mine = 1
                                                     line = substr(line, RSTART + RLENGTH) }
                if (!mine || !match($0, /tb[0-9]+/)) next
                tb = substr($0, RSTART, RLENGTH)
                est = $2 == "ESTAB"; prog = /"sndbuf_spin"/; lst = $2 == "LISTEN" && prog; dgr = $1 == "u_dgr" && prog
                if ((est || prog) && tb != want) { print "not pinned: " $0; bad = 1 }
                n_est += est; n_lst += lst; n_dgr += dgr }
        END { if (n_est < 4 || n_lst < 1 || n_dgr < 1) { print "found " n_est " connected, " n_lst " listening, " n_dgr " UDP"; bad = 1 }
              exit bad }' >"$TMP/ss.bad.$1" || { cat "$TMP/ss.$1"; fail "$1: $(cat "$TMP/ss.bad.$1")"; }
}

# wait_ready FILE: until FILE says "ready" (30 s at most).
wait_ready() {
    for _ in $(seq 300); do grep -qx ready "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "sndbuf_spin never said ready: $(cat "$1")"
}

native_net "$spin" 50 >"$TMP/native.out" || fail "sndbuf_spin failed natively"
[ "$(cat "$TMP/native.out")" = "$(printf 'ready\ndone')" ] || fail "native output: $(cat "$TMP/native.out")"

# dsim exec (the shell's pid is dsim's after its exec)
DSIM_TEST_SNDBUF=$WANT timeout -k 5 120 sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$TMP/top" \
    "$DSIM" exec --seed 1 -- "$spin" 3000 >"$TMP/exec.out" 2>"$TMP/exec.err" &
run=$!
wait_ready "$TMP/exec.out"
check_pinned exec "$(cat "$TMP/top")"
wait $run || { cat "$TMP/exec.err"; fail "dsim exec of sndbuf_spin failed"; }
cmp -s "$TMP/exec.out" "$TMP/native.out" || fail "under dsim exec: $(cat "$TMP/exec.out")"

# a seed from a snapshot taken after the connection was made
write_conf "$TMP/warm.conf" <<CONF
[simulation]
warm_start = output m ready
[machine m]
command = exec $spin 3000
CONF
rm -f "$TMP/top"
DSIM_TEST_SNDBUF=$WANT timeout -k 5 120 sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$TMP/top" \
    "$DSIM" run "$TMP/warm.conf" --seeds 1 --output "$TMP/o" >"$TMP/run.out" 2>"$TMP/run.err" &
run=$!
# the template and the seed's copy, which computes after the point
for _ in $(seq 300); do
    [ -s "$TMP/top" ] && [ "$(spins_under "$(cat "$TMP/top")")" -ge 2 ] && break
    sleep 0.1
done
sleep 0.3
check_pinned warm "$(cat "$TMP/top")"
wait $run || { cat "$TMP/run.out" "$TMP/run.err"; fail "the warm run failed"; }
grep -q "seeds start from a snapshot" "$TMP/run.err" || fail "the seed did not start from a snapshot: $(cat "$TMP/run.err")"

# The value decides hashes: two of one length differ, one gives one hash twice.
hash_at() {
    DSIM_TEST_SNDBUF=$1 timeout -k 5 120 "$DSIM" exec --seed 1 -- "$flow" selftest >"$TMP/flow.$1.out" 2>"$TMP/flow.err" ||
        { cat "$TMP/flow.err"; fail "tcp_flow at $1 failed"; }
    exec_hash_of "$TMP/flow.err"
}
exec_hash_of() { sed -n 's/^dsim: trace hash \([0-9a-f]*\).*/\1/p' "$1" | tail -n 1; }
a=$(hash_at 212992) b=$(hash_at 212992) c=$(hash_at 163840)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "tcp_flow: hashes $a and $b at one send buffer"
[ "$a" != "$c" ] || fail "tcp_flow: the same hash $a at send buffers of 212992 and 163840 (the pin decides nothing)"
cmp -s "$TMP/flow.212992.out" "$TMP/flow.163840.out" || fail "tcp_flow's output depends on the send buffer"
note "every socket at tb$WANT under exec and from a snapshot; tcp_flow $a (212992) $c (163840)"
