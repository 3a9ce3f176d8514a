#include "world/clockpage.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE_LEN 4096

struct clock_map *clock_map_get(struct clock_map *cm)
{
    if (cm) cm->refs++;
    return cm;
}

void clock_map_put(struct clock_map *cm)
{
    if (!cm || --cm->refs > 0) return;
    munmap(cm->page, PAGE_LEN);
    free(cm);
}

void clockpage_refresh(struct world *w, struct thread *t)
{
    struct clock_map *cm = t->proc->clock;
    if (!cm) return;
    struct clock_page *pg = cm->page;
    const struct machine *m = t->proc->m;
    pg->magic = CLOCK_PAGE_MAGIC;
    pg->count = 0;
    pg->limit = w->clock_reads_left < CLOCK_PAGE_LIMIT ? w->clock_reads_left : CLOCK_PAGE_LIMIT;
    pg->quantum = w->conf->quantum_ns;
    pg->now = w->now;
    pg->drift_ppb = m->clock_drift_ppb;
    pg->mono_base = DSIM_BOOT_NS;
    pg->real_base = w->conf->epoch_s * 1000000000LL + m->clock_offset_ns;
}

/* The stops of the mapping, in order. */
enum { MAP_NONE, MAP_ENTRY, MAP_EXIT };

bool clockpage_exec_begin(struct world *w, struct thread *t)
{
    struct process *p = t->proc;
    if (w->conf->clock_reads != CLOCK_READS_PAGE || !p->clock_stub || p->clock) return false;
    uint64_t all = ~0ULL;
    if (tracer_getregs(t->tid, &t->exec_saved) ||
        ptrace(PTRACE_GETSIGMASK, t->tid, sizeof t->exec_saved_mask, &t->exec_saved_mask) ||
        ptrace(PTRACE_SETSIGMASK, t->tid, sizeof all, &all)) {
        p->clock_stub = 0;      /* not tried again: its reads make the system call */
        return false;
    }
    /* mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS, -1,
     * 0) at the stub's syscall instruction, with every signal blocked: no
     * handler may run in between. Not PROT_EXEC: the filter lets it pass. */
    struct user_regs_struct r = t->exec_saved;
    r.rip = p->clock_stub + (uint64_t)(dsim_clock_stub_syscall - dsim_clock_stub);
    r.rax = SYS_mmap;
    r.orig_rax = (unsigned long long)-1;
    r.rdi = 0, r.rsi = PAGE_LEN, r.rdx = PROT_READ | PROT_WRITE;
    r.r10 = MAP_SHARED | MAP_ANONYMOUS, r.r8 = (unsigned long long)-1, r.r9 = 0;
    if (tracer_setregs(t->tid, &r) || tracer_syscall(t->tid, 0)) {
        ptrace(PTRACE_SETSIGMASK, t->tid, sizeof t->exec_saved_mask, &t->exec_saved_mask);
        tracer_setregs(t->tid, &t->exec_saved);
        p->clock_stub = 0;
        return false;
    }
    t->clock_mapping = MAP_ENTRY;
    return true;
}

/* The page at addr in t's address space, mapped here too. */
static struct clock_map *map_here(struct thread *t, uint64_t addr)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/map_files/%lx-%lx", t->tid, (unsigned long)addr,
             (unsigned long)(addr + PAGE_LEN));
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return NULL;
    void *page = mmap(NULL, PAGE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (page == MAP_FAILED) return NULL;
    struct clock_map *cm = calloc(1, sizeof *cm);
    if (!cm) { munmap(page, PAGE_LEN); return NULL; }
    cm->refs = 1;
    cm->page = page;
    cm->addr = addr;
    return cm;
}

bool clockpage_exec_stop(struct world *w, struct thread *t)
{
    if (t->clock_mapping == MAP_NONE) return false;
    if (t->clock_mapping == MAP_ENTRY) {
        t->clock_mapping = MAP_EXIT;
        tracer_syscall(t->tid, 0);
        return true;
    }
    t->clock_mapping = MAP_NONE;
    struct user_regs_struct r;
    struct process *p = t->proc;
    if (tracer_getregs(t->tid, &r) == 0 && (int64_t)r.rax > 0) {
        p->clock = map_here(t, r.rax);
        if (p->clock) {
            /* The stub finds its page through the slot, in the vDSO. */
            uint64_t slot = p->clock_stub + (uint64_t)(dsim_clock_stub_slot - dsim_clock_stub);
            if (code_poke(t->tid, slot, (const uint8_t *)&r.rax, 8) != 0) {
                clock_map_put(p->clock);
                p->clock = NULL;
            }
        }
        if (p->clock) clockpage_refresh(w, t);
    }
    if (!p->clock) {
        p->clock_stub = 0;
        trace_note(w->trace, "clock page: not mapped (this process's clock reads stop)");
    }
    tracer_setregs(t->tid, &t->exec_saved);
    ptrace(PTRACE_SETSIGMASK, t->tid, sizeof t->exec_saved_mask, &t->exec_saved_mask);
    return true;        /* the caller goes on (clockpage.h) */
}
