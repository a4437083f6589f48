@testable import FPStore
import Foundation
import Testing

/// A file fprint says it wrote survives a power cut only if its directory is
/// fsynced after the rename that put it in place (issue 61 item 2). Traced
/// with the real strace: the config a `map add` rewrote and the credential
/// ledger a token revocation rewrote are each flushed, renamed, then their
/// folder flushed, before the command exits 0.
@Suite struct DurableRenameCLITests {
    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs fprint under strace; the trace's lines.
    static func traced(_ fp: FprintRunner, _ arguments: [String]) async throws -> (status: Int32, stderr: String, trace: [String]) {
        let log = fp.home.appendingPathComponent("trace-\(UUID().uuidString).txt").path
        let r = try await FprintRunner.runProcess(
            URL(fileURLWithPath: try #require(strace)),
            ["-f", "-qq", "-o", log, "-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2,close",
             try FprintRunner.executable().path] + arguments,
            environment: fp.environment, directory: fp.home)
        let trace = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        return (r.status, r.stderr, trace)
    }

    /// The trace's renames onto a file named `name`: each line's index and the target path.
    static func renames(onto name: String, in trace: [String]) -> [(index: Int, target: String)] {
        trace.enumerated().compactMap { n, line in
            guard line.contains("rename"), line.hasSuffix("= 0") else { return nil }
            let quoted = line.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            guard let target = quoted.last, target.hasSuffix("/" + name) || target == name else { return nil }
            return (n, target)
        }
    }

    /// Whether, after line `index`, the folder of `target` is opened as a directory and that descriptor fsynced.
    static func folderSynced(after index: Int, target: String, in trace: [String]) -> Bool {
        let folder = (target as NSString).deletingLastPathComponent
        for line in trace[(index + 1)...] where line.contains("openat(") && line.contains("\"\(folder)\"") && line.contains("O_DIRECTORY") {
            guard let fd = line.components(separatedBy: "= ").last.flatMap({ Int($0) }) else { continue }
            if trace.contains(where: { $0.contains("fsync(\(fd))") && $0.hasSuffix("= 0") }) { return true }
        }
        return false
    }

    /// Whether the temporary file renamed at `index` was fsynced before it.
    static func contentSynced(before index: Int, in trace: [String]) -> Bool {
        let quoted = trace[index].components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        guard let temporary = quoted.first else { return false }
        for line in trace[..<index] where line.contains("openat(") && line.contains("\"\(temporary)\"") {
            guard let fd = line.components(separatedBy: "= ").last.flatMap({ Int($0) }) else { continue }
            if trace[..<index].contains(where: { $0.contains("fsync(\(fd))") && $0.hasSuffix("= 0") }) { return true }
        }
        return false
    }

    @Test(.enabled(if: strace != nil || ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1", "needs strace"))
    func aConfigWriteIsFlushedRenamedAndItsFolderFlushed() async throws {
        let fp = try FprintRunner()
        let add = try await Self.traced(fp, ["map", "add", "LAB1", "--image", StairsWalkCLITests.plan, "--floor", "1",
                                             "--calibrate", "100,100 1100,100 25m"])
        #expect(add.status == 0, "\(add.stderr)")
        let renamed = Self.renames(onto: "app-config.json", in: add.trace)
        let last = try #require(renamed.last, "map add renames a new app config into place: \(add.trace.filter { $0.contains("rename") })")
        #expect(Self.contentSynced(before: last.index, in: add.trace), "the new config's bytes are flushed before the rename")
        #expect(Self.folderSynced(after: last.index, target: last.target, in: add.trace),
                "the config's folder is fsynced after the rename: \(add.trace.suffix(from: last.index).prefix(12))")
    }

    /// A rescue file is new, not renamed: its name is durable only once its folder is fsynced, before it is reported.
    @Test(.enabled(if: strace != nil || ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1", "needs strace"))
    func aRescueFileIsFlushedAndItsFolderFlushedBeforeItIsReported() async throws {
        let fp = try FprintRunner()
        #expect(try await storeThatFillsUp(fp))
        let measured = try await Self.traced(fp, ["measure", "--map", "J1NP", "--x", "2", "--y", "2", "--simulate", "--fast", "--duration", "5"])
        let match = try #require(measured.stderr.firstMatch(of: /saved in (\S+\.jsonl)/), "\(measured.stderr)")
        let rescue = String(match.1)
        let created = try #require(measured.trace.firstIndex { $0.contains("openat(") && $0.contains("\"\(rescue)\"") && $0.contains("O_CREAT") })
        // contentSynced reads the file's name from a rename line: one made up after the trace's end.
        let extended = measured.trace + ["rename(\"\(rescue)\", \"reported\") = 0"]
        #expect(Self.contentSynced(before: extended.count - 1, in: extended), "the rescue file's bytes are flushed")
        #expect(Self.folderSynced(after: created, target: rescue, in: measured.trace), "the rescue file's folder is fsynced")
    }

    @Test(.enabled(if: strace != nil || ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1", "needs strace"))
    func aRevocationIsDurableBeforeItIsReported() async throws {
        let fp = try FprintRunner()
        let secret = ["--secret-file", fp.home.appendingPathComponent("secret").path]
        let issued = try await fp.run(["gateway", "token", "--user", "bob", "--ttl", "1d", "--token-only"] + secret)
        #expect(issued.status == 0, "\(issued.stderr)")
        let list = try await fp.run(["gateway", "token", "--list", "--json"] + secret)
        let first = try #require(list.lines.first)
        let id = try #require(try fp.json(first)["id"] as? String)
        let revoked = try await Self.traced(fp, ["gateway", "token", "--revoke=\(id)"] + secret)
        #expect(revoked.status == 0 && revoked.stderr.contains("revoked \(id)"), "\(revoked.stderr)")
        let renamed = Self.renames(onto: "secret.credentials.json", in: revoked.trace)
        let last = try #require(renamed.last, "the ledger is rewritten: \(revoked.trace.filter { $0.contains("rename") })")
        #expect(Self.contentSynced(before: last.index, in: revoked.trace), "the new ledger's bytes are flushed before the rename")
        #expect(Self.folderSynced(after: last.index, target: last.target, in: revoked.trace), "the ledger's folder is fsynced after the rename")
    }
}
