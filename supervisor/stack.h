/* The user-code stack of a stopped tracee thread, symbolized (libunwind-ptrace). */
#ifndef DSIM_STACK_H
#define DSIM_STACK_H
#include <stddef.h>
#include <sys/types.h>
/* Writes lines "    #N 0xADDR function+off (object)"; returns the frame count. */
int stack_format(pid_t tid, char *buf, size_t len);
#endif
