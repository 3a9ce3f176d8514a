/* Unit tests for comparing two runs' traces (trace/tracecmp.c). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracecmp.h"
#include "tests/unit/suite.h"

static FILE *trace_of(const char *text)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	return f;
}

#define OPEN_A "0.000010000 main 2 openat(-100, \"/s/counter\", 0, 0)\n  | = 3\n"
#define READ_A "  | outside: main 2 \"/s/counter\" host file, 2 bytes, mtime 1.000000000\n"
#define READ_B "  | outside: main 2 \"/s/counter\" host file, 2 bytes, mtime 2.000000000\n"
#define PROC   "  | outside: main 2 \"/proc/vmstat\" a /proc file dsim does not virtualize\n"

/* A note round-trips, with a path that needs escaping. */
START_TEST(test_note_roundtrip)
{
	char buf[512];
	struct outside_read r;
	outside_note_format(buf, sizeof buf, "db1", 7, "/a dir/\"q\"\\\n\x01", "host file, 1 bytes");
	ck_assert_str_eq(buf, "outside: db1 7 \"/a dir/\\\"q\\\"\\\\\\n\\x01\" host file, 1 bytes");
	ck_assert_int_eq(outside_note_parse(buf, &r), 0);
	ck_assert_str_eq(r.machine, "db1");
	ck_assert_int_eq(r.tid, 7);
	ck_assert_str_eq(r.path, "/a dir/\"q\"\\\n\x01");
	ck_assert_str_eq(r.desc, "host file, 1 bytes");
	outside_read_free(&r);
	ck_assert_int_eq(outside_note_parse("= 3", &r), -1);
	ck_assert_int_eq(outside_note_parse("outside: m 1 \"unterminated", &r), -1);
	ck_assert_int_eq(outside_note_parse("outside: m 1 \"bad\\q\" x", &r), -1);
}
END_TEST

/* Identical traces: not parted, every read kept, none changed. */
START_TEST(test_identical)
{
	const char *t = OPEN_A READ_A "0.000020000 main 2 getpid()\n0.000030000 - 0 end pass\n";
	FILE *a = trace_of(t), *b = trace_of(t);
	struct tc_diff d;
	ck_assert_int_eq(tracecmp(a, b, &d), 0);
	ck_assert(!d.parted);
	ck_assert(!d.result_differs);
	ck_assert_uint_eq(d.side[0].events, 3);
	ck_assert_uint_eq(d.side[0].nreads, 1);
	ck_assert_uint_eq(d.side[0].reads[0].event, 0);
	size_t i0[4], i1[4];
	ck_assert_uint_eq(tracecmp_changed_reads(&d, i0, i1, 4), 0);
	tracecmp_free(&d);
	fclose(a);
	fclose(b);
}
END_TEST

/* The first differing event, with the context before it (clock reads left
 * out), and the changed host file read before it. */
START_TEST(test_parted_with_changed_read)
{
	const char *common = OPEN_A;
	char ta[2048], tb[2048];
	snprintf(ta, sizeof ta, "%s%s%s", common, READ_A PROC,
	         "0.000020000 main 2 read(3, p, 16)\n  | = 2\n"
	         "0.000030000 main 2 clock_gettime(1, p) = 0\n"
	         "0.000040000 main 2 getppid() = 1\n"
	         "0.000050000 main 2 exit_group(0)\n");
	snprintf(tb, sizeof tb, "%s%s%s", common, READ_B PROC,
	         "0.000020000 main 2 read(3, p, 16)\n  | = 3\n"
	         "0.000030000 main 2 clock_gettime(1, p) = 0\n"
	         "0.000040000 main 2 getppid() = 1\n"
	         "0.000050000 main 2 getppid() = 1\n"
	         "  | outside: main 2 \"/late\" host file, 0 bytes\n");
	FILE *a = trace_of(ta), *b = trace_of(tb);
	struct tc_diff d;
	ck_assert_int_eq(tracecmp(a, b, &d), 0);
	ck_assert(d.parted);
	ck_assert_uint_eq(d.index, 4);
	ck_assert_str_eq(d.side[0].line, "0.000050000 main 2 exit_group(0)");
	ck_assert_str_eq(d.side[1].line, "0.000050000 main 2 getppid() = 1");
	ck_assert_uint_eq(d.ncontext, 3);
	ck_assert_str_eq(d.context[0], "0.000010000 main 2 openat(-100, \"/s/counter\", 0, 0)");
	ck_assert_str_eq(d.context[2], "0.000040000 main 2 getppid() = 1");
	ck_assert(d.result_differs);
	ck_assert_uint_eq(d.result_index, 1);
	ck_assert_str_eq(d.result_note[0], "= 2");
	ck_assert_str_eq(d.result_note[1], "= 3");
	/* The read after the parting point is not "before it". */
	ck_assert_uint_eq(d.side[1].nreads, 2);
	size_t i0[4], i1[4];
	ck_assert_uint_eq(tracecmp_changed_reads(&d, i0, i1, 4), 1);
	ck_assert_str_eq(d.side[0].reads[i0[0]].path, "/s/counter");
	ck_assert_str_eq(d.side[1].reads[i1[0]].desc, "host file, 2 bytes, mtime 2.000000000");
	tracecmp_free(&d);
	fclose(a);
	fclose(b);
}
END_TEST

/* One trace is a prefix of the other: they part where the shorter ends. */
START_TEST(test_one_ends_first)
{
	FILE *a = trace_of("0.000000000 main 2 getpid()\n"), *b = trace_of("0.000000000 main 2 getpid()\n0.1 main 2 x()\n");
	struct tc_diff d;
	ck_assert_int_eq(tracecmp(a, b, &d), 0);
	ck_assert(d.parted);
	ck_assert_uint_eq(d.index, 1);
	ck_assert_ptr_null(d.side[0].line);
	ck_assert_str_eq(d.side[1].line, "0.1 main 2 x()");
	tracecmp_free(&d);
	fclose(a);
	fclose(b);
}
END_TEST

/* A read in one run only counts as changed. */
START_TEST(test_read_in_one_run_only)
{
	FILE *a = trace_of(OPEN_A READ_A "0.1 - 0 end pass\n"), *b = trace_of(OPEN_A "0.1 - 0 end pass\n");
	struct tc_diff d;
	ck_assert_int_eq(tracecmp(a, b, &d), 0);
	ck_assert(!d.parted);
	size_t i0[4], i1[4];
	ck_assert_uint_eq(tracecmp_changed_reads(&d, i0, i1, 4), 1);
	ck_assert_uint_eq(i1[0], SIZE_MAX);
	tracecmp_free(&d);
	fclose(a);
	fclose(b);
}
END_TEST

START_TEST(test_bytes)
{
	ck_assert_int_eq(bytes_first_difference("abc", 3, "abc", 3), -1);
	ck_assert_int_eq(bytes_first_difference("abc", 3, "abd", 3), 2);
	ck_assert_int_eq(bytes_first_difference("ab", 2, "abc", 3), 2);
	ck_assert_int_eq(bytes_first_difference("", 0, "", 0), -1);
	const char *out = "first\ncount 41\tx\nlast\n";
	char line[64];
	bytes_line_at(out, strlen(out), 12, line, sizeof line);
	ck_assert_str_eq(line, "count 41\\tx");
	bytes_line_at(out, strlen(out), strlen(out), line, sizeof line);
	ck_assert_str_eq(line, "");
}
END_TEST

int main(void)
{
	return RUN_TESTS("tracecmp", test_note_roundtrip, test_identical,
			 test_parted_with_changed_read, test_one_ends_first,
			 test_read_in_one_run_only, test_bytes);
}
