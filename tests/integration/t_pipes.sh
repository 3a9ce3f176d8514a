#!/bin/bash
# pipe_threads.c under dsim: two threads ping-pong 1000 messages over two
# pipes with blocking reads and writes, and one write() of 1 MiB -- far more
# than a pipe holds -- blocks until another thread, reading 1000 bytes at a
# time, has drained it; it returns the full count and every byte arrives.
# Same output as native on every seed; one seed gives one hash; the schedule
# (hash) follows the seed.
. "$(dirname "$0")/lib.sh"
dsim_timeout

prog=$(build pipe_threads) || exit 1
native_ok --runs 3 "$prog"
grep -qx 'ping-pong: 1000 round trips, sum of replies 1000000' "$TMP/native.out" || fail "native: ping-pong totals"
grep -qx 'bulk: one write() of 1048576 bytes returned 1048576' "$TMP/native.out" || fail "native: bulk write"
grep -qx 'bulk: read 1048576 bytes in chunks of at most 1000' "$TMP/native.out" || fail "native: bulk read"
h1=$(dsim_as_native --varies "$prog") || exit 1
note "seed 1 hash $h1"
note "ok"
