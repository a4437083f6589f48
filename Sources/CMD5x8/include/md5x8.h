#ifndef FP_MD5X8_H
#define FP_MD5X8_H

#include <stddef.h>
#include <stdint.h>

/* Whether this CPU has AVX2, which fp_md5x8_compress_avx2 needs. */
int fp_md5x8_has_avx2(void);

/*
 * MD5's compression of `count` 64-byte blocks for eight messages side by
 * side (FPCore's MD5Lanes). `state` holds the words a, b, c and d of the
 * eight lanes: a of lane l at state[l], b at state[8 + l], c at
 * state[16 + l], d at state[24 + l]. Lane l's first block is at blocks[l],
 * each next one strides[l] bytes further (0 for an idle lane, which hashes
 * the same block again). Only where fp_md5x8_has_avx2() says so.
 */
void fp_md5x8_compress_avx2(uint32_t state[32], const void *const blocks[8], const size_t strides[8], size_t count);

/* Whether this CPU has AVX-512F and AVX-512VL, which the next one needs. */
int fp_md5x8_has_avx512vl(void);

/* The same compression with AVX-512VL's rotation and ternary logic. */
void fp_md5x8_compress_avx512vl(uint32_t state[32], const void *const blocks[8], const size_t strides[8], size_t count);

#endif
