/* One process of a machine in a warm start's snapshot (snapproc.h). */
#include "supervisor/snapproc.h"
#include "supervisor/snapnet.h"
#include "supervisor/warm.h"
#include "syscalls/sys.h"
#include "world/clockpage.h"
#include "world/tracer.h"
#include "world/world.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/un.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A copy of t made by t (clone3: CLONE_PARENT, so init's child, at pid
 * set_tid in the machine; its tid address cleared at its exit if ctid),
 * traced here and waiting at its first stop. Its host pid, or -errno.
 * exit_signal 0: the parent's leader's is used. */
static long copy_of(struct tracee *t, pid_t set_tid, uint64_t ctid)
{
    return inject_clone3(t, CLONE_PARENT, ctid, set_tid);
}

/* fd `made` of t moved to fd (over the template's file, which the copy
 * shares there) with the point's O_CLOEXEC and O_NONBLOCK: 0 or -errno. */
static long settle_fd(struct tracee *t, int made, int fd, int flags)
{
    long r = inject(t, SYS_dup3, (uint64_t)made, (uint64_t)fd, (uint64_t)(flags & O_CLOEXEC), NULL);
    long c = inject(t, SYS_close, (uint64_t)made, 0, 0, NULL);
    if (r != fd) return r < 0 ? r : -EBADF;
    if (c != 0) return c;
    return flags & O_NONBLOCK ? inject(t, SYS_fcntl, (uint64_t)fd, F_SETFL, O_NONBLOCK, NULL) : 0;
}

/* t opens path (its own open file description) as fd, with the flags and
 * at the offset it had at the point, and takes the locks it held through
 * it; 0 or -errno. */
static long reopen(struct tracee *t, const struct reopened *f)
{
    int fd = f->fd, flags = f->flags;
    long r = inject_buf(t, SYS_openat, 1, f->path, strlen(f->path) + 1, NULL, (uint64_t)AT_FDCWD, 0,
                        (uint64_t)(flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC)));
    if (r < 0 || (r = settle_fd(t, (int)r, fd, flags & O_CLOEXEC)) != 0) return r;
    r = inject(t, SYS_lseek, (uint64_t)fd, (uint64_t)f->pos, SEEK_SET, NULL);
    if (r != f->pos) return r < 0 ? r : -ESPIPE;
    for (int i = 0; i < f->nlocks && r >= 0; i++) {
        const struct warm_lock *l = &f->locks[i];
        if (l->kind == WARM_FLOCK) {
            r = inject(t, SYS_flock, (uint64_t)fd, (uint64_t)((l->write ? LOCK_EX : LOCK_SH) | LOCK_NB), 0, NULL);
            continue;
        }
        struct flock fl = { .l_type = l->write ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET, .l_start = l->start,
                            .l_len = l->end < 0 ? 0 : l->end - l->start + 1 };
        r = inject_buf(t, SYS_fcntl, 2, &fl, sizeof fl, NULL, (uint64_t)fd,
                       (uint64_t)(l->kind == WARM_POSIX ? F_SETLK : F_OFD_SETLK), 0);
    }
    return r < 0 ? r : 0;
}

/* t maps its own disk's file again over each shared mapping of the
 * template's file, as it was (the same pages, protection and offset): 0
 * or -errno. */
static long remap_shared(struct tracee *t, const struct warm_map *maps, int n)
{
    long r = 0;
    for (int i = 0; i < n && r >= 0; i++) {
        const struct warm_map *m = &maps[i];
        long fd = inject_buf(t, SYS_openat, 1, m->path, strlen(m->path) + 1, NULL, (uint64_t)AT_FDCWD, 0,
                             (uint64_t)((m->maywrite ? O_RDWR : O_RDONLY) | O_CLOEXEC));
        if (fd < 0) return fd;
        r = inject6(t, SYS_mmap, (const uint64_t[6]){ m->start, m->end - m->start, (uint64_t)m->prot,
                                                      MAP_SHARED | MAP_FIXED, (uint64_t)fd, m->offset }, NULL);
        r = r == (long)m->start ? 0 : r < 0 ? r : -EFAULT;
        long c = inject(t, SYS_close, (uint64_t)fd, 0, 0, NULL);
        if (!r) r = c;
    }
    return r;
}

/* t takes fd `fd` of the copy at pid `vpid` in its machine (made before
 * it: the same open file), at a new fd of its own: that fd, or -errno. */
static long take_fd(struct tracee *t, pid_t vpid, int fd)
{
    long pidfd = inject(t, SYS_pidfd_open, (uint64_t)vpid, 0, 0, NULL);
    long r = pidfd < 0 ? pidfd : inject(t, SYS_pidfd_getfd, (uint64_t)pidfd, (uint64_t)fd, 0, NULL);
    if (pidfd >= 0) inject(t, SYS_close, (uint64_t)pidfd, 0, 0, NULL);
    return r;
}

/* Autobinds the copy's socket fd: to the first name free after its
 * template's (syscalls/autobind.c drew that one from the machine's
 * entropy; the template holds it in the network namespace the copy
 * shares), as the kernel goes on from a name in use. A cold run has the
 * template's name: a program that shows its name shows another from a
 * snapshot. 0 or -errno. */
struct bind_inject { struct tracee *t; int fd; uint64_t base; };

static long bind_injected(void *ctx, const struct sockaddr_un *a, unsigned len)
{
    struct bind_inject *b = ctx;
    return mem_write(b->t->pid, b->base, a, len) == 0 ? inject(b->t, SYS_bind, (uint64_t)b->fd, b->base, len, NULL)
                                                      : -EFAULT;
}

static long bind_after(struct tracee *t, int fd, const char name[6], uint64_t base)
{
    char digits[6] = { 0 };
    memcpy(digits, name + 1, 5);
    struct bind_inject b = { t, fd, base };
    return autobind_names((uint32_t)strtoul(digits, NULL, 16), bind_injected, &b);
}

/* The copy makes its own socket pairs, pipes, eventfds (timerfds among
 * them), signalfds and sockets, alike, at the template's fd numbers
 * (snapfds.h); its epoll sets come later (make_epolls): 0 or -errno. */
static long make_afresh(struct tracee *t, const struct snap_fds *f)
{
    if (!f->npairs && !f->neventfds && !f->nsignalfds && !f->ndgrams && !f->nsimsocks) return 0;
    uint64_t base = scratch_addr(t);
    char saved[SCRATCH_LEN];
    if (mem_read(t->pid, base, saved, sizeof saved) != 0) return -EFAULT;
    long r = 0;
    for (int i = 0; i < f->npairs && !r; i++) {
        const struct snap_pair *p = &f->pairs[i];
        int sv[2];
        r = p->type ? inject4(t, SYS_socketpair, AF_UNIX, (uint64_t)(p->type | SOCK_CLOEXEC), 0, base, NULL)
                    : inject(t, SYS_pipe2, base, O_CLOEXEC, 0, NULL);
        if (!r && mem_read(t->pid, base, sv, sizeof sv) != 0) r = -EFAULT;
        for (int k = 0; k < 2 && !r; k++) r = settle_fd(t, sv[k], p->fd[k], p->flags[k]);
        if (!r && !p->type) {
            r = inject(t, SYS_fcntl, (uint64_t)p->fd[0], F_SETPIPE_SZ, (uint64_t)p->pipe_size, NULL);
            r = r == p->pipe_size ? 0 : r < 0 ? r : -EINVAL;
        }
        if (!r && p->nbytes) {
            r = inject_buf(t, SYS_write, 1, p->bytes, (size_t)p->nbytes, NULL, (uint64_t)p->fd[1], 0, (uint64_t)p->nbytes);
            r = r == p->nbytes ? 0 : r < 0 ? r : -EIO;
        }
    }
    for (int i = 0; i < f->neventfds && !r; i++) {
        const struct snap_eventfd *e = &f->eventfds[i];
        r = inject(t, SYS_eventfd2, e->count, EFD_CLOEXEC | (e->semaphore ? EFD_SEMAPHORE : 0), 0, NULL);
        if (r >= 0) r = settle_fd(t, (int)r, e->fd, e->flags);
    }
    for (int i = 0; i < f->nsignalfds && !r; i++) {
        const struct snap_signalfd *sfd = &f->signalfds[i];
        r = mem_write(t->pid, base, &sfd->mask, sizeof sfd->mask) == 0
                ? inject4(t, SYS_signalfd4, (uint64_t)-1, base, sizeof sfd->mask, SFD_CLOEXEC, NULL) : -EFAULT;
        if (r >= 0) r = settle_fd(t, (int)r, sfd->fd, sfd->flags);
    }
    for (int i = 0; i < f->ndgrams && !r; i++) {
        const struct snap_dgram *d = &f->dgrams[i];
        r = d->from_vpid ? take_fd(t, d->from_vpid, d->from_fd) : inject(t, SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, NULL);
        int made = (int)r;
        if (r >= 0 && d->autobind && !d->from_vpid) r = bind_after(t, made, d->name, base);
        if (r >= 0) r = settle_fd(t, made, d->fd, d->flags);
    }
    /* A simulated socket of its kernel type: dsim binds it and makes it
     * listen as the template's was (snapnet.c). */
    for (int i = 0; i < f->nsimsocks && !r; i++) {
        const struct snap_simsock *x = &f->simsocks[i];
        r = x->from_vpid ? take_fd(t, x->from_vpid, x->from_fd)
                         : inject(t, SYS_socket, AF_UNIX, (uint64_t)(x->type | SOCK_CLOEXEC), 0, NULL);
        if (r >= 0) r = settle_fd(t, (int)r, x->fd, x->flags);
    }
    if (mem_write(t->pid, base, saved, sizeof saved) != 0 && !r) r = -EFAULT;
    return r;
}

/* The copy makes its epoll sets alike, at the template's fd numbers, once
 * what they watch holds what the template's did (a connection's bytes not
 * yet read are written by dsim after make_afresh: snapnet.c): an
 * edge-triggered watch's adding then makes every edge the copy must take
 * at once. 0 or -errno. */
static long make_epolls(struct tracee *t, const struct snap_fds *f)
{
    if (!f->nepolls) return 0;
    uint64_t base = scratch_addr(t);
    char saved[SCRATCH_LEN];
    if (mem_read(t->pid, base, saved, sizeof saved) != 0) return -EFAULT;
    long r = 0;
    for (int i = 0; i < f->nepolls && !r; i++) {
        const struct snap_epoll *e = &f->epolls[i];
        r = inject(t, SYS_epoll_create1, EPOLL_CLOEXEC, 0, 0, NULL);
        if (r >= 0) r = settle_fd(t, (int)r, e->fd, e->flags);
        for (int k = 0; k < e->nwatches && !r; k++) {
            struct epoll_event ev = { .events = e->watches[k].events, .data.u64 = e->watches[k].data };
            r = mem_write(t->pid, base, &ev, sizeof ev) == 0
                    ? inject4(t, SYS_epoll_ctl, (uint64_t)e->fd, EPOLL_CTL_ADD, (uint64_t)e->watches[k].fd, base, NULL)
                    : -EFAULT;
        }
        /* The edges the adding made, which the template took long ago
         * (snapfds.c read_watches): taken, in one call for every watch. */
        if (!r && e->drain) {
            long got = inject4(t, SYS_epoll_wait, (uint64_t)e->fd, base, SNAP_ET_WATCHES, 0, NULL);
            r = got < 0 ? got : 0;
        }
    }
    if (mem_write(t->pid, base, saved, sizeof saved) != 0 && !r) r = -EFAULT;
    return r;
}

/* ---- mappings a fork would not copy ---- */

struct fork_advice { uint64_t start, len; int advice; };

/* The process's do-not-copy and wipe-on-fork mappings (smaps VmFlags dc,
 * wf: V8's, a CSPRNG's state), each with the advice that marks it. */
static int fork_advised(pid_t pid, struct fork_advice **out)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
    FILE *f = fopen(path, "re");
    int n = 0;
    unsigned long a = 0, b = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long x, y;
        if (sscanf(line, "%lx-%lx ", &x, &y) == 2) a = x, b = y;
        if (strncmp(line, "VmFlags:", 8)) continue;
        for (int k = 0; k < 2; k++) {
            if (!strstr(line, k ? " wf " : " dc ")) continue;
            if (!(*out = realloc(*out, (size_t)(n + 1) * sizeof **out))) abort();
            (*out)[n++] = (struct fork_advice){ a, b - a, k ? MADV_WIPEONFORK : MADV_DONTFORK };
        }
    }
    if (f) fclose(f);
    return n;
}

/* t marks each mapping with its advice (undo: the advice a fork copies,
 * MADV_DOFORK or MADV_KEEPONFORK, instead); 0 or -errno. */
static long fork_advise(struct tracee *t, const struct fork_advice *v, int n, bool undo)
{
    long r = 0;
    for (int i = 0; i < n && !r; i++) {
        int advice = !undo ? v[i].advice : v[i].advice == MADV_DONTFORK ? MADV_DOFORK : MADV_KEEPONFORK;
        r = inject(t, SYS_madvise, v[i].start, v[i].len, (uint64_t)advice, NULL);
    }
    return r;
}

/* The copy, stopped and untraced: SIGSTOP, resumed into its
 * signal-delivery stop, detached into a group stop. */
static int hand_off(pid_t pid)
{
    int status;
    if (kill(pid, SIGSTOP) != 0 || tracer_cont(pid, 0) != 0) return -1;
    if (wait_tracee(pid, &status) != pid || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP || event_of(status))
        return -1;
    return ptrace(PTRACE_DETACH, pid, 0, SIGSTOP) == 0 ? 0 : -1;
}


/* The most simulated sockets of a process at the point. */
#define SNAP_SIMSOCKS 64

/* Its regular files (each copy opens them again) and the fds each copy
 * makes anew, from /proc at the point. 0, or -1 with why. */
static int read_files(const struct world *w, pid_t pid, struct snap_proc *sp, const struct snap_pipes *pipes, int proc,
                      char *why, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    bool ok = d != NULL;
    int *afresh = NULL, nafresh = 0;
    for (struct dirent *e; ok && (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd <= 2 || snap_pipes_holds(pipes, proc, fd)) continue;
        if (!(sp->files = realloc(sp->files, (size_t)(sp->nfiles + 1) * sizeof *sp->files))) abort();
        struct reopened *f = &sp->files[sp->nfiles];
        f->fd = fd;
        if (warm_reopenable(pid, fd, f->path, sizeof f->path, &f->flags, &f->pos, f->locks, &f->nlocks)) sp->nfiles++;
        else if (snap_fd_afresh_kind(pid, fd)) {
            if (!(afresh = realloc(afresh, (size_t)(nafresh + 1) * sizeof *afresh))) abort();
            afresh[nafresh++] = fd;
        } else ok = false;
    }
    if (d) closedir(d);
    snprintf(why, len, "an fd past 2 changed at the point");
    uint64_t sim[SNAP_SIMSOCKS];
    int nsim = ok ? snap_net_inos(w, pid, sim, SNAP_SIMSOCKS, why, len) : 0;
    if (nsim < 0) ok = false;
    if (ok && nafresh) {
        snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
        int netns = open(path, O_RDONLY | O_CLOEXEC);
        ok = netns >= 0 && snap_fds_read(pid, netns, afresh, nafresh, sim, nsim, &sp->afresh, why, len) == 0 &&
             snap_net_check((struct world *)w, pid, netns, &sp->afresh, why, len) == 0;
        if (netns >= 0) close(netns);
    }
    free(afresh);
    return ok ? 0 : -1;
}

/* Every fd of pid with its device and inode. */
static void read_ids(pid_t pid, struct fd_id **out, int *n)
{
    char path[320];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat st;
        snprintf(path, sizeof path, "/proc/%d/fd/%s", (int)pid, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0) continue;
        if (!(*out = realloc(*out, (size_t)(*n + 1) * sizeof **out))) abort();
        (*out)[(*n)++] = (struct fd_id){ atoi(e->d_name), st.st_dev, st.st_ino };
    }
    if (d) closedir(d);
}

int snap_proc_read(const struct world *w, struct process *p, const struct snap_pipes *pipes, int proc,
                   struct snap_proc *sp, char *why, size_t len)
{
    memset(sp, 0, sizeof *sp);
    sp->p = p;
    pid_t pid = p->leader->tid;
    if (tracer_getregs(pid, &sp->tpl.home) != 0) {
        snprintf(why, len, "cannot read its registers: %s", strerror(errno));
        return -1;
    }
    char twhy[200];
    int tr = snap_threads_read(w, p, &sp->threads, twhy, sizeof twhy);
    if (tr != 0) {
        snprintf(why, len, "%s", twhy);
        return tr < -1 ? -2 : -1;
    }
    sp->nadvised = fork_advised(pid, &sp->advised);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
    ssize_t k = readlink(path, sp->cwd, sizeof sp->cwd - 1);
    if (k <= 0 || sp->cwd[0] != '/') {
        snprintf(why, len, "cannot read its working directory at the point");
        return -1;
    }
    sp->cwd[k] = 0;
    if (read_files(w, pid, sp, pipes, proc, why, len) != 0) return -1;
    for (int i = 0; i < sp->afresh.neventfds; i++)
        sp->afresh.eventfds[i].timerfd = timerfd_index((struct world *)w, pid, sp->afresh.eventfds[i].fd);
    char mwhy[200];
    if (warm_shared_maps(pid, p->clock ? p->clock->addr : 0, &sp->maps, &sp->nmaps, mwhy, sizeof mwhy)) {
        snprintf(why, len, "%s", mwhy);
        return -1;
    }
    read_ids(pid, &sp->ids, &sp->nids);
    return 0;
}

int snap_proc_template(struct snap_proc *sp, pid_t tpl_pid, char *why, size_t len)
{
    struct tracee orig = { .pid = sp->p->leader->tid, .home = sp->tpl.home, .at_seccomp = true };
    /* The template a fork of all its memory: the original marked as
     * before right after (it goes on if the snapshot is refused). */
    long adv = fork_advise(&orig, sp->advised, sp->nadvised, true);
    long tpl = adv ? 0 : copy_of(&orig, tpl_pid, 0);
    bool marked_back = !sp->nadvised || fork_advise(&orig, sp->advised, sp->nadvised, false) == 0;
    if (!marked_back || back_home(&orig) != 0) {
        /* Not as the run expects it: the start-up cannot go on. */
        if (tpl > 0) kill((pid_t)tpl, SIGKILL);
        snprintf(why, len, "its process did not come back as it was (%s)",
                 marked_back ? "off its stop" : "its do-not-copy mappings unmarked");
        return -2;
    }
    if (adv) {
        snprintf(why, len, "its do-not-copy mappings could not be marked for a copy (madvise: %s)", strerror((int)-adv));
        return -1;
    }
    if (tpl < 0) {
        if (tpl == -EPERM)
            snprintf(why, len, "the kernel refused a copy at a chosen pid (clone3 set_tid: EPERM; "
                     "the machine's pid namespace is not owned by its command's user namespace)");
        else
            snprintf(why, len, "the kernel refused a copy at a chosen pid (clone3 set_tid: %s)", strerror((int)-tpl));
        return -1;
    }
    sp->tpl.pid = (pid_t)tpl;
    sp->tpl.at_seccomp = false;
    return 0;
}

void snap_proc_note_copy(struct snap_proc *sp)
{
    sp->nrekeys = 0;
    for (int i = 0; i < sp->nids; i++) {
        char path[64];
        struct stat st;
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)sp->copy, sp->ids[i].fd);
        if (stat(path, &st) != 0 || st.st_dev != sp->ids[i].dev || st.st_ino == sp->ids[i].ino) continue;
        if (!(sp->rekeys = realloc(sp->rekeys, (size_t)(sp->nrekeys + 1) * sizeof *sp->rekeys))) abort();
        sp->rekeys[sp->nrekeys++] = (struct snap_rekey){ st.st_dev, sp->ids[i].ino, st.st_ino };
    }
}

int snap_proc_rekey(const struct snap_proc *sp, struct world *w, struct machine *m)
{
    for (int i = 0; i < sp->nrekeys; i++)
        idmap_rekey(&m->ids, machine_dev_key(m, sp->rekeys[i].dev), sp->rekeys[i].from, sp->rekeys[i].to);
    /* dsim bumps a timerfd's count through its own copy of it: the copy's. */
    int pidfd = -1, rc = 0;
    for (int i = 0; i < sp->afresh.neventfds && rc == 0; i++) {
        const struct snap_eventfd *e = &sp->afresh.eventfds[i];
        if (e->timerfd < 0) continue;
        if (pidfd < 0 && (pidfd = (int)syscall(SYS_pidfd_open, sp->copy, 0)) < 0) rc = -1;
        int end = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, e->fd, 0);
        if (end < 0 || timerfd_take(w, e->timerfd, end) != 0) rc = -1;
    }
    if (pidfd >= 0) close(pidfd);
    return rc;
}

int snap_proc_copy(struct snap_proc *sp, const char *machine, char *why, size_t len)
{
    pid_t vpid = sp->p->vpid;
    long c = -EEXIST;
    for (int tries = 0; c == -EEXIST && tries < 2000; tries++) {
        c = copy_of(&sp->tpl, vpid, sp->p->leader->ctid_addr);
        if (c == -EEXIST) nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    }
    if (c < 0) {
        snprintf(why, len, "machine %s: its copy at pid %d: %s", machine, (int)vpid, strerror((int)-c));
        return -1;
    }
    struct tracee copy = { .pid = (pid_t)c, .home = sp->tpl.home, .at_seccomp = false };
    long r1 = 0, r2 = inject_path(&copy, SYS_chdir, sp->cwd);
    for (int i = 0; i < sp->nfiles && !r1 && !r2; i++)
        r1 = reopen(&copy, &sp->files[i]);
    if (!r1 && !r2) r1 = remap_shared(&copy, sp->maps, sp->nmaps);
    if (!r1 && !r2) r1 = make_afresh(&copy, &sp->afresh);
    if (!r1 && !r2) r1 = fork_advise(&copy, sp->advised, sp->nadvised, false);
    long r3 = r1 || r2 ? 0 : snap_threads_make(&copy, &sp->threads);
    sp->copy = copy.pid;
    sp->made = copy;
    if (r1 || r2 || r3) {
        snprintf(why, len, "machine %s: its copy of pid %d could not enter the seed's disk (open %ld, chdir %ld, threads %ld)",
                 machine, (int)vpid, r1, r2, r3);
        return -1;
    }
    return 0;
}

int snap_proc_epolls(struct snap_proc *sp, const char *machine, char *why, size_t len)
{
    long r = make_epolls(&sp->made, &sp->afresh);
    if (r) snprintf(why, len, "machine %s: its copy of pid %d could not make its epoll sets: %s", machine,
                    (int)sp->p->vpid, strerror((int)-r));
    return r ? -1 : 0;
}

int snap_proc_hand_off(struct snap_proc *sp, const char *machine, char *why, size_t len)
{
    struct user_regs_struct r = sp->tpl.home;
    r.rip -= 2, r.rax = sp->tpl.home.orig_rax, r.orig_rax = (unsigned long long)-1;
    if (tracer_setregs(sp->copy, &r) != 0 || hand_off(sp->copy) != 0) {
        snprintf(why, len, "machine %s: its copy of pid %d could not be handed to the seed", machine, (int)sp->p->vpid);
        return -1;
    }
    snap_threads_detach(&sp->threads);      /* into the group stop the first thread began */
    return 0;
}

int snap_proc_take(struct snap_proc *sp)
{
    int status;
    if (ptrace(PTRACE_SEIZE, sp->copy, 0, TRACE_OPTIONS) != 0) return -1;
    if (wait_tracee(sp->copy, &status) != sp->copy || !WIFSTOPPED(status)) return -1;
    if (snap_threads_take(&sp->threads) != 0) return -1;
    kill(sp->copy, SIGCONT);
    bool there = false;
    for (int i = 0; i < 8 && !there; i++) {
        if (tracer_cont(sp->copy, 0) != 0 || wait_tracee(sp->copy, &status) != sp->copy || !WIFSTOPPED(status))
            return -1;
        if (event_of(status) == PTRACE_EVENT_SECCOMP) {
            struct user_regs_struct r;
            if (tracer_getregs(sp->copy, &r) != 0 || memcmp(&r, &sp->tpl.home, sizeof r)) return -1;
            there = true;
        }
    }
    return there ? snap_threads_arrive(&sp->threads) : -1;
}

void snap_proc_end_original(struct snap_proc *sp)
{
    const struct snap_threads *th = &sp->threads;
    pid_t orig = sp->p->leader->tid;
    int status;
    kill(orig, SIGKILL);
    /* Its other threads first: the kernel tells of the first thread's end
     * only after theirs. */
    for (int k = 0; k <= th->n; k++) {
        pid_t tid = k < th->n ? th->v[k].t->tid : orig;
        while (wait_tracee(tid, &status) == tid && !WIFEXITED(status) && !WIFSIGNALED(status)) tracer_cont(tid, 0);
    }
}

void snap_proc_free(struct snap_proc *sp)
{
    if (sp->tpl.pid > 0) {
        int status;
        kill(sp->tpl.pid, SIGKILL);
        wait_tracee(sp->tpl.pid, &status);
    }
    free(sp->files);
    free(sp->maps);
    free(sp->ids);
    free(sp->rekeys);
    snap_fds_free(&sp->afresh);
    snap_threads_free(&sp->threads);
    free(sp->advised);
    memset(sp, 0, sizeof *sp);
}
