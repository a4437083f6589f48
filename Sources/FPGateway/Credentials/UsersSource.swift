import Foundation
import Synchronization

/// The users file as it is now: read again whenever it changed, so removing
/// a user, demoting one or changing a password takes effect on the next
/// request (a login made before is checked against the current entry).
/// A file that can no longer be read or parsed refuses every password and
/// every login made with one until it is mended (fail closed), and says why.
package final class UsersSource: Sendable {
    /// nil: the users given at start, for good (tests, no users file).
    let path: String?
    private struct State {
        var users: BasicUsers
        var identity: FileIdentity?
        var problem: String?
        /// Counts the readings: a new one may hold a removal or a new password.
        var version = 1
    }
    private let state: Mutex<State>

    package init(fixed users: BasicUsers) {
        path = nil
        state = Mutex(State(users: users))
    }

    /// Reads `path` now; a bad file at start is the caller's error to report.
    package init(path: String) throws {
        self.path = path
        let users = try Self.load(path)
        state = Mutex(State(users: users, identity: FileIdentity(path: path)))
    }

    /// Whether anyone is in the users file (as last read): a credential not
    /// issued as token-only then needs its user's line. Users given for
    /// good (no file) can never be removed, so no credential needs one.
    package var hasUsers: Bool {
        path != nil && state.withLock { !$0.users.isEmpty }
    }

    /// The users now, or why there are none to check against.
    package func current() -> Result<BasicUsers, GatewaySetupError> {
        currentReading().map(\.users)
    }

    /// `current()`, with the number of the reading it comes from.
    package func currentReading() -> Result<(users: BasicUsers, version: Int), GatewaySetupError> {
        if let path {
            let identity = FileIdentity(path: path)
            let changed = state.withLock { $0.identity != identity || identity == nil }
            if changed {
                do {
                    let users = try Self.load(path)
                    state.withLock { $0 = State(users: users, identity: identity, version: $0.version + 1) }
                } catch let error as GatewaySetupError {
                    state.withLock { s in
                        s.users = BasicUsers()
                        s.identity = identity
                        s.problem = error.description
                        s.version += 1
                    }
                } catch {
                    state.withLock { s in
                        s.users = BasicUsers()
                        s.identity = identity
                        s.problem = "\(path): \(error)"
                        s.version += 1
                    }
                }
            }
        }
        return state.withLock { s in s.problem.map { .failure(GatewaySetupError($0)) } ?? .success((s.users, s.version)) }
    }

    /// Reads the file again even if it looks unchanged (SIGHUP): an edit
    /// that kept its size and times is seen too.
    package func reload() -> Result<BasicUsers, GatewaySetupError> {
        state.withLock { $0.identity = nil }
        return current()
    }

    static func load(_ path: String) throws -> BasicUsers {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GatewaySetupError("\(path): the users file cannot be read")
        }
        do { return try BasicUsers(fileText: String(decoding: data, as: UTF8.self)) } catch let error as GatewaySetupError {
            throw GatewaySetupError("\(path): \(error.description)")
        }
    }
}
