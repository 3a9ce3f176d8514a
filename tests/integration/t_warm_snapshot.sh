#!/bin/bash
# Warm start from a snapshot: a sweep's worker runs the start-up to the
# point once and starts each seed from a copy of it (supervisor/snapshot.c).
# The bar: every seed's trace hash and outputs are its cold run's.
#  1. One CPython machine (warm_probe.py: a file written before the point,
#     ids, a random draw, a file each seed writes, inode numbers, a fork
#     after the point, a file open across it), seeds 1-5: from the snapshot, forced cold
#     (--warm cold) and `dsim replay` give the same hashes and outputs; the
#     sweep says it started its seeds from a snapshot; each seed is pid 2,
#     finds no earlier seed's file, and its child is pid 3.
#  2. Three machines, at a time and (in a network namespace) at the first
#     network call with datagrams between them: the same three ways agree.
#     So do an asyncio event loop across the point (its epoll set and
#     self-pipe, which each copy makes anew; another thread wakes the loop
#     through it), a pipe and an eventfd watched by an epoll set (and, as
#     on a host that cannot tell them, DSIM_WARM_FDS=old-host, refused), unix
#     datagram sockets with no peer, one autobound and watched
#     edge-triggered, and three asyncio machines over TCP started at once (the
#     id allocator), at the first network call. A machine that starts
#     after the point starts in each seed, as cold (its disk and output
#     the point's again after each), and so do the id allocator's clients.
#     Files open for writing across the point (a log appended to, a data
#     file at an offset): each copy writes its own disk's copy.
#     Files mapped shared across the point (one for writing, one read-only):
#     each copy maps its own disk's file again; a directory held open. A
#     timerfd armed and one disarmed, and a signalfd (warm_timerfd.c). A
#     crash after the point (warm_durable.c): the disk as the cold crash
#     leaves it.
#  3. Where a snapshot cannot serve, the sweep says why once and runs cold
#     with the same hashes: an fd past 2 at the point (a fence), a socket
#     pair with a byte in it at the point, a seed that crashes a machine
#     whose replaced file has a second name (that seed), and a seed that leaves a file in /dev/shm,
#     which the copies share (the snapshot serves no seed after it).
#  4. --warm cold says nothing; a bad --warm is a usage error.
#  5. A disk made before the point (warm_tree.py: holes, a hard link,
#     symlinks, a fifo, owners, set-id and sticky modes, times, xattrs,
#     whiteouts and an opaque directory over the config's directory) reads
#     the same after it, seeds 1-6 at -j 2 (each worker copies its frozen
#     layers for three seeds): snapshot, cold and replay agree.
# No real network: see netns.sh.
. "$(dirname "$0")/netns.sh"
. "$(dirname "$0")/lib.sh"
net_dsim_wrapper 300
cd "$TMP" || exit 1
# The configs (and the probe) in a directory of their own, which every
# machine sees: the sweeps' results and outputs go beside it, not in it.
mkdir c && cp "$PROGS/warm_probe.py" c/
. "$SRCDIR/tests/integration/warm_lib.sh"
# --- 1. one CPython machine ----------------------------------------------------
conf one.conf 1s m 'exec python3 warm_probe.py'
three_ways one.conf one
snapshot_said one
[ "$(wc -l <one.err)" = 1 ] || { cat one.err >&2; fail "one: more than one line on stderr"; }
for s in 1 2 3 4 5; do
    out=out-one/seed-$s/m.stdout
    grep -q '^seed [0-9a-f]* 2 1$' "$out" || fail "seed $s is not pid 2, child of 1: $(cat "$out")"
    grep -qx 'after there already: False' "$out" || fail "seed $s found an earlier seed's file"
    grep -qx "source b'# Warm ' b'start fro' 16" "$out" || fail "seed $s: the file open across the point: $(grep ^source "$out")"
    grep -q "^child 3 \['after', 'before'\] /var/tmp$" "$out" || fail "seed $s: $(grep ^child "$out")"
    grep -qx 'inodes True 499 498' "$out" || note "seed $s inodes: $(grep ^inodes "$out")"
done
[ "$(cat out-one/seed-*/m.stdout | grep '^seed' | sort -u | wc -l)" = 5 ] || fail "the seeds drew the same bytes"

# --- 2. three machines, at a time and at the first network call -----------------
conf three.conf 1s 'a b c' 'exec python3 warm_probe.py'
three_ways three.conf three
snapshot_said three
conf net.conf network 'a b c' 'exec python3 warm_probe.py NAME a,b,c'
three_ways net.conf net
grep -qx 'from c' out-net/seed-3/a.stdout || fail "net: a got no datagram from c"
snapshot_said net

# An asyncio event loop across the point (an epoll set watching its
# self-pipe, a socket pair): each copy makes its own, and another thread
# wakes the loop through it. Three asyncio machines over TCP, all started
# at once, at the first network call (the id allocator of t_net_idalloc).
conf loop.conf 1s m 'exec python3 warm_probe.py'
probe_env loop.conf WARM_PROBE_LOOP
three_ways loop.conf loop
afresh_said loop
for s in 1 5; do grep -qx 'loop woken' out-loop/seed-$s/m.stdout || fail "loop: seed $s: $(cat out-loop/seed-$s/m.stdout)"; done
# A pipe and an eventfd watched by an epoll set across the point: each
# copy has its own, the eventfd's count (3) in it, the pipe written after
# the point by another thread.
conf pipe.conf 1s m 'exec python3 warm_probe.py'
probe_env pipe.conf WARM_PROBE_PIPE
three_ways pipe.conf pipe
afresh_said pipe
for s in 1 5; do
    grep -qx 'eventfd \[True\] 3 \[\]' out-pipe/seed-$s/m.stdout && grep -qx "pipe \[True\] b'p'" out-pipe/seed-$s/m.stdout &&
        grep -qx 'pipe inode kept True' out-pipe/seed-$s/m.stdout ||
        fail "pipe: seed $s: $(cat out-pipe/seed-$s/m.stdout)"
done
# Unix datagram sockets with no peer (go-systemd's journal socket, as etcd
# has one at its first network call), one autobound and watched
# edge-triggered, the other one-shot, the writable edge and the one shot
# taken before the point: each copy makes them anew, binds the one again
# and takes the edges its adding made, so no edge comes after the point
# until a datagram does, and the one shot only once armed again.
conf dgram.conf 1s m 'exec python3 warm_probe.py'
probe_env dgram.conf WARM_PROBE_DGRAM
three_ways dgram.conf dgram
afresh_said dgram
for s in 1 4; do
    grep -qx "dgram 2 \[\] \[1\] b'y' 6" out-dgram/seed-$s/m.stdout && grep -qx 'rearmed \[True\] \[\]' out-dgram/seed-$s/m.stdout ||
        fail "dgram: seed $s: $(cat out-dgram/seed-$s/m.stdout)"
done
# The same two as on a host that cannot tell a socket's peer or an
# eventfd's mode (DSIM_WARM_FDS=old-host: no unix sock_diag, Linux before
# 6.3): refused, said, cold, the same hashes.
DSIM_WARM_FDS=old-host three_ways loop.conf loop-old
grep -q "^dsim: warm start: seeds run cold, not from a snapshot: machine m: the machine's unix sockets could not be listed" \
    loop-old.err || { cat loop-old.err >&2; fail "loop, old host: not said"; }
DSIM_WARM_FDS=old-host three_ways pipe.conf pipe-old
grep -q '^dsim: warm start: seeds run cold, not from a snapshot: machine m: fd [0-9]*: an eventfd whose count or mode' \
    pipe-old.err || { cat pipe-old.err >&2; fail "pipe, old host: not said"; }
DSIM_WARM_FDS=old-host "$DSIM" doctor | grep -qx "warm start's fds made anew: refused, as on a host that cannot tell them (DSIM_WARM_FDS=old-host)" ||
    fail "dsim doctor does not say DSIM_WARM_FDS=old-host"
DSIM_WARM_FDS=new "$DSIM" run c/loop.conf --seeds 1 >bad.out 2>&1; [ $? = 2 ] || fail "a bad DSIM_WARM_FDS was not refused with status 2"
grep -q 'DSIM_WARM_FDS=new: host or old-host expected' bad.out || fail "bad DSIM_WARM_FDS: $(cat bad.out)"
cp "$PROGS/idalloc.py" "$PROGS/idalloc_check.py" "$PROGS/netcheck.py" c/
{ printf '[simulation]\nduration = 60s\nwarm_start = network\n[defaults]\nenv = PYTHONDONTWRITEBYTECODE=1\n'
  printf '[network]\nlatency = 1ms..50ms\n[machine alloc]\ncommand = exec python3 idalloc.py server 7000 --fixed --clients 2\n'
  printf '[machine c1]\ncommand = exec python3 idalloc.py client alloc 7000 c1 5\n'
  printf '[machine c2]\ncommand = exec python3 idalloc.py client alloc 7000 c2 5\n'
  printf '[check]\ncommand = python3 "$DSIM_CONFIG_DIR/idalloc_check.py" c1.stdout c2.stdout\n'; } >c/asyncio.conf
three_ways asyncio.conf asyncio
afresh_said asyncio

# A machine that starts after the point starts in each seed, as cold: its
# disk, crash records and output are the point's again after each seed
# (warm_probe finds no earlier seed's file), and the id allocator's
# clients, which start 100 ms in, after its server's first network call.
conf late.conf 1s m 'exec python3 warm_probe.py'
printf '[machine l]\nstart = 1500ms\ncommand = exec python3 warm_probe.py\n' >>c/late.conf
three_ways late.conf late
snapshot_said late
for s in 1 2 3 4 5; do
    grep -qx 'after there already: False' out-late/seed-$s/l.stdout || fail "late: seed $s found an earlier seed's file"
    [ "$(grep -c '^start-up' out-late/seed-$s/l.stdout)" = 1 ] || fail "late: seed $s: $(cat out-late/seed-$s/l.stdout)"
done
sed -e 's/^command = exec python3 idalloc.py client/start = 100ms\n&/' c/asyncio.conf >c/asyncio-late.conf
three_ways asyncio-late.conf asyncio-late
afresh_said asyncio-late

# --- 3. where a snapshot cannot serve ---------------------------------------------
# Files written across the point: each copy writes its own disk's copy,
# appending or at the offset the template had.
conf writer.conf 1s m 'exec python3 warm_probe.py'
probe_env writer.conf WARM_PROBE_WRITER
three_ways writer.conf writer
snapshot_said writer
for s in 1 5; do
    grep -qx "log \['start-up', 'seed'\] data b'0123XY6789'" out-writer/seed-$s/m.stdout ||
        fail "writer: seed $s: $(cat out-writer/seed-$s/m.stdout)"
done
# Files locked across the point (flock, a POSIX record lock): each copy
# takes the locks again on the file it opens again; a child forked after
# the point finds them held, the record lock's owner its parent.
conf locks.conf 1s m 'exec python3 warm_probe.py'
probe_env locks.conf WARM_PROBE_LOCKS
three_ways locks.conf locks
snapshot_said locks
for s in 1 5; do
    grep -qx "locks flock held, record held 5 10 by the parent" out-locks/seed-$s/m.stdout ||
        fail "locks: seed $s: $(cat out-locks/seed-$s/m.stdout)"
done
# Files mapped shared across the point, one for writing, one read-only:
# each copy maps its own disk's file again, so a write through the file
# shows in the mapping and one through the mapping in the file, and no
# seed finds another's bytes. A directory held open across it is opened
# again too.
conf mmap.conf 1s m 'exec python3 warm_probe.py'
probe_env mmap.conf WARM_PROBE_MMAP
three_ways mmap.conf mmap
snapshot_said mmap
for s in 1 2 3 4 5; do
    grep -qx "mmap b'........' b'before....by-write..mapped' b'before....by-write..mapped..............[0-9a-f]\{8\}' b'ro-file-'" \
        out-mmap/seed-$s/m.stdout || fail "mmap: seed $s: $(cat out-mmap/seed-$s/m.stdout)"
    grep -qx "directory True True" out-mmap/seed-$s/m.stdout || fail "mmap: seed $s: the held directory"
done
# A timerfd armed, another disarmed, and a signalfd across the point
# (warm_timerfd.c, the point in its sleep at 100 ms): each copy makes its
# own, and dsim's timers count on the copy's (a timerfd is an eventfd of
# dsim's: without its copy taken, timerfd_gettime is EINVAL in the copy).
cp "$(build warm_timerfd)" c/warm_timerfd
conf timerfd.conf 100ms m 'exec ./warm_timerfd'
three_ways timerfd.conf timerfd
afresh_said timerfd
c/warm_timerfd | grep -v '^left' >native-timerfd.out || fail "warm_timerfd failed natively"
for s in 1 3 5; do
    grep -v '^left' out-timerfd/seed-$s/m.stdout | diff native-timerfd.out - >&2 || fail "timerfd: seed $s is not as natively"
    grep -qx 'left 99 ms, every 100 ms' out-timerfd/seed-$s/m.stdout || fail "timerfd: seed $s: $(cat out-timerfd/seed-$s/m.stdout)"
done
conf fd.conf 1s m 'exec 3</dev/null; exec python3 warm_probe.py'
three_ways fd.conf fd
grep -qx 'dsim: warm start: seeds run cold, not from a snapshot: machine m: fd 3 open (/dev/null)' fd.err ||
    { cat fd.err >&2; fail "fd 3 at the point: not said"; }
conf pair.conf 1s m 'exec python3 warm_probe.py'
probe_env pair.conf WARM_PROBE_PAIR
three_ways pair.conf pair
grep -q '^dsim: warm start: seeds run cold, not from a snapshot: machine m: fd [0-9]*: a socket pair shut down or with bytes in it$' \
    pair.err || { cat pair.err >&2; fail "a byte in a socket pair at the point: not said"; }
# A socket pair with a 61 ms receive timeout: each copy's pair gets it (a
# copy made without it waited forever where the cold run timed out), from
# what dsim kept for the template's (a machine's tick, not the host's: at
# DSIM_TEST_SOCK_HZ=1000 too, 61 ms where the kernel's copy says 64).
conf timeo.conf 1s m 'exec python3 warm_probe.py'
probe_env timeo.conf WARM_PROBE_TIMEOUT
three_ways timeo.conf timeo
afresh_said timeo
for s in 1 5; do grep -qx 'timed BlockingIOError' out-timeo/seed-$s/m.stdout || fail "timeo: seed $s: $(cat out-timeo/seed-$s/m.stdout)"; done
DSIM_TEST_SOCK_HZ=1000 three_ways timeo.conf timeo-hz
afresh_said timeo-hz
[ "$(hashes timeo.jsonl)" != "$(hashes timeo-hz.jsonl)" ] || fail "timeo: the same hashes at HZ 250 and 1000 (61 ms is 64 and 61)"
# A unix datagram socket a process and its child both hold: one socket in
# the copies too (each making its own gave other hashes, tried).
cp "$PROGS/warm_shared_dgram.py" c/
conf shared.conf 1s m 'exec python3 warm_shared_dgram.py'
three_ways shared.conf shared
afresh_said shared
for s in 1 3; do
    [ "$(cut -d' ' -f2 out-shared/seed-$s/m.stdout | sort -u | wc -l)" = 1 ] ||
        { cat out-shared/seed-$s/m.stdout >&2; fail "shared seed $s: the parent's and the child's sockets differ"; }
done
# A crash after the point ([fault] at 1 s, warm_durable.c): the copy's
# processes die, the machine starts again cold in the seed, and what its
# disk keeps is decided by the seed's crash model, which each seed has
# for its own copies of the files (what was durable at the point, what was
# written since: without either, the hashes are not the cold ones, tried).
# Seeds 1-8 each keep, roll back or tear the files, as cold.
cp "$(build warm_durable)" c/warm_durable
printf '[simulation]\nduration = 3s\nwarm_start = 100ms\n[machine m]\n' >c/durable.conf
printf 'command = exec ./warm_durable write /var/lib/d/log\ncommand-after-restart = exec ./warm_durable read /var/lib/d/log\n' >>c/durable.conf
printf '[fault crash]\nkind = crash\nat = 1s\nmachine = m\nduration = 100ms\n' >>c/durable.conf
SEEDS=1-8 three_ways durable.conf durable
if "$DSIM" doctor | grep -q '^a crash in a seed from a warm start.s snapshot: copied'; then
    snapshot_said durable
    ! grep -q 'a seed that crashes' durable.err || { cat durable.err >&2; fail "durable: a seed ran cold for its crash"; }
else
    grep -q '^dsim: warm start: a seed that crashes machine m after the point runs cold, as seed [0-9] does at 1.000000000 s: this host.s overlayfs has its index on' \
        durable.err || { cat durable.err >&2; fail "durable: the host's overlay index was not said"; }
fi
# As on a host whose overlayfs has its index on: those seeds run cold, said.
DSIM_OVERLAY_INDEX=on three_ways durable.conf durable-index
grep -q '^dsim: warm start: a seed that crashes machine m after the point runs cold, as seed [0-9] does at 1.000000000 s: this host.s overlayfs has its index on' \
    durable-index.err || { cat durable-index.err >&2; fail "durable, index on: not said"; }
[ "$(cat out-durable/seed-*/m.stdout | grep '^log: ' | sort -u | wc -l)" -gt 1 ] ||
    { cat out-durable/seed-*/m.stdout >&2; fail "durable: every seed's crash left the log alike"; }
grep -q '^log: 12 lines, last "line 12", whole and in order$' out-durable/seed-*/m.stdout ||
    fail "durable: no seed rolled the log back to its last sync"
# Crashed before the point ([fault] at 300 ms) and started again before it,
# crashed again after it: seeds 1-4 as cold. Down at the point, to start
# again after it: its disk is no copy's, so the snapshot is refused, said.
{ printf '[simulation]\nduration = 3s\nwarm_start = 1s\n[machine m]\ndaemon = true\n'
  printf 'command = exec ./warm_durable write /var/lib/d/log\n'
  printf 'command-after-restart = ./warm_durable read /var/lib/d/log; echo x >>/var/lib/d/log; exec ./warm_durable write /var/lib/d/log\n'
  printf '[fault early]\nkind = crash\nat = 300ms\nmachine = m\nduration = 200ms\n'
  printf '[fault late]\nkind = crash\nat = 2s\nmachine = m\nduration = 200ms\n'
  printf '[machine other]\ncommand = sleep 2.5\n'; } >c/again.conf
SEEDS=1-4 three_ways again.conf again
snapshot_said again
sed -e 's/^warm_start = 1s$/warm_start = 400ms/' -e 's/^duration = 200ms$/duration = 500ms/' c/again.conf >c/down.conf
SEEDS=1-4 three_ways down.conf down
grep -qx 'dsim: warm start: seeds run cold, not from a snapshot: machine m: down at the point after a crash, to start again after it' \
    down.err || { cat down.err >&2; fail "down at the point: not said"; }
# A file replaced before the point by a rename not yet durable, nothing
# synced after it: a crash undoes the rename, putting the graveyard's file
# back, which each seed has a copy of, known to the machine by the inode
# number it had (without that, another number: tried). With a second name
# for that file, a copy of it could not be the same file: a seed that
# crashes the machine runs cold, said.
sed 's/write \/var/write-replace \/var/' c/durable.conf >c/replaced.conf
SEEDS=1-8 three_ways replaced.conf replaced
snapshot_said replaced
grep -qx 'old inode 4' out-replaced/seed-1/m.stdout && grep -qx 'old: "old", inode 4' out-replaced/seed-*/m.stdout ||
    { cat out-replaced/seed-*/m.stdout >&2; fail "replaced: no seed put the replaced file back as it was"; }
sed 's/write \/var/write-replace-linked \/var/' c/durable.conf >c/linked.conf
three_ways linked.conf linked
grep -q '^dsim: warm start: a seed that crashes machine m after the point runs cold, as seed [0-9] does at 1.000000000 s: a file it replaced or removed, not yet durably at the point, has another name too$' \
    linked.err || { cat linked.err >&2; fail "linked: not said"; }
conf shm.conf 1s m 'exec python3 warm_probe.py'
probe_env shm.conf WARM_PROBE_SHM
three_ways shm.conf shm
grep -q '^dsim: warm start: the snapshot serves no more seeds, which run cold: a seed changed the machines. shared state' \
    shm.err || { cat shm.err >&2; fail "/dev/shm: not said"; }

# --- 4. the switch -------------------------------------------------------------------
"$DSIM" run c/one.conf --seeds 1 --warm hot >bad.out 2>&1; [ $? = 2 ] || fail "--warm hot was not a usage error"
grep -q 'bad --warm hot (use snapshot or cold)' bad.out || fail "--warm hot: $(cat bad.out)"

# --- 5. a disk made before the point, copied per seed -----------------------------
cp "$PROGS/warm_tree.py" c/
mkdir -p c/tree/sub && echo gone >c/tree/gone && echo keep >c/tree/keep && echo x >c/tree/sub/x
conf tree.conf 1s m 'exec python3 warm_tree.py'
SEEDS=1-6 three_ways tree.conf tree
snapshot_said tree
for s in 1 6; do
    out=out-tree/seed-$s/m.stdout
    grep -qx 'ok' "$out" || fail "tree: seed $s did not finish: $(tail -n 3 "$out")"
    grep -q '^/dsim/config/tree/sub/y ' "$out" && ! grep -q '/dsim/config/tree/sub/x\|/dsim/config/tree/gone' "$out" ||
        fail "tree: seed $s: the whiteouts or the opaque directory: $(grep /dsim/config "$out")"
    grep -qx 'same inode True' "$out" || fail "tree: seed $s: the hard link is not one"
    grep -q "^/var/tmp/t/plain 0o106751 0 0 2 6000 16 .* \[('user.probe', b'v1')\]" "$out" || fail "tree: seed $s: $(grep plain "$out")"
done
