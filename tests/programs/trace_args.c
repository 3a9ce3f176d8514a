/* trace_args: one call for each kind of argument the trace prints (paths,
 * NULL, pointers, flags, futex ops, an ioctl's int or pointer, errors), so
 * t_trace_records can check the text made from dsim's binary trace records
 * word for word. Prints "trace_args: done". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    static uint32_t word = 1;
    char longpath[200];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[0] = '/';
    longpath[sizeof longpath - 1] = 0;
    syscall(SYS_openat, AT_FDCWD, "/nonexistent/trace-args", O_RDONLY | O_CLOEXEC, 0);
    syscall(SYS_openat, AT_FDCWD, NULL, O_RDONLY, 0);
    syscall(SYS_openat, AT_FDCWD, longpath, O_RDONLY, 0);
    syscall(SYS_openat, -7, "rel", O_WRONLY | O_CREAT, 0640);
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    syscall(SYS_futex, &word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, ~0u);
    syscall(SYS_futex, &word, 0x7f, 0, NULL, NULL, 0);
    syscall(SYS_ioctl, 99, FIONBIO, 1L);
    syscall(SYS_ioctl, 99, TIOCGWINSZ, &word);
    syscall(SYS_lseek, 99, -5L, SEEK_CUR);
    syscall(SYS_kill, 0, 0);
    printf("trace_args: done\n");
    return 0;
}
