import FPCore
import Foundation
import Synchronization

/// Output plumbing: data goes to stdout, messages and progress to stderr.
enum Terminal {
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
    static var stdinIsTTY: Bool { isatty(STDIN_FILENO) == 1 }

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes lines gathered in `bytes` at once, and empties it for more.
    static func out(bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }

    /// A message on its own line: a progress line left open (Ctrl-C mid-run)
    /// is ended first, not written over.
    static func err(_ line: String) {
        let prefix = statusOpen.exchange(false, ordering: .relaxed) ? "\n" : ""
        FileHandle.standardError.write(Data((prefix + line + "\n").utf8))
    }

    /// Rewrites the current stderr line (TTY progress), cut to the
    /// terminal's width: a longer line wraps, and every rewrite then leaves
    /// its first rows behind.
    static func status(_ line: String) {
        statusOpen.store(true, ordering: .relaxed)
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + StatusLine.cut(line, to: columns)).utf8))
    }

    /// The terminal's width in columns (stderr's), 80 when it cannot be told.
    static var columns: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    static func endStatus() {
        statusOpen.store(false, ordering: .relaxed)
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// Clears the progress line if one is on screen.
    static func endStatusIfOpen() {
        if statusOpen.exchange(false, ordering: .relaxed) { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// Whether a progress line is on screen without its newline.
    private static let statusOpen = Atomic(false)

    /// "1 document", "3 documents": a count with its noun in the right number.
    static func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
    }

    /// Left-aligned columns, widths from the content.
    /// Cells come from documents and gateways: their control characters are escaped.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let rows = rows.map { $0.map(ControlText.escaped) }
        var widths = header.map(\.count)
        for row in rows { for (i, c) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            var text = cells.enumerated().map { i, c in
                let pad = String(repeating: " ", count: max(0, widths[i] - c.count))
                return rightAligned.contains(i) ? pad + c : c + pad
            }.joined(separator: "  ")
            // Trailing spaces only: a right-aligned first column keeps its pad.
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(header)] + rows.map(line)
    }
}
