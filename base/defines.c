/* -D NAME=VALUE and ${NAME}: see defines.h. */
#include "base/defines.h"
#include "base/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

/* Length of the NAME at s, 0 if there is none. */
static size_t name_len(const char *s)
{
    size_t n = 0;
    if (!name_start(*s)) return 0;
    while (name_char(s[n])) n++;
    return n;
}

int define_add(struct defines *d, const char *arg, char *err, size_t errlen)
{
    size_t n = name_len(arg);
    if (!n || arg[n] != '=') {
        snprintf(err, errlen, "bad -D %s (use NAME=VALUE, NAME of letters, digits and _)", arg);
        return -1;
    }
    if (strpbrk(arg + n + 1, "\n\r")) {
        snprintf(err, errlen, "bad -D %.*s: its value must be one line", (int)n, arg);
        return -1;
    }
    for (size_t i = 0; i < d->n; i++)
        if (strlen(d->name[i]) == n && !strncmp(d->name[i], arg, n)) {      /* the last one counts */
            free(d->value[i]);
            d->value[i] = strdup(arg + n + 1);
            return 0;
        }
    GROW_ONE(d->name, d->n);
    GROW_ONE(d->value, d->n);
    GROW_ONE(d->used, d->n);
    d->name[d->n] = strndup(arg, n);
    d->value[d->n] = strdup(arg + n + 1);
    d->used[d->n] = false;
    d->n++;
    return 0;
}

void defines_free(struct defines *d)
{
    for (size_t i = 0; i < d->n; i++) { free(d->name[i]); free(d->value[i]); }
    free(d->name);
    free(d->value);
    free(d->used);
    memset(d, 0, sizeof *d);
}

static long lookup(struct defines *d, const char *name, size_t len)
{
    for (size_t i = 0; d && i < d->n; i++)
        if (strlen(d->name[i]) == len && !strncmp(d->name[i], name, len)) return (long)i;
    return -1;
}

/* A growing string. */
struct out { char *s; size_t len, cap; };

static void put(struct out *o, const char *s, size_t n)
{
    if (o->len + n + 1 > o->cap) {
        o->cap = 2 * (o->len + n + 1);
        if (!(o->s = realloc(o->s, o->cap))) abort();
    }
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = 0;
}

char *define_expand(const char *line, struct defines *d, char *err, size_t errlen)
{
    struct out o = { 0 };
    put(&o, "", 0);
    for (const char *p = line; *p;) {
        if (p[0] == '$' && p[1] == '$' && p[2] == '{') { put(&o, "${", 2); p += 3; continue; }
        if (p[0] != '$' || p[1] != '{') { put(&o, p, 1); p++; continue; }
        const char *name = p + 2;
        size_t n = name_len(name);
        const char *after = name + n, *dflt = NULL, *end;
        if (n && after[0] == ':' && after[1] == '-') {
            dflt = after + 2;
            end = strchr(dflt, '}');
        } else {
            end = n && *after == '}' ? after : NULL;
        }
        if (!end) {
            size_t show = strcspn(p, "}");
            show += p[show] == '}';
            snprintf(err, errlen, "bad \"%.*s\": write ${NAME} or ${NAME:-DEFAULT} (or $${ for a literal ${)",
                     (int)(show > 40 ? 40 : show), p);
            free(o.s);
            return NULL;
        }
        long i = lookup(d, name, n);
        if (i >= 0) {
            d->used[i] = true;
            put(&o, d->value[i], strlen(d->value[i]));
        } else if (dflt) {
            put(&o, dflt, (size_t)(end - dflt));
        } else {
            snprintf(err, errlen, "${%.*s} is not defined (give -D %.*s=VALUE, write ${%.*s:-DEFAULT}, "
                     "or $${%.*s} for a literal ${%.*s})", (int)n, name, (int)n, name, (int)n, name, (int)n, name,
                     (int)n, name);
            free(o.s);
            return NULL;
        }
        p = end + 1;
    }
    return o.s;
}

char *shell_quote(const char *word)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%";
    struct out o = { 0 };
    put(&o, "", 0);
    if (*word && strspn(word, safe) == strlen(word)) {
        put(&o, word, strlen(word));
        return o.s;
    }
    put(&o, "'", 1);
    for (const char *p = word; *p; p++)
        if (*p == '\'') put(&o, "'\\''", 4);
        else put(&o, p, 1);
    put(&o, "'", 1);
    return o.s;
}

char *defines_options(const struct defines *d)
{
    struct out o = { 0 };
    put(&o, "", 0);
    for (size_t i = 0; d && i < d->n; i++) {
        size_t len = strlen(d->name[i]) + strlen(d->value[i]) + 2;
        char *arg = malloc(len), *q;
        if (!arg) abort();
        snprintf(arg, len, "%s=%s", d->name[i], d->value[i]);
        q = shell_quote(arg);
        put(&o, " -D ", 4);
        put(&o, q, strlen(q));
        free(q);
        free(arg);
    }
    return o.s;
}
