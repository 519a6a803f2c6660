/* Moves and the search loop of the compiled core (search.c, loop.h). */
#ifndef TERRACE_SEARCH_H
#define TERRACE_SEARCH_H

#include "core.h"

int grow(Core *s);
int run(Core *s, int64_t max_nodes, double seconds);
int restart(Core *s, uint64_t shuffle, const int32_t *moves, int64_t n, int64_t *bad, int checked);
void root_free(Core *s);
int gen(Core *s, int prev, int prev_u, int32_t *out);

#endif
