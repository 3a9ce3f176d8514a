#!/bin/bash
# clock_reads = page across machines (clock_machines): a thread of another
# machine cannot be waiting for a thread's clock reads, so while only other
# machines' threads could run, the page answers 4 reads a turn and the
# fifth stops (supervisor/run.c, machine_mates). Two machines that both
# spin on the clock for 20 ms: each one's reads stop about once in five
# (about every read did before, about one in 64 when a thread runs
# alone). A machine that spins while another sleeps 1 ms ten times: the
# sleeper, woken, waits for its turn at most a few short turns (with 64
# reads a turn it woke 2.6 to 5.2 ms late). Both print what they print
# natively; one seed, one hash; seeds differ.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build clock_machines)
for args in "spin 20" "sleep 10"; do
    # shellcheck disable=SC2086
    "$prog" $args >"$TMP/native.out" || fail "clock_machines $args failed natively"
    tail -n 1 "$TMP/native.out" | grep -qx ok || fail "natively, $args: $(cat "$TMP/native.out")"
done

conf() {    # conf FILE COMMAND_B
    printf '[simulation]\nduration = 10s\n[machine a]\ncommand = %s spin 20\n[machine b]\ncommand = %s\n' \
        "$prog" "$2" >"$1"
}
conf "$TMP/spin.conf" "$prog spin 20"
conf "$TMP/sleep.conf" "$prog sleep 10"

h1=$(one_hash "$TMP/spin.conf" 1) h2=$(one_hash "$TMP/spin.conf" 2)
[ "$h1" != "$h2" ] || fail "seeds 1 and 2 of two spinning machines give one hash: $h1"
one_hash "$TMP/sleep.conf" 1 >/dev/null

"$DSIM" run "$TMP/spin.conf" --seeds 1 --trace "$TMP/spin.gz" --output "$TMP/out" >"$TMP/run.out" 2>&1 ||
    { cat "$TMP/run.out" >&2; fail "two spinning machines: the run failed"; }
for m in a b; do
    [ "$(cat "$TMP/out/seed-1/$m.stdout")" = "$(printf 'reads many\nok')" ] || fail "machine $m: $(cat "$TMP/out/seed-1/$m.stdout")"
    stops=$("$DSIM" trace "$TMP/spin.gz" --machine $m --syscall clock_gettime | grep -c 'clock_gettime(')
    note "machine $m: $stops of its clock reads stopped while the other machine spun"
    # ~1000 reads each (20 ms of world time at 10 us a read, shared): ~200
    # stops at 4 reads a turn; every read stopped before, ~16 at 64.
    [ "$stops" -ge 100 ] || fail "machine $m: only $stops of its reads stopped: the other machine waited for 64 of them"
    [ "$stops" -le 400 ] || fail "machine $m: $stops of its reads stopped: another machine's threads still make every read a stop"
done

lates=""
for seed in 1 2 3 4 5 6 7 8; do
    rm -rf "$TMP/out"
    "$DSIM" run "$TMP/sleep.conf" --seeds $seed --output "$TMP/out" >"$TMP/run.out" 2>&1 ||
        { cat "$TMP/run.out" >&2; fail "seed $seed: the run failed"; }
    late=$(sed -n 's/^late \([0-9]*\) us$/\1/p' "$TMP/out/seed-$seed/b.stdout")
    [ -n "$late" ] && tail -n 1 "$TMP/out/seed-$seed/b.stdout" | grep -qx ok || fail "seed $seed: $(cat "$TMP/out/seed-$seed/b.stdout")"
    [ "$late" -le 1000 ] || fail "seed $seed: the sleeper woke $late us late: the spinner's turns are long"
    lates="$lates $late"
done
note "the sleeper beside a spinning machine woke late by at most (us):$lates"
