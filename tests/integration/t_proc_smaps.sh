#!/bin/bash
# /proc/PID/smaps and smaps_rollup tell a process's memory in dsim's model
# of resident memory (status's VmRSS: private writable memory and the stack
# anonymous and dirty, code file-backed and clean, nothing shared), not the
# host's counts, which follow its page cache, fault-around and THP setting,
# and other processes' sharing (Pss). One output per seed; smaps' mapping
# lines are maps' lines; the rollup is the sum of smaps; 6.1's fields, and
# no ProtectionKey (the virtual CPU has no PKU). oom_score is Linux's
# formula over that memory and the machine's 4 GiB (not the host's RAM).
. "$(dirname "$0")/lib.sh"
sv=$(build smaps_view)
"$sv" >"$TMP/native.out" || fail "smaps_view failed natively"
grep -q '^mappings [0-9]*, smaps lines as maps yes' "$TMP/native.out" || fail "natively: $(cat "$TMP/native.out")"
same_hash_twice 1 "$sv" >/dev/null || exit 1
out="$TMP/a.out"
grep -q '^mappings [0-9]*, smaps lines as maps yes, protection keys 0$' "$out" || fail "headers: $(sed -n 2p "$out")"
want="fields: Size: KernelPageSize: MMUPageSize: Rss: Pss: Pss_Dirty: Shared_Clean: Shared_Dirty: Private_Clean: Private_Dirty: Referenced: Anonymous: LazyFree: AnonHugePages: ShmemPmdMapped: FilePmdMapped: Shared_Hugetlb: Private_Hugetlb: Swap: SwapPss: Locked: THPeligible: VmFlags:"
[ "$(head -n 1 "$out")" = "$want" ] || fail "smaps fields: $(head -n 1 "$out")"
while read -r field _ rollup _ sum; do
    [ "$rollup" = "$sum" ] || fail "$field: rollup $rollup, the sum of smaps $sum"
done < <(grep ' rollup ' "$out")
val() { sed -n "s/^$1 rollup \([0-9]*\) .*/\1/p" "$out"; }
rss=$(val Rss:)
[ "$rss" -gt 0 ] || fail "no resident memory: $(cat "$out")"
[ "$rss" = "$(sed -n 's/^VmRSS //p' "$out")" ] || fail "Rss $rss is not status's VmRSS $(sed -n 's/^VmRSS //p' "$out")"
[ "$(val Pss:)" = "$rss" ] || fail "Pss is not Rss: nothing is shared in the model"
[ "$(val Shared_Clean:)" = 0 ] || fail "Shared_Clean: $(val Shared_Clean:)"
[ $(( $(val Private_Dirty:) + $(val Private_Clean:) )) = "$rss" ] || fail "private memory is not Rss"
[ "$(val Anonymous:)" = "$(val Private_Dirty:)" ] || fail "anonymous memory is not the dirty memory"
grep -q '^oom_score_adj 0 oom_score 666$' "$out" || fail "oom_score: $(grep oom_score "$out")"
grep -q '^oom_score_adj 500 oom_score 1000$' "$out" || fail "oom_score at 500: $(grep oom_score "$out")"
# Another seed: the same memory (nothing in it depends on the seed).
dsim_exec 2 "$sv" >"$TMP/seed2.out" || fail "seed 2 failed"
cmp -s "$TMP/seed2.out" "$out" || fail "seed 2 shows other memory"
note "smaps and smaps_rollup in the model: Rss $rss kB = VmRSS, Pss = Rss, the rollup the sum of smaps"
