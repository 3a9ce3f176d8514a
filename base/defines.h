/* Variants of one config: -D NAME=VALUE on the command line, ${NAME} in the
 * file. Pure text work (no runs), unit-tested in tests/unit/test_defines.c. */
#ifndef DSIM_DEFINES_H
#define DSIM_DEFINES_H
#include <stdbool.h>
#include <stddef.h>

struct defines {
    char **name, **value;   /* in command-line order; a later NAME replaces an earlier one */
    bool *used;             /* set by define_expand */
    size_t n;
};

/* Adds "NAME=VALUE" (NAME: a letter or _, then letters, digits, _; VALUE:
 * one line). 0, or -1 with why in err. */
int define_add(struct defines *d, const char *arg, char *err, size_t errlen);
void defines_free(struct defines *d);

/* The line with ${NAME} replaced by NAME's value, ${NAME:-TEXT} by its
 * value or TEXT when NAME is not defined, and $${ by a literal ${ (for a
 * shell's own ${VAR}); any other $ is left alone. malloc'd, or NULL with
 * the message in err (an undefined NAME, an unclosed ${). d may be NULL. */
char *define_expand(const char *line, struct defines *d, char *err, size_t errlen);

/* word, quoted for a POSIX shell if it needs quoting (malloc'd). */
char *shell_quote(const char *word);
/* " -D NAME=VALUE" for each define, quoted for the shell (malloc'd, "" if none). */
char *defines_options(const struct defines *d);
#endif
