/* The network sections of cluster.conf: [network], [link A B] and
 * [partition]. Their keys are rows of config_keys.c's table; config.c hands
 * over each section's header and a partition's sides and, once every
 * machine has been read, asks for the machine names to be resolved:
 * machines may be declared after the sections that name them.
 *
 * Each function returns 0, or the line of the error with its message (no
 * "file:line: " prefix) in msg. */
#ifndef DSIM_NETCONF_H
#define DSIM_NETCONF_H
#include "base/network.h"
#include <stdbool.h>
#include <stddef.h>

/* Bookkeeping while the file is read; zero-initialise it. */
struct netconf_parser {
    int kind;                   /* of the current section */
    int network_line;           /* of [network], 0 until seen */
    int partition_every_line;
    struct netconf_link *links;         /* parallel to net_conf.links */
    size_t nlinks;
    struct netconf_partition *partitions;   /* parallel to net_conf.partitions */
    size_t npartitions;
};

/* Whether INNER (a header without its brackets) opens a network section. */
bool netconf_is_section(const char *inner);
int netconf_begin(struct netconf_parser *np, struct net_conf *nc, const char *inner, int line,
                  char *msg, size_t msglen);
/* "[network]", "[partition]" or "[link A B]": the current section. */
const char *netconf_label(const struct netconf_parser *np, char *buf, size_t size);
/* The current [partition]'s sides (netconf_sides), kept until resolved. */
int netconf_partition_sides(struct netconf_parser *np, const char *value, int line, char *msg, size_t msglen);
/* Machine names (the machines' in file order) to indices. */
int netconf_resolve(struct netconf_parser *np, struct net_conf *nc, char *const *names, size_t nmachines,
                    char *msg, size_t msglen);
void netconf_parser_free(struct netconf_parser *np);

/* [partition]'s sides, "a b | c d e", appended to *names as new strings:
 * the left side's *nleft names first. Two non-empty sides, no machine
 * named twice. 0, or the error's line (the names may be partly filled). */
int netconf_sides(const char *value, char ***names, size_t *nnames, size_t *nleft, int line, char *msg,
                  size_t msglen);
/* The words of s, separated by blanks or commas, appended to *v as new
 * strings. 0, or -1 when out of memory. */
int netconf_words(const char *s, char ***v, size_t *n);

/* "1%", "0.1%", "100%": at most 4 decimals (1 ppm). 0, or -1. */
int parse_percent_ppm(const char *s, uint32_t *ppm);
#endif
