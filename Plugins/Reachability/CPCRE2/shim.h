/* PCRE2's 8-bit library: code units are bytes, so a response body is matched as the bytes that
 * arrived. pcre2.h declares every function and type with a `_8` suffix (pcre2_compile_8,
 * pcre2_code_8) behind macros of the plain names, which Swift does not import: Swift code uses
 * the suffixed names, which are the library's real symbols. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
