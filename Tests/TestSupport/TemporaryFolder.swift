import Foundation

/// A fresh, empty folder under the system's temporary directory, named
/// `<prefix>-<UUID>` so a folder left behind says which tests made it.
/// The caller removes it.
public func makeTemporaryFolder(_ prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
