/*
 * pw_crypt.h — bcrypt verification through glibc's libcrypt (libxcrypt on Debian), loaded on
 * first use (see crypt_loader.c): only an http sink with `basic_auth_users` calls it.
 */
#ifndef PATHWATCH_CRYPT_H
#define PATHWATCH_CRYPT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when libcrypt could be loaded and has crypt_rn and crypt_checksalt; 0 otherwise. */
int pw_crypt_available(void);

/* The size of libcrypt's `struct crypt_data`: the working memory pw_crypt_rn takes. */
size_t pw_crypt_data_size(void);

/* crypt_rn(3): the hash of `phrase` with the settings and salt of `setting`, in `data`
   (pw_crypt_data_size() bytes, zeroed before first use); NULL on failure or without libcrypt. */
const char *pw_crypt_rn(const char *phrase, const char *setting, void *data, int size);

/* 1 when crypt_checksalt(3) says CRYPT_SALT_OK for `setting`; 0 otherwise or without libcrypt. */
int pw_crypt_setting_ok(const char *setting);

#ifdef __cplusplus
}
#endif

#endif
