/* Unit tests for base/plan.c: every fault kind written to a plan and read
 * back, byte for byte, and the messages of a plan that does not fit. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/plan.h"

static char *names3[] = { "a", "b", "c" };
static struct machine_conf machines3[] = { { .name = "a" }, { .name = "b" }, { .name = "c" } };
static const struct config conf3 = { .path = "x.conf", .machines = machines3, .nmachines = 3 };

/* One fault of every kind, with each of its fields set. */
static struct fault_conf every_kind[] = {
    { .name = "j", .kind = FAULT_CLOCK_JUMP, .at_ns = 1, .machine = "a", .by_ns = -5 },
    { .name = "c", .kind = FAULT_CRASH, .at_ns = 2, .machine = "b", .has_duration = true, .duration_ns = 7 },
    { .name = "c2", .kind = FAULT_CRASH, .at_ns = 2, .machine = "b" },
    { .name = "r", .kind = FAULT_RESTART, .at_ns = 3, .machine = "c", .has_duration = true },
    { .name = "p", .kind = FAULT_PAUSE, .at_ns = 4, .machine = "a", .has_duration = true, .duration_ns = 9 },
    { .name = "cut", .kind = FAULT_PARTITION, .at_ns = 5, .machines = names3, .nmachines = 3, .nleft = 1,
      .one_way = true, .has_duration = true, .duration_ns = 11 },
    { .name = "cut2", .kind = FAULT_PARTITION, .at_ns = 5, .machines = names3, .nmachines = 3, .nleft = 2 },
    { .name = "l", .kind = FAULT_LOSS, .at_ns = 6, .rate_ppm = 300000, .machines = names3 + 1, .nmachines = 2 },
    { .name = "d", .kind = FAULT_DUPLICATE, .at_ns = 7, .rate_ppm = 1, .has_duration = true, .duration_ns = 3 },
};
#define NKINDS (sizeof every_kind / sizeof every_kind[0])

/* The plan bytes dsim wrote before fault kinds became data: they must not change. */
static const char *const golden =
    "{\n  \"faults\": [\n"
    "    {\n      \"name\": \"j\",\n      \"kind\": \"clock_jump\",\n      \"at_ns\": 1,\n"
    "      \"machine\": \"a\",\n      \"by_ns\": -5\n    },\n"
    "    {\n      \"name\": \"c\",\n      \"kind\": \"crash\",\n      \"at_ns\": 2,\n"
    "      \"machine\": \"b\",\n      \"duration_ns\": 7\n    },\n"
    "    {\n      \"name\": \"c2\",\n      \"kind\": \"crash\",\n      \"at_ns\": 2,\n      \"machine\": \"b\"\n    },\n"
    "    {\n      \"name\": \"r\",\n      \"kind\": \"restart\",\n      \"at_ns\": 3,\n"
    "      \"machine\": \"c\",\n      \"duration_ns\": 0\n    },\n"
    "    {\n      \"name\": \"p\",\n      \"kind\": \"pause\",\n      \"at_ns\": 4,\n"
    "      \"machine\": \"a\",\n      \"duration_ns\": 9\n    },\n"
    "    {\n      \"name\": \"cut\",\n      \"kind\": \"partition\",\n      \"at_ns\": 5,\n"
    "      \"sides\": [\n        [\n          \"a\"\n        ],\n        [\n          \"b\",\n          \"c\"\n"
    "        ]\n      ],\n      \"one_way\": true,\n      \"duration_ns\": 11\n    },\n"
    "    {\n      \"name\": \"cut2\",\n      \"kind\": \"partition\",\n      \"at_ns\": 5,\n"
    "      \"sides\": [\n        [\n          \"a\",\n          \"b\"\n        ],\n        [\n          \"c\"\n"
    "        ]\n      ],\n      \"one_way\": false\n    },\n"
    "    {\n      \"name\": \"l\",\n      \"kind\": \"loss\",\n      \"at_ns\": 6,\n      \"rate_ppm\": 300000,\n"
    "      \"machines\": [\n        \"b\",\n        \"c\"\n      ]\n    },\n"
    "    {\n      \"name\": \"d\",\n      \"kind\": \"duplicate\",\n      \"at_ns\": 7,\n      \"rate_ppm\": 1,\n"
    "      \"duration_ns\": 3\n    }\n"
    "  ]\n}";

START_TEST(test_plan_bytes)
{
    char *s = plan_to_json(every_kind, NKINDS);
    ck_assert_str_eq(s, golden);
    free(s);
}
END_TEST

START_TEST(test_plan_round_trip)
{
    struct fault_conf *f;
    size_t n;
    char err[256] = "";
    ck_assert_int_eq(plan_from_json(golden, &conf3, &f, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, NKINDS);
    char *s = plan_to_json(f, n);
    ck_assert_str_eq(s, golden);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(f[i].name, every_kind[i].name);
        ck_assert_int_eq(f[i].kind, every_kind[i].kind);
        ck_assert_int_eq(f[i].has_duration, every_kind[i].has_duration);
        ck_assert_uint_eq(f[i].nmachines, every_kind[i].nmachines);
        ck_assert_uint_eq(f[i].nleft, every_kind[i].nleft);
    }
    free(s);
    plan_free(f, n);
}
END_TEST

/* Reads one fault object; returns the error ("" when it loads). */
static const char *load_one(const char *fault)
{
    static char err[512];
    char text[1024];
    struct fault_conf *f = NULL;
    size_t n = 0;
    snprintf(text, sizeof text, "{\"faults\": [%s]}", fault);
    err[0] = '\0';
    if (plan_from_json(text, &conf3, &f, &n, err, sizeof err) == 0) plan_free(f, n);
    return err;
}

START_TEST(test_plan_errors)
{
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"flood\", \"at_ns\": 1}"),
                     "(plan): fault 1: needs a name, a kind and at_ns (for x.conf)");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"crash\", \"at_ns\": 1, \"machine\": \"zz\"}"),
                     "(plan): fault 1: needs a machine of the config (for x.conf)");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"partition\", \"at_ns\": 1, \"sides\": [[\"a\"], []]}"),
                     "(plan): fault 1: a partition needs sides: two lists of distinct machines of the config "
                     "(for x.conf)");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"loss\", \"at_ns\": 1}"),
                     "(plan): fault 1: a burst needs rate_ppm, from 0 to 1000000 (for x.conf)");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"loss\", \"at_ns\": 1, \"rate_ppm\": 5, "
                              "\"machines\": [\"a\", \"a\"]}"),
                     "(plan): fault 1: a burst's machines must be distinct machines of the config (for x.conf)");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"duplicate\", \"at_ns\": 1, \"rate_ppm\": 5, "
                              "\"duration_ns\": 0}"),
                     "(plan): fault 1: a network fault's duration_ns must be greater than 0 (or absent) "
                     "(for x.conf)");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"pause\", \"at_ns\": 1, \"machine\": \"c\", "
                              "\"duration_ns\": 0}"), "");
    ck_assert_str_eq(load_one("{\"name\": \"x\", \"kind\": \"clock_jump\", \"at_ns\": 1, \"machine\": \"c\"}"), "");
}
END_TEST

START_TEST(test_fault_targets)
{
    char buf[128];
    const char *want[NKINDS] = { "a", "b", "b", "c", "a", "a -> b c", "a b | c", "links of b c", "every link" };
    for (size_t i = 0; i < NKINDS; i++)
        ck_assert_str_eq(fault_targets(&every_kind[i], buf, sizeof buf), want[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, test_plan_bytes);
    tcase_add_test(tc, test_plan_round_trip);
    tcase_add_test(tc, test_plan_errors);
    tcase_add_test(tc, test_fault_targets);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
