#!/bin/bash
# clock_reads = page: clock reads through libc's vDSO are answered from the
# clock page without a stop. A program reading clocks in a loop gets values
# that never go back and agree with each other (gettimeofday, time), prints
# what it prints natively, one seed gives one hash and seeds differ (its
# threads); a busy wait on the clock ends (past CLOCK_PAGE_LIMIT reads the
# read is a stop), reads stop while another thread could run, an unknown
# clock id is EINVAL and a bad address to the system call EFAULT; a fork and an exec'd child read their page; the
# stops for clock reads are gone from the trace; a bad address to libc's
# clock_gettime is SIGSEGV, as natively. CPython and Go run on it. It is
# the default, of dsim exec and of a cluster.conf; --clock-reads stop (and
# clock_reads = stop) gives the other hash.
. "$(dirname "$0")/lib.sh"
dsim_timeout
prog=$(build clock_page)

native_ok "$prog"
h_stop=$(EXEC_OPTS="--clock-reads stop" dsim_as_native --seeds "" "$prog") || exit 1
h_page=$(EXEC_OPTS="--clock-reads page" dsim_as_native --varies "$prog") || exit 1
[ "$h_page" != "$h_stop" ] || fail "page and stop give one hash: the reads are still steps"
same_hash_twice 1 "$prog" >/dev/null || exit 1
[ "$(exec_hash)" = "$h_page" ] || fail "dsim exec's default is not clock_reads = page: $(exec_hash) vs $h_page"
# A cluster.conf: page unless it says stop.
for mode in "" "clock_reads = page" "clock_reads = stop"; do
    printf '[simulation]\n%s\n[machine main]\ncommand = %s\n' "$mode" "$prog" >"$TMP/c.conf"
    h=$(one_hash "$TMP/c.conf" 1)
    case $mode in
    *stop) [ "$h" != "$h_conf_page" ] || fail "clock_reads = stop in a cluster.conf gives page's hash" ;;
    *page) [ "$h" = "$h_conf_page" ] || fail "a cluster.conf without clock_reads is not clock_reads = page: $h_conf_page vs $h" ;;
    *) h_conf_page=$h ;;
    esac
done

# The reads of a thread that runs alone are no longer stops: thousands with
# stop, a few with page (the busy wait's reads past the limit, the unknown
# ids, the CPU clocks). The three threads that read at once stop at every
# read, as with stop: each is a scheduling point while another could run.
calls() {
    "$DSIM" exec --seed 1 --clock-reads "$1" --trace "$TMP/$1.gz" -- "$prog" >/dev/null 2>&1 || fail "$1: the run failed"
    "$DSIM" trace "$TMP/$1.gz" --syscall clock_gettime --thread "$2" | grep -c 'clock_gettime('
}
n_stop=$(calls stop 2) n_page=$(calls page 2) n_reader=$(calls page 3)
note "the main thread's clock_gettime stops: $n_stop with stop, $n_page with page; a reader thread's with page: $n_reader"
[ "$n_stop" -gt 4000 ] || fail "stop: only $n_stop of the main thread's clock_gettime calls in the trace"
[ "$n_page" -lt 200 ] || fail "page: $n_page clock_gettime calls still stop"
# 20 ms of busy wait is 2000 reads of 10 us: at least 2000/64 of them stop.
[ "$n_page" -ge 31 ] || fail "page: $n_page stops: the busy wait's reads never fell back to the system call"
[ "$n_reader" -ge 250 ] || fail "page: a reader thread's reads stopped $n_reader times while the others could run"
"$DSIM" trace "$TMP/page.gz" | grep -q 'clock_gettime(12345, p) = -1 EINVAL' ||
    fail "page: the unknown clock id did not reach the system call"

# A bad address: EFAULT through the system call (above), SIGSEGV through
# the vDSO as natively.
native_ok "$prog" segv
grep -q 'Segmentation fault' "$TMP/native.out" || fail "natively, libc's clock_gettime took the bad address: $(cat "$TMP/native.out")"
EXEC_OPTS="--clock-reads page" dsim_as_native --seeds "" "$prog" segv >/dev/null || exit 1

# CPython (its lock acquires read the monotonic clock) and Go (nanotime
# through the vDSO): one hash twice; CPython's 550 clock reads make 3 stops
# (its loop of 300 reads without a system call passes the limit).
py='import time, threading
l = threading.Lock()
t = [time.monotonic() for _ in range(100) if l.acquire() and not l.release()]
assert all(a < b for a, b in zip(t, t[1:])), t
print("ok", round(time.time()) // 86400)'
EXEC_OPTS="--clock-reads page" same_hash_twice 1 python3 -c "$py" >/dev/null || exit 1
[ "$(cat "$TMP/a.out")" = "ok 20089" ] || fail "CPython: $(cat "$TMP/a.out")"
"$DSIM" exec --seed 1 --clock-reads page --trace "$TMP/py.gz" -- python3 -c "$py" >/dev/null 2>&1 || fail "CPython run"
n_py=$("$DSIM" trace "$TMP/py.gz" --syscall clock_gettime | grep -c 'clock_gettime(')
[ "$n_py" -le 10 ] || fail "CPython's clock reads still stop ($n_py)"
if command -v go >/dev/null; then
    mkdir -p "$TMP/go"
    cp "$PROGS"/go_goroutines/* "$TMP/go/"
    (cd "$TMP/go" && HOME="$TMP" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" GOPROXY=off GOFLAGS=-mod=mod \
        go build -o "$TMP/gt" .) || fail "go build failed"
    EXEC_OPTS="--clock-reads page" same_hash_twice 1 "$TMP/gt" >/dev/null || exit 1
    grep -q "^total 28 order .* slept 2s rand .* year 2025$" "$TMP/a.out" || fail "Go: $(cat "$TMP/a.out")"
else
    fail "go is not installed (.ci/run installs golang-go)"
fi
