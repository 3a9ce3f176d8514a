#!/bin/sh
# native_check.sh: run the network test programs natively and check them.
#
#   tests/programs/native_check.sh [-v]
#
# SAFETY: every program runs inside its own new, empty network namespace
# (`unshare --net`: only `lo`, brought up here), never in the caller's: no
# packet can leave the machine. The programs also refuse to run (exit 3) if
# their namespace has any interface but lo; the last part of this script
# checks that refusal in a namespace with an extra, unconnected bridge.
#
# Each case runs twice; it passes if both runs exit 0, end with "ok", and
# print the same output. Cases: every program's selftest, plus "roles" cases
# that start the server/client modes as separate processes the way machines
# would (clients reach the server by the name "localhost", as machines would
# by their /etc/hosts names), printing their outputs in a fixed order.
# -v prints every case's output. Exit status: 0 if all cases passed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
VERBOSE=0
[ "${1-}" = "-v" ] && VERBOSE=1
if [ "$(id -u)" = 0 ]; then
    UNSHARE="unshare --net"
else
    UNSHARE="unshare --user --map-root-user --net"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/netprogs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
BIN=$WORK/bin
mkdir -p "$BIN"
export BIN PY HERE

CPROGS="tcp_blocking tcp_epoll_echo tcp_flow udp_counts tcp_ipv6 net_outside"
for p in $CPROGS; do
    cc -std=gnu11 -O1 -g -Wall -Wextra -pthread -o "$BIN/$p" "$HERE/$p.c" || { echo "FAIL: build $p"; exit 1; }
done

pass=0
failed=""

# run_case NAME SCRIPT: run SCRIPT (sh) twice, each time in a fresh network
# namespace with lo up and its own scratch directory as the working directory.
run_case() {
    name=$1 script=$2 ok=1
    for i in 1 2; do
        d=$WORK/$name.$i
        mkdir -p "$d"
        printf '%s\n' "$script" >"$d/case.sh"
        (cd "$d" && timeout -k 5 120 $UNSHARE sh -c 'ip link set lo up && exec sh ./case.sh') \
            >"$d.out" 2>"$d.err"
        rc=$?
        if [ $rc != 0 ] || [ "$(tail -n 1 "$d.out")" != ok ]; then
            echo "FAIL: $name (run $i): exit $rc"; sed 's/^/    /' "$d.out" "$d.err"; ok=0; break
        fi
    done
    if [ $ok = 1 ] && ! cmp -s "$WORK/$name.1.out" "$WORK/$name.2.out"; then
        echo "FAIL: $name: the two runs differ:"; diff "$WORK/$name.1.out" "$WORK/$name.2.out" | sed 's/^/    /'
        ok=0
    fi
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
        echo "pass: $name ($(wc -l <"$WORK/$name.1.out") lines, same twice)"
        [ $VERBOSE = 1 ] && sed 's/^/    /' "$WORK/$name.1.out"
    else
        failed="$failed $name"
    fi
}

# In the roles scripts: wait_all PID... fails if any of them failed.
WAIT_ALL='wait_all() { r=0; for p in "$@"; do wait "$p" || r=1; done; return $r; }'

run_case tcp_blocking.selftest   '$BIN/tcp_blocking selftest'
run_case tcp_epoll_echo.selftest '$BIN/tcp_epoll_echo selftest'
run_case tcp_flow.selftest       '$BIN/tcp_flow selftest'
run_case udp_counts.selftest     '$BIN/udp_counts selftest'
run_case tcp_ipv6.selftest       '$BIN/tcp_ipv6 selftest'
run_case net_outside             '$BIN/net_outside'
run_case udp_election.local      '$PY $HERE/udp_election.py --local 7700 --duration 3'
run_case idalloc.selftest        '$PY $HERE/idalloc.py selftest'

run_case tcp_blocking.roles "$WAIT_ALL"'
$BIN/tcp_blocking server 0.0.0.0 7100 3 >s.out & s=$!
$BIN/tcp_blocking client localhost 7100 1 >c1.out & c1=$!
$BIN/tcp_blocking client localhost 7100 2 >c2.out & c2=$!
$BIN/tcp_blocking client localhost 7100 3 >c3.out & c3=$!
wait_all $s $c1 $c2 $c3; r=$?
cat s.out c1.out c2.out c3.out
$BIN/tcp_blocking refused localhost 7101 || r=1
[ $r = 0 ]'
run_case tcp_epoll_echo.roles "$WAIT_ALL"'
$BIN/tcp_epoll_echo server 0.0.0.0 7200 2 et oneshot >s.out & s=$!
$BIN/tcp_epoll_echo client localhost 7200 1 30 >c1.out & c1=$!
$BIN/tcp_epoll_echo client localhost 7200 2 30 >c2.out & c2=$!
wait_all $s $c1 $c2; r=$?
cat s.out c1.out c2.out
[ $r = 0 ]'
run_case tcp_flow.roles "$WAIT_ALL"'
$BIN/tcp_flow client localhost 7300 >c.out & c=$!
$BIN/tcp_flow server 0.0.0.0 7300 >s.out & s=$!
wait_all $s $c; r=$?
cat s.out c.out
[ $r = 0 ]'
run_case udp_counts.roles "$WAIT_ALL"'
$BIN/udp_counts send localhost 7400 300 >s.out & s=$!
$BIN/udp_counts recv 0.0.0.0 7400 300 exact >r.out & r=$!
wait_all $s $r; rc=$?
cat r.out s.out
$BIN/udp_counts refused localhost 7401 || rc=1
[ $rc = 0 ]'
run_case tcp_ipv6.roles "$WAIT_ALL"'
$BIN/tcp_ipv6 server :: 7500 2 >s.out & s=$!
$BIN/tcp_ipv6 client localhost 7500 >c1.out & c1=$!
$BIN/tcp_ipv6 client ::1 7500 >c2.out & c2=$!
wait_all $s $c1 $c2; r=$?
cat c1.out c2.out s.out
[ $r = 0 ]'
# Three nodes by name: all "localhost", told apart by port.
run_case udp_election.roles "$WAIT_ALL"'
P=localhost:7701,localhost:7702,localhost:7703
for n in 1 2 3; do $PY $HERE/udp_election.py localhost:770$n $P 7700 --duration 3 >n$n.out & eval p$n=\$!; done
wait_all $p1 $p2 $p3; r=$?
# Who leads depends on timing natively: print only that all agree.
sed -n "s/^node [^ ]*: leader \([^ ]*\) term \([0-9]*\),.*/\1 \2/p" n1.out n2.out n3.out | sort -u | wc -l | grep -qx 1 || r=1
grep -h "role leader" n1.out n2.out n3.out | wc -l | grep -qx 1 || r=1
echo "3 named nodes agree on one leader: $([ $r = 0 ] && echo yes || echo NO)"
[ $r = 0 ] && echo ok'
run_case idalloc.roles "$WAIT_ALL"'
$PY $HERE/idalloc.py server 7800 --fixed --clients 2 >s.out & s=$!
$PY $HERE/idalloc.py client localhost 7800 a 30 >a.out & a=$!
$PY $HERE/idalloc.py client localhost 7800 b 30 >b.out & b=$!
wait_all $s $a $b; r=$?
cat s.out
$PY $HERE/idalloc_check.py a.out b.out || r=1
[ $r = 0 ] && echo ok'

# Refusal: with an extra interface (an unconnected bridge, down, in a fresh
# namespace) every program must exit 3 before it opens any socket.
refused=0
for p in $CPROGS udp_election.py idalloc.py; do
    case $p in
    *.py) cmd="$PY $HERE/$p selftest" ;;
    net_outside) cmd="$BIN/$p" ;;
    *) cmd="$BIN/$p selftest" ;;
    esac
    [ $p = udp_election.py ] && cmd="$PY $HERE/$p --local"
    $UNSHARE sh -c "ip link add nc0 type bridge || exit 100; ip link set lo up; exec $cmd" >"$WORK/refuse.out" 2>&1
    rc=$?
    if [ $rc = 100 ]; then
        echo "skip: refusal check (cannot add a bridge interface here)"; break
    elif [ $rc = 3 ] && [ "$(cut -c1-9 "$WORK/refuse.out" | sort -u)" = netcheck: ]; then
        refused=$((refused + 1))
    else
        echo "FAIL: $p did not refuse to run with an extra interface (exit $rc)"; failed="$failed refuse:$p"
    fi
done
[ $refused -gt 0 ] && echo "pass: $refused programs refuse to run beside an interface other than lo (exit 3)"

if [ -n "$failed" ]; then
    echo "FAILED:$failed"
    exit 1
fi
echo "all $pass cases passed"
