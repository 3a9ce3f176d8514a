#!/usr/bin/python3
"""election: Raft-style leader election among nodes over UDP.

    election.py ME PEERS PORT SECONDS [--fixed]

PEERS is a comma-separated list of machine names, ME one of them; every
node listens on UDP PORT. Runs for SECONDS (by the monotonic clock), then
exits 0. Prints "ME: leader of term T" each time it becomes a leader.

The protocol (one JSON object per datagram): a follower that hears no
heartbeat for a random 300..600 ms becomes a candidate: term + 1, votes for
itself, asks everyone for a vote ("vote_req"). A node grants at most one
vote per term. Votes from a majority make a leader, which sends a heartbeat
("hb") every 100 ms. A message with a higher term turns its receiver into a
follower of that term. Raft's promise: at most one leader per term.

The planted bug: a node grants its vote to every candidate of its current
term, forgetting whom it already voted for. Two candidates of one term can
then both win. That takes two nodes campaigning in the same term at once:
rare while the cluster is healthy, likely after a partition heals, when the
cut-off minority, whose terms raced ahead while it kept campaigning,
comes back. --fixed grants one vote per term.

Refuses to run (exit 3) unless `lo` is its network namespace's only
interface: the addresses of a simulated cluster are real private addresses
outside dsim, so this program must never see a real network.
"""
import json
import random
import select
import socket
import sys
import time

HEARTBEAT = 0.1
TIMEOUT = (0.3, 0.6)


def require_lo_only():
    with open("/proc/self/net/dev") as f:
        names = [line.split(":", 1)[0].strip() for line in f.read().splitlines()[2:]]
    if names != ["lo"]:
        print(f"election: network interfaces {names}: refusing to run outside an empty "
              "network namespace (run under dsim, or inside `unshare --net`)", file=sys.stderr)
        sys.exit(3)


class Node:
    def __init__(self, me, peers, port, fixed):
        self.me, self.peers, self.port, self.fixed = me, peers, port, fixed
        self.majority = len(peers) // 2 + 1
        self.addr = {p: socket.gethostbyname(p) for p in peers}
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("0.0.0.0", port))
        self.sock.setblocking(False)
        self.term, self.voted_for, self.role, self.votes = 0, None, "follower", set()
        self.reset_timer()

    def reset_timer(self):
        self.deadline = time.monotonic() + random.uniform(*TIMEOUT)

    def send(self, to, **msg):
        msg.update(src=self.me, term=self.term)
        self.sock.sendto(json.dumps(msg).encode(), (self.addr[to], self.port))

    def broadcast(self, **msg):
        for p in self.peers:
            if p != self.me:
                self.send(p, **msg)

    def campaign(self):
        self.term += 1
        self.role, self.voted_for, self.votes = "candidate", self.me, {self.me}
        self.broadcast(t="vote_req")
        self.reset_timer()

    def grants(self, candidate):
        if self.fixed:
            return self.voted_for in (None, candidate)
        return True                     # the bug: a second vote in the same term

    def receive(self, m):
        if m["term"] > self.term:
            self.term, self.role, self.voted_for = m["term"], "follower", None
        if m["term"] < self.term:
            return                      # stale
        if m["t"] == "vote_req":
            granted = self.grants(m["src"])
            if granted:
                self.voted_for = m["src"]
                self.reset_timer()
            self.send(m["src"], t="vote", granted=granted)
        elif m["t"] == "vote" and self.role == "candidate" and m["granted"]:
            self.votes.add(m["src"])
            if len(self.votes) >= self.majority:
                self.role = "leader"
                print(f"{self.me}: leader of term {self.term}", flush=True)
                self.broadcast(t="hb")
                self.next_hb = time.monotonic() + HEARTBEAT
        elif m["t"] == "hb" and self.role != "leader":
            self.role = "follower"
            self.reset_timer()

    def run(self, seconds):
        end = time.monotonic() + seconds
        while (now := time.monotonic()) < end:
            if self.role == "leader" and now >= self.next_hb:
                self.broadcast(t="hb")
                self.next_hb = now + HEARTBEAT
            elif self.role != "leader" and now >= self.deadline:
                self.campaign()
            wake = self.next_hb if self.role == "leader" else self.deadline
            select.select([self.sock], [], [], max(0.0, min(wake, end) - now))
            while True:
                try:
                    data = self.sock.recv(2048)
                except (BlockingIOError, ConnectionRefusedError):
                    break
                self.receive(json.loads(data))


def main(argv):
    require_lo_only()
    if len(argv) not in (4, 5) or argv[4:] not in ([], ["--fixed"]):
        sys.exit(__doc__)
    peers = argv[1].split(",")
    Node(argv[0], peers, int(argv[2]), argv[4:] == ["--fixed"]).run(float(argv[3]))


if __name__ == "__main__":
    main(sys.argv[1:])
