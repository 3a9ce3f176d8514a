/* A machine's command line: when it is one simple command that /bin/sh -c
 * would only look up and exec, dsim execs it itself (command_shell = auto),
 * saving the shell's start and an exec in every seed. */
#ifndef DSIM_COMMAND_H
#define DSIM_COMMAND_H
#include <stdbool.h>

/* The words of command (its argv, NULL-terminated; a leading `exec`
 * dropped) if it is words of plain characters, separated by blanks, whose
 * first is neither an assignment nor a builtin or reserved word of the
 * shell; NULL if the shell must run it. One allocation: free() it. */
char **command_words(const char *command);

/* How a machine's command runs ([simulation] command_shell): always by
 * /bin/sh -c, or directly when command_words says it can (auto). */
enum command_shell { COMMAND_SHELL_AUTO, COMMAND_SHELL_ALWAYS };
extern const char *const command_shell_names[2];      /* "auto", "always" */
#endif
