/* cluster.conf: the parsed form of a run's configuration. */
#ifndef DSIM_CONFIG_H
#define DSIM_CONFIG_H
#include "base/network.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/fault.h"
#include "base/values.h"
#include "base/command.h"

struct machine_conf {
    char *name;
    char *command;          /* run by /bin/sh -c in the config file's directory (or directly: command.h) */
    uint64_t start_ns;      /* virtual time at which the machine starts */
    bool daemon;            /* the run does not wait for it */
    char **env;             /* NAME=VALUE strings from `env =` lines, in order */
    size_t nenv;
    int line;               /* line of the [machine NAME] header */
    int start_line;         /* of its `start` key, 0 if none */
    char **argv;            /* dsim exec: run this directly, not via sh (not owned) */
    char *command_after_restart;    /* run instead of command after a crash, or NULL */
    char address[32];       /* its IPv4 address (10.0.0.N by default) */
    int64_t clock_offset_ns;    /* its wall clock's offset from the world's */
    int64_t clock_drift_ppb;    /* its clocks' rate error, parts per billion */
    uint64_t disk_bytes;        /* [machine] disk: its disk's size; 0 = DEFAULT_DISK_BYTES */
};

/* A machine's disk, unless `disk =` says: what it can write before ENOSPC. */
#define DEFAULT_DISK_BYTES (1ULL << 30)
#define MIN_DISK_BYTES (16ULL << 20)
#define MAX_DISK_BYTES (1ULL << 40)

/* How machines' rdtsc and rdtscp read virtual time ([simulation] tsc):
 * where the host makes them fault (PR_SET_TSC), or rewritten in their code. */
enum tsc_mode { TSC_AUTO, TSC_TRAP, TSC_REWRITE };
/* "auto", "trap", "rewrite": 0, or -1 for anything else. */
int tsc_mode_parse(const char *s, enum tsc_mode *out);
extern const char *const tsc_mode_names[3];

/* What machines' cpuid tells ([simulation] cpuid): the virtual CPU of
 * code/vcpu.h, through cpuid's fault where the host has CPUID faulting
 * (trap: ARCH_SET_CPUID) or through its sites rewritten in the machines'
 * code (rewrite); auto takes trap where it can; host leaves cpuid alone,
 * so that machines see the host's CPU, which differs between hosts. */
enum cpuid_mode { CPUID_AUTO, CPUID_TRAP, CPUID_REWRITE, CPUID_HOST };
int cpuid_mode_parse(const char *s, enum cpuid_mode *out);
extern const char *const cpuid_mode_names[4];

/* How machines' clock reads are answered ([simulation] clock_reads): each
 * clock_gettime, gettimeofday and time a system call that stops (stop), or
 * the vDSO's answered from a clock page dsim keeps in the machine's memory,
 * without a stop (page, the default; world/clockpage.h). */
enum clock_reads { CLOCK_READS_STOP, CLOCK_READS_PAGE };
/* "stop", "page": 0, or -1 for anything else. */
int clock_reads_parse(const char *s, enum clock_reads *out);
extern const char *const clock_reads_names[2];

/* Where every machine of a config file sees the file's directory, and
 * runs its command: the same path whatever the host's is. */
#define CONFIG_MOUNT "/dsim/config"

/* The world's wall clock at the start of a run, unless [simulation] epoch. */
#define DEFAULT_EPOCH_S 1735689600LL     /* 2025-01-01T00:00:00Z */

struct config {
    char *path;             /* as given on the command line */
    char *dir;              /* absolute directory holding the file */
    bool dir_mounted;       /* machines see dir at CONFIG_MOUNT (not for dsim exec) */
    uint64_t duration_ns;   /* simulated time limit per seed (default 30s) */
    uint64_t quantum_ns;    /* virtual time one step costs (default 10us) */
    uint64_t spin_limit_ns; /* real time a thread may run without a syscall (30s) */
    bool strict_names;      /* only a directory fsync makes a name durable (POSIX) */
    int64_t epoch_s;        /* the world's wall clock when a run begins (Unix seconds) */
    enum tsc_mode tsc;
    enum cpuid_mode cpuid;
    enum clock_reads clock_reads;
    enum command_shell command_shell;   /* default auto: simple commands exec'd without /bin/sh */
    uint64_t warm_start_ns; /* the run up to here is warm_seed's (0: none, or warm_network) */
    bool warm_network;      /* or up to the first call that makes a simulated socket */
    char *warm_machine;     /* or until this machine prints warm_text (stdout or stderr) */
    char *warm_text;
    int warm_start_line;
    uint64_t warm_seed;     /* the start-up's seed under a warm start (default 0) */
    unsigned cpus;          /* CPU count machines see (default 2) */
    uint64_t memory_bytes;  /* memory size machines see (default 4 GiB) */
    struct machine_conf *machines;
    size_t nmachines;
    char *check_command;    /* NULL when there is no [check] */
    struct fault_conf *faults;  /* in file order */
    size_t nfaults;
    struct chaos_conf *chaos;   /* random faults, or NULL */
    struct net_conf net;        /* [network], [link A B], [partition] */
};

/* Whether the config asks for a warm start ([simulation] warm_start). */
static inline bool config_warm(const struct config *c)
{
    return c->warm_start_ns || c->warm_network || c->warm_machine;
}

/* Parses PATH. On error returns NULL and writes "file:line: message" to err. */
struct config *config_load(const char *path, char *err, size_t errlen);
struct defines;
/* The same, with ${NAME} in its lines replaced by defines' values
 * (base/defines.h); defines->used tells which were. */
struct config *config_load_defined(const char *path, struct defines *defines, char *err, size_t errlen);
/* A config with one machine running argv (for `dsim exec`). */
struct config *config_for_exec(char *const argv[], char *err, size_t errlen);
void config_free(struct config *c);

#endif
