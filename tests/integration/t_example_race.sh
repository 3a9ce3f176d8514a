#!/bin/bash
# The flagship example (examples/race, what quickstart.sh runs): a lost
# update that most seeds miss and some hit. Over seeds 1-100 some pass and
# some fail (the program exits 1, one progress line printed twice); the
# quick start's sweep stops at the first failing seed after passing ones, and
# its report shows where that seed parted from a passing one; the seed
# replays to one trace hash (dsim verify, 3 runs) and fails again alone.
. "$(dirname "$0")/lib.sh"
CONF=$SRCDIR/examples/race/cluster.conf
[ -x "$SRCDIR/examples/race/counter" ] || fail "examples/race/counter is not built (make builds it)"
run() { timeout -k 5 300 "$DSIM" "$@"; }

# All 100 seeds: some pass, some fail, and every failure is a lost update.
run run "$CONF" --seeds 1-100 -j 2 --keep-going --results "$TMP/all.jsonl" >"$TMP/all.out" 2>&1
[ $? = 1 ] || { tail -n 20 "$TMP/all.out" >&2; fail "seeds 1-100 with --keep-going: expected exit 1"; }
[ "$(wc -l <"$TMP/all.jsonl")" = 100 ] || fail "not 100 results"
npass=$(grep -c '"outcome":"pass"' "$TMP/all.jsonl")
nfail=$((100 - npass))
[ "$npass" -ge 50 ] && [ "$nfail" -ge 3 ] ||
    fail "seeds 1-100: $npass pass, $nfail fail: want most to pass and some to fail"
[ "$(grep -c '"reason":"machine counter exited with status 1"' "$TMP/all.jsonl")" = "$nfail" ] ||
    fail "a seed failed for another reason than a lost update"
first=$(grep -v '"outcome":"pass"' "$TMP/all.jsonl" | head -n 1 | sed 's/^{"seed":\([0-9]*\),.*/\1/')
[ "$first" -gt 1 ] || fail "seed 1 fails: the quick start would show no passing seed before it"

# The quick start's sweep: it stops at that seed, after passing ones, and
# shows the lost update and where the seed parted from a passing one.
run run "$CONF" --seeds 1-100 >"$TMP/qs.out" 2>&1
[ $? = 1 ] || { cat "$TMP/qs.out" >&2; fail "the quick start's sweep: expected exit 1"; }
grep -qx "seed $first FAILED: machine counter exited with status 1" "$TMP/qs.out" ||
    { cat "$TMP/qs.out" >&2; fail "the quick start's sweep did not stop at seed $first"; }
passed="$((first - 1)) seeds"
[ "$first" = 2 ] && passed="1 seed"
grep -qx "failed at seed $first ($passed passed first)" "$TMP/qs.out" ||
    fail "the summary: $(tail -n 1 "$TMP/qs.out")"
[ "$(grep -cx '    progress: 50' "$TMP/qs.out")" = 2 ] || fail "the report does not show progress 50 printed twice"
grep -qx '    counter: lost 1 update: counter = 99 (expected 100)' "$TMP/qs.out" || fail "the report does not show the lost update"
grep -Eq "^  seed $first: .*passing seed" "$TMP/qs.out" ||
    { cat "$TMP/qs.out" >&2; fail "the report does not say where seed $first parted from a passing seed"; }
hash=$(sed -n "s/.*, trace hash \([0-9a-f]*\)$/\1/p" "$TMP/qs.out" | head -n 1)

# The quick start's verify: one hash, the sweep's; the seed fails alone.
run verify "$CONF" --seed "$first" --runs 3 >"$TMP/verify.out" 2>&1 || { cat "$TMP/verify.out" >&2; fail "verify of seed $first"; }
[ "$(tail -n 1 "$TMP/verify.out")" = "$hash" ] || fail "verify: $(tail -n 1 "$TMP/verify.out"), the sweep had $hash"
run replay "$CONF" "$first" >"$TMP/replay.out" 2>&1
[ $? = 1 ] && grep -qx "trace hash $hash" "$TMP/replay.out" || { cat "$TMP/replay.out" >&2; fail "replay of seed $first"; }
note "seeds 1-100: $npass pass, $nfail fail (first: $first, hash $hash, replayed 4 times)"
