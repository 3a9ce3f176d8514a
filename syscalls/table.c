/* The dispatch table: every syscall dsim knows, its handler, how to print
 * its arguments and what a signal does to it. A syscall missing here is a
 * fence: the run stops and names it. */
#include "syscalls/sys.h"
#include <seccomp.h>
#include <stdlib.h>
#include <sys/syscall.h>

#define HANDLERS(X) \
    X(sys_read) X(sys_readv) X(sys_pread64) X(sys_preadv) X(sys_recvfrom) X(sys_recvmsg) \
    X(sys_write) X(sys_writev) X(sys_sendto) X(sys_sendmsg) X(sys_accept) X(sys_ioctl) X(sys_fcntl) \
    X(sys_poll) X(sys_ppoll) X(sys_select) X(sys_pselect6) X(sys_epoll_wait) X(sys_epoll_pwait) \
    X(sys_epoll_pwait2) X(sys_clock_gettime) X(sys_clock_getres) X(sys_clock_settime) \
    X(sys_gettimeofday) X(sys_time) X(sys_nanosleep) X(sys_clock_nanosleep) X(sys_alarm) \
    X(sys_getitimer) X(sys_setitimer) X(sys_timerfd_create) X(sys_timerfd_settime) \
    X(sys_timerfd_gettime) X(sys_futex) X(sys_futex_waitv) X(sys_clone) X(sys_clone3) X(sys_fork) X(sys_vfork) \
    X(sys_execve) X(sys_exit) X(sys_exit_group) X(sys_wait4) X(sys_waitid) X(sys_set_tid_address) \
    X(sys_rt_sigaction) X(sys_kill) X(sys_pause) X(sys_rt_sigsuspend) X(sys_rt_sigtimedwait) X(sys_signalfd) \
    X(sys_ipcget) X(sys_ipcctl) X(sys_shmat) X(sys_shmdt) X(sys_semop) X(sys_semtimedop) X(sys_msgsnd) X(sys_msgrcv) \
    X(sys_getrandom) X(sys_uname) X(sys_sysinfo) X(sys_sched_getaffinity) X(sys_sched_setaffinity) \
    X(sys_sched_yield) X(sys_getcpu) X(sys_times) X(sys_getrusage) X(sys_getdents64) X(sys_prctl) X(sys_personality) X(sys_flock) X(sys_fence) X(sys_open) X(sys_fsync) X(sys_sync) \
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

/* Restart policy: R restarts under SA_RESTART, I always fails with EINTR. */
#define R RS_RESTART_SA
#define I RS_EINTR
#define E(name, handler, args, rs) [SYS_##name] = { #name, handler, args, rs },
#define PASS(name, args) E(name, sys_pass, args, I)

const struct sys_entry sys_table[] = {
    /* Files and fds: local and deterministic given the same files. */
    E(open, sys_open, "sxx", R) E(openat, sys_open, "dsxx", R) E(creat, sys_creat, "sx", I) E(close, sys_close, "f", I) E(close_range, sys_close_range, "ffx", I)
    E(stat, sys_stat, "sp", I) E(fstat, sys_stat, "fp", I) E(lstat, sys_stat, "sp", I)
    E(newfstatat, sys_stat, "dspx", I) E(statx, sys_stat, "dsxxp", I)
    PASS(access, "sx") PASS(faccessat, "dsx") PASS(faccessat2, "dsxx") PASS(lseek, "fld")
    PASS(getdents, "fpd") E(getdents64, sys_getdents64, "fpd", I) E(readlink, sys_readlink, "spd", I) E(readlinkat, sys_readlink, "dspd", I)
    E(mkdir, sys_mkdir, "sx", I) E(mkdirat, sys_mkdir, "dsx", I) E(rmdir, sys_unlink, "s", I)
    E(unlink, sys_unlink, "s", I) E(unlinkat, sys_unlink, "dsx", I)
    E(rename, sys_rename, "ss", I) E(renameat, sys_rename, "dsds", I) E(renameat2, sys_rename, "dsdsx", I)
    E(link, sys_link, "ss", I)
    E(linkat, sys_link, "dsdsx", I) E(symlink, sys_link, "ss", I) E(symlinkat, sys_link, "sds", I) PASS(chmod, "sx")
    PASS(fchmod, "fx") PASS(fchmodat, "dsx") PASS(chown, "sdd") PASS(fchown, "fdd") PASS(lchown, "sdd")
    PASS(fchownat, "dsddx") E(truncate, sys_truncate, "sl", I) E(ftruncate, ftimes_fd_change, "fl", I) E(fsync, sys_fsync, "f", I)
    E(fdatasync, sys_fsync, "f", I) E(sync, sys_sync, "", I) E(syncfs, sys_sync, "f", I) E(fallocate, sys_fallocate, "fxll", I) PASS(fadvise64, "fddx")
    PASS(readahead, "fdd") PASS(sync_file_range, "fddx") E(mknod, sys_mknod, "sxd", I) E(mknodat, sys_mknod, "dsxd", I)
    PASS(dup, "f") E(dup2, sys_dup2, "ff", I) E(dup3, sys_dup2, "ffx", I) PASS(pipe, "p") PASS(pipe2, "px")
    PASS(chdir, "s") PASS(fchdir, "f") PASS(getcwd, "pd") PASS(umask, "x") E(statfs, sys_statfs, "sp", I)
    E(fstatfs, sys_statfs, "fp", I) E(utimensat, sys_utimes, "dspx", I) E(utimes, sys_utimes, "sp", I) E(utime, sys_utimes, "sp", I)
    E(futimesat, sys_utimes, "dsp", I) PASS(getxattr, "sspd") PASS(lgetxattr, "sspd") PASS(fgetxattr, "fspd")
    PASS(listxattr, "spd") PASS(llistxattr, "spd") PASS(flistxattr, "fpd") PASS(setxattr, "sspdx")
    PASS(lsetxattr, "sspdx") PASS(fsetxattr, "fspdx") PASS(removexattr, "ss") PASS(lremovexattr, "ss")
    PASS(fremovexattr, "fs") PASS(eventfd, "d") PASS(eventfd2, "dx") PASS(epoll_create, "d")
    PASS(epoll_create1, "x") PASS(epoll_ctl, "dxfp")
    E(signalfd, sys_signalfd, "fpd", I) E(signalfd4, sys_signalfd, "fpdx", I)
    PASS(memfd_create, "sx") PASS(inotify_init1, "x") PASS(inotify_add_watch, "fsx")
    PASS(inotify_rm_watch, "fd") E(sendfile, sys_fd_copy, "ffpd", I) E(copy_file_range, sys_fd_copy, "fpfpdx", I)
    E(splice, sys_fd_copy, "fpfpdx", I) PASS(tee, "ffdx") E(pwrite64, sys_pwrite, "fpdl", I) E(pwritev, sys_pwrite, "fpdd", I)
    E(pwritev2, sys_pwrite, "fpddx", I) E(flock, sys_flock, "fx", R) PASS(chroot, "s")
    E(read, sys_read, "fpd", R) E(readv, sys_readv, "fpd", R) E(pread64, sys_pread64, "fpdl", R)
    E(preadv, sys_preadv, "fpdl", R) E(preadv2, sys_preadv, "fpddx", R)
    E(write, sys_write, "fpd", R) E(writev, sys_writev, "fpd", R)
    E(ioctl, sys_ioctl, "fxI", R) E(fcntl, sys_fcntl, "fdI", R)
    /* Sockets: AF_UNIX ones and routing netlink are the kernel's; TCP and UDP are
     * simulated (socket.c); every other family is refused (sockpolicy.h). */
    E(socket, sys_socket, "ddd", I) E(socketpair, sys_socketpair, "ddxp", I) E(bind, sys_bind, "fpd", I) E(listen, sys_listen, "fd", I)
    E(connect, sys_connect, "fpd", I) PASS(shutdown, "fd") E(getsockname, sys_getsockname, "fpp", I)
    E(getpeername, sys_getpeername, "fpp", I) E(setsockopt, sys_setsockopt, "fddpd", I)
    E(getsockopt, sys_getsockopt, "fddpp", I)
    E(recvfrom, sys_recvfrom, "fpdxpp", R) E(recvmsg, sys_recvmsg, "fpx", R)
    E(sendto, sys_sendto, "fpdxpd", R) E(sendmsg, sys_sendmsg, "fpx", R)
    E(sendmmsg, sys_sendmmsg, "fpdx", R) E(recvmmsg, sys_recvmmsg, "fpdxp", R)
    E(accept, sys_accept, "fpp", R) E(accept4, sys_accept, "fppx", R)
    /* Readiness. */
    E(poll, sys_poll, "pdd", I) E(ppoll, sys_ppoll, "pdppd", I) E(select, sys_select, "dpppp", I)
    E(pselect6, sys_pselect6, "dppppp", I) E(epoll_wait, sys_epoll_wait, "fpdd", I)
    E(epoll_pwait, sys_epoll_pwait, "fpddpd", I) E(epoll_pwait2, sys_epoll_pwait2, "fpdppd", I)
    /* Identity and limits: fixed by the namespaces or harmless. */
    PASS(getpid, "") PASS(getppid, "") PASS(gettid, "") PASS(getuid, "") PASS(geteuid, "")
    PASS(getgid, "") PASS(getegid, "") PASS(getgroups, "dp") PASS(setgroups, "dp")
    PASS(getresuid, "ppp") PASS(getresgid, "ppp") PASS(setuid, "d") PASS(setgid, "d")
    PASS(setreuid, "dd") PASS(setregid, "dd") PASS(setresuid, "ddd") PASS(setresgid, "ddd")
    PASS(setfsuid, "d") PASS(setfsgid, "d") PASS(getpgid, "d") PASS(getpgrp, "") PASS(getsid, "d")
    PASS(setsid, "") PASS(setpgid, "dd") PASS(getrlimit, "dp") PASS(setrlimit, "dp")
    PASS(prlimit64, "ddpp") PASS(capget, "pp") PASS(capset, "pp") E(prctl, sys_prctl, "dxxxx", I)
    E(personality, sys_personality, "x", I)
    /* The machine's own scheduler (sched.c): never the host's. */
    E(sched_getparam, sys_sched_getparam, "dp", I) E(sched_setparam, sys_sched_setparam, "dp", I)
    E(sched_getscheduler, sys_sched_getscheduler, "d", I) E(sched_setscheduler, sys_sched_setscheduler, "dxp", I)
    E(sched_get_priority_max, sys_sched_get_priority_max, "d", I)
    E(sched_get_priority_min, sys_sched_get_priority_min, "d", I) E(sched_rr_get_interval, sys_sched_rr_get_interval, "dp", I)
    E(getpriority, sys_getpriority, "dd", I) E(setpriority, sys_setpriority, "ddd", I)
    E(ioprio_get, sys_ioprio_get, "dd", I) E(ioprio_set, sys_ioprio_set, "ddx", I)
    E(sched_getattr, sys_sched_getattr, "dpdx", I) E(sched_setattr, sys_sched_setattr, "dpx", I)
    PASS(sethostname, "sd") PASS(setdomainname, "sd") PASS(membarrier, "xx") PASS(mbind, "pdxpdx")
    PASS(get_mempolicy, "ppdpx") PASS(set_mempolicy, "dpd") PASS(mlockall, "x") PASS(munlockall, "")
    PASS(pkey_alloc, "xx") PASS(pkey_free, "d") PASS(pkey_mprotect, "pdxd") PASS(kcmp, "ddddd")
    PASS(rt_sigpending, "pd") PASS(restart_syscall, "")
    PASS(mmap, "pdxxfd") PASS(munmap, "pd") PASS(mprotect, "pdx") PASS(brk, "p") PASS(madvise, "pdx")
    E(uname, sys_uname, "p", I) E(sysinfo, sys_sysinfo, "p", I) E(getcpu, sys_getcpu, "ppp", I)
    E(sched_getaffinity, sys_sched_getaffinity, "ddp", I) E(sched_setaffinity, sys_sched_setaffinity, "ddp", I)
    E(sched_yield, sys_sched_yield, "", I) E(times, sys_times, "p", I) E(getrusage, sys_getrusage, "dp", I)
    E(getrandom, sys_getrandom, "pdx", I)
    /* Refused so that libc falls back to what dsim can follow. */
    E(rseq, sys_enosys, "pdxx", I) E(io_uring_setup, sys_enosys, "dp", I)
    E(io_uring_enter, sys_enosys, "fddxp", I) E(io_uring_register, sys_enosys, "fdpd", I)
    E(io_setup, sys_enosys, "dp", I) E(io_destroy, sys_enosys, "x", I) E(io_submit, sys_enosys, "xdp", I)
    E(io_cancel, sys_enosys, "xpp", I) E(io_getevents, sys_enosys, "xddpp", I)
    /* Time. */
    E(clock_gettime, sys_clock_gettime, "dp", I) E(clock_getres, sys_clock_getres, "dp", I)
    E(clock_settime, sys_clock_settime, "dp", I) E(settimeofday, sys_clock_settime, "pp", I)
    E(gettimeofday, sys_gettimeofday, "pp", I) E(time, sys_time, "p", I)
    E(nanosleep, sys_nanosleep, "pp", I) E(clock_nanosleep, sys_clock_nanosleep, "dxpp", I)
    E(alarm, sys_alarm, "d", I) E(getitimer, sys_getitimer, "dp", I) E(setitimer, sys_setitimer, "dpp", I)
    E(timerfd_create, sys_timerfd_create, "dx", I) E(timerfd_settime, sys_timerfd_settime, "fxpp", I)
    E(timerfd_gettime, sys_timerfd_gettime, "fp", I)
    E(timer_create, sys_timer_create, "dpp", I) E(timer_settime, sys_timer_settime, "dxpp", I)
    E(timer_gettime, sys_timer_gettime, "dp", I) E(timer_getoverrun, sys_timer_getoverrun, "d", I)
    E(timer_delete, sys_timer_delete, "d", I)
    /* Threads and processes. */
    E(futex, sys_futex, "pFdppx", R) E(futex_waitv, sys_futex_waitv, "pdxpd", R)
    E(set_tid_address, sys_set_tid_address, "p", I)
    E(clone, sys_clone, "xppppx", I) E(clone3, sys_clone3, "pd", I) E(fork, sys_fork, "", I)
    E(vfork, sys_vfork, "", I) E(execve, sys_execve, "spp", I) E(execveat, sys_execve, "dsppx", I)
    E(exit, sys_exit, "d", I) E(exit_group, sys_exit_group, "d", I)
    E(wait4, sys_wait4, "dpxp", R) E(waitid, sys_waitid, "ddpxp", R)
    /* Signals. */
    E(rt_sigaction, sys_rt_sigaction, "dppd", I) E(kill, sys_kill, "dd", I) E(tkill, sys_kill, "dd", I)
    E(tgkill, sys_kill, "ddd", I) E(rt_sigqueueinfo, sys_kill, "ddp", I)
    E(rt_tgsigqueueinfo, sys_kill, "dddp", I) E(pause, sys_pause, "", I)
    E(rt_sigsuspend, sys_rt_sigsuspend, "pd", I) E(rt_sigtimedwait, sys_rt_sigtimedwait, "pppd", I)
    /* System V IPC, in the machine's own namespace (ipc.c). Waits are never restarted. */
    E(shmget, sys_ipcget, "xlx", I) E(shmat, sys_shmat, "dpx", I) E(shmdt, sys_shmdt, "p", I)
    E(shmctl, sys_ipcctl, "ddp", I) E(semget, sys_ipcget, "xdx", I) E(semctl, sys_ipcctl, "dddI", I)
    E(semop, sys_semop, "dpd", I) E(semtimedop, sys_semtimedop, "dpdp", I) E(msgget, sys_ipcget, "xx", I)
    E(msgsnd, sys_msgsnd, "dpdx", I) E(msgrcv, sys_msgrcv, "dpdlx", I) E(msgctl, sys_ipcctl, "ddp", I)
};
const unsigned sys_table_len = sizeof sys_table / sizeof *sys_table;

const struct sys_entry *sys_lookup(long nr)
{
    if (nr >= 0 && (unsigned long)nr < sys_table_len && sys_table[nr].name) return &sys_table[nr];
    /* Unknown: a fence, named as libseccomp names it. */
    static struct sys_entry unknown;
    static char name[64];
    char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr);
    snprintf(name, sizeof name, "%s", n ? n : "unknown");
    free(n);
    unknown = (struct sys_entry){ name, NULL, "xxxxxx", RS_EINTR };
    return &unknown;
}
