/// A progress line made of parts, most important first, that fits a
/// terminal: parts are left out from the least important until the line
/// fits, and what is still too long is cut with an ellipsis.
struct StatusLine {
    static let separator = "  "

    /// A part of the line and how much it matters (0 most; higher ones are
    /// left out first).
    struct Part {
        let text: String
        let rank: Int
    }

    /// The parts that fit in `width - 1` columns (the last column would wrap
    /// on some terminals), in their given order.
    static func fit(_ parts: [Part], width: Int, separator: String = separator) -> String {
        var kept = parts.filter { !$0.text.isEmpty }
        func line() -> String { kept.map(\.text).joined(separator: separator) }
        while kept.count > 1, columns(line()) > width - 1,
              let least = kept.indices.max(by: { kept[$0].rank < kept[$1].rank }) {
            kept.remove(at: least)
        }
        return cut(line(), to: width)
    }

    /// `line` in at most `width - 1` columns.
    static func cut(_ line: String, to width: Int) -> String {
        let room = max(width - 1, 1)
        guard columns(line) > room else { return line }
        var out = ""
        for c in line {
            if columns(out) + 2 > room { break }
            out.append(c)
        }
        return out + "…"
    }

    /// Columns taken on a terminal: one per character (the arrows and
    /// middle dots used here are all narrow).
    static func columns(_ text: String) -> Int { text.count }
}
