import Foundation

/// A fresh, empty folder under this test process's own folder
/// (`$TMPDIR/fprint-tests-<pid>`), named `<prefix>-<UUID>` so a folder left
/// behind says which tests made it. The process's folder goes when the
/// process exits normally; a crashed run leaves it, to look at.
public func makeTemporaryFolder(_ prefix: String) throws -> URL {
    let url = testRunFolder.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Created, and its removal at exit registered, on first use.
private let testRunFolder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fprint-tests-\(getpid())", isDirectory: true)
    atexit { try? FileManager.default.removeItem(at: testRunFolderPath) }
    return url
}()

/// The same path as a plain value, for the exit handler (which may not capture).
private let testRunFolderPath = FileManager.default.temporaryDirectory
    .appendingPathComponent("fprint-tests-\(getpid())", isDirectory: true)
