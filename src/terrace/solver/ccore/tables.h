/* Card tables, Zobrist keys and the transposition table of the compiled
 * core (tables.c). */
#ifndef TERRACE_TABLES_H
#define TERRACE_TABLES_H

#include "core.h"

/* a transposition table of this many bytes or more has a mapping of its
 * own and grows in place (tables.c) */
#define TT_MAP_BYTES ((size_t)1 << 18)

zset *zobrist(uint64_t seed);
int tt_alloc(Core *s, uint64_t slots);
void tt_free(Core *s);
void build_tables(Core *s);

#endif
