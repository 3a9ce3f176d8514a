/* Unit tests for a seed's result (base/results.c), the one record of a run,
 * a sweep's pipe, --results, the checkpoint, dsim merge and JUnit: its
 * JSON line is exactly what dsim has always written; every field, the
 * ones added later too (through RESULT_FIELDS), survives the JSON line and
 * the pipe's bytes; the failure printer and the summary say what a sweep
 * prints. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/results.h"

/* ---- every field, through RESULT_FIELDS ---- */

static void fill_U64(void *p, int k) { *(uint64_t *)p = UINT64_MAX - (uint64_t)k * 1000003; }
static void fill_LONG(void *p, int k) { *(long *)p = 17 + k; }
static void fill_INT(void *p, int k) { *(int *)p = -5 - k; }
static void fill_OUTCOME(void *p, int k) { *(enum outcome *)p = k % 2 ? OUT_CHECK : OUT_NONDETERMINISTIC; }
static void fill_VERDICT(void *p, int k) { *(int *)p = k % 2 ? 1 : -1; }
static void fill_HASH(void *p, int k) { snprintf(p, 33, "%032x", 0xabc00 + k); }
static void fill_NAME(void *p, int k) { snprintf(p, 48, "%d/%d", k, k + 1); }

static void fill_TEXT(void *p, int k)
{
	ck_assert_int_ge(asprintf((char **)p, "text %d: \"quoted\" \\ tab\there\nnext line \xc3\xa9 \xe2\x82\xac\n", k), 0);
}

static void fill_OBJECT(void *p, int k)
{
	ck_assert_int_ge(asprintf((char **)p, "{\"Z%d\":\"last\",\"A\":\"first \\\"q\\\"\"}", k), 0);
}

#define FILL(type, name, when) fill_##type(&r->name, k++);
static void fill_all(struct seed_result *r)
{
	int k = 1;
	result_init(r);
	RESULT_FIELDS(FILL)
}

static void same_num(const void *a, const void *b, size_t n, const char *name)
{
	ck_assert_msg(!memcmp(a, b, n), "field %s differs", name);
}

static void same_text(char *const *a, char *const *b, const char *name)
{
	ck_assert_msg((!*a && !*b) || (*a && *b && !strcmp(*a, *b)), "field %s: \"%s\" then \"%s\"", name,
		      *a ? *a : "(null)", *b ? *b : "(null)");
}

static void same_chars(const char *a, const char *b, const char *name)
{
	ck_assert_msg(!strcmp(a, b), "field %s: \"%s\" then \"%s\"", name, a, b);
}

#define SAME_U64(a, b, n) same_num(&(a), &(b), sizeof (a), n)
#define SAME_LONG SAME_U64
#define SAME_INT SAME_U64
#define SAME_OUTCOME SAME_U64
#define SAME_VERDICT SAME_U64
#define SAME_HASH(a, b, n) same_chars(a, b, n)
#define SAME_NAME SAME_HASH
#define SAME_TEXT(a, b, n) same_text(&(a), &(b), n)
#define SAME_OBJECT SAME_TEXT

/* Whether a JSON line of a checkpoint carries the field. */
#define IN_JSON_REQUIRED 1
#define IN_JSON_ALWAYS 1
#define IN_JSON_IF_SET 1
#define IN_JSON_WITH(f) 1
#define IN_JSON_CHECKPOINT 1
#define IN_JSON_NEVER 0

#define SAME_IN_JSON(type, name, when) \
	if (IN_JSON_##when) SAME_##type(a->name, b->name, #name); \
	else ck_assert_msg(is_empty(&b->name, sizeof b->name), "field %s was not written but came back", #name);
#define SAME_ALL(type, name, when) SAME_##type(a->name, b->name, #name);

static int is_empty(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i]) return 0;
	return 1;
}

static void same_in_json(const struct seed_result *a, const struct seed_result *b) { RESULT_FIELDS(SAME_IN_JSON) }
static void same_all(const struct seed_result *a, const struct seed_result *b) { RESULT_FIELDS(SAME_ALL) }

START_TEST(json_round_trip_every_field)
{
	struct seed_result a, b;
	fill_all(&a);
	char *line = result_to_json(&a, 1);
	ck_assert_ptr_nonnull(line);
	ck_assert_ptr_null(strchr(line, '\n'));            /* one line */
	ck_assert_int_eq(result_from_json(line, &b), 0);
	same_in_json(&a, &b);
	char *again = result_to_json(&b, 1);
	ck_assert_str_eq(line, again);
	free(line);
	free(again);
	result_free(&a);
	result_free(&b);
}
END_TEST

/* Every field set; a report no JSON line could keep; no replay command;
 * an empty check output. */
static void fill_for_pack(struct seed_result *r)
{
	fill_all(r);
	free(r->report);
	r->report = strdup("bad \377\376 bytes \033[31m \300\200 kept as they are\n");
	free(r->replay);
	r->replay = NULL;
	free(r->check_output);
	r->check_output = strdup("");
}

/* Overwrites every text of r in place. */
static void scribble_text(char **p)
{
	if (*p) memset(*p, 'x', strlen(*p));
}
static void scribble_none(void *p) { (void)p; }
#define SCRIBBLE_U64 scribble_none
#define SCRIBBLE_LONG scribble_none
#define SCRIBBLE_INT scribble_none
#define SCRIBBLE_OUTCOME scribble_none
#define SCRIBBLE_VERDICT scribble_none
#define SCRIBBLE_HASH scribble_none
#define SCRIBBLE_NAME scribble_none
#define SCRIBBLE_TEXT scribble_text
#define SCRIBBLE_OBJECT scribble_text
#define SCRIBBLE(type, name, when) SCRIBBLE_##type(&r->name);
static void scribble(struct seed_result *r) { RESULT_FIELDS(SCRIBBLE) }

START_TEST(pack_round_trip_every_field)
{
	struct seed_result a, b, want;
	fill_for_pack(&a);
	size_t len;
	char *bytes = result_pack(&a, &len);
	scribble(&a);                   /* the bytes hold the texts themselves */
	result_free(&a);
	ck_assert_int_eq(result_unpack(bytes, len, &b), 0);
	fill_for_pack(&want);
	same_all(&want, &b);
	ck_assert_ptr_null(b.replay);
	ck_assert_ptr_nonnull(b.check_output);
	result_free(&b);
	/* Cut short anywhere, or with bytes to spare: refused, and nothing to free. */
	for (size_t cut = 0; cut < len; cut += cut < sizeof a ? sizeof a / 4 : 1) {
		ck_assert_int_eq(result_unpack(bytes, cut, &b), -1);
		ck_assert_ptr_null(b.reason);
		ck_assert_ptr_null(b.report);
	}
	char *more = malloc(len + 1);
	memcpy(more, bytes, len);
	ck_assert_int_eq(result_unpack(more, len + 1, &b), -1);
	free(more);
	free(bytes);
	result_free(&want);
}
END_TEST

/* The lines dsim writes, byte for byte (t_sweep and others read them). */
START_TEST(json_lines_as_written)
{
	struct seed_result r;
	result_init(&r);
	r.seed = 7;
	r.outcome = OUT_PASS;
	snprintf(r.hash, sizeof r.hash, "0123456789abcdef0123456789abcdef");
	r.sim_time_ns = 1500;
	r.steps = 42;
	r.wall_ms = 3;
	r.check_output = strdup("not written\n");
	r.exit_status = 256;
	char *line = result_to_json(&r, 0);
	ck_assert_str_eq(line, "{\"seed\":7,\"outcome\":\"pass\",\"reason\":\"\",\"sim_time_ns\":1500,\"steps\":42,"
			       "\"hash\":\"0123456789abcdef0123456789abcdef\",\"wall_ms\":3}");
	free(line);
	r.outcome = OUT_TIMEOUT;
	r.reason = strdup("the time limit passed");
	r.replay = strdup("dsim replay 'a b.conf' 7 -D BUG=1");
	r.report = strdup("  last events:\n");
	r.replayed = -1;
	snprintf(r.replay_hash, sizeof r.replay_hash, "ffffffffffffffffffffffffffffffff");
	r.defines = strdup("{\"BUG\":\"1\",\"A\":\"x\"}");
	snprintf(r.shard, sizeof r.shard, "2/3");
	r.sweep_seeds = 100;
	r.index = 4;
	line = result_to_json(&r, 1);
	ck_assert_str_eq(line, "{\"seed\":7,\"outcome\":\"time limit\",\"reason\":\"the time limit passed\","
			       "\"sim_time_ns\":1500,\"steps\":42,\"hash\":\"0123456789abcdef0123456789abcdef\",\"wall_ms\":3,"
			       "\"replay\":\"dsim replay 'a b.conf' 7 -D BUG=1\",\"report\":\"  last events:\\n\","
			       "\"replayed\":false,\"replay_hash\":\"ffffffffffffffffffffffffffffffff\","
			       "\"defines\":{\"BUG\":\"1\",\"A\":\"x\"},\"shard\":\"2/3\",\"sweep_seeds\":100,\"index\":4}");
	free(line);
	/* replay_hash goes with replayed, sweep_seeds with shard; a results
	 * file has no index; defines that are not an object are left out. */
	r.replayed = 0;
	r.shard[0] = 0;
	free(r.defines);
	r.defines = strdup("[1]");
	line = result_to_json(&r, 0);
	ck_assert_ptr_null(strstr(line, "replay_hash"));
	ck_assert_ptr_null(strstr(line, "sweep_seeds"));
	ck_assert_ptr_null(strstr(line, "index"));
	ck_assert_ptr_null(strstr(line, "defines"));
	ck_assert_ptr_nonnull(strstr(line, "\"report\":\"  last events:\\n\"}"));
	free(line);
	result_free(&r);
}
END_TEST

START_TEST(invalid_utf8_becomes_replacement)
{
	struct seed_result r, back;
	result_init(&r);
	r.outcome = OUT_EXIT;
	r.report = strdup("bad \377\376 bytes \300\200 \xed\xa0\x80 ok \xc3\xa9\n");
	char *line = result_to_json(&r, 0);
	ck_assert_int_eq(result_from_json(line, &back), 0);
	ck_assert_str_eq(back.report, "bad \xef\xbf\xbd\xef\xbf\xbd bytes \xef\xbf\xbd\xef\xbf\xbd "
				      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9\n");
	free(line);
	result_free(&r);
	result_free(&back);
}
END_TEST

START_TEST(not_result_lines)
{
	static const char *const bad[] = {
		"", "not json", "[1,2]", "{\"outcome\":\"pass\",\"hash\":\"h\"}", "{\"seed\":1,\"hash\":\"h\"}",
		"{\"seed\":1,\"outcome\":\"pass\"}", "{\"seed\":\"1\",\"outcome\":\"pass\",\"hash\":\"h\"}",
		"{\"seed\":1,\"outcome\":\"sideways\",\"hash\":\"h\"}", "{\"seed\":1,\"outcome\":3,\"hash\":\"h\"}",
	};
	struct seed_result r;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_msg(result_from_json(bad[i], &r) == -1, "accepted %s", bad[i]);
		ck_assert_ptr_null(r.reason);
	}
	/* The least a line needs; the rest is empty, index unknown. */
	ck_assert_int_eq(result_from_json("{\"seed\":3,\"outcome\":\"deadlock\",\"hash\":\"-\",\"extra\":1}\n", &r), 0);
	ck_assert_uint_eq(r.seed, 3);
	ck_assert_int_eq(r.outcome, OUT_DEADLOCK);
	ck_assert_str_eq(r.hash, "-");
	ck_assert_int_eq(r.index, -1);
	ck_assert_int_eq(r.replayed, 0);
	ck_assert_ptr_null(r.reason);
	ck_assert_ptr_null(r.defines);
	ck_assert_str_eq(r.shard, "");
	result_free(&r);
}
END_TEST

START_TEST(outcome_names)
{
	static const char *const names[] = { "running", "pass", "exit", "time limit", "deadlock", "fence", "check",
					     "internal", "spin", "nondeterministic" };
	for (enum outcome o = OUT_RUNNING; o <= OUT_NONDETERMINISTIC; o++) {
		ck_assert_str_eq(outcome_name(o), names[o]);
		char line[128];
		struct seed_result r;
		snprintf(line, sizeof line, "{\"seed\":1,\"outcome\":\"%s\",\"hash\":\"h\"}", names[o]);
		ck_assert_int_eq(result_from_json(line, &r), 0);
		ck_assert_int_eq(r.outcome, o);
	}
}
END_TEST

static char *printed(void (*print)(FILE *, const void *), const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	print(m, arg);
	fclose(m);
	return text;
}

static void print_one(FILE *f, const void *r) { result_print_failure(f, r); }

START_TEST(failure_printer)
{
	struct seed_result r;
	result_init(&r);
	r.seed = 12;
	r.outcome = OUT_EXIT;
	r.reason = strdup("machine a exited with status 1");
	r.sim_time_ns = 2000000123;
	r.steps = 99;
	snprintf(r.hash, sizeof r.hash, "00112233445566778899aabbccddeeff");
	r.replay = strdup("dsim replay c.conf 12 --plan p.json");
	r.report = strdup("  machine a stderr (last lines):\n    boom\n");
	char *text = printed(print_one, &r);
	ck_assert_str_eq(text, "seed 12 FAILED: machine a exited with status 1\n"
			       "  simulated time 2.000000123s, 99 steps, trace hash 00112233445566778899aabbccddeeff\n"
			       "  replay: dsim replay c.conf 12 --plan p.json\n"
			       "  machine a stderr (last lines):\n    boom\n");
	free(text);
	result_free(&r);
	text = printed(print_one, &r);              /* no reason, replay or report */
	ck_assert_str_eq(text, "seed 12 FAILED: ?\n"
			       "  simulated time 2.000000123s, 99 steps, trace hash 00112233445566778899aabbccddeeff\n"
			       "  replay: ?\n");
	free(text);
}
END_TEST

struct summary { struct seed_result *v; size_t n, total; bool keep_going, sampled; int status; };

static void print_summary(FILE *f, const void *arg)
{
	struct summary *s = (struct summary *)arg;
	s->status = result_summary(f, s->v, s->n, s->total, s->keep_going, s->sampled);
}

/* Seeds 1..n, those in `fail` failing, those in `twice` sampled (upper
 * case: did not replay). */
static void sweep(struct seed_result *v, size_t n, const char *fail, const char *twice)
{
	for (size_t i = 0; i < n; i++) {
		result_init(&v[i]);
		v[i].seed = i + 1;
		v[i].outcome = strchr(fail, (int)('a' + i)) ? OUT_EXIT : OUT_PASS;
		if (strchr(twice, (int)('a' + i))) v[i].replayed = 1;
		if (strchr(twice, (int)('A' + i))) { v[i].replayed = -1; v[i].outcome = OUT_NONDETERMINISTIC; }
	}
}

static void summary_is(struct summary *s, const char *want, int status)
{
	char *text = printed(print_summary, s);
	ck_assert_str_eq(text, want);
	ck_assert_int_eq(s->status, status);
	free(text);
}

START_TEST(summary)
{
	struct seed_result v[6];
	struct summary s = { v, 6, 6, false, false, 0 };
	sweep(v, 6, "", "");
	summary_is(&s, "dsim: all 6 seeds passed\n", 0);
	s.sampled = true;
	summary_is(&s, "dsim: verify sample: 0 seeds run twice, each replayed to the same trace hash\n"
		       "dsim: all 6 seeds passed\n", 0);
	s.sampled = false;
	sweep(v, 6, "ce", "b");
	summary_is(&s, "dsim: verify sample: 1 seed run twice, each replayed to the same trace hash\n"
		       "failed at seed 3 (2 seeds passed first)\n", 1);
	s.n = 3;                        /* a sweep stops at its first failure */
	s.total = 10;
	summary_is(&s, "dsim: verify sample: 1 seed run twice, each replayed to the same trace hash\n"
		       "failed at seed 3 (2 seeds passed first)\n", 1);
	s.n = 6;
	s.keep_going = true;
	summary_is(&s, "dsim: verify sample: 1 seed run twice, each replayed to the same trace hash\n"
		       "dsim: 2 of 10 seeds failed\n", 1);
	sweep(v, 6, "", "aD");
	summary_is(&s, "dsim: verify sample: 1 of 2 seeds run twice did not replay to the same trace hash\n"
		       "dsim: 1 of 10 seeds failed\n", 3);
	s.keep_going = false;
	sweep(v, 2, "a", "");
	s.n = s.total = 1;
	summary_is(&s, "failed at seed 1 (0 seeds passed first)\n", 1);
	v[0].outcome = OUT_PASS;
	summary_is(&s, "dsim: all 1 seeds passed\n", 0);
}
END_TEST

struct junit { struct seed_result *v; size_t n; };

static void print_junit(FILE *f, const void *arg)
{
	const struct junit *j = arg;
	junit_write(f, "c<1>.conf", j->v, j->n, 1.5);
}

START_TEST(junit)
{
	struct seed_result v[3];
	sweep(v, 3, "b", "aC");
	v[1].reason = strdup("exit \"1\" & <more>");
	v[1].wall_ms = 250;
	v[1].defines = strdup("{\"BUG\":\"x\"}");
	v[0].defines = strdup("{\"BUG\":\"claim\"}");
	struct junit j = { v, 3 };
	char *xml = printed(print_junit, &j);
	ck_assert_ptr_nonnull(strstr(xml, "<testsuite name=\"c&lt;1&gt;.conf\" tests=\"4\" failures=\"3\" errors=\"0\" time=\"1.500\">\n"
					  "  <properties>\n    <property name=\"BUG\" value=\"claim\"/>\n  </properties>\n"));
	ck_assert_ptr_nonnull(strstr(xml, "<testcase classname=\"dsim\" name=\"seed 2\" time=\"0.250\">\n"
					  "    <failure message=\"exit &quot;1&quot; &amp; &lt;more&gt;\" type=\"exit\">"
					  "seed 2 FAILED: exit &quot;1&quot; &amp; &lt;more&gt;\n"));
	ck_assert_ptr_nonnull(strstr(xml, "<failure message=\"\" type=\"nondeterministic\">"));
	ck_assert_ptr_nonnull(strstr(xml, "name=\"3 seeds, 1 passed\""));
	ck_assert_ptr_nonnull(strstr(xml, "name=\"verify sample: 2 seeds run twice, 1 did not replay\">\n"
					  "    <failure message=\"1 sampled seed did not replay to the same trace hash\" "
					  "type=\"nondeterministic\">seed 3\n</failure>"));
	free(xml);
	for (size_t i = 0; i < 3; i++) result_free(&v[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, json_round_trip_every_field);
	tcase_add_test(tc, pack_round_trip_every_field);
	tcase_add_test(tc, json_lines_as_written);
	tcase_add_test(tc, invalid_utf8_becomes_replacement);
	tcase_add_test(tc, not_result_lines);
	tcase_add_test(tc, outcome_names);
	tcase_add_test(tc, failure_printer);
	tcase_add_test(tc, summary);
	tcase_add_test(tc, junit);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
