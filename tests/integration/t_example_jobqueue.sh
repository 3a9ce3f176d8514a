#!/bin/bash
# examples/jobqueue: a queue, a bank and two workers (CPython, TCP) under
# [chaos] crashes and partitions; every job must be paid exactly once. With
# the planted bug (credit, then ack: at least once) a sweep stops at a seed
# where a fault fired and the check finds a job credited twice; the seed
# replays to the sweep's hash (two runs); with the idempotent bank every
# seed up to it (at least 1-4) passes. The bank refuses to start beside a
# second network interface.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/example.sh"
net_dsim_wrapper 600
D=$SRCDIR/examples/jobqueue
# The programs refuse to run where any interface but lo is up.
example_refuses_real_network python3 "$D/jobqueue.py" bank 7100

read -r seed hash < <(example_first_failure "$D/cluster.conf" 1-20 "the check command failed (exit status 1)")
[ -n "$seed" ] || exit 1
grep -Eq '^    [0-9.]+s chaos-[a-z]+-[0-9]+: ' "$TMP/sweep.out" || fail "no fault fired in seed $seed"
grep -Eq '^    job [0-9]+ credited [2-9] times \(by w[12](, w[12])+\)$' "$TMP/sweep.out" ||
    { cat "$TMP/sweep.out" >&2; fail "the report shows no job credited twice"; }
example_replays "$D/cluster.conf" "$seed" "$hash"
example_all_pass "$D/fixed.conf" "1-$((seed > 4 ? seed : 4))"
note "buggy: seed $seed: $(grep -m1 -Eo 'job [0-9]+ credited [2-9] times.*' "$TMP/sweep.out"), replays to $hash; fixed: seeds 1-$((seed > 4 ? seed : 4)) pass"
