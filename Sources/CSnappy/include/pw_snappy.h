/*
 * pw_snappy.h — snappy block compression from Debian's libsnappy, loaded on first use.
 *
 * Prometheus remote write compresses each request body with snappy's block format. Only the
 * remote_write sink needs it, so the library is opened with dlopen when that sink first
 * compresses (or its configuration is checked): an agent without the sink never maps it.
 * snappy's own C API (snappy-c.h) is used, resolved by name with prototypes of our own, so no
 * development headers are needed to build.
 */
#ifndef PATHWATCH_SNAPPY_H
#define PATHWATCH_SNAPPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when libsnappy could be loaded and has the functions below; 0 otherwise. */
int pw_snappy_available(void);

/* The most `pw_snappy_compress` can write for `length` input bytes; 0 when not loaded. */
size_t pw_snappy_max_compressed_length(size_t length);

/* Compresses `input` into `output` (room for `*output_length` bytes, at least
 * pw_snappy_max_compressed_length), setting `*output_length` to what was written.
 * Returns 0, or -1 when the library cannot be loaded or refused. */
int pw_snappy_compress(const char *input, size_t input_length, char *output, size_t *output_length);

/* Decompresses a block (for tests and tools); same conventions. */
int pw_snappy_uncompress(const char *input, size_t input_length, char *output, size_t *output_length);
int pw_snappy_uncompressed_length(const char *input, size_t input_length, size_t *result);

#ifdef __cplusplus
}
#endif

#endif
