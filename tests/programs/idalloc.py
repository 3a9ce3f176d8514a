#!/usr/bin/python3
"""idalloc: an id allocator over TCP (asyncio), with a deliberate race.

    idalloc.py server PORT [--buggy|--fixed] [--delay S] [--bind ADDR] [--clients N]
        Holds a counter. Each request line "NEXT" gets the next id (1, 2,
        ...) as a line. --buggy (the default) reads the counter, awaits
        asyncio.sleep(S) (default 0.001), then writes counter+1: two requests
        in flight at once can get the same id. --fixed does the same under an
        asyncio.Lock. Binds ADDR (default 0.0.0.0). With --clients N it exits
        after N client connections closed; otherwise it runs until killed.
    idalloc.py client HOST PORT NAME K
        Connects to HOST (a name from /etc/hosts, or an address; retries
        while refused: the server may start later), asks for K ids one after
        another and prints "NAME ID" per id.
    idalloc.py selftest [--buggy] [PORT]
        Natively: a server (--fixed, or --buggy) and 2 clients (a, b; 50 ids
        each) on 127.0.0.1, then idalloc_check.py on the clients' outputs.
        --fixed: the checker must find no duplicate. --buggy: it should find
        some (very likely natively, not certain: it depends on timing).
"""
import asyncio
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # see netcheck.py
from netcheck import require_lo_only  # noqa: E402


class Allocator:
    def __init__(self, buggy, delay):
        self.counter = 0
        self.buggy = buggy
        self.delay = delay
        self.lock = asyncio.Lock()
        self.handed_out = 0

    async def _next(self):
        v = self.counter
        await asyncio.sleep(self.delay)     # another request may run here...
        self.counter = v + 1                # ...and have read the same v
        self.handed_out += 1
        return v + 1

    async def next(self):
        if self.buggy:
            return await self._next()
        async with self.lock:
            return await self._next()


async def serve(port, buggy, delay, bind, nclients):
    alloc = Allocator(buggy, delay)
    done = asyncio.Event()
    closed = 0

    async def handle(reader, writer):
        nonlocal closed
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                if line.strip() == b"NEXT":
                    writer.write(b"%d\n" % await alloc.next())
                else:
                    writer.write(b"ERR\n")
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()
            closed += 1
            if nclients and closed >= nclients:
                done.set()

    server = await asyncio.start_server(handle, bind, port)
    print(f"server: port {port}, {'buggy' if buggy else 'fixed'}", flush=True)
    async with server:
        if nclients:
            await done.wait()
        else:
            await server.serve_forever()
    print(f"server: {alloc.handed_out} ids handed out to {closed} clients", flush=True)


async def client(host, port, name, k):
    for attempt in range(300):
        try:
            reader, writer = await asyncio.open_connection(host, port)
            break
        except ConnectionRefusedError:
            if attempt == 299:
                raise
            await asyncio.sleep(0.01)
    for _ in range(k):
        writer.write(b"NEXT\n")
        await writer.drain()
        line = await reader.readline()
        print(f"{name} {int(line)}", flush=True)
    writer.close()
    await writer.wait_closed()


def selftest(buggy, port):
    me = os.path.abspath(__file__)
    check = os.path.join(os.path.dirname(me), "idalloc_check.py")
    mode = "--buggy" if buggy else "--fixed"
    with tempfile.TemporaryDirectory() as tmp:
        srv = subprocess.Popen([sys.executable, me, "server", str(port), mode, "--bind", "127.0.0.1",
                                "--clients", "2"], stdout=subprocess.PIPE, text=True)
        files, clients = [], []
        for name in ("a", "b"):
            path = os.path.join(tmp, name + ".out")
            files.append(path)
            with open(path, "w") as f:
                clients.append(subprocess.Popen([sys.executable, me, "client", "127.0.0.1", str(port),
                                                 name, "50"], stdout=f))
        rcs = [c.wait() for c in clients]
        sout = srv.communicate()[0]
        print(f"selftest: server {mode[2:]}, clients a and b, 50 ids each")
        sys.stdout.write(sout)
        res = subprocess.run([sys.executable, check] + files, stdout=subprocess.PIPE, text=True)
    lines = res.stdout.splitlines()
    if rcs != [0, 0] or srv.returncode != 0:
        print(f"selftest: FAILED: client exits {rcs}, server exit {srv.returncode}")
        return 1
    if not buggy:
        print("selftest: checker: " + (lines[-1] if lines else "?"))
        ok = res.returncode == 0
    else:
        # Natively the race is very likely but timing-dependent: say only
        # whether the checker caught it, not which ids.
        ok = res.returncode == 1 and lines and lines[0].startswith("duplicate id ")
        print("selftest: checker found duplicate ids" if ok else "selftest: checker found NO duplicate")
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    require_lo_only()
    if len(argv) >= 2 and argv[0] == "server":
        opts = argv[2:]
        buggy = "--fixed" not in opts
        delay, bind, nclients = 0.001, "0.0.0.0", 0
        for flag in ("--delay", "--bind", "--clients"):
            if flag in opts:
                v = opts[opts.index(flag) + 1]
                if flag == "--delay":
                    delay = float(v)
                elif flag == "--bind":
                    bind = v
                else:
                    nclients = int(v)
        asyncio.run(serve(int(argv[1]), buggy, delay, bind, nclients))
        return 0
    if len(argv) == 5 and argv[0] == "client":
        asyncio.run(client(argv[1], int(argv[2]), argv[3], int(argv[4])))
        return 0
    if argv and argv[0] == "selftest":
        rest = [a for a in argv[1:] if a != "--buggy"]
        return selftest("--buggy" in argv, int(rest[0]) if rest else 7800)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
