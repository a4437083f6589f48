@testable import FPCore
import FPTestSupport
import Foundation
import Testing

/// `LegacyImport.LineStream` reads JSON lines a chunk (1 MiB) at a time:
/// the documents, their order, what is passed over and the errors must be
/// those of reading the file whole.
@Suite struct LineStreamTests {
    let prague = TimeZone(identifier: "Europe/Prague")!
    let at = Date(timeIntervalSince1970: 1_800_000_000)

    func file(_ text: String) throws -> (path: String, folder: URL) {
        let folder = try makeTemporaryFolder("line-stream")
        let path = folder.appendingPathComponent("dump.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (path, folder)
    }

    /// Every document of the stream, and how many were passed over.
    func streamed(_ stream: LegacyImport.LineStream) throws -> ([NewDocument], Int) {
        var documents: [NewDocument] = [], skipped = 0
        let converter = stream.converter
        while case let lines = try stream.nextLines(7), !lines.isEmpty {
            for line in lines {
                if let d = try converter.document(line) { documents.append(d) } else { skipped += 1 }
            }
        }
        return (documents, skipped)
    }

    /// ~2 MB of lines of ~6.6 KB: lines cross chunk boundaries; blank,
    /// indented and CRLF lines, and a design document (passed over).
    var largeText: String {
        var lines: [String] = []
        for i in 0..<300 {
            let scans = (0..<120).map { #"{"address":"C5:D5:21:51:00:\#(String(format: "%02X", $0))","rssi":"-6\#($0 % 10)","time":\#($0)}"# }
            var line = #"{"_id":"m\#(i)","x":\#(i),"y":"2","bleScans":[\#(scans.joined(separator: ","))]}"#
            if i % 50 == 7 { line = "   " + line + "\r" }
            lines.append(line)
            if i % 40 == 3 { lines.append("") }
            if i == 150 { lines.append(#"{"_id":"_design/v","x":1,"y":1}"#) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func aLineAtATimeGivesWhatTheWholeReadingGives() throws {
        let text = largeText
        let (path, folder) = try file(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(text.utf8.count > (1 << 20))
        // What `fprint import` read before: the whole file, its lines found by `Source`
        let whole = try LegacyImport.Source(Data(text.utf8), source: path, timeZone: prague, importedAt: at)
        #expect(whole.format == .jsonl)
        var expected: [NewDocument] = []
        for i in 0..<whole.count { if let d = try whole.document(at: i) { expected.append(d) } }
        let stream = try #require(try LegacyImport.LineStream.open(path: path, source: path, timeZone: prague, importedAt: at))
        let (documents, skipped) = try streamed(stream)
        #expect(documents.count == 300 && skipped == 1 && whole.count - expected.count == 1)
        #expect(documents == expected)
    }

    /// Lines longer than several chunks: each read goes on searching for
    /// the newline where the last search stopped, also after the lines
    /// handed out are dropped from the buffer.
    @Test func linesOfSeveralChunksAreFoundWhole() throws {
        let lines = (0..<4).map { i in
            #"{"_id":"long\#(i)","x":\#(i),"y":2,"note":"\#(String(repeating: "n", count: (5 << 19) + i * 7919))"}"#
        }
        let text = lines.joined(separator: "\n") + "\n"
        let (path, folder) = try file(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try LegacyImport.Source(Data(text.utf8), source: path, timeZone: prague, importedAt: at)
        var expected: [NewDocument] = []
        for i in 0..<whole.count { if let d = try whole.document(at: i) { expected.append(d) } }
        let stream = try #require(try LegacyImport.LineStream.open(path: path, source: path, timeZone: prague, importedAt: at))
        let (documents, _) = try streamed(stream)
        #expect(documents.map(\.id) == ["long0", "long1", "long2", "long3"])
        #expect(documents == expected)
        // One such line alone is a document, not JSON lines.
        let (single, singleFolder) = try file(lines[0] + "\n")
        defer { try? FileManager.default.removeItem(at: singleFolder) }
        #expect(try LegacyImport.LineStream.open(path: single, source: single) == nil)
    }

    @Test func otherShapesAreLeftToTheWholeReading() throws {
        for text in ["{\n  \"x\": 1,\n  \"y\": 2\n}\n",  // one document over several lines
                     #"{"x":1,"y":2}"# + "\n\n",  // one line only
                     #"{"rows":[{"id":"a","value":{"x":1,"y":2}}]}"#,
                     "[{\"x\":1,\"y\":2},\n{\"x\":3,\"y\":4}]\n",  // an array over two lines
                     ""] {
            let (path, folder) = try file(text)
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(try LegacyImport.LineStream.open(path: path, source: path) == nil, "\(text)")
        }
    }

    @Test func aBadLineInTheMiddleIsNamedAsTheWholeReadingNamesIt() throws {
        var lines = (0..<500).map { #"{"_id":"m\#($0)","x":\#($0),"y":2,"note":"\#(String(repeating: "n", count: 4000))"}"# }
        lines[321] = #"{"_id":"m321","x":1,"y":2,broken}"#
        let text = lines.joined(separator: "\n") + "\n"
        let (path, folder) = try file(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stream = try #require(try LegacyImport.LineStream.open(path: path, source: "d.jsonl"))
        var thrown: LegacyImport.ImportError?
        do { _ = try streamed(stream) } catch let e as LegacyImport.ImportError { thrown = e }
        let expected = #"d.jsonl: line 322, column 27: not valid JSON (unexpected "b" where a key in double quotes should be)"#
        #expect(thrown?.description == expected)
        #expect(throws: LegacyImport.ImportError(expected)) { try LegacyImport.parse(Data(text.utf8), source: "d.jsonl") }
    }
}
