#!/bin/bash
# join_many.c under dsim: 50 threads, each doing a few syscalls and meeting
# at a barrier, return i*i; main joins them all and gets the native sum
# (40425), distinct thread ids and one process id on every seed. One seed
# gives one hash; the schedule (hash) follows the seed.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build join_many) || exit 1
native_ok --runs 3 "$prog"
grep -qx 'joined 50 threads, sum of return values 40425' "$TMP/native.out" || fail "native: wrong sum"
h1=$(dsim_as_native --varies "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
