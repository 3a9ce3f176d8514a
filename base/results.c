#include "base/results.h"
#include "base/defines.h"
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if the bytes there
 * are not one (stray continuation, overlong, surrogate, past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80) return 1;
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    if (!n || (n == 3 && s[0] >= 0xf0)) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) return 0;         /* overlong */
    if (n == 3 && s[0] == 0xed && s[1] >= 0xa0) return 0;        /* surrogate */
    if (n == 4 && s[0] == 0xf0 && s[1] < 0x90) return 0;         /* overlong */
    if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90) return 0;        /* past U+10FFFF */
    return n;
}

/* A copy of s that is valid UTF-8: each byte that is not part of a valid
 * sequence becomes U+FFFD (a machine's stderr may hold anything). */
static char *utf8_clean(const char *s)
{
    if (!s) return NULL;
    size_t len = strlen(s);
    char *out = malloc(3 * len + 1), *o = out;
    if (!out) abort();
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n) { memcpy(o, p, n); o += n; p += n; }
        else { memcpy(o, "\xef\xbf\xbd", 3); o += 3; p++; }
    }
    *o = 0;
    return out;
}

static void xml_escaped(FILE *f, const char *s);

char *result_to_json(const struct seed_result *r, int with_index)
{
    char *reason = utf8_clean(r->reason ? r->reason : ""), *replay = utf8_clean(r->replay),
         *report = utf8_clean(r->report);
    json_t *o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:s, s:I}", "seed", (json_int_t)r->seed,
                          "outcome", r->outcome, "reason", reason,
                          "sim_time_ns", (json_int_t)r->sim_time_ns, "steps", (json_int_t)r->steps,
                          "hash", r->hash, "wall_ms", (json_int_t)r->wall_ms);
    if (o && replay) json_object_set_new(o, "replay", json_string(replay));
    if (o && report) json_object_set_new(o, "report", json_string(report));
    if (o && r->replayed) {
        json_object_set_new(o, "replayed", json_boolean(r->replayed > 0));
        json_object_set_new(o, "replay_hash", json_string(r->replay_hash));
    }
    json_t *defines = r->defines ? json_loads(r->defines, 0, NULL) : NULL;
    if (o && json_is_object(defines)) json_object_set(o, "defines", defines);
    json_decref(defines);
    if (o && r->shard[0]) {
        json_object_set_new(o, "shard", json_string(r->shard));
        json_object_set_new(o, "sweep_seeds", json_integer((json_int_t)r->sweep_seeds));
    }
    free(reason);
    free(replay);
    free(report);
    if (!o) return NULL;
    if (with_index) json_object_set_new(o, "index", json_integer(r->index));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

static char *dup_field(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? strdup(v) : NULL;
}

int result_from_json(const char *line, struct seed_result *r)
{
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    memset(r, 0, sizeof *r);
    r->index = -1;
    const char *outcome = json_string_value(json_object_get(o, "outcome"));
    const char *hash = json_string_value(json_object_get(o, "hash"));
    json_t *seed = json_object_get(o, "seed");
    if (!o || !outcome || !hash || !json_is_integer(seed)) { json_decref(o); return -1; }
    r->seed = (uint64_t)json_integer_value(seed);
    snprintf(r->outcome, sizeof r->outcome, "%s", outcome);
    snprintf(r->hash, sizeof r->hash, "%s", hash);
    r->reason = dup_field(o, "reason");
    r->report = dup_field(o, "report");
    r->replay = dup_field(o, "replay");
    const char *shard = json_string_value(json_object_get(o, "shard"));
    if (shard) snprintf(r->shard, sizeof r->shard, "%s", shard);
    r->sweep_seeds = (uint64_t)json_integer_value(json_object_get(o, "sweep_seeds"));
    r->sim_time_ns = (uint64_t)json_integer_value(json_object_get(o, "sim_time_ns"));
    r->steps = (uint64_t)json_integer_value(json_object_get(o, "steps"));
    r->wall_ms = (uint64_t)json_integer_value(json_object_get(o, "wall_ms"));
    json_t *replayed = json_object_get(o, "replayed");
    const char *replay_hash = json_string_value(json_object_get(o, "replay_hash"));
    if (json_is_boolean(replayed)) r->replayed = json_is_true(replayed) ? 1 : -1;
    if (replay_hash) snprintf(r->replay_hash, sizeof r->replay_hash, "%s", replay_hash);
    json_t *defines = json_object_get(o, "defines");
    if (json_is_object(defines)) r->defines = json_dumps(defines, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (json_is_integer(json_object_get(o, "index"))) r->index = (long)json_integer_value(json_object_get(o, "index"));
    json_decref(o);
    return 0;
}

void result_free(struct seed_result *r)
{
    free(r->reason);
    free(r->report);
    free(r->replay);
    free(r->defines);
    r->reason = r->report = r->replay = r->defines = NULL;
}

char *defines_to_json(const struct defines *d)
{
    if (!d->n) return NULL;
    json_t *o = json_object();
    for (size_t i = 0; o && i < d->n; i++) {
        char *v = utf8_clean(d->value[i]);
        json_object_set_new(o, d->name[i], json_string(v));
        free(v);
    }
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}

/* The -D values of a sweep as JUnit properties of its testsuite. */
static void junit_properties(FILE *f, const char *defines)
{
    json_t *o = defines ? json_loads(defines, 0, NULL) : NULL;
    const char *key;
    json_t *value;
    if (json_is_object(o) && json_object_size(o)) {
        fprintf(f, "  <properties>\n");
        json_object_foreach(o, key, value) {
            fprintf(f, "    <property name=\"");
            xml_escaped(f, key);
            fprintf(f, "\" value=\"");
            xml_escaped(f, json_string_value(value));
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "  </properties>\n");
    }
    json_decref(o);
}

void result_print_failure(FILE *f, const struct seed_result *r)
{
    fprintf(f, "seed %" PRIu64 " FAILED: %s\n", r->seed, r->reason ? r->reason : "?");
    fprintf(f, "  simulated time %" PRIu64 ".%09" PRIu64 "s, %" PRIu64 " steps, trace hash %s\n",
            r->sim_time_ns / 1000000000, r->sim_time_ns % 1000000000, r->steps, r->hash);
    fprintf(f, "  replay: %s\n", r->replay ? r->replay : "?");
    if (r->report) fputs(r->report, f);
}

static void xml_escaped(FILE *f, const char *s)
{
    while (s && *s) {
        unsigned char c = (unsigned char)*s;
        size_t n = utf8_len((const unsigned char *)s);
        if (c == '&') fputs("&amp;", f);
        else if (c == '<') fputs("&lt;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c == '"') fputs("&quot;", f);
        else if ((c < 0x20 && c != '\n' && c != '\t') || !n) fputs("&#xFFFD;", f);   /* not allowed in XML 1.0 */
        else fwrite(s, 1, n, f);
        s += n ? n : 1;
    }
}

void junit_write(FILE *f, const char *suite, const struct seed_result *r, size_t n, double seconds)
{
    size_t failures = 0, sampled = 0, unreplayed = 0;
    for (size_t i = 0; i < n; i++) {
        failures += strcmp(r[i].outcome, "pass") != 0;
        sampled += r[i].replayed != 0;
        unreplayed += r[i].replayed < 0;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    fprintf(f, "<testsuite name=\"");
    xml_escaped(f, suite);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\">\n", failures + 1 + (sampled > 0),
            failures + (unreplayed > 0), seconds);
    if (n) junit_properties(f, r[0].defines);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(r[i].outcome, "pass")) continue;
        fprintf(f, "  <testcase classname=\"dsim\" name=\"seed %llu\" time=\"%.3f\">\n    <failure message=\"",
                (unsigned long long)r[i].seed, (double)r[i].wall_ms / 1000);
        xml_escaped(f, r[i].reason);
        fprintf(f, "\" type=\"");
        xml_escaped(f, r[i].outcome);
        fprintf(f, "\">");
        /* The report as the sweep printed it. */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (m) {
            result_print_failure(m, &r[i]);
            fclose(m);
        }
        xml_escaped(f, text);
        free(text);
        fprintf(f, "</failure>\n  </testcase>\n");
    }
    fprintf(f, "  <testcase classname=\"dsim\" name=\"%zu seeds, %zu passed\" time=\"%.3f\"/>\n", n,
            n - failures, seconds);
    /* --verify-sample: the seeds run twice (each one that did not replay
     * is a failing testcase above too). */
    if (sampled) {
        fprintf(f, "  <testcase classname=\"dsim\" name=\"verify sample: %zu seeds run twice, %zu did not replay\"",
                sampled, unreplayed);
        if (unreplayed) {
            fprintf(f, ">\n    <failure message=\"%zu sampled seed%s did not replay to the same trace hash\" "
                       "type=\"" OUTCOME_NONDETERMINISTIC "\">", unreplayed, unreplayed == 1 ? "" : "s");
            for (size_t i = 0; i < n; i++)
                if (r[i].replayed < 0) fprintf(f, "seed %llu\n", (unsigned long long)r[i].seed);
            fprintf(f, "</failure>\n  </testcase>\n");
        } else {
            fprintf(f, "/>\n");
        }
    }
    fprintf(f, "</testsuite>\n</testsuites>\n");
}
