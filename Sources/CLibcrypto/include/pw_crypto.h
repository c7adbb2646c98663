/*
 * pw_crypto.h — SHA-256 and HMAC-SHA256 from OpenSSL's libcrypto, loaded on first use.
 *
 * The agent needs exactly two digests: HMAC-SHA256 to sign webhook payloads (Standard Webhooks)
 * and SHA-256 to name a webhook's queue folder. Both belong to a sink that already loads libcurl,
 * and libcurl already maps libcrypto, so the digests come from there instead of from a second
 * cryptography library linked into every agent (see crypto_loader.c).
 */
#ifndef PATHWATCH_CRYPTO_H
#define PATHWATCH_CRYPTO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PW_SHA256_LENGTH = 32 };

/* 1 when libcrypto could be loaded and has both functions; 0 otherwise. */
int pw_crypto_available(void);

/* Each returns 0 and fills `out` (32 bytes), or -1 when libcrypto cannot be loaded. */
int pw_sha256(const unsigned char *data, size_t length, unsigned char *out);
int pw_hmac_sha256(const unsigned char *key, size_t key_length, const unsigned char *data, size_t length,
                   unsigned char *out);

#ifdef __cplusplus
}
#endif

#endif
