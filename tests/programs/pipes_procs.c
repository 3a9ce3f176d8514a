/* pipes_procs: inter-process communication between a parent and children.
 *
 *  1. Ping-pong: the parent sends 1000 messages of varying length (1..300
 *     bytes, length-prefixed) to a child over a pipe; the child answers each
 *     over a socketpair(AF_UNIX, SOCK_STREAM) with the message's checksum.
 *     Blocking read/write only; reads may be short, so both sides loop.
 *  2. Bulk: the child sends 1 MiB over the socketpair in odd-sized writes
 *     while the parent reads it in other odd sizes (both block repeatedly).
 *  3. eventfd: a child adds 1..10 to an eventfd counter; the parent reads
 *     until it has seen 55 in total. A second child uses EFD_SEMAPHORE.
 *  4. EOF: a child writes 5000 bytes into a pipe and exits; the parent reads
 *     until read() returns 0.
 *
 * Prints totals only; every line is deterministic natively. The last line is
 * "ok" and the exit status is 0 only if every check passed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "selfcheck.h"

#define NMSG 1000
#define BULK (1 << 20)

static void die(const char *what)
{
	printf("FATAL %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(99);
}

static void write_all(int fd, const void *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = write(fd, (const char *)buf + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write");
		done += (size_t)r;
	}
}

/* Returns 0 on EOF before any byte, 1 when n bytes were read. */
static int read_exact(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read");
		if (r == 0) {
			if (got == 0)
				return 0;
			errno = EPIPE;
			die("short read at EOF");
		}
		got += (size_t)r;
	}
	return 1;
}

static uint32_t checksum(const unsigned char *b, size_t n)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static pid_t xfork(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		die("fork");
	return p;
}

static int xwait(pid_t pid)
{
	int status;
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w != pid)
		die("waitpid");
	return status;
}

int main(void)
{
	int pp[2], sv[2];
	if (pipe(pp) != 0)
		die("pipe");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");

	/* 1 + 2: ping-pong, then bulk */
	pid_t child = xfork();
	if (child == 0) {
		close(pp[1]);
		close(sv[0]);
		unsigned char buf[512];
		uint32_t len;
		unsigned n = 0;
		while (read_exact(pp[0], &len, sizeof len)) {
			if (len > sizeof buf)
				_exit(3);
			read_exact(pp[0], buf, len);
			uint32_t reply[2] = { n++, checksum(buf, len) };
			write_all(sv[1], reply, sizeof reply);
		}
		/* the parent closed the pipe: send the bulk data */
		unsigned char *bulk = malloc(BULK);
		if (!bulk)
			_exit(4);
		for (size_t i = 0; i < BULK; i++)
			bulk[i] = (unsigned char)(i * 7 + i / 251);
		size_t off = 0, step = 1;
		while (off < BULK) {
			size_t k = step * 997 % 70001 + 1;
			if (k > BULK - off)
				k = BULK - off;
			write_all(sv[1], bulk + off, k);
			off += k;
			step++;
		}
		free(bulk);
		_exit(n == NMSG ? 0 : 5);
	}
	close(pp[0]);
	close(sv[1]);
	unsigned char msg[512];
	uint64_t bytes_sent = 0, sum_ok = 0;
	for (unsigned i = 0; i < NMSG; i++) {
		uint32_t len = 1 + (i * 37) % 300;
		for (uint32_t j = 0; j < len; j++)
			msg[j] = (unsigned char)(i + j * 13);
		write_all(pp[1], &len, sizeof len);
		write_all(pp[1], msg, len);
		bytes_sent += len;
		uint32_t reply[2];
		if (!read_exact(sv[0], reply, sizeof reply))
			die("reply EOF");
		if (reply[0] == i && reply[1] == checksum(msg, len))
			sum_ok++;
	}
	printf("ping-pong: %u messages, %llu payload bytes, %llu replies correct\n",
	       NMSG, (unsigned long long)bytes_sent, (unsigned long long)sum_ok);
	CHECK(sum_ok == NMSG, "replies correct %llu", (unsigned long long)sum_ok);
	close(pp[1]);   /* the child sees EOF and starts the bulk transfer */

	unsigned char *rbuf = malloc(BULK);
	if (!rbuf)
		die("malloc");
	size_t total = 0, step = 1;
	for (;;) {
		size_t want = step++ * 613 % 50021 + 1;
		if (want > BULK - total)
			want = BULK - total;
		if (want == 0)
			want = 1;   /* ask once more past the end: expect EOF */
		ssize_t r = read(sv[0], rbuf + (total < BULK ? total : 0), want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("bulk read");
		if (r == 0)
			break;
		total += (size_t)r;
		if (total > BULK)
			break;
	}
	size_t bad = 0;
	for (size_t i = 0; i < BULK && i < total; i++)
		bad += rbuf[i] != (unsigned char)(i * 7 + i / 251);
	printf("bulk: %zu bytes over the socketpair, %zu wrong, checksum %08x\n",
	       total, bad, checksum(rbuf, total < BULK ? total : BULK));
	CHECK(total == BULK && bad == 0, "bulk total %zu bad %zu", total, bad);
	free(rbuf);
	close(sv[0]);
	int st = xwait(child);
	printf("ping-pong child: exited %d code %d\n", WIFEXITED(st), WEXITSTATUS(st));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);

	/* 3. eventfd counter */
	int efd = eventfd(0, EFD_CLOEXEC);
	if (efd < 0)
		die("eventfd");
	child = xfork();
	if (child == 0) {
		for (uint64_t v = 1; v <= 10; v++)
			if (write(efd, &v, sizeof v) != sizeof v)
				_exit(1);
		_exit(0);
	}
	uint64_t seen = 0, v;
	while (seen < 55) {
		if (read(efd, &v, sizeof v) != sizeof v) {
			if (errno == EINTR)
				continue;
			die("eventfd read");
		}
		seen += v;
	}
	st = xwait(child);
	printf("eventfd: counter total %llu, child code %d\n", (unsigned long long)seen, WEXITSTATUS(st));
	CHECK(seen == 55 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "eventfd total %llu", (unsigned long long)seen);
	close(efd);

	efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (efd < 0)
		die("eventfd semaphore");
	child = xfork();
	if (child == 0) {
		uint64_t three = 3;
		_exit(write(efd, &three, sizeof three) == sizeof three ? 0 : 1);
	}
	unsigned reads = 0;
	for (int i = 0; i < 3; i++) {
		if (read(efd, &v, sizeof v) != sizeof v)
			die("semaphore read");
		reads += v == 1;
	}
	st = xwait(child);
	int fl = fcntl(efd, F_GETFL);
	fcntl(efd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	ssize_t r = read(efd, &v, sizeof v);
	printf("eventfd semaphore: %u reads of 1, then %s\n", reads,
	       r < 0 && errno == EAGAIN ? "EAGAIN" : "something else");
	CHECK(reads == 3 && r < 0 && errno == EAGAIN, "semaphore");
	close(efd);

	/* 4. EOF on a pipe once its only writer exits */
	if (pipe(pp) != 0)
		die("pipe");
	child = xfork();
	if (child == 0) {
		close(pp[0]);
		char b[1000];
		memset(b, 'e', sizeof b);
		for (int i = 0; i < 5; i++)
			write_all(pp[1], b, sizeof b);
		_exit(0);
	}
	close(pp[1]);
	size_t eof_total = 0;
	char b[700];
	for (;;) {
		ssize_t k = read(pp[0], b, sizeof b);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die("read");
		if (k == 0)
			break;
		eof_total += (size_t)k;
	}
	close(pp[0]);
	st = xwait(child);
	printf("pipe until EOF: %zu bytes, then read() returned 0\n", eof_total);
	CHECK(eof_total == 5000, "EOF total %zu", eof_total);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
