/*
 * cmalloc.h — glibc's malloc tuning for Swift, which Swift's Glibc module does not declare
 * (<malloc.h> is glibc's own): the agent and its plug-in children keep their heaps from
 * holding memory that large, short-lived buffers leave behind (see HeapTrim and HeapSettings).
 * With a C library that has none of these (musl), each does nothing and says so.
 */
#ifndef PATHWATCH_CMALLOC_H
#define PATHWATCH_CMALLOC_H

/* 1 with glibc, whose calls these are; 0 with another C library, where each does nothing. */
int pw_malloc_is_glibc(void);

/* malloc_trim(0): 1 when memory was given back, 0 when none was, -1 without glibc. */
int pw_malloc_trim(void);

/* mallopt(M_MMAP_THRESHOLD, bytes): a fixed threshold (glibc stops raising it): 1 when set,
 * 0 when refused, -1 without glibc. */
int pw_malloc_set_mmap_threshold(int bytes);

/* mallopt(M_ARENA_MAX, count): 1 when set, 0 when refused, -1 without glibc. */
int pw_malloc_set_arena_max(int count);

#endif
