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

const char *outcome_name(enum outcome o)
{
    static const char *const names[] = { "running", "pass", "exit", "time limit", "deadlock",
                                         "fence", "check", "internal", "spin", "nondeterministic" };
    return (unsigned)o < sizeof names / sizeof *names ? names[o] : "?";
}

static int outcome_parse(const char *name, enum outcome *o)
{
    for (enum outcome k = OUT_RUNNING; k <= OUT_NONDETERMINISTIC; k++)
        if (!strcmp(name, outcome_name(k))) { *o = k; return 0; }
    return -1;
}

/* ---- the fields, as data (results.h's RESULT_FIELDS) ---- */

enum kind { K_U64, K_LONG, K_INT, K_OUTCOME, K_TEXT, K_HASH, K_NAME, K_VERDICT, K_OBJECT };
enum when { W_REQUIRED, W_ALWAYS, W_IF_SET, W_WITH, W_CHECKPOINT, W_NEVER };

struct field {
    const char *key;
    enum kind kind;
    enum when when;
    size_t with;            /* W_WITH: the offset of the field whose being set writes this one */
    size_t off, size;
};

#define WHEN_REQUIRED W_REQUIRED, 0
#define WHEN_ALWAYS W_ALWAYS, 0
#define WHEN_IF_SET W_IF_SET, 0
#define WHEN_WITH(f) W_WITH, offsetof(struct seed_result, f)
#define WHEN_CHECKPOINT W_CHECKPOINT, 0
#define WHEN_NEVER W_NEVER, 0
#define FIELD_ROW(type, name, when) \
    { #name, K_##type, WHEN_##when, offsetof(struct seed_result, name), sizeof ((struct seed_result *)0)->name },
static const struct field fields[] = { RESULT_FIELDS(FIELD_ROW) };
#define NFIELDS (sizeof fields / sizeof *fields)

static const void *field_at(const struct seed_result *r, const struct field *f) { return (const char *)r + f->off; }
static void *field_in(struct seed_result *r, const struct field *f) { return (char *)r + f->off; }
static bool is_text(const struct field *f) { return f->kind == K_TEXT || f->kind == K_OBJECT; }

/* Not 0, NULL or "". */
static bool is_set(const struct seed_result *r, const struct field *f)
{
    const void *p = field_at(r, f);
    switch (f->kind) {
    case K_U64: return *(const uint64_t *)p != 0;
    case K_LONG: return *(const long *)p != 0;
    case K_INT: case K_VERDICT: return *(const int *)p != 0;
    case K_OUTCOME: return *(const enum outcome *)p != OUT_RUNNING;
    case K_TEXT: case K_OBJECT: return *(char *const *)p != NULL;
    case K_HASH: case K_NAME: return *(const char *)p != 0;
    }
    return false;
}

static const struct field *field_at_offset(size_t off)
{
    size_t i = 0;
    while (fields[i].off != off) i++;       /* WITH(f) names a field: offsetof says so */
    return &fields[i];
}

static bool written(const struct seed_result *r, const struct field *f, int with_index)
{
    switch (f->when) {
    case W_REQUIRED: case W_ALWAYS: return true;
    case W_IF_SET: return is_set(r, f);
    case W_WITH: return is_set(r, field_at_offset(f->with));
    case W_CHECKPOINT: return with_index;
    case W_NEVER: return false;
    }
    return false;
}

static json_t *clean_string(const char *s)
{
    char *clean = utf8_clean(s);
    json_t *j = json_string(clean);
    free(clean);
    return j;
}

/* The field's JSON value, or NULL to leave it out (an OBJECT that is not one). */
static json_t *field_to_json(const struct seed_result *r, const struct field *f)
{
    const void *p = field_at(r, f);
    switch (f->kind) {
    case K_U64: return json_integer((json_int_t)*(const uint64_t *)p);
    case K_LONG: return json_integer(*(const long *)p);
    case K_INT: return json_integer(*(const int *)p);
    case K_OUTCOME: return json_string(outcome_name(*(const enum outcome *)p));
    case K_VERDICT: return json_boolean(*(const int *)p > 0);
    case K_TEXT: return clean_string(*(char *const *)p ? *(char *const *)p : "");
    case K_HASH: case K_NAME: return clean_string(p);
    case K_OBJECT: {
        const char *text = *(char *const *)p;
        json_t *o = text ? json_loads(text, 0, NULL) : NULL;
        if (json_is_object(o)) return o;
        json_decref(o);
        return NULL;
    }
    }
    return NULL;
}

/* Sets the field from its JSON value; -1 if v is missing or not of its type. */
static int field_from_json(struct seed_result *r, const struct field *f, json_t *v)
{
    void *p = field_in(r, f);
    switch (f->kind) {
    case K_U64: if (!json_is_integer(v)) return -1; *(uint64_t *)p = (uint64_t)json_integer_value(v); return 0;
    case K_LONG: if (!json_is_integer(v)) return -1; *(long *)p = (long)json_integer_value(v); return 0;
    case K_INT: if (!json_is_integer(v)) return -1; *(int *)p = (int)json_integer_value(v); return 0;
    case K_OUTCOME: return json_is_string(v) ? outcome_parse(json_string_value(v), p) : -1;
    case K_VERDICT: if (!json_is_boolean(v)) return -1; *(int *)p = json_is_true(v) ? 1 : -1; return 0;
    case K_TEXT:
        if (!json_is_string(v)) return -1;
        if (!(*(char **)p = strdup(json_string_value(v)))) abort();
        return 0;
    case K_HASH: case K_NAME:
        if (!json_is_string(v)) return -1;
        snprintf(p, f->size, "%s", json_string_value(v));
        return 0;
    case K_OBJECT:
        if (!json_is_object(v)) return -1;
        *(char **)p = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        return 0;
    }
    return -1;
}

void result_init(struct seed_result *r)
{
    memset(r, 0, sizeof *r);
    r->index = -1;
}

void result_free(struct seed_result *r)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!is_text(&fields[i])) continue;
        char **text = field_in(r, &fields[i]);
        free(*text);
        *text = NULL;
    }
}

char *result_to_json(const struct seed_result *r, int with_index)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < NFIELDS; i++) {
        if (!written(r, &fields[i], with_index)) continue;
        json_t *v = field_to_json(r, &fields[i]);
        if (v) json_object_set_new(o, fields[i].key, v);
    }
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}

int result_from_json(const char *line, struct seed_result *r)
{
    json_t *o = json_loads(line, 0, NULL);
    result_init(r);
    if (!json_is_object(o)) { json_decref(o); return -1; }
    for (size_t i = 0; i < NFIELDS; i++) {
        if (fields[i].when == W_NEVER) continue;
        if (field_from_json(r, &fields[i], json_object_get(o, fields[i].key)) && fields[i].when == W_REQUIRED) {
            json_decref(o);
            result_free(r);
            return -1;
        }
    }
    json_decref(o);
    return 0;
}

/* The record's bytes, then each text as its length (UINT64_MAX for NULL)
 * and its bytes. Both ends are one dsim binary, so the layout matches. */
char *result_pack(const struct seed_result *r, size_t *len)
{
    size_t n = sizeof *r;
    for (size_t i = 0; i < NFIELDS; i++) {
        const char *text = is_text(&fields[i]) ? *(char *const *)field_at(r, &fields[i]) : NULL;
        if (is_text(&fields[i])) n += sizeof(uint64_t) + (text ? strlen(text) : 0);
    }
    char *buf = malloc(n), *p = buf;
    if (!buf) abort();
    memcpy(p, r, sizeof *r);
    p += sizeof *r;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!is_text(&fields[i])) continue;
        const char *text = *(char *const *)field_at(r, &fields[i]);
        uint64_t l = text ? strlen(text) : UINT64_MAX;
        memcpy(p, &l, sizeof l);
        p += sizeof l;
        if (text) { memcpy(p, text, l); p += l; }
    }
    *len = n;
    return buf;
}

int result_unpack(const char *buf, size_t len, struct seed_result *r)
{
    result_init(r);
    if (len < sizeof *r) return -1;
    memcpy(r, buf, sizeof *r);
    for (size_t i = 0; i < NFIELDS; i++)
        if (is_text(&fields[i])) *(char **)field_in(r, &fields[i]) = NULL;
    const char *p = buf + sizeof *r, *end = buf + len;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!is_text(&fields[i])) continue;
        uint64_t l;
        if ((size_t)(end - p) < sizeof l) goto bad;
        memcpy(&l, p, sizeof l);
        p += sizeof l;
        if (l == UINT64_MAX) continue;
        if (l > (uint64_t)(end - p)) goto bad;
        char *text = malloc(l + 1);
        if (!text) abort();
        memcpy(text, p, l);
        text[l] = 0;
        *(char **)field_in(r, &fields[i]) = text;
        p += l;
    }
    if (p == end) return 0;
bad:
    result_free(r);
    return -1;
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

int result_summary(FILE *f, const struct seed_result *v, size_t n, size_t total, bool keep_going, bool sampled)
{
    size_t passed = 0, failed = 0, twice = 0, unreplayed = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        twice += v[i].replayed != 0;
        unreplayed += v[i].replayed < 0;
        if (v[i].outcome == OUT_PASS) { passed++; continue; }
        failed++;
        if (first == n) first = i;
        if (!keep_going) break;
    }
    if (unreplayed)
        fprintf(f, "dsim: verify sample: %zu of %zu seeds run twice did not replay to the same trace hash\n",
                unreplayed, twice);
    else if (sampled || twice)
        fprintf(f, "dsim: verify sample: %zu seed%s run twice, each replayed to the same trace hash\n", twice,
                twice == 1 ? "" : "s");
    if (failed && !keep_going)
        fprintf(f, "failed at seed %" PRIu64 " (%zu seed%s passed first)\n", v[first].seed, passed,
                passed == 1 ? "" : "s");
    else if (failed)
        fprintf(f, "dsim: %zu of %zu seeds failed\n", failed, total);
    else
        fprintf(f, "dsim: all %zu seeds passed\n", passed);
    return failed ? (unreplayed ? 3 : 1) : 0;
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
        failures += r[i].outcome != OUT_PASS;
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
        if (r[i].outcome == OUT_PASS) continue;
        fprintf(f, "  <testcase classname=\"dsim\" name=\"seed %llu\" time=\"%.3f\">\n    <failure message=\"",
                (unsigned long long)r[i].seed, (double)r[i].wall_ms / 1000);
        xml_escaped(f, r[i].reason);
        fprintf(f, "\" type=\"");
        xml_escaped(f, outcome_name(r[i].outcome));
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
                       "type=\"%s\">", unreplayed, unreplayed == 1 ? "" : "s", outcome_name(OUT_NONDETERMINISTIC));
            for (size_t i = 0; i < n; i++)
                if (r[i].replayed < 0) fprintf(f, "seed %llu\n", (unsigned long long)r[i].seed);
            fprintf(f, "</failure>\n  </testcase>\n");
        } else {
            fprintf(f, "/>\n");
        }
    }
    fprintf(f, "</testsuite>\n</testsuites>\n");
}
