import FPCore
import Foundation

/// The credential ledger's file: `{"credentials":[…],"users":{…}}`, one
/// line, written whole to a new file renamed over the old (0600). A ledger
/// written before `users` existed reads as one with no users seen yet.
enum LedgerFile {
    struct Contents: Equatable, Sendable {
        var entries: [String: CredentialLedger.Entry] = [:]
        var users: [String: CredentialLedger.UserRecord] = [:]

        /// Whether the users file's `tags` are what was last seen.
        func usersMatch(_ tags: [String: String]) -> Bool {
            let listed = users.filter { $0.value.tag != nil }
            return listed.count == tags.count && tags.allSatisfy { listed[$0.key]?.tag == $0.value }
        }

        /// Drops expired entries, and ended sessions past each user's `kept` newest.
        mutating func prune(at t: Int64, endedSessionsKept kept: Int) {
            entries = entries.filter { $0.value.expiresAt > t }
            var ended: [String: [CredentialLedger.Entry]] = [:]
            for entry in entries.values where entry.session && entry.revokedAt != nil { ended[entry.user, default: []].append(entry) }
            for list in ended.values where list.count > kept {
                for old in list.sorted(by: CredentialLedger.Entry.newerFirst).dropFirst(kept) { entries[old.id] = nil }
            }
        }
    }

    static func read(_ path: String) throws -> Contents? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !FileManager.default.fileExists(atPath: path) { return nil }
            throw CredentialLedger.LedgerError(description: "cannot read the credential ledger")
        }
        let json: JSONValue
        do { json = try CanonicalJSON.parse(data) } catch {
            throw CredentialLedger.LedgerError(description: "not JSON (\(error))")
        }
        guard let list = json["credentials"]?.arrayValue else {
            throw CredentialLedger.LedgerError(description: "no \"credentials\" list")
        }
        var contents = Contents()
        for (n, item) in list.enumerated() {
            guard let id = item["id"]?.stringValue, let user = item["user"]?.stringValue,
                  let role = item["role"]?.stringValue.flatMap(GatewayRole.init(rawValue:)),
                  let origin = item["origin"]?.stringValue.flatMap(CredentialOrigin.init(rawValue:)),
                  let issued = item["issuedAt"]?.intValue, let expires = item["expiresAt"]?.intValue
            else { throw CredentialLedger.LedgerError(description: "credentials[\(n)] is incomplete") }
            contents.entries[id] = .init(id: id, user: user, role: role, origin: origin, note: item["note"]?.stringValue ?? "",
                                         issuedAt: issued, expiresAt: expires, revokedAt: item["revokedAt"]?.intValue,
                                         session: item["session"]?.boolValue, ended: item["ended"]?.stringValue)
            contents.entries[id]?.serial = item["serial"]?.intValue ?? 0
        }
        for (name, item) in json["users"]?.objectValue ?? [:] {
            guard let removals = item["removals"]?.intValue, let changes = item["passwordChanges"]?.intValue else {
                throw CredentialLedger.LedgerError(description: "users[\(name)] is incomplete")
            }
            contents.users[name] = .init(tag: item["tag"]?.stringValue, removals: removals, passwordChanges: changes)
        }
        return contents
    }

    static func write(_ contents: Contents, to path: String) throws {
        let list: [JSONValue] = contents.entries.values
            .sorted { CredentialLedger.Entry.newerFirst($1, $0) }
            .map { e in
                var o: JSONObject = ["id": .string(e.id), "user": .string(e.user), "role": .string(e.role.rawValue),
                                     "origin": .string(e.origin.rawValue), "note": .string(e.note),
                                     "issuedAt": .int(e.issuedAt), "expiresAt": .int(e.expiresAt), "session": .bool(e.session),
                                     "serial": .int(e.serial)]
                if let r = e.revokedAt { o["revokedAt"] = .int(r) }
                if let why = e.ended { o["ended"] = .string(why) }
                return .object(o)
            }
        var users = JSONObject()
        for (name, r) in contents.users {
            var o: JSONObject = ["removals": .int(r.removals), "passwordChanges": .int(r.passwordChanges)]
            if let tag = r.tag { o["tag"] = .string(tag) }
            users[name] = .object(o)
        }
        var data = CanonicalJSON.data(["credentials": .array(list), "users": .object(users)])
        data.append(0x0A)
        // A revocation reported done must stay done through a power cut:
        // DurableReplace flushes the new ledger, renames it, flushes the folder.
        do {
            try DurableReplace.replace(path, with: data, permissions: 0o600)
        } catch {
            throw CredentialLedger.LedgerError(description: "\(path): cannot replace the credential ledger (\(error))")
        }
    }
}

/// Which file a path names now: a changed device, inode, size or time means
/// it was rewritten (or replaced) since it was read.
struct FileIdentity: Equatable {
    let device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNanos: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec)
        modifiedNanos = info.st_mtim.tv_nsec
    }
}

/// An exclusive `flock` on a lock file, for read-modify-write of a shared file.
struct FileLock {
    let fd: Int32

    init(_ path: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CredentialLedger.LedgerError(description: "\(path): cannot open (errno \(errno))") }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR {
                close(fd)
                throw CredentialLedger.LedgerError(description: "\(path): cannot lock (errno \(errno))")
            }
        }
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
