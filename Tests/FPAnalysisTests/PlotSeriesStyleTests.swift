import Foundation
import Testing
@testable import FPAnalysis

/// Plots readable in grey: series differ by dash and marker, not colour
/// alone; legends show a sample; the errors CDF counts unlocated points.
@Suite struct PlotSeriesStyleTests {
    @Test func theFirstThirtySeriesDifferWithoutColour() {
        let styles = (0..<30).map(SVGPlot.seriesStyle)
        let greyKeys = Set(styles.map { "\($0.dash ?? "solid")/\($0.marker.rawValue)" })
        #expect(greyKeys.count == 30)
    }

    @Test func groupsPlotLinesDifferInDashAndMarkerAndTheLegendHasSamples() throws {
        let series = ["knn9", "knn1", "gk4k12"].map { SVGPlot.GroupSeries(label: $0, p75: [5, 6, 7], floorSuccess: [0.99, 0.98, 0.97]) }
        let svg = SVGPlot.groups(title: "t", groupLabel: "month", groups: ["1", "2", "3"], series: series)
        #expect(ElementCounter.parse(svg) != nil)
        let lines = svg.components(separatedBy: "<polyline class=\"series\"").dropFirst().map { String($0.prefix { $0 != ">" }) }
        #expect(lines.count == 6)  // 3 series × 2 panels
        func dash(_ line: String) -> String {
            line.range(of: "stroke-dasharray=\"[^\"]*\"", options: .regularExpression).map { String(line[$0]) } ?? "solid"
        }
        #expect(Set(lines.prefix(3).map(dash)).count == 3, "\(lines)")
        // knn9 and gk4k12 (the pair that looked alike in grey) have different markers.
        #expect(SVGPlot.seriesStyle(0).marker != SVGPlot.seriesStyle(2).marker)
        // The legend: one entry a series, each with a line sample and the label in black.
        let entries = svg.components(separatedBy: "<g class=\"legend-entry\">").dropFirst()
        #expect(entries.count == 3 && entries.allSatisfy { $0.contains("<line ") && !$0.contains("<text x=\"0\" fill=") })
    }

    @Test func timeSeriesLegendHasSamplesAndLabelsInBlack() {
        let svg = SVGPlot.timeSeries(title: "t", series: [("BLE:a", [(0, -70), (100, -72)]), ("WIFI:b", [(50, -60)])])
        let entries = svg.components(separatedBy: "<g class=\"legend-entry\">").dropFirst()
        #expect(entries.count == 2 && entries.allSatisfy { $0.contains("<line ") && $0.contains("<text x=") })
        #expect(!svg.contains("<text x=\"680\" y=\"50\" fill="))  // no more coloured-text legend
    }

    @Test func theCDFEndsAtTheLocatedShareAndTheLegendCountsThem() throws {
        // 2 of 4 located: the curve's last step is at half height, not at the top.
        let svg = SVGPlot.errors(title: "e", results: [("wifi wknn k=3", [1, 2], 4)])
        #expect(svg.contains("wifi wknn k=3: 2 of 4 located"))
        let d = try #require(svg.components(separatedBy: "class=\"cdf\"").dropFirst().first?.components(separatedBy: "d=\"").dropFirst().first?.prefix { $0 != "\"" })
        let ys = d.split(whereSeparator: { "ML".contains($0) }).compactMap { Double($0.split(separator: " ").last ?? "") }
        // The axes put fraction 0 at y = 340 and 1 at y = 40: half is 190.
        #expect(ys.min() == 190, "\(d)")
        let all = SVGPlot.errors(title: "e", results: [("a", [1, 2], 2)])
        #expect(all.contains("a: 2 of 2 located"))
    }

    @Test func boxPlotsAreLabelled() {
        let svg = SVGPlot.errors(title: "e", results: [("wifi", [1, 2, 3], 3), ("combined", [1, 2, 4], 3)])
        #expect(svg.contains("class=\"box-label\" x=\"580\" y=\"414.0\">wifi<") && svg.contains(">combined</text>"))
    }
}
