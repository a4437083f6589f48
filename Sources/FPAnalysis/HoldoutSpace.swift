/// The training and test fingerprints of one train/test evaluation in one
/// signal space: per-transmitter medians as `SignalSpace.reduce` makes them,
/// laid out as sparse rows (heard columns only) over every column the
/// paper's protocol counts — the tables' declared transmitter columns in
/// their own order (`imported.transmitters`: UJI's 620, heard or not),
/// then any other transmitter heard, by id. Rows 0..<trainCount are
/// training, the rest test, each in file order.
package struct HoldoutSpace: Sendable {
    package let trainCount: Int
    package let testCount: Int
    /// Every column counted (the Gaussian kernel's sum runs over all of them).
    package let columnCount: Int
    package let zeroSignal: Double
    /// Row r's heard columns are entries rowStart[r]..<rowStart[r+1], by ascending column.
    let rowStart: [Int]
    let entryColumn: [Int32]
    let entryValue: [Double]
    /// Positions in metres, floors as comparable keys (`floorName` words them).
    package let x: [Double]
    package let y: [Double]
    package let floor: [Int]
    /// True when floors are the documents' `floor` numbers; else keys index the sorted map ids.
    package let numericFloors: Bool
    let floorNames: [String]
    /// Whether every value and the fill are multiples of 0.5 dB, so that
    /// squared distances are exact integers in quarter dB² (`scaled`: 2·(v − fill)).
    let halfDecibels: Bool
    let scaled: [Int64]

    package init(train: [Fingerprint], test: [Fingerprint], set: RadioSet, options: SignalOptions,
                 metersPerUnit: (Fingerprint) -> Double) {
        let all = train + test
        trainCount = train.count
        testCount = test.count
        zeroSignal = options.zeroSignal
        let reduced = SignalSpace.reduce(all, set: set, options: options)
        // The universe: declared columns of the set's radios, in table order, then the rest heard, by id.
        let radios = set == .wifi ? ["WIFI:"] : set == .ble ? ["BLE:"] : ["WIFI:", "BLE:"]
        var universe: [String] = []
        var place: [String: Int32] = [:]
        var seenLists: [DeclaredColumns] = []
        for fp in all {
            guard let declared = fp.labels.columns, !seenLists.contains(where: { $0 === declared }) else { continue }
            seenLists.append(declared)
            for id in declared.ids where place[id] == nil && radios.contains(where: { id.hasPrefix($0) }) {
                place[id] = Int32(universe.count)
                universe.append(id)
            }
        }
        for id in reduced.transmitters where place[id] == nil {
            place[id] = Int32(universe.count)
            universe.append(id)
        }
        columnCount = universe.count
        let toUniverse = reduced.transmitters.map { place[$0]! }
        var rowStart = [0], entryColumn: [Int32] = [], entryValue: [Double] = []
        var half = (options.zeroSignal * 2).rounded() == options.zeroSignal * 2
        for pairs in reduced.rows {
            var row: [(Int32, Double)] = []
            row.reserveCapacity(pairs.count)
            for (c, v) in pairs {
                if (v * 2).rounded() != v * 2 || abs(v) > 1e6 { half = false }
                row.append((toUniverse[c], v))
            }
            row.sort { $0.0 < $1.0 }
            entryColumn += row.map(\.0)
            entryValue += row.map(\.1)
            rowStart.append(entryColumn.count)
        }
        self.rowStart = rowStart
        self.entryColumn = entryColumn
        self.entryValue = entryValue
        halfDecibels = half
        scaled = half ? entryValue.map { Int64((($0 - options.zeroSignal) * 2).rounded()) } : []
        x = all.map { ($0.labels.exactX ?? Double($0.x)) * metersPerUnit($0) }
        y = all.map { ($0.labels.exactY ?? Double($0.y)) * metersPerUnit($0) }
        numericFloors = all.allSatisfy { $0.labels.floor != nil }
        if numericFloors {
            floor = all.map { $0.labels.floor! }
            floorNames = []
        } else {
            floorNames = Array(Set(all.map(\.level))).sorted()
            let key = Dictionary(uniqueKeysWithValues: floorNames.enumerated().map { ($1, $0) })
            floor = all.map { key[$0.level]! }
        }
    }

    /// A floor key as the documents say it: the floor number, or the map id.
    package func floorName(_ key: Int) -> String { numericFloors ? String(key) : floorNames[key] }

    func entries(_ r: Int) -> Range<Int> { rowStart[r]..<rowStart[r + 1] }
}
