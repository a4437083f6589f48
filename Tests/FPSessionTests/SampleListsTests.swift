import FPCore
import Foundation
import Testing
@testable import FPSession

/// The engine sorts its ticks' batches into per-radio lists by moving each
/// sample (`SampleLists(taking:within:)`): the lists must be what joining
/// the batches, dropping the samples timed outside the measurement,
/// sorting by time and splitting by radio gave, and a walk's windows must
/// take the samples of their own times.
@Suite struct SampleListsTests {
    static func ble(_ time: Int, _ name: String = "x") -> Sample {
        var s = BLEScan(address: "AA:BB:CC:DD:EE:\(String(format: "%02X", abs(time) % 256))", rssi: -50, time: time)
        s.name = "a name longer than fifteen bytes, \(name)"  // a heap string: moved, not copied
        return .ble(s)
    }

    static func wifi(_ time: Int) -> Sample {
        .wifi(WiFiScan(mac: "02:11:22:33:00:\(String(format: "%02X", time))", ssid: "eduroam", rssi: -40, time: time))
    }

    static func fix(_ time: Int) -> Sample {
        .geo(GeoFix(lat: 60.0, long: 24.0, time: time))
    }

    /// What the engine did before: one array, filtered, sorted, split.
    static func reference(_ batches: [[Sample]], within times: ClosedRange<Int>) -> (ble: [BLEScan], wifi: [WiFiScan], fixes: [GeoFix]) {
        let all = batches.flatMap { $0 }.filter { times.contains($0.time) }.sorted { $0.time < $1.time }
        return (all.compactMap { if case .ble(let s) = $0 { s } else { nil } },
                all.compactMap { if case .wifi(let s) = $0 { s } else { nil } },
                all.compactMap { if case .geo(let s) = $0 { s } else { nil } })
    }

    static func check(_ batches: [[Sample]], within times: ClosedRange<Int>) -> SampleLists {
        var taken = batches
        let lists = SampleLists(taking: &taken, within: times)
        let expected = reference(batches, within: times)
        #expect(lists.ble == expected.ble)
        #expect(lists.wifi == expected.wifi)
        #expect(lists.fixes == expected.fixes)
        #expect(lists.cells.isEmpty)
        #expect(taken.isEmpty)
        return lists
    }

    @Test func inOrderBatchesKeepTheirOrder() {
        let lists = Self.check([[Self.ble(0), Self.ble(5)], [], [Self.wifi(5), Self.ble(9), Self.fix(9)], [Self.ble(10)]], within: 0...10)
        #expect(lists.ble.map(\.time) == [0, 5, 9, 10])
    }

    @Test func samplesOutsideTheMeasurementAreLeftOutAndDisorderIsSorted() {
        let lists = Self.check([[Self.wifi(-3), Self.ble(2), Self.wifi(8)], [Self.ble(1, "late"), Self.ble(11), Self.wifi(4)],
                                [Self.ble(7), Self.wifi(10), Self.fix(3), Self.fix(1)]], within: 0...10)
        #expect(lists.ble.map(\.time) == [1, 2, 7])
        #expect(lists.wifi.map(\.time) == [4, 8, 10])
        #expect(lists.fixes.map(\.time) == [1, 3])
    }

    @Test func everySampleOutsideLeavesNothing() {
        let lists = Self.check([[Self.ble(-1)], [Self.ble(20), Self.wifi(30)]], within: 0...10)
        #expect(lists.ble.isEmpty && lists.wifi.isEmpty)
    }

    @Test func aLongReplayIsTakenWhole() {
        let batches = (0..<300).map { tick in (0..<50).map { Self.ble(tick * 100 + $0 * 2) } }
        let lists = Self.check(batches, within: 0...29_000)
        #expect(lists.ble.count == 14_501)
    }

    @Test func aWindowTakesTheSamplesOfItsTimesAndShiftMakesThemRelative() {
        var taken = [[Self.ble(0), Self.wifi(1999), Self.ble(2000), Self.ble(3999), Self.fix(4000), Self.ble(4001)]]
        let lists = SampleLists(taking: &taken, within: 0...5000)
        var second = lists.window(2000..<4000)
        #expect(second.ble.map(\.time) == [2000, 3999] && second.wifi.isEmpty && second.fixes.isEmpty)
        second.shift(by: 2000)
        #expect(second.ble.map(\.time) == [0, 1999])
        #expect(lists.window(0..<2000).wifi.map(\.time) == [1999])
        #expect(lists.window(4000..<4001).fixes.map(\.time) == [4000])
        #expect(lists.window(5000..<9000).ble.isEmpty)
    }

    /// BLE reports listed apart (a replay's, `SampleSink.emitBLE`) join the
    /// batches' as if they had been samples among them.
    static func checkListed(_ batches: [[Sample]], listed: [Sample], within times: ClosedRange<Int>) -> SampleLists {
        var taken = batches
        let scans = listed.map { if case .ble(let s) = $0 { s } else { fatalError("listed BLE only") } }
        let lists = SampleLists(taking: &taken, listed: scans, within: times)
        let expected = reference(batches + [listed], within: times)
        #expect(lists.ble == expected.ble)
        #expect(lists.wifi == expected.wifi)
        #expect(lists.fixes == expected.fixes)
        return lists
    }

    @Test func aListInOrderBesideBatchesWithoutBLEIsTheBLEList() {
        let listed = (0..<2000).map { Self.ble($0 * 3) }
        let lists = Self.checkListed([[Self.wifi(5), Self.fix(7)], [Self.wifi(40)]], listed: listed, within: 0...6000)
        #expect(lists.ble.count == 2000 && lists.wifi.map(\.time) == [5, 40])
    }

    @Test func aListIsFilteredToTheMeasurementAndMergedWithTheBatchesBLE() {
        let listed = [Self.ble(-2), Self.ble(1), Self.ble(4), Self.ble(12)]
        let lists = Self.checkListed([[Self.ble(3, "batch"), Self.wifi(2)], [Self.ble(0, "batch")]], listed: listed, within: 0...10)
        #expect(lists.ble.map(\.time) == [0, 1, 3, 4])
        let alone = Self.checkListed([], listed: listed, within: 0...10)
        #expect(alone.ble.map(\.time) == [1, 4])
    }

    @Test func aListOutOfOrderIsSorted() {
        let lists = Self.checkListed([], listed: [Self.ble(5), Self.ble(2), Self.ble(9)], within: 0...10)
        #expect(lists.ble.map(\.time) == [2, 5, 9])
    }
}
