import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// A map the app config does not name but the store holds a public dataset's
/// measurements of (`fprint import`): its positions are metres, so it is
/// shown at one unit a metre, over the extent its data reaches.
struct ImportedMap {
    var info: MapInfo
    var documents: Int
    /// Each measured place (to a centimetre) with its number of documents, in first-met order.
    var points: [(x: Double, y: Double, count: Int)]
    var credits: [String]

    /// nil when the store holds no imported measurement of `id` in metres.
    static func load(_ ws: Workspace, id: String) throws -> ImportedMap? {
        guard FileManager.default.fileExists(atPath: ws.databasePath) else { return nil }
        let fps = try AnalysisInput.fingerprints(try ws.openStore(.read), try FilterOptions.parse(["--map", id]))
            .filter { $0.labels.inMetres }
        guard !fps.isEmpty else { return nil }
        let measured = places(fps, precision: 0.01) { $0.exactPoint }.map { ($0.x, $0.y, $0.members.count) }
        let datasets = Set(fps.compactMap(\.labels.dataset)).sorted()
        let floors = Set(fps.compactMap(\.labels.floor))
        let info = MapInfo(id: id, location: "", description: "imported from \(datasets.isEmpty ? "a dataset" : datasets.joined(separator: ", ")) (not in the app config)",
                           mapURL: "", scale: MapScale(meters: 1, units: 1), floor: floors.count == 1 ? floors.first : nil)
        return ImportedMap(info: info, documents: fps.count, points: measured, credits: fps.datasetCredits)
    }
}
