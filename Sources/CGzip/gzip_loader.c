/*
 * zlib loaded on first use (see pw_gzip.h for why). zlib.h is read for the stream's layout and
 * constants only; its functions are looked up in the library once.
 */
#include "pw_gzip.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <zlib.h>

typedef int (*deflate_init_function)(z_streamp, int, int, int, int, int, const char *, int);
typedef int (*deflate_function)(z_streamp, int);
typedef int (*deflate_end_function)(z_streamp);

static struct {
    deflate_init_function init;
    deflate_function deflate;
    deflate_end_function end;
} zlib;

static pthread_once_t zlib_once = PTHREAD_ONCE_INIT;
static int zlib_loaded = 0;

static void load_zlib(void) {
    /* The soname Debian's zlib1g ships; the development link as a fallback. */
    void *library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libz.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    zlib.init = (deflate_init_function)dlsym(library, "deflateInit2_");
    zlib.deflate = (deflate_function)dlsym(library, "deflate");
    zlib.end = (deflate_end_function)dlsym(library, "deflateEnd");
    zlib_loaded = zlib.init && zlib.deflate && zlib.end;
}

int pw_gzip_available(void) {
    pthread_once(&zlib_once, load_zlib);
    return zlib_loaded;
}

/* Stored blocks at worst: 5 bytes a 16 KiB block, the gzip header and trailer (18), and slack. */
size_t pw_gzip_bound(size_t length) { return length + length / 1024 + 64; }

int pw_gzip_compress(const unsigned char *input, size_t input_length, unsigned char *output, size_t capacity,
                     size_t *output_length) {
    if (!pw_gzip_available()) return -1;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    /* Window bits 15 + 16: a gzip wrapper rather than zlib's own; level 6, zlib's default. */
    if (zlib.init(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, (int)sizeof stream) != Z_OK)
        return -1;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)input_length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = zlib.deflate(&stream, Z_FINISH);
    *output_length = capacity - stream.avail_out;
    zlib.end(&stream);
    return status == Z_STREAM_END ? 0 : -1;
}
