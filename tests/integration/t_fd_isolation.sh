#!/bin/bash
# Nothing of dsim's reaches a machine: not the trace file, not the caller's
# open fds. Otherwise fd numbers, and so the trace hash, would depend on the
# shell dsim was started from or on --trace.
. "$(dirname "$0")/lib.sh"
fds=$(exec 7>"$TMP/held" 9<"$TMP/held"; timeout -k 5 60 "$DSIM" exec -- /bin/ls /proc/self/fd 2>/dev/null | tr '\n' ' ')
[ "$fds" = "0 1 2 3 " ] || fail "machine sees fds: $fds (want 0 1 2 and ls's own 3)"
prog=$(build race_counter)
write_conf "$TMP/c.conf" <<CONF
[machine main]
command = $prog
CONF
plain=$(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 4 | sed -n 's/^trace hash //p')
traced=$(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 4 --trace "$TMP/t.txt" | sed -n 's/^trace hash //p')
[ -n "$plain" ] && [ "$plain" = "$traced" ] || fail "--trace changed the hash: $plain vs $traced"
[ -s "$TMP/t.txt" ] || fail "no trace written"
# A bad --trace path is a usage error, and no seed runs.
timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 4 --trace "$TMP/no/such/dir/t" >"$TMP/bad.out" 2>&1
[ $? = 2 ] || fail "unwritable --trace did not exit 2"
! grep -q FAILED "$TMP/bad.out" || fail "a seed ran despite the bad --trace"
# Nor the caller's ignored or blocked signals (a shell starts background
# jobs with SIGINT and SIGQUIT ignored).
ign=$(trap '' INT QUIT TERM; timeout -k 5 60 "$DSIM" exec -- /bin/grep -E '^Sig(Ign|Blk)' /proc/self/status 2>/dev/null | tr '\t\n' '  ')
[ "$ign" = "SigBlk: 0000000000000000 SigIgn: 0000000000000000 " ] || fail "machine inherits signal state: $ign"
h1=$(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 4 | sed -n 's/^trace hash //p')
h2=$( (trap '' INT QUIT; timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" 4 | sed -n 's/^trace hash //p') )
[ "$h1" = "$h2" ] || fail "ignored signals in the caller changed the hash: $h1 vs $h2"
# Nor the caller's umask.
um=$(umask 077; timeout -k 5 60 "$DSIM" exec -- /bin/sh -c umask 2>/dev/null)
[ "$um" = 0022 ] || fail "machine inherits the caller's umask: $um"
