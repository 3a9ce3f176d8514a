#!/bin/bash
# Events are hashed as compact binary records and their text is made only
# when someone reads it: the text a trace file shows for each kind of
# argument (paths, NULL, a path cut at 95 bytes, flags, futex ops, an
# ioctl's int or pointer, results and errors) is the canonical text, word for
# word; one seed gives one hash, with or without a trace file, and another
# seed (another schedule of the same calls) its own.
. "$(dirname "$0")/lib.sh"
prog=$(build trace_args)
"$DSIM" exec --seed 1 --trace "$TMP/t.gz" -- "$prog" >"$TMP/out" 2>"$TMP/err" || fail "trace_args failed: $(cat "$TMP/err")"
grep -qx 'trace_args: done' "$TMP/out" || fail "trace_args did not finish"
traced=$(sed -n 's/^dsim: trace hash //p' "$TMP/err")
gzip -dc "$TMP/t.gz" | grep -v '^  |' | cut -d' ' -f4- >"$TMP/events"
long=/$(printf 'a%.0s' $(seq 94))
for want in \
    'openat(-100, "/nonexistent/trace-args", 0x80000, 0)' \
    'openat(-100, NULL, 0, 0)' \
    "openat(-100, \"$long\", 0, 0)" \
    'openat(-7, "rel", 0x41, 0x1a0)' \
    'futex(p, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) = 0' \
    'futex(p, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0xffffffff) = -1 EAGAIN' \
    'futex(p, 0x7f, 0, NULL, NULL, 0) = -1 ENOSYS' \
    'ioctl(99, 0x5421, 0x1)' \
    'ioctl(99, 0x5413, p)' \
    'lseek(99, -5, 1)' \
    'kill(0, 0) = 0' \
    'exit_group(0)'; do
    grep -qxF "$want" "$TMP/events" || fail "no event: $want"
done
h1=$(same_hash_twice 1 "$prog")
[ "$h1" = "$traced" ] || fail "a trace file changed the hash: $traced vs $h1"
h2=$(same_hash_twice 2 "$prog")
[ -n "$h2" ] && [ "$h2" != "$h1" ] || fail "seeds 1 and 2 gave one hash ($h1)"
exit 0
