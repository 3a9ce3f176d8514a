/* cluster.conf: the parsed form of a run's configuration. */
#ifndef DSIM_CONFIG_H
#define DSIM_CONFIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct machine_conf {
    char *name;
    char *command;          /* run by /bin/sh -c in the config file's directory */
    uint64_t start_ns;      /* virtual time at which the machine starts */
    bool daemon;            /* the run does not wait for it */
    char **env;             /* NAME=VALUE strings from `env =` lines, in order */
    size_t nenv;
    int line;               /* line of the [machine NAME] header */
    char **argv;            /* dsim exec: run this directly, not via sh (not owned) */
};

struct config {
    char *path;             /* as given on the command line */
    char *dir;              /* absolute directory holding the file */
    uint64_t duration_ns;   /* simulated time limit per seed (default 30s) */
    uint64_t quantum_ns;    /* virtual time one step costs (default 10us) */
    uint64_t spin_limit_ns; /* real time a thread may run without a syscall (30s) */
    unsigned cpus;          /* CPU count machines see (default 2) */
    uint64_t memory_bytes;  /* memory size machines see (default 4 GiB) */
    struct machine_conf *machines;
    size_t nmachines;
    char *check_command;    /* NULL when there is no [check] */
};

/* Parses PATH. On error returns NULL and writes "file:line: message" to err. */
struct config *config_load(const char *path, char *err, size_t errlen);
/* A config with one machine running argv (for `dsim exec`). */
struct config *config_for_exec(char *const argv[], char *err, size_t errlen);
void config_free(struct config *c);

/* "30s", "500ms", "1m", "250us", "10ns", "2h"; a bare number is seconds.
 * Returns 0 on success, -1 on a malformed or overflowing value. */
int parse_duration(const char *s, uint64_t *out_ns);
/* "4G", "512M", "1024K", "4096" (bytes). Returns 0 or -1. */
int parse_size(const char *s, uint64_t *out_bytes);
#endif
