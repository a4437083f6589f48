#ifndef FPRINT_CCURL_H
#define FPRINT_CCURL_H

/*
 * libcurl, loaded when first needed (dlopen), not at process start: with
 * its TLS, Kerberos, LDAP and SSH libraries it is ~30 shared objects, which
 * took about half of every fprint command's start (5 of ~9 ms) although
 * most commands never speak HTTP. curl.h gives the types and constants;
 * call libcurl only through the fp_ functions here (the curl_ ones are not
 * linked). `fprint sync` calls fp_curl_preload() as it starts, so the
 * loading runs on another core while its arguments are parsed.
 */
#include <curl/curl.h>

/* 0 once libcurl is loaded (now, or before: loaded once per process);
 * -1 when it cannot be, with why in fp_curl_load_error(). Thread-safe. */
int fp_curl_load(void);
const char *fp_curl_load_error(void);

/* Starts fp_curl_global_init on a thread of its own and returns at once
 * (the first call only): OpenSSL's setup (~1 ms) then happens off the first
 * request's path too. While the loading runs, glibc holds the lock every
 * pthread_create takes (dl_load_tls_lock, for the new thread's TLS): a
 * thread started meanwhile waits for the whole loading. */
void fp_curl_preload(void);

/* Loads libcurl if needed, then curl_global_init(CURL_GLOBAL_DEFAULT), once
 * per process (thread-safe); the same result on every call. */
CURLcode fp_curl_global_init(void);

/* The libcurl calls fprint makes; only after fp_curl_global_init succeeded. */
CURL *fp_curl_easy_init(void);
void fp_curl_easy_cleanup(CURL *handle);
void fp_curl_easy_reset(CURL *handle);
CURLcode fp_curl_easy_perform(CURL *handle);
const char *fp_curl_easy_strerror(CURLcode code);
struct curl_slist *fp_curl_slist_append(struct curl_slist *list, const char *line);
void fp_curl_slist_free_all(struct curl_slist *list);

/*
 * curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
 * call; one fixed-signature wrapper per argument type keeps the C side
 * type-correct: libcurl reads the vararg as exactly the type the option
 * documents (long, curl_off_t, pointer).
 */
CURLcode fp_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode fp_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/* For string, buffer and slist options (libcurl copies strings, not buffers). */
CURLcode fp_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this callback type. */
CURLcode fp_curl_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value);
/* CURLOPT_XFERINFOFUNCTION: called about once a second even when no byte
 * moves; a non-zero return aborts the transfer (how a cancelled task stops it). */
CURLcode fp_curl_setopt_xferinfo(CURL *handle, curl_xferinfo_callback value);
CURLcode fp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
