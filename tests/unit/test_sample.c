/* Unit tests for choosing a sweep's --verify-sample (base/sample.c). */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/sample.h"
#include "tests/unit/suite.h"

START_TEST(test_parse)
{
	struct sample_spec s;
	ck_assert_int_eq(sample_parse("5%", &s), 0);
	ck_assert(s.percent);
	ck_assert_uint_eq(s.value, 5000);
	ck_assert_int_eq(sample_parse("0.25%", &s), 0);
	ck_assert_uint_eq(s.value, 250);
	ck_assert_int_eq(sample_parse("100%", &s), 0);
	ck_assert_uint_eq(s.value, 100000);
	ck_assert_int_eq(sample_parse("12", &s), 0);
	ck_assert(!s.percent);
	ck_assert_uint_eq(s.value, 12);
	const char *bad[] = { "", "%", "-5%", "5 %", "101%", "100.5%", "1.5", "0.1234%", "5%%", "x", "5%x", "1e3" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_assert_msg(sample_parse(bad[i], &s) == -1, "%s", bad[i]);
}
END_TEST

START_TEST(test_size)
{
	struct sample_spec pct = { true, 5000 }, cnt = { false, 10 }, tiny = { true, 1 };
	ck_assert_uint_eq(sample_size(&pct, 1000), 50);
	ck_assert_uint_eq(sample_size(&pct, 10), 1);      /* rounded up */
	ck_assert_uint_eq(sample_size(&pct, 0), 0);
	ck_assert_uint_eq(sample_size(&cnt, 1000), 10);
	ck_assert_uint_eq(sample_size(&cnt, 4), 4);
	ck_assert_uint_eq(sample_size(&tiny, 1000), 1);
}
END_TEST

/* The sample is exactly k seeds, the same every time, and does not depend
 * on where the seeds sit: the same seeds in another order give the same
 * chosen seeds. */
START_TEST(test_choose)
{
	enum { N = 1000 };
	uint64_t seeds[N], rev[N];
	bool a[N], b[N], c[N];
	for (size_t i = 0; i < N; i++) { seeds[i] = i + 1; rev[N - 1 - i] = i + 1; }
	sample_choose(seeds, N, 50, a);
	sample_choose(seeds, N, 50, b);
	sample_choose(rev, N, 50, c);
	size_t k = 0, low = 0;
	for (size_t i = 0; i < N; i++) {
		k += a[i];
		ck_assert(a[i] == b[i]);
		ck_assert(a[i] == c[N - 1 - i]);
		low += a[i] && i < N / 2;
	}
	ck_assert_uint_eq(k, 50);
	ck_assert(low > 10 && low < 40);        /* spread over the sweep, not its first seeds */
	/* A larger sample holds the smaller one. */
	bool big[N];
	sample_choose(seeds, N, 100, big);
	for (size_t i = 0; i < N; i++) ck_assert(!a[i] || big[i]);
	sample_choose(seeds, N, 0, a);
	for (size_t i = 0; i < N; i++) ck_assert(!a[i]);
	sample_choose(seeds, 3, 5, a);
	ck_assert(a[0] && a[1] && a[2]);
}
END_TEST

/* Pinned: the key of a seed is the first draw of its "verify-sample"
 * stream, so these sweeps' samples are fixed forever. */
#define GOLDEN_SAMPLE ".....x...x.........x"
START_TEST(test_golden)
{
	uint64_t seeds[20];
	bool chosen[20];
	for (size_t i = 0; i < 20; i++) seeds[i] = i + 1;
	sample_choose(seeds, 20, 3, chosen);
	char got[21];
	for (size_t i = 0; i < 20; i++) got[i] = chosen[i] ? 'x' : '.';
	got[20] = 0;
	ck_assert_str_eq(got, GOLDEN_SAMPLE);
}
END_TEST

int main(void)
{
	return RUN_TESTS("sample", test_parse, test_size, test_choose, test_golden);
}
