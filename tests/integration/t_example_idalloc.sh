#!/bin/bash
# examples/idalloc: three CPython asyncio processes over TCP; the server
# promises unique ids, with a planted race (read, await, write). A sweep of
# the buggy config stops at a seed whose check finds an id handed out twice;
# that seed replays to the sweep's hash (two runs); the fixed config
# (an asyncio.Lock) passes every seed up to it (at least 1-4). The server
# refuses to start beside a second network interface.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/example.sh"
net_dsim_wrapper 600
D=$SRCDIR/examples/idalloc
# The programs refuse to run where any interface but lo is up.
example_refuses_real_network python3 "$D/idalloc.py" server 7000 2

read -r seed hash < <(example_first_failure "$D/cluster.conf" 1-30 "the check command failed (exit status 1)")
[ -n "$seed" ] || exit 1
grep -Eq '^    duplicate id [0-9]+ \(given to c[12] and c[12]\)$' "$TMP/sweep.out" ||
    { cat "$TMP/sweep.out" >&2; fail "the report shows no duplicate id"; }
example_replays "$D/cluster.conf" "$seed" "$hash"
example_all_pass "$D/fixed.conf" "1-$((seed > 4 ? seed : 4))"
note "buggy: seed $seed hands out $(grep -m1 -o 'duplicate id [0-9]*' "$TMP/sweep.out") twice, replays to $hash; fixed: seeds 1-$((seed > 4 ? seed : 4)) pass"
