/* The main() of a unit test program: run_suite(S) runs every test of suite
 * S and gives main's exit status (failure if any test failed); RUN_TESTS
 * does the same for a suite of one test case holding the tests named. */
#ifndef TESTS_UNIT_SUITE_H
#define TESTS_UNIT_SUITE_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* TESTS ends with NULL. */
static inline int run_test_list(const char *name, const TTest *const *tests)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);	/* check's 4 s default is too short for test_idmap's many ids on a busy host */
	for (; *tests; tests++)
		tcase_add_test(tc, *tests);
	suite_add_tcase(s, tc);
	return run_suite(s);
}

/* RUN_TESTS("name", test_a, test_b, ...): as `return RUN_TESTS(...);` in main. */
#define RUN_TESTS(name, ...) run_test_list(name, (const TTest *const[]){ __VA_ARGS__, NULL })

#endif
