#!/bin/bash
# Node.js (libuv's thread pool, V8's platform threads, a worker thread and
# timers): one seed gives one output and one hash; seeds differ in their
# random values; the clock reads dsim's epoch year.
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || fail "node is not installed (.ci/run installs nodejs)"
js="$PROGS/node_workers.js"
native=$(node "$js") || fail "native run failed"
grep -qx "sum 385" <<<"$native" || fail "native output: $native"
same_hash_twice 1 node "$js" >/dev/null || exit 1
grep -qx "sum 385" "$TMP/a.out" || fail "dsim output: $(cat "$TMP/a.out")"
grep -qx "year 2025" "$TMP/a.out" || fail "the clock is not dsim's: $(grep year "$TMP/a.out")"
timeout -k 5 60 "$DSIM" exec --seed 2 -- node "$js" >"$TMP/s2.out" 2>/dev/null || fail "seed 2 failed"
[ "$(grep random "$TMP/a.out")" != "$(grep random "$TMP/s2.out")" ] || fail "seeds 1 and 2 drew the same random values"
