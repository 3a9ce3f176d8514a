#!/bin/bash
# Warm start with simulated sockets at the point (supervisor/snapnet.c):
# a server's TCP listener, its bound UDP socket and a TCP socket made and
# not yet used, an epoll set watching the first two; the point is the line
# the server prints when ready, while its clients still sleep. Each copy
# makes the sockets anew, dsim binds and listens them as the template's
# were. The bar, as in t_warm_snapshot: every seed's hash and outputs are
# its cold run's and a replay's (seeds 1-5, -j 2, and 1-8 at -j 1, all
# through one worker); the seeds differ; what the programs print is what
# they print natively; the server's sockets keep the inodes it saw before
# the point. Then at the second client's "connected": two TCP connections
# open and idle, each copy's end joined to a new relay end, lines carried
# after the point (and as on a host without unix sock_diag: refused, the
# same hashes); at the first's "half-closed", its connection shut down for
# writing (a send after it EPIPE, as cold); at warm_backlog's second
# client's "connected", two connections waiting in the server's backlog,
# accepted after the point in their order; at 300 ms, bytes not yet read
# in an accepted connection and in one in the backlog. A point with a
# connection being made is refused, said,
# and its seeds run cold to the same hashes. A UDP cluster
# (examples/election) copied mid-run, a datagram in flight and every node
# in select(). A pre-forking server's listener, held by its workers too.
# Crashes after the point: swarm crashes of the UDP nodes, and a
# TCP server crashed while its clients wait on connections open at the point.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 300
cd "$TMP" || exit 1
mkdir c && cp "$(build warm_listen)" c/warm_listen
. "$SRCDIR/tests/integration/warm_lib.sh"
listen_conf() {     # listen_conf FILE WARM_START NCLIENTS
    printf '[simulation]\nduration = 10s\nwarm_start = %s\n[network]\nlatency = 1ms..20ms\n' "$2" >"c/$1"
    printf '[machine srv]\ncommand = exec ./warm_listen server 7000 %s\n' "$3" >>"c/$1"
    for i in $(seq "$3"); do printf '[machine c%s]\ncommand = exec ./warm_listen client srv 7000 %s\n' "$i" "$i" >>"c/$1"; done
}

# --- 1. the server's sockets copied at its "ready" ---------------------------------
listen_conf ready.conf 'output srv ready' 2
three_ways ready.conf ready
afresh_said ready
n=$(hashes ready.jsonl | tr ' ' '\n' | sort -u | wc -l)
[ "$n" -gt 1 ] || fail "ready: seeds 1-5 gave one hash: the network's draws after the point ignore the seed"
for s in 1 2 3 4 5; do
    out=out-ready/seed-$s
    [ "$(grep -c '^port 700[01]: hello [12]$' "$out/srv.stdout")" = 4 ] && [ "$(grep -c '^port 7000: again [12]$' "$out/srv.stdout")" = 2 ] ||
        { cat "$out/srv.stdout" >&2; fail "ready seed $s: not 4 connections served"; }
    [ "$(grep -c '^datagram: ping [12]$' "$out/srv.stdout")" = 2 ] || fail "ready seed $s: not 2 datagrams served"
    [ "$(grep -c '^socket [012]: inode kept, link kept$' "$out/srv.stdout")" = 3 ] ||
        { cat "$out/srv.stdout" >&2; fail "ready seed $s: a socket's inode or link changed across the point"; }
    grep -qx 'datagram answered: udp ping 1' "$out/c1.stdout" || fail "ready seed $s: c1 got no answer to its datagram"
done
# One worker runs every seed, each from the snapshot: no seed sees another's sockets.
"$DSIM" run c/ready.conf --seeds 1-8 -j 1 --results serial.jsonl >serial.log 2>serial.err ||
    { cat serial.log serial.err >&2; fail "serial: a seed failed"; }
afresh_said serial
"$DSIM" run c/ready.conf --seeds 1-8 -j 1 --warm cold --results serial-cold.jsonl >serial-cold.log 2>&1 ||
    { cat serial-cold.log >&2; fail "serial-cold: a seed failed"; }
[ "$(hashes serial.jsonl)" = "$(hashes serial-cold.jsonl)" ] || fail "seeds 1-8 through one worker: not the cold hashes"
note "ready: $n hashes of 5 seeds; 8 seeds through one worker from the snapshot, each its cold hash"

# --- 2. as natively -----------------------------------------------------------------
listen_conf one.conf 'output srv ready' 1
sweep one.conf one
afresh_said one
native_net sh -c 'cd c && ./warm_listen server 7000 1 >../native-srv.out & sleep 0.2
    ./c/warm_listen client 127.0.0.1 7000 1 >native-c1.out; wait' || fail "native warm_listen failed"
diff native-srv.out out-one/seed-1/srv.stdout >&2 || fail "one: the server's lines are not the native ones"
diff native-c1.out out-one/seed-1/c1.stdout >&2 || fail "one: the client's lines are not the native ones"

# --- 3. connections open and idle at the point ----------------------------------------
# Both clients connected to port 7000 and answered, each connection idle
# for 100 ms (the point: c2's "connected"): each copy's socket is joined to
# a new relay end of dsim's; the server reads "again" on them after it.
listen_conf conn.conf 'output c2 connected' 2
three_ways conn.conf conn
afresh_said conn
for s in 1 3 5; do
    [ "$(grep -c '^port 7000: again [12]$' out-conn/seed-$s/srv.stdout)" = 2 ] ||
        { cat out-conn/seed-$s/srv.stdout >&2; fail "conn seed $s: the connections did not carry a line after the point"; }
done
"$DSIM" run c/conn.conf --seeds 1-8 -j 1 --results conn-serial.jsonl >conn-serial.log 2>conn-serial.err ||
    { cat conn-serial.log conn-serial.err >&2; fail "conn-serial: a seed failed"; }
afresh_said conn-serial
"$DSIM" run c/conn.conf --seeds 1-8 -j 1 --warm cold --results conn-serial-cold.jsonl >conn-serial-cold.log 2>&1 ||
    { cat conn-serial-cold.log >&2; fail "conn-serial-cold: a seed failed"; }
[ "$(hashes conn-serial.jsonl)" = "$(hashes conn-serial-cold.jsonl)" ] || fail "conn: seeds 1-8 through one worker: not the cold hashes"
# As on a host that cannot list a machine's unix sockets (DSIM_WARM_FDS=
# old-host: no unix sock_diag): refused, said, cold, the same hashes.
DSIM_WARM_FDS=old-host three_ways conn.conf conn-old
grep -q "^dsim: warm start: seeds run cold, not from a snapshot: machine [a-z0-9]*: the machine's unix sockets could not be listed" \
    conn-old.err || { cat conn-old.err >&2; fail "conn, old host: not said"; }
# At c1's "half-closed": its connection's writing shut down (the copy's is
# too), the server's close of it still to come.
listen_conf half.conf 'output c1 half-closed' 2
three_ways half.conf half
afresh_said half
grep -qx 'a send after it: EPIPE' out-half/seed-2/c1.stdout && grep -qx 'then closed by the server' out-half/seed-2/c1.stdout ||
    { cat out-half/seed-2/c1.stdout >&2; fail "half: c1's shut down connection is not as it was"; }

# Two connections waiting in the server's backlog at c2's "connected" (made,
# not yet accepted: the server sleeps): the copy's listener gets a new relay
# end's connection for each, in their order; the server accepts both after
# the point, in that order, and answers each.
cp "$(build warm_backlog)" c/warm_backlog
printf '[simulation]\nduration = 10s\nwarm_start = output c2 connected\n[network]\nlatency = 1ms..20ms\n' >c/backlog.conf
printf '[machine srv]\ncommand = exec ./warm_backlog server 7000\n' >>c/backlog.conf
for i in 1 2; do printf '[machine c%s]\ncommand = exec ./warm_backlog client srv 7000 %s %s\n' $i $i $((i * 20 - 10)) >>c/backlog.conf; done
three_ways backlog.conf backlog
afresh_said backlog
for s in 1 3 5; do
    printf 'listening\naccepted 1: hello 1\naccepted 2: hello 2\nok\n' | diff - out-backlog/seed-$s/srv.stdout >&2 &&
        grep -qx 'echo hello 2' out-backlog/seed-$s/c2.stdout || fail "backlog seed $s: not both served in their order"
done
native_net sh -c 'cd c && ./warm_backlog server 7000 >../native-backlog.out & sleep 0.05
    ./c/warm_backlog client 127.0.0.1 7000 1 10 >/dev/null & ./c/warm_backlog client 127.0.0.1 7000 2 30 >/dev/null; wait' ||
    fail "native warm_backlog failed"
diff native-backlog.out out-backlog/seed-1/srv.stdout >&2 || fail "backlog: the server's lines are not the native ones"

# Bytes not yet read at the point (warm_start = 300ms, while the server
# sleeps): a connection it accepted and read 3 bytes of holds the rest of
# its client's writes (its socket full, more waiting in dsim's relay), one
# in its backlog holds a line, and one behind it a line and its FIN, its
# client's socket closed (the relay's end of it open still). The copy's
# sockets get the relay's writes again, as the template's held them (the
# part read off again), and the closed socket's end is one whose peer is
# closed. A machine whose command exited before the point is over: nothing
# of it is copied.
cp "$(build warm_unread)" c/warm_unread
printf '[simulation]\nduration = 10s\nwarm_start = 300ms\n[network]\nlatency = 1ms..20ms\n' >c/unread.conf
printf '[machine srv]\ncommand = exec ./warm_unread server 7000\n' >>c/unread.conf
printf '[machine big]\ncommand = exec ./warm_unread client srv 7000 big\n' >>c/unread.conf
printf '[machine line]\ncommand = exec ./warm_unread client srv 7000 line\n' >>c/unread.conf
printf '[machine bye]\ncommand = exec ./warm_unread client srv 7000 bye\n' >>c/unread.conf
printf '[machine early]\ncommand = exec echo over before the point\n' >>c/unread.conf
three_ways unread.conf unread
afresh_said unread
native_net sh -c 'cd c && ./warm_unread server 7000 >../native-unread.out 2>/dev/null & sleep 0.02
    ./c/warm_unread client 127.0.0.1 7000 big >/dev/null & ./c/warm_unread client 127.0.0.1 7000 line >/dev/null &
    ./c/warm_unread client 127.0.0.1 7000 bye >/dev/null; wait' ||
    fail "native warm_unread failed"
for s in 1 3 5; do
    diff native-unread.out out-unread/seed-$s/srv.stdout >&2 || fail "unread seed $s: the server's lines are not the native ones"
    grep -qx 'over before the point' out-unread/seed-$s/early.stdout || fail "unread seed $s: the machine over before the point"
done
note "bytes unread at the point (a socket full, part of a write read, connections in the backlog, one closed by its client): the cold hashes, as natively"

# A pre-forking server at its "ready": its listener is one socket held by
# it and its two workers, each blocked in accept on it or about to be. The
# copies hold one socket too (the first makes it, the others take it from
# that one; each making its own gave other hashes).
cp "$(build warm_prefork)" c/warm_prefork
printf '[simulation]\nduration = 10s\nwarm_start = output srv ready\n[network]\nlatency = 1ms..20ms\n' >c/prefork.conf
printf '[machine srv]\ncommand = exec ./warm_prefork server 7000 2\ndaemon = true\n' >>c/prefork.conf
for i in 1 2 3; do printf '[machine c%s]\ncommand = exec ./warm_prefork client srv 7000 %s\n' $i $i >>c/prefork.conf; done
three_ways prefork.conf prefork
afresh_said prefork
# (The server and its workers in a process group of their own, ended after.)
native_net sh -c 'cd c && setsid ./warm_prefork server 7000 2 >/dev/null & sleep 0.02
    ./c/warm_prefork client 127.0.0.1 7000 1 >native-prefork.out; r=$?; kill -- -$!; exit $r' ||
    fail "native warm_prefork failed"
diff native-prefork.out out-prefork/seed-1/c1.stdout >&2 || fail "prefork: c1's lines are not the native ones"
note "a pre-forking server's listener held by three processes: one socket in the copies, the cold hashes"

# --- 4. a connection being made at the point: refused, cold, the same hashes -----------
listen_conf busy.conf 60ms 2
three_ways busy.conf busy
grep -qx 'dsim: warm start: seeds run cold, not from a snapshot: the simulated network at the point: a simulated TCP connection being made or closed' busy.err ||
    { cat busy.err >&2; fail "busy: the refusal was not said"; }
note "a point with a connection being made: refused, said, the cold hashes"

# --- 5. a UDP cluster mid-run: examples/election at 1 s --------------------------------
# Five CPython nodes over UDP, each in select() on its socket, a datagram in
# flight at the point (the simulation's own: delivered to the copy's socket,
# bound at the path the template's was), a partition after it.
cp "$SRCDIR/examples/election/election.py" "$SRCDIR/examples/election/check.py" c/
sed 's/^duration = 30s$/&\nwarm_start = 1s/' "$SRCDIR/examples/election/fixed.conf" >c/election.conf
grep -qx 'warm_start = 1s' c/election.conf || fail "no warm_start in election.conf"
SEEDS=1-3 three_ways election.conf election
afresh_said election

# --- 6. faults from the point on: [chaos] drawn for each seed ------------------------
# The election cluster with [chaos] pauses, clock jumps, partitions and
# loss, a [fault] pause before the point and a clock jump after it: each
# seed from the snapshot draws its own [chaos] (the start-up's were drawn
# for the start-up seed), as its cold run does. With swarm crashes too:
# each node holds its UDP socket at the point, and a seed that crashes one
# runs from the snapshot as well (its copies die, it starts again cold),
# every seed with its cold hash.
cat >>c/election.conf <<'CONF'
[chaos]
pause = 2s
pause_for = 100ms..500ms
clock_jump = 3s
partition = 4s
partition_for = 500ms..2s
loss = 5s
loss_for = 200ms..1s
loss_rate = 10%..50%
[fault early-pause]
kind = pause
at = 500ms
machine = n2
duration = 300ms
[fault late-jump]
kind = clock_jump
at = 6s
machine = n3
by = 2s
CONF
SEEDS=1-4 three_ways election.conf chaos
afresh_said chaos
[ "$(hashes chaos.jsonl | tr ' ' '\n' | sort -u | wc -l)" = 4 ] || fail "chaos: the seeds' hashes are not 4"
"$DSIM" replay c/election.conf 2 --trace chaos-2.gz >/dev/null 2>&1 || fail "chaos: replay of seed 2 failed"
"$DSIM" trace chaos-2.gz --syscall fault >chaos-2.faults
grep -q ' fault early-pause: pause' chaos-2.faults && grep -q ' fault late-jump: clock_jump' chaos-2.faults &&
    grep -q ' fault chaos-partition-1: partition' chaos-2.faults || { cat chaos-2.faults >&2; fail "chaos: seed 2's faults"; }
sed 's/^\[chaos\]$/&\nswarm = true\ncrash = 4s\ncrash_down = 200ms..1s/' c/election.conf >c/swarm.conf
SEEDS=1-8 three_ways swarm.conf swarm
afresh_said swarm
! grep -q 'a seed that crashes' swarm.err || { cat swarm.err >&2; fail "swarm: a seed that crashes a node ran cold"; }
crashed=0
for s in 1 2 3 4 5 6 7 8; do
    "$DSIM" replay c/swarm.conf $s --trace swarm-$s.gz >/dev/null 2>&1 || fail "swarm: replay of seed $s failed"
    "$DSIM" trace swarm-$s.gz --syscall fault --from 1s | grep -q ': crash$' && crashed=$((crashed + 1))
done
[ "$crashed" -gt 0 ] || fail "swarm: no seed of 1-8 crashes a node after the point"
note "chaos after the point: seeds 1-4 from the snapshot, their own draws; swarm crashes after it in $crashed of 8 seeds, all from the snapshot"

# --- 7. a server crashed after the point, its clients' connections open -----------------
# At c2's "connected" both clients hold a connection to the server, which
# crashes at 150 ms and starts again at 1.15 s: each client's next line,
# sent while it is down, is answered by a reset once it is back (a read
# blocked on a copy's connection woken by it: no helper of a later
# machine's seed disk may hold its relay end), and the restarted server is
# told its new listener's number in /proc/self/fd as in the cold run (it
# looked at /proc/self/net/dev first: a restart gets a new network
# namespace in both).
cp "$(build warm_crash)" c/warm_crash
printf '[simulation]\nduration = 10s\nwarm_start = output c2 connected\n[network]\nlatency = 1ms..20ms\n' >c/crash.conf
printf '[machine srv]\ncommand = exec ./warm_crash server 7000\ndaemon = true\n' >>c/crash.conf
for i in 1 2; do printf '[machine c%s]\ncommand = exec ./warm_crash client srv 7000 %s 5\n' $i $i >>c/crash.conf; done
printf '[fault boom]\nkind = crash\nat = 150ms\nmachine = srv\nduration = 1s\n' >>c/crash.conf
three_ways crash.conf crash
afresh_said crash
! grep -q 'a seed that crashes' crash.err || { cat crash.err >&2; fail "crash: its seeds ran cold"; }
for s in 1 3 5; do
    out=out-crash/seed-$s
    [ "$(grep -c '^ready socket:\[[0-9]*\]$' $out/srv.stdout)" = 2 ] || { cat $out/srv.stdout >&2; fail "crash seed $s: not two starts"; }
    for i in 1 2; do
        grep -qx 'reset at 1: ECONNRESET' $out/c$i.stdout && grep -qx "echo line $i 5" $out/c$i.stdout && grep -qx done $out/c$i.stdout ||
            { cat $out/c$i.stdout >&2; fail "crash seed $s: c$i did not read the reset (ECONNRESET) and go on"; }
    done
done
# Without the crash, as natively.
grep -v '^\[fault\|^kind\|^at\|^machine = srv\|^duration = 1s' c/crash.conf >c/nocrash.conf
SEEDS=1 sweep nocrash.conf nocrash
native_net sh -c 'cd c && ./warm_crash server 7000 >/dev/null & sleep 0.05
    ./c/warm_crash client 127.0.0.1 7000 1 5 >native-crash-c1.out; kill $!' || fail "native warm_crash failed"
diff native-crash-c1.out out-nocrash/seed-1/c1.stdout >&2 || fail "nocrash: c1's lines are not the native ones"
note "crash after the point with connections open: seeds 1-5 from the snapshot, the cold hashes, resets read as natively"
