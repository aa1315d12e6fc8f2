#include <stdlib.h>

#include "herald_malloc.h"

#if defined(__GLIBC__)
#include <malloc.h>

int herald_pin_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
#else
int herald_pin_mmap_threshold(int bytes) {
    (void)bytes;
    return 0;
}
#endif
