import Foundation

extension SVGPlot {
    /// Beacon coverage on a grid: each cell holding measured points shows the
    /// fewest beacons any of them hears at or above the threshold (the worst
    /// spot decides); cells under `needed` are gaps, outlined in red and
    /// hatched. Cells without points stay blank: not measured is not covered.
    package struct CoverageCell: Sendable, Equatable {
        package var column: Int
        package var row: Int
        package var beacons: Int
        package var points: Int
    }

    package static func coverageCells(_ points: [(x: Double, y: Double, beacons: Int)], cell: Double) -> [CoverageCell] {
        var cells: [Int64: CoverageCell] = [:]
        let side = max(cell, 1e-9)
        for p in points {
            let column = Int((p.x / side).rounded(.down)), row = Int((p.y / side).rounded(.down))
            let key = Int64(row) << 32 | Int64(UInt32(bitPattern: Int32(column)))
            if var c = cells[key] {
                c.beacons = min(c.beacons, p.beacons)
                c.points += 1
                cells[key] = c
            } else {
                cells[key] = CoverageCell(column: column, row: row, beacons: p.beacons, points: 1)
            }
        }
        return cells.values.sorted { ($0.row, $0.column) < ($1.row, $1.column) }
    }

    /// `cells`: `coverageCells(points, cell: cell)`, which the caller also counts.
    package static func coverage(title: String, points: [(x: Double, y: Double, beacons: Int)], cells: [CoverageCell],
                                cell: Double, needed: Int, mapWidth: Double, mapHeight: Double, metersPerUnit: Double,
                                outline: [(x: Double, y: Double)]? = nil, floorPlan: FloorPlan? = nil,
                                axisOrigin: (x: Double, y: Double) = (0, 0), size: Int = 800) -> String {
        let left = 50.0, top = 40.0
        let w = Double(size) - left - 70, scale = w / max(mapWidth, 1)
        let h = mapHeight * scale
        let most = max(needed * 2, cells.map(\.beacons).max() ?? 0)
        var body = ["<defs><pattern id=\"gap\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            + "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d62728\" stroke-width=\"2\"/></pattern></defs>"]
        body += floorPlanImage(floorPlan, left: left, top: top, scale: scale, width: w, height: h, clipID: "coverage-area")
        body.append(outlineShape(outline, left: left, top: top, scale: scale, width: w, height: h))
        body += mapAxes(left: left, top: top, width: w, height: h, widthM: mapWidth * metersPerUnit, heightM: mapHeight * metersPerUnit,
                        origin: axisOrigin)
        let side = cell * scale
        // Cells are whole squares: cut to the outline, none shades outdoors.
        body.append(areaClip(outline, id: "coverage-floor", left: left, top: top, scale: scale, width: w, height: h))
        body.append("<g class=\"cells\" clip-path=\"url(#coverage-floor)\">")
        for c in cells {
            let x = left + Double(c.column) * side, y = top + Double(c.row) * side
            let tip = "<title>\(c.beacons) beacon\(c.beacons == 1 ? "" : "s") at the weakest of \(c.points) point\(c.points == 1 ? "" : "s")</title>"
            body.append("<rect class=\"cell\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(side))\" height=\"\(f(side))\" fill=\"\(viridisColor(Double(c.beacons) / Double(most)))\">\(tip)</rect>")
            if c.beacons < needed {
                body.append("<rect class=\"gap\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(side))\" height=\"\(f(side))\" fill=\"url(#gap)\" stroke=\"#d62728\" stroke-width=\"1.5\">\(tip)</rect>")
            }
        }
        body.append("</g>")
        // One dot per drawn place: a dataset measuring each point dozens of times stacks no copies.
        var dotted = Set<String>()
        for p in points {
            let at = "cx=\"\(f(left + p.x * scale))\" cy=\"\(f(top + p.y * scale))\""
            if dotted.insert(at).inserted { body.append("<circle \(at) r=\"1.5\" fill=\"#222\"/>") }
        }
        // Legend: the count scale and what a gap looks like.
        let lx = left + w + 16
        for n in 0...most {
            let y = top + 20 + Double(most - n) * 14
            body.append("<rect x=\"\(f(lx))\" y=\"\(f(y))\" width=\"14\" height=\"14\" fill=\"\(viridisColor(Double(n) / Double(most)))\"/>")
            body.append("<text x=\"\(f(lx + 19))\" y=\"\(f(y + 11))\">\(n)</text>")
        }
        let gy = top + 30 + Double(most + 1) * 14
        body.append("<rect x=\"\(f(lx))\" y=\"\(f(gy))\" width=\"14\" height=\"14\" fill=\"url(#gap)\" stroke=\"#d62728\"/>")
        body.append("<text x=\"\(f(lx + 19))\" y=\"\(f(gy + 11))\">&lt; \(needed)</text>")
        body.append("<text x=\"\(f(lx))\" y=\"\(f(top + 12))\">beacons</text>")
        return document(width: size, height: Int(top + h + 50), title: title, body)
    }
}
