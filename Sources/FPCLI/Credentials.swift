import FPConfig
import FPCore
import FPGateway
import FPNet
import FPSync
import Foundation

/// Where the sync token comes from: `--token`, else `FPRINT_TOKEN`, else the
/// token file `fprint login` wrote (0600 in the config directory).
struct TokenSource {
    var paths: FPPaths
    var environment: [String: String]

    var tokenPath: String { paths.configDirectory + "/token" }

    func token(explicit: String?) throws -> (token: String, origin: String)? {
        if let explicit, !explicit.isEmpty { return (explicit, "--token") }
        if let env = environment["FPRINT_TOKEN"], !env.isEmpty { return (env, "FPRINT_TOKEN") }
        guard FileManager.default.fileExists(atPath: tokenPath) else { return nil }
        guard let data = FileManager.default.contents(atPath: tokenPath) else {
            throw Failure("\(tokenPath): cannot read the token file", .ioError)
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : (text, "the token file")
    }

    /// Writes the token readable by its owner only. The file is created 0600
    /// before the token is written, so it is never readable by others.
    func store(_ token: String) throws {
        try FileManager.default.createDirectory(atPath: paths.configDirectory, withIntermediateDirectories: true)
        try Self.writePrivate(path: tokenPath, data: Data((token + "\n").utf8))
    }

    static func writePrivate(path: String, data: Data) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("\(path): cannot write: \(String(cString: strerror(errno)))", .ioError) }
        fchmod(fd, 0o600)
        let ok = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) == $0.count }
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure("\(path): cannot write the file", .ioError)
        }
    }
}

extension Failure {
    /// Exit codes per sync failure (README's table).
    init(_ error: SyncError) {
        switch error {
        case .unreachable: self.init(error.description, .gatewayUnreachable)
        case .authRejected: self.init(error.description, .authRejected)
        case .protocolError: self.init(error.description, .protocolError)
        case .store: self.init(error.description, .ioError)
        }
    }
}
