/* System V IPC: shared memory, semaphores, message queues. Each machine has
 * an IPC namespace of its own (machine.c), so its objects are its own, and
 * a crash takes them with it, as a reboot would.
 *
 * The calls that cannot wait go to the kernel. Three can: semop and
 * semtimedop, msgsnd on a full queue and msgrcv with no matching message,
 * unless IPC_NOWAIT. They never wait there: the supervisor looks at the
 * object from inside the machine's namespace (setns on its init's
 * /proc/PID/ns/ipc), as the kernel would, and lets the call go only once the
 * kernel would finish it at once; until then the thread waits in the
 * supervisor, on virtual time (semtimedop's timeout), and a signal ends the
 * wait with EINTR (these calls are never restarted, signal(7)). Waiters are
 * not served first come, first served as Linux serves them: of those that
 * can go, the seed picks.
 *
 * The times IPC_STAT reports are the machine's clock: dsim notes when each
 * object was made, changed and used, and writes those over the kernel's
 * (the host's clock) at the call's exit. */
#include "syscalls/sys.h"
#include "base/xalloc.h"
#include "world/tracer.h"
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SEMVMX 32767                /* the kernel's largest semaphore value */
#define S_IRUGO 0444                /* what ipcperms() is asked */
#define S_IWUGO 0222
#define MSG_COPY_FLAG 040000        /* MSG_COPY: read a message by index, not take it */

enum kind { K_SHM, K_SEM, K_MSG };
/* Times per object: t[0] is the change time; shm: attach, detach; sem:
 * operation; msg: send, receive. Seconds on the machine's wall clock. */
enum { T_CTIME, T_USE1, T_USE2 };

struct ipc_obj { enum kind kind; int id; int64_t t[3]; };
/* A shared memory attachment, for the detach time of shmdt, exit and exec. */
struct ipc_attach { int mm; uint64_t addr; int shmid; };

struct ipc_state {
    struct ipc_obj *obj;
    size_t nobj, capobj;
    struct ipc_attach *att;
    size_t natt, capatt;
    int ns_fd;          /* the machine's IPC namespace */
    pid_t ns_pid;       /* the init it was opened through */
};

static struct ipc_state *state(struct machine *m)
{
    if (!m->ipc) {
        m->ipc = calloc(1, sizeof *m->ipc);
        if (!m->ipc) abort();
        m->ipc->ns_fd = -1;
    }
    return m->ipc;
}

void ipc_free(struct machine *m)
{
    if (!m->ipc) return;
    if (m->ipc->ns_fd >= 0) close(m->ipc->ns_fd);
    free(m->ipc->obj);
    free(m->ipc->att);
    free(m->ipc);
    m->ipc = NULL;
}

static int64_t machine_seconds(struct world *w, struct machine *m)
{
    return (int64_t)(machine_realtime(w, m) / 1000000000ULL);
}

static struct ipc_obj *obj_find(struct machine *m, enum kind k, int id)
{
    struct ipc_state *s = state(m);
    for (size_t i = 0; i < s->nobj; i++)
        if (s->obj[i].kind == k && s->obj[i].id == id) return &s->obj[i];
    return NULL;
}

static struct ipc_obj *obj_get(struct world *w, struct machine *m, enum kind k, int id)
{
    struct ipc_obj *o = obj_find(m, k, id);
    if (o) return o;
    struct ipc_state *s = state(m);
    GROW(s->obj, s->nobj, s->capobj);
    o = &s->obj[s->nobj++];
    *o = (struct ipc_obj){ k, id, { machine_seconds(w, m), 0, 0 } };
    return o;
}

static void obj_drop(struct machine *m, enum kind k, int id)
{
    struct ipc_state *s = state(m);
    struct ipc_obj *o = obj_find(m, k, id);
    if (o) *o = s->obj[--s->nobj];
}

static void stamp(struct world *w, struct machine *m, enum kind k, int id, int which)
{
    obj_get(w, m, k, id)->t[which] = machine_seconds(w, m);
}

/* ---- the machine's namespace ---- */

static int own_ns = -1;

/* Enters the machine's IPC namespace; false if it cannot (then nothing
 * changed). ns_leave goes back. */
static bool ns_enter(struct machine *m)
{
    struct ipc_state *s = state(m);
    if (own_ns < 0 && (own_ns = open("/proc/self/ns/ipc", O_RDONLY | O_CLOEXEC)) < 0) return false;
    if (s->ns_fd < 0 || s->ns_pid != m->init_pid) {
        char path[64];
        if (s->ns_fd >= 0) close(s->ns_fd);
        snprintf(path, sizeof path, "/proc/%d/ns/ipc", (int)m->init_pid);
        s->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
        s->ns_pid = m->init_pid;
        if (s->ns_fd < 0) return false;
    }
    return setns(s->ns_fd, CLONE_NEWIPC) == 0;
}

static void ns_leave(void) { setns(own_ns, CLONE_NEWIPC); }

/* ---- permissions, as ipcperms() decides them ---- */

struct creds { unsigned euid, fsgid; unsigned groups[64]; int ngroups; bool ipc_owner; };

static bool read_creds(pid_t pid, struct creds *c)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    memset(c, 0, sizeof *c);
    unsigned r, e, s, fs;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &fs) == 4) c->euid = e;
        else if (sscanf(line, "Gid: %u %u %u %u", &r, &e, &s, &fs) == 4) c->fsgid = fs;
        else if (!strncmp(line, "Groups:", 7)) {
            char *p = line + 7, *end;
            for (unsigned long g; c->ngroups < 64 && (g = strtoul(p, &end, 10), end != p); p = end)
                c->groups[c->ngroups++] = (unsigned)g;
        } else if (!strncmp(line, "CapEff:", 7)) {
            c->ipc_owner = strtoull(line + 7, NULL, 16) >> 15 & 1;     /* CAP_IPC_OWNER */
        }
    }
    fclose(f);
    return true;
}

static bool in_group(const struct creds *c, unsigned gid)
{
    if (gid == c->fsgid) return true;
    for (int i = 0; i < c->ngroups; i++)
        if (c->groups[i] == gid) return true;
    return false;
}

/* flag: S_IRUGO or S_IWUGO. */
static bool allowed(struct thread *t, const struct ipc_perm *p, int flag)
{
    struct creds c;
    if (!read_creds(t->proc->pid, &c)) return true;     /* the kernel will say */
    int want = (flag >> 6 | flag >> 3 | flag) & 7, granted = p->mode;
    if (c.euid == p->cuid || c.euid == p->uid) granted >>= 6;
    else if (in_group(&c, p->cgid) || in_group(&c, p->gid)) granted >>= 3;
    return !(want & ~granted & 7) || c.ipc_owner;
}

/* ---- waiting calls ---- */

/* What the kernel would do with a call now. */
enum verdict { GO, WAIT, GONE };

/* The semaphores of a set, read inside the namespace: nsems values, or
 * NULL. */
static unsigned short *sem_values(int semid, unsigned nsems)
{
    unsigned short *vals = malloc(sizeof *vals * (nsems + 1));
    if (!vals) abort();
    if (semctl(semid, 0, GETALL, vals) == 0) return vals;
    free(vals);
    return NULL;
}

/* Which of a semop's operations cannot go now, on the values vals: the
 * operations apply in order, all or none, and the first that cannot
 * decides. -1: all can; -2: one is out of range (ERANGE, at once). */
static int sem_stuck(const unsigned short *vals0, unsigned nsems, const struct sembuf *ops, unsigned n)
{
    unsigned short *vals = malloc(sizeof *vals * (nsems + 1));
    if (!vals) abort();
    memcpy(vals, vals0, sizeof *vals * nsems);
    int r = -1;
    for (unsigned i = 0; i < n && r == -1; i++) {
        int val = vals[ops[i].sem_num] + ops[i].sem_op;
        if (ops[i].sem_op == 0 ? vals[ops[i].sem_num] != 0 : val < 0) r = (int)i;
        else if (val > SEMVMX) r = -2;
        else vals[ops[i].sem_num] = (unsigned short)val;
    }
    free(vals);
    return r;
}

/* A semop the tracee asks for: its operations, read from its memory. */
struct semcall { int semid; unsigned n; struct sembuf *ops; };

/* Reads the call; false if the kernel fails it at once anyway (bad count,
 * bad address: EINVAL, E2BIG, EFAULT). */
static bool semcall_read(struct thread *t, struct semcall *c)
{
    c->semid = (int)ARG0(t);
    c->n = (unsigned)ARG2(t);
    c->ops = NULL;
    if (c->n < 1 || c->n > 65536 || c->semid < 0) return false;
    c->ops = malloc(sizeof *c->ops * c->n);
    if (!c->ops) abort();
    if (mem_read(t->tid, ARG1(t), c->ops, sizeof *c->ops * c->n) == 0) return true;
    free(c->ops);
    c->ops = NULL;
    return false;
}

/* What the kernel would do with the call now (do_semtimedop's checks, in
 * order: the count, the set, the numbers, the permission, then the
 * operations). GO also when it would fail at once. The permission is
 * checked when the call is made, not while it waits (nor does Linux look
 * again after a sleep). */
static enum verdict sem_verdict(struct thread *t, const struct semcall *c, bool check_perm)
{
    struct machine *m = t->proc->m;
    struct seminfo info;
    struct semid_ds ds;
    if (!ns_enter(m)) return GO;
    if (semctl(0, 0, IPC_INFO, &info) < 0 || c->n > (unsigned)info.semopm) { ns_leave(); return GO; }
    if (semctl(c->semid, 0, IPC_STAT, &ds) != 0) { ns_leave(); return GONE; }
    unsigned nsems = (unsigned)ds.sem_nsems;
    unsigned short *vals = sem_values(c->semid, nsems);
    ns_leave();
    bool alter = false, fits = vals != NULL;
    for (unsigned i = 0; i < c->n; i++) {
        alter |= c->ops[i].sem_op != 0;
        fits &= c->ops[i].sem_num < nsems;
    }
    enum verdict v = GO;
    if (fits && (!check_perm || allowed(t, &ds.sem_perm, alter ? S_IWUGO : S_IRUGO))) {
        int stuck = sem_stuck(vals, nsems, c->ops, c->n);
        if (stuck >= 0 && !(c->ops[stuck].sem_flg & IPC_NOWAIT)) v = WAIT;
    }
    free(vals);
    return v;
}

static bool sem_ready(struct world *w, struct thread *t)
{
    (void)w;
    struct semcall c;
    if (!semcall_read(t, &c)) return true;
    enum verdict v = sem_verdict(t, &c, false);
    free(c.ops);
    return v != WAIT;
}

static void semop_done(struct world *w, struct thread *t, long result)
{
    if (result == 0) stamp(w, t->proc->m, K_SEM, (int)ARG0(t), T_USE1);
}

/* Ends a call that may wait: at once (GO), with EIDRM if its object went
 * while it waited, with EAGAIN at its deadline, or it waits. */
static enum sys_action go_or_wait(struct world *w, struct thread *t, enum verdict v, ready_fn ready, exit_fn done)
{
    if (v == GONE && t->retry) return emulate(t, -EIDRM);
    if (v != WAIT) {
        t->on_exit = done;
        return SYS_PASS_EXIT;
    }
    if (t->timed_out || t->call.ipc.deadline <= w->now) return emulate(t, -EAGAIN);
    return block(t, t->call.ipc.deadline, ready);
}

static enum sys_action semop_call(struct world *w, struct thread *t, uint64_t timeout_addr)
{
    if (!t->retry) {
        t->call.ipc.deadline = UINT64_MAX;
        if (timeout_addr) {
            struct timespec ts;
            /* A bad timeout is the kernel's to report, at once. */
            if (mem_read(t->tid, timeout_addr, &ts, sizeof ts) != 0 || ts.tv_sec < 0 || ts.tv_nsec < 0 ||
                ts.tv_nsec >= 1000000000L) {
                t->on_exit = semop_done;
                return SYS_PASS_EXIT;
            }
            t->call.ipc.deadline = w->now + ts_to_ns(ts.tv_sec, ts.tv_nsec);
        }
    }
    struct semcall c;
    enum verdict v = GO;
    if (semcall_read(t, &c)) v = sem_verdict(t, &c, true);
    free(c.ops);
    return go_or_wait(w, t, v, sem_ready, semop_done);
}

enum sys_action sys_semop(struct world *w, struct thread *t) { return semop_call(w, t, 0); }
enum sys_action sys_semtimedop(struct world *w, struct thread *t) { return semop_call(w, t, ARG3(t)); }

/* ---- message queues ---- */

/* msgsnd(2): waits while the queue has no room (do_msgsnd's checks: the
 * size and type, the text readable, the queue, the permission, room). */
static enum verdict snd_verdict(struct thread *t, bool check_perm)
{
    int id = (int)ARG0(t), flags = (int)ARG3(t);
    long size = (long)ARG2(t), type;
    struct msqid_ds ds;
    struct msginfo info;
    if (id < 0 || size < 0 || mem_read(t->tid, ARG1(t), &type, sizeof type) != 0 || type < 1) return GO;
    char *text = malloc((size_t)size + 1);
    if (!text) return GO;
    bool readable = mem_read(t->tid, ARG1(t) + sizeof type, text, (size_t)size) == 0;
    free(text);
    if (!readable || !ns_enter(t->proc->m)) return GO;
    if (msgctl(0, IPC_INFO, (struct msqid_ds *)&info) < 0 || size > info.msgmax) { ns_leave(); return GO; }
    int r = msgctl(id, IPC_STAT, &ds);
    ns_leave();
    if (r != 0) return GONE;
    if (check_perm && !allowed(t, &ds.msg_perm, S_IWUGO)) return GO;
    bool fits = (unsigned long)size + ds.__msg_cbytes <= ds.msg_qbytes && 1 + ds.msg_qnum <= ds.msg_qbytes;
    return fits || (flags & IPC_NOWAIT) ? GO : WAIT;
}

/* Whether a message of type have is what msgrcv(2) asks for. */
static bool msg_matches(long have, long want, int flags)
{
    if (want == 0) return true;
    if (want < 0) return have <= (want == LONG_MIN ? LONG_MAX : -want);
    return flags & MSG_EXCEPT ? have != want : have == want;
}

/* msgrcv(2): waits while no message matches. The queue is read inside the
 * namespace with MSG_COPY, which copies a message by index and takes
 * nothing. */
static enum verdict rcv_verdict(struct thread *t, bool check_perm)
{
    int id = (int)ARG0(t), flags = (int)ARG4(t);
    long want = (long)ARG3(t);
    struct msqid_ds ds;
    struct msginfo info;
    if (id < 0 || (long)ARG2(t) < 0 || (flags & MSG_COPY_FLAG) || !ns_enter(t->proc->m)) return GO;
    if (msgctl(id, IPC_STAT, &ds) != 0) { ns_leave(); return GONE; }
    bool found = false;
    if (want == 0) found = ds.msg_qnum > 0;
    else if (msgctl(0, IPC_INFO, (struct msqid_ds *)&info) >= 0) {
        struct { long type; char text[]; } *buf = malloc(sizeof(long) + (size_t)info.msgmax);
        if (!buf) abort();
        for (unsigned long i = 0; i < ds.msg_qnum && !found; i++) {
            if (msgrcv(id, buf, (size_t)info.msgmax, (long)i, IPC_NOWAIT | MSG_COPY_FLAG | MSG_NOERROR) < 0) {
                found = true;       /* cannot look (no MSG_COPY here?): let the kernel decide */
                break;
            }
            found = msg_matches(buf->type, want, flags);
        }
        free(buf);
    }
    ns_leave();
    if (check_perm && !allowed(t, &ds.msg_perm, S_IRUGO)) return GO;
    return found || (flags & IPC_NOWAIT) ? GO : WAIT;
}

static bool snd_ready(struct world *w, struct thread *t) { (void)w; return snd_verdict(t, false) != WAIT; }
static bool rcv_ready(struct world *w, struct thread *t) { (void)w; return rcv_verdict(t, false) != WAIT; }

static void msgsnd_done(struct world *w, struct thread *t, long result)
{
    if (result == 0) stamp(w, t->proc->m, K_MSG, (int)ARG0(t), T_USE1);
}

static void msgrcv_done(struct world *w, struct thread *t, long result)
{
    if (result >= 0 && !((int)ARG4(t) & MSG_COPY_FLAG)) stamp(w, t->proc->m, K_MSG, (int)ARG0(t), T_USE2);
}

enum sys_action sys_msgsnd(struct world *w, struct thread *t)
{
    if (!t->retry) t->call.ipc.deadline = UINT64_MAX;
    return go_or_wait(w, t, snd_verdict(t, true), snd_ready, msgsnd_done);
}

enum sys_action sys_msgrcv(struct world *w, struct thread *t)
{
    if (!t->retry) t->call.ipc.deadline = UINT64_MAX;
    return go_or_wait(w, t, rcv_verdict(t, true), rcv_ready, msgrcv_done);
}

/* ---- creating, attaching, controlling ---- */

static enum kind kind_of(long nr)
{
    return nr == SYS_shmget || nr == SYS_shmctl ? K_SHM : nr == SYS_semget || nr == SYS_semctl ? K_SEM : K_MSG;
}

static void get_done(struct world *w, struct thread *t, long result)
{
    if (result >= 0) obj_get(w, t->proc->m, kind_of(SYSNR(t)), (int)result);   /* made now, unless known */
}

enum sys_action sys_ipcget(struct world *w, struct thread *t)
{
    (void)w;
    t->on_exit = get_done;
    return SYS_PASS_EXIT;
}

static void attach_add(struct machine *m, int mm, uint64_t addr, int shmid)
{
    struct ipc_state *s = state(m);
    GROW(s->att, s->natt, s->capatt);
    s->att[s->natt++] = (struct ipc_attach){ mm, addr, shmid };
}

static void shmat_done(struct world *w, struct thread *t, long result)
{
    if ((unsigned long)result >= -4095UL) return;
    stamp(w, t->proc->m, K_SHM, (int)ARG0(t), T_USE1);
    attach_add(t->proc->m, t->proc->mm, (uint64_t)result, (int)ARG0(t));
}

enum sys_action sys_shmat(struct world *w, struct thread *t)
{
    (void)w;
    t->on_exit = shmat_done;
    return SYS_PASS_EXIT;
}

/* The attachment shmdt(addr) ends, by the address it was made at. */
static struct ipc_attach *attach_at(struct machine *m, int mm, uint64_t addr)
{
    struct ipc_state *s = state(m);
    for (size_t i = 0; i < s->natt; i++)
        if (s->att[i].mm == mm && s->att[i].addr == addr) return &s->att[i];
    return NULL;
}

static void shmdt_done(struct world *w, struct thread *t, long result)
{
    struct machine *m = t->proc->m;
    struct ipc_attach *a = attach_at(m, t->proc->mm, ARG0(t));
    if (result != 0 || !a) return;
    stamp(w, m, K_SHM, a->shmid, T_USE2);
    *a = m->ipc->att[--m->ipc->natt];
}

enum sys_action sys_shmdt(struct world *w, struct thread *t)
{
    (void)w;
    t->on_exit = shmdt_done;
    return SYS_PASS_EXIT;
}

/* A fork attaches the child wherever the parent is attached (the kernel
 * stamps the attach time); an exit or exec detaches an address space no
 * one else uses. */
void ipc_fork(struct world *w, struct process *parent, struct process *child)
{
    struct machine *m = parent->m;
    if (!m->ipc) return;
    for (size_t i = 0, n = m->ipc->natt; i < n; i++) {
        struct ipc_attach a = m->ipc->att[i];
        if (a.mm != parent->mm) continue;
        attach_add(m, child->mm, a.addr, a.shmid);
        stamp(w, m, K_SHM, a.shmid, T_USE1);
    }
}

void ipc_mm_left(struct world *w, struct process *p, int mm)
{
    struct machine *m = p->m;
    if (!m->ipc || !m->ipc->natt) return;
    for (size_t i = 0; i < w->nprocs; i++)
        if (w->procs[i] != p && w->procs[i]->mm == mm && !w->procs[i]->exited) return;
    struct ipc_state *s = m->ipc;
    for (size_t i = 0; i < s->natt;) {
        if (s->att[i].mm != mm) { i++; continue; }
        stamp(w, m, K_SHM, s->att[i].shmid, T_USE2);
        s->att[i] = s->att[--s->natt];
    }
}

/* Offsets of the times in the IPC_STAT structures (the kernel's 64-bit
 * layouts, which glibc's match on x86-64). */
struct time_fields { size_t off[3]; int n; };

static struct time_fields fields_of(enum kind k)
{
    if (k == K_SHM)
        return (struct time_fields){ { offsetof(struct shmid_ds, shm_ctime), offsetof(struct shmid_ds, shm_atime),
                                       offsetof(struct shmid_ds, shm_dtime) }, 3 };
    if (k == K_SEM)
        return (struct time_fields){ { offsetof(struct semid_ds, sem_ctime), offsetof(struct semid_ds, sem_otime) }, 2 };
    return (struct time_fields){ { offsetof(struct msqid_ds, msg_ctime), offsetof(struct msqid_ds, msg_stime),
                                   offsetof(struct msqid_ds, msg_rtime) }, 3 };
}

/* Writes the machine's times of object id over the kernel's in the
 * tracee's IPC_STAT buffer at buf. */
static void put_times(struct world *w, struct thread *t, enum kind k, int id, uint64_t buf)
{
    struct ipc_obj *o = obj_get(w, t->proc->m, k, id);
    struct time_fields f = fields_of(k);
    for (int i = 0; i < f.n; i++) {
        int64_t v = o->t[i];
        mem_write(t->tid, buf + f.off[i], &v, sizeof v);
    }
}

/* The tracee's control call: its id, command and buffer. */
static void ctl_args(struct thread *t, enum kind k, int *id, int *cmd, uint64_t *buf)
{
    *id = (int)ARG0(t);
    *cmd = k == K_SEM ? (int)ARG2(t) : (int)ARG1(t);
    *buf = k == K_SEM ? ARG3(t) : ARG2(t);
}

static int semcnt(struct world *w, struct thread *caller, int semid, int semnum, bool zero);

static void ctl_done(struct world *w, struct thread *t, long result)
{
    enum kind k = kind_of(SYSNR(t));
    struct machine *m = t->proc->m;
    int id, cmd;
    uint64_t buf;
    ctl_args(t, k, &id, &cmd, &buf);
    if (result < 0) return;
    /* The commands' numbers overlap between the three kinds. */
    bool by_index = k == K_SHM ? cmd == SHM_STAT || cmd == SHM_STAT_ANY
                  : k == K_SEM ? cmd == SEM_STAT || cmd == SEM_STAT_ANY : cmd == MSG_STAT || cmd == MSG_STAT_ANY;
    if (cmd == IPC_STAT) put_times(w, t, k, id, buf);
    else if (by_index) put_times(w, t, k, (int)result, buf);     /* the result is the id */
    else if (cmd == IPC_SET || (k == K_SEM && (cmd == SETVAL || cmd == SETALL))) stamp(w, m, k, id, T_CTIME);
    else if (cmd == IPC_RMID && k != K_SHM) obj_drop(m, k, id);  /* a segment lives on while attached */
    else if (k == K_SEM && (cmd == GETNCNT || cmd == GETZCNT)) {
        /* Waiters wait in dsim, not in the kernel, which would count none. */
        t->regs.rax = (unsigned long long)semcnt(w, t, id, (int)ARG1(t), cmd == GETZCNT);
        t->regs_dirty = true;
    }
}

enum sys_action sys_ipcctl(struct world *w, struct thread *t)
{
    (void)w;
    t->on_exit = ctl_done;
    return SYS_PASS_EXIT;
}

/* GETNCNT and GETZCNT: the threads of the machine waiting in semop on the
 * set whose first operation that cannot go is on semnum and waits for it
 * to grow (ncnt) or to be zero (zcnt), as Linux counts them. */
static int semcnt(struct world *w, struct thread *caller, int semid, int semnum, bool zero)
{
    struct machine *m = caller->proc->m;
    struct semid_ds ds;
    if (!ns_enter(m)) return 0;
    unsigned short *vals = semctl(semid, 0, IPC_STAT, &ds) == 0 ? sem_values(semid, (unsigned)ds.sem_nsems) : NULL;
    ns_leave();
    if (!vals) return 0;
    int count = 0;
    for (size_t i = 0; i < w->nthreads; i++) {
        struct thread *o = w->threads[i];
        long nr = SYSNR(o);
        if (o->state != TS_BLOCKED || o->proc->m != m || (nr != SYS_semop && nr != SYS_semtimedop) ||
            (int)ARG0(o) != semid)
            continue;
        struct semcall c;
        if (!semcall_read(o, &c)) continue;
        bool fits = true;
        for (unsigned k = 0; k < c.n; k++) fits &= c.ops[k].sem_num < ds.sem_nsems;
        int stuck = fits ? sem_stuck(vals, (unsigned)ds.sem_nsems, c.ops, c.n) : -1;
        if (stuck >= 0 && c.ops[stuck].sem_num == semnum && (zero ? c.ops[stuck].sem_op == 0 : c.ops[stuck].sem_op < 0))
            count++;
        free(c.ops);
    }
    free(vals);
    return count;
}
