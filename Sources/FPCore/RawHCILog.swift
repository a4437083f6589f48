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
    private var packets: [RawHCIPacket] = []  // guarded by `lock`, in arrival order
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
            packets.append(packet)
        }
    }

    /// Packets with `start <= atMs < end` (the last window also takes `end`).
    public func packets(fromMs start: Int, toMs end: Int, inclusiveEnd: Bool = false) -> [RawHCIPacket] {
        lock.withLock { packets.filter { $0.atMs >= start && ($0.atMs < end || inclusiveEnd && $0.atMs == end) } }
    }

    /// Packets not kept because the log was full.
    public var dropped: Int { lock.withLock { droppedCount } }
}
