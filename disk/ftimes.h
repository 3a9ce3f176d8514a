/* File times on virtual time (ftimes.c): a changed file is noted (an fd
 * copy, which the note then owns, or a machine path) and stamped at the
 * machine's next step. */
#ifndef DSIM_FTIMES_H
#define DSIM_FTIMES_H
#include "world/world.h"

struct stat;
void ftimes_note_fd(struct world *w, struct thread *t, int copy, const struct stat *st);
void ftimes_note_path(struct world *w, struct machine *m, const char *mpath);
void ftimes_flush(struct world *w, struct machine *m);
void ftimes_free(struct machine *m);
/* Whether a file is outside the machine's disk (its output, dsim's). */
bool outside_disk(const struct world *w, const struct stat *st);
#endif
