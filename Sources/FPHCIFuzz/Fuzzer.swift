import FPHCI
import FPHex

/// A deterministic mutation fuzzer for the HCI parsers (no libFuzzer needed):
/// it mutates real events (bit flips, byte sets, truncation, extension,
/// length-byte lies, splices) and random bytes, and runs every parser on each.
/// A parser bug shows as a trap (the process dies) or a broken invariant.
package struct HCIFuzzer {
    package private(set) var executions = 0
    package private(set) var parsedReports = 0
    package private(set) var rejected = 0
    package private(set) var violations: [String] = []
    var state: UInt64
    let corpus: [[UInt8]]

    /// `corpus`: event packets without the H4 byte (code, length, parameters).
    package init(corpus: [[UInt8]], seed: UInt64) {
        self.corpus = corpus.isEmpty ? [[0x3E, 0x00]] : corpus
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        // splitmix64: tiny, seedable, good enough for choosing mutations.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    package mutating func mutate() -> [UInt8] {
        var b = corpus[below(corpus.count)]
        for _ in 0...below(4) {
            switch below(8) {
            case 0 where !b.isEmpty: b[below(b.count)] ^= UInt8(1 << below(8))
            case 1 where !b.isEmpty: b[below(b.count)] = UInt8(truncatingIfNeeded: next())
            case 2 where !b.isEmpty: b.removeLast(below(b.count) + 1)
            case 3: b += (0..<below(40)).map { _ in UInt8(truncatingIfNeeded: next()) }
            case 4 where b.count > 1: b[1] = UInt8(truncatingIfNeeded: next())  // lie about the length
            case 5 where b.count > 4: b[4] = UInt8(below(0x1B))  // Num_Reports
            case 6:
                let other = corpus[below(corpus.count)]
                let cut = below(b.count + 1)
                b = Array(b[..<cut]) + other[min(below(other.count + 1), other.count)...]
            default: b = (0..<below(300)).map { _ in UInt8(truncatingIfNeeded: next()) }
            }
        }
        return b
    }

    /// Runs every parser on one input and checks what must hold for any bytes.
    package mutating func run(_ input: [UInt8]) {
        executions += 1
        let event: HCIEvent
        do { event = try HCIEvent(bytes: input) } catch { rejected += 1; return }
        if event.parameters.count != Int(input.count) - 2 { violations.append("event length not honoured: \(Hex.string(input))") }
        _ = try? CommandComplete(event)
        _ = try? CommandStatus(event)
        let reports: [AdvertisingReport]
        do { reports = try AdvertisingReports.parse(event) } catch { rejected += 1; return }
        if reports.count > AdvertisingReports.maxReports { violations.append("too many reports: \(Hex.string(input))") }
        for r in reports {
            parsedReports += 1
            if r.rssi == 127 || r.txPower == 127 { violations.append("127 kept as a value: \(Hex.string(input))") }
            if r.data.startIndex < event.parameters.startIndex || r.data.endIndex > event.parameters.endIndex {
                violations.append("data outside the event: \(Hex.string(input))")
            }
            if let ad = try? AdvertisingData(bytes: r.data) { _ = BeaconFrame.decode(ad) }
        }
    }

    /// `count` mutated inputs.
    package mutating func run(iterations count: Int) {
        for _ in 0..<count { run(mutate()) }
    }

    /// Event packets of a btsnoop capture, as a corpus.
    package static func corpus(btsnoop bytes: [UInt8]) -> [[UInt8]] {
        guard let file = try? BtsnoopFile(bytes: bytes), let records = try? file.records() else { return [] }
        return records.filter { $0.type == .event }.map { Array($0.packet) }
    }
}
