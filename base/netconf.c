/* The network sections of cluster.conf (netconf.h): their headers and
 * names (their keys are rows of config.c's key table):
 *
 *   [network]      the default link, loopback, TCP and random partitions;
 *   [link A B]     one pair's link, both ways; keys it leaves out are
 *                  [network]'s, wherever [network] is in the file;
 *   [partition]    a scheduled partition; any number.
 *
 * A [link] and a [partition] keep the machine names they were given here
 * until every machine is known. */
#include "base/netconf.h"
#include "base/values.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum netsec { NET_NONE, NET_NETWORK, NET_LINK, NET_PARTITION };

/* [link A B] while the file is read: its names. */
struct netconf_link {
    char *a, *b;
};

/* [partition]'s sides as written: names, the left side's first. */
struct netconf_partition {
    char **names;
    size_t nnames, nleft;
    int sides_line;
};

#define SIDES_HINT "(use NAMES | NAMES, such as a b | c d)"

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
        r = line_error(msg, msglen, line, "out of memory");
    else if (n != 2)
        r = line_error(msg, msglen, line, "link section needs two machines (use [link A B])");
    else if (!strcmp(names[0], names[1]))
        r = line_error(msg, msglen, line, "link section needs two different machines (use [link A B])");
    for (size_t i = 0; !r && i < np->nlinks; i++) {
        const struct netconf_link *l = &np->links[i];
        if ((!strcmp(l->a, names[0]) && !strcmp(l->b, names[1])) ||
            (!strcmp(l->a, names[1]) && !strcmp(l->b, names[0])))
            r = line_error(msg, msglen, line, "duplicate link between \"%s\" and \"%s\"", names[0], names[1]);
    }
    struct netconf_link *ls = r ? NULL : realloc(np->links, (np->nlinks + 1) * sizeof *ls);
    struct net_link_override *os = r || !ls ? NULL : realloc(nc->links, (nc->nlinks + 1) * sizeof *os);
    if (ls)
        np->links = ls;
    if (os)
        nc->links = os;
    if (!r && !os)
        r = line_error(msg, msglen, line, "out of memory");
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
    if (!strcmp(inner, "network")) {
        if (np->network_line)
            return line_error(msg, msglen, line, "duplicate section [network]");
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
            return line_error(msg, msglen, line, "out of memory");
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

int netconf_sides(const char *value, char ***names, size_t *nnames, size_t *nleft, int line, char *msg,
                  size_t msglen)
{
    const char *bar = strchr(value, '|');
    if (!bar || strchr(bar + 1, '|'))
        return line_error(msg, msglen, line, "bad sides \"%s\" " SIDES_HINT, value);
    if (split_words(value, (size_t)(bar - value), names, nnames) < 0)
        return line_error(msg, msglen, line, "out of memory");
    *nleft = *nnames;
    if (split_words(bar + 1, strlen(bar + 1), names, nnames) < 0)
        return line_error(msg, msglen, line, "out of memory");
    if (*nleft == 0 || *nnames == *nleft)
        return line_error(msg, msglen, line, "bad sides \"%s\": a side is empty " SIDES_HINT, value);
    for (size_t i = 0; i < *nnames; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp((*names)[i], (*names)[j]))
                return line_error(msg, msglen, line, "bad sides \"%s\": machine \"%s\" is %s", value, (*names)[i],
                           (i < *nleft) == (j < *nleft) ? "named twice" : "on both sides");
    return 0;
}

int netconf_words(const char *s, char ***v, size_t *n)
{
    return split_words(s, strlen(s), v, n);
}

int netconf_partition_sides(struct netconf_parser *np, const char *value, int line, char *msg, size_t msglen)
{
    struct netconf_partition *pp = &np->partitions[np->npartitions - 1];
    int r = netconf_sides(value, &pp->names, &pp->nnames, &pp->nleft, line, msg, msglen);
    if (!r)
        pp->sides_line = line;
    return r;
}

const char *netconf_label(const struct netconf_parser *np, char *buf, size_t size)
{
    if (np->kind == NET_NETWORK)
        return "[network]";
    if (np->kind == NET_PARTITION)
        return "[partition]";
    snprintf(buf, size, "[link %s %s]", np->links[np->nlinks - 1].a, np->links[np->nlinks - 1].b);
    return buf;
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
            return line_error(msg, msglen, o->line, "[link %s %s] names no machine of this file: \"%s\"", l->a, l->b,
                       o->a < 0 ? l->a : l->b);
    }
    for (size_t i = 0; i < np->npartitions; i++) {
        const struct netconf_partition *pp = &np->partitions[i];
        struct net_partition *p = &nc->partitions[i];
        for (size_t k = 0; k < pp->nnames; k++) {
            int m = machine_index(names, nmachines, pp->names[k]);
            if (m < 0)
                return line_error(msg, msglen, pp->sides_line, "[partition] names no machine of this file: \"%s\"",
                           pp->names[k]);
            if (m >= NET_MAX_MACHINES)
                return line_error(msg, msglen, pp->sides_line, "[partition] can name only the first %d machines, "
                           "not \"%s\"", NET_MAX_MACHINES, pp->names[k]);
            *(k < pp->nleft ? &p->side_a : &p->side_b) |= 1ULL << m;
        }
    }
    if (nc->partition_every_ns && nmachines > NET_MAX_MACHINES)
        return line_error(msg, msglen, np->partition_every_line, "partition_every needs at most %d machines "
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

void net_conf_init(struct net_conf *c)
{
    *c = (struct net_conf){
        .dflt = { .lat_lo = NS_PER_MS, .lat_hi = NS_PER_MS },
        .partition_for_lo = NS_PER_S,
        .partition_for_hi = 5 * NS_PER_S,
        .rto_ns = 200 * NS_PER_MS,
        .tcp_timeout_ns = 60 * NS_PER_S,
    };
}

void net_conf_free(struct net_conf *c)
{
    free(c->links);
    free(c->partitions);
    c->links = NULL;
    c->partitions = NULL;
    c->nlinks = c->npartitions = 0;
}
