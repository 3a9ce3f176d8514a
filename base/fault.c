/* Faults as data (fault.h): the kinds' descriptors and their key rules. */
#include "base/fault.h"
#include "base/values.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fault_rule_fn sides_or_machine;

#define FAULT_KIND_DESC(e, name_, net_, needs_, allows_, rule_, fire_) \
    [e] = { .name = name_, .net = net_, .needs = needs_, .allows = allows_, .rule = rule_ },
const struct fault_kind_desc fault_kinds[FAULT_KINDS] = { FAULT_KIND_ROWS(FAULT_KIND_DESC) };

/* By enum fault_key's bits, in their order. */
static const char *const key_names[] = { "machine", "by", "duration", "sides", "one_way", "machines", "rate" };
#define NKEYS (sizeof key_names / sizeof key_names[0])

int fault_kind_parse(const char *s, enum fault_kind *out)
{
    for (int k = 0; k < FAULT_KINDS; k++)
        if (!strcmp(s, fault_kinds[k].name)) { *out = (enum fault_kind)k; return 0; }
    return -1;
}

const char *fault_kind_list(void)
{
    static char list[512];
    size_t len = 0;
    for (int k = 0; k < FAULT_KINDS && len < sizeof list; k++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", fault_kinds[k].name);
    return list;
}

static const char *say(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static const char *say(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return msg;
}

/* A partition cuts sides, or one machine off from the others. */
static const char *sides_or_machine(const struct fault_conf *f, unsigned set, char *msg, size_t msglen)
{
    if ((set & FK_MACHINE) && (set & FK_SIDES))
        return say(msg, msglen, "fault \"%s\": give sides or machine, not both", f->name);
    if (!(set & (FK_MACHINE | FK_SIDES)))
        return say(msg, msglen, "fault \"%s\" has no sides (or machine, to cut one machine off)", f->name);
    return NULL;
}

/* The first key of keys (FK_ bits, in their order), as its index. */
static int first_key(unsigned keys)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (keys & (1u << i)) return (int)i;
    return -1;
}

/* A key f's kind does not take: "rate is only for loss and duplicate" when
 * few kinds take it, else "a clock_jump has no duration"; a machine given
 * to a kind that hits links is told to name them. */
static const char *refuse(const struct fault_conf *f, int key, char *msg, size_t msglen)
{
    const char *kind = fault_kinds[f->kind].name;
    unsigned bit = 1u << key;
    if (bit == FK_MACHINE && (fault_kinds[f->kind].allows & FK_MACHINES))
        return say(msg, msglen, "fault \"%s\": a %s burst hits links: use machines, not machine", f->name, kind);
    char list[256] = "";
    size_t len = 0;
    int takers = 0, n = 0;
    for (int k = 0; k < FAULT_KINDS; k++) takers += (fault_kinds[k].allows & bit) != 0;
    if (2 * takers > FAULT_KINDS)
        return say(msg, msglen, "fault \"%s\": a %s has no %s", f->name, kind, key_names[key]);
    for (int k = 0; k < FAULT_KINDS; k++) {
        if (!(fault_kinds[k].allows & bit)) continue;
        n++;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", n == 1 ? "" : n == takers ? " and " : ", ",
                                fault_kinds[k].name);
    }
    return say(msg, msglen, "fault \"%s\": %s is only for %s", f->name, key_names[key], list);
}

/* In this order: the keys it needs, then those it does not take, but the
 * network kinds' own keys last, after their duration's and own rules (a
 * machine refused by a burst among them). */
const char *fault_check_keys(const struct fault_conf *f, unsigned set, char *msg, size_t msglen)
{
    const struct fault_kind_desc *d = &fault_kinds[f->kind];
    unsigned missing = d->needs & ~set, refused = set & ~d->allows;
    int key;
    if ((key = first_key(missing & ~FK_NET_KEYS)) >= 0)
        return say(msg, msglen, "fault \"%s\" has no %s", f->name, key_names[key]);
    if ((key = first_key(refused & ~FK_MACHINE)) >= 0)
        return refuse(f, key, msg, msglen);
    if (d->net && f->has_duration && f->duration_ns == 0)
        return say(msg, msglen, "fault \"%s\": duration must be greater than 0 (leave it out for a %s that lasts "
                   "to the end of the run)", f->name, d->name);
    if (d->rule && d->rule(f, set, msg, msglen))
        return msg;
    if (refused & FK_MACHINE)
        return refuse(f, 0, msg, msglen);
    if ((key = first_key(missing)) >= 0)
        return say(msg, msglen, "fault \"%s\" has no %s", f->name, key_names[key]);
    return NULL;
}

void fault_free_fields(struct fault_conf *f)
{
    free(f->name);
    free(f->machine);
    for (size_t i = 0; i < f->nmachines; i++)
        free(f->machines[i]);
    free(f->machines);
    f->name = f->machine = NULL;
    f->machines = NULL;
    f->nmachines = f->nleft = 0;
}

int fault_copy(struct fault_conf *dst, const struct fault_conf *src)
{
    *dst = *src;
    dst->name = src->name ? strdup(src->name) : NULL;
    dst->machine = src->machine ? strdup(src->machine) : NULL;
    dst->machines = src->nmachines ? calloc(src->nmachines, sizeof *dst->machines) : NULL;
    bool ok = (!src->name || dst->name) && (!src->machine || dst->machine) && (!src->nmachines || dst->machines);
    for (size_t i = 0; ok && i < src->nmachines; i++)
        ok = (dst->machines[i] = strdup(src->machines[i])) != NULL;
    if (!ok) {
        dst->nmachines = dst->machines ? src->nmachines : 0;
        fault_free_fields(dst);
    }
    return ok ? 0 : -1;
}

void chaos_defaults(struct chaos_conf *ch)
{
    ch->down_lo = ch->down_hi = NS_PER_S;                       /* 1s down, */
    ch->pause_lo = ch->pause_hi = NS_PER_S;                     /* 1s paused, */
    ch->jump_lo = -5 * (int64_t)NS_PER_S, ch->jump_hi = 5 * (int64_t)NS_PER_S;     /* jumps within 5s; */
    ch->partition_lo = ch->loss_lo = ch->dup_lo = NS_PER_S;     /* network faults 1s..5s, like [network]'s, */
    ch->partition_hi = ch->loss_hi = ch->dup_hi = 5 * NS_PER_S;
    ch->loss_rate_lo = ch->loss_rate_hi = ch->dup_rate_lo = ch->dup_rate_hi = 500000;     /* at 50% */
}

void chaos_free(struct chaos_conf *ch)
{
    if (!ch) return;
    for (size_t i = 0; i < ch->nmachines; i++) free(ch->machines[i]);
    free(ch->machines);
    free(ch);
}
