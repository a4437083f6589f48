#include "ccurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

/* libcurl's entry points, resolved once by load_once. */
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t load_once_control = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

/*
 * OpenSSL (libcurl's TLS, loaded with it) frees its global state in an
 * atexit handler. A Swift async main calls exit() from a pool thread while
 * other threads may still touch that state, and `fprint sync` crashed in
 * OPENSSL_sk_value at exit in 1 of ~1,500 runs, after its work was done.
 * Asked before its first use, libcrypto skips that handler (the kernel frees
 * a process's memory anyway). Looked up in libcurl's own dependencies: a
 * libcurl built on another TLS library has no such symbol, and then nothing
 * is asked.
 */
static void openssl_skip_atexit_cleanup(void *library) {
    typedef int (*init_crypto_fn)(uint64_t options, const void *settings);
    init_crypto_fn init_crypto = (init_crypto_fn)dlsym(library, "OPENSSL_init_crypto");
    if (init_crypto) init_crypto(0x00080000L /* OPENSSL_INIT_NO_ATEXIT */, NULL);
}

#define RESOLVE(field, name)                                                              \
    do {                                                                                  \
        *(void **)(&curl.field) = dlsym(library, name);                                   \
        if (!curl.field) {                                                                \
            snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s", name);      \
            return;                                                                       \
        }                                                                                 \
    } while (0)

static void load_once(void) {
    /* RTLD_LOCAL: its ~30 libraries stay out of the global symbol scope. */
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl (libcurl.so.4, Debian's libcurl4): %s",
                 why ? why : "unknown error");
        return;
    }
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_reset, "curl_easy_reset");
    RESOLVE(easy_perform, "curl_easy_perform");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    openssl_skip_atexit_cleanup(library);
    load_status = 0;
}

int fp_curl_load(void) {
    pthread_once(&load_once_control, load_once);
    return load_status;
}

const char *fp_curl_load_error(void) { return load_error; }

static void *preload_thread(void *unused) {
    (void)unused;
    fp_curl_global_init();
    return NULL;
}

void fp_curl_preload(void) {
    /* Once: a second call (sync's perform after fprint's main) adds nothing. */
    static atomic_flag started = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&started)) return;
    pthread_t thread;
    if (pthread_create(&thread, NULL, preload_thread, NULL) == 0) pthread_detach(thread);
}

static pthread_once_t init_once_control = PTHREAD_ONCE_INIT;
static CURLcode init_status = CURLE_FAILED_INIT;

static void init_once(void) {
    if (fp_curl_load() == 0) init_status = curl.global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode fp_curl_global_init(void) {
    pthread_once(&init_once_control, init_once);
    return init_status;
}

CURL *fp_curl_easy_init(void) { return curl.easy_init(); }
void fp_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void fp_curl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLcode fp_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *fp_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

struct curl_slist *fp_curl_slist_append(struct curl_slist *list, const char *line) {
    return curl.slist_append(list, line);
}

void fp_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode fp_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode fp_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode fp_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode fp_curl_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode fp_curl_setopt_xferinfo(CURL *handle, curl_xferinfo_callback value) {
    return curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

CURLcode fp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}
