/* Card tables, Zobrist keys and the transposition table of the compiled
 * core (tables.c). */
#ifndef TERRACE_TABLES_H
#define TERRACE_TABLES_H

#include "core.h"

zset *zobrist(uint64_t seed);
int tt_alloc(Core *s, uint64_t slots);
void tt_free(Core *s);
void build_tables(Core *s);

#endif
