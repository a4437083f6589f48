#include "md5x8.h"

#include <immintrin.h>

/*
 * MD5Lanes' compression (FPCore/MD5Lanes.swift) in AVX registers: one
 * 256-bit register holds a word of all eight lanes, where the portable
 * Swift code holds it in two SSE registers and spills to the stack.
 * Compiled twice from md5x8_compress.h: for AVX2, and for AVX-512VL, whose
 * rotation is one instruction (vprold, not two shifts and an or) and whose
 * round functions are one ternary-logic instruction each. Each lane is a
 * chain of dependent steps, so fewer instructions per step is what counts.
 */

#define AVX2 __attribute__((target("avx2")))

#define STEP(fn, a, b, c, d, m, k, s)                                                                    \
    a = _mm256_add_epi32((b), ROTL(_mm256_add_epi32(_mm256_add_epi32((a), fn((b), (c), (d))),            \
                                                    _mm256_add_epi32((m), _mm256_set1_epi32((int)(k)))), \
                                   (s)))

/* Rows of eight 32-bit words (row l: words w..w+7 of lane l) turned into
   columns (column i: word w+i of every lane, lane l in element l). */
static inline AVX2 void transpose(const __m256i r[8], __m256i m[8]) {
    __m256i t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi32(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);
        u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
        u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
        u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    for (int k = 0; k < 4; k++) {
        m[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
        m[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
    }
}

/* AVX2 */
#define TARGET AVX2
#define NAME compress_avx2
#define ROTL(x, s) _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s)))
#define F(b, c, d) _mm256_xor_si256((d), _mm256_and_si256((b), _mm256_xor_si256((c), (d))))
#define G(b, c, d) _mm256_xor_si256((c), _mm256_and_si256((d), _mm256_xor_si256((b), (c))))
#define H(b, c, d) _mm256_xor_si256(_mm256_xor_si256((b), (c)), (d))
#define I(b, c, d) _mm256_xor_si256((c), _mm256_or_si256((b), _mm256_xor_si256((d), ones)))
#include "md5x8_compress.h"
#undef TARGET
#undef NAME
#undef ROTL
#undef F
#undef G
#undef H
#undef I

/* AVX-512VL: the ternary-logic immediates are the truth tables of
   F = b ? c : d, G = d ? b : c, H = b ^ c ^ d and I = c ^ (b | ~d),
   indexed by (b << 2) | (c << 1) | d. */
#define TARGET __attribute__((target("avx2,avx512f,avx512vl")))
#define NAME compress_avx512vl
#define ROTL(x, s) _mm256_rol_epi32((x), (s))
#define F(b, c, d) _mm256_ternarylogic_epi32((b), (c), (d), 0xCA)
#define G(b, c, d) _mm256_ternarylogic_epi32((b), (c), (d), 0xE4)
#define H(b, c, d) _mm256_ternarylogic_epi32((b), (c), (d), 0x96)
#define I(b, c, d) _mm256_ternarylogic_epi32((b), (c), (d), 0x39)
#include "md5x8_compress.h"

int fp_md5x8_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

int fp_md5x8_has_avx512vl(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 1 : 0;
}

void fp_md5x8_compress_avx2(uint32_t state[32], const void *const blocks[8], const size_t strides[8], size_t count) {
    compress_avx2(state, blocks, strides, count);
}

void fp_md5x8_compress_avx512vl(uint32_t state[32], const void *const blocks[8], const size_t strides[8], size_t count) {
    compress_avx512vl(state, blocks, strides, count);
}
