import Foundation

/// How one series of a multi-series plot is told apart from the others
/// without colour: a colour, a dash pattern and a marker shape, which cycle
/// at different lengths (10, 5 and 6), so the first 30 series differ in
/// dash or marker even when printed in grey. Legends draw a sample of each.
extension SVGPlot {
    package struct SeriesStyle: Sendable, Equatable {
        package var color: String
        /// An SVG `stroke-dasharray`, or nil for a solid line.
        package var dash: String?
        package var marker: Marker

        package enum Marker: String, Sendable, CaseIterable {
            case circle, square, triangle, diamond, cross, plus
        }
    }

    static let dashes: [String?] = [nil, "7 3", "2 2", "9 3 2 3", "4 4"]

    package static func seriesStyle(_ i: Int) -> SeriesStyle {
        SeriesStyle(color: palette[i % palette.count], dash: dashes[i % dashes.count],
                    marker: SeriesStyle.Marker.allCases[i % SeriesStyle.Marker.allCases.count])
    }

    /// `stroke` and `stroke-dasharray` attributes of a series' line.
    static func strokeAttributes(_ style: SeriesStyle, width: Double = 1.5) -> String {
        "stroke=\"\(style.color)\" stroke-width=\"\(f(width))\"" + (style.dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")
    }

    /// The marker centred at (x, y), `r` its half-size; hollow shapes keep what is under them readable.
    static func marker(_ style: SeriesStyle, x: Double, y: Double, r: Double = 3.5) -> String {
        let c = style.color
        let shape: String
        switch style.marker {
        case .circle:
            shape = "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(r))\" fill=\"\(c)\"/>"
        case .square:
            shape = "<rect x=\"\(f(x - r))\" y=\"\(f(y - r))\" width=\"\(f(2 * r))\" height=\"\(f(2 * r))\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\"/>"
        case .triangle:
            shape = "<path d=\"M\(f(x)) \(f(y - r))L\(f(x + r)) \(f(y + r))L\(f(x - r)) \(f(y + r))Z\" fill=\"\(c)\"/>"
        case .diamond:
            shape = "<path d=\"M\(f(x)) \(f(y - r))L\(f(x + r)) \(f(y))L\(f(x)) \(f(y + r))L\(f(x - r)) \(f(y))Z\" fill=\"white\" stroke=\"\(c)\" stroke-width=\"1.5\"/>"
        case .cross:
            shape = "<path d=\"M\(f(x - r)) \(f(y - r))L\(f(x + r)) \(f(y + r))M\(f(x - r)) \(f(y + r))L\(f(x + r)) \(f(y - r))\" stroke=\"\(c)\" stroke-width=\"1.8\"/>"
        case .plus:
            shape = "<path d=\"M\(f(x - r)) \(f(y))L\(f(x + r)) \(f(y))M\(f(x)) \(f(y - r))L\(f(x)) \(f(y + r))\" stroke=\"\(c)\" stroke-width=\"1.8\"/>"
        }
        return shape
    }

    /// A legend row: a line sample in the series' dash with its marker, then the label in black.
    static func legendEntry(_ style: SeriesStyle, x: Double, y: Double, label: String) -> String {
        "<g class=\"legend-entry\"><line x1=\"\(f(x))\" y1=\"\(f(y - 4))\" x2=\"\(f(x + 28))\" y2=\"\(f(y - 4))\" \(strokeAttributes(style, width: 2))/>"
            + marker(style, x: x + 14, y: y - 4) + "<text x=\"\(f(x + 34))\" y=\"\(f(y))\">\(escape(label))</text></g>"
    }

    /// About `count` evenly spread indexes of `n` points, for markers along a long line.
    static func markerIndexes(_ n: Int, count: Int = 8) -> [Int] {
        guard n > 0 else { return [] }
        if n <= count { return Array(0..<n) }
        return (0..<count).map { Int((Double($0) + 0.5) / Double(count) * Double(n)) }
    }
}
