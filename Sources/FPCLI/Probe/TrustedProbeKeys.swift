import FPConfig
import FPCore
import FPProbe
import Foundation

/// The probe servers' keys this user trusts (`fprint probe --trust-server`), in
/// `$XDG_CONFIG_HOME/fprint/probe-keys.json`: 0600 like credentials.json,
/// written whole by rename. `--verify` believes a signature made by one of
/// these keys and no other; nothing in a result file can add one.
struct TrustedProbeKeys {
    struct Entry {
        var key: ProbeKey
        /// Where it was fetched from (`scheme://host:port`), for messages.
        var server: String
        var trustedAt: String

        var json: JSONValue {
            ["alg": .string(ProbeKey.algorithm), "key": .string(key.base64url), "fingerprint": .string(key.fingerprint),
             "server": .string(server), "trustedAt": .string(trustedAt)]
        }
    }

    var paths: FPPaths
    var path: String { paths.configDirectory + "/probe-keys.json" }

    /// The trusted keys; none when the file does not exist. A file that is not
    /// one of these is one line naming it, never taken as "no keys".
    func load() throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        // Whoever may write here decides which signatures are believed.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o022 != 0 {
            throw CommandFailure("\(path): the trusted probe keys must be writable by their owner only (chmod 600)", .usage)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the trusted probe keys", .ioError)
        }
        guard let json = try? CanonicalJSON.parse(data), let keys = json["keys"]?.arrayValue else {
            throw CommandFailure("\(path): not a trusted probe keys file of fprint ({\"keys\": […]}); fix it, or remove it and run `fprint probe --trust-server URL` again", .dataError)
        }
        return try keys.enumerated().map { index, item in
            let key: ProbeKey
            do { key = try ProbeKey(json: item) } catch {
                throw CommandFailure("\(path): keys[\(index)]: \(error)", .dataError)
            }
            return Entry(key: key, server: item["server"]?.stringValue ?? "?", trustedAt: item["trustedAt"]?.stringValue ?? "?")
        }
    }

    /// Writes the whole list (0600, by rename: a reader sees the old file or the new).
    func save(_ entries: [Entry]) throws {
        try PrivateFile.write(path: path, data: Data(PrettyJSON.text(["version": 1, "keys": .array(entries.map(\.json))]).utf8))
    }
}
