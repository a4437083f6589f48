import Foundation

/// The public fingerprint datasets of `../shared/datasets/` (beside the
/// repository, in CI as here), extracted at test time into this test
/// process's temporary folder, once per archive: the data never enters the
/// repository. A missing archive fails the test that asks for it.
public enum PublicDatasets {
    /// `<repository>/../shared/datasets`.
    public static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/datasets").standardizedFileURL

    /// The UJI long-term reference results of the authors' Matlab code.
    public static var ujiReference: URL { folder.appendingPathComponent("uji-lib-longterm-reference") }

    /// The folder an archive (`uji-lib-longterm-m01-15.tar.xz`) unpacks to (`…/uji-lib-longterm`).
    public static func extracted(_ archive: String, folder name: String) async throws -> URL {
        try await cache.extracted(archive, folder: name)
    }

    private static let cache = Extractions()

    private actor Extractions {
        var done: [String: Task<URL, any Error>] = [:]

        func extracted(_ archive: String, folder name: String) async throws -> URL {
            if let task = done[archive] { return try await task.value }
            let task = Task { try await PublicDatasets.extract(archive, folder: name) }
            done[archive] = task
            return try await task.value
        }
    }

    static func extract(_ archive: String, folder name: String) async throws -> URL {
        let source = folder.appendingPathComponent(archive)
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw DatasetUnavailable("\(source.path) is missing: the public datasets belong beside the repository (../shared/datasets)")
        }
        let into = try extractionFolder()
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-xJf", source.path, "-C", into.path]
        let exit = try await tar.startAwaitingExit()
        let status = await exit.value()
        guard status == 0 else { throw DatasetUnavailable("tar -xJf \(source.path) exited \(status)") }
        return into.appendingPathComponent(name)
    }
}

/// Where archives are extracted: tmpfs (`/dev/shm`) when there is one, since
/// writing 155 MB to the disk beside the suite made every other test's fsync
/// wait for it (ext4 commits other files' dirty data with its journal), and
/// tests that time their stores missed their bounds; else the test folder.
private func extractionFolder() throws -> URL {
    let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: shm.path, isDirectory: &isDirectory), isDirectory.boolValue,
        FileManager.default.isWritableFile(atPath: shm.path)
    else { return try makeTemporaryFolder("dataset") }
    let folder = shm.appendingPathComponent("fprint-datasets-\(getpid())-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    removedAtExit.append(folder.path)
    return folder
}

/// Folders in memory to remove when the test process ends.
private let removedAtExit = ExitRemovals.shared

private final class ExitRemovals: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: [String] = []  // guarded by `lock`
    static let shared = ExitRemovals()

    func append(_ path: String) {
        lock.withLock {
            if paths.isEmpty { atexit { ExitRemovals.shared.removeAll() } }
            paths.append(path)
        }
    }

    func removeAll() { for path in lock.withLock({ paths }) { try? FileManager.default.removeItem(atPath: path) } }
}

/// Why a public dataset could not be had: the test fails with this.
public struct DatasetUnavailable: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
