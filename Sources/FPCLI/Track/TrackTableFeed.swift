import FPAnalysis
import FPCore
import FPDatasets

/// A fingerprint table's rows replayed as a live stream (`fprint track
/// --table`): each row's readings at its time since the first row, read by
/// the importer's own `TableReader`, so a test track of a public dataset
/// (ble-flat-robot's `test_robot_df.csv`) is tracked as it was recorded.
/// RSSI keep their fractions. Where the table has x/y, they are the truth:
/// interpolated between rows at most `truthGapMs` apart, else none (a gap in
/// the recording is not scored against a guessed path).
struct TableFeed: TrackFeed {
    struct Row: Sendable {
        let timeMs: Int
        let point: MapPoint?
        let readings: [(address: String, rssi: Double)]
    }

    static let truthGapMs = 2000

    let map: String
    let rows: [Row]
    let radio: FingerprintTable.Radio
    let endMs: Int?
    private var next = 0

    init(table: FingerprintTable, map: String) throws {
        var rows: [Row] = []
        guard let first = table.rows.first?.timeMs else {
            throw CommandFailure("\(table.file): no rows with a time to replay (--time-column)", .dataError)
        }
        for r in table.rows {
            guard let t = r.timeMs else { throw CommandFailure("\(table.file): line \(r.line): no time", .dataError) }
            let point: MapPoint? = if let x = r.x, let y = r.y { MapPoint(x: x, y: y) } else { nil }
            rows.append(Row(timeMs: Int(t - first), point: point,
                            readings: r.readings.map { (table.transmitters[$0.transmitter], $0.rssi) }))
        }
        // A table in time order is replayed as it is; another is put in order (stable: equal times keep file order).
        if !zip(rows, rows.dropFirst()).allSatisfy({ $0.timeMs <= $1.timeMs }) {
            rows = rows.enumerated().sorted { ($0.element.timeMs, $0.offset) < ($1.element.timeMs, $1.offset) }.map(\.element)
        }
        self.map = map
        self.rows = rows
        radio = table.radio
        // One interval past the last row, so its readings make a position.
        endMs = (rows.last?.timeMs ?? 0) + 1
    }

    mutating func start() async throws {}

    mutating func advance(toMs ms: Int) async -> [Sample] { [] }

    mutating func advance(toMs ms: Int, into tracker: inout Tracker) async -> Int {
        var count = 0
        while next < rows.count && rows[next].timeMs <= ms {
            let row = rows[next]
            for r in row.readings {
                switch radio {
                case .ble: tracker.addBLE(address: r.address, rssi: r.rssi, timeMs: row.timeMs)
                case .wifi: tracker.addWiFi(mac: r.address, rssi: r.rssi, timeMs: row.timeMs)
                }
            }
            count += row.readings.count
            next += 1
        }
        return count
    }

    func truth(atMs ms: Int) -> (map: String, point: MapPoint)? {
        // The last row at or before ms and the first after it.
        var lo = 0, hi = rows.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rows[mid].timeMs <= ms { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, let a = rows[lo - 1].point else { return nil }
        if rows[lo - 1].timeMs == ms { return (map, a) }
        guard lo < rows.count, let b = rows[lo].point, rows[lo].timeMs - rows[lo - 1].timeMs <= Self.truthGapMs else { return nil }
        let f = Double(ms - rows[lo - 1].timeMs) / Double(rows[lo].timeMs - rows[lo - 1].timeMs)
        return (map, MapPoint(x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f))
    }

    func stop() async {}
}
