"""kv_store.py [--fsync] DIR: kv_ack's twin in Python, as a user would write
it. It makes DIR (os.makedirs), counts the complete records of DIR/data.log
and prints "recovered N", then appends records N+1 .. 50 through a buffered
file, printing "ack I" after each flush (and with --fsync after os.fsync).
A crash may lose an acknowledged record only without --fsync: the disk is a
journal, so the file's fsync also commits the directory it was made in."""
import os
import sys
import time

sync = sys.argv[1] == "--fsync"
directory = sys.argv[-1]
path = os.path.join(directory, "data.log")
os.makedirs(directory, exist_ok=True)
n = 0
if os.path.exists(path):
    with open(path) as f:
        for line in f:
            if line.startswith("k") and line.endswith("\n"):
                n += 1
print("recovered", n, flush=True)
with open(path, "a") as f:
    for i in range(n + 1, 51):
        f.write("k%d\n" % i)
        f.flush()
        if sync:
            os.fsync(f.fileno())
        print("ack", i, flush=True)
        time.sleep(0.1)
