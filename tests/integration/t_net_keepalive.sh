#!/bin/bash
# TCP keepalive on the simulated network (it was accepted and ignored). A
# client connects to machine srv at about 0 s, asks for keepalive (idle 2 s,
# probes 1 s apart, 3 of them) and waits in recv:
#  - srv crashes at 1 s and stays down: the probes at 2, 3 and 4 s go
#    unanswered and recv fails with ETIMEDOUT at 5 s;
#  - srv crashes at 1 s and is back at 1.5 s: the probe at 2 s meets the
#    rebooted machine, which knows no such connection: ECONNRESET at 2 s;
#  - srv stays up and sends at 6 s: the probes are answered and recv gets
#    the data at 6 s;
#  - without keepalive, a client whose server is down waits forever (as on
#    Linux, where the default is off): the run reports a deadlock with the
#    client blocked in recv.
# Out-of-range TCP_KEEPIDLE and TCP_KEEPCNT are EINVAL, as on Linux. Each
# seed of 1-3 prints the same; one seed gives one hash twice; the trace
# shows the probes.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 60
B=$(build tcp_keepalive)
conf() {    # conf NAME CLIENT-ARGS SERVER-ARGS [FAULT-LINES]
    {
        printf '[simulation]\nduration = 20s\n[machine srv]\ncommand = exec %s server 7300 %s\ndaemon = true\n' "$B" "$3"
        printf '[machine cli]\ncommand = exec %s client srv 7300 %s\n' "$B" "$2"
        [ -z "${4:-}" ] || printf '%b' "$4"
    } >"$TMP/$1.conf"
}
down='[fault f]\nkind = crash\nat = 1s\nmachine = srv\n'
reboot='[fault f]\nkind = restart\nat = 1s\nmachine = srv\nduration = 500ms\n'
conf down ka "" "$down"
conf reboot ka "" "$reboot"
conf alive ka 6
conf nokeep "" "" "$down"

expect() {  # expect NAME LAST-LINE
    "$DSIM" run "$TMP/$1.conf" --seeds 1-3 --keep-going --output "$TMP/$1" >"$TMP/$1.out" 2>&1
    for s in 1 2 3; do
        got=$(tail -n 1 "$TMP/$1/seed-$s/cli.stdout" 2>/dev/null)
        [ "$got" = "$2" ] || { cat "$TMP/$1.out" "$TMP/$1/seed-$s/cli.stdout" >&2; fail "$1, seed $s: '$got', expected '$2'"; }
        grep -qx 'TCP_KEEPIDLE 0: EINVAL' "$TMP/$1/seed-$s/cli.stdout" && grep -qx 'TCP_KEEPCNT 128: EINVAL' "$TMP/$1/seed-$s/cli.stdout" ||
            fail "$1, seed $s: out-of-range keepalive options were not EINVAL"
    done
    note "$1: $2 on seeds 1-3"
}
expect down "recv: ETIMEDOUT at second 5"
expect reboot "recv: ECONNRESET at second 2"
expect alive "recv: late at second 6"
"$DSIM" run "$TMP/nokeep.conf" --seeds 1 --output "$TMP/nokeep" >"$TMP/nokeep.out" 2>&1 && fail "without keepalive the client should still wait"
grep -q 'deadlock' "$TMP/nokeep.out" && grep -q 'machine cli thread 2 blocked in recvfrom' "$TMP/nokeep.out" ||
    { cat "$TMP/nokeep.out"; fail "without keepalive: not a deadlock in recv"; }
note "without keepalive: a deadlock, the client waiting in recv"

"$DSIM" replay "$TMP/down.conf" 1 --trace "$TMP/t.gz" >/dev/null 2>&1
[ "$("$DSIM" trace "$TMP/t.gz" | grep -c 'net keepalive cli .* unanswered')" = 3 ] ||
    { "$DSIM" trace "$TMP/t.gz" | grep keepalive >&2; fail "the trace does not show three unanswered probes"; }
h=$(one_hash "$TMP/reboot.conf" 1) || exit 1
note "seed 1 of the reboot replays to $h"
