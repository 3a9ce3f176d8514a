/* The dispatch table: every syscall dsim knows, its handler, how to print
 * its arguments and what a signal does to it. A syscall missing here is a
 * fence: the run stops and names it. */
#include "syscalls/sys.h"
#include <seccomp.h>
#include <stdlib.h>
#include <sys/syscall.h>

#ifndef SYS_futex_wake          /* Linux 6.7; not in Debian 12's headers */
#define SYS_futex_wake 454
#define SYS_futex_wait 455
#define SYS_futex_requeue 456
#endif

#define HANDLERS(X) \
    X(sys_read) X(sys_readv) X(sys_pread64) X(sys_preadv) X(sys_recvfrom) X(sys_recvmsg) \
    X(sys_write) X(sys_writev) X(sys_sendto) X(sys_sendmsg) X(sys_accept) X(sys_ioctl) X(sys_fcntl) \
    X(sys_poll) X(sys_ppoll) X(sys_select) X(sys_pselect6) X(sys_epoll_wait) X(sys_epoll_pwait) \
    X(sys_epoll_pwait2) X(sys_clock_gettime) X(sys_clock_getres) X(sys_clock_settime) \
    X(sys_gettimeofday) X(sys_time) X(sys_nanosleep) X(sys_clock_nanosleep) X(sys_alarm) \
    X(sys_getitimer) X(sys_setitimer) X(sys_timerfd_create) X(sys_timerfd_settime) \
    X(sys_timerfd_gettime) X(sys_futex) X(sys_futex_waitv) X(sys_futex2_wait) X(sys_futex2_wake) X(sys_futex2_requeue) X(sys_clone) X(sys_clone3) X(sys_fork) X(sys_vfork) \
    X(sys_execve) X(sys_exit) X(sys_exit_group) X(sys_wait4) X(sys_waitid) X(sys_getppid) X(sys_set_tid_address) \
    X(sys_rt_sigaction) X(sys_kill) X(sys_pause) X(sys_rt_sigsuspend) X(sys_rt_sigtimedwait) X(sys_signalfd) \
    X(sys_ipcget) X(sys_ipcctl) X(sys_shmat) X(sys_shmdt) X(sys_semop) X(sys_semtimedop) X(sys_msgsnd) X(sys_msgrcv) \
    X(sys_getrandom) X(sys_uname) X(sys_sysinfo) X(sys_sched_getaffinity) X(sys_sched_setaffinity) \
    X(sys_sched_yield) X(sys_getcpu) X(sys_times) X(sys_getrusage) X(sys_getdents64) X(sys_prctl) X(sys_arch_prctl) X(sys_personality) X(sys_flock) X(sys_fence) X(sys_open) X(sys_fsync) X(sys_sync) \
    X(sys_mkdir) X(sys_mknod) X(sys_unlink) X(sys_rename) X(sys_link) X(sys_creat) X(sys_pwrite) \
    X(sys_stat) X(sys_statfs) X(sys_fd_copy) X(sys_readlink) X(sys_truncate) X(sys_utimes) X(sys_sendmmsg) X(sys_recvmmsg) \
    X(sys_fallocate) X(sys_socket) X(sys_socketpair) X(sys_bind) X(sys_listen) X(sys_connect) X(sys_getsockname) X(sys_getpeername) \
    X(sys_setsockopt) X(sys_getsockopt) X(sys_close) X(sys_close_range) X(sys_dup2) \
    X(sys_sched_setscheduler) X(sys_sched_setparam) X(sys_sched_getscheduler) X(sys_sched_getparam) \
    X(sys_sched_setattr) X(sys_sched_getattr) X(sys_sched_get_priority_max) X(sys_sched_get_priority_min) \
    X(sys_sched_rr_get_interval) X(sys_getpriority) X(sys_setpriority) X(sys_ioprio_set) X(sys_ioprio_get) \
    X(sys_timer_create) X(sys_timer_settime) X(sys_timer_gettime) X(sys_timer_getoverrun) X(sys_timer_delete)
#define DECLARE(h) enum sys_action h(struct world *w, struct thread *t);
HANDLERS(DECLARE)

/* The generic handlers the rows below name. */
enum sys_action sys_enosys(struct world *w, struct thread *t) { return emulate(t, -ENOSYS); }
enum sys_action sys_pass(struct world *w, struct thread *t) { return SYS_PASS; }
enum sys_action sys_fence(struct world *w, struct thread *t) { return SYS_FENCE; }

/* Restart policy: R restarts under SA_RESTART, I always fails with EINTR. */
#define R RS_RESTART_SA
#define I RS_EINTR
/* One row per syscall: its name, handler, argument kinds, restart policy,
 * support and a note (`dsim syscalls` prints them; docs/syscalls.md is that
 * listing, checked by make check):
 *   EMU        emulated: dsim answers it, or makes it and mends the result;
 *   PASS       passed: the kernel's answer, deterministic given the
 *              machine's namespaces and files;
 *   REFUSED    fails at once, so that libc falls back to what dsim follows;
 *   UNTRAPPED  never stops (seccomp allows it: filter.c takes this list);
 *   EXEC_ONLY  stops only when it makes memory executable (world/rewrite.c);
 *   CPUID_ONLY stops only for cpuid's mode (arch_prctl's ARCH_GET_CPUID and
 *              ARCH_SET_CPUID: world/cpuidarm.h).
 * A syscall not here is a fence: the run stops and names it. */
#define ROW(name, handler, args, rs, support, note) [SYS_##name] = { #name, handler, args, rs, support, note },
#define EMU(name, handler, args, rs, note) ROW(name, handler, args, rs, SUP_EMULATED, note)
#define PASS(name, args, note) ROW(name, sys_pass, args, I, SUP_PASSED, note)
#define REFUSED(name, args, note) ROW(name, sys_enosys, args, I, SUP_REFUSED, note)
#define UNTRAPPED(name, args, note) ROW(name, sys_pass, args, I, SUP_UNTRAPPED, note)
#define EXEC_ONLY(name, args, note) ROW(name, sys_pass, args, I, SUP_EXEC_ONLY, note)
#define CPUID_ONLY(name, handler, args, note) ROW(name, handler, args, I, SUP_CPUID_ONLY, note)

const struct sys_entry sys_table[] = {
    /* Files and fds: local and deterministic given the same files. */
    EMU(open,                      sys_open,               "sxx",    R, "")
    EMU(openat,                    sys_open,               "dsxx",   R, "")
    EMU(creat,                     sys_creat,              "sx",     I, "")
    EMU(close,                     sys_close,              "f",      I, "")
    EMU(close_range,               sys_close_range,        "ffx",    I, "")
    EMU(stat,                      sys_stat,               "sp",     I, "")
    EMU(fstat,                     sys_stat,               "fp",     I, "")
    EMU(lstat,                     sys_stat,               "sp",     I, "")
    EMU(newfstatat,                sys_stat,               "dspx",   I, "")
    EMU(statx,                     sys_stat,               "dsxxp",  I, "")
    PASS(access,                   "sx",     "")
    PASS(faccessat,                "dsx",    "")
    PASS(faccessat2,               "dsxx",   "")
    PASS(lseek,                    "fld",    "")
    PASS(getdents,                 "fpd",    "")
    EMU(getdents64,                sys_getdents64,         "fpd",    I, "")
    EMU(readlink,                  sys_readlink,           "spd",    I, "")
    EMU(readlinkat,                sys_readlink,           "dspd",   I, "")
    EMU(mkdir,                     sys_mkdir,              "sx",     I, "")
    EMU(mkdirat,                   sys_mkdir,              "dsx",    I, "")
    EMU(rmdir,                     sys_unlink,             "s",      I, "")
    EMU(unlink,                    sys_unlink,             "s",      I, "")
    EMU(unlinkat,                  sys_unlink,             "dsx",    I, "")
    EMU(rename,                    sys_rename,             "ss",     I, "")
    EMU(renameat,                  sys_rename,             "dsds",   I, "")
    EMU(renameat2,                 sys_rename,             "dsdsx",  I, "")
    EMU(link,                      sys_link,               "ss",     I, "")
    EMU(linkat,                    sys_link,               "dsdsx",  I, "")
    EMU(symlink,                   sys_link,               "ss",     I, "")
    EMU(symlinkat,                 sys_link,               "sds",    I, "")
    PASS(chmod,                    "sx",     "")
    PASS(fchmod,                   "fx",     "")
    PASS(fchmodat,                 "dsx",    "")
    PASS(chown,                    "sdd",    "")
    PASS(fchown,                   "fdd",    "")
    PASS(lchown,                   "sdd",    "")
    PASS(fchownat,                 "dsddx",  "")
    EMU(truncate,                  sys_truncate,           "sl",     I, "")
    EMU(ftruncate,                 ftimes_fd_change,       "fl",     I, "")
    EMU(fsync,                     sys_fsync,              "f",      I, "")
    EMU(fdatasync,                 sys_fsync,              "f",      I, "")
    EMU(sync,                      sys_sync,               "",       I, "")
    EMU(syncfs,                    sys_sync,               "f",      I, "")
    EMU(fallocate,                 sys_fallocate,          "fxll",   I, "")
    PASS(fadvise64,                "fddx",   "")
    PASS(readahead,                "fdd",    "")
    PASS(sync_file_range,          "fddx",   "")
    EMU(mknod,                     sys_mknod,              "sxd",    I, "")
    EMU(mknodat,                   sys_mknod,              "dsxd",   I, "")
    PASS(dup,                      "f",      "")
    EMU(dup2,                      sys_dup2,               "ff",     I, "")
    EMU(dup3,                      sys_dup2,               "ffx",    I, "")
    PASS(pipe,                     "p",      "")
    PASS(pipe2,                    "px",     "")
    PASS(chdir,                    "s",      "")
    PASS(fchdir,                   "f",      "")
    PASS(getcwd,                   "pd",     "")
    PASS(umask,                    "x",      "")
    EMU(statfs,                    sys_statfs,             "sp",     I, "")
    EMU(fstatfs,                   sys_statfs,             "fp",     I, "")
    EMU(utimensat,                 sys_utimes,             "dspx",   I, "")
    EMU(utimes,                    sys_utimes,             "sp",     I, "")
    EMU(utime,                     sys_utimes,             "sp",     I, "")
    EMU(futimesat,                 sys_utimes,             "dsp",    I, "")
    PASS(getxattr,                 "sspd",   "")
    PASS(lgetxattr,                "sspd",   "")
    PASS(fgetxattr,                "fspd",   "")
    PASS(listxattr,                "spd",    "")
    PASS(llistxattr,               "spd",    "")
    PASS(flistxattr,               "fpd",    "")
    PASS(setxattr,                 "sspdx",  "")
    PASS(lsetxattr,                "sspdx",  "")
    PASS(fsetxattr,                "fspdx",  "")
    PASS(removexattr,              "ss",     "")
    PASS(lremovexattr,             "ss",     "")
    PASS(fremovexattr,             "fs",     "")
    PASS(eventfd,                  "d",      "")
    PASS(eventfd2,                 "dx",     "")
    PASS(epoll_create,             "d",      "")
    PASS(epoll_create1,            "x",      "")
    PASS(epoll_ctl,                "dxfp",   "")
    EMU(signalfd,                  sys_signalfd,           "fpd",    I, "")
    EMU(signalfd4,                 sys_signalfd,           "fpdx",   I, "")
    PASS(memfd_create,             "sx",     "")
    PASS(inotify_init1,            "x",      "")
    PASS(inotify_add_watch,        "fsx",    "")
    PASS(inotify_rm_watch,         "fd",     "")
    EMU(sendfile,                  sys_fd_copy,            "ffpd",   I, "")
    EMU(copy_file_range,           sys_fd_copy,            "fpfpdx", I, "")
    EMU(splice,                    sys_fd_copy,            "fpfpdx", I, "")
    PASS(tee,                      "ffdx",   "")
    EMU(pwrite64,                  sys_pwrite,             "fpdl",   I, "")
    EMU(pwritev,                   sys_pwrite,             "fpdd",   I, "")
    EMU(pwritev2,                  sys_pwrite,             "fpddx",  I, "")
    EMU(flock,                     sys_flock,              "fx",     R, "")
    PASS(chroot,                   "s",      "")
    EMU(read,                      sys_read,               "fpd",    R, "")
    EMU(readv,                     sys_readv,              "fpd",    R, "")
    EMU(pread64,                   sys_pread64,            "fpdl",   R, "")
    EMU(preadv,                    sys_preadv,             "fpdl",   R, "")
    EMU(preadv2,                   sys_preadv,             "fpddx",  R, "")
    EMU(write,                     sys_write,              "fpd",    R, "")
    EMU(writev,                    sys_writev,             "fpd",    R, "")
    EMU(ioctl,                     sys_ioctl,              "fxI",    R, "fence beyond a short list of requests")
    EMU(fcntl,                     sys_fcntl,              "fdI",    R, "")
    /* Sockets: AF_UNIX ones and routing netlink are the kernel's; TCP and UDP are
     * simulated (socket.c); every other family is refused (sockpolicy.h). */
    EMU(socket,                    sys_socket,             "ddd",    I, "TCP, UDP simulated; unix, rtnetlink kernel's; others refused")
    EMU(socketpair,                sys_socketpair,         "ddxp",   I, "")
    EMU(bind,                      sys_bind,               "fpd",    I, "")
    EMU(listen,                    sys_listen,             "fd",     I, "")
    EMU(connect,                   sys_connect,            "fpd",    I, "fence: reconnecting a dissolved TCP socket")
    PASS(shutdown,                 "fd",     "")
    EMU(getsockname,               sys_getsockname,        "fpp",    I, "")
    EMU(getpeername,               sys_getpeername,        "fpp",    I, "")
    EMU(setsockopt,                sys_setsockopt,         "fddpd",  I, "")
    EMU(getsockopt,                sys_getsockopt,         "fddpp",  I, "")
    EMU(recvfrom,                  sys_recvfrom,           "fpdxpp", R, "")
    EMU(recvmsg,                   sys_recvmsg,            "fpx",    R, "")
    EMU(sendto,                    sys_sendto,             "fpdxpd", R, "")
    EMU(sendmsg,                   sys_sendmsg,            "fpx",    R, "")
    EMU(sendmmsg,                  sys_sendmmsg,           "fpdx",   R, "fence: ancillary data, TCP, blocking unix")
    EMU(recvmmsg,                  sys_recvmmsg,           "fpdxp",  R, "fence: ancillary data, TCP, blocking unix")
    EMU(accept,                    sys_accept,             "fpp",    R, "")
    EMU(accept4,                   sys_accept,             "fppx",   R, "")
    /* Readiness. */
    EMU(poll,                      sys_poll,               "pdd",    I, "")
    EMU(ppoll,                     sys_ppoll,              "pdppd",  I, "")
    EMU(select,                    sys_select,             "dpppp",  I, "")
    EMU(pselect6,                  sys_pselect6,           "dppppp", I, "")
    EMU(epoll_wait,                sys_epoll_wait,         "fpdd",   I, "")
    EMU(epoll_pwait,               sys_epoll_pwait,        "fpddpd", I, "")
    EMU(epoll_pwait2,              sys_epoll_pwait2,       "fpdppd", I, "")
    /* Identity and limits: fixed by the namespaces or harmless. */
    PASS(getpid,                   "",       "")
    ROW(getppid,                   sys_getppid,            "",       I, SUP_PASSED, "")
    PASS(gettid,                   "",       "")
    PASS(getuid,                   "",       "")
    PASS(geteuid,                  "",       "")
    PASS(getgid,                   "",       "")
    PASS(getegid,                  "",       "")
    PASS(getgroups,                "dp",     "")
    PASS(setgroups,                "dp",     "")
    PASS(getresuid,                "ppp",    "")
    PASS(getresgid,                "ppp",    "")
    PASS(setuid,                   "d",      "")
    PASS(setgid,                   "d",      "")
    PASS(setreuid,                 "dd",     "")
    PASS(setregid,                 "dd",     "")
    PASS(setresuid,                "ddd",    "")
    PASS(setresgid,                "ddd",    "")
    PASS(setfsuid,                 "d",      "")
    PASS(setfsgid,                 "d",      "")
    PASS(getpgid,                  "d",      "")
    PASS(getpgrp,                  "",       "")
    PASS(getsid,                   "d",      "")
    PASS(setsid,                   "",       "")
    PASS(setpgid,                  "dd",     "")
    PASS(getrlimit,                "dp",     "")
    PASS(setrlimit,                "dp",     "")
    PASS(prlimit64,                "ddpp",   "")
    PASS(capget,                   "pp",     "")
    PASS(capset,                   "pp",     "")
    EMU(prctl,                     sys_prctl,              "dxxxx",  I, "TSC modes answered; the rest passed")
    EMU(personality,               sys_personality,        "x",      I, "")
    /* The machine's own scheduler (sched.c): never the host's. */
    EMU(sched_getparam,            sys_sched_getparam,     "dp",     I, "")
    EMU(sched_setparam,            sys_sched_setparam,     "dp",     I, "")
    EMU(sched_getscheduler,        sys_sched_getscheduler, "d",      I, "")
    EMU(sched_setscheduler,        sys_sched_setscheduler, "dxp",    I, "")
    EMU(sched_get_priority_max,    sys_sched_get_priority_max,"d",      I, "")
    EMU(sched_get_priority_min,    sys_sched_get_priority_min,"d",      I, "")
    EMU(sched_rr_get_interval,     sys_sched_rr_get_interval,"dp",     I, "")
    EMU(getpriority,               sys_getpriority,        "dd",     I, "")
    EMU(setpriority,               sys_setpriority,        "ddd",    I, "")
    EMU(ioprio_get,                sys_ioprio_get,         "dd",     I, "")
    EMU(ioprio_set,                sys_ioprio_set,         "ddx",    I, "")
    EMU(sched_getattr,             sys_sched_getattr,      "dpdx",   I, "")
    EMU(sched_setattr,             sys_sched_setattr,      "dpx",    I, "")
    PASS(sethostname,              "sd",     "")
    PASS(setdomainname,            "sd",     "")
    PASS(membarrier,               "xx",     "")
    PASS(mbind,                    "pdxpdx", "")
    PASS(get_mempolicy,            "ppdpx",  "")
    PASS(set_mempolicy,            "dpd",    "")
    PASS(mlockall,                 "x",      "")
    PASS(munlockall,               "",       "")
    PASS(pkey_alloc,               "xx",     "")
    PASS(pkey_free,                "d",      "")
    EXEC_ONLY(pkey_mprotect,       "pdxd",   "trapped only with PROT_EXEC")
    PASS(kcmp,                     "ddddd",  "")
    PASS(rt_sigpending,            "pd",     "")
    PASS(restart_syscall,          "",       "")
    EXEC_ONLY(mmap,                "pdxxfd", "trapped only with PROT_EXEC")
    UNTRAPPED(munmap,              "pd",     "")
    EXEC_ONLY(mprotect,            "pdx",    "trapped only with PROT_EXEC")
    UNTRAPPED(brk,                 "p",      "")
    UNTRAPPED(madvise,             "pdx",    "")
    EMU(uname,                     sys_uname,              "p",      I, "")
    EMU(sysinfo,                   sys_sysinfo,            "p",      I, "")
    EMU(getcpu,                    sys_getcpu,             "ppp",    I, "")
    EMU(sched_getaffinity,         sys_sched_getaffinity,  "ddp",    I, "")
    EMU(sched_setaffinity,         sys_sched_setaffinity,  "ddp",    I, "")
    EMU(sched_yield,               sys_sched_yield,        "",       I, "")
    EMU(times,                     sys_times,              "p",      I, "")
    EMU(getrusage,                 sys_getrusage,          "dp",     I, "")
    EMU(getrandom,                 sys_getrandom,          "pdx",    I, "the machine's entropy stream")
    /* Refused so that libc falls back to what dsim can follow. */
    REFUSED(rseq,                  "pdxx",   "ENOSYS")
    REFUSED(io_uring_setup,        "dp",     "ENOSYS")
    REFUSED(io_uring_enter,        "fddxp",  "ENOSYS")
    REFUSED(io_uring_register,     "fdpd",   "ENOSYS")
    REFUSED(io_setup,              "dp",     "ENOSYS")
    REFUSED(io_destroy,            "x",      "ENOSYS")
    REFUSED(io_submit,             "xdp",    "ENOSYS")
    REFUSED(io_cancel,             "xpp",    "ENOSYS")
    REFUSED(io_getevents,          "xddpp",  "ENOSYS")
    /* Time. */
    EMU(clock_gettime,             sys_clock_gettime,      "dp",     I, "")
    EMU(clock_getres,              sys_clock_getres,       "dp",     I, "")
    EMU(clock_settime,             sys_clock_settime,      "dp",     I, "")
    EMU(settimeofday,              sys_clock_settime,      "pp",     I, "")
    EMU(gettimeofday,              sys_gettimeofday,       "pp",     I, "")
    EMU(time,                      sys_time,               "p",      I, "")
    EMU(nanosleep,                 sys_nanosleep,          "pp",     I, "")
    EMU(clock_nanosleep,           sys_clock_nanosleep,    "dxpp",   I, "")
    EMU(alarm,                     sys_alarm,              "d",      I, "")
    EMU(getitimer,                 sys_getitimer,          "dp",     I, "")
    EMU(setitimer,                 sys_setitimer,          "dpp",    I, "")
    EMU(timerfd_create,            sys_timerfd_create,     "dx",     I, "")
    EMU(timerfd_settime,           sys_timerfd_settime,    "fxpp",   I, "")
    EMU(timerfd_gettime,           sys_timerfd_gettime,    "fp",     I, "")
    EMU(timer_create,              sys_timer_create,       "dpp",    I, "")
    EMU(timer_settime,             sys_timer_settime,      "dxpp",   I, "")
    EMU(timer_gettime,             sys_timer_gettime,      "dp",     I, "")
    EMU(timer_getoverrun,          sys_timer_getoverrun,   "d",      I, "")
    EMU(timer_delete,              sys_timer_delete,       "d",      I, "")
    /* Threads and processes. */
    EMU(futex,                     sys_futex,              "pFdppx", R, "fence: the requeue-PI commands")
    EMU(futex_wait,                sys_futex2_wait,        "pxxxpd", R, "")
    EMU(futex_wake,                sys_futex2_wake,        "pxdx",   I, "")
    EMU(futex_requeue,             sys_futex2_requeue,     "pxdd",   I, "")
    EMU(futex_waitv,               sys_futex_waitv,        "pdxpd",  R, "")
    EMU(set_tid_address,           sys_set_tid_address,    "p",      I, "")
    EMU(clone,                     sys_clone,              "xppppx", I, "fence: CLONE_NEW*; CLONE_UNTRACED ignored")
    EMU(clone3,                    sys_clone3,             "pd",     I, "fence: CLONE_NEW*; CLONE_UNTRACED ignored")
    EMU(fork,                      sys_fork,               "",       I, "")
    EMU(vfork,                     sys_vfork,              "",       I, "")
    EMU(execve,                    sys_execve,             "spp",    I, "code rewritten where rdtsc does not fault")
    EMU(execveat,                  sys_execve,             "dsppx",  I, "code rewritten where rdtsc does not fault")
    EMU(exit,                      sys_exit,               "d",      I, "")
    EMU(exit_group,                sys_exit_group,         "d",      I, "")
    EMU(wait4,                     sys_wait4,              "dpxp",   R, "")
    EMU(waitid,                    sys_waitid,             "ddpxp",  R, "")
    PASS(pidfd_open,               "dx",     "")
    PASS(pidfd_getfd,              "ffx",    "")
    EMU(pidfd_send_signal,         sys_kill,               "fdpx",   I, "")
    /* Signals. */
    EMU(rt_sigaction,              sys_rt_sigaction,       "dppd",   I, "")
    EMU(kill,                      sys_kill,               "dd",     I, "")
    EMU(tkill,                     sys_kill,               "dd",     I, "")
    EMU(tgkill,                    sys_kill,               "ddd",    I, "")
    EMU(rt_sigqueueinfo,           sys_kill,               "ddp",    I, "")
    EMU(rt_tgsigqueueinfo,         sys_kill,               "dddp",   I, "")
    EMU(pause,                     sys_pause,              "",       I, "")
    EMU(rt_sigsuspend,             sys_rt_sigsuspend,      "pd",     I, "")
    EMU(rt_sigtimedwait,           sys_rt_sigtimedwait,    "pppd",   I, "")
    /* System V IPC, in the machine's own namespace (ipc.c). Waits are never restarted. */
    EMU(shmget,                    sys_ipcget,             "xlx",    I, "")
    EMU(shmat,                     sys_shmat,              "dpx",    I, "")
    EMU(shmdt,                     sys_shmdt,              "p",      I, "")
    EMU(shmctl,                    sys_ipcctl,             "ddp",    I, "")
    EMU(semget,                    sys_ipcget,             "xdx",    I, "")
    EMU(semctl,                    sys_ipcctl,             "dddI",   I, "")
    EMU(semop,                     sys_semop,              "dpd",    I, "")
    EMU(semtimedop,                sys_semtimedop,         "dpdp",   I, "")
    EMU(msgget,                    sys_ipcget,             "xx",     I, "")
    EMU(msgsnd,                    sys_msgsnd,             "dpdx",   I, "")
    EMU(msgrcv,                    sys_msgrcv,             "dpdlx",  I, "")
    EMU(msgctl,                    sys_ipcctl,             "ddp",    I, "")
    /* Never trapped (seccomp allows them): thread-local, deterministic given
     * no ASLR, and hot. */
    UNTRAPPED(mremap,              "pddxp",  "")
    UNTRAPPED(msync,               "pdx",    "")
    UNTRAPPED(mincore,             "pdp",    "")
    UNTRAPPED(mlock,               "pd",     "")
    UNTRAPPED(munlock,             "pd",     "")
    UNTRAPPED(mlock2,              "pdx",    "")
    UNTRAPPED(rt_sigprocmask,      "dppd",   "")
    UNTRAPPED(rt_sigreturn,        "",       "")
    UNTRAPPED(sigaltstack,         "pp",     "")
    CPUID_ONLY(arch_prctl,         sys_arch_prctl,         "xx",     "trapped only for ARCH_GET_CPUID and ARCH_SET_CPUID")
    UNTRAPPED(set_robust_list,     "pd",     "")
    UNTRAPPED(get_robust_list,     "dpp",    "")
};
const unsigned sys_table_len = sizeof sys_table / sizeof *sys_table;

const char *sys_support_name(enum sys_support s)
{
    static const char *const names[] = { "fence", "emulated", "passed", "refused", "untrapped", "exec-only",
                                         "cpuid-only" };
    return s < sizeof names / sizeof *names ? names[s] : "?";
}

const struct sys_entry *sys_lookup(long nr)
{
    if (nr >= 0 && (unsigned long)nr < sys_table_len && sys_table[nr].name) return &sys_table[nr];
    /* Unknown: a fence, named as libseccomp names it. */
    static struct sys_entry unknown;
    static char name[64];
    char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr);
    snprintf(name, sizeof name, "%s", n ? n : "unknown");
    free(n);
    unknown = (struct sys_entry){ name, NULL, "xxxxxx", RS_EINTR, SUP_FENCE, "" };
    return &unknown;
}
