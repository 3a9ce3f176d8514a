#!/bin/bash
# File times follow the machine's clock, not the host's (file_times): the
# mtime and ctime of a file written, pwritten, truncated, touched or
# created, and of the directory it was created in, are the machine's
# "now", as natively; an explicit utimensat stands. Also on a machine whose clock runs 1 h behind
# and jumps back 30 s mid-run. Two runs of a seed: one hash. A host file
# the program writes to (dsim exec's standard output) keeps host times.
. "$(dirname "$0")/lib.sh"
prog=$(build file_times)
"$prog" "$TMP/native" >"$TMP/native.out" || fail "file_times failed natively"
grep -q elsewhere "$TMP/native.out" && fail "natively: $(cat "$TMP/native.out")"
h=$(dsim_as_native --seeds "" "$prog" /var/tmp/ft) || exit 1
write_conf "$TMP/skew.conf" <<CONF
[simulation]
duration = 60s
[machine skewed]
command = exec $prog /var/tmp/ft
clock_offset = -1h
[fault back]
kind = clock_jump
at = 3s
machine = skewed
by = -30s
[check]
command = cat skewed.stdout
CONF
"$DSIM" run "$TMP/skew.conf" --seeds 1 >"$TMP/skew.out" 2>&1 || { cat "$TMP/skew.out"; fail "the skewed run failed"; }
grep -v '^dsim:' "$TMP/skew.out" | diff "$TMP/native.out" - >&2 || fail "file times on a skewed, jumping clock differ from native"
"$DSIM" exec -- /bin/sh -c 'echo hi; sleep 1; echo again' >"$TMP/host.txt" 2>/dev/null
[ "$(( $(date +%s) - $(stat -c %Y "$TMP/host.txt") ))" -lt 600 ] || fail "dsim stamped a host file with a machine's time"
# The root directory, untouched by the program, shows the host's
# modification time in all three times, not the time the machine was made.
want=$(stat -c %Y /)
dsim_exec 1 stat -c '%X %Y %Z' / >"$TMP/root.out" 2>/dev/null
[ "$(cat "$TMP/root.out")" = "$want $want $want" ] || fail "stat / under dsim: $(cat "$TMP/root.out"), want $want thrice"
note "file times follow the machine's clock (also skewed and jumped); hash $h twice"
