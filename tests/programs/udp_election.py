#!/usr/bin/python3
"""udp_election: Raft-style leader election among nodes over UDP.

    udp_election.py ME PEERS PORT [--duration S] [--bind ADDR]
        PEERS is a comma-separated list of nodes, each NAME or NAME:PORT
        (PORT is the default); ME is this node's entry, written exactly as in
        PEERS. Binds ADDR (default 0.0.0.0) on its own port. Runs for S
        seconds (default 20, by time.monotonic) and prints its final belief.
    udp_election.py --local [BASEPORT] [--duration S]
        Runs 5 nodes as subprocesses on 127.0.0.1:BASEPORT..BASEPORT+4
        (default 7700, 4 s) and checks that they all agree on one leader,
        which is the only node in the leader role. Prints only that (who wins
        natively depends on timing).

Protocol (one JSON object per datagram): a follower that hears no heartbeat
for a random 300..600 ms (drawn from `random`, which dsim seeds) becomes a
candidate: term += 1, votes for itself, asks everyone ("vote_req"). A node
grants one vote per term ("vote"). A majority makes a leader, which sends
"hb" every 100 ms. Any message with a higher term turns the receiver into a
follower of that term. In the last `settle` seconds (a third of the run, at
most 2 s) nobody starts an election and everyone broadcasts its "final"
(term, leader) every 200 ms, so that each node can tell, at the end, whether
a majority of the cluster agrees with it.

A node's last lines:
    node ME: leader L term T, role R; heard from H of P peers; A of N agree
    ok                       (A is a majority of N), else "no majority", exit 1
"""
import json
import os
import random
import select
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # see netcheck.py
from netcheck import require_lo_only  # noqa: E402

HEARTBEAT = 0.1
TIMEOUT = (0.3, 0.6)
FINAL_EVERY = 0.2


def parse_entry(entry, default_port):
    host, _, port = entry.rpartition(":") if ":" in entry else (entry, "", "")
    return host, int(port) if port else default_port


def run_node(me, peers, default_port, duration, bind):
    entries = peers.split(",")
    if me not in entries:
        sys.exit(f"{me} is not in {peers}")
    idx = entries.index(me)
    n = len(entries)
    majority = n // 2 + 1
    addrs = []
    for e in entries:
        host, port = parse_entry(e, default_port)
        addrs.append(socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_DGRAM)[0][4])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((bind, addrs[idx][1]))
    sock.setblocking(False)

    def send(j, **msg):
        msg["from"] = idx
        try:
            sock.sendto(json.dumps(msg, sort_keys=True).encode(), addrs[j])
        except OSError:
            pass                            # e.g. a full buffer: UDP may drop

    def broadcast(**msg):
        for j in range(n):
            if j != idx:
                send(j, **msg)

    start = time.monotonic()
    end = start + duration
    freeze = end - min(2.0, duration / 3)
    term, voted_for, role, leader = 0, None, "follower", None
    votes = set()
    finals = {}
    deadline = start + random.uniform(*TIMEOUT)
    next_hb = next_final = 0.0

    while True:
        now = time.monotonic()
        if now >= end:
            break
        if role == "leader" and now >= next_hb:
            broadcast(t="hb", term=term)
            next_hb = now + HEARTBEAT
        if role != "leader" and now >= deadline and now < freeze:
            term += 1
            role, voted_for, leader, votes = "candidate", idx, None, {idx}
            broadcast(t="vote_req", term=term)
            deadline = now + random.uniform(*TIMEOUT)
        if now >= freeze and now >= next_final:
            broadcast(t="final", term=term, leader=leader)
            next_final = now + FINAL_EVERY
        wake = [end]
        if role == "leader":
            wake.append(next_hb)
        elif now < freeze:
            wake.append(min(deadline, freeze))
        else:
            wake.append(next_final)
        select.select([sock], [], [], max(0.0, min(wake) - now))
        while True:
            try:
                data, _ = sock.recvfrom(2048)
            except (BlockingIOError, ConnectionRefusedError):
                break
            try:
                m = json.loads(data)
                t, mterm, src = m["t"], m["term"], m["from"]
            except (ValueError, KeyError, TypeError):
                continue
            now = time.monotonic()
            if mterm > term:
                term, role, voted_for, leader = mterm, "follower", None, None
            if t == "vote_req":
                granted = mterm == term and voted_for in (None, src)
                if granted:
                    voted_for = src
                    deadline = now + random.uniform(*TIMEOUT)
                send(src, t="vote", term=term, granted=granted)
            elif t == "vote":
                if role == "candidate" and mterm == term and m.get("granted"):
                    votes.add(src)
                    if len(votes) >= majority:
                        role, leader, next_hb = "leader", idx, now
            elif t == "hb":
                if mterm == term:
                    role, leader = "follower", src
                    deadline = now + random.uniform(*TIMEOUT)
                else:                           # a stale leader: tell it
                    send(src, t="term", term=term)
            elif t == "final":
                finals[src] = (mterm, m.get("leader"))

    mine = (term, leader)
    agree = 1 + sum(1 for v in finals.values() if v == mine) if leader is not None else 0
    lname = entries[leader] if leader is not None else "none"
    print(f"node {me}: leader {lname} term {term}, role {role}; "
          f"heard from {len(finals)} of {n - 1} peers; {agree} of {n} agree")
    if agree >= majority:
        print("ok")
        return 0
    print("no majority")
    return 1


def run_local(base, duration):
    entries = [f"127.0.0.1:{base + i}" for i in range(5)]
    peers = ",".join(entries)
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), e, peers, str(base),
                               "--duration", str(duration), "--bind", "127.0.0.1"],
                              stdout=subprocess.PIPE, text=True) for e in entries]
    outs = [p.communicate()[0] for p in procs]
    finals = []
    for p, out in zip(procs, outs):
        line = out.splitlines()[0] if out else ""
        w = line.replace(",", "").replace(";", "").split()
        # node ME: leader L term T role R ...
        ok = p.returncode == 0 and len(w) > 7 and w[0] == "node"
        finals.append((w[3], w[5], w[1].rstrip(":"), w[7]) if ok else None)
    good = (all(finals) and len({(f[0], f[1]) for f in finals}) == 1
            and [f[2] for f in finals if f[3] == "leader"] == [finals[0][0]])
    print(f"local: 5 nodes on 127.0.0.1 for {duration} s")
    if good:
        print("local: all agree on one leader and term; it alone is in the leader role")
        print("ok")
        return 0
    print("local: NO AGREEMENT; the nodes said:")
    for out in outs:
        sys.stdout.write(out)
    return 1


def main(argv):
    require_lo_only()
    duration = None
    bind = "0.0.0.0"
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--duration" and i + 1 < len(argv):
            duration = float(argv[i + 1])
            i += 2
        elif argv[i] == "--bind" and i + 1 < len(argv):
            bind = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if args and args[0] == "--local" and len(args) <= 2:
        d = duration if duration is not None else 4
        return run_local(int(args[1]) if len(args) == 2 else 7700, int(d) if d == int(d) else d)
    if len(args) == 3:
        return run_node(args[0], args[1], int(args[2]), duration if duration is not None else 20.0, bind)
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
