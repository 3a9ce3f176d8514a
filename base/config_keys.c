/* cluster.conf's keys: one table of every key of every section (its type,
 * its field, whether the section needs it), and what the end of a section
 * checks with it. config.c reads lines and sections and hands each
 * "name = value" here. A new key is a row in keys[] (and a reader below
 * if no type fits). */
#include "base/config_parser.h"
#include "base/netfaults.h"
#include "base/xalloc.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 1024

struct key;
/* A key's type: reads value into the key's field of obj, the current
 * section's struct (section_object). 1, or parser_fail()'s 0. */
typedef int key_reader(struct parser *p, const struct key *k, void *obj, const char *value);
static key_reader read_duration, read_positive, read_signed, read_range, read_signed_range, read_positive_range,
    read_bool, read_string, read_env, read_disk, read_drift, read_address, read_cpus, read_memory, read_epoch,
    read_choice, read_kind, read_span, read_targets, read_sides, read_links, read_percent, read_percent_range,
    read_link_percent, read_partition_every, read_heal, read_partition_sides, read_seed, read_warm;

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
    const char *const *names;   /* read_choice: the values, in the order of the enum they name */
    size_t nnames;
} keys[] = {
#define AT(type, field) .off = offsetof(type, field), .size = sizeof ((type *)0)->field
#define PAIR(type, lo) .off = offsetof(type, lo), .size = 2 * sizeof ((type *)0)->lo    /* lo, hi */
#define LINE(type, field) .line_off = offsetof(type, field) + 1
#define CHOICES(names_) .names = (names_), .nnames = sizeof (names_) / sizeof *(names_)
    { SEC_SIMULATION, "duration", read_positive, AT(struct config, duration_ns) },
    { SEC_SIMULATION, "quantum", read_positive, AT(struct config, quantum_ns) },
    { SEC_SIMULATION, "cpus", read_cpus, AT(struct config, cpus) },
    { SEC_SIMULATION, "memory", read_memory, AT(struct config, memory_bytes) },
    { SEC_SIMULATION, "spin_limit", read_positive, AT(struct config, spin_limit_ns) },
    { SEC_SIMULATION, "strict_names", read_bool, AT(struct config, strict_names) },
    { SEC_SIMULATION, "epoch", read_epoch, AT(struct config, epoch_s) },
    { SEC_SIMULATION, "tsc", read_choice, AT(struct config, tsc), CHOICES(tsc_mode_names) },
    { SEC_SIMULATION, "cpuid", read_choice, AT(struct config, cpuid), CHOICES(cpuid_mode_names) },
    { SEC_SIMULATION, "clock_reads", read_choice, AT(struct config, clock_reads), CHOICES(clock_reads_names) },
    { SEC_SIMULATION, "command_shell", read_choice, AT(struct config, command_shell), CHOICES(command_shell_names) },
    { SEC_SIMULATION, "warm_start", read_warm, AT(struct config, warm_start_ns), LINE(struct config, warm_start_line) },
    { SEC_SIMULATION, "warm_seed", read_seed, AT(struct config, warm_seed) },
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

_Static_assert(NKEYS <= CONFIG_MAX_KEYS, "a struct keyset holds CONFIG_MAX_KEYS keys");

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

/* --------------------------------------------------------------- parser */

/* Records the first error; returns 0 (an inih handler's "error"). */
int parser_fail(struct parser *p, int line, const char *fmt, ...)
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

struct machine_conf *parser_machine(struct parser *p)
{
    if (p->section == SEC_DEFAULTS)
        return &p->defaults;
    return &p->c->machines[p->c->nmachines - 1];
}

const char *parser_label(struct parser *p, char *buf, size_t size)
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
        snprintf(buf, size, "[machine %s]", parser_machine(p)->name);
        return buf;
    }
}

/* ------------------------------------------------------------ key types */

/* The field of obj that key k is stored in. */
#define FIELD(type, k, obj) ((type *)((char *)(obj) + (k)->off))

static int duration_into(struct parser *p, uint64_t *out, const char *name, const char *value, bool positive)
{
    if (parse_duration(value, out) < 0)
        return parser_fail(p, p->lineno, "bad duration \"%s\" (use ns, us, ms, s, m or h)", value);
    if (positive && *out == 0)
        return parser_fail(p, p->lineno, "%s must be greater than 0", name);
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
        return parser_fail(p, p->lineno, "bad duration \"%s\" (use ns, us, ms, s, m or h, optionally negative)", value);
    return 1;
}

/* LOW..HIGH into two fields in a row: signed, at least 0, or above 0. */
static int range_into(struct parser *p, const struct key *k, void *obj, const char *value, int64_t min)
{
    int64_t lo, hi;
    if (parse_range(value, &lo, &hi) < 0 || lo < (min > 0 ? 0 : min))
        return parser_fail(p, p->lineno, "bad range \"%s\" (use DURATION or LOW..HIGH, such as 1s..5s)", value);
    if (lo < min)
        return parser_fail(p, p->lineno, "%s must be greater than 0", k->name);
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
        return parser_fail(p, p->lineno, "bad boolean \"%s\" (use true or false)", value);
    return 1;
}

static int read_string(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (!(*FIELD(char *, k, obj) = strdup(value)))
        return parser_fail(p, p->lineno, "out of memory");
    return 1;
}

static int read_env(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char label[MAX_MACHINE_NAME + 16];
    struct machine_conf *m = obj;
    size_t n = ident_len(value);
    (void)k;
    if (n == 0 || value[n] != '=')
        return parser_fail(p, p->lineno, "bad env \"%s\" (use NAME=VALUE, NAME made of letters, digits "
                    "and '_', not starting with a digit)", value);
    for (size_t i = 0; i < m->nenv; i++)
        if (strncmp(m->env[i], value, n + 1) == 0)
            return parser_fail(p, p->lineno, "duplicate env \"%.*s\" in %s", (int)n, value,
                        parser_label(p, label, sizeof label));
    GROW_ONE(m->env, m->nenv);
    if (!(m->env[m->nenv] = strdup(value)))
        return parser_fail(p, p->lineno, "out of memory");
    m->nenv++;
    return 1;
}

static int read_disk(struct parser *p, const struct key *k, void *obj, const char *value)
{
    uint64_t *bytes = FIELD(uint64_t, k, obj);
    if (parse_size(value, bytes) < 0 || *bytes < MIN_DISK_BYTES || *bytes > MAX_DISK_BYTES)
        return parser_fail(p, p->lineno, "bad disk size \"%s\" (use 16M to 1T: bytes, or a number with K, M, G or T)",
                    value);
    return 1;
}

static int read_drift(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char *end;
    double ppm = strtod(value, &end);
    while (is_blank(*end))
        end++;
    if (end == value || (*end && strcmp(end, "ppm")) || ppm <= -100000 || ppm >= 100000)
        return parser_fail(p, p->lineno, "bad clock_drift \"%s\" (use ppm between -100000 and 100000, e.g. 250ppm)",
                    value);
    *FIELD(int64_t, k, obj) = (int64_t)(ppm * 1000);
    return 1;
}

static int read_address(struct parser *p, const struct key *k, void *obj, const char *value)
{
    struct in_addr a;
    if (inet_pton(AF_INET, value, &a) != 1)
        return parser_fail(p, p->lineno, "bad address \"%s\" (use an IPv4 address such as 10.0.0.7)", value);
    memcpy(FIELD(char, k, obj), value, strlen(value) + 1);     /* at most 15 characters */
    return 1;
}

static int read_cpus(struct parser *p, const struct key *k, void *obj, const char *value)
{
    const char *s = value;
    uint64_t v;
    if (parse_uint(&s, &v) < 0 || *s || v < 1 || v > MAX_CPUS)
        return parser_fail(p, p->lineno, "bad cpus \"%s\" (use an integer from 1 to %d)", value, MAX_CPUS);
    *FIELD(unsigned, k, obj) = (unsigned)v;
    return 1;
}

static int read_memory(struct parser *p, const struct key *k, void *obj, const char *value)
{
    uint64_t *bytes = FIELD(uint64_t, k, obj);
    if (parse_size(value, bytes) < 0 || *bytes == 0)
        return parser_fail(p, p->lineno, "bad size \"%s\" (use bytes, or a number with K, M, G or T)", value);
    return 1;
}

static int read_epoch(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_epoch(value, FIELD(int64_t, k, obj)) < 0)
        return parser_fail(p, p->lineno, "bad epoch \"%s\" (use a UTC date from 1970 to 2200, YYYY-MM-DD or "
                    "YYYY-MM-DDTHH:MM:SSZ)", value);
    return 1;
}

/* A time; `network`: before the first call that makes a simulated socket;
 * or `output MACHINE TEXT`: once MACHINE has printed TEXT. */
static int read_warm(struct parser *p, const struct key *k, void *obj, const char *value)
{
    struct config *c = obj;
    c->warm_network = !strcmp(value, "network");
    c->warm_start_ns = 0;
    free(c->warm_machine);
    free(c->warm_text);
    c->warm_machine = c->warm_text = NULL;
    if (c->warm_network)
        return 1;
    if (!strncmp(value, "output", 6) && is_blank(value[6])) {
        const char *name = value + 7;
        while (is_blank(*name))
            name++;
        size_t nl = strcspn(name, " \t");
        const char *text = name + nl;
        while (is_blank(*text))
            text++;
        if (!nl || !*text)
            return parser_fail(p, p->lineno, "bad %s \"%s\" (use output MACHINE TEXT)", k->name, value);
        if (!(c->warm_machine = strndup(name, nl)) || !(c->warm_text = strdup(text)))
            abort();
        return 1;
    }
    uint64_t ns;
    if (parse_duration(value, &ns) < 0 || ns == 0)
        return parser_fail(p, p->lineno, "bad %s \"%s\" (use a duration greater than 0 such as 2s, network, or "
                           "output MACHINE TEXT)",
                           k->name, value);
    *FIELD(uint64_t, k, obj) = ns;
    return 1;
}

static int read_seed(struct parser *p, const struct key *k, void *obj, const char *value)
{
    const char *s = value;
    if (parse_uint(&s, FIELD(uint64_t, k, obj)) < 0 || *s)
        return parser_fail(p, p->lineno, "bad %s \"%s\" (use an integer from 0 to 18446744073709551615)", k->name,
                           value);
    return 1;
}

const char *const tsc_mode_names[3] = { "auto", "trap", "rewrite" };

int tsc_mode_parse(const char *s, enum tsc_mode *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, tsc_mode_names[i])) { *out = (enum tsc_mode)i; return 0; }
    return -1;
}

const char *const cpuid_mode_names[4] = { "auto", "trap", "rewrite", "host" };

int cpuid_mode_parse(const char *s, enum cpuid_mode *out)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, cpuid_mode_names[i])) { *out = (enum cpuid_mode)i; return 0; }
    return -1;
}

/* A key whose value is one of its names: the field (an enum) takes the
 * name's index. */
_Static_assert(sizeof(enum tsc_mode) == sizeof(int) && sizeof(enum cpuid_mode) == sizeof(int) &&
                   sizeof(enum clock_reads) == sizeof(int) &&
                   sizeof(enum command_shell) == sizeof(int),
               "read_choice writes an int");
static int read_choice(struct parser *p, const struct key *k, void *obj, const char *value)
{
    for (size_t i = 0; i < k->nnames; i++)
        if (!strcmp(value, k->names[i])) {
            *FIELD(int, k, obj) = (int)i;
            return 1;
        }
    char use[160] = "";
    for (size_t i = 0, n = 0; i < k->nnames && n < sizeof use; i++)
        n += (size_t)snprintf(use + n, sizeof use - n, "%s%s", i == 0 ? "" : i + 1 == k->nnames ? " or " : ", ",
                              k->names[i]);
    return parser_fail(p, p->lineno, "bad %s \"%s\" (use %s)", k->name, value, use);
}

const char *const clock_reads_names[2] = { "stop", "page" };

int clock_reads_parse(const char *s, enum clock_reads *out)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(s, clock_reads_names[i])) { *out = (enum clock_reads)i; return 0; }
    return -1;
}

static int read_kind(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (fault_kind_parse(value, FIELD(enum fault_kind, k, obj)) < 0)
        return parser_fail(p, p->lineno, "fault kind \"%s\" is not supported yet (supported: %s)", value,
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
        return parser_fail(p, p->lineno, "out of memory");
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
        return parser_fail(p, line, "%s", msg);
    return 1;
}

/* A burst's machines: each named once. */
static int read_links(struct parser *p, const struct key *k, void *obj, const char *value)
{
    struct fault_conf *f = obj;
    (void)k;
    if (netconf_words(value, &f->machines, &f->nmachines) < 0)
        return parser_fail(p, p->lineno, "out of memory");
    for (size_t i = 0; i < f->nmachines; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(f->machines[i], f->machines[j]))
                return parser_fail(p, p->lineno, "machine \"%s\" is named twice", f->machines[i]);
    return 1;
}

static int read_percent(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_percent_ppm(value, FIELD(uint32_t, k, obj)) < 0)
        return parser_fail(p, p->lineno, "bad percentage \"%s\" (use 0%% to 100%%, such as 30%%)", value);
    return 1;
}

static int read_percent_range(struct parser *p, const struct key *k, void *obj, const char *value)
{
    uint32_t *lohi = FIELD(uint32_t, k, obj);
    if (parse_percent_range(value, &lohi[0], &lohi[1]) < 0)
        return parser_fail(p, p->lineno, "bad percentage \"%s\" (use 0%% to 100%%, such as 30%% or 10%%..50%%)", value);
    return 1;
}

/* [network] and [link]'s loss, duplicate and reorder. */
static int read_link_percent(struct parser *p, const struct key *k, void *obj, const char *value)
{
    if (parse_percent_ppm(value, FIELD(uint32_t, k, obj)) < 0)
        return parser_fail(p, p->lineno, "bad percentage \"%s\" (use 0%% to 100%%, such as 1%% or 0.01%%)", value);
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
        return parser_fail(p, p->lineno, "duration must be greater than 0 (leave it out for a partition that never heals)");
    return 1;
}

/* A [partition]'s sides: names, until machines are known (netconf.c). */
static int read_partition_sides(struct parser *p, const struct key *k, void *obj, const char *value)
{
    char msg[512];
    int line;
    (void)k, (void)obj;
    if ((line = netconf_partition_sides(&p->net, value, p->lineno, msg, sizeof msg)))
        return parser_fail(p, line, "%s", msg);
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
        return parser_machine(p);
    }
}

static int unknown_key(struct parser *p, const char *name)
{
    char label[2 * MAX_MACHINE_NAME + 16], takes[256] = "";
    if (p->section != SEC_DEFAULTS)
        return parser_fail(p, p->lineno, "unknown key \"%s\" in %s", name, parser_label(p, label, sizeof label));
    size_t n = 0, len = 0;
    for (size_t i = 0; i < NKEYS; i++) n += (keys[i].sections & SEC_DEFAULTS) != 0;
    for (size_t i = 0, k = 0; i < NKEYS; i++)
        if (keys[i].sections & SEC_DEFAULTS)
            len += (size_t)snprintf(takes + len, sizeof takes - len, "%s%s", k++ == 0 ? "" : k == n ? " and " : ", ",
                                    keys[i].name);
    return parser_fail(p, p->lineno, "key \"%s\" cannot be in [defaults] (it takes %s; set the others in each [machine])",
                name, takes);
}

/* One "name = value" of the current section. */
int keys_read(struct parser *p, const char *name, const char *value)
{
    int line = p->lineno;
    const struct key *k = key_named(p->section, name);
    if (!k)
        return unknown_key(p, name);
    if (keyset_has(&p->seen, k) && !(k->flags & REPEATS))
        return parser_fail(p, line, "duplicate key \"%s\"", name);
    keyset_add(&p->seen, k);
    if (*value == '\0')
        return parser_fail(p, line, "key \"%s\" has no value", name);
    void *obj = section_object(p);
    if (k->line_off)
        *(int *)((char *)obj + k->line_off - 1) = line;
    return k->read(p, k, obj, value);
}

/* Checks the section that just ended: its required keys, and a fault's
 * keys against its kind; keeps the keys a machine and a link set. */
int keys_end_section(struct parser *p)
{
    char msg[512];
    struct net_conf *net = &p->c->net;
    for (size_t i = 0; i < NKEYS; i++) {
        if (!(keys[i].sections & p->section) || !(keys[i].flags & REQUIRED) || keyset_has(&p->seen, &keys[i]))
            continue;
        if (p->section == SEC_MACHINE)
            return parser_fail(p, parser_machine(p)->line, "machine \"%s\" has no %s", parser_machine(p)->name, keys[i].name);
        if (p->section == SEC_PARTITION)
            return parser_fail(p, net->partitions[net->npartitions - 1].line, "[partition] has no %s", keys[i].name);
        struct fault_conf *f = &p->c->faults[p->c->nfaults - 1];
        return parser_fail(p, f->line, "fault \"%s\" has no %s", f->name, keys[i].name);
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
            return parser_fail(p, f->line, "%s", msg);
    }
    return 1;
}

void keys_free(struct parser *p)
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
        return parser_fail(p, m->line, "out of memory");
    for (size_t i = 0; i < d->nenv; i++) {
        size_t len = strcspn(d->env[i], "=") + 1;
        bool own = false;
        for (size_t j = 0; j < m->nenv && !own; j++)
            own = strncmp(m->env[j], d->env[i], len) == 0;
        if (!own && !(env[n++] = strdup(d->env[i]))) {
            for (size_t k = 0; k + 1 < n; k++) free(env[k]);
            free(env);
            return parser_fail(p, m->line, "out of memory");
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

/* Once every section is read: [defaults] into the machines, [network]
 * into the links. */
int keys_inherit(struct parser *p)
{
    inherit_links(p);
    return apply_defaults(p);
}
