/* Unit tests for the changed ranges of files since their last durable copy
 * (base/unsynced.c). */
#include <check.h>
#include <stdlib.h>

#include "base/unsynced.h"
#include "tests/unit/suite.h"

/* A file no one wrote has no changes; a write is one range. */
START_TEST(test_one_write)
{
	struct unsynced u = { 0 };
	ck_assert_ptr_null(unsynced_get(&u, 1, 2));
	unsynced_write(&u, 1, 2, 8192, 8192);
	const struct unsynced_file *f = unsynced_get(&u, 1, 2);
	ck_assert_ptr_nonnull(f);
	ck_assert(!f->whole);
	ck_assert_int_eq(f->n, 1);
	ck_assert_uint_eq(f->r[0].start, 8192);
	ck_assert_uint_eq(f->r[0].end, 16384);
	ck_assert_ptr_null(unsynced_get(&u, 1, 3));
	ck_assert_ptr_null(unsynced_get(&u, 9, 2));
	unsynced_clear(&u);
}
END_TEST

/* Appends one after the other make one range; overlapping writes merge;
 * writes apart stay apart, in order. */
START_TEST(test_merge)
{
	struct unsynced u = { 0 };
	for (int i = 0; i < 100; i++) unsynced_write(&u, 1, 2, 8192 * (uint64_t)i, 8192);
	const struct unsynced_file *f = unsynced_get(&u, 1, 2);
	ck_assert_int_eq(f->n, 1);
	ck_assert_uint_eq(f->r[0].start, 0);
	ck_assert_uint_eq(f->r[0].end, 819200);
	unsynced_write(&u, 1, 5, 1000, 10);
	unsynced_write(&u, 1, 5, 100, 10);
	unsynced_write(&u, 1, 5, 105, 20);
	f = unsynced_get(&u, 1, 5);
	ck_assert_int_eq(f->n, 2);
	ck_assert_uint_eq(f->r[0].start, 100);
	ck_assert_uint_eq(f->r[0].end, 125);
	ck_assert_uint_eq(f->r[1].start, 1000);
	ck_assert_uint_eq(f->r[1].end, 1010);
	unsynced_write(&u, 1, 5, 0, 2000);      /* covers both */
	f = unsynced_get(&u, 1, 5);
	ck_assert_int_eq(f->n, 1);
	ck_assert_uint_eq(f->r[0].start, 0);
	ck_assert_uint_eq(f->r[0].end, 2000);
	unsynced_clear(&u);
}
END_TEST

/* Too many pieces, or a change with no place, is the whole file. */
START_TEST(test_whole)
{
	struct unsynced u = { 0 };
	for (int i = 0; i <= UNSYNCED_RANGES; i++) unsynced_write(&u, 1, 2, 100 * (uint64_t)i, 10);
	ck_assert(unsynced_get(&u, 1, 2)->whole);
	unsynced_write(&u, 1, 2, 5, 5);
	ck_assert(unsynced_get(&u, 1, 2)->whole);
	unsynced_whole(&u, 1, 7);
	ck_assert(unsynced_get(&u, 1, 7)->whole);
	unsynced_clear(&u);
}
END_TEST

/* A durable copy forgets the changes; later writes count afresh; a clear
 * forgets everything. */
START_TEST(test_synced)
{
	struct unsynced u = { 0 };
	unsynced_whole(&u, 1, 2);
	unsynced_synced(&u, 1, 2);
	ck_assert_ptr_null(unsynced_get(&u, 1, 2));
	unsynced_write(&u, 1, 2, 10, 1);
	ck_assert(!unsynced_get(&u, 1, 2)->whole);
	ck_assert_int_eq(unsynced_get(&u, 1, 2)->n, 1);
	unsynced_synced(&u, 4, 4);              /* never seen: nothing */
	unsynced_clear(&u);
	ck_assert_ptr_null(unsynced_get(&u, 1, 2));
}
END_TEST

/* Many files: growth keeps each one's changes. */
START_TEST(test_many)
{
	struct unsynced u = { 0 };
	for (uint64_t i = 0; i < 10000; i++) unsynced_write(&u, 3, i * 7919, i, 1);
	for (uint64_t i = 0; i < 10000; i++) {
		const struct unsynced_file *f = unsynced_get(&u, 3, i * 7919);
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(f->r[0].start, i);
	}
	unsynced_clear(&u);
}
END_TEST

/* A write that would run past the end of the offsets ends there. */
START_TEST(test_overflow)
{
	struct unsynced u = { 0 };
	unsynced_write(&u, 1, 2, UINT64_MAX - 5, 100);
	ck_assert_uint_eq(unsynced_get(&u, 1, 2)->r[0].end, UINT64_MAX);
	unsynced_clear(&u);
}
END_TEST

int main(void)
{
	return RUN_TESTS("unsynced", test_one_write, test_merge, test_whole, test_synced, test_many,
			 test_overflow);
}
