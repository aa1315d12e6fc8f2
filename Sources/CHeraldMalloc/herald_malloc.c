#include <stdlib.h>

#include "herald_malloc.h"

#if defined(__GLIBC__)
#include <malloc.h>

int herald_pin_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int herald_release_free_memory(void) { return malloc_trim(0); }

int herald_limit_malloc_arenas(int count) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) return 0;
    return mallopt(M_ARENA_MAX, count);
}
#else
int herald_pin_mmap_threshold(int bytes) {
    (void)bytes;
    return 0;
}

int herald_release_free_memory(void) { return 0; }

int herald_limit_malloc_arenas(int count) {
    (void)count;
    return 0;
}
#endif
