/* glibc's <malloc.h> calls, behind names that exist with any C library. */
#include "cmalloc.h"
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int pw_malloc_is_glibc(void) {
#ifdef __GLIBC__
    return 1;
#else
    return 0;
#endif
}

int pw_malloc_trim(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return -1;
#endif
}

int pw_malloc_set_mmap_threshold(int bytes) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return -1;
#endif
}

int pw_malloc_set_arena_max(int count) {
#ifdef __GLIBC__
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return -1;
#endif
}
