import Foundation

extension SVGPlot {
    /// The track's lines' looks, told apart in grey too: by width, dash and marker.
    enum TrackLook {
        static let truth = "stroke=\"#999\" stroke-width=\"4\""
        static let estimate = "stroke=\"#1f77b4\" stroke-width=\"1.5\""
        static let surveyed = "stroke=\"#2ca02c\" stroke-width=\"1.5\" stroke-dasharray=\"7 4\""
        static let error = "stroke=\"#d62728\" stroke-width=\"1.5\""
        static let accuracy = "stroke=\"#555\" stroke-width=\"1.2\" stroke-dasharray=\"4 3\""
        static let reportedChange = "stroke=\"#000\" stroke-width=\"1.2\" stroke-dasharray=\"2 3\""
        static let trueChange = "stroke=\"#9467bd\" stroke-width=\"2.5\" stroke-dasharray=\"9 4\""
    }

    /// The error and the stated accuracy over time, each line broken where a
    /// position is missing (`gaps`: a hole after that sample) or has no value;
    /// the floor changes as vertical lines, the reported (`changes`) dotted
    /// and the true (`trueChanges`) long-dashed, each named by the floor
    /// arrived at where the label covers no line and no other label.
    static func trackTimePanel(_ samples: [TrackSample], changes: [Int], trueChanges: [Int], gaps: Set<Int>,
                               floors: [TrackFloor], left: Double, top: Double, width: Double) -> [String] {
        let height = 160.0
        let t1 = max(1, samples.map(\.timeS).max() ?? 1)
        let e1 = max(1, (samples.compactMap(\.errorM) + samples.compactMap(\.accuracyM)).max() ?? 1)
        let (lines, px, py) = axes(x0: 0, x1: t1, y0: 0, y1: e1, width: width, height: height, left: left, top: top,
                                   xLabel: "time (s)", yLabel: "metres")
        var body = lines
        var placer = SVGLabelPlacer(frame: .init(x0: left + 1, y0: top, x1: left + width, y1: top + height))
        for (cssClass, value, look, name) in [("error", \TrackSample.errorM, TrackLook.error, "error (m)"),
                                              ("accuracy", \TrackSample.accuracyM, TrackLook.accuracy, "stated accuracy (m)")] {
            for run in runs(samples, value: value, gaps: gaps) {
                let xy = run.map { (x: px(samples[$0].timeS), y: py(samples[$0][keyPath: value]!)) }
                if xy.count == 1 {
                    body.append("<circle class=\"\(cssClass)\" cx=\"\(f(xy[0].x))\" cy=\"\(f(xy[0].y))\" r=\"1.5\" fill=\"#555\"><title>\(name)</title></circle>")
                } else {
                    body.append("<polyline class=\"\(cssClass)\" fill=\"none\" \(look) points=\"\(xy.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " "))\"><title>\(name)</title></polyline>")
                }
                placer.add(polyline: xy, width: 1.5)
            }
        }
        let floorName = { (i: Int, truth: Bool) in (truth ? samples[i].truthMap : nil) ?? samples[i].map ?? floors.first?.map ?? "" }
        var labels: [(text: String, x: Double, cssClass: String)] = []
        for (list, cssClass, look, word) in [(changes, "floor-change-time", TrackLook.reportedChange, "reported"),
                                             (trueChanges, "true-floor-change-time", TrackLook.trueChange, "true")] {
            for i in list {
                let x = px(samples[i].timeS)
                body.append("<line class=\"\(cssClass)\" x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + height))\" \(look)/>")
                placer.add(.segment(x1: x, y1: top, x2: x, y2: top + height, width: 2.5))
                labels.append(("\(word) → \(floorName(i, word == "true"))", x, cssClass + "-label"))
            }
        }
        for l in labels {
            body.append(SVGLabelPlacer.svg(l.text, at: placer.place(l.text, near: l.x, top + 9, gap: 4), color: "#000", cssClass: l.cssClass))
        }
        // The legend above the panel: a sample of each line, then what it is.
        var x = left + 10
        var legend = ["<g class=\"legend\">"]
        var entries = [(TrackLook.error, "error from the true position"), (TrackLook.accuracy, "stated accuracy (the filter's own)")]
        if !changes.isEmpty { entries.append((TrackLook.reportedChange, "reported floor change")) }
        if !trueChanges.isEmpty { entries.append((TrackLook.trueChange, "true floor change")) }
        for (look, text) in entries {
            legend.append("<line x1=\"\(f(x))\" y1=\"\(f(top - 10))\" x2=\"\(f(x + 24))\" y2=\"\(f(top - 10))\" \(look)/>")
            legend.append("<text x=\"\(f(x + 29))\" y=\"\(f(top - 6))\">\(escape(text))</text>")
            x += 29 + SVGLabelPlacer.textWidth(text, size: 12) + 14
        }
        return body + legend + ["</g>"]
    }

    /// Runs of consecutive samples that have a `value`, broken at `gaps`.
    static func runs(_ samples: [TrackSample], value: KeyPath<TrackSample, Double?>, gaps: Set<Int>) -> [[Int]] {
        var runs: [[Int]] = []
        var open = false
        for i in samples.indices {
            guard samples[i][keyPath: value] != nil else {
                open = false
                continue
            }
            if open { runs[runs.count - 1].append(i) } else { runs.append([i]) }
            open = !gaps.contains(i)
        }
        return runs
    }

    /// Under the map panels: a sample of each mark drawn, then what it is.
    /// Entries that would pass `right` start a second row.
    static func trackLegend(left: Double, y: Double, right: Double, methods: [String] = [], circled: Int, changed: Bool, surveyed: Bool,
                            outside: Int) -> [String] {
        var items = ["<g class=\"legend\">"]
        var x = left, y = y
        var mid: Double { y - 4 }
        func entry(_ sample: () -> String, _ text: String) {
            let needed = 30 + SVGLabelPlacer.textWidth(text, size: 12)
            if x > left && x + needed > right {
                x = left
                y += 18
            }
            items.append(sample())
            items.append("<text x=\"\(f(x + 30))\" y=\"\(f(y))\">\(escape(text))</text>")
            x += needed + 12
        }
        entry({ "<line x1=\"\(f(x))\" y1=\"\(f(mid))\" x2=\"\(f(x + 24))\" y2=\"\(f(mid))\" \(TrackLook.truth)/>" }, "true path")
        entry({ "<line x1=\"\(f(x))\" y1=\"\(f(mid))\" x2=\"\(f(x + 24))\" y2=\"\(f(mid))\" \(TrackLook.estimate)/>"
            + "<circle cx=\"\(f(x + 12))\" cy=\"\(f(mid))\" r=\"2.5\" fill=\"#1f77b4\"/>" }, "estimates")
        for (k, name) in methods.enumerated() {
            let style = methodStyle(k)
            entry({ "<line x1=\"\(f(x))\" y1=\"\(f(mid))\" x2=\"\(f(x + 24))\" y2=\"\(f(mid))\" \(strokeAttributes(style, width: 1.5))/>"
                + marker(style, x: x + 12, y: mid, r: 3) }, "fixes of \(name) alone")
        }
        if surveyed {
            entry({ "<line x1=\"\(f(x))\" y1=\"\(f(mid))\" x2=\"\(f(x + 24))\" y2=\"\(f(mid))\" \(TrackLook.surveyed)/>" }, "surveyed route")
        }
        if circled > 0 {
            entry({ "<circle cx=\"\(f(x + 12))\" cy=\"\(f(mid))\" r=\"7\" fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"/>" },
                  "stated accuracy of \(circled) position\(circled == 1 ? "" : "s") (– – to the truth)")
        }
        if changed {
            entry({ "<rect x=\"\(f(x + 7))\" y=\"\(f(mid - 5))\" width=\"10\" height=\"10\" fill=\"#000\"/>" }, "floor change")
        }
        if outside > 0 {
            entry({ "" }, "(\(outside) estimates off the map, cut at its edge)")
        }
        return items + ["</g>"]
    }
}
