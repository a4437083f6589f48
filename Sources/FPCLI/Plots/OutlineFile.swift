import ArgumentParser
import FPConfig
import FPCore
import FPDatasets
import Foundation

/// `--outline FILE` of the plots that draw a map: the floor's walls as a CSV
/// of corners, for maps the app config gives no outline (an imported
/// dataset's, e.g. ble-flat-robot's layout.csv).
struct OutlineOptions: ParsableArguments {
    @Option(help: "The floor's outline: a CSV file with x and y columns, corners in order, in map units (metres for an imported dataset's map); default: the map's outline in the app config.",
            completion: .file())
    var outline: String?

    /// The file's corners, else the app config's outline of `map`, else nil.
    func corners(map: String, config: LoadedConfig?) throws -> [(x: Double, y: Double)]? {
        if let outline { return try OutlineFile.read(outline) }
        return config?.appConfig.map(id: map)?.outline?.map { (x: $0.x, y: $0.y) }
    }
}

enum OutlineFile {
    /// The corners of an outline CSV (its header's x and y columns), at least three.
    static func read(_ file: String) throws -> [(x: Double, y: Double)] {
        do {
            let csv = try CSVFile.read(path: file)
            let header = try csv.header()
            guard let xi = header.firstIndex(of: "x"), let yi = header.firstIndex(of: "y") else {
                throw CommandFailure("\(file): an outline needs x and y columns (columns: \(header.joined(separator: ", ")))", .dataError)
            }
            var points: [(x: Double, y: Double)] = []
            var first = true
            try csv.forEachRecord { (record: CSVRecord) throws(DatasetError) -> Bool in
                defer { first = false }
                guard !first else { return true }
                guard xi < record.count, yi < record.count, let x = record.number(xi), let y = record.number(yi) else {
                    throw record.error(xi < record.count ? yi : xi, "not a corner (x, y numbers)")
                }
                points.append((x, y))
                return true
            }
            guard points.count >= 3 else { throw CommandFailure("\(file): an outline needs at least 3 corners", .dataError) }
            return points
        } catch let error as DatasetError {
            throw CommandFailure(error.description, error.description.contains("no such file") ? .notFound : .dataError)
        }
    }
}
