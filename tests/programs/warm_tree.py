# Warm start from a snapshot (t_warm_snapshot.sh): a disk made before the
# point must read after it, in a seed started from a copy, as in its cold
# run. Before the point (warm_start = 1s, in the sleep) it makes, under
# /var/tmp/t: files with holes and without, a hard link, a symlink, a fifo,
# owners, modes (set-id bits, a sticky directory), times (a directory's
# too), user xattrs; and it removes files of the config's directory
# (whiteouts) and a directory there it then makes again (an opaque one:
# the old one's file must stay hidden). After the point it lists both
# trees, every entry's type, mode, owner, links, size, blocks, times,
# device, xattrs and target, in directory order.
import os, stat, sys, time

T = '/var/tmp/t'
C = '/dsim/config/tree'
os.makedirs(T + '/d/e')
with open(T + '/plain', 'w') as f:
    f.write('plain\n' * 1000)
with open(T + '/holes', 'wb') as f:
    f.seek(300000)
    f.write(b'x')
    f.truncate(1 << 20)
with open(T + '/empty', 'w'):
    pass
os.link(T + '/plain', T + '/d/also')
os.symlink('../plain', T + '/d/link')
os.symlink('/nowhere', T + '/dangling')
os.mkfifo(T + '/fifo', 0o640)
os.chown(T + '/d/e', 1, 2)
os.chmod(T + '/plain', 0o6751)
os.mkdir(T + '/sticky', 0o1777)
os.chmod(T + '/sticky', 0o1777)
os.setxattr(T + '/plain', 'user.probe', b'v1')
os.setxattr(T + '/d', 'user.dir', b'')
os.utime(T + '/empty', ns=(1_000_000_001, 2_000_000_002))
os.utime(T + '/d/link', ns=(3_000_000_003, 4_000_000_004), follow_symlinks=False)
for name in ('z', 'a', 'm'):        # the directory's order is not the names'
    open(T + '/' + name, 'w').close()
os.rename(T + '/a', T + '/ab')
os.remove(C + '/gone')
os.remove(C + '/sub/x')
os.rmdir(C + '/sub')
os.mkdir(C + '/sub')
with open(C + '/sub/y', 'w') as f:
    f.write('new\n')
os.utime(T + '/d/e', ns=(5_000_000_005, 6_000_000_006))
os.utime(T + '/d', ns=(7_000_000_007, 8_000_000_008))
time.sleep(2)


def show(path):
    st = os.lstat(path)
    xa = sorted((k, os.getxattr(path, k, follow_symlinks=False)) for k in os.listxattr(path, follow_symlinks=False)) \
        if not stat.S_ISLNK(st.st_mode) else []
    what = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ''
    if stat.S_ISREG(st.st_mode):
        with open(path, 'rb') as f:
            data = f.read()
        what = '%d bytes, %d nonzero' % (len(data), len(data) - data.count(0))
    print(path, oct(st.st_mode), st.st_uid, st.st_gid, st.st_nlink, st.st_size, st.st_blocks,
          st.st_atime_ns, st.st_mtime_ns, st.st_rdev, xa, what, flush=True)


for top in (T, C):
    for d, dirs, files in os.walk(top):
        show(d)
        for n in dirs + files:
            if not os.path.isdir(os.path.join(d, n)) or os.path.islink(os.path.join(d, n)):
                show(os.path.join(d, n))
print('same inode', os.stat(T + '/plain').st_ino == os.stat(T + '/d/also').st_ino, flush=True)
with open(T + '/d/also', 'a') as f:      # a seed's write: no later seed sees it
    f.write('seed %s\n' % os.urandom(4).hex())
print('ok', flush=True)
