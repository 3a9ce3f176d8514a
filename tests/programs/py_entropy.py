#!/usr/bin/python3
"""py_entropy: CPython's sources of nondeterminism, from three threads.

Each thread records, under a lock, the values below; after all threads are
joined the main thread prints them in thread order (so the order of lines is
fixed by the program, not by the scheduler). Line format:

    t<I> <key> <value>

Natively the values change from run to run. Under dsim they must depend only
on the seed: random/urandom/uuid4/hash("abc") come from the seeded entropy
(and so differ between seeds), time.time() is on the virtual clock (near the
fixed epoch), and pids, tids and object addresses are reproducible.
"""
import os
import random
import threading
import time
import uuid

NTHREADS = 3
lock = threading.Lock()
results = {}


def work(i):
    vals = [
        ("random", repr(random.random())),
        ("urandom", os.urandom(8).hex()),
        ("uuid4", str(uuid.uuid4())),
        ("uuid1", str(uuid.uuid1())),
        ("hash", str(hash("abc"))),
        ("pid", str(os.getpid())),
        ("id", str(id(object()))),
        ("time", repr(time.time())),
        ("monotonic", repr(time.monotonic())),
        ("native_id", str(threading.get_native_id())),
    ]
    with lock:
        results[i] = vals


def main():
    threads = [threading.Thread(target=work, args=(i,)) for i in range(NTHREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(NTHREADS):
        for key, value in results[i]:
            print("t%d %s %s" % (i, key, value))
    print("main pid %d" % os.getpid())
    print("main native_id %d" % threading.get_native_id())


if __name__ == "__main__":
    main()
