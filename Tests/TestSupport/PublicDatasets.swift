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
        let into = try makeTemporaryFolder("dataset")
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-xJf", source.path, "-C", into.path]
        let exit = try tar.startAwaitingExit()
        let status = await exit.value()
        guard status == 0 else { throw DatasetUnavailable("tar -xJf \(source.path) exited \(status)") }
        return into.appendingPathComponent(name)
    }
}

/// Why a public dataset could not be had: the test fails with this.
public struct DatasetUnavailable: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
