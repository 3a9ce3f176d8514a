#!/bin/bash
# A blocking write of up to 64 KiB to a simulated TCP socket whose earlier
# bytes have all left goes to the relay from dsim's own copy of the buffer
# (net/sim/relay.c netsim_take_write), not through the kernel socket and a
# read back. tcp_writes (every size and form of blocking write, a window's
# worth in flight, two readers blocked together on one socket while its fd
# is closed-on-exec and dup2'd onto itself) prints under dsim exec what it
# prints natively, on seeds 1-3, one hash twice, and seeds differ. With
# DSIM_TCP_WRITES=kernel (every write through the kernel, as before) it and
# the other TCP programs give the same hashes, and dsim makes at least 800
# fewer sends and receives without it (strace -c of dsim alone: the 400
# one-byte writes of tcp_writes' round trips each save one of each). A bad
# value is a usage error. No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 120
command -v strace >/dev/null || fail "no strace (apt-get install strace)"
prog=$(build tcp_writes)
native_net_ok "$prog" selftest
h=$(dsim_as_native --seeds "2 3" --varies "$prog" selftest) || exit 1
hk=$(DSIM_TCP_WRITES=kernel same_hash_twice 1 "$prog" selftest) || exit 1
[ "$h" = "$hk" ] || fail "tcp_writes: hash $h, with every write through the kernel $hk"
cmp -s "$TMP/native.out" "$TMP/a.out" || fail "tcp_writes: with every write through the kernel, output differs"

for p in tcp_flow tcp_cork sock_fd_reuse; do
    bin=$(build $p)
    args=()
    [ $p = tcp_flow ] && args=(selftest)
    for seed in 1 2; do
        dsim_exec $seed "$bin" "${args[@]}" >"$TMP/r.out"; a=$(exec_hash)
        DSIM_TCP_WRITES=kernel dsim_exec $seed "$bin" "${args[@]}" >"$TMP/k.out"; b=$(exec_hash)
        [ -n "$a" ] && [ "$a" = "$b" ] || fail "$p seed $seed: hash $a, with every write through the kernel $b"
        cmp -s "$TMP/r.out" "$TMP/k.out" || fail "$p seed $seed: output differs with every write through the kernel"
    done
done

# sends and receives of dsim itself (not its tracees) over one seed
io_calls() {
    env ${1:+DSIM_TCP_WRITES=$1} timeout -k 5 120 $NET_UNSHARE strace -c -e trace=sendto,recvfrom -o "$TMP/strace.$2" \
        "$REAL_DSIM" exec --seed 1 -- "$prog" selftest >/dev/null 2>&1 || fail "strace of dsim exec ($2) failed"
    awk '$NF == "total" { print $(NF - 2) }' "$TMP/strace.$2"
}
relay=$(io_calls "" relay) kernel=$(io_calls kernel kernel)
[ -n "$relay" ] && [ -n "$kernel" ] || fail "no counts from strace: $(cat "$TMP/strace.relay")"
[ $((kernel - relay)) -ge 800 ] || fail "dsim's sends and receives: $relay, and $kernel through the kernel: fewer than 800 saved"

DSIM_TCP_WRITES=bogus "$REAL_DSIM" exec -- /bin/true >/dev/null 2>"$TMP/bad.err"; rc=$?
[ $rc = 2 ] && grep -q "DSIM_TCP_WRITES=bogus" "$TMP/bad.err" || fail "DSIM_TCP_WRITES=bogus: status $rc: $(cat "$TMP/bad.err")"
note "as natively, hash $h both ways; dsim's sends and receives $relay (kernel path $kernel)"
