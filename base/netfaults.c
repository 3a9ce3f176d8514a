/* The network fault kinds' keys in [fault NAME] and [chaos] (netfaults.h). */
#include "base/netfaults.h"
#include "base/netconf.h"
#include "base/values.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum nfkey {
    F_SIDES = 1 << 0,
    F_ONE_WAY = 1 << 1,
    F_MACHINES = 1 << 2,
    F_RATE = 1 << 3,
    C_PARTITION = 1 << 4,
    C_PARTITION_FOR = 1 << 5,
    C_PARTITION_ONE_WAY = 1 << 6,
    C_LOSS = 1 << 7,
    C_LOSS_FOR = 1 << 8,
    C_LOSS_RATE = 1 << 9,
    C_DUP = 1 << 10,
    C_DUP_FOR = 1 << 11,
    C_DUP_RATE = 1 << 12,
};

static const struct {
    bool chaos;
    const char *name;
    enum nfkey key;
} nfkeys[] = {
    { false, "sides", F_SIDES },
    { false, "one_way", F_ONE_WAY },
    { false, "machines", F_MACHINES },
    { false, "rate", F_RATE },
    { true, "partition", C_PARTITION },
    { true, "partition_for", C_PARTITION_FOR },
    { true, "partition_one_way", C_PARTITION_ONE_WAY },
    { true, "loss", C_LOSS },
    { true, "loss_for", C_LOSS_FOR },
    { true, "loss_rate", C_LOSS_RATE },
    { true, "duplicate", C_DUP },
    { true, "duplicate_for", C_DUP_FOR },
    { true, "duplicate_rate", C_DUP_RATE },
};

static int err(char *msg, size_t msglen, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int err(char *msg, size_t msglen, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return line;
}

static enum nfkey key_of(bool chaos, const char *name)
{
    for (size_t i = 0; i < sizeof nfkeys / sizeof nfkeys[0]; i++)
        if (nfkeys[i].chaos == chaos && !strcmp(nfkeys[i].name, name))
            return nfkeys[i].key;
    return 0;
}

bool netfaults_has_key(bool chaos, const char *name)
{
    return key_of(chaos, name) != 0;
}

int parse_percent_range(const char *s, uint32_t *lo, uint32_t *hi)
{
    const char *dots = strstr(s, "..");
    if (!dots)
        return parse_percent_ppm(s, lo) < 0 ? -1 : (*hi = *lo, 0);
    char first[64];
    if ((size_t)(dots - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(dots - s));
    first[dots - s] = '\0';
    return parse_percent_ppm(first, lo) < 0 || parse_percent_ppm(dots + 2, hi) < 0 || *lo > *hi ? -1 : 0;
}

static int set_every(const char *name, const char *value, uint64_t *out, int line, char *msg, size_t msglen)
{
    if (parse_duration(value, out) < 0)
        return err(msg, msglen, line, "bad duration \"%s\" (use ns, us, ms, s, m or h)", value);
    if (*out == 0)
        return err(msg, msglen, line, "%s must be greater than 0", name);
    return 0;
}

static int set_for(const char *name, const char *value, uint64_t *lo, uint64_t *hi, int line, char *msg,
                   size_t msglen)
{
    int64_t l, h;
    if (parse_range(value, &l, &h) < 0 || l < 0)
        return err(msg, msglen, line, "bad range \"%s\" (use DURATION or LOW..HIGH, such as 1s..5s)", value);
    if (l == 0)
        return err(msg, msglen, line, "%s must be greater than 0", name);
    *lo = (uint64_t)l;
    *hi = (uint64_t)h;
    return 0;
}

static int set_rate(const char *value, uint32_t *lo, uint32_t *hi, bool range, int line, char *msg, size_t msglen)
{
    if (range ? parse_percent_range(value, lo, hi) < 0 : parse_percent_ppm(value, lo) < 0)
        return err(msg, msglen, line, "bad percentage \"%s\" (use 0%% to 100%%, such as 30%%%s)", value,
                   range ? " or 10%..50%" : "");
    return 0;
}

static int set_bool(const char *value, bool *out, int line, char *msg, size_t msglen)
{
    if (parse_bool(value, out) < 0)
        return err(msg, msglen, line, "bad boolean \"%s\" (use true or false)", value);
    return 0;
}

int netfaults_key(struct netfaults_parser *np, struct fault_conf *f, struct chaos_conf *ch, const char *name,
                  const char *value, int line, char *msg, size_t msglen)
{
    enum nfkey key = key_of(ch != NULL, name);
    if (np->seen & key)
        return err(msg, msglen, line, "duplicate key \"%s\"", name);
    np->seen |= key;
    if (*value == '\0')
        return err(msg, msglen, line, "key \"%s\" has no value", name);
    switch (key) {
    case F_SIDES:
        return netconf_sides(value, &f->machines, &f->nmachines, &f->nleft, line, msg, msglen);
    case F_ONE_WAY:
        return set_bool(value, &f->one_way, line, msg, msglen);
    case F_MACHINES:
        if (netconf_words(value, &f->machines, &f->nmachines) < 0)
            return err(msg, msglen, line, "out of memory");
        for (size_t i = 0; i < f->nmachines; i++)
            for (size_t j = 0; j < i; j++)
                if (!strcmp(f->machines[i], f->machines[j]))
                    return err(msg, msglen, line, "machine \"%s\" is named twice", f->machines[i]);
        return 0;
    case F_RATE:
        return set_rate(value, &f->rate_ppm, NULL, false, line, msg, msglen);
    case C_PARTITION:
        return set_every(name, value, &ch->partition_every, line, msg, msglen);
    case C_PARTITION_FOR:
        return set_for(name, value, &ch->partition_lo, &ch->partition_hi, line, msg, msglen);
    case C_PARTITION_ONE_WAY:
        return set_bool(value, &ch->partition_one_way, line, msg, msglen);
    case C_LOSS:
        return set_every(name, value, &ch->loss_every, line, msg, msglen);
    case C_LOSS_FOR:
        return set_for(name, value, &ch->loss_lo, &ch->loss_hi, line, msg, msglen);
    case C_LOSS_RATE:
        return set_rate(value, &ch->loss_rate_lo, &ch->loss_rate_hi, true, line, msg, msglen);
    case C_DUP:
        return set_every(name, value, &ch->dup_every, line, msg, msglen);
    case C_DUP_FOR:
        return set_for(name, value, &ch->dup_lo, &ch->dup_hi, line, msg, msglen);
    case C_DUP_RATE:
        return set_rate(value, &ch->dup_rate_lo, &ch->dup_rate_hi, true, line, msg, msglen);
    }
    return err(msg, msglen, line, "internal error");
}

unsigned netfaults_set(const struct netfaults_parser *np)
{
    return (np->seen & F_SIDES ? FK_SIDES : 0) | (np->seen & F_ONE_WAY ? FK_ONE_WAY : 0) |
           (np->seen & F_MACHINES ? FK_MACHINES : 0) | (np->seen & F_RATE ? FK_RATE : 0);
}

static int index_of(const struct config *c, const char *name)
{
    for (size_t i = 0; i < c->nmachines; i++)
        if (!strcmp(c->machines[i].name, name))
            return (int)i;
    return -1;
}

/* `machine = X` for a partition: X | every other machine. */
static int isolate(struct config *c, struct fault_conf *f, char *msg, size_t msglen)
{
    if (c->nmachines < 2)
        return err(msg, msglen, f->line, "fault \"%s\": no other machine to cut \"%s\" off from", f->name,
                   f->machine);
    f->machines = calloc(c->nmachines, sizeof *f->machines);
    if (!f->machines)
        return err(msg, msglen, f->line, "out of memory");
    f->machines[f->nmachines++] = f->machine;
    f->nleft = 1;
    f->machine = NULL;
    for (size_t i = 0; i < c->nmachines; i++)
        if (strcmp(c->machines[i].name, f->machines[0]) && !(f->machines[f->nmachines++] = strdup(c->machines[i].name)))
            return err(msg, msglen, f->line, "out of memory");
    return 0;
}

int netfaults_resolve(struct config *c, char *msg, size_t msglen)
{
    for (size_t i = 0; i < c->nfaults; i++) {
        struct fault_conf *f = &c->faults[i];
        if (!FAULT_IS_NET(f->kind))
            continue;
        if (f->machine && index_of(c, f->machine) < 0)
            return err(msg, msglen, f->line, "fault \"%s\" names no machine of this file: \"%s\"", f->name,
                       f->machine);
        if (f->machine && isolate(c, f, msg, msglen))
            return f->line;
        for (size_t k = 0; k < f->nmachines; k++) {
            int m = index_of(c, f->machines[k]);
            if (m < 0)
                return err(msg, msglen, f->line, "fault \"%s\" names no machine of this file: \"%s\"", f->name,
                           f->machines[k]);
            if (m >= NET_MAX_MACHINES)
                return err(msg, msglen, f->line, "fault \"%s\" can name only the first %d machines, not \"%s\"",
                           f->name, NET_MAX_MACHINES, f->machines[k]);
        }
    }
    const struct chaos_conf *ch = c->chaos;
    if (!ch || !(ch->partition_every || ch->loss_every || ch->dup_every))
        return 0;
    size_t n = ch->nmachines ? ch->nmachines : c->nmachines;
    if (ch->partition_every && n < 2)
        return err(msg, msglen, ch->line, "[chaos] partition needs two machines or more to split");
    for (size_t k = 0; k < n; k++) {
        if ((ch->nmachines ? index_of(c, ch->machines[k]) : (int)k) >= NET_MAX_MACHINES)
            return err(msg, msglen, ch->line, "[chaos] network faults can hit only the first %d machines",
                       NET_MAX_MACHINES);
        for (size_t j = 0; ch->nmachines && j < k; j++)      /* a partition's sides name each once */
            if (!strcmp(ch->machines[j], ch->machines[k]))
                return err(msg, msglen, ch->line, "[chaos] names machine \"%s\" twice", ch->machines[k]);
    }
    return 0;
}
