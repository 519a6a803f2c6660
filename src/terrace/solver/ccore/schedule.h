/* The reserve schedule of the compiled core (schedule.c; prune.py,
 * docs/winnability.md, "Reserve schedule"). */
#ifndef TERRACE_SCHEDULE_H
#define TERRACE_SCHEDULE_H

#include "core.h"

int reserve_schedule(const Core *s, int check, int *need, int only);
void fh_build(Core *s);
static inline int reserve_dead(const Core *s) { return reserve_schedule(s, 1, NULL, -1); }

#endif
