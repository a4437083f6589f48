import Foundation
import NIOCore
import NIOHTTPTypes

/// Every open connection and whether it is busy with a request. When a new
/// connection takes the count past the cap, the connection idle the longest
/// is closed, so idle sockets (or an attacker's half-sent requests) can
/// never keep real users out; if none is idle, the new one is refused.
final class ConnectionRegistry: @unchecked Sendable {
    struct Entry {
        var channel: any Channel
        var busy: Bool
        var lastActive: NIODeadline
    }

    let cap: Int
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// The most connections open at once since the heap was last trimmed.
    private var peak = 0
    /// Called (off the lock) when a crowd of connections has gone.
    private let drained: @Sendable () -> Void

    /// A crowd worth giving memory back for: each connection's buffers are
    /// freed into glibc's arenas, which keep them (12,000 flooding
    /// connections left ~75 MB resident after they closed).
    static let crowd = 256

    init(cap: Int, drained: @escaping @Sendable () -> Void = { DispatchQueue.global().async { ProcessLimits.trimHeap() } }) {
        self.cap = max(cap, 2)
        self.drained = drained
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    /// Registers a connection; returns the one to close, if any.
    func opened(_ channel: any Channel) -> (any Channel)? {
        lock.lock()
        defer { lock.unlock() }
        let id = ObjectIdentifier(channel)
        entries[id] = Entry(channel: channel, busy: false, lastActive: .now())
        peak = max(peak, entries.count)
        guard entries.count > cap else { return nil }
        let idle = entries.filter { !$0.value.busy && $0.key != id }
        guard let oldest = idle.min(by: { $0.value.lastActive < $1.value.lastActive }) else {
            entries[id] = nil
            return channel
        }
        entries[oldest.key] = nil
        return oldest.value.channel
    }

    func closed(_ channel: any Channel) {
        lock.lock()
        entries[ObjectIdentifier(channel)] = nil
        // A crowd has gone (three quarters of it): trim once, then watch anew.
        let trim = peak >= Self.crowd && entries.count <= peak / 4
        if trim { peak = entries.count }
        lock.unlock()
        if trim { drained() }
    }

    func setBusy(_ channel: any Channel, _ busy: Bool) {
        lock.lock()
        let id = ObjectIdentifier(channel)
        if entries[id] != nil {
            entries[id]!.busy = busy
            entries[id]!.lastActive = .now()
        }
        lock.unlock()
    }
}

/// Sits in each connection's pipeline after HTTP decoding: a request head
/// makes the connection busy, the end of its response idle again.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let registry: ConnectionRegistry
    private var registered = false

    init(registry: ConnectionRegistry) { self.registry = registry }

    func handlerAdded(context: ChannelHandlerContext) {
        guard !registered else { return }
        registered = true
        if let victim = registry.opened(context.channel) {
            victim.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        registry.closed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { registry.setBusy(context.channel, true) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { registry.setBusy(context.channel, false) }
        context.write(data, promise: promise)
    }
}
