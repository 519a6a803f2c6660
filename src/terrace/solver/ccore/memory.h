/* The memory limit of the compiled core: every transposition table,
 * every hunter's set, the policy-learning hunter's weights and the beam
 * hunter's positions and tree of the process draw from it (memory.c). */
#ifndef TERRACE_MEMORY_H
#define TERRACE_MEMORY_H

#include <stddef.h>

int mem_take(size_t n);
void mem_give(size_t n);
size_t mem_set_limit(size_t limit);
size_t mem_in_use(void);

#endif
