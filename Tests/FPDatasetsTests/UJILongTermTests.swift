import FPDatasets
import FPTestSupport
import Foundation
import Testing

@Suite struct UJILongTermTests {
    static let madrid = TableTime(timeZone: TimeZone(identifier: "Europe/Madrid")!)

    /// A copy of the hand-made layout to break.
    static func copyOfMini() throws -> URL {
        let folder = try makeTemporaryFolder("uji-mini").appendingPathComponent("uji")
        try FileManager.default.copyItem(atPath: fixture("uji-mini"), toPath: folder.path)
        return folder
    }

    @Test func campaignsInThePapersOrder() throws {
        let root = try Self.copyOfMini()
        // Campaigns of another month and a second training campaign: numeric month order, trn before tst.
        let db = root.appendingPathComponent("db")
        try FileManager.default.copyItem(at: db.appendingPathComponent("02"), to: db.appendingPathComponent("10"))
        for kind in ["rss", "crd", "tms", "ids"] {
            try FileManager.default.copyItem(at: db.appendingPathComponent("10/tst01\(kind).csv"),
                                             to: db.appendingPathComponent("10/trn02\(kind).csv"))
        }
        let found = try UJILongTerm.campaigns(root: root.path)
        #expect(found.map { "\($0.month)/\($0.name)" } == ["01/trn01", "01/tst01", "02/trn01", "02/tst01", "10/trn01", "10/trn02", "10/tst01"])
        #expect(found[0].file("rss").name == "db/01/trn01rss.csv")
        // The db folder itself works too.
        #expect(try UJILongTerm.campaigns(root: db.path).first?.file("crd").name == "01/trn01crd.csv")
    }

    @Test func aCampaignsRowsWithTagsTimeAndFloor() throws {
        let campaign = try UJILongTerm.campaigns(root: fixture("uji-mini"))[1]
        let table = try UJILongTerm.read(campaign, time: Self.madrid)
        #expect(table.file == "db/01/tst01rss.csv")
        #expect(table.transmitters == ["WAP001", "WAP002", "WAP003", "WAP004", "WAP005"])
        #expect(table.rows.count == 4)
        let second = table.rows[1]
        #expect(second.readings == [.init(transmitter: 0, rssi: -72), .init(transmitter: 1, rssi: -52), .init(transmitter: 2, rssi: -78)])
        #expect(second.x == 5 && second.y == 1 && second.floor == 3)
        #expect(second.timeText == "20160602161016233" && second.timeMs == 1_464_876_616_233)
        #expect(second.tags == [.init("month", "01"), .init("campaign", "tst01"), .init("set", "test"), .init("point", "101200201")])
    }

    @Test func filesOutOfStepAreNamed() throws {
        let root = try Self.copyOfMini()
        let crd = root.appendingPathComponent("db/01/trn01crd.csv")
        try Data("1.0,1.0,3\n1.0,1.0,3\n".utf8).write(to: crd)
        let campaign = try UJILongTerm.campaigns(root: root.path)[0]
        #expect(datasetError { _ = try UJILongTerm.read(campaign, time: Self.madrid) }?.description
            == "db/01/trn01crd.csv: line 2: 2 rows, db/01/trn01rss.csv has 6")
        try FileManager.default.removeItem(at: crd)
        #expect(datasetError { _ = try UJILongTerm.campaigns(root: root.path) }?.description
            == "db/01/trn01rss.csv: db/01/trn01crd.csv is missing beside it")
    }

    @Test func aBadCellIsNamedByFileLineAndColumn() throws {
        let root = try Self.copyOfMini()
        try Data("-50,-60,100,100,100\n-50,-60,1OO,100,100\n".utf8).write(to: root.appendingPathComponent("db/02/tst01rss.csv"))
        let campaign = try UJILongTerm.campaigns(root: root.path)[3]
        #expect(datasetError { _ = try UJILongTerm.read(campaign, time: Self.madrid) }?.description
            == "db/02/tst01rss.csv: line 2, column 3: RSSI '1OO' is not a number")
        try Data("-50,-60,100\n".utf8).write(to: root.appendingPathComponent("db/02/tst01rss.csv"))
        try Data("1,1,3\n".utf8).write(to: root.appendingPathComponent("db/02/tst01crd.csv"))
        try Data("2016-06-02\n".utf8).write(to: root.appendingPathComponent("db/02/tst01tms.csv"))
        try Data("1\n".utf8).write(to: root.appendingPathComponent("db/02/tst01ids.csv"))
        #expect(datasetError { _ = try UJILongTerm.read(campaign, time: Self.madrid) }?.description
            == "db/02/tst01tms.csv: line 1, column 1: time '2016-06-02': not a time (a number or yyyyMMddHHmmss[SSS])")
    }

    @Test func whatLooksLikeTheLayout() {
        #expect(UJILongTerm.looksLike(fixture("uji-mini")))
        #expect(UJILongTerm.looksLike(fixture("uji-mini/db")))
        #expect(!UJILongTerm.looksLike(fixture("")))  // other fixtures, no db/ or month folders
        #expect(!UJILongTerm.looksLike("/nonexistent-folder"))
    }

    @Test func noCampaigns() {
        #expect(datasetError { _ = try UJILongTerm.campaigns(root: "/nonexistent-folder") }?.description == "/nonexistent-folder: no such folder")
        #expect(datasetError { _ = try UJILongTerm.campaigns(root: fixture("")) }?.description.hasSuffix(
            "no UJI long-term campaigns here (expected db/MM/trnCCrss.csv and its crd, tms, ids files)") == true)
    }
}
