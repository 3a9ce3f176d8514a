#!/bin/bash
# futex_ops.c under dsim: raw futex() calls give Linux's results --
# EAGAIN on a value mismatch, ETIMEDOUT after a relative or absolute
# (monotonic, realtime) timeout, EINVAL for bitset 0, FUTEX_WAKE counts,
# bitset matching, FUTEX_CMP_REQUEUE moving waiters between words, and every
# FUTEX_WAKE_OP operation and comparison. Same output as native on every
# seed; one seed gives one hash; the schedule (hash) follows the seed.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build futex_ops) || exit 1
native_ok --runs 3 "$prog"
! grep -q FAIL "$TMP/native.out" || fail "native run has FAIL lines"
[ "$(wc -l <"$TMP/native.out")" -ge 30 ] || fail "native output is too short"
h1=$(dsim_as_native --varies "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
