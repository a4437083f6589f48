import Foundation

/// Where providers running concurrently deliver samples; the engine drains it.
///
/// A sink made `listingBLE` (the measurement engine's) keeps the BLE reports
/// delivered with `emitBLE(prefixOf:count:)` apart, as the provider's own
/// array, until `takeBLEList()`: a replay's 100,000s then become the list the
/// document holds as they are, instead of each going into a `Sample` at
/// every tick and back out at the end (two passes over ~20 MB, and ~40 MB of
/// fresh memory touched, what a short run pays most for on a VM).
public final class SampleSink: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Sample] = []
    /// Every radio, from 0: what `counts()` gives for progress.
    private var delivered = Dictionary(uniqueKeysWithValues: Radio.allCases.map { ($0, 0) })
    private let listsBLE: Bool
    private var bleList: [BLEScan] = []
    /// How many reports `emitBLE(prefixOf:count:)` has delivered.
    private var bleListed = 0

    /// `listingBLE`: keep what `emitBLE` delivers in the BLE list (`takeBLEList`),
    /// not in the samples `drain()` returns.
    public init(listingBLE: Bool = false) { listsBLE = listingBLE }

    public func emit(_ sample: Sample) {
        lock.lock()
        pending.append(sample)
        delivered[sample.radio, default: 0] += 1
        lock.unlock()
    }

    public func emit(contentsOf samples: [Sample]) {
        lock.lock()
        if pending.isEmpty { pending = samples } else { pending.append(contentsOf: samples) }  // a batch: no copy
        // Read in place (`for s in samples` copies each sample, retaining its
        // strings) and tallied per radio before the dictionary is touched.
        var tally = [0, 0, 0, 0]
        samples.withUnsafeBufferPointer { buffer in
            for i in buffer.indices {
                switch buffer[i] {
                case .ble: tally[0] += 1
                case .wifi: tally[1] += 1
                case .cell: tally[2] += 1
                case .geo: tally[3] += 1
                }
            }
        }
        for (radio, n) in zip([Radio.ble, .wifi, .cell, .location], tally) where n > 0 { delivered[radio, default: 0] += n }
        lock.unlock()
    }

    /// Delivers `reports[..<count]`: a provider whose reports are already
    /// one array in time order (a loaded capture) says how far it has got,
    /// further at each call. A listing sink keeps the array itself, shared,
    /// not copied: the document's BLE list is its delivered part
    /// (`takeBLEList`, once the provider has let the array go). Any other
    /// sink takes copies of the newly delivered reports as samples. One such
    /// provider per sink.
    public func emitBLE(prefixOf reports: [BLEScan], count: Int) {
        lock.lock()
        defer { lock.unlock() }
        let from = min(bleListed, count)
        if listsBLE {
            bleList = reports
        } else {
            pending.append(contentsOf: reports[from..<count].lazy.map(Sample.ble))
        }
        delivered[.ble, default: 0] += count - from
        bleListed = count
    }

    /// Removes and returns everything delivered so far but the BLE list.
    public func drain() -> [Sample] {
        lock.lock()
        defer { lock.unlock() }
        // Hand over the buffer as it is and start a new one: keeping the
        // capacity would give every drained batch the largest one's size.
        let out = pending
        pending = []
        return out
    }

    /// Copies of the listed BLE reports from `start` on, as samples, and
    /// `start` moved past them: what a live view has not seen yet.
    public func listedBLE(from start: inout Int) -> [Sample] {
        lock.withLock {
            let new = listsBLE ? bleList[min(start, bleListed)..<bleListed].map(Sample.ble) : []
            start = bleListed
            return new
        }
    }

    /// Removes and returns the delivered part of the BLE list, in time
    /// order; not a copy when the provider no longer holds the array.
    public func takeBLEList() -> [BLEScan] {
        lock.withLock {
            var out = bleList
            bleList = []
            if bleListed < out.count { out.removeSubrange(bleListed...) }
            return out
        }
    }

    /// Samples delivered so far per radio (each radio, 0 when none), for
    /// live progress at every tick: one lock and no new dictionary.
    public func counts() -> [Radio: Int] {
        lock.withLock { delivered }
    }

    /// Samples delivered so far per radio, for live progress.
    public func count(_ radio: Radio) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return delivered[radio, default: 0]
    }
}
