# Warm start from a snapshot (t_warm_snapshot.sh): what a seed started
# from a copy must see as its cold run does. Before the point it writes a
# file; after it (the point: warm_start = 1s, in the sleep; or network, at
# the first socket) it prints its ids, a random draw, what it reads on of
# a file it opened before (each copy has its own offset), whether a file a
# seed writes is there already (an earlier seed's must not be), inode
# numbers, its child's pid, its directory; with "net", a datagram to the
# next machine and one from the previous; with WARM_PROBE_DGRAM set, an
# autobound and an unbound unix datagram socket, the first watched
# edge-triggered and the second one-shot by an epoll set whose writable
# edge and one shot are taken before the point (no edge after it until a
# datagram comes; the one shot fires again once armed again); with
# WARM_PROBE_SHM set, a file
# in /dev/shm (which a snapshot's seeds share: the last it serves); with
# WARM_PROBE_LOOP set, an asyncio event loop made before the point (its
# epoll set and self-pipe, which each copy makes anew), woken after it
# through the self-pipe by another thread; with WARM_PROBE_PAIR set, a
# socket pair with a byte in it at the point (no copy can have it); with
# WARM_PROBE_TIMEOUT set, an idle socket pair with a 61 ms receive timeout
# at the point, read after it (the read times out; a copy's pair, made
# anew, would have no timeout and wait forever); with
# WARM_PROBE_PIPE set, a pipe and an eventfd (count 3) watched by an epoll
# set across the point, the pipe written after it by another thread; with
# WARM_PROBE_THREADS set, two threads across the point, one waiting for an
# event (a futex) that the main thread sets after it, one asleep until 2.5 s,
# both joined (and with WARM_PROBE_SELECT too, a third in select() on a pipe
# that the main thread writes after the point); with WARM_PROBE_WRITER set,
# a log appended to and a data file written at an offset, open across the
# point, written on both sides of it; with WARM_PROBE_LOCKS set, a file
# held by flock and another by a POSIX record lock across the point, which
# a child forked after it finds locked, and the record lock's owner its
# parent; with WARM_PROBE_MMAP set, a file mapped shared for writing and
# another mapped shared read-only across the point (each copy maps its own
# disk's file): after it, what was written before, a write through the
# file seen in the mapping and one through the mapping seen in the file,
# and bytes each seed writes (an earlier seed's must not be there); and a
# directory held open across it (as etcd holds its WAL's), synced after.
import os, socket, sys, time
os.chdir('/var/tmp')
with open('before', 'w') as f:
    f.write('start-up\n')
ino = os.stat('before').st_ino
print('start-up', os.getpid(), os.getppid(), ino, flush=True)
src = open('/dsim/config/warm_probe.py', 'rb', buffering=0)    # open across the point
head = src.read(7)
loop = None
if os.environ.get('WARM_PROBE_LOOP'):
    import asyncio, threading
    loop = asyncio.new_event_loop()
if os.environ.get('WARM_PROBE_PIPE'):
    import select, threading
    pipe_r, pipe_w = os.pipe()
    efd = os.eventfd(3, os.EFD_NONBLOCK)
    ep = select.epoll()
    ep.register(pipe_r, select.EPOLLIN)
    ep.register(efd, select.EPOLLIN)
    pipe_ino = os.fstat(pipe_r).st_ino
if os.environ.get('WARM_PROBE_LOCKS'):
    import fcntl, struct
    flocked = open('flocked', 'w')
    fcntl.flock(flocked, fcntl.LOCK_EX)
    recorded = open('recorded', 'w')
    fcntl.lockf(recorded, fcntl.LOCK_EX, 10, 5)         # bytes 5-14
if os.environ.get('WARM_PROBE_WRITER'):
    logf = open('log', 'a', buffering=1)
    logf.write('start-up line\n')
    dataf = open('data', 'w+b', buffering=0)
    dataf.write(b'0123456789')
    dataf.seek(4)
if os.environ.get('WARM_PROBE_MMAP'):
    import mmap
    with open('shared', 'w+b') as f:
        f.write(b'.' * 4096)
        f.flush()
        rw = mmap.mmap(f.fileno(), 4096)                # MAP_SHARED, read and write
    rw[0:6] = b'before'
    with open('mapped-ro', 'wb') as f:
        f.write(b'-' * 4096)
    with open('mapped-ro', 'rb') as f:
        ro = mmap.mmap(f.fileno(), 4096, access=mmap.ACCESS_READ)     # MAP_SHARED, read only
    held_dir = os.open('.', os.O_RDONLY | os.O_DIRECTORY)
threads = []
if os.environ.get('WARM_PROBE_THREADS'):
    import threading
    ev = threading.Event()
    def waiter():
        ev.wait()
        print('waiter', os.urandom(2).hex(), flush=True)
    def sleeper():
        time.sleep(2.5)
        print('sleeper', threading.current_thread().name, flush=True)
    threads = [threading.Thread(target=waiter, name='waiter'), threading.Thread(target=sleeper, name='sleeper')]
    if os.environ.get('WARM_PROBE_SELECT'):
        import select
        sel_r, sel_w = os.pipe()
        def selector():
            print('selected', select.select([sel_r], [], [])[0] == [sel_r], os.read(sel_r, 1), flush=True)
        threads.append(threading.Thread(target=selector, name='selector'))
    for t in threads:
        t.start()
if os.environ.get('WARM_PROBE_PAIR'):
    pair = socket.socketpair()
    pair[0].send(b'x')
if os.environ.get('WARM_PROBE_TIMEOUT'):
    import struct
    timed = socket.socketpair()
    timed[0].setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack('ll', 0, 61000))
if os.environ.get('WARM_PROBE_DGRAM'):
    import select
    dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dg.bind('')                                     # autobound
    lone = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)     # unbound
    et = select.epoll()
    et.register(dg.fileno(), select.EPOLLIN | select.EPOLLOUT | select.EPOLLET)
    et.register(lone.fileno(), select.EPOLLOUT | select.EPOLLONESHOT)
    et_before = et.poll(0)                          # the writable edge, and the one shot, taken before the point
time.sleep(2)
net = len(sys.argv) > 1
if net:
    # Never real traffic: only in a namespace whose one interface is lo.
    with open('/proc/self/net/dev') as f:
        if [l.split(':')[0].strip() for l in f.readlines()[2:]] != ['lo']:
            sys.exit('warm_probe: not in a network namespace of lo alone')
    me, peers = sys.argv[1], sys.argv[2].split(',')
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('0.0.0.0', 7300))
print('seed', os.urandom(4).hex(), os.getpid(), os.getppid(), flush=True)
print('after there already:', os.path.exists('after'), flush=True)
print('source', head, src.read(9), os.lseek(src.fileno(), 0, os.SEEK_CUR), flush=True)
with open('after', 'w') as f:
    f.write('seed\n')
print('inodes', os.stat('before').st_ino == ino, os.stat('.').st_ino, os.stat('after').st_ino, flush=True)
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print('child', pid, sorted(os.listdir('.')), os.getcwd(), flush=True)
if net:
    nxt = peers[(peers.index(me) + 1) % len(peers)]
    s.sendto(me.encode(), (nxt, 7300))
    print('from', s.recvfrom(100)[0].decode(), flush=True)
if loop:
    woken = loop.create_future()
    def wake():
        time.sleep(0.1)
        loop.call_soon_threadsafe(woken.set_result, 'woken')
    threading.Thread(target=wake).start()
    print('loop', loop.run_until_complete(asyncio.wait_for(woken, 5)), flush=True)
if os.environ.get('WARM_PROBE_PIPE'):
    print('eventfd', sorted(fd == efd for fd, _ in ep.poll(0)), os.eventfd_read(efd), ep.poll(0), flush=True)
    threading.Thread(target=lambda: (time.sleep(0.1), os.write(pipe_w, b'p'))).start()
    print('pipe', [fd == pipe_r for fd, _ in ep.poll(5)], os.read(pipe_r, 1), flush=True)
    print('pipe inode kept', os.fstat(pipe_r).st_ino == pipe_ino, flush=True)
if os.environ.get('WARM_PROBE_DGRAM'):
    again = et.poll(0)                              # no edge since
    lone.sendto(b'y', dg.getsockname())
    print('dgram', len(et_before), again, [ev & select.EPOLLIN for _, ev in et.poll(1)], dg.recv(10),
          len(dg.getsockname()), flush=True)
    et.modify(lone.fileno(), select.EPOLLOUT | select.EPOLLONESHOT)
    print('rearmed', [fd == lone.fileno() for fd, _ in et.poll(0)], et.poll(0), flush=True)
if os.environ.get('WARM_PROBE_WRITER'):
    logf.write('seed line %s\n' % os.urandom(2).hex())
    dataf.write(b'XY')
    logf.close()
    dataf.close()
    print('log', [l.split()[0] for l in open('log')], 'data', open('data', 'rb').read(), flush=True)
if os.environ.get('WARM_PROBE_LOCKS'):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        got = []
        try:
            fcntl.flock(open('flocked', 'w'), fcntl.LOCK_EX | fcntl.LOCK_NB)
            got.append('flock taken')
        except BlockingIOError:
            got.append('flock held')
        probe = struct.pack('hhqqi', fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        t, _, start, length, owner = struct.unpack('hhqqi', fcntl.fcntl(open('recorded', 'r+'), fcntl.F_GETLK, probe))
        got.append('record %s %d %d %s' % ('held' if t == fcntl.F_WRLCK else 'free', start, length,
                                          'by the parent' if owner == os.getppid() else owner))
        os.write(w, ', '.join(got).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    print('locks', os.read(r, 200).decode(), flush=True)
if os.environ.get('WARM_PROBE_MMAP'):
    earlier = rw[40:48]
    rw[40:48] = os.urandom(4).hex().encode()
    with open('shared', 'r+b') as f:
        f.seek(10)
        f.write(b'by-write')
    rw[20:26] = b'mapped'
    rw.flush()
    with open('shared', 'rb') as f:
        in_file = f.read(48)
    with open('mapped-ro', 'r+b') as f:
        f.write(b'ro-file')
    print('mmap', earlier, rw[0:26], in_file, ro[0:8], flush=True)
    os.fsync(held_dir)
    print('directory', os.fstat(held_dir).st_ino == os.stat('.').st_ino, 'shared' in os.listdir(held_dir), flush=True)
if threads:
    if os.environ.get('WARM_PROBE_SELECT'):
        os.write(sel_w, b's')
    ev.set()
    for t in threads:
        t.join()
    print('threads joined', [t.is_alive() for t in threads], flush=True)
if os.environ.get('WARM_PROBE_SHM'):
    with open('/dev/shm/left', 'w') as f:
        f.write('x')
if os.environ.get('WARM_PROBE_TIMEOUT'):
    try:
        print('timed', timed[0].recv(1), flush=True)
    except OSError as e:
        print('timed', type(e).__name__, flush=True)
print('ok', flush=True)
