/* The discrepancy hunter of the compiled core (lds.c). */
#ifndef TERRACE_LDS_H
#define TERRACE_LDS_H

#include "core.h"

int lds_setup(Core *s, int ranked);
int run_lds(Core *s, int64_t max_nodes, double seconds);
void lds_free(Core *s);

#endif
