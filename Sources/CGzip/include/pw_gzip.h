/*
 * zlib loaded on first use instead of linked: only an agent with an `otlp` sink that compresses
 * its requests maps it, so an agent without one keeps its idle footprint (as libsnappy for
 * remote write, libcurl for every sink that posts).
 */
#ifndef PW_GZIP_H
#define PW_GZIP_H

#include <stddef.h>

/* 1 when libz.so.1 could be loaded with the calls used here, else 0. */
int pw_gzip_available(void);

/* Bytes `pw_gzip_compress` may need for `length` bytes of input, at most. */
size_t pw_gzip_bound(size_t length);

/*
 * `input` as one gzip member (RFC 1952: header, deflate, CRC-32, length) into `output`, which
 * has room for `capacity` bytes; its length into `*output_length`. 0 on success, -1 when zlib is
 * missing or fails.
 */
int pw_gzip_compress(const unsigned char *input, size_t input_length, unsigned char *output, size_t capacity,
                     size_t *output_length);

#endif
