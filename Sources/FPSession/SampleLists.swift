import FPCore

/// A measurement's samples by radio, each list in time order: what a
/// document holds, so a static measurement hands the lists over as they are.
struct SampleLists {
    var ble: [BLEScan] = []
    var wifi: [WiFiScan] = []
    var cells: [CellScan] = []
    var fixes: [GeoFix] = []

    /// The ticks' batches sorted into the lists, without the samples timed
    /// outside `times`. Each sample is moved, not copied: a copy retains its
    /// strings and freeing the batch releases them again, and a replay has
    /// 100,000s. The batches are left empty.
    init(taking batches: inout [[Sample]], within times: ClosedRange<Int>) {
        var bleCount = 0
        for batch in batches {
            batch.withUnsafeBufferPointer { b in
                for i in b.indices { if case .ble = b[i] { bleCount += 1 } }
            }
        }
        var wifi: [WiFiScan] = [], cells: [CellScan] = [], fixes: [GeoFix] = []
        var bleInOrder = true
        // From the back, the last sample first (`popLast` moves it out); the
        // short lists are turned round after.
        ble = [BLEScan](unsafeUninitializedCapacity: bleCount) { buffer, initialized in
            var i = bleCount
            var later = Int.max
            while var batch = batches.popLast() {
                while let sample = batch.popLast() {
                    guard times.contains(sample.time) else { continue }
                    switch consume sample {
                    case .ble(let s):
                        if s.time > later { bleInOrder = false }
                        later = s.time
                        i -= 1
                        (buffer.baseAddress! + i).initialize(to: s)
                    case .wifi(let s): wifi.append(s)
                    case .cell(let s): cells.append(s)
                    case .geo(let s): fixes.append(s)
                    }
                }
            }
            // Those left out leave room at the front: the kept ones move up.
            if i > 0 { buffer.baseAddress!.moveInitialize(from: buffer.baseAddress! + i, count: bleCount - i) }
            initialized = bleCount - i
        }
        if !bleInOrder { ble.sort { $0.time < $1.time } }
        self.wifi = Self.inTimeOrder(wifi.reversed(), \.time)
        self.cells = Self.inTimeOrder(cells.reversed(), \.time)
        self.fixes = Self.inTimeOrder(fixes.reversed(), \.time)
    }

    /// The same with BLE reports listed apart (`SampleSink.emitBLE`, a
    /// replay's): a list in time order and within `times`, next to batches
    /// without BLE, becomes the BLE list as it is, not copied.
    init(taking batches: inout [[Sample]], listed: consuming [BLEScan], within times: ClosedRange<Int>) {
        self.init(taking: &batches, within: times)
        guard !listed.isEmpty else { return }
        var inOrder = true, inside = true
        listed.withUnsafeBufferPointer { b in
            var earlier = Int.min
            for i in b.indices {
                let time = b[i].time
                if time < earlier { inOrder = false }
                if !times.contains(time) { inside = false }
                earlier = time
            }
        }
        if ble.isEmpty && inOrder && inside {
            ble = listed
            return
        }
        if !inside { listed.removeAll { !times.contains($0.time) } }
        ble.append(contentsOf: listed)
        ble = Self.inTimeOrder(ble, \.time)
    }

    init() {}

    private static func inTimeOrder<T>(_ list: [T], _ time: (T) -> Int) -> [T] {
        zip(list, list.dropFirst()).allSatisfy { time($0) <= time($1) } ? list : list.sorted { time($0) < time($1) }
    }

    /// The samples timed in `times`, copied (a walk's window).
    func window(_ times: Range<Int>) -> SampleLists {
        var out = SampleLists()
        out.ble = Array(ble[Self.indices(of: ble, \.time, in: times)])
        out.wifi = Array(wifi[Self.indices(of: wifi, \.time, in: times)])
        out.cells = Array(cells[Self.indices(of: cells, \.time, in: times)])
        out.fixes = Array(fixes[Self.indices(of: fixes, \.time, in: times)])
        return out
    }

    /// Where the entries timed in `times` are in a list in time order.
    private static func indices<T>(of list: [T], _ time: (T) -> Int, in times: Range<Int>) -> Range<Int> {
        func first(atLeast t: Int) -> Int {
            var low = 0, high = list.count
            while low < high {
                let mid = (low + high) / 2
                if time(list[mid]) < t { low = mid + 1 } else { high = mid }
            }
            return low
        }
        return first(atLeast: times.lowerBound)..<first(atLeast: times.upperBound)
    }

    /// Every time made relative to `startMs` (a document's own start), in place.
    mutating func shift(by startMs: Int) {
        guard startMs != 0 else { return }
        for i in ble.indices { ble[i].time -= startMs }
        for i in wifi.indices { wifi[i].time -= startMs }
        for i in cells.indices { cells[i].time -= startMs }
        for i in fixes.indices { fixes[i].time -= startMs }
    }
}
