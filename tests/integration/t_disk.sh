#!/bin/bash
# Each machine writes to a disk of its own (an overlay of the host's files):
# nothing it writes appears on the host, in another machine, or in the next
# run, and what it made durable (sync) survives its crash within the run.
. "$(dirname "$0")/lib.sh"
f="/tmp/dsim-disk-test-$$"
write_conf "$TMP/c.conf" <<CONF
[simulation]
duration = 30s
[machine a]
command = echo mine > $f; echo shm > /dev/shm/dsim-disk-test-$$; sleep 2; cat $f; cat $f.b 2>/dev/null || echo "no b file"
[machine b]
command = sleep 1; echo theirs > $f.b; cat $f 2>/dev/null || echo "no a file"
[machine c]
command = echo "before the crash" > $f.c; sync; sleep 100
command-after-restart = cat $f.c; echo runs >> $f.count; wc -l < $f.count
[fault power]
kind = crash
at = 3s
machine = c
duration = 1s
CONF
timeout -k 5 60 "$DSIM" run "$TMP/c.conf" --seeds 1 -j 1 --output "$TMP/out" >"$TMP/run.out" || { cat "$TMP/run.out"; fail "the seed failed"; }
o="$TMP/out/seed-1"
[ "$(cat "$o/a.stdout")" = "$(printf 'mine\nno b file')" ] || fail "machine a saw: $(cat "$o/a.stdout")"
[ "$(cat "$o/b.stdout")" = "no a file" ] || fail "machine b saw a's file: $(cat "$o/b.stdout")"
[ "$(cat "$o/c.stdout")" = "$(printf 'before the crash\n1')" ] || fail "machine c after its crash: $(cat "$o/c.stdout")"
for x in "$f" "$f.b" "$f.c" "$f.count" "/dev/shm/dsim-disk-test-$$"; do
    [ ! -e "$x" ] || { rm -f "$x"; fail "$x reached the host"; }
done
# A second run starts from the host's files again: the count is 1 again.
timeout -k 5 60 "$DSIM" run "$TMP/c.conf" --seeds 1 -j 1 --output "$TMP/out2" >/dev/null || fail "second run failed"
[ "$(tail -n 1 "$TMP/out2/seed-1/c.stdout")" = 1 ] || fail "a run saw the previous run's writes"
h=$(timeout -k 5 60 "$DSIM" verify "$TMP/c.conf" --seed 1 --runs 2 | tail -n 1)
[ ${#h} = 32 ] || fail "verify disagreed: $h"
