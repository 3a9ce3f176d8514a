#!/bin/bash
# The same hash whatever the host varies, for a 3-machine cluster over TCP
# and UDP: srv runs tcp_epoll_echo's server and udp_counts' receiver, c1 an
# echo client, c2 an echo client and then udp_counts' sender, over a network
# with 1..20 ms latency and 5% loss. One seed gives one trace hash and the
# same outputs across the variations of variance.sh: the config in another
# directory (a path with spaces), TMPDIR unset, /tmp or a scratch path too
# long for an AF_UNIX address (the relay's sockets are named through a
# descriptor), the caller's environment extended, changed or emptied,
# pinned to each CPU or not, -j 1 and -j 2, busy loops on every CPU. Then a
# CPython cluster (three udp_election.py nodes), which opens its script by
# absolute path, gives one hash from both copies of its directory.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/variance.sh"
net_dsim_wrapper 120

D=$TMP/cl
mkdir -p "$D"
cp "$(build tcp_epoll_echo)" "$(build udp_counts)" "$D/"
write_conf "$D/cl.conf" <<'EOF2'
[simulation]
duration = 30s
[network]
latency = 1ms..20ms
loss = 5%
[machine srv]
command = ./tcp_epoll_echo server 0.0.0.0 7200 2 & ./udp_counts recv 0.0.0.0 7300 300 && wait $!
[machine c1]
command = exec ./tcp_epoll_echo client srv 7200 1 40
[machine c2]
command = ./tcp_epoll_echo client srv 7200 2 40 && exec ./udp_counts send srv 7300 300
EOF2

hash=$(variance_matrix "$D" cl.conf 1) || exit 1
for m in srv c1 c2; do
    [ "$(tail -n 1 "$TMP/var/base/out/seed-1/$m.stdout")" = ok ] || fail "$m: $(cat "$TMP/var/base/out/seed-1/$m.stdout")"
done
grep -q "datagrams from 10.0.0.3" "$TMP/var/base/out/seed-1/srv.stdout" || fail "srv heard no datagrams from c2"
note "C cluster, seed 1: $hash under every variation"

# CPython: the same seed from two copies of the directory.
E=$TMP/el
mkdir -p "$E" "$TMP/py copy"
cp "$PROGS/udp_election.py" "$PROGS/netcheck.py" "$E/"
{
    printf '[simulation]\nduration = 30s\n[network]\nlatency = 1ms..10ms\n'
    for i in 1 2 3; do
        printf '[machine n%s]\ncommand = exec python3 udp_election.py n%s n1,n2,n3 7700 --duration 3\n' $i $i
    done
} >"$E/el.conf"
cp -a "$E/." "$TMP/py copy/"
var_run py-base "$E/el.conf" 1
var_run py-copy "$TMP/py copy/el.conf" 1
a=$(var_hash py-base 1)
b=$(var_hash py-copy 1)
[ "${a#* }" = pass ] || { cat "$TMP/var/py-base/run.out" >&2; fail "the CPython cluster failed: $a"; }
[ "$a" = "$b" ] || fail "the CPython cluster gave $a from $E and $b from a copy"
diff -r "$TMP/var/py-base/out/seed-1" "$TMP/var/py-copy/out/seed-1" >&2 || fail "the CPython cluster's outputs differ between the copies"
note "CPython cluster, seed 1: ${a% *} from both copies"
