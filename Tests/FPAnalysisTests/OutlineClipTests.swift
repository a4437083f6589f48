@testable import FPAnalysis
import Testing

/// Shading drawn in whole cells is cut to the floor's outline: a heatmap's
/// cells and a coverage plot's stop at the wall.
@Suite struct OutlineClipTests {
    /// 20 × 10 units at 1 m a unit; the outline an L leaving out the bottom-left quarter.
    static let outline: [(x: Double, y: Double)] = [(0, 0), (20, 0), (20, 10), (10, 10), (10, 5), (0, 5)]

    @Test func theHeatmapSurfaceIsClippedToTheOutline() {
        let points = [SVGPlot.HeatPoint(x: 2, y: 2, rssi: -60, label: "a"), SVGPlot.HeatPoint(x: 15, y: 8, rssi: -70, label: "b")]
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 20, mapHeight: 10, metersPerUnit: 1, outline: Self.outline)
        #expect(svg.contains("<clipPath id=\"heatmap-floor\"><polygon points=\""), "\(svg)")
        #expect(svg.contains("<g class=\"surface\" clip-path=\"url(#heatmap-floor)\">"))
        // Without an outline the plot's rectangle clips it: a cell at the data's edge does not spill past the frame.
        let open = SVGPlot.heatmap(title: "t", points: points, mapWidth: 20, mapHeight: 10, metersPerUnit: 1)
        #expect(open.contains("<clipPath id=\"heatmap-floor\"><rect ") && open.contains("<g class=\"surface\" clip-path=\"url(#heatmap-floor)\">"))
    }

    @Test func coverageCellsAreClippedToTheOutline() {
        let points: [(x: Double, y: Double, beacons: Int)] = [(9.5, 4.5, 2), (15, 8, 4)]
        let cells = SVGPlot.coverageCells(points, cell: 3)
        let svg = SVGPlot.coverage(title: "t", points: points, cells: cells, cell: 3, needed: 3, mapWidth: 20, mapHeight: 10,
                                   metersPerUnit: 1, outline: Self.outline)
        #expect(svg.contains("<clipPath id=\"coverage-floor\"><polygon points=\""), "\(svg)")
        #expect(svg.contains("<g class=\"cells\" clip-path=\"url(#coverage-floor)\">"))
    }
}
