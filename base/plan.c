#include "base/plan.h"
#include "base/xalloc.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(char *buf, size_t size, size_t *len, const char *s)
{
    int k = snprintf(buf + *len, size - *len, "%s", s);
    if (k > 0) *len = *len + (size_t)k < size ? *len + (size_t)k : size - 1;
}

const char *fault_targets(const struct fault_conf *f, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    if (!FAULT_IS_NET(f->kind)) {
        append(buf, size, &len, f->machine);
        return buf;
    }
    bool sides = fault_kinds[f->kind].allows & FK_SIDES;
    if (!sides) append(buf, size, &len, f->nmachines ? "links of" : "every link");
    for (size_t i = 0; i < f->nmachines; i++) {
        if (sides && i == f->nleft) append(buf, size, &len, f->one_way ? " ->" : " |");
        if (len) append(buf, size, &len, " ");
        append(buf, size, &len, f->machines[i]);
    }
    return buf;
}

/* ["a", "b"] from names[lo..hi). */
static json_t *names_json(char *const *names, size_t lo, size_t hi)
{
    json_t *a = json_array();
    for (size_t i = lo; i < hi; i++) json_array_append_new(a, json_string(names[i]));
    return a;
}

/* A plan's fields by [fault] key (fault.h): each written, then read, in
 * this order, for the kinds that take its key; duration_ns is every
 * kind's. A reader returns NULL, or what is wrong. */
static void put_machine(json_t *o, const struct fault_conf *f)
{
    json_object_set_new(o, "machine", json_string(f->machine));
}

static void put_by(json_t *o, const struct fault_conf *f)
{
    json_object_set_new(o, "by_ns", json_integer(f->by_ns));
}

static void put_sides(json_t *o, const struct fault_conf *f)
{
    json_object_set_new(o, "sides", json_pack("[o, o]", names_json(f->machines, 0, f->nleft),
                                              names_json(f->machines, f->nleft, f->nmachines)));
    json_object_set_new(o, "one_way", json_boolean(f->one_way));
}

static void put_rate(json_t *o, const struct fault_conf *f)
{
    json_object_set_new(o, "rate_ppm", json_integer(f->rate_ppm));
    if (f->nmachines) json_object_set_new(o, "machines", names_json(f->machines, 0, f->nmachines));
}

static void put_duration(json_t *o, const struct fault_conf *f)
{
    if (f->has_duration) json_object_set_new(o, "duration_ns", json_integer((json_int_t)f->duration_ns));
}

static const char *get_machine(json_t *o, const struct config *c, struct fault_conf *f);
static const char *get_by(json_t *o, const struct config *c, struct fault_conf *f);
static const char *get_sides(json_t *o, const struct config *c, struct fault_conf *f);
static const char *get_rate(json_t *o, const struct config *c, struct fault_conf *f);
static const char *get_duration(json_t *o, const struct config *c, struct fault_conf *f);

static const struct {
    unsigned key;       /* enum fault_key; 0: every kind's */
    bool machine_kinds; /* only for kinds that are not the network's */
    void (*put)(json_t *o, const struct fault_conf *f);
    const char *(*get)(json_t *o, const struct config *c, struct fault_conf *f);
} fields[] = {
    { FK_MACHINE, true, put_machine, get_machine },
    { FK_BY, false, put_by, get_by },
    { FK_SIDES, false, put_sides, get_sides },      /* and one_way */
    { FK_RATE, false, put_rate, get_rate },         /* and machines */
    { 0, false, put_duration, get_duration },
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static bool has_field(enum fault_kind k, size_t i)
{
    return !fields[i].key || ((fault_kinds[k].allows & fields[i].key) && !(fields[i].machine_kinds && FAULT_IS_NET(k)));
}

char *plan_to_json(const struct fault_conf *f, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s, s:s, s:I}", "name", f[i].name, "kind", fault_kind_name(f[i].kind),
                              "at_ns", (json_int_t)f[i].at_ns);
        for (size_t j = 0; j < NFIELDS; j++)
            if (has_field(f[i].kind, j)) fields[j].put(o, &f[i]);
        json_array_append_new(arr, o);
    }
    json_t *plan = json_pack("{s:o}", "faults", arr);
    char *s = json_dumps(plan, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(plan);
    return s;
}

void plan_free(struct fault_conf *f, size_t n)
{
    for (size_t i = 0; i < n; i++) fault_free_fields(&f[i]);
    free(f);
}

static int plan_parse(json_t *plan, json_error_t *jep, const char *path, const struct config *c,
                      struct fault_conf **out, size_t *n, char *err, size_t errlen);

static int machine_index(const struct config *c, const char *name)
{
    for (size_t m = 0; m < c->nmachines; m++)
        if (!strcmp(c->machines[m].name, name)) return (int)m;
    return -1;
}

/* Appends the names of JSON array a (machines of c) to f->machines; false
 * unless every one is. */
static bool add_names(json_t *a, const struct config *c, struct fault_conf *f)
{
    if (!json_is_array(a)) return false;
    size_t n = json_array_size(a);
    GROW_ONE(f->machines, f->nmachines + n);       /* room for all n */
    char **v = f->machines;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        int m = s ? machine_index(c, s) : -1;
        if (m < 0 || m >= NET_MAX_MACHINES) return false;
        for (size_t j = 0; j < f->nmachines; j++) if (!strcmp(v[j], s)) return false;
        if (!(v[f->nmachines] = strdup(s))) return false;
        f->nmachines++;
    }
    return true;
}

static const char *get_machine(json_t *o, const struct config *c, struct fault_conf *f)
{
    const char *machine = json_string_value(json_object_get(o, "machine"));
    if (!machine || machine_index(c, machine) < 0) return "needs a machine of the config";
    f->machine = strdup(machine);
    return NULL;
}

static const char *get_by(json_t *o, const struct config *c, struct fault_conf *f)
{
    (void)c;
    f->by_ns = json_integer_value(json_object_get(o, "by_ns"));
    return NULL;
}

static const char *get_sides(json_t *o, const struct config *c, struct fault_conf *f)
{
    json_t *sides = json_object_get(o, "sides");
    f->one_way = json_is_true(json_object_get(o, "one_way"));
    if (!json_is_array(sides) || json_array_size(sides) != 2 || !add_names(json_array_get(sides, 0), c, f))
        return "a partition needs sides: two lists of distinct machines of the config";
    f->nleft = f->nmachines;
    if (!add_names(json_array_get(sides, 1), c, f) || !f->nleft || f->nmachines == f->nleft)
        return "a partition needs sides: two lists of distinct machines of the config";
    return NULL;
}

static const char *get_rate(json_t *o, const struct config *c, struct fault_conf *f)
{
    json_t *rate = json_object_get(o, "rate_ppm"), *ms = json_object_get(o, "machines");
    if (!json_is_integer(rate) || json_integer_value(rate) < 0 || json_integer_value(rate) > 1000000)
        return "a burst needs rate_ppm, from 0 to 1000000";
    f->rate_ppm = (uint32_t)json_integer_value(rate);
    if (ms && !add_names(ms, c, f)) return "a burst's machines must be distinct machines of the config";
    return NULL;
}

static const char *get_duration(json_t *o, const struct config *c, struct fault_conf *f)
{
    (void)c;
    json_t *d = json_object_get(o, "duration_ns");
    if (json_is_integer(d)) { f->has_duration = true; f->duration_ns = (uint64_t)json_integer_value(d); }
    if (FAULT_IS_NET(f->kind) && f->has_duration && f->duration_ns == 0)
        return "a network fault's duration_ns must be greater than 0 (or absent)";
    return NULL;
}

int plan_load(const char *path, const struct config *c, struct fault_conf **out, size_t *n,
              char *err, size_t errlen)
{
    json_error_t je;
    return plan_parse(json_load_file(path, 0, &je), &je, path, c, out, n, err, errlen);
}

int plan_from_json(const char *text, const struct config *c, struct fault_conf **out, size_t *n,
                   char *err, size_t errlen)
{
    json_error_t je;
    return plan_parse(json_loads(text, 0, &je), &je, "(plan)", c, out, n, err, errlen);
}

static int plan_parse(json_t *plan, json_error_t *jep, const char *path, const struct config *c,
                      struct fault_conf **out, size_t *n, char *err, size_t errlen)
{
    json_error_t je = *jep;
    json_t *arr = plan ? json_object_get(plan, "faults") : NULL;
    if (!json_is_array(arr)) {
        snprintf(err, errlen, "%s:%d: not a dsim fault plan%s%s", path, plan ? 1 : je.line, plan ? "" : ": ",
                 plan ? "" : je.text);
        json_decref(plan);
        return -1;
    }
    size_t len = json_array_size(arr);
    struct fault_conf *f = calloc(len + 1, sizeof *f);
    for (size_t i = 0; i < len; i++) {
        json_t *o = json_array_get(arr, i);
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *kind = json_string_value(json_object_get(o, "kind"));
        json_t *at = json_object_get(o, "at_ns");
        enum fault_kind k = 0;
        const char *why = !name || !kind || fault_kind_parse(kind, &k) < 0 || !json_is_integer(at)
                          ? "needs a name, a kind and at_ns" : NULL;
        f[i] = (struct fault_conf){ .kind = k };
        if (!why) {
            f[i].name = strdup(name);
            f[i].at_ns = (uint64_t)json_integer_value(at);
        }
        for (size_t j = 0; !why && j < NFIELDS; j++)
            if (has_field(k, j)) why = fields[j].get(o, c, &f[i]);
        if (why) {
            snprintf(err, errlen, "%s: fault %zu: %s (for %s)", path, i + 1, why, c->path);
            plan_free(f, i + 1);
            json_decref(plan);
            return -1;
        }
    }
    json_decref(plan);
    *out = f;
    *n = len;
    return 0;
}
