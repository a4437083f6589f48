/// Fingerprints of one radio set as dense vectors, ready for fast distances.
///
/// Transmitter ids are interned to column numbers (sorted ids, so the layout
/// is deterministic). Each row holds the reduced RSSI per column and
/// `zeroSignal` where the transmitter was not heard; a bit mask per row says
/// which columns were heard. Why dense with the fill value: a column missing
/// on both sides contributes (z − z)² = 0, so the dense sum equals the
/// evaluator's sum over the union of ids, and with integer RSSI (medians are
/// multiples of 0.5) every term and partial sum is exact, so the summation
/// order cannot change a bit of the result.
package struct SignalSpace: Sendable {
    package let transmitters: [String]
    package let rows: Int
    package let columns: Int
    package let zeroSignal: Double
    /// rows × stride values, row-major; padding columns hold zeroSignal.
    let values: [Double]
    let stride: Int
    /// rows × words bit masks of heard columns.
    let masks: [UInt64]
    let words: Int

    /// Reduces every fingerprint (the same medians as `Reduction.reduce`) and
    /// lays them out. Built for speed: each sample's id is hashed once into a
    /// provisional column, and each fingerprint's (column, RSSI) pairs are
    /// sorted once, so medians are runs of a sorted array (no dictionary per
    /// fingerprint and transmitter).
    package init(_ fingerprints: [Fingerprint], set: RadioSet, options: SignalOptions) {
        let reduced = Self.reduce(fingerprints, set: set, options: options)
        self.init(columns: reduced.transmitters, rows: reduced.rows, zeroSignal: options.zeroSignal)
    }

    /// The reduction alone: sorted transmitter ids and, per fingerprint, its
    /// (column, median) pairs, one per heard column, in no particular order
    /// (what the train/test evaluation lays out sparsely).
    package static func reduce(_ fingerprints: [Fingerprint], set: RadioSet, options: SignalOptions)
        -> (transmitters: [String], rows: [[(column: Int, value: Double)]])
    {
        var provisional: [String: Int32] = [:]
        var names: [String] = []
        var bleColumn: [Bool] = []
        var pairs: [[(column: Int32, rssi: Double)]] = []
        pairs.reserveCapacity(fingerprints.count)
        let limit = options.maxTimeMs ?? Int.max
        for fp in fingerprints {
            var mine: [(column: Int32, rssi: Double)] = []
            func add(_ samples: [Fingerprint.Sample], ble: Bool) {
                for s in samples where s.time <= limit {
                    let c: Int32
                    if let known = provisional[s.transmitter] {
                        c = known
                    } else {
                        c = Int32(names.count)
                        provisional[s.transmitter] = c
                        names.append(s.transmitter)
                        bleColumn.append(ble)
                    }
                    mine.append((c, s.rssi))
                }
            }
            if set != .wifi { add(fp.ble, ble: true) }
            if set != .ble { add(fp.wifi, ble: false) }
            pairs.append(mine)
        }
        // Final columns in sorted id order, so the layout never depends on input order.
        let order = names.indices.sorted { names[$0] < names[$1] }
        var final = [Int32](repeating: 0, count: names.count)
        for (newIndex, old) in order.enumerated() { final[old] = Int32(newIndex) }
        let weight = set == .combined ? options.bleWeight : 1
        var reduced: [[(column: Int, value: Double)]] = []
        reduced.reserveCapacity(pairs.count)
        for var mine in pairs {
            mine.sort { $0.column != $1.column ? $0.column < $1.column : $0.rssi < $1.rssi }
            var out: [(column: Int, value: Double)] = []
            var start = 0
            while start < mine.count {
                var end = start + 1
                while end < mine.count && mine[end].column == mine[start].column { end += 1 }
                let n = end - start
                // The evaluator's median: middle value, or (a + b) / 2 of the two middle ones.
                let m = n % 2 == 0 ? (mine[start + n / 2 - 1].rssi + mine[start + n / 2].rssi) / 2 : mine[start + n / 2].rssi
                let c = Int(mine[start].column)
                out.append((Int(final[c]), bleColumn[c] && weight != 1 ? m * weight : m))
                start = end
            }
            reduced.append(out)
        }
        return (order.map { names[$0] }, reduced)
    }

    /// From reduced fingerprints (transmitter id → value).
    package init(reduced: [[String: Double]], zeroSignal: Double) {
        var ids = Set<String>()
        for r in reduced { ids.formUnion(r.keys) }
        let transmitters = ids.sorted()
        var column: [String: Int] = [:]
        for (i, id) in transmitters.enumerated() { column[id] = i }
        self.init(columns: transmitters, rows: reduced.map { $0.map { (column[$0.key]!, $0.value) } },
                  zeroSignal: zeroSignal)
    }

    init(columns transmitters: [String], rows reduced: [[(column: Int, value: Double)]], zeroSignal: Double) {
        self.transmitters = transmitters
        rows = reduced.count
        columns = transmitters.count
        self.zeroSignal = zeroSignal
        stride = (columns + 3) / 4 * 4  // whole blocks of 4 for the unrolled loop
        words = max(1, (columns + 63) / 64)
        var values = [Double](repeating: zeroSignal, count: rows * stride)
        var masks = [UInt64](repeating: 0, count: rows * words)
        for (r, row) in reduced.enumerated() {
            for (c, v) in row {
                values[r * stride + c] = v
                masks[r * words + c / 64] |= 1 << UInt64(c % 64)
            }
        }
        self.values = values
        self.masks = masks
    }

    /// The reduced value of a row's transmitter, nil when not heard.
    package func value(row: Int, transmitter: String) -> Double? {
        guard let c = transmitters.firstIndex(of: transmitter), heard(row: row, column: c) else { return nil }
        return values[row * stride + c]
    }

    func heard(row: Int, column c: Int) -> Bool { masks[row * words + c / 64] & (1 << UInt64(c % 64)) != 0 }

    /// True when rows a and b have at least one transmitter in common.
    @inline(__always)
    func shareTransmitter(_ a: Int, _ b: Int) -> Bool {
        masks.withUnsafeBufferPointer { m in
            let pa = a * words, pb = b * words
            for w in 0..<words where m[pa + w] & m[pb + w] != 0 { return true }
            return false
        }
    }

    /// Signal-space distance: Euclidean over the union of transmitters with a
    /// missing one counting as zeroSignal; infinite with none in common.
    package func distance(_ a: Int, _ b: Int) -> Double {
        guard shareTransmitter(a, b) else { return .infinity }
        return values.withUnsafeBufferPointer { v in
            Self.squaredDistance(v.baseAddress! + a * stride, v.baseAddress! + b * stride, count: stride)
        }.squareRoot()
    }

    /// Four independent accumulators: the adds pipeline instead of waiting on
    /// one another (4× faster than one running sum), exact for RSSI data (see above).
    @inline(__always)
    static func squaredDistance(_ p: UnsafePointer<Double>, _ q: UnsafePointer<Double>, count: Int) -> Double {
        var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
        var i = 0
        while i < count {
            let d0 = p[i] - q[i], d1 = p[i + 1] - q[i + 1], d2 = p[i + 2] - q[i + 2], d3 = p[i + 3] - q[i + 3]
            s0 += d0 * d0
            s1 += d1 * d1
            s2 += d2 * d2
            s3 += d3 * d3
            i += 4
        }
        return (s0 + s1) + (s2 + s3)
    }
}

/// One neighbour of a fingerprint: its row and signal-space distance.
package struct Neighbour: Sendable, Equatable {
    package var index: Int
    package var distance: Double
    package init(index: Int, distance: Double) {
        self.index = index
        self.distance = distance
    }
}

extension SignalSpace {
    /// For every row, its `k` nearest other rows with a finite distance,
    /// nearest first; equal distances keep row (file) order. This is the
    /// evaluator's repeated "first strictly smallest in list order" search,
    /// done once for all k ≤ `k` (the lists for smaller k are prefixes).
    ///
    /// Each unordered pair is measured once and offered to both rows. A row
    /// receives candidates in ascending row order, so inserting a candidate
    /// after every kept neighbour with distance ≤ its own keeps ties in file order.
    package func leaveOneOutNeighbours(k: Int) -> [[Neighbour]] {
        precondition(k >= 1)
        let n = rows
        var dist = [Double](repeating: .infinity, count: n * k)
        var index = [Int](repeating: -1, count: n * k)
        var filled = [Int](repeating: 0, count: n)
        values.withUnsafeBufferPointer { v in
            dist.withUnsafeMutableBufferPointer { dist in
                index.withUnsafeMutableBufferPointer { index in
                    filled.withUnsafeMutableBufferPointer { filled in
                        @inline(__always) func offer(_ row: Int, _ cand: Int, _ d: Double) {
                            let base = row * k
                            let count = filled[row]
                            if count == k && !(d < dist[base + k - 1]) { return }
                            var pos = count == k ? k - 1 : count
                            while pos > 0 && d < dist[base + pos - 1] {
                                dist[base + pos] = dist[base + pos - 1]
                                index[base + pos] = index[base + pos - 1]
                                pos -= 1
                            }
                            dist[base + pos] = d
                            index[base + pos] = cand
                            if count < k { filled[row] = count + 1 }
                        }
                        for a in 0..<n {
                            let pa = v.baseAddress! + a * stride
                            for b in (a + 1)..<max(a + 1, n) {
                                guard shareTransmitter(a, b) else { continue }
                                let d = Self.squaredDistance(pa, v.baseAddress! + b * stride, count: stride).squareRoot()
                                offer(a, b, d)
                                offer(b, a, d)
                            }
                        }
                    }
                }
            }
        }
        return (0..<n).map { r in (0..<filled[r]).map { Neighbour(index: index[r * k + $0], distance: dist[r * k + $0]) } }
    }

    /// The `k` nearest rows to an outside query (reduced values by transmitter
    /// id), nearest first, ties in row order. Query transmitters unknown to the
    /// radiomap still count: each adds (q − zeroSignal)² to every distance.
    package func neighbours(of query: [String: Double], k: Int) -> [Neighbour] {
        var vector = [Double](repeating: zeroSignal, count: stride)
        var mask = [UInt64](repeating: 0, count: words)
        var extra = 0.0
        var column: [String: Int] = [:]
        for (i, id) in transmitters.enumerated() { column[id] = i }
        for (id, q) in query {
            if let c = column[id] {
                vector[c] = q
                mask[c / 64] |= 1 << UInt64(c % 64)
            } else {
                extra += (q - zeroSignal) * (q - zeroSignal)
            }
        }
        var best: [Neighbour] = []
        vector.withUnsafeBufferPointer { qv in
            values.withUnsafeBufferPointer { v in
                for r in 0..<rows {
                    var common = false
                    for w in 0..<words where masks[r * words + w] & mask[w] != 0 { common = true; break }
                    guard common else { continue }
                    let d = (Self.squaredDistance(qv.baseAddress!, v.baseAddress! + r * stride, count: stride) + extra)
                        .squareRoot()
                    if best.count == k && !(d < best[k - 1].distance) { continue }
                    var pos = best.count
                    while pos > 0 && d < best[pos - 1].distance { pos -= 1 }
                    best.insert(Neighbour(index: r, distance: d), at: pos)
                    if best.count > k { best.removeLast() }
                }
            }
        }
        return best
    }
}
