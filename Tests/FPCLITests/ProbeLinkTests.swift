import FPCore
import FPProbe
import Testing
@testable import FPCLI

/// A probe run's `link` says how good the link was, not only which it was:
/// the Wi-Fi signal and frequency, or the serving cell; and `show` and the
/// CSV carry them.
@Suite struct ProbeLinkTests {
    @Test func wifiLinkKeepsSignalAndFrequency() {
        var link = ProbeInterface(name: "wlan0", type: "wifi", ssid: "eduroam", bssid: "02:00:00:00:01:00")
        (link.signalDBm, link.frequencyMHz) = (-61, 2412)
        let json = ProbeRunDocument.linkJSON(link)
        #expect(json["signalDbm"]?.intValue == -61 && json["frequencyMHz"]?.intValue == 2412 && json["ssid"]?.stringValue == "eduroam")
        #expect(json["cell"] == nil)
        let cells = ProbeLinkColumns.cells(["link": json])
        let header = ProbeLinkColumns.header.split(separator: ",").map(String.init)
        let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
        #expect(row["link_signal_dbm"] == "-61" && row["link_frequency_mhz"] == "2412" && row["link_kind"] == "wifi")
    }

    @Test func cellularLinkKeepsTheServingCell() throws {
        var link = ProbeInterface(name: "wwan0", type: "cellular", operator: "T-Mobile CZ")
        var cell = CellScan(rssi: nil, time: 0, type: "lte", cid: 26_703_422, lac: nil, mcc: "230", mnc: "01", serving: true)
        (cell.tac, cell.rsrp) = (4011, -95)
        link.cell = cell
        let json = ProbeRunDocument.linkJSON(link)
        #expect(json["cell"]?["cid"]?.intValue == 26_703_422 && json["cell"]?["tac"]?.intValue == 4011)
        #expect(json["operator"]?.stringValue == "T-Mobile CZ")
        let text = RenderProbes.cellText(try #require(json["cell"]))
        #expect(text == ", LTE cell 230-01 TAC 4011 CID 26703422, RSRP -95 dBm")
        // The CSV keeps the cell whole, as one quoted JSON field.
        let header = ProbeLinkColumns.header.split(separator: ",").map(String.init)
        let row = Dictionary(uniqueKeysWithValues: zip(header, ProbeLinkColumns.cells(["link": json])))
        #expect(row["link_cell"]?.hasPrefix("\"{") == true && row["link_cell"]?.contains("26703422") == true)
    }
}
