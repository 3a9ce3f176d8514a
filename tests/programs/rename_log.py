"""rename_log.py [--dirsync] DIR: rename_log.c in Python. A log kept by
atomic replacement: at start it creates DIR if need be (and fsyncs its
parent, so DIR itself is durable), counts the complete records "r1\\n"
"r2\\n" ... of DIR/log and prints "recovered N"; then for I = N+1 ... 40 it
writes the whole new log (records 1..I) to DIR/log.tmp, fsyncs it, renames
it over DIR/log, with --dirsync fsyncs DIR, and prints "ack I". A crash may
undo the rename (losing the file, or an acknowledged record) only without
--dirsync."""
import os
import sys
import time

LAST = 40


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def count_records(path):
    """Records r1, r2, ... in order, each ending in a newline."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return 0
    n = 0
    for line in data.split(b"\n")[:-1]:  # the last piece has no newline
        if line != b"r%d" % (n + 1):
            break
        n += 1
    return n


def main():
    args = sys.argv[1:]
    dirsync = len(args) > 1 and args[0] == "--dirsync"
    if not args:
        sys.exit("usage: rename_log.py [--dirsync] DIR")
    d = args[-1]
    try:
        os.mkdir(d, 0o755)
    except FileExistsError:
        pass
    fsync_dir(os.path.dirname(os.path.abspath(d)))
    log = os.path.join(d, "log")
    tmp = os.path.join(d, "log.tmp")
    n = count_records(log)
    print("recovered %d" % n, flush=True)
    for i in range(n + 1, LAST + 1):
        data = b"".join(b"r%d\n" % r for r in range(1, i + 1))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, log)
        if dirsync:
            fsync_dir(d)
        print("ack %d" % i, flush=True)
        time.sleep(0.1)


main()
