/* The memory limit of the compiled core (memory.h). */
#include "memory.h"

static size_t mem_used = 0;
static size_t mem_limit = (size_t)1536 << 20;

int mem_take(size_t n) {
    size_t cur = __atomic_load_n(&mem_used, __ATOMIC_RELAXED);
    for (;;) {
        if (cur + n > mem_limit) return 0;
        if (__atomic_compare_exchange_n(&mem_used, &cur, cur + n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 1;
    }
}

void mem_give(size_t n) { __atomic_fetch_sub(&mem_used, n, __ATOMIC_RELAXED); }

size_t mem_set_limit(size_t limit) {
    size_t old = mem_limit;
    mem_limit = limit;
    return old;
}

size_t mem_in_use(void) { return __atomic_load_n(&mem_used, __ATOMIC_RELAXED); }
