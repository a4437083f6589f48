import FPCore

/// `fprint show`'s default view of the samples: one row per transmitter
/// (count, median/min/max RSSI, first and last heard), most heard first.
/// A 20 s measurement holds thousands of BLE reports; `--samples` prints them.
enum RenderSummary {
    /// One transmitter's RSSI readings and when it was heard.
    struct Heard {
        var rssi: [Int] = []
        var first = Int.max
        var last = Int.min
        var count = 0

        mutating func add(time: Int, rssi value: Int?) {
            count += 1
            first = min(first, time)
            last = max(last, time)
            if let value { rssi.append(value) }
        }

        /// MEDIAN, MIN, MAX, FIRST, LAST cells.
        var cells: [String] {
            let sorted = rssi.sorted()
            guard let low = sorted.first, let high = sorted.last else { return ["n/a", "", "", String(first), String(last)] }
            return [Self.median(sorted), String(low), String(high), String(first), String(last)]
        }

        static func median(_ sorted: [Int]) -> String {
            let mid = sorted.count / 2
            guard sorted.count % 2 == 0 else { return String(sorted[mid]) }
            let twice = sorted[mid - 1] + sorted[mid]
            guard twice % 2 != 0 else { return String(twice / 2) }
            return (twice < 0 ? "-" : "") + "\(abs(twice) / 2).5"  // halves are exact
        }
    }

    static let statsHeader = ["N", "MEDIAN", "MIN", "MAX", "FIRST", "LAST"]

    /// Rows keyed by `key`, described by `describe` (from the first sample), most heard first.
    static func rows<Sample>(_ samples: [Sample], key: (Sample) -> String, time: (Sample) -> Int, rssi: (Sample) -> Int?,
                             describe: (Sample) -> [String]) -> [[String]] {
        var heard: [String: Heard] = [:]
        var described: [String: [String]] = [:]
        for sample in samples {
            let k = key(sample)
            heard[k, default: Heard()].add(time: time(sample), rssi: rssi(sample))
            if described[k] == nil { described[k] = describe(sample) }
        }
        return heard.sorted { ($1.value.count, $0.key) < ($0.value.count, $1.key) }.map { k, h in
            (described[k] ?? []) + [String(h.count)] + h.cells
        }
    }

    static func ble(_ scans: [BLEScan]) -> [String] {
        let rows = rows(scans, key: \.address, time: \.time, rssi: \.rssi) { b in
            [b.address, b.addressType ?? "", Render.beaconText(b.beacon) ?? b.name ?? ""]
        }
        // The label goes last: it is the one long, free-text column.
        return Terminal.table(["ADDRESS", "TYPE"] + statsHeader + ["BEACON / NAME"],
                              rows.map { Array($0[0...1]) + Array($0[3...]) + [$0[2]] },
                              rightAligned: Set(2...7))
    }

    static func wifi(_ scans: [WiFiScan]) -> [String] {
        let rows = rows(scans, key: \.mac, time: \.time, rssi: { $0.rssi }) { w in
            [w.mac, w.frequency.map(String.init) ?? "", w.channel.map(String.init) ?? "", w.ssid]
        }
        return Terminal.table(["BSSID", "FREQ", "CH"] + statsHeader + ["SSID"],
                              rows.map { Array($0[0...2]) + Array($0[4...]) + [$0[3]] },
                              rightAligned: Set(1...8))
    }

    static func cellular(_ scans: [CellScan]) -> [String] {
        let rows = rows(scans, key: { c in
            [c.type ?? "", c.mcc ?? "", c.mnc ?? "", c.cid.map(String.init) ?? "", c.lac.map(String.init) ?? "",
             c.psc.map(String.init) ?? ""].joined(separator: "/")
        }, time: \.time, rssi: \.rssi) { c in
            [c.type ?? "", c.mcc.map { "\($0)-\(c.mnc ?? "?")" } ?? "", c.cid.map(String.init) ?? "",
             c.lac.map(String.init) ?? "", c.serving == true ? "serving" : ""]
        }
        return Terminal.table(["TYPE", "PLMN", "CID", "LAC", ""] + statsHeader, rows, rightAligned: Set([2, 3] + Array(5...10)))
    }
}
