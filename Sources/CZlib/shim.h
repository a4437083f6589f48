/* zlib (Debian zlib1g-dev): the gateway inflates gzip-encoded attachment
   parts, as CouchDB's replicator sends text attachments. */
#include <zlib.h>
