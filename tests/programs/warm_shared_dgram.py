# A unix datagram socket (unbound) that a process and the child it forks
# both hold across a warm start's point (warm_start = 1s): one socket, in
# the copies too. Each prints its socket's inode number after the point.
import os, socket, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
pid = os.fork()
time.sleep(2)
print('child' if pid == 0 else 'parent', os.fstat(s.fileno()).st_ino, flush=True)
if pid:
    os.waitpid(pid, 0)
