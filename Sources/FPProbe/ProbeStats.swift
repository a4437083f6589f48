/// The figures of a probe, computed from timestamps alone: pure functions,
/// so the formulas are tested against hand-computed values.
public enum ProbeStats {
    /// RFC 3550 §6.4.1 interarrival jitter, in the units of the times given:
    /// for packets in arrival order, D(i−1,i) = (Rᵢ − Rᵢ₋₁) − (Sᵢ − Sᵢ₋₁) and
    /// J += (|D| − J)/16. `packets` are (sent, received) pairs on the sender's
    /// and the receiver's clocks; a constant offset between the clocks cancels.
    public static func jitter(_ packets: [(sent: Double, received: Double)]) -> Double? {
        guard packets.count >= 2 else { return nil }
        var j = 0.0
        for i in 1..<packets.count {
            let d = (packets[i].received - packets[i - 1].received) - (packets[i].sent - packets[i - 1].sent)
            j += (abs(d) - j) / 16
        }
        return j
    }

    /// Per cent of `sent` that did not arrive (0 when nothing was sent).
    public static func lossPercent(sent: Int, received: Int) -> Double {
        guard sent > 0 else { return 0 }
        return Double(max(0, sent - min(received, sent))) * 100 / Double(sent)
    }

    /// Throughput in bit/s from a transfer's progress samples (seconds since
    /// the start, bytes so far; in time order), leaving out the first 10 % of
    /// the bytes: TCP's slow start. Nil when too little was moved to tell.
    public static func throughput(_ samples: [(seconds: Double, bytes: Int)]) -> Double? {
        guard let last = samples.last, last.bytes > 0 else { return nil }
        let cut = last.bytes / 10
        guard let first = samples.first(where: { $0.bytes >= cut && $0.bytes > 0 }), last.seconds > first.seconds
        else { return nil }
        return Double(last.bytes - first.bytes) * 8 / (last.seconds - first.seconds)
    }

    /// min/avg/max/median of round-trip times (ms).
    public struct Summary: Sendable, Equatable {
        public var min: Double, avg: Double, max: Double, median: Double, count: Int
    }

    public static func summary(_ values: [Double]) -> Summary? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let n = sorted.count
        let median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        return Summary(min: sorted[0], avg: sorted.reduce(0, +) / Double(n), max: sorted[n - 1], median: median, count: n)
    }

    /// A figure rounded to 3 decimals, so it survives a JSON round trip unchanged.
    public static func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
}
