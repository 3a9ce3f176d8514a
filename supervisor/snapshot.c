/* A warm start from a snapshot (docs/design.md §6 "Warm start" and "Not
 * built yet"): the fences a first slice keeps, the machines' templates
 * (one per process, snapproc.c: a clone3 each process is made to call at
 * its seccomp stop there, CLONE_PARENT so init's child, set_tid at a pid
 * of dsim's choosing, which the kernel allows only when the machine's pid
 * namespace is owned by the command's user namespace), their frozen
 * disks, and each seed's disks, mounts and copies. Every refusal leaves
 * the start-up as it was at the point. */
#include "supervisor/snapshot.h"
#include "supervisor/faults.h"
#include "supervisor/hostcaps.h"
#include "base/plan.h"
#include "net/sim/netsim.h"
#include "disk/confined.h"
#include "disk/durable.h"
#include "disk/layout.h"
#include "disk/treecopy.h"
#include "supervisor/inject.h"
#include "supervisor/machine.h"
#include "supervisor/snapnet.h"
#include "supervisor/snapproc.h"
#include "supervisor/step.h"
#include "supervisor/warm.h"
#include "syscalls/sys.h"
#include "world/tracer.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_crash(const struct fault_conf *f)
{
    return f->kind == FAULT_CRASH || f->kind == FAULT_RESTART;
}

/* Faults are the seed's world's: pauses, clock jumps, the network's
 * ([chaos] drawn for the seed, run.c redraw_chaos), and crashes (the
 * machine's copies die, its disk's crash model is the seed's, and it
 * starts again cold, in the seed). */
const char *snapshot_config_fence(const struct config *c, const struct run_opts *o, char *buf, size_t len)
{
    (void)c;
    if (o->use_plan && o->nplan) return snprintf(buf, len, "a --plan's faults"), buf;
    if (o->exec_stdio || o->trace_out || o->watch || o->pick || o->stacks)
        return snprintf(buf, len, "a traced or watched run"), buf;
    return NULL;
}

/* ---- templates ---- */

/* The pid a machine's template takes, out of the way of a seed's pids. */
#define TEMPLATE_PID 32000
/* Where a seed's root is mounted in the machine's mount namespace, before
 * it becomes the namespace's root: a directory of the last root's tree
 * that nothing uses from then on. */
#define SEED_ROOT "/tmp"
#define MAX_LAYERS 64
/* How long a seed's supervisor may take to bring every copy to the point. */
#define TAKE_LIMIT_S 30

struct snap_machine {
    struct machine *m;
    int index;                      /* m's (the seed's supervisor frees m at its end) */
    struct snap_proc *procs;        /* its processes at the point, by pid */
    int nprocs;
    struct snap_pipes pipes;        /* the pipes between them */
    off_t out_size, err_size;       /* the machine's output at the point */
    int mntns;                      /* its mount namespace */
    int troot;                      /* its root at the point (O_PATH) */
    pid_t last_pid;                 /* the last pid handed out before the point */
    int overlay[MAX_LAYERS];        /* the seed's overlays, made and not yet attached */
    char uuid[MAX_LAYERS][8];       /* the template's overlays' uuid option ("" if none shown) */
    pid_t helper;                   /* the helper that made the seed's root */
    /* Why a crash of the machine in a seed cannot be the cold run's, or ""
     * (snapshot_serves then runs a seed that crashes it cold): the host's
     * overlayfs index, or a graveyard file with another name too (the
     * seed's copies of the two would be two files).
     * (Its crash model's files go aside at the freeze, and each seed has
     * copies of them: freeze, seed_graveyard, rekey_entry.) */
    char crash_cold[200];
};

/* A machine not started at the point (it starts later, in each seed, as
 * in a cold run): what a seed leaves of it goes after the seed. */
struct late_machine {
    struct machine *m;
    off_t out_size, err_size;       /* its output at the point (none, unless a run before wrote it) */
    char *kept[3];                  /* the names its disk, graveyard and contents held at the point */
    size_t nkept[3];
};

struct snapshot {
    struct startup *su;
    struct world *w;
    struct snap_machine *sm;
    size_t n;
    struct late_machine *late;
    size_t nlate;
    struct snap_closed_ends closed;     /* connection ends whose sockets were closed */
};

/* The i-th socket of one kind a copy makes anew among f's: its inode, fd
 * and whether it is taken from another's; NULL past the last. */
typedef const uint64_t *(*ino_of_fn)(const struct snap_fds *f, int i, int *fd, bool *taken);

static const uint64_t *simsock_ino(const struct snap_fds *f, int i, int *fd, bool *taken)
{
    if (i >= f->nsimsocks) return NULL;
    *fd = f->simsocks[i].fd;
    *taken = f->simsocks[i].from_vpid != 0;
    return &f->simsocks[i].ino;
}

static const uint64_t *dgram_ino(const struct snap_fds *f, int i, int *fd, bool *taken)
{
    if (i >= f->ndgrams) return NULL;
    *fd = f->dgrams[i].fd;
    *taken = f->dgrams[i].from_vpid != 0;
    return &f->dgrams[i].ino;
}

/* The first holder of the socket with inode ino among sm's processes (in
 * pid order, then in their lists' order), before process k's i-th socket
 * of its kind: that process's pid (its fd at *from_fd), or 0 if none. */
static pid_t first_holder(const struct snap_machine *sm, ino_of_fn ino_of, int k, int i, uint64_t ino, int *from_fd)
{
    for (int j = 0; j <= k; j++) {
        int fd;
        bool taken;
        const uint64_t *x;
        for (int h = 0; (j < k || h < i) && (x = ino_of(&sm->procs[j].afresh, h, &fd, &taken)); h++)
            if (*x == ino && !taken) {
                *from_fd = fd;
                return sm->procs[j].p->vpid;
            }
    }
    return 0;
}

/* A socket a copy makes anew (a simulated one, a unix datagram one) held
 * by several of sm's processes (a pre-forking server's listener, a
 * connection a child inherited, a journal socket) or at two fds of one is
 * one open file, as their pipes are (snappipes.h): every holder after the
 * first takes the first's in its copy (each making its own gave other
 * hashes than cold). */
static void shared_sockets(struct snap_machine *sm)
{
    for (int k = 0; k < sm->nprocs; k++) {
        struct snap_fds *f = &sm->procs[k].afresh;
        for (int i = 0; i < f->nsimsocks; i++)
            f->simsocks[i].from_vpid = first_holder(sm, simsock_ino, k, i, f->simsocks[i].ino, &f->simsocks[i].from_fd);
        for (int i = 0; i < f->ndgrams; i++)
            f->dgrams[i].from_vpid = first_holder(sm, dgram_ino, k, i, f->dgrams[i].ino, &f->dgrams[i].from_fd);
    }
}

/* Whether every process of every started machine stands at a system
 * call's stop (ready, blocked, or the point's own call): where a copy can
 * begin. */
static bool at_call_stops(const struct world *w, char *why, size_t len)
{
    for (size_t i = 0; i < w->nmachines; i++) {
        const struct machine *m = &w->machines[i];
        if (!m->started) continue;
        if (m->exited) {        /* over: every thread's end seen */
            for (size_t k = 0; k < w->nthreads; k++)
                if (w->threads[k]->proc->m == m && w->threads[k]->state != TS_DEAD) {
                    snprintf(why, len, "machine %s: exited, its processes still ending at the point", m->name);
                    return false;
                }
            continue;
        }
        const struct thread *l = m->main ? m->main->leader : NULL;
        if (!l || l->proc->exited) {
            snprintf(why, len, "machine %s: its command's first process is gone", m->name);
            return false;
        }
        for (size_t k = 0; k < w->nthreads; k++) {
            const struct thread *t = w->threads[k];
            if (t->proc->m != m || t->proc->exited || t->state == TS_DEAD) continue;
            bool ready = t->state == TS_READY || t->state == TS_BLOCKED || t == w->point_thread;
            if (!ready || t->awaiting_first_stop || t->on_exit || t->proc->vfork_parent) {
                snprintf(why, len, "machine %s: thread %d of pid %d is not at a system call", m->name, (int)t->vtid,
                         (int)t->proc->vpid);
                return false;
            }
        }
    }
    return true;
}

/* Whether the machine's disk is one a seed can have a copy of: each layer
 * an overlay; the kernel's uuid option of each (uuid, MAX_LAYERS of them),
 * which a seed's overlays take as theirs (the legacy mount and fsconfig
 * default to others). */
static const char *disk_fence(struct world *w, struct machine *m, char (*uuid)[8], char *buf, size_t len)
{
    char mi[64], line[4096];
    snprintf(mi, sizeof mi, "/proc/%d/mountinfo", (int)m->main->pid);
    FILE *f = fopen(mi, "re");
    int overlays = 0;
    while (f && fgets(line, sizeof line, f)) {
        char point[4096], *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*d %*d %*u:%*u %*s %4095s", point) != 1) continue;
        for (size_t n = 0; n < w->nlayers; n++)
            if (!strcmp(point, w->layers[n]) && !strncmp(dash, " - overlay ", 11)) {
                overlays++;
                const char *u = strstr(dash, ",uuid=");
                uuid[n][0] = 0;
                if (u) sscanf(u + 6, "%7[a-z]", uuid[n]);
            }
    }
    if (f) fclose(f);
    if (overlays != (int)w->nlayers) return snprintf(buf, len, "a layer of its disk is not an overlay"), buf;
    return NULL;
}

/* The names in dir, "\0"-separated (malloc'd; *len bytes). */
static char *names_in(const char *dir, size_t *len)
{
    char *out = NULL;
    *len = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name) + 1;
        if (!(out = realloc(out, *len + n))) abort();
        memcpy(out + *len, e->d_name, n);
        *len += n;
    }
    if (d) closedir(d);
    return out;
}

/* Removes what dir holds beyond the names kept. */
static void remove_added(const char *dir, const char *kept, size_t len)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        bool was = false;
        for (size_t at = 0; at < len && !was; at += strlen(kept + at) + 1) was = !strcmp(kept + at, e->d_name);
        if (!was) {
            char path[8700];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            disk_remove_tree(path);
        }
    }
    if (d) closedir(d);
}

/* The crash model's directories of sm's machine: [0] its graveyard, [1]
 * its durable contents. */
static void grave_dir(struct world *w, struct snap_machine *sm, char *dir, size_t len)
{
    disk_dir(w, sm->m, "grave", dir, len);
}

/* Whether a file of the graveyard dir has another name too. */
static bool grave_linked(const char *dir)
{
    DIR *d = opendir(dir);
    bool linked = false;
    for (struct dirent *e; d && !linked && (e = readdir(d));) {
        struct stat st;
        linked = e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_nlink > 1;
    }
    if (d) closedir(d);
    return linked;
}

/* Where a machine's durable contents (content dir) go at the point:
 * beside it, under a name no machine has ('@' is not in machine names). */
static void point_content(const char *content, char *out, size_t len)
{
    snprintf(out, len, "%s@point", content);
}

/* Freezes machine m's upper layers at the point: the template's go aside
 * (its overlay keeps them), frozenN is a copy of each, which each seed's
 * upperN copies in turn. Its crash model's files go aside too: its
 * graveyard (disk/NAME/grave: files a name operation not yet durable
 * replaced or removed, as hard links) to point-grave, its durable contents
 * (content/NAME) to content/NAME@point; each seed gets copies of them for
 * its copies of the files (seed_graveyard, rekey_entry). */
static int freeze(struct world *w, struct machine *m)
{
    for (size_t n = 0; n < w->nlayers; n++) {
        char from[4200], to[4200], frozen[4200], name[64];
        static const char *const kinds[] = { "work", "upper" };
        for (int k = 0; k < 2; k++) {       /* upper last: `to` is then its new name */
            snprintf(name, sizeof name, "%s%zu", kinds[k], n);
            disk_dir(w, m, name, from, sizeof from);
            snprintf(name, sizeof name, "template-%s%zu", kinds[k], n);
            disk_dir(w, m, name, to, sizeof to);
            if (rename(from, to) != 0) return -1;
        }
        snprintf(name, sizeof name, "frozen%zu", n);
        disk_dir(w, m, name, frozen, sizeof frozen);
        if (disk_copy_tree(to, frozen) != 0) return -1;
    }
    char content[4200], point[4300], grave[4200], point_grave[4200];
    disk_content_dir(w, m, content, sizeof content);
    point_content(content, point, sizeof point);
    disk_dir(w, m, "grave", grave, sizeof grave);
    disk_dir(w, m, "point-grave", point_grave, sizeof point_grave);
    return (rename(content, point) == 0 || errno == ENOENT) && (rename(grave, point_grave) == 0 || errno == ENOENT) ? 0 : -1;
}

static void snap_free(struct snapshot *s)
{
    for (size_t i = 0; i < s->n; i++) {
        for (int k = 0; k < s->sm[i].nprocs; k++) snap_proc_free(&s->sm[i].procs[k]);
        free(s->sm[i].procs);
        snap_pipes_free(&s->sm[i].pipes);
        if (s->sm[i].mntns >= 0) close(s->sm[i].mntns);
        if (s->sm[i].troot >= 0) close(s->sm[i].troot);
    }
    free(s->sm);
    for (size_t i = 0; i < s->nlate; i++)
        for (int k = 0; k < 3; k++) free(s->late[i].kept[k]);
    free(s->late);
    snap_net_closed_free(&s->closed);
    free(s);
}

/* [0] a late machine's disk, [1] its graveyard, [2] its durable contents. */
static void late_dirs(struct world *w, const struct machine *m, char dirs[3][4200])
{
    disk_dir(w, m, "", dirs[0], sizeof dirs[0]);
    disk_dir(w, m, "grave", dirs[1], sizeof dirs[1]);
    disk_content_dir(w, m, dirs[2], sizeof dirs[2]);
}

/* The machines not started at the point, as they stand there. */
static void note_late(struct snapshot *s)
{
    struct world *w = s->w;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        struct stat so, se;
        if (m->started || m->exited) continue;      /* a copy's, or over before the point */
        if (!(s->late = realloc(s->late, (s->nlate + 1) * sizeof *s->late))) abort();
        struct late_machine *l = &s->late[s->nlate++];
        *l = (struct late_machine){ .m = m };
        l->out_size = fstat(m->out_fd, &so) == 0 ? so.st_size : 0;
        l->err_size = fstat(m->err_fd, &se) == 0 ? se.st_size : 0;
        char dirs[3][4200];
        late_dirs(w, m, dirs);
        for (int k = 0; k < 3; k++) l->kept[k] = names_in(dirs[k], &l->nkept[k]);
    }
}

/* After a seed: a late machine's disk (its upper layers, made by its
 * init, new for the next seed's), crash records and output as they were
 * at the point. Its init was the seed supervisor's; its mounts went with
 * its mount namespace. */
static int late_reset(struct snapshot *s, struct late_machine *l)
{
    char dirs[3][4200];
    late_dirs(s->w, l->m, dirs);
    for (int k = 2; k >= 0; k--) remove_added(dirs[k], l->kept[k], l->nkept[k]);
    return ftruncate(l->m->out_fd, l->out_size) == 0 && ftruncate(l->m->err_fd, l->err_size) == 0 ? 0 : 1;
}

struct snapshot *snapshot_make(struct startup *su, char *why, size_t len)
{
    struct world *w = startup_world(su);
    if (!warm_copyable(w, why, len) || !at_call_stops(w, why, len)) return NULL;
    const char *busy = netsim_still(w);
    if (busy) {
        snprintf(why, len, "the simulated network at the point: %s", busy);
        return NULL;
    }
    if (w->nlayers > MAX_LAYERS) {
        snprintf(why, len, "more than %d file systems under the machines' disks", MAX_LAYERS);
        return NULL;
    }
    struct snapshot *s = calloc(1, sizeof *s);
    if (!s || !(s->sm = calloc(w->nmachines, sizeof *s->sm))) abort();
    s->su = su;
    s->w = w;
    for (size_t i = 0; i < w->nmachines; i++) {
        struct machine *m = &w->machines[i];
        struct snap_machine *sm = &s->sm[s->n];
        sm->mntns = sm->troot = -1;
        if (!m->started || m->exited) continue;     /* late (note_late), or over */
        s->n++;
        sm->m = m;
        sm->index = m->index;
        char buf[300];
        const char *no = m->ndirty ? "file times not yet stamped at the point" : disk_fence(w, m, sm->uuid, buf, sizeof buf);
        if (no) {
            snprintf(why, len, "machine %s: %s", m->name, no);
            snap_free(s);
            return NULL;
        }
        /* Its processes in the order of their pids: a copy's parent is
         * made before it (their templates at TEMPLATE_PID on). */
        for (size_t k = 0; k < w->nprocs; k++) {
            struct process *p = w->procs[k];
            if (p->m != m || p->exited) continue;
            if (!(sm->procs = realloc(sm->procs, (size_t)(sm->nprocs + 1) * sizeof *sm->procs))) abort();
            int at = sm->nprocs++;
            while (at > 0 && sm->procs[at - 1].p->vpid > p->vpid) at--;
            memmove(&sm->procs[at + 1], &sm->procs[at], (size_t)(sm->nprocs - 1 - at) * sizeof *sm->procs);
            sm->procs[at].p = p;
        }
        pid_t pids[64];
        for (int k = 0; k < sm->nprocs && k < 64; k++) pids[k] = sm->procs[k].p->pid;
        char pwhy[400];
        if (sm->nprocs > 1 && snap_pipes_read(pids, sm->nprocs, &sm->pipes, pwhy, sizeof pwhy) != 0) {
            snprintf(why, len, "machine %s: %s", m->name, pwhy);
            for (int k = 0; k < sm->nprocs; k++) memset(&sm->procs[k], 0, sizeof sm->procs[k]);
            snap_free(s);
            return NULL;
        }
        for (int k = 0; k < sm->nprocs; k++) {
            struct process *p = sm->procs[k].p;
            int r = snap_proc_read(w, p, &sm->pipes, k, &sm->procs[k], pwhy, sizeof pwhy);
            if (r != 0) {
                char who[32] = "";
                if (sm->nprocs > 1) snprintf(who, sizeof who, "pid %d: ", (int)p->vpid);
                if (r < -1) world_fail(w, OUT_INTERNAL, "a snapshot left machine %s's %s%s", m->name, who, pwhy);
                snprintf(why, len, "machine %s: %s%s", m->name, who, pwhy);
                sm->nprocs = k + 1;
                snap_free(s);
                return NULL;
            }
        }
        shared_sockets(sm);
        char path[64];
        pid_t tid = m->main->leader->tid;
        snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)tid);
        sm->mntns = open(path, O_RDONLY | O_CLOEXEC);
        snprintf(path, sizeof path, "/proc/%d/root", (int)tid);
        sm->troot = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat so, se;
        if (sm->mntns < 0 || sm->troot < 0 || fstat(m->out_fd, &so) != 0 || fstat(m->err_fd, &se) != 0) {
            snprintf(why, len, "machine %s: cannot read its state at the point", m->name);
            snap_free(s);
            return NULL;
        }
        sm->out_size = so.st_size;
        sm->err_size = se.st_size;
        for (size_t p = 0; p < w->nprocs + w->ndeadprocs; p++) {
            const struct process *q = p < w->nprocs ? w->procs[p] : w->deadprocs[p - w->nprocs];
            if (q->m == m && q->vpid > sm->last_pid) sm->last_pid = q->vpid;
        }
        for (size_t k2 = 0; k2 < w->nthreads; k2++)
            if (w->threads[k2]->proc->m == m && w->threads[k2]->vtid > sm->last_pid) sm->last_pid = w->threads[k2]->vtid;
    }
    /* Every connection's open ends are among the sockets the copies make. */
    const struct snap_fds *fs[256];
    int nf = 0;
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < s->sm[i].nprocs && nf < 256; k++) fs[nf++] = &s->sm[i].procs[k].afresh;
    if (snap_net_copied(w, fs, nf, &s->closed, why, len) != 0) {
        snap_free(s);
        return NULL;
    }
    /* Nothing refused: the templates (none before, so that a refusal left
     * no process to end, whose end its parent would be told of). */
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < s->sm[i].nprocs; k++) {
            char twhy[300];
            int r = snap_proc_template(&s->sm[i].procs[k], TEMPLATE_PID + k, twhy, sizeof twhy);
            if (r == 0) continue;
            char who[32] = "";
            if (s->sm[i].nprocs > 1) snprintf(who, sizeof who, "pid %d: ", (int)s->sm[i].procs[k].p->vpid);
            if (r < -1) world_fail(w, OUT_INTERNAL, "a snapshot left machine %s's %s%s", s->sm[i].m->name, who, twhy);
            snprintf(why, len, "machine %s: %s%s", s->sm[i].m->name, who, twhy);
            snap_free(s);
            return NULL;
        }
    note_late(s);
    /* Every template made: the machines' disks are frozen, and the
     * processes the templates were made from go (init reaps them). */
    bool index = false;
    char err[160];
    overlay_index_resolve(&index, err, sizeof err);     /* checked with the command's options */
    for (size_t i = 0; i < s->n; i++) {
        struct snap_machine *sm = &s->sm[i];
        char grave[4200];
        grave_dir(w, sm, grave, sizeof grave);
        if (index)
            snprintf(sm->crash_cold, sizeof sm->crash_cold, "this host's overlayfs has its index on, and a disk layer "
                     "the seed's root still mounts would serve the machine's start again (dsim doctor)");
        else if (grave_linked(grave))
            snprintf(sm->crash_cold, sizeof sm->crash_cold, "a file it replaced or removed, not yet durably at the "
                     "point, has another name too");
    }
    for (size_t i = 0; i < s->n; i++)
        if (freeze(w, s->sm[i].m) != 0) {
            snprintf(why, len, "machine %s: cannot freeze its disk at the point", s->sm[i].m->name);
            world_fail(w, OUT_INTERNAL, "a snapshot's freeze failed");
            snap_free(s);
            return NULL;
        }
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < s->sm[i].nprocs; k++) snap_proc_end_original(&s->sm[i].procs[k]);
    return s;
}

void snapshot_free(struct snapshot *s)
{
    struct startup *su = s->su;
    snap_free(s);
    startup_end(su);
}

/* ---- a seed from the snapshot ---- */

static void remove_entry(const char *dir, const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    disk_remove_tree(path);
}

/* The seed's overlays of sm's machine, made detached in dsim's mount
 * namespace as its init makes them (machine.c overlay()), each upper layer
 * a copy of the frozen one, at the cold run's paths (disk_upper). */
static int seed_overlays(struct world *w, struct snap_machine *sm)
{
    char dir[4200];
    disk_dir(w, sm->m, "", dir, sizeof dir);
    int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), rc = cwd >= 0 && chdir(dir) == 0 ? 0 : -1;
    for (size_t n = 0; n < w->nlayers; n++) sm->overlay[n] = -1;
    for (size_t n = 0; n < w->nlayers && rc == 0; n++) {
        char upper[64], work[64], frozen[64];
        snprintf(upper, sizeof upper, "upper%zu", n);
        snprintf(work, sizeof work, "work%zu", n);
        snprintf(frozen, sizeof frozen, "frozen%zu", n);
        const char *lower = w->layers[n];
        if (disk_copy_tree(frozen, upper) != 0 || mkdir(work, 0755) != 0) {
            rc = -1;
            break;
        }
        int fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
        const char *kv[][2] = { { "source", "overlay" }, { "lowerdir", lower }, { "upperdir", upper },
                                { "workdir", work }, { "xino", "on" }, { "uuid", sm->uuid[n] } };
        size_t nkv = sizeof kv / sizeof *kv - !sm->uuid[n][0];
        for (size_t k = 0; fs >= 0 && k < nkv; k++)
            if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, kv[k][0], kv[k][1], 0) != 0) { close(fs); fs = -1; }
        if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) != 0 ||
            (sm->overlay[n] = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOATIME)) < 0)
            rc = -1;
        if (fs >= 0) close(fs);
    }
    if (cwd >= 0 && fchdir(cwd) != 0) rc = -1;
    if (cwd >= 0) close(cwd);
    return rc;
}

/* A mount of the template's tree, from its mountinfo. */
struct mnt { int id, parent; unsigned maj, min; char root[1024], point[1024]; bool overlay; };

/* What a seed leaves in the machine that the next would see, beside its
 * disk: the machine's /dev, its shared memory and queues, its System V IPC
 * objects. A text that tells them apart, from the helper's view. */
static void shared_state(char *out, size_t len)
{
    size_t off = 0;
    static const char *const dirs[] = { "/dev", "/dev/shm", "/dev/mqueue" };
    for (int i = 0; i < 3; i++) {
        DIR *d = opendir(dirs[i]);
        for (struct dirent *e; d && (e = readdir(d));) {
            struct stat st;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
            if (lstat(path, &st) == 0 && off < len)
                off += (size_t)snprintf(out + off, len - off, "%s %lu %ld.%ld %ld\n", path, (unsigned long)st.st_ino,
                                        (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long)st.st_size);
        }
        if (d) closedir(d);
    }
    static const char *const ipc[] = { "/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg" };
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(ipc[i], "re");
        char line[512];
        int lines = 0;
        while (f && fgets(line, sizeof line, f)) lines++;
        if (f) fclose(f);
        if (off < len) off += (size_t)snprintf(out + off, len - off, "%s %d\n", ipc[i], lines);
    }
}

/* The helper (a child of dsim, host root) in the machine's mount and IPC
 * namespaces: mounts the seed's root at SEED_ROOT of the current root's
 * tree, with a copy of every mount of that tree in its mountinfo order but
 * the disk's overlays, whose places the seed's take; makes it the
 * namespace's root and says so ('r') on `report`; waits for `done` to
 * close; then says ('s') if the machine's shared state is as it found it
 * ('x' if not), and exits. */
static void helper_main(struct world *w, struct snap_machine *sm, int report, int done)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)sm->m->init_pid);
    FILE *f = fopen(path, "re");
    static struct mnt mnts[512];
    int n = 0;
    while (f && n < 512 && fgets(line, sizeof line, f)) {
        struct mnt *x = &mnts[n];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%d %d %u:%u %1023s %1023s", &x->id, &x->parent, &x->maj, &x->min, x->root,
                            x->point) != 6)
            continue;
        x->overlay = !strncmp(dash, " - overlay ", 11);
        n++;
    }
    if (f) fclose(f);
    int ipc = -1;
    snprintf(path, sizeof path, "/proc/%d/ns/ipc", (int)sm->procs[0].tpl.pid);
    if (n == 0 || strcmp(mnts[0].point, "/") || (ipc = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
        setns(sm->mntns, CLONE_NEWNS) != 0 || setns(ipc, CLONE_NEWIPC) != 0)
        _exit(1);
    /* Each mount is: a layer's overlay (the seed's takes its place), a
     * bind of part of a layer (made again from the seed's layer), a copy
     * of a mount's whole tree (taken before the seed's root covers
     * SEED_ROOT: a mount stacked on another is copied for both, the lower
     * one hidden), or in the tree of another. */
    enum { IN_TREE, LAYER, FROM_LAYER, COPY };
    static int what[512], layer_of[512], fd[512];
    what[0] = LAYER;
    layer_of[0] = 0;
    for (int i = 1; i < n; i++) {
        what[i] = IN_TREE;
        fd[i] = -1;
        int layer = -1, from = -1;
        for (size_t k = 1; k < w->nlayers; k++)
            if (mnts[i].overlay && !strcmp(mnts[i].point, w->layers[k])) layer = (int)k;
        bool top = false;
        for (int j = 0; j < i; j++) {
            if (what[j] == LAYER && mnts[i].maj == mnts[j].maj && mnts[i].min == mnts[j].min) from = layer_of[j];
            if (mnts[i].parent != mnts[j].id || what[j] == IN_TREE) continue;
            top = what[j] == LAYER || !strcmp(mnts[i].point, mnts[j].point);
        }
        if (layer > 0) {
            what[i] = LAYER;
            layer_of[i] = layer;
        } else if (top && from >= 0) {
            what[i] = FROM_LAYER;
            layer_of[i] = from;
        } else if (top) {
            what[i] = COPY;
            if ((fd[i] = (int)syscall(SYS_open_tree, AT_FDCWD, mnts[i].point,
                                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE)) < 0)
                _exit(2);
        }
    }
    if (syscall(SYS_move_mount, sm->overlay[0], "", AT_FDCWD, SEED_ROOT, MOVE_MOUNT_F_EMPTY_PATH) != 0) _exit(3);
    for (int i = 1; i < n; i++) {
        if (what[i] == IN_TREE) continue;
        int from = what[i] == LAYER ? sm->overlay[layer_of[i]] : fd[i];
        if (what[i] == FROM_LAYER) {
            char src[2200];
            const char *top = w->layers[layer_of[i]];
            snprintf(src, sizeof src, SEED_ROOT "%s%s", strcmp(top, "/") ? top : "", mnts[i].root);
            from = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        }
        char target[1100];
        snprintf(target, sizeof target, SEED_ROOT "%s", mnts[i].point);
        if (from < 0 || syscall(SYS_move_mount, from, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) != 0) _exit(4);
    }
    /* The seed's root becomes the namespace's (what /proc shows of paths
     * is then the machine's): init and the template, whose root was the
     * last one, move into it; the last one goes. */
    if (chdir(SEED_ROOT) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 || umount2(".", MNT_DETACH) != 0 ||
        chdir("/") != 0)
        _exit(5);
    static char before[65536], after[65536];
    shared_state(before, sizeof before);
    char c = 'r';
    if (write(report, &c, 1) != 1) _exit(6);
    while (read(done, &c, 1) < 0 && errno == EINTR) {}
    shared_state(after, sizeof after);
    c = strcmp(before, after) ? 'x' : 's';
    if (write(report, &c, 1) != 1) _exit(7);
    _exit(0);
}

/* Starts the helper of sm's seed; 0, or -1. report and done are dsim's
 * ends of its pipes. */
static int helper_start(struct world *w, struct snap_machine *sm, int *report, int *done, int nearlier)
{
    int r[2], d[2];
    if (pipe2(r, O_CLOEXEC) != 0) return -1;
    if (pipe2(d, O_CLOEXEC) != 0) { close(r[0]); close(r[1]); return -1; }
    pid_t pid = fork();
    if (pid == 0) {
        close(r[0]);
        close(d[1]);
        /* The earlier helpers' ends: each must see its own `done` close. */
        for (int i = 0; i < nearlier; i++) close(report[i - nearlier]), close(done[i - nearlier]);
        helper_main(w, sm, r[1], d[0]);
    }
    close(r[1]);
    close(d[0]);
    char c = 0;
    if (pid < 0 || read(r[0], &c, 1) != 1 || c != 'r') {
        if (pid > 0) { kill(pid, SIGKILL); waitpid(pid, NULL, 0); }
        close(r[0]);
        close(d[1]);
        return -1;
    }
    sm->helper = pid;
    *report = r[0];
    *done = d[1];
    return 0;
}

/* What the machine's stat results key by host inode, moved from the
 * template's files to the seed's: every entry of the frozen layers, seen
 * in the template's tree and in the seed's. */
struct rekey {
    struct world *w;
    struct machine *m;
    const uint64_t *devs;
    size_t ndevs;
    int troot;
    pid_t seed;
    const char *frozen;         /* the layer's frozen copy, whose paths the walk gives */
    size_t layer;
};

static uint64_t key_in(const uint64_t *devs, size_t n, uint64_t dev)
{
    for (size_t i = 0; i < n; i++)
        if (devs[i] == dev) return MOUNT_DEV_KEY | i;
    return dev;
}

static void rekey_entry(const char *upath, const char *mpath, const struct stat *st, void *arg)
{
    struct rekey *k = arg;
    struct stat a, b;
    struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
    int fa = (int)syscall(SYS_openat2, k->troot, mpath, &how, sizeof how);
    int fb = machine_path_open(k->seed, mpath, true, O_PATH);
    if (fa >= 0 && fb >= 0 && fstat(fa, &a) == 0 && fstat(fb, &b) == 0) {
        uint64_t ka = key_in(k->devs, k->ndevs, a.st_dev), kb = machine_dev_key(k->m, b.st_dev);
        if (ka == kb) idmap_rekey(&k->m->ids, ka, a.st_ino, b.st_ino);
        /* The crash model's too: by what the machine saw, and by the
         * upper layers' files (the template's, the seed's). */
        if (S_ISREG(st->st_mode) && !strncmp(upath, k->frozen, strlen(k->frozen))) {
            char name[64], tpl[4200], mine[4200], content[4200], point[4300];
            const char *rel = upath + strlen(k->frozen);
            snprintf(name, sizeof name, "template-upper%zu", k->layer);
            disk_dir(k->w, k->m, name, tpl, sizeof tpl);
            snprintf(name, sizeof name, "upper%zu", k->layer);
            disk_dir(k->w, k->m, name, mine, sizeof mine);
            disk_content_dir(k->w, k->m, content, sizeof content);
            point_content(content, point, sizeof point);
            if (strlen(tpl) + strlen(rel) < sizeof tpl && strlen(mine) + strlen(rel) < sizeof mine) {
                strcat(tpl, rel);
                strcat(mine, rel);
                disk_rekey_file(k->w, k->m, point, &a, tpl, &b, mine);
            }
        }
    }
    if (fa >= 0) close(fa);
    if (fb >= 0) close(fb);
}

/* In the seed's supervisor: the graveyard at the point copied for the
 * seed (a crash may link its files back into the seed's disk), the
 * machine's ids and durable records of each moved to the copy (an upper
 * layer's file shows its own inode number through the overlay, xino). 0
 * or -1. */
static int seed_graveyard(struct world *w, struct machine *m)
{
    char point[4200], grave[4200], content[4200], records[4300];
    disk_dir(w, m, "point-grave", point, sizeof point);
    disk_dir(w, m, "grave", grave, sizeof grave);
    disk_content_dir(w, m, content, sizeof content);
    point_content(content, records, sizeof records);
    DIR *d = opendir(point);
    if (!d) return errno == ENOENT ? 0 : -1;
    int rc = disk_copy_tree(point, grave);
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        char was[4500], now[4500];
        struct stat a, b;
        if (e->d_name[0] == '.') continue;
        snprintf(was, sizeof was, "%s/%s", point, e->d_name);
        snprintf(now, sizeof now, "%s/%s", grave, e->d_name);
        if (lstat(was, &a) != 0 || lstat(now, &b) != 0) {
            rc = -1;
            break;
        }
        for (size_t n = 0; n < w->nlayers; n++) idmap_rekey(&m->ids, MOUNT_DEV_KEY | n, a.st_ino, b.st_ino);
        disk_rekey_file(w, m, records, &a, was, &b, now);
    }
    closedir(d);
    return rc;
}

/* In the seed's supervisor: its world (the worker's at the point) takes
 * the copies for the templates' processes. 0, or -1 if the seed's mounts do
 * not line up with the template's. */
static int remap(struct world *w, struct snap_machine *sm)
{
    struct machine *m = sm->m;
    m->init_reaped = true;          /* the worker's: never killed here */
    for (int k = 0; k < sm->nprocs; k++) {
        struct process *p = sm->procs[k].p;
        p->pid = p->leader->tid = sm->procs[k].copy;
        /* Its kernel parent is init: its parent's waits, SIGCHLD and
         * getppid are dsim's (syscalls/process.c). */
        p->parent_emulated = p->parent != NULL;
        if (p->parent_emulated) proc_pgid_note(p);
        if (p->pidfd >= 0) close(p->pidfd);
        p->pidfd = -1;
        fdcache_forget_all(p);
        /* A thread blocked on an fd holds a copy of the template's: now the copy's. */
        for (size_t i = 0; i < w->nthreads; i++)
            if (w->threads[i]->proc == p && (w->threads[i]->copy_fd >= 0 || w->threads[i]->npoll_copies) &&
                thread_rehold(w, w->threads[i]) != 0)
                return -1;
    }
    m->tmp_known = false;
    uint64_t *old = m->mount_devs;
    size_t nold = m->nmount_devs;
    m->mount_devs = NULL;
    pid_t copy = sm->procs[0].copy;
    machine_note_mounts(m, copy);
    bool same = m->nmount_devs == nold;
    for (size_t i = 0; same && i < nold; i++) same = old[i] == m->mount_devs[i] || i < w->nlayers;
    if (same) {
        struct rekey k = { w, m, old, nold, sm->troot, copy, NULL, 0 };
        for (size_t n = 0; n < w->nlayers; n++) {
            char name[64], frozen[4200];
            snprintf(name, sizeof name, "frozen%zu", n);
            disk_dir(w, m, name, frozen, sizeof frozen);
            k.frozen = frozen, k.layer = n;
            struct stat st;
            if (lstat(frozen, &st) == 0) rekey_entry(frozen, w->layers[n], &st, &k);
            disk_walk(frozen, strcmp(w->layers[n], "/") ? w->layers[n] : "", rekey_entry, &k);
        }
        same = seed_graveyard(w, m) == 0;
    }
    free(old);
    return same ? 0 : -1;
}

/* Why a seed's supervisor did not run it, as it tells the worker. */
#define SEED_WHY 256

static bool read_all(int fd, void *buf, size_t len)
{
    for (char *p = buf; len > 0;) {
        ssize_t k = read(fd, p, len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        len -= (size_t)k;
    }
    return true;
}

/* In the seed's supervisor, at its end: whether the seed made a process
 * or thread in a machine (its pid namespace's next pid moved). */
static char pids_moved(const struct snapshot *s)
{
    for (size_t k = 0; k < s->n; k++)
        if (startup_last_vtid(s->su, s->sm[k].index) > s->sm[k].last_pid) return 1;
    return 0;
}

bool snapshot_serves(const struct snapshot *s, const struct config *c, uint64_t seed, char *why, size_t len)
{
    bool cold = false;
    for (size_t i = 0; i < s->n; i++) cold = cold || s->sm[i].crash_cold[0];
    if (!cold) return true;
    size_t n = 0;
    struct fault_conf *v = faults_for_run(c, seed, &n);
    bool crash = false;
    for (size_t i = 0; i < n && !crash; i++)
        for (size_t k = 0; k < s->n && !crash; k++)
            if ((crash = s->sm[k].crash_cold[0] && is_crash(&v[i]) && v[i].at_ns >= s->w->now &&
                         !strcmp(v[i].machine, s->sm[k].m->name)))
                snprintf(why, len, "machine %s after the point runs cold, as seed %" PRIu64 " does at %" PRIu64 ".%09" PRIu64
                         " s: %s", s->sm[k].m->name, seed, v[i].at_ns / 1000000000, v[i].at_ns % 1000000000,
                         s->sm[k].crash_cold);
    plan_free(v, n);
    return !crash;
}

int snapshot_seed(struct snapshot *s, uint64_t seed, const struct run_opts *o, struct seed_result *r, char *why,
                  size_t len)
{
    struct world *w = s->w;
    int report[64], done[64], nh = 0, rc = 0;
    /* The copies' sockets' kept timeouts are the seed's (snap_fds_timeouts). */
    size_t timeouts_before = w->nsock_timeouts;
    /* A seed run cold in between (its crashes) confined the disks to its
     * own run directory. */
    cf_set_root(w->run_dir);
    for (size_t i = 0; i < s->n; i++) {
        s->sm[i].helper = 0;
        for (int k = 0; k < s->sm[i].nprocs; k++) s->sm[i].procs[k].copy = 0;
    }
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        struct snap_machine *sm = &s->sm[i];
        if (seed_overlays(w, sm) != 0) {
            snprintf(why, len, "machine %s: cannot make the seed's disk: %s", sm->m->name, strerror(errno));
            rc = -1;
        } else if (helper_start(w, sm, &report[nh], &done[nh], nh) != 0) {
            snprintf(why, len, "machine %s: cannot mount the seed's disk", sm->m->name);
            rc = -1;
        } else {
            nh++;
        }
        for (size_t n = 0; n < w->nlayers; n++)
            if (sm->overlay[n] >= 0) close(sm->overlay[n]);
    }
    /* Every helper before any copy: a helper is a fork of this process,
     * and one forked after a machine's connections were joined to their
     * seed's relay ends would hold those ends open through the seed (a
     * reset closing one would never reach its reader). */
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        struct snap_machine *sm = &s->sm[i];
        for (int k = 0; k < sm->nprocs && rc == 0; k++) rc = snap_proc_copy(&sm->procs[k], sm->m->name, why, len);
        if (rc == 0 && sm->pipes.n) {
            struct tracee made[64];
            pid_t vpids[64];
            for (int k = 0; k < sm->nprocs; k++) made[k] = sm->procs[k].made, vpids[k] = sm->procs[k].p->vpid;
            long r = snap_pipes_make(&sm->pipes, made, vpids, sm->nprocs);
            if (r != 0) {
                snprintf(why, len, "machine %s: its copies could not make the pipes between them: %s", sm->m->name,
                         strerror((int)-r));
                rc = -1;
            }
        }
        for (int k = 0; k < sm->nprocs && rc == 0; k++) {
            char nwhy[300];
            if (snap_net_settle(w, sm->procs[k].copy, &sm->procs[k].afresh, nwhy, sizeof nwhy) != 0) {
                snprintf(why, len, "machine %s: %s", sm->m->name, nwhy);
                rc = -1;
            } else if (snap_fds_timeouts(w, sm->procs[k].copy, &sm->procs[k].afresh) != 0) {
                snprintf(why, len, "machine %s: its copy's sockets could not get their timeouts: %s", sm->m->name,
                         strerror(errno));
                rc = -1;
            }
            snap_proc_note_copy(&sm->procs[k]);
        }
        for (int k = 0; k < sm->nprocs && rc == 0; k++) rc = snap_proc_epolls(&sm->procs[k], sm->m->name, why, len);
        for (int k = 0; k < sm->nprocs && rc == 0; k++) rc = snap_proc_hand_off(&sm->procs[k], sm->m->name, why, len);
    }
    if (rc == 0 && snap_net_closed_make(&s->closed) != 0) {
        snprintf(why, len, "a connection end whose socket was closed could not be made again: %s", strerror(errno));
        rc = -1;
    }
    int pipefd[2] = { -1, -1 };
    pid_t child = -1;
    fflush(NULL);
    if (rc == 0 && pipe2(pipefd, O_CLOEXEC) == 0 && (child = fork()) == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(pipefd[0]);
        struct seed_result mine;
        bool ok = true;
        /* A copy that does not come to its stops (never seen) must not hang
         * the sweep: this supervisor dies, the seed runs cold. */
        signal(SIGALRM, SIG_DFL);
        alarm(TAKE_LIMIT_S);
        char failed[SEED_WHY] = "";
        for (size_t i = 0; i < s->n && ok; i++) {
            const char *name = s->sm[i].m->name;
            for (int k = 0; k < s->sm[i].nprocs && ok; k++)
                if (!(ok = snap_proc_take(&s->sm[i].procs[k]) == 0))
                    snprintf(failed, sizeof failed, "machine %s: pid %d's copy did not come to the point as its template "
                             "stood there", name, (int)s->sm[i].procs[k].p->vpid);
            if (ok && !(ok = remap(w, &s->sm[i]) == 0))
                snprintf(failed, sizeof failed, "machine %s: the seed's mounts are not the template's, or a blocked "
                         "thread's fds could not be taken again", name);
            for (int k = 0; k < s->sm[i].nprocs && ok; k++) {
                if (!(ok = snap_net_rekey(w, &s->sm[i].procs[k].afresh) == 0))
                    snprintf(failed, sizeof failed, "machine %s: a connection's new relay end could not be put in place", name);
                if (ok && !(ok = snap_proc_rekey(&s->sm[i].procs[k], w, s->sm[i].m) == 0))
                    snprintf(failed, sizeof failed, "machine %s: a timerfd's copy could not be taken", name);
            }
        }
        if (ok && !(ok = snap_net_closed_take(w, &s->closed) == 0))
            snprintf(failed, sizeof failed, "a connection end whose socket was closed could not be put in place");
        /* The worker's relay and epoll set are the snapshot's: the seed's own. */
        if (ok && !(ok = netsim_reopen(w) == 0))
            snprintf(failed, sizeof failed, "the network's relay could not be made anew: %s", strerror(errno));
        size_t blen = 0;
        char *bytes = NULL, moved = 0;
        alarm(0);
        if (ok) {
            startup_forked(s->su);
            run_from_point(s->su, seed, o, &mine);
            bytes = result_pack(&mine, &blen);
            moved = pids_moved(s);
        }
        /* No bytes: the copies were not taken, the seed did not run; why. */
        if (write(pipefd[1], &blen, sizeof blen) != sizeof blen ||
            (blen ? write(pipefd[1], bytes, blen) != (ssize_t)blen || write(pipefd[1], &moved, 1) != 1
                  : write(pipefd[1], failed, sizeof failed) != sizeof failed)) {}
        fflush(NULL);
        _exit(0);
    }
    if (pipefd[1] >= 0) close(pipefd[1]);
    /* The seed's relay ends are its supervisor's now. */
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < s->sm[i].nprocs; k++) snap_net_seed_done(&s->sm[i].procs[k].afresh);
    snap_net_closed_done(&s->closed);
    if (rc == 0 && child < 0) {
        snprintf(why, len, "cannot fork the seed's supervisor: %s", strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        size_t blen = 0;
        char *bytes = NULL;
        char moved = 0;
        bool said = read_all(pipefd[0], &blen, sizeof blen);
        bool got = said && blen && (bytes = malloc(blen)) && read_all(pipefd[0], bytes, blen) &&
                   read_all(pipefd[0], &moved, 1);
        char failed[SEED_WHY] = "";
        if (said && !blen && read_all(pipefd[0], failed, sizeof failed)) {
            failed[sizeof failed - 1] = 0;
            snprintf(why, len, "its copies were not taken to the point: %s", failed);    /* not run */
            rc = -1;
        } else if (!got || result_unpack(bytes, blen, r) != 0) {
            /* Its supervisor died: before the seed ran (a copy that never
             * came to its stops, by the take's alarm), or in it. */
            if (blen) snprintf(why, len, "the supervisor of a seed started from it died");
            else snprintf(why, len, "the supervisor of a seed started from it died before the seed ran (a copy that "
                          "did not come to its stops within %d s)", TAKE_LIMIT_S);
            rc = -1;
        } else if (moved) {
            /* The seed made a process or thread: the machine's next pid
             * must go back to the point's for the next. */
            for (size_t i = 0; i < s->n && rc == 0; i++)
                if (machine_reset_pid_cursor(s->sm[i].m, s->sm[i].last_pid) != 0) {
                    snprintf(why, len, "machine %s: cannot reset its next pid (%s) after a seed that made a process",
                             s->sm[i].m->name, strerror(errno));
                    rc = 1;
                }
        }
        free(bytes);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (pipefd[0] >= 0) close(pipefd[0]);
    /* The seed is over: its copies are gone, or go now. */
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < s->sm[i].nprocs; k++)
            if (s->sm[i].procs[k].copy > 0) kill(s->sm[i].procs[k].copy, SIGKILL);
    for (int i = 0; i < nh; i++) {
        close(done[i]);
        char c = 0;
        if (read(report[i], &c, 1) != 1 || c != 's') {
            if (rc == 0) snprintf(why, len, "a seed changed the machines' shared state (/dev, IPC): later seeds run cold");
            rc = rc ? rc : 1;
        }
        close(report[i]);
    }
    for (size_t i = 0; i < s->n; i++) {
        struct snap_machine *sm = &s->sm[i];
        if (sm->helper > 0) while (waitpid(sm->helper, NULL, 0) < 0 && errno == EINTR) {}
        /* The seed's root stays the machine's until the next seed's
         * replaces it: its layers go aside now, and the last seed's,
         * whose root went at this seed's start, go. */
        char dir[4200], name[64], spent[80];
        disk_dir(w, sm->m, "", dir, sizeof dir);
        int at = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        for (size_t n = 0; n < w->nlayers; n++)
            for (int k = 0; k < 2; k++) {
                snprintf(name, sizeof name, "%s%zu", k ? "work" : "upper", n);
                snprintf(spent, sizeof spent, "spent-%s", name);
                remove_entry(dir, spent);
                if (renameat(at, name, at, spent) != 0 && rc == 0) {
                    snprintf(why, len, "machine %s: its seed's %s could not go aside: %s", sm->m->name, name,
                             strerror(errno));
                    rc = 1;
                }
            }
        if (at >= 0) close(at);
        char grave[4200], content[4200];
        grave_dir(w, sm, grave, sizeof grave);
        disk_remove_tree(grave);
        disk_content_dir(w, sm->m, content, sizeof content);
        disk_remove_tree(content);
        if ((ftruncate(sm->m->out_fd, sm->out_size) != 0 || ftruncate(sm->m->err_fd, sm->err_size) != 0) && rc == 0) {
            snprintf(why, len, "machine %s: its output could not go back to the point's: %s", sm->m->name, strerror(errno));
            rc = 1;
        }
    }
    for (size_t i = 0; i < s->nlate; i++)
        if (late_reset(s, &s->late[i]) != 0 && rc == 0) {
            snprintf(why, len, "machine %s, started after the point: its disk could not go back to the point's",
                     s->late[i].m->name);
            rc = 1;
        }
    snap_net_clear(w);
    remove_entry(w->run_dir, "check.out");
    w->nsock_timeouts = timeouts_before;
    return rc;
}
