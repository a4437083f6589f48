import Foundation

extension SVGPlot {
    /// A floor-plan picture placed on the map: the image's bytes (embedded in
    /// the SVG as a data URL, so the file stands alone and renders to PNG
    /// anywhere) and the rectangle it covers, in map units.
    package struct FloorPlan: Sendable, Equatable {
        package var header: ImageHeader
        package var bytes: [UInt8]
        package var x: Double, y: Double
        package var width: Double, height: Double
        /// Where a web page serves the picture, so a page with several plots
        /// sends it once; nil: embedded as a data URL (a file that stands alone).
        package var link: String?

        /// `unitsPerPixel` map units a pixel, the top-left pixel at (`x`, `y`).
        package init(header: ImageHeader, bytes: [UInt8], x: Double, y: Double, unitsPerPixel: Double) {
            self.header = header
            self.bytes = bytes
            self.x = x
            self.y = y
            width = Double(header.width) * unitsPerPixel
            height = Double(header.height) * unitsPerPixel
        }
    }

    /// The map area a plot shows, in map units: the map's whole `extent`
    /// when the app config gives one (grown to hold any point or plan past
    /// it), else the measured points with a 2 m margin; grown to hold the
    /// whole floor plan when there is one.
    package static func mapExtent(_ points: [(x: Double, y: Double)], floorPlan: FloorPlan?,
                                  extent: (width: Double, height: Double)? = nil,
                                  metersPerUnit: Double) -> (width: Double, height: Double) {
        let farX = points.map(\.x).max() ?? 0, farY = points.map(\.y).max() ?? 0
        var width: Double, height: Double
        if let extent {
            (width, height) = (max(extent.width, farX), max(extent.height, farY))
        } else {
            let margin = 2 / max(metersPerUnit, 1e-9)
            (width, height) = (farX + margin, farY + margin)
        }
        if let floorPlan {
            width = max(width, floorPlan.x + floorPlan.width)
            height = max(height, floorPlan.y + floorPlan.height)
        }
        return (width, height)
    }

    /// The picture under everything else, faded so colours on it stay
    /// readable, clipped to the plot area (a plan may reach past the extent).
    /// `clipID` names the clip path: plots inlined in one HTML page share
    /// one id space, so each kind of plot has its own.
    package static func floorPlanImage(_ plan: FloorPlan?, left: Double, top: Double, scale: Double, width: Double,
                                       height: Double, clipID: String) -> [String] {
        guard let plan else { return [] }
        let href = plan.link.map(escape) ?? "data:\(plan.header.mediaType);base64,\(Data(plan.bytes).base64EncodedString())"
        return ["<clipPath id=\"\(clipID)\"><rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(height))\"/></clipPath>",
                "<image class=\"floor-plan\" x=\"\(f(left + plan.x * scale))\" y=\"\(f(top + plan.y * scale))\" "
                    + "width=\"\(f(plan.width * scale))\" height=\"\(f(plan.height * scale))\" preserveAspectRatio=\"none\" "
                    + "opacity=\"0.5\" clip-path=\"url(#\(clipID))\" href=\"\(href)\"/>"]
    }
}
