// glibc's libcrypt (libxcrypt on Debian): crypt_rn verifies the http sink's bcrypt ($2b$) hashes.
#include <crypt.h>
