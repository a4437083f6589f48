@testable import FPGateway
import FPTestSupport
import NIOCore
import NIOEmbedded
import Testing

/// The connection registry's cap, and the memory a crowd of connections
/// leaves behind: once most of a crowd has gone, the heap is trimmed once.
@Suite struct ConnectionRegistryTests {
    @Test func aCrowdThatLeavesTrimsTheHeapOnce() {
        let trims = Counter()
        let registry = ConnectionRegistry(cap: 10_000, drained: { trims.increment() })
        let crowd = (0..<ConnectionRegistry.crowd * 2).map { _ in EmbeddedChannel() }
        for channel in crowd { #expect(registry.opened(channel) == nil) }
        // Half gone: not yet. Three quarters gone: once, and not again as the rest leave.
        for channel in crowd.prefix(crowd.count / 2) { registry.closed(channel) }
        #expect(trims.value == 0)
        for channel in crowd.prefix(crowd.count * 3 / 4) { registry.closed(channel) }
        #expect(trims.value == 1)
        for channel in crowd { registry.closed(channel) }
        #expect(trims.value == 1)
        #expect(registry.count == 0)
        // A few connections coming and going never trim.
        let few = (0..<10).map { _ in EmbeddedChannel() }
        for channel in few { _ = registry.opened(channel) }
        for channel in few { registry.closed(channel) }
        #expect(trims.value == 1)
    }

    @Test func pastTheCapTheConnectionIdleTheLongestIsClosed() {
        let registry = ConnectionRegistry(cap: 2, drained: {})
        let (a, b, c) = (EmbeddedChannel(), EmbeddedChannel(), EmbeddedChannel())
        #expect(registry.opened(a) == nil)
        #expect(registry.opened(b) == nil)
        registry.setBusy(a, true)
        // b is idle, a busy: b goes.
        #expect(registry.opened(c) === b)
        registry.setBusy(c, true)
        // Both others busy: the newcomer is refused.
        let d = EmbeddedChannel()
        #expect(registry.opened(d) === d)
    }
}
