import Foundation

/// The UJI long-term Wi-Fi fingerprinting database's layout (Mendoza-Silva
/// et al., Data 2018): `db/MM/{trn,tst}CC{rss,crd,tms,ids}.csv`, no headers;
/// row i of a campaign's four files is its fingerprint i. `rss`: one column
/// per access point (dBm, 100 = not heard), named here `WAP001`… by place
/// (the dataset hides the BSSIDs); `crd`: x, y (metres), floor; `tms`:
/// the time (`yyyyMMddHHmmssSSS`, local; Unix ms is read too); `ids`: the
/// sample's id (month, campaign, point and sample number).
package enum UJILongTerm {
    package struct Campaign: Sendable, Equatable {
        /// The month folder's name, e.g. `01`.
        package var month: String
        /// e.g. `trn01`, `tst03`.
        package var name: String
        package var isTraining: Bool { name.hasPrefix("trn") }
        /// Folder of the four files, and their names relative to the dataset root (for messages and provenance).
        package var folder: String
        package var relativeFolder: String

        package init(month: String, name: String, folder: String, relativeFolder: String) {
            (self.month, self.name, self.folder, self.relativeFolder) = (month, name, folder, relativeFolder)
        }

        package func file(_ kind: String) -> (path: String, name: String) {
            ("\(folder)/\(name)\(kind).csv", "\(relativeFolder)/\(name)\(kind).csv")
        }
    }

    package static let notHeard = 100.0

    /// Whether `root` looks like the layout (a `db/` folder, or month folders
    /// `01`…): what `fprint import` takes a folder for.
    package static func looksLike(_ root: String) -> Bool {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: root + "/db", isDirectory: &isDirectory), isDirectory.boolValue { return true }
        return ((try? fm.contentsOfDirectory(atPath: root)) ?? []).contains { name in
            !name.isEmpty && name.allSatisfy(\.isNumber) && fm.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
    }

    /// Every campaign under `root` (the dataset folder holding `db/`, or
    /// `db/` itself), months in numeric order, training campaigns before
    /// test campaigns, each in number order: the order the paper's Matlab
    /// code reads them in.
    package static func campaigns(root: String) throws(DatasetError) -> [Campaign] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DatasetError(file: root, "no such folder")
        }
        let hasDB = fm.fileExists(atPath: root + "/db", isDirectory: &isDirectory) && isDirectory.boolValue
        let db = hasDB ? root + "/db" : root
        let prefix = hasDB ? "db/" : ""
        let months = ((try? fm.contentsOfDirectory(atPath: db)) ?? [])
            .filter { name in !name.isEmpty && name.allSatisfy(\.isNumber) }
            .sorted { Int($0)! != Int($1)! ? Int($0)! < Int($1)! : $0 < $1 }
        var out: [Campaign] = []
        for month in months {
            let folder = db + "/" + month
            let files = Set((try? fm.contentsOfDirectory(atPath: folder)) ?? [])
            let names = files.compactMap { f -> String? in
                guard f.hasSuffix("rss.csv"), f.count == 12, f.hasPrefix("trn") || f.hasPrefix("tst") else { return nil }
                return String(f.prefix(5))
            }.sorted { a, b in a.hasPrefix("trn") != b.hasPrefix("trn") ? a.hasPrefix("trn") : a < b }
            for name in names {
                let campaign = Campaign(month: month, name: name, folder: folder, relativeFolder: prefix + month)
                for kind in ["crd", "tms", "ids"] where !files.contains("\(name)\(kind).csv") {
                    throw DatasetError(file: campaign.file("rss").name, "\(campaign.file(kind).name) is missing beside it")
                }
                out.append(campaign)
            }
        }
        guard !out.isEmpty else {
            throw DatasetError(file: root, "no UJI long-term campaigns here (expected db/MM/trnCCrss.csv and its crd, tms, ids files)")
        }
        return out
    }

    /// One campaign's fingerprints, tagged `month`, `campaign`, `set`
    /// (train or test) and `point` (the ids file's value).
    package static func read(_ c: Campaign, time: TableTime) throws(DatasetError) -> FingerprintTable {
        let rss = try CSVFile.read(path: c.file("rss").path, name: c.file("rss").name)
        let crd = try CSVFile.read(path: c.file("crd").path, name: c.file("crd").name)
        let tms = try CSVFile.read(path: c.file("tms").path, name: c.file("tms").name)
        let ids = try CSVFile.read(path: c.file("ids").path, name: c.file("ids").name)
        return try read(c, rss: rss, crd: crd, tms: tms, ids: ids, time: time)
    }

    /// A campaign from its four files already read (the fuzzer gives them from memory).
    package static func read(_ c: Campaign, rss: CSVFile, crd: CSVFile, tms: CSVFile, ids: CSVFile,
                             time: TableTime) throws(DatasetError) -> FingerprintTable {
        var rows: [TableRow] = []
        var width: Int?
        try rss.forEachRecord { (record) throws(DatasetError) in
            let expected = width ?? record.count
            width = expected
            guard record.count == expected else {
                throw record.error(nil, "\(record.count) access points, the first row has \(expected)")
            }
            var row = TableRow(line: record.line, row: rows.count + 1)
            for i in 0..<record.count {
                guard let v = record.number(i) else { throw record.error(i, "RSSI \(record.shown(i)) is not a number") }
                if v == notHeard { continue }
                guard (-200.0...0).contains(v) else { throw record.error(i, "RSSI \(record.shown(i)) is outside -200…0 dBm") }
                row.readings.append(TableRow.Reading(transmitter: i, rssi: v))
            }
            row.tags = [.init("month", c.month), .init("campaign", c.name), .init("set", c.isTraining ? "train" : "test")]
            rows.append(row)
            return true
        }
        try lockstep(crd, rows: &rows, against: rss) { (record, row) throws(DatasetError) in
            guard record.count == 3 else { throw record.error(nil, "\(record.count) fields, expected x,y,floor") }
            guard let x = record.number(0) else { throw record.error(0, "x \(record.shown(0)) is not a number") }
            guard let y = record.number(1) else { throw record.error(1, "y \(record.shown(1)) is not a number") }
            guard let f = record.number(2), f.rounded() == f, abs(f) < 1000 else {
                throw record.error(2, "floor \(record.shown(2)) is not a whole number")
            }
            row.x = x
            row.y = y
            row.floor = Int(f)
        }
        try lockstep(tms, rows: &rows, against: rss) { (record, row) throws(DatasetError) in
            guard record.count == 1 else { throw record.error(nil, "\(record.count) fields, expected one time") }
            let text = record.text(0)
            switch time.milliseconds(text) {
            case .success(let ms): row.timeMs = ms
            case .failure(let f): throw record.error(0, "time \(record.shown(0)): \(f.reason)")
            }
            row.timeText = text
        }
        try lockstep(ids, rows: &rows, against: rss) { (record, row) throws(DatasetError) in
            guard record.count == 1, !record.isEmpty(0) else { throw record.error(nil, "expected one id") }
            row.tags.append(.init("point", record.text(0)))
        }
        let names = (0..<(width ?? 0)).map { String(format: "WAP%03d", $0 + 1) }
        return FingerprintTable(file: rss.name, radio: .wifi, transmitters: names, rows: rows)
    }

    /// Reads `file`'s records into the rows of the same number; a count that
    /// differs from the rss file's is named.
    static func lockstep(_ file: CSVFile, rows: inout [TableRow], against rss: CSVFile,
                         _ apply: (CSVRecord, inout TableRow) throws(DatasetError) -> Void) throws(DatasetError) {
        var n = 0
        var lastLine = 0
        try file.forEachRecord { (record) throws(DatasetError) in
            guard n < rows.count else {
                throw record.error(nil, "more rows than \(rss.name) (\(rows.count))")
            }
            try apply(record, &rows[n])
            n += 1
            lastLine = record.line
            return true
        }
        guard n == rows.count else {
            throw DatasetError(file: file.name, line: lastLine == 0 ? nil : lastLine,
                               "\(n) rows, \(rss.name) has \(rows.count)")
        }
    }
}
