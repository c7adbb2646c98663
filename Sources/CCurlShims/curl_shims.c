#include "curl_shims.h"
/* Wrappers land with the first libcurl user. */
int pw_curl_shims_placeholder(void) { return 0; }
