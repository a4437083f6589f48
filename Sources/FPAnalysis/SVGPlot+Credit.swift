import Foundation

extension SVGPlot {
    /// `svg` (one of `document`'s) with `lines` written under it in small
    /// grey type, the drawing made taller to hold them: a dataset's licence
    /// asks that whoever shows its data credits it, also on a copied figure.
    package static func credited(_ svg: String, lines: [String]) -> String {
        guard !lines.isEmpty,
              let open = svg.range(of: #"width="(\d+)" height="(\d+)" viewBox="0 0 \d+ \d+""#, options: .regularExpression),
              let close = svg.range(of: "</svg>", options: .backwards)
        else { return svg }
        let numbers = svg[open].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count >= 2 else { return svg }
        let (width, height) = (numbers[0], numbers[1])
        // About 5.6 px a character at 10 px: wrap at words to stay inside the drawing.
        let perLine = max(20, Int(Double(width - 20) / 5.6))
        let wrapped = lines.flatMap { wrap($0, at: perLine) }
        let added = 14 * wrapped.count + 8
        let grown = height + added
        var strip = ["<g class=\"credit\" font-size=\"10\" fill=\"#444\">",
                     "<rect x=\"0\" y=\"\(height)\" width=\"\(width)\" height=\"\(added)\" fill=\"white\"/>"]
        for (n, line) in wrapped.enumerated() {
            strip.append("<text x=\"10\" y=\"\(height + 12 + 14 * n)\">\(escape(line))</text>")
        }
        strip.append("</g>")
        return String(svg[..<open.lowerBound]) + "width=\"\(width)\" height=\"\(grown)\" viewBox=\"0 0 \(width) \(grown)\""
            + svg[open.upperBound..<close.lowerBound] + strip.joined(separator: "\n") + "\n</svg>" + svg[close.upperBound...]
    }

    /// `text` broken at spaces into lines of at most `limit` characters (a longer word stays whole).
    static func wrap(_ text: String, at limit: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > limit {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
