/* Unit tests for network events' trace records (net/model/netrec.c): the
 * line a record makes is the text the relay printed before records
 * (2026-12-02), and the bytes follow the line one to one. */
#include <check.h>
#include <string.h>

#include "net/model/netrec.h"
#include "tests/unit/suite.h"

static const char *line_of(const struct netrec_event *e)
{
	static char line[4096];
	unsigned char rec[NETREC_MAX];
	size_t len = netrec_encode(e, rec);
	ck_assert_uint_gt(len, 0);
	netrec_format(rec, len, line, sizeof line);
	return line;
}

static const struct saddr a1 = { ADDR_V4, 0x0a000001, 7000 }, a2 = { ADDR_V4, 0x0a000002, 40001 };

/* Lines as the relay's format string made them. */
START_TEST(test_lines)
{
	struct netrec_event e = { "data", "srv", "c1", a1, a2, NULL, 1448 };
	ck_assert_str_eq(line_of(&e), "net data srv 10.0.0.1:7000 > c1 10.0.0.2:40001 1448");
	e.what = "";
	ck_assert_str_eq(line_of(&e), "net data srv 10.0.0.1:7000 > c1 10.0.0.2:40001 1448");
	e = (struct netrec_event){ "reset", "a", "b", { ADDR_V6_LOOP, 0, 1 }, { ADDR_ANY, 0, 65535 }, "Connection reset by peer", 0 };
	ck_assert_str_eq(line_of(&e), "net reset a [::1]:1 > b *:65535 Connection reset by peer 0");
	e = (struct netrec_event){ "udp", "m-1.x", "m_2", a2, a1, "dropped: receive buffer full", 65507 };
	ck_assert_str_eq(line_of(&e), "net udp m-1.x 10.0.0.2:40001 > m_2 10.0.0.1:7000 dropped: receive buffer full 65507");
}
END_TEST

/* Two events with one line are one record: an address that is not IPv4
 * shows no IPv4 address, and keeps none. Two lines, two records. */
START_TEST(test_one_to_one)
{
	unsigned char r1[NETREC_MAX], r2[NETREC_MAX];
	struct netrec_event e = { "syn", "a", "b", { ADDR_ANY, 0x01020304, 80 }, a1, NULL, 0 };
	size_t n1 = netrec_encode(&e, r1);
	e.src.ip = 0x05060708;
	size_t n2 = netrec_encode(&e, r2);
	ck_assert(n1 == n2 && !memcmp(r1, r2, n1));
	e.src.port = 81;
	n2 = netrec_encode(&e, r2);
	ck_assert(n1 != n2 || memcmp(r1, r2, n1));
	e = (struct netrec_event){ "data", "ab", "c", a1, a2, NULL, 5 };
	n1 = netrec_encode(&e, r1);
	e = (struct netrec_event){ "data", "a", "bc", a1, a2, NULL, 5 };
	n2 = netrec_encode(&e, r2);
	ck_assert(n1 != n2 || memcmp(r1, r2, n1));
}
END_TEST

/* Names too long for a record are refused; a cut record says so. */
START_TEST(test_limits)
{
	char big[NETREC_MAX];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	struct netrec_event e = { "data", big, "b", a1, a2, NULL, 1 };
	unsigned char rec[NETREC_MAX];
	ck_assert_uint_eq(netrec_encode(&e, rec), 0);
	e.from = "a";
	size_t len = netrec_encode(&e, rec);
	char line[64];
	netrec_format(rec, len - 1, line, sizeof line);
	ck_assert_ptr_nonnull(strstr(line, "malformed"));
	netrec_format(rec, 3, line, sizeof line);
	ck_assert_ptr_nonnull(strstr(line, "malformed"));
	netrec_format(rec, len, line, 20);       /* a short buffer: cut, ended */
	ck_assert_uint_eq(strlen(line), 19);
}
END_TEST

int main(void)
{
	return RUN_TESTS("netrec", test_lines, test_one_to_one, test_limits);
}
