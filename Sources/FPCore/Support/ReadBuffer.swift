import Foundation

/// Bytes read from a file and not yet consumed, in one buffer kept from read
/// to read: read(2) writes straight into it, and making room moves only what
/// is not consumed yet (part of a line), not the whole chunk. A reading
/// through a reused chunk appended to an array copied every byte twice more.
final class ReadBuffer {
    private var storage: UnsafeMutableBufferPointer<UInt8>
    /// Bytes held, from the start of `storage`.
    private(set) var count = 0
    /// The least room a read asks for.
    let chunk: Int

    init(chunk: Int) {
        self.chunk = chunk
        storage = .allocate(capacity: 2 * chunk)
    }

    deinit { storage.deallocate() }

    /// The bytes held; valid until the next `drop` or `fill`.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[..<count]) }

    /// Forgets the first `n` bytes: offsets into `bytes` move down by `n`.
    func drop(_ n: Int) {
        guard n > 0, let base = storage.baseAddress else { return }
        memmove(base, base + n, count - n)
        count -= n
    }

    /// Reads what fits (at least `chunk`) from `descriptor`: the bytes
    /// added, 0 at the end of the file. A line longer than the buffer
    /// doubles it, so reading one stays linear in its length.
    func fill(from descriptor: Int32) throws(ReadFailure) -> Int {
        if storage.count - count < chunk {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(2 * storage.count, count + chunk))
            _ = larger.initialize(fromContentsOf: storage[..<count])
            storage.deallocate()
            storage = larger
        }
        let room = storage.count - count
        var got: Int
        repeat {
            got = read(descriptor, storage.baseAddress! + count, room)
        } while got < 0 && errno == EINTR
        guard got >= 0 else { throw ReadFailure(code: errno) }
        count += got
        return got
    }
}

/// A failed read(2), with its errno.
struct ReadFailure: Error {
    let code: Int32
    var reason: String { String(cString: strerror(code)) }
}
