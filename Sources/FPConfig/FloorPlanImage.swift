import FPCore

/// A picture of a floor plan (`maps[].floorPlan`), drawn under plots: `image`
/// is a PNG or JPEG file, absolute or relative to a local app config's
/// folder. Its top-left pixel lies at `origin` (map units, default 0, 0) and
/// one pixel spans `unitsPerPixel` map units (default 1: the old apps'
/// map units are the pixels of their plan images).
package struct FloorPlanImage: Sendable, Equatable {
    package var image: String
    package var origin: MapPoint
    package var unitsPerPixel: Double

    package init(image: String, origin: MapPoint = MapPoint(x: 0, y: 0), unitsPerPixel: Double = 1) {
        self.image = image
        self.origin = origin
        self.unitsPerPixel = unitsPerPixel
    }

    init(_ value: JSONValue, at path: String, reader r: JSONReader) throws(ConfigError) {
        let o = try r.object(value, at: path)
        self.init(image: try r.string(o, "image", at: path, nonEmpty: true))
        if let origin = o["origin"] {
            let originPath = "\(path).origin"
            let p = try r.object(origin, at: originPath)
            self.origin = MapPoint(x: try r.number(p, "x", at: originPath), y: try r.number(p, "y", at: originPath))
        }
        if o["unitsPerPixel"] != nil {
            unitsPerPixel = try r.positiveNumber(o, "unitsPerPixel", at: path)
        }
    }
}
