#!/bin/bash
# The CPU's clock and random numbers read without a system call (rdtsc,
# rdtscp, rdrand, rdseed; in threads, forked children, code loaded with
# dlopen and code made executable with mprotect) and the vDSO called
# directly: under dsim every value is the seed's, the same on every run.
# The rewrite path is forced here on every host; where the host makes rdtsc
# fault, the fault path must give the same hashes, and where it does not,
# tsc = trap is refused.
. "$(dirname "$0")/lib.sh"
hw=$(build hw_reads)
vd=$(build vdso_direct)
cl=$(build code_loaded)
lib="$BIN/libtsc.so"
cc -O1 -shared -fPIC -o "$lib" "$PROGS/tsc_lib.c" || fail "cannot build libtsc.so"

# Natively: each program runs and says what it read.
"$hw" >"$TMP/native_hw.out" || fail "hw_reads failed natively"
grep -q '^child status 0$' "$TMP/native_hw.out" || fail "hw_reads: $(cat "$TMP/native_hw.out")"
"$vd" >"$TMP/native_vd.out" || fail "vdso_direct failed natively: $(cat "$TMP/native_vd.out")"
"$cl" "$lib" >"$TMP/native_cl.out" || fail "code_loaded failed natively"
for k in 'dlopen rdtsc' 'mprotect rdtsc' 'dlopen rdrand' 'mprotect rdrand'; do
    grep -q "^$k " "$TMP/native_cl.out" || fail "native code_loaded lacks $k"
done

# run_all MODE SEED: the three programs under dsim; outputs in
# $TMP/MODE.SEED.*, hashes printed on one line.
run_all() {
    local mode=$1 seed=$2 hashes=""
    EXEC_OPTS="--tsc $mode" dsim_exec "$seed" "$hw" --all >"$TMP/$mode.$seed.hw" || { cat "$TMP/exec.err" >&2; fail "hw_reads ($mode)"; }
    hashes="$(exec_hash)"
    EXEC_OPTS="--tsc $mode" dsim_exec "$seed" "$vd" >"$TMP/$mode.$seed.vd" || { cat "$TMP/exec.err" >&2; fail "vdso_direct ($mode)"; }
    hashes="$hashes $(exec_hash)"
    EXEC_OPTS="--tsc $mode" dsim_exec "$seed" "$cl" "$lib" >"$TMP/$mode.$seed.cl" || { cat "$TMP/exec.err" >&2; fail "code_loaded ($mode)"; }
    echo "$hashes $(exec_hash)"
}

r1=$(run_all rewrite 1) || exit 1
for f in hw vd cl; do cp "$TMP/rewrite.1.$f" "$TMP/first.$f"; done
r1b=$(run_all rewrite 1) || exit 1
[ "$r1" = "$r1b" ] || fail "seed 1 (rewrite): hashes differ between runs: $r1 vs $r1b"
for f in hw vd cl; do
    cmp -s "$TMP/first.$f" "$TMP/rewrite.1.$f" || fail "seed 1 (rewrite): $f output differs between runs"
done
note "rewrite: seed 1 hashes $r1"

# The values are the machine's: a 1 GHz TSC counting from 100 s of uptime,
# CPU 0, the epoch's wall clock; rdrand and rdseed succeed.
val() { sed -n "s/^$1 //p" "$2"; }
tsc=$(val 'main rdtsc' "$TMP/first.hw")
[ -n "$tsc" ] && [ "$tsc" -ge 100000000000 ] && [ "$tsc" -lt 101000000000 ] || fail "main rdtsc is not virtual: $tsc"
for who in main thread child; do
    [ "$(val "$who rdtsc_moves" "$TMP/first.hw")" = 1 ] || fail "$who: rdtscp did not follow rdtsc"
    val "$who rdtscp" "$TMP/first.hw" | grep -q ' aux 0$' || fail "$who: rdtscp's aux is not cpu 0"
    val "$who rdrand" "$TMP/first.hw" | grep -q '^1 ' || fail "$who: rdrand did not succeed"
    val "$who rdrand16" "$TMP/first.hw" | grep -q '^1 ' || fail "$who: 16-bit rdrand did not succeed"
    val "$who rdseed" "$TMP/first.hw" | grep -q '^1 ' || fail "$who: rdseed did not succeed"
done
grep -q '^results 0 0 0 0 0$' "$TMP/first.vd" || fail "vdso calls failed: $(cat "$TMP/first.vd")"
val monotonic "$TMP/first.vd" | grep -q '^100\.' || fail "vDSO monotonic clock is not virtual: $(val monotonic "$TMP/first.vd")"
val realtime "$TMP/first.vd" | grep -q '^1735689600\.' || fail "vDSO realtime is not the epoch"
val gettimeofday "$TMP/first.vd" | grep -q '^1735689600\.' || fail "vDSO gettimeofday is not the epoch"
[ "$(val time "$TMP/first.vd")" = 1735689600 ] || fail "vDSO time is not the epoch"
[ "$(val cpu "$TMP/first.vd")" = "0 node 0" ] || fail "vDSO getcpu is not cpu 0"
for k in 'dlopen rdtsc' 'mprotect rdtsc'; do
    t=$(val "$k" "$TMP/first.cl" | cut -d' ' -f1)
    [ -n "$t" ] && [ "$t" -ge 100000000000 ] && [ "$t" -lt 101000000000 ] || fail "$k is not virtual: $t"
done
grep -q '^dlopen rdtsc [0-9]* moves 1$' "$TMP/first.cl" || fail "dlopen'd rdtsc did not move"
grep -q '^mprotect rdtsc [0-9]* after 1$' "$TMP/first.cl" || fail "mprotect'ed rdtsc did not move"

# Another seed: other random numbers.
run_all rewrite 2 >/dev/null || exit 1
[ "$(val 'main rdrand' "$TMP/first.hw")" != "$(val 'main rdrand' "$TMP/rewrite.2.hw")" ] || fail "rdrand is the same on seeds 1 and 2"
[ "$(val 'dlopen rdrand' "$TMP/first.cl")" != "$(val 'dlopen rdrand' "$TMP/rewrite.2.cl")" ] || fail "dlopen'd rdrand is the same on seeds 1 and 2"

# tsc = auto gives what rewrite gives (on a host that faults, auto is trap).
ra=$(run_all auto 1) || exit 1
[ "$ra" = "$r1" ] || fail "tsc = auto gives other hashes than rewrite: $ra vs $r1"

if host_traps_rdtsc; then
    rt=$(run_all trap 1) || exit 1
    [ "$rt" = "$r1" ] || fail "tsc = trap gives other hashes than rewrite: $rt vs $r1"
    for f in hw vd cl; do cmp -s "$TMP/first.$f" "$TMP/trap.1.$f" || fail "trap and rewrite: $f output differs"; done
    # dsim arms the fault for itself while machines run (DSIM_SUPERVISOR_TSC):
    # the other branch gives the same hashes and outputs.
    re=$(DSIM_SUPERVISOR_TSC=enable run_all trap 1) || exit 1
    [ "$re" = "$r1" ] || fail "DSIM_SUPERVISOR_TSC=enable gives other hashes: $re vs $r1"
    for f in hw vd cl; do cmp -s "$TMP/first.$f" "$TMP/trap.1.$f" || fail "DSIM_SUPERVISOR_TSC=enable: $f output differs"; done
    # An rdtsc of dsim's own while armed is answered, not a supervisor crash.
    DSIM_TEST_OWN_RDTSC=1 EXEC_OPTS="--tsc trap" dsim_exec 1 "$hw" --all >"$TMP/own.hw" ||
        { cat "$TMP/exec.err" >&2; fail "dsim's own rdtsc, armed: the run failed"; }
    [ "$(exec_hash)" = "${r1%% *}" ] || fail "dsim's own rdtsc, armed: hash $(exec_hash), not ${r1%% *}"
    note "this host faults rdtsc: trap and rewrite agree, with dsim's own rdtsc faulting or not"
else
    refused_here "--tsc trap" 'does not fault' "tsc = trap on a host whose rdtsc does not fault"
    note "this host does not fault rdtsc: tsc = trap is refused"
fi

# The setting in a cluster.conf, and a bad value.
write_conf "$TMP/tsc.conf" <<CONF
[simulation]
duration = 5s
tsc = rewrite
[machine main]
command = $hw --all; $vd; $cl $lib
CONF
h=$(one_hash "$TMP/tsc.conf" 1) || exit 1
# The same under replay, and replay --output, as under verify.
hr=$(timeout -k 5 60 "$DSIM" replay "$TMP/tsc.conf" 1 | sed -n 's/^trace hash //p')
ho=$(timeout -k 5 60 "$DSIM" replay "$TMP/tsc.conf" 1 --output "$TMP/out" | sed -n 's/^trace hash //p')
[ "$hr" = "$h" ] && [ "$ho" = "$h" ] || fail "verify $h, replay $hr, replay --output $ho"
grep -q '^main rdtsc 1000' "$TMP/out/seed-1/main.stdout" || fail "replay --output: $(head -3 "$TMP/out/seed-1/main.stdout")"
DSIM_SUPERVISOR_TSC=sometimes "$DSIM" exec -- /bin/true 2>"$TMP/sup.err"
[ $? = 2 ] || fail "a bad DSIM_SUPERVISOR_TSC was not refused with status 2"
grep -q 'DSIM_SUPERVISOR_TSC=sometimes: fault or enable expected' "$TMP/sup.err" || fail "bad DSIM_SUPERVISOR_TSC: $(cat "$TMP/sup.err")"
printf '[simulation]\ntsc = sometimes\n[machine m]\ncommand = true\n' >"$TMP/bad.conf"
"$DSIM" run "$TMP/bad.conf" --seeds 1 >/dev/null 2>"$TMP/bad.err"
[ $? = 2 ] || fail "a bad tsc value was not refused with status 2"
grep -q "bad.conf:2: bad tsc" "$TMP/bad.err" || fail "bad tsc: $(cat "$TMP/bad.err")"
note ok
