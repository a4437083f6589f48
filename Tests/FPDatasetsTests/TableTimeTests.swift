import FPCore
import FPDatasets
import Foundation
import Testing

@Suite struct TableTimeTests {
    let madrid = TableTime(timeZone: TimeZone(identifier: "Europe/Madrid")!)

    func iso(_ time: TableTime, _ text: String) -> String? {
        guard case .success(let ms) = time.milliseconds(text) else { return nil }
        return ISOTime.string(millisecondsSince1970: ms)
    }

    @Test func compactLocalTimesInSummerAndWinter() {
        // The UJI tms files: local time, CEST (+2) in June, CET (+1) in November.
        #expect(iso(madrid, "20160602155217232") == "2016-06-02T13:52:17.232Z")
        #expect(iso(madrid, "20161107193728424") == "2016-11-07T18:37:28.424Z")
        #expect(iso(madrid, "20161107193728") == "2016-11-07T18:37:28.000Z")
        #expect(iso(TableTime(timeZone: TimeZone(identifier: "UTC")!), "20000229235959999") == "2000-02-29T23:59:59.999Z")
    }

    @Test func unixTimesByTheirSize() {
        let t = TableTime()
        #expect(iso(t, "1371713733") == "2013-06-20T07:35:33.000Z")  // UJIIndoorLoc: seconds
        #expect(iso(t, "1371713733123") == "2013-06-20T07:35:33.123Z")  // ms, as the issue says tms would be
        #expect(iso(t, "1.627997452227e+18") == "2021-08-03T13:30:52.227Z")  // ble-flat-robot: pandas ns
        #expect(iso(TableTime(unit: .s), "20160602155217232") == nil)  // 2·10¹⁶ s is beyond the year 30,000
        #expect(iso(TableTime(unit: .ms), "1371713733") == "1970-01-16T21:01:53.733Z")
    }

    @Test func badTimesSayWhy() {
        #expect(TableTime().milliseconds("yesterday") == .failure(.init("not a time (a number or yyyyMMddHHmmss[SSS])")))
        // 17 digits that are no date (month 13) are no compact time; auto reads them as a number (µs).
        #expect(TableTime(unit: .compact).milliseconds("20161332193728424") == .failure(.init("not a time yyyyMMddHHmmss[SSS]")))
        #expect(iso(TableTime(), "20161332193728424")?.hasPrefix("2608-") == true)
    }
}
