/* glibc's <malloc.h> calls, behind names that exist with any C library. */
#include "cmalloc.h"
/* Any libc header defines __GLIBC__ (through <features.h>); without one it is never set. */
#include <stdlib.h>

#ifdef __GLIBC__
#include <malloc.h>

int pw_malloc_is_glibc(void) { return 1; }
int pw_malloc_trim(void) { return malloc_trim(0); }
int pw_malloc_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
int pw_malloc_set_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }

#else /* another C library (musl): nothing to call, and each says so */

int pw_malloc_is_glibc(void) { return 0; }
int pw_malloc_trim(void) { return -1; }
int pw_malloc_set_mmap_threshold(int bytes) { (void)bytes; return -1; }
int pw_malloc_set_arena_max(int count) { (void)count; return -1; }

#endif
