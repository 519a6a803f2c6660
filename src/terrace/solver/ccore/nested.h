/* The nested hunter of the compiled core (nested.c). */
#ifndef TERRACE_NESTED_H
#define TERRACE_NESTED_H

#include "core.h"

int nested_setup(Core *s, uint64_t seed);
int run_nested(Core *s, int64_t max_nodes, double seconds);
void nested_free(Core *s);

#endif
