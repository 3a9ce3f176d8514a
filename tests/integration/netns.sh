# Sourced by the network tests (t_net_*.sh) BEFORE lib.sh.
#
# ABSOLUTE RULE: no real network traffic. The simulated addresses (10.0.0.x)
# are real private addresses, so nothing these tests run may see a real
# interface:
#  - the whole script runs in a new, empty network namespace: unless it
#    already is in one whose only interface is lo, it re-executes itself
#    under `unshare --net` (this happens before lib.sh makes $TMP, so nothing
#    is left behind by the first process);
#  - on top of that, every program run natively gets a fresh namespace of its
#    own (native_net), and every dsim invocation too (net_dsim_wrapper).
# The test programs themselves also refuse to run unless lo is their
# namespace's only interface.

# only_lo: whether /proc/self/net/dev lists lo and nothing else.
only_lo() {
    awk 'NR > 2 { n = $0; sub(/:.*/, "", n); gsub(/[ \t]/, "", n); if (n != "lo") bad = 1; seen = 1 }
         END { exit (bad || !seen) }' /proc/self/net/dev
}

if ! only_lo; then
    if [ -n "${DSIM_TEST_NETNS:-}" ]; then
        echo "FAIL: unshare --net did not give an empty network namespace" >&2
        exit 1
    fi
    export DSIM_TEST_NETNS=1
    if [ "$(id -u)" = 0 ]; then
        exec unshare --net -- "${BASH:-/bin/bash}" "$0" "$@"
    else
        exec unshare --user --map-root-user --net -- "${BASH:-/bin/bash}" "$0" "$@"
    fi
    echo "FAIL: cannot run unshare --net" >&2
    exit 1
fi
ip link set lo up || { echo "FAIL: cannot bring lo up" >&2; exit 1; }

if [ "$(id -u)" = 0 ]; then
    NET_UNSHARE="unshare --net"
else
    NET_UNSHARE="unshare --user --map-root-user --net"
fi

# native_net PROG ARGS...: run PROG natively in a fresh network namespace
# that has only lo (brought up), under `timeout 60`.
native_net() {
    timeout -k 5 60 $NET_UNSHARE sh -c 'ip link set lo up && exec "$@"' sh "$@"
}

# net_dsim_wrapper: call after lib.sh. Replaces $DSIM with a wrapper that runs
# every dsim invocation in a fresh network namespace, under `timeout SECS`
# (default 60).
net_dsim_wrapper() {
    [ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
    REAL_DSIM=$DSIM
    DSIM=$TMP/dsim-net
    printf '#!/bin/sh\nexec timeout -k 5 %s %s "%s" "$@"\n' "${1:-60}" "$NET_UNSHARE" "$REAL_DSIM" >"$DSIM"
    chmod +x "$DSIM"
}

# native_net_out PROG ARGS...: PROG ARGS run natively (native_net) exits 0;
# its output is $TMP/native.out.
native_net_out() {
    native_net "$@" >"$TMP/native.out" 2>"$TMP/native.err" ||
        { cat "$TMP/native.out" "$TMP/native.err" >&2; fail "$* failed natively"; }
}

# native_net_ok PROG ARGS...: the same, and the output ends with "ok".
native_net_ok() {
    native_net_out "$@"
    [ "$(tail -n 1 "$TMP/native.out")" = ok ] || fail "$*: the native run did not end with ok"
}

# as_native PROG: PROG prints natively (inside this namespace) what it
# prints under dsim exec on seeds 1 and 2, and seed 1 gives one hash
# twice, which it prints. (Call as h=$(...) || exit 1.)
as_native() {
    native_net_out "$1"
    dsim_as_native --seeds 2 "$1"
}

# selftest_as_native PROG: `PROG selftest` ends with "ok" natively (inside
# this namespace) and prints the same under dsim exec on seeds 1-3; seed 1
# gives one hash twice, which it prints. (Call as h=$(...) || exit 1.)
selftest_as_native() {
    native_net_ok "$1" selftest
    dsim_as_native --seeds "2 3" "$1" selftest
}
