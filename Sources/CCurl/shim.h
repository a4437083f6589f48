#include <curl/curl.h>
#include <dlfcn.h>
#include <stdint.h>

/*
 * curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
 * call; these fixed-signature wrappers are what FPNet uses instead. One
 * wrapper per argument type keeps the C side type-correct: libcurl reads the
 * vararg as exactly the type the option documents (long, curl_off_t, pointer).
 */

/*
 * OpenSSL (libcurl's TLS, loaded with it) frees its global state in an
 * atexit handler. A Swift async main calls exit() from a pool thread while
 * other threads may still touch that state, and `fprint sync` crashed in
 * OPENSSL_sk_value at exit in 1 of ~1,500 runs, after its work was done.
 * Asked before its first use, libcrypto skips that handler (the kernel frees
 * a process's memory anyway). Looked up at run time: a libcurl built on
 * another TLS library has no such symbol, and then nothing is asked.
 */
static inline void fp_openssl_skip_atexit_cleanup(void) {
    typedef int (*init_crypto_fn)(uint64_t options, const void *settings);
    init_crypto_fn init_crypto = (init_crypto_fn)dlsym(RTLD_DEFAULT, "OPENSSL_init_crypto");
    if (init_crypto) init_crypto(0x00080000L /* OPENSSL_INIT_NO_ATEXIT */, NULL);
}

static inline CURLcode fp_curl_global_init(void) {
    fp_openssl_skip_atexit_cleanup();
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline CURLcode fp_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode fp_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* For string, buffer and slist options (libcurl copies strings, not buffers). */
static inline CURLcode fp_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this callback type. */
static inline CURLcode fp_curl_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode fp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLOPT_XFERINFOFUNCTION: called about once a second even when no byte
 * moves; a non-zero return aborts the transfer (how a cancelled task stops it). */
static inline CURLcode fp_curl_setopt_xferinfo(CURL *handle, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}
