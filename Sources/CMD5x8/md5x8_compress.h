/*
 * The body of MD5Lanes' compression, included by md5x8.c once per
 * instruction set: it names the function NAME, compiles it for TARGET and
 * takes the rotation ROTL and the round functions F, G, H and I from the
 * includer. The steps are RFC 1321's, in the same order as the Swift code's.
 */
static TARGET void NAME(uint32_t state[32], const void *const start[8], const size_t strides[8], size_t count) {
    const unsigned char *p[8];
    for (int l = 0; l < 8; l++) p[l] = start[l];
    const __m256i ones = _mm256_set1_epi32(-1);
    (void)ones; /* only where I needs it */
    __m256i a = _mm256_loadu_si256((const __m256i *)(state + 0));
    __m256i b = _mm256_loadu_si256((const __m256i *)(state + 8));
    __m256i c = _mm256_loadu_si256((const __m256i *)(state + 16));
    __m256i d = _mm256_loadu_si256((const __m256i *)(state + 24));
    for (size_t n = 0; n < count; n++) {
        __m256i r[8], m[16];
        for (int l = 0; l < 8; l++) r[l] = _mm256_loadu_si256((const __m256i *)p[l]);
        transpose(r, m);
        for (int l = 0; l < 8; l++) r[l] = _mm256_loadu_si256((const __m256i *)(p[l] + 32));
        transpose(r, m + 8);
        const __m256i a0 = a, b0 = b, c0 = c, d0 = d;
        STEP(F, a, b, c, d, m[0], 0xd76aa478, 7);
        STEP(F, d, a, b, c, m[1], 0xe8c7b756, 12);
        STEP(F, c, d, a, b, m[2], 0x242070db, 17);
        STEP(F, b, c, d, a, m[3], 0xc1bdceee, 22);
        STEP(F, a, b, c, d, m[4], 0xf57c0faf, 7);
        STEP(F, d, a, b, c, m[5], 0x4787c62a, 12);
        STEP(F, c, d, a, b, m[6], 0xa8304613, 17);
        STEP(F, b, c, d, a, m[7], 0xfd469501, 22);
        STEP(F, a, b, c, d, m[8], 0x698098d8, 7);
        STEP(F, d, a, b, c, m[9], 0x8b44f7af, 12);
        STEP(F, c, d, a, b, m[10], 0xffff5bb1, 17);
        STEP(F, b, c, d, a, m[11], 0x895cd7be, 22);
        STEP(F, a, b, c, d, m[12], 0x6b901122, 7);
        STEP(F, d, a, b, c, m[13], 0xfd987193, 12);
        STEP(F, c, d, a, b, m[14], 0xa679438e, 17);
        STEP(F, b, c, d, a, m[15], 0x49b40821, 22);
        STEP(G, a, b, c, d, m[1], 0xf61e2562, 5);
        STEP(G, d, a, b, c, m[6], 0xc040b340, 9);
        STEP(G, c, d, a, b, m[11], 0x265e5a51, 14);
        STEP(G, b, c, d, a, m[0], 0xe9b6c7aa, 20);
        STEP(G, a, b, c, d, m[5], 0xd62f105d, 5);
        STEP(G, d, a, b, c, m[10], 0x02441453, 9);
        STEP(G, c, d, a, b, m[15], 0xd8a1e681, 14);
        STEP(G, b, c, d, a, m[4], 0xe7d3fbc8, 20);
        STEP(G, a, b, c, d, m[9], 0x21e1cde6, 5);
        STEP(G, d, a, b, c, m[14], 0xc33707d6, 9);
        STEP(G, c, d, a, b, m[3], 0xf4d50d87, 14);
        STEP(G, b, c, d, a, m[8], 0x455a14ed, 20);
        STEP(G, a, b, c, d, m[13], 0xa9e3e905, 5);
        STEP(G, d, a, b, c, m[2], 0xfcefa3f8, 9);
        STEP(G, c, d, a, b, m[7], 0x676f02d9, 14);
        STEP(G, b, c, d, a, m[12], 0x8d2a4c8a, 20);
        STEP(H, a, b, c, d, m[5], 0xfffa3942, 4);
        STEP(H, d, a, b, c, m[8], 0x8771f681, 11);
        STEP(H, c, d, a, b, m[11], 0x6d9d6122, 16);
        STEP(H, b, c, d, a, m[14], 0xfde5380c, 23);
        STEP(H, a, b, c, d, m[1], 0xa4beea44, 4);
        STEP(H, d, a, b, c, m[4], 0x4bdecfa9, 11);
        STEP(H, c, d, a, b, m[7], 0xf6bb4b60, 16);
        STEP(H, b, c, d, a, m[10], 0xbebfbc70, 23);
        STEP(H, a, b, c, d, m[13], 0x289b7ec6, 4);
        STEP(H, d, a, b, c, m[0], 0xeaa127fa, 11);
        STEP(H, c, d, a, b, m[3], 0xd4ef3085, 16);
        STEP(H, b, c, d, a, m[6], 0x04881d05, 23);
        STEP(H, a, b, c, d, m[9], 0xd9d4d039, 4);
        STEP(H, d, a, b, c, m[12], 0xe6db99e5, 11);
        STEP(H, c, d, a, b, m[15], 0x1fa27cf8, 16);
        STEP(H, b, c, d, a, m[2], 0xc4ac5665, 23);
        STEP(I, a, b, c, d, m[0], 0xf4292244, 6);
        STEP(I, d, a, b, c, m[7], 0x432aff97, 10);
        STEP(I, c, d, a, b, m[14], 0xab9423a7, 15);
        STEP(I, b, c, d, a, m[5], 0xfc93a039, 21);
        STEP(I, a, b, c, d, m[12], 0x655b59c3, 6);
        STEP(I, d, a, b, c, m[3], 0x8f0ccc92, 10);
        STEP(I, c, d, a, b, m[10], 0xffeff47d, 15);
        STEP(I, b, c, d, a, m[1], 0x85845dd1, 21);
        STEP(I, a, b, c, d, m[8], 0x6fa87e4f, 6);
        STEP(I, d, a, b, c, m[15], 0xfe2ce6e0, 10);
        STEP(I, c, d, a, b, m[6], 0xa3014314, 15);
        STEP(I, b, c, d, a, m[13], 0x4e0811a1, 21);
        STEP(I, a, b, c, d, m[4], 0xf7537e82, 6);
        STEP(I, d, a, b, c, m[11], 0xbd3af235, 10);
        STEP(I, c, d, a, b, m[2], 0x2ad7d2bb, 15);
        STEP(I, b, c, d, a, m[9], 0xeb86d391, 21);
        a = _mm256_add_epi32(a, a0);
        b = _mm256_add_epi32(b, b0);
        c = _mm256_add_epi32(c, c0);
        d = _mm256_add_epi32(d, d0);
        for (int l = 0; l < 8; l++) p[l] += strides[l];
    }
    _mm256_storeu_si256((__m256i *)(state + 0), a);
    _mm256_storeu_si256((__m256i *)(state + 8), b);
    _mm256_storeu_si256((__m256i *)(state + 16), c);
    _mm256_storeu_si256((__m256i *)(state + 24), d);
}

