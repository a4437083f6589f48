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
        var counts: [PlaceKey: (x: Double, y: Double, count: Int)] = [:]
        var order: [PlaceKey] = []
        for fp in fps {
            let at = fp.exactPoint
            let key = PlaceKey(x: Int((at.x * 100).rounded()), y: Int((at.y * 100).rounded()))
            if counts[key] == nil { order.append(key) }
            counts[key, default: (at.x, at.y, 0)].count += 1
        }
        let datasets = Set(fps.compactMap(\.labels.dataset)).sorted()
        let floors = Set(fps.compactMap(\.labels.floor))
        let info = MapInfo(id: id, location: "", description: "imported from \(datasets.isEmpty ? "a dataset" : datasets.joined(separator: ", ")) (not in the app config)",
                           mapURL: "", scale: MapScale(meters: 1, units: 1), floor: floors.count == 1 ? floors.first : nil)
        return ImportedMap(info: info, documents: fps.count, points: order.compactMap { counts[$0] }, credits: fps.datasetCredits)
    }

    private struct PlaceKey: Hashable { var x: Int, y: Int }
}
