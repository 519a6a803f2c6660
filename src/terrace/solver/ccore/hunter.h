/* The search loop of the restarting win-hunters of suit games (hunter.c). */
#ifndef TERRACE_HUNTER_H
#define TERRACE_HUNTER_H

#include "core.h"

/* run() for a search with hunter_options() (core.h) */
int run_hunter(Core *s, int64_t max_nodes, double seconds);

#endif
