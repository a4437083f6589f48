import FPStore
import Foundation
import Testing

/// `fprint import` reads JSON lines a chunk at a time (issue 33): a file of
/// several MiB imports whole, and a bad line in its middle, met after
/// batches were already converted and written into the transaction, still
/// stores nothing and is named by its line.
@Suite struct StreamedImportCLITests {
    /// `count` documents of ~9 KB each as JSON lines; `replace` puts other text on a line (0-based).
    static func lines(_ count: Int, replace: [Int: String] = [:]) -> String {
        (0..<count).map { i in
            replace[i] ?? #"{"_id":"m\#(i)","x":\#(i % 100),"y":2,"level":"J1NP","note":"\#(String(repeating: "n", count: 9000))"}"#
        }.joined(separator: "\n") + "\n"
    }

    @Test func aLargeFileImportsWhole() async throws {
        let fp = try FprintRunner()
        let file = fp.home.appendingPathComponent("big.jsonl")
        try Self.lines(600).write(to: file, atomically: true, encoding: .utf8)  // ~5.4 MB: five chunks and more
        let r = try await fp.run(["import", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("(jsonl): imported 600, already present 0, passed over 0"), "\(r.stderr)")
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 600)
    }

    @Test func brokenJSONInTheMiddleStoresNothing() async throws {
        let fp = try FprintRunner()
        let file = fp.home.appendingPathComponent("broken.jsonl")
        try Self.lines(600, replace: [450: #"{"_id":"m450","x":1,"y":2,oops}"#]).write(to: file, atomically: true, encoding: .utf8)
        let r = try await fp.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(file.path): line 451, column 27: not valid JSON (unexpected \"o\" where a key in double quotes should be)\n")
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)  // not even the 450 before it
    }

    @Test func anUnusableDocumentInTheMiddleStoresNothing() async throws {
        let fp = try FprintRunner()
        let file = fp.home.appendingPathComponent("unusable.jsonl")
        try Self.lines(600, replace: [500: #"{"_id":"m500","x":"far","y":2}"#]).write(to: file, atomically: true, encoding: .utf8)
        let r = try await fp.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(file.path): line 501.x: expected a whole number of map units, found \"far\"\n")
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)
    }
}
