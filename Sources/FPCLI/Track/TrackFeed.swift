import FPAnalysis
import FPCore
import FPSession

/// Where `fprint track`'s samples come from, tick by tick on one clock:
/// radio providers (real radios, a btsnoop replay), the simulated building, or
/// a stored walk replayed as a stream.
protocol TrackFeed: Sendable {
    /// When the feed has nothing more (a replay's end, a scenario's last point); nil: until stopped.
    var endMs: Int? { get }
    mutating func start() async throws
    /// Every sample up to and including `ms`, in time order.
    mutating func advance(toMs ms: Int) async -> [Sample]
    /// The same samples handed to the tracker; returns how many. A table feed
    /// overrides it to keep fractional RSSI, which `Sample` rounds.
    mutating func advance(toMs ms: Int, into tracker: inout Tracker) async -> Int
    /// The true position at `ms`, where the feed knows it (simulation, stored walk).
    func truth(atMs ms: Int) -> (map: String, point: MapPoint)?
    func stop() async
}

extension TrackFeed {
    mutating func advance(toMs ms: Int, into tracker: inout Tracker) async -> Int {
        let samples = await advance(toMs: ms)
        for s in samples { tracker.add(s) }
        return samples.count
    }
}

/// Providers as the measurement engine runs them (same clock, context and
/// sink), but drained each tick into the tracker instead of kept for a document.
struct ProviderFeed: TrackFeed {
    let providers: [any RadioProvider]
    let clock: any MeasurementClock
    let level: String
    let endMs: Int?
    private let sink = SampleSink()
    private var running: [any RadioProvider] = []

    init(setup: CaptureSetup, level: String, endMs: Int?) {
        providers = setup.providers
        clock = setup.clock
        self.level = level
        self.endMs = endMs
    }

    mutating func start() async throws {
        let context = CaptureContext(clock: clock, level: level, position: { _ in MapPoint(x: 0, y: 0) })
        var reasons: [String] = []
        for p in providers {
            let status = await p.start(context: context, sink: sink)
            if status.status == .ok { running.append(p) } else { reasons.append("\(p.radio.label): \(status.reason ?? "unavailable")") }
        }
        if running.isEmpty {
            throw CommandFailure("no radio can be recorded here (\(reasons.joined(separator: "; "))); use --simulate or --ble-source btsnoop:FILE", .unavailable)
        }
        for r in reasons { Terminal.err("warning: \(r)") }
    }

    mutating func advance(toMs ms: Int) async -> [Sample] {
        for p in running { await p.advance(toMs: ms) }
        var batch = sink.drain()
        batch.removeAll { $0.time < 0 }
        // Providers deliver in their own order; the window wants time order.
        if !batch.isEmpty && !zip(batch, batch.dropFirst()).allSatisfy({ $0.time <= $1.time }) { batch.sort { $0.time < $1.time } }
        return batch
    }

    func truth(atMs ms: Int) -> (map: String, point: MapPoint)? { nil }

    func stop() async {
        for p in running { await p.stop() }
    }
}

/// The simulated building as a feed: samples computed on the run's clock.
struct SimulationFeed: TrackFeed {
    var simulation: TrackSimulation
    var endMs: Int? { simulation.durationMs }
    mutating func start() async throws {}
    mutating func advance(toMs ms: Int) async -> [Sample] { simulation.advance(toMs: ms) }
    func truth(atMs ms: Int) -> (map: String, point: MapPoint)? { simulation.truth(atMs: ms) }
    func stop() async {}
}

/// A stored walk replayed as a live stream: each document's samples at their
/// time in the walk (its window's start plus the sample's own time), the truth
/// interpolated between the documents' positions at their windows' midpoints.
struct SessionFeed: TrackFeed {
    struct Document: Sendable {
        let map: String
        let startMs: Int
        let endMs: Int
        let point: MapPoint
        let samples: [Sample]
    }

    let documents: [Document]
    let endMs: Int?
    private var next = 0
    private var pending: [Sample] = []

    init(documents: [Document]) {
        self.documents = documents
        endMs = documents.map(\.endMs).max() ?? 0
        pending = documents.flatMap(\.samples).sorted { $0.time < $1.time }
    }

    mutating func start() async throws {}

    mutating func advance(toMs ms: Int) async -> [Sample] {
        let from = next
        while next < pending.count && pending[next].time <= ms { next += 1 }
        return Array(pending[from..<next])
    }

    func truth(atMs ms: Int) -> (map: String, point: MapPoint)? {
        guard let first = documents.first else { return nil }
        func mid(_ d: Document) -> Double { Double(d.startMs + d.endMs) / 2 }
        let t = Double(ms)
        if t <= mid(first) { return (first.map, first.point) }
        for (a, b) in zip(documents, documents.dropFirst()) where t <= mid(b) {
            guard a.map == b.map else { return t < (mid(a) + mid(b)) / 2 ? (a.map, a.point) : (b.map, b.point) }
            let f = (t - mid(a)) / max(1, mid(b) - mid(a))
            return (a.map, MapPoint(x: a.point.x + (b.point.x - a.point.x) * f, y: a.point.y + (b.point.y - a.point.y) * f))
        }
        let last = documents[documents.count - 1]
        return (last.map, last.point)
    }

    func stop() async {}
}
