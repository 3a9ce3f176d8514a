#!/bin/bash
# Go (its runtime's threads, futexes, signals for preemption, nanotime via
# clock_gettime once the vDSO is hidden, rdtsc in cputicks): one seed gives
# one output and one hash; the sleep takes 2s of virtual time; the clock
# reads dsim's epoch year; seeds give different schedules.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "go is not installed (.ci/run installs golang-go)"
mkdir -p "$TMP/go"
cp "$PROGS"/go_goroutines/* "$TMP/go/"
(cd "$TMP/go" && HOME="$TMP" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GOPROXY=off GOFLAGS=-mod=mod \
    go build -o "$TMP/gt" .) || fail "go build failed"
"$TMP/gt" | grep -q "^total 28 " || fail "native run failed"
same_hash_twice 1 "$TMP/gt" >/dev/null || exit 1
grep -q "^total 28 order .* slept 2s rand .* year 2025$" "$TMP/a.out" || fail "dsim output: $(cat "$TMP/a.out")"
hashes=$(exec_hash)
for seed in 2 3 4; do
    timeout -k 5 60 "$DSIM" exec --seed $seed -- "$TMP/gt" >/dev/null 2>"$TMP/exec.err" || fail "seed $seed failed"
    hashes="$hashes $(exec_hash)"
done
[ "$(tr ' ' '\n' <<<"$hashes" | sort -u | wc -l)" -gt 1 ] || fail "every seed gave one schedule"
# Go's runtime reads the TSC (cputicks seeds every M's fastrand): with the
# rdtsc rewritten in its code, forced on every host, seed 1 gives the hash
# it gives by default (the host's fault where rdtsc faults), every time.
h1=$(cut -d' ' -f1 <<<"$hashes")
hr=$(EXEC_OPTS="--tsc rewrite" same_hash_twice 1 "$TMP/gt") || exit 1
[ "$hr" = "$h1" ] || fail "tsc = rewrite gives hash $hr, the default gave $h1"
# Its runtime asks cpuid at start-up (internal/cpu): rewritten in its code
# (found through .gopclntab, the binary being stripped of nothing else),
# forced on every host, the hash is the default's (the fault where the
# host has CPUID faulting).
hc=$(EXEC_OPTS="--cpuid rewrite" same_hash_twice 1 "$TMP/gt") || exit 1
[ "$hc" = "$h1" ] || fail "cpuid = rewrite gives hash $hc, the default gave $h1"
