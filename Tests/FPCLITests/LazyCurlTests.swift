import Foundation
import Testing

/// libcurl and its ~30 libraries are loaded only by commands that speak HTTP
/// (`CCurl`): the dynamic loader's own log says which objects a run opened.
@Suite struct LazyCurlTests {
    func loadedObjects(_ arguments: [String]) async throws -> (status: Int32, log: String) {
        var fp = try FprintRunner()
        fp.environment["LD_DEBUG"] = "files"
        let r = try await fp.run(arguments)
        return (r.status, r.stderr)
    }

    @Test func commandsWithoutHTTPNeverLoadLibcurl() async throws {
        let version = try await loadedObjects(["--version"])
        #expect(version.status == 0)
        #expect(version.log.contains("file="), "LD_DEBUG gave no log: \(version.log.prefix(300))")
        #expect(!version.log.contains("libcurl"), "fprint --version loaded libcurl")

        let list = try await loadedObjects(["list", "--db", "/nonexistent/fprint.sqlite"])
        #expect(list.status == 66)
        #expect(!list.log.contains("libcurl"), "fprint list loaded libcurl")
    }

    @Test func syncLoadsItAndSaysWhyWhenNoGatewayAnswers() async throws {
        // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
        let sync = try await loadedObjects(["sync", "--gateway", "http://127.0.0.1:9/fprint", "--token", "t"])
        #expect(sync.log.contains("libcurl.so.4"), "fprint sync did not load libcurl")
        #expect(sync.status == 75, "\(sync.log.split(separator: "\n").filter { !$0.contains("file=") && !$0.contains("calling") }.suffix(3))")
    }
}
