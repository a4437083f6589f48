import FPCore
import FPDashboard
import Foundation
import Synchronization

/// Every credential the gateway issued (tokens of `fprint gateway token` and
/// the admin page, login sessions), every revocation, and what the gateway
/// saw of each user in the users file, in a JSON file beside the secret
/// (0600). `fprint gateway token --list/--revoke` and the running gateway
/// both read and write it; the gateway looks at the file's identity on each
/// check and reads it again only when it changed, so a revocation takes
/// effect on the next request and a check costs the same however long the ledger is.
///
/// An issued token is valid while its signature and expiry hold and its id
/// is not revoked here (a ledger that lost its entry locks nobody out). A
/// session is valid only while its entry is here and live: each user keeps
/// their `sessionsPerUser` newest, older ones end, and ended ones are
/// forgotten past as many, so logins cannot grow the ledger without bound. A
/// ledger that cannot be read refuses every credential (fail closed).
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
        /// A login's session (valid only while recorded here), not an issued token.
        package var session: Bool
        /// Why it ended when nobody revoked it by name (`superseded`: newer sessions of its user).
        package var ended: String?
        /// The order entries were recorded in (many logins share one second of `issuedAt`).
        package var serial: Int64 = 0

        package init(id: String, user: String, role: GatewayRole, origin: CredentialOrigin, note: String,
                     issuedAt: Int64, expiresAt: Int64, revokedAt: Int64? = nil, session: Bool? = nil, ended: String? = nil) {
            (self.id, self.user, self.role, self.origin, self.note) = (id, user, role, origin, note)
            (self.issuedAt, self.expiresAt, self.revokedAt) = (issuedAt, expiresAt, revokedAt)
            self.session = session ?? (origin == .password)
            self.ended = ended
        }

        package init(_ claims: TokenClaims, note: String) {
            self.init(id: claims.id ?? "", user: claims.subject, role: claims.role, origin: claims.origin, note: note,
                      issuedAt: claims.issuedAt, expiresAt: claims.expiresAt, session: claims.isSession)
        }

        func isLive(at t: Int64) -> Bool { revokedAt == nil && expiresAt > t }

        static func newerFirst(_ a: Entry, _ b: Entry) -> Bool { (a.issuedAt, a.serial, a.id) > (b.issuedAt, b.serial, b.id) }
    }

    /// What the gateway last saw of a user in the users file, and how often it changed.
    package struct UserRecord: Sendable, Equatable {
        /// A keyed tag of the user's password (`TokenAuthority.passwordTag`); nil: not in the file.
        package var tag: String?
        /// Times the user's line was seen removed.
        package var removals: Int64
        /// Times the password was seen to change (a removal and a return count too).
        package var passwordChanges: Int64

        package init(tag: String? = nil, removals: Int64 = 0, passwordChanges: Int64 = 0) {
            (self.tag, self.removals, self.passwordChanges) = (tag, removals, passwordChanges)
        }
    }

    package struct LedgerError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Live sessions a user keeps; a newer login ends the oldest.
    package static let sessionsPerUser = Dashboard.sessionsPerUser
    static let superseded = "superseded"

    /// nil: kept in memory only (tests, an in-process gateway).
    let path: String?
    private struct State {
        var contents = LedgerFile.Contents()
        var fileIdentity: FileIdentity?
        var problem: String?
    }
    private let state = Mutex(State())

    package init(path: String?) {
        self.path = path
    }

    /// The ledger beside a secret file.
    package static func path(besideSecret secretPath: String) -> String { secretPath + ".credentials.json" }

    /// The ledger as its file holds it now: one look at the file (read again
    /// only if it changed) answers all of a check's questions.
    package struct Snapshot: Sendable {
        /// Why no credential is taken now (the file cannot be read), else nil.
        package let problem: String?
        let contents: LedgerFile.Contents

        /// Whether `id` was revoked (or the ledger cannot be read: refused too).
        package func isRevoked(_ id: String) -> Bool { problem != nil || contents.entries[id]?.revokedAt != nil }

        package func entry(_ id: String) -> Entry? { contents.entries[id] }

        /// What the gateway last saw of `user` in the users file (zeros: nothing yet).
        package func record(of user: String) -> UserRecord { contents.users[user] ?? UserRecord() }

        /// Whether the gateway has seen a users file with anyone in it.
        package var knowsUsersFile: Bool { contents.users.values.contains { $0.tag != nil } }
    }

    package func snapshot() -> Snapshot {
        refresh()
        return state.withLock { Snapshot(problem: $0.problem, contents: $0.contents) }
    }

    /// Why no credential is taken now (the file cannot be read), else nil.
    package func unreadable() -> String? { snapshot().problem }

    /// What the gateway last saw of `user` in the users file (zeros: nothing yet).
    package func record(of user: String) -> UserRecord { snapshot().record(of: user) }

    /// Every entry, newest first, expired ones left out.
    package func entries(now: Date = Date()) -> [Entry] {
        refresh()
        let t = Int64(now.timeIntervalSince1970)
        return state.withLock { Array($0.contents.entries.values) }.filter { $0.expiresAt > t }
            .sorted(by: Entry.newerFirst)
    }

    /// Records a newly issued credential; a session beyond its user's
    /// `sessionsPerUser` ends the oldest (returned).
    @discardableResult
    package func record(_ entry: Entry, now: Date = Date()) throws -> [Entry] {
        var superseded: [Entry] = []
        try change(now: now) { contents in
            var entry = entry
            entry.serial = (contents.entries.values.map(\.serial).max() ?? 0) + 1
            contents.entries[entry.id] = entry
            guard entry.session else { return }
            let t = Int64(now.timeIntervalSince1970)
            let live = contents.entries.values.filter { $0.session && $0.user == entry.user && $0.isLive(at: t) }
                .sorted(by: Entry.newerFirst)
            for old in live.dropFirst(Self.sessionsPerUser) {
                contents.entries[old.id]?.revokedAt = t
                contents.entries[old.id]?.ended = Self.superseded
                superseded.append(contents.entries[old.id]!)
            }
        }
        return superseded
    }

    /// Revokes the credentials `matching` selects; returns them.
    @discardableResult
    package func revoke(now: Date = Date(), matching: @escaping (Entry) -> Bool) throws -> [Entry] {
        let t = Int64(now.timeIntervalSince1970)
        var revoked: [Entry] = []
        try change(now: now) { contents in
            for (id, entry) in contents.entries where entry.isLive(at: t) && matching(entry) {
                contents.entries[id]!.revokedAt = t
                revoked.append(contents.entries[id]!)
            }
        }
        return revoked
    }

    /// Revokes one credential by id, known to the ledger or not (a token
    /// whose entry was lost is still ended).
    package func revoke(id: String, user: String, expiresAt: Int64, now: Date = Date()) throws {
        let t = Int64(now.timeIntervalSince1970)
        try change(now: now) { contents in
            var entry = contents.entries[id] ?? Entry(id: id, user: user, role: .viewer, origin: .password, note: "ended",
                                                      issuedAt: t, expiresAt: expiresAt)
            if entry.revokedAt == nil { entry.revokedAt = t }
            contents.entries[id] = entry
        }
    }

    /// Takes in the users file as it is now (`tags`: each user's password
    /// tag): a removed user's and a changed password's counts go up, which
    /// ends what was issued before; nothing is written when nothing changed.
    /// Several processes may see the same change: the count goes up once.
    package func observe(users tags: [String: String]) throws {
        if state.withLock({ s in s.problem == nil && s.contents.usersMatch(tags) }) { return }
        try change { contents in
            for (name, record) in contents.users where record.tag != nil && tags[name] == nil {
                contents.users[name] = UserRecord(tag: nil, removals: record.removals + 1,
                                                  passwordChanges: record.passwordChanges + 1)
            }
            for (name, tag) in tags {
                guard let record = contents.users[name] else {
                    contents.users[name] = UserRecord(tag: tag)
                    continue
                }
                if record.tag != tag { contents.users[name] = UserRecord(tag: tag, removals: record.removals,
                                                                         passwordChanges: record.passwordChanges + 1) }
            }
        }
    }

    // MARK: - The file

    /// Reads, changes and writes the ledger under an exclusive lock (another
    /// process may be writing it), then forgets what no check needs: expired
    /// entries, and ended sessions past each user's `sessionsPerUser` newest.
    private func change(now: Date = Date(), _ edit: (inout LedgerFile.Contents) -> Void) throws {
        let t = Int64(now.timeIntervalSince1970)
        guard let path else {
            state.withLock { s in
                edit(&s.contents)
                s.contents.prune(at: t, endedSessionsKept: Self.sessionsPerUser)
            }
            return
        }
        let lock = try FileLock(path + ".lock")
        defer { lock.release() }
        // The file as last read, unless another process wrote it since.
        let identity = FileIdentity(path: path)
        var contents = state.withLock { s in s.fileIdentity != nil && s.fileIdentity == identity && s.problem == nil ? s.contents : nil }
        if contents == nil { contents = try LedgerFile.read(path) ?? LedgerFile.Contents() }
        edit(&contents!)
        contents!.prune(at: t, endedSessionsKept: Self.sessionsPerUser)
        try LedgerFile.write(contents!, to: path)
        state.withLock { s in
            s.contents = contents!
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
            let contents = try LedgerFile.read(path) ?? LedgerFile.Contents()
            state.withLock { s in
                s.contents = contents
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
}
