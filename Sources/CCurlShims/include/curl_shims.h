/*
 * curl_shims.h — typed, non-variadic entry points over libcurl's variadic calls.
 *
 * Swift cannot call C variadic functions, and curl_easy_setopt / curl_easy_getinfo /
 * curl_multi_setopt are variadic. Each wrapper below fixes the type of the one argument, so the
 * caller picks the variant that matches the option's documented type (CURLOPTTYPE_LONG → _long,
 * CURLOPTTYPE_OFF_T → _off_t, strings → _string, objects such as curl_slist → _pointer,
 * callbacks → the variant with the callback's signature). Passing an option with the wrong
 * variant is as wrong as it would be in C.
 *
 * Generic on purpose: any libcurl user in the package (probes, sinks) shares these.
 */
#ifndef PATHWATCH_CURL_SHIMS_H
#define PATHWATCH_CURL_SHIMS_H

#include <curl/curl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libcurl is loaded on first use (see curl_loader.c): call these pw_curl_* forwarders, never
 * libcurl's own functions, which nothing links. Each returns libcurl's error for a failed
 * initialisation when libcurl.so.4 cannot be loaded; pw_curl_available says whether it can. */
int pw_curl_available(void);
CURLcode pw_curl_global_init(long flags);
CURL *pw_curl_easy_init(void);
void pw_curl_easy_cleanup(CURL *handle);
void pw_curl_easy_reset(CURL *handle);
CURLcode pw_curl_easy_perform(CURL *handle);
const char *pw_curl_easy_strerror(CURLcode code);
struct curl_slist *pw_curl_slist_append(struct curl_slist *list, const char *text);
void pw_curl_slist_free_all(struct curl_slist *list);
CURLM *pw_curl_multi_init(void);
CURLMcode pw_curl_multi_cleanup(CURLM *multi);
CURLMcode pw_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode pw_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode pw_curl_multi_perform(CURLM *multi, int *running);
CURLMcode pw_curl_multi_poll(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
CURLMsg *pw_curl_multi_info_read(CURLM *multi, int *queued);
const char *pw_curl_multi_strerror(CURLMcode code);
CURLU *pw_curl_url(void);
void pw_curl_url_cleanup(CURLU *url);
CURLUcode pw_curl_url_set(CURLU *url, CURLUPart part, const char *content, unsigned int flags);
CURLUcode pw_curl_url_get(CURLU *url, CURLUPart part, char **content, unsigned int flags);
const char *pw_curl_url_strerror(CURLUcode code);
time_t pw_curl_getdate(const char *text);
void pw_curl_free(void *pointer);

/* curl_global_init's default flags, a macro expression Swift does not import. */
extern const long pw_curl_global_default;

/* CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION share this shape. */
typedef size_t (*pw_curl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
/* CURLOPT_XFERINFOFUNCTION: return non-zero to abort the transfer. */
typedef int (*pw_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);

/* curl_easy_setopt, one variant per argument type. */
CURLcode pw_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pw_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/* libcurl copies strings it is given (except CURLOPT_POSTFIELDS: use CURLOPT_COPYPOSTFIELDS). */
CURLcode pw_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
/* Objects the caller keeps alive while the handle uses them (curl_slist, userdata, NULL). */
CURLcode pw_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode pw_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, pw_curl_data_callback callback);
CURLcode pw_curl_easy_setopt_xferinfo_callback(CURL *handle, CURLoption option, pw_curl_xferinfo_callback callback);

/* curl_easy_getinfo, one variant per result type (CURLINFO_LONG, _OFF_T, _DOUBLE, _STRING,
 * _PTR / _SLIST). Strings and pointers stay owned by the handle. */
CURLcode pw_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode pw_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode pw_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value);
CURLcode pw_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode pw_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

/* curl_multi_setopt, one variant per argument type. */
CURLMcode pw_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode pw_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value);

/* Opens the handle's sockets itself, so that the errno of a socket() that failed (EMFILE when
 * the agent is out of file descriptors) is stored in *last_errno. */
CURLcode pw_curl_easy_record_socket_errno(CURL *handle, int *last_errno);

#ifdef __cplusplus
}
#endif

#endif /* PATHWATCH_CURL_SHIMS_H */
