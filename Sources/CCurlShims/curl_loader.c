/*
 * libcurl, loaded on first use instead of linked.
 *
 * libcurl and the 29 libraries it pulls in (OpenSSL, nghttp2, libssh2, LDAP, Kerberos…) cost an
 * idle agent about 5.6 MiB of memory, while only a webhook sink or a reachability probe ever uses
 * them. So neither the agent nor a plug-in links libcurl: every call goes through these
 * forwarders, which dlopen libcurl.so.4 (RTLD_LOCAL) the first time any of them is called. When
 * libcurl cannot be loaded, each returns the error it documents for "failed to initialise".
 * The forwarders have names of their own (pw_curl_*), so they never interpose on a libcurl that
 * some other library in the process links itself.
 */
#include "curl_shims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    const char *(*multi_strerror)(CURLMcode);
    CURLU *(*url)(void);
    void (*url_cleanup)(CURLU *);
    CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
    CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
    const char *(*url_strerror)(CURLUcode);
    time_t (*getdate)(const char *, const time_t *);
    void (*free)(void *);
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_loaded = 0;

#define RESOLVE(field, name) \
    if (!(curl.field = (__typeof__(curl.field))dlsym(library, name))) return

static void load_curl(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_reset, "curl_easy_reset");
    RESOLVE(easy_perform, "curl_easy_perform");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(multi_init, "curl_multi_init");
    RESOLVE(multi_cleanup, "curl_multi_cleanup");
    RESOLVE(multi_add_handle, "curl_multi_add_handle");
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(multi_perform, "curl_multi_perform");
    RESOLVE(multi_poll, "curl_multi_poll");
    RESOLVE(multi_info_read, "curl_multi_info_read");
    RESOLVE(multi_setopt, "curl_multi_setopt");
    RESOLVE(multi_strerror, "curl_multi_strerror");
    RESOLVE(url, "curl_url");
    RESOLVE(url_cleanup, "curl_url_cleanup");
    RESOLVE(url_set, "curl_url_set");
    RESOLVE(url_get, "curl_url_get");
    RESOLVE(url_strerror, "curl_url_strerror");
    RESOLVE(getdate, "curl_getdate");
    RESOLVE(free, "curl_free");
    curl_loaded = 1;
}

static int have_curl(void) {
    pthread_once(&curl_once, load_curl);
    return curl_loaded;
}

int pw_curl_available(void) { return have_curl(); }

CURLcode pw_curl_global_init(long flags) { return have_curl() ? curl.global_init(flags) : CURLE_FAILED_INIT; }
CURL *pw_curl_easy_init(void) { return have_curl() ? curl.easy_init() : NULL; }
void pw_curl_easy_cleanup(CURL *handle) { if (have_curl()) curl.easy_cleanup(handle); }
void pw_curl_easy_reset(CURL *handle) { if (have_curl()) curl.easy_reset(handle); }
CURLcode pw_curl_easy_perform(CURL *handle) { return have_curl() ? curl.easy_perform(handle) : CURLE_FAILED_INIT; }
const char *pw_curl_easy_strerror(CURLcode code) {
    return have_curl() ? curl.easy_strerror(code) : "libcurl (libcurl.so.4) could not be loaded";
}
struct curl_slist *pw_curl_slist_append(struct curl_slist *list, const char *text) {
    return have_curl() ? curl.slist_append(list, text) : NULL;
}
void pw_curl_slist_free_all(struct curl_slist *list) { if (list && have_curl()) curl.slist_free_all(list); }
CURLM *pw_curl_multi_init(void) { return have_curl() ? curl.multi_init() : NULL; }
CURLMcode pw_curl_multi_cleanup(CURLM *multi) { return have_curl() ? curl.multi_cleanup(multi) : CURLM_INTERNAL_ERROR; }
CURLMcode pw_curl_multi_add_handle(CURLM *multi, CURL *handle) {
    return have_curl() ? curl.multi_add_handle(multi, handle) : CURLM_INTERNAL_ERROR;
}
CURLMcode pw_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    return have_curl() ? curl.multi_remove_handle(multi, handle) : CURLM_INTERNAL_ERROR;
}
CURLMcode pw_curl_multi_perform(CURLM *multi, int *running) {
    return have_curl() ? curl.multi_perform(multi, running) : CURLM_INTERNAL_ERROR;
}
CURLMcode pw_curl_multi_poll(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready) {
    return have_curl() ? curl.multi_poll(multi, extra, count, timeout_ms, ready) : CURLM_INTERNAL_ERROR;
}
CURLMsg *pw_curl_multi_info_read(CURLM *multi, int *queued) { return have_curl() ? curl.multi_info_read(multi, queued) : NULL; }
const char *pw_curl_multi_strerror(CURLMcode code) {
    return have_curl() ? curl.multi_strerror(code) : "libcurl (libcurl.so.4) could not be loaded";
}
CURLU *pw_curl_url(void) { return have_curl() ? curl.url() : NULL; }
void pw_curl_url_cleanup(CURLU *url) { if (url && have_curl()) curl.url_cleanup(url); }
CURLUcode pw_curl_url_set(CURLU *url, CURLUPart part, const char *content, unsigned int flags) {
    return have_curl() ? curl.url_set(url, part, content, flags) : CURLUE_OUT_OF_MEMORY;
}
CURLUcode pw_curl_url_get(CURLU *url, CURLUPart part, char **content, unsigned int flags) {
    return have_curl() ? curl.url_get(url, part, content, flags) : CURLUE_OUT_OF_MEMORY;
}
const char *pw_curl_url_strerror(CURLUcode code) {
    return have_curl() ? curl.url_strerror(code) : "libcurl (libcurl.so.4) could not be loaded";
}
time_t pw_curl_getdate(const char *text) { return have_curl() ? curl.getdate(text, NULL) : -1; }
void pw_curl_free(void *pointer) { if (pointer && have_curl()) curl.free(pointer); }

/* The variadic calls, for the typed wrappers in curl_shims.c. */
CURLcode pw_curl_loaded_easy_setopt_long(CURL *h, CURLoption o, long v) { return have_curl() ? curl.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode pw_curl_loaded_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return have_curl() ? curl.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode pw_curl_loaded_easy_setopt_pointer(CURL *h, CURLoption o, const void *v) { return have_curl() ? curl.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode pw_curl_loaded_easy_setopt_function(CURL *h, CURLoption o, void (*v)(void)) { return have_curl() ? curl.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
CURLcode pw_curl_loaded_easy_getinfo(CURL *h, CURLINFO i, void *out) { return have_curl() ? curl.easy_getinfo(h, i, out) : CURLE_FAILED_INIT; }
CURLMcode pw_curl_loaded_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return have_curl() ? curl.multi_setopt(m, o, v) : CURLM_INTERNAL_ERROR; }
CURLMcode pw_curl_loaded_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return have_curl() ? curl.multi_setopt(m, o, v) : CURLM_INTERNAL_ERROR; }
