#!/bin/bash
# Durable names: a log replaced by write-tmp, fsync, rename (rename_log)
# keeps every acknowledged record across crashes only if it also fsyncs the
# directory. Without the directory fsync the rename is not durable, and a
# crash may undo it (and the renames after it, in journal order), bringing
# back an older log or none: some seed of 30 loses an acknowledged record;
# with --dirsync none of the same 30 does. A failing seed replays to one
# hash, and its trace shows the undone name operation. The same holds for
# rename_log.py, the Python twin.
. "$(dirname "$0")/lib.sh"
prog=$(build rename_log)
# The check reads the log's output across its incarnations: a "recovered
# N" below the last ack before it means an acknowledged record was lost.
cat >"$TMP/check.sh" <<'SH'
awk '/^ack /{a=$2} /^recovered /{if ($2 < a) {print "LOST: acked " a ", recovered " $2; bad=1}} END{exit bad}' log.stdout
SH
conf() {
    write_conf "$TMP/$1.conf" <<CONF
[simulation]
duration = 60s
[machine log]
command = exec $3 $2 /var/tmp/names
command-after-restart = exec $3 $2 /var/tmp/names
[chaos]
machines = log
crash = 2s
crash_down = 100ms..500ms
[check]
command = sh $TMP/check.sh
CONF
}
conf lazy "" "$prog"
conf durable --dirsync "$prog"
conf pylazy "" "/usr/bin/python3 $PROGS/rename_log.py"
conf pydurable --dirsync "/usr/bin/python3 $PROGS/rename_log.py"
timeout -k 5 300 "$DSIM" run "$TMP/lazy.conf" --seeds 1-30 >"$TMP/lazy.out"
[ $? = 1 ] || { cat "$TMP/lazy.out"; fail "rename without a directory fsync never lost an acknowledged record"; }
seed=$(sed -n 's/^seed \([0-9]*\) FAILED: the check command failed.*/\1/p' "$TMP/lazy.out" | head -n 1)
[ -n "$seed" ] || { cat "$TMP/lazy.out"; fail "rename without a directory fsync failed for another reason"; }
timeout -k 5 300 "$DSIM" run "$TMP/durable.conf" --seeds 1-30 --keep-going >"$TMP/durable.out" ||
    { grep -A3 FAILED "$TMP/durable.out"; fail "rename with a directory fsync lost an acknowledged record"; }
h=$(timeout -k 5 60 "$DSIM" verify "$TMP/lazy.conf" --seed "$seed" --runs 2 | tail -n 1)
[ ${#h} = 32 ] || fail "seed $seed did not replay with one hash"
timeout -k 5 60 "$DSIM" replay "$TMP/lazy.conf" "$seed" --trace "$TMP/t.gz" >/dev/null
"$DSIM" trace "$TMP/t.gz" --syscall disk: >"$TMP/disk.txt"
grep -Eq '/var/tmp/names/log.*undone' "$TMP/disk.txt" ||
    { cat "$TMP/disk.txt"; fail "no undone name operation on the log in the trace of seed $seed"; }
# A failing seed's disk is kept with --output: the log as the run left it.
timeout -k 5 60 "$DSIM" replay "$TMP/lazy.conf" "$seed" --output "$TMP/kept" >/dev/null
kept="$TMP/kept/seed-$seed/disk/log/var/tmp/names/log"
[ -f "$kept" ] || { find "$TMP/kept" >&2; fail "the failing seed's disk was not kept"; }
last=$(grep -c . "$kept")
grep -q "^recovered $last\$" "$TMP/kept/seed-$seed/log.stdout" ||
    [ "$(grep '^ack ' "$TMP/kept/seed-$seed/log.stdout" | tail -n 1)" = "ack $last" ] ||
    fail "the kept log holds $last records, which the run never saw"
# The Python twin: the same outcome.
timeout -k 5 300 "$DSIM" run "$TMP/pylazy.conf" --seeds 1-30 >"$TMP/pylazy.out"
[ $? = 1 ] || { cat "$TMP/pylazy.out"; fail "rename_log.py without a directory fsync never lost an acknowledged record"; }
grep -q '^seed [0-9]* FAILED: the check command failed' "$TMP/pylazy.out" ||
    { cat "$TMP/pylazy.out"; fail "rename_log.py without a directory fsync failed for another reason"; }
timeout -k 5 300 "$DSIM" run "$TMP/pydurable.conf" --seeds 1-30 --keep-going >"$TMP/pydurable.out" ||
    { grep -A3 FAILED "$TMP/pydurable.out"; fail "rename_log.py with a directory fsync lost an acknowledged record"; }
note "rename without a directory fsync lost a record at seed $seed; with it none in 30 seeds"
