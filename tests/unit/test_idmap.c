/* Unit tests for the machines' file identities (base/idmap.c). */
#include <check.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "base/idmap.h"
#include "tests/unit/suite.h"

/* Numbers follow the order of first sight, not the host's numbers. */
START_TEST(test_first_sight)
{
	struct idmap a = { 0 }, b = { 0 };
	ck_assert_uint_eq(idmap_ino(&a, 40, 9000), IDMAP_FIRST_INO);
	ck_assert_uint_eq(idmap_ino(&a, 40, 12), IDMAP_FIRST_INO + 1);
	ck_assert_uint_eq(idmap_ino(&a, 40, 9000), IDMAP_FIRST_INO);
	/* Another run: other host numbers, seen in the same order. */
	ck_assert_uint_eq(idmap_ino(&b, 41, 777), IDMAP_FIRST_INO);
	ck_assert_uint_eq(idmap_ino(&b, 41, 5), IDMAP_FIRST_INO + 1);
	idmap_free(&a);
	idmap_free(&b);
}
END_TEST

/* One inode number on two devices is two files. */
START_TEST(test_devices_apart)
{
	struct idmap m = { 0 };
	uint64_t x = idmap_ino(&m, 40, 2), y = idmap_ino(&m, 5, 2);
	ck_assert_uint_ne(x, y);
	ck_assert_uint_eq(idmap_dev(&m, 40), makedev(0, IDMAP_FIRST_MINOR));
	ck_assert_uint_eq(idmap_dev(&m, 5), makedev(0, IDMAP_FIRST_MINOR + 1));
	ck_assert_uint_eq(idmap_dev(&m, 40), makedev(0, IDMAP_FIRST_MINOR));
	idmap_free(&m);
}
END_TEST

/* A file forgotten (the host reused its inode for a new file) gets a new
 * number at its next look, after what was handed out meanwhile; other
 * files keep theirs, across growth too. */
START_TEST(test_forget)
{
	struct idmap m = { 0 };
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO);
	ck_assert_uint_eq(idmap_ino(&m, 40, 8), IDMAP_FIRST_INO + 1);
	idmap_forget(&m, 40, 7);
	idmap_forget(&m, 40, 99);               /* never seen: nothing */
	ck_assert_uint_eq(idmap_ino(&m, 40, 8), IDMAP_FIRST_INO + 1);
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO + 2);
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO + 2);
	for (uint64_t i = 0; i < 1000; i++) idmap_forget(&m, 40, 7), idmap_ino(&m, 40, 7);
	ck_assert_uint_eq(idmap_ino(&m, 40, 8), IDMAP_FIRST_INO + 1);
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO + 1002);
	idmap_free(&m);
}
END_TEST

/* A rekeyed file keeps its number under its new host inode; the old key
 * is unknown after, a number the new key had goes, and numbers handed
 * out later go on from where they were. */
START_TEST(test_rekey)
{
	struct idmap m = { 0 };
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO);
	ck_assert_uint_eq(idmap_ino(&m, 40, 8), IDMAP_FIRST_INO + 1);
	idmap_rekey(&m, 40, 7, 70);
	idmap_rekey(&m, 40, 99, 100);           /* never seen: nothing */
	idmap_rekey(&m, 40, 8, 7);              /* onto a key just freed */
	ck_assert_uint_eq(idmap_ino(&m, 40, 70), IDMAP_FIRST_INO);
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO + 1);
	ck_assert_uint_eq(idmap_ino(&m, 40, 8), IDMAP_FIRST_INO + 2);
	ck_assert_uint_eq(idmap_ino(&m, 40, 100), IDMAP_FIRST_INO + 3);
	idmap_rekey(&m, 40, 70, 100);           /* onto a known key: its number goes */
	ck_assert_uint_eq(idmap_ino(&m, 40, 100), IDMAP_FIRST_INO);
	for (uint64_t i = 0; i < 1000; i++) idmap_rekey(&m, 40, 100 + i, 101 + i);    /* and growth */
	ck_assert_uint_eq(idmap_ino(&m, 40, 1100), IDMAP_FIRST_INO);
	ck_assert_uint_eq(idmap_ino(&m, 40, 7), IDMAP_FIRST_INO + 1);
	idmap_free(&m);
}
END_TEST

/* Growth keeps every number, and numbers stay distinct. */
START_TEST(test_many)
{
	struct idmap m = { 0 };
	for (uint64_t i = 0; i < 100000; i++) ck_assert_uint_eq(idmap_ino(&m, 1, i * 7919), IDMAP_FIRST_INO + i);
	for (uint64_t i = 0; i < 100000; i += 997) ck_assert_uint_eq(idmap_ino(&m, 1, i * 7919), IDMAP_FIRST_INO + i);
	ck_assert_uint_eq(m.n, 100000);
	idmap_free(&m);
}
END_TEST

/* Past the table of devices, further devices share the last number. */
START_TEST(test_device_overflow)
{
	struct idmap m = { 0 };
	for (uint64_t d = 0; d < IDMAP_DEVS + 5; d++) idmap_dev(&m, 1000 + d);
	ck_assert_uint_eq(idmap_dev(&m, 1000 + IDMAP_DEVS + 3), makedev(0, IDMAP_FIRST_MINOR + IDMAP_DEVS - 1));
	ck_assert_uint_eq(idmap_dev(&m, 1000), makedev(0, IDMAP_FIRST_MINOR));
	idmap_free(&m);
}
END_TEST

int main(void)
{
	return RUN_TESTS("idmap", test_first_sight, test_devices_apart, test_many, test_forget,
			 test_rekey, test_device_overflow);
}
