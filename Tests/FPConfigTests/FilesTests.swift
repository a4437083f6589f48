import Foundation
import Testing

@testable import FPConfig

/// `Files.writeAtomically`: the whole new content or the old, directories
/// made only when missing, no temporary file left, errors naming the file.
@Suite struct FilesTests {
    private func entries(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test func createsMissingFoldersAndWritesWithTheGivenPermissions() throws {
        let folder = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.path
        let path = root + "/a/b/note.json"
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })  // more than one write may take
        try Files.writeAtomically(bytes, to: path, permissions: 0o600, durable: false)
        #expect(FileManager.default.contents(atPath: path) == bytes)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)
        #expect(try entries(root + "/a/b") == ["note.json"])
    }

    @Test func replacesAnExistingFileWhole() throws {
        let folder = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.path
        let path = root + "/note.json"
        try Files.writeAtomically(Data("a much longer first content".utf8), to: path)
        try Files.writeAtomically(Data("short".utf8), to: path)
        #expect(FileManager.default.contents(atPath: path) == Data("short".utf8))
        #expect(try entries(root) == ["note.json"])
        try Files.writeAtomically(Data(), to: path, durable: false)
        #expect(FileManager.default.contents(atPath: path) == Data())
    }

    @Test func aParentThatIsAFileFailsNamingThePathAndLeavesNothing() throws {
        let folder = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.path
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/plain"))
        let path = root + "/plain/sub/note.json"
        let error = try #require(throws: ConfigError.self) { try Files.writeAtomically(Data("y".utf8), to: path) }
        #expect(String(describing: error).contains(path))
        #expect(String(describing: error).hasSuffix("cannot write: Not a directory"))
        #expect(try entries(root) == ["plain"])
    }

    @Test func aTargetThatIsADirectoryFailsAndLeavesNoTemporaryFile() throws {
        let folder = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.path
        try FileManager.default.createDirectory(atPath: root + "/taken", withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: root + "/taken/inside"))
        let error = try #require(throws: ConfigError.self) { try Files.writeAtomically(Data("y".utf8), to: root + "/taken") }
        #expect(String(describing: error).contains("cannot write"))
        #expect(try entries(root) == ["taken"])
        #expect(FileManager.default.contents(atPath: root + "/taken/inside") == Data("keep".utf8))
    }
}
