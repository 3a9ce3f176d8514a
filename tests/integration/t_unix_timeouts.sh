#!/bin/bash
# Receive and send timeouts on a machine's own unix sockets (a stream
# socket pair, a datagram pair): set, an out-of-range one refused (EDOM),
# read back, a read that times out: as natively on seeds 1-3, one hash
# twice. What is read back and how long the read waits follow a machine's
# tick, HZ 250, whatever the host's (the host's kernel keeps them in its
# own ticks: 1.5 ms is 4 ms at HZ 250, 2 ms at HZ 1000): {0, 4000} and
# {2, 4000}, and the read waits 4 ms of virtual time; with a machine's
# tick moved (DSIM_TEST_SOCK_HZ=1000, where this host's is 250, so that
# dsim's rounding shows apart from the host kernel's) {0, 2000} and
# {2, 1000}, and 2 ms.
. "$(dirname "$0")/lib.sh"
dsim_timeout 60
prog=$(build unix_timeo)
native_ok "$prog"
h=$(dsim_as_native --seeds "2 3" "$prog") || exit 1
dsim_exec 1 "$prog" values >"$TMP/values.out" || { cat "$TMP/exec.err"; fail "unix_timeo values failed"; }
# check_values FILE RCV SND US: both kinds read back RCV and SND and the
# 1.5 ms read waited US..US+200 us of virtual time.
check_values() {
    local kind line us
    for kind in stream dgram; do
        line=$(grep "^$kind: SO_RCVTIMEO" "$1")
        us=$(echo "$line" | sed -n 's/.*waited \([0-9]*\) us$/\1/p')
        case $line in
        "$kind: SO_RCVTIMEO $2 SO_SNDTIMEO $3, waited "*) ;;
        *) fail "$kind: $line (expected $2 and $3)" ;;
        esac
        [ -n "$us" ] && [ "$us" -ge "$4" ] && [ "$us" -lt $(($4 + 200)) ] || fail "$kind: the 1.5 ms read waited: $line"
    done
}
check_values "$TMP/values.out" "{0, 4000}" "{2, 4000}" 4000
DSIM_TEST_SOCK_HZ=1000 dsim_exec 1 "$prog" values >"$TMP/hz.out" || { cat "$TMP/exec.err"; fail "unix_timeo at HZ 1000 failed"; }
check_values "$TMP/hz.out" "{0, 2000}" "{2, 1000}" 2000
note "as natively, hash $h; timeouts at HZ 250 under dsim"
