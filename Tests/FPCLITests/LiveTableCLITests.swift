import FPTestSupport
import Foundation
import FPCore
import Testing
@testable import FPCLI

/// The table of transmitters heard, live above the progress line of
/// `measure` and `walk` on a real terminal (a pseudo-terminal of the width
/// given): what it shows comes from the radios (simulated here), it fits,
/// it is redrawn at most 4 times a second, and it is gone at the end and at
/// Ctrl-C; with --quiet or piped output there is none.
@Suite struct LiveTableCLITests {
    static let measure = ["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--duration", "5"]
    /// The table's first line (each redraw writes it once).
    static let title = "strongest of "

    @Test(arguments: [80, 50])
    func aMeasurementShowsWhatItHearsWithinTheWidth(columns: Int) async throws {
        let fp = try FprintRunner()
        let started = ContinuousClock.now
        let term = try fp.onTerminal(Self.measure, columns: UInt16(columns))
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        let seconds = Self.seconds(ContinuousClock.now - started)

        // Its rows are transmitters the stored document heard, with a level and a count.
        let heard = try await Self.storedAddresses(fp)
        let rows = Self.tableRows(term.transcript)
        #expect(!rows.isEmpty, "\(term.transcript)")
        for row in rows {
            let fields = row.split(separator: " ").map(String.init)
            #expect(fields.first == "BLE" || fields.first == "Wi-Fi", "\(row)")
            #expect(fields.contains { heard.contains($0) }, "no address of the document in \(row)")
            #expect(row.contains(" dBm") && row.hasSuffix("×"), "\(row)")
        }
        #expect(rows.contains { $0.hasPrefix("BLE") } && rows.contains { $0.hasPrefix("Wi-Fi") }, "\(rows)")

        // No row of the live display (table, progress line) reaches the last column.
        // (Messages such as the seed's wrap as they always did.)
        let screen = ScreenModel(width: columns, output: term.transcript)
        #expect(!screen.overflows.contains(where: Self.isLive), "\(screen.overflows)")
        let live = Self.plainLines(term.transcript).filter(Self.isLive)
        #expect(live.count > 10, "\(live)")
        for line in live { #expect(line.count < columns, "\(line.count) columns: \(line)") }

        // Redrawn, at most 4 times a second of the run.
        let redraws = term.transcript.components(separatedBy: Self.title).count - 1
        #expect(redraws >= 2, "\(term.transcript)")
        #expect(Double(redraws) <= 4 * seconds + 1, "\(redraws) redraws in \(seconds) s")

        // Gone at the end: the screen keeps the stored line, no table row.
        #expect(!screen.text.contains { $0.contains(Self.title) }, "\(screen.text)")
        #expect(!screen.text.contains { $0.hasPrefix("BLE ") || $0.hasPrefix("Wi-Fi ") }, "\(screen.text)")
        #expect(screen.text.contains { $0.hasPrefix("stored ") }, "\(screen.text)")
    }

    @Test func aWalkShowsItOnANarrowTerminal() async throws {
        let fp = try FprintRunner()
        let config = try fp.configWithScenarios("""
            {"scenarios": [{"scenarioID": "short", "name": "short", "mapID": "J1NP", "points": [{"X": 100, "Y": 100}, {"X": 300, "Y": 100}]}]}
            """)
        let term = try fp.onTerminal(["walk", "--scenario", "short", "--simulate", "--ready", "0"] + config, columns: 50)
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        #expect(!Self.tableRows(term.transcript).isEmpty, "\(term.transcript)")
        let screen = ScreenModel(width: 50, output: term.transcript)
        #expect(!screen.overflows.contains(where: Self.isLive), "\(screen.overflows)")
        for line in Self.plainLines(term.transcript).filter(Self.isLive) { #expect(line.count < 50, "\(line.count) columns: \(line)") }
        #expect(!screen.text.contains { $0.contains(Self.title) }, "\(screen.text)")
    }

    @Test func quietShowsNoTable() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(Self.measure + ["--quiet"])
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        #expect(!term.transcript.contains(Self.title), "\(term.transcript)")
        // The progress line stays.
        #expect(term.rows.contains { $0.hasPrefix("measure J1NP (363, 701)") }, "\(term.transcript)")
    }

    @Test func pipedOutputHasNoTable() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(Self.measure)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains(Self.title) && !r.stderr.contains("\u{1B}"), "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}") && r.lines.count == 1, "\(r.stdout)")
    }

    @Test func ctrlCTakesTheTableAway() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--duration", "60"])
        // Once the table has been drawn twice (a redraw over the first).
        term.when(Self.title) { term in term.when("A\u{1B}[2Kstrongest of ") { try? $0.pressCtrlC() } }
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(term.transcript.contains("interrupted: nothing stored"), "\(term.transcript)")
        #expect(try fp.storedCount() == 0)
        let screen = ScreenModel(width: 80, output: term.transcript)
        #expect(!screen.text.contains { $0.contains(Self.title) }, "\(screen.text)")
        #expect(!screen.text.contains { $0.hasPrefix("BLE ") || $0.hasPrefix("Wi-Fi ") }, "\(screen.text)")
        // As before the table: the last progress line stays, the message below it.
        let last = try #require(screen.text.lastIndex { $0.contains("interrupted: nothing stored") })
        #expect(last > 0 && screen.text[last - 1].contains("measure J1NP (363, 701)"), "\(screen.text)")
    }

    /// Names from the air in any width: every row fits, the strongest first,
    /// a wide or control character never makes a row wider than it counts.
    @Test(arguments: [80, 50, 30])
    func rowsFitWhateverTheNames(columns: Int) {
        let heard = HeardTransmitters()
        heard.add([.ble(BLEScan(address: "C3:11:22:33:44:55", rssi: -70, time: 0, name: "Kitchen beacon with a very long name indeed")),
                   .ble(BLEScan(address: "C3:11:22:33:44:55", rssi: -61, time: 100)),
                   .ble(BLEScan(address: "D0:00:00:00:00:01", rssi: nil, time: 100, name: "会議室\u{7}")),
                   .wifi(WiFiScan(mac: "6A:DD:0A:73:09:C0", ssid: "eduroam", rssi: -48, time: 0))])
        let lines = HeardTable.lines(heard, width: columns, height: 24)
        #expect(lines.count == 4, "\(lines)")
        for line in lines { #expect(line.count < columns, "\(line.count) columns: \(line)") }
        // BLE first, each radio by its latest level; the name kept from the report that had it.
        #expect(lines[1].hasPrefix("BLE") && lines[1].hasSuffix("-61 dBm  2×"), "\(lines)")
        #expect(lines[2].hasPrefix("BLE") && lines[2].contains("???") && !lines[2].contains("\u{7}"), "\(lines)")
        #expect(lines[3].hasPrefix("Wi-Fi") && lines[3].hasSuffix("-48 dBm  1×"), "\(lines)")
        if columns >= 50 { #expect(lines[1].contains("C3:11:22:33:44:55") && lines[1].contains("Kitchen"), "\(lines)") }
        // A short terminal gets fewer rows, none when there is no room.
        #expect(HeardTable.lines(heard, width: columns, height: 8).count == 3)
        #expect(HeardTable.lines(heard, width: columns, height: 6).isEmpty)
    }

    /// A line of the live display: the table's title and rows, the progress line.
    static func isLive(_ line: String) -> Bool {
        ["BLE ", "Wi-Fi ", title, "measure J1NP", "walk  "].contains { line.hasPrefix($0) }
    }

    /// The table's transmitter rows as written, escapes removed.
    static func tableRows(_ transcript: String) -> [String] {
        plainLines(transcript).filter { $0.hasPrefix("BLE ") || $0.hasPrefix("Wi-Fi ") }
    }

    /// Every piece of text between line starts (\r or \n), escapes removed.
    static func plainLines(_ transcript: String) -> [String] {
        strippingEscapes(transcript).split(whereSeparator: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }).map(String.init)
    }

    /// BLE addresses and BSSIDs of the one stored document.
    static func storedAddresses(_ fp: FprintRunner) async throws -> Set<String> {
        let list = try await fp.run(["list", "--json"])
        let first = try #require(list.lines.first)
        let id = try #require(try fp.json(first)["id"] as? String)
        let doc = try fp.json(try await fp.run(["show", id, "--json"]).stdout)
        let ble = (doc["bleScans"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
        let wifi = (doc["wifiScans"] as? [[String: Any]] ?? []).compactMap { $0["mac"] as? String }
        return Set(ble + wifi)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
