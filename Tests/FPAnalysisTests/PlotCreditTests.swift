import Foundation
import Testing
@testable import FPAnalysis

/// The credit strip under a plot and the one mark per measured place (issue 60 item 6).
@Suite struct PlotCreditTests {
    static let plot = SVGPlot.document(width: 400, height: 300, title: "t", ["<circle cx=\"1\" cy=\"2\" r=\"3\"/>"])

    @Test func creditGrowsTheDrawingAndWrapsInsideIt() throws {
        let long = "Data: " + Array(repeating: "word", count: 40).joined(separator: " ")
        let svg = SVGPlot.credited(Self.plot, lines: [long, "Second line"])
        let lines = SVGPlot.wrap(long, at: Int(380 / 5.6))
        #expect(lines.count > 1 && lines.allSatisfy { $0.count <= Int(380 / 5.6) })
        let grown = 300 + 14 * (lines.count + 1) + 8
        #expect(svg.contains("width=\"400\" height=\"\(grown)\" viewBox=\"0 0 400 \(grown)\""), "\(svg.prefix(300))")
        #expect(svg.contains(">Second line</text>") && svg.contains("<circle cx=\"1\""))
        #expect(svg.hasSuffix("</svg>\n") && svg.components(separatedBy: "</svg>").count == 2)
        #expect(SVGPlot.credited(Self.plot, lines: []) == Self.plot)
    }

    @Test func creditTextIsEscaped() {
        let svg = SVGPlot.credited(Self.plot, lines: ["A & B <c>"])
        #expect(svg.contains("A &amp; B &lt;c&gt;") && !svg.contains("<c>"))
    }

    @Test func placesMergeWithNotHeardBelowEveryLevel() {
        let p = { (x: Double, rssi: Double?, l: String) in SVGPlot.HeatPoint(x: x, y: 1, rssi: rssi, label: l) }
        let merged = SVGPlot.HeatPoint.mergedByPlace(
            [p(1, -60, "a"), p(5, nil, "d"), p(1.004, nil, "b"), p(1, nil, "c"), p(5, -70, "e"), p(9, -50, "f")], precision: 0.01)
        #expect(merged.count == 3)
        // a, b, c: −60, not heard, not heard → not heard (most missed it).
        #expect(merged[0].rssi == nil && merged[0].label.contains("3 measurements") && merged[0].label.contains("heard in 1"))
        // d, e: an even count whose middle pair holds a miss → not heard.
        #expect(merged[1].rssi == nil)
        #expect(merged[2].rssi == -50 && merged[2].label == "f", "a place measured once keeps its own label")
    }
}
