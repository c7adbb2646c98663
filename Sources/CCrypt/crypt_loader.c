/*
 * glibc's libcrypt (libxcrypt on Debian) loaded on first use instead of linked.
 *
 * Only an http sink with `basic_auth_users` verifies passwords; every other agent never maps
 * the library, the way libcurl (CCurlShims) and libcrypto (CLibcrypto) are opened only by the
 * sinks that use them. <crypt.h> is included for the size of `struct crypt_data` and the
 * prototypes, which the pointers below are checked against; nothing is linked.
 */
#include "pw_crypt.h"

#include <crypt.h>
#include <dlfcn.h>
#include <pthread.h>

static struct {
    __typeof__(&crypt_rn) crypt_rn;
    __typeof__(&crypt_checksalt) crypt_checksalt;
} libcrypt;

static pthread_once_t crypt_once = PTHREAD_ONCE_INIT;
static int crypt_loaded = 0;

static void load_crypt(void) {
    /* libxcrypt's soname (Debian's libcrypt1); the development link as a fallback. */
    void *library = dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcrypt.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    libcrypt.crypt_rn = (__typeof__(&crypt_rn))dlsym(library, "crypt_rn");
    libcrypt.crypt_checksalt = (__typeof__(&crypt_checksalt))dlsym(library, "crypt_checksalt");
    crypt_loaded = libcrypt.crypt_rn && libcrypt.crypt_checksalt;
}

int pw_crypt_available(void) {
    pthread_once(&crypt_once, load_crypt);
    return crypt_loaded;
}

size_t pw_crypt_data_size(void) { return sizeof(struct crypt_data); }

const char *pw_crypt_rn(const char *phrase, const char *setting, void *data, int size) {
    if (!pw_crypt_available()) return NULL;
    return libcrypt.crypt_rn(phrase, setting, data, size);
}

int pw_crypt_setting_ok(const char *setting) {
    if (!pw_crypt_available()) return 0;
    return libcrypt.crypt_checksalt(setting) == CRYPT_SALT_OK;
}
