/* The command line's shared pieces: usage and help, options, seed lists,
 * loading a config with its variants and plan, and the files commands
 * write. Every command uses them (cli/main.c, run.c, tools.c,
 * crashstates.c). */
#include "cli/cli.h"
#include "base/plan.h"
#include "supervisor/hostcaps.h"
#include "supervisor/run.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *current_cmd;

void set_current_command(const char *cmd) { current_cmd = cmd; }

/* The usage lines of one command (with their continuations). */
void command_help(const char *cmd)
{
    char key[32];
    snprintf(key, sizeof key, "dsim %s ", cmd);
    bool in = false;
    for (const char *p = usage_text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *start = p + strspn(p, " ");
        if (!strncmp(start, "usage: ", 7)) start += 7;
        if (!strncmp(start, "dsim ", 5)) in = !strncmp(start, key, strlen(key));
        else if (len == 0) in = false;
        if (in) printf("%.*s\n", (int)len, p);
        p += len + (nl != NULL);
    }
    printf("See dsim(1) for the options and exit statuses.\n");
}

int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "dsim: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    if (current_cmd && strstr(usage_text, current_cmd)) {
        fflush(stdout);
        int saved = dup(1);
        dup2(2, 1);                     /* the command's usage, on stderr */
        command_help(current_cmd);
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
    } else {
        fputs(usage_text, stderr);
    }
    return EXIT_USAGE;
}

static int parse_u64(const char *s, const char *end, uint64_t *out)
{
    if (s == end) return -1;
    uint64_t v = 0;
    for (const char *p = s; p < end; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int add_seed(struct seeds *s, uint64_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        if (s->cap > 100000000) return -1;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = v;
    return 0;
}

int parse_seeds(const char *spec, struct seeds *s)
{
    const char *p = spec;
    while (*p) {
        const char *end = p + strcspn(p, ",");
        const char *dash = memchr(p, '-', (size_t)(end - p));
        uint64_t a, b;
        if (!strncmp(p, "random:", 7)) {
            /* N fresh seeds from the kernel: each is printed with its
             * result, so a failure found this way still replays. */
            if (parse_u64(p + 7, end, &a) || a == 0 || a > 100000000) return -1;
            for (uint64_t k = 0; k < a; k++) {
                uint64_t v;
                if (getrandom(&v, sizeof v, 0) != sizeof v || add_seed(s, v >> 1)) return -1;
            }
            p = *end ? end + 1 : end;
            continue;
        }
        if (dash) {
            if (parse_u64(p, dash, &a) || parse_u64(dash + 1, end, &b) || b < a || b - a >= 100000000) return -1;
        } else if (parse_u64(p, end, &a)) {
            return -1;
        } else {
            b = a;
        }
        for (uint64_t v = a;; v++) { if (add_seed(s, v)) return -1; if (v == b) break; }
        p = *end ? end + 1 : end;
        if (*end && !*p) return -1;
    }
    return s->n ? 0 : -1;
}

int parse_seed_arg(const char *s, uint64_t *out)
{
    return parse_u64(s, s + strlen(s), out);
}

char *rerun_options(const struct opts *o)
{
    char *plan = o->plan ? shell_quote(o->plan) : NULL, *tsc = o->tsc ? shell_quote(o->tsc) : NULL,
         *cpuid = o->cpuid ? shell_quote(o->cpuid) : NULL, *defines = defines_options(&o->defines), *out;
    if (asprintf(&out, "%s%s%s%s%s%s%s", plan ? " --plan " : "", plan ? plan : "", tsc ? " --tsc " : "",
                 tsc ? tsc : "", cpuid ? " --cpuid " : "", cpuid ? cpuid : "", defines) < 0)
        abort();
    free(plan);
    free(tsc);
    free(cpuid);
    free(defines);
    return out;
}

/* Traces are written gzip-compressed (zlib, fast level): a busy 10-second
 * run makes a million events, 32 MB as text and 4 MB compressed. The trace
 * writer sees a plain FILE; dsim trace, zcat and zgrep read it back. */
static ssize_t gz_write(void *cookie, const char *buf, size_t len)
{
    return len ? (ssize_t)gzwrite(cookie, buf, (unsigned)len) : 0;
}

static int gz_close(void *cookie) { return gzclose(cookie) == Z_OK ? 0 : -1; }

FILE *open_trace(const char *path)
{
    if (!path) return NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    gzFile gz = fd >= 0 ? gzdopen(fd, "wb1") : NULL;
    FILE *f = gz ? fopencookie(gz, "w", (cookie_io_functions_t){ NULL, gz_write, NULL, gz_close }) : NULL;
    if (!f) {
        fprintf(stderr, "dsim: cannot write %s: %s\n", path, strerror(errno));
        if (gz) gzclose(gz);
        else if (fd >= 0) close(fd);
    }
    return f;
}

struct config *load(const char *path, struct defines *defines)
{
    char err[1024];
    struct config *c = config_load_defined(path, defines, err, sizeof err);
    if (!c) fprintf(stderr, "%s\n", err);
    /* A NAME the file never uses is likely a typo: the run would not be
     * the variant asked for. */
    for (size_t i = 0; c && i < defines->n; i++)
        if (!defines->used[i]) fprintf(stderr, "dsim: warning: -D %s: %s has no ${%s}\n", defines->name[i], path,
                                       defines->name[i]);
    return c;
}

int interrupted_status(void) { return 128 + (dsim_interrupted ? dsim_interrupted : SIGINT); }

/* The config, and the --plan that replaces its faults if one was given. */
struct config *load_with_plan(const char *path, struct opts *o)
{
    struct config *c = load(path, &o->defines);
    char err[2048];
    if (c && apply_tsc(c, o) != 0) {
        config_free(c);
        return NULL;
    }
    if (c && o->plan && plan_load(o->plan, c, &o->faults, &o->nfaults, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        config_free(c);
        return NULL;
    }
    return c;
}

int apply_tsc(struct config *c, const struct opts *o)
{
    char err[512];
    bool rewrite;
    if (o->tsc && tsc_mode_parse(o->tsc, &c->tsc) < 0) return usage_error("bad --tsc %s (use auto, trap or rewrite)", o->tsc);
    if (o->cpuid && cpuid_mode_parse(o->cpuid, &c->cpuid) < 0)
        return usage_error("bad --cpuid %s (use auto, trap, rewrite or host)", o->cpuid);
    if (o->clock_reads && clock_reads_parse(o->clock_reads, &c->clock_reads) < 0)
        return usage_error("bad --clock-reads %s (use stop or page)", o->clock_reads);
    bool shared, reuse, host_fds, relay, index;
    enum cpuid_how cpuid;
    if (tsc_resolve(c->tsc, &rewrite, err, sizeof err) < 0 || cpuid_resolve(c->cpuid, &cpuid, err, sizeof err) < 0 || supervisor_tsc_resolve(&shared, err, sizeof err) < 0 ||
        netns_reuse_resolve(&reuse, err, sizeof err) < 0 || warm_fds_resolve(&host_fds, err, sizeof err) < 0 ||
        tcp_writes_resolve(&relay, err, sizeof err) < 0 || overlay_index_resolve(&index, err, sizeof err) < 0) {
        fprintf(stderr, "dsim: %s: %s\n", c->path ? c->path : "exec", err);
        return EXIT_USAGE;
    }
    return 0;
}

int parse_opts(int argc, char **argv, struct opts *o, const char *allowed)
{
    static const struct option longopts[] = {
        { "seeds", required_argument, 0, 's' }, { "seed", required_argument, 0, 'n' },
        { "trace", required_argument, 0, 't' }, { "output", required_argument, 0, 'o' },
        { "runs", required_argument, 0, 'r' }, { "duration", required_argument, 0, 'd' },
        { "env", required_argument, 0, 'e' }, { "help", no_argument, 0, 'h' },
        { "jobs", required_argument, 0, 'j' }, { "keep-going", no_argument, 0, 'k' },
        { "results", required_argument, 0, 'R' }, { "junit", required_argument, 0, 'J' },
        { "checkpoint", required_argument, 0, 'C' }, { "shard", required_argument, 0, 'S' },
        { "stacks", required_argument, 0, 'K' }, { "plan", required_argument, 0, 'P' },
        { "plan-out", required_argument, 0, 'O' }, { "crash", required_argument, 0, 'c' },
        { "max", required_argument, 0, 'm' }, { "crash-state", required_argument, 0, 'X' },
        { "at", required_argument, 0, 'a' }, { "machine", required_argument, 0, 'M' },
        { "tsc", required_argument, 0, 'T' }, { "clock-reads", required_argument, 0, 'L' },
        { "cpuid", required_argument, 0, 'U' },
        { "verify-sample", required_argument, 0, 'V' },
        { "warm", required_argument, 0, 'W' },
        { "set", required_argument, 0, 'D' },
        { 0, 0, 0, 0 },
    };
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+j:D:", longopts, NULL)) != -1) {
        if (c == 'h') { if (current_cmd) command_help(current_cmd); else fputs(usage_text, stdout); exit(0); }
        if (c == '?' || !strchr(allowed, c)) return usage_error("unexpected option in %s", argv[0]);
        switch (c) {
        case 's': o->seeds = optarg; break;
        case 'n': o->seed = optarg; break;
        case 't': o->trace = optarg; break;
        case 'o': o->output = optarg; break;
        case 'd': o->duration = optarg; break;
        case 'k': o->keep_going = true; break;
        case 'R': o->results = optarg; break;
        case 'J': o->junit = optarg; break;
        case 'C': o->checkpoint = optarg; break;
        case 'S': o->shard = optarg; break;
        case 'K': o->stacks = optarg; break;
        case 'P': o->plan = optarg; break;
        case 'O': o->plan_out = optarg; break;
        case 'X': o->crash_state = optarg; break;
        case 'a': o->at = optarg; break;
        case 'M': o->machine = optarg; break;
        case 'T': o->tsc = optarg; break;
        case 'U': o->cpuid = optarg; break;
        case 'L': o->clock_reads = optarg; break;
        case 'V': o->verify_sample = optarg; break;
        case 'W': o->warm = optarg; break;
        case 'c':
        case 'm': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || *optarg < '0' || *optarg > '9' || v < 1 || v > 100000) return usage_error("bad number %s", optarg);
            if (c == 'c') o->crash = (int)v;
            else o->max_states = (int)v;
            break;
        }
        case 'j':
        case 'r': {
            char *end;
            long v = strtol(optarg, &end, 10);
            bool digits = *optarg >= '0' && *optarg <= '9';      /* no sign, no blank */
            if (c == 'j' && (*end || !digits || v < 1 || v > 256)) return usage_error("bad -j %s (use 1 to 256)", optarg);
            if (c == 'r' && (*end || !digits || v < 1 || v > 1000000)) return usage_error("bad --runs %s", optarg);
            if (c == 'j') o->jobs = (int)v;
            else o->runs = (int)v;
            break;
        }
        case 'D': {
            char err[512];
            if (define_add(&o->defines, optarg, err, sizeof err)) return usage_error("%s", err);
            break;
        }
        case 'e':
            if (!strchr(optarg, '=')) return usage_error("bad --env %s (use NAME=VALUE)", optarg);
            o->env = realloc(o->env, (o->nenv + 1) * sizeof *o->env);
            o->env[o->nenv++] = optarg;
            break;
        }
    }
    return 0;
}

void scratch_path(char *out, size_t len, const char *prefix, uint64_t seed)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, len, "%s/%s-%" PRIu64 ".json", tmp && *tmp == '/' ? tmp : "/tmp", prefix, seed);
}

/* The nearest existing directory holding path (path itself if it is one),
 * absolute and symlink-free; malloc'd, or NULL. */
static char *existing_dir(const char *path)
{
    char *p = strdup(path), *real = NULL;
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(p, '/');
        if (!slash) { free(p); p = strdup("."); }
        else if (slash == p) p[1] = 0;
        else *slash = 0;
        if (strcmp(p, ".") && strcmp(p, "/") && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
            real = existing_dir(p);
            free(p);
            return real;
        }
    }
    real = realpath(p, NULL);
    free(p);
    return real;
}

void warn_if_seen(const struct config *c, const char *opt, const char *path)
{
    if (!c->dir_mounted || !path) return;
    char *dir = existing_dir(path);
    size_t n = strlen(c->dir);
    if (dir && !strncmp(dir, c->dir, n) && (dir[n] == 0 || dir[n] == '/'))
        fprintf(stderr, "dsim: warning: %s %s is in %s, which every machine sees as its working directory "
                        "(%s%s): a file changing there during the sweep can change the traces of later seeds; "
                        "write it elsewhere (such as $TMPDIR)\n", opt, path, c->dir, CONFIG_MOUNT, dir + n);
    free(dir);
}

FILE *open_output(const char *path)
{
    FILE *f = path ? fopen(path, "we") : NULL;
    if (path && !f) fprintf(stderr, "dsim: cannot write %s: %s\n", path, strerror(errno));
    return f;
}
