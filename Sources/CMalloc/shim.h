/* glibc malloc tuning (mallopt, malloc_trim): the gateway gives large buffers back to the kernel. */
#include <malloc.h>
