/* The loader's variadic entry points, for the typed wrappers in curl_shims.c (private). */
#ifndef PATHWATCH_CURL_LOADER_H
#define PATHWATCH_CURL_LOADER_H

#include <curl/curl.h>

CURLcode pw_curl_loaded_easy_setopt_long(CURL *h, CURLoption o, long v);
CURLcode pw_curl_loaded_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v);
CURLcode pw_curl_loaded_easy_setopt_pointer(CURL *h, CURLoption o, const void *v);
CURLcode pw_curl_loaded_easy_setopt_function(CURL *h, CURLoption o, void (*v)(void));
CURLcode pw_curl_loaded_easy_getinfo(CURL *h, CURLINFO i, void *out);
CURLMcode pw_curl_loaded_multi_setopt_long(CURLM *m, CURLMoption o, long v);
CURLMcode pw_curl_loaded_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v);

#endif
