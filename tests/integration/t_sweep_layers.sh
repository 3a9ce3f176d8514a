#!/bin/bash
# A seed's machine is the same whatever its worker ran before: the run
# directories of earlier seeds, still mounted in dsim's namespace while they
# are removed, are no layer of a later seed's disk. They were: the second
# and later seeds of a worker showed one overlay more per earlier run
# directory in /proc/self/mounts, and hashed differently from the same seed
# run alone (dsim replay).
. "$(dirname "$0")/lib.sh"
[ -x "$DSIM" ] || fail "no dsim binary at $DSIM"
write_conf "$TMP/mounts.conf" <<'EOF2'
[machine a]
command = cat /proc/self/mounts
EOF2
timeout -k 5 120 "$DSIM" run "$TMP/mounts.conf" --seeds 1-4 -j 1 --output "$TMP/out" --results "$TMP/res.json" \
    >"$TMP/run.out" 2>&1 || { cat "$TMP/run.out" >&2; fail "the sweep failed"; }
grep -q 'dsim-run\.' "$TMP/out"/seed-*/a.stdout && fail "a machine's mounts show a run directory: $(grep -h "dsim-run\." "$TMP/out"/seed-*/a.stdout | head -n 1)"
for s in 2 3 4; do
    cmp -s "$TMP/out/seed-1/a.stdout" "$TMP/out/seed-$s/a.stdout" || fail "seed $s saw other mounts than seed 1"
done
for s in 1 4; do
    swept=$(grep "\"seed\":$s," "$TMP/res.json" | grep -o '"hash":"[0-9a-f]*"' | cut -d'"' -f4)
    alone=$(timeout -k 5 60 "$DSIM" replay "$TMP/mounts.conf" "$s" 2>&1 | sed -n 's/.*trace hash \([0-9a-f]*\).*/\1/p' | tail -n 1)
    [ -n "$swept" ] && [ "$swept" = "$alone" ] || fail "seed $s: hash $swept in the sweep, $alone alone"
done
note "four seeds in one worker see one mount table, and each hashes as it does alone"
