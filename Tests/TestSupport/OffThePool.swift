import Foundation

/// Runs blocking work (a socket read that waits for a server, a burst of
/// sends) on a thread of its own and awaits it. Swift's cooperative pool
/// has one thread per core, two here, shared by every test of the run: a
/// test that blocks one of them for a minute (a raw read waiting for a
/// server-sent event) stalls every other async test, and a gateway test's
/// read beside it took 60-78 s instead of milliseconds.
public func offThePool<T: Sendable>(_ name: String, _ work: @escaping @Sendable () -> T) async -> T {
    let result = Handover<T>()
    let thread = Thread { result.fulfil(work()) }
    thread.name = name
    thread.start()
    return await result.value()
}
