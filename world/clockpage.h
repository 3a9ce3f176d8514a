/* Clock reads without a stop ([simulation] clock_reads = page).
 *
 * Every address space a machine's exec makes gets a clock page: shared
 * memory that dsim maps in its own address space too, holding what the
 * machine's clocks read at the world's current time. The vDSO stays
 * visible to the program, and its clock_gettime, gettimeofday and time
 * become code that answers from the page (world/clockstub.S, written over
 * the vDSO by world/rewrite.c), so glibc's and Go's clock reads make no
 * system call and no stop.
 *
 * Deterministic because one thread of the whole simulation runs at a time
 * and dsim writes the page only while that thread is stopped: before each
 * step (the world's time, the machine's drift and offset) and after each
 * stop (the reads it counted become time). Each read still costs the
 * quantum of world time: read i since the last stop returns the clock at
 * now + i * quantum, and at the next stop dsim adds count * quantum to the
 * world's time. After CLOCK_PAGE_LIMIT reads without a stop a read makes
 * the system call, a stop and a scheduling point, so a loop waiting for a
 * deadline on the clock moves on. Clock ids the page does not answer (CPU
 * clocks, bad ids) make the system call: errors are the handler's.
 *
 * The page is mapped at exec by a system call dsim makes the new program
 * run before its first instruction (mmap of MAP_SHARED anonymous memory,
 * at the execve's exit stop); dsim opens it through /proc/PID/map_files.
 * A fork shares it (MAP_SHARED survives fork), as does CLONE_VM. */
#ifndef DSIM_CLOCKPAGE_H
#define DSIM_CLOCKPAGE_H
#include "world/world.h"

/* Reads a page answers between two stops of a thread. */
#define CLOCK_PAGE_LIMIT 64
#define CLOCK_PAGE_LIMIT_SHARED 4     /* while only other machines' threads could run */
#define CLOCK_PAGE_MAGIC 0x6b636f6c636d6973ULL     /* "simclock" */

/* The page as clockstub.S reads it (offsets fixed there). */
struct clock_page {
    uint64_t magic;
    uint64_t count;         /* reads since dsim last looked: the stub counts */
    uint64_t limit;         /* CLOCK_PAGE_LIMIT */
    uint64_t quantum;       /* world ns per read */
    uint64_t now;           /* the world's time (w->now) */
    int64_t drift_ppb;      /* the machine's */
    uint64_t mono_base;     /* DSIM_BOOT_NS */
    int64_t real_base;      /* the epoch and the machine's offset, ns */
};

/* The stub's bytes, in dsim's read-only data (clockstub.S). */
extern const unsigned char dsim_clock_stub[], dsim_clock_stub_gettimeofday[], dsim_clock_stub_time[],
    dsim_clock_stub_syscall[], dsim_clock_stub_slot[], dsim_clock_stub_end[];

/* One address space's page; shared by forks and CLONE_VM. */
struct clock_map;
struct clock_map *clock_map_get(struct clock_map *cm);
void clock_map_put(struct clock_map *cm);

/* The execve's exit stop of t, which dsim would now continue: in page
 * mode, with the stub in the new vDSO (p->clock_stub), it makes t map its
 * page instead, and true. */
bool clockpage_exec_begin(struct world *w, struct thread *t);
/* A syscall stop of t: true if it was one of that mapping's. When the
 * page is in (t->clock_mapping 0 again), t stands as at the execve's exit
 * stop, its registers put back, for the caller to continue. */
bool clockpage_exec_stop(struct world *w, struct thread *t);

/* A stop of the running thread t: the reads it made become world time. */
static inline void clockpage_fold(struct world *w, struct thread *t);
/* t is about to run: its page shows the world's time now. */
void clockpage_refresh(struct world *w, struct thread *t);

/* ---- inline ---- */
struct clock_map { int refs; struct clock_page *page; uint64_t addr; /* in the tracee */ };

static inline void clockpage_fold(struct world *w, struct thread *t)
{
    struct clock_map *cm = t->proc->clock;
    if (!cm || !cm->page->count) return;
    uint64_t n = cm->page->count;       /* the program can write its page: at most the limit */
    w->now += (n < CLOCK_PAGE_LIMIT ? n : CLOCK_PAGE_LIMIT) * w->conf->quantum_ns;
    cm->page->count = 0;
    cm->page->now = w->now;
}
#endif
