import FPCore
import Foundation
import Synchronization

/// Every credential the gateway issued (tokens of `fprint gateway token` and
/// the admin page, login sessions) and every revocation, in a JSON file
/// beside the secret (0600). `fprint gateway token --list/--revoke` and the
/// running gateway both read and write it; the gateway looks at the file's
/// identity on each check and reads it again when it changed, so a
/// revocation takes effect on the next request.
///
/// A credential is valid when its signature and expiry hold and its id is not
/// revoked here: a ledger that lost an entry (edited by hand) locks nobody
/// out, and one that cannot be read refuses every credential (fail closed).
package final class CredentialLedger: Sendable {
    package struct Entry: Sendable, Equatable {
        package var id: String
        package var user: String
        package var role: GatewayRole
        package var origin: CredentialOrigin
        /// What it is for, shown in listings ("fprint gateway token", "dashboard login", "/_session").
        package var note: String
        package var issuedAt: Int64
        package var expiresAt: Int64
        package var revokedAt: Int64?

        package init(id: String, user: String, role: GatewayRole, origin: CredentialOrigin, note: String,
                     issuedAt: Int64, expiresAt: Int64, revokedAt: Int64? = nil) {
            (self.id, self.user, self.role, self.origin, self.note) = (id, user, role, origin, note)
            (self.issuedAt, self.expiresAt, self.revokedAt) = (issuedAt, expiresAt, revokedAt)
        }

        package init(_ claims: TokenClaims, note: String) {
            self.init(id: claims.id ?? "", user: claims.subject, role: claims.role, origin: claims.origin, note: note,
                      issuedAt: claims.issuedAt, expiresAt: claims.expiresAt)
        }
    }

    package struct LedgerError: Error, CustomStringConvertible {
        package let description: String
    }

    /// nil: kept in memory only (tests, an in-process gateway).
    let path: String?
    private struct State {
        var entries: [String: Entry] = [:]
        var fileIdentity: FileIdentity?
        var problem: String?
    }
    private let state = Mutex(State())

    package init(path: String?) {
        self.path = path
    }

    /// The ledger beside a secret file.
    package static func path(besideSecret secretPath: String) -> String { secretPath + ".credentials.json" }

    /// Why no credential is taken now (the file cannot be read), else nil.
    package func unreadable() -> String? {
        refresh()
        return state.withLock { $0.problem }
    }

    /// Whether `id` was revoked (or the ledger cannot be read: refused too).
    package func isRevoked(_ id: String) -> Bool {
        refresh()
        return state.withLock { $0.problem != nil || $0.entries[id]?.revokedAt != nil }
    }

    /// Every entry, newest first, expired ones left out.
    package func entries(now: Date = Date()) -> [Entry] {
        refresh()
        let t = Int64(now.timeIntervalSince1970)
        return state.withLock { Array($0.entries.values) }.filter { $0.expiresAt > t }
            .sorted { ($0.issuedAt, $0.id) > ($1.issuedAt, $1.id) }
    }

    /// Records a newly issued credential.
    package func record(_ entry: Entry) throws {
        try change { entries in entries[entry.id] = entry }
    }

    /// Revokes the credentials `matching` selects; returns them.
    @discardableResult
    package func revoke(now: Date = Date(), matching: @escaping (Entry) -> Bool) throws -> [Entry] {
        let t = Int64(now.timeIntervalSince1970)
        var revoked: [Entry] = []
        try change { entries in
            for (id, entry) in entries where entry.revokedAt == nil && entry.expiresAt > t && matching(entry) {
                entries[id]!.revokedAt = t
                revoked.append(entries[id]!)
            }
        }
        return revoked
    }

    /// Revokes one credential by id, known to the ledger or not (a session
    /// whose entry was lost is still ended).
    package func revoke(id: String, user: String, expiresAt: Int64, now: Date = Date()) throws {
        let t = Int64(now.timeIntervalSince1970)
        try change { entries in
            var entry = entries[id] ?? Entry(id: id, user: user, role: .viewer, origin: .password, note: "ended",
                                             issuedAt: t, expiresAt: expiresAt)
            if entry.revokedAt == nil { entry.revokedAt = t }
            entries[id] = entry
        }
    }

    // MARK: - The file

    /// Reads, changes and writes the ledger under an exclusive lock (another
    /// process may be writing it), dropping entries expired for a day.
    private func change(_ edit: (inout [String: Entry]) -> Void) throws {
        guard let path else {
            state.withLock { edit(&$0.entries) }
            return
        }
        let lock = try FileLock(path + ".lock")
        defer { lock.release() }
        var entries = try Self.read(path) ?? [:]
        edit(&entries)
        let horizon = Int64(Date().timeIntervalSince1970) - 86_400
        entries = entries.filter { $0.value.expiresAt > horizon }
        try Self.write(entries, to: path)
        state.withLock { s in
            s.entries = entries
            s.fileIdentity = FileIdentity(path: path)
            s.problem = nil
        }
    }

    /// Reads the file again if it is not the one last read.
    private func refresh() {
        guard let path else { return }
        let identity = FileIdentity(path: path)
        if state.withLock({ $0.fileIdentity == identity && $0.fileIdentity != nil }) { return }
        do {
            let entries = try Self.read(path) ?? [:]
            state.withLock { s in
                s.entries = entries
                s.fileIdentity = identity
                s.problem = nil
            }
        } catch {
            state.withLock { s in
                s.fileIdentity = identity
                s.problem = "\(path): \(error)"
            }
        }
    }

    static func read(_ path: String) throws -> [String: Entry]? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !FileManager.default.fileExists(atPath: path) { return nil }
            throw LedgerError(description: "cannot read the credential ledger")
        }
        let json: JSONValue
        do { json = try CanonicalJSON.parse(data) } catch { throw LedgerError(description: "not JSON (\(error))") }
        guard let list = json["credentials"]?.arrayValue else { throw LedgerError(description: "no \"credentials\" list") }
        var entries: [String: Entry] = [:]
        for (n, item) in list.enumerated() {
            guard let id = item["id"]?.stringValue, let user = item["user"]?.stringValue,
                  let role = item["role"]?.stringValue.flatMap(GatewayRole.init(rawValue:)),
                  let origin = item["origin"]?.stringValue.flatMap(CredentialOrigin.init(rawValue:)),
                  let issued = item["issuedAt"]?.intValue, let expires = item["expiresAt"]?.intValue
            else { throw LedgerError(description: "credentials[\(n)] is incomplete") }
            entries[id] = Entry(id: id, user: user, role: role, origin: origin, note: item["note"]?.stringValue ?? "",
                                issuedAt: issued, expiresAt: expires, revokedAt: item["revokedAt"]?.intValue)
        }
        return entries
    }

    static func write(_ entries: [String: Entry], to path: String) throws {
        let list: [JSONValue] = entries.values.sorted { $0.issuedAt == $1.issuedAt ? $0.id < $1.id : $0.issuedAt < $1.issuedAt }
            .map { e in
                var o: JSONObject = ["id": .string(e.id), "user": .string(e.user), "role": .string(e.role.rawValue),
                                     "origin": .string(e.origin.rawValue), "note": .string(e.note),
                                     "issuedAt": .int(e.issuedAt), "expiresAt": .int(e.expiresAt)]
                if let r = e.revokedAt { o["revokedAt"] = .int(r) }
                return .object(o)
            }
        var data = CanonicalJSON.data(["credentials": .array(list)])
        data.append(0x0A)
        let temporary = path + ".new-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw LedgerError(description: "\(temporary): cannot write the credential ledger")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw LedgerError(description: "\(path): cannot replace the credential ledger (errno \(errno))")
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
