/*
 * OpenSSL's libcrypto, loaded on first use instead of linked.
 *
 * The webhook sink is the only user, and it delivers through libcurl, which links libcrypto:
 * by the time a payload is signed, libcrypto is already in the process and dlopen only takes
 * another reference. An agent with no webhook sink never maps it. Linking a cryptography
 * package for two digests used to put about 1 MiB of code (BoringSSL and its Swift wrapper)
 * into every agent's executable, resident or not.
 *
 * Only OpenSSL's stable one-shot entry points are used (SHA256, HMAC, EVP_sha256), resolved by
 * name with prototypes of our own, so no OpenSSL headers are needed to build.
 */
#include "pw_crypto.h"

#include <dlfcn.h>
#include <pthread.h>

typedef const void *(*evp_md_function)(void);
typedef unsigned char *(*sha256_function)(const unsigned char *, size_t, unsigned char *);
typedef unsigned char *(*hmac_function)(const void *, const void *, int, const unsigned char *, size_t,
                                        unsigned char *, unsigned int *);

static struct {
    evp_md_function evp_sha256;
    sha256_function sha256;
    hmac_function hmac;
} crypto;

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static int crypto_loaded = 0;

static void load_crypto(void) {
    /* The soname Debian's libssl3 ships first; the development link as a fallback. */
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    crypto.evp_sha256 = (evp_md_function)dlsym(library, "EVP_sha256");
    crypto.sha256 = (sha256_function)dlsym(library, "SHA256");
    crypto.hmac = (hmac_function)dlsym(library, "HMAC");
    crypto_loaded = crypto.evp_sha256 && crypto.sha256 && crypto.hmac;
}

int pw_crypto_available(void) {
    pthread_once(&crypto_once, load_crypto);
    return crypto_loaded;
}

int pw_sha256(const unsigned char *data, size_t length, unsigned char *out) {
    if (!pw_crypto_available()) return -1;
    return crypto.sha256(data, length, out) ? 0 : -1;
}

int pw_hmac_sha256(const unsigned char *key, size_t key_length, const unsigned char *data, size_t length,
                   unsigned char *out) {
    if (!pw_crypto_available() || key_length > 0x7fffffff) return -1;
    unsigned int written = 0;
    const void *digest = crypto.evp_sha256();
    if (!digest || !crypto.hmac(digest, key, (int)key_length, data, length, out, &written)) return -1;
    return written == PW_SHA256_LENGTH ? 0 : -1;
}
