#include "curl_shims.h"

const long pw_curl_global_default = CURL_GLOBAL_DEFAULT;

CURLcode pw_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pw_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pw_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pw_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pw_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, pw_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode pw_curl_easy_setopt_xferinfo_callback(CURL *handle, CURLoption option, pw_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode pw_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pw_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pw_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pw_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    /* libcurl writes a char * here; the const only tells the caller not to free or change it. */
    char *text = NULL;
    CURLcode code = curl_easy_getinfo(handle, info, &text);
    *value = text;
    return code;
}

CURLcode pw_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode pw_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLMcode pw_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}
