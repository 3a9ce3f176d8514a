/* Unit tests for base/config.c: cluster.conf parsing, durations, sizes
 * and the config of `dsim exec`; base/fault.c: the fault kinds. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/netconf.h"
#include "tests/unit/suite.h"

#define S 1000000000ULL

static char tmpdir[1024];
static char conf[PATH_MAX];            /* tmpdir/cluster.conf */
static char err[1024];

static void setup(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/dsim-test-config.XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(conf, sizeof conf, "%s/cluster.conf", tmpdir);
}

static void teardown(void)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmpdir);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Loads TEXT as cluster.conf; it must succeed. */
#define LOAD_OK(text) load_ok(__LINE__, (text), strlen(text))
static struct config *load_ok(int line, const char *text, size_t len)
{
    write_file(conf, text, len);
    err[0] = '\0';
    struct config *c = config_load(conf, err, sizeof err);
    ck_assert_msg(c != NULL, "line %d: config_load failed: %s", line, err);
    return c;
}

/* Loads LEN bytes of TEXT; it must fail with "CONF:" followed by FMT. */
#define EXPECT_ERR(text, ...) expect_err(__LINE__, (text), strlen(text), __VA_ARGS__)
/* For a string literal holding NUL bytes. */
#define EXPECT_ERR_LIT(lit, ...) expect_err(__LINE__, (lit), sizeof(lit) - 1, __VA_ARGS__)
static void expect_err(int line, const char *text, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void expect_err(int line, const char *text, size_t len, const char *fmt, ...)
{
    char want[2048];
    va_list ap;
    int n = snprintf(want, sizeof want, "%s:", conf);
    va_start(ap, fmt);
    vsnprintf(want + n, sizeof want - (size_t)n, fmt, ap);
    va_end(ap);

    write_file(conf, text, len);
    strcpy(err, "(untouched)");
    struct config *c = config_load(conf, err, sizeof err);
    ck_assert_msg(c == NULL, "line %d: config_load succeeded, wanted \"%s\"", line, want);
    ck_assert_msg(strcmp(err, want) == 0, "line %d:\n got \"%s\"\nwant \"%s\"", line, err,
                  want);
}

static char *real_tmpdir(void)
{
    char *r = realpath(tmpdir, NULL);
    ck_assert_ptr_nonnull(r);
    return r;
}

/* ------------------------------------------------------------ valid files */

START_TEST(test_full_config)
{
    const char *text =
        "# a cluster for the tests\n"                           /* 1 */
        "[simulation]\n"                                        /* 2 */
        "duration = 1m            # one minute\n"               /* 3 */
        "quantum = 250ns\n"                                     /* 4 */
        "cpus = 4 # inline comment\n"                           /* 5 */
        "memory = 512M\n"                                       /* 6 */
        "\n"                                                    /* 7 */
        "[machine db]\n"                                        /* 8 */
        "command = ./db --port 5432\n"                          /* 9 */
        "start = 0\n"                                           /* 10 */
        "env = PGDATA=/var/db\n"                                /* 11 */
        "env = COLOR=#fff # '#' after '=' is no comment\n"      /* 12 */
        "env = EMPTY=\n"                                        /* 13 */
        "env = _X1=a=b c\n"                                     /* 14 */
        "daemon = false\n"                                      /* 15 */
        "; a comment\n"                                         /* 16 */
        "[machine web-1.a_B]   # the front end\n"               /* 17 */
        "  command = sh -c 'echo hi;echo there'  # indented\n"  /* 18 */
        "\tstart = 1.5s\n"                                      /* 19 */
        "  daemon = yes\n"                                      /* 20 */
        "\n"                                                    /* 21 */
        "[check]\n"                                             /* 22 */
        "command = ./check.sh --all\n";                         /* 23 */
    struct config *c = LOAD_OK(text);
    char *dir = real_tmpdir();

    ck_assert_str_eq(c->path, conf);
    ck_assert_str_eq(c->dir, dir);
    ck_assert_uint_eq(c->duration_ns, 60 * S);
    ck_assert_uint_eq(c->quantum_ns, 250);
    ck_assert_uint_eq(c->cpus, 4);
    ck_assert_uint_eq(c->memory_bytes, 512ULL << 20);
    ck_assert_uint_eq(c->nmachines, 2);

    struct machine_conf *m = &c->machines[0];
    ck_assert_str_eq(m->name, "db");
    ck_assert_str_eq(m->command, "./db --port 5432");
    ck_assert_uint_eq(m->start_ns, 0);
    ck_assert(!m->daemon);
    ck_assert_int_eq(m->line, 8);
    ck_assert_uint_eq(m->nenv, 4);
    ck_assert_str_eq(m->env[0], "PGDATA=/var/db");
    ck_assert_str_eq(m->env[1], "COLOR=#fff");
    ck_assert_str_eq(m->env[2], "EMPTY=");
    ck_assert_str_eq(m->env[3], "_X1=a=b c");

    m = &c->machines[1];
    ck_assert_str_eq(m->name, "web-1.a_B");
    ck_assert_str_eq(m->command, "sh -c 'echo hi;echo there'");
    ck_assert_uint_eq(m->start_ns, 1500000000ULL);
    ck_assert(m->daemon);
    ck_assert_int_eq(m->line, 17);
    ck_assert_uint_eq(m->nenv, 0);

    ck_assert_str_eq(c->check_command, "./check.sh --all");
    free(dir);
    config_free(c);
}
END_TEST

/* Per-machine clocks and [fault NAME] sections. */
START_TEST(test_clocks_and_faults)
{
    struct config *c = LOAD_OK("[machine a]\ncommand = x\nclock_offset = -1.5s\nclock_drift = -250ppm\n"
                               "[fault j]\nkind = clock_jump\nat = 2m\nmachine = a\nby = 30s\n");
    ck_assert_int_eq(c->machines[0].clock_offset_ns, -1500000000LL);
    ck_assert_int_eq(c->machines[0].clock_drift_ppb, -250000);
    ck_assert_uint_eq(c->nfaults, 1);
    ck_assert_str_eq(c->faults[0].name, "j");
    ck_assert_uint_eq(c->faults[0].at_ns, 120000000000ULL);
    ck_assert_str_eq(c->faults[0].machine, "a");
    ck_assert_int_eq(c->faults[0].by_ns, 30000000000LL);
    config_free(c);
    EXPECT_ERR("[machine a]\ncommand = x\nclock_drift = 10%\n",
               "3: bad clock_drift \"10%%\" (use ppm between -100000 and 100000, e.g. 250ppm)");
    EXPECT_ERR("[machine a]\ncommand = x\nclock_offset = --5s\n",
               "3: bad duration \"--5s\" (use ns, us, ms, s, m or h, optionally negative)");
    EXPECT_ERR("[machine a]\ncommand = x\n[fault j]\nkind = boom\n",
               "4: fault kind \"boom\" is not supported yet (supported: clock_jump, crash, restart, pause, "
               "partition, loss, duplicate)");
    EXPECT_ERR("[machine a]\ncommand = x\n[fault j]\nkind = clock_jump\nat = 1s\nby = 1s\n",
               "3: fault \"j\" has no machine");
    EXPECT_ERR("[machine a]\ncommand = x\n[fault j]\nkind = clock_jump\nat = 1s\nmachine = b\nby = 1s\n",
               "6: fault \"j\" names no machine of this file: \"b\"");
    EXPECT_ERR("[machine a]\ncommand = x\n[fault]\n", "3: fault section needs a name (use [fault NAME])");
    EXPECT_ERR("[simulation]\nduration = 2s\n[machine a]\ncommand = x\nstart = 2s\n",
               "5: machine \"a\" starts at or after the end of the run ([simulation] duration)");
    EXPECT_ERR("[machine a]\ncommand = x\n[fault j]\nkind = clock_jump\nat = 1s\nmachine = a\nby = 1s\n[fault j]\n",
               "8: duplicate fault \"j\"");
}
END_TEST

/* The network fault kinds of [fault NAME], and of [chaos]. */
#define ABC "[machine a]\ncommand = x\n[machine b]\ncommand = x\n[machine c]\ncommand = x\n"
START_TEST(test_network_faults)
{
    struct config *c = LOAD_OK(ABC
        "[fault cut]\nkind = partition\nat = 1s\nduration = 2s\nsides = a | b c\none_way = true\n"
        "[fault iso]\nkind = partition\nat = 3s\nmachine = b\n"
        "[fault lossy]\nkind = loss\nat = 1s\nduration = 500ms\nrate = 30%\nmachines = a, c\n"
        "[fault dup]\nkind = duplicate\nat = 2s\nrate = 0.5%\n"
        "[chaos]\nmachines = a b\npartition = 5s\npartition_for = 2s\npartition_one_way = true\n"
        "loss = 10s\nloss_for = 1s..2s\nloss_rate = 10%..20%\nduplicate = 7s\n");
    ck_assert_uint_eq(c->nfaults, 4);
    const struct fault_conf *f = &c->faults[0];
    ck_assert_int_eq(f->kind, FAULT_PARTITION);
    ck_assert_ptr_null(f->machine);
    ck_assert_uint_eq(f->nmachines, 3);
    ck_assert_uint_eq(f->nleft, 1);
    ck_assert_str_eq(f->machines[0], "a");
    ck_assert_str_eq(f->machines[2], "c");
    ck_assert(f->one_way);
    ck_assert(f->has_duration);
    ck_assert_uint_eq(f->duration_ns, 2 * S);
    f = &c->faults[1];                  /* machine = b: b against the others */
    ck_assert_ptr_null(f->machine);
    ck_assert_uint_eq(f->nleft, 1);
    ck_assert_uint_eq(f->nmachines, 3);
    ck_assert_str_eq(f->machines[0], "b");
    ck_assert_str_eq(f->machines[1], "a");
    ck_assert_str_eq(f->machines[2], "c");
    ck_assert(!f->one_way);
    ck_assert(!f->has_duration);
    f = &c->faults[2];
    ck_assert_int_eq(f->kind, FAULT_LOSS);
    ck_assert_uint_eq(f->rate_ppm, 300000);
    ck_assert_uint_eq(f->nmachines, 2);
    ck_assert_str_eq(f->machines[1], "c");
    f = &c->faults[3];
    ck_assert_int_eq(f->kind, FAULT_DUPLICATE);
    ck_assert_uint_eq(f->rate_ppm, 5000);
    ck_assert_uint_eq(f->nmachines, 0);     /* every link */
    const struct chaos_conf *ch = c->chaos;
    ck_assert_uint_eq(ch->partition_every, 5 * S);
    ck_assert_uint_eq(ch->partition_lo, 2 * S);
    ck_assert_uint_eq(ch->partition_hi, 2 * S);
    ck_assert(ch->partition_one_way);
    ck_assert_uint_eq(ch->loss_every, 10 * S);
    ck_assert_uint_eq(ch->loss_lo, 1 * S);
    ck_assert_uint_eq(ch->loss_hi, 2 * S);
    ck_assert_uint_eq(ch->loss_rate_lo, 100000);
    ck_assert_uint_eq(ch->loss_rate_hi, 200000);
    ck_assert_uint_eq(ch->dup_every, 7 * S);
    ck_assert_uint_eq(ch->dup_lo, 1 * S);   /* defaults */
    ck_assert_uint_eq(ch->dup_hi, 5 * S);
    ck_assert_uint_eq(ch->dup_rate_lo, 500000);
    ck_assert_uint_eq(ch->dup_rate_hi, 500000);
    config_free(c);
}
END_TEST

START_TEST(test_err_network_faults)
{
    /* Line 7 is the [fault j] header. */
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nside = a | b\n", "10: unknown key \"side\" in [fault j]");
    EXPECT_ERR(ABC "[fault j]\nkind = crash\nat = 1s\nmachine = a\nsides = a | b\n",
               "7: fault \"j\": sides is only for partition");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nsides = a | b\nrate = 5%\n",
               "7: fault \"j\": rate is only for loss and duplicate");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nrate = 5%\none_way = true\n",
               "7: fault \"j\": one_way is only for partition");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\n",
               "7: fault \"j\" has no sides (or machine, to cut one machine off)");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nmachine = a\nsides = a | b\n",
               "7: fault \"j\": give sides or machine, not both");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nmachine = a\nrate = 1%\n",
               "7: fault \"j\": a loss burst hits links: use machines, not machine");
    EXPECT_ERR(ABC "[fault j]\nkind = duplicate\nat = 1s\n", "7: fault \"j\" has no rate");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nrate = 150%\n",
               "10: bad percentage \"150%%\" (use 0%% to 100%%, such as 30%%)");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nrate = 1%\nduration = 0\n",
               "7: fault \"j\": duration must be greater than 0 (leave it out for a loss that lasts to the end "
               "of the run)");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nsides = a | z\n",
               "7: fault \"j\" names no machine of this file: \"z\"");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nmachine = z\n",
               "7: fault \"j\" names no machine of this file: \"z\"");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nrate = 1%\nmachines = a a\n",
               "11: machine \"a\" is named twice");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nsides = a | a\n",
               "10: bad sides \"a | a\": machine \"a\" is on both sides");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nsides = a | b\nsides = a | c\n",
               "11: duplicate key \"sides\"");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\none_way = maybe\n",
               "10: bad boolean \"maybe\" (use true or false)");
    EXPECT_ERR("[machine a]\ncommand = x\n[fault j]\nkind = partition\nat = 1s\nmachine = a\n",
               "3: fault \"j\": no other machine to cut \"a\" off from");
    /* [chaos] */
    EXPECT_ERR(ABC "[chaos]\npartition = 0\n", "8: partition must be greater than 0");
    EXPECT_ERR(ABC "[chaos]\nloss_rate = 50%..10%\n",
               "8: bad percentage \"50%%..10%%\" (use 0%% to 100%%, such as 30%% or 10%%..50%%)");
    EXPECT_ERR(ABC "[chaos]\nduplicate_for = 0..1s\n", "8: duplicate_for must be greater than 0");
    EXPECT_ERR(ABC "[chaos]\npartition_every = 1s\n", "8: unknown key \"partition_every\" in [chaos]");
    EXPECT_ERR(ABC "[chaos]\nmachines = b\npartition = 1s\n",
               "7: [chaos] partition needs two machines or more to split");
    EXPECT_ERR(ABC "[chaos]\nloss = 1s\nloss = 2s\n", "9: duplicate key \"loss\"");
    EXPECT_ERR(ABC "[chaos]\nmachines = a b a\nduplicate = 1s\n", "7: [chaos] names machine \"a\" twice");
}
END_TEST

/* Addresses: 10.0.0.N in order unless given; bad or duplicate ones refused. */
START_TEST(test_addresses)
{
    struct config *c = LOAD_OK("[machine a]\ncommand = x\n[machine b]\ncommand = x\naddress = 192.168.7.9\n"
                               "[machine c]\ncommand = x\n");
    ck_assert_str_eq(c->machines[0].address, "10.0.0.1");
    ck_assert_str_eq(c->machines[1].address, "192.168.7.9");
    ck_assert_str_eq(c->machines[2].address, "10.0.0.3");
    config_free(c);
    EXPECT_ERR("[machine a]\ncommand = x\naddress = 10.0.0.300\n",
               "3: bad address \"10.0.0.300\" (use an IPv4 address such as 10.0.0.7)");
    EXPECT_ERR("[machine a]\ncommand = x\n[machine b]\ncommand = x\naddress = 10.0.0.1\n",
               "3: machines \"a\" and \"b\" have the same address 10.0.0.1");
}
END_TEST

/* A ';' is shell text in a command, never a comment. */
START_TEST(test_semicolon_in_command)
{
    struct config *c = LOAD_OK("[machine a]\ncommand = echo a ; echo b   # two\n");
    ck_assert_str_eq(c->machines[0].command, "echo a ; echo b");
    config_free(c);
}
END_TEST

START_TEST(test_defaults)
{
    struct config *c = LOAD_OK("[machine a]\ncommand = ./a\n");
    ck_assert_uint_eq(c->duration_ns, 30 * S);
    ck_assert_uint_eq(c->quantum_ns, 10000);
    ck_assert_uint_eq(c->cpus, 2);
    ck_assert_uint_eq(c->memory_bytes, 4ULL << 30);
    ck_assert_uint_eq(c->nmachines, 1);
    ck_assert_str_eq(c->machines[0].name, "a");
    ck_assert_str_eq(c->machines[0].command, "./a");
    ck_assert_uint_eq(c->machines[0].start_ns, 0);
    ck_assert(!c->machines[0].daemon);
    ck_assert_uint_eq(c->machines[0].nenv, 0);
    ck_assert_int_eq(c->machines[0].line, 1);
    ck_assert_ptr_null(c->check_command);
    ck_assert(!c->strict_names);
    ck_assert_int_eq(c->tsc, TSC_AUTO);
    ck_assert_int_eq(c->clock_reads, CLOCK_READS_PAGE);
    ck_assert_int_eq(c->command_shell, COMMAND_SHELL_AUTO);
    config_free(c);
    /* Each setting, and the field it gives. */
    static const struct { const char *line; size_t off; int want; } modes[] = {
        { "clock_reads = page", offsetof(struct config, clock_reads), CLOCK_READS_PAGE },
        { "clock_reads = stop", offsetof(struct config, clock_reads), CLOCK_READS_STOP },
        { "command_shell = auto", offsetof(struct config, command_shell), COMMAND_SHELL_AUTO },
        { "command_shell = always", offsetof(struct config, command_shell), COMMAND_SHELL_ALWAYS },
    };
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        char text[128];
        snprintf(text, sizeof text, "[simulation]\n%s\n[machine a]\ncommand = ./a\n", modes[i].line);
        c = LOAD_OK(text);
        int got;
        memcpy(&got, (char *)c + modes[i].off, sizeof got);
        ck_assert_msg(got == modes[i].want, "%s: %d", modes[i].line, got);
        config_free(c);
    }

    c = LOAD_OK("[machine a]\ncommand = ./a\ndisk = 64M\n[machine b]\ncommand = ./b\n");
    ck_assert_uint_eq(c->machines[0].disk_bytes, 64ULL << 20);
    ck_assert_uint_eq(c->machines[1].disk_bytes, 0);       /* DEFAULT_DISK_BYTES */
    config_free(c);
    c = LOAD_OK("[simulation]\ntsc = rewrite\n[machine a]\ncommand = ./a\n");
    ck_assert_int_eq(c->tsc, TSC_REWRITE);
    config_free(c);
    c = LOAD_OK("[simulation]\ntsc = trap\n[machine a]\ncommand = ./a\n");
    ck_assert_int_eq(c->tsc, TSC_TRAP);
    ck_assert_int_eq(c->cpuid, CPUID_AUTO);
    config_free(c);
    c = LOAD_OK("[simulation]\ncpuid = host\n[machine a]\ncommand = ./a\n");
    ck_assert_int_eq(c->cpuid, CPUID_HOST);
    config_free(c);
    c = LOAD_OK("[simulation]\ncpuid = rewrite\n[machine a]\ncommand = ./a\n");
    ck_assert_int_eq(c->cpuid, CPUID_REWRITE);
    config_free(c);

    c = LOAD_OK("[simulation]\nstrict_names = true\n[machine a]\ncommand = ./a\n");
    ck_assert(c->strict_names);
    ck_assert_int_eq(c->epoch_s, 1735689600);      /* 2025-01-01T00:00:00Z by default */
    config_free(c);

    /* The world's wall clock can start at another date. */
    c = LOAD_OK("[simulation]\nepoch = 2030-06-01\n[machine a]\ncommand = ./a\n");
    ck_assert_int_eq(c->epoch_s, 1906502400);
    config_free(c);
    c = LOAD_OK("[simulation]\nepoch = 2024-02-29T12:30:15Z\n[machine a]\ncommand = ./a\n");
    ck_assert_int_eq(c->epoch_s, 1709209815);
    config_free(c);

    /* An empty [simulation] and an empty [check] change nothing. */
    c = LOAD_OK("[simulation]\n[check]\n[machine a]\ncommand = ./a\n");
    ck_assert_uint_eq(c->duration_ns, 30 * S);
    ck_assert_ptr_null(c->check_command);
    ck_assert_int_eq(c->machines[0].line, 3);
    config_free(c);
}
END_TEST

/* [defaults]: every machine takes its keys unless it sets its own; env
 * merges per variable (the defaults' first, then the machine's own). */
START_TEST(test_defaults_section)
{
    struct config *c = LOAD_OK("[machine a]\ncommand = ./a\nenv = B=mine\nenv = C=3\n"
                               "[defaults]\n"
                               "env = PYTHONDONTWRITEBYTECODE=1\n"
                               "env = B=default\n"
                               "disk = 32M\n"
                               "clock_offset = -2s\n"
                               "clock_drift = 100ppm\n"
                               "[machine b]\ncommand = ./b\ndisk = 64M\nclock_drift = 0\n");
    struct machine_conf *a = &c->machines[0], *b = &c->machines[1];
    ck_assert_uint_eq(a->nenv, 3);
    ck_assert_str_eq(a->env[0], "PYTHONDONTWRITEBYTECODE=1");
    ck_assert_str_eq(a->env[1], "B=mine");
    ck_assert_str_eq(a->env[2], "C=3");
    ck_assert_uint_eq(a->disk_bytes, 32ULL << 20);
    ck_assert_int_eq(a->clock_offset_ns, -2 * (int64_t)S);
    ck_assert_int_eq(a->clock_drift_ppb, 100000);
    ck_assert_uint_eq(b->nenv, 2);
    ck_assert_str_eq(b->env[0], "PYTHONDONTWRITEBYTECODE=1");
    ck_assert_str_eq(b->env[1], "B=default");
    ck_assert_uint_eq(b->disk_bytes, 64ULL << 20);         /* its own */
    ck_assert_int_eq(b->clock_offset_ns, -2 * (int64_t)S);
    ck_assert_int_eq(b->clock_drift_ppb, 0);                /* its own, though 0 */
    config_free(c);

    /* An empty [defaults] changes nothing. */
    c = LOAD_OK("[defaults]\n[machine a]\ncommand = ./a\n");
    ck_assert_uint_eq(c->machines[0].nenv, 0);
    ck_assert_uint_eq(c->machines[0].disk_bytes, 0);
    config_free(c);
}
END_TEST

START_TEST(test_err_defaults)
{
    EXPECT_ERR("[defaults]\nenv = A=1\n[defaults]\n[machine a]\ncommand = x\n",
               "3: duplicate section [defaults]");
    EXPECT_ERR("[defaults]\ncommand = x\n[machine a]\ncommand = x\n",
               "2: key \"command\" cannot be in [defaults] (it takes env, disk, clock_offset and "
               "clock_drift; set the others in each [machine])");
    EXPECT_ERR("[machine a]\ncommand = x\n[defaults]\naddress = 10.0.0.9\n",
               "4: key \"address\" cannot be in [defaults] (it takes env, disk, clock_offset and "
               "clock_drift; set the others in each [machine])");
    EXPECT_ERR("[defaults]\nenv = A=1\nenv = A=2\n[machine a]\ncommand = x\n",
               "3: duplicate env \"A\" in [defaults]");
    EXPECT_ERR("[defaults]\nenv = 1A=b\n[machine a]\ncommand = x\n",
               "2: bad env \"1A=b\" (use NAME=VALUE, NAME made of letters, digits and '_', not "
               "starting with a digit)");
    EXPECT_ERR("[defaults]\ndisk = 1M\n[machine a]\ncommand = x\n",
               "2: bad disk size \"1M\" (use 16M to 1T: bytes, or a number with K, M, G or T)");
    EXPECT_ERR("[defaults]\ndisk = 32M\ndisk = 64M\n[machine a]\ncommand = x\n",
               "3: duplicate key \"disk\"");
    EXPECT_ERR("[defaults]\nclock_drift = fast\n[machine a]\ncommand = x\n",
               "2: bad clock_drift \"fast\" (use ppm between -100000 and 100000, e.g. 250ppm)");
    EXPECT_ERR("[defaults]\nenv =\n[machine a]\ncommand = x\n", "2: key \"env\" has no value");
    EXPECT_ERR("[defaults]\nenv = A=1\n", "1: no machines defined");
}
END_TEST

START_TEST(test_env_repeats_in_order)
{
    struct config *c = LOAD_OK("[machine a]\n"
                               "env = A=1\n"
                               "command = x\n"
                               "env = B=2\n"
                               "env = C=\n"
                               "env = D=x y z\n"
                               "[machine b]\n"
                               "command = y\n"
                               "env = A=other\n");
    ck_assert_uint_eq(c->machines[0].nenv, 4);
    ck_assert_str_eq(c->machines[0].env[0], "A=1");
    ck_assert_str_eq(c->machines[0].env[1], "B=2");
    ck_assert_str_eq(c->machines[0].env[2], "C=");
    ck_assert_str_eq(c->machines[0].env[3], "D=x y z");
    ck_assert_uint_eq(c->machines[1].nenv, 1);
    ck_assert_str_eq(c->machines[1].env[0], "A=other");
    config_free(c);
}
END_TEST

START_TEST(test_daemon_values)
{
    static const struct { const char *v; bool want; } cases[] = {
        { "true", true }, { "yes", true }, { "1", true }, { "TRUE", true }, { "Yes", true },
        { "false", false }, { "no", false }, { "0", false }, { "False", false },
        { "NO", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[machine a]\ncommand = x\ndaemon = %s\n", cases[i].v);
        struct config *c = LOAD_OK(text);
        ck_assert_msg(c->machines[0].daemon == cases[i].want, "daemon = %s", cases[i].v);
        config_free(c);
    }
}
END_TEST

START_TEST(test_syntax_variants)
{
    /* CRLF line ends, a UTF-8 BOM, tabs, UTF-8 text, a ';' without space. */
    struct config *c = LOAD_OK("\xef\xbb\xbf[simulation]\r\n"
                               "cpus\t=\t1024\r\n"
                               "\r\n"
                               "[ machine  a ]\r\n"
                               "command = echo h\xc3\xa9llo \xe2\x9c\x93;echo b\r\n");
    ck_assert_uint_eq(c->cpus, 1024);
    ck_assert_str_eq(c->machines[0].name, "a");
    ck_assert_str_eq(c->machines[0].command, "echo h\xc3\xa9llo \xe2\x9c\x93;echo b");
    ck_assert_int_eq(c->machines[0].line, 4);
    config_free(c);

    /* No newline at the end of the file. */
    c = LOAD_OK("[machine a]\ncommand = x");
    ck_assert_str_eq(c->machines[0].command, "x");
    config_free(c);
}
END_TEST

START_TEST(test_long_lines)
{
    /* inih's own line buffer is 200 bytes: longer lines must still work. */
    char cmd[1001], name[64], text[4096];
    for (int i = 0; i < 1000; i++)
        cmd[i] = "abcdefghij "[i % 11];
    cmd[1000] = '\0';
    memset(name, 'n', 63);
    name[63] = '\0';
    snprintf(text, sizeof text,
             "[machine %s]\n"
             "command = %s   # a comment\n"
             "env = LONG=%s\n"
             "start = 1s\n", name, cmd, cmd);
    struct config *c = LOAD_OK(text);
    ck_assert_str_eq(c->machines[0].name, name);
    ck_assert_str_eq(c->machines[0].command, cmd);
    ck_assert_str_eq(c->machines[0].env[0] + 5, cmd);
    ck_assert_uint_eq(c->machines[0].start_ns, S);
    config_free(c);

    /* Line numbers stay right after long lines. */
    snprintf(text, sizeof text, "[machine a]\ncommand = %s\nstart = soon\n", cmd);
    EXPECT_ERR(text, "3: bad duration \"soon\" (use ns, us, ms, s, m or h)");
    snprintf(text, sizeof text, "[machine a]\n%.300s = 1\n", cmd + 1);
    EXPECT_ERR(text, "2: unknown key \"%.300s\" in [machine a]", cmd + 1);
    snprintf(text, sizeof text, "[machine a]\ncommand = x\n%.300s\n", cmd);
    EXPECT_ERR(text, "3: syntax error: \"%.300s\" is not \"key = value\", \"[section]\" "
               "or a comment", cmd);
}
END_TEST

START_TEST(test_relative_path)
{
    char old[PATH_MAX], sub[sizeof tmpdir + 8], path[sizeof sub + 16];
    ck_assert_ptr_nonnull(getcwd(old, sizeof old));
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/cluster.conf", sub);
    write_file(path, "[machine a]\ncommand = x\n", 24);

    ck_assert_int_eq(chdir(tmpdir), 0);
    struct config *c = config_load("sub/cluster.conf", err, sizeof err);
    struct config *c2 = config_load("./sub/../sub/cluster.conf", err, sizeof err);
    ck_assert_int_eq(chdir(sub), 0);
    struct config *c3 = config_load("cluster.conf", err, sizeof err);
    ck_assert_int_eq(chdir(old), 0);

    char *dir = real_tmpdir(), want[PATH_MAX + 8];
    snprintf(want, sizeof want, "%s/sub", dir);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_nonnull(c2);
    ck_assert_ptr_nonnull(c3);
    ck_assert_str_eq(c->path, "sub/cluster.conf");
    ck_assert_str_eq(c->dir, want);
    ck_assert_str_eq(c2->path, "./sub/../sub/cluster.conf");
    ck_assert_str_eq(c2->dir, want);
    ck_assert_str_eq(c3->path, "cluster.conf");
    ck_assert_str_eq(c3->dir, want);
    free(dir);
    config_free(c);
    config_free(c2);
    config_free(c3);
}
END_TEST

/* ----------------------------------------------------------------- errors */

START_TEST(test_err_unknown_key)
{
    EXPECT_ERR("[simulation]\n"
               "duration = 30s\n"
               "\n"
               "[machine a]\n"
               "command = ./a\n"
               "# comment\n"
               "comand = ./b\n",
               "7: unknown key \"comand\" in [machine a]");
    EXPECT_ERR("[simulation]\nduraton = 1s\n", "2: unknown key \"duraton\" in [simulation]");
    EXPECT_ERR("[machine a]\ncommand = x\n[check]\ncmd = y\n",
               "4: unknown key \"cmd\" in [check]");
    EXPECT_ERR("[check]\nstart = 1s\n", "2: unknown key \"start\" in [check]");
    /* Keys are case-sensitive and belong to their section. */
    EXPECT_ERR("[machine a]\nCommand = x\n", "2: unknown key \"Command\" in [machine a]");
    EXPECT_ERR("[machine a]\ncommand = x\ncpus = 2\n",
               "3: unknown key \"cpus\" in [machine a]");
    EXPECT_ERR("[machine a]\n= x\n", "2: missing key name before \"=\"");
}
END_TEST

START_TEST(test_err_bad_values)
{
    EXPECT_ERR("[simulation]\n"
               "# the limit\n"
               "duration = 30 parsecs\n"
               "[machine a]\ncommand = x\n",
               "3: bad duration \"30 parsecs\" (use ns, us, ms, s, m or h)");
    EXPECT_ERR("[simulation]\nquantum = -1us\n",
               "2: bad duration \"-1us\" (use ns, us, ms, s, m or h)");
    EXPECT_ERR("[machine a]\ncommand = x\nstart = 5 s\n",
               "3: bad duration \"5 s\" (use ns, us, ms, s, m or h)");
    EXPECT_ERR("[simulation]\nduration = 0s\n", "2: duration must be greater than 0");
    EXPECT_ERR("[simulation]\nquantum = 0\n", "2: quantum must be greater than 0");
    EXPECT_ERR("[simulation]\ncpus = 0\n", "2: bad cpus \"0\" (use an integer from 1 to 1024)");
    EXPECT_ERR("[simulation]\ncpus = 1025\n",
               "2: bad cpus \"1025\" (use an integer from 1 to 1024)");
    EXPECT_ERR("[simulation]\ncpus = two\n",
               "2: bad cpus \"two\" (use an integer from 1 to 1024)");
    EXPECT_ERR("[simulation]\n\ncpus = -2\n",
               "3: bad cpus \"-2\" (use an integer from 1 to 1024)");
    EXPECT_ERR("[simulation]\nmemory = 4X\n",
               "2: bad size \"4X\" (use bytes, or a number with K, M, G or T)");
    EXPECT_ERR("[simulation]\nmemory = 0\n",
               "2: bad size \"0\" (use bytes, or a number with K, M, G or T)");
    EXPECT_ERR("[machine a]\ncommand = x\ndaemon = maybe\n",
               "3: bad boolean \"maybe\" (use true or false)");
    EXPECT_ERR("[simulation]\nstrict_names = posix\n",
               "2: bad boolean \"posix\" (use true or false)");
    EXPECT_ERR("[machine a]\ncommand = x\ndisk = 3M\n",
               "3: bad disk size \"3M\" (use 16M to 1T: bytes, or a number with K, M, G or T)");
    EXPECT_ERR("[machine a]\ncommand = x\ndisk = 2T\n",
               "3: bad disk size \"2T\" (use 16M to 1T: bytes, or a number with K, M, G or T)");
    EXPECT_ERR("[simulation]\ntsc = sometimes\n",
               "2: bad tsc \"sometimes\" (use auto, trap or rewrite)");
    EXPECT_ERR("[simulation]\ncpuid = virtual\n",
               "2: bad cpuid \"virtual\" (use auto, trap, rewrite or host)");
    EXPECT_ERR("[simulation]\nclock_reads = vdso\n",
               "2: bad clock_reads \"vdso\" (use stop or page)");
    EXPECT_ERR("[simulation]\ncommand_shell = never\n",
               "2: bad command_shell \"never\" (use auto or always)");
    static const char *const bad_epochs[] = { "2030-13-01", "2030-02-29", "1969-12-31", "2201-01-01",
                                              "2030-06-01T24:00:00Z", "2030-06-01T10:00:00", "tomorrow",
                                              "2030-6-1", "2030-06-01 10:00:00Z" };
    for (size_t i = 0; i < sizeof bad_epochs / sizeof *bad_epochs; i++) {
        char conf[128], want[200];
        snprintf(conf, sizeof conf, "[simulation]\nepoch = %s\n", bad_epochs[i]);
        snprintf(want, sizeof want, "2: bad epoch \"%s\" (use a UTC date from 1970 to 2200, YYYY-MM-DD or "
                 "YYYY-MM-DDTHH:MM:SSZ)", bad_epochs[i]);
        EXPECT_ERR(conf, want);
    }
    EXPECT_ERR("[machine a]\ncommand =\n", "2: key \"command\" has no value");
    EXPECT_ERR("[machine a]\ncommand = x\nstart =   # nothing\n", "3: key \"start\" has no value");
    EXPECT_ERR("[machine a]\ncommand = x\n[check]\ncommand = # nothing\n",
               "4: key \"command\" has no value");
}
END_TEST

START_TEST(test_err_env)
{
    const char *hint = "(use NAME=VALUE, NAME made of letters, digits and '_', not "
                       "starting with a digit)";
    EXPECT_ERR("[machine a]\ncommand = x\nenv = 1A=b\n", "3: bad env \"1A=b\" %s", hint);
    EXPECT_ERR("[machine a]\ncommand = x\nenv = NOVALUE\n", "3: bad env \"NOVALUE\" %s", hint);
    EXPECT_ERR("[machine a]\ncommand = x\nenv = =x\n", "3: bad env \"=x\" %s", hint);
    EXPECT_ERR("[machine a]\ncommand = x\nenv = A-B=x\n", "3: bad env \"A-B=x\" %s", hint);
    EXPECT_ERR("[machine a]\ncommand = x\nenv = A B=x\n", "3: bad env \"A B=x\" %s", hint);
    EXPECT_ERR("[machine a]\nenv = A=1\nenv = AB=2\nenv = A=3\ncommand = x\n",
               "4: duplicate env \"A\" in [machine a]");
}
END_TEST

START_TEST(test_err_duplicates)
{
    EXPECT_ERR("[simulation]\nduration = 1s\nduration = 2s\n", "3: duplicate key \"duration\"");
    EXPECT_ERR("[machine a]\ncommand = x\nstart = 1s\ndaemon = no\nstart = 2s\n",
               "5: duplicate key \"start\"");
    EXPECT_ERR("[machine a]\ncommand = x\n[check]\ncommand = y\ncommand = z\n",
               "5: duplicate key \"command\"");
    EXPECT_ERR("[machine a]\n"          /* 1 */
               "command = x\n"          /* 2 */
               "[machine b]\n"          /* 3 */
               "command = y\n"          /* 4 */
               "[machine db]\n"         /* 5 */
               "command = z\n"          /* 6 */
               "\n"                     /* 7 */
               "# again\n"              /* 8 */
               "[machine db]\n"         /* 9 */
               "command = w\n",         /* 10 */
               "9: duplicate machine \"db\"");
    EXPECT_ERR("[simulation]\n[machine a]\ncommand = x\n[simulation]\n",
               "4: duplicate section [simulation]");
    EXPECT_ERR("[check]\n[machine a]\ncommand = x\n[check]\ncommand = y\n",
               "4: duplicate section [check]");
}
END_TEST

START_TEST(test_err_sections)
{
    EXPECT_ERR("[foo]\n[machine a]\ncommand = x\n", "1: unknown section [foo]");
    EXPECT_ERR("[machine a]\ncommand = x\n[Simulation]\n", "3: unknown section [Simulation]");
    EXPECT_ERR("[machines a]\n", "1: unknown section [machines a]");
    EXPECT_ERR("[]\n", "1: unknown section []");
    EXPECT_ERR("[machine a\ncommand = x\n",
               "1: bad section header \"[machine a\" (expected \"[name]\")");
    EXPECT_ERR("[machine a] junk\n",
               "1: bad section header \"[machine a] junk\" (expected \"[name]\")");
    EXPECT_ERR("command = x\n[machine a]\n", "1: key \"command\" outside any section");
    EXPECT_ERR("# first a comment\n\ncommand = x\n", "3: key \"command\" outside any section");
}
END_TEST

START_TEST(test_err_machine_names)
{
    const char *hint = "(use letters, digits, '_', '.' and '-', starting with a letter or "
                       "digit)";
    EXPECT_ERR("[machine]\ncommand = x\n", "1: machine section has no name (use [machine NAME])");
    EXPECT_ERR("[machine a]\ncommand = x\n[machine   ]\n",
               "3: machine section has no name (use [machine NAME])");
    EXPECT_ERR("[machine a b]\n", "1: bad machine name \"a b\" %s", hint);
    EXPECT_ERR("[machine -a]\n", "1: bad machine name \"-a\" %s", hint);
    EXPECT_ERR("[machine .]\n", "1: bad machine name \".\" %s", hint);
    EXPECT_ERR("[machine a/b]\n", "1: bad machine name \"a/b\" %s", hint);
    EXPECT_ERR("[machine _a]\n", "1: bad machine name \"_a\" %s", hint);
    EXPECT_ERR("[machine \xc3\xa9]\n", "1: bad machine name \"\xc3\xa9\" %s", hint);

    char name[65], text[128];
    memset(name, 'x', 64);
    name[64] = '\0';
    snprintf(text, sizeof text, "[machine %s]\ncommand = x\n", name);
    EXPECT_ERR(text, "1: machine name \"%s\" is too long (64 characters, at most 63)", name);
    name[63] = '\0';
    snprintf(text, sizeof text, "[machine %s]\ncommand = x\n", name);
    struct config *c = LOAD_OK(text);
    ck_assert_str_eq(c->machines[0].name, name);
    config_free(c);
    c = LOAD_OK("[machine 0]\ncommand = x\n[machine A.b-c_d]\ncommand = y\n");
    ck_assert_str_eq(c->machines[0].name, "0");
    ck_assert_str_eq(c->machines[1].name, "A.b-c_d");
    config_free(c);
}
END_TEST

START_TEST(test_err_no_command)
{
    EXPECT_ERR("[machine b]\ncommand = x\n\n[machine a]\nstart = 1s\n",
               "4: machine \"a\" has no command");
    EXPECT_ERR("[machine a]\n", "1: machine \"a\" has no command");
    EXPECT_ERR("[machine a]\n# command = x\n[machine b]\ncommand = y\n",
               "1: machine \"a\" has no command");
    /* The first error in the file is the one reported. */
    EXPECT_ERR("[machine a]\n[machine b]\ncommand = y\nnonsense\n",
               "1: machine \"a\" has no command");
    EXPECT_ERR("[machine a]\nstart = later\n", "2: bad duration \"later\" (use ns, us, ms, s, m "
               "or h)");
}
END_TEST

START_TEST(test_err_no_machines)
{
    EXPECT_ERR("", "1: no machines defined");
    EXPECT_ERR("\n\n# nothing\n", "1: no machines defined");
    EXPECT_ERR("[simulation]\ncpus = 2\n[check]\ncommand = x\n", "1: no machines defined");
}
END_TEST

START_TEST(test_err_syntax)
{
    EXPECT_ERR("[machine a]\ncommand = x\njust some words\n",
               "3: syntax error: \"just some words\" is not \"key = value\", \"[section]\" "
               "or a comment");
    /* An indented line is not a continuation of the previous value. */
    EXPECT_ERR("[machine a]\ncommand = ./prog \\\n    --flag\n",
               "3: syntax error: \"--flag\" is not \"key = value\", \"[section]\" or a "
               "comment");
    EXPECT_ERR("[machine a]\ncommand = x\n  start = 1s\n  start = 2s\n",
               "4: duplicate key \"start\"");
    EXPECT_ERR("[machine a]\ncommand = x\nstart 1s # no equals sign\n",
               "3: syntax error: \"start 1s\" is not \"key = value\", \"[section]\" or a "
               "comment");
}
END_TEST

START_TEST(test_err_binary)
{
    EXPECT_ERR_LIT("\x00\xff\x01\x02\x03", "1: binary data (byte 0x00 at column 1)");
    EXPECT_ERR_LIT("\xff\xfe\x00\x01", "1: invalid UTF-8 (byte 0xff at column 1)");
    EXPECT_ERR_LIT("[machine a]\ncommand = x\nenv = A=\x00" "b\n",
                   "3: binary data (byte 0x00 at column 9)");
    EXPECT_ERR("[machine a]\ncommand = \x01\n", "2: binary data (byte 0x01 at column 11)");
    EXPECT_ERR("[machine a]\ncommand = x\x7f\n", "2: binary data (byte 0x7f at column 12)");
    EXPECT_ERR("[machine a]\ncommand = a\rb\n", "2: binary data (byte 0x0d at column 12)");
    EXPECT_ERR("[machine a]\n\n\n\x7f" "ELF\x02\x01\x01\n",
               "4: binary data (byte 0x7f at column 1)");
    /* Malformed UTF-8: stray continuation, overlong, surrogate, truncated. */
    EXPECT_ERR("[machine a]\ncommand = \x80\n", "2: invalid UTF-8 (byte 0x80 at column 11)");
    EXPECT_ERR("[machine a]\ncommand = \xc0\xaf\n", "2: invalid UTF-8 (byte 0xc0 at column 11)");
    EXPECT_ERR("[machine a]\ncommand = \xed\xa0\x80\n",
               "2: invalid UTF-8 (byte 0xed at column 11)");
    EXPECT_ERR("[machine a]\ncommand = x\xe2\x9c\n", "2: invalid UTF-8 (byte 0xe2 at column 12)");
    EXPECT_ERR("[machine a]\ncommand = \xf5\x80\x80\x80\n",
               "2: invalid UTF-8 (byte 0xf5 at column 11)");
}
END_TEST

/* Random bytes and randomly damaged valid files never crash the parser, and
 * every error names the file and a line. */
START_TEST(test_garbage_fuzz)
{
    static const char valid[] = "[simulation]\nduration = 1s\ncpus = 3\n"
                                "[machine a]\ncommand = ./a x\nenv = A=b\n"
                                "[machine b]\ncommand = y\ndaemon = yes\n[check]\ncommand = z\n";
    unsigned char buf[4096];
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    size_t prefix = strlen(conf);
    for (int round = 0; round < 400; round++) {
        size_t len;
        if (round % 2 == 0) {
            len = (size_t)(round * 37 % (int)sizeof buf);
            for (size_t i = 0; i < len; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                buf[i] = (unsigned char)x;
            }
        } else {
            len = sizeof valid - 1;
            memcpy(buf, valid, len);
            for (int k = 0; k < 1 + round % 4; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                buf[x % len] = (unsigned char)(x >> 32);
            }
        }
        write_file(conf, buf, len);
        struct config *c = config_load(conf, err, sizeof err);
        if (c) {
            ck_assert_uint_ge(c->nmachines, 1);
            config_free(c);
            continue;
        }
        int line = 0, n = 0;
        ck_assert_msg(strncmp(err, conf, prefix) == 0, "round %d: %s", round, err);
        ck_assert_msg(sscanf(err + prefix, ":%d: %n", &line, &n) == 1 && n > 0 && line >= 1,
                      "round %d: %s", round, err);
        ck_assert_msg(err[prefix + (size_t)n] != '\0', "round %d: empty message", round);
    }
}
END_TEST

START_TEST(test_err_open)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/missing.conf", tmpdir);
    ck_assert_ptr_null(config_load(path, err, sizeof err));
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
    ck_assert_str_eq(err, want);

    ck_assert_ptr_null(config_load(tmpdir, err, sizeof err));
    snprintf(want, sizeof want, "%s: cannot open: %s", tmpdir, strerror(EISDIR));
    ck_assert_str_eq(err, want);

    /* A tiny error buffer is truncated, never overrun. */
    char small[8];
    memset(small, 'Z', sizeof small);
    ck_assert_ptr_null(config_load(path, small, 6));
    ck_assert_uint_eq(strlen(small), 5);
    ck_assert_int_eq(small[6], 'Z');
    write_file(conf, "[foo]\n", 6);
    ck_assert_ptr_null(config_load(conf, small, 6));
    ck_assert_uint_eq(strlen(small), 5);
    ck_assert_ptr_null(config_load(conf, NULL, 0));
}
END_TEST

/* ---------------------------------------------------------------- network */

#define MS 1000000ULL

/* The three network sections, before the machines they name. */
START_TEST(test_network_sections)
{
    struct config *c = LOAD_OK(
        "[link b a]\n"                          /* 1: before [network] and the machines */
        "latency = 100ms\n"                     /* 2 */
        "loss = 5%\n"                           /* 3 */
        "[network]\n"                           /* 4 */
        "latency = 1ms..50ms\n"                 /* 5 */
        "loss = 1%\n"                           /* 6 */
        "duplicate = 0.1%\n"                    /* 7 */
        "reorder = 0.0001%\n"                   /* 8 */
        "loopback_latency = 10us\n"             /* 9 */
        "rto = 300ms\n"                         /* 10 */
        "tcp_timeout = 2m\n"                    /* 11 */
        "partition_every = 10s\n"               /* 12 */
        "partition_for = 2s..4s\n"              /* 13 */
        "partition_one_way = true\n"            /* 14 */
        "[partition]\n"                         /* 15 */
        "at = 5s\n"                             /* 16 */
        "duration = 10s\n"                      /* 17 */
        "sides = a b | c    # c alone\n"        /* 18 */
        "one_way = yes\n"                       /* 19 */
        "[partition]\n"                         /* 20 */
        "sides = c,a|b\n"                       /* 21 */
        "at = 1m\n"                             /* 22 */
        "[link c a]\n"                          /* 23 */
        "[machine a]\ncommand = x\n[machine b]\ncommand = x\n[machine c]\ncommand = x\n");
    const struct net_conf *n = &c->net;
    ck_assert_uint_eq(n->dflt.lat_lo, 1 * MS);
    ck_assert_uint_eq(n->dflt.lat_hi, 50 * MS);
    ck_assert_uint_eq(n->dflt.loss_ppm, 10000);
    ck_assert_uint_eq(n->dflt.dup_ppm, 1000);
    ck_assert_uint_eq(n->dflt.reorder_ppm, 1);
    ck_assert_uint_eq(n->loopback_latency_ns, 10000);
    ck_assert_uint_eq(n->rto_ns, 300 * MS);
    ck_assert_uint_eq(n->tcp_timeout_ns, 120 * S);
    ck_assert_uint_eq(n->partition_every_ns, 10 * S);
    ck_assert_uint_eq(n->partition_for_lo, 2 * S);
    ck_assert_uint_eq(n->partition_for_hi, 4 * S);
    ck_assert(n->partition_one_way);

    ck_assert_uint_eq(n->nlinks, 2);
    ck_assert_int_eq(n->links[0].a, 1);
    ck_assert_int_eq(n->links[0].b, 0);
    ck_assert_int_eq(n->links[0].line, 1);
    ck_assert_uint_eq(n->links[0].link.lat_lo, 100 * MS);
    ck_assert_uint_eq(n->links[0].link.lat_hi, 100 * MS);
    ck_assert_uint_eq(n->links[0].link.loss_ppm, 50000);
    ck_assert_uint_eq(n->links[0].link.dup_ppm, 1000);         /* [network]'s, set later in the file */
    ck_assert_uint_eq(n->links[0].link.reorder_ppm, 1);
    ck_assert_int_eq(n->links[1].a, 2);                         /* all [network]'s */
    ck_assert_uint_eq(n->links[1].link.lat_hi, 50 * MS);
    ck_assert_uint_eq(n->links[1].link.loss_ppm, 10000);

    ck_assert_uint_eq(n->npartitions, 2);
    ck_assert_uint_eq(n->partitions[0].at_ns, 5 * S);
    ck_assert_uint_eq(n->partitions[0].duration_ns, 10 * S);
    ck_assert_uint_eq(n->partitions[0].side_a, 0x3);
    ck_assert_uint_eq(n->partitions[0].side_b, 0x4);
    ck_assert(n->partitions[0].one_way);
    ck_assert(!n->partitions[0].random);
    ck_assert_int_eq(n->partitions[0].line, 15);
    ck_assert_uint_eq(n->partitions[1].at_ns, 60 * S);
    ck_assert_uint_eq(n->partitions[1].duration_ns, 0);         /* never heals */
    ck_assert_uint_eq(n->partitions[1].side_a, 0x5);
    ck_assert_uint_eq(n->partitions[1].side_b, 0x2);
    ck_assert(!n->partitions[1].one_way);
    ck_assert_int_eq(n->partitions[1].line, 20);
    config_free(c);

    /* No network section: the defaults. */
    c = LOAD_OK("[machine a]\ncommand = x\n[network]\n");
    ck_assert_uint_eq(c->net.dflt.lat_lo, 1 * MS);
    ck_assert_uint_eq(c->net.dflt.lat_hi, 1 * MS);
    ck_assert_uint_eq(c->net.dflt.loss_ppm, 0);
    ck_assert_uint_eq(c->net.rto_ns, 200 * MS);
    ck_assert_uint_eq(c->net.tcp_timeout_ns, 60 * S);
    ck_assert_uint_eq(c->net.partition_every_ns, 0);
    ck_assert_uint_eq(c->net.nlinks + c->net.npartitions, 0);
    config_free(c);
}
END_TEST

START_TEST(test_parse_percent)
{
    static const struct { const char *s; uint32_t ppm; } good[] = {
        { "0%", 0 }, { "1%", 10000 }, { "0.1%", 1000 }, { "0.0001%", 1 }, { "12.5%", 125000 },
        { "100%", 1000000 }, { "100.0000%", 1000000 }, { "007%", 70000 },
    };
    static const char *const bad[] = {
        "", "%", "1", "1 %", "1%%", "-1%", "+1%", "1.%", ".5%", "101%", "100.0001%", "0.00001%",
        "1e2%", "one%", "1,5%", "1.5.%",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint32_t v = 42;
        ck_assert_msg(parse_percent_ppm(good[i].s, &v) == 0, "\"%s\" rejected", good[i].s);
        ck_assert_msg(v == good[i].ppm, "\"%s\" = %u, want %u", good[i].s, v, good[i].ppm);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t v = 42;
        ck_assert_msg(parse_percent_ppm(bad[i], &v) == -1, "\"%s\" accepted", bad[i]);
        ck_assert_msg(v == 42, "\"%s\" wrote its output", bad[i]);
    }
}
END_TEST

#define AB "[machine a]\ncommand = x\n[machine b]\ncommand = x\n"      /* 4 lines */
#define PCT_HINT "(use 0%% to 100%%, such as 1%% or 0.01%%)"

START_TEST(test_err_network)
{
    const char *range = "(use DURATION or LOW..HIGH, such as 1s..5s)";
    EXPECT_ERR(AB "[network]\nlatency = fast\n", "6: bad range \"fast\" %s", range);
    EXPECT_ERR(AB "[network]\nlatency = 5ms..1ms\n", "6: bad range \"5ms..1ms\" %s", range);
    EXPECT_ERR(AB "[network]\nlatency = -1ms..1ms\n", "6: bad range \"-1ms..1ms\" %s", range);
    EXPECT_ERR(AB "[network]\n\nloss = 1\n", "7: bad percentage \"1\" " PCT_HINT);
    EXPECT_ERR(AB "[network]\nduplicate = 101%\n", "6: bad percentage \"101%%\" " PCT_HINT);
    EXPECT_ERR(AB "[network]\nreorder = 0.5\n", "6: bad percentage \"0.5\" " PCT_HINT);
    EXPECT_ERR(AB "[network]\nloopback_latency = soon\n", "6: bad duration \"soon\" (use ns, us, ms, s, m or h)");
    EXPECT_ERR(AB "[network]\nrto = 0\n", "6: rto must be greater than 0");
    EXPECT_ERR(AB "[network]\ntcp_timeout = 0s\n", "6: tcp_timeout must be greater than 0");
    EXPECT_ERR(AB "[network]\npartition_every = 0ms\n", "6: partition_every must be greater than 0");
    EXPECT_ERR(AB "[network]\npartition_for = 0..1s\n", "6: partition_for must be greater than 0");
    EXPECT_ERR(AB "[network]\npartition_for = 1s..\n", "6: bad range \"1s..\" %s", range);
    EXPECT_ERR(AB "[network]\npartition_one_way = maybe\n", "6: bad boolean \"maybe\" (use true or false)");
    EXPECT_ERR(AB "[network]\nlossy = 1%\n", "6: unknown key \"lossy\" in [network]");
    EXPECT_ERR(AB "[network]\nat = 1s\n", "6: unknown key \"at\" in [network]");
    EXPECT_ERR(AB "[network]\nloss = 1%\nloss = 2%\n", "7: duplicate key \"loss\"");
    EXPECT_ERR(AB "[network]\nloss =\n", "6: key \"loss\" has no value");
    EXPECT_ERR(AB "[network]\n[check]\n[network]\n", "7: duplicate section [network]");
    EXPECT_ERR(AB "[networks]\n", "5: unknown section [networks]");
    EXPECT_ERR("[network]\nloss = 1%\n", "1: no machines defined");
}
END_TEST

START_TEST(test_err_link)
{
    const char *two = "link section needs two machines (use [link A B])";
    EXPECT_ERR(AB "[link]\n", "5: %s", two);
    EXPECT_ERR(AB "[link a]\n", "5: %s", two);
    EXPECT_ERR(AB "[link a b a]\n", "5: %s", two);
    EXPECT_ERR(AB "[link a a]\n", "5: link section needs two different machines (use [link A B])");
    EXPECT_ERR(AB "[link a b]\n[link  b   a ]\n", "6: duplicate link between \"b\" and \"a\"");
    EXPECT_ERR(AB "[link a b]\nrto = 1s\n", "6: unknown key \"rto\" in [link a b]");
    EXPECT_ERR(AB "[link a b]\nlatency = 1ms\nlatency = 2ms\n", "7: duplicate key \"latency\"");
    EXPECT_ERR(AB "[link a b]\nloss = lots\n", "6: bad percentage \"lots\" " PCT_HINT);
    EXPECT_ERR(AB "[links a b]\n", "5: unknown section [links a b]");
    /* Names are resolved once every machine is known. */
    EXPECT_ERR("[machine a]\ncommand = x\n[link a zz]\nlatency = 1ms\n[machine b]\ncommand = x\n",
               "3: [link a zz] names no machine of this file: \"zz\"");
}
END_TEST

START_TEST(test_err_partition)
{
    const char *hint = "(use NAMES | NAMES, such as a b | c d)";
    EXPECT_ERR(AB "\n[partition]\nsides = a | b\n", "6: [partition] has no at");
    EXPECT_ERR(AB "[partition]\nat = 1s\none_way = true\n[machine c]\ncommand = x\n", "5: [partition] has no sides");
    EXPECT_ERR("[partition]\nat = 1s\n" AB, "1: [partition] has no sides");
    EXPECT_ERR(AB "[partition]\nat = soon\n", "6: bad duration \"soon\" (use ns, us, ms, s, m or h)");
    EXPECT_ERR(AB "[partition]\nduration = 0\n",
               "6: duration must be greater than 0 (leave it out for a partition that never heals)");
    EXPECT_ERR(AB "[partition]\none_way = perhaps\n", "6: bad boolean \"perhaps\" (use true or false)");
    EXPECT_ERR(AB "[partition]\nsides = a b\n", "6: bad sides \"a b\" %s", hint);
    EXPECT_ERR(AB "[partition]\nsides = a | b | c\n", "6: bad sides \"a | b | c\" %s", hint);
    EXPECT_ERR(AB "[partition]\nsides = a b |\n", "6: bad sides \"a b |\": a side is empty %s", hint);
    EXPECT_ERR(AB "[partition]\nsides = , | b\n", "6: bad sides \", | b\": a side is empty %s", hint);
    EXPECT_ERR(AB "[partition]\nsides = a b | b\n", "6: bad sides \"a b | b\": machine \"b\" is on both sides");
    EXPECT_ERR(AB "[partition]\nsides = a a | b\n", "6: bad sides \"a a | b\": machine \"a\" is named twice");
    EXPECT_ERR(AB "[partition]\nsides = a | b\nsides = a | b\n", "7: duplicate key \"sides\"");
    EXPECT_ERR(AB "[partition]\nlatency = 1ms\n", "6: unknown key \"latency\" in [partition]");
    EXPECT_ERR(AB "[partition x]\n", "5: unknown section [partition x]");
    EXPECT_ERR(AB "[partition]\nat = 1s\n\nsides = a | b c\n", "8: [partition] names no machine of this file: \"c\"");
}
END_TEST

/* Sides are 64-bit masks: partitions reach only the first 64 machines. */
START_TEST(test_err_partition_many_machines)
{
    size_t size = 70 * 40 + 200, len = 0;
    char *text = malloc(size);
    for (int i = 0; i < 65; i++)
        len += (size_t)snprintf(text + len, size - len, "[machine m%d]\ncommand = x\n", i);
    snprintf(text + len, size - len, "[partition]\nat = 1s\nsides = m0 | m63\n");
    config_free(LOAD_OK(text));
    snprintf(text + len, size - len, "[partition]\nat = 1s\nsides = m0 | m64 m1\n");
    EXPECT_ERR(text, "133: [partition] can name only the first 64 machines, not \"m64\"");
    snprintf(text + len, size - len, "[network]\nloss = 1%%\npartition_every = 1s\n");
    EXPECT_ERR(text, "133: partition_every needs at most 64 machines (this file has 65)");
    free(text);
}
END_TEST

/* ------------------------------------------------------ durations, sizes */

START_TEST(test_parse_duration)
{
    static const struct { const char *s; uint64_t ns; } good[] = {
        { "10ns", 10 },
        { "250us", 250000 },
        { "500ms", 500000000 },
        { "30s", 30 * S },
        { "1m", 60 * S },
        { "2h", 7200 * S },
        { "5", 5 * S },
        { "0", 0 },
        { "0ns", 0 },
        { "007ms", 7000000 },
        { "1.5s", 1500000000 },
        { "1.5", 1500000000 },
        { "0.5ms", 500000 },
        { "1.250us", 1250 },
        { "2.25h", 8100 * S },
        { "0.1m", 6 * S },
        { "1.000000000000000000000000s", S },
        { "0.000000001s", 1 },
        { "18446744073709551615ns", UINT64_MAX },
        { "18446744073s", 18446744073 * S },
        { "18446744073.709551615s", UINT64_MAX },
    };
    static const char *const bad[] = {
        "", "s", "ms", "-1s", "+1s", " 1s", "1s ", "1 s", "10S", "10sec", "1e3s", "1.s",
        ".5s", "1..5s", "1.5.2s", "1.5ns", "0.0000000001s", "1,5s", "30 parsecs", "1d", "5mm",
        "18446744073709551616ns", "18446744074s", "18446744073.709551616s",
        "99999999999999999999999999s", "0x10s",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 42;
        ck_assert_msg(parse_duration(good[i].s, &v) == 0, "\"%s\" rejected", good[i].s);
        ck_assert_msg(v == good[i].ns, "\"%s\" = %llu, want %llu", good[i].s,
                      (unsigned long long)v, (unsigned long long)good[i].ns);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 42;
        ck_assert_msg(parse_duration(bad[i], &v) == -1, "\"%s\" accepted", bad[i]);
        ck_assert_msg(v == 42, "\"%s\" wrote its output", bad[i]);
    }
    uint64_t v;
    ck_assert_int_eq(parse_duration(NULL, &v), -1);
}
END_TEST

START_TEST(test_parse_size)
{
    static const struct { const char *s; uint64_t n; } good[] = {
        { "4G", 4ULL << 30 },
        { "512M", 512ULL << 20 },
        { "1024K", 1ULL << 20 },
        { "4096", 4096 },
        { "1T", 1ULL << 40 },
        { "2g", 2ULL << 30 },
        { "3k", 3072 },
        { "0", 0 },
        { "16777215T", 16777215ULL << 40 },
        { "18446744073709551615", UINT64_MAX },
    };
    static const char *const bad[] = {
        "", "G", "-1", "+1", "4 G", "4GB", "4GiB", "1.5G", "4X", "4P", "16E", " 4", "4 ",
        "16777216T", "17179869184G", "18446744073709551616", "0x10",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 42;
        ck_assert_msg(parse_size(good[i].s, &v) == 0, "\"%s\" rejected", good[i].s);
        ck_assert_msg(v == good[i].n, "\"%s\" = %llu, want %llu", good[i].s,
                      (unsigned long long)v, (unsigned long long)good[i].n);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 42;
        ck_assert_msg(parse_size(bad[i], &v) == -1, "\"%s\" accepted", bad[i]);
        ck_assert_msg(v == 42, "\"%s\" wrote its output", bad[i]);
    }
    uint64_t v;
    ck_assert_int_eq(parse_size(NULL, &v), -1);
}
END_TEST

/* ------------------------------------------------------------- dsim exec */

START_TEST(test_exec_config)
{
    char *const argv[] = { "./prog", "--flag", "it's a test", "", NULL };
    struct config *c = config_for_exec(argv, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    char *cwd = getcwd(NULL, 0);
    ck_assert_str_eq(c->path, "(exec)");
    ck_assert_str_eq(c->dir, cwd);
    ck_assert_uint_eq(c->duration_ns, 30 * S);
    ck_assert_uint_eq(c->quantum_ns, 10000);
    ck_assert_uint_eq(c->cpus, 2);
    ck_assert_uint_eq(c->memory_bytes, 4ULL << 30);
    ck_assert_int_eq(c->clock_reads, CLOCK_READS_PAGE);
    ck_assert_ptr_null(c->check_command);
    ck_assert_uint_eq(c->nmachines, 1);
    struct machine_conf *m = &c->machines[0];
    ck_assert_str_eq(m->name, "main");
    ck_assert_str_eq(m->command, "'./prog' '--flag' 'it'\\''s a test' ''");
    ck_assert_uint_eq(m->start_ns, 0);
    ck_assert(!m->daemon);
    ck_assert_uint_eq(m->nenv, 0);
    free(cwd);
    config_free(c);

    char *const none[] = { NULL };
    ck_assert_ptr_null(config_for_exec(none, err, sizeof err));
    ck_assert_str_eq(err, "no command given");
    ck_assert_ptr_null(config_for_exec(NULL, err, sizeof err));
    ck_assert_str_eq(err, "no command given");
}
END_TEST

/* Which commands run without /bin/sh: plain words whose first is a
 * program, not shell syntax, an assignment, a builtin or a keyword. */
START_TEST(test_command_words)
{
    static const struct { const char *cmd; const char *want; } cases[] = {
        { "./server --port=7000 a,b", "./server|--port=7000|a,b" },
        { "  python3\tx.py  1 ", "python3|x.py|1" },
        { "exec /usr/bin/redis-server --port 6379", "/usr/bin/redis-server|--port|6379" },
        { "exec", NULL }, { "exec -a name prog", NULL }, { "", NULL }, { "   ", NULL },
        { "echo hi", NULL }, { "true", NULL }, { "test -f x", NULL }, { "kill -9 1", NULL },
        { "cd /tmp", NULL }, { "exec echo hi", NULL }, { "FOO=1 prog", NULL }, { "if", NULL },
        { "prog > out", NULL }, { "prog; other", NULL }, { "prog && other", NULL }, { "prog | other", NULL },
        { "prog $HOME", NULL }, { "prog 'a b'", NULL }, { "prog \"a\"", NULL }, { "prog a\\ b", NULL },
        { "prog *.c", NULL }, { "prog ~/x", NULL }, { "prog #c", NULL }, { "prog `id`", NULL },
        { "prog\nother", NULL }, { "(prog)", NULL }, { "prog &", NULL }, { "! prog", NULL },
        { "prog {a,b}", NULL }, { "prog x?", NULL }, { "prog [ab]", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char **w = command_words(cases[i].cmd);
        if (!cases[i].want) {
            ck_assert_msg(w == NULL, "%s: should need the shell", cases[i].cmd);
            continue;
        }
        ck_assert_msg(w != NULL, "%s: should run directly", cases[i].cmd);
        char got[256] = "";
        for (char **p = w; *p; p++) {
            if (p != w) strcat(got, "|");
            strcat(got, *p);
        }
        ck_assert_str_eq(got, cases[i].want);
        free(w);
    }
}
END_TEST

/* `sh -c COMMAND` must see exactly argv. */
START_TEST(test_exec_quoting_roundtrip)
{
    char *const argv[] = {
        "printf", "<%s>\\n", "it's", "a  b", "", "$HOME", "`id`", "$(id)", "\\", "x\ny",
        "'", "''", "\"", "*", "~", "a;b|c&d", "#x", "\t", "!", NULL,
    };
    struct config *c = config_for_exec(argv, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);

    char want[1024] = "";
    for (int i = 2; argv[i]; i++) {
        strcat(want, "<");
        strcat(want, argv[i]);
        strcat(want, ">\n");
    }
    FILE *f = popen(c->machines[0].command, "r");
    ck_assert_ptr_nonnull(f);
    char got[1024];
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    ck_assert_int_eq(pclose(f), 0);
    ck_assert_str_eq(got, want);
    config_free(c);
}
END_TEST

/* One key table for every section: a key far down it (past the 32 a
 * bitmask held) is still seen twice, and each lands in its field. */
START_TEST(test_key_table)
{
    EXPECT_ERR(AB "[chaos]\nduplicate_rate = 1%\nloss = 1s\nduplicate_rate = 2%\n",
               "8: duplicate key \"duplicate_rate\"");
    EXPECT_ERR(AB "[chaos]\npartition_for = 0..1s\n", "6: partition_for must be greater than 0");
    EXPECT_ERR(AB "[partition]\nat = 1s\nsides = a | b\none_way = no\none_way = yes\n", "9: duplicate key \"one_way\"");
    EXPECT_ERR(AB "[link a b]\nreorder = 1%\nlatency = 2ms\nreorder = 2%\n", "8: duplicate key \"reorder\"");
    EXPECT_ERR(AB "[chaos]\ncrash_down = -1s..1s\n",
               "6: bad range \"-1s..1s\" (use DURATION or LOW..HIGH, such as 1s..5s)");
    struct config *c = LOAD_OK(AB "[chaos]\nmachines = a, b\ncrash = 1s\ncrash_down = 2s..3s\npause = 4s\n"
                               "pause_for = 5s\nclock_jump = 6s\nclock_jump_by = -7s..7s\nswarm = true\n"
                               "partition = 8s\npartition_for = 9s..10s\npartition_one_way = yes\nloss = 11s\n"
                               "loss_for = 12s\nloss_rate = 1%..2%\nduplicate = 13s\nduplicate_for = 14s..15s\n"
                               "duplicate_rate = 3%\n");
    const struct chaos_conf *ch = c->chaos;
    ck_assert_uint_eq(ch->nmachines, 2);
    ck_assert_uint_eq(ch->crash_every, 1 * S);
    ck_assert(ch->down_lo == 2 * S && ch->down_hi == 3 * S && ch->pause_every == 4 * S);
    ck_assert(ch->pause_lo == 5 * S && ch->pause_hi == 5 * S && ch->jump_every == 6 * S);
    ck_assert(ch->jump_lo == -7 * (int64_t)S && ch->jump_hi == 7 * (int64_t)S && ch->swarm);
    ck_assert(ch->partition_every == 8 * S && ch->partition_lo == 9 * S && ch->partition_hi == 10 * S);
    ck_assert(ch->partition_one_way && ch->loss_every == 11 * S && ch->loss_lo == 12 * S && ch->loss_hi == 12 * S);
    ck_assert(ch->loss_rate_lo == 10000 && ch->loss_rate_hi == 20000 && ch->dup_every == 13 * S);
    ck_assert(ch->dup_lo == 14 * S && ch->dup_hi == 15 * S && ch->dup_rate_lo == 30000 && ch->dup_rate_hi == 30000);
    config_free(c);
}
END_TEST

/* ---------------------------------------------------------- fault kinds */

START_TEST(test_fault_kind_table)
{
    char list[512] = "";
    for (int k = 0; k < FAULT_KINDS; k++) {
        enum fault_kind got;
        const struct fault_kind_desc *d = &fault_kinds[k];
        ck_assert_int_eq(fault_kind_parse(d->name, &got), 0);
        ck_assert_int_eq(got, k);
        ck_assert_msg((d->needs & ~d->allows) == 0, "%s needs a key it does not allow", d->name);
        /* A machine's kind hits the machine it names; a network kind never needs one. */
        ck_assert_int_eq(!d->net, (d->needs & FK_MACHINE) != 0);
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", d->name);
    }
    enum fault_kind none;
    ck_assert_int_eq(fault_kind_parse("flood", &none), -1);
    ck_assert_str_eq(fault_kind_list(), list);
    ck_assert_str_eq(fault_kind_name(FAULT_DUPLICATE), "duplicate");
    ck_assert(FAULT_IS_NET(FAULT_PARTITION) && !FAULT_IS_NET(FAULT_PAUSE));
}
END_TEST

/* One [fault] with several faults at once: which is named is the same as
 * before kinds were data (the machines' keys first, then what the kind
 * does not take, then the network kinds' own rules). */
START_TEST(test_fault_key_precedence)
{
    EXPECT_ERR(ABC "[fault j]\nkind = clock_jump\nat = 1s\n", "7: fault \"j\" has no machine");
    EXPECT_ERR(ABC "[fault j]\nkind = pause\nat = 1s\nmachine = a\nby = 1s\n", "7: fault \"j\" has no duration");
    EXPECT_ERR(ABC "[fault j]\nkind = clock_jump\nat = 1s\nmachine = a\nby = 1s\nduration = 1s\nsides = a | b\n",
               "7: fault \"j\": a clock_jump has no duration");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nsides = a | b\n", "7: fault \"j\": sides is only for partition");
    EXPECT_ERR(ABC "[fault j]\nkind = loss\nat = 1s\nmachine = a\nduration = 0\n",
               "7: fault \"j\": duration must be greater than 0 (leave it out for a loss that lasts to the end "
               "of the run)");
    EXPECT_ERR(ABC "[fault j]\nkind = duplicate\nat = 1s\nmachine = a\n",
               "7: fault \"j\": a duplicate burst hits links: use machines, not machine");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nduration = 0\nrate = 1%\n",
               "7: fault \"j\": rate is only for loss and duplicate");
    EXPECT_ERR(ABC "[fault j]\nkind = partition\nat = 1s\nduration = 0\n",
               "7: fault \"j\": duration must be greater than 0 (leave it out for a partition that lasts to the end "
               "of the run)");
    EXPECT_ERR(ABC "[fault j]\nkind = crash\nat = 1s\nmachine = a\nrate = 1%\nby = 2s\n",
               "7: fault \"j\": by is only for clock_jump");
}
END_TEST

/* Every kind is in cluster.conf(5): on its `kind =` line and as an item
 * of the list that says what it does. */
START_TEST(test_fault_kinds_documented)
{
    const char *srcdir = getenv("SRCDIR");
    char path[PATH_MAX], man[1 << 17];
    snprintf(path, sizeof path, "%s/man/cluster.conf.5", srcdir && *srcdir ? srcdir : ".");
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t n = fread(man, 1, sizeof man - 1, f);
    fclose(f);
    man[n] = '\0';
    const char *kind_line = strstr(man, "\n.BI kind \" = ");
    ck_assert_ptr_nonnull(kind_line);
    const char *kind_end = strchr(kind_line + 1, '\n');
    for (int k = 0; k < FAULT_KINDS; k++) {
        char item[64];
        const char *name = fault_kinds[k].name, *at = strstr(kind_line, name);
        ck_assert_msg(at && at < kind_end, "kind %s is not on cluster.conf(5)'s kind = line", name);
        snprintf(item, sizeof item, "\n.TP\n.B %s\n", name);
        ck_assert_msg(strstr(kind_end, item), "kind %s has no item in cluster.conf(5)'s list of kinds", name);
    }
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_full_config);
    tcase_add_test(tc, test_semicolon_in_command);
    tcase_add_test(tc, test_clocks_and_faults);
    tcase_add_test(tc, test_addresses);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_env_repeats_in_order);
    tcase_add_test(tc, test_defaults_section);
    tcase_add_test(tc, test_err_defaults);
    tcase_add_test(tc, test_daemon_values);
    tcase_add_test(tc, test_syntax_variants);
    tcase_add_test(tc, test_long_lines);
    tcase_add_test(tc, test_relative_path);
    tcase_add_test(tc, test_network_sections);
    tcase_add_test(tc, test_network_faults);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_err_unknown_key);
    tcase_add_test(tc, test_err_network_faults);
    tcase_add_test(tc, test_err_bad_values);
    tcase_add_test(tc, test_err_env);
    tcase_add_test(tc, test_err_duplicates);
    tcase_add_test(tc, test_err_sections);
    tcase_add_test(tc, test_err_machine_names);
    tcase_add_test(tc, test_err_no_command);
    tcase_add_test(tc, test_err_no_machines);
    tcase_add_test(tc, test_err_syntax);
    tcase_add_test(tc, test_err_binary);
    tcase_add_test(tc, test_garbage_fuzz);
    tcase_add_test(tc, test_err_open);
    tcase_add_test(tc, test_err_network);
    tcase_add_test(tc, test_err_link);
    tcase_add_test(tc, test_err_partition);
    tcase_add_test(tc, test_err_partition_many_machines);
    tcase_add_test(tc, test_key_table);
    suite_add_tcase(s, tc);

    tc = tcase_create("fault kinds");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fault_kind_table);
    tcase_add_test(tc, test_fault_key_precedence);
    tcase_add_test(tc, test_fault_kinds_documented);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_test(tc, test_parse_duration);
    tcase_add_test(tc, test_parse_size);
    tcase_add_test(tc, test_parse_percent);
    suite_add_tcase(s, tc);

    tc = tcase_create("exec");
    tcase_add_test(tc, test_exec_config);
    tcase_add_test(tc, test_exec_quoting_roundtrip);
    tcase_add_test(tc, test_command_words);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(config_suite());
}
