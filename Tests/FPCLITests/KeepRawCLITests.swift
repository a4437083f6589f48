import FPCore
import FPHCI
import FPStore
import Foundation
import Testing

/// `--keep-raw`: a document carries the HCI packets of its window, and that
/// capture is real evidence: replayed, it gives the same document's BLE.
@Suite struct KeepRawCLITests {
    @Test func aReplayedMeasurementCarriesItsOwnCaptureThatReplaysTheSame() async throws {
        let fp = try FprintRunner()
        let source = BLECLITests.capture("csacca__horizon-74-at-ble-adv")
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "20", "--fast",
                            "--ble-source", "btsnoop:" + source, "--keep-raw", "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let doc = try fp.json(try #require(m.lines.first))
        let scans = try #require(doc["bleScans"] as? [[String: Any]])
        #expect(scans.count == 412)
        let attachment = try #require((doc["_attachments"] as? [String: Any])?["raw.btsnoop"] as? [String: Any])
        #expect(attachment["content_type"] as? String == "application/x-btsnoop")
        #expect(attachment["stub"] as? Bool == true)

        let dir = fp.home.appendingPathComponent("evidence")
        #expect(try await fp.run(["export", "attachments", "--output", dir.path]).status == 0)
        let id = try #require(doc["_id"] as? String)
        let evidence = dir.appendingPathComponent(id).appendingPathComponent("raw.btsnoop")
        let bytes = [UInt8](try Data(contentsOf: evidence))
        #expect(bytes.count == attachment["length"] as? Int)
        // A valid H4 btsnoop file holding every packet of the source capture.
        let file = try BtsnoopFile(bytes: bytes)
        #expect(file.datalink == .h4)
        let original = try BtsnoopFile(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: source))))
        #expect(try file.records().count == original.records().count)

        let again = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "20", "--fast",
                                "--ble-source", "btsnoop:" + evidence.path, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let replayed = try fp.json(try #require(again.lines.first))
        let replayedScans = try #require(replayed["bleScans"] as? [[String: Any]])
        #expect(replayedScans.count == scans.count)
        for (a, b) in zip(scans, replayedScans) {
            #expect(a["address"] as? String == b["address"] as? String && a["rssi"] as? Int == b["rssi"] as? Int
                    && a["time"] as? Int == b["time"] as? Int)
        }
    }

    @Test func keepRawNeedsAControllerToRecord() async throws {
        let fp = try FprintRunner()
        for extra in [["--simulate"], ["--ble-source", "sim"], ["--no-ble", "--ble-source", "hci:hci0"]] {
            let r = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--keep-raw"] + extra)
            #expect(r.status == 64, "\(extra): \(r.stderr)")
            #expect(r.stderr.contains("--keep-raw keeps what the Bluetooth controller sent"), "\(r.stderr)")
        }
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)
    }
}
