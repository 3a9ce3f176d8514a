#!/bin/bash
# The same hash whatever the host varies, for a multi-threaded program:
# thread_journal (four threads taking turns at a journal in the working
# directory, with a mutex, fsyncs, sleeps, a pipe and a condition variable;
# it prints its working directory, its environment's names and the journal
# in the order the schedule gave). One seed gives one trace hash and the
# same output with the config in another directory (a path with spaces:
# the machine sees it at /dsim/config either way), with TMPDIR unset, /tmp
# or a long scratch path, with the caller's environment extended, changed
# or emptied (env -i), pinned to each CPU or not, in a sweep with -j 1 and
# -j 2, and with busy loops on every CPU (variance.sh). The next seed gives
# another journal order.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/variance.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"

D=$TMP/tj
mkdir -p "$D"
cp "$(build thread_journal)" "$D/"
write_conf "$D/tj.conf" <<'EOF2'
[machine m]
command = ./thread_journal 4 20
EOF2

hash=$(variance_matrix "$D" tj.conf 1) || exit 1
out=$TMP/var/base/out/seed-1/m.stdout
[ "$(tail -n 1 "$out")" = ok ] || fail "thread_journal failed: $(cat "$out")"
grep -qx "cwd /dsim/config" "$out" || fail "the machine did not start in /dsim/config: $(head -n 1 "$out")"
grep -qx "env 6 PATH HOME LANG TERM HOSTNAME PWD" "$out" || fail "the machine's environment: $(sed -n 2p "$out")"
j1=$(grep '^journal ' "$out")
j2=$(grep '^journal ' "$TMP/var/j1/out/seed-2/m.stdout")
[ "$j1" != "$j2" ] || fail "seeds 1 and 2 gave one journal order"
note "seed 1: $hash under every variation; journal ${j1:8:40}..."
