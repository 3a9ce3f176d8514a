/* The checks a test program makes of itself: CHECK(cond, fmt, ...) prints
 * "FAIL line N: ..." (N the line of the CHECK) and counts the failure in
 * `failures`, which main() turns into its last line and exit status. */
#ifndef TESTS_PROGRAMS_SELFCHECK_H
#define TESTS_PROGRAMS_SELFCHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			failures++;                                           \
			printf("FAIL line %d: ", __LINE__);                   \
			printf(__VA_ARGS__);                                  \
			putchar('\n');                                        \
		}                                                             \
	} while (0)

#endif
