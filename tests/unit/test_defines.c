/* Unit tests for -D NAME=VALUE and ${NAME} (base/defines.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/defines.h"
#include "tests/unit/suite.h"

static char err[512];

static struct defines two(void)
{
	struct defines d = { 0 };
	ck_assert_int_eq(define_add(&d, "BUG=claim", err, sizeof err), 0);
	ck_assert_int_eq(define_add(&d, "NET_LOSS=0.5", err, sizeof err), 0);
	return d;
}

/* expand LINE with d and compare with WANT (NULL: an error is expected). */
static void expect(struct defines *d, const char *line, const char *want)
{
	err[0] = 0;
	char *got = define_expand(line, d, err, sizeof err);
	if (!want) {
		ck_assert_msg(got == NULL, "%s expanded to %s", line, got);
		ck_assert(err[0]);
	} else {
		ck_assert_msg(got != NULL, "%s: %s", line, err);
		ck_assert_str_eq(got, want);
	}
	free(got);
}

START_TEST(test_expand)
{
	struct defines d = two();
	expect(&d, "command = python3 queue.py --bug ${BUG}", "command = python3 queue.py --bug claim");
	expect(&d, "rate = ${NET_LOSS}%", "rate = 0.5%");
	expect(&d, "${BUG}${BUG}", "claimclaim");
	expect(&d, "${MODE:-fixed} ${BUG:-none}", "fixed claim");
	expect(&d, "${MODE:-}", "");
	expect(&d, "no variable here", "no variable here");
	/* Shell text stays shell text: $VAR, $$, $(...), and $${VAR} for ${VAR}. */
	expect(&d, "kill -9 $$; echo $HOME $(id -u) $", "kill -9 $$; echo $HOME $(id -u) $");
	expect(&d, "echo $${HOME} $${BUG}", "echo ${HOME} ${BUG}");
	expect(&d, "${UNDEFINED}", NULL);
	ck_assert(strstr(err, "${UNDEFINED} is not defined") != NULL);
	ck_assert(strstr(err, "-D UNDEFINED=VALUE") != NULL);
	expect(&d, "${BUG", NULL);
	expect(&d, "${1}", NULL);
	expect(&d, "${}", NULL);
	expect(&d, "${BUG:-x", NULL);
	expect(NULL, "${X:-y}", "y");
	expect(NULL, "${X}", NULL);
	defines_free(&d);
}
END_TEST

START_TEST(test_used)
{
	struct defines d = two();
	expect(&d, "${NET_LOSS}", "0.5");
	ck_assert(!d.used[0]);
	ck_assert(d.used[1]);
	defines_free(&d);
}
END_TEST

START_TEST(test_add)
{
	struct defines d = { 0 };
	ck_assert_int_eq(define_add(&d, "A=1", err, sizeof err), 0);
	ck_assert_int_eq(define_add(&d, "_b2=x=y", err, sizeof err), 0);
	ck_assert_str_eq(d.value[1], "x=y");
	ck_assert_int_eq(define_add(&d, "A=2", err, sizeof err), 0);     /* the last one counts */
	ck_assert_uint_eq(d.n, 2);
	ck_assert_str_eq(d.value[0], "2");
	ck_assert_int_eq(define_add(&d, "E=", err, sizeof err), 0);
	ck_assert_str_eq(d.value[2], "");
	const char *bad[] = { "A", "=1", "1A=2", "A-B=1", "A B=1", "A=two\nlines", "" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(define_add(&d, bad[i], err, sizeof err) == -1, "%s", bad[i]);
	defines_free(&d);
}
END_TEST

START_TEST(test_quote)
{
	const char *cases[][2] = {
		{ "plain/path-1.conf", "plain/path-1.conf" },
		{ "BUG=claim", "BUG=claim" },
		{ "two words", "'two words'" },
		{ "it's", "'it'\\''s'" },
		{ "$HOME", "'$HOME'" },
		{ "", "''" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *q = shell_quote(cases[i][0]);
		ck_assert_str_eq(q, cases[i][1]);
		free(q);
	}
	struct defines d = { 0 };
	char *o = defines_options(&d);
	ck_assert_str_eq(o, "");
	free(o);
	define_add(&d, "BUG=claim", err, sizeof err);
	define_add(&d, "CMD=a b", err, sizeof err);
	o = defines_options(&d);
	ck_assert_str_eq(o, " -D BUG=claim -D 'CMD=a b'");
	free(o);
	defines_free(&d);
}
END_TEST

int main(void)
{
	return RUN_TESTS("defines", test_expand, test_used, test_add, test_quote);
}
