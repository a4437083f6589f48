import Crypto
import FPHex
import Foundation

/// A CouchDB-style revision id: `N-<32 lowercase hex>`, N the generation.
public struct Revision: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let generation: Int
    public let hash: String

    public init(generation: Int, hash: String) {
        self.generation = generation
        self.hash = hash
    }

    /// Parses `N-hash`; nil unless N ≥ 1 and the hash is non-empty.
    public init?(_ text: String) {
        guard let dash = text.firstIndex(of: "-"), let n = Int(text[..<dash]), n >= 1 else { return nil }
        let h = String(text[text.index(after: dash)...])
        guard !h.isEmpty else { return nil }
        self.init(generation: n, hash: h)
    }

    public var description: String { "\(generation)-\(hash)" }

    /// The revision that follows `parent` for this body: MD5 over the parent
    /// revision, the deleted flag and the canonical JSON, so equal edits of
    /// equal parents agree on one id (as CouchDB's are deterministic).
    public static func next(after parent: Revision?, body: JSONValue, deleted: Bool = false) -> Revision {
        next(after: parent, canonicalBody: CanonicalJSON.data(body), deleted: deleted)
    }

    /// The same, for a caller that already holds the canonical bytes (the store
    /// writes them too, and serialising an 80 KB body twice doubles the cost).
    public static func next(after parent: Revision?, canonicalBody: Data, deleted: Bool = false) -> Revision {
        canonicalBody.withUnsafeBytes { next(after: parent, canonicalBytes: $0, deleted: deleted) }
    }

    /// The same over bytes (what the store has); concrete types, because a
    /// generic called from another module runs unspecialised, per byte.
    public static func next(after parent: Revision?, canonicalBody: [UInt8], deleted: Bool = false) -> Revision {
        canonicalBody.withUnsafeBytes { next(after: parent, canonicalBytes: $0, deleted: deleted) }
    }

    static func next(after parent: Revision?, canonicalBytes: UnsafeRawBufferPointer, deleted: Bool) -> Revision {
        var md5 = Insecure.MD5()
        md5.update(data: hashPrefix(after: parent, deleted: deleted))
        md5.update(bufferPointer: canonicalBytes)
        return Revision(generation: (parent?.generation ?? 0) + 1, hash: Hex.string(md5.finalize()))
    }

    /// What the hash reads before the body: the parent revision and the deleted flag.
    static func hashPrefix(after parent: Revision?, deleted: Bool) -> [UInt8] {
        Array((parent?.description ?? "").utf8) + [deleted ? 1 : 0]
    }

    /// How many bodies `firsts` hashes side by side on one core.
    public static let hashedTogether = MD5Lanes.Word.scalarCount

    /// The first revision of each body, the same as `next(after: nil,
    /// canonicalBody:)` of each: `hashedTogether` bodies hashed side by
    /// side on one core (`MD5Lanes`), for a batch of documents to import.
    public static func firsts(canonicalBodies bodies: [[UInt8]]) -> [Revision] {
        guard bodies.count > 1 else { return bodies.map { next(after: nil, canonicalBody: $0) } }
        return stride(from: 0, to: bodies.count, by: hashedTogether).flatMap { start in
            withBuffers(bodies[start..<min(start + hashedTogether, bodies.count)]) { buffers in
                MD5Lanes.digests(buffers, prefix: hashPrefix(after: nil, deleted: false)).map { Revision(generation: 1, hash: Hex.string($0)) }
            }
        }
    }

    /// The bodies' storage as buffers, valid inside `body` (one nested
    /// closure per body: callers pass a lane's worth).
    private static func withBuffers<R>(_ bodies: ArraySlice<[UInt8]>, _ body: ([UnsafeRawBufferPointer]) -> R) -> R {
        var buffers: [UnsafeRawBufferPointer] = []
        buffers.reserveCapacity(bodies.count)
        func nest(_ k: Int) -> R {
            guard k < bodies.endIndex else { return body(buffers) }
            return bodies[k].withUnsafeBytes { bytes in
                buffers.append(bytes)
                return nest(k + 1)
            }
        }
        return nest(bodies.startIndex)
    }

    /// CouchDB orders revisions by generation, then by hash as a string.
    public static func < (a: Revision, b: Revision) -> Bool {
        a.generation != b.generation ? a.generation < b.generation : a.hash < b.hash
    }
}
