#!/usr/bin/python3
"""jobqueue: a job queue, a bank and workers over TCP; every job must be
paid for exactly once.

    jobqueue.py queue PORT JOBS
        Holds jobs 1..JOBS. "GET" leases the first job neither acknowledged
        nor leased (a lease runs out after 1 s) and answers "JOB J"; "WAIT"
        when every open job is leased; "DONE" once all are acknowledged.
        "ACK J" records J as done, in a journal it fsyncs before answering
        "OK", so acknowledgements survive a crash (leases do not).
    jobqueue.py bank PORT [--idempotent]
        "CREDIT J W" pays for job J: prints "credit J by W", answers "OK".
        With --idempotent the bank remembers which jobs it paid and pays
        each at most once (the job id is the idempotency key).
    jobqueue.py worker NAME QUEUE QPORT BANK BPORT
        Until the queue says DONE: GET a job, CREDIT it at the bank, write
        its receipt (0.2 s), then ACK it. A call that gets no answer within
        2 s is sent again on a new connection.

The planted bug: the work (the credit) and its acknowledgement are two
steps. A job credited but never acknowledged -- its worker crashed, or was
cut off from the queue, between the two -- is leased again once its lease
runs out, and credited a second time: at-least-once, not exactly-once.
The fix is on the bank's side (--idempotent): a second credit of one job
changes nothing.

Refuses to run (exit 3) unless `lo` is its network namespace's only
interface: the addresses of a simulated cluster are real private addresses
outside dsim, so this program must never see a real network.
"""
import asyncio
import os
import socket
import sys
import time

LEASE = 1.0
JOURNAL = "/var/lib/jobqueue/acks"


def require_lo_only():
    with open("/proc/self/net/dev") as f:
        names = [line.split(":", 1)[0].strip() for line in f.read().splitlines()[2:]]
    if names != ["lo"]:
        print(f"jobqueue: network interfaces {names}: refusing to run outside an empty "
              "network namespace (run under dsim, or inside `unshare --net`)", file=sys.stderr)
        sys.exit(3)


def serve_lines(port, answer):
    """Serves TCP on PORT: each request line gets answer(words) as a line."""
    async def handle(reader, writer):
        try:
            while line := await reader.readline():
                writer.write(answer(line.decode().split() or [""]).encode() + b"\n")
                await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    async def serve():
        server = await asyncio.start_server(handle, "0.0.0.0", port)
        async with server:
            await server.serve_forever()
    asyncio.run(serve())


def queue(port, njobs):
    os.makedirs(os.path.dirname(JOURNAL), exist_ok=True)
    acked = set()
    if os.path.exists(JOURNAL):
        with open(JOURNAL) as f:
            acked = {int(w[1]) for w in map(str.split, f) if len(w) == 2 and w[0] == "ack"}
    journal = open(JOURNAL, "a")
    leased = {}                 # job -> when its lease runs out
    print(f"queue: {njobs} jobs, {len(acked)} acknowledged before", flush=True)

    def answer(words):
        now = time.monotonic()
        if words == ["GET"]:
            if len(acked) == njobs:
                return "DONE"
            for j in range(1, njobs + 1):
                if j not in acked and leased.get(j, 0) <= now:
                    leased[j] = now + LEASE
                    return f"JOB {j}"
            return "WAIT"
        if len(words) == 2 and words[0] == "ACK":
            j = int(words[1])
            if j not in acked:
                journal.write(f"ack {j}\n")
                journal.flush()
                os.fsync(journal.fileno())
                acked.add(j)
            return "OK"
        return "ERR"
    serve_lines(port, answer)


def bank(port, idempotent):
    paid = set()

    def answer(words):
        if len(words) != 3 or words[0] != "CREDIT":
            return "ERR"
        if not (idempotent and words[1] in paid):
            print(f"credit {words[1]} by {words[2]}", flush=True)
        paid.add(words[1])
        return "OK"
    serve_lines(port, answer)


class Conn:
    """A line-per-call connection that reconnects and resends on silence."""

    def __init__(self, host, port):
        self.addr, self.sock, self.buf = (host, port), None, b""

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
    while (reply := q.call("GET")) != "DONE":
        if reply == "WAIT":
            time.sleep(0.1)
            continue
        job = int(reply.split()[1])
        b.call(f"CREDIT {job} {name}")
        time.sleep(0.2)                 # the receipt: a crash or a cut here loses the ack
        q.call(f"ACK {job}")
    print(f"{name}: done", flush=True)


def main(argv):
    require_lo_only()
    if len(argv) == 3 and argv[0] == "queue":
        queue(int(argv[1]), int(argv[2]))
    elif len(argv) in (2, 3) and argv[0] == "bank" and argv[2:] in ([], ["--idempotent"]):
        bank(int(argv[1]), argv[2:] == ["--idempotent"])
    elif len(argv) == 6 and argv[0] == "worker":
        worker(argv[1], argv[2], int(argv[3]), argv[4], int(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
