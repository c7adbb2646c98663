/*
 * libsnappy loaded on first use instead of linked (see pw_snappy.h for why).
 *
 * snappy-c.h's functions return a snappy_status: 0 is SNAPPY_OK.
 */
#include "pw_snappy.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int (*compress_function)(const char *, size_t, char *, size_t *);
typedef int (*uncompressed_length_function)(const char *, size_t, size_t *);
typedef size_t (*max_length_function)(size_t);

static struct {
    compress_function compress;
    compress_function uncompress;
    uncompressed_length_function uncompressed_length;
    max_length_function max_compressed_length;
} snappy;

static pthread_once_t snappy_once = PTHREAD_ONCE_INIT;
static int snappy_loaded = 0;

static void load_snappy(void) {
    /* The soname Debian's libsnappy1v5 ships; the development link as a fallback. */
    void *library = dlopen("libsnappy.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libsnappy.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    snappy.compress = (compress_function)dlsym(library, "snappy_compress");
    snappy.uncompress = (compress_function)dlsym(library, "snappy_uncompress");
    snappy.uncompressed_length = (uncompressed_length_function)dlsym(library, "snappy_uncompressed_length");
    snappy.max_compressed_length = (max_length_function)dlsym(library, "snappy_max_compressed_length");
    snappy_loaded = snappy.compress && snappy.uncompress && snappy.uncompressed_length && snappy.max_compressed_length;
}

int pw_snappy_available(void) {
    pthread_once(&snappy_once, load_snappy);
    return snappy_loaded;
}

size_t pw_snappy_max_compressed_length(size_t length) {
    if (!pw_snappy_available()) return 0;
    return snappy.max_compressed_length(length);
}

int pw_snappy_compress(const char *input, size_t input_length, char *output, size_t *output_length) {
    if (!pw_snappy_available()) return -1;
    return snappy.compress(input, input_length, output, output_length) == 0 ? 0 : -1;
}

int pw_snappy_uncompress(const char *input, size_t input_length, char *output, size_t *output_length) {
    if (!pw_snappy_available()) return -1;
    return snappy.uncompress(input, input_length, output, output_length) == 0 ? 0 : -1;
}

int pw_snappy_uncompressed_length(const char *input, size_t input_length, size_t *result) {
    if (!pw_snappy_available()) return -1;
    return snappy.uncompressed_length(input, input_length, result) == 0 ? 0 : -1;
}
