import FPNet
import FPTestSupport
import Foundation
import Testing

/// The real peers of `../shared/peers/` (README there): Apache CouchDB 3.5.0
/// (`couchdb.sh`) and PouchDB 9.0.0 for node. Tests that need one are listed
/// as skipped, with what is missing, when it is not there; under
/// `FPRINT_REQUIRE_REAL=1` (CI, after `.ci/run` installed them) they run and
/// fail instead.
enum RealPeers {
    /// `$FPRINT_PEERS`, else `../shared/peers` beside the repository.
    static let folder: URL = {
        if let given = ProcessInfo.processInfo.environment["FPRINT_PEERS"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        return FprintRunner.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/peers")
    }()

    static var required: Bool { ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1" }

    /// Why CouchDB cannot run here; nil when it can.
    static let couchDBMissing: String? = {
        var missing: [String] = []
        for file in ["couchdb.sh", "couchdb-3.5.0.tar.xz"]
        where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) {
            missing.append(folder.appendingPathComponent(file).path)
        }
        for (library, package) in [("libicuuc.so.72", "libicu72"), ("libssl.so.3", "libssl3")] where !installed(library) {
            missing.append("\(package) (apt)")
        }
        for tool in ["curl", "python3", "xz"] where which(tool) == nil { missing.append("\(tool) (apt)") }
        return missing.isEmpty ? nil : "CouchDB 3.5.0 needs " + missing.joined(separator: ", ")
    }()

    /// Why PouchDB cannot run here; nil when it can.
    static let pouchDBMissing: String? = {
        var missing: [String] = []
        if !FileManager.default.fileExists(atPath: pouchDBLoader.path) { missing.append(pouchDBLoader.path) }
        if which("node") == nil { missing.append("nodejs (apt)") }
        return missing.isEmpty ? nil : "PouchDB 9.0.0 needs " + missing.joined(separator: ", ")
    }()

    static var pouchDBLoader: URL { folder.appendingPathComponent("pouchdb-9.0.0/load.js") }

    /// Whether a CouchDB test should run: the peer is there, or CI requires it
    /// (then the test fails in `CouchDB.start`, naming what is missing).
    static var couchDBRuns: Bool { couchDBMissing == nil || required }
    static var pouchDBRuns: Bool { pouchDBMissing == nil || required }

    /// The skip note Swift Testing prints beside a skipped test.
    static var couchDBNote: Comment { Comment(rawValue: "skipped: \(couchDBMissing ?? "")") }
    static var pouchDBNote: Comment { Comment(rawValue: "skipped: \(pouchDBMissing ?? "")") }

    static func which(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a shared library is in one of the linker's usual folders.
    static func installed(_ library: String) -> Bool {
        let folders = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                       "/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib"]
        return folders.contains { FileManager.default.fileExists(atPath: "\($0)/\(library)") }
    }
}

/// Why a real peer failed a test's setup: said in the test's failure.
struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
