import FPBLE
import FPCore
import FPHCI
import FPSession
import FPTransport
import Foundation
import Glibc
import SystemPackage
import Testing

/// Live HCI measurements end-to-end through the engine, the adapter injected:
/// the document's BLE status tells what happened, as a replayed one does.
@Suite(.serialized) struct LiveStatusTests {
    struct FixedDevice: DeviceInfoProvider {
        func snapshot() -> DeviceSnapshot {
            DeviceSnapshot(deviceId: "dev-1", hostname: "host", hardware: "Test Box", osName: "Linux", osId: "Test 1",
                           batteryLevel: nil, batteryState: "unknown", status: ProviderStatus(status: .ok, source: "test"))
        }
    }

    static func measure(_ adapter: FakeAdapter, rawHCI: RawHCILog? = nil) async throws -> MeasurementDocument {
        let provider = HCIScanProvider(device: 0, exclusive: false, parameters: .init(active: true), socket: adapter,
                                       retryPauseMs: 20)
        var setup = CaptureSetup(providers: [provider], device: FixedDevice(), clock: MonotonicClock(), radios: [.ble])
        setup.rawHCI = rawHCI
        return try await StaticMeasurement(level: "J1NP", point: MapPoint(x: 1, y: 2), durationMs: 700).run(setup)
    }

    @Test func anAdapterRemovedMidMeasurementEndsUnavailableAndKeepsWhatCameBefore() async throws {
        // Given an adapter that delivers three reports and a malformed event, then goes away
        let adapter = FakeAdapter(live: [
            .frame(advertisingReport(last: 1)), .frame(advertisingReport(last: 2)), .frame(malformedReport),
            .frame(advertisingReport(last: 3)),
            .fail(.system("read hci0", Errno(rawValue: EPIPE))),  // the kernel's answer once hci0 is unregistered
            .frame(advertisingReport(last: 4)),  // never read: the source has ended
        ])
        // When a measurement runs over it
        let doc = try await Self.measure(adapter)
        // Then the reports heard before stay in the document
        #expect(doc.bleScans.map(\.address).sorted() == ["AA:BB:CC:DD:EE:01", "AA:BB:CC:DD:EE:02", "AA:BB:CC:DD:EE:03"])
        // and the status says the source ended, why, and what it had counted
        let ble = try #require(doc.providers["ble"])
        #expect(ble.status == .unavailable)
        let reason = try #require(ble.reason)
        #expect(reason.hasPrefix("hci0 went away "))
        #expect(reason.contains("read hci0: Broken pipe"))
        #expect(reason.hasSuffix("the 3 reports heard before are kept"))
        #expect(ble.samples == 3)
        #expect(ble.malformed == 1)
        #expect(adapter.isGone)
    }

    @Test func aLiveDocumentCarriesTheMalformedCountAsAReplayDoes() async throws {
        let adapter = FakeAdapter(live: [.frame(advertisingReport(last: 1)), .frame(malformedReport),
                                         .frame(malformedReport), .frame(advertisingReport(last: 2))])
        let doc = try await Self.measure(adapter)
        let ble = try #require(doc.providers["ble"])
        #expect(ble.status == .ok)
        #expect(ble.reason == nil)
        #expect(ble.malformed == 2)
        #expect(ble.samples == 2)
    }

    @Test func aLiveDocumentCountsReportsWhoseAdvertisingDataDidNotDecode() async throws {
        // AD "05 09 41": a structure that overruns its report's data
        let badAD = [UInt8(0x04)] + hex("3e0f0201000001020304050603050941b0")
        let adapter = FakeAdapter(live: [.frame(advertisingReport(last: 1)), .frame(badAD), .frame(badAD)])
        let doc = try await Self.measure(adapter)
        let ble = try #require(doc.providers["ble"])
        #expect(ble.adErrors == 2)
        #expect(doc.bleScans.filter { $0.data == "050941" }.count == 2)  // kept, data raw
    }

    @Test func aReportCaughtByTheCommandEngineIsDecodedAndLoggedAsReceived() async throws {
        // A report that arrives before the scan enable's Command Complete reaches
        // the command engine, which passes the parsed event on to the reader.
        let early = advertisingReport(last: 0x0E)
        let adapter = FakeAdapter(early: [early], live: [.frame(advertisingReport(last: 1))])
        let log = RawHCILog()
        let doc = try await Self.measure(adapter, rawHCI: log)
        #expect(doc.bleScans.map(\.address).sorted() == ["AA:BB:CC:DD:EE:01", "AA:BB:CC:DD:EE:0E"])
        let received = log.packets(fromMs: 0, toMs: 700, inclusiveEnd: true).filter(\.received).map(\.h4)
        #expect(received.first == early)  // byte for byte as the controller sent it
        #expect(received.contains(advertisingReport(last: 1)))
    }
}
