#!/bin/bash
# cpuid tells a machine dsim's virtual CPU (code/vcpu.h), not the host's:
# in main, a thread, a forked child, an exec'd program and code loaded with
# dlopen; glibc's cache sizes and ifunc choices follow it, and a program
# cannot turn cpuid's fault off to see the host's. The rewrite path is
# forced here on every host; where the host has CPUID faulting, the fault
# path (and with the supervisor's own fault off, and a cpuid of dsim's own
# while armed) gives the same output and hashes; where it has not, cpuid =
# trap is refused. cpuid = host shows the host's CPU.
. "$(dirname "$0")/lib.sh"
cv=$(build cpuid_view)
lib="$BIN/libcpuid.so"
cc -O1 -shared -fPIC -o "$lib" "$PROGS/cpuid_lib.c" || fail "cannot build libcpuid.so"

# Natively: the host's CPU, every line there.
"$cv" "$lib" >"$TMP/native.out" || fail "cpuid_view failed natively"
grep -q '^exec status 0$' "$TMP/native.out" || fail "native run: $(cat "$TMP/native.out")"
keys() { awk '{ print $1, $2, ($2 == "leaf" ? $3 : "") }' "$1"; }

h1=$(EXEC_OPTS="--cpuid rewrite" same_hash_twice 1 "$cv" "$lib") || exit 1
out="$TMP/a.out"
cp "$out" "$TMP/rewrite.out"
[ "$(keys "$out")" = "$(keys "$TMP/native.out")" ] || fail "under dsim the program printed other lines than natively"
val() { sed -n "s/^$1 //p" "$out"; }
[ "$(val 'main vendor')" = "GenuineIntel max 11" ] || fail "vendor: $(val 'main vendor')"
[ "$(val 'main brand')" = "dsim virtual CPU" ] || fail "brand: $(val 'main brand')"
# Family 6 model 0; 64-byte clflush lines, 2 logical processors (dsim
# exec's 2 CPUs), APIC id 0; no L3, no leaf 7 features, no XSAVE state.
[ "$(val 'main leaf 1.0' | cut -d' ' -f1-2)" = "00000600 00020800" ] || fail "leaf 1: $(val 'main leaf 1.0')"
[ "$(val 'main leaf 4.3')" = "00000000 00000000 00000000 00000000" ] || fail "an L3 in leaf 4"
[ "$(val 'main leaf 7.0')" = "00000000 00000000 00000000 00000000" ] || fail "leaf 7: $(val 'main leaf 7.0')"
[ "$(val 'main leaf d.0')" = "00000000 00000000 00000000 00000000" ] || fail "leaf d: $(val 'main leaf d.0')"
[ "$(val 'main leaf b.1' | cut -d' ' -f2)" = 00000002 ] || fail "leaf b: $(val 'main leaf b.1')"
[ "$(val sysconf)" = "L1d 32768 assoc 8 line 64 L1i 32768 L2 1048576 L3 0" ] || fail "glibc's caches: $(val sysconf)"
if "$DSIM" doctor | grep -q '^virtual CPU: every feature'; then
    [ "$(val 'main leaf 1.0' | cut -d' ' -f3-4)" = "00982201 178bfbff" ] || fail "leaf 1 features: $(val 'main leaf 1.0')"
    [ "$(val 'main leaf 80000001.0')" = "00000000 00000000 00000001 20100800" ] || fail "extended features"
    [ "$(val supports)" = "sse4.2 1 popcnt 1 avx 0 avx2 0" ] || fail "glibc's features: $(val supports)"
else
    [ "$(val supports | cut -d' ' -f5-)" = "avx 0 avx2 0" ] || fail "glibc's features: $(val supports)"
fi
[ "$(val 'arch_prctl get_cpuid')" = 1 ] || fail "ARCH_GET_CPUID: $(val 'arch_prctl get_cpuid')"
[ "$(val 'arch_prctl set_cpuid 1:')" = "No such device" ] || fail "ARCH_SET_CPUID: $(val 'arch_prctl set_cpuid 1:')"
[ "$(val 'after set brand')" = "dsim virtual CPU" ] || fail "ARCH_SET_CPUID showed the host's CPU"
for who in thread child exec; do
    [ "$(val "$who leaf 1.0")" = "$(val 'main leaf 1.0')" ] || fail "$who: leaf 1 $(val "$who leaf 1.0")"
done
[ "$(grep '^exec ' "$out" | grep -v status | sed 's/^exec /main /')" = "$(grep -E '^main (vendor|brand|leaf)' "$out")" ] ||
    fail "the exec'd program saw another CPU"
[ "$(val 'dlopen leaf0 ebx')" = 756e6547 ] || fail "dlopen'd cpuid: $(val 'dlopen leaf0 ebx')"
# /proc/cpuinfo tells the same CPU, its flags those of leaf 1 and 0x80000001.
dsim_exec 1 /bin/sh -c 'grep -m4 -E "^(vendor_id|model name|flags|cpuid level)" /proc/cpuinfo' >"$TMP/cpuinfo" ||
    fail "reading /proc/cpuinfo"
grep -q $'^vendor_id\t: GenuineIntel$' "$TMP/cpuinfo" || fail "cpuinfo vendor: $(cat "$TMP/cpuinfo")"
grep -q $'^model name\t: dsim virtual CPU$' "$TMP/cpuinfo" || fail "cpuinfo model: $(cat "$TMP/cpuinfo")"
grep -q $'^cpuid level\t: 11$' "$TMP/cpuinfo" || fail "cpuinfo cpuid level: $(cat "$TMP/cpuinfo")"
for f in sse2 pni ssse3 sse4_2 popcnt lahf_lm; do
    grep '^flags' "$TMP/cpuinfo" | grep -qw "$f" || "$DSIM" doctor | grep -q "^virtual CPU: .*lacks.*$f" ||
        fail "cpuinfo lacks $f"
done
for f in avx xsave rdrand hypervisor cpuid_fault; do
    grep '^flags' "$TMP/cpuinfo" | grep -qw "$f" && fail "cpuinfo has $f"
done
# The auxiliary vector's hardware capabilities are the virtual CPU's too,
# in the process's own copy (LD_SHOW_AUXV, getauxval) and in
# /proc/self/auxv, which agree on every entry as natively, with the vDSO
# hidden too (clock_reads = stop).
dsim_exec 1 /bin/sh -c 'LD_SHOW_AUXV=1 /bin/true' >"$TMP/auxv" || fail "LD_SHOW_AUXV"
grep -q '^AT_HWCAP: *178bfbff$' "$TMP/auxv" || "$DSIM" doctor | grep -q '^virtual CPU: .*lacks' ||
    fail "AT_HWCAP: $(grep HWCAP "$TMP/auxv")"
grep -q '^AT_HWCAP2: *0x0$' "$TMP/auxv" || fail "AT_HWCAP2: $(grep HWCAP "$TMP/auxv")"
av=$(build auxv_view)
"$av" >"$TMP/auxv.native" || fail "auxv_view failed natively"
[ "$(grep -c ' agrees$' "$TMP/auxv.native")" = 6 ] || fail "natively: $(cat "$TMP/auxv.native")"
for reads in page stop; do
    EXEC_OPTS="--clock-reads $reads" dsim_exec 1 "$av" >"$TMP/auxv.$reads" || fail "auxv_view ($reads)"
    [ "$(grep -c ' agrees$' "$TMP/auxv.$reads")" = 6 ] || fail "/proc/self/auxv ($reads): $(grep differs "$TMP/auxv.$reads")"
    grep -q '^AT_HWCAP2 0$' "$TMP/auxv.$reads" || fail "auxv_view ($reads): $(cat "$TMP/auxv.$reads")"
done
grep -q '^vdso hidden$' "$TMP/auxv.stop" || fail "clock_reads = stop: the vDSO is named"
# The trace says which code was rewritten.
"$DSIM" exec --seed 1 --cpuid rewrite --trace "$TMP/t.gz" -- "$cv" >/dev/null 2>&1 || fail "traced run failed"
"$DSIM" trace "$TMP/t.gz" | grep -q 'rewritten in .*ld-linux-x86-64.so.2 (cpuid)' || fail "no cpuid rewritten in ld.so"

# cpuid does not depend on the seed; the config's CPUs show in it.
EXEC_OPTS="--cpuid rewrite" dsim_exec 2 "$cv" "$lib" >"$TMP/seed2.out" || fail "seed 2 failed"
cmp -s "$TMP/seed2.out" "$TMP/rewrite.out" || fail "seed 2 saw another CPU"
mkdir "$TMP/conf"
printf '[simulation]\ncpus = 5\ncpuid = rewrite\n[machine m]\ncommand = %s\n' "$cv" >"$TMP/conf/five.conf"
"$DSIM" run "$TMP/conf/five.conf" --seeds 1 --output "$TMP/five" >"$TMP/five.log" 2>&1 || fail "5 CPUs: $(cat "$TMP/five.log")"
five="$TMP/five/seed-1/m.stdout"
grep -q '^main leaf 1.0 00000600 00050800 ' "$five" || fail "5 CPUs: leaf 1 $(grep 'main leaf 1.0' "$five")"
grep -q '^main leaf b.1 00000003 00000005 00000201 ' "$five" || fail "5 CPUs: leaf b $(grep 'main leaf b.1' "$five")"

# Without the clock page (clock_reads = stop) there is no stub in the vDSO
# to arm the fault from: the call is made at the entry point instead.
EXEC_OPTS="--clock-reads stop" dsim_exec 1 "$cv" "$lib" >"$TMP/stop.out" || fail "clock_reads = stop failed"
diff "$TMP/rewrite.out" "$TMP/stop.out" >&2 || fail "clock_reads = stop: another CPU"
# auto: the same output and hash as rewrite.
ha=$(EXEC_OPTS="--cpuid auto" same_hash_twice 1 "$cv" "$lib") || exit 1
[ "$ha" = "$h1" ] || fail "cpuid = auto gives hash $ha, rewrite gave $h1"
cmp -s "$TMP/a.out" "$TMP/rewrite.out" || fail "cpuid = auto: output differs from rewrite"
# DSIM_CPUID_AUTO forces what auto takes.
hf=$(DSIM_CPUID_AUTO=rewrite EXEC_OPTS="--cpuid auto" same_hash_twice 1 "$cv" "$lib") || exit 1
[ "$hf" = "$h1" ] || fail "DSIM_CPUID_AUTO=rewrite gives hash $hf, rewrite gave $h1"
DSIM_CPUID_AUTO=sometimes "$DSIM" exec -- /bin/true 2>"$TMP/bad.err"
[ $? = 2 ] && grep -q 'DSIM_CPUID_AUTO=sometimes' "$TMP/bad.err" || fail "DSIM_CPUID_AUTO=sometimes: not refused"

if "$DSIM" doctor | grep -q '^  CPUID faulting *yes'; then
    ht=$(EXEC_OPTS="--cpuid trap" same_hash_twice 1 "$cv" "$lib") || exit 1
    [ "$ht" = "$h1" ] || fail "cpuid = trap gives hash $ht, rewrite gave $h1"
    cmp -s "$TMP/a.out" "$TMP/rewrite.out" || fail "cpuid = trap: output differs from rewrite"
    # Without the supervisor's own fault armed: the same.
    he=$(DSIM_SUPERVISOR_TSC=enable EXEC_OPTS="--cpuid trap" same_hash_twice 1 "$cv" "$lib") || exit 1
    [ "$he" = "$h1" ] || fail "DSIM_SUPERVISOR_TSC=enable gives hash $he"
    # A cpuid of dsim's own while armed is answered, not a supervisor crash.
    DSIM_TEST_OWN_CPUID=1 EXEC_OPTS="--cpuid trap" dsim_exec 1 "$cv" "$lib" >"$TMP/own.out" ||
        { cat "$TMP/exec.err" >&2; fail "dsim's own cpuid, armed: the run failed"; }
    grep -q 'own cpuid read 0' "$TMP/exec.err" && fail "dsim's own cpuid read 0"
    [ "$(exec_hash)" = "$h1" ] || fail "dsim's own cpuid, armed: hash $(exec_hash), not $h1"
    "$DSIM" doctor | grep -q "^supervisor's cpuid while machines run: faults too" || fail "doctor: no supervisor's cpuid line"
    DSIM_SUPERVISOR_TSC=enable "$DSIM" doctor | grep -q "^supervisor's cpuid while machines run: enabled" ||
        fail "doctor: DSIM_SUPERVISOR_TSC=enable not said for cpuid"
    note "this host has CPUID faulting: trap and rewrite agree"
else
    refused_here "--cpuid trap" 'no CPUID faulting' "cpuid = trap on a host without CPUID faulting"
    note "this host has no CPUID faulting: cpuid = trap is refused"
fi

# cpuid = host: the host's CPU, as natively.
EXEC_OPTS="--cpuid host" dsim_exec 1 "$cv" "$lib" >"$TMP/host.out" || fail "cpuid = host failed"
[ "$(sed -n 's/^main brand //p' "$TMP/host.out")" = "$(sed -n 's/^main brand //p' "$TMP/native.out")" ] ||
    fail "cpuid = host: not the host's brand"
EXEC_OPTS="--cpuid host" dsim_exec 1 /bin/sh -c 'LD_SHOW_AUXV=1 /bin/true' >"$TMP/auxv.host" || fail "LD_SHOW_AUXV"
[ "$(grep HWCAP "$TMP/auxv.host")" = "$(LD_SHOW_AUXV=1 /bin/true | grep HWCAP)" ] || fail "cpuid = host: not the host's AT_HWCAP"
refused_here "--cpuid sometimes" 'bad --cpuid sometimes' "--cpuid sometimes"
note "cpuid tells the virtual CPU in every path; seed 1 hash $h1"
