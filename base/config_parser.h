/* What config.c (lines and sections) and config_keys.c (the keys and the
 * parser's errors) share while a cluster.conf is read: config.c calls
 * config_keys.c, never the other way round. Private to those two files. */
#ifndef DSIM_CONFIG_PARSER_H
#define DSIM_CONFIG_PARSER_H
#include "base/config.h"
#include "base/netconf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* cluster.conf's sections, as bits: a key may be in several. */
enum section {
    SEC_NONE = 0, SEC_SIMULATION = 1 << 0, SEC_MACHINE = 1 << 1, SEC_CHECK = 1 << 2, SEC_FAULT = 1 << 3,
    SEC_CHAOS = 1 << 4, SEC_DEFAULTS = 1 << 5, SEC_NETWORK = 1 << 6, SEC_LINK = 1 << 7, SEC_PARTITION = 1 << 8,
};

/* Which keys of config_keys.c's table a section has set. */
#define CONFIG_MAX_KEYS 128
struct keyset {
    uint64_t bits[CONFIG_MAX_KEYS / 64];
};

struct parser {
    const char *path;
    char *err;
    size_t errlen;
    bool failed;

    const char *buf;            /* the whole file */
    size_t len, pos;
    int lineno;                 /* of the line last handed to inih */
    char *line;                 /* scratch copy of that line */

    /* A "key = value" line too long for inih: the reader split it. */
    bool stashed;
    const char *stash_name, *stash_value;

    struct config *c;
    enum section section;
    struct keyset seen;         /* keys already set in the current section */
    int simulation_line, check_line;
    struct netconf_parser net;  /* [link A B] and [partition]'s names, until machines are known */
    struct defines *defines;    /* -D NAME=VALUE for ${NAME}, or NULL */
    char *expanded;             /* the line last handed to inih, ${NAME}s replaced */
    /* [defaults], parsed as a machine; machine_keys[i]: the keys machine i set. */
    struct machine_conf defaults;
    int defaults_line;
    struct keyset *machine_keys;
    struct keyset *link_keys;   /* link_keys[i]: the keys [link] i set */
};


/* config_keys.c, which config.c calls (never the other way round). */
/* Records the first error, "FILE:LINE: message"; returns 0. */
int parser_fail(struct parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The machine being read ([defaults] is read as one). */
struct machine_conf *parser_machine(struct parser *p);
/* "[machine a]", "[chaos]", ...: the current section, for messages. */
const char *parser_label(struct parser *p, char *buf, size_t size);

/* Each returns 1, or parser_fail()'s 0. */
/* One "name = value" line of the current section (name not empty). */
int keys_read(struct parser *p, const char *name, const char *value);
/* The current section ends. */
int keys_end_section(struct parser *p);
/* Every section is read: [defaults] into machines, [network] into links. */
int keys_inherit(struct parser *p);
void keys_free(struct parser *p);
#endif
