#!/bin/bash
# examples/election: five CPython nodes elect a leader over UDP while a
# partition cuts two of them off from 2 s to 5 s; the planted bug grants a
# second vote in one term. A sweep stops at a seed whose check finds two
# leaders in one term; the seed replays to the sweep's hash (two runs); the
# fixed nodes (one vote per term) pass every seed up to it (at least 1-4).
# A node refuses to start beside a second network interface.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/example.sh"
net_dsim_wrapper 600
D=$SRCDIR/examples/election
# The programs refuse to run where any interface but lo is up.
example_refuses_real_network python3 "$D/election.py" n1 n1,n2,n3,n4,n5 7700 1

read -r seed hash < <(example_first_failure "$D/cluster.conf" 1-20 "the check command failed (exit status 1)")
[ -n "$seed" ] || exit 1
grep -Eq '^    term [0-9]+: [2-5] leaders, n[1-5]( and n[1-5])+$' "$TMP/sweep.out" ||
    { cat "$TMP/sweep.out" >&2; fail "the report shows no term with two leaders"; }
example_replays "$D/cluster.conf" "$seed" "$hash"
example_all_pass "$D/fixed.conf" "1-$((seed > 4 ? seed : 4))"
note "buggy: seed $seed: $(grep -m1 -Eo 'term [0-9]+: [2-5] leaders.*' "$TMP/sweep.out"), replays to $hash; fixed: seeds 1-$((seed > 4 ? seed : 4)) pass"
