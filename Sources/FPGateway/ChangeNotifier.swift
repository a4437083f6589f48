import FPCore
import Foundation
import ServiceLifecycle

/// Wakes `_changes` waiters (longpoll, continuous) when the sequence moves.
/// Writes through the gateway wake them at once (`poke`); one shared poll,
/// running only while someone waits, catches writes by other processes. So
/// 100 idle longpolls cost one cheap query per `pollInterval`, not 100.
actor ChangeNotifier {
    private struct Waiter {
        var since: Int64
        var continuation: CheckedContinuation<Void, Never>
    }

    static let pollInterval: Duration = .milliseconds(500)
    private let lastSequence: @Sendable () async throws -> Int64
    private var waiters: [UInt64: Waiter] = [:]
    private var nextID: UInt64 = 0
    private var poller: Task<Void, Never>?
    private var pokes: UInt64 = 0
    private(set) var isShuttingDown = false

    init(lastSequence: @escaping @Sendable () async throws -> Int64) {
        self.lastSequence = lastSequence
    }

    /// Returns once the sequence is past `since`, after `timeout`, on
    /// shutdown or on cancellation, whichever comes first.
    func waitForChange(after since: Int64, timeout: Duration) async {
        if isShuttingDown { return }
        // The sequence is read off the actor's turn: a write committed
        // meanwhile pokes before this waiter is listed, so a changed poke
        // count answers at once (callers re-read the feed either way).
        let pokesBefore = pokes
        if ((try? await lastSequence()) ?? since) > since || pokes != pokesBefore || isShuttingDown { return }
        let id = nextID
        nextID += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A cancellation that came before this waiter was listed found nothing to wake.
                if Task.isCancelled { return continuation.resume() }
                waiters[id] = Waiter(since: since, continuation: continuation)
                startPolling()
            }
        } onCancel: {
            Task { await self.wake(id) }
        }
        timer.cancel()
    }

    /// A write committed: wake whoever waits for it.
    func poke() async {
        pokes &+= 1
        await check()
    }

    /// Wakes every waiter and answers later waits at once.
    func shutdown() {
        isShuttingDown = true
        for id in Array(waiters.keys) { wake(id) }
    }

    var waiting: Int { waiters.count }

    private func wake(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    private func check() async {
        guard !waiters.isEmpty, let last = try? await lastSequence() else { return }
        for (id, waiter) in waiters where waiter.since < last { wake(id) }
    }

    private func startPolling() {
        guard poller == nil else { return }
        poller = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.pollInterval)
                if await self.pollOnce() { break }
            }
        }
    }

    /// One poll; true when nobody waits any more (the poller then stops).
    private func pollOnce() async -> Bool {
        await check()
        if waiters.isEmpty {
            poller = nil
            return true
        }
        return false
    }
}

/// Runs beside the server: on graceful shutdown it wakes every waiting
/// feed, so open longpolls answer at once instead of holding SIGTERM up.
struct ChangeNotifierService: Service {
    let notifier: ChangeNotifier

    func run() async throws {
        try? await gracefulShutdown()
        await notifier.shutdown()
    }
}
