/* One process of a machine in a warm start's snapshot (snapshot.c): its
 * template, a copy of it made at its stop at the point by a clone3 it is
 * made to call (CLONE_PARENT: init's child; set_tid: at a pid of dsim's
 * choosing), never run; and per seed a copy of the template at the
 * process's own pid, its files opened again, its fds that must not be
 * shared made anew, its threads made again, handed to the seed's
 * supervisor. A machine's processes are all init's children in a seed:
 * dsim answers for their parents (docs/design.md §6 "Process trees"). */
#ifndef DSIM_SNAPPROC_H
#define DSIM_SNAPPROC_H
#include "supervisor/inject.h"
#include "supervisor/snapfds.h"
#include "supervisor/snappipes.h"
#include "supervisor/snapthreads.h"
#include "supervisor/warm.h"

struct world;
struct machine;
struct process;
struct fork_advice;

struct snap_proc {
    struct process *p;              /* the world's: its host pid becomes the copy's */
    struct tracee tpl;              /* the template, stopped, traced here */
    char cwd[4096];                 /* its working directory at the point */
    /* The regular files it had open past fd 2, which each copy opens
     * again for itself (its own offset). */
    struct reopened {
        int fd, flags;
        long long pos;
        char path[4096];
        struct warm_lock locks[WARM_LOCKS];     /* taken again on the copy's (warm.h) */
        int nlocks;
    } *files;
    int nfiles;
    struct warm_map *maps;          /* its shared mappings of its disk's files, made again over the template's */
    int nmaps;
    struct snap_fds afresh;         /* the socket pairs, pipes, eventfds and epoll sets it makes anew */
    struct snap_threads threads;    /* its threads but the first, made again in each copy */
    /* Its mappings a fork would not copy (MADV_DONTFORK) or would wipe
     * (MADV_WIPEONFORK), which the template has as others, and each copy
     * has marked again. */
    struct fork_advice *advised;
    int nadvised;
    pid_t copy;                     /* the seed's copy */
    struct tracee made;             /* the copy before its hand-off */
    /* Its fds' inodes at the point, and the seed's copy's where they differ
     * (the pipes and sockets it made anew): what the machine was told of
     * the template's (fstat, /proc/PID/fd) it is told of the copy's. */
    struct fd_id { int fd; uint64_t dev, ino; } *ids;
    int nids;
    struct snap_rekey { uint64_t dev, from, to; } *rekeys;
    int nrekeys;
};

/* What a copy of p needs, read from p at its stop (its threads, files,
 * mappings); its fds that are ends of pipes (the machine's process number
 * proc) left to the machine's copies (snappipes.h). 0; -1 if refused (why,
 * which does not name p); -2 if the start-up cannot go on. Nothing of p
 * changes: every refusal comes before any template. */
int snap_proc_read(const struct world *w, struct process *p, const struct snap_pipes *pipes, int proc,
                   struct snap_proc *sp, char *why, size_t len);
/* Then p's template at pid tpl_pid, p put back at its stop. 0; -1 if the
 * kernel refused it (p as it was); -2 if p could not be put back as it was
 * (why: the start-up cannot go on). A template that goes (a refusal after
 * it) ends as the child of p's parent: one that is a process of the
 * machine is told of it (SIGCHLD). */
int snap_proc_template(struct snap_proc *sp, pid_t tpl_pid, char *why, size_t len);
/* The seed's copy of sp's template, at the process's pid (init reaps the
 * last seed's in its time: EEXIST until then), in the seed's root, at the
 * point's working directory, its files and threads made (sp->copy, or 0;
 * -1 with why). hand_off then puts it back at the point's stop and hands
 * it off (0, or -1 with why). */
int snap_proc_copy(struct snap_proc *sp, const char *machine, char *why, size_t len);
/* Once its sockets hold what the template's did (snap_net_settle): the
 * copy's epoll sets. 0, or -1 and why. */
int snap_proc_epolls(struct snap_proc *sp, const char *machine, char *why, size_t len);
int snap_proc_hand_off(struct snap_proc *sp, const char *machine, char *why, size_t len);
/* In the worker, its copy's fds all in place: notes which inodes differ
 * from the template's. In the seed's supervisor: the machine m is told of
 * them as of the template's (idmap), and dsim's copy of each timerfd is
 * the copy's. 0, or -1 if a timerfd's could not be taken. */
void snap_proc_note_copy(struct snap_proc *sp);
int snap_proc_rekey(const struct snap_proc *sp, struct world *w, struct machine *m);
/* In the seed's supervisor: takes the copy to the seccomp stop of the
 * point, its registers the template's there. 0 or -1. */
int snap_proc_take(struct snap_proc *sp);
/* The process the template came from goes (every thread's end seen). */
void snap_proc_end_original(struct snap_proc *sp);
void snap_proc_free(struct snap_proc *sp);
#endif
