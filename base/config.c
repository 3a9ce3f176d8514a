/* cluster.conf: loading and validating a run's configuration.
 *
 * The INI syntax itself (comments, "key = value" splitting, whitespace) is
 * parsed by inih. inih as packaged (Debian, r55) does not pass line numbers to
 * the handler, has a fixed 200-byte line buffer (it would silently split a
 * longer line into several), truncates section names to 49 bytes, treats
 * indented lines as continuations and never tells the handler about a
 * section that has no keys. So inih reads from our own line reader, which
 * hands it exactly one physical line per call and does the rest itself:
 *
 *   - it counts lines, so the handler (always called for the line the reader
 *     last returned) knows its line number;
 *   - it rejects bytes that cannot be in a text file (NUL, control
 *     characters, invalid UTF-8), naming line and column;
 *   - it strips a leading UTF-8 BOM, leading whitespace (so indentation is
 *     allowed and never a continuation) and inline comments (" #..." and
 *     " ;..." -- a '#' or ';' preceded by whitespace);
 *   - it parses "[section]" headers itself and gives inih an empty line in
 *     their place, so names may be of any length and empty sections are seen;
 *   - it splits a "key = value" line too long for inih's buffer itself and
 *     gives inih a short stand-in line;
 *   - it reports a line that is neither a comment, a header nor a
 *     "key = value" pair (inih would report it too, without a message).
 *
 * Every error is "FILE:LINE: message"; only the first one is reported. */
#include "base/config.h"
#include "base/defines.h"
#include "base/netconf.h"
#include "base/netfaults.h"
#include "base/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


#define DEFAULT_DURATION_NS (30 * NS_PER_S)
#define DEFAULT_QUANTUM_NS (10 * NS_PER_US)
#define DEFAULT_CPUS 2
#define MAX_CPUS 1024
#define DEFAULT_MEMORY_BYTES (4ULL << 30)
#define MAX_FILE_SIZE (1 << 20)

/* ---------------------------------------------------------------- values */

#include "base/values.h"

static struct config *config_new(void)
{
    struct config *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->duration_ns = DEFAULT_DURATION_NS;
    c->quantum_ns = DEFAULT_QUANTUM_NS;
    c->spin_limit_ns = 30ULL * 1000000000ULL;
    c->cpus = DEFAULT_CPUS;
    c->memory_bytes = DEFAULT_MEMORY_BYTES;
    c->epoch_s = DEFAULT_EPOCH_S;
    net_conf_init(&c->net);
    return c;
}

void config_free(struct config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nmachines; i++) {
        struct machine_conf *m = &c->machines[i];
        free(m->name);
        free(m->command);
        free(m->command_after_restart);
        for (size_t j = 0; j < m->nenv; j++)
            free(m->env[j]);
        free(m->env);
    }
    free(c->machines);
    for (size_t i = 0; i < c->nfaults; i++)
        fault_free_fields(&c->faults[i]);
    free(c->faults);
    chaos_free(c->chaos);
    net_conf_free(&c->net);
    free(c->check_command);
    free(c->path);
    free(c->dir);
    free(c);
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- parser */

/* The sections this file reads itself, as bits: a key may be in several. */
enum section {
    SEC_NONE = 0, SEC_SIMULATION = 1 << 0, SEC_MACHINE = 1 << 1, SEC_CHECK = 1 << 2, SEC_FAULT = 1 << 3,
    SEC_CHAOS = 1 << 4, SEC_DEFAULTS = 1 << 5, SEC_NETWORK = 1 << 6, SEC_LINK = 1 << 7, SEC_PARTITION = 1 << 8,
};

const char *const tsc_mode_names[3] = { "auto", "trap", "rewrite" };

int tsc_mode_parse(const char *s, enum tsc_mode *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, tsc_mode_names[i])) { *out = (enum tsc_mode)i; return 0; }
    return -1;
}

struct parser;
struct key;
/* A key's type: reads value into the key's field of obj, the current
 * section's struct (section_object). 1, or fail()'s 0. */
typedef int key_reader(struct parser *p, const struct key *k, void *obj, const char *value);
static key_reader read_duration, read_positive, read_signed, read_range, read_signed_range, read_positive_range,
    read_bool, read_string, read_env, read_disk, read_drift, read_address, read_cpus, read_memory, read_epoch,
    read_tsc, read_kind, read_span, read_targets, read_sides, read_links, read_percent, read_percent_range,
    read_link_percent, read_partition_every, read_heal, read_partition_sides;

enum key_flags {
    REQUIRED = 1 << 0,      /* the section must have it */
    REPEATS = 1 << 1,       /* may be given more than once */
};

/* Every key of every section: where it may be, its type, where it is
 * stored. */
static const struct key {
    unsigned sections;
    const char *name;
    key_reader *read;
    size_t off, size;       /* its field in the section's struct */
    size_t line_off;        /* 1 + where the line it is on is kept, or 0 */
    unsigned flags;         /* enum key_flags */
    unsigned fault_key;     /* [fault]: its enum fault_key, for the kind's rules */
} keys[] = {
#define AT(type, field) .off = offsetof(type, field), .size = sizeof ((type *)0)->field
#define PAIR(type, lo) .off = offsetof(type, lo), .size = 2 * sizeof ((type *)0)->lo    /* lo, hi */
#define LINE(type, field) .line_off = offsetof(type, field) + 1
    { SEC_SIMULATION, "duration", read_positive, AT(struct config, duration_ns) },
    { SEC_SIMULATION, "quantum", read_positive, AT(struct config, quantum_ns) },
    { SEC_SIMULATION, "cpus", read_cpus, AT(struct config, cpus) },
    { SEC_SIMULATION, "memory", read_memory, AT(struct config, memory_bytes) },
    { SEC_SIMULATION, "spin_limit", read_positive, AT(struct config, spin_limit_ns) },
    { SEC_SIMULATION, "strict_names", read_bool, AT(struct config, strict_names) },
    { SEC_SIMULATION, "epoch", read_epoch, AT(struct config, epoch_s) },
    { SEC_SIMULATION, "tsc", read_tsc, AT(struct config, tsc) },
    { SEC_MACHINE, "command", read_string, AT(struct machine_conf, command), .flags = REQUIRED },
    { SEC_MACHINE, "start", read_duration, AT(struct machine_conf, start_ns), LINE(struct machine_conf, start_line) },
    { SEC_MACHINE, "daemon", read_bool, AT(struct machine_conf, daemon) },
    /* [defaults]: the [machine] keys every machine takes unless it sets its own. */
    { SEC_MACHINE | SEC_DEFAULTS, "env", read_env, AT(struct machine_conf, env), .flags = REPEATS },
    { SEC_MACHINE | SEC_DEFAULTS, "disk", read_disk, AT(struct machine_conf, disk_bytes) },
    { SEC_MACHINE | SEC_DEFAULTS, "clock_offset", read_signed, AT(struct machine_conf, clock_offset_ns) },
    { SEC_MACHINE | SEC_DEFAULTS, "clock_drift", read_drift, AT(struct machine_conf, clock_drift_ppb) },
    { SEC_MACHINE, "command-after-restart", read_string, AT(struct machine_conf, command_after_restart) },
    { SEC_MACHINE, "address", read_address, AT(struct machine_conf, address) },
    { SEC_CHECK, "command", read_string, AT(struct config, check_command) },
    { SEC_FAULT, "kind", read_kind, AT(struct fault_conf, kind), .flags = REQUIRED },
    { SEC_FAULT, "at", read_duration, AT(struct fault_conf, at_ns), .flags = REQUIRED },
    { SEC_FAULT, "machine", read_string, AT(struct fault_conf, machine), LINE(struct fault_conf, machine_line),
      .fault_key = FK_MACHINE },
    { SEC_FAULT, "by", read_signed, AT(struct fault_conf, by_ns), .fault_key = FK_BY },
    { SEC_FAULT, "duration", read_span, AT(struct fault_conf, duration_ns), .fault_key = FK_DURATION },
    { SEC_FAULT, "sides", read_sides, AT(struct fault_conf, machines), .fault_key = FK_SIDES },
    { SEC_FAULT, "one_way", read_bool, AT(struct fault_conf, one_way), .fault_key = FK_ONE_WAY },
    { SEC_FAULT, "machines", read_links, AT(struct fault_conf, machines), .fault_key = FK_MACHINES },
    { SEC_FAULT, "rate", read_percent, AT(struct fault_conf, rate_ppm), .fault_key = FK_RATE },
    { SEC_CHAOS, "machines", read_targets, AT(struct chaos_conf, machines) },
    { SEC_CHAOS, "crash", read_positive, AT(struct chaos_conf, crash_every) },
    { SEC_CHAOS, "crash_down", read_range, PAIR(struct chaos_conf, down_lo) },
    { SEC_CHAOS, "pause", read_positive, AT(struct chaos_conf, pause_every) },
    { SEC_CHAOS, "pause_for", read_range, PAIR(struct chaos_conf, pause_lo) },
    { SEC_CHAOS, "clock_jump", read_positive, AT(struct chaos_conf, jump_every) },
    { SEC_CHAOS, "clock_jump_by", read_signed_range, PAIR(struct chaos_conf, jump_lo) },
    { SEC_CHAOS, "swarm", read_bool, AT(struct chaos_conf, swarm) },
    { SEC_CHAOS, "partition", read_positive, AT(struct chaos_conf, partition_every) },
    { SEC_CHAOS, "partition_for", read_positive_range, PAIR(struct chaos_conf, partition_lo) },
    { SEC_CHAOS, "partition_one_way", read_bool, AT(struct chaos_conf, partition_one_way) },
    { SEC_CHAOS, "loss", read_positive, AT(struct chaos_conf, loss_every) },
    { SEC_CHAOS, "loss_for", read_positive_range, PAIR(struct chaos_conf, loss_lo) },
    { SEC_CHAOS, "loss_rate", read_percent_range, PAIR(struct chaos_conf, loss_rate_lo) },
    { SEC_CHAOS, "duplicate", read_positive, AT(struct chaos_conf, dup_every) },
    { SEC_CHAOS, "duplicate_for", read_positive_range, PAIR(struct chaos_conf, dup_lo) },
    { SEC_CHAOS, "duplicate_rate", read_percent_range, PAIR(struct chaos_conf, dup_rate_lo) },
    { SEC_NETWORK, "latency", read_range, PAIR(struct net_conf, dflt.lat_lo) },
    { SEC_NETWORK, "loss", read_link_percent, AT(struct net_conf, dflt.loss_ppm) },
    { SEC_NETWORK, "duplicate", read_link_percent, AT(struct net_conf, dflt.dup_ppm) },
    { SEC_NETWORK, "reorder", read_link_percent, AT(struct net_conf, dflt.reorder_ppm) },
    { SEC_NETWORK, "loopback_latency", read_duration, AT(struct net_conf, loopback_latency_ns) },
    { SEC_NETWORK, "rto", read_positive, AT(struct net_conf, rto_ns) },
    { SEC_NETWORK, "tcp_timeout", read_positive, AT(struct net_conf, tcp_timeout_ns) },
    { SEC_NETWORK, "partition_every", read_partition_every, AT(struct net_conf, partition_every_ns) },
    { SEC_NETWORK, "partition_for", read_positive_range, PAIR(struct net_conf, partition_for_lo) },
    { SEC_NETWORK, "partition_one_way", read_bool, AT(struct net_conf, partition_one_way) },
    /* [link A B]: the keys it leaves out are [network]'s (the row of that name). */
    { SEC_LINK, "latency", read_range, PAIR(struct net_link_override, link.lat_lo) },
    { SEC_LINK, "loss", read_link_percent, AT(struct net_link_override, link.loss_ppm) },
    { SEC_LINK, "duplicate", read_link_percent, AT(struct net_link_override, link.dup_ppm) },
    { SEC_LINK, "reorder", read_link_percent, AT(struct net_link_override, link.reorder_ppm) },
    { SEC_PARTITION, "at", read_duration, AT(struct net_partition, at_ns), .flags = REQUIRED },
    { SEC_PARTITION, "duration", read_heal, AT(struct net_partition, duration_ns) },
    { SEC_PARTITION, "sides", read_partition_sides, .flags = REQUIRED },
    { SEC_PARTITION, "one_way", read_bool, AT(struct net_partition, one_way) },
#undef AT
#undef PAIR
#undef LINE
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Which keys of the table a section has set: as many as the table holds. */
struct keyset {
    uint64_t bits[(NKEYS + 63) / 64];
};

static bool keyset_has(const struct keyset *s, const struct key *k)
{
    size_t i = (size_t)(k - keys);
    return s->bits[i / 64] >> (i % 64) & 1;
}

static void keyset_add(struct keyset *s, const struct key *k)
{
    size_t i = (size_t)(k - keys);
    s->bits[i / 64] |= 1ULL << (i % 64);
}

/* The key called name in section s, or NULL. */
static const struct key *key_named(enum section s, const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if ((keys[i].sections & s) && !strcmp(keys[i].name, name))
            return &keys[i];
    return NULL;
}

/* The fault keys (enum fault_key) among the keys set. */
static unsigned fault_keys_of(const struct keyset *s)
{
    unsigned set = 0;
    for (size_t i = 0; i < NKEYS; i++)
        if (keyset_has(s, &keys[i])) set |= keys[i].fault_key;
    return set;
}

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

static int fail(struct parser *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records the first error; returns 0 (an inih handler's "error"). */
static int fail(struct parser *p, int line, const char *fmt, ...)
{
    va_list ap;
    if (p->failed)
        return 0;
    p->failed = true;
    if (!p->err || p->errlen == 0)
        return 0;
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->path, line);
    if (n >= 0 && (size_t)n < p->errlen) {
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static struct machine_conf *cur_machine(struct parser *p)
{
    if (p->section == SEC_DEFAULTS)
        return &p->defaults;
    return &p->c->machines[p->c->nmachines - 1];
}

/* Offset of the first byte of s[0..n) that cannot be in a text line:
 * control characters other than tab (and a CR ending the line), DEL, and
 * anything that is not well-formed UTF-8. -1 when all is well. */
static long bad_byte(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && !(c == '\r' && i + 1 == n)) || c == 0x7f)
                return (long)i;
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return (long)i;
        }
        if (i + len > n)
            return (long)i;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return (long)i;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return (long)i;
        i += len;
    }
    return -1;
}

static char *skip_blanks(char *s)
{
    while (is_blank(*s))
        s++;
    return s;
}

static void rstrip(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && is_blank(s[n - 1]))
        s[--n] = '\0';
}

/* Cuts an inline comment: a '#' that follows whitespace. A ';' does not
 * start one, since commands are shell text ("a ; b"). */
static void cut_comment(char *s)
{
    for (char *q = s + 1; *q; q++) {
        if (*q == '#' && is_blank(q[-1])) {
            *q = '\0';
            break;
        }
    }
    rstrip(s);
}

/* Checks the section that just ended (at a new header or the end of file),
 * so that errors come out in the order of the file. */
static int finish_section(struct parser *p)
{
    char msg[512];
    struct net_conf *net = &p->c->net;
    for (size_t i = 0; i < NKEYS; i++) {
        if (!(keys[i].sections & p->section) || !(keys[i].flags & REQUIRED) || keyset_has(&p->seen, &keys[i]))
            continue;
        if (p->section == SEC_MACHINE)
            return fail(p, cur_machine(p)->line, "machine \"%s\" has no %s", cur_machine(p)->name, keys[i].name);
        if (p->section == SEC_PARTITION)
            return fail(p, net->partitions[net->npartitions - 1].line, "[partition] has no %s", keys[i].name);
        struct fault_conf *f = &p->c->faults[p->c->nfaults - 1];
        return fail(p, f->line, "fault \"%s\" has no %s", f->name, keys[i].name);
    }
    if (p->section == SEC_MACHINE) {
        GROW_ONE(p->machine_keys, p->c->nmachines - 1);
        p->machine_keys[p->c->nmachines - 1] = p->seen;
    }
    if (p->section == SEC_LINK) {
        GROW_ONE(p->link_keys, net->nlinks - 1);
        p->link_keys[net->nlinks - 1] = p->seen;
    }
    if (p->section == SEC_FAULT) {
        struct fault_conf *f = &p->c->faults[p->c->nfaults - 1];
        if (fault_check_keys(f, fault_keys_of(&p->seen), msg, sizeof msg))
            return fail(p, f->line, "%s", msg);
    }
    return 1;
}

static struct config *c_of(struct parser *p) { return p->c; }

static void section_header(struct parser *p, char *s)
{
    size_t n = strlen(s);
    int line = p->lineno;
    if (n < 2 || s[n - 1] != ']') {
        fail(p, line, "bad section header \"%s\" (expected \"[name]\")", s);
        return;
    }
    s[n - 1] = '\0';
    char *inner = skip_blanks(s + 1);
    rstrip(inner);
    if (finish_section(p) == 0)        /* the section that ends here */
        return;
    p->seen = (struct keyset){ 0 };

    if (strcmp(inner, "simulation") == 0 || strcmp(inner, "check") == 0) {
        bool sim = inner[0] == 's';
        int *first = sim ? &p->simulation_line : &p->check_line;
        if (*first) {
            fail(p, line, "duplicate section [%s]", inner);
            return;
        }
        *first = line;
        p->section = sim ? SEC_SIMULATION : SEC_CHECK;
        return;
    }
    if (strcmp(inner, "defaults") == 0) {
        if (p->defaults_line) { fail(p, line, "duplicate section [defaults]"); return; }
        p->defaults_line = line;
        p->section = SEC_DEFAULTS;
        return;
    }
    if (strcmp(inner, "chaos") == 0) {
        if (c_of(p)->chaos) { fail(p, line, "duplicate section [chaos]"); return; }
        struct chaos_conf *ch = calloc(1, sizeof *ch);
        if (!ch) { fail(p, line, "out of memory"); return; }
        ch->line = line;
        chaos_defaults(ch);
        c_of(p)->chaos = ch;
        p->section = SEC_CHAOS;
        return;
    }
    if (strncmp(inner, "fault", 5) == 0 && (inner[5] == '\0' || is_blank(inner[5]))) {
        char *fname = skip_blanks(inner + 5);
        if (!*fname || !valid_machine_name(fname)) {
            fail(p, line, "fault section needs a name (use [fault NAME])");
            return;
        }
        for (size_t i = 0; i < c_of(p)->nfaults; i++)
            if (!strcmp(c_of(p)->faults[i].name, fname)) {
                fail(p, line, "duplicate fault \"%s\"", fname);
                return;
            }
        GROW_ONE(c_of(p)->faults, c_of(p)->nfaults);
        c_of(p)->faults[c_of(p)->nfaults] = (struct fault_conf){ .name = strdup(fname), .line = line };
        c_of(p)->nfaults++;
        p->section = SEC_FAULT;
        return;
    }
    if (netconf_is_section(inner)) {
        char msg[512];
        int err_line = netconf_begin(&p->net, &c_of(p)->net, inner, line, msg, sizeof msg);
        if (err_line)
            fail(p, err_line, "%s", msg);
        else
            p->section = !strcmp(inner, "network") ? SEC_NETWORK : !strcmp(inner, "partition") ? SEC_PARTITION
                         : SEC_LINK;
        return;
    }
    if (strncmp(inner, "machine", 7) != 0 || (inner[7] != '\0' && !is_blank(inner[7]))) {
        fail(p, line, "unknown section [%s]", inner);
        return;
    }

    char *name = skip_blanks(inner + 7);
    size_t len = strlen(name);
    if (len == 0) {
        fail(p, line, "machine section has no name (use [machine NAME])");
        return;
    }
    if (!valid_machine_name(name)) {
        fail(p, line, "bad machine name \"%s\" (use letters, digits, '_', '.' and '-', "
             "starting with a letter or digit)", name);
        return;
    }
    if (len > MAX_MACHINE_NAME) {
        fail(p, line, "machine name \"%s\" is too long (%zu characters, at most %d)",
             name, len, MAX_MACHINE_NAME);
        return;
    }
    struct config *c = p->c;
    for (size_t i = 0; i < c->nmachines; i++) {
        if (strcmp(c->machines[i].name, name) == 0) {
            fail(p, line, "duplicate machine \"%s\"", name);
            return;
        }
    }
    GROW_ONE(c->machines, c->nmachines);
    struct machine_conf *m = &c->machines[c->nmachines];
    memset(m, 0, sizeof *m);
    m->line = line;
    if (!(m->name = strdup(name))) {
        fail(p, line, "out of memory");
        return;
    }
    c->nmachines++;
    p->section = SEC_MACHINE;
}

/* The ini_reader: hands inih the next physical line, or NULL at the end of
 * the file or after the first error. */
#define SEMICOLON_STANDIN '\x1f'

static char *read_line(char *str, int num, void *stream)
{
    struct parser *p = stream;
    if (p->failed || p->pos >= p->len || num < 2)
        return NULL;

    const char *s = p->buf + p->pos;
    const char *nl = memchr(s, '\n', p->len - p->pos);
    size_t n = nl ? (size_t)(nl - s) : p->len - p->pos;
    p->pos += n + (nl != NULL);
    p->lineno++;
    p->stashed = false;
    str[0] = '\0';

    long bad = bad_byte((const unsigned char *)s, n);
    if (bad >= 0) {
        unsigned char b = (unsigned char)s[bad];
        if (b < 0x80)
            fail(p, p->lineno, "binary data (byte 0x%02x at column %ld)", b, bad + 1);
        else
            fail(p, p->lineno, "invalid UTF-8 (byte 0x%02x at column %ld)", b, bad + 1);
        return NULL;
    }

    memcpy(p->line, s, n);
    p->line[n] = '\0';
    char *t = p->line;
    if (p->lineno == 1 && strncmp(t, "\xef\xbb\xbf", 3) == 0)
        t += 3;
    t = skip_blanks(t);
    if (*t == '\0' || *t == '#' || *t == ';')
        return str;                     /* blank or comment */
    cut_comment(t);
    free(p->expanded);
    char why[512];
    if (!(t = p->expanded = define_expand(t, p->defines, why, sizeof why))) {
        fail(p, p->lineno, "%s", why);
        return NULL;
    }

    if (*t == '[') {
        section_header(p, t);
        return p->failed ? NULL : str;
    }

    char *sep = strpbrk(t, "=:");
    if (!sep) {
        fail(p, p->lineno, "syntax error: \"%s\" is not \"key = value\", \"[section]\" "
             "or a comment", t);
        return NULL;
    }
    size_t tlen = strlen(t);
    if (tlen + 1 <= (size_t)num) {
        /* inih would cut " ;..." as a comment; commands are shell text, so
         * hand it a stand-in byte (control bytes never reach here). */
        for (char *q = t; *q; q++)
            if (*q == ';') *q = SEMICOLON_STANDIN;
        memcpy(str, t, tlen + 1);
        return str;
    }
    /* Too long for inih's buffer: split it here, hand inih a stand-in. */
    *sep = '\0';
    rstrip(t);
    p->stash_name = t;
    p->stash_value = skip_blanks(sep + 1);
    p->stashed = true;
    snprintf(str, (size_t)num, "long=line");
    return str;
}

static const char *section_label(struct parser *p, char *buf, size_t size)
{
    switch (p->section) {
    case SEC_SIMULATION:
        return "[simulation]";
    case SEC_CHECK:
        return "[check]";
    case SEC_FAULT:
        snprintf(buf, size, "[fault %s]", p->c->faults[p->c->nfaults - 1].name);
        return buf;
    case SEC_CHAOS:
        return "[chaos]";
    case SEC_DEFAULTS:
        return "[defaults]";
    case SEC_NETWORK:
    case SEC_LINK:
    case SEC_PARTITION:
        return netconf_label(&p->net, buf, size);
    default:
        snprintf(buf, size, "[machine %s]", cur_machine(p)->name);
        return buf;
    }
}

/* ------------------------------------------------------------ key types */

/* The field of obj that key k is stored in. */
#define FIELD(type, k, obj) ((type *)((char *)(obj) + (k)->off))

static int duration_into(struct parser *p, uint64_t *out, const char *name, const char *value, bool positive)
{
    if (parse_duration(value, out) < 0)
        return fail(p, p->lineno, "bad duration \"%s\" (use ns, us, ms, s, m or h)", value);
    if (positive && *out == 0)
        return fail(p, p->lineno, "%s must be greater than 0", name);
    return 1;
}

static int read_duration(struct parser *p, const struct key *k, void *obj, const char *value)
{
    return duration_into(p, FIELD(uint64_t, k, obj), k->name, value, false);
}

static int read_positive(struct parser *p, const struct key *k, void *obj, const char *value)
{
    return duration_into(p, FIELD(uint64_t, k, obj), k->name, value, true);
}

/* A fault's duration: that it has one is news too. */
static int read_span(struct parser *p, const struct key *k, void *obj, const char *value)
{
    ((struct fault_conf *)obj)->has_duration = true;
    return read_duration(p, k, obj, value);
}

static int read_signed(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_signed_duration(value, FIELD(int64_t, k, obj)) < 0)
        return fail(p, p->lineno, "bad duration \"%s\" (use ns, us, ms, s, m or h, optionally negative)", value);
    return 1;
}

/* LOW..HIGH into two fields in a row: signed, at least 0, or above 0. */
static int range_into(struct parser *p, const struct key *k, void *obj, const char *value, int64_t min)
{
    int64_t lo, hi;
    if (parse_range(value, &lo, &hi) < 0 || lo < (min > 0 ? 0 : min))
        return fail(p, p->lineno, "bad range \"%s\" (use DURATION or LOW..HIGH, such as 1s..5s)", value);
    if (lo < min)
        return fail(p, p->lineno, "%s must be greater than 0", k->name);
    FIELD(int64_t, k, obj)[0] = lo;     /* uint64_t fields hold them alike: lo >= 0 */
    FIELD(int64_t, k, obj)[1] = hi;
    return 1;
}

static int read_range(struct parser *p, const struct key *k, void *obj, const char *value)
{
    return range_into(p, k, obj, value, 0);
}

static int read_signed_range(struct parser *p, const struct key *k, void *obj, const char *value)
{
    return range_into(p, k, obj, value, INT64_MIN);
}

static int read_positive_range(struct parser *p, const struct key *k, void *obj, const char *value)
{
    return range_into(p, k, obj, value, 1);
}

static int read_bool(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_bool(value, FIELD(bool, k, obj)) < 0)
        return fail(p, p->lineno, "bad boolean \"%s\" (use true or false)", value);
    return 1;
}

static int read_string(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (!(*FIELD(char *, k, obj) = strdup(value)))
        return fail(p, p->lineno, "out of memory");
    return 1;
}

static int read_env(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char label[MAX_MACHINE_NAME + 16];
    struct machine_conf *m = obj;
    size_t n = ident_len(value);
    (void)k;
    if (n == 0 || value[n] != '=')
        return fail(p, p->lineno, "bad env \"%s\" (use NAME=VALUE, NAME made of letters, digits "
                    "and '_', not starting with a digit)", value);
    for (size_t i = 0; i < m->nenv; i++)
        if (strncmp(m->env[i], value, n + 1) == 0)
            return fail(p, p->lineno, "duplicate env \"%.*s\" in %s", (int)n, value,
                        section_label(p, label, sizeof label));
    GROW_ONE(m->env, m->nenv);
    if (!(m->env[m->nenv] = strdup(value)))
        return fail(p, p->lineno, "out of memory");
    m->nenv++;
    return 1;
}

static int read_disk(struct parser *p, const struct key *k, void *obj, const char *value)
{
    uint64_t *bytes = FIELD(uint64_t, k, obj);
    if (parse_size(value, bytes) < 0 || *bytes < MIN_DISK_BYTES || *bytes > MAX_DISK_BYTES)
        return fail(p, p->lineno, "bad disk size \"%s\" (use 16M to 1T: bytes, or a number with K, M, G or T)",
                    value);
    return 1;
}

static int read_drift(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char *end;
    double ppm = strtod(value, &end);
    end = skip_blanks(end);
    if (end == value || (*end && strcmp(end, "ppm")) || ppm <= -100000 || ppm >= 100000)
        return fail(p, p->lineno, "bad clock_drift \"%s\" (use ppm between -100000 and 100000, e.g. 250ppm)",
                    value);
    *FIELD(int64_t, k, obj) = (int64_t)(ppm * 1000);
    return 1;
}

static int read_address(struct parser *p, const struct key *k, void *obj, const char *value)
{
    struct in_addr a;
    if (inet_pton(AF_INET, value, &a) != 1)
        return fail(p, p->lineno, "bad address \"%s\" (use an IPv4 address such as 10.0.0.7)", value);
    memcpy(FIELD(char, k, obj), value, strlen(value) + 1);     /* at most 15 characters */
    return 1;
}

static int read_cpus(struct parser *p, const struct key *k, void *obj, const char *value)
{
    const char *s = value;
    uint64_t v;
    if (parse_uint(&s, &v) < 0 || *s || v < 1 || v > MAX_CPUS)
        return fail(p, p->lineno, "bad cpus \"%s\" (use an integer from 1 to %d)", value, MAX_CPUS);
    *FIELD(unsigned, k, obj) = (unsigned)v;
    return 1;
}

static int read_memory(struct parser *p, const struct key *k, void *obj, const char *value)
{
    uint64_t *bytes = FIELD(uint64_t, k, obj);
    if (parse_size(value, bytes) < 0 || *bytes == 0)
        return fail(p, p->lineno, "bad size \"%s\" (use bytes, or a number with K, M, G or T)", value);
    return 1;
}

static int read_epoch(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_epoch(value, FIELD(int64_t, k, obj)) < 0)
        return fail(p, p->lineno, "bad epoch \"%s\" (use a UTC date from 1970 to 2200, YYYY-MM-DD or "
                    "YYYY-MM-DDTHH:MM:SSZ)", value);
    return 1;
}

static int read_tsc(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (tsc_mode_parse(value, FIELD(enum tsc_mode, k, obj)) < 0)
        return fail(p, p->lineno, "bad tsc \"%s\" (use auto, trap or rewrite)", value);
    return 1;
}

static int read_kind(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (fault_kind_parse(value, FIELD(enum fault_kind, k, obj)) < 0)
        return fail(p, p->lineno, "fault kind \"%s\" is not supported yet (supported: %s)", value,
                    fault_kind_list());
    return 1;
}

/* [chaos] machines: names separated by commas or spaces. */
static int read_targets(struct parser *p, const struct key *k, void *obj, const char *value)
{
    struct chaos_conf *ch = obj;
    char *copy = strdup(value), *save = NULL;
    (void)k;
    if (!copy)
        return fail(p, p->lineno, "out of memory");
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        GROW_ONE(ch->machines, ch->nmachines);
        ch->machines[ch->nmachines++] = strdup(tok);
    }
    free(copy);
    return 1;
}

static int read_sides(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char msg[512];
    struct fault_conf *f = obj;
    int line;
    (void)k;
    if ((line = netconf_sides(value, &f->machines, &f->nmachines, &f->nleft, p->lineno, msg, sizeof msg)))
        return fail(p, line, "%s", msg);
    return 1;
}

/* A burst's machines: each named once. */
static int read_links(struct parser *p, const struct key *k, void *obj, const char *value)
{
    struct fault_conf *f = obj;
    (void)k;
    if (netconf_words(value, &f->machines, &f->nmachines) < 0)
        return fail(p, p->lineno, "out of memory");
    for (size_t i = 0; i < f->nmachines; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(f->machines[i], f->machines[j]))
                return fail(p, p->lineno, "machine \"%s\" is named twice", f->machines[i]);
    return 1;
}

static int read_percent(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_percent_ppm(value, FIELD(uint32_t, k, obj)) < 0)
        return fail(p, p->lineno, "bad percentage \"%s\" (use 0%% to 100%%, such as 30%%)", value);
    return 1;
}

static int read_percent_range(struct parser *p, const struct key *k, void *obj, const char *value)
{
    uint32_t *lohi = FIELD(uint32_t, k, obj);
    if (parse_percent_range(value, &lohi[0], &lohi[1]) < 0)
        return fail(p, p->lineno, "bad percentage \"%s\" (use 0%% to 100%%, such as 30%% or 10%%..50%%)", value);
    return 1;
}

/* [network] and [link]'s loss, duplicate and reorder. */
static int read_link_percent(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_percent_ppm(value, FIELD(uint32_t, k, obj)) < 0)
        return fail(p, p->lineno, "bad percentage \"%s\" (use 0%% to 100%%, such as 1%% or 0.01%%)", value);
    return 1;
}

/* Its line, for a check once machines are counted. */
static int read_partition_every(struct parser *p, const struct key *k, void *obj, const char *value)
{
    p->net.partition_every_line = p->lineno;
    return read_positive(p, k, obj, value);
}

/* A [partition]'s duration: 0 would mean it never heals. */
static int read_heal(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (!read_duration(p, k, obj, value))
        return 0;
    if (*FIELD(uint64_t, k, obj) == 0)
        return fail(p, p->lineno, "duration must be greater than 0 (leave it out for a partition that never heals)");
    return 1;
}

/* A [partition]'s sides: names, until machines are known (netconf.c). */
static int read_partition_sides(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char msg[512];
    int line;
    (void)k, (void)obj;
    if ((line = netconf_partition_sides(&p->net, value, p->lineno, msg, sizeof msg)))
        return fail(p, line, "%s", msg);
    return 1;
}

/* ----------------------------------------------------------------- keys */

/* The struct the current section's keys are stored in. */
static void *section_object(struct parser *p)
{
    switch (p->section) {
    case SEC_SIMULATION:
    case SEC_CHECK:
        return p->c;
    case SEC_FAULT:
        return &p->c->faults[p->c->nfaults - 1];
    case SEC_CHAOS:
        return p->c->chaos;
    case SEC_NETWORK:
        return &p->c->net;
    case SEC_LINK:
        return &p->c->net.links[p->c->net.nlinks - 1];
    case SEC_PARTITION:
        return &p->c->net.partitions[p->c->net.npartitions - 1];
    default:
        return cur_machine(p);
    }
}

static int unknown_key(struct parser *p, const char *name)
{
    char label[2 * MAX_MACHINE_NAME + 16], takes[256] = "";
    if (p->section != SEC_DEFAULTS)
        return fail(p, p->lineno, "unknown key \"%s\" in %s", name, section_label(p, label, sizeof label));
    size_t n = 0, len = 0;
    for (size_t i = 0; i < NKEYS; i++) n += (keys[i].sections & SEC_DEFAULTS) != 0;
    for (size_t i = 0, k = 0; i < NKEYS; i++)
        if (keys[i].sections & SEC_DEFAULTS)
            len += (size_t)snprintf(takes + len, sizeof takes - len, "%s%s", k++ == 0 ? "" : k == n ? " and " : ", ",
                                    keys[i].name);
    return fail(p, p->lineno, "key \"%s\" cannot be in [defaults] (it takes %s; set the others in each [machine])",
                name, takes);
}

/* inih's name and value, or the reader's for a line it split; a stand-in
 * byte back to the ';' it stands for (restored: room for the value). */
static const char *real_value(struct parser *p, const char **name, const char *value, char *restored, size_t size)
{
    if (p->stashed) {
        *name = p->stash_name;
        return p->stash_value;
    }
    if (!value)
        return "";
    if (!strchr(value, SEMICOLON_STANDIN))
        return value;
    snprintf(restored, size, "%s", value);
    for (char *q = restored; *q; q++)
        if (*q == SEMICOLON_STANDIN) *q = ';';
    return restored;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct parser *p = user;
    int line = p->lineno;
    char restored[4096];
    (void)section;                      /* tracked by the reader */

    if (p->failed)
        return 0;
    value = real_value(p, &name, value, restored, sizeof restored);
    if (*name == '\0')
        return fail(p, line, "missing key name before \"=\"");
    if (p->section == SEC_NONE)
        return fail(p, line, "key \"%s\" outside any section", name);
    const struct key *k = key_named(p->section, name);
    if (!k)
        return unknown_key(p, name);
    if (keyset_has(&p->seen, k) && !(k->flags & REPEATS))
        return fail(p, line, "duplicate key \"%s\"", name);
    keyset_add(&p->seen, k);
    if (*value == '\0')
        return fail(p, line, "key \"%s\" has no value", name);
    void *obj = section_object(p);
    if (k->line_off)
        *(int *)((char *)obj + k->line_off - 1) = line;
    return k->read(p, k, obj, value);
}

/* Reads all of PATH into a NUL-terminated buffer. */
static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(EISDIR));
        close(fd);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            set_err(err, errlen, "%s: out of memory", path);
            close(fd);
            return NULL;
        }
        if (n == cap) {
            if (cap > MAX_FILE_SIZE) {
                set_err(err, errlen, "%s: too large (more than %d bytes)", path,
                        MAX_FILE_SIZE);
                free(buf);
                close(fd);
                return NULL;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                free(buf);
            buf = nb;
            continue;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > MAX_FILE_SIZE) {
        set_err(err, errlen, "%s: too large (more than %d bytes)", path, MAX_FILE_SIZE);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* realpath(dirname(path)) */
static char *file_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    char *dir = realpath(dirname(copy), NULL);
    free(copy);
    return dir;
}

static void defaults_free(struct parser *p)
{
    for (size_t i = 0; i < p->defaults.nenv; i++)
        free(p->defaults.env[i]);
    free(p->defaults.env);
    free(p->machine_keys);
    free(p->link_keys);
}

/* A machine's env after [defaults]: the defaults' variables it does not set
 * itself, then its own, each list in file order. */
static int merge_env(struct parser *p, struct machine_conf *m)
{
    const struct machine_conf *d = &p->defaults;
    char **env = calloc(d->nenv + m->nenv + 1, sizeof *env);
    size_t n = 0;
    if (!env)
        return fail(p, m->line, "out of memory");
    for (size_t i = 0; i < d->nenv; i++) {
        size_t len = strcspn(d->env[i], "=") + 1;
        bool own = false;
        for (size_t j = 0; j < m->nenv && !own; j++)
            own = strncmp(m->env[j], d->env[i], len) == 0;
        if (!own && !(env[n++] = strdup(d->env[i]))) {
            for (size_t k = 0; k + 1 < n; k++) free(env[k]);
            free(env);
            return fail(p, m->line, "out of memory");
        }
    }
    for (size_t j = 0; j < m->nenv; j++)
        env[n++] = m->env[j];
    free(m->env);
    m->env = env;
    m->nenv = n;
    return 1;
}

/* [defaults] into every machine, for each key it left unset; env lists
 * are merged. */
static int apply_defaults(struct parser *p)
{
    const struct machine_conf *d = &p->defaults;
    for (size_t i = 0; p->defaults_line && i < p->c->nmachines; i++) {
        struct machine_conf *m = &p->c->machines[i];
        for (size_t k = 0; k < NKEYS; k++)
            if ((keys[k].sections & SEC_DEFAULTS) && !(keys[k].flags & REPEATS) &&
                !keyset_has(&p->machine_keys[i], &keys[k]))
                memcpy((char *)m + keys[k].off, (const char *)d + keys[k].off, keys[k].size);
        if (d->nenv && merge_env(p, m) == 0)
            return 0;
    }
    return 1;
}

/* [link] keys a link left unset: [network]'s (the row of the same name). */
static void inherit_links(struct parser *p)
{
    struct net_conf *net = &p->c->net;
    for (size_t i = 0; i < net->nlinks; i++)
        for (size_t k = 0; k < NKEYS; k++)
            if ((keys[k].sections & SEC_LINK) && !keyset_has(&p->link_keys[i], &keys[k])) {
                const struct key *dflt = key_named(SEC_NETWORK, keys[k].name);
                memcpy((char *)&net->links[i] + keys[k].off, (const char *)net + dflt->off, keys[k].size);
            }
}

struct config *config_load(const char *path, char *err, size_t errlen)
{
    return config_load_defined(path, NULL, err, errlen);
}

struct config *config_load_defined(const char *path, struct defines *defines, char *err, size_t errlen)
{
    size_t len;
    char *buf;
    struct parser p = { 0 };

    set_err(err, errlen, "%s", "");
    if (!path) {
        set_err(err, errlen, "no configuration file given");
        return NULL;
    }
    if (!(buf = read_file(path, &len, err, errlen)))
        return NULL;

    p.path = path;
    p.defines = defines;
    p.err = err;
    p.errlen = errlen;
    p.buf = buf;
    p.len = len;
    p.line = malloc(len + 1);
    p.c = config_new();
    if (!p.line || !p.c) {
        set_err(err, errlen, "%s: out of memory", path);
        goto fail;
    }

    int r = ini_parse_stream(read_line, &p, handler, &p);
    if (!p.failed && r > 0)         /* inih saw an error the reader did not */
        fail(&p, r, "syntax error");
    else if (!p.failed && r < 0)
        fail(&p, p.lineno, "out of memory");
    if (p.failed)
        goto fail;

    struct config *c = p.c;
    if (finish_section(&p) == 0)
        goto fail;
    if (c->nmachines == 0) {
        fail(&p, 1, "no machines defined");
        goto fail;
    }
    if (apply_defaults(&p) == 0)
        goto fail;
    for (size_t i = 0; i < c->nmachines; i++) {         /* addresses: 10.0.0.N unless given */
        struct machine_conf *m = &c->machines[i];
        unsigned n = (unsigned)i + 1;
        if (!m->address[0]) snprintf(m->address, sizeof m->address, "10.0.%u.%u", (n >> 8) & 255, n & 255);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c->machines[j].address, m->address)) {
                fail(&p, m->line, "machines \"%s\" and \"%s\" have the same address %s", c->machines[j].name,
                     m->name, m->address);
                goto fail;
            }
    }
    for (size_t i = 0; i < c->nmachines; i++)
        if (c->machines[i].start_line && c->machines[i].start_ns >= c->duration_ns) {
            /* It would never run: the run would pass without it, or time out. */
            fail(&p, c->machines[i].start_line, "machine \"%s\" starts at or after the end of the run "
                 "([simulation] duration)", c->machines[i].name);
            goto fail;
        }
    for (size_t i = 0; c->chaos && i < c->chaos->nmachines; i++) {
        size_t m = 0;
        while (m < c->nmachines && strcmp(c->machines[m].name, c->chaos->machines[i])) m++;
        if (m == c->nmachines) {
            fail(&p, c->chaos->line, "[chaos] names no machine of this file: \"%s\"", c->chaos->machines[i]);
            goto fail;
        }
    }
    for (size_t i = 0; i < c->nfaults; i++) {
        size_t m = 0;
        if (FAULT_IS_NET(c->faults[i].kind)) continue;      /* netfaults_resolve */
        while (m < c->nmachines && strcmp(c->machines[m].name, c->faults[i].machine)) m++;
        if (m == c->nmachines) {
            fail(&p, c->faults[i].machine_line ? c->faults[i].machine_line : c->faults[i].line,
                 "fault \"%s\" names no machine of this file: \"%s\"",
                 c->faults[i].name, c->faults[i].machine);
            goto fail;
        }
    }
    char msg[512], **names = xrealloc(NULL, c->nmachines * sizeof *names);
    for (size_t i = 0; i < c->nmachines; i++)
        names[i] = c->machines[i].name;
    inherit_links(&p);
    int net_line = netconf_resolve(&p.net, &c->net, names, c->nmachines, msg, sizeof msg);
    if (!net_line) net_line = netfaults_resolve(c->faults, c->nfaults, c->chaos, names, c->nmachines, msg, sizeof msg);
    free(names);
    if (net_line) {
        fail(&p, net_line, "%s", msg);
        goto fail;
    }
    if (!(c->path = strdup(path))) {
        set_err(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    if (!(c->dir = file_dir(path))) {
        set_err(err, errlen, "%s: cannot resolve its directory: %s", path, strerror(errno));
        goto fail;
    }
    c->dir_mounted = strcmp(c->dir, "/") != 0;
    netconf_parser_free(&p.net);
    defaults_free(&p);
    free(p.line);
    free(p.expanded);
    free(buf);
    return c;

fail:
    netconf_parser_free(&p.net);
    defaults_free(&p);
    config_free(p.c);
    free(p.line);
    free(p.expanded);
    free(buf);
    return NULL;
}

/* -------------------------------------------------------------- dsim exec */

/* argv as one /bin/sh command line: every argument single-quoted, a quote
 * inside one written as '\'' -- so `sh -c` sees exactly argv. */
static char *shell_join(char *const argv[])
{
    size_t size = 1;
    for (size_t i = 0; argv[i]; i++) {
        size += 3;                      /* quotes and separator */
        for (const char *s = argv[i]; *s; s++)
            size += *s == '\'' ? 4 : 1;
    }
    char *out = malloc(size), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i > 0)
            *o++ = ' ';
        *o++ = '\'';
        for (const char *s = argv[i]; *s; s++) {
            if (*s == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *s;
            }
        }
        *o++ = '\'';
    }
    *o = '\0';
    return out;
}

struct config *config_for_exec(char *const argv[], char *err, size_t errlen)
{
    set_err(err, errlen, "%s", "");
    if (!argv || !argv[0]) {
        set_err(err, errlen, "no command given");
        return NULL;
    }
    struct config *c = config_new();
    if (!c)
        goto nomem;
    if (!(c->path = strdup("(exec)")))
        goto nomem;
    if (!(c->dir = getcwd(NULL, 0))) {
        set_err(err, errlen, "cannot get the current directory: %s", strerror(errno));
        config_free(c);
        return NULL;
    }
    if (!(c->machines = calloc(1, sizeof *c->machines)))
        goto nomem;
    c->nmachines = 1;
    struct machine_conf *m = &c->machines[0];
    if (!(m->name = strdup("main")) || !(m->command = shell_join(argv)))
        goto nomem;
    snprintf(m->address, sizeof m->address, "10.0.0.1");
    return c;

nomem:
    set_err(err, errlen, "out of memory");
    config_free(c);
    return NULL;
}
