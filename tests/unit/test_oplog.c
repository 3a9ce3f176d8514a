/* Unit tests for the log of name operations not yet durable
 * (base/oplog.c): which operations an fsync makes durable. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/oplog.h"
#include "tests/unit/suite.h"

static size_t durable_count(const struct oplog *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) n += l->ops[i].durable;
	return n;
}

START_TEST(test_parent_dirs)
{
	struct oplog l = { 0 };
	struct name_op *op = oplog_add(&l, NOP_RENAME, "/a/b/tmp", "/a/c/log");
	ck_assert_str_eq(op->dir[0], "/a/b");
	ck_assert_str_eq(op->dir[1], "/a/c");
	op = oplog_add(&l, NOP_RENAME, "/d/tmp", "/d/log");
	ck_assert_ptr_null(op->dir[1]);         /* one directory */
	op = oplog_add(&l, NOP_CREATE, "/top", NULL);
	ck_assert_str_eq(op->dir[0], "/");
	oplog_clear(&l);
}
END_TEST

/* A directory fsync makes its entries durable, not other directories'. */
START_TEST(test_dir_sync)
{
	struct oplog l = { 0 };
	oplog_add(&l, NOP_CREATE, "/x/f", NULL);
	oplog_add(&l, NOP_CREATE, "/y/g", NULL);
	ck_assert_uint_eq(oplog_dir_synced(&l, "/x"), 1);
	ck_assert(l.ops[0].durable);
	ck_assert(!l.ops[1].durable);
	ck_assert_uint_eq(oplog_dir_synced(&l, "/x"), 0);
	oplog_clear(&l);
}
END_TEST

/* A rename across directories is durable with either directory's fsync,
 * and drags earlier operations of the other directory along (journal
 * order), but not later ones. */
START_TEST(test_closure)
{
	struct oplog l = { 0 };
	oplog_add(&l, NOP_CREATE, "/a/early", NULL);
	oplog_add(&l, NOP_RENAME, "/a/tmp", "/b/log");
	oplog_add(&l, NOP_CREATE, "/a/late", NULL);
	ck_assert_uint_eq(oplog_dir_synced(&l, "/b"), 2);
	ck_assert(l.ops[0].durable && l.ops[1].durable);
	ck_assert(!l.ops[2].durable);
	oplog_clear(&l);
}
END_TEST

static void count_drop(struct name_op *op, void *arg)
{
	(void)op;
	++*(int *)arg;
}

START_TEST(test_compact_and_limit)
{
	struct oplog l = { 0 };
	for (int i = 0; i < 10; i++) oplog_add(&l, NOP_CREATE, i % 2 ? "/a/f" : "/b/f", NULL);
	oplog_dir_synced(&l, "/a");
	int dropped = 0;
	oplog_compact(&l, count_drop, &dropped);
	/* /a's five; /b's stay: nothing durable touched /b. */
	ck_assert_int_eq(dropped, 5);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_str_eq(l.ops[0].path[0], "/b/f");
	for (int i = 0; i < 5; i++) oplog_add(&l, NOP_UNLINK, "/c/x", NULL);
	oplog_limit(&l, 2);
	ck_assert_uint_eq(durable_count(&l), 8);
	oplog_all_synced(&l);
	oplog_compact(&l, NULL, NULL);
	ck_assert_uint_eq(l.n, 0);
	oplog_add(&l, NOP_MKDIR, "/m", NULL);
	oplog_pop(&l);
	ck_assert_uint_eq(l.n, 0);
	oplog_clear(&l);
}
END_TEST

int main(void)
{
	return RUN_TESTS("oplog", test_parent_dirs, test_dir_sync, test_closure,
			 test_compact_and_limit);
}
