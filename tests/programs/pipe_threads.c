/* pipe_threads: threads talking over pipes with blocking reads and writes.
 *
 *  1. Ping-pong: the pinger writes i (a 4-byte int) to pipe 1 and waits for
 *     the reply on pipe 2; the ponger reads i and replies 2*i+1; 1000 round
 *     trips, then the pinger closes pipe 1 and the ponger sees EOF. The sum
 *     of the replies is 1000^2 = 1000000.
 *  2. Bulk: a writer thread writes 1 MiB (a known pattern) into a pipe with
 *     ONE write() call, far more than the pipe buffer holds, so the write
 *     blocks until the reader thread has drained enough; the reader reads
 *     1000 bytes at a time until EOF and checks every byte. On Linux a
 *     blocking pipe write returns only once everything is written.
 *
 * Prints the totals (deterministic); the last line is "ok". Exit 0 only if
 * every check passed, 2 on a setup error. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selfcheck.h"

#define ROUNDS 1000
#define BULK (1 << 20)
#define CHUNK 1000

static void die(const char *what)
{
	printf("FATAL %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Reads exactly len bytes; returns 0 at EOF before any byte, 1 when done,
 * -1 on an error or EOF in the middle. */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return got == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = write(fd, (const char *)buf + done, len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/* ---- 1. ping-pong ---- */

static int ping[2], pong[2];
static long replies_sum, pong_count;
static int ping_bad, pong_bad;

static void *pinger(void *arg)
{
	(void)arg;
	for (int32_t i = 0; i < ROUNDS; i++) {
		int32_t reply;
		if (write_full(ping[1], &i, sizeof i) != 0 || read_full(pong[0], &reply, sizeof reply) != 1) {
			ping_bad = 1;
			break;
		}
		if (reply != 2 * i + 1)
			ping_bad = 1;
		replies_sum += reply;
	}
	close(ping[1]);
	return NULL;
}

static void *ponger(void *arg)
{
	(void)arg;
	int32_t v;
	int r;
	while ((r = read_full(ping[0], &v, sizeof v)) == 1) {
		int32_t reply = 2 * v + 1;
		if (write_full(pong[1], &reply, sizeof reply) != 0) {
			pong_bad = 1;
			break;
		}
		pong_count++;
	}
	if (r < 0)
		pong_bad = 1;
	close(pong[1]);
	return NULL;
}

/* ---- 2. bulk ---- */

static int bulk[2];
static unsigned char *wbuf;
static ssize_t write_ret;
static int write_errno;
static long read_total, read_calls, read_bad_at = -1, read_max;

static unsigned char pattern(long k)
{
	return (unsigned char)((k * 31 + k / 4093 + 7) % 251);
}

static void *bulk_writer(void *arg)
{
	(void)arg;
	write_ret = write(bulk[1], wbuf, BULK);   /* one call, > pipe buffer */
	write_errno = errno;
	if (write_ret > 0 && write_ret < BULK)    /* finish a short write anyway */
		write_full(bulk[1], wbuf + write_ret, (size_t)(BULK - write_ret));
	close(bulk[1]);
	return NULL;
}

static void *bulk_reader(void *arg)
{
	(void)arg;
	unsigned char chunk[CHUNK];
	for (;;) {
		ssize_t r = read(bulk[0], chunk, CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			read_bad_at = read_total;
			break;
		}
		if (r == 0)
			break;
		read_calls++;
		if (r > read_max)
			read_max = r;
		for (ssize_t i = 0; i < r; i++)
			if (chunk[i] != pattern(read_total + i) && read_bad_at < 0)
				read_bad_at = read_total + i;
		read_total += r;
	}
	close(bulk[0]);
	return NULL;
}

static void run2(void *(*f)(void *), void *(*g)(void *))
{
	pthread_t a, b;
	int e = pthread_create(&a, NULL, f, NULL);
	if (!e)
		e = pthread_create(&b, NULL, g, NULL);
	if (e) {
		errno = e;
		die("pthread_create");
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

int main(void)
{
	if (pipe(ping) != 0 || pipe(pong) != 0)
		die("pipe");
	run2(pinger, ponger);
	close(ping[0]);
	close(pong[0]);
	printf("ping-pong: %ld round trips, sum of replies %ld\n", pong_count, replies_sum);
	CHECK(!ping_bad && !pong_bad, "ping-pong: a read or write failed, or a reply was wrong");
	CHECK(pong_count == ROUNDS, "ping-pong: %ld round trips", pong_count);
	CHECK(replies_sum == (long)ROUNDS * ROUNDS, "ping-pong: sum %ld", replies_sum);
	printf("ping-pong: the ponger saw EOF after the last message\n");

	wbuf = malloc(BULK);
	if (!wbuf)
		die("malloc");
	for (long k = 0; k < BULK; k++)
		wbuf[k] = pattern(k);
	if (pipe(bulk) != 0)
		die("pipe");
	run2(bulk_writer, bulk_reader);
	printf("bulk: one write() of %d bytes returned %zd\n", BULK, write_ret);
	CHECK(write_ret == BULK, "bulk: write returned %zd (%s)", write_ret,
	      write_ret < 0 ? strerror(write_errno) : "short write");
	printf("bulk: read %ld bytes in chunks of at most %d\n", read_total, CHUNK);
	CHECK(read_total == BULK, "bulk: read %ld bytes", read_total);
	CHECK(read_max <= CHUNK && read_calls >= BULK / CHUNK, "bulk: %ld reads, largest %ld", read_calls, read_max);
	CHECK(read_bad_at < 0, "bulk: wrong data (or a read error) at offset %ld", read_bad_at);
	printf("bulk: every byte arrived intact and in order\n");
	free(wbuf);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
