#include "supervisor/plan.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = { "clock_jump", "crash", "restart", "pause" };

const char *fault_kind_name(enum fault_kind k) { return kind_names[k]; }

char *plan_to_json(const struct fault_conf *f, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s, s:s, s:I, s:s}", "name", f[i].name, "kind", kind_names[f[i].kind],
                              "at_ns", (json_int_t)f[i].at_ns, "machine", f[i].machine);
        if (f[i].kind == FAULT_CLOCK_JUMP) json_object_set_new(o, "by_ns", json_integer(f[i].by_ns));
        if (f[i].has_duration) json_object_set_new(o, "duration_ns", json_integer((json_int_t)f[i].duration_ns));
        json_array_append_new(arr, o);
    }
    json_t *plan = json_pack("{s:o}", "faults", arr);
    char *s = json_dumps(plan, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(plan);
    return s;
}

void plan_free(struct fault_conf *f, size_t n)
{
    for (size_t i = 0; i < n; i++) { free(f[i].name); free(f[i].machine); }
    free(f);
}

static int plan_parse(json_t *plan, json_error_t *jep, const char *path, const struct config *c,
                      struct fault_conf **out, size_t *n, char *err, size_t errlen);

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
        const char *machine = json_string_value(json_object_get(o, "machine"));
        json_t *at = json_object_get(o, "at_ns");
        int k = -1;
        for (int j = 0; kind && j < 4; j++) if (!strcmp(kind, kind_names[j])) k = j;
        size_t m = 0;
        while (machine && m < c->nmachines && strcmp(c->machines[m].name, machine)) m++;
        if (!name || k < 0 || !json_is_integer(at) || !machine || m == c->nmachines) {
            snprintf(err, errlen, "%s: fault %zu: needs a name, a kind (%s...), at_ns and a machine of %s",
                     path, i + 1, kind_names[0], c->path);
            plan_free(f, i);
            json_decref(plan);
            return -1;
        }
        f[i] = (struct fault_conf){ .name = strdup(name), .kind = (enum fault_kind)k,
                                    .at_ns = (uint64_t)json_integer_value(at), .machine = strdup(machine) };
        f[i].by_ns = json_integer_value(json_object_get(o, "by_ns"));
        json_t *d = json_object_get(o, "duration_ns");
        if (json_is_integer(d)) { f[i].has_duration = true; f[i].duration_ns = (uint64_t)json_integer_value(d); }
    }
    json_decref(plan);
    *out = f;
    *n = len;
    return 0;
}
