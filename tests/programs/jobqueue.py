#!/usr/bin/python3
"""jobqueue: a job queue, a bank and workers over TCP, with a deliberate bug.

    jobqueue.py queue PORT --jobs N [--lease S] [--journal FILE]
        Holds jobs 1..N. "GET W" leases the first job neither acknowledged
        nor leased (a lease runs out after S seconds, default 1) and answers
        "JOB J"; "WAIT" when every open job is leased; "DONE" once all are
        acknowledged. "ACK J" records J as done (appended to FILE, fsynced,
        before the answer "OK"), so acknowledgements survive a crash; leases
        do not. Runs until killed.
    jobqueue.py bank PORT [--idempotent]
        "CREDIT J W" pays for job J: prints "credit J by W" and answers "OK".
        With --idempotent a job already paid for is not paid again.
    jobqueue.py worker NAME QHOST QPORT BHOST BPORT
        Until the queue says DONE: GET a job, CREDIT it at the bank, write
        its receipt (0.2 s), then ACK it. A call that gets no answer within
        2 s is sent again on a new connection (at least once).
    THE BUG: a job credited but never acknowledged (its worker crashed, or
    was cut off from the queue, between the credit and the ack) is leased
    again once its lease runs out, and credited a second time.
"""
import asyncio
import os
import socket
import sys
import time

sys.dont_write_bytecode = True  # see netcheck.py
from netcheck import require_lo_only  # noqa: E402


def opt(args, flag, default):
    return args[args.index(flag) + 1] if flag in args else default


async def serve(port, handle):
    server = await asyncio.start_server(handle, "0.0.0.0", port)
    async with server:
        await server.serve_forever()


def queue(port, args):
    njobs = int(opt(args, "--jobs", "10"))
    lease = float(opt(args, "--lease", "1"))
    journal = opt(args, "--journal", "/var/tmp/jobqueue.journal")
    acked = set()
    if os.path.exists(journal):
        with open(journal) as f:
            acked = {int(w[1]) for w in (line.split() for line in f) if len(w) == 2 and w[0] == "ack"}
    log = open(journal, "a")
    leased = {}                 # job -> when its lease runs out
    print(f"queue: {njobs} jobs, {len(acked)} acknowledged before", flush=True)

    def answer(words):
        now = asyncio.get_running_loop().time()
        if words[0] == "GET":
            if len(acked) == njobs:
                return "DONE"
            for j in range(1, njobs + 1):
                if j not in acked and leased.get(j, 0) <= now:
                    leased[j] = now + lease
                    return f"JOB {j}"
            return "WAIT"
        if words[0] == "ACK" and len(words) == 2:
            j = int(words[1])
            if j not in acked:
                log.write(f"ack {j}\n")
                log.flush()
                os.fsync(log.fileno())
                acked.add(j)
            return "OK"
        return "ERR"

    async def handle(reader, writer):
        try:
            while line := await reader.readline():
                writer.write(answer(line.decode().split() or [""]).encode() + b"\n")
                await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    asyncio.run(serve(port, handle))


def bank(port, args):
    idempotent = "--idempotent" in args
    paid = set()

    async def handle(reader, writer):
        try:
            while line := await reader.readline():
                w = line.decode().split()
                if len(w) == 3 and w[0] == "CREDIT":
                    if not (idempotent and w[1] in paid):
                        print(f"credit {w[1]} by {w[2]}", flush=True)
                    paid.add(w[1])
                    writer.write(b"OK\n")
                else:
                    writer.write(b"ERR\n")
                await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    asyncio.run(serve(port, handle))


class Conn:
    """A line-per-call connection that reconnects and resends on silence."""

    def __init__(self, host, port):
        self.addr = (host, port)
        self.sock = None
        self.buf = b""

    def call(self, line):
        while True:
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(self.addr, timeout=2)
                    self.buf = b""
                self.sock.sendall(line.encode() + b"\n")
                while b"\n" not in self.buf:
                    data = self.sock.recv(4096)
                    if not data:
                        raise ConnectionResetError("closed")
                    self.buf += data
                reply, self.buf = self.buf.split(b"\n", 1)
                return reply.decode()
            except OSError:             # refused, reset, timed out: again
                if self.sock is not None:
                    self.sock.close()
                    self.sock = None
                time.sleep(0.1)


def worker(name, qhost, qport, bhost, bport):
    q, b = Conn(qhost, qport), Conn(bhost, bport)
    credited = 0
    while True:
        reply = q.call(f"GET {name}")
        if reply == "DONE":
            print(f"{name}: done, credited {credited} jobs", flush=True)
            return
        if reply == "WAIT":
            time.sleep(0.1)
            continue
        job = int(reply.split()[1])
        b.call(f"CREDIT {job} {name}")
        credited += 1
        time.sleep(0.2)                 # the receipt: an ack lost now means a second credit
        q.call(f"ACK {job}")


def main(argv):
    require_lo_only()
    if len(argv) >= 2 and argv[0] == "queue":
        queue(int(argv[1]), argv[2:])
    elif len(argv) >= 2 and argv[0] == "bank":
        bank(int(argv[1]), argv[2:])
    elif len(argv) == 6 and argv[0] == "worker":
        worker(argv[1], argv[2], int(argv[3]), argv[4], int(argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
