import Foundation

/// A fresh, empty folder under this test process's own folder
/// (`$TMPDIR/fprint-tests-<pid>`), named `<prefix>-<UUID>` so a folder left
/// behind says which tests made it. The process's folder goes when the
/// process exits normally; a crashed run leaves it, to look at.
public func makeTemporaryFolder(_ prefix: String) throws -> URL {
    _ = removedAtExit
    let url = testRunFolder.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

private let testRunFolder = FileManager.default.temporaryDirectory
    .appendingPathComponent("fprint-tests-\(getpid())", isDirectory: true)

/// Registers the folder's removal once, on first use.
private let removedAtExit: Void = {
    atexit { try? FileManager.default.removeItem(at: testRunFolder) }
}()
