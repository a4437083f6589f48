import Foundation

/// Output plumbing: data goes to stdout, messages and progress to stderr.
enum Terminal {
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Rewrites the current stderr line (TTY progress).
    static func status(_ line: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
    }

    static func endStatus() {
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// Left-aligned columns, widths from the content.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        var widths = header.map(\.count)
        for row in rows { for (i, c) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                let pad = String(repeating: " ", count: max(0, widths[i] - c.count))
                return rightAligned.contains(i) ? pad + c : c + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return [line(header)] + rows.map(line)
    }
}
