#!/bin/bash
# Sweeps over parallel workers: -j 2 gives the same results as -j 1, seed for
# seed (the results file without wall times is identical); without
# --keep-going both stop at the same first failing seed; --keep-going
# reports every failure, each (the first five) with where it parted from a
# passing seed; a lone failing seed is compared with a passing seed past
# it; --results has one JSON line per seed.
. "$(dirname "$0")/lib.sh"
# A machine that fails when its first random byte is odd: some seeds pass.
write_conf "$TMP/c.conf" <<'CONF'
[machine coin]
command = b=$(od -An -tu1 -N1 /dev/urandom); echo "byte $b"; [ $((b % 2)) -eq 0 ]
CONF
run() { timeout -k 5 120 "$DSIM" run "$TMP/c.conf" "$@"; }
run --seeds 1-40 -j 1 --keep-going --results "$TMP/j1.jsonl" >"$TMP/j1.out"; [ $? = 1 ] || fail "-j 1 --keep-going: want exit 1"
run --seeds 1-40 -j 2 --keep-going --results "$TMP/j2.jsonl" >"$TMP/j2.out"; [ $? = 1 ] || fail "-j 2 --keep-going: want exit 1"
[ "$(wc -l <"$TMP/j1.jsonl")" = 40 ] || fail "want 40 result lines, got $(wc -l <"$TMP/j1.jsonl")"
strip() { sed 's/,"wall_ms":[0-9]*//' "$1"; }
diff <(strip "$TMP/j1.jsonl") <(strip "$TMP/j2.jsonl") >&2 || fail "-j 1 and -j 2 results differ"
python3 - "$TMP/j1.jsonl" <<'PY' || fail "results file is not one JSON object per seed"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["seed"] for r in rows] == list(range(1, 41))
assert all(re.fullmatch(r"[0-9a-f]{32}", r["hash"]) for r in rows)
assert {r["outcome"] for r in rows} == {"pass", "exit"}, {r["outcome"] for r in rows}
PY
nfail=$(grep -c '"outcome":"exit"' "$TMP/j1.jsonl")
[ "$(grep -c '^seed [0-9]* FAILED' "$TMP/j2.out")" = "$nfail" ] || fail "--keep-going did not report every failure"
grep -q "^dsim: $nfail of 40 seeds failed$" "$TMP/j2.out" || fail "no keep-going summary"
# Stop at the first failure: the same seed and count, in parallel or not.
run --seeds 1-40 -j 1 >"$TMP/s1.out"
run --seeds 1-40 -j 2 >"$TMP/s2.out"
first=$(grep '^failed at seed' "$TMP/s1.out")
[ -n "$first" ] && [ "$first" = "$(grep '^failed at seed' "$TMP/s2.out")" ] || fail "first failure differs: $first"
[ "$(grep -c '^seed [0-9]* FAILED' "$TMP/s2.out")" = 1 ] || fail "-j 2 reported more than the first failure"
run --seeds 1-3 -j 0 >/dev/null 2>&1; [ $? = 2 ] || fail "-j 0 is not a usage error"
run --seeds 1-3 -j 2x >/dev/null 2>&1; [ $? = 2 ] || fail "-j 2x is not a usage error"
run --seeds 18446744073709551616 >/dev/null 2>&1; [ $? = 2 ] || fail "seed 2^64 is not a usage error"
run --seeds 18446744073709551615 >/dev/null 2>&1; [ $? != 2 ] || fail "seed 2^64-1 was refused"
note "$first; $nfail of 40 seeds fail"
# random:N draws N seeds; each reported seed replays to its reported hash.
run --seeds random:5 -j 2 --keep-going --results "$TMP/rand.jsonl" >/dev/null
[ "$(sed -n 's/.*"seed":\([0-9]*\),.*/\1/p' "$TMP/rand.jsonl" | sort -u | wc -l)" = 5 ] || fail "random:5 did not give 5 seeds"
seed=$(sed -n '1s/.*"seed":\([0-9]*\),.*/\1/p' "$TMP/rand.jsonl")
hash=$(sed -n '1s/.*"hash":"\([0-9a-f]*\)".*/\1/p' "$TMP/rand.jsonl")
[ "$(timeout -k 5 60 "$DSIM" replay "$TMP/c.conf" "$seed" | sed -n 's/^trace hash //p')" = "$hash" ] ||
    fail "random seed $seed does not replay to its hash"
run --seeds random:3 --checkpoint "$TMP/ck" >/dev/null 2>&1; [ $? = 2 ] || fail "random seeds were checkpointed"
# The first failure's report says where it parted from the nearest passing
# seed; dsim diff says the same for any two seeds.
grep -q "^  seed [0-9]*: first divergence from the nearest passing seed, [0-9]*:$" "$TMP/s1.out" || fail "no divergence in the report"
# With --keep-going, each failing seed's (the first five).
want=$(( nfail < 5 ? nfail : 5 ))
[ "$(grep -c ': first divergence from the nearest passing seed' "$TMP/j2.out")" = "$want" ] ||
    fail "--keep-going: want $want divergences: $(grep -c 'first divergence' "$TMP/j2.out")"
# A sweep of one failing seed compares it with a passing seed outside it.
f=$(echo "$first" | sed 's/failed at seed \([0-9]*\).*/\1/')
run --seeds "$f" >"$TMP/one.out"
grep -q "^  seed $f: first divergence from a passing seed outside the sweep, [0-9]*:$" "$TMP/one.out" ||
    { cat "$TMP/one.out"; fail "a lone failing seed was not compared with a passing one"; }
grep -Eq "^  runs agree for [0-9]+ events; then passing seed [0-9]+ ran:$" "$TMP/s1.out" || fail "no agreement count"
timeout -k 5 60 "$DSIM" diff "$TMP/c.conf" 5 5 >"$TMP/d.out"; [ $? = 0 ] || fail "diff of a seed with itself is not 0"
grep -Eq "ran the same [0-9]+ events" "$TMP/d.out" || fail "diff of a seed with itself: $(cat "$TMP/d.out")"
timeout -k 5 60 "$DSIM" diff "$TMP/c.conf" 5 6 >"$TMP/d.out"; [ $? = 1 ] || fail "diff of two seeds is not 1"
grep -Eq "runs agree for [0-9]+ events; then seed 5 ran:" "$TMP/d.out" || fail "diff output: $(cat "$TMP/d.out")"
# A machine's stderr may hold any bytes: the JUnit file stays valid XML and
# the results line keeps the report (invalid UTF-8 becomes U+FFFD).
write_conf "$TMP/evil.conf" <<'CONF'
[machine m]
command = printf 'bad \377\376 bytes \033[31mred\033[0m \300\200\n' >&2; exit 3
CONF
timeout -k 5 60 "$DSIM" run "$TMP/evil.conf" --seeds 1 --junit "$TMP/evil.xml" --results "$TMP/evil.jsonl" >/dev/null
python3 - "$TMP/evil.xml" "$TMP/evil.jsonl" <<'PY' || fail "invalid UTF-8 in stderr broke the JUnit or results file"
import json, sys, xml.etree.ElementTree as ET
ET.parse(sys.argv[1])
r = [json.loads(l) for l in open(sys.argv[2])]
assert len(r) == 1 and "bad \ufffd\ufffd bytes" in r[0]["report"], r
PY
note "invalid UTF-8 in a machine's stderr: valid JUnit and results"
