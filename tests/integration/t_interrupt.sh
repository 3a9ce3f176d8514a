#!/bin/bash
# Stopping dsim from outside: a run of a machine that never ends (1 h of
# simulated time) is sent SIGINT, SIGTERM or SIGKILL after 1 s of real time.
# Within 5 s dsim must have exited, and no process it started may be left:
# every machine carries a unique marker in its environment, and no process's
# /proc/PID/environ may still hold it. SIGINT and SIGTERM leave no run
# directory behind.
#
# dsim is started directly (not under `timeout`, which would take the signal
# in its place); the 5 s deadline below bounds it instead, and anything left
# is killed by pid before the test fails.
. "$(dirname "$0")/lib.sh"

[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
PY=/usr/bin/python3

MARK="dsim-interrupt-$$-$(date +%s%N)-$RANDOM"
DSIM_PID=

# PIDs of live processes whose initial environment holds the marker.
marked() {
    grep -lsF -- "DSIM_TEST_MARKER=$MARK" /proc/[0-9]*/environ 2>/dev/null |
        sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p'
}
# State letter of PID ('' when gone).
state() { ps -o stat= -p "$1" 2>/dev/null | cut -c1; }
cleanup() {
    local p
    [ -n "$DSIM_PID" ] && kill -KILL "$DSIM_PID" 2>/dev/null
    for _ in 1 2 3; do   # a shell may fork a new sleep while we kill
        for p in $(marked); do kill -KILL "$p" 2>/dev/null; done
    done
    rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/conf"
write_conf "$TMP/conf/cluster.conf" <<EOF
[simulation]
duration = 1h

[machine main]
env = DSIM_TEST_MARKER=$MARK
command = while true; do sleep 1; done

[machine other]
env = DSIM_TEST_MARKER=$MARK
command = sleep 100000

# Always runnable, so that virtual time crawls (a quantum per syscall) and
# the 1 h limit is hours of real time away even if sleeps cost nothing.
[machine busy]
env = DSIM_TEST_MARKER=$MARK
command = while true; do echo x >/dev/null; done

[machine bg]
daemon = true
env = DSIM_TEST_MARKER=$MARK
command = sh -c 'while true; do sleep 2; done'
EOF

[ -z "$(marked)" ] || fail "marker already in use"

# interrupt SIGNAL
interrupt() {
    local sig=$1 t rc
    # dsim runs under a subshell that waits for it and records its exit
    # status, so that bash's own "Killed" notice does not clutter the log.
    # Background jobs of a non-interactive shell start with SIGINT ignored:
    # the python3 shim restores the default, as for a program started from
    # a terminal, then execs dsim (same pid).
    rm -f "$TMP/pid" "$TMP/rc"
    (
        "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$DSIM" run "$TMP/conf/cluster.conf" --seeds 1 \
            >"$TMP/$sig.out" 2>"$TMP/$sig.err" </dev/null &
        echo $! >"$TMP/pid"
        wait $!
        echo $? >"$TMP/rc.tmp" && mv "$TMP/rc.tmp" "$TMP/rc"
    ) 2>/dev/null &
    local waiter=$!
    for ((t = 0; t < 100; t++)); do [ -s "$TMP/pid" ] && break; sleep 0.05; done
    DSIM_PID=$(cat "$TMP/pid" 2>/dev/null)
    [ -n "$DSIM_PID" ] || fail "SIG$sig: could not start dsim"

    # Wait (up to 20 s) for the machines to be running.
    for ((t = 0; t < 200; t++)); do
        [ -n "$(marked)" ] && break
        case $(state "$DSIM_PID") in ''|Z)
            cat "$TMP/$sig.out" "$TMP/$sig.err" >&2
            fail "SIG$sig: dsim exited before starting the machines" ;;
        esac
        sleep 0.1
    done
    [ -n "$(marked)" ] || fail "SIG$sig: no machine process appeared within 20 s"
    local before; before=$(marked | wc -l)
    sleep 1
    case $(state "$DSIM_PID") in ''|Z)
        cat "$TMP/$sig.out" "$TMP/$sig.err" >&2
        fail "SIG$sig: dsim exited by itself during a 1 h simulation" ;;
    esac

    kill -"$sig" "$DSIM_PID" || fail "SIG$sig: cannot signal dsim"
    # Up to 5 s for dsim to exit and for every marked process to be gone.
    local exited=0 left deadline=$(($(date +%s%N) + 5000000000))
    while :; do
        case $(state "$DSIM_PID") in ''|Z) exited=1 ;; esac
        left=$(marked)
        [ "$exited" = 1 ] && [ -z "$left" ] && break
        [ "$(date +%s%N)" -lt "$deadline" ] || break
        sleep 0.1
    done
    if [ "$exited" != 1 ]; then
        cat "$TMP/$sig.err" >&2
        fail "SIG$sig: dsim still running 5 s after the signal"
    fi
    wait "$waiter"
    rc=$(cat "$TMP/rc" 2>/dev/null)
    DSIM_PID=
    if [ -n "$left" ]; then
        ps -o pid,ppid,stat,args -p "$(echo $left | tr ' ' ,)" >&2
        fail "SIG$sig: $(echo "$left" | wc -l) process(es) started by dsim survived it"
    fi
    # An interrupted run is not a passing run.
    [ "$rc" != 0 ] || fail "SIG$sig: dsim exited 0"
    [ "$sig" != KILL ] || [ "$rc" = 137 ] || fail "SIGKILL: exit status $rc"
    # Nor does it leave its run directory (a SIGKILLed dsim cannot help it).
    [ "$sig" = KILL ] || [ -z "$(ls -A "$TMP/dsim-runs" 2>/dev/null)" ] ||
        fail "SIG$sig: run directories left: $(ls "$TMP/dsim-runs")"
    note "SIG$sig: dsim exited $rc, $before machine process(es) gone"
}

interrupt INT
interrupt TERM
interrupt KILL
note "ok"
