/* The network sections of cluster.conf (netconf.h):
 *
 *   [network]      the default link, loopback, TCP and random partitions;
 *   [link A B]     one pair's link, both ways; keys it leaves out are
 *                  [network]'s, wherever [network] is in the file;
 *   [partition]    a scheduled partition; any number.
 *
 * Their keys have their own bookkeeping (each section keeps its own
 * parallel records) but the same rules and messages as the rest of the file. */
#include "base/netconf.h"
#include "base/values.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum netsec { NET_NONE, NET_NETWORK, NET_LINK, NET_PARTITION };

enum netkey {
    N_LATENCY = 1 << 0,
    N_LOSS = 1 << 1,
    N_DUPLICATE = 1 << 2,
    N_REORDER = 1 << 3,
    N_LOOPBACK = 1 << 4,
    N_RTO = 1 << 5,
    N_TCP_TIMEOUT = 1 << 6,
    N_PARTITION_EVERY = 1 << 7,
    N_PARTITION_FOR = 1 << 8,
    N_PARTITION_ONE_WAY = 1 << 9,
    N_AT = 1 << 10,
    N_DURATION = 1 << 11,
    N_SIDES = 1 << 12,
    N_ONE_WAY = 1 << 13,
};

static const struct {
    enum netsec section;
    const char *name;
    enum netkey key;
} netkeys[] = {
    { NET_NETWORK, "latency", N_LATENCY },
    { NET_NETWORK, "loss", N_LOSS },
    { NET_NETWORK, "duplicate", N_DUPLICATE },
    { NET_NETWORK, "reorder", N_REORDER },
    { NET_NETWORK, "loopback_latency", N_LOOPBACK },
    { NET_NETWORK, "rto", N_RTO },
    { NET_NETWORK, "tcp_timeout", N_TCP_TIMEOUT },
    { NET_NETWORK, "partition_every", N_PARTITION_EVERY },
    { NET_NETWORK, "partition_for", N_PARTITION_FOR },
    { NET_NETWORK, "partition_one_way", N_PARTITION_ONE_WAY },
    { NET_LINK, "latency", N_LATENCY },
    { NET_LINK, "loss", N_LOSS },
    { NET_LINK, "duplicate", N_DUPLICATE },
    { NET_LINK, "reorder", N_REORDER },
    { NET_PARTITION, "at", N_AT },
    { NET_PARTITION, "duration", N_DURATION },
    { NET_PARTITION, "sides", N_SIDES },
    { NET_PARTITION, "one_way", N_ONE_WAY },
};

/* [link A B] while the file is read: names, and which keys it set. */
struct netconf_link {
    char *a, *b;
    unsigned set;
};

/* [partition]'s sides as written: names, the left side's first. */
struct netconf_partition {
    char **names;
    size_t nnames, nleft;
    int sides_line;
};

#define SIDES_HINT "(use NAMES | NAMES, such as a b | c d)"

static int err(char *msg, size_t msglen, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int err(char *msg, size_t msglen, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return line;
}

int parse_percent_ppm(const char *s, uint32_t *ppm)
{
    uint64_t whole, frac = 0;
    if (parse_uint(&s, &whole) < 0 || whole > 100)
        return -1;
    if (*s == '.') {
        int digits = 0;
        for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
            if (digits == 4)
                return -1;
            frac = frac * 10 + (uint64_t)(*s - '0');
        }
        if (digits == 0)
            return -1;
        for (; digits < 4; digits++)
            frac *= 10;
    }
    uint64_t v = whole * 10000 + frac;
    if (strcmp(s, "%") != 0 || v > 1000000)
        return -1;
    *ppm = (uint32_t)v;
    return 0;
}

/* The words of s separated by blanks or commas, as new strings appended to
 * *v; -1 when out of memory. */
static int split_words(const char *s, size_t len, char ***v, size_t *n)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (is_blank(s[i]) || s[i] == ','))
            i++;
        size_t start = i;
        while (i < len && !is_blank(s[i]) && s[i] != ',')
            i++;
        if (i == start)
            break;
        char **grown = realloc(*v, (*n + 1) * sizeof *grown);
        if (!grown)
            return -1;
        *v = grown;
        if (!(grown[*n] = strndup(s + start, i - start)))
            return -1;
        (*n)++;
    }
    return 0;
}

bool netconf_is_section(const char *inner)
{
    return !strcmp(inner, "network") || !strcmp(inner, "partition") ||
           (!strncmp(inner, "link", 4) && (inner[4] == '\0' || is_blank(inner[4])));
}

static int begin_link(struct netconf_parser *np, struct net_conf *nc, const char *inner, int line,
                      char *msg, size_t msglen)
{
    char **names = NULL;
    size_t n = 0;
    int r = 0;
    if (split_words(inner + 4, strlen(inner + 4), &names, &n) < 0)
        r = err(msg, msglen, line, "out of memory");
    else if (n != 2)
        r = err(msg, msglen, line, "link section needs two machines (use [link A B])");
    else if (!strcmp(names[0], names[1]))
        r = err(msg, msglen, line, "link section needs two different machines (use [link A B])");
    for (size_t i = 0; !r && i < np->nlinks; i++) {
        const struct netconf_link *l = &np->links[i];
        if ((!strcmp(l->a, names[0]) && !strcmp(l->b, names[1])) ||
            (!strcmp(l->a, names[1]) && !strcmp(l->b, names[0])))
            r = err(msg, msglen, line, "duplicate link between \"%s\" and \"%s\"", names[0], names[1]);
    }
    struct netconf_link *ls = r ? NULL : realloc(np->links, (np->nlinks + 1) * sizeof *ls);
    struct net_link_override *os = r || !ls ? NULL : realloc(nc->links, (nc->nlinks + 1) * sizeof *os);
    if (ls)
        np->links = ls;
    if (os)
        nc->links = os;
    if (!r && !os)
        r = err(msg, msglen, line, "out of memory");
    if (r) {
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return r;
    }
    ls[np->nlinks++] = (struct netconf_link){ .a = names[0], .b = names[1] };
    os[nc->nlinks++] = (struct net_link_override){ .a = -1, .b = -1, .line = line };
    free(names);
    return 0;
}

int netconf_begin(struct netconf_parser *np, struct net_conf *nc, const char *inner, int line,
                  char *msg, size_t msglen)
{
    np->seen = 0;
    np->section_line = line;
    if (!strcmp(inner, "network")) {
        if (np->network_line)
            return err(msg, msglen, line, "duplicate section [network]");
        np->network_line = line;
        np->kind = NET_NETWORK;
        return 0;
    }
    if (!strcmp(inner, "partition")) {
        struct netconf_partition *ps = realloc(np->partitions, (np->npartitions + 1) * sizeof *ps);
        if (ps)
            np->partitions = ps;
        struct net_partition *v = ps ? realloc(nc->partitions, (nc->npartitions + 1) * sizeof *v) : NULL;
        if (!v)
            return err(msg, msglen, line, "out of memory");
        nc->partitions = v;
        ps[np->npartitions++] = (struct netconf_partition){ 0 };
        v[nc->npartitions++] = (struct net_partition){ .line = line };
        np->kind = NET_PARTITION;
        return 0;
    }
    int r = begin_link(np, nc, inner, line, msg, msglen);
    if (!r)
        np->kind = NET_LINK;
    return r;
}

static int set_range(const char *value, uint64_t *lo, uint64_t *hi, int line, char *msg, size_t msglen)
{
    int64_t l, h;
    if (parse_range(value, &l, &h) < 0 || l < 0)
        return err(msg, msglen, line, "bad range \"%s\" (use DURATION or LOW..HIGH, such as 1s..5s)", value);
    *lo = (uint64_t)l;
    *hi = (uint64_t)h;
    return 0;
}

static int set_duration(const char *name, const char *value, uint64_t *out, bool positive, int line,
                        char *msg, size_t msglen)
{
    if (parse_duration(value, out) < 0)
        return err(msg, msglen, line, "bad duration \"%s\" (use ns, us, ms, s, m or h)", value);
    if (positive && *out == 0)
        return err(msg, msglen, line, "%s must be greater than 0", name);
    return 0;
}

static int set_percent(const char *value, uint32_t *out, int line, char *msg, size_t msglen)
{
    if (parse_percent_ppm(value, out) < 0)
        return err(msg, msglen, line, "bad percentage \"%s\" (use 0%% to 100%%, such as 1%% or 0.01%%)", value);
    return 0;
}

static int set_bool(const char *value, bool *out, int line, char *msg, size_t msglen)
{
    if (parse_bool(value, out) < 0)
        return err(msg, msglen, line, "bad boolean \"%s\" (use true or false)", value);
    return 0;
}

int netconf_sides(const char *value, char ***names, size_t *nnames, size_t *nleft, int line, char *msg,
                  size_t msglen)
{
    const char *bar = strchr(value, '|');
    if (!bar || strchr(bar + 1, '|'))
        return err(msg, msglen, line, "bad sides \"%s\" " SIDES_HINT, value);
    if (split_words(value, (size_t)(bar - value), names, nnames) < 0)
        return err(msg, msglen, line, "out of memory");
    *nleft = *nnames;
    if (split_words(bar + 1, strlen(bar + 1), names, nnames) < 0)
        return err(msg, msglen, line, "out of memory");
    if (*nleft == 0 || *nnames == *nleft)
        return err(msg, msglen, line, "bad sides \"%s\": a side is empty " SIDES_HINT, value);
    for (size_t i = 0; i < *nnames; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp((*names)[i], (*names)[j]))
                return err(msg, msglen, line, "bad sides \"%s\": machine \"%s\" is %s", value, (*names)[i],
                           (i < *nleft) == (j < *nleft) ? "named twice" : "on both sides");
    return 0;
}

int netconf_words(const char *s, char ***v, size_t *n)
{
    return split_words(s, strlen(s), v, n);
}

static int set_sides(struct netconf_partition *pp, const char *value, int line, char *msg, size_t msglen)
{
    int r = netconf_sides(value, &pp->names, &pp->nnames, &pp->nleft, line, msg, msglen);
    if (!r)
        pp->sides_line = line;
    return r;
}

static const char *label(const struct netconf_parser *np, char *buf, size_t size)
{
    if (np->kind == NET_NETWORK)
        return "[network]";
    if (np->kind == NET_PARTITION)
        return "[partition]";
    snprintf(buf, size, "[link %s %s]", np->links[np->nlinks - 1].a, np->links[np->nlinks - 1].b);
    return buf;
}

int netconf_key(struct netconf_parser *np, struct net_conf *nc, const char *name, const char *value,
                int line, char *msg, size_t msglen)
{
    enum netkey key = 0;
    for (size_t i = 0; i < sizeof netkeys / sizeof netkeys[0]; i++)
        if ((int)netkeys[i].section == np->kind && !strcmp(netkeys[i].name, name))
            key = netkeys[i].key;
    if (!key) {
        char buf[2 * MAX_MACHINE_NAME + 16];
        return err(msg, msglen, line, "unknown key \"%s\" in %s", name, label(np, buf, sizeof buf));
    }
    if (np->seen & key)
        return err(msg, msglen, line, "duplicate key \"%s\"", name);
    np->seen |= key;
    if (*value == '\0')
        return err(msg, msglen, line, "key \"%s\" has no value", name);

    struct net_link *link = np->kind == NET_LINK ? &nc->links[nc->nlinks - 1].link : &nc->dflt;
    struct net_partition *part = np->kind == NET_PARTITION ? &nc->partitions[nc->npartitions - 1] : NULL;
    if (np->kind == NET_LINK)
        np->links[np->nlinks - 1].set |= key;
    switch (key) {
    case N_LATENCY:
        return set_range(value, &link->lat_lo, &link->lat_hi, line, msg, msglen);
    case N_LOSS:
        return set_percent(value, &link->loss_ppm, line, msg, msglen);
    case N_DUPLICATE:
        return set_percent(value, &link->dup_ppm, line, msg, msglen);
    case N_REORDER:
        return set_percent(value, &link->reorder_ppm, line, msg, msglen);
    case N_LOOPBACK:
        return set_duration(name, value, &nc->loopback_latency_ns, false, line, msg, msglen);
    case N_RTO:
        return set_duration(name, value, &nc->rto_ns, true, line, msg, msglen);
    case N_TCP_TIMEOUT:
        return set_duration(name, value, &nc->tcp_timeout_ns, true, line, msg, msglen);
    case N_PARTITION_EVERY:
        np->partition_every_line = line;
        return set_duration(name, value, &nc->partition_every_ns, true, line, msg, msglen);
    case N_PARTITION_FOR: {
        int r = set_range(value, &nc->partition_for_lo, &nc->partition_for_hi, line, msg, msglen);
        if (!r && nc->partition_for_lo == 0)
            return err(msg, msglen, line, "partition_for must be greater than 0");
        return r;
    }
    case N_PARTITION_ONE_WAY:
        return set_bool(value, &nc->partition_one_way, line, msg, msglen);
    case N_AT:
        return set_duration(name, value, &part->at_ns, false, line, msg, msglen);
    case N_DURATION: {
        int r = set_duration(name, value, &part->duration_ns, false, line, msg, msglen);
        if (!r && part->duration_ns == 0)       /* 0 means "never heals" inside */
            return err(msg, msglen, line, "duration must be greater than 0 (leave it out for a partition "
                       "that never heals)");
        return r;
    }
    case N_SIDES:
        return set_sides(&np->partitions[np->npartitions - 1], value, line, msg, msglen);
    case N_ONE_WAY:
        return set_bool(value, &part->one_way, line, msg, msglen);
    }
    return err(msg, msglen, line, "internal error");
}

int netconf_end(struct netconf_parser *np, char *msg, size_t msglen)
{
    int kind = np->kind;
    np->kind = NET_NONE;
    if (kind != NET_PARTITION)
        return 0;
    const char *missing = !(np->seen & N_AT) ? "at" : !(np->seen & N_SIDES) ? "sides" : NULL;
    if (missing)
        return err(msg, msglen, np->section_line, "[partition] has no %s", missing);
    return 0;
}

static int machine_index(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return (int)i;
    return -1;
}

int netconf_resolve(struct netconf_parser *np, struct net_conf *nc, char *const *names, size_t nmachines,
                    char *msg, size_t msglen)
{
    for (size_t i = 0; i < np->nlinks; i++) {
        const struct netconf_link *l = &np->links[i];
        struct net_link_override *o = &nc->links[i];
        o->a = machine_index(names, nmachines, l->a);
        o->b = machine_index(names, nmachines, l->b);
        if (o->a < 0 || o->b < 0)
            return err(msg, msglen, o->line, "[link %s %s] names no machine of this file: \"%s\"", l->a, l->b,
                       o->a < 0 ? l->a : l->b);
        const struct net_link *d = &nc->dflt;
        if (!(l->set & N_LATENCY)) {
            o->link.lat_lo = d->lat_lo;
            o->link.lat_hi = d->lat_hi;
        }
        if (!(l->set & N_LOSS))
            o->link.loss_ppm = d->loss_ppm;
        if (!(l->set & N_DUPLICATE))
            o->link.dup_ppm = d->dup_ppm;
        if (!(l->set & N_REORDER))
            o->link.reorder_ppm = d->reorder_ppm;
    }
    for (size_t i = 0; i < np->npartitions; i++) {
        const struct netconf_partition *pp = &np->partitions[i];
        struct net_partition *p = &nc->partitions[i];
        for (size_t k = 0; k < pp->nnames; k++) {
            int m = machine_index(names, nmachines, pp->names[k]);
            if (m < 0)
                return err(msg, msglen, pp->sides_line, "[partition] names no machine of this file: \"%s\"",
                           pp->names[k]);
            if (m >= NET_MAX_MACHINES)
                return err(msg, msglen, pp->sides_line, "[partition] can name only the first %d machines, "
                           "not \"%s\"", NET_MAX_MACHINES, pp->names[k]);
            *(k < pp->nleft ? &p->side_a : &p->side_b) |= 1ULL << m;
        }
    }
    if (nc->partition_every_ns && nmachines > NET_MAX_MACHINES)
        return err(msg, msglen, np->partition_every_line, "partition_every needs at most %d machines "
                   "(this file has %zu)", NET_MAX_MACHINES, nmachines);
    return 0;
}

void netconf_parser_free(struct netconf_parser *np)
{
    for (size_t i = 0; i < np->nlinks; i++) {
        free(np->links[i].a);
        free(np->links[i].b);
    }
    free(np->links);
    for (size_t i = 0; i < np->npartitions; i++) {
        for (size_t k = 0; k < np->partitions[i].nnames; k++)
            free(np->partitions[i].names[k]);
        free(np->partitions[i].names);
    }
    free(np->partitions);
    *np = (struct netconf_parser){ 0 };
}
