#!/usr/bin/python3
"""idalloc: an id allocator over TCP (asyncio) that promises unique ids.

    idalloc.py server PORT CLIENTS [--fixed]
        Hands out ids 1, 2, 3, ... one per request line "NEXT", answering
        with the id as a line. Exits after CLIENTS connections have closed,
        printing how many ids it handed out.
    idalloc.py client SERVER PORT NAME K
        Connects to SERVER (a machine name; retries while the server is not
        listening yet), asks for K ids one after another and prints
        "NAME ID" for each.

The planted bug: to hand out an id the server reads its counter, then
awaits the write of the new high-water mark to storage (an asyncio.sleep
stands in for that I/O), then stores counter + 1. While it awaits, the
event loop serves the other client's request, which reads the same
counter: both get one id. --fixed holds an asyncio.Lock across the read,
the await and the write.

Refuses to run (exit 3) unless `lo` is its network namespace's only
interface: the addresses of a simulated cluster are real private addresses
outside dsim, so this program must never see a real network.
"""
import asyncio
import sys


def require_lo_only():
    with open("/proc/self/net/dev") as f:
        names = [line.split(":", 1)[0].strip() for line in f.read().splitlines()[2:]]
    if names != ["lo"]:
        print(f"idalloc: network interfaces {names}: refusing to run outside an empty "
              "network namespace (run under dsim, or inside `unshare --net`)", file=sys.stderr)
        sys.exit(3)


class Allocator:
    def __init__(self, fixed):
        self.counter = 0
        self.lock = asyncio.Lock() if fixed else None

    async def _next(self):
        v = self.counter
        await asyncio.sleep(0.001)      # persist v + 1: other requests run here
        self.counter = v + 1
        return v + 1

    async def next(self):
        if self.lock is None:
            return await self._next()   # the bug: two requests can read the same v
        async with self.lock:
            return await self._next()


async def serve(port, clients, fixed):
    alloc = Allocator(fixed)
    closed, handed_out = 0, 0
    done = asyncio.Event()

    async def handle(reader, writer):
        nonlocal closed, handed_out
        while (line := await reader.readline()) == b"NEXT\n":
            writer.write(b"%d\n" % await alloc.next())
            handed_out += 1
            await writer.drain()
        writer.close()
        closed += 1
        if closed == clients:
            done.set()

    server = await asyncio.start_server(handle, "0.0.0.0", port)
    print(f"server: port {port}, {'fixed' if fixed else 'buggy'}", flush=True)
    async with server:
        await done.wait()
    print(f"server: {handed_out} ids handed out to {closed} clients", flush=True)


async def client(host, port, name, k):
    for _ in range(300):
        try:
            reader, writer = await asyncio.open_connection(host, port)
            break
        except ConnectionRefusedError:
            await asyncio.sleep(0.01)   # the server is not listening yet
    else:
        sys.exit(f"{name}: cannot connect to {host}:{port}")
    for _ in range(k):
        writer.write(b"NEXT\n")
        await writer.drain()
        print(f"{name} {int(await reader.readline())}", flush=True)
    writer.close()
    await writer.wait_closed()


def main(argv):
    require_lo_only()
    if len(argv) in (3, 4) and argv[0] == "server":
        asyncio.run(serve(int(argv[1]), int(argv[2]), argv[3:] == ["--fixed"]))
    elif len(argv) == 5 and argv[0] == "client":
        asyncio.run(client(argv[1], int(argv[2]), argv[3], int(argv[4])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
