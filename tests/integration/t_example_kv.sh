#!/bin/bash
# examples/kv: a store that acknowledges writes, crashed by [chaos]. Without
# fsync, a sweep stops at a seed where a crash fired and the check finds an
# acknowledged write lost at the next start; the seed replays to the sweep's
# hash (two runs); with fsync before each acknowledgement, seeds 1-30 (and
# the failing seed) all pass.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/example.sh"
D=$SRCDIR/examples/kv
[ -x "$D/kv" ] || fail "examples/kv/kv is not built (make builds it)"

read -r seed hash < <(example_first_failure "$D/cluster.conf" 1-30 "the check command failed (exit status 1)")
[ -n "$seed" ] || exit 1
grep -Eq '^    [0-9.]+s chaos-crash-[0-9]+: crash of kv' "$TMP/sweep.out" || fail "no crash fired in seed $seed"
grep -Eq '^    LOST: key[0-9]+\.\.key[0-9]+ were acknowledged, but restart [0-9]+ recovered only [0-9]+ keys$' "$TMP/sweep.out" ||
    { cat "$TMP/sweep.out" >&2; fail "the report shows no lost acknowledged write"; }
example_replays "$D/cluster.conf" "$seed" "$hash"
example_all_pass "$D/fixed.conf" "1-$((seed > 30 ? seed : 30))"
note "no fsync: seed $seed $(grep -m1 -o 'LOST: .*' "$TMP/sweep.out"), replays to $hash; fsync: seeds 1-$((seed > 30 ? seed : 30)) pass"
