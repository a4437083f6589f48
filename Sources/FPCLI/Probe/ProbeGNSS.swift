import FPCore
import FPLinuxRadios
import Foundation

/// GNSS while one probe runs: gpsd watched from the run's start to its
/// end, the first fix kept as where it started and the last as where it
/// ended. Without gpsd (or without a fix) the run says why, as a
/// measurement's `providers.location` does, and is stored all the same.
struct ProbeGNSS {
    struct Fix {
        var fix: GeoFix
        var at: Date
        var json: JSONValue {
            var o: JSONObject = ["lat": .double(fix.lat), "long": .double(fix.long), "time": .string(ISOTime.string(at))]
            if let alt = fix.alt { o["alt"] = .double(alt) }
            if let accuracy = fix.accuracy { o["accuracy"] = .double(accuracy) }
            return .object(o)
        }
    }

    struct Fixes {
        var first: Fix?
        var last: Fix?
        var status: JSONValue
    }

    let endpoint: GPSDEndpoint

    /// Watches gpsd while `work` runs.
    func during<T>(_ work: () async throws -> T) async throws -> (T, Fixes) {
        let provider = GPSDProvider(endpoint: endpoint)
        let sink = SampleSink()
        let clock = MonotonicClock()
        let startedAt = Date()
        let context = CaptureContext(clock: clock, level: "", position: { _ in MapPoint(x: 0, y: 0) })
        var status = await provider.start(context: context, sink: sink)
        let result: T
        do {
            result = try await work()
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
        if status.status == .ok, let final = await provider.finalStatus() { status = final }
        let fixes = sink.drain().compactMap { sample -> Fix? in
            guard case .geo(let fix) = sample else { return nil }
            return Fix(fix: fix, at: startedAt.addingTimeInterval(Double(fix.time) / 1000))
        }
        var json: JSONObject = ["status": .string(status.status.rawValue), "source": .string(status.source)]
        if let reason = status.reason { json["reason"] = .string(reason) }
        json["samples"] = .int(Int64(fixes.count))
        return (result, Fixes(first: fixes.first, last: fixes.last, status: .object(json)))
    }
}
