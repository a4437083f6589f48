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
    /// is ended first, not written over; a live table above it
    /// (`statusBlock`) is taken away, the progress line kept.
    static func err(_ line: String) {
        live.withLock { screen in
            var text = ""
            if screen.statusOpen {
                text = screen.tableRows > 0 ? screen.erasingTable() : ""
                text += "\n"
            }
            screen = LiveScreen()
            FileHandle.standardError.write(Data((text + line + "\n").utf8))
        }
    }

    /// Rewrites the current stderr line (TTY progress), cut to the
    /// terminal's width: a longer line wraps, and every rewrite then leaves
    /// its first rows behind.
    static func status(_ line: String) {
        let cut = StatusLine.cut(line, to: columns)
        live.withLock { screen in
            screen.statusOpen = true
            screen.status = cut
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + cut).utf8))
        }
    }

    /// Draws `rows` (each already fitted to the width) above the progress
    /// line `status`, over the rows drawn there before, in one write: the
    /// progress line is rewritten in place as `status` does, never blanked
    /// for long enough to flicker.
    static func statusBlock(rows: [String], status line: String) {
        let cut = StatusLine.cut(line, to: columns)
        live.withLock { screen in
            var text = "\r"
            if screen.tableRows > 0 { text += "\u{1B}[\(screen.tableRows)A" }
            for row in rows { text += "\u{1B}[2K" + row + "\n" }
            // Erase to the end of the screen: fewer rows than before leave none behind.
            text += "\u{1B}[J" + cut
            screen = LiveScreen(statusOpen: true, status: cut, tableRows: rows.count)
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// The terminal's width in columns (stderr's), 80 when it cannot be told.
    static var columns: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// The terminal's height in rows (stderr's), 24 when it cannot be told.
    static var rows: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }

    /// Clears the progress line, and a live table above it.
    static func endStatus() {
        live.withLock { screen in
            let text = screen.tableRows > 0 ? "\r\u{1B}[\(screen.tableRows)A\u{1B}[J" : "\r\u{1B}[2K"
            screen = LiveScreen()
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// Clears the progress line (and a live table) if one is on screen.
    static func endStatusIfOpen() {
        guard live.withLock({ $0.statusOpen }) else { return }
        endStatus()
    }

    /// What is on screen without its newline: the progress line, the table above it.
    private static let live = Mutex(LiveScreen())

    private struct LiveScreen {
        var statusOpen = false
        var status = ""
        /// Rows of a live table drawn above the progress line.
        var tableRows = 0

        /// Moves up over the table, erases it and everything below, and
        /// writes the progress line again where the table began.
        func erasingTable() -> String {
            "\r\u{1B}[\(tableRows)A\u{1B}[J" + status
        }
    }

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
