#include "curl_shims.h"
#include "curl_loader.h"

#include <errno.h>
#include <sys/socket.h>

const long pw_curl_global_default = CURL_GLOBAL_DEFAULT;

CURLcode pw_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return pw_curl_loaded_easy_setopt_long(handle, option, value);
}

CURLcode pw_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return pw_curl_loaded_easy_setopt_off_t(handle, option, value);
}

CURLcode pw_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return pw_curl_loaded_easy_setopt_pointer(handle, option, value);
}

CURLcode pw_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return pw_curl_loaded_easy_setopt_pointer(handle, option, value);
}

CURLcode pw_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, pw_curl_data_callback callback) {
    return pw_curl_loaded_easy_setopt_function(handle, option, (void (*)(void))callback);
}

CURLcode pw_curl_easy_setopt_xferinfo_callback(CURL *handle, CURLoption option, pw_curl_xferinfo_callback callback) {
    return pw_curl_loaded_easy_setopt_function(handle, option, (void (*)(void))callback);
}

CURLcode pw_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return pw_curl_loaded_easy_getinfo(handle, info, value);
}

CURLcode pw_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return pw_curl_loaded_easy_getinfo(handle, info, value);
}

CURLcode pw_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return pw_curl_loaded_easy_getinfo(handle, info, value);
}

CURLcode pw_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    /* libcurl writes a char * here; the const only tells the caller not to free or change it. */
    char *text = NULL;
    CURLcode code = pw_curl_loaded_easy_getinfo(handle, info, &text);
    *value = text;
    return code;
}

CURLcode pw_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return pw_curl_loaded_easy_getinfo(handle, info, value);
}

CURLMcode pw_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return pw_curl_loaded_multi_setopt_long(multi, option, value);
}

CURLMcode pw_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return pw_curl_loaded_multi_setopt_pointer(multi, option, value);
}

/* libcurl reports a socket() that failed only as "couldn't connect", with CURLINFO_OS_ERRNO
 * often 0, so running out of file descriptors looks like the endpoint being down. Opening the
 * socket here keeps the errno of a failed socket() where the caller can read it. */
static curl_socket_t pw_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0 && clientp) *(int *)clientp = errno;
    return fd < 0 ? CURL_SOCKET_BAD : fd;
}

CURLcode pw_curl_easy_record_socket_errno(CURL *handle, int *last_errno) {
    CURLcode code = pw_curl_loaded_easy_setopt_function(handle, CURLOPT_OPENSOCKETFUNCTION, (void (*)(void))pw_open_socket);
    if (code != CURLE_OK) return code;
    return pw_curl_loaded_easy_setopt_pointer(handle, CURLOPT_OPENSOCKETDATA, (void *)last_errno);
}
