/* The beam hunter of the compiled core (beam.c). */
#ifndef TERRACE_BEAM_H
#define TERRACE_BEAM_H

#include "core.h"

int beam_setup(Core *s, int width, int closure, int per_parent, const int64_t *w, uint64_t seed);
int run_beam(Core *s, int64_t max_nodes, double seconds);
void beam_free(Core *s);

#endif
