import CZstd
import FPCore
import Foundation
import GRDB

/// How a revision's body sits in `revisions.body`: its canonical JSON,
/// zstd-compressed (a BLOB), since migration v4. Documents repeat the same
/// keys, addresses and beacon ids thousands of times: walk documents shrink
/// about 20× (1.5 GB/s to compress, 3.5 GB/s to expand), which turns storing
/// them from disk-bound into CPU-bound and keeps a day of walking in tens of
/// megabytes rather than gigabytes. Frames carry zstd's content checksum, so
/// a damaged body is reported, never handed on. Rows written before v4 hold
/// plain text and are read as they are.
enum StoredBody {
    /// Level -1 (zstd's first "fast" level): on walk documents 1.6× as fast
    /// as level 1 both ways for a 30 % larger frame (20× smaller than the
    /// text, against 26×); compressing was a quarter of an import's CPU.
    static let level: Int32 = -1

    static func compress(_ canonical: [UInt8]) -> Data {
        // Compressed into uninitialised room for the worst case, then only
        // the frame is copied out: `Data(count:)` zeroed the whole bound
        // (the body's size) and kept it allocated for a 20× smaller frame.
        let bound = ZSTD_compressBound(canonical.count)
        let room = UnsafeMutableRawPointer.allocate(byteCount: max(bound, 1), alignment: 16)
        defer { room.deallocate() }
        let size = ContextPool.shared.withContext { context in
            canonical.withUnsafeBytes { source in
                ZSTD_compress2(context, room, bound, source.baseAddress, source.count)
            }
        }
        // Only a programming error (a bad parameter) makes zstd fail here:
        // the output buffer is always large enough.
        precondition(ZSTD_isError(size) == 0, "zstd: \(String(cString: ZSTD_getErrorName(size)))")
        return Data(bytes: room, count: size)
    }

    /// The canonical text of a stored body; nil for NULL (a superseded revision).
    /// A body that cannot be read back throws `DamagedDocument`.
    static func text(_ value: DatabaseValue, id: String, rev: String?) throws(DamagedDocument) -> String? {
        switch value.storage {
        case .null: return nil
        case .string(let text): return text  // written before v4
        case .blob(let frame): return try decompress(frame, id: id, rev: rev)
        case .int64, .double: throw DamagedDocument(id: id, rev: rev, reason: "it is a number, not a document")
        }
    }

    static func decompress(_ frame: Data, id: String, rev: String?) throws(DamagedDocument) -> String {
        let damaged = DamagedDocument(id: id, rev: rev, reason: "it does not decompress")
        let declared = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        // Frames written here always declare their size; the bound guards against a forged one.
        guard declared != ZSTD_CONTENTSIZE_ERROR, declared != ZSTD_CONTENTSIZE_UNKNOWN, declared < 1 << 31 else {
            throw damaged
        }
        var failed = false
        let text = String(unsafeUninitializedCapacity: Int(declared)) { destination in
            let size = DecompressionPool.shared.withContext { context in
                frame.withUnsafeBytes { source in
                    ZSTD_decompressDCtx(context, destination.baseAddress, destination.count, source.baseAddress, source.count)
                }
            }
            guard ZSTD_isError(size) == 0, size == destination.count else {
                failed = true
                return 0
            }
            return size
        }
        if failed { throw damaged }
        return text
    }

    /// The bytes of a frame (attachments are bytes, not text).
    static func decompressBytes(_ frame: Data, id: String, rev: String?, what: String) throws(DamagedDocument) -> [UInt8] {
        let damaged = DamagedDocument(id: id, rev: rev, reason: "its \(what) does not decompress")
        let declared = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        guard declared != ZSTD_CONTENTSIZE_ERROR, declared != ZSTD_CONTENTSIZE_UNKNOWN, declared < 1 << 31 else {
            throw damaged
        }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(declared)) { destination, count in
            let size = DecompressionPool.shared.withContext { context in
                frame.withUnsafeBytes { source in
                    ZSTD_decompressDCtx(context, destination.baseAddress, destination.count, source.baseAddress, source.count)
                }
            }
            failed = ZSTD_isError(size) != 0 || size != destination.count
            count = failed ? 0 : size
        }
        if failed { throw damaged }
        return bytes
    }

    /// Decompression contexts, kept for the same reason: `ZSTD_decompress`
    /// makes one per call (~160 KB, mapped and unmapped by malloc each time),
    /// which was a third of reading 63,500 small documents (`fprint eval` of
    /// an imported dataset: 2.1 s of 6.8).
    final class DecompressionPool: @unchecked Sendable {
        static let shared = DecompressionPool()
        private let lock = NSLock()
        private var idle: [OpaquePointer] = []  // guarded by `lock`

        func withContext<T>(_ body: (OpaquePointer) -> T) -> T {
            lock.lock()
            let context = idle.popLast() ?? Self.make()
            lock.unlock()
            defer {
                lock.lock()
                if idle.count < 8 { idle.append(context) } else { ZSTD_freeDCtx(context) }
                lock.unlock()
            }
            return body(context)
        }

        private static func make() -> OpaquePointer {
            guard let context = ZSTD_createDCtx() else { fatalError("zstd: out of memory for a decompression context") }
            return context
        }
    }

    /// Compression contexts are costly to make (hundreds of KB of tables) and
    /// used from several threads at once (`concurrentMap`): a few are kept.
    final class ContextPool: @unchecked Sendable {
        static let shared = ContextPool()
        private let lock = NSLock()
        private var idle: [OpaquePointer] = []  // guarded by `lock`

        func withContext<T>(_ body: (OpaquePointer) -> T) -> T {
            lock.lock()
            let context = idle.popLast() ?? Self.make()
            lock.unlock()
            defer {
                lock.lock()
                if idle.count < 8 { idle.append(context) } else { ZSTD_freeCCtx(context) }
                lock.unlock()
            }
            return body(context)
        }

        private static func make() -> OpaquePointer {
            guard let context = ZSTD_createCCtx() else { fatalError("zstd: out of memory for a compression context") }
            ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, StoredBody.level)
            ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
            return context
        }
    }
}
