#!/bin/bash
# Crashes and durability: a store that acknowledges writes before fsync
# loses an acknowledged write after a crash on some seed; its
# fsync-before-ack twin loses none over the same seeds. The same for
# kv_store.py, a Python twin that also makes its directory (os.makedirs)
# and fsyncs only its file. A crash's disk
# decisions come from the seed (one seed, one hash).
. "$(dirname "$0")/lib.sh"
prog=$(build kv_ack)
# The check reads the store's output across its incarnations: a "recovered
# N" below the last ack before it means an acknowledged write was lost.
cat >"$TMP/check.sh" <<'SH'
awk '/^ack /{a=$2} /^recovered /{if ($2 < a) {print "LOST: acked " a ", recovered " $2; bad=1}} END{exit bad}' kv.stdout || exit 1
[ -s kv.stdout ] || exit 1
SH
conf() {
    write_conf "$TMP/$1.conf" <<CONF
[simulation]
duration = 60s
[machine kv]
command = exec ${3:-$prog $2 /var/tmp/kv.dat}
command-after-restart = exec ${3:-$prog $2 /var/tmp/kv.dat}
[chaos]
machines = kv
crash = 2s
crash_down = 100ms..500ms
[check]
command = sh $TMP/check.sh
CONF
}
conf lazy ""
conf durable --fsync
conf pylazy "" "/usr/bin/python3 $PROGS/kv_store.py /var/lib/kv"
conf pydurable "" "/usr/bin/python3 $PROGS/kv_store.py --fsync /var/lib/kv"
timeout -k 5 300 "$DSIM" run "$TMP/lazy.conf" --seeds 1-30 >"$TMP/lazy.out"
[ $? = 1 ] || { cat "$TMP/lazy.out"; fail "ack-before-fsync never lost an acknowledged write"; }
seed=$(sed -n 's/^seed \([0-9]*\) FAILED: the check command failed.*/\1/p' "$TMP/lazy.out" | head -n 1)
[ -n "$seed" ] || { cat "$TMP/lazy.out"; fail "the lazy store failed for another reason"; }
timeout -k 5 300 "$DSIM" run "$TMP/durable.conf" --seeds 1-30 --keep-going >"$TMP/durable.out" ||
    { grep -A3 FAILED "$TMP/durable.out"; fail "fsync-before-ack lost an acknowledged write"; }
h=$(timeout -k 5 60 "$DSIM" verify "$TMP/lazy.conf" --seed "$seed" --runs 2 | tail -n 1)
[ ${#h} = 32 ] || fail "seed $seed did not replay with one hash"
timeout -k 5 60 "$DSIM" replay "$TMP/lazy.conf" "$seed" --trace "$TMP/t.gz" >/dev/null
"$DSIM" trace "$TMP/t.gz" --syscall disk: | grep -Eq "kv.dat (rolled back|lost|torn)" || fail "no disk decision in the trace"
timeout -k 5 300 "$DSIM" run "$TMP/pylazy.conf" --seeds 1-30 -j 2 >"$TMP/pylazy.out"
[ $? = 1 ] || { cat "$TMP/pylazy.out"; fail "the Python store without fsync never lost an acknowledged write"; }
grep -q "^seed [0-9]* FAILED: the check command failed" "$TMP/pylazy.out" || { cat "$TMP/pylazy.out"; fail "the Python store failed for another reason"; }
timeout -k 5 300 "$DSIM" run "$TMP/pydurable.conf" --seeds 1-30 -j 2 --keep-going >"$TMP/pydurable.out" ||
    { grep -A3 FAILED "$TMP/pydurable.out"; fail "the Python store with fsync lost an acknowledged write"; }
note "ack-before-fsync lost a write at seed $seed; fsync-before-ack lost none in 30 seeds (C and Python)"
