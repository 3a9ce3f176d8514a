/* The command line's shared pieces (options.c), for every command. */
#ifndef DSIM_CLI_H
#define DSIM_CLI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/config.h"
#include "base/defines.h"

#define EXIT_USAGE 2

struct opts {
    const char *seeds, *trace, *output, *seed;
    const char *duration, *results, *junit, *checkpoint, *shard, *stacks, *plan, *plan_out;
    struct fault_conf *faults;      /* the loaded --plan */
    size_t nfaults;
    const char *crash_state;        /* replay --crash-state C:a.b.c */
    const char *at, *machine;       /* crash-states --at T --machine M */
    const char *tsc;                /* --tsc auto|trap|rewrite: overrides [simulation] tsc */
    const char *cpuid;              /* --cpuid auto|trap|rewrite|host: overrides [simulation] cpuid */
    const char *clock_reads;        /* dsim exec --clock-reads stop|page */
    const char *verify_sample;      /* run --verify-sample 5% */
    const char *warm;               /* run --warm snapshot|cold */
    int runs, jobs, crash, max_states;
    bool keep_going;
    char **env;
    size_t nenv;
    struct defines defines;         /* -D NAME=VALUE, --set NAME=VALUE */
};

/* The usage lines of every command (main.c); help and usage errors show
 * the current command's. */
extern const char usage_text[];
void set_current_command(const char *cmd);
/* Prints "dsim: " fmt, then the command's usage, on stderr; returns 2. */
int usage_error(const char *fmt, const char *arg);
/* The usage lines of one command. */
void command_help(const char *cmd);
int parse_opts(int argc, char **argv, struct opts *o, const char *allowed);
int parse_seed_arg(const char *s, uint64_t *out);
/* A seed list: "7", "1-100", "random:N" (fresh seeds from the kernel), or a
 * comma-separated list of them; 0, or -1 when spec is not one. */
struct seeds { uint64_t *v; size_t n, cap; };
int parse_seeds(const char *spec, struct seeds *s);
/* A gzip-compressed trace file to write, or NULL after saying why (and
 * NULL for no path). */
FILE *open_trace(const char *path);
/* The config with -D's values, or NULL after printing its FILE:LINE error. */
struct config *load(const char *path, struct defines *defines);
/* What a printed command adds to CONF SEED to redo this run exactly:
 * " --plan FILE --tsc MODE --cpuid MODE -D NAME=VALUE..." as given, quoted for the shell
 * (malloc'd; "" when nothing changes the run). */
char *rerun_options(const struct opts *o);
/* Applies --tsc, --cpuid (and --clock-reads) to c and checks that this host can honour
 * its tsc and cpuid settings: 0, or 2 after saying why. */
int apply_tsc(struct config *c, const struct opts *o);
/* The config and the --plan that replaces its faults, if one was given
 * (and --tsc); NULL after saying why. */
struct config *load_with_plan(const char *path, struct opts *o);
/* Where a command writes a file of its own by default (a plan): under
 * $TMPDIR (or /tmp), whose listing no machine sees, rather than in the
 * current directory, which is usually the config's, that every machine
 * lists: "DIR/PREFIX-SEED.json". */
void scratch_path(char *out, size_t len, const char *prefix, uint64_t seed);
/* Warns on stderr when a file dsim writes (option opt's path) lands where
 * machines list it, the config's directory or below: a file appearing there
 * mid-sweep changes the traces of the seeds run after it. */
void warn_if_seen(const struct config *c, const char *opt, const char *path);
/* A file to write, or NULL after saying why. */
FILE *open_output(const char *path);
/* dsim's exit status when a signal interrupted it. */
int interrupted_status(void);

/* The commands that run seeds (run.c). */
int cmd_run(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_exec(int argc, char **argv);
/* The commands that read runs rather than run them (tools.c). */
int cmd_merge(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_shrink(int argc, char **argv);
/* What this host can do and what dsim does about it (doctor.c). */
int cmd_doctor(int argc, char **argv);
int cmd_syscalls(int argc, char **argv);
#endif
