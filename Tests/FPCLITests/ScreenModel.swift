import Foundation

/// What a terminal shows after a program's output, for the sequences fprint
/// writes: text, \r, \n, CSI n A (cursor up), CSI 2K (erase the line), CSI J
/// (erase to the end of the screen); other CSI sequences are passed over.
/// Lines are kept without a bottom (no scrolling away): a live table must
/// be taken away by the program itself. Any character written at or past
/// `width` (where a real terminal would wrap) puts its line (as far as
/// written then) in `overflows`.
struct ScreenModel {
    let width: Int
    private(set) var lines: [[Character]] = [[]]
    private(set) var row = 0
    private(set) var column = 0
    /// Lines that reached the terminal's width, as written.
    private(set) var overflows: [String] = []

    init(width: Int, output: String) {
        self.width = width
        var chars = Array(output)[...]
        while let c = chars.popFirst() {
            switch c {
            case "\r": column = 0
            case "\n", "\r\n":
                // A pty's output post-processing turns \n into \r\n.
                row += 1
                column = c == "\r\n" ? 0 : column
                if row == lines.count { lines.append([]) }
            case "\u{1B}":
                guard chars.first == "[" else { continue }
                chars.removeFirst()
                var parameter = ""
                while let p = chars.first, p.isNumber || p == ";" || p == "?" { parameter.append(chars.removeFirst()) }
                guard let final = chars.popFirst() else { break }
                csi(final, parameter)
            default:
                write(c)
            }
        }
    }

    private mutating func csi(_ final: Character, _ parameter: String) {
        switch final {
        case "A": row = max(0, row - (Int(parameter) ?? 1))
        case "K" where parameter == "2": lines[row] = []
        case "K": lines[row] = Array(lines[row].prefix(column))
        case "J":
            lines[row] = Array(lines[row].prefix(column))
            lines.removeSubrange((row + 1)...)
        default: break
        }
    }

    private mutating func write(_ c: Character) {
        if column == width { overflows.append(String(lines[row])) }
        while lines[row].count < column { lines[row].append(" ") }
        if column < lines[row].count { lines[row][column] = c } else { lines[row].append(c) }
        column += 1
    }

    /// The screen's lines, trailing blanks dropped.
    var text: [String] {
        lines.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
    }
}

/// Text without its ANSI escape sequences (CSI … letter).
func strippingEscapes(_ text: String) -> String {
    text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
}
