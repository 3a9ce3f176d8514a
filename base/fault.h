/* Faults as data: every fault kind is one row of FAULT_KIND_ROWS, and
 * config parsing ([fault NAME]'s keys), plans (plan.c, both directions),
 * reports and firing (supervisor/faults.c, net/sim/netsim.c) read the
 * row. Pure: no ptrace, no config file. */
#ifndef DSIM_FAULT_H
#define DSIM_FAULT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The keys of [fault NAME] besides kind and at. Each is also a field of
 * the plan (plan.c): machine -> "machine" (not for a network kind: it
 * becomes sides), by -> "by_ns", sides and one_way -> "sides", "one_way",
 * rate and machines -> "rate_ppm", "machines", duration -> "duration_ns". */
enum fault_key {
    FK_MACHINE = 1 << 0,    /* machine = NAME: the machine it hits */
    FK_BY = 1 << 1,         /* by = DURATION: how far a clock jumps */
    FK_DURATION = 1 << 2,   /* duration = DURATION: how long it lasts */
    FK_SIDES = 1 << 3,      /* sides = A.. | B..: a partition's sides */
    FK_ONE_WAY = 1 << 4,    /* one_way = BOOLEAN */
    FK_MACHINES = 1 << 5,   /* machines = NAME..: the links a burst hits */
    FK_RATE = 1 << 6,       /* rate = PERCENTAGE: the share of packets hit */
};
/* The network kinds' own keys: their rules are checked after the others'. */
#define FK_NET_KEYS (FK_SIDES | FK_ONE_WAY | FK_MACHINES | FK_RATE)

struct fault_conf;
/* A kind's own rule on its keys beyond needs and allows: NULL, or the
 * error in msg. set: the FK_ keys given. */
typedef const char *fault_rule_fn(const struct fault_conf *f, unsigned set, char *msg, size_t msglen);

/* Every fault kind, one row each:
 *   ENUM       its name in code;
 *   name       in cluster.conf, plans, traces and reports;
 *   net        the network's (hits sides or links, not one machine): it is
 *              put in the network model at the start of a run
 *              (net/sim/netsim.c add_faults), and its fire only traces it;
 *   needs      the keys it must have, allows the keys it may have (FK_);
 *   rule       its own rule on them (fault.c), or NULL;
 *   fire       how it fires: a function of supervisor/faults.c.
 * Add a kind at the end: plans and traces name kinds, never number them. */
#define FAULT_KIND_ROWS(X) \
/*  ENUM              name          net    needs                     allows                              rule     fire */ \
  X(FAULT_CLOCK_JUMP, "clock_jump", false, FK_MACHINE | FK_BY,       FK_MACHINE | FK_BY,                 NULL,    fire_clock_jump) \
  X(FAULT_CRASH,      "crash",      false, FK_MACHINE,               FK_MACHINE | FK_DURATION,           NULL,    fire_crash) \
  X(FAULT_RESTART,    "restart",    false, FK_MACHINE,               FK_MACHINE | FK_DURATION,           NULL,    fire_crash) \
  X(FAULT_PAUSE,      "pause",      false, FK_MACHINE | FK_DURATION, FK_MACHINE | FK_DURATION,           NULL,    fire_pause) \
  X(FAULT_PARTITION,  "partition",  true,  0,                        FK_MACHINE | FK_SIDES | FK_ONE_WAY | FK_DURATION, \
                                                                                                         sides_or_machine, fire_net) \
  X(FAULT_LOSS,       "loss",       true,  FK_RATE,                  FK_MACHINES | FK_RATE | FK_DURATION, NULL,   fire_net) \
  X(FAULT_DUPLICATE,  "duplicate",  true,  FK_RATE,                  FK_MACHINES | FK_RATE | FK_DURATION, NULL,   fire_net)

#define FAULT_KIND_ENUM(e, ...) e,
enum fault_kind { FAULT_KIND_ROWS(FAULT_KIND_ENUM) FAULT_KINDS };
#undef FAULT_KIND_ENUM

struct fault_kind_desc {
    const char *name;
    bool net;
    unsigned needs, allows;     /* enum fault_key */
    fault_rule_fn *rule;
};
/* By enum fault_kind. */
extern const struct fault_kind_desc fault_kinds[FAULT_KINDS];
/* Whether a fault of kind k is the network's (sides or links, not a machine). */
#define FAULT_IS_NET(k) (fault_kinds[(k)].net)

/* The kind named s: 0, or -1 when there is none. */
int fault_kind_parse(const char *s, enum fault_kind *out);
/* "clock_jump, crash, ...": every kind's name, for messages. */
const char *fault_kind_list(void);

struct fault_conf {
    char *name;             /* from [fault NAME] */
    enum fault_kind kind;
    uint64_t at_ns;         /* virtual time it fires */
    char *machine;          /* the machine it hits */
    int64_t by_ns;          /* clock_jump: how far the wall clock jumps */
    uint64_t duration_ns;   /* crash: down time before a restart; pause, network: how long */
    bool has_duration;
    bool drawn;             /* by [chaos] for this run (not from a file or a plan) */
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
static inline const char *fault_kind_name(enum fault_kind k) { return fault_kinds[k].name; }
/* Frees a fault's strings (not f itself). */
void fault_free_fields(struct fault_conf *f);
/* A deep copy. 0, or -1 when out of memory (dst then owns nothing). */
int fault_copy(struct fault_conf *dst, const struct fault_conf *src);
/* The keys set (FK_) of a [fault] whose kind is known fit the kind: NULL,
 * or the error, "fault \"NAME\" has no by" and the like, in msg. */
const char *fault_check_keys(const struct fault_conf *f, unsigned set, char *msg, size_t msglen);

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
/* [chaos]'s defaults, before its keys. */
void chaos_defaults(struct chaos_conf *ch);
void chaos_free(struct chaos_conf *ch);
#endif
