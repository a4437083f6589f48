import FPCore
import FPSession
import Foundation

/// The transmitters heard so far in a measurement or walk, for the live
/// table shown above the progress line on a terminal (what the old iOS app
/// showed while measuring): each with its latest RSSI and how often it was heard.
final class HeardTransmitters: @unchecked Sendable {
    struct Heard: Equatable {
        var radio: Radio
        /// BLE: the advertised name; Wi-Fi: the SSID ("" when none).
        var name: String
        /// BLE address or BSSID.
        var address: String
        /// dBm of the latest report that had one.
        var rssi: Int?
        var count: Int
    }

    /// A tally for the live table when one is shown: on a terminal (stdout
    /// and stderr both: piped output stays as it was) and without `--quiet`;
    /// nil otherwise. Its samples come from `setup`'s engine from then on.
    static func live(quiet: Bool, setup: inout CaptureSetup) -> HeardTransmitters? {
        guard !quiet, Terminal.stderrIsTTY, Terminal.stdoutIsTTY else { return nil }
        let heard = HeardTransmitters()
        setup.onSamples = { heard.add($0) }
        return heard
    }

    private let lock = NSLock()
    private var byKey: [String: Heard] = [:]  // guarded by `lock`

    /// Tallies one tick's samples (cells and fixes are no transmitters of a fingerprint here).
    func add(_ samples: [Sample]) {
        lock.withLock {
            for sample in samples {
                switch sample {
                case .ble(let s): note(.ble, address: s.address, name: s.name, rssi: s.rssi)
                case .wifi(let s): note(.wifi, address: s.mac, name: s.ssid, rssi: s.rssi)
                case .cell, .geo: continue
                }
            }
        }
    }

    private func note(_ radio: Radio, address: String, name: String?, rssi: Int?) {
        let key = radio.rawValue + " " + address
        var heard = byKey[key] ?? Heard(radio: radio, name: "", address: address, rssi: nil, count: 0)
        heard.count += 1
        if let rssi { heard.rssi = rssi }
        // A BLE name comes in some reports only (the scan response): the last one heard stays.
        if let name, !name.isEmpty { heard.name = name }
        byKey[key] = heard
    }

    /// How many transmitters were heard.
    var count: Int { lock.withLock { byKey.count } }

    /// The `limit` strongest by their latest RSSI (those without one last;
    /// ties by how often heard, then by address: the order stays put between
    /// refreshes), BLE first, then Wi-Fi. Each radio heard gets its share of
    /// the rows, and what one leaves the other takes: Wi-Fi access points are
    /// often louder than every beacon, and would take all the rows.
    func strongest(_ limit: Int) -> [Heard] {
        let all = lock.withLock { Array(byKey.values) }
        func ranked(_ radio: Radio) -> [Heard] {
            all.filter { $0.radio == radio }.sorted { a, b in
                if (a.rssi ?? Int.min) != (b.rssi ?? Int.min) { return (a.rssi ?? Int.min) > (b.rssi ?? Int.min) }
                if a.count != b.count { return a.count > b.count }
                return a.address < b.address
            }
        }
        let ble = ranked(.ble), wifi = ranked(.wifi)
        let bleRows = min(ble.count, max(limit - min(wifi.count, limit / 2), (limit + 1) / 2))
        let wifiRows = min(wifi.count, limit - bleRows)
        return Array(ble.prefix(bleRows)) + Array(wifi.prefix(wifiRows))
    }
}

/// The live table's lines, fitted to a terminal `width` columns wide.
enum HeardTable {
    /// At most this many transmitters: enough to see what is near, few enough to read at a glance.
    static let maxRows = 8

    /// Rows for a terminal `height` rows high: the table, its title and the
    /// progress line must fit with room for the lines printed before them.
    static func rowLimit(height: Int) -> Int { max(0, min(maxRows, height - 6)) }

    /// The title and one line per transmitter; none before anything is heard.
    static func lines(_ heard: HeardTransmitters, width: Int, height: Int) -> [String] {
        let limit = rowLimit(height: height)
        let total = heard.count
        guard limit > 0, total > 0 else { return [] }
        let shown = heard.strongest(limit)
        let title = "strongest of \(Terminal.counted(total, "transmitter")) heard:"
        return [StatusLine.cut(title, to: width)] + rows(shown, width: width)
    }

    /// `BLE   name   address   -61 dBm   14×`, in columns as wide as their
    /// widest cell; the name column takes what the width leaves, and on a
    /// terminal too narrow for both name and address one column holds the name (or the address).
    static func rows(_ shown: [HeardTransmitters.Heard], width: Int) -> [String] {
        let room = max(width - 1, 1)  // the last column would wrap on some terminals
        let kinds = shown.map { $0.radio == .ble ? "BLE" : "Wi-Fi" }
        let levels = shown.map { $0.rssi.map { "\($0) dBm" } ?? "–" }
        let counts = shown.map { "\($0.count)×" }
        let names = shown.map { narrow($0.name) }
        let addresses = shown.map { narrow($0.address) }
        let kindW = kinds.map(\.count).max() ?? 0, levelW = levels.map(\.count).max() ?? 0
        let countW = counts.map(\.count).max() ?? 0, addressW = addresses.map(\.count).max() ?? 0
        let nameMax = names.map(\.count).max() ?? 0
        let fixed = kindW + 2 + levelW + 2 + countW
        let nameRoom = room - fixed - 2 - addressW - 2
        // Name and address when the name gets 6 columns (or all it needs); else one column:
        // the name where there is one, the address where not.
        let labels: [[String]]
        if nameMax == 0 {
            labels = addresses.map { [pad(cut($0, room - fixed - 2), min(addressW, room - fixed - 2))] }
        } else if nameRoom >= min(nameMax, 6) {
            let nameW = min(nameMax, nameRoom)
            labels = shown.indices.map { [pad(cut(names[$0], nameW), nameW), pad(addresses[$0], addressW)] }
        } else {
            let one = shown.indices.map { names[$0].isEmpty ? addresses[$0] : names[$0] }
            let oneW = min(one.map(\.count).max() ?? 0, max(1, room - fixed - 2))
            labels = one.map { [pad(cut($0, oneW), oneW)] }
        }
        return shown.indices.map { i in
            let cells = [pad(kinds[i], kindW)] + labels[i]
                + [String(repeating: " ", count: levelW - levels[i].count) + levels[i],
                   String(repeating: " ", count: countW - counts[i].count) + counts[i]]
            var line = cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            return StatusLine.cut(line, to: width)
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func cut(_ text: String, _ width: Int) -> String {
        guard text.count > width else { return text }
        return width <= 1 ? String(text.prefix(width)) : String(text.prefix(width - 1)) + "…"
    }

    /// Names come from the air: control characters escaped, and characters
    /// that may take two columns (CJK, emoji; from U+1100 on) shown as `?`,
    /// so one character is one column and a row never wraps.
    static func narrow(_ text: String) -> String {
        String(ControlText.escaped(text).map { c in c.unicodeScalars.allSatisfy { $0.value < 0x1100 } ? c : "?" })
    }
}
