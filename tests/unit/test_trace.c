/* Unit tests for the trace (trace/trace.c). The golden hash below is part of
 * the recorded format: if it changes, every recorded run's fingerprint does
 * (it last did when events were hashed in binary form, not as lines). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "trace/trace.h"
#include "tests/unit/suite.h"

#define LINE1 "0.000000000 db1 100 start\n"
#define LINE2 "1.500000000 db1 101 write fd=3 len=42\n"
#define LINE3 "12.000000001 net 0 deliver db1->db2\n"
#define GOLDEN_HASH "3f279464754f21550cd7b45f0817c7df"
/* XXH3-128 of no input at all. */
#define EMPTY_HASH "99aa06d3014798d86001c324468d497f"

static void three_events(struct trace *t)
{
	trace_event(t, 0, "db1", 100, "start");
	trace_event(t, 1500000000ULL, "db1", 101, "write fd=%d len=%zu", 3,
	            (size_t)42);
	trace_event(t, 12000000001ULL, "net", 0, "deliver %s->%s", "db1", "db2");
}

static void hash_of(struct trace *t, char out[33])
{
	trace_hash_hex(t, out);
}

/* An event's hashed form (trace.c): tag, time, tid, machine, body. */
static size_t encode(unsigned char *out, char tag, uint64_t vtime, int tid, const char *machine, const void *body,
                     size_t len)
{
	unsigned char *p = out;
	size_t ml = strlen(machine);
	*p++ = (unsigned char)tag;
	for (int i = 0; i < 8; i++) *p++ = (unsigned char)(vtime >> (8 * i));
	for (int i = 0; i < 4; i++) *p++ = (unsigned char)((uint32_t)tid >> (8 * i));
	for (int i = 0; i < 4; i++) *p++ = (unsigned char)(ml >> (8 * i));
	memcpy(p, machine, ml), p += ml;
	for (int i = 0; i < 4; i++) *p++ = (unsigned char)(len >> (8 * i));
	memcpy(p, body, len), p += len;
	return (size_t)(p - out);
}

/* One-shot XXH3-128 of a buffer, printed the way trace_hash_hex does. */
static void oneshot_hex(const void *data, size_t len, char out[33])
{
	XXH128_hash_t d = XXH3_128bits(data, len);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)d.high64,
	         (unsigned long long)d.low64);
}

START_TEST(test_empty)
{
	struct trace *t = trace_new(NULL, 4);
	ck_assert_ptr_nonnull(t);
	char h[33];
	hash_of(t, h);
	ck_assert_str_eq(h, EMPTY_HASH);
	ck_assert_uint_eq(trace_count(t), 0);
	ck_assert_ptr_null(trace_recent(t, 0));
	trace_free(t);
	trace_free(NULL);
}
END_TEST

START_TEST(test_golden)
{
	struct trace *t = trace_new(NULL, 0);
	three_events(t);
	char h[33], want[33];
	hash_of(t, h);
	ck_assert_uint_eq(strlen(h), 32);
	ck_assert_str_eq(h, GOLDEN_HASH);
	/* and it is plain XXH3-128 over the events' binary forms, not their lines */
	unsigned char all[256];
	size_t n = encode(all, 'T', 0, 100, "db1", "start", 5);
	n += encode(all + n, 'T', 1500000000ULL, 101, "db1", "write fd=3 len=42", 17);
	n += encode(all + n, 'T', 12000000001ULL, 0, "net", "deliver db1->db2", 16);
	oneshot_hex(all, n, want);
	ck_assert_str_eq(h, want);
	ck_assert_uint_eq(trace_count(t), 3);
	trace_free(t);
}
END_TEST

START_TEST(test_same_events_same_hash)
{
	struct trace *a = trace_new(NULL, 2), *b = trace_new(NULL, 0);
	three_events(a);
	three_events(b);
	char ha[33], hb[33];
	hash_of(a, ha);
	hash_of(b, hb);
	ck_assert_str_eq(ha, hb);
	trace_free(a);
	trace_free(b);
}
END_TEST

START_TEST(test_one_byte_changes_hash)
{
	char base[33], h[33];
	struct trace *t = trace_new(NULL, 0);
	three_events(t);
	hash_of(t, base);
	trace_free(t);

	/* text */
	t = trace_new(NULL, 0);
	trace_event(t, 0, "db1", 100, "start");
	trace_event(t, 1500000000ULL, "db1", 101, "write fd=%d len=%zu", 3,
	            (size_t)43);
	trace_event(t, 12000000001ULL, "net", 0, "deliver %s->%s", "db1", "db2");
	hash_of(t, h);
	ck_assert_str_ne(h, base);
	trace_free(t);

	/* time, by one nanosecond */
	t = trace_new(NULL, 0);
	trace_event(t, 1, "db1", 100, "start");
	trace_event(t, 1500000000ULL, "db1", 101, "write fd=%d len=%zu", 3,
	            (size_t)42);
	trace_event(t, 12000000001ULL, "net", 0, "deliver %s->%s", "db1", "db2");
	hash_of(t, h);
	ck_assert_str_ne(h, base);
	trace_free(t);

	/* machine */
	t = trace_new(NULL, 0);
	trace_event(t, 0, "db2", 100, "start");
	trace_event(t, 1500000000ULL, "db1", 101, "write fd=%d len=%zu", 3,
	            (size_t)42);
	trace_event(t, 12000000001ULL, "net", 0, "deliver %s->%s", "db1", "db2");
	hash_of(t, h);
	ck_assert_str_ne(h, base);
	trace_free(t);

	/* tid */
	t = trace_new(NULL, 0);
	trace_event(t, 0, "db1", 100, "start");
	trace_event(t, 1500000000ULL, "db1", 101, "write fd=%d len=%zu", 3,
	            (size_t)42);
	trace_event(t, 12000000001ULL, "net", 1, "deliver %s->%s", "db1", "db2");
	hash_of(t, h);
	ck_assert_str_ne(h, base);
	trace_free(t);
}
END_TEST

START_TEST(test_order_matters)
{
	struct trace *a = trace_new(NULL, 0), *b = trace_new(NULL, 0);
	trace_event(a, 5, "m", 1, "x");
	trace_event(a, 5, "m", 1, "y");
	trace_event(b, 5, "m", 1, "y");
	trace_event(b, 5, "m", 1, "x");
	char ha[33], hb[33];
	hash_of(a, ha);
	hash_of(b, hb);
	ck_assert_str_ne(ha, hb);
	trace_free(a);
	trace_free(b);
}
END_TEST

START_TEST(test_hash_bytes)
{
	char base[33], h[33], h2[33];
	struct trace *t = trace_new(NULL, 0);
	three_events(t);
	hash_of(t, base);

	/* even zero bytes are recorded (as a length) */
	trace_hash_bytes(t, "", 0);
	hash_of(t, h);
	ck_assert_str_ne(h, base);
	ck_assert_uint_eq(trace_count(t), 3);
	trace_free(t);

	/* boundaries are unambiguous: "ab"+"c" differs from "a"+"bc" */
	struct trace *a = trace_new(NULL, 0), *b = trace_new(NULL, 0);
	trace_hash_bytes(a, "ab", 2);
	trace_hash_bytes(a, "c", 1);
	trace_hash_bytes(b, "a", 1);
	trace_hash_bytes(b, "bc", 2);
	hash_of(a, h);
	hash_of(b, h2);
	ck_assert_str_ne(h, h2);
	trace_free(a);
	trace_free(b);

	/* the exact encoding: 8-byte little-endian length, then the bytes */
	a = trace_new(NULL, 0);
	trace_hash_bytes(a, "hello", 5);
	hash_of(a, h);
	static const unsigned char enc[] = { 5, 0, 0, 0, 0, 0, 0, 0,
		'h', 'e', 'l', 'l', 'o' };
	oneshot_hex(enc, sizeof enc, h2);
	ck_assert_str_eq(h, h2);
	/* and the bytes themselves matter */
	b = trace_new(NULL, 0);
	trace_hash_bytes(b, "hellp", 5);
	hash_of(b, h2);
	ck_assert_str_ne(h, h2);
	trace_free(a);
	trace_free(b);
}
END_TEST

START_TEST(test_hex_does_not_disturb)
{
	struct trace *a = trace_new(NULL, 0), *b = trace_new(NULL, 0);
	char ha[33], hb[33], tmp[33];
	trace_event(a, 0, "db1", 100, "start");
	trace_hash_hex(a, tmp);
	trace_hash_hex(a, ha);
	ck_assert_str_eq(tmp, ha);
	trace_event(a, 1500000000ULL, "db1", 101, "write fd=%d len=%zu", 3,
	            (size_t)42);
	trace_hash_hex(a, tmp);
	trace_event(a, 12000000001ULL, "net", 0, "deliver %s->%s", "db1", "db2");
	three_events(b);
	hash_of(a, ha);
	hash_of(b, hb);
	ck_assert_str_eq(ha, hb);
	ck_assert_str_eq(ha, GOLDEN_HASH);
	trace_free(a);
	trace_free(b);
}
END_TEST

START_TEST(test_output_text)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	struct trace *t = trace_new(f, 0);
	three_events(t);
	trace_event(t, UINT64_MAX, "m", -1, "%s", "");
	trace_event(t, 999999999ULL, "m", 7, "100%%");
	trace_free(t);  /* must not close f */
	ck_assert_int_ge(fputs("end\n", f), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(text, LINE1 LINE2 LINE3
	                 "18446744073.709551615 m -1 \n"
	                 "0.999999999 m 7 100%\n"
	                 "end\n");
	free(text);
}
END_TEST

START_TEST(test_ring)
{
	struct trace *t = trace_new(NULL, 3);
	ck_assert_ptr_null(trace_recent(t, 0));
	trace_event(t, 1, "m", 1, "e%d", 1);
	ck_assert_str_eq(trace_recent(t, 0), "0.000000001 m 1 e1");
	ck_assert_ptr_null(trace_recent(t, 1));
	trace_event(t, 2, "m", 1, "e%d", 2);
	ck_assert_str_eq(trace_recent(t, 0), "0.000000002 m 1 e2");
	ck_assert_str_eq(trace_recent(t, 1), "0.000000001 m 1 e1");
	ck_assert_ptr_null(trace_recent(t, 2));
	for (int i = 3; i <= 10; i++)
		trace_event(t, (uint64_t)i, "m", 1, "e%d", i);
	ck_assert_str_eq(trace_recent(t, 0), "0.000000010 m 1 e10");
	ck_assert_str_eq(trace_recent(t, 1), "0.000000009 m 1 e9");
	ck_assert_str_eq(trace_recent(t, 2), "0.000000008 m 1 e8");
	ck_assert_ptr_null(trace_recent(t, 3));
	ck_assert_ptr_null(trace_recent(t, 1000));
	ck_assert_uint_eq(trace_count(t), 10);
	trace_free(t);

	/* ring = 0 keeps nothing but still hashes and counts */
	t = trace_new(NULL, 0);
	trace_event(t, 1, "m", 1, "x");
	ck_assert_ptr_null(trace_recent(t, 0));
	ck_assert_uint_eq(trace_count(t), 1);
	trace_free(t);

	/* ring = 1 */
	t = trace_new(NULL, 1);
	trace_event(t, 1, "m", 1, "x");
	trace_event(t, 2, "m", 1, "y");
	ck_assert_str_eq(trace_recent(t, 0), "0.000000002 m 1 y");
	ck_assert_ptr_null(trace_recent(t, 1));
	trace_free(t);
}
END_TEST

START_TEST(test_long_event)
{
	enum { LONG = 10000 };
	char *big = malloc(LONG + 1);
	for (int i = 0; i < LONG; i++)
		big[i] = (char)('a' + i % 26);
	big[LONG] = '\0';
	/* the expected line */
	const char *hdr = "3.000000000 db1 42 ";
	size_t hl = strlen(hdr);
	char *line = malloc(hl + LONG + 2);
	memcpy(line, hdr, hl);
	memcpy(line + hl, big, LONG);
	line[hl + LONG] = '\n';
	line[hl + LONG + 1] = '\0';

	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct trace *t = trace_new(f, 2);
	trace_event(t, 3000000000ULL, "db1", 42, "%s", big);
	/* a short event afterwards, and one reusing the long one's slot */
	trace_event(t, 4, "db1", 42, "short");
	trace_event(t, 5, "db1", 42, "s");
	ck_assert_str_eq(trace_recent(t, 0), "0.000000005 db1 42 s");
	ck_assert_str_eq(trace_recent(t, 1), "0.000000004 db1 42 short");
	fflush(f);
	ck_assert_uint_eq(size, hl + LONG + 1 + 25 + 21);
	ck_assert_mem_eq(text, line, hl + LONG + 1);
	ck_assert_str_eq(text + hl + LONG + 1,
	                 "0.000000004 db1 42 short\n0.000000005 db1 42 s\n");
	trace_free(t);
	fclose(f);
	free(text);

	/* the long line is kept whole in the ring and hashed whole */
	t = trace_new(NULL, 1);
	trace_event(t, 3000000000ULL, "db1", 42, "%s", big);
	ck_assert_uint_eq(strlen(trace_recent(t, 0)), hl + LONG);
	ck_assert_mem_eq(trace_recent(t, 0), line, hl + LONG);
	char h[33], want[33];
	trace_hash_hex(t, h);
	unsigned char *enc = malloc(LONG + 64);
	oneshot_hex(enc, encode(enc, 'T', 3000000000ULL, 42, "db1", big, LONG), want);
	free(enc);
	ck_assert_str_eq(h, want);
	trace_free(t);

	/* a long machine name too */
	t = trace_new(NULL, 1);
	trace_event(t, 0, big, 1, "x");
	ck_assert_uint_eq(strlen(trace_recent(t, 0)), 12 + LONG + 4);
	trace_free(t);

	free(line);
	free(big);
}
END_TEST

/* Records: a formatter makes "v=N" from a one-byte record. */
static int formatted;
static void fmt_v(const void *rec, size_t len, char *buf, size_t cap)
{
	formatted++;
	snprintf(buf, cap, "v=%d%s", len ? *(const unsigned char *)rec : -1, len > 1 ? "+" : "");
}

/* A record is hashed as its bytes, its text made only when read: written
 * at once to a file or a tap, made for the ring when a report asks. */
START_TEST(test_record)
{
	unsigned char r7 = 7, r8 = 8;
	struct trace *t = trace_new(NULL, 4);
	formatted = 0;
	trace_record(t, 5, "m", 2, &r7, 1, fmt_v);
	trace_event(t, 6, "m", 2, "text");
	trace_record(t, 7, NULL, 0, &r8, 1, fmt_v);
	ck_assert_int_eq(formatted, 0);             /* nobody read a line */
	ck_assert_uint_eq(trace_count(t), 3);
	ck_assert_str_eq(trace_recent(t, 0), "0.000000007 - 0 v=8");
	ck_assert_str_eq(trace_recent(t, 1), "0.000000006 m 2 text");
	ck_assert_str_eq(trace_recent(t, 2), "0.000000005 m 2 v=7");
	ck_assert_str_eq(trace_recent(t, 0), "0.000000007 - 0 v=8");
	ck_assert_int_eq(formatted, 2);             /* once each, then kept */
	char h[33], want[33];
	trace_hash_hex(t, h);
	unsigned char all[128];
	size_t n = encode(all, 'R', 5, 2, "m", &r7, 1);
	n += encode(all + n, 'T', 6, 2, "m", "text", 4);
	n += encode(all + n, 'R', 7, 0, "-", &r8, 1);
	oneshot_hex(all, n, want);
	ck_assert_str_eq(h, want);

	/* a slot reused by a record after a text event, and the reverse */
	for (int i = 0; i < 4; i++) trace_event(t, 8, "m", 2, "t%d", i);
	trace_record(t, 9, "m", 2, &r7, 1, fmt_v);
	ck_assert_str_eq(trace_recent(t, 0), "0.000000009 m 2 v=7");
	ck_assert_str_eq(trace_recent(t, 1), "0.000000008 m 2 t3");
	trace_event(t, 10, "m", 2, "after");
	ck_assert_str_eq(trace_recent(t, 1), "0.000000009 m 2 v=7");
	ck_assert_str_eq(trace_recent(t, 0), "0.000000010 m 2 after");
	trace_free(t);

	/* the written file and the tap get the line as it is made */
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	t = trace_new(f, 0);
	struct trace *plain = trace_new(NULL, 0);
	trace_record(t, 1000000001ULL, "db", 3, &r7, 1, fmt_v);
	trace_record(plain, 1000000001ULL, "db", 3, &r7, 1, fmt_v);
	fflush(f);
	ck_assert_str_eq(text, "1.000000001 db 3 v=7\n");
	char hp[33];
	trace_hash_hex(t, h);
	trace_hash_hex(plain, hp);
	ck_assert_str_eq(h, hp);                    /* a file changes no hash */
	trace_free(t);
	trace_free(plain);
	fclose(f);
	free(text);

	/* different bytes, different hash; a record is not its text */
	struct trace *a = trace_new(NULL, 0), *b = trace_new(NULL, 0), *c = trace_new(NULL, 0);
	unsigned char r78[2] = { 7, 8 };
	trace_record(a, 1, "m", 1, &r7, 1, fmt_v);
	trace_record(b, 1, "m", 1, r78, 2, fmt_v);
	trace_event(c, 1, "m", 1, "v=7");
	char ha[33], hb[33], hc[33];
	trace_hash_hex(a, ha);
	trace_hash_hex(b, hb);
	trace_hash_hex(c, hc);
	ck_assert_str_ne(ha, hb);
	ck_assert_str_ne(ha, hc);
	trace_free(a);
	trace_free(b);
	trace_free(c);
}
END_TEST

/* A written line parses back into its fields; junk does not. */
START_TEST(test_parse_line)
{
	char line[] = "12.000000345 db1 7 futex(p, 0x80, 2, NULL, NULL, 0) = -1 EAGAIN\n";
	struct trace_line l;
	ck_assert_int_eq(trace_parse_line(line, &l), 0);
	ck_assert_uint_eq(l.vtime_ns, 12000000345ULL);
	ck_assert_str_eq(l.machine, "db1");
	ck_assert_int_eq(l.tid, 7);
	ck_assert_str_eq(l.text, "futex(p, 0x80, 2, NULL, NULL, 0) = -1 EAGAIN");
	ck_assert_str_eq(l.call, "futex");
	char event[] = "0.000000000 main 2 machine start";
	ck_assert_int_eq(trace_parse_line(event, &l), 0);
	ck_assert_str_eq(l.call, "machine");
	char junk[] = "not a trace line";
	ck_assert_int_eq(trace_parse_line(junk, &l), -1);
	char half[] = "1.5 m";
	ck_assert_int_eq(trace_parse_line(half, &l), -1);
}
END_TEST

/* Fields found without touching the line; clock reads told apart. */
START_TEST(test_line_text)
{
	const char *line = "0.000020000 counter 3 rdtsc = 100000020000", *machine;
	ck_assert_str_eq(trace_line_text(line, &machine), "rdtsc = 100000020000");
	ck_assert_str_eq(machine, "counter 3 rdtsc = 100000020000");
	ck_assert_ptr_null(trace_line_text("1.5 m 2", NULL));
	ck_assert(trace_is_clock_read("clock_gettime(1, p) = 0"));
	ck_assert(trace_is_clock_read("rdtsc = 5"));
	ck_assert(!trace_is_clock_read("timer_create(0, p, p) = 0"));
	ck_assert(!trace_is_clock_read("getppid()"));
	ck_assert(!trace_is_clock_read(NULL));
}
END_TEST

/* A tap sees each event line, without its newline, with its index; it
 * changes neither the hash nor the written line. */
struct tapped { uint64_t n; uint64_t last; char line[128]; };
static void tap(void *arg, uint64_t index, const char *line)
{
	struct tapped *t = arg;
	t->n++;
	t->last = index;
	snprintf(t->line, sizeof t->line, "%s", line);
}

START_TEST(test_tap)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct trace *t = trace_new(out, 2), *plain = trace_new(NULL, 0);
	struct tapped seen = { 0 };
	trace_set_tap(t, tap, &seen);
	three_events(t);
	three_events(plain);
	ck_assert_uint_eq(seen.n, 3);
	ck_assert_uint_eq(seen.last, 2);
	ck_assert_str_eq(seen.line, "12.000000001 net 0 deliver db1->db2");
	trace_note(t, "= 1");           /* notes are not events */
	ck_assert_uint_eq(seen.n, 3);
	char h[33], hp[33];
	trace_hash_hex(t, h);
	trace_hash_hex(plain, hp);
	ck_assert_str_eq(h, hp);
	ck_assert_str_eq(h, GOLDEN_HASH);
	fclose(out);
	ck_assert_str_eq(text, LINE1 LINE2 LINE3 "  | = 1\n");
	trace_set_tap(t, NULL, NULL);
	trace_event(t, 0, "x", 1, "y");
	ck_assert_uint_eq(seen.n, 3);
	trace_free(t);
	trace_free(plain);
	free(text);
}
END_TEST

int main(void)
{
	return RUN_TESTS("trace", test_empty, test_golden, test_same_events_same_hash,
			 test_one_byte_changes_hash, test_order_matters, test_hash_bytes,
			 test_hex_does_not_disturb, test_output_text, test_ring, test_long_event,
			 test_record, test_parse_line, test_line_text, test_tap);
}
