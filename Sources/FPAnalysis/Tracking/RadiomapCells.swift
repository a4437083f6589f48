/// A map's radiomap as the Bayes filter sees it: the stored fingerprints
/// gathered into square cells of `cellM` metres, each cell one place the
/// walker may be, with its mean RSSI per transmitter, and how much RSSI
/// varies within a cell (the noise of a match), all learnt from the
/// radiomap itself, so nothing is tuned per dataset.
package struct RadiomapCells: Sendable {
    /// Cell centres (the mean of their fingerprints' positions), map units.
    package let x: [Double]
    package let y: [Double]
    /// Transmitter ids, one column each, and whether each is BLE.
    package let columns: [String]
    package let isBLE: [Bool]
    /// cells × columns, row-major; nil where the cell did not hear the column
    /// in at least half of its fingerprints that recorded its radio.
    package let values: [Double?]
    /// cells × 2 (BLE, Wi-Fi): whether any fingerprint of the cell recorded the
    /// radio at all; where none did, the cell has no opinion on its columns.
    package let surveyed: [Bool]
    package let metersPerUnit: Double
    package let cellM: Double
    /// √(pooled variance of readings around their cell's mean), dB.
    package let withinCellSD: Double

    package var count: Int { x.count }

    /// The survey covers the floor as places next to each other (the median
    /// cell has a neighbour within two cells' width), as a robot's or a grid
    /// survey does. A walk's documents, 2 m apart along a line, are not: there a
    /// walker crosses a gap between cells at every step, which a belief over
    /// cells follows late, and WKNN, which interpolates, does better.
    package var dense: Bool {
        guard count > 1 else { return false }
        let limit = 2 * cellM / metersPerUnit
        var near: [Double] = []
        for a in 0..<count {
            var best = Double.infinity
            for b in 0..<count where b != a {
                let dx = x[a] - x[b], dy = y[a] - y[b]
                best = min(best, dx * dx + dy * dy)
            }
            near.append(best)
        }
        near.sort()
        return near[near.count / 2] <= limit * limit
    }

    /// `cellM` 0.5 m: finer than WKNN can tell places apart, coarse enough
    /// that a robot's or a walk's survey puts several readings in a cell.
    package init(_ fingerprints: [Fingerprint], metersPerUnit: Double, cellM: Double = 0.5) {
        self.metersPerUnit = metersPerUnit
        self.cellM = cellM
        let side = cellM / metersPerUnit
        struct Key: Hashable { let i: Int, j: Int }
        var order: [Key] = []
        var members: [Key: [Int]] = [:]
        for (n, fp) in fingerprints.enumerated() {
            let p = Radiomap.position(fp)
            let key = Key(i: Int((p.x / side).rounded(.down)), j: Int((p.y / side).rounded(.down)))
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(n)
        }
        var ids = Set<String>()
        for fp in fingerprints { for s in fp.ble { ids.insert(s.transmitter) }; for s in fp.wifi { ids.insert(s.transmitter) } }
        let columns = ids.sorted()
        let index = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        var xs: [Double] = [], ys: [Double] = []
        var values = [Double?](repeating: nil, count: order.count * columns.count)
        var surveyed = [Bool](repeating: false, count: order.count * 2)
        var squares = 0.0, freedom = 0
        for (c, key) in order.enumerated() {
            let rows = members[key]!
            var sx = 0.0, sy = 0.0
            // Per column: the readings of the cell, and in how many fingerprints it was heard.
            var readings = [[Double]](repeating: [], count: columns.count)
            var heardIn = [Int](repeating: 0, count: columns.count)
            var withRadio = [0, 0]
            for r in rows {
                if !fingerprints[r].ble.isEmpty { withRadio[0] += 1 }
                if !fingerprints[r].wifi.isEmpty { withRadio[1] += 1 }
                let p = Radiomap.position(fingerprints[r])
                sx += p.x
                sy += p.y
                var seen = Set<Int>()
                for s in fingerprints[r].ble + fingerprints[r].wifi {
                    let col = index[s.transmitter]!
                    readings[col].append(s.rssi)
                    seen.insert(col)
                }
                for col in seen { heardIn[col] += 1 }
            }
            xs.append(sx / Double(rows.count))
            ys.append(sy / Double(rows.count))
            surveyed[c * 2] = withRadio[0] > 0
            surveyed[c * 2 + 1] = withRadio[1] > 0
            for col in columns.indices where !readings[col].isEmpty
                && heardIn[col] * 2 >= withRadio[columns[col].hasPrefix("BLE:") ? 0 : 1] {
                let mean = readings[col].reduce(0, +) / Double(readings[col].count)
                values[c * columns.count + col] = mean
                for v in readings[col] { squares += (v - mean) * (v - mean) }
                freedom += readings[col].count - 1
            }
        }
        x = xs
        y = ys
        self.columns = columns
        isBLE = columns.map { $0.hasPrefix("BLE:") }
        self.values = values
        self.surveyed = surveyed
        // No cell with two readings of a transmitter: BLE's usual 4 dB.
        withinCellSD = freedom > 0 ? max(1, (squares / Double(freedom)).squareRoot()) : 4
    }
}

extension Radiomap {
    /// A fingerprint's exact position where the document keeps one (imported
    /// datasets: metres with decimals), else its whole map units.
    package static func position(_ fp: Fingerprint) -> (x: Double, y: Double) {
        (fp.labels.exactX ?? Double(fp.x), fp.labels.exactY ?? Double(fp.y))
    }
}
