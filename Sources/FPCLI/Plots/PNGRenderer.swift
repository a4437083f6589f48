import FPLinuxRadios
import Foundation

/// SVG to PNG through librsvg's `rsvg-convert` (Debian: librsvg2-bin), a
/// real rasteriser: fprint draws every plot as SVG text and lets librsvg
/// turn it into pixels, rather than carrying a renderer of its own.
enum PNGRenderer {
    /// Renders `svg` into `path`, whole or not at all (a temporary file beside it, then renamed).
    static func render(_ svg: String, to path: String) throws {
        guard let tool = ProcessRunner(tool: "rsvg-convert").executable else {
            throw CommandFailure("\(path): PNG needs rsvg-convert (librsvg; Debian: apt install librsvg2-bin), or write an .svg file",
                                 .unavailable)
        }
        let target = URL(fileURLWithPath: path)
        let partial = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).partial")
        defer { try? FileManager.default.removeItem(at: partial) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--format", "png", "--output", partial.path]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw CommandFailure("\(tool): cannot run: \(error.localizedDescription)", .unavailable)
        }
        // The SVG goes in while the tool runs; its complaints are read after.
        input.fileHandleForWriting.write(Data(svg.utf8))
        try? input.fileHandleForWriting.close()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let why = complaint.split(separator: "\n").first.map(String.init) ?? "exit \(process.terminationStatus)"
            throw CommandFailure("\(path): rsvg-convert could not render the plot: \(why)", .ioError)
        }
        guard rename(partial.path, target.path) == 0 else {
            throw CommandFailure("\(path): cannot write the file: \(String(cString: strerror(errno)))", .ioError)
        }
    }
}
