import FPAnalysis
import FPConfig
import FPCore
import Foundation

extension BeaconSheet {
    /// What looks wrong with where the sheet puts its beacons, though each
    /// position lies on the plan: a beacon outside the floor's outline, and
    /// positions read as map units that all crowd into a tiny corner of the
    /// plan, as metres read as pixels do (a bare `x,y` header over 4.5, 6.2
    /// on a 1200-pixel plan). One line each; the import still writes.
    func placementWarnings(map: MapInfo, file: String) -> [String] {
        var out: [String] = []
        if let outline = map.outline {
            let polygon = outline.map { (x: $0.x, y: $0.y) }
            for row in rows where !SVGPlot.inside(polygon, x: row.x, y: row.y) {
                out.append(String(format: "%@:%d: warning: %@ at (%g, %g) is outside map %@'s outline", file, row.line,
                                  row.label, row.x, row.y, map.id))
            }
        }
        if let corner = unitsInACorner(map: map) { out.append("\(file): warning: \(corner)") }
        return out
    }

    /// The suggestion when every position read as map units lies within a
    /// twentieth of the plan's width and height from its origin while read
    /// as metres they would spread over the plan (nil otherwise).
    func unitsInACorner(map: MapInfo) -> String? {
        let inUnits = rows.filter { !$0.inMetres }
        guard inUnits.count == rows.count, !inUnits.isEmpty, let extent = map.extent else { return nil }
        let maxX = inUnits.map(\.x).max()!, maxY = inUnits.map(\.y).max()!
        guard inUnits.allSatisfy({ $0.x >= 0 && $0.y >= 0 }), maxX <= extent.width / 20, maxY <= extent.height / 20 else {
            return nil
        }
        let perUnit = map.scale.metersPerUnit
        guard maxX / perUnit <= extent.width, maxY / perUnit <= extent.height else { return nil }
        return String(format: "every beacon lies within x ≤ %g, y ≤ %g of a %g × %g-unit plan (%.2g × %.2g m): if the sheet gives metres, "
                      + "--metres reads them so (add --origin X,Y where its 0,0 is not the plan's top-left corner)",
                      maxX, maxY, extent.width, extent.height, maxX * perUnit, maxY * perUnit)
    }
}
