/* cluster.conf: the parsed form of a run's configuration. */
#ifndef DSIM_CONFIG_H
#define DSIM_CONFIG_H
#include "base/network.h"
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

enum fault_kind {
    FAULT_CLOCK_JUMP, FAULT_CRASH, FAULT_RESTART, FAULT_PAUSE,
    FAULT_PARTITION, FAULT_LOSS, FAULT_DUPLICATE,   /* the network's: no `machine` */
};
#define FAULT_KINDS 7
/* Whether a fault of kind k is the network's (sides or links, not a machine). */
#define FAULT_IS_NET(k) ((k) >= FAULT_PARTITION)

/* [chaos]: faults drawn from the seed's "faults" stream. An interval of 0
 * leaves that kind out; ranges are [lo, hi]. */
struct chaos_conf {
    char **machines;        /* targets; all machines when nmachines is 0 */
    size_t nmachines;
    uint64_t crash_every, pause_every, jump_every;     /* mean intervals */
    uint64_t down_lo, down_hi, pause_lo, pause_hi;
    int64_t jump_lo, jump_hi;
    bool swarm;             /* each seed draws which kinds are on, and how often */
    int line;
    /* Network faults among the targets: mean intervals (0: off), how long
     * each lasts, loss/duplication rates in ppm. */
    uint64_t partition_every, loss_every, dup_every;
    uint64_t partition_lo, partition_hi, loss_lo, loss_hi, dup_lo, dup_hi;
    uint32_t loss_rate_lo, loss_rate_hi, dup_rate_lo, dup_rate_hi;
    bool partition_one_way;     /* each partition one-way with one chance in two */
};

struct fault_conf {
    char *name;             /* from [fault NAME] */
    enum fault_kind kind;
    uint64_t at_ns;         /* virtual time it fires */
    char *machine;          /* the machine it hits */
    int64_t by_ns;          /* clock_jump: how far the wall clock jumps */
    uint64_t duration_ns;   /* crash: down time before a restart; pause, network: how long */
    bool has_duration;
    int line;               /* of its section header */
    int machine_line;       /* of its `machine` key */
    /* partition: sides machines[0..nleft) | machines[nleft..nmachines);
     * loss, duplicate: the links touching machines (every link if none). */
    char **machines;
    size_t nmachines, nleft;
    bool one_way;           /* partition: only left -> right is cut */
    uint32_t rate_ppm;      /* loss, duplicate: the share of packets hit */
};

/* "clock_jump", "crash", ... by enum fault_kind. */
extern const char *const fault_kind_names[FAULT_KINDS];
/* Frees a fault's strings (not f itself). */
void fault_free_fields(struct fault_conf *f);
/* A deep copy. 0, or -1 when out of memory (dst then owns nothing). */
int fault_copy(struct fault_conf *dst, const struct fault_conf *src);

/* How machines' rdtsc and rdtscp read virtual time ([simulation] tsc):
 * where the host makes them fault (PR_SET_TSC), or rewritten in their code. */
enum tsc_mode { TSC_AUTO, TSC_TRAP, TSC_REWRITE };
/* "auto", "trap", "rewrite": 0, or -1 for anything else. */
int tsc_mode_parse(const char *s, enum tsc_mode *out);
extern const char *const tsc_mode_names[3];

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

/* Parses PATH. On error returns NULL and writes "file:line: message" to err. */
struct config *config_load(const char *path, char *err, size_t errlen);
struct defines;
/* The same, with ${NAME} in its lines replaced by defines' values
 * (base/defines.h); defines->used tells which were. */
struct config *config_load_defined(const char *path, struct defines *defines, char *err, size_t errlen);
/* A config with one machine running argv (for `dsim exec`). */
struct config *config_for_exec(char *const argv[], char *err, size_t errlen);
void config_free(struct config *c);

/* "30s", "500ms", "1m", "250us", "10ns", "2h"; a bare number is seconds.
 * Returns 0 on success, -1 on a malformed or overflowing value. */
int parse_duration(const char *s, uint64_t *out_ns);
/* parse_duration with an optional leading '-'. */
int parse_signed_duration(const char *s, int64_t *out_ns);
/* "1s..5s", "-5s..5s" or one duration. 0, or -1. */
int parse_range(const char *s, int64_t *lo, int64_t *hi);
/* "4G", "512M", "1024K", "4096" (bytes). Returns 0 or -1. */
int parse_size(const char *s, uint64_t *out_bytes);
#endif
