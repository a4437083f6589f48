import CMD5x8

/// MD5 (RFC 1321) of eight messages at once, one in each 32-bit lane of
/// SIMD registers. The hash is a chain of dependent steps, so one message
/// runs at ~550 MB/s whatever the core can do beside it; eight chains side
/// by side keep the vector units busy (an import hashes every document's
/// canonical text to name its revision, 456 MB for 2,000 walk documents).
/// Each message is hashed as `prefix` followed by its bytes, the way a
/// revision hashes its parent and deleted flag before the body. A lane whose
/// message ends takes the next waiting one.
///
/// Where the CPU has AVX2, the blocks are compressed by `CMD5x8`: one
/// register per word of all eight lanes, where Swift's `SIMD8` on baseline
/// x86-64 takes two SSE registers and spills to the stack (import of 2,000
/// walk documents: MD5 went from 9.2 to 6.5 % of the CPU; each lane is
/// still a chain of dependent steps), and with AVX-512VL in fewer
/// instructions per step.
enum MD5Lanes {
    typealias Word = SIMD8<UInt32>

    /// Who compresses the blocks: the Swift code below, or `CMD5x8`'s code
    /// for AVX2 or for AVX-512VL (one rotate and one ternary-logic
    /// instruction where AVX2 takes three and two to three).
    enum Engine: CaseIterable, Sendable {
        case portable, avx2, avx512vl

        var runsHere: Bool {
            switch self {
            case .portable: true
            case .avx2: MD5Lanes.hasAVX2
            case .avx512vl: MD5Lanes.hasAVX512VL
            }
        }
    }

    static let hasAVX2 = fp_md5x8_has_avx2() != 0
    static let hasAVX512VL = fp_md5x8_has_avx512vl() != 0
    /// The fastest engine this CPU runs.
    static let best: Engine = hasAVX512VL ? .avx512vl : hasAVX2 ? .avx2 : .portable

    /// The 16-byte digests of `prefix + message` for each message, in order.
    /// `engine`: another than the best one (tests compare them all).
    static func digests(_ messages: [UnsafeRawBufferPointer], prefix: [UInt8], engine: Engine = best) -> [[UInt8]] {
        precondition(engine.runsHere, "MD5Lanes: \(engine) does not run on this CPU")
        let width = Word.scalarCount
        var digests = [[UInt8]](repeating: [], count: messages.count)
        var lanes = [Lane?](repeating: nil, count: width)
        var next = 0
        var state = (a: Word(repeating: 0), b: Word(repeating: 0), c: Word(repeating: 0), d: Word(repeating: 0))
        // A block that straddles the prefix or the padding is built here, one per lane.
        let staging = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * width, alignment: 16)
        let blocks = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: width)
        let strides = UnsafeMutablePointer<Int>.allocate(capacity: width)
        defer {
            staging.deallocate()
            blocks.deallocate()
            strides.deallocate()
        }
        staging.initializeMemory(as: UInt8.self, repeating: 0)
        while true {
            for l in 0..<width where lanes[l] == nil && next < messages.count {
                lanes[l] = Lane(index: next, message: messages[next], prefixCount: prefix.count)
                (state.a[l], state.b[l], state.c[l], state.d[l]) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
                next += 1
            }
            guard lanes.contains(where: { $0 != nil }) else { break }
            // Most blocks lie inside their message in every busy lane: those
            // are hashed in a run, the pointers moving 64 bytes a block (an
            // idle lane's staying on what is staged for it).
            let run = lanes.compactMap { $0?.directBlocksAhead }.min()!
            if run > 0 {
                for l in 0..<width {
                    blocks[l] = lanes[l]?.directBlock ?? UnsafeRawPointer(staging.baseAddress! + 64 * l)
                    strides[l] = lanes[l] == nil ? 0 : 64
                }
                if engine != .portable {
                    compressVector(engine, &state, blocks, strides, count: run)
                } else {
                    for _ in 0..<run {
                        compress(&state, blocks)
                        for l in 0..<width { blocks[l] += strides[l] }
                    }
                }
            } else {
                for l in 0..<width {
                    let room = UnsafeMutableRawBufferPointer(rebasing: staging[(64 * l)..<(64 * l + 64)])
                    // An idle lane hashes whatever is staged for it; its result is never read.
                    blocks[l] = lanes[l]?.block(prefix: prefix, staging: room) ?? UnsafeRawPointer(room.baseAddress!)
                    strides[l] = 0
                }
                if engine != .portable { compressVector(engine, &state, blocks, strides, count: 1) } else { compress(&state, blocks) }
            }
            for l in 0..<width {
                guard var lane = lanes[l] else { continue }
                lane.block += max(run, 1)
                if lane.block == lane.blocks {
                    digests[lane.index] = [state.a[l], state.b[l], state.c[l], state.d[l]].flatMap { word in
                        (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
                    }
                    lanes[l] = nil
                } else {
                    lanes[l] = lane
                }
            }
        }
        return digests
    }

    /// One message in a lane: which 64-byte block of `prefix + message +
    /// padding` comes next.
    struct Lane {
        let index: Int
        let message: UnsafeRawBufferPointer
        let prefixCount: Int
        /// The padded length in blocks: the bytes, 0x80, zeros, and the bit length in 8 bytes.
        let blocks: Int
        var block = 0

        init(index: Int, message: UnsafeRawBufferPointer, prefixCount: Int) {
            self.index = index
            self.message = message
            self.prefixCount = prefixCount
            blocks = (prefixCount + message.count + 8) / 64 + 1
        }

        /// How many blocks from this one lie wholly in the message (past the prefix, before the padding).
        var directBlocksAhead: Int {
            let first = (prefixCount + 63) / 64, end = (prefixCount + message.count) / 64
            return block >= first ? max(0, end - block) : 0
        }

        /// This block in the message itself (when `directBlocksAhead` > 0).
        var directBlock: UnsafeRawPointer { message.baseAddress! + (64 * block - prefixCount) }

        /// Where the block's 64 bytes are: in the message itself, or built in `staging`.
        func block(prefix: [UInt8], staging: UnsafeMutableRawBufferPointer) -> UnsafeRawPointer {
            if directBlocksAhead > 0 { return directBlock }
            let start = 64 * block, length = prefixCount + message.count
            let bits = UInt64(length) &* 8
            for j in 0..<64 {
                let at = start + j
                staging[j] = if at < prefixCount {
                    prefix[at]
                } else if at < length {
                    message[at - prefixCount]
                } else if at == length {
                    0x80
                } else if at >= 64 * blocks - 8 {
                    UInt8(truncatingIfNeeded: bits >> (8 * UInt64(at - (64 * blocks - 8))))
                } else {
                    0
                }
            }
            return UnsafeRawPointer(staging.baseAddress!)
        }
    }

    /// `count` blocks of each lane by `CMD5x8`, the pointers moving by
    /// `strides` after each (`blocks` itself is left as it was).
    static func compressVector(_ engine: Engine, _ state: inout (a: Word, b: Word, c: Word, d: Word),
                               _ blocks: UnsafeMutablePointer<UnsafeRawPointer>, _ strides: UnsafeMutablePointer<Int>,
                               count: Int) {
        // The four `SIMD8<UInt32>` lie one after the other: a's eight lanes, then b's, c's and d's.
        withUnsafeMutableBytes(of: &state) { words in
            let lanes = UnsafeRawPointer(blocks).assumingMemoryBound(to: UnsafeRawPointer?.self)
            let words = words.baseAddress!.assumingMemoryBound(to: UInt32.self)
            if engine == .avx512vl {
                fp_md5x8_compress_avx512vl(words, lanes, strides, count)
            } else {
                fp_md5x8_compress_avx2(words, lanes, strides, count)
            }
        }
    }

    /// Words `4q ..< 4q + 4` of each lane's block, one vector per word:
    /// four 16-byte loads per half turned on their side, not 32 single words.
    @inline(__always)
    static func words(_ blocks: UnsafeMutablePointer<UnsafeRawPointer>, _ q: Int) -> (Word, Word, Word, Word) {
        func quarter(_ l: Int) -> SIMD4<UInt32> {
            #if _endian(little)
            blocks[l].loadUnaligned(fromByteOffset: 16 * q, as: SIMD4<UInt32>.self)
            #else
            SIMD4((0..<4).map { UInt32(littleEndian: blocks[l].loadUnaligned(fromByteOffset: 16 * q + 4 * $0, as: UInt32.self)) })
            #endif
        }
        // Rows r0…r3 (a lane's 4 words each) to columns (a word's 4 lanes each).
        func transposed(_ r0: SIMD4<UInt32>, _ r1: SIMD4<UInt32>, _ r2: SIMD4<UInt32>, _ r3: SIMD4<UInt32>)
            -> (SIMD4<UInt32>, SIMD4<UInt32>, SIMD4<UInt32>, SIMD4<UInt32>)
        {
            let r01 = SIMD8(lowHalf: r0, highHalf: r1), r23 = SIMD8(lowHalf: r2, highHalf: r3)
            let even = SIMD8(lowHalf: r01.evenHalf, highHalf: r23.evenHalf)  // words 0 and 2 of each row
            let odd = SIMD8(lowHalf: r01.oddHalf, highHalf: r23.oddHalf)  // words 1 and 3
            return (even.evenHalf, odd.evenHalf, even.oddHalf, odd.oddHalf)
        }
        let low = transposed(quarter(0), quarter(1), quarter(2), quarter(3))
        let high = transposed(quarter(4), quarter(5), quarter(6), quarter(7))
        return (Word(lowHalf: low.0, highHalf: high.0), Word(lowHalf: low.1, highHalf: high.1),
                Word(lowHalf: low.2, highHalf: high.2), Word(lowHalf: low.3, highHalf: high.3))
    }

    /// A left rotation by `s`. Written with `&+` (the two halves share no
    /// bit): LLVM turns `|` into a rotate, which SSE2 lacks, and then does
    /// each lane apart in general registers (3× slower in all).
    @inline(__always)
    static func rotate(_ x: Word, _ s: UInt32) -> Word { (x &<< s) &+ (x &>> (32 - s)) }

    @inline(__always)
    static func f(_ a: Word, _ b: Word, _ c: Word, _ d: Word, _ m: Word, _ k: UInt32, _ s: UInt32) -> Word {
        b &+ rotate(a &+ ((b & c) | (~b & d)) &+ m &+ Word(repeating: k), s)
    }

    @inline(__always)
    static func g(_ a: Word, _ b: Word, _ c: Word, _ d: Word, _ m: Word, _ k: UInt32, _ s: UInt32) -> Word {
        b &+ rotate(a &+ ((b & d) | (c & ~d)) &+ m &+ Word(repeating: k), s)
    }

    @inline(__always)
    static func h(_ a: Word, _ b: Word, _ c: Word, _ d: Word, _ m: Word, _ k: UInt32, _ s: UInt32) -> Word {
        b &+ rotate(a &+ (b ^ c ^ d) &+ m &+ Word(repeating: k), s)
    }

    @inline(__always)
    static func i(_ a: Word, _ b: Word, _ c: Word, _ d: Word, _ m: Word, _ k: UInt32, _ s: UInt32) -> Word {
        b &+ rotate(a &+ (c ^ (b | ~d)) &+ m &+ Word(repeating: k), s)
    }

    /// The 64 steps of RFC 1321 §3.4 over one block in every lane.
    static func compress(_ state: inout (a: Word, b: Word, c: Word, d: Word), _ blocks: UnsafeMutablePointer<UnsafeRawPointer>) {
        let (m0, m1, m2, m3) = words(blocks, 0), (m4, m5, m6, m7) = words(blocks, 1)
        let (m8, m9, m10, m11) = words(blocks, 2), (m12, m13, m14, m15) = words(blocks, 3)
        var (a, b, c, d) = state
        a = Self.f(a, b, c, d, m0, 0xd76aa478, 7)
        d = Self.f(d, a, b, c, m1, 0xe8c7b756, 12)
        c = Self.f(c, d, a, b, m2, 0x242070db, 17)
        b = Self.f(b, c, d, a, m3, 0xc1bdceee, 22)
        a = Self.f(a, b, c, d, m4, 0xf57c0faf, 7)
        d = Self.f(d, a, b, c, m5, 0x4787c62a, 12)
        c = Self.f(c, d, a, b, m6, 0xa8304613, 17)
        b = Self.f(b, c, d, a, m7, 0xfd469501, 22)
        a = Self.f(a, b, c, d, m8, 0x698098d8, 7)
        d = Self.f(d, a, b, c, m9, 0x8b44f7af, 12)
        c = Self.f(c, d, a, b, m10, 0xffff5bb1, 17)
        b = Self.f(b, c, d, a, m11, 0x895cd7be, 22)
        a = Self.f(a, b, c, d, m12, 0x6b901122, 7)
        d = Self.f(d, a, b, c, m13, 0xfd987193, 12)
        c = Self.f(c, d, a, b, m14, 0xa679438e, 17)
        b = Self.f(b, c, d, a, m15, 0x49b40821, 22)
        a = Self.g(a, b, c, d, m1, 0xf61e2562, 5)
        d = Self.g(d, a, b, c, m6, 0xc040b340, 9)
        c = Self.g(c, d, a, b, m11, 0x265e5a51, 14)
        b = Self.g(b, c, d, a, m0, 0xe9b6c7aa, 20)
        a = Self.g(a, b, c, d, m5, 0xd62f105d, 5)
        d = Self.g(d, a, b, c, m10, 0x02441453, 9)
        c = Self.g(c, d, a, b, m15, 0xd8a1e681, 14)
        b = Self.g(b, c, d, a, m4, 0xe7d3fbc8, 20)
        a = Self.g(a, b, c, d, m9, 0x21e1cde6, 5)
        d = Self.g(d, a, b, c, m14, 0xc33707d6, 9)
        c = Self.g(c, d, a, b, m3, 0xf4d50d87, 14)
        b = Self.g(b, c, d, a, m8, 0x455a14ed, 20)
        a = Self.g(a, b, c, d, m13, 0xa9e3e905, 5)
        d = Self.g(d, a, b, c, m2, 0xfcefa3f8, 9)
        c = Self.g(c, d, a, b, m7, 0x676f02d9, 14)
        b = Self.g(b, c, d, a, m12, 0x8d2a4c8a, 20)
        a = Self.h(a, b, c, d, m5, 0xfffa3942, 4)
        d = Self.h(d, a, b, c, m8, 0x8771f681, 11)
        c = Self.h(c, d, a, b, m11, 0x6d9d6122, 16)
        b = Self.h(b, c, d, a, m14, 0xfde5380c, 23)
        a = Self.h(a, b, c, d, m1, 0xa4beea44, 4)
        d = Self.h(d, a, b, c, m4, 0x4bdecfa9, 11)
        c = Self.h(c, d, a, b, m7, 0xf6bb4b60, 16)
        b = Self.h(b, c, d, a, m10, 0xbebfbc70, 23)
        a = Self.h(a, b, c, d, m13, 0x289b7ec6, 4)
        d = Self.h(d, a, b, c, m0, 0xeaa127fa, 11)
        c = Self.h(c, d, a, b, m3, 0xd4ef3085, 16)
        b = Self.h(b, c, d, a, m6, 0x04881d05, 23)
        a = Self.h(a, b, c, d, m9, 0xd9d4d039, 4)
        d = Self.h(d, a, b, c, m12, 0xe6db99e5, 11)
        c = Self.h(c, d, a, b, m15, 0x1fa27cf8, 16)
        b = Self.h(b, c, d, a, m2, 0xc4ac5665, 23)
        a = Self.i(a, b, c, d, m0, 0xf4292244, 6)
        d = Self.i(d, a, b, c, m7, 0x432aff97, 10)
        c = Self.i(c, d, a, b, m14, 0xab9423a7, 15)
        b = Self.i(b, c, d, a, m5, 0xfc93a039, 21)
        a = Self.i(a, b, c, d, m12, 0x655b59c3, 6)
        d = Self.i(d, a, b, c, m3, 0x8f0ccc92, 10)
        c = Self.i(c, d, a, b, m10, 0xffeff47d, 15)
        b = Self.i(b, c, d, a, m1, 0x85845dd1, 21)
        a = Self.i(a, b, c, d, m8, 0x6fa87e4f, 6)
        d = Self.i(d, a, b, c, m15, 0xfe2ce6e0, 10)
        c = Self.i(c, d, a, b, m6, 0xa3014314, 15)
        b = Self.i(b, c, d, a, m13, 0x4e0811a1, 21)
        a = Self.i(a, b, c, d, m4, 0xf7537e82, 6)
        d = Self.i(d, a, b, c, m11, 0xbd3af235, 10)
        c = Self.i(c, d, a, b, m2, 0x2ad7d2bb, 15)
        b = Self.i(b, c, d, a, m9, 0xeb86d391, 21)
        state = (state.a &+ a, state.b &+ b, state.c &+ c, state.d &+ d)
    }
}
