@testable import FPCore
import Foundation
import Testing

/// The one durable whole-file replace that the config (FPConfig's Files) and
/// the credential ledger (FPGateway's LedgerFile) both use: the content is
/// whole, the mode is set from the first byte, nothing is left behind, and a
/// failure names its step.
@Suite struct DurableReplaceTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "durable-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    static func replace(_ path: String, _ text: String, permissions: mode_t = 0o600) throws(DurableReplace.Failure) {
        try DurableReplace.replace(path, with: Data(text.utf8), permissions: permissions)
    }

    @Test func replacesWholeWithItsModeAndLeavesNoTemporaryFile() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/ledger.json"
        try Self.replace(path, "{\"old\":1}\n")
        let oldInode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64
        try Self.replace(path, "{\"new\":2}\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"new\":2}\n")
        // A new file renamed over the old (a reader holding the old sees it whole), mode 0600.
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.systemFileNumber] as? UInt64 != oldInode)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["ledger.json"])
    }

    @Test func aStaleTemporaryFileOfAKilledWriterDoesNotBlockTheNext() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/app-config.json"
        // What a writer killed between create and rename leaves (with this very pid).
        let stale = "\(dir)/.app-config.json.\(getpid()).1.tmp"
        FileManager.default.createFile(atPath: stale, contents: Data("{".utf8))
        try Self.replace(path, "{}\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n")
    }

    @Test func aMissingFolderFailsAtCreateAndSaysSo() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: DurableReplace.Failure(step: .create, errno: ENOENT)) {
            try Self.replace(dir + "/no/such/file.json", "{}")
        }
        #expect(DurableReplace.Failure(step: .create, errno: ENOENT).isMissingFolder)
        #expect(DurableReplace.Failure(step: .rename, errno: EXDEV).description == "cannot rename: Invalid cross-device link")
    }

    @Test func aRenameOntoAFolderFailsAndRemovesItsTemporaryFile() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/taken"
        try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
        #expect(throws: DurableReplace.Failure.self) { try Self.replace(path, "{}") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["taken"])
    }
}
