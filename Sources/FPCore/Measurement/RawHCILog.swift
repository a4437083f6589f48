import Foundation

/// One HCI packet as it crossed the socket (or the replayed file), with its
/// H4 type byte, timed in ms of the measurement clock.
public struct RawHCIPacket: Sendable, Equatable {
    public var atMs: Int
    /// The H4 type byte, then the packet.
    public var h4: [UInt8]
    /// Controller → host.
    public var received: Bool

    public init(atMs: Int, h4: [UInt8], received: Bool) {
        self.atMs = atMs
        self.h4 = h4
        self.received = received
    }
}

/// The raw packets of a measurement (`--keep-raw`), kept so each document can
/// carry the capture of its own window as evidence. Bounded: past `limit`
/// bytes packets are counted as dropped, never grown without end.
public final class RawHCILog: @unchecked Sendable {
    public static let defaultLimit = 256 << 20
    private let lock = NSLock()
    private var packets: [RawHCIPacket] = []  // guarded by `lock`, ordered by `atMs`
    private var bytes = 0  // guarded by `lock`
    private var droppedCount = 0  // guarded by `lock`
    private let limit: Int

    public init(limit: Int = RawHCILog.defaultLimit) { self.limit = limit }

    public func record(_ packet: RawHCIPacket) {
        lock.withLock {
            guard bytes + packet.h4.count <= limit else {
                droppedCount += 1
                return
            }
            bytes += packet.h4.count
            // Packets arrive in time order but for the odd one from a second
            // thread (events the command engine caught): it moves back a few places.
            var index = packets.endIndex
            while index > packets.startIndex && packets[index - 1].atMs > packet.atMs { index -= 1 }
            packets.insert(packet, at: index)
        }
    }

    /// Packets with `start <= atMs < end` (the last window also takes `end`):
    /// found by bisection, so cutting a long walk into windows stays linear.
    public func packets(fromMs start: Int, toMs end: Int, inclusiveEnd: Bool = false) -> [RawHCIPacket] {
        lock.withLock {
            let lower = firstIndex { $0.atMs >= start }
            let upper = firstIndex { inclusiveEnd ? $0.atMs > end : $0.atMs >= end }
            return lower < upper ? Array(packets[lower..<upper]) : []
        }
    }

    /// The first index whose packet satisfies `isAfter` (a predicate false then true over the order).
    private func firstIndex(where isAfter: (RawHCIPacket) -> Bool) -> Int {
        var low = 0, high = packets.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(packets[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Packets not kept because the log was full.
    public var dropped: Int { lock.withLock { droppedCount } }
}
