/* zstd (Debian libzstd-dev): FPStore compresses stored document bodies. */
#include <zstd.h>
