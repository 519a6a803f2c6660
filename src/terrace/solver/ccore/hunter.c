/* The search loop (loop.h) compiled with the options of the restarting
 * win-hunters of suit games as constants (core.h, HUNTER_*): the tests of
 * options that never change in a hunter are gone from its moves, keys and
 * prunings (with the other cuts of stop 68, 3-7% less time a position on
 * Admiral's and General's Patience, docs/winnability.md, "Changes
 * measured"). run() (search.c) calls it for a search that has those
 * options, and the search is the same. */
#define HUNTER_BUILD
#include "hunter.h"
#include "loop.h"

int run_hunter(Core *s, int64_t max_nodes, double seconds) { return search_loop(s, max_nodes, seconds); }
