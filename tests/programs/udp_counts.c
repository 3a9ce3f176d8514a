/* udp_counts: numbered UDP datagrams, counted at the receiver.
 *
 *   udp_counts recv HOST PORT N [exact]
 *       Binds HOST:PORT, receives datagrams (recvfrom and recvmsg in turn)
 *       until the sender's end marker or 2 s of quiet, and prints how many
 *       distinct / duplicate / out-of-order / missing datagrams it saw, and
 *       the sender's IP. With `exact` it also checks that all N arrived
 *       once and in order (true on loopback and on a faultless network).
 *   udp_counts send HOST PORT N
 *       Sends "hello" until the receiver answers (it may start later), then
 *       N numbered datagrams of 8..200 bytes in bursts of 50, waiting (up to
 *       500 ms) for the receiver's ack of each burst so that its socket
 *       buffer never overflows. The first half goes out with sendto() on an
 *       unconnected socket, the rest after connect() with send() and
 *       sendmsg() in turn. Then an end marker (3 copies) and it waits up to
 *       2 s for the receiver's report, which it prints.
 *   udp_counts refused HOST PORT
 *       To a port nobody listens on: an unconnected sendto() reports nothing;
 *       on a connected socket the ICMP port-unreachable comes back as
 *       ECONNREFUSED from a later call.
 *   udp_counts selftest [PORT]
 *       recv (exact) and send on 127.0.0.1 as child processes (receiver's
 *       output first), then `refused` on PORT+1.
 *
 * Datagram: seq (4 bytes, big-endian), N (4 bytes), payload bytes (seq+i).
 * Replies from the receiver: 'H' (hello), 'A'+seq (burst ack), 'R'+counts.
 * The last line is "ok" and the exit status is 0 only if every check passed. */
#include "netcheck.h"
#include <poll.h>
#include <stdint.h>

#define HELLO 0xfffffffeu
#define END 0xffffffffu
#define BURST 50

static size_t payload_len(uint32_t seq) { return 8 + (seq * 37u) % 193; }

/* Build datagram seq into buf; returns its length. */
static size_t make_dgram(unsigned char *buf, uint32_t seq, uint32_t n)
{
	uint32_t h[2] = { htonl(seq), htonl(n) };
	memcpy(buf, h, 8);
	size_t len = seq >= HELLO ? 8 : 8 + payload_len(seq);
	for (size_t i = 8; i < len; i++)
		buf[i] = (unsigned char)(seq + i);
	return len;
}

static uint32_t get32(const unsigned char *b)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return ntohl(v);
}

/* Wait up to ms for a datagram; returns its length, 0 if the wait ended
 * without one (EINTR; or ECONNREFUSED on a connected sender: a copy of the
 * end marker reached the receiver after it closed), -1 on timeout. */
static ssize_t recv_wait(int fd, unsigned char *buf, size_t cap, int ms,
			 struct sockaddr_storage *from, socklen_t *fromlen)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int r = poll(&p, 1, ms);
	if (r < 0 && errno != EINTR)
		die("poll");
	if (r == 0)
		return -1;
	ssize_t n = r < 0 ? 0 : recvfrom(fd, buf, cap, 0, (struct sockaddr *)from, fromlen);
	if (n < 0 && errno != ECONNREFUSED && errno != EINTR)
		die("recvfrom");
	return n < 0 ? 0 : n;
}

/* --- receiver ------------------------------------------------------------- */

static int run_recv(const char *host, int port, uint32_t n, int exact)
{
	int fd = listen_on(host, port, SOCK_DGRAM);
	unsigned char *seen = calloc(n ? n : 1, 1);
	uint32_t distinct = 0, dups = 0, ooo = 0, corrupt = 0, maxseq = 0, calls = 0;
	int any = 0, one_peer = 1, got_end = 0;
	struct sockaddr_storage first;
	unsigned char buf[2048], want[2048];
	while (!got_end) {
		struct pollfd p = { fd, POLLIN, 0 };
		int pr = poll(&p, 1, 2000);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			die("poll");
		if (pr == 0)
			break;                  /* 2 s of quiet */
		struct sockaddr_storage from;
		socklen_t flen = sizeof from;
		ssize_t len;
		if (calls++ % 2 == 0) {
			len = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
		} else {
			struct iovec iov = { buf, sizeof buf };
			struct msghdr mh = { .msg_name = &from, .msg_namelen = flen,
					     .msg_iov = &iov, .msg_iovlen = 1 };
			len = recvmsg(fd, &mh, 0);
			flen = mh.msg_namelen;
			CHECK(len < 0 || !(mh.msg_flags & MSG_TRUNC), "MSG_TRUNC");
		}
		if (len < 0)
			die("recv");
		if (len < 8) {
			corrupt++;
			continue;
		}
		uint32_t seq = get32(buf);
		if (seq == HELLO) {
			sendto(fd, "H", 1, 0, (struct sockaddr *)&from, flen);
			continue;
		}
		/* Every data datagram and the end marker: same sender? */
		if (!any) {
			first = from;
			any = 1;
		} else if (memcmp(&first, &from, flen) != 0) {
			one_peer = 0;
		}
		if (seq == END) {
			got_end = 1;
			break;
		}
		if (seq >= n || get32(buf + 4) != n || (size_t)len != make_dgram(want, seq, n) ||
		    memcmp(buf, want, (size_t)len) != 0) {
			corrupt++;
			continue;
		}
		if (seen[seq]) {
			dups++;
			continue;
		}
		seen[seq] = 1;
		distinct++;
		if (distinct > 1 && seq < maxseq)
			ooo++;
		if (seq > maxseq)
			maxseq = seq;
		if (seq % BURST == BURST - 1 || seq == n - 1) {
			unsigned char ack[5] = { 'A' };
			uint32_t s = htonl(seq);
			memcpy(ack + 1, &s, 4);
			sendto(fd, ack, 5, 0, (struct sockaddr *)&from, flen);
		}
	}
	char ip[INET6_ADDRSTRLEN];
	printf("recv: %s; datagrams from %s, %s\n", got_end ? "end marker received" : "2 s of quiet, no end marker",
	       any ? addr_ip(&first, ip, sizeof ip) : "nobody", one_peer ? "all from one address and port" : "SEVERAL ADDRESSES");
	printf("recv: %u distinct of %u, %u duplicates, %u out of order, %u missing, %u corrupt\n",
	       distinct, n, dups, ooo, n - distinct, corrupt);
	CHECK(corrupt == 0 && one_peer, "corrupt datagrams or several senders");
	if (exact)
		CHECK(got_end && distinct == n && dups == 0 && ooo == 0, "not exactly N in order");
	if (got_end) {
		/* The report, 3 copies (one may be lost), and again for each later
		 * copy of the end marker until 500 ms of quiet: exiting at once
		 * would make the kernel answer those copies with ICMP port
		 * unreachable, and the sender hear ECONNREFUSED, or not, by timing. */
		unsigned char rep[13] = { 'R' };
		uint32_t v[3] = { htonl(distinct), htonl(dups), htonl(ooo) };
		memcpy(rep + 1, v, 12);
		for (int i = 0; i < 3; i++)
			sendto(fd, rep, sizeof rep, 0, (struct sockaddr *)&first, sizeof first);
		struct sockaddr_storage from;
		socklen_t flen = sizeof from;
		ssize_t len;
		while ((len = recv_wait(fd, buf, sizeof buf, 500, &from, &flen)) >= 0) {
			if (len >= 8 && get32(buf) == END)
				sendto(fd, rep, sizeof rep, 0, (struct sockaddr *)&from, flen);
			flen = sizeof from;
		}
	}
	close(fd);
	free(seen);
	return finish();
}

/* --- sender --------------------------------------------------------------- */

static int run_send(const char *host, int port, uint32_t n)
{
	struct sockaddr_storage dst, from;
	socklen_t dlen = resolve(host, port, AF_UNSPEC, &dst), flen;
	int fd = socket(dst.ss_family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	unsigned char buf[2048], in[64];

	int up = 0;
	size_t hl = make_dgram(buf, HELLO, n);
	for (int i = 0; i < 1000 && !up; i++) {
		if (sendto(fd, buf, hl, 0, (struct sockaddr *)&dst, dlen) < 0)
			die("sendto hello");
		flen = sizeof from;
		up = recv_wait(fd, in, sizeof in, 10, &from, &flen) == 1 && in[0] == 'H';
	}
	if (!up) {
		printf("send: the receiver never answered\n");
		return 1;
	}
	printf("send: the receiver answered hello\n");

	uint32_t half = n / 2, nsendto = 0, nsend = 0, nsendmsg = 0;
	for (uint32_t seq = 0; seq < n; seq++) {
		if (seq == half) {
			if (connect(fd, (struct sockaddr *)&dst, dlen) != 0)
				die("connect");
			struct sockaddr_storage peer;
			socklen_t plen = sizeof peer;
			if (getpeername(fd, (struct sockaddr *)&peer, &plen) != 0)
				die("getpeername");
			char ip[INET6_ADDRSTRLEN];
			printf("send: connected to %s port %d\n", addr_ip(&peer, ip, sizeof ip), addr_port(&peer));
		}
		size_t len = make_dgram(buf, seq, n);
		ssize_t r;
		if (seq < half) {
			r = sendto(fd, buf, len, 0, (struct sockaddr *)&dst, dlen);
			nsendto++;
		} else if (seq % 2 == 0) {
			r = send(fd, buf, len, 0);
			nsend++;
		} else {
			struct iovec iov[2] = { { buf, 8 }, { buf + 8, len - 8 } };
			struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
			r = sendmsg(fd, &mh, 0);
			nsendmsg++;
		}
		CHECK(r == (ssize_t)len, "send of %u returned %zd (%s)", seq, r, errname(errno));
		if (seq % BURST == BURST - 1 || seq == n - 1) {
			/* Wait for this burst's ack; go on without it after 500 ms. */
			for (int t = 0; t < 50; t++) {
				flen = sizeof from;
				if (recv_wait(fd, in, sizeof in, 10, &from, &flen) == 5 && in[0] == 'A' &&
				    get32(in + 1) == seq)
					break;
			}
		}
	}
	printf("send: %u datagrams: %u with sendto, then after connect %u with send and %u with sendmsg\n",
	       n, nsendto, nsend, nsendmsg);
	size_t el = make_dgram(buf, END, n);
	for (int i = 0; i < 3; i++)
		if (sendto(fd, buf, el, 0, (struct sockaddr *)&dst, dlen) < 0 && errno != ECONNREFUSED)
			die("send end");
	for (int t = 0; t < 200; t++) {
		flen = sizeof from;
		if (recv_wait(fd, in, sizeof in, 10, &from, &flen) == 13 && in[0] == 'R') {
			printf("send: the receiver reports %u distinct, %u duplicates, %u out of order\n",
			       get32(in + 1), get32(in + 5), get32(in + 9));
			close(fd);
			return finish();
		}
	}
	printf("send: no report from the receiver\n");
	close(fd);
	return finish();
}

/* --- ICMP port unreachable ------------------------------------------------ */

static int run_refused(const char *host, int port)
{
	struct sockaddr_storage dst;
	socklen_t dlen = resolve(host, port, AF_UNSPEC, &dst);
	int fd = socket(dst.ss_family, SOCK_DGRAM, 0);
	unsigned char in[16];
	/* Unconnected: the ICMP error is not reported to the socket. */
	int e = sendto(fd, "x", 1, 0, (struct sockaddr *)&dst, dlen) == 1 ? 0 : errno;
	struct pollfd p = { fd, POLLIN, 0 };
	int pr = poll(&p, 1, 200);
	int e2 = recv(fd, in, sizeof in, MSG_DONTWAIT) < 0 ? errno : 0;
	printf("udp sendto a closed port, unconnected: %s; then poll: %d, recv: %s\n", errname(e), pr, errname(e2));
	CHECK(e == 0 && pr == 0 && e2 == EAGAIN, "unconnected socket saw an error");
	close(fd);

	fd = socket(dst.ss_family, SOCK_DGRAM, 0);
	if (connect(fd, (struct sockaddr *)&dst, dlen) != 0)
		die("connect");
	int sends = 0, err = 0;
	for (int i = 0; i < 10 && !err; i++) {
		if (send(fd, "x", 1, 0) < 0) {
			err = errno;            /* the error from an earlier send */
			break;
		}
		sends++;
		pr = poll(&p, 1, 200);
		if (pr > 0 && recv(fd, in, sizeof in, 0) < 0)
			err = errno;
	}
	printf("udp send to a closed port, connected: the first send succeeds, a later call fails with %s\n",
	       errname(err));
	CHECK(sends >= 1 && err == ECONNREFUSED, "expected ECONNREFUSED");
	close(fd);
	return finish();
}

static int st_port;
static int st_recv(void *arg) { (void)arg; return run_recv("127.0.0.1", st_port, 1000, 1); }
static int st_send(void *arg) { (void)arg; return run_send("127.0.0.1", st_port, 1000); }

int main(int argc, char **argv)
{
	require_lo_only();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 5 || (argc == 6 && strcmp(argv[5], "exact") == 0)) && strcmp(argv[1], "recv") == 0)
		return run_recv(argv[2], atoi(argv[3]), (uint32_t)atoi(argv[4]), argc == 6);
	if (argc == 5 && strcmp(argv[1], "send") == 0)
		return run_send(argv[2], atoi(argv[3]), (uint32_t)atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "refused") == 0)
		return run_refused(argv[2], atoi(argv[3]));
	if ((argc == 2 || argc == 3) && strcmp(argv[1], "selftest") == 0) {
		st_port = argc == 3 ? atoi(argv[2]) : 7400;
		struct child r = spawn(st_recv, NULL), s = spawn(st_send, NULL);
		CHECK(collect(r) == 0, "receiver failed");
		CHECK(collect(s) == 0, "sender failed");
		CHECK(run_refused("127.0.0.1", st_port + 1) == 0, "refused");
		return finish();
	}
	fprintf(stderr, "usage: %s recv HOST PORT N [exact] | send HOST PORT N | refused HOST PORT | selftest [PORT]\n",
		argv[0]);
	return 2;
}
