import Foundation
import Testing

@testable import FPAnalysis

/// Track plots that say what happened: both floor changes on the error
/// panel, no line across a hole in the track, accuracy circles that do not
/// pile into a blob, the surveyed route beside an off-route walk, floor-change
/// labels clear of the estimates, lines told apart without colour.
@Suite struct TrackPlotStyleTests {
    static let floors = [SVGPlot.TrackFloor(map: "J2NP", width: 2500, height: 3000), .init(map: "J3NP", width: 2500, height: 3000)]

    func sample(_ t: Double, _ x: Double, _ y: Double, map: String, truthMap: String? = nil, error: Double? = 1,
                accuracy: Double = 1.5) -> SVGPlot.TrackSample {
        .init(timeS: t, x: x, y: y, truth: (x, y - 60), errorM: error, accuracyM: accuracy, map: map, truthMap: truthMap ?? map)
    }

    @Test func theErrorPanelMarksTheTrueAndTheReportedFloorChange() throws {
        // Truly upstairs from 7 s; the tracker says so at 10 s.
        let samples = (0..<20).map { (t: Int) -> SVGPlot.TrackSample in
            let x = 500 + Double(t) * 40
            return sample(Double(t), x, 1500, map: t < 10 ? "J2NP" : "J3NP", truthMap: t < 7 ? "J2NP" : "J3NP")
        }
        let elements = try SVGElements.parse(SVGPlot.track(title: "t", samples: samples, floors: Self.floors, metersPerUnit: 0.02))
        let reported: [SVGElements.Element] = elements.with(class: "floor-change-time")
        let truth: [SVGElements.Element] = elements.with(class: "true-floor-change-time")
        #expect(reported.count == 1 && truth.count == 1)
        let rx = try #require(Double(reported.first?.attributes["x1"] ?? "")), tx = try #require(Double(truth.first?.attributes["x1"] ?? ""))
        #expect(tx < rx - 10, "true at \(tx), reported at \(rx)")
        // Told apart without colour, and each named.
        #expect(reported.first?.attributes["stroke-dasharray"] != truth.first?.attributes["stroke-dasharray"])
        let labels = DrawnLabels(elements, classes: ["floor-change-time-label", "true-floor-change-time-label"])
        let texts: [String] = labels.boxes.map { $0.text }
        #expect(texts.sorted() == ["reported → J3NP", "true → J3NP"])
        #expect(labels.overlapping.isEmpty, "\(texts)")
        let lines = (reported + truth).map { (e: SVGElements.Element) -> SVGLabelPlacer.Mark in
            let v = { (name: String) in Double(e.attributes[name] ?? "") ?? 0 }
            return .segment(x1: v("x1"), y1: v("y1"), x2: v("x2"), y2: v("y2"), width: 1)
        }
        #expect(labels.covering(lines + elements.segments(class: "error")).isEmpty)
        // Truth and report agreeing: both lines, at the same time.
        let agreed = samples.map { s in sample(s.timeS, s.x, s.y, map: s.map!, truthMap: s.map) }
        let plain = try SVGElements.parse(SVGPlot.track(title: "t", samples: agreed, floors: Self.floors, metersPerUnit: 0.02))
        let same = ["true-floor-change-time", "floor-change-time"].map { plain.with(class: $0).first?.attributes["x1"] }
        #expect(same[0] != nil && same[0] == same[1])
    }

    @Test func theErrorLineBreaksAtATwentySecondHoleAndAtUnscoredPositions() throws {
        // A fix a second for 10 s, nothing for 20 s, then 10 more, one of them unscored.
        let before: [SVGPlot.TrackSample] = (0..<10).map { (t: Int) in sample(Double(t), 1000, 1000, map: "J3NP") }
        let after: [SVGPlot.TrackSample] = (30..<40).map { (t: Int) in
            sample(Double(t), 1000, 1000, map: "J3NP", error: t == 35 ? nil : 1)
        }
        let samples = before + after
        let svg = SVGPlot.track(title: "t", samples: samples, floors: [.init(map: "J3NP", width: 2500, height: 3000)],
                                metersPerUnit: 0.02)
        let elements = try SVGElements.parse(svg)
        let errors = elements.filter { $0.name == "polyline" && $0.attributes["class"] == "error" }
        // 0–9 s, 30–34 s, 36–39 s.
        #expect(errors.map { $0.polyline.count } == [10, 5, 4])
        let accuracy = elements.filter { $0.name == "polyline" && $0.attributes["class"] == "accuracy" }
        #expect(accuracy.map { $0.polyline.count } == [10, 10])
        // The map panel's estimate line breaks at the hole too.
        #expect(elements.with(class: "estimate").count == 2)
    }

    @Test func accuracyCirclesAreUnfilledAndDoNotPileUp() throws {
        // A walker standing still for 30 s, then walking off: circles on the spot would cover each other.
        let still: [SVGPlot.TrackSample] = (0..<30).map { (t: Int) in
            sample(Double(t), 1000 + Double(t % 3), 1000, map: "J3NP", accuracy: 3)
        }
        let walking: [SVGPlot.TrackSample] = (30..<40).map { (t: Int) in
            sample(Double(t), 1000 + Double(t - 29) * 250, 1000, map: "J3NP", accuracy: 3)
        }
        let samples = still + walking
        let svg = SVGPlot.track(title: "t", samples: samples, floors: [.init(map: "J3NP", width: 2500, height: 3000)],
                                circles: 6, metersPerUnit: 0.02)
        let circles = try SVGElements.parse(svg).with(class: "accuracy-circle")
        #expect(!circles.isEmpty)
        for c in circles {
            let opacity = Double(c.attributes["fill-opacity"] ?? "") ?? (c.attributes["fill"] == "none" ? 0 : 1)
            #expect(opacity <= 0.15, "\(c.attributes)")
        }
        // No circle's centre inside another's: 3 m is 150 map units.
        let centres: [(x: Double, y: Double, r: Double)] = circles.map { (c: SVGElements.Element) in
            let v = { (name: String) in Double(c.attributes[name] ?? "") ?? 0 }
            return (v("cx"), v("cy"), v("r"))
        }
        for (i, a) in centres.enumerated() {
            for b in centres.dropFirst(i + 1) {
                let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
                #expect(d >= max(a.r, b.r) - 0.1, "\(centres)")
            }
        }
        #expect(svg.contains("stated accuracy of \(circles.count) position"))
    }

    @Test func theSurveyedRouteIsDrawnInItsOwnStyleAndNamedInTheLegend() throws {
        let samples = (0..<10).map { sample(Double($0), 600 + Double($0) * 100, 1200, map: "J3NP") }
        let route = [(x: 500.0, y: 1100.0), (x: 1600, y: 1100), (x: 1600, y: 2000)]
        let svg = SVGPlot.track(title: "t", samples: samples,
                                floors: [.init(map: "J3NP", width: 2500, height: 3000, surveyed: [route])], metersPerUnit: 0.02)
        let elements = try SVGElements.parse(svg)
        let drawn = try #require(elements.with(class: "surveyed-route").first)
        // 700 px for 2,500 units (a 700 × 840 panel), from (50, 50).
        let scale = 700.0 / 2500
        #expect(drawn.polyline.map { [$0.x, $0.y] } == route.map { [50 + $0.x * scale, 50 + $0.y * scale].map { ($0 * 10).rounded() / 10 } })
        #expect(drawn.ancestors.contains { $0["clip-path"] == "url(#track-panel-0)" })
        let legend: [String] = elements.filter { $0.ancestors.last?["class"] == "legend" }.map { $0.text }
        #expect(legend.contains("surveyed route"))
        // Without a route: neither line nor legend entry.
        let none = SVGPlot.track(title: "t", samples: samples, floors: [.init(map: "J3NP", width: 2500, height: 3000)], metersPerUnit: 0.02)
        #expect(!none.contains("surveyed"))
    }

    @Test func truthEstimatesAndSurveyedRouteDifferInWidthOrDash() throws {
        let samples = (0..<10).map { sample(Double($0), 600 + Double($0) * 100, 1200, map: "J3NP") }
        let svg = SVGPlot.track(title: "t", samples: samples,
                                floors: [.init(map: "J3NP", width: 2500, height: 3000, surveyed: [[(x: 500, y: 1100), (x: 1600, y: 1100)]])],
                                metersPerUnit: 0.02)
        let elements = try SVGElements.parse(svg)
        let looks = try ["truth", "estimate", "surveyed-route"].map { name in
            let e = try #require(elements.with(class: name).first)
            return "\(e.attributes["stroke-width"] ?? "1")/\(e.attributes["stroke-dasharray"] ?? "solid")"
        }
        #expect(Set(looks).count == 3, "\(looks)")
        // The legend draws a sample of each line, not a coloured glyph in its text.
        let legend = elements.filter { $0.ancestors.last?["class"] == "legend" }
        #expect(legend.filter { $0.name == "line" }.count >= 3 + 2)
        #expect(!svg.contains("━") && !svg.contains("<tspan"))
    }

    @Test func floorChangeLabelsCoverNoEstimateTruthOrOtherLabel() throws {
        // Crowded around the change: fixes every 15 units, the truth 60 units above, both floors alike.
        let samples = (0..<40).map { (t: Int) -> SVGPlot.TrackSample in
            let x = 1200 + Double(t % 20) * 15, y = 1500 + Double(t % 7) * 10
            return sample(Double(t), x, y, map: t < 20 ? "J2NP" : "J3NP")
        }
        let elements = try SVGElements.parse(SVGPlot.track(title: "t", samples: samples, floors: Self.floors, circles: 4,
                                                           metersPerUnit: 0.02))
        let labels = DrawnLabels(elements, classes: ["floor-change-label"])
        #expect(labels.boxes.map { $0.text } == ["to J3NP at 19 s", "from J2NP at 20 s"])
        let marks = elements.discs(class: "fix") + elements.segments(class: "truth", width: 4)
            + elements.segments(class: "estimate", width: 1.5)
        #expect(labels.covering(marks).isEmpty, "\(labels.covering(marks))")
        #expect(labels.overlapping.isEmpty)
    }

    @Test func eachMethodsOwnFixesGetALineTheEstimatesAndTruthDoNotShare() throws {
        let samples = (0..<12).map { (t: Int) -> SVGPlot.TrackSample in
            var s = sample(Double(t), 600 + Double(t) * 100, 1200, map: "J3NP")
            s.methods = [("beacons", s.x, s.y + 40), ("wknn", s.x, s.y - 40)]
            return s
        }
        let elements = try SVGElements.parse(SVGPlot.track(title: "t", samples: samples,
                                                           floors: [.init(map: "J3NP", width: 2500, height: 3000)], metersPerUnit: 0.02))
        let methods = elements.filter { $0.name == "polyline" && $0.ancestors.last?["class"] == "method" }
        #expect(methods.count == 2 && methods.allSatisfy { $0.polyline.count == 12 })
        // 40 units (11.2 px) below and above the estimates, as given.
        let estimate = try #require(elements.with(class: "estimate").first)
        #expect(abs(methods[0].polyline[0].y - estimate.polyline[0].y - 11.2) < 0.1)
        var looks: [String] = []
        for e in [try #require(elements.with(class: "truth").first), estimate] + methods {
            looks.append("\(e.attributes["stroke-width"] ?? "1")/\(e.attributes["stroke-dasharray"] ?? "solid")")
        }
        #expect(Set(looks).count == 4, "\(looks)")
        let legend: [String] = elements.filter { $0.ancestors.last?["class"] == "legend" }.map { $0.text }
        #expect(legend.contains("fixes of beacons alone") && legend.contains("fixes of wknn alone"))
    }
}
