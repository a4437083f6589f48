import FPConfig
import FPCore
import FPNet
import Foundation

/// One stored credential for one gateway database.
enum StoredCredential: Equatable {
    /// An fprint gateway's token, sent as `Authorization: Bearer`.
    case bearer(token: String)
    /// A CouchDB session: the `AuthSession` cookie and, to log in again
    /// before it expires, the name and password it was made with.
    case session(name: String, password: String, cookie: String, expiresAtMs: Int64, lifetime: Double)

    var json: JSONValue {
        switch self {
        case .bearer(let token): ["type": "bearer", "token": .string(token)]
        case .session(let name, let password, let cookie, let expiresAtMs, let lifetime):
            ["type": "session", "name": .string(name), "password": .string(password), "cookie": .string(cookie),
             "expiresAtMs": .int(expiresAtMs), "lifetime": .double(lifetime)]
        }
    }

    init?(_ value: JSONValue) {
        switch value["type"]?.stringValue {
        case "bearer":
            guard let token = value["token"]?.stringValue, !token.isEmpty else { return nil }
            self = .bearer(token: token)
        case "session":
            guard let name = value["name"]?.stringValue, let password = value["password"]?.stringValue,
                  let cookie = value["cookie"]?.stringValue else { return nil }
            self = .session(name: name, password: password, cookie: cookie,
                            expiresAtMs: value["expiresAtMs"]?.intValue ?? 0,
                            lifetime: value["lifetime"]?.doubleValue ?? 600)
        default: return nil
        }
    }
}

/// The credentials `fprint login` stored: one per gateway database (origin
/// plus database path, `HTTPAuth.databaseKey`), in
/// `$XDG_CONFIG_HOME/fprint/credentials.json`, mode 0600, written whole and
/// atomically. The single `token` file of earlier versions is read as the
/// credential of every gateway without one of its own (key `*`, as it was
/// used), and moved into the new file the first time that is written.
struct CredentialFile {
    static let anyGateway = "*"
    var paths: FPPaths

    var path: String { paths.configDirectory + "/credentials.json" }
    var legacyTokenPath: String { paths.configDirectory + "/token" }

    func load() throws -> [String: StoredCredential] {
        if let data = try Self.read(path) {
            guard let json = try? CanonicalJSON.parse(data), let gateways = json["gateways"]?.objectValue else {
                throw CommandFailure("\(path): not a credentials file of fprint; remove it and run `fprint login` again", .dataError)
            }
            var out: [String: StoredCredential] = [:]
            for member in gateways { if let credential = StoredCredential(member.value) { out[member.key] = credential } }
            return out
        }
        guard let data = try Self.read(legacyTokenPath) else { return [:] }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? [:] : [Self.anyGateway: .bearer(token: token)]
    }

    /// The credential for a database URL: its own, else the one for any gateway.
    func credential(for url: URL) throws -> (credential: StoredCredential, key: String)? {
        let all = try load()
        if let key = HTTPAuth.databaseKey(of: url), let own = all[key] { return (own, key) }
        return all[Self.anyGateway].map { ($0, Self.anyGateway) }
    }

    /// A credential of a database on this URL's origin (for config files the
    /// gateway serves under `/config/`); never the any-gateway one, which
    /// must not reach a config host that is not a gateway.
    func credential(sameOriginAs url: URL) throws -> (credential: StoredCredential, key: String)? {
        guard let origin = HTTPAuth.origin(of: url) else { return nil }
        let all = try load()
        let key = all.keys.sorted().first { $0 != Self.anyGateway && ($0 == origin || $0.hasPrefix(origin + "/")) }
        return key.flatMap { key in all[key].map { ($0, key) } }
    }

    func save(_ credential: StoredCredential, key: String) throws {
        var all = try load()
        all[key] = credential
        try FileManager.default.createDirectory(atPath: paths.configDirectory, withIntermediateDirectories: true)
        let gateways = JSONObject(all.mapValues(\.json))
        try PrivateFile.write(path: path, data: CanonicalJSON.data(["version": 1, "gateways": .object(gateways)]))
        // Its token now lives in the new file (under "*" unless replaced).
        if FileManager.default.fileExists(atPath: legacyTokenPath) { unlink(legacyTokenPath) }
    }

    static func read(_ path: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the credentials file", .ioError)
        }
        return data
    }
}

/// Files only their owner may read.
enum PrivateFile {
    /// Writes `data` to `path` atomically. The file is created 0600 before a
    /// byte is written, so it is never readable by others.
    static func write(path: String, data: Data) throws {
        do {
            try Files.writeAtomically(data, to: path, permissions: 0o600)
        } catch {
            throw CommandFailure(error.description, .ioError)
        }
    }
}
