/* The policy-learning hunter of the compiled core (nrpa.c). */
#ifndef TERRACE_NRPA_H
#define TERRACE_NRPA_H

#include "core.h"

#define NRPA_MAX_LEVEL 6  /* the core's own bound; options.NRPA_LEVELS is the one users meet */

int nrpa_setup(Core *s, int level, int iterations, uint64_t seed);
int run_nrpa(Core *s, int64_t max_nodes, double seconds);
void nrpa_free(Core *s);

#endif
